/**
 * Go programs compiled in batches (ProcessExecutor.runMany, and run() calls waiting for a slot, with the warm Go toolchain's
 * compileBatch: one test main and one link for several programs, each program then run alone in
 * its own sandbox), on the real go toolchain and the real sandbox. Every program's outcome must be
 * the one it gets compiled and run alone (ProcessExecutor.run): passing, failing, panicking,
 * non-compiling, vet-failing, hostile, two programs defining the same names, programs whose
 * package would run code or weigh in another's binary (init work, big data).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutionResult } from '../../domain/execution/types.js';
import { ProcessExecutor } from '../../infra/sandbox/process/processExecutor.js';
import { toolchainFor } from '../../infra/sandbox/toolchainRegistry.js';
import { GoDirectRoute } from '../../infra/sandbox/warm/go.js';
import { WARM_TOOLS_DIR } from '../../infra/sandbox/process/toolchains/common.js';

const LIMITS = { timeoutMs: 4_000, maxProcesses: 16, maxOutputBytes: 8192, memoryBytes: 512 * 1024 * 1024 };

const test = (pkg: string, imports: string[], body: string, extra = ''): string =>
  `package ${pkg}_test\n\nimport (\n${['testing', ...imports].map((i) => `\t"${i}"`).join('\n')}\n)\n${extra}\nfunc TestIt(t *testing.T) {\n${body}\n}\n`;

/** MultiPL-E's shape: a candidate function and a table of cases, here both programs name it `add`. */
const add = (pkg: string, expr: string): string =>
  test(
    pkg,
    ['fmt'],
    `\tcandidate := add\n\tfor i, tc := range []struct{ a, b, want int }{{1, 2, 3}, {2, 2, 4}} {\n\t\tt.Run(fmt.Sprintf("test num % d", i), func(t *testing.T) {\n\t\t\tif got := candidate(tc.a, tc.b); got != tc.want {\n\t\t\t\tt.Errorf("expected '%d', got '%d'", tc.want, got)\n\t\t\t}\n\t\t})\n\t}`,
    `\nfunc add(a int, b int) int {\n\treturn ${expr}\n}\n`,
  );

const PROGRAMS: Record<string, string> = {
  passing: add('add', 'a + b'),
  // Same package name, same function names, different body: each must run its own.
  failingSameNames: add('add', 'a * b'),
  panicking: test('p', [], '\tvar m map[string]int\n\tm["x"] = 1'),
  indexPanic: test('q', [], '\ts := []int{1}\n\ti := 3\n\t_ = s[i]'),
  notCompiling: test('c', [], '\tx := undefinedName + 1\n\t_ = x'),
  // go test's vet subset: a Printf with a wrong verb fails the build.
  vetFailing: test('v', ['fmt'], '\tfmt.Printf("%d\\n", "text")'),
  // Package-level initialisation by code: in a shared binary it would run for every program.
  initExit: test('i', ['os'], '\t_ = exitCode', '\nvar exitCode = func() int { os.Exit(0); return 0 }()\n'),
  initFunc: test('j', ['fmt'], '\tt.Fatal("its own test fails")', '\nfunc init() { fmt.Println("init ran") }\n'),
  // A big zeroed array: mapped by every run of a shared binary.
  bigData: test('b', [], '\tbig[1] = 1\n\tif big[1] != 1 {\n\t\tt.Fatal("no")\n\t}', '\nvar big [64 << 20]byte\n'),
  loop: test('l', [], '\tfor {\n\t}'),
  writesAndPrints: test(
    'w',
    ['fmt', 'os'],
    '\tif err := os.WriteFile("/build/x", []byte("x"), 0644); err == nil {\n\t\tt.Fatal("wrote the build directory")\n\t}\n\tfmt.Println(len(os.Args), "args")',
  ),
  usesUnsafe: test('u', ['unsafe'], '\tvar x int\n\tif unsafe.Sizeof(x) != 8 {\n\t\tt.Fatal(unsafe.Sizeof(x))\n\t}'),
  passingToo: test('z', ['strings'], '\tif strings.ToUpper("a") != "A" {\n\t\tt.Fatal("no")\n\t}'),
};
const NAMES = Object.keys(PROGRAMS);

let batched: ProcessExecutor;
let lone: ProcessExecutor;
const inBatch = new Map<string, ExecutionResult>();
const alone = new Map<string, ExecutionResult>();

beforeAll(async () => {
  // One slot: the runner spreads batches over its slots, and here every program is to be in one batch.
  batched = new ProcessExecutor(toolchainFor('go_test.go'), { concurrency: 1, limits: LIMITS, batchSize: NAMES.length });
  lone = new ProcessExecutor(toolchainFor('go_test.go'), { concurrency: 2, limits: LIMITS, batchSize: 1 });
  await Promise.all([batched.start(), lone.start()]);
  const requests = NAMES.map((name) => ({ id: name, program: PROGRAMS[name]! }));
  for (const r of await batched.runMany(requests)) inBatch.set(r.id, r);
  for (const r of await lone.runMany(requests)) alone.set(r.id, r);
}, 240_000);

afterAll(async () => {
  await Promise.all([batched?.close(), lone?.close()]);
});

/** What must not differ between a batch and a lone build: test durations and goroutine addresses aside. */
function comparable(r: ExecutionResult) {
  const clean = (text: string) => text.replace(/\(\d+\.\d+s\)/g, '(T)').replace(/\bok\s+\S+\s+\S+s/g, 'ok');
  return {
    status: r.status,
    exitCode: r.exitCode,
    signal: r.signal,
    exception: r.exception ? { type: r.exception.type, message: clean(r.exception.message) } : undefined,
    stdout: r.status === 'error' ? undefined : clean(r.stdout),
  };
}

describe('Go programs compiled in one batch', () => {
  it.each(NAMES)('%s: the outcome it gets alone', (name) => {
    const b = inBatch.get(name)!;
    const a = alone.get(name)!;
    expect(comparable(b), JSON.stringify({ batch: b, alone: a }, null, 1)).toEqual(comparable(a));
  });

  it('the outcomes are the expected ones', () => {
    const status = (name: string) => inBatch.get(name)!.status;
    expect(status('passing')).toBe('passed');
    expect(status('failingSameNames')).toBe('failed');
    expect(inBatch.get('failingSameNames')!.exception?.message).toContain("expected '3', got '2'");
    expect(status('panicking')).toBe('error');
    expect(inBatch.get('panicking')!.exception?.message).toContain('assignment to entry in nil map');
    expect(status('indexPanic')).toBe('error');
    expect(status('notCompiling')).toBe('compile_error');
    expect(inBatch.get('notCompiling')!.exception?.message).toContain('undefined: undefinedName');
    expect(status('vetFailing')).toBe('compile_error');
    expect(inBatch.get('vetFailing')!.exception?.message).toMatch(/Printf format %d has arg "text" of wrong type string/);
    expect(status('initExit')).toBe('passed');
    expect(status('initFunc')).toBe('failed');
    expect(inBatch.get('initFunc')!.stdout).toContain('init ran');
    expect(status('bigData')).toBe('passed');
    expect(status('loop')).toBe('timeout');
    expect(status('writesAndPrints')).toBe('passed');
    expect(status('usesUnsafe')).toBe('passed');
    expect(status('passingToo')).toBe('passed');
  });

  it('a panic names the file and line a lone build names', () => {
    const b = inBatch.get('panicking')!;
    expect(b.stdout + b.stderr).toMatch(/\/build\/program_test\.go:\d+/);
  });

  it('the programs that fit shared one link; the others were built alone', () => {
    // The shared binary's first argument picks the program: a program printing its arguments sees a lone one's.
    expect(inBatch.get('writesAndPrints')!.stdout).toContain('1 args');
    // Built in the batch: its compile time is a share of the batch's.
    const shared = ['passing', 'failingSameNames', 'panicking', 'passingToo'].map((n) => inBatch.get(n)!.compileMs);
    expect(new Set(shared).size, JSON.stringify(shared)).toBe(1);
    const own = ['initExit', 'initFunc', 'bigData', 'usesUnsafe'].map((n) => inBatch.get(n)!.compileMs);
    expect(
      own.every((ms) => ms !== shared[0]),
      JSON.stringify({ shared, own }),
    ).toBe(true);
  });

  it('leaves no process of a sample uid and no build directory behind', () => {
    const [lo, hi] = batched.uidRange;
    const left = readdirSync('/proc').filter((e) => {
      if (!/^\d+$/.test(e)) return false;
      try {
        const uid = statSync(`/proc/${e}`).uid;
        return uid >= lo && uid <= hi;
      } catch {
        return false;
      }
    });
    expect(left).toEqual([]);
    for (const r of inBatch.values()) expect(r.survivors ?? 0).toBe(0);
  });
});

describe('one `run` at a time, as a sweep calls it', () => {
  it('requests waiting for a busy slot are compiled together, each with its lone outcome', async () => {
    // One slot: the requests made together queue, then form one batch.
    const executor = new ProcessExecutor(toolchainFor('go_test.go'), { concurrency: 1, limits: LIMITS });
    try {
      const names = NAMES.filter((n) => n !== 'loop');
      const results = await Promise.all(names.map((name) => executor.run({ id: name, program: PROGRAMS[name]! })));
      for (const r of results) expect(comparable(r), r.id).toEqual(comparable(alone.get(r.id)!));
      const shared = ['failingSameNames', 'panicking', 'passingToo'].map((n) => results.find((r) => r.id === n)!.compileMs);
      expect(new Set(shared).size, JSON.stringify(shared)).toBe(1);
    } finally {
      await executor.close();
    }
  }, 120_000);
});

describe('batch sizes', () => {
  it('a batch size of 3 splits 7 programs into batches of 2, 2 and 3; results come back in order', async () => {
    const executor = new ProcessExecutor(toolchainFor('go_test.go'), { concurrency: 2, limits: LIMITS, batchSize: 3 });
    try {
      const programs = Array.from({ length: 7 }, (_, i) => ({ id: `n${i}`, program: add('add', i % 2 ? 'a + b' : 'a - b') }));
      const results = await executor.runMany(programs);
      expect(results.map((r) => r.id)).toEqual(programs.map((p) => p.id));
      expect(results.map((r) => r.status)).toEqual(programs.map((_, i) => (i % 2 ? 'passed' : 'failed')));
    } finally {
      await executor.close();
    }
  }, 120_000);
});

describe("what Go's direct route prepares once per Go installation", () => {
  it('start() keeps the std list and its nm build under .tools for the next run; a route that finds them batches', async () => {
    const first = new GoDirectRoute();
    await first.start();
    await first.close();
    const kept = readdirSync(join(WARM_TOOLS_DIR, 'go-direct')).map((d) => join(WARM_TOOLS_DIR, 'go-direct', d));
    const dir = kept.find((d) => existsSync(join(d, 'std.txt')) && existsSync(join(d, 'explora-nm')));
    expect(dir, `in ${kept.join(', ')}`).toBeDefined();
    expect(readFileSync(join(dir!, 'std.txt'), 'utf8').split('\n')).toEqual(expect.arrayContaining(['fmt', 'testing', 'net/http']));
    const second = new GoDirectRoute();
    try {
      await second.start();
      expect(second.batches).toBe(true);
    } finally {
      await second.close();
    }
  }, 120_000);
});
