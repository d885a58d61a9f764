/**
 * Racket (MultiPL-E `rkt`): `racket program.rkt`, as its eval_racket.py runs it. rackunit reports
 * a failed check on stderr and still exits 0, so eval_racket.py calls any stderr (or a non-zero
 * exit) an Exception, and "read-syntax" in it a SyntaxError. Here the exit code carries that rule:
 * the run step is racket under a small POSIX shell wrapper that keeps racket's stderr, passes it
 * on, and exits 1 when racket exited 0 but wrote to stderr. Then: "read-syntax" is
 * `compile_error`, a rackunit FAILURE `failed`, "out of memory" `oom`, anything else `error`.
 * Memory: RLIMIT_DATA (Racket CS reserves address space it does not use).
 */
import type { RunOutcome, StepResult, Toolchain } from '../contract.js';
import { BUILD_DIR } from '../contract.js';
import { exitedWith, firstLine, killedBy, probeVersion, runLimits } from './common.js';
import { execForkServer } from '../forkServer.js';

export const RACKET_INSTALL =
  'run bash scripts/install-toolchains.sh (Debian: apt-get install racket) so that `racket` and rackunit are there';

/** racket, then its stderr passed on; a clean exit with something on stderr becomes exit 1 (eval_racket.py's rule). */
const WRAPPER = `racket ${BUILD_DIR}/program.rkt 2>racket.stderr; s=$?; cat racket.stderr >&2; if [ "$s" -eq 0 ] && [ -s racket.stderr ]; then exit 1; fi; exit "$s"`;

export function classifyRacket(run: StepResult): RunOutcome {
  const text = run.stderr;
  if (/out of memory/i.test(text))
    return { status: 'oom', exception: { type: 'OutOfMemory', message: firstLine(text, /out of memory/i) ?? 'out of memory' } };
  if (run.signal) return killedBy(run);
  if (/read-syntax/.test(text))
    return {
      status: 'compile_error',
      exception: { type: 'SyntaxError', message: firstLine(text, /read-syntax/) ?? 'read-syntax', traceback: text.slice(-4000) },
    };
  if (/^FAILURE$/m.test(text))
    return {
      status: 'failed',
      exception: {
        type: 'CheckFailure',
        message: (firstLine(text, /^(actual|name):/) ?? 'a rackunit check failed').slice(0, 2000),
        traceback: text.slice(-4000),
      },
    };
  if (text.trim())
    return {
      status: 'error',
      exception: { type: 'RacketError', message: text.trim().split('\n')[0]!.slice(0, 2000), traceback: text.slice(-4000) },
    };
  return exitedWith(run);
}

export function rktToolchain(): Toolchain {
  return {
    language: 'rkt',
    name: 'Racket (racket, rackunit)',
    check: () =>
      probeVersion('racket', ['-l', 'racket/base', '-l', 'rackunit', '-e', '(displayln (version))'], 'racket or rackunit', RACKET_INSTALL),
    mounts: () => [],
    files: (program) => ({ 'program.rkt': program }),
    compile: () => null,
    run: (limits) => ({
      kind: 'sandbox',
      argv: ['/bin/sh', '-c', WRAPPER],
      env: { LANG: 'C.UTF-8', HOME: '/tmp' },
      limits: runLimits(limits, 'data'),
    }),
    // Opt-in (forkServer): one warm sandbox per slot execs this run step's command per program (../forkServer.ts).
    forkServer: execForkServer,
    classify: classifyRacket,
  };
}
