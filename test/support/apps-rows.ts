/**
 * APPS rows written by hand in codeparrot/apps's format (one JSON object a line: problem_id,
 * question, solutions and input_output as JSON text, difficulty, url, starter_code): the data
 * cannot be downloaded here. Each task comes with samples and the test cases APPS's checker passes.
 */

export interface AppsFixtureTask {
  line: string;
  problem_id: number;
  samples: Array<{ what: string; code: string; passed: number; total: number }>;
}

function row(fields: {
  problem_id: number;
  question: string;
  solutions: string[];
  input_output: unknown;
  difficulty: string;
  starter_code: string;
}): string {
  return JSON.stringify({
    problem_id: fields.problem_id,
    question: fields.question,
    solutions: JSON.stringify(fields.solutions),
    input_output: JSON.stringify(fields.input_output),
    difficulty: fields.difficulty,
    url: `https://example.org/problems/${fields.problem_id}`,
    starter_code: fields.starter_code,
  });
}

const SUM_MAX = 'n = int(input())\nxs = list(map(int, input().split()))\nprint(sum(xs))\nprint(max(xs))\n';

export const APPS_TASKS: AppsFixtureTask[] = [
  {
    // Standard input: two lines of output.
    problem_id: 4001,
    line: row({
      problem_id: 4001,
      question:
        'You are given n and then n integers. Print their sum, then their maximum, each on its own line.\n\n-----Input-----\n\nn, then the integers.\n\n-----Output-----\n\nTwo lines.',
      solutions: [SUM_MAX],
      input_output: { inputs: ['3\n1 2 3\n', '1\n7\n', '2\n-5 -1\n'], outputs: ['6\n3\n', '7\n7\n', '-6\n-1\n'] },
      difficulty: 'introductory',
      starter_code: '',
    }),
    samples: [
      { what: 'right', code: SUM_MAX, passed: 3, total: 3 },
      {
        what: 'right, with sys.stdin and trailing spaces',
        code: 'import sys\n\ndef main():\n    data = sys.stdin.read().split()\n    xs = list(map(int, data[1:]))\n    print(sum(xs), " ")\n    print(max(xs))\n\nmain()\n',
        passed: 3,
        total: 3,
      },
      // APPS's checker wraps the program into a function of a module not named __main__: the guarded call never runs.
      {
        what: 'right, behind a main guard',
        code: 'import sys\n\ndef main():\n    data = sys.stdin.read().split()\n    print(sum(map(int, data[1:])))\n    print(max(map(int, data[1:])))\n\nif __name__ == "__main__":\n    main()\n',
        passed: 0,
        total: 3,
      },
      {
        what: 'wrong on negatives',
        code: 'n = int(input())\nxs = list(map(int, input().split()))\nprint(sum(xs))\nprint(max(xs + [0]))\n',
        passed: 2,
        total: 3,
      },
      { what: 'does not compile', code: 'print(\n', passed: 0, total: 3 },
      {
        what: 'exits early on one case',
        code: 'import sys\nn = int(input())\nif n == 1:\n    sys.exit(0)\nxs = list(map(int, input().split()))\nprint(sum(xs))\nprint(max(xs))\n',
        passed: 2,
        total: 3,
      },
    ],
  },
  {
    // Standard input with a float answer: within numpy's tolerance.
    problem_id: 4002,
    line: row({
      problem_id: 4002,
      question: 'Print the mean of the numbers on the line.',
      solutions: ['xs = list(map(float, input().split()))\nprint(sum(xs) / len(xs))\n'],
      input_output: { inputs: ['0.1 0.2\n', '1 2 4\n'], outputs: ['0.15\n', '2.3333333333\n'] },
      difficulty: 'interview',
      starter_code: '',
    }),
    samples: [
      {
        what: 'right (more digits than the answer)',
        code: 'xs = list(map(float, input().split()))\nprint(sum(xs) / len(xs))\n',
        passed: 2,
        total: 2,
      },
      {
        what: 'rounded too much',
        code: 'xs = list(map(float, input().split()))\nprint(round(sum(xs) / len(xs), 1))\n',
        passed: 0,
        total: 2,
      },
    ],
  },
  {
    // Call-based, LeetCode style: a method of Solution; outputs wrapped in a list as APPS writes them.
    problem_id: 4003,
    line: row({
      problem_id: 4003,
      question: 'Return the sum of the two largest numbers of the list.',
      solutions: ['class Solution:\n    def topTwo(self, nums):\n        a, b = sorted(nums)[-2:]\n        return a + b\n'],
      input_output: { fn_name: 'topTwo', inputs: [[[1, 2, 3]], [[5, 5]], [[-1, -2, 0]]], outputs: [[5], [10], [-1]] },
      difficulty: 'interview',
      starter_code: '\nclass Solution:\n    def topTwo(self, nums: List[int]) -> int:\n        ',
    }),
    samples: [
      { what: 'right', code: 'class Solution:\n    def topTwo(self, nums):\n        return sum(sorted(nums)[-2:])\n', passed: 3, total: 3 },
      {
        what: 'wrong on negatives',
        code: 'class Solution:\n    def topTwo(self, nums):\n        return sum(x for x in sorted(nums)[-2:] if x > 0)\n',
        passed: 2,
        total: 3,
      },
      {
        what: 'raises on one case',
        code: 'class Solution:\n    def topTwo(self, nums):\n        if len(nums) == 2:\n            raise ValueError("two")\n        return sum(sorted(nums)[-2:])\n',
        passed: 2,
        total: 3,
      },
    ],
  },
  {
    // Call-based, Codewars style: a plain function returning a tuple where the answer is a list.
    problem_id: 4004,
    line: row({
      problem_id: 4004,
      question: 'Return the words of the sentence in reverse order, as a list.',
      solutions: ['def reverse_words(s):\n    return s.split()[::-1]\n'],
      input_output: { fn_name: 'reverse_words', inputs: [['hello world'], ['a b c']], outputs: [[['world', 'hello']], [['c', 'b', 'a']]] },
      difficulty: 'competition',
      starter_code: '\ndef reverse_words(s):\n\t',
    }),
    samples: [
      { what: 'a tuple for the list', code: 'def reverse_words(s):\n    return tuple(reversed(s.split()))\n', passed: 2, total: 2 },
      {
        what: 'too slow on one case',
        code: 'import time\ndef reverse_words(s):\n    if s == "a b c":\n        time.sleep(30)\n    return s.split()[::-1]\n',
        passed: 1,
        total: 2,
      },
    ],
  },
];

export function appsJsonl(tasks: AppsFixtureTask[]): string {
  return tasks.map((t) => t.line + '\n').join('');
}
