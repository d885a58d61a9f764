/**
 * R (MultiPL-E `r`): `Rscript program.r`, as MultiPL-E's R evaluator runs it; exit 0 is OK,
 * anything else an Exception. The tests are `stopifnot(isTRUE(all.equal(candidate(...), ...)))`:
 * "... is not TRUE" is `failed`; a program R cannot parse ("Error: unexpected ...", before any of
 * it runs, since the function comes first) `compile_error`; another error `error`; "cannot
 * allocate vector" `oom`. Memory: RLIMIT_DATA (R reserves address space at start it does not use).
 */
import type { RunOutcome, StepResult, Toolchain } from '../contract.js';
import { BUILD_DIR } from '../contract.js';
import { exitedWith, firstLine, killedBy, probeVersion, runLimits } from './common.js';
import { rForkServer } from '../rForkServer.js';

export const R_INSTALL = 'run bash scripts/install-toolchains.sh (Debian: apt-get install r-base-core) so that `Rscript` is on PATH';

export function classifyR(run: StepResult): RunOutcome {
  const text = run.stderr;
  if (/cannot allocate (vector|memory)|memory exhausted/i.test(text))
    return { status: 'oom', exception: { type: 'OutOfMemory', message: firstLine(text, /allocate|memory/i) ?? 'out of memory' } };
  if (run.signal) return killedBy(run);
  if (/^Error: unexpected /m.test(text))
    return {
      status: 'compile_error',
      exception: {
        type: 'SyntaxError',
        message: firstLine(text, /^Error: unexpected/) ?? 'unexpected input',
        traceback: text.slice(-4000),
      },
    };
  if (/(is|are) not (all )?TRUE/.test(text))
    return {
      status: 'failed',
      exception: {
        type: 'AssertionError',
        message: (firstLine(text, /not (all )?TRUE/) ?? 'a stopifnot was not TRUE').slice(0, 2000),
        traceback: text.slice(-4000),
      },
    };
  if (/^Error/m.test(text))
    return {
      status: 'error',
      exception: { type: 'RError', message: (firstLine(text, /^Error/) ?? '').slice(0, 2000), traceback: text.slice(-4000) },
    };
  return exitedWith(run);
}

export function rToolchain(): Toolchain {
  return {
    language: 'r',
    name: 'R (Rscript)',
    check: () => probeVersion('Rscript', ['-e', 'cat(R.version.string, "\\n")'], 'Rscript', R_INSTALL),
    mounts: () => [],
    files: (program) => ({ 'program.r': program }),
    compile: () => null,
    run: (limits) => ({
      kind: 'sandbox',
      argv: ['Rscript', `${BUILD_DIR}/program.r`],
      env: { LANG: 'C.UTF-8', HOME: '/tmp' },
      limits: runLimits(limits, 'data'),
    }),
    // A warm Rscript per slot forks each program (opt-in: ../forkServer.ts, ../rForkServer.ts).
    forkServer: rForkServer,
    classify: classifyR,
  };
}
