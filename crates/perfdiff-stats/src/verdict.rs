//! The verdict: one interval of the paired rounds decides, and it is the one reported.
//!
//! A change is called when the interval of the round log ratios ([`super::rounds`]) excludes 1,
//! its estimate reaches the relevance threshold, and its test survives false-discovery control
//! over the suite (the only gate besides the interval and the threshold: a suite compares dozens
//! of benchmarks at once). "Unchanged" is a positive claim, shown by two one-sided tests: the
//! `1 − 2·alpha_eq` interval lies inside the band of changes the user called irrelevant. Everything
//! else — the data cannot tell — is inconclusive. Every verdict can be read off the interval it
//! returns: `regressed` has its low end above 1, `improved` its high end below 1, `unchanged` the
//! whole interval inside `1 ± threshold`.
//!
//! The two tests have their own levels ([`Levels`]): a false `regressed` fails a gate and sends
//! someone hunting a change that is not there, a false `unchanged` (a change as large as the
//! threshold called irrelevant) passes the gate as `inconclusive` would. So the difference test
//! keeps a strict alpha (1 % by default), and equivalence the convention of bioequivalence
//! testing, two one-sided tests at 5 % each: a 90 % interval (Schuirmann 1987). Both errors stay
//! bounded by their own level: at a true change of exactly the threshold `unchanged` comes at
//! most `alpha_eq` of the time, with no change `regressed`/`improved` at most `alpha`.
use serde::{Deserialize, Serialize};

use super::rounds::{PairedRounds, RatioInterval};

/// A benchmark's verdict from its statistics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Regressed,
    Improved,
    Unchanged,
    Inconclusive,
}

/// The statistics a verdict rests on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Evidence {
    pub paired: PairedRounds,
    /// The p-value a change is judged by: the paired test's ([`PairedRounds::p_value`]), after
    /// false-discovery adjustment across the suite when that is on.
    pub q_value: f64,
}

/// The levels of the two tests a verdict rests on. Invariant: both in (0, 0.5).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Levels {
    /// Level of the difference test: a change is called when the `1 − alpha` interval excludes 1.
    pub alpha: f64,
    /// Level of each of the two one-sided tests of equivalence: `unchanged` when the
    /// `1 − 2·equivalence_alpha` interval lies inside the band.
    pub equivalence_alpha: f64,
}

impl Levels {
    /// Both levels times `share` (a look's share of the error budget, or a Bonferroni part).
    pub fn scaled(self, share: f64) -> Levels {
        Levels {
            alpha: self.alpha * share,
            equivalence_alpha: self.equivalence_alpha * share,
        }
    }
}

/// A verdict and the interval it rests on: the `1 − alpha` interval, or for `unchanged` the
/// `1 − 2·alpha_eq` interval of the two one-sided tests.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Decision {
    pub verdict: Verdict,
    pub interval: RatioInterval,
}

/// - `Regressed`: the `1 − alpha` interval's low end above 1, `q < alpha`, and the estimate at
///   least `1 + threshold`.
/// - `Improved`: its high end below 1, `q < alpha`, the estimate at most `1 − threshold`.
/// - `Unchanged`: the `1 − 2·alpha_eq` interval within `[1 − threshold, 1 + threshold]`.
/// - `Inconclusive`: anything else, NaN anywhere included.
pub fn decide(evidence: &Evidence, threshold: f64, levels: Levels) -> Decision {
    let alpha = levels.alpha;
    let difference = evidence.paired.interval(1.0 - alpha);
    let change = difference.estimate - 1.0;
    let significant = evidence.q_value < alpha;
    let verdict = if significant && difference.ci_low > 1.0 && change >= threshold {
        Verdict::Regressed
    } else if significant && difference.ci_high < 1.0 && change <= -threshold {
        Verdict::Improved
    } else {
        let equivalence = evidence
            .paired
            .equivalence_interval(levels.equivalence_alpha);
        if equivalence.ci_low >= 1.0 - threshold && equivalence.ci_high <= 1.0 + threshold {
            return Decision {
                verdict: Verdict::Unchanged,
                interval: equivalence,
            };
        }
        Verdict::Inconclusive
    };
    Decision {
        verdict,
        interval: difference,
    }
}

/// The verdict the interval alone gives, without false-discovery control: what [`decide`]
/// would say with `q = p`. A report notes when the two differ.
pub fn decide_without_fdr(paired: &PairedRounds, threshold: f64, levels: Levels) -> Verdict {
    let evidence = Evidence {
        paired: *paired,
        q_value: paired.p_value(),
    };
    decide(&evidence, threshold, levels).verdict
}

/// The most rounds [`rounds_to_decide`] looks for: beyond them it answers `None`.
pub const MAX_ROUNDS_TO_DECIDE: usize = 1_000_000;

/// About how many rounds (or layouts) in all would reach a verdict, with probability `power`, if
/// the rounds kept the mean and spread of `paired`: the fewest `n` at which
/// `(t(1 − a) + t(power)) · sd / √n`, with `n − 1` degrees of freedom, fits in the distance the
/// interval must clear. A change (its estimate at least `threshold`) clears `|mean log ratio|`
/// at `a = alpha / 2`; `unchanged` (the estimate inside the band) clears `threshold − |mean log
/// ratio|` at `a = alpha_eq`; the fewer of the two. Both distances are judged on the log scale
/// against the threshold, as the `decided` stop rule's futility judges them, so that a
/// benchmark that rule gives up at `m` rounds needs more than `m` here at the same levels.
/// `None` when neither is in reach by [`MAX_ROUNDS_TO_DECIDE`] (an estimate on the threshold
/// itself), or for a NaN anywhere. False-discovery control over the suite is not counted.
pub fn rounds_to_decide(
    paired: &PairedRounds,
    threshold: f64,
    levels: Levels,
    power: f64,
) -> Option<usize> {
    let (d, sd) = (paired.mean_log.abs(), paired.sd_log);
    let change = (d.exp() - 1.0 >= threshold).then_some((d, levels.alpha / 2.0));
    let unchanged = (threshold - d > 0.0).then_some((threshold - d, levels.equivalence_alpha));
    [change, unchanged]
        .into_iter()
        .flatten()
        .filter_map(|(distance, tail)| rounds_to_clear(distance, sd, tail, power))
        .min()
}

/// The fewest rounds `n >= 2` with `(t(1 − tail) + t(power)) · sd / √n <= distance` (t with
/// `n − 1` degrees of freedom), by bisection: the left side falls with `n`.
fn rounds_to_clear(distance: f64, sd: f64, tail: f64, power: f64) -> Option<usize> {
    use statrs::distribution::{ContinuousCDF, StudentsT};
    let valid = |x: f64| x.is_finite() && x > 0.0 && x < 1.0;
    let usable = distance.is_finite() && distance > 0.0 && sd.is_finite() && sd >= 0.0;
    if !(usable && valid(tail) && valid(power)) {
        return None;
    }
    let clears = |n: usize| {
        let Ok(t) = StudentsT::new(0.0, 1.0, (n - 1) as f64) else {
            return false;
        };
        (t.inverse_cdf(1.0 - tail) + t.inverse_cdf(power)) * sd / (n as f64).sqrt() <= distance
    };
    let (mut low, mut high) = (2, MAX_ROUNDS_TO_DECIDE);
    if clears(low) {
        return Some(low);
    }
    if !clears(high) {
        return None;
    }
    // Invariant: `low` does not clear, `high` does.
    while high - low > 1 {
        let middle = low + (high - low) / 2;
        if clears(middle) {
            high = middle;
        } else {
            low = middle;
        }
    }
    Some(high)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rounds::{IntervalKind, Round};

    fn paired(ratios: &[f64]) -> PairedRounds {
        let rounds: Vec<Round> = ratios
            .iter()
            .map(|r| Round {
                log_ratio: r.ln(),
                layout: None,
            })
            .collect();
        PairedRounds::of(&rounds).unwrap()
    }

    /// Both tests at 1 %, as before the equivalence test had its own level.
    const ONE_PERCENT: Levels = Levels {
        alpha: 0.01,
        equivalence_alpha: 0.01,
    };
    /// The defaults: the difference test at 1 %, equivalence at 5 %.
    const DEFAULTS: Levels = Levels {
        alpha: 0.01,
        equivalence_alpha: 0.05,
    };

    fn verdict_at(ratios: &[f64], levels: Levels) -> Decision {
        let paired = paired(ratios);
        let evidence = Evidence {
            paired,
            q_value: paired.p_value(),
        };
        decide(&evidence, 0.02, levels)
    }

    fn verdict(ratios: &[f64]) -> Decision {
        verdict_at(ratios, ONE_PERCENT)
    }

    #[test]
    fn every_verdict_can_be_read_off_its_interval() {
        let regressed = verdict(&[1.10, 1.11, 1.09, 1.10, 1.12]);
        assert_eq!(regressed.verdict, Verdict::Regressed);
        assert!(regressed.interval.ci_low > 1.0);
        assert_eq!(regressed.interval.kind, IntervalKind::Difference);
        let improved = verdict(&[0.80, 0.81, 0.79, 0.80]);
        assert_eq!(improved.verdict, Verdict::Improved);
        assert!(improved.interval.ci_high < 1.0);
        let unchanged = verdict(&[1.001, 0.999, 1.002, 0.998, 1.0]);
        assert_eq!(unchanged.verdict, Verdict::Unchanged);
        assert_eq!(unchanged.interval.kind, IntervalKind::Equivalence);
        assert_eq!(unchanged.interval.confidence, 0.98);
        assert!(unchanged.interval.ci_low >= 0.98 && unchanged.interval.ci_high <= 1.02);
        let open = verdict(&[1.10, 0.95, 1.2]);
        assert_eq!(open.verdict, Verdict::Inconclusive);
        assert!(open.interval.ci_low < 1.0 && open.interval.ci_high > 1.0);
    }

    #[test]
    fn a_significant_change_below_the_threshold_is_not_a_change() {
        // +1 % with a tight spread: significant, not relevant; inside the band, so unchanged
        let small = verdict(&[1.010, 1.011, 1.009, 1.010, 1.010]);
        assert_eq!(small.verdict, Verdict::Unchanged);
        // +1.9 % whose interval reaches past the band: neither
        let edge = verdict(&[1.015, 1.025, 1.017, 1.021]);
        assert_eq!(edge.verdict, Verdict::Inconclusive);
    }

    #[test]
    fn false_discovery_control_can_hold_back_a_change() {
        let paired = paired(&[1.10, 1.11, 1.09, 1.10, 1.12]);
        assert_eq!(
            decide_without_fdr(&paired, 0.02, ONE_PERCENT),
            Verdict::Regressed
        );
        let adjusted = Evidence {
            paired,
            q_value: 0.02,
        };
        let decision = decide(&adjusted, 0.02, ONE_PERCENT);
        assert_eq!(decision.verdict, Verdict::Inconclusive);
        assert!(
            decision.interval.ci_low > 1.0,
            "the interval itself is unchanged"
        );
        let nan = Evidence {
            paired,
            q_value: f64::NAN,
        };
        assert_eq!(
            decide(&nan, 0.02, ONE_PERCENT).verdict,
            Verdict::Inconclusive
        );
    }

    #[test]
    fn equivalence_has_its_own_level_and_the_difference_test_keeps_alpha() {
        // Rounds around +0.9 %: the 98 % interval (both tests at 1 %) reaches past +2 %, the
        // 90 % interval of two one-sided tests at 5 % lies inside the band.
        let ratios = [1.000, 1.020, 1.005, 1.012, 1.008];
        let strict = verdict_at(&ratios, ONE_PERCENT);
        assert_eq!(strict.verdict, Verdict::Inconclusive);
        assert!(strict.interval.ci_high > 1.02, "{strict:?}");
        let decision = verdict_at(&ratios, DEFAULTS);
        assert_eq!(decision.verdict, Verdict::Unchanged);
        assert_eq!(decision.interval.kind, IntervalKind::Equivalence);
        assert!((decision.interval.confidence - 0.90).abs() < 1e-12);
        assert!(decision.interval.ci_high <= 1.02 && decision.interval.ci_low >= 0.98);
        // A change is judged at alpha whatever the equivalence level: the same regression, the
        // same 99 % interval.
        let change = [1.10, 1.11, 1.09, 1.10, 1.12];
        let (a, b) = (
            verdict_at(&change, ONE_PERCENT),
            verdict_at(&change, DEFAULTS),
        );
        assert_eq!(
            (a.verdict, b.verdict),
            (Verdict::Regressed, Verdict::Regressed)
        );
        assert_eq!(a.interval, b.interval);
        assert_eq!(b.interval.confidence, 0.99);
    }

    /// Rounds of `n` with this mean and spread of the log ratios.
    fn summary(n: usize, mean_log: f64, sd_log: f64) -> PairedRounds {
        PairedRounds {
            n,
            rounds: n,
            mean_log,
            sd_log,
            ..paired(&[1.0, 1.0])
        }
    }

    #[test]
    fn rounds_to_decide_is_where_the_interval_clears_the_distance_with_the_power_asked() {
        let power = 0.8;
        // +5 % against ±2 %: a change, the interval must exclude no change.
        let change = summary(5, 1.05f64.ln(), 0.05);
        let n = rounds_to_decide(&change, 0.02, DEFAULTS, power).unwrap();
        assert!(n > 2, "{n}");
        let at = |n: usize| summary(n, change.mean_log, change.sd_log);
        // At the rounds it names, a run of the same mean and spread decides.
        let decided = decide(
            &Evidence {
                paired: at(n),
                q_value: at(n).p_value(),
            },
            0.02,
            DEFAULTS,
        );
        assert_eq!(decided.verdict, Verdict::Regressed, "{n}");
        // Twice the spread takes about four times the rounds.
        let noisier = summary(5, change.mean_log, 0.10);
        let m = rounds_to_decide(&noisier, 0.02, DEFAULTS, power).unwrap();
        assert!((3 * n..=5 * n).contains(&m), "{n} {m}");
        // An estimate at half the threshold: only `unchanged` is in reach, on the room left.
        let half = summary(5, 0.01, 0.05);
        let wide = rounds_to_decide(&half, 0.02, DEFAULTS, power).unwrap();
        let none = rounds_to_decide(&summary(5, 0.0, 0.05), 0.02, DEFAULTS, power).unwrap();
        assert!(wide > 3 * none, "{wide} {none}");
        // No spread decides at once; a spread no million rounds can tame, or NaN, never.
        let at_once = summary(3, 0.05, 0.0);
        assert_eq!(rounds_to_decide(&at_once, 0.02, DEFAULTS, power), Some(2));
        let hopeless = summary(5, 0.0, 10.0);
        assert_eq!(rounds_to_decide(&hopeless, 0.02, DEFAULTS, power), None);
        let nan = summary(5, f64::NAN, 0.05);
        assert_eq!(rounds_to_decide(&nan, 0.02, DEFAULTS, power), None);
    }

    #[test]
    fn levels_scale_together() {
        let half = DEFAULTS.scaled(0.5);
        assert_eq!(half.alpha, 0.005);
        assert_eq!(half.equivalence_alpha, 0.025);
    }
}
