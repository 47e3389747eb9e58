//! Duet statistics (Bulej et al., ICPE 2020, section 3): paired ratios per run, geometric means.
use super::StatsError;
use super::bootstrap::{BootstrapConfig, RatioCi};

/// One duet run: samples of base and head paired by position.
#[derive(Debug, Clone, PartialEq)]
pub struct DuetRun {
    pub base: Vec<f64>,
    pub head: Vec<f64>,
}

/// Grand geometric mean of the runs' geometric-mean ratios `head/base`, with a percentile bootstrap
/// CI over runs.
pub fn duet_ratio(runs: &[DuetRun], config: &BootstrapConfig) -> Result<RatioCi, StatsError> {
    let _ = (runs, config);
    todo!("stats helper")
}
