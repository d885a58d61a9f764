/**
 * MultiPL-E's languages as production runs them: the process runner (ProcessExecutor) over the warm
 * toolchains (`toolchainFor`, infra/sandbox/warm/warmToolchains.ts), on the real toolchains in the real
 * sandbox. Per language, the statuses for a correct, a wrong, a non-compiling and a hanging program
 * (MultiPL-E's OK / Exception / SyntaxError / Timeout are our passed / failed|error / compile_error
 * / timeout), and the outcomes where a lever could differ from MultiPL-E's way (go test's vet, a Go
 * file the direct route does not cover, a C++ program without the shared includes, Rust's overflow
 * checks, tsc's check of a redeclared lib global).
 *
 * The sandbox's isolation from inside a program (no network, loopback included; an empty
 * environment; no writes outside; spawn bombs contained) is test/sandbox/process-hostile.e2e.test.ts,
 * for every one of these languages; here only the uid a compiled program runs as.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, type ExecutionRequest, type ExecutionResult } from '../../domain/execution/types.js';
import { ProcessExecutor } from '../../infra/sandbox/process/processExecutor.js';
import type { ProcessLanguageId } from '../../domain/languages/registry.js';
import { toolchainFor } from '../../infra/sandbox/toolchainRegistry.js';
import { runnableHere, runnableOf } from '../support/multiple-rows.js';

/** Short enough for a hanging program, ample for the others on a loaded machine. */
const HANG_LIMITS = { timeoutMs: 2_000 };
const LIMITS = { timeoutMs: 10_000 };
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

const CASES: Record<ProcessLanguageId, Case> = {
  js: {
    ok: "const assert = require('node:assert');\nfunction add(a, b) { return a + b; }\nassert.deepEqual(add(2, 3), 5);\n",
    wrong: "const assert = require('node:assert');\nfunction add(a, b) { return a - b; }\nassert.deepEqual(add(2, 3), 5);\n",
    broken: 'function add(a, b) { return a + ; }\n',
    hangs: 'while (true) {}\n',
  },
  ts: {
    ok: "declare var require: any;\nconst assert = require('node:assert');\nfunction add(a: number, b: number): number { return a + b; }\nassert.deepEqual(add(2, 3), 5);\n",
    wrong:
      "declare var require: any;\nconst assert = require('node:assert');\nfunction add(a: number, b: number): number { return a - b; }\nassert.deepEqual(add(2, 3), 5);\n",
    // Runs fine as JavaScript, but tsc reports a type error: MultiPL-E calls it a SyntaxError.
    broken:
      "declare var require: any;\nconst assert = require('node:assert');\nfunction add(a: number, b: number): number { return String(a + b); }\nassert.deepEqual(Number(add(2, 3)), 5);\n",
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
    wrong:
      '#include<assert.h>\n#include<bits/stdc++.h>\nlong add(long a, long b) { return a - b; }\nint main() { assert(add(2, 3) == 5); }\n',
    broken:
      '#include<assert.h>\n#include<bits/stdc++.h>\nlong add(long a, long b) { return a + ; }\nint main() { assert(add(2, 3) == 5); }\n',
    hangs: '#include<assert.h>\n#include<bits/stdc++.h>\nint main() { volatile int x = 0; while (true) { x++; } }\n',
  },
  lua: {
    ok: "local function add(a, b) return a + b end\nlu = require('luaunit')\nfunction test_humaneval() lu.assertEquals(add(2, 3), 5) end\nos.exit(lu.LuaUnit.run())\n",
    wrong:
      "local function add(a, b) return a - b end\nlu = require('luaunit')\nfunction test_humaneval() lu.assertEquals(add(2, 3), 5) end\nos.exit(lu.LuaUnit.run())\n",
    broken: 'local function add(a, b) return a + end\n',
    hangs: 'while true do end\n',
  },
  rb: {
    ok: "def add(a, b)\n  a + b\nend\nrequire 'test/unit'\nclass TestHumanEval < Test::Unit::TestCase\n  def test_add\n    assert_equal(5, add(2, 3))\n  end\nend\n",
    wrong:
      "def add(a, b)\n  a - b\nend\nrequire 'test/unit'\nclass TestHumanEval < Test::Unit::TestCase\n  def test_add\n    assert_equal(5, add(2, 3))\n  end\nend\n",
    broken: 'def add(a, b)\n  a +\nend\n',
    hangs: 'loop {}\n',
  },
  php: {
    ok: '<?php\nfunction add($a, $b) { return $a + $b; }\nif (add(2, 3) !== 5) { throw new Exception("Test failed!"); }\n',
    wrong: '<?php\nfunction add($a, $b) { return $a - $b; }\nif (add(2, 3) !== 5) { throw new Exception("Test failed!"); }\n',
    broken: '<?php\nfunction add($a, $b) { return $a + ; }\n',
    hangs: '<?php\nwhile (true) {}\n',
  },
  pl: {
    ok: 'sub add { my($a, $b) = @_; return $a + $b; }\nuse Test::Deep;\nif (eq_deeply(add(2, 3), 5)) { print "ok!" } else { exit 1; }\n',
    wrong: 'sub add { my($a, $b) = @_; return $a - $b; }\nuse Test::Deep;\nif (eq_deeply(add(2, 3), 5)) { print "ok!" } else { exit 1; }\n',
    broken: 'sub add { my($a, $b) = @_; return $a + ; }\n',
    hangs: '1 while 1;\n',
  },
  sh: {
    ok: 'add() {\n    echo $(( $1 + $2 ))\n}\nset -e\n[[ $(add 2 3) = 5 ]]\n',
    wrong: 'add() {\n    echo $(( $1 - $2 ))\n}\nset -e\n[[ $(add 2 3) = 5 ]]\n',
    broken: 'add() {\n    if (( $1 )); then\n}\n',
    hangs: 'while :; do :; done\n',
  },
  r: {
    ok: 'add <- function(a, b) {\n    a + b\n}\nstopifnot(isTRUE(all.equal(add(2, 3), 5)))\n',
    wrong: 'add <- function(a, b) {\n    a - b\n}\nstopifnot(isTRUE(all.equal(add(2, 3), 5)))\n',
    broken: 'add <- function(a, b) {\n    a +\n}\n',
    hangs: 'repeat {}\n',
  },
  rkt: {
    ok: '#lang racket\n(require rackunit)\n(define (add a b) (+ a b))\n(check-within (add 2 3) 5 0.001)\n',
    wrong: '#lang racket\n(require rackunit)\n(define (add a b) (- a b))\n(check-within (add 2 3) 5 0.001)\n',
    broken: '#lang racket\n(define (add a b) (+ a b)\n',
    hangs: '#lang racket\n(let loop () (loop))\n',
  },
  d: {
    ok: 'long add(long a, long b) { return a + b; }\nunittest { assert(add(2, 3) == 5); }\nvoid main(){}\n',
    wrong: 'long add(long a, long b) { return a - b; }\nunittest { assert(add(2, 3) == 5); }\nvoid main(){}\n',
    broken: 'long add(long a, long b) { return a + "b"; }\nvoid main(){}\n',
    hangs: 'void main() { while (true) {} }\n',
  },
  jl: {
    ok: 'using Test\nadd(a, b) = a + b\n@testset begin\n@test(add(2, 3) == 5)\nend\n',
    wrong: 'using Test\nadd(a, b) = a - b\n@testset begin\n@test(add(2, 3) == 5)\nend\n',
    broken: 'add(a, b) = a +\n',
    hangs: 'while true end\n',
  },
  swift: {
    ok: 'func add(a: Int, b: Int) -> Int { return a + b }\nassert(add(a: 2, b: 3) == 5)\n',
    wrong: 'func add(a: Int, b: Int) -> Int { return a - b }\nassert(add(a: 2, b: 3) == 5)\n',
    broken: 'func add(a: Int, b: Int) -> Int { return a + "b" }\n',
    hangs: 'while true {}\n',
  },
  scala: {
    ok: 'object Problem {\n    def add(a : Long, b : Long) : Long = a + b\n    def main(args: Array[String]) = {\n    assert(add(2l, 3l) == 5l);\n    }\n}\n',
    wrong:
      'object Problem {\n    def add(a : Long, b : Long) : Long = a - b\n    def main(args: Array[String]) = {\n    assert(add(2l, 3l) == 5l);\n    }\n}\n',
    broken: 'object Problem {\n    def add(a : Long, b : Long) : Long = a + "b"\n    def main(args: Array[String]) = {}\n}\n',
    hangs: 'object Problem {\n    def main(args: Array[String]) = { while (true) {} }\n}\n',
  },
  cs: {
    ok: 'using System.Diagnostics;\nclass Problem {\n    public static long Add(long a, long b) { return a + b; }\n    public static void Main(string[] args) {\n    Debug.Assert(Add(2L, 3L) == 5L);\n    }\n}\n',
    wrong:
      'using System.Diagnostics;\nclass Problem {\n    public static long Add(long a, long b) { return a - b; }\n    public static void Main(string[] args) {\n    Debug.Assert(Add(2L, 3L) == 5L);\n    }\n}\n',
    broken:
      'class Problem {\n    public static long Add(long a, long b) { return a + "b"; }\n    public static void Main(string[] args) {}\n}\n',
    hangs: 'class Problem {\n    public static void Main(string[] args) { while (true) {} }\n}\n',
  },
};

/** Runs the requests through one executor over the language's production toolchain, then closes it. */
async function runAll(language: ProcessLanguageId, requests: ExecutionRequest[]): Promise<ExecutionResult[]> {
  const executor = new ProcessExecutor(toolchainFor(language), { concurrency: 2, limits: LIMITS });
  try {
    return await executor.runMany(requests);
  } finally {
    await executor.close();
  }
}

const show = (r: ExecutionResult | undefined): string =>
  JSON.stringify({ ...r, stdout: r?.stdout.slice(0, 800), stderr: r?.stderr.slice(0, 800) });

// Where a toolchain may be missing (Julia, Swift: MAY_BE_MISSING), its refusal is tested in test/families/multiple.e2e.test.ts.
for (const language of await runnableOf(Object.keys(CASES) as ProcessLanguageId[])) {
  describe(`${language}: MultiPL-E's statuses through the process runner's warm toolchain`, () => {
    let results: Record<keyof Case, ExecutionResult>;
    beforeAll(async () => {
      const cases = CASES[language];
      const [ok, wrong, broken, hangs] = await runAll(language, [
        { id: 'ok', program: cases.ok },
        { id: 'wrong', program: cases.wrong },
        { id: 'broken', program: cases.broken },
        { id: 'hangs', program: cases.hangs, limits: HANG_LIMITS },
      ]);
      results = { ok: ok!, wrong: wrong!, broken: broken!, hangs: hangs! };
    }, 120_000);
    it('a correct program: passed (OK)', () => {
      expect(results.ok.status, show(results.ok)).toBe('passed');
    });
    it('a wrong program: failed or error (Exception)', () => {
      expect(['failed', 'error'], show(results.wrong)).toContain(results.wrong.status);
    });
    it('a program that does not compile: compile_error (SyntaxError), never a pass', () => {
      expect(results.broken.status, show(results.broken)).toBe('compile_error');
    });
    it('a program that never ends: timeout (Timeout)', () => {
      expect(results.hangs.status, show(results.hangs)).toBe('timeout');
    });
  });
}

describe('where a lever could change an outcome, it does not', () => {
  it("go: a vet finding fails the build, as under go test ([build failed]: compile_error); a file the direct route does not cover gets go test's verdicts", async () => {
    const vetFails = goTest('  _ = fmt.Sprintf("%d", "not a number")\n  return a + b', '5');
    // A TestMain: the direct route leaves it to the plain `go test -c` step, with the same rules.
    const testMain = '\nfunc TestMain(m *testing.M) { os.Exit(m.Run()) }\n';
    const withOs = (p: string) => p.replace('"testing"', '"testing"\n    "os"') + testMain;
    const [vet, passing, failing] = await runAll('go_test.go', [
      { id: 'vet', program: vetFails },
      { id: 'main-ok', program: withOs(goTest('  return a + b', '5')) },
      { id: 'main-wrong', program: withOs(goTest('  return a - b', '5')) },
    ]);
    expect(vet!.status, show(vet)).toBe('compile_error');
    expect(vet!.stderr + vet!.stdout).toMatch(/Sprintf format %d has arg "not a number" of wrong type string/);
    expect(passing!.status, show(passing)).toBe('passed');
    expect(passing!.stdout).toContain('PASS');
    expect(failing!.status, show(failing)).toBe('failed');
    expect(failing!.stdout).toContain('--- FAIL: TestAdd');
  }, 120_000);

  it('c++: a program without the shared includes is compiled without the precompiled header (so it fails as under g++)', async () => {
    // std::vector without any include compiles only if a header was slipped in.
    const noIncludes = 'int main() { std::vector<int> v{1}; return v.size() == 1 ? 0 : 1; }\n';
    const [r] = await runAll('cpp', [{ id: 'no-includes', program: noIncludes }]);
    expect(r!.status, show(r)).toBe('compile_error');
    expect(r!.stderr + r!.stdout).toMatch(/vector/);
  }, 120_000);

  it("rust: overflow checks stay on (rustc's defaults): an overflow panics", async () => {
    const overflow = 'fn main() { let x: i32 = std::env::args().count() as i32 + i32::MAX - 1; println!("{}", x + 1); }\n';
    const [r] = await runAll('rs', [{ id: 'overflow', program: overflow }]);
    expect(['failed', 'error'], show(r)).toContain(r!.status);
    expect(r!.stderr).toMatch(/overflow/);
  }, 120_000);

  it("ts: a program that redeclares one of the library's globals gets the whole check", async () => {
    // Declares `escape`, which lib.es5.d.ts declares too: the merge is checked as tsc checks it.
    const redeclares = 'function escape(s: number): number { return s; }\nconsole.log(escape(1));\n';
    const clean = 'function myEscape(s: number): number { return s; }\nconsole.log(myEscape(1));\n';
    const [a, b] = await runAll('ts', [
      { id: 'redeclares', program: redeclares },
      { id: 'clean', program: clean },
    ]);
    expect(b!.status, show(b)).toBe('passed');
    expect(a!.status, show(a)).toBe('compile_error');
  }, 120_000);
});

describe('the sandbox, from inside a compiled program (the rest: process-hostile.e2e.test.ts)', () => {
  it('runs as an unprivileged uid: its slot uid when the worker is root, never root', async () => {
    const executor = new ProcessExecutor(toolchainFor('cpp'), { concurrency: 2, limits: LIMITS });
    try {
      const program =
        '#include <cstdio>\n#include <unistd.h>\nint main() { printf("%d %d\\n", (int)getuid(), (int)geteuid()); return 0; }\n';
      const r = await executor.run({ id: 'uid', program });
      expect(r.status, show(r)).toBe('passed');
      const [uid, euid] = r.stdout.trim().split(' ').map(Number);
      if (process.getuid?.() === 0) {
        const [lo, hi] = executor.uidRange;
        expect(uid).toBeGreaterThanOrEqual(lo);
        expect(uid).toBeLessThanOrEqual(hi);
      }
      expect(uid).not.toBe(0);
      expect(euid).toBe(uid);
    } finally {
      await executor.close();
    }
  }, 120_000);
});

describe('which compile step each warm toolchain takes', () => {
  it("cpp: the precompiled header only for a program that starts with MultiPL-E's includes; java, ts, scala and cs: served by a warm compiler", async () => {
    const limits = DEFAULT_LIMITS;
    const cpp = toolchainFor('cpp');
    const withIncludes = cpp.compile(limits, CASES.cpp.ok);
    const without = cpp.compile(limits, 'int main() { return 0; }\n');
    expect(withIncludes?.kind === 'sandbox' && withIncludes.argv.includes('-include')).toBe(true);
    expect(without?.kind === 'sandbox' && !without.argv.includes('-include')).toBe(true);
    expect(toolchainFor('java').compile(limits, CASES.java.ok)?.kind).toBe('served');
    expect(toolchainFor('ts').compile(limits, CASES.ts.ok)?.kind).toBe('served');
    // scala: served once scripts/install-warm-compilers.sh has built the server (the test setup runs it).
    if (await runnableHere('scala')) expect(toolchainFor('scala').compile(limits, CASES.scala.ok)?.kind).toBe('served');
    if (await runnableHere('cs')) expect(toolchainFor('cs').compile(limits, CASES.cs.ok)?.kind).toBe('served');
  });
});

/** Processes under this one whose command line holds `marker` (the jail's bwrap and what it runs). */
function descendantsWith(marker: string): number[] {
  const parent = new Map<number, number>();
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      // The parent pid is the second field after the parenthesised command name.
      parent.set(pid, Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]));
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker)) found.push(pid);
    } catch {
      // gone meanwhile
    }
  }
  const under = (pid: number): boolean => {
    for (let p = parent.get(pid); p !== undefined && p > 1; p = parent.get(p)) if (p === process.pid) return true;
    return false;
  };
  return found.filter(under);
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 600 && !condition(); i++) await new Promise((r) => setTimeout(r, 100));
  if (!condition()) throw new Error(`never: ${what}`);
}

describe('warm compilers start with the runner, not at its first program', () => {
  for (const [language, marker] of [
    ['ts', 'tscServer.cjs'],
    ['java', 'JavacServer'],
  ] as const) {
    it(`${language}: start() starts ${marker} before any program is sent; close() stops it; programs still get their outcomes`, async () => {
      const executor = new ProcessExecutor(toolchainFor(language), { concurrency: 2, limits: LIMITS });
      try {
        expect(descendantsWith(marker)).toEqual([]);
        await executor.start();
        await until(() => descendantsWith(marker).length > 0, `${marker} running after start()`);
        const [ok, broken] = await executor.runMany([
          { id: 'ok', program: CASES[language].ok },
          { id: 'broken', program: CASES[language].broken },
        ]);
        expect(ok!.status, show(ok)).toBe('passed');
        expect(broken!.status, show(broken)).toBe('compile_error');
      } finally {
        await executor.close();
      }
      await until(() => descendantsWith(marker).length === 0, `${marker} gone after close()`);
    }, 120_000);
  }
});
