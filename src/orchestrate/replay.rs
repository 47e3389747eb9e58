//! `cargo perfdiff replay`: evaluate stop rules post hoc on a recorded run (issue #4).
//!
//! Measuring costs minutes, replaying milliseconds, so stop rules are evaluated the way Laaber et
//! al. evaluated theirs (FSE 2020, section 5): record once with a generous fixed configuration
//! (`--stop fixed --forks 20`), then replay each rule on the recording. For every benchmark the
//! rule is asked after every round, exactly as the measurement loop asks it, on the first `r`
//! forks of each side (warm-up detection replayed on every fork); the first round it says stop is
//! where a real run would have stopped. The truncated recording is then analysed like a real run
//! of that rule and compared with the analysis of the whole recording:
//!
//! - **time saved**: `1 − Σ wall_ms(kept forks) / Σ wall_ms(all forks)`, from the forks' recorded
//!   wall times, per benchmark and over the suite;
//! - **agreement**: the verdict of the truncated run equals the verdict of the whole recording;
//! - **change rate** (the paper's Table 2/3 measure): per side `|mean_dyn / mean_full − 1|` of the
//!   mean time per iteration (mean of fork means), and of the head/base ratio
//!   `|ratio_dyn / ratio_full − 1|`; the suite figure is the mean over benchmarks of the larger of
//!   the two sides;
//! - **checkpoint overhead**: time spent evaluating the rule and detecting warm-up, over the wall
//!   time of the kept forks;
//! - **agreement on clear benchmarks**: agreement over the benchmarks whose full verdict does not
//!   hang on the threshold's exact place ([`BenchmarkReplay::clear`]), what a tester comparing a
//!   default run with a fixed one checks.
//!
//! One recorded order of the rounds is one draw of the noise a rule meets: [`permute_rounds`]
//! gives the same recording in other orders, and `--orders N` replays N of them and summarises
//! them by their mean and their worst ([`summarise_orders`]).
//!
//! What a replay cannot show: the adaptive warm-up time (the recording's forks ran with the warm-up
//! time they were given), and how the benchmarks would have run on a machine with fewer forks
//! competing. Both make replayed savings an estimate of a real run's.
use std::time::Instant;

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

use crate::config::{Settings, StopRule};
use crate::model::samples::{BenchmarkRecord, ForkRecord, Presence, SampleFile, StopRecord};
use crate::steps::analysis::{BenchmarkResult, Outcome, Report};
use crate::steps::stop::StopPolicy;

/// The limits and parameters of a stop rule as a run is given them (`None`: the default).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StopLimits {
    /// Rounds always run before a stop rule may stop.
    pub min_forks: Option<usize>,
    /// Rounds after which a benchmark stops whatever its rule says.
    pub max_forks: Option<usize>,
    /// Threshold of the stop rule.
    pub stop_threshold: Option<f64>,
    /// Sliding window of the stop rules.
    pub window: Option<usize>,
}

/// What to replay: the rule's parameters (`None`: current defaults) and how.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ReplayOptions {
    /// `--min-forks`, `--max-forks`, `--stop-threshold` and `--window`, as a run takes them.
    pub limits: StopLimits,
    /// Bootstrap resamples of the analyses (`None`: the recording's setting).
    pub resamples: Option<usize>,
    /// Replay the rounds in this shuffled order ([`permute_rounds`]; `None` or 0: as recorded).
    pub order: Option<u64>,
}

/// One benchmark under one replayed rule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BenchmarkReplay {
    pub id: String,
    /// Rounds in the recording.
    pub recorded_rounds: usize,
    /// Rounds after which the rule stopped.
    pub rounds: usize,
    /// Stopped at max-forks without the rule being met.
    pub capped: bool,
    pub base_stable: bool,
    pub head_stable: bool,
    /// Samples dropped as warm-up in the kept forks, per side.
    pub warmup_dropped: [usize; 2],
    /// Kept forks that never reached a steady state, per side.
    pub unsteady_forks: [usize; 2],
    pub wall_full_ms: f64,
    pub wall_kept_ms: f64,
    /// `1 − wall_kept / wall_full`.
    pub time_saved: f64,
    pub verdict_full: Outcome,
    pub verdict: Outcome,
    pub agrees: bool,
    /// The full recording's verdict is clear: changed by at least [`CLEAR_CHANGE`] × the
    /// threshold, or unchanged within [`CLEAR_UNCHANGED`] × it, where a verdict does not hang on
    /// the exact place of the threshold.
    #[serde(default)]
    pub clear: bool,
    /// `|mean_dyn / mean_full − 1|` of base and head.
    pub change_rate_sides: [f64; 2],
    /// `|ratio_dyn / ratio_full − 1|` of the head/base ratio of means.
    pub change_rate_ratio: f64,
    /// Time spent in the rule's checkpoints and warm-up detection, ms.
    pub checkpoint_ms: f64,
}

/// A whole suite under one replayed rule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RuleReplay {
    pub rule: StopRule,
    /// The order of the rounds replayed: 0 the recorded order, `k` a seeded shuffle
    /// ([`permute_rounds`]).
    #[serde(default)]
    pub order: u64,
    pub min_forks: usize,
    pub max_forks: usize,
    pub window: usize,
    pub threshold: f64,
    pub totals: ReplayTotals,
    pub benchmarks: Vec<BenchmarkReplay>,
}

/// Suite figures of one replayed rule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct ReplayTotals {
    pub benchmarks: usize,
    /// `1 − Σ wall_kept / Σ wall_full` over the suite.
    pub time_saved: f64,
    /// Fraction of benchmarks whose verdict equals the full recording's.
    pub agreement: f64,
    /// Benchmarks whose full verdict is clear ([`BenchmarkReplay::clear`]).
    #[serde(default)]
    pub clear_benchmarks: usize,
    /// Agreement over the clear benchmarks alone (1 when there are none).
    #[serde(default)]
    pub clear_agreement: f64,
    /// Mean over benchmarks of `max(change rate base, change rate head)`.
    pub mean_change_rate: f64,
    /// Mean over benchmarks of the ratio's change rate.
    pub mean_ratio_change_rate: f64,
    /// Mean rounds run.
    pub mean_rounds: f64,
    /// Benchmarks stopped at max-forks without the rule met.
    pub capped: usize,
    /// Σ checkpoint time / Σ wall time of the kept forks.
    pub checkpoint_overhead: f64,
    /// Fraction of kept forks never steady.
    pub unsteady_fork_fraction: f64,
}

/// Replays `rule` on `file`: where each benchmark would have stopped and what it would have said.
pub fn replay(file: &SampleFile, rule: StopRule, options: &ReplayOptions) -> RuleReplay {
    let settings = replay_settings(file, rule, options);
    let policy = StopPolicy::from_settings(&settings);
    let seed = settings.seed.unwrap_or(0);
    let full_settings = Settings {
        stop: StopRule::Fixed,
        ..settings.clone()
    };

    // The reference: every recorded fork up to max-forks (in the replayed order), warm-up detected
    // by the same detector.
    let mut full = match options.order {
        Some(order) => permute_rounds(file, order),
        None => file.clone(),
    };
    let mut replayed = full.clone();
    // The recording's timings are not the replay's.
    replayed.run.wall_ms = None;
    replayed.run.measure_ms = None;
    replayed.run.phases = None;
    let mut checkpoint_ms = vec![0.0; file.benchmarks.len()];
    for (index, record) in full.benchmarks.iter_mut().enumerate() {
        record.truncate_to_rounds(policy.max_forks);
        let started = Instant::now();
        mark_warmup(record, &policy);
        checkpoint_ms[index] += started.elapsed().as_secs_f64() * 1e3;
        record.stop = None;
    }
    let stops = replay_rounds(&full, &policy, seed, &mut checkpoint_ms);
    for (index, (record, stop)) in full.benchmarks.iter_mut().zip(stops).enumerate() {
        let kept = &mut replayed.benchmarks[index];
        *kept = record.clone();
        if let Some(stop) = stop {
            kept.truncate_to_rounds(stop.rounds);
            kept.stop = Some(stop);
        }
        record.stop = Some(StopRecord {
            rule: StopRule::Fixed.to_string(),
            rounds: record.completed_rounds(),
            ..Default::default()
        });
    }
    let full_report = crate::orchestrate::run::analyse_samples(&full, &full_settings, None);
    let replay_report = crate::orchestrate::run::analyse_samples(&replayed, &settings, None);
    let benchmarks: Vec<BenchmarkReplay> = file
        .benchmarks
        .iter()
        .enumerate()
        .filter(|(_, b)| b.presence == Presence::Both && !b.base.forks.is_empty())
        .filter_map(|(i, b)| {
            let full_result = find(&full_report, &b.id)?;
            let result = find(&replay_report, &b.id)?;
            Some(compare(
                &full.benchmarks[i],
                &replayed.benchmarks[i],
                full_result,
                result,
                checkpoint_ms[i],
            ))
        })
        .collect();
    RuleReplay {
        rule,
        order: options.order.unwrap_or(0),
        min_forks: policy.min_forks,
        max_forks: policy.max_forks,
        window: policy.window,
        threshold: policy.threshold,
        totals: totals(&benchmarks),
        benchmarks,
    }
}

/// The recording with its rounds in another order: order `k` shuffles the round indices with a
/// seed of `k`, the same way for every benchmark, and keeps the base and head forks of a round
/// together. Rounds that ran at the same time stay together across benchmarks, so what a noisy
/// moment did to the whole suite is kept; order 0 is the recorded order.
pub fn permute_rounds(file: &SampleFile, order: u64) -> SampleFile {
    let mut permuted = file.clone();
    if order == 0 {
        return permuted;
    }
    let rounds = file
        .benchmarks
        .iter()
        .map(|b| b.base.forks.len().max(b.head.forks.len()))
        .max()
        .unwrap_or(0);
    let mut positions: Vec<usize> = (0..rounds).collect();
    positions.shuffle(&mut Xoshiro256PlusPlus::seed_from_u64(order));
    for record in &mut permuted.benchmarks {
        for side in [&mut record.base, &mut record.head] {
            let forks = std::mem::take(&mut side.forks);
            side.forks = positions
                .iter()
                .filter_map(|&p| forks.get(p).cloned())
                .collect();
        }
    }
    permuted
}

/// The settings a real run of `rule` would have had: the recording's analysis settings, the
/// current defaults for the stop parameters unless overridden.
pub fn replay_settings(file: &SampleFile, rule: StopRule, options: &ReplayOptions) -> Settings {
    let defaults = Settings::default();
    let recorded = crate::orchestrate::run::recorded_settings(file);
    let recorded_rounds = file
        .benchmarks
        .iter()
        .map(BenchmarkRecord::completed_rounds)
        .max()
        .unwrap_or(0)
        .max(1);
    let max_forks = options
        .limits
        .max_forks
        .unwrap_or(defaults.max_forks)
        .min(recorded_rounds);
    Settings {
        stop: rule,
        min_forks: options
            .limits
            .min_forks
            .unwrap_or(rule.default_min_forks())
            .min(max_forks),
        max_forks,
        forks: max_forks,
        stop_threshold: options.limits.stop_threshold,
        window: options.limits.window.unwrap_or(defaults.window),
        seed: recorded.seed.or(Some(0)),
        resamples: options.resamples.unwrap_or(recorded.resamples),
        ..recorded
    }
}

/// Asks the rule after every round, as the measurement loop does, every benchmark still running
/// at once (a look controls false discoveries over the whole suite as it stands then): where
/// each stopped, `None` for one that never stops within the recording.
fn replay_rounds(
    file: &SampleFile,
    policy: &StopPolicy,
    seed: u64,
    checkpoint_ms: &mut [f64],
) -> Vec<Option<StopRecord>> {
    let mut stops: Vec<Option<StopRecord>> = vec![None; file.benchmarks.len()];
    let mut prefixes = file.clone();
    let rounds = file
        .benchmarks
        .iter()
        .map(BenchmarkRecord::completed_rounds)
        .max()
        .unwrap_or(0);
    for round in 1..=rounds {
        for (index, record) in file.benchmarks.iter().enumerate() {
            if stops[index].is_none() && round <= record.completed_rounds() {
                let prefix = &mut prefixes.benchmarks[index];
                prefix.base.forks = record.base.forks[..round].to_vec();
                prefix.head.forks = record.head.forks[..round].to_vec();
            }
        }
        let p_values = crate::steps::analysis::current_p_values(&prefixes, policy.mode);
        for (index, record) in file.benchmarks.iter().enumerate() {
            if stops[index].is_some() || round > record.completed_rounds() {
                continue;
            }
            let others = crate::steps::analysis::others(&p_values, index);
            let started = Instant::now();
            let stop = policy.evaluate(
                &prefixes.benchmarks[index],
                round,
                seed ^ index as u64,
                &others,
            );
            checkpoint_ms[index] += started.elapsed().as_secs_f64() * 1e3;
            stops[index] = stop.map(|mut stop| {
                stop.checkpoint_ms = checkpoint_ms[index];
                stop
            });
        }
    }
    stops
}

fn mark_warmup(record: &mut BenchmarkRecord, policy: &StopPolicy) {
    for side in [&mut record.base, &mut record.head] {
        side.forks
            .iter_mut()
            .for_each(|fork| policy.mark_warmup(fork));
    }
}

fn find<'a>(report: &'a Report, id: &str) -> Option<&'a BenchmarkResult> {
    report.benchmarks.iter().find(|b| b.id == id)
}

fn wall_ms(forks: &[ForkRecord]) -> f64 {
    forks.iter().map(|f| f.wall_ms.unwrap_or(0.0)).sum()
}

/// `|dyn / full − 1|`; 0 when either is missing (no data to compare).
pub fn relative_change(dynamic: Option<f64>, full: Option<f64>) -> f64 {
    match (dynamic, full) {
        (Some(d), Some(f)) if f != 0.0 => (d / f - 1.0).abs(),
        _ => 0.0,
    }
}

fn compare(
    full_record: &BenchmarkRecord,
    kept_record: &BenchmarkRecord,
    full: &BenchmarkResult,
    kept: &BenchmarkResult,
    checkpoint_ms: f64,
) -> BenchmarkReplay {
    let wall_full_ms = wall_ms(&full_record.base.forks) + wall_ms(&full_record.head.forks);
    let wall_kept_ms = wall_ms(&kept_record.base.forks) + wall_ms(&kept_record.head.forks);
    let stop = kept_record.stop.clone().unwrap_or_default();
    let ratio = |r: &BenchmarkResult| r.ratio.map(|c| c.estimate);
    BenchmarkReplay {
        id: full.id.clone(),
        recorded_rounds: full_record.completed_rounds(),
        rounds: kept_record.completed_rounds(),
        capped: kept_record.stop.as_ref().is_none_or(|s| s.capped),
        base_stable: stop.base_stable,
        head_stable: stop.head_stable,
        warmup_dropped: [kept.base.warmup_dropped, kept.head.warmup_dropped],
        unsteady_forks: [kept.base.unsteady_forks, kept.head.unsteady_forks],
        wall_full_ms,
        wall_kept_ms,
        time_saved: if wall_full_ms > 0.0 {
            1.0 - wall_kept_ms / wall_full_ms
        } else {
            0.0
        },
        verdict_full: full.verdict,
        verdict: kept.verdict,
        agrees: full.verdict == kept.verdict,
        clear: is_clear(full),
        change_rate_sides: [
            relative_change(kept.base.mean_ns, full.base.mean_ns),
            relative_change(kept.head.mean_ns, full.head.mean_ns),
        ],
        change_rate_ratio: relative_change(ratio(kept), ratio(full)),
        checkpoint_ms,
    }
}

/// A full verdict is *clear* from this multiple of the relevance threshold on for a change...
pub const CLEAR_CHANGE: f64 = 2.0;
/// ... and up to this multiple of it for "unchanged".
pub const CLEAR_UNCHANGED: f64 = 0.5;

/// Whether a full recording's verdict is clear ([`BenchmarkReplay::clear`]).
fn is_clear(full: &BenchmarkResult) -> bool {
    let Some(change) = full.ratio.map(|r| (r.estimate - 1.0).abs()) else {
        return false;
    };
    match full.verdict {
        Outcome::Regressed | Outcome::Improved => change >= CLEAR_CHANGE * full.threshold,
        Outcome::Unchanged => change <= CLEAR_UNCHANGED * full.threshold,
        _ => false,
    }
}

fn totals(benchmarks: &[BenchmarkReplay]) -> ReplayTotals {
    let n = benchmarks.len();
    if n == 0 {
        return ReplayTotals::default();
    }
    let mean =
        |f: &dyn Fn(&BenchmarkReplay) -> f64| benchmarks.iter().map(f).sum::<f64>() / n as f64;
    let full: f64 = benchmarks.iter().map(|b| b.wall_full_ms).sum();
    let kept: f64 = benchmarks.iter().map(|b| b.wall_kept_ms).sum();
    let checkpoint: f64 = benchmarks.iter().map(|b| b.checkpoint_ms).sum();
    let forks: usize = benchmarks.iter().map(|b| 2 * b.rounds).sum();
    let clear: Vec<&BenchmarkReplay> = benchmarks.iter().filter(|b| b.clear).collect();
    let unsteady: usize = benchmarks
        .iter()
        .map(|b| b.unsteady_forks[0] + b.unsteady_forks[1])
        .sum();
    ReplayTotals {
        benchmarks: n,
        time_saved: if full > 0.0 { 1.0 - kept / full } else { 0.0 },
        agreement: mean(&|b| f64::from(u8::from(b.agrees))),
        clear_benchmarks: clear.len(),
        clear_agreement: if clear.is_empty() {
            1.0
        } else {
            clear.iter().filter(|b| b.agrees).count() as f64 / clear.len() as f64
        },
        mean_change_rate: mean(&|b| b.change_rate_sides[0].max(b.change_rate_sides[1])),
        mean_ratio_change_rate: mean(&|b| b.change_rate_ratio),
        mean_rounds: mean(&|b| b.rounds as f64),
        capped: benchmarks.iter().filter(|b| b.capped).count(),
        checkpoint_overhead: if kept > 0.0 { checkpoint / kept } else { 0.0 },
        unsteady_fork_fraction: if forks > 0 {
            unsteady as f64 / forks as f64
        } else {
            0.0
        },
    }
}

/// Suite figures of one rule over several orders of the rounds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OrdersSummary {
    pub rule: StopRule,
    pub orders: usize,
    /// Each total's mean over the orders.
    pub mean: ReplayTotals,
    /// The lowest agreement of any order.
    pub worst_agreement: f64,
    /// The lowest time saved of any order.
    pub worst_time_saved: f64,
}

/// Groups replays by rule (in first-seen order) and summarises each rule over its orders.
pub fn summarise_orders(results: &[RuleReplay]) -> Vec<OrdersSummary> {
    let mut rules: Vec<StopRule> = Vec::new();
    for r in results {
        if !rules.contains(&r.rule) {
            rules.push(r.rule);
        }
    }
    rules
        .into_iter()
        .map(|rule| {
            let of_rule: Vec<&ReplayTotals> = results
                .iter()
                .filter(|r| r.rule == rule)
                .map(|r| &r.totals)
                .collect();
            let n = of_rule.len() as f64;
            let mean = |f: fn(&ReplayTotals) -> f64| of_rule.iter().map(|t| f(t)).sum::<f64>() / n;
            let worst = |f: fn(&ReplayTotals) -> f64| {
                of_rule.iter().map(|t| f(t)).fold(f64::INFINITY, f64::min)
            };
            OrdersSummary {
                rule,
                orders: of_rule.len(),
                mean: ReplayTotals {
                    benchmarks: of_rule.first().map_or(0, |t| t.benchmarks),
                    time_saved: mean(|t| t.time_saved),
                    agreement: mean(|t| t.agreement),
                    clear_benchmarks: of_rule.first().map_or(0, |t| t.clear_benchmarks),
                    clear_agreement: mean(|t| t.clear_agreement),
                    mean_change_rate: mean(|t| t.mean_change_rate),
                    mean_ratio_change_rate: mean(|t| t.mean_ratio_change_rate),
                    mean_rounds: mean(|t| t.mean_rounds),
                    capped: (mean(|t| t.capped as f64)).round() as usize,
                    checkpoint_overhead: mean(|t| t.checkpoint_overhead),
                    unsteady_fork_fraction: mean(|t| t.unsteady_fork_fraction),
                },
                worst_agreement: worst(|t| t.agreement),
                worst_time_saved: worst(|t| t.time_saved),
            }
        })
        .collect()
}

/// "98.5% of 12": the agreement over the clear benchmarks and how many there are.
fn clear_cell(totals: &ReplayTotals) -> String {
    format!(
        "{:.1}% of {}",
        totals.clear_agreement * 100.0,
        totals.clear_benchmarks
    )
}

/// The table of [`summarise_orders`]: one row per rule, means over the orders and the worst.
pub fn render_orders_table(results: &[RuleReplay]) -> String {
    let mut out = format!(
        "{:<8} {:>6} {} {:>11} {:>11}\n",
        "rule",
        "orders",
        totals_header(),
        "worst agree",
        "worst saved"
    );
    for summary in summarise_orders(results) {
        out.push_str(&format!(
            "{:<8} {:>6} {} {:>10.1}% {:>10.1}%\n",
            summary.rule.to_string(),
            summary.orders,
            totals_cells(&summary.mean),
            summary.worst_agreement * 100.0,
            summary.worst_time_saved * 100.0
        ));
    }
    out
}

/// The headers of the suite figures both tables show, from `bench` to `overhead`.
fn totals_header() -> String {
    format!(
        "{:>5} {:>9} {:>10} {:>7} {:>12} {:>12} {:>12} {:>9}",
        "bench",
        "forks",
        "time saved",
        "agree",
        "agree(clear)",
        "change(side)",
        "change(ratio)",
        "overhead"
    )
}

/// The cells under [`totals_header`].
fn totals_cells(t: &ReplayTotals) -> String {
    format!(
        "{:>5} {:>9.1} {:>9.1}% {:>6.1}% {:>12} {:>11.2}% {:>12.2}% {:>8.3}%",
        t.benchmarks,
        t.mean_rounds,
        t.time_saved * 100.0,
        t.agreement * 100.0,
        clear_cell(t),
        t.mean_change_rate * 100.0,
        t.mean_ratio_change_rate * 100.0,
        t.checkpoint_overhead * 100.0
    )
}

/// The suite table (one row per rule), and with `verbose` one row per benchmark and rule.
pub fn render_table(results: &[RuleReplay], verbose: bool) -> String {
    let mut out = format!(
        "{:<8} {} {:>7} {:>9}\n",
        "rule",
        totals_header(),
        "capped",
        "unsteady"
    );
    for r in results {
        let t = &r.totals;
        out.push_str(&format!(
            "{:<8} {} {:>7} {:>8.1}%\n",
            r.rule.to_string(),
            totals_cells(t),
            t.capped,
            t.unsteady_fork_fraction * 100.0
        ));
    }
    if verbose {
        for r in results {
            out.push_str(&format!("\n{}:\n", r.rule));
            for b in &r.benchmarks {
                out.push_str(&format!(
                    "  {:<40} {:>2}/{:<2} saved {:>5.1}%  {:>12} -> {:<12} {} change {:.2}%/{:.2}% ratio {:.2}%{}\n",
                    b.id,
                    b.rounds,
                    b.recorded_rounds,
                    b.time_saved * 100.0,
                    b.verdict_full.as_str(),
                    b.verdict.as_str(),
                    if b.agrees { "agree" } else { "DIFFER" },
                    b.change_rate_sides[0] * 100.0,
                    b.change_rate_sides[1] * 100.0,
                    b.change_rate_ratio * 100.0,
                    if b.capped { " capped" } else { "" }
                ));
            }
        }
    }
    out
}
