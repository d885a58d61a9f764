/**
 * What stored humaneval problems must stay: for fixed rows, the bytes a sweep stores and what every step
 * makes of them read back (../pins.ts; checked by test/families/stored-artefacts.test.ts). A pin
 * changes only with a patched() change that keeps running sweeps readable (docs/workflow-versions.md).
 */
import { jsonLines, type StoredProblemPin } from '../pins.js';

export const storedPins: StoredProblemPin[] = [
  {
    case: 'prompt_plus_completion',
    entry: { name: 'he', family: 'humaneval', path: 'he.jsonl', program_form: 'prompt_plus_completion' },
    texts: {
      rows: jsonLines([
        '{"task_id":"T/0","prompt":"def f(x):\\n    \\"\\"\\"Twice x.\\"\\"\\"\\n","entry_point":"f","test":"def check(c):\\n    assert c(1) == 2\\n","canonical_solution":"    return 2 * x\\n"}',
        '{"task_id":"T/1","prompt":"def g(s):\\n    \\"\\"\\"s reversed.\\"\\"\\"\\n","entry_point":"g","test":"def check(c):\\n    assert c(\\"ab\\") == \\"ba\\"\\n"}',
      ]),
    },
    stored: 'fe0377947c8e952a5a914428c2c4b3fcba6f5a37641692670092e40ad1f47ea6',
    behaviour: '5c3d0cb2b5910595aa2b961a399e878603ca2d2f472dc12b911236e75d0f4847',
  },
  {
    case: 'full_program',
    entry: { name: 'he', family: 'humaneval', path: 'he.jsonl', program_form: 'full_program' },
    texts: {
      rows: jsonLines([
        '{"task_id":"T/0","prompt":"def f(x):\\n    \\"\\"\\"Twice x.\\"\\"\\"\\n","entry_point":"f","test":"def check(c):\\n    assert c(1) == 2\\n","canonical_solution":"    return 2 * x\\n"}',
        '{"task_id":"T/1","prompt":"def g(s):\\n    \\"\\"\\"s reversed.\\"\\"\\"\\n","entry_point":"g","test":"def check(c):\\n    assert c(\\"ab\\") == \\"ba\\"\\n"}',
      ]),
    },
    stored: '47274f707731bb368b5ade6d6d32dedc11f362631a57816f7cedc7d1a9a4d7fc',
    behaviour: '24121e4bba1f686abfeefb281f890792cfd2ec5de6636c424277b04a1f7cfc88',
  },
  {
    case: 'strip_prompt (bigcode humaneval)',
    entry: { name: 'he', family: 'humaneval', path: 'he.jsonl', strip_prompt: true },
    texts: {
      rows: jsonLines([
        '{"task_id":"T/0","prompt":"\\ndef f(x):\\n    \\"\\"\\"Twice x.\\"\\"\\"\\n","entry_point":"f","test":"def check(c):\\n    assert c(1) == 2\\n","canonical_solution":"    return 2 * x\\n"}',
      ]),
    },
    stored: 'b307c7a401dcff094d487a8067c29095a503013329cab7d397c9ac62db7e54c3',
    behaviour: '60c50b6413bb43e3fd5bde9c03c93ad2cf3443dd9861d009506efd9ffb4d7bf0',
  },
];
