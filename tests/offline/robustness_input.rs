//! Robustness, bad input (issue #7): every case is refused before any work with one clean line
//! naming what is wrong and saying what to do, exit code 2, and the user's repository untouched.
//! Nothing here builds or measures, so the whole file takes seconds.

use crate::support;

use std::path::Path;

use cargo_perfdiff::orchestrate::demo::DemoOptions;
use support::*;

/// Nothing was done: no state directory (worktrees, builds, samples) for `workspace`.
fn assert_no_work_done(workspace: &Path) {
    let state = state_dir(workspace);
    assert!(
        !state.join("worktrees").exists() && !state.join("runs").exists(),
        "work was done before the error: {} exists",
        state.display()
    );
}

#[test]
fn outside_a_git_repository_is_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let crate_dir = dir.path().join("no git here");
    std::fs::create_dir_all(crate_dir.join("src")).unwrap();
    std::fs::write(crate_dir.join("src/lib.rs"), "").unwrap();
    std::fs::write(
        crate_dir.join("Cargo.toml"),
        "[package]\nname = \"x\"\nversion = \"0.1.0\"\nedition = \"2021\"\n[workspace]\n",
    )
    .unwrap();
    let output = perfdiff_command(&crate_dir, &["HEAD~1", "HEAD"])
        .env("GIT_CEILING_DIRECTORIES", dir.path())
        .output()
        .unwrap();
    assert_clean_error(&output, 2, "not inside a git repository");
    assert!(
        stderr(&output).contains("no git here"),
        "{}",
        stderr(&output)
    );
    assert_no_work_done(&crate_dir);
}

#[test]
fn a_repository_without_cargo_toml_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("plain repo");
    std::fs::create_dir(&repo).unwrap();
    git_ok(&repo, &["init", "-q"]);
    std::fs::write(repo.join("README"), "no rust here\n").unwrap();
    commit_all(&repo, "one");
    let before = RepoState::capture(&repo);
    let output = cargo_perfdiff(&repo, &["HEAD", "HEAD"]);
    assert_clean_error(&output, 2, "Cargo.toml");
    assert!(
        stderr(&output).contains("plain repo"),
        "{}",
        stderr(&output)
    );
    assert_eq!(RepoState::capture(&repo), before);
}

#[test]
fn unknown_and_ambiguous_revisions_are_named() {
    let (_dir, repo) = demo_repo(&DemoOptions::default());
    // `v1` is both a branch (at base) and a tag (at head): refuse rather than guess.
    git_ok(&repo, &["branch", "v1", "HEAD~1"]);
    git_ok(&repo, &["tag", "v1", "HEAD"]);
    seed_criterion_results(&repo);
    let before = RepoState::capture(&repo);

    let output = cargo_perfdiff(&repo, &["no-such-branch", "HEAD"]);
    assert_clean_error(&output, 2, "unknown revision `no-such-branch`");
    assert_eq!(stderr(&output).lines().count(), 1, "{}", stderr(&output));

    let output = cargo_perfdiff(&repo, &["v1", "HEAD"]);
    assert_clean_error(&output, 2, "ambiguous revision `v1`");
    assert!(
        stderr(&output).contains("tag v1") && stderr(&output).contains("branch v1"),
        "{}",
        stderr(&output)
    );

    let output = cargo_perfdiff(&repo, &["HEAD~5..HEAD"]);
    assert_clean_error(&output, 2, "HEAD~5");

    let output = cargo_perfdiff(&repo, &["a", "b..c"]);
    assert_clean_error(&output, 2, "b..c");

    assert_eq!(RepoState::capture(&repo), before);
    assert_no_work_done(&repo);
}

#[test]
fn a_shallow_clone_missing_the_base_says_how_to_fetch_it() {
    let (dir, origin) = demo_repo(&DemoOptions::default());
    let clone = dir.path().join("shallow clone");
    let url = format!("file://{}", origin.display());
    git_ok(
        dir.path(),
        &["clone", "-q", "--depth", "1", &url, clone.to_str().unwrap()],
    );
    let before = RepoState::capture(&clone);
    let output = cargo_perfdiff(&clone, &["HEAD~1", "HEAD"]);
    assert_clean_error(&output, 2, "git fetch --deepen");
    assert!(stderr(&output).contains("HEAD~1"), "{}", stderr(&output));
    assert_eq!(RepoState::capture(&clone), before);
    assert_no_work_done(&clone);
}

#[test]
fn a_second_run_in_the_same_repository_refuses_while_the_first_holds_the_lock() {
    let (_dir, repo) = demo_repo(&DemoOptions::default());
    let state = state_dir(&repo);
    std::fs::create_dir_all(&state).unwrap();
    // The lock a running cargo-perfdiff holds: an OS lock on `<state>/lock`.
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(state.join("lock"))
        .unwrap();
    lock.lock().unwrap();
    let before = RepoState::capture(&repo);
    let output = cargo_perfdiff(&repo, &["HEAD~1", "HEAD"]);
    assert_clean_error(&output, 2, "another cargo-perfdiff run");
    assert!(!state.join("worktrees").exists(), "worktrees were touched");
    assert_eq!(RepoState::capture(&repo), before);
    drop(lock);
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path.to_str().unwrap().to_string()
}

const VALID: &str = r#"{"schema": "perfdiff-samples/1",
  "benchmarks": [{"id": "group/name",
    "base": {"forks": [{"iters": [7, 14], "times_ns": [7100.0, 14150.0]}]},
    "head": {"forks": [{"iters": [7, 14], "times_ns": [7300.0, 14700.0]}]}}]}"#;

#[test]
fn malformed_samples_files_are_named_with_the_position_or_field() {
    let dir = tempfile::tempdir().unwrap();
    let valid = write(dir.path(), "valid.json", VALID.as_bytes());
    let output = cargo_perfdiff(dir.path(), &["report", &valid, "--format", "json"]);
    assert!(output.status.success(), "{}", stderr(&output));

    let truncated = write(
        dir.path(),
        "cut short.json",
        &VALID.as_bytes()[..VALID.len() / 2],
    );
    let output = cargo_perfdiff(dir.path(), &["report", &truncated]);
    assert_clean_error(&output, 2, "cut short.json");
    assert!(stderr(&output).contains("line "), "{}", stderr(&output));

    let wrong_type = write(
        dir.path(),
        "wrong-type.json",
        VALID.replace("[7, 14]", "\"seven\"").as_bytes(),
    );
    let output = cargo_perfdiff(dir.path(), &["report", &wrong_type]);
    assert_clean_error(&output, 2, "wrong-type.json");
    assert!(stderr(&output).contains("line 3"), "{}", stderr(&output));

    let lengths = write(
        dir.path(),
        "lengths.json",
        VALID.replace("[7300.0, 14700.0]", "[7300.0]").as_bytes(),
    );
    let output = cargo_perfdiff(dir.path(), &["report", &lengths]);
    assert_clean_error(&output, 2, "head.forks[0]");

    let schema = write(
        dir.path(),
        "schema.json",
        VALID
            .replace("perfdiff-samples/1", "perfdiff-samples/9")
            .as_bytes(),
    );
    let output = cargo_perfdiff(dir.path(), &["report", &schema]);
    assert_clean_error(&output, 2, "schema");

    let binary = write(dir.path(), "binary.json", &[0xff, 0x00, 0xfe, b'{', 0x80]);
    let output = cargo_perfdiff(dir.path(), &["report", &binary]);
    assert_clean_error(&output, 2, "binary.json");

    let missing = dir.path().join("missing ü.json");
    let output = cargo_perfdiff(dir.path(), &["report", missing.to_str().unwrap()]);
    assert_clean_error(&output, 2, "missing ü.json");

    let output = cargo_perfdiff(dir.path(), &["report", dir.path().to_str().unwrap()]);
    assert_clean_error(&output, 2, "cannot read samples file");
}

#[test]
fn arbitrary_bytes_given_to_report_never_panic() {
    // The binary-level half of the property test in robustness_parsers.rs: a handful of
    // pseudo-random files, each one clean error line (or a report) and never a panic.
    let dir = tempfile::tempdir().unwrap();
    let mut state = 0x2545_F491_4F6C_DD1D_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for case in 0..6 {
        let len = (next() % 300) as usize;
        let mut bytes: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        if case % 2 == 1 {
            // Half of them start as a samples file, so the parser gets past the first byte.
            let keep = (next() as usize) % VALID.len();
            bytes = [&VALID.as_bytes()[..keep], &bytes[..]].concat();
        }
        let file = write(dir.path(), &format!("random-{case}.json"), &bytes);
        let output = cargo_perfdiff(dir.path(), &["report", &file, "--format", "json"]);
        let err = stderr(&output);
        assert_no_panic_text(&err);
        match output.status.code() {
            Some(2) => assert!(err.contains(&format!("random-{case}.json")), "{err}"),
            Some(0 | 1) => {}
            other => panic!("exit {other:?} for case {case}: {err}"),
        }
    }
}

#[test]
fn a_broken_cargo_toml_is_one_line_naming_the_file_and_position() {
    let (_dir, repo) = demo_repo(&DemoOptions::default());
    std::fs::write(repo.join("Cargo.toml"), "garbage [[\n").unwrap();
    let before = RepoState::capture(&repo);
    let output = cargo_perfdiff(&repo, &["HEAD~1", "HEAD"]);
    assert_clean_error(&output, 2, "Cargo.toml:1:9");
    let err = stderr(&output);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(!err.contains("caused by: |"), "no snippet fragments: {err}");
    assert_eq!(RepoState::capture(&repo), before);
}

#[test]
fn an_unwritable_report_path_is_refused_before_any_work() {
    let (dir, repo) = demo_repo(&DemoOptions::default());
    let before = RepoState::capture(&repo);
    // A regular file where the report's directory should be.
    let blocker = dir.path().join("a-file");
    std::fs::write(&blocker, "mine\n").unwrap();
    let report = blocker.join("report.json");
    let output = cargo_perfdiff(&repo, &["HEAD~1", "HEAD", "-o", report.to_str().unwrap()]);
    assert_clean_error(&output, 2, "cannot write the report to");
    assert!(stderr(&output).contains("a-file"), "{}", stderr(&output));
    // A directory given as the HTML page.
    let output = cargo_perfdiff(
        &repo,
        &["HEAD~1", "HEAD", "--html", dir.path().to_str().unwrap()],
    );
    assert_clean_error(&output, 2, "is a directory");
    assert_eq!(std::fs::read_to_string(&blocker).unwrap(), "mine\n");
    assert_eq!(RepoState::capture(&repo), before);
    assert_no_work_done(&repo);
}

#[test]
fn checking_the_report_path_leaves_no_file_and_keeps_an_existing_one() {
    let (dir, repo) = demo_repo(&DemoOptions::default());
    let existing = dir.path().join("old-report.md");
    std::fs::write(&existing, "previous report\n").unwrap();
    let fresh = dir.path().join("new/report.json");
    // An unknown revision fails after the check: the check itself must have left nothing behind.
    for path in [&existing, &fresh] {
        let output = cargo_perfdiff(&repo, &["no-such-branch", "-o", path.to_str().unwrap()]);
        assert_clean_error(&output, 2, "unknown revision");
    }
    assert_eq!(
        std::fs::read_to_string(&existing).unwrap(),
        "previous report\n"
    );
    assert!(!fresh.exists());
}
