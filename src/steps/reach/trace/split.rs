//! One traced run for the benchmarks of a criterion bench target, split into one trace per
//! benchmark (docs/design/selection-trace.md, "One run per bench target").
//!
//! Why: a run of its own per benchmark pays valgrind's start (symbols, line tables), the
//! harness's start-up and everything `main` sets up before criterion's filter once per
//! benchmark; on image-png that set-up (576 MB of PNGs) took every trace to its 30 s cap. One
//! run in criterion's test mode with a filter matching exactly the benchmarks to trace pays it
//! once.
//!
//! How the run is split: criterion (0.3 to 0.8) calls `<Reports as Report>::test_start` and
//! `test_pass` around each benchmark's one call in test mode (it prints `Testing ID` in the
//! first, `Success` in the second). callgrind is told `--dump-before=` the first and
//! `--dump-after=` the second, so the main process's profile comes in parts: outside,
//! benchmark, outside, benchmark, …, outside (the profile at its exit). The k-th benchmark part
//! belongs to the k-th `Testing ID` line of the output.
//!
//! What each benchmark is given, sound in one direction (more than it executes or reads only
//! makes it measured, never skipped): its own part (its routine's call, its set-up inside the
//! closure, criterion's code around it), the outside parts *before* its own (the harness's
//! start-up, what the benchmark functions and groups run before its `bench_function`, the
//! set-up of the benchmarks tested before it) and every other process's profile. The main
//! process's system-call log is cut at its writes of criterion's `Testing ID` and `Success`
//! lines ([`cut_log`]) when the output held those lines alone (nothing the benchmarks printed
//! between them) and no directory was changed: a benchmark gets the calls outside every
//! benchmark before its `Testing` line, those between its two lines, and the other processes'
//! logs. Otherwise every benchmark gets the whole log. Its timed part
//! ([`super::runs::timed_code`]) is read from the same, as in a run of its own. A run in which a
//! thread started is not split at all: a thread's work may outlast the part of the benchmark
//! that started it.
//!
//! Why what runs after a benchmark's `test_pass` is not its (later benchmarks' set-up, later
//! groups, `final_summary`, `Criterion`'s drop, the process's exit): a fork measuring benchmark
//! X runs the same `main` as this run, in the same order; criterion's filter only skips the other
//! benchmarks' closures. In measuring mode criterion sends X's samples over its runner protocol
//! (`MeasurementComplete`, [`crate::steps::fork::protocol`]) before its measurement returns, at
//! the point where test mode calls `test_pass`; what perfdiff reads of the fork is those samples,
//! then the exit status. So nothing after that point can change a sample: it runs after them in
//! the same process, on one thread (a run that started a thread is not split). What a later part
//! can still do is fail (a panic in a later group's set-up, a crash at exit): the fork then fails
//! and no sample is kept, which is not a different sample; and a set-up that panics fails the
//! target's listing too (criterion runs every benchmark function's set-up when it lists), so the
//! run says so on the side it fails. The time after the samples (`outside_ms`) only plans the
//! run's length. Which parts lie before X is told by the alternation of the parts, outside then
//! benchmark ([`owners`]), and by the log's order of writes, both in the order of execution.
//!
//! What a benchmark does not execute because an earlier one of the run did (the initialiser of a
//! lazily built static that both use) is missing from its part, as it is from what any call
//! after the first executes: the native probe, which runs each benchmark the trace would skip
//! alone, enters it and finds it changed ([`crate::steps::reach::probe`]). A file such an
//! initialiser opened is in the earlier benchmark's part of the log only: see
//! docs/design/selection-trace.md for why that stays sound.
//!
//! A benchmark traced in a run of its own (the only one of its target left to trace, one after
//! a benchmark that opened a file) is traced the same way, in a run split for that one
//! benchmark ([`trace_alone`]), and so is not given what runs after its `test_pass` either.
//!
//! Natively ([`trace_together_natively`], where valgrind is too slow for the target's set-up or
//! cannot decode an instruction its code runs, or only what the benchmarks read is asked), one
//! run is cut the same way at the same two
//! functions' entries ([`super::native::trace_split_natively`]), each benchmark given the same
//! share, and refused for the same reasons; a function's entry is then seen once per part it is
//! entered in, not once per run (docs/design/selection-trace.md, "One native run, split per
//! benchmark").
//!
//! Anything that cannot be split is a [`SplitError`], and [`trace_benchmarks`] then traces each
//! benchmark alone in a whole run of its own, as before (natively, [`super::native`], when the run outlasted its budget:
//! valgrind is then too slow for what the target sets up before criterion's filter): another harness, boundaries missing from the symbol table
//! (inlined under LTO), a part sequence other than expected, an output that does not show each
//! benchmark once, a thread started, a run that fails or outlasts its budget (the sum of its
//! benchmarks' budgets, [`super::runs::budget`], in CPU time with a wall-clock ceiling,
//! [`super::budget`]) or goes the largest of them without a benchmark
//! starting or passing (a set-up before the first that valgrind makes minutes long: stopped
//! after one benchmark's budget, not all of theirs).

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::budget::{Budget, Limit, Meter};
use super::executed::{self, Executed};
use super::runs::{self, Mode, RunTrace};
use super::syscalls::{self, Touched};
use super::{RunSummary, Trace, TraceCache, TraceError, ValgrindUnfit};
use crate::model::harness::{Harness, divan};
use crate::steps::fork::ForkRequest;
use crate::steps::instructions::{Valgrind, dumps, symbols};

/// Why benchmarks could not be traced in one run; they are then traced each alone.
#[derive(Debug, thiserror::Error)]
pub enum SplitError {
    #[error("the benchmarks of {target} cannot be traced in one run: {why}")]
    Unsplittable { target: String, why: String },
    #[error(transparent)]
    Run(#[from] TraceError),
}

/// What [`trace_benchmarks`] tells: each benchmark traced with its share of the time, and a note
/// for the run's log.
pub type Told<'a> = (
    &'a (dyn Fn(&ForkRequest, Duration) + Sync),
    &'a (dyn Fn(&str) + Sync),
);

/// The traces of `reqs`, the benchmarks of one bench target (fork requests as for
/// [`super::trace_benchmark`]), in their order: kept in `cache`, or made in one run split per
/// benchmark ([`trace_together`]) when at least two are missing, or, for those one run could not
/// trace, each in a run of its own, one per CPU ([`trace_alone`]: split too, for one benchmark,
/// unless the shared run could not be split). A benchmark whose run under valgrind outlasts
/// its budget, or dies at an instruction valgrind cannot decode ([`ValgrindUnfit`]; the shared
/// run's, or its own), is traced natively ([`super::native`]), and once the shared run has, so
/// is every benchmark of the target (not `bencher`'s, which keeps valgrind's error); `cache`
/// remembers it and why, and a later
/// run on the same executable traces natively without a valgrind run; `note` is told so once
/// (and whether an earlier run found it); those traced natively are first traced in one native
/// run split per benchmark ([`trace_together_natively`]), each left alone after it natively in a
/// run of its own. Each new
/// trace is kept in `cache` under its own benchmark; scratch directories are made in
/// `scratch`. `done` is told of each benchmark traced, with its share of the time.
pub fn trace_benchmarks(
    reqs: &[ForkRequest],
    valgrind: &Valgrind,
    cache: &TraceCache,
    scratch: &Path,
    (done, note): Told<'_>,
) -> Vec<Result<Trace, TraceError>> {
    let mut traces: Vec<Option<Result<Trace, TraceError>>> =
        reqs.iter().map(|req| cache.kept(req).map(Ok)).collect();
    for (req, _) in reqs.iter().zip(&traces).filter(|(_, t)| t.is_some()) {
        done(req, Duration::ZERO);
    }
    let missing: Vec<usize> = (0..reqs.len()).filter(|&i| traces[i].is_none()).collect();
    // Known from an earlier run: no valgrind run is spent on this executable again.
    let known = missing
        .first()
        .and_then(|&i| cache.unfit_for_valgrind(&reqs[i]));
    let shared = match (known.clone(), missing.len() >= 2) {
        (Some(unfit), _) => Shared::Native(unfit),
        (None, true) => trace_shared(reqs, &missing, &mut traces, valgrind, cache, scratch, done),
        (None, false) => Shared::NotRun,
    };
    let natively = std::sync::Once::new();
    let noted = |unfit: &ValgrindUnfit| {
        natively.call_once(|| note(&natively_note(&reqs[0], unfit, known.is_some())));
    };
    let cut = shared != Shared::Unsplittable;
    let unfit = match shared {
        Shared::Native(unfit) => Some(unfit),
        _ => None,
    };
    if let Some(unfit) = &unfit {
        noted(unfit);
        let missing: Vec<usize> = (0..reqs.len()).filter(|&i| traces[i].is_none()).collect();
        trace_shared_natively(reqs, &missing, &mut traces, cache, scratch, (done, note));
    }
    // valgrind runs one thread at a time: the benchmarks are traced side by side, one per CPU.
    each_missing(reqs, traces, cache, done, |i| {
        let native = |unfit: &ValgrindUnfit| {
            noted(unfit);
            in_scratch(scratch, |dir| super::native::trace_natively(&reqs[i], dir))
        };
        if let Some(unfit) = &unfit {
            return native(unfit);
        }
        let traced = trace_alone(&reqs[i], valgrind, scratch, cut);
        // A harness the native trace cannot follow (`bencher`) keeps valgrind's reason.
        let unfit = traced.as_ref().err().and_then(ValgrindUnfit::of);
        match unfit.filter(|_| super::native::supports(reqs[i].harness)) {
            Some(unfit) => {
                cache.remember_unfit_for_valgrind(&reqs[i], &unfit);
                native(&unfit)
            }
            None => traced,
        }
    })
}

/// The note of a target whose benchmarks are traced natively because valgrind is `unfit` for
/// it (`known`: as an earlier run of the executable of `first` found).
fn natively_note(first: &ForkRequest, unfit: &ValgrindUnfit, known: bool) -> String {
    let target = first.executable.file_name().unwrap_or_default();
    let known = match known {
        true => ", as an earlier run of this executable found",
        false => "",
    };
    let decides = match unfit {
        ValgrindUnfit::TooSlow => "",
        ValgrindUnfit::CannotRun { .. } => {
            "; the native trace decides instead, as for a target too slow for valgrind"
        }
    };
    format!(
        "{}: traced natively ({unfit}{known}){decides}",
        target.to_string_lossy()
    )
}

/// The traces of `reqs` (one bench target's benchmarks, as for [`trace_benchmarks`]), kept in
/// `cache` or made natively ([`super::native`]), one per CPU, without a valgrind run; `note` is
/// told `why` first, kept traces or not (it says why this target's tracing is quick). For a
/// caller that knows valgrind's instruction trace cannot change a decision: when no function of base's executable differs from head's, what a
/// benchmark executes is the same code whatever it is, and only what it reads and starts is left
/// to ask, which the native trace tells as valgrind's does (its log's rules are shared) at a
/// small part of the cost (a 500-benchmark suite across a version bump: about 45 min under
/// valgrind, docs/design/field-trials.md). Criterion benchmarks are first traced in one native run split per
/// benchmark ([`trace_together_natively`]); those it leaves, each in a run of its own.
pub fn trace_benchmarks_natively(
    reqs: &[ForkRequest],
    cache: &TraceCache,
    scratch: &Path,
    (done, note): Told<'_>,
    why: &str,
) -> Vec<Result<Trace, TraceError>> {
    note(why);
    let mut traces: Vec<Option<Result<Trace, TraceError>>> =
        reqs.iter().map(|req| cache.kept(req).map(Ok)).collect();
    for (req, _) in reqs.iter().zip(&traces).filter(|(_, t)| t.is_some()) {
        done(req, Duration::ZERO);
    }
    let missing: Vec<usize> = (0..reqs.len()).filter(|&i| traces[i].is_none()).collect();
    trace_shared_natively(reqs, &missing, &mut traces, cache, scratch, (done, note));
    each_missing(reqs, traces, cache, done, |i| {
        in_scratch(scratch, |dir| super::native::trace_natively(&reqs[i], dir))
    })
}

/// Every trace of `reqs`, in their order: those `traces` holds, and each it lacks made by
/// `trace` (given the benchmark's index; kept in `cache`), side by side, one per CPU, `done`
/// told of each with its time.
fn each_missing(
    reqs: &[ForkRequest],
    mut traces: Vec<Option<Result<Trace, TraceError>>>,
    cache: &TraceCache,
    done: &(dyn Fn(&ForkRequest, Duration) + Sync),
    trace: impl Fn(usize) -> Result<Trace, TraceError> + Sync,
) -> Vec<Result<Trace, TraceError>> {
    let missing: Vec<usize> = (0..reqs.len()).filter(|&i| traces[i].is_none()).collect();
    let made: Vec<(usize, Result<Trace, TraceError>)> = missing
        .into_par_iter()
        .map(|i| {
            let started = Instant::now();
            let made = cache.get_or_trace(&reqs[i], || trace(i));
            done(&reqs[i], started.elapsed());
            (i, made)
        })
        .collect();
    for (i, made) in made {
        traces[i] = Some(made);
    }
    traces.into_iter().flatten().collect()
}

/// The traces of the criterion benchmarks `missing` of `reqs` (two or more) made in one native
/// run split per benchmark ([`trace_together_natively`]) into `traces`, each kept in `cache`
/// and told to `done`; `note` is told when the run could not be split, and those it could not
/// trace are left to be traced natively each in a run of its own, as before.
fn trace_shared_natively(
    reqs: &[ForkRequest],
    missing: &[usize],
    traces: &mut [Option<Result<Trace, TraceError>>],
    cache: &TraceCache,
    scratch: &Path,
    (done, note): Told<'_>,
) {
    let criterion = |i: &usize| matches!(reqs[*i].harness, Harness::Criterion(_));
    if missing.len() < 2 || !missing.iter().all(criterion) {
        return;
    }
    let group: Vec<ForkRequest> = missing.iter().map(|&i| reqs[i].clone()).collect();
    let started = Instant::now();
    match in_scratch(scratch, |dir| trace_together_natively(&group, dir)) {
        Ok(made) => {
            let each = started.elapsed() / group.len() as u32;
            keep_made(reqs, (missing, made), traces, cache, (done, each));
        }
        Err(e) => note(&format!("{e}: each is traced natively in a run of its own")),
    }
}

/// What is told of each benchmark traced: its request and its share of the time.
type Done<'a> = &'a (dyn Fn(&ForkRequest, Duration) + Sync);

/// The traces `made` of the benchmarks `missing` of `reqs` put in `traces`, each kept in
/// `cache` and told to `done` with `each`, its share of the time; a benchmark without one
/// (`None`) is left.
fn keep_made(
    reqs: &[ForkRequest],
    (missing, made): (&[usize], Vec<Option<Trace>>),
    traces: &mut [Option<Result<Trace, TraceError>>],
    cache: &TraceCache,
    (done, each): (Done<'_>, Duration),
) {
    for (&i, trace) in missing.iter().zip(made) {
        let Some(trace) = trace else { continue };
        let kept = cache.keep_trace(&reqs[i], &trace).map(|()| trace);
        done(&reqs[i], each);
        traces[i] = Some(kept);
    }
}

/// One native run of all of `reqs` (benchmarks of one executable run alike, [`run_alike`]), in
/// their harness's test mode with filters that select them ([`union_args`]): one trace of what
/// they executed, read and started together, more than any one of them does, so sound for each
/// where one that is the same for them all is all a caller needs (no function of the target
/// differs: only what was read is left to ask). Not kept: a later comparison, against code that
/// differs, needs each benchmark's own.
pub fn trace_union_natively(reqs: &[ForkRequest], scratch: &Path) -> Result<Trace, SplitError> {
    let first = run_alike(reqs)?;
    let ids: Vec<&str> = reqs.iter().map(|r| r.benchmark_id.as_str()).collect();
    let args = union_args(first, &ids)?;
    let budget = Budget::sum(reqs.iter().map(runs::budget));
    let traced = in_scratch(scratch, |dir| {
        super::native::trace_run_natively(first, dir, (args, &ids), budget)
    });
    Ok(traced?)
}

/// The arguments of one test-mode run of exactly the benchmarks `ids` of `first`'s harness (or
/// more: a divan benchmark's every thread count): criterion's filter ([`filter`]), libtest's
/// and divan's exact names (both take several filters). Another harness cannot be run so.
fn union_args(first: &ForkRequest, ids: &[&str]) -> Result<Vec<OsString>, SplitError> {
    let mut args: Vec<OsString> = match first.harness {
        Harness::Criterion(_) => return Ok(vec!["--test".into(), filter(ids).into()]),
        Harness::Divan => vec!["--test".into(), "--exact".into()],
        Harness::Libtest => vec!["--exact".into()],
        _ => {
            let why = "its harness takes no filter of several benchmarks";
            return Err(unsplittable(std::slice::from_ref(first), why));
        }
    };
    let names: BTreeSet<&str> = match first.harness {
        Harness::Divan => ids.iter().map(|id| divan::selection(id).0).collect(),
        _ => ids.iter().copied().collect(),
    };
    args.extend(names.into_iter().map(OsString::from));
    Ok(args)
}

/// How a target's shared run went, for the benchmarks it leaves to be traced alone.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Shared {
    /// Split (some benchmarks may still be left: [`trace_together`]'s `None`).
    Split,
    /// It could not be split, or failed: each benchmark alone, a whole run of its own (a run
    /// split for one benchmark would most likely fail the same way, and cost a second run).
    Unsplittable,
    /// It outlasted its budget, or ran an instruction valgrind cannot decode (or an earlier
    /// run's did): each natively.
    Native(ValgrindUnfit),
    /// Fewer than two benchmarks to trace.
    NotRun,
}

/// A benchmark traced in a run of its own ([`trace_benchmarks`]): with `cut`, a criterion
/// benchmark in a split run of that one benchmark ([`trace_together`]), so that it is given only
/// what runs up to its `test_pass`, as a benchmark of a shared run is (module docs); a run that
/// cannot be split, or another harness, its whole run ([`super::trace_benchmark`]). A run over
/// its budget is not run again: the caller traces natively.
fn trace_alone(
    req: &ForkRequest,
    valgrind: &Valgrind,
    scratch: &Path,
    cut: bool,
) -> Result<Trace, TraceError> {
    if cut && matches!(req.harness, Harness::Criterion(_)) && req.command.is_none() {
        let one = std::slice::from_ref(req);
        match in_scratch(scratch, |dir| trace_together(one, valgrind, dir)) {
            Ok(mut traces) => {
                if let Some(Some(trace)) = traces.pop() {
                    return Ok(trace);
                }
            }
            Err(SplitError::Run(unfit)) if ValgrindUnfit::of(&unfit).is_some() => {
                return Err(unfit);
            }
            Err(_) => {}
        }
    }
    in_scratch(scratch, |dir| super::trace_benchmark(req, valgrind, dir))
}

/// The traces of the benchmarks `missing` of `reqs` made in one shared run ([`trace_together`])
/// into `traces`, kept in `cache`; how it went (a run over its budget, or one that ran an
/// instruction valgrind cannot decode, is remembered in `cache`: valgrind is unfit for the
/// target).
fn trace_shared(
    reqs: &[ForkRequest],
    missing: &[usize],
    traces: &mut [Option<Result<Trace, TraceError>>],
    valgrind: &Valgrind,
    cache: &TraceCache,
    scratch: &Path,
    done: &(dyn Fn(&ForkRequest, Duration) + Sync),
) -> Shared {
    let group: Vec<ForkRequest> = missing.iter().map(|&i| reqs[i].clone()).collect();
    let started = Instant::now();
    match in_scratch(scratch, |dir| trace_together(&group, valgrind, dir)) {
        Ok(made) => {
            let each = started.elapsed() / group.len() as u32;
            // A benchmark the run could not give all it reads (`None`) is traced alone after.
            keep_made(reqs, (missing, made), traces, cache, (done, each));
            Shared::Split
        }
        Err(SplitError::Run(e)) => match ValgrindUnfit::of(&e) {
            Some(unfit) => {
                cache.remember_unfit_for_valgrind(&group[0], &unfit);
                Shared::Native(unfit)
            }
            None => Shared::Unsplittable,
        },
        Err(_) => Shared::Unsplittable,
    }
}

/// What `trace` returns, run in a fresh scratch directory of `parent` (removed after).
fn in_scratch<T, E: From<TraceError>>(
    parent: &Path,
    trace: impl FnOnce(&Path) -> Result<T, E>,
) -> Result<T, E> {
    let scratch = tempfile::tempdir_in(parent).map_err(|source| TraceError::Io {
        who: "a trace".to_string(),
        path: parent.to_path_buf(),
        source,
    })?;
    trace(scratch.path())
}

/// The traces of `reqs` (criterion benchmarks of one executable, run alike), in their order,
/// made in one test-mode run under valgrind in `dir` and split per benchmark (module docs);
/// `None` for a benchmark the run cannot give all it would read in a run of its own (a file an
/// earlier benchmark's part opened and its own did not), to be traced alone.
pub fn trace_together(
    reqs: &[ForkRequest],
    valgrind: &Valgrind,
    dir: &Path,
) -> Result<Vec<Option<Trace>>, SplitError> {
    let first = alike(reqs)?;
    let target = first.executable.display().to_string();
    let unsplittable = |why: String| SplitError::Unsplittable {
        target: target.clone(),
        why,
    };
    let boundaries = Boundaries::of(&first.executable).map_err(&unsplittable)?;
    let started = Instant::now();
    let launched = launch(reqs, valgrind, &boundaries, dir)?;
    let wall_ms = started.elapsed().as_secs_f64() * 1e3;
    let parts = read_parts(&launched, &first.cwd).map_err(&unsplittable)?;
    let order = launched.order;
    let context = RunContext {
        harness: first.harness,
        executable: &first.executable,
        wall_ms,
        shared_by: reqs.len(),
    };
    let mut by_id = parts.split(&context).map_err(&unsplittable)?;
    let traces = reqs.iter().map(|req| {
        let index = order.iter().position(|id| *id == req.benchmark_id)?;
        let mut trace = Trace {
            cwd: req.cwd.clone(),
            ..Trace::default()
        };
        trace.add(by_id[index].take()?);
        Some(trace)
    });
    Ok(traces.collect())
}

/// The traces of `reqs` (criterion benchmarks of one executable, run alike), in their order,
/// made in one native run in `dir` ([`super::native::trace_split_natively`]) cut per benchmark
/// at criterion's boundaries as [`trace_together`] cuts valgrind's run, each given the same
/// share (module docs): its own part, the outside parts before it, every other process's
/// entries and system calls; `None` for a benchmark an earlier one's part opened a file for
/// ([`covers`]). Refused ([`SplitError`]) as [`trace_together`] refuses: a thread started, the
/// output not showing each benchmark once, parts out of order; and within the sum of their
/// budgets.
pub fn trace_together_natively(
    reqs: &[ForkRequest],
    dir: &Path,
) -> Result<Vec<Option<Trace>>, SplitError> {
    let first = alike(reqs)?;
    let unsplittable = |why: String| SplitError::Unsplittable {
        target: first.executable.display().to_string(),
        why,
    };
    let (starts, passes) = boundary_entries(&first.executable).map_err(&unsplittable)?;
    let ids: Vec<&str> = reqs.iter().map(|r| r.benchmark_id.as_str()).collect();
    let args = vec!["--test".into(), filter(&ids).into()];
    let budget = Budget::sum(reqs.iter().map(runs::budget));
    let part = reqs.iter().map(runs::budget).reduce(Budget::max);
    let cut_at = super::native::CutAt {
        starts: &starts,
        passes: &passes,
        part: part.unwrap_or(budget),
    };
    let run = super::native::trace_split_natively(first, dir, (args, &ids), (cut_at, budget))?;
    let order = natively_tested(&run, &ids).map_err(&unsplittable)?;
    let mut by_id = natively_given(run, &first.cwd, order.len());
    let traces = reqs.iter().map(|req| {
        let index = order.iter().position(|id| *id == req.benchmark_id)?;
        by_id[index].take()
    });
    Ok(traces.collect())
}

/// The entries (ELF virtual addresses) of criterion's `<Reports as Report>::test_start` and
/// `test_pass` in `executable` ([`Boundaries`]); an error when either is missing.
fn boundary_entries(executable: &Path) -> Result<(Vec<u64>, Vec<u64>), String> {
    use object::{Object, ObjectSymbol};
    let data = std::fs::read(executable)
        .map_err(|e| format!("cannot read {}: {e}", executable.display()))?;
    let file = object::File::parse(&*data)
        .map_err(|e| format!("cannot parse {}: {e}", executable.display()))?;
    let named = |method: &str| -> Vec<u64> {
        let text = file.symbols().filter(|s| {
            s.kind() == object::SymbolKind::Text && s.is_definition() && s.address() != 0
        });
        let wanted = text.filter(|s| {
            s.name().is_ok_and(|raw| {
                is_boundary(
                    &crate::steps::instructions::callgrind::demangle(raw),
                    method,
                )
            })
        });
        wanted.map(|s| s.address()).collect()
    };
    let (starts, passes) = (named("test_start"), named("test_pass"));
    if starts.is_empty() || passes.is_empty() {
        return Err(
            "criterion's `<Reports as Report>::test_start` and `test_pass` are not in its symbol table (inlined?)"
                .to_string(),
        );
    }
    Ok((starts, passes))
}

/// The ids in the order a native split run tested them, when it can be split: its output shows
/// each of `ids` tested once ([`Tested`]), it started no thread, and its parts alternate
/// outside and benchmark, one benchmark part per id.
fn natively_tested(run: &super::native::SplitRun, ids: &[&str]) -> Result<Vec<String>, String> {
    if run.threads > 0 {
        return Err("a thread started: its work cannot be told apart by benchmark".to_string());
    }
    if let Some(wrong) = &run.cut.wrong {
        return Err(wrong.clone());
    }
    let mut tested = Tested {
        wanted: ids.iter().map(|id| id.to_string()).collect(),
        ..Tested::default()
    };
    run.output.lines().for_each(|line| tested.line(line));
    let order = tested.order(ids)?;
    let parts = run.cut.parts.len();
    if parts != 2 * order.len() + 1 || run.cut.timed.len() != order.len() {
        return Err(format!(
            "its run has {parts} part(s) for {} benchmark(s)",
            order.len()
        ));
    }
    Ok(order)
}

/// What each of the `count` benchmarks of the native split run `run` is given, in the order
/// tested, as [`Parts::given`] gives valgrind's (its own part, the outside parts before it,
/// the other processes'; `None` when an earlier benchmark's part opened a file its own and the
/// parts before it did not, [`covers`]). A log that could not be cut gives each all of it.
fn natively_given(run: super::native::SplitRun, cwd: &Path, count: usize) -> Vec<Option<Trace>> {
    let super::native::SplitRun { cut, logs, .. } = &run;
    let parse = |k: usize| -> Option<Touched> {
        let text = logs.as_ref()?.get(k)?;
        Some(syscalls::parse(text, Some(cwd)))
    };
    let mut executed = cut.others.clone();
    let before = match logs {
        Some(_) => run.others_touched.clone(),
        None => run.whole.clone(),
    };
    let touched_parts = (0..count).map(|k| (parse(2 * k), parse(2 * k + 1)));
    let touched = touched_by_each(before, touched_parts);
    let outside_ms: f64 = (0..=count)
        .filter_map(|k| cut.durations.get(2 * k))
        .map(|d| d.as_secs_f64() * 1e3)
        .sum();
    let mut given = Vec::with_capacity(count);
    for (k, touched) in touched.into_iter().enumerate() {
        executed.extend(cut.parts.get(2 * k).into_iter().flatten());
        let Some(touched) = touched else {
            given.push(None);
            continue;
        };
        let mut mine = executed.clone();
        mine.extend(cut.parts.get(2 * k + 1).into_iter().flatten());
        let own_ms = cut
            .durations
            .get(2 * k + 1)
            .map_or(0.0, |d| d.as_secs_f64() * 1e3);
        let timed = cut
            .timed
            .get(k)
            .cloned()
            .unwrap_or_else(|| Err("no part".into()));
        given.push(Some(Trace {
            executed: mine,
            libraries: run.libraries.clone(),
            files: touched.files,
            programs: touched.programs,
            unresolved: touched.unresolved,
            sets_affinity: touched.sets_affinity,
            cwd: cwd.to_path_buf(),
            runs: vec![RunSummary {
                mode: Mode::Test,
                instructions: 0,
                wall_ms: run.wall_ms / count.max(1) as f64,
                shared_by: (count > 1).then_some(count),
            }],
            untimed: timed
                .as_ref()
                .err()
                .map(|why| format!("traced natively, {why}")),
            timed: timed.ok(),
            tracer: super::Tracer::Native,
            set_up_ms: Some(outside_ms + own_ms),
            ..Trace::default()
        }));
    }
    given
}

/// The first of `reqs`, when they are criterion benchmarks (one or more) run alike: the same
/// executable, working directory and environment, distinct ids.
fn alike(reqs: &[ForkRequest]) -> Result<&ForkRequest, SplitError> {
    let first = run_alike(reqs)?;
    if !matches!(first.harness, Harness::Criterion(_)) {
        return Err(unsplittable(
            reqs,
            "its harness has no split (criterion only)",
        ));
    }
    Ok(first)
}

/// Why `reqs` cannot be traced together, naming their executable.
fn unsplittable(reqs: &[ForkRequest], why: &str) -> SplitError {
    SplitError::Unsplittable {
        target: reqs
            .first()
            .map_or_else(String::new, |r| r.executable.display().to_string()),
        why: why.to_string(),
    }
}

/// The first of `reqs`, when they are benchmarks (one or more, no command) run alike: the same
/// executable, working directory, environment and harness, distinct ids.
fn run_alike(reqs: &[ForkRequest]) -> Result<&ForkRequest, SplitError> {
    let unsplittable = |why: &str| unsplittable(reqs, why);
    let [first, rest @ ..] = reqs else {
        return Err(unsplittable("no benchmark"));
    };
    if first.command.is_some() {
        return Err(unsplittable("a command has no benchmarks to filter"));
    }
    let same = |r: &ForkRequest| {
        r.executable == first.executable
            && r.cwd == first.cwd
            && r.env == first.env
            && r.harness == first.harness
            && r.command.is_none()
    };
    if !rest.iter().all(same) {
        return Err(unsplittable("they are not run alike"));
    }
    let ids: BTreeSet<&str> = reqs.iter().map(|r| r.benchmark_id.as_str()).collect();
    if ids.len() != reqs.len() {
        return Err(unsplittable("an id is asked for twice"));
    }
    Ok(first)
}

/// The raw names of criterion's functions entered once per benchmark in test mode.
struct Boundaries {
    /// `<Reports as Report>::test_start`: dumped before.
    start: Vec<String>,
    /// `<Reports as Report>::test_pass`: dumped after.
    pass: Vec<String>,
}

impl Boundaries {
    /// Read from the symbol table of `executable`; an error when either is missing.
    fn of(executable: &Path) -> Result<Self, String> {
        let named = |method: &str| {
            symbols::matching(executable, |_, demangled| is_boundary(demangled, method))
                .map_err(|e| e.to_string())
        };
        let (start, pass) = (named("test_start")?, named("test_pass")?);
        if start.is_empty() || pass.is_empty() {
            return Err(
                "criterion's `<Reports as Report>::test_start` and `test_pass` are not in its symbol table (inlined?)"
                    .to_string(),
            );
        }
        Ok(Boundaries { start, pass })
    }

    /// callgrind's options for them.
    fn options(&self) -> impl Iterator<Item = String> + '_ {
        let before = self.start.iter().map(|f| format!("--dump-before={f}"));
        before.chain(self.pass.iter().map(|f| format!("--dump-after={f}")))
    }
}

/// Whether `demangled` is criterion's `<…::report::Reports as …::report::Report>::METHOD`.
fn is_boundary(demangled: &str, method: &str) -> bool {
    demangled.starts_with('<')
        && demangled.contains("::report::Reports as ")
        && demangled.ends_with(&format!("::report::Report>::{method}"))
}

/// The filter that selects exactly `ids` (criterion takes a regular expression in every
/// version, without `--exact`).
fn filter(ids: &[&str]) -> String {
    let alternatives: Vec<String> = ids.iter().map(|id| regex::escape(id)).collect();
    format!("^(?:{})$", alternatives.join("|"))
}

/// The benchmarks criterion tested, in order, from its output (`Testing ID`, then `Success`).
#[derive(Debug, Default)]
struct Tested {
    ids: Vec<String>,
    passed: usize,
    /// The output's first lines (at most [`KEPT_LINES`]), to tell whether criterion's were alone.
    lines: Vec<String>,
    /// The ids the run was to test: criterion prints an id with a line break over several
    /// lines, and a line after `Testing ` continues the last id only when one of these does so.
    wanted: Vec<String>,
    /// The last line was `Testing ` or a line of its id.
    in_id: bool,
}

/// Whether `line` of a shared run's output shows a benchmark starting or passing: criterion's
/// `Testing ID` and `Success`.
fn is_progress(line: &str) -> bool {
    let line = line.trim_end();
    line.starts_with("Testing ") || line == "Success"
}

/// The most lines of a run's output [`Tested`] keeps.
const KEPT_LINES: usize = 20_000;

impl Tested {
    fn line(&mut self, line: &str) {
        let line = line.trim_end();
        if self.lines.len() < KEPT_LINES {
            self.lines.push(line.to_string());
        }
        let was_in_id = std::mem::replace(&mut self.in_id, false);
        if let Some(id) = line.strip_prefix("Testing ") {
            self.ids.push(id.to_string());
            self.in_id = true;
        } else if line == "Success" && self.passed < self.ids.len() {
            self.passed += 1;
        } else if was_in_id && let Some(longer) = self.continued_id(line) {
            if let Some(last) = self.ids.last_mut() {
                *last = longer;
            }
            self.in_id = true;
        }
    }

    /// The last id tested with `line` as its next line, when a wanted id goes on so (its lines
    /// compared trimmed at their end, as the output's are).
    fn continued_id(&self, line: &str) -> Option<String> {
        let last = self.ids.last()?;
        let count = last.split('\n').count() + 1;
        let so_far = last.split('\n').chain([line]);
        self.wanted
            .iter()
            .find(|id| {
                id.split('\n').count() >= count
                    && id
                        .split('\n')
                        .map(str::trim_end)
                        .zip(so_far.clone())
                        .all(|(a, b)| a == b)
            })
            .map(|id| id.split('\n').take(count).collect::<Vec<_>>().join("\n"))
    }

    /// Whether the output's first lines are exactly criterion's `Testing ID` and `Success` for
    /// each of `order`, with nothing between them but empty lines (nothing the benchmarks
    /// printed, on either stream): then its writes to standard output up to the last `Success`
    /// are those lines and single newlines.
    fn only_criterion_s(&self, order: &[String]) -> bool {
        let expected = order.iter().flat_map(|id| {
            let testing = format!("Testing {id}");
            let lines: Vec<String> = testing
                .split('\n')
                .map(|l| l.trim_end().to_string())
                .collect();
            lines.into_iter().chain(["Success".to_string()])
        });
        // criterion 0.5 follows each `Success` with an empty line.
        let lines: Vec<&String> = self.lines.iter().filter(|l| !l.is_empty()).collect();
        let count = expected.clone().count();
        lines.len() >= count && lines.into_iter().zip(expected).all(|(a, b)| *a == b)
    }

    /// The ids in the order tested, when each of `wanted` was tested once and passed.
    fn order(&self, wanted: &[&str]) -> Result<Vec<String>, String> {
        let tested: BTreeSet<&str> = self.ids.iter().map(String::as_str).collect();
        let wanted_set: BTreeSet<&str> = wanted.iter().copied().collect();
        if self.ids.len() != wanted.len() || tested != wanted_set || self.passed != wanted.len() {
            return Err(format!(
                "its output shows {} benchmark(s) tested and {} passed, not each of the {} once",
                self.ids.len(),
                self.passed,
                wanted.len()
            ));
        }
        Ok(self.ids.clone())
    }
}

/// Runs the benchmarks of `reqs` in criterion's test mode under valgrind, split at
/// `boundaries`, its profiles and logs in `dir`'s `out`; the ids in the order tested.
fn launch(
    reqs: &[ForkRequest],
    valgrind: &Valgrind,
    boundaries: &Boundaries,
    dir: &Path,
) -> Result<Launched, SplitError> {
    let first = &reqs[0];
    let who = match reqs.len() {
        1 => super::who(first),
        n => format!("the {n} benchmarks of {}", first.executable.display()),
    };
    let io = |path: &Path| {
        let (who, path) = (who.clone(), path.to_path_buf());
        move |source| TraceError::Io { who, path, source }
    };
    let (out, home) = (dir.join("out"), dir.join("criterion-home"));
    std::fs::create_dir_all(&out).map_err(io(&out))?;
    std::fs::create_dir_all(&home).map_err(io(&home))?;
    let ids: Vec<&str> = reqs.iter().map(|r| r.benchmark_id.as_str()).collect();
    let args = arguments(&first.executable, &ids, boundaries, &out);
    let (budget, meter) = shared_budget(reqs);
    let mut req = first.clone();
    req.timeout = budget.wall;
    req.cpu = None;
    req.env
        .push(("CRITERION_HOME".into(), home.into_os_string()));
    let tested = Arc::new(Mutex::new(Tested {
        wanted: ids.iter().map(|id| id.to_string()).collect(),
        ..Tested::default()
    }));
    let on_line = watching(&tested, &meter);
    let started = Instant::now();
    let ran = crate::steps::instructions::command::run_under_valgrind_watching(
        &req,
        valgrind,
        args,
        &who,
        Some(on_line),
        Some(&runs::limit_of(&meter)),
    );
    let failed = |message: String, tail: String| -> SplitError {
        let limit = meter
            .fired()
            .or_else(|| (started.elapsed() >= budget.wall).then_some(Limit::Wall(budget.wall)));
        if let Some(limit) = limit {
            return TraceError::OverBudget {
                who: who.clone(),
                mode: Mode::Test,
                limit,
            }
            .into();
        }
        let failed = TraceError::Failed {
            who: who.clone(),
            mode: Mode::Test,
            message,
            tail,
        };
        runs::undecodable(failed, &out).into()
    };
    match ran {
        Ok(Ok(_)) => {}
        Ok(Err(outcome)) => {
            let failure = outcome.failure().cloned().unwrap_or_default();
            return Err(failed(failure.message, failure.stderr_tail));
        }
        Err(e) => return Err(failed(e.to_string(), String::new())),
    }
    let tested = std::mem::take(&mut *tested.lock().unwrap_or_else(|p| p.into_inner()));
    let order = tested.order(&ids).map_err(|why| SplitError::Unsplittable {
        target: first.executable.display().to_string(),
        why,
    })?;
    let clean_output = tested.only_criterion_s(&order);
    Ok(Launched {
        order,
        out,
        clean_output,
    })
}

/// The budget of one run of `reqs`: their budgets summed, and none of them may take longer than
/// the largest to start, set-up before the first included (image-png's `decoder` makes its
/// inputs in `main`: 450 s under valgrind, docs/design/field-trials.md); a meter of both.
fn shared_budget(reqs: &[ForkRequest]) -> (Budget, Arc<Meter>) {
    let budget = Budget::sum(reqs.iter().map(runs::budget));
    let part = reqs.iter().map(runs::budget).reduce(Budget::max);
    let meter = Meter::new(budget).with_part(part.unwrap_or(budget));
    (budget, Arc::new(meter))
}

/// What watches a shared run's output: every line kept in `tested`, and criterion's lines of a
/// benchmark starting or passing counted as progress by `meter`.
fn watching(
    tested: &Arc<Mutex<Tested>>,
    meter: &Arc<Meter>,
) -> crate::steps::fork::process::LineWatch {
    let (watcher, progress) = (Arc::clone(tested), Arc::clone(meter));
    Box::new(move |line: &str| {
        if is_progress(line) {
            progress.progressed();
        }
        watcher.lock().unwrap_or_else(|p| p.into_inner()).line(line);
    })
}

/// A run done: the ids in the order tested, its profiles' and logs' directory, and whether its
/// output held criterion's lines alone ([`Tested::only_criterion_s`]).
struct Launched {
    order: Vec<String>,
    out: std::path::PathBuf,
    clean_output: bool,
}

/// valgrind's arguments for a test-mode run of `ids` of `executable`, split at `boundaries`,
/// its profiles and logs in `out`.
fn arguments(
    executable: &Path,
    ids: &[&str],
    boundaries: &Boundaries,
    out: &Path,
) -> Vec<OsString> {
    let mut args: Vec<OsString> = runs::valgrind_options(out)
        .into_iter()
        .chain(boundaries.options())
        .map(Into::into)
        .collect();
    args.extend([
        executable.as_os_str().to_owned(),
        "--test".into(),
        filter(ids).into(),
    ]);
    args
}

/// What ended a part of the main process's profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    /// A dump before `test_start`: the part was outside every benchmark.
    BeforeStart,
    /// A dump after `test_pass`: the part was one benchmark's.
    AfterPass,
    /// The process's end.
    Exit,
}

/// Whose each part is, from what ended each (in order): `Some(k)` the k-th benchmark tested,
/// `None` outside (every benchmark's); an error unless the parts alternate outside, benchmark,
/// …, outside with `benchmarks` benchmark parts and end at the exit.
fn owners(ends: &[End], benchmarks: usize) -> Result<Vec<Option<usize>>, String> {
    let mut owners = Vec::with_capacity(ends.len());
    let mut inside = false;
    let mut next = 0;
    for (index, end) in ends.iter().enumerate() {
        let last = index + 1 == ends.len();
        match (end, inside, last) {
            (End::BeforeStart, false, false) => {
                owners.push(None);
                inside = true;
            }
            (End::AfterPass, true, false) => {
                owners.push(Some(next));
                next += 1;
                inside = false;
            }
            (End::Exit, false, true) => owners.push(None),
            _ => {
                return Err(format!(
                    "its profile's part {} ends at {end:?}, out of order",
                    index + 1
                ));
            }
        }
    }
    if next != benchmarks {
        return Err(format!(
            "its profile has {next} benchmark part(s) for {benchmarks} benchmark(s)"
        ));
    }
    Ok(owners)
}

/// What ended the part whose profile is `text` (its `desc: Trigger:`), `None` for another
/// trigger than the boundaries'.
fn end_of(text: &str) -> Option<End> {
    let trigger = dumps::trigger(text)?;
    if trigger.starts_with("--dump-before=") {
        Some(End::BeforeStart)
    } else if trigger.starts_with("--dump-after=") {
        Some(End::AfterPass)
    } else {
        None
    }
}

/// A run's profiles and logs, read: what every benchmark is given, the parts outside every
/// benchmark in order (the k-th benchmark is given those up to its own), and each one's own.
struct Parts {
    /// Every other process's profile.
    others: Executed,
    others_instructions: u64,
    /// The main process's parts outside every benchmark, in order: the k-th ran just before the
    /// k-th benchmark's part, the last after every benchmark's (up to the exit).
    outside: Vec<(Executed, u64)>,
    /// The k-th benchmark's part and its instructions.
    own: Vec<(Executed, u64)>,
    /// What every benchmark is given of the system calls: the other processes' logs when the
    /// main process's log was cut ([`cut_log`]), the whole log otherwise.
    touched: Touched,
    /// What the main process's system calls outside every benchmark touched, cut as
    /// [`Parts::outside`] is (empty when the log was not cut).
    outside_touched: Vec<Touched>,
    /// What the k-th benchmark's system calls touched (empty when the log was not cut).
    own_touched: Vec<Touched>,
}

/// Reads the profiles and logs of the run `launched`, whose first process started in `cwd`.
fn read_parts(launched: &Launched, cwd: &Path) -> Result<Parts, String> {
    let out = &launched.out;
    let processes = dumps::by_process(out).map_err(|e| e.to_string())?;
    let (touched, logged, spawned) = runs::read_logs(out, cwd).map_err(|e| e.to_string())?;
    // A thread's work may outlast the part of the benchmark that started it.
    if !spawned.is_empty() {
        return Err("a thread started: its work cannot be told apart by benchmark".to_string());
    }
    let profiled = |pid: u32| {
        processes
            .iter()
            .any(|p| p.pid == pid && p.at_exit.is_some())
    };
    if let Some((pid, _)) = logged.iter().find(|(pid, exec)| !exec && !profiled(*pid)) {
        return Err(format!(
            "process {pid} left no profile (killed before its end?)"
        ));
    }
    let mut main = processes.iter().filter(|p| !p.dumps.is_empty());
    let (Some(split), None) = (main.next(), main.next()) else {
        return Err("not one process was split at criterion's test_start and test_pass".into());
    };
    let mut parts = Parts {
        others: Executed::default(),
        others_instructions: 0,
        outside: Vec::with_capacity(launched.order.len() + 1),
        own: Vec::with_capacity(launched.order.len()),
        touched,
        outside_touched: Vec::new(),
        own_touched: Vec::new(),
    };
    if launched.clean_output {
        parts.cut_touched(out, split.pid, cwd, &launched.order)?;
    }
    for process in processes.iter().filter(|p| p.pid != split.pid) {
        if let Some(path) = &process.at_exit {
            let (executed, instructions) = read_profile(path)?;
            parts.others.merge(executed);
            parts.others_instructions += instructions;
        }
    }
    let at_exit = split
        .at_exit
        .as_ref()
        .ok_or("its main process left no profile")?;
    let files: Vec<&std::path::PathBuf> = split.dumps.iter().chain([at_exit]).collect();
    let mut ends = Vec::with_capacity(files.len());
    let mut read = Vec::with_capacity(files.len());
    for (index, path) in files.iter().enumerate() {
        let (executed, instructions) = read_profile(path)?;
        let end = match index + 1 == files.len() {
            true => Some(End::Exit),
            false => end_of(&std::fs::read_to_string(path).unwrap_or_default()),
        };
        ends.push(end.ok_or_else(|| format!("{}: another trigger", path.display()))?);
        read.push((executed, instructions));
    }
    let owners = owners(&ends, launched.order.len())?;
    for (owner, (executed, instructions)) in owners.into_iter().zip(read) {
        match owner {
            None => parts.outside.push((executed, instructions)),
            Some(_) => parts.own.push((executed, instructions)),
        }
    }
    Ok(parts)
}

impl Parts {
    /// Splits what the system calls touched by benchmark when the main process's log (pid
    /// `main`) can be cut ([`cut_log`]); otherwise every benchmark keeps the whole log.
    fn cut_touched(
        &mut self,
        out: &Path,
        main: u32,
        cwd: &Path,
        order: &[String],
    ) -> Result<(), String> {
        let mut logs = Vec::new();
        for (pid, path) in runs::log_files(out).map_err(|e| e.to_string())? {
            let text = std::fs::read(&path).map_err(|e| e.to_string())?;
            logs.push((pid, String::from_utf8_lossy(&text).into_owned()));
        }
        let Some((_, main_log)) = logs.iter().find(|(pid, _)| *pid == main) else {
            return Ok(());
        };
        let Some((outside, own)) = cut_log(main_log, order) else {
            return Ok(());
        };
        // No process changed its directory ([`cut_log`]): each started in `cwd`.
        let mut others = Touched::default();
        for (_, text) in logs.iter().filter(|(pid, _)| *pid != main) {
            others.merge(syscalls::parse(text, Some(cwd)));
        }
        let parse = |texts: &[String]| -> Vec<Touched> {
            texts
                .iter()
                .map(|text| syscalls::parse(text, Some(cwd)))
                .collect()
        };
        self.touched = others;
        self.outside_touched = parse(&outside);
        self.own_touched = parse(&own);
        Ok(())
    }
}

/// The main process's system-call log cut at its writes of criterion's lines to standard output
/// (`Testing ID`, `Success`): the texts outside every benchmark (the k-th before the k-th
/// benchmark's, the last after every one's), and each benchmark's (from its `Testing` to its
/// `Success`), in the order tested. Sound only when those writes are known to
/// be criterion's lines: the caller cuts only a run whose output began with them alone
/// ([`Tested::only_criterion_s`]), and here the first writes to standard output must have
/// exactly their lengths. `None` otherwise, or when the log changes directory (a later part's
/// relative paths would depend on an earlier one).
fn cut_log(text: &str, order: &[String]) -> Option<(Vec<String>, Vec<String>)> {
    if text.contains(" sys_chdir ") || text.contains(" sys_fchdir ") {
        return None;
    }
    let expected: Vec<usize> = order
        .iter()
        .flat_map(|id| ["Testing \n".len() + id.len(), "Success\n".len()])
        .collect();
    let lines: Vec<&str> = text.lines().collect();
    let writes: Vec<(usize, usize)> = lines
        .iter()
        .enumerate()
        .filter_map(|(index, line)| Some((index, stdout_write(line)?)))
        // An empty line's: criterion 0.5's after `Success` (the output had no other).
        .filter(|(_, length)| *length != 1)
        .take(expected.len())
        .collect();
    let lengths = writes.iter().map(|(_, length)| *length);
    if writes.len() != expected.len() || !lengths.eq(expected.iter().copied()) {
        return None;
    }
    let (mut outside, mut own, mut from) = (Vec::new(), Vec::new(), 0);
    for pair in writes.chunks(2) {
        let (testing, success) = (pair[0].0, pair[1].0);
        outside.push(lines[from..testing].join("\n"));
        own.push(lines[testing..=success].join("\n"));
        from = success + 1;
    }
    outside.push(lines[from..].join("\n"));
    Some((outside, own))
}

/// The length of the write to standard output a line of valgrind's log starts
/// (`SYSCALL[9848,1](1) sys_write ( 1, 0x403bdc0, 17 ) --> [async] ...`: 17).
fn stdout_write(line: &str) -> Option<usize> {
    let (_, args) = line.split_once(" sys_write ( 1, ")?;
    let (_, length) = args.split_once(", ")?;
    length.split([' ', ')']).next()?.parse().ok()
}

/// One profile file's code and instruction count.
fn read_profile(path: &Path) -> Result<(Executed, u64), String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let executed = executed::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((executed, runs::totals(&text)))
}

/// What the split needs to know of the run.
struct RunContext<'a> {
    harness: Harness,
    executable: &'a Path,
    wall_ms: f64,
    shared_by: usize,
}

/// What one benchmark of a shared run is given: the code, instructions and system calls of
/// its run as a run of its own would have them, as far as its samples can tell.
#[derive(Debug, Default)]
struct Given {
    executed: Executed,
    instructions: u64,
    touched: Touched,
}

impl Parts {
    /// Each benchmark's run, in the order tested ([`Parts::given`]). The executable's addresses
    /// are checked against its symbol table once, over every part.
    fn split(self, run: &RunContext<'_>) -> Result<Vec<Option<RunTrace>>, String> {
        let mut everything = self.others.clone();
        for (part, _) in self.outside.iter().chain(&self.own) {
            everything.merge(part.clone());
        }
        let (all_own, _) = runs::own_code(everything, run.executable);
        if all_own.addresses.is_empty() {
            return Err("no instruction of it ran".to_string());
        }
        let data = std::fs::read(run.executable).map_err(|e| e.to_string())?;
        executed::check_addresses(&all_own, &data).map_err(|e| e.to_string())?;
        let count = self.own.len().max(1) as f64;
        let trace = |given: Given| {
            let timed = runs::timed_code(&given.executed, run.harness, run.executable);
            let (code, libraries) = runs::own_code(given.executed, run.executable);
            RunTrace {
                executed: code.addresses,
                by_program: Default::default(),
                libraries,
                touched: given.touched,
                summary: RunSummary {
                    mode: Mode::Test,
                    instructions: given.instructions,
                    wall_ms: run.wall_ms / count,
                    // One benchmark's run is a run of its own ([`trace_alone`]).
                    shared_by: (run.shared_by > 1).then_some(run.shared_by),
                },
                untimed: timed.as_ref().err().cloned(),
                timed: timed.ok(),
            }
        };
        Ok(self.given().into_iter().map(|g| g.map(trace)).collect())
    }

    /// What each benchmark is given, in the order tested: the other processes' profiles, the
    /// outside parts before its own and its own (what runs after its `test_pass` runs after a
    /// fork's samples are taken: module docs); the same of the system calls when the log was
    /// cut, else the whole log. `None` for a benchmark the parts of those tested before it
    /// opened a file for that its own and the parts before it did not ([`covers`]).
    fn given(self) -> Vec<Option<Given>> {
        let (mut executed, mut instructions) = (self.others, self.others_instructions);
        let mut outside = self.outside.into_iter();
        let (mut outside_touched, mut own_touched) = (
            self.outside_touched.into_iter(),
            self.own_touched.into_iter(),
        );
        let touched_parts =
            (0..self.own.len()).map(|_| (outside_touched.next(), own_touched.next()));
        let touched = touched_by_each(self.touched, touched_parts);
        let mut given = Vec::with_capacity(self.own.len());
        for ((own, own_instructions), touched) in self.own.into_iter().zip(touched) {
            if let Some((part, part_instructions)) = outside.next() {
                executed.merge(part);
                instructions += part_instructions;
            }
            given.push(touched.map(|touched| {
                let mut mine = executed.clone();
                mine.merge(own);
                Given {
                    executed: mine,
                    instructions: instructions + own_instructions,
                    touched,
                }
            }));
        }
        given
    }
}

/// What each benchmark of a split run is given of the files and programs touched (module
/// docs), one per pair of `parts` (what the outside part before its own touched, what its own
/// part touched; `None` where the log was not cut): `before` (the other processes'), the
/// outside parts up to its own, and its own; `None` for a benchmark after one whose part
/// touched what these do not ([`covers`]): state that part left (a static filled from a file)
/// the benchmark would build itself in a run of its own, so it is traced alone.
fn touched_by_each(
    mut before: Touched,
    parts: impl Iterator<Item = (Option<Touched>, Option<Touched>)>,
) -> Vec<Option<Touched>> {
    let mut earlier = Touched::default();
    parts
        .map(|(outside, own)| {
            if let Some(outside) = outside {
                before.merge(outside);
            }
            let mut touched = before.clone();
            if let Some(own) = own {
                touched.merge(own.clone());
                let inherited = !covers(&touched, &earlier);
                earlier.merge(own);
                if inherited {
                    return None;
                }
            }
            Some(touched)
        })
        .collect()
}

/// Whether `mine` holds everything `other` touched, each path at least as strongly.
fn covers(mine: &Touched, other: &Touched) -> bool {
    other
        .files
        .iter()
        .all(|(path, access)| mine.files.get(path).is_some_and(|a| a >= access))
        && other.programs.is_subset(&mine.programs)
        && other.unresolved.is_subset(&mine.unresolved)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::steps::reach::trace::Access;
    use std::path::PathBuf;

    #[test]
    fn only_criterion_s_testing_and_success_lines_are_progress() {
        for line in [
            "Testing group/a",
            "Testing b (x+1)\n",
            "Success",
            "Success\n",
        ] {
            assert!(is_progress(line), "{line}");
        }
        for line in [
            "",
            "Benchmarking group/a",
            "testing x",
            "Successes",
            "  Success!",
        ] {
            assert!(!is_progress(line), "{line}");
        }
    }

    #[test]
    fn the_filter_matches_exactly_the_ids_asked_for() {
        let pattern = filter(&["group/a", "b (x+1)", "c.d"]);
        let regex = regex::Regex::new(&pattern).unwrap();
        for id in ["group/a", "b (x+1)", "c.d"] {
            assert!(regex.is_match(id), "{id}");
        }
        for id in ["group/ab", "xgroup/a", "b (xx1)", "cxd", "group/a|b"] {
            assert!(!regex.is_match(id), "{id}");
        }
    }

    #[test]
    fn the_boundaries_are_criterion_s_reports_test_start_and_test_pass() {
        let start = "<criterion::report::Reports as criterion::report::Report>::test_start";
        assert!(is_boundary(start, "test_start"));
        assert!(!is_boundary(start, "test_pass"));
        assert!(is_boundary(
            "<criterion::report::Reports as criterion::report::Report>::test_pass",
            "test_pass"
        ));
        // As the symbol tables of criterion 0.3.6, 0.4.0, 0.5.1 and 0.8.2 executables name them:
        // legacy mangling (stable toolchains) and v0.
        let demangled = crate::steps::instructions::callgrind::demangle;
        assert!(is_boundary(
            &demangled(
                "_ZN72_$LT$criterion..report..Reports$u20$as$u20$criterion..report..Report$GT$10test_start17h5591055dfd12f3e1E"
            ),
            "test_start"
        ));
        assert!(is_boundary(
            &demangled(
                "_RNvXs3_NtCs8eBhg4Zcce4_9criterion6reportNtB5_7ReportsNtB5_6Report9test_pass"
            ),
            "test_pass"
        ));
        // The CLI report's own method, called from it, is not one.
        assert!(!is_boundary(
            "<criterion::report::CliReport as criterion::report::Report>::test_start",
            "test_start"
        ));
    }

    #[test]
    fn parts_alternate_outside_and_benchmark_and_any_other_order_is_refused() {
        use End::{AfterPass as A, BeforeStart as B, Exit as X};
        assert_eq!(
            owners(&[B, A, B, A, X], 2).unwrap(),
            [None, Some(0), None, Some(1), None]
        );
        // A dump missing (a boundary inlined on one path), one too many, or the count short.
        assert!(owners(&[B, B, A, X], 1).is_err());
        assert!(owners(&[B, A, A, X], 2).is_err());
        assert!(owners(&[B, A, X], 2).is_err());
        assert!(owners(&[B, X], 0).is_err());
        assert!(owners(&[X], 1).is_err());
    }

    #[test]
    fn ids_with_a_line_break_are_read_over_their_lines_in_a_shared_run() {
        // pulldown-cmark's groups: `Testing ` and the id over two lines; two ids share a last
        // line, and a benchmark prints a line before its `Success`.
        let (a, b) = (
            "    pub fn a() {\n            /1",
            "    pub fn b() {\n            /1",
        );
        let mut tested = Tested {
            wanted: vec![a.to_string(), b.to_string()],
            ..Tested::default()
        };
        let out = "Testing     pub fn b() {\n            /1\nprinted\nSuccess\n\n\
                   Testing     pub fn a() {\n            /1\nSuccess\n\n";
        out.lines().for_each(|l| tested.line(l));
        let order = tested.order(&[a, b]).unwrap();
        assert_eq!(order, [b, a]);
        assert!(
            !tested.only_criterion_s(&order),
            "the printed line is not criterion's"
        );
        let mut clean = Tested {
            wanted: vec![a.to_string()],
            ..Tested::default()
        };
        "Testing     pub fn a() {\n            /1\nSuccess\n\n"
            .lines()
            .for_each(|l| clean.line(l));
        assert!(clean.only_criterion_s(&[a.to_string()]));
    }

    #[test]
    fn the_order_tested_is_read_from_the_output_and_must_hold_each_benchmark_once() {
        let read = |text: &str| {
            let mut tested = Tested::default();
            text.lines().for_each(|l| tested.line(l));
            tested
        };
        let order = read("Testing b\nSuccess\n\nTesting a\nSuccess\n")
            .order(&["a", "b"])
            .unwrap();
        assert_eq!(order, ["b", "a"]);
        // One missing, one failed (no Success), one tested twice.
        assert!(read("Testing a\nSuccess\n").order(&["a", "b"]).is_err());
        assert!(
            read("Testing a\nSuccess\nTesting b\n")
                .order(&["a", "b"])
                .is_err()
        );
        assert!(
            read("Testing a\nSuccess\nTesting a\nSuccess\n")
                .order(&["a", "b"])
                .is_err()
        );
    }

    /// A log as valgrind 3.19 writes it: criterion's lines to standard output around each
    /// benchmark's calls.
    const LOG: &str = "\
SYSCALL[9,1](257) sys_openat ( 4294967196, 0x1(/etc/ld.so.cache), 524288 ) --> [async] ...
SYSCALL[9,1](257) ... [async] --> Success(0x3)
SYSCALL[9,1](1) sys_write ( 1, 0x403bdc0, 10 ) --> [async] ...
SYSCALL[9,1](1) ... [async] --> Success(0xa)
SYSCALL[9,1](257) sys_openat ( 4294967196, 0x2(data/a.txt), 0 ) --> [async] ...
SYSCALL[9,1](257) ... [async] --> Success(0x3)
SYSCALL[9,1](1) sys_write ( 1, 0x144f78, 8 ) --> [async] ...
SYSCALL[9,1](1) ... [async] --> Success(0x8)
SYSCALL[9,1](1) sys_write ( 1, 0x129f6d, 1 ) --> [async] ...
SYSCALL[9,1](1) sys_write ( 1, 0x403bdc0, 11 ) --> [async] ...
SYSCALL[9,1](1) ... [async] --> Success(0xb)
SYSCALL[9,1](257) sys_openat ( 4294967196, 0x3(data/bb.txt), 0 ) --> [async] ...
SYSCALL[9,1](257) ... [async] --> Success(0x3)
SYSCALL[9,1](1) sys_write ( 1, 0x144f78, 8 ) --> [async] ...
SYSCALL[9,1](1) ... [async] --> Success(0x8)
SYSCALL[9,1](257) sys_openat ( 4294967196, 0x4(data/end.txt), 0 ) --> [async] ...
";

    #[test]
    fn the_log_is_cut_at_criterion_s_lines_and_each_benchmark_gets_its_own_files() {
        let order = ["a".to_string(), "bb".to_string()];
        let (outside, own) = cut_log(LOG, &order).unwrap();
        let opened = |text: &str| -> Vec<PathBuf> {
            syscalls::parse(text, Some(Path::new("/ck")))
                .files
                .into_keys()
                .collect()
        };
        // Outside: before the first, between the two (criterion 0.5's empty line), after both.
        assert_eq!(outside.len(), 3);
        assert_eq!(opened(&outside[0]), [PathBuf::from("/etc/ld.so.cache")]);
        assert!(opened(&outside[1]).is_empty());
        assert_eq!(opened(&outside[2]), [PathBuf::from("/ck/data/end.txt")]);
        assert_eq!(opened(&own[0]), [PathBuf::from("/ck/data/a.txt")]);
        assert_eq!(opened(&own[1]), [PathBuf::from("/ck/data/bb.txt")]);
        // Writes of other lengths (a benchmark printing), or a directory change: not cut.
        let swapped = ["bb".to_string(), "a".to_string()];
        assert!(cut_log(LOG, &swapped).is_none());
        assert!(
            cut_log(
                &LOG.replace("sys_openat ( 4294967196, 0x4", "sys_chdir ( 0x4"),
                &order
            )
            .is_none()
        );
        assert!(cut_log(&LOG.replacen(", 8 )", ", 9 )", 1), &order).is_none());
        assert_eq!(
            stdout_write("SYSCALL[9,1](1) sys_write ( 2, 0x1, 8 )"),
            None
        );
    }

    /// A part that ran the one function `name` in the executable, `instructions` counted.
    fn part(name: &str, instructions: u64) -> (Executed, u64) {
        let mut executed = Executed::default();
        let code = executed.objects.entry("/bench".to_string()).or_default();
        code.functions.insert(name.to_string(), BTreeSet::from([1]));
        (executed, instructions)
    }

    /// What the system calls of a part touched: `path` opened.
    fn opened(path: &str) -> Touched {
        let mut touched = Touched::default();
        touched.files.insert(PathBuf::from(path), Access::Opened);
        touched
    }

    #[test]
    fn a_benchmark_is_given_the_parts_before_its_own_and_nothing_that_runs_after_it() {
        // Two benchmarks, outside parts before, between and after them, one other process.
        let parts = |cut: bool| Parts {
            others: part("child", 1).0,
            others_instructions: 1,
            outside: vec![
                part("start", 10),
                part("set_up_b", 100),
                part("teardown", 1000),
            ],
            own: vec![part("a", 10_000), part("b", 100_000)],
            touched: match cut {
                true => opened("/child"),
                false => opened("/whole"),
            },
            outside_touched: match cut {
                true => vec![opened("/start"), opened("/b_input"), opened("/end")],
                false => Vec::new(),
            },
            own_touched: match cut {
                // `b` opens what `a` opened too: not traced alone ([`covers`]).
                true => vec![opened("/a"), {
                    let mut b = opened("/b");
                    b.merge(opened("/a"));
                    b
                }],
                false => Vec::new(),
            },
        };
        let names = |given: &Given| -> Vec<String> {
            given.executed.objects["/bench"]
                .functions
                .keys()
                .cloned()
                .collect()
        };
        let files = |given: &Given| -> Vec<String> {
            let paths = given.touched.files.keys();
            paths.map(|p| p.display().to_string()).collect()
        };
        let given: Vec<Given> = parts(true).given().into_iter().flatten().collect();
        let [a, b] = &given[..] else {
            panic!("{given:?}")
        };
        assert_eq!(names(a), ["a", "child", "start"]);
        assert_eq!(names(b), ["b", "child", "set_up_b", "start"]);
        assert_eq!((a.instructions, b.instructions), (10_011, 100_111));
        assert_eq!(files(a), ["/a", "/child", "/start"]);
        assert_eq!(files(b), ["/a", "/b", "/b_input", "/child", "/start"]);
        // A log that could not be cut: every benchmark is given all of it.
        let given: Vec<Given> = parts(false).given().into_iter().flatten().collect();
        assert_eq!(names(&given[1]), ["b", "child", "set_up_b", "start"]);
        assert!(given.iter().all(|g| files(g) == ["/whole"]));
    }

    #[test]
    fn a_file_an_earlier_benchmark_opened_is_covered_only_by_a_trace_that_opened_it_too() {
        let touched = |files: &[(&str, Access)]| Touched {
            files: files
                .iter()
                .map(|(path, access)| (PathBuf::from(path), *access))
                .collect(),
            ..Touched::default()
        };
        let earlier = touched(&[("/ck/data/table.txt", Access::Opened)]);
        // A later benchmark whose own part did not open it (a static filled by the earlier
        // one): not covered, traced alone.
        assert!(!covers(
            &touched(&[("/etc/ld.so.cache", Access::Opened)]),
            &earlier
        ));
        assert!(!covers(
            &touched(&[("/ck/data/table.txt", Access::Probed)]),
            &earlier
        ));
        assert!(covers(
            &touched(&[("/ck/data/table.txt", Access::Opened)]),
            &earlier
        ));
        assert!(covers(&touched(&[]), &Touched::default()));
    }

    #[test]
    fn the_log_is_cut_only_when_the_output_held_criterion_s_lines_alone() {
        let read = |text: &str| {
            let mut tested = Tested::default();
            text.lines().for_each(|l| tested.line(l));
            tested
        };
        let order = ["a".to_string(), "b".to_string()];
        assert!(read("Testing a\nSuccess\nTesting b\nSuccess\n\n").only_criterion_s(&order));
        assert!(read("Testing a\nSuccess\n\nTesting b\nSuccess\n\n").only_criterion_s(&order));
        // A line of the benchmark's own between them, on either stream.
        assert!(!read("Testing a\nhello\nSuccess\nTesting b\nSuccess\n").only_criterion_s(&order));
        assert!(
            !read("warning\nTesting a\nSuccess\nTesting b\nSuccess\n").only_criterion_s(&order)
        );
    }

    #[test]
    fn only_criterion_benchmarks_of_one_executable_run_alike_are_split() {
        let request = |id: &str, harness: Harness| ForkRequest {
            executable: PathBuf::from("/bench"),
            cwd: PathBuf::from("/"),
            env: Vec::new(),
            benchmark_id: id.to_string(),
            harness,
            warm_up: Duration::ZERO,
            measurement: Duration::ZERO,
            sample_size: 10,
            harness_sample_size: None,
            timeout: Duration::from_secs(1),
            criterion_home: PathBuf::from("/home"),
            cpu: None,
            command: None,
        };
        let criterion = Harness::Criterion(crate::model::harness::CliDialect::Current);
        let (a, b) = (request("a", criterion), request("b", criterion));
        assert!(alike(&[a.clone(), b.clone()]).is_ok());
        // One benchmark: its run of its own is split too ([`trace_alone`]).
        assert!(alike(std::slice::from_ref(&a)).is_ok());
        assert!(alike(&[a.clone(), a.clone()]).is_err());
        assert!(alike(&[request("a", Harness::Divan), request("b", Harness::Divan)]).is_err());
        let mut elsewhere = b.clone();
        elsewhere.cwd = PathBuf::from("/other");
        assert!(alike(&[a, elsewhere]).is_err());
    }
}
