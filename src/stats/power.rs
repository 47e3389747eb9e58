//! How much measurement a change needs (Peass, section II).
//!
//! With effect size `γ = change / rel_sd` (the change in units of the fork-to-fork standard
//! deviation) and `n` forks per side, a two-sided test at level α has power `1 − β` where
//! `z(1−β) = γ·√(n/2) − z(1−α/2)`. Solved for the change or for `n`, it tells users which changes
//! their noise lets them see, and how many forks a given change needs.
//!
//! The functions return plain numbers (the analysis shows them, it never branches on errors):
//! parameters outside their domain give NaN (`min_detectable_change`) or `usize::MAX`
//! (`forks_needed`), documented per function.
use statrs::distribution::{ContinuousCDF, Normal};

/// `z(1−α/2) + z(power)`: the effect, in standard errors, a test at level α detects with `power`.
fn z_sum(alpha: f64, power: f64) -> f64 {
    if !(alpha > 0.0 && alpha < 1.0 && power > 0.0 && power < 1.0) {
        return f64::NAN;
    }
    let normal = Normal::standard();
    normal.inverse_cdf(1.0 - alpha / 2.0) + normal.inverse_cdf(power)
}

/// Smallest relative change detectable with `forks` forks per side at level `alpha` and `power`,
/// given the relative standard deviation of fork means `rel_sd`:
/// `rel_sd · (z(1−α/2) + z(power)) / √(forks/2)`.
///
/// `forks = 0` gives infinity; `alpha` or `power` outside (0, 1), or a negative or NaN `rel_sd`,
/// give NaN.
pub fn min_detectable_change(rel_sd: f64, forks: usize, alpha: f64, power: f64) -> f64 {
    if rel_sd.is_nan() || rel_sd < 0.0 {
        return f64::NAN;
    }
    let z = z_sum(alpha, power);
    if forks == 0 {
        return if z.is_nan() { f64::NAN } else { f64::INFINITY };
    }
    rel_sd * z / (forks as f64 / 2.0).sqrt()
}

/// Forks per side needed to detect a relative change `change` (its sign is ignored):
/// `⌈2·((z(1−α/2) + z(power)) · rel_sd / change)²⌉`, at least 2.
///
/// A zero change or invalid parameters (NaN, negative `rel_sd`, `alpha`/`power` outside (0, 1))
/// give `usize::MAX`: no number of forks will do.
pub fn forks_needed(rel_sd: f64, change: f64, alpha: f64, power: f64) -> usize {
    let z = z_sum(alpha, power);
    let change = change.abs();
    if z.is_nan() || rel_sd.is_nan() || rel_sd < 0.0 || change.is_nan() || change == 0.0 {
        return usize::MAX;
    }
    let n = 2.0 * (z * rel_sd / change).powi(2);
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
        // alpha 0.05, power 0.8: z sum = 1.959964 + 0.841621 = 2.801585
        let z = 2.801_585_218_2;
        let mdc = min_detectable_change(0.1, 8, 0.05, 0.8);
        assert!((mdc - 0.1 * z / 2.0).abs() < 1e-8);
        // gamma = 0.5 needs 2 (2.8016 / 0.5)^2 = 62.79 -> 63 forks
        assert_eq!(forks_needed(0.02, 0.01, 0.05, 0.8), 63);
        assert_eq!(forks_needed(0.02, -0.01, 0.05, 0.8), 63);
        assert_eq!(forks_needed(0.0, 0.01, 0.05, 0.8), 2);
    }

    #[test]
    fn the_two_functions_invert_each_other() {
        for forks in [2usize, 5, 30, 200] {
            let change = min_detectable_change(0.03, forks, 0.01, 0.9);
            assert_eq!(
                forks_needed(0.03, change * 1.000_001, 0.01, 0.9),
                forks.max(2)
            );
        }
    }

    #[test]
    fn degenerate_parameters() {
        assert!(min_detectable_change(0.1, 0, 0.05, 0.8).is_infinite());
        assert!(min_detectable_change(0.1, 5, 1.5, 0.8).is_nan());
        assert!(min_detectable_change(-0.1, 5, 0.05, 0.8).is_nan());
        assert_eq!(forks_needed(0.1, 0.0, 0.05, 0.8), usize::MAX);
        assert_eq!(forks_needed(0.1, 0.01, 0.05, 1.0), usize::MAX);
    }
}
