/**
 * Ruby (MultiPL-E `rb`): as its eval_ruby.py, `ruby program.rb`; exit 0 is OK. The tests are a
 * Test::Unit case (test/unit, which exits 1 when a test does not pass): a failed assertion is
 * `failed`, an exception in a test `error` (from test/unit's summary line); a program that does not
 * parse ("syntax error", before any test runs) `compile_error`; NoMemoryError `oom`. Memory:
 * RLIMIT_DATA, as for the other runtimes with their own heap (its arenas and thread stacks are address space it may never touch).
 */
import { fileURLToPath } from 'node:url';
import type { RunOutcome, StepResult, Toolchain } from '../contract.js';
import { BUILD_DIR } from '../contract.js';
import { exitedWith, firstLine, killedBy, probeVersion, runLimits } from './common.js';

export const RUBY_INSTALL =
  'run `npm run setup -- --languages rb` (Debian: apt-get install ruby ruby-test-unit) so that `ruby` and test/unit are there';

export function classifyRuby(run: StepResult): RunOutcome {
  const text = `${run.stdout}\n${run.stderr}`;
  if (/NoMemoryError|failed to allocate memory/.test(text))
    return { status: 'oom', exception: { type: 'NoMemoryError', message: firstLine(text, /memory/i) ?? 'failed to allocate memory' } };
  if (run.signal) return killedBy(run);
  // test/unit's summary: "1 tests, 1 assertions, 1 failures, 0 errors, ...".
  const summary = /\d+ tests, \d+ assertions, (\d+) failures, (\d+) errors/.exec(run.stdout);
  if (summary && Number(summary[1]) > 0)
    return {
      status: 'failed',
      exception: {
        type: 'Test::Unit::AssertionFailedError',
        message: (firstLine(run.stdout, /expected but was|^Failure:/) ?? summary[0]).slice(0, 2000),
        traceback: run.stdout.slice(-4000),
      },
    };
  if (summary) {
    const error = /^Error: [^:]+: ([\w:]+): (.*)$/m.exec(run.stdout);
    return {
      status: 'error',
      exception: { type: error?.[1] ?? 'Error', message: (error?.[2] ?? summary[0]).slice(0, 2000), traceback: run.stdout.slice(-4000) },
    };
  }
  if (/^\S+:\d+: syntax error/m.test(run.stderr))
    return {
      status: 'compile_error',
      exception: {
        type: 'SyntaxError',
        message: firstLine(run.stderr, /syntax error/) ?? 'syntax error',
        traceback: run.stderr.slice(-4000),
      },
    };
  const raised = /^\S+:\d+:in [^:]+: (.*) \(([\w:]+)\)$/m.exec(run.stderr);
  if (raised) return { status: 'error', exception: { type: raised[2]!, message: raised[1]!, traceback: run.stderr.slice(-4000) } };
  return exitedWith(run);
}

export function rbToolchain(): Toolchain {
  return {
    language: 'rb',
    name: 'Ruby (ruby, test/unit)',
    // test/unit/version, not test/unit: the latter would run an (empty) suite at exit.
    check: () =>
      probeVersion(
        'ruby',
        ['-e', 'require \'test/unit/version\'; puts "#{RUBY_DESCRIPTION}, test-unit #{Test::Unit::VERSION}"'],
        'ruby or test/unit',
        RUBY_INSTALL,
      ),
    mounts: () => [],
    files: (program) => ({ 'program.rb': program }),
    compile: () => null,
    run: (limits) => ({
      kind: 'sandbox',
      argv: ['ruby', `${BUILD_DIR}/program.rb`],
      env: { LANG: 'C.UTF-8', HOME: '/tmp' },
      limits: runLimits(limits, 'data'),
    }),
    // A warm ruby with test/unit loaded forks each program (opt-in: ../forkServer.ts).
    forkServer: () => ({ script: fileURLToPath(new URL('../fork/rb.rb', import.meta.url)), argv: (script) => ['ruby', script] }),
    classify: classifyRuby,
  };
}
