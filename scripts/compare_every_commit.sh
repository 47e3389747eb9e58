#!/usr/bin/env bash
# Compares GOOD with every commit of GOOD..BAD on BAD's first-parent line, one `cargo perfdiff`
# comparison each, as the alternative to `cargo perfdiff bisect GOOD BAD` (docs/bisect.md and
# docs/design/bisect.md, "Cost").
# Prints each commit's verdict and forks for the first benchmark selected, the seconds since the
# start after each, and the total.
# Usage (in the repository): scripts/compare_every_commit.sh GOOD BAD [cargo perfdiff options]
# e.g. scripts/compare_every_commit.sh 3ff9de6 3874b9a --bench words -- '^words/grapheme/source_code$'
# Measures: run it on an otherwise idle machine.
set -u
good=$1; bad=$2; shift 2
start=$(date +%s)
for c in $(git rev-list --first-parent --reverse "$good..$bad"); do
  v=$(cargo perfdiff "$good" "$c" --format json --fail-on never -q "$@" |
      python3 -c 'import json,sys; b=json.load(sys.stdin)["benchmarks"][0]; print(b["verdict"], b["forks"]["base"])')
  echo "$(git log -1 --format=%h "$c") $v $(( $(date +%s) - start ))s"
done
echo "total $(( $(date +%s) - start ))s"
