/** The test cases and benchmark programs of `java` (what each is for: ../fixtures.ts). */
import type { LanguageFixtures } from '../fixtures.js';

const JAVA_HEAD = 'import java.util.*;\nimport org.javatuples.*;\nclass Problem {\n';

const java = (body: string) =>
  `import java.util.*;\nimport java.io.*;\nimport java.net.*;\nimport java.nio.file.*;\nclass Problem {\n    public static void main(String[] args) throws Exception {\n${body}\n    }\n}\n`;

export const fixtures: LanguageFixtures<'java'> = {
  language: 'java',
  multiple: {
    id: 'java',
    row: {
      prompt:
        'import java.util.*;\nimport java.lang.reflect.*;\nimport org.javatuples.*;\nimport java.security.*;\nimport java.math.*;\nimport java.io.*;\nimport java.util.stream.*;\nclass Problem {\n    // Add two numbers x and y\n    // >>> add((2l), (3l))\n    // (5l)\n    // >>> add((5l), (7l))\n    // (12l)\n    public static long add(long x, long y) {\n',
      tests:
        '    }\n    public static void main(String[] args) {\n    assert(add((0l), (1l)) == (1l));\n    assert(add((1l), (0l)) == (1l));\n    assert(add((2l), (3l)) == (5l));\n    assert(add((5l), (7l)) == (12l));\n    assert(add((7l), (5l)) == (12l));\n    }\n\n}\n',
      stop: ['\n    }\n'],
    },
    completions: {
      right: '        return x + y;\n    }\n    public static long junk() { return "kept past a stop token"; }\n',
      wrong: '        return x - y;\n    }\n',
      noncompiling: '        return x + "y";\n    }\n',
      // Writes outside its directory: the right sum only when that is refused.
      hostile:
        '        try { java.nio.file.Files.write(java.nio.file.Paths.get("/etc/explora-multiple-planted"), new byte[]{1}); return 0; } catch (Exception e) { return x + y; }\n    }\n',
    },
    hostilePasses: true,
  },
  process: {
    statuses: {
      ok: `${JAVA_HEAD}    public static long add(long a, long b) { return a + b; }\n    public static void main(String[] args) {\n    assert(add(2l, 3l) == 5l);\n    assert(Pair.with(1, 2).getValue1() == 2);\n    }\n}\n`,
      wrong: `${JAVA_HEAD}    public static long add(long a, long b) { return a - b; }\n    public static void main(String[] args) {\n    assert(add(2l, 3l) == 5l);\n    }\n}\n`,
      broken: `${JAVA_HEAD}    public static long add(long a, long b) { return a + "b"; }\n    public static void main(String[] args) {\n    assert(add(2l, 3l) == 5l);\n    }\n}\n`,
      hangs: `${JAVA_HEAD}    public static void main(String[] args) {\n    while (true) {}\n    }\n}\n`,
    },
    hostile: ({ port, targets, outputMiB }) => ({
      loop: java('        while (true) {}'),
      spawnBomb: java('        while (true) { try { new ProcessBuilder("/bin/sleep", "100").start(); } catch (Exception e) {} }'),
      memoryBomb: java('        List<long[]> l = new ArrayList<>();\n        while (true) l.add(new long[1 << 20]);'),
      output: java(
        `        byte[] b = new byte[1 << 20];\n        Arrays.fill(b, (byte) 120);\n        FileOutputStream out = new FileOutputStream(FileDescriptor.out);\n        for (int i = 0; i < ${outputMiB}; i++) out.write(b);`,
      ),
      network: java(
        `        for (int p : new int[]{${port}, 7233, 8333}) {\n            try (Socket s = new Socket()) { s.connect(new InetSocketAddress("127.0.0.1", p), 1000); System.out.println(p + " CONNECTED"); }\n            catch (IOException e) { System.out.println(p + " " + e); }\n        }`,
      ),
      environment: java(
        '        System.out.println(System.getenv());\n        try { System.out.println(new String(Files.readAllBytes(Paths.get("/proc/1/environ")))); } catch (IOException e) {}',
      ),
      writeOutside: java(
        `        for (String p : new String[]{${targets.map((t) => JSON.stringify(t)).join(', ')}}) {\n            try { Files.write(Paths.get(p), "x".getBytes()); System.out.println("WROTE " + p); } catch (Exception e) { System.out.println("refused " + p); }\n        }`,
      ),
      daemon: java(
        '        Process c = new ProcessBuilder("/usr/bin/setsid", "/bin/sleep", "30").start();\n        System.out.println("spawned " + c.pid());',
      ),
    }),
    wellBehaved: 'class Problem { public static void main(String[] a) { assert 1 + 1 == 2; } }',
    bench: {
      rows: [
        {
          name: 'HumanEval_23_strlen',
          prompt:
            'import java.util.*;\nimport java.lang.reflect.*;\nimport org.javatuples.*;\nimport java.security.*;\nimport java.math.*;\nimport java.io.*;\nimport java.util.stream.*;\nclass Problem {\n    // Return length of given string\n    // >>> stringLength((""))\n    // (0l)\n    // >>> stringLength(("abc"))\n    // (3l)\n    public static long strlen(String string) {\n',
          completion: '        return string.length();',
          tests:
            '    }\n    public static void main(String[] args) {\n    assert(strlen(("")) == (0l));\n    assert(strlen(("x")) == (1l));\n    assert(strlen(("asdasnakj")) == (9l));\n    }\n\n}\n',
        },
        {
          name: 'HumanEval_13_greatest_common_divisor',
          prompt:
            'import java.util.*;\nimport java.lang.reflect.*;\nimport org.javatuples.*;\nimport java.security.*;\nimport java.math.*;\nimport java.io.*;\nimport java.util.stream.*;\nclass Problem {\n    // Return a greatest common divisor of two integers a and b\n    // >>> greatestCommonDivisor((3l), (5l))\n    // (1l)\n    // >>> greatestCommonDivisor((25l), (15l))\n    // (5l)\n    public static long greatestCommonDivisor(long a, long b) {\n',
          completion: '        while (b != 0) { long t = a % b; a = b; b = t; }\n        return a;',
          tests:
            '    }\n    public static void main(String[] args) {\n    assert(greatestCommonDivisor((3l), (7l)) == (1l));\n    assert(greatestCommonDivisor((10l), (15l)) == (5l));\n    assert(greatestCommonDivisor((49l), (14l)) == (7l));\n    assert(greatestCommonDivisor((144l), (60l)) == (12l));\n    }\n\n}\n',
        },
        {
          name: 'HumanEval_30_get_positive',
          prompt:
            'import java.util.*;\nimport java.lang.reflect.*;\nimport org.javatuples.*;\nimport java.security.*;\nimport java.math.*;\nimport java.io.*;\nimport java.util.stream.*;\nclass Problem {\n    // Return only positive numbers in the array list.\n    // >>> getPositive((new ArrayList<Long>(Arrays.asList((long)-1l, (long)2l, (long)-4l, (long)5l, (long)6l))))\n    // (new ArrayList<Long>(Arrays.asList((long)2l, (long)5l, (long)6l)))\n    // >>> getPositive((new ArrayList<Long>(Arrays.asList((long)5l, (long)3l, (long)-5l, (long)2l, (long)-3l, (long)3l, (long)9l, (long)0l, (long)123l, (long)1l, (long)-10l))))\n    // (new ArrayList<Long>(Arrays.asList((long)5l, (long)3l, (long)2l, (long)3l, (long)9l, (long)123l, (long)1l)))\n    public static ArrayList<Long> getPositive(ArrayList<Long> l) {\n',
          completion: '        return l.stream().filter(e -> e > 0).collect(Collectors.toCollection(ArrayList::new));',
          tests:
            '    }\n    public static void main(String[] args) {\n    assert(getPositive((new ArrayList<Long>(Arrays.asList((long)-1l, (long)-2l, (long)4l, (long)5l, (long)6l)))).equals((new ArrayList<Long>(Arrays.asList((long)4l, (long)5l, (long)6l)))));\n    assert(getPositive((new ArrayList<Long>(Arrays.asList((long)5l, (long)3l, (long)-5l, (long)2l, (long)3l, (long)3l, (long)9l, (long)0l, (long)123l, (long)1l, (long)-10l)))).equals((new ArrayList<Long>(Arrays.asList((long)5l, (long)3l, (long)2l, (long)3l, (long)3l, (long)9l, (long)123l, (long)1l)))));\n    assert(getPositive((new ArrayList<Long>(Arrays.asList((long)-1l, (long)-2l)))).equals((new ArrayList<Long>(Arrays.asList()))));\n    assert(getPositive((new ArrayList<Long>(Arrays.asList()))).equals((new ArrayList<Long>(Arrays.asList()))));\n    }\n\n}\n',
        },
      ],
      distinct: (i) => `\n// bench program ${i}\n`,
      lever: 'javac per program',
    },
  },
};
