//! Forks of benchmarks that panic, exit non-zero or hang: each becomes a failure with the stderr
//! tail, and a hanging benchmark's whole process tree is killed.

use crate::fixture;
use crate::processes;

use std::time::{Duration, Instant};

use cargo_perfdiff::model::samples::FailureRecord;
use cargo_perfdiff::steps::fork::{ForkOutcome, ForkRequest, run_fork};

fn request(benchmark_id: &str, timeout: Duration) -> (ForkRequest, tempfile::TempDir) {
    let benches = fixture::failing_benches();
    let home = tempfile::tempdir().unwrap();
    let request = ForkRequest {
        executable: benches.executable.clone(),
        cwd: benches.dir.clone(),
        env: vec![],
        benchmark_id: benchmark_id.to_string(),
        harness: Default::default(),
        warm_up: Duration::from_millis(50),
        measurement: Duration::from_millis(100),
        sample_size: 10,
        harness_sample_size: None,
        timeout,
        criterion_home: home.path().to_path_buf(),
        cpu: None,
        command: None,
    };
    (request, home)
}

fn failure_of(benchmark_id: &str) -> FailureRecord {
    let (request, _home) = request(benchmark_id, Duration::from_secs(60));
    match run_fork(&request).unwrap() {
        ForkOutcome::Failed(failure) => failure,
        ForkOutcome::Completed(record) => panic!("{benchmark_id} completed: {record:?}"),
    }
}

#[test]
fn a_panicking_benchmark_fails_with_its_panic_message() {
    let failure = failure_of("fail/panics");
    assert!(
        failure.message.contains("`fail/panics`"),
        "{}",
        failure.message
    );
    assert!(failure.message.contains("panicked"), "{}", failure.message);
    assert!(
        failure
            .stderr_tail
            .contains("deliberate panic in fail/panics"),
        "{failure:?}"
    );
}

#[test]
fn a_benchmark_exiting_non_zero_fails_with_its_status() {
    let failure = failure_of("fail/exits");
    assert!(
        failure.message.contains("`fail/exits`"),
        "{}",
        failure.message
    );
    assert!(
        failure.message.contains("exit status 3"),
        "{}",
        failure.message
    );
    assert!(
        failure.stderr_tail.contains("exiting with status 3"),
        "{failure:?}"
    );
}

#[test]
fn a_hanging_benchmark_is_killed_with_its_children_at_the_timeout() {
    let (mut request, _home) = request("fail/hangs", Duration::from_secs(3));
    let marker = processes::marker("hangs");
    request.env.push(marker.clone());
    let started = Instant::now();
    let failure = match run_fork(&request).unwrap() {
        ForkOutcome::Failed(failure) => failure,
        ForkOutcome::Completed(record) => panic!("fail/hangs completed: {record:?}"),
    };
    let elapsed = started.elapsed();

    assert!(
        failure.message.contains("`fail/hangs`"),
        "{}",
        failure.message
    );
    assert!(
        failure.message.contains("fork timeout of 3s"),
        "{}",
        failure.message
    );
    // It sleeps: hung, not a benchmark still running at the timeout.
    assert!(
        failure
            .message
            .contains("(hung before or while warming up)"),
        "{}",
        failure.message
    );
    assert!(elapsed < Duration::from_secs(6), "took {elapsed:?}");
    // The benchmark reported its own pid and its helper's; both must be gone.
    let line = failure
        .stderr_tail
        .lines()
        .find(|line| line.starts_with("fail/hangs: pid"))
        .unwrap_or_else(|| panic!("no pid line in stderr tail: {failure:?}"));
    let pids: Vec<u32> = line
        .split_whitespace()
        .filter_map(|word| word.parse().ok())
        .collect();
    assert_eq!(pids.len(), 2, "{line}");
    for pid in pids {
        assert!(
            !processes::is_alive(pid),
            "process {pid} survived the fork ({line})"
        );
    }
    assert_eq!(processes::alive_with_marker(&marker), Vec::<u32>::new());
}

#[test]
fn the_healthy_benchmark_of_the_same_executable_completes() {
    let (request, _home) = request("ok/fast", Duration::from_secs(60));
    let outcome = run_fork(&request).unwrap();
    let record = outcome.completed().unwrap_or_else(|| panic!("{outcome:?}"));
    assert_eq!(record.iters.len(), 10);
}

#[cfg(unix)]
#[test]
fn what_a_failing_benchmark_printed_on_stdout_is_quoted_too() {
    // Older criterion (clap 2) prints argument errors on stdout, not stderr.
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("bench-on-stdout");
    std::fs::write(
        &script,
        "#!/bin/sh\necho \"error: Invalid value: The argument '0.05' isn't a valid value\"\nexit 1\n",
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (mut request, _home) = request("any/id", Duration::from_secs(60));
    request.executable = script;
    request.cwd = dir.path().to_path_buf();
    let ForkOutcome::Failed(failure) = run_fork(&request).unwrap() else {
        panic!("the script cannot complete a fork");
    };
    assert!(
        failure.stderr_tail.contains("isn't a valid value"),
        "{failure:?}"
    );
}
