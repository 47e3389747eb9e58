//! Orchestration: the steps wired into the commands. [`run`] measures one comparison, [`replay`]
//! re-runs the stop rules over a recording, [`demo`] builds the demo repository, and [`bisect`]
//! drives comparisons along a range of commits. [`error`] gathers the steps' errors into the
//! error of a comparison.

pub mod bisect;
pub mod demo;
pub mod error;
pub mod replay;
pub mod run;
