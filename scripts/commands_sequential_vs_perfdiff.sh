#!/usr/bin/env bash
# Compares cargo-perfdiff's default run of a command with a hyperfine-style sequential run on the
# same pair of programs: hyperfine -N runs every base execution, then every head execution, the
# same number of each (RUNS, default 10: cargo-perfdiff's max-forks), and a Welch t-test on its
# times (hyperfine's own scripts/welch_ttest.py) says whether they differ. Each repeat runs both
# methods, in alternating order, on a real pair (BASE, HEAD) and on an A/A pair (HEAD, HEAD).
# Prints, per method and pair: how often the time was called different, and the time taken.
#
# Usage: scripts/commands_sequential_vs_perfdiff.sh REPO BASE HEAD 'COMMAND' [REPEATS] [RUNS]
#   COMMAND uses {bin} (the revision's programs) and {input} (a directory made once, in which the
#   SETUP environment variable's shell command, if any, is run first), e.g.
#   SETUP="seq 1 1000000 | sed 's/\$/ lorem foo ipsum/' > big.txt" \
#     scripts/commands_sequential_vs_perfdiff.sh /tmp/sd 87d1ba5 4a7b216 \
#     '{bin}/sd -p foo qux {input}/big.txt' 5
# Needs cargo-perfdiff and hyperfine (cargo install hyperfine --version 1.20.0 on Rust 1.95) on
# PATH, python3 with scipy.
# Measures: run it on an otherwise idle machine.
set -euo pipefail

repo=$(cd "$1" && pwd)
base=$2
head=$3
command=$4
repeats=${5:-5}
# Executions of each program in a sequential run: cargo-perfdiff's max-forks, the most a side
# of its run gets.
runs=${6:-10}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/input"
if [ -n "${SETUP:-}" ]; then
    (cd "$work/input" && sh -c "$SETUP")
fi
command=${command//\{input\}/$work/input}
base_sha=$(git -C "$repo" rev-parse "$base^{commit}")
head_sha=$(git -C "$repo" rev-parse "$head^{commit}")
target=$(cd "$repo" && cargo metadata --no-deps --format-version 1 |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')

# cargo-perfdiff, default settings; prints "<seconds in all> <seconds measuring> <time verdict>
# <memory verdict> <forks a side>" (the rest of its time is checking out and finding the build kept).
perfdiff_run() {
    local from=$1 to=$2 out=$work/perfdiff.json start end
    start=$(date +%s.%N)
    (cd "$repo" && cargo perfdiff "$from" "$to" --commands-only --cmd "x=$command" \
        --format json --fail-on never -q -o "$out")
    end=$(date +%s.%N)
    python3 - "$out" "$start" "$end" <<'EOF'
import json, sys
report = json.load(open(sys.argv[1]))
by_id = {b["id"]: b for b in report["benchmarks"]}
forks = by_id["x"]["forks"]["base"]
measuring = report["run"].get("measure_ms", 0) / 1000
print(f'{float(sys.argv[3]) - float(sys.argv[2]):.1f} {measuring:.1f} {by_id["x"]["verdict"]} '
      f'{by_id["x (peak memory)"]["verdict"]} {forks}')
EOF
}

# hyperfine -N, RUNS executions of base's program, then RUNS of head's; prints
# "<seconds> <different at 0.05> <different at 0.01> <p>".
sequential_run() {
    local from_sha=$1 to_sha=$2 runs=$3 out=$work/hyperfine.json start end
    local from_bin=$work/programs-$from_sha
    local to_bin=$work/programs-$to_sha
    start=$(date +%s.%N)
    hyperfine -N --style none --runs "$runs" --export-json "$out" \
        "${command//\{bin\}/$from_bin}" "${command//\{bin\}/$to_bin}" > /dev/null
    end=$(date +%s.%N)
    python3 - "$out" "$start" "$end" <<'EOF'
import json, sys
from scipy import stats
results = json.load(open(sys.argv[1]))["results"]
p = stats.ttest_ind(results[0]["times"], results[1]["times"], equal_var=False).pvalue
print(f'{float(sys.argv[3]) - float(sys.argv[2]):.1f} {p < 0.05} {p < 0.01} {p:.2g}')
EOF
}

# Builds both commits' programs and keeps a copy of cargo's layout, which the sequential run
# executes (cargo-perfdiff keeps the builds of the commits it last compared only).
(cd "$repo" && cargo perfdiff "$base_sha" "$head_sha" --commands-only --cmd "x=$command" \
    --list -q > /dev/null)
for sha in "$base_sha" "$head_sha"; do
    cp -r "$target/perfdiff/bin/$sha/programs/cargo" "$work/programs-$sha"
done

echo "pair repeat method seconds verdict(s)"
for repeat in $(seq 1 "$repeats"); do
    for pair in real aa; do
        if [ "$pair" = real ]; then from=$base_sha; else from=$head_sha; fi
        # The order alternates between repeats, so a drift of the machine favours neither.
        # (A failure inside $(…) would not stop the script: each result is taken first.)
        if [ $((repeat % 2)) -eq 1 ]; then
            sequential=$(sequential_run "$from" "$head_sha" "$runs")
            perfdiff=$(perfdiff_run "$from" "$head_sha")
        else
            perfdiff=$(perfdiff_run "$from" "$head_sha")
            sequential=$(sequential_run "$from" "$head_sha" "$runs")
        fi
        echo "$pair $repeat sequential $sequential"
        echo "$pair $repeat perfdiff $perfdiff"
    done
done

