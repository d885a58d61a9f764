/**
 * The sandbox scripts/evaluate.ts scores in: the runners a sweep's worker has (SandboxPool.forLanguage),
 * the first started at once, while the families are imported and the rows read and checked
 * (start-up: docs/benchmarks.md).
 */
import type { ProcessLanguageId } from '../../domain/languages/registry.js';
import { SandboxPool } from '../../infra/sandbox/pool.js';
import type { EvaluateOptions } from './evaluate-args.js';
import { processLanguageHint } from './evaluate-early-runner.js';
import { toolchainProblem } from './evaluate-process.js';

export interface EvaluateSandbox {
  pool: SandboxPool;
  /** The language the first rows name, when a process runner runs it; the language whose runner was started early. */
  hint: ProcessLanguageId | undefined;
  early: ProcessLanguageId | 'python';
  /** When the early runner was asked for (performance.now()). */
  startedAt: number;
}

/**
 * The pool, its first runner starting: the process runner of the language a MultiPL-E file's
 * first row names (its toolchain checked first), else Python's. Closed with the pool if the input
 * is refused.
 */
export async function startEvaluateSandbox(
  opts: EvaluateOptions,
  problemsText: string,
  family: string | undefined,
): Promise<EvaluateSandbox> {
  const pool = new SandboxPool({
    concurrency: opts.workers,
    limits: { timeoutMs: timeoutMsOf(opts) },
    ...(opts.python ? { python: opts.python } : {}),
    shareProcess: opts.shareProcess,
    forkServer: opts.forkServer,
  });
  const hint = processLanguageHint(problemsText, family);
  const early = hint && (await toolchainProblem(hint)) === null ? hint : 'python';
  pool.forLanguage(early).catch(() => undefined); // a runner that fails to start is started again when needed, and its error reported then
  return { pool, hint, early, startedAt: performance.now() };
}

/** A sample's time limit, from `--timeout` (seconds). */
export const timeoutMsOf = (opts: Pick<EvaluateOptions, 'timeout'>): number => Math.round(opts.timeout * 1000);
