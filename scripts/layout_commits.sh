#!/usr/bin/env bash
# Layout-sound verdicts on a layout-sensitive crate (project issue #27, docs/design/layouts.md).
#
# For each case, a fresh git repository holding a copy of fixtures/layout-sensitive gets a second
# commit, and the real `cargo perfdiff HEAD~1 HEAD` compares the two with default settings plus
# $PERFDIFF_ARGS (e.g. `--layouts 1`, `--mode duet`). Printed per case: the verdict and change of
# every benchmark, its layout spread, and the wall time of the run.
#
# Cases:
#   comment            a comment appended to src/lib.rs (A/A: identical executables);
#   helper1…helper4    code that only runs once at start-up, outside every measured loop: the
#                      library gains 1–4 functions the bench calls once before measuring (no
#                      benchmark's code changes, but the layout of everything does);
#   sum10, sum20       kernels/sum_mix does 1.1× and 1.2× the work (a real 10 % and 20 % change);
#   digits10           kernels/digits does 1.1× the work.
#
# Usage: scripts/layout_commits.sh [CASES…]   (default: comment helper1 helper2 helper3 helper4
#                                               sum10 sum20)
# Env:   PERFDIFF (the command, default: cargo perfdiff), PERFDIFF_ARGS (extra arguments),
#        CARGO_TARGET_DIR (shared by the cases so criterion compiles once; default: a directory
#        under the work directory), KEEP_DIR (keep the work directory).
# Timing figures want a machine with nothing else measuring or compiling.
set -euo pipefail

read -r -a PERFDIFF <<<"${PERFDIFF:-cargo perfdiff}"
read -r -a EXTRA <<<"${PERFDIFF_ARGS:-}"
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(comment helper1 helper2 helper3 helper4 sum10 sum20)

here=$(cd "$(dirname "$0")" && pwd)
fixture="$here/../fixtures/layout-sensitive"
work=$(mktemp -d -t perfdiff-layout-XXXXXX)
[ -n "${KEEP_DIR:-}" ] || trap 'rm -rf "$work"' EXIT
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$work/target}

# Appends `count` functions to the library and one call of them, before measuring, to the bench.
add_start_up_helpers() {
    local repo=$1 count=$2 i
    {
        for i in $(seq 1 "$count"); do
            printf '\n#[inline(never)]\npub fn start_up_%d(seed: u64) -> u64 {\n' "$i"
            printf '    (0..%d_u64).fold(seed, |acc, x| acc.rotate_left(%d) ^ x.wrapping_mul(%d))\n}\n' \
                $((100 * i)) $((i + 3)) $((2 * i + 7))
        done
        printf '\npub fn start_up() -> u64 {\n    let mut acc = 1;\n'
        for i in $(seq 1 "$count"); do
            printf '    acc = start_up_%d(acc);\n' "$i"
        done
        printf '    acc\n}\n'
    } >>"$repo/src/lib.rs"
    sed -i 's|// layout-sensitive: commits add start-up code here|black_box(start_up());|' \
        "$repo/benches/kernels.rs"
}

for case in "${cases[@]}"; do
    repo="$work/$case/repo"
    mkdir -p "$repo"
    cp -r "$fixture/Cargo.toml" "$fixture/Cargo.lock" "$fixture/src" "$fixture/benches" "$repo/"
    git -C "$repo" init -q -b main
    git -C "$repo" add -A
    git -C "$repo" -c user.name=l -c user.email=l@example.com commit -qm base
    case $case in
        comment) printf '\n// A comment changes no code.\n' >>"$repo/src/lib.rs" ;;
        helper[1-9]) add_start_up_helpers "$repo" "${case#helper}" ;;
        sum10) sed -i 's/SUM_MIX_WORK: usize = 10/SUM_MIX_WORK: usize = 11/' "$repo/src/lib.rs" ;;
        sum20) sed -i 's/SUM_MIX_WORK: usize = 10/SUM_MIX_WORK: usize = 12/' "$repo/src/lib.rs" ;;
        digits10) sed -i 's/DIGITS_WORK: usize = 10/DIGITS_WORK: usize = 11/' "$repo/src/lib.rs" ;;
        *) echo "unknown case $case" >&2; exit 2 ;;
    esac
    git -C "$repo" add -A
    git -C "$repo" -c user.name=l -c user.email=l@example.com commit -qm "$case"

    start=$(date +%s.%N)
    set +e
    (cd "$repo" && "${PERFDIFF[@]}" HEAD~1 HEAD "${EXTRA[@]}" --format json \
        >"$work/$case.json" 2>"$work/$case.err")
    code=$?
    set -e
    end=$(date +%s.%N)
    python3 - "$work/$case.json" "$case" "$code" "$start" "$end" <<'PY'
import json, sys
path, case, code, start, end = sys.argv[1:]
try:
    report = json.load(open(path))
except ValueError:
    print(f"{case}: exit {code}, no report"); sys.exit()
rows = []
for b in report["benchmarks"]:
    change = b.get("change_rate")
    spread = b.get("layout_spread")
    rows.append("{} {} {} (forks {}/{}{})".format(
        b["id"].split("/")[-1], b["verdict"],
        "—" if change is None else f"{change * 100:+.1f}%",
        b["forks"]["base"], b["forks"]["head"],
        "" if spread is None else f", layout ±{spread['spread'] * 100:.1f}% over {spread['layouts']}"))
print(f"{case}: exit {code}, {float(end) - float(start):.0f} s")
for row in rows:
    print("   ", row)
PY
done
