//! Stop criteria of dynamic reconfiguration (Laaber et al., FSE 2020, section 4).
//!
//! A benchmark may stop warming up, or stop adding forks, once more data would no longer change
//! its result. Each criterion turns a growing prefix of the data (iterations 1..x or forks 1..x)
//! into one number `sc_x`; the data count as stable when a sliding window of the last values is
//! flat (CV, RCIW: `max − min ≤ t`) or consistently high (KLD: `mean > t`).
//!
//! Choices the papers leave open, fixed here (also in `docs/design/statistics.md`):
//! - Outliers: values above 10 × the median of the data a criterion looks at are dropped first
//!   (001 section 5.1.1), separately for every prefix.
//! - CV uses the sample standard deviation (`n − 1`).
//! - KLD: both densities are Gaussian KDEs with Scott's bandwidth exactly as
//!   `scipy.stats.gaussian_kde` (`σ̂·n^(−1/5)`, `σ̂` with `n − 1`), evaluated at the midpoints of
//!   1,000 equal strips over `[Q1 − 1.5·IQR, Q3 + 1.5·IQR]`. The quartiles are those of the
//!   **pooled** data of both samples, so the grid, and hence the probability, is symmetric in its
//!   arguments; in the prefix series the newer sample contains the older one, so the grid is
//!   essentially that of all data so far. The strip densities are normalised to probability
//!   masses and `D` uses base-2 logarithms, matching `p = 2^(−D(P‖Q))·2^(−D(Q‖P))`.
//! - Thinning: KLD uses at most 1,000 points per sample and RCIW at most 10,000 (proportionally
//!   per group), chosen deterministically as evenly spaced order statistics (type-7 quantiles at
//!   `(i + ½)/k`), which keeps the distribution's shape without randomness.
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::bootstrap::{BootstrapConfig, mean_ci_relative_width};
use super::descriptive::{self, quantile_sorted};

/// A stability criterion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Criterion {
    Cv,
    Rciw,
    Kld,
}

impl Criterion {
    /// The paper's threshold: 0.01 (CV), 0.03 (RCIW), 0.99 (KLD).
    pub fn default_threshold(self) -> f64 {
        match self {
            Criterion::Cv => 0.01,
            Criterion::Rciw => 0.03,
            Criterion::Kld => 0.99,
        }
    }
}

/// Number of strips the KLD densities are evaluated on.
pub const KLD_STRIPS: usize = 1000;
/// Points per sample the KLD criterion keeps at most.
pub const KLD_MAX_POINTS: usize = 1000;
/// Points the RCIW criterion keeps at most.
pub const RCIW_MAX_POINTS: usize = 10_000;
/// Confidence and resamples of the RCIW criterion (the paper's 99 %, 1,000).
pub const RCIW_CONFIDENCE: f64 = 0.99;
pub const RCIW_RESAMPLES: usize = 1000;
/// Values above this multiple of the median are outliers.
const OUTLIER_FACTOR: f64 = 10.0;

/// The values without those above 10 × their median, order kept. NaN values are dropped too.
pub fn drop_outliers(values: &[f64]) -> Vec<f64> {
    let finite: Vec<f64> = values.iter().copied().filter(|v| !v.is_nan()).collect();
    if finite.is_empty() {
        return finite;
    }
    let limit = OUTLIER_FACTOR * descriptive::median(&finite);
    finite.into_iter().filter(|&v| v <= limit).collect()
}

/// `σ/μ` with the sample standard deviation; NaN for fewer than two values or a zero mean.
pub fn coefficient_of_variation(values: &[f64]) -> f64 {
    descriptive::coefficient_of_variation(values)
}

/// Scott's-rule bandwidth of `scipy.stats.gaussian_kde` in one dimension: `σ̂ · n^(−1/5)`.
/// NaN for fewer than two values; 0 for constant data.
pub fn scott_bandwidth(data: &[f64]) -> f64 {
    descriptive::std_dev(data) * (data.len() as f64).powf(-0.2)
}

/// Gaussian KDE of `data` with Scott's bandwidth, evaluated at `points`: the values of
/// `scipy.stats.gaussian_kde(data)(points)`. NaN densities if the bandwidth is not positive.
pub fn gaussian_kde(data: &[f64], points: &[f64]) -> Vec<f64> {
    let mut sorted = data.to_vec();
    sorted.sort_unstable_by(f64::total_cmp);
    let kde = Kde::new(sorted, scott_bandwidth(data));
    kde.evaluate(points)
}

/// A Gaussian KDE over data sorted ascending (which `evaluate` relies on) with a fixed bandwidth.
struct Kde {
    sorted: Vec<f64>,
    bandwidth: f64,
}

/// Kernel terms further than this many bandwidths beyond the nearest data point are below
/// `e^(−40.5) ≈ 2.6·10^(−18)` of the nearest one's, far under f64 resolution of the sum.
const KERNEL_REACH: f64 = 9.0;

impl Kde {
    fn new(sorted: Vec<f64>, bandwidth: f64) -> Kde {
        Kde { sorted, bandwidth }
    }

    fn evaluate(&self, points: &[f64]) -> Vec<f64> {
        if self.bandwidth.is_nan() || self.bandwidth <= 0.0 || self.sorted.is_empty() {
            return vec![f64::NAN; points.len()];
        }
        if points.len() * self.sorted.len() > 200_000 {
            points.par_iter().map(|&x| self.density(x)).collect()
        } else {
            points.iter().map(|&x| self.density(x)).collect()
        }
    }

    /// Sums only the kernels within `nearest distance + 9 bandwidths` of `x` (see [`KERNEL_REACH`]).
    fn density(&self, x: f64) -> f64 {
        let data = &self.sorted;
        let h = self.bandwidth;
        let at = data.partition_point(|&v| v < x);
        let nearest = [at.checked_sub(1), (at < data.len()).then_some(at)]
            .into_iter()
            .flatten()
            .map(|i| (data[i] - x).abs())
            .fold(f64::INFINITY, f64::min);
        let reach = nearest + KERNEL_REACH * h;
        let start = data.partition_point(|&v| v < x - reach);
        let end = data.partition_point(|&v| v <= x + reach);
        let sum: f64 = data[start..end]
            .iter()
            .map(|&v| {
                let z = (x - v) / h;
                (-0.5 * z * z).exp()
            })
            .sum();
        let norm = (2.0 * std::f64::consts::PI).sqrt() * h * data.len() as f64;
        sum / norm
    }
}

/// Data points per independently summed block of [`Kde::evaluate_grid`]: the blocks run in
/// parallel and are added in block order, so the result does not depend on the thread count.
const GRID_BLOCK: usize = 1024;

impl Kde {
    /// The density at `count` equally spaced points `start + k·step`, without one `exp` per
    /// kernel and point: along the grid, `e_k = exp(−d_k²/2)` with `d_k = (x_k − v)/h` satisfies
    /// `e_(k±1) = e_k · r_k` and `r_(k±1) = r_k · exp(−δ²)` (δ = step/h), two multiplications per
    /// term. Each data point starts at its nearest grid point and walks outwards, where the terms
    /// only shrink; the relative rounding drift after 1,000 steps is ~10^(−13).
    fn evaluate_grid(&self, start: f64, step: f64, count: usize) -> Vec<f64> {
        let h = self.bandwidth;
        if h.is_nan() || h <= 0.0 || self.sorted.is_empty() || count == 0 {
            return vec![f64::NAN; count];
        }
        let delta = step / h;
        let decay = (-delta * delta).exp();
        let block_sums: Vec<Vec<f64>> = self
            .sorted
            .par_chunks(GRID_BLOCK)
            .map(|block| {
                // Upward walks add into `up`; downward walks into `down`, which holds the grid
                // mirrored (down[i] is grid point count − 1 − i) so both are forward walks.
                let mut up = vec![0.0; count];
                let mut down = vec![0.0; count];
                for &v in block {
                    let nearest =
                        ((v - start) / step).round().clamp(0.0, (count - 1) as f64) as usize;
                    let d = (start + nearest as f64 * step - v) / h;
                    let peak = (-0.5 * d * d).exp();
                    up[nearest] += peak;
                    let half_square = 0.5 * delta * delta;
                    let rising = (-d * delta - half_square).exp();
                    walk(&mut up[nearest + 1..], peak, rising, decay);
                    let falling = (d * delta - half_square).exp();
                    walk(&mut down[count - nearest..], peak, falling, decay);
                }
                up.iter()
                    .zip(down.iter().rev())
                    .map(|(u, d)| u + d)
                    .collect()
            })
            .collect();
        let norm = (2.0 * std::f64::consts::PI).sqrt() * h * self.sorted.len() as f64;
        (0..count)
            .map(|k| block_sums.iter().map(|sums| sums[k]).sum::<f64>() / norm)
            .collect()
    }
}

/// Adds `term·ρ_0`, `term·ρ_0·ρ_1`, … to `sums[0]`, `sums[1]`, … with `ρ_i = ratio·decay^i`
/// (`ratio, decay ≤ 1`, so nothing overflows). Four interleaved chains, each stepping four grid
/// points at a time (`v_(j+4) = v_j·Q_j`, `Q_(j+4) = Q_j·decay^16`), replace one long serial chain
/// of multiplications, so the CPU can overlap them.
fn walk(sums: &mut [f64], term: f64, ratio: f64, decay: f64) {
    let mut value = [0.0f64; 4];
    let mut step = [0.0f64; 4];
    let (mut t, mut r) = (term, ratio);
    for lane in 0..4 {
        t *= r;
        r *= decay;
        value[lane] = t;
        step[lane] = ratio.powi(4) * decay.powi(4 * lane as i32 + 10);
    }
    let step_decay = decay.powi(16);
    let mut chunks = sums.chunks_exact_mut(4);
    for chunk in &mut chunks {
        for lane in 0..4 {
            chunk[lane] += value[lane];
            value[lane] *= step[lane];
            step[lane] *= step_decay;
        }
    }
    for (sum, v) in chunks.into_remainder().iter_mut().zip(value) {
        *sum += v;
    }
}

/// Probability that `before` and `after` come from the same distribution, `2^(−D(P‖Q) − D(Q‖P))`
/// with P, Q their KDEs on 1,000 strips (see the module docs for the grid).
///
/// 1 for identical data (exactly); in `[0, 1]` otherwise. Degenerate inputs: a sample with fewer
/// than two values or no spread borrows the bandwidth of the pooled data; if the pooled data have
/// no spread either, all values are equal and the result is 1. If the IQR is zero the grid spans
/// the pooled min–max widened by 3 bandwidths. NaN if either sample is empty or holds NaN.
pub fn kld_probability(before: &[f64], after: &[f64]) -> f64 {
    if before.is_empty() || after.is_empty() || before.iter().chain(after).any(|v| v.is_nan()) {
        return f64::NAN;
    }
    let mut pooled: Vec<f64> = before.iter().chain(after).copied().collect();
    pooled.sort_unstable_by(f64::total_cmp);
    let pooled_bandwidth = scott_bandwidth(&pooled);
    if pooled_bandwidth.is_nan() || pooled_bandwidth <= 0.0 {
        return 1.0;
    }
    let grid = strips(&pooled, pooled_bandwidth);
    let p = strip_masses(before, pooled_bandwidth, grid);
    let q = strip_masses(after, pooled_bandwidth, grid);
    let (Some(p), Some(q)) = (p, q) else {
        // One sample has (numerically) no mass on the grid at all: nothing alike.
        return 0.0;
    };
    let divergence = kl_divergence_bits(&p, &q) + kl_divergence_bits(&q, &p);
    (-divergence).exp2()
}

/// The first midpoint and the width of [`KLD_STRIPS`] equal strips over
/// `[Q1 − 1.5·IQR, Q3 + 1.5·IQR]` of sorted data.
fn strips(sorted: &[f64], bandwidth: f64) -> (f64, f64) {
    let q1 = quantile_sorted(sorted, 0.25);
    let q3 = quantile_sorted(sorted, 0.75);
    let iqr = q3 - q1;
    let (low, high) = if iqr > 0.0 {
        (q1 - 1.5 * iqr, q3 + 1.5 * iqr)
    } else {
        (
            sorted[0] - 3.0 * bandwidth,
            sorted[sorted.len() - 1] + 3.0 * bandwidth,
        )
    };
    let width = (high - low) / KLD_STRIPS as f64;
    (low + 0.5 * width, width)
}

/// The sample's KDE at the grid points, normalised to sum to 1; None if it has no mass there.
fn strip_masses(data: &[f64], fallback_bandwidth: f64, grid: (f64, f64)) -> Option<Vec<f64>> {
    let own = scott_bandwidth(data);
    let bandwidth = if own > 0.0 { own } else { fallback_bandwidth };
    let mut sorted = data.to_vec();
    sorted.sort_unstable_by(f64::total_cmp);
    let density = Kde::new(sorted, bandwidth).evaluate_grid(grid.0, grid.1, KLD_STRIPS);
    let total: f64 = density.iter().sum();
    (total > 0.0).then(|| density.iter().map(|d| d / total).collect())
}

/// `Σ p·log2(p/q)` over strips with `p > 0`; infinite if some such strip has `q = 0`.
fn kl_divergence_bits(p: &[f64], q: &[f64]) -> f64 {
    p.iter()
        .zip(q)
        .filter(|(pi, _)| **pi > 0.0)
        .map(|(pi, qi)| pi * (pi / qi).log2())
        .sum()
}

/// The criterion value `sc_x` for every prefix `x = 1..=groups.len()` (groups: forks, or one group
/// per warm-up sample). `None` where the value is undefined: CV of fewer than two values, KLD at
/// `x = 1`, RCIW of data that are not all positive.
///
/// - CV: CV of the union of groups `1..x` after the outlier drop.
/// - RCIW: relative width of the 99 % CI of the mean (1,000 resamples, hierarchical over groups
///   `1..x`, iterations only when x = 1), outliers dropped, thinned to 10,000 points. Every prefix
///   uses the same `seed`: common random numbers keep the Monte Carlo noise from masquerading as
///   instability between neighbouring prefixes.
/// - KLD: [`kld_probability`] of union(1..x−1) and union(1..x), each outlier-dropped and thinned
///   to 1,000 points.
pub fn prefix_series(criterion: Criterion, groups: &[Vec<f64>], seed: u64) -> Vec<Option<f64>> {
    latest_prefix_values(criterion, groups, seed, groups.len())
}

/// The last `count` values of [`prefix_series`] (prefixes `len − count + 1 ..= len`), without
/// computing the earlier ones: what a stop rule with a window of `count` needs after each round.
pub fn latest_prefix_values(
    criterion: Criterion,
    groups: &[Vec<f64>],
    seed: u64,
    count: usize,
) -> Vec<Option<f64>> {
    let first = (groups.len() + 1).saturating_sub(count).max(1);
    (first..=groups.len())
        .map(|x| criterion_value(criterion, &groups[..x], &groups[..x - 1], seed))
        .collect()
}

fn criterion_value(
    criterion: Criterion,
    prefix: &[Vec<f64>],
    previous: &[Vec<f64>],
    seed: u64,
) -> Option<f64> {
    let value = match criterion {
        Criterion::Cv => coefficient_of_variation(&drop_outliers(&prefix.concat())),
        Criterion::Rciw => {
            let config = BootstrapConfig {
                confidence: RCIW_CONFIDENCE,
                resamples: RCIW_RESAMPLES,
                seed,
            };
            mean_ci_relative_width(&thin_groups(&drop_group_outliers(prefix)), &config).ok()?
        }
        Criterion::Kld => {
            if previous.is_empty() {
                return None;
            }
            let before = thin(&drop_outliers(&previous.concat()), KLD_MAX_POINTS);
            let after = thin(&drop_outliers(&prefix.concat()), KLD_MAX_POINTS);
            kld_probability(&before, &after)
        }
    };
    value.is_finite().then_some(value)
}

/// Drops, in every group, the values above 10 × the median of all groups together.
fn drop_group_outliers(groups: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let all: Vec<f64> = groups.concat();
    let limit = OUTLIER_FACTOR * descriptive::median(&all);
    groups
        .iter()
        .map(|g| g.iter().copied().filter(|&v| v <= limit).collect())
        .collect()
}

/// Thins groups proportionally so they hold at most [`RCIW_MAX_POINTS`] values together.
fn thin_groups(groups: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let total: usize = groups.iter().map(Vec::len).sum();
    if total <= RCIW_MAX_POINTS {
        return groups.to_vec();
    }
    let share = RCIW_MAX_POINTS as f64 / total as f64;
    groups
        .iter()
        .map(|g| thin(g, ((g.len() as f64 * share).ceil() as usize).max(1)))
        .collect()
}

/// At most `keep` values: the type-7 quantiles at `(i + ½)/keep` of the data (sorted output).
fn thin(values: &[f64], keep: usize) -> Vec<f64> {
    let mut sorted = values.to_vec();
    sorted.sort_unstable_by(f64::total_cmp);
    if sorted.len() <= keep {
        return sorted;
    }
    (0..keep)
        .map(|i| quantile_sorted(&sorted, (i as f64 + 0.5) / keep as f64))
        .collect()
}

/// Whether a window of criterion values counts as stable: CV and RCIW when `max − min ≤ t`, KLD
/// when `mean > t`. An empty window or one holding NaN is not stable.
pub fn is_stable(criterion: Criterion, window: &[f64], threshold: f64) -> bool {
    if window.is_empty() || window.iter().any(|v| v.is_nan()) {
        return false;
    }
    match criterion {
        Criterion::Cv | Criterion::Rciw => {
            let max = window.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let min = window.iter().copied().fold(f64::INFINITY, f64::min);
            max - min <= threshold
        }
        Criterion::Kld => descriptive::mean(window) > threshold,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outliers_above_ten_medians_go() {
        assert_eq!(
            drop_outliers(&[1.0, 2.0, 3.0, 31.0, 30.0]),
            vec![1.0, 2.0, 3.0, 30.0]
        );
        assert!(drop_outliers(&[]).is_empty());
    }

    #[test]
    fn kld_of_identical_and_distinct_data() {
        let a: Vec<f64> = (0..200).map(|i| 100.0 + (i as f64 * 0.37).sin()).collect();
        assert_eq!(kld_probability(&a, &a), 1.0);
        let shifted: Vec<f64> = a.iter().map(|v| v + 1.5).collect();
        assert!(kld_probability(&a, &shifted) < 0.1);
        let p = kld_probability(&a[..150], &a);
        assert!(p > 0.9 && p < 1.0, "{p}");
        assert_eq!(kld_probability(&[5.0, 5.0], &[5.0]), 1.0);
        assert!(kld_probability(&[], &a).is_nan());
    }

    #[test]
    fn prefix_series_shapes() {
        let groups: Vec<Vec<f64>> = (0..6)
            .map(|g| {
                (0..20)
                    .map(|i| 10.0 + ((g * 20 + i) as f64 * 0.7).sin())
                    .collect()
            })
            .collect();
        for criterion in [Criterion::Cv, Criterion::Rciw, Criterion::Kld] {
            let series = prefix_series(criterion, &groups, 5);
            assert_eq!(series.len(), 6);
            assert_eq!(series[0].is_none(), criterion == Criterion::Kld);
            assert!(
                series[1..].iter().all(Option::is_some),
                "{criterion:?} {series:?}"
            );
            assert_eq!(
                latest_prefix_values(criterion, &groups, 5, 2),
                series[4..].to_vec()
            );
        }
        let single: Vec<Vec<f64>> = vec![vec![1.0]];
        assert_eq!(prefix_series(Criterion::Cv, &single, 1), vec![None]);
    }

    #[test]
    fn prefix_series_reacts_to_a_shifted_fork_and_thins_big_data() {
        let steady = |g: usize, len: usize| -> Vec<f64> {
            (0..len)
                .map(|i| 10.0 + ((g * len + i) as f64 * 0.7).sin())
                .collect()
        };
        let mut groups: Vec<Vec<f64>> = (0..5).map(|g| steady(g, 200)).collect();
        groups.push(steady(5, 200).iter().map(|v| v + 3.0).collect());
        let kld = prefix_series(Criterion::Kld, &groups, 1);
        assert!(kld[4].unwrap() > 0.95, "{kld:?}");
        assert!(kld[5].unwrap() < kld[4].unwrap() - 0.05, "{kld:?}");
        let big: Vec<Vec<f64>> = (0..3).map(|g| steady(g, 6000)).collect();
        let rciw = latest_prefix_values(Criterion::Rciw, &big, 1, 1);
        assert!(rciw[0].is_some_and(|w| w > 0.0 && w < 0.05), "{rciw:?}");
        assert_eq!(
            thin_groups(&big).iter().map(Vec::len).sum::<usize>(),
            10_002
        );
    }

    #[test]
    fn window_rules() {
        assert!(is_stable(
            Criterion::Cv,
            &[0.05, 0.052, 0.045, 0.05, 0.039],
            0.015
        ));
        assert!(!is_stable(
            Criterion::Cv,
            &[0.05, 0.052, 0.045, 0.05, 0.039],
            0.01
        ));
        assert!(is_stable(Criterion::Kld, &[0.995, 0.999, 0.99], 0.99));
        assert!(!is_stable(Criterion::Kld, &[0.995, 0.98], 0.99));
        assert!(!is_stable(Criterion::Rciw, &[], 0.03));
    }

    #[test]
    fn grid_recurrence_equals_direct_evaluation() {
        let mut data: Vec<f64> = (0..3000)
            .map(|i| 50.0 + 7.0 * (i as f64 * 0.61).sin())
            .collect();
        data.sort_unstable_by(f64::total_cmp);
        let kde = Kde::new(data.clone(), scott_bandwidth(&data));
        let (start, step) = (30.0, 0.04);
        let points: Vec<f64> = (0..1000).map(|k| start + k as f64 * step).collect();
        let direct = kde.evaluate(&points);
        let fast = kde.evaluate_grid(start, step, 1000);
        for (d, f) in direct.iter().zip(&fast) {
            assert!((d - f).abs() <= 1e-11 * d, "{d} vs {f}");
        }
    }

    #[test]
    fn thinning_keeps_shape() {
        let values: Vec<f64> = (0..5000).map(|i| i as f64).collect();
        let thinned = thin(&values, 1000);
        assert_eq!(thinned.len(), 1000);
        assert!((descriptive::mean(&thinned) - descriptive::mean(&values)).abs() < 1e-9);
    }
}
