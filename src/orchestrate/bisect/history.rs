//! The commits a bisection searches, read from git: GOOD's descendants up to BAD on BAD's
//! first-parent line (the default: the commits a mainline received, merges counted as one), or
//! every commit of `GOOD..BAD` with its ancestry (`--all-commits`).
//!
//! Only reads the repository, like [`crate::steps::git::revisions`].

use git2::{Oid, Repository, Sort};

use super::search::Range;

/// Errors reading the range of a bisection; each names the revisions.
#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    #[error("`{good}` is not an ancestor of `{bad}`: bisect needs GOOD to be older than BAD")]
    NotAncestor { good: String, bad: String },
    #[error("`{good}` and `{bad}` are the same commit: there is nothing to bisect")]
    Empty { good: String, bad: String },
    #[error(
        "`{good}` is not on the first-parent line of `{bad}` (it was merged from a side branch): \
         bisect all commits of the range with --all-commits"
    )]
    NotOnFirstParentLine { good: String, bad: String },
    #[error("git error while reading the commits between `{good}` and `{bad}`: {message}")]
    Git {
        good: String,
        bad: String,
        message: String,
    },
}

/// A commit of the range, as the report names it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CommitInfo {
    pub sha: String,
    /// The first line of its message.
    pub subject: String,
}

impl CommitInfo {
    pub fn short(&self) -> &str {
        &self.sha[..self.sha.len().min(9)]
    }
}

/// The commits of the range (ancestors first, BAD last) and their ancestry.
pub struct History {
    pub commits: Vec<CommitInfo>,
    pub range: Range,
}

/// Reads the commits after `good` up to `bad` (full shas; `specs` as the user typed them, for
/// messages).
pub fn read(
    repo: &Repository,
    good: &str,
    bad: &str,
    all_commits: bool,
    specs: (&str, &str),
) -> Result<History, HistoryError> {
    let git = |e: git2::Error| HistoryError::Git {
        good: specs.0.to_string(),
        bad: specs.1.to_string(),
        message: e.message().to_string(),
    };
    let good_id = Oid::from_str(good).map_err(git)?;
    let bad_id = Oid::from_str(bad).map_err(git)?;
    if good_id == bad_id {
        return Err(HistoryError::Empty {
            good: specs.0.to_string(),
            bad: specs.1.to_string(),
        });
    }
    if !repo.graph_descendant_of(bad_id, good_id).map_err(git)? {
        return Err(HistoryError::NotAncestor {
            good: specs.0.to_string(),
            bad: specs.1.to_string(),
        });
    }
    let (ids, range) = if all_commits {
        all_of(repo, good_id, bad_id).map_err(git)?
    } else {
        let ids = first_parent_line(repo, good_id, bad_id)
            .map_err(git)?
            .ok_or_else(|| HistoryError::NotOnFirstParentLine {
                good: specs.0.to_string(),
                bad: specs.1.to_string(),
            })?;
        let range = Range::linear(ids.len());
        (ids, range)
    };
    let commits = ids
        .iter()
        .map(|&id| commit_info(repo, id))
        .collect::<Result<_, _>>()
        .map_err(git)?;
    Ok(History { commits, range })
}

/// BAD, its first parent, its first parent… down to (not including) GOOD, oldest first; `None`
/// if the line passes GOOD by.
fn first_parent_line(
    repo: &Repository,
    good: Oid,
    bad: Oid,
) -> Result<Option<Vec<Oid>>, git2::Error> {
    let mut line = Vec::new();
    let mut commit = repo.find_commit(bad)?;
    loop {
        if commit.id() == good {
            line.reverse();
            return Ok(Some(line));
        }
        line.push(commit.id());
        match commit.parent(0) {
            Ok(parent) => commit = parent,
            Err(_) => return Ok(None),
        }
    }
}

/// Every commit of `good..bad`, parents before children, with each commit's parents in the
/// range.
fn all_of(repo: &Repository, good: Oid, bad: Oid) -> Result<(Vec<Oid>, Range), git2::Error> {
    let mut walk = repo.revwalk()?;
    walk.set_sorting(Sort::TOPOLOGICAL | Sort::REVERSE)?;
    walk.push(bad)?;
    walk.hide(good)?;
    let ids: Vec<Oid> = walk.collect::<Result<_, _>>()?;
    let index: std::collections::HashMap<Oid, usize> =
        ids.iter().enumerate().map(|(i, &id)| (id, i)).collect();
    let mut parents = Vec::with_capacity(ids.len());
    for &id in &ids {
        let commit = repo.find_commit(id)?;
        parents.push(
            commit
                .parent_ids()
                .filter_map(|p| index.get(&p).copied())
                .collect::<Vec<usize>>(),
        );
    }
    let range = Range::from_parents(&parents)
        .ok_or_else(|| git2::Error::from_str("the commits are not in topological order"))?;
    Ok((ids, range))
}

fn commit_info(repo: &Repository, id: Oid) -> Result<CommitInfo, git2::Error> {
    let commit = repo.find_commit(id)?;
    Ok(CommitInfo {
        sha: id.to_string(),
        subject: commit.summary().ok().flatten().unwrap_or("").to_string(),
    })
}

/// `git diff --stat` of a commit against its first parent (against nothing for a root commit).
pub fn diff_stat(repo: &Repository, sha: &str) -> Result<String, git2::Error> {
    let commit = repo.find_commit(Oid::from_str(sha)?)?;
    let tree = commit.tree()?;
    let parent_tree = match commit.parent(0) {
        Ok(parent) => Some(parent.tree()?),
        Err(_) => None,
    };
    let diff = repo.diff_tree_to_tree(parent_tree.as_ref(), Some(&tree), None)?;
    let stats = diff.stats()?;
    let buf = stats.to_buf(git2::DiffStatsFormat::FULL, 80)?;
    Ok(buf.as_str().unwrap_or("").to_string())
}
