#!/usr/bin/env bash
# How far base and head share their code layouts (project issue #41, docs/design/layouts.md).
#
# For each case, a fresh git repository holding a copy of a fixture gets a second commit, and
# `cargo perfdiff HEAD~1 HEAD --stop fixed --forks 10 --layouts 10` measures every round, round r
# in layout r mod 10 on both sides. The samples files are left in OUT_DIR for
# scripts/layout_pairing.py, which prints, per benchmark, the correlation across rounds of the
# two sides' round values (ln of each side's fork mean) and the SD of the per-round log ratio.
#
# Cases (fixture-change):
#   sensitive-const    fixtures/layout-sensitive, kernels/sum_mix does 1.1× the work (a constant);
#   sensitive-helper   fixtures/layout-sensitive, one function the bench calls once at start-up
#                      (added code; no benchmark's code changes);
#   demo-const         fixtures/criterion-demo (the demo's crate), MIX_ROUNDS 2000 → 2200;
#   demo-helper        fixtures/criterion-demo, one start-up function added to the library and
#                      called once by the bench before measuring.
#
# Usage: scripts/layout_pairing.sh OUT_DIR [CASES…]   (default: all four)
# Env:   PERFDIFF (the command, default: cargo perfdiff; e.g. "flock /work/.measure.lock
#        cargo perfdiff" so that no two measurements run at once), ROUNDS (forks a side, default
#        10; 20 runs each of the 10 layouts twice, which lets the script tell fork noise from
#        layout), FILTER (benchmark filter, default: all), PERFDIFF_ARGS (extra arguments),
#        CARGO_TARGET_DIR (shared by the cases; default: OUT_DIR/target).
set -euo pipefail

read -r -a PERFDIFF <<<"${PERFDIFF:-cargo perfdiff}"
read -r -a EXTRA <<<"${PERFDIFF_ARGS:-}"
rounds=${ROUNDS:-10}
filter=()
[ -z "${FILTER:-}" ] || filter=(-- "$FILTER")
out=${1:?usage: scripts/layout_pairing.sh OUT_DIR [CASES…]}
shift
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(sensitive-const sensitive-helper demo-const demo-helper)

here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$out/target}

# Appends one function to the library and a call of it, before measuring, to the bench file.
add_start_up_helper() {
    local repo=$1 bench=$2 crate=$3 after=$4
    printf '\n#[inline(never)]\npub fn start_up(seed: u64) -> u64 {\n    (0..100_u64).fold(seed, |acc, x| acc.rotate_left(4) ^ x.wrapping_mul(9))\n}\n' \
        >>"$repo/src/lib.rs"
    sed -i "/$after/a\\    std::hint::black_box($crate::start_up(1));" "$repo/$bench"
    grep -q 'start_up(1)' "$repo/$bench"
}

for case in "${cases[@]}"; do
    repo="$out/$case/repo"
    rm -rf "${repo:?}"
    mkdir -p "$repo"
    case $case in
        sensitive-*) fixture="$here/../fixtures/layout-sensitive" bench=benches/kernels.rs ;;
        demo-*) fixture="$here/../fixtures/criterion-demo" bench=benches/demo.rs ;;
        *) echo "unknown case $case" >&2; exit 2 ;;
    esac
    cp -r "$fixture/Cargo.toml" "$fixture/Cargo.lock" "$fixture/src" "$fixture/benches" "$repo/"
    git -C "$repo" init -q -b main
    git -C "$repo" add -A
    git -C "$repo" -c user.name=l -c user.email=l@example.com commit -qm base
    case $case in
        sensitive-const) sed -i 's/SUM_MIX_WORK: usize = 10/SUM_MIX_WORK: usize = 11/' "$repo/src/lib.rs" ;;
        sensitive-helper) add_start_up_helper "$repo" "$bench" layout_sensitive 'fn kernels(c' ;;
        demo-const) sed -i 's/MIX_ROUNDS: u64 = 2000/MIX_ROUNDS: u64 = 2200/' "$repo/src/lib.rs" ;;
        demo-helper) add_start_up_helper "$repo" "$bench" perfdiff_demo 'fn hash(c' ;;
    esac
    git -C "$repo" add -A
    git -C "$repo" -c user.name=l -c user.email=l@example.com commit -qm "$case"

    start=$(date +%s)
    (cd "$repo" && "${PERFDIFF[@]}" HEAD~1 HEAD --stop fixed --forks "$rounds" --layouts 10 \
        --fail-on never --format json --samples "$out/$case.samples.json" "${EXTRA[@]}" \
        "${filter[@]}" >"$out/$case.report.json" 2>"$out/$case.err")
    echo "$case: $(($(date +%s) - start)) s, samples in $out/$case.samples.json"
done
