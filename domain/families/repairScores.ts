/**
 * What bigcode's repair tasks (quixbugs.py, parity.py) report per task: compute_code_eval on the
 * task's samples alone, with its default k = [1, 10, 100], each pass@k only when the task has at
 * least k samples (its `(total >= k).all()`), by its estimator.
 */
import { passAtK } from '../metrics/passAtK.js';

/** compute_code_eval's default k, which both tasks' process_results leave as they are. */
export const BIGCODE_DEFAULT_K = [1, 10, 100] as const;

/** One task's {"pass@k": ...} as compute_code_eval returns it for the task's n samples, c passing. */
export function bigcodeTaskPassAtK(n: number, c: number): Record<string, number> {
  return Object.fromEntries(BIGCODE_DEFAULT_K.filter((k) => n >= k).map((k) => [`pass@${k}`, passAtK(n, c, k)]));
}
