//! What one benchmark executes and reads, found by running it under valgrind's callgrind
//! (docs/design/selection-trace.md).
//!
//! Why: a benchmark can only change when something it executes or reads changes. Its process is
//! run under callgrind with everything counted from the first instruction
//! (`--collect-atstart=yes`) and every instruction's address kept (`--dump-instr=yes`), and with
//! valgrind's system-call trace (`--trace-syscalls=yes`) for the files it opens; the instructions
//! it ran inside its own executable ([`Trace::executed`], ELF virtual addresses, checked against
//! the symbol table) and the paths it touched ([`Trace::files`]) are what the selection then
//! compares between the two sides.
//!
//! Why one run, in test mode: the harness's own test mode calls the benchmark's timed routine
//! once, which is the cheapest run that still executes it (criterion, divan, libtest; `bencher`,
//! which has none, is traced in a short measuring run, [`Mode`]). What only later iterations
//! reach (criterion's warm-up and samples, a branch taken after many calls) is not in the trace:
//! every benchmark the trace would skip is then run natively for a fork's length with a
//! breakpoint on every changed function ([`super::probe`]), which finds it at native speed. A
//! measuring run under valgrind, traced beside it until 2026-11-28, cost minutes for a slow
//! routine. A run that outlasts its budget ([`runs::budget`]: a fork's time or 30 s of CPU time,
//! whichever is longer, with a wall-clock ceiling: [`budget`]) is stopped, and the benchmark traced natively instead ([`native`]: what `main`
//! sets up before the harness's filter runs in every traced run, and valgrind can make that
//! set-up alone outlast the budget); only when that fails too is it measured. So is one whose run
//! dies of the SIGILL valgrind raises at an instruction it cannot decode, which this CPU runs
//! (code compiled for it, `-C target-cpu=native` on AVX-512: [`TraceError::Undecodable`], told by
//! VEX's line in valgrind's log, [`ValgrindUnfit`]). The run selects the one benchmark with an
//! exact filter, and runs as a fork does: the fork's working directory and environment,
//! criterion with a private `CRITERION_HOME`, so nothing is written into the user's checkout.
//!
//! A command is traced in one execution, every program it starts traced too
//! ([`Trace::executed_by_program`]).
//!
//! A run that fails, times out, leaves a profile cut short or none, or does not show that the
//! benchmark ran, is a [`TraceError`], never a partial trace. Two traces of one benchmark may
//! differ in addresses inside a function (a `HashMap`'s probing follows its random seed): compare
//! them by function.

pub mod budget;
pub mod cache;
pub mod command_cache;
pub mod executed;
pub mod inputs;
pub mod native;
pub mod probe_cache;
pub mod runs;
pub mod split;
pub mod syscalls;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use cache::TraceCache;
pub use command_cache::CommandTrace;
pub use inputs::executable_digest;
pub use probe_cache::{KeptAlone, KeptProbe, ProbeInputs, ProbeKeys, TouchedFiles, alone_key};
pub use runs::Mode;
pub use syscalls::Access;

use crate::model::harness::Harness;
use crate::steps::fork::ForkRequest;
use crate::steps::instructions::Valgrind;

/// What one benchmark executed and read, over all its runs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Trace {
    /// Instruction addresses executed in the traced executable itself, as ELF virtual addresses
    /// of the file (comparable with its symbol table); a native trace's ([`Tracer::Native`]):
    /// the entry of each function entered, which stands for the function. Empty for a command.
    pub executed: BTreeSet<u64>,
    /// A command's: the instruction addresses executed in each program its processes ran
    /// (the program of its command line and every one it started), by path as valgrind
    /// resolved it, as ELF virtual addresses of that file. Empty for a benchmark.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub executed_by_program: BTreeMap<PathBuf, BTreeSet<u64>>,
    /// Other objects code ran in (shared libraries, the dynamic loader), by path as valgrind
    /// named them. Code outside any object (valgrind's own trampolines, `???`) is left out.
    pub libraries: BTreeSet<PathBuf>,
    /// Paths it opened or probed, absolute (relative ones resolved against its working
    /// directory), with how: a file opened (or opened write-only), a directory opened, a path
    /// found missing, or only its metadata asked. Directories and files outside the checkout included.
    pub files: BTreeMap<PathBuf, Access>,
    /// Programs it started (`execve`, successful or not).
    pub programs: BTreeSet<PathBuf>,
    /// System calls on a path that could not be resolved (relative to a directory descriptor
    /// the log does not show, after an `fchdir`, or a line that could not be read), as logged.
    /// Any: the files it read are not all known.
    pub unresolved: BTreeSet<String>,
    /// The working directory it ran in (the package root): relative paths were resolved here.
    pub cwd: PathBuf,
    /// The runs the trace rests on.
    pub runs: Vec<RunSummary>,
    /// Of `executed`, what ran within the calls of the benchmark's timed routine (criterion's
    /// `Bencher::iter` and the like, divan's sample task, libtest's and `bencher`'s
    /// `Bencher::iter`: [`crate::steps::instructions::timed`]); the rest ran only outside it
    /// (the harness's start-up, the benchmark's set-up, teardown). `None` when the trace cannot
    /// tell (`untimed` says why; a command, or a trace kept from before 2026-11-28, does not).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timed: Option<BTreeSet<u64>>,
    /// Why a benchmark's trace tells no `timed` part: its routine was inlined, its run started
    /// a thread, it was traced natively.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub untimed: Option<String>,
    /// What made it (a trace kept from before 2026-11-29: valgrind).
    #[serde(default)]
    pub tracer: Tracer,
    /// How long its run took, natively, outside its timed routine: before the routine's first
    /// entry (the harness's start-up, the benchmark's set-up) and after its last return (the set-up
    /// of the benchmarks criterion reaches after it, teardown), which every fork runs too, as a
    /// fork's `outside_ms` counts it. Known from a native trace ([`native`]) only, for the run's
    /// first estimate of a fork's time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub set_up_ms: Option<f64>,
    /// Whether it set a thread's CPU affinity ([`syscalls::Touched::sets_affinity`]): its native
    /// probe runs alone from the start (a trace kept from before 2026-11-30 says no).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sets_affinity: bool,
}

/// What made a trace: valgrind's callgrind (every instruction executed), or the native trace
/// ([`native`]: the entry of every function entered, valgrind being too slow for its set-up or
/// unable to decode its code).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tracer {
    #[default]
    Valgrind,
    Native,
}

/// One run of a trace: its mode, the instructions valgrind counted (every process), its wall
/// time under valgrind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    pub mode: Mode,
    /// A run of its own: every process's; a run shared with other benchmarks ([`split`]): the
    /// parts it was given.
    pub instructions: u64,
    /// A shared run's wall time is divided evenly between its benchmarks.
    pub wall_ms: f64,
    /// The number of benchmarks whose traces one run made ([`split`]); `None` for a run of
    /// the benchmark alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared_by: Option<usize>,
}

/// `: ` and the panic that output `tail` holds (its `panicked at` line and the message after
/// it, on one line), or nothing. Why: "it exited with 101" alone gives a user nothing to act
/// on; pcap-file's benchmarks parse `benches/bench.pcap`, which a clone without Git LFS holds
/// as a pointer, and every one of them panicked in its routine, measured for that line alone.
fn panic_in(tail: &str) -> String {
    crate::util::panic::message(tail)
        .map(|panic| format!(": {panic}"))
        .unwrap_or_default()
}

/// Why a benchmark has no trace. Each message is one line naming the benchmark.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// The benchmark failed, timed out, or valgrind ended other than with success; a panic in
    /// its output is named ([`panic_in`]).
    #[error("tracing {who} ({mode}): {message}{}", panic_in(.tail))]
    Failed {
        who: String,
        mode: Mode,
        message: String,
        /// The end of its output.
        tail: String,
    },
    /// It exited with success but its output does not show the benchmark ran (no exact match).
    #[error("tracing {who} ({mode}): its output does not show that it ran")]
    NotRun {
        who: String,
        mode: Mode,
        tail: String,
    },
    /// The run took longer than a trace may ([`runs::budget`]) and was stopped: by its CPU
    /// budget, or by its wall-clock ceiling ([`budget::Limit`]).
    #[error(
        "tracing {who} ({mode}) was stopped {limit} (a fork's time or {} of CPU time, whichever is longer): its routine is too slow under valgrind",
        crate::util::terminal::wall_time(runs::BUDGET_FLOOR.as_millis() as u64)
    )]
    OverBudget {
        who: String,
        mode: Mode,
        limit: budget::Limit,
    },
    /// valgrind could not decode an instruction the run executes, which this CPU runs (code
    /// compiled for it: AVX-512, SHA-NI, GFNI, `clflushopt`…): its log says "unhandled
    /// instruction bytes", and the SIGILL valgrind raised instead ended the run. The native trace
    /// can follow it ([`ValgrindUnfit`]).
    #[error(
        "tracing {who} ({mode}): valgrind cannot run its code: it does not know an instruction this CPU runs (bytes {bytes})"
    )]
    Undecodable {
        who: String,
        mode: Mode,
        /// The bytes at the instruction, as valgrind's log gives them (the instruction and what
        /// follows it).
        bytes: String,
    },
    /// A profile is missing, cut short or unreadable.
    #[error("tracing {who} ({mode}): {path}: {message}")]
    Profile {
        who: String,
        mode: Mode,
        path: PathBuf,
        message: String,
    },
    /// The executed addresses cannot be taken for the executable's own.
    #[error("tracing {who} ({mode}): {executable}: {message}")]
    Addresses {
        who: String,
        mode: Mode,
        executable: PathBuf,
        message: String,
    },
    #[error("tracing {who}: {path}: {source}")]
    Io {
        who: String,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("tracing {who}: {source}")]
    Fork {
        who: String,
        source: crate::steps::fork::ForkError,
    },
    /// What cannot be traced (a command without its command line).
    #[error("tracing {who}: {what} cannot be traced")]
    Unsupported { who: String, what: &'static str },
}

/// Why valgrind cannot trace an executable's benchmarks, so that they are traced natively
/// ([`native`]) and a later run on the same build goes native at once
/// ([`TraceCache::unfit_for_valgrind`]). Either way the native trace decides exactly as it does
/// for a target too slow for valgrind (docs/design/selection-trace.md, "The native trace").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ValgrindUnfit {
    /// Its run outlasted its budget ([`TraceError::OverBudget`]).
    TooSlow,
    /// valgrind could not decode an instruction it runs ([`TraceError::Undecodable`]).
    CannotRun { bytes: String },
}

impl ValgrindUnfit {
    /// What `error` says of valgrind, when it is a reason to trace natively.
    pub fn of(error: &TraceError) -> Option<Self> {
        match error {
            TraceError::OverBudget { .. } => Some(ValgrindUnfit::TooSlow),
            TraceError::Undecodable { bytes, .. } => Some(ValgrindUnfit::CannotRun {
                bytes: bytes.clone(),
            }),
            _ => None,
        }
    }
}

impl std::fmt::Display for ValgrindUnfit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ValgrindUnfit::TooSlow => write!(f, "valgrind would take longer than its budget"),
            ValgrindUnfit::CannotRun { bytes } => write!(
                f,
                "valgrind cannot run its code: it does not know an instruction this CPU runs, \
                 bytes {bytes}"
            ),
        }
    }
}

impl Trace {
    /// Adds what one run found.
    fn add(&mut self, run: runs::RunTrace) {
        // Known only when every run tells it.
        if self.untimed.is_none() {
            self.untimed = run.untimed;
        }
        self.timed = match (self.runs.is_empty(), self.timed.take(), run.timed) {
            (true, _, timed) => timed,
            (false, Some(mut mine), Some(theirs)) => {
                mine.extend(theirs);
                Some(mine)
            }
            _ => None,
        };
        self.executed.extend(run.executed);
        for (program, addresses) in run.by_program {
            self.executed_by_program
                .entry(program)
                .or_default()
                .extend(addresses);
        }
        self.libraries.extend(run.libraries);
        let mut touched = syscalls::Touched {
            files: std::mem::take(&mut self.files),
            programs: std::mem::take(&mut self.programs),
            unresolved: std::mem::take(&mut self.unresolved),
            sets_affinity: self.sets_affinity,
        };
        touched.merge(run.touched);
        self.files = touched.files;
        self.programs = touched.programs;
        self.unresolved = touched.unresolved;
        self.sets_affinity = touched.sets_affinity;
        self.runs.push(run.summary);
    }

    /// The paths it touched inside `root` (a checkout), relative to it.
    pub fn files_under(&self, root: &Path) -> BTreeMap<PathBuf, Access> {
        self.files
            .iter()
            .filter_map(|(path, access)| {
                Some((path.strip_prefix(root).ok()?.to_path_buf(), *access))
            })
            .collect()
    }
}

/// How messages name the benchmark or command of `req`.
fn who(req: &ForkRequest) -> String {
    match req.command {
        Some(_) => format!("command `{}`", req.benchmark_id),
        None => format!("benchmark `{}`", req.benchmark_id),
    }
}

/// Traces the benchmark of `req` (a fork request as the time metric builds it: executable,
/// working directory, environment, harness, exact id, timeout per run) under `valgrind`, each
/// run in a directory of its own under `scratch` (kept by the caller until this returns): one
/// test-mode run ([`Mode::runs_for`]; `bencher` a short measuring run), within its budget
/// ([`runs::budget`]); a command (`req.command` set, as the time metric builds its fork) in one
/// execution.
pub fn trace_benchmark(
    req: &ForkRequest,
    valgrind: &Valgrind,
    scratch: &Path,
) -> Result<Trace, TraceError> {
    trace_in_modes(req, valgrind, scratch, Mode::runs_for(req.harness))
}

/// [`trace_benchmark`] with the runs of `modes` only.
pub fn trace_in_modes(
    req: &ForkRequest,
    valgrind: &Valgrind,
    scratch: &Path,
    modes: &[Mode],
) -> Result<Trace, TraceError> {
    let who = who(req);
    if (req.command.is_some()) != (req.harness == Harness::Command) {
        return Err(TraceError::Unsupported {
            who,
            what: "a command without its command line, or a benchmark with one,",
        });
    }
    let mut trace = Trace {
        cwd: req.cwd.clone(),
        ..Trace::default()
    };
    for &mode in modes {
        let dir = scratch.join(mode.as_str().replace(' ', "-"));
        std::fs::create_dir_all(&dir).map_err(|source| TraceError::Io {
            who: who.clone(),
            path: dir.clone(),
            source,
        })?;
        trace.add(runs::run(req, valgrind, mode, &dir)?);
    }
    Ok(trace)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failed(tail: &str) -> TraceError {
        TraceError::Failed {
            who: "benchmark `Pcap/Parser`".into(),
            mode: Mode::Test,
            message: "it exited with 101".into(),
            tail: tail.into(),
        }
    }

    #[test]
    fn a_trace_whose_benchmark_panicked_names_the_panic() {
        let tail = "Benchmarking Pcap/Parser\n\
            thread 'main' (7) panicked at benches/benches.rs:14:64:\n\
            called `Result::unwrap()` on an `Err` value: IncompleteBuffer\n\
            note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace";
        assert_eq!(
            failed(tail).to_string(),
            "tracing benchmark `Pcap/Parser` (test mode): it exited with 101: thread 'main' (7) \
             panicked at benches/benches.rs:14:64: called `Result::unwrap()` on an `Err` value: \
             IncompleteBuffer"
        );
        // Output without a panic adds nothing.
        assert_eq!(
            failed("Benchmarking Pcap/Parser\nerror: something").to_string(),
            "tracing benchmark `Pcap/Parser` (test mode): it exited with 101"
        );
    }
}
