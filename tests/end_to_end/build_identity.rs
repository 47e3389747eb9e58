//! Identical source builds to identical executables, whatever the revisions are called and
//! wherever their checkouts live; different source never gets the other revision's executable.
//!
//! These run the real binary (`cargo perfdiff … --list` builds both sides and lists, measuring
//! nothing) on a demo repository, and compare the bench executables each side's build kept in
//! the state directory (`bin/<commit>`, `bin/working-tree-<slot>`).

use crate::support;

use std::path::{Path, PathBuf};

use support::*;

/// The bench executables kept for one side, by file name, with their bytes.
fn executables(repo: &Path, bin_dir_name: &str) -> Vec<(String, Vec<u8>)> {
    let dir = state_dir(repo).join("bin").join(bin_dir_name);
    let mut found: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.is_file() && path.extension().is_none_or(|e| e != "json"))
        .map(|path: PathBuf| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&path).unwrap())
        })
        .collect();
    found.sort();
    assert!(!found.is_empty(), "no executable in {}", dir.display());
    found
}

/// The executables directory of the working tree's build (named after the slot it was built in).
fn working_tree_bin_dir(repo: &Path) -> String {
    let bin = state_dir(repo).join("bin");
    std::fs::read_dir(&bin)
        .unwrap()
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .find(|name| name.starts_with("working-tree-"))
        .unwrap_or_else(|| panic!("no working-tree build in {}", bin.display()))
}

/// Runs `cargo perfdiff ARGS` (a `--list`), asserting success; returns its stderr.
fn list(repo: &Path, args: &[&str]) -> String {
    let output = cargo_perfdiff(repo, args);
    assert!(
        output.status.success(),
        "cargo perfdiff {args:?} failed: {}",
        all_output(&output)
    );
    stderr(&output)
}

/// Asserts that both sides' executables are byte for byte the same, naming the first that is not.
fn assert_identical(left: &[(String, Vec<u8>)], right: &[(String, Vec<u8>)]) {
    assert_eq!(left.len(), right.len());
    for ((name, bytes), (other_name, other_bytes)) in left.iter().zip(right) {
        assert_eq!(name, other_name, "executable names differ");
        assert!(
            bytes == other_bytes,
            "{name}: the two sides' executables differ ({} and {} bytes)",
            bytes.len(),
            other_bytes.len()
        );
    }
}

#[test]
fn a_comment_only_commit_and_a_code_free_edit_build_byte_identical_executables() {
    let _guard = measuring_lock();
    let (_dir, repo) = demo_repo(&Default::default());
    commit_a_comment_in_the_library(&repo);

    list(&repo, &["HEAD~1", "HEAD", "--list"]);
    let before = executables(&repo, &rev_parse(&repo, "HEAD~1"));
    let after = executables(&repo, &rev_parse(&repo, "HEAD"));
    assert_identical(&before, &after);

    // The working tree against HEAD: an uncommitted edit that changes no code (a comment in the
    // library, a new note beside it). A comment in the bench file itself would change the bench
    // crate's source hash, which rustc hashes into ThinLTO's names of promoted local symbols:
    // the user's own build then differs too, in the symbol table only (docs/design/layouts.md).
    let library = repo.join("src/lib.rs");
    let text = std::fs::read_to_string(&library).unwrap();
    std::fs::write(&library, format!("{text}\n// Only a comment.\n")).unwrap();
    std::fs::write(repo.join("NOTES.md"), "Untracked notes.\n").unwrap();
    list(&repo, &["--list"]);
    let committed = executables(&repo, &rev_parse(&repo, "HEAD"));
    let working_tree = executables(&repo, &working_tree_bin_dir(&repo));
    assert_identical(&committed, &working_tree);
}

#[test]
fn a_checkout_older_than_the_other_sides_build_still_gets_its_own_executable() {
    let _guard = measuring_lock();
    let (_dir, repo) = demo_repo(&Default::default());
    let base = rev_parse(&repo, "HEAD~1");
    let head = rev_parse(&repo, "HEAD");

    list(&repo, &["HEAD~1", "HEAD", "--list"]);
    let base_first = executables(&repo, &base);
    let head_first = executables(&repo, &head);
    assert_ne!(
        base_first, head_first,
        "different code, different executables"
    );

    // Without base's kept build, base is built again, after head: the sides swap slots, so each
    // is built where its commit sits, and base's checkout was written before head's build, so by
    // modification times alone cargo would take it for fresh and copy head's executable.
    std::fs::remove_dir_all(state_dir(&repo).join("bin").join(&base)).unwrap();
    let rebuilt = list(&repo, &["HEAD", "HEAD~1", "--list"]);
    assert!(
        rebuilt.contains("compiled"),
        "base was not built again: {rebuilt}"
    );
    assert_identical(&executables(&repo, &base), &base_first);
    assert_identical(&executables(&repo, &head), &head_first);

    // The same comparison again reuses both builds as they are: cargo does not even run.
    let again = list(&repo, &["HEAD~1", "HEAD", "--list"]);
    for side in ["base", "head"] {
        let note = again
            .lines()
            .find(|line| line.contains(&format!("built {side} ")))
            .unwrap_or_else(|| panic!("no build note for {side}: {again}"));
        assert!(note.ends_with("up to date"), "{again}");
    }
}
