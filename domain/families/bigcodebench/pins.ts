/**
 * What stored bigcodebench problems must stay: for fixed rows, the bytes a sweep stores and what every
 * step makes of them read back (../pins.ts; checked by test/families/stored-artefacts.test.ts). A pin
 * changes only with a patched() change that keeps running sweeps readable (docs/workflow-versions.md).
 * The behaviour pins changed once, on purpose, with the ground truth's run (2026-12-07, issue 43): the
 * stored bytes are the same, and a stored problem now runs its ground truth first (checking
 * `reference-outputs`, an activity's work: no workflow command changed, so no patched()).
 */
import { jsonLines, type StoredProblemPin } from '../pins.js';

const ROWS = jsonLines([
  '{"task_id":"BigCodeBench/0","complete_prompt":"import itertools\\nfrom collections import Counter\\ndef task_func(words, n=2):\\n    \\"\\"\\"\\n    Count the n-grams of consecutive words in a list.\\n\\n    Parameters:\\n    - words (list of str): the words.\\n    - n (int): the n-gram length.\\n\\n    Returns:\\n    - Counter: each n-gram (a tuple) and how often it occurs.\\n\\n    Requirements:\\n    - itertools\\n    - collections\\n\\n    Example:\\n    >>> task_func([\\"a\\", \\"b\\", \\"a\\", \\"b\\"])\\n    Counter({(\'a\', \'b\'): 2, (\'b\', \'a\'): 1})\\n    \\"\\"\\"\\n","instruct_prompt":"Count the n-grams of consecutive words in a list.\\nThe function should output with:\\n    Counter: each n-gram (a tuple) and how often it occurs.\\nYou should write self-contained code starting with:\\n```\\nimport itertools\\nfrom collections import Counter\\ndef task_func(words, n=2):\\n```","canonical_solution":"    return Counter(zip(*(itertools.islice(words, i, None) for i in range(n))))\\n","code_prompt":"import itertools\\nfrom collections import Counter\\ndef task_func(words, n=2):\\n","test":"import unittest\\n\\nclass TestCases(unittest.TestCase):\\n    def test_pairs(self):\\n        self.assertEqual(task_func([\\"a\\", \\"b\\", \\"a\\", \\"b\\"]), Counter({(\\"a\\", \\"b\\"): 2, (\\"b\\", \\"a\\"): 1}))\\n\\n    def test_triples(self):\\n        self.assertEqual(task_func(list(\\"abcab\\"), 3), Counter({(\\"a\\", \\"b\\", \\"c\\"): 1, (\\"b\\", \\"c\\", \\"a\\"): 1, (\\"c\\", \\"a\\", \\"b\\"): 1}))\\n\\n    def test_short(self):\\n        self.assertEqual(task_func([\\"a\\"]), Counter())\\n","entry_point":"task_func","doc_struct":"{\\"description\\":[\\"Count the n-grams of consecutive words in a list.\\"],\\"notes\\":[],\\"params\\":[],\\"returns\\":[],\\"reqs\\":[\\"itertools\\",\\"collections\\"],\\"raises\\":[],\\"examples\\":[]}","libs":"[\'itertools\', \'collections\']"}',
  '{"task_id":"BigCodeBench/1","complete_prompt":"import re\\nimport json\\ndef task_func(text):\\n    \\"\\"\\"\\n    Extract the e-mail addresses of a text as a JSON list, in order of appearance.\\n\\n    Parameters:\\n    - text (str): the text.\\n\\n    Returns:\\n    - str: the JSON list.\\n\\n    Requirements:\\n    - re\\n    - json\\n\\n    Example:\\n    >>> task_func(\\"write to a@b.org or c@d.net\\")\\n    \'[\\"a@b.org\\", \\"c@d.net\\"]\'\\n    \\"\\"\\"\\n","instruct_prompt":"Extract the e-mail addresses of a text as a JSON list, in order of appearance.\\nThe function should output with:\\n    str: the JSON list.\\nYou should write self-contained code starting with:\\n```\\nimport re\\nimport json\\ndef task_func(text):\\n```","canonical_solution":"    return json.dumps(re.findall(r\\"[\\\\w.+-]+@[\\\\w-]+\\\\.[\\\\w.]+\\", text))\\n","code_prompt":"import re\\nimport json\\ndef task_func(text):\\n","test":"import unittest\\n\\nclass TestCases(unittest.TestCase):\\n    def test_two(self):\\n        self.assertEqual(task_func(\\"write to a@b.org or c@d.net\\"), \'[\\"a@b.org\\", \\"c@d.net\\"]\')\\n\\n    def test_none(self):\\n        self.assertEqual(task_func(\\"nothing here\\"), \\"[]\\")\\n","entry_point":"task_func","doc_struct":"{\\"description\\":[\\"Extract the e-mail addresses of a text as a JSON list, in order of appearance.\\"],\\"notes\\":[],\\"params\\":[],\\"returns\\":[],\\"reqs\\":[\\"re\\",\\"json\\"],\\"raises\\":[],\\"examples\\":[]}","libs":"[\'re\', \'json\']"}',
]);

export const storedPins: StoredProblemPin[] = [
  {
    case: 'complete split, full subset, calibrated',
    entry: {
      name: 'bcb',
      family: 'bigcodebench',
      path: 'bigcodebench.jsonl',
      split: 'complete',
      subset: 'full',
      calibrated: true,
      timeout_per_task: 240,
    },
    texts: { rows: ROWS },
    stored: '8fd6c3eed135115546a050ec4c27adc0d82cfb3b398949dff4ebfba5365fa8f2',
    behaviour: '6df718f8015443f0e7d34866d4ca542033b43a045f7a9b933c0020ebe1fb8eb3',
  },
  {
    case: 'instruct split, hard subset, not calibrated, an environment',
    entry: {
      name: 'bcb-hard',
      family: 'bigcodebench',
      path: 'bigcodebench-hard.jsonl',
      split: 'instruct',
      subset: 'hard',
      calibrated: false,
      timeout_per_task: 60,
      environment: '/opt/bigcodebench-python',
    },
    texts: { rows: ROWS },
    stored: '08ce569a1193a88553500d439acc35862083eaf98fe8b2541be6c6ae6eca0a27',
    behaviour: '9110bb18bb3b495cf0b3070117e059a4f56ba10342a0ec91b1b657c6c0bf4e26',
  },
];
