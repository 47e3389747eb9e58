//! Real forks of the demo fixture: samples, effective configuration, no report files, and a
//! clear failure for an id that matches nothing; and a fork of a benchmark whose group sets its
//! own settings, recording what was asked beside what criterion used.

use crate::fixture;

use std::path::Path;
use std::time::Duration;

use cargo_perfdiff::steps::fork::{ForkOutcome, ForkRequest, run_fork};

fn request(benchmark_id: &str, criterion_home: &Path) -> ForkRequest {
    let demo = fixture::criterion_demo();
    ForkRequest {
        executable: demo.executable.clone(),
        cwd: demo.dir.clone(),
        env: vec![],
        benchmark_id: benchmark_id.to_string(),
        harness: Default::default(),
        warm_up: Duration::from_millis(50),
        measurement: Duration::from_millis(100),
        sample_size: 10,
        harness_sample_size: None,
        timeout: Duration::from_secs(60),
        criterion_home: criterion_home.to_path_buf(),
        cpu: None,
        command: None,
    }
}

/// [`request`] for benchmark `benchmark_id` of the failing-benches fixture.
fn failing_benches_request(benchmark_id: &str, criterion_home: &Path) -> ForkRequest {
    let benches = fixture::failing_benches();
    ForkRequest {
        executable: benches.executable.clone(),
        cwd: benches.dir.clone(),
        ..request(benchmark_id, criterion_home)
    }
}

#[test]
fn a_fork_returns_its_samples_and_the_effective_config_and_writes_no_reports() {
    let home = tempfile::tempdir().unwrap();
    let outcome = run_fork(&request("hash/steady", home.path())).unwrap();
    let ForkOutcome::Completed(record) = outcome else {
        panic!("hash/steady did not complete: {outcome:?}");
    };

    assert_eq!(record.iters.len(), 10);
    assert_eq!(record.times_ns.len(), 10);
    // Per iteration, not per sample (a sample of 10 ms is 10,000,000 ns): the fastest sample
    // where 2000 mix rounds take a few µs, and none near a whole sample's time however busy the
    // machine (one sample of 59 µs under a load of 11 on two cores, seen once).
    let per_iteration = record.per_iteration_ns();
    let fastest = per_iteration.iter().copied().fold(f64::INFINITY, f64::min);
    assert!(
        (500.0..50_000.0).contains(&fastest) && per_iteration.iter().all(|&ns| ns < 1_000_000.0),
        "implausible per-iteration times for 2000 mix rounds: {per_iteration:?}"
    );
    let config = record.config.as_ref().expect("effective config recorded");
    assert_eq!(config.sample_size, 10);
    assert_eq!(config.warm_up_ms, 50.0);
    assert_eq!(config.measurement_ms, 100.0);
    assert!(
        matches!(config.sampling.as_deref(), Some("linear" | "flat")),
        "{config:?}"
    );
    assert_eq!(record.cpu, None);
    assert!(
        record
            .started_unix_ms
            .is_some_and(|ms| ms > 1_600_000_000_000)
    );
    assert!(record.wall_ms.is_some_and(|ms| ms >= 50.0), "{record:?}");

    let demo = fixture::criterion_demo();
    assert!(
        !demo.dir.join("target/criterion").exists(),
        "criterion wrote reports into the package's target/criterion"
    );
    let written: Vec<_> = std::fs::read_dir(home.path()).unwrap().collect();
    assert!(
        written.is_empty(),
        "criterion wrote into CRITERION_HOME: {written:?}"
    );
}

#[test]
fn settings_a_benchmark_group_sets_in_code_win_and_both_are_recorded() {
    let home = tempfile::tempdir().unwrap();
    let outcome = run_fork(&failing_benches_request("own/settings", home.path())).unwrap();
    let ForkOutcome::Completed(record) = outcome else {
        panic!("own/settings did not complete: {outcome:?}");
    };
    let asked = record.asked.as_ref().expect("asked settings recorded");
    assert_eq!(
        (asked.sample_size, asked.warm_up_ms, asked.measurement_ms),
        (10, 50.0, 100.0)
    );
    let used = record.config.as_ref().expect("effective config recorded");
    assert_eq!(
        (used.sample_size, used.warm_up_ms, used.measurement_ms),
        (12, 30.0, 150.0)
    );
    assert_eq!(record.iters.len(), 12);
}

#[test]
fn samples_of_a_custom_measurement_record_its_unit() {
    let home = tempfile::tempdir().unwrap();
    let fork = |id: &str| match run_fork(&failing_benches_request(id, home.path())).unwrap() {
        ForkOutcome::Completed(record) => record,
        outcome => panic!("{id} did not complete: {outcome:?}"),
    };
    let ticks = fork("ticks/fast");
    assert_eq!(ticks.unit.as_deref(), Some("ticks"), "{ticks:?}");
    assert!(!ticks.times_ns.is_empty());
    // Criterion's own wall time is nanoseconds, recorded as no unit.
    assert_eq!(fork("ok/fast").unit, None);
}

#[test]
fn the_time_a_fork_spends_outside_its_benchmark_is_recorded() {
    let home = tempfile::tempdir().unwrap();
    // `prepared`'s set-up sleeps 300 ms in every process, also in a fork of `ok/fast`.
    let request = ForkRequest {
        env: vec![("PERFDIFF_FIXTURE_SETUP_MS".into(), "300".into())],
        ..failing_benches_request("ok/fast", home.path())
    };
    let ForkOutcome::Completed(record) = run_fork(&request).unwrap() else {
        panic!("ok/fast did not complete");
    };
    let (outside, wall) = (record.outside_ms.unwrap(), record.wall_ms.unwrap());
    assert!(
        (300.0..wall - 100.0).contains(&outside),
        "outside {outside} ms of {wall} ms: the set-up, not the 100 ms measured"
    );
}

#[test]
fn an_id_that_matches_nothing_fails_naming_it() {
    let home = tempfile::tempdir().unwrap();
    // A prefix of a real id: `--exact` must not match it.
    let outcome = run_fork(&request("hash/stead", home.path())).unwrap();
    let failure = outcome.failure().expect("an unknown id cannot complete");
    assert!(
        failure.message.contains("`hash/stead`"),
        "{}",
        failure.message
    );
    assert!(
        failure.message.contains("matched no benchmark"),
        "{}",
        failure.message
    );
}
