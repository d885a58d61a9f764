/** pass@k against exact combinatorics: 1 - C(n-c, k) / C(n, k), computed with BigInt binomials. */
import { describe, expect, it } from 'vitest';
import { estimateAtK, estimatePassAndSuccessAtK, meanInterval, passAtK } from '../../domain/metrics/passAtK.js';

function binomial(n: number, k: number): bigint {
  if (k < 0 || k > n) return 0n;
  let result = 1n;
  for (let i = 1; i <= k; i++) result = (result * BigInt(n - k + i)) / BigInt(i);
  return result;
}

/** Exact 1 - C(n-c,k)/C(n,k), as a double, from an exact rational with 40 digits to spare. */
function exactPassAtK(n: number, c: number, k: number): number {
  const numerator = binomial(n - c, k);
  const denominator = binomial(n, k);
  const scale = 10n ** 40n;
  return 1 - Number((numerator * scale) / denominator) / 1e40;
}

describe('passAtK', () => {
  it('matches exact combinatorics for every n <= 30, c <= n, k <= n', () => {
    let checked = 0;
    for (let n = 1; n <= 30; n++) {
      for (let c = 0; c <= n; c++) {
        for (let k = 1; k <= n; k++) {
          expect(passAtK(n, c, k), `n=${n} c=${c} k=${k}`).toBeCloseTo(exactPassAtK(n, c, k), 12);
          checked++;
        }
      }
    }
    expect(checked).toBe(9920);
  });

  it('stays accurate where binomials are astronomically large (n=200)', () => {
    for (const [c, k] of [
      [1, 1],
      [3, 100],
      [50, 10],
      [199, 150],
      [0, 200],
    ] as const) {
      expect(passAtK(200, c, k), `c=${c} k=${k}`).toBeCloseTo(exactPassAtK(200, c, k), 12);
    }
  });

  it('pass@1 is the fraction correct; no correct sample gives 0; k > n - c gives 1', () => {
    expect(passAtK(10, 3, 1)).toBeCloseTo(0.3, 15);
    expect(passAtK(10, 0, 5)).toBe(0);
    expect(passAtK(10, 6, 5)).toBe(1);
  });

  it('rejects counts and k it cannot score', () => {
    expect(() => passAtK(5, 6, 1)).toThrow(RangeError);
    expect(() => passAtK(0, 0, 1)).toThrow(RangeError);
    expect(() => passAtK(5, 1, 0)).toThrow(RangeError);
    expect(() => passAtK(5, 1, 6)).toThrow(/k must be <= n/);
  });
});

describe('estimateAtK', () => {
  const tasks = [
    { taskId: 'a', n: 10, c: 2 },
    { taskId: 'b', n: 5, c: 5 },
    { taskId: 'c', n: 8, c: 0 },
  ];

  it('averages per-task estimates and keeps per-task n and c', () => {
    const estimate = estimateAtK(tasks, [1, 5]);
    expect(estimate.ks).toEqual([1, 5]);
    expect(estimate.averages['1']).toBeCloseTo((0.2 + 1 + 0) / 3, 15);
    expect(estimate.averages['5']).toBeCloseTo((exactPassAtK(10, 2, 5) + 1 + 0) / 3, 12);
    expect(estimate.perTask.map(({ taskId, n, c }) => ({ taskId, n, c }))).toEqual(tasks);
    expect(estimate.perTask[0]!.atK['5']).toBeCloseTo(exactPassAtK(10, 2, 5), 12);
    expect(estimate.dropped).toEqual([]);
  });

  it('drops k larger than the smallest n, with the reason, instead of estimating it wrongly', () => {
    const estimate = estimateAtK(tasks, [10, 1, 100, 0]);
    expect(estimate.ks).toEqual([1]);
    expect(Object.keys(estimate.averages)).toEqual(['1']);
    expect(estimate.dropped).toEqual([
      'k=0: not a positive integer',
      'k=10: larger than the smallest number of samples of a task (n=5)',
      'k=100: larger than the smallest number of samples of a task (n=5)',
    ]);
  });

  it('scores nothing without tasks, and says so', () => {
    expect(estimateAtK([], [1])).toMatchObject({ ks: [], averages: {}, dropped: ['k=1: no tasks to score'] });
  });

  it('names the task of an impossible count', () => {
    expect(() => estimateAtK([{ taskId: 'x', n: 3, c: 4 }], [1])).toThrow(/task x/);
  });

  it('success@k uses the same estimator over the successes', () => {
    const { pass, success } = estimatePassAndSuccessAtK([{ taskId: 't', n: 4, passed: 1, succeeded: 3 }], [1, 2]);
    expect(pass.averages).toEqual({ '1': 0.25, '2': 0.5 });
    expect(success.averages['1']).toBeCloseTo(0.75, 15);
    expect(success.averages['2']).toBeCloseTo(1, 15);
    expect(success.perTask[0]).toMatchObject({ taskId: 't', n: 4, c: 3 });
  });
});

describe('meanInterval (standard error and 95% interval over tasks)', () => {
  it('is the sample sd over sqrt(T), and mean ± 1.96 SE, as computed by hand', () => {
    // [1, 0, 0.5, 0.5]: mean 0.5; squared deviations 0.25 + 0.25 + 0 + 0 = 0.5, over T - 1 = 3:
    // variance 1/6, sd 0.408248; SE = sd / 2 = 0.204124; 1.96 SE = 0.400083.
    const ci = meanInterval([1, 0, 0.5, 0.5]);
    expect(ci.mean).toBe(0.5);
    expect(ci.stderr).toBeCloseTo(Math.sqrt(1 / 6) / 2, 15);
    expect(ci.stderr).toBeCloseTo(0.204124, 6);
    expect(ci.low).toBeCloseTo(0.099917, 6);
    expect(ci.high).toBeCloseTo(0.900083, 6);
  });

  it('has no standard error or interval with one task (null, not 0)', () => {
    expect(meanInterval([0.3])).toEqual({ mean: 0.3, stderr: null, low: null, high: null });
  });

  it('is clipped to [0, 1]', () => {
    // [1, 1, 1, 0]: mean 0.75, sd 0.5, SE 0.25, 0.75 ± 0.49 → [0.26, 1.24] → [0.26, 1].
    const top = meanInterval([1, 1, 1, 0]);
    expect(top.stderr).toBeCloseTo(0.25, 15);
    expect(top.low).toBeCloseTo(0.26, 12);
    expect(top.high).toBe(1);
    // And its mirror image at 0.
    const bottom = meanInterval([0, 0, 0, 1]);
    expect(bottom.low).toBe(0);
    expect(bottom.high).toBeCloseTo(0.74, 12);
  });

  it('is a point when every task scores the same', () => {
    expect(meanInterval([1, 1, 1])).toEqual({ mean: 1, stderr: 0, low: 1, high: 1 });
  });

  it('estimateAtK gives one per scored k, over the per-task estimates, with the averages as means', () => {
    const estimate = estimateAtK(
      [
        { n: 4, c: 4 },
        { n: 4, c: 0 },
        { n: 4, c: 2 },
        { n: 4, c: 2 },
      ],
      [1, 2, 8],
    );
    expect(Object.keys(estimate.intervals)).toEqual(['1', '2']);
    expect(estimate.intervals['1']).toEqual(meanInterval([1, 0, 0.5, 0.5]));
    // pass@2 of c = 2 of 4: 1 - C(2,2)/C(4,2) = 5/6.
    expect(estimate.intervals['2']).toEqual(meanInterval(estimate.perTask.map((t) => t.atK['2']!)));
    expect(estimate.perTask[2]!.atK['2']).toBeCloseTo(5 / 6, 15);
    for (const k of ['1', '2']) expect(estimate.intervals[k]!.mean).toBe(estimate.averages[k]);
    expect(estimateAtK([{ n: 3, c: 1 }], [1]).intervals).toEqual({ '1': { mean: passAtK(3, 1, 1), stderr: null, low: null, high: null } });
  });
});
