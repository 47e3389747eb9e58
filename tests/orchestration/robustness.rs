//! Robustness (issue #7) on the deterministic fixture: worktrees damaged between runs (deleted
//! and truncated files, stray files, a lost index, a `.git` file left by a pruned linked
//! worktree, `git worktree prune` in the user's repository) are detected and rebuilt, and the
//! next run measures the right code; a revision that does not build is named with cargo's
//! diagnostics and the other side's build is kept; benchmarks on one side only, or moved to
//! another bench target, are reported and never dropped. Moved from `end_to_end`'s
//! `robustness_worktrees`, `robustness_build` and `robustness_forks`.

use crate::bench_fixture::*;
use crate::support;

use std::path::Path;

use support::*;

fn run_ok(repo: &Path) -> serde_json::Value {
    let output = fixture_perfdiff(repo, &parent_vs_head_json(&["hash/steady"]));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_no_panic_text(&stderr(&output));
    json_report(&output)
}

fn assert_slot_holds(repo: &Path, slot: &Path, rev: &str) {
    for file in ["src/lib.rs", "benches/demo.rs", "Cargo.toml"] {
        let committed = git_ok(repo, &["show", &format!("{rev}:{file}")]);
        let on_disk = std::fs::read_to_string(slot.join(file))
            .unwrap_or_else(|e| panic!("{}: {e}", slot.join(file).display()));
        assert_eq!(on_disk, committed, "{file} in {}", slot.display());
    }
}

#[test]
fn damaged_worktrees_are_detected_and_rebuilt() {
    let (_dir, repo) = fixture_repo(&strong());
    seed_criterion_results(&repo);
    let before = RepoState::capture(&repo);
    run_ok(&repo);
    let worktrees = state_dir(&repo).join("worktrees/target/package");
    let (base, head) = (worktrees.join("base"), worktrees.join("head"));
    assert_slot_holds(&repo, &base, "HEAD~1");

    // Base: a half checkout. One file deleted, one truncated, a stray file, the index lost.
    std::fs::remove_file(base.join("src/lib.rs")).unwrap();
    let bench = std::fs::read(base.join("benches/demo.rs")).unwrap();
    std::fs::write(base.join("benches/demo.rs"), &bench[..bench.len() / 2]).unwrap();
    std::fs::write(base.join("src/stray.rs"), "compile_error!(\"stray\");").unwrap();
    std::fs::remove_file(base.join(".git/index")).unwrap();
    // Head: what `git worktree prune` leaves of a linked worktree, a `.git` file pointing nowhere.
    std::fs::remove_dir_all(head.join(".git")).unwrap();
    std::fs::write(
        head.join(".git"),
        format!("gitdir: {}/.git/worktrees/head\n", repo.display()),
    )
    .unwrap();
    git_ok(&repo, &["worktree", "prune"]);

    let report = run_ok(&repo);
    measured_entry(&report, "hash/steady", 2);
    assert_slot_holds(&repo, &base, "HEAD~1");
    assert_slot_holds(&repo, &head, "HEAD");
    assert!(!base.join("src/stray.rs").exists(), "stray file removed");

    // A slot reduced to an empty directory, and one deleted outright.
    std::fs::remove_dir_all(&base).unwrap();
    std::fs::create_dir(&base).unwrap();
    std::fs::remove_dir_all(&head).unwrap();
    run_ok(&repo);
    assert_slot_holds(&repo, &base, "HEAD~1");
    assert_slot_holds(&repo, &head, "HEAD");
    assert_eq!(RepoState::capture(&repo), before);
}

#[test]
fn a_revision_that_does_not_build_shows_cargo_diagnostics_and_keeps_the_other_build() {
    let (_dir, repo) = fixture_repo(&strong());
    replace_in(
        &repo,
        "src/lib.rs",
        "pub fn identity",
        "pub fn broken() -> u64 { undefined_symbol_here }\n\npub fn identity",
    );
    commit_all(&repo, "head that does not compile");
    let base = rev_parse(&repo, "HEAD~1");
    let head = rev_parse(&repo, "HEAD");
    seed_criterion_results(&repo);
    let before = RepoState::capture(&repo);

    let output = fixture_perfdiff(&repo, &quick(&["HEAD~1", "HEAD", "--", "hash/steady"]));
    assert_clean_error(&output, 2, "undefined_symbol_here");
    let err = stderr(&output);
    assert!(err.contains(&head[..9]), "the revision is named: {err}");
    assert!(err.contains("head"), "{err}");
    assert!(
        err.contains("error"),
        "cargo's diagnostics are shown: {err}"
    );

    let base_bin = state_dir(&repo).join("bin").join(&base);
    let kept = std::fs::read_dir(&base_bin)
        .map(|entries| entries.count())
        .unwrap_or(0);
    assert!(kept > 0, "base's build was kept in {}", base_bin.display());
    assert_eq!(RepoState::capture(&repo), before);
    assert!(
        !repo.join("target/perfdiff").exists(),
        "nothing written to the user's target"
    );
}

#[test]
fn one_sided_and_moved_benchmarks_are_reported_never_dropped() {
    let (_dir, repo) = fixture_repo(&strong());
    // Head also renames the bench target (`demo` -> `speed`) and removes hash/steady.
    git_ok(&repo, &["mv", "benches/demo.rs", "benches/speed.rs"]);
    replace_in(&repo, "Cargo.toml", "name = \"demo\"", "name = \"speed\"");
    replace_in(&repo, SPEC, "hash/steady ns=4000\n", "");
    commit_all(&repo, "rename the bench target, drop steady");
    let before = RepoState::capture(&repo);
    let output = fixture_perfdiff(
        &repo,
        &compare_json(
            "HEAD~2",
            "HEAD",
            &["hash/steady", "hash/new_in_head", "hash/checksum"],
        ),
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report = json_report(&output);
    assert_eq!(
        report["benchmarks"].as_array().unwrap().len(),
        3,
        "{report:#}"
    );
    assert_eq!(verdict_of(&report, "hash/steady"), "only_in_base");
    assert_eq!(verdict_of(&report, "hash/new_in_head"), "only_in_head");
    // Moved to another bench target, still measured.
    measured_entry(&report, "hash/checksum", 2);
    assert_eq!(RepoState::capture(&repo), before);

    // A head without any benchmark: everything is only_in_base, not an empty table.
    std::fs::remove_dir_all(repo.join("benches")).unwrap();
    replace_in(
        &repo,
        "Cargo.toml",
        "[[bench]]\nname = \"speed\"\nharness = false\n",
        "",
    );
    commit_all(&repo, "no benchmarks any more");
    let before = RepoState::capture(&repo);
    let output = fixture_perfdiff(
        &repo,
        &quick(&["HEAD~1", "HEAD", "--format", "json", "--", "hash/mix"]),
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report = json_report(&output);
    assert_eq!(verdict_of(&report, "hash/mix"), "only_in_base");
    assert_eq!(RepoState::capture(&repo), before);
}
