//! One path for both checkouts: cargo builds either worktree slot through a symbolic link beside
//! them, so a path dependency outside the workspace is one unit to cargo, compiled once.
//!
//! # Why
//!
//! Cargo names a package by its source: a workspace member by its path relative to the
//! workspace root (one unit for both checkouts), but a path dependency *outside* the workspace
//! (a bench package of its own with `path = ".."` dependencies, a `[patch]` to a local path) by
//! its absolute path. The two slots (`…/base`, `…/head`) made it two units: compiled once per
//! slot, with two output directories (`OUT_DIR`), though [`super::normalize`] gives both the
//! same code. Cargo decides freshness by the package's path and its files' modification times,
//! and [`super::freshness`] already marks every file whose content differs between the slots,
//! so one path serves both.
//!
//! # How
//!
//! The link (`…/live`, [`LINK_NAME`]) has the same length as the slots' paths. Before each cargo
//! run it is pointed at the slot being built ([`OnePath::point`], under the target directory's
//! lock, like every build), and cargo is given the workspace's manifest through it. What cargo
//! says (its JSON messages: package ids, manifest paths, build script outputs) is read back as
//! the slot's ([`OnePath::to_slot`]), so the rest of the program only ever sees the slot. What
//! the compiler compiled in (`env!("CARGO_MANIFEST_DIR")` names the link) is set to the slot in
//! every executable copied out of the target directory and in every file kept to link its
//! layouts ([`OnePath::patch_file`]): bytes of the same length, so nothing moves, and each
//! executable reads its own checkout however the link points later. File names in debug
//! information and panic locations are relative (`--remap-path-prefix`, [`super::normalize`]).
//!
//! Only where it matters: normalised builds of a workspace that lies below its slot's root (a
//! workspace at the root holds every path of the checkout). Unit tests below; end to end in
//! `tests/end_to_end/repository_shapes.rs`.

use std::ffi::OsStr;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use crate::steps::git::worktree::SLOTS;

/// The link's name beside the slots: as long as theirs (`base`, `head`).
pub const LINK_NAME: &str = "live";

/// The link cargo builds a slot through, and the slot it stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OnePath {
    /// `…/live`, beside the slots.
    pub link: PathBuf,
    /// The slot's root, `…/base` or `…/head`.
    pub root: PathBuf,
}

impl OnePath {
    /// The one path for the workspace `workspace_dir` of the checkout `root`, when it is worth
    /// one: `root` is a worktree slot, the workspace lies below it, and its parent's path holds no
    /// character a `file://` URL would escape (cargo's package ids are URLs, read back byte for
    /// byte).
    pub fn for_workspace(root: &Path, workspace_dir: &Path) -> Option<OnePath> {
        let name = root.file_name()?.to_str()?;
        let below = workspace_dir.strip_prefix(root).ok()?;
        if !SLOTS.contains(&name) || below.as_os_str().is_empty() {
            return None;
        }
        let plain = |b: &u8| b.is_ascii_alphanumeric() || b"/._-+~".contains(b);
        if !root.as_os_str().as_bytes().iter().all(plain) {
            return None;
        }
        Some(OnePath {
            link: root.with_file_name(LINK_NAME),
            root: root.to_path_buf(),
        })
    }

    /// Points the link at the slot: a new link renamed over the old one. Fails (and the build
    /// goes through the slot's own path) when something that is not a link holds its name.
    pub fn point(&self) -> io::Result<()> {
        if self
            .link
            .symlink_metadata()
            .is_ok_and(|m| !m.file_type().is_symlink())
        {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!("{} is not a link", self.link.display()),
            ));
        }
        let partial = self
            .link
            .with_file_name(format!(".{LINK_NAME}-{}", std::process::id()));
        let _ = std::fs::remove_file(&partial);
        std::os::unix::fs::symlink(&self.root, &partial)?;
        std::fs::rename(&partial, &self.link)
    }

    /// `path` (in the slot) as cargo sees it through the link.
    pub fn through_link(&self, path: &Path) -> PathBuf {
        match path.strip_prefix(&self.root) {
            Ok(below) => self.link.join(below),
            Err(_) => path.to_path_buf(),
        }
    }

    /// Replaces the slot's path by the link's in an argument of cargo's (a package id
    /// `path+file:///…/base/…#name` that our messages gave).
    pub fn arg_through_link(&self, arg: &str) -> String {
        arg.replace(&*self.root.to_string_lossy(), &self.link.to_string_lossy())
    }

    /// Replaces every occurrence of the link's path in `bytes` by the slot's (the same length);
    /// whether there was one.
    pub fn to_slot(&self, bytes: &mut [u8]) -> bool {
        let (from, to) = (bytes_of(&self.link), bytes_of(&self.root));
        debug_assert_eq!(from.len(), to.len());
        let found: Vec<usize> = memchr::memmem::find_iter(bytes, from).collect();
        for at in &found {
            bytes[*at..*at + to.len()].copy_from_slice(to);
        }
        !found.is_empty()
    }

    /// Sets what `path` compiled in through the link to the slot: a new file renamed over it
    /// (so a hard link to the target directory's file keeps that content), with its permissions;
    /// left alone when it holds no such path.
    pub fn patch_file(&self, path: &Path) -> io::Result<()> {
        let mut bytes = std::fs::read(path)?;
        if !self.to_slot(&mut bytes) {
            return Ok(());
        }
        let dir = path.parent().unwrap_or(Path::new("."));
        let mut partial = tempfile::Builder::new()
            .prefix(".patch-")
            .tempfile_in(dir)?;
        io::Write::write_all(&mut partial, &bytes)?;
        partial
            .as_file()
            .set_permissions(std::fs::metadata(path)?.permissions())?;
        partial.persist(path).map_err(|e| e.error)?;
        Ok(())
    }
}

fn bytes_of(path: &Path) -> &[u8] {
    OsStr::as_bytes(path.as_os_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_workspace_below_a_slot_goes_through_the_link() {
        let root = Path::new("/t/perfdiff/worktrees/t/p/base");
        let one = OnePath::for_workspace(root, &root.join("benches")).unwrap();
        assert_eq!(one.link, Path::new("/t/perfdiff/worktrees/t/p/live"));
        assert_eq!(
            one.through_link(&root.join("benches")),
            Path::new("/t/perfdiff/worktrees/t/p/live/benches")
        );
        assert_eq!(OnePath::for_workspace(root, root), None);
        let elsewhere = Path::new("/home/me/repo");
        assert_eq!(
            OnePath::for_workspace(elsewhere, &elsewhere.join("b")),
            None
        );
        let spaced = Path::new("/my dir/base");
        assert_eq!(OnePath::for_workspace(spaced, &spaced.join("b")), None);
    }

    #[test]
    fn cargo_s_words_are_read_back_as_the_slot_s_and_package_ids_given_through_the_link() {
        let root = Path::new("/w/head");
        let one = OnePath::for_workspace(root, &root.join("benches")).unwrap();
        let mut message = br#"{"package_id":"path+file:///w/live#lib@0.1.0","manifest_path":"/w/live/benches/Cargo.toml"}"#.to_vec();
        assert!(one.to_slot(&mut message));
        assert_eq!(
            String::from_utf8(message).unwrap(),
            r#"{"package_id":"path+file:///w/head#lib@0.1.0","manifest_path":"/w/head/benches/Cargo.toml"}"#
        );
        assert_eq!(
            one.arg_through_link("path+file:///w/head/benches#b@1.0.0"),
            "path+file:///w/live/benches#b@1.0.0"
        );
        let mut none = b"/w/base/x".to_vec();
        assert!(!one.to_slot(&mut none));
    }

    #[test]
    fn the_link_follows_the_slot_being_built_and_a_patched_file_names_its_own_slot() {
        let dir = tempfile::tempdir().unwrap();
        let (base, head) = (dir.path().join("base"), dir.path().join("head"));
        for slot in [&base, &head] {
            std::fs::create_dir_all(slot.join("benches")).unwrap();
            std::fs::write(slot.join("which"), slot.file_name().unwrap().as_bytes()).unwrap();
        }
        let link = dir.path().join(LINK_NAME);
        for slot in [&base, &head, &base] {
            let one = OnePath::for_workspace(slot, &slot.join("benches")).unwrap();
            one.point().unwrap();
            assert_eq!(std::fs::read_link(&link).unwrap(), *slot);
            assert_eq!(
                std::fs::read(link.join("which")).unwrap(),
                slot.file_name().unwrap().as_bytes()
            );
        }
        // An executable that compiled the link in, hard-linked elsewhere: the copy names the
        // slot, the other name keeps its content.
        let one = OnePath::for_workspace(&head, &head.join("benches")).unwrap();
        let exe = dir.path().join("exe");
        let mut content = b"\x7fELF....".to_vec();
        content.extend_from_slice(link.join("benches").as_os_str().as_bytes());
        std::fs::write(&exe, &content).unwrap();
        let original = dir.path().join("original");
        std::fs::hard_link(&exe, &original).unwrap();
        one.patch_file(&exe).unwrap();
        let patched = std::fs::read(&exe).unwrap();
        assert_eq!(patched.len(), content.len());
        assert!(memchr::memmem::find(&patched, head.as_os_str().as_bytes()).is_some());
        assert_eq!(std::fs::read(&original).unwrap(), content);
        // Something that is not a link under its name is left alone.
        std::fs::remove_file(&link).unwrap();
        std::fs::create_dir(&link).unwrap();
        assert!(one.point().is_err());
        assert!(link.is_dir());
    }
}
