//! Analysis: a samples file in, one [`BenchmarkResult`] per benchmark out.
//!
//! This is where the statistics of [`crate::stats`] meet the data. Every round ran one fork of
//! each side in the same time slot and code layout, so the rounds are paired blocks: each gives
//! one log ratio (of the fork means, or in duet mode of the paired samples), and Student's t over
//! them is the interval that decides ([`stats::rounds`], [`stats::verdict`]); the suite's
//! p-values of that test go through Benjamini–Hochberg before the verdicts. The fork values feed
//! Mann–Whitney U and Cliff's δ, and the rounds a design-level bootstrap, both reported beside
//! it. The result is plain data; `report` only formats it.

pub mod functions;
pub mod warnings;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::model::policy::{self, BenchOverride};
use crate::model::profile::counted_id;
pub use crate::model::samples::SkippedTarget;
use crate::model::samples::{
    BenchmarkRecord, ForkRecord, HarnessKind, Mode, PerFork, Presence, RunInfo, SampleFile,
    SideRecord, pair_mode,
};
use crate::stats::layout::layout_means;
use crate::stats::{
    self, BootstrapConfig, CliffsDelta, Evidence, PairedRounds, RatioCi, RatioInterval, Round,
    Verdict, descriptive, duet::DuetRun,
};

use crate::steps::fork::duet;
pub use warnings::{BenchWarning, Side};

/// The verdict of one benchmark as reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, PartialOrd, Ord, Hash)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Regressed,
    Failed,
    Inconclusive,
    Improved,
    Unchanged,
    OnlyInBase,
    OnlyInHead,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Regressed => "regressed",
            Outcome::Improved => "improved",
            Outcome::Unchanged => "unchanged",
            Outcome::Inconclusive => "inconclusive",
            Outcome::OnlyInBase => "only_in_base",
            Outcome::OnlyInHead => "only_in_head",
            Outcome::Failed => "failed",
        }
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<Verdict> for Outcome {
    fn from(v: Verdict) -> Self {
        match v {
            Verdict::Regressed => Outcome::Regressed,
            Verdict::Improved => Outcome::Improved,
            Verdict::Unchanged => Outcome::Unchanged,
            Verdict::Inconclusive => Outcome::Inconclusive,
        }
    }
}

/// Summary of one side of one benchmark.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct SideSummary {
    /// Mean time per iteration in ns (mean of fork means); `None` without data.
    pub mean_ns: Option<f64>,
    /// Forks with data.
    pub forks: usize,
    /// Samples kept (after warm-up removal) over all forks.
    pub samples: usize,
    /// Samples dropped as warm-up over all forks.
    pub warmup_dropped: usize,
    /// Forks in which no steady state was found.
    pub unsteady_forks: usize,
    /// Forks left out of the analysis as disturbed (far slower than the side's other forks,
    /// see [`stats::disturbed`]); `forks` and `samples` count the forks analysed.
    #[serde(default)]
    pub disturbed_forks: usize,
    /// Relative standard deviation of the fork means (fork-to-fork noise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fork_rel_sd: Option<f64>,
    /// Whether the stop rule was met for this side (`None` with `--stop fixed` or unknown).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stable: Option<bool>,
    /// Criterion settings this side's own bench code set in place of those asked for.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub settings_from_code: Option<SettingsFromCode>,
    /// Mean time criterion spent measuring a fork of this side (the sum of its samples' times),
    /// in milliseconds: more than the measurement time asked when one iteration is slow, since
    /// criterion takes at least one iteration per sample.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub fork_measured_ms: Option<f64>,
    /// A command's executions ([`crate::model::command`]): their mean CPU times, which the verdicts do
    /// not use (wall time and peak memory have their own records).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub cpu: Option<CpuTimes>,
}

/// Mean CPU time of a command's executions on one side, in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
pub struct CpuTimes {
    pub user_ns: f64,
    pub system_ns: f64,
}

impl CpuTimes {
    /// The mean CPU times of the forks of `side` that recorded them; `None` when none did.
    fn of(side: &SideRecord) -> Option<CpuTimes> {
        let used: Vec<_> = side.forks.iter().filter_map(|f| f.resources).collect();
        let mean = |value: fn(&crate::model::samples::ExecResources) -> f64| {
            used.iter().map(value).sum::<f64>() / used.len() as f64
        };
        (!used.is_empty()).then(|| CpuTimes {
            user_ns: mean(|r| r.user_ns),
            system_ns: mean(|r| r.system_ns),
        })
    }
}

/// Criterion settings a benchmark's own code set in place of those cargo-perfdiff asked for on
/// the command line: a `BenchmarkGroup`'s `measurement_time`, `warm_up_time` or `sample_size`
/// wins over `--measurement-time`, `--warm-up-time` (and so over the adaptive warm-up) and
/// `--sample-size`, which then silently do nothing for it. Each field holds the value criterion
/// used and is present only where it differed from what a fork asked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct SettingsFromCode {
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub measurement_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub warm_up_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub sample_size: Option<usize>,
}

impl SettingsFromCode {
    /// Milliseconds within which a duration counts as what was asked: seconds sent as text come
    /// back as criterion's `Duration`, a round trip that may move them by a nanosecond.
    const SAME_MS: f64 = 0.5;

    /// From the forks of `side` that recorded both what they asked for and what criterion used;
    /// `None` when each got what it asked for (or none recorded both, as in older files).
    pub fn of(side: &SideRecord) -> Option<SettingsFromCode> {
        let differs = |used: f64, asked: f64| (used - asked).abs() > Self::SAME_MS;
        let mut found = SettingsFromCode::default();
        for fork in &side.forks {
            let (Some(asked), Some(used)) = (&fork.asked, &fork.config) else {
                continue;
            };
            if differs(used.measurement_ms, asked.measurement_ms) {
                found.measurement_ms = Some(used.measurement_ms);
            }
            if differs(used.warm_up_ms, asked.warm_up_ms) {
                found.warm_up_ms = Some(used.warm_up_ms);
            }
            if used.sample_size != asked.sample_size {
                found.sample_size = Some(used.sample_size);
            }
        }
        (found != SettingsFromCode::default()).then_some(found)
    }
}

/// Mann–Whitney U of the fork values (the mean of each analysed fork), reported beside the
/// verdict as a rank view of the same forks; it does not decide.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MannWhitneySummary {
    /// U of the head sample.
    pub u: f64,
    /// Two-sided p-value.
    pub p_value: f64,
    pub method: stats::mann_whitney::Method,
}

/// The paired test that decides: Student's t over the rounds' (or layouts') log ratios
/// ([`stats::rounds`]), with its p-value before and after false-discovery control.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PairedTest {
    #[serde(flatten)]
    pub rounds: PairedRounds,
    /// Degrees of freedom, `n − 1`.
    pub df: f64,
    /// Two-sided p-value of "no change".
    pub p_value: f64,
    /// Benjamini–Hochberg adjusted over the suite (equals `p_value` with `--no-fdr`).
    pub q_value: f64,
}

impl PairedTest {
    fn of(rounds: PairedRounds) -> PairedTest {
        let p_value = rounds.p_value();
        PairedTest {
            rounds,
            df: rounds.df(),
            p_value,
            q_value: p_value,
        }
    }
}

/// Everything reported for one benchmark.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BenchmarkResult {
    /// The benchmark's name: its criterion id, qualified (`target::id`,
    /// `package::target::id`) when several bench targets of the run define it.
    pub id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// The package of the bench target.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub package: Option<String>,
    /// The id criterion gives it, when `id` is qualified.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub criterion_id: Option<String>,
    /// The harness of its bench target (`criterion`, `divan`, `libtest`, `bencher`); absent for
    /// samples files recorded before harnesses were recorded (criterion then).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub harness: Option<HarnessKind>,
    /// Set when its forks gave one value each (a summary of the harness's own samples: divan's,
    /// libtest's and bencher's median) instead of their samples: every statistic then rests on
    /// the fork values.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub per_fork: Option<PerFork>,
    pub verdict: Outcome,
    /// `head / base` with the interval the verdict rests on ([`stats::verdict::decide`]): the
    /// paired t interval over the rounds at the run's level, or, for `unchanged`, the interval
    /// of the two one-sided tests. Absent with fewer than two rounds (or layouts) to pair.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ratio: Option<RatioInterval>,
    /// The paired test behind `ratio`.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub paired: Option<PairedTest>,
    /// The percentile bootstrap of the ratio at the level of the design, at the run's
    /// confidence: of the ratio of means with rounds as blocks, then samples within forks; in
    /// duet mode the duet paper's bootstrap of the runs' geometric means. Information only,
    /// since over few rounds it covers less than its level (`docs/design/statistics.md`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub bootstrap: Option<RatioCi>,
    /// How far the benchmark moves between code layouts of the same source, when each side was
    /// measured in at least two: information, the interval already carries it.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub layout_spread: Option<LayoutSpread>,
    /// The estimated change, `ratio − 1`: the geometric mean of the rounds' `head / base` minus
    /// one (with a single round, `mean(head) / mean(base) − 1`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change_rate: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mann_whitney: Option<MannWhitneySummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cliffs_delta: Option<CliffsDelta>,
    /// Forks per side.
    pub forks: ForkCounts,
    pub base: SideSummary,
    pub head: SideSummary,
    /// Relevance threshold applied to this benchmark.
    pub threshold: f64,
    /// Smallest relative change this benchmark's noise lets the run detect (80 % power), from
    /// the spread of its rounds' log ratios.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_detectable_change: Option<f64>,
    /// How measurement stopped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop: Option<crate::model::samples::StopRecord>,
    /// Why the benchmark failed, with the stderr tail.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// Things the user should know about this result, each a sentence in JSON.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub warnings: Vec<BenchWarning>,
    /// What the means and samples (`mean_ns`, `times_ns`) measure when it is not nanoseconds of
    /// wall time: the unit a custom criterion measurement names (`cycles`). Ratios, tests and
    /// verdicts do not depend on it.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub unit: Option<String>,
    /// Of a `regressed` or `improved` benchmark whose instructions were counted by function: the
    /// functions whose instructions per iteration changed most, most changed first
    /// ([`functions::changes_of`]).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub functions: Vec<crate::model::profile::FunctionChange>,
    /// Whether it was measured and why: `measured: false` (`reason: same_code`) for a benchmark
    /// that executes the same code and reads the same files on both sides, `unchanged` without a
    /// fork; absent when selection was off ([`crate::model::samples::SelectionRecord`]).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub selection: Option<crate::model::samples::SelectionRecord>,
    /// How long its forks measured after the first rounds, and why: the length, the variance
    /// components between and within forks, the fork cost ([`crate::steps::fork_length`]).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub fork_length: Option<crate::model::samples::ForkLengthChoice>,
}

impl BenchmarkResult {
    /// Benchmark `id` with nothing measured or decided yet: `inconclusive`, no forks, no
    /// statistics, judged against `threshold`.
    pub fn new(id: &str, threshold: f64) -> BenchmarkResult {
        BenchmarkResult {
            id: id.to_string(),
            target: None,
            package: None,
            criterion_id: None,
            harness: None,
            per_fork: None,
            verdict: Outcome::Inconclusive,
            ratio: None,
            paired: None,
            bootstrap: None,
            layout_spread: None,
            change_rate: None,
            mann_whitney: None,
            cliffs_delta: None,
            forks: ForkCounts::default(),
            base: SideSummary::default(),
            head: SideSummary::default(),
            threshold,
            min_detectable_change: None,
            stop: None,
            failure: None,
            warnings: Vec::new(),
            unit: None,
            functions: Vec::new(),
            selection: None,
            fork_length: None,
        }
    }

    /// Whether it was decided `unchanged` without a fork, for executing the same code.
    pub fn same_code(&self) -> bool {
        self.selection.as_ref().is_some_and(|s| s.skipped())
    }
}

/// Forks run per side: every fork, a fork measured again after a disturbance counted beside
/// the one that replaced it, so the counts say what the run did (its time went to both).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct ForkCounts {
    pub base: usize,
    pub head: usize,
    /// Of those, per side, the forks measured again
    /// ([`crate::steps::stop::StopPolicy::remeasures`]): kept in the samples file inside their
    /// replacements (`remeasured`), left out of the analysis. Absent when none.
    #[serde(default, skip_serializing_if = "RemeasuredForks::is_none")]
    pub remeasured: RemeasuredForks,
}

impl ForkCounts {
    /// `base` and `head` forks run, none of them measured again.
    pub fn new(base: usize, head: usize) -> ForkCounts {
        ForkCounts {
            base,
            head,
            remeasured: RemeasuredForks::default(),
        }
    }

    /// The forks of `record` per side, those measured again included.
    fn of(record: &BenchmarkRecord) -> ForkCounts {
        let again =
            |side: &SideRecord| -> usize { side.forks.iter().map(times_measured_again).sum() };
        let remeasured = RemeasuredForks {
            base: again(&record.base),
            head: again(&record.head),
        };
        ForkCounts {
            base: record.base.forks.len() + remeasured.base,
            head: record.head.forks.len() + remeasured.head,
            remeasured,
        }
    }
}

/// How many forks `fork` replaced, each measured again after the one before it.
fn times_measured_again(fork: &ForkRecord) -> usize {
    fork.remeasured
        .as_deref()
        .map_or(0, |first| 1 + times_measured_again(first))
}

/// Forks measured again after a disturbance, per side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct RemeasuredForks {
    pub base: usize,
    pub head: usize,
}

impl RemeasuredForks {
    fn is_none(&self) -> bool {
        self.total() == 0
    }

    /// Of both sides.
    pub fn total(&self) -> usize {
        self.base + self.head
    }
}

/// Counts of verdicts over the suite.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Summary {
    pub regressed: usize,
    pub improved: usize,
    pub unchanged: usize,
    pub inconclusive: usize,
    pub only_in_base: usize,
    pub only_in_head: usize,
    pub failed: usize,
    /// Of the `unchanged`, those decided without measuring: they execute the same code on both
    /// sides (docs/selection.md).
    #[serde(default)]
    pub same_code: usize,
}

/// The analysed suite: what the reporters format.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub schema: String,
    pub run: RunInfo,
    pub settings: ReportSettings,
    pub summary: Summary,
    pub benchmarks: Vec<BenchmarkResult>,
    /// Bench targets (or some of their benchmarks) not measured, and why: another harness,
    /// features not enabled, ids that change every run, a listing no revision could make.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub skipped_targets: Vec<SkippedTarget>,
    /// Where the raw samples are.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub samples_file: Option<String>,
    /// Time spent in stop-rule checkpoints over the wall time of all forks (`None` without
    /// recorded fork times).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub checkpoint_overhead: Option<f64>,
    /// Share of the machine's CPU time the hypervisor stole while forks ran, weighted by the
    /// forks' wall times (`steal_share` of the forks); absent where it could not be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steal_share: Option<f64>,
    /// Share of the time forks were ready to run that they waited for a CPU, weighted by the
    /// forks' wall times (`cpu_wait_share` of the forks); absent where it could not be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_wait_share: Option<f64>,
    /// Time forks spent outside the benchmark they measured (`outside_ms` of the forks); absent
    /// where no fork recorded it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outside_benchmark: Option<OutsideTime>,
}

impl Report {
    /// Whether some benchmark was measured in several code layouts per side: reports then give
    /// each its layout spread.
    pub fn layouts_measured(&self) -> bool {
        self.benchmarks.iter().any(|b| b.layout_spread.is_some())
    }

    /// Whether its benchmarks and skipped targets come from more than one package: reports then
    /// name each bench target's package.
    pub fn several_packages(&self) -> bool {
        packages_differ(
            self.benchmarks.iter().map(|b| b.package.as_deref()),
            &self.skipped_targets,
        )
    }
}

/// The time forks spent outside the benchmark they measured: starting the executable and running
/// the set-up code of its other benchmarks, which criterion runs in every process.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutsideTime {
    /// Σ outside time / Σ wall time over the forks that recorded both.
    pub share: f64,
    /// Median outside time of a fork, in milliseconds.
    pub median_ms: f64,
    /// The bench targets whose forks spent the most time outside their benchmark, by mean,
    /// largest first (at most three).
    pub heaviest_targets: Vec<String>,
}

/// How many bench targets [`OutsideTime::heaviest_targets`] names.
const HEAVIEST_TARGETS: usize = 3;

/// The time forks spent outside their benchmark, over the forks that recorded it.
fn outside_time(samples: &SampleFile) -> Option<OutsideTime> {
    let several_packages = several_packages(samples);
    let mut per_target: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    let (mut outside, mut wall, mut all) = (0.0, 0.0, Vec::new());
    for bench in &samples.benchmarks {
        for fork in bench.base.forks.iter().chain(&bench.head.forks) {
            let (Some(out), Some(ms)) = (fork.outside_ms, fork.wall_ms) else {
                continue;
            };
            outside += out;
            wall += ms;
            all.push(out);
            if let Some(target) = bench.target.as_deref() {
                let label = crate::model::target::target_label(
                    bench.package.as_deref(),
                    target,
                    several_packages,
                );
                per_target.entry(label).or_default().push(out);
            }
        }
    }
    if wall <= 0.0 {
        return None;
    }
    let mut means: Vec<(String, f64)> = per_target
        .into_iter()
        .map(|(target, values)| (target, descriptive::mean(&values)))
        .collect();
    means.sort_by(|a, b| b.1.total_cmp(&a.1));
    Some(OutsideTime {
        share: outside / wall,
        median_ms: descriptive::median(&all),
        heaviest_targets: means
            .into_iter()
            .take(HEAVIEST_TARGETS)
            .map(|(target, _)| target)
            .collect(),
    })
}

/// Whether a samples file's benchmarks and skipped targets come from more than one package, so
/// that reports name the package of a bench target.
pub fn several_packages(samples: &SampleFile) -> bool {
    packages_differ(
        samples.benchmarks.iter().map(|b| b.package.as_deref()),
        &samples.skipped_targets,
    )
}

/// Whether the packages of some benchmarks (`None` where unrecorded) and skipped targets are not
/// all one.
fn packages_differ<'a>(
    benchmarks: impl Iterator<Item = Option<&'a str>>,
    skipped: &'a [SkippedTarget],
) -> bool {
    let skipped = skipped.iter().map(|s| s.package.as_deref());
    distinct_more_than_one(benchmarks.chain(skipped).flatten())
}

/// Whether `items` hold at least two different values.
pub fn distinct_more_than_one<'a>(mut items: impl Iterator<Item = &'a str>) -> bool {
    match items.next() {
        Some(first) => items.any(|item| item != first),
        None => false,
    }
}

/// The settings that shaped the verdicts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReportSettings {
    pub mode: Mode,
    pub threshold: f64,
    /// The threshold of instruction records (`ID (instructions)`), when the report holds any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions_threshold: Option<f64>,
    pub alpha: f64,
    /// Level of each one-sided test of equivalence (`unchanged`); reports from before it had its
    /// own level used `alpha` for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub equivalence_alpha: Option<f64>,
    pub confidence: f64,
    pub resamples: usize,
    pub fdr: bool,
    pub seed: u64,
}

impl ReportSettings {
    /// The level of each one-sided test of equivalence: its own, or `alpha` in a report from
    /// before it had one.
    pub fn equivalence_alpha(&self) -> f64 {
        self.equivalence_alpha.unwrap_or(self.alpha)
    }
}

/// What the analysis takes of a run's settings: the verdicts' parameters and the per-benchmark
/// overrides (the configuration layer builds it from its `Settings`).
#[derive(Debug, Clone, PartialEq)]
pub struct AnalysisSettings {
    /// Changes smaller than this (relative) are not relevant, unless an override says otherwise.
    pub threshold: f64,
    /// The same for instruction records (`ID (instructions)`).
    pub instructions_threshold: f64,
    /// Significance level of the tests (after false-discovery control).
    pub alpha: f64,
    /// Level of each of the two one-sided tests of equivalence (`unchanged`).
    pub equivalence_alpha: f64,
    /// Confidence of the ratio CI.
    pub confidence: f64,
    /// Bootstrap resamples for the ratio CI.
    pub resamples: usize,
    /// Benjamini–Hochberg false discovery rate control across the suite.
    pub fdr: bool,
    /// Per-benchmark overrides, keyed by a regex over the benchmark id.
    pub overrides: BTreeMap<String, BenchOverride>,
}

impl AnalysisSettings {
    /// The levels of the difference test and of the two one-sided tests of equivalence.
    pub fn levels(&self) -> stats::Levels {
        stats::Levels {
            alpha: self.alpha,
            equivalence_alpha: self.equivalence_alpha,
        }
    }

    /// The relevance threshold for benchmark `id`, after per-benchmark overrides.
    pub fn threshold_for(&self, id: &str) -> f64 {
        let defaults = (self.threshold, self.instructions_threshold);
        policy::threshold_for(&self.overrides, defaults, id)
    }

    /// True when a per-benchmark override says to ignore `id`.
    pub fn is_ignored(&self, id: &str) -> bool {
        policy::is_ignored(&self.overrides, id)
    }
}

/// Schema tag of the JSON report.
pub const REPORT_SCHEMA: &str = "perfdiff-report/2";

/// Analyses every benchmark of `samples` with `settings`; `seed` drives every bootstrap.
pub fn analyse(samples: &SampleFile, settings: &AnalysisSettings, seed: u64) -> Report {
    let mode = samples.run.mode;
    let max_forks = max_forks_of(&samples.run);
    let mut results: Vec<BenchmarkResult> = samples
        .benchmarks
        .iter()
        .filter(|b| !is_ignored(settings, b))
        .enumerate()
        .map(|(i, b)| analyse_one(b, mode, settings, bench_seed(seed, i), max_forks))
        .collect();
    apply_fdr_and_verdicts(&mut results, settings);
    functions::attach(&mut results, samples);
    functions::note_disagreements(&mut results);
    results.sort_by(|a, b| a.verdict.cmp(&b.verdict).then_with(|| a.id.cmp(&b.id)));
    Report {
        schema: REPORT_SCHEMA.to_string(),
        run: samples.run.clone(),
        settings: ReportSettings {
            mode,
            threshold: settings.threshold,
            instructions_threshold: results
                .iter()
                .any(|r| counted_id(&r.id).is_some())
                .then_some(settings.instructions_threshold),
            alpha: settings.alpha,
            equivalence_alpha: Some(settings.equivalence_alpha),
            confidence: settings.confidence,
            resamples: settings.resamples,
            fdr: settings.fdr,
            seed,
        },
        summary: summarise(&results),
        benchmarks: results,
        skipped_targets: samples.skipped_targets.clone(),
        samples_file: None,
        checkpoint_overhead: checkpoint_overhead(samples),
        steal_share: wall_weighted(samples, |f| f.steal_share),
        cpu_wait_share: wall_weighted(samples, |f| f.cpu_wait_share),
        outside_benchmark: outside_time(samples),
    }
}

/// The run's `--max-forks`, when its settings are recorded (replays and older files may not).
fn max_forks_of(run: &RunInfo) -> Option<usize> {
    let value = run.settings.as_ref()?.get("max_forks")?.as_u64()?;
    usize::try_from(value).ok()
}

/// Σ share × wall time / Σ wall time over the forks that recorded both.
fn wall_weighted(samples: &SampleFile, share: impl Fn(&ForkRecord) -> Option<f64>) -> Option<f64> {
    let (weighted, wall) = samples
        .benchmarks
        .iter()
        .flat_map(|b| b.base.forks.iter().chain(&b.head.forks))
        .filter_map(|f| Some((share(f)?, f.wall_ms?)))
        .fold((0.0, 0.0), |(weighted, wall), (share, ms)| {
            (weighted + share * ms, wall + ms)
        });
    (wall > 0.0).then(|| weighted / wall)
}

/// Σ checkpoint time / Σ fork wall time over the suite.
fn checkpoint_overhead(samples: &SampleFile) -> Option<f64> {
    let forks_ms: f64 = samples
        .benchmarks
        .iter()
        .flat_map(|b| b.base.forks.iter().chain(&b.head.forks))
        .filter_map(|f| f.wall_ms)
        .sum();
    let checkpoint_ms: f64 = samples
        .benchmarks
        .iter()
        .filter_map(|b| b.stop.as_ref().map(|s| s.checkpoint_ms))
        .sum();
    (forks_ms > 0.0).then(|| checkpoint_ms / forks_ms)
}

/// Whether an override ignores the benchmark, by its id or its plain criterion id.
fn is_ignored(settings: &AnalysisSettings, record: &BenchmarkRecord) -> bool {
    settings.is_ignored(&record.id)
        || record
            .criterion_id
            .as_deref()
            .is_some_and(|id| settings.is_ignored(id))
}

/// A distinct, reproducible seed per benchmark so results do not depend on suite order.
fn bench_seed(seed: u64, index: usize) -> u64 {
    seed ^ (index as u64)
        .wrapping_add(1)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// The per-benchmark statistics; verdicts wait for the suite-wide p-value adjustment.
fn analyse_one(
    record: &BenchmarkRecord,
    mode: Mode,
    settings: &AnalysisSettings,
    seed: u64,
    max_forks: Option<usize>,
) -> BenchmarkResult {
    let pairs = record.analysed_pairs(mode);
    let mut result = described(record, &pairs, settings);
    match record.presence {
        Presence::OnlyInBase => {
            result.verdict = Outcome::OnlyInBase;
            return result;
        }
        Presence::OnlyInHead => {
            result.verdict = Outcome::OnlyInHead;
            return result;
        }
        Presence::Both => {}
    }
    if let Some(failure) = failure_of(record) {
        result.verdict = Outcome::Failed;
        result.failure = Some(failure);
        return result;
    }
    if result.same_code() && pairs.is_empty() {
        // Decided before measuring: the change cannot reach it (docs/selection.md).
        result.verdict = Outcome::Unchanged;
        return result;
    }
    if pairs.is_empty() {
        result.warnings.push(BenchWarning::NoSamples);
        return result;
    }
    let config = BootstrapConfig {
        confidence: settings.confidence,
        resamples: settings.resamples,
        seed,
    };
    compare(&mut result, &pairs, mode, &config);
    result.min_detectable_change = result.paired.map(|test| {
        stats::power::min_detectable_change(test.rounds.sd_log, test.rounds.n, settings.alpha, 0.8)
    });
    result.warnings.extend(side_warnings(&result, max_forks));
    result
        .warnings
        .extend(rounded_warning(&pairs, result.threshold));
    result.warnings.extend(functions::inexact_warning(record));
    if mode == Mode::Duet {
        result.warnings.extend(duet_overlap_warning(record));
    }
    result
}

/// A benchmark's result before any comparison: its names, harness, forks, sides and stop.
fn described(
    record: &BenchmarkRecord,
    pairs: &[(&ForkRecord, &ForkRecord)],
    settings: &AnalysisSettings,
) -> BenchmarkResult {
    let (base, head): (Vec<Vec<f64>>, Vec<Vec<f64>>) = pairs
        .iter()
        .map(|(b, h)| (b.per_iteration_ns(), h.per_iteration_ns()))
        .unzip();
    let stable =
        |side: fn(&crate::model::samples::StopRecord) -> bool| record.stop.as_ref().map(side);
    let mut result = BenchmarkResult {
        target: record.target.clone(),
        package: record.package.clone(),
        criterion_id: record.criterion_id.clone(),
        harness: record.harness,
        per_fork: record
            .base
            .forks
            .iter()
            .chain(&record.head.forks)
            .find_map(|fork| fork.per_fork),
        forks: ForkCounts::of(record),
        base: side_summary(&record.base, &base, stable(|s| s.base_stable)),
        head: side_summary(&record.head, &head, stable(|s| s.head_stable)),
        stop: record.stop.clone(),
        selection: record.selection.clone(),
        fork_length: record.fork_length.clone(),
        ..BenchmarkResult::new(&record.id, settings.threshold_for(&record.id))
    };
    let (unit, unit_warning) = unit_of(record);
    result.unit = unit;
    result.warnings.extend(unit_warning);
    result
}

/// Why a benchmark failed (the side, its message and the tail of its stderr), if it did.
fn failure_of(record: &BenchmarkRecord) -> Option<String> {
    let (side, failure) = [("base", &record.base), ("head", &record.head)]
        .into_iter()
        .find_map(|(name, side)| Some((name, side.failure.as_ref()?)))?;
    let tail = if failure.stderr_tail.is_empty() {
        String::new()
    } else {
        format!("\n{}", failure.stderr_tail)
    };
    Some(format!("{side}: {}{tail}", failure.message))
}

/// The comparison of the analysed rounds `pairs`: the paired test and its estimate, the
/// design-level bootstrap, Mann–Whitney and Cliff's δ of the fork values, and the layout spread.
fn compare(
    result: &mut BenchmarkResult,
    pairs: &[(&ForkRecord, &ForkRecord)],
    mode: Mode,
    config: &BootstrapConfig,
) {
    let samples: Vec<(Vec<f64>, Vec<f64>)> = pairs
        .iter()
        .map(|(b, h)| (b.per_iteration_ns(), h.per_iteration_ns()))
        .collect();
    let rounds = round_values(pairs, mode);
    result.paired = PairedRounds::of(&rounds).ok().map(PairedTest::of);
    let (base_values, head_values): (Vec<f64>, Vec<f64>) = samples
        .iter()
        .map(|(b, h)| (descriptive::mean(b), descriptive::mean(h)))
        .unzip();
    result.change_rate = Some(match result.paired {
        Some(test) => test.rounds.estimate() - 1.0,
        None => descriptive::change_rate(
            descriptive::mean(&base_values),
            descriptive::mean(&head_values),
        ),
    });
    let all_duet = pairs
        .iter()
        .all(|(b, h)| pair_mode(b, h, mode) == Mode::Duet);
    result.bootstrap = if all_duet {
        // The duet paper's own interval: a percentile bootstrap of the runs' geometric means.
        let runs: Vec<DuetRun> = pairs.iter().map(|(b, h)| duet_run(b, h)).collect();
        stats::duet::duet_ratio(&runs, config).ok()
    } else {
        // Interleaved rounds (all, or after a duet run left duet): the rounds' fork means.
        stats::bootstrap::ratio_of_means_by_rounds(&samples, config).ok()
    };
    result.mann_whitney = stats::mann_whitney::mann_whitney_u(&base_values, &head_values)
        .ok()
        .map(|mw| MannWhitneySummary {
            u: mw.u,
            p_value: mw.p_value,
            method: mw.method,
        });
    result.cliffs_delta = stats::cliffs::cliffs_delta(&base_values, &head_values).ok();
    result.layout_spread = layout_spread(pairs, &rounds);
}

/// Each analysed round's log ratio and layout, by the round's own mode ([`pair_mode`], the
/// run's `mode` unless the run left duet): an interleaved round's `ln(head fork mean / base
/// fork mean)`; a duet round's log of its geometric-mean ratio of its paired samples (the duet
/// paper's per-run value, samples paired by time where the forks recorded their measurement
/// windows, [`duet::time_paired_run`]). Both estimate the same `ln(head / base)`, so a run that
/// left duet is one series of rounds (docs/design/duet.md#when-the-two-cpus-are-shared).
pub fn round_values(pairs: &[(&ForkRecord, &ForkRecord)], mode: Mode) -> Vec<Round> {
    pairs
        .iter()
        .map(|(b, h)| Round {
            log_ratio: match pair_mode(b, h, mode) {
                Mode::Interleaved => (descriptive::mean(&h.per_iteration_ns())
                    / descriptive::mean(&b.per_iteration_ns()))
                .ln(),
                Mode::Duet => stats::duet::run_log_ratio(&duet_run(b, h)).unwrap_or(f64::NAN),
            },
            layout: b.layout,
        })
        .collect()
}

/// The paired summary of `record`'s analysed rounds ([`BenchmarkRecord::analysed_pairs`]), as
/// the verdict uses it; `None` with fewer than two rounds (or layouts). The `decided` stop
/// rule's looks judge exactly this.
pub fn paired_rounds(record: &BenchmarkRecord, mode: Mode) -> Option<PairedRounds> {
    PairedRounds::of(&round_values(&record.analysed_pairs(mode), mode)).ok()
}

/// The p-value of each benchmark's paired test on the rounds it has now (NaN where it has fewer
/// than two, or is present on one side only), in the file's order: what a look of the `decided`
/// rule controls the false-discovery rate over.
pub fn current_p_values(file: &SampleFile, mode: Mode) -> Vec<f64> {
    file.benchmarks
        .iter()
        .map(|record| {
            let compared = record.presence == Presence::Both && !record.failed();
            compared
                .then(|| paired_rounds(record, mode))
                .flatten()
                .map_or(f64::NAN, |paired| paired.p_value())
        })
        .collect()
}

/// The p-values of all but the `index`-th of `p_values`.
pub fn others(p_values: &[f64], index: usize) -> Vec<f64> {
    p_values
        .iter()
        .enumerate()
        .filter_map(|(i, p)| (i != index).then_some(*p))
        .collect()
}

/// A duet round's samples, paired by time when the forks recorded their measurement windows
/// ([`duet::time_paired_run`]), else by position.
fn duet_run(b: &ForkRecord, h: &ForkRecord) -> DuetRun {
    duet::time_paired_run(b, h).unwrap_or_else(|| {
        let (base, head) = (b.per_iteration_ns(), h.per_iteration_ns());
        let n = base.len().min(head.len());
        DuetRun {
            base: base[..n].to_vec(),
            head: head[..n].to_vec(),
        }
    })
}

/// How far the benchmark moves between code layouts of the same source: the larger of the two
/// sides' relative standard deviations of their layout means ([`stats::layout::relative_sd`]),
/// the fewest layouts a side ran in, and in how many of the rounds head was slower. `None` when
/// a side ran in fewer than two layouts.
fn layout_spread(pairs: &[(&ForkRecord, &ForkRecord)], rounds: &[Round]) -> Option<LayoutSpread> {
    let side = |forks: Vec<&ForkRecord>| {
        let layouts: Vec<Option<usize>> = forks.iter().map(|f| f.layout).collect();
        let means: Vec<f64> = forks
            .iter()
            .map(|f| descriptive::mean(&f.per_iteration_ns()))
            .collect();
        let count = stats::layout::distinct_layouts(&layouts);
        let spread = stats::layout::relative_sd(&layout_means(&means, &layouts))?;
        (count >= 2).then_some((count, spread))
    };
    let base = side(pairs.iter().map(|p| p.0).collect())?;
    let head = side(pairs.iter().map(|p| p.1).collect())?;
    let compared: Vec<&Round> = rounds.iter().filter(|r| r.log_ratio.is_finite()).collect();
    Some(LayoutSpread {
        layouts: base.0.min(head.0),
        spread: base.1.max(head.1),
        head_slower: compared.iter().filter(|r| r.log_ratio > 0.0).count(),
        rounds: compared.len(),
    })
}

/// A benchmark's layout spread: information on how far the same code moves between layouts.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LayoutSpread {
    /// Layouts measured on the side with fewer.
    pub layouts: usize,
    /// The standard deviation of a side's layout means as a fraction of their mean (the larger
    /// side's).
    pub spread: f64,
    /// Of the analysed rounds, those in which head was slower than base.
    #[serde(default)]
    pub head_slower: usize,
    /// The analysed rounds.
    #[serde(default)]
    pub rounds: usize,
}

/// Mean overlap of the two sides' measurement windows over a duet benchmark's rounds; `None`
/// when no round recorded both windows.
pub fn duet_mean_overlap(record: &BenchmarkRecord) -> Option<f64> {
    let overlaps: Vec<f64> = record
        .analysed_pairs(Mode::Duet)
        .into_iter()
        .filter(|(b, h)| pair_mode(b, h, Mode::Duet) == Mode::Duet)
        .filter_map(|(b, h)| duet::recorded_overlap(b, h))
        .collect();
    (!overlaps.is_empty()).then(|| descriptive::mean(&overlaps))
}

/// The warning for a duet benchmark whose two sides mostly measured at different moments.
fn duet_overlap_warning(record: &BenchmarkRecord) -> Option<BenchWarning> {
    let overlap = duet_mean_overlap(record)?;
    (overlap < duet::LOW_OVERLAP).then_some(BenchWarning::DuetOverlap { overlap })
}

/// A side's summary from its record and the forks the analysis kept of it.
fn side_summary(side: &SideRecord, forks: &[Vec<f64>], stable: Option<bool>) -> SideSummary {
    let fork_means = descriptive::fork_means(forks);
    let mean = (!forks.is_empty()).then(|| descriptive::mean(&fork_means));
    let fork_rel_sd =
        (fork_means.len() >= 2).then(|| descriptive::coefficient_of_variation(&fork_means));
    SideSummary {
        mean_ns: mean,
        forks: forks.len(),
        samples: forks.iter().map(Vec::len).sum(),
        warmup_dropped: side
            .forks
            .iter()
            .map(|f| f.warmup_dropped.unwrap_or(0))
            .sum(),
        unsteady_forks: side.forks.iter().filter(|f| f.unsteady).count(),
        disturbed_forks: side
            .forks_with_data()
            .iter()
            .filter(|f| !f.set_aside)
            .count()
            .saturating_sub(forks.len()),
        fork_rel_sd,
        stable,
        settings_from_code: SettingsFromCode::of(side),
        fork_measured_ms: mean_measured_ms(side),
        cpu: CpuTimes::of(side),
    }
}

/// The unit of a benchmark's samples (`None`: nanoseconds of wall time), and a warning when
/// base and head measured in different units, which makes their ratio meaningless.
fn unit_of(record: &BenchmarkRecord) -> (Option<String>, Option<BenchWarning>) {
    let side_unit = |side: &SideRecord| -> Option<Option<String>> {
        side.forks
            .iter()
            .find(|fork| !fork.times_ns.is_empty())
            .map(|fork| fork.unit.clone())
    };
    let name = |unit: &Option<String>| unit.clone().unwrap_or_else(|| "ns".to_string());
    match (side_unit(&record.base), side_unit(&record.head)) {
        (Some(base), Some(head)) if base != head => (
            head.clone(),
            Some(BenchWarning::UnitMismatch {
                base: name(&base),
                head: name(&head),
            }),
        ),
        (base, head) => (head.or(base).flatten(), None),
    }
}

/// A warning where every fork value of both sides is a whole number of nanoseconds (a harness
/// that prints them so: `bencher`, libtest before it printed two decimals) and one nanosecond is
/// at least half of `threshold` of the smallest: forks that agree to the nanosecond then give
/// one value each side, and their ratio moves in steps as large as the threshold. Values of a
/// harness that prints decimals are whole only by chance, never all of them.
fn rounded_warning(pairs: &[(&ForkRecord, &ForkRecord)], threshold: f64) -> Option<BenchWarning> {
    let values: Vec<f64> = pairs
        .iter()
        .flat_map(|(base, head)| [*base, *head])
        .filter(|fork| fork.per_fork == Some(PerFork::Median))
        .filter_map(|fork| fork.times_ns.first().copied())
        .collect();
    if values.len() < 2 * pairs.len() || values.iter().any(|v| v.fract() != 0.0) {
        return None;
    }
    let smallest_ns = values.iter().copied().fold(f64::INFINITY, f64::min);
    let share = 1.0 / smallest_ns;
    (smallest_ns > 0.0 && share >= threshold / 2.0)
        .then_some(BenchWarning::Rounded { smallest_ns, share })
}

/// The mean over `side`'s forks with samples of the time they measured, in milliseconds.
fn mean_measured_ms(side: &SideRecord) -> Option<f64> {
    let measured: Vec<f64> = side
        .forks
        .iter()
        // A fork that gave one value (a summary, or one execution of a command) has no
        // samples whose times add up to its measuring.
        .filter(|fork| !fork.times_ns.is_empty() && fork.unit.is_none() && fork.per_fork.is_none())
        .map(|fork| fork.times_ns.iter().sum::<f64>() / 1e6)
        .collect();
    (!measured.is_empty()).then(|| descriptive::mean(&measured))
}

/// The warnings of a benchmark's sides (forks never steady) and of how it stopped.
fn side_warnings(result: &BenchmarkResult, max_forks: Option<usize>) -> Vec<BenchWarning> {
    let mut warnings = Vec::new();
    for (side, summary) in [(Side::Base, &result.base), (Side::Head, &result.head)] {
        if summary.unsteady_forks > 0 {
            warnings.push(BenchWarning::Unsteady {
                side,
                forks: summary.unsteady_forks,
            });
        }
    }
    if let Some(stop) = &result.stop {
        warnings.extend(BenchWarning::of_stop(stop, max_forks));
    }
    warnings
}

/// Benjamini–Hochberg over the suite's paired-test p-values (when enabled), then each verdict
/// and the interval it rests on.
fn apply_fdr_and_verdicts(results: &mut [BenchmarkResult], settings: &AnalysisSettings) {
    let measured: Vec<usize> = (0..results.len())
        .filter(|&i| results[i].paired.is_some())
        .collect();
    let p_values: Vec<f64> = measured
        .iter()
        .map(|&i| results[i].paired.expect("filtered").p_value)
        .collect();
    let q_values = if settings.fdr {
        stats::fdr::benjamini_hochberg(&p_values)
    } else {
        p_values.clone()
    };
    for (&i, q) in measured.iter().zip(q_values) {
        let result = &mut results[i];
        let test = result.paired.as_mut().expect("filtered");
        test.q_value = q;
        let evidence = Evidence {
            paired: test.rounds,
            q_value: q,
        };
        let decision = stats::verdict::decide(&evidence, result.threshold, settings.levels());
        let without_fdr =
            stats::verdict::decide_without_fdr(&test.rounds, result.threshold, settings.levels());
        if without_fdr != decision.verdict {
            result.warnings.push(BenchWarning::HeldBackByFdr {
                without: without_fdr.into(),
                p_value: test.p_value,
                q_value: q,
                tests: p_values.len(),
            });
        }
        result.ratio = Some(decision.interval);
        result.verdict = decision.verdict.into();
        if result.verdict == Outcome::Inconclusive {
            let paired = test.rounds;
            attach_rounds_needed(result, &paired, settings);
        }
    }
    for result in results.iter_mut() {
        let compared = result.verdict == Outcome::Inconclusive && result.paired.is_none();
        if compared && result.change_rate.is_some() {
            // The rounds' forks: one measured again is not another round.
            let forks = result.forks;
            result.warnings.push(BenchWarning::SingleRound {
                base_forks: forks.base - forks.remeasured.base,
                head_forks: forks.head - forks.remeasured.head,
            });
        }
    }
}

/// Power the rounds a capped benchmark would need aim for, as the `decided` stop rule's do.
const ROUNDS_NEEDED_POWER: f64 = 0.8;

/// For an `inconclusive` benchmark that ran to `max-forks`: about how many rounds in all would
/// decide it at its estimate and spread, at the verdict's own levels
/// ([`stats::verdict::rounds_to_decide`]); kept only when more than it ran, since a figure within
/// them would not explain why it is undecided (false-discovery control held it back).
fn attach_rounds_needed(
    result: &mut BenchmarkResult,
    paired: &PairedRounds,
    settings: &AnalysisSettings,
) {
    let needed = stats::verdict::rounds_to_decide(
        paired,
        result.threshold,
        settings.levels(),
        ROUNDS_NEEDED_POWER,
    );
    for warning in &mut result.warnings {
        if let BenchWarning::Capped {
            rounds,
            rounds_needed,
        } = warning
        {
            *rounds_needed = needed.filter(|n| n > rounds);
        }
    }
}

fn summarise(results: &[BenchmarkResult]) -> Summary {
    let mut s = Summary::default();
    for r in results {
        *match r.verdict {
            Outcome::Regressed => &mut s.regressed,
            Outcome::Improved => &mut s.improved,
            Outcome::Unchanged => &mut s.unchanged,
            Outcome::Inconclusive => &mut s.inconclusive,
            Outcome::OnlyInBase => &mut s.only_in_base,
            Outcome::OnlyInHead => &mut s.only_in_head,
            Outcome::Failed => &mut s.failed,
        } += 1;
    }
    s.same_code = results.iter().filter(|r| r.same_code()).count();
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::samples::ForkSettings;

    /// A fork that asked for 0.5 s of measurement, 0.1 s of warm-up and 30 samples and got `used`.
    fn fork_given(used: Option<ForkSettings>) -> ForkRecord {
        let asked = ForkSettings {
            sample_size: 30,
            warm_up_ms: 100.0,
            measurement_ms: 500.0,
            sampling: None,
        };
        ForkRecord {
            config: used,
            asked: Some(asked),
            ..Default::default()
        }
    }

    fn used(sample_size: usize, warm_up_ms: f64, measurement_ms: f64) -> Option<ForkSettings> {
        Some(ForkSettings {
            sample_size,
            warm_up_ms,
            measurement_ms,
            sampling: Some("linear".to_string()),
        })
    }

    fn side_of(forks: Vec<ForkRecord>) -> SideRecord {
        SideRecord {
            forks,
            ..SideRecord::default()
        }
    }

    #[test]
    fn settings_are_from_code_only_where_criterion_used_other_values_than_asked() {
        // What was asked, give or take the nanosecond of a seconds-as-text round trip.
        let as_asked = side_of(vec![fork_given(used(30, 99.999_999, 500.000_001))]);
        assert_eq!(SettingsFromCode::of(&as_asked), None);

        let measuring_longer = side_of(vec![
            fork_given(used(30, 100.0, 10_000.0)),
            fork_given(used(30, 100.0, 10_000.0)),
        ]);
        assert_eq!(
            SettingsFromCode::of(&measuring_longer),
            Some(SettingsFromCode {
                measurement_ms: Some(10_000.0),
                ..Default::default()
            })
        );

        // A later fork asking for exactly the group's warm-up does not hide it.
        let mut coinciding = fork_given(used(10, 700.0, 500.0));
        coinciding.asked.as_mut().unwrap().warm_up_ms = 700.0;
        let warming_up = side_of(vec![fork_given(used(10, 700.0, 500.0)), coinciding]);
        assert_eq!(
            SettingsFromCode::of(&warming_up),
            Some(SettingsFromCode {
                warm_up_ms: Some(700.0),
                sample_size: Some(10),
                ..Default::default()
            })
        );
    }

    #[test]
    fn forks_that_did_not_record_both_settings_say_nothing() {
        let mut older_file = fork_given(used(10, 700.0, 2000.0));
        older_file.asked = None;
        assert_eq!(SettingsFromCode::of(&side_of(vec![older_file])), None);
        assert_eq!(SettingsFromCode::of(&side_of(vec![fork_given(None)])), None);
    }

    /// A record whose round `r` ran base at `base[r]` and head at `head[r]` (ns, ten samples
    /// each, ±0.1 %), every round in its own layout.
    fn rounds_record(base: &[f64], head: &[f64]) -> BenchmarkRecord {
        let side = |levels: &[f64]| {
            side_of(
                levels
                    .iter()
                    .enumerate()
                    .map(|(round, level)| ForkRecord {
                        iters: vec![1.0; 10],
                        times_ns: (0..10)
                            .map(|i| level * (1.0 + 0.001 * (i % 3) as f64))
                            .collect(),
                        round: Some(round),
                        layout: Some(round),
                        ..Default::default()
                    })
                    .collect(),
            )
        };
        BenchmarkRecord {
            id: "b".into(),
            target: None,
            package: None,
            criterion_id: None,
            harness: None,
            presence: Presence::Both,
            base: side(base),
            head: side(head),
            stop: None,
            selection: None,
            fork_length: None,
        }
    }

    fn analysed(record: BenchmarkRecord) -> BenchmarkResult {
        analysed_in(record, Mode::Interleaved)
    }

    /// A record whose forks each gave one median, `base` and `head` a round.
    fn medians_record(base: &[f64], head: &[f64]) -> BenchmarkRecord {
        let mut record = rounds_record(base, head);
        for (side, values) in [(&mut record.base, base), (&mut record.head, head)] {
            for (fork, value) in side.forks.iter_mut().zip(values) {
                fork.iters = vec![1.0];
                fork.times_ns = vec![*value];
                fork.per_fork = Some(PerFork::Median);
            }
        }
        record
    }

    fn rounded(record: BenchmarkRecord) -> Vec<BenchWarning> {
        analysed(record)
            .warnings
            .into_iter()
            .filter(|w| matches!(w, BenchWarning::Rounded { .. }))
            .collect()
    }

    #[test]
    fn medians_in_whole_nanoseconds_a_threshold_apart_are_said_to_be_rounded() {
        // bencher's `49 ns/iter` against `50 ns/iter` in every fork: +2.0 %, one step.
        let warnings = rounded(medians_record(&[49.0; 4], &[50.0; 4]));
        assert_eq!(
            warnings,
            [BenchWarning::Rounded {
                smallest_ns: 49.0,
                share: 1.0 / 49.0
            }]
        );
        let words = warnings[0].to_string();
        assert!(
            words.contains("whole nanoseconds") && words.contains("2.0 %"),
            "{words}"
        );
        // Decimals (libtest's `49.37 ns/iter`), or a step far below the threshold: nothing.
        assert!(rounded(medians_record(&[49.37, 49.0, 49.0], &[50.0; 3])).is_empty());
        assert!(rounded(medians_record(&[490.0; 3], &[500.0; 3])).is_empty());
    }

    #[test]
    fn forks_measured_again_count_among_the_forks_run_and_stay_out_of_the_analysis() {
        let mut record = rounds_record(&[1000.0; 4], &[1000.0; 4]);
        let disturbed = ForkRecord {
            times_ns: vec![5000.0; 10],
            ..record.head.forks[2].clone()
        };
        record.head.forks[2].remeasured = Some(Box::new(disturbed));
        let result = analysed(record);
        assert_eq!(
            result.forks,
            ForkCounts {
                remeasured: RemeasuredForks { base: 0, head: 1 },
                ..ForkCounts::new(4, 5)
            }
        );
        // Four rounds analysed, the fork measured again not among them.
        assert_eq!((result.base.forks, result.head.forks), (4, 4));
        let change = result.change_rate.unwrap();
        assert!(change.abs() < 0.01, "{result:?}");
        let json = serde_json::to_value(result.forks).unwrap();
        assert_eq!(json["remeasured"]["head"], 1, "{json}");
        let none = serde_json::to_value(ForkCounts::new(4, 4)).unwrap();
        assert!(none.get("remeasured").is_none(), "{none}");
    }

    /// [`analysed`] as a run in `mode` records it.
    fn analysed_in(record: BenchmarkRecord, mode: Mode) -> BenchmarkResult {
        let mut file = SampleFile::new(RunInfo {
            mode,
            ..RunInfo::default()
        });
        file.benchmarks.push(record);
        analysed_file(&file)
    }

    fn analysed_file(file: &SampleFile) -> BenchmarkResult {
        let report = analyse(
            file,
            &AnalysisSettings {
                threshold: 0.02,
                instructions_threshold: 0.002,
                alpha: 0.01,
                equivalence_alpha: 0.05,
                confidence: 0.99,
                resamples: 10_000,
                fdr: true,
                overrides: BTreeMap::new(),
            },
            7,
        );
        report.benchmarks.into_iter().next().unwrap()
    }

    /// A duet run that left duet after round 0 (docs/design/duet.md#when-the-two-cpus-are-shared):
    /// round 0 a duet pair on shared CPUs, head's fork preempted to 2.5 times its time, set
    /// aside; round 1 a clean duet pair; rounds 2–7 interleaved. Head is 10 % slower throughout.
    fn left_duet_record() -> BenchmarkRecord {
        let base = [1000.0, 1000.0, 1002.0, 998.0, 1001.0, 999.0, 1000.5, 999.5];
        let head = [
            2500.0, 1100.0, 1101.0, 1099.0, 1100.5, 1099.5, 1100.2, 1100.8,
        ];
        let mut record = rounds_record(&base, &head);
        for (side, cpus) in [(&mut record.base, [0, 1]), (&mut record.head, [1, 0])] {
            for fork in &mut side.forks {
                let round = fork.round.unwrap();
                if round < 2 {
                    fork.cpu = Some(cpus[round % 2]);
                    fork.set_aside = round == 0;
                } else {
                    fork.mode = Some(Mode::Interleaved);
                }
            }
        }
        record
    }

    #[test]
    fn a_run_that_left_duet_analyses_each_round_in_its_own_mode() {
        let record = left_duet_record();
        let pairs = record.analysed_pairs(Mode::Duet);
        let rounds: Vec<Option<usize>> = pairs.iter().map(|(b, _)| b.round).collect();
        assert_eq!(
            rounds,
            (1..8).map(Some).collect::<Vec<_>>(),
            "round 0 set aside"
        );
        // The duet round's value is its paired samples' geometric-mean ratio, the interleaved
        // rounds' their fork means' ratio: both 10 % here.
        for round in round_values(&pairs, Mode::Duet) {
            assert!((round.log_ratio - 1.1f64.ln()).abs() < 2e-3, "{round:?}");
        }
        let result = analysed_in(record.clone(), Mode::Duet);
        assert_eq!(result.verdict, Outcome::Regressed, "{result:?}");
        assert!((result.ratio.unwrap().estimate - 1.1).abs() < 2e-3);
        assert_eq!(result.paired.unwrap().rounds.n, 7);
        assert!(result.bootstrap.is_some(), "the rounds' bootstrap");
        // Set aside is not disturbed: no disturbed fork is counted for the round.
        assert_eq!(
            (result.base.disturbed_forks, result.head.disturbed_forks),
            (0, 0)
        );
        // Left in, the round measured on shared CPUs hides the change.
        let mut kept = record;
        for fork in kept.base.forks.iter_mut().chain(&mut kept.head.forks) {
            fork.set_aside = false;
        }
        let with_it = analysed_in(kept, Mode::Duet);
        assert_eq!(with_it.verdict, Outcome::Inconclusive, "{with_it:?}");
    }

    #[test]
    fn a_run_that_left_duet_reanalyses_identically_from_its_file() {
        let mut file = SampleFile::new(RunInfo {
            mode: Mode::Duet,
            ..RunInfo::default()
        });
        file.benchmarks.push(left_duet_record());
        let text = serde_json::to_string(&file).unwrap();
        let again = SampleFile::from_json(std::path::Path::new("s.json"), &text).unwrap();
        assert_eq!(again, file);
        let (first, second) = (analysed_file(&file), analysed_file(&again));
        assert_eq!(first.verdict, second.verdict);
        assert_eq!(first.ratio, second.ratio);
        assert_eq!(first.paired, second.paired);
    }

    #[test]
    fn only_interleaved_rounds_are_judged_disturbed_in_a_run_that_left_duet() {
        // Rounds 0–1 duet (head's fork 30 % slow in round 1: a duet pair is never left out),
        // rounds 2–8 interleaved, round 5's base fork 60 % slow: left out.
        let base = [
            1000.0, 1000.0, 1000.2, 999.8, 1000.1, 1600.0, 999.9, 1000.3, 1000.0,
        ];
        let head = [
            1000.1, 1300.0, 1000.0, 1000.2, 999.9, 1000.1, 1000.2, 999.8, 1000.4,
        ];
        let mut record = rounds_record(&base, &head);
        for fork in record.base.forks.iter_mut().chain(&mut record.head.forks) {
            if fork.round.unwrap() >= 2 {
                fork.mode = Some(Mode::Interleaved);
            } else {
                fork.cpu = Some(0);
            }
        }
        let rounds: Vec<usize> = record
            .analysed_pairs(Mode::Duet)
            .iter()
            .map(|(b, _)| b.round.unwrap())
            .collect();
        assert_eq!(rounds, [0, 1, 2, 3, 4, 6, 7, 8]);
    }

    #[test]
    fn layouts_that_move_both_sides_alike_cancel_in_the_rounds() {
        // Each layout moves the benchmark by up to ±15 %, on both sides alike; head is 3 %
        // slower in every round. Two independent groups could not see it; paired rounds do.
        let layouts = [1.0, 1.15, 0.9, 1.05, 0.85, 1.1, 0.95, 1.12];
        let base: Vec<f64> = layouts.iter().map(|l| 1000.0 * l).collect();
        let head: Vec<f64> = base.iter().map(|b| b * 1.03).collect();
        let result = analysed(rounds_record(&base, &head));
        assert_eq!(result.verdict, Outcome::Regressed, "{result:?}");
        let ratio = result.ratio.unwrap();
        assert!(ratio.ci_low > 1.0 && (ratio.estimate - 1.03).abs() < 1e-3);
        let test = result.paired.unwrap();
        assert_eq!((test.rounds.n, test.df), (8, 7.0));
        let spread = result.layout_spread.unwrap();
        assert!(spread.spread > 0.09, "{spread:?}");
        assert_eq!((spread.head_slower, spread.rounds), (8, 8));
    }

    #[test]
    fn a_disturbed_fork_takes_its_rounds_partner_out() {
        let base = [1000.0, 1001.0, 999.0, 1000.5, 1600.0, 1000.2, 999.5, 1000.1];
        let head = [1000.3, 1000.8, 999.2, 1000.1, 1000.4, 1000.0, 999.9, 1000.6];
        let record = rounds_record(&base, &head);
        let pairs = record.analysed_pairs(Mode::Interleaved);
        assert_eq!(pairs.len(), 7);
        assert!(
            pairs
                .iter()
                .all(|(b, h)| b.round == h.round && b.round != Some(4))
        );
        let result = analysed(record);
        assert_eq!(result.verdict, Outcome::Unchanged, "{result:?}");
        assert_eq!((result.base.forks, result.head.forks), (7, 7));
        assert_eq!(
            (result.base.disturbed_forks, result.head.disturbed_forks),
            (1, 1)
        );
        // duet rounds keep every round: a disturbance common to both cancels in the pair
        assert_eq!(
            rounds_record(&base, &head).analysed_pairs(Mode::Duet).len(),
            8
        );
    }

    #[test]
    fn one_round_decides_nothing_and_says_why() {
        let result = analysed(rounds_record(&[1000.0], &[1500.0]));
        assert_eq!(result.verdict, Outcome::Inconclusive);
        assert!(result.ratio.is_none() && result.paired.is_none());
        assert!((result.change_rate.unwrap() - 0.5).abs() < 0.01);
        assert!(
            result
                .warnings
                .iter()
                .any(|w| w.to_string().contains("at least two are needed")),
            "{:?}",
            result.warnings
        );
    }

    #[test]
    fn a_change_held_back_by_false_discovery_control_is_explained() {
        let note = BenchWarning::HeldBackByFdr {
            without: Outcome::Regressed,
            p_value: 0.004,
            q_value: 0.02,
            tests: 12,
        }
        .to_string();
        assert!(note.contains("alone says regressed"), "{note}");
        assert!(
            note.contains("12 benchmarks") && note.contains("q = 0.020"),
            "{note}"
        );
    }

    /// The stop record of a `decided` run that stopped `record` after its rounds.
    fn stopped(mut record: BenchmarkRecord, futile: bool, needed: Option<f64>) -> BenchmarkRecord {
        let rounds = record.base.forks.len();
        let mut details = BTreeMap::from([("futile".to_string(), f64::from(u8::from(futile)))]);
        details.extend(needed.map(|n| ("rounds_needed".to_string(), n)));
        record.stop = Some(crate::model::samples::StopRecord {
            rule: "decided".to_string(),
            rounds,
            base_stable: false,
            head_stable: false,
            capped: !futile,
            checkpoint_ms: 0.0,
            details,
        });
        record
    }

    /// Ten rounds 1.5 % slower on average, ±1.3 % apart: neither a change of 2 % nor the lack of
    /// one is shown.
    fn undecided_rounds() -> BenchmarkRecord {
        let head: Vec<f64> = [1.0, 1.03, 1.01, 1.025, 1.0, 1.02, 1.03, 1.005, 1.02, 1.01]
            .iter()
            .map(|r| 1000.0 * r)
            .collect();
        rounds_record(&[1000.0; 10], &head)
    }

    #[test]
    fn a_capped_inconclusive_benchmark_says_the_rounds_a_verdict_would_take_in_all() {
        let result = analysed(stopped(undecided_rounds(), false, None));
        assert_eq!(result.verdict, Outcome::Inconclusive, "{result:?}");
        let capped = result
            .warnings
            .iter()
            .find_map(|w| match w {
                BenchWarning::Capped {
                    rounds,
                    rounds_needed,
                } => Some((*rounds, *rounds_needed)),
                _ => None,
            })
            .expect("capped");
        let (rounds, needed) = capped;
        assert_eq!(rounds, 10);
        let needed = needed.expect("a figure");
        assert!(needed > 10, "{needed}");
        // The figure is the one the verdict's statistics give.
        let paired = result.paired.unwrap().rounds;
        let levels = stats::Levels {
            alpha: 0.01,
            equivalence_alpha: 0.05,
        };
        assert_eq!(
            stats::verdict::rounds_to_decide(&paired, 0.02, levels, 0.8),
            Some(needed)
        );
        // A decided benchmark at the cap (another rule's) gets no figure.
        let clear = rounds_record(&[1000.0; 10], &[1100.0; 10]);
        let decided = analysed(stopped(clear, false, None));
        assert_eq!(decided.verdict, Outcome::Regressed);
        assert!(decided.warnings.iter().any(|w| matches!(
            w,
            BenchWarning::Capped {
                rounds_needed: None,
                ..
            }
        )));
    }

    #[test]
    fn a_benchmark_given_up_names_max_forks_from_the_runs_settings() {
        let mut record = undecided_rounds();
        for side in [&mut record.base, &mut record.head] {
            side.forks.truncate(5);
        }
        let mut file = SampleFile::new(RunInfo {
            settings: Some(serde_json::json!({"max_forks": 10})),
            ..RunInfo::default()
        });
        file.benchmarks.push(stopped(record, true, Some(53.0)));
        let settings = AnalysisSettings {
            threshold: 0.02,
            instructions_threshold: 0.002,
            alpha: 0.01,
            equivalence_alpha: 0.05,
            confidence: 0.99,
            resamples: 1_000,
            fdr: true,
            overrides: BTreeMap::new(),
        };
        let result = analyse(&file, &settings, 7).benchmarks.remove(0);
        assert!(
            result.warnings.contains(&BenchWarning::GaveUp {
                rounds: 5,
                max_forks: Some(10),
                rounds_needed: Some(53),
            }),
            "{:?}",
            result.warnings
        );
    }

    #[test]
    fn a_custom_measurements_unit_is_reported_and_a_mixed_one_warned_about() {
        let fork = |unit: Option<&str>| ForkRecord {
            iters: vec![1.0, 2.0],
            times_ns: vec![40.0, 80.0],
            unit: unit.map(str::to_string),
            ..Default::default()
        };
        let record = |base: Option<&str>, head: Option<&str>| BenchmarkRecord {
            id: "b".into(),
            target: None,
            package: None,
            criterion_id: None,
            harness: None,
            presence: Presence::Both,
            base: side_of(vec![fork(base), fork(base)]),
            head: side_of(vec![fork(head), fork(head)]),
            stop: None,
            selection: None,
            fork_length: None,
        };
        assert_eq!(unit_of(&record(None, None)), (None, None));
        assert_eq!(
            unit_of(&record(Some("cycles"), Some("cycles"))),
            (Some("cycles".to_string()), None)
        );
        let (unit, warning) = unit_of(&record(None, Some("cycles")));
        assert_eq!(unit.as_deref(), Some("cycles"));
        assert_eq!(
            warning.map(|w| w.to_string()).as_deref(),
            Some(
                "base measured in ns and head in cycles: their ratio compares different quantities"
            )
        );
        // Cycles are not milliseconds: no measured time, so no note on slow iterations.
        assert_eq!(mean_measured_ms(&record(Some("cycles"), None).base), None);
        assert_eq!(
            mean_measured_ms(&record(None, None).base),
            Some(120.0 / 1e6)
        );
        // Nor is one execution of a command (or a harness's summary) a fork's samples.
        let execution = ForkRecord {
            iters: vec![1.0],
            times_ns: vec![1.37e9],
            per_fork: Some(crate::model::harness::PerFork::Execution),
            ..Default::default()
        };
        assert_eq!(mean_measured_ms(&side_of(vec![execution])), None);
    }

    #[test]
    fn time_outside_the_benchmarks_is_summed_up_with_the_heaviest_targets() {
        let fork = |outside_ms: Option<f64>| ForkRecord {
            wall_ms: Some(1000.0),
            outside_ms,
            ..Default::default()
        };
        let mut file = SampleFile::new(RunInfo::default());
        for (id, target, outside) in [
            ("a/x", "light", 50.0),
            ("b/x", "heavy", 450.0),
            ("c/x", "middle", 200.0),
        ] {
            let record = file.benchmark_mut(id, Presence::Both);
            record.target = Some(target.to_string());
            record.base = side_of(vec![fork(Some(outside)), fork(Some(outside))]);
            // A fork of an older file without the figure counts for nothing.
            record.head = side_of(vec![fork(Some(outside)), fork(None)]);
        }
        let outside = outside_time(&file).expect("recorded");
        assert!(
            (outside.share - 700.0 * 3.0 / 9000.0).abs() < 1e-12,
            "{outside:?}"
        );
        assert_eq!(outside.median_ms, 200.0);
        assert_eq!(outside.heaviest_targets, ["heavy", "middle", "light"]);
        assert_eq!(outside_time(&SampleFile::new(RunInfo::default())), None);
    }
}
