/**
 * PHP (MultiPL-E `php`): as its eval_php.py, `php program.php`; "PHP Parse error" is its
 * SyntaxError (`compile_error`), another non-zero exit an Exception. The tests throw
 * `Exception("Test failed!")` on a wrong answer: `failed`; any other uncaught throwable `error`.
 * PHP reports to stdout or stderr as its ini says (display_errors / log_errors): both are read.
 * Memory: RLIMIT_AS (PHP's own memory_limit is off in the CLI); "Out of memory" / "Allowed memory
 * size ... exhausted" are `oom`.
 */
import { fileURLToPath } from 'node:url';
import type { RunOutcome, StepResult, Toolchain } from '../contract.js';
import { BUILD_DIR } from '../contract.js';
import { exitedWith, firstLine, killedBy, probeVersion, runLimits } from './common.js';

export const PHP_INSTALL = 'run `npm run setup -- --languages php` (Debian: apt-get install php-cli) so that `php` is on PATH';

export function classifyPhp(run: StepResult): RunOutcome {
  const text = `${run.stdout}\n${run.stderr}`;
  if (/Out of memory|Allowed memory size of \d+ bytes exhausted/.test(text))
    return { status: 'oom', exception: { type: 'OutOfMemory', message: firstLine(text, /memory/i) ?? 'out of memory' } };
  if (run.signal) return killedBy(run);
  if (/PHP Parse error|^Parse error:/m.test(text))
    return {
      status: 'compile_error',
      exception: { type: 'ParseError', message: firstLine(text, /Parse error/) ?? 'parse error', traceback: text.slice(-4000) },
    };
  if (/Uncaught Exception: Test failed!/.test(text))
    return {
      status: 'failed',
      exception: { type: 'AssertionError', message: firstLine(text, /Test failed!/)!.slice(0, 2000), traceback: text.slice(-4000) },
    };
  const uncaught = /Uncaught (\w+): (.*)$/m.exec(text);
  if (uncaught)
    return { status: 'error', exception: { type: uncaught[1]!, message: uncaught[2]!.slice(0, 2000), traceback: text.slice(-4000) } };
  return exitedWith(run);
}

export function phpToolchain(): Toolchain {
  return {
    language: 'php',
    name: 'PHP (php-cli)',
    check: () => probeVersion('php', ['--version'], 'php', PHP_INSTALL),
    mounts: () => [],
    files: (program) => ({ 'program.php': program }),
    compile: () => null,
    run: (limits) => ({
      kind: 'sandbox',
      argv: ['php', `${BUILD_DIR}/program.php`],
      env: { LANG: 'C.UTF-8' },
      limits: runLimits(limits, 'address-space'),
    }),
    // A warm php per slot forks each program (opt-in: ../forkServer.ts). Its requests come on fd 3 and
    // its stdin is /dev/null from the start, as a lone run's: PHP fixes STDIN's kind of stream at start.
    forkServer: () => ({
      script: fileURLToPath(new URL('../fork/php.php', import.meta.url)),
      argv: (script) => ['sh', '-c', 'exec php "$0" 3<&0 0</dev/null', script],
    }),
    classify: classifyPhp,
  };
}
