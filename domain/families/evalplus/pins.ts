/**
 * What stored evalplus problems must stay: for fixed rows, the bytes a sweep stores and what every step
 * makes of them read back (../pins.ts; checked by test/families/stored-artefacts.test.ts). A pin
 * changes only with a patched() change that keeps running sweeps readable (docs/workflow-versions.md).
 */
import { jsonLines, type StoredProblemPin } from '../pins.js';

export const storedPins: StoredProblemPin[] = [
  {
    case: 'HumanEval+',
    entry: {
      name: 'heplus',
      family: 'evalplus',
      path: 'HumanEvalPlus.jsonl.gz',
      variant: 'humaneval',
      time_limit_factor: 4,
      min_time_limit: 4,
      task_time_limit: 60,
    },
    texts: {
      rows: jsonLines([
        '{"task_id":"HumanEval/53","prompt":"def add(x: int, y: int) -> int:\\n    \\"\\"\\"Add two numbers x and y\\n    >>> add(2, 3)\\n    5\\n    \\"\\"\\"\\n","entry_point":"add","canonical_solution":"\\n    return x + y\\n","contract":"\\n    assert type(x) is int, \\"invalid inputs\\"\\n","atol":0, "base_input": [[0, 1], [1, 0], [2, 3], [5, 7]], "plus_input": [[-5, 3], [12345678901234567890123, 1], [0, 0]]}',
        '{"task_id":"HumanEval/4","prompt":"from typing import List\\n\\n\\ndef mean(numbers: List[float]) -> float:\\n    \\"\\"\\"The mean of a non-empty list of numbers.\\"\\"\\"\\n","entry_point":"mean","canonical_solution":"    return sum(numbers) / len(numbers)\\n","contract":"","atol":0.001, "base_input": [[[1.0, 2.0, 3.0]], [[1.5]]], "plus_input": [[[0.1, 0.2, 0.3, 0.4]], [[1e-05, 2e-05]]]}',
        '{"task_id":"HumanEval/900","prompt":"def is_nan(x: float) -> bool:\\n    \\"\\"\\"Whether x is not a number.\\"\\"\\"\\n","entry_point":"is_nan","canonical_solution":"    return x != x\\n","contract":"","atol":0, "base_input": [[1.0], [NaN]], "plus_input": [[Infinity], [-Infinity], [0.0]]}',
        '{"task_id":"HumanEval/901","prompt":"from typing import List, Tuple\\n\\n\\ndef pairs(n: int) -> List[Tuple[int, int]]:\\n    \\"\\"\\"The pairs (i, i + 1) for i below n, as a list.\\"\\"\\"\\n","entry_point":"pairs","canonical_solution":"    return [(i, i + 1) for i in range(n)]\\n","contract":"","atol":0, "base_input": [[0], [1], [3]], "plus_input": [[10]]}',
      ]),
    },
    stored: 'ba5479e3021b711cbc1b9a3bffabe57dce529f16265dfcd6e83ca27fde07023e',
    behaviour: 'f78ccc7c7eb1a9c63896d5ee58b422aa297aaaef188c224e2310b76bd4a43a6d',
  },
  {
    case: 'MBPP+ (min_time_limit 2)',
    entry: {
      name: 'mbppplus',
      family: 'evalplus',
      path: 'MbppPlus.jsonl',
      variant: 'mbpp',
      time_limit_factor: 4,
      min_time_limit: 2,
      task_time_limit: 60,
    },
    texts: {
      rows: jsonLines([
        '{"task_id":"Mbpp/2","prompt":"\\"\\"\\"\\nWrite a function to find the shared elements from the given two lists.\\nassert set(similar_elements((3, 4, 5, 6),(5, 7, 4, 10))) == set((4, 5))\\n\\"\\"\\"\\n","entry_point":"similar_elements","canonical_solution":"\\ndef similar_elements(test_tup1, test_tup2):\\n  return tuple(set(test_tup1) & set(test_tup2))\\n","contract":"","assertion":"\\nassert set(similar_elements((3, 4, 5, 6),(5, 7, 4, 10))) == set((4, 5))\\n","atol":0, "base_input": [[[3, 4, 5, 6], [5, 7, 4, 10]], [[1, 2, 3, 4], [5, 4, 3, 7]]], "plus_input": [[[], [1, 2]], [[1, 1, 2], [2, 2, 1]]]}',
      ]),
    },
    stored: 'b2d132d9aed93adf663012a2762bfbb26aef81f2e9168f50b7972bb2ed4cfc7b',
    behaviour: 'b7d0098bd6db1654b6e52273da5a2655abdcd50f000c63f57dd9123590667211',
  },
];
