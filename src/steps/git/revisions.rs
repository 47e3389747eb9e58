//! Revisions: turn what the user typed (`HEAD~1`, `main@{u}`, `A...B`, nothing) into commits.
//!
//! The argument forms mirror `git diff`, because that is the comparison the user already knows:
//!
//! | arguments   | base                 | head                                  |
//! |-------------|----------------------|---------------------------------------|
//! | (none)      | `HEAD`               | the working tree, uncommitted changes included |
//! | `REV`       | `REV`                | the working tree                      |
//! | `A..B`      | `A`                  | `B`                                   |
//! | `A...B`     | `merge-base(A, B)`   | `B`                                   |
//! | `A B`       | `A`                  | `B`                                   |
//!
//! An empty side of a range means `HEAD`, as in git. Each side is resolved with libgit2's
//! rev-parse, so branches, tags, shas, `HEAD~3`, `main@{u}` and friends all work.
//!
//! Two things libgit2 does differently from git are handled here on purpose:
//! - a name that is both a branch and a tag silently resolves to the tag in libgit2 (git only
//!   warns). Benchmarking the wrong commit is worse than stopping, so when the candidates point at
//!   different commits we refuse and list them.
//! - in a shallow clone a missing parent or commit looks like an unknown revision; we say which
//!   `git fetch` brings the history in instead.
//!
//! Resolution only reads: nothing here writes to the repository.
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use git2::{ErrorCode, ObjectType, Oid, Repository, RepositoryOpenFlags};

/// Errors resolving revisions. Each names the revision or path and says what to do.
#[derive(Debug, thiserror::Error)]
pub enum RevisionError {
    #[error(
        "not inside a git repository: {path} (run cargo perfdiff inside your project's git checkout)"
    )]
    NotARepository { path: PathBuf },
    #[error(
        "{path} is a bare git repository: cargo perfdiff needs a checkout with a working tree (clone it, or add one with `git worktree add`)"
    )]
    BareRepository { path: PathBuf },
    #[error("cannot open the git repository at {path}: {message}")]
    Open { path: PathBuf, message: String },
    #[error(
        "unknown revision `{spec}`: {message} (check it with `git rev-parse --verify '{spec}'`)"
    )]
    Unknown { spec: String, message: String },
    #[error("ambiguous revision `{spec}`: it matches {}; spell out the one you mean (for example `refs/heads/…`, `refs/tags/…` or a longer sha)", .matches.join(", "))]
    Ambiguous { spec: String, matches: Vec<String> },
    #[error("revision `{spec}` is a {kind}, not a commit")]
    NotACommit { spec: String, kind: String },
    #[error(
        "revision `{spec}` is not in this shallow clone's history: fetch more of it with `git fetch --deepen=N` (or all of it with `git fetch --unshallow`) and try again"
    )]
    Shallow { spec: String },
    #[error(
        "no merge base between `{left}` and `{right}` in this shallow clone: fetch more history with `git fetch --deepen=N` (or `git fetch --unshallow`) and try again"
    )]
    ShallowMergeBase { left: String, right: String },
    #[error(
        "`{left}` and `{right}` have no common ancestor, so `{left}...{right}` has no base; compare them with `{left}..{right}` instead"
    )]
    NoMergeBase { left: String, right: String },
    #[error(
        "`HEAD` has no commit yet in {path}: commit something first, or name the revisions to compare"
    )]
    NoCommits { path: PathBuf },
    #[error("{0}")]
    Usage(String),
    #[error("git error while resolving `{spec}`: {message}")]
    Git { spec: String, message: String },
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

    /// The working tree of `repo`, based on its HEAD commit (None while HEAD is unborn).
    pub fn working_tree(repo: &Repository) -> Revision {
        let head = repo.head().ok().and_then(|h| h.peel_to_commit().ok());
        Revision {
            spec: WORKING_TREE.to_string(),
            commit: head.map(|c| c.id().to_string()),
            working_tree: true,
        }
    }

    fn commit(spec: impl Into<String>, id: Oid) -> Revision {
        Revision {
            spec: spec.into(),
            commit: Some(id.to_string()),
            working_tree: false,
        }
    }
}

/// The spec shown for the working-tree side.
pub const WORKING_TREE: &str = "working tree";

/// The two revisions to compare and the repository they live in.
#[derive(Debug, Clone)]
pub struct Comparison {
    /// The repository's working directory (top level).
    pub repo_root: PathBuf,
    pub base: Revision,
    pub head: Revision,
}

/// Finds the repository containing `start` (any subdirectory works). Errors: not a repository
/// (message says to run inside the project's git checkout); bare repository.
///
/// Honours `GIT_CEILING_DIRECTORIES` like git does, but not `GIT_DIR`: the project is found from
/// the directory, never from an inherited environment.
pub fn open_repository(start: &Path) -> Result<Repository, RevisionError> {
    if !start.is_dir() {
        return Err(RevisionError::Open {
            path: start.to_path_buf(),
            message: "no such directory".to_string(),
        });
    }
    let ceilings: Vec<OsString> = std::env::var_os("GIT_CEILING_DIRECTORIES")
        .map(|v| {
            std::env::split_paths(&v)
                .map(|p| p.into_os_string())
                .collect()
        })
        .unwrap_or_default();
    let repo = Repository::open_ext(start, RepositoryOpenFlags::empty(), &ceilings).map_err(
        |e| match e.code() {
            ErrorCode::NotFound => RevisionError::NotARepository {
                path: start.to_path_buf(),
            },
            _ => RevisionError::Open {
                path: start.to_path_buf(),
                message: e.message().to_string(),
            },
        },
    )?;
    if repo.is_bare() || repo.workdir().is_none() {
        return Err(RevisionError::BareRepository {
            path: repo.path().to_path_buf(),
        });
    }
    Ok(repo)
}

/// Resolves the user's revision arguments like `git diff` does:
///
/// ```text
///  []        -> base HEAD, head = the working tree including uncommitted and untracked-not-ignored changes
///  [REV]     -> base REV, head = working tree;   [A...B] -> base merge-base(A,B), head B
///  [A..B]    -> base A, head B;                  [A, B]  -> base A, head B
/// ```
///
/// Any git revision spec works (branch, tag, sha, HEAD~3, main@{u}). Errors name the spec:
/// unknown revision; ambiguous (e.g. a short sha matching several objects, or a name that is both
/// a branch and a tag — say what matched); a shallow clone where the spec (or the merge base) is
/// missing -> say `git fetch --deepen=N` / `git fetch --unshallow`; no merge base for A...B.
pub fn resolve_comparison(repo: &Repository, args: &[String]) -> Result<Comparison, RevisionError> {
    let repo_root = repo
        .workdir()
        .ok_or_else(|| RevisionError::BareRepository {
            path: repo.path().to_path_buf(),
        })?
        .to_path_buf();
    let (base, head) = match args {
        [] => (resolve_head(repo)?, Revision::working_tree(repo)),
        [single] => match split_range(single) {
            RangeSpec::Single(spec) => (resolve(repo, spec)?, Revision::working_tree(repo)),
            RangeSpec::TwoDot(left, right) => (resolve(repo, left)?, resolve(repo, right)?),
            RangeSpec::ThreeDot(left, right) => {
                let head = resolve(repo, right)?;
                (merge_base(repo, left, &head)?, head)
            }
        },
        [left, right] => {
            for arg in [left, right] {
                if !matches!(split_range(arg), RangeSpec::Single(_)) {
                    return Err(RevisionError::Usage(format!(
                        "`{arg}` is a range; give either one range or two revisions, not both"
                    )));
                }
            }
            (resolve(repo, left)?, resolve(repo, right)?)
        }
        more => {
            return Err(RevisionError::Usage(format!(
                "too many revisions ({}): give at most two, as in `cargo perfdiff BASE HEAD`",
                more.len()
            )));
        }
    };
    Ok(Comparison {
        repo_root,
        base,
        head,
    })
}

/// A revision argument split at `..` or `...`; empty sides already replaced by `HEAD`.
#[derive(Debug, PartialEq, Eq)]
enum RangeSpec<'a> {
    Single(&'a str),
    TwoDot(&'a str, &'a str),
    ThreeDot(&'a str, &'a str),
}

fn split_range(arg: &str) -> RangeSpec<'_> {
    fn or_head(side: &str) -> &str {
        if side.is_empty() { "HEAD" } else { side }
    }
    if let Some((left, right)) = arg.split_once("...") {
        RangeSpec::ThreeDot(or_head(left), or_head(right))
    } else if let Some((left, right)) = arg.split_once("..") {
        RangeSpec::TwoDot(or_head(left), or_head(right))
    } else {
        RangeSpec::Single(arg)
    }
}

fn resolve_head(repo: &Repository) -> Result<Revision, RevisionError> {
    match repo.head() {
        Err(e) if e.code() == ErrorCode::UnbornBranch || e.code() == ErrorCode::NotFound => {
            Err(RevisionError::NoCommits {
                path: repo.workdir().unwrap_or(repo.path()).to_path_buf(),
            })
        }
        _ => resolve(repo, "HEAD"),
    }
}

/// Resolves one revision spec to a commit, with errors that say what went wrong.
fn resolve(repo: &Repository, spec: &str) -> Result<Revision, RevisionError> {
    if spec.starts_with('-') {
        return Err(RevisionError::Unknown {
            spec: spec.to_string(),
            message: "a revision cannot start with `-`".to_string(),
        });
    }
    check_ref_ambiguity(repo, spec)?;
    let object = repo
        .revparse_single(spec)
        .map_err(|e| explain_failure(repo, spec, &e))?;
    let kind = object.kind();
    let commit = object
        .peel_to_commit()
        .map_err(|_| RevisionError::NotACommit {
            spec: spec.to_string(),
            kind: kind.map_or("object", |k| k.str()).to_string(),
        })?;
    Ok(Revision::commit(spec, commit.id()))
}

fn merge_base(repo: &Repository, left: &str, head: &Revision) -> Result<Revision, RevisionError> {
    let left_rev = resolve(repo, left)?;
    let oid = |rev: &Revision| Oid::from_str(rev.commit.as_deref().unwrap_or_default());
    let (Ok(left_id), Ok(right_id)) = (oid(&left_rev), oid(head)) else {
        return Err(RevisionError::Git {
            spec: format!("{left}...{}", head.spec),
            message: "resolved to an invalid commit id".to_string(),
        });
    };
    match repo.merge_base(left_id, right_id) {
        Ok(base) => Ok(Revision::commit(
            format!("merge-base({left}, {})", head.spec),
            base,
        )),
        Err(e) if e.code() == ErrorCode::NotFound => {
            let (left, right) = (left.to_string(), head.spec.clone());
            Err(if repo.is_shallow() {
                RevisionError::ShallowMergeBase { left, right }
            } else {
                RevisionError::NoMergeBase { left, right }
            })
        }
        Err(e) => Err(RevisionError::Git {
            spec: format!("{left}...{}", head.spec),
            message: e.message().to_string(),
        }),
    }
}

/// Turns a failed rev-parse into the most helpful error.
fn explain_failure(repo: &Repository, spec: &str, error: &git2::Error) -> RevisionError {
    if error.code() == ErrorCode::Ambiguous {
        return RevisionError::Ambiguous {
            spec: spec.to_string(),
            matches: objects_with_prefix(repo, base_name(spec)),
        };
    }
    if repo.is_shallow() && missing_because_shallow(repo, spec) {
        return RevisionError::Shallow {
            spec: spec.to_string(),
        };
    }
    RevisionError::Unknown {
        spec: spec.to_string(),
        message: error.message().to_string(),
    }
}

/// In a shallow clone: the name itself resolves but walking from it fails (`HEAD~5` past the
/// cut), or it looks like a sha (likely a commit beyond the cut).
fn missing_because_shallow(repo: &Repository, spec: &str) -> bool {
    let name = base_name(spec);
    if looks_like_sha(name) {
        return true;
    }
    name != spec && repo.revparse_single(name).is_ok()
}

fn looks_like_sha(name: &str) -> bool {
    name.len() >= 4 && name.len() <= 64 && name.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The leading name of a spec, before any `~`, `^`, `:` or `@{` suffix (`main` of `main@{u}~2`).
fn base_name(spec: &str) -> &str {
    let mut end = spec.len();
    for pattern in ["~", "^", ":", "@{"] {
        if let Some(i) = spec.find(pattern) {
            end = end.min(i);
        }
    }
    &spec[..end]
}

/// git's rules for expanding a short name into a reference, in its order of preference.
fn ref_candidates(name: &str) -> Vec<String> {
    [
        "{}",
        "refs/{}",
        "refs/tags/{}",
        "refs/heads/{}",
        "refs/remotes/{}",
        "refs/remotes/{}/HEAD",
    ]
    .iter()
    .map(|rule| rule.replace("{}", name))
    .collect()
}

/// Refuses a name that several references match when they point at different commits.
fn check_ref_ambiguity(repo: &Repository, spec: &str) -> Result<(), RevisionError> {
    let name = base_name(spec);
    if name.is_empty() || name == "HEAD" || name == "@" || name.starts_with("refs/") {
        return Ok(());
    }
    let mut matches: Vec<(String, Oid)> = Vec::new();
    for candidate in ref_candidates(name) {
        let Ok(reference) = repo.find_reference(&candidate) else {
            continue;
        };
        if let Ok(commit) = reference.peel_to_commit() {
            matches.push((candidate, commit.id()));
        }
    }
    let first = matches.first().map(|(_, id)| *id);
    if matches.iter().all(|(_, id)| Some(*id) == first) {
        return Ok(());
    }
    Err(RevisionError::Ambiguous {
        spec: spec.to_string(),
        matches: matches
            .iter()
            .map(|(refname, id)| format!("{} ({:.9})", describe_ref(refname), id.to_string()))
            .collect(),
    })
}

fn describe_ref(refname: &str) -> String {
    for (prefix, what) in [
        ("refs/heads/", "branch"),
        ("refs/tags/", "tag"),
        ("refs/remotes/", "remote-tracking branch"),
    ] {
        if let Some(short) = refname.strip_prefix(prefix) {
            return format!("{what} {short}");
        }
    }
    refname.to_string()
}

/// Objects whose id starts with `prefix` (for the "short sha is ambiguous" message). Walks the
/// object database, which is slow on huge repositories, but only on this error path.
fn objects_with_prefix(repo: &Repository, prefix: &str) -> Vec<String> {
    const SHOWN: usize = 6;
    let prefix = prefix.to_ascii_lowercase();
    let mut found: Vec<Oid> = Vec::new();
    if let Ok(odb) = repo.odb() {
        let _ = odb.foreach(|id| {
            if id.to_string().starts_with(&prefix) && !found.contains(id) {
                found.push(*id);
            }
            found.len() < SHOWN
        });
        return found
            .iter()
            .map(|id| {
                let kind = odb
                    .read_header(*id)
                    .map(|(_, kind)| kind)
                    .unwrap_or(ObjectType::Any);
                format!("{} {}", kind.str(), id)
            })
            .collect();
    }
    vec![format!("several objects starting with {prefix}")]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_split_like_git() {
        assert_eq!(split_range("a..b"), RangeSpec::TwoDot("a", "b"));
        assert_eq!(split_range("a...b"), RangeSpec::ThreeDot("a", "b"));
        assert_eq!(split_range("..b"), RangeSpec::TwoDot("HEAD", "b"));
        assert_eq!(split_range("a..."), RangeSpec::ThreeDot("a", "HEAD"));
        assert_eq!(split_range("main@{u}"), RangeSpec::Single("main@{u}"));
    }

    #[test]
    fn base_name_strips_suffixes() {
        assert_eq!(base_name("main@{u}~2"), "main");
        assert_eq!(base_name("v1.0^{commit}"), "v1.0");
        assert_eq!(base_name("feature/x~3"), "feature/x");
        assert_eq!(base_name("HEAD:src"), "HEAD");
        assert_eq!(base_name("abc123"), "abc123");
    }

    #[test]
    fn labels_show_spec_and_short_sha() {
        let rev = Revision::commit("HEAD~1", Oid::from_str(&"3f".repeat(20)).unwrap());
        assert_eq!(rev.label(), "HEAD~1 (3f3f3f3f3)");
    }
}
