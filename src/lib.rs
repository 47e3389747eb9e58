//! cargo-perfdiff: statistical A/B performance regression testing for Rust benchmarks.
//!
//! The modules follow the data flow of one comparison:
//!
//! revisions → worktree → build → discover → schedule → fork → stop → samples → stats/analysis →
//! report (and the exit code).
//!
//! `cli` wires them together for the `cargo perfdiff` binary, which is a thin shell over [`cli::main`].
//! Everything under [`stats`] is pure maths with no I/O.

pub mod analysis;
pub mod bisect;
pub mod build;
pub mod cargo_env;
pub mod cli;
pub mod command;
pub mod config;
pub mod demo;
pub mod discover;
pub mod duet;
pub mod error;
pub mod estimate;
pub mod fork;
pub mod freshness;
pub mod harness;
pub mod layout;
pub mod programs;
pub mod progress;
pub mod replay;
pub mod report;
pub mod revisions;
pub mod run;
pub mod samples;
pub mod schedule;
pub mod stats;
pub mod stop;
pub mod untracked;
pub mod worktree;

pub use error::{Error, Result};
