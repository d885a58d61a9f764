/**
 * What stored mbpp problems must stay: for fixed rows, the bytes a sweep stores and what every step
 * makes of them read back (../pins.ts; checked by test/families/stored-artefacts.test.ts). A pin
 * changes only with a patched() change that keeps running sweeps readable (docs/workflow-versions.md).
 */
import { jsonLines, type StoredProblemPin } from '../pins.js';

export const storedPins: StoredProblemPin[] = [
  {
    case: 'all splits, three-shot prompt',
    entry: { name: 'mbpp', family: 'mbpp', path: 'mbpp.jsonl', split: 'all', prompt: 'three-shot' },
    texts: {
      rows: jsonLines([
        '{"task_id":2,"text":"Write a function for task 2.","code":"def task_2(a):\\r\\n    return a + 2","test_setup_code":"","test_list":["assert task_2(1) == 3","assert task_2(0) == 2"],"challenge_test_list":[]}',
        '{"task_id":3,"text":"Write a function for task 3.","code":"def task_3(a):\\r\\n    return a + 3","test_setup_code":"","test_list":["assert task_3(1) == 4","assert task_3(0) == 3"],"challenge_test_list":[]}',
        '{"task_id":4,"text":"Write a function for task 4.","code":"def task_4(a):\\r\\n    return a + 4","test_setup_code":"","test_list":["assert task_4(1) == 5","assert task_4(0) == 4"],"challenge_test_list":[]}',
        '{"task_id":11,"text":"Write a function for task 11.","code":"def task_11(a):\\r\\n    return a + 11","test_setup_code":"","test_list":["assert task_11(1) == 12","assert task_11(0) == 11"],"challenge_test_list":[]}',
        '{"task_id":12,"text":"Write a function for task 12.","code":"def task_12(a):\\r\\n    return a + 12","test_setup_code":"import math","test_list":["assert task_12(1) == 13","assert task_12(0) == 12"],"challenge_test_list":[]}',
      ]),
    },
    stored: 'c1844d412dae49d604df4b85b9f3e85c430df97eba23ca6cad353f0b795bb5e4',
    behaviour: '85db4d4b121190dfd64f12f938eca427fd55324832d50ef09c46983d7f7e5295',
  },
];
