//! cargo-perfdiff: statistical A/B performance regression testing for Rust benchmarks.
//!
//! # Layers
//!
//! The folders follow the data flow of one comparison, and every module imports only from the
//! layers below it (and, within a layer, from the modules before it in the list below). There is
//! no import circle, so one step can be read, tested and changed without the rest in mind: not
//! between modules, and not between the files of one module either (what two files both need
//! goes into a file below them). `layers.rs` keeps the rule: unit tests read every source file
//! and fail on an import that points up, on an import circle between the files (or folders) of a
//! module, naming it, and on a function longer than 80 lines.
//!
//! | Layer | Folder | What it holds |
//! |---|---|---|
//! | command line | [`cli`] | clap's arguments, flags translated into settings, the catch-all error and the exit code |
//! | orchestration | [`orchestrate`] | the comparison's error; `run` (prepare the sides, select, measure rounds, checkpoint), `replay`, `demo`, `bisect` |
//! | configuration | [`config`] | the settings of a run with the provenance of each value (files, command line, defaults) |
//! | steps | [`steps`] | `git` → `build` → `schedule` → `discover` → `fork` → `instructions` → `analysis` → `stop` → `report`, then `estimate` and `progress` |
//! | data model | [`model`] | harness kinds, target ids, thresholds, stop rules and metrics, command specs, instruction profiles, the samples file |
//! | statistics | [`stats`] | pure maths: no I/O, no clocks, seeded randomness; its own crate (`crates/perfdiff-stats`), so the compiler keeps it free of the rest |
//! | leaf utilities | [`util`] | exit codes, the interrupt flag, atomic copy, terminal width and wrapping, shell quoting, spawning |
//!
//! Each step that can fail has its own typed error; a step that needs settings takes a small struct
//! of its own ([`steps::analysis::AnalysisSettings`], [`steps::stop::StopSettings`],
//! [`steps::estimate::EstimateSettings`]); [`config`] converts its [`config::Settings`] into each.
//! Only [`cli`] knows the command line; only it turns an error into an exit code.
//!
//! The binary `cargo perfdiff` is a thin shell over [`cli::main`].

pub mod cli;
pub mod config;
pub mod model;
pub mod orchestrate;
pub use perfdiff_stats as stats;
pub mod steps;
pub mod util;

#[cfg(test)]
mod layers;
