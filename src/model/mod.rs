//! The data model.

pub mod command;
pub mod harness;
pub mod policy;
pub mod samples;
pub mod target;
