//! Means, variances, quantiles: the small building blocks every other statistic uses.
//!
//! These functions take plain slices and never fail: an input they cannot summarise (an empty
//! slice, one value where a spread needs two) gives `NaN`, which callers check with
//! `is_finite`. Validation with typed errors happens at the public entry points of the other
//! modules, which know what the numbers mean.

/// Arithmetic mean; NaN for an empty slice.
pub fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}

/// The mean of each fork, in order (NaN for an empty fork).
pub fn fork_means(forks: &[Vec<f64>]) -> Vec<f64> {
    forks.iter().map(|f| mean(f)).collect()
}

/// Mean of the per-fork means: every fork weighs the same, however many samples it has.
/// Empty forks carry no measurement and are skipped, as in the bootstrap; NaN if all are empty.
pub fn mean_of_fork_means(forks: &[Vec<f64>]) -> f64 {
    let means: Vec<f64> = forks
        .iter()
        .filter(|f| !f.is_empty())
        .map(|f| mean(f))
        .collect();
    mean(&means)
}

/// `head / base − 1`.
pub fn change_rate(base_mean: f64, head_mean: f64) -> f64 {
    head_mean / base_mean - 1.0
}

/// Sample variance with Bessel's correction (divides by `n − 1`); NaN for fewer than two values.
///
/// Two-pass (mean first, then squared deviations) so large offsets do not cancel.
pub fn variance(values: &[f64]) -> f64 {
    if values.len() < 2 {
        return f64::NAN;
    }
    let m = mean(values);
    values.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (values.len() - 1) as f64
}

/// Sample standard deviation, `sqrt(variance)`; NaN for fewer than two values.
pub fn std_dev(values: &[f64]) -> f64 {
    variance(values).sqrt()
}

/// Quantile `q ∈ [0, 1]` by linear interpolation between order statistics: Hyndman & Fan type 7,
/// the default of numpy (`np.quantile`) and R. With sorted values `x[0..n]` and `h = (n − 1)·q`,
/// the result is `x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋+1] − x[⌊h⌋])`. NaN for an empty slice or `q` outside
/// `[0, 1]`. The input need not be sorted.
pub fn quantile(values: &[f64], q: f64) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_unstable_by(f64::total_cmp);
    quantile_sorted(&sorted, q)
}

/// [`quantile`] on an already ascending slice (no copy, no sort).
pub fn quantile_sorted(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() || !(0.0..=1.0).contains(&q) {
        return f64::NAN;
    }
    let h = (sorted.len() - 1) as f64 * q;
    let lower = h.floor() as usize;
    let upper = (lower + 1).min(sorted.len() - 1);
    let fraction = h - lower as f64;
    sorted[lower] + fraction * (sorted[upper] - sorted[lower])
}

/// Median: the type-7 quantile at 0.5 (mean of the two middle values for an even count).
pub fn median(values: &[f64]) -> f64 {
    quantile(values, 0.5)
}

/// Geometric mean `exp(mean(ln x))`; NaN for an empty slice or any value that is not positive.
pub fn geometric_mean(values: &[f64]) -> f64 {
    if values.is_empty() || values.iter().any(|&v| v.is_nan() || v <= 0.0) {
        return f64::NAN;
    }
    mean_of_logs(values).exp()
}

/// The natural logs of the values that have a finite one (positive, finite values), in order.
pub fn finite_logs(values: &[f64]) -> Vec<f64> {
    values
        .iter()
        .map(|v| v.ln())
        .filter(|v| v.is_finite())
        .collect()
}

fn mean_of_logs(values: &[f64]) -> f64 {
    values.iter().map(|v| v.ln()).sum::<f64>() / values.len() as f64
}

/// Coefficient of variation `std_dev / mean` (sample standard deviation); NaN for fewer than two
/// values or a zero mean.
pub fn coefficient_of_variation(values: &[f64]) -> f64 {
    let m = mean(values);
    if m == 0.0 {
        return f64::NAN;
    }
    std_dev(values) / m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantile_matches_numpy_type_7() {
        let v = [3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0];
        // np.quantile([3,1,4,1,5,9,2,6], [0, .25, .5, .9, 1]) = [1, 1.75, 3.5, 6.9, 9]
        assert_eq!(quantile(&v, 0.0), 1.0);
        assert!((quantile(&v, 0.25) - 1.75).abs() < 1e-12);
        assert!((median(&v) - 3.5).abs() < 1e-12);
        assert!((quantile(&v, 0.9) - 6.9).abs() < 1e-12);
        assert_eq!(quantile(&v, 1.0), 9.0);
        assert!(quantile(&[], 0.5).is_nan());
        assert!(quantile(&v, 1.5).is_nan());
    }

    #[test]
    fn variance_and_geometric_mean() {
        let v = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0];
        assert!((variance(&v) - 32.0 / 7.0).abs() < 1e-12);
        assert!(variance(&[1.0]).is_nan());
        assert!((geometric_mean(&[1.0, 4.0, 16.0]) - 4.0).abs() < 1e-12);
        assert!(geometric_mean(&[1.0, 0.0]).is_nan());
        assert!((coefficient_of_variation(&[1.0, 3.0]) - 2f64.sqrt() / 2.0).abs() < 1e-12);
        assert_eq!(
            mean_of_fork_means(&[vec![1.0, 3.0], vec![], vec![6.0]]),
            4.0
        );
        assert!(mean_of_fork_means(&[vec![]]).is_nan());
    }
}
