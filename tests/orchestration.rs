//! Orchestration, end to end on the deterministic benchmark fixture: the installed binary run as
//! `cargo perfdiff` on git repositories of `fixtures/fake-criterion`, a criterion bench
//! executable that reports the times its commit sets instead of measuring them
//! (`bench_fixture`). Every step runs as it does for a user (worktrees, builds, discovery, forks
//! over criterion's protocol, the stop rule, statistics, verdicts, reports, exit codes), in
//! milliseconds a fork, and no verdict depends on the machine: these tests take no measuring
//! lock and run in parallel. What must measure real timings stays in `end_to_end`.
//!
//! `cargo test --test orchestration` runs them; `cargo test --test orchestration ux::` one file's.

mod support;

#[path = "common/processes.rs"]
mod processes;

#[path = "common/gnu_time.rs"]
mod gnu_time;

#[path = "orchestration/bench_fixture.rs"]
mod bench_fixture;

#[path = "orchestration/bisect.rs"]
mod bisect;
#[path = "orchestration/commands.rs"]
mod commands;
#[path = "orchestration/compare.rs"]
mod compare;
#[path = "orchestration/duet_shared.rs"]
mod duet_shared;
#[path = "orchestration/fixture.rs"]
mod fixture;
#[path = "orchestration/fork_length.rs"]
mod fork_length;
#[path = "orchestration/layouts.rs"]
mod layouts;
#[path = "orchestration/remeasure.rs"]
mod remeasure;
#[path = "orchestration/robustness.rs"]
mod robustness;
#[path = "orchestration/robustness_build.rs"]
mod robustness_build;
#[path = "orchestration/robustness_forks.rs"]
mod robustness_forks;
#[path = "orchestration/robustness_interrupt.rs"]
mod robustness_interrupt;
#[path = "orchestration/ux.rs"]
mod ux;
#[path = "orchestration/workspaces.rs"]
mod workspaces;
