//! Two-sided Mann–Whitney U test, as `scipy.stats.mannwhitneyu(head, base, method="auto")`.
use serde::{Deserialize, Serialize};

use super::StatsError;

/// Which null distribution gave the p-value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    Exact,
    Asymptotic,
}

/// U of the head sample and the two-sided p-value. Invariant: `U_head + U_base = n·m`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MannWhitney {
    pub u: f64,
    pub p_value: f64,
    pub method: Method,
}

pub fn mann_whitney_u(base: &[f64], head: &[f64]) -> Result<MannWhitney, StatsError> {
    let _ = (base, head);
    todo!("stats helper")
}
