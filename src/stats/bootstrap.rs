//! Ratio of means with a hierarchical (forks, then iterations) percentile bootstrap CI.
use serde::{Deserialize, Serialize};

use super::StatsError;

/// How the bootstrap resampled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Resampling {
    /// Forks with replacement, then iterations within each chosen fork.
    Hierarchical,
    /// A side had one fork only: iterations resampled, fork-to-fork variance unseen.
    IterationsOnly,
}

/// `head / base` ratio of means with its percentile CI. Invariant: `ci_low <= estimate <= ci_high`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RatioCi {
    pub estimate: f64,
    pub ci_low: f64,
    pub ci_high: f64,
    pub confidence: f64,
    pub resamples: usize,
    pub resampling: Resampling,
}

/// Bootstrap parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BootstrapConfig {
    pub confidence: f64,
    pub resamples: usize,
    pub seed: u64,
}

/// Ratio `mean(head) / mean(base)`, a side's mean being the mean of its fork means.
pub fn ratio_of_means(
    base: &[Vec<f64>],
    head: &[Vec<f64>],
    config: &BootstrapConfig,
) -> Result<RatioCi, StatsError> {
    let _ = (base, head, config);
    todo!("stats helper")
}

/// Relative width `(hi - lo) / mean` of the hierarchical bootstrap CI of one side's mean.
pub fn mean_ci_relative_width(forks: &[Vec<f64>], config: &BootstrapConfig) -> Result<f64, StatsError> {
    let _ = (forks, config);
    todo!("stats helper")
}
