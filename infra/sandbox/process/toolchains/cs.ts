/**
 * C# (MultiPL-E `cs`): its eval_cs.py compiles with `csc /d:DEBUG -r:System.Numerics.dll F
 * /out:B.exe` (a failure is its SyntaxError: `compile_error`) and runs `mono B.exe` with
 * MONO_TRACE_LISTENER=Console.Error. The tests are `Debug.Assert`s: compiled in only with DEBUG
 * defined, and on Mono a failed one writes "DefaultTraceListener.Fail" and a trace to that
 * listener and carries on (the process still exits 0), so eval_cs.py calls a run with
 * "DefaultTraceListener.Fail" or "Unhandled Exception" in its stderr an Exception.
 *
 * Here: Debian's Mono has no Roslyn `csc`; its `mcs` takes the same program with the same
 * options (`-d:DEBUG -r:System.Numerics.dll`). The run step is mono under a small POSIX shell
 * wrapper that passes mono's stderr on and exits 1 when mono exited 0 but a failed assertion or
 * an unhandled exception is in it. Then: a failed Debug.Assert is `failed`,
 * OutOfMemoryException `oom`, another unhandled exception `error`. One documented difference:
 * eval_cs.py overwrites the exit code with its stderr rule, so a program that calls
 * Environment.Exit(1) without those messages passes there; here any non-zero exit is `error`.
 *
 * Memory: RLIMIT_AS (Mono's runtime reserves little beyond what it uses; a memory bomb ends in
 * OutOfMemoryException under it).
 */
import { existsSync } from 'node:fs';
import type { RunOutcome, StepResult, Toolchain } from '../contract.js';
import { BUILD_DIR } from '../contract.js';
import { COMPILE_LIMITS, exitedWith, firstFailed, firstLine, killedBy, probeVersion, runLimits } from './common.js';

export const CS_INSTALL =
  'run `npm run setup -- --languages cs` (Debian: apt-get install mono-mcs mono-runtime libmono-system-numerics4.0-cil) so that `mcs` and `mono` are on PATH';

const NUMERICS = ['/usr/lib/mono/4.5/System.Numerics.dll', '/usr/local/lib/mono/4.5/System.Numerics.dll'];
const FAILED_ASSERT = 'DefaultTraceListener\\.Fail';
const UNHANDLED = 'Unhandled Exception';
/** mono, then its stderr passed on; a clean exit with a failed assertion or an unhandled exception in it becomes exit 1 (eval_cs.py's rule). */
const WRAPPER = `mono ${BUILD_DIR}/program.exe 2>mono.stderr; s=$?; cat mono.stderr >&2; if [ "$s" -eq 0 ] && grep -qE '${FAILED_ASSERT}|${UNHANDLED}' mono.stderr; then exit 1; fi; exit "$s"`;

export function classifyCs(run: StepResult): RunOutcome {
  const text = run.stderr;
  if (/OutOfMemoryException|Out of memory/.test(text))
    return {
      status: 'oom',
      exception: { type: 'OutOfMemoryException', message: firstLine(text, /OutOfMemory|Out of memory/) ?? 'out of memory' },
    };
  if (run.signal) return killedBy(run);
  if (new RegExp(FAILED_ASSERT).test(text))
    return {
      status: 'failed',
      exception: { type: 'AssertionFailure', message: 'Debug.Assert failed', traceback: text.slice(-4000) },
    };
  const thrown = /Unhandled Exception:\s*([\w.]+)(?::\s*(.*))?/.exec(text);
  if (thrown)
    return {
      status: 'error',
      exception: { type: thrown[1]!.split('.').pop()!, message: (thrown[2] ?? '').slice(0, 2000), traceback: text.slice(-4000) },
    };
  return exitedWith(run);
}

export function csToolchain(): Toolchain {
  return {
    language: 'cs',
    name: 'C# (Mono: mcs, mono)',
    check: async () => {
      const [mcs, mono] = await Promise.all([
        probeVersion('mcs', ['--version'], 'mcs', CS_INSTALL),
        probeVersion('mono', ['--version'], 'mono', CS_INSTALL),
      ]);
      const probed = firstFailed([mcs, mono]);
      if (!probed.ok) return probed;
      // mcs resolves -r:System.Numerics.dll in its profile directory (Debian's libmono-system-numerics4.0-cil).
      if (!NUMERICS.some((p) => existsSync(p))) return { ok: false, missing: 'System.Numerics.dll (Mono)', install: CS_INSTALL };
      return mcs;
    },
    mounts: () => [],
    files: (program) => ({ 'program.cs': program }),
    compile: () => ({
      kind: 'sandbox',
      argv: ['mcs', '-d:DEBUG', '-r:System.Numerics.dll', 'program.cs', '-out:program.exe'],
      env: { HOME: '/tmp', LANG: 'C.UTF-8' },
      limits: COMPILE_LIMITS,
    }),
    run: (limits) => ({
      kind: 'sandbox',
      argv: ['/bin/sh', '-c', WRAPPER],
      env: { HOME: '/tmp', LANG: 'C.UTF-8', MONO_TRACE_LISTENER: 'Console.Error' },
      limits: runLimits(limits, 'address-space', { maxProcesses: Math.max(limits.maxProcesses, 32) }),
    }),
    classify: classifyCs,
  };
}
