/**
 * What stored humanevalexplain problems must stay: for fixed rows, the bytes a sweep stores and what
 * every step makes of them read back (../pins.ts; checked by test/families/stored-artefacts.test.ts).
 * A pin changes only with a patched() change that keeps running sweeps readable (docs/workflow-versions.md).
 */
import { jsonLines, type StoredProblemPin } from '../pins.js';

const PYTHON_ROW = JSON.stringify({
  task_id: 'Python/2',
  prompt:
    '\n\ndef truncate_number(number: float) -> float:\n    """ Return the decimal part of the number.\n    >>> truncate_number(3.5)\n    0.5\n    """\n',
  declaration: '\n\ndef truncate_number(number: float) -> float:\n',
  canonical_solution: '    return number % 1.0\n',
  buggy_solution: '    return number % 1.0 + 1.0\n',
  bug_type: 'excess logic',
  failure_symptoms: 'incorrect output',
  entry_point: 'truncate_number',
  import: '',
  test_setup: '',
  test: '\n\n\n\n\ndef check(truncate_number):\n    assert truncate_number(3.5) == 0.5\n\ncheck(truncate_number)',
  example_test: 'def check(truncate_number):\n    assert truncate_number(3.5) == 0.5\ncheck(truncate_number)\n',
  signature: 'truncate_number(number: float) -> float',
  docstring: 'Return the decimal part of the number.\n>>> truncate_number(3.5)\n0.5',
  instruction:
    'Write a Python function `truncate_number(number: float) -> float` to solve the following problem:\nReturn the decimal part of the number.\n>>> truncate_number(3.5)\n0.5',
});

export const storedPins: StoredProblemPin[] = [
  {
    case: 'python instruct',
    entry: { name: 'hee', family: 'humanevalexplain', path: 'humanevalpack.jsonl', language: 'python', prompt: 'instruct' },
    texts: { rows: jsonLines([PYTHON_ROW]) },
    stored: 'b2e1ab8d9c7b38ad2612aaed090c977cde59afd642f80b9ca8af906960efa7a0',
    behaviour: '659012561ff4a9a0f1d3d9b78b86ea645f3e12ca2d2ba139e6518279f13570e8',
  },
];
