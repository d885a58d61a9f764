/**
 * Rows of Elfsong/Mercury's eval split in its published format (the fields bigcode's mercury.py and
 * beyond_eval.py read: slug_name, difficulty, pretty_content, prompt, entry_point, solutions as
 * [{runtime, solution}], test_cases as JSON text of [{input, expected}], convert_offline,
 * evaluate_offline; and the others a row has: id, meta_info, generator_code, convert_online), written
 * by hand, with what a test's model answers:
 * - count-pairs (Medium): pairs summing to a target over lists of a few hundred numbers, one
 *   reference linear (a Counter), one quadratic: enough work that a fast and a deliberately slow
 *   answer are told apart by a wide margin whatever the load;
 * - running-sum (Easy): inputs that come as a dict convert_offline spreads into the arguments, a
 *   linear and a quadratic reference; and the ways a sample fails (syntax error, a raise, a wrong
 *   answer, no end);
 * - max-depth (Hard): a tree's depth, its inputs a level-order list that convert_offline turns into
 *   bigcode's TreeNode.
 */

/** A fixed pseudo-random sequence (a linear congruential generator), so the rows are the same everywhere. */
function numbers(seed: number, count: number, below: number): number[] {
  const out: number[] = [];
  let x = seed;
  for (let i = 0; i < count; i++) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    out.push(x % below);
  }
  return out;
}

function pairsSumming(nums: readonly number[], target: number): number {
  const seen = new Map<number, number>();
  let count = 0;
  for (const x of nums) {
    count += seen.get(target - x) ?? 0;
    seen.set(x, (seen.get(x) ?? 0) + 1);
  }
  return count;
}

const IDENTITY_CONVERT = 'def convert_offline(case):\n    return case\n';
const EQUAL_EVALUATE =
  'def evaluate_offline(inputs, outputs, expected):\n    if outputs == expected:\n        return True\n\n    return False\n';

export const PAIRS_FAST = [
  'class Solution:',
  '    def countPairs(self, nums: List[int], target: int) -> int:',
  '        seen = collections.Counter()',
  '        count = 0',
  '        for x in nums:',
  '            count += seen[target - x]',
  '            seen[x] += 1',
  '        return count',
].join('\n');

export const PAIRS_QUADRATIC = [
  'class Solution:',
  '    def countPairs(self, nums: List[int], target: int) -> int:',
  '        count = 0',
  '        for i in range(len(nums)):',
  '            for j in range(i + 1, len(nums)):',
  '                if nums[i] + nums[j] == target:',
  '                    count += 1',
  '        return count',
].join('\n');

/** Deliberately slow: the quadratic count, done four times over. */
export const PAIRS_SLOWEST = [
  'class Solution:',
  '    def countPairs(self, nums: List[int], target: int) -> int:',
  '        counts = []',
  '        for _ in range(4):',
  '            count = 0',
  '            for i in range(len(nums)):',
  '                for j in range(i + 1, len(nums)):',
  '                    if nums[i] + nums[j] == target:',
  '                        count += 1',
  '            counts.append(count)',
  '        return counts[0]',
].join('\n');

const pairCases = [11, 23, 37].map((seed) => {
  const nums = numbers(seed, 400, 1000);
  const target = 1000;
  return { input: [nums, target], expected: pairsSumming(nums, target) };
});

export const RUNNING_SUM = [
  'class Solution:',
  '    def runningSum(self, nums: List[int]) -> List[int]:',
  '        out, total = [], 0',
  '        for x in nums:',
  '            total += x',
  '            out.append(total)',
  '        return out',
].join('\n');

const MAX_DEPTH = [
  'class Solution:',
  '    def maxDepth(self, root: Optional[TreeNode]) -> int:',
  '        if root is None:',
  '            return 0',
  '        return 1 + max(self.maxDepth(root.left), self.maxDepth(root.right))',
].join('\n');

const MAX_DEPTH_ITERATIVE = [
  'class Solution:',
  '    def maxDepth(self, root: Optional[TreeNode]) -> int:',
  '        depth, level = 0, [root] if root else []',
  '        while level:',
  '            depth += 1',
  '            level = [c for n in level for c in (n.left, n.right) if c]',
  '        return depth',
].join('\n');

const TREE_CONVERT = [
  'def convert_offline(case):',
  '    values, expected = case',
  '    values = values[0]',
  '    if not values:',
  '        return (None,), expected',
  '    nodes = [None if v is None else TreeNode(v) for v in values]',
  '    kids = nodes[::-1]',
  '    root = kids.pop()',
  '    for node in nodes:',
  '        if node:',
  '            if kids: node.left = kids.pop()',
  '            if kids: node.right = kids.pop()',
  '    return (root,), expected',
].join('\n');

export interface MercuryRow {
  id: number;
  slug_name: string;
  meta_info: Record<string, unknown>;
  difficulty: 'Easy' | 'Medium' | 'Hard';
  pretty_content: string[];
  solutions: Array<{ runtime: string; solution: string }>;
  prompt: string;
  generator_code: string;
  convert_online: string;
  convert_offline: string;
  evaluate_offline: string;
  entry_point: string;
  test_cases: string;
}

export const MERCURY_ROWS: MercuryRow[] = [
  {
    id: 9001,
    slug_name: 'count-pairs',
    meta_info: { questionId: '9001', titleSlug: 'count-pairs' },
    difficulty: 'Medium',
    pretty_content: [
      'Given an integer array nums and an integer target, return the number of pairs (i, j) with i < j and nums[i] + nums[j] == target.\n\nExample 1:\n\nInput: nums = [1,2,3,4], target = 5\nOutput: 2\n\nConstraints:\n\n1 <= nums.length <= 10^4\n',
    ],
    solutions: [
      { runtime: '48ms', solution: PAIRS_FAST },
      { runtime: '3120ms', solution: PAIRS_QUADRATIC },
    ],
    prompt: 'class Solution:\n    def countPairs(self, nums: List[int], target: int) -> int:\n        ',
    generator_code:
      'def generate_test_case():\n    import random\n    nums = [random.randint(0, 999) for _ in range(400)]\n    return (nums, 1000), Solution().countPairs(nums, 1000)\n',
    convert_online: 'def convert_online(case):\n    return case\n',
    convert_offline: IDENTITY_CONVERT,
    evaluate_offline: EQUAL_EVALUATE,
    entry_point: 'countPairs',
    test_cases: JSON.stringify(pairCases),
  },
  {
    id: 1480,
    slug_name: 'running-sum-of-1d-array',
    meta_info: { questionId: '1603', titleSlug: 'running-sum-of-1d-array' },
    difficulty: 'Easy',
    pretty_content: [
      'Given an array nums. We define a running sum of an array as runningSum[i] = sum(nums[0]…nums[i]).\n\nReturn the running sum of nums.\n\nExample 1:\n\nInput: nums = [1,2,3,4]\nOutput: [1,3,6,10]\n',
    ],
    solutions: [
      { runtime: '36ms', solution: RUNNING_SUM },
      // Quadratic: the slow end of the task's range.
      {
        runtime: '96ms',
        solution:
          'class Solution:\n    def runningSum(self, nums: List[int]) -> List[int]:\n        return [sum(nums[: i + 1]) for i in range(len(nums))]',
      },
    ],
    prompt: 'class Solution:\n    def runningSum(self, nums: List[int]) -> List[int]:\n        ',
    generator_code:
      'def generate_test_case():\n    import random\n    nums = [random.randint(-100, 100) for _ in range(20)]\n    return {"nums": nums}, Solution().runningSum(nums)\n',
    convert_online: 'def convert_online(case):\n    return case\n',
    convert_offline: 'def convert_offline(case):\n    inputs, expected = case\n    return (inputs["nums"],), expected\n',
    evaluate_offline: EQUAL_EVALUATE,
    entry_point: 'runningSum',
    test_cases: JSON.stringify(
      [numbers(5, 20, 200), numbers(6, 1, 200), numbers(7, 300, 200)].map((nums) => ({
        input: { nums },
        expected: nums.map((_, i) => nums.slice(0, i + 1).reduce((a, b) => a + b, 0)),
      })),
    ),
  },
  {
    id: 104,
    slug_name: 'maximum-depth-of-binary-tree',
    meta_info: { questionId: '104', titleSlug: 'maximum-depth-of-binary-tree' },
    difficulty: 'Hard',
    pretty_content: [
      'Given the root of a binary tree, return its maximum depth.\n\nExample 1:\n\nInput: root = [3,9,20,null,null,15,7]\nOutput: 3\n',
    ],
    solutions: [
      { runtime: '40ms', solution: MAX_DEPTH },
      { runtime: '44ms', solution: MAX_DEPTH_ITERATIVE },
    ],
    prompt:
      '# Definition for a binary tree node.\n# class TreeNode:\n#     def __init__(self, val=0, left=None, right=None):\n#         self.val = val\n#         self.left = left\n#         self.right = right\nclass Solution:\n    def maxDepth(self, root: Optional[TreeNode]) -> int:\n        ',
    generator_code: 'def generate_test_case():\n    return [[3, 9, 20, None, None, 15, 7]], 3\n',
    convert_online: 'def convert_online(case):\n    return case\n',
    convert_offline: TREE_CONVERT,
    evaluate_offline: EQUAL_EVALUATE,
    entry_point: 'maxDepth',
    test_cases: JSON.stringify([
      { input: [[3, 9, 20, null, null, 15, 7]], expected: 3 },
      { input: [[1, null, 2]], expected: 2 },
      { input: [[]], expected: 0 },
    ]),
  },
];

export const mercuryJsonl = (rows: readonly MercuryRow[]): string => rows.map((r) => JSON.stringify(r) + '\n').join('');

/** The Easy task's answers that fail each of bigcode's ways, by its status. */
export const RUNNING_SUM_FAILURES = {
  'failed@load': 'class Solution:\n    def runningSum(self, nums: List[int]) -> List[int]:\n        return nums[',
  'failed@eval': 'class Solution:\n    def runningSum(self, nums: List[int]) -> List[int]:\n        raise ValueError("no")',
  'failed@cases': 'class Solution:\n    def runningSum(self, nums: List[int]) -> List[int]:\n        return nums',
  // Never ends: bigcode's alarm fires inside the test cases' loop, which its handler counts as failed@eval.
  loops: 'class Solution:\n    def runningSum(self, nums: List[int]) -> List[int]:\n        while True:\n            pass',
  'failed@error': 'class Solution:\n    def runningSum(self, nums: List[int]) -> List[int]:\n        raise SystemExit(3)',
} as const;
