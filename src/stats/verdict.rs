//! The verdict that combines ratio CI, Mann–Whitney, Cliff's delta and the relevance threshold.
use serde::{Deserialize, Serialize};

use super::bootstrap::RatioCi;

/// A benchmark's verdict from its statistics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Regressed,
    Improved,
    Unchanged,
    Inconclusive,
}

/// The statistics a verdict rests on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Evidence {
    pub ratio: RatioCi,
    /// Mann–Whitney p-value (after false-discovery adjustment when enabled).
    pub p_value: f64,
    pub delta: f64,
    pub change_rate: f64,
}

pub fn decide(evidence: &Evidence, threshold: f64, alpha: f64) -> Verdict {
    let _ = (evidence, threshold, alpha);
    todo!("stats helper")
}
