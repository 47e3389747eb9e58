#!/usr/bin/env bash
# A/A over comment-only commits (project issue #27, docs/design/layouts.md).
#
# For each case, a fresh git repository holding a copy of fixtures/criterion-demo gets a second
# commit that changes only a comment, and the real `cargo perfdiff HEAD~1 HEAD` compares them
# with default settings. Printed per case: the verdicts (regressed / improved / unchanged /
# inconclusive), the change of every benchmark, the wall time, and whether the two sides' bench
# executables (kept under target/perfdiff/bin/<commit>) are byte-identical, identical in their
# loaded code and data (.text and .rodata) only, or different.
#
# Cases: lib (a comment appended to src/lib.rs), bench (one appended to benches/demo.rs, which
# changes the bench crate's source hash: rustc then renames ThinLTO's promoted local symbols, as
# in the user's own build), and readme (a file no crate compiles).
#
# Usage: scripts/aa_comment_commits.sh [CASES…]     (default: lib bench readme)
# Env:   PERFDIFF (the command, default: cargo perfdiff), CARGO_TARGET_DIR (shared by the cases
#        so criterion compiles once; default: a directory under the work directory),
#        KEEP_DIR (keep the work directory).
# Timing figures want a machine with nothing else measuring or compiling.
set -euo pipefail

read -r -a PERFDIFF <<<"${PERFDIFF:-cargo perfdiff}"
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(lib bench readme)

here=$(cd "$(dirname "$0")" && pwd)
fixture="$here/../fixtures/criterion-demo"
work=$(mktemp -d -t perfdiff-aa-XXXXXX)
[ -n "${KEEP_DIR:-}" ] || trap 'rm -rf "$work"' EXIT
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$work/target}

compare_sections() {
    local a=$1 b=$2 section
    for section in .text .rodata; do
        objcopy -O binary --only-section="$section" "$a" "$work/a.sec"
        objcopy -O binary --only-section="$section" "$b" "$work/b.sec"
        cmp -s "$work/a.sec" "$work/b.sec" || return 1
    done
}

for case in "${cases[@]}"; do
    repo="$work/$case/repo"
    mkdir -p "$repo"
    cp -r "$fixture/Cargo.toml" "$fixture/Cargo.lock" "$fixture/src" "$fixture/benches" "$repo/"
    git -C "$repo" init -q -b main
    git -C "$repo" add -A
    git -C "$repo" -c user.name=aa -c user.email=aa@example.com commit -qm base
    case $case in
        lib) printf '\n// A comment changes no code.\n' >>"$repo/src/lib.rs" ;;
        bench) printf '\n// A comment changes no code.\n' >>"$repo/benches/demo.rs" ;;
        readme) printf 'Notes.\n' >"$repo/README.md" ;;
        *) echo "unknown case $case" >&2; exit 2 ;;
    esac
    git -C "$repo" add -A
    git -C "$repo" -c user.name=aa -c user.email=aa@example.com commit -qm "a comment"

    start=$(date +%s.%N)
    set +e
    (cd "$repo" && "${PERFDIFF[@]}" HEAD~1 HEAD --format json >"$work/$case.json" 2>"$work/$case.err")
    code=$?
    set -e
    end=$(date +%s.%N)

    state=$(find "$CARGO_TARGET_DIR/perfdiff" -maxdepth 1 -name 'ws-repo-*' -newer "$repo/src" | head -n 1)
    base_exe=$(find "$state/bin/$(git -C "$repo" rev-parse HEAD~1)" -maxdepth 1 -type f -name "demo-*" | head -n 1)
    head_exe=$(find "$state/bin/$(git -C "$repo" rev-parse HEAD)" -maxdepth 1 -type f -name "demo-*" | head -n 1)
    if cmp -s "$base_exe" "$head_exe"; then
        identity="byte-identical"
    elif compare_sections "$base_exe" "$head_exe"; then
        identity="same .text and .rodata, other bytes differ"
    else
        identity="DIFFERENT code"
    fi
    python3 - "$work/$case.json" "$case" "$code" "$start" "$end" "$identity" <<'EOF'
import json, sys
path, case, code, start, end, identity = sys.argv[1:]
report = json.load(open(path))
counts = {}
for b in report["benchmarks"]:
    counts[b["verdict"]] = counts.get(b["verdict"], 0) + 1
changes = ", ".join(
    f'{b["id"]} {100 * b["change_rate"]:+.1f} % {b["verdict"]}'
    for b in report["benchmarks"] if b.get("change_rate") is not None)
print(f"{case}: exit {code}, {float(end) - float(start):.0f} s, executables {identity}")
print(f"  verdicts {counts}")
print(f"  {changes}")
EOF
done
