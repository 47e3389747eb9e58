//! Worktrees: each revision materialised in a directory of its own under `target/perfdiff/`,
//! reused between runs so a second run rebuilds only what changed.
//!
//! The user's working tree, index, HEAD, branches and stash are never modified.
use std::path::PathBuf;

/// Errors materialising a revision.
#[derive(Debug, thiserror::Error)]
pub enum WorktreeError {
    #[error("cannot check out {revision} into {path}: {message}")]
    Checkout {
        revision: String,
        path: PathBuf,
        message: String,
    },
}
