//! One fork: one launch of a bench executable measuring exactly one benchmark.
//!
//! A fork runs `<exe> --bench --exact <ID> --warm-up-time <s> --measurement-time <s>
//! --sample-size <n>` and receives the raw samples over criterion's cargo-criterion socket
//! protocol ([`protocol`]). Each fork is a fresh process because run-to-run variation (memory
//! layout, frequency, caches) is a large part of the noise, and only repeated launches sample it
//! (METHOD.md, "Vocabulary").
//!
//! The steps are separate ([`session::RunningFork`]: launch, wait until connected, release,
//! finish) so that duet mode ([`crate::steps::fork::duet`]) can start two forks, hold both at criterion's
//! hello, and release them at the same instant.
//!
//! Harnesses that print only a summary (divan, libtest, bencher) run through
//! [`text::TextFork`] instead, with the same steps ([`Fork`]); their fork yields one value.
//!
//! A benchmark that misbehaves (panics, exits non-zero, hangs, never connects, is not found)
//! yields [`ForkOutcome::Failed`]: that is a result about the benchmark, and the run goes on.
//! [`ForkError`] is reserved for what stops the whole run.

pub mod command;
pub mod cpu_wait;
pub mod deadlock;
pub mod divan_tune;
pub mod duet;
pub mod exec_helper;
pub mod fresh_copy;
mod held;
pub mod process;
pub mod protocol;
pub mod run_place;
pub mod session;
pub mod shared_cpus;

pub mod steal;
pub mod text;

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

use crate::model::harness::CliDialect;
use std::time::Duration;

use crate::model::harness::Harness;
use crate::model::samples::{FailureRecord, ForkRecord};

pub use process::usable_cpus;

/// Errors that stop the whole run (a failing benchmark is not one: it becomes a `FailureRecord`).
#[derive(Debug, thiserror::Error)]
pub enum ForkError {
    #[error("cannot launch {executable}: {source}")]
    Launch {
        executable: String,
        source: std::io::Error,
    },
    /// The local socket criterion reports its samples over cannot be opened.
    #[error("cannot open a local socket for benchmark results: {source}")]
    Socket { source: std::io::Error },
    /// A fork was asked to run on a CPU this process may not use.
    #[error("CPU {cpu} is not available to this process (usable CPUs: {})", list(.usable))]
    CpuNotUsable { cpu: usize, usable: Vec<usize> },
    /// Duet mode was asked for the same CPU twice.
    #[error("duet mode needs two different CPUs, but CPU {0} was given twice")]
    SameCpuTwice(usize),
    /// Duet mode needs two CPUs and the process may use fewer.
    #[error(
        "duet mode needs two CPUs, but this process may only use {}; use interleaved mode",
        if .usable.is_empty() { "none".to_string() } else { format!("CPU {}", list(.usable)) }
    )]
    NotEnoughCpus { usable: Vec<usize> },
    /// Ctrl-C or SIGTERM ([`crate::util::interrupt::request_interrupt`]); the running fork was killed.
    #[error("interrupted")]
    Interrupted,
}

fn list(cpus: &[usize]) -> String {
    cpus.iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Everything needed to run one fork.
#[derive(Debug, Clone, PartialEq)]
pub struct ForkRequest {
    /// The bench executable (a `[[bench]]` target built by cargo).
    pub executable: PathBuf,
    /// Working directory of the benchmark (cargo runs benches in their package's directory).
    pub cwd: PathBuf,
    /// Added to the inherited environment.
    pub env: Vec<(OsString, OsString)>,
    /// The benchmark's id as its harness lists it (criterion's `group/function/parameter`,
    /// divan's `module::function`, a `#[bench]` function's path); matched exactly.
    pub benchmark_id: String,
    /// The harness of the executable, and with it the command line it understands.
    pub harness: Harness,
    pub warm_up: Duration,
    pub measurement: Duration,
    /// Samples per fork; criterion needs at least 10, smaller values are raised to 10.
    pub sample_size: usize,
    /// Iterations per sample for divan (`--sample-size`), where its own tuning would leave each
    /// sample a few timer ticks long ([`divan_tune`]); `None`: the harness chooses.
    pub harness_sample_size: Option<u64>,
    /// Wall-clock limit for the fork: from launch until it connects, and again from its release
    /// (the runner hello) until it exits, so time parked at a duet barrier does not count.
    pub timeout: Duration,
    /// A private directory for `CRITERION_HOME`, so criterion never touches the user's
    /// `target/criterion` (nothing is written there while connected to us, either).
    pub criterion_home: PathBuf,
    /// Pin the benchmark to this CPU (duet mode).
    pub cpu: Option<usize>,
    /// Set for a command ([`crate::model::command`]): the execution to measure, in place of a bench
    /// executable's benchmark.
    pub command: Option<command::CommandRun>,
}

impl ForkRequest {
    /// The criterion command line of the executable (criterion's current one for the other
    /// harnesses, which never use it).
    pub fn dialect(&self) -> CliDialect {
        self.harness.criterion_dialect().unwrap_or_default()
    }
}

/// How one fork ended.
#[derive(Debug, Clone, PartialEq)]
pub enum ForkOutcome {
    /// The samples (`round` is left for the caller to set).
    Completed(Box<ForkRecord>),
    /// Why the benchmark produced no samples, with the tail of its stderr.
    Failed(FailureRecord),
}

impl ForkOutcome {
    /// The record, if the fork completed.
    pub fn completed(&self) -> Option<&ForkRecord> {
        match self {
            ForkOutcome::Completed(record) => Some(record),
            ForkOutcome::Failed(_) => None,
        }
    }

    /// The failure, if the fork failed.
    pub fn failure(&self) -> Option<&FailureRecord> {
        match self {
            ForkOutcome::Completed(_) => None,
            ForkOutcome::Failed(failure) => Some(failure),
        }
    }
}

/// Runs one fork to completion.
///
/// A benchmark that panics, exits non-zero, never connects, is not found or exceeds
/// `req.timeout` gives `Ok(ForkOutcome::Failed)` naming the benchmark and what happened, with the
/// last lines of its stderr; its whole process tree is killed. `Err` only for what concerns the
/// whole run: the executable cannot be started, no socket, an unusable CPU, or an interrupt.
pub fn run_fork(req: &ForkRequest) -> Result<ForkOutcome, ForkError> {
    let never_cancelled = AtomicBool::new(false);
    let mut fork = Fork::launch(req)?;
    fork.wait_until_connected(&never_cancelled)?;
    fork.release();
    Ok(fork.finish(&never_cancelled)?.outcome)
}

/// Runs one fork whose executable is a helper that starts the benchmark and writes what it saw
/// once the benchmark has ended (the native probe's): as [`run_fork`], but the helper outlives
/// the benchmark ([`Leader::Helper`]).
pub fn run_fork_led_by_helper(req: &ForkRequest) -> Result<ForkOutcome, ForkError> {
    let never_cancelled = AtomicBool::new(false);
    let mut fork = Fork::launch_with(req, false, Leader::Helper)?;
    fork.wait_until_connected(&never_cancelled)?;
    fork.release();
    Ok(fork.finish(&never_cancelled)?.outcome)
}

/// The process a fork starts, which leads its process group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Leader {
    /// The benchmark itself: a harness that prints a summary has its group killed as soon as
    /// the value is read.
    #[default]
    Benchmark,
    /// A helper in front of the benchmark, which must outlive it: once the value is read (a
    /// criterion benchmark's samples and their unit, criterion left waiting for `Continue`) the
    /// helper alone is asked to stop (`SIGTERM`) and waited for, and then the group is killed.
    /// Killing the group at once would kill the helper before it wrote its result.
    Helper,
}

/// A running fork of any harness: criterion's, parked at its runner protocol, or one of a
/// harness that prints a summary ([`text::TextFork`]), held before it starts when asked to be.
pub enum Fork {
    Criterion(Box<session::RunningFork>),
    Text(Box<text::TextFork>),
    Command(Box<command::CommandFork>),
}

impl Fork {
    /// Starts the fork of `req`; a criterion fork parks at the runner hello, any other fork runs
    /// at once.
    pub fn launch(req: &ForkRequest) -> Result<Fork, ForkError> {
        Self::launch_with(req, false, Leader::Benchmark)
    }

    /// Starts the fork of `req` held until [`release`](Self::release), whatever its harness
    /// (duet mode releases two held forks together).
    pub fn launch_held(req: &ForkRequest) -> Result<Fork, ForkError> {
        Self::launch_with(req, true, Leader::Benchmark)
    }

    fn launch_with(req: &ForkRequest, held: bool, leader: Leader) -> Result<Fork, ForkError> {
        if let Some(run) = &req.command {
            return Ok(Fork::Command(Box::new(command::CommandFork::launch(
                req, run, held,
            )?)));
        }
        Ok(match req.harness {
            Harness::Criterion(_) => {
                Fork::Criterion(Box::new(session::RunningFork::launch_led(req, leader)?))
            }
            _ => Fork::Text(Box::new(text::TextFork::launch(req, held, leader)?)),
        })
    }

    /// Waits until the fork is ready to be released (a criterion fork connected); `false` when
    /// it no longer can be (see [`session::RunningFork::wait_until_connected`]). A summary fork
    /// is ready at once.
    pub fn wait_until_connected(&mut self, cancel: &AtomicBool) -> Result<bool, ForkError> {
        match self {
            Fork::Criterion(fork) => fork.wait_until_connected(cancel),
            Fork::Text(_) | Fork::Command(_) => Ok(true),
        }
    }

    /// Lets the benchmark start measuring.
    pub fn release(&mut self) {
        match self {
            Fork::Criterion(fork) => fork.release(),
            Fork::Text(fork) => fork.release(),
            Fork::Command(fork) => fork.release(),
        }
    }

    /// Sets `flag` once the benchmark's result has arrived.
    pub fn signal_when_measured(&mut self, flag: std::sync::Arc<AtomicBool>) {
        match self {
            Fork::Criterion(fork) => fork.signal_when_measured(flag),
            Fork::Text(fork) => fork.signal_when_measured(flag),
            Fork::Command(fork) => fork.signal_when_measured(flag),
        }
    }

    /// Drives the fork to its end (see [`session::RunningFork::finish`]).
    pub fn finish(self, cancel: &AtomicBool) -> Result<session::FinishedFork, ForkError> {
        match self {
            Fork::Criterion(fork) => fork.finish(cancel),
            Fork::Text(fork) => fork.finish(cancel),
            Fork::Command(fork) => fork.finish(cancel),
        }
    }
}
