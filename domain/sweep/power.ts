/**
 * Power of the paired comparisons a sweep's grid implies, before it runs: for a chosen baseline
 * pass@1, the smallest difference two cells on the planned tasks x n samples can be told apart at
 * 80% power, with the test `scripts/compare.ts` uses (domain/compare/stats.ts):
 * - n = 1: McNemar's exact test, whose power is computed exactly (every number of discordant tasks,
 *   every split of them);
 * - n > 1: the paired sign-flip permutation test on per-task pass rates, through its normal
 *   approximation: S = sum of the d_i is referred to +-z sqrt(sum of d_i^2), so with E[d] = delta and
 *   Var(d) = sigma^2 it rejects with probability
 *     Phi((sqrt(T) delta - z sqrt(sigma^2 + delta^2)) / sigma) + Phi((-sqrt(T) delta - z sqrt(sigma^2 + delta^2)) / sigma).
 * The model of the tasks: every task has pass probability p under B and p + delta under A, samples
 * independent. Tasks of varying difficulty have less sampling variance than that (mean p(1-p) over
 * tasks is at most p(1-p) at their mean), so with a constant effect the real test is at least this
 * powerful; an effect that helps some tasks and hurts others adds variance this model leaves out.
 */

export const DEFAULT_POWER = 0.8;
export const DEFAULT_ALPHA = 0.05;
/** Resolution of the detectable difference: a bisection to this width. */
const RESOLUTION = 1e-4;

// ---------------------------------------------------------------------------------------------
// The standard normal

const SQRT_PI = Math.sqrt(Math.PI);

/** erfc(x) for x >= 0 to near double precision: a series of positive terms below 3, Lentz's continued fraction above. */
function erfcNonNegative(x: number): number {
  if (x < 3) {
    // erf(x) = 2/sqrt(pi) e^(-x^2) sum 2^n x^(2n+1) / (1 3 5 ... (2n+1)): no cancellation.
    let term = x;
    let sum = x;
    for (let n = 1; n < 200 && term > sum * 1e-17; n++) {
      term *= (2 * x * x) / (2 * n + 1);
      sum += term;
    }
    return 1 - (2 / SQRT_PI) * Math.exp(-x * x) * sum;
  }
  // erfc(x) = e^(-x^2)/sqrt(pi) * 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + ...))))).
  const tiny = 1e-300;
  let f = x;
  let c = x;
  let d = 0;
  for (let k = 1; k < 500; k++) {
    const a = k / 2;
    d = x + a * d;
    d = d === 0 ? tiny : 1 / d;
    c = x + a / c;
    if (c === 0) c = tiny;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return Math.exp(-x * x) / SQRT_PI / f;
}

/** The standard normal's distribution function. */
export function normalCdf(x: number): number {
  const y = x / Math.SQRT2;
  return y <= 0 ? 0.5 * erfcNonNegative(-y) : 1 - 0.5 * erfcNonNegative(y);
}

/** The standard normal's quantile: Acklam's rational approximation, refined by Newton steps on normalCdf. */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`normal quantile of ${p}: needs 0 < p < 1`);
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const low = 0.02425;
  let x: number;
  if (p < low) {
    const q = Math.sqrt(-2 * Math.log(p));
    x =
      (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) /
      ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  } else if (p <= 1 - low) {
    const q = p - 0.5;
    const r = q * q;
    x =
      ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) /
      (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1);
  } else {
    const q = Math.sqrt(-2 * Math.log(1 - p));
    x =
      -(((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) /
      ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  }
  for (let i = 0; i < 2; i++) x -= (normalCdf(x) - p) / (Math.exp((-x * x) / 2) / Math.sqrt(2 * Math.PI));
  return x;
}

// ---------------------------------------------------------------------------------------------
// Power of one comparison

export interface PowerQuestion {
  /** Tasks both cells are scored on. */
  tasks: number;
  /** Samples per task (n). */
  samples: number;
  /** B's pass@1 (the baseline), strictly between 0 and 1. */
  baseline: number;
  /** Two-sided level of the test. */
  alpha: number;
}

/** Power of the sign-flip test's normal approximation (the module's comment) for A = baseline + difference. */
export function normalApproximationPower(q: PowerQuestion, difference: number): number {
  const pA = q.baseline + difference;
  const pB = q.baseline;
  const sigma = Math.sqrt((pA * (1 - pA) + pB * (1 - pB)) / q.samples);
  const z = normalQuantile(1 - q.alpha / 2);
  const critical = z * Math.sqrt(sigma * sigma + difference * difference);
  const shift = Math.sqrt(q.tasks) * difference;
  return normalCdf((shift - critical) / sigma) + normalCdf((-shift - critical) / sigma);
}

/** log k! for k = 0..n. */
function logFactorials(n: number): Float64Array {
  const out = new Float64Array(n + 1);
  for (let k = 2; k <= n; k++) out[k] = out[k - 1]! + Math.log(k);
  return out;
}

/**
 * P(X <= k) for X ~ Binomial(m, p), summed from k down (one exp, then each term from the one above),
 * stopping once the terms no longer matter: a few dozen terms for a tail, where summing from 0
 * would take k and underflow on the way.
 */
function binomialLowerTail(m: number, k: number, p: number, logFact: Float64Array): number {
  if (k < 0) return 0;
  if (k >= m) return 1;
  if (p === 0) return 1;
  if (p === 1) return 0;
  // Above the mean the terms grow downwards for a long way: take the complement's tail instead.
  if (k > m * p) return 1 - binomialLowerTail(m, m - k - 1, 1 - p, logFact);
  let term = Math.exp(logFact[m]! - logFact[k]! - logFact[m - k]! + k * Math.log(p) + (m - k) * Math.log(1 - p));
  let sum = term;
  const ratio = (1 - p) / p;
  for (let j = k; j > 0; j--) {
    // pmf(j - 1) = pmf(j) * j / (m - j + 1) * (1 - p) / p
    const next = (term * j * ratio) / (m - j + 1);
    sum += next;
    if (next < term && next < sum * 1e-17) break;
    term = next;
  }
  return Math.min(1, sum);
}

/**
 * Largest c whose split (c, m - c) of m discordant tasks McNemar's exact test calls significant
 * (2 P(X <= c) < alpha for X ~ Binomial(m, 1/2), as mcnemarExact), or -1 when no split is.
 */
function mcnemarCritical(m: number, alpha: number, z: number, logFact: Float64Array): number {
  const significant = (c: number) => 2 * binomialLowerTail(m, c, 0.5, logFact) < alpha;
  // Start near the normal approximation's answer, then step to the exact one.
  let c = Math.min(Math.floor((m - 1) / 2), Math.max(-1, Math.floor(m / 2 - (z * Math.sqrt(m)) / 2)));
  while (c >= 0 && !significant(c)) c--;
  while (c + 1 < m / 2 && significant(c + 1)) c++;
  return c;
}

/** Cache of critical values per (alpha, m): they do not depend on the difference, which a search varies. */
const criticalCache = new Map<number, Map<number, number>>();

/**
 * Exact power of McNemar's exact test (n = 1) for A = baseline + difference: the number of discordant
 * tasks m ~ Binomial(T, p10 + p01), A's share of them ~ Binomial(m, p10 / (p10 + p01)), with
 * p10 = pA (1 - pB) and p01 = pB (1 - pA); rejected when mcnemarExact(split) < alpha.
 */
export function mcnemarExactPower(q: Pick<PowerQuestion, 'tasks' | 'baseline' | 'alpha'>, difference: number): number {
  const T = q.tasks;
  const pA = q.baseline + difference;
  const pB = q.baseline;
  const p10 = pA * (1 - pB);
  const p01 = pB * (1 - pA);
  const pd = p10 + p01;
  if (T === 0 || pd === 0) return 0;
  const share = p10 / pd;
  const logFact = logFactorials(T);
  let critical = criticalCache.get(q.alpha);
  if (!critical) criticalCache.set(q.alpha, (critical = new Map()));
  const z = normalQuantile(1 - q.alpha / 2);
  // Only the discordant counts within 12 sd of the mean carry weight above 1e-30.
  const mean = T * pd;
  const sd = Math.sqrt(T * pd * (1 - pd));
  const from = Math.max(0, Math.floor(mean - 12 * sd - 1));
  const to = Math.min(T, Math.ceil(mean + 12 * sd + 1));
  const logPd = Math.log(pd);
  const log1Pd = pd < 1 ? Math.log(1 - pd) : -Infinity;
  const xlogy = (x: number, logY: number) => (x === 0 ? 0 : x * logY);
  let power = 0;
  for (let m = from; m <= to; m++) {
    const weight = Math.exp(logFact[T]! - logFact[m]! - logFact[T - m]! + xlogy(m, logPd) + xlogy(T - m, log1Pd));
    if (weight === 0) continue;
    let c = critical.get(m);
    if (c === undefined) critical.set(m, (c = mcnemarCritical(m, q.alpha, z, logFact)));
    if (c < 0) continue;
    // A wins at most c of the m, or B does.
    const reject = binomialLowerTail(m, c, share, logFact) + binomialLowerTail(m, c, 1 - share, logFact);
    power += weight * reject;
  }
  return Math.min(1, power);
}

/** The power of compare's test for A = baseline + difference: exact for n = 1, the normal approximation above. */
export function pass1Power(q: PowerQuestion, difference: number): number {
  return q.samples === 1 ? mcnemarExactPower(q, difference) : normalApproximationPower(q, difference);
}

/**
 * Whether compare's test can reject at all with this many tasks: its smallest p is that of every
 * task differing one way, 2 / 2^T (McNemar's and the sign-flip test's alike).
 */
export function canEverReject(tasks: number, alpha: number): boolean {
  return tasks > 0 && 2 * Math.pow(2, -tasks) < alpha;
}

/**
 * The smallest rise over the baseline pass@1 that compare's test detects with at least `power`
 * (to RESOLUTION), or null when no rise up to a pass@1 of 1 does. The exact power of n = 1 is not
 * quite monotone (discrete splits); the bisection finds a crossing of the target, which is where
 * it first stays above it to within the resolution.
 */
export function detectableDifference(q: PowerQuestion, power = DEFAULT_POWER, computePower = pass1Power): number | null {
  if (!canEverReject(q.tasks, q.alpha)) return null;
  const top = 1 - q.baseline;
  if (computePower(q, top) < power) return null;
  let lo = 0;
  let hi = top;
  while (hi - lo > RESOLUTION) {
    const mid = (lo + hi) / 2;
    if (computePower(q, mid) >= power) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** The smallest n in 1..limit that is `enough`, by bisection (enough must hold from some n on, and at limit). */
function smallestEnough(enough: (n: number) => boolean, limit: number): number {
  let lo = 0;
  let hi = limit;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (enough(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

/**
 * Tasks needed for `difference` at `power` with n samples, by the normal approximation (the tests
 * are exact; this is a planning figure): the smallest T, or null beyond `limit`.
 */
export function tasksNeeded(q: Omit<PowerQuestion, 'tasks'>, difference: number, power = DEFAULT_POWER, limit = 1_000_000): number | null {
  const enough = (tasks: number) => canEverReject(tasks, q.alpha) && normalApproximationPower({ ...q, tasks }, difference) >= power;
  if (q.baseline + difference > 1 || !enough(limit)) return null;
  return smallestEnough(enough, limit);
}

/** Samples per task needed for `difference` at `power` on these tasks (normal approximation), or null beyond `limit`. */
export function samplesNeeded(q: Omit<PowerQuestion, 'samples'>, difference: number, power = DEFAULT_POWER, limit = 10_000): number | null {
  const enough = (samples: number) => canEverReject(q.tasks, q.alpha) && normalApproximationPower({ ...q, samples }, difference) >= power;
  if (q.baseline + difference > 1 || !enough(limit)) return null;
  return smallestEnough(enough, limit);
}
