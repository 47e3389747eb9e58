#!/usr/bin/env bash
# Field trial (issue #55): `cargo perfdiff` at default settings on real repositories at pinned
# commits, each a real pull request with a published performance claim or an obviously local
# change, as a new user would run it. Not part of the test suite: it clones and takes long.
# Results go to docs/design/field-trials.md by hand, with the figures this script prints.
#
# Usage: scripts/field_trial.sh [TRIAL...]        (no TRIAL: every trial below)
#   MIRRORS=DIR  clone DIR/<owner>+<name>/repo instead of https://github.com/<owner>/<name>
#   OUT=DIR      where clones, reports and logs go (default: target/field-trials)
# Run it under ../shared/tools/quiet on a quiet machine: the wall-time split counts only then.
set -euo pipefail

# name | repository | base | head | manifest (in the repository) | extra arguments | claim
TRIALS='
chrono-version|chronotope/chrono|c14b4599~1|c14b4599|bench/Cargo.toml||version bump only (0.4.43 → 0.4.44): every benchmark unchanged (same code)
chrono-rfc3339|chronotope/chrono|ebc808e8~1|ebc808e8|bench/Cargo.toml|--bench chrono|"faster RFC 3339 parsing without Parsed": the RFC 3339 parse benchmark improved, the others unchanged
'

out=$(realpath -m "${OUT:-target/field-trials}")
mkdir -p "$out/src"

clone() {
  local repo=$1 dir="$out/src/${1/\//+}"
  if [ ! -d "$dir/.git" ]; then
    if [ -n "${MIRRORS:-}" ]; then
      git clone -q "$MIRRORS/${repo/\//+}/repo" "$dir"
    else
      git clone -q "https://github.com/$repo" "$dir"
    fi
  fi
  echo "$dir"
}

# Seconds at the first progress line matching $2 in log $1 (the `[  12.3s]` stamps).
stamp() {
  grep -m1 -E "$2" "$1" | sed -E 's/^\[ *([0-9.]+)s\].*/\1/' || true
}

summarise() {
  local name=$1 log=$2 json=$3 wall=$4 claim=$5
  local built traced measuring
  built=$(stamp "$log" '] built head')
  traced=$(stamp "$log" 'execute the same code|benchmark\(s\) would be compared|choosing what the change reaches needs')
  measuring=$(grep -m1 -E '^time: ' "$log" | sed -E 's/.*, ([^,]*) of it running.*/\1/' || true)
  echo "== $name ($claim)"
  echo "wall ${wall} s; build done at ${built:-?} s; selection done at ${traced:-?} s; measuring ${measuring:-?}"
  jq -r '.benchmarks[] | "\(.id)\t\(.verdict)\t\(if .change_rate then (.change_rate * 100 | . * 10 | round / 10 | tostring) + " %" else "—" end)\t\(.selection.reason // "—")\t\(.selection.detail // "" | .[0:140])"' "$json" |
    column -t -s $'\t' || true
  jq -r '"verdicts: " + ([.benchmarks[].verdict] | group_by(.) | map("\(.[0]) \(length)") | join(", "))' "$json" || true
}

run_trial() {
  local name repo base head manifest extra claim dir
  IFS='|' read -r name repo base head manifest extra claim <<<"$1"
  dir=$(clone "$repo")
  local log="$out/$name.log" json="$out/$name.json" start end
  start=$(date +%s.%N)
  # shellcheck disable=SC2086 # extra arguments are words
  (cd "$dir" && cargo perfdiff "$base" "$head" --manifest-path "$manifest" $extra \
    --format json -o "$json" --fail-on never) 2>"$log" || echo "$name: cargo perfdiff failed (see $log)"
  end=$(date +%s.%N)
  summarise "$name" "$log" "$json" "$(echo "$end - $start" | bc)" "$claim"
}

while IFS= read -r trial; do
  [ -n "$trial" ] || continue
  name=${trial%%|*}
  if [ $# -eq 0 ] || printf '%s\n' "$@" | grep -qx "$name"; then
    run_trial "$trial"
  fi
done <<<"$TRIALS"
