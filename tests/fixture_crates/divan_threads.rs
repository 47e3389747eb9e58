//! divan 0.1.21's benchmarks run at several thread counts (`threads = [1, 2]`), on
//! `fixtures/trace-fixture`'s `dv` target: each count is listed as a benchmark of its own
//! (`dv::gamma::t=1`), which a fork measures alone, and which the trace's test-mode run selects.

use crate::fixture;

use std::time::Duration;

use cargo_perfdiff::model::harness::Harness;
use cargo_perfdiff::steps::build::BenchExecutable;
use cargo_perfdiff::steps::discover::{HarnessKind, list_again, list_benchmarks};
use cargo_perfdiff::steps::fork::run_fork;
use cargo_perfdiff::steps::reach::trace::runs::{Mode, shows_run};

fn dv() -> &'static fixture::Fixture {
    static BUILT: std::sync::OnceLock<fixture::Fixture> = std::sync::OnceLock::new();
    BUILT.get_or_init(|| fixture::build_target("trace-fixture", "dv"))
}

fn executable() -> BenchExecutable {
    dv().bench_executable("trace-fixture", "dv")
}

#[test]
fn divan_threads_are_listed_one_benchmark_per_count_and_measured_alone() {
    let exe = executable();
    let timeout = Duration::from_secs(120);
    let first = list_benchmarks(HarnessKind::Divan, &exe, &[], timeout).unwrap();
    let sorted = |ids: &[String]| {
        let mut ids = ids.to_vec();
        ids.sort();
        ids
    };
    let ids = ["dv::alpha", "dv::beta", "dv::gamma::t=1", "dv::gamma::t=2"];
    assert_eq!(sorted(&first.ids), ids);
    let again = list_again(HarnessKind::Divan, &exe, &[], timeout, &first).unwrap();
    assert_eq!(again.ids, first.ids);
    let built = dv();
    let home = tempfile::tempdir().unwrap();
    for id in ["dv::gamma::t=1", "dv::gamma::t=2"] {
        let outcome = run_fork(&built.divan_fork(id, home.path())).unwrap();
        let record = outcome
            .completed()
            .unwrap_or_else(|| panic!("{id} was not measured: {outcome:?}"));
        assert_eq!(record.times_ns.len(), 1, "{id}");
        assert!(record.times_ns[0] > 0.0, "{id}: {:?}", record.times_ns);
        // Selection's run in divan's test mode selects that count, and shows it ran.
        let stdout = built.divan_test_mode_stdout(id);
        assert!(
            shows_run(Harness::Divan, Mode::Test, id, &stdout),
            "{id}: {stdout}"
        );
        assert!(!stdout.contains("alpha"), "{id} ran alone: {stdout}");
    }
}
