//! Robustness (issue #7) on the deterministic fixture: worktrees damaged between runs (deleted
//! and truncated files, stray files, a lost index, a `.git` file left by a pruned linked
//! worktree, `git worktree prune` in the user's repository) are detected and rebuilt, and the
//! next run measures the right code; a revision that does not build is named with cargo's
//! diagnostics and the other side's build is kept; revisions without (matching) benchmarks are
//! a clear message; benchmarks on one side only, or moved to another bench target, are reported
//! and never dropped. Moved from `end_to_end`'s `robustness_worktrees`, `robustness_build` and
//! `robustness_forks`.

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

#[test]
fn no_benchmarks_or_none_matching_the_filter_is_a_clear_message() {
    let dir = own_target_scratch();
    let repo = dir.path().join("no benches");
    std::fs::create_dir_all(repo.join("src")).unwrap();
    std::fs::write(
        repo.join("Cargo.toml"),
        "[package]\nname = \"nobench\"\nversion = \"0.1.0\"\nedition = \"2021\"\n[workspace]\n",
    )
    .unwrap();
    std::fs::write(repo.join("src/lib.rs"), "pub fn f() -> u8 { 1 }\n").unwrap();
    git_ok(&repo, &["init", "-q"]);
    commit_all(&repo, "one");
    std::fs::write(repo.join("src/lib.rs"), "pub fn f() -> u8 { 2 }\n").unwrap();
    commit_all(&repo, "two");
    let before = RepoState::capture(&repo);
    let output = fixture_perfdiff(&repo, &quick(&["HEAD~1", "HEAD"]));
    assert_clean_error(
        &output,
        2,
        "no benchmarks found in either revision: neither has a bench target",
    );
    assert!(output.stdout.is_empty(), "no empty table");
    assert_eq!(RepoState::capture(&repo), before);

    // Bench targets in a workspace member cargo does not build by default are named, with the
    // flags that build them.
    std::fs::write(
        repo.join("Cargo.toml"),
        "[package]\nname = \"nobench\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\
         [workspace]\nmembers = [\"member\"]\n",
    )
    .unwrap();
    write_library_package(&repo.join("member"), "member", "");
    add_bench_target(&repo.join("member"), "speed", "fn main() {}\n");
    commit_all(&repo, "a member with a bench target");
    let output = fixture_perfdiff(&repo, &quick(&["HEAD~1", "HEAD"]));
    assert_clean_error(
        &output,
        2,
        "no benchmarks found in either revision: the selected package(s) have no \
         bench target; workspace member(s) not built have bench targets: `member` (speed): pass \
         `-p member`, or `--workspace` for all of them",
    );
    let output = fixture_perfdiff(&repo, &quick(&["HEAD~1", "HEAD", "--workspace"]));
    assert_clean_error(
        &output,
        2,
        "plain binary, no benchmark harness (bench target \"speed\")",
    );
    git_ok(&repo, &["rm", "-q", "-r", "member"]);
    std::fs::write(
        repo.join("Cargo.toml"),
        "[package]\nname = \"nobench\"\nversion = \"0.1.0\"\nedition = \"2021\"\n[workspace]\n",
    )
    .unwrap();
    commit_all(&repo, "no member");

    // A package of its own with bench targets (chrono keeps its criterion benches so) is named
    // with the `--manifest-path` that compares it.
    let own = repo.join("bench");
    write_library_package(&own, "own", "[workspace]\n");
    add_bench_target(&own, "speed", "fn main() {}\n");
    commit_all(&repo, "a package of its own with a bench target");
    let output = fixture_perfdiff(&repo, &quick(&["HEAD~1", "HEAD"]));
    assert_clean_error(
        &output,
        2,
        "no benchmarks found in either revision: neither has a bench target; \
         `bench/Cargo.toml` is a package of its own with bench targets: compare it with \
         `--manifest-path bench/Cargo.toml`",
    );
    git_ok(&repo, &["rm", "-q", "-r", "bench"]);
    commit_all(&repo, "no package of its own");

    // A bench target that is not criterion is named in the error, with why it was skipped.
    add_bench_target(&repo, "speed", "fn main() {}\n");
    commit_all(&repo, "three");
    let output = fixture_perfdiff(&repo, &quick(&["HEAD~1", "HEAD"]));
    assert_clean_error(
        &output,
        2,
        "only benchmarks of criterion, divan, libtest `#[bench]` and `bencher` are measured, and \
         the bench targets are not: plain binary, no benchmark harness (bench target \"speed\")",
    );

    let (_dir, repo) = fixture_repo(&strong());
    let before = RepoState::capture(&repo);
    let output = fixture_perfdiff(&repo, &quick(&["HEAD~1", "HEAD", "--", "no-such-bench"]));
    assert_clean_error(&output, 2, "no benchmark matches the filter");
    // The error shows the ids there are, to write a filter from.
    assert_clean_error(&output, 2, "benchmark(s) found are hash/");
    assert!(
        stderr(&output).contains("no-such-bench"),
        "{}",
        stderr(&output)
    );
    assert!(output.stdout.is_empty(), "no empty table");
    assert_eq!(RepoState::capture(&repo), before);
}

#[test]
fn bench_functions_in_a_binarys_unit_tests_are_named_without_an_io_error() {
    // rayon-demo's shape (field-trials.md, session 20): its `#[bench]` functions are unit tests
    // of its binary (`#![cfg_attr(test, feature(test))]`), which `cargo bench` runs; the package
    // has no bench target. Named with `--package`, the build ran and copied nothing, and the run
    // ended with "cannot prepare the build of base …: No such file or directory (os error 2) at
    // path …/perfdiff/bin/<commit>/.tmpXXXXXX" after building the revision.
    let dir = own_target_scratch();
    let repo = dir.path().join("binbench");
    std::fs::create_dir_all(repo.join("src")).unwrap();
    std::fs::write(
        repo.join("Cargo.toml"),
        "[package]\nname = \"binbench\"\nversion = \"0.1.0\"\nedition = \"2021\"\n[workspace]\n",
    )
    .unwrap();
    let main = |body: &str| {
        format!(
            "#![cfg_attr(test, feature(test))]\n#[cfg(test)]\nextern crate test;\n\n\
             pub fn work(n: u64) -> u64 {{ (0..n).map(|x| {body}).sum() }}\n\n\
             fn main() {{ println!(\"{{}}\", work(10)); }}\n\n\
             #[cfg(test)]\nmod benches {{\n    #[bench]\n    \
             fn work(b: &mut test::Bencher) {{ b.iter(|| super::work(1000)) }}\n}}\n"
        )
    };
    std::fs::write(repo.join("src/main.rs"), main("x * x")).unwrap();
    git_ok(&repo, &["init", "-q"]);
    commit_all(&repo, "one");
    std::fs::write(repo.join("src/main.rs"), main("x * x + 1")).unwrap();
    commit_all(&repo, "two");
    let env = [("RUSTC_BOOTSTRAP", "1")];
    let named = quick(&["HEAD~1", "HEAD", "--list", "--package", "binbench"]);
    for args in [named, quick(&["HEAD~1", "HEAD", "--list"])] {
        let output = fixture_perfdiff_with_env(&repo, &args, &env);
        assert_clean_error(
            &output,
            2,
            "no benchmarks found in either revision: neither has a bench target; `#[bench]` \
             functions in the unit tests of a library or binary (`src/main.rs`) are run by \
             `cargo bench` but not compared",
        );
        assert!(!stderr(&output).contains("os error"), "{}", stderr(&output));
    }
}

#[test]
fn a_bench_target_compiled_out_by_a_feature_is_named_with_the_remedy() {
    // uuid's `benches/v4.rs` starts `#![cfg(feature = "v4")]` and its manifest requires no
    // feature, so cargo builds it and its libtest harness lists nothing: the error said
    // "neither has a bench target", which sent the user looking in the wrong place.
    let dir = own_target_scratch();
    let repo = dir.path().join("gated");
    write_library_package(&repo, "gated", "[workspace]\n\n[features]\nfast = []\n");
    std::fs::write(repo.join("src/lib.rs"), "pub fn f() -> u8 { 1 }\n").unwrap();
    std::fs::create_dir_all(repo.join("benches")).unwrap();
    std::fs::write(
        repo.join("benches/speed.rs"),
        "#![cfg(feature = \"fast\")]\n#![feature(test)]\nextern crate test;\n\n#[bench]\n\
         fn one(b: &mut test::Bencher) {\n    b.iter(|| gated::f());\n}\n",
    )
    .unwrap();
    git_ok(&repo, &["init", "-q"]);
    commit_all(&repo, "one");
    std::fs::write(repo.join("src/lib.rs"), "pub fn f() -> u8 { 2 }\n").unwrap();
    commit_all(&repo, "two");
    let before = RepoState::capture(&repo);
    let output = fixture_perfdiff(&repo, &quick(&["HEAD~1", "HEAD", "--list"]));
    assert_clean_error(
        &output,
        2,
        "no benchmarks found in either revision: bench target(s) `speed` list no benchmark: \
         code compiled out (such as a file that starts `#![cfg(feature = \"…\")]`) lists none, \
         and `--features` may bring its benchmarks in",
    );
    assert_eq!(RepoState::capture(&repo), before);
}
