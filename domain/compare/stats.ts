/**
 * Paired statistics over tasks, for comparing two cells scored on the same tasks: each task gives a
 * pair of values (one per cell) and everything here works on the per-task differences d_i = a_i - b_i,
 * so that how hard a task is cancels out. Pure and deterministic: the resampling draws from a
 * seeded generator, so a comparison prints the same numbers on every run.
 */

/** The 97.5% quantile of the standard normal (scipy.stats.norm.ppf(0.975)): a two-sided 95% interval. */
export const Z_975 = 1.959963984540054;

/** The seed every comparison resamples with unless told otherwise (the numbers must not move between runs). */
export const DEFAULT_SEED = 29;
export const DEFAULT_BOOTSTRAP_RESAMPLES = 10_000;
export const DEFAULT_PERMUTATIONS = 100_000;
/** Up to this many non-zero differences the permutation test enumerates every sign pattern (2^16 = 65,536). */
export const EXACT_PERMUTATION_LIMIT = 16;

/**
 * mulberry32: a 32-bit state generator, plenty for resampling (not for cryptography). Written here
 * so that a comparison's numbers depend on no library's generator. Its raw 32-bit outputs.
 */
export function seededUint32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

/** Uniform numbers in [0, 1) from seededUint32. */
export function seededUniform(seed: number): () => number {
  const next = seededUint32(seed);
  return () => next() / 0x1_0000_0000;
}

/**
 * The task indices of each bootstrap resample, drawn in order from `seed`: resample r is the r-th
 * call. Exported so that a test can hand the very same resamples to an independent computation.
 */
export function bootstrapResampler(seed: number): (tasks: number) => Uint32Array {
  const uniform = seededUniform(seed);
  return (tasks) => {
    const out = new Uint32Array(tasks);
    // floor(u * T) with a 32-bit u: the bias is below T / 2^32, far under the resampling noise.
    for (let i = 0; i < tasks; i++) out[i] = Math.floor(uniform() * tasks);
    return out;
  };
}

/** The q-th percentile (0..100) of sorted values, linearly interpolated (numpy's default, R's type 7). */
export function percentileSorted(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) throw new RangeError('percentile of no values');
  const h = ((sorted.length - 1) * q) / 100;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}

export interface Interval {
  low: number;
  high: number;
}

export interface BootstrapOptions {
  resamples?: number;
  seed?: number;
}

/**
 * Paired bootstrap percentile interval (95%) of the mean difference: tasks are resampled with
 * replacement, each keeping its pair, and the 2.5th and 97.5th percentiles of the resampled means
 * are the interval. Null with fewer than two tasks.
 */
export function pairedBootstrapInterval(diffs: readonly number[], opts: BootstrapOptions = {}): Interval | null {
  const tasks = diffs.length;
  if (tasks < 2) return null;
  const resamples = opts.resamples ?? DEFAULT_BOOTSTRAP_RESAMPLES;
  const draw = bootstrapResampler(opts.seed ?? DEFAULT_SEED);
  const means = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    const idx = draw(tasks);
    let sum = 0;
    for (let i = 0; i < tasks; i++) sum += diffs[idx[i]!]!;
    means[r] = sum / tasks;
  }
  means.sort();
  return { low: percentileSorted(means, 2.5), high: percentileSorted(means, 97.5) };
}

export interface NormalInterval extends Interval {
  mean: number;
  /** Standard error of the mean difference: sample standard deviation (ddof 1) / sqrt(tasks). */
  stderr: number;
}

/** The paired normal approximation: mean difference ± 1.96 standard errors. Null with fewer than two tasks. */
export function pairedNormalInterval(diffs: readonly number[]): NormalInterval | null {
  const tasks = diffs.length;
  if (tasks < 2) return null;
  const mean = diffs.reduce((a, d) => a + d, 0) / tasks;
  const variance = diffs.reduce((a, d) => a + (d - mean) ** 2, 0) / (tasks - 1);
  const stderr = Math.sqrt(variance / tasks);
  return { mean, stderr, low: mean - Z_975 * stderr, high: mean + Z_975 * stderr };
}

/** log C(n, i) for i = 0..n, by the running product (no large factorials). */
function logBinomials(n: number): Float64Array {
  const out = new Float64Array(n + 1);
  for (let i = 1; i <= n; i++) out[i] = out[i - 1]! + Math.log((n - i + 1) / i);
  return out;
}

/**
 * McNemar's exact test on the discordant pairs of two pass/fail outcomes per task: `onlyA` tasks
 * passed by A alone, `onlyB` by B alone. Two-sided p = min(1, 2 P(X <= min(onlyA, onlyB))) for
 * X ~ Binomial(onlyA + onlyB, 1/2) (statsmodels' mcnemar(exact=True)); 1 without discordant pairs.
 */
export function mcnemarExact(onlyA: number, onlyB: number): number {
  const n = onlyA + onlyB;
  if (n === 0) return 1;
  const logC = logBinomials(n);
  const m = Math.min(onlyA, onlyB);
  let tail = 0;
  for (let i = 0; i <= m; i++) tail += Math.exp(logC[i]! - n * Math.LN2);
  return Math.min(1, 2 * tail);
}

export interface PermutationOptions {
  /** Random sign patterns drawn beyond EXACT_PERMUTATION_LIMIT non-zero differences. */
  permutations?: number;
  seed?: number;
}

export interface PermutationResult {
  p: number;
  /** exact: every sign pattern; monte-carlo: `permutations` random ones, p = (hits + 1) / (permutations + 1). */
  method: 'exact' | 'monte-carlo';
  permutations: number;
}

/**
 * The paired permutation (sign-flip) test of a zero mean difference: under the null hypothesis the
 * two cells are exchangeable on each task, so each difference is as likely to have either sign.
 * Two-sided p = 2 min(P(S* <= S), P(S* >= S)), clipped to 1, for S the sum of the differences and S*
 * that of the same differences with random signs (scipy.stats.permutation_test's definition, with
 * permutation_type 'samples'). Zero differences are left out: their sign changes nothing. Exact
 * (all 2^m patterns, in Gray-code order) up to EXACT_PERMUTATION_LIMIT non-zero differences.
 */
export function pairedPermutationTest(diffs: readonly number[], opts: PermutationOptions = {}): PermutationResult {
  const d = diffs.filter((x) => x !== 0);
  const m = d.length;
  if (m === 0) return { p: 1, method: 'exact', permutations: 1 };
  const observed = d.reduce((a, x) => a + x, 0);
  // Sums of the same numbers in another order differ by rounding alone: within this, they are ties.
  const tolerance = 1e-9 * d.reduce((a, x) => a + Math.abs(x), 0);
  let lessEq = 0;
  let greaterEq = 0;
  const count = (s: number) => {
    if (s <= observed + tolerance) lessEq++;
    if (s >= observed - tolerance) greaterEq++;
  };
  if (m <= EXACT_PERMUTATION_LIMIT) {
    const signs = new Int8Array(m).fill(1);
    let s = observed;
    count(s);
    const total = 2 ** m;
    for (let g = 1; g < total; g++) {
      // Gray code: pattern g differs from g - 1 in the sign of the lowest set bit of g.
      const bit = 31 - Math.clz32(g & -g);
      s -= 2 * signs[bit]! * d[bit]!;
      signs[bit] = -signs[bit]! as 1 | -1;
      count(s);
    }
    return { p: Math.min(1, (2 * Math.min(lessEq, greaterEq)) / total), method: 'exact', permutations: total };
  }
  const permutations = opts.permutations ?? DEFAULT_PERMUTATIONS;
  const next = seededUint32(opts.seed ?? DEFAULT_SEED);
  const values = Float64Array.from(d);
  for (let r = 0; r < permutations; r++) {
    let s = 0;
    let bits = 0;
    // One generator output gives 32 signs, a bit each.
    for (let i = 0; i < m; i++) {
      if ((i & 31) === 0) bits = next();
      s += bits & 1 ? -values[i]! : values[i]!;
      bits >>>= 1;
    }
    count(s);
  }
  return { p: Math.min(1, (2 * Math.min(lessEq + 1, greaterEq + 1)) / (permutations + 1)), method: 'monte-carlo', permutations };
}

/**
 * Holm's step-down adjustment of p-values for `ps.length` comparisons: sorted ascending, the i-th
 * (from 0) becomes max over j <= i of min(1, (m - j) p_(j)). Controls the chance of any false
 * positive among them at the chosen level, without assuming independence. Returned in input order.
 */
export function holmAdjust(ps: readonly number[]): number[] {
  const m = ps.length;
  const order = ps.map((p, i) => ({ p, i })).sort((a, b) => a.p - b.p || a.i - b.i);
  const out = new Array<number>(m);
  let running = 0;
  order.forEach(({ p, i }, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * p));
    out[i] = running;
  });
  return out;
}
