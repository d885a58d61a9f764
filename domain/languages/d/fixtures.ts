/** The test cases and benchmark programs of `d` (what each is for: ../fixtures.ts). */
import type { LanguageFixtures } from '../fixtures.js';

export const fixtures: LanguageFixtures<'d'> = {
  language: 'd',
  multiple: {
    id: 'd',
    row: {
      prompt:
        'import std.math;\n/*\nAdd two numbers x and y\n    >>> add(2L, 3L)\n    5L\n    >>> add(5L, 7L)\n    12L\n    \n*/\nlong add(long x, long y) \n',
      tests:
        'unittest\n{\n    alias candidate = add;\n\n    assert(candidate(0L, 1L) == 1L);\n    assert(candidate(1L, 0L) == 1L);\n    assert(candidate(2L, 3L) == 5L);\n    assert(candidate(5L, 7L) == 12L);\n    assert(candidate(7L, 5L) == 12L);\n}\nvoid main(){}',
      stop: ['\n\n', '\nvoid', '\nbool', '\nint'],
    },
    completions: {
      right: '{\n    return x + y;\n}\n\nint junk() { return "kept past a stop token"; }\n',
      wrong: '{\n    return x - y;\n}\n',
      noncompiling: '{\n    return x + "y";\n}\n',
      // Leaves a daemon behind (a new session, sleeping): it must die with the program.
      hostile: '{\n    import std.process : spawnShell;\n    spawnShell("setsid sleep 31 > /dev/null 2>&1 &");\n    return x + y;\n}\n',
    },
    hostilePasses: true,
  },
  process: {
    statuses: {
      ok: 'long add(long a, long b) { return a + b; }\nunittest { assert(add(2, 3) == 5); }\nvoid main(){}\n',
      wrong: 'long add(long a, long b) { return a - b; }\nunittest { assert(add(2, 3) == 5); }\nvoid main(){}\n',
      broken: 'long add(long a, long b) { return a + "b"; }\nvoid main(){}\n',
      hangs: 'void main() { while (true) {} }\n',
    },
    hostile: ({ port, targets, outputMiB }) => {
      const ports = `[${port}, 7233, 8333]`;
      return {
        loop: 'void main() { while (true) {} }',
        spawnBomb:
          'import std.process;\nvoid main() { while (true) { try { spawnProcess(["/bin/sleep", "100"]); } catch (Exception e) {} } }',
        memoryBomb: 'void main() { long[][] a; while (true) a ~= new long[1 << 20]; }',
        output: `import std.stdio;\nvoid main() { auto b = new char[1 << 20]; b[] = 'x'; foreach (i; 0 .. ${outputMiB}) stdout.rawWrite(b); }`,
        network: `import std.socket, std.stdio;\nvoid main() {\n    foreach (p; ${ports}) {\n        try { auto s = new TcpSocket(new InternetAddress("127.0.0.1", cast(ushort) p)); writeln(p, " CONNECTED"); s.close(); }\n        catch (Exception e) { writeln(p, " ", e.msg); }\n    }\n}`,
        environment:
          'import std.process, std.stdio, std.file;\nvoid main() {\n    foreach (k, v; environment.toAA()) writeln(k, "=", v);\n    try { writeln(readText("/proc/1/environ")); } catch (Exception e) {}\n}',
        writeOutside: `import std.file, std.stdio;\nvoid main() {\n    foreach (p; ${JSON.stringify(targets)}) {\n        try { std.file.write(p, "x"); writeln("WROTE ", p); } catch (Exception e) { writeln("refused ", p); }\n    }\n}`,
        daemon:
          'import std.process, std.stdio;\nvoid main() { auto pid = spawnProcess(["/usr/bin/setsid", "/bin/sleep", "30"]); writeln("spawned ", pid.processID); }',
      };
    },
    wellBehaved: 'unittest { assert(1 + 1 == 2); }\nvoid main() {}',
    bench: {
      rows: [
        {
          name: 'HumanEval_23_strlen',
          prompt:
            'import std.math;\n/*\n Return length of given string\n    >>> strlen("")\n    0L\n    >>> strlen("abc")\n    3L\n    \n*/\nlong strlen(string string) \n',
          completion: '{\n    return string.length;\n}',
          tests:
            'unittest\n{\n    alias candidate = strlen;\n\n    assert(candidate("") == 0L);\n    assert(candidate("x") == 1L);\n    assert(candidate("asdasnakj") == 9L);\n}\nvoid main(){}',
        },
        {
          name: 'HumanEval_13_greatest_common_divisor',
          prompt:
            'import std.math;\n/*\n Return a greatest common divisor of two integers a and b\n    >>> greatest_common_divisor(3L, 5L)\n    1L\n    >>> greatest_common_divisor(25L, 15L)\n    5L\n    \n*/\nlong greatest_common_divisor(long a, long b) \n',
          completion: '{\n    while (b != 0) { auto t = a % b; a = b; b = t; }\n    return a;\n}',
          tests:
            'unittest\n{\n    alias candidate = greatest_common_divisor;\n\n    assert(candidate(3L, 7L) == 1L);\n    assert(candidate(10L, 15L) == 5L);\n    assert(candidate(49L, 14L) == 7L);\n    assert(candidate(144L, 60L) == 12L);\n}\nvoid main(){}',
        },
        {
          name: 'HumanEval_53_add',
          prompt:
            'import std.math;\n/*\nAdd two numbers x and y\n    >>> add(2L, 3L)\n    5L\n    >>> add(5L, 7L)\n    12L\n    \n*/\nlong add(long x, long y) \n',
          completion: '{\n    return x + y;\n}',
          tests:
            'unittest\n{\n    alias candidate = add;\n\n    assert(candidate(0L, 1L) == 1L);\n    assert(candidate(1L, 0L) == 1L);\n    assert(candidate(2L, 3L) == 5L);\n    assert(candidate(5L, 7L) == 12L);\n    assert(candidate(7L, 5L) == 12L);\n}\nvoid main(){}',
        },
      ],
      distinct: (i) => `\n// bench program ${i}\n`,
    },
  },
};
