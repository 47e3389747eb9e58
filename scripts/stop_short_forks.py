#!/usr/bin/env python3
"""Would shorter forks after the first look save time without changing verdicts?
(docs/design/rejected.md)

Emulates a `decided` run whose forks after the first look (replay position >= 3) measure for a
fraction of `--measurement-time`, on a recording made with full-length forks: such a fork keeps
its first K samples (criterion's linear sampling gives sample i i*d iterations, so the first K of
n samples took K(K+1)/(n(n+1)) of the measurement time) and its wall time loses the time of the
samples it drops. A real shorter fork measures the same stretch of time after its warm-up.

For every order (the recorded one and seeded shuffles of the rounds, as `replay --orders`) it
replays `decided` on the unchanged and on the shortened recording and compares both with the full
recording's fixed `--max-forks` verdict: time saved against the full recording's wall time, and
agreement on all and on clear benchmarks.

  --keep K       shorten every later fork to its first K samples
  --adaptive E   shorten each benchmark to the fraction 1/(1 + E/r) of the time (at least
                 --min-fraction), r = the share of the fork-mean variance within forks, estimated
                 at the first look (iteration-weighted sandwich variance of each fork's mean
                 against the variance of the log fork means, both sides pooled)
  --empirical E  shorten each benchmark to the fewest of 11, 16 or 21 samples whose cut, applied
                 to its first-look forks, moves their log means by a mean square of at most E
                 times the variance of the full-length log fork means (else keep full length)

Usage: stop_short_forks.py RECORDING.json (--keep K | --adaptive E [--min-fraction F] | --empirical E)
                           [--orders N] [--binary target/release/cargo-perfdiff]
"""
import argparse, copy, json, math, os, random, statistics, subprocess, sys, tempfile

FIRST_LOOK = 3


def permuted(recording, seed):
    """The recording with its rounds in a seeded order (seed 0: as recorded), renumbered."""
    data = copy.deepcopy(recording)
    rng = random.Random(seed)
    for bench in data["benchmarks"]:
        if bench["presence"] != "both":
            continue
        rounds = max(len(bench["base"]["forks"]), len(bench["head"]["forks"]))
        order = list(range(rounds))
        if seed:
            rng.shuffle(order)
        for side in ("base", "head"):
            by_round = {f["round"]: f for f in bench[side]["forks"]}
            forks = []
            for position, recorded in enumerate(order):
                if recorded in by_round:
                    fork = by_round[recorded]
                    fork["round"] = position
                    forks.append(fork)
            bench[side]["forks"] = forks
    return data


def fork_mean_and_variance(fork):
    """Mean time per iteration and the sandwich variance of that ratio estimator."""
    iters, times = fork["iters"], fork["times_ns"]
    total = sum(iters)
    mean = sum(times) / total
    n = len(iters)
    var = sum((i * (t / i - mean)) ** 2 for i, t in zip(iters, times)) / total**2 * n / (n - 1)
    return mean, var


def within_share(bench):
    """Share of the log fork means' variance that the forks' own sampling noise explains."""
    between, within = [], []
    for side in ("base", "head"):
        first = [fork_mean_and_variance(f) for f in bench[side]["forks"] if f["round"] < FIRST_LOOK]
        if len(first) < FIRST_LOOK:
            continue
        between.append(statistics.variance([math.log(m) for m, _ in first]))
        within.append(statistics.mean(v / m**2 for m, v in first))
    if not between or statistics.mean(between) <= 0:
        return 1.0
    return min(1.0, statistics.mean(within) / statistics.mean(between))


def log_mean(iters, times):
    return math.log(sum(times) / sum(iters))


def empirical_fraction(bench, eps, candidates=(11, 16, 21)):
    """The shortest candidate whose first-look forks, cut to it, would have moved their log
    means by a variance of at most `eps` times the variance of the full-length log fork means."""
    between, moved = [], []
    for side in ("base", "head"):
        first = [f for f in bench[side]["forks"] if f["round"] < FIRST_LOOK]
        if len(first) < FIRST_LOOK:
            return 1.0
        between.append(statistics.variance([log_mean(f["iters"], f["times_ns"]) for f in first]))
        moved.append(first)
    noise = statistics.mean(between)
    for keep in candidates:
        shifts = [log_mean(f["iters"][:keep], f["times_ns"][:keep]) - log_mean(f["iters"], f["times_ns"])
                  for side in moved for f in side if len(f["iters"]) > keep]
        if len(shifts) >= 2 and sum(d * d for d in shifts) / len(shifts) <= eps * noise:
            n = len(moved[0][0]["iters"])
            return keep * (keep + 1) / (n * (n + 1))
    return 1.0


def samples_for(fraction, n):
    return next(k for k in range(1, n + 1) if k * (k + 1) >= fraction * n * (n + 1))


def shortened(data, args):
    data = copy.deepcopy(data)
    for bench in data["benchmarks"]:
        if bench["presence"] != "both":
            continue
        fraction = None
        if args.empirical is not None:
            fraction = empirical_fraction(bench, args.empirical)
        elif args.adaptive is not None:
            share = within_share(bench)
            fraction = 1.0 if share <= 0 else max(args.min_fraction, 1 / (1 + args.adaptive / share))
        for side in ("base", "head"):
            for fork in bench[side]["forks"]:
                n = len(fork["iters"])
                if fork["round"] < FIRST_LOOK:
                    continue
                cut_fork(fork, args.keep if fraction is None else samples_for(fraction, n))
    return data


def cut_fork(fork, keep):
    """Cuts `fork` in place to its first `keep` samples, and its wall time by the time of the
    samples it drops (warm-up and process start stay). Replay detects warm-up afresh."""
    if keep >= len(fork["iters"]):
        return
    fork["wall_ms"] -= sum(fork["times_ns"][keep:]) / 1e6
    fork["iters"] = fork["iters"][:keep]
    fork["times_ns"] = fork["times_ns"][:keep]


def replay(binary, data, max_forks, workdir, name):
    path = os.path.join(workdir, name)
    with open(path, "w") as f:
        json.dump(data, f)
    # The emulation cuts forks after the first look at FIRST_LOOK forks, the looks the figures
    # in docs/design/rejected.md were measured with; the default first look is now at two forks.
    out = subprocess.run(
        [binary, "perfdiff", "replay", path, "--stop", "decided", "--max-forks", str(max_forks),
         "--min-forks", str(FIRST_LOOK), "--orders", "1", "--format", "json"],
        check=True, capture_output=True, text=True).stdout
    return json.loads(out)[0]["benchmarks"]


def summary(reference, replayed):
    full = {b["id"]: b for b in reference}
    wall_full = sum(b["wall_full_ms"] for b in reference)
    saved = 1 - sum(b["wall_kept_ms"] for b in replayed) / wall_full
    agree = [b["verdict"] == full[b["id"]]["verdict_full"] for b in replayed]
    clear = [b["verdict"] == full[b["id"]]["verdict_full"] for b in replayed if full[b["id"]]["clear"]]
    return saved, sum(agree) / len(agree), sum(clear) / max(1, len(clear))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("recording")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--keep", type=int)
    g.add_argument("--adaptive", type=float)
    g.add_argument("--empirical", type=float)
    p.add_argument("--min-fraction", type=float, default=0.15)
    p.add_argument("--orders", type=int, default=10)
    p.add_argument("--max-forks", type=int, default=10)
    p.add_argument("--binary", default="target/release/cargo-perfdiff")
    args = p.parse_args()
    recording = json.load(open(args.recording))
    rows = {"full-length forks": [], "shortened": []}
    with tempfile.TemporaryDirectory() as workdir:
        for seed in range(args.orders):
            data = permuted(recording, seed)
            reference = replay(args.binary, data, args.max_forks, workdir, "full.json")
            rows["full-length forks"].append(summary(reference, reference))
            short = replay(args.binary, shortened(data, args), args.max_forks, workdir, "short.json")
            rows["shortened"].append(summary(reference, short))
    name = os.path.basename(args.recording)
    for label, values in rows.items():
        saved, agree, clear = (100 * statistics.mean(v[i] for v in values) for i in range(3))
        print(f"{name}  {label:18}  saved {saved:5.1f} %  agreement {agree:5.1f} %  clear {clear:5.1f} %")


if __name__ == "__main__":
    sys.exit(main())
