#!/usr/bin/env python3
"""Reference vectors for crates/perfdiff-stats, computed with scipy/numpy; written to fixtures/stats/*.json.

Run from the repository root after `pip install scipy numpy statsmodels`:

    python3 scripts/stats_reference.py

`tests/offline/stats_reference.rs` compares the Rust implementation against these files, so `cargo test`
needs no Python. Every input is generated from a fixed numpy seed, so re-running the script with
the same scipy/numpy versions reproduces the files byte for byte (versions are recorded in
fixtures/stats/versions.json). Floats are written with Python's repr, which round-trips exactly.
"""

import json
import pathlib
import sys

import numpy as np
import scipy
from scipy import stats

OUT = pathlib.Path(__file__).resolve().parent.parent / "fixtures" / "stats"
RNG = np.random.default_rng(20260521)


def floats(a):
    return [float(x) for x in a]


def write(name, payload):
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / name
    path.write_text(json.dumps(payload, indent=1) + "\n")
    print(f"wrote {path.relative_to(OUT.parent.parent)}", file=sys.stderr)


def scipy_method(n_head, n_base, head, base):
    """scipy's _mwu_choose_method, recomputed so the fixture records which path was taken."""
    if n_head > 8 and n_base > 8:
        return "asymptotic"
    pooled = np.concatenate([head, base])
    if len(np.unique(pooled)) < len(pooled):
        return "asymptotic"
    return "exact"


def mann_whitney_cases():
    cases = []

    def add(name, base, head):
        base, head = np.asarray(base, float), np.asarray(head, float)
        res = stats.mannwhitneyu(head, base, alternative="two-sided", method="auto")
        cases.append({
            "name": name,
            "base": floats(base),
            "head": floats(head),
            "u": float(res.statistic),
            "p": float(res.pvalue),
            "method": scipy_method(len(head), len(base), head, base),
        })

    # small samples without ties: the exact distribution
    for n_base, n_head in [(1, 1), (1, 5), (2, 3), (3, 3), (4, 5), (5, 4), (7, 8), (8, 8),
                           (8, 3), (2, 40), (8, 60), (6, 300), (8, 1000)]:
        base = RNG.normal(10.0, 1.0, n_base)
        head = RNG.normal(10.4, 1.0, n_head)
        add(f"exact_{n_base}x{n_head}", base, head)
    # completely separated small samples: the extreme tail of the exact distribution
    add("exact_separated_8x8", np.arange(8.0), np.arange(8.0) + 100.0)
    add("exact_separated_3x500", np.arange(3.0) + 1000.0, np.arange(500.0))
    # small samples with ties: scipy switches to the normal approximation
    add("small_ties", [1.0, 2.0, 2.0, 3.0], [2.0, 3.0, 4.0, 4.0, 5.0])
    # large samples
    for n_base, n_head, shift in [(9, 9, 0.3), (30, 45, 0.2), (500, 700, 0.05), (2000, 1500, 0.0),
                                  (1000, 1000, 0.5)]:
        base = RNG.lognormal(0.0, 0.3, n_base)
        head = RNG.lognormal(shift, 0.3, n_head)
        add(f"asymptotic_{n_base}x{n_head}_shift{shift}", base, head)
    # heavy ties: integer-valued data
    for n_base, n_head in [(50, 60), (400, 300), (12, 5)]:
        base = RNG.poisson(5.0, n_base).astype(float)
        head = RNG.poisson(5.6, n_head).astype(float)
        add(f"ties_{n_base}x{n_head}", base, head)
    add("ties_two_values", [1.0] * 30 + [2.0] * 10, [1.0] * 12 + [2.0] * 25)
    # identical samples
    same = RNG.normal(5.0, 1.0, 40)
    add("identical_40", same, same)
    add("identical_small", [1.0, 2.0, 3.0], [1.0, 2.0, 3.0])
    add("all_equal", [7.0] * 15, [7.0] * 20)
    # very different sizes
    add("unequal_3x2000", RNG.normal(0, 1, 2000)[:3] + 0.5, RNG.normal(0, 1, 2000))
    add("unequal_1500x20", RNG.normal(0, 1, 1500), RNG.normal(0.8, 1, 20))
    return cases


def bh_cases():
    cases = []
    for p in [
        [0.01, 0.02, 0.03, 0.04, 0.05],
        [0.5, 0.02, 0.01, 0.03],
        [1e-10, 0.9, 0.9, 0.2, 0.04, 0.04, 0.001],
        [1.0],
        [0.0, 0.0, 1.0],
        floats(RNG.uniform(0, 1, 50)),
        floats(RNG.uniform(0, 0.05, 30)),
    ]:
        q = stats.false_discovery_control(p, method="bh")
        cases.append({"p": floats(p), "q": floats(q)})
    return cases


def kde_cases():
    cases = []
    for name, data in [
        ("normal_50", RNG.normal(100.0, 5.0, 50)),
        ("lognormal_500", RNG.lognormal(3.0, 0.4, 500)),
        ("bimodal_300", np.concatenate([RNG.normal(10, 1, 200), RNG.normal(20, 2, 100)])),
        ("two_points", np.array([1.0, 2.0])),
    ]:
        lo, hi = data.min() - 3 * data.std(), data.max() + 3 * data.std()
        points = np.concatenate([np.linspace(lo, hi, 40), data[:5]])
        density = stats.gaussian_kde(data)(points)
        cases.append({"name": name, "data": floats(data), "points": floats(points),
                      "density": floats(density)})
    return cases


def kld_probability(before, after):
    """The definition in crates/perfdiff-stats/src/stability.rs, written with numpy/scipy from scratch."""
    before, after = np.asarray(before, float), np.asarray(after, float)
    pooled = np.concatenate([before, after])
    q1, q3 = np.quantile(pooled, [0.25, 0.75])
    iqr = q3 - q1
    lo, hi = q1 - 1.5 * iqr, q3 + 1.5 * iqr
    width = (hi - lo) / 1000
    grid = lo + (np.arange(1000) + 0.5) * width
    p = stats.gaussian_kde(before)(grid)
    q = stats.gaussian_kde(after)(grid)
    p, q = p / p.sum(), q / q.sum()
    d_pq = np.sum(p * np.log2(p / q))
    d_qp = np.sum(q * np.log2(q / p))
    return float(2.0 ** (-d_pq) * 2.0 ** (-d_qp))


def kld_cases():
    cases = []
    base = RNG.lognormal(4.0, 0.1, 400)
    for name, before, after in [
        ("prefix_300_of_400", base[:300], base),
        ("prefix_50_of_60", base[:50], base[:60]),
        ("disjoint_halves", base[:200], base[200:]),
        ("shifted", base[:200], base[:200] * 1.05),
        ("wider", RNG.normal(50, 1, 300), RNG.normal(50, 3, 300)),
    ]:
        cases.append({"name": name, "before": floats(before), "after": floats(after),
                      "p": kld_probability(before, after)})
    return cases


def cliffs_cases():
    cases = []
    for n_base, n_head, ties in [(5, 7, False), (40, 30, True), (300, 200, False),
                                 (100, 100, True), (1, 1, False)]:
        if ties:
            base = RNG.integers(0, 10, n_base).astype(float)
            head = RNG.integers(1, 11, n_head).astype(float)
        else:
            base = RNG.normal(0, 1, n_base)
            head = RNG.normal(0.3, 1, n_head)
        diff = head[:, None] - base[None, :]
        delta = (np.sum(diff > 0) - np.sum(diff < 0)) / (n_base * n_head)
        cases.append({"base": floats(base), "head": floats(head), "delta": float(delta)})
    return cases


def cv_cases():
    cases = []
    for data in [RNG.normal(100, 3, 30), RNG.lognormal(2, 0.5, 1000), np.array([1.0, 3.0])]:
        cases.append({"values": floats(data),
                      "cv": float(np.std(data, ddof=1) / np.mean(data)),
                      "quartiles": floats(np.quantile(data, [0.25, 0.5, 0.75]))})
    return cases


def paired_t_cases():
    """The interval that decides (crates/perfdiff-stats/src/rounds.rs): Student's t over per-round log ratios.

    For each case: the log ratios, scipy's one-sample t test of "mean 0" (two-sided p), the
    two-sided t intervals at several levels (exponentiated: ratio scale), and statsmodels' two
    one-sided tests (TOST) of equivalence within ±threshold on the ratio scale, i.e. on the log
    scale within [ln(1 − t), ln(1 + t)]. Its own generator, so adding these cases leaves the
    other files as they were.
    """
    from statsmodels.stats.weightstats import DescrStatsW

    rng = np.random.default_rng(20261126)
    cases = []
    for n, mean, sd in [(2, 0.0, 0.01), (3, 0.03, 0.01), (3, -0.2, 0.05), (5, 0.0, 0.004),
                        (5, 0.015, 0.004), (10, 0.0, 0.012), (10, 0.1, 0.02), (20, -0.01, 0.03),
                        (4, 0.0, 0.0005)]:
        logs = rng.normal(mean, sd, n)
        m, se, df = float(np.mean(logs)), float(stats.sem(logs)), n - 1
        intervals = []
        for level in [0.9, 0.99, 0.9965, 0.98]:
            low, high = stats.t.interval(level, df, loc=m, scale=se)
            intervals.append({"level": level, "low": float(np.exp(low)), "high": float(np.exp(high))})
        tost = []
        for threshold in [0.01, 0.02, 0.05]:
            p_tost = DescrStatsW(logs).ttost_mean(np.log(1 - threshold), np.log(1 + threshold))[0]
            tost.append({"threshold": threshold, "p": float(p_tost)})
        cases.append({"log_ratios": floats(logs),
                      "p": float(stats.ttest_1samp(logs, 0.0).pvalue),
                      "intervals": intervals, "tost": tost})
    return cases


def variance_components_cases():
    """The variance components of forks and samples (crates/perfdiff-stats/src/components.rs).

    For each case: groups of observations (balanced and not), scipy's one-way ANOVA (`f_oneway`:
    F and its p-value) and, with numpy, the mean squares within (MSW) and between (MSB) groups,
    the effective group size n0 = (N - sum(n_i^2) / N) / (k - 1) and the between component
    max(0, (MSB - MSW) / n0) of the one-way random-effects model. Its own generator, so adding
    these cases leaves the other files as they were.
    """
    rng = np.random.default_rng(20261128)
    cases = []
    for sizes, between_sd, within_sd in [([5, 5], 1.0, 1.0), ([10, 10, 10], 0.1, 1.0),
                                         ([30, 30, 30, 30], 0.02, 0.005), ([3, 7, 12], 2.0, 0.5),
                                         ([2, 2, 2, 2, 2, 2], 0.0, 1.0), ([20, 25], 0.01, 0.03)]:
        groups = [rng.normal(100.0 + rng.normal(0.0, between_sd), within_sd, n) for n in sizes]
        f, p = stats.f_oneway(*groups)
        k, n_total = len(groups), sum(sizes)
        grand = np.mean(np.concatenate(groups))
        msb = sum(len(g) * (np.mean(g) - grand) ** 2 for g in groups) / (k - 1)
        msw = sum(np.sum((g - np.mean(g)) ** 2) for g in groups) / (n_total - k)
        n0 = (n_total - sum(n * n for n in sizes) / n_total) / (k - 1)
        cases.append({"groups": [floats(g) for g in groups], "f": float(f), "p": float(p),
                      "ms_within": float(msw), "ms_between": float(msb), "n0": float(n0),
                      "between": float(max(0.0, (msb - msw) / n0))})
    return cases


def main():
    write("mann_whitney.json", mann_whitney_cases())
    write("benjamini_hochberg.json", bh_cases())
    write("gaussian_kde.json", kde_cases())
    write("kld.json", kld_cases())
    write("cliffs_delta.json", cliffs_cases())
    write("cv.json", cv_cases())
    write("paired_t.json", paired_t_cases())
    write("variance_components.json", variance_components_cases())
    import statsmodels
    write("versions.json", {"scipy": scipy.__version__, "numpy": np.__version__,
                            "statsmodels": statsmodels.__version__,
                            "python": sys.version.split()[0]})


if __name__ == "__main__":
    main()
