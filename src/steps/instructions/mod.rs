//! Instruction counts: the benchmarks and commands a comparison already has, counted under
//! valgrind's `callgrind` tool, in instructions per iteration (per execution for a command),
//! and the functions behind a change (docs/instructions.md; how: docs/design/instructions.md).
//!
//! Why: on shared machines wall time is noisy, and hardware counters are often refused
//! (`perf_event_open` on hosted CI runners). valgrind simulates the processor and counts every
//! instruction the program executes, so identical code gives (nearly) identical counts whatever
//! else runs on the machine, and a change of 0.5 % in the work is plain to see. It is blind to
//! what does not show in the instruction count (cache misses, branch mispredictions, code
//! alignment, I/O, waiting): a complement to time, not a replacement.
//!
//! The parts:
//! - [`valgrind`]: finding valgrind, or one line saying how to install it;
//! - [`criterion`]: one criterion benchmark (criterion 0.3–0.8 and its forks that keep its runner
//!   protocol) counted through the usual fork ([`crate::steps::fork::run_fork`]) with valgrind in front;
//!   only the calls of criterion's `Bencher::iter` (and `iter_custom`, `iter_batched`,
//!   `iter_batched_ref`) are counted, each dumped on its own, and instructions per iteration come
//!   from a line through the samples' counts against the iteration counts criterion reports for
//!   them ([`fit`]);
//! - [`command`]: one execution of a command, the whole program (and what it starts) counted;
//! - [`callgrind`] and [`dumps`]: reading the profiles; [`profile`]: instructions by function,
//!   and the difference between two revisions, most changed function first.
//!
//! - [`divan`], [`bencher`], [`libtest`]: the other harnesses, whose summaries give no iteration
//!   counts: divan's are fixed on its command line (two runs, two sample sizes), bencher's and
//!   libtest's follow a fixed schedule whose one time-dependent number is found from the counts.
//!
//! The round loop ([`crate::orchestrate`]) calls [`measure`] for each side of each benchmark and
//! keeps the result as a fork of the benchmark's instruction record
//! ([`InstructionMeasurement::fork_record`]) and the side's profile
//! ([`InstructionMeasurement::kept_profile`]).

pub mod bencher;
pub mod callgrind;
pub mod command;
pub mod criterion;
pub mod divan;
pub mod dumps;
pub mod fit;
pub mod inlined;
pub mod libtest;
pub mod profile;
pub mod symbols;
pub mod timed;
pub mod valgrind;

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

pub use fit::{PerIterationFit, SampleCount};
pub use profile::{FunctionChange, Instructions, PerIterationProfile, diff};
pub use valgrind::{CALLGRIND, Valgrind, ValgrindError};

use crate::model::harness::PerFork;
use crate::model::profile::{CountFit, INSTRUCTIONS_UNIT, KEPT_SHARE};
use crate::model::samples::{FailureRecord, ForkRecord};

/// How the instructions of one iteration were derived.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Derivation {
    /// Criterion: each sample's calls of `Bencher::iter` counted apart, a line fitted through
    /// `(iterations, instructions)` of the samples ([`fit`]).
    CriterionSamples,
    /// divan: two runs with samples of fixed sizes (1 and 5 iterations), each sample counted
    /// apart, a line fitted through all of them ([`divan`]).
    DivanTwoSampleSizes,
    /// `bencher`: every sample's call of the benchmark function counted apart, the iteration
    /// counts from bencher's fixed schedule, its `n` found from the counts ([`bencher`]).
    BencherSchedule,
    /// libtest `#[bench]`: every sample's loop counted apart between the clock reads, the
    /// iteration counts from libtest's fixed schedule ([`libtest`]).
    LibtestSchedule,
    /// A command: the whole execution, start-up and exit included, is one "iteration".
    WholeExecution,
}

/// The instruction count of one benchmark or command, from one run under valgrind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InstructionMeasurement {
    /// Instructions per iteration (per execution for a command).
    pub per_iteration: f64,
    pub derivation: Derivation,
    /// The samples it was derived from (one for a command).
    pub samples: Vec<SampleCount>,
    /// The fit through the samples; for a command, an exact one-sample "fit".
    pub fit: PerIterationFit,
    /// Calls of the measured function before the samples (criterion's warm-up), not counted.
    pub warm_up_calls: usize,
    /// The counted instructions by function, per iteration (per execution).
    pub profile: PerIterationProfile,
    /// Wall time of the run under valgrind, in milliseconds.
    pub wall_ms: f64,
}

impl Derivation {
    /// Its name in the samples file ([`CountFit::derivation`]).
    pub fn as_str(self) -> &'static str {
        match self {
            Derivation::CriterionSamples => "criterion_samples",
            Derivation::DivanTwoSampleSizes => "divan_two_sample_sizes",
            Derivation::BencherSchedule => "bencher_schedule",
            Derivation::LibtestSchedule => "libtest_schedule",
            Derivation::WholeExecution => "whole_execution",
        }
    }
}

impl InstructionMeasurement {
    /// The fork an instruction record keeps of this run: one value, the instructions per
    /// iteration, with how it was derived.
    pub fn fork_record(&self) -> ForkRecord {
        ForkRecord {
            iters: vec![1.0],
            times_ns: vec![self.per_iteration],
            per_fork: Some(PerFork::Instructions),
            unit: Some(INSTRUCTIONS_UNIT.to_string()),
            wall_ms: Some(self.wall_ms),
            count: Some(CountFit {
                derivation: self.derivation.as_str().to_string(),
                exact: self.fit.exact,
                per_sample: self.fit.per_sample,
                max_residual: self.fit.max_residual,
                samples: self.samples.len(),
            }),
            ..ForkRecord::default()
        }
    }

    /// The profile a samples file keeps of this run ([`PerIterationProfile::pruned`]).
    pub fn kept_profile(&self) -> PerIterationProfile {
        self.profile.pruned(KEPT_SHARE)
    }
}

/// How one instruction run ended: measured, or a failure of the benchmark (it panicked, was not
/// found, timed out, or nothing was counted), which is a result about that benchmark.
#[derive(Debug, Clone, PartialEq)]
pub enum InstructionOutcome {
    Measured(Box<InstructionMeasurement>),
    Failed(FailureRecord),
}

impl InstructionOutcome {
    pub fn measured(&self) -> Option<&InstructionMeasurement> {
        match self {
            InstructionOutcome::Measured(m) => Some(m),
            InstructionOutcome::Failed(_) => None,
        }
    }

    pub fn failure(&self) -> Option<&FailureRecord> {
        match self {
            InstructionOutcome::Measured(_) => None,
            InstructionOutcome::Failed(f) => Some(f),
        }
    }
}

/// What stops a whole run (a failing benchmark is an [`InstructionOutcome::Failed`]).
#[derive(Debug, thiserror::Error)]
pub enum InstructionsError {
    #[error(transparent)]
    Valgrind(#[from] ValgrindError),
    #[error(transparent)]
    Fork(#[from] crate::steps::fork::ForkError),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Only criterion benchmarks and commands are counted so far.
    #[error("instruction counts are not available for {0} benchmarks yet")]
    UnsupportedHarness(&'static str),
}

/// Counts the instructions of the benchmark or command of `req` (a fork request as the time
/// metric builds it) under `valgrind`, with its script and profiles in `work_dir` (an empty
/// directory the caller keeps until this returns): the one entry point, by harness.
///
/// `req.timeout` must allow for valgrind: a criterion fork still runs for its warm-up and
/// measurement times (fewer iterations), divan's and libtest's take as long as they take
/// (seconds on the demo), a command 20–50× its native time.
pub fn measure(
    req: &crate::steps::fork::ForkRequest,
    valgrind: &Valgrind,
    work_dir: &std::path::Path,
) -> Result<InstructionOutcome, InstructionsError> {
    use crate::model::harness::Harness;
    if req.command.is_some() {
        return command::measure(req, valgrind, work_dir);
    }
    match req.harness {
        Harness::Criterion(_) => criterion::measure(req, valgrind, work_dir),
        Harness::Divan => divan::measure(req, valgrind, work_dir),
        Harness::Bencher => bencher::measure(req, valgrind, work_dir),
        Harness::Libtest => libtest::measure(req, valgrind, work_dir),
        Harness::Command => Err(InstructionsError::UnsupportedHarness("command")),
    }
}

pub(crate) fn io_error(
    path: impl Into<PathBuf>,
) -> impl FnOnce(std::io::Error) -> InstructionsError {
    let path = path.into();
    move |source| InstructionsError::Io { path, source }
}

/// The samples counted of one benchmark, as the harness's module found them.
pub(crate) struct Counted<'a> {
    pub derivation: Derivation,
    /// The samples the figure rests on, and the line through them.
    pub samples: Vec<SampleCount>,
    pub fit: PerIterationFit,
    pub warm_up_calls: usize,
    /// The profiles of the measured calls, added up into the benchmark's profile.
    pub profiles: &'a [profile::Profile],
    /// The iterations those calls ran.
    pub iterations: f64,
    pub wall_ms: f64,
}

/// The measurement of `counted` samples of the benchmark in `executable`: its profile the
/// measured calls' profiles added up, inlined code given back to its function
/// ([`inlined::attribute`]), per iteration.
pub(crate) fn measured(counted: Counted<'_>, executable: &std::path::Path) -> InstructionOutcome {
    let profile = inlined::attribute(&profile::Profile::sum(counted.profiles), executable)
        .per_iteration(counted.iterations);
    InstructionOutcome::Measured(Box::new(InstructionMeasurement {
        per_iteration: counted.fit.per_iteration,
        derivation: counted.derivation,
        samples: counted.samples,
        fit: counted.fit,
        warm_up_calls: counted.warm_up_calls,
        profile,
        wall_ms: counted.wall_ms,
    }))
}

/// A failure of one benchmark or command.
pub(crate) fn failed(message: String, stderr_tail: String) -> InstructionOutcome {
    InstructionOutcome::Failed(FailureRecord {
        message,
        stderr_tail,
    })
}

/// Reads and parses the profiles at `paths`; a profile that cannot be read or parsed is a
/// failure of the benchmark (a valgrind that died mid-write), named with its file.
pub(crate) fn read_profiles(paths: &[PathBuf]) -> Result<Vec<profile::Profile>, String> {
    paths
        .iter()
        .map(|path| {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            callgrind::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
        })
        .collect()
}
