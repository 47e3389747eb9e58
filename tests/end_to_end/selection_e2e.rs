//! Selection by reach, end to end: before any timing, the benchmarks whose executed code, data
//! and read files are the same on both sides are `unchanged` (same code) without a fork, and the
//! others say what changed that they reach (docs/selection.md). These tests run with selection on
//! (the suite's other tests set `CARGO_PERFDIFF_MEASURE_ALL`), on the demo whose head changes the
//! work of `mix`, `checksum` and `slight` and leaves `steady` alone. That `--measure-all` turns
//! selection off is tested on the deterministic fixture, in `orchestration::compare`.

use std::process::Output;

use crate::support;

use cargo_perfdiff::orchestrate::demo::{DemoHarness, DemoOptions};
use support::*;

/// The demo as `cargo perfdiff demo` makes it: head changes three benchmarks' work constants and
/// adds `new_in_head` in a bench target of its own, so `steady` executes the same code on both
/// sides. (Adding the benchmark to the `hash` group would change the function that registers
/// every benchmark of the group, which each of them executes.)
fn constants_only() -> DemoOptions {
    let mut options = strong_changes();
    options.changes.new_benchmark_own_target = true;
    options
}

/// `cargo perfdiff ARGS` in `repo` with selection on, at the default layouts (selection compares
/// code in the objects a build with layouts keeps; `quick` asks for one).
fn selecting(repo: &std::path::Path, args: &[&str]) -> Output {
    selecting_with(repo, args, &[])
}

/// [`selecting`] with the environment variables `env` set.
fn selecting_with(repo: &std::path::Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = perfdiff_command(repo, &with_default_layouts(args));
    command.env_remove("CARGO_PERFDIFF_MEASURE_ALL");
    command.envs(env.iter().copied());
    output_logged(&mut command)
}

/// [`selecting`] for a `--list`, at the tests' tiny measurement settings ([`FAST`]): a listing
/// measures nothing, but the native probe of every benchmark it would skip runs as long as a
/// fork would (8 s at criterion's defaults, and again while the machine is too busy for it).
fn list_selecting(repo: &std::path::Path, args: &[&str]) -> Output {
    selecting(repo, &with_options(args, FAST))
}

/// `entry`'s selection record.
fn selection(entry: &serde_json::Value) -> &serde_json::Value {
    let selection = &entry["selection"];
    assert!(selection.is_object(), "no selection in {entry:#}");
    selection
}

/// The probe outcomes kept in the traces directory of `repo`'s state (`probe-*.json`).
fn kept_probes(repo: &std::path::Path) -> Vec<std::path::PathBuf> {
    let traces = state_dir(repo).join("traces");
    let Ok(entries) = std::fs::read_dir(&traces) else {
        return Vec::new();
    };
    entries
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            let name = path.file_name().unwrap().to_string_lossy();
            name.starts_with("probe-") && name.ends_with(".json")
        })
        .collect()
}

/// Forgets the probe outcomes kept for `repo`: a shared repository's state outlives a test, and
/// a test of the probe itself must run it.
fn forget_kept_probes(repo: &std::path::Path) {
    for kept in kept_probes(repo) {
        std::fs::remove_file(kept).unwrap();
    }
}

/// Benchmark `id`'s entry in `report` and its selection record, checked measured for `reason`.
fn measured_for<'a>(
    report: &'a serde_json::Value,
    id: &str,
    reason: &str,
) -> (&'a serde_json::Value, &'a serde_json::Value) {
    let entry = bench_entry(report, id);
    let record = selection(entry);
    assert_eq!(record["measured"], true, "{entry:#}");
    assert_eq!(record["reason"], reason, "{entry:#}");
    (entry, record)
}

#[test]
fn an_untouched_benchmark_is_unchanged_without_a_fork_and_a_changed_one_says_what_it_reaches() {
    let guard = measuring_lock();
    let (_dir, repo) = shared_demo(&guard, &constants_only());
    let output = selecting(&repo, &parent_vs_head_json(&["mix", "steady"]));
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    let report = json_report(&output);

    let steady = bench_entry(&report, "hash/steady");
    assert_eq!(steady["verdict"], "unchanged", "{steady:#}");
    assert_eq!(steady["forks"]["base"], 0, "{steady:#}");
    assert_eq!(steady["forks"]["head"], 0, "{steady:#}");
    let skipped = selection(steady);
    assert_eq!(skipped["measured"], false, "{steady:#}");
    assert_eq!(skipped["reason"], "same_code", "{steady:#}");
    assert!(skipped["functions"].as_u64().unwrap() > 0, "{steady:#}");

    let mix = measured_entry(&report, "hash/mix", 2);
    let reached = selection(mix);
    assert_eq!(reached["measured"], true, "{mix:#}");
    assert_eq!(reached["reason"], "reaches_change", "{mix:#}");
    let changed = reached["changed_functions"].as_array().unwrap();
    assert!(!changed.is_empty(), "{mix:#}");
    assert_eq!(report["summary"]["unchanged"], 1, "{report:#}");

    assert!(
        err.contains("1 of 2 benchmark(s) execute the same code"),
        "{err}"
    );
    assert!(
        err.contains("hash/mix is measured: it executes changed code"),
        "{err}"
    );
    assert!(!err.contains("hash/steady is measured"), "{err}");
}

#[test]
fn the_table_and_markdown_mark_a_benchmark_decided_without_measuring() {
    let guard = measuring_lock();
    let (_dir, repo) = shared_demo(&guard, &constants_only());
    let table = with_options(
        &["HEAD~1", "HEAD", "--fail-on", "never", "--", "steady"],
        FAST,
    );
    let output = selecting(&repo, &table);
    let text = all_output(&output);
    assert_eq!(output.status.code(), Some(0), "{text}");
    assert!(text.contains("unchanged (same code)"), "{text}");
    assert!(text.contains("1 unchanged (1 same code)"), "{text}");

    let markdown = with_options(
        &[
            "HEAD~1",
            "HEAD",
            "--format",
            "markdown",
            "--fail-on",
            "never",
            "--",
            "steady",
        ],
        FAST,
    );
    let output = selecting(&repo, &markdown);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("unchanged (same code)"), "{text}");
}

#[test]
fn a_comment_only_commit_measures_nothing() {
    let guard = measuring_lock();
    let (_dir, repo) = shared_demo_with(
        &guard,
        &constants_only(),
        "a comment",
        commit_a_comment_in_the_library,
    );
    let output = selecting(&repo, &parent_vs_head_json(&[]));
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    let report = json_report(&output);
    for entry in report["benchmarks"].as_array().unwrap() {
        assert_eq!(entry["verdict"], "unchanged", "{entry:#}");
        assert_eq!(selection(entry)["reason"], "same_code", "{entry:#}");
        assert_eq!(entry["forks"]["base"], 0, "{entry:#}");
    }
    assert!(
        err.contains("5 of 5 benchmark(s) execute the same code"),
        "{err}"
    );
}

/// Only a data file changes: its reader is measured for it, the others are the same code. No
/// function differs, so the benchmarks are traced natively (what they read is all that is left
/// to ask), and the file is still found.
#[test]
fn a_file_the_benchmark_reads_at_run_time_is_compared_between_the_checkouts() {
    let guard = measuring_lock();
    let (_dir, repo) = shared_demo_with(&guard, &constants_only(), "io/read", |repo| {
        std::fs::create_dir_all(repo.join("data")).unwrap();
        std::fs::write(repo.join("data/input.txt"), "1 2 3\n").unwrap();
        add_bench_group(
            repo,
            "io",
            &[(
                "read",
                "b.iter(|| std::fs::read(\"data/input.txt\").map(|d| d.len()).unwrap_or(0))",
            )],
        );
        commit_all(repo, "a benchmark that reads its input");
        std::fs::write(repo.join("data/input.txt"), "1 2 3 4\n").unwrap();
        commit_all(repo, "other input");
    });
    let output = selecting(&repo, &parent_vs_head_json(&["io/read", "steady"]));
    let err = stderr(&output);
    let report = json_report(&output);
    let read = measured_entry(&report, "io/read", 2);
    let reached = selection(read);
    assert_eq!(reached["reason"], "reaches_change", "{read:#}");
    assert_eq!(
        reached["changed_files"],
        serde_json::json!(["data/input.txt"]),
        "{read:#}"
    );
    assert_eq!(
        selection(bench_entry(&report, "hash/steady"))["reason"],
        "same_code",
        "{err}"
    );
    // Only data changed, so no function differs: no valgrind run was needed to tell the files.
    assert!(
        err.contains("traced natively (no function differs from head's executable"),
        "{err}"
    );
}

/// Two shapes the valgrind trace misses, and a probe that cannot run long enough. `late/counted` calls `late_work` only on its 100,000th
/// call: the trace's short measuring run under valgrind makes some tens of thousands of calls
/// (more for a loop valgrind slows little), one native fork at these settings about a million.
/// `late/native` calls it only outside valgrind, as a kernel chosen by a CPU feature valgrind
/// hides is (docs/design/selection-real-repository.md): its trace never enters it, whatever the
/// machine's load, so only the native probe can find it. `late/crowded` crowds its CPUs outside
/// valgrind, so its probe never covers a fork's iterations.
const LATE_LIBRARY: &str = "
static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Entered once, after 100,000 calls of `counted`, and by `native` outside valgrind.
#[inline(never)]
pub fn late_work(x: u64) -> u64 {
    std::hint::black_box(x).wrapping_mul(3)
}

pub fn counted(rounds: u64) -> u64 {
    if CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed) == 100_000 {
        return late_work(rounds);
    }
    mix(rounds)
}

/// Whether this process runs under valgrind, which preloads its own libraries.
fn under_valgrind() -> bool {
    static UNDER: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *UNDER.get_or_init(|| {
        std::env::var(\"LD_PRELOAD\").is_ok_and(|preload| preload.contains(\"vgpreload\"))
    })
}

pub fn native(rounds: u64) -> u64 {
    if !under_valgrind() {
        return late_work(rounds);
    }
    mix(rounds)
}

/// Outside valgrind, keeps every CPU busy sixteen times over from a benchmark's first call on:
/// its probe never has a CPU for a fork's time.
pub fn crowd() {
    static CROWD: std::sync::Once = std::sync::Once::new();
    if under_valgrind() {
        return;
    }
    CROWD.call_once(|| {
        let cpus = std::thread::available_parallelism().map_or(2, |n| n.get());
        for _ in 0..16 * cpus {
            std::thread::spawn(|| loop {
                std::hint::spin_loop();
            });
        }
    });
}
";

/// The demo at `repo` with [`LATE_LIBRARY`] in its library and a `late` group calling it,
/// committed, then head: `late_work` changes.
fn commit_late_work(repo: &std::path::Path) {
    let library = repo.join("src/lib.rs");
    let text = std::fs::read_to_string(&library).unwrap();
    std::fs::write(&library, format!("{text}{LATE_LIBRARY}")).unwrap();
    add_bench_group(
        repo,
        "late",
        &[
            (
                "counted",
                "b.iter(|| perfdiff_demo::counted(black_box(100)))",
            ),
            ("native", "b.iter(|| perfdiff_demo::native(black_box(100)))"),
            (
                "crowded",
                "perfdiff_demo::crowd(); b.iter(|| perfdiff_demo::mix(black_box(100)))",
            ),
        ],
    );
    commit_all(
        repo,
        "benchmarks that call late_work late or only natively, or crowd their CPUs",
    );
    let text = std::fs::read_to_string(&library).unwrap();
    std::fs::write(&library, text.replace("wrapping_mul(3)", "wrapping_mul(5)")).unwrap();
    commit_all(repo, "late_work changes");
}

#[test]
fn a_changed_function_the_trace_does_not_enter_is_found_by_the_native_probe() {
    let guard = measuring_lock();
    let (_dir, repo) = shared_demo_with(&guard, &constants_only(), "late", commit_late_work);
    forget_kept_probes(&repo);
    // Two rounds: what is checked is what selection decides, and that the changed benchmarks
    // are measured at all (the stop rule would measure them until it decides).
    let args = with_options(
        &[
            "HEAD~1",
            "HEAD",
            "--stop",
            "fixed",
            "--forks",
            "2",
            "--format",
            "json",
            "--fail-on",
            "never",
            "--",
            "late/",
            "steady",
        ],
        FAST,
    );
    // One probe at a time, so that `crowded`'s crowd disturbs no other benchmark's probe.
    let output = output_logged(
        perfdiff_command(&repo, &with_default_layouts(&args))
            .env_remove("CARGO_PERFDIFF_MEASURE_ALL")
            .env("RAYON_NUM_THREADS", "1"),
    );
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    let report = json_report(&output);
    // Only the native probe can see `native` enter the changed function.
    let (native, reached) = measured_for(&report, "late/native", "reaches_change");
    assert_eq!(
        reached["detail"],
        "it reaches `perfdiff_demo::late_work` in a native run, which its trace did not (native probe)",
        "{native:#}"
    );
    assert_ne!(native["forks"]["base"], 0, "{native:#}");
    // `counted` reaches it on its 100,000th call: found by the trace when valgrind's run gets
    // that far, by the probe otherwise; never skipped.
    let (counted, reached) = measured_for(&report, "late/counted", "reaches_change");
    assert_eq!(
        reached["changed_functions"],
        serde_json::json!(["perfdiff_demo::late_work"]),
        "{counted:#}"
    );
    assert_ne!(counted["forks"]["base"], 0, "{counted:#}");
    // `crowded` never enters it, but its probe never has a CPU for a fork's time: fewer
    // iterations than a fork might make cannot keep a skip, however often it runs again.
    let (crowded, undecided) = measured_for(&report, "late/crowded", "undecided");
    let detail = undecided["detail"].as_str().unwrap();
    assert!(
        detail.starts_with("probe: the machine was too busy for a run as long as a fork's"),
        "{crowded:#}"
    );
    // The untouched benchmark is probed too, enters no changed function, and stays skipped.
    let steady = bench_entry(&report, "hash/steady");
    let skipped = selection(steady);
    assert_eq!(skipped["reason"], "same_code", "{steady:#}");
    let detail = skipped["detail"].as_str().unwrap();
    assert!(
        detail.contains("a native run as long as a fork entered none of the"),
        "{steady:#}"
    );
    // It entered no changed function outside its timed routine either: nothing said of them.
    assert!(
        !detail.contains("outside it only those of the same source"),
        "{steady:#}"
    );
    assert_eq!(steady["forks"]["base"], 0, "{steady:#}");
}

/// Two set-ups for benchmarks whose timed loop runs the unchanged `mix`: head marks `rare` cold
/// (an attribute line: `set_up`'s source stays the same, but its machine code moves the branch
/// that calls `rare`, which never runs), and changes `PICK`, which `pick` reads (a set-up that
/// picks what the timed loop will run, as polyval's picks its backend: its source changes).
/// `set_up` names neither `cold`, `PICK` nor `u32`, the names on the lines head changes.
/// `late_inside` enters `set_up` inside the timed loop, late: only the native probe, which
/// counts `set_up` inside the timed routine and not outside it, sees it.
const OUTSIDE_LIBRARY: &str = "
/// Never entered: only its attribute changes.
#[inline(never)]
pub fn rare(x: usize) -> usize {
    std::hint::black_box(x).wrapping_mul(7)
}

/// A benchmark's set-up: the same source on both sides, other machine code once `rare` is cold.
#[inline(never)]
pub fn set_up(n: usize) -> Vec<usize> {
    let mut v = Vec::with_capacity(n);
    for i in 0..n {
        if std::hint::black_box(i == usize::MAX) {
            v.push(rare(i));
        } else {
            v.push(i.wrapping_mul(3));
        }
    }
    v
}

const PICK: u32 = 11;

/// A set-up that picks what the timed loop runs.
#[inline(never)]
pub fn pick(x: u64) -> u64 {
    std::hint::black_box(x).wrapping_add(PICK as u64)
}

/// A set-up that names its input, as unicode-segmentation's benches do: head rewrites its
/// `format!` with an inline argument (`{n}`), which expands to the same code and moves only the
/// column of the `.unwrap()` after it.
#[inline(never)]
pub fn input_name(n: usize) -> usize {
    std::str::from_utf8(format!(\"input-{}.txt\", n).as_bytes()).unwrap().len()
}

static LATE_CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Enters `set_up` on its 100,000th call, in the timed loop: never in a trace.
pub fn late_inside(x: u64) -> u64 {
    if LATE_CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed) == 100_000 {
        return set_up(x as usize).len() as u64;
    }
    x
}
";

/// The demo at `repo` with [`OUTSIDE_LIBRARY`] in its library and the benchmarks `add` writes,
/// committed, then head: `rare` cold, `PICK` changed, `input_name`'s `format!` rewritten.
fn commit_set_up_shapes(repo: &std::path::Path, add: impl FnOnce(&std::path::Path)) {
    let library = repo.join("src/lib.rs");
    let text = std::fs::read_to_string(&library).unwrap();
    std::fs::write(&library, format!("{text}{OUTSIDE_LIBRARY}")).unwrap();
    add(repo);
    commit_all(repo, "benchmarks with a set-up");
    let text = std::fs::read_to_string(&library).unwrap();
    let head = text
        .replace(
            "#[inline(never)]\npub fn rare",
            "#[cold]\n#[inline(never)]\npub fn rare",
        )
        .replace("const PICK: u32 = 11;", "const PICK: u32 = 13;")
        .replace("format!(\"input-{}.txt\", n)", "format!(\"input-{n}.txt\")");
    assert_ne!(head, text);
    assert!(head.contains("input-{n}.txt"), "{head}");
    std::fs::write(&library, head).unwrap();
    commit_all(repo, "rare is cold, PICK changes");
}

/// The shared demo of `harness` (no benchmark added in head) whose benchmarks with a set-up
/// ([`commit_set_up_shapes`]) are [`SAMPLED_LIBRARY`]'s functions and the benchmarks `shapes`
/// appends to `benches/demo.rs`.
fn sampled_shapes_demo(
    guard: &MeasuringGuard,
    harness: DemoHarness,
    shapes: &str,
) -> (Scratch, std::path::PathBuf) {
    let mut options = DemoOptions {
        harness,
        ..strong_changes()
    };
    options.changes.add_benchmark = false;
    let append = |path: std::path::PathBuf, tail: &str| {
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, format!("{text}{tail}")).unwrap();
    };
    shared_demo_with(guard, &options, "sampled set-ups", |repo| {
        commit_set_up_shapes(repo, |repo| {
            append(repo.join("src/lib.rs"), SAMPLED_LIBRARY);
            append(repo.join("benches/demo.rs"), shapes);
        })
    })
}

/// What `--list` says of the benchmarks `filter` selects in `repo`, as JSON, each probe run
/// (none kept from an earlier run).
fn list_set_up_shapes(repo: &std::path::Path, filter: &str) -> serde_json::Value {
    list_set_up_shapes_with(repo, filter, &[])
}

/// [`list_set_up_shapes`] with the environment variables `env` set.
fn list_set_up_shapes_with(
    repo: &std::path::Path,
    filter: &str,
    env: &[(&str, &str)],
) -> serde_json::Value {
    forget_kept_probes(repo);
    let args = ["HEAD~1", "HEAD", "--list", "--format", "json", "--", filter];
    let output = selecting_with(repo, &with_options(&args, FAST), env);
    assert_eq!(output.status.code(), Some(0), "{}", all_output(&output));
    serde_json::from_slice(&output.stdout).unwrap()
}

/// What `--list` says of the set-up shapes (`same`, `picked`, `late`, each id `prefix` and its
/// name), whatever the harness.
fn assert_set_up_shapes(listing: &serde_json::Value, prefix: &str) {
    let id = |name: &str| format!("{prefix}{name}");
    // `set_up`'s code differs, only outside the timed loop, from the same source: skipped, and
    // its probe counted only what ran inside the timed routine (it enters `set_up` every sample).
    let same = bench_entry(listing, &id("same"));
    let skipped = selection(same);
    assert_eq!(skipped["reason"], "same_code", "{same:#}");
    assert_eq!(skipped["measured"], false, "{same:#}");
    let detail = skipped["detail"].as_str().unwrap();
    for part in [
        "same code in its timed loop:",
        "the code of perfdiff_demo::set_up differs only outside its timed loop",
        "compiled from the same source on both sides",
        "changed function(s) inside its timed routine",
    ] {
        assert!(detail.contains(part), "{part}: {same:#}");
    }
    assert_eq!(
        skipped["same_source"],
        serde_json::json!(["perfdiff_demo::set_up"]),
        "{same:#}"
    );
    // `pick`'s source changed: measured, saying so.
    let (picked, reached) = measured_for(listing, &id("picked"), "reaches_change");
    let detail = reached["detail"].as_str().unwrap();
    assert!(
        detail.contains("only outside its timed loop")
            && detail.contains("measured: the source of `perfdiff_demo::pick` differs"),
        "{picked:#}"
    );
    // Its trace enters `set_up` only outside the loop; the probe, which lets it pass there on
    // every sample, finds its late entry inside.
    let (late, reached) = measured_for(listing, &id("late"), "reaches_change");
    assert_eq!(
        reached["detail"],
        "it reaches `perfdiff_demo::set_up` inside its timed routine in a native run, which its \
         trace did not (native probe)",
        "{late:#}"
    );
}

/// The set-up shapes (`same`, `picked`, `late`) as a criterion group `outside` of the demo.
fn add_set_up_shapes(repo: &std::path::Path) {
    add_bench_group(
        repo,
        "outside",
        &[
            (
                "same",
                "let v = perfdiff_demo::set_up(black_box(64)); \
                 b.iter(|| perfdiff_demo::mix(black_box(v.len() as u64)))",
            ),
            (
                "picked",
                "let k = perfdiff_demo::pick(black_box(3)); \
                 b.iter(|| perfdiff_demo::mix(black_box(k)))",
            ),
            (
                "late",
                "let v = perfdiff_demo::set_up(black_box(64)); \
                 b.iter(|| perfdiff_demo::late_inside(black_box(v.len() as u64)))",
            ),
            (
                "renamed",
                "let n = perfdiff_demo::input_name(black_box(64)); \
                 b.iter(|| perfdiff_demo::mix(black_box(n as u64)))",
            ),
        ],
    )
}

#[test]
fn changed_code_only_in_set_up_is_the_same_code_when_its_source_is_and_measured_when_not() {
    let guard = measuring_lock();
    let (_dir, repo) = shared_demo_with(&guard, &constants_only(), "set-up shapes", |repo| {
        commit_set_up_shapes(repo, add_set_up_shapes)
    });
    let listing = list_set_up_shapes(&repo, "outside/");
    assert_set_up_shapes(&listing, "outside/");
    // Its set-up's source rewritten to compute the same (`format!("input-{}.txt", n)` as
    // `format!("input-{n}.txt")`): the same code, its panic location aside, so not measured;
    // `picked`'s set-up, rewritten to compute otherwise, is measured (above).
    let renamed = bench_entry(&listing, "outside/renamed");
    let skipped = selection(renamed);
    assert_eq!(skipped["reason"], "same_code", "{renamed:#}");
    assert_eq!(skipped["measured"], false, "{renamed:#}");
}

/// Set-ups a criterion benchmark's closure runs on every call but the first, outside its timed
/// routine: a fork calls the closure for every warm-up and sample (criterion's sampling loop,
/// `analysis::common` and its routine, as rust-base64's encode benchmarks), its test-mode trace
/// once. `set_up` (other machine code, the same source) and `pick` (its source changed) are
/// [`OUTSIDE_LIBRARY`]'s; each function counts its own calls, so each benchmark's first call is
/// its own.
const SAMPLED_LIBRARY: &str = "
static SET_UP_CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Enters `set_up` on every call but the first.
#[inline(never)]
pub fn set_up_when_sampled(n: usize) -> usize {
    if SET_UP_CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed) > 0 {
        return set_up(n).len();
    }
    n
}

static PICK_CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Enters `pick` on every call but the first.
#[inline(never)]
pub fn pick_when_sampled(x: u64) -> u64 {
    if PICK_CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed) > 0 {
        return pick(x);
    }
    x
}
";

#[test]
fn changed_code_a_criterion_fork_runs_only_outside_its_timed_routine_is_skipped_when_its_source_is_the_same()
 {
    let guard = measuring_lock();
    let (_dir, repo) = shared_demo_with(&guard, &constants_only(), "sampled set-ups", |repo| {
        commit_set_up_shapes(repo, |repo| {
            let library = repo.join("src/lib.rs");
            let text = std::fs::read_to_string(&library).unwrap();
            std::fs::write(&library, format!("{text}{SAMPLED_LIBRARY}")).unwrap();
            add_bench_group(
                repo,
                "sampled",
                &[
                    (
                        "same",
                        "b.iter(|| perfdiff_demo::mix(black_box(1))); \
                         let n = perfdiff_demo::set_up_when_sampled(black_box(64)); \
                         let _ = black_box(n);",
                    ),
                    (
                        "picked",
                        "b.iter(|| perfdiff_demo::mix(black_box(1))); \
                         let k = perfdiff_demo::pick_when_sampled(black_box(3)); \
                         let _ = black_box(k);",
                    ),
                ],
            )
        })
    });
    let listing = list_set_up_shapes(&repo, "sampled/");
    // Its trace enters no changed function; its probe enters `set_up` outside the timed routine
    // (after it, on every call of the closure but the first), whose source is the same.
    let same = bench_entry(&listing, "sampled/same");
    let skipped = selection(same);
    assert_eq!(skipped["measured"], false, "{same:#}");
    assert_eq!(skipped["reason"], "same_code", "{same:#}");
    let detail = skipped["detail"].as_str().unwrap();
    assert!(
        detail.contains("runs only outside its timed loop (`perfdiff_demo::set_up`), compiled from the same source on both sides"),
        "{same:#}"
    );
    // `pick`'s source changed: measured, naming it.
    let (picked, reached) = measured_for(&listing, "sampled/picked", "reaches_change");
    let detail = reached["detail"].as_str().unwrap();
    assert!(
        detail.starts_with(
            "it reaches `perfdiff_demo::pick` outside its timed routine in a native run, which \
             its trace did not, and its source differs"
        ),
        "{picked:#}"
    );
}

/// A set-up before criterion's filter that valgrind never finishes within a trace's budget (it
/// tells valgrind by its preload library) and that takes nothing natively, as image-png's
/// `decoder` generating its inputs. It computes (a trace's budget is CPU time: a set-up that
/// slept would be stopped only by the wall-clock ceiling, eight times later).
const SLOW_UNDER_VALGRIND: &str = "
#[inline(never)]
fn slow_under_valgrind() {
    if std::env::var(\"LD_PRELOAD\").is_ok_and(|p| p.contains(\"vgpreload\")) {
        let start = std::time::Instant::now();
        while start.elapsed() < std::time::Duration::from_secs(3600) {
            std::hint::spin_loop();
        }
    }
}
";

#[test]
fn changed_code_only_in_the_set_up_of_a_target_too_slow_for_valgrind_is_the_same_code_when_its_source_is()
 {
    let guard = measuring_lock();
    let add = |repo: &std::path::Path| {
        add_set_up_shapes(repo);
        let bench = repo.join("benches/demo.rs");
        let text = std::fs::read_to_string(&bench).unwrap();
        let group = "fn extra_outside(c: &mut Criterion) {\n";
        assert!(text.contains(group));
        let text = text.replacen(group, &format!("{group}    slow_under_valgrind();\n"), 1);
        std::fs::write(&bench, format!("{text}{SLOW_UNDER_VALGRIND}")).unwrap();
    };
    let key = "set-up shapes too slow for valgrind";
    let (_dir, repo) = shared_demo_with(&guard, &constants_only(), key, |repo| {
        commit_set_up_shapes(repo, add)
    });
    let listing = list_set_up_shapes(&repo, "outside/");
    // Traced natively (only a native trace times what runs outside the timed routine), and
    // decided as valgrind's trace decides: its timed part tells the set-up apart. A later run
    // goes native at once (the trace cache remembers valgrind was too slow): the same listing.
    for name in ["same", "picked", "late"] {
        let entry = bench_entry(&listing, &format!("outside/{name}"));
        assert!(selection(entry)["set_up_ms"].is_u64(), "{entry:#}");
    }
    assert_set_up_shapes(&listing, "outside/");
}

/// The set-up shapes as divan benchmarks: the set-up runs in the benchmark's function, before
/// `Bencher::bench`; the timed loop in divan's sample task.
const DIVAN_SET_UP_SHAPES: &str = "
mod outside {
    use super::*;

    #[divan::bench]
    fn same(bencher: divan::Bencher) {
        let v = perfdiff_demo::set_up(black_box(64));
        bencher.bench(|| perfdiff_demo::mix(black_box(v.len() as u64)));
    }

    #[divan::bench]
    fn picked(bencher: divan::Bencher) {
        let k = perfdiff_demo::pick(black_box(3));
        bencher.bench(|| perfdiff_demo::mix(black_box(k)));
    }

    #[divan::bench]
    fn late(bencher: divan::Bencher) {
        let v = perfdiff_demo::set_up(black_box(64));
        bencher.bench(|| perfdiff_demo::late_inside(black_box(v.len() as u64)));
    }
}
";

#[test]
fn a_divan_benchmark_s_set_up_is_outside_its_sample_task() {
    let guard = measuring_lock();
    // Head's only change is the commit below: no benchmark added (divan registers each at
    // start-up, in code every benchmark runs).
    let mut options = DemoOptions {
        harness: DemoHarness::Divan,
        ..strong_changes()
    };
    options.changes.add_benchmark = false;
    let add = |repo: &std::path::Path| {
        let bench = repo.join("benches/demo.rs");
        let text = std::fs::read_to_string(&bench).unwrap();
        std::fs::write(&bench, format!("{text}{DIVAN_SET_UP_SHAPES}")).unwrap();
    };
    let (_dir, repo) = shared_demo_with(&guard, &options, "set-up shapes", |repo| {
        commit_set_up_shapes(repo, add)
    });
    let listing = list_set_up_shapes(&repo, "outside::");
    assert_set_up_shapes(&listing, "demo::outside::");
}

/// Set-ups a divan benchmark runs outside its sample task only when its timed closure ran more
/// than once: after `Bencher::bench`, which a fork's run leaves after its samples and its
/// test-mode trace after one call. Each benchmark counts its own closure's calls. `inside` calls
/// [`SAMPLED_LIBRARY`]'s `pick_when_sampled` in its timed closure, which enters `pick` (its
/// source changed) on every call but the first.
const DIVAN_SAMPLED_SHAPES: &str = "
mod sampled {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

    static SAME_CALLS: AtomicU64 = AtomicU64::new(0);

    #[divan::bench]
    fn same(bencher: divan::Bencher) {
        bencher.bench(|| {
            SAME_CALLS.fetch_add(1, Relaxed);
            perfdiff_demo::mix(black_box(1))
        });
        if SAME_CALLS.load(Relaxed) > 1 {
            black_box(perfdiff_demo::set_up(black_box(64)));
        }
    }

    static PICKED_CALLS: AtomicU64 = AtomicU64::new(0);

    #[divan::bench]
    fn picked(bencher: divan::Bencher) {
        bencher.bench(|| {
            PICKED_CALLS.fetch_add(1, Relaxed);
            perfdiff_demo::mix(black_box(1))
        });
        if PICKED_CALLS.load(Relaxed) > 1 {
            black_box(perfdiff_demo::pick(black_box(3)));
        }
    }

    #[divan::bench]
    fn inside(bencher: divan::Bencher) {
        bencher.bench(|| perfdiff_demo::pick_when_sampled(black_box(3)));
    }
}
";

#[test]
fn changed_code_a_divan_fork_runs_only_outside_its_sample_task_is_skipped_when_its_source_is_the_same()
 {
    let guard = measuring_lock();
    let (_dir, repo) = sampled_shapes_demo(&guard, DemoHarness::Divan, DIVAN_SAMPLED_SHAPES);
    let listing = list_set_up_shapes(&repo, "sampled::");
    assert_sampled_shapes(&listing, "demo::sampled::");
}

/// What `--list` says of the shapes a harness's fork runs outside its timed routine after its
/// samples (`same`, `picked`, `inside`, each id `prefix` and its name).
fn assert_sampled_shapes(listing: &serde_json::Value, prefix: &str) {
    for name in SAMPLED_SHAPES {
        assert_sampled_shape(listing, prefix, name);
    }
}

/// The shapes [`assert_sampled_shapes`] checks.
const SAMPLED_SHAPES: [&str; 3] = ["same", "picked", "inside"];

/// What `--list` says of the sampled shape `name` (its id `prefix` and `name`).
fn assert_sampled_shape(listing: &serde_json::Value, prefix: &str, name: &str) {
    let id = format!("{prefix}{name}");
    match name {
        // Its trace enters no changed function; its probe enters `set_up` after its samples,
        // outside the timed routine, and its source is the same.
        "same" => {
            let same = bench_entry(listing, &id);
            let skipped = selection(same);
            assert_eq!(skipped["measured"], false, "{same:#}");
            assert_eq!(skipped["reason"], "same_code", "{same:#}");
            let detail = skipped["detail"].as_str().unwrap();
            assert!(
                detail.contains("runs only outside its timed loop (`perfdiff_demo::set_up`), compiled from the same source on both sides"),
                "{same:#}"
            );
        }
        // `pick`'s source changed: measured, naming it, whether entered outside or inside.
        "picked" => {
            let (picked, reached) = measured_for(listing, &id, "reaches_change");
            let detail = reached["detail"].as_str().unwrap();
            assert!(
                detail.starts_with(
                    "it reaches `perfdiff_demo::pick` outside its timed routine in a native run, \
                     which its trace did not, and its source differs"
                ),
                "{picked:#}"
            );
        }
        _ => {
            let (inside, reached) = measured_for(listing, &id, "reaches_change");
            assert_eq!(
                reached["detail"],
                "it reaches `perfdiff_demo::pick` in a native run, which its trace did not \
                 (native probe)",
                "{inside:#}"
            );
        }
    }
}

/// [`DIVAN_SAMPLED_SHAPES`] as libtest `#[bench]` functions: `Bencher::iter` runs every sample,
/// once in test mode (the trace), and the benchmark's function goes on after it. Each passes a
/// function pointer of one type, so that the three share one instantiation of libtest's
/// generic `iter`, called from three places: the compiler keeps it out of line, a routine the
/// probe can watch (one closure each would each get an `iter` of its own, inlined into it).
const LIBTEST_SAMPLED_SHAPES: &str = "
mod sampled {
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
    use test::{black_box, Bencher};

    static SAME_CALLS: AtomicU64 = AtomicU64::new(0);

    fn same_work() -> u64 {
        SAME_CALLS.fetch_add(1, Relaxed);
        perfdiff_demo::mix(black_box(1))
    }

    #[bench]
    fn same(b: &mut Bencher) {
        b.iter(black_box(same_work as fn() -> u64));
        if SAME_CALLS.load(Relaxed) > 1 {
            black_box(perfdiff_demo::set_up(black_box(64)));
        }
    }

    static PICKED_CALLS: AtomicU64 = AtomicU64::new(0);

    fn picked_work() -> u64 {
        PICKED_CALLS.fetch_add(1, Relaxed);
        perfdiff_demo::mix(black_box(1))
    }

    #[bench]
    fn picked(b: &mut Bencher) {
        b.iter(black_box(picked_work as fn() -> u64));
        if PICKED_CALLS.load(Relaxed) > 1 {
            black_box(perfdiff_demo::pick(black_box(3)));
        }
    }

    fn inside_work() -> u64 {
        perfdiff_demo::pick_when_sampled(black_box(3))
    }

    #[bench]
    fn inside(b: &mut Bencher) {
        b.iter(black_box(inside_work as fn() -> u64));
    }

    /// A closure of its own: its `iter` inlined into this function, so its loop runs outside
    /// every routine the executable has (the others' `iter`), entering `set_up` on every call
    /// but the first.
    #[bench]
    fn inlined(b: &mut Bencher) {
        b.iter(|| perfdiff_demo::set_up_when_sampled(black_box(64)));
    }
}
";

#[test]
fn changed_code_a_libtest_fork_runs_only_outside_its_timed_routine_is_skipped_when_its_source_is_the_same()
 {
    let guard = measuring_lock();
    let (_dir, repo) = sampled_shapes_demo(&guard, DemoHarness::Libtest, LIBTEST_SAMPLED_SHAPES);
    // Stands in for `cargo +nightly perfdiff`, as the libtest tests of harness_e2e do.
    let env = [("RUSTC_BOOTSTRAP", "1")];
    // libtest's run cannot be stretched: on a busy machine its probe covers no fork's run, and
    // the benchmark is measured, rightly, for that. Each shape is checked in the first of a few
    // listings whose probe of it was not too busy.
    let too_busy = |entry: &serde_json::Value| {
        let record = selection(entry);
        record["measured"] == true
            && record["detail"]
                .as_str()
                .is_some_and(|d| d.contains("the machine was too busy"))
    };
    let mut left: Vec<&str> = SAMPLED_SHAPES.to_vec();
    for attempt in 0..5 {
        let listing = list_set_up_shapes_with(&repo, "sampled::", &env);
        if attempt == 0 {
            // Its probe never enters a timed routine: what it enters cannot be placed outside
            // the loop, and counts (its run ends at a hit, whatever the machine's load).
            let (inlined, reached) = measured_for(&listing, "sampled::inlined", "reaches_change");
            assert_eq!(
                reached["detail"],
                "it reaches `perfdiff_demo::set_up` in a native run, which its trace did not \
                 (native probe)",
                "{inlined:#}"
            );
        }
        left.retain(|name| {
            let entry = bench_entry(&listing, &format!("sampled::{name}"));
            if too_busy(entry) {
                return true;
            }
            assert_sampled_shape(&listing, "sampled::", name);
            false
        });
        if left.is_empty() {
            return;
        }
    }
    eprintln!("{left:?}: the machine stayed too busy for libtest's probe; measured");
}

/// The libtest demo (head's commit) with three lines added above its benchmarks (`HEAD~1`),
/// then `slight` renamed `slighter` (`HEAD`).
fn libtest_lines_moved_demo(guard: &MeasuringGuard) -> (Scratch, std::path::PathBuf) {
    let options = DemoOptions {
        harness: DemoHarness::Libtest,
        ..strong_changes()
    };
    shared_demo_with(guard, &options, "libtest lines moved", |repo| {
        let above = "extern crate test;\n\n// Three lines\n// above every\n// benchmark.\n";
        replace_in(repo, "benches/demo.rs", "extern crate test;\n", above);
        commit_all(repo, "three lines above the benchmarks");
        replace_in(repo, "benches/demo.rs", "fn slight(", "fn slighter(");
        commit_all(repo, "slight renamed");
    })
}

#[test]
fn a_libtest_table_whose_lines_moved_is_set_aside_and_one_with_a_benchmark_renamed_is_not() {
    let guard = measuring_lock();
    let (_dir, repo) = libtest_lines_moved_demo(&guard);
    // Stands in for `cargo +nightly perfdiff`, as the libtest tests of harness_e2e do.
    let env = [("RUSTC_BOOTSTRAP", "1")];
    let list = |from: &str, to: &str| -> serde_json::Value {
        let args = [from, to, "--list", "--format", "json", "--", "steady"];
        let output = selecting_with(&repo, &with_options(&args, FAST), &env);
        assert_eq!(output.status.code(), Some(0), "{}", all_output(&output));
        serde_json::from_slice(&output.stdout).unwrap()
    };
    // Only the lines of `rustc --test`'s descriptors differ (fastrand v2.4.0 → v2.5.0).
    let moved = list("HEAD~2", "HEAD~1");
    let entry = bench_entry(&moved, "hash::steady");
    let record = selection(entry);
    assert_eq!(record["reason"], "same_code", "{entry:#}");
    assert!(
        record["detail"].as_str().is_some_and(
            |d| d.contains("set aside: libtest's table of benchmarks: source lines moved")
        ),
        "{entry:#}"
    );
    // Another benchmark's name in the table: `steady` executes the changed `main`.
    let renamed = list("HEAD~1", "HEAD");
    let (entry, record) = measured_for(&renamed, "hash::steady", "reaches_change");
    assert!(
        record["detail"]
            .as_str()
            .is_some_and(|d| d.contains("data of demo::main")),
        "{entry:#}"
    );
}

#[test]
fn list_says_what_a_run_would_measure_and_why() {
    let guard = measuring_lock();
    let (_dir, repo) = shared_demo(&guard, &constants_only());
    let output = list_selecting(&repo, &["HEAD~1", "HEAD", "--list", "--", "mix", "steady"]);
    let text = all_output(&output);
    assert_eq!(output.status.code(), Some(0), "{text}");
    let line = |id: &str| {
        text.lines()
            .find(|l| l.starts_with(id))
            .unwrap_or_else(|| panic!("no line for {id}: {text}"))
            .to_string()
    };
    assert!(
        line("hash/steady").contains("not measured, same code"),
        "{text}"
    );
    assert!(
        line("hash/mix").contains("measured, it executes changed code"),
        "{text}"
    );
    assert!(
        text.contains(
            "2 benchmark(s) would be compared (1 unchanged without measuring: same code)"
        ),
        "{text}"
    );

    let output = list_selecting(
        &repo,
        &[
            "HEAD~1", "HEAD", "--list", "--format", "json", "--", "steady",
        ],
    );
    let listing: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let steady = &listing["benchmarks"][0];
    assert_eq!(steady["selection"]["reason"], "same_code", "{listing:#}");

    // The demo's new benchmark lives in a bench target of its own, only in head.
    let output = list_selecting(&repo, &["HEAD~1", "HEAD", "--list", "--", "new_in_head"]);
    let text = all_output(&output);
    assert_eq!(output.status.code(), Some(0), "{text}");
    let added = text
        .lines()
        .find(|l| l.starts_with("hash/new_in_head"))
        .unwrap_or_else(|| panic!("no line for hash/new_in_head: {text}"));
    assert!(
        added.contains("bench target added") && added.contains("only in head"),
        "{text}"
    );
}

#[test]
fn a_listing_keeps_its_probes_for_the_comparison_after_it() {
    let guard = measuring_lock();
    let (_dir, repo) = shared_demo(&guard, &constants_only());
    forget_kept_probes(&repo);
    let listing = list_selecting(
        &repo,
        &[
            "HEAD~1", "HEAD", "--list", "--format", "json", "--", "steady",
        ],
    );
    let err = stderr(&listing);
    assert_eq!(listing.status.code(), Some(0), "{err}");
    assert!(!err.contains("probe(s) kept"), "{err}");
    let listed: serde_json::Value = serde_json::from_slice(&listing.stdout).unwrap();
    let listed = listed["benchmarks"][0]["selection"].clone();
    assert_eq!(listed["reason"], "same_code", "{listed:#}");
    let detail = listed["detail"].as_str().unwrap();
    assert!(
        detail.contains("a native run as long as a fork entered none of the"),
        "{listed:#}"
    );
    assert_eq!(kept_probes(&repo).len(), 1, "{err}");
    // The comparison at the same settings takes the outcome, and decides as the listing did.
    let args = with_options(
        &[
            "HEAD~1",
            "HEAD",
            "--format",
            "json",
            "--fail-on",
            "never",
            "--",
            "steady",
        ],
        FAST,
    );
    let compared = selecting(&repo, &args);
    let err = stderr(&compared);
    assert_eq!(compared.status.code(), Some(0), "{err}");
    assert!(
        err.contains("1 of 1 probe(s) kept from an earlier run"),
        "{err}"
    );
    let report = json_report(&compared);
    let steady = bench_entry(&report, "hash/steady");
    assert_eq!(selection(steady), &listed, "{steady:#}");
    assert_eq!(steady["forks"]["base"], 0, "{steady:#}");
    // Another measurement time is another fork: probed again, and kept beside the first.
    let longer: Vec<&str> = FAST
        .iter()
        .map(|&arg| if arg == "0.2" { "0.3" } else { arg })
        .collect();
    assert_ne!(longer, FAST);
    let longer = with_options(&["HEAD~1", "HEAD", "--list", "--", "steady"], &longer);
    let err = stderr(&selecting(&repo, &longer));
    assert!(!err.contains("probe(s) kept"), "{err}");
    assert_eq!(kept_probes(&repo).len(), 2, "{err}");
}

#[test]
fn instruction_records_and_duet_pairs_skip_what_executes_the_same_code() {
    let guard = measuring_lock();
    let (_dir, repo) = shared_demo(&guard, &constants_only());
    let mut counted = parent_vs_head_json(&["mix", "steady"]);
    counted.insert(0, "--metric");
    counted.insert(1, "time,instructions");
    let report = json_report(&selecting(&repo, &counted));
    for id in ["hash/steady", "hash/steady (instructions)"] {
        let entry = bench_entry(&report, id);
        assert_eq!(entry["verdict"], "unchanged", "{entry:#}");
        assert_eq!(selection(entry)["reason"], "same_code", "{entry:#}");
        assert_eq!(entry["forks"]["base"], 0, "{entry:#}");
    }
    let counted_mix = bench_entry(&report, "hash/mix (instructions)");
    assert_eq!(counted_mix["verdict"], "regressed", "{counted_mix:#}");

    let mut duet = parent_vs_head_json(&["mix", "steady"]);
    duet.insert(0, "--mode");
    duet.insert(1, "duet");
    let report = json_report(&selecting(&repo, &duet));
    let steady = bench_entry(&report, "hash/steady");
    assert_eq!(selection(steady)["reason"], "same_code", "{steady:#}");
    measured_entry(&report, "hash/mix", 2);
}

#[test]
fn a_resumed_run_keeps_the_selection_it_recorded_and_traces_nothing_again() {
    let guard = measuring_lock();
    let (dir, repo) = shared_demo(&guard, &constants_only());
    let samples = dir.path().join("samples.json");
    let samples_arg = samples.to_str().unwrap();
    let mut first = parent_vs_head_json(&["mix", "steady"]);
    first.insert(0, "--samples");
    first.insert(1, samples_arg);
    let output = selecting(&repo, &first);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let mut resumed = parent_vs_head_json(&["mix", "steady"]);
    resumed.insert(0, "--resume");
    resumed.insert(1, samples_arg);
    let output = selecting(&repo, &resumed);
    let err = stderr(&output);
    let report = json_report(&output);
    assert_eq!(
        selection(bench_entry(&report, "hash/steady"))["reason"],
        "same_code",
        "{err}"
    );
    assert!(!err.contains("finding what the change reaches"), "{err}");
}

/// A repository of two programs, `alpha` and `beta`, each with its own `#[inline(never)]` work
/// function; head changes `beta`'s work and nothing else. No dependency: it builds in seconds.
fn two_programs_repo() -> (Scratch, std::path::PathBuf) {
    let dir = scratch();
    let repo = dir.path().join("programs");
    write_two_programs(&repo);
    (dir, repo)
}

/// The repository of [`two_programs_repo`] at `repo`, committed.
fn write_two_programs(repo: &std::path::Path) {
    std::fs::create_dir_all(repo.join("src/bin")).unwrap();
    git_ok(repo, &["init", "-q"]);
    std::fs::write(
        repo.join("Cargo.toml"),
        // A workspace of its own: a shared repository lies inside this project's target directory.
        "[package]\nname = \"twoprogs\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
    )
    .unwrap();
    std::fs::write(repo.join("src/lib.rs"), "").unwrap();
    let program = |name: &str, rounds: u64| {
        format!(
            "#[inline(never)]\nfn {name}_work(n: u64) -> u64 {{\n    (0..n).fold(7, |h, i| (h ^ i).wrapping_mul(0x100_0000_01b3))\n}}\n\n\
             fn main() {{\n    println!(\"{{}}\", {name}_work(std::hint::black_box({rounds})));\n}}\n"
        )
    };
    std::fs::write(repo.join("src/bin/alpha.rs"), program("alpha", 1000)).unwrap();
    std::fs::write(repo.join("src/bin/beta.rs"), program("beta", 1000)).unwrap();
    std::fs::write(repo.join("run.sh"), "\"$PERFDIFF_BIN/alpha\"\n").unwrap();
    commit_all(repo, "two programs");
    std::fs::write(
        repo.join("src/bin/beta.rs"),
        program("beta", 1000).replace("(h ^ i)", "(h ^ i ^ 3)"),
    )
    .unwrap();
    commit_all(repo, "beta: other work");
}

#[test]
fn a_command_whose_programs_are_untouched_is_unchanged_without_an_execution() {
    let guard = measuring_lock();
    let (_dir, repo) = shared_repo(&guard, Profile::Quick, "two programs", "programs", |repo| {
        write_two_programs(repo)
    });
    let mut args = vec!["--commands-only", "--layouts", "2"];
    args.extend_from_slice(&["--cmd", "alpha={bin}/alpha", "--cmd", "beta={bin}/beta"]);
    // A system program is the same file on both sides; a script of the checkout is compared
    // as a file, and the program it starts by its code.
    args.extend_from_slice(&["--cmd", "shell=/bin/sh -c 'exit 0'"]);
    args.extend_from_slice(&["--cmd", "script=/bin/sh {root}/run.sh"]);
    // A shell named as docs/commands.md writes it, found through `PATH`.
    args.extend_from_slice(&["--cmd", "found=sh -c '{bin}/alpha'"]);
    let output = selecting(&repo, &with_options(&parent_vs_head_json(&[]), &args));
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    let report = json_report(&output);
    for id in [
        "alpha",
        "alpha (peak memory)",
        "shell",
        "shell (peak memory)",
        "script",
        "found",
    ] {
        let entry = bench_entry(&report, id);
        assert_eq!(entry["verdict"], "unchanged", "{entry:#}");
        assert_eq!(entry["forks"]["base"], 0, "{entry:#}");
        assert_eq!(selection(entry)["reason"], "same_code", "{entry:#}");
    }
    assert!(
        selection(bench_entry(&report, "alpha"))["functions"]
            .as_u64()
            .unwrap()
            > 0
    );
    let script = selection(bench_entry(&report, "script"));
    assert!(script["files"].as_u64().unwrap() >= 1, "run.sh: {script:#}");
    let beta = measured_entry(&report, "beta", 2);
    let reached = selection(beta);
    assert_eq!(reached["reason"], "reaches_change", "{beta:#}");
    let changed = reached["changed_functions"].to_string();
    assert!(changed.contains("beta_work"), "{beta:#}");
    assert!(!changed.contains("alpha"), "{beta:#}");
    assert!(
        err.contains("beta is measured: it executes changed code"),
        "{err}"
    );
}

/// A program that reads the CPU's features: with `--native` it runs `native_only` where the CPU
/// has a feature valgrind hides (under valgrind, `everywhere` then), with `--other` it runs
/// `never_run`, else `everywhere`. Head changes `native_only` and `never_run` alone.
const FEATURES_PROGRAM: &str = "
#[inline(never)]
fn everywhere(x: u64) -> u64 {
    (0..1000u64).fold(x, |h, i| (h ^ i).wrapping_mul(0x100_0000_01b3))
}

#[inline(never)]
fn native_only(x: u64) -> u64 {
    (0..1000u64).fold(x, |h, i| (h ^ i).wrapping_mul(0x100_0000_01b3))
}

#[inline(never)]
fn never_run(x: u64) -> u64 {
    (0..1000u64).fold(x, |h, i| (h ^ i).wrapping_mul(0x100_0000_01b3))
}

/// Whether this CPU has one of the features valgrind hides (`features_valgrind_hides`).
fn hidden_feature() -> bool {
    std::arch::is_x86_feature_detected!(\"avx512f\")
        || std::arch::is_x86_feature_detected!(\"sha\")
        || std::arch::is_x86_feature_detected!(\"gfni\")
        || std::arch::is_x86_feature_detected!(\"vaes\")
        || std::arch::is_x86_feature_detected!(\"vpclmulqdq\")
        || std::arch::is_x86_feature_detected!(\"adx\")
        || std::arch::is_x86_feature_detected!(\"xsavec\")
}

fn main() {
    let x = std::hint::black_box(7);
    let value = match std::env::args().nth(1).as_deref() {
        Some(\"--native\") if hidden_feature() => native_only(x),
        Some(\"--other\") => never_run(x),
        _ => everywhere(x ^ u64::from(hidden_feature())),
    };
    println!(\"{value}\");
}
";

/// The repository of [`FEATURES_PROGRAM`] at `repo`, committed, then head's change.
fn write_features_program(repo: &std::path::Path) {
    std::fs::create_dir_all(repo.join("src")).unwrap();
    git_ok(repo, &["init", "-q"]);
    std::fs::write(
        repo.join("Cargo.toml"),
        // A workspace of its own: a shared repository lies inside this project's target directory.
        "[package]\nname = \"feat\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
    )
    .unwrap();
    std::fs::write(repo.join("src/main.rs"), FEATURES_PROGRAM).unwrap();
    // A second program, the same on both sides.
    std::fs::create_dir_all(repo.join("src/bin")).unwrap();
    std::fs::write(
        repo.join("src/bin/steady.rs"),
        "fn main() {\n    println!(\"{}\", std::hint::black_box(3) * 7);\n}\n",
    )
    .unwrap();
    commit_all(repo, "a program that reads the CPU's features");
    let head = FEATURES_PROGRAM
        .replace(
            "fn native_only(x: u64) -> u64 {\n    (0..1000u64).fold(x, |h, i| (h ^ i)",
            "fn native_only(x: u64) -> u64 {\n    (0..1000u64).fold(x, |h, i| (h ^ i ^ 3)",
        )
        .replace(
            "fn never_run(x: u64) -> u64 {\n    (0..1000u64).fold(x, |h, i| (h ^ i)",
            "fn never_run(x: u64) -> u64 {\n    (0..1000u64).fold(x, |h, i| (h ^ i ^ 5)",
        );
    assert_eq!(
        head.matches("^ 3)").count() + head.matches("^ 5)").count(),
        2,
        "{head}"
    );
    std::fs::write(repo.join("src/main.rs"), head).unwrap();
    commit_all(repo, "native_only and never_run: other work");
}

/// A command whose program reads the CPU's features, where this CPU has some valgrind hides:
/// its trace under valgrind may not take the path a native run takes, so a skip is confirmed
/// by a native run with a breakpoint at every changed function of its programs, followed
/// through every `exec` (`sh -c '…'`). `plain` never runs the changed functions: `unchanged
/// (same code)`, confirmed by the probe (before the probe, measured "it reads the CPU's
/// features"). `native` and `via_sh` run `native_only` natively only: the probe finds it.
/// Where this CPU has none of those features, all three are the same code, each confirmed by
/// its probe. `pair` runs a second program of the revision, `steady`, whose code is all the
/// same: the probe watches it too, and does not take it for a program its trace did not start.
#[test]
fn a_command_whose_program_reads_the_cpu_s_features_is_probed_natively_through_its_execs() {
    let guard = measuring_lock();
    let (_dir, repo) = shared_repo(&guard, Profile::Quick, "features", "feat", |repo| {
        write_features_program(repo)
    });
    let mut args = vec!["--commands-only"];
    args.extend_from_slice(&[
        "--cmd",
        "plain={bin}/feat",
        "--cmd",
        "native={bin}/feat --native",
    ]);
    args.extend_from_slice(&["--cmd", "via_sh=sh -c '{bin}/feat --native | cat'"]);
    // A second program of the revision, whose code is all the same: watched, not a surprise.
    args.extend_from_slice(&["--cmd", "pair=sh -c '{bin}/feat; {bin}/steady'"]);
    let output = selecting(&repo, &with_options(&parent_vs_head_json(&[]), &args));
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    let report = json_report(&output);
    let plain = bench_entry(&report, "plain");
    assert_eq!(plain["verdict"], "unchanged", "{plain:#}");
    assert_eq!(selection(plain)["reason"], "same_code", "{plain:#}");
    let probed =
        "a native run entered none of the 2 changed function(s) of its programs (native probe)";
    for id in ["plain", "pair"] {
        let entry = bench_entry(&report, id);
        assert_eq!(entry["verdict"], "unchanged", "{entry:#}");
        let detail = selection(entry)["detail"].as_str().unwrap();
        assert!(detail.ends_with(probed), "{entry:#}");
    }
    let hidden = !cargo_perfdiff::steps::reach::code::features_valgrind_hides().is_empty();
    for id in ["native", "via_sh"] {
        let entry = bench_entry(&report, id);
        let record = selection(entry);
        if !hidden {
            assert_eq!(record["reason"], "same_code", "{entry:#}");
            assert!(
                record["detail"].as_str().unwrap().ends_with(probed),
                "{entry:#}"
            );
            continue;
        }
        assert_eq!(record["reason"], "reaches_change", "{entry:#}");
        assert!(
            record["detail"].as_str().unwrap().contains(
                "it executes changed code in a native run, which its trace did not: `feat::native_only`"
            ),
            "{entry:#}"
        );
    }
}

/// fd's release profile (`strip = true`, LTO, one codegen unit) on a program, and a commit that
/// changes only its version (field-trials.md, session 20). Cargo's program had no symbol table,
/// and every command was measured: "the executable has no symbol table (stripped)".
fn write_stripped_program(repo: &std::path::Path) {
    std::fs::create_dir_all(repo.join("src")).unwrap();
    git_ok(repo, &["init", "-q"]);
    let manifest = |version: &str| {
        format!(
            "[package]\nname = \"stripped\"\nversion = \"{version}\"\nedition = \"2021\"\n\n\
             [workspace]\n\n[profile.release]\nstrip = true\nlto = true\ncodegen-units = 1\n"
        )
    };
    std::fs::write(repo.join("Cargo.toml"), manifest("0.1.0")).unwrap();
    std::fs::write(
        repo.join("src/main.rs"),
        "#[inline(never)]\nfn work(n: u64) -> u64 {\n    \
         (0..n).fold(7, |h, i| (h ^ i).wrapping_mul(0x100_0000_01b3))\n}\n\n\
         #[inline(never)]\nfn version() {\n    println!(\"{}\", env!(\"CARGO_PKG_VERSION\"));\n}\n\n\
         fn main() {\n    match std::env::args().nth(1).as_deref() {\n        \
         Some(\"--version\") => version(),\n        \
         _ => println!(\"{}\", work(std::hint::black_box(1000))),\n    }\n}\n",
    )
    .unwrap();
    commit_all(repo, "a stripped program");
    std::fs::write(repo.join("Cargo.toml"), manifest("0.1.1")).unwrap();
    commit_all(repo, "version 0.1.1");
}

#[test]
fn a_stripped_program_across_a_version_bump_is_unchanged_but_for_its_version() {
    let guard = measuring_lock();
    let (_dir, repo) = shared_repo(&guard, Profile::Quick, "strip", "stripped", |repo| {
        write_stripped_program(repo)
    });
    let mut args = vec!["--commands-only", "--layouts", "2"];
    args.extend_from_slice(&["--cmd", "work={bin}/stripped"]);
    args.extend_from_slice(&["--cmd", "version={bin}/stripped --version"]);
    let output = selecting(&repo, &with_options(&parent_vs_head_json(&[]), &args));
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    assert!(!err.contains("no symbol table"), "{err}");
    let report = json_report(&output);
    for id in ["work", "work (peak memory)"] {
        let entry = bench_entry(&report, id);
        assert_eq!(entry["forks"]["base"], 0, "{entry:#}");
        assert_eq!(selection(entry)["reason"], "same_code", "{entry:#}");
    }
    let version = selection(bench_entry(&report, "version"));
    assert_eq!(version["reason"], "reaches_change", "{version:#}");
    assert!(
        err.contains("version is measured") && err.contains("0.1.0 → 0.1.1"),
        "{err}"
    );
}

/// The demo's mix changed once more in a commit of its own, its bench target built with line
/// tables (and criterion, shared with the other tests, without).
fn line_tables_demo(guard: &MeasuringGuard) -> (Scratch, std::path::PathBuf) {
    shared_demo_with(guard, &constants_only(), "line tables", commit_line_tables)
}

/// Commits line tables for the demo's bench target at `repo`, then `mix` at twice its rounds.
fn commit_line_tables(repo: &std::path::Path) {
    let manifest = std::fs::read_to_string(repo.join("Cargo.toml")).unwrap();
    let line_tables = "[profile.bench.package.perfdiff-demo]\ndebug = \"line-tables-only\"\n";
    std::fs::write(
        repo.join("Cargo.toml"),
        format!("{manifest}\n{line_tables}"),
    )
    .unwrap();
    commit_all(repo, "line tables");
    replace_in(
        repo,
        "src/lib.rs",
        "MIX_ROUNDS: u64 = 4000;",
        "MIX_ROUNDS: u64 = 8000;",
    );
    commit_all(repo, "mix: twice the rounds");
}

/// The names a listing's benchmark `id` gives for the changed functions it executes.
fn changed_functions(listing: &serde_json::Value, id: &str) -> Vec<String> {
    let entry = bench_entry(listing, id);
    entry["selection"]["changed_functions"]
        .as_array()
        .unwrap_or_else(|| panic!("{entry:#}"))
        .iter()
        .map(|name| name.as_str().unwrap().to_string())
        .collect()
}

/// One repository (its two builds are the cost) for two things: the names a measured
/// benchmark gives, and shards.
#[test]
fn changed_code_is_named_by_its_source_functions_and_shards_keep_the_selection() {
    let guard = measuring_lock();
    let (dir, repo) = line_tables_demo(&guard);
    let listed = list_selecting(
        &repo,
        &[
            "HEAD~1", "HEAD", "--list", "--format", "json", "--", "mix", "steady",
        ],
    );
    assert_eq!(listed.status.code(), Some(0), "{}", stderr(&listed));
    let listing: serde_json::Value = serde_json::from_slice(&listed.stdout).unwrap();
    let changed = changed_functions(&listing, "hash/mix");
    // Without line tables this is `criterion::bencher::Bencher<M>::iter`, into which the
    // benchmark's closure is inlined: now the closure, and where it is.
    assert!(
        changed
            .iter()
            .any(|name| name.starts_with("{closure#0} in ") && name.contains("(benches/demo.rs:")),
        "{changed:?}"
    );
    assert!(
        !changed
            .iter()
            .any(|name| name.contains("Bencher<M>::iter") && !name.starts_with('{')),
        "{changed:?}"
    );
    assert!(
        !changed.iter().any(|name| name.starts_with("black_box")),
        "{changed:?}"
    );

    // Each shard decides its benchmarks as the whole run does and reports the skipped ones (the
    // second shard holds hash/checksum alone: it measures nothing); the merged report keeps
    // every selection.
    let mut samples = Vec::new();
    let mut seen = Vec::new();
    for shard in ["1/2", "2/2"] {
        let path = dir.path().join(format!("shard-{}.json", &shard[..1]));
        let mut args = parent_vs_head_json(&["mix", "steady", "checksum"]);
        args.splice(
            0..0,
            ["--shard", shard, "--samples", path.to_str().unwrap()],
        );
        let output = selecting(&repo, &args);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        for entry in json_report(&output)["benchmarks"].as_array().unwrap() {
            let id = entry["id"].as_str().unwrap().to_string();
            let reason = &selection(entry)["reason"];
            match id.as_str() {
                "hash/steady" | "hash/checksum" => {
                    assert_eq!(reason, "same_code", "{entry:#}");
                    assert_eq!(entry["verdict"], "unchanged", "{entry:#}");
                    assert_eq!(entry["forks"]["base"], 0, "{entry:#}");
                }
                "hash/mix" => assert_eq!(reason, "reaches_change", "{entry:#}"),
                other => panic!("{other} in shard {shard}"),
            }
            seen.push(id);
        }
        samples.push(path);
    }
    seen.sort();
    assert_eq!(
        seen,
        ["hash/checksum", "hash/mix", "hash/steady"],
        "each benchmark in one shard"
    );
    let mut merge = vec!["report", "--format", "json"];
    merge.extend(samples.iter().map(|p| p.to_str().unwrap()));
    let merged = json_report(&selecting(&repo, &merge));
    let steady = bench_entry(&merged, "hash/steady");
    assert_eq!(selection(steady)["reason"], "same_code", "{steady:#}");
    assert_eq!(steady["verdict"], "unchanged", "{steady:#}");
    assert_eq!(
        selection(bench_entry(&merged, "hash/mix"))["reason"],
        "reaches_change"
    );
}

#[test]
fn a_commit_that_only_bumps_the_version_is_the_same_code() {
    let guard = measuring_lock();
    let (_dir, repo) = shared_demo_with(&guard, &constants_only(), "release 0.2.0", |repo| {
        let (from, to) = (
            "name = \"perfdiff-demo\"\nversion = \"0.1.0\"",
            "name = \"perfdiff-demo\"\nversion = \"0.2.0\"",
        );
        replace_in(repo, "Cargo.toml", from, to);
        replace_in(repo, "Cargo.lock", from, to);
        commit_all(repo, "release 0.2.0");
    });
    let output = list_selecting(&repo, &["HEAD~1", "HEAD", "--list", "--", "steady"]);
    let text = all_output(&output);
    assert_eq!(output.status.code(), Some(0), "{text}");
    let steady = text
        .lines()
        .find(|l| l.starts_with("hash/steady"))
        .unwrap_or_else(|| panic!("no line for hash/steady: {text}"));
    // The build gives every crate a symbol hash without its version (docs/design/
    // build-normalisation.md): the functions keep their partners across the bump.
    assert!(steady.contains("not measured, same code"), "{text}");
}

#[test]
fn a_second_run_keeps_the_command_traces_of_the_first() {
    let _guard = measuring_lock();
    let (_dir, repo) = two_programs_repo();
    let mut args = vec![
        "HEAD~1",
        "HEAD",
        "--list",
        "--commands-only",
        "--layouts",
        "2",
    ];
    args.extend_from_slice(&["--cmd", "beta={bin}/beta"]);
    args.extend_from_slice(&["--cmd", "script=/bin/sh {root}/run.sh"]);
    // The decision's notes, without their clock.
    let decided = |output: &Output| -> Vec<String> {
        let err = stderr(output);
        assert_eq!(output.status.code(), Some(0), "{err}");
        let notes = err
            .lines()
            .filter_map(|l| l.split_once("] ").map(|(_, note)| note));
        notes
            .filter(|n| n.contains("is measured:") || n.contains("execute the same code"))
            .map(str::to_string)
            .collect()
    };
    let first = selecting(&repo, &args);
    let err = stderr(&first);
    assert!(!err.contains("command trace(s) kept"), "{err}");
    let second = selecting(&repo, &args);
    let err = stderr(&second);
    assert!(
        err.contains("2 of 2 command trace(s) kept from an earlier run"),
        "{err}"
    );
    let notes = decided(&second);
    assert_eq!(notes, decided(&first));
    assert!(
        notes.contains(&"1 of 2 benchmark(s) execute the same code on both sides: unchanged without measuring (--measure-all measures them)".to_string())
            && notes.contains(&"beta is measured: it executes changed code: beta::beta_work".to_string()),
        "{notes:?}"
    );
}

/// A benchmark whose timed loop runs two functions compiled differently from the same source
/// (issue #55: the compiler's different code beside a verdict), one laid out and one inlined
/// differently because of a change elsewhere. Head marks `seldom` cold (an attribute line), which
/// moves the branch of `spread` that calls it (the call goes from the fall-through to the end);
/// and adds `fold_twice`, a second caller of `fold_in`, which `blend` then calls instead of
/// inlining it (chrono's `Local::now` calls in head the `offset` base inlined; both checked with
/// objdump of this library compiled alone at opt-level 1, 2 and 3). And `spread_work` loops
/// twenty times as often, so that the verdict is `regressed` however busy the machine.
const ELSEWHERE_LIBRARY: &str = "
/// Never entered: head only marks it cold.
#[inline(never)]
pub fn seldom(x: u64) -> u64 {
    std::hint::black_box(x).wrapping_mul(7)
}

/// The same source on both sides; other machine code once `seldom` is cold.
#[inline(never)]
pub fn spread(x: u64) -> u64 {
    if std::hint::black_box(x == u64::MAX) {
        seldom(x)
    } else {
        x.wrapping_mul(3)
    }
}

/// Private and too long to inline anywhere but into its only caller.
fn fold_in(x: u64) -> u64 {
    let mut h = x;
    for k in [3u64, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41] {
        h = (h ^ std::hint::black_box(k))
            .wrapping_mul(0x100_0000_01b3)
            .rotate_left(k as u32);
    }
    h
}

/// The same source on both sides; calls `fold_in` once it has a second caller.
#[inline(never)]
pub fn blend(x: u64) -> u64 {
    fold_in(x) ^ 1
}

const SPREAD_ROUNDS: u64 = 100;

/// The timed work, twenty times as long in head.
#[inline(never)]
pub fn spread_work(x: u64) -> u64 {
    (0..SPREAD_ROUNDS).fold(x, |h, i| spread(blend(h ^ i)))
}
";

/// `fold_in`'s second caller, which head adds: never called.
const FOLD_TWICE: &str = "
/// A second caller of `fold_in`.
#[inline(never)]
pub fn fold_twice(x: u64) -> u64 {
    fold_in(fold_in(x))
}
";

/// The demo at `repo` with [`ELSEWHERE_LIBRARY`] in its library and an `elsewhere` group timing
/// `spread_work`, committed, then head: `seldom` cold, [`FOLD_TWICE`] added, `SPREAD_ROUNDS`
/// twenty times as many.
fn commit_compiled_elsewhere(repo: &std::path::Path) {
    let library = repo.join("src/lib.rs");
    let text = std::fs::read_to_string(&library).unwrap();
    std::fs::write(&library, format!("{text}{ELSEWHERE_LIBRARY}")).unwrap();
    add_bench_group(
        repo,
        "elsewhere",
        &[(
            "spread",
            "b.iter(|| perfdiff_demo::spread_work(black_box(5)))",
        )],
    );
    commit_all(repo, "a benchmark of spread_work");
    commit_elsewhere_head(repo, &library);
}

/// Head of [`ELSEWHERE_LIBRARY`] at `library` in `repo`, committed: `seldom` cold,
/// [`FOLD_TWICE`] added, `SPREAD_ROUNDS` twenty times as many.
fn commit_elsewhere_head(repo: &std::path::Path, library: &std::path::Path) {
    let text = std::fs::read_to_string(library).unwrap();
    let head = text
        .replace(
            "#[inline(never)]\npub fn seldom",
            "#[cold]\n#[inline(never)]\npub fn seldom",
        )
        .replace("SPREAD_ROUNDS: u64 = 100;", "SPREAD_ROUNDS: u64 = 2000;");
    assert_eq!(head.matches("#[cold]").count(), 1, "{head}");
    assert!(head.contains("SPREAD_ROUNDS: u64 = 2000;"), "{head}");
    std::fs::write(library, format!("{head}{FOLD_TWICE}")).unwrap();
    commit_all(
        repo,
        "seldom is cold, fold_in has a second caller, spread_work twenty times the rounds",
    );
}

/// The functions [`commit_compiled_elsewhere`]'s benchmark names as compiled differently from
/// the same source, as its note gives them.
const NAMED: &str = "perfdiff_demo::blend, perfdiff_demo::spread compiled differently";

/// Issue #55 item 2 at default settings (no `--explain`, no instruction metric): the changed
/// verdict names the functions of its timed loop whose code changed from the same source (one
/// laid out, one inlined differently), in the table's notes, the JSON (its warnings, and the
/// selection's `same_source`) and the Markdown; the function whose source changed is not named.
#[test]
fn a_changed_verdict_names_the_timed_functions_compiled_differently_from_the_same_source() {
    let guard = measuring_lock();
    let (dir, repo) = shared_demo_with(
        &guard,
        &constants_only(),
        "compiled elsewhere",
        commit_compiled_elsewhere,
    );
    let samples = dir.path().join("samples.json");
    let args = with_options(
        &["HEAD~1", "HEAD", "--fail-on", "never", "--", "elsewhere/"],
        &[FAST, &["--samples", samples.to_str().unwrap()]].concat(),
    );
    let output = selecting(&repo, &args);
    assert_eq!(output.status.code(), Some(0), "{}", all_output(&output));
    // The table's notes: "its code changed …" for one benchmark, "their code changed …" when
    // the note is shared (the progress on stderr names the changed functions too).
    let table = String::from_utf8_lossy(&output.stdout);
    let noted = table
        .lines()
        .find(|line| line.contains("code changed where its source did not"));
    assert!(
        noted.is_some_and(|line| line.contains("elsewhere/spread") && line.contains(NAMED)),
        "{table}"
    );

    let report = json_report(&cargo_perfdiff(
        &repo,
        &["report", "--format", "json", samples.to_str().unwrap()],
    ));
    let spread = bench_entry(&report, "elsewhere/spread");
    assert_eq!(spread["verdict"], "regressed", "{spread:#}");
    let record = selection(spread);
    assert_eq!(record["reason"], "reaches_change", "{spread:#}");
    let changed = changed_functions(&report, "elsewhere/spread");
    let functions = ["perfdiff_demo::blend", "perfdiff_demo::spread"];
    for function in functions.iter().chain(&["perfdiff_demo::spread_work"]) {
        assert!(changed.iter().any(|f| f == function), "{spread:#}");
    }
    // `spread_work`'s lines name the constant head changes: not named as the same source.
    assert_eq!(
        record["same_source"],
        serde_json::json!(functions),
        "{spread:#}"
    );
    let warnings = spread["warnings"].as_array().unwrap();
    assert!(
        warnings.iter().any(|w| w.as_str().is_some_and(|w| {
            w.starts_with(&format!(
                "its code changed where its source did not: {NAMED}"
            ))
        })),
        "{spread:#}"
    );
    let markdown = cargo_perfdiff(
        &repo,
        &["report", "--format", "markdown", samples.to_str().unwrap()],
    );
    let markdown = String::from_utf8_lossy(&markdown.stdout);
    assert!(
        markdown.contains(
            "**elsewhere/spread**: its code changed where its source did not: \
             perfdiff\\_demo::blend, perfdiff\\_demo::spread compiled differently"
        ),
        "{markdown}"
    );
}

/// A program, `spreader`, whose `main` runs [`ELSEWHERE_LIBRARY`]'s `spread_work` from its
/// library 2,000 times, committed at `repo`; then head as [`commit_elsewhere_head`] makes it.
fn write_spreader(repo: &std::path::Path) {
    std::fs::create_dir_all(repo.join("src")).unwrap();
    git_ok(repo, &["init", "-q"]);
    std::fs::write(
        repo.join("Cargo.toml"),
        // A workspace of its own: a shared repository lies inside this project's target directory.
        "[package]\nname = \"spreader\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
    )
    .unwrap();
    let library = repo.join("src/lib.rs");
    std::fs::write(&library, ELSEWHERE_LIBRARY).unwrap();
    std::fs::write(
        repo.join("src/main.rs"),
        "fn main() {\n    let mut h = 0u64;\n    for i in 0..2000u64 {\n        \
         h ^= spreader::spread_work(std::hint::black_box(i));\n    }\n    println!(\"{h}\");\n}\n",
    )
    .unwrap();
    commit_all(repo, "a program running spread_work");
    commit_elsewhere_head(repo, &library);
}

/// [`a_changed_verdict_names_the_timed_functions_compiled_differently_from_the_same_source`]
/// for a command: the program's functions laid out and inlined differently from the same source
/// are named beside its `regressed` verdict, read from the programs built with line tables.
#[test]
fn a_command_s_changed_verdict_names_the_functions_compiled_differently_from_the_same_source() {
    let (spread, _) = compare_one_command("spreader", write_spreader, "spread={bin}/spreader");
    let spread = &spread;
    assert_eq!(spread["verdict"], "regressed", "{spread:#}");
    let record = selection(spread);
    assert_eq!(record["reason"], "reaches_change", "{spread:#}");
    assert_eq!(
        record["same_source"],
        serde_json::json!(["spreader::blend", "spreader::spread"]),
        "{spread:#}"
    );
    let warnings = spread["warnings"].to_string();
    assert!(
        warnings.contains(
            "its code changed where its source did not: spreader::blend, spreader::spread \
             compiled differently"
        ),
        "{spread:#}"
    );
}

/// Compares `HEAD~1` with `HEAD` of the shared repository `name` (`write` makes it) by the one
/// command `command` (`id={bin}/…`), commands only, with a samples file: the command's entry in
/// the JSON report of that file, and the run's output.
fn compare_one_command(
    name: &str,
    write: fn(&std::path::Path),
    command: &str,
) -> (serde_json::Value, std::process::Output) {
    let guard = measuring_lock();
    let (dir, repo) = shared_repo(&guard, Profile::Quick, name, name, write);
    let samples = dir.path().join("samples.json");
    let args = ["HEAD~1", "HEAD", "--fail-on", "never", "--commands-only"];
    let options = ["--cmd", command, "--samples", samples.to_str().unwrap()];
    let output = selecting(&repo, &with_options(&args, &options));
    assert_eq!(output.status.code(), Some(0), "{}", all_output(&output));
    let report = json_report(&cargo_perfdiff(
        &repo,
        &["report", "--format", "json", samples.to_str().unwrap()],
    ));
    let id = command.split('=').next().unwrap();
    (bench_entry(&report, id).clone(), output)
}

/// A program, `rounder`, whose `main` runs its `work` 2,000 times; head's `work` does forty times
/// the rounds, a change of its own body, and nothing else changes.
fn write_rounder(repo: &std::path::Path) {
    std::fs::create_dir_all(repo.join("src")).unwrap();
    git_ok(repo, &["init", "-q"]);
    std::fs::write(
        repo.join("Cargo.toml"),
        "[package]\nname = \"rounder\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
    )
    .unwrap();
    let main = "#[inline(never)]\nfn work(x: u64) -> u64 {\n    let mut h = x;\n    \
                for i in 0..100u64 {\n        \
                h = (h ^ std::hint::black_box(i)).wrapping_mul(0x100_0000_01b3);\n    }\n    h\n}\n\n\
                fn main() {\n    let mut h = 0u64;\n    for i in 0..2000u64 {\n        \
                h ^= work(std::hint::black_box(i));\n    }\n    println!(\"{h}\");\n}\n";
    std::fs::write(repo.join("src/main.rs"), main).unwrap();
    commit_all(repo, "a program running work");
    std::fs::write(
        repo.join("src/main.rs"),
        main.replace("0..100u64", "0..4000u64"),
    )
    .unwrap();
    commit_all(repo, "work does forty times the rounds");
}

/// A changed verdict whose timed code changed only where the commit rewrote it (`work`'s own
/// body) can name no function compiled differently from the same source: the build with line
/// tables that would look for one is not made (it took 190 of a 194-second run on fd, fat LTO,
/// to name nothing), and the verdict names none.
#[test]
fn a_changed_verdict_whose_functions_the_commit_rewrote_builds_nothing_to_name_them() {
    let (work, output) = compare_one_command("rounder", write_rounder, "work={bin}/rounder");
    let work = &work;
    assert_eq!(work["verdict"], "regressed", "{work:#}");
    let record = selection(work);
    assert_eq!(record["reason"], "reaches_change", "{work:#}");
    assert!(record["same_source"].is_null(), "{work:#}");
    assert!(
        !all_output(&output).contains("with line tables"),
        "{}",
        all_output(&output)
    );
}

/// A divan module of three benchmarks, appended to the demo's divan target; head renames `old`.
const DIVAN_RENAMED: &str = "
mod renamed {
    use super::*;

    #[divan::bench]
    fn kept() -> u64 {
        perfdiff_demo::mix(black_box(3))
    }

    #[divan::bench]
    fn also_kept() -> u64 {
        perfdiff_demo::mix(black_box(5))
    }

    #[divan::bench]
    fn old() -> u64 {
        perfdiff_demo::mix(black_box(7))
    }
}
";

/// Every `#[divan::bench]` registers its entry in a static constructor every process of the
/// target runs; a renamed benchmark's registration has no partner on the other side. It only
/// pushes that benchmark's entry onto divan's list, so the target's other benchmarks stay
/// `unchanged (same code)` (field trial facet-hash-fnv).
#[test]
fn a_renamed_divan_benchmark_leaves_its_target_s_other_benchmarks_the_same_code() {
    let guard = measuring_lock();
    let mut options = DemoOptions {
        harness: DemoHarness::Divan,
        ..strong_changes()
    };
    options.changes.add_benchmark = false;
    let (_dir, repo) = shared_demo_with(&guard, &options, "renamed divan benchmark", |repo| {
        let bench = repo.join("benches/demo.rs");
        let text = std::fs::read_to_string(&bench).unwrap();
        std::fs::write(&bench, format!("{text}{DIVAN_RENAMED}")).unwrap();
        commit_all(repo, "three divan benchmarks");
        let renamed = DIVAN_RENAMED.replace("fn old()", "fn new()");
        std::fs::write(&bench, format!("{text}{renamed}")).unwrap();
        commit_all(repo, "old is new");
    });
    let listing = list_set_up_shapes(&repo, "renamed::");
    for name in ["kept", "also_kept"] {
        let entry = bench_entry(&listing, &format!("demo::renamed::{name}"));
        let skipped = selection(entry);
        assert_eq!(skipped["reason"], "same_code", "{entry:#}");
        assert_eq!(skipped["measured"], false, "{entry:#}");
        let detail = skipped["detail"].as_str().unwrap();
        let note = "`demo::renamed::__DIVAN_BENCH_OLD::push` registers the divan benchmark \
                    `old`, in base only";
        assert!(detail.contains(note), "{entry:#}");
    }
    for (name, side) in [("old", "only_in_base"), ("new", "only_in_head")] {
        let entry = bench_entry(&listing, &format!("demo::renamed::{name}"));
        assert_eq!(entry["presence"], side, "{entry:#}");
    }
}
