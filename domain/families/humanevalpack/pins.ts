/**
 * What stored humanevalpack problems must stay: for fixed rows, the bytes a sweep stores and what
 * every step makes of them read back (../pins.ts; checked by test/families/stored-artefacts.test.ts).
 * A pin changes only with a patched() change that keeps running sweeps readable (docs/workflow-versions.md).
 */
import { jsonLines, type StoredProblemPin } from '../pins.js';

const PYTHON_ROW =
  '{"task_id":"Python/2","prompt":"\\n\\ndef truncate_number(number: float) -> float:\\n    \\"\\"\\" Return the decimal part of the number.\\n    >>> truncate_number(3.5)\\n    0.5\\n    \\"\\"\\"\\n","declaration":"\\n\\ndef truncate_number(number: float) -> float:\\n","canonical_solution":"    return number % 1.0\\n","buggy_solution":"    return number % 1.0 + 1.0\\n","bug_type":"excess logic","failure_symptoms":"incorrect output","entry_point":"truncate_number","import":"","test_setup":"","test":"\\n\\n\\n\\n\\ndef check(truncate_number):\\n    assert truncate_number(3.5) == 0.5\\n\\ncheck(truncate_number)","example_test":"def check(truncate_number):\\n    assert truncate_number(3.5) == 0.5\\ncheck(truncate_number)\\n","signature":"truncate_number(number: float) -> float","docstring":"Return the decimal part of the number.\\n>>> truncate_number(3.5)\\n0.5","instruction":"Write a Python function `truncate_number(number: float) -> float` to solve the following problem:\\nReturn the decimal part of the number.\\n>>> truncate_number(3.5)\\n0.5"}';
const JS_ROW =
  '{"task_id":"JavaScript/2","prompt":"/* Return the decimal part of the number.\\n  >>> truncateNumber(3.5)\\n  0.5\\n  */\\nconst truncateNumber = (number) => {\\n","declaration":"\\nconst truncateNumber = (number) => {\\n","canonical_solution":"  return number % 1.0;\\n}\\n\\n","buggy_solution":"  return number % 1.0 + 1.0;\\n}\\n\\n","bug_type":"excess logic","failure_symptoms":"incorrect output","entry_point":"truncateNumber","import":"","test_setup":"","test":"const testTruncateNumber = () => {\\n  console.assert(truncateNumber(3.5) === 0.5)\\n}\\n\\ntestTruncateNumber()\\n","example_test":"","signature":"const truncateNumber = (number)","docstring":"Return the decimal part of the number.","instruction":"Write a JavaScript function `const truncateNumber = (number)` to solve the following problem:\\nReturn the decimal part of the number."}';

export const storedPins: StoredProblemPin[] = [
  {
    case: 'python synthesize instruct',
    entry: {
      name: 'hep',
      family: 'humanevalpack',
      path: 'humanevalpack.jsonl',
      language: 'python',
      variant: 'synthesize',
      prompt: 'instruct',
    },
    texts: { rows: jsonLines([PYTHON_ROW]) },
    stored: 'f05befaf66d7176036c473be3152cac4dc82a1fed92a735e0cd6f8fc6b45f352',
    behaviour: '519a5d20a661fb083ab44951499a06fb3dd4fc387fb6ef49aac28a582a6e23ef',
  },
  {
    case: 'js fixtests octocoder',
    entry: { name: 'hep', family: 'humanevalpack', path: 'humanevalpack.jsonl', language: 'js', variant: 'fixtests', prompt: 'octocoder' },
    texts: { rows: jsonLines([JS_ROW]) },
    stored: '787ab568c3cfe9d068f71f2a700470f17461ed2a998527a3ce8ecd092ca6c58f',
    behaviour: '87852f4867f22c161de04edc0c2d5c5e4cd87848600a27008fe73306b84d5d65',
  },
];
