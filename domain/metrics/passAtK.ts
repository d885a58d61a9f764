/**
 * pass@k (and success@k, the same estimator over a different count) with the unbiased estimator of
 * Chen et al. (2021): for a task with n samples of which c are correct,
 *
 *   pass@k = 1 - C(n - c, k) / C(n, k) = 1 - prod_{i = n-c+1}^{n} (1 - k / i)
 *
 * computed in the product form, which never forms a large binomial and is numerically stable.
 * It is unbiased only for k <= n, so a k larger than the smallest n of the tasks is not scored:
 * it is dropped, with the reason, never silently estimated.
 */

/** pass@k of one task: n samples, c of them correct. */
export function passAtK(n: number, c: number, k: number): number {
  assertCounts(n, c);
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be a positive integer, got ${k}`);
  if (k > n) throw new RangeError(`pass@${k} is not defined for n=${n} samples (k must be <= n)`);
  if (n - c < k) return 1;
  let allWrong = 1;
  for (let i = n - c + 1; i <= n; i++) allWrong *= 1 - k / i;
  return 1 - allWrong;
}

export interface TaskCounts {
  taskId?: string;
  /** Samples of the task. */
  n: number;
  /** Samples counted as correct (passed for pass@k, succeeded for success@k). */
  c: number;
}

export interface TaskEstimate extends TaskCounts {
  /** Estimate per scored k, keyed by k ("1", "10", ...). */
  atK: Record<string, number>;
}

export interface AtKEstimate {
  /** The requested k that could be scored, ascending. */
  ks: number[];
  /** Mean over tasks of the per-task estimates, keyed by k ("1", "10", ...). */
  averages: Record<string, number>;
  /** Standard error and 95% interval of each average, over tasks (see meanInterval), keyed by k. */
  intervals: Record<string, MeanInterval>;
  perTask: TaskEstimate[];
  /** Requested k that were not scored, each with the reason. */
  dropped: string[];
}

/** Per-task and averaged estimates for every requested k that every task can support. */
export function estimateAtK(tasks: readonly TaskCounts[], ks: readonly number[]): AtKEstimate {
  for (const task of tasks) assertCounts(task.n, task.c, task.taskId);
  const requested = [...new Set(ks)].sort((a, b) => a - b);
  const dropped: string[] = [];
  const scored: number[] = [];
  const smallestN = tasks.length > 0 ? Math.min(...tasks.map((t) => t.n)) : 0;
  for (const k of requested) {
    if (!Number.isInteger(k) || k < 1) dropped.push(`k=${k}: not a positive integer`);
    else if (tasks.length === 0) dropped.push(`k=${k}: no tasks to score`);
    else if (k > smallestN) dropped.push(`k=${k}: larger than the smallest number of samples of a task (n=${smallestN})`);
    else scored.push(k);
  }
  const perTask = tasks.map((task) => ({
    ...task,
    atK: Object.fromEntries(scored.map((k) => [String(k), passAtK(task.n, task.c, k)])),
  }));
  const averages = Object.fromEntries(
    scored.map((k) => [String(k), perTask.reduce((sum, t) => sum + t.atK[String(k)]!, 0) / perTask.length]),
  );
  const intervals = Object.fromEntries(scored.map((k) => [String(k), meanInterval(perTask.map((t) => t.atK[String(k)]!))]));
  return { ks: scored, averages, perTask, dropped, intervals };
}

/**
 * The uncertainty of a mean over tasks: its standard error and a 95% interval.
 *
 * The unit is the task, not the sample: each task contributes its own unbiased estimate p_i (over its
 * n samples), and the spread of those estimates across the T tasks is what the interval measures. So
 * it says how much the score would move on another draw of tasks like these, which is what comparing
 * two cells on a benchmark needs; it does not (and cannot, with one value per task) separate the
 * sampling noise within a task from the difference between tasks.
 *
 *   mean   = (1/T) * sum p_i
 *   stderr = sd / sqrt(T), sd the sample standard deviation (divisor T - 1)
 *   95%    = mean -/+ 1.96 * stderr, clipped to [0, 1]
 *
 * This is the normal approximation, with the standard error as Inspect AI's `stderr` metric reports it
 * (sample sd over sqrt(T)). It was chosen over a bootstrap over tasks because it is what Inspect
 * reports (so numbers compare), is deterministic (no seed, same bytes on every finalize), and is
 * cheap (one pass). Near 0 or 1, and with few tasks, it is rough (symmetric, hence the clipping);
 * a bootstrap or a Wilson-type interval would do better there.
 *
 * With one task there is no spread to measure: stderr, low and high are null (not 0, which would
 * claim certainty). With no tasks the mean is NaN and the rest null; estimateAtK never asks for it.
 */
export interface MeanInterval {
  mean: number;
  /** Standard error of the mean over tasks, or null with fewer than two tasks. */
  stderr: number | null;
  /** Lower end of the 95% interval (normal approximation, clipped to 0), or null. */
  low: number | null;
  /** Upper end of the 95% interval (normal approximation, clipped to 1), or null. */
  high: number | null;
}

/** z of the two-sided 95% normal interval. */
export const Z_95 = 1.96;

/** Mean, standard error (sample sd / sqrt(T)) and 95% normal interval of per-task estimates in [0, 1]. */
export function meanInterval(values: readonly number[]): MeanInterval {
  const t = values.length;
  const mean = values.reduce((sum, v) => sum + v, 0) / t;
  if (t < 2) return { mean, stderr: null, low: null, high: null };
  const variance = values.reduce((sum, v) => sum + (v - mean) ** 2, 0) / (t - 1);
  const stderr = Math.sqrt(variance / t);
  return { mean, stderr, low: Math.max(0, mean - Z_95 * stderr), high: Math.min(1, mean + Z_95 * stderr) };
}

function assertCounts(n: number, c: number, taskId?: string): void {
  const where = taskId === undefined ? '' : ` (task ${taskId})`;
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`n must be a positive integer, got ${n}${where}`);
  if (!Number.isInteger(c) || c < 0 || c > n) throw new RangeError(`c must be an integer in [0, n=${n}], got ${c}${where}`);
}

export interface TaskOutcomes {
  taskId?: string;
  n: number;
  /** Samples that passed (ran to the end of the test). */
  passed: number;
  /** Samples that succeeded: passed, or stopped only on a test assertion (see isSuccess). */
  succeeded: number;
}

/** pass@k and success@k of the same tasks, with the same k. */
export function estimatePassAndSuccessAtK(
  tasks: readonly TaskOutcomes[],
  ks: readonly number[],
): { pass: AtKEstimate; success: AtKEstimate } {
  return {
    pass: estimateAtK(
      tasks.map((t) => ({ taskId: t.taskId, n: t.n, c: t.passed })),
      ks,
    ),
    success: estimateAtK(
      tasks.map((t) => ({ taskId: t.taskId, n: t.n, c: t.succeeded })),
      ks,
    ),
  };
}
