/**
 * What stored multipl-e problems must stay: for fixed rows, the bytes a sweep stores and what every step
 * makes of them read back (../pins.ts; checked by test/families/stored-artefacts.test.ts). A pin
 * changes only with a patched() change that keeps running sweeps readable (docs/workflow-versions.md).
 */
import { jsonLines, type StoredProblemPin } from '../pins.js';

export const storedPins: StoredProblemPin[] = [
  {
    case: 'js, two rows',
    entry: { name: 'js', family: 'multipl-e', path: 'humaneval-js.jsonl', language: 'js' },
    texts: {
      rows: jsonLines([
        '{"name":"HumanEval_1_add","language":"js","prompt":"//Add two numbers x and y (task 1)\\n// >>> add(2, 3)\\n// 5\\n// >>> add(5, 7)\\n// 12\\nfunction add(x, y){\\n","doctests":"transform","original":"../datasets/originals-with-cleaned-doctests/HumanEval_53_add.py","prompt_terminology":"reworded","tests":"const assert = require(\'node:assert\');\\n\\n\\nfunction test() {\\n  let candidate = add;\\n  assert.deepEqual(candidate(0, 1),1);\\n  assert.deepEqual(candidate(1, 0),1);\\n  assert.deepEqual(candidate(2, 3),5);\\n  assert.deepEqual(candidate(5, 7),12);\\n  assert.deepEqual(candidate(7, 5),12);\\n}\\n\\ntest();","stop_tokens":["\\nfunction ","\\n/*","\\n//","\\nconsole.log"]}',
        '{"name":"HumanEval_2_add","language":"js","prompt":"//Add two numbers x and y (task 2)\\n// >>> add(2, 3)\\n// 5\\n// >>> add(5, 7)\\n// 12\\nfunction add(x, y){\\n","doctests":"transform","original":"../datasets/originals-with-cleaned-doctests/HumanEval_53_add.py","prompt_terminology":"reworded","tests":"const assert = require(\'node:assert\');\\n\\n\\nfunction test() {\\n  let candidate = add;\\n  assert.deepEqual(candidate(0, 1),1);\\n  assert.deepEqual(candidate(1, 0),1);\\n  assert.deepEqual(candidate(2, 3),5);\\n  assert.deepEqual(candidate(5, 7),12);\\n  assert.deepEqual(candidate(7, 5),12);\\n}\\n\\ntest();","stop_tokens":["\\nfunction ","\\n/*","\\n//","\\nconsole.log"]}',
      ]),
    },
    stored: '0cab67027bcb1bcfe14e445f9d7c8a8e9198f8ea881f5dd10a7924ea30be317b',
    behaviour: '1c44fcef5ca519dd734761d27c4e22f0fd999c7080b04b136bfc1eafd422eec2',
  },
];
