#!/usr/bin/env python3
"""Do forks need their whole measurement time? (docs/design/warm-up.md, "How long a fork measures")

Criterion benchmarks vary more between processes than within one, so past some length a fork's
mean stops getting more precise: its error is the fork-to-fork noise. This script emulates
shorter forks on recordings made with full-length ones: a fork cut to its first K of n samples
(criterion's linear sampling gives sample i i*d iterations, so they took K(K+1)/(n(n+1)) of the
measurement time) is what a fork asked for that fraction of `--measurement-time` measures after
the same warm-up, and its wall time loses the time of the samples it drops. Every fork is cut,
so base and head are measured alike.

For each recording and cut it prints:
- `fork time`: the mean wall time of a cut fork against a full one (warm-up and process start
  stay);
- `SE`: the median (quartiles) over benchmarks of the standard error of the log ratio of means
  over all forks (base and head fork means, unpaired) with cut forks, against full-length forks;
- `shift`: the median and the largest move of that log ratio, in full-length standard errors;
- `fixed`: how often `--stop fixed` at the recording's `--max-forks` on cut forks gives the
  full-length verdict, on all and on clear benchmarks (those the full recording calls changed by
  at least twice the threshold or unchanged within half of it), as the replay reports them.

Two runs of fixed 10 on the same pair agree on 79-89 % of their verdicts on this project's
machine (docs/design/replay.md), which is the scale to read `fixed` against.

Usage: fork_length.py RECORDING.json... [--cuts 21,17,12] [--max-forks 10]
                      [--binary target/release/cargo-perfdiff]
"""
import argparse, json, math, os, statistics, subprocess, sys, tempfile

from stop_short_forks import cut_fork


def log_mean(fork, keep):
    """Log of the mean time per iteration of a fork's first `keep` samples after its warm-up."""
    n = min(keep, len(fork["iters"]))
    start = min(fork.get("warmup_dropped", 0), n // 2)
    return math.log(sum(fork["times_ns"][start:n]) / sum(fork["iters"][start:n]))


def log_ratio(bench, keep):
    """Log ratio of the mean fork means (head / base) and its unpaired standard error."""
    b = [log_mean(f, keep) for f in bench["base"]["forks"]]
    h = [log_mean(f, keep) for f in bench["head"]["forks"]]
    se = math.sqrt(statistics.variance(b) / len(b) + statistics.variance(h) / len(h))
    return statistics.mean(h) - statistics.mean(b), se


def comparable(bench):
    """Benchmarks measured on both sides with at least three full forks each."""
    if bench["presence"] != "both":
        return False
    forks = bench["base"]["forks"] + bench["head"]["forks"]
    return min(len(bench["base"]["forks"]), len(bench["head"]["forks"])) >= 3 and all(
        len(f["iters"]) == len(forks[0]["iters"]) for f in forks)


def cut(recording, keep):
    """The recording with every fork cut to its first `keep` samples."""
    data = json.loads(json.dumps(recording))
    for bench in data["benchmarks"]:
        for side in ("base", "head"):
            for fork in bench[side]["forks"]:
                cut_fork(fork, keep)
    return data


def fixed_verdicts(binary, data, max_forks, workdir):
    """Per benchmark id: the replayed fixed run's verdict, the full verdict, clear or not."""
    path = os.path.join(workdir, "recording.json")
    with open(path, "w") as f:
        json.dump(data, f)
    out = subprocess.run(
        [binary, "perfdiff", "replay", path, "--stop", "fixed", "--max-forks", str(max_forks),
         "--orders", "1", "--format", "json"],
        check=True, capture_output=True, text=True).stdout
    return {b["id"]: b for b in json.loads(out)[0]["benchmarks"]}


def fork_wall(data):
    walls = [f["wall_ms"] for b in data["benchmarks"] for s in ("base", "head") for f in b[s]["forks"]]
    return statistics.mean(walls)


def quartiles(values):
    q = statistics.quantiles(values, n=4) if len(values) > 1 else [values[0]] * 3
    return q[0], statistics.median(values), q[2]


def report(path, cuts, max_forks, binary, workdir):
    recording = json.load(open(path))
    benches = [b for b in recording["benchmarks"] if comparable(b)]
    full = fixed_verdicts(binary, recording, max_forks, workdir)
    samples = len(benches[0]["base"]["forks"][0]["iters"])
    name = os.path.basename(path)
    for keep in cuts:
        share = keep * (keep + 1) / (samples * (samples + 1))
        short = cut(recording, keep)
        ratios, shifts = [], []
        for bench in benches:
            d_full, se_full = log_ratio(bench, samples)
            d_cut, se_cut = log_ratio(bench, keep)
            ratios.append(se_cut / se_full)
            shifts.append(abs(d_cut - d_full) / se_full)
        verdicts = fixed_verdicts(binary, short, max_forks, workdir)
        agree = [verdicts[i]["verdict"] == b["verdict_full"] for i, b in full.items()]
        clear = [verdicts[i]["verdict"] == b["verdict_full"] for i, b in full.items() if b["clear"]]
        low, mid, high = quartiles(ratios)
        print(f"{name}  first {keep}/{samples} samples ({100 * share:.0f} % of the measurement): "
              f"fork time {fork_wall(short) / fork_wall(recording):.2f}  "
              f"SE {mid:.2f} ({low:.2f}-{high:.2f})  "
              f"shift {statistics.median(shifts):.2f} (max {max(shifts):.2f})  "
              f"fixed {100 * sum(agree) / len(agree):.1f} % / "
              f"{100 * sum(clear) / max(1, len(clear)):.1f} % of {len(clear)} clear")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("recordings", nargs="+")
    p.add_argument("--cuts", default="21,17,12")
    p.add_argument("--max-forks", type=int, default=10)
    p.add_argument("--binary", default="target/release/cargo-perfdiff")
    args = p.parse_args()
    cuts = [int(k) for k in args.cuts.split(",")]
    with tempfile.TemporaryDirectory() as workdir:
        for path in args.recordings:
            report(path, cuts, args.max_forks, args.binary, workdir)


if __name__ == "__main__":
    sys.exit(main())
