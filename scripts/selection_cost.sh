#!/usr/bin/env bash
# What selection by reach saves on a comment-only commit, against --measure-all, on the demo
# repository: builds first (not timed), then the same comparison with selection (the default,
# tracing included: the traces are made fresh) and with --measure-all, timed in the same run, and
# the ratio. Run it under ../shared/tools/quiet (or another lock) on a quiet machine. Usage:
#   scripts/selection_cost.sh DEMO_DIR
# DEMO_DIR: a fresh directory; the demo is created there with `cargo perfdiff demo --dir`.
set -euo pipefail
dir=$(realpath -m "$1")
if [ ! -d "$dir/.git" ]; then
  cargo perfdiff demo --dir "$dir" >/dev/null 2>&1 || true
  sed -i 's|^pub fn|// A comment changes no code.\npub fn|' "$dir/src/lib.rs"
  git -C "$dir" commit -qam "a comment"
fi
cd "$dir"
# Builds, not timed; and no kept traces, so the selection run below traces afresh.
cargo perfdiff HEAD~1 HEAD --list --measure-all >/dev/null 2>&1
find "${CARGO_TARGET_DIR:-target}/perfdiff" -type d -name traces -prune -exec rm -rf {} + 2>/dev/null || true
run() {
  local s e
  s=$(date +%s.%N)
  cargo perfdiff HEAD~1 HEAD --seed 2 --fail-on never --format json -o "/tmp/selection-cost-$1.json" "${@:2}" 2>/dev/null
  e=$(date +%s.%N)
  echo "$e - $s" | bc
}
selected=$(run selected)
all=$(run all --measure-all)
echo "comment-only commit on the demo: selection ${selected} s, --measure-all ${all} s, ratio $(echo "scale=3; $selected / $all" | bc)"
