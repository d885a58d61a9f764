/**
 * Several Rust programs per rustc call (infra/sandbox/warm/rsBatch.ts through the process
 * runner's runMany and queued run calls), on the real rustc and the real sandbox: every program's result — status,
 * exit code, signal, stdout, stderr, exception — must be exactly what the same program gives
 * compiled alone (`run`), side by side, whatever else shares its batch: correct programs, failing
 * asserts, panics, compile errors of every phase (parse, resolution, types, borrows, a deny-by-default lint),
 * a leading `#![allow(...)]`, a module of its own, `#[no_mangle]`, `main` returning an error, an
 * exit code, a timeout, and a hostile program printing what it can see of itself (argv, its
 * environment, its build directory, its own file name, a panic's location).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutionRequest, ExecutionResult } from '../../domain/execution/types.js';
import type { Toolchain } from '../../infra/sandbox/process/contract.js';
import { ProcessExecutor } from '../../infra/sandbox/process/processExecutor.js';
import { toolchainFor } from '../../infra/sandbox/toolchainRegistry.js';
import { refusal } from '../../infra/sandbox/warm/rsBatch.js';
import { processFixturesOf } from '../support/language-fixtures.js';

const rows = processFixturesOf('rs').bench.rows;
const multiple = rows.map((r) => `${r.prompt}${r.completion}\n${r.tests}`);

const PROGRAMS: Record<string, string> = {
  correct0: multiple[0]!,
  correct1: multiple[1]!,
  correct2: multiple[2]!,
  failedAssert:
    'fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n\nfn main() {\n    let candidate = add;\n    assert_eq!(candidate(2, 3), 5);\n}\n',
  panic:
    'fn main() {\n    let v: Vec<i32> = Vec::new();\n    println!("before");\n    let i = v.len() + 3;\n    println!("{}", v[i]);\n}\n',
  parseError: 'fn main() {\n    let x = ;\n}\n',
  resolutionError: 'fn main() {\n    assert_eq!(undefined_function(1), 2);\n}\n',
  typeError: 'fn main() {\n    let x: i32 = "text";\n    assert_eq!(x, 1);\n}\n',
  borrowError: 'fn main() {\n    let s = String::from("a");\n    let t = s;\n    println!("{} {}", s, t);\n}\n',
  lintError: 'fn main() {\n    let x: u8 = 255 + 1;\n    println!("{}", x);\n}\n',
  allowed:
    '#![allow(arithmetic_overflow)]\n#![allow(unused_variables, dead_code)]\nfn unused() {}\nfn main() {\n    let x: u8 = 255 + 1;\n    println!("{}", x);\n}\n',
  ownModule:
    'mod helpers {\n    pub fn twice(x: i64) -> i64 {\n        x * 2\n    }\n    pub mod deeper {\n        pub fn three() -> i64 { 3 }\n    }\n}\n\nfn main() {\n    assert_eq!(helpers::twice(21), 42);\n    println!("{}", helpers::deeper::three());\n}\n',
  noMangle: '#[no_mangle]\npub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\nfn main() {\n    assert_eq!(add(2, 3), 5);\n}\n',
  resultError:
    '#[derive(Debug)]\nstruct Oops(i32);\n\nfn main() -> Result<(), Oops> {\n    println!("about to fail");\n    Err(Oops(7))\n}\n',
  exitCode: 'fn main() {\n    print!("partial");\n    std::process::exit(3);\n}\n',
  noMain: 'fn helper() -> i32 {\n    1\n}\n',
  superAtTop: 'use super::*;\n\nfn main() {}\n',
  loop: 'fn main() {\n    let mut i: u64 = 0;\n    loop {\n        i = i.wrapping_add(1);\n    }\n}\n',
  selfInspecting: [
    'use std::io::Write;',
    '#[derive(Debug, Clone, PartialEq)]',
    'struct Point { x: i32 }',
    'fn main() {',
    '    println!("args {:?}", std::env::args().collect::<Vec<_>>());',
    '    let mut vars: Vec<String> = std::env::vars().map(|(k, v)| format!("{}={}", k, v)).collect();',
    '    vars.sort();',
    '    println!("env {:?}", vars);',
    '    let mut names: Vec<String> = std::fs::read_dir("/build").unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();',
    '    names.sort();',
    '    println!("build {:?}", names);',
    '    println!("file {} line {}", file!(), line!());',
    '    println!("exe {:?}", std::env::current_exe().ok());',
    '    println!("own source starts {:?}", std::fs::read_to_string("/build/program.rs").map(|s| s.lines().next().map(String::from)).ok());',
    '    println!("{:?}", Point { x: 1 });',
    '    std::io::stdout().flush().unwrap();',
    '    let p = Point { x: 1 };',
    '    assert_eq!(p, Point { x: 2 }, "points differ");',
    '}',
  ].join('\n'),
};

// One set of limits for all: batches hold programs with the same limits.
const LIMITS = { timeoutMs: 3_000 };
const requests: ExecutionRequest[] = Object.entries(PROGRAMS).map(([id, program]) => ({ id, program, limits: LIMITS }));

/** What a user sees of a result (everything but timings). */
function seen(r: ExecutionResult) {
  return {
    id: r.id,
    status: r.status,
    exitCode: r.exitCode,
    signal: r.signal,
    stdout: r.stdout,
    stderr: r.stderr,
    exception: r.exception,
    survivors: r.survivors ?? 0,
  };
}

/** Rust's real toolchain, counting what its batches answered (batches built, programs built, programs sent alone). */
function counted(): { toolchain: Toolchain; counts: { batches: number; built: number; alone: number } } {
  const real = toolchainFor('rs');
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
/** Each program's result compiled alone (batchSize 1: one rustc call per program). */
let alone: ExecutionResult[];

const batchedCounts = counted();
const queuedCounts = counted();
const loneCounts = counted();

beforeAll(async () => {
  batched = new ProcessExecutor(batchedCounts.toolchain, { concurrency: 2 });
  queued = new ProcessExecutor(queuedCounts.toolchain, { concurrency: 1 });
  lone = new ProcessExecutor(loneCounts.toolchain, { concurrency: 2, batchSize: 1 });
  await Promise.all([batched.start(), queued.start(), lone.start()]);
  alone = await lone.runMany(requests);
  expect(loneCounts.counts.batches).toBe(0);
});

afterAll(async () => {
  await Promise.all([batched?.close(), queued?.close(), lone?.close()]);
});

describe('Rust programs compiled several per rustc call', () => {
  it('give each program exactly the result it gets compiled alone, compile errors of every phase mixed in', async () => {
    const together = await batched.runMany(requests);
    for (let i = 0; i < requests.length; i++) expect(seen(together[i]!), requests[i]!.id).toEqual(seen(alone[i]!));
    const status = Object.fromEntries(together.map((r) => [r.id, r.status]));
    expect(status).toMatchObject({
      correct0: 'passed',
      correct1: 'passed',
      correct2: 'passed',
      failedAssert: 'failed',
      panic: 'error',
      parseError: 'compile_error',
      resolutionError: 'compile_error',
      typeError: 'compile_error',
      borrowError: 'compile_error',
      lintError: 'compile_error',
      allowed: 'error',
      ownModule: 'passed',
      noMangle: 'passed',
      resultError: 'error',
      exitCode: 'error',
      noMain: 'compile_error',
      superAtTop: 'compile_error',
      loop: 'timeout',
      selfInspecting: 'failed',
    });
    // The lone compile's own diagnostics name the lone file.
    expect(together.find((r) => r.id === 'typeError')!.exception!.message).toContain('--> program.rs:2:18');
    // A panic's location and file!() say program.rs, as alone; the run sees its own two files.
    const inspecting = together.find((r) => r.id === 'selfInspecting')!;
    expect(inspecting.stdout).toContain('file program.rs line 12');
    expect(inspecting.stdout).toContain('build ["program", "program.rs"]');
    expect(inspecting.stdout).toContain('args ["/build/program"]');
    expect(inspecting.stderr).toContain('panicked at program.rs:18:5');
    // Batching really happened, and failed batch compiles were retried without the programs they
    // blamed: every program the batch accepts and that compiles ran from a batch's binary.
    const accepted = requests.filter((r) => refusal(r.program) === null).length;
    const compiles = together
      .filter((r) => r.status !== 'compile_error')
      .filter((r) => refusal(requests.find((q) => q.id === r.id)!.program) === null).length;
    expect(accepted).toBeGreaterThan(compiles);
    expect(batchedCounts.counts.built).toBe(compiles);
    expect(batchedCounts.counts.alone).toBe(requests.length - compiles);
  });

  it('batches the programs of run() calls that wait for a slot, with the same results', async () => {
    const together = await Promise.all(requests.map((r) => queued.run(r)));
    for (let i = 0; i < requests.length; i++) expect(seen(together[i]!), requests[i]!.id).toEqual(seen(alone[i]!));
    // The calls made together queue, then share compiler calls.
    expect(queuedCounts.counts.batches).toBeGreaterThan(0);
    expect(queuedCounts.counts.built).toBeGreaterThan(1);
  });

  it('leaves what its batch does not accept to its own compile step', () => {
    expect(refusal(PROGRAMS.noMangle!)).toBe('#[no_mangle]');
    expect(refusal(PROGRAMS.superAtTop!)).toBe('`super`');
    expect(refusal(PROGRAMS.allowed!)).toBeNull();
    expect(refusal(PROGRAMS.ownModule!)).toBeNull();
  });
});
