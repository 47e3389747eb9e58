//! Benjamini–Hochberg false discovery rate control.
//!
//! A suite compares dozens of benchmarks at once; at α = 0.01 a few of them would be flagged by
//! chance alone. The BH step-up procedure turns each p-value into a q-value, the smallest false
//! discovery rate at which that hypothesis would be rejected:
//! `q_(i) = min_{j ≥ i} min(1, p_(j) · m / j)` over the ascending p-values `p_(1) ≤ … ≤ p_(m)`.
//! This equals `scipy.stats.false_discovery_control(p, method="bh")`.

/// BH-adjusted p-values (q-values), same order as the input.
///
/// Invariants: `p ≤ q ≤ 1`; q is monotone in p (a smaller p never gets a larger q).
/// NaN p-values stay NaN and do not count towards `m` (they are not hypotheses that were tested).
pub fn benjamini_hochberg(p_values: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..p_values.len())
        .filter(|&i| !p_values[i].is_nan())
        .collect();
    order.sort_unstable_by(|&a, &b| p_values[a].total_cmp(&p_values[b]));
    let m = order.len() as f64;
    let mut q_values = vec![f64::NAN; p_values.len()];
    let mut running_min = 1.0f64;
    for (rank, &index) in order.iter().enumerate().rev() {
        let scaled = p_values[index] * (m / (rank + 1) as f64);
        running_min = running_min.min(scaled);
        q_values[index] = running_min;
    }
    q_values
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_hand_computed_values() {
        // m = 4: sorted 0.01, 0.02, 0.03, 0.5 -> 0.04, 0.04, 0.04, 0.5
        let q = benjamini_hochberg(&[0.5, 0.02, 0.01, 0.03]);
        let expected = [0.5, 0.04, 0.04, 0.04];
        for (a, b) in q.iter().zip(expected) {
            assert!((a - b).abs() < 1e-15, "{q:?}");
        }
        assert!(benjamini_hochberg(&[]).is_empty());
        assert_eq!(benjamini_hochberg(&[0.9, 0.9]), vec![0.9, 0.9]);
        let with_nan = benjamini_hochberg(&[f64::NAN, 0.2]);
        assert!(with_nan[0].is_nan() && with_nan[1] == 0.2);
    }
}
