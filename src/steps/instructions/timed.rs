//! The routine each harness times: the function whose calls, from entry to return, hold a
//! benchmark's timed loop. Selection compares by machine code only what runs within those calls
//! (the trace's timed part, [`crate::steps::reach::trace`]) and lets the native probe count
//! only what runs inside them ([`crate::steps::reach::probe::timing`]); what a benchmark runs
//! outside them (the harness's start-up and argument parsing, the benchmark's set-up, teardown,
//! the harness's bookkeeping between samples) is not measured.
//!
//! Why here: what each harness's routine is called is the knowledge the instruction counter
//! already rests on (it counts inside the same routines), one file a harness.
//!
//! A routine must be a function of its own in the executable: a trace sees it in the call
//! graph, a probe stops at its entry. Each harness lists its routines most precise first; the
//! first the executable has is the one (the same for the trace and the probe of a benchmark).
//! Every routine listed holds the whole timed loop of any benchmark that enters it, and maybe
//! more (then more counts as timed, which only measures more). When the compiler inlined the
//! routine into the benchmark's function, none is found, and the benchmark's changed code counts
//! wherever it runs.
//!
//! - criterion: `Bencher::iter` and the like ([`criterion::is_measured_method`]), which criterion
//!   marks `#[inline(never)]`;
//! - divan 0.1.16 and later (and CodSpeed's fork of it, `codspeed-divan-compat`, whose code is
//!   divan's under another crate name): its sample task (`TaskShared<F>::new::call`,
//!   [`divan::is_sample_task`]), called through a function pointer and so never inlined. It runs
//!   one sample: the inputs of `with_inputs` made before the timer's first read (inside:
//!   conservative), the loop between the two reads, the outputs dropped after. divan 0.1.15 and
//!   earlier have no sample task; there `BenchContext::bench_loop_threaded`, which runs every
//!   sample and divan's tuning between them, is the routine (more than the loop: conservative);
//! - libtest: `test::bench::Bencher::iter` and what it calls to time the loop, `test::bench::iter`
//!   and `test::bench::ns_iter_inner` (whichever the compiler kept as a function holds the loop);
//! - `bencher`: `bencher::Bencher::iter`, which holds its loop and both clock reads.
//!
//! libtest's and `bencher`'s are generic functions without `#[inline(never)]`: a release build
//! usually inlines them into the benchmark's function. Then no routine is found, and nothing is
//! skipped this way. A benchmark that calls `iter` twice, once inlined and once not, would have
//! the inlined loop taken as outside: a shape no benchmark needs (the second call's time replaces
//! the first's).

use std::path::Path;

use super::{InstructionsError, bencher, criterion, divan, libtest, symbols};
use crate::model::harness::Harness;

/// One routine a harness times.
#[derive(Debug)]
pub struct TimedRoutine {
    /// What it is called, for messages: "criterion's `Bencher::iter` and the like".
    pub what: &'static str,
    /// Whether a function (its [`symbols::skeleton`]) is this routine.
    pub is: fn(&str) -> bool,
}

const CRITERION: &[TimedRoutine] = &[TimedRoutine {
    what: "criterion's `Bencher::iter` and the like",
    is: criterion::is_measured_method,
}];

const DIVAN: &[TimedRoutine] = &[
    TimedRoutine {
        what: "divan's sample task (`TaskShared<F>::new::call`, divan 0.1.16 and later)",
        is: divan::is_sample_task,
    },
    TimedRoutine {
        what: "divan's sampling loop (`BenchContext::bench_loop_threaded`, divan 0.1.15 and \
               earlier)",
        is: divan::is_sampling_loop,
    },
];

const LIBTEST: &[TimedRoutine] = &[TimedRoutine {
    what: "libtest's `Bencher::iter`",
    is: libtest::is_timed_routine,
}];

const BENCHER: &[TimedRoutine] = &[TimedRoutine {
    what: "bencher's `Bencher::iter`",
    is: bencher::is_timed_routine,
}];

/// The routines `harness` times, most precise first (none for a command).
pub fn routines(harness: Harness) -> &'static [TimedRoutine] {
    match harness {
        Harness::Criterion(_) => CRITERION,
        Harness::Divan => DIVAN,
        Harness::Libtest => LIBTEST,
        Harness::Bencher => BENCHER,
        Harness::Command => &[],
    }
}

/// The routine of `harness` an executable whose functions' skeletons are `skeletons` has: the
/// first of [`routines`] any of them is.
pub fn routine_among<'a>(
    harness: Harness,
    skeletons: impl IntoIterator<Item = &'a str> + Clone,
) -> Option<&'static TimedRoutine> {
    routines(harness)
        .iter()
        .find(|routine| skeletons.clone().into_iter().any(|s| (routine.is)(s)))
}

/// The routine of `harness` the executable at `path` has ([`routine_among`] its symbols).
/// A harness with one routine needs no look at the executable: a trace or probe that does not
/// find it finds nothing.
pub fn routine_of(
    harness: Harness,
    path: &Path,
) -> Result<Option<&'static TimedRoutine>, InstructionsError> {
    let all = routines(harness);
    if all.len() <= 1 {
        return Ok(all.first());
    }
    let names = symbols::matching(path, |skeleton, _| all.iter().any(|r| (r.is)(skeleton)))?;
    let skeletons: Vec<String> = names
        .iter()
        .map(|raw| symbols::skeleton(&super::callgrind::demangle(raw)))
        .collect();
    Ok(routine_among(harness, skeletons.iter().map(String::as_str)))
}

/// What the timed routines of `harness` are, for a message: each routine's name, joined.
pub fn described(harness: Harness) -> String {
    let names: Vec<&str> = routines(harness).iter().map(|r| r.what).collect();
    match names.as_slice() {
        [] => "no timed routine (a command)".to_string(),
        names => names.join(", or "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::harness::CliDialect;

    /// Whether `name` (demangled, either mangling) is a timed routine of `harness`.
    fn is_routine(harness: Harness, name: &str) -> bool {
        let skeleton = symbols::skeleton(name);
        routines(harness).iter().any(|r| (r.is)(&skeleton))
    }

    #[test]
    fn each_harness_s_routines_are_its_own() {
        let criterion = Harness::Criterion(CliDialect::Current);
        let cases: [(Harness, &[&str]); 4] = [
            (
                criterion,
                &[
                    "criterion::bencher::Bencher<M>::iter",
                    "<criterion::bencher::Bencher<criterion::measurement::WallTime>>::iter::<u64, \
                     demo::hash::{closure#0}>",
                ],
            ),
            (
                Harness::Divan,
                &[
                    "divan::thread_pool::TaskShared<F>::new::call",
                    "<divan::thread_pool::TaskShared<_>>::new::call::<<divan::thread_pool::\
                     ThreadPool>::par_extend<divan::benchmark::RawSample, fn() -> u8>>",
                    "divan::util::thread::pool::TaskShared<F>::new::call",
                    "divan::bench::BenchContext::bench_loop_threaded",
                    "<divan::benchmark::BenchContext>::bench_loop_threaded::<(), u64, _, _, _>",
                ],
            ),
            (
                Harness::Libtest,
                &[
                    "test::bench::Bencher::iter",
                    "<test::bench::Bencher>::iter::<u64, demo::hash::mix::{closure#0}>",
                    "test::bench::iter",
                    "test::bench::ns_iter_inner::<demo::hash::mix::{closure#0}, u64>",
                ],
            ),
            (
                Harness::Bencher,
                &[
                    "bencher::Bencher::iter",
                    "<bencher::Bencher>::iter::<u64, demo::hash::mix::{closure#0}>",
                ],
            ),
        ];
        // Criterion's rule takes any type named `Bencher` but libtest's (its forks rename the
        // crate), so only the others are told apart by their crate.
        let others = [Harness::Divan, Harness::Libtest, Harness::Bencher];
        for (harness, names) in cases {
            for name in names {
                assert!(is_routine(harness, name), "{harness}: {name}");
                for other in others.into_iter().filter(|other| *other != harness) {
                    assert!(!is_routine(other, name), "{other}: {name}");
                }
            }
        }
        for name in [
            "bencher::Bencher::auto_bench",
            "bencher::Bencher::bench_n",
            "test::bench::run_once",
            "test::bench::benchmark",
            "divan::thread_pool::ThreadPool::broadcast_task",
            "divan::benchmark::BenchContext::sample_recorder::{{closure}}",
            "demo::hash::mix",
        ] {
            for harness in [
                criterion,
                Harness::Divan,
                Harness::Libtest,
                Harness::Bencher,
            ] {
                assert!(!is_routine(harness, name), "{harness}: {name}");
            }
        }
        assert!(routines(Harness::Command).is_empty());
    }

    #[test]
    fn the_first_routine_an_executable_has_is_the_one() {
        let task = "divan::thread_pool::TaskShared::new::call";
        let sampling = "divan::benchmark::BenchContext::bench_loop_threaded";
        // divan 0.1.21: both; the sample task, the more precise, is the one.
        let found = routine_among(Harness::Divan, [sampling, task, "main"]).unwrap();
        assert!(found.what.contains("sample task"), "{found:?}");
        // divan 0.1.14: no sample task.
        let found = routine_among(Harness::Divan, [sampling, "main"]).unwrap();
        assert!(found.what.contains("bench_loop_threaded"), "{found:?}");
        // Everything inlined: none.
        assert!(routine_among(Harness::Divan, ["main"]).is_none());
        assert!(routine_among(Harness::Bencher, ["demo::hash::mix"]).is_none());
    }

    /// CodSpeed's fork of divan (`codspeed-divan-compat`, const-hex's benchmarks) keeps divan's
    /// routines under its own crate: they are the timed routines of a divan benchmark, so that
    /// its set-up is not taken for its timed loop.
    #[test]
    fn the_routines_of_codspeed_s_divan_fork_are_divan_s() {
        let task = "codspeed_divan_compat_walltime::thread_pool::TaskShared::new::call";
        let sampling = "codspeed_divan_compat_walltime::bench::BenchContext::bench_loop_threaded";
        let found = routine_among(Harness::Divan, [sampling, task, "main"]).unwrap();
        assert!(found.what.contains("sample task"), "{found:?}");
        let found = routine_among(Harness::Divan, [sampling, "main"]).unwrap();
        assert!(found.what.contains("bench_loop_threaded"), "{found:?}");
    }

    #[test]
    fn a_message_names_what_was_looked_for() {
        assert_eq!(described(Harness::Bencher), "bencher's `Bencher::iter`");
        assert!(described(Harness::Divan).contains("sample task"));
        assert!(described(Harness::Divan).contains("bench_loop_threaded"));
    }
}
