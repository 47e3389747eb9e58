//! How much measurement a change needs (Peass, section II), for paired rounds.
//!
//! The comparison's units are paired rounds (or layouts, [`super::rounds`]): each gives one log
//! ratio `ln(head / base)`, and their standard deviation `sd` is all the noise the verdict sees.
//! With effect size `γ = change / sd` and `n` units, a two-sided test at level α has power
//! `1 − β` where `z(1−β) = γ·√n − z(1−α/2)` (Peass states it for two groups of `n`, where the
//! difference of two means has `√(2/n)` standard deviations of one side instead of `√(1/n)`).
//! Solved for the change or for `n`, it tells users which changes their noise lets them see, and
//! how many rounds a given change needs.
//!
//! The functions return plain numbers (the analysis shows them, it never branches on errors):
//! parameters outside their domain give NaN (`min_detectable_change`) or `usize::MAX`
//! (`units_needed`), documented per function.
use statrs::distribution::{ContinuousCDF, Normal};

/// `z(1−α/2) + z(power)`: the effect, in standard errors, a test at level α detects with `power`.
fn z_sum(alpha: f64, power: f64) -> f64 {
    if !(alpha > 0.0 && alpha < 1.0 && power > 0.0 && power < 1.0) {
        return f64::NAN;
    }
    let normal = Normal::standard();
    normal.inverse_cdf(1.0 - alpha / 2.0) + normal.inverse_cdf(power)
}

/// Smallest relative change detectable with `units` paired units at level `alpha` and `power`,
/// given the standard deviation `sd` of the units' log ratios: `sd · (z(1−α/2) + z(power)) / √units`.
///
/// `units = 0` gives infinity; `alpha` or `power` outside (0, 1), or a negative or NaN `sd`,
/// give NaN.
pub fn min_detectable_change(sd: f64, units: usize, alpha: f64, power: f64) -> f64 {
    if sd.is_nan() || sd < 0.0 {
        return f64::NAN;
    }
    let z = z_sum(alpha, power);
    if units == 0 {
        return if z.is_nan() { f64::NAN } else { f64::INFINITY };
    }
    sd * z / (units as f64).sqrt()
}

/// Paired units needed to detect a relative `change` (sign ignored) at level `alpha` with
/// `power`, given the standard deviation `sd` of the units' log ratios: the smallest `n ≥ 2`
/// with `min_detectable_change(sd, n, …) ≤ |change|`.
///
/// A zero `change`, or `alpha`/`power` outside (0, 1), or a NaN or negative `sd`, give
/// `usize::MAX`; a zero `sd` gives 2.
pub fn units_needed(sd: f64, change: f64, alpha: f64, power: f64) -> usize {
    let z = z_sum(alpha, power);
    let change = change.abs();
    if z.is_nan() || sd.is_nan() || sd < 0.0 || change.is_nan() || change == 0.0 {
        return usize::MAX;
    }
    let n = (z * sd / change).powi(2);
    if n >= usize::MAX as f64 {
        return usize::MAX;
    }
    (n.ceil() as usize).max(2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn textbook_values() {
        // z(0.975) + z(0.8) = 2.8016
        let z = 2.801_585_218_2;
        let mdc = min_detectable_change(0.1, 4, 0.05, 0.8);
        assert!((mdc - 0.1 * z / 2.0).abs() < 1e-8);
        // (2.8016 · 0.02 / 0.01)² = 31.4
        assert_eq!(units_needed(0.02, 0.01, 0.05, 0.8), 32);
        assert_eq!(units_needed(0.02, -0.01, 0.05, 0.8), 32);
        assert_eq!(units_needed(0.0, 0.01, 0.05, 0.8), 2);
    }

    #[test]
    fn the_two_functions_invert_each_other() {
        for units in [2usize, 5, 30, 200] {
            let change = min_detectable_change(0.03, units, 0.01, 0.9);
            assert_eq!(
                units_needed(0.03, change * 1.000_001, 0.01, 0.9),
                units.max(2)
            );
        }
    }

    #[test]
    fn degenerate_parameters() {
        assert!(min_detectable_change(0.1, 0, 0.05, 0.8).is_infinite());
        assert!(min_detectable_change(0.1, 5, 1.5, 0.8).is_nan());
        assert!(min_detectable_change(-0.1, 5, 0.05, 0.8).is_nan());
        assert_eq!(units_needed(0.1, 0.0, 0.05, 0.8), usize::MAX);
        assert_eq!(units_needed(0.1, 0.01, 0.05, 1.0), usize::MAX);
    }
}
