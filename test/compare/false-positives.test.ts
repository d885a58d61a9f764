/**
 * The paired tests' false-positive rate, by simulation: two identical methods (each task's samples
 * drawn from the same pass probability for both) compared over many simulated benchmarks. At the
 * 5% level the rate must stay near 5%: below 5% + 3 standard errors of a rate over R replications
 * (a valid test), and above 2% (a test that never rejected would pass the first bound alone; both
 * tests are discrete, hence somewhat conservative). A real difference of 20 points is found most of the time.
 */
import { describe, expect, it } from 'vitest';
import { mcnemarExact, pairedPermutationTest, seededUniform } from '../../domain/compare/stats.js';

const REPLICATIONS = 2000;
const ALPHA = 0.05;
/** 3 standard errors of an observed rate at 5% over REPLICATIONS: ~0.0146. */
const SLACK = 3 * Math.sqrt((ALPHA * (1 - ALPHA)) / REPLICATIONS);

/** Per task: passes of `n` samples at probability p, for two methods of task probabilities pa, pb. */
function simulate(uniform: () => number, tasks: number, n: number, shift: number): { a: number[]; b: number[] } {
  const a: number[] = [];
  const b: number[] = [];
  for (let t = 0; t < tasks; t++) {
    const p = uniform();
    const passes = (q: number) => Array.from({ length: n }, () => (uniform() < q ? 1 : 0) as number).reduce((s, x) => s + x, 0);
    a.push(passes(Math.min(1, p + shift)) / n);
    b.push(passes(p) / n);
  }
  return { a, b };
}

function rejectionRate(test: (diffs: number[]) => number, tasks: number, n: number, shift: number, seed: number): number {
  const uniform = seededUniform(seed);
  let rejected = 0;
  for (let r = 0; r < REPLICATIONS; r++) {
    const { a, b } = simulate(uniform, tasks, n, shift);
    if (test(a.map((x, i) => x - b[i]!)) < ALPHA) rejected++;
  }
  return rejected / REPLICATIONS;
}

const mcnemar = (diffs: number[]) => mcnemarExact(diffs.filter((d) => d > 0).length, diffs.filter((d) => d < 0).length);
// 999 random sign patterns per test (beyond 20 non-zero differences): Monte Carlo, as for a large benchmark.
const permutation = (diffs: number[]) => pairedPermutationTest(diffs, { permutations: 999, seed: 5 }).p;

describe('the paired tests on two identical methods', () => {
  it('McNemar exact (one sample per task, 80 tasks): false positives at most 5% (+3 s.e.), and not below 2%', () => {
    const rate = rejectionRate(mcnemar, 80, 1, 0, 101);
    // McNemar's exact test is conservative (its binomial is discrete): its rate sits somewhat below 5%.
    expect(rate).toBeLessThanOrEqual(ALPHA + SLACK);
    expect(rate).toBeGreaterThan(0.02);
  });

  it('the permutation test (10 samples per task, 40 tasks): false positives within 5% ± 3 s.e.', () => {
    const rate = rejectionRate(permutation, 40, 10, 0, 202);
    expect(rate).toBeLessThanOrEqual(ALPHA + SLACK);
    expect(rate).toBeGreaterThanOrEqual(ALPHA - SLACK);
  });

  it('the permutation test (5 samples per task, 40 tasks): false positives at most 5% (+3 s.e.), and not below 2%', () => {
    // Pass rates of 5 samples move in steps of 0.2, so the sums take few values and ties with the
    // observed sum count against rejecting: the test is conservative there (about 3.5%).
    const rate = rejectionRate(permutation, 40, 5, 0, 203);
    expect(rate).toBeLessThanOrEqual(ALPHA + SLACK);
    expect(rate).toBeGreaterThan(0.02);
  });

  it('the permutation test, exact (5 samples per task, 12 tasks): false positives at most 5% (+3 s.e.)', () => {
    const rate = rejectionRate((d) => pairedPermutationTest(d).p, 12, 5, 0, 303);
    expect(rate).toBeLessThanOrEqual(ALPHA + SLACK);
    expect(rate).toBeGreaterThan(0.02);
  });

  it('a real difference of 20 points is found most of the time by both', () => {
    expect(rejectionRate(mcnemar, 80, 1, 0.2, 404)).toBeGreaterThan(0.6);
    expect(rejectionRate(permutation, 40, 5, 0.2, 505)).toBeGreaterThan(0.8);
  });
});
