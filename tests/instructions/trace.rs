//! Tracing what one benchmark executes and reads (`steps::reach::trace`), under the real
//! valgrind, on `fixtures/trace-fixture`: one bench target per harness (criterion, divan,
//! libtest `#[bench]`, bencher), each benchmark's work in a function of its own, so that the
//! symbol table tells which benchmark's code a trace holds.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use cargo_perfdiff::model::harness::Harness;
use cargo_perfdiff::steps::fork::ForkRequest;
use cargo_perfdiff::steps::fork::command::CommandRun;
use cargo_perfdiff::steps::instructions::Valgrind;
use cargo_perfdiff::steps::reach::trace::{self, Access, Mode, Trace, TraceCache, TraceError};
use object::{Object, ObjectSymbol};

const FIXTURE_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/trace-fixture");

/// The fixture crate (a copy under `target/`) and its bench executables by target name.
pub(super) struct Fixture {
    pub(super) dir: PathBuf,
    executables: Vec<(String, PathBuf)>,
}

impl Fixture {
    pub(super) fn executable(&self, target: &str) -> &Path {
        &self
            .executables
            .iter()
            .find(|(name, _)| name == target)
            .unwrap_or_else(|| panic!("no bench target {target}"))
            .1
    }
}

/// Copies the fixture crate under `target/` and builds its benches once, with the target
/// directory of the other instruction fixtures (their dependencies are shared).
pub(super) fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/instructions-fixture");
        let dir = root.join("trace-crate");
        if dir.exists() {
            std::fs::remove_dir_all(&dir).unwrap();
        }
        copy_tree(Path::new(FIXTURE_DIR), &dir);
        let executables = super::bench_executables(&dir, &root.join("target"));
        Fixture { dir, executables }
    })
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

pub(super) fn request(target: &str, harness: Harness, id: &str, home: &Path) -> ForkRequest {
    let fixture = fixture();
    ForkRequest {
        executable: fixture.executable(target).to_path_buf(),
        cwd: fixture.dir.clone(),
        env: vec![],
        benchmark_id: id.to_string(),
        harness,
        warm_up: Duration::from_millis(200),
        measurement: Duration::from_millis(100),
        sample_size: 10,
        harness_sample_size: None,
        timeout: Duration::from_secs(300),
        criterion_home: home.to_path_buf(),
        cpu: None,
        command: None,
    }
}

fn valgrind() -> Valgrind {
    Valgrind::find().expect("valgrind is installed (.ci/run installs it)")
}

/// Traces `id` of bench target `target` in `modes`, printing what the runs cost.
fn traced(target: &str, harness: Harness, id: &str, modes: &[Mode]) -> Trace {
    let scratch = tempfile::tempdir().unwrap();
    let req = request(target, harness, id, scratch.path());
    let trace = trace::trace_in_modes(&req, &valgrind(), scratch.path(), modes)
        .unwrap_or_else(|e| panic!("{e}: {e:?}"));
    for run in &trace.runs {
        eprintln!(
            "{target} {id} ({}): {} instructions, {:.0} ms, {} addresses of the executable, \
             {} libraries, {} paths",
            run.mode,
            run.instructions,
            run.wall_ms,
            trace.executed.len(),
            trace.libraries.len(),
            trace.files.len()
        );
    }
    trace
}

/// The address range of the function of the executable whose demangled path ends with
/// `::name` (exactly one).
pub(super) fn function_range(executable: &Path, name: &str) -> (u64, u64) {
    let data = std::fs::read(executable).unwrap();
    let file = object::File::parse(&*data).unwrap();
    let suffix = format!("::{name}");
    let found: Vec<(u64, u64)> = file
        .symbols()
        .filter(|s| s.kind() == object::SymbolKind::Text && s.size() > 0)
        .filter(|s| {
            s.name()
                .is_ok_and(|raw| format!("{:#}", rustc_demangle::demangle(raw)).ends_with(&suffix))
        })
        .map(|s| (s.address(), s.address() + s.size()))
        .collect();
    assert_eq!(found.len(), 1, "{name}: {found:x?}");
    found[0]
}

/// The functions (demangled, or the address when no symbol holds it) `addresses` lie in.
fn functions_of(executable: &Path, addresses: &[u64]) -> std::collections::BTreeSet<String> {
    let data = std::fs::read(executable).unwrap();
    let file = object::File::parse(&*data).unwrap();
    let symbols: Vec<(u64, u64, String)> = file
        .symbols()
        .filter(|s| s.kind() == object::SymbolKind::Text)
        .filter_map(|s| {
            Some((
                s.address(),
                s.size(),
                format!("{:#}", rustc_demangle::demangle(s.name().ok()?)),
            ))
        })
        .collect();
    addresses
        .iter()
        .map(|&a| {
            symbols
                .iter()
                .find(|(start, size, _)| a >= *start && a < start + size)
                .map_or(format!("{a:#x}"), |s| s.2.clone())
        })
        .collect()
}

/// Whether `trace` executed an instruction of function `name` of `executable`.
fn ran(trace: &Trace, executable: &Path, name: &str) -> bool {
    let (start, end) = function_range(executable, name);
    trace.executed.range(start..end).next().is_some()
}

pub(super) const CRITERION: Harness =
    Harness::Criterion(cargo_perfdiff::model::harness::CliDialect::Current);
const BOTH: &[Mode] = &[Mode::Test, Mode::Measure];

#[test]
fn a_criterion_trace_holds_its_own_benchmark_s_code_and_not_another_s() {
    let exe = fixture().executable("crit").to_path_buf();
    let trace = traced("crit", CRITERION, "alpha", Mode::runs_for(CRITERION));
    assert_eq!(trace.runs.len(), 1);
    assert!(
        ran(&trace, &exe, "alpha_work"),
        "alpha_work not in the trace"
    );
    assert!(
        !ran(&trace, &exe, "beta_work"),
        "beta_work ran: not one benchmark"
    );
    // A run of its own is not cut: the later group's set-up, after its samples, is in it.
    assert!(ran(&trace, &exe, "after_every_benchmark"));
    // Its code ran in libraries too (the loader, libc), and it read no file of the crate.
    assert!(
        trace
            .libraries
            .iter()
            .any(|l| l.to_string_lossy().contains("libc.so")),
        "{:?}",
        trace.libraries
    );
    assert!(
        trace
            .libraries
            .iter()
            .all(|l| !l.to_string_lossy().contains("vgpreload")),
        "valgrind's own preloads are not the benchmark's: {:?}",
        trace.libraries
    );
    assert!(
        trace.files_under(&fixture().dir).is_empty(),
        "{:?}",
        trace.files_under(&fixture().dir)
    );
    assert!(trace.unresolved.is_empty(), "{:?}", trace.unresolved);
}

#[test]
fn a_benchmark_is_traced_once_in_its_harness_s_test_mode_not_measured() {
    // The trace a selection makes: test mode alone, the routine called once, criterion's
    // warm-up and sampling never entered (what later iterations reach is the native probe's).
    let exe = fixture().executable("crit").to_path_buf();
    let default = traced("crit", CRITERION, "warm", Mode::runs_for(CRITERION));
    let modes: Vec<Mode> = default.runs.iter().map(|run| run.mode).collect();
    assert_eq!(modes, [Mode::Test]);
    assert!(
        !ran(&default, &exe, "only_after_many_calls"),
        "the routine was called more than a hundred times"
    );
    let measuring = criterion_routines(&default, &exe, &["warm_up", "sample"]);
    assert!(measuring.is_empty(), "it measured: {measuring:?}");
}

#[test]
fn a_criterion_trace_tells_what_ran_in_the_timed_loop_from_what_ran_only_outside_it() {
    let exe = fixture().executable("crit").to_path_buf();
    let trace = traced("crit", CRITERION, "alpha", Mode::runs_for(CRITERION));
    let timed = trace
        .timed
        .as_ref()
        .expect("criterion's timed routine is in the trace");
    assert!(timed.is_subset(&trace.executed));
    let names = |addresses: &std::collections::BTreeSet<u64>| {
        functions_of(&exe, &addresses.iter().copied().collect::<Vec<_>>())
    };
    let (inside, all) = (names(timed), names(&trace.executed));
    // The routine's own work and criterion's `Bencher::iter` around it are inside.
    assert!(ran(&trace, &exe, "alpha_work"));
    let (start, end) = function_range(&exe, "alpha_work");
    assert!(timed.range(start..end).next().is_some(), "{inside:?}");
    assert!(
        inside
            .iter()
            .any(|f| f.contains("Bencher") && f.contains("::iter")),
        "{inside:?}"
    );
    // Criterion's argument parsing (clap) runs only at start-up: outside.
    let parsing = |names: &std::collections::BTreeSet<String>| {
        names.iter().filter(|f| f.starts_with("clap")).count()
    };
    assert!(parsing(&all) > 0, "no clap in the trace: {all:?}");
    assert_eq!(parsing(&inside), 0, "{inside:?}");
}

/// The functions of criterion's `Routine` (its methods and their implementations) named `names`
/// that `trace` ran in `executable`.
fn criterion_routines(trace: &Trace, executable: &Path, names: &[&str]) -> Vec<String> {
    let addresses: Vec<u64> = trace.executed.iter().copied().collect();
    functions_of(executable, &addresses)
        .into_iter()
        .filter(|f| f.contains("criterion::routine::"))
        .filter(|f| names.iter().any(|name| f.ends_with(&format!("::{name}"))))
        .collect()
}

#[test]
fn code_only_measuring_runs_is_in_the_trace_and_test_mode_alone_misses_it() {
    // `warm` takes another path after its hundredth call: criterion's warm-up and samples get
    // there, its test mode (one call) does not.
    let exe = fixture().executable("crit").to_path_buf();
    let test_only = traced("crit", CRITERION, "warm", &[Mode::Test]);
    assert!(!ran(&test_only, &exe, "only_after_many_calls"));
    let both = traced("crit", CRITERION, "warm", BOTH);
    assert!(ran(&both, &exe, "only_after_many_calls"));
    // Measuring enters criterion's warm-up and sampling, which test mode never does
    // (`a_benchmark_is_traced_once_in_its_harness_s_test_mode_not_measured`).
    assert!(!criterion_routines(&both, &exe, &["warm_up", "sample"]).is_empty());
    // The union: every function test mode ran is in it. (Not every address: the paths inside
    // a function can differ from run to run, as a `HashSet`'s probing does with its random
    // seed; seen in criterion's `BenchmarkId::ensure_title_unique`.)
    let functions = |trace: &Trace| {
        let addresses: Vec<u64> = trace.executed.iter().copied().collect();
        functions_of(&exe, &addresses)
    };
    let (test_functions, all_functions) = (functions(&test_only), functions(&both));
    let missing: Vec<&String> = test_functions.difference(&all_functions).collect();
    assert!(missing.is_empty(), "{missing:?}");
}

#[test]
fn a_lazily_built_static_and_a_batched_set_up_are_in_the_trace() {
    let exe = fixture().executable("crit").to_path_buf();
    let lazy = traced("crit", CRITERION, "lazy", Mode::runs_for(CRITERION));
    assert!(
        ran(&lazy, &exe, "build_table"),
        "the lazy table's initialiser"
    );
    let batched = traced("crit", CRITERION, "batched", Mode::runs_for(CRITERION));
    assert!(
        ran(&batched, &exe, "batched_setup"),
        "iter_batched's set-up"
    );
    assert!(!ran(&batched, &exe, "build_table"));
}

#[test]
fn a_file_the_benchmark_reads_at_run_time_is_in_the_trace() {
    let trace = traced("crit", CRITERION, "file", Mode::runs_for(CRITERION));
    let inside = trace.files_under(&fixture().dir);
    assert_eq!(
        inside.get(Path::new("data/input.txt")),
        Some(&Access::Opened),
        "{inside:?}"
    );
    assert_eq!(trace.cwd, fixture().dir);
    // Nothing was written into the checkout: criterion's home was the scratch directory.
    assert!(!fixture().dir.join("target").exists());
}

#[test]
fn a_benchmark_that_does_not_exist_is_an_error_not_an_empty_trace() {
    let scratch = tempfile::tempdir().unwrap();
    let req = request("crit", CRITERION, "alph", scratch.path());
    let error = trace::trace_benchmark(&req, &valgrind(), scratch.path()).unwrap_err();
    assert!(
        matches!(
            error,
            TraceError::NotRun {
                mode: Mode::Test,
                ..
            }
        ),
        "{error:?}"
    );
    assert!(error.to_string().contains("`alph`"), "{error}");
    // A run that does not finish in time: killed, an error.
    let mut slow = request("crit", CRITERION, "alpha", scratch.path());
    slow.timeout = Duration::from_millis(20);
    let error =
        trace::trace_benchmark(&slow, &valgrind(), &scratch.path().join("slow")).unwrap_err();
    assert!(
        matches!(error, TraceError::Failed { .. }) && error.to_string().contains("timeout"),
        "{error}"
    );
}

#[test]
fn the_cache_traces_an_executable_s_content_once() {
    let scratch = tempfile::tempdir().unwrap();
    let cache = TraceCache::new(scratch.path().join("traces"));
    let req = request("crit", CRITERION, "beta", scratch.path());
    let first = cache
        .get_or_trace(&req, || {
            trace::trace_benchmark(&req, &valgrind(), &scratch.path().join("run"))
        })
        .unwrap();
    // A copy of the executable elsewhere (another build of the same code): not traced again.
    let copy = scratch.path().join("crit-copy");
    std::fs::copy(&req.executable, &copy).unwrap();
    let mut again = req.clone();
    again.executable = copy;
    let second = cache
        .get_or_trace(&again, || panic!("traced a second time"))
        .unwrap();
    assert_eq!(first, second);
    assert!(ran(&second, &req.executable, "beta_work"));
}

#[test]
fn a_command_is_traced_with_every_program_it_starts() {
    let program = fixture().executable("tracecmd").to_path_buf();
    let scratch = tempfile::tempdir().unwrap();
    let mut req = request("tracecmd", Harness::Command, "tracecmd", scratch.path());
    req.command = Some(CommandRun {
        argv: vec![program.clone().into_os_string(), "spawn".into()],
        prepare: Some("echo prepared > prepared.txt".to_string()),
        warm_up: 0,
        helper: PathBuf::new(),
    });
    req.cwd = scratch.path().to_path_buf();
    copy_tree(&fixture().dir.join("data"), &scratch.path().join("data"));
    let trace = trace::trace_benchmark(&req, &valgrind(), &scratch.path().join("run"))
        .unwrap_or_else(|e| panic!("{e}"));
    eprintln!(
        "tracecmd: {} instructions, programs {:?}",
        trace.runs[0].instructions,
        trace.executed_by_program.keys().collect::<Vec<_>>()
    );
    assert!(trace.executed.is_empty(), "a command has no one executable");
    let ran_in = |name: &str| {
        let (start, end) = function_range(&program, name);
        trace
            .executed_by_program
            .iter()
            .filter(|(path, _)| path.canonicalize().unwrap() == program.canonicalize().unwrap())
            .any(|(_, executed)| executed.range(start..end).next().is_some())
    };
    assert!(ran_in("alpha_work"), "the program itself");
    assert!(ran_in("beta_work"), "the process it started");
    assert_eq!(
        trace
            .files_under(scratch.path())
            .get(Path::new("data/input.txt")),
        Some(&Access::Opened)
    );
    // The prepare line ran (natively, not traced).
    assert!(scratch.path().join("prepared.txt").exists());
    assert!(
        !trace
            .files
            .contains_key(&scratch.path().join("prepared.txt"))
    );
}

#[test]
fn divan_libtest_and_bencher_traces_hold_their_own_benchmark_only() {
    let cases: [(&str, Harness, &str, usize); 3] = [
        ("dv", Harness::Divan, "dv::alpha", 1),
        ("lt", Harness::Libtest, "alpha", 1),
        ("bn", Harness::Bencher, "alpha", 1),
    ];
    let traces: Vec<Trace> = std::thread::scope(|scope| {
        let handles: Vec<_> = cases
            .iter()
            .map(|&(target, harness, id, _)| {
                scope.spawn(move || traced(target, harness, id, Mode::runs_for(harness)))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for ((target, _, id, runs), trace) in cases.iter().zip(&traces) {
        let exe = fixture().executable(target);
        assert_eq!(trace.runs.len(), *runs, "{target}");
        assert!(ran(trace, exe, "alpha_work"), "{target} {id}: alpha_work");
        assert!(
            !ran(trace, exe, "beta_work"),
            "{target} {id}: beta_work ran"
        );
    }
}

#[test]
fn a_divan_trace_tells_its_sample_task_s_part_and_libtest_s_and_bencher_s_say_why_not() {
    let cases = [
        ("dv", Harness::Divan, "dv::alpha"),
        ("lt", Harness::Libtest, "alpha"),
        ("bn", Harness::Bencher, "alpha"),
    ];
    let traces: Vec<Trace> = std::thread::scope(|scope| {
        let handles: Vec<_> = cases
            .iter()
            .map(|&(target, harness, id)| {
                scope.spawn(move || traced(target, harness, id, Mode::runs_for(harness)))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    // divan: the benchmark's work runs in its sample task; divan's argument parsing (clap)
    // before it, outside.
    let exe = fixture().executable("dv").to_path_buf();
    let divan = &traces[0];
    let timed = divan
        .timed
        .as_ref()
        .unwrap_or_else(|| panic!("divan's sample task is in the trace: {:?}", divan.untimed));
    assert!(timed.is_subset(&divan.executed));
    let names = |addresses: &std::collections::BTreeSet<u64>| {
        functions_of(&exe, &addresses.iter().copied().collect::<Vec<_>>())
    };
    let (inside, all) = (names(timed), names(&divan.executed));
    let (start, end) = function_range(&exe, "alpha_work");
    assert!(timed.range(start..end).next().is_some(), "{inside:?}");
    assert!(
        inside
            .iter()
            .any(|f| f.contains("TaskShared") && f.contains("::new::call")),
        "{inside:?}"
    );
    let parsing = |names: &std::collections::BTreeSet<String>| {
        names.iter().filter(|f| f.starts_with("clap")).count()
    };
    assert!(parsing(&all) > 0, "no clap in the trace: {all:?}");
    assert_eq!(parsing(&inside), 0, "{inside:?}");
    // What `main` runs after `divan::main()`, after the sample task's last return, is not the
    // benchmark's.
    assert!(!ran(divan, &exe, "after_every_benchmark"), "{all:?}");
    // libtest runs a benchmark in test mode on a thread of its own, which hides nothing; but a
    // release build inlines its generic `Bencher::iter` into `alpha`: no timed part, and why
    // (`set_up_apart`, below, keeps it).
    let libtest = &traces[1];
    assert_eq!(libtest.timed, None);
    let why = libtest.untimed.as_deref().unwrap_or_default();
    assert!(
        why.contains("no timed routine ran as a function of its own (libtest's"),
        "{why}"
    );
    // bencher's `Bencher::iter`: a function of its own (its loop inside), or inlined into the
    // benchmark's function (then none, saying so).
    let bencher = &traces[2];
    match (&bencher.timed, &bencher.untimed) {
        (Some(timed), None) => assert!(timed.is_subset(&bencher.executed)),
        (None, Some(why)) => assert!(
            why.contains("no timed routine ran as a function of its own (bencher's"),
            "{why}"
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_libtest_benchmark_s_set_up_is_outside_its_timed_part_in_both_tracers() {
    // libtest runs the benchmark on a thread its main thread starts and then waits for; its
    // set-up (`set_up_work`) before `Bencher::iter`, which it calls through a pointer.
    let exe = fixture().executable("lt").to_path_buf();
    let id = "set_up_apart";
    let under_valgrind = traced("lt", Harness::Libtest, id, &[Mode::Test]);
    let scratch = tempfile::tempdir().unwrap();
    let req = request("lt", Harness::Libtest, id, scratch.path());
    let native = trace::native::trace_natively(&req, scratch.path())
        .unwrap_or_else(|e| panic!("{e}: {e:?}"));
    for (tracer, trace) in [("valgrind", &under_valgrind), ("native", &native)] {
        let timed = trace
            .timed
            .as_ref()
            .unwrap_or_else(|| panic!("{tracer}: no timed part: {:?}", trace.untimed));
        let timed_ran = |name: &str| {
            let (start, end) = function_range(&exe, name);
            timed.range(start..end).next().is_some()
        };
        assert!(ran(trace, &exe, "set_up_work"), "{tracer}: set_up_work ran");
        assert!(!timed_ran("set_up_work"), "{tracer}: set_up_work is timed");
        assert!(timed_ran("alpha_work"), "{tracer}: alpha_work is not timed");
        assert!(timed.is_subset(&trace.executed), "{tracer}");
    }
    assert_eq!(native.tracer, trace::Tracer::Native);
}

#[test]
fn a_thread_still_running_at_the_timed_routine_s_entry_is_waited_for_until_it_sleeps() {
    // Beside libtest's main thread (waiting for the benchmark's thread), a thread the set-up
    // started spins 20 ms, then parks for good: the native trace reaches the routine's entry
    // while it runs, and must wait for it to fall asleep instead of losing the timed part.
    let exe = fixture().executable("lt").to_path_buf();
    let scratch = tempfile::tempdir().unwrap();
    let req = request(
        "lt",
        Harness::Libtest,
        "beside_a_thread_falling_asleep",
        scratch.path(),
    );
    let native = trace::native::trace_natively(&req, scratch.path())
        .unwrap_or_else(|e| panic!("{e}: {e:?}"));
    let timed = native
        .timed
        .as_ref()
        .unwrap_or_else(|| panic!("no timed part: {:?}", native.untimed));
    let (start, end) = function_range(&exe, "alpha_work");
    assert!(
        timed.range(start..end).next().is_some(),
        "alpha_work is not timed"
    );
    assert!(timed.is_subset(&native.executed));
}

/// The traces `trace_benchmarks` makes of `ids` of the criterion target, with `cache`.
fn traced_together(ids: &[&str], cache: &TraceCache, scratch: &Path) -> Vec<Trace> {
    let requests: Vec<ForkRequest> = ids
        .iter()
        .map(|id| request("crit", CRITERION, id, &scratch.join("home")))
        .collect();
    trace::split::trace_benchmarks(
        &requests,
        &valgrind(),
        cache,
        scratch,
        (&|_, _| {}, &|_| {}),
    )
    .into_iter()
    .map(|traced| traced.unwrap_or_else(|e| panic!("{e}: {e:?}")))
    .collect()
}

#[test]
fn one_run_traces_a_criterion_target_and_each_benchmark_gets_its_own_functions() {
    let exe = fixture().executable("crit").to_path_buf();
    let scratch = tempfile::tempdir().unwrap();
    let cache = TraceCache::new(scratch.path().join("traces"));
    let ids = ["alpha", "beta", "lazy", "file"];
    let traces = traced_together(&ids, &cache, scratch.path());
    // One valgrind run made the four traces.
    for (id, trace) in ids.iter().zip(&traces) {
        let shared: Vec<Option<usize>> = trace.runs.iter().map(|r| r.shared_by).collect();
        assert_eq!(shared, [Some(4)], "{id}");
    }
    let [alpha, beta, lazy, file] = &traces[..] else {
        unreachable!()
    };
    // Each trace holds its own benchmark's work, and not another's.
    assert!(ran(alpha, &exe, "alpha_work") && !ran(alpha, &exe, "beta_work"));
    assert!(ran(beta, &exe, "beta_work") && !ran(beta, &exe, "alpha_work"));
    assert!(ran(lazy, &exe, "build_table"));
    for other in [alpha, beta, file] {
        assert!(!ran(other, &exe, "build_table"));
    }
    // The timed part too: alpha's loop runs alpha_work, beta's beta_work.
    let timed_in = |trace: &Trace, name: &str| {
        let (start, end) = function_range(&exe, name);
        let timed = trace.timed.as_ref().expect("a timed part");
        timed.range(start..end).next().is_some()
    };
    assert!(timed_in(alpha, "alpha_work") && !timed_in(alpha, "beta_work"));
    assert!(timed_in(beta, "beta_work") && !timed_in(beta, "alpha_work"));
    // What runs outside every benchmark before it (criterion's argument parsing, the set-up
    // before the first `bench_function`) is in every trace, and what runs after every one (a
    // later group's set-up) in none: a fork runs it after its samples. The system-call log is
    // cut too: the file `file` reads is in its trace only, the libraries the loader opened at
    // start-up in every one.
    for (id, trace) in ids.iter().zip(&traces) {
        assert!(ran(trace, &exe, "set_up_for_every_benchmark"), "{id}");
        assert!(!ran(trace, &exe, "after_every_benchmark"), "{id}");
    }
    for trace in &traces {
        let parsing = functions_of(&exe, &trace.executed.iter().copied().collect::<Vec<_>>());
        assert!(parsing.iter().any(|f| f.starts_with("clap")));
        assert!(trace.files.keys().any(|f| f.ends_with("libc.so.6")));
    }
    let input = |trace: &Trace| {
        trace
            .files_under(&fixture().dir)
            .get(Path::new("data/input.txt"))
            .copied()
    };
    assert_eq!(input(file), Some(Access::Opened));
    for other in [alpha, beta, lazy] {
        assert_eq!(
            input(other),
            None,
            "{:?}",
            other.files_under(&fixture().dir)
        );
    }
    // Each is kept under its own benchmark: a second selection traces nothing.
    let again = traced_together(&ids, &cache, scratch.path());
    assert_eq!(again, traces);
}

#[test]
fn a_target_whose_set_up_is_too_slow_for_valgrind_is_traced_natively() {
    let exe = fixture().executable("crit").to_path_buf();
    let scratch = tempfile::tempdir().unwrap();
    let cache = TraceCache::new(scratch.path().join("traces"));
    // A set-up before criterion's filter that never ends under valgrind (and takes nothing
    // natively), and a fork timeout of 15 s that bounds every trace: the one valgrind run of
    // both is stopped at 30 s, then each is traced natively.
    let requests: Vec<ForkRequest> = ["alpha", "file"]
        .iter()
        .map(|id| {
            let mut req = request("crit", CRITERION, id, &scratch.path().join("home"));
            req.env = vec![("TRACE_FIXTURE_SLOW_UNDER_VALGRIND".into(), "1".into())];
            req.timeout = Duration::from_secs(15);
            req
        })
        .collect();
    let notes = std::sync::Mutex::new(Vec::new());
    let note = |message: &str| notes.lock().unwrap().push(message.to_string());
    let traces: Vec<Trace> = trace::split::trace_benchmarks(
        &requests,
        &valgrind(),
        &cache,
        scratch.path(),
        (&|_, _| {}, &note),
    )
    .into_iter()
    .map(|traced| traced.unwrap_or_else(|e| panic!("{e}: {e:?}")))
    .collect();
    let [alpha, file] = &traces[..] else {
        unreachable!()
    };
    let in_timed = |trace: &Trace, name: &str| {
        let (start, end) = function_range(&exe, name);
        let timed = trace.timed.as_ref();
        let timed = timed.unwrap_or_else(|| panic!("no timed part: {:?}", trace.untimed));
        timed.range(start..end).next().is_some()
    };
    for trace in &traces {
        assert_eq!(trace.tracer, trace::Tracer::Native);
        // Both in one native run, split per benchmark.
        assert_eq!(trace.runs[0].shared_by, Some(2));
        assert!(ran(trace, &exe, "set_up_for_every_benchmark"));
        // The timed part, as valgrind's trace tells it: the set-up before `bench_function` is
        // outside, and so is criterion's argument parsing; how long the set-up took is known.
        assert!(!in_timed(trace, "set_up_for_every_benchmark"));
        assert!(trace.set_up_ms.is_some());
    }
    // Each its own functions (entries), and the file `file` reads in its trace only.
    assert!(in_timed(alpha, "alpha_work"));
    assert!(ran(alpha, &exe, "alpha_work") && !ran(alpha, &exe, "beta_work"));
    assert!(!ran(file, &exe, "alpha_work"));
    let input = |trace: &Trace| {
        trace
            .files_under(&fixture().dir)
            .get(Path::new("data/input.txt"))
            .copied()
    };
    assert_eq!(input(file), Some(Access::Opened));
    assert_eq!(input(alpha), None);
    // Said once for the target.
    let notes = notes.into_inner().unwrap();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].contains("traced natively (valgrind would take longer than its budget)"));
    // A later run on the same executable: `beta`, not kept, goes straight to the native trace
    // (no valgrind run of 30 s first), and says why.
    let mut beta = requests[0].clone();
    beta.benchmark_id = "beta".into();
    let notes = std::sync::Mutex::new(Vec::new());
    let note = |message: &str| notes.lock().unwrap().push(message.to_string());
    let later = trace::split::trace_benchmarks(
        &[requests[0].clone(), beta],
        &valgrind(),
        &cache,
        scratch.path(),
        (&|_, _| {}, &note),
    );
    let beta = later[1].as_ref().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(beta.tracer, trace::Tracer::Native);
    assert!(in_timed(beta, "beta_work") && !in_timed(beta, "alpha_work"));
    let notes = notes.into_inner().unwrap();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].contains("as an earlier run of this executable found"));
}

/// A stand-in for valgrind 3.19 on code compiled for a CPU it cannot decode (AVX-512, SHA-NI,
/// `clflushopt`): whatever it is asked to run, it writes the log valgrind writes then (VEX's
/// `unhandled instruction bytes` line, `Unrecognised instruction`, the SIGILL) to its
/// `--log-file` and dies of SIGILL, as valgrind does when the program does. Why a stand-in: which
/// instruction valgrind cannot decode depends on the CPU and valgrind's version;
/// `selection_e2e::a_benchmark_running_an_instruction_valgrind_cannot_decode_is_decided_by_the_native_trace`
/// runs the real one where this CPU allows.
const VALGRIND_WITHOUT_THE_INSTRUCTION: &str = r#"#!/bin/sh
for arg in "$@"; do
    case "$arg" in
        --log-file=*) log="${arg#--log-file=}" ;;
    esac
done
log=$(printf '%s' "$log" | sed "s/%p/$$/")
cat > "$log" <<END
==$$== Callgrind, a call-graph generating cache profiler
vex amd64->IR: unhandled instruction bytes: 0x62 0xF2 0xFD 0x48 0xB4 0xC1 0x48 0x8B 0x5 0x0
vex amd64->IR:   REX=0 REX.W=0 REX.R=0 REX.X=0 REX.B=0
==$$== valgrind: Unrecognised instruction at address 0x10917a.
==$$== Process terminating with default action of signal 4 (SIGILL)
END
kill -ILL $$
"#;

#[test]
fn a_target_running_an_instruction_valgrind_cannot_decode_is_traced_natively() {
    let exe = fixture().executable("crit").to_path_buf();
    let scratch = tempfile::tempdir().unwrap();
    let cache = TraceCache::new(scratch.path().join("traces"));
    let fake = scratch.path().join("valgrind");
    std::fs::write(&fake, VALGRIND_WITHOUT_THE_INSTRUCTION).unwrap();
    let mut permissions = std::fs::metadata(&fake).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(&fake, permissions).unwrap();
    let valgrind = Valgrind {
        path: fake,
        version: "valgrind-3.19.0".into(),
    };
    let requests = |ids: &[&str]| -> Vec<ForkRequest> {
        let home = scratch.path().join("home");
        ids.iter()
            .map(|id| request("crit", CRITERION, id, &home))
            .collect()
    };
    let traced = |requests: &[ForkRequest]| {
        let notes = std::sync::Mutex::new(Vec::new());
        let note = |message: &str| notes.lock().unwrap().push(message.to_string());
        let done = |_: &ForkRequest, _| {};
        let traces = trace::split::trace_benchmarks(
            requests,
            &valgrind,
            &cache,
            scratch.path(),
            (&done, &note),
        );
        let traces: Vec<Trace> = traces
            .into_iter()
            .map(|traced| traced.unwrap_or_else(|e| panic!("{e}: {e:?}")))
            .collect();
        (traces, notes.into_inner().unwrap())
    };
    // The shared run of both dies of SIGILL in an instruction valgrind cannot decode: both are
    // traced natively, in one run split per benchmark, as a target too slow for valgrind is.
    let (traces, notes) = traced(&requests(&["alpha", "file"]));
    for trace in &traces {
        assert_eq!(trace.tracer, trace::Tracer::Native);
        assert_eq!(trace.runs[0].shared_by, Some(2));
        assert!(trace.timed.is_some(), "{:?}", trace.untimed);
    }
    assert!(ran(&traces[0], &exe, "alpha_work") && !ran(&traces[0], &exe, "beta_work"));
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].contains(
            "traced natively (valgrind cannot run its code: it does not know an instruction \
             this CPU runs, bytes 62 f2 fd 48 b4 c1 48 8b 05 00); the native trace decides \
             instead"
        ),
        "{notes:?}"
    );
    // A later run on the same executable goes native at once, saying why: `beta` alone (no
    // shared run) and not kept.
    let (later, notes) = traced(&requests(&["beta"]));
    assert_eq!(later[0].tracer, trace::Tracer::Native);
    assert!(ran(&later[0], &exe, "beta_work"));
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].contains(
            "bytes 62 f2 fd 48 b4 c1 48 8b 05 00, as an earlier run of this executable found"
        ),
        "{notes:?}"
    );
    // `bencher`, which the native trace cannot follow, keeps valgrind's reason, naming the
    // bytes, and leaves no marker.
    let bencher = request(
        "bn",
        Harness::Bencher,
        "alpha",
        &scratch.path().join("home"),
    );
    let failed = trace::split::trace_benchmarks(
        std::slice::from_ref(&bencher),
        &valgrind,
        &cache,
        scratch.path(),
        (&|_, _| {}, &|_| {}),
    );
    let failed = failed[0].as_ref().unwrap_err();
    assert!(
        matches!(failed, TraceError::Undecodable { .. }),
        "{failed:?}"
    );
    assert!(failed.to_string().contains("bytes 62 f2 fd 48"), "{failed}");
    assert_eq!(cache.unfit_for_valgrind(&bencher), None);
}

/// One native run of several criterion benchmarks (what a target none of whose functions
/// differs is traced with): it runs each of them once, its trace holds every one's functions and
/// every file any of them opened, and it is not kept (a later comparison needs each one's own).
#[test]
fn one_native_run_of_a_target_s_benchmarks_holds_what_all_of_them_executed_and_read() {
    let exe = fixture().executable("crit").to_path_buf();
    let scratch = tempfile::tempdir().unwrap();
    let cache = TraceCache::new(scratch.path().join("traces"));
    let requests: Vec<ForkRequest> = ["alpha", "beta", "file"]
        .iter()
        .map(|id| request("crit", CRITERION, id, &scratch.path().join("home")))
        .collect();
    let union = trace::split::trace_union_natively(&requests, scratch.path())
        .unwrap_or_else(|e| panic!("{e}: {e:?}"));
    assert_eq!(union.tracer, trace::Tracer::Native);
    for work in ["alpha_work", "beta_work", "set_up_for_every_benchmark"] {
        assert!(ran(&union, &exe, work), "{work}");
    }
    let input = union.files_under(&fixture().dir);
    assert_eq!(
        input.get(Path::new("data/input.txt")).copied(),
        Some(Access::Opened)
    );
    // The run's set-up is no benchmark's; nothing is kept.
    assert!(union.set_up_ms.is_none());
    assert!(requests.iter().all(|r| cache.kept(r).is_none()));
    // An id asked twice is no such run.
    let twice = [requests[0].clone(), requests[0].clone()];
    assert!(trace::split::trace_union_natively(&twice, scratch.path()).is_err());
}

/// The same one run for divan (its exact names, a benchmark's thread counts all run) and for
/// libtest (several exact filters): each benchmark's functions are in it, and a benchmark left
/// out is not.
#[test]
fn one_native_run_of_divan_or_libtest_benchmarks_holds_each_one_s_functions() {
    let scratch = tempfile::tempdir().unwrap();
    let home = scratch.path().join("home");
    for (target, harness, ids) in [
        (
            "dv",
            Harness::Divan,
            ["dv::alpha", "dv::gamma::t=1", "dv::gamma::t=2"],
        ),
        ("lt", Harness::Libtest, ["alpha", "set_up_apart", "beta"]),
    ] {
        let exe = fixture().executable(target).to_path_buf();
        let requests: Vec<ForkRequest> = ids
            .iter()
            .map(|id| request(target, harness, id, &home))
            .collect();
        let union = trace::split::trace_union_natively(&requests, scratch.path())
            .unwrap_or_else(|e| panic!("{target}: {e}: {e:?}"));
        assert!(ran(&union, &exe, "alpha_work"), "{target}");
        let beta = ran(&union, &exe, "beta_work");
        assert_eq!(beta, harness == Harness::Libtest, "{target}: beta_work");
    }
}

#[test]
fn a_benchmark_traced_alone_is_not_given_what_runs_after_its_samples() {
    let exe = fixture().executable("crit").to_path_buf();
    let scratch = tempfile::tempdir().unwrap();
    let cache = TraceCache::new(scratch.path().join("traces"));
    // The only benchmark of its target to trace: a run of its own, split at its `test_pass`.
    let traces = traced_together(&["alpha"], &cache, scratch.path());
    let [alpha] = &traces[..] else { unreachable!() };
    let shared: Vec<Option<usize>> = alpha.runs.iter().map(|r| r.shared_by).collect();
    assert_eq!(shared, [None]);
    // What runs before its samples is its own: start-up, the set-up, its routine.
    assert!(ran(alpha, &exe, "set_up_for_every_benchmark"));
    assert!(ran(alpha, &exe, "alpha_work") && !ran(alpha, &exe, "beta_work"));
    assert!(alpha.timed.is_some(), "{:?}", alpha.untimed);
    assert!(alpha.files.keys().any(|f| f.ends_with("libc.so.6")));
    // The later group's set-up runs after its samples: a fork runs it after they are taken.
    assert!(!ran(alpha, &exe, "after_every_benchmark"));
}

#[test]
fn what_one_run_cannot_split_is_traced_benchmark_by_benchmark() {
    let exe = fixture().executable("crit").to_path_buf();
    let scratch = tempfile::tempdir().unwrap();
    let requests: Vec<ForkRequest> = ["alpha", "alph"]
        .iter()
        .map(|id| request("crit", CRITERION, id, &scratch.path().join("home")))
        .collect();
    // A benchmark the run does not show (no such id): the one run is refused, not split wrongly.
    let together = trace::split::trace_together(&requests, &valgrind(), scratch.path());
    assert!(
        matches!(together, Err(trace::split::SplitError::Unsplittable { .. })),
        "{together:?}"
    );
    // Then each alone, as before: alpha traced in a run of its own, `alph` an error.
    let cache = TraceCache::new(scratch.path().join("traces"));
    let traced = trace::split::trace_benchmarks(
        &requests,
        &valgrind(),
        &cache,
        scratch.path(),
        (&|_, _| {}, &|_| {}),
    );
    let alpha = traced[0].as_ref().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(alpha.runs.len(), 1);
    assert_eq!(alpha.runs[0].shared_by, None);
    assert!(ran(alpha, &exe, "alpha_work") && !ran(alpha, &exe, "beta_work"));
    assert!(
        matches!(traced[1], Err(TraceError::NotRun { .. })),
        "{:?}",
        traced[1]
    );
    // `batched` runs after `file` in the one run, and `file` opened a file `batched`'s own part
    // did not: what `file` left (a static filled from it) `batched` would build itself in a run
    // of its own, so `batched` is traced alone, without `file`'s file; `file` keeps its split.
    let cache = TraceCache::new(scratch.path().join("traces-2"));
    let traces = traced_together(&["file", "batched"], &cache, scratch.path());
    assert_eq!(traces[0].runs[0].shared_by, Some(2));
    assert_eq!(traces[1].runs[0].shared_by, None);
    assert!(
        traces[1].files_under(&fixture().dir).is_empty(),
        "{:?}",
        traces[1].files_under(&fixture().dir)
    );
    // Its run of its own is split too: the later group's set-up, after its samples, is not in it.
    assert!(ran(&traces[1], &exe, "batched_setup"));
    assert!(!ran(&traces[1], &exe, "after_every_benchmark"));
    // Another harness has no split: divan's benchmarks are each traced alone.
    let divan: Vec<ForkRequest> = ["dv::alpha", "dv::beta"]
        .iter()
        .map(|id| request("dv", Harness::Divan, id, &scratch.path().join("home")))
        .collect();
    for traced in trace::split::trace_benchmarks(
        &divan,
        &valgrind(),
        &cache,
        scratch.path(),
        (&|_, _| {}, &|_| {}),
    ) {
        let traced = traced.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(traced.runs[0].shared_by, None);
    }
}

/// Requests for `ids` of the fixture's `cut` target (what one native run split per benchmark
/// gives each), each of whose runs appends a line to `runs`.
fn cut_requests(ids: &[&str], scratch: &Path, runs: &Path) -> Vec<ForkRequest> {
    ids.iter()
        .map(|id| {
            let mut req = request("cut", CRITERION, id, &scratch.join("home"));
            req.env = vec![("TRACE_FIXTURE_RUNS".into(), runs.as_os_str().to_owned())];
            req
        })
        .collect()
}

/// How many runs of the `cut` target wrote to `runs`.
fn runs_counted(runs: &Path) -> usize {
    std::fs::read_to_string(runs).map_or(0, |text| text.lines().count())
}

/// One native run of five benchmarks, cut at criterion's `test_start` and `test_pass`: each
/// benchmark's trace holds what its own native run holds of its routine's and set-up's
/// functions, its timed part and the fixture's files it opened; a function the first and third
/// call in their set-up is in the third's (its breakpoint armed again after the first's part),
/// the file `reader` opens is in no earlier benchmark's trace, and the benchmark after `reader`
/// is left to a run of its own (what `reader`'s part opened it may need).
#[test]
fn one_native_run_split_per_benchmark_gives_each_what_its_own_native_run_gives() {
    let exe = fixture().executable("cut").to_path_buf();
    let scratch = tempfile::tempdir().unwrap();
    let runs = scratch.path().join("runs");
    let ids = ["first", "second", "third", "reader", "after_reader"];
    let requests = cut_requests(&ids, scratch.path(), &runs);
    let split = trace::split::trace_together_natively(&requests, scratch.path())
        .unwrap_or_else(|e| panic!("{e}: {e:?}"));
    assert_eq!(runs_counted(&runs), 1, "one run of the target for all");
    let [Some(first), Some(second), Some(third), Some(reader), None] = &split[..] else {
        panic!("{split:?}")
    };
    let names = ["first_and_third", "only_first", "only_second", "in_reader"];
    let timed_in = |trace: &Trace, name: &str| {
        let (start, end) = function_range(&exe, name);
        let timed = trace.timed.as_ref();
        let timed = timed.unwrap_or_else(|| panic!("no timed part: {:?}", trace.untimed));
        timed.range(start..end).next().is_some()
    };
    for (req, trace) in requests.iter().zip([first, second, third, reader]) {
        let alone = trace::native::trace_natively(req, scratch.path())
            .unwrap_or_else(|e| panic!("{e}: {e:?}"));
        let id = &req.benchmark_id;
        for name in names {
            assert_eq!(
                ran(trace, &exe, name),
                ran(&alone, &exe, name),
                "{id}: {name}"
            );
            let timed = timed_in(trace, name);
            assert_eq!(timed, timed_in(&alone, name), "{id}: {name} timed");
        }
        let files = trace.files_under(&fixture().dir);
        assert_eq!(files, alone.files_under(&fixture().dir), "{id}");
        assert_eq!(trace.tracer, trace::Tracer::Native);
        assert_eq!(trace.runs[0].shared_by, Some(5));
    }
    // The parts that matter, said outright.
    assert!(ran(third, &exe, "first_and_third") && !timed_in(third, "first_and_third"));
    assert!(!ran(third, &exe, "only_first") && !ran(second, &exe, "first_and_third"));
    let input = |trace: &Trace| {
        let files = trace.files_under(&fixture().dir);
        files.get(Path::new("data/input.txt")).copied()
    };
    assert_eq!(input(reader), Some(Access::Opened));
    for earlier in [first, second, third] {
        assert_eq!(input(earlier), None);
    }
}

/// Where benchmarks are traced natively one by one, one split run traces them all: one run of
/// the target (and one more for the benchmark it leaves to a run of its own), each trace kept
/// and told. A run that starts a thread is not split: each is traced in a run of its own.
#[test]
fn benchmarks_traced_natively_share_one_split_run_unless_it_starts_a_thread() {
    let exe = fixture().executable("cut").to_path_buf();
    let scratch = tempfile::tempdir().unwrap();
    let runs = scratch.path().join("runs");
    let ids = ["first", "second", "third", "reader", "after_reader"];
    let requests = cut_requests(&ids, scratch.path(), &runs);
    let cache = TraceCache::new(scratch.path().join("traces"));
    let told = std::sync::Mutex::new(Vec::new());
    let done = |req: &ForkRequest, _| told.lock().unwrap().push(req.benchmark_id.clone());
    let notes = std::sync::Mutex::new(Vec::new());
    let note = |message: &str| notes.lock().unwrap().push(message.to_string());
    let traced = trace::split::trace_benchmarks_natively(
        &requests,
        &cache,
        scratch.path(),
        (&done, &note),
        "no function differs",
    );
    assert_eq!(runs_counted(&runs), 2, "{:?}", notes.lock().unwrap());
    assert_eq!(told.lock().unwrap().len(), 5);
    let shared: Vec<Option<usize>> = traced
        .iter()
        .map(|t| t.as_ref().unwrap_or_else(|e| panic!("{e}")).runs[0].shared_by)
        .collect();
    assert_eq!(shared, [Some(5), Some(5), Some(5), Some(5), None]);
    assert!(requests.iter().all(|r| cache.kept(r).is_some()));
    let third = traced[2].as_ref().unwrap();
    assert!(ran(third, &exe, "first_and_third"));
    // A thread started: refused, and each traced in a run of its own (three runs in all).
    let runs = scratch.path().join("runs-threaded");
    let requests = cut_requests(&["first", "threaded"], scratch.path(), &runs);
    let together = trace::split::trace_together_natively(&requests, scratch.path());
    assert!(
        matches!(&together, Err(trace::split::SplitError::Unsplittable { why, .. }) if why.contains("thread")),
        "{together:?}"
    );
    let cache = TraceCache::new(scratch.path().join("traces-threaded"));
    let notes = std::sync::Mutex::new(Vec::new());
    let note = |message: &str| notes.lock().unwrap().push(message.to_string());
    let traced = trace::split::trace_benchmarks_natively(
        &requests,
        &cache,
        scratch.path(),
        (&|_, _| {}, &note),
        "no function differs",
    );
    assert_eq!(runs_counted(&runs), 4);
    for trace in &traced {
        let trace = trace.as_ref().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(trace.runs[0].shared_by, None);
    }
    assert!(ran(traced[1].as_ref().unwrap(), &exe, "in_thread"));
    let notes = notes.into_inner().unwrap();
    assert!(
        notes.iter().any(|n| n.contains("a thread started")),
        "{notes:?}"
    );
}

/// A part of the one native run that goes one benchmark's budget without a benchmark starting
/// or passing stops the run (then each is traced in a run of its own), not the sum of their
/// budgets: `second`'s set-up sleeps 6 s, each benchmark's budget is 3 s, the sum 15 s.
#[test]
fn a_native_split_run_stops_when_a_part_outlasts_one_benchmark_s_budget() {
    let scratch = tempfile::tempdir().unwrap();
    let runs = scratch.path().join("runs");
    let ids = ["first", "second", "third", "reader", "after_reader"];
    let mut requests = cut_requests(&ids, scratch.path(), &runs);
    for req in &mut requests {
        req.env
            .push(("TRACE_FIXTURE_SECOND_SLEEPS".into(), "6".into()));
        req.timeout = Duration::from_secs(3);
    }
    let together = trace::split::trace_together_natively(&requests, scratch.path());
    // Stopped at one benchmark's 3 s, as a native trace is stopped (a failure that says so).
    let stopped = |e: &TraceError| {
        let message = e.to_string();
        message.contains("stopped natively") && message.contains("3.0 s")
    };
    assert!(
        matches!(&together, Err(trace::split::SplitError::Run(e)) if stopped(e)),
        "{together:?}"
    );
}
