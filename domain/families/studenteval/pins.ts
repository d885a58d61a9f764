/**
 * What stored studenteval problems must stay: for fixed rows, the bytes a sweep stores and what every
 * step makes of them read back (../pins.ts; checked by test/families/stored-artefacts.test.ts). A pin
 * changes only with a patched() change that keeps running sweeps readable (docs/workflow-versions.md).
 */
import { jsonLines, type StoredProblemPin } from '../pins.js';

const ROWS = jsonLines([
  '{"problem":"remove_odd","entrypoint":"remove_odd","assertions":"assert remove_odd([1, 2, 3]) == [2]","prints":"print(remove_odd([1, 2, 3]))","username":"student0","submitted_text":"removes odd numbers","tests_passed":1,"total_tests":1,"prompt":"def remove_odd(lst):\\n    \\"\\"\\"\\n    removes odd numbers\\n    \\"\\"\\"\\n","completion":"    return [x for x in lst if x % 2 == 0]\\n","first_attempt":true,"last_attempt":true,"is_success":true,"is_first_success":true,"is_last_success":false,"is_first_failure":false,"is_last_failure":false}',
  '{"problem":"remove_odd","entrypoint":"remove_odd","assertions":"assert remove_odd([1, 2, 3]) == [2]","prints":"print(remove_odd([1, 2, 3]))","username":"student1","submitted_text":"odd out","tests_passed":0,"total_tests":1,"prompt":"def remove_odd(lst):\\n    \\"\\"\\"\\n    odd out\\n    \\"\\"\\"\\n","completion":"    return lst\\n","first_attempt":false,"last_attempt":true,"is_success":false,"is_first_success":false,"is_last_success":false,"is_first_failure":false,"is_last_failure":true}',
]);

export const storedPins: StoredProblemPin[] = [
  {
    case: 'two subsets',
    entry: { name: 'se', family: 'studenteval', path: 'test.jsonl' },
    texts: { rows: ROWS },
    stored: 'd5b2aebcb474ebb0608207787f8d69d5c99fbbc628c2803f07368bc0928bc8e7',
    behaviour: 'b68c8608e466dc2d22a36387de911140720545516d27c077cfce743578cf6441',
  },
];
