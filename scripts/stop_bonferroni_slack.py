#!/usr/bin/env python3
"""How much the Bonferroni split of alpha over the `decided` rule's looks gives away.

The looks see cumulative data (forks 1..n at n = 2, 3, 5, 8, 10), so their tests are correlated
and the chance that *some* look rejects under the null is below the sum of their levels. This
draws normal fork means for both sides (the pooled t statistic is scale-free under an A/A
comparison, so one noise level stands for all), applies the pooled two-sided t test of every
look at `c` times its Bonferroni level (shares 5, 20, 20, 20, 35 % of alpha), and prints the
probability that any look rejects. The `c` at which it reaches alpha is what an exact
group-sequential boundary could spend instead of Bonferroni's. Only the t gate is modelled; the
rule's other gates (bootstrap, Mann-Whitney, threshold, early-verdict margin) only reject less.

Usage: scripts/stop_bonferroni_slack.py [TRIALS]   (numpy and scipy; seed 1)
"""
import sys

import numpy as np
from scipy import stats

LOOKS = [2, 3, 5, 8, 10]
SHARES = [0.05, 0.20, 0.20, 0.20, 0.35]


def main():
    trials = int(sys.argv[1]) if len(sys.argv) > 1 else 400_000
    rng = np.random.default_rng(1)
    base = rng.standard_normal((trials, LOOKS[-1]))
    head = rng.standard_normal((trials, LOOKS[-1]))
    t_stats = []
    for n in LOOKS:
        b, h = base[:, :n], head[:, :n]
        pooled_sd = np.sqrt((b.var(1, ddof=1) + h.var(1, ddof=1)) / 2)
        t_stats.append((h.mean(1) - b.mean(1)) / (pooled_sd * np.sqrt(2 / n)))
    print("alpha  c     P(some look rejects)")
    for alpha in (0.01, 0.05):
        for c in (1.0, 1.2, 1.3, 1.5, 2.0):
            rejected = np.zeros(trials, bool)
            for n, share, t in zip(LOOKS, SHARES, t_stats):
                quantile = stats.t.ppf(1 - c * share * alpha / 2, 2 * n - 2)
                rejected |= np.abs(t) > quantile
            print(f"{alpha:<6} {c:<5} {rejected.mean():.4f}")


if __name__ == "__main__":
    main()
