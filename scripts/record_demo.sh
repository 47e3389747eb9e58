#!/usr/bin/env bash
# Records the demo crate with a generous fixed configuration, for `cargo perfdiff replay`.
# Usage: scripts/record_demo.sh OUT.json [extra cargo-perfdiff flags]
# Needs target/release on PATH (cargo build --release). Holds $PERFDIFF_MEASURE_LOCK if set, so
# recordings do not overlap with other measurements, and writes the load average before and
# after next to OUT.
set -euo pipefail
out=$(realpath -m "$1"); shift
lock=${PERFDIFF_MEASURE_LOCK:-}
# Measurements that become figures must not overlap other measurements: set
# PERFDIFF_MEASURE_LOCK to a lock file shared by everyone measuring on this machine.
with_lock() { if [ -n "$lock" ]; then flock "$lock" "$@"; else "$@"; fi; }
dir=${DEMO_DIR:-$(mktemp -d)/demo}
if [ ! -d "$dir/.git" ]; then
  # `demo` creates the repository, then compares; only the repository is needed here.
  timeout 10 cargo perfdiff demo --dir "$dir" >/dev/null 2>&1 || true
fi
cd "$dir"
{
  echo "start $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
  with_lock cargo perfdiff HEAD~1 HEAD --stop fixed --forks 20 --seed 1 \
    --samples "$out" --format json --fail-on never "$@" -o "${out%.json}.report.json"
  echo "end $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
} 2>"${out%.json}.log" >"${out%.json}.load"
