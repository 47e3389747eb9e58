//! The samples file: every raw measurement of a run, written after every fork.
//!
//! Measurements cost minutes; analysis costs milliseconds. So the raw samples are the product's
//! primary artefact: they are saved after each fork (write to a temporary file, then rename, so a
//! crash at any moment leaves the previous complete file), `cargo perfdiff report` re-analyses
//! them, `--resume` continues from them, and `replay` evaluates stop rules on them.
//!
//! Format (`perfdiff-samples/1`, JSON):
//!
//! ```json
//! {"schema": "perfdiff-samples/1",
//!  "run": {"base": {"spec": "HEAD~1", "commit": "…"}, "head": {…}, "mode": "interleaved", …},
//!  "benchmarks": [{"id": "group/name",
//!                  "base": {"forks": [{"iters": [7, 14], "times_ns": [7100.0, 14150.0]}]},
//!                  "head": {"forks": [{"iters": [7, 14], "times_ns": [7300.0, 14700.0]}]}}]}
//! ```
//!
//! Only `schema`, `benchmarks[].id` and the forks' `iters`/`times_ns` are required when reading;
//! every other field has a default, so hand-written or foreign files load too.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use crate::model::harness::{HarnessKind, PerFork};
use crate::model::profile::{CountFit, PerIterationProfile};

/// The schema tag written to and required in every samples file.
pub const SCHEMA: &str = "perfdiff-samples/1";

/// Errors reading or writing a samples file. Each names the file.
#[derive(Debug, thiserror::Error)]
pub enum SamplesError {
    #[error("cannot read samples file {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write samples file {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("malformed samples file {path}: {message}")]
    Malformed { path: PathBuf, message: String },
}

/// How the two revisions were measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Forks of base and head alternate in randomised rounds.
    #[default]
    Interleaved,
    /// Base and head run at the same time on two pinned CPUs; forks of one round are paired.
    Duet,
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Mode::Interleaved => "interleaved",
            Mode::Duet => "duet",
        })
    }
}

/// A whole samples file.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SampleFile {
    pub schema: String,
    #[serde(default)]
    pub run: RunInfo,
    pub benchmarks: Vec<BenchmarkRecord>,
    /// Bench targets (or some of their benchmarks) the run did not measure, and why, so that a
    /// re-analysis (`cargo perfdiff report`) reports them as the run did.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped_targets: Vec<SkippedTarget>,
}

/// A bench target that was not measured, or the part of it that was not, and why.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct SkippedTarget {
    /// The package the target belongs to (absent in files recorded before packages were).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub package: Option<String>,
    pub target: String,
    pub reason: String,
}

impl SkippedTarget {
    /// How reports name it: `target`, or `package::target` when `several_packages`.
    pub fn label(&self, several_packages: bool) -> String {
        crate::model::target::target_label(self.package.as_deref(), &self.target, several_packages)
    }
}

/// What was compared and how; informative, never needed for analysis.
#[derive(Debug, Clone, Serialize, Deserialize, Default, PartialEq)]
pub struct RunInfo {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<RevisionInfo>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head: Option<RevisionInfo>,
    #[serde(default)]
    pub mode: Mode,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// The effective settings of the run (see `config::Settings`), as JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_version: Option<String>,
    /// Unix time in milliseconds when the run started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_unix_ms: Option<u64>,
    /// Shard `K/N` this file holds, when the run was sharded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    /// Wall time of the whole run so far, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall_ms: Option<u64>,
    /// The part of `wall_ms` spent running rounds of forks (with their checkpoints); the rest is
    /// checkout, build and discovery.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measure_ms: Option<u64>,
    /// Set when a duet run's own forks showed its two CPUs shared with other work: what it did
    /// about it ([`ModeChange`]). Absent when nothing changed (and in interleaved runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode_change: Option<ModeChange>,
    /// Where the rest of `wall_ms` went, phase by phase ([`Phases`]). Absent in files recorded
    /// before it was, in merged shards and in replays.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phases: Option<Phases>,
}

/// The wall time of each phase of a run besides measuring (`RunInfo::measure_ms`), in
/// milliseconds: so that a user, or a script, sees whether a slow run was slow building,
/// selecting or measuring. The phases follow each other; their sum with `measure_ms` is at most
/// `wall_ms` (the rest: locking, removing old executables, saving). A resumed run records its
/// own phases, not the interrupted run's.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Phases {
    /// Opening the repository, resolving the revisions, checking them out (with
    /// `--copy-untracked`'s files).
    #[serde(default)]
    pub checkout_ms: u64,
    /// Each side's build: its bench targets, code layouts and programs.
    #[serde(default)]
    pub build: SideBuildTimes,
    /// Listing and matching the benchmarks of both sides.
    #[serde(default)]
    pub discovery_ms: u64,
    /// Selection by reach: tracing the benchmarks (and commands) under valgrind on base.
    #[serde(default)]
    pub trace_ms: u64,
    /// Selection by reach: the native probes of the benchmarks it would skip.
    #[serde(default)]
    pub probe_ms: u64,
    /// Selection by reach besides its traces and probes: comparing the two sides' machine code
    /// and files.
    #[serde(default)]
    pub selection_ms: u64,
    /// The analysis after the rounds.
    #[serde(default)]
    pub analysis_ms: u64,
    /// `--explain`'s and `--metric instructions`' work after the rounds: the build with line
    /// tables and the counts that name the functions behind a change.
    #[serde(default)]
    pub explain_ms: u64,
}

impl Phases {
    /// The sum of every phase's time.
    pub fn total_ms(&self) -> u64 {
        let builds = [&self.build.base, &self.build.head]
            .into_iter()
            .flatten()
            .map(|b| b.ms)
            .sum::<u64>();
        self.checkout_ms
            + builds
            + self.discovery_ms
            + self.trace_ms
            + self.probe_ms
            + self.selection_ms
            + self.analysis_ms
            + self.explain_ms
    }
}

/// The build of each side; `head` is absent when base's build served both (the same commit).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct SideBuildTimes {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<BuildTime>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head: Option<BuildTime>,
}

/// One side's build: its wall time, and how many crates cargo compiled (0: up to date).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct BuildTime {
    pub ms: u64,
    #[serde(default)]
    pub crates_compiled: usize,
}

/// What a duet run did when one of its rounds showed its two CPUs shared: a round's forks waited
/// for a CPU for at least `limit` of the time they were ready to run
/// ([`crate::steps::fork::shared_cpus`], docs/design/duet.md#when-the-two-cpus-are-shared).
/// Rounds are numbered from 0, as [`ForkRecord::round`].
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ModeChange {
    /// The mode asked for: `duet`.
    pub asked: Mode,
    /// The mode of the rounds after `shared_round`: `interleaved`, or `duet` when the user kept
    /// it (`keep-duet`).
    pub used: Mode,
    /// The first round measured in `used`.
    pub from_round: usize,
    /// The round whose forks showed the CPUs shared. When the run left duet, its duet forks are
    /// set aside ([`ForkRecord::set_aside`]): kept in the file, left out of the analysis.
    pub shared_round: usize,
    /// The CPU-wait share of that round's duet forks, weighted by their wall time.
    pub cpu_wait_share: f64,
    /// The share from which a round's CPUs count as shared.
    pub limit: f64,
    /// The same share per pinned CPU, so the user sees which one was busy.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cpus: Vec<CpuWait>,
    /// The benchmarks whose forks of that round set their own CPU affinity
    /// ([`ForkRecord::own_cpus`]): the cause, when not empty, and the change was made for them
    /// whatever the wait.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub repinned: Vec<Repinned>,
}

/// A benchmark whose duet fork moved itself off the CPU it was pinned to.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Repinned {
    pub benchmark: String,
    /// The CPU its fork was pinned to.
    pub cpu: usize,
    /// The CPUs it allowed itself (`Cpus_allowed_list`).
    pub own_cpus: String,
}

/// One pinned CPU's CPU-wait share over a round's duet forks (wall-weighted).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
pub struct CpuWait {
    pub cpu: usize,
    pub cpu_wait_share: f64,
    /// The forks that ran on it.
    pub forks: usize,
}

/// One side of the comparison as the user named it and as it was resolved.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct RevisionInfo {
    /// What the user typed (`HEAD~1`, `main`, `working tree`).
    pub spec: String,
    /// The commit it resolved to; `None` for an uncommitted working tree snapshot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// True when this side is the working tree including uncommitted changes.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dirty: bool,
}

/// Which sides a benchmark exists on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Presence {
    #[default]
    Both,
    OnlyInBase,
    OnlyInHead,
}

/// All measurements of one benchmark.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct BenchmarkRecord {
    /// Criterion id (`group/function/parameter`), qualified as `target::id` or
    /// `package::target::id` when several bench targets of the run define it.
    pub id: String,
    /// The bench target (`[[bench]]` name) the benchmark belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// The package of that bench target (absent in files recorded before packages were).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub package: Option<String>,
    /// The id criterion gives the benchmark, when `id` is qualified by target and package
    /// because another bench target defines it too (`kern::a_mix` for `a_mix`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub criterion_id: Option<String>,
    /// The harness of its bench target (head's, or base's when head lacks it); absent in files
    /// recorded before other harnesses than criterion were run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub harness: Option<HarnessKind>,
    #[serde(default)]
    pub presence: Presence,
    #[serde(default)]
    pub base: SideRecord,
    #[serde(default)]
    pub head: SideRecord,
    /// Why measurement stopped (stop rule met, cap reached, …), when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<StopRecord>,
    /// Whether it was measured at all, and why: a benchmark that executes the same code and
    /// reads the same files on both sides is `unchanged` without a fork (docs/selection.md).
    /// Absent when selection was off (`--measure-all`) or in files recorded before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selection: Option<SelectionRecord>,
    /// How long its forks measure after the first rounds, chosen from its variance at each level
    /// and the cost of a fork (docs/design/fork-length.md); absent before the choice, and in
    /// files recorded before it was made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fork_length: Option<ForkLengthChoice>,
}

/// Why a benchmark was measured or not, decided before any timing from what it executes
/// ([`crate::steps::reach`]).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, Default)]
pub struct SelectionRecord {
    /// False: it executes the same code and reads the same files on both sides, and its verdict
    /// is `unchanged` without a fork.
    pub measured: bool,
    pub reason: SelectionReason,
    /// One line saying what was decided and on what: what was compared when it is the same, why
    /// it could not be decided when it was not.
    pub detail: String,
    /// Functions executed on base, compared with head's (absent: none compared).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub functions: usize,
    /// Data objects those functions reach (constants, statics, vtables), compared.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub data: usize,
    /// Files of the checkout it read, compared.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub files: usize,
    /// The changed functions it executes, demangled, as `--explain` names them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changed_functions: Vec<String>,
    /// The changed data objects it reaches.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changed_data: Vec<String>,
    /// The files it reads that differ, relative to the checkout.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changed_files: Vec<String>,
    /// Of `changed_files`, those it only asked about (`stat`, `access`, a failed open), whose
    /// size, kind or permissions differ; their content it never read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub looked_at_files: Vec<String>,
    /// Of `changed_functions`, those its trace ran only outside its timed loop (start-up,
    /// set-up, teardown): their code is not measured. Empty when the trace cannot tell.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub outside_loop: Vec<String>,
    /// Of `changed_functions`, those compiled from the same source on both sides (their lines
    /// and the lines inlined into them read the same): a change elsewhere made the compiler
    /// inline or lay them out differently. Found for every changed verdict from the builds with
    /// line tables (also `--explain`'s), and
    /// by selection for a benchmark skipped because they run only outside its timed loop; for
    /// such a benchmark also the changed functions of the other benchmarks of its target found
    /// so, which its native probe may enter outside the timed loop.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub same_source: Vec<String>,
    /// How long its trace ran outside its timed routine (before its first entry, after its last
    /// return), in milliseconds:
    /// known from a native trace only (`Trace::set_up_ms`), for the run's first estimate of its
    /// forks' time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub set_up_ms: Option<u64>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The reason a [`SelectionRecord`] gives.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum SelectionReason {
    /// The same code and files on both sides: not measured.
    SameCode,
    /// It executes changed code, reaches changed data or reads a changed file: measured.
    ReachesChange,
    /// Whether it reaches the change could not be decided (a trace failed, an address had no
    /// symbol, valgrind is missing, the build settings differ, …): measured.
    #[default]
    Undecided,
}

impl SelectionRecord {
    /// The changed functions its timed loop runs: `changed_functions` but those only outside it.
    pub fn changed_in_loop(&self) -> impl Iterator<Item = &String> {
        let outside = &self.outside_loop;
        self.changed_functions
            .iter()
            .filter(move |f| !outside.contains(f))
    }

    /// Whether the benchmark is `unchanged` without a fork.
    pub fn skipped(&self) -> bool {
        !self.measured && self.reason == SelectionReason::SameCode
    }
}

/// The forks of one side of one benchmark.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct SideRecord {
    #[serde(default)]
    pub forks: Vec<ForkRecord>,
    /// Set when a fork of this side failed; the benchmark is then reported `failed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<FailureRecord>,
    /// Where this side's instructions went, by function, per iteration (per execution of a
    /// command): from its first run under valgrind, pruned ([`PerIterationProfile::pruned`]).
    /// An instruction record has it; a time record has it when `--explain` profiled it. The
    /// report lists the functions whose counts changed ([`crate::model::profile::diff`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<PerIterationProfile>,
}

/// One launch of a benchmark process: its samples and how they were taken.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct ForkRecord {
    /// Iterations per sample (criterion's `iters`); floats because criterion sends floats.
    pub iters: Vec<f64>,
    /// Total time per sample in nanoseconds (criterion's `times`).
    pub times_ns: Vec<f64>,
    /// Round number (0-based) the fork ran in; duet mode pairs forks by round.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round: Option<usize>,
    /// The code layout of the executable the fork ran (0: cargo's build; `k`: relinked with
    /// seed `k`, [`crate::steps::build::layout`]); absent when the run measured one layout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layout: Option<usize>,
    /// Leading samples dropped as warm-up by steady-state detection (see `stop`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warmup_dropped: Option<usize>,
    /// True when no steady state was found in this fork.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unsteady: bool,
    /// CPU the fork was pinned to (duet mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<usize>,
    /// The mode of the round the fork ran in, when it is not the run's (`RunInfo::mode`): an
    /// interleaved round of a duet run that left duet ([`ModeChange`]). Absent: the run's mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<Mode>,
    /// True for a duet fork of the round that showed the two CPUs shared, when the run left duet
    /// after it ([`ModeChange::shared_round`]): kept, but left out of the analysis, as measured
    /// on CPUs that other work shared.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub set_aside: bool,
    /// The fork of the same side and round measured first, when its own samples showed it
    /// disturbed (far slower than every earlier fork of its side) and this fork measured it
    /// again ([`crate::steps::stop::StopPolicy::remeasures`]): kept here, left out of the
    /// analysis.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remeasured: Option<Box<ForkRecord>>,
    /// Unix time in milliseconds when the fork's process started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_unix_ms: Option<u64>,
    /// Wall time of the fork's process in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall_ms: Option<f64>,
    /// Of `wall_ms`, the time outside the fork's own benchmark: from the process's start to
    /// criterion's `BeginningBenchmark`, and from `MeasurementComplete` to the exit. Starting the
    /// executable and the set-up code of its other benchmarks, which criterion runs in every
    /// process, whichever benchmark it measures. In duet mode it also holds the wait for the
    /// pair's release.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outside_ms: Option<f64>,
    /// Share of all of the machine's CPU time that the hypervisor stole while the fork ran
    /// (`/proc/stat`, see [`crate::steps::fork::steal`]); absent where it cannot be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steal_share: Option<f64>,
    /// Share of the time the fork's process was ready to run that it waited for a CPU
    /// (`/proc/<pid>/schedstat`, see [`crate::steps::fork::cpu_wait`]); absent where it cannot be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_wait_share: Option<f64>,
    /// The CPUs a thread of a pinned fork's process allowed itself at its end, when not only
    /// [`cpu`](Self::cpu) (`Cpus_allowed_list`): the benchmark set its own CPU affinity
    /// (`sched_setaffinity`), and a pair's two sides may then have shared one CPU
    /// ([`crate::steps::fork::shared_cpus`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub own_cpus: Option<String>,
    /// What `times_ns` measures when it is not nanoseconds of wall time: the unit a custom
    /// criterion `Measurement` names (`cycles` for `criterion-cycles-per-byte`). Absent for
    /// criterion's own wall time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
    /// The settings criterion actually used (a `BenchmarkGroup` may override ours).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<ForkSettings>,
    /// The settings cargo-perfdiff asked for on the fork's command line, as sent (criterion 0.3's
    /// whole seconds); where `config` differs, the benchmark's own code set it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asked: Option<ForkSettings>,
    /// Duet mode: when this fork's measurement phase ran, as Unix times in (fractional)
    /// milliseconds `[start, end]` (receipt of criterion's `MeasurementStart` and
    /// `MeasurementComplete`). Duet analysis pairs base and head samples by time with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measurement_window_ms: Option<[f64; 2]>,
    /// Set when the fork gave one value instead of its samples (divan, libtest, bencher print
    /// only a summary): which summary of the harness's own samples it is. `iters` is then `[1]`
    /// and `times_ns` holds the value, nanoseconds per iteration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_fork: Option<PerFork>,
    /// divan: the iterations of each of its samples that cargo-perfdiff asked for
    /// (`--sample-size`), where divan's own tuning would have left each sample a few timer ticks
    /// long ([`crate::steps::fork::divan_tune`]); absent where divan chose.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample_iterations: Option<u64>,
    /// A command's execution ([`crate::model::command`]): its CPU times and peak memory, as the
    /// measuring helper read them from the program's resource usage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<ExecResources>,
    /// A run under valgrind (`per_fork` `instructions`): how its one value, instructions per
    /// iteration, was derived from the counted samples.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<CountFit>,
}

/// What one execution of a command used, besides its wall time (`times_ns`).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Default)]
pub struct ExecResources {
    /// CPU time in user mode, nanoseconds.
    pub user_ns: f64,
    /// CPU time in the kernel on its behalf, nanoseconds.
    pub system_ns: f64,
    /// Peak resident set size, bytes.
    pub peak_rss_bytes: f64,
}

/// A fork's criterion settings: those criterion used, as `MeasurementComplete` reports them
/// ([`ForkRecord::config`]), or those cargo-perfdiff asked for ([`ForkRecord::asked`], without
/// `sampling`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct ForkSettings {
    pub sample_size: usize,
    pub warm_up_ms: f64,
    pub measurement_ms: f64,
    /// `linear` or `flat`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<String>,
}

/// Why a side failed: a panic, a non-zero exit, a timeout, a protocol error.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct FailureRecord {
    pub message: String,
    /// The last lines the process wrote to stderr or stdout.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub stderr_tail: String,
}

/// The measurement time a benchmark's forks get from round `from_round` on, both sides alike, and
/// why: Kalibera and Jones's optimum from the variance between forks and within them and the
/// fixed cost of a fork (`crate::steps::fork_length`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct ForkLengthChoice {
    /// The measurement time asked of criterion per fork from `from_round` on, in milliseconds.
    pub measurement_ms: f64,
    /// The measurement time of the rounds before (`--measurement-time`'s default).
    pub default_ms: f64,
    /// The first round (0-based) measured at `measurement_ms`: the rounds before gave the
    /// variance components.
    pub from_round: usize,
    /// Why this length.
    pub reason: ForkLengthReason,
    /// The variance of a fork's log mean from the noise within the fork, scaled to 1 ms of
    /// measurement (a fork measuring T ms has `within_per_ms / T`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub within_per_ms: Option<f64>,
    /// The variance component between forks of the log fork means (the part no length of fork
    /// averages away), pooled over both sides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub between: Option<f64>,
    /// The p-value of the F test that the forks differ no more than their samples: forks are
    /// shortened only below 0.05.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub between_p_value: Option<f64>,
    /// The within-fork part of a fork's variance at `default_ms`, `within_per_ms / default_ms`,
    /// beside `between`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub within_at_default: Option<f64>,
    /// The fixed cost of a fork in milliseconds: its wall time less the time its samples
    /// measured (process start, set-up, warm-up), the median over the forks so far.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fork_cost_ms: Option<f64>,
    /// The optimum before clamping to the bounds, `sqrt(fork_cost_ms · within_per_ms /
    /// between)`, in milliseconds (infinite when the forks do not differ).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub optimum_ms: Option<f64>,
    /// How many forks of `measurement_ms` take the time of one fork of `default_ms`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forks_per_default_fork: Option<f64>,
    /// The reason in a sentence.
    pub why: String,
}

/// Why a benchmark's forks got the length they did ([`ForkLengthChoice`]).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum ForkLengthReason {
    /// Its forks differ by more than their samples: shorter forks, more of them in the time.
    Shorter,
    /// Its noise within a fork dominates: longer forks.
    Longer,
    /// The optimum is within a quarter of the default: kept.
    #[default]
    Kept,
    /// The user set the measurement time (`--measurement-time`, `measurement-ms`): fixed.
    Fixed,
    /// The benchmark's own code sets its measurement time, which wins over the command line.
    SetInCode,
    /// Its forks give one value each (divan, libtest, bencher, commands): no within-fork
    /// variance to weigh.
    OneValuePerFork,
    /// Duet mode pairs samples taken at the same time; its forks keep their length.
    Duet,
    /// The first rounds did not give both components or the fork cost.
    NotEnoughData,
}

/// How measurement of a benchmark ended.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct StopRecord {
    /// The rule in force (`fixed`, `cv`, `rciw`, `kld`, `decided`).
    pub rule: String,
    /// Rounds run when it stopped.
    pub rounds: usize,
    /// Whether the rule was met per side (false: stopped at the cap).
    #[serde(default)]
    pub base_stable: bool,
    #[serde(default)]
    pub head_stable: bool,
    /// True when the benchmark stopped at `max-forks` without meeting its rule.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub capped: bool,
    /// Time spent evaluating the stop rule for this benchmark, in milliseconds.
    #[serde(default)]
    pub checkpoint_ms: f64,
    /// Extra per-rule details (e.g. the last criterion values).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub details: BTreeMap<String, f64>,
}

impl ForkRecord {
    /// Time per iteration (ns) of every sample kept after warm-up: `times_ns / iters`.
    pub fn per_iteration_ns(&self) -> Vec<f64> {
        let skip = self.warmup_dropped.unwrap_or(0);
        self.iters
            .iter()
            .zip(&self.times_ns)
            .skip(skip)
            .map(|(iters, time)| time / iters)
            .collect()
    }
}

impl BenchmarkRecord {
    /// Rounds in which both sides completed a fork.
    pub fn completed_rounds(&self) -> usize {
        self.base.forks.len().min(self.head.forks.len())
    }

    /// Keeps the forks of the first `rounds` rounds on both sides.
    pub fn truncate_to_rounds(&mut self, rounds: usize) {
        self.base.forks.truncate(rounds);
        self.head.forks.truncate(rounds);
    }

    /// True when a fork of either side failed.
    pub fn failed(&self) -> bool {
        self.base.failure.is_some() || self.head.failure.is_some()
    }

    /// The rounds an analysis of a run in `mode` rests on: each round's base and head fork, in
    /// round order, where both sides have data, each round in its own mode ([`pair_mode`]: a
    /// duet run that left duet has interleaved rounds after its duet ones). Rounds set aside
    /// ([`ForkRecord::set_aside`]) are left out. An interleaved round that is disturbed
    /// ([`crate::stats::disturbed`]: one fork far slower than its partner, beyond what the other
    /// interleaved rounds show) is left out with both its forks; duet rounds, and instruction
    /// counts, which no other process can disturb, are all kept, since a disturbance hits both
    /// forks of a pair at once and cancels in their ratio. Forks are paired by their round
    /// number, or by position in files that recorded none.
    pub fn analysed_pairs(&self, mode: Mode) -> Vec<(&ForkRecord, &ForkRecord)> {
        let pairs: Vec<(&ForkRecord, &ForkRecord)> = self
            .paired_forks()
            .into_iter()
            .filter(|(b, h)| !(b.set_aside || h.set_aside))
            .collect();
        // An instruction count is not disturbed by what else runs: every round stands.
        let counted =
            |(b, _): &(&ForkRecord, &ForkRecord)| b.per_fork == Some(PerFork::Instructions);
        if pairs.first().is_some_and(counted) {
            return pairs;
        }
        let interleaved =
            |(b, h): &(&ForkRecord, &ForkRecord)| pair_mode(b, h, mode) == Mode::Interleaved;
        let mean = |fork: &ForkRecord| crate::stats::descriptive::mean(&fork.per_iteration_ns());
        let log_ratios: Vec<f64> = pairs
            .iter()
            .filter(|pair| interleaved(pair))
            .map(|(b, h)| (mean(h) / mean(b)).ln())
            .collect();
        let mut disturbed = crate::stats::disturbed::disturbed_rounds(&log_ratios).into_iter();
        pairs
            .into_iter()
            .filter(|pair| !(interleaved(pair) && disturbed.next().unwrap_or(false)))
            .collect()
    }

    /// Per-iteration times by fork of the forks of [`BenchmarkRecord::analysed_pairs`],
    /// `(base, head)`: as many forks on each side, the i-th of either from the same round.
    pub fn analysed_by_fork(&self, mode: Mode) -> (Vec<Vec<f64>>, Vec<Vec<f64>>) {
        self.analysed_pairs(mode)
            .into_iter()
            .map(|(b, h)| (b.per_iteration_ns(), h.per_iteration_ns()))
            .unzip()
    }

    /// Base and head forks with data from the same round, in round order.
    fn paired_forks(&self) -> Vec<(&ForkRecord, &ForkRecord)> {
        let (base, head) = (self.base.forks_with_data(), self.head.forks_with_data());
        let numbered = |forks: &[&ForkRecord]| forks.iter().all(|f| f.round.is_some());
        if !(numbered(&base) && numbered(&head)) {
            return base.into_iter().zip(head).collect();
        }
        let mut pairs: Vec<(&ForkRecord, &ForkRecord)> = base
            .iter()
            .filter_map(|b| {
                let h = head.iter().find(|h| h.round == b.round)?;
                Some((*b, *h))
            })
            .collect();
        pairs.sort_by_key(|(b, _)| b.round);
        pairs
    }
}

/// The mode a round of a run in `run_mode` was measured in, from its two forks
/// ([`ForkRecord::mode`]).
pub fn pair_mode(base: &ForkRecord, head: &ForkRecord, run_mode: Mode) -> Mode {
    base.mode.or(head.mode).unwrap_or(run_mode)
}

impl SideRecord {
    /// Per-iteration times of every fork, fork structure kept (the input of the bootstrap).
    pub fn per_iteration_by_fork(&self) -> Vec<Vec<f64>> {
        self.forks
            .iter()
            .map(ForkRecord::per_iteration_ns)
            .filter(|fork| !fork.is_empty())
            .collect()
    }

    /// The forks [`SideRecord::per_iteration_by_fork`] gives times of, in order.
    pub fn forks_with_data(&self) -> Vec<&ForkRecord> {
        self.forks
            .iter()
            .filter(|fork| !fork.per_iteration_ns().is_empty())
            .collect()
    }

    /// All per-iteration times of all forks, flattened (the input of Mann–Whitney and Cliff's δ).
    pub fn per_iteration_flat(&self) -> Vec<f64> {
        self.per_iteration_by_fork().concat()
    }
}

impl SampleFile {
    /// An empty file for a new run.
    pub fn new(run: RunInfo) -> Self {
        SampleFile {
            schema: SCHEMA.to_string(),
            run,
            benchmarks: Vec::new(),
            skipped_targets: Vec::new(),
        }
    }

    /// The record of benchmark `id`, created (with `presence`) if absent.
    pub fn benchmark_mut(&mut self, id: &str, presence: Presence) -> &mut BenchmarkRecord {
        if let Some(index) = self.benchmarks.iter().position(|b| b.id == id) {
            return &mut self.benchmarks[index];
        }
        self.benchmarks.push(BenchmarkRecord {
            fork_length: None,
            id: id.to_string(),
            target: None,
            package: None,
            criterion_id: None,
            harness: None,
            presence,
            base: SideRecord::default(),
            head: SideRecord::default(),
            stop: None,
            selection: None,
        });
        self.benchmarks.last_mut().expect("just pushed")
    }

    /// Parses a samples file from its text; `path` only names it in errors.
    pub fn from_json(path: &Path, text: &str) -> Result<Self, SamplesError> {
        let malformed = |message: String| SamplesError::Malformed {
            path: path.to_path_buf(),
            message,
        };
        let file: SampleFile = serde_json::from_str(text).map_err(|e| {
            malformed(format!(
                "{} (line {}, column {})",
                strip_position(&e.to_string()),
                e.line(),
                e.column()
            ))
        })?;
        if file.schema != SCHEMA {
            return Err(malformed(format!(
                "field `schema` is {:?}, expected {SCHEMA:?}",
                file.schema
            )));
        }
        file.validate().map_err(malformed)?;
        Ok(file)
    }

    /// Reads and validates a samples file.
    pub fn load(path: &Path) -> Result<Self, SamplesError> {
        let text = fs::read_to_string(path).map_err(|source| SamplesError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Self::from_json(path, &text)
    }

    /// Checks what serde cannot: equal lengths, positive iteration counts, finite times.
    pub fn validate(&self) -> Result<(), String> {
        for (b, bench) in self.benchmarks.iter().enumerate() {
            for (side_name, side) in [("base", &bench.base), ("head", &bench.head)] {
                for (f, fork) in side.forks.iter().enumerate() {
                    let at = format!("benchmarks[{b}] ({:?}).{side_name}.forks[{f}]", bench.id);
                    if fork.iters.len() != fork.times_ns.len() {
                        return Err(format!(
                            "{at}: `iters` has {} values but `times_ns` has {}",
                            fork.iters.len(),
                            fork.times_ns.len()
                        ));
                    }
                    if let Some(i) = fork.iters.iter().position(|v| !(v.is_finite() && *v > 0.0)) {
                        return Err(format!(
                            "{at}.iters[{i}]: {} is not a positive iteration count",
                            fork.iters[i]
                        ));
                    }
                    if let Some(i) = fork
                        .times_ns
                        .iter()
                        .position(|v| !(v.is_finite() && *v >= 0.0))
                    {
                        return Err(format!(
                            "{at}.times_ns[{i}]: {} is not a finite non-negative time",
                            fork.times_ns[i]
                        ));
                    }
                    if let Some([start, end]) = fork.measurement_window_ms
                        && !(start.is_finite() && end.is_finite() && start <= end)
                    {
                        return Err(format!(
                            "{at}.measurement_window_ms: [{start}, {end}] is not a time window"
                        ));
                    }
                    if fork.warmup_dropped.unwrap_or(0) > fork.iters.len() {
                        return Err(format!(
                            "{at}.warmup_dropped: {} is more than the {} samples",
                            fork.warmup_dropped.unwrap_or(0),
                            fork.iters.len()
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// Writes the file atomically: a temporary file in the same directory, flushed, then renamed.
    pub fn save(&self, path: &Path) -> Result<(), SamplesError> {
        let write_error = |source| SamplesError::Write {
            path: path.to_path_buf(),
            source,
        };
        let dir = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        fs::create_dir_all(dir).map_err(write_error)?;
        let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(write_error)?;
        let json = serde_json::to_vec_pretty(self).map_err(|e| write_error(e.into()))?;
        tmp.write_all(&json).map_err(write_error)?;
        tmp.write_all(b"\n").map_err(write_error)?;
        tmp.as_file().sync_all().map_err(write_error)?;
        tmp.persist(path).map_err(|e| write_error(e.error))?;
        Ok(())
    }
}

/// serde_json appends " at line L column C"; we report the position ourselves.
fn strip_position(message: &str) -> &str {
    message.split(" at line ").next().unwrap_or(message)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str = r#"{"schema": "perfdiff-samples/1",
      "benchmarks": [{"id": "group/name",
        "base": {"forks": [{"iters": [7, 14], "times_ns": [7100.0, 14150.0]}]},
        "head": {"forks": [{"iters": [7, 14], "times_ns": [7300.0, 14700.0]}]}}]}"#;

    #[test]
    fn the_documented_minimal_format_loads() {
        let file = SampleFile::from_json(Path::new("x.json"), MINIMAL).unwrap();
        assert_eq!(file.benchmarks[0].id, "group/name");
        assert_eq!(file.benchmarks[0].presence, Presence::Both);
        let base = file.benchmarks[0].base.per_iteration_flat();
        assert_eq!(base, vec![7100.0 / 7.0, 14150.0 / 14.0]);
    }

    #[test]
    fn save_then_load_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("runs/a.json");
        let file = SampleFile::from_json(Path::new("x.json"), MINIMAL).unwrap();
        file.save(&path).unwrap();
        assert_eq!(SampleFile::load(&path).unwrap(), file);
    }

    #[test]
    fn timesplit_phases_round_trip_under_their_documented_names_and_old_files_have_none() {
        let old = SampleFile::from_json(Path::new("x.json"), MINIMAL).unwrap();
        assert_eq!(old.run.phases, None);
        let mut file = old.clone();
        file.run.wall_ms = Some(94_000);
        file.run.measure_ms = Some(25_800);
        file.run.phases = Some(Phases {
            checkout_ms: 812,
            build: SideBuildTimes {
                base: Some(BuildTime {
                    ms: 30_000,
                    crates_compiled: 64,
                }),
                head: None,
            },
            trace_ms: 12_000,
            ..Phases::default()
        });
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.json");
        file.save(&path).unwrap();
        assert_eq!(SampleFile::load(&path).unwrap(), file);
        let json: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
        let phases = &json["run"]["phases"];
        assert_eq!(phases["build"]["base"]["crates_compiled"], 64, "{phases}");
        assert_eq!(phases["trace_ms"], 12_000, "{phases}");
        assert!(phases["build"].get("head").is_none(), "{phases}");
        assert_eq!(file.run.phases.unwrap().total_ms(), 812 + 30_000 + 12_000);
        // A file whose phases hold only some fields (a later version's, or written by hand) loads.
        let partial = MINIMAL.replacen(
            "{\"schema\": \"perfdiff-samples/1\",",
            "{\"schema\": \"perfdiff-samples/1\", \"run\": {\"phases\": {\"probe_ms\": 5}},",
            1,
        );
        let loaded = SampleFile::from_json(Path::new("x.json"), &partial).unwrap();
        assert_eq!(loaded.run.phases.map(|p| p.probe_ms), Some(5));
    }

    #[test]
    fn truncated_file_names_path_and_position() {
        let err = SampleFile::from_json(Path::new("cut.json"), &MINIMAL[..80]).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("cut.json"), "{text}");
        assert!(text.contains("line "), "{text}");
    }

    #[test]
    fn mismatched_lengths_name_the_field() {
        let text = MINIMAL.replace("[7300.0, 14700.0]", "[7300.0]");
        let err = SampleFile::from_json(Path::new("m.json"), &text)
            .unwrap_err()
            .to_string();
        assert!(err.contains("head.forks[0]"), "{err}");
        assert!(err.contains("times_ns"), "{err}");
    }

    #[test]
    fn wrong_schema_is_refused() {
        let text = MINIMAL.replace("perfdiff-samples/1", "other/2");
        let err = SampleFile::from_json(Path::new("s.json"), &text)
            .unwrap_err()
            .to_string();
        assert!(err.contains("schema"), "{err}");
    }

    #[test]
    fn a_backwards_measurement_window_is_refused() {
        let text = MINIMAL.replace(
            r#""times_ns": [7300.0, 14700.0]"#,
            r#""times_ns": [7300.0, 14700.0], "measurement_window_ms": [5.0, 4.0]"#,
        );
        let err = SampleFile::from_json(Path::new("w.json"), &text)
            .unwrap_err()
            .to_string();
        assert!(err.contains("head.forks[0].measurement_window_ms"), "{err}");
    }

    #[test]
    fn warmup_dropped_samples_are_excluded() {
        let fork = ForkRecord {
            iters: vec![1.0, 2.0, 3.0],
            times_ns: vec![10.0, 8.0, 9.0],
            warmup_dropped: Some(1),
            ..Default::default()
        };
        assert_eq!(fork.per_iteration_ns(), vec![4.0, 3.0]);
    }
}
