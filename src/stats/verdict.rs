//! The verdict that combines ratio CI, Mann–Whitney, Cliff's delta and the relevance threshold.
//!
//! A regression must pass four independent gates, so that none of them alone (a lucky bootstrap,
//! a U test that flags a 0.1 % shift among 10^5 samples, a large but noisy change) can fail a
//! build. Conversely "unchanged" is a positive claim: the whole CI lies within the band of
//! changes the user called irrelevant. Everything else — the data cannot tell — is inconclusive.
use serde::{Deserialize, Serialize};

use super::bootstrap::RatioCi;
use super::cliffs::SMALL_EFFECT;

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
    pub ratio: RatioCi,
    /// Mann–Whitney p-value (after false-discovery adjustment when enabled).
    pub p_value: f64,
    pub delta: f64,
    pub change_rate: f64,
    /// The verdict of a t interval on the fork means ([`super::fork_interval`]), which the
    /// verdict must share; `None` when a side has fewer than two forks. One process per side
    /// decides nothing: every fork of an executable shares one code layout and one process's
    /// luck, which the samples inside it never vary, so a change between two single forks may be
    /// nothing but the difference between two processes (or layouts).
    pub fork_interval: Option<Verdict>,
    /// How far the benchmark moves between code layouts of the same source (half the range of
    /// its layout means, a fraction); `None` when a side was measured in fewer than two layouts.
    /// A change no larger than this is not called a change: the same code linked in another
    /// order moved the benchmark as far.
    pub layout_spread: Option<f64>,
}

/// - `Regressed`: `ci_low > 1`, `p < alpha`, `delta ≥ 0.147` and `change_rate ≥ threshold`.
/// - `Improved`: `ci_high < 1`, `p < alpha`, `delta ≤ −0.147` and `change_rate ≤ −threshold`.
/// - `Unchanged`: `1 − threshold ≤ ci_low` and `ci_high ≤ 1 + threshold`.
/// - `Inconclusive`: anything else, including evidence whose directions disagree (CI above 1 but
///   delta negative), NaN anywhere, a verdict the fork-means t interval does not share,
///   evidence without that interval (a side with a single fork), and a change whose size is
///   within the layout spread.
///
/// Gates are checked in that order, the t interval and then the layout spread last.
pub fn decide(evidence: &Evidence, threshold: f64, alpha: f64) -> Verdict {
    let verdict = decide_by_code_and_forks(evidence, threshold, alpha);
    let within_layout_spread = evidence
        .layout_spread
        .is_some_and(|spread| evidence.change_rate.abs() <= spread || spread.is_nan());
    match verdict {
        Verdict::Regressed | Verdict::Improved if within_layout_spread => Verdict::Inconclusive,
        _ => verdict,
    }
}

/// The verdict without the layout-spread gate: the four gates and the t interval.
pub fn decide_by_code_and_forks(evidence: &Evidence, threshold: f64, alpha: f64) -> Verdict {
    let verdict = decide_by_bootstrap_and_ranks(evidence, threshold, alpha);
    match evidence.fork_interval {
        Some(interval) if interval == verdict => verdict,
        _ => Verdict::Inconclusive,
    }
}

/// The four gates without the t interval: the verdict the CI, ranks and threshold give alone.
pub fn decide_by_bootstrap_and_ranks(evidence: &Evidence, threshold: f64, alpha: f64) -> Verdict {
    let Evidence {
        ratio,
        p_value,
        delta,
        change_rate,
        ..
    } = *evidence;
    let significant = p_value < alpha;
    if significant && ratio.ci_low > 1.0 && delta >= SMALL_EFFECT && change_rate >= threshold {
        return Verdict::Regressed;
    }
    if significant && ratio.ci_high < 1.0 && delta <= -SMALL_EFFECT && change_rate <= -threshold {
        return Verdict::Improved;
    }
    if ratio.ci_low >= 1.0 - threshold && ratio.ci_high <= 1.0 + threshold {
        return Verdict::Unchanged;
    }
    Verdict::Inconclusive
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Resampling;

    fn evidence(ci: (f64, f64), p_value: f64, delta: f64, change_rate: f64) -> Evidence {
        Evidence {
            ratio: RatioCi {
                estimate: 1.0 + change_rate,
                ci_low: ci.0,
                ci_high: ci.1,
                confidence: 0.99,
                resamples: 1000,
                resampling: Resampling::Hierarchical,
            },
            p_value,
            delta,
            change_rate,
            fork_interval: None,
            layout_spread: None,
        }
    }

    #[test]
    fn every_gate_counts() {
        let decide = |e: Evidence| decide_by_bootstrap_and_ranks(&e, 0.02, 0.01);
        assert_eq!(
            decide(evidence((1.1, 1.3), 0.001, 0.5, 0.2)),
            Verdict::Regressed
        );
        assert_eq!(
            decide(evidence((0.7, 0.9), 0.001, -0.5, -0.2)),
            Verdict::Improved
        );
        // each gate failing on its own turns a regression into inconclusive
        assert_eq!(
            decide(evidence((0.99, 1.3), 0.001, 0.5, 0.2)),
            Verdict::Inconclusive
        );
        assert_eq!(
            decide(evidence((1.1, 1.3), 0.02, 0.5, 0.2)),
            Verdict::Inconclusive
        );
        assert_eq!(
            decide(evidence((1.1, 1.3), 0.001, 0.1, 0.2)),
            Verdict::Inconclusive
        );
        assert_eq!(
            decide(evidence((1.1, 1.3), 0.001, -0.5, 0.2)),
            Verdict::Inconclusive
        );
        // a significant change smaller than the threshold is unchanged
        assert_eq!(
            decide(evidence((1.001, 1.015), 0.001, 0.5, 0.01)),
            Verdict::Unchanged
        );
        assert_eq!(
            decide(evidence((0.98, 1.02), 0.5, 0.0, 0.0)),
            Verdict::Unchanged
        );
        assert_eq!(
            decide(evidence((0.97, 1.02), 0.5, 0.0, 0.0)),
            Verdict::Inconclusive
        );
        assert_eq!(
            decide(evidence((f64::NAN, f64::NAN), f64::NAN, 0.0, 0.0)),
            Verdict::Inconclusive
        );
    }

    #[test]
    fn a_fork_interval_that_disagrees_or_is_missing_makes_it_inconclusive() {
        let decide = |e: Evidence| decide(&e, 0.02, 0.01);
        let regressed = evidence((1.1, 1.3), 0.001, 0.5, 0.2);
        for (interval, expected) in [
            (Some(Verdict::Regressed), Verdict::Regressed),
            // a single fork on a side: nothing replicated, nothing decided
            (None, Verdict::Inconclusive),
            (Some(Verdict::Inconclusive), Verdict::Inconclusive),
            (Some(Verdict::Unchanged), Verdict::Inconclusive),
        ] {
            let e = Evidence {
                fork_interval: interval,
                ..regressed
            };
            assert_eq!(decide(e), expected, "{interval:?}");
        }
        // the interval never turns an inconclusive bootstrap into a decision
        let open = Evidence {
            fork_interval: Some(Verdict::Regressed),
            ..evidence((0.99, 1.3), 0.001, 0.5, 0.2)
        };
        assert_eq!(decide(open), Verdict::Inconclusive);
    }

    #[test]
    fn a_change_within_the_layout_spread_is_not_a_change() {
        let decide = |e: Evidence| decide(&e, 0.02, 0.01);
        let regressed = Evidence {
            fork_interval: Some(Verdict::Regressed),
            ..evidence((1.1, 1.3), 0.001, 0.5, 0.2)
        };
        let with_spread = |spread| Evidence {
            layout_spread: Some(spread),
            ..regressed
        };
        assert_eq!(decide(regressed), Verdict::Regressed);
        assert_eq!(decide(with_spread(0.05)), Verdict::Regressed);
        assert_eq!(decide(with_spread(0.2)), Verdict::Inconclusive);
        assert_eq!(decide(with_spread(0.25)), Verdict::Inconclusive);
        assert_eq!(decide(with_spread(f64::NAN)), Verdict::Inconclusive);
        let improved = Evidence {
            fork_interval: Some(Verdict::Improved),
            layout_spread: Some(0.25),
            ..evidence((0.7, 0.9), 0.001, -0.5, -0.2)
        };
        assert_eq!(decide(improved), Verdict::Inconclusive);
        // "unchanged" is a claim about the interval, which the spread does not touch
        let unchanged = Evidence {
            fork_interval: Some(Verdict::Unchanged),
            layout_spread: Some(0.25),
            ..evidence((0.99, 1.01), 0.5, 0.0, 0.0)
        };
        assert_eq!(decide(unchanged), Verdict::Unchanged);
    }
}
