#!/usr/bin/env bash
# The check a new user makes: the default run and `--stop fixed --forks 10` on the demo crate,
# each under the measurement lock, with wall time and load average. Usage:
#   scripts/stop_default_vs_fixed.sh DEMO_DIR OUT_DIR
set -euo pipefail
dir=$1; out=$(realpath -m "$2"); mkdir -p "$out"
lock=${PERFDIFF_MEASURE_LOCK:-}
# Measurements that become figures must not overlap other measurements: set
# PERFDIFF_MEASURE_LOCK to a lock file shared by everyone measuring on this machine.
with_lock() { if [ -n "$lock" ]; then flock "$lock" "$@"; else "$@"; fi; }
cd "$dir"
for config in default fixed10; do
  flags=(); [ "$config" = fixed10 ] && flags=(--stop fixed --forks 10)
  with_lock bash -c '
    echo "start $(date -u +%FT%TZ) load $(cut -d" " -f1-3 /proc/loadavg)"
    s=$(date +%s.%N)
    cargo perfdiff HEAD~1 HEAD --seed 2 --format json --fail-on never "$@" \
      --samples "'"$out/$config"'.samples.json" -o "'"$out/$config"'.json" 2>/dev/null
    e=$(date +%s.%N)
    echo "end $(date -u +%FT%TZ) load $(cut -d" " -f1-3 /proc/loadavg) wall_s $(echo "$e - $s" | bc)"
  ' _ "${flags[@]}" > "$out/$config.load"
done
