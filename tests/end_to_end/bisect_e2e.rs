//! End to end: `cargo perfdiff bisect` on histories of the demo crate, measured for real:
//! instruction counts and selection. The search itself (culprits, a broken commit, resuming,
//! `git bisect run`'s exit codes, what a step builds) is tested on the deterministic fixture,
//! in `orchestration::bisect`. The changes are large (4× and
//! 0.2× the work) and the threshold wide (±50 %): on a loaded 2-core machine two builds of the
//! same code were measured 15 % apart with intervals ±20 % wide, and the verdicts must not
//! depend on that.

use crate::support;

use std::path::Path;

use cargo_perfdiff::orchestrate::demo::{DemoChanges, DemoOptions};
use support::*;

/// The demo crate with nothing changed in its second commit.
fn unchanged() -> DemoOptions {
    DemoOptions {
        changes: DemoChanges::none(),
        ..DemoOptions::default()
    }
}

fn mix_four_times_slower(repo: &Path) {
    replace_in(
        repo,
        "src/lib.rs",
        "MIX_ROUNDS: u64 = 2000;",
        "MIX_ROUNDS: u64 = 8000;",
    );
    commit_all(repo, "mix: four times the rounds");
}

/// Commits hash/checksum at a fifth of its rounds.
fn checksum_five_times_faster(repo: &Path) {
    replace_in(
        repo,
        "src/lib.rs",
        "CHECKSUM_ROUNDS: u64 = 2500;",
        "CHECKSUM_ROUNDS: u64 = 500;",
    );
    commit_all(repo, "checksum: fewer rounds");
}

/// Removes the state of the bisections run in `repo` (`<state>/bisect`): their finished steps,
/// which a bisection of the same ends would replay instead of searching.
fn remove_bisections(repo: &Path) {
    let bisections = state_dir(repo).join("bisect");
    if bisections.exists() {
        std::fs::remove_dir_all(&bisections).unwrap();
    }
}

/// GOOD (the unchanged demo's head), then a commit of notes, a comment in the library, `mix`
/// at 3 % more rounds (the culprit, `HEAD~2`), and two more commits of notes (BAD).
fn commit_a_small_change_among_code_free_commits(repo: &Path) {
    write_notes(repo, "notes 1");
    commit_a_comment_in_the_library(repo);
    replace_in(
        repo,
        "src/lib.rs",
        "MIX_ROUNDS: u64 = 2000;",
        "MIX_ROUNDS: u64 = 2060;",
    );
    commit_all(repo, "mix: 3 % more rounds");
    write_notes(repo, "notes 2");
    write_notes(repo, "notes 3");
}

/// `bisect --metric instructions`: a 3 % change of the work, far below what this machine's noise
/// lets time see in a few forks, is named at its commit by the instruction counts (threshold
/// 0.2 %), among commits that change nothing the processor does.
///
/// On a repository kept from one run of the suite to the next (`shared_demo_with`): the
/// instructions metric names the functions behind each change it confirms, in a build with line
/// tables made per checkout, which a repository of the test's own compiled again on every run
/// (base and head at the confirmation, the culprit at its step). The bisection's own state (its
/// finished steps, which a second run would replay) is removed first: the search runs every time.
#[test]
fn bisect_with_instruction_counts_names_the_commit_of_a_small_change() {
    let guard = measuring_lock();
    let key = "a 3 % change among code-free commits";
    let (dir, repo) = shared_demo_with(
        &guard,
        &unchanged(),
        key,
        commit_a_small_change_among_code_free_commits,
    );
    remove_bisections(&repo);
    let good = rev_parse(&repo, "HEAD~5");
    let culprit = rev_parse(&repo, "HEAD~2");
    let before = RepoState::capture(&repo);

    let report_path = dir.path().join("bisect-instructions.json");
    let bisect = [
        "bisect",
        &good,
        "HEAD",
        "--metric",
        "instructions",
        "--format",
        "json",
        "--output",
        report_path.to_str().unwrap(),
        "--layouts",
        "1",
    ];
    // The tests' tiny settings (seed 7 too): each step's counts per iteration do not depend on
    // how long criterion measures under valgrind (fewer iterations, the same slope).
    let args = [&bisect[..], FAST, &["--", "hash/mix$"]].concat();
    let output = cargo_perfdiff(&repo, &args);
    let err = stderr(&output);
    let report: serde_json::Value = std::fs::read_to_string(&report_path)
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_else(|| panic!("no report: {err}"));
    assert_eq!(
        output.status.code(),
        Some(0),
        "culprit found: {report:#}\n{err}"
    );
    assert_eq!(report["verdict"], "culprit", "{report:#}");
    let results = report["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{report:#}");
    assert_eq!(results[0]["id"], "hash/mix (instructions)", "{report:#}");
    assert_eq!(results[0]["direction"], "regressed", "{report:#}");
    assert_eq!(results[0]["culprit"]["sha"], culprit.as_str(), "{report:#}");
    assert_eq!(RepoState::capture(&repo), before);
}

/// On a repository kept from one run of the suite to the next, as the instruction bisection's
/// (above): a warm run keeps its checkouts, the trace of `hash/mix` and the outcome of its probe
/// at the unrelated commit; the bisection's state is removed first, so the search runs.
#[test]
fn with_selection_a_step_that_executes_good_s_code_is_decided_without_measuring() {
    let guard = measuring_lock();
    // GOOD, then a commit that changes only hash/checksum's work, then hash/mix 4× slower (BAD).
    let (_dir, repo) = shared_demo_with(&guard, &unchanged(), "checksum, then mix", |repo| {
        checksum_five_times_faster(repo);
        mix_four_times_slower(repo);
    });
    remove_bisections(&repo);
    let good = rev_parse(&repo, "HEAD~2");
    let unrelated = rev_parse(&repo, "HEAD~1");
    let culprit = rev_parse(&repo, "HEAD");
    let mut args = vec!["bisect", &good, "HEAD", "--format", "json"];
    // Code layouts: selection compares the objects the build keeps for them. Four, each run
    // twice: the paired interval rests on the layout means (two would leave one degree of
    // freedom, and the confirmation inconclusive).
    args.extend_from_slice(&BISECT_FAST[..BISECT_FAST.len() - 6]);
    args.extend(["--layouts", "4", "--threshold", "0.5", "--max-forks", "8"]);
    args.extend(["--", "hash/mix"]);
    let output =
        output_logged(perfdiff_command(&repo, &args).env_remove("CARGO_PERFDIFF_MEASURE_ALL"));
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    let report = json_report(&output);
    assert_eq!(report["verdict"], "culprit", "{report:#}");
    assert_eq!(
        report["results"][0]["culprit"]["sha"],
        culprit.as_str(),
        "{report:#}"
    );
    let step = report["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["head"]["sha"] == unrelated.as_str())
        .unwrap_or_else(|| panic!("no step at the unrelated commit: {report:#}"));
    let mix = &step["benchmarks"][0];
    assert_eq!(mix["verdict"], "unchanged", "{step:#}");
    assert_eq!(mix["same_code"], true, "{step:#}");
    assert_eq!(mix["forks"], 0, "{step:#}");
}
