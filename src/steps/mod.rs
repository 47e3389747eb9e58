//! The steps of a comparison.

pub mod analysis;
pub mod build;
pub mod discover;
pub mod estimate;
pub mod fork;
pub mod git;
pub mod progress;
pub mod report;
pub mod schedule;
pub mod stop;
