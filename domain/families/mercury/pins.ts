/**
 * What stored mercury problems must stay: for fixed rows, the bytes a sweep stores and what every
 * step makes of them read back (../pins.ts; checked by test/families/stored-artefacts.test.ts). A pin
 * changes only with a patched() change that keeps running sweeps readable (docs/workflow-versions.md).
 */
import { jsonLines, type StoredProblemPin } from '../pins.js';

const ROWS = jsonLines([
  '{"id":104,"slug_name":"maximum-depth-of-binary-tree","meta_info":{"questionId":"104","titleSlug":"maximum-depth-of-binary-tree"},"difficulty":"Hard","pretty_content":["Given the root of a binary tree, return its maximum depth.\\n\\nExample 1:\\n\\nInput: root = [3,9,20,null,null,15,7]\\nOutput: 3\\n"],"solutions":[{"runtime":"40ms","solution":"class Solution:\\n    def maxDepth(self, root: Optional[TreeNode]) -> int:\\n        if root is None:\\n            return 0\\n        return 1 + max(self.maxDepth(root.left), self.maxDepth(root.right))"},{"runtime":"44ms","solution":"class Solution:\\n    def maxDepth(self, root: Optional[TreeNode]) -> int:\\n        depth, level = 0, [root] if root else []\\n        while level:\\n            depth += 1\\n            level = [c for n in level for c in (n.left, n.right) if c]\\n        return depth"}],"prompt":"# Definition for a binary tree node.\\n# class TreeNode:\\n#     def __init__(self, val=0, left=None, right=None):\\n#         self.val = val\\n#         self.left = left\\n#         self.right = right\\nclass Solution:\\n    def maxDepth(self, root: Optional[TreeNode]) -> int:\\n        ","generator_code":"def generate_test_case():\\n    return [[3, 9, 20, None, None, 15, 7]], 3\\n","convert_online":"def convert_online(case):\\n    return case\\n","convert_offline":"def convert_offline(case):\\n    values, expected = case\\n    values = values[0]\\n    if not values:\\n        return (None,), expected\\n    nodes = [None if v is None else TreeNode(v) for v in values]\\n    kids = nodes[::-1]\\n    root = kids.pop()\\n    for node in nodes:\\n        if node:\\n            if kids: node.left = kids.pop()\\n            if kids: node.right = kids.pop()\\n    return (root,), expected","evaluate_offline":"def evaluate_offline(inputs, outputs, expected):\\n    if outputs == expected:\\n        return True\\n\\n    return False\\n","entry_point":"maxDepth","test_cases":"[{\\"input\\":[[3,9,20,null,null,15,7]],\\"expected\\":3},{\\"input\\":[[1,null,2]],\\"expected\\":2},{\\"input\\":[[]],\\"expected\\":0}]"}',
]);

export const storedPins: StoredProblemPin[] = [
  {
    case: 'default timing',
    entry: { name: 'mercury', family: 'mercury', path: 'eval.jsonl', timing_runs: 5, run_time_limit: 10 },
    texts: { rows: ROWS },
    stored: 'f6f7ca6047b992e80f083dc65c58436395adedd8bd145959b2d331365442926b',
    behaviour: '11417f4b820dd265946f2b9c7bd54a9179f464960e48dd236ce124b37fb4b38d',
  },
];
