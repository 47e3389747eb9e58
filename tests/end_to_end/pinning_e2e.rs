//! Benchmarks that pin themselves to a CPU (simd-json's `core_affinity::set_for_current(
//! core_ids[0])`): selection's native probes, run one per CPU at once, put two of them on CPU 0,
//! where each had about half of it and was judged "too busy"; and both sides of a duet pair
//! end up on the one CPU such a benchmark pins itself to
//! (docs/design/selection-trace.md, "Benchmarks that pin themselves").

use std::path::Path;
use std::process::Output;

use crate::support;

use support::*;

/// The demo's library with a function that pins the calling thread to CPU 0, as simd-json's
/// benchmarks do, and one only a benchmark of another group calls.
const PINNING_LIBRARY: &str = "
/// Pins the calling thread to CPU 0 (`sched_setaffinity`), as a benchmark that sets its own CPU
/// affinity does.
pub fn pin_to_cpu_zero() {
    extern \"C\" {
        fn sched_setaffinity(pid: i32, size: usize, mask: *const u64) -> i32;
    }
    let mask = [1u64];
    // SAFETY: the mask is ours and as long as the size passed.
    unsafe {
        sched_setaffinity(0, std::mem::size_of_val(&mask), mask.as_ptr());
    }
}

/// What only `elsewhere/changed` calls: the change the pinned benchmarks do not reach.
#[inline(never)]
pub fn elsewhere(x: u64) -> u64 {
    x.wrapping_mul(3)
}
";

/// Three benchmarks that pin themselves to CPU 0 and set their own measurement time, as
/// simd-json's groups do (criterion keeps it, so a probe cannot run longer to make up for
/// waiting: only a run that had its CPU 90 % of the time counts), two alike that do not pin
/// themselves, and one that calls `elsewhere`.
const PINNED_GROUPS: &str = "fn extra_pinned(c: &mut Criterion) {
    let mut group = c.benchmark_group(\"pinned\");
    group.measurement_time(std::time::Duration::from_millis(100));
    for name in [\"one\", \"two\", \"three\"] {
        group.bench_function(name, |b| {
            perfdiff_demo::pin_to_cpu_zero();
            b.iter(|| mix(black_box(200)))
        });
    }
    group.finish();
    let mut beside = c.benchmark_group(\"beside\");
    beside.measurement_time(std::time::Duration::from_millis(100));
    for name in [\"one\", \"two\"] {
        beside.bench_function(name, |b| b.iter(|| mix(black_box(200))));
    }
    beside.finish();
    let mut other = c.benchmark_group(\"elsewhere\");
    other.bench_function(\"changed\", |b| b.iter(|| perfdiff_demo::elsewhere(black_box(7))));
    other.finish();
}

";

/// On the demo: a commit adding [`PINNING_LIBRARY`] and [`PINNED_GROUPS`], then one that
/// changes `elsewhere`, which no pinned benchmark reaches.
fn commit_pinned_benchmarks(repo: &Path) {
    let library = repo.join("src/lib.rs");
    let text = std::fs::read_to_string(&library).unwrap();
    std::fs::write(&library, format!("{text}{PINNING_LIBRARY}")).unwrap();
    let bench = repo.join("benches/demo.rs");
    let text = std::fs::read_to_string(&bench).unwrap();
    let (before, after) = text
        .split_once("criterion_group!(benches, ")
        .expect("the demo bench has a criterion_group!");
    std::fs::write(
        &bench,
        format!("{before}{PINNED_GROUPS}criterion_group!(benches, extra_pinned, {after}"),
    )
    .unwrap();
    commit_all(repo, "benchmarks that pin themselves to CPU 0");
    let text = std::fs::read_to_string(&library).unwrap();
    std::fs::write(
        &library,
        text.replace("x.wrapping_mul(3)", "x.wrapping_mul(5)"),
    )
    .unwrap();
    commit_all(repo, "elsewhere changes");
}

/// `--list` of the pinned benchmarks with selection on, verbose, each probe run (none kept from
/// an earlier run of the shared repository); `forget_alone`: nor that a probe must run alone.
fn list_pinned(repo: &Path, forget_alone: bool) -> Output {
    list_pinned_and(repo, forget_alone, &[])
}

/// [`list_pinned`], with the benchmarks of `more` filters too.
fn list_pinned_and(repo: &Path, forget_alone: bool, more: &[&str]) -> Output {
    let traces = state_dir(repo).join("traces");
    let forgotten = |name: &str| {
        (name.starts_with("probe-") || (forget_alone && name.starts_with("alone-")))
            && name.ends_with(".json")
    };
    if let Ok(entries) = std::fs::read_dir(&traces) {
        for entry in entries.map(|entry| entry.unwrap().path()) {
            let name = entry.file_name().unwrap().to_string_lossy().into_owned();
            if forgotten(&name) {
                std::fs::remove_file(entry).unwrap();
            }
        }
    }
    let args = [
        &[
            "HEAD~1", "HEAD", "--list", "--format", "json", "-v", "--", "pinned/",
        ],
        more,
    ]
    .concat();
    let args = with_options(&args, FAST);
    let mut command = perfdiff_command(repo, &with_default_layouts(&args));
    command.env_remove("CARGO_PERFDIFF_MEASURE_ALL");
    output_logged(&mut command)
}

/// The demo with benchmarks that pin themselves to CPU 0, and a commit they do not reach.
fn pinned_repo(guard: &MeasuringGuard) -> (Scratch, std::path::PathBuf) {
    shared_demo_with(
        guard,
        &strong_changes(),
        "pinned to CPU 0",
        commit_pinned_benchmarks,
    )
}

#[test]
fn benchmarks_that_pin_themselves_to_one_cpu_are_probed_alone_and_skipped_as_the_same_code() {
    if usable_cpus_of_this_process() < 2 {
        return; // one CPU (or not CPU 0): no two probes run at once on it
    }
    let guard = measuring_lock();
    let (_dir, repo) = pinned_repo(&guard);
    // Alone, each is the same code. A probe still too busy alone is the machine's own load
    // (other work on CPU 0: the suite's other processes, other sessions), and measured, but it
    // must have been probed alone (from the start: its trace saw it pin itself). The first of three listings with two or more the same
    // code decides; on a machine too busy for that in all three, only the second holds.
    let mut same = Vec::new();
    for _ in 0..LISTINGS {
        let (listed, all) = pinned_same_code(&repo);
        if listed >= 2 {
            return;
        }
        same.push(listed);
        eprintln!("too busy for the pinned probes even alone:\n{all}");
    }
    eprintln!(
        "the same code in none of {LISTINGS} listings ({same:?} of 3): the machine was too busy"
    );
}

/// Listings of [`benchmarks_that_pin_themselves_to_one_cpu_are_probed_alone_and_skipped_as_the_same_code`]
/// at most.
const LISTINGS: usize = 3;

/// How many pinned benchmarks one `--list` skips as the same code, and what it printed;
/// asserts that each one measured was probed alone from the start, and that the log says so.
fn pinned_same_code(repo: &Path) -> (usize, String) {
    let output = list_pinned(repo, true);
    let all = all_output(&output);
    assert_eq!(output.status.code(), Some(0), "{all}");
    let report = json_report(&output);
    let mut same = 0;
    for id in ["pinned/one", "pinned/two", "pinned/three"] {
        let entry = bench_entry(&report, id);
        let record = &entry["selection"];
        let detail = record["detail"].as_str().unwrap_or_default();
        if record["reason"] == "same_code" {
            same += 1;
        } else {
            assert!(
                detail.contains("too busy") && detail.contains("probed alone from the start"),
                "{id} measured without a probe alone: {entry:#}\n{all}"
            );
        }
    }
    assert!(!all.contains("ran beside it: probed again alone"), "{all}");
    // Each probe run's line names the cause (the helper reads the benchmark's CPU affinity).
    assert!(
        all.contains("the benchmark set its own CPU affinity: CPU 0"),
        "{all}"
    );
    (same, all)
}

#[test]
fn a_benchmark_that_pins_itself_is_probed_alone_from_the_start_the_first_time() {
    if usable_cpus_of_this_process() < 2 {
        return; // one CPU (or not CPU 0): no two probes run at once on it
    }
    let guard = measuring_lock();
    let (_dir, repo) = pinned_repo(&guard);
    // A first listing, nothing kept but the traces: each trace saw its benchmark set its own
    // CPU affinity, so each pinned one is probed alone from the start, none beside another and
    // none again; the two that do not pin themselves are probed beside each other.
    let first = list_pinned_and(&repo, true, &["beside/"]);
    let all = all_output(&first);
    assert_eq!(first.status.code(), Some(0), "{all}");
    for id in ["pinned/one", "pinned/two", "pinned/three"] {
        let line = format!(
            "probe of {id}: probed alone from the start: its trace saw it set its own CPU \
             affinity (sched_setaffinity)"
        );
        assert!(
            all.contains(&line),
            "{id} not probed alone from the start:\n{all}"
        );
        // Never beside another, so never again alone (the two beside each other may be, on a
        // busy machine).
        let again = format!("probe of {id}: too busy");
        assert!(!all.contains(&again), "{id} probed beside another:\n{all}");
    }
    let report = json_report(&first);
    for id in ["beside/one", "beside/two"] {
        assert!(
            all.contains(&format!("probe of {id}: ")),
            "{id} not probed:\n{all}"
        );
        assert!(
            !all.contains(&format!("probe of {id}: probed alone")),
            "{id} probed alone:\n{all}"
        );
        let detail = bench_entry(&report, id)["selection"]["detail"].to_string();
        assert!(!detail.contains("probed alone"), "{id}: {detail}\n{all}");
    }
    // Each pinned one's probe saw it pin itself (whatever the load, its runs end whole): the
    // next listing, its probes' outcomes removed (as a new commit's would be), says so.
    assert!(
        all.contains("the benchmark set its own CPU affinity: CPU 0"),
        "{all}"
    );
    let second = list_pinned(&repo, false);
    let all = all_output(&second);
    assert_eq!(second.status.code(), Some(0), "{all}");
    for id in ["pinned/one", "pinned/two", "pinned/three"] {
        let line = format!(
            "probe of {id}: probed alone from the start: an earlier probe saw it set its own CPU \
             affinity: CPU 0"
        );
        assert!(
            all.contains(&line),
            "{id} not probed alone from the start:\n{all}"
        );
    }
    assert!(!all.contains("ran beside it: probed again alone"), "{all}");
}

#[test]
fn a_benchmark_that_pins_itself_leaves_duet_named_as_the_cause() {
    if usable_cpus_of_this_process() < 2 {
        return; // no duet on one CPU, and nowhere to pin to without CPU 0
    }
    let guard = measuring_lock();
    let (_dir, repo) = pinned_repo(&guard);
    let args = [
        "HEAD~1",
        "HEAD",
        "--mode",
        "duet",
        "--format",
        "json",
        "--fail-on",
        "never",
        "--",
        "pinned/one",
    ];
    let output = cargo_perfdiff(&repo, &quick(&args));
    let all = all_output(&output);
    assert_eq!(output.status.code(), Some(0), "{all}");
    let report = json_report(&output);
    let change = &report["run"]["mode_change"];
    assert_eq!(change["used"], "interleaved", "{change:#}\n{all}");
    assert_eq!(change["shared_round"], 0, "{change:#}");
    let repinned = change["repinned"].as_array().expect("repinned");
    assert_eq!(repinned.len(), 1, "{change:#}");
    assert_eq!(repinned[0]["benchmark"], "pinned/one", "{change:#}");
    assert_eq!(repinned[0]["own_cpus"], "0", "{change:#}");
    assert!(
        all.contains("set its own CPU affinity: `pinned/one`"),
        "no warning naming it:\n{all}"
    );
}

/// How many CPUs this test process may run on; none when CPU 0 is not one of them (the fixture
/// pins itself to CPU 0).
fn usable_cpus_of_this_process() -> usize {
    let cpus = cargo_perfdiff::steps::fork::usable_cpus();
    match cpus.first() {
        Some(0) => cpus.len(),
        _ => 0,
    }
}
