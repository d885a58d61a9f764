/**
 * The dry run's power figures against an independent computation (SciPy and statsmodels in the
 * test-only venv, scripts/install-test-python.sh): the exact power of McNemar's exact test summed
 * over statsmodels' own p-values, the normal approximation as statsmodels' NormalIndPower, the
 * detectable differences by SciPy's root finder; and by simulation, with compare's own tests
 * (domain/compare/stats.ts) on simulated sweeps, that the planned difference is detected ~80% of the time.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { mcnemarExact, pairedPermutationTest, seededUniform } from '../../domain/compare/stats.js';
import { detectableDifference, mcnemarExactPower, normalApproximationPower, normalCdf, normalQuantile } from '../../domain/sweep/power.js';
import { PROJECT_ROOT } from '../../stack/local-stack.js';

const PYTHON = path.join(PROJECT_ROOT, '.tools/test-python/bin/python');
const CDF = [0, 1.96, -3.5, 6, -8.2, 0.3, 2.9999, 3.0001];
const QUANTILE = [0.975, 0.001, 0.5, 0.9, 1e-9, 0.995];
const MCNEMAR = [
  { tasks: 40, baseline: 0.5, difference: 0.2, alpha: 0.05 },
  { tasks: 100, baseline: 0.3, difference: 0.1, alpha: 0.05 },
  { tasks: 80, baseline: 0.15, difference: 0.12, alpha: 0.01 },
  { tasks: 12, baseline: 0.5, difference: 0.45, alpha: 0.05 },
];
const NORMAL = [
  { tasks: 164, samples: 10, baseline: 0.3, difference: 0.05, alpha: 0.05 },
  { tasks: 40, samples: 5, baseline: 0.7, difference: 0.2, alpha: 0.05 },
  { tasks: 500, samples: 2, baseline: 0.05, difference: 0.02, alpha: 0.01 },
];
const DETECTABLE_NORMAL = [
  { tasks: 164, samples: 10, baseline: 0.3, alpha: 0.05 },
  { tasks: 30, samples: 20, baseline: 0.5, alpha: 0.05 },
  { tasks: 974, samples: 3, baseline: 0.6, alpha: 0.01 },
];
const DETECTABLE_MCNEMAR = [
  { tasks: 40, baseline: 0.5, alpha: 0.05 },
  { tasks: 60, baseline: 0.2, alpha: 0.05 },
];

let reference: {
  cdf: number[];
  quantile: number[];
  mcnemar: number[];
  normal: number[];
  detectable_normal: number[];
  detectable_mcnemar: number[];
};

beforeAll(() => {
  execFileSync('bash', [path.join(PROJECT_ROOT, 'scripts/install-test-python.sh')], { stdio: 'inherit' });
  const input = {
    cdf: CDF,
    quantile: QUANTILE,
    mcnemar: MCNEMAR,
    normal: NORMAL,
    detectable_normal: DETECTABLE_NORMAL,
    detectable_mcnemar: DETECTABLE_MCNEMAR,
  };
  reference = JSON.parse(
    execFileSync(PYTHON, [path.join(PROJECT_ROOT, 'test/sweep/power_reference.py')], { input: JSON.stringify(input) }).toString(),
  );
}, 600_000);

const close = (actual: number, expected: number, tol: number, what: string) =>
  expect(Math.abs(actual - expected), `${what}: ${actual} vs ${expected}`).toBeLessThan(tol);

describe('power of the paired tests against SciPy / statsmodels', () => {
  it('the standard normal: distribution function and quantile (scipy.stats.norm)', () => {
    CDF.forEach((x, i) => close(normalCdf(x), reference.cdf[i]!, 1e-12, `cdf(${x})`));
    QUANTILE.forEach((p, i) => close(normalQuantile(p), reference.quantile[i]!, 1e-9, `quantile(${p})`));
  });

  it("n = 1: the exact power of McNemar's exact test (summed over statsmodels' mcnemar p-values)", () => {
    MCNEMAR.forEach((c, i) => close(mcnemarExactPower(c, c.difference), reference.mcnemar[i]!, 1e-6, JSON.stringify(c)));
  });

  it("n > 1: the sign-flip test's normal approximation (statsmodels NormalIndPower, one sample)", () => {
    NORMAL.forEach((c, i) => close(normalApproximationPower(c, c.difference), reference.normal[i]!, 1e-6, JSON.stringify(c)));
  });

  it('the smallest difference detected at 80% power (scipy brentq; an independent bisection for n = 1)', () => {
    DETECTABLE_NORMAL.forEach((c, i) => close(detectableDifference(c)!, reference.detectable_normal[i]!, 2e-4, JSON.stringify(c)));
    DETECTABLE_MCNEMAR.forEach((c, i) =>
      close(detectableDifference({ ...c, samples: 1 })!, reference.detectable_mcnemar[i]!, 1e-9, JSON.stringify(c)),
    );
  });
});

/** Simulated sweeps of two cells: T tasks, n samples each, pass probabilities pA and pB. */
function simulatedPower(tasks: number, samples: number, pA: number, pB: number, replicates: number, seed: number): number {
  const u = seededUniform(seed);
  let rejected = 0;
  for (let r = 0; r < replicates; r++) {
    const diffs: number[] = [];
    for (let t = 0; t < tasks; t++) {
      let a = 0;
      let b = 0;
      for (let s = 0; s < samples; s++) {
        if (u() < pA) a++;
        if (u() < pB) b++;
      }
      diffs.push((a - b) / samples);
    }
    const p =
      samples === 1
        ? mcnemarExact(diffs.filter((d) => d > 0).length, diffs.filter((d) => d < 0).length)
        : pairedPermutationTest(diffs, { permutations: 2000, seed: r }).p;
    if (p < 0.05) rejected++;
  }
  return rejected / replicates;
}

describe("the planned difference, by simulation with compare's own tests", () => {
  it("n = 1: McNemar's exact test detects it 80% of the time", () => {
    const q = { tasks: 120, samples: 1, baseline: 0.4, alpha: 0.05 };
    const d = detectableDifference(q)!;
    // 4000 replicates: sd of the estimate 0.0063; the power is exact, so only that noise.
    close(simulatedPower(q.tasks, 1, q.baseline + d, q.baseline, 4000, 1), 0.8, 0.025, `difference ${d}`);
  });

  it('n > 1: the permutation test on per-task rates detects it about 80% of the time', () => {
    const q = { tasks: 60, samples: 5, baseline: 0.3, alpha: 0.05 };
    const d = detectableDifference(q)!;
    // 1000 replicates (sd 0.013) of an approximation: within 0.04.
    close(simulatedPower(q.tasks, 5, q.baseline + d, q.baseline, 1000, 2), 0.8, 0.04, `difference ${d}`);
  }, 60_000);
});
