/**
 * Several D programs per ldc2 call (infra/sandbox/warm/dBatch.ts through the process runner's
 * runMany and queued run calls), on the real ldc2 and the real sandbox: every program's result —
 * status, exit code, signal, stdout, stderr, exception — must be exactly what the same program gives
 * compiled and run alone (batchSize 1, no fork server), side by side, whatever else shares its batch: correct programs,
 * failing asserts (druntime's short `[unittest]` line), a throwable's trace (its frames; only the
 * addresses differ between any two runs, lone ones too), compile errors of several phases, a
 * program without unittests, refused ones (a class, a static constructor, a main that runs), an
 * exit code, a timeout, and a program printing what it can see of itself (its locations, its build
 * directory, its command line).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutionRequest, ExecutionResult } from '../../domain/execution/types.js';
import type { Toolchain } from '../../infra/sandbox/process/contract.js';
import { ProcessExecutor } from '../../infra/sandbox/process/processExecutor.js';
import { toolchainFor } from '../../infra/sandbox/toolchainRegistry.js';
import { blameLdc, refusal } from '../../infra/sandbox/warm/dBatch.js';
import { processFixturesOf } from '../support/language-fixtures.js';

const rows = processFixturesOf('d').bench.rows;
const multiple = rows.map((r) => `${r.prompt}${r.completion}\n${r.tests}`);
const unittest = (body: string, head = '') => `${head}long add(long a, long b) { return a + b; }\nunittest\n{\n${body}\n}\nvoid main(){}\n`;

const PROGRAMS: Record<string, string> = {
  correct0: multiple[0]!,
  correct1: multiple[1]!,
  correct2: multiple[2]!,
  failedAssert: unittest('    assert(add(2, 3) == 6);'),
  failedAssertMessage: unittest('    import std.stdio;\n    writeln("before");\n    assert(add(2, 3) == 6, "sums differ");'),
  thrown: unittest('    throw new Exception("boom");'),
  rangeError: unittest('    long[] a = [1, 2];\n    size_t i = 5;\n    assert(a[i] == 0);'),
  typeError: unittest('    long x = "text";\n    assert(x == 1);'),
  parseError: unittest('    long x = ;'),
  templateError: unittest('    import std.conv;\n    assert(to!long("1", "x") == 1);', 'import std.conv;\n'),
  noUnittest: 'long add(long a, long b) { return a + b; }\nvoid main(){}\n',
  aClass: unittest('    auto c = new C;\n    import std.stdio;\n    writeln(c);\n    assert(false);', 'class C {}\n'),
  staticConstructor: unittest('    assert(add(1, 1) == 2);', 'import std.stdio;\nstatic this() { writeln("constructed"); }\n'),
  mainRuns: 'import std.stdio;\nvoid main() { writeln("main ran"); }\n',
  exitCode: unittest(
    '    import core.stdc.stdlib : exit;\n    import std.stdio;\n    write("partial");\n    stdout.flush();\n    exit(3);',
  ),
  loop: unittest('    long i = 0;\n    while (true) i++;'),
  tuples: unittest(
    '    import std.typecons, std.algorithm, std.array;\n    auto t = tuple(add(1, 2), [3L, 1L, 2L].sort().array);\n    assert(t[0] == 3 && t[1] == [1L, 2L, 3L]);',
  ),
  selfInspecting: unittest(
    [
      '    import std.stdio, std.file, std.algorithm, std.array;',
      '    writeln("file ", __FILE__, " line ", __LINE__, " full ", __FILE_FULL_PATH__);',
      '    writeln("build ", dirEntries("/build", SpanMode.shallow).map!(e => e.name).array.sort().array);',
      '    writeln("cmdline ", cast(string) read("/proc/self/cmdline"));',
      '    writeln("source starts ", readText("/build/program.d")[0 .. 15]);',
      '    assert(add(1, 1) == 3, "self");',
    ].join('\n'),
  ),
};

// One set of limits for all: batches hold programs with the same limits.
const LIMITS = { timeoutMs: 3_000 };
const requests: ExecutionRequest[] = Object.entries(PROGRAMS).map(([id, program]) => ({ id, program, limits: LIMITS }));

/** What a user sees of a result (everything but timings); a trace's addresses differ between any two runs. */
function seen(r: ExecutionResult) {
  const addresses = (text: string | undefined) => text?.replace(/0x[0-9a-f]+/g, '0x…');
  return {
    id: r.id,
    status: r.status,
    exitCode: r.exitCode,
    signal: r.signal,
    stdout: addresses(r.stdout),
    stderr: addresses(r.stderr),
    exception: r.exception && { ...r.exception, message: addresses(r.exception.message), traceback: addresses(r.exception.traceback) },
    survivors: r.survivors ?? 0,
  };
}

/** D's real toolchain, counting what its batches answered (batches built, programs built, programs sent alone). */
function counted(): { toolchain: Toolchain; counts: { batches: number; built: number; alone: number } } {
  const real = toolchainFor('d');
  const counts = { batches: 0, built: 0, alone: 0 };
  const compileBatch = real.compileBatch!;
  const toolchain: Toolchain = {
    ...real,
    compileBatch: (limits, programs) => {
      const batch = compileBatch(limits, programs);
      if (!batch) return batch;
      return {
        build: async (dir) => {
          const outcomes = await batch.build(dir);
          counts.batches++;
          for (const o of outcomes) counts[o.kind === 'built' ? 'built' : 'alone']++;
          return outcomes;
        },
      };
    },
  };
  return { toolchain, counts };
}

let batched: ProcessExecutor;
let queued: ProcessExecutor;
let lone: ProcessExecutor;
/** Each program's result compiled alone (batchSize 1: one ldc2 call per program). */
let alone: ExecutionResult[];
/** The same programs through runMany's batches. */
let together: ExecutionResult[];
/** The same programs as run() calls that wait for the one slot. */
let queuedResults: ExecutionResult[];

const batchedCounts = counted();
const queuedCounts = counted();
const loneCounts = counted();

beforeAll(async () => {
  batched = new ProcessExecutor(batchedCounts.toolchain, { concurrency: 2, batchSize: 32 });
  queued = new ProcessExecutor(queuedCounts.toolchain, { concurrency: 1, batchSize: 32 });
  // The lone path in full: its own compile, and a sandbox of its own for the run (no fork server).
  lone = new ProcessExecutor(loneCounts.toolchain, { concurrency: 2, batchSize: 1, forkServer: false });
  await Promise.all([batched.start(), queued.start(), lone.start()]);
  // The three runners side by side: each waits on ldc2 calls and on the loop's time limit.
  [alone, together, queuedResults] = await Promise.all([
    lone.runMany(requests),
    batched.runMany(requests),
    Promise.all(requests.map((r) => queued.run(r))),
  ]);
  expect(loneCounts.counts.batches).toBe(0);
}, 240_000);

afterAll(async () => {
  await Promise.all([batched?.close(), queued?.close(), lone?.close()]);
});

describe('D programs compiled several per ldc2 call', () => {
  it('give each program exactly the result it gets compiled alone, compile errors mixed in', () => {
    for (let i = 0; i < requests.length; i++) expect(seen(together[i]!), requests[i]!.id).toEqual(seen(alone[i]!));
    const status = Object.fromEntries(together.map((r) => [r.id, r.status]));
    expect(status).toMatchObject({
      correct0: 'passed',
      correct1: 'passed',
      correct2: 'passed',
      failedAssert: 'failed',
      // druntime prints an assert's own message in place of "Assertion failure": classifyD's error, alone too.
      failedAssertMessage: 'error',
      thrown: 'error',
      rangeError: 'error',
      typeError: 'compile_error',
      parseError: 'compile_error',
      templateError: 'compile_error',
      noUnittest: 'passed',
      aClass: 'failed',
      staticConstructor: 'passed',
      mainRuns: 'passed',
      exitCode: 'error',
      loop: 'timeout',
      tuples: 'passed',
      selfInspecting: 'error',
    });
    const byId = (id: string) => together.find((r) => r.id === id)!;
    // Built programs run from the slots' warm sandboxes (the runner's default fork servers, exec mode).
    expect(byId('correct0').forked).toBe(true);
    expect(alone.some((r) => r.forked)).toBe(false);
    // druntime's own short line for an assert of the program's module, and its summary.
    expect(byId('failedAssert').stdout).toContain('program.d(4): [unittest] Assertion failure');
    expect(byId('failedAssert').stderr).toContain('1/1 modules FAILED unittests');
    expect(byId('correct0').stderr).toContain('1 modules passed unittests');
    expect(byId('thrown').stderr).toMatch(/object\.Exception@program\.d\(4\): boom\n-{16}\n/);
    // The lone compile's own diagnostics name the lone file.
    expect(byId('typeError').exception!.message).toContain('program.d(4): Error: cannot implicitly convert');
    const inspecting = byId('selfInspecting');
    expect(inspecting.stdout).toContain('file program.d line 5 full /build/program.d');
    expect(inspecting.stdout).toContain('build ["/build/program", "/build/program.d", "/build/program.o"]');
    expect(inspecting.stdout).toContain('cmdline /build/program\0');
    expect(inspecting.stdout).toContain('source starts long add(long a');
    // Batching really happened, and a failed batch compile was retried without the programs it
    // blamed: every program the batch accepts and that compiles ran from a batch's binary.
    const accepted = requests.filter((r) => refusal(r.program) === null);
    const compiles = accepted.filter((r) => status[r.id] !== 'compile_error').length;
    expect(accepted.length).toBeGreaterThan(compiles);
    expect(batchedCounts.counts.built).toBe(compiles);
    expect(batchedCounts.counts.alone).toBe(requests.length - compiles);
  });

  it('batches the programs of run() calls that wait for a slot, with the same results', () => {
    for (let i = 0; i < requests.length; i++) expect(seen(queuedResults[i]!), requests[i]!.id).toEqual(seen(alone[i]!));
    expect(queuedCounts.counts.batches).toBeGreaterThan(0);
    expect(queuedCounts.counts.built).toBeGreaterThan(1);
  });

  it('leaves what its batch does not accept to its own compile step, and blames diagnostics by position', () => {
    expect(refusal(PROGRAMS.aClass!)).toBe('`class`');
    expect(refusal(PROGRAMS.staticConstructor!)).toBe('a static constructor or destructor');
    expect(refusal(PROGRAMS.mainRuns!)).toBe('no unittest');
    expect(refusal(unittest('    assert(true);').replace('void main(){}', 'void main() { }\nvoid f() { main(); }'))).toBe(
      'a `main` other than `void main(){}`',
    );
    expect(refusal(PROGRAMS.noUnittest!)).toBe('no unittest');
    expect(refusal(PROGRAMS.correct0!)).toBeNull();
    expect(refusal(PROGRAMS.selfInspecting!)).toBeNull();
    expect(blameLdc('p2/program.d(3): Error: x\n/usr/include/d/std/conv.d(224): Error: y\np0/program.d(2): Error: z', 3)).toEqual([0, 2]);
    expect(blameLdc('Error: linker exited with status 1', 3)).toBeNull();
  });
});
