#!/usr/bin/env python3
"""Forks of the right length, on recordings (docs/design/fork-length.md).

For every comparable benchmark of each recording (both sides, criterion samples, at least four
forks a side) it estimates, as `src/steps/fork_length.rs` does, the variance components of the
log fork means (between forks, and within a fork scaled to 1 ms of measurement, each side about
its own mean, pooled) and the fixed cost of a fork (wall time less the time its samples
measured, at least the time outside the benchmark plus the warm-up), then:

- "truth": the components and the cost from all of the recording's rounds;
- "choice": the tool's choice from two rounds only, for every pair of the recording's rounds
  (each pair is one run's first two rounds; the enumeration is exhaustive, so there is no seed),
  with the tool's rules: Kalibera and Jones's optimum sqrt(c_fork * S2_within,1ms / S2_between),
  clamped to [100 ms, 4 x default], kept within a factor 1.25 of the default, and never shorter
  unless the F test shows the forks differ (p < 0.05);
- for each choice, under the truth's components (the model of a fork mean's variance,
  S2_between + S2_within,1ms / T):
  * `same time`: the standard error of the mean log ratio for the time 10 rounds of default
    forks take (so more, shorter forks or fewer, longer ones), chosen against default;
  * `same rounds`: the time of the round cap's rounds (fork time, with its fixed cost), and their
    standard error, chosen against default (the tool keeps --max-forks: this is what a run at the
    cap gets).

It prints, per recording, the share of choices shorter / kept / longer, and the median (quartiles)
over benchmarks of each benchmark's median ratio over its pairs of rounds; with `--oracle`, the same
for the choice from all rounds.

Usage: fork_length_choice.py RECORDING.json... [--default-ms 500] [--rounds 10] [--oracle]
Needs scipy (the F test's p-value), as scripts/stats_reference.py does.
"""
import argparse, itertools, json, math, os, statistics, sys

from scipy import stats

MIN_MS, MAX_FACTOR, KEEP_WITHIN, SHOWN_P = 100.0, 4.0, 1.25, 0.05


def fork_summary(fork):
    """(log mean, its within variance, kept ms, fork cost ms) of a fork, or None."""
    if fork.get("per_fork") or len(fork.get("iters", [])) < 2:
        return None
    skip = fork.get("warmup_dropped") or 0
    pairs = [(i, t) for i, t in zip(fork["iters"][skip:], fork["times_ns"][skip:]) if i > 0 and t > 0]
    if len(pairs) < 2:
        return None
    logs = [math.log(t / i) for i, t in pairs]
    weights = [i for i, _ in pairs]
    total = sum(weights)
    mean = sum(y * w for y, w in zip(logs, weights)) / total
    unit = sum(w * (y - mean) ** 2 for y, w in zip(logs, weights)) / (len(logs) - 1)
    kept_ms = sum(t for _, t in pairs) / 1e6
    cost = None
    if fork.get("wall_ms") is not None:
        sampled = sum(fork["times_ns"]) / 1e6
        warm_up = (fork.get("config") or {}).get("warm_up_ms", 0.0)
        floor = (fork.get("outside_ms") or 0.0) + warm_up
        cost = max(fork["wall_ms"] - sampled, floor)
    return mean, unit / total, kept_ms, cost, len(logs)


def components(sides):
    """Pooled components over the sides' fork summaries: (within_per_ms, between, p, cost)."""
    squares, df_between, variances, scaled, df_within, costs = 0.0, 0, [], [], 0, []
    for forks in sides:
        centre = statistics.mean(f[0] for f in forks)
        squares += sum((f[0] - centre) ** 2 for f in forks)
        df_between += len(forks) - 1
        for mean, var, ms, cost, n in forks:
            variances.append(var)
            scaled.append(var * ms)
            df_within += n - 1
            if cost is not None and cost > 0:
                costs.append(cost)
    means_variance = squares / df_between
    within_of_mean = statistics.mean(variances)
    f = means_variance / within_of_mean if within_of_mean > 0 else math.inf
    p = stats.f.sf(f, df_between, df_within) if math.isfinite(f) else 0.0
    between = max(0.0, means_variance - within_of_mean)
    return statistics.mean(scaled), between, p, statistics.median(costs) if costs else None


def choose(within_ms, between, p, cost, default):
    """The tool's fork length (ms) from the components."""
    top = default * MAX_FACTOR
    optimum = math.sqrt(cost * within_ms / between) if between > 0 else math.inf
    target = min(max(optimum, min(MIN_MS, default)), max(top, default))
    if p > SHOWN_P:
        target = max(target, default)
    if target > default * KEEP_WITHIN or target < default / KEEP_WITHIN:
        return round(target)
    return default


def variance(truth, length):
    """Variance of one fork's log mean at `length` ms under the truth's components."""
    within_ms, between, _, _ = truth
    return between + within_ms / length


def ratios(truth, length, default, rounds):
    """(SE ratio at the same time, time ratio and SE ratio at the same rounds), chosen / default."""
    cost = truth[3]
    budget = rounds * (cost + default)
    n_chosen = budget / (cost + length)
    se = lambda t, n: math.sqrt(variance(truth, t) / n)
    same_time = se(length, n_chosen) / se(default, rounds)
    same_rounds_time = (cost + length) / (cost + default)
    same_rounds_se = se(length, rounds) / se(default, rounds)
    return same_time, same_rounds_time, same_rounds_se


def benchmark_forks(bench):
    """Per side, per round: the fork summaries; None when not comparable."""
    if bench.get("presence") != "both":
        return None
    by_side = []
    for side in ("base", "head"):
        forks = {}
        for fork in bench[side]["forks"]:
            summary = fork_summary(fork)
            if summary is None:
                return None
            forks[fork.get("round")] = summary
        by_side.append(forks)
    rounds = sorted(set(by_side[0]) & set(by_side[1]), key=lambda r: (r is None, r))
    if len(rounds) < 4 or None in rounds:
        return None
    return by_side, rounds


def quartiles(values):
    if len(values) == 1:
        return values[0], values[0], values[0]
    q = statistics.quantiles(values, n=4)
    return q[0], statistics.median(values), q[2]


def report(path, default, rounds, oracle):
    recording = json.load(open(path))
    reasons = {"shorter": 0, "kept": 0, "longer": 0}
    per_bench = {"same time": [], "rounds time": [], "rounds se": []}
    oracle_ratios = []
    for bench in recording["benchmarks"]:
        found = benchmark_forks(bench)
        if found is None:
            continue
        by_side, recorded_rounds = found
        truth = components([[side[r] for r in recorded_rounds] for side in by_side])
        if truth[3] is None:
            continue
        mine = {"same time": [], "rounds time": [], "rounds se": []}
        for pair in itertools.combinations(recorded_rounds, 2):
            first = components([[side[r] for r in pair] for side in by_side])
            if first[3] is None:
                continue
            length = choose(*first, default)
            key = "shorter" if length < default else "longer" if length > default else "kept"
            reasons[key] += 1
            same_time, rounds_time, rounds_se = ratios(truth, length, default, rounds)
            mine["same time"].append(same_time)
            mine["rounds time"].append(rounds_time)
            mine["rounds se"].append(rounds_se)
        for key, values in mine.items():
            if values:
                per_bench[key].append(statistics.median(values))
        if oracle:
            oracle_ratios.append(ratios(truth, choose(*truth, default), default, rounds)[0])
    total = sum(reasons.values())
    if not total:
        print(f"{os.path.basename(path)}: no comparable benchmark")
        return
    share = lambda k: f"{100 * reasons[k] / total:.0f} %"
    fmt = lambda key: "{1:.2f} ({0:.2f}-{2:.2f})".format(*quartiles(per_bench[key]))
    line = (f"{os.path.basename(path)}: {len(per_bench['same time'])} benchmarks, "
            f"choices shorter {share('shorter')} / kept {share('kept')} / longer {share('longer')}; "
            f"same time: SE {fmt('same time')}; same rounds: time {fmt('rounds time')}, "
            f"SE {fmt('rounds se')}")
    if oracle:
        line += " ; oracle same time: SE {1:.2f} ({0:.2f}-{2:.2f})".format(*quartiles(oracle_ratios))
    print(line)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("recordings", nargs="+")
    p.add_argument("--default-ms", type=float, default=500.0)
    p.add_argument("--rounds", type=int, default=10)
    p.add_argument("--oracle", action="store_true")
    args = p.parse_args()
    for path in args.recordings:
        report(path, args.default_ms, args.rounds, args.oracle)


if __name__ == "__main__":
    sys.exit(main())
