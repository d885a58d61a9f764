"""The independent side of test/sweep/power-reference.test.ts: the power of compare's paired tests
computed with SciPy and statsmodels from the JSON on stdin; JSON on stdout. Run with the test venv
(scripts/install-test-python.sh), never the product's."""
import json
import math
import sys

from scipy import optimize, stats
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.power import NormalIndPower


def mcnemar_power(tasks, baseline, difference, alpha):
    """Exact: sum over discordant counts m and A's share b of them, rejected by statsmodels' exact McNemar."""
    pa, pb = baseline + difference, baseline
    p10, p01 = pa * (1 - pb), pb * (1 - pa)
    pd = p10 + p01
    share = p10 / pd
    power = 0.0
    for m in range(tasks + 1):
        weight = stats.binom.pmf(m, tasks, pd)
        if weight < 1e-18:
            continue
        reject = 0.0
        for b in range(m + 1):
            if mcnemar([[0, b], [m - b, 0]], exact=True).pvalue < alpha:
                reject += stats.binom.pmf(b, m, share)
        power += weight * reject
    return power


def normal_power(tasks, samples, baseline, difference, alpha):
    """The sign-flip test's normal approximation, as statsmodels' one-sample normal power: effect
    delta / sigma, with the critical value z sqrt(1 + delta^2 / sigma^2) expressed as its alpha."""
    pa, pb = baseline + difference, baseline
    sigma = math.sqrt((pa * (1 - pa) + pb * (1 - pb)) / samples)
    z = stats.norm.ppf(1 - alpha / 2) * math.sqrt(1 + (difference / sigma) ** 2)
    return NormalIndPower().power(effect_size=difference / sigma, nobs1=tasks, alpha=2 * stats.norm.sf(z), ratio=0)


def bisect(f, top, resolution=1e-4):
    lo, hi = 0.0, top
    while hi - lo > resolution:
        mid = (lo + hi) / 2
        if f(mid) >= 0.8:
            hi = mid
        else:
            lo = mid
    return hi


def main():
    data = json.load(sys.stdin)
    out = {
        "cdf": [stats.norm.cdf(x) for x in data["cdf"]],
        "quantile": [stats.norm.ppf(p) for p in data["quantile"]],
        "mcnemar": [mcnemar_power(c["tasks"], c["baseline"], c["difference"], c["alpha"]) for c in data["mcnemar"]],
        "normal": [normal_power(c["tasks"], c["samples"], c["baseline"], c["difference"], c["alpha"]) for c in data["normal"]],
        "detectable_normal": [
            optimize.brentq(lambda d, c=c: normal_power(c["tasks"], c["samples"], c["baseline"], d, c["alpha"]) - 0.8,
                            1e-9, 1 - c["baseline"], xtol=1e-12)
            for c in data["detectable_normal"]
        ],
        "detectable_mcnemar": [
            bisect(lambda d, c=c: mcnemar_power(c["tasks"], c["baseline"], d, c["alpha"]), 1 - c["baseline"])
            for c in data["detectable_mcnemar"]
        ],
    }
    json.dump(out, sys.stdout)


main()
