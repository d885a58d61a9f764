/**
 * LiveCodeBench rows written in livecodebench/code_generation_lite's published format (one JSON object a
 * line: question_title, question_content, platform, question_id, contest_id, contest_date, starter_code,
 * difficulty, public_test_cases as JSON text, private_test_cases as base64 of zlib of a pickled JSON
 * text (abc350_b: as plain JSON text, LiveCodeBench's other branch), metadata as JSON text): the data
 * cannot be downloaded here. Written by Python's json, pickle (default protocol), zlib and base64.
 * Each task comes with samples and whether LiveCodeBench's evaluator passes them.
 */

export interface LcbFixtureTask {
  question_id: string;
  contest_date: string;
  line: string;
  samples: Array<{ what: string; code: string; passed: boolean }>;
}

export const LCB_TASKS: LcbFixtureTask[] = [
  {
    question_id: 'abc300_a',
    contest_date: '2023-04-29T00:00:00',
    line: '{"question_title": "Sum and Max", "question_content": "You are given N and then N integers A_1, ..., A_N. Print their sum on the first line and their maximum on the second.\\n\\nInput\\n\\nN\\nA_1 ... A_N\\n\\nOutput\\n\\nTwo lines.", "platform": "atcoder", "question_id": "abc300_a", "contest_id": "abc300", "contest_date": "2023-04-29T00:00:00", "starter_code": "", "difficulty": "easy", "public_test_cases": "[{\\"input\\": \\"3\\\\n1 2 3\\\\n\\", \\"output\\": \\"6\\\\n3\\\\n\\", \\"testtype\\": \\"stdin\\"}]", "private_test_cases": "eJxrYJnaxgABPU3R1UqZeQWlJUpWCkqGMXnmMXlKOgpK+aUlUDFzuFhJanFJSWVBKki0uCQlM0+pVkcBSbdRTJ6uqYKuIboJumZACUOcZsRO0QMA2kkq4w==", "metadata": "{}"}',
    samples: [
      { what: 'right', code: 'n = int(input())\nxs = list(map(int, input().split()))\nprint(sum(xs))\nprint(max(xs))', passed: true },
      { what: 'sum only', code: 'n = int(input())\nxs = list(map(int, input().split()))\nprint(sum(xs))', passed: false },
    ],
  },
  {
    question_id: 'abc350_b',
    contest_date: '2024-04-20T00:00:00',
    line: '{"question_title": "Average", "question_content": "Print the mean of the numbers on the line, as a decimal number.", "platform": "atcoder", "question_id": "abc350_b", "contest_id": "abc350", "contest_date": "2024-04-20T00:00:00", "starter_code": "", "difficulty": "medium", "public_test_cases": "[{\\"input\\": \\"1 2\\\\n\\", \\"output\\": \\"1.5\\\\n\\", \\"testtype\\": \\"stdin\\"}]", "private_test_cases": "[{\\"input\\": \\"1 2 3 4\\\\n\\", \\"output\\": \\"2.50\\\\n\\", \\"testtype\\": \\"stdin\\"}, {\\"input\\": \\"5\\\\n\\", \\"output\\": \\"5\\\\n\\", \\"testtype\\": \\"stdin\\"}]", "metadata": "{}"}',
    samples: [
      { what: 'right', code: 'xs = list(map(float, input().split()))\nprint(sum(xs) / len(xs))', passed: true },
      { what: 'rounded', code: 'xs = list(map(int, input().split()))\nprint(sum(xs) // len(xs))', passed: false },
    ],
  },
  {
    question_id: '3143',
    contest_date: '2024-05-11T00:00:00',
    line: '{"question_title": "Pair Groups", "question_content": "Given a list of integers nums, return the list of pairs [nums[2i], nums[2i+1]], each sorted.", "platform": "leetcode", "question_id": "3143", "contest_id": "weekly-contest-397", "contest_date": "2024-05-11T00:00:00", "starter_code": "class Solution:\\n    def pairGroups(self, nums: List[int]) -> List[List[int]]:\\n        ", "difficulty": "medium", "public_test_cases": "[{\\"input\\": \\"[3, 1, 2, 4]\\", \\"output\\": \\"[[1, 3], [2, 4]]\\", \\"testtype\\": \\"functional\\"}]", "private_test_cases": "eJxrYJnawgABPQ3R1UqZeQWlJUpWCkrRpjoKprFKOgpK+aUlMDGIIFi0JLW4pKSyIBUknlaal1ySmZ+XmKNUq6OAbAi6AXi1xk7RAwBk/SsM", "metadata": "{\\"func_name\\": \\"pairGroups\\"}"}',
    samples: [
      {
        what: 'right',
        code: 'class Solution:\n    def pairGroups(self, nums):\n        return [sorted(nums[i:i + 2]) for i in range(0, len(nums), 2)]',
        passed: true,
      },
      {
        what: 'tuples',
        code: 'class Solution:\n    def pairGroups(self, nums):\n        return [tuple(sorted(nums[i:i + 2])) for i in range(0, len(nums), 2)]',
        passed: false,
      },
    ],
  },
  {
    question_id: '3200',
    contest_date: '2024-07-06T14:30:00',
    line: '{"question_title": "Count Below", "question_content": "Given nums and a threshold k, return how many numbers are below k.", "platform": "leetcode", "question_id": "3200", "contest_id": "biweekly-contest-134", "contest_date": "2024-07-06T14:30:00", "starter_code": "class Solution:\\n    def countBelow(self, nums: List[int], k: int) -> int:\\n        ", "difficulty": "easy", "public_test_cases": "[{\\"input\\": \\"[1, 5, 2]\\\\n3\\", \\"output\\": \\"2\\", \\"testtype\\": \\"functional\\"}]", "private_test_cases": "eJxrYJnazAABPfXR1UqZeQWlJUpWCkrRsTF5Bko6Ckr5pSVQITC3JLW4pKSyIBUkkFaal1ySmZ+XmKNUq6OArNlSR8ESaIAhmglG+EyInaIHAG7iKrs=", "metadata": "{\\"func_name\\": \\"countBelow\\"}"}',
    samples: [
      {
        what: 'right',
        code: 'class Solution:\n    def countBelow(self, nums, k):\n        return sum(1 for x in nums if x < k)',
        passed: true,
      },
      { what: 'crashes', code: 'class Solution:\n    def countBelow(self, nums, k):\n        return nums[0]', passed: false },
    ],
  },
  {
    question_id: '1980A',
    contest_date: '2024-08-01T00:00:00',
    line: '{"question_title": "Reverse Words", "question_content": "Read a line of words and print them in reverse order, one per line.", "platform": "codeforces", "question_id": "1980A", "contest_id": "1980", "contest_date": "2024-08-01T00:00:00", "starter_code": "", "difficulty": "hard", "public_test_cases": "[{\\"input\\": \\"a b c\\\\n\\", \\"output\\": \\"c\\\\nb\\\\na\\\\n\\", \\"testtype\\": \\"stdin\\"}]", "private_test_cases": "eJxrYJnayQABPa3R1UqZeQWlJUpWCkoVMXlKOgpK+aUlqAIlqcUlJZUFqSCh4pKUzDylWh0FJH0ZqTk5+Qrl+UU5KegmQAXBKnAaFjtFDwAfKS9q", "metadata": "{}"}',
    samples: [
      {
        what: 'right',
        code: "import sys\ndef main():\n    for w in reversed(sys.stdin.readline().split()):\n        print(w)\nif __name__ == '__main__':\n    main()",
        passed: true,
      },
      { what: 'one line', code: "print(' '.join(reversed(input().split())))", passed: false },
    ],
  },
];

/** JSON Lines of the tasks' rows. */
export const lcbJsonl = (tasks: readonly LcbFixtureTask[]): string => tasks.map((t) => t.line + '\n').join('');
