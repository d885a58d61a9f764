/** The test cases and benchmark programs of `js` (what each is for: ../fixtures.ts). */
import type { LanguageFixtures } from '../fixtures.js';

export const fixtures: LanguageFixtures<'js'> = {
  language: 'js',
  multiple: {
    id: 'js',
    row: {
      prompt: '//Add two numbers x and y\n// >>> add(2, 3)\n// 5\n// >>> add(5, 7)\n// 12\nfunction add(x, y){\n',
      tests:
        "const assert = require('node:assert');\n\n\nfunction test() {\n  let candidate = add;\n  assert.deepEqual(candidate(0, 1),1);\n  assert.deepEqual(candidate(1, 0),1);\n  assert.deepEqual(candidate(2, 3),5);\n  assert.deepEqual(candidate(5, 7),12);\n  assert.deepEqual(candidate(7, 5),12);\n}\n\ntest();",
      stop: ['\nfunction ', '\n/*', '\n//', '\nconsole.log'],
    },
    completions: {
      right: '  return x + y;\n}\n\nfunction junk() { throw new Error("kept past a stop token"); }\n',
      wrong: '  return x - y;\n}\n',
      noncompiling: '  return x +;\n}\n',
      hostile: '  while (true) {}\n}\n',
    },
    hostilePasses: false,
  },
  process: {
    statuses: {
      ok: "const assert = require('node:assert');\nfunction add(a, b) { return a + b; }\nassert.deepEqual(add(2, 3), 5);\n",
      wrong: "const assert = require('node:assert');\nfunction add(a, b) { return a - b; }\nassert.deepEqual(add(2, 3), 5);\n",
      broken: 'function add(a, b) { return a + ; }\n',
      hangs: 'while (true) {}\n',
    },
    hostile: ({ port, targets, outputMiB }) => {
      const ports = `[${port}, 7233, 8333]`;
      return {
        loop: 'while (true) {}',
        spawnBomb:
          "const cp = require('child_process');\nfor (;;) { try { cp.spawn('/bin/sleep', ['100']).on('error', () => {}); } catch (e) {} }",
        memoryBomb: 'const a = [];\nfor (;;) a.push(new Array(1e6).fill(1.5));',
        output: `const b = Buffer.alloc(1 << 20, 120);\nconst fs = require('fs');\nfor (let i = 0; i < ${outputMiB}; i++) fs.writeSync(1, b);`,
        network: `const net = require('net');\nlet left = 3;\nconst out = {};\nfor (const p of ${ports}) {\n  const s = net.connect(p, '127.0.0.1');\n  s.on('connect', () => { out[p] = 'CONNECTED'; s.destroy(); if (--left === 0) console.log(JSON.stringify(out)); });\n  s.on('error', (e) => { out[p] = e.code; if (--left === 0) console.log(JSON.stringify(out)); });\n}`,
        environment:
          "console.log(JSON.stringify(process.env));\ntry { console.log(require('fs').readFileSync('/proc/1/environ', 'utf8')); } catch (e) {}",
        writeOutside: `const fs = require('fs');\nfor (const p of ${JSON.stringify(targets)}) { try { fs.writeFileSync(p, 'x'); console.log('WROTE ' + p); } catch (e) { console.log('refused ' + p); } }`,
        daemon:
          "const cp = require('child_process');\nconst c = cp.spawn('/bin/sleep', ['30'], { detached: true, stdio: 'ignore' });\nc.unref();\nconsole.log('spawned ' + c.pid);",
      };
    },
    wellBehaved: "require('node:assert').deepEqual(1 + 1, 2);",
    bench: {
      rows: [
        {
          name: 'HumanEval_23_strlen',
          prompt: '//Return length of given string\n// >>> strlen("")\n// 0\n// >>> strlen("abc")\n// 3\nfunction strlen(string){\n',
          completion: '  return string.length;\n}',
          tests:
            'const assert = require(\'node:assert\');\n\n\nfunction test() {\n  let candidate = strlen;\n  assert.deepEqual(candidate(""),0);\n  assert.deepEqual(candidate("x"),1);\n  assert.deepEqual(candidate("asdasnakj"),9);\n}\n\ntest();',
        },
        {
          name: 'HumanEval_13_greatest_common_divisor',
          prompt:
            '//Return a greatest common divisor of two integers a and b\n// >>> greatest_common_divisor(3, 5)\n// 1\n// >>> greatest_common_divisor(25, 15)\n// 5\nfunction greatest_common_divisor(a, b){\n',
          completion: '  while (b) { [a, b] = [b, a % b]; }\n  return a;\n}',
          tests:
            "const assert = require('node:assert');\n\n\nfunction test() {\n  let candidate = greatest_common_divisor;\n  assert.deepEqual(candidate(3, 7),1);\n  assert.deepEqual(candidate(10, 15),5);\n  assert.deepEqual(candidate(49, 14),7);\n  assert.deepEqual(candidate(144, 60),12);\n}\n\ntest();",
        },
        {
          name: 'HumanEval_30_get_positive',
          prompt:
            '//Return only positive numbers in the array.\n// >>> get_positive([-1, 2, -4, 5, 6])\n// [2, 5, 6]\n// >>> get_positive([5, 3, -5, 2, -3, 3, 9, 0, 123, 1, -10])\n// [5, 3, 2, 3, 9, 123, 1]\nfunction get_positive(l){\n',
          completion: '  return l.filter((e) => e > 0);\n}',
          tests:
            "const assert = require('node:assert');\n\n\nfunction test() {\n  let candidate = get_positive;\n  assert.deepEqual(candidate([-1, -2, 4, 5, 6]),[4, 5, 6]);\n  assert.deepEqual(candidate([5, 3, -5, 2, 3, 3, 9, 0, 123, 1, -10]),[5, 3, 2, 3, 3, 9, 123, 1]);\n  assert.deepEqual(candidate([-1, -2]),[]);\n  assert.deepEqual(candidate([]),[]);\n}\n\ntest();",
        },
      ],
      distinct: (i) => `\n// bench program ${i}\n`,
    },
  },
};
