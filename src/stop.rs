//! Stop rules: when to stop treating samples as warm-up, and when to stop adding forks.
//!
//! Dynamic reconfiguration (Laaber et al., FSE 2020; METHOD.md) has two checkpoints:
//!
//! 1. **Warm-up, inside a fork.** cargo-perfdiff cannot stop criterion's warm-up from outside, so
//!    it replays the paper's rule on the fork's sample series: after each sample `i'' >= wi_min` the
//!    criterion is computed on the sliding window `m[i'..=x]` for `i' <= x <= i''` with
//!    `i' = i'' − window`; the first stable `i''` ends the warm-up and samples `0..i''` are
//!    dropped. A fork that is never stable within `wi_max` samples keeps its samples after
//!    `wi_max` and is flagged `unsteady`.
//! 2. **Forks, after each round.** The criterion is computed on the union of forks `1..x` for
//!    every prefix `x`; a side is stable when the last `window` values are. A benchmark stops when
//!    both sides are stable and at least `min_forks` rounds ran, or at `max_forks` (flagged
//!    `capped`).
//!
//! The `decided` rule goes beyond the paper: it stops when the *comparison* is decided, i.e. the
//! verdict is already `regressed`, `improved` or `unchanged` at a level corrected for the repeated
//! looks (Bonferroni: alpha split evenly over the looks, so the A/A false-alarm rate stays at most
//! alpha). The final analysis of a run under `decided` uses the same corrected level.

use std::time::{Duration, Instant};

use crate::config::{Settings, StopRule};
use crate::samples::{BenchmarkRecord, ForkRecord, SideRecord, StopRecord};
use crate::stats::stability::{self, Criterion};
use crate::stats::{self, BootstrapConfig, Evidence, Verdict, descriptive};

/// Minimum samples considered warm-up candidates in a fork (the paper's `wi_min`).
pub const WARMUP_MIN: usize = 5;
/// Maximum samples treated as warm-up in a fork (the paper's `wi_max`, scaled to criterion's
/// sample counts: at most half the fork).
pub const WARMUP_MAX_FRACTION: f64 = 0.5;
/// Bootstrap resamples of the `decided` rule's interim looks (the final analysis uses the
/// configured number).
const LOOK_RESAMPLES: usize = 2_000;

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
    pub relevance: f64,
}

impl StopPolicy {
    pub fn from_settings(settings: &Settings) -> Self {
        let criterion = criterion_of(settings.stop);
        let (min_forks, max_forks) = match settings.stop {
            StopRule::Fixed => (settings.forks, settings.forks),
            _ => (
                settings.min_forks.max(2),
                settings.max_forks.max(settings.min_forks.max(2)),
            ),
        };
        let warmup_criterion = criterion.unwrap_or(Criterion::Cv);
        StopPolicy {
            rule: settings.stop,
            min_forks,
            max_forks,
            window: settings.window.max(2),
            threshold: settings
                .stop_threshold
                .or(criterion.map(Criterion::default_threshold))
                .unwrap_or(0.0),
            warmup_criterion,
            warmup_threshold: warmup_criterion.default_threshold(),
            alpha: settings.alpha,
            relevance: settings.threshold,
        }
    }

    /// Rounds after which every benchmark stops.
    pub fn max_rounds(&self) -> usize {
        self.max_forks
    }

    /// The rounds after which the `decided` rule looks at the comparison: `min_forks`, then
    /// roughly every 1.5× more forks, and always `max_forks`. Few looks keep the per-look alpha
    /// usable.
    pub fn looks(&self) -> Vec<usize> {
        let mut looks = vec![self.min_forks];
        let mut next = self.min_forks;
        while next < self.max_forks {
            next = ((next as f64 * 1.5).ceil() as usize)
                .max(next + 1)
                .min(self.max_forks);
            looks.push(next);
        }
        looks
    }

    /// The settings the final analysis must use: under `decided`, alpha and the CI level are
    /// split over the looks so repeated looking does not inflate false alarms.
    pub fn analysis_settings(&self, settings: &Settings) -> Settings {
        let mut adjusted = settings.clone();
        if self.rule == StopRule::Decided {
            let looks = self.looks().len() as f64;
            adjusted.alpha = settings.alpha / looks;
            adjusted.confidence = 1.0 - (1.0 - settings.confidence) / looks;
        }
        adjusted
    }

    /// Finds the steady state of a fork and marks the samples before it as warm-up.
    pub fn mark_warmup(&self, fork: &mut ForkRecord, seed: u64) {
        let values: Vec<f64> = fork
            .iters
            .iter()
            .zip(&fork.times_ns)
            .map(|(iters, time)| time / iters)
            .collect();
        let (dropped, steady) = self.steady_state_start(&values, seed);
        fork.warmup_dropped = Some(dropped);
        fork.unsteady = !steady;
    }

    /// Index of the first steady sample and whether a steady state was found at all.
    pub fn steady_state_start(&self, values: &[f64], seed: u64) -> (usize, bool) {
        let wi_max = ((values.len() as f64 * WARMUP_MAX_FRACTION) as usize).max(WARMUP_MIN);
        let singletons: Vec<Vec<f64>> = values.iter().map(|v| vec![*v]).collect();
        for end in WARMUP_MIN.max(self.window)..=wi_max.min(values.len().saturating_sub(1)) {
            let start = end - self.window;
            let window: Vec<f64> =
                stability::prefix_series(self.warmup_criterion, &singletons[start..=end], seed)
                    .into_iter()
                    .flatten()
                    .collect();
            if window.len() >= 2
                && stability::is_stable(self.warmup_criterion, &window, self.warmup_threshold)
            {
                return (start, true);
            }
        }
        (0, false)
    }

    /// Warm-up time to ask criterion for in this side's next fork: longer when earlier forks
    /// spent many samples warming up, shorter when they were steady at once.
    pub fn next_warm_up(&self, side: &SideRecord, current: Duration) -> Duration {
        let Some(last) = side.forks.last() else {
            return current;
        };
        let dropped = last.warmup_dropped.unwrap_or(0);
        let dropped_ns: f64 = last.times_ns.iter().take(dropped).sum();
        let adjusted = if last.unsteady {
            current.mul_f64(2.0)
        } else if dropped <= WARMUP_MIN {
            current.mul_f64(0.75)
        } else {
            current + Duration::from_nanos(dropped_ns as u64)
        };
        adjusted.clamp(Duration::from_millis(50), Duration::from_secs(10))
    }

    /// After a round: whether benchmark `record` should stop, with why.
    pub fn evaluate(
        &self,
        record: &BenchmarkRecord,
        rounds: usize,
        seed: u64,
    ) -> Option<StopRecord> {
        let started = Instant::now();
        let (base_stable, head_stable, details) = match self.rule {
            StopRule::Fixed => (true, true, Vec::new()),
            StopRule::Cv | StopRule::Rciw | StopRule::Kld => {
                let criterion = criterion_of(self.rule).expect("stability rule");
                let (b, bv) = self.side_stable(criterion, &record.base, seed);
                let (h, hv) = self.side_stable(criterion, &record.head, seed ^ 1);
                (b, h, vec![("base_sc", bv), ("head_sc", hv)])
            }
            StopRule::Decided => {
                if !self.looks().contains(&rounds) {
                    return None;
                }
                let decided = self.comparison_decided(record, seed);
                (decided, decided, Vec::new())
            }
        };
        let met = base_stable && head_stable && rounds >= self.min_forks;
        let capped = rounds >= self.max_forks;
        if !(met || capped) {
            return None;
        }
        Some(StopRecord {
            rule: self.rule.to_string(),
            rounds,
            base_stable,
            head_stable,
            capped: capped && !met && self.rule != StopRule::Fixed,
            checkpoint_ms: started.elapsed().as_secs_f64() * 1e3,
            details: details
                .into_iter()
                .filter_map(|(k, v)| v.map(|v| (k.to_string(), v)))
                .collect(),
        })
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
        let series: Vec<f64> = stability::prefix_series(criterion, &forks, seed)
            .into_iter()
            .flatten()
            .collect();
        let last = series.last().copied();
        if series.len() < 2 {
            return (false, last);
        }
        let window = &series[series.len().saturating_sub(self.window)..];
        (
            stability::is_stable(criterion, window, self.threshold),
            last,
        )
    }

    /// Whether the verdict is already decided at the per-look level.
    fn comparison_decided(&self, record: &BenchmarkRecord, seed: u64) -> bool {
        let base = record.base.per_iteration_by_fork();
        let head = record.head.per_iteration_by_fork();
        if base.len() < 2 || head.len() < 2 {
            return false;
        }
        let looks = self.looks().len() as f64;
        let alpha = self.alpha / looks;
        let config = BootstrapConfig {
            confidence: 1.0 - alpha,
            resamples: LOOK_RESAMPLES,
            seed,
        };
        let (Ok(ratio), Ok(mw), Ok(delta)) = (
            stats::bootstrap::ratio_of_means(&base, &head, &config),
            stats::mann_whitney::mann_whitney_u(&base.concat(), &head.concat()),
            stats::cliffs::cliffs_delta(&base.concat(), &head.concat()),
        ) else {
            return false;
        };
        let evidence = Evidence {
            ratio,
            p_value: mw.p_value,
            delta: delta.delta,
            change_rate: descriptive::change_rate(
                descriptive::mean_of_fork_means(&base),
                descriptive::mean_of_fork_means(&head),
            ),
        };
        stats::verdict::decide(&evidence, self.relevance, alpha) != Verdict::Inconclusive
    }
}

fn criterion_of(rule: StopRule) -> Option<Criterion> {
    match rule {
        StopRule::Cv => Some(Criterion::Cv),
        StopRule::Rciw => Some(Criterion::Rciw),
        StopRule::Kld => Some(Criterion::Kld),
        StopRule::Fixed | StopRule::Decided => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(rule: StopRule) -> StopPolicy {
        StopPolicy::from_settings(&Settings {
            stop: rule,
            min_forks: 3,
            max_forks: 20,
            forks: 10,
            ..Settings::default()
        })
    }

    #[test]
    fn fixed_runs_exactly_forks_rounds() {
        let p = policy(StopRule::Fixed);
        assert_eq!(p.max_rounds(), 10);
        let record = BenchmarkRecord {
            id: "x".into(),
            target: None,
            presence: Default::default(),
            base: Default::default(),
            head: Default::default(),
            stop: None,
        };
        assert!(p.evaluate(&record, 9, 0).is_none());
        let stop = p.evaluate(&record, 10, 0).unwrap();
        assert!(!stop.capped);
    }

    #[test]
    fn looks_start_at_min_and_end_at_max() {
        let looks = policy(StopRule::Decided).looks();
        assert_eq!(looks.first(), Some(&3));
        assert_eq!(looks.last(), Some(&20));
        assert!(looks.windows(2).all(|w| w[0] < w[1]));
        assert!(looks.len() <= 8, "{looks:?}");
    }

    #[test]
    fn decided_analysis_splits_alpha_over_looks() {
        let settings = Settings::default();
        let p = policy(StopRule::Decided);
        let adjusted = p.analysis_settings(&settings);
        let k = p.looks().len() as f64;
        assert!((adjusted.alpha - settings.alpha / k).abs() < 1e-15);
        assert!(adjusted.confidence > settings.confidence);
    }
}
