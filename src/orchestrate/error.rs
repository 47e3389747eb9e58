//! The error of a comparison: what stops `run` (and `report`, `replay`) from producing a report.
//!
//! Every failure a user can cause or meet becomes one line naming the revision, path, benchmark or
//! command involved. Each step has its own typed error; [`Error`] gathers those of a comparison.
//! A bisection's and the demo's own errors are theirs; the command line gathers all of them into
//! its catch-all error, which alone decides the exit code (`cli::error`).

use std::path::PathBuf;

/// Anything that stops a comparison from producing a report.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Revision(#[from] crate::steps::git::revisions::RevisionError),
    #[error(transparent)]
    Worktree(#[from] crate::steps::git::worktree::WorktreeError),
    #[error(transparent)]
    Untracked(#[from] crate::steps::git::untracked::UntrackedError),
    #[error(transparent)]
    Build(#[from] crate::steps::build::BuildError),
    #[error(transparent)]
    Discover(#[from] crate::steps::discover::DiscoverError),
    #[error(transparent)]
    Fork(#[from] crate::steps::fork::ForkError),
    #[error(transparent)]
    Instructions(#[from] crate::steps::instructions::InstructionsError),
    #[error(transparent)]
    Valgrind(#[from] crate::steps::instructions::ValgrindError),
    #[error(transparent)]
    Samples(#[from] crate::model::samples::SamplesError),
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Bad command-line usage that clap cannot catch.
    #[error("{0}")]
    Usage(String),
    /// Nothing to measure: no benchmarks, or none matching the filter.
    #[error("{0}")]
    NothingToRun(String),
    /// Ctrl-C or SIGTERM; the samples gathered so far are in `samples`.
    #[error(
        "interrupted; the samples of completed forks are in {samples} (continue with --resume {samples})"
    )]
    Interrupted { samples: PathBuf },
}

impl Error {
    /// Wraps an I/O error with the path it concerns.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}

/// Result with a comparison's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
