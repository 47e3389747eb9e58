//! Robustness (issue #7), measuring: benchmarks that panic, exit non-zero or hang in one revision
//! are reported `failed` with their stderr tail while the rest of the suite is measured and no
//! process is left behind; ids and paths with spaces, unicode, slashes and shell
//! metacharacters are taken literally. Benchmarks present on one side only (or moved to a
//! renamed bench target) are tested on the deterministic fixture, in `orchestration::robustness`.

use crate::support;

use crate::processes;

use cargo_perfdiff::orchestrate::demo::{DemoChanges, DemoOptions};
use support::*;

fn unchanged_demo() -> (Scratch, std::path::PathBuf) {
    demo_repo(&DemoOptions {
        changes: DemoChanges {
            mix: 1.0,
            checksum: 1.0,
            slight: 1.0,
            add_benchmark: false,
            new_benchmark_own_target: false,
        },
        ..Default::default()
    })
}

const HEALTHY: &str = "b.iter(|| black_box(20u64) * 3)";

#[test]
fn benchmarks_that_panic_exit_or_hang_fail_alone_and_leave_no_process() {
    let _guard = measuring_lock();
    let (_dir, repo) = unchanged_demo();
    add_bench_group(
        &repo,
        "fail",
        &[("panics", HEALTHY), ("exits", HEALTHY), ("hangs", HEALTHY)],
    );
    commit_all(&repo, "base: healthy benchmarks");
    replace_in(
        &repo,
        "benches/demo.rs",
        &format!(
            "group.bench_function(\"panics\", |b| {{ {HEALTHY} }});\n    \
             group.bench_function(\"exits\", |b| {{ {HEALTHY} }});\n    \
             group.bench_function(\"hangs\", |b| {{ {HEALTHY} }});"
        ),
        r#"group.bench_function("panics", |b| { b.iter(|| -> u64 { panic!("deliberate panic in fail/panics") }) });
    group.bench_function("exits", |b| { b.iter(|| { eprintln!("fail/exits: exiting with status 3"); std::process::exit(3) }) });
    group.bench_function("hangs", |b| {
        let _helper = std::process::Command::new("sleep").arg("60").spawn().unwrap();
        eprintln!("fail/hangs: started a helper");
        b.iter(|| std::thread::sleep(std::time::Duration::from_secs(60)))
    });"#,
    );
    commit_all(&repo, "head: broken benchmarks");
    seed_criterion_results(&repo);
    let before = RepoState::capture(&repo);
    let marker = processes::marker("robustness-forks");

    let output = perfdiff_command(
        &repo,
        &quick(&[
            "HEAD~1",
            "HEAD",
            "--fork-timeout",
            "3",
            "--fail-on",
            "inconclusive",
            "--format",
            "json",
            "--",
            "fail/",
            "hash/steady",
        ]),
    )
    .env(&marker.0, &marker.1)
    .output()
    .unwrap();
    let err = stderr(&output);
    assert_eq!(
        output.status.code(),
        Some(3),
        "failed benchmarks with --fail-on inconclusive exit 3; stderr: {err}"
    );
    assert_no_panic_text(&err);
    let report = json_report(&output);
    for (id, needle) in [
        ("fail/panics", "deliberate panic in fail/panics"),
        ("fail/exits", "exiting with status 3"),
        ("fail/hangs", "fail/hangs: started a helper"),
    ] {
        let entry = bench_entry(&report, id);
        assert_eq!(entry["verdict"], "failed", "{entry:#}");
        let failure = entry["failure"].as_str().unwrap_or_default();
        assert!(
            failure.contains("head"),
            "the failing side is named: {entry:#}"
        );
        assert!(failure.contains(needle), "stderr tail of {id}: {entry:#}");
    }
    assert!(
        bench_entry(&report, "fail/hangs")["failure"]
            .as_str()
            .unwrap()
            .contains("3"),
        "the timeout is named"
    );
    // The suite continues.
    measured_entry(&report, "hash/steady", 2);

    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while !processes::alive_with_marker(&marker).is_empty() && std::time::Instant::now() < deadline
    {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert_eq!(
        processes::alive_with_marker(&marker),
        Vec::<u32>::new(),
        "processes of the run are left behind"
    );
    assert_eq!(RepoState::capture(&repo), before);
}

/// The source of a bench target with one benchmark, `id`, whose set-up (outside `b.iter`, so
/// criterion runs it when it lists the benchmarks too) is `set_up`, binding `data`.
fn set_up_target(set_up: &str, id: &str) -> String {
    format!(
        "use criterion::{{criterion_group, criterion_main, Criterion}};

fn setup(c: &mut Criterion) {{
    {set_up}
    c.bench_function({id:?}, |b| b.iter(|| std::hint::black_box(data.len())));
}}

criterion_group!(benches, setup);
criterion_main!(benches);
"
    )
}

/// A bench target whose set-up reads a data file: without the file the whole target's listing
/// panics.
fn reads_data() -> String {
    set_up_target(
        r#"let data = std::fs::read_to_string("bench-data/input.txt").expect("bench-data/input.txt must exist");"#,
        "setup/len",
    )
}

/// The JSON report of a run that exited 0 and skipped bench target `target` first, and the
/// reason it gives.
fn skipped_first(output: &std::process::Output, target: &str) -> (serde_json::Value, String) {
    assert_eq!(output.status.code(), Some(0), "{}", stderr(output));
    let report = json_report(output);
    let skipped = &report["skipped_targets"];
    assert_eq!(skipped[0]["target"], target, "{skipped:#}");
    let reason = skipped[0]["reason"].as_str().unwrap().to_string();
    (report, reason)
}

#[test]
fn a_bench_target_whose_set_up_panics_fails_alone_and_the_rest_is_compared() {
    let _guard = measuring_lock();
    let (_dir, repo) = unchanged_demo();
    std::fs::create_dir_all(repo.join("bench-data")).unwrap();
    std::fs::write(repo.join("bench-data/input.txt"), "four").unwrap();
    add_bench_target(&repo, "setup", &reads_data());
    commit_all(&repo, "base: a bench target reading its data");
    std::fs::remove_file(repo.join("bench-data/input.txt")).unwrap();
    commit_all(&repo, "head: the data is gone");
    let before = RepoState::capture(&repo);

    // Head cannot list the target: its benchmarks are `failed` there, the rest is measured.
    let output = cargo_perfdiff(&repo, &parent_vs_head_json(&["setup/", "hash/steady"]));
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    assert_no_panic_text(&err);
    assert!(
        err.contains("listing the benchmarks of bench target `setup` failed"),
        "{err}"
    );
    let report = json_report(&output);
    let setup = bench_entry(&report, "setup/len");
    assert_eq!(setup["verdict"], "failed", "{setup:#}");
    let failure = setup["failure"].as_str().unwrap();
    assert!(
        failure.starts_with("head: listing the benchmarks"),
        "{failure}"
    );
    assert!(
        failure.contains("bench-data/input.txt must exist"),
        "{failure}"
    );
    // The rest continues.
    measured_entry(&report, "hash/steady", 2);

    // Neither revision can list it: skipped with the panic's message, the rest measured.
    let output = cargo_perfdiff(
        &repo,
        &quick(&["HEAD", "HEAD", "--format", "json", "--", "hash/steady"]),
    );
    let (report, reason) = skipped_first(&output, "setup");
    assert!(
        reason.contains("could not be listed in either revision")
            && reason.contains("bench-data/input.txt must exist"),
        "{reason}"
    );
    measured_entry(&report, "hash/steady", 2);
    assert_eq!(RepoState::capture(&repo), before);
}

#[test]
fn listing_a_bench_target_gets_the_fork_timeout() {
    let _guard = measuring_lock();
    let (_dir, repo) = unchanged_demo();
    // Its set-up takes three seconds.
    let slow = set_up_target(
        "std::thread::sleep(std::time::Duration::from_secs(3)); let data = [0u8; 3];",
        "slow_setup/len",
    );
    add_bench_target(&repo, "slow_setup", &slow);
    commit_all(&repo, "a bench target slow to set up");

    // The listing is killed after the fork timeout, so the target is skipped with that reason
    // (with a fixed listing timeout it listed, and every fork of it then timed out).
    let args = quick(&[
        "HEAD",
        "HEAD",
        "--format",
        "json",
        "--fork-timeout",
        "1",
        "--",
        "hash/steady",
    ]);
    let (report, reason) = skipped_first(&cargo_perfdiff(&repo, &args), "slow_setup");
    assert!(
        reason.contains("no answer within 1s (--fork-timeout)"),
        "{reason}"
    );
    assert!(
        !reason.contains("--copy-untracked"),
        "not a missing file: {reason}"
    );
    measured_entry(&report, "hash/steady", 2);
}

#[test]
fn a_bench_target_that_ignores_its_command_line_is_skipped_without_waiting() {
    let _guard = measuring_lock();
    let (_dir, repo) = unchanged_demo();
    // curve25519-dalek's way: a hand-written main with `Criterion::default()`, which never reads
    // the arguments, so `--list` measures the whole suite (here: for a minute).
    let ignores_args = r#"use criterion::Criterion;

fn main() {
    let mut c = Criterion::default().measurement_time(std::time::Duration::from_secs(60));
    c.bench_function("deaf/len", |b| b.iter(|| std::hint::black_box([0u8; 3].len())));
}
"#;
    add_bench_target(&repo, "deaf", ignores_args);
    commit_all(&repo, "a bench target that ignores its command line");

    // The default fork timeout is minutes: the target is skipped as soon as it starts measuring.
    let args = quick(&["HEAD", "HEAD", "--format", "json", "--", "hash/steady"]);
    let (report, reason) = skipped_first(&cargo_perfdiff(&repo, &args), "deaf");
    assert!(
        reason.contains("it began to measure instead (`Benchmarking deaf/len")
            && reason.contains("does not read the command line"),
        "{reason}"
    );
    assert!(!reason.contains("--copy-untracked"), "{reason}");
    measured_entry(&report, "hash/steady", 2);
}

#[test]
fn data_git_ignores_is_copied_into_both_checkouts_on_request() {
    let _guard = measuring_lock();
    let (_dir, repo) = unchanged_demo();
    std::fs::write(repo.join(".gitignore"), "/bench-data/\n").unwrap();
    add_bench_target(&repo, "setup", &reads_data());
    commit_all(&repo, "base: a bench target reading data git ignores");
    replace_in(&repo, "benches/setup.rs", "data.len()", "data.trim().len()");
    commit_all(&repo, "head: another use of the data");
    std::fs::create_dir_all(repo.join("bench-data")).unwrap();
    std::fs::write(repo.join("bench-data/input.txt"), "four").unwrap();
    let before = RepoState::capture(&repo);
    let filters = ["setup/", "hash/steady"];

    // Without the option neither checkout has the data: skipped, saying what to do.
    let report = json_report(&cargo_perfdiff(&repo, &parent_vs_head_json(&filters)));
    let reason = report["skipped_targets"][0]["reason"]
        .as_str()
        .unwrap_or_default();
    assert!(reason.contains("--copy-untracked PATH"), "{report:#}");

    let copying = with_options(
        &parent_vs_head_json(&filters),
        &["--copy-untracked", "bench-data"],
    );
    let output = cargo_perfdiff(&repo, &copying);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report = json_report(&output);
    measured_entry(&report, "setup/len", 2);

    // A path git tracks would replace both revisions' versions: refused before any work.
    let tracked = with_options(
        &parent_vs_head_json(&["hash/steady"]),
        &["--copy-untracked", "benches"],
    );
    assert_clean_error(
        &cargo_perfdiff(&repo, &tracked),
        2,
        "--copy-untracked benches: git tracks benches/",
    );
    assert_eq!(RepoState::capture(&repo), before);
}

#[test]
fn ids_and_paths_with_spaces_unicode_slashes_and_metacharacters_are_literal() {
    let _guard = measuring_lock();
    let dir = scratch();
    // The repository's path is as odd as the id.
    let repo = dir.path().join("it's ü; $(touch PWNED) & `x` \"d\" [*]");
    cargo_perfdiff::orchestrate::demo::create_demo_repo(&repo, &DemoOptions::default()).unwrap();
    let odd = r#"a b/ü é; $(touch PWNED) `touch PWNED2` 'q' "d" *?[x] | & > out"#;
    add_bench_group(&repo, "odd", &[(odd, HEALTHY)]);
    commit_all(&repo, "odd benchmark id");
    replace_in(
        &repo,
        "src/lib.rs",
        "pub const STEADY_ROUNDS: u64 = 2000;",
        "pub const STEADY_ROUNDS: u64 = 2001;",
    );
    commit_all(&repo, "touch");
    seed_criterion_results(&repo);
    let before = RepoState::capture(&repo);
    let output = cargo_perfdiff(&repo, &parent_vs_head_json(&["^odd/a b/ü é; "]));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report = json_report(&output);
    let id = format!("odd/{odd}");
    assert_eq!(
        report["benchmarks"].as_array().unwrap().len(),
        1,
        "{report:#}"
    );
    measured_entry(&report, &id, 2);
    for root in [dir.path(), &state_dir(&repo)] {
        for name in ["PWNED", "PWNED2", "out"] {
            assert!(!root.join(name).exists(), "a shell ran: {name}");
        }
    }
    // A report that cannot be written is refused before measuring, naming the path (spaces and
    // all).
    let blocker = dir.path().join("a file");
    std::fs::write(&blocker, "not a directory").unwrap();
    let unwritable = blocker.join("report.json");
    let output = cargo_perfdiff(
        &repo,
        &quick(&[
            "HEAD~1",
            "HEAD",
            "--output",
            unwritable.to_str().unwrap(),
            "--",
            "^odd/",
        ]),
    );
    assert_clean_error(&output, 2, "cannot write the report to");
    let err = stderr(&output);
    assert!(err.contains("a file/report.json"), "{err}");
    assert!(
        !err.contains("measuring"),
        "refused before measuring: {err}"
    );

    // A filter is a regex (as criterion takes it): one that is not is named, not guessed at.
    let output = cargo_perfdiff(&repo, &quick(&["HEAD~1", "HEAD", "--", "odd/a b; $(touch"]));
    assert_clean_error(&output, 2, "odd/a b; $(touch");
    assert_eq!(RepoState::capture(&repo), before);
}

#[test]
fn an_id_defined_by_two_bench_targets_is_compared_in_each_under_its_target() {
    let _guard = measuring_lock();
    let (_dir, repo) = unchanged_demo();
    // A second bench target that also defines hash/steady (and the demo's other ids).
    let bench = std::fs::read_to_string(repo.join("benches/demo.rs")).unwrap();
    add_bench_target(&repo, "twin", &bench);
    commit_all(&repo, "a second bench target with the same ids");
    seed_criterion_results(&repo);
    let before = RepoState::capture(&repo);
    // A filter on the plain id selects both targets' benchmark.
    let output = cargo_perfdiff(&repo, &compare_json("HEAD~1", "HEAD", &["^hash/steady$"]));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report = json_report(&output);
    assert_eq!(
        report["benchmarks"].as_array().unwrap().len(),
        2,
        "{report:#}"
    );
    let demo = measured_entry(&report, "demo::hash/steady", 2);
    assert_eq!(demo["target"], "demo");
    assert_eq!(demo["criterion_id"], "hash/steady");
    assert_eq!(verdict_of(&report, "twin::hash/steady"), "only_in_head");
    assert_eq!(RepoState::capture(&repo), before);
}
