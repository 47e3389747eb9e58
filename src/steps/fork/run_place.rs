//! Where a side's executables run from: inside that side's own checkout, where `cargo bench`
//! in the checkout would have put them (`<workspace>/target/release/deps/`).
//!
//! Why: a benchmark may find its data from its executable's path. rust-lexical walks up from
//! `std::env::current_exe()` to the nearest directory named `target` and reads `../data`; under
//! `cargo bench` in a checkout that is the checkout's own data. Run from cargo-perfdiff's own
//! directories (inside the user's target directory, next to the user's working tree) both sides
//! read the user's working tree, whatever the two revisions' data are: a pull request that
//! changes the data is compared on one copy of it (docs/design/field-trials.md, session 12).
//! So the forks', the traces' and the probes' executables are placed in the checkout's
//! workspace, in a `target` directory of cargo-perfdiff's own: marked as ours, with a
//! `CACHEDIR.TAG` so that the build's freshness scan and backup tools leave it out. The two
//! slots' paths have one length, so both sides' executables have paths of one length too (no
//! difference in `argv[0]` or the auxiliary vector the user's own build would not have).
//!
//! A workspace whose checkout already holds a `target` that is not ours (a tracked directory of
//! that name) keeps the former place, cargo-perfdiff's own directory: nothing of the checkout is
//! ever overwritten.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// The file that marks a checkout's `target` directory as cargo-perfdiff's.
const MARKER: &str = ".cargo-perfdiff-run";

const CACHEDIR_TAG: &str = "Signature: 8a477f597d28d172789f06886806bc55\n\
# This directory holds cargo-perfdiff's copies of bench executables, run from here.\n";

/// `<workspace>/target/release`, made ours (created and marked) if need be: the directory a
/// side's executables run from (bench executables in its `deps`, programs in it, as cargo puts
/// them). `None` when `<workspace>/target` exists and is not ours, or cannot be made.
pub fn in_checkout(workspace: &Path) -> Option<PathBuf> {
    let target = workspace.join("target");
    let ours = target.join(MARKER);
    let deps = target.join("release").join("deps");
    if ours.is_file() {
        return fs::create_dir_all(&deps)
            .ok()
            .map(|()| target.join("release"));
    }
    if target.exists() {
        return None;
    }
    let made = (|| -> io::Result<()> {
        fs::create_dir_all(&deps)?;
        fs::write(target.join("CACHEDIR.TAG"), CACHEDIR_TAG)?;
        fs::write(
            &ours,
            "cargo-perfdiff runs executables from here; safe to delete\n",
        )
    })();
    made.ok().map(|()| target.join("release"))
}

/// [`in_checkout`] of both sides' workspaces (base's, head's): both, or neither, so that the
/// two sides' executables always run from places of one kind and one path length.
pub fn in_checkouts(workspaces: [&Path; 2]) -> Option<[PathBuf; 2]> {
    match workspaces.map(in_checkout) {
        [Some(base), Some(head)] => Some([base, head]),
        _ => None,
    }
}

/// `executable` at `release/deps/<its name>`: a hard link (a copy where the two are on different
/// file systems), replacing whatever was there.
pub fn place(release: &Path, executable: &Path) -> io::Result<PathBuf> {
    let name = executable.file_name().unwrap_or(executable.as_os_str());
    let placed = release.join("deps").join(name);
    let _ = fs::remove_file(&placed);
    if fs::hard_link(executable, &placed).is_err() {
        crate::util::fs::copy_atomically(executable, &placed)?;
    }
    Ok(placed)
}

/// The `target` directory of ours that `executable` runs from (`<workspace>/target`, holding it
/// in `release/deps/`, [`in_checkout`]); `None` when it runs from elsewhere. Its files are
/// cargo-perfdiff's, and differ between the sides (each side's executables, placed as each run
/// needs them), though it lies in the checkout: a benchmark that resolves its own path
/// (`fs::canonicalize(current_exe())`, as uutils' `uucore` does to find its locales) looks at
/// each directory up to it, and those are build output, not the revision's files.
pub fn ours_of(executable: &Path) -> Option<PathBuf> {
    let deps = executable.parent()?;
    let target = deps.parent()?.parent()?;
    let ours = deps.ends_with("target/release/deps") && target.join(MARKER).is_file();
    ours.then(|| target.to_path_buf())
}

/// `executable` placed beside `current`, when `current` runs from a place of ours in a checkout
/// (`<workspace>/target/release/deps/`, [`in_checkout`]): another build of the same target (the
/// one with line tables that `--explain` counts) then finds what the measured one found from its
/// path. `None` when `current` is elsewhere or the placing fails: run it where it is.
pub fn beside(current: &Path, executable: &Path) -> Option<PathBuf> {
    let deps = current.parent()?;
    let release = deps.parent()?;
    let target = release.parent()?;
    let ours = deps.ends_with("target/release/deps") && target.join(MARKER).is_file();
    ours.then(|| place(release, executable).ok()).flatten()
}

/// Removes `<workspace>/target` when it is ours ([`in_checkout`]).
pub fn remove(workspace: &Path) {
    let target = workspace.join("target");
    if target.join(MARKER).is_file() {
        let _ = fs::remove_dir_all(&target);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn another_build_is_placed_beside_an_executable_only_in_a_place_of_ours() {
        let dir = tempfile::tempdir().unwrap();
        let release = in_checkout(&dir.path().join("ws")).unwrap();
        let measured = place(&release, &write(dir.path(), "bench-1234", b"measured")).unwrap();
        let tables = write(
            &dir.path().join("line-tables"),
            "bench-1234",
            b"with line tables",
        );
        assert_eq!(ours_of(&measured), release.parent().map(Path::to_path_buf));
        let placed = beside(&measured, &tables).unwrap();
        assert_eq!(placed, measured, "the same name, in the same place");
        assert_eq!(fs::read(&placed).unwrap(), b"with line tables");
        // An executable elsewhere (cargo-perfdiff's own directory, a `target` not ours).
        let elsewhere = write(&dir.path().join("own/target/release/deps"), "bench-1", b"x");
        assert_eq!(beside(&elsewhere, &tables), None);
        assert_eq!(ours_of(&elsewhere), None);
        assert_eq!(beside(Path::new("bench"), &tables), None);
    }

    fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
        fs::create_dir_all(dir).unwrap();
        fs::write(dir.join(name), bytes).unwrap();
        dir.join(name)
    }

    #[test]
    fn a_checkout_s_target_is_made_ours_and_removed_with_what_it_holds() {
        let dir = tempfile::tempdir().unwrap();
        let release = in_checkout(dir.path()).unwrap();
        assert_eq!(release, dir.path().join("target/release"));
        assert!(dir.path().join("target/CACHEDIR.TAG").is_file());
        let exe = dir.path().join("bench-1234");
        fs::write(&exe, b"code").unwrap();
        let placed = place(&release, &exe).unwrap();
        assert_eq!(placed, dir.path().join("target/release/deps/bench-1234"));
        assert_eq!(fs::read(&placed).unwrap(), b"code");
        // Placed again: replaced, not an error.
        assert_eq!(place(&release, &exe).unwrap(), placed);
        assert_eq!(in_checkout(dir.path()), Some(release), "ours: used again");
        remove(dir.path());
        assert!(!dir.path().join("target").exists());
        assert!(exe.is_file(), "the original is never touched");
    }

    #[test]
    fn a_target_directory_that_is_not_ours_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("target")).unwrap();
        fs::write(dir.path().join("target/notes.txt"), "tracked").unwrap();
        assert_eq!(in_checkout(dir.path()), None);
        remove(dir.path());
        assert_eq!(
            fs::read_to_string(dir.path().join("target/notes.txt")).unwrap(),
            "tracked"
        );
        assert!(!dir.path().join("target").join(MARKER).exists());
    }
}
