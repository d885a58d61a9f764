/**
 * Perl (MultiPL-E `pl`): as its eval_pl.py, `perl program.pl`; a non-zero exit is an Exception.
 * The tests compare with Test::Deep's eq_deeply and `exit 1` on a wrong answer: exit 1 is
 * `failed`; a program perl does not compile ("syntax error at", "compilation aborted")
 * `compile_error`; a `die` (exit 255) `error`; "Out of memory!" `oom`. Memory: RLIMIT_AS.
 * One difference: eval_pl.py also calls an exit 0 with "ERROR" in the output an Exception; here
 * exit 0 is a pass for every language (the process runner's rule), and the tests never print it.
 */
import { fileURLToPath } from 'node:url';
import type { RunOutcome, StepResult, Toolchain } from '../contract.js';
import { BUILD_DIR } from '../contract.js';
import { exitedWith, firstLine, killedBy, probeVersion, runLimits } from './common.js';

export const PERL_INSTALL =
  'run `npm run setup -- --languages pl` (Debian: apt-get install perl libtest-deep-perl) so that `perl` and Test::Deep are there';

export function classifyPerl(run: StepResult): RunOutcome {
  const text = run.stderr;
  if (/^Out of memory!/m.test(text)) return { status: 'oom', exception: { type: 'OutOfMemory', message: 'Out of memory!' } };
  if (run.signal) return killedBy(run);
  if (/syntax error at |compilation aborted|aborted due to compilation errors/.test(text))
    return {
      status: 'compile_error',
      exception: {
        type: 'SyntaxError',
        message: firstLine(text, /syntax error|compilation/) ?? 'compilation failed',
        traceback: text.slice(-4000),
      },
    };
  // The translated tests' own way of saying a wrong answer.
  if (run.exitCode === 1)
    return {
      status: 'failed',
      exception: { type: 'TestFailure', message: text.trim().slice(0, 2000) || 'a test exited 1 (eq_deeply was false)' },
    };
  if (run.exitCode === 255 && text.trim())
    return {
      status: 'error',
      exception: { type: 'Die', message: text.trim().split('\n')[0]!.slice(0, 2000), traceback: text.slice(-4000) },
    };
  return exitedWith(run);
}

export function plToolchain(): Toolchain {
  return {
    language: 'pl',
    name: 'Perl (perl, Test::Deep)',
    check: () =>
      probeVersion(
        'perl',
        ['-MTest::Deep', '-e', 'print "perl $^V, Test::Deep $Test::Deep::VERSION\\n"'],
        'perl or Test::Deep',
        PERL_INSTALL,
      ),
    mounts: () => [],
    files: (program) => ({ 'program.pl': program }),
    compile: () => null,
    run: (limits) => ({
      kind: 'sandbox',
      argv: ['perl', `${BUILD_DIR}/program.pl`],
      env: { LANG: 'C.UTF-8' },
      limits: runLimits(limits, 'address-space'),
    }),
    // A warm perl with Test::Deep loaded forks each program (opt-in: ../forkServer.ts).
    forkServer: () => ({ script: fileURLToPath(new URL('../fork/pl.pl', import.meta.url)), argv: (script) => ['perl', script] }),
    classify: classifyPerl,
  };
}
