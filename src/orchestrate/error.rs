//! The library's error type and the process exit codes.
//!
//! Every failure a user can cause or meet becomes one line naming the revision, path, benchmark or
//! command involved. Each pipeline step has its own typed error; [`Error`] gathers them.

use std::path::PathBuf;

use crate::util::exit_code;

/// Anything that stops cargo-perfdiff from producing a report.
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
    Samples(#[from] crate::model::samples::SamplesError),
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
    #[error(transparent)]
    Demo(#[from] crate::orchestrate::demo::DemoError),
    #[error(transparent)]
    Bisect(#[from] crate::orchestrate::bisect::BisectError),
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
    /// The exit code this error ends the process with.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Interrupted { .. }
            | Error::Bisect(crate::orchestrate::bisect::BisectError::Interrupted { .. }) => {
                exit_code::INTERRUPTED
            }
            _ => exit_code::ERROR,
        }
    }

    /// Wraps an I/O error with the path it concerns.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}

/// Result with the library's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
