//! How much measurement a change needs (Peass, section II).

/// Smallest relative change detectable with `forks` forks per side at level `alpha` and `power`,
/// given the relative standard deviation of fork means `rel_sd`.
pub fn min_detectable_change(rel_sd: f64, forks: usize, alpha: f64, power: f64) -> f64 {
    let _ = (rel_sd, forks, alpha, power);
    todo!("stats helper")
}

/// Forks per side needed to detect a relative change `change`.
pub fn forks_needed(rel_sd: f64, change: f64, alpha: f64, power: f64) -> usize {
    let _ = (rel_sd, change, alpha, power);
    todo!("stats helper")
}
