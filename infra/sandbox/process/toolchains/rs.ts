/**
 * Rust (MultiPL-E `rs`): as its eval_rust.py, `rustc program.rs -o program` (edition 2021 here:
 * MultiPL-E's prompts are written for it), then the binary; exit 0 is OK, anything else (a panic
 * exits 101) Exception. An `assert!`/`assert_eq!` panic is `failed`, another panic `error`, an
 * allocation failure (abort) `oom`. The toolchain's sysroot is mounted read-only at /opt/rust;
 * rustc links with the system's `cc`. Memory: RLIMIT_AS for the binary.
 *
 * A program with #[test] functions (HumanEvalPack's, which code_eval_octopack runs as a binary of
 * a Cargo project: `cargo check --bin`, then `cargo test --bin`) is checked as a binary
 * (`--emit=metadata`, what cargo check does) and then built with `--test` as `program`, whose
 * run is the test harness: exit 0 when every test passes. Both with the crates of that project
 * (octopack.ts) where installed, cargo's dev profile being rustc's defaults. The harness prints a
 * failed test's panic on stdout, which classify then reads.
 */
import type { RunOutcome, StepResult, Toolchain } from '../contract.js';
import { isRustTestHarness, RUST_CRATES_DEPS, RUST_CRATES_IN_SANDBOX, rustCrateFlags } from './octopack.js';
import {
  exitedWith,
  firstFailed,
  firstLine,
  killedBy,
  probeVersion,
  probeVersionSync,
  runNativeProgram,
  sandboxCompile,
} from './common.js';

const RUST_INSTALL = 'install Rust with rustup (rustup.rs: `curl ... | sh`, or Debian: apt-get install rustc) so that `rustc` is on PATH';
const SYSROOT_IN_SANDBOX = '/opt/rust';

/** rustc's sysroot (asked once per process and kept between runs: the warm toolchain's library path uses it too). */
export function rustSysroot(): string {
  const check = probeVersionSync('rustc', ['--print', 'sysroot'], 'rustc', RUST_INSTALL, {}, { keepBetweenRuns: true });
  return check.ok ? check.version : '/usr';
}

export function classifyRust(run: StepResult): RunOutcome {
  // The test harness (a #[test] program) reports a failed test's panic on stdout.
  const text = /^test result: FAILED/m.test(run.stdout) ? `${run.stdout}\n${run.stderr}` : run.stderr;
  if (/memory allocation of \d+ bytes failed|capacity overflow/.test(text))
    return {
      status: 'oom',
      exception: { type: 'OutOfMemory', message: firstLine(text, /memory allocation|capacity overflow/) ?? 'out of memory' },
    };
  const panic = /panicked at [^\n]*:\n?(.*)$/m.exec(text) ?? /panicked at '([^\n]*)'/m.exec(text);
  if (panic) {
    const message = panic[1] ?? '';
    const assertion = /assertion/.test(message) || /assertion/.test(firstLine(text, /panicked/) ?? '');
    return {
      status: assertion ? 'failed' : 'error',
      exception: { type: assertion ? 'AssertionFailed' : 'panic', message: message.slice(0, 2000), traceback: text.slice(-4000) },
    };
  }
  if (run.signal) return killedBy(run);
  return exitedWith(run);
}

export function rsToolchain(): Toolchain {
  return {
    language: 'rs',
    name: 'Rust',
    check: async () =>
      firstFailed(
        await Promise.all([
          // rustup's proxy takes ~0.1 s per probe; kept, keyed by what rustup reads (rustupContext).
          probeVersion('rustc', ['--version'], 'rustc', RUST_INSTALL, {}, { keepBetweenRuns: true }),
          probeVersion(
            'cc',
            ['--version'],
            'a C linker (cc)',
            'install gcc (Debian: apt-get install gcc): rustc links with cc',
            {},
            { keepBetweenRuns: true },
          ),
        ]),
      ),
    mounts: () => [
      ...(rustSysroot().startsWith('/usr') ? [] : [{ host: rustSysroot(), sandbox: SYSROOT_IN_SANDBOX }]),
      ...(rustCrateFlags() ? [{ host: RUST_CRATES_DEPS, sandbox: RUST_CRATES_IN_SANDBOX }] : []),
    ],
    files: (program) => ({ 'program.rs': program }),
    compile: (_limits, program) => {
      const bin = rustSysroot().startsWith('/usr') ? 'rustc' : `${SYSROOT_IN_SANDBOX}/bin/rustc`;
      if (!isRustTestHarness(program)) return sandboxCompile([bin, '--edition', '2021', '-o', 'program', 'program.rs']);
      const rustc = [bin, '--edition', '2021', ...(rustCrateFlags() ?? [])].join(' ');
      return sandboxCompile([
        '/bin/sh',
        '-c',
        `${rustc} --emit=metadata -o program.check program.rs && ${rustc} --test -o program program.rs`,
      ]);
    },
    run: runNativeProgram,
    classify: classifyRust,
  };
}
