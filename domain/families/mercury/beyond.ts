/**
 * Mercury's efficiency score (bigcode's custom_metrics/beyond_eval.py), as pure arithmetic:
 * - a sample's Beyond is where its runtime falls in the range of the task's reference solutions'
 *   runtimes (those that passed): (slowest - runtime) / (slowest - fastest), the runtime clamped to
 *   the range, so 1 is at least as fast as the fastest reference and 0 at most as fast as the
 *   slowest; a sample that fails counts as infinitely slow (0);
 * - Beyond@k of a set of tasks is the mean over tasks of the mean of its first k samples' Beyond
 *   (bigcode's estimate_beyond_at_k: the first k in sample order, not an estimator over subsets);
 * - pass@k and Beyond@k are reported per difficulty (Easy, Medium, Hard) and over all tasks
 *   (Average), each k of 1, 3, 5, 10, 15, 20, 30, 50, 100 only when every task of the group has at
 *   least k samples; with the first run's status counted per difficulty (bigcode's `errors`).
 * Where bigcode's code raises, explora answers (docs/datasets/mercury.md): no reference passing
 * (bigcode: min() of an empty list) leaves the sample unranked (null) and its task out of Beyond@k;
 * a range of zero width (one passing reference, or equal runtimes: bigcode divides by zero) gives
 * 1 to a runtime at most the references' and 0 to a slower one; a difficulty without tasks
 * (bigcode: a division by zero) has no figures.
 */
import { passAtK } from '../../metrics/passAtK.js';

export const MERCURY_DIFFICULTIES = ['Easy', 'Medium', 'Hard'] as const;
export type MercuryDifficulty = (typeof MERCURY_DIFFICULTIES)[number];

/** bigcode's run statuses (Sandbox.unsafe_execute, run_sample), in its errors dict's order. */
export const MERCURY_STATUSES = ['failed@load', 'failed@eval', 'failed@cases', 'failed@timeout', 'failed@error', 'passed'] as const;
export type MercuryStatus = (typeof MERCURY_STATUSES)[number];

/** compute_beyond_eval's k. */
export const MERCURY_KS = [1, 3, 5, 10, 15, 20, 30, 50, 100] as const;

/**
 * A sample's Beyond: its runtime (null: it failed) against the passing references' runtimes (any
 * order, any unit shared with it); null when no reference passed.
 */
export function beyondOf(runtime: number | null, references: readonly number[]): number | null {
  if (references.length === 0) return null;
  const fastest = Math.min(...references);
  const slowest = Math.max(...references);
  if (runtime === null) return 0;
  if (slowest === fastest) return runtime <= fastest ? 1 : 0;
  const clamped = Math.max(Math.min(runtime, slowest), fastest);
  return (slowest - clamped) / (slowest - fastest);
}

/** A task as the cell's figures see it: its difficulty, samples, passes, and its samples' Beyond in sample order (null: unranked). */
export interface MercuryTaskTally {
  difficulty: MercuryDifficulty;
  n: number;
  c: number;
  /** The first samples' Beyond, by sample index (at most the largest k). */
  beyond: ReadonlyArray<number | null>;
  statuses: Readonly<Partial<Record<MercuryStatus, number>>>;
}

/** bigcode's results dict for Mercury: `<group>_pass@k`, `<group>_beyond@k` per group, then each difficulty's status counts. */
export interface MercuryResults {
  /** `Easy_pass@1`, `Easy_beyond@1`, ..., `Average_beyond@k`: in bigcode's order. */
  figures: Record<string, number>;
  errors: Record<MercuryDifficulty, Record<MercuryStatus, number>>;
  /** Tasks left out of Beyond@k because no reference passed in a sample's run. */
  unranked: number;
}

const mean = (xs: readonly number[]) => xs.reduce((a, x) => a + x, 0) / xs.length;

/** compute_beyond_eval's results over the tasks (in task order). */
export function mercuryResults(tasks: readonly MercuryTaskTally[]): MercuryResults {
  const figures: Record<string, number> = {};
  const groups: Array<[string, MercuryTaskTally[]]> = [
    ...MERCURY_DIFFICULTIES.map((d) => [d, tasks.filter((t) => t.difficulty === d)] as [string, MercuryTaskTally[]]),
    ['Average', [...tasks]],
  ];
  const ranked = (t: MercuryTaskTally) => t.beyond.slice(0, t.n).every((b) => b !== null);
  for (const [group, members] of groups) {
    if (members.length === 0) continue;
    const ks = MERCURY_KS.filter((k) => members.every((t) => t.n >= k));
    for (const k of ks) figures[`${group}_pass@${k}`] = mean(members.map((t) => passAtK(t.n, t.c, k)));
    const withBeyond = members.filter(ranked);
    if (withBeyond.length === 0) continue;
    for (const k of ks)
      figures[`${group}_beyond@${k}`] = mean(withBeyond.map((t) => t.beyond.slice(0, k).reduce<number>((a, b) => a + b!, 0) / k));
  }
  const errors = Object.fromEntries(
    MERCURY_DIFFICULTIES.map((d) => [
      d,
      Object.fromEntries(
        MERCURY_STATUSES.map((s) => [s, tasks.filter((t) => t.difficulty === d).reduce((a, t) => a + (t.statuses[s] ?? 0), 0)]),
      ),
    ]),
  ) as MercuryResults['errors'];
  return { figures, errors, unranked: tasks.filter((t) => !ranked(t)).length };
}
