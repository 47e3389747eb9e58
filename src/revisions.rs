//! Revisions: turn what the user typed (`HEAD~1`, `main@{u}`, `A...B`, nothing) into commits.
//!
//! Resolution uses git2 and reads only: nothing here writes to the repository.
use std::path::PathBuf;

/// Errors resolving revisions. Each names the revision or path and says what to do.
#[derive(Debug, thiserror::Error)]
pub enum RevisionError {
    #[error("not inside a git repository: {path} (run cargo perfdiff inside your project's git checkout)")]
    NotARepository { path: PathBuf },
}

/// One side of a comparison.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Revision {
    /// What the user typed, or `HEAD`/`working tree` for the defaults.
    pub spec: String,
    /// Full commit id; for the working tree, the commit its snapshot is based on (HEAD), if any.
    pub commit: Option<String>,
    /// True for the working tree including uncommitted changes.
    pub working_tree: bool,
}

impl Revision {
    /// Short human label: the spec plus the short commit (`HEAD~1 (3f2a9c1)`).
    pub fn label(&self) -> String {
        match (&self.commit, self.working_tree) {
            (_, true) => "working tree".to_string(),
            (Some(c), false) => format!("{} ({})", self.spec, &c[..c.len().min(9)]),
            (None, false) => self.spec.clone(),
        }
    }
}

/// The two revisions to compare and the repository they live in.
#[derive(Debug, Clone)]
pub struct Comparison {
    /// The repository's working directory (top level).
    pub repo_root: PathBuf,
    pub base: Revision,
    pub head: Revision,
}
