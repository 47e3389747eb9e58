//! The steps of a comparison, in the order of the data flow: check out the two revisions
//! ([`git`]), build them ([`build`]), lay out the schedule ([`schedule`]), list the benchmarks
//! ([`discover`]), run the forks ([`fork`]) and choose how long they measure ([`fork_length`]), count instructions under valgrind ([`instructions`]),
//! analyse the samples ([`analysis`]), decide when to stop
//! ([`stop`]), render the report ([`report`]); [`estimate`] and [`progress`] tell the user how far
//! a run is.
//!
//! Each step has its own error type and takes its own small settings, never the command line's or
//! the configuration's, so each can be tested on its own and the orchestration
//! ([`crate::orchestrate`]) wires them together.

pub mod analysis;
pub mod build;
pub mod discover;
pub mod estimate;
pub mod fork;
pub mod fork_length;
pub mod git;
pub mod instructions;
pub mod progress;
pub mod reach;
pub mod report;
pub mod schedule;
pub mod stop;
