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
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, type ExecutionRequest, type ExecutionResult } from '../../domain/execution/types.js';
import { ProcessExecutor } from '../../infra/sandbox/process/processExecutor.js';
import type { StatusPrograms } from '../../domain/languages/fixtures.js';
import { isProcessLanguageId, LANGUAGES, type ProcessLanguageId } from '../../domain/languages/registry.js';
import { toolchainFor } from '../../infra/sandbox/toolchainRegistry.js';
import { processFixturesOf } from '../support/language-fixtures.js';
import { runnableHere, runnableOf } from '../support/multiple-rows.js';
import { describeStatusesTogether, runWith, show } from '../support/status-suite.js';

/** Short enough for a hanging program, ample for the others on a loaded machine. */
const HANG_LIMITS = { timeoutMs: 2_000 };
/**
 * Ample for a program that ends by itself (a JVM's start among every language's at once on two
 * loaded cores): it only bounds a program that would not end, and those use HANG_LIMITS.
 */
const LIMITS = { timeoutMs: 30_000 };
/** Each process-run language's programs for the four statuses, from its folder (domain/languages/<folder>/fixtures.ts). */
const CASES = (id: ProcessLanguageId): StatusPrograms => processFixturesOf(id).statuses;
const PROCESS_LANGUAGES = Object.keys(LANGUAGES).filter(isProcessLanguageId);

/** Runs the requests through one executor over the language's production toolchain, then closes it. */
const runAll = (language: ProcessLanguageId, requests: ExecutionRequest[]): Promise<ExecutionResult[]> =>
  runWith(toolchainFor(language), requests, LIMITS);

const GO_HEAD = 'package add_test\n\nimport (\n    "testing"\n    "fmt"\n)\n\n';
/** A Go test file as MultiPL-E's (domain/languages/go/fixtures.ts builds its statuses the same way). */
const goTest = (body: string, expected: string): string =>
  `${GO_HEAD}func add(a int, b int) int {\n${body}\n}\n\nfunc TestAdd(t *testing.T) {\n  if fmt.Sprintf("%v", add(2, 3)) != fmt.Sprintf("%v", ${expected}) {\n    t.Errorf("expected '%v', got '%v'", ${expected}, add(2, 3))\n  }\n}\n`;

// Where a toolchain may be missing (Julia, Swift: MAY_BE_MISSING), its refusal is tested in test/families/multiple.e2e.test.ts.
// Every language at once (an executor each), and beside the cases below up to the warm compilers'
// (which count the compiler servers under this process): they mostly wait, on toolchain starts
// and on the hanging programs' time limits.
const RUNNABLE = await runnableOf(PROCESS_LANGUAGES);
describe.concurrent("every language's statuses, side by side", () => {
  describeStatusesTogether(
    RUNNABLE.map((language) => ({ language, toolchain: toolchainFor(language), programs: CASES(language) })),
    LIMITS,
    HANG_LIMITS,
  );
});

describe.concurrent('where a lever could change an outcome, it does not', () => {
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

describe.concurrent('the sandbox, from inside a compiled program (the rest: process-hostile.e2e.test.ts)', () => {
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

describe.concurrent('which compile step each warm toolchain takes', () => {
  it("cpp: the precompiled header only for a program that starts with MultiPL-E's includes; java, ts, scala and cs: served by a warm compiler", async () => {
    const limits = DEFAULT_LIMITS;
    const cpp = toolchainFor('cpp');
    const withIncludes = cpp.compile(limits, CASES('cpp').ok);
    const without = cpp.compile(limits, 'int main() { return 0; }\n');
    expect(withIncludes?.kind === 'sandbox' && withIncludes.argv.includes('-include')).toBe(true);
    expect(without?.kind === 'sandbox' && !without.argv.includes('-include')).toBe(true);
    expect(toolchainFor('java').compile(limits, CASES('java').ok)?.kind).toBe('served');
    expect(toolchainFor('ts').compile(limits, CASES('ts').ok)?.kind).toBe('served');
    // scala: served once scripts/install-warm-compilers.sh has built the server (the test setup runs it).
    if (await runnableHere('scala')) expect(toolchainFor('scala').compile(limits, CASES('scala').ok)?.kind).toBe('served');
    if (await runnableHere('cs')) expect(toolchainFor('cs').compile(limits, CASES('cs').ok)?.kind).toBe('served');
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

// Alone, after the rest: no other case's compiler server may be under this process meanwhile.
describe.sequential('warm compilers start with the runner, not at its first program', () => {
  for (const [language, marker] of [
    ['ts', 'tscServer.cjs'],
    ['java', 'JavacServer'],
    ['cs', 'McsServer'],
  ] as const) {
    it(`${language}: start() starts ${marker} before any program is sent; close() stops it; programs still get their outcomes`, async () => {
      const executor = new ProcessExecutor(toolchainFor(language), { concurrency: 2, limits: LIMITS });
      try {
        expect(descendantsWith(marker)).toEqual([]);
        await executor.start();
        await until(() => descendantsWith(marker).length > 0, `${marker} running after start()`);
        const [ok, broken] = await executor.runMany([
          { id: 'ok', program: CASES(language).ok },
          { id: 'broken', program: CASES(language).broken },
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
