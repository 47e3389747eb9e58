//! Forks of the harnesses that print a summary (libtest `#[bench]` here, whose line `bencher`
//! prints too): shell scripts stand in for bench executables, so each outcome is produced by a
//! real process: a value read from the output, a process stopped once its value is in, a panic,
//! a benchmark the filter does not match, a hang, and a held fork that starts only when released.
#![cfg(unix)]

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use cargo_perfdiff::model::harness::{Harness, PerFork};
use cargo_perfdiff::steps::fork::{Fork, ForkOutcome, ForkRequest, run_fork};

/// A fork of benchmark `hash::mix` run by a script with `body` in `dir`.
fn request(dir: &Path, body: &str, timeout: Duration) -> ForkRequest {
    let executable = dir.join("bench-script");
    fs::write(&executable, format!("#!/bin/sh\n{body}\n")).unwrap();
    fs::set_permissions(&executable, fs::Permissions::from_mode(0o755)).unwrap();
    ForkRequest {
        executable,
        cwd: dir.to_path_buf(),
        env: vec![],
        benchmark_id: "hash::mix".to_string(),
        harness: Harness::Libtest,
        warm_up: Duration::from_millis(50),
        measurement: Duration::from_millis(100),
        sample_size: 10,
        harness_sample_size: None,
        timeout,
        criterion_home: dir.to_path_buf(),
        cpu: None,
        command: None,
    }
}

fn outcome(body: &str, timeout: Duration) -> ForkOutcome {
    let dir = tempfile::tempdir().unwrap();
    run_fork(&request(dir.path(), body, timeout)).unwrap()
}

fn failure_message(body: &str, timeout: Duration) -> String {
    match outcome(body, timeout) {
        ForkOutcome::Failed(failure) => format!("{} | {}", failure.message, failure.stderr_tail),
        ForkOutcome::Completed(record) => panic!("completed: {record:?}"),
    }
}

#[test]
fn the_value_of_its_own_line_is_the_fork_s_one_sample_and_the_command_line_is_exact() {
    let body = r#"[ "$*" = "--bench --exact hash::mix" ] || { echo "bad args: $*" >&2; exit 9; }
echo "running 1 test"
echo "test hash::mixer   ... bench:          99.00 ns/iter (+/- 1)"
echo "test hash::mix     ... bench:       1,234.50 ns/iter (+/- 12)""#;
    match outcome(body, Duration::from_secs(20)) {
        ForkOutcome::Completed(record) => {
            assert_eq!(record.times_ns, [1234.5]);
            assert_eq!(record.iters, [1.0]);
            assert_eq!(record.per_fork, Some(PerFork::Median));
            assert!(record.wall_ms.is_some());
        }
        ForkOutcome::Failed(failure) => panic!("{failure:?}"),
    }
}

#[test]
fn the_process_is_stopped_as_soon_as_its_value_is_read() {
    let started = Instant::now();
    let body = "echo 'test hash::mix ... bench: 10 ns/iter (+/- 1)'\nsleep 30";
    assert!(matches!(
        outcome(body, Duration::from_secs(60)),
        ForkOutcome::Completed(_)
    ));
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "took {:?}",
        started.elapsed()
    );
}

#[test]
fn a_panic_fails_the_fork_with_its_message() {
    let message = failure_message(
        "echo \"thread 'main' panicked at benches/b.rs:3:5: no fixture\" >&2\nexit 101",
        Duration::from_secs(20),
    );
    assert!(
        message.contains("libtest benchmark `hash::mix` (bench-script)")
            && message.contains("panicked")
            && message.contains("no fixture"),
        "{message}"
    );
}

#[test]
fn a_run_that_prints_no_result_for_the_benchmark_says_what_it_ran() {
    let message = failure_message(
        "echo 'running 0 tests'\necho 'test result: ok. 0 passed'",
        Duration::from_secs(20),
    );
    assert!(
        message.contains("matched no benchmark")
            && message.contains("`bench-script --bench --exact hash::mix` printed no result"),
        "{message}"
    );
}

#[test]
fn a_hanging_benchmark_is_killed_at_the_timeout() {
    let started = Instant::now();
    let message = failure_message("echo 'thinking' >&2\nsleep 30", Duration::from_millis(300));
    assert!(
        message.contains("did not finish within the fork timeout"),
        "{message}"
    );
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[test]
fn a_hanging_benchmark_is_not_said_to_be_running() {
    let message = failure_message("sleep 30", Duration::from_millis(800));
    assert!(
        message.contains("and was killed |") && !message.contains("still running"),
        "{message}"
    );
}

#[test]
fn a_benchmark_busy_at_the_timeout_is_said_to_be_still_running_not_hung() {
    // mime_guess's `from_ext uppercased` (field trial `mg-cda`) ran at full CPU past the fork
    // timeout; the message said "hung".
    let message = failure_message("while :; do :; done", Duration::from_millis(1500));
    assert!(
        message.contains(
            "did not finish within the fork timeout of 1.5s and was killed (still running, on a CPU"
        ) && message.contains("not hung")
            && message.contains("`--fork-timeout`"),
        "{message}"
    );
}

#[test]
fn a_held_fork_starts_its_executable_only_when_released() {
    let dir = tempfile::tempdir().unwrap();
    let started_file = dir.path().join("started");
    let body = format!(
        "touch '{}'\necho 'test hash::mix ... bench: 7 ns/iter (+/- 0)'",
        started_file.display()
    );
    let req = request(dir.path(), &body, Duration::from_secs(20));
    let mut fork = Fork::launch_held(&req).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        !started_file.exists(),
        "the held fork ran before its release"
    );
    fork.release();
    let finished = fork.finish(&AtomicBool::new(false)).unwrap();
    assert!(started_file.exists());
    match finished.outcome {
        ForkOutcome::Completed(record) => assert_eq!(record.times_ns, [7.0]),
        ForkOutcome::Failed(failure) => panic!("{failure:?}"),
    }
}
