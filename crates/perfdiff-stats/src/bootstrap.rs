//! Ratio of means with a hierarchical (forks, then iterations) percentile bootstrap CI.
//!
//! Kalibera & Jones' method as in the `pa` tool: variance comes from two levels, between forks
//! (layout, frequency, caches: fixed within a process) and between iterations inside a fork.
//! Resampling only iterations would ignore the first and give far too narrow intervals, so each
//! replicate draws forks with replacement and then iterations with replacement inside each drawn
//! fork. A side's mean is the mean of its fork means, so every fork weighs the same however many
//! samples it produced.
//!
//! With a single fork on either side, fork-level variance cannot be seen: both sides then keep
//! all their forks and resample only iterations inside them ([`Resampling::IterationsOnly`]),
//! which the report flags. The point estimate is the same either way.
//!
//! Determinism: replicates come from `stats::resample`, whose chunked seeding makes the result
//! a function of `(data, confidence, resamples, seed)` alone, independent of the rayon pool.
use serde::{Deserialize, Serialize};

use super::StatsError;
use super::resample::{
    Side, check_parameters, check_positive, index, percentile_interval, replicates,
    resampled_fork_sum,
};

/// How the bootstrap resampled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Resampling {
    /// Forks with replacement, then iterations within each chosen fork.
    Hierarchical,
    /// A side had one fork only: iterations resampled, fork-to-fork variance unseen.
    IterationsOnly,
}

/// `head / base` ratio of means with its percentile CI. Invariant: `ci_low <= estimate <= ci_high`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RatioCi {
    pub estimate: f64,
    pub ci_low: f64,
    pub ci_high: f64,
    pub confidence: f64,
    pub resamples: usize,
    pub resampling: Resampling,
}

/// Bootstrap parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BootstrapConfig {
    pub confidence: f64,
    pub resamples: usize,
    pub seed: u64,
}

/// Ratio `mean(head) / mean(base)`, a side's mean being the mean of its fork means.
///
/// CI: percentile interval of `resamples` replicates at `confidence`, widened to contain the
/// estimate if skew pushed it outside (so `ci_low ≤ estimate ≤ ci_high` always holds).
/// Empty forks are ignored. Errors: a side without samples, a value that is not finite and
/// positive, `confidence ∉ (0, 1)`, `resamples = 0`.
pub fn ratio_of_means(
    base: &[Vec<f64>],
    head: &[Vec<f64>],
    config: &BootstrapConfig,
) -> Result<RatioCi, StatsError> {
    check_parameters(config.confidence, config.resamples)?;
    let base = Side::new(base, "ratio of means: base has no samples")?;
    let head = Side::new(head, "ratio of means: head has no samples")?;
    let resampling = resampling_for(base.fork_count().min(head.fork_count()));
    let hierarchical = resampling == Resampling::Hierarchical;
    let estimate = head.mean_of_fork_means() / base.mean_of_fork_means();
    let ratios = replicates(config.resamples, config.seed, |rng| {
        let base_mean = base.resampled_mean(rng, hierarchical);
        head.resampled_mean(rng, hierarchical) / base_mean
    });
    let (ci_low, ci_high) = percentile_interval(ratios, config.confidence, estimate);
    Ok(RatioCi {
        estimate,
        ci_low,
        ci_high,
        confidence: config.confidence,
        resamples: config.resamples,
        resampling,
    })
}

/// Relative width `(hi - lo) / mean` of the hierarchical bootstrap CI of one side's mean.
///
/// `mean` is the mean of fork means on the full data, the interval is built as in
/// [`ratio_of_means`] (iterations only for a single fork). Same errors as [`ratio_of_means`].
pub fn mean_ci_relative_width(
    forks: &[Vec<f64>],
    config: &BootstrapConfig,
) -> Result<f64, StatsError> {
    check_parameters(config.confidence, config.resamples)?;
    let side = Side::new(forks, "CI width: no samples")?;
    let hierarchical = resampling_for(side.fork_count()) == Resampling::Hierarchical;
    let estimate = side.mean_of_fork_means();
    let means = replicates(config.resamples, config.seed, |rng| {
        side.resampled_mean(rng, hierarchical)
    });
    let (low, high) = percentile_interval(means, config.confidence, estimate);
    Ok((high - low) / estimate)
}

/// Ratio of means with a percentile bootstrap at the level of the design: rounds with
/// replacement as blocks (a round's base and head fork together), then samples with replacement
/// inside each drawn fork. `rounds` holds each round's `(base samples, head samples)`; rounds
/// with an empty side are ignored. The estimate is `mean(head fork means) / mean(base fork
/// means)` over the rounds.
///
/// Reported as information: over the 2–10 rounds a comparison runs, a percentile interval of so
/// few blocks covers far less than its level (at three rounds it cannot reach past the most
/// extreme round), so the verdict rests on the t interval of [`super::rounds`]
/// (`tests/stats_simulation.rs` measures both). With a single round, only samples are
/// resampled ([`Resampling::IterationsOnly`]). Errors as [`ratio_of_means`].
pub fn ratio_of_means_by_rounds(
    rounds: &[(Vec<f64>, Vec<f64>)],
    config: &BootstrapConfig,
) -> Result<RatioCi, StatsError> {
    check_parameters(config.confidence, config.resamples)?;
    let rounds: Vec<(&[f64], &[f64])> = rounds
        .iter()
        .filter(|(b, h)| !b.is_empty() && !h.is_empty())
        .map(|(b, h)| (b.as_slice(), h.as_slice()))
        .collect();
    if rounds.is_empty() {
        return Err(StatsError::Empty(
            "ratio of means: no round with both sides",
        ));
    }
    check_positive(rounds.iter().flat_map(|(b, h)| b.iter().chain(h.iter())))?;
    let fork_mean = |fork: &[f64]| fork.iter().sum::<f64>() / fork.len() as f64;
    let base_mean: f64 = rounds.iter().map(|(b, _)| fork_mean(b)).sum::<f64>();
    let head_mean: f64 = rounds.iter().map(|(_, h)| fork_mean(h)).sum::<f64>();
    let estimate = head_mean / base_mean;
    let resampling = resampling_for(rounds.len());
    let count = rounds.len();
    let ratios = replicates(config.resamples, config.seed, |rng| {
        let (mut base, mut head) = (0.0, 0.0);
        for position in 0..count {
            let (b, h) = match resampling {
                Resampling::Hierarchical => rounds[index(rng, count)],
                Resampling::IterationsOnly => rounds[position],
            };
            base += resampled_fork_sum(b, rng) / b.len() as f64;
            head += resampled_fork_sum(h, rng) / h.len() as f64;
        }
        head / base
    });
    let (ci_low, ci_high) = percentile_interval(ratios, config.confidence, estimate);
    Ok(RatioCi {
        estimate,
        ci_low,
        ci_high,
        confidence: config.confidence,
        resamples: config.resamples,
        resampling,
    })
}

fn resampling_for(fewest_forks: usize) -> Resampling {
    if fewest_forks >= 2 {
        Resampling::Hierarchical
    } else {
        Resampling::IterationsOnly
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(seed: u64) -> BootstrapConfig {
        BootstrapConfig {
            confidence: 0.99,
            resamples: 2000,
            seed,
        }
    }

    #[test]
    fn estimate_is_ratio_of_mean_of_fork_means() {
        let base = vec![vec![1.0, 1.0], vec![3.0]]; // fork means 1, 3 -> 2
        let head = vec![vec![4.0, 4.0, 4.0], vec![2.0, 6.0]]; // 4, 4 -> 4
        let r = ratio_of_means(&base, &head, &config(1)).unwrap();
        assert_eq!(r.estimate, 2.0);
        assert!(r.ci_low <= 2.0 && 2.0 <= r.ci_high);
        assert_eq!(r.resampling, Resampling::Hierarchical);
        assert_eq!(r, ratio_of_means(&base, &head, &config(1)).unwrap());
    }

    #[test]
    fn one_fork_falls_back_to_iterations() {
        let base = vec![vec![10.0, 11.0, 9.0, 10.5]];
        let head = vec![vec![20.0, 21.0], vec![19.0, 22.0]];
        let r = ratio_of_means(&base, &head, &config(3)).unwrap();
        assert_eq!(r.resampling, Resampling::IterationsOnly);
        assert!(r.ci_low > 1.5 && r.ci_high < 2.5, "{r:?}");
    }

    #[test]
    fn constant_data_gives_a_point_interval() {
        let side = vec![vec![5.0; 10]; 3];
        let r = ratio_of_means(&side, &side, &config(4)).unwrap();
        assert_eq!((r.estimate, r.ci_low, r.ci_high), (1.0, 1.0, 1.0));
        assert_eq!(mean_ci_relative_width(&side, &config(4)).unwrap(), 0.0);
    }

    #[test]
    fn rounds_are_resampled_as_blocks() {
        // Each round: base and head moved alike by the round's layout (×1, ×2, ×4), head 10 %
        // slower. Resampling whole rounds keeps every replicate at 1.1; resampling the sides
        // apart would not.
        let rounds: Vec<(Vec<f64>, Vec<f64>)> = [1.0, 2.0, 4.0]
            .iter()
            .map(|l| (vec![10.0 * l; 5], vec![11.0 * l; 5]))
            .collect();
        let r = ratio_of_means_by_rounds(&rounds, &config(2)).unwrap();
        assert!((r.estimate - 1.1).abs() < 1e-12);
        assert!((r.ci_low - 1.1).abs() < 1e-12 && (r.ci_high - 1.1).abs() < 1e-12);
        assert_eq!(r.resampling, Resampling::Hierarchical);
        let one = ratio_of_means_by_rounds(&rounds[..1], &config(2)).unwrap();
        assert_eq!(one.resampling, Resampling::IterationsOnly);
        assert!(matches!(
            ratio_of_means_by_rounds(&[(vec![], vec![1.0])], &config(2)),
            Err(StatsError::Empty(_))
        ));
    }

    #[test]
    fn rejects_bad_input() {
        let ok = vec![vec![1.0, 2.0]];
        assert!(matches!(
            ratio_of_means(&[vec![]], &ok, &config(1)),
            Err(StatsError::Empty(_))
        ));
        assert!(matches!(
            ratio_of_means(&[vec![0.0]], &ok, &config(1)),
            Err(StatsError::InvalidValue(_))
        ));
        let bad = BootstrapConfig {
            confidence: 1.0,
            ..config(1)
        };
        assert!(matches!(
            ratio_of_means(&ok, &ok, &bad),
            Err(StatsError::InvalidParameter(_))
        ));
    }
}
