/** The test cases and benchmark programs of `ts` (what each is for: ../fixtures.ts). */
import type { HostileKind, LanguageFixtures } from '../fixtures.js';
import { fixtures as js } from '../js/fixtures.js';

export const fixtures: LanguageFixtures<'ts'> = {
  language: 'ts',
  multiple: {
    id: 'ts',
    row: {
      prompt: '//Add two numbers x and y\n// >>> add(2, 3)\n// 5\n// >>> add(5, 7)\n// 12\nfunction add(x: number, y: number): number {\n',
      tests:
        "declare var require: any;\nconst assert = require('node:assert');\n\n\nfunction test() {\n  let candidate = add;\n  assert.deepEqual(candidate(0, 1),1);\n  assert.deepEqual(candidate(1, 0),1);\n  assert.deepEqual(candidate(2, 3),5);\n  assert.deepEqual(candidate(5, 7),12);\n  assert.deepEqual(candidate(7, 5),12);\n}\n\ntest();",
      stop: ['\nfunction ', '\n/*', '\n//', '\nclass'],
    },
    completions: {
      right: '  return x + y;\n}\n\nfunction junk(): number { return "kept past a stop token"; }\n',
      wrong: '  return x - y;\n}\n',
      noncompiling: '  return "x" + y;\n}\n',
      hostile:
        "  const cp = require('child_process');\n  for (;;) { try { cp.spawn('/bin/sleep', ['100']).on('error', () => {}); } catch (e) {} }\n}\n",
    },
    hostilePasses: false,
  },
  process: {
    statuses: {
      ok: "declare var require: any;\nconst assert = require('node:assert');\nfunction add(a: number, b: number): number { return a + b; }\nassert.deepEqual(add(2, 3), 5);\n",
      wrong:
        "declare var require: any;\nconst assert = require('node:assert');\nfunction add(a: number, b: number): number { return a - b; }\nassert.deepEqual(add(2, 3), 5);\n",
      // Runs fine as JavaScript, but tsc reports a type error: MultiPL-E calls it a SyntaxError.
      broken:
        "declare var require: any;\nconst assert = require('node:assert');\nfunction add(a: number, b: number): number { return String(a + b); }\nassert.deepEqual(Number(add(2, 3)), 5);\n",
      hangs: 'while (true) {}\n',
    },
    // JavaScript's, with the declarations tsc needs to compile them.
    hostile: (aim) =>
      Object.fromEntries(
        Object.entries(js.process!.hostile(aim)).map(([k, v]) => [
          k,
          `declare var require: any;\ndeclare var process: any;\ndeclare var Buffer: any;\n${v}`,
        ]),
      ) as Record<HostileKind, string>,
    wellBehaved: 'declare var require: any;\nconst n: number = 2;\nrequire("node:assert").deepEqual(n, 2);',
    bench: {
      rows: [
        {
          name: 'HumanEval_23_strlen',
          prompt:
            '//Return length of given string\n// >>> strlen("")\n// 0\n// >>> strlen("abc")\n// 3\nfunction strlen(string: string): number {\n',
          completion: '  return string.length;\n}',
          tests:
            'declare var require: any;\nconst assert = require(\'node:assert\');\n\n\nfunction test() {\n  let candidate = strlen;\n  assert.deepEqual(candidate(""),0);\n  assert.deepEqual(candidate("x"),1);\n  assert.deepEqual(candidate("asdasnakj"),9);\n}\n\ntest();',
        },
        {
          name: 'HumanEval_13_greatest_common_divisor',
          prompt:
            '//Return a greatest common divisor of two integers a and b\n// >>> greatest_common_divisor(3, 5)\n// 1\n// >>> greatest_common_divisor(25, 15)\n// 5\nfunction greatest_common_divisor(a: number, b: number): number {\n',
          completion: '  while (b !== 0) {\n    const t: number = a % b;\n    a = b;\n    b = t;\n  }\n  return a;\n}',
          tests:
            "declare var require: any;\nconst assert = require('node:assert');\n\n\nfunction test() {\n  let candidate = greatest_common_divisor;\n  assert.deepEqual(candidate(3, 7),1);\n  assert.deepEqual(candidate(10, 15),5);\n  assert.deepEqual(candidate(49, 14),7);\n  assert.deepEqual(candidate(144, 60),12);\n}\n\ntest();",
        },
        {
          name: 'HumanEval_30_get_positive',
          prompt:
            '//Return only positive numbers in the array.\n// >>> get_positive([-1, 2, -4, 5, 6])\n// [2, 5, 6]\n// >>> get_positive([5, 3, -5, 2, -3, 3, 9, 0, 123, 1, -10])\n// [5, 3, 2, 3, 9, 123, 1]\nfunction get_positive(l: number[]): number[] {\n',
          completion: '  return l.filter((e: number) => e > 0);\n}',
          tests:
            "declare var require: any;\nconst assert = require('node:assert');\n\n\nfunction test() {\n  let candidate = get_positive;\n  assert.deepEqual(candidate([-1, -2, 4, 5, 6]),[4, 5, 6]);\n  assert.deepEqual(candidate([5, 3, -5, 2, 3, 3, 9, 0, 123, 1, -10]),[5, 3, 2, 3, 3, 9, 123, 1]);\n  assert.deepEqual(candidate([-1, -2]),[]);\n  assert.deepEqual(candidate([]),[]);\n}\n\ntest();",
        },
      ],
      distinct: (i) => `\n// bench program ${i}\n`,
      lever: 'tsc per program',
    },
  },
};
