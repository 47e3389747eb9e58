//! The data model: what the steps pass to one another and what the samples file records. Plain
//! data with its own parsing and validation; nothing here runs a process or reads the settings.
//!
//! In the order of the layer rule: harness kinds ([`harness`]), which target a benchmark belongs
//! to ([`target`]), thresholds and stop rules ([`policy`]), commands compared from the outside
//! ([`command`]), instruction profiles and their differences ([`profile`]) and the samples file
//! ([`samples`]).

pub mod command;
pub mod harness;
pub mod policy;
pub mod profile;
pub mod samples;
pub mod target;
