/** The test cases and benchmark programs of `cs` (what each is for: ../fixtures.ts). */
import type { LanguageFixtures } from '../fixtures.js';

const cs = (body: string) =>
  `using System;\nusing System.IO;\nusing System.Collections.Generic;\nusing System.Diagnostics;\nclass Problem {\n    public static void Main(string[] args) {\n${body}\n    }\n}\n`;

export const fixtures: LanguageFixtures<'cs'> = {
  language: 'cs',
  multiple: {
    id: 'cs',
    row: {
      prompt:
        'using System;\nusing System.Numerics;\nusing System.Diagnostics;\nusing System.Collections.Generic;\nusing System.Linq;\nusing System.Text;\nusing System.Security.Cryptography;\nclass Problem {\n    // Add two numbers x and y\n    // >>> Add((2L), (3L))\n    // (5L)\n    // >>> Add((5L), (7L))\n    // (12L)\n    public static long Add(long x, long y) {\n',
      tests:
        '    }\n    public static void Main(string[] args) {\n    Debug.Assert(Add((0L), (1L)) == (1L));\n    Debug.Assert(Add((1L), (0L)) == (1L));\n    Debug.Assert(Add((2L), (3L)) == (5L));\n    Debug.Assert(Add((5L), (7L)) == (12L));\n    Debug.Assert(Add((7L), (5L)) == (12L));\n    }\n\n}\n',
      stop: ['\n    }\n'],
    },
    completions: {
      right: '        return x + y;\n    }\n    public static long Junk() { return "kept past a stop token"; }\n',
      wrong: '        return x - y;\n    }\n',
      noncompiling: '        return x + "y";\n    }\n',
      // Connects to Temporal's port (Mono's TcpClient(host, port) swallows a refusal; Connect throws it):
      // the right sum only when the connection is refused.
      hostile:
        '        try { new System.Net.Sockets.TcpClient().Connect("127.0.0.1", 7233); return 0; } catch (Exception) { return x + y; }\n    }\n',
    },
    hostilePasses: true,
  },
  process: {
    statuses: {
      ok: 'using System.Diagnostics;\nclass Problem {\n    public static long Add(long a, long b) { return a + b; }\n    public static void Main(string[] args) {\n    Debug.Assert(Add(2L, 3L) == 5L);\n    }\n}\n',
      wrong:
        'using System.Diagnostics;\nclass Problem {\n    public static long Add(long a, long b) { return a - b; }\n    public static void Main(string[] args) {\n    Debug.Assert(Add(2L, 3L) == 5L);\n    }\n}\n',
      broken:
        'class Problem {\n    public static long Add(long a, long b) { return a + "b"; }\n    public static void Main(string[] args) {}\n}\n',
      hangs: 'class Problem {\n    public static void Main(string[] args) { while (true) {} }\n}\n',
    },
    hostile: ({ port, targets, outputMiB }) => ({
      loop: cs('        while (true) {}'),
      spawnBomb: cs('        while (true) { try { Process.Start("/bin/sleep", "100"); } catch (Exception) {} }'),
      memoryBomb: cs('        var l = new List<long[]>();\n        while (true) l.Add(new long[1 << 20]);'),
      output: cs(
        `        var b = new byte[1 << 20];\n        for (int i = 0; i < b.Length; i++) b[i] = 120;\n        var o = Console.OpenStandardOutput();\n        for (int i = 0; i < ${outputMiB}; i++) o.Write(b, 0, b.Length);`,
      ),
      network: cs(
        `        foreach (var p in new[] { ${port}, 7233, 8333 }) {\n            try { var c = new System.Net.Sockets.TcpClient(); c.Connect("127.0.0.1", p); Console.WriteLine(p + " CONNECTED"); c.Close(); }\n            catch (Exception e) { Console.WriteLine(p + " " + e.Message); }\n        }`,
      ),
      environment: cs(
        '        foreach (System.Collections.DictionaryEntry e in Environment.GetEnvironmentVariables()) Console.WriteLine(e.Key + "=" + e.Value);\n        try { Console.WriteLine(File.ReadAllText("/proc/1/environ")); } catch (Exception) {}',
      ),
      writeOutside: cs(
        `        foreach (var p in new[] { ${targets.map((t) => JSON.stringify(t)).join(', ')} }) {\n            try { File.WriteAllText(p, "x"); Console.WriteLine("WROTE " + p); } catch (Exception) { Console.WriteLine("refused " + p); }\n        }`,
      ),
      daemon: cs('        var p = Process.Start("/usr/bin/setsid", "/bin/sleep 30");\n        Console.WriteLine("spawned " + p.Id);'),
    }),
    wellBehaved:
      'using System.Diagnostics;\nclass Problem {\n    public static void Main(string[] args) { Debug.Assert(1 + 1 == 2); }\n}\n',
    bench: {
      rows: [
        {
          name: 'HumanEval_23_strlen',
          prompt:
            'using System;\nusing System.Numerics;\nusing System.Diagnostics;\nusing System.Collections.Generic;\nusing System.Linq;\nusing System.Text;\nusing System.Security.Cryptography;\nclass Problem {\n    // Return length of given string\n    // >>> StringLength((""))\n    // (0L)\n    // >>> StringLength(("abc"))\n    // (3L)\n    public static long Strlen(string str) {\n',
          completion: '        return str.Length;',
          tests:
            '    }\n    public static void Main(string[] args) {\n    Debug.Assert(Strlen(("")) == (0L));\n    Debug.Assert(Strlen(("x")) == (1L));\n    Debug.Assert(Strlen(("asdasnakj")) == (9L));\n    }\n\n}\n',
        },
        {
          name: 'HumanEval_13_greatest_common_divisor',
          prompt:
            'using System;\nusing System.Numerics;\nusing System.Diagnostics;\nusing System.Collections.Generic;\nusing System.Linq;\nusing System.Text;\nusing System.Security.Cryptography;\nclass Problem {\n    // Return a greatest common divisor of two integers a and b\n    // >>> GreatestCommonDivisor((3L), (5L))\n    // (1L)\n    // >>> GreatestCommonDivisor((25L), (15L))\n    // (5L)\n    public static long GreatestCommonDivisor(long a, long b) {\n',
          completion: '        while (b != 0) { long t = a % b; a = b; b = t; }\n        return a;',
          tests:
            '    }\n    public static void Main(string[] args) {\n    Debug.Assert(GreatestCommonDivisor((3L), (7L)) == (1L));\n    Debug.Assert(GreatestCommonDivisor((10L), (15L)) == (5L));\n    Debug.Assert(GreatestCommonDivisor((49L), (14L)) == (7L));\n    Debug.Assert(GreatestCommonDivisor((144L), (60L)) == (12L));\n    }\n\n}\n',
        },
        {
          name: 'HumanEval_53_add',
          prompt:
            'using System;\nusing System.Numerics;\nusing System.Diagnostics;\nusing System.Collections.Generic;\nusing System.Linq;\nusing System.Text;\nusing System.Security.Cryptography;\nclass Problem {\n    // Add two numbers x and y\n    // >>> Add((2L), (3L))\n    // (5L)\n    // >>> Add((5L), (7L))\n    // (12L)\n    public static long Add(long x, long y) {\n',
          completion: '        return x + y;',
          tests:
            '    }\n    public static void Main(string[] args) {\n    Debug.Assert(Add((0L), (1L)) == (1L));\n    Debug.Assert(Add((1L), (0L)) == (1L));\n    Debug.Assert(Add((2L), (3L)) == (5L));\n    Debug.Assert(Add((5L), (7L)) == (12L));\n    Debug.Assert(Add((7L), (5L)) == (12L));\n    }\n\n}\n',
        },
      ],
      distinct: (i) => `\n// bench program ${i}\n`,
      lever: 'mcs per program',
    },
  },
};
