//! One fork: one launch of a bench executable measuring exactly one benchmark.

/// Errors that stop the whole run (a failing benchmark is not one: it becomes a `FailureRecord`).
#[derive(Debug, thiserror::Error)]
pub enum ForkError {
    #[error("cannot launch {executable}: {source}")]
    Launch {
        executable: String,
        source: std::io::Error,
    },
}
