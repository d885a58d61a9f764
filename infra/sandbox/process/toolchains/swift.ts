/**
 * Swift (MultiPL-E `swift`): as its eval_swift.py, `swiftc program.swift -o program` (any failure
 * is its SyntaxError: `compile_error`), then the binary (a non-zero exit an Exception). Swift is
 * not in Debian bookworm (its `swift` package is OpenStack's client): the language is declared, and
 * `check()` refuses it until `swiftc` is on PATH (swift.org's toolchain). Not run on the machine
 * this was written on: the outcomes below follow eval_swift.py and Swift's own messages, untested
 * here. A failed `assert` ("Assertion failed", SIGILL/SIGTRAP) is `failed`; another trap `killed`.
 * Memory: RLIMIT_AS (a native binary).
 */
import type { RunOutcome, StepResult, Toolchain } from '../contract.js';
import { exitedWith, firstLine, killedBy, probeVersion, runNativeProgram, sandboxCompile } from './common.js';

export const SWIFT_INSTALL =
  'install a Swift toolchain (not packaged in Debian bookworm): swift.org/install/linux, so that `swiftc` is on PATH';

export function classifySwift(run: StepResult): RunOutcome {
  const text = `${run.stdout}\n${run.stderr}`;
  if (/Assertion failed/.test(text))
    return {
      status: 'failed',
      exception: {
        type: 'AssertionError',
        message: (firstLine(text, /Assertion failed/) ?? 'assertion failed').slice(0, 2000),
        traceback: text.slice(-4000),
      },
    };
  if (run.signal) return killedBy(run);
  return exitedWith(run);
}

export function swiftToolchain(): Toolchain {
  return {
    language: 'swift',
    name: 'Swift (swiftc)',
    check: () => probeVersion('swiftc', ['--version'], 'swiftc', SWIFT_INSTALL),
    mounts: () => [],
    files: (program) => ({ 'program.swift': program }),
    compile: () => sandboxCompile(['swiftc', 'program.swift', '-o', 'program']),
    run: runNativeProgram,
    classify: classifySwift,
  };
}
