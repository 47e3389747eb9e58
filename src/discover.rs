//! Discovery: which bench targets are criterion benchmarks, and which benchmark ids each contains.

/// Errors listing benchmarks.
#[derive(Debug, thiserror::Error)]
pub enum DiscoverError {
    #[error("cannot list the benchmarks of {executable}: {message}")]
    List { executable: String, message: String },
}
