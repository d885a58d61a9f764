/**
 * R (MultiPL-E `r`): `Rscript program.r`, as MultiPL-E's R evaluator runs it; exit 0 is OK,
 * anything else an Exception. The tests are `stopifnot(isTRUE(all.equal(candidate(...), ...)))`:
 * "... is not TRUE" is `failed`; a program R cannot parse ("Error: unexpected ...", before any of
 * it runs, since the function comes first) `compile_error`; another error `error`; "cannot
 * allocate vector" `oom`. Memory: RLIMIT_DATA (R reserves address space at start it does not use).
 */
import type { RunOutcome, StepResult, Toolchain } from '../contract.js';
import { BUILD_DIR } from '../contract.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { exitedWith, firstLine, killedBy, probeVersion, runLimits } from './common.js';
import { binaryIdentity, fileIdentity } from './keptBetweenRuns.js';
import { rForkServer } from '../rForkServer.js';

export const R_INSTALL = 'run `npm run setup -- --languages r` (Debian: apt-get install r-base-core) so that `Rscript` is on PATH';

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

/** The files of R_HOME that Rscript's answer comes from: the R it starts, its library, its environment file and the base package. */
const R_HOME_FILES = ['bin/exec/R', 'lib/libR.so', 'etc/Renviron', 'library/base/DESCRIPTION'];

/**
 * What the check's answer depends on beyond Rscript's own binary (which the kept probe covers):
 * the R installation Rscript starts. Rscript finds it through R_HOME, else the directory its build
 * names, which the `R` launcher script beside it spells out (`R_HOME_DIR=...`); a replaced or
 * upgraded R changes one of these files, and the probe runs again. Read without starting R: that
 * start (~0.2 s) is what keeping the answer saves.
 */
export function rDependsOn(path: string = process.env.PATH ?? '/usr/bin:/bin', env: NodeJS.ProcessEnv = process.env): unknown {
  const launcher = binaryIdentity('R', path)?.file;
  let home = env.R_HOME || undefined;
  if (!home && launcher) {
    try {
      home = /^R_HOME_DIR=(\S+)$/m.exec(readFileSync(launcher, 'utf8').slice(0, 4096))?.[1];
    } catch {
      home = undefined;
    }
  }
  return {
    launcher: launcher ?? null,
    home: home ?? null,
    files: home ? R_HOME_FILES.map((f) => [f, fileIdentity(join(home, f)) ?? null]) : [],
  };
}

export function rToolchain(): Toolchain {
  return {
    language: 'r',
    name: 'R (Rscript)',
    check: () =>
      probeVersion(
        'Rscript',
        ['-e', 'cat(R.version.string, "\\n")'],
        'Rscript',
        R_INSTALL,
        {},
        { keepBetweenRuns: true, alsoDependsOn: rDependsOn },
      ),
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
