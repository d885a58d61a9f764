/**
 * BigCodeBench rows written by hand in the exact shape of Hugging Face's bigcode/bigcodebench
 * (v0.1.x: task_id, complete_prompt, instruct_prompt, canonical_solution, code_prompt, test,
 * entry_point, doc_struct as JSON text, libs as the text of a Python list), with answers of each
 * kind per task. Three tasks use the standard library only; one imports pytz (in the sandbox's own
 * venv, so a test environment of markers lets it run without BigCodeBench's full environment).
 */

export interface BigCodeBenchFixtureTask {
  row: Record<string, string>;
  /** A right answer (not the canonical solution: as a model writes it, whole). */
  right: string;
  /** A wrong one: a test fails. */
  wrong: string;
}

function task(
  id: number,
  imports: string,
  signature: string,
  docstring: string,
  instruction: string,
  body: string,
  tests: string,
  libs: string[],
  right: string,
  wrong: string,
): BigCodeBenchFixtureTask {
  const codePrompt = `${imports}\ndef ${signature}:\n`;
  return {
    row: {
      task_id: `BigCodeBench/${id}`,
      complete_prompt: `${imports}\ndef ${signature}:\n    """\n${docstring}\n    """\n`,
      instruct_prompt: `${instruction}\nYou should write self-contained code starting with:\n\`\`\`\n${codePrompt}\`\`\``,
      canonical_solution: body,
      code_prompt: codePrompt,
      test: `import unittest\n\nclass TestCases(unittest.TestCase):\n${tests}`,
      entry_point: 'task_func',
      doc_struct: JSON.stringify({
        description: [instruction.split('\n')[0]],
        notes: [],
        params: [],
        returns: [],
        reqs: libs,
        raises: [],
        examples: [],
      }),
      libs: `[${libs.map((l) => `'${l}'`).join(', ')}]`,
    },
    right,
    wrong,
  };
}

export const BCB_TASKS: BigCodeBenchFixtureTask[] = [
  task(
    0,
    'import itertools\nfrom collections import Counter',
    'task_func(words, n=2)',
    '    Count the n-grams of consecutive words in a list.\n\n    Parameters:\n    - words (list of str): the words.\n    - n (int): the n-gram length.\n\n    Returns:\n    - Counter: each n-gram (a tuple) and how often it occurs.\n\n    Requirements:\n    - itertools\n    - collections\n\n    Example:\n    >>> task_func(["a", "b", "a", "b"])\n    Counter({(\'a\', \'b\'): 2, (\'b\', \'a\'): 1})',
    'Count the n-grams of consecutive words in a list.\nThe function should output with:\n    Counter: each n-gram (a tuple) and how often it occurs.',
    '    return Counter(zip(*(itertools.islice(words, i, None) for i in range(n))))\n',
    '    def test_pairs(self):\n        self.assertEqual(task_func(["a", "b", "a", "b"]), Counter({("a", "b"): 2, ("b", "a"): 1}))\n\n    def test_triples(self):\n        self.assertEqual(task_func(list("abcab"), 3), Counter({("a", "b", "c"): 1, ("b", "c", "a"): 1, ("c", "a", "b"): 1}))\n\n    def test_short(self):\n        self.assertEqual(task_func(["a"]), Counter())\n',
    ['itertools', 'collections'],
    'from collections import Counter\n\ndef task_func(words, n=2):\n    return Counter(tuple(words[i:i + n]) for i in range(len(words) - n + 1))\n',
    'from collections import Counter\n\ndef task_func(words, n=2):\n    return Counter(tuple(words[i:i + n]) for i in range(len(words) - n))\n',
  ),
  task(
    1,
    'import re\nimport json',
    'task_func(text)',
    '    Extract the e-mail addresses of a text as a JSON list, in order of appearance.\n\n    Parameters:\n    - text (str): the text.\n\n    Returns:\n    - str: the JSON list.\n\n    Requirements:\n    - re\n    - json\n\n    Example:\n    >>> task_func("write to a@b.org or c@d.net")\n    \'["a@b.org", "c@d.net"]\'',
    'Extract the e-mail addresses of a text as a JSON list, in order of appearance.\nThe function should output with:\n    str: the JSON list.',
    '    return json.dumps(re.findall(r"[\\w.+-]+@[\\w-]+\\.[\\w.]+", text))\n',
    '    def test_two(self):\n        self.assertEqual(task_func("write to a@b.org or c@d.net"), \'["a@b.org", "c@d.net"]\')\n\n    def test_none(self):\n        self.assertEqual(task_func("nothing here"), "[]")\n',
    ['re', 'json'],
    'import re, json\n\ndef task_func(text):\n    return json.dumps([m.group(0) for m in re.finditer(r"\\S+@\\S+\\.\\w+", text)])\n',
    'import re, json\n\ndef task_func(text):\n    return json.dumps(re.findall(r"\\S+@\\S+", text)[:1])\n',
  ),
  task(
    2,
    'import time',
    'task_func(seconds)',
    '    Wait the given seconds, then return them.\n\n    Parameters:\n    - seconds (float): how long to wait.\n\n    Returns:\n    - float: the seconds.\n\n    Requirements:\n    - time\n\n    Example:\n    >>> task_func(0)\n    0',
    'Wait the given seconds, then return them.\nThe function should output with:\n    float: the seconds.',
    '    time.sleep(seconds)\n    return seconds\n',
    '    def test_zero(self):\n        self.assertEqual(task_func(0), 0)\n\n    def test_short(self):\n        self.assertEqual(task_func(0.01), 0.01)\n',
    ['time'],
    'import time\n\ndef task_func(seconds):\n    time.sleep(seconds)\n    return seconds\n',
    // Runs forever: each test hangs; the first is cut by the suite's timer, the second by the kill.
    'def task_func(seconds):\n    while True:\n        pass\n',
  ),
  task(
    3,
    'from datetime import datetime\nimport pytz',
    "task_func(date_str, to_tz='UTC')",
    "    Convert a naive date and time in New York to another time zone.\n\n    Parameters:\n    - date_str (str): 'YYYY-mm-dd HH:MM:SS'.\n    - to_tz (str): the time zone.\n\n    Returns:\n    - str: the converted time, 'YYYY-mm-dd HH:MM:SS'.\n\n    Requirements:\n    - pytz\n    - datetime\n\n    Example:\n    >>> task_func('2024-01-01 12:00:00')\n    '2024-01-01 17:00:00'",
    'Convert a naive date and time in New York to another time zone.\nThe function should output with:\n    str: the converted time.',
    "    local = pytz.timezone('America/New_York').localize(datetime.strptime(date_str, '%Y-%m-%d %H:%M:%S'))\n    return local.astimezone(pytz.timezone(to_tz)).strftime('%Y-%m-%d %H:%M:%S')\n",
    "    def test_utc(self):\n        self.assertEqual(task_func('2024-01-01 12:00:00'), '2024-01-01 17:00:00')\n\n    def test_summer(self):\n        self.assertEqual(task_func('2024-07-01 12:00:00', 'Europe/Paris'), '2024-07-01 18:00:00')\n",
    ['pytz', 'datetime'],
    "import pytz\nfrom datetime import datetime\n\ndef task_func(date_str, to_tz='UTC'):\n    d = pytz.timezone('America/New_York').localize(datetime.strptime(date_str, '%Y-%m-%d %H:%M:%S'))\n    return d.astimezone(pytz.timezone(to_tz)).strftime('%Y-%m-%d %H:%M:%S')\n",
    // The classic mistake: replace(tzinfo=) takes New York's LMT offset.
    "import pytz\nfrom datetime import datetime\n\ndef task_func(date_str, to_tz='UTC'):\n    d = datetime.strptime(date_str, '%Y-%m-%d %H:%M:%S').replace(tzinfo=pytz.timezone('America/New_York'))\n    return d.astimezone(pytz.timezone(to_tz)).strftime('%Y-%m-%d %H:%M:%S')\n",
  ),
];

/** The rows as a JSON Lines file's text. */
export function bcbJsonl(tasks: readonly BigCodeBenchFixtureTask[]): string {
  return tasks.map((t) => JSON.stringify(t.row) + '\n').join('');
}

/**
 * A task whose ground truth fails (task 0's, its canonical solution counting nothing): BigCodeBench
 * runs its samples all the same, with 20 s for the ground truth's time, and names it in
 * pass_at_k.json's failed_tasks.
 */
export const BCB_GT_FAILS: BigCodeBenchFixtureTask = {
  ...BCB_TASKS[0]!,
  row: { ...BCB_TASKS[0]!.row, task_id: 'BigCodeBench/4', canonical_solution: '    return Counter()\n' },
};
