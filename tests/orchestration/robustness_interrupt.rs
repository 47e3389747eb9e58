//! Robustness (issue #7), interruption: Ctrl-C (SIGINT to the whole foreground process group, as
//! a terminal sends it) or SIGTERM (to cargo-perfdiff alone, as a CI runner sends it) in the
//! middle of a run exits 130, leaves no process behind, keeps the samples of completed forks in a
//! file that loads, and `--resume FILE` completes the run; a second run meanwhile refuses (the
//! lock); a crash (SIGKILL) too leaves a file that loads and resumes. The repository is unchanged.
//!
//! On the deterministic fixture (moved from `end_to_end::robustness_interrupt`): what is tested
//! is the run's handling of a signal, not a measurement. Its forks of `hash/mix` take half a
//! second each (`fork-ms=`) so that the signal arrives mid-run, and its build script sleeps a
//! minute so that the signal arrives while cargo builds.

use crate::bench_fixture::*;
use crate::support;

use crate::processes;

use std::path::Path;
use std::time::{Duration, Instant};

use cargo_perfdiff::model::samples::SampleFile;
use support::*;

const FORKS: usize = 6;

fn forks_saved(path: &Path) -> usize {
    SampleFile::load(path)
        .map(|file| {
            file.benchmarks
                .iter()
                .map(|b| b.base.forks.len() + b.head.forks.len())
                .sum()
        })
        .unwrap_or(0)
}

#[derive(Clone, Copy, Debug)]
enum Signal {
    /// SIGINT to the process group, like Ctrl-C in a terminal.
    CtrlC,
    /// SIGTERM to cargo-perfdiff's pid only.
    Term,
    /// SIGKILL to cargo-perfdiff's pid: a crash, no chance to clean up.
    Kill,
}

/// The fixture with `hash/mix`'s forks lasting half a second each, its time doubled in head.
fn slow_forks_repo() -> (Scratch, std::path::PathBuf) {
    let (dir, repo) = fixture_repo(&unchanged());
    set_benchmark(&repo, "hash/mix ns=5000 fork-ms=500");
    commit_all(&repo, "base: forks that last half a second");
    scale_benchmark(&repo, "hash/mix", 2.0);
    commit_all(&repo, "head: mix twice the time");
    (dir, repo)
}

fn interrupt_then_resume(signal: Signal) {
    let (dir, repo) = slow_forks_repo();
    let samples = dir.path().join("run samples ü.json");
    let samples_arg = samples.to_str().unwrap();
    seed_criterion_results(&repo);
    let before = RepoState::capture(&repo);
    let marker = processes::marker("robustness-interrupt");
    let forks = FORKS.to_string();
    let args = [
        "HEAD~1",
        "HEAD",
        "--warm-up-time",
        "0.05",
        "--measurement-time",
        "0.3",
        "--sample-size",
        "10",
        "--seed",
        "7",
        "--stop",
        "fixed",
        "--forks",
        &forks,
        // Cargo's build alone: relinking a layout each round would only slow the rounds.
        "--layouts",
        "1",
        "--fail-on",
        "never",
        "--format",
        "json",
    ];
    let mut first: Vec<&str> = args.to_vec();
    first.extend(["--samples", samples_arg, "--", "hash/mix"]);
    let mut command = fixture_command(&repo, &first);
    command.env(&marker.0, &marker.1);
    let mut child = spawn_in_own_group(command);
    let pid = child.id() as i32;

    let deadline = Instant::now() + Duration::from_secs(300);
    while forks_saved(&samples) == 0 {
        assert!(Instant::now() < deadline, "no fork was saved in time");
        if let Some(status) = child.try_wait().unwrap() {
            let output = child.wait_with_output().unwrap();
            panic!(
                "the run ended ({status}) before a fork was saved: {}",
                stderr(&output)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    // A second run in the same repository meanwhile refuses, touching nothing.
    let second = fixture_perfdiff(&repo, &quick(&["HEAD~1", "HEAD"]));
    assert_clean_error(&second, 2, "another cargo-perfdiff run");
    // SAFETY: plain kill(2) on a process (group) this test started.
    let sent = unsafe {
        match signal {
            Signal::CtrlC => libc::kill(-pid, libc::SIGINT),
            Signal::Term => libc::kill(pid, libc::SIGTERM),
            Signal::Kill => libc::kill(pid, libc::SIGKILL),
        }
    };
    assert_eq!(sent, 0, "kill failed");
    let output = child.wait_with_output().unwrap();
    let err = stderr(&output);
    if !matches!(signal, Signal::Kill) {
        assert_eq!(output.status.code(), Some(130), "{signal:?}: {err}");
        assert_no_panic_text(&err);
        assert!(err.contains("interrupted"), "{err}");
        assert!(err.contains(&format!("--resume {samples_arg}")), "{err}");
    }

    // After a crash the fork notices its runner is gone on its own.
    let deadline = Instant::now() + Duration::from_secs(10);
    while !processes::alive_with_marker(&marker).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(
        processes::alive_with_marker(&marker),
        Vec::<u32>::new(),
        "{signal:?} left processes behind"
    );
    let kept = forks_saved(&samples);
    assert!(kept >= 1, "the samples of completed forks are kept");
    assert!(
        kept < 2 * FORKS,
        "the run was interrupted before it finished"
    );
    assert_eq!(RepoState::capture(&repo), before, "{signal:?}");

    let mut resume: Vec<&str> = args.to_vec();
    resume.extend(["--resume", samples_arg, "--", "hash/mix"]);
    let output = fixture_perfdiff(&repo, &resume);
    assert_eq!(output.status.code(), Some(0), "resume: {}", stderr(&output));
    let report = json_report(&output);
    let mix = bench_entry(&report, "hash/mix");
    assert_eq!(mix["forks"]["base"], FORKS, "{mix:#}");
    assert_eq!(mix["forks"]["head"], FORKS, "{mix:#}");
    assert_eq!(forks_saved(&samples), 2 * FORKS);
    assert_eq!(RepoState::capture(&repo), before, "resume after {signal:?}");
}

#[test]
fn ctrl_c_mid_run_exits_130_keeps_samples_and_resumes() {
    interrupt_then_resume(Signal::CtrlC);
}

#[test]
fn sigterm_mid_run_exits_130_keeps_samples_and_resumes() {
    interrupt_then_resume(Signal::Term);
}

#[test]
fn a_crash_mid_run_leaves_a_readable_samples_file_that_resumes() {
    interrupt_then_resume(Signal::Kill);
}

/// Ctrl-C or SIGTERM while a revision builds: cargo and its compilers stop too, exit 130.
fn interrupt_during_build(signal: Signal) {
    let (_dir, repo) = fixture_repo(&unchanged());
    // A build script that says it started, then sleeps a minute: cargo is running when the
    // signal arrives.
    let started_file = repo.with_file_name("build-script-started");
    std::fs::write(
        repo.join("build.rs"),
        format!(
            "fn main() {{\n    std::fs::write({:?}, \"\").unwrap();\n    \
             std::thread::sleep(std::time::Duration::from_secs(60));\n}}\n",
            started_file.display().to_string()
        ),
    )
    .unwrap();
    commit_all(&repo, "base: a build that takes a minute");
    set_benchmark(&repo, "hash/mix ns=6000");
    commit_all(&repo, "head");
    seed_criterion_results(&repo);
    let before = RepoState::capture(&repo);
    let marker = processes::marker("robustness-interrupt-build");
    // Builds that no other repository's kept build serves: the interrupt is to find cargo running.
    let mut command = fixture_command(&repo, &quick(&["HEAD~1", "HEAD"]));
    command
        .env(&marker.0, &marker.1)
        .env(NO_SHARED_BUILDS.0, NO_SHARED_BUILDS.1);
    let mut child = spawn_in_own_group(command);
    let pid = child.id() as i32;
    // The first build script to run (base's) writes the file, then sleeps a minute.
    let deadline = Instant::now() + Duration::from_secs(120);
    while !started_file.exists() {
        assert!(Instant::now() < deadline, "the build did not start");
        assert!(child.try_wait().unwrap().is_none(), "the run ended early");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    // SAFETY: plain kill(2) on a process (group) this test started.
    let sent = unsafe {
        match signal {
            Signal::CtrlC => libc::kill(-pid, libc::SIGINT),
            Signal::Term => libc::kill(pid, libc::SIGTERM),
            Signal::Kill => unreachable!("a crash during the build is not tested"),
        }
    };
    assert_eq!(sent, 0, "kill failed");
    let started = Instant::now();
    let output = child.wait_with_output().unwrap();
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(130), "{signal:?}: {err}");
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "the interrupt waited for the build"
    );
    assert!(err.contains("interrupted"), "{err}");
    assert_no_panic_text(&err);
    let deadline = Instant::now() + Duration::from_secs(10);
    while !processes::alive_with_marker(&marker).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(
        processes::alive_with_marker(&marker),
        Vec::<u32>::new(),
        "cargo or its compilers were left running after {signal:?}"
    );
    assert_eq!(RepoState::capture(&repo), before);
}

#[test]
fn ctrl_c_during_the_build_exits_130_and_stops_cargo() {
    interrupt_during_build(Signal::CtrlC);
}

#[test]
fn sigterm_during_the_build_exits_130_and_stops_cargo() {
    interrupt_during_build(Signal::Term);
}
