/**
 * explora's paired statistics against an independent computation: SciPy, statsmodels and NumPy in a
 * test-only venv (scripts/install-test-python.sh, installed here on first use), on fixed per-task data,
 * to 1e-6. The bootstrap is checked twice: fed explora's own resamples (exact, to 1e-6), and against
 * scipy.stats.bootstrap's percentile method with SciPy's resamples (agreement to resampling noise).
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { passAtK } from '../../domain/metrics/passAtK.js';
import {
  bootstrapResampler,
  holmAdjust,
  mcnemarExact,
  pairedBootstrapInterval,
  pairedNormalInterval,
  pairedPermutationTest,
} from '../../domain/compare/stats.js';
import { PROJECT_ROOT } from '../../stack/local-stack.js';

const PYTHON = path.join(PROJECT_ROOT, '.tools/test-python/bin/python');
const RESAMPLES = 4000;
const SEED = 7;

interface Case {
  name: string;
  a: number[];
  b: number[];
  binary?: boolean;
  permutation?: boolean;
}

// Fixed per-task data. 40 tasks of one sample each (pass/fail): McNemar's case.
const passFail = (pattern: string) => [...pattern].map((ch) => Number(ch));
const CASES: Case[] = [
  {
    name: 'one sample per task, 40 tasks',
    a: passFail('1101101110011101101011100111011011101101'),
    b: passFail('1001100110010101001011000110011001100001'),
    binary: true,
  },
  {
    name: 'one sample per task, B better, 25 tasks',
    a: passFail('0100100010010001000110010'),
    b: passFail('1101101110010111001111011'),
    binary: true,
  },
  {
    name: 'pass rates c/5 over 14 tasks',
    a: [5, 4, 3, 5, 0, 2, 4, 5, 1, 3, 4, 5, 2, 0].map((c) => c / 5),
    b: [4, 4, 1, 3, 0, 2, 2, 5, 0, 3, 1, 4, 3, 0].map((c) => c / 5),
    permutation: true,
  },
  {
    name: 'pass@2 from 6 samples over 16 tasks',
    a: [6, 3, 2, 0, 5, 1, 4, 6, 2, 3, 0, 1, 5, 2, 4, 3].map((c) => passAtK(6, c, 2)),
    b: [5, 3, 0, 1, 4, 0, 4, 5, 1, 1, 0, 2, 3, 2, 2, 3].map((c) => passAtK(6, c, 2)),
    permutation: true,
  },
];
const HOLM = [[0.01, 0.04, 0.03, 0.2], [0.5, 0.001, 0.02], [0.04, 0.04, 0.04], [0.3]];
const MCNEMAR: Array<[number, number]> = [
  [0, 7],
  [30, 45],
  [100, 130],
  [12, 12],
  [400, 321],
];

let reference: {
  cases: Array<{
    normal: { low: number; high: number; stderr: number; scipy_low: number; scipy_high: number };
    bootstrap_same_resamples: { low: number; high: number };
    bootstrap_scipy: { low: number; high: number };
    mcnemar?: number;
    permutation?: number;
  }>;
  holm: number[][];
  mcnemar: number[];
};

beforeAll(() => {
  execFileSync('bash', [path.join(PROJECT_ROOT, 'scripts/install-test-python.sh')], { stdio: 'inherit' });
  const input = {
    cases: CASES.map((c) => {
      const draw = bootstrapResampler(SEED);
      return { ...c, resamples: Array.from({ length: RESAMPLES }, () => Array.from(draw(c.a.length))), scipy_resamples: 20_000 };
    }),
    holm: HOLM,
    mcnemar: MCNEMAR,
  };
  reference = JSON.parse(
    execFileSync(PYTHON, [path.join(PROJECT_ROOT, 'test/compare/reference.py')], {
      input: JSON.stringify(input),
      maxBuffer: 1 << 26,
    }).toString(),
  );
}, 600_000);

const TOL = 1e-6;
const close = (actual: number, expected: number, what: string) =>
  expect(Math.abs(actual - expected), `${what}: ${actual} vs ${expected}`).toBeLessThan(TOL);

describe('paired statistics against SciPy / statsmodels', () => {
  CASES.forEach((c, i) => {
    const diffs = c.a.map((x, j) => x - c.b[j]!);
    it(`${c.name}: the paired normal interval (statsmodels zconfint_mean, scipy sem)`, () => {
      const ref = reference.cases[i]!.normal;
      const mine = pairedNormalInterval(diffs)!;
      close(mine.low, ref.low, 'low');
      close(mine.high, ref.high, 'high');
      close(mine.stderr, ref.stderr, 'stderr');
      close(mine.low, ref.scipy_low, 'low (scipy)');
    });
    it(`${c.name}: the paired bootstrap, on the same resamples (NumPy percentiles)`, () => {
      const ref = reference.cases[i]!.bootstrap_same_resamples;
      const mine = pairedBootstrapInterval(diffs, { resamples: RESAMPLES, seed: SEED })!;
      close(mine.low, ref.low, 'low');
      close(mine.high, ref.high, 'high');
    });
    it(`${c.name}: the paired bootstrap agrees with scipy.stats.bootstrap (percentile) within resampling noise`, () => {
      // Different resamples on each side: the ends of a percentile interval move by about
      // sd(d)/sqrt(T) * 0.1 between runs of 10-20k resamples; 0.02 on a difference of rates is
      // several times that here, and 10x below the intervals' widths.
      const ref = reference.cases[i]!.bootstrap_scipy;
      const mine = pairedBootstrapInterval(diffs, { resamples: 20_000, seed: SEED })!;
      expect(Math.abs(mine.low - ref.low)).toBeLessThan(0.02);
      expect(Math.abs(mine.high - ref.high)).toBeLessThan(0.02);
    });
    if (c.binary) {
      it(`${c.name}: McNemar exact (statsmodels mcnemar(exact=True))`, () => {
        const onlyA = diffs.filter((d) => d > 0).length;
        const onlyB = diffs.filter((d) => d < 0).length;
        close(mcnemarExact(onlyA, onlyB), reference.cases[i]!.mcnemar!, 'p');
        // The exact sign-flip test on 0/1 outcomes is McNemar's test.
        close(pairedPermutationTest(diffs).p, reference.cases[i]!.mcnemar!, 'p (permutation)');
      });
    }
    if (c.permutation) {
      it(`${c.name}: the paired permutation test (scipy.stats.permutation_test, exact)`, () => {
        const mine = pairedPermutationTest(diffs);
        expect(mine.method).toBe('exact');
        close(mine.p, reference.cases[i]!.permutation!, 'p');
      });
    }
  });

  it('McNemar exact on larger tables', () => {
    MCNEMAR.forEach(([x, y], i) => close(mcnemarExact(x, y), reference.mcnemar[i]!, `${x} vs ${y}`));
  });

  it('Holm (statsmodels multipletests)', () => {
    HOLM.forEach((ps, i) => holmAdjust(ps).forEach((p, j) => close(p, reference.holm[i]![j]!, `holm ${i}.${j}`)));
  });
});
