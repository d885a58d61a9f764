/** The test cases and benchmark programs of `cpp` (what each is for: ../fixtures.ts). */
import type { LanguageFixtures } from '../fixtures.js';

const cpp = (body: string) =>
  `#include <bits/stdc++.h>\n#include <unistd.h>\n#include <sys/socket.h>\n#include <netinet/in.h>\n#include <arpa/inet.h>\nextern char **environ;\nint main() {\n${body}\n}\n`;

export const fixtures: LanguageFixtures<'cpp'> = {
  language: 'cpp',
  multiple: {
    id: 'cpp',
    row: {
      prompt:
        '#include<assert.h>\n#include<bits/stdc++.h>\n// Add two numbers x and y\n// >>> add((2), (3))\n// (5)\n// >>> add((5), (7))\n// (12)\nlong add(long x, long y) {\n',
      tests:
        '}\nint main() {\n    auto candidate = add;\n    assert(candidate((0), (1)) == (1));\n    assert(candidate((1), (0)) == (1));\n    assert(candidate((2), (3)) == (5));\n    assert(candidate((5), (7)) == (12));\n    assert(candidate((7), (5)) == (12));\n}\n',
      stop: ['\n}'],
    },
    completions: {
      right: '    return x + y;\n}\nint junk() { return "kept past a stop token"; }\n',
      wrong: '    return x - y;\n}\n',
      noncompiling: '    return x + "y" + nope;\n}\n',
      // Leaves a daemon behind (a new session, sleeping): it must die with the program.
      hostile: '    std::system("setsid sleep 31 > /dev/null 2>&1 &");\n    return x + y;\n}\n',
    },
    hostilePasses: true,
  },
  process: {
    statuses: {
      ok: '#include<assert.h>\n#include<bits/stdc++.h>\nlong add(long a, long b) { return a + b; }\nint main() { assert(add(2, 3) == 5); }\n',
      wrong:
        '#include<assert.h>\n#include<bits/stdc++.h>\nlong add(long a, long b) { return a - b; }\nint main() { assert(add(2, 3) == 5); }\n',
      broken:
        '#include<assert.h>\n#include<bits/stdc++.h>\nlong add(long a, long b) { return a + ; }\nint main() { assert(add(2, 3) == 5); }\n',
      hangs: '#include<assert.h>\n#include<bits/stdc++.h>\nint main() { volatile int x = 0; while (true) { x++; } }\n',
    },
    hostile: ({ port, targets, outputMiB }) => {
      const ports = `[${port}, 7233, 8333]`;
      return {
        loop: cpp('    volatile long i = 0;\n    while (true) i++;'),
        spawnBomb: cpp('    while (true) fork();'),
        memoryBomb: cpp('    std::vector<std::vector<char>> v;\n    while (true) v.emplace_back(10 << 20, 1);'),
        output: cpp(`    std::string b(1 << 20, 'x');\n    for (int i = 0; i < ${outputMiB}; i++) fwrite(b.data(), 1, b.size(), stdout);`),
        network: cpp(
          `    for (int p : ${ports.replace('[', '{').replace(']', '}')}) {\n        int s = socket(AF_INET, SOCK_STREAM, 0);\n        sockaddr_in a{}; a.sin_family = AF_INET; a.sin_port = htons(p); inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);\n        if (connect(s, (sockaddr*)&a, sizeof a) == 0) printf("%d CONNECTED\\n", p); else printf("%d %s\\n", p, strerror(errno));\n        close(s);\n    }`,
        ),
        environment: cpp(
          '    for (char **e = environ; *e; e++) puts(*e);\n    std::ifstream f("/proc/1/environ"); std::string s((std::istreambuf_iterator<char>(f)), {}); puts(s.c_str());',
        ),
        writeOutside: cpp(
          `    for (const char *p : {${targets.map((t) => JSON.stringify(t)).join(', ')}}) {\n        FILE *f = fopen(p, "w");\n        if (f) { fputs("x", f); fclose(f); printf("WROTE %s\\n", p); } else printf("refused %s\\n", p);\n    }`,
        ),
        daemon: cpp(
          '    pid_t c = fork();\n    if (c == 0) { setsid(); execl("/bin/sleep", "sleep", "30", (char*)0); _exit(1); }\n    printf("spawned %d\\n", c);',
        ),
      };
    },
    wellBehaved: '#include <cassert>\nint main() { assert(1 + 1 == 2); }',
    bench: {
      rows: [
        {
          name: 'HumanEval_23_strlen',
          prompt:
            '#include<assert.h>\n#include<bits/stdc++.h>\n// Return length of given string\n// >>> string_length((""))\n// (0)\n// >>> string_length(("abc"))\n// (3)\nlong string_length(std::string string) {\n',
          completion: '    return string.size();\n',
          tests:
            '}\nint main() {\n    auto candidate = string_length;\n    assert(candidate(("")) == (0));\n    assert(candidate(("x")) == (1));\n    assert(candidate(("asdasnakj")) == (9));\n}\n',
        },
        {
          name: 'HumanEval_13_greatest_common_divisor',
          prompt:
            '#include<assert.h>\n#include<bits/stdc++.h>\n// Return a greatest common divisor of two integers a and b\n// >>> greatest_common_divisor((3), (5))\n// (1)\n// >>> greatest_common_divisor((25), (15))\n// (5)\nlong greatest_common_divisor(long a, long b) {\n',
          completion: '    while (b != 0) { long t = a % b; a = b; b = t; }\n    return a;\n',
          tests:
            '}\nint main() {\n    auto candidate = greatest_common_divisor;\n    assert(candidate((3), (7)) == (1));\n    assert(candidate((10), (15)) == (5));\n    assert(candidate((49), (14)) == (7));\n    assert(candidate((144), (60)) == (12));\n}\n',
        },
        {
          name: 'HumanEval_30_get_positive',
          prompt:
            '#include<assert.h>\n#include<bits/stdc++.h>\n// Return only positive numbers in the vector.\n// >>> get_positive((std::vector<long>({(long)-1, (long)2, (long)-4, (long)5, (long)6})))\n// (std::vector<long>({(long)2, (long)5, (long)6}))\n// >>> get_positive((std::vector<long>({(long)5, (long)3, (long)-5, (long)2, (long)-3, (long)3, (long)9, (long)0, (long)123, (long)1, (long)-10})))\n// (std::vector<long>({(long)5, (long)3, (long)2, (long)3, (long)9, (long)123, (long)1}))\nstd::vector<long> get_positive(std::vector<long> l) {\n',
          completion: '    std::vector<long> out;\n    for (long e : l) if (e > 0) out.push_back(e);\n    return out;\n',
          tests:
            '}\nint main() {\n    auto candidate = get_positive;\n    assert(candidate((std::vector<long>({(long)-1, (long)-2, (long)4, (long)5, (long)6}))) == (std::vector<long>({(long)4, (long)5, (long)6})));\n    assert(candidate((std::vector<long>({(long)5, (long)3, (long)-5, (long)2, (long)3, (long)3, (long)9, (long)0, (long)123, (long)1, (long)-10}))) == (std::vector<long>({(long)5, (long)3, (long)2, (long)3, (long)3, (long)9, (long)123, (long)1})));\n    assert(candidate((std::vector<long>({(long)-1, (long)-2}))) == (std::vector<long>()));\n    assert(candidate((std::vector<long>())) == (std::vector<long>()));\n}\n',
        },
      ],
      distinct: (i) => `\n// bench program ${i}\n`,
      lever: 'g++ without the PCH',
    },
  },
};
