//! The verdict: one interval of the paired rounds decides, and it is the one reported.
//!
//! A change is called when the interval of the round log ratios ([`super::rounds`]) excludes 1,
//! its estimate reaches the relevance threshold, and its test survives false-discovery control
//! over the suite (the only gate besides the interval and the threshold: a suite compares dozens
//! of benchmarks at once). "Unchanged" is a positive claim, shown by two one-sided tests: the
//! `1 − 2·alpha` interval lies inside the band of changes the user called irrelevant. Everything
//! else — the data cannot tell — is inconclusive. Every verdict can be read off the interval it
//! returns: `regressed` has its low end above 1, `improved` its high end below 1, `unchanged` the
//! whole interval inside `1 ± threshold`.
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

/// A verdict and the interval it rests on: the `1 − alpha` interval, or for `unchanged` the
/// `1 − 2·alpha` interval of the two one-sided tests.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Decision {
    pub verdict: Verdict,
    pub interval: RatioInterval,
}

/// - `Regressed`: the `1 − alpha` interval's low end above 1, `q < alpha`, and the estimate at
///   least `1 + threshold`.
/// - `Improved`: its high end below 1, `q < alpha`, the estimate at most `1 − threshold`.
/// - `Unchanged`: the `1 − 2·alpha` interval within `[1 − threshold, 1 + threshold]`.
/// - `Inconclusive`: anything else, NaN anywhere included.
pub fn decide(evidence: &Evidence, threshold: f64, alpha: f64) -> Decision {
    let difference = evidence.paired.interval(1.0 - alpha);
    let change = difference.estimate - 1.0;
    let significant = evidence.q_value < alpha;
    let verdict = if significant && difference.ci_low > 1.0 && change >= threshold {
        Verdict::Regressed
    } else if significant && difference.ci_high < 1.0 && change <= -threshold {
        Verdict::Improved
    } else {
        let equivalence = evidence.paired.equivalence_interval(alpha);
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
pub fn decide_without_fdr(paired: &PairedRounds, threshold: f64, alpha: f64) -> Verdict {
    let evidence = Evidence {
        paired: *paired,
        q_value: paired.p_value(),
    };
    decide(&evidence, threshold, alpha).verdict
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

    fn verdict(ratios: &[f64]) -> Decision {
        let paired = paired(ratios);
        let evidence = Evidence {
            paired,
            q_value: paired.p_value(),
        };
        decide(&evidence, 0.02, 0.01)
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
        assert_eq!(decide_without_fdr(&paired, 0.02, 0.01), Verdict::Regressed);
        let adjusted = Evidence {
            paired,
            q_value: 0.02,
        };
        let decision = decide(&adjusted, 0.02, 0.01);
        assert_eq!(decision.verdict, Verdict::Inconclusive);
        assert!(
            decision.interval.ci_low > 1.0,
            "the interval itself is unchanged"
        );
        let nan = Evidence {
            paired,
            q_value: f64::NAN,
        };
        assert_eq!(decide(&nan, 0.02, 0.01).verdict, Verdict::Inconclusive);
    }
}
