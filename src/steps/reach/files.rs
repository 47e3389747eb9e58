//! The files a benchmark read, compared between the two checkouts.
//!
//! Why: a benchmark whose code is the same on both sides still measures something else when the
//! input it reads at run time differs (a data file beside its package, a fixture it parses). A
//! file inside the checkout is compared with the file at the same place in the other checkout,
//! byte for byte (a directory by its listing); a file outside both checkouts is the machine's
//! (`/proc`, `/sys`, the shared libraries, the dynamic loader's cache) and the same for both
//! sides, which run on this machine; a file in the build's own directories (another build's
//! output read at run time) cannot be paired soundly, so the benchmark is measured when it opened
//! one. (A path there whose existence it only asked about is the same path for both sides:
//! criterion looks for its output directory that way.) That holds inside the checkout too: the
//! directory the executables run from (`<workspace>/target`, cargo-perfdiff's own) holds
//! each side's executables, so its listing differs, and a benchmark that resolves its own path
//! (uutils' `uucore`) looks at it. A file of the user's own working tree
//! that is in neither checkout is no revision's: both sides read that one file, whichever
//! revision it belongs to (rust-lexical's benchmarks find their data from their executable's path, which
//! leads from the target directory to the working tree's `data/`, not a checkout's). Such a file
//! is compared as the two revisions' copies at its place in each checkout: the same, the two
//! sides would read the same input either way; different, the benchmark is measured, and the
//! reason says that both sides read the working tree's.
//!
//! A path inside a `.git` of the checkout (its own repository, or a submodule's) is no
//! revision's either: each checkout is a repository of cargo-perfdiff's own, whose index and
//! reflog record when its files were written, so they differ between two checkouts of the same
//! commit. A benchmark that walks a directory holding a submodule (wasm-tools' `parse/tests`
//! walks `tests/`, the spec test suite a submodule there) asks each of those files whether it
//! is a directory. Only asked about, such a path is compared by what is there (a file, a
//! directory, nothing); opened, by its content, as any other.
//!
//! Any other path of the checkout only asked about (its metadata, its existence) is compared by
//! what asking tells (`same_metadata`: its kind, size, permissions, a link's target), not by its
//! content, which the program never saw: a walker that runs `statx` on every path of the tree it
//! walks (fd before #1914) read no changed file whose size is the same. One that differs there is
//! said to be looked at, not read.

use std::path::{Component, Path, PathBuf};

/// Where each side's files are: its checkout, and the directories of its build whose files are
/// not the checkout's (the target directory, the state directory).
#[derive(Debug, Clone)]
pub struct Checkouts<'a> {
    /// Base's checkout: the traced benchmark ran there.
    pub base: &'a Path,
    /// Head's checkout.
    pub head: &'a Path,
    /// Files the trace may open that say nothing about the benchmark's input: its own
    /// executable and what the build keeps of it.
    pub own_files: &'a [PathBuf],
    /// Directories whose files are build output (read at run time they cannot be paired with
    /// head's): a read there leaves the benchmark undecided.
    pub build_dirs: &'a [PathBuf],
    /// The user's working tree (the root of the repository the command ran in): a file opened
    /// there, in neither checkout nor a build directory, is compared as the two checkouts'
    /// copies at its place, and leaves the benchmark undecided when they differ.
    pub working_tree: Option<&'a Path>,
}

/// What comparing the read files found.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FileComparison {
    /// Files of the checkout it read that are the same on both sides.
    pub same: usize,
    /// Files of the checkout it read that differ (or exist on one side only), relative to it.
    pub changed: Vec<String>,
    /// Of `changed`, those it only asked about (`stat`, `access`, a failed open), which differ
    /// in what that tells ([`same_metadata`]): their size, kind or permissions.
    pub looked_at: Vec<String>,
    /// Why the files cannot be compared (a read of build output, an unreadable file): then it
    /// is measured.
    pub undecided: Option<String>,
}

/// Compares every file in `read` that lies in base's checkout with head's file at the same
/// place. Paths are made absolute by the trace; `..` components are resolved lexically.
/// `read` pairs each path with whether it was opened (true) or only probed (its metadata or
/// existence asked).
pub fn compare<'p>(
    read: impl IntoIterator<Item = (&'p Path, bool)>,
    checkouts: &Checkouts<'_>,
) -> FileComparison {
    let mut result = FileComparison::default();
    for (path, opened) in read.into_iter().map(|(p, opened)| (normalise(p), opened)) {
        if checkouts.own_files.iter().any(|own| normalise(own) == path) {
            continue;
        }
        let base = normalise(checkouts.base);
        // Build output inside the checkout first (the executables' run place lies there); a
        // build directory that holds the checkouts (the target directory their worktrees are
        // in) only after them.
        let inside = checkouts.build_dirs.iter().find(|dir| {
            let dir = normalise(dir);
            dir.starts_with(&base) && path.starts_with(&dir)
        });
        let build_dir = inside.or_else(|| {
            (!path.starts_with(&base)).then_some(())?;
            checkouts
                .build_dirs
                .iter()
                .find(|dir| path.starts_with(normalise(dir)))
        });
        if let Some(dir) = build_dir {
            if opened {
                result.undecided.get_or_insert(format!(
                    "it reads {}, build output in {}",
                    path.display(),
                    dir.display()
                ));
            }
        } else if let Ok(relative) = path.strip_prefix(&base) {
            let head = checkouts.head.join(relative);
            let alike = match (opened, in_git_dir(relative)) {
                (true, _) => same_content(&path, &head),
                (false, true) => Ok(same_kind(&path, &head)),
                (false, false) => Ok(same_metadata(&path, &head)),
            };
            match alike {
                Ok(true) => result.same += 1,
                Ok(false) => {
                    let shown = relative.display().to_string();
                    if !opened {
                        result.looked_at.push(shown.clone());
                    }
                    result.changed.push(shown);
                }
                Err(why) => {
                    result.undecided.get_or_insert(why);
                }
            }
        } else if let Some(relative) = opened
            .then(|| in_working_tree(&path, checkouts.working_tree))
            .flatten()
        {
            let in_checkouts = [checkouts.base, checkouts.head].map(|c| c.join(relative));
            match same_content(&in_checkouts[0], &in_checkouts[1]) {
                Ok(true) => result.same += 1,
                Ok(false) => {
                    result.undecided.get_or_insert(format!(
                        "it reads {}, in your working tree and in neither checkout (a path found \
                         from its executable's location?), and the revisions' copies of {} \
                         differ: both sides would read the working tree's",
                        path.display(),
                        relative.display()
                    ));
                }
                Err(why) => {
                    result.undecided.get_or_insert(why);
                }
            }
        }
    }
    for paths in [&mut result.changed, &mut result.looked_at] {
        paths.sort();
        paths.dedup();
    }
    result
}

/// `path` relative to the user's working tree `tree`, when it lies there.
fn in_working_tree<'p>(path: &'p Path, tree: Option<&Path>) -> Option<&'p Path> {
    path.strip_prefix(normalise(tree?)).ok()
}

/// Whether the files (or directories, by their listing) at `base` and `head` are alike: both
/// absent counts as alike (a file the benchmark looked for and did not find), one absent as a
/// difference; an error reading one that is there is `Err`.
fn same_content(base: &Path, head: &Path) -> Result<bool, String> {
    let kind = |path: &Path| std::fs::metadata(path).ok().map(|m| m.is_dir());
    match (kind(base), kind(head)) {
        (None, None) => Ok(true),
        (Some(true), Some(true)) => Ok(listing(base)? == listing(head)?),
        (Some(false), Some(false)) => Ok(read(base)? == read(head)?),
        _ => Ok(false),
    }
}

/// Whether `relative` (a path in a checkout) is a `.git` or lies in one: the checkout's own
/// repository or a submodule's, git's records of that checkout rather than the revision's files.
fn in_git_dir(relative: &Path) -> bool {
    relative.components().any(|c| c.as_os_str() == ".git")
}

/// Whether what a program that only asks about a path (`stat`, `access`, `readlink`, a failed
/// open) can learn of it is alike at `base` and `head`: what is there (a file, a directory, a
/// link, nothing), a file's size and permissions, a directory's count of links (its
/// subdirectories), a link's target. Its content is not among it: a file whose text changed but
/// not its size is alike (fd's walker, before #1914, ran `statx` on every path of the tree it
/// walked, and every changed file of the checkout was called read). When and where the file was
/// written (its times, its inode) differ between any two checkouts and are left out, as they are
/// for a file opened.
fn same_metadata(base: &Path, head: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let seen = |path: &Path| {
        let link = std::fs::symlink_metadata(path).ok()?;
        let target = link.is_symlink().then(|| std::fs::read_link(path).ok());
        let followed = std::fs::metadata(path).ok().map(|m| {
            let links = if m.is_dir() { m.nlink() } else { 0 };
            (
                m.file_type(),
                m.len() * u64::from(!m.is_dir()),
                m.mode(),
                links,
            )
        });
        Some((link.file_type(), target, followed))
    };
    seen(base) == seen(head)
}

/// Whether the same kind of thing (a file, a directory, nothing) is at `base` and `head`.
fn same_kind(base: &Path, head: &Path) -> bool {
    let kind = |path: &Path| std::fs::symlink_metadata(path).ok().map(|m| m.file_type());
    kind(base) == kind(head)
}

fn read(path: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(path)
        .map_err(|e| format!("it reads {}, which cannot be read: {e}", path.display()))
}

/// The names in directory `path`, sorted.
fn listing(path: &Path) -> Result<Vec<std::ffi::OsString>, String> {
    let entries = std::fs::read_dir(path)
        .map_err(|e| format!("it lists {}, which cannot be read: {e}", path.display()))?;
    let mut names: Vec<_> = entries.filter_map(|e| Some(e.ok()?.file_name())).collect();
    names.sort();
    Ok(names)
}

/// `path` with `.` and `..` resolved lexically (the trace names what the process asked for).
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Sides {
        _dir: tempfile::TempDir,
        base: PathBuf,
        head: PathBuf,
        target: PathBuf,
    }

    fn sides(files: &[(&str, Option<&str>, Option<&str>)]) -> Sides {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().join("base");
        let head = dir.path().join("head");
        let target = dir.path().join("target");
        for root in [&base, &head, &target] {
            std::fs::create_dir_all(root.join("data")).unwrap();
        }
        for (name, in_base, in_head) in files {
            for (root, content) in [(&base, in_base), (&head, in_head)] {
                if let Some(content) = content {
                    std::fs::write(root.join(name), content).unwrap();
                }
            }
        }
        Sides {
            _dir: dir,
            base,
            head,
            target,
        }
    }

    /// `read` (each path with whether it was opened) compared between `sides`, the user's
    /// working tree at `tree`.
    fn compare_with(sides: &Sides, tree: Option<&Path>, read: &[(&Path, bool)]) -> FileComparison {
        let build_dirs = [sides.target.clone()];
        let checkouts = Checkouts {
            base: &sides.base,
            head: &sides.head,
            own_files: &[],
            build_dirs: &build_dirs,
            working_tree: tree,
        };
        compare(read.iter().copied(), &checkouts)
    }

    fn compare_in(sides: &Sides, read: &[PathBuf]) -> FileComparison {
        let opened: Vec<(&Path, bool)> = read.iter().map(|p| (p.as_path(), true)).collect();
        compare_with(sides, None, &opened)
    }

    #[test]
    fn a_file_of_the_checkout_is_compared_with_head_s() {
        let s = sides(&[
            ("data/same.txt", Some("a"), Some("a")),
            ("data/input.txt", Some("1 2 3"), Some("1 2 4")),
        ]);
        let read = [s.base.join("data/same.txt"), s.base.join("data/input.txt")];
        let found = compare_in(&s, &read);
        assert_eq!(found.same, 1);
        assert_eq!(found.changed, vec!["data/input.txt".to_string()]);
        assert_eq!(found.undecided, None);
    }

    #[test]
    fn a_file_on_one_side_only_is_a_change_and_absent_on_both_is_not() {
        let s = sides(&[("data/new.txt", None, Some("x"))]);
        let read = [s.base.join("data/new.txt"), s.base.join("data/nowhere.txt")];
        let found = compare_in(&s, &read);
        assert_eq!(found.changed, vec!["data/new.txt".to_string()]);
        assert_eq!(found.same, 1);
    }

    #[test]
    fn a_directory_is_compared_by_its_listing() {
        let s = sides(&[("data/a", Some("1"), Some("1"))]);
        std::fs::write(s.head.join("data/b"), "2").unwrap();
        let found = compare_in(&s, &[s.base.join("data")]);
        assert_eq!(found.changed, vec!["data".to_string()]);
    }

    #[test]
    fn the_machine_s_files_are_alike_and_build_output_leaves_it_undecided() {
        let s = sides(&[]);
        let read = [
            PathBuf::from("/proc/self/maps"),
            s.target.join("out/gen.bin"),
        ];
        let found = compare_in(&s, &read);
        assert_eq!((found.same, found.changed.len()), (0, 0));
        let why = found.undecided.expect("build output is undecided");
        assert!(why.contains("gen.bin"), "{why}");
    }

    #[test]
    fn dot_dot_in_a_read_path_is_resolved_before_pairing() {
        let s = sides(&[("data/input.txt", Some("1"), Some("2"))]);
        let read = [s.base.join("data/../data/input.txt")];
        assert_eq!(
            compare_in(&s, &read).changed,
            vec!["data/input.txt".to_string()]
        );
    }

    #[test]
    fn a_path_of_the_build_only_probed_is_the_same_for_both_sides() {
        let s = sides(&[]);
        let probed = s.target.join("release");
        let found = compare_with(&s, None, &[(probed.as_path(), false)]);
        assert_eq!(found, FileComparison::default());
    }

    /// `sides`' checkouts with `build_dirs`, no working tree and no files of ours.
    fn with_build_dirs<'a>(sides: &'a Sides, build_dirs: &'a [PathBuf]) -> Checkouts<'a> {
        Checkouts {
            base: &sides.base,
            head: &sides.head,
            own_files: &[],
            build_dirs,
            working_tree: None,
        }
    }

    /// The checkouts are worktrees in the user's target directory, one of the build directories:
    /// their files are still the revisions', compared, and only the run place inside a checkout
    /// is build output.
    #[test]
    fn a_build_directory_that_holds_the_checkouts_leaves_their_files_compared() {
        let s = sides(&[("data/input.txt", Some("base"), Some("head"))]);
        let holding = s.base.parent().unwrap().to_path_buf();
        let build_dirs = [holding, s.base.join("target")];
        let checkouts = with_build_dirs(&s, &build_dirs);
        let read = s.base.join("data/input.txt");
        let found = compare([(read.as_path(), true)], &checkouts);
        assert_eq!(found.changed, ["data/input.txt"], "{found:?}");
        assert_eq!(found.undecided, None);
        // Outside the checkouts, the holding directory's files are build output as ever.
        let other = s.target.join("out.bin");
        let found = compare([(other.as_path(), true)], &checkouts);
        assert!(
            found
                .undecided
                .is_some_and(|why| why.contains("build output"))
        );
    }

    #[test]
    fn the_run_place_in_the_checkout_is_build_output_not_the_revision_s_files() {
        // Base's executable runs from `<checkout>/target/release/deps`, head's deps directory is
        // empty while selection traces base: a benchmark that resolves its own path looks at
        // each directory up to it (uutils' `uucore`, `fs::canonicalize(current_exe())`).
        let s = sides(&[]);
        let deps = |side: &Path| side.join("target/release/deps");
        std::fs::create_dir_all(deps(&s.head)).unwrap();
        std::fs::create_dir_all(deps(&s.base)).unwrap();
        std::fs::write(deps(&s.base).join("bench-1234"), "base's executable").unwrap();
        std::fs::write(deps(&s.base).join("data.bin"), "build output").unwrap();
        let build_dirs = [s.target.clone(), s.base.join("target")];
        let checkouts = with_build_dirs(&s, &build_dirs);
        let probed = deps(&s.base);
        let found = compare([(probed.as_path(), false)], &checkouts);
        assert_eq!(found, FileComparison::default());
        let opened = deps(&s.base).join("data.bin");
        let why = compare([(opened.as_path(), true)], &checkouts).undecided;
        assert!(why.is_some_and(|why| why.contains("build output")));
    }

    /// wasm-tools' `parse/tests` walks `tests/`, which holds the spec test suite as a
    /// submodule: in each checkout the submodule's `.git` is a repository of cargo-perfdiff's
    /// own, whose index and reflog differ between the two checkouts of one commit. Asked only
    /// whether they are directories, they were "changed files", and the benchmark measured
    /// across a version bump.
    #[test]
    fn a_checkout_s_own_git_records_only_asked_about_are_compared_by_kind() {
        let s = sides(&[]);
        for (root, stamp) in [(&s.base, "1"), (&s.head, "2")] {
            let git = root.join("data/suite/.git");
            std::fs::create_dir_all(git.join("logs")).unwrap();
            std::fs::write(git.join("index"), stamp).unwrap();
            std::fs::write(git.join("logs/HEAD"), stamp).unwrap();
        }
        std::fs::write(s.base.join("data/suite/.git/ORIG_HEAD"), "x").unwrap();
        let git = s.base.join("data/suite/.git");
        let (index, log, orig) = (
            git.join("index"),
            git.join("logs/HEAD"),
            git.join("ORIG_HEAD"),
        );
        let probed = compare_with(&s, None, &[(&git, false), (&index, false), (&log, false)]);
        assert_eq!((probed.same, probed.changed.len()), (3, 0), "{probed:?}");
        // One side only: still a difference.
        let one_side = compare_with(&s, None, &[(&orig, false)]);
        assert_eq!(one_side.changed, ["data/suite/.git/ORIG_HEAD"]);
        // Opened, its content counts, as any file's.
        let opened = compare_with(&s, None, &[(&index, true)]);
        assert_eq!(opened.changed, ["data/suite/.git/index"]);
        // A file of the checkout only asked about is compared by what asking tells.
        for (root, text) in [(&s.base, "1"), (&s.head, "22")] {
            std::fs::write(root.join("data/input.txt"), text).unwrap();
        }
        let input = s.base.join("data/input.txt");
        let data = compare_with(&s, None, &[(&input, false)]);
        assert_eq!(data.changed, ["data/input.txt"]);
        assert_eq!(data.looked_at, ["data/input.txt"]);
    }

    /// fd's walker before #1914 ran `statx` on every path it walked: a file whose text changed
    /// but not its size told it nothing new; another size, permissions or kind does, and is said
    /// to be looked at; opened, its content counts.
    #[test]
    fn a_file_only_asked_about_is_compared_by_what_asking_tells() {
        use std::os::unix::fs::PermissionsExt;
        let s = sides(&[
            ("data/same_size.txt", Some("one"), Some("two")),
            ("data/longer.txt", Some("one"), Some("three")),
            ("data/mode.txt", Some("one"), Some("one")),
            ("data/kind", Some("a file"), None),
        ]);
        std::fs::create_dir_all(s.head.join("data/kind")).unwrap();
        let executable = std::fs::Permissions::from_mode(0o755);
        std::fs::set_permissions(s.head.join("data/mode.txt"), executable).unwrap();
        let probe = |name: &str, opened: bool| {
            let path = s.base.join(name);
            compare_with(&s, None, &[(path.as_path(), opened)])
        };
        let same = probe("data/same_size.txt", false);
        assert_eq!((same.same, same.changed.len()), (1, 0), "{same:?}");
        let opened = probe("data/same_size.txt", true);
        assert_eq!(opened.changed, ["data/same_size.txt"]);
        assert!(opened.looked_at.is_empty(), "{opened:?}");
        for name in ["data/longer.txt", "data/mode.txt", "data/kind"] {
            let found = probe(name, false);
            assert_eq!(
                (found.changed.clone(), found.looked_at.clone()),
                (vec![name.to_string()], vec![name.to_string()]),
                "{found:?}"
            );
        }
    }

    /// A directory only asked about: its kind and its subdirectories' count, not its listing.
    #[test]
    fn a_directory_only_asked_about_is_compared_by_its_subdirectories_count() {
        let s = sides(&[("data/extra.txt", None, Some("x"))]);
        let probe = |opened: bool| {
            let path = s.base.join("data");
            compare_with(&s, None, &[(path.as_path(), opened)])
        };
        let data = probe(false);
        assert_eq!((data.same, data.changed.len()), (1, 0), "{data:?}");
        assert_eq!(probe(true).changed, ["data"]);
        std::fs::create_dir_all(s.head.join("data/sub")).unwrap();
        assert_eq!(probe(false).looked_at, ["data"]);
    }

    #[test]
    fn a_file_of_the_working_tree_is_compared_as_the_revisions_copies() {
        let s = sides(&[
            ("data/same.txt", Some("1"), Some("1")),
            ("data/input.txt", Some("1"), Some("2")),
        ]);
        let tree = s._dir.path().join("work");
        std::fs::create_dir_all(tree.join("data")).unwrap();
        for name in ["data/same.txt", "data/input.txt"] {
            std::fs::write(tree.join(name), "1").unwrap();
        }
        let read = |name: &str, opened: bool| {
            let path = tree.join(name);
            compare_with(&s, Some(&tree), &[(path.as_path(), opened)])
        };
        let same = read("data/same.txt", true);
        assert_eq!((same.same, same.undecided), (1, None));
        let why = read("data/input.txt", true)
            .undecided
            .expect("the revisions' copies differ");
        assert!(
            why.contains("working tree") && why.contains("input.txt"),
            "{why}"
        );
        // Only asked about: as before.
        assert_eq!(read("data/input.txt", false), FileComparison::default());
    }
}
