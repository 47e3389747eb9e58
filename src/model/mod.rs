//! The data model.

pub mod command;
pub mod harness;
pub mod samples;
