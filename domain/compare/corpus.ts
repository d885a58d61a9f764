/**
 * The paired bootstrap over tasks for a corpus metric (Koehn 2004, "Statistical significance tests
 * for machine translation evaluation"): a corpus metric such as BLEU is not a mean of per-task
 * values, so its difference cannot be tested task by task. Instead the tasks are resampled with
 * replacement, the SAME resampled tasks for both cells, and the metric is recomputed for each cell
 * from the resampled tasks' summed statistics: the spread of the resampled differences is the
 * uncertainty of the difference.
 */
import type { MetricFigures, TextStats } from '../families/types.js';
import {
  bootstrapResampler,
  DEFAULT_BOOTSTRAP_RESAMPLES,
  DEFAULT_SEED,
  percentileSorted,
  type BootstrapOptions,
  type Interval,
} from './stats.js';

/** A task's share of a corpus metric: its scored samples' statistics, summed, and how many samples. */
export interface TaskStats {
  samples: number;
  stats: Readonly<TextStats>;
}

/** The figure a comparison tests, from summed statistics (the metric's headline, CorpusMetric.figures). */
export type CorpusFigure = (sums: Readonly<TextStats>, samples: number) => number;

export interface CorpusBootstrap {
  a: number;
  b: number;
  /** a - b on all the tasks. */
  diff: number;
  /** 2.5th and 97.5th percentiles of the resampled differences (null with fewer than two tasks). */
  interval: Interval | null;
  /** Two-sided: (1 + #{r : |d*_r - d| >= |d|}) / (1 + R); 1 with fewer than two tasks. */
  p: number;
}

/** The headline figure of a metric's figures, refusing one that is not a number. */
export function headlineFigure(figures: (sums: Readonly<TextStats>, count: number) => MetricFigures, headline: string): CorpusFigure {
  return (sums, samples) => {
    const v = figures(sums, samples)[headline];
    if (typeof v !== 'number') throw new TypeError(`the corpus metric's headline ${headline} is not a number`);
    return v;
  };
}

/**
 * The tasks' statistics as one dense matrix over one list of keys (row i: task i), so that a
 * resample sums numbers, not objects: a comparison sums tasks x resamples rows (code-to-text has
 * some 15,000 tasks).
 */
interface Dense {
  keys: readonly string[];
  values: Float64Array;
  samples: Float64Array;
}

function dense(tasks: readonly TaskStats[], keys: readonly string[]): Dense {
  const values = new Float64Array(tasks.length * keys.length);
  tasks.forEach((t, i) => keys.forEach((k, j) => (values[i * keys.length + j] = t.stats[k] ?? 0)));
  return { keys, values, samples: Float64Array.from(tasks, (t) => t.samples) };
}

/** The figure of a set of tasks (with multiplicity: `idx` lists task indices, repeats allowed). */
function figureOf(tasks: Dense, idx: ArrayLike<number>, figure: CorpusFigure): number {
  const width = tasks.keys.length;
  const acc = new Float64Array(width);
  let samples = 0;
  for (let i = 0; i < idx.length; i++) {
    const at = idx[i]!;
    samples += tasks.samples[at]!;
    for (let k = 0, o = at * width; k < width; k++, o++) acc[k]! += tasks.values[o]!;
  }
  const sums: TextStats = {};
  tasks.keys.forEach((key, k) => (sums[key] = acc[k]!));
  return figure(sums, samples);
}

/**
 * Paired bootstrap of a corpus metric's difference, A minus B, over tasks (a[i] and b[i] are the
 * same task). The p-value is the shifted bootstrap's: under "no difference" the resampled
 * differences would spread around 0 as they spread around the observed d, so p counts the
 * resamples at least |d| away from d (Koehn 2004; Riezler & Maxwell 2005; the + 1 keeps it above 0).
 * Identical cells give d = 0, every d*_r = 0, p = 1 and the interval [0, 0].
 */
export function pairedCorpusBootstrap(
  a: readonly TaskStats[],
  b: readonly TaskStats[],
  figure: CorpusFigure,
  opts: BootstrapOptions = {},
): CorpusBootstrap {
  if (a.length !== b.length) throw new RangeError(`paired bootstrap of ${a.length} and ${b.length} tasks`);
  const tasks = a.length;
  const keys = [...new Set([...a, ...b].flatMap((t) => Object.keys(t.stats)))].sort();
  const [da, db] = [dense(a, keys), dense(b, keys)];
  const all = Uint32Array.from({ length: tasks }, (_, i) => i);
  const fa = figureOf(da, all, figure);
  const fb = figureOf(db, all, figure);
  const diff = fa - fb;
  if (tasks < 2) return { a: fa, b: fb, diff, interval: null, p: 1 };
  const resamples = opts.resamples ?? DEFAULT_BOOTSTRAP_RESAMPLES;
  const draw = bootstrapResampler(opts.seed ?? DEFAULT_SEED);
  const diffs = new Float64Array(resamples);
  let far = 0;
  for (let r = 0; r < resamples; r++) {
    const idx = draw(tasks);
    diffs[r] = figureOf(da, idx, figure) - figureOf(db, idx, figure);
    // A relative tolerance: the same sums taken in another order must not count as a deviation.
    if (Math.abs(diffs[r]! - diff) >= Math.abs(diff) - 1e-12 * Math.max(1, Math.abs(diff))) far++;
  }
  diffs.sort();
  return {
    a: fa,
    b: fb,
    diff,
    interval: { low: percentileSorted(diffs, 2.5), high: percentileSorted(diffs, 97.5) },
    p: Math.min(1, (far + 1) / (resamples + 1)),
  };
}
