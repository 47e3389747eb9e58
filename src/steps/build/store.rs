//! Kept builds found by their content: a store, in the shared target directory, of the builds
//! any workspace building into it has kept, by [`BuildKey`], that every other workspace takes
//! from.
//!
//! # Why
//!
//! A build is kept in its workspace's state directory, which is keyed by the workspace's path
//! (its worktrees, runs and lock are that workspace's alone). Several clones or worktrees of one
//! project that share a `CARGO_TARGET_DIR`, or a CI job whose checkout lies at another path
//! each time while its target directory is restored from a cache, would each build the same
//! commits again. Yet the key of a build ([`BuildKey`]) already names everything that decides
//! what it produces, by content: the checkout's files, where the workspace lies in it, cargo's
//! arguments and target directory, the toolchain, cargo's configuration and environment. Two
//! builds with one key are the same build wherever their checkouts lie.
//!
//! So every build kept is also put here, as hard links to its files (no second copy on disk
//! while the workspace keeps them), under its key; a workspace that has no build of its own for
//! a key takes the stored one into its bin directory, again as hard links, and cargo does not
//! run. Nothing is ever written into a kept file (executables are copied in and layouts linked
//! through a new file and a rename), so the links never see a change of another's.
//!
//! A kept build names absolute paths: its executables and layouts in the bin directory, the
//! package directories in the checkout (a fork's working directory and `CARGO_MANIFEST_DIR`),
//! the linker's working directory. Taken into another workspace, each path under the build's
//! own bin directory or checkout is re-pointed at the taker's ([`relocate`]), whose checkout has
//! the same content. What cannot be re-pointed is a path compiled into an executable
//! (`env!("CARGO_MANIFEST_DIR")`, debug information's compilation directory): a build whose
//! executables hold its checkout's path is not stored ([`names_its_checkout`]).
//!
//! The store keeps the builds last put or taken, [`DEFAULT_CAPACITY`] of them or as many as
//! `CARGO_PERFDIFF_KEPT_BUILDS` says (0: none, and nothing is shared); the comparison asks for it
//! ([`super::BuildOptions::kept_builds`]), the library's builds alone share nothing. Everything here runs under
//! the target directory's build lock ([`freshness::lock`]), so no two runs change it at once.

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::freshness::{self, BuildKey, KEPT_NAME, Kept};

/// The store's directory inside the shared target directory.
const STORE_NAME: &str = "perfdiff-kept";
/// How many builds the store keeps unless [`CAPACITY_VARIABLE`] says otherwise.
pub const DEFAULT_CAPACITY: usize = 8;
/// The environment variable that sets how many builds the store keeps (0 turns sharing off).
pub const CAPACITY_VARIABLE: &str = "CARGO_PERFDIFF_KEPT_BUILDS";
/// The directory of the preserved link inputs in a bin directory (`layout::inputs_dir`):
/// objects and libraries, not executables, left out of [`names_its_checkout`].
const LINK_INPUTS: &str = "link-inputs";

/// How many builds the store keeps: [`CAPACITY_VARIABLE`], else [`DEFAULT_CAPACITY`].
pub fn capacity_from_env() -> usize {
    std::env::var(CAPACITY_VARIABLE)
        .ok()
        .and_then(|value| value.trim().parse().ok())
        .unwrap_or(DEFAULT_CAPACITY)
}

/// The builds kept by every workspace building into one target directory.
pub(super) struct Store {
    dir: PathBuf,
    capacity: usize,
}

impl Store {
    /// The store of `shared_target_dir` keeping `capacity` builds.
    pub fn with_capacity(shared_target_dir: &Path, capacity: usize) -> Store {
        Store {
            dir: shared_target_dir.join(STORE_NAME),
            capacity,
        }
    }

    fn entry(&self, key: BuildKey) -> PathBuf {
        self.dir.join(key.hex())
    }

    /// Takes the build stored under `key` into `kept_dir`, for the checkout `root` (of the same
    /// content): its files linked in, its paths re-pointed, and kept there under `key`. `None`
    /// when the store has no such build.
    pub fn take<T: DeserializeOwned>(
        &self,
        key: BuildKey,
        kept_dir: &Path,
        root: &Path,
    ) -> io::Result<Option<T>> {
        let entry = self.entry(key);
        let stored = freshness::read_json::<Kept<Value>>(&entry.join(KEPT_NAME));
        let Some(Kept {
            key: stored_key,
            root: Some(from_root),
            dir: Some(from_dir),
            mut build,
        }) = stored
        else {
            return Ok(None);
        };
        if self.capacity == 0 || stored_key != key {
            return Ok(None);
        }
        relocate(&mut build, &[(&from_dir, kept_dir), (&from_root, root)]);
        let Ok(taken) = serde_json::from_value::<T>(build.clone()) else {
            return Ok(None);
        };
        freshness::forget(kept_dir)?;
        super::layout::forget(kept_dir)?;
        link_tree(&entry, kept_dir)?;
        freshness::keep(kept_dir, key, root, &build)?;
        touch(&entry)?;
        Ok(Some(taken))
    }

    /// Puts the build kept in `kept_dir` under `key` into the store, unless it is there already
    /// (then it counts as used now), was kept without its places, or its executables name its
    /// checkout; then forgets the builds least recently used beyond the store's capacity.
    pub fn put(&self, key: BuildKey, kept_dir: &Path) -> io::Result<()> {
        let entry = self.entry(key);
        if self.capacity == 0 {
            return Ok(());
        }
        if entry.join(KEPT_NAME).is_file() {
            return touch(&entry);
        }
        let kept = freshness::read_json::<Kept<Value>>(&kept_dir.join(KEPT_NAME));
        let Some(Kept {
            key: kept_key,
            root: Some(root),
            dir: Some(dir),
            mut build,
        }) = kept
        else {
            return Ok(());
        };
        if kept_key != key || names_its_checkout(kept_dir, &root)? {
            return Ok(());
        }
        fs::create_dir_all(&self.dir)?;
        let partial = tempfile::Builder::new()
            .prefix(".partial-")
            .tempdir_in(&self.dir)?;
        link_tree(kept_dir, partial.path())?;
        relocate(&mut build, &[(&dir, &entry)]);
        freshness::write_json(
            &partial.path().join(KEPT_NAME),
            &Kept {
                key,
                root: Some(root),
                dir: Some(entry.clone()),
                build,
            },
        )?;
        fs::rename(partial.path(), &entry)?;
        // Renamed: nothing left for the temporary directory to remove.
        let _ = partial.keep();
        self.prune()
    }

    /// Removes the builds least recently put or taken beyond the capacity, and anything a put
    /// interrupted left behind.
    fn prune(&self) -> io::Result<()> {
        let mut entries = Vec::new();
        for entry in fs::read_dir(&self.dir)? {
            let path = entry?.path();
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            if name.starts_with(".partial-") {
                fs::remove_dir_all(&path)?;
                continue;
            }
            let used = fs::metadata(path.join(KEPT_NAME))
                .and_then(|m| m.modified())
                .unwrap_or(SystemTime::UNIX_EPOCH);
            entries.push((used, path));
        }
        entries.sort_by(|a, b| b.cmp(a));
        for (_, path) in entries.into_iter().skip(self.capacity) {
            fs::remove_dir_all(&path)?;
        }
        Ok(())
    }
}

/// The build kept in `kept_dir` under `key`, for the checkout `root`: its paths re-pointed at
/// `root` and `kept_dir` when it was made elsewhere. The key holds no path, so a build made in
/// one worktree slot serves the other slot when that checks out the same content, and a build
/// kept where the slots lived before they moved serves the slots where they are now; each must
/// name the checkout it now serves. `None` without such a build, or for one kept without its
/// places (before they were recorded), which cannot be re-pointed.
pub(super) fn kept_here<T: DeserializeOwned>(
    kept_dir: &Path,
    key: BuildKey,
    root: &Path,
) -> Option<T> {
    let kept = freshness::read_json::<Kept<Value>>(&kept_dir.join(KEPT_NAME))?;
    let (Some(from_root), Some(from_dir)) = (&kept.root, &kept.dir) else {
        return None;
    };
    if kept.key != key {
        return None;
    }
    let mut build = kept.build;
    relocate(&mut build, &[(from_dir, kept_dir), (from_root, root)]);
    serde_json::from_value(build).ok()
}

/// Marks a stored build as used now.
fn touch(entry: &Path) -> io::Result<()> {
    File::open(entry.join(KEPT_NAME))?.set_modified(SystemTime::now())
}

/// Whether a file of the build in `kept_dir` (leaving out its link inputs, objects whose
/// metadata may name their workspace without the executables doing so) holds the path of its
/// checkout `root`, as written or resolved: such a build reads from that checkout, wherever it
/// is run from, and is not shared.
fn names_its_checkout(kept_dir: &Path, root: &Path) -> io::Result<bool> {
    let mut needles = vec![root.as_os_str().as_encoded_bytes().to_vec()];
    if let Ok(resolved) = root.canonicalize() {
        needles.push(resolved.as_os_str().as_encoded_bytes().to_vec());
    }
    let mut found = false;
    for_each_file(kept_dir, Path::new(""), &mut |path, relative| {
        if found || relative.starts_with(LINK_INPUTS) || relative == Path::new(KEPT_NAME) {
            return Ok(());
        }
        let bytes = fs::read(path)?;
        found = needles
            .iter()
            .any(|needle| memchr::memmem::find(&bytes, needle).is_some());
        Ok(())
    })?;
    Ok(found)
}

/// Calls `visit` with each file of the tree `dir` and its path relative to the tree's top,
/// leaving out the directories that hold a build of their own (a revision's programs or narrow
/// builds, inside its bench build's bin directory).
fn for_each_file(
    dir: &Path,
    relative: &Path,
    visit: &mut dyn FnMut(&Path, &Path) -> io::Result<()>,
) -> io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        let inner = relative.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            if !path.join(KEPT_NAME).exists() {
                for_each_file(&path, &inner, visit)?;
            }
        } else {
            visit(&path, &inner)?;
        }
    }
    Ok(())
}

/// Gives `to` every file of the tree `from` (but its record, [`KEPT_NAME`], and the builds of
/// their own, [`for_each_file`]) as a hard link, replacing what `to` has under those names; a
/// copy with the same modification time where the file system refuses the link (the kept link
/// inputs are checked by length and time).
fn link_tree(from: &Path, to: &Path) -> io::Result<()> {
    for_each_file(from, Path::new(""), &mut |path, relative| {
        if relative == Path::new(KEPT_NAME) {
            return Ok(());
        }
        let destination = to.join(relative);
        if let Some(parent) = destination.parent() {
            fs::create_dir_all(parent)?;
        }
        freshness::remove_if_present(&destination)?;
        if fs::hard_link(path, &destination).is_err() {
            fs::copy(path, &destination)?;
            let modified = fs::metadata(path)?.modified()?;
            File::options()
                .write(true)
                .open(&destination)?
                .set_modified(modified)?;
        }
        Ok(())
    })
}

/// Re-points every path in `value` (strings, and `OsString`s as serde writes them on Unix) that
/// lies under the first directory of one of `moves` at the second, in the order given. A path is
/// matched whole, at a boundary on both sides: `/a/base` is not in `/a/base2` or `/x/a/base`.
pub(super) fn relocate(value: &mut Value, moves: &[(&Path, &Path)]) {
    match value {
        Value::String(text) => {
            let mut bytes = text.as_bytes().to_vec();
            for (from, to) in moves {
                bytes = relocate_bytes(&bytes, from, to);
            }
            if let Ok(moved) = String::from_utf8(bytes) {
                *text = moved;
            }
        }
        Value::Object(map) if map.len() == 1 && os_string_bytes(map.get("Unix")).is_some() => {
            let mut bytes = os_string_bytes(map.get("Unix")).unwrap_or_default();
            for (from, to) in moves {
                bytes = relocate_bytes(&bytes, from, to);
            }
            map.insert("Unix".to_string(), Value::from(bytes));
        }
        Value::Array(items) => items.iter_mut().for_each(|item| relocate(item, moves)),
        Value::Object(map) => map.values_mut().for_each(|item| relocate(item, moves)),
        _ => {}
    }
}

/// The bytes of an `OsString` as serde writes it on Unix (`{"Unix": [bytes]}`).
fn os_string_bytes(value: Option<&Value>) -> Option<Vec<u8>> {
    value?
        .as_array()?
        .iter()
        .map(|byte| u8::try_from(byte.as_u64()?).ok())
        .collect()
}

/// `text` with each whole occurrence of the path `from` replaced by `to`.
fn relocate_bytes(text: &[u8], from: &Path, to: &Path) -> Vec<u8> {
    // Without a trailing separator, which would keep `/a/base/` from matching `/a/base`.
    let (from, to) = (normal(from), normal(to));
    let from = from.as_os_str().as_encoded_bytes();
    let to = to.as_os_str().as_encoded_bytes();
    if from.is_empty() || from == to {
        return text.to_vec();
    }
    let name_byte = |b: u8| b.is_ascii_alphanumeric() || b"-_.".contains(&b) || b >= 0x80;
    let mut moved = Vec::with_capacity(text.len());
    let mut at = 0;
    while let Some(found) = memchr::memmem::find(&text[at..], from) {
        let (start, end) = (at + found, at + found + from.len());
        let before = start == 0 || !(name_byte(text[start - 1]) || text[start - 1] == b'/');
        let after = end == text.len() || !name_byte(text[end]);
        moved.extend_from_slice(&text[at..start]);
        moved.extend_from_slice(if before && after { to } else { from });
        at = end;
    }
    moved.extend_from_slice(&text[at..]);
    moved
}

/// `path` rebuilt from its components: no trailing separator, no `.` components.
fn normal(path: &Path) -> PathBuf {
    path.components().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    #[test]
    fn paths_are_re_pointed_whole_in_strings_and_os_strings() {
        let env = vec![(
            OsString::from("DATA"),
            OsString::from("/s/ws-a/worktrees/base/data"),
        )];
        let mut value = serde_json::json!({
            "path": "/s/ws-a/bin/c1/demo-1",
            "root": "/s/ws-a/worktrees/base",
            "line": "\"cc\" \"/s/ws-a/worktrees/base/x.o\" \"/s/ws-a/worktrees/base2/y\"",
            "elsewhere": "/t/s/ws-a/worktrees/base/z",
            "env": env,
        });
        relocate(
            &mut value,
            &[
                (Path::new("/s/ws-a/bin/c1"), Path::new("/s/ws-b/bin/c2")),
                (
                    Path::new("/s/ws-a/worktrees/base/"),
                    Path::new("/s/ws-b/worktrees/head/"),
                ),
            ],
        );
        assert_eq!(value["path"], "/s/ws-b/bin/c2/demo-1");
        assert_eq!(value["root"], "/s/ws-b/worktrees/head");
        assert_eq!(
            value["line"],
            "\"cc\" \"/s/ws-b/worktrees/head/x.o\" \"/s/ws-a/worktrees/base2/y\""
        );
        assert_eq!(value["elsewhere"], "/t/s/ws-a/worktrees/base/z");
        let env: Vec<(OsString, OsString)> = serde_json::from_value(value["env"].clone()).unwrap();
        assert_eq!(env[0].1, "/s/ws-b/worktrees/head/data");
    }

    /// A bin directory holding one executable (`exe_text`) and a preserved link input, kept
    /// under `key` as built from `root`, and its programs' build of their own.
    fn kept_build(bin: &Path, root: &Path, key: BuildKey, exe_text: &str) {
        fs::create_dir_all(bin.join("link-inputs/demo")).unwrap();
        fs::write(bin.join("demo-1"), exe_text).unwrap();
        fs::write(bin.join("link-inputs/demo/0-x.o"), root.to_str().unwrap()).unwrap();
        let build = serde_json::json!({
            "exe": bin.join("demo-1"),
            "package_root": root.join("pkg"),
        });
        freshness::keep(bin, key, root, &build).unwrap();
        fs::create_dir_all(bin.join("programs")).unwrap();
        freshness::keep(&bin.join("programs"), key, root, &build).unwrap();
    }

    #[test]
    fn a_build_put_by_one_workspace_is_taken_by_another_re_pointed_and_linked() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::with_capacity(&dir.path().join("target"), 2);
        let key = serde_json::from_value::<BuildKey>(serde_json::json!(42)).unwrap();
        let (a_root, a_bin) = (
            dir.path().join("a/worktrees/base"),
            dir.path().join("a/bin/c1"),
        );
        kept_build(&a_bin, &a_root, key, "code");
        store.put(key, &a_bin).unwrap();

        let (b_root, b_bin) = (
            dir.path().join("b/worktrees/head"),
            dir.path().join("b/bin/c2"),
        );
        let taken: Value = store.take(key, &b_bin, &b_root).unwrap().unwrap();
        assert_eq!(taken["exe"], b_bin.join("demo-1").to_str().unwrap());
        assert_eq!(taken["package_root"], b_root.join("pkg").to_str().unwrap());
        assert_eq!(fs::read_to_string(b_bin.join("demo-1")).unwrap(), "code");
        // Kept there as the taker's own build, found by the key alone from now on.
        let own: Value = kept_here(&b_bin, key, &b_root).unwrap();
        assert_eq!(own, taken);
        // The programs' build is a build of its own: not part of the bench build's files.
        assert!(!b_bin.join("programs").exists());
        // Another key is not served.
        let other = serde_json::from_value::<BuildKey>(serde_json::json!(7)).unwrap();
        assert!(
            store
                .take::<Value>(other, &b_bin, &b_root)
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn a_build_kept_in_one_slot_serves_the_other_named_for_it_and_one_without_places_none() {
        let dir = tempfile::tempdir().unwrap();
        let key = serde_json::from_value::<BuildKey>(serde_json::json!(5)).unwrap();
        let bin = dir.path().join("bin/c");
        let (base, head) = (dir.path().join("slots/base"), dir.path().join("slots/head"));
        kept_build(&bin, &base, key, "code");
        let served: Value = kept_here(&bin, key, &head).unwrap();
        assert_eq!(served["package_root"], head.join("pkg").to_str().unwrap());
        let build = serde_json::json!({"package_root": base.join("pkg")});
        let old = serde_json::json!({"key": key, "build": build});
        fs::write(bin.join(KEPT_NAME), old.to_string()).unwrap();
        assert!(kept_here::<Value>(&bin, key, &base).is_none());
    }

    #[test]
    fn a_build_whose_executable_names_its_checkout_is_not_stored() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::with_capacity(&dir.path().join("target"), 2);
        let key = serde_json::from_value::<BuildKey>(serde_json::json!(1)).unwrap();
        let (root, bin) = (
            dir.path().join("a/worktrees/base"),
            dir.path().join("a/bin/c"),
        );
        kept_build(
            &bin,
            &root,
            key,
            &format!("reads {}/pkg/data", root.display()),
        );
        store.put(key, &bin).unwrap();
        let elsewhere = dir.path().join("b/bin/c");
        assert!(
            store
                .take::<Value>(key, &elsewhere, &root)
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn the_store_forgets_the_least_recently_used_beyond_its_capacity_and_0_shares_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target");
        let store = Store::with_capacity(&target, 2);
        let keys: Vec<BuildKey> = (1..=3)
            .map(|k| serde_json::from_value(serde_json::json!(k)).unwrap())
            .collect();
        let root = dir.path().join("a/worktrees/base");
        let take = |store: &Store, key| {
            let to = dir.path().join("b/bin/x");
            store.take::<Value>(key, &to, &root).unwrap().is_some()
        };
        for (at, key) in keys.iter().enumerate() {
            let bin = dir.path().join(format!("a/bin/{at}"));
            kept_build(&bin, &root, *key, "code");
            store.put(*key, &bin).unwrap();
            if at == 1 {
                // The first is used again before the third comes: the second is the oldest.
                std::thread::sleep(std::time::Duration::from_millis(20));
                assert!(take(&store, keys[0]));
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
        }
        assert!(take(&store, keys[0]) && take(&store, keys[2]));
        assert!(!take(&store, keys[1]));
        assert!(!take(&Store::with_capacity(&target, 0), keys[0]));
    }
}
