//! Which benchmarks a change can reach (issue #48). This minimal module declares the code
//! identity part only; the lead's `mod.rs` replaces it at merge.

pub mod code;
