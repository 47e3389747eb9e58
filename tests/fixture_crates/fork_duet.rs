//! Duet pairs of real forks: simultaneous, pinned to two CPUs, kept equally busy to the end.

use crate::fixture;

use std::time::{Duration, Instant};

use cargo_perfdiff::steps::fork::duet::{choose_cpus, run_pair};
use cargo_perfdiff::steps::fork::{ForkRequest, usable_cpus};

fn request(
    fixture: &fixture::Fixture,
    benchmark_id: &str,
    measurement_ms: u64,
    cpu: usize,
    home: &tempfile::TempDir,
) -> ForkRequest {
    ForkRequest {
        executable: fixture.executable.clone(),
        cwd: fixture.dir.clone(),
        env: vec![],
        benchmark_id: benchmark_id.to_string(),
        harness: Default::default(),
        warm_up: Duration::from_millis(50),
        measurement: Duration::from_millis(measurement_ms),
        sample_size: 10,
        harness_sample_size: None,
        timeout: Duration::from_secs(60),
        criterion_home: home.path().to_path_buf(),
        cpu: Some(cpu),
        command: None,
    }
}

fn two_cpus() -> Option<[usize; 2]> {
    if usable_cpus().len() < 2 {
        eprintln!("skipped: needs two usable CPUs");
        return None;
    }
    Some(choose_cpus(None).unwrap())
}

#[test]
fn a_pair_returns_two_records_pinned_to_two_cpus() {
    let Some([base_cpu, head_cpu]) = two_cpus() else {
        return;
    };
    let demo = fixture::criterion_demo();
    let home = tempfile::tempdir().unwrap();
    let base = request(demo, "hash/steady", 300, base_cpu, &home);
    let head = request(demo, "hash/steady", 300, head_cpu, &home);

    let pair = run_pair(&base, &head).unwrap();

    let base_record = pair.base.completed().unwrap_or_else(|| panic!("{pair:?}"));
    let head_record = pair.head.completed().unwrap_or_else(|| panic!("{pair:?}"));
    assert_ne!(base_cpu, head_cpu);
    assert_eq!(base_record.cpu, Some(base_cpu));
    assert_eq!(head_record.cpu, Some(head_cpu));
    assert_eq!(base_record.iters.len(), 10);
    assert_eq!(head_record.iters.len(), 10);
    // How well two CPU-bound forks stay in step depends on the load of the machine (criterion
    // sizes its measurement from a warm-up estimate); that they overlap at all shows they ran
    // at the same time. The barrier itself is checked with timer-bound benchmarks below.
    assert!(pair.overlap > 0.0, "{pair:?}");
}

#[test]
fn a_pair_released_together_measures_together() {
    let Some([base_cpu, head_cpu]) = two_cpus() else {
        return;
    };
    let benches = fixture::failing_benches();
    let home = tempfile::tempdir().unwrap();
    let base = request(benches, "ok/sleeps", 300, base_cpu, &home);
    let head = request(benches, "ok/sleeps", 300, head_cpu, &home);

    // Both start warming up within a millisecond, but criterion sizes each measurement from its
    // own warm-up, which scheduling delays on a busy machine can distort; so one pair in a few
    // may drift apart. A broken barrier (one side released after the other) never overlaps.
    let mut overlaps = Vec::new();
    for _attempt in 0..4 {
        let pair = run_pair(&base, &head).unwrap();
        assert!(pair.base.completed().is_some(), "{pair:?}");
        assert!(pair.head.completed().is_some(), "{pair:?}");
        overlaps.push(pair.overlap);
        if pair.overlap > 0.5 {
            return;
        }
    }
    panic!("no pair overlapped by more than half: {overlaps:?}");
}

#[test]
fn the_side_that_finishes_first_is_refilled_until_the_other_ends() {
    let Some([base_cpu, head_cpu]) = two_cpus() else {
        return;
    };
    let demo = fixture::criterion_demo();
    let home = tempfile::tempdir().unwrap();
    let short = request(demo, "hash/steady", 100, base_cpu, &home);
    let long = request(demo, "hash/mix", 2000, head_cpu, &home);

    let started = Instant::now();
    let pair = run_pair(&short, &long).unwrap();
    let elapsed = started.elapsed();

    assert!(pair.base.completed().is_some(), "{pair:?}");
    let long_record = pair.head.completed().unwrap_or_else(|| panic!("{pair:?}"));
    assert!(pair.fillers >= 1, "no filler ran: {pair:?}");
    // The filler is killed when the long side ends, not run to its own end.
    let long_wall = Duration::from_secs_f64(long_record.wall_ms.unwrap() / 1e3);
    assert!(
        elapsed < long_wall + Duration::from_secs(1),
        "{elapsed:?} vs {long_wall:?}"
    );
}

#[test]
fn a_failing_side_does_not_stop_the_other() {
    let Some([base_cpu, head_cpu]) = two_cpus() else {
        return;
    };
    let benches = fixture::failing_benches();
    let home = tempfile::tempdir().unwrap();
    let base = request(benches, "fail/panics", 100, base_cpu, &home);
    let head = request(benches, "ok/fast", 100, head_cpu, &home);

    let pair = run_pair(&base, &head).unwrap();

    let failure = pair.base.failure().unwrap_or_else(|| panic!("{pair:?}"));
    assert!(
        failure.message.contains("`fail/panics`"),
        "{}",
        failure.message
    );
    assert!(
        failure.stderr_tail.contains("deliberate panic"),
        "{failure:?}"
    );
    assert!(pair.head.completed().is_some(), "{pair:?}");
    assert_eq!(pair.overlap, 0.0);
}
