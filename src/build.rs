//! Build: `cargo bench --no-run --message-format=json` in a revision's worktree; bench executables
//! are taken from the `compiler-artifact` messages and copied to a per-commit directory.

/// Errors building a revision's benchmarks.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error("building the benchmarks of {revision} failed:\n{diagnostics}")]
    Failed { revision: String, diagnostics: String },
}
