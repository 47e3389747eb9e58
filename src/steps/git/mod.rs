//! Git: the two revisions, their checkouts and the untracked files they share.

pub mod revisions;
pub mod untracked;
pub mod worktree;
