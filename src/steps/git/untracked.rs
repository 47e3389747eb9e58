//! Files git does not hold, copied from the user's working tree into every checkout
//! (`--copy-untracked PATH`).
//!
//! Why: each revision is checked out from git alone (`worktree`), so data a benchmark reads at
//! run time that is ignored or was never committed (a downloaded corpus under a `.gitignore`d
//! `bench-data/`) is missing there, and criterion panics while listing the benchmarks. Such data
//! is not part of any revision, so the same copy serves both sides.
//!
//! Rules, so that a copy can neither lose the user's data nor falsify a comparison:
//! - a path must lie inside the repository and exist; it is copied from, never moved or written;
//! - a path git tracks (any file of it in the user's index) is refused: each revision has its own
//!   version of it, and the working tree's would replace both;
//! - a file already in a checkout with the same length and modification time is not copied again,
//!   so a large corpus costs its copy once, not once per run; copies keep the source's
//!   modification time for that reason;
//! - symbolic links are followed to what they point at; a directory reached twice through links
//!   is copied once.

use std::fs;
use std::path::{Path, PathBuf};

/// Errors choosing or copying the untracked paths.
#[derive(Debug, thiserror::Error)]
pub enum UntrackedError {
    #[error("--copy-untracked {path}: {message}")]
    Invalid { path: PathBuf, message: String },
    #[error("cannot copy {from} into the checkout at {to}: {source}")]
    Copy {
        from: PathBuf,
        to: PathBuf,
        source: std::io::Error,
    },
}

/// Paths of the user's working tree to copy into every checkout, relative to its root.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UntrackedCopies {
    workdir: PathBuf,
    relative: Vec<PathBuf>,
}

impl UntrackedCopies {
    /// Checks `paths` (as the user typed them, relative to `start_dir`) against the repository:
    /// each must exist inside its working tree and hold no file git tracks.
    pub fn new(
        repo: &git2::Repository,
        start_dir: &Path,
        paths: &[PathBuf],
    ) -> Result<UntrackedCopies, UntrackedError> {
        let Some(workdir) = repo.workdir() else {
            return match paths.first() {
                None => Ok(UntrackedCopies::default()),
                Some(path) => Err(invalid(path, "the repository is bare")),
            };
        };
        let workdir = fs::canonicalize(workdir).unwrap_or_else(|_| workdir.to_path_buf());
        let index = repo.index().ok();
        let mut relative = Vec::new();
        for path in paths {
            let full = fs::canonicalize(start_dir.join(path))
                .map_err(|e| invalid(path, &format!("cannot find it: {e}")))?;
            let inside = full
                .strip_prefix(&workdir)
                .map_err(|_| invalid(path, "it is outside the repository"))?
                .to_path_buf();
            if inside.as_os_str().is_empty() || inside.starts_with(".git") {
                return Err(invalid(
                    path,
                    "give a file or directory inside the repository",
                ));
            }
            if let Some(tracked) = index.as_ref().and_then(|i| first_tracked(i, &inside)) {
                return Err(invalid(
                    path,
                    &format!(
                        "git tracks {}, so each revision checks out its own version; this option \
                         is for files git does not hold (ignored or never committed)",
                        tracked.display()
                    ),
                ));
            }
            relative.push(inside);
        }
        Ok(UntrackedCopies { workdir, relative })
    }

    /// True when there is nothing to copy.
    pub fn is_empty(&self) -> bool {
        self.relative.is_empty()
    }

    /// Copies every path into `checkout` (a working tree of the same repository), skipping files
    /// already there unchanged; returns how many files it copied.
    pub fn copy_into(&self, checkout: &Path) -> Result<usize, UntrackedError> {
        let mut copied = 0;
        let mut seen = Vec::new();
        for relative in &self.relative {
            copied += copy_tree(
                &self.workdir.join(relative),
                &checkout.join(relative),
                &mut seen,
            )?;
        }
        Ok(copied)
    }
}

fn invalid(path: &Path, message: &str) -> UntrackedError {
    UntrackedError::Invalid {
        path: path.to_path_buf(),
        message: message.to_string(),
    }
}

/// The first file of the index at `inside` or below it.
fn first_tracked(index: &git2::Index, inside: &Path) -> Option<PathBuf> {
    index
        .iter()
        .map(|entry| PathBuf::from(String::from_utf8_lossy(&entry.path).into_owned()))
        .find(|tracked| tracked.starts_with(inside))
}

/// Copies `from` (a file or a directory, links followed) to `to`; returns the files copied.
/// `seen` holds the directories already copied, so a link cycle ends.
fn copy_tree(from: &Path, to: &Path, seen: &mut Vec<PathBuf>) -> Result<usize, UntrackedError> {
    let error = |source| UntrackedError::Copy {
        from: from.to_path_buf(),
        to: to.to_path_buf(),
        source,
    };
    let metadata = fs::metadata(from).map_err(error)?;
    if !metadata.is_dir() {
        return copy_file(from, to, &metadata).map_err(error);
    }
    let canonical = fs::canonicalize(from).map_err(error)?;
    if seen.contains(&canonical) {
        return Ok(0);
    }
    seen.push(canonical);
    fs::create_dir_all(to).map_err(error)?;
    let mut copied = 0;
    for entry in fs::read_dir(from).map_err(error)? {
        let name = entry.map_err(error)?.file_name();
        copied += copy_tree(&from.join(&name), &to.join(&name), seen)?;
    }
    Ok(copied)
}

/// Copies one file unless `to` already has its length and modification time; returns 1 if it
/// copied.
fn copy_file(from: &Path, to: &Path, metadata: &fs::Metadata) -> std::io::Result<usize> {
    let modified = metadata.modified()?;
    if let Ok(existing) = fs::metadata(to)
        && existing.len() == metadata.len()
        && existing.modified().ok() == Some(modified)
    {
        return Ok(0);
    }
    if let Some(parent) = to.parent() {
        fs::create_dir_all(parent)?;
    }
    fs::copy(from, to)?;
    fs::File::options()
        .write(true)
        .open(to)?
        .set_modified(modified)?;
    Ok(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A repository with a committed `src/lib.rs`, an ignored `data/` holding two files, and an
    /// untracked `notes.txt`.
    fn repository() -> (tempfile::TempDir, git2::Repository) {
        let dir = tempfile::tempdir().unwrap();
        let repo = git2::Repository::init(dir.path()).unwrap();
        let write = |relative: &str, text: &str| {
            let path = dir.path().join(relative);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        };
        write("src/lib.rs", "");
        write(".gitignore", "/data/\n");
        write("data/corpus.txt", "to be or not to be");
        write("data/nested/more.txt", "that is the question");
        write("notes.txt", "untracked");
        let mut index = repo.index().unwrap();
        index.add_path(Path::new("src/lib.rs")).unwrap();
        index.add_path(Path::new(".gitignore")).unwrap();
        index.write().unwrap();
        (dir, repo)
    }

    fn copies(repo: &git2::Repository, paths: &[&str]) -> Result<UntrackedCopies, UntrackedError> {
        let paths: Vec<PathBuf> = paths.iter().map(PathBuf::from).collect();
        UntrackedCopies::new(repo, repo.workdir().unwrap(), &paths)
    }

    #[test]
    fn ignored_and_untracked_paths_are_copied_once() {
        let (_dir, repo) = repository();
        let checkout = tempfile::tempdir().unwrap();
        let chosen = copies(&repo, &["data", "notes.txt"]).unwrap();
        assert_eq!(chosen.copy_into(checkout.path()).unwrap(), 3);
        assert_eq!(
            fs::read_to_string(checkout.path().join("data/nested/more.txt")).unwrap(),
            "that is the question"
        );
        assert_eq!(
            fs::read_to_string(checkout.path().join("notes.txt")).unwrap(),
            "untracked"
        );
        // Unchanged: nothing copied again. Changed in the working tree: copied again.
        assert_eq!(chosen.copy_into(checkout.path()).unwrap(), 0);
        fs::write(repo.workdir().unwrap().join("notes.txt"), "edited!").unwrap();
        assert_eq!(chosen.copy_into(checkout.path()).unwrap(), 1);
        assert_eq!(
            fs::read_to_string(checkout.path().join("notes.txt")).unwrap(),
            "edited!"
        );
        // The source is untouched.
        assert_eq!(
            fs::read_to_string(repo.workdir().unwrap().join("data/corpus.txt")).unwrap(),
            "to be or not to be"
        );
    }

    #[test]
    fn tracked_missing_and_outside_paths_are_refused_by_name() {
        let (_dir, repo) = repository();
        let message = |paths: &[&str]| copies(&repo, paths).unwrap_err().to_string();
        let tracked = message(&["src"]);
        assert!(
            tracked.starts_with("--copy-untracked src: git tracks src/lib.rs"),
            "{tracked}"
        );
        let missing = message(&["no-such-dir"]);
        assert!(
            missing.starts_with("--copy-untracked no-such-dir: cannot find it"),
            "{missing}"
        );
        let outside = tempfile::tempdir().unwrap();
        let outside = message(&[outside.path().to_str().unwrap()]);
        assert!(outside.contains("outside the repository"), "{outside}");
        assert!(message(&["."]).contains("inside the repository"));
        assert!(message(&[".git"]).contains("inside the repository"));
        assert!(copies(&repo, &[]).unwrap().is_empty());
    }

    #[cfg(unix)]
    #[test]
    fn a_link_cycle_is_copied_once() {
        let (_dir, repo) = repository();
        let workdir = repo.workdir().unwrap();
        std::os::unix::fs::symlink(workdir.join("data"), workdir.join("data/nested/loop")).unwrap();
        let checkout = tempfile::tempdir().unwrap();
        let copied = copies(&repo, &["data"])
            .unwrap()
            .copy_into(checkout.path())
            .unwrap();
        assert_eq!(copied, 2);
    }
}
