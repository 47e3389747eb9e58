//! Analysis: a samples file in, one [`BenchmarkResult`] per benchmark out.
//!
//! This is where the statistics of [`crate::stats`] meet the data: per-iteration times by fork go
//! to the hierarchical bootstrap (or, in duet mode, paired ratios go to the duet statistics), all
//! iterations to Mann–Whitney U and Cliff's delta, and the suite's U p-values through
//! Benjamini–Hochberg before the verdict. The result is plain data; `report` only formats it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::config::Settings;
use crate::discover;
use crate::duet;
pub use crate::samples::SkippedTarget;
use crate::samples::{
    BenchmarkRecord, ForkRecord, HarnessKind, Mode, PerFork, Presence, RunInfo, SampleFile,
    SideRecord,
};
use crate::stats::layout::layout_means;
use crate::stats::{
    self, BootstrapConfig, CliffsDelta, Evidence, MannWhitney, RatioCi, Verdict, descriptive,
    duet::DuetRun,
};

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
    /// A command's executions ([`crate::command`]): their mean CPU times, which the verdicts do
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
        let mean = |value: fn(&crate::samples::ExecResources) -> f64| {
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

/// Mann–Whitney U with the suite-adjusted p-value used for the verdict.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MannWhitneySummary {
    /// U of the head sample.
    pub u: f64,
    /// Two-sided p-value of this benchmark alone.
    pub p_value: f64,
    /// Benjamini–Hochberg adjusted p-value (equals `p_value` with `--no-fdr`).
    pub q_value: f64,
    pub method: stats::mann_whitney::Method,
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
    /// `head / base` ratio of means and its CI.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ratio: Option<RatioCi>,
    /// When both sides have at least two analysed forks (any stop rule): the verdict of the t
    /// interval on the fork means ([`stats::fork_interval`]) at the run's level, which the
    /// verdict must share.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub fork_interval: Option<Verdict>,
    /// How far the benchmark moves between code layouts of the same source, when each side was
    /// measured in at least two; a change within it is not called a change.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub layout_spread: Option<LayoutSpread>,
    /// `mean(head) / mean(base) − 1`.
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
    /// Smallest relative change this benchmark's noise lets the run detect (80 % power).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_detectable_change: Option<f64>,
    /// How measurement stopped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop: Option<crate::samples::StopRecord>,
    /// Why the benchmark failed, with the stderr tail.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// Things the user should know about this result.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub warnings: Vec<String>,
    /// What the means and samples (`mean_ns`, `times_ns`) measure when it is not nanoseconds of
    /// wall time: the unit a custom criterion measurement names (`cycles`). Ratios, tests and
    /// verdicts do not depend on it.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub unit: Option<String>,
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
            fork_interval: None,
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
        }
    }
}

/// Forks per side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct ForkCounts {
    pub base: usize,
    pub head: usize,
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
                let label =
                    discover::target_label(bench.package.as_deref(), target, several_packages);
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
    pub alpha: f64,
    pub confidence: f64,
    pub resamples: usize,
    pub fdr: bool,
    pub seed: u64,
}

/// Schema tag of the JSON report.
pub const REPORT_SCHEMA: &str = "perfdiff-report/1";

/// Analyses every benchmark of `samples` with `settings`; `seed` drives every bootstrap.
pub fn analyse(samples: &SampleFile, settings: &Settings, seed: u64) -> Report {
    let mode = samples.run.mode;
    let mut results: Vec<BenchmarkResult> = samples
        .benchmarks
        .iter()
        .filter(|b| !is_ignored(settings, b))
        .enumerate()
        .map(|(i, b)| analyse_one(b, mode, settings, bench_seed(seed, i)))
        .collect();
    apply_fdr_and_verdicts(&mut results, settings);
    results.sort_by(|a, b| a.verdict.cmp(&b.verdict).then_with(|| a.id.cmp(&b.id)));
    Report {
        schema: REPORT_SCHEMA.to_string(),
        run: samples.run.clone(),
        settings: ReportSettings {
            mode,
            threshold: settings.threshold,
            alpha: settings.alpha,
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
fn is_ignored(settings: &Settings, record: &BenchmarkRecord) -> bool {
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
    settings: &Settings,
    seed: u64,
) -> BenchmarkResult {
    let analysed = record.analysed_by_fork(mode);
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
        forks: ForkCounts {
            base: record.base.forks.len(),
            head: record.head.forks.len(),
        },
        base: side_summary(
            &record.base,
            &analysed.0,
            record.stop.as_ref().map(|s| s.base_stable),
        ),
        head: side_summary(
            &record.head,
            &analysed.1,
            record.stop.as_ref().map(|s| s.head_stable),
        ),
        stop: record.stop.clone(),
        ..BenchmarkResult::new(&record.id, settings.threshold_for(&record.id))
    };
    let (unit, unit_warning) = unit_of(record);
    result.unit = unit;
    result.warnings.extend(unit_warning);
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
    if let Some(failure) = record.base.failure.as_ref().map(|f| ("base", f)).or(record
        .head
        .failure
        .as_ref()
        .map(|f| ("head", f)))
    {
        result.verdict = Outcome::Failed;
        let tail = if failure.1.stderr_tail.is_empty() {
            String::new()
        } else {
            format!("\n{}", failure.1.stderr_tail)
        };
        result.failure = Some(format!("{}: {}{tail}", failure.0, failure.1.message));
        return result;
    }
    let (base, head) = analysed;
    if base.is_empty() || head.is_empty() {
        result.warnings.push("no samples on one side".to_string());
        return result;
    }
    let config = BootstrapConfig {
        confidence: settings.confidence,
        resamples: settings.resamples,
        seed,
    };
    let comparison = comparison_stats(record, &base, &head, mode, &config);
    result.ratio = comparison.ratio;
    result.change_rate = Some(comparison.change_rate);
    result.mann_whitney = comparison.mann_whitney.map(|mw| MannWhitneySummary {
        u: mw.u,
        p_value: mw.p_value,
        q_value: mw.p_value,
        method: mw.method,
    });
    result.cliffs_delta = comparison.cliffs_delta;
    if base.len() >= 2 && head.len() >= 2 {
        result.fork_interval = Some(fork_interval_verdict(
            record,
            &base,
            &head,
            mode,
            result.threshold,
            settings.alpha,
        ));
    }
    result.layout_spread = layout_spread(record, &base, &head, mode);
    result.min_detectable_change = min_detectable_change(&result, settings);
    result.warnings.extend(side_warnings(&result));
    if mode == Mode::Duet {
        result.warnings.extend(duet_overlap_warning(record));
    }
    result
}

/// The per-benchmark statistics a verdict rests on, before suite-wide p-value adjustment.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ComparisonStats {
    /// See [`comparison_ratio`].
    pub ratio: Option<RatioCi>,
    /// `mean(head) / mean(base) − 1`, a side's mean being the mean of its fork means.
    pub change_rate: f64,
    pub mann_whitney: Option<MannWhitney>,
    pub cliffs_delta: Option<CliffsDelta>,
}

/// The statistics of one benchmark from its per-iteration times by fork (`base`, `head`, as
/// [`SideRecord::per_iteration_by_fork`] gives them). The final analysis and the `decided` stop
/// rule's interim looks both use this, so a look judges exactly what the verdict will.
pub fn comparison_stats(
    record: &BenchmarkRecord,
    base: &[Vec<f64>],
    head: &[Vec<f64>],
    mode: Mode,
    config: &BootstrapConfig,
) -> ComparisonStats {
    let base_flat = base.concat();
    let head_flat = head.concat();
    ComparisonStats {
        ratio: comparison_ratio(record, base, head, mode, config),
        change_rate: descriptive::change_rate(
            descriptive::mean_of_fork_means(base),
            descriptive::mean_of_fork_means(head),
        ),
        mann_whitney: stats::mann_whitney::mann_whitney_u(&base_flat, &head_flat).ok(),
        cliffs_delta: stats::cliffs::cliffs_delta(&base_flat, &head_flat).ok(),
    }
}

/// The verdict of a t interval (level `1 − alpha`) on the fork means of `base` and `head` (the
/// forks analysed, by fork): in interleaved mode Student's two-sample interval of the log fork
/// means, in duet mode the one-sample interval of the rounds' log ratios
/// ([`stats::fork_interval`]).
///
/// When the forks ran in several code layouts, the interval takes one value per layout (the mean
/// of its forks, [`stats::layout`]): forks of one layout share its effect and are not
/// independent replicates of the revision.
pub fn fork_interval_verdict(
    record: &BenchmarkRecord,
    base: &[Vec<f64>],
    head: &[Vec<f64>],
    mode: Mode,
    relevance: f64,
    alpha: f64,
) -> Verdict {
    match mode {
        Mode::Interleaved => {
            let (base_layouts, head_layouts) = record.analysed_layouts(mode);
            stats::fork_interval::two_sample_verdict(
                &layout_means(&descriptive::fork_means(base), &base_layouts),
                &layout_means(&descriptive::fork_means(head), &head_layouts),
                relevance,
                alpha,
            )
        }
        Mode::Duet => {
            let (log_ratios, layouts): (Vec<f64>, Vec<Option<usize>>) = duet_fork_pairs(record)
                .map(|(b, h)| {
                    let ratio = descriptive::mean(&h.per_iteration_ns())
                        / descriptive::mean(&b.per_iteration_ns());
                    (ratio.ln(), b.layout)
                })
                .unzip();
            stats::fork_interval::paired_verdict(
                &layout_means(&log_ratios, &layouts),
                relevance,
                alpha,
            )
        }
    }
}

/// How far the benchmark's time moves between code layouts of the same source: the larger of
/// the two sides' half-ranges of their layout means ([`stats::layout::half_range`]), and the
/// fewest layouts a side was measured in, from the analysed forks `base` and `head`
/// ([`BenchmarkRecord::analysed_by_fork`]). `None` when a side was measured in fewer than two.
pub fn layout_spread(
    record: &BenchmarkRecord,
    base: &[Vec<f64>],
    head: &[Vec<f64>],
    mode: Mode,
) -> Option<LayoutSpread> {
    let (base_layouts, head_layouts) = record.analysed_layouts(mode);
    let side = |forks: &[Vec<f64>], layouts: &[Option<usize>]| {
        let count = stats::layout::distinct_layouts(layouts);
        let means = layout_means(&descriptive::fork_means(forks), layouts);
        (count >= 2)
            .then(|| stats::layout::half_range(&means))
            .flatten()
            .map(|spread| (count, spread))
    };
    let (base, head) = (side(base, &base_layouts)?, side(head, &head_layouts)?);
    Some(LayoutSpread {
        layouts: base.0.min(head.0),
        spread: base.1.max(head.1),
    })
}

/// A benchmark's layout spread ([`layout_spread`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LayoutSpread {
    /// Layouts measured on the side with fewer.
    pub layouts: usize,
    /// Half the range of the layout means, as a fraction of their mean (the larger side's).
    pub spread: f64,
}

/// The `head / base` ratio and its CI as the verdict uses it: in duet mode the duet statistics
/// over the rounds' paired samples (falling back to the ratio of means when no round paired),
/// in interleaved mode the hierarchical bootstrap of the ratio of means of the analysed forks
/// `base` and `head` ([`BenchmarkRecord::analysed_by_fork`]). A stop rule that judges the
/// comparison (`decided`) should use this too, so duet runs stop on the duet CI.
pub fn comparison_ratio(
    record: &BenchmarkRecord,
    base: &[Vec<f64>],
    head: &[Vec<f64>],
    mode: Mode,
    config: &BootstrapConfig,
) -> Option<RatioCi> {
    let duet = match mode {
        Mode::Duet => {
            duet_runs(record).and_then(|runs| stats::duet::duet_ratio(&runs, config).ok())
        }
        Mode::Interleaved => None,
    };
    duet.or_else(|| stats::bootstrap::ratio_of_means(base, head, config).ok())
}

/// Duet pairs: base and head forks of the same round, samples paired by time when the forks
/// recorded their measurement windows ([`duet::time_paired_run`]), else by position.
fn duet_runs(record: &BenchmarkRecord) -> Option<Vec<DuetRun>> {
    let runs: Vec<DuetRun> = duet_fork_pairs(record)
        .filter_map(|(b, h)| {
            let run = duet::time_paired_run(b, h).unwrap_or_else(|| {
                let (base, head) = (b.per_iteration_ns(), h.per_iteration_ns());
                let n = base.len().min(head.len());
                DuetRun {
                    base: base[..n].to_vec(),
                    head: head[..n].to_vec(),
                }
            });
            (!run.base.is_empty()).then_some(run)
        })
        .collect();
    (!runs.is_empty()).then_some(runs)
}

/// The base and head forks of each round.
pub fn duet_fork_pairs(
    record: &BenchmarkRecord,
) -> impl Iterator<Item = (&ForkRecord, &ForkRecord)> {
    record.base.forks.iter().filter_map(|b| {
        let round = b.round?;
        let h = record.head.forks.iter().find(|h| h.round == Some(round))?;
        Some((b, h))
    })
}

/// Mean overlap of the two sides' measurement windows over a duet benchmark's rounds; `None`
/// when no round recorded both windows.
pub fn duet_mean_overlap(record: &BenchmarkRecord) -> Option<f64> {
    let overlaps: Vec<f64> = duet_fork_pairs(record)
        .filter_map(|(b, h)| duet::recorded_overlap(b, h))
        .collect();
    (!overlaps.is_empty()).then(|| descriptive::mean(&overlaps))
}

/// The warning for a duet benchmark whose two sides mostly measured at different moments.
fn duet_overlap_warning(record: &BenchmarkRecord) -> Option<String> {
    let overlap = duet_mean_overlap(record)?;
    (overlap < duet::LOW_OVERLAP).then(|| {
        format!(
            "duet: base and head measured at the same time for only {:.0} % of their measurement \
             windows on average (very different iteration times, or a disturbed warm-up); \
             pairing cancels less noise",
            overlap * 100.0
        )
    })
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
        disturbed_forks: side.per_iteration_by_fork().len() - forks.len(),
        fork_rel_sd,
        stable,
        settings_from_code: SettingsFromCode::of(side),
        fork_measured_ms: mean_measured_ms(side),
        cpu: CpuTimes::of(side),
    }
}

/// The unit of a benchmark's samples (`None`: nanoseconds of wall time), and a warning when
/// base and head measured in different units, which makes their ratio meaningless.
fn unit_of(record: &BenchmarkRecord) -> (Option<String>, Option<String>) {
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
            Some(format!(
                "base measured in {} and head in {}: their ratio compares different quantities",
                name(&base),
                name(&head)
            )),
        ),
        (base, head) => (head.or(base).flatten(), None),
    }
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

/// Smallest detectable change at the forks run, from the noisier side's fork-to-fork variation.
fn min_detectable_change(result: &BenchmarkResult, settings: &Settings) -> Option<f64> {
    let rel_sd = result.base.fork_rel_sd?.max(result.head.fork_rel_sd?);
    let forks = result.forks.base.min(result.forks.head);
    Some(stats::power::min_detectable_change(
        rel_sd,
        forks,
        settings.alpha,
        0.8,
    ))
}

fn side_warnings(result: &BenchmarkResult) -> Vec<String> {
    let mut warnings = Vec::new();
    for (name, side) in [("base", &result.base), ("head", &result.head)] {
        if side.unsteady_forks > 0 {
            warnings.push(format!(
                "{name}: {} fork(s) never reached a steady state",
                side.unsteady_forks
            ));
        }
    }
    if result
        .stop
        .as_ref()
        .is_some_and(|s| s.details.get("futile").is_some_and(|f| *f > 0.0))
    {
        warnings.push(
            "stopped early: at this noise even max-forks could not decide the comparison"
                .to_string(),
        );
    }
    if result.stop.as_ref().is_some_and(|s| s.capped) {
        warnings.push("stopped at max-forks before the stop rule was met".to_string());
    }
    warnings
}

/// Benjamini–Hochberg over the suite's U p-values (when enabled), then each verdict.
fn apply_fdr_and_verdicts(results: &mut [BenchmarkResult], settings: &Settings) {
    let measured: Vec<usize> = (0..results.len())
        .filter(|&i| results[i].mann_whitney.is_some() && results[i].ratio.is_some())
        .collect();
    let p_values: Vec<f64> = measured
        .iter()
        .map(|&i| results[i].mann_whitney.expect("filtered").p_value)
        .collect();
    let q_values = if settings.fdr {
        stats::fdr::benjamini_hochberg(&p_values)
    } else {
        p_values.clone()
    };
    for (&i, q) in measured.iter().zip(q_values) {
        let result = &mut results[i];
        let mw = result.mann_whitney.as_mut().expect("filtered");
        mw.q_value = q;
        let evidence = Evidence {
            ratio: result.ratio.expect("filtered"),
            p_value: q,
            delta: result.cliffs_delta.map_or(0.0, |d| d.delta),
            change_rate: result.change_rate.unwrap_or(0.0),
            fork_interval: result.fork_interval,
            layout_spread: result.layout_spread.map(|l| l.spread),
        };
        let verdict = stats::verdict::decide(&evidence, result.threshold, settings.alpha);
        let by_ci_alone = stats::verdict::decide_by_bootstrap_and_ranks(
            &evidence,
            result.threshold,
            settings.alpha,
        );
        let before_layout =
            stats::verdict::decide_by_code_and_forks(&evidence, result.threshold, settings.alpha);
        let note = match (result.fork_interval, result.layout_spread) {
            (None, _) => single_fork_note(by_ci_alone, result.forks),
            (Some(_), Some(spread)) if before_layout != verdict => {
                Some(layout_note(before_layout, evidence.change_rate, spread))
            }
            (Some(_), _) => spread_note(by_ci_alone, verdict),
        };
        result.warnings.extend(note);
        result.verdict = verdict.into();
    }
}

/// Why a benchmark with a single fork on a side is `inconclusive`, and what the CI alone would
/// have called: the samples of one process never vary what differs from process to process (its
/// luck, the code layout its executable fixed), so one fork per side cannot tell a change from
/// the difference between two processes (an A/A run of base64 reported after its first round:
/// 18 of 104 benchmarks "changed", −25.5 % to +14.1 %).
fn single_fork_note(by_ci_alone: Verdict, forks: ForkCounts) -> Option<String> {
    let ci_says = match by_ci_alone {
        Verdict::Inconclusive => String::new(),
        decided => format!(
            "the CI alone says {}, but ",
            Outcome::from(decided).as_str()
        ),
    };
    Some(format!(
        "{ci_says}{} fork(s) of base and {} of head cannot tell a change from the difference \
         between two processes: at least two forks per side are needed (raise --forks or \
         --max-forks)",
        forks.base, forks.head
    ))
}

/// Why a benchmark whose change lies within its layout spread is `inconclusive`: the same source
/// linked in another order moved it as far, so the difference may be one of layout, not of code.
fn layout_note(would_be: Verdict, change: f64, spread: LayoutSpread) -> String {
    format!(
        "{} by {:+.1} %, but that lies within its layout spread (±{:.1} % between {} code \
         layouts of the same source): the difference may be where the code sits, not what it \
         does; a change larger than the spread, or more layouts (--layouts) showing a narrower \
         one, would settle it",
        Outcome::from(would_be).as_str(),
        change * 100.0,
        spread.spread * 100.0,
        spread.layouts
    )
}

/// Why a benchmark whose bootstrap CI alone would decide is `inconclusive`: its fork means
/// disagree more than its samples suggest, so the t interval on them does not share the verdict
/// (`docs/statistics.md`). Without this a table row such as "+1.0 %, CI [1.000, 1.020],
/// inconclusive" would be a riddle.
fn spread_note(by_ci_alone: Verdict, verdict: Verdict) -> Option<String> {
    (verdict == Verdict::Inconclusive && by_ci_alone != Verdict::Inconclusive).then(|| {
        format!(
            "the CI alone says {}, but the forks' means differ too much to confirm it (t interval \
             on the fork means): more forks may decide",
            Outcome::from(by_ci_alone).as_str()
        )
    })
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
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::samples::ForkSettings;
    use crate::stats::{RatioCi, Resampling};

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
            failure: None,
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

    /// hex's `encode/rustc_hex` in a fixed 10-fork run: +1.0 %, bootstrap CI [1.0005, 1.0199].
    fn evidence(fork_interval: Option<Verdict>) -> Evidence {
        Evidence {
            ratio: RatioCi {
                estimate: 1.0097,
                ci_low: 1.0005,
                ci_high: 1.0199,
                confidence: 0.99,
                resamples: 10_000,
                resampling: Resampling::Hierarchical,
            },
            p_value: 1e-29,
            delta: 0.55,
            layout_spread: None,
            change_rate: 0.0097,
            fork_interval,
        }
    }

    /// The note for `evidence` as the analysis makes it: threshold 2 %, alpha 1 %.
    fn note_for(evidence: &Evidence) -> (Verdict, Option<String>) {
        let verdict = stats::verdict::decide(evidence, 0.02, 0.01);
        let by_ci_alone = stats::verdict::decide_by_bootstrap_and_ranks(evidence, 0.02, 0.01);
        (verdict, spread_note(by_ci_alone, verdict))
    }

    #[test]
    fn a_verdict_the_fork_means_do_not_confirm_is_explained() {
        let (verdict, note) = note_for(&evidence(Some(Verdict::Inconclusive)));
        assert_eq!(verdict, Verdict::Inconclusive);
        let note = note.expect("a note");
        assert!(note.contains("says unchanged"), "{note}");
    }

    #[test]
    fn no_note_when_the_fork_means_agree_or_nothing_was_decided() {
        assert_eq!(
            note_for(&evidence(Some(Verdict::Unchanged))),
            (Verdict::Unchanged, None)
        );
        // a CI reaching past the threshold is inconclusive on its own: nothing to explain
        let mut wide = evidence(Some(Verdict::Inconclusive));
        wide.ratio.ci_high = 1.03;
        assert_eq!(note_for(&wide), (Verdict::Inconclusive, None));
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
        };
        assert_eq!(unit_of(&record(None, None)), (None, None));
        assert_eq!(
            unit_of(&record(Some("cycles"), Some("cycles"))),
            (Some("cycles".to_string()), None)
        );
        let (unit, warning) = unit_of(&record(None, Some("cycles")));
        assert_eq!(unit.as_deref(), Some("cycles"));
        assert_eq!(
            warning.as_deref(),
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
            per_fork: Some(crate::harness::PerFork::Execution),
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
