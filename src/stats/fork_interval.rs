//! t intervals on fork means: the check the hierarchical bootstrap needs when forks are few.
//!
//! The percentile bootstrap underestimates the spread of a mean over few forks: its variance is
//! `(n − 1)/n` of the plug-in one and its tails are normal-like where a t with few degrees of
//! freedom belongs. At three forks and a per-look alpha of a fraction of a percent that matters:
//! `tests/stop_decided_simulation.rs` showed 6.5 % A/A false alarms at alpha = 5 % with the
//! bootstrap alone. A t interval on the log fork means is exact for normal fork means, so a
//! verdict that needs both keeps its level. Every analysis with at least two forks per side
//! requires the two to agree, whatever the stop rule: with ten forks the bootstrap alone gave
//! 7.8 % A/A false alarms at alpha = 5 % when forks differ more than samples do (the fixed-run
//! case of `tests/stop_decided_simulation.rs`), 4.6 % with the gate. The `decided` stop rule asks
//! the same agreement at every look.
//!
//! Intervals are on the log of the head/base ratio and judged against the relevance band like
//! the bootstrap CI ([`super::verdict::decide`]).
use statrs::distribution::{ContinuousCDF, StudentsT};

use super::Verdict;
use super::descriptive::{finite_logs, mean, variance};

/// Verdict of Student's two-sample t interval (level `1 − alpha`) for the difference of the mean
/// log fork means, i.e. the log of the head/base ratio of geometric means of fork means.
///
/// The variance is pooled (`n_b + n_h − 2` degrees of freedom): under an A/A comparison both sides
/// share their distribution, so the pooled interval is exact there, and with the balanced rounds
/// perfdiff runs its standard error equals Welch's. Welch's degrees of freedom would fall to about
/// `n − 1` whenever one side happens to be quieter, which at three forks per side doubles the
/// interval for no gain in A/A protection. Inconclusive with fewer than two finite positive means
/// on a side.
pub fn two_sample_verdict(
    base_means: &[f64],
    head_means: &[f64],
    relevance: f64,
    alpha: f64,
) -> Verdict {
    let (b, h) = (finite_logs(base_means), finite_logs(head_means));
    if b.len() < 2 || h.len() < 2 {
        return Verdict::Inconclusive;
    }
    let (n_b, n_h) = (b.len() as f64, h.len() as f64);
    let df = n_b + n_h - 2.0;
    let pooled_variance = (variance(&b) * (n_b - 1.0) + variance(&h) * (n_h - 1.0)) / df;
    let se2 = pooled_variance * (1.0 / n_b + 1.0 / n_h);
    interval_verdict(mean(&h) - mean(&b), se2, df, relevance, alpha)
}

/// Verdict of a one-sample t interval (level `1 − alpha`) for the mean of per-round log ratios
/// `ln(mean(head) / mean(base))` of forks that ran together (duet rounds). Pairing lets
/// interference common to both CPUs cancel, which is why duet runs decide sooner. Inconclusive
/// with fewer than two finite log ratios.
pub fn paired_verdict(log_ratios: &[f64], relevance: f64, alpha: f64) -> Verdict {
    let logs: Vec<f64> = log_ratios
        .iter()
        .copied()
        .filter(|v| v.is_finite())
        .collect();
    if logs.len() < 2 {
        return Verdict::Inconclusive;
    }
    let n = logs.len() as f64;
    interval_verdict(mean(&logs), variance(&logs) / n, n - 1.0, relevance, alpha)
}

/// Verdict from a t interval of a log ratio `d` with squared standard error `se2` and `df`
/// degrees of freedom, at level `1 − alpha`, against the relevance band.
fn interval_verdict(d: f64, se2: f64, df: f64, relevance: f64, alpha: f64) -> Verdict {
    let Ok(t) = StudentsT::new(0.0, 1.0, df.max(1.0)) else {
        return Verdict::Inconclusive;
    };
    let q = t.inverse_cdf(1.0 - alpha / 2.0);
    let (low, high) = ((d - q * se2.sqrt()).exp(), (d + q * se2.sqrt()).exp());
    let change = d.exp() - 1.0;
    if low > 1.0 && change >= relevance {
        Verdict::Regressed
    } else if high < 1.0 && change <= -relevance {
        Verdict::Improved
    } else if low >= 1.0 - relevance && high <= 1.0 + relevance {
        Verdict::Unchanged
    } else {
        Verdict::Inconclusive
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clear_change_over_three_forks_is_decided() {
        let base = [100.0, 100.5, 99.6];
        let head = [110.2, 109.7, 110.5];
        assert_eq!(
            two_sample_verdict(&base, &head, 0.02, 0.0033),
            Verdict::Regressed
        );
        assert_eq!(
            two_sample_verdict(&head, &base, 0.02, 0.0033),
            Verdict::Improved
        );
        // at three forks the interval is wide: 0.45 % fork noise is too much to show "unchanged"
        // within 2 % at this level (half-width 2.3 %), 0.15 % is not
        assert_eq!(
            two_sample_verdict(&base, &base, 0.02, 0.0033),
            Verdict::Inconclusive
        );
        let tight = [100.0, 100.2, 99.9];
        assert_eq!(
            two_sample_verdict(&tight, &tight, 0.02, 0.0033),
            Verdict::Unchanged
        );
    }

    #[test]
    fn noise_as_large_as_the_change_is_inconclusive() {
        let base = [100.0, 112.0, 95.0];
        let head = [110.0, 101.0, 118.0];
        assert_eq!(
            two_sample_verdict(&base, &head, 0.02, 0.0033),
            Verdict::Inconclusive
        );
    }

    #[test]
    fn the_pooled_interval_matches_students_t() {
        // scipy.stats.ttest_ind([0, 1, 2], [3, 5, 7]) on the logs: t = −3.098, df = 4,
        // two-sided p = 0.0363: the 95 % interval excludes 0, the 99 % one does not.
        let (base, head) = ([0.0f64, 1.0, 2.0], [3.0f64, 5.0, 7.0]);
        let exp = |v: &[f64]| v.iter().map(|x| x.exp()).collect::<Vec<_>>();
        let (b, h) = (exp(&base), exp(&head));
        assert_eq!(two_sample_verdict(&b, &h, 0.0, 0.05), Verdict::Regressed);
        assert_eq!(two_sample_verdict(&b, &h, 0.0, 0.03), Verdict::Inconclusive);
        assert_eq!(two_sample_verdict(&b, &h, 0.0, 0.04), Verdict::Regressed);
    }

    #[test]
    fn too_few_forks_decide_nothing() {
        assert_eq!(
            two_sample_verdict(&[1.0], &[2.0, 2.0], 0.0, 0.5),
            Verdict::Inconclusive
        );
        assert_eq!(paired_verdict(&[0.1], 0.0, 0.5), Verdict::Inconclusive);
        assert_eq!(
            two_sample_verdict(&[f64::NAN, 1.0], &[2.0, 2.1], 0.0, 0.5),
            Verdict::Inconclusive
        );
    }

    #[test]
    fn paired_rounds_cancel_common_noise() {
        // every round is 10 % slower on head, whatever the round's own level
        let logs: Vec<f64> = [1.101, 1.099, 1.1, 1.102]
            .iter()
            .map(|r: &f64| r.ln())
            .collect();
        assert_eq!(paired_verdict(&logs, 0.02, 0.01), Verdict::Regressed);
    }
}
