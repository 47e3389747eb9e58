//! Variance components of a two-level experiment, and how many repetitions each level should get.
//!
//! A benchmark's measurements have two levels: forks (processes), and samples within a fork.
//! Kalibera and Jones ("Rigorous Benchmarking in Reasonable Time", ISMM 2013) split the
//! variance of the grand mean into one component per level and choose the repetition count at
//! each level from those components and from what a repetition there costs. This module holds
//! the pure maths of it:
//!
//! - [`one_way_random_effects`]: the classical one-way random-effects ANOVA estimators (mean
//!   squares within and between groups, the between component by the method of moments,
//!   unequal group sizes through the effective group size `n0`), checked against scipy's
//!   `f_oneway` and numpy (`scripts/stats_reference.py`);
//! - [`weighted_group`] and [`components_of_means`]: the same moments when a group's
//!   observations carry weights (criterion's samples are `iters` iterations timed together, so
//!   a sample's variance is inversely proportional to its iteration count): each group's mean
//!   and the variance of that mean from its own spread, then the between component as the
//!   spread of the group means less the part the within noise explains;
//! - [`optimal_inner_repetitions`]: Kalibera and Jones's optimum,
//!   `r* = sqrt((c_outer / c_inner) · (S²_within / S²_between))`, the inner repetitions per
//!   outer one that make the grand mean most precise for a given total cost.

use statrs::distribution::{ContinuousCDF, FisherSnedecor};

use crate::StatsError;

/// The two variance components of a one-way random-effects model `y_ij = μ + a_i + e_ij`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VarianceComponents {
    /// `σ²_within`: the variance of one observation about its group's true mean (the mean square
    /// within groups, MSW).
    pub within: f64,
    /// `σ²_between ≥ 0`: the variance of the groups' true means, `(MSB − MSW) / n0` clamped at
    /// zero (a negative moment estimate means the groups differ no more than their noise).
    pub between: f64,
    /// The mean square between groups, MSB.
    pub ms_between: f64,
    /// The effective group size `n0 = (N − Σ n_i² / N) / (k − 1)`: the group size for equal
    /// groups.
    pub n0: f64,
    /// Groups (`k`) and observations (`N`).
    pub groups: usize,
    pub observations: usize,
}

impl VarianceComponents {
    /// The F statistic `MSB / MSW` of the test that the groups share one mean (scipy's
    /// `f_oneway`); infinite when there is no noise within groups.
    pub fn f_statistic(&self) -> f64 {
        self.ms_between / self.within
    }

    /// The p-value of that test: the F distribution's upper tail with `k − 1` and `N − k`
    /// degrees of freedom (scipy's `f_oneway`).
    pub fn p_value(&self) -> f64 {
        let f = self.f_statistic();
        let dfs = (
            (self.groups - 1) as f64,
            (self.observations - self.groups) as f64,
        );
        match FisherSnedecor::new(dfs.0, dfs.1) {
            Ok(dist) if f.is_finite() => dist.sf(f),
            _ if self.ms_between > 0.0 => 0.0,
            _ => 1.0,
        }
    }
}

/// The ANOVA estimators of the variance components of `groups` (observations by group).
///
/// Needs at least two groups, none empty, and more observations than groups (else the within
/// component has no degrees of freedom). Values must be finite.
pub fn one_way_random_effects(groups: &[Vec<f64>]) -> Result<VarianceComponents, StatsError> {
    if groups.len() < 2 {
        return Err(StatsError::Empty("variance components need two groups"));
    }
    if groups.iter().any(Vec::is_empty) {
        return Err(StatsError::Empty("a group without observations"));
    }
    if let Some(bad) = groups.iter().flatten().find(|v| !v.is_finite()) {
        return Err(StatsError::InvalidValue(*bad));
    }
    let k = groups.len() as f64;
    let n: f64 = groups.iter().map(|g| g.len() as f64).sum();
    if n <= k {
        return Err(StatsError::Empty("no group has two observations"));
    }
    let means: Vec<f64> = groups.iter().map(|g| mean(g)).collect();
    let grand = groups.iter().flatten().sum::<f64>() / n;
    let ss_between: f64 = groups
        .iter()
        .zip(&means)
        .map(|(g, m)| g.len() as f64 * (m - grand).powi(2))
        .sum();
    let ss_within: f64 = groups
        .iter()
        .zip(&means)
        .map(|(g, m)| g.iter().map(|y| (y - m).powi(2)).sum::<f64>())
        .sum();
    let ms_between = ss_between / (k - 1.0);
    let ms_within = ss_within / (n - k);
    let n0 = (n - groups.iter().map(|g| (g.len() as f64).powi(2)).sum::<f64>() / n) / (k - 1.0);
    Ok(VarianceComponents {
        within: ms_within,
        between: ((ms_between - ms_within) / n0).max(0.0),
        ms_between,
        n0,
        groups: groups.len(),
        observations: n as usize,
    })
}

/// One group's weighted mean and the variance of that mean, estimated from the group's own
/// spread ([`weighted_group`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GroupMean {
    /// `Σ w·y / Σ w`.
    pub mean: f64,
    /// The variance of `mean` from the noise within the group: `s²_unit / Σ w`, where
    /// `s²_unit = Σ w·(y − mean)² / (n − 1)` is the variance of an observation of unit weight.
    pub mean_variance: f64,
    /// `Σ w`.
    pub weight: f64,
    /// Observations.
    pub count: usize,
}

/// The weighted mean of `values` and its variance, for observations whose variance is
/// inversely proportional to their `weights` (criterion samples and their iteration counts).
/// With equal weights `mean_variance` is the familiar `s² / n`.
pub fn weighted_group(values: &[f64], weights: &[f64]) -> Result<GroupMean, StatsError> {
    if values.len() != weights.len() {
        return Err(StatsError::InvalidParameter(format!(
            "{} values but {} weights",
            values.len(),
            weights.len()
        )));
    }
    if values.len() < 2 {
        return Err(StatsError::Empty("a group's spread needs two observations"));
    }
    if let Some(bad) = values.iter().find(|v| !v.is_finite()) {
        return Err(StatsError::InvalidValue(*bad));
    }
    if let Some(bad) = weights.iter().find(|w| !(w.is_finite() && **w > 0.0)) {
        return Err(StatsError::InvalidValue(*bad));
    }
    let total: f64 = weights.iter().sum();
    let mean = values.iter().zip(weights).map(|(y, w)| y * w).sum::<f64>() / total;
    let unit = values
        .iter()
        .zip(weights)
        .map(|(y, w)| w * (y - mean).powi(2))
        .sum::<f64>()
        / (values.len() - 1) as f64;
    Ok(GroupMean {
        mean,
        mean_variance: unit / total,
        weight: total,
        count: values.len(),
    })
}

/// The variance components of a group mean: how much of its variance the noise within a group
/// explains, how much the groups really differ, and the test that they differ at all.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeanComponents {
    /// The mean over groups of `mean_variance`: the within-group noise of one group's mean.
    pub within_of_mean: f64,
    /// `σ²_between ≥ 0`: the variance of the group means less `within_of_mean`, clamped at zero.
    pub between: f64,
    /// The variance of the group means about their own set's mean, pooled over the sets.
    pub means_variance: f64,
    /// `means_variance / within_of_mean`: with equal weights and groups, the ANOVA's F.
    pub f_statistic: f64,
    /// Degrees of freedom between groups (`Σ (k_s − 1)` over the sets) and within them
    /// (`Σ (n_i − 1)` over the groups).
    pub df_between: f64,
    pub df_within: f64,
    /// The probability of an `f_statistic` at least as large if the groups did not differ
    /// (F distribution with `df_between`, `df_within`): scipy's `f_oneway` p-value.
    pub p_value: f64,
    pub groups: usize,
}

/// The method-of-moments components of group means, `Var(mean_i) = σ²_between +
/// E[mean_variance_i]`, over `sets` of groups each about its own mean (base's forks and head's:
/// the difference between the sets is no noise), pooled. With equal weights and equal group
/// sizes `n` and one set this is the ANOVA of [`one_way_random_effects`]: `within_of_mean = MSW
/// / n`, the same `between`, F and p-value.
pub fn components_of_means(sets: &[Vec<GroupMean>]) -> Result<MeanComponents, StatsError> {
    let df_between: f64 = sets.iter().map(|s| s.len().saturating_sub(1) as f64).sum();
    if df_between < 1.0 {
        return Err(StatsError::Empty("variance components need two groups"));
    }
    let squares: f64 = sets
        .iter()
        .filter(|s| !s.is_empty())
        .map(|set| {
            let centre = set.iter().map(|g| g.mean).sum::<f64>() / set.len() as f64;
            set.iter().map(|g| (g.mean - centre).powi(2)).sum::<f64>()
        })
        .sum();
    let groups: Vec<&GroupMean> = sets.iter().flatten().collect();
    let means_variance = squares / df_between;
    let within_of_mean = groups.iter().map(|g| g.mean_variance).sum::<f64>() / groups.len() as f64;
    let df_within: f64 = groups.iter().map(|g| (g.count - 1) as f64).sum();
    let f_statistic = means_variance / within_of_mean;
    let p_value = match FisherSnedecor::new(df_between, df_within) {
        Ok(f) if f_statistic.is_finite() => f.sf(f_statistic),
        _ if means_variance > 0.0 => 0.0,
        _ => 1.0,
    };
    Ok(MeanComponents {
        within_of_mean,
        between: (means_variance - within_of_mean).max(0.0),
        means_variance,
        f_statistic,
        df_between,
        df_within,
        p_value,
        groups: groups.len(),
    })
}

/// Kalibera and Jones's optimal number of inner repetitions per outer one (ISMM 2013, section
/// 5): `r* = sqrt((outer_cost / inner_cost) · (within / between))`, where `outer_cost` is the
/// fixed cost of an outer repetition (a fork's start and warm-up), `inner_cost` that of one
/// inner repetition (a unit of measurement time), `within` the variance of one inner
/// repetition and `between` the variance component of the outer level. It minimises the
/// variance of the grand mean, `(between + within / r) / n`, for a budget `n · (outer_cost + r ·
/// inner_cost)` ([`budget_variance`]).
///
/// Infinite when `between` is zero (the outer level adds no noise: one long repetition is best);
/// zero when `within` is zero. Costs must be positive and variances non-negative.
pub fn optimal_inner_repetitions(
    outer_cost: f64,
    inner_cost: f64,
    within: f64,
    between: f64,
) -> Result<f64, StatsError> {
    for cost in [outer_cost, inner_cost] {
        if !(cost.is_finite() && cost > 0.0) {
            return Err(StatsError::InvalidValue(cost));
        }
    }
    for variance in [within, between] {
        if !(variance.is_finite() && variance >= 0.0) {
            return Err(StatsError::InvalidValue(variance));
        }
    }
    if between == 0.0 {
        return Ok(if within == 0.0 { 0.0 } else { f64::INFINITY });
    }
    Ok((outer_cost / inner_cost * within / between).sqrt())
}

/// The variance of the grand mean when a budget `budget` is spent on outer repetitions of `r`
/// inner ones each, costing `outer_cost + r · inner_cost` apiece (a fractional count of outer
/// repetitions, as in the continuous optimisation): `(between + within / r) · (outer_cost + r ·
/// inner_cost) / budget`.
pub fn budget_variance(
    budget: f64,
    (outer_cost, inner_cost): (f64, f64),
    (within, between): (f64, f64),
    r: f64,
) -> f64 {
    (between + within / r) * (outer_cost + r * inner_cost) / budget
}

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance * (1.0 + a.abs().max(b.abs()))
    }

    #[test]
    fn a_hand_computed_balanced_case() {
        // Means 2, 5, 8 (grand 5); SSW = 2 + 2 + 2 = 6 over 6 df; SSB = 3·(9 + 0 + 9) = 54 over
        // 2 df; between = (27 − 1) / 3.
        let groups = vec![
            vec![1.0, 2.0, 3.0],
            vec![4.0, 5.0, 6.0],
            vec![7.0, 8.0, 9.0],
        ];
        let c = one_way_random_effects(&groups).unwrap();
        assert_eq!(c.within, 1.0);
        assert_eq!(c.ms_between, 27.0);
        assert_eq!(c.n0, 3.0);
        assert!(close(c.between, 26.0 / 3.0, 1e-12));
        assert_eq!(c.f_statistic(), 27.0);
    }

    #[test]
    fn groups_that_differ_less_than_their_noise_have_no_between_component() {
        let groups = vec![vec![0.0, 10.0], vec![0.5, 9.5], vec![1.0, 9.0]];
        let c = one_way_random_effects(&groups).unwrap();
        assert_eq!(c.between, 0.0);
        assert!(c.within > 40.0);
    }

    #[test]
    fn unequal_groups_use_the_effective_group_size() {
        // N = 6, Σ n² = 1 + 4 + 9 = 14: n0 = (6 − 14/6) / 2.
        let groups = vec![vec![1.0], vec![2.0, 4.0], vec![3.0, 5.0, 7.0]];
        let c = one_way_random_effects(&groups).unwrap();
        assert!(close(c.n0, (6.0 - 14.0 / 6.0) / 2.0, 1e-12));
        assert_eq!(c.observations, 6);
    }

    #[test]
    fn bad_inputs_are_errors_not_panics() {
        assert!(one_way_random_effects(&[vec![1.0, 2.0]]).is_err());
        assert!(one_way_random_effects(&[vec![1.0], vec![2.0]]).is_err());
        assert!(one_way_random_effects(&[vec![1.0, 2.0], vec![]]).is_err());
        assert!(one_way_random_effects(&[vec![1.0, f64::NAN], vec![2.0, 3.0]]).is_err());
        assert!(weighted_group(&[1.0], &[1.0]).is_err());
        assert!(weighted_group(&[1.0, 2.0], &[1.0]).is_err());
        assert!(weighted_group(&[1.0, 2.0], &[1.0, 0.0]).is_err());
        assert!(components_of_means(&[]).is_err());
        let one = weighted_group(&[1.0, 2.0], &[1.0, 1.0]).unwrap();
        assert!(components_of_means(&[vec![one], vec![one]]).is_err());
        assert!(optimal_inner_repetitions(0.0, 1.0, 1.0, 1.0).is_err());
        assert!(optimal_inner_repetitions(1.0, 1.0, -1.0, 1.0).is_err());
    }

    #[test]
    fn sets_are_centred_on_their_own_means() {
        // Base near 1, head near 11: the sets differ by 10, their groups by ±0.5.
        let group = |m: f64| weighted_group(&[m - 0.1, m + 0.1], &[1.0, 1.0]).unwrap();
        let sets = vec![vec![group(0.5), group(1.5)], vec![group(10.5), group(11.5)]];
        let c = components_of_means(&sets).unwrap();
        assert_eq!(c.df_between, 2.0);
        assert_eq!(c.df_within, 4.0);
        assert!(close(c.means_variance, 0.5, 1e-12));
        assert!(close(c.between, 0.5 - 0.01, 1e-12));
        assert!(c.p_value < 0.01);
    }

    #[test]
    fn weights_count_as_repeated_observations_of_the_mean() {
        // A sample of weight 3 pulls the mean three times as hard as one of weight 1.
        let g = weighted_group(&[1.0, 5.0], &[3.0, 1.0]).unwrap();
        assert_eq!(g.mean, 2.0);
        assert_eq!(g.weight, 4.0);
        // s²_unit = (3·1 + 1·9) / 1 = 12; over Σw = 4.
        assert_eq!(g.mean_variance, 3.0);
    }

    #[test]
    fn the_optimum_follows_kalibera_and_jones() {
        // Forks 100 times as costly as a sample, samples 4 times as noisy as forks: r* = 20.
        assert_eq!(
            optimal_inner_repetitions(100.0, 1.0, 4.0, 1.0).unwrap(),
            20.0
        );
        assert_eq!(
            optimal_inner_repetitions(1.0, 1.0, 1.0, 0.0).unwrap(),
            f64::INFINITY
        );
        assert_eq!(optimal_inner_repetitions(1.0, 1.0, 0.0, 1.0).unwrap(), 0.0);
    }

    fn group_strategy() -> impl Strategy<Value = Vec<Vec<f64>>> {
        (2usize..8, 2usize..10).prop_flat_map(|(k, n)| {
            prop::collection::vec(prop::collection::vec(-100.0f64..100.0, n), k)
        })
    }

    proptest! {
        #[test]
        fn equal_weights_give_the_anova_estimators(groups in group_strategy()) {
            let anova = one_way_random_effects(&groups).unwrap();
            let n = groups[0].len() as f64;
            let means: Vec<GroupMean> = groups
                .iter()
                .map(|g| weighted_group(g, &vec![1.0; g.len()]).unwrap())
                .collect();
            let moments = components_of_means(&[means]).unwrap();
            prop_assert!(close(moments.within_of_mean, anova.within / n, 1e-9));
            prop_assert!(close(moments.between, anova.between, 1e-9));
            prop_assert!(close(moments.means_variance, anova.ms_between / n, 1e-9));
            prop_assert!(close(moments.f_statistic, anova.f_statistic(), 1e-9));
            prop_assert!(close(moments.p_value, anova.p_value(), 1e-9));
        }

        #[test]
        fn components_do_not_move_with_a_shift_and_scale_as_its_square(
            groups in group_strategy(), shift in -1e3f64..1e3, scale in 0.1f64..10.0,
        ) {
            let a = one_way_random_effects(&groups).unwrap();
            let moved: Vec<Vec<f64>> = groups
                .iter()
                .map(|g| g.iter().map(|y| y * scale + shift).collect())
                .collect();
            let b = one_way_random_effects(&moved).unwrap();
            let s2 = scale * scale;
            prop_assert!(close(b.within, a.within * s2, 1e-6));
            prop_assert!(close(b.between, a.between * s2, 1e-6));
            prop_assert!(a.between >= 0.0 && a.within >= 0.0);
        }

        #[test]
        fn the_optimum_minimises_the_variance_for_the_budget(
            outer in 1.0f64..1e3, inner in 0.01f64..10.0,
            within in 1e-3f64..10.0, between in 1e-3f64..10.0, factor in 0.05f64..20.0,
        ) {
            let r = optimal_inner_repetitions(outer, inner, within, between).unwrap();
            let at = |r: f64| budget_variance(1e6, (outer, inner), (within, between), r);
            prop_assume!((factor - 1.0).abs() > 1e-6);
            prop_assert!(at(r) <= at(r * factor) * (1.0 + 1e-12));
        }

        #[test]
        fn more_between_noise_asks_for_fewer_inner_repetitions(
            outer in 1.0f64..1e3, inner in 0.01f64..10.0,
            within in 1e-3f64..10.0, between in 1e-3f64..10.0,
        ) {
            let r = optimal_inner_repetitions(outer, inner, within, between).unwrap();
            let noisier = optimal_inner_repetitions(outer, inner, within, between * 4.0).unwrap();
            prop_assert!(close(noisier, r / 2.0, 1e-12));
        }
    }
}
