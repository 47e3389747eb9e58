//! The runs of a trace, by harness: the command line of each, how it is started, and how its
//! output shows that the benchmark ran.
//!
//! - test mode, the one run of a benchmark's trace ([`Mode::runs_for`]): criterion `--test` and
//!   divan `--test` with the exact id, a libtest `#[bench]` run once as a test (`--exact NAME`
//!   without `--bench`); each calls the timed routine once. `bencher` has none (it always
//!   measures);
//! - measuring mode, `bencher`'s one run (and any caller's explicit choice): criterion as a fork
//!   over its runner protocol with a wrapper script putting valgrind in front
//!   ([`crate::steps::instructions::criterion::write_wrapper`]), with [`MEASURE_WARM_UP`] and
//!   [`MEASURE_TIME`]; divan, libtest and `bencher` with their fork's command line (divan's
//!   times [`MEASURE_TIME`]; libtest's and bencher's schedule is fixed);
//! - a command: its `prepare` line natively, then one execution with `--trace-children=yes`,
//!   the addresses kept by program (the profile's `cmd:`).
//!
//! Why test mode only: a measuring run under valgrind repeats the routine for a wall time that
//! valgrind stretches some 50-fold, so a benchmark of slow iterations traced that way cost
//! minutes (277 s for 11 benchmarks on a real workspace, more than measuring them); what the
//! further iterations reach is what the native probe covers, at native speed
//! (docs/design/selection-trace.md, "What one run misses"). A benchmark's run is also bounded
//! ([`budget`]): one that takes longer is stopped and the benchmark measured.
//!
//! A successful exit is not enough: a filter that matches nothing exits with success too (and
//! the trace would miss the benchmark entirely), so each run's output must show the benchmark:
//! criterion's `Testing ID` / `Success`, libtest's `test ID ... ok`, divan's tree leaf, a fork's
//! result line (the same lines the time metric reads), or criterion's samples over its protocol.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::budget::{Budget, Limit, Meter};
use super::executed::{self, Executed};
use super::syscalls::{self, Touched};
use super::{RunSummary, TraceError};
use crate::model::harness::{Harness, ValueWatch, divan};
use crate::steps::fork::{ForkOutcome, ForkRequest, run_fork};
use crate::steps::instructions::callgrind::demangle;
use crate::steps::instructions::{Valgrind, dumps, symbols, timed as harness_routines, valgrind};

/// Criterion's least warm-up in a measuring run (a fork's own, when longer): long enough for a
/// few doubling warm-up calls under valgrind.
pub const MEASURE_WARM_UP: Duration = Duration::from_millis(100);
/// Criterion's least measurement time in a measuring run (a fork's own, when longer), and
/// divan's (criterion 0.3 rounds it up to one second). Criterion still runs its samples (10, of at least 1, 2, … 10 iterations).
pub const MEASURE_TIME: Duration = Duration::from_millis(100);

/// Which run of a trace: a benchmark's (test mode, or bencher's measuring run), or a command's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// The harness's test mode: the benchmark once.
    Test,
    /// A short measuring run: warm-up and samples, as a fork runs them.
    Measure,
    /// A command: one execution, after its `prepare` line (not traced), every program it
    /// starts traced too.
    Execution,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Test => "test mode",
            Mode::Measure => "measuring",
            Mode::Execution => "one execution",
        }
    }

    /// The runs a benchmark of `harness` is traced with: the cheapest that still executes its
    /// timed routine, test mode (one call), for every harness that has one.
    pub fn runs_for(harness: Harness) -> &'static [Mode] {
        match harness {
            Harness::Bencher => &[Mode::Measure],
            Harness::Command => &[Mode::Execution],
            Harness::Criterion(_) | Harness::Divan | Harness::Libtest => &[Mode::Test],
        }
    }
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The least CPU time a benchmark's trace may take before it is stopped: valgrind's start on a
/// large executable (its symbols and line tables) takes seconds.
pub const BUDGET_FLOOR: Duration = Duration::from_secs(30);

/// What the run of a benchmark's trace may spend (`req` as the time metric builds its fork):
/// CPU time of a fork's own time (warm-up and measurement) or [`BUDGET_FLOOR`], whichever is
/// longer, and never longer than the fork timeout; wall-clock time [`WALL_FACTOR`](super::budget::WALL_FACTOR) times
/// that, never past the fork timeout ([`super::budget`] says why CPU time). Test mode
/// calls the routine once, some 50 times slower than natively, where a fork calls it at least as
/// often as its samples (criterion's 10 samples at least 55 times): a routine whose one call
/// outlasts the budget is traced natively, or measured.
pub fn budget(req: &ForkRequest) -> Budget {
    Budget::of(
        (req.warm_up + req.measurement).max(BUDGET_FLOOR),
        req.timeout,
    )
}

/// What one run found.
pub(super) struct RunTrace {
    pub executed: BTreeSet<u64>,
    /// A command's: by program, what ran in it.
    pub by_program: std::collections::BTreeMap<PathBuf, BTreeSet<u64>>,
    pub libraries: BTreeSet<PathBuf>,
    pub touched: Touched,
    pub summary: RunSummary,
    /// Of `executed`, what ran within the calls of the timed routine ([`timed_code`]).
    pub timed: Option<BTreeSet<u64>>,
    /// Why a benchmark's run tells no `timed` part.
    pub untimed: Option<String>,
}

/// Why a run that started a thread tells no timed part.
pub const STARTED_A_THREAD: &str =
    "its run started a thread (what another thread runs has no call from the timed routine)";

/// Whether the threads a run started (`started`: each starter's process and valgrind's thread
/// number, [`thread_starter`]) still let its call graph tell the timed part: none, or, for
/// libtest, only the one thread its harness runs the benchmark on, started by the main thread
/// (valgrind's thread 1) of the benchmark's process (`first`, the lowest pid).
///
/// Why libtest's one thread is sound: libtest's main thread starts it and then only waits for its
/// result (a channel's receive) and prints it; it does no work of the benchmark's. The benchmark
/// runs on that thread, its set-up and its timed routine both, so the graph's calls from the
/// routine are what the routine ran. A thread the benchmark starts (a pool, in its set-up or in
/// its routine) is a second thread, or one started by another thread, and the part stays unknown.
fn threads_allow_timed_part(harness: Harness, started: &[(u32, u32)], first: Option<u32>) -> bool {
    match started {
        [] => true,
        [(pid, 1)] => harness == Harness::Libtest && Some(*pid) == first,
        _ => false,
    }
}

/// The valgrind options of a traced run writing into `dir`.
pub fn valgrind_options(dir: &Path) -> Vec<String> {
    let mut options: Vec<String> = valgrind::CALLGRIND.map(String::from).to_vec();
    options.extend([
        dumps::out_file_option(dir),
        "--collect-atstart=yes".to_string(),
        "--dump-instr=yes".to_string(),
        // Raw symbol names, as the symbol table has them (checked in executed::check_addresses).
        "--demangle=no".to_string(),
        "--trace-syscalls=yes".to_string(),
        // `-q` leaves out VEX's line naming an instruction it cannot decode: what tells that
        // failure apart ([`unhandled_instruction`]).
        "--sigill-diagnostics=yes".to_string(),
        format!("--log-file={}/{LOG_PREFIX}%p", dir.display()),
    ]);
    options
}

/// callgrind's options that end a benchmark's part of its test-mode run at the last return of
/// its timed routine (`--dump-after=` each symbol of it, by its raw name): a divan or libtest
/// run, which nothing else cuts (criterion's is split at `test_pass`, [`super::split`]). None
/// for criterion, a command, or an executable without the routine as a function of its own
/// (inlined): the whole run is the benchmark's, as before. Test mode only: it calls the routine
/// once, so callgrind dumps once; a measuring run (`bencher`'s only one) would dump a profile
/// after each of its thousands of calls.
///
/// Why what runs after that return is not the benchmark's: its samples are taken by then (in
/// test mode, its one call). What follows (the rest of the benchmark's function, the harness's
/// statistics and value line, its teardown, `main` after `divan::main()`, the exit) can only
/// fail the fork, which then keeps no sample, not another one, or compute the value from the
/// samples, which only a measuring run does: the trace's test mode never runs it, and the native
/// probe, which runs as a fork does, notes what it enters there for its source to decide
/// (docs/design/selection-trace.md, "Every harness's timed routine"). The profile before the
/// cut is what [`run`] keeps ([`ProcessProfile::before_cut`]).
fn cut_at_routine(harness: Harness, executable: &Path) -> impl Iterator<Item = String> {
    let routine = match harness {
        Harness::Criterion(_) | Harness::Command => None,
        _ => harness_routines::routine_of(harness, executable)
            .ok()
            .flatten(),
    };
    let names = routine
        .and_then(|routine| symbols::matching(executable, |s, _| (routine.is)(s)).ok())
        .unwrap_or_default();
    names.into_iter().map(|raw| format!("--dump-after={raw}"))
}

/// File name prefix of valgrind's log of each process.
pub(super) const LOG_PREFIX: &str = "valgrind.log.";

/// The benchmark's arguments in test mode.
pub(super) fn test_args(harness: Harness, id: &str) -> Vec<OsString> {
    let mut args: Vec<OsString> = match harness {
        Harness::Criterion(_) | Harness::Divan => vec!["--test".into()],
        _ => Vec::new(),
    };
    match harness {
        Harness::Criterion(dialect) => args.extend(dialect.select(id).into_iter().map(Into::into)),
        Harness::Divan => args.extend(divan::select_args(id).into_iter().map(Into::into)),
        _ => args.extend(["--exact".into(), id.into()]),
    }
    args
}

/// Watches a run's output, line by line, for the lines that show benchmark `id` ran.
#[derive(Debug, Clone)]
pub struct RunWatch {
    harness: Harness,
    mode: Mode,
    id: String,
    /// How many of the id's lines criterion's `Testing ID` has shown so far, in a row (an id with
    /// a line break spans several; its `Success` must follow them all).
    testing: usize,
    /// A run's value, read over the lines (divan's row may be split by the benchmark's output).
    value: ValueWatch,
    ran: bool,
}

impl RunWatch {
    pub fn new(harness: Harness, mode: Mode, id: &str) -> Self {
        RunWatch {
            harness,
            mode,
            id: id.to_string(),
            testing: 0,
            value: ValueWatch::new(harness, id),
            ran: false,
        }
    }

    pub fn line(&mut self, line: &str) {
        let (id, line) = (self.id.as_str(), line.trim_end());
        let ran = match (self.harness, self.mode) {
            (Harness::Criterion(_), Mode::Test) => self.criterion_test_line(line),
            (Harness::Libtest, Mode::Test) => {
                line.strip_prefix("test ")
                    .and_then(|rest| rest.strip_prefix(id))
                    == Some(" ... ok")
            }
            (Harness::Divan, Mode::Test) => {
                let (path, _) = divan::selection(id);
                let node = line.trim_start_matches([' ', '├', '╰', '─', '│']);
                divan::is_leaf_of(path, node) || divan::draws_leaf_then_output(path, line)
            }
            (_, Mode::Measure) => self.value.line(line).is_some(),
            _ => false,
        };
        self.ran |= ran;
    }

    pub fn ran(&self) -> bool {
        self.ran
    }

    /// Whether `line` (trimmed at its end) of criterion's test mode is the `Success` that follows
    /// all of `Testing ID`: criterion prints an id with a line break over several lines, and a
    /// benchmark may print lines of its own before `Success`.
    fn criterion_test_line(&mut self, line: &str) -> bool {
        let id_lines: Vec<&str> = self.id.split('\n').map(str::trim_end).collect();
        if line.strip_prefix("Testing ") == Some(id_lines[0]) {
            self.testing = 1;
        } else if (1..id_lines.len()).contains(&self.testing) {
            let next = id_lines[self.testing] == line;
            self.testing = if next { self.testing + 1 } else { 0 };
        }
        self.testing == id_lines.len() && line == "Success"
    }
}

/// Whether the output `text` of a run shows that benchmark `id` ran ([`RunWatch`]).
pub fn shows_run(harness: Harness, mode: Mode, id: &str, text: &str) -> bool {
    let mut watch = RunWatch::new(harness, mode, id);
    text.lines().for_each(|line| watch.line(line));
    watch.ran()
}

/// Runs the benchmark (or command) of `req` in `mode` under `valgrind`, its profiles and logs
/// in `dir`.
pub(super) fn run(
    req: &ForkRequest,
    valgrind: &Valgrind,
    mode: Mode,
    dir: &Path,
) -> Result<RunTrace, TraceError> {
    let who = super::who(req);
    let io = |path: &Path| {
        let (who, path) = (who.clone(), path.to_path_buf());
        move |source| TraceError::Io { who, path, source }
    };
    let out = dir.join("out");
    std::fs::create_dir_all(&out).map_err(io(&out))?;
    let home = dir.join("criterion-home");
    std::fs::create_dir_all(&home).map_err(io(&home))?;
    let mut req = req.clone();
    req.criterion_home = home.clone();
    req.cpu = None;
    let started = Instant::now();
    launch(&mut req, valgrind, mode, dir, &who)?;
    let wall_ms = started.elapsed().as_secs_f64() * 1e3;
    let failed = |message: String| TraceError::Profile {
        who: who.clone(),
        mode,
        path: out.clone(),
        message,
    };
    let (profiles, instructions) = read_profiles(&out).map_err(failed)?;
    let (touched, logged, spawned) = read_logs(&out, &req.cwd).map_err(io(&out))?;
    // A process that neither wrote its profile nor replaced itself with another program was
    // killed before its end: what it ran is not known.
    if let Some((pid, _)) = logged
        .iter()
        .find(|(pid, exec)| !exec && !profiles.iter().any(|p| p.pid == *pid))
    {
        return Err(failed(format!(
            "process {pid} left no profile (killed before its end?)"
        )));
    }
    let summary = RunSummary {
        mode,
        instructions,
        wall_ms,
        shared_by: None,
    };
    let context = (mode, who.as_str());
    if mode == Mode::Execution {
        let profiles = profiles.into_iter().map(|p| p.found_from(&req));
        let (by_program, libraries) = split_programs(profiles.collect(), context)?;
        return Ok(RunTrace {
            executed: BTreeSet::new(),
            by_program,
            libraries,
            touched,
            summary,
            timed: None,
            untimed: None,
        });
    }
    let first = logged.iter().map(|(pid, _)| *pid).min();
    // A thread's work may outlast the routine's return: the cut is kept only where the timed
    // part can be told.
    let placed = threads_allow_timed_part(req.harness, &spawned, first);
    let executed = ProcessProfile::all_ran(profiles, placed);
    let timed = match placed {
        false => Err(STARTED_A_THREAD.to_string()),
        true => timed_code(&executed, req.harness, &req.executable),
    };
    let (addresses, libraries) = split_objects(executed, &req.executable, context)?;
    Ok(RunTrace {
        executed: addresses,
        by_program: Default::default(),
        libraries,
        touched,
        summary,
        untimed: timed.as_ref().err().cloned(),
        timed: timed.ok(),
    })
}

/// Runs `req` in `mode` under valgrind, its profiles in `dir`'s `out`, a benchmark within its
/// [`budget`] (a command within the fork timeout).
fn launch(
    req: &mut ForkRequest,
    valgrind: &Valgrind,
    mode: Mode,
    dir: &Path,
    who: &str,
) -> Result<(), TraceError> {
    let (out, timeout) = (dir.join("out"), req.timeout);
    if mode == Mode::Execution {
        return run_command(req, valgrind, &out, who).map_err(|e| undecodable(e, &out));
    }
    let budget = budget(req);
    let meter = Meter::new(budget);
    let started = Instant::now();
    let ran = match (req.harness, mode) {
        // Through the fork's own runner, which knows no CPU budget: the ceiling only.
        (Harness::Criterion(_), Mode::Measure) => {
            req.timeout = budget.wall;
            run_criterion_fork(req, valgrind, dir, &out, who)
        }
        _ => run_direct(req, valgrind, mode, &out, who, &meter),
    };
    // Stopped at its budget rather than at the fork timeout the user set: say which limit. A
    // ceiling that is the fork timeout itself is the timeout, whichever watcher saw it first.
    ran.map_err(|e| match meter.fired() {
        Some(Limit::Wall(_)) if budget.wall >= timeout => timed_out(who, mode, timeout),
        Some(limit) => over_budget(who, mode, limit),
        None if budget.wall < timeout && started.elapsed() >= budget.wall => {
            over_budget(who, mode, Limit::Wall(budget.wall))
        }
        None => undecodable(e, &out),
    })
}

/// `failure` of a run under valgrind whose logs are in `out`, told apart as
/// [`TraceError::Undecodable`] when valgrind could not decode an instruction it ran
/// ([`unhandled_instruction`]); else as it is.
pub(super) fn undecodable(failure: TraceError, out: &Path) -> TraceError {
    let TraceError::Failed { who, mode, .. } = &failure else {
        return failure;
    };
    match unhandled_instruction(out) {
        Some(bytes) => TraceError::Undecodable {
            who: who.clone(),
            mode: *mode,
            bytes,
        },
        None => failure,
    }
}

/// The bytes of the instruction valgrind could not decode in a run whose logs (one a process,
/// [`LOG_PREFIX`]) are in `out`, as two-digit hexadecimal (`62 f2 fd 48 b4 c1`), from VEX's
/// `unhandled instruction bytes:` line; `None` when no log has one.
///
/// Why that line and not the SIGILL alone, nor valgrind's `Unrecognised instruction`: a program
/// that executes `ud2` (Rust's `abort`, `unreachable_unchecked` under a trap) gets a SIGILL and
/// valgrind's `Unrecognised instruction` too, natively as under valgrind; only an instruction
/// VEX cannot decode (this CPU can) makes it print the bytes it gave up on.
pub(super) fn unhandled_instruction(out: &Path) -> Option<String> {
    // Lossy: a system call's arguments in the log need not be UTF-8.
    let text = |(_, path): (u32, PathBuf)| std::fs::read(path).ok();
    log_files(out)
        .ok()?
        .into_iter()
        .filter_map(text)
        .find_map(|log| unhandled_in(&String::from_utf8_lossy(&log)))
}

/// The bytes of `log`'s first `unhandled instruction bytes:` line ([`unhandled_instruction`]).
fn unhandled_in(log: &str) -> Option<String> {
    const MARK: &str = "unhandled instruction bytes:";
    let line = log
        .lines()
        .find_map(|line| Some(line.split_once(MARK)?.1))?;
    let bytes = line.split_whitespace().map(|byte| {
        let hex = byte.trim_start_matches("0x").trim_start_matches("0X");
        match u8::from_str_radix(hex, 16) {
            Ok(value) => format!("{value:02x}"),
            Err(_) => byte.to_string(),
        }
    });
    let bytes: Vec<String> = bytes.collect();
    (!bytes.is_empty()).then(|| bytes.join(" "))
}

fn timed_out(who: &str, mode: Mode, timeout: Duration) -> TraceError {
    TraceError::Failed {
        who: who.to_string(),
        mode,
        message: format!(
            "{who} did not finish within the fork timeout of {} and was killed",
            crate::util::terminal::wall_time(timeout.as_millis() as u64)
        ),
        tail: String::new(),
    }
}

fn over_budget(who: &str, mode: Mode, limit: Limit) -> TraceError {
    TraceError::OverBudget {
        who: who.to_string(),
        mode,
        limit,
    }
}

/// The limit of a run watched by `meter`, as the valgrind runner asks for it.
pub(super) fn limit_of(meter: &Meter) -> impl Fn(i32) -> Option<String> + Sync + '_ {
    move |group| meter.check(group).map(|limit| limit.to_string())
}

/// A command: its `prepare` line natively, then one execution under valgrind with every
/// process it starts traced (`--trace-children=yes`).
fn run_command(
    req: &ForkRequest,
    valgrind: &Valgrind,
    out: &Path,
    who: &str,
) -> Result<(), TraceError> {
    let failure = |message: String, tail: String| TraceError::Failed {
        who: who.to_string(),
        mode: Mode::Execution,
        message,
        tail,
    };
    let command = req.command.as_ref().ok_or_else(|| {
        failure(
            "a command without its command line".to_string(),
            String::new(),
        )
    })?;
    match crate::steps::instructions::command::run_prepare(req, who) {
        Ok(Ok(())) => {}
        Ok(Err(outcome)) => {
            let record = outcome.failure().cloned().unwrap_or_default();
            return Err(failure(record.message, record.stderr_tail));
        }
        Err(e) => return Err(failure(e.to_string(), String::new())),
    }
    let mut args: Vec<OsString> = valgrind_options(out).into_iter().map(Into::into).collect();
    args.push("--trace-children=yes".into());
    args.extend(command.argv.iter().cloned());
    match crate::steps::instructions::command::run_under_valgrind(req, valgrind, args, who) {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(outcome)) => {
            let record = outcome.failure().cloned().unwrap_or_default();
            Err(failure(record.message, record.stderr_tail))
        }
        Err(e) => Err(failure(e.to_string(), String::new())),
    }
}

/// Criterion measuring: a fork over its runner protocol, valgrind in front through a script.
fn run_criterion_fork(
    req: &mut ForkRequest,
    valgrind: &Valgrind,
    dir: &Path,
    out: &Path,
    who: &str,
) -> Result<(), TraceError> {
    let wrapper = crate::steps::instructions::criterion::write_wrapper(
        dir,
        &valgrind.path,
        &valgrind_options(out),
        &req.executable,
    )
    .map_err(|e| TraceError::Failed {
        who: who.to_string(),
        mode: Mode::Measure,
        message: e.to_string(),
        tail: String::new(),
    })?;
    let mut fork = req.clone();
    fork.executable = wrapper;
    // At least a fork's own times: a path the benchmark takes only after many iterations is
    // covered as far as a fork's time under valgrind goes (docs/selection.md).
    fork.warm_up = req.warm_up.max(MEASURE_WARM_UP);
    fork.measurement = req.measurement.max(MEASURE_TIME);
    fork.sample_size = 10;
    match run_fork(&fork) {
        Ok(ForkOutcome::Completed(record)) if !record.iters.is_empty() => Ok(()),
        Ok(ForkOutcome::Completed(_)) => Err(TraceError::NotRun {
            who: who.to_string(),
            mode: Mode::Measure,
            tail: String::new(),
        }),
        Ok(ForkOutcome::Failed(failure)) => Err(TraceError::Failed {
            who: who.to_string(),
            mode: Mode::Measure,
            message: failure.message,
            tail: failure.stderr_tail,
        }),
        Err(source) => Err(TraceError::Fork {
            who: who.to_string(),
            source,
        }),
    }
}

/// Any other run: valgrind started directly with the harness's arguments, in the fork's
/// working directory and environment, stopped at `meter`'s budget or the fork's timeout.
fn run_direct(
    req: &mut ForkRequest,
    valgrind: &Valgrind,
    mode: Mode,
    out: &Path,
    who: &str,
    meter: &Meter,
) -> Result<(), TraceError> {
    let mut args: Vec<OsString> = valgrind_options(out).into_iter().map(Into::into).collect();
    if mode == Mode::Test {
        args.extend(cut_at_routine(req.harness, &req.executable).map(Into::into));
    }
    args.push(req.executable.clone().into_os_string());
    match mode {
        Mode::Test => args.extend(test_args(req.harness, &req.benchmark_id)),
        Mode::Measure | Mode::Execution => args.extend(req.harness.summary_fork_args(
            &req.benchmark_id,
            MEASURE_TIME,
            None,
        )),
    }
    req.env.push((
        "CRITERION_HOME".into(),
        req.criterion_home.clone().into_os_string(),
    ));
    // Watched line by line: what the benchmark itself prints may push the lines that show it
    // ran out of the output's tail.
    let watch = std::sync::Arc::new(std::sync::Mutex::new(RunWatch::new(
        req.harness,
        mode,
        &req.benchmark_id,
    )));
    let watcher = std::sync::Arc::clone(&watch);
    let on_line: crate::steps::fork::process::LineWatch = Box::new(move |line: &str| {
        watcher.lock().unwrap_or_else(|p| p.into_inner()).line(line);
    });
    let ran = crate::steps::instructions::command::run_under_valgrind_watching(
        req,
        valgrind,
        args,
        who,
        Some(on_line),
        Some(&limit_of(meter)),
    );
    let tail = match ran {
        Ok(Ok((_, tail))) => tail,
        Ok(Err(outcome)) => {
            let failure = outcome.failure().cloned().unwrap_or_default();
            return Err(TraceError::Failed {
                who: who.to_string(),
                mode,
                message: failure.message,
                tail: failure.stderr_tail,
            });
        }
        Err(e) => {
            return Err(TraceError::Failed {
                who: who.to_string(),
                mode,
                message: e.to_string(),
                tail: String::new(),
            });
        }
    };
    let shown = watch.lock().unwrap_or_else(|p| p.into_inner()).ran();
    if !shown && !shows_run(req.harness, mode, &req.benchmark_id, &tail) {
        return Err(TraceError::NotRun {
            who: who.to_string(),
            mode,
            tail,
        });
    }
    Ok(())
}

/// The addresses of the executable that ran within the calls of its harness's timed routine
/// (criterion's `Bencher::iter` and the like, divan's sample task, libtest's and `bencher`'s
/// `Bencher::iter`: [`harness_routines::routine_of`], the same the native probe stops at): the code of
/// every function the routine called, directly or through others, found in the profile's call
/// graph ([`Executed::reached_from`]). A function called both inside and outside is inside.
///
/// Why not, when that cannot be told: an executable without the routine as a function of its
/// own (inlined into the benchmark's function, as libtest's and `bencher`'s generic `iter`
/// usually are), or no timed routine ran. The caller also tells none when the run started a
/// thread: what another thread runs while the routine waits for it has no call from the
/// routine.
pub(super) fn timed_code(
    executed: &Executed,
    harness: Harness,
    executable: &Path,
) -> Result<BTreeSet<u64>, String> {
    let inlined = |what: &str| {
        format!(
            "no timed routine ran as a function of its own ({what}: inlined into the benchmark's function?)"
        )
    };
    let routine = harness_routines::routine_of(harness, executable)
        .map_err(|e| format!("its timed routine cannot be looked for: {e}"))?
        .ok_or_else(|| inlined(&harness_routines::described(harness)))?;
    let own: Vec<&executed::ObjectCode> = executed
        .objects
        .iter()
        .filter(|(object, _)| executed::is_same_file(object, executable))
        .map(|(_, code)| code)
        .collect();
    let roots: BTreeSet<String> = own
        .iter()
        .flat_map(|code| code.functions.keys())
        .filter(|raw| (routine.is)(&symbols::skeleton(&demangle(raw))))
        .cloned()
        .collect();
    if roots.is_empty() {
        return Err(inlined(routine.what));
    }
    let reached = executed.reached_from(&roots);
    let addresses = own
        .iter()
        .flat_map(|code| &code.functions)
        .filter(|(function, _)| reached.contains(*function))
        .flat_map(|(_, addresses)| addresses.iter().copied())
        .collect();
    Ok(addresses)
}

/// One process's profile: what ran, and the program it ran (`cmd:`, as valgrind resolved it).
struct ProcessProfile {
    pid: u32,
    program: Option<PathBuf>,
    executed: Executed,
    /// What it ran up to the last return of its timed routine, when a cut was asked for and the
    /// routine returned ([`cut_at_routine`]: the profiles callgrind dumped after each return);
    /// `executed` then holds the rest, its profile at exit.
    before_cut: Option<Executed>,
}

impl ProcessProfile {
    /// The profile with its program the file `req`'s command ran ([`program_file`]).
    fn found_from(mut self, req: &ForkRequest) -> Self {
        let path_var = req.env.iter().rev().find(|(key, _)| key == "PATH");
        let path_var = path_var.map_or_else(|| std::env::var_os("PATH"), |(_, v)| Some(v.clone()));
        self.program =
            (self.program.take()).map(|argv0| program_file(&argv0, &req.cwd, path_var.as_deref()));
        self
    }

    /// What the process ran: before the cut only when `cut` (and there was one), else all.
    fn ran(self, cut: bool) -> Executed {
        match (self.before_cut, cut) {
            (Some(before), true) => before,
            (Some(mut before), false) => {
                before.merge(self.executed);
                before
            }
            (None, _) => self.executed,
        }
    }

    /// What every process of `profiles` ran ([`ProcessProfile::ran`]).
    fn all_ran(profiles: Vec<ProcessProfile>, cut: bool) -> Executed {
        let mut all = Executed::default();
        for profile in profiles {
            all.merge(profile.ran(cut));
        }
        all
    }
}

/// Every process's profile in `out`, and the instructions they counted; an error when there is
/// none, or one is cut short or cannot be read. A process that did not end (no profile at exit)
/// is left out.
fn read_profiles(out: &Path) -> Result<(Vec<ProcessProfile>, u64), String> {
    let processes = dumps::by_process(out).map_err(|e| e.to_string())?;
    let mut profiles = Vec::new();
    let mut instructions = 0;
    for process in &processes {
        let Some(path) = &process.at_exit else {
            continue;
        };
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let executed = executed::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        instructions += totals(&text);
        let program = text
            .lines()
            .take_while(|l| !l.starts_with("fn=") && !l.starts_with("ob="))
            .find_map(|l| l.strip_prefix("cmd:"))
            .and_then(|cmd| cmd.split_whitespace().next())
            .map(PathBuf::from);
        let mut before_cut: Option<Executed> = None;
        for dump in &process.dumps {
            let text = std::fs::read_to_string(dump)
                .map_err(|e| format!("cannot read {}: {e}", dump.display()))?;
            let part = executed::parse(&text).map_err(|e| format!("{}: {e}", dump.display()))?;
            instructions += totals(&text);
            before_cut.get_or_insert_with(Executed::default).merge(part);
        }
        profiles.push(ProcessProfile {
            pid: process.pid,
            program,
            executed,
            before_cut,
        });
    }
    if profiles.is_empty() {
        return Err("callgrind wrote no profile".to_string());
    }
    Ok((profiles, instructions))
}

/// The file a process of a command ran, from the first word of its profile's `cmd:` (its
/// `argv[0]`, as the command line or the program that started it wrote it): a name without a
/// slash looked for in `path_var` as `execvp` looks for it, a relative path the command's
/// working directory's. Why: `sh -c '…'`, which docs/commands.md gives for pipes, names `sh`,
/// and the trace read a file `sh` in this process's own directory, failing every such command.
/// A name found nowhere is left as it is, and reading it fails the trace (measured).
fn program_file(argv0: &Path, cwd: &Path, path_var: Option<&std::ffi::OsStr>) -> PathBuf {
    if argv0.as_os_str().as_encoded_bytes().contains(&b'/') {
        return cwd.join(argv0);
    }
    // `PATH`'s folders as the command sees them: a relative one is its working directory's.
    let dirs = path_var.map(|v| std::env::split_paths(v).map(|dir| cwd.join(dir)));
    let dirs = dirs.and_then(|dirs| std::env::join_paths(dirs).ok());
    let found = dirs.and_then(|dirs| valgrind::locate(argv0.as_os_str(), &dirs));
    found.unwrap_or_else(|| argv0.to_path_buf())
}

/// The `totals:` of a profile (0 when absent: [`executed::parse`] refuses it then).
pub(super) fn totals(text: &str) -> u64 {
    text.lines()
        .rev()
        .find_map(|l| l.strip_prefix("totals:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// Whether a line of valgrind's system-call log starts a thread: `clone` with `CLONE_THREAD`
/// in its flags (valgrind writes them in hex, `sys_clone ( 3d0f00, …`), or `clone3`, whose
/// flags the log does not show (valgrind 3.19 refuses it, so glibc falls back to `clone`). A
/// process started by `fork`, `vfork` or `posix_spawn` (`clone(fork)`) is not a thread: it has
/// its own profile, and callgrind's call stack goes on in it from where it forked.
fn starts_thread(line: &str) -> bool {
    const CLONE_THREAD: u64 = 0x10000;
    if line.contains(" sys_clone3 ") {
        return true;
    }
    let Some((_, args)) = line.split_once(" sys_clone ( ") else {
        return false;
    };
    let flags = args.split([',', ' ']).next().unwrap_or("");
    u64::from_str_radix(flags.trim_start_matches("0x"), 16).map_or(true, |f| f & CLONE_THREAD != 0)
}

/// Which process and thread (valgrind's number, 1 for a process's main thread) a line of its
/// system-call log (`SYSCALL[9881,1](56) sys_clone …`) was made by.
fn thread_starter(line: &str) -> Option<(u32, u32)> {
    let rest = line.strip_prefix("SYSCALL[")?;
    let (ids, _) = rest.split_once(']')?;
    let (pid, tid) = ids.split_once(',')?;
    Some((pid.trim().parse().ok()?, tid.trim().parse().ok()?))
}

/// What the logs of a run's processes tell ([`read_logs`]).
pub(super) type Logs = (Touched, Vec<(u32, bool)>, Vec<(u32, u32)>);

/// The valgrind logs in `out`, one a process ([`LOG_PREFIX`] and its pid), by pid.
pub(super) fn log_files(out: &Path) -> std::io::Result<Vec<(u32, PathBuf)>> {
    let mut logs: Vec<(u32, PathBuf)> = Vec::new();
    for entry in std::fs::read_dir(out)? {
        let path = entry?.path();
        let pid = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_prefix(LOG_PREFIX))
            .and_then(|p| p.parse().ok());
        if let Some(pid) = pid {
            logs.push((pid, path));
        }
    }
    logs.sort();
    Ok(logs)
}

/// What the system calls of every process in `out` touched, each process's pid with whether it
/// ended by starting another program ([`syscalls::replaced_itself`]), and each thread started
/// ([`starts_thread`]) by its starter ([`thread_starter`]; `(0, 0)` when the line does not say).
/// The first
/// process (lowest pid) starts in `cwd`; the others were forked from it, so they start there
/// too unless the first changed its directory, in which case where they started is not known.
pub(super) fn read_logs(out: &Path, cwd: &Path) -> std::io::Result<Logs> {
    let logs = log_files(out)?;
    let mut touched = Touched::default();
    let mut processes = Vec::new();
    let mut children_cwd = Some(cwd);
    let mut spawned = Vec::new();
    for (index, (pid, path)) in logs.iter().enumerate() {
        let text = String::from_utf8_lossy(&std::fs::read(path)?).into_owned();
        let start = if index == 0 { Some(cwd) } else { children_cwd };
        if index == 0 && (text.contains(" sys_chdir ") || text.contains(" sys_fchdir ")) {
            children_cwd = None;
        }
        touched.merge(syscalls::parse(&text, start));
        processes.push((*pid, syscalls::replaced_itself(&text)));
        spawned.extend(
            text.lines()
                .filter(|line| starts_thread(line))
                .map(|line| thread_starter(line).unwrap_or((0, 0))),
        );
    }
    Ok((touched, processes, spawned))
}

/// The addresses executed in `executable` (checked to be its virtual addresses), and the other
/// objects code ran in.
fn split_objects(
    executed: Executed,
    executable: &Path,
    (mode, who): (Mode, &str),
) -> Result<(BTreeSet<u64>, BTreeSet<PathBuf>), TraceError> {
    let address_error = |message: String| TraceError::Addresses {
        who: who.to_string(),
        mode,
        executable: executable.to_path_buf(),
        message,
    };
    let (own, libraries) = own_code(executed, executable);
    if own.addresses.is_empty() {
        return Err(address_error("no instruction of it ran".to_string()));
    }
    let data = std::fs::read(executable).map_err(|e| address_error(e.to_string()))?;
    executed::check_addresses(&own, &data).map_err(|e| address_error(e.to_string()))?;
    Ok((own.addresses, libraries))
}

/// Whether `object` is valgrind's own rather than the program's: code outside any object
/// (`???`, its trampolines) and the libraries it preloads into every process
/// (`vgpreload_core-amd64-linux.so`, `vgpreload_callgrind-…`).
fn is_valgrind_s(object: &str) -> bool {
    object.is_empty()
        || object == "???"
        || Path::new(object)
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("vgpreload_"))
}

/// The code of `executed` that ran in the file at `executable`, and the other objects
/// (valgrind's own left out: [`is_valgrind_s`]).
pub(super) fn own_code(
    executed: Executed,
    executable: &Path,
) -> (executed::ObjectCode, BTreeSet<PathBuf>) {
    let mut own = executed::ObjectCode::default();
    let mut libraries = BTreeSet::new();
    for (object, code) in executed.objects {
        if executed::is_same_file(&object, executable) {
            own.addresses.extend(code.addresses);
            for (function, addresses) in code.functions {
                own.functions.entry(function).or_default().extend(addresses);
            }
        } else if !is_valgrind_s(&object) {
            libraries.insert(PathBuf::from(object));
        }
    }
    (own, libraries)
}

/// A command's processes: by program, the addresses that ran in it (checked against its symbols
/// when it has any: a program without symbols cannot be paired by function anyway), and the
/// other objects code ran in.
#[allow(clippy::type_complexity)]
fn split_programs(
    profiles: Vec<ProcessProfile>,
    (mode, who): (Mode, &str),
) -> Result<
    (
        std::collections::BTreeMap<PathBuf, BTreeSet<u64>>,
        BTreeSet<PathBuf>,
    ),
    TraceError,
> {
    let mut by_program: std::collections::BTreeMap<PathBuf, executed::ObjectCode> =
        Default::default();
    let mut libraries = BTreeSet::new();
    for profile in profiles {
        let Some(program) = profile.program.clone() else {
            return Err(TraceError::Profile {
                who: who.to_string(),
                mode,
                path: PathBuf::from(format!("process {}", profile.pid)),
                message: "its profile does not name its program (`cmd:`)".to_string(),
            });
        };
        // A command's run is never cut: all of it.
        let (own, others) = own_code(profile.ran(false), &program);
        libraries.extend(others);
        let entry = by_program.entry(program).or_default();
        entry.addresses.extend(own.addresses);
        for (function, addresses) in own.functions {
            entry
                .functions
                .entry(function)
                .or_default()
                .extend(addresses);
        }
    }
    let mut checked = std::collections::BTreeMap::new();
    for (program, code) in by_program {
        let address_error = |message: String| TraceError::Addresses {
            who: who.to_string(),
            mode,
            executable: program.clone(),
            message,
        };
        let data = std::fs::read(&program).map_err(|e| address_error(e.to_string()))?;
        match executed::check_addresses(&code, &data) {
            Ok(_) | Err(executed::AddressError::NothingToCheck(_)) => {}
            Err(e) => return Err(address_error(e.to_string())),
        }
        checked.insert(program, code.addresses);
    }
    Ok((checked, libraries))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::harness::CliDialect;
    use crate::steps::reach::trace::ValgrindUnfit;

    #[test]
    fn each_harness_runs_once_in_its_test_mode_with_an_exact_filter() {
        let words = |args: Vec<OsString>| -> Vec<String> {
            args.into_iter()
                .map(|a| a.to_string_lossy().into_owned())
                .collect()
        };
        assert_eq!(
            words(test_args(Harness::Criterion(CliDialect::Current), "g/a")),
            ["--test", "--exact", "g/a"]
        );
        assert_eq!(
            words(test_args(
                Harness::Criterion(CliDialect::Criterion03),
                "g/a"
            )),
            ["--test", "^g/a$"]
        );
        assert_eq!(
            words(test_args(Harness::Divan, "m::a")),
            ["--test", "--exact", "m::a"]
        );
        assert_eq!(
            words(test_args(Harness::Libtest, "m::a")),
            ["--exact", "m::a"]
        );
        assert_eq!(Mode::runs_for(Harness::Bencher), [Mode::Measure]);
    }

    #[test]
    fn a_benchmark_is_traced_in_test_mode_alone_where_its_harness_has_one() {
        for harness in [
            Harness::Criterion(CliDialect::Current),
            Harness::Criterion(CliDialect::Criterion03),
            Harness::Divan,
            Harness::Libtest,
        ] {
            assert_eq!(Mode::runs_for(harness), [Mode::Test], "{harness}");
        }
        assert_eq!(Mode::runs_for(Harness::Command), [Mode::Execution]);
    }

    /// valgrind 3.19's log of a program that ran an instruction VEX cannot decode
    /// (`clflushopt`), and of one that ran `ud2` (an abort: the CPU raises SIGILL too).
    const UNDECODABLE_LOG: &str = "==25667== Command: ./p clflushopt\n==25667== \n\
        vex amd64->IR: unhandled instruction bytes: 0x66 0xF 0xAE 0x3D 0xD7 0x2C 0x0 0x0 0xE9 0xD0\n\
        vex amd64->IR:   REX=0 REX.W=0 REX.R=0 REX.X=0 REX.B=0\n\
        ==25667== valgrind: Unrecognised instruction at address 0x1093a1.\n\
        ==25667== Process terminating with default action of signal 4 (SIGILL)\n";
    const UD2_LOG: &str = "==27658== Command: ./u\n\
        ==27658== valgrind: Unrecognised instruction at address 0x10912d.\n\
        ==27658== Process terminating with default action of signal 4 (SIGILL)\n";

    fn failed_run() -> TraceError {
        TraceError::Failed {
            who: "benchmark `sign`".into(),
            mode: Mode::Test,
            message: "benchmark `sign` failed: the process ended with signal 4 (SIGILL)".into(),
            tail: String::new(),
        }
    }

    #[test]
    fn a_run_valgrind_could_not_decode_is_told_apart_by_the_bytes_in_its_log() {
        let dir = tempfile::tempdir().unwrap();
        let log = |pid: u32, text: &str| {
            std::fs::write(dir.path().join(format!("{LOG_PREFIX}{pid}")), text).unwrap();
        };
        // No log, or an abort's (`ud2`, which the CPU does not run either): a failure as it is.
        assert!(matches!(
            undecodable(failed_run(), dir.path()),
            TraceError::Failed { .. }
        ));
        log(27658, UD2_LOG);
        assert!(matches!(
            undecodable(failed_run(), dir.path()),
            TraceError::Failed { .. }
        ));
        // Any process's log with VEX's line: the typed failure, with the bytes.
        log(25667, UNDECODABLE_LOG);
        let told = undecodable(failed_run(), dir.path());
        let TraceError::Undecodable { who, mode, bytes } = &told else {
            panic!("{told:?}")
        };
        assert_eq!((who.as_str(), *mode), ("benchmark `sign`", Mode::Test));
        assert_eq!(bytes, "66 0f ae 3d d7 2c 00 00 e9 d0");
        assert_eq!(
            told.to_string(),
            "tracing benchmark `sign` (test mode): valgrind cannot run its code: it does not know \
             an instruction this CPU runs (bytes 66 0f ae 3d d7 2c 00 00 e9 d0)"
        );
        // It is a reason to trace natively, as a run over its budget is; a failure is not.
        assert_eq!(
            ValgrindUnfit::of(&told),
            Some(ValgrindUnfit::CannotRun {
                bytes: "66 0f ae 3d d7 2c 00 00 e9 d0".into()
            })
        );
        let over = over_budget(
            "benchmark `sign`",
            Mode::Test,
            Limit::Wall(Duration::from_secs(1)),
        );
        assert_eq!(ValgrindUnfit::of(&over), Some(ValgrindUnfit::TooSlow));
        assert_eq!(ValgrindUnfit::of(&failed_run()), None);
        // Only a failed run is told apart: a run stopped at its budget stays so.
        assert!(matches!(
            undecodable(over, dir.path()),
            TraceError::OverBudget { .. }
        ));
    }

    #[test]
    fn a_trace_may_take_a_fork_s_time_or_the_floor_and_never_more_than_the_fork_timeout() {
        let request = |warm_up_ms: u64, measurement_ms: u64, timeout_s: u64| ForkRequest {
            executable: PathBuf::from("/bench"),
            cwd: PathBuf::from("/"),
            env: Vec::new(),
            benchmark_id: "a".to_string(),
            harness: Harness::Criterion(CliDialect::Current),
            warm_up: Duration::from_millis(warm_up_ms),
            measurement: Duration::from_millis(measurement_ms),
            sample_size: 30,
            harness_sample_size: None,
            timeout: Duration::from_secs(timeout_s),
            criterion_home: PathBuf::from("/home"),
            cpu: None,
            command: None,
        };
        let cpu = |b: Budget| b.cpu;
        // The defaults (100 ms and 500 ms): the floor, in CPU time; eight times it in wall-clock
        // time, at most the fork timeout.
        let default = budget(&request(100, 500, 300));
        assert_eq!(default.cpu, BUDGET_FLOOR);
        assert_eq!(default.wall, Duration::from_secs(240));
        // A fork longer than the floor: the fork's time.
        assert_eq!(
            cpu(budget(&request(20_000, 40_000, 300))),
            Duration::from_secs(60)
        );
        assert_eq!(
            budget(&request(20_000, 40_000, 300)).wall,
            Duration::from_secs(300)
        );
        // Never past the fork timeout.
        let short = budget(&request(100, 500, 10));
        assert_eq!(
            (short.cpu, short.wall),
            (Duration::from_secs(10), Duration::from_secs(10))
        );
        assert_eq!(
            cpu(budget(&request(200_000, 400_000, 300))),
            Duration::from_secs(300)
        );
    }

    #[test]
    fn a_run_counts_only_when_its_output_shows_the_benchmark() {
        let criterion = Harness::Criterion(CliDialect::Current);
        assert!(shows_run(
            criterion,
            Mode::Test,
            "alpha",
            "Testing alpha\nSuccess\n\n"
        ));
        assert!(!shows_run(criterion, Mode::Test, "alpha", "\n"));
        assert!(!shows_run(
            criterion,
            Mode::Test,
            "alpha",
            "Testing alphabet\nSuccess\n"
        ));
        assert!(shows_run(
            Harness::Libtest,
            Mode::Test,
            "alpha",
            "running 1 test\ntest alpha ... ok\n"
        ));
        assert!(!shows_run(
            Harness::Libtest,
            Mode::Test,
            "alpha",
            "running 0 tests\n"
        ));
        assert!(shows_run(
            Harness::Divan,
            Mode::Test,
            "dv::alpha",
            "dv\n╰─ alpha\n"
        ));
        assert!(!shows_run(Harness::Divan, Mode::Test, "dv::alpha", ""));
        // A name with `::` is one node (divan 0.1.21's `--test --exact`, recorded).
        let generic = "names::generic::Vec<alloc::string::String>";
        let drawn = "names\n╰─ generic\n   ╰─ Vec<alloc::string::String>\n\n";
        assert!(shows_run(Harness::Divan, Mode::Test, generic, drawn));
        let argument = "names\n╰─ arg\n   ╰─ p::q\n\n";
        assert!(shows_run(
            Harness::Divan,
            Mode::Test,
            "names::arg::p::q",
            argument
        ));
        assert!(!shows_run(
            Harness::Divan,
            Mode::Test,
            "names::arg::q",
            argument
        ));
        assert!(shows_run(
            Harness::Bencher,
            Mode::Measure,
            "alpha",
            "test alpha ... bench:         695 ns/iter (+/- 726)\n"
        ));
        assert!(!shows_run(
            Harness::Bencher,
            Mode::Measure,
            "alpha",
            "running 0 tests\n"
        ));
    }

    #[test]
    fn an_id_with_a_line_break_is_seen_running_over_its_lines() {
        // pulldown-cmark's groups: criterion prints `Testing ` and the id over two lines.
        let id = "    pub fn a() {\n            /1";
        let shown = |text: &str| {
            shows_run(
                Harness::Criterion(CliDialect::Current),
                Mode::Test,
                id,
                text,
            )
        };
        assert!(shown("Testing     pub fn a() {\n            /1\nSuccess\n"));
        assert!(shown(
            "Testing     pub fn a() {\n            /1\nprinted\nSuccess\n"
        ));
        // Another id with the same first line, or only the last line, is not it.
        assert!(!shown(
            "Testing     pub fn a() {\n            /2\nSuccess\n"
        ));
        assert!(!shown("Testing             /1\nSuccess\n"));
        assert!(!shown("Testing     pub fn a() {\nSuccess\n"));
    }

    #[test]
    fn a_noisy_benchmark_is_seen_running_line_by_line() {
        let mut watch = RunWatch::new(Harness::Criterion(CliDialect::Current), Mode::Test, "g/a");
        watch.line("Testing g/a");
        for k in 0..100 {
            watch.line(&format!("the benchmark prints line {k}"));
        }
        assert!(!watch.ran());
        watch.line("Success");
        assert!(watch.ran());
    }

    #[test]
    fn a_thread_is_told_from_a_process_in_valgrind_s_log() {
        // As valgrind 3.19 logs them: criterion's `posix_spawn` of gnuplot, and a thread.
        assert!(!starts_thread(
            "SYSCALL[30009,1](56) sys_clone ( 4111, 0x4b31ff0, 0x0, 0x0, 0x0 )   clone(fork): process 30009 created child 30059"
        ));
        assert!(starts_thread(
            "SYSCALL[9881,1](56) sys_clone ( 3d0f00, 0x6a3fd70, 0x6a409d0, 0x6a409d0, 0x6a406c0 ) --> [pre-success] Success(0x2692)"
        ));
        assert!(starts_thread(
            "SYSCALL[9881,1](435) sys_clone3 ( 0x1ffefff8a0, 88 )"
        ));
        assert!(!starts_thread(
            "SYSCALL[9881,1](257) sys_openat ( 4294967196, 0x1fff000a43(/etc/hostname), 0 )"
        ));
    }

    #[test]
    fn a_program_named_without_a_slash_is_found_in_path_a_relative_one_in_the_working_directory() {
        let dir = tempfile::tempdir().unwrap();
        let (bin, other, cwd) = (dir.path().join("bin"), dir.path().join("other"), dir.path());
        for d in [&bin, &other] {
            std::fs::create_dir_all(d).unwrap();
        }
        let write = |path: &Path, mode: u32| {
            use std::os::unix::fs::PermissionsExt;
            std::fs::write(path, "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
        };
        // Not executable in the first directory: execvp goes on to the next.
        write(&other.join("tool"), 0o644);
        write(&bin.join("tool"), 0o755);
        let path_var = std::env::join_paths([&other, &bin]).unwrap();
        let found = |argv0: &str| program_file(Path::new(argv0), cwd, Some(&path_var));
        assert_eq!(found("tool"), bin.join("tool"));
        assert_eq!(found("./bin/tool"), cwd.join("./bin/tool"));
        assert_eq!(found("/usr/bin/env"), Path::new("/usr/bin/env"));
        assert_eq!(found("missing"), Path::new("missing"));
        assert_eq!(
            program_file(Path::new("tool"), cwd, None),
            Path::new("tool")
        );
    }

    #[test]
    fn valgrind_s_own_objects_are_not_the_program_s_libraries() {
        assert!(is_valgrind_s("???"));
        assert!(is_valgrind_s(
            "/usr/libexec/valgrind/vgpreload_core-amd64-linux.so"
        ));
        assert!(!is_valgrind_s("/usr/lib/x86_64-linux-gnu/libc.so.6"));
    }
}
