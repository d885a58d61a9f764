/**
 * JavaScript (MultiPL-E `js`): as its eval_javascript.py, `node program.js`; exit 0 is OK, a
 * SyntaxError is MultiPL-E's SyntaxError (`compile_error`: Node parses before it runs), an
 * assertion (ERR_ASSERTION) `failed`, another exception `error`.
 * Memory: RLIMIT_DATA, not RLIMIT_AS: V8 reserves address space it never uses (its code range)
 * and fails to start under a 512 MiB RLIMIT_AS. V8's old space is set to half the limit, so a
 * memory bomb ends in V8's own "heap out of memory" (status `oom`).
 */
import type { RunOutcome, StepResult, Toolchain } from '../contract.js';
import { BUILD_DIR } from '../contract.js';
import { exitedWith, firstLine, killedBy, probeVersion, runLimits } from './common.js';
import type { ExecutionLimits } from '../../../../domain/execution/types.js';
import { execForkServer } from '../forkServer.js';

export const NODE_INSTALL = 'install Node.js 20 or later (Debian: apt-get install nodejs; or from nodejs.org) so that `node` is on PATH';

export function nodeArgs(limits: ExecutionLimits, script: string): string[] {
  return ['node', `--max-old-space-size=${Math.max(64, Math.floor(limits.memoryBytes / 2 / 1024 / 1024))}`, '--stack-size=984', script];
}

/** Node's end, read as MultiPL-E would (ERR_ASSERTION is a failed test) and finer. */
export function classifyNode(run: StepResult): RunOutcome {
  const text = run.stderr;
  if (/heap out of memory|Allocation failed|Reached heap limit|FATAL ERROR: .*Out of memory|Fatal process (out of memory|OOM)/i.test(text))
    return { status: 'oom', exception: { type: 'OutOfMemory', message: firstLine(text, /memory/i) ?? 'out of memory' } };
  if (run.signal) return killedBy(run);
  // MultiPL-E's eval_javascript.py: a SyntaxError in the output is its SyntaxError (the program did
  // not parse): our compile_error.
  if (/^SyntaxError\b/m.test(text))
    return {
      status: 'compile_error',
      exception: { type: 'SyntaxError', message: firstLine(text, /^SyntaxError/) ?? 'SyntaxError', traceback: text.slice(-4000) },
    };
  if (/ERR_ASSERTION|AssertionError/.test(text))
    return {
      status: 'failed',
      exception: {
        type: 'AssertionError',
        message: (firstLine(text, /^AssertionError\b/) ?? firstLine(text, /AssertionError/) ?? 'assertion failed').slice(0, 2000),
        traceback: text.slice(-4000),
      },
    };
  const thrown = /^(\w*(?:Error|Exception))\b:?\s*(.*)$/m.exec(text);
  if (thrown) return { status: 'error', exception: { type: thrown[1]!, message: thrown[2] ?? '', traceback: text.slice(-4000) } };
  return exitedWith(run);
}

export function jsToolchain(): Toolchain {
  return {
    language: 'js',
    name: 'JavaScript (Node.js)',
    check: () => probeVersion('node', ['--version'], 'node', NODE_INSTALL, {}, { keepBetweenRuns: true }),
    mounts: () => [],
    files: (program) => ({ 'program.js': program }),
    compile: () => null,
    run: (limits) => ({
      kind: 'sandbox',
      argv: nodeArgs(limits, `${BUILD_DIR}/program.js`),
      env: { LANG: 'C.UTF-8' },
      limits: runLimits(limits, 'data'),
    }),
    // Opt-in (forkServer): one warm sandbox per slot execs this run step's command per program (../forkServer.ts).
    forkServer: execForkServer,
    classify: classifyNode,
  };
}
