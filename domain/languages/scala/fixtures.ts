/** The test cases and benchmark programs of `scala` (what each is for: ../fixtures.ts). */
import type { LanguageFixtures } from '../fixtures.js';

const scala = (body: string) =>
  `import java.io._\nimport java.net._\nimport java.nio.file._\nobject Problem {\n    def main(args: Array[String]) : Unit = {\n${body}\n    }\n}\n`;

export const fixtures: LanguageFixtures<'scala'> = {
  language: 'scala',
  multiple: {
    id: 'scala',
    row: {
      prompt:
        'import scala.math._\nimport scala.collection.mutable._\nobject Problem {\n    // Add two numbers x and y\n    // >>> add((2l), (3l))\n    // (5l)\n    // >>> add((5l), (7l))\n    // (12l)\n    def add(x : Long, y : Long) : Long = {\n',
      tests:
        '    }\n    def main(args: Array[String]) = {\n    assert(add((0l), (1l)) == (1l));\n    assert(add((1l), (0l)) == (1l));\n    assert(add((2l), (3l)) == (5l));\n    assert(add((5l), (7l)) == (12l));\n    assert(add((7l), (5l)) == (12l));\n    }\n\n}\n',
      stop: ['\n    }\n'],
    },
    completions: {
      right: '        x + y\n    }\n    def junk() : Long = "kept past a stop token"\n',
      wrong: '        x - y\n    }\n',
      noncompiling: '        x + "y"\n    }\n',
      // Reads the worker's environment: the right sum only when it sees none of it.
      hostile: '        if (sys.env.keys.exists(k => k.contains("EXPLORA") || k.contains("TEMPORAL"))) 0l else x + y\n    }\n',
    },
    hostilePasses: true,
  },
  process: {
    statuses: {
      ok: 'object Problem {\n    def add(a : Long, b : Long) : Long = a + b\n    def main(args: Array[String]) = {\n    assert(add(2l, 3l) == 5l);\n    }\n}\n',
      wrong:
        'object Problem {\n    def add(a : Long, b : Long) : Long = a - b\n    def main(args: Array[String]) = {\n    assert(add(2l, 3l) == 5l);\n    }\n}\n',
      broken: 'object Problem {\n    def add(a : Long, b : Long) : Long = a + "b"\n    def main(args: Array[String]) = {}\n}\n',
      hangs: 'object Problem {\n    def main(args: Array[String]) = { while (true) {} }\n}\n',
    },
    hostile: ({ port, targets, outputMiB }) => ({
      loop: scala('        while (true) {}'),
      spawnBomb: scala('        while (true) { try { new ProcessBuilder("/bin/sleep", "100").start() } catch { case e: Exception => } }'),
      memoryBomb: scala('        val l = new java.util.ArrayList[Array[Long]]()\n        while (true) l.add(new Array[Long](1 << 20))'),
      output: scala(
        `        val b = Array.fill[Byte](1 << 20)(120)\n        val out = new FileOutputStream(FileDescriptor.out)\n        for (i <- 0 until ${outputMiB}) out.write(b)`,
      ),
      network: scala(
        `        for (p <- List(${port}, 7233, 8333)) {\n            try { val s = new Socket(); s.connect(new InetSocketAddress("127.0.0.1", p), 1000); println(p + " CONNECTED"); s.close() }\n            catch { case e: IOException => println(p + " " + e) }\n        }`,
      ),
      environment: scala(
        '        println(System.getenv())\n        try { println(new String(Files.readAllBytes(Paths.get("/proc/1/environ")))) } catch { case e: IOException => }',
      ),
      writeOutside: scala(
        `        for (p <- List(${targets.map((t) => JSON.stringify(t)).join(', ')})) {\n            try { Files.write(Paths.get(p), Array[Byte](120)); println("WROTE " + p) } catch { case e: Exception => println("refused " + p) }\n        }`,
      ),
      daemon: scala(
        '        val p = new ProcessBuilder("/usr/bin/setsid", "/bin/sleep", "30").start()\n        println("spawned " + p.pid())',
      ),
    }),
    wellBehaved: 'object Problem {\n    def main(args: Array[String]) = { assert(1 + 1 == 2); }\n}\n',
    bench: {
      rows: [
        {
          name: 'HumanEval_23_strlen',
          prompt:
            'import scala.math._\nimport scala.collection.mutable._\nobject Problem {\n    // Return length of given string\n    // >>> stringLength((""))\n    // (0l)\n    // >>> stringLength(("abc"))\n    // (3l)\n    def strlen(string : String) : Long = {\n',
          completion: '        string.length.toLong',
          tests:
            '    }\n    def main(args: Array[String]) = {\n    assert(strlen(("")) == (0l));\n    assert(strlen(("x")) == (1l));\n    assert(strlen(("asdasnakj")) == (9l));\n    }\n\n}\n',
        },
        {
          name: 'HumanEval_13_greatest_common_divisor',
          prompt:
            'import scala.math._\nimport scala.collection.mutable._\nobject Problem {\n    // Return a greatest common divisor of two integers a and b\n    // >>> greatestCommonDivisor((3l), (5l))\n    // (1l)\n    // >>> greatestCommonDivisor((25l), (15l))\n    // (5l)\n    def greatestCommonDivisor(a : Long, b : Long) : Long = {\n',
          completion: '        if (b == 0) a else greatestCommonDivisor(b, a % b)',
          tests:
            '    }\n    def main(args: Array[String]) = {\n    assert(greatestCommonDivisor((3l), (7l)) == (1l));\n    assert(greatestCommonDivisor((10l), (15l)) == (5l));\n    assert(greatestCommonDivisor((49l), (14l)) == (7l));\n    assert(greatestCommonDivisor((144l), (60l)) == (12l));\n    }\n\n}\n',
        },
        {
          name: 'HumanEval_53_add',
          prompt:
            'import scala.math._\nimport scala.collection.mutable._\nobject Problem {\n    // Add two numbers x and y\n    // >>> add((2l), (3l))\n    // (5l)\n    // >>> add((5l), (7l))\n    // (12l)\n    def add(x : Long, y : Long) : Long = {\n',
          completion: '        x + y',
          tests:
            '    }\n    def main(args: Array[String]) = {\n    assert(add((0l), (1l)) == (1l));\n    assert(add((1l), (0l)) == (1l));\n    assert(add((2l), (3l)) == (5l));\n    assert(add((5l), (7l)) == (12l));\n    assert(add((7l), (5l)) == (12l));\n    }\n\n}\n',
        },
      ],
      distinct: (i) => `\n// bench program ${i}\n`,
      lever: 'scalac per program',
    },
  },
};
