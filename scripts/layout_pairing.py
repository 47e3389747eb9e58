#!/usr/bin/env python3
"""How far base and head share their code layouts: figures from samples files.

For each benchmark of each samples file given (scripts/layout_pairing.sh writes them; any
`--stop fixed` run with --layouts works), a round's value on a side is ln of that side's fork
mean (the mean time per iteration over the fork's samples after its dropped warm-up). Printed per
benchmark:

  corr       Pearson correlation across rounds of base's and head's round values: near 1 when
             both sides move together from layout to layout (shared layouts), near 0 when their
             layouts are unrelated;
  sd(ratio)  SD across rounds of the per-round log ratio ln(head) - ln(base), in %: what a paired
             analysis of rounds has to contend with;
  sd(base)   SD across rounds of base's round values, in %: how far the layouts (and the fork
             noise) move one side;
  ratio      mean of the per-round log ratios, as a change in %;
  range      the smallest and largest per-round change head/base - 1, in %.

When some layout ran in more than one round (e.g. 20 rounds over 10 layouts), also:

  noise      the fork noise, in %: the SD of the difference between two rounds of one layout on
             one side, over sqrt(2), pooled over layouts and sides (the layout is the same, so
             this is what the machine alone does);
  L-corr     the correlation across layouts of the two sides' layout means (each the mean of
             that layout's round values): less diluted by fork noise than the per-round figure;
  L-sd       SD across layouts of the per-layout log ratio, in %.

Rounds where either side has no usable fork are left out. Standard library only.

Usage: scripts/layout_pairing.py FILE.samples.json...
"""
import json
import math
import statistics
import sys


def fork_mean(fork):
    """Mean time per iteration of a fork's samples after its dropped warm-up, or None."""
    skip = fork.get("warmup_dropped") or 0
    values = [t / i for t, i in zip(fork["times_ns"], fork["iters"]) if i > 0][skip:]
    return statistics.fmean(values) if values else None


def round_values(side):
    """{round: ln(fork mean)} of one side's forks."""
    values = {}
    for fork in side.get("forks", []):
        mean = fork_mean(fork)
        if mean and fork.get("round") is not None:
            values[fork["round"]] = math.log(mean)
    return values


def round_layouts(side):
    """{round: layout} of one side's forks."""
    return {f["round"]: f.get("layout") or 0 for f in side.get("forks", [])
            if f.get("round") is not None}


def by_layout(values, layouts):
    """{layout: [round values]}."""
    grouped = {}
    for r, value in values.items():
        grouped.setdefault(layouts[r], []).append(value)
    return grouped


def layout_figures(benchmark, base, head, rounds):
    """Fork noise and layout-level figures, when some layout has two rounds or more."""
    layouts = round_layouts(benchmark["base"])
    b = by_layout({r: base[r] for r in rounds}, layouts)
    h = by_layout({r: head[r] for r in rounds}, layouts)
    deviations = []
    for side in (b, h):
        for values in side.values():
            if len(values) > 1:
                mean = statistics.fmean(values)
                deviations.extend((v - mean) ** 2 for v in values)
                deviations.append(None)  # one degree of freedom per layout is spent on its mean
    if not deviations:
        return {}
    groups = deviations.count(None)
    squares = [d for d in deviations if d is not None]
    noise = math.sqrt(sum(squares) / (len(squares) - groups)) * 100
    shared = sorted(set(b) & set(h))
    bm = [statistics.fmean(b[k]) for k in shared]
    hm = [statistics.fmean(h[k]) for k in shared]
    return {
        "noise": noise,
        "l_corr": statistics.correlation(bm, hm),
        "l_sd": statistics.stdev([y - x for x, y in zip(bm, hm)]) * 100,
    }


def describe(benchmark):
    base, head = round_values(benchmark["base"]), round_values(benchmark["head"])
    rounds = sorted(set(base) & set(head))
    if len(rounds) < 3:
        return None
    b = [base[r] for r in rounds]
    h = [head[r] for r in rounds]
    d = [y - x for x, y in zip(b, h)]
    return {
        "rounds": len(rounds),
        "corr": statistics.correlation(b, h),
        "sd_ratio": statistics.stdev(d) * 100,
        "sd_base": statistics.stdev(b) * 100,
        "ratio": (math.exp(statistics.fmean(d)) - 1) * 100,
        "low": (math.exp(min(d)) - 1) * 100,
        "high": (math.exp(max(d)) - 1) * 100,
        **layout_figures(benchmark, base, head, rounds),
    }


def main(paths):
    print(f"{'file':<28} {'benchmark':<20} {'rounds':>6} {'corr':>6} {'sd(ratio)':>9} "
          f"{'sd(base)':>8} {'ratio':>7}  {'range':<18} {'noise':>6} {'L-corr':>6} {'L-sd':>6}")
    for path in paths:
        samples = json.load(open(path))
        name = path.rsplit("/", 1)[-1].removesuffix(".samples.json")
        for benchmark in samples["benchmarks"]:
            figures = describe(benchmark)
            if figures is None:
                continue
            print(f"{name:<28} {benchmark['id']:<20} {figures['rounds']:>6} "
                  f"{figures['corr']:>6.2f} {figures['sd_ratio']:>8.2f}% "
                  f"{figures['sd_base']:>7.2f}% {figures['ratio']:>+6.1f}%  "
                  f"{figures['low']:+.1f} … {figures['high']:+.1f} %".ljust(20)
                  + (f"{figures['noise']:>5.2f}% {figures['l_corr']:>6.2f} {figures['l_sd']:>5.2f}%"
                     if "noise" in figures else ""))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
