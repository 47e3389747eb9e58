#!/usr/bin/env bash
# Records a run of a crate's criterion suite with a generous fixed configuration, for
# `cargo perfdiff replay`. Usage:
#   [REVISIONS="HEAD~1 HEAD"] [FORKS=20] scripts/record_crate.sh CRATE_DIR OUT.json [FILTER...]
# REVISIONS defaults to an A/A comparison (HEAD HEAD).
# The crate must be a git repository. Holds $PERFDIFF_MEASURE_LOCK if set
# and writes the load average before and after to OUT.load. Extra cargo-perfdiff flags via
# $PERFDIFF_FLAGS.
set -euo pipefail
dir=$1; out=$(realpath -m "$2"); shift 2
lock=${PERFDIFF_MEASURE_LOCK:-}
# Measurements that become figures must not overlap other measurements: set
# PERFDIFF_MEASURE_LOCK to a lock file shared by everyone measuring on this machine.
with_lock() { if [ -n "$lock" ]; then flock "$lock" "$@"; else "$@"; fi; }
cd "$dir"
{
  echo "start $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
  # shellcheck disable=SC2086
  with_lock cargo perfdiff ${REVISIONS:-HEAD HEAD} --stop fixed --forks "${FORKS:-20}" --seed 1 \
    --samples "$out" --format json --fail-on never ${PERFDIFF_FLAGS:-} \
    -o "${out%.json}.report.json" -- "$@"
  echo "end $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
} 2>"${out%.json}.log" >"${out%.json}.load"
