/** The test cases and benchmark programs of `php` (what each is for: ../fixtures.ts). */
import type { LanguageFixtures } from '../fixtures.js';

export const fixtures: LanguageFixtures<'php'> = {
  language: 'php',
  multiple: {
    id: 'php',
    row: {
      prompt: '<?php\n// Add two numbers x and y\n// >>> add(2, 3)\n// 5\n// >>> add(5, 7)\n// 12\nfunction add($x, $y) {\n',
      tests:
        'function candidate(...$args) {\n    return add(...$args);\n}\n\nfunction test(): void {\n    if (candidate(0, 1) !== 1) { throw new Exception("Test failed!"); }\n    if (candidate(1, 0) !== 1) { throw new Exception("Test failed!"); }\n    if (candidate(2, 3) !== 5) { throw new Exception("Test failed!"); }\n    if (candidate(5, 7) !== 12) { throw new Exception("Test failed!"); }\n    if (candidate(7, 5) !== 12) { throw new Exception("Test failed!"); }\n}\n\ntest();',
      stop: ['\nfunction', '\n?>', '\n//', '\n#'],
    },
    completions: {
      right: '    return $x + $y;\n}\n\nfunction junk() { throw new Exception("kept past a stop token"); }\n',
      wrong: '    return $x - $y;\n}\n',
      noncompiling: '    return $x +;\n}\n',
      // Leaves a daemon behind (a new session, sleeping): it must die with the program.
      hostile: "    exec('setsid sleep 31 > /dev/null 2>&1 &');\n    return $x + $y;\n}\n",
    },
    hostilePasses: true,
  },
  process: {
    statuses: {
      ok: '<?php\nfunction add($a, $b) { return $a + $b; }\nif (add(2, 3) !== 5) { throw new Exception("Test failed!"); }\n',
      wrong: '<?php\nfunction add($a, $b) { return $a - $b; }\nif (add(2, 3) !== 5) { throw new Exception("Test failed!"); }\n',
      broken: '<?php\nfunction add($a, $b) { return $a + ; }\n',
      hangs: '<?php\nwhile (true) {}\n',
    },
    hostile: ({ port, targets, outputMiB }) => {
      const ports = `[${port}, 7233, 8333]`;
      return {
        loop: '<?php\nwhile (true) {}',
        spawnBomb: "<?php\nwhile (true) { @exec('/bin/sleep 100 > /dev/null 2>&1 &'); }",
        memoryBomb: "<?php\n$a = [];\nwhile (true) $a[] = str_repeat('x', 10 << 20);",
        output: `<?php\n$b = str_repeat('x', 1 << 20);\nfor ($i = 0; $i < ${outputMiB}; $i++) fwrite(STDOUT, $b);`,
        network: `<?php\nforeach (${ports} as $p) {\n    $s = @fsockopen('127.0.0.1', $p, $errno, $errstr, 1);\n    if ($s) { echo "$p CONNECTED\\n"; fclose($s); } else { echo "$p $errstr\\n"; }\n}`,
        environment: "<?php\nvar_export(getenv());\necho @file_get_contents('/proc/1/environ');",
        writeOutside: `<?php\nforeach (${JSON.stringify(targets)} as $p) {\n    if (@file_put_contents($p, 'x') !== false) echo "WROTE $p\\n"; else echo "refused $p\\n";\n}`,
        daemon: '<?php\n$pid = trim(shell_exec(\'setsid /bin/sleep 30 > /dev/null 2>&1 & echo $!\'));\necho "spawned $pid\\n";',
      };
    },
    wellBehaved: '<?php\nif (1 + 1 !== 2) { throw new Exception("Test failed!"); }',
    bench: {
      rows: [
        {
          name: 'HumanEval_53_add',
          prompt: '<?php\n// Add two numbers x and y\n// >>> add(2, 3)\n// 5\n// >>> add(5, 7)\n// 12\nfunction add($x, $y) {\n',
          completion: '    return $x + $y;\n}',
          tests:
            'function candidate(...$args) {\n    return add(...$args);\n}\n\nfunction test(): void {\n    if (candidate(0, 1) !== 1) { throw new Exception("Test failed!"); }\n    if (candidate(1, 0) !== 1) { throw new Exception("Test failed!"); }\n    if (candidate(2, 3) !== 5) { throw new Exception("Test failed!"); }\n    if (candidate(5, 7) !== 12) { throw new Exception("Test failed!"); }\n    if (candidate(7, 5) !== 12) { throw new Exception("Test failed!"); }\n}\n\ntest();',
        },
        {
          name: 'HumanEval_13_greatest_common_divisor',
          prompt:
            '<?php\n// Return a greatest common divisor of two integers a and b\n// >>> greatest_common_divisor(3, 5)\n// 1\n// >>> greatest_common_divisor(25, 15)\n// 5\nfunction greatest_common_divisor($a, $b) {\n',
          completion: '    while ($b != 0) { [$a, $b] = [$b, $a % $b]; }\n    return $a;\n}',
          tests:
            'function candidate(...$args) {\n    return greatest_common_divisor(...$args);\n}\n\nfunction test(): void {\n    if (candidate(3, 7) !== 1) { throw new Exception("Test failed!"); }\n    if (candidate(10, 15) !== 5) { throw new Exception("Test failed!"); }\n    if (candidate(49, 14) !== 7) { throw new Exception("Test failed!"); }\n    if (candidate(144, 60) !== 12) { throw new Exception("Test failed!"); }\n}\n\ntest();',
        },
        {
          name: 'HumanEval_30_get_positive',
          prompt:
            '<?php\n// Return only positive numbers in the array.\n// >>> get_positive(array(-1, 2, -4, 5, 6))\n// array(2, 5, 6)\n// >>> get_positive(array(5, 3, -5, 2, -3, 3, 9, 0, 123, 1, -10))\n// array(5, 3, 2, 3, 9, 123, 1)\nfunction get_positive($l) {\n',
          completion: '    return array_values(array_filter($l, fn($e) => $e > 0));\n}',
          tests:
            'function candidate(...$args) {\n    return get_positive(...$args);\n}\n\nfunction test(): void {\n    if (candidate(array(-1, -2, 4, 5, 6)) !== array(4, 5, 6)) { throw new Exception("Test failed!"); }\n    if (candidate(array(5, 3, -5, 2, 3, 3, 9, 0, 123, 1, -10)) !== array(5, 3, 2, 3, 3, 9, 123, 1)) { throw new Exception("Test failed!"); }\n    if (candidate(array(-1, -2)) !== array()) { throw new Exception("Test failed!"); }\n    if (candidate(array()) !== array()) { throw new Exception("Test failed!"); }\n}\n\ntest();',
        },
      ],
      distinct: (i) => `\n// bench program ${i}\n`,
    },
  },
};
