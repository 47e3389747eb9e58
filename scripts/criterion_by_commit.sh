#!/usr/bin/env bash
# An independent reference for a verdict: criterion itself, run by hand on several commits of a
# repository (a pull request's base, some of its commits, its head), in alternating rounds, with
# each benchmark's time per commit (criterion's estimate, averaged over the rounds) printed
# relative to the first commit's. Used when
# cargo-perfdiff's verdict contradicts a published claim (docs/design/field-trials.md, rust-base64
# #269): if criterion agrees with the tool on this machine, the claim does not hold here.
#
# Usage: scripts/criterion_by_commit.sh REPO BENCH FILTER ROUNDS SECONDS COMMIT...
#   REPO     a git repository with criterion benchmarks (its own checkout is not touched)
#   BENCH    the bench target (`cargo bench --bench BENCH`)
#   FILTER   criterion's filter (a regular expression of benchmark ids)
#   ROUNDS   rounds; each runs every commit's executable once, in the order given
#   SECONDS  criterion's measurement time per benchmark (warm-up: 1 s)
# Run it under ../shared/tools/quiet. Each commit is built in a worktree of its own with a target
# directory of its own (cargo takes a shared one's build of a workspace's files for another
# checkout's: its fingerprints are relative paths and modification times), from the first
# commit's lock file where the repository has none (the same dependencies on every side), and
# with `--cap-lints warn` (a revision that denies warnings today's compiler has).
set -euo pipefail

repo=$(cd "${1:?usage: $0 REPO BENCH FILTER ROUNDS SECONDS COMMIT...}" && pwd)
bench=${2:?bench target}
filter=${3:?criterion filter}
rounds=${4:?rounds}
seconds=${5:?measurement seconds}
shift 5
[[ $# -ge 2 ]] || { echo "give two commits or more" >&2; exit 2; }

work=$(mktemp -d)
cleanup() {
    for c in "$@"; do git -C "$repo" worktree remove --force "$work/$c" 2>/dev/null || true; done
    rm -rf "$work"
}
trap 'cleanup "$@"' EXIT

# Builds commit $1's bench executable and copies it to $work/bin/$1.
build() {
    local c=$1 dir=$work/$1 log=$work/$1.build.log exe
    git -C "$repo" worktree add --detach -q "$dir" "$c"
    if [[ -f $work/Cargo.lock && ! -f $dir/Cargo.lock ]]; then cp "$work/Cargo.lock" "$dir/"; fi
    (cd "$dir" && RUSTFLAGS="--cap-lints warn" CARGO_TARGET_DIR="$work/target-$c" \
        cargo bench --no-run --bench "$bench") >"$log" 2>&1 || { cat "$log" >&2; exit 1; }
    [[ -f $work/Cargo.lock ]] || cp "$dir/Cargo.lock" "$work/"
    exe=$(grep -o "$work/target-$c/release/deps/$bench-[0-9a-f]*" "$log" | tail -1)
    mkdir -p "$work/bin"
    cp "$exe" "$work/bin/$c"
    echo "built $c" >&2
}

for c in "$@"; do build "$c"; done

# One line per run and benchmark: round, commit, id, criterion's point estimate of the time per
# iteration (the middle of its `time:` interval), in ns.
for r in $(seq 1 "$rounds"); do
    for c in "$@"; do
        CRITERION_HOME="$work/criterion-$c-$r" "$work/bin/$c" --bench "$filter" --noplot \
            --warm-up-time 1 --measurement-time "$seconds" 2>/dev/null |
            awk -v c="$c" -v r="$r" '
                /^[^ ]/ { id = $1 }
                /time: +\[/ && !/%\]/ {
                    f["ns"] = 1; f["µs"] = 1e3; f["ms"] = 1e6; f["s"] = 1e9
                    print r, c, id, $(NF - 3) * f[$(NF - 2)]
                }'
    done
done >"$work/runs"

# Each benchmark's estimate averaged over the rounds, per commit, and its change against the
# first commit's.
awk -v order="$*" '
    BEGIN { k = split(order, commit, " "); first = commit[1] }
    { key = $3 SUBSEP $2; sum[key] += $4; n[key]++; ids[$3] = 1 }
    END {
        for (id in ids) {
            b = sum[id, first] / n[id, first]
            line = sprintf("%-50s %s %.4g ns", id, first, b)
            for (i = 2; i <= k; i++) if (n[id, commit[i]])
                line = line sprintf("   %s %+.1f %%", commit[i], (sum[id, commit[i]] / n[id, commit[i]] / b - 1) * 100)
            print line
        }
    }' "$work/runs" | sort
