//! Duet statistics (Bulej et al., ICPE 2020, section 3): paired ratios per run, geometric means.
//!
//! In duet mode base and head run at the same time on two pinned CPUs, so interference hits both
//! alike and cancels in the ratio of paired samples `s_i = head_i / base_i`. Ratios multiply, so
//! they are averaged geometrically: per run `gms = geomean(s)`, over runs `ggms = geomean(gms)`,
//! the point estimate. The CI is the percentile bootstrap of `ggms` over runs (runs are the
//! independent units; the pairs inside one run share its machine state).
//!
//! Outliers: per run at most one ratio is winsorised, the one lying more than 20 % beyond the
//! min–max range of the others (see [`winsorise_run`]), as in the paper's section 4.
use super::StatsError;
use super::bootstrap::{BootstrapConfig, RatioCi, Resampling};
use super::resample::{check_parameters, check_positive, index, percentile_interval, replicates};

/// One duet run: samples of base and head paired by position.
#[derive(Debug, Clone, PartialEq)]
pub struct DuetRun {
    pub base: Vec<f64>,
    pub head: Vec<f64>,
}

/// How far beyond the others' range a ratio must lie to be winsorised: 20 %.
const WINSOR_MARGIN: f64 = 0.2;

/// Winsorises at most one value of a run's ratios, in place; returns whether it did.
///
/// With `lo`/`hi` the minimum/maximum of the *other* values, the run's maximum is an outlier when
/// it exceeds `hi · 1.2`, its minimum when it is below `lo · 0.8` ("more than 20 % away from the
/// min–max range", measured relative to the range's end, as ratios are scale-free). The outlier
/// is replaced by its nearest neighbour (`hi` or `lo`). If both ends qualify, the one relatively
/// farther away is replaced. Runs with fewer than three values are left alone: one remaining
/// value is no range.
pub fn winsorise_run(ratios: &mut [f64]) -> bool {
    if ratios.len() < 3 {
        return false;
    }
    let mut order: Vec<usize> = (0..ratios.len()).collect();
    order.sort_unstable_by(|&a, &b| ratios[a].total_cmp(&ratios[b]));
    let (min_at, second_min) = (order[0], ratios[order[1]]);
    let (max_at, second_max) = (order[order.len() - 1], ratios[order[order.len() - 2]]);
    let high_excess = ratios[max_at] / second_max - 1.0;
    let low_excess = 1.0 - ratios[min_at] / second_min;
    let high_is_outlier = high_excess > WINSOR_MARGIN;
    let low_is_outlier = low_excess > WINSOR_MARGIN;
    match (high_is_outlier, low_is_outlier) {
        (true, false) => ratios[max_at] = second_max,
        (false, true) => ratios[min_at] = second_min,
        (true, true) if high_excess >= low_excess => ratios[max_at] = second_max,
        (true, true) => ratios[min_at] = second_min,
        (false, false) => return false,
    }
    true
}

/// Grand geometric mean of the runs' geometric-mean ratios `head/base`, with a percentile bootstrap
/// CI over runs.
///
/// One run: the CI resamples that run's (winsorised) paired ratios instead
/// ([`Resampling::IterationsOnly`]). Invariant `ci_low ≤ estimate ≤ ci_high` as in
/// [`super::bootstrap::ratio_of_means`]. Runs without pairs are ignored. Errors: no pairs at all,
/// base and head of a run of different lengths, a value not finite and positive, bad config.
pub fn duet_ratio(runs: &[DuetRun], config: &BootstrapConfig) -> Result<RatioCi, StatsError> {
    check_parameters(config.confidence, config.resamples)?;
    let log_ratios = runs_log_ratios(runs)?;
    let run_log_means: Vec<f64> = log_ratios.iter().map(|r| mean(r)).collect();
    let estimate = mean(&run_log_means).exp();
    let (values, resampling) = if run_log_means.len() >= 2 {
        (run_log_means, Resampling::Hierarchical)
    } else {
        (log_ratios.concat(), Resampling::IterationsOnly)
    };
    // Geometric means are arithmetic means of logs: resample the logs, exponentiate the mean.
    let replicated = replicates(config.resamples, config.seed, |rng| {
        let n = values.len();
        let sum: f64 = (0..n).map(|_| values[index(rng, n)]).sum();
        (sum / n as f64).exp()
    });
    let (ci_low, ci_high) = percentile_interval(replicated, config.confidence, estimate);
    Ok(RatioCi {
        estimate,
        ci_low,
        ci_high,
        confidence: config.confidence,
        resamples: config.resamples,
        resampling,
    })
}

/// The log of one run's geometric-mean ratio `gms` (its winsorised paired ratios
/// `head_i / base_i`): the value a duet round contributes to the paired interval of
/// [`super::rounds`]. Errors as [`duet_ratio`] for that run alone.
pub fn run_log_ratio(run: &DuetRun) -> Result<f64, StatsError> {
    let logs = runs_log_ratios(std::slice::from_ref(run))?;
    Ok(mean(&logs[0]))
}

/// Per non-empty run, the logarithms of its winsorised ratios `head_i / base_i`.
fn runs_log_ratios(runs: &[DuetRun]) -> Result<Vec<Vec<f64>>, StatsError> {
    let mut all = Vec::with_capacity(runs.len());
    for run in runs {
        if run.base.len() != run.head.len() {
            return Err(StatsError::InvalidParameter(format!(
                "duet run pairs {} base samples with {} head samples",
                run.base.len(),
                run.head.len()
            )));
        }
        if run.base.is_empty() {
            continue;
        }
        check_positive(run.base.iter().chain(run.head.iter()))?;
        let mut ratios: Vec<f64> = run.head.iter().zip(&run.base).map(|(h, b)| h / b).collect();
        winsorise_run(&mut ratios);
        all.push(ratios.iter().map(|r| r.ln()).collect());
    }
    if all.is_empty() {
        return Err(StatsError::Empty("duet: no paired samples"));
    }
    Ok(all)
}

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> BootstrapConfig {
        BootstrapConfig {
            confidence: 0.99,
            resamples: 2000,
            seed: 11,
        }
    }

    #[test]
    fn winsorises_one_far_value_only() {
        let mut r = vec![1.0, 1.01, 0.99, 1.5];
        assert!(winsorise_run(&mut r));
        assert_eq!(r, vec![1.0, 1.01, 0.99, 1.01]);
        let mut low = vec![1.0, 1.01, 0.5, 0.99];
        assert!(winsorise_run(&mut low));
        assert_eq!(low[2], 0.99);
        let mut fine = vec![1.0, 1.19, 1.0];
        assert!(!winsorise_run(&mut fine));
        let mut two_outliers = vec![1.0, 1.0, 2.0, 3.0];
        assert!(winsorise_run(&mut two_outliers));
        assert_eq!(two_outliers, vec![1.0, 1.0, 2.0, 2.0]);
    }

    #[test]
    fn estimate_is_grand_geometric_mean() {
        let runs = vec![
            DuetRun {
                base: vec![1.0, 1.0],
                head: vec![2.0, 8.0],
            }, // gms 4
            DuetRun {
                base: vec![2.0, 2.0],
                head: vec![2.0, 2.0],
            }, // gms 1
        ];
        let r = duet_ratio(&runs, &config()).unwrap();
        assert!((r.estimate - 2.0).abs() < 1e-12);
        assert!(r.ci_low <= r.estimate && r.estimate <= r.ci_high);
        assert_eq!(r.resampling, Resampling::Hierarchical);
    }

    #[test]
    fn one_run_resamples_pairs() {
        let run = DuetRun {
            base: vec![1.0; 6],
            head: vec![1.1, 1.2, 1.1, 1.2, 1.1, 1.2],
        };
        let r = duet_ratio(&[run], &config()).unwrap();
        assert_eq!(r.resampling, Resampling::IterationsOnly);
        assert!(r.ci_low >= 1.1 && r.ci_high <= 1.2, "{r:?}");
    }

    #[test]
    fn rejects_unpaired_and_empty() {
        let unpaired = DuetRun {
            base: vec![1.0],
            head: vec![1.0, 2.0],
        };
        assert!(matches!(
            duet_ratio(&[unpaired], &config()),
            Err(StatsError::InvalidParameter(_))
        ));
        let empty = DuetRun {
            base: vec![],
            head: vec![],
        };
        assert!(matches!(
            duet_ratio(&[empty], &config()),
            Err(StatsError::Empty(_))
        ));
    }
}
