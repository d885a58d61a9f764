/**
 * What stored instruct-humaneval problems must stay: for fixed rows, the bytes a sweep stores and what
 * every step makes of them read back (../pins.ts; checked by test/families/stored-artefacts.test.ts).
 * A pin changes only with a patched() change that keeps running sweeps readable (docs/workflow-versions.md).
 */
import { jsonLines, type StoredProblemPin } from '../pins.js';

const ROWS = jsonLines([
  '{"task_id":"HumanEval/2","prompt":"\\n\\ndef truncate_number(number: float) -> float:\\n    \\"\\"\\" Return the decimal part.\\n    \\"\\"\\"\\n","canonical_solution":"    return number % 1.0\\n","test":"\\n\\ndef check(candidate):\\n    assert candidate(3.5) == 0.5\\n","entry_point":"truncate_number","signature":"truncate_number(number: float) -> float","docstring":"Return the decimal part.","context":"\\n\\ndef truncate_number(number: float) -> float:\\n","instruction":"Write a function truncate_number(number: float) -> float to solve the following problem:\\nReturn the decimal part.\\n"}',
]);

export const storedPins: StoredProblemPin[] = [
  {
    case: 'with context, StarChat tokens',
    entry: {
      name: 'ih',
      family: 'instruct-humaneval',
      path: 'test.jsonl',
      context: true,
      instruction_tokens: ['<|user|>\n', '<|end|>\n', '<|assistant|>\n'],
    },
    texts: { rows: ROWS },
    stored: 'd6cf6039cd2f164006b854e4419d22a28800a87a3a99dfbd9e12ccb31969d4df',
    behaviour: '49c6249e07777706697a8be4a3d3f12e365420f4dd351c2b00aea73f22568a8a',
  },
  {
    case: 'nocontext, default tokens',
    entry: { name: 'ih', family: 'instruct-humaneval', path: 'test.jsonl', context: false, instruction_tokens: ['', '', '\n'] },
    texts: { rows: ROWS },
    stored: 'ea1c87964ac9f0ff5394f37d9f36a5c9a817ee0f15b583668d13b44de94974ef',
    behaviour: '2a946a233a510d2f89ec5660021c791ab75d2eb3ab34bfa07213b72e3cde0d5b',
  },
];
