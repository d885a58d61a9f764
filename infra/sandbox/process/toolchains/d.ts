/**
 * D (MultiPL-E `d`): its eval_dlang.py runs `rdmd -unittest -main F` (compile and run in one;
 * "Error:" in the output is its SyntaxError, another non-zero exit an Exception). rdmd is dmd's;
 * here LDC, Debian's D compiler, does the same in two steps: `ldc2 -unittest program.d` (the
 * tests bring their own `void main(){}`, so no -main), then the binary, which runs the unittest
 * blocks before main. A compile failure is `compile_error`; a failed `assert` in a unittest
 * ("[unittest] Assertion failure", exit 1) `failed`; another uncaught throwable `error`;
 * OutOfMemoryError `oom`. Memory: RLIMIT_AS (a native binary).
 */
import type { RunOutcome, StepResult, Toolchain } from '../contract.js';
import { exitedWith, firstLine, killedBy, probeVersion, runNativeProgram, sandboxCompile } from './common.js';

export const D_INSTALL = 'run `npm run setup -- --languages d` (Debian: apt-get install ldc) so that `ldc2` is on PATH';

export function classifyD(run: StepResult): RunOutcome {
  // D's runtime reports a failed unittest on stdout, its summary and uncaught throwables on stderr.
  const text = `${run.stdout}\n${run.stderr}`;
  if (/OutOfMemoryError|Memory allocation failed/.test(text))
    return { status: 'oom', exception: { type: 'OutOfMemoryError', message: firstLine(text, /Memory|OutOfMemory/) ?? 'out of memory' } };
  if (run.signal) return killedBy(run);
  if (/\[unittest\] Assertion failure|AssertError/.test(text))
    return {
      status: 'failed',
      exception: {
        type: 'AssertError',
        message: (firstLine(text, /Assertion failure|AssertError/) ?? 'assertion failure').slice(0, 2000),
        traceback: text.slice(-4000),
      },
    };
  const thrown = /^\S+?\(\d+\): \[unittest\] (.*)$|^([\w.]+(?:Exception|Error))@\S+: ?(.*)$/m.exec(text);
  if (thrown)
    return {
      status: 'error',
      exception: { type: thrown[2] ?? 'Exception', message: (thrown[1] ?? thrown[3] ?? '').slice(0, 2000), traceback: text.slice(-4000) },
    };
  return exitedWith(run);
}

export function dToolchain(): Toolchain {
  return {
    language: 'd',
    name: 'D (LDC)',
    check: () => probeVersion('ldc2', ['--version'], 'ldc2', D_INSTALL),
    mounts: () => [],
    files: (program) => ({ 'program.d': program }),
    compile: () => sandboxCompile(['ldc2', '-unittest', 'program.d', '-of=program']),
    run: runNativeProgram,
    classify: classifyD,
  };
}
