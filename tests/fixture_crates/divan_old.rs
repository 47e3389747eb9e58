//! divan 0.1.14, older than the `--list --format terse` listing, on `fixtures/divan-old`: its
//! benchmark with `args` is listed one argument at a time, under the ids divan ≥ 0.1.18 lists
//! (`old::sum::8`), beside its plain benchmark and one whose name has `::` in it, a fork
//! measures each alone, and listing it twice runs its test mode once. And the native probe of one
//! of its benchmarks, whose helper must outlive the fork's stop once the value is read.

use crate::fixture;

use std::time::Duration;

use cargo_perfdiff::model::harness::Harness;
use cargo_perfdiff::model::samples::ForkRecord;
use cargo_perfdiff::steps::build::BenchExecutable;
use cargo_perfdiff::steps::discover::{
    Classified, HarnessKind, classify, list_again, list_benchmarks,
};
use cargo_perfdiff::steps::fork::{ForkOutcome, ForkRequest, run_fork};

/// The ids divan ≥ 0.1.18 would list for the fixture, in divan's order.
const IDS: [&str; 5] = [
    "old::by::name",
    "old::plain",
    "old::sum::1",
    "old::sum::8",
    "old::sum::64",
];

fn divan_old() -> &'static fixture::Fixture {
    static BUILT: std::sync::OnceLock<fixture::Fixture> = std::sync::OnceLock::new();
    BUILT.get_or_init(|| fixture::build("divan-old", "old"))
}

fn executable() -> BenchExecutable {
    divan_old().bench_executable("perfdiff-divan-old", "old")
}

/// One fork of benchmark `id`, measuring for 50 ms.
fn fork(id: &str) -> ForkOutcome {
    let built = divan_old();
    let home = tempfile::tempdir().unwrap();
    run_fork(&built.divan_fork(id, home.path())).unwrap()
}

#[test]
fn divan_old_lists_each_argument_as_a_benchmark_and_the_plain_one() {
    let exe = executable();
    assert_eq!(
        classify(&exe).unwrap(),
        Classified::Runs(HarnessKind::Divan)
    );
    let listing = list_benchmarks(HarnessKind::Divan, &exe, &[], Duration::from_secs(60)).unwrap();
    assert_eq!(listing.ids, IDS);
    assert_eq!(listing.unselectable, None, "{listing:?}");
    assert_eq!(listing.harness, Harness::Divan);
}

#[test]
fn divan_old_forks_measure_each_argument_alone() {
    for id in IDS {
        let outcome = fork(id);
        let Some(ForkRecord {
            times_ns, per_fork, ..
        }) = outcome.completed()
        else {
            panic!("{id} was not measured: {outcome:?}");
        };
        assert_eq!(times_ns.len(), 1, "{id}: one median per fork");
        assert!(times_ns[0] > 0.0, "{id}: {times_ns:?}");
        assert!(per_fork.is_some(), "{id}");
    }
    // The benchmark's own path selects none of its arguments: it is not an id of its own.
    let ForkOutcome::Failed(failure) = fork("old::sum") else {
        panic!("old::sum alone measured something");
    };
    assert!(
        failure.message.contains("matched no benchmark"),
        "{}",
        failure.message
    );
}

/// `executable` behind a script in `dir` that writes down the arguments of every run: the file
/// it writes them to, and the script's path.
#[cfg(unix)]
fn logging_script(
    dir: &std::path::Path,
    executable: &std::path::Path,
) -> (std::path::PathBuf, std::path::PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let (log, script) = (dir.join("calls"), dir.join("old"));
    let text = format!(
        "#!/bin/sh\necho \"$*\" >> '{}'\nexec '{}' \"$@\"\n",
        log.display(),
        executable.display()
    );
    std::fs::write(&script, text).unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    (log, script)
}

#[cfg(unix)]
#[test]
fn divan_old_runs_each_benchmark_in_its_test_mode_once_for_both_listings() {
    let mut exe = executable();
    let dir = tempfile::tempdir().unwrap();
    let (log, script) = logging_script(dir.path(), &exe.path);
    exe.path = script;
    let timeout = Duration::from_secs(60);
    let first = list_benchmarks(HarnessKind::Divan, &exe, &[], timeout).unwrap();
    let again = list_again(HarnessKind::Divan, &exe, &[], timeout, &first).unwrap();
    assert_eq!(first.ids, IDS);
    assert_eq!(again.ids, IDS);
    let calls = std::fs::read_to_string(&log).unwrap();
    // The one with `args` for its arguments, the others for their thread counts.
    let test_mode: Vec<&str> = calls.lines().filter(|l| l.starts_with("--test")).collect();
    assert_eq!(
        test_mode,
        [
            "--test ^old::sum::",
            "--test --exact old::by::name old::plain"
        ],
        "{calls}"
    );
}

/// The entry of the fixture's function `perfdiff_divan_old::never_run`, which no benchmark
/// enters (the ignored one's work), as the probe takes a changed function's.
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
fn never_run_entry(
    executable: &std::path::Path,
) -> cargo_perfdiff::steps::reach::code::ChangedEntry {
    use object::{Object, ObjectSymbol};
    let data = std::fs::read(executable).unwrap();
    let file = object::File::parse(&*data).unwrap();
    let symbol = file
        .symbols()
        .find(|s| {
            s.name().is_ok_and(|n| {
                format!("{:#}", rustc_demangle::demangle(n)) == "perfdiff_divan_old::never_run"
            })
        })
        .expect("the fixture's never_run function");
    cargo_perfdiff::steps::reach::code::ChangedEntry {
        address: symbol.address(),
        name: "perfdiff_divan_old::never_run".into(),
    }
}

/// A divan fork stops its process as soon as it has read the value line; under the native probe
/// that process is the probe's helper, which writes what it saw only once the benchmark has
/// ended. Here the benchmark lingers after its table far past the fork's timeout, so only a
/// helper that is asked to stop it, and outlives that, writes a result: one killed with the
/// benchmark wrote none ("its helper wrote no result"), and the benchmark stayed measured.
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
#[test]
fn divan_old_probe_helper_outlives_the_fork_s_stop() {
    use cargo_perfdiff::steps::reach::probe::{
        Probe, ProbeFailure, Timed, probe_benchmark_through,
    };
    let built = divan_old();
    let home = tempfile::tempdir().unwrap();
    let marker = crate::processes::marker("probe-divan-old");
    let request = ForkRequest {
        env: vec![
            ("PERFDIFF_FIXTURE_LINGER_MS".into(), "600000".into()),
            marker.clone(),
        ],
        ..built.divan_fork("old::plain", home.path())
    };
    let helper = std::path::Path::new(env!("CARGO_BIN_EXE_cargo-perfdiff"));
    let scratch = tempfile::tempdir().unwrap();
    let entries = [never_run_entry(&built.executable)];
    let probe = probe_benchmark_through(
        helper,
        &request,
        &entries,
        &Timed::default(),
        scratch.path(),
    );
    match probe {
        Probe::NotReached {
            record: Some(record),
            ..
        } => assert_eq!(record.times_ns.len(), 1),
        // Every run the helper stopped, but shorter than a fork's on a busy machine.
        Probe::Failed(ProbeFailure::TooBusy { .. }) => {}
        other => panic!("{other:?}"),
    }
    // The lingering benchmark was stopped: nothing of the probe is left running.
    assert_eq!(
        crate::processes::alive_with_marker(&marker),
        Vec::<u32>::new()
    );
}

/// `old::sum::1` takes about a nanosecond an iteration: divan tunes its sample size by its
/// slowest sample, so a slow first iteration leaves it at one iteration a sample, whole timer
/// ticks. Read from its own runs, it gets divan's rule applied to its median (at least a hundred
/// ticks a sample), and a fork given that size passes it to divan and records it.
#[cfg(unix)]
#[test]
fn a_benchmark_of_a_nanosecond_gets_samples_of_many_iterations_and_its_fork_keeps_them() {
    use cargo_perfdiff::steps::fork::divan_tune;
    let built = divan_old();
    let home = tempfile::tempdir().unwrap();
    let request = built.divan_fork("old::sum::1", home.path());
    let size = divan_tune::sample_size(&request)
        .unwrap()
        .expect("a nanosecond is far shorter than a hundred ticks of any timer");
    assert!(size >= 16, "{size}");
    let dir = tempfile::tempdir().unwrap();
    let (log, script) = logging_script(dir.path(), &request.executable);
    let outcome = run_fork(&ForkRequest {
        executable: script,
        harness_sample_size: Some(size),
        ..request
    })
    .unwrap();
    let Some(record) = outcome.completed() else {
        panic!("not measured: {outcome:?}");
    };
    assert_eq!(record.sample_iterations, Some(size), "{record:?}");
    assert!(record.times_ns[0] > 0.0, "{record:?}");
    let calls = std::fs::read_to_string(&log).unwrap();
    assert!(calls.contains(&format!("--sample-size {size}")), "{calls}");
}
