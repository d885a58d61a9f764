/**
 * Rows of bigcode's program-repair tasks in their owners' formats, and what a test's model answers:
 * - QuixBugs: Hugging Face's Muennighoff/quixbugs (quixbugs_python.jsonl: name, buggy_program,
 *   docstring, solution, tests as assertions), three of QuixBugs's Python programs (bitcount, gcd,
 *   is_valid_parenthesization) with their one-line bugs and their JSON test cases as assertions;
 * - Python Bugs: Hugging Face's Muennighoff/python-bugs (train split; prompt_code, correct_code,
 *   task), a bin-op and a var-misuse row, one with a character outside the BMP (Python counts code
 *   points, JavaScript UTF-16 units);
 * - Parity: bigcode's dataset, the bug counts 1 to 5, one a line.
 * The generations are a model's raw continuations of the prompt (before any stop word is applied):
 * right fixes followed by more code, the bug left in (a timeout, a crash), an answer that stops at
 * once (empty), a function under another name (no entry point), and a continuation with no stop word.
 */

const BITCOUNT_BUGGY = 'def bitcount(n):\n    count = 0\n    while n:\n        n ^= n - 1\n        count += 1\n    return count';
const GCD_BUGGY = 'def gcd(a, b):\n    if b == 0:\n        return a\n    else:\n        return gcd(a % b, b)';
const PARENS_BUGGY =
  "def is_valid_parenthesization(parens):\n    depth = 0\n    for paren in parens:\n        if paren == '(':\n            depth += 1\n" +
  '        else:\n            depth -= 1\n            if depth < 0:\n                return False\n\n    return True';

export const QUIXBUGS_ROWS = [
  {
    name: 'bitcount',
    buggy_program: BITCOUNT_BUGGY,
    docstring:
      '\nBitcount\nbitcount\n\n\nInput:\n    n: a nonnegative int\n\nOutput:\n    The number of 1-bits in the binary encoding of n\n',
    solution: BITCOUNT_BUGGY.replace('n ^= n - 1', 'n &= n - 1'),
    tests:
      'assert bitcount(*[127]) == 7\nassert bitcount(*[128]) == 1\nassert bitcount(*[3005]) == 9\nassert bitcount(*[13]) == 3\n' +
      'assert bitcount(*[14]) == 3\nassert bitcount(*[27]) == 4\nassert bitcount(*[834]) == 4\nassert bitcount(*[254]) == 7\nassert bitcount(*[256]) == 1\n',
  },
  {
    name: 'gcd',
    buggy_program: GCD_BUGGY,
    docstring: '\nInput:\n    a: A nonnegative int\n    b: A nonnegative int\n\n\nGreatest Common Divisor\n',
    solution: GCD_BUGGY.replace('gcd(a % b, b)', 'gcd(b, a % b)'),
    tests:
      'assert gcd(*[17, 0]) == 17\nassert gcd(*[13, 13]) == 13\nassert gcd(*[37, 600]) == 1\nassert gcd(*[20, 100]) == 20\n' +
      'assert gcd(*[624129, 2061517]) == 18913\nassert gcd(*[3, 12]) == 3\n',
  },
  {
    name: 'is_valid_parenthesization',
    buggy_program: PARENS_BUGGY,
    docstring: '\nNested Parens\nInput:\n    parens: A string of parentheses\n',
    solution: PARENS_BUGGY.replace('    return True', '    return depth == 0'),
    tests:
      "assert is_valid_parenthesization(*['((()()))()']) == True\nassert is_valid_parenthesization(*[')()(']) == False\n" +
      "assert is_valid_parenthesization(*['((']) == False\n",
  },
];

/** The body after `def` of a QuixBugs row's fixed function (what a model continues the `prompt` format with). */
const afterDef = (code: string) => code.slice('def'.length);

/** Per QuixBugs task, a model's raw continuations of the `prompt` format (after its final `def`). */
export const QUIXBUGS_GENERATIONS: string[][] = [
  [
    // The fix, then a comment and a call (cut at the first stop word).
    `${afterDef(QUIXBUGS_ROWS[0]!.solution)}\n\n# Test it\nprint(bitcount(7))\n`,
    // The bug left in: bitcount(127) never ends (a timeout).
    `${afterDef(BITCOUNT_BUGGY)}\nprint(1)`,
    // Stops at once: the answer is `def` alone.
    '\n# nothing to fix\n',
  ],
  [
    `${afterDef(QUIXBUGS_ROWS[1]!.solution)}\n\nif __name__ == "__main__":\n    print(gcd(4, 6))\n`,
    // The bug left in: gcd(13, 13) recurses without end (a crash: RecursionError).
    `${afterDef(GCD_BUGGY)}\n###`,
    // A fix under another name: no gcd to call.
    ` greatest_divisor(a, b):\n    return a if b == 0 else greatest_divisor(b, a % b)\n\ndef other():\n    pass\n`,
  ],
  [
    `${afterDef(QUIXBUGS_ROWS[2]!.solution)}\n<|endoftext|>`,
    // Two functions before the stop: the fix and a helper whose `\ndef` stops it first.
    `${afterDef(QUIXBUGS_ROWS[2]!.solution)}\n\ndef helper():\n    return 1\n\nclass X:\n    pass\n`,
    // No stop word at all (a generation cut by the token limit).
    `${afterDef(QUIXBUGS_ROWS[2]!.solution)}  # no stop word here`,
  ],
];

/** Per QuixBugs task, raw continuations of the `edit` format (the whole fixed function). */
export const QUIXBUGS_EDIT_GENERATIONS: string[][] = QUIXBUGS_ROWS.map((row) => [
  `${row.solution}<commit_msg>more`,
  `${row.buggy_program}\n<|endoftext|>`,
]);

export const PYTHON_BUGS_ROWS = [
  {
    prompt_code: 'def is_even(n):\n    return n % 2 != 0',
    correct_code: 'def is_even(n):\n    return n % 2 == 0',
    task: 'bin-op',
  },
  {
    prompt_code: 'def area(width, height):\n    return width * width',
    correct_code: 'def area(width, height):\n    return width * height',
    task: 'var-misuse',
  },
  {
    prompt_code: "def greet(name):\n    return '👋 ' - name",
    correct_code: "def greet(name):\n    return '👋 ' + name",
    task: 'bin-op',
  },
];

/** Per Python Bugs task, raw continuations of the prompt* formats (after the final `def`). */
export const PYTHON_BUGS_GENERATIONS: string[][] = [
  [' is_even(n):\n    return n % 2 == 0\n\nprint(is_even(2))\n', ' is_even(n):\n    return n % 2 != 0\n# same\n'],
  // The fix with more on its last line (cut to the correct code's length: a match), and an empty answer.
  [' area(width, height):\n    return width * height  # fixed\n', '\n"""done"""'],
  // The fix, then a newline before the stop word; a wrong fix without the character outside the BMP.
  [" greet(name):\n    return '👋 ' + name\n\nprint(greet('x'))", " greet(name):\n    return 'x ' + name\n\n"],
];

/** Parity's bug counts, as bigcode's get_dataset lists them. */
export const PARITY_BUGS = [1, 2, 3, 4, 5];

const PARITY_FIXED = ' parity(b1,b2,b3,b4):\n    """Return binary parity."""\n    bit_sum = sum([b1,b2,b3,b4])\n    return bit_sum % 2';

/** Per bug count, raw continuations of the prompt* formats (after the final `def`). */
export const PARITY_GENERATIONS: string[][] = [
  [`${PARITY_FIXED}\n\nprint(parity(1, 0, 0, 0))`, ' parity(b1,b2,b3,b4):\n    return sum([c1,b2,b3,b4]) % 2\n'],
  [`${PARITY_FIXED}   \n\n\n#`, '\n# no answer'],
  // A crash, and a function under another name.
  [' parity(b1,b2,b3,b4):\n    return 1 / 0\n', ' parity_fixed(b1,b2,b3,b4):\n    return (b1 + b2 + b3 + b4) % 2\n'],
  // A timeout, and the fix with its stop word right after.
  [' parity(b1,b2,b3,b4):\n    while True:\n        pass\n', `${PARITY_FIXED}\nclass A: pass`],
  [`${PARITY_FIXED}\n@decorator`, ' parity(b1,b2,b3,b4):\n    return (b1 ^ b2 ^ b3 ^ b4)  # xor'],
];

export const jsonl = (rows: readonly unknown[]): string => rows.map((r) => JSON.stringify(r) + '\n').join('');
