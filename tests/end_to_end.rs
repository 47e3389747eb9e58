//! End to end, in one test binary: the installed binary run as `cargo perfdiff` on demo
//! repositories and small workspaces, building and measuring real benchmarks with tiny
//! measurement times. Every test that measures holds `support::measuring_lock()`, so measurements
//! never overlap. Each module is one former test file, in `tests/end_to_end/`.
//!
//! `cargo test --test end_to_end` runs them; `cargo test --test end_to_end layouts::` one file's.

mod support;

#[path = "end_to_end/action_e2e.rs"]
mod action_e2e;
#[path = "end_to_end/bisect_e2e.rs"]
mod bisect_e2e;
#[path = "end_to_end/build_identity.rs"]
mod build_identity;
#[path = "end_to_end/command_e2e.rs"]
mod command_e2e;
#[path = "end_to_end/duet_e2e.rs"]
mod duet_e2e;
#[path = "end_to_end/e2e.rs"]
mod e2e;
#[path = "end_to_end/harness_e2e.rs"]
mod harness_e2e;
#[path = "end_to_end/instructions_e2e.rs"]
mod instructions_e2e;
#[path = "end_to_end/layouts.rs"]
mod layouts;
#[path = "end_to_end/pinning_e2e.rs"]
mod pinning_e2e;
#[path = "end_to_end/repository_shapes.rs"]
mod repository_shapes;
#[path = "end_to_end/selection_e2e.rs"]
mod selection_e2e;
