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

/// Runs `cargo perfdiff ARGS` (a `--list`), asserting success; returns its stderr. The store of
/// kept builds is off: these tests are about what cargo builds into the workspace's slots.
fn list(repo: &Path, args: &[&str]) -> String {
    let output = cargo_perfdiff_with_env(repo, args, &[NO_SHARED_BUILDS]);
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

/// The note a run printed for its build of `side` (`"base"` or `"head"`).
fn build_note<'a>(stderr: &'a str, side: &str) -> &'a str {
    stderr
        .lines()
        .find(|line| line.contains(&format!("built {side} ")))
        .unwrap_or_else(|| panic!("no build note for {side}: {stderr}"))
}

/// Two clones of one repository building into one target directory (the suite's, as a global
/// `CARGO_TARGET_DIR` would have them): the second comparison of the same content builds
/// nothing, even once the first clone's state is gone and under other commit ids, and measures
/// in its own checkouts; another content is built.
#[test]
fn a_clone_of_a_repository_takes_the_builds_another_clone_kept_of_the_same_content() {
    let _guard = measuring_lock();
    let (dir, first) = demo_repo(&strong_changes());
    let second = dir.path().join("second clone");
    git_ok(
        dir.path(),
        &["clone", "--quiet", first.to_str().unwrap(), "second clone"],
    );
    let args = compare_json("HEAD~1", "HEAD", &["hash/checksum"]);
    let output = cargo_perfdiff(&first, &args);
    assert!(output.status.success(), "{}", all_output(&output));
    let base = executables(&first, &rev_parse(&first, "HEAD~1"));
    let head = executables(&first, &rev_parse(&first, "HEAD"));
    // Nothing of the first clone's is left to read: its worktrees and kept builds are gone.
    std::fs::remove_dir_all(state_dir(&first)).unwrap();

    // The same trees under other commit ids.
    git_ok(
        &second,
        &["commit", "--quiet", "--amend", "-m", "another message"],
    );
    let output = cargo_perfdiff(&second, &args);
    let err = stderr(&output);
    assert!(output.status.success(), "{err}");
    for side in ["base", "head"] {
        assert!(build_note(&err, side).ends_with("up to date"), "{err}");
    }
    // Measured in the second clone's own checkouts (the forks' working directories), with the
    // first clone's executables.
    measured_entry(&json_report(&output), "hash/checksum", 2);
    assert_identical(&executables(&second, &rev_parse(&second, "HEAD~1")), &base);
    assert_identical(&executables(&second, &rev_parse(&second, "HEAD")), &head);
    let kept = std::fs::read_to_string(
        state_dir(&second)
            .join("bin")
            .join(rev_parse(&second, "HEAD"))
            .join("perfdiff-build.json"),
    )
    .unwrap();
    let first_state = state_dir(&first).to_string_lossy().into_owned();
    assert!(!kept.contains(&first_state), "{kept}");

    // Another content is built: the working tree with a line no build had before.
    let unique = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let library = second.join("src/lib.rs");
    let text = std::fs::read_to_string(&library).unwrap();
    std::fs::write(&library, format!("{text}\n// Edited at {unique}.\n")).unwrap();
    let output = cargo_perfdiff(&second, &["--list"]);
    let err = stderr(&output);
    assert!(output.status.success(), "{err}");
    assert!(build_note(&err, "head").contains("compiled"), "{err}");
}
