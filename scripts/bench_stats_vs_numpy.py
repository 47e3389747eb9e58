#!/usr/bin/env python3
"""Rust statistics engine vs. the same analyses in vectorised numpy/scipy, in one session.

Run from the repository root (needs `pip install scipy numpy`):

    python3 scripts/bench_stats_vs_numpy.py

It writes one set of inputs (fixed seed) as little-endian f64 files, builds and runs
`cargo run --release --example stats_timing -- DIR`, times the numpy/scipy equivalents on the same
inputs, checks that both sides computed the same statistics, and prints a table of timings and
speed ratios. Timings on both sides are the best of 5 repetitions.
"""

import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

import numpy as np
from scipy import stats

ROOT = pathlib.Path(__file__).resolve().parent.parent
FORKS, SAMPLES, RESAMPLES = 30, 100, 10_000
REPETITIONS = 5


def best_of(run):
    best, result = float("inf"), None
    for _ in range(REPETITIONS):
        start = time.perf_counter()
        result = run()
        best = min(best, time.perf_counter() - start)
    return best, result


def hierarchical_bootstrap(base, head, rng, batch=500):
    """Ratio of means of fork means, forks then iterations resampled; vectorised per batch
    (a batch of 500 resamples is 2 x 500 x 30 x 100 draws, ~0.5 GB of temporaries at most)."""
    ratios = []
    for start in range(0, RESAMPLES, batch):
        size = min(batch, RESAMPLES - start)
        means = []
        for side in (base, head):
            forks = rng.integers(0, FORKS, (size, FORKS))
            iters = rng.integers(0, SAMPLES, (size, FORKS, SAMPLES))
            means.append(side[forks[:, :, None], iters].mean(axis=2).mean(axis=1))
        ratios.append(means[1] / means[0])
    ratios = np.concatenate(ratios)
    estimate = head.mean(axis=1).mean() / base.mean(axis=1).mean()
    low, high = np.quantile(ratios, [0.005, 0.995])
    return estimate, min(low, estimate), max(high, estimate)


def cliffs_delta(base, head):
    """Exact Cliff's delta by sorting and binary search (the fair, O(n log n) numpy version)."""
    ordered = np.sort(base)
    below = np.searchsorted(ordered, head, side="left")
    above = len(ordered) - np.searchsorted(ordered, head, side="right")
    return (below.sum() - above.sum()) / (len(base) * len(head))


def kld_probability(before, after):
    pooled = np.concatenate([before, after])
    q1, q3 = np.quantile(pooled, [0.25, 0.75])
    iqr = q3 - q1
    lo, hi = q1 - 1.5 * iqr, q3 + 1.5 * iqr
    grid = lo + (np.arange(1000) + 0.5) * (hi - lo) / 1000
    p = stats.gaussian_kde(before)(grid)
    q = stats.gaussian_kde(after)(grid)
    p, q = p / p.sum(), q / q.sum()
    return float(2.0 ** (-np.sum(p * np.log2(p / q)) - np.sum(q * np.log2(q / p))))


def main():
    load_before = os.getloadavg()
    rng = np.random.default_rng(7)
    fork_levels = lambda level: level * rng.lognormal(0, 0.02, (FORKS, 1))
    base = fork_levels(1000.0) * rng.lognormal(0, 0.05, (FORKS, SAMPLES))
    head = fork_levels(1030.0) * rng.lognormal(0, 0.05, (FORKS, SAMPLES))
    u_base = rng.lognormal(0, 0.1, 100_000)
    u_head = rng.lognormal(0.002, 0.1, 100_000)
    kld = rng.lognormal(3, 0.2, 10_000)

    with tempfile.TemporaryDirectory() as tmp:
        for name, values in [("base_forks", base), ("head_forks", head), ("u_base", u_base),
                             ("u_head", u_head), ("kld", kld)]:
            np.ascontiguousarray(values, dtype="<f8").tofile(os.path.join(tmp, name + ".f64"))
        command = ["cargo", "run", "--quiet", "--release", "--example", "stats_timing", "--", tmp]
        print("$", " ".join(command[:-1]), "DIR", file=sys.stderr)
        rust = json.loads(subprocess.run(command, cwd=ROOT, check=True, capture_output=True,
                                         text=True).stdout)

    split = len(kld) * 9 // 10
    py = {}
    py["bootstrap_s"], ratio = best_of(lambda: hierarchical_bootstrap(base, head, rng))
    py["mann_whitney_s"], mw = best_of(
        lambda: stats.mannwhitneyu(u_head, u_base, alternative="two-sided", method="auto"))
    py["cliffs_s"], delta = best_of(lambda: cliffs_delta(u_base, u_head))
    py["kld_s"], kld_p = best_of(lambda: kld_probability(kld[:split], kld))

    # Same statistics on both sides (the bootstrap CI only up to Monte Carlo noise).
    assert rust["u"] == float(mw.statistic), (rust["u"], mw.statistic)
    assert abs(rust["p"] - mw.pvalue) <= 1e-9 * mw.pvalue, (rust["p"], mw.pvalue)
    assert rust["delta"] == float(delta), (rust["delta"], delta)
    assert abs(rust["kld_p"] - kld_p) <= 1e-9, (rust["kld_p"], kld_p)
    assert abs(rust["ratio"][0] - ratio[0]) <= 1e-12 * ratio[0]

    rows = [
        ("bootstrap 10,000 resamples, 2 x 30 forks x 100", "bootstrap_s"),
        ("Mann-Whitney U, 2 x 100,000", "mann_whitney_s"),
        ("Cliff's delta, 2 x 100,000", "cliffs_s"),
        ("KLD probability, 9,000 vs 10,000 values", "kld_s"),
    ]
    print(f"{'analysis':<48} {'Rust':>10} {'numpy/scipy':>12} {'speed-up':>9}")
    for label, key in rows:
        print(f"{label:<48} {rust[key] * 1e3:>8.2f}ms {py[key] * 1e3:>10.2f}ms "
              f"{py[key] / rust[key]:>8.1f}x")
    print(f"Rust bootstrap on 1 thread: {rust['bootstrap_1thread_s'] * 1e3:.2f} ms "
          f"({rust['bootstrap_1thread_s'] / rust['bootstrap_s']:.2f}x the {rust['threads']}-thread time)")
    print(f"load average before/after: {load_before} / {os.getloadavg()}; cpus: {os.cpu_count()}")
    print(f"ratio CI  Rust {rust['ratio']}  numpy {[float(x) for x in ratio]}")
    print(json.dumps({"rust": rust, "numpy": py}))


if __name__ == "__main__":
    main()
