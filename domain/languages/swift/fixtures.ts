/** The test cases and benchmark programs of `swift` (what each is for: ../fixtures.ts). */
import type { LanguageFixtures } from '../fixtures.js';

export const fixtures: LanguageFixtures<'swift'> = {
  language: 'swift',
  toolchainMayBeMissing: 'Swift is not in Debian bookworm, and no registry this project reaches has it',
  multiple: {
    id: 'swift',
    row: {
      prompt:
        '\n/// Add two numbers x and y\n/// >>> add(x: 2, y: 3)\n/// 5\n/// >>> add(x: 5, y: 7)\n/// 12\nfunc add(x: Int, y: Int) -> Int {\n',
      tests:
        '}\n\n\nfunc ==(left: [(Int, Int)], right: [(Int, Int)]) -> Bool {\n    if left.count != right.count {\n        return false\n    }\n    for (l, r) in zip(left, right) {\n        if l != r {\n            return false\n        }\n    }\n    return true\n}\n            \nassert(add(x: 0, y: 1) == 1)\nassert(add(x: 1, y: 0) == 1)\nassert(add(x: 2, y: 3) == 5)\nassert(add(x: 5, y: 7) == 12)\nassert(add(x: 7, y: 5) == 12)',
      stop: ['\n}'],
    },
    completions: {
      right: '    return x + y\n}\n\nfunc junk() -> Int { return "kept past a stop token" }\n',
      wrong: '    return x - y\n}\n',
      noncompiling: '    return x + "y"\n}\n',
      hostile: '    while true {}\n}\n',
    },
    hostilePasses: false,
  },
  process: {
    statuses: {
      ok: 'func add(a: Int, b: Int) -> Int { return a + b }\nassert(add(a: 2, b: 3) == 5)\n',
      wrong: 'func add(a: Int, b: Int) -> Int { return a - b }\nassert(add(a: 2, b: 3) == 5)\n',
      broken: 'func add(a: Int, b: Int) -> Int { return a + "b" }\n',
      hangs: 'while true {}\n',
    },
    hostile: ({ port, targets, outputMiB }) => {
      const ports = `[${port}, 7233, 8333]`;
      return {
        loop: 'while true {}',
        spawnBomb:
          'import Foundation\nwhile true { let p = Process(); p.executableURL = URL(fileURLWithPath: "/bin/sleep"); p.arguments = ["100"]; try? p.run() }',
        memoryBomb: 'var a: [[UInt8]] = []\nwhile true { a.append([UInt8](repeating: 1, count: 10 << 20)) }',
        output: `import Foundation\nlet b = Data(repeating: 120, count: 1 << 20)\nfor _ in 0..<${outputMiB} { FileHandle.standardOutput.write(b) }`,
        network: `import Foundation\nfor p in ${ports} {\n    let s = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)\n    var a = sockaddr_in()\n    a.sin_family = sa_family_t(AF_INET)\n    a.sin_port = in_port_t(UInt16(p).bigEndian)\n    a.sin_addr.s_addr = inet_addr("127.0.0.1")\n    let r = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(s, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }\n    print(p, r == 0 ? "CONNECTED" : "refused")\n    close(s)\n}`,
        environment: 'import Foundation\nfor (k, v) in ProcessInfo.processInfo.environment { print("\\(k)=\\(v)") }',
        writeOutside: `import Foundation\nfor p in ${JSON.stringify(targets)} {\n    if FileManager.default.createFile(atPath: p, contents: Data("x".utf8)) { print("WROTE \\(p)") } else { print("refused \\(p)") }\n}`,
        daemon:
          'import Foundation\nlet p = Process()\np.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")\np.arguments = ["/bin/sleep", "30"]\ntry! p.run()\nprint("spawned \\(p.processIdentifier)")',
      };
    },
    wellBehaved: 'assert(1 + 1 == 2)',
    bench: {
      // None: bench-multiple.ts measures only languages whose toolchain is here, and this one's is not installable here.
      rows: [],
      distinct: (i) => `\n// bench program ${i}\n`,
    },
  },
};
