//! Robustness (issue #7), building: a bench target that does not compile beside others that do
//! (issue #33), and project layouts `cargo bench` handles (a workspace of several packages in a
//! subdirectory of the repository, a submodule, `build.target-dir`, a target directory inside
//! another workspace). Every case runs the real binary and real cargo builds and checks the
//! user's repository is byte-for-byte unchanged. What is tested is the build layer, so the bench
//! targets are the deterministic fixture's (no dependency to compile, nothing timed): moved from
//! `end_to_end::robustness_build`. A revision that does not build, and revisions without
//! (matching) benchmarks, are in `robustness`.

use crate::bench_fixture::*;
use crate::support;

use std::path::Path;

use support::*;

/// The skipped targets of a JSON listing or report, as `(package, target, reason)`.
fn skipped_targets(json: &serde_json::Value) -> Vec<(String, String, String)> {
    json["skipped_targets"]
        .as_array()
        .expect("skipped_targets")
        .iter()
        .map(|s| {
            let text = |key: &str| s[key].as_str().unwrap_or_default().to_string();
            (text("package"), text("target"), text("reason"))
        })
        .collect()
}

/// The ids of a JSON listing or report.
fn benchmark_ids(json: &serde_json::Value) -> Vec<String> {
    json["benchmarks"]
        .as_array()
        .expect("benchmarks")
        .iter()
        .map(|b| b["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_bench_target_that_does_not_compile_is_skipped_with_its_error_and_the_others_compared() {
    let root = own_target_scratch();
    let repo = root.path().join("two targets");
    fixture_workspace_repo(&repo, &["speedy"], |repo| {
        write_fixture_package(
            &repo.join("speedy"),
            "speedy",
            &[("good", &[("g_mix", 1000)]), ("bad", &[("b_mix", 1000)])],
            "",
        );
    });
    // Head: `bad` no longer compiles; `good` and the library do.
    replace_in(
        &repo,
        "speedy/benches/bad.rs",
        "fn main() {",
        "fn main() {\n    let _ = undefined_in_bad;",
    );
    commit_all(&repo, "head: bad does not compile");
    let before = RepoState::capture(&repo);

    let list = ["HEAD~1", "HEAD", "--list", "--format", "json"];
    let output = fixture_perfdiff(&repo, &list);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let listing: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(benchmark_ids(&listing), ["g_mix"]);
    // Its phases, under the names a comparison's `run.phases` has: two builds.
    let phases = &listing["phases"];
    for field in [
        "checkout_ms",
        "discovery_ms",
        "trace_ms",
        "probe_ms",
        "selection_ms",
    ] {
        assert!(phases[field].is_u64(), "{field}: {phases}");
    }
    for side in ["base", "head"] {
        assert!(phases["build"][side]["ms"].is_u64(), "{side}: {phases}");
    }
    let skipped = skipped_targets(&listing);
    assert_eq!(skipped.len(), 1, "{skipped:?}");
    let (package, target, reason) = &skipped[0];
    assert_eq!((package.as_str(), target.as_str()), ("speedy", "bad"));
    let head = rev_parse(&repo, "HEAD");
    assert!(
        reason.starts_with(&format!(
            "failed to compile in head HEAD ({}): error[E0425]: cannot find value \
             `undefined_in_bad` in this scope (at ",
            &head[..9]
        )),
        "{reason}"
    );
    assert!(reason.ends_with("are not compared"), "{reason}");
    assert!(!reason.contains('\n'), "one line: {reason}");
    // The text listing names it too, with the same reason, once.
    let text = fixture_perfdiff(&repo, &["HEAD~1", "HEAD", "--list"]);
    assert_eq!(text.status.code(), Some(0), "{}", stderr(&text));
    let named = format!("bench target bad {reason}");
    assert_eq!(
        stderr(&text).matches(&named).count(),
        1,
        "{}",
        stderr(&text)
    );
    assert!(String::from_utf8_lossy(&text.stdout).contains("g_mix"));

    // The run compares `good` and reports `bad` as skipped, in the JSON report and the table.
    let output = fixture_perfdiff(&repo, &parent_vs_head_json(&[]));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report = json_report(&output);
    measured_entry(&report, "g_mix", 2);
    assert_eq!(benchmark_ids(&report), ["g_mix"]);
    assert_eq!(skipped_targets(&report), skipped);
    let table = fixture_perfdiff(&repo, &quick(&["HEAD~1", "HEAD", "--fail-on", "never"]));
    assert!(
        all_output(&table).contains("skipped bench target `bad`: failed to compile in head"),
        "{}",
        all_output(&table)
    );

    // Failing in both revisions, it is skipped once, for both.
    let output = fixture_perfdiff(&repo, &["HEAD", "HEAD", "--list", "--format", "json"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let listing: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(benchmark_ids(&listing), ["g_mix"]);
    let both = skipped_targets(&listing);
    assert_eq!(both.len(), 1, "{both:?}");
    assert!(
        both[0]
            .2
            .starts_with("failed to compile in both revisions: error[E0425]"),
        "{both:?}"
    );

    assert_eq!(RepoState::capture(&repo), before);

    // A library that does not compile still ends the run, with rustc's error.
    std::fs::write(
        repo.join("speedy/src/lib.rs"),
        "pub fn broken() -> u64 { undefined_in_library }\n",
    )
    .unwrap();
    commit_all(&repo, "head: the library does not compile");
    let output = fixture_perfdiff(&repo, &quick(&["HEAD~1", "HEAD"]));
    assert_clean_error(&output, 2, "building the benchmarks of head");
    assert_clean_error(&output, 2, "undefined_in_library");

    // So does a revision none of whose bench targets compiles.
    git_ok(&repo, &["revert", "--no-edit", "HEAD"]);
    replace_in(
        &repo,
        "speedy/benches/good.rs",
        "fn main() {",
        "fn main() {\n    let _ = undefined_in_good;",
    );
    commit_all(&repo, "head: no bench target compiles");
    let before = RepoState::capture(&repo);
    let output = fixture_perfdiff(&repo, &quick(&["HEAD~1", "HEAD"]));
    assert_clean_error(&output, 2, "building the benchmarks of head");
    assert_clean_error(&output, 2, "undefined_in_good");
    assert_clean_error(&output, 2, "undefined_in_bad");
    assert_eq!(RepoState::capture(&repo), before);
}

/// The layout: `<repo>/rust/` is a workspace of two packages (the fixture in `rust/demo`, a
/// library without benchmarks in `rust/other`) whose `.cargo/config.toml` sets
/// `build.target-dir`, and the fixture's library includes a file from the submodule
/// `<repo>/data`.
fn nested_workspace_repo(root: &Path) -> std::path::PathBuf {
    let data = root.join("data-origin");
    std::fs::create_dir_all(&data).unwrap();
    git_ok(&data, &["init", "-q"]);
    std::fs::write(data.join("note.txt"), "from the submodule").unwrap();
    commit_all(&data, "data");

    let repo = root.join("mono repo ü");
    let member = repo.join("rust/demo");
    write_fixture_files(&member);
    git_ok(&repo, &["init", "-q"]);
    std::fs::rename(member.join("Cargo.lock"), repo.join("rust/Cargo.lock")).unwrap();
    std::fs::remove_file(member.join(".gitignore")).unwrap();
    replace_in(&member, "Cargo.toml", "[workspace]\n", "");
    write_library_package(&repo.join("rust/other"), "other", "");
    std::fs::write(
        repo.join("rust/Cargo.toml"),
        "[workspace]\nmembers = [\"demo\", \"other\"]\nresolver = \"2\"\n",
    )
    .unwrap();
    std::fs::create_dir_all(repo.join("rust/.cargo")).unwrap();
    std::fs::write(
        repo.join("rust/.cargo/config.toml"),
        format!(
            "[build]\ntarget-dir = {:?}\n",
            target_dir(root).to_str().unwrap()
        ),
    )
    .unwrap();
    std::fs::write(repo.join(".gitignore"), "target/\n").unwrap();
    git_ok(
        &repo,
        &["submodule", "add", "-q", data.to_str().unwrap(), "data"],
    );
    let lib = member.join("src/lib.rs");
    let text = std::fs::read_to_string(&lib).unwrap();
    std::fs::write(
        &lib,
        format!("{text}\npub const NOTE: &str = include_str!(\"../../../data/note.txt\");\n"),
    )
    .unwrap();
    commit_all(&repo, "base");
    scale_benchmark(&member, "hash/mix", 2.0);
    commit_all(&repo, "head");
    repo
}

#[test]
fn a_workspace_in_a_subdirectory_with_a_submodule_and_build_target_dir_works() {
    let root = own_target_scratch();
    let repo = nested_workspace_repo(root.path());
    let before = RepoState::capture(&repo);
    // Run from the package's directory, as `cargo bench` would be; the target directory comes
    // from `.cargo/config.toml`, not the environment.
    let output = fixture_command(&repo.join("rust/demo"), &parent_vs_head_json(&["hash/mix"]))
        .env_remove("CARGO_TARGET_DIR")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report = json_report(&output);
    measured_entry(&report, "hash/mix", 2);
    let state = cargo_perfdiff::orchestrate::run::state_dir(&target_dir(&repo), &repo.join("rust"));
    assert!(
        state
            .join("worktrees/target/package/base/data/note.txt")
            .is_file(),
        "the submodule is checked out in the slot"
    );
    assert!(
        !repo.join("rust/target").exists(),
        "build.target-dir is honoured"
    );
    assert_eq!(RepoState::capture(&repo), before);
}

/// A `CARGO_TARGET_DIR` inside another cargo workspace (issue #49): the checkouts under it are
/// not taken for members of that workspace. The compared package has no `[workspace]` of its
/// own, so cargo looks above it for one; the user's own build finds none, and the checkouts'
/// builds must not find the outer one either ("current package believes it's in a workspace
/// when it's not").
#[test]
fn a_target_directory_inside_another_cargo_workspace_builds_the_checkouts_as_the_user_does() {
    let dir = own_target_scratch();
    let outer = dir.path().join("outer workspace");
    std::fs::create_dir_all(&outer).unwrap();
    std::fs::write(outer.join("Cargo.toml"), "[workspace]\nmembers = []\n").unwrap();
    let repo = dir.path().join("tiny");
    std::fs::create_dir_all(repo.join("src")).unwrap();
    git_ok(&repo, &["init", "-q"]);
    std::fs::write(
        repo.join("Cargo.toml"),
        "[package]\nname = \"tiny\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    )
    .unwrap();
    std::fs::write(repo.join(".gitignore"), "/target\n").unwrap();
    let main = |rounds: u64| {
        format!(
            "fn main() {{\n    let mut x = 1_u64;\n    for i in 0..{rounds}_u64 {{\n        \
             x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(i));\n    }}\n    \
             println!(\"{{x}}\");\n}}\n"
        )
    };
    std::fs::write(repo.join("src/main.rs"), main(2_000_000)).unwrap();
    commit_all(&repo, "base");
    std::fs::write(repo.join("src/main.rs"), main(4_000_000)).unwrap();
    commit_all(&repo, "head");

    let target = outer.join("shared-target");
    let args = quick(&[
        "HEAD~1",
        "HEAD",
        "--commands-only",
        "--cmd",
        "spin={bin}/tiny",
        "--format",
        "json",
        "--fail-on",
        "never",
    ]);
    let output = cargo_perfdiff_with_env(
        &repo,
        &args,
        &[("CARGO_TARGET_DIR", target.to_str().unwrap())],
    );
    assert!(output.status.success(), "{}", all_output(&output));
    measured_entry(&json_report(&output), "spin", 2);
    assert!(target.join("perfdiff").is_dir());
}

#[test]
fn only_bench_targets_are_built_not_the_unit_tests_cargo_bench_adds() {
    // toml's shape: a virtual workspace whose members' libraries `cargo bench` also builds as
    // unit-test harnesses in the bench profile (under fat LTO, a whole-program optimisation
    // each), none of which a comparison runs. Here the library's unit tests compile only in the
    // debug profile, so building them in the bench profile fails: the run must not build them.
    let root = own_target_scratch();
    let repo = root.path().join("lib and benches");
    fixture_workspace_repo(&repo, &["speedy", "other"], |repo| {
        write_fixture_package(
            &repo.join("speedy"),
            "speedy",
            &[("good", &[("g_mix", 1000)])],
            "",
        );
        write_library_package(&repo.join("other"), "other", "");
        std::fs::write(
            repo.join("other/src/lib.rs"),
            "pub fn used() -> u64 { 1 }\n\n#[cfg(all(test, not(debug_assertions)))]\n\
             compile_error!(\"the unit tests of other were built in the bench profile\");\n",
        )
        .unwrap();
    });
    let before = RepoState::capture(&repo);
    let output = fixture_perfdiff(&repo, &["HEAD", "HEAD", "--list", "--format", "json"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let listing: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(benchmark_ids(&listing), ["g_mix"]);
    assert!(skipped_targets(&listing).is_empty(), "{listing:#}");
    assert_eq!(RepoState::capture(&repo), before);
}
