#!/usr/bin/env python3
"""Would pooling the fork-to-fork variance over a suite let `unchanged` be said sooner?

`unchanged` needs the t interval of the log ratio of fork means within the threshold, and at
three or five forks per side that interval is wide mostly because the t quantile with 4 or 8
degrees of freedom is large (docs/design/rejected.md, "Borrowing degrees of freedom from the
rest of the suite"). The benchmarks of one suite, measured in the same rounds on the same
machine, might have similar fork-to-fork variances; if so, the empirical-Bayes moderated t of genomics (Smyth 2004, "Linear
models and empirical Bayes methods for assessing differential expression in microarray
experiments") borrows degrees of freedom from the other benchmarks. It fits a scaled
inverse-chi-square prior (`d0` prior degrees of freedom around `s0^2`) to the benchmarks' pooled
variances, and uses `(d0 s0^2 + d s^2) / (d0 + d)` with `d0 + d` degrees of freedom.

For each recording this prints, at each look (3, 5, 8 and 10 forks per side; disturbed forks left
out as the analysis does), the fitted `d0`, and for every benchmark the first look at which the
interval fits within the threshold (before the cap: the threshold over the early-verdict margin
1.1), with the plain pooled t and with the moderated one, at the `decided` rule's per-look levels
(20 % of alpha at each look before the cap, 35 % at it; alpha 1 %, threshold 2 %). Only the t
gate is modelled, and not futility: the question is only when the interval first fits.

A `d0` of 1-5 adds little to the 4-16 degrees of freedom a benchmark has of its own; a large one
would mean the suite's benchmarks are alike and pooling pays.

Usage: scripts/stop_pooled_variance.py RECORDING.json...   (numpy and scipy)
"""
import json
import math
import sys

import numpy as np
from scipy import stats
from scipy.optimize import brentq
from scipy.special import digamma, polygamma

ALPHA = 0.01
THRESHOLD = 0.02
EARLY_MARGIN = 1.1
# (forks per side, share of alpha) of the looks from three forks on; the last is the cap.
LOOKS = [(3, 0.20), (5, 0.20), (8, 0.20), (10, 0.35)]
DISTURBED_EXCESS = math.log(1.10)
DISTURBED_Z = 3.29


def fork_mean(fork):
    """A fork's mean time per iteration, after the samples dropped as warm-up."""
    dropped = fork.get("warmup_dropped") or 0
    return sum(fork["times_ns"][dropped:]) / sum(fork["iters"][dropped:])


def without_disturbed(base, head):
    """The log fork means of both sides without disturbed forks (crates/perfdiff-stats/src/disturbed.rs)."""
    medians = [np.median(base), np.median(head)]
    deviations = np.concatenate([np.abs(base - medians[0]), np.abs(head - medians[1])])
    robust_sd = 1.4826 * np.median(deviations)
    kept = []
    for side, median in zip((base, head), medians):
        if len(side) < 3:
            kept.append(side)
            continue
        excess = side - median
        kept.append(side[~((excess > DISTURBED_EXCESS) & (excess > DISTURBED_Z * robust_sd))])
    return kept


def fit_prior(variances, dofs):
    """Smyth's moment estimates of the prior degrees of freedom d0 and variance s0^2."""
    variances, dofs = np.asarray(variances), np.asarray(dofs, float)
    e = np.log(variances) - digamma(dofs / 2) + np.log(dofs / 2)
    mean = e.mean()
    excess = e.var(ddof=1) - polygamma(1, dofs / 2).mean()
    if excess <= 0:
        return math.inf, math.exp(mean)
    d0 = 2 * brentq(lambda x: polygamma(1, x) - excess, 1e-8, 1e8)
    return d0, math.exp(mean + digamma(d0 / 2) - math.log(d0 / 2))


def look_data(base, head):
    """Per look: (kept base, kept head, sum of squares, degrees of freedom)."""
    looks = []
    for n, _ in LOOKS:
        b, h = without_disturbed(base[:n], head[:n])
        squares = ((b - b.mean()) ** 2).sum() + ((h - h.mean()) ** 2).sum()
        looks.append((b, h, squares, len(b) + len(h) - 2))
    return looks


def first_unchanged_look(looks, priors):
    """The first look whose interval fits the threshold (None if none does); priors=None: plain t."""
    for index, ((n, share), (b, h, squares, dof)) in enumerate(zip(LOOKS, looks)):
        variance, t_dof = squares / dof, dof
        if priors is not None:
            d0, s0 = priors[index]
            if math.isinf(d0):
                variance, t_dof = s0, math.inf
            else:
                variance, t_dof = (d0 * s0 + squares) / (d0 + dof), d0 + dof
        half_width = stats.t.ppf(1 - ALPHA * share / 2, t_dof) * math.sqrt(
            variance * (1 / len(b) + 1 / len(h))
        )
        threshold = THRESHOLD if n == LOOKS[-1][0] else THRESHOLD / EARLY_MARGIN
        if abs(h.mean() - b.mean()) + half_width <= math.log(1 + threshold):
            return n
    return None


def main(paths):
    for path in paths:
        with open(path) as file:
            recording = json.load(file)
        benchmarks = []
        for bench in recording["benchmarks"]:
            sides = [bench[s]["forks"][:10] for s in ("base", "head")]
            if min(len(s) for s in sides) < 10:
                continue
            base, head = (np.log([fork_mean(f) for f in s]) for s in sides)
            benchmarks.append(look_data(base, head))
        priors = []
        for index in range(len(LOOKS)):
            usable = [b[index] for b in benchmarks if b[index][3] > 0 and b[index][2] > 0]
            priors.append(fit_prior([u[2] / u[3] for u in usable], [u[3] for u in usable]))
        plain = [first_unchanged_look(b, None) for b in benchmarks]
        moderated = [first_unchanged_look(b, priors) for b in benchmarks]
        print(f"{path.split('/')[-1]}: {len(benchmarks)} benchmarks")
        print("  d0 at looks 3, 5, 8, 10: " + ", ".join(f"{d0:.1f}" for d0, _ in priors))
        print("  first look at which `unchanged` holds, plain t / moderated t:")
        for p, m in zip(plain, moderated):
            if p or m:
                print(f"    {p or '-':>2} / {m or '-':>2}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
