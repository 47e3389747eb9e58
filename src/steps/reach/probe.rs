//! The native probe: a benchmark that selection would skip runs once more, natively and exactly
//! as one measuring fork runs it, with a breakpoint at the entry of every function of base's
//! executable whose code differs from head's; entering one measures the benchmark after all.
//!
//! Why: the trace that decides "same code" runs under valgrind, some 50× slower than a native
//! fork, so it makes far fewer iterations. A path a benchmark takes only after its 100,000th
//! call (`if COUNT.fetch_add(1) > 100_000 { changed() }`) never shows in the trace, and a change
//! there would be skipped: the worst defect selection can have. The probe runs as many
//! iterations as a fork does, and costs almost nothing while it runs: a breakpoint costs only
//! when it is hit, and the first hit ends the probe.
//!
//! Why base's executable suffices: head's execution can only depart from base's after entering a
//! function whose code, or the data it reaches, differs; until then both execute the same
//! instructions on the same data, so base enters that function at the same point
//! (docs/design/selection-trace.md, "The native probe", with its limits).
//!
//! How: the fork's own command line, environment and working directory
//! ([`run_fork_led_by_helper`]), with this program in front as a small helper (started through
//! [`PROBE_ENV`]) that starts the benchmark under `ptrace`, writes `int3` over each entry once the
//! executable is mapped, and waits on every thread and child process. The fork asks the helper
//! to stop the benchmark once its value is read (divan, libtest, `bencher`: the value line;
//! criterion: its samples, `MeasurementComplete`, while criterion waits for our `Continue`)
//! instead of killing both, so the helper lives to write what it saw ([`Ending::Stopped`]).
//! Why the probe ends there: what runs after the samples (a later group's set-up, criterion's
//! teardown) cannot change them, so a changed function entered only then does not measure the
//! benchmark (docs/design/selection-trace.md, "What runs after a benchmark's samples"). Any
//! failure (ptrace refused, an entry outside the mapped code, a fork that fails or times out)
//! is reported, and the benchmark stays measured.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::code::ChangedEntry;
use crate::model::harness::Harness;
use crate::model::samples::ForkRecord;
use crate::steps::fork::cpu_wait::SchedTimes;
use crate::steps::fork::{ForkOutcome, ForkRequest, run_fork, run_fork_led_by_helper};
use crate::steps::instructions::{symbols, timed as harness_routines};
use coverage::{CoverageError, Limit, Span};

pub mod coverage;
pub mod timing;

/// The version of the probe's logic, in the key of every kept outcome
/// (`trace::probe_cache`): bump it when a change to the probe (what it watches, how it runs,
/// when a run counts) could change an outcome, so that outcomes kept before are probed again.
/// 2 (2026-11-29): a criterion benchmark's probe ends at its samples (`MeasurementComplete`),
/// so a changed function entered only after them no longer measures it.
/// 3 (2026-11-29): a changed function not known to be of the same source, entered outside the
/// timed routine, no longer ends the probe: it is noted ([`Ending::Exited`]'s `outside`) for its
/// source to decide; every criterion benchmark's probe watches its timed routine.
/// 4 (2026-11-30): every divan, libtest and `bencher` benchmark's probe watches its timed
/// routine too, and a run that never enters one ends at the first changed function it noted
/// outside ([`timing::Timing::noted_at_end`]).
/// 5 (2026-11-30): the executable probed runs from base's checkout of the workspace, as the
/// forks do (`steps::fork::run_place`).
pub const PROBE_VERSION: u32 = 5;

/// The environment variable that makes `cargo-perfdiff` the probe's helper: the path of its
/// [`Plan`] file. Removed before the benchmark starts.
pub const PROBE_ENV: &str = "CARGO_PERFDIFF_PROBE_PLAN";

/// Why a probe could not run to its end.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    #[error("cannot start {program} under ptrace: {source}", program = .program.display())]
    Spawn {
        program: PathBuf,
        source: std::io::Error,
    },
    #[error("ptrace refused to {what}: {source}")]
    Ptrace { what: String, source: nix::Error },
    #[error("cannot find where {program} is mapped: {why}", program = .program.display())]
    Mapping { program: PathBuf, why: String },
    #[error("cannot set a breakpoint at {address:#x} ({name}): {why}")]
    Breakpoint {
        address: u64,
        name: String,
        why: String,
    },
    #[error("cannot {what} {path}: {source}", path = .path.display())]
    Io {
        what: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the native probe needs Linux on x86-64")]
    Unsupported,
}

/// What the helper is asked to do: where to write its [`Ending`], and the breakpoints: the
/// changed functions' entries and, when only what runs inside the timed routine counts, the
/// timed routines' entries ([`timing`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plan {
    pub result: PathBuf,
    pub entries: Vec<ChangedEntry>,
    #[serde(default)]
    pub timed: Timed,
    /// A command's probe: the programs whose entries are watched in every process that runs
    /// one (`entries` and `timed` are then empty).
    #[serde(default)]
    pub command: Option<CommandWatch>,
}

/// What a command's probe watches ([`probe_command`]): for each program of the revision the
/// command started in its trace, its changed entries; `bin`, the build's `{bin}` the command
/// runs them from, whose other programs (which the trace did not see start) end the probe.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandWatch {
    pub programs: Vec<WatchedProgram>,
    pub bin: PathBuf,
}

/// One program of a [`CommandWatch`]: its path, and its entries as ELF virtual addresses of
/// the file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WatchedProgram {
    pub path: PathBuf,
    pub entries: Vec<ChangedEntry>,
}

/// When only some entries count ([`timing`]): the entries of the benchmark's timed routines
/// ([`timed_routines`]), and the changed entries that count only inside one of them (the
/// functions compiled from the same source on both sides, which its set-up may enter). No
/// routines: every entry counts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Timed {
    pub routines: Vec<ChangedEntry>,
    pub same_outside: Vec<ChangedEntry>,
}

/// How a probed process ended, as the helper writes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ending {
    /// A thread entered this function where it counts (the process was killed there), or a run
    /// with timed routines to watch that never entered one entered it outside
    /// ([`timing::Timing::noted_at_end`]).
    Hit { name: String },
    /// The process exited with this code, no breakpoint hit; `leader`: its main thread's
    /// running and waiting times at its exit, where they could be read; `outside`: the changed
    /// functions entered outside every timed routine that were not known to be of the same
    /// source ([`timing::Timing::entered_outside`]).
    Exited {
        code: i32,
        #[serde(default)]
        leader: Option<SchedTimes>,
        #[serde(default)]
        outside: Vec<String>,
        /// Every call of a timed routine, in order ([`coverage::Span`]).
        #[serde(default)]
        spans: Vec<Span>,
        /// The CPUs a thread of it allowed itself at its end, when not the helper's own: the
        /// benchmark set its own CPU affinity ([`crate::steps::fork::process::own_cpus_of`]).
        #[serde(default)]
        own_cpus: Option<String>,
    },
    /// A signal ended it, no breakpoint hit.
    Signaled { signal: i32 },
    /// The fork read the benchmark's value and asked the helper to stop (`SIGTERM`), no
    /// breakpoint hit: the helper killed it there. `leader`: its main thread's times then;
    /// `outside`: as for [`Ending::Exited`].
    Stopped {
        #[serde(default)]
        leader: Option<SchedTimes>,
        #[serde(default)]
        outside: Vec<String>,
        #[serde(default)]
        spans: Vec<Span>,
        #[serde(default)]
        own_cpus: Option<String>,
    },
    /// The probe could not run: why, in one line.
    Failed { message: String },
}

/// What the probe of one benchmark found.
#[derive(Debug, Clone, PartialEq)]
pub enum Probe {
    /// It entered this changed function (demangled): measure it.
    Reached { name: String },
    /// It ran at least as long as an undisturbed fork without entering any changed function
    /// that counts: the skip stands, unless `outside` names one (entered outside every timed
    /// routine, not known to be of the same source), whose source then decides. `record`: the
    /// samples of that run (none when nothing was run).
    NotReached {
        record: Option<Box<ForkRecord>>,
        outside: Vec<String>,
    },
    /// The probe failed: measure it.
    Failed(ProbeFailure),
}

/// Why a probe did not keep a skip. What failed tells whether a probe run again otherwise can
/// help ([`ProbeFailure::may_pass_unwatched`]).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ProbeFailure {
    /// No run covered an undisturbed fork's: the figure that fell short in the last
    /// ([`Limit::CpuShare`], [`Limit::Iterations`]), and that run's shortfall in words.
    #[error("the machine was too busy for a run as long as a fork's ({shortfall})")]
    TooBusy { limit: Limit, shortfall: String },
    /// Whether a run covered a fork's cannot be told (its wait for a CPU is unreadable).
    #[error(transparent)]
    Coverage(#[from] CoverageError),
    /// A run failed (ptrace refused, a thread beside the timed routine, a time-out, the
    /// benchmark's exit code): why, in one line.
    #[error("{0}")]
    Run(String),
}

impl ProbeFailure {
    /// Whether a probe that counts every changed entry wherever entered, instead of watching
    /// the timed routine, may keep the skip where this watching one failed: only when a run
    /// failed, watching being what may have failed (threads of the benchmark's own). A run too
    /// busy, or whose wait is unreadable, would be judged by the same figures on the same
    /// machine: running it again costs its runs and cannot help.
    pub fn may_pass_unwatched(&self) -> bool {
        matches!(self, ProbeFailure::Run(_))
    }
}

/// How one run of the probe ended, before its length is judged.
#[derive(Debug, Clone, PartialEq)]
enum Run {
    Hit(String),
    Failed(String),
    /// The benchmark ran to its end: the fork's record, its main thread's times, and the
    /// changed functions entered outside every timed routine ([`Ending::Exited`]).
    Whole {
        record: Box<ForkRecord>,
        leader: Option<SchedTimes>,
        outside: Vec<String>,
        spans: Vec<Span>,
        own_cpus: Option<String>,
    },
}

/// Probes the benchmark of `request` (its fork, as the time metric runs it) with a breakpoint at
/// every entry of `entries`; `scratch` (empty, kept by the caller) holds the plan and result.
/// A run that entered none counts only when it was at least as long as an undisturbed fork
/// ([`coverage`]); a shorter one runs again for longer, [`coverage::ATTEMPTS`] times at most.
/// No entries: [`Probe::NotReached`] without running anything. With `timed` routines, the
/// functions of `timed.same_outside` count only when entered inside one of them ([`timing`]).
/// `log` is given a line on every run that ends whole: how much of a fork's it covered, and its
/// samples ([`coverage::described`]). `beside`: other probes may run beside this one; then a
/// run too busy that saw the benchmark set its own CPU affinity is its last (it shares that CPU
/// with any probe pinned alike, a longer run cannot help, and it is probed again alone).
pub fn probe_benchmark(
    request: &ForkRequest,
    (entries, timed): (&[ChangedEntry], &Timed),
    scratch: &Path,
    (log, beside): (&dyn Fn(&str), bool),
) -> ProbeOutcome {
    match crate::steps::fork::exec_helper::own_executable() {
        Ok(helper) => {
            let mut own_cpus = None;
            let probe = probe_logged(
                &helper,
                request,
                (entries, timed),
                scratch,
                (log, beside),
                &mut own_cpus,
            );
            ProbeOutcome { probe, own_cpus }
        }
        Err(e) => ProbeOutcome {
            probe: Probe::Failed(ProbeFailure::Run(format!(
                "cannot find this program (/proc/self/exe): {e}"
            ))),
            own_cpus: None,
        },
    }
}

/// What [`probe_benchmark`] found, and the CPUs the benchmark allowed itself in a run that ended
/// whole when it set its own CPU affinity ([`Ending::Exited`]'s `own_cpus`): such a benchmark
/// shares that CPU with any probe beside it that does the same, so its next probe runs alone
/// (`orchestrate::run::reach_probe`).
#[derive(Debug, Clone, PartialEq)]
pub struct ProbeOutcome {
    pub probe: Probe,
    pub own_cpus: Option<String>,
}

/// [`probe_benchmark`] with `helper`, a `cargo-perfdiff` executable, as the helper (this
/// program for a run; the built binary for a test, whose own executable is not one).
pub fn probe_benchmark_through(
    helper: &Path,
    request: &ForkRequest,
    entries: &[ChangedEntry],
    timed: &Timed,
    scratch: &Path,
) -> Probe {
    probe_logged(
        helper,
        request,
        (entries, timed),
        scratch,
        (&|_| {}, false),
        &mut None,
    )
}

/// [`probe_benchmark_through`], each whole run described to `log`, and the CPUs the benchmark
/// allowed itself set in `seen_cpus` when a run ended whole with its own CPU affinity; `beside`
/// as for [`probe_benchmark`].
fn probe_logged(
    helper: &Path,
    request: &ForkRequest,
    (entries, timed): (&[ChangedEntry], &Timed),
    scratch: &Path,
    (log, beside): (&dyn Fn(&str), bool),
    seen_cpus: &mut Option<String>,
) -> Probe {
    if entries.is_empty() {
        return Probe::NotReached {
            record: None,
            outside: Vec::new(),
        };
    }
    let mut scale = coverage::first_scale(request.harness);
    let mut last = None;
    let mut request = request.clone();
    for attempt in 1..=coverage::ATTEMPTS {
        let run = launch(helper, &stretched(&request, scale), entries, timed, scratch);
        let (record, leader, outside, spans, own_cpus) = match run {
            Ok(Run::Hit(name)) => return Probe::Reached { name },
            Ok(Run::Failed(why)) => return Probe::Failed(ProbeFailure::Run(why)),
            Err(e) => return Probe::Failed(ProbeFailure::Run(e.to_string())),
            Ok(Run::Whole {
                record,
                leader,
                outside,
                spans,
                own_cpus,
            }) => (record, leader, outside, spans, own_cpus),
        };
        let shape = coverage::RunShape {
            harness: request.harness,
            scale,
            fork_measurement: request.measurement,
            cpu_wait_share: leader.as_ref().and_then(SchedTimes::wait_share),
            record: &record,
            spans: &spans,
        };
        let covered = match coverage::covered(&shape) {
            Ok(covered) => covered,
            Err(why) => return Probe::Failed(why.into()),
        };
        log(&run_line(attempt, &shape, covered, own_cpus.as_deref()));
        *seen_cpus = own_cpus.or(seen_cpus.take());
        if covered.covers() {
            return Probe::NotReached {
                record: Some(record),
                outside,
            };
        }
        // A run that cannot be made longer (its own measurement time) is not asked for longer.
        let fixed = coverage::fixed_length(&shape);
        let stretches = fixed.is_none();
        last = Some((scale, covered, fixed));
        if beside && seen_cpus.is_some() {
            break;
        }
        if stretches {
            scale = coverage::next_scale(request.harness, scale, covered.figure);
        }
        // Stopping at every sample of a fast divan benchmark: fewer, longer samples.
        if let (false, Some((name, value))) = (
            timed.routines.is_empty(),
            timing::fewer_stops(request.harness, &record),
        ) {
            request.env.retain(|(n, _)| *n != name);
            request.env.push((name, value));
        }
    }
    Probe::Failed(too_busy(request.harness, last))
}

/// Why a probe none of whose runs covered a fork's failed, from its `last` run (its scale,
/// coverage, and why it cannot be made longer).
fn too_busy(
    harness: Harness,
    last: Option<(f64, coverage::Coverage, Option<String>)>,
) -> ProbeFailure {
    match last {
        Some((scale, covered, fixed)) => ProbeFailure::TooBusy {
            limit: covered.limit,
            shortfall: match (fixed, covered.limit) {
                (Some(fixed), coverage::Limit::CpuShare) => {
                    coverage::shortfall_fixed(&fixed, covered)
                }
                _ => coverage::shortfall(harness, scale, covered),
            },
        },
        None => ProbeFailure::Run("it made no run".to_string()),
    }
}

/// The `--verbose` line of run `attempt` of a probe: how much of a fork's it covered
/// ([`coverage::described`]), and the CPUs the benchmark allowed itself when it set its own CPU
/// affinity (`own_cpus`): beside another probe pinned alike, it shares that CPU
/// ([`Ending::Exited`]'s `own_cpus`).
fn run_line(
    attempt: usize,
    shape: &coverage::RunShape<'_>,
    covered: coverage::Coverage,
    own_cpus: Option<&str>,
) -> String {
    let pinned = match own_cpus {
        Some(cpus) => format!("; the benchmark set its own CPU affinity: CPU {cpus}"),
        None => String::new(),
    };
    format!(
        "run {attempt}: {}{pinned}",
        coverage::described(shape, covered)
    )
}

/// `request` with its warm-up, measurement and time limit `scale` times a fork's.
fn stretched(request: &ForkRequest, scale: f64) -> ForkRequest {
    ForkRequest {
        warm_up: request.warm_up.mul_f64(scale),
        measurement: request.measurement.mul_f64(scale),
        timeout: request.timeout.mul_f64(scale),
        ..request.clone()
    }
}

fn launch(
    helper: &Path,
    request: &ForkRequest,
    entries: &[ChangedEntry],
    timed: &Timed,
    scratch: &Path,
) -> Result<Run, ProbeError> {
    let plan = |result| Plan {
        result,
        entries: entries.to_vec(),
        timed: timed.clone(),
        command: None,
    };
    let (mut fork, result) = planned(request, plan, scratch)?;
    // The helper takes the fork's arguments and passes them on after the benchmark's path.
    fork.env
        .push((PROBE_PROGRAM_ENV.into(), fork.executable.into()));
    fork.executable = helper.to_path_buf();
    // Not killed with the benchmark once its value is read: the helper writes the result then.
    let outcome = run_fork_led_by_helper(&fork);
    Ok(judge(
        read_ending(&result),
        outcome.map_err(|e| e.to_string()),
    ))
}

/// The environment variable that names the program the probe's helper runs.
const PROBE_PROGRAM_ENV: &str = "CARGO_PERFDIFF_PROBE_PROGRAM";

/// `request` with the [`Plan`] `plan` makes (given where its result goes) written in `scratch`
/// and named in its environment ([`PROBE_ENV`]), and the path of the result, no result of an
/// earlier run left there.
fn planned(
    request: &ForkRequest,
    plan: impl FnOnce(PathBuf) -> Plan,
    scratch: &Path,
) -> Result<(ForkRequest, PathBuf), ProbeError> {
    let io = |what: &'static str, path: &Path| {
        let path = path.to_path_buf();
        move |source| ProbeError::Io { what, path, source }
    };
    let (plan_path, result) = (scratch.join("probe-plan.json"), scratch.join("probe.json"));
    // A result left by an earlier run must not stand for this one.
    let _ = std::fs::remove_file(&result);
    let text =
        serde_json::to_vec(&plan(result.clone())).map_err(|e| io("write", &plan_path)(e.into()))?;
    std::fs::write(&plan_path, text).map_err(io("write", &plan_path))?;
    let mut fork = request.clone();
    fork.env.push((PROBE_ENV.into(), plan_path.into()));
    Ok((fork, result))
}

/// The [`Ending`] a helper wrote at `result`, if it wrote one.
fn read_ending(result: &Path) -> Option<Ending> {
    std::fs::read(result)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
}

/// Probes the command of `request` (its fork, as a round runs it: the measuring helper runs
/// it) once, natively, with the breakpoints of `watch` in every process that runs one of its
/// programs; `scratch` (empty, kept by the caller) holds the plan and result. Why: a program
/// that reads the CPU's features may take natively a path its trace under valgrind did not
/// (docs/selection.md, "Commands"). One execution is all a fork measures, so one run covers a
/// fork's. Entering an entry, another program of `{bin}` starting, or an execution that fails:
/// not [`Probe::NotReached`].
pub fn probe_command(request: &ForkRequest, watch: &CommandWatch, scratch: &Path) -> Probe {
    let run = crate::steps::fork::exec_helper::own_executable()
        .map_err(|e| format!("cannot find this program (/proc/self/exe): {e}"))
        .and_then(|helper| {
            launch_command(&helper, request, watch, scratch).map_err(|e| e.to_string())
        });
    match run {
        Ok(Run::Hit(name)) => Probe::Reached { name },
        Ok(Run::Whole { .. }) => Probe::NotReached {
            record: None,
            outside: Vec::new(),
        },
        Ok(Run::Failed(why)) | Err(why) => Probe::Failed(ProbeFailure::Run(why)),
    }
}

/// One run of [`probe_command`] with `helper`, a `cargo-perfdiff` executable: the command's
/// first program replaced by the helper, which starts it under ptrace.
fn launch_command(
    helper: &Path,
    request: &ForkRequest,
    watch: &CommandWatch,
    scratch: &Path,
) -> Result<Run, ProbeError> {
    let plan = |result| Plan {
        result,
        entries: Vec::new(),
        timed: Timed::default(),
        command: Some(watch.clone()),
    };
    let (mut fork, result) = planned(request, plan, scratch)?;
    let Some(run) = fork.command.as_mut().filter(|run| !run.argv.is_empty()) else {
        return Ok(Run::Failed(format!(
            "{} is not a command",
            request.benchmark_id
        )));
    };
    let program = std::mem::replace(&mut run.argv[0], helper.as_os_str().to_os_string());
    fork.env.push((PROBE_PROGRAM_ENV.into(), program));
    let outcome = run_fork(&fork);
    Ok(judge(
        read_ending(&result),
        outcome.map_err(|e| e.to_string()),
    ))
}

/// The run's ending from the helper's `ending` and the fork's `outcome`: a hit measures; only a
/// fork that completed with the benchmark exiting 0 and no hit is a whole run.
fn judge(ending: Option<Ending>, outcome: Result<ForkOutcome, String>) -> Run {
    let record = match outcome {
        Err(e) => Err(e),
        Ok(ForkOutcome::Failed(failure)) => Err(failure.message),
        Ok(ForkOutcome::Completed(record)) => Ok(record),
    };
    match (ending, record) {
        (Some(Ending::Hit { name }), _) => Run::Hit(name),
        (Some(Ending::Failed { message }), _) => Run::Failed(message),
        (_, Err(failure)) => Run::Failed(failure),
        (
            Some(
                Ending::Exited {
                    code: 0,
                    leader,
                    outside,
                    spans,
                    own_cpus,
                }
                | Ending::Stopped {
                    leader,
                    outside,
                    spans,
                    own_cpus,
                },
            ),
            Ok(record),
        ) => Run::Whole {
            record,
            leader,
            outside,
            spans,
            own_cpus,
        },
        (Some(Ending::Exited { code, .. }), Ok(_)) => {
            Run::Failed(format!("the benchmark exited with code {code}"))
        }
        (Some(Ending::Signaled { signal }), Ok(_)) => {
            Run::Failed(format!("the benchmark was killed by signal {signal}"))
        }
        (None, Ok(_)) => Run::Failed("its helper wrote no result".to_string()),
    }
}

/// Runs the helper when this process was started as one ([`PROBE_ENV`] set) and returns its
/// exit code; `None` otherwise. Called first thing in `main`.
pub fn run_if_asked() -> Option<i32> {
    let plan = std::env::var_os(PROBE_ENV)?;
    let program = std::env::var_os(PROBE_PROGRAM_ENV)?;
    // SAFETY: first thing in `main`, before this process starts any thread.
    unsafe {
        std::env::remove_var(PROBE_ENV);
        std::env::remove_var(PROBE_PROGRAM_ENV);
    }
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    Some(helper_main(Path::new(&plan), Path::new(&program), &args))
}

fn helper_main(plan_path: &Path, program: &Path, args: &[OsString]) -> i32 {
    let plan: Plan = match std::fs::read(plan_path)
        .map_err(|e| e.to_string())
        .and_then(|bytes| serde_json::from_slice(&bytes).map_err(|e| e.to_string()))
    {
        Ok(plan) => plan,
        Err(e) => {
            eprintln!(
                "cargo-perfdiff probe: cannot read {}: {e}",
                plan_path.display()
            );
            return 101;
        }
    };
    let traced = match &plan.command {
        Some(watch) => run_command_traced(program, args, watch),
        None => {
            stop_when_asked().and_then(|()| run_traced(program, args, &plan.entries, &plan.timed))
        }
    };
    let ending = match traced {
        Ok(ending) => ending,
        Err(e) => Ending::Failed {
            message: e.to_string(),
        },
    };
    let written = serde_json::to_vec(&ending)
        .map_err(std::io::Error::from)
        .and_then(|bytes| std::fs::write(&plan.result, bytes));
    if let Err(e) = written {
        eprintln!(
            "cargo-perfdiff probe: cannot write {}: {e}",
            plan.result.display()
        );
        return 101;
    }
    match ending {
        Ending::Exited { code, .. } => code,
        Ending::Stopped { .. } => 0,
        Ending::Signaled { signal } => 128 + signal,
        Ending::Hit { .. } | Ending::Failed { .. } => 101,
    }
}

/// The words to patch for breakpoints at `addresses` (already moved by the load bias): each
/// 8-byte-aligned word and the byte offsets in it that get `int3`. Several entries may share a
/// word.
pub fn breakpoint_words(addresses: impl IntoIterator<Item = u64>) -> BTreeMap<u64, Vec<usize>> {
    let mut words: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
    for address in addresses {
        let offsets = words.entry(address & !7).or_default();
        let offset = (address & 7) as usize;
        if !offsets.contains(&offset) {
            offsets.push(offset);
            offsets.sort_unstable();
        }
    }
    words
}

/// `word` with `int3` (0xCC) written at each of `offsets` (little-endian, as on x86-64).
pub fn with_breakpoints(word: u64, offsets: &[usize]) -> u64 {
    let mut bytes = word.to_le_bytes();
    for &offset in offsets {
        bytes[offset] = 0xCC;
    }
    u64::from_le_bytes(bytes)
}

/// One mapping of `/proc/PID/maps` of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mapping {
    pub start: u64,
    pub end: u64,
    pub executable: bool,
    pub offset: u64,
    pub path: PathBuf,
}

/// The file mappings of a `/proc/PID/maps` text.
pub fn parse_maps(text: &str) -> Vec<Mapping> {
    text.lines()
        .filter_map(|line| {
            let mut fields = line.splitn(6, ' ');
            let range = fields.next()?;
            let perms = fields.next()?;
            let offset = u64::from_str_radix(fields.next()?, 16).ok()?;
            let (_device, _inode) = (fields.next()?, fields.next()?);
            let path = fields.next()?.trim_start();
            let (start, end) = range.split_once('-')?;
            if !path.starts_with('/') {
                return None;
            }
            Some(Mapping {
                start: u64::from_str_radix(start, 16).ok()?,
                end: u64::from_str_radix(end, 16).ok()?,
                executable: perms.contains('x'),
                offset,
                path: PathBuf::from(path),
            })
        })
        .collect()
}

/// How far the executable at `program` was moved when mapped (0 for a non-PIE): its mapping at
/// file offset 0 minus the address its first segment (file offset 0) asks for, page-aligned.
/// `first_segment`: that segment's virtual address.
pub fn load_bias(maps: &[Mapping], program: &Path, first_segment: u64) -> Option<u64> {
    let mapped = maps.iter().find(|m| m.path == program && m.offset == 0)?;
    Some(mapped.start.wrapping_sub(first_segment & !0xfff))
}

/// The virtual address of `program`'s segment that starts at file offset 0.
fn first_segment(program: &Path) -> Result<u64, ProbeError> {
    use object::{Object, ObjectSegment};
    let failed = |why: String| ProbeError::Mapping {
        program: program.to_path_buf(),
        why,
    };
    let data = std::fs::read(program).map_err(|e| failed(e.to_string()))?;
    let file = object::File::parse(&*data).map_err(|e| failed(e.to_string()))?;
    file.segments()
        .find(|segment| segment.file_range().0 == 0)
        .map(|segment| segment.address())
        .ok_or_else(|| failed("no segment starts at file offset 0".to_string()))
}

/// Where each entry lies once `program` is mapped as `maps` says: its address moved by the load
/// bias, checked to lie in an executable mapping of the program.
pub fn placed_entries(
    maps: &[Mapping],
    program: &Path,
    first_segment: u64,
    entries: &[ChangedEntry],
) -> Result<BTreeMap<u64, String>, ProbeError> {
    let bias = load_bias(maps, program, first_segment).ok_or_else(|| ProbeError::Mapping {
        program: program.to_path_buf(),
        why: "no mapping of it at file offset 0".to_string(),
    })?;
    let text: Vec<&Mapping> = maps
        .iter()
        .filter(|m| m.path == program && m.executable)
        .collect();
    let mut placed = BTreeMap::new();
    for entry in entries {
        let at = entry.address.wrapping_add(bias);
        if !text.iter().any(|m| (m.start..m.end).contains(&at)) {
            return Err(ProbeError::Breakpoint {
                address: entry.address,
                name: entry.name.clone(),
                why: "not in the executable's mapped code".to_string(),
            });
        }
        placed.insert(at, entry.name.clone());
    }
    Ok(placed)
}

/// Runs `program args…` (in this process's directory and environment) under ptrace, with a
/// breakpoint at every entry, until a thread hits one that counts (then the process is killed)
/// or it ends. With `timed` routines, see [`timing`].
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
pub fn run_traced(
    program: &Path,
    args: &[OsString],
    entries: &[ChangedEntry],
    timed: &Timed,
) -> Result<Ending, ProbeError> {
    tracer::run(program, args, entries, timed)
}

/// Runs the command `program args…` under ptrace with the breakpoints of `watch` in every
/// process that runs one of its programs, until one is hit or `program` ends.
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
pub fn run_command_traced(
    program: &Path,
    args: &[OsString],
    watch: &CommandWatch,
) -> Result<Ending, ProbeError> {
    programs::run(program, args, watch)
}

#[cfg(not(all(target_os = "linux", target_arch = "x86_64")))]
pub fn run_command_traced(
    _: &Path,
    _: &[OsString],
    _: &CommandWatch,
) -> Result<Ending, ProbeError> {
    Err(ProbeError::Unsupported)
}

/// Makes `SIGTERM` ask the helper to stop the benchmark and write [`Ending::Stopped`] (how a
/// fork ends a probe once it has read the value) instead of ending the helper.
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
fn stop_when_asked() -> Result<(), ProbeError> {
    tracer::stop_when_asked()
}

#[cfg(not(all(target_os = "linux", target_arch = "x86_64")))]
fn stop_when_asked() -> Result<(), ProbeError> {
    Ok(())
}

#[cfg(not(all(target_os = "linux", target_arch = "x86_64")))]
pub fn run_traced(
    _: &Path,
    _: &[OsString],
    _: &[ChangedEntry],
    _: &Timed,
) -> Result<Ending, ProbeError> {
    Err(ProbeError::Unsupported)
}

/// Whether `harness` has a timed routine a probe can watch ([`timed_routines`]): every harness
/// but a command.
pub fn has_timed_routine(harness: Harness) -> bool {
    !harness_routines::routines(harness).is_empty()
}

/// The entries of the timed routines `harness` runs in the executable at `path` (criterion's
/// `Bencher::iter` and the like, divan's sample task, libtest's and `bencher`'s `Bencher::iter`:
/// [`harness_routines::routine_of`], the same the trace's timed part comes from), as ELF virtual
/// addresses of the file; an error when it has none (the compiler inlined the routine, or the
/// harness has none).
pub fn timed_routines(path: &Path, harness: Harness) -> Result<Vec<ChangedEntry>, String> {
    use object::{Object, ObjectSymbol, SymbolKind};
    let none = || {
        format!(
            "{} has no timed routine to stop at ({}: inlined into the benchmark's function?)",
            path.display(),
            harness_routines::described(harness)
        )
    };
    let routine = harness_routines::routine_of(harness, path)
        .map_err(|e| e.to_string())?
        .ok_or_else(none)?;
    let data = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let file =
        object::File::parse(&*data).map_err(|e| format!("cannot parse {}: {e}", path.display()))?;
    let routines: Vec<ChangedEntry> = file
        .symbols()
        .filter(|s| s.kind() == SymbolKind::Text && s.size() > 0)
        .filter_map(|s| {
            let name = format!("{:#}", rustc_demangle::demangle(s.name().ok()?));
            (routine.is)(&symbols::skeleton(&name)).then(|| ChangedEntry {
                address: s.address(),
                name,
            })
        })
        .collect();
    if routines.is_empty() {
        return Err(none());
    }
    Ok(routines)
}

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
mod programs;
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
mod tracer;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn breakpoints_sharing_a_word_are_written_together_once_each() {
        let words = breakpoint_words([0x1000, 0x1003, 0x1003, 0x1007, 0x1008, 0x1011]);
        assert_eq!(
            words,
            BTreeMap::from([
                (0x1000, vec![0, 3, 7]),
                (0x1008, vec![0]),
                (0x1010, vec![1]),
            ])
        );
        let word = u64::from_le_bytes([1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(
            with_breakpoints(word, &[0, 3, 7]).to_le_bytes(),
            [0xCC, 2, 3, 0xCC, 5, 6, 7, 0xCC]
        );
    }

    const MAPS: &str = "\
55d0c8a00000-55d0c8a0e000 r--p 00000000 08:01 1234                       /work/bench exe
55d0c8a0e000-55d0c8a9f000 r-xp 0000e000 08:01 1234                       /work/bench exe
55d0c8a9f000-55d0c8ab0000 r--p 0009f000 08:01 1234                       /work/bench exe
7f1e2c000000-7f1e2c021000 rw-p 00000000 00:00 0 
7f1e2c200000-7f1e2c228000 r--p 00000000 08:01 99                         /usr/lib/libc.so.6
7ffd1a2f0000-7ffd1a311000 rw-p 00000000 00:00 0                          [stack]
";

    #[test]
    fn the_load_bias_is_where_the_file_s_start_is_mapped() {
        let maps = parse_maps(MAPS);
        assert_eq!(maps.len(), 4, "{maps:?}");
        assert_eq!(maps[1].path, Path::new("/work/bench exe"));
        assert!(maps[1].executable && !maps[0].executable);
        let program = Path::new("/work/bench exe");
        // A PIE asks for address 0; a non-PIE for where it is.
        assert_eq!(load_bias(&maps, program, 0), Some(0x55d0_c8a0_0000));
        assert_eq!(load_bias(&maps, program, 0x55d0_c8a0_0000), Some(0));
        assert_eq!(load_bias(&maps, Path::new("/elsewhere"), 0), None);
    }

    #[test]
    fn entries_are_moved_by_the_bias_and_must_lie_in_the_mapped_code() {
        let maps = parse_maps(MAPS);
        let program = Path::new("/work/bench exe");
        let entry = |address: u64, name: &str| ChangedEntry {
            address,
            name: name.into(),
        };
        let placed =
            placed_entries(&maps, program, 0, &[entry(0xe010, "a"), entry(0xe011, "b")]).unwrap();
        assert_eq!(
            placed,
            BTreeMap::from([
                (0x55d0_c8a0_e010, "a".to_string()),
                (0x55d0_c8a0_e011, "b".to_string())
            ])
        );
        // In the file's read-only data, not its code.
        let Err(error) = placed_entries(&maps, program, 0, &[entry(0x100, "header")]) else {
            panic!("placed");
        };
        assert_eq!(
            error.to_string(),
            "cannot set a breakpoint at 0x100 (header): not in the executable's mapped code"
        );
    }

    #[test]
    fn a_hit_measures_and_only_a_whole_fork_without_one_is_a_whole_run() {
        use crate::model::samples::FailureRecord;
        let completed = || Ok(ForkOutcome::Completed(Box::default()));
        let failed = || {
            Ok(ForkOutcome::Failed(FailureRecord {
                message: "benchmark `a` timed out".into(),
                ..FailureRecord::default()
            }))
        };
        let hit = || Some(Ending::Hit { name: "f".into() });
        let times = SchedTimes {
            running_ns: 9,
            waiting_ns: 1,
        };
        let span = Span {
            wall_ns: 12,
            running_ns: 9,
            waiting_ns: 1,
        };
        let exited = || {
            Some(Ending::Exited {
                code: 0,
                leader: Some(times),
                outside: vec!["g".into()],
                spans: vec![span],
                own_cpus: None,
            })
        };
        assert_eq!(judge(hit(), failed()), Run::Hit("f".into()));
        assert_eq!(
            judge(exited(), completed()),
            Run::Whole {
                record: Box::default(),
                leader: Some(times),
                outside: vec!["g".into()],
                spans: vec![span],
                own_cpus: None,
            }
        );
        let timed_out = Run::Failed("benchmark `a` timed out".into());
        assert_eq!(judge(exited(), failed()), timed_out);
        // Stopped by its helper once the fork had read the value: a whole run.
        let stopped = || {
            Some(Ending::Stopped {
                leader: Some(times),
                outside: vec!["g".into()],
                spans: vec![span],
                own_cpus: Some("0".into()),
            })
        };
        assert_eq!(
            judge(stopped(), completed()),
            Run::Whole {
                record: Box::default(),
                leader: Some(times),
                outside: vec!["g".into()],
                spans: vec![span],
                own_cpus: Some("0".into()),
            }
        );
        assert_eq!(judge(stopped(), failed()), timed_out);
        assert_eq!(judge(None, failed()), timed_out);
        assert!(matches!(judge(None, completed()), Run::Failed(_)));
        assert_eq!(
            judge(Some(Ending::Signaled { signal: 9 }), completed()),
            Run::Failed("the benchmark was killed by signal 9".into())
        );
        let refused = Some(Ending::Failed {
            message: "ptrace refused".into(),
        });
        assert_eq!(
            judge(refused, completed()),
            Run::Failed("ptrace refused".into())
        );
    }

    static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

    /// The shape selection's trace misses: a function entered only after many calls.
    #[inline(never)]
    fn counted() -> u64 {
        if CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed) == 1_000_000 {
            return reached_late(std::hint::black_box(7));
        }
        1
    }

    #[inline(never)]
    fn reached_late(x: u64) -> u64 {
        std::hint::black_box(x * 3)
    }

    #[inline(never)]
    fn never_reached(x: u64) -> u64 {
        std::hint::black_box(x * 5)
    }

    fn calls_a_million_times() -> u64 {
        (0..1_100_000).map(|_| counted()).sum()
    }

    /// Not a check: the program the ptrace tests below probe (this test executable, filtered to
    /// this test).
    #[test]
    #[ignore = "run by the probe tests"]
    fn probe_target_in_a_thread() {
        let total = std::thread::spawn(calls_a_million_times).join().unwrap();
        assert!(total > 1_000_000 || never_reached(total) > 0);
    }

    /// The entry of the function of this test executable whose demangled path ends with `name`.
    fn entry_of(name: &str) -> ChangedEntry {
        use object::{Object, ObjectSymbol};
        let data = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        let file = object::File::parse(&*data).unwrap();
        let symbol = file
            .symbols()
            .find(|s| {
                s.name().is_ok_and(|n| {
                    format!("{:#}", rustc_demangle::demangle(n))
                        .ends_with(&format!("probe::tests::{name}"))
                })
            })
            .unwrap_or_else(|| panic!("no symbol {name}"));
        ChangedEntry {
            address: symbol.address(),
            name: name.to_string(),
        }
    }

    fn probe_target(entries: &[ChangedEntry]) -> Result<Ending, ProbeError> {
        probe_target_timed(entries, &Timed::default())
    }

    fn probe_target_timed(entries: &[ChangedEntry], timed: &Timed) -> Result<Ending, ProbeError> {
        let args: Vec<OsString> = [
            "--ignored",
            "--exact",
            "steps::reach::probe::tests::probe_target_in_a_thread",
            "--quiet",
        ]
        .map(Into::into)
        .to_vec();
        run_traced(&std::env::current_exe().unwrap(), &args, entries, timed)
    }

    #[test]
    fn a_function_entered_after_a_million_calls_in_another_thread_is_hit() {
        let entries = [entry_of("never_reached"), entry_of("reached_late")];
        assert_eq!(
            probe_target(&entries).unwrap(),
            Ending::Hit {
                name: "reached_late".into()
            }
        );
    }

    #[test]
    fn a_run_that_enters_no_breakpoint_ends_as_it_would() {
        // With the main thread's times, read at its exit.
        let ending = probe_target(&[entry_of("never_reached")]).unwrap();
        let Ending::Exited {
            code: 0,
            leader: Some(times),
            ..
        } = ending
        else {
            panic!("{ending:?}");
        };
        assert!(times.running_ns > 0, "{times:?}");
    }

    /// `routine` standing for the timed routine, `same_outside` counting only inside it.
    fn routines(routine: &str, same_outside: &str) -> Timed {
        Timed {
            routines: vec![entry_of(routine)],
            same_outside: vec![entry_of(same_outside)],
        }
    }

    #[test]
    fn a_changed_function_entered_outside_every_timed_routine_does_not_end_the_probe() {
        // `reached_late` is entered, but no timed routine ever is (`never_reached` stands for
        // one): the run ends as it would.
        let ending = probe_target_timed(
            &[entry_of("reached_late")],
            &routines("never_reached", "reached_late"),
        )
        .unwrap();
        assert!(
            matches!(ending, Ending::Exited { code: 0, .. }),
            "{ending:?}"
        );
    }

    #[test]
    fn a_changed_function_not_compared_entered_by_a_run_that_never_enters_its_timed_routine_is_hit()
    {
        // `reached_late`, not known to be of the same source, is entered outside the timed
        // routine (`never_reached` stands for one): noted, and the run goes on to its end; but no
        // timed routine was ever entered (its loop inlined elsewhere), so nothing can be placed
        // outside it: it ends at the first function noted, as counting every entry would. What
        // a run that entered its routine notes is left to its source
        // (`timing::tests::a_run_that_never_entered_its_timed_routine_ends_at_what_it_noted_first`).
        let timed = Timed {
            routines: vec![entry_of("never_reached")],
            same_outside: Vec::new(),
        };
        let ending = probe_target_timed(&[entry_of("reached_late")], &timed).unwrap();
        assert_eq!(
            ending,
            Ending::Hit {
                name: "reached_late".into()
            }
        );
    }

    #[test]
    fn a_timed_routine_entered_beside_another_thread_fails_the_probe() {
        // `counted` stands for the timed routine: the target calls it from a thread of its own,
        // beside the test harness's: what the other runs cannot be placed.
        let ending = probe_target_timed(
            &[entry_of("reached_late")],
            &routines("counted", "reached_late"),
        )
        .unwrap();
        let Ending::Failed { message } = ending else {
            panic!("{ending:?}");
        };
        assert!(
            message.contains("threads when the timed routine was entered"),
            "{message}"
        );
    }

    #[test]
    fn the_timed_routines_of_an_executable_without_its_harness_are_none() {
        let exe = std::env::current_exe().unwrap();
        for harness in [
            Harness::Criterion(crate::model::harness::CliDialect::Current),
            Harness::Divan,
            Harness::Libtest,
            Harness::Bencher,
            Harness::Command,
        ] {
            let error = timed_routines(&exe, harness).unwrap_err();
            assert!(
                error.contains("has no timed routine to stop at ("),
                "{error}"
            );
            assert!(
                error.contains(&harness_routines::described(harness)),
                "{harness}: {error}"
            );
        }
    }
}
