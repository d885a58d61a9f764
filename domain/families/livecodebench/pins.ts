/**
 * What stored livecodebench problems must stay: for fixed rows (code_generation_lite's format, the
 * private tests compressed as published), the bytes a sweep stores and what every step makes of them
 * read back (../pins.ts; checked by test/families/stored-artefacts.test.ts). A pin changes only with a
 * patched() change that keeps running sweeps readable (docs/workflow-versions.md).
 */
import { jsonLines, type StoredProblemPin } from '../pins.js';

const ROWS = jsonLines([
  '{"question_title": "Sum and Max", "question_content": "You are given N and then N integers A_1, ..., A_N. Print their sum on the first line and their maximum on the second.\\n\\nInput\\n\\nN\\nA_1 ... A_N\\n\\nOutput\\n\\nTwo lines.", "platform": "atcoder", "question_id": "abc300_a", "contest_id": "abc300", "contest_date": "2023-04-29T00:00:00", "starter_code": "", "difficulty": "easy", "public_test_cases": "[{\\"input\\": \\"3\\\\n1 2 3\\\\n\\", \\"output\\": \\"6\\\\n3\\\\n\\", \\"testtype\\": \\"stdin\\"}]", "private_test_cases": "eJxrYJnaxgABPU3R1UqZeQWlJUpWCkqGMXnmMXlKOgpK+aUlUDFzuFhJanFJSWVBKki0uCQlM0+pVkcBSbdRTJ6uqYKuIboJumZACUOcZsRO0QMA2kkq4w==", "metadata": "{}"}',
  '{"question_title": "Average", "question_content": "Print the mean of the numbers on the line, as a decimal number.", "platform": "atcoder", "question_id": "abc350_b", "contest_id": "abc350", "contest_date": "2024-04-20T00:00:00", "starter_code": "", "difficulty": "medium", "public_test_cases": "[{\\"input\\": \\"1 2\\\\n\\", \\"output\\": \\"1.5\\\\n\\", \\"testtype\\": \\"stdin\\"}]", "private_test_cases": "[{\\"input\\": \\"1 2 3 4\\\\n\\", \\"output\\": \\"2.50\\\\n\\", \\"testtype\\": \\"stdin\\"}, {\\"input\\": \\"5\\\\n\\", \\"output\\": \\"5\\\\n\\", \\"testtype\\": \\"stdin\\"}]", "metadata": "{}"}',
  '{"question_title": "Pair Groups", "question_content": "Given a list of integers nums, return the list of pairs [nums[2i], nums[2i+1]], each sorted.", "platform": "leetcode", "question_id": "3143", "contest_id": "weekly-contest-397", "contest_date": "2024-05-11T00:00:00", "starter_code": "class Solution:\\n    def pairGroups(self, nums: List[int]) -> List[List[int]]:\\n        ", "difficulty": "medium", "public_test_cases": "[{\\"input\\": \\"[3, 1, 2, 4]\\", \\"output\\": \\"[[1, 3], [2, 4]]\\", \\"testtype\\": \\"functional\\"}]", "private_test_cases": "eJxrYJnawgABPQ3R1UqZeQWlJUpWCkrRpjoKprFKOgpK+aUlMDGIIFi0JLW4pKSyIBUknlaal1ySmZ+XmKNUq6OAbAi6AXi1xk7RAwBk/SsM", "metadata": "{\\"func_name\\": \\"pairGroups\\"}"}',
  '{"question_title": "Count Below", "question_content": "Given nums and a threshold k, return how many numbers are below k.", "platform": "leetcode", "question_id": "3200", "contest_id": "biweekly-contest-134", "contest_date": "2024-07-06T14:30:00", "starter_code": "class Solution:\\n    def countBelow(self, nums: List[int], k: int) -> int:\\n        ", "difficulty": "easy", "public_test_cases": "[{\\"input\\": \\"[1, 5, 2]\\\\n3\\", \\"output\\": \\"2\\", \\"testtype\\": \\"functional\\"}]", "private_test_cases": "eJxrYJnazAABPfXR1UqZeQWlJUpWCkrRsTF5Bko6Ckr5pSVQITC3JLW4pKSyIBUkkFaal1ySmZ+XmKNUq6OArNlSR8ESaIAhmglG+EyInaIHAG7iKrs=", "metadata": "{\\"func_name\\": \\"countBelow\\"}"}',
  '{"question_title": "Reverse Words", "question_content": "Read a line of words and print them in reverse order, one per line.", "platform": "codeforces", "question_id": "1980A", "contest_id": "1980", "contest_date": "2024-08-01T00:00:00", "starter_code": "", "difficulty": "hard", "public_test_cases": "[{\\"input\\": \\"a b c\\\\n\\", \\"output\\": \\"c\\\\nb\\\\na\\\\n\\", \\"testtype\\": \\"stdin\\"}]", "private_test_cases": "eJxrYJnayQABPa3R1UqZeQWlJUpWCkoVMXlKOgpK+aUlqAIlqcUlJZUFqSCh4pKUzDylWh0FJH0ZqTk5+Qrl+UU5KegmQAXBKnAaFjtFDwAfKS9q", "metadata": "{}"}',
]);

export const storedPins: StoredProblemPin[] = [
  {
    case: 'all release dates',
    entry: { name: 'lcb', family: 'livecodebench', path: 'test5.jsonl', timeout: 6 },
    texts: { rows: ROWS },
    stored: '2974d76ce722da47a938f9aa2afc3a0b234df93f62e423c38693cab78d949bb0',
    behaviour: '931a0c791f760b245049857e76469c5f9a8f6193a502a0e2cd1194c93262c09d',
  },
  {
    case: 'a contamination window',
    entry: {
      name: 'lcb',
      family: 'livecodebench',
      path: 'test5.jsonl',
      release_after: '2024-05-01',
      release_before: '2024-08-01',
      timeout: 6,
    },
    texts: { rows: ROWS },
    stored: 'e0cc0420285e529e30b6095234661049737da92ced3ded030d96af3d2e01aabc',
    behaviour: '4522331e87cefd6797f974e974f153844fcf05f5f7f903b8f4c8aa5b4502e410',
  },
];
