//! A divan benchmark that prints to standard output on each iteration (uutils' benchmarks run a
//! utility in-process, and it writes its result): divan draws the benchmark's node, then runs it,
//! so the benchmark's text follows the node's name on the same line, and divan's values come on a
//! line of their own after the last of it. `fixtures/trace-fixture`'s `dvprint` target.

use crate::fixture;

use std::time::Duration;

use cargo_perfdiff::model::harness::Harness;
use cargo_perfdiff::steps::discover::{HarnessKind, list_benchmarks};
use cargo_perfdiff::steps::fork::run_fork;
use cargo_perfdiff::steps::reach::trace::runs::{Mode, shows_run};

fn dvprint() -> &'static fixture::Fixture {
    static BUILT: std::sync::OnceLock<fixture::Fixture> = std::sync::OnceLock::new();
    BUILT.get_or_init(|| fixture::build_target("trace-fixture", "dvprint"))
}

#[test]
fn a_divan_benchmark_that_prints_is_measured_and_shown_to_run_in_test_mode() {
    let built = dvprint();
    let exe = built.bench_executable("trace-fixture", "dvprint");
    let listed = list_benchmarks(HarnessKind::Divan, &exe, &[], Duration::from_secs(120)).unwrap();
    assert_eq!(listed.ids, ["dvprint::loud::1", "dvprint::loud::2"]);
    let home = tempfile::tempdir().unwrap();
    for id in &listed.ids {
        let outcome = run_fork(&built.divan_fork(id, home.path())).unwrap();
        let record = outcome
            .completed()
            .unwrap_or_else(|| panic!("{id} was not measured: {outcome:?}"));
        assert!(record.times_ns[0] > 0.0, "{id}: {:?}", record.times_ns);
        let stdout = built.divan_test_mode_stdout(id);
        assert!(stdout.contains("/tmp/data.txt"), "{id} printed: {stdout}");
        assert!(
            shows_run(Harness::Divan, Mode::Test, id, &stdout),
            "{id}: {stdout}"
        );
    }
}
