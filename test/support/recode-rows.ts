/**
 * Rows of ReCode's perturbed HumanEval in the published format, and what a test's model answers.
 * Hugging Face's RaymondLi/perturbed_humaneval (bigcode's recode.py reads it) holds, per category
 * config, ReCode's released rows (amazon-science/recode, dataset-release/perturbed_finalized/humaneval/full/
 * <category>/humaneval_<perturbation>_s<seed>.jsonl: task_id, prompt, entry_point, canonical_solution,
 * test, and `partial` in some) with each row's `seed` and `perturbation_name`, the two fields
 * bigcode's task reads. These are three HumanEval tasks (2, 23, 53) as those files give them:
 * - func_name: FuncRenameSwapChar under seeds 0 to 3 (the function renamed, or not, per seed: the
 *   entry point is the renamed one) and FuncRenameCamelCase under seed 0 (a deterministic one);
 * - format: doc2comments (the docstring as `#` comments, the prompt ending in one) and new_lines
 *   (a blank line after the docstring) under seed 0, whose prompts end in whitespace bigcode strips;
 * - natgen: HumanEval/12 under DeadCodeInserter seed 0, as released: its prompt holds half the
 *   solution (dead code inserted) and ends in a line of spaces, its solution starts with a comment.
 * The generations are a model's raw continuations of the stripped prompt: the right body, a wrong
 * one, a timeout, a crash, nothing, each followed by more code a stop word ends.
 */

interface Base {
  task_id: string;
  name: string;
  prompt: string;
  canonical_solution: string;
  test: string;
}

const TRUNCATE: Base = {
  task_id: 'HumanEval/2',
  name: 'truncate_number',
  prompt:
    '\n\ndef truncate_number(number: float) -> float:\n    """ Given a positive floating point number, it can be decomposed into\n' +
    '    and integer part (largest integer smaller than given number) and decimals\n    (leftover part always smaller than 1).\n\n' +
    '    Return the decimal part of the number.\n    >>> truncate_number(3.5)\n    0.5\n    """\n',
  canonical_solution: '    return number % 1.0\n',
  test:
    "\n\nMETADATA = {\n    'author': 'jt',\n    'dataset': 'test'\n}\n\n\ndef check(candidate):\n    assert candidate(3.5) == 0.5\n" +
    '    assert abs(candidate(1.33) - 0.33) < 1e-6\n    assert abs(candidate(123.456) - 0.456) < 1e-6\n',
};

const STRLEN: Base = {
  task_id: 'HumanEval/23',
  name: 'strlen',
  prompt:
    '\n\ndef strlen(string: str) -> int:\n    """ Return length of given string\n    >>> strlen(\'\')\n    0\n    >>> strlen(\'abc\')\n    3\n    """\n',
  canonical_solution: '    return len(string)\n',
  test:
    "\n\nMETADATA = {\n    'author': 'jt',\n    'dataset': 'test'\n}\n\n\ndef check(candidate):\n    assert candidate('') == 0\n" +
    "    assert candidate('x') == 1\n    assert candidate('asdasnakj') == 9\n",
};

const ADD: Base = {
  task_id: 'HumanEval/53',
  name: 'add',
  prompt: '\n\ndef add(x: int, y: int):\n    """Add two numbers x and y\n    >>> add(2, 3)\n    5\n    >>> add(5, 7)\n    12\n    """\n',
  canonical_solution: '    return x + y\n',
  test:
    '\n\nMETADATA = {}\n\n\ndef check(candidate):\n    import random\n\n    assert candidate(0, 1) == 1\n    assert candidate(1, 0) == 1\n' +
    '    assert candidate(2, 3) == 5\n    assert candidate(5, 7) == 12\n    assert candidate(7, 5) == 12\n\n    for i in range(100):\n' +
    '        x, y = random.randint(0, 1000), random.randint(0, 1000)\n        assert candidate(x, y) == x + y\n\n',
};

/** A released row: the task with its function renamed (ReCode's func_name rows rename it in the prompt and the entry point). */
function row(base: Base, perturbation: string, seed: number, name = base.name, prompt = base.prompt) {
  return {
    task_id: base.task_id,
    prompt: prompt.replaceAll(`${base.name}(`, `${name}(`),
    entry_point: name,
    canonical_solution: base.canonical_solution,
    test: base.test,
    seed,
    perturbation_name: perturbation,
  };
}

/** func_name's rows, as bigcode's dataset orders them: each perturbation's seeds, each seed's tasks. */
export const RECODE_FUNC_NAME_ROWS = [
  row(TRUNCATE, 'FuncRenameSwapChar', 0, 'trunacte_number'),
  row(STRLEN, 'FuncRenameSwapChar', 0, 'strlne'),
  row(ADD, 'FuncRenameSwapChar', 0),
  row(TRUNCATE, 'FuncRenameSwapChar', 1, 'truncate_nubmer'),
  row(STRLEN, 'FuncRenameSwapChar', 1, 'srtlen'),
  row(ADD, 'FuncRenameSwapChar', 1, 'dad'),
  row(TRUNCATE, 'FuncRenameSwapChar', 2),
  row(STRLEN, 'FuncRenameSwapChar', 2, 'stlren'),
  row(ADD, 'FuncRenameSwapChar', 2),
  row(TRUNCATE, 'FuncRenameSwapChar', 3, 'truncate_numebr'),
  row(STRLEN, 'FuncRenameSwapChar', 3),
  row(ADD, 'FuncRenameSwapChar', 3, 'ad'),
  row(TRUNCATE, 'FuncRenameCamelCase', 0, 'truncateNumber'),
  row(STRLEN, 'FuncRenameCamelCase', 0),
  row(ADD, 'FuncRenameCamelCase', 0),
];

/** format's rows: the docstring as comments (the prompt ends in `# 0.5` and a newline), and a blank line after it; with `partial` as released. */
export const RECODE_FORMAT_ROWS = [
  {
    ...row(
      TRUNCATE,
      'doc2comments',
      0,
      TRUNCATE.name,
      '\n\ndef truncate_number(number: float) -> float:\n    # Given a positive floating point number, it can be decomposed into\n' +
        '    # and integer part (largest integer smaller than given number) and decimals\n    # (leftover part always smaller than 1).\n\n' +
        '    # Return the decimal part of the number.\n    # >>> truncate_number(3.5)\n    # 0.5\n',
    ),
    partial: null,
  },
  { ...row(STRLEN, 'new_lines', 0, STRLEN.name, STRLEN.prompt + '\n'), partial: null },
];

/** The bodies a model writes: right, wrong, never ending, crashing, nothing. */
type Body = 'right' | 'wrong' | 'timeout' | 'crash' | 'empty';

const WRONG: Record<string, string> = {
  'HumanEval/2': '    return number\n',
  'HumanEval/23': '    return len(string) + 1\n',
  'HumanEval/53': '    return x - y\n',
};

/** A raw continuation of the stripped prompt: the body, then more code (a stop word ends it; one has none). */
function continuation(base: { task_id: string; canonical_solution: string }, body: Body, i: number): string {
  const code = {
    right: base.canonical_solution,
    wrong: WRONG[base.task_id]!,
    timeout: '    while True:\n        pass\n',
    crash: '    return undefined_name\n',
    empty: '',
  }[body];
  const more = ['\n\nprint(1)\n', '\n\nif __name__ == "__main__":\n    pass\n', '\n\ndef helper():\n    return 1\n', '\n# done\n'][i % 4];
  return `\n${code}${i === 5 ? '' : more}`;
}

/** Per row of RECODE_FUNC_NAME_ROWS, its two samples' bodies: some seeds' samples pass where others fail. */
const FUNC_NAME_BODIES: Array<[Body, Body]> = [
  ['right', 'right'],
  ['right', 'right'],
  ['timeout', 'right'],
  ['right', 'wrong'],
  ['crash', 'right'],
  ['right', 'right'],
  ['right', 'right'],
  ['right', 'right'],
  ['right', 'empty'],
  ['wrong', 'wrong'],
  ['wrong', 'wrong'],
  ['wrong', 'wrong'],
  ['right', 'right'],
  ['wrong', 'right'],
  ['empty', 'crash'],
];

/** Per row of RECODE_FUNC_NAME_ROWS, a model's two raw continuations. */
export const RECODE_FUNC_NAME_GENERATIONS: string[][] = RECODE_FUNC_NAME_ROWS.map((r, t) =>
  FUNC_NAME_BODIES[t]!.map((body, s) => continuation(r, body, t + s)),
);

/** Per row of RECODE_FORMAT_ROWS, a model's raw continuations: right, then wrong. */
export const RECODE_FORMAT_GENERATIONS: string[][] = RECODE_FORMAT_ROWS.map((r, t) => [
  continuation(r, 'right', t),
  continuation(r, 'wrong', t + 1),
]);

/** natgen's HumanEval/12 under DeadCodeInserter, seed 0, as ReCode releases it (its `partial`, the unperturbed prompt and solution, left null: not read). */
export const RECODE_NATGEN_ROWS = [
  {
    task_id: 'HumanEval/12',
    prompt:
      'from typing import List, Optional\n\n\ndef longest(strings: List[str]) -> Optional[str]:\n' +
      '    """Out of list of strings, return the longest one. Return the first one in case of multiple\n' +
      '    strings of the same length. Return None in case the input list is empty.\n    >>> longest([])\n\n' +
      "    >>> longest(['a', 'b', 'c'])\n    'a'\n    >>> longest(['a', 'bb', 'ccc'])\n    'ccc'\n    \"\"\"\n" +
      '    if not strings:\n        for _i_0 in range(0):\n            return None\n        return None\n   \n',
    entry_point: 'longest',
    canonical_solution:
      "# print('@@this is the line to split##')\n    maxlen = max(len(x) for x in strings)\n    for s in strings:\n" +
      '        if len(s) == maxlen:\n            return s\n',
    test:
      "\n\nMETADATA = {\n    'author': 'jt',\n    'dataset': 'test'\n}\n\n\ndef check(candidate):\n    assert candidate([]) == None\n" +
      "    assert candidate(['x', 'y', 'z']) == 'x'\n    assert candidate(['x', 'yyy', 'zzzz', 'www', 'kkkk', 'abc']) == 'zzzz'\n",
    partial: null,
    seed: 0,
    perturbation_name: 'DeadCodeInserter',
  },
];

/** natgen's continuations: the rest of the body; the released solution itself, whose first line (a comment) a stop word cuts. */
export const RECODE_NATGEN_GENERATIONS: string[][] = [
  [
    '\n    maxlen = max(len(x) for x in strings)\n    for s in strings:\n        if len(s) == maxlen:\n            return s\n\nprint(1)\n',
    `\n${RECODE_NATGEN_ROWS[0]!.canonical_solution}`,
  ],
];

export const jsonl = (rows: readonly unknown[]): string => rows.map((r) => JSON.stringify(r) + '\n').join('');
