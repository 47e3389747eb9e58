#!/usr/bin/env bash
# What users do today against cargo-perfdiff, on the same pair of commits, side by side:
# criterion's own baseline compare (`cargo bench -- --save-baseline B` on the base checkout, then
# `cargo bench -- --baseline B` on the head checkout) and `cargo perfdiff BASE HEAD`, each
# repeated REPS times, alternating. Prints every benchmark's verdict from both and a tally.
#
# Usage: scripts/criterion_baseline_vs_perfdiff.sh REPO BASE HEAD [REPS] [BENCH]
#
# REPO is a git repository with criterion benchmarks (e.g. one made by
# `cargo perfdiff demo --dir DIR`, whose HEAD~1 → HEAD has known changes; BASE = HEAD = HEAD is
# an A/A comparison). BENCH (optional) is the bench target for `cargo bench --bench`. Both tools
# run with their defaults. Checkouts of BASE and HEAD are made with `git worktree` in a
# temporary directory (the repository's own checkout is not touched), each with a target
# directory of its own (in a shared one cargo may take one checkout's build for the other's:
# its fingerprints of a workspace's files are relative paths and modification times) and one
# criterion directory for both (`CRITERION_HOME`), so the head run finds the saved baseline.
set -euo pipefail

repo=$(cd "${1:?usage: $0 REPO BASE HEAD [REPS] [BENCH]}" && pwd)
base=${2:?base revision}
head=${3:?head revision}
reps=${4:-3}
bench=${5:-}
# Only bench targets (`--benches` would include the library's libtest harness, which rejects
# criterion's options).
criterion_args=(--bench '*')
perfdiff_args=()
if [[ -n $bench ]]; then
    criterion_args=(--bench "$bench")
    perfdiff_args=(--bench "$bench")
fi

work=$(mktemp -d)
cleanup() {
    git -C "$repo" worktree remove --force "$work/base" 2>/dev/null || true
    git -C "$repo" worktree remove --force "$work/head" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
git -C "$repo" worktree add --detach -q "$work/base" "$base"
git -C "$repo" worktree add --detach -q "$work/head" "$head"
export CRITERION_HOME="$work/criterion"

# `<benchmark>\t<criterion's verdict>` from criterion's report on stdin: the benchmark's name
# starts a line, its verdict is one of four fixed sentences below it.
criterion_verdicts() {
    awk '
        /^[^ \t].*time:/ { name = $1 }
        /^[^ \t]/ && !/time:/ && !/^(Benchmarking|Gnuplot|Found|  )/ { name = $0 }
        /Performance has regressed\./ { print name "\tregressed" }
        /Performance has improved\./ { print name "\timproved" }
        /No change in performance detected\./ { print name "\tno change" }
        /Change within noise threshold\./ { print name "\twithin noise" }
    '
}

for rep in $(seq "$reps"); do
    echo "== repetition $rep: criterion --save-baseline on $base, --baseline on $head" >&2
    start=$(date +%s)
    (cd "$work/base" && CARGO_TARGET_DIR="$work/base-target" cargo bench -q "${criterion_args[@]}" -- --save-baseline "perfdiff_$rep" >/dev/null 2>&1)
    (cd "$work/head" && CARGO_TARGET_DIR="$work/head-target" cargo bench -q "${criterion_args[@]}" -- --baseline-lenient "perfdiff_$rep" 2>/dev/null) \
        | tee "$work/criterion-$rep.txt" | criterion_verdicts | sed "s/^/criterion\t$rep\t/" | tee -a "$work/verdicts.tsv"
    echo "criterion repetition $rep: $(( $(date +%s) - start )) s" >&2

    echo "== repetition $rep: cargo perfdiff $base $head" >&2
    start=$(date +%s)
    (cd "$repo" && cargo perfdiff "$base" "$head" "${perfdiff_args[@]}" --format json --fail-on never 2>/dev/null) \
        | jq -r '.benchmarks[] | "\(.id)\t\(.verdict)"' | sed "s/^/perfdiff\t$rep\t/" | tee -a "$work/verdicts.tsv"
    echo "perfdiff repetition $rep: $(( $(date +%s) - start )) s" >&2
done

echo
echo "tool       verdict         count"
cut -f1,4 "$work/verdicts.tsv" | sort | uniq -c | awk '{ printf "%-10s %-15s %s\n", $2, $3 " " $4, $1 }'
