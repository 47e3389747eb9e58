#!/usr/bin/env bash
# Duet vs interleaved, A/A, idle and under a noisy neighbour (project issue #5,
# docs/design/duet.md).
#
# Runs the real `cargo perfdiff` on a copy of fixtures/criterion-demo, comparing HEAD with HEAD
# (an A/A comparison: the true ratio is 1), once in interleaved mode and once in duet mode, with
# rounds chosen so both take about the same wall time (a duet round runs base and head at once,
# so duet gets twice the rounds). That is done twice: on the machine as it is ("idle"), and with
# a noisy neighbour this script starts itself. It prints, per case and mode, the relative width
# of the 99 % CI of the ratio ((high - low) / estimate), the wall time, and the interleaved/duet
# width ratio (> 1: duet is narrower), plus the load average before and after each case.
#
# The noisy neighbour: one busy/sleep worker per CPU of the duet pair, sharing one schedule (a
# multi-threaded tenant whose bursts hit both CPUs at once), 100 ms periods whose duty cycle
# swings between 10 % and 90 % over a 6 s cycle. It is bounded: it exits by itself after its
# time limit and is killed on exit of this script (trap).
#
# Usage: scripts/duet_vs_interleaved.sh [ROUNDS]   (interleaved rounds; duet runs 2 x ROUNDS)
# Env:   DUET_ROUNDS (duet rounds, default 2 x ROUNDS: raise it until the printed wall times
#        match when interleaved forks take longer, e.g. because their adaptive warm-up grew),
#        BENCH (default hash/steady), WARM_UP (s, 0.3), MEASURE (s, 1.0), SAMPLES (20),
#        CPUS (duet CPUs "A,B", default: the tool's choice), CASES ("idle noisy"),
#        PERFDIFF (the command, default: cargo perfdiff), KEEP_DIR (keep the work directory).
# Figures meant for publication want a machine with nothing else measuring or compiling;
# the script prints the load average before and after each case so readers can judge.
set -euo pipefail

ROUNDS=${1:-10}
DUET_ROUNDS=${DUET_ROUNDS:-$((2 * ROUNDS))}
BENCH=${BENCH:-hash/steady}
WARM_UP=${WARM_UP:-0.3}
MEASURE=${MEASURE:-1.0}
SAMPLES=${SAMPLES:-20}
CASES=${CASES:-idle noisy}
read -r -a PERFDIFF <<<"${PERFDIFF:-cargo perfdiff}"

here=$(cd "$(dirname "$0")" && pwd)
fixture="$here/../fixtures/criterion-demo"
work=$(mktemp -d -t perfdiff-duet-XXXXXX)
neighbour_pids=()

cleanup() {
    for pid in "${neighbour_pids[@]:-}"; do
        [[ -n "$pid" ]] && kill "$pid" 2>/dev/null || true
    done
    wait 2>/dev/null || true
    [[ -n "${KEEP_DIR:-}" ]] || rm -rf "$work"
}
trap cleanup EXIT INT TERM

# The CPUs the neighbour loads: the duet pair (default: the first two this process may use).
if [[ -n "${CPUS:-}" ]]; then
    neighbour_cpus=${CPUS//,/ }
else
    neighbour_cpus=$(python3 -c 'import os; print(*sorted(os.sched_getaffinity(0))[:2])')
fi
cpu_args=()
[[ -n "${CPUS:-}" ]] && cpu_args=(--cpus "$CPUS")

# start_neighbour SECONDS: one bounded busy/sleep worker per CPU, on one shared clock.
start_neighbour() {
    local limit=$1 epoch cpu
    epoch=$(python3 -c 'import time; print(time.time())')
    for cpu in $neighbour_cpus; do
        python3 - "$cpu" "$limit" "$epoch" <<'PY' &
import math, os, sys, time
cpu, limit, epoch = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
os.sched_setaffinity(0, {cpu})
period, cycle = 0.1, 6.0
while True:
    now = time.time()
    if now - epoch > limit:
        break
    # Same schedule on every CPU: phase from the shared epoch.
    start = epoch + math.floor((now - epoch) / period) * period
    duty = 0.5 + 0.4 * math.sin(2 * math.pi * (start - epoch) / cycle)
    busy_until = start + duty * period
    while time.time() < busy_until:
        pass
    rest = start + period - time.time()
    if rest > 0:
        time.sleep(rest)
PY
        neighbour_pids+=($!)
    done
}

stop_neighbour() {
    for pid in "${neighbour_pids[@]:-}"; do
        [[ -n "$pid" ]] && kill "$pid" 2>/dev/null || true
    done
    wait "${neighbour_pids[@]}" 2>/dev/null || true
    neighbour_pids=()
}

# The fixture as a one-commit repository: HEAD vs HEAD is the A/A comparison.
cp -r "$fixture" "$work/repo"
rm -rf "$work/repo/target"
git -C "$work/repo" init -q
git -C "$work/repo" -c user.name=perfdiff -c user.email=perfdiff@localhost add -A
git -C "$work/repo" -c user.name=perfdiff -c user.email=perfdiff@localhost commit -q -m fixture

# run MODE ROUNDS NAME: one A/A comparison; the JSON report goes to $work/NAME.json.
run() {
    local mode=$1 rounds=$2 name=$3
    (cd "$work/repo" && "${PERFDIFF[@]}" HEAD HEAD --mode "$mode" "${cpu_args[@]}" \
        --stop fixed --forks "$rounds" --warm-up-time "$WARM_UP" --measurement-time "$MEASURE" \
        --sample-size "$SAMPLES" --fail-on never --format json -q \
        --samples "$work/$name.samples.json" -o "$work/$name.json" -- "^${BENCH}\$") \
        >"$work/$name.log" 2>&1 || {
        echo "cargo perfdiff failed ($name):" >&2
        tail -20 "$work/$name.log" >&2
        exit 2
    }
}

# summary NAME: "rel_width estimate wall_s mean_overlap_or_-"
summary() {
    python3 - "$work/$1.json" "$work/$1.samples.json" <<'PY'
import json, sys
report, samples = (json.load(open(p)) for p in sys.argv[1:3])
bench = report["benchmarks"][0]
ratio = bench["ratio"]
width = (ratio["ci_high"] - ratio["ci_low"]) / ratio["estimate"]
overlaps = []
record = samples["benchmarks"][0]
for b in record["base"]["forks"]:
    h = [f for f in record["head"]["forks"] if f.get("round") == b.get("round")]
    if h and "measurement_window_ms" in b and "measurement_window_ms" in h[0]:
        (b0, b1), (h0, h1) = b["measurement_window_ms"], h[0]["measurement_window_ms"]
        union = max(b1, h1) - min(b0, h0)
        overlaps.append(max(0.0, min(b1, h1) - max(b0, h0)) / union if union > 0 else 0.0)
overlap = f"{sum(overlaps) / len(overlaps):.2f}" if overlaps else "-"
print(f"{width:.4f} {ratio['estimate']:.4f} {report['run']['wall_ms'] / 1000:.1f} {overlap} {bench['verdict']}")
PY
}

echo "building and warming the build cache (not measured) ..."
run interleaved 2 build >/dev/null

echo "A/A comparison of $BENCH: interleaved $ROUNDS rounds vs duet $DUET_ROUNDS rounds;"
echo "warm-up ${WARM_UP}s, measurement ${MEASURE}s, $SAMPLES samples per fork; neighbour CPUs: $neighbour_cpus"
rows=()
for case in $CASES; do
    before=$(cut -d' ' -f1-3 /proc/loadavg)
    if [[ $case == noisy ]]; then
        # Generous bound: both runs, plus slack; the trap ends it early on any exit.
        start_neighbour $(((ROUNDS * 2 + DUET_ROUNDS) * 15 + 120))
    fi
    run interleaved "$ROUNDS" "$case-interleaved"
    run duet "$DUET_ROUNDS" "$case-duet"
    [[ $case == noisy ]] && stop_neighbour
    after=$(cut -d' ' -f1-3 /proc/loadavg)
    read -r iw ie iwall _ iverdict <<<"$(summary "$case-interleaved")"
    read -r dw de dwall dover dverdict <<<"$(summary "$case-duet")"
    ratio=$(python3 -c "print(f'{$iw / $dw:.2f}')")
    rows+=("$(printf '| %-6s | %6.2f %% (%s, %ss) | %6.2f %% (%s, %ss, overlap %s) | %5s× | %s → %s |' \
        "$case" "$(python3 -c "print($iw*100)")" "$iverdict" "$iwall" \
        "$(python3 -c "print($dw*100)")" "$dverdict" "$dwall" "$dover" "$ratio" "$before" "$after")")
    echo "${rows[-1]}"
done

echo
echo "| case | interleaved: rel. 99 % CI width (verdict, wall) | duet: rel. 99 % CI width (verdict, wall, mean overlap) | interleaved / duet | load average before → after |"
echo "| --- | --- | --- | --- | --- |"
printf '%s\n' "${rows[@]}"
echo
echo "target: duet >= 2x narrower under the noisy neighbour, and no wider idle (ratio >= 1)."
[[ -n "${KEEP_DIR:-}" ]] && echo "work directory kept: $work"
exit 0
