/**
 * The warm strategies of MultiPL-E's languages (infra/sandbox/warm/*), on the real toolchains in
 * the real jail: MultiPL-E's statuses for a correct, a wrong, a non-compiling and a hanging program
 * per language, the outcomes where a lever could differ from MultiPL-E's way (tsc's type errors,
 * go test's vet, a C++ program without the shared includes, Rust's overflow checks), and the
 * jail's isolation from inside a compiled program.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../domain/execution/types.js';
import { ProcessExecutor } from '../../infra/sandbox/process/processExecutor.js';
import { toolchainFor } from '../../infra/sandbox/process/toolchains/index.js';
import { CppStrategy } from '../../infra/sandbox/warm/compiled.js';
import { warmStrategy, type WarmLanguage } from '../../infra/sandbox/warm/registry.js';
import { slotUid, type WarmStrategy } from '../../infra/sandbox/warm/strategy.js';

const TIMEOUTS = { compileMs: 60_000, runMs: 3_000 };
const slot = { index: 0, uid: slotUid(0) };

interface Case {
  ok: string;
  wrong: string;
  broken: string;
  hangs: string;
}

const JAVA_HEAD = 'import java.util.*;\nimport org.javatuples.*;\nclass Problem {\n';
const GO_HEAD = 'package add_test\n\nimport (\n    "testing"\n    "fmt"\n)\n\n';
const goTest = (body: string, expected: string): string =>
  `${GO_HEAD}func add(a int, b int) int {\n${body}\n}\n\nfunc TestAdd(t *testing.T) {\n  if fmt.Sprintf("%v", add(2, 3)) != fmt.Sprintf("%v", ${expected}) {\n    t.Errorf("expected '%v', got '%v'", ${expected}, add(2, 3))\n  }\n}\n`;

const CASES: Record<WarmLanguage, Case> = {
  js: {
    ok: "const assert = require('node:assert');\nfunction add(a, b) { return a + b; }\nassert.deepEqual(add(2, 3), 5);\n",
    wrong: "const assert = require('node:assert');\nfunction add(a, b) { return a - b; }\nassert.deepEqual(add(2, 3), 5);\n",
    broken: 'function add(a, b) { return a + ; }\n',
    hangs: 'while (true) {}\n',
  },
  ts: {
    ok: "declare var require: any;\nconst assert = require('node:assert');\nfunction add(a: number, b: number): number { return a + b; }\nassert.deepEqual(add(2, 3), 5);\n",
    wrong: "declare var require: any;\nconst assert = require('node:assert');\nfunction add(a: number, b: number): number { return a - b; }\nassert.deepEqual(add(2, 3), 5);\n",
    // Runs fine as JavaScript, but tsc reports a type error: MultiPL-E calls it a SyntaxError.
    broken: "declare var require: any;\nconst assert = require('node:assert');\nfunction add(a: number, b: number): number { return String(a + b); }\nassert.deepEqual(Number(add(2, 3)), 5);\n",
    hangs: 'while (true) {}\n',
  },
  'go_test.go': {
    ok: goTest('  return a + b', '5'),
    wrong: goTest('  return a - b', '5'),
    broken: goTest('  return a + "b"', '5'),
    hangs: goTest('  for {}', '5'),
  },
  rs: {
    ok: 'fn add(a: isize, b: isize) -> isize { a + b }\nfn main() { assert_eq!(add(2, 3), 5); }\n',
    wrong: 'fn add(a: isize, b: isize) -> isize { a - b }\nfn main() { assert_eq!(add(2, 3), 5); }\n',
    broken: 'fn add(a: isize, b: isize) -> isize { a + "b" }\nfn main() { assert_eq!(add(2, 3), 5); }\n',
    hangs: 'fn main() { loop {} }\n',
  },
  java: {
    ok: `${JAVA_HEAD}    public static long add(long a, long b) { return a + b; }\n    public static void main(String[] args) {\n    assert(add(2l, 3l) == 5l);\n    assert(Pair.with(1, 2).getValue1() == 2);\n    }\n}\n`,
    wrong: `${JAVA_HEAD}    public static long add(long a, long b) { return a - b; }\n    public static void main(String[] args) {\n    assert(add(2l, 3l) == 5l);\n    }\n}\n`,
    broken: `${JAVA_HEAD}    public static long add(long a, long b) { return a + "b"; }\n    public static void main(String[] args) {\n    assert(add(2l, 3l) == 5l);\n    }\n}\n`,
    hangs: `${JAVA_HEAD}    public static void main(String[] args) {\n    while (true) {}\n    }\n}\n`,
  },
  cpp: {
    ok: '#include<assert.h>\n#include<bits/stdc++.h>\nlong add(long a, long b) { return a + b; }\nint main() { assert(add(2, 3) == 5); }\n',
    wrong: '#include<assert.h>\n#include<bits/stdc++.h>\nlong add(long a, long b) { return a - b; }\nint main() { assert(add(2, 3) == 5); }\n',
    broken: '#include<assert.h>\n#include<bits/stdc++.h>\nlong add(long a, long b) { return a + ; }\nint main() { assert(add(2, 3) == 5); }\n',
    hangs: '#include<assert.h>\n#include<bits/stdc++.h>\nint main() { volatile int x = 0; while (true) { x++; } }\n',
  },
};

for (const language of Object.keys(CASES) as WarmLanguage[]) {
  describe(`${language}: MultiPL-E's statuses through the warm strategy`, () => {
    let strategy: WarmStrategy;
    beforeAll(async () => {
      strategy = warmStrategy(language, 1);
      await strategy.start();
    });
    afterAll(async () => {
      await strategy?.close();
    });
    const cases = CASES[language];
    it('a correct program: OK', async () => {
      expect((await strategy.evaluate(cases.ok, slot, TIMEOUTS)).status).toBe('OK');
    });
    it('a wrong program: Exception', async () => {
      expect((await strategy.evaluate(cases.wrong, slot, TIMEOUTS)).status).toBe('Exception');
    });
    it('a program that does not compile: SyntaxError, never a pass', async () => {
      expect((await strategy.evaluate(cases.broken, slot, TIMEOUTS)).status).toBe('SyntaxError');
    });
    it('a program that never ends: Timeout', async () => {
      expect((await strategy.evaluate(cases.hangs, slot, TIMEOUTS)).status).toBe('Timeout');
    });
  });
}

describe('where a lever could change an outcome, it does not', () => {
  it("go: a vet finding fails the build, as under go test ([build failed] is MultiPL-E's SyntaxError)", async () => {
    const go = warmStrategy('go_test.go', 1);
    await go.start();
    try {
      const vetFails = goTest('  _ = fmt.Sprintf("%d", "not a number")\n  return a + b', '5');
      expect((await go.evaluate(vetFails, slot, TIMEOUTS)).status).toBe('SyntaxError');
      // A file the direct route does not cover goes through go test itself, with the same rules.
      const testMain = '\nfunc TestMain(m *testing.M) { os.Exit(m.Run()) }\n';
      const withOs = (p: string) => p.replace('"testing"', '"testing"\n    "os"') + testMain;
      const passing = await go.evaluate(withOs(goTest('  return a + b', '5')), slot, TIMEOUTS);
      expect(passing.stdout).toContain('ok');
      expect(passing.status).toBe('OK');
      expect((await go.evaluate(withOs(goTest('  return a - b', '5')), slot, TIMEOUTS)).status).toBe('Exception');
    } finally {
      await go.close();
    }
  });

  it('c++: a program without the shared includes is compiled without the precompiled header (so it fails as under g++)', async () => {
    const cpp = new CppStrategy();
    await cpp.start();
    try {
      // std::vector without any include compiles only if a header was slipped in.
      const noIncludes = 'int main() { std::vector<int> v{1}; return v.size() == 1 ? 0 : 1; }\n';
      expect((await cpp.evaluate(noIncludes, slot, TIMEOUTS)).status).toBe('SyntaxError');
    } finally {
      await cpp.close();
    }
  });

  it("rust: overflow checks stay on (rustc's defaults): an overflow panics", async () => {
    const rs = warmStrategy('rs', 1);
    await rs.start();
    try {
      const overflow = 'fn main() { let x: i32 = std::env::args().count() as i32 + i32::MAX - 1; println!("{}", x + 1); }\n';
      expect((await rs.evaluate(overflow, slot, TIMEOUTS)).status).toBe('Exception');
    } finally {
      await rs.close();
    }
  });

  it("ts: a program that redeclares one of the library's globals gets the whole check", async () => {
    const ts = warmStrategy('ts', 1);
    await ts.start();
    try {
      // Declares `escape`, which lib.es5.d.ts declares too: the merge is checked as tsc checks it.
      const redeclares = 'function escape(s: number): number { return s; }\nconsole.log(escape(1));\n';
      const clean = 'function myEscape(s: number): number { return s; }\nconsole.log(myEscape(1));\n';
      const [a, b] = [await ts.evaluate(redeclares, slot, TIMEOUTS), await ts.evaluate(clean, slot, TIMEOUTS)];
      expect(b.status).toBe('OK');
      expect(a.status).toBe('SyntaxError');
    } finally {
      await ts.close();
    }
  });
});

describe('the jail, from inside a compiled program', () => {
  let cpp: WarmStrategy;
  beforeAll(async () => {
    cpp = warmStrategy('cpp', 1);
    await cpp.start();
  });
  afterAll(async () => {
    await cpp?.close();
  });
  const run = async (body: string) => cpp.evaluate(`#include<assert.h>\n#include<bits/stdc++.h>\n#include <sys/socket.h>\n#include <netinet/in.h>\n#include <arpa/inet.h>\n#include <unistd.h>\nint main() {\n${body}\n}\n`, slot, TIMEOUTS);

  it('no network, loopback included: connecting to a loopback port fails', async () => {
    const r = await run('int s = socket(AF_INET, SOCK_STREAM, 0); sockaddr_in a{}; a.sin_family = AF_INET; a.sin_port = htons(7233); a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);\nint c = connect(s, (sockaddr*)&a, sizeof a); printf("%d %d\\n", c, errno); return c == 0 ? 1 : 0;');
    expect(r.status).toBe('OK');
    expect(r.stdout).toMatch(/^-1 101\n$/); // ENETUNREACH: no interface is up
  });

  it("an empty environment: the worker's variables are not there", async () => {
    process.env.EXPLORA_WARM_SECRET = 'do-not-leak';
    const r = await run('extern char **environ; for (char **e = environ; *e; e++) puts(*e); return getenv("EXPLORA_WARM_SECRET") ? 1 : 0;');
    expect(r.status).toBe('OK');
    expect(r.stdout).not.toContain('do-not-leak');
  });

  it('writes outside its directory fail, and it runs as an unprivileged uid', async () => {
    const r = await run('FILE *f = fopen("/usr/evil", "w"); FILE *g = fopen("/etc/evil", "w"); printf("%d\\n", (int)getuid()); return (f || g) ? 1 : 0;');
    expect(r.status).toBe('OK');
    if (process.getuid?.() === 0) expect(r.stdout.trim()).toBe(String(slot.uid));
  });

  it('a fork bomb is contained by the process limit and ends with its sandbox', async () => {
    const r = await run('for (int i = 0; i < 100000; i++) fork(); sleep(100); return 0;');
    expect(r.status).toBe('Timeout');
  });
});

describe("the warm toolchains behind the process runner's interface (ProcessExecutor)", () => {
  // JavaScript keeps the plain module (nothing to compile, nothing warm).
  for (const language of (Object.keys(CASES) as WarmLanguage[]).filter((l) => l !== 'js')) {
    it(`${language}: correct passes, wrong fails, broken is compile_error`, async () => {
      const executor = new ProcessExecutor(toolchainFor(language), { concurrency: 2, limits: { timeoutMs: 10_000 } });
      try {
        const cases = CASES[language];
        const [ok, wrong, broken] = await executor.runMany([
          { id: 'ok', program: cases.ok },
          { id: 'wrong', program: cases.wrong },
          { id: 'broken', program: cases.broken },
        ]);
        expect(ok!.status, JSON.stringify(ok)).toBe('passed');
        expect(['failed', 'error']).toContain(wrong!.status);
        expect(broken!.status).toBe('compile_error');
      } finally {
        await executor.close();
      }
    });
  }
});

describe('which compile step each warm toolchain takes', () => {
  it('cpp: the precompiled header only for a program that starts with MultiPL-E\'s includes; java and ts: served by a warm compiler', () => {
    const limits = DEFAULT_LIMITS;
    const cpp = toolchainFor('cpp');
    const withIncludes = cpp.compile(limits, CASES.cpp.ok);
    const without = cpp.compile(limits, 'int main() { return 0; }\n');
    expect(withIncludes?.kind === 'sandbox' && withIncludes.argv.includes('-include')).toBe(true);
    expect(without?.kind === 'sandbox' && !without.argv.includes('-include')).toBe(true);
    expect(toolchainFor('java').compile(limits, CASES.java.ok)?.kind).toBe('served');
    expect(toolchainFor('ts').compile(limits, CASES.ts.ok)?.kind).toBe('served');
  });
});
