/**
 * Bash (MultiPL-E `sh`): as its eval_sh.py, `bash program.sh`; exit 0 is OK, "syntax error" in
 * the output its SyntaxError (`compile_error`), anything else an Exception. The tests are `[[ ... ]]`
 * comparisons under `set -e`: a wrong answer ends the script with exit 1 and nothing said
 * (`failed`). bash's "cannot allocate" is `oom`. Memory: RLIMIT_AS.
 */
import type { RunOutcome, StepResult, Toolchain } from '../contract.js';
import { BUILD_DIR } from '../contract.js';
import { exitedWith, firstLine, killedBy, probeVersion, runLimits } from './common.js';
import { execForkServer } from '../forkServer.js';

export const BASH_INSTALL = 'run `npm run setup -- --languages sh` (Debian: apt-get install bash) so that `bash` is on PATH';

export function classifyBash(run: StepResult): RunOutcome {
  const text = run.stderr;
  if (/cannot allocate|xmalloc|out of memory/i.test(text))
    return { status: 'oom', exception: { type: 'OutOfMemory', message: firstLine(text, /allocate|memory/i) ?? 'out of memory' } };
  if (run.signal) return killedBy(run);
  if (/syntax error/.test(text))
    return {
      status: 'compile_error',
      exception: { type: 'SyntaxError', message: firstLine(text, /syntax error/) ?? 'syntax error', traceback: text.slice(-4000) },
    };
  if (run.exitCode === 1 && !text.trim())
    return { status: 'failed', exception: { type: 'TestFailure', message: 'a [[ ... ]] comparison of the tests was false (set -e)' } };
  return exitedWith(run);
}

export function shToolchain(): Toolchain {
  return {
    language: 'sh',
    name: 'Bash',
    check: () => probeVersion('bash', ['--version'], 'bash', BASH_INSTALL),
    mounts: () => [],
    files: (program) => ({ 'program.sh': program }),
    compile: () => null,
    run: (limits) => ({
      kind: 'sandbox',
      argv: ['bash', `${BUILD_DIR}/program.sh`],
      env: { LANG: 'C.UTF-8' },
      limits: runLimits(limits, 'address-space'),
    }),
    // Opt-in (forkServer): one warm sandbox per slot execs this run step's command per program (../forkServer.ts).
    forkServer: execForkServer,
    classify: classifyBash,
  };
}
