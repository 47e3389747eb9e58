//! The library's build and fork steps on real crates, in one test binary: the fixture crates
//! under `fixtures/` (and small workspaces written by the tests) built with cargo into
//! `target/test-fixture-builds`, their executables classified, listed and run as forks, alone
//! and in duet pairs, failing and hanging. Each module is one former test file, in
//! `tests/fixture_crates/`.
//!
//! `cargo test --test fixture_crates` runs them; `cargo test --test fixture_crates fork_duet::`
//! one file's. The installed binary's end-to-end runs are in `tests/end_to_end.rs`; what builds
//! nothing is in `tests/offline.rs`. The two tests of an interrupt, `tests/fork_interrupt.rs` and
//! `tests/fork_interrupt_duet.rs`, stay binaries of their own: the interrupt flag they set is
//! global to the process, and every fork after it returns `Interrupted`.

#[path = "common/fixture.rs"]
mod fixture;
#[path = "common/processes.rs"]
mod processes;

#[path = "fixture_crates/build_env.rs"]
mod build_env;
#[path = "fixture_crates/build_fixture.rs"]
mod build_fixture;
#[path = "fixture_crates/build_workspace.rs"]
mod build_workspace;
#[path = "fixture_crates/divan_old.rs"]
mod divan_old;
#[path = "fixture_crates/divan_printing.rs"]
mod divan_printing;
#[path = "fixture_crates/divan_threads.rs"]
mod divan_threads;
#[path = "fixture_crates/fork_duet.rs"]
mod fork_duet;
#[path = "fixture_crates/fork_failures.rs"]
mod fork_failures;
#[path = "fixture_crates/fork_single.rs"]
mod fork_single;
#[path = "fixture_crates/reach_code.rs"]
mod reach_code;
