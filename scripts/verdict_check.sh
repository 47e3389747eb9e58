#!/usr/bin/env bash
# Repeated A/B and A/A comparisons at default settings on a layout-sensitive criterion crate
# (issue #41's check, docs/design/evidence.md "Verdicts: one paired interval over the rounds").
#
# A fresh git repository holds a copy of fixtures/layout-sensitive whose work constants count in
# hundredths; three branches sit on its first commit:
#   ab   kernels/sum_mix does 1.10×, kernels/digits 1.03× and kernels/lookup 0.80× the work;
#        kernels/sort_small (the most layout-sensitive kernel) is untouched;
#   aa   a comment appended to src/lib.rs (identical executables);
#   cmp  (with CASES=fixed) the same A/B compared with --stop fixed --forks 10, for the time.
# Each case runs RUNS times (`cargo perfdiff main ab --format json`, default settings plus
# $PERFDIFF_ARGS); the kept builds make every run after the first a measurement only. Printed:
# each run's verdicts, changes and intervals and its wall time, then a summary: how often each
# change was found, the A/A verdicts, every verdict checked against its printed interval.
#
# Usage: scripts/verdict_check.sh            (RUNS=5, CASES="ab aa")
# Env:   PERFDIFF (the command, default: cargo perfdiff), PERFDIFF_ARGS, RUNS, CASES
#        ("ab aa fixed"), KEEP_DIR (keep the work directory).
# Timing figures want a machine with nothing else measuring or compiling.
set -euo pipefail

read -r -a PERFDIFF <<<"${PERFDIFF:-cargo perfdiff}"
read -r -a EXTRA <<<"${PERFDIFF_ARGS:-}"
runs=${RUNS:-5}
read -r -a cases <<<"${CASES:-ab aa}"

here=$(cd "$(dirname "$0")" && pwd)
fixture="$here/../fixtures/layout-sensitive"
work=$(mktemp -d -t perfdiff-verdicts-XXXXXX)
[ -n "${KEEP_DIR:-}" ] || trap 'rm -rf "$work"' EXIT
repo="$work/repo"
mkdir -p "$repo"
cp -r "$fixture/Cargo.toml" "$fixture/Cargo.lock" "$fixture/src" "$fixture/benches" "$repo/"
# Work in hundredths, so that a commit can ask for exactly 1.03× the work.
sed -i 's/_WORK: usize = 10;/_WORK: usize = 100;/' "$repo/src/lib.rs"
sed -i 's|n \* work / 10|n * work / 100|' "$repo/benches/kernels.rs"
git -C "$repo" init -q -b main
git -C "$repo" add -A
git -C "$repo" -c user.name=check -c user.email=check@example.com commit -qm base

commit() {
    git -C "$repo" -c user.name=check -c user.email=check@example.com commit -qam "$1"
}
git -C "$repo" checkout -qb ab main
sed -i -e 's/SUM_MIX_WORK: usize = 100;/SUM_MIX_WORK: usize = 110;/' \
    -e 's/DIGITS_WORK: usize = 100;/DIGITS_WORK: usize = 103;/' \
    -e 's/LOOKUP_WORK: usize = 100;/LOOKUP_WORK: usize = 80;/' "$repo/src/lib.rs"
commit "sum_mix 1.10x, digits 1.03x, lookup 0.80x"
git -C "$repo" checkout -qb aa main
printf '\n// A comment: the executables stay identical.\n' >>"$repo/src/lib.rs"
commit "a comment"
git -C "$repo" checkout -q main

results="$work/results.jsonl"
for case in "${cases[@]}"; do
    case $case in
        ab | aa) head=$case args=() ;;
        fixed) head=ab args=(--stop fixed --forks 10) ;;
        *) echo "unknown case $case" >&2 && exit 2 ;;
    esac
    for run in $(seq 1 "$runs"); do
        out="$work/$case-$run.json"
        start=$(date +%s.%N)
        (cd "$repo" && "${PERFDIFF[@]}" main "$head" --format json "${args[@]}" "${EXTRA[@]}" \
            >"$out" 2>"$out.log") || true
        end=$(date +%s.%N)
        python3 - "$case" "$run" "$start" "$end" "$out" >>"$results" <<'EOF'
import json, sys
case, run, start, end, path = sys.argv[1:]
report = json.load(open(path))
rows = []
for b in report["benchmarks"]:
    r = b.get("ratio") or {}
    rows.append({"id": b["id"], "verdict": b["verdict"], "change": b.get("change_rate"),
                 "low": r.get("ci_low"), "high": r.get("ci_high"), "kind": r.get("kind"),
                 "rounds": (b.get("stop") or {}).get("rounds"), "threshold": b["threshold"]})
print(json.dumps({"case": case, "run": int(run), "seconds": float(end) - float(start),
                  "measure_s": (report["run"].get("measure_ms") or 0) / 1e3, "rows": rows}))
EOF
        tail -n 1 "$results" | python3 -c '
import json, sys
r = json.loads(sys.stdin.read())
cells = ", ".join("%s %s %+.1f %% [%.3f, %.3f] (%s rounds)" % (x["id"].split("/")[-1], x["verdict"],
        100 * (x["change"] or 0), x["low"] or 0, x["high"] or 0, x["rounds"]) for x in r["rows"])
print("%s %d: %.0f s (measuring %.0f s): %s" % (r["case"], r["run"], r["seconds"], r["measure_s"], cells))'
    done
done

python3 - "$results" <<'EOF'
import json, sys
from collections import Counter, defaultdict
runs = [json.loads(l) for l in open(sys.argv[1])]
expected = {"kernels/sum_mix": "regressed", "kernels/digits": "regressed",
            "kernels/lookup": "improved", "kernels/sort_small": None}
inconsistent = 0
for r in runs:
    for x in r["rows"]:
        v, lo, hi, t = x["verdict"], x["low"], x["high"], x["threshold"]
        ok = (v != "regressed" or lo > 1) and (v != "improved" or hi < 1) and \
             (v != "unchanged" or (lo >= 1 - t and hi <= 1 + t))
        inconsistent += not ok
print("\nsummary")
for case in ("ab", "aa", "fixed"):
    of = [r for r in runs if r["case"] == case]
    if not of:
        continue
    verdicts = defaultdict(Counter)
    for r in of:
        for x in r["rows"]:
            verdicts[x["id"]][x["verdict"]] += 1
    secs = [r["seconds"] for r in of]
    meas = [r["measure_s"] for r in of]
    print(f"{case}: {len(of)} runs, wall {min(secs):.0f}–{max(secs):.0f} s, measuring "
          f"{sum(meas) / len(meas):.1f} s on average")
    for bench, counts in sorted(verdicts.items()):
        print(f"  {bench}: " + ", ".join(f"{n} {v}" for v, n in counts.most_common()))
print(f"verdicts inconsistent with their printed interval: {inconsistent}")
EOF
