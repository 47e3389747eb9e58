//! Worktrees: each revision materialised in a directory of its own under `target/perfdiff/`,
//! reused between runs so a second run rebuilds only what changed.
//!
//! The user's working tree, index, HEAD, branches and stash are never modified.
//!
//! # Why a private repository per slot, not a linked `git worktree`
//!
//! A linked worktree is registered *in the user's repository* (`.git/worktrees/<name>`, visible in
//! `git worktree list`, removable by `git worktree prune`), and libgit2's `worktree_add` insists on
//! a branch, creating one under `refs/heads` when not given one. Both touch what we promised to
//! leave alone. Instead each slot (`perfdiff_dir/worktrees/target/package/base`, `…/head`, placed
//! where cargo finds no workspace above it, `worktrees_dir`; a run may give base the
//! "head" slot and head the "base" one when that finds a commit already built, see
//! [`slot_commit`]) is a small repository of its own:
//!
//! - its `.git/objects/info/alternates` points at the user's object store, so it reads every
//!   commit without copying anything and without writing there;
//! - its HEAD is detached at the materialised commit and its index describes the files on disk,
//!   so switching commits is a libgit2 checkout from the old tree to the new one that rewrites only
//!   files that differ (unchanged files keep their mtimes and cargo rebuilds only what changed);
//! - the forced checkout also repairs damage: missing or edited files are restored, stray files
//!   removed (except an in-slot `target/` and a generated `Cargo.lock`), and anything that does not look
//!   like one of our slots (no `.git` directory, a leftover `.git` file of a pruned linked worktree,
//!   alternates pointing elsewhere) is deleted and rebuilt from scratch. A slot that still fails
//!   after that is reported, not retried forever.
//! - build scripts that run `git rev-parse HEAD` inside the slot see the slot's commit, not the
//!   user's HEAD.
//!
//! The working tree is snapshotted without going through the user's index: we ask libgit2 for the
//! status (read-only), write the changed and untracked-not-ignored files as blobs into the *slot's*
//! object store, and commit the resulting tree there (fixed author and date, so an unchanged
//! working tree gives the same commit id). Untracked directories holding a `CACHEDIR.TAG` (cargo
//! target directories whose `.gitignore` forgot them), the perfdiff directory itself and nested
//! repositories are left out. File contents are copied byte for byte: checkouts disable filters
//! (eol conversion) so the slot holds exactly the blob, or exactly the user's file.
//!
//! Submodules are materialised the same way, each in a slot repository whose alternates point at
//! the user's copy of that submodule. A submodule the user never initialised stays an empty
//! directory, as in their own checkout; one that is initialised but lacks the commit is an error
//! (fetch it). Uncommitted changes inside a submodule are not part of a working-tree snapshot.
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use git2::build::{CheckoutBuilder, TreeUpdateBuilder};
use git2::{
    ConfigLevel, FileMode, Oid, Repository, RepositoryInitOptions, RepositoryOpenFlags, Signature,
    Status, StatusOptions, Time, Tree, TreeWalkMode, TreeWalkResult,
};

use crate::steps::git::revisions::Revision;

/// Errors materialising a revision.
#[derive(Debug, thiserror::Error)]
pub enum WorktreeError {
    #[error("cannot check out {revision} into {path}: {message}")]
    Checkout {
        revision: String,
        path: PathBuf,
        message: String,
    },
    #[error(
        "another cargo-perfdiff run is using {path}; wait for it to finish (or stop it) and try again"
    )]
    Locked { path: PathBuf },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot snapshot the working tree {path}: {message}")]
    Snapshot { path: PathBuf, message: String },
    #[error("{revision}: {message}")]
    MissingCommit { revision: String, message: String },
    #[error("submodule {path} of {revision}: {message}")]
    Submodule {
        revision: String,
        path: PathBuf,
        message: String,
    },
    #[error("invalid worktree slot name `{slot}` (expected a plain name such as `base` or `head`)")]
    InvalidSlot { slot: String },
}

impl WorktreeError {
    fn io(path: &Path, source: std::io::Error) -> Self {
        WorktreeError::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    /// Errors about the slot itself, which rebuilding the slot from scratch may cure (as opposed
    /// to errors about the user's repository, which it cannot).
    fn is_slot_damage(&self) -> bool {
        matches!(
            self,
            WorktreeError::Checkout { .. } | WorktreeError::Io { .. }
        )
    }
}

/// An exclusive lock on a perfdiff directory, released when dropped (or when the process dies).
#[derive(Debug)]
pub struct RunLock {
    _file: File,
    path: PathBuf,
}

impl RunLock {
    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// How often a waiting [`lock_run`] retries.
const LOCK_POLL: Duration = Duration::from_millis(50);

/// Exclusive lock for a run in `perfdiff_dir` (file `perfdiff_dir/lock`, std's File::try_lock /
/// File::lock are stable). If held: wait up to `wait` then return
/// WorktreeError::Locked{path} whose message says another cargo-perfdiff run is using it.
///
/// The lock is an OS file lock, so a crashed run never leaves a stale lock behind. The holder's
/// pid is written into the file for whoever wonders who holds it.
pub fn lock_run(perfdiff_dir: &Path, wait: Duration) -> Result<RunLock, WorktreeError> {
    fs::create_dir_all(perfdiff_dir).map_err(|e| WorktreeError::io(perfdiff_dir, e))?;
    let path = perfdiff_dir.join("lock");
    let mut file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(&path)
        .map_err(|e| WorktreeError::io(&path, e))?;
    let deadline = Instant::now() + wait;
    loop {
        match file.try_lock() {
            Ok(()) => break,
            Err(std::fs::TryLockError::WouldBlock) => {
                let now = Instant::now();
                if now >= deadline {
                    return Err(WorktreeError::Locked {
                        path: perfdiff_dir.to_path_buf(),
                    });
                }
                std::thread::sleep(LOCK_POLL.min(deadline - now));
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(WorktreeError::io(&path, e)),
        }
    }
    file.set_len(0)
        .and_then(|()| writeln!(file, "{}", std::process::id()))
        .map_err(|e| WorktreeError::io(&path, e))?;
    Ok(RunLock { _file: file, path })
}

/// Materialises `rev` in `perfdiff_dir/worktrees/target/package/<slot>` (`worktrees_dir`; slot is "base" or "head") and returns
/// the directory. Reused between runs: switching the slot to another commit must only rewrite
/// files that differ (keep mtimes of unchanged files so cargo rebuilds only what changed). A
/// working-tree revision is a snapshot of the user's working tree (tracked files with their
/// uncommitted edits + untracked files not ignored), taken without modifying anything of the
/// user's. Stale or corrupted slots are detected and repaired/rebuilt. Submodules of the revision
/// are checked out inside the slot. See the module documentation for how.
///
/// Call it while holding [`lock_run`]: two runs materialising the same slot would trample each
/// other.
pub fn materialise(
    repo: &Repository,
    perfdiff_dir: &Path,
    slot: &str,
    rev: &Revision,
) -> Result<PathBuf, WorktreeError> {
    if slot.is_empty() || slot.starts_with('.') || slot.contains(['/', '\\']) {
        return Err(WorktreeError::InvalidSlot {
            slot: slot.to_string(),
        });
    }
    remove_former_slots(perfdiff_dir);
    let worktrees = worktrees_dir(perfdiff_dir);
    fs::create_dir_all(&worktrees).map_err(|e| WorktreeError::io(&worktrees, e))?;
    let dir = worktrees.join(slot);
    let target = if rev.working_tree {
        let workdir = repo
            .workdir()
            .ok_or_else(|| WorktreeError::Snapshot {
                path: repo.path().to_path_buf(),
                message: "the repository is bare".to_string(),
            })?
            .to_path_buf();
        Target::WorkingTree {
            exclude: vec![absolute(perfdiff_dir), absolute(&workdir.join(".git"))],
        }
    } else {
        Target::Commit(commit_of(repo, rev)?)
    };
    let job = SlotJob {
        source: repo,
        dir: &dir,
        revision: &rev.label(),
    };
    job.sync(&target)?;
    Ok(dir)
}

/// Where the slots live: `perfdiff_dir/worktrees/target/package`.
///
/// Why so deep: cargo looks for the workspace a manifest belongs to in every directory above it,
/// and a `[workspace]` there whose members do not name the checkout is an error ("current package
/// believes it's in a workspace when it's not"). A `CARGO_TARGET_DIR` inside another cargo
/// workspace puts the checkouts below that workspace's manifest, and cargo would take a checkout
/// whose own workspace root is its package for a stray member of it, where the user's own build
/// finds no workspace above the package. Cargo stops that search at a directory that ends in
/// `target/package` (where `cargo package` verifies a package, itself often inside a workspace),
/// so the search ends inside the checkout, as it does in the user's own: nothing of the user's
/// build changes, no file of the checkout is touched.
fn worktrees_dir(perfdiff_dir: &Path) -> PathBuf {
    perfdiff_dir
        .join("worktrees")
        .join("target")
        .join("package")
}

/// The two worktree slots, each a checkout that a later run reuses ([`materialise`]); their
/// names have one length, which the build's one path (`steps::build::one_path`) relies on.
pub const SLOTS: [&str; 2] = ["base", "head"];

/// Removes the slots of the layout before `worktrees_dir` (`perfdiff_dir/worktrees/<slot>`),
/// ours by their marker: a checkout each that no run would use again.
fn remove_former_slots(perfdiff_dir: &Path) {
    for slot in SLOTS {
        let former = perfdiff_dir.join("worktrees").join(slot);
        if former.join(".git").join(SLOT_MARKER).is_file() {
            let _ = fs::remove_dir_all(&former);
        }
    }
}

/// The commit slot `<slot>` of `worktrees_dir` was last brought to, if the slot is one of
/// ours for `repo` and its HEAD reads. A working-tree snapshot is a commit of the slot's own, which
/// no revision of the user's names, so it never matches one.
pub fn slot_commit(repo: &Repository, perfdiff_dir: &Path, slot: &str) -> Option<String> {
    let dir = worktrees_dir(perfdiff_dir).join(slot);
    let job = SlotJob {
        source: repo,
        dir: &dir,
        revision: slot,
    };
    let slot = job.open_existing_slot()?;
    let head = slot.head().ok()?.peel_to_commit().ok()?.id();
    Some(head.to_string())
}

/// What a slot should end up holding.
enum Target {
    Commit(Oid),
    /// A snapshot of the source's working tree, leaving out paths under `exclude`.
    WorkingTree {
        exclude: Vec<PathBuf>,
    },
}

/// The commit of a non-working-tree revision, checked to exist in the user's repository before
/// the slot is touched (so a bad revision never costs the slot its mtimes).
fn commit_of(repo: &Repository, rev: &Revision) -> Result<Oid, WorktreeError> {
    let missing = |message: String| WorktreeError::MissingCommit {
        revision: rev.label(),
        message,
    };
    let sha = rev
        .commit
        .as_deref()
        .ok_or_else(|| missing("the revision has no commit".to_string()))?;
    let oid = Oid::from_str(sha).map_err(|e| missing(e.message().to_string()))?;
    repo.find_commit(oid)
        .map_err(|e| missing(format!("commit {sha} not found ({})", e.message())))?;
    Ok(oid)
}

/// One slot directory being brought to a target, on behalf of a source repository.
struct SlotJob<'a> {
    source: &'a Repository,
    dir: &'a Path,
    revision: &'a str,
}

/// Marker file inside a slot's `.git`, telling our slots apart from anything else.
const SLOT_MARKER: &str = "cargo-perfdiff-slot";

impl SlotJob<'_> {
    /// Brings the slot to `target`, incrementally if possible, else rebuilt from scratch once.
    fn sync(&self, target: &Target) -> Result<(), WorktreeError> {
        match self.sync_once(target, false) {
            Err(e) if e.is_slot_damage() => {
                self.sync_once(target, true).map_err(|retry| match retry {
                    WorktreeError::Checkout { .. } => WorktreeError::Checkout {
                        revision: self.revision.to_string(),
                        path: self.dir.to_path_buf(),
                        message: format!(
                            "{e}; rebuilding the slot from scratch failed too: {retry}"
                        ),
                    },
                    other => other,
                })
            }
            other => other,
        }
    }

    fn sync_once(&self, target: &Target, from_scratch: bool) -> Result<(), WorktreeError> {
        if from_scratch {
            remove_dir_if_present(self.dir)?;
        }
        let slot = self.open_or_create_slot()?;
        let commit = match target {
            Target::Commit(oid) => *oid,
            Target::WorkingTree { exclude } => Snapshot {
                source: self.source,
                slot: &slot,
                exclude,
            }
            .commit()?,
        };
        self.checkout(&slot, commit)?;
        self.sync_submodules(&slot, commit)
    }

    fn checkout_error(&self, message: impl std::fmt::Display) -> WorktreeError {
        WorktreeError::Checkout {
            revision: self.revision.to_string(),
            path: self.dir.to_path_buf(),
            message: message.to_string(),
        }
    }

    fn git<T>(&self, result: Result<T, git2::Error>) -> Result<T, WorktreeError> {
        result.map_err(|e| self.checkout_error(e.message()))
    }

    /// The user's object directory, which the slot borrows objects from.
    fn source_objects(&self) -> PathBuf {
        absolute(&self.source.commondir().join("objects"))
    }

    fn open_or_create_slot(&self) -> Result<Repository, WorktreeError> {
        if self.dir.exists() {
            if let Some(slot) = self.open_existing_slot() {
                clear_stale_locks(slot.path());
                return Ok(slot);
            }
            remove_dir_if_present(self.dir)?;
        }
        self.create_slot()
    }

    /// Opens the slot if it is one of ours, borrowing from the right object store.
    fn open_existing_slot(&self) -> Option<Repository> {
        let git_dir = self.dir.join(".git");
        if !git_dir.is_dir() || !git_dir.join(SLOT_MARKER).is_file() {
            return None;
        }
        let alternates = fs::read_to_string(git_dir.join("objects/info/alternates")).ok()?;
        if alternates.trim_end_matches('\n') != self.source_objects().to_string_lossy() {
            return None;
        }
        let slot = Repository::open_ext(self.dir, RepositoryOpenFlags::NO_SEARCH, [""; 0]).ok()?;
        let workdir = slot.workdir()?;
        (absolute(workdir) == absolute(self.dir)).then_some(slot)
    }

    fn create_slot(&self) -> Result<Repository, WorktreeError> {
        fs::create_dir_all(self.dir).map_err(|e| WorktreeError::io(self.dir, e))?;
        let mut options = RepositoryInitOptions::new();
        options.external_template(false).mkpath(true);
        let slot = self.git(Repository::init_opts(self.dir, &options))?;
        let git_dir = slot.path().to_path_buf();
        // Written to the slot's own config file only, never a user-wide one.
        let mut config = self.git(self.git(slot.config())?.open_level(ConfigLevel::Local))?;
        self.git(config.set_i64("gc.auto", 0))?;
        drop(slot);
        let write = |relative: &str, contents: String| {
            let path = git_dir.join(relative);
            if let Some(parent) = path.parent() {
                fs::create_dir_all(parent).map_err(|e| WorktreeError::io(parent, e))?;
            }
            fs::write(&path, contents).map_err(|e| WorktreeError::io(&path, e))
        };
        let objects = self.source_objects();
        write(
            "objects/info/alternates",
            format!("{}\n", objects.to_string_lossy()),
        )?;
        // Cargo's output inside the slot (a target directory, a generated Cargo.lock) must
        // survive checkouts, which remove untracked files.
        write("info/exclude", "/target/\n/Cargo.lock\n".to_string())?;
        write(
            SLOT_MARKER,
            "cargo-perfdiff materialises revisions here; safe to delete\n".to_string(),
        )?;
        // Reopen so the object database picks up the alternates.
        self.git(Repository::open_ext(
            self.dir,
            RepositoryOpenFlags::NO_SEARCH,
            [""; 0],
        ))
    }

    /// Forced checkout from the slot's HEAD to `commit`: writes only what differs and repairs
    /// whatever was damaged; then detaches HEAD at `commit`.
    fn checkout(&self, slot: &Repository, commit: Oid) -> Result<(), WorktreeError> {
        let target = self.git(slot.find_commit(commit))?;
        let target_tree = self.git(target.tree())?;
        if let Some(current) = slot.head().ok().and_then(|h| h.peel_to_tree().ok()) {
            self.remove_vanished_submodules(&current, &target_tree)?;
        }
        let mut options = CheckoutBuilder::new();
        options.force().remove_untracked(true).disable_filters(true);
        self.git(slot.checkout_tree(target.as_object(), Some(&mut options)))?;
        self.git(slot.set_head_detached(commit))
    }

    /// libgit2 leaves a submodule's directory behind when the gitlink disappears; remove it so
    /// the slot holds exactly the target.
    fn remove_vanished_submodules(
        &self,
        current: &Tree,
        target: &Tree,
    ) -> Result<(), WorktreeError> {
        let kept = self.git(gitlinks(target))?;
        for (path, _) in self.git(gitlinks(current))? {
            if !kept.iter().any(|(p, _)| *p == path) {
                remove_dir_if_present(&self.dir.join(&path))?;
            }
        }
        Ok(())
    }

    fn sync_submodules(&self, slot: &Repository, commit: Oid) -> Result<(), WorktreeError> {
        let tree = self.git(self.git(slot.find_commit(commit))?.tree())?;
        for (path, oid) in self.git(gitlinks(&tree))? {
            let submodule_error = |message: String| WorktreeError::Submodule {
                revision: self.revision.to_string(),
                path: path.clone(),
                message,
            };
            let Some(source) = submodule_source(self.source, &path) else {
                // Not initialised in the user's checkout either: leave it empty, as theirs is.
                continue;
            };
            if source.find_commit(oid).is_err() {
                return Err(submodule_error(format!(
                    "commit {oid} is not in your copy of the submodule; run `git submodule update --init --recursive` (or fetch in the submodule) and try again"
                )));
            }
            let dir = self.dir.join(&path);
            let label = format!("{} (submodule {})", self.revision, path.display());
            let job = SlotJob {
                source: &source,
                dir: &dir,
                revision: &label,
            };
            // Already retried from scratch inside: not a reason to rebuild this slot too.
            job.sync(&Target::Commit(oid)).map_err(|e| match e {
                WorktreeError::Submodule { .. } => e,
                other => submodule_error(other.to_string()),
            })?;
        }
        Ok(())
    }
}

/// The gitlinks (submodule commits) of a tree, with their paths.
fn gitlinks(tree: &Tree) -> Result<Vec<(PathBuf, Oid)>, git2::Error> {
    let mut links = Vec::new();
    tree.walk(TreeWalkMode::PreOrder, |root, entry| {
        if entry.filemode() == i32::from(FileMode::Commit) {
            let name = path_from_bytes(entry.name_bytes());
            links.push((Path::new(root).join(name), entry.id()));
        }
        TreeWalkResult::Ok
    })?;
    Ok(links)
}

/// The user's repository of the submodule at `path`: its checkout, or its git dir under
/// `.git/modules` when the checkout is gone. None when the user never initialised it.
fn submodule_source(source: &Repository, path: &Path) -> Option<Repository> {
    let open = |dir: &Path| Repository::open_ext(dir, RepositoryOpenFlags::NO_SEARCH, [""; 0]).ok();
    if let Some(repo) = source.workdir().and_then(|w| open(&w.join(path))) {
        return Some(repo);
    }
    let modules = source.commondir().join("modules");
    if let Some(repo) = open(&modules.join(path)) {
        return Some(repo);
    }
    let submodules = source.submodules().ok()?;
    let name = submodules
        .iter()
        .find(|s| s.path() == path)?
        .name()
        .ok()?
        .to_string();
    open(&modules.join(name))
}

/// Building a commit of the user's working tree inside a slot's object store.
struct Snapshot<'a> {
    source: &'a Repository,
    slot: &'a Repository,
    exclude: &'a [PathBuf],
}

impl Snapshot<'_> {
    fn error(&self, message: impl std::fmt::Display) -> WorktreeError {
        WorktreeError::Snapshot {
            path: self.workdir().to_path_buf(),
            message: message.to_string(),
        }
    }

    fn git<T>(&self, result: Result<T, git2::Error>) -> Result<T, WorktreeError> {
        result.map_err(|e| self.error(e.message()))
    }

    /// Failing to read the user's files is a snapshot error, not slot damage (see `sync`).
    fn io_error(&self, path: &Path, error: std::io::Error) -> WorktreeError {
        self.error(format!("{}: {error}", path.display()))
    }

    fn workdir(&self) -> &Path {
        self.source.workdir().unwrap_or(self.source.path())
    }

    /// HEAD's tree updated with every path whose status differs, committed on top of HEAD.
    fn commit(&self) -> Result<Oid, WorktreeError> {
        let head = self
            .source
            .head()
            .ok()
            .and_then(|h| h.peel_to_commit().ok());
        let baseline = match &head {
            Some(commit) => self.git(self.slot.find_tree(commit.tree_id()))?,
            None => {
                let empty = self.git(self.git(self.slot.treebuilder(None))?.write())?;
                self.git(self.slot.find_tree(empty))?
            }
        };
        let mut update = TreeUpdateBuilder::new();
        let mut options = StatusOptions::new();
        options
            .include_untracked(true)
            .recurse_untracked_dirs(false)
            .include_ignored(false)
            .exclude_submodules(false);
        let statuses = self.git(self.source.statuses(Some(&mut options)))?;
        for entry in statuses.iter() {
            let path = path_from_bytes(entry.path_bytes());
            if entry.path_bytes().ends_with(b"/") {
                self.add_untracked_dir(&mut update, &path)?;
            } else {
                self.apply(&mut update, &path, entry.status())?;
            }
        }
        let tree_id = self.git(update.create_updated(self.slot, &baseline))?;
        let tree = self.git(self.slot.find_tree(tree_id))?;
        let parent = match &head {
            Some(commit) => Some(self.git(self.slot.find_commit(commit.id()))?),
            None => None,
        };
        let parents: Vec<&git2::Commit> = parent.iter().collect();
        // Fixed identity and date: the same working tree always gives the same commit.
        let signature = self.git(Signature::new(
            "cargo-perfdiff",
            "cargo-perfdiff@localhost",
            &Time::new(0, 0),
        ))?;
        self.git(self.slot.commit(
            None,
            &signature,
            &signature,
            "cargo-perfdiff: snapshot of the working tree\n",
            &tree,
            &parents,
        ))
    }

    /// One path reported by `git status`: gone → removed, present → its current content.
    fn apply(
        &self,
        update: &mut TreeUpdateBuilder,
        path: &Path,
        status: Status,
    ) -> Result<(), WorktreeError> {
        let gone = status.contains(Status::WT_DELETED)
            || (status.contains(Status::INDEX_DELETED) && !status.contains(Status::WT_NEW));
        let full = self.workdir().join(path);
        match fs::symlink_metadata(&full) {
            Ok(metadata) if !gone => self.add_from_disk(update, path, &full, &metadata),
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(self.io_error(&full, e)),
            _ => {
                update.remove(path_to_bytes(path));
                Ok(())
            }
        }
    }

    fn add_from_disk(
        &self,
        update: &mut TreeUpdateBuilder,
        path: &Path,
        full: &Path,
        metadata: &fs::Metadata,
    ) -> Result<(), WorktreeError> {
        let (oid, mode) = if metadata.file_type().is_symlink() {
            let target = fs::read_link(full).map_err(|e| self.io_error(full, e))?;
            (
                self.git(self.slot.blob(&path_to_bytes(&target)))?,
                FileMode::Link,
            )
        } else if metadata.is_dir() {
            // A submodule (or nested repository): record the commit its checkout is at.
            let Some(commit) = Repository::open_ext(full, RepositoryOpenFlags::NO_SEARCH, [""; 0])
                .ok()
                .and_then(|r| r.head().ok().and_then(|h| h.target()))
            else {
                return Ok(());
            };
            (commit, FileMode::Commit)
        } else {
            let mode = if is_executable(metadata) {
                FileMode::BlobExecutable
            } else {
                FileMode::Blob
            };
            (self.git(self.slot.blob_path(full))?, mode)
        };
        update.upsert(path_to_bytes(path), oid, mode);
        Ok(())
    }

    /// Adds the untracked, not ignored files under `dir` (relative to the workdir).
    fn add_untracked_dir(
        &self,
        update: &mut TreeUpdateBuilder,
        dir: &Path,
    ) -> Result<(), WorktreeError> {
        let full = self.workdir().join(dir);
        if self.skip_untracked_dir(&full) {
            return Ok(());
        }
        let entries = fs::read_dir(&full).map_err(|e| self.io_error(&full, e))?;
        for entry in entries {
            let entry = entry.map_err(|e| self.io_error(&full, e))?;
            let relative = dir.join(entry.file_name());
            let metadata =
                fs::symlink_metadata(entry.path()).map_err(|e| self.io_error(&entry.path(), e))?;
            if metadata.is_dir() {
                let as_dir = format!("{}/", relative.to_string_lossy());
                if !self.git(self.source.is_path_ignored(&as_dir))? {
                    self.add_untracked_dir(update, &relative)?;
                }
            } else if !self.git(self.source.is_path_ignored(&relative))? {
                self.add_from_disk(update, &relative, &entry.path(), &metadata)?;
            }
        }
        Ok(())
    }

    /// Nested repositories, cargo target directories and our own directory stay out.
    fn skip_untracked_dir(&self, full: &Path) -> bool {
        let full = absolute(full);
        full.join(".git").exists()
            || full.join("CACHEDIR.TAG").is_file()
            || self
                .exclude
                .iter()
                .any(|e| e.starts_with(&full) || full.starts_with(e))
    }
}

/// Locks left by a process killed mid-write. Safe to remove: the caller holds the run lock.
fn clear_stale_locks(git_dir: &Path) {
    for name in ["index.lock", "HEAD.lock", "config.lock"] {
        let _ = fs::remove_file(git_dir.join(name));
    }
}

fn remove_dir_if_present(dir: &Path) -> Result<(), WorktreeError> {
    match fs::symlink_metadata(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(WorktreeError::io(dir, e)),
        Ok(m) if m.is_dir() => fs::remove_dir_all(dir).map_err(|e| WorktreeError::io(dir, e)),
        Ok(_) => fs::remove_file(dir).map_err(|e| WorktreeError::io(dir, e)),
    }
}

/// The path made absolute and, where it exists, canonical (so comparisons are meaningful).
fn absolute(path: &Path) -> PathBuf {
    fs::canonicalize(path)
        .or_else(|_| std::path::absolute(path))
        .unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(unix)]
fn is_executable(metadata: &fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    metadata.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn is_executable(_: &fs::Metadata) -> bool {
    false
}

#[cfg(unix)]
fn path_to_bytes(path: &Path) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    path.as_os_str().as_bytes().to_vec()
}

#[cfg(not(unix))]
fn path_to_bytes(path: &Path) -> Vec<u8> {
    path.to_string_lossy().replace('\\', "/").into_bytes()
}

#[cfg(unix)]
fn path_from_bytes(bytes: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    let trimmed = bytes.strip_suffix(b"/").unwrap_or(bytes);
    PathBuf::from(std::ffi::OsStr::from_bytes(trimmed))
}

#[cfg(not(unix))]
fn path_from_bytes(bytes: &[u8]) -> PathBuf {
    let trimmed = bytes.strip_suffix(b"/").unwrap_or(bytes);
    PathBuf::from(String::from_utf8_lossy(trimmed).into_owned())
}
