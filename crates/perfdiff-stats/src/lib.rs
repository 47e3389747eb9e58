//! Pure statistics: no I/O, no clocks, every random choice from a caller-given seed.
//!
//! Definitions follow `../shared/METHOD.md`; each function documents its invariants.

pub mod bootstrap;
pub mod cliffs;
pub mod components;
pub mod descriptive;
pub mod disturbed;
pub mod duet;
pub mod fdr;
pub mod layout;
pub mod mann_whitney;
pub mod power;
mod resample;
pub mod rounds;
pub mod stability;
pub mod verdict;

pub use bootstrap::{BootstrapConfig, RatioCi, Resampling};
pub use cliffs::{CliffsDelta, Magnitude};
pub use mann_whitney::MannWhitney;
pub use rounds::{IntervalKind, PairedRounds, RatioInterval, Round, Unit};
pub use verdict::{Decision, Evidence, Levels, Verdict};

/// Inputs the statistics cannot work with.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StatsError {
    #[error("no data: {0}")]
    Empty(&'static str),
    #[error("value is not finite or not positive: {0}")]
    InvalidValue(f64),
    #[error("invalid parameter: {0}")]
    InvalidParameter(String),
}
