/**
 * The process runner's pieces that need no sandbox: the bubblewrap command line of a step (what
 * is isolated, which limits are set) and how each language's run ends map onto our statuses and
 * MultiPL-E's (docs/sandbox.md#process-run-languages).
 */
import { describe, expect, it } from 'vitest';
import { BUILD_DIR, type SandboxStep, type ServedStep, type StepResult } from '../../infra/sandbox/process/contract.js';
import { asBwrapReports, bwrapArgs } from '../../infra/sandbox/process/bwrapStep.js';
import { ProcessExecutor } from '../../infra/sandbox/process/processExecutor.js';
import { classifyCpp } from '../../infra/sandbox/process/toolchains/cpp.js';
import { classifyGo, importableStd } from '../../infra/sandbox/process/toolchains/go.js';
import { classifyJava } from '../../infra/sandbox/process/toolchains/java.js';
import { classifyNode } from '../../infra/sandbox/process/toolchains/js.js';
import { classifyRust } from '../../infra/sandbox/process/toolchains/rs.js';
import { plainToolchainFor, toolchainFor, TOOLCHAINS } from '../../infra/sandbox/toolchainRegistry.js';
import { DEFAULT_LIMITS } from '../../domain/execution/types.js';
import { isProcessLanguageId, LANGUAGES } from '../../domain/languages/registry.js';
import { BATCH_MAX_PACKAGE_DATA, packageFits } from '../../infra/sandbox/warm/go.js';
import { batchRoot, blameRustc, hoistLeadingAllows, loadedImageBytes, refusal } from '../../infra/sandbox/warm/rsBatch.js';

const step: SandboxStep = {
  kind: 'sandbox',
  argv: ['/build/program'],
  env: { LANG: 'C.UTF-8' },
  limits: {
    timeoutMs: 3000,
    memoryBytes: 1 << 30,
    memoryKind: 'data',
    maxProcesses: 32,
    maxFileBytes: 1 << 24,
    maxOutputBytes: 8192,
    maxOpenFiles: 256,
  },
};

function ended(partial: Partial<StepResult>): StepResult {
  return {
    exitCode: 1,
    signal: null,
    timedOut: false,
    durationMs: 1,
    stdout: '',
    stderr: '',
    stdoutBytes: 0,
    stderrBytes: 0,
    survivors: 0,
    ...partial,
  };
}

describe("a step's sandbox", () => {
  it('as root: namespaces, loopback down, the slot uid without capabilities, every limit, a cleared environment', () => {
    const args = bwrapArgs(
      {
        bwrap: '/usr/bin/bwrap',
        uid: 2_000_005,
        buildDir: '/tmp/x/s1',
        writableBuild: false,
        mounts: [{ host: '/root/.rustup/t', sandbox: '/opt/rust' }],
        tmpBytes: 1 << 28,
      },
      step,
    );
    for (const flag of [
      '--unshare-pid',
      '--unshare-net',
      '--unshare-ipc',
      '--unshare-uts',
      '--die-with-parent',
      '--new-session',
      '--clearenv',
    ])
      expect(args).toContain(flag);
    const line = args.join(' ');
    expect(line).toContain(`--ro-bind /tmp/x/s1 ${BUILD_DIR}`);
    expect(line).toContain('--ro-bind /root/.rustup/t /opt/rust');
    expect(line).toContain('--chdir /tmp');
    expect(line).toContain(
      'unshare --net -- setpriv --reuid 2000005 --regid 2000005 --clear-groups --inh-caps=-all --bounding-set=-all --no-new-privs --',
    );
    expect(line).toContain(`prlimit --cpu=4:5 --data=${1 << 30} --nproc=32 --fsize=${1 << 24} --nofile=256 --core=0 -- /build/program`);
    // Only the step's own variables (and PATH) are set.
    const setenv = args.flatMap((a, i) => (a === '--setenv' ? [args[i + 1]] : []));
    expect(setenv.sort()).toEqual(['LANG', 'PATH']);
  });

  it('a compile step writes into the build directory and works there; address-space limits where asked', () => {
    const args = bwrapArgs(
      { bwrap: 'bwrap', uid: 7, buildDir: '/b', writableBuild: true, mounts: [], tmpBytes: 1 },
      { ...step, limits: { ...step.limits, memoryKind: 'address-space' } },
    ).join(' ');
    expect(args).toContain(`--bind /b ${BUILD_DIR}`);
    expect(args).toContain(`--chdir ${BUILD_DIR}`);
    expect(args).toContain(`--as=${1 << 30}`);
  });
});

describe("each language's run, read as MultiPL-E reads it", () => {
  it('JavaScript and TypeScript (Node)', () => {
    const assertion = classifyNode(
      ended({
        stderr:
          'node:assert:125\n  throw new AssertionError(obj);\n  ^\n\nAssertionError [ERR_ASSERTION]: Expected values to be strictly deep-equal:',
      }),
    );
    expect(assertion.status).toBe('failed');
    // The error's own line, not the source excerpt Node prints above it.
    expect(assertion.exception?.message).toBe('AssertionError [ERR_ASSERTION]: Expected values to be strictly deep-equal:');
    expect(
      classifyNode(ended({ stderr: "/build/program.js:3\n  return x +;\n           ^\n\nSyntaxError: Unexpected token ';'" })).status,
    ).toBe('compile_error');
    expect(classifyNode(ended({ stderr: 'TypeError: x is not a function' })).exception?.type).toBe('TypeError');
    expect(
      classifyNode(
        ended({
          exitCode: null,
          signal: 'SIGTRAP',
          stderr: 'FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory',
        }),
      ).status,
    ).toBe('oom');
  });

  it('Go: a failed test, a panic, out of memory', () => {
    expect(
      classifyGo(
        ended({
          stdout:
            "--- FAIL: TestAdd (0.00s)\n    --- FAIL: TestAdd/test_num__1 (0.00s)\n        program_test.go:26: expected '6', got '5'\nFAIL\n",
        }),
      ).status,
    ).toBe('failed');
    expect(
      classifyGo(
        ended({ exitCode: 2, stdout: '--- FAIL: TestAdd (0.00s)\n', stderr: 'panic: runtime error: index out of range [3] with length 0' }),
      ).status,
    ).toBe('error');
    expect(classifyGo(ended({ exitCode: 2, stderr: 'fatal error: out of memory allocating heap arena metadata' })).status).toBe('oom');
  });

  it('Rust: an assertion panic, another panic, an allocation failure', () => {
    expect(
      classifyRust(
        ended({
          exitCode: 101,
          stderr: "thread 'main' panicked at program.rs:12:5:\nassertion `left == right` failed\n  left: -1\n right: 1",
        }),
      ).status,
    ).toBe('failed');
    expect(
      classifyRust(
        ended({ exitCode: 101, stderr: "thread 'main' panicked at program.rs:3:5:\nindex out of bounds: the len is 0 but the index is 3" }),
      ).status,
    ).toBe('error');
    expect(classifyRust(ended({ exitCode: null, signal: 'SIGABRT', stderr: 'memory allocation of 10485760 bytes failed' })).status).toBe(
      'oom',
    );
  });

  it('Java: AssertionError, another exception, OutOfMemoryError', () => {
    expect(
      classifyJava(ended({ stderr: 'Exception in thread "main" java.lang.AssertionError\n\tat Problem.main(Problem.java:20)' })).status,
    ).toBe('failed');
    expect(classifyJava(ended({ stderr: 'Exception in thread "main" java.lang.ArithmeticException: / by zero' })).exception).toMatchObject({
      type: 'ArithmeticException',
      message: '/ by zero',
    });
    expect(classifyJava(ended({ stderr: 'Exception in thread "main" java.lang.OutOfMemoryError: Java heap space' })).status).toBe('oom');
  });

  it('C++: assert aborts, an uncaught exception, bad_alloc, a segfault', () => {
    expect(
      classifyCpp(
        ended({
          exitCode: null,
          signal: 'SIGABRT',
          stderr: "program: program.cpp:12: int main(): Assertion `candidate((2), (3)) == (5)' failed.",
        }),
      ).status,
    ).toBe('failed');
    expect(
      classifyCpp(
        ended({
          exitCode: null,
          signal: 'SIGABRT',
          stderr: "terminate called after throwing an instance of 'std::out_of_range'\n  what():  vector::_M_range_check",
        }),
      ).exception?.type,
    ).toBe('std::out_of_range');
    expect(
      classifyCpp(
        ended({
          exitCode: null,
          signal: 'SIGABRT',
          stderr: "terminate called after throwing an instance of 'std::bad_alloc'\n  what():  std::bad_alloc",
        }),
      ).status,
    ).toBe('oom');
    expect(classifyCpp(ended({ exitCode: null, signal: 'SIGSEGV' })).status).toBe('killed');
  });
});

describe('the toolchains', () => {
  it("mirror MultiPL-E's evaluator: file names and compile commands", () => {
    const limits = DEFAULT_LIMITS;
    // The plain modules (toolchainFor serves the warm ones where a language has one: infra/sandbox/warm/warmToolchains.ts).
    const plain = (step: SandboxStep | ServedStep | null): SandboxStep | null => (step && step.kind === 'sandbox' ? step : null);
    // One toolchain per process-run language, in the languages' order (LANGUAGES': MultiPL-E's first six, then the rest).
    expect(Object.keys(TOOLCHAINS)).toEqual(Object.keys(LANGUAGES).filter(isProcessLanguageId));
    expect(Object.keys(toolchainFor('java').files('x'))).toEqual(['Problem.java']);
    expect(Object.keys(toolchainFor('go_test.go').files('x'))).toEqual(['program_test.go']);
    expect(plain(plainToolchainFor('cpp').compile(limits, 'x'))!.argv).toEqual(['g++', 'program.cpp', '-o', 'program', '-std=c++17']);
    expect(plain(plainToolchainFor('go_test.go').compile(limits, 'x'))!.argv).toEqual([
      'go',
      'test',
      '-c',
      '-o',
      'program.test',
      'program_test.go',
    ]);
    expect(plain(plainToolchainFor('ts').compile(limits, 'x'))!.argv.slice(-3)).toEqual(['--target', 'esnext', 'program.ts']);
    expect(toolchainFor('java').run(limits).argv.slice(-4)).toEqual(['-ea', '-cp', `${BUILD_DIR}:/opt/java/javatuples-1.2.jar`, 'Problem']);
    expect(toolchainFor('js').compile(limits, 'x')).toBeNull();
    // Runtimes that reserve more address space than they use are limited by RLIMIT_DATA.
    expect(toolchainFor('java').run(limits).limits.memoryKind).toBe('data');
    expect(toolchainFor('cpp').run(limits).limits.memoryKind).toBe('address-space');
  });

  it("Go's cache covers every importable standard package", () => {
    expect(importableStd('fmt\ninternal/abi\nnet\nvendor/x\ncmd/go\nruntime/race\nruntime/cgo\nstrings\n')).toEqual([
      'fmt',
      'net',
      'strings',
    ]);
  });
});

describe('which Go packages can share a batch test binary (nm -size -type of the batch archives)', () => {
  const pkg = (i: number) => `p${i}/command-line-arguments_test`;
  const listing = [
    `/build/p0/pkg.a:\t    46b2          8 D ${pkg(0)}..inittask`,
    `/build/p0/pkg.a:\t    433e        549 T ${pkg(0)}.TestStrlen`,
    `/build/p0/pkg.a:\t                  0 U fmt.Sprintf`,
    `/build/p0/pkg.a:\t    4874         32 D ${pkg(0)}.small`,
    `/build/p1/pkg.a:\t    6706         24 D ${pkg(1)}..inittask`,
    `/build/p1/pkg.a:\t    6844          8 B ${pkg(1)}.tbl`,
    `/build/p2/pkg.a:\t    46b2          8 D ${pkg(2)}..inittask`,
    `/build/p2/pkg.a:\t    67e6  268435456 B ${pkg(2)}.big`,
    `/build/p3/pkg.a:\t    4c21          8 r ${pkg(3)}..stmp_0<1>`,
  ].join('\n');

  it('no init work and little data: fits', () => {
    expect(packageFits(listing, '/build/p0/pkg.a', pkg(0))).toBe(true);
  });

  it('init functions (init(), variables initialised by code) or data past the bound: built alone', () => {
    expect(packageFits(listing, '/build/p1/pkg.a', pkg(1))).toBe(false);
    expect(packageFits(listing, '/build/p2/pkg.a', pkg(2))).toBe(false);
    expect(
      packageFits(
        `/build/p4/pkg.a:\t 1 8 D ${pkg(4)}..inittask\n/build/p4/pkg.a:\t 2 ${BATCH_MAX_PACKAGE_DATA + 1} D ${pkg(4)}.table`,
        '/build/p4/pkg.a',
        pkg(4),
      ),
    ).toBe(false);
  });

  it('a package the listing does not show (no inittask seen) is built alone; a one-file listing has no file prefix', () => {
    expect(packageFits(listing, '/build/p3/pkg.a', pkg(3))).toBe(false);
    expect(packageFits(listing, '/build/p9/pkg.a', pkg(9))).toBe(false);
    expect(packageFits(`    46b2          8 D ${pkg(5)}..inittask\n    4c21          8 r x`, '/build/p5/pkg.a', pkg(5))).toBe(true);
  });
});

describe('Rust programs several per rustc call (the sandboxed side: test/sandbox/process-batch.e2e.test.ts)', () => {
  const ok =
    'use std::collections::HashMap;\n/// doc\nfn f(x: &\'static str) -> usize { x.len() }\n\nfn main() {\n    assert_eq!(f("ab"), 2);\n}\n';

  it('batches everyday programs and refuses what a module sees differently from a crate root', () => {
    expect(refusal(ok)).toBeNull();
    expect(
      refusal('#[derive(Debug, Clone)]\nstruct P;\n#[inline]\nfn g() {}\npub fn main() -> Result<(), String> {\n    Ok(())\n}\n'),
    ).toBeNull();
    const refused: Record<string, string> = {
      'use crate::x;\nfn main() {}': '`crate`',
      'fn main() { super::f() }': '`super`',
      'extern crate rand;\nfn main() {}': '`extern`',
      'fn main() { print!("{}", include_str!("program.rs")); }': '`include_str`',
      'mod other;\nfn main() {}': 'a file module',
      '#![no_std]\nfn main() {}': 'an inner attribute',
      '//! crate docs\nfn main() {}': 'an inner attribute',
      '#[export_name = "x"]\nfn y() {}\nfn main() {}': '#[export_name]',
      '#[deny(warnings)]\nfn main() {}': '#[deny]',
      'fn main() { println!("{}", std::any::type_name::<u8>()); }': '`type_name`',
      'const fn main() {}': 'no plain `fn main()`',
      'fn helper() {}': 'no plain `fn main()`',
      'fn main() {}\nfn main() {}': 'more than one `fn main()`',
      '#[track_caller]\nfn main() {}': 'an attribute on main',
      'fn main() -> () where u8: Copy {}': 'a `where` on main',
      'mod m { pub fn main() {} }\nuse m::main as other;\nfn main() {}': 'another item named main',
      'fn main() { std::env::set_var("RUST_BACKTRACE", "1"); }': 'a backtrace',
      '/// a doc comment\n#![allow(unused)]\nfn main() {}': 'an inner attribute',
    };
    for (const [program, why] of Object.entries(refused)) expect(refusal(program), program).toBe(why);
  });

  it('moves a leading #![allow(...)] to the module, keeping every line where it was', () => {
    const program = '// a comment\n#![allow(unused)]\n#![allow(arithmetic_overflow, dead_code)]\nfn main() {}\n';
    const { text, allows } = hoistLeadingAllows(program);
    expect(allows).toEqual(['#![allow(unused)]', '#![allow(arithmetic_overflow, dead_code)]']);
    expect(text.split('\n')).toHaveLength(program.split('\n').length);
    expect(text).not.toContain('#!');
    expect(refusal(program)).toBeNull();
    const root = batchRoot([program, ok]).split('\n');
    expect(root[0]).toContain('mod __explora_p0 { #![allow(unused)] #![allow(arithmetic_overflow, dead_code)] include!("p0/program.rs");');
    expect(root[1]).toContain('mod __explora_p1 { include!("p1/program.rs");');
  });

  it("blames the programs rustc's errors point into, and nobody when an error points nowhere", () => {
    const diagnostic = (level: string, message: string, spans: object[]) =>
      JSON.stringify({ $message_type: 'diagnostic', level, message, spans });
    const stderr = [
      diagnostic('warning', 'unused variable', [{ file_name: 'p0/program.rs', line_start: 2 }]),
      diagnostic('error', 'mismatched types', [{ file_name: 'p2/program.rs', line_start: 3 }]),
      diagnostic('error', 'cannot find function `main` in this scope', [{ file_name: 'batch.rs', line_start: 4 }]),
      diagnostic('error', 'in a macro', [
        {
          file_name: '/rustc/library/core/src/macros.rs',
          line_start: 1,
          expansion: { span: { file_name: 'p1/program.rs', line_start: 9 } },
        },
      ]),
      diagnostic('error', 'aborting due to 3 previous errors', []),
      '{"cut by the output ca',
    ].join('\n');
    expect(blameRustc(stderr, 5)).toEqual([1, 2, 3]);
    expect(blameRustc(diagnostic('error', 'linking with `cc` failed', []), 5)).toBeNull();
    expect(blameRustc('', 5)).toBeNull();
  });

  it("reads an ELF binary's loaded image size (a batch mapping a large static is not used)", () => {
    const elf = Buffer.alloc(64 + 2 * 56);
    elf.writeUInt32BE(0x7f454c46, 0);
    elf[4] = 2;
    elf[5] = 1;
    elf.writeBigUInt64LE(64n, 0x20);
    elf.writeUInt16LE(56, 0x36);
    elf.writeUInt16LE(2, 0x38);
    elf.writeUInt32LE(1, 64);
    elf.writeBigUInt64LE(4096n, 64 + 0x28);
    elf.writeUInt32LE(1, 64 + 56);
    elf.writeBigUInt64LE(1n << 24n, 64 + 56 + 0x28);
    expect(loadedImageBytes(elf)).toBe(4096 + (1 << 24));
    expect(loadedImageBytes(Buffer.from('#!/bin/sh\n'))).toBeNull();
  });
});

describe("how many samples a sweep's shard keeps in flight for a process runner", () => {
  it('a batch per slot where the toolchain compiles programs together (waiting requests form the next batch), else two per slot', () => {
    expect(new ProcessExecutor(toolchainFor('go_test.go'), { concurrency: 4, batchSize: 16 }).inFlightCapacity).toBe(64);
    expect(new ProcessExecutor(toolchainFor('rs'), { concurrency: 3, batchSize: 8 }).inFlightCapacity).toBe(24);
    expect(new ProcessExecutor(toolchainFor('go_test.go'), { concurrency: 4, batchSize: 1 }).inFlightCapacity).toBe(8);
    expect(new ProcessExecutor(toolchainFor('js'), { concurrency: 4, batchSize: 16 }).inFlightCapacity).toBe(8);
    // Shared processes (js): a shared batch per slot, 64 by default; the plain module cannot share.
    expect(new ProcessExecutor(toolchainFor('js'), { concurrency: 4, shareProcess: true }).inFlightCapacity).toBe(256);
    expect(new ProcessExecutor(toolchainFor('js'), { concurrency: 4, shareProcess: true }).batching).toBe('share');
    expect(new ProcessExecutor(plainToolchainFor('js'), { concurrency: 4, shareProcess: true }).batching).toBe('none');
    // Go compiles together whatever shareProcess says.
    expect(new ProcessExecutor(toolchainFor('go_test.go'), { concurrency: 4, shareProcess: true }).batching).toBe('compile');
    expect(new ProcessExecutor(plainToolchainFor('go_test.go'), { concurrency: 4 }).inFlightCapacity).toBe(8);
  });
});

describe('asBwrapReports: a fork server answer read as a lone step reads bwrap', () => {
  it('a code of 129-192 is the signal 128 below it; a signal keeps the lone table; other codes stay', () => {
    // A shell that exits 134 after its child aborted: the lone run cannot tell it from SIGABRT.
    expect(asBwrapReports(134, null)).toEqual({ exitCode: null, signal: 'SIGABRT' });
    expect(asBwrapReports(null, 'SIGSEGV')).toEqual({ exitCode: null, signal: 'SIGSEGV' });
    // Named as the lone run names a signal outside its table.
    expect(asBwrapReports(null, 'SIGUSR1')).toEqual({ exitCode: null, signal: 'SIG10' });
    expect(asBwrapReports(3, null)).toEqual({ exitCode: 3, signal: null });
    expect(asBwrapReports(128, null)).toEqual({ exitCode: 128, signal: null });
    expect(asBwrapReports(255, null)).toEqual({ exitCode: 255, signal: null });
  });
});
