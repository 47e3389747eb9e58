#!/usr/bin/env bash
# Checks, on a real workspace, that `cargo perfdiff --list` shows exactly the benchmarks that the
# workspace's own bench executables list: the union over bench targets of what each target's
# criterion harness prints for `--bench --list` (`<id>: benchmark`, or `<id>: bench` before
# criterion 0.5), keyed by (package, target, id).
#
# Usage: scripts/workspace_listing_check.sh WORKSPACE_DIR [REV] [-- CARGO_SELECTION_ARGS...]
#
# REV (default HEAD) is compared with itself. The executables are built independently with
# plain `cargo bench --no-run --message-format=json` in WORKSPACE_DIR (into its own `target/`),
# never through cargo-perfdiff. Needs `jq`. Prints both counts, the time `--list` took and the
# difference, if any; exits 1 when the two sets differ.
set -euo pipefail

dir=${1:?usage: $0 WORKSPACE_DIR [REV] [-- CARGO_SELECTION_ARGS...]}
shift
rev=HEAD
if [[ $# -gt 0 && $1 != -- ]]; then rev=$1; shift; fi
[[ ${1:-} == -- ]] && shift
selection=("$@")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$dir"

echo "== cargo perfdiff $rev $rev --list ${selection[*]}" >&2
start=$(date +%s.%N)
cargo perfdiff "$rev" "$rev" --list --format json "${selection[@]}" >"$work/perfdiff.json" 2>"$work/perfdiff.err" \
    || { cat "$work/perfdiff.err" >&2; exit 2; }
end=$(date +%s.%N)
jq -r '.benchmarks[] | "\(.package)\t\(.target)\t\(.criterion_id // .id)"' "$work/perfdiff.json" | sort >"$work/perfdiff.tsv"
jq -r '.skipped_targets[]? | "\(.package)::\(.target): \(.reason)"' "$work/perfdiff.json" >"$work/skipped.txt"

echo "== cargo bench --no-run ${selection[*]} (independent build)" >&2
cargo bench --no-run --message-format=json "${selection[@]}" 2>/dev/null \
    | jq -r 'select(.reason == "compiler-artifact" and .target.kind == ["bench"] and .executable != null)
             | "\(.package_id)\t\(.target.name)\t\(.executable)\t\(.target.src_path)"' >"$work/executables.tsv"

: >"$work/harness.tsv"
cargo metadata --no-deps --format-version 1 >"$work/metadata.json"
while IFS=$'\t' read -r package_id target exe src; do
    package=$(jq -r --arg id "$package_id" '.packages[] | select(.id == $id) | .name' "$work/metadata.json")
    pkg_dir=$(dirname "$(jq -r --arg id "$package_id" '.packages[] | select(.id == $id) | .manifest_path' "$work/metadata.json")")
    # Criterion's listing, run where `cargo bench` runs it: in the package's directory.
    (cd "$pkg_dir" && "$exe" --bench --list 2>/dev/null || true) \
        | sed -n -E 's/: bench(mark)?$//p' \
        | while IFS= read -r id; do printf '%s\t%s\t%s\n' "$package" "$target" "$id"; done >>"$work/harness.tsv"
done <"$work/executables.tsv"
sort -o "$work/harness.tsv" "$work/harness.tsv"

targets=$(wc -l <"$work/executables.tsv")
members=$(cut -f1 "$work/harness.tsv" | sort -u | wc -l)
printf 'bench executables built by cargo: %d, in %d member(s) with benchmarks\n' "$targets" "$members"
printf 'benchmarks the executables list:  %d\n' "$(wc -l <"$work/harness.tsv")"
printf 'benchmarks cargo perfdiff lists:  %d\n' "$(wc -l <"$work/perfdiff.tsv")"
printf 'skipped targets named by perfdiff: %d\n' "$(wc -l <"$work/skipped.txt")"
sed 's/^/  /' "$work/skipped.txt"
printf 'cargo perfdiff --list took %.1f s (both builds up to date when run twice)\n' "$(echo "$end - $start" | bc)"
if diff <(cut -f1-3 "$work/harness.tsv") "$work/perfdiff.tsv" >"$work/diff.txt"; then
    echo "identical: every benchmark listed, under its own package and target"
else
    echo "DIFFERENT (< executables only, > perfdiff only):"
    cat "$work/diff.txt"
    exit 1
fi
