#!/usr/bin/env bash
# What a bisection of a program costs in a workspace that also has a bench target it never
# measures (project issue #44, docs/design/evidence.md "Bisecting a program").
#
# Creates a cargo workspace in WORK/repo: fat LTO and one codegen unit (as pulldown-cmark
# builds), a program `prog` in member `app` (declared as the command `prog` in perfdiff.toml)
# and a criterion bench target `engine` in member `engine`, with a history of GOOD and nine
# commits after it, of which the fifth ("app: 1.5x the rounds") makes the program 1.5x slower
# and the others touch the engine library, its benchmark, the program's source without changing
# its work, or only documents. Then, timed:
#   1. one incremental build of the bench target (a clone of the repository, built at commit 6,
#      then `cargo bench --no-run -p engine` at commit 7, which changes the engine library), and
#      one of the program (`cargo build --release --bin prog` from commit 4 to 5);
#   2. `cargo perfdiff GOOD BAD` once (what a user does before bisecting);
#   3. `cargo perfdiff bisect GOOD BAD -- '^prog$'`, checking that it names commit 5.
# Prints each time, the bisection's steps, and the load average before and after.
#
# Usage: scripts/bisect_cost.sh WORK [extra options for the bisection]
# Env:   PERFDIFF (the command, default: cargo perfdiff), CARGO_TARGET_DIR (default:
#        WORK/target; the clone of step 1 uses WORK/clone-target), CREATE_ONLY=1 (create the
#        repository and stop, to try it by hand).
# Timing figures want a machine with nothing else measuring: run it under the lock everyone
# measuring on the machine shares (`flock /work/.measure.lock scripts/bisect_cost.sh …`).
set -euo pipefail

work=$(realpath -m "$1"); shift
read -r -a PERFDIFF <<<"${PERFDIFF:-cargo perfdiff}"
here=$(cd "$(dirname "$0")" && pwd)
repo=$work/repo
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$work/target}
mkdir -p "$work"

git_commit() {
    git -C "$repo" add -A
    git -C "$repo" -c user.name=bisect-cost -c user.email=bisect-cost@example.com \
        commit -qm "$1"
}

program() { # ROUNDS [EXTRA LINE]
    cat <<EOF
//! A small program whose one job takes about a tenth of a second.

/// How many rounds of the mixing step the job runs.
const ROUNDS: u64 = $1;
$2
fn step(x: u64, i: u64) -> u64 {
    let x = x ^ (x >> 29);
    x.wrapping_mul(0xBF58_476D_1CE4_E5B9).wrapping_add(i)
}

fn main() {
    let mut x = 0x9E37_79B9_7F4A_7C15_u64;
    for i in 0..std::hint::black_box(ROUNDS) {
        x = step(x, i);
    }
    println!("{x}");
}
EOF
}

create_repo() {
    rm -rf "$repo"
    mkdir -p "$repo/app/src" "$repo/engine/src" "$repo/engine/benches"
    cat >"$repo/Cargo.toml" <<'EOF'
[workspace]
members = ["app", "engine"]
resolver = "2"

[profile.release]
lto = "fat"
codegen-units = 1
EOF
    cat >"$repo/app/Cargo.toml" <<'EOF'
[package]
name = "app"
version = "0.1.0"
edition = "2021"
publish = false

[[bin]]
name = "prog"
path = "src/main.rs"
EOF
    program 30_000_000 "" >"$repo/app/src/main.rs"
    cat >"$repo/engine/Cargo.toml" <<'EOF'
[package]
name = "engine"
version = "0.1.0"
edition = "2021"
publish = false

[dev-dependencies]
criterion = { version = "0.5", default-features = false, features = ["cargo_bench_support"] }

[[bench]]
name = "engine"
harness = false
EOF
    cat >"$repo/engine/src/lib.rs" <<'EOF'
//! The engine: a mixing function.

/// Mixes `rounds` rounds.
pub fn mix(rounds: u64) -> u64 {
    let mut x = 0x9E37_79B9_7F4A_7C15_u64;
    for i in 0..rounds {
        x ^= x >> 31;
        x = x.wrapping_mul(0x94D0_49BB_1331_11EB).wrapping_add(i);
    }
    x
}
EOF
    cat >"$repo/engine/benches/engine.rs" <<'EOF'
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};

fn benches(c: &mut Criterion) {
    c.bench_function("engine/mix", |b| b.iter(|| engine::mix(black_box(2000))));
}

criterion_group!(group, benches);
criterion_main!(group);
EOF
    printf '[[command]]\nname = "prog"\nrun = "{bin}/prog"\n' >"$repo/perfdiff.toml"
    printf 'target/\n' >"$repo/.gitignore"
    # The demo's lock, so criterion resolves to versions already downloaded; cargo adds the
    # workspace's own packages to it.
    cp "$here/../fixtures/criterion-demo/Cargo.lock" "$repo/Cargo.lock"
    (cd "$repo" && cargo update --workspace --offline -q)
    git -C "$repo" init -q -b main
    git_commit "GOOD: a program and an engine with a benchmark"

    printf '# The workspace\n' >"$repo/README.md"
    git_commit "docs: README"
    printf '\n/// A checksum of `data`.\npub fn checksum(data: &[u8]) -> u64 {\n    data.iter().fold(0, |a, &b| a.rotate_left(5) ^ u64::from(b))\n}\n' \
        >>"$repo/engine/src/lib.rs"
    git_commit "engine: a checksum"
    program 30_000_000 "/// The step is a function of its own." >"$repo/app/src/main.rs"
    git_commit "app: say what the step is"
    sed -i 's|^}$|    c.bench_function("engine/checksum", \|b\| b.iter(\|\| engine::checksum(black_box(b"perfdiff"))));\n}|' \
        "$repo/engine/benches/engine.rs"
    git_commit "engine: benchmark the checksum"
    program 45_000_000 "/// The step is a function of its own." >"$repo/app/src/main.rs"
    git_commit "app: 1.5x the rounds"
    printf '\nRun `cargo run --release --bin prog`.\n' >>"$repo/README.md"
    git_commit "docs: usage"
    printf '\n/// Mixes a slice.\npub fn mix_all(values: &[u64]) -> u64 {\n    values.iter().fold(0, |a, &v| mix(a ^ v))\n}\n' \
        >>"$repo/engine/src/lib.rs"
    git_commit "engine: mix a slice"
    program 45_000_000 "/// The step is a function of its own; see engine for another mixer." \
        >"$repo/app/src/main.rs"
    git_commit "app: a comment"
    printf '\n## Changes\n\nThe program runs longer.\n' >>"$repo/README.md"
    git_commit "docs: changes"
}

seconds() { # COMMAND…: runs it, prints its wall time in seconds to stdout, its output to stderr
    local start end
    start=$(date +%s.%N)
    "$@" >&2
    end=$(date +%s.%N)
    awk "BEGIN { printf \"%.1f\", $end - $start }"
}

create_repo
git -C "$repo" log --oneline --reverse
[ -z "${CREATE_ONLY:-}" ] || exit 0
good=$(git -C "$repo" rev-list --max-parents=0 HEAD)
bad=$(git -C "$repo" rev-parse HEAD)
culprit=$(git -C "$repo" log --format=%H --grep='^app: 1.5x the rounds$')
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "repository: $repo, GOOD ${good:0:9}, BAD ${bad:0:9}, culprit ${culprit:0:9}"

# 1. One incremental build of the bench target, and one of the program, in a plain clone.
clone=$work/clone
rm -rf "$clone"
git clone -q "$repo" "$clone"
(
    cd "$clone"
    export CARGO_TARGET_DIR=$work/clone-target
    engine_change=$(git log --format=%H --grep='^engine: mix a slice$')
    git checkout -q "$engine_change~1"
    cargo bench --no-run -p engine -q 2>/dev/null
    git checkout -q "$engine_change"
    echo "incremental build of the bench target (engine: mix a slice): $(seconds cargo bench --no-run -p engine -q) s"
    git checkout -q "$culprit~1"
    cargo build --release --bin prog -q
    git checkout -q "$culprit"
    echo "incremental build of the program (app: 1.5x the rounds): $(seconds cargo build --release --bin prog -q) s"
)

# 2. The comparison a user runs first; 3. the bisection of the program.
cd "$repo"
echo "compare GOOD BAD: $(seconds "${PERFDIFF[@]}" "$good" "$bad" --fail-on never) s"
report=$work/bisect.json
echo "bisect GOOD BAD -- ^prog\$: $(seconds "${PERFDIFF[@]}" bisect "$good" "$bad" --format json \
    --output "$report" "$@" -- '^prog$') s"
python3 - "$report" "$culprit" <<'EOF'
import json, sys
report, culprit = json.load(open(sys.argv[1])), sys.argv[2]
found = [r.get("culprit", {}).get("sha", "none") for r in report["results"]]
print("culprit named:", ", ".join(f[:9] for f in found) or "none",
      "(right)" if found == [culprit] else "(WRONG: expected %s)" % culprit[:9])
for step in report["steps"]:
    marks = ", ".join("%s %s x%.3f (%d forks, %d attempt(s))" % (
        b["id"], b["verdict"], (b.get("ratio") or [float("nan")])[0], b["forks"], b["attempts"])
        for b in step["benchmarks"]) or step.get("skipped", "")
    print("  step %d %s %s: %s, %.1f s" % (step["number"], step["kind"], step["head"]["sha"][:9],
                                        marks, step["wall_ms"] / 1000))
EOF
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
