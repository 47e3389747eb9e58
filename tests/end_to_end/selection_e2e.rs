//! Selection by reach, end to end: before any timing, the benchmarks whose executed code, data
//! and read files are the same on both sides are `unchanged` (same code) without a fork, and the
//! others say what changed that they reach (docs/selection.md). These tests run with selection on
//! (the suite's other tests set `CARGO_PERFDIFF_MEASURE_ALL`), on the demo whose head changes the
//! work of `mix`, `checksum` and `slight` and leaves `steady` alone.

use std::process::Output;

use crate::support;

use cargo_perfdiff::orchestrate::demo::DemoOptions;
use support::*;

/// The demo without the benchmark head adds: head changes three benchmarks' work constants and
/// nothing else, so `steady` executes the same code on both sides. (Adding a benchmark changes
/// the function that registers every benchmark of the group, which each of them executes.)
fn constants_only() -> DemoOptions {
    let mut options = strong_changes();
    options.changes.add_benchmark = false;
    options
}

/// `cargo perfdiff ARGS` in `repo` with selection on, at the default layouts (selection compares
/// code in the objects a build with layouts keeps; `quick` asks for one).
fn selecting(repo: &std::path::Path, args: &[&str]) -> Output {
    perfdiff_command(repo, &with_default_layouts(args))
        .env_remove("CARGO_PERFDIFF_MEASURE_ALL")
        .output()
        .expect("cargo runs")
}

/// `entry`'s selection record.
fn selection(entry: &serde_json::Value) -> &serde_json::Value {
    let selection = &entry["selection"];
    assert!(selection.is_object(), "no selection in {entry:#}");
    selection
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
fn measure_all_measures_every_benchmark_and_records_no_selection() {
    let guard = measuring_lock();
    let (_dir, repo) = shared_demo(&guard, &constants_only());
    let mut args = parent_vs_head_json(&["steady"]);
    args.insert(0, "--measure-all");
    let report = json_report(&selecting(&repo, &args));
    let steady = measured_entry(&report, "hash/steady", 2);
    assert!(steady.get("selection").is_none(), "{steady:#}");
}

#[test]
fn a_comment_only_commit_measures_nothing() {
    let _guard = measuring_lock();
    let (_dir, repo) = demo_repo(&constants_only());
    commit_a_comment_in_the_library(&repo);
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
        err.contains("4 of 4 benchmark(s) execute the same code"),
        "{err}"
    );
}

#[test]
fn a_file_the_benchmark_reads_at_run_time_is_compared_between_the_checkouts() {
    let _guard = measuring_lock();
    let (_dir, repo) = demo_repo(&constants_only());
    std::fs::create_dir_all(repo.join("data")).unwrap();
    std::fs::write(repo.join("data/input.txt"), "1 2 3\n").unwrap();
    add_bench_group(
        &repo,
        "io",
        &[(
            "read",
            "b.iter(|| std::fs::read(\"data/input.txt\").map(|d| d.len()).unwrap_or(0))",
        )],
    );
    commit_all(&repo, "a benchmark that reads its input");
    std::fs::write(repo.join("data/input.txt"), "1 2 3 4\n").unwrap();
    commit_all(&repo, "other input");
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
}

#[test]
fn list_says_what_a_run_would_measure_and_why() {
    let guard = measuring_lock();
    let (_dir, repo) = shared_demo(&guard, &constants_only());
    let output = selecting(&repo, &["HEAD~1", "HEAD", "--list", "--", "mix", "steady"]);
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

    let output = selecting(
        &repo,
        &[
            "HEAD~1", "HEAD", "--list", "--format", "json", "--", "steady",
        ],
    );
    let listing: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let steady = &listing["benchmarks"][0];
    assert_eq!(steady["selection"]["reason"], "same_code", "{listing:#}");
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
