//! A fresh copy of every bench executable for every round of forks.
//!
//! Why: the speed of some benchmarks depends on where the executable's pages sit in physical
//! memory. Every process launched from one file maps the same page-cache pages, so if all forks of
//! a run launched the same file, a placement that happens to be slow would slow every fork alike.
//! The forks would agree with one another and the run would be confidently wrong. This was seen on
//! rust-base64 (docs/design/replay.md, "Fresh copies every round"): every fork of `encode/50` took
//! 83.6 ns in one run and 66.3 ns in another, with byte-identical executables, and the run's own
//! copy was still slow while fresh copies of it were fast.
//!
//! A new file has new pages, so copying the executable afresh before each round makes its
//! placement part of the fork-to-fork variation that the statistics already measure (and that the
//! disturbed-fork rule handles when it is rare). Each benchmark runs one fork per side per round,
//! so one copy per side and round is enough; a copy of a 54 MB executable takes about 20 ms.
//! The copies of base and head are separate files even when both sides are the same build
//! (an A/A comparison), so the two sides never share a placement either.
//!
//! Where: made [`FreshCopies::in_checkouts`], each side's copies live in its own checkout, where
//! `cargo bench` there would put them ([`super::run_place`]: a benchmark that finds its data from
//! its executable's path reads its own revision's).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::steps::schedule::Side;

/// The current round's copies, kept in one directory that is removed when this is dropped.
#[derive(Debug)]
pub struct FreshCopies {
    dir: PathBuf,
    /// Each side's workspace checkout and the directory its copies run from
    /// ([`super::run_place::in_checkouts`]); `None`: both sides' copies are in `dir`.
    checkouts: Option<([PathBuf; 2], [PathBuf; 2])>,
    current: BTreeMap<(Side, PathBuf), PathBuf>,
}

impl FreshCopies {
    /// Copies will live in `dir` (created if needed, and removed with everything in it on drop).
    pub fn new(dir: PathBuf) -> std::io::Result<Self> {
        std::fs::create_dir_all(&dir)?;
        Ok(Self {
            dir,
            checkouts: None,
            current: BTreeMap::new(),
        })
    }

    /// Copies that run from each side's own checkout of the workspace (`workspaces`: base's,
    /// head's), in `<workspace>/target/release` ([`super::run_place`]); in `dir`, as
    /// [`FreshCopies::new`], for both sides when either checkout cannot have them.
    pub fn in_checkouts(dir: PathBuf, workspaces: [&Path; 2]) -> std::io::Result<Self> {
        let mut copies = Self::new(dir)?;
        copies.checkouts = super::run_place::in_checkouts(workspaces)
            .map(|releases| (workspaces.map(Path::to_path_buf), releases));
        Ok(copies)
    }

    /// Where `side`'s copies of bench executables go.
    fn side_dir(&self, side: Side) -> PathBuf {
        match &self.checkouts {
            Some((_, releases)) => releases[usize::from(side == Side::Head)].join("deps"),
            None => self.dir.join(side.as_str()),
        }
    }

    /// Starts a new round: the next [`FreshCopies::path`] of each executable makes a new copy.
    pub fn start_round(&mut self) {
        self.current.clear();
    }

    /// The path to launch `original` from for `side` in this round, copying it on first use.
    ///
    /// The copy replaces the previous round's through a rename, so it is always a new file
    /// (a new inode with its own pages), never the old one rewritten.
    pub fn path(&mut self, side: Side, original: &Path) -> std::io::Result<PathBuf> {
        let key = (side, original.to_path_buf());
        if let Some(path) = self.current.get(&key) {
            return Ok(path.clone());
        }
        let side_dir = self.side_dir(side);
        std::fs::create_dir_all(&side_dir)?;
        let name = original.file_name().unwrap_or(original.as_os_str());
        let copy = side_dir.join(name);
        crate::util::fs::copy_atomically(original, &copy)?;
        self.current.insert(key, copy.clone());
        Ok(copy)
    }
}

impl FreshCopies {
    /// The directory to run the programs `names` of `original` from for `side` in this round
    /// (`{bin}` of a command), copying them on first use. The directory's path is the same for
    /// both sides but for the side's name, so neither side's command line is longer.
    pub fn directory(
        &mut self,
        side: Side,
        original: &Path,
        names: &[String],
    ) -> std::io::Result<PathBuf> {
        let key = (side, original.to_path_buf());
        if let Some(path) = self.current.get(&key) {
            return Ok(path.clone());
        }
        // In cargo-perfdiff's own directory whatever the bench executables do: a command's
        // trace runs the kept programs from there too (`orchestrate::run::reach_commands`).
        let dir = self.dir.join(side.as_str()).join("programs");
        std::fs::create_dir_all(&dir)?;
        for name in names {
            crate::util::fs::copy_atomically(&original.join(name), &dir.join(name))?;
        }
        self.current.insert(key, dir.clone());
        Ok(dir)
    }
}

impl Drop for FreshCopies {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
        for workspace in self.checkouts.iter().flat_map(|(workspaces, _)| workspaces) {
            super::run_place::remove(workspace);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::{MetadataExt, PermissionsExt};

    fn executable(dir: &Path) -> PathBuf {
        let path = dir.join("bench-1234");
        std::fs::write(&path, b"#!/bin/sh\necho hi\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    fn inode(path: &Path) -> u64 {
        std::fs::metadata(path).unwrap().ino()
    }

    #[test]
    fn each_round_launches_a_new_file_with_the_same_bytes_and_mode() {
        let temp = tempfile::tempdir().unwrap();
        let original = executable(temp.path());
        let mut copies = FreshCopies::new(temp.path().join("fresh")).unwrap();
        let first = copies.path(Side::Base, &original).unwrap();
        let first_inode = inode(&first);
        copies.start_round();
        let second = copies.path(Side::Base, &original).unwrap();
        assert_eq!(first, second, "one path per side and executable");
        assert_ne!(first_inode, inode(&second), "a new file each round");
        assert_ne!(inode(&original), inode(&second));
        assert_eq!(
            std::fs::read(&original).unwrap(),
            std::fs::read(&second).unwrap()
        );
        let mode = std::fs::metadata(&second).unwrap().permissions().mode();
        assert_eq!(mode & 0o111, 0o111, "still executable: {mode:o}");
    }

    #[test]
    fn within_a_round_a_side_reuses_its_copy_and_the_sides_never_share_one() {
        let temp = tempfile::tempdir().unwrap();
        let original = executable(temp.path());
        let mut copies = FreshCopies::new(temp.path().join("fresh")).unwrap();
        let base = copies.path(Side::Base, &original).unwrap();
        let base_inode = inode(&base);
        assert_eq!(base, copies.path(Side::Base, &original).unwrap());
        assert_eq!(base_inode, inode(&base), "not copied twice in one round");
        let head = copies.path(Side::Head, &original).unwrap();
        assert_ne!(base, head);
        assert_ne!(base_inode, inode(&head));
    }

    #[test]
    fn the_copies_are_removed_with_their_directory() {
        let temp = tempfile::tempdir().unwrap();
        let original = executable(temp.path());
        let dir = temp.path().join("fresh");
        let mut copies = FreshCopies::new(dir.clone()).unwrap();
        copies.path(Side::Head, &original).unwrap();
        drop(copies);
        assert!(!dir.exists());
        assert!(original.exists(), "the original is never touched");
    }

    #[test]
    fn in_checkouts_each_side_s_copies_run_from_its_own_workspace_s_target() {
        let temp = tempfile::tempdir().unwrap();
        let original = executable(temp.path());
        let [base, head] = ["slots/base/ws", "slots/head/ws"].map(|w| temp.path().join(w));
        let mut copies =
            FreshCopies::in_checkouts(temp.path().join("fresh"), [&base, &head]).unwrap();
        let copy = copies.path(Side::Head, &original).unwrap();
        assert_eq!(copy, head.join("target/release/deps/bench-1234"));
        let base_copy = copies.path(Side::Base, &original).unwrap();
        assert_eq!(base_copy, base.join("target/release/deps/bench-1234"));
        assert_eq!(base_copy.as_os_str().len(), copy.as_os_str().len());
        drop(copies);
        assert!(!base.join("target").exists() && !head.join("target").exists());
        assert!(original.exists());
    }

    #[test]
    fn a_missing_original_is_an_error_not_a_panic() {
        let temp = tempfile::tempdir().unwrap();
        let mut copies = FreshCopies::new(temp.path().join("fresh")).unwrap();
        assert!(copies.path(Side::Base, &temp.path().join("gone")).is_err());
    }
}
