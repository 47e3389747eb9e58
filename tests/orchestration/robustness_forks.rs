//! Robustness (issue #7) of forks and listings, on the deterministic fixture: benchmarks that
//! panic, exit non-zero or hang in one revision are reported `failed` with their stderr tail
//! while the rest of the suite is measured and no process is left behind; a bench target whose
//! set-up panics, is slow to list or ignores its command line is skipped or failed alone; data
//! git ignores is copied on request; ids and paths with spaces, unicode, slashes and shell
//! metacharacters are taken literally; an id two bench targets define is compared in each.
//! Moved from `end_to_end::robustness_forks`: what is tested is what the tool does with a fork
//! or a listing that misbehaves, which the fixture does on demand (`benchmarks.txt`'s `exit=`,
//! `hang`, `panic=`, `needs-file=`, `setup-ms=`, `deaf`), not a measurement.

use crate::bench_fixture::*;
use crate::processes;
use crate::support;

use std::path::Path;
use std::process::Output;

use support::*;

/// A fixture target `target` of the fixture repository with one benchmark, set by `line`.
fn add_target_with(repo: &Path, target: &str, line: &str) {
    add_fixture_target(repo, target, &[]);
    set_benchmark_in(&repo.join(format!("{target}.txt")), line);
}

/// The JSON report of a run that exited 0 and skipped bench target `target` first, and the
/// reason it gives.
fn skipped_first(output: &Output, target: &str) -> (serde_json::Value, String) {
    assert_eq!(output.status.code(), Some(0), "{}", stderr(output));
    let report = json_report(output);
    let skipped = &report["skipped_targets"];
    assert_eq!(skipped[0]["target"], target, "{skipped:#}");
    let reason = skipped[0]["reason"].as_str().unwrap().to_string();
    (report, reason)
}

#[test]
fn benchmarks_that_panic_exit_or_hang_fail_alone_and_leave_no_process() {
    let (_dir, repo) = fixture_repo(&unchanged());
    for id in ["fail/panics", "fail/exits", "fail/hangs"] {
        set_benchmark(&repo, &format!("{id} ns=1000"));
    }
    commit_all(&repo, "base: healthy benchmarks");
    set_benchmark(&repo, "fail/panics ns=1000 panic=all");
    set_benchmark(&repo, "fail/exits ns=1000 exit=3");
    set_benchmark(&repo, "fail/hangs ns=1000 hang");
    commit_all(&repo, "head: broken benchmarks");
    seed_criterion_results(&repo);
    let before = RepoState::capture(&repo);
    let marker = processes::marker("robustness-forks");

    let output = fixture_command(
        &repo,
        &quick(&[
            "HEAD~1",
            "HEAD",
            "--fork-timeout",
            "5",
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
        ("fail/panics", "fail/panics: fork"),
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
            .contains("5s"),
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

/// The line of a benchmark whose set-up (run when listing too) reads `bench-data/input.txt`.
const READS_DATA: &str = "setup/len ns=1000 needs-file=bench-data/input.txt";

#[test]
fn a_bench_target_whose_set_up_panics_fails_alone_and_the_rest_is_compared() {
    let (_dir, repo) = fixture_repo(&unchanged());
    std::fs::create_dir_all(repo.join("bench-data")).unwrap();
    std::fs::write(repo.join("bench-data/input.txt"), "four").unwrap();
    add_target_with(&repo, "setup", READS_DATA);
    commit_all(&repo, "base: a bench target reading its data");
    std::fs::remove_file(repo.join("bench-data/input.txt")).unwrap();
    commit_all(&repo, "head: the data is gone");
    let before = RepoState::capture(&repo);

    // Head cannot list the target: its benchmarks are `failed` there, the rest is measured.
    let output = fixture_perfdiff(&repo, &parent_vs_head_json(&["setup/", "hash/steady"]));
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
    let output = fixture_perfdiff(
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
    let (_dir, repo) = fixture_repo(&unchanged());
    // Its set-up takes a minute.
    add_target_with(&repo, "slow_setup", "slow_setup/len ns=1000 setup-ms=60000");
    commit_all(&repo, "a bench target slow to set up");

    // The listing is killed after the fork timeout, so the target is skipped with that reason
    // (with a fixed listing timeout it listed, and every fork of it then timed out).
    let args = quick(&[
        "HEAD",
        "HEAD",
        "--format",
        "json",
        "--fork-timeout",
        "5",
        "--",
        "hash/steady",
    ]);
    let (report, reason) = skipped_first(&fixture_perfdiff(&repo, &args), "slow_setup");
    assert!(
        reason.contains("no answer within 5s (--fork-timeout)"),
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
    let (_dir, repo) = fixture_repo(&unchanged());
    // curve25519-dalek's way: a hand-written main with `Criterion::default()`, which never reads
    // the arguments, so `--list` measures the whole suite (the fixture's `deaf`: for a minute).
    add_target_with(&repo, "deaf", "deaf/len ns=1000 deaf");
    commit_all(&repo, "a bench target that ignores its command line");

    // The default fork timeout is minutes: the target is skipped as soon as it starts measuring.
    let args = quick(&["HEAD", "HEAD", "--format", "json", "--", "hash/steady"]);
    let (report, reason) = skipped_first(&fixture_perfdiff(&repo, &args), "deaf");
    assert!(
        reason.contains("it began to measure instead (`Benchmarking deaf/len")
            && reason.contains("does not read the command line")
            && reason.contains("or a function `criterion_main!` calls"),
        "{reason}"
    );
    assert!(!reason.contains("--copy-untracked"), "{reason}");
    measured_entry(&report, "hash/steady", 2);
}

#[test]
fn data_git_ignores_is_copied_into_both_checkouts_on_request() {
    let (_dir, repo) = fixture_repo(&unchanged());
    std::fs::write(repo.join(".gitignore"), "target/\n/bench-data/\n").unwrap();
    add_target_with(&repo, "setup", READS_DATA);
    commit_all(&repo, "base: a bench target reading data git ignores");
    set_benchmark_in(&repo.join("setup.txt"), &READS_DATA.replace("1000", "1100"));
    commit_all(&repo, "head: another use of the data");
    std::fs::create_dir_all(repo.join("bench-data")).unwrap();
    std::fs::write(repo.join("bench-data/input.txt"), "four").unwrap();
    let before = RepoState::capture(&repo);
    let filters = ["setup/", "hash/steady"];

    // Without the option neither checkout has the data: skipped, saying what to do.
    let report = json_report(&fixture_perfdiff(&repo, &parent_vs_head_json(&filters)));
    let reason = report["skipped_targets"][0]["reason"]
        .as_str()
        .unwrap_or_default();
    assert!(reason.contains("--copy-untracked PATH"), "{report:#}");

    let copying = with_options(
        &parent_vs_head_json(&filters),
        &["--copy-untracked", "bench-data"],
    );
    let output = fixture_perfdiff(&repo, &copying);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report = json_report(&output);
    measured_entry(&report, "setup/len", 2);

    // A path git tracks would replace both revisions' versions: refused before any work.
    let tracked = with_options(
        &parent_vs_head_json(&["hash/steady"]),
        &["--copy-untracked", "benches"],
    );
    assert_clean_error(
        &fixture_perfdiff(&repo, &tracked),
        2,
        "--copy-untracked benches: git tracks benches/",
    );
    assert_eq!(RepoState::capture(&repo), before);
}

#[test]
fn ids_and_paths_with_spaces_unicode_slashes_and_metacharacters_are_literal() {
    let dir = own_target_scratch();
    // The repository's path is as odd as the id.
    let repo = dir.path().join("it's ü; $(touch PWNED) & `x` \"d\" [*]");
    fixture_repo_at(&repo, &unchanged());
    let odd = r#"a b/ü é; $(touch PWNED) `touch PWNED2` 'q' "d" *?[x] | & > out"#;
    let id = format!("odd/{odd}");
    set_benchmark(&repo, &format!("{id}\tns=1000"));
    commit_all(&repo, "odd benchmark id");
    set_benchmark(&repo, &format!("{id}\tns=1001"));
    commit_all(&repo, "touch");
    seed_criterion_results(&repo);
    let before = RepoState::capture(&repo);
    let output = fixture_perfdiff(&repo, &parent_vs_head_json(&["^odd/a b/ü é; "]));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report = json_report(&output);
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
    let output = fixture_perfdiff(
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
    let output = fixture_perfdiff(&repo, &quick(&["HEAD~1", "HEAD", "--", "odd/a b; $(touch"]));
    assert_clean_error(&output, 2, "odd/a b; $(touch");
    assert_eq!(RepoState::capture(&repo), before);
}

#[test]
fn an_id_defined_by_two_bench_targets_is_compared_in_each_under_its_target() {
    let (_dir, repo) = fixture_repo(&unchanged());
    // A second bench target that also defines hash/steady (and the fixture's other ids).
    let spec = std::fs::read_to_string(repo.join(SPEC)).unwrap();
    add_fixture_target(&repo, "twin", &[]);
    std::fs::write(repo.join("twin.txt"), spec).unwrap();
    commit_all(&repo, "a second bench target with the same ids");
    seed_criterion_results(&repo);
    let before = RepoState::capture(&repo);
    // A filter on the plain id selects both targets' benchmark.
    let output = fixture_perfdiff(&repo, &compare_json("HEAD~1", "HEAD", &["^hash/steady$"]));
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
