//! Means, variances, quantiles.

/// Arithmetic mean; NaN for an empty slice.
pub fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}

/// Mean of the per-fork means: every fork weighs the same, however many samples it has.
pub fn mean_of_fork_means(forks: &[Vec<f64>]) -> f64 {
    let means: Vec<f64> = forks.iter().map(|f| mean(f)).collect();
    mean(&means)
}

/// `head / base − 1`.
pub fn change_rate(base_mean: f64, head_mean: f64) -> f64 {
    head_mean / base_mean - 1.0
}
