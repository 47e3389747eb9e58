//! Files replaced whole, and directories walked to a bounded depth.

use std::fs;
use std::path::{Path, PathBuf};

/// Copies through a temporary file and a rename, so a process still running the previous copy
/// (Linux refuses to overwrite a running executable) does not break the build.
pub fn copy_atomically(from: &Path, to: &Path) -> std::io::Result<()> {
    let dir = to.parent().unwrap_or(Path::new("."));
    let temporary = tempfile::Builder::new().prefix(".copy-").tempfile_in(dir)?;
    fs::copy(from, temporary.path())?;
    temporary.persist(to).map_err(|e| e.error)?;
    Ok(())
}

/// `root` and every directory below it down to `depth` levels (`root`'s children are level 1),
/// in no particular order, leaving out the directories whose names `skip` (and all below them)
/// and those that cannot be read: the bounded walk that finds what a project keeps by
/// convention (packages with bench targets, `#[bench]` functions in unit tests).
pub fn dirs_within(root: &Path, depth: usize, skip: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let mut found = vec![root.to_path_buf()];
    let mut to_visit = vec![(root.to_path_buf(), 0)];
    while let Some((dir, level)) = to_visit.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
            if !is_dir || level >= depth || skip(&entry.file_name().to_string_lossy()) {
                continue;
            }
            found.push(entry.path());
            to_visit.push((entry.path(), level + 1));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directories_are_walked_to_their_depth_leaving_out_the_skipped() {
        let dir = tempfile::tempdir().unwrap();
        for sub in ["a/b/c", "a/target/x", ".git/y"] {
            fs::create_dir_all(dir.path().join(sub)).unwrap();
        }
        fs::write(dir.path().join("a/file"), "").unwrap();
        let skip = |name: &str| name.starts_with('.') || name == "target";
        let mut found: Vec<PathBuf> = dirs_within(dir.path(), 2, skip)
            .into_iter()
            .map(|d| d.strip_prefix(dir.path()).unwrap().to_path_buf())
            .collect();
        found.sort();
        let expected: Vec<PathBuf> = ["", "a", "a/b"].iter().map(PathBuf::from).collect();
        assert_eq!(found, expected);
    }
}
