//! cargo-perfdiff: statistical A/B performance regression testing for Rust benchmarks.

pub mod cli;
pub mod config;
pub mod model;
pub mod orchestrate;
pub mod stats;
pub mod steps;
pub mod util;

pub use orchestrate::error::{Error, Result};

