//! Stop rules: when to stop treating samples as warm-up, and when to stop adding forks.
//!
//! Dynamic reconfiguration (Laaber et al., FSE 2020; METHOD.md) has two checkpoints:
//!
//! 1. **Warm-up, inside a fork.** cargo-perfdiff cannot stop criterion's warm-up from outside, so
//!    it replays the paper's rule (eq. 1) on the fork's sample series: after each sample
//!    `i'' >= wi_min` the iteration-weighted CV is computed on `m[i'..=x]` for `i' < x <= i''`
//!    with `i' = i'' − window`; the first flat window vector (range at most the larger of 1 % and
//!    the fork's own steady noise) ends the warm-up and samples `0..i'` are dropped. A fork that is
//!    never flat within `wi_max` (half the fork) keeps all samples and is flagged `unsteady`.
//! 2. **Forks, after each round.** `cv`, `rciw`, `kld`: the criterion on the union of forks
//!    `1..x` for the last `window` prefixes `x` (eq. 2); a side is stable when they are. A
//!    benchmark stops when both sides are stable and at least `min_forks` rounds ran, or at
//!    `max_forks` (flagged `capped`).
//!
//! The `decided` rule goes beyond the paper: it stops when the *comparison* is decided, i.e. the
//! verdict is already `regressed`, `improved` or `unchanged` at a level corrected for the repeated
//! looks (Bonferroni over looks at `min_forks`, 1.5 times as many forks each time, and
//! `max_forks`) and a t interval on the fork means agrees, or when the noise leaves no chance to
//! decide by `max_forks` (futility). A look at two forks per side (the default `min_forks` under
//! `decided`) decides only large changes and spends a small share of alpha; a later look left with
//! two forks on a side by a disturbed one decides nothing. Looks and final
//! analysis leave out disturbed forks (`stats::disturbed`). The final analysis of a run under
//! `decided` uses the last look's level and asks the same agreement, so the A/A false-alarm rate
//! stays at most alpha (`tests/offline/stop_decided_simulation.rs`). Evaluation and the choice of
//! defaults: `docs/design/stop-rule.md` and `docs/design/replay.md`; for users, `docs/stopping.md`.

use std::time::Duration;

use crate::model::policy::StopRule;
use crate::model::samples::Mode;
use crate::model::samples::{BenchmarkRecord, ForkRecord, SideRecord, StopRecord};
use crate::stats::stability::{self, Criterion};
use crate::stats::{self, Evidence, PairedRounds, Verdict};
use crate::steps::analysis::AnalysisSettings;

/// Minimum samples considered warm-up candidates in a fork (the paper's `wi_min`).
pub const WARMUP_MIN: usize = 5;
/// Maximum samples treated as warm-up in a fork (the paper's `wi_max`, scaled to criterion's
/// sample counts: at most half the fork).
pub const WARMUP_MAX_FRACTION: f64 = 0.5;
/// Threshold of the warm-up checkpoint: `max − min` of the window's weighted CVs (tuned on
/// recorded criterion forks, see `docs/design/warm-up.md`).
pub const WARMUP_THRESHOLD: f64 = 0.01;
/// The warm-up window may vary by this multiple of the fork's steady noise (tuned with
/// `scripts/stop_tune_warmup.py` on recorded forks, see `docs/design/warm-up.md`).
pub const WARMUP_NOISE_FACTOR: f64 = 1.0;
/// Bounds of the adaptive warm-up time per fork.
pub const WARMUP_TIME_MIN: Duration = Duration::from_millis(100);
pub const WARMUP_TIME_MAX: Duration = Duration::from_secs(3);
/// Each look of the `decided` rule comes after this many times the forks of the previous one
/// (rounded up).
pub const LOOK_GROWTH: f64 = 1.5;
/// A change of at least this many relevance thresholds (5 × 2 % = 10 % by default) is *large*:
/// the futility stop does not give up a benchmark whose estimate is that large (unless the noise
/// explains it, [`FUTILITY_LARGE_CHANGE_MIN_SE`]).
const LARGE_CHANGE_THRESHOLDS: f64 = 5.0;
/// The large-change guard of the futility stop keeps an estimate only if it lies at least this
/// many standard errors from no change: on a noisy host three rounds often estimate 10 % by
/// chance, and the guard then ran such benchmarks to `max-forks` for nothing
/// (`docs/design/stop-rule.md`, "The large-change guard on a noisy machine").
const FUTILITY_LARGE_CHANGE_MIN_SE: f64 = 2.0;
/// Futility judges whether a verdict is in reach with the mean over `max-forks` rounds moved as
/// far as the rounds still to run can plausibly move it: their mean this many of its standard
/// errors (`sd / √remaining`) from the current estimate, which moves the final mean by
/// `z·sd·√remaining / max-forks`, towards no change for "unchanged" and away from it for a
/// change. With the estimate taken as the truth, an unchanged benchmark whose three rounds
/// showed −1.3 % by chance was given up (a live demo run), and a change judged at its estimate
/// gave up +3 % changes that the last rounds would have found (simulated power 89 %; 91 % with
/// the allowance on both sides). 1.5 rather than 2: with futility judged after every round, 2
/// kept benchmarks that could reach neither verdict for 1–2 points more of the recordings' time
/// (`docs/design/equivalence-and-futility.md`, "Second session of attempts").
const FUTILITY_FUTURE_SE: f64 = 1.5;
/// Before `max-forks`, a look stops a benchmark only if its verdict also holds with the threshold
/// moved against it by this factor: a change must reach threshold × margin, an "unchanged"
/// interval must fit in ±threshold / margin. Near-threshold results are where few rounds and ten
/// disagree.
const EARLY_VERDICT_MARGIN: f64 = 1.1;
/// An early `regressed` or `improved` from this many analysed rounds on must also hold with the
/// farthest round left out ([`StopPolicy::decided_robustly`]). With three, two rounds would be
/// left, whose one-degree-of-freedom interval decides nothing; and three rounds cannot be
/// carried by one: at the look's level their t quantile is 22, so a round far enough to lift
/// the estimate past the margin widens the interval across 1.
const ROBUST_CHANGE_FROM_ROUNDS: usize = 4;
/// A look after fewer rounds than this has a t interval with one degree of freedom (its quantile
/// at a per-look level is in the hundreds): it decides only what has no spread at all, such as
/// identical rounds, and gives nothing up.
const SMALL_LOOK_BELOW_ROUNDS: usize = 3;
/// The share of alpha a look of [`SMALL_LOOK_BELOW_ROUNDS`] spends; the other looks share the
/// rest (the last one [`LAST_LOOK_ALPHA_SHARE`]).
const SMALL_LOOK_ALPHA_SHARE: f64 = 0.05;
/// The share of alpha the last look (at `max-forks`) spends when there are looks between it and
/// the first: the rest, after a small look's, is shared equally by those. A benchmark that
/// reaches the cap is judged on the same rounds as a fixed run of `max-forks`, so its level
/// decides how often the two agree; the early looks decide the clear changes, for which a
/// smaller level costs little (`docs/design/stop-rule.md`, "The last look's share of alpha").
const LAST_LOOK_ALPHA_SHARE: f64 = 0.35;
/// Power that the futility stop's "rounds it would take" aims for.
const ROUNDS_NEEDED_POWER: f64 = 0.8;
/// A fork is measured again when it is more than this much slower than every earlier fork of
/// its side: the floor of a disturbed round ([`stats::disturbed::DISTURBED_MIN_EXCESS`]), so a
/// fork's ordinary spread and its code layout's effect (a few per cent) never trigger it.
pub const REMEASURE_MIN_EXCESS: f64 = stats::disturbed::DISTURBED_MIN_EXCESS;
/// Earlier forks of its side a fork is judged against; with fewer, a slow fork cannot be told
/// from a slow side.
pub const REMEASURE_AFTER_FORKS: usize = 2;
/// At most this many forks of one benchmark (both sides together) are measured again in a run:
/// a benchmark whose forks are often that far apart (per-process spread, a drift) costs at most
/// this many forks more, and its spread is left to the analysis.
pub const REMEASURE_AT_MOST: usize = 2;

/// What the stop rules take of a run's settings (the configuration layer builds it from its
/// `Settings`).
#[derive(Debug, Clone, PartialEq)]
pub struct StopSettings {
    /// When to stop adding forks.
    pub rule: StopRule,
    /// Rounds for the `fixed` rule.
    pub forks: usize,
    /// Rounds always run before a stop rule may stop a benchmark.
    pub min_forks: usize,
    /// Rounds after which a benchmark stops whatever its rule says.
    pub max_forks: usize,
    /// Threshold of the stop rule (`None`: the rule's published default).
    pub stop_threshold: Option<f64>,
    /// Sliding window length of the stop rules.
    pub window: usize,
    /// Interleaved forks or duet pairs.
    pub mode: Mode,
    /// The verdicts' parameters, which the `decided` rule judges by.
    pub verdict: AnalysisSettings,
}

/// The stop rule of a run with its parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct StopPolicy {
    pub rule: StopRule,
    pub min_forks: usize,
    pub max_forks: usize,
    pub window: usize,
    /// Threshold of the stability criterion (CV, RCIW, KLD).
    pub threshold: f64,
    /// Criterion used for warm-up detection (CV unless the rule names another).
    pub warmup_criterion: Criterion,
    pub warmup_threshold: f64,
    /// Verdict parameters for the `decided` rule.
    pub alpha: f64,
    /// Level of each one-sided test of equivalence, spent over the looks as `alpha` is.
    pub equivalence_alpha: f64,
    /// The relevance threshold of benchmarks no override names.
    pub relevance: f64,
    /// The same for instruction records (`ID (instructions)`).
    pub instructions_relevance: f64,
    /// The per-benchmark overrides of the settings, so that every look judges a benchmark by the
    /// threshold its final verdict will use ([`crate::model::policy::threshold_for`]).
    pub overrides: std::collections::BTreeMap<String, crate::model::policy::BenchOverride>,
    /// Interleaved or duet: the `decided` rule judges the comparison with the statistics the
    /// verdict will use (duet runs are paired by round).
    pub mode: crate::model::samples::Mode,
    /// Whether a change must survive false-discovery control over the suite, at every look as in
    /// the final verdict.
    pub fdr: bool,
}

impl StopPolicy {
    pub fn from_settings(settings: impl Into<StopSettings>) -> Self {
        let settings: StopSettings = settings.into();
        let verdict = &settings.verdict;
        let criterion = criterion_of(settings.rule);
        let (min_forks, max_forks) = match settings.rule {
            StopRule::Fixed => (settings.forks, settings.forks),
            _ => (
                settings.min_forks.max(2),
                settings.max_forks.max(settings.min_forks.max(2)),
            ),
        };
        // The warm-up checkpoint always uses the (iteration-weighted) CV: KLD densities and
        // bootstrap CIs of five or six sample means say nothing (see `docs/design/warm-up.md`).
        let warmup_criterion = Criterion::Cv;
        StopPolicy {
            rule: settings.rule,
            min_forks,
            max_forks,
            window: settings.window.max(2),
            threshold: settings
                .stop_threshold
                .or(criterion.map(Criterion::default_threshold))
                .unwrap_or(0.0),
            warmup_criterion,
            warmup_threshold: WARMUP_THRESHOLD,
            alpha: verdict.alpha,
            equivalence_alpha: verdict.equivalence_alpha,
            relevance: verdict.threshold,
            instructions_relevance: verdict.instructions_threshold,
            overrides: verdict.overrides.clone(),
            mode: settings.mode,
            fdr: verdict.fdr,
        }
    }

    /// The relevance threshold for benchmark `id`, after per-benchmark overrides.
    pub fn relevance_for(&self, id: &str) -> f64 {
        let defaults = (self.relevance, self.instructions_relevance);
        crate::model::policy::threshold_for(&self.overrides, defaults, id)
    }

    /// Rounds after which every benchmark stops.
    pub fn max_rounds(&self) -> usize {
        self.max_forks
    }

    /// The rounds after which the `decided` rule looks at the comparison: `min_forks`, then
    /// [`LOOK_GROWTH`] times as many rounds each time, and always `max_forks` (2, 3, 5, 8, 10; with
    /// 20: 2, 3, 5, 8, 12, 18, 20; with `--min-forks 3`: 3, 5, 8, 10). Every look costs alpha
    /// (Bonferroni, `alpha_share`), but the paired t quantile falls fast with the rounds (21 at
    /// three, 7.0 at five, 4.8 at eight, for the 21.7 % of alpha 0.01 each look between the
    /// first and the last spends), so an early second look decides much that the first could
    /// not (`docs/design/stop-rule.md`).
    pub fn looks(&self) -> Vec<usize> {
        let mut looks = vec![self.min_forks];
        let mut next = self.min_forks;
        while next < self.max_forks {
            next = ((next as f64 * LOOK_GROWTH).ceil() as usize)
                .max(next + 1)
                .min(self.max_forks);
            looks.push(next);
        }
        looks
    }

    /// The settings the final analysis must use: under `decided`, alpha and the CI level are
    /// split over the looks so repeated looking does not inflate false alarms.
    pub fn analysis_settings(&self, settings: &AnalysisSettings) -> AnalysisSettings {
        let mut adjusted = settings.clone();
        if self.rule == StopRule::Decided {
            let share = self.alpha_share(self.max_forks);
            adjusted.alpha = settings.alpha * share;
            adjusted.equivalence_alpha = settings.equivalence_alpha * share;
            adjusted.confidence = 1.0 - (1.0 - settings.confidence) * share;
        }
        adjusted
    }

    /// The levels of both tests at the look after `rounds`: each its share of its own budget.
    fn levels_at(&self, rounds: usize) -> stats::Levels {
        stats::Levels {
            alpha: self.alpha,
            equivalence_alpha: self.equivalence_alpha,
        }
        .scaled(self.alpha_share(rounds))
    }

    /// Whether the look after `rounds` is a small one ([`SMALL_LOOK_BELOW_ROUNDS`]), unless it is
    /// the last look (`max-forks` 2).
    fn small_look(&self, rounds: usize) -> bool {
        rounds < SMALL_LOOK_BELOW_ROUNDS && rounds < self.max_forks
    }

    /// The share of alpha the `decided` rule's look after `rounds` spends (Bonferroni over the
    /// looks, the shares summing to 1): a small look [`SMALL_LOOK_ALPHA_SHARE`], the last look
    /// [`LAST_LOOK_ALPHA_SHARE`], every look between them an equal part of the rest (the last
    /// look takes all that is left when there is none between). The last look's share is also
    /// the level of the final analysis.
    fn alpha_share(&self, rounds: usize) -> f64 {
        let looks = self.looks();
        let small_looks = looks.iter().filter(|&&r| self.small_look(r)).count();
        if self.small_look(rounds) {
            return SMALL_LOOK_ALPHA_SHARE / small_looks as f64;
        }
        let full_share = if small_looks == 0 {
            1.0
        } else {
            1.0 - SMALL_LOOK_ALPHA_SHARE
        };
        // The last look is never a small one, so it is one of the full looks.
        let between = looks.len() - small_looks - 1;
        match (between, rounds >= self.max_forks) {
            (0, _) => full_share,
            (_, true) => LAST_LOOK_ALPHA_SHARE,
            (_, false) => (full_share - LAST_LOOK_ALPHA_SHARE) / between as f64,
        }
    }

    /// Finds the steady state of a fork and marks the samples before it as warm-up.
    /// A fork that gave one value ([`ForkRecord::per_fork`]) has no warm-up to find: its harness
    /// warmed up before summarising, and it is steady by definition.
    pub fn mark_warmup(&self, fork: &mut ForkRecord) {
        if fork.per_fork.is_some() {
            fork.warmup_dropped = Some(0);
            fork.unsteady = false;
            return;
        }
        let values: Vec<f64> = fork
            .iters
            .iter()
            .zip(&fork.times_ns)
            .map(|(iters, time)| time / iters)
            .collect();
        let (dropped, steady) = self.steady_state_start_weighted(&values, &fork.iters);
        fork.warmup_dropped = Some(dropped);
        fork.unsteady = !steady;
    }

    /// The paper's warm-up checkpoint (eq. 1) on one fork's samples: after sample `i''` (from
    /// [`WARMUP_MIN`] on, at most `wi_max`), the window vector holds the criterion on
    /// `m[i'..=x]` for `i' < x <= i''`, `i' = i'' − window`; the first flat vector ends the
    /// warm-up and the samples before `i'` are dropped. Flat: `max − min` at most the paper's
    /// threshold or [`WARMUP_NOISE_FACTOR`] × the weighted CV of the fork's second half, whichever
    /// is larger: criterion has already warmed up, so what is left to find is a start that is
    /// off by more than the fork's own noise; a fixed 1 % flagged 86 % of the forks of a loaded
    /// machine "never steady" (`docs/design/warm-up.md`).
    ///
    /// The criterion is the coefficient of variation **weighted by iterations**: criterion's
    /// linear sampling gives sample `i` `i·d` iterations, so a per-iteration value's variance is
    /// proportional to `1/iters`, and the short first samples would otherwise decide alone.
    /// Returns `(0, false)` when no steady state is found: the fork keeps all its samples and is
    /// flagged.
    pub fn steady_state_start_weighted(&self, values: &[f64], weights: &[f64]) -> (usize, bool) {
        let n = values.len();
        let window = self.window;
        let wi_max = ((n as f64 * WARMUP_MAX_FRACTION) as usize).max(WARMUP_MIN);
        // The fork's own steady noise: the second half is never a warm-up candidate.
        let noise = weighted_cv(&values[n / 2..], &weights[n / 2..]);
        let threshold = if noise.is_finite() {
            self.warmup_threshold.max(WARMUP_NOISE_FACTOR * noise)
        } else {
            self.warmup_threshold
        };
        for end in WARMUP_MIN.max(window)..=wi_max.min(n.saturating_sub(1)) {
            let start = end - window;
            let vector: Vec<f64> = (start + 1..=end)
                .map(|x| weighted_cv(&values[start..=x], &weights[start..=x]))
                .collect();
            if vector.iter().all(|v| v.is_finite())
                && stability::is_stable(Criterion::Cv, &vector, threshold)
            {
                return (start, true);
            }
        }
        (0, false)
    }

    /// Warm-up time to ask criterion for in this side's next fork, from what the last fork
    /// needed: criterion's warm-up plus the samples the detector dropped (their time), or a
    /// quarter less when nothing was dropped. A fork without a steady state says nothing about
    /// the warm-up it needed (noise, not warm-up, is the usual cause), so it changes nothing.
    /// Always within [`WARMUP_TIME_MIN`, `WARMUP_TIME_MAX`].
    pub fn next_warm_up(&self, side: &SideRecord, current: Duration) -> Duration {
        let Some(last) = side.forks.last() else {
            return current;
        };
        let dropped = last.warmup_dropped.unwrap_or(0);
        let dropped_ns = dropped_wall_ns(last, dropped);
        let adjusted = if last.unsteady {
            current
        } else if dropped == 0 {
            current.mul_f64(0.75)
        } else {
            current + Duration::from_nanos(dropped_ns as u64)
        };
        adjusted.clamp(WARMUP_TIME_MIN, WARMUP_TIME_MAX)
    }

    /// Whether `fork`, just measured for `side` of `record` (its warm-up marked), is measured
    /// again: a fork its own samples show disturbed, more than [`REMEASURE_MIN_EXCESS`] slower
    /// than every earlier fork of its side (from [`REMEASURE_AFTER_FORKS`] on). Disturbances only
    /// add time, and a fork is judged against its own side, so a change between the sides plays
    /// no part and the rule is the same for both. Only under `decided` in interleaved mode (a
    /// duet fork's partner shares its disturbance, and a fixed run measures as asked); a fork
    /// that replaces a disturbed one is not judged again, and at most [`REMEASURE_AT_MOST`] forks
    /// of a benchmark are measured again. Removing the same upper tail from both sides leaves
    /// the ratio of an A/A comparison centred on 1 (error control in
    /// `tests/offline/calibrated_simulation.rs`, `docs/design/stop-rule.md`).
    pub fn remeasures(
        &self,
        record: &BenchmarkRecord,
        side: &SideRecord,
        fork: &ForkRecord,
    ) -> bool {
        let remeasured = |s: &SideRecord| s.forks.iter().filter(|f| f.remeasured.is_some()).count();
        if self.rule != StopRule::Decided
            || self.mode != Mode::Interleaved
            || fork.remeasured.is_some()
            || remeasured(&record.base) + remeasured(&record.head) >= REMEASURE_AT_MOST
        {
            return false;
        }
        let level = |f: &ForkRecord| stats::descriptive::mean(&f.per_iteration_ns());
        let earlier: Vec<f64> = side
            .forks
            .iter()
            .filter(|f| !f.set_aside && !f.per_iteration_ns().is_empty())
            .map(level)
            .filter(|l| l.is_finite() && *l > 0.0)
            .collect();
        let Some(slowest_earlier) = earlier.iter().copied().reduce(f64::max) else {
            return false;
        };
        let this = level(fork);
        earlier.len() >= REMEASURE_AFTER_FORKS
            && this.is_finite()
            && this > slowest_earlier * (1.0 + REMEASURE_MIN_EXCESS)
    }

    /// After a round: whether benchmark `record` should stop, with why. `others` are the
    /// p-values of the paired tests of the run's other benchmarks at this moment (NaN where there
    /// is none yet, [`crate::steps::analysis::current_p_values`]): under `decided` a look calls a change
    /// only if it survives false-discovery control among them, as the final verdict will.
    pub fn evaluate(
        &self,
        record: &BenchmarkRecord,
        rounds: usize,
        seed: u64,
        others: &[f64],
    ) -> Option<StopRecord> {
        let mut futile = false;
        let (base_stable, head_stable, details) = match self.rule {
            StopRule::Fixed => (true, true, Vec::new()),
            StopRule::Cv | StopRule::Rciw | StopRule::Kld => {
                let criterion = criterion_of(self.rule).expect("stability rule");
                let (b, bv) = self.side_stable(criterion, &record.base, seed);
                let (h, hv) = self.side_stable(criterion, &record.head, seed ^ 1);
                (b, h, vec![("base_sc", bv), ("head_sc", hv)])
            }
            StopRule::Decided => {
                let look = self.looks().contains(&rounds);
                if !look && !self.futility_round(rounds) {
                    return None;
                }
                let rounds_run = crate::steps::analysis::round_values(
                    &record.analysed_pairs(self.mode),
                    self.mode,
                );
                let paired = PairedRounds::of(&rounds_run).ok();
                let relevance = self.relevance_for(&record.id);
                // Between looks only futility is judged: it spends no alpha.
                let decided = look && self.decided_robustly(&rounds_run, relevance, rounds, others);
                // Futility judges the rounds as they will look once a disturbed one is left out.
                let hopeful = PairedRounds::of(&stats::rounds::without_farthest(&rounds_run)).ok();
                futile = !decided
                    && paired.is_some_and(|p| self.open_at_final_level(&p, relevance, others))
                    && hopeful.is_some_and(|h| self.futile(&h, rounds, relevance));
                let mut details = vec![("futile", Some(f64::from(u8::from(futile))))];
                if futile {
                    let needed = hopeful
                        .and_then(|h| self.rounds_needed(&h, relevance))
                        .map(|n| n as f64);
                    details.push(("rounds_needed", needed));
                }
                (decided, decided, details)
            }
        };
        let met = (base_stable && head_stable || futile) && rounds >= self.min_forks;
        let capped = rounds >= self.max_forks;
        if !(met || capped) {
            return None;
        }
        let mut details: std::collections::BTreeMap<String, f64> = details
            .into_iter()
            .filter_map(|(k, v)| v.map(|v| (k.to_string(), v)))
            .collect();
        details.extend(self.paper_rules_met(record, seed));
        Some(StopRecord {
            rule: self.rule.to_string(),
            rounds,
            base_stable,
            head_stable,
            capped: capped && !met && self.rule != StopRule::Fixed,
            // The caller times its checkpoints and fills in their total.
            checkpoint_ms: 0.0,
            details,
        })
    }

    /// For the report, whatever rule is in force: whether each of the paper's stability rules
    /// (at its default threshold) was met per side when the benchmark stopped, as
    /// `cv_met_base`, `cv_met_head`, … with 1 for met and 0 for not.
    fn paper_rules_met(&self, record: &BenchmarkRecord, seed: u64) -> Vec<(String, f64)> {
        let mut met = Vec::new();
        for criterion in [Criterion::Cv, Criterion::Rciw, Criterion::Kld] {
            let probe = StopPolicy {
                threshold: criterion.default_threshold(),
                ..self.clone()
            };
            let name = format!("{criterion:?}").to_lowercase();
            for (side_name, side, side_seed) in [
                ("base", &record.base, seed),
                ("head", &record.head, seed ^ 1),
            ] {
                let (stable, _) = probe.side_stable(criterion, side, side_seed);
                met.push((
                    format!("{name}_met_{side_name}"),
                    f64::from(u8::from(stable)),
                ));
            }
        }
        met
    }

    /// Whether one side's fork series is stable, and the latest criterion value.
    fn side_stable(
        &self,
        criterion: Criterion,
        side: &SideRecord,
        seed: u64,
    ) -> (bool, Option<f64>) {
        let forks: Vec<Vec<f64>> = side
            .per_iteration_by_fork()
            .into_iter()
            .map(|f| stability::drop_outliers(&f))
            .collect();
        // Only the last `window` prefixes matter (fewer while there are fewer forks, at least 2).
        let latest = stability::latest_prefix_values(criterion, &forks, seed, self.window);
        let last = latest.last().copied().flatten();
        let window: Vec<f64> = latest.into_iter().flatten().collect();
        if window.len() < 2 {
            return (false, last);
        }
        (
            stability::is_stable(criterion, &window, self.threshold),
            last,
        )
    }

    /// Whether futility is judged after `rounds`: after every round from the first look with a
    /// spread (three rounds) to the last but one, looks or not. Giving up spends no alpha (it
    /// only ever leaves a benchmark `inconclusive`), so it need not wait for a look; judged only
    /// at the looks, a benchmark hopeless after four rounds ran to five, and one after six to
    /// eight.
    fn futility_round(&self, rounds: usize) -> bool {
        rounds < self.max_forks && !self.small_look(rounds)
    }

    /// Whether the verdict is decided at the look after `rounds` ([`StopPolicy::decided`]) on
    /// `rounds_run` and, for an early `regressed` or `improved` from
    /// [`ROBUST_CHANGE_FROM_ROUNDS`] analysed rounds on, also on them with the round farthest
    /// from the others left out ([`stats::rounds::without_farthest`]): no early change hinges on
    /// one round. Rounds at +2.1 % and one at +5.4 % once called a 2 % threshold's `regressed`
    /// after eight rounds, by the estimate that one round lifted to +2.5 %; heavy tails make
    /// such rounds common (one fork in twelve 21 % slow, issue #56). An early `unchanged` needs
    /// no such check: a round a distance `Δ` from the others moves the estimate by `Δ/n`
    /// towards it but widens the equivalence interval by about `t·Δ/n`, with `t > 1`, so a far
    /// round only ever keeps `unchanged` away. An early decision now needs both checks, a subset
    /// of what it needed before, so each look's errors stay within its share
    /// (`docs/design/calibrated-simulation.md`).
    fn decided_robustly(
        &self,
        rounds_run: &[stats::Round],
        relevance: f64,
        rounds: usize,
        others: &[f64],
    ) -> bool {
        let verdict = |rounds_run: &[stats::Round]| {
            PairedRounds::of(rounds_run)
                .ok()
                .and_then(|p| self.decided(&p, relevance, rounds, others))
        };
        match verdict(rounds_run) {
            None => false,
            Some(Verdict::Unchanged) => true,
            Some(_) if rounds >= self.max_forks => true,
            Some(_) if rounds_run.len() < ROBUST_CHANGE_FROM_ROUNDS => true,
            Some(change) => verdict(&stats::rounds::without_farthest(rounds_run)) == Some(change),
        }
    }

    /// Futility: the comparison cannot be decided by `max_forks` if the rounds' spread stays
    /// what it is. With `hw_eq` and `hw` the half-widths of the paired t intervals projected to
    /// `max_forks` rounds at the last look's levels (two one-sided tests at `alpha_eq`, the
    /// difference test at `alpha`), `d` the current mean log ratio and `shift` how far the rounds
    /// still to run can move the final mean ([`FUTILITY_FUTURE_SE`]): "unchanged" needs
    /// `max(0, |d| − shift) + hw_eq <= relevance`, a change needs `|d| + shift > hw` and
    /// `e^(|d| + shift) − 1 >= relevance`; when neither is in reach, more rounds are wasted time.
    /// `paired` are the rounds with the farthest one left out
    /// ([`stats::rounds::without_farthest`]), so after three rounds the two closest judge: three
    /// rounds cannot tell a hopeless benchmark from one disturbed round among two good ones, and
    /// only when even the two closest are hopeless is it given up. Stopping earlier never adds a
    /// false alarm path: a benchmark is given up only when the final analysis, at the last look's
    /// levels, leaves it inconclusive ([`StopPolicy::open_at_final_level`]).
    fn futile(&self, paired: &PairedRounds, rounds: usize, relevance: f64) -> bool {
        if !self.futility_round(rounds) {
            return false;
        }
        let remaining = (self.max_forks - rounds) as f64;
        let (hw_difference, hw_equivalence) = self.half_widths_at_cap(paired.sd_log);
        let d = paired.mean_log;
        let se_now = paired.se();
        let shift = FUTILITY_FUTURE_SE * paired.sd_log * remaining.sqrt() / self.max_forks as f64;
        let smallest = (d.abs() - shift).max(0.0);
        let largest = d.abs() + shift;
        let unchanged_reachable = smallest + hw_equivalence <= relevance;
        let change_reachable = largest > hw_difference && largest.exp() - 1.0 >= relevance;
        // A large estimated change is not given up: it is what the user most needs to see, and
        // a noise burst is the likeliest reason it is not yet significant. Unless the noise
        // alone could explain it (see [`FUTILITY_LARGE_CHANGE_MIN_SE`]).
        let large_change = (d.exp() - 1.0).abs() >= LARGE_CHANGE_THRESHOLDS * relevance
            && d.abs() >= FUTILITY_LARGE_CHANGE_MIN_SE * se_now;
        !(unchanged_reachable || change_reachable || large_change)
    }

    /// Whether the final analysis, at the last look's level, would leave `paired` inconclusive.
    /// Futility gives up only such benchmarks: one given up is analysed at that level, so a
    /// verdict the look at its own (smaller) level did not reach would be a path to a false
    /// alarm that no look's share of alpha pays for.
    fn open_at_final_level(&self, paired: &PairedRounds, relevance: f64, others: &[f64]) -> bool {
        let evidence = Evidence {
            paired: *paired,
            q_value: self.q_value(paired.p_value(), others),
        };
        let levels = self.levels_at(self.max_forks);
        stats::verdict::decide(&evidence, relevance, levels).verdict == Verdict::Inconclusive
    }

    /// The half-widths (log scale) of the paired t intervals over `max_forks` rounds with spread
    /// `sd` at the last look's levels: the difference test's `1 − alpha` interval and the
    /// `1 − 2·alpha_eq` interval of the two one-sided tests.
    fn half_widths_at_cap(&self, sd: f64) -> (f64, f64) {
        let levels = self.levels_at(self.max_forks);
        let df = (self.max_forks.max(2) - 1) as f64;
        let Ok(t) = statrs::distribution::StudentsT::new(0.0, 1.0, df) else {
            return (f64::INFINITY, f64::INFINITY);
        };
        use statrs::distribution::ContinuousCDF;
        let se = sd / (self.max_forks as f64).sqrt();
        (
            t.inverse_cdf(1.0 - levels.alpha / 2.0) * se,
            t.inverse_cdf(1.0 - levels.equivalence_alpha) * se,
        )
    }

    /// About how many rounds in all would decide the comparison if the rounds kept the mean and
    /// spread of `paired`, with 80 % power at the last look's levels
    /// ([`stats::verdict::rounds_to_decide`]): for a benchmark [`StopPolicy::futile`] gives up,
    /// always more than `max_forks`. It once aimed at a change of the threshold's size whatever
    /// the estimate, and told a benchmark given up after five rounds, its estimate half the
    /// threshold, that "deciding it would take about 5 rounds". `None` when no number of rounds
    /// would.
    pub fn rounds_needed(&self, paired: &PairedRounds, relevance: f64) -> Option<usize> {
        let levels = self.levels_at(self.max_forks);
        stats::verdict::rounds_to_decide(paired, relevance, levels, ROUNDS_NEEDED_POWER)
    }

    /// `p` adjusted by Benjamini–Hochberg among the suite's `others` (NaN ones do not count), or
    /// `p` itself without false-discovery control.
    fn q_value(&self, p: f64, others: &[f64]) -> f64 {
        if !self.fdr {
            return p;
        }
        let mut all = others.to_vec();
        all.push(p);
        stats::fdr::benjamini_hochberg(&all)
            .last()
            .copied()
            .unwrap_or(p)
    }

    /// The verdict already decided at the per-look level, if any: [`stats::verdict::decide`]
    /// on the paired rounds, before `max-forks` with the threshold moved against the verdict by
    /// [`EARLY_VERDICT_MARGIN`].
    fn decided(
        &self,
        paired: &PairedRounds,
        relevance: f64,
        rounds: usize,
        others: &[f64],
    ) -> Option<Verdict> {
        let levels = self.levels_at(rounds);
        let evidence = Evidence {
            paired: *paired,
            q_value: self.q_value(paired.p_value(), others),
        };
        let verdict_at =
            |threshold: f64| stats::verdict::decide(&evidence, threshold, levels).verdict;
        if rounds >= self.max_forks {
            return Some(verdict_at(relevance)).filter(|v| *v != Verdict::Inconclusive);
        }
        let change = verdict_at(relevance * EARLY_VERDICT_MARGIN);
        if matches!(change, Verdict::Regressed | Verdict::Improved) {
            return Some(change);
        }
        (verdict_at(relevance / EARLY_VERDICT_MARGIN) == Verdict::Unchanged)
            .then_some(Verdict::Unchanged)
    }
}

/// Coefficient of variation of `values` with weights: `sqrt(Σw(v−μ)²/Σw) / μ`, `μ = Σwv/Σw`.
/// NaN for fewer than two values or a non-positive mean.
pub fn weighted_cv(values: &[f64], weights: &[f64]) -> f64 {
    if values.len() < 2 {
        return f64::NAN;
    }
    let total: f64 = weights.iter().sum();
    let mean = values.iter().zip(weights).map(|(v, w)| v * w).sum::<f64>() / total;
    if mean.is_nan() || mean <= 0.0 {
        return f64::NAN;
    }
    let var = values
        .iter()
        .zip(weights)
        .map(|(v, w)| w * (v - mean).powi(2))
        .sum::<f64>()
        / total;
    var.sqrt() / mean
}

fn criterion_of(rule: StopRule) -> Option<Criterion> {
    match rule {
        StopRule::Cv => Some(Criterion::Cv),
        StopRule::Rciw => Some(Criterion::Rciw),
        StopRule::Kld => Some(Criterion::Kld),
        StopRule::Fixed | StopRule::Decided => None,
    }
}

/// The wall time the first `dropped` samples of `fork` took: their times, or, for samples in
/// another unit than nanoseconds (a custom criterion measurement such as cycles), their share of
/// the fork's measurement time.
fn dropped_wall_ns(fork: &ForkRecord, dropped: usize) -> f64 {
    let dropped_value: f64 = fork.times_ns.iter().take(dropped).sum();
    if fork.unit.is_none() {
        return dropped_value;
    }
    let total: f64 = fork.times_ns.iter().sum();
    let measurement_ns = fork.config.as_ref().map_or(0.0, |c| c.measurement_ms * 1e6);
    if total > 0.0 {
        dropped_value / total * measurement_ns
    } else {
        0.0
    }
}

#[cfg(test)]
impl StopSettings {
    /// The settings of a default run, for the tests of the steps that take them.
    pub(crate) fn defaults_for_tests() -> StopSettings {
        StopSettings {
            rule: StopRule::Decided,
            forks: 10,
            min_forks: 2,
            max_forks: 10,
            stop_threshold: None,
            window: 5,
            mode: Mode::Interleaved,
            verdict: AnalysisSettings {
                threshold: 0.02,
                instructions_threshold: 0.002,
                alpha: 0.01,
                equivalence_alpha: crate::model::policy::DEFAULT_EQUIVALENCE_ALPHA,
                confidence: 0.99,
                resamples: 10_000,
                fdr: true,
                overrides: Default::default(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defaults() -> StopSettings {
        StopSettings::defaults_for_tests()
    }

    fn policy(rule: StopRule) -> StopPolicy {
        StopPolicy::from_settings(StopSettings {
            rule,
            min_forks: 3,
            max_forks: 20,
            forks: 10,
            ..defaults()
        })
    }

    #[test]
    fn fixed_runs_exactly_forks_rounds() {
        let p = policy(StopRule::Fixed);
        assert_eq!(p.max_rounds(), 10);
        let record = BenchmarkRecord {
            id: "x".into(),
            target: None,
            package: None,
            criterion_id: None,
            harness: None,
            presence: Default::default(),
            base: Default::default(),
            head: Default::default(),
            stop: None,
            selection: None,
            fork_length: None,
        };
        assert!(p.evaluate(&record, 9, 0, &[]).is_none());
        let stop = p.evaluate(&record, 10, 0, &[]).unwrap();
        assert!(!stop.capped);
    }

    #[test]
    fn looks_start_at_min_and_end_at_max() {
        let looks = policy(StopRule::Decided).looks();
        assert_eq!(looks.first(), Some(&3));
        assert_eq!(looks.last(), Some(&20));
        assert!(looks.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(looks, vec![3, 5, 8, 12, 18, 20]);
        assert_eq!(
            StopPolicy {
                max_forks: 10,
                ..policy(StopRule::Decided)
            }
            .looks(),
            vec![3, 5, 8, 10]
        );
    }

    #[test]
    fn decided_analysis_splits_alpha_over_looks() {
        let settings = defaults().verdict;
        let p = policy(StopRule::Decided);
        let adjusted = p.analysis_settings(&settings);
        // Looks 3, 5, 8, 12, 18, 20: the last spends its share, the others the rest equally.
        assert!((adjusted.alpha - settings.alpha * LAST_LOOK_ALPHA_SHARE).abs() < 1e-15);
        assert!(adjusted.confidence > settings.confidence);
        let shares = shares_of_alpha(&p);
        let between = (1.0 - LAST_LOOK_ALPHA_SHARE) / 5.0;
        assert!(
            shares[..5].iter().all(|s| (s - between).abs() < 1e-15),
            "{shares:?}"
        );
    }

    /// The share of alpha of each of `p`'s looks, checked to sum to 1 (the union bound).
    fn shares_of_alpha(p: &StopPolicy) -> Vec<f64> {
        let shares: Vec<f64> = p.looks().iter().map(|&r| p.alpha_share(r)).collect();
        assert!(
            (shares.iter().sum::<f64>() - 1.0).abs() < 1e-12,
            "{shares:?}"
        );
        shares
    }

    /// The default policy of a `decided` run with `max_forks`.
    fn default_decided(max_forks: usize) -> StopPolicy {
        StopPolicy::from_settings(StopSettings {
            max_forks,
            ..defaults()
        })
    }

    #[test]
    fn a_look_at_two_rounds_spends_a_small_share_of_alpha_and_the_shares_sum_to_one() {
        let p = default_decided(10);
        assert_eq!(p.looks(), vec![2, 3, 5, 8, 10]);
        let shares = shares_of_alpha(&p);
        assert!((shares[0] - SMALL_LOOK_ALPHA_SHARE).abs() < 1e-15);
        assert!(shares[1..4].windows(2).all(|w| w[0] == w[1]), "{shares:?}");
        assert!((shares[4] - LAST_LOOK_ALPHA_SHARE).abs() < 1e-15);
        assert!(shares[4] > shares[3], "{shares:?}");
        // The final analysis uses the last look's level.
        let settings = defaults().verdict;
        let adjusted = p.analysis_settings(&settings);
        assert!((adjusted.alpha - settings.alpha * shares[4]).abs() < 1e-15);
        // Equivalence spends its own level with the same shares.
        let levels = p.levels_at(5);
        assert!((levels.equivalence_alpha - settings.equivalence_alpha * shares[2]).abs() < 1e-15);
        assert!((levels.alpha - settings.alpha * shares[2]).abs() < 1e-15);
        assert!(
            (adjusted.equivalence_alpha - settings.equivalence_alpha * shares[4]).abs() < 1e-15
        );
        // With `max-forks` 2 the only look is an ordinary one and spends all of alpha.
        let only = default_decided(2);
        assert_eq!(only.looks(), vec![2]);
        assert_eq!(only.alpha_share(2), 1.0);
        // With `max-forks` 3 the look at two forks and the last look share it all.
        let two_looks = default_decided(3);
        assert_eq!(two_looks.looks(), vec![2, 3]);
        assert_eq!(two_looks.alpha_share(2) + two_looks.alpha_share(3), 1.0);
    }

    #[test]
    fn two_rounds_decide_only_what_has_no_spread() {
        let p = default_decided(10);
        let stops_after_two = |base: &[f64], head: &[f64]| {
            p.evaluate(&record_from_scales("x", base, head), 2, 0, &[])
                .is_some()
        };
        // One degree of freedom: a 50 % regression whose two rounds differ by 0.1 % waits for a
        // third round, which decides it.
        assert!(!stops_after_two(&[1.0, 1.001], &[1.5, 1.5]));
        let three = record_from_scales("x", &[1.0, 1.001, 0.999], &[1.5, 1.5, 1.499]);
        assert!(p.evaluate(&three, 3, 0, &[]).is_some());
        // Rounds with the very same ratio (no spread at all, as instruction counts give) decide.
        assert!(stops_after_two(&[1.0, 1.1], &[1.5, 1.65]));
        assert!(stops_after_two(&[1.0, 1.1], &[1.0, 1.1]));
        // Futility never fires at two rounds.
        let mut noisy = hopelessly_noisy(2);
        noisy.id = "noisy".into();
        assert!(p.evaluate(&noisy, 2, 0, &[]).is_none());
    }

    #[test]
    fn a_round_disturbed_on_one_side_is_left_out_and_the_rest_decide() {
        // Round 1 ran its base fork 30 % slow; head is 12 % slower in every other round.
        let p = default_decided(10);
        let base = [1.0, 1.3, 1.004, 0.998, 1.001];
        let head = [1.12, 1.121, 1.124, 1.118, 1.121];
        let record = record_from_scales("x", &base, &head);
        let pairs = record.analysed_pairs(p.mode);
        assert_eq!(pairs.len(), 4, "the disturbed round is left out");
        assert!(pairs.iter().all(|(b, _)| b.round != Some(1)));
        assert!(p.evaluate(&record, 5, 0, &[]).is_some());
    }

    /// Criterion-like fork: sample `i` has `i·10` iterations; per-iteration noise shrinks with
    /// iterations. Deterministic pseudo-noise.
    fn fork_values(
        level: f64,
        noise: f64,
        slow_start: usize,
        slowdown: f64,
    ) -> (Vec<f64>, Vec<f64>) {
        let weights: Vec<f64> = (1..=30).map(|i| (i * 10) as f64).collect();
        let values = weights
            .iter()
            .enumerate()
            .map(|(i, w)| {
                let wiggle = ((i as f64 * 2.399).sin()) * noise * (10.0 / w).sqrt() * 3.0;
                // A warm-up that decays: the first sample `slowdown` slower, then e^(−1/2) less
                // each sample, gone after `slow_start` samples.
                let warm = if i < slow_start {
                    1.0 + slowdown * (-(i as f64) / 2.0).exp()
                } else {
                    1.0
                };
                level * warm * (1.0 + wiggle)
            })
            .collect();
        (values, weights)
    }

    #[test]
    fn a_slow_start_is_dropped_and_a_steady_fork_keeps_its_samples() {
        let p = policy(StopRule::Decided);
        let (steady, w) = fork_values(1000.0, 0.01, 0, 0.0);
        let (dropped, ok) = p.steady_state_start_weighted(&steady, &w);
        assert!(ok, "a steady fork is steady");
        assert!(dropped <= 2, "dropped {dropped}");
        // An abrupt slow start (the first 3 samples 30 % slow, then steady) changes the window's
        // CV and is dropped. (A slow *decay* can keep the CV flat: the limitation of the
        // paper's CV window documented in docs/design/warm-up.md.)
        let (mut abrupt, w) = fork_values(1000.0, 0.01, 0, 0.0);
        for v in abrupt.iter_mut().take(3) {
            *v *= 1.3;
        }
        let (dropped, ok) = p.steady_state_start_weighted(&abrupt, &w);
        assert!(ok);
        assert!(dropped >= 3, "the slow start is dropped, got {dropped}");
    }

    #[test]
    fn noisy_forks_are_not_all_flagged_unsteady() {
        // Noise well above the paper's 1 %: the noise-relative threshold still finds a start.
        let p = policy(StopRule::Decided);
        let (noisy, w) = fork_values(1000.0, 0.2, 0, 0.0);
        assert!(p.steady_state_start_weighted(&noisy, &w).1);
    }

    #[test]
    fn dropped_samples_of_a_custom_measurement_count_their_share_of_the_fork() {
        let fork = |unit: Option<&str>| ForkRecord {
            iters: vec![1.0; 4],
            // In ns: 100 ms dropped. In cycles: a quarter of the samples' total.
            times_ns: vec![100e6, 100e6, 100e6, 100e6],
            unit: unit.map(str::to_string),
            config: Some(crate::model::samples::ForkSettings {
                sample_size: 4,
                warm_up_ms: 100.0,
                measurement_ms: 200.0,
                sampling: None,
            }),
            ..Default::default()
        };
        assert_eq!(dropped_wall_ns(&fork(None), 1), 100e6);
        assert_eq!(dropped_wall_ns(&fork(Some("cycles")), 1), 50e6);
        assert_eq!(dropped_wall_ns(&fork(Some("cycles")), 0), 0.0);
    }

    #[test]
    fn warm_up_time_stays_bounded_after_unsteady_forks() {
        let p = policy(StopRule::Decided);
        let side = SideRecord {
            forks: vec![ForkRecord {
                iters: vec![1.0; 10],
                times_ns: vec![1e6; 10],
                unsteady: true,
                ..Default::default()
            }],
            ..SideRecord::default()
        };
        let mut warm = Duration::from_millis(300);
        for _ in 0..20 {
            warm = p.next_warm_up(&side, warm);
        }
        assert_eq!(warm, Duration::from_millis(300));
    }

    /// A benchmark whose fork in round `r` takes `scale × (1000 + i)` ns for samples `i` of 0..10,
    /// with one scale per round and side.
    fn record_from_scales(id: &str, base: &[f64], head: &[f64]) -> BenchmarkRecord {
        let side = |scales: &[f64]| SideRecord {
            forks: scales
                .iter()
                .enumerate()
                .map(|(round, scale)| ForkRecord {
                    iters: vec![1.0; 10],
                    times_ns: (0..10).map(|i| scale * (1000.0 + i as f64)).collect(),
                    round: Some(round),
                    ..Default::default()
                })
                .collect(),
            ..SideRecord::default()
        };
        BenchmarkRecord {
            id: id.into(),
            target: None,
            package: None,
            criterion_id: None,
            harness: None,
            presence: Default::default(),
            base: side(base),
            head: side(head),
            stop: None,
            selection: None,
            fork_length: None,
        }
    }

    /// Rounds whose common interference moves both sides by up to ±30 %, with head always 10 %
    /// slower than base in the same round.
    fn duet_record(rounds: usize) -> BenchmarkRecord {
        let interference: Vec<f64> = (0..rounds)
            .map(|r| 1.0 + 0.3 * ((r as f64 * 2.1).sin()))
            .collect();
        let head: Vec<f64> = interference.iter().map(|i| 1.1 * i).collect();
        record_from_scales("duet", &interference, &head)
    }

    /// Three rounds of a benchmark whose head is `change` slower, with ±0.1 % fork-to-fork noise.
    fn record_with_change(id: &str, change: f64) -> BenchmarkRecord {
        let h = 1.0 + change;
        record_from_scales(
            id,
            &[0.999, 1.0, 1.001],
            &[h * 1.0005, h * 0.999, h * 1.0005],
        )
    }

    /// `rounds` rounds of an unchanged benchmark whose forks scatter by ±15 %.
    fn hopelessly_noisy(rounds: usize) -> BenchmarkRecord {
        let scales = [0.85, 1.15, 1.0, 0.9, 1.1, 0.95, 1.05, 0.88, 1.12, 1.0];
        let side = |shift: usize| -> Vec<f64> {
            (0..rounds)
                .map(|r| scales[(r + shift) % scales.len()])
                .collect()
        };
        record_from_scales("noisy", &side(0), &side(3))
    }

    #[test]
    fn futility_gives_up_after_every_round_from_three_but_not_for_one_disturbed_round() {
        let p = default_decided(10);
        assert_eq!(p.looks(), vec![2, 3, 5, 8, 10]);
        let futile = |record: &BenchmarkRecord, rounds: usize| {
            p.evaluate(record, rounds, 3, &[])
                .map(|stop| stop.details.get("futile").copied())
        };
        // Rounds up to 10 % apart either way around no change: hopeless from three rounds on,
        // also after round 4, which is no look (futility spends no alpha), and after round 9.
        let swinging = |head: &[f64]| record_from_scales("x", &vec![1.0; head.len()], head);
        let swings = [1.10, 0.91, 1.09, 0.92, 1.0, 1.10, 0.91, 1.09, 0.92, 1.0];
        assert_eq!(
            futile(&swinging(&swings[..2]), 2),
            None,
            "never at two rounds"
        );
        let three = swinging(&[1.10, 0.93, 1.0]);
        assert_eq!(futile(&three, 3), Some(Some(1.0)), "hopeless at three");
        let four = swinging(&swings[..4]);
        assert_eq!(futile(&four, 4), Some(Some(1.0)), "and between looks");
        let nine = swinging(&swings[..9]);
        assert_eq!(futile(&nine, 9), Some(Some(1.0)), "up to the last but one");
        // Two close rounds and one disturbed by 30 %: the two closest judge, and "unchanged" is
        // still in reach.
        let disturbed = record_from_scales("x", &[1.0, 1.0, 1.0], &[1.001, 0.999, 1.3]);
        assert_eq!(futile(&disturbed, 3), None);
        // A round without a look decides nothing, however clear.
        let clear = record_with_change("x", 0.5);
        let four = record_from_scales("x", &[0.999, 1.0, 1.001, 1.0], &[1.5, 1.5005, 1.499, 1.5]);
        assert!(p.evaluate(&clear, 3, 3, &[]).is_some());
        assert_eq!(p.evaluate(&four, 4, 3, &[]), None);
        let at_cap = futile(&swinging(&swings), 10).expect("the cap always stops");
        assert_eq!(at_cap, Some(0.0));
    }

    /// A benchmark given up needs more rounds in all than `max-forks` allows, which is why it was
    /// given up. Rounds at three quarters of the threshold (+1.5 % against 2 %) with a spread of
    /// 1.3 % reach neither verdict in ten rounds; a change of the threshold's size would be seen
    /// in five, which is what the warning once said of them after five rounds.
    #[test]
    fn a_benchmark_given_up_needs_more_rounds_than_max_forks() {
        let p = default_decided(10);
        let needed = |record: &BenchmarkRecord, rounds: usize| {
            let stop = p.evaluate(record, rounds, 3, &[]).expect("stops");
            assert_eq!(stop.details.get("futile"), Some(&1.0), "{stop:?}");
            stop.details.get("rounds_needed").copied()
        };
        let logs = [0.0003, 0.0101, 0.0199, 0.065, 0.0297];
        let head: Vec<f64> = logs.iter().map(|l: &f64| l.exp()).collect();
        let mid_band = record_from_scales("x", &[1.0; 5], &head);
        let n = needed(&mid_band, 5).expect("in reach");
        assert!(n > 10.0, "{n}");
        // The old figure: a change of the threshold's size at the spread of the four closest.
        let threshold_sized = stats::power::units_needed(0.01265, 0.02, p.levels_at(10).alpha, 0.8);
        assert!(threshold_sized <= 6, "{threshold_sized}");
        let swinging = |head: &[f64]| record_from_scales("x", &vec![1.0; head.len()], head);
        let four = swinging(&[1.10, 0.91, 1.09, 0.92]);
        assert!(needed(&four, 4).expect("in reach") > 10.0);
        let three = swinging(&[1.10, 0.93, 1.0]);
        assert!(needed(&three, 3).expect("in reach") > 10.0);
    }

    /// The invariant behind the warning's "more than --max-forks allows", over a grid of
    /// estimates, spreads and rounds: whatever futility gives up needs more rounds than allowed.
    #[test]
    fn whatever_futility_gives_up_needs_more_rounds_than_max_forks() {
        let p = default_decided(10);
        let mut given_up = 0;
        for rounds in [3, 5, 7, 9] {
            for d in (-20..=20).map(|i| f64::from(i) * 0.005) {
                for sd in (1..=30).map(|i| f64::from(i) * 0.005) {
                    let paired = PairedRounds {
                        unit: stats::Unit::Rounds,
                        n: rounds,
                        rounds,
                        mean_log: d,
                        sd_log: sd,
                    };
                    if !p.futile(&paired, rounds, 0.02) {
                        continue;
                    }
                    given_up += 1;
                    let needed = p.rounds_needed(&paired, 0.02);
                    assert!(needed.is_none_or(|n| n > 10), "{paired:?}: {needed:?}");
                }
            }
        }
        assert!(given_up > 300, "{given_up}");
    }

    #[test]
    fn an_estimate_within_the_noise_is_given_up_but_a_large_one_beyond_it_not() {
        let p = default_decided(10);
        let futile = |base: &[f64], head: &[f64]| {
            p.evaluate(&record_from_scales("x", base, head), 5, 3, &[])
                .and_then(|stop| stop.details.get("futile").copied())
                == Some(1.0)
        };
        // Rounds whose ratios lie ±15 % apart: five of them estimate +6 %, and ten would still
        // give an interval ±14 % wide.
        let noisy_base = [1.0; 5];
        let noisy_head = [0.92, 1.22, 1.0, 0.98, 1.2];
        assert!(futile(&noisy_base, &noisy_head), "+6 % within the noise");
        // −20 % with rounds ±10 % apart is far outside the noise: never given up.
        let steady_base = [0.95, 1.05, 1.0, 1.0, 0.97];
        let steady_head: Vec<f64> = [1.05, 0.95, 1.0, 0.93, 1.04]
            .iter()
            .map(|s| s * 0.8)
            .collect();
        assert!(!futile(&steady_base, &steady_head));
    }

    #[test]
    fn a_change_just_past_the_threshold_waits_for_more_forks_before_the_cap() {
        let p = StopPolicy {
            max_forks: 10,
            ..policy(StopRule::Decided)
        };
        // 2.1 % with ±0.1 % noise: a regression against 2 %, but within the early margin.
        let record = record_with_change("x", 0.021);
        assert_eq!(
            p.evaluate(&record, 3, 7, &[]),
            None,
            "not decided at look 3"
        );
        let clear = record_with_change("x", 0.03);
        let stop = p
            .evaluate(&clear, 3, 7, &[])
            .expect("3 % is past the margin");
        assert!(stop.base_stable && !stop.capped);
        let at_cap = p.evaluate(&record, 10, 7, &[]).expect("the cap stops");
        assert!(at_cap.base_stable, "at the cap the plain threshold decides");
        assert!(!at_cap.capped);
    }

    #[test]
    fn every_look_judges_a_benchmark_by_its_own_threshold() {
        let with_threshold = |threshold: f64, overrides: &[(&str, f64)]| {
            let mut settings = StopSettings {
                rule: StopRule::Decided,
                min_forks: 3,
                max_forks: 10,
                ..defaults()
            };
            settings.verdict.threshold = threshold;
            for &(pattern, t) in overrides {
                settings.verdict.overrides.insert(
                    pattern.to_string(),
                    crate::model::policy::BenchOverride {
                        threshold: Some(t),
                        ..Default::default()
                    },
                );
            }
            StopPolicy::from_settings(settings)
        };
        let overridden = with_threshold(0.02, &[("^slow/", 0.04)]);
        assert_eq!(overridden.relevance_for("slow/x"), 0.04);
        assert_eq!(overridden.relevance_for("fast/x"), 0.02);
        let (at_2, at_4) = (with_threshold(0.02, &[]), with_threshold(0.04, &[]));
        // A 3.5 % change is a regression against 2 % but undecided against 4 %.
        let evaluate = |policy: &StopPolicy, id: &str| {
            policy.evaluate(&record_with_change(id, 0.035), 3, 7, &[])
        };
        assert_ne!(evaluate(&at_2, "slow/x"), evaluate(&at_4, "slow/x"));
        assert_eq!(evaluate(&overridden, "slow/x"), evaluate(&at_4, "slow/x"));
        assert_eq!(evaluate(&overridden, "fast/x"), evaluate(&at_2, "fast/x"));
    }

    #[test]
    fn interference_common_to_a_round_cancels_in_either_mode() {
        // Rounds moved by up to ±30 % on both sides alike, head 10 % slower in each.
        for mode in [
            crate::model::samples::Mode::Interleaved,
            crate::model::samples::Mode::Duet,
        ] {
            let p = StopPolicy {
                mode,
                ..default_decided(10)
            };
            let stop = p
                .evaluate(&duet_record(5), 5, 0, &[])
                .expect("decided at five rounds");
            assert!(stop.base_stable && !stop.capped, "{mode:?}");
            let paired = crate::steps::analysis::paired_rounds(&duet_record(5), mode).unwrap();
            assert!((paired.estimate() - 1.1).abs() < 1e-9);
        }
    }

    /// A fork of round `round` at `scale` (as [`record_from_scales`] makes them).
    fn fork_at(scale: f64, round: usize) -> ForkRecord {
        let mut fork = record_from_scales("x", &[1.0], &[scale]).head.forks[0].clone();
        fork.round = Some(round);
        fork
    }

    #[test]
    fn a_fork_far_slower_than_every_earlier_fork_of_its_side_is_measured_again() {
        let p = StopPolicy::from_settings(defaults());
        let record = record_from_scales("x", &[1.0, 1.02], &[1.1, 1.12]);
        // Judged against its own side: head's forks are 10 % slower than base's, and that is no
        // disturbance of head.
        assert!(!p.remeasures(&record, &record.head, &fork_at(1.2, 2)));
        assert!(p.remeasures(&record, &record.head, &fork_at(1.3, 2)));
        assert!(p.remeasures(&record, &record.base, &fork_at(1.2, 2)));
        // Only slower: a disturbance adds time.
        assert!(!p.remeasures(&record, &record.base, &fork_at(0.5, 2)));
        // Within 10 % of the slowest earlier fork: the ordinary spread of forks and layouts.
        assert!(!p.remeasures(&record, &record.base, &fork_at(1.1, 2)));
        // Two earlier forks are needed to tell a slow fork from a slow side.
        let one = record_from_scales("x", &[1.0], &[1.0]);
        assert!(!p.remeasures(&one, &one.base, &fork_at(2.0, 1)));
    }

    #[test]
    fn measuring_again_is_bounded_and_only_under_decided_interleaved() {
        let record = record_from_scales("x", &[1.0, 1.0, 1.0], &[1.0, 1.0, 1.0]);
        let slow = fork_at(1.5, 3);
        let decided = StopPolicy::from_settings(defaults());
        assert!(decided.remeasures(&record, &record.base, &slow));
        // A fork that is itself a measurement again is not measured a third time.
        let mut replacement = fork_at(1.5, 3);
        replacement.remeasured = Some(Box::new(slow.clone()));
        assert!(!decided.remeasures(&record, &record.base, &replacement));
        // At most REMEASURE_AT_MOST forks of a benchmark, both sides together.
        let mut capped = record.clone();
        for side in [&mut capped.base, &mut capped.head] {
            side.forks[1].remeasured = Some(Box::new(slow.clone()));
        }
        assert_eq!(REMEASURE_AT_MOST, 2);
        assert!(!decided.remeasures(&capped, &capped.base, &slow));
        let mut once = record.clone();
        once.head.forks[1].remeasured = Some(Box::new(slow.clone()));
        assert!(decided.remeasures(&once, &once.base, &slow));
        // A fixed run measures as asked; a duet fork's partner shares its disturbance.
        for settings in [
            StopSettings {
                rule: StopRule::Fixed,
                ..defaults()
            },
            StopSettings {
                mode: Mode::Duet,
                ..defaults()
            },
        ] {
            let p = StopPolicy::from_settings(settings);
            assert!(!p.remeasures(&record, &record.base, &slow));
        }
    }
}
