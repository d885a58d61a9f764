"""The independent side of test/compare/stats-reference.test.ts: the same paired statistics computed
with SciPy, statsmodels and NumPy from the JSON on stdin; JSON on stdout. Run with the test venv
(scripts/install-test-python.sh), never the product's."""
import json
import sys

import numpy as np
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.weightstats import DescrStatsW


def mean_diff(x, y, axis=-1):
    return np.mean(np.asarray(x) - np.asarray(y), axis=axis)


def case(c):
    a = np.asarray(c["a"], dtype=float)
    b = np.asarray(c["b"], dtype=float)
    d = a - b
    out = {}
    # Paired normal approximation, two ways.
    low, high = DescrStatsW(d).zconfint_mean(alpha=0.05)
    sem = stats.sem(d)
    z = stats.norm.ppf(0.975)
    out["normal"] = {"low": low, "high": high, "stderr": sem, "scipy_low": d.mean() - z * sem, "scipy_high": d.mean() + z * sem}
    # The bootstrap fed explora's own resamples: percentiles of the resampled means (NumPy's linear).
    idx = np.asarray(c["resamples"], dtype=np.int64)
    means = d[idx].mean(axis=1)
    out["bootstrap_same_resamples"] = {"low": np.percentile(means, 2.5), "high": np.percentile(means, 97.5)}
    # SciPy's own paired percentile bootstrap (its own resamples): agreement up to resampling noise only.
    res = stats.bootstrap((a, b), mean_diff, paired=True, vectorized=True, n_resamples=c["scipy_resamples"],
                          method="percentile", confidence_level=0.95, random_state=np.random.default_rng(1))
    out["bootstrap_scipy"] = {"low": res.confidence_interval.low, "high": res.confidence_interval.high}
    if c.get("binary"):
        only_a = int(((a == 1) & (b == 0)).sum())
        only_b = int(((a == 0) & (b == 1)).sum())
        both = int(((a == 1) & (b == 1)).sum())
        neither = int(((a == 0) & (b == 0)).sum())
        out["mcnemar"] = mcnemar([[both, only_a], [only_b, neither]], exact=True).pvalue
    if c.get("permutation"):
        res = stats.permutation_test((a, b), mean_diff, permutation_type="samples", vectorized=True,
                                     n_resamples=np.inf, alternative="two-sided")
        out["permutation"] = res.pvalue
    return out


def main():
    data = json.load(sys.stdin)
    out = {"cases": [case(c) for c in data["cases"]]}
    out["holm"] = [list(multipletests(ps, method="holm")[1]) for ps in data["holm"]]
    out["mcnemar"] = [mcnemar([[5, x], [y, 5]], exact=True).pvalue for x, y in data["mcnemar"]]
    json.dump(out, sys.stdout, default=float)


main()
