//! Cliff's delta `P(head > base) − P(head < base)` in O((n+m) log(n+m)).
use serde::{Deserialize, Serialize};

use super::StatsError;

/// Romano et al.'s magnitudes: negligible < 0.147 ≤ small < 0.33 ≤ medium < 0.474 ≤ large.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Magnitude {
    Negligible,
    Small,
    Medium,
    Large,
}

/// Cliff's delta; positive means head tends to be larger (slower, for times).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CliffsDelta {
    pub delta: f64,
    pub magnitude: Magnitude,
}

pub fn cliffs_delta(base: &[f64], head: &[f64]) -> Result<CliffsDelta, StatsError> {
    let _ = (base, head);
    todo!("stats helper")
}
