//! Stop criteria of dynamic reconfiguration (Laaber et al., FSE 2020, section 4).
use serde::{Deserialize, Serialize};

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

/// Drops values more than ten times the median.
pub fn drop_outliers(values: &[f64]) -> Vec<f64> {
    let _ = values;
    todo!("stats helper")
}

/// Criterion value for every prefix of `groups`.
pub fn prefix_series(criterion: Criterion, groups: &[Vec<f64>], seed: u64) -> Vec<Option<f64>> {
    let _ = (criterion, groups, seed);
    todo!("stats helper")
}

/// Stability function over a window of criterion values.
pub fn is_stable(criterion: Criterion, window: &[f64], threshold: f64) -> bool {
    let _ = (criterion, window, threshold);
    todo!("stats helper")
}
