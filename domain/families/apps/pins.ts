/**
 * What stored apps problems must stay: for fixed rows, the bytes a sweep stores and what every step
 * makes of them read back (../pins.ts; checked by test/families/stored-artefacts.test.ts). A pin
 * changes only with a patched() change that keeps running sweeps readable (docs/workflow-versions.md).
 */
import { jsonLines, type StoredProblemPin } from '../pins.js';

export const storedPins: StoredProblemPin[] = [
  {
    case: 'stdin_form as-written',
    entry: { name: 'apps', family: 'apps', path: 'test.jsonl', test_time_limit: 4, program_time_limit: 11, stdin_form: 'as-written' },
    texts: {
      rows: jsonLines([
        '{"problem_id":4001,"question":"You are given n and then n integers. Print their sum, then their maximum, each on its own line.\\n\\n-----Input-----\\n\\nn, then the integers.\\n\\n-----Output-----\\n\\nTwo lines.","solutions":"[\\"n = int(input())\\\\nxs = list(map(int, input().split()))\\\\nprint(sum(xs))\\\\nprint(max(xs))\\\\n\\"]","input_output":"{\\"inputs\\":[\\"3\\\\n1 2 3\\\\n\\",\\"1\\\\n7\\\\n\\",\\"2\\\\n-5 -1\\\\n\\"],\\"outputs\\":[\\"6\\\\n3\\\\n\\",\\"7\\\\n7\\\\n\\",\\"-6\\\\n-1\\\\n\\"]}","difficulty":"introductory","url":"https://example.org/problems/4001","starter_code":""}',
        '{"problem_id":4002,"question":"Print the mean of the numbers on the line.","solutions":"[\\"xs = list(map(float, input().split()))\\\\nprint(sum(xs) / len(xs))\\\\n\\"]","input_output":"{\\"inputs\\":[\\"0.1 0.2\\\\n\\",\\"1 2 4\\\\n\\"],\\"outputs\\":[\\"0.15\\\\n\\",\\"2.3333333333\\\\n\\"]}","difficulty":"interview","url":"https://example.org/problems/4002","starter_code":""}',
        '{"problem_id":4003,"question":"Return the sum of the two largest numbers of the list.","solutions":"[\\"class Solution:\\\\n    def topTwo(self, nums):\\\\n        a, b = sorted(nums)[-2:]\\\\n        return a + b\\\\n\\"]","input_output":"{\\"fn_name\\":\\"topTwo\\",\\"inputs\\":[[[1,2,3]],[[5,5]],[[-1,-2,0]]],\\"outputs\\":[[5],[10],[-1]]}","difficulty":"interview","url":"https://example.org/problems/4003","starter_code":"\\nclass Solution:\\n    def topTwo(self, nums: List[int]) -> int:\\n        "}',
        '{"problem_id":4004,"question":"Return the words of the sentence in reverse order, as a list.","solutions":"[\\"def reverse_words(s):\\\\n    return s.split()[::-1]\\\\n\\"]","input_output":"{\\"fn_name\\":\\"reverse_words\\",\\"inputs\\":[[\\"hello world\\"],[\\"a b c\\"]],\\"outputs\\":[[[\\"world\\",\\"hello\\"]],[[\\"c\\",\\"b\\",\\"a\\"]]]}","difficulty":"competition","url":"https://example.org/problems/4004","starter_code":"\\ndef reverse_words(s):\\n\\t"}',
      ]),
    },
    stored: '636af33f527bc8adde0aba5b73b85e48243a443d9bea5e0d8dc2996c69c38643',
    behaviour: '4b88e5d29b901987fe633cec802b2246b84d0dcbd2b87018075507fdfe1f1c26',
  },
  {
    case: 'stdin_form testing-util',
    entry: { name: 'apps', family: 'apps', path: 'test.jsonl', test_time_limit: 4, program_time_limit: 11, stdin_form: 'testing-util' },
    texts: {
      rows: jsonLines([
        '{"problem_id":4001,"question":"You are given n and then n integers. Print their sum, then their maximum, each on its own line.\\n\\n-----Input-----\\n\\nn, then the integers.\\n\\n-----Output-----\\n\\nTwo lines.","solutions":"[\\"n = int(input())\\\\nxs = list(map(int, input().split()))\\\\nprint(sum(xs))\\\\nprint(max(xs))\\\\n\\"]","input_output":"{\\"inputs\\":[\\"3\\\\n1 2 3\\\\n\\",\\"1\\\\n7\\\\n\\",\\"2\\\\n-5 -1\\\\n\\"],\\"outputs\\":[\\"6\\\\n3\\\\n\\",\\"7\\\\n7\\\\n\\",\\"-6\\\\n-1\\\\n\\"]}","difficulty":"introductory","url":"https://example.org/problems/4001","starter_code":""}',
        '{"problem_id":4002,"question":"Print the mean of the numbers on the line.","solutions":"[\\"xs = list(map(float, input().split()))\\\\nprint(sum(xs) / len(xs))\\\\n\\"]","input_output":"{\\"inputs\\":[\\"0.1 0.2\\\\n\\",\\"1 2 4\\\\n\\"],\\"outputs\\":[\\"0.15\\\\n\\",\\"2.3333333333\\\\n\\"]}","difficulty":"interview","url":"https://example.org/problems/4002","starter_code":""}',
        '{"problem_id":4003,"question":"Return the sum of the two largest numbers of the list.","solutions":"[\\"class Solution:\\\\n    def topTwo(self, nums):\\\\n        a, b = sorted(nums)[-2:]\\\\n        return a + b\\\\n\\"]","input_output":"{\\"fn_name\\":\\"topTwo\\",\\"inputs\\":[[[1,2,3]],[[5,5]],[[-1,-2,0]]],\\"outputs\\":[[5],[10],[-1]]}","difficulty":"interview","url":"https://example.org/problems/4003","starter_code":"\\nclass Solution:\\n    def topTwo(self, nums: List[int]) -> int:\\n        "}',
        '{"problem_id":4004,"question":"Return the words of the sentence in reverse order, as a list.","solutions":"[\\"def reverse_words(s):\\\\n    return s.split()[::-1]\\\\n\\"]","input_output":"{\\"fn_name\\":\\"reverse_words\\",\\"inputs\\":[[\\"hello world\\"],[\\"a b c\\"]],\\"outputs\\":[[[\\"world\\",\\"hello\\"]],[[\\"c\\",\\"b\\",\\"a\\"]]]}","difficulty":"competition","url":"https://example.org/problems/4004","starter_code":"\\ndef reverse_words(s):\\n\\t"}',
      ]),
    },
    stored: '4556255991fe5e0de4b645ab55ea1a795f2a52cbeddfc2f3edead1796a1fff3e',
    behaviour: 'a5c290ebf158b856283633321a363d669439c5bfabb5ab07edab999d5df2517b',
  },
];
