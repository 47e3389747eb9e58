//! Benjamini–Hochberg false discovery rate control.

/// BH-adjusted p-values (q-values), same order as the input.
pub fn benjamini_hochberg(p_values: &[f64]) -> Vec<f64> {
    let _ = p_values;
    todo!("stats helper")
}
