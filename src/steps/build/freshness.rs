//! Freshness: what cargo must see as changed when both revisions build into one target directory.
//!
//! # Why
//!
//! Identical source must give identical executables, as the user's own `cargo bench` gives them
//! (the layout issue: a single executable is one sample of code layout, so anything of ours that
//! enters the build moves benchmarks by 10–20 % on its own). Cargo derives `-C metadata` of a
//! workspace crate from its path *relative to the workspace root*, its package id, profile and
//! features, so the same crate in the two checkouts is one unit to cargo, with one set of
//! artifacts in the shared target directory and the same symbol hashes. Nothing of ours may change
//! that (an earlier version ran the build through a `RUSTC_WORKSPACE_WRAPPER` per revision, whose
//! path cargo hashes into `-C metadata`: the two sides then differed in symbol hashes, codegen-unit
//! partition and function order even for identical source).
//!
//! Sharing one unit between two checkouts is exactly what a user does who switches branches in one
//! checkout and rebuilds, with one catch: cargo decides what to rebuild by comparing the
//! modification times of a unit's source files (listed relative to the package root) with those of
//! its artifacts. A checkout whose files were written *before* the other side's build would look
//! fresh, and cargo would hand it the other revision's executable.
//!
//! So before each build the files of the checkout are compared, by content, with those of the
//! build the target directory last saw ([`Sources::scan`], [`mark_changed`]); every file that
//! differs, or that the last build did not have, gets a modification time after that build, just
//! as `git checkout` would give it in the user's own checkout. Files with the same content keep
//! theirs, or, when written after the moment the record took that content (a slot checked out
//! after the other side's build), get that moment, so cargo reuses what was built from them
//! rather than compile the same source once per side: the artifact *is* what that source builds
//! to.
//! A package's build script is marked with any file of its package that is, so it runs again
//! whatever files it told cargo to watch ([`super::build_script_inputs`]: a `-sys` crate whose
//! script prints only the `cc` crate's `rerun-if-env-changed` lines has cargo watch none, and head
//! was linked with base's C library).
//! The record is removed while cargo runs and written again only after a build succeeded
//! ([`record`]); without a record every file is marked changed, which is always safe.
//!
//! A build need not rebuild every unit the target directory holds: a bench build leaves the
//! programs alone, and a narrower one (`--commands-only`, `--bench`, a bisection's step that
//! needs one target) leaves the other targets as an earlier build of other content made them.
//! The record still says which content the *marked* files now have, so a file the record names
//! is not marked again in another checkout that has the same content; but a unit left over from
//! before the record changed is older than that moment. So the record also keeps, per file, since
//! when its content is the recorded one, and a file older than that is marked changed all the
//! same ([`mark_changed`]): whichever build made the units that depend on it, a unit older than
//! the file is rebuilt, and a unit built since then was built from the recorded content.
//!
//! One target directory holds one build of each crate, so building base after head rebuilds
//! what differs, even when base was built before. A build is therefore also kept with its
//! executables ([`keep`], in the revision's bin directory) under a key of everything that decides
//! its output ([`BuildKey`]: the checkout's content, cargo's arguments, the toolchain, cargo's
//! configuration and environment); a later build with the same key takes it as it is
//! ([`super::store::kept_here`], which also finds it in the store of builds every workspace of
//! the target directory keeps) and cargo does not run at all.
use std::collections::{BTreeMap, BTreeSet};
use std::fs::{self, File};
use std::hash::{DefaultHasher, Hasher};
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

use super::build_script_inputs;

/// The record of the last successful build, inside the shared target directory.
const RECORD_NAME: &str = "perfdiff-last-build.json";
/// The lock that makes marking, building and recording one step ([`lock`]).
const LOCK_NAME: &str = "perfdiff-build.lock";
/// A build kept in a bin directory ([`keep`]).
pub(super) const KEPT_NAME: &str = "perfdiff-build.json";
/// Names, in every build's key, how builds were marked fresh: a build kept by a version that did
/// not rerun a package's build script with its files ([`super::build_script_inputs`]) may hold
/// the other revision's C library, and is never taken for one made now.
const MARKING: &str = "build-scripts-rerun-with-their-package=1";

/// The content of every file of a checkout, by path relative to the checkout's root (with `/`
/// separators): a hash of the bytes, or of the link text for a symbolic link.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sources {
    files: BTreeMap<String, u64>,
}

/// What the target directory was last built from: whose checkout, and its files.
#[derive(Debug, Serialize, Deserialize)]
struct Record {
    /// The directory holding the built checkout and its siblings ([`Checkout::owner`]): a build
    /// by another workspace sharing the target directory (a global `CARGO_TARGET_DIR`) makes
    /// every file count as changed.
    owner: PathBuf,
    sources: Sources,
    /// Since when each file has had its recorded content, in nanoseconds since the Unix epoch:
    /// the modification time the build that recorded it gave it ([`Marked`]). A file older than
    /// that, in any checkout, is marked changed. Absent in records written before it was kept
    /// (those files are taken as they were then).
    #[serde(default)]
    since: BTreeMap<String, u64>,
}

/// What [`mark_changed`] did, for [`record`] once the build has succeeded.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Marked {
    /// How many files were given a new modification time.
    pub count: usize,
    /// Since when each file has had the content it has now (`Record::since`).
    since: BTreeMap<String, u64>,
}

impl Sources {
    /// Hashes every file under `root`, leaving out `.git` (a slot's repository, and those of its
    /// submodules) and directories holding a `CACHEDIR.TAG` (cargo target directories), which are
    /// not source.
    pub fn scan(root: &Path) -> io::Result<Sources> {
        let mut files = BTreeMap::new();
        scan_dir(root, "", &mut files)?;
        Ok(Sources { files })
    }
}

fn scan_dir(dir: &Path, prefix: &str, files: &mut BTreeMap<String, u64>) -> io::Result<()> {
    if !prefix.is_empty() && dir.join("CACHEDIR.TAG").exists() {
        return Ok(());
    }
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name == ".git" {
            continue;
        }
        let relative = if prefix.is_empty() {
            name.to_string()
        } else {
            format!("{prefix}/{name}")
        };
        let path = entry.path();
        let kind = entry.file_type()?;
        if kind.is_dir() {
            scan_dir(&path, &relative, files)?;
        } else if kind.is_symlink() {
            let link = fs::read_link(&path)?;
            files.insert(relative, hash_bytes(link.as_os_str().as_encoded_bytes()));
        } else {
            files.insert(relative, hash_file(&path)?);
        }
    }
    Ok(())
}

fn hash_bytes(bytes: &[u8]) -> u64 {
    let mut hasher = DefaultHasher::new();
    hasher.write(bytes);
    hasher.finish()
}

fn hash_file(path: &Path) -> io::Result<u64> {
    let mut hasher = DefaultHasher::new();
    let mut file = File::open(path)?;
    let mut buffer = vec![0_u8; 1 << 16];
    loop {
        let read = file.read(&mut buffer)?;
        if read == 0 {
            return Ok(hasher.finish());
        }
        hasher.write(&buffer[..read]);
    }
}

/// A checkout being built: its root, and the owner whose checkouts share one build record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkout {
    /// The checkout's root directory: the nearest directory holding `.git` at or above the
    /// workspace (a worktree slot), or the workspace itself outside any repository.
    pub root: PathBuf,
    /// The directory holding the checkouts of one workspace (the slots' parent), recorded with the
    /// build: a record by any other owner counts as no record.
    pub owner: PathBuf,
}

impl Checkout {
    /// The checkout that `workspace_dir` lies in.
    pub fn containing(workspace_dir: &Path) -> Checkout {
        let workspace = std::path::absolute(workspace_dir).unwrap_or(workspace_dir.to_path_buf());
        let root = workspace
            .ancestors()
            .find(|dir| dir.join(".git").exists())
            .unwrap_or(&workspace)
            .to_path_buf();
        let owner = root
            .parent()
            .map_or_else(|| root.clone(), Path::to_path_buf);
        Checkout { root, owner }
    }

    /// The content of the checkout ([`Sources::scan`]).
    pub fn scan(&self) -> io::Result<Sources> {
        Sources::scan(&self.root)
    }

    /// Marks what in `sources` (this checkout's) differs from the last build in `target_dir`
    /// ([`mark_changed`]).
    pub fn mark_changed(&self, target_dir: &Path, sources: &Sources) -> io::Result<Marked> {
        mark_changed(target_dir, &self.owner, &self.root, sources)
    }

    /// Records a successful build of `sources`, as `marked` left them ([`record`]).
    pub fn record(&self, target_dir: &Path, sources: &Sources, marked: &Marked) -> io::Result<()> {
        record(target_dir, &self.owner, sources, marked)
    }
}

/// A hash of everything that decides what a build produces: the checkout's files, where in it
/// the workspace lies, cargo's arguments and target directory, the toolchain (`rustc -vV` as the
/// workspace resolves it, so `rust-toolchain.toml` and `cargo +nightly` count), cargo's
/// configuration files outside the checkout, and every `CARGO*`/`RUST*` environment variable
/// but cargo-perfdiff's own (`CARGO_PERFDIFF_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BuildKey(u64);

impl BuildKey {
    /// The key as 16 hexadecimal digits, the name of its entry in the store of kept builds.
    pub fn hex(self) -> String {
        format!("{:016x}", self.0)
    }

    pub fn new(
        checkout: &Checkout,
        sources: &Sources,
        workspace_dir: &Path,
        cargo_args: &[String],
        target_dir: &Path,
    ) -> BuildKey {
        let mut hasher = DefaultHasher::new();
        let mut add = |bytes: &[u8]| {
            hasher.write_usize(bytes.len());
            hasher.write(bytes);
        };
        add(MARKING.as_bytes());
        for (path, hash) in &sources.files {
            add(path.as_bytes());
            add(&hash.to_le_bytes());
        }
        let workspace = std::path::absolute(workspace_dir).unwrap_or(workspace_dir.to_path_buf());
        let relative = workspace.strip_prefix(&checkout.root).unwrap_or(&workspace);
        add(relative.as_os_str().as_encoded_bytes());
        for arg in cargo_args {
            add(arg.as_bytes());
        }
        add(target_dir.as_os_str().as_encoded_bytes());
        add(&toolchain(workspace_dir));
        for config in outside_configs(&checkout.root, workspace_dir) {
            add(config.as_os_str().as_encoded_bytes());
            add(&fs::read(&config).unwrap_or_default());
        }
        let mut variables: Vec<_> = std::env::vars_os()
            .filter(|(name, _)| {
                let name = name.to_string_lossy();
                // cargo-perfdiff's own settings do not change what cargo builds.
                (name.starts_with("CARGO") || name.starts_with("RUST"))
                    && !name.starts_with("CARGO_PERFDIFF")
            })
            .collect();
        variables.sort();
        for (name, value) in variables {
            add(name.as_encoded_bytes());
            add(value.as_encoded_bytes());
        }
        BuildKey(hasher.finish())
    }
}

/// What `rustc -vV` says in `dir` (empty when it cannot run: every key then misses alike).
fn toolchain(dir: &Path) -> Vec<u8> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    std::process::Command::new(rustc)
        .arg("-vV")
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .output()
        .map(|output| output.stdout)
        .unwrap_or_default()
}

/// Cargo's configuration files that apply to `workspace_dir` but lie outside the checkout
/// `root` (whose own are part of its sources): those of the directories above it, and cargo's
/// home.
fn outside_configs(root: &Path, workspace_dir: &Path) -> Vec<PathBuf> {
    let above = root.parent().into_iter().flat_map(Path::ancestors);
    let home = crate::steps::build::cargo_env::cargo_home();
    above
        .map(|dir| dir.join(".cargo"))
        .chain(home)
        .flat_map(|dir| [dir.join("config.toml"), dir.join("config")])
        .filter(|file| file.is_file() && !file.starts_with(workspace_dir))
        .collect()
}

/// A build kept in a bin directory with the key it was made under, and where it was made: the
/// checkout it was built from and the directory it is kept in, whose paths the build names
/// (a build taken from the store of kept builds is re-pointed at the taker's,
/// [`super::store`]). Builds kept before these were recorded have none, and are not shared.
#[derive(Serialize, Deserialize)]
pub(super) struct Kept<T> {
    pub key: BuildKey,
    #[serde(default)]
    pub root: Option<PathBuf>,
    #[serde(default)]
    pub dir: Option<PathBuf>,
    pub build: T,
}

/// Forgets the build kept in `bin_dir`, before its executables are replaced.
pub fn forget(bin_dir: &Path) -> io::Result<()> {
    remove_if_present(&bin_dir.join(KEPT_NAME))
}

/// Keeps `build` (its executables already in `bin_dir`, built from the checkout `root`) under
/// `key`.
pub fn keep<T: Serialize>(bin_dir: &Path, key: BuildKey, root: &Path, build: &T) -> io::Result<()> {
    let kept = Kept {
        key,
        root: Some(root.to_path_buf()),
        dir: Some(bin_dir.to_path_buf()),
        build,
    };
    write_json(&bin_dir.join(KEPT_NAME), &kept)
}

/// Reads a JSON file of ours; anything unreadable counts as absent (and so as a miss).
pub(super) fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Option<T> {
    serde_json::from_slice(&fs::read(path).ok()?).ok()
}

/// Writes `value` as JSON through a temporary file and a rename, so a reader never sees half a
/// record, whatever interrupts the write.
pub(super) fn write_json<T: Serialize>(path: &Path, value: &T) -> io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut temporary = tempfile::NamedTempFile::new_in(dir)?;
    serde_json::to_writer(&mut temporary, value).map_err(io::Error::other)?;
    temporary.persist(path).map_err(|e| e.error)?;
    Ok(())
}

pub(super) fn remove_if_present(path: &Path) -> io::Result<()> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

fn record_path(target_dir: &Path) -> PathBuf {
    target_dir.join(RECORD_NAME)
}

/// Waits for, then holds until dropped, the exclusive right to build into `target_dir`. Two
/// workspaces sharing a target directory (a global `CARGO_TARGET_DIR`) may hold crates with the
/// same relative path and name, which cargo then treats as one unit: between one run's
/// [`mark_changed`] and its build, another's build of that unit would otherwise make the first
/// run's unmarked files look fresh. Cargo's own lock covers only the build itself.
pub fn lock(target_dir: &Path) -> io::Result<File> {
    fs::create_dir_all(target_dir)?;
    let file = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(target_dir.join(LOCK_NAME))?;
    file.lock()?;
    Ok(file)
}

/// Gives every file of `sources` (scanned from the checkout `root`) whose content differs from
/// the last build that `owner` ([`Checkout::owner`]) recorded in `target_dir`, or that is older
/// than the moment the record took its content (`Record::since`), a modification time after
/// that build, so cargo rebuilds what depends on it, and the build script of each package holding
/// one, so cargo runs it again; then removes the record, which [`record`]
/// writes again once the build has succeeded. Returns what it marked, for [`record`].
/// Hold [`lock`] from here until the record is written.
pub fn mark_changed(
    target_dir: &Path,
    owner: &Path,
    root: &Path,
    sources: &Sources,
) -> io::Result<Marked> {
    let path = record_path(target_dir);
    let last = read_json::<Record>(&path).filter(|record| record.owner == owner);
    let built_at = fs::metadata(&path).and_then(|m| m.modified()).ok();
    let stamp = after(built_at);
    let mut marked = Marked::default();
    let states = file_states(root, last.as_ref(), sources)?;
    let changed: BTreeSet<String> = states
        .iter()
        .filter(|state| state.changed)
        .map(|state| state.relative.clone())
        .collect();
    // The build scripts of the packages holding them run again, whatever files they watch.
    let rerun = build_script_inputs::of_packages_holding(root, &sources.files, &changed);
    for FileState {
        relative,
        metadata,
        same,
        since,
        changed,
    } in states
    {
        let file = root.join(relative);
        // A symbolic link is not followed: cargo reads what it points at, whose own entry (if it
        // lies in the checkout) is marked when it changed.
        let mut now = nanos(metadata.modified().unwrap_or(stamp));
        if metadata.is_file() && (changed || rerun.contains(relative)) {
            File::open(&file)?.set_modified(stamp)?;
            // What the file system kept of the stamp (its clock may be coarser).
            now = fs::metadata(&file)?.modified().map_or(nanos(stamp), nanos);
            marked.count += 1;
        } else if metadata.is_file() && same && since > 0 && now > since {
            // The recorded content, written since (a slot checked out after the other side's
            // build): what was built from that content is this file's, so it gets the moment
            // the record took it, and cargo does not compile the same source twice.
            File::open(&file)?
                .set_modified(SystemTime::UNIX_EPOCH + Duration::from_nanos(since))?;
            now = since;
        }
        let since = if same { since } else { now };
        marked.since.insert(relative.clone(), since);
    }
    remove_if_present(&path)?;
    Ok(marked)
}

/// One file of a checkout as [`mark_changed`] finds it, read once: its metadata (a symbolic link
/// not followed), whether `last` recorded its content, since when (0: not recorded), and whether
/// it is marked for what it is (a content other than the one recorded, or a modification time
/// before the moment the record took it).
struct FileState<'a> {
    relative: &'a String,
    metadata: fs::Metadata,
    same: bool,
    since: u64,
    changed: bool,
}

/// The [`FileState`] of every file of `sources`, against the record `last`.
fn file_states<'a>(
    root: &Path,
    last: Option<&Record>,
    sources: &'a Sources,
) -> io::Result<Vec<FileState<'a>>> {
    let mut states = Vec::with_capacity(sources.files.len());
    for (relative, hash) in &sources.files {
        let same = last.and_then(|r| r.sources.files.get(relative)) == Some(hash);
        let metadata = fs::symlink_metadata(root.join(relative))?;
        let since = last
            .and_then(|r| r.since.get(relative))
            .copied()
            .unwrap_or(0);
        let older = metadata.modified().map_or(true, |m| nanos(m) < since);
        let changed = metadata.is_file() && (!same || older);
        states.push(FileState {
            relative,
            metadata,
            same,
            since,
            changed,
        });
    }
    Ok(states)
}

/// Nanoseconds since the Unix epoch (0 before it).
fn nanos(time: SystemTime) -> u64 {
    time.duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

/// The present moment, once it is later than `built` (the last build's record): the marked files
/// must look newer than everything that build wrote, yet not lie in the future, or cargo would
/// find them newer than the build that follows too and rebuild them once more on the next run.
/// A clock that reads no later than the record's time (a coarse or stepped clock) is waited for,
/// a few milliseconds at a time and two seconds at most.
fn after(built: Option<SystemTime>) -> SystemTime {
    let deadline = std::time::Instant::now() + Duration::from_secs(2);
    loop {
        let now = SystemTime::now();
        if built.is_none_or(|built| now > built) || std::time::Instant::now() >= deadline {
            return now;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Records that the target directory now holds what `sources`, a checkout of `owner`'s, builds to,
/// each file since the moment [`mark_changed`] found (`marked`).
pub fn record(
    target_dir: &Path,
    owner: &Path,
    sources: &Sources,
    marked: &Marked,
) -> io::Result<()> {
    fs::create_dir_all(target_dir)?;
    let record = Record {
        owner: owner.to_path_buf(),
        sources: sources.clone(),
        since: marked.since.clone(),
    };
    write_json(&record_path(target_dir), &record)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, relative: &str, text: &str) {
        let path = root.join(relative);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    fn mtime(path: &Path) -> SystemTime {
        fs::metadata(path).unwrap().modified().unwrap()
    }

    fn backdate(path: &Path) {
        let old = SystemTime::now() - Duration::from_secs(3600);
        File::open(path).unwrap().set_modified(old).unwrap();
    }

    #[test]
    fn a_checkout_is_the_repository_around_the_workspace_and_its_owner_the_parent() {
        let dir = tempfile::tempdir().unwrap();
        let slot = dir.path().join("worktrees/base");
        write(&slot, ".git/HEAD", "ref");
        write(&slot, "crates/app/Cargo.toml", "[package]");
        let checkout = Checkout::containing(&slot.join("crates/app"));
        assert_eq!(checkout.root, slot);
        assert_eq!(checkout.owner, dir.path().join("worktrees"));
    }

    #[test]
    fn scanning_skips_git_and_target_directories() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "src/lib.rs", "fn a() {}");
        write(dir.path(), ".git/HEAD", "ref");
        write(dir.path(), "sub/.git", "gitdir: x");
        write(dir.path(), "sub/lib.rs", "x");
        write(dir.path(), "target/CACHEDIR.TAG", "Signature");
        write(dir.path(), "target/release/x", "binary");
        let sources = Sources::scan(dir.path()).unwrap();
        let names: Vec<_> = sources.files.keys().cloned().collect();
        assert_eq!(names, ["src/lib.rs", "sub/lib.rs"]);
    }

    #[test]
    fn only_files_whose_content_differs_from_the_last_build_are_marked() {
        let target = tempfile::tempdir().unwrap();
        let owner = tempfile::tempdir().unwrap();
        let owner = owner.path();
        let base = tempfile::tempdir().unwrap();
        let head = tempfile::tempdir().unwrap();
        for side in [&base, &head] {
            write(side.path(), "src/lib.rs", "pub fn same() {}");
            write(side.path(), "Cargo.toml", "[package]");
        }
        write(base.path(), "benches/b.rs", "fn one() {}");
        write(head.path(), "benches/b.rs", "fn two() {}");
        write(head.path(), "src/new.rs", "fn new() {}");
        let all_of_head = ["src/lib.rs", "Cargo.toml", "benches/b.rs", "src/new.rs"];
        let backdate_head = || {
            for file in all_of_head {
                backdate(&head.path().join(file));
            }
        };

        // No record yet: everything counts as changed.
        let base_sources = Sources::scan(base.path()).unwrap();
        let marked = mark_changed(target.path(), owner, base.path(), &base_sources).unwrap();
        assert_eq!(marked.count, 3);
        record(target.path(), owner, &base_sources, &marked).unwrap();
        let base_marked = marked;

        // Another workspace's record says nothing about ours: all are marked.
        let head_sources = Sources::scan(head.path()).unwrap();
        let stranger = target.path().join("elsewhere");
        let marked = mark_changed(target.path(), &stranger, head.path(), &head_sources).unwrap();
        assert_eq!(marked.count, 4);

        // Our own record, and the head checkout written after base's build (as a run checks
        // head out after building base): only what differs from base.
        record(target.path(), owner, &base_sources, &base_marked).unwrap();
        let written = SystemTime::now();
        for file in all_of_head {
            File::open(head.path().join(file))
                .unwrap()
                .set_modified(written)
                .unwrap();
        }
        let built = mtime(&record_path(target.path()));
        let marked = mark_changed(target.path(), owner, head.path(), &head_sources).unwrap();
        assert_eq!(marked.count, 2);
        assert!(mtime(&head.path().join("benches/b.rs")) > built);
        assert!(mtime(&head.path().join("src/new.rs")) > built);
        // Not in the future, or the next build would find them newer than itself.
        assert!(mtime(&head.path().join("benches/b.rs")) <= SystemTime::now());
        // A file with base's content, written after base's build, gets the moment base's record
        // took that content: what base built from it is fresh for head too.
        assert!(mtime(&head.path().join("src/lib.rs")) < written);
        assert!(mtime(&head.path().join("src/lib.rs")) <= built);

        // Written before base's build (a checkout kept from an earlier run), the files with
        // base's content are older than the moment the record took it: marked too.
        record(target.path(), owner, &base_sources, &base_marked).unwrap();
        backdate_head();
        let marked = mark_changed(target.path(), owner, head.path(), &head_sources).unwrap();
        assert_eq!(marked.count, 4);
        // The record is gone until the next build succeeds.
        assert!(!record_path(target.path()).exists());
    }

    #[test]
    fn a_changed_c_file_marks_its_package_s_build_script_too() {
        // capstone-rs "bump capstone to 5.0.7": C files of capstone-sys change, its build script
        // prints only `rerun-if-env-changed` lines (the `cc` crate's), so cargo watches no file
        // and head was linked with base's C library. Its unchanged `build.rs` is marked so the
        // script runs again; the package beside it that nothing changed keeps its files' times.
        let target = tempfile::tempdir().unwrap();
        let owner = tempfile::tempdir().unwrap();
        let base = tempfile::tempdir().unwrap();
        let head = tempfile::tempdir().unwrap();
        for side in [&base, &head] {
            write(
                side.path(),
                "Cargo.toml",
                "[workspace]\nmembers = [\"sys\", \"app\"]",
            );
            write(
                side.path(),
                "sys/Cargo.toml",
                "[package]\nname = \"sys\"\nlinks = \"c\"",
            );
            write(side.path(), "sys/build.rs", "fn main() {}");
            write(side.path(), "app/Cargo.toml", "[package]\nname = \"app\"");
            write(side.path(), "app/build.rs", "fn main() {}");
        }
        write(base.path(), "sys/csrc/c.c", "int c(void) { return 1; }");
        write(head.path(), "sys/csrc/c.c", "int c(void) { return 2; }");
        let base_sources = Sources::scan(base.path()).unwrap();
        let marked = mark_changed(target.path(), owner.path(), base.path(), &base_sources).unwrap();
        record(target.path(), owner.path(), &base_sources, &marked).unwrap();
        let built = mtime(&record_path(target.path()));
        // Head checked out after base's build, as a run does.
        let head_sources = Sources::scan(head.path()).unwrap();
        for file in head_sources.files.keys() {
            let file = File::open(head.path().join(file)).unwrap();
            file.set_modified(SystemTime::now()).unwrap();
        }
        let marked = mark_changed(target.path(), owner.path(), head.path(), &head_sources).unwrap();
        assert_eq!(marked.count, 2);
        assert!(mtime(&head.path().join("sys/csrc/c.c")) > built);
        assert!(mtime(&head.path().join("sys/build.rs")) > built);
        assert!(mtime(&head.path().join("app/build.rs")) <= built);
    }

    /// A build that leaves some units alone (the programs only, one bench target) still records
    /// the content it built. A unit it left alone, made by an earlier build from other content,
    /// is older than that record; another checkout with the recorded content must not take it
    /// for fresh just because its files are as old as the unit.
    #[test]
    fn a_file_older_than_the_moment_its_content_was_recorded_is_marked_in_any_checkout() {
        let target = tempfile::tempdir().unwrap();
        let owner = tempfile::tempdir().unwrap();
        let owner = owner.path();
        let [old, changed, again] = [(); 3].map(|()| tempfile::tempdir().unwrap());
        write(old.path(), "benches/b.rs", "fn one() {}");
        write(changed.path(), "benches/b.rs", "fn two() {}");
        write(again.path(), "benches/b.rs", "fn one() {}");
        let file = |dir: &tempfile::TempDir| dir.path().join("benches/b.rs");
        let build = |dir: &tempfile::TempDir| {
            let sources = Sources::scan(dir.path()).unwrap();
            let marked = mark_changed(target.path(), owner, dir.path(), &sources).unwrap();
            record(target.path(), owner, &sources, &marked).unwrap();
            marked.count
        };
        // `old` is built (a slot a later run keeps as it is); then `changed`, whose build makes
        // the unit of b.rs from "two"; then `again`, with old's content, whose build leaves that
        // unit alone: the record says "one" again, and the unit is still "two".
        assert_eq!(build(&old), 1);
        let old_written = mtime(&file(&old));
        assert_eq!(build(&changed), 1);
        assert_eq!(build(&again), 1);
        // `old` has the recorded content, but its file predates the record's taking it: marked.
        let sources = Sources::scan(old.path()).unwrap();
        let marked = mark_changed(target.path(), owner, old.path(), &sources).unwrap();
        assert_eq!(marked.count, 1);
        assert!(mtime(&file(&old)) > old_written);
        assert!(mtime(&file(&old)) >= mtime(&file(&again)));
    }
}
