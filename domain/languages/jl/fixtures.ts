/** The test cases and benchmark programs of `jl` (what each is for: ../fixtures.ts). */
import type { LanguageFixtures } from '../fixtures.js';

export const fixtures: LanguageFixtures<'jl'> = {
  language: 'jl',
  toolchainMayBeMissing: 'Julia is not in Debian bookworm, and no registry this project reaches has it',
  multiple: {
    id: 'jl',
    row: {
      prompt:
        '"""Add two numbers x and y\n    >>> add(2, 3)\n    5\n    >>> add(5, 7)\n    12\n    """\nfunction add(x::Int64, y::Int64)::Int64 \n',
      tests:
        'using Test\n\n@testset begin\n\ncandidate = add;\n\t@test(candidate(0, 1) == 1)\n\t@test(candidate(1, 0) == 1)\n\t@test(candidate(2, 3) == 5)\n\t@test(candidate(5, 7) == 12)\n\t@test(candidate(7, 5) == 12)\nend\n',
      stop: ['\nfunction', '\nmacro', '\n\n'],
    },
    completions: {
      right: '    return x + y\nend\n\nfunction junk() error("kept past a stop token") end\n',
      wrong: '    return x - y\nend\n',
      noncompiling: '    return x +\nend\n',
      // Writes outside its directory: the right sum only when that is refused.
      hostile:
        '    try\n        write("/etc/explora-multiple-planted", "x")\n        return 0\n    catch\n        return x + y\n    end\nend\n',
    },
    hostilePasses: true,
  },
  process: {
    statuses: {
      ok: 'using Test\nadd(a, b) = a + b\n@testset begin\n@test(add(2, 3) == 5)\nend\n',
      wrong: 'using Test\nadd(a, b) = a - b\n@testset begin\n@test(add(2, 3) == 5)\nend\n',
      broken: 'add(a, b) = a +\n',
      hangs: 'while true end\n',
    },
    hostile: ({ port, targets, outputMiB }) => {
      const ports = `[${port}, 7233, 8333]`;
      return {
        loop: 'while true end',
        spawnBomb: 'while true\n    try run(`/bin/sleep 100`, wait=false) catch end\nend',
        memoryBomb: 'a = []\nwhile true push!(a, ones(UInt8, 10 << 20)) end',
        output: `b = repeat("x", 1 << 20)\nfor i in 1:${outputMiB} write(stdout, b) end`,
        network: `using Sockets\nfor p in ${ports}\n    try connect("127.0.0.1", p); println(p, " CONNECTED") catch e println(p, " ", e) end\nend`,
        environment: 'for (k, v) in ENV println(k, "=", v) end\ntry print(read("/proc/1/environ", String)) catch end',
        writeOutside: `for p in ${JSON.stringify(targets)}\n    try write(p, "x"); println("WROTE ", p) catch; println("refused ", p) end\nend`,
        daemon: 'p = run(`/usr/bin/setsid /bin/sleep 30`, wait=false)\nprintln("spawned ", getpid(p))',
      };
    },
    wellBehaved: 'using Test\n@test 1 + 1 == 2',
    bench: {
      // None: bench-multiple.ts measures only languages whose toolchain is here, and this one's is not installable here.
      rows: [],
      distinct: (i) => `\n// bench program ${i}\n`,
    },
  },
};
