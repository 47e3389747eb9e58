#!/usr/bin/env python3
"""Replays the default `decided` rule (max-forks 10) on every committed recording.

Prints per recording the rule's share of the fixed run's fork wall time (1 - time saved), its mean
rounds, the fixed run's clear verdicts it reaches and the verdicts it gives other than the fixed
run's (and other than inconclusive); then their means over the recordings. With -v also the
clear verdicts it misses and where the time goes (fixed verdict -> rule's verdict / rounds, in
points of the mean share). docs/design/equivalence-and-futility.md, "Second session of attempts".

Usage: scripts/stop_replay_all.py [ORDERS] [-v]   (BIN: the cargo-perfdiff binary, default
target/debug/cargo-perfdiff; run from the repository's root)
"""
import glob, json, os, subprocess, sys
from collections import defaultdict
BIN = os.environ.get("BIN", "target/debug/cargo-perfdiff")
orders = sys.argv[1] if len(sys.argv) > 1 else "1"
verbose = "-v" in sys.argv
RECORDINGS = len(glob.glob("fixtures/recordings/*.json"))
rows = []
cat = defaultdict(float); catfull = 0.0
for path in sorted(glob.glob("fixtures/recordings/*.json")):
    out = subprocess.run([BIN, "perfdiff", "replay", path, "--stop", "decided", "--max-forks", "10",
                          "--orders", orders, "--format", "json"], capture_output=True, text=True, check=True).stdout
    reps = json.loads(out)
    share = sum(1 - r["totals"]["time_saved"] for r in reps) / len(reps)
    clear = sum(r["totals"]["clear_benchmarks"] for r in reps)
    clear_ok = sum(sum(1 for b in r["benchmarks"] if b["clear"] and b["agrees"]) for r in reps)
    wrong = sum(sum(1 for b in r["benchmarks"] if b["verdict"] != b["verdict_full"] and b["verdict"] != "inconclusive") for r in reps)
    rounds = sum(r["totals"]["mean_rounds"] for r in reps) / len(reps)
    for r in reps:
        full = sum(b["wall_full_ms"] for b in r["benchmarks"])
        for b in r["benchmarks"]:
            k = b["verdict_full"] + "->" + b["verdict"] + f"/{b['rounds']}"
            cat[k] += b["wall_kept_ms"] / full / len(reps) / RECORDINGS
            if verbose and b["verdict"] == "inconclusive" and b["verdict_full"] != "inconclusive" and b["clear"]:
                print("  missed clear", os.path.basename(path), b["id"], b["verdict_full"], b["rounds"])
    rows.append((os.path.basename(path).replace(".json", ""), share, clear_ok, clear, wrong, rounds))
for name, share, ok, clear, wrong, rounds in rows:
    print(f"{name:42} share {share*100:5.1f} %  rounds {rounds:4.1f}  clear {ok}/{clear}  wrong {wrong}")
print(f"MEAN share {sum(r[1] for r in rows)/len(rows)*100:.1f} %   clear {sum(r[2] for r in rows)}/{sum(r[3] for r in rows)}  wrong {sum(r[4] for r in rows)}")
if verbose:
    for k, v in sorted(cat.items(), key=lambda kv: -kv[1]):
        print(f"   {k:40} {v*100:5.1f} points of mean share")
