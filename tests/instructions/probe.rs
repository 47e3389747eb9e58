//! The native probe (`steps::reach::probe`) of a criterion benchmark of the trace fixture: it
//! ends at the benchmark's samples, so a changed function a fork enters only after them (a later
//! group's set-up) does not measure the benchmark, and one entered before them still does.

use std::path::Path;

use cargo_perfdiff::steps::reach::code::ChangedEntry;
use cargo_perfdiff::steps::reach::probe::{
    Ending, Probe, ProbeFailure, Timed, probe_benchmark_through, run_traced, timed_routines,
};

use super::trace::{CRITERION, fixture, function_range, request};

/// The entry of the fixture's function `name` (of the `crit` target), as the probe takes a
/// changed function's.
fn entry(name: &str) -> ChangedEntry {
    let (address, _) = function_range(fixture().executable("crit"), name);
    ChangedEntry {
        address,
        name: name.to_string(),
    }
}

/// Probes `id` of the `crit` target with breakpoints at the entries of `changed`.
fn probed(id: &str, changed: &[&str]) -> Probe {
    let (home, scratch) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let request = request("crit", CRITERION, id, home.path());
    let entries: Vec<ChangedEntry> = changed.iter().map(|name| entry(name)).collect();
    let helper = Path::new(env!("CARGO_BIN_EXE_cargo-perfdiff"));
    probe_benchmark_through(
        helper,
        &request,
        &entries,
        &Timed::default(),
        scratch.path(),
    )
}

#[test]
fn the_probe_of_a_criterion_benchmark_ends_at_its_samples() {
    // `after_every_benchmark` runs in the `later` group, after `alpha`'s samples: a fork
    // measuring `alpha` has sent them by then, so it does not measure `alpha`.
    match probed("alpha", &["after_every_benchmark"]) {
        Probe::NotReached {
            record: Some(record),
            ..
        } => assert!(!record.times_ns.is_empty()),
        // Every run ended at the samples, but shorter than a fork's on a busy machine.
        Probe::Failed(ProbeFailure::TooBusy { .. }) => {}
        other => panic!("{other:?}"),
    }
    // Entered before the samples: in the timed loop, and in the set-up before every
    // `bench_function`.
    for changed in ["alpha_work", "set_up_for_every_benchmark"] {
        let probe = probed("alpha", &[changed, "after_every_benchmark"]);
        assert_eq!(
            probe,
            Probe::Reached {
                name: changed.to_string()
            }
        );
    }
}

#[test]
fn the_helper_times_every_call_of_criterion_s_timed_routine() {
    // `alpha` run by criterion itself under the probe's tracer, its timed routine watched: a
    // span for each of the warm-up's batches, then one for each of its ten samples, whose wall
    // time holds the thread's running and waiting times (`coverage::Span`).
    let executable = fixture().executable("crit");
    let timed = Timed {
        routines: timed_routines(executable, CRITERION).unwrap(),
        same_outside: Vec::new(),
    };
    let args: Vec<std::ffi::OsString> = [
        "--bench",
        "--warm-up-time",
        "0.2",
        "--measurement-time",
        "0.1",
        "--sample-size",
        "10",
        "--noplot",
        "--discard-baseline",
        "^alpha$",
    ]
    .map(Into::into)
    .to_vec();
    let ending = run_traced(executable, &args, &[entry("beta_work")], &timed).unwrap();
    let Ending::Exited { code: 0, spans, .. } = ending else {
        panic!("{ending:?}");
    };
    assert!(spans.len() > 10, "{spans:?}");
    for span in &spans {
        assert!(
            span.running_ns + span.waiting_ns <= span.wall_ns + 1_000_000,
            "{span:?}"
        );
    }
    let wall_ms = |spans: &[cargo_perfdiff::steps::reach::probe::coverage::Span]| {
        spans.iter().map(|s| s.wall_ns).sum::<u64>() as f64 / 1e6
    };
    let (warm_up, samples) = spans.split_at(spans.len() - 10);
    // Criterion warms up until its batches' timed parts passed 200 ms, each inside its call.
    assert!(wall_ms(warm_up) >= 199.0, "{warm_up:?}");
    assert!(wall_ms(samples) > 0.0, "{samples:?}");
}
