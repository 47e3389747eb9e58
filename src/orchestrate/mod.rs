//! Orchestration.

pub mod bisect;
pub mod demo;
pub mod error;
pub mod replay;
pub mod run;
