//! Real repositories' shapes that made two checkouts build different code for the same source
//! (docs/design/build-normalisation.md): a bench package of its own beside the library, with
//! `path = ".."` dependencies outside its workspace; a version bump; a crate that compiles its
//! own directory in (`env!("CARGO_MANIFEST_DIR")`) to read its fixtures. Each runs with
//! selection on: the same code on both sides is `unchanged (same code)` without a fork.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use cargo_perfdiff::orchestrate::demo::{DemoChanges, DemoHarness, DemoOptions};
use cargo_perfdiff::orchestrate::run::state_dir;

use crate::support;

use support::*;

/// `cargo perfdiff ARGS` in `dir` with selection on, at the default layouts (selection compares
/// code in the objects a build with layouts keeps).
fn selecting(dir: &Path, args: &[&str]) -> Output {
    output_logged(
        perfdiff_command(dir, &with_default_layouts(args)).env_remove("CARGO_PERFDIFF_MEASURE_ALL"),
    )
}

/// The selection reason of benchmark `id` (`same_code`, `reaches_change`, …).
fn reason(report: &serde_json::Value, id: &str) -> String {
    let entry = bench_entry(report, id);
    entry["selection"]["reason"]
        .as_str()
        .unwrap_or_else(|| panic!("no selection reason in {entry:#}"))
        .to_string()
}

/// The criterion demo's lock, so criterion resolves to what the other tests built.
fn copy_demo_lock(to: &Path) {
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/criterion-demo/Cargo.lock"),
        to.join("Cargo.lock"),
    )
    .unwrap();
}

/// A [`shared_repo`] of [`shared_library_with_a_bench_package`] (the shapes' base), to which
/// `change` adds the shape and its head commit.
fn bench_package_shape(
    guard: &MeasuringGuard,
    key: &str,
    change: impl FnOnce(&Path),
) -> (Scratch, PathBuf) {
    shared_repo(guard, Profile::Quick, key, "lib", |repo| {
        shared_library_with_a_bench_package(repo);
        change(repo);
    })
}

/// Asserts that every benchmark of `ids` was selected `same_code` in `report` (`err`: the
/// run's stderr, for the message).
fn assert_same_code(report: &serde_json::Value, err: &str, ids: &[&str]) {
    for id in ids {
        assert_eq!(reason(report, id), "same_code", "{id}: {err}");
    }
}

/// A repository shaped like many libraries' (a `benches/` package of its own, excluded from
/// the root workspace, depending on the library at `..`), committed as "base": `mix` and `sum`
/// run the library's work, `version` reads its version and its directory.
fn library_with_a_bench_package(repo: &Path) {
    std::fs::create_dir_all(repo.join("src")).unwrap();
    git_ok(repo, &["init", "-q"]);
    std::fs::write(
        repo.join("Cargo.toml"),
        "[package]\nname = \"shapelib\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
         [workspace]\nexclude = [\"benches\"]\n",
    )
    .unwrap();
    std::fs::write(
        repo.join("src/lib.rs"),
        "pub fn mix(rounds: u64) -> u64 {\n    let mut x = 1u64;\n    for i in 0..rounds {\n        \
         x = (x ^ i).wrapping_mul(0x100_0000_01b3).rotate_left(5);\n    }\n    x\n}\n\n\
         pub fn sum(rounds: u64) -> u64 {\n    (0..rounds).fold(0u64, |s, i| s.wrapping_add(i * 3))\n}\n\n\
         pub fn version() -> &'static str {\n    env!(\"CARGO_PKG_VERSION\")\n}\n\n\
         pub fn home() -> &'static str {\n    env!(\"CARGO_MANIFEST_DIR\")\n}\n",
    )
    .unwrap();
    let benches = repo.join("benches");
    write_criterion_package(
        &benches,
        "shapebench",
        &[],
        "\n[dependencies]\nshapelib = { path = \"..\" }\n",
    );
    add_bench_target(
        &benches,
        "shapes",
        "use std::hint::black_box;\nuse criterion::{criterion_group, criterion_main, Criterion};\n\n\
         fn benches(c: &mut Criterion) {\n    \
         c.bench_function(\"mix\", |b| b.iter(|| shapelib::mix(black_box(200))));\n    \
         c.bench_function(\"sum\", |b| b.iter(|| shapelib::sum(black_box(200))));\n    \
         c.bench_function(\"version\", |b| b.iter(|| black_box(shapelib::version()).len() + black_box(shapelib::home()).len()));\n}\n\n\
         criterion_group!(group, benches);\ncriterion_main!(group);\n",
    );
    copy_demo_lock(&benches);
    std::fs::write(repo.join(".gitignore"), "target/\n").unwrap();
    commit_all(repo, "base");
}

/// [`library_with_a_bench_package`] for a [`shared_repo`], its bench package a workspace of its
/// own (`[workspace]` in the base commit): a shared repository lies inside this project's
/// directory (`target/tmp/shared-demos`), and cargo, looking up from a package the root's
/// `exclude` leaves out, would take it for a member of this project's workspace.
fn shared_library_with_a_bench_package(repo: &Path) {
    library_with_a_bench_package(repo);
    let manifest = repo.join("benches/Cargo.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, format!("{text}\n[workspace]\n")).unwrap();
    amend_base(repo);
}

/// Folds what the working tree has into the base commit (a shape's own base on top of the
/// shared library's).
fn amend_base(repo: &Path) {
    git_ok(repo, &["add", "-A"]);
    git_ok(repo, &["commit", "-q", "--amend", "--no-edit"]);
}

/// Head: `sum` adds another multiple, the one change of the shapes whose base differs.
fn sum_adds_another_multiple(repo: &Path) {
    replace_in(
        repo,
        "src/lib.rs",
        "s.wrapping_add(i * 3)",
        "s.wrapping_add(i * 5)",
    );
    commit_all(repo, "sum adds another multiple");
}

/// Every file under `dir` whose name starts with `prefix`.
fn files_named(dir: &Path, prefix: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(files_named(&path, prefix));
        } else if entry.file_name().to_string_lossy().starts_with(prefix) {
            found.push(path);
        }
    }
    found
}

/// Every bench executable the run kept for `repo` (its cargo build and its layouts, under the
/// run's bin directory beside the worktree slots `slots`) names no link, and base's names
/// base's slot.
fn assert_each_names_its_checkout(repo: &Path, slots: &Path) {
    let bin = slots
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .join("bin");
    let executables = files_named(&bin, "shapes-");
    assert!(!executables.is_empty(), "{}", bin.display());
    for executable in &executables {
        assert!(
            !holds(executable, &slots.join("live")),
            "{}",
            executable.display()
        );
    }
    let base_commit = git_ok(repo, &["rev-parse", "HEAD~1"]);
    let base = executables
        .iter()
        .find(|exe| exe.to_string_lossy().contains(base_commit.trim()))
        .expect("base's executable");
    assert!(holds(base, &slots.join("base")), "{}", base.display());
}

/// Whether the file at `path` holds `text`.
fn holds(path: &Path, text: &Path) -> bool {
    let bytes = std::fs::read(path).unwrap();
    let text = text.as_os_str().as_encoded_bytes();
    bytes.windows(text.len()).any(|window| window == text)
}

#[test]
fn a_bench_package_outside_the_workspace_builds_the_same_code_across_a_version_bump() {
    let _guard = measuring_lock();
    let dir = scratch();
    let repo = dir.path().join("lib");
    library_with_a_bench_package(&repo);
    replace_in(
        &repo,
        "Cargo.toml",
        "version = \"0.1.0\"",
        "version = \"0.2.0\"",
    );
    commit_all(&repo, "release 0.2.0");
    let manifest = ["--manifest-path", "benches/Cargo.toml"];
    let args = with_options(&parent_vs_head_json(&[]), &manifest);
    let output = selecting(&repo, &args);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    // Built through one path, each executable (cargo's and every code layout linked for the
    // forks) names its own checkout (`home()`), whatever the link points at now.
    let slots =
        state_dir(&shared_target_dir(), &repo.join("benches")).join("worktrees/target/package");
    assert_each_names_its_checkout(&repo, &slots);
    let report = json_report(&output);
    assert_same_code(&report, &err, &["mix", "sum"]);
    assert!(
        err.contains("2 of 3 benchmark(s) execute the same code"),
        "{err}"
    );
    // The benchmark that reads the version compiles the new one in: measured, and the changed
    // data it reaches (criterion's `Bencher::iter`'s, where rustc put the string) is said to
    // hold the version.
    assert_eq!(reason(&report, "version"), "reaches_change", "{err}");
    let read = bench_entry(&report, "version")["selection"].to_string();
    assert!(read.contains("changed data"), "{read}");
    assert!(
        read.contains("it holds the version of `shapelib`, 0.1.0 → 0.2.0"),
        "{read}"
    );

    // A change of one function of the library reaches the benchmark that calls it, by name,
    // and no other: the library outside the bench package's workspace is paired by its code.
    replace_in(&repo, "src/lib.rs", "i * 3", "i * 5");
    commit_all(&repo, "sum changes");
    let output = selecting(&repo, &args);
    let err = stderr(&output);
    let report = json_report(&output);
    assert_eq!(reason(&report, "mix"), "same_code", "{err}");
    assert_eq!(reason(&report, "sum"), "reaches_change", "{err}");
    let changed = bench_entry(&report, "sum")["selection"].to_string();
    assert!(changed.contains("shapelib::sum"), "{changed}");
}

/// A commit that changes no code (a README): no function of the bench executable differs, so
/// its three benchmarks are traced in one native run (no valgrind run, the set-up paid once)
/// and each is the same code. A fresh repository, so no trace of an earlier run is kept.
#[test]
fn a_commit_that_changes_no_code_traces_a_target_s_benchmarks_in_one_native_run() {
    let _guard = measuring_lock();
    let dir = scratch();
    let repo = dir.path().join("lib");
    library_with_a_bench_package(&repo);
    std::fs::write(repo.join("README.md"), "# shapelib\n").unwrap();
    commit_all(&repo, "a readme");
    let (report, err) = select_bench_package(&repo);
    assert_same_code(&report, &err, &["mix", "sum", "version"]);
    assert!(
        err.contains("traced natively (no function differs from head's executable")
            && err.contains("which needs no valgrind run); in one run"),
        "{err}"
    );
}

/// wasm-tools' shape (field-trials.md, session 19): a benchmark that walks a directory holding
/// a submodule (`parse/tests` walks `tests/`, the spec test suite a submodule in it), asking of
/// each entry whether it is a directory. In each checkout the submodule is a repository of
/// cargo-perfdiff's own, whose `.git/index` and `.git/logs/HEAD` differ between two checkouts
/// of one commit: across a commit that changes no code the benchmark was measured, "it reads
/// changed files: data/suite/.git/index, data/suite/.git/logs/HEAD".
#[test]
fn a_benchmark_that_walks_a_submodule_is_the_same_code_when_the_submodule_is() {
    let _guard = measuring_lock();
    let dir = scratch();
    let suite = dir.path().join("suite");
    std::fs::create_dir_all(suite.join("cases")).unwrap();
    git_ok(&suite, &["init", "-q"]);
    std::fs::write(suite.join("cases/a.txt"), "1 2 3\n").unwrap();
    commit_all(&suite, "cases");
    let repo = dir.path().join("lib");
    library_with_a_bench_package(&repo);
    let url = suite.to_str().unwrap();
    git_ok(&repo, &["submodule", "add", "-q", url, "data/suite"]);
    add_bench_target(
        &repo.join("benches"),
        "walks",
        "use std::hint::black_box;\nuse std::path::Path;\n\
         use criterion::{criterion_group, criterion_main, Criterion};\n\n\
         fn walk(dir: &Path, texts: &mut Vec<String>) {\n    \
         for entry in std::fs::read_dir(dir).unwrap() {\n        \
         let path = entry.unwrap().path();\n        \
         if path.is_dir() {\n            walk(&path, texts);\n        \
         } else if path.extension().is_some_and(|e| e == \"txt\") {\n            \
         texts.push(std::fs::read_to_string(&path).unwrap());\n        }\n    }\n}\n\n\
         fn benches(c: &mut Criterion) {\n    \
         let mut texts = Vec::new();\n    \
         walk(Path::new(\"../data\"), &mut texts);\n    \
         c.bench_function(\"walk\", |b| b.iter(|| black_box(&texts).iter().map(|t| t.len()).sum::<usize>()));\n}\n\n\
         criterion_group!(group, benches);\ncriterion_main!(group);\n",
    );
    amend_base(&repo);
    std::fs::write(repo.join("README.md"), "# shapelib\n").unwrap();
    commit_all(&repo, "a readme");
    let args = with_options(
        &parent_vs_head_json(&[]),
        &["--manifest-path", "benches/Cargo.toml", "--bench", "walks"],
    );
    let output = selecting(&repo, &args);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    let report = json_report(&output);
    assert_same_code(&report, &err, &["walk"]);
    // The suite's file was read, and compared.
    let detail = bench_entry(&report, "walk")["selection"]["detail"].to_string();
    assert!(!detail.contains(" 0 files compared"), "{detail}");
}

/// ttf-parser's shape (two `bencher` targets in `benches/`): a commit that changes no code (a
/// README). The native trace follows only a harness's test mode, which `bencher` has not (its
/// one run measures), so a target of the same code on both sides is traced under valgrind as
/// one whose code differs, and each benchmark is the same code. (Taken natively, every one was
/// measured: "its trace failed: … natively, a benchmark without a test mode or a command,
/// cannot be traced".)
#[test]
fn a_bencher_target_of_a_commit_that_changes_no_code_is_the_same_code() {
    let guard = measuring_lock();
    let options = DemoOptions {
        changes: DemoChanges::none(),
        criterion_version: None,
        harness: DemoHarness::Bencher,
    };
    let (_dir, repo) = shared_demo_with(&guard, &options, "a readme", |repo| {
        std::fs::write(repo.join("README.md"), "# demo\n").unwrap();
        commit_all(repo, "a readme");
    });
    let args = [
        "HEAD~1",
        "HEAD",
        "--list",
        "--format",
        "json",
        "--",
        "mix|steady",
    ];
    let output = selecting(&repo, &with_options(&args, FAST));
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    let listing: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_same_code(&listing, &err, &["hash::mix", "hash::steady"]);
    assert!(!err.contains("cannot be traced"), "{err}");
}

/// gimli's shape: a bench target that makes a second `Criterion` while the first is still
/// alive (`let mut c = Criterion::default()…` twice in one function). criterion holds its one
/// connection to the runner for each `Criterion`, so the second waits on the first's lock for
/// ever under cargo-perfdiff (as under cargo-criterion; `cargo bench` makes no connection). The
/// fork is ended once every thread is seen waiting so, and says why and what to change, instead
/// of waiting out the fork timeout and calling it "hung".
#[test]
fn a_second_criterion_made_while_the_first_lives_is_said_to_wait_for_ever() {
    let _guard = measuring_lock();
    let dir = scratch();
    let repo = dir.path().join("lib");
    std::fs::create_dir_all(&repo).unwrap();
    git_ok(&repo, &["init", "-q"]);
    write_criterion_package(&repo, "twocriteria", &[], "");
    add_bench_target(
        &repo,
        "two",
        "use criterion::Criterion;\nuse std::hint::black_box;\n\n\
         fn main() {\n    \
         let mut c = Criterion::default().configure_from_args();\n    \
         c.bench_function(\"first\", |b| b.iter(|| black_box(1u64) + 1));\n    \
         let mut c = Criterion::default().configure_from_args();\n    \
         c.bench_function(\"second\", |b| b.iter(|| black_box(2u64) * 3));\n}\n",
    );
    copy_demo_lock(&repo);
    std::fs::write(repo.join(".gitignore"), "target/\n").unwrap();
    commit_all(&repo, "base");
    std::fs::write(repo.join("README.md"), "# two\n").unwrap();
    commit_all(&repo, "a readme");
    let args = with_options(
        &parent_vs_head_json(&["^second$"]),
        &["--fork-timeout", "30"],
    );
    let output = output_logged(&mut perfdiff_command(&repo, &args));
    let err = stderr(&output);
    let entry = bench_entry(&json_report(&output), "second").to_string();
    assert!(
        entry.contains("waited for ever before its benchmark began")
            && entry.contains("a second `Criterion` is made while the first is still alive"),
        "{entry}\n{err}"
    );
    assert!(
        !entry.contains("did not finish within the fork timeout"),
        "{entry}"
    );
}

#[test]
fn a_benchmark_whose_code_passes_a_version_of_another_length_says_it_reads_the_version() {
    // uutils/coreutils 0.9.0 → 0.10.0 (field-trials.md, `cu-version`): the string's length is
    // an immediate of the code that passes it on, so the code differs before its data is
    // compared, and the reason said only "changed code".
    let guard = measuring_lock();
    let key = "a version of another length";
    let (_dir, repo) = bench_package_shape(&guard, key, |repo| {
        let (from, to) = ("version = \"0.1.0\"", "version = \"0.10.0\"");
        replace_in(repo, "Cargo.toml", from, to);
        commit_all(repo, "release 0.10.0");
    });
    let list = ["HEAD~1", "HEAD", "--list", "--format", "json"];
    let manifest = ["--manifest-path", "benches/Cargo.toml", "--", "version"];
    let output = selecting(&repo, &[&list[..], &manifest[..]].concat());
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(reason(&report, "version"), "reaches_change", "{err}");
    let read = bench_entry(&report, "version")["selection"].to_string();
    assert!(
        read.contains("it holds the version of `shapelib`, 0.1.0 → 0.10.0"),
        "{read}"
    );
}

#[test]
fn a_dev_dependency_added_that_no_benchmark_uses_changes_no_benchmark_s_code() {
    // unicode-segmentation's #147 added `proptest` to its dev-dependencies: cargo gives every
    // bench target one more `--extern`, and when that went into the bench executables' symbol
    // hashes, 0 of 40 benchmarks were the same code, those of untouched targets included.
    let guard = measuring_lock();
    let key = "an unused dev-dependency";
    let (_dir, repo) = bench_package_shape(&guard, key, |repo| {
        let benches = repo.join("benches");
        write_library_package(&benches.join("unused"), "unused", "");
        let manifest = std::fs::read_to_string(benches.join("Cargo.toml")).unwrap();
        std::fs::write(
            benches.join("Cargo.toml"),
            format!("{manifest}\n[dev-dependencies.unused]\npath = \"unused\"\n"),
        )
        .unwrap();
        commit_all(repo, "a dev-dependency no benchmark uses");
    });
    let (report, err) = select_bench_package(&repo);
    assert_same_code(&report, &err, &["mix", "sum", "version"]);
}

#[test]
fn a_benchmark_that_resolves_its_own_path_is_not_measured_for_the_directory_it_runs_from() {
    // uutils' benchmarks run a utility in-process, and `uucore` finds its locales from
    // `fs::canonicalize(current_exe())`, which looks at each directory up to the executable:
    // `benches/target/release/deps` among them, where cargo-perfdiff runs base's executable from
    // (in the checkout, so that data found from the executable's path is the revision's). Head's
    // holds no executable while selection traces base, so the listings differed and every
    // benchmark was measured, "reads changed files: target/release/deps" (10 of 10 of `wc`).
    let guard = measuring_lock();
    let key = "a benchmark that resolves its own path";
    let (_dir, repo) = bench_package_shape(&guard, key, |repo| {
        add_bench_target(
            &repo.join("benches"),
            "resolved",
            "use std::hint::black_box;\nuse criterion::{criterion_group, criterion_main, Criterion};\n\n\
             fn benches(c: &mut Criterion) {\n    \
             let exe = std::fs::canonicalize(std::env::current_exe().unwrap()).unwrap();\n    \
             let rounds = 200 + exe.as_os_str().len() as u64 % 2;\n    \
             c.bench_function(\"resolved_mix\", |b| b.iter(|| shapelib::mix(black_box(rounds))));\n}\n\n\
             criterion_group!(group, benches);\ncriterion_main!(group);\n",
        );
        amend_base(repo);
        sum_adds_another_multiple(repo);
    });
    let (report, err) = select_bench_package(&repo);
    assert_same_code(&report, &err, &["mix", "resolved_mix"]);
    assert_eq!(reason(&report, "sum"), "reaches_change", "{err}");
}

#[test]
fn criterion_ids_with_a_line_break_are_listed_and_selected_whole() {
    // pulldown-cmark's `lib` target names two benchmark groups by a string with a line break
    // (`"    pub fn pathological_link_def(c: &mut Criterion) {\n            "`): criterion
    // lists each id over two lines. Read by their last line, both groups' `/1` were one id,
    // `            /1`, which no fork selects (its trace failed; later set apart). Each is now
    // read whole, checked with `--exact`, and so is an id with a line break no other shares;
    // the line the benchmark prints before the listing is not glued onto the first id.
    let guard = measuring_lock();
    let key = "criterion ids with a line break";
    let (_dir, repo) = bench_package_shape(&guard, key, |repo| {
        add_bench_target(
            &repo.join("benches"),
            "broken",
            "use std::hint::black_box;\nuse criterion::{criterion_group, criterion_main, Criterion};\n\n\
             fn benches(c: &mut Criterion) {\n    \
             println!(\"loading corpus\");\n    \
             for name in [\"first {\\n  \", \"second {\\n  \"] {\n        \
             let mut group = c.benchmark_group(name);\n        \
             group.bench_function(\"1\", |b| b.iter(|| black_box(1u64) + 1));\n        \
             group.finish();\n    }\n    \
             c.bench_function(\"solo {\\n  x\", |b| b.iter(|| black_box(3u64) + 4));\n    \
             c.bench_function(\"whole\", |b| b.iter(|| black_box(2u64) * 3));\n}\n\n\
             criterion_group!(group, benches);\ncriterion_main!(group);\n",
        );
        amend_base(repo);
        sum_adds_another_multiple(repo);
    });
    let manifest = ["--manifest-path", "benches/Cargo.toml", "--bench", "broken"];
    let output = selecting(
        &repo,
        &with_options(&["HEAD~1", "HEAD", "--list", "-v"], &manifest),
    );
    let (out, err) = (String::from_utf8_lossy(&output.stdout), stderr(&output));
    assert_eq!(output.status.code(), Some(0), "{err}");
    // Progress lines (traced, probed, each probe's detail) show the break as `\n` too: no line
    // of the log is the rest of an id.
    let torn = err
        .lines()
        .find(|l| l.starts_with("  /1") || l.starts_with("  x"));
    assert_eq!(torn, None, "{err}");
    for id in [r"first {\n  /1", r"second {\n  /1", r"solo {\n  x", "whole"] {
        let line = out
            .lines()
            .find(|line| line.starts_with(&format!("{id} ")))
            .unwrap_or_else(|| panic!("`{id}` not listed whole:\n{out}\n{err}"));
        assert!(line.contains(": not measured, same code"), "{line}\n{err}");
    }
    assert!(!out.contains("loading corpus"), "{out}");
    assert!(!err.contains("more than once"), "{err}");
    assert!(!err.contains("its trace failed"), "{err}");
    // Measured, each fork selects its benchmark by the whole id; JSON keeps the raw id.
    let output = selecting(
        &repo,
        &with_options(
            &parent_vs_head_json(&["first", "solo"]),
            &[&manifest[..], &["--measure-all"]].concat(),
        ),
    );
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    let report = json_report(&output);
    for id in ["first {\n  /1", "solo {\n  x"] {
        let entry = bench_entry(&report, id);
        assert!(entry["ratio"].is_object(), "{entry:#}\n{err}");
    }
}

#[test]
fn a_bench_package_with_a_build_script_is_the_same_code_across_its_version_bump() {
    // BLAKE3 1.8.5 → 1.8.6: the package has a build script, and cargo named its output
    // directory (the bench process's `OUT_DIR`, and the library directory cc hands the linker)
    // by a hash of the package's version, so every benchmark was measured for "the bench
    // process's environment from cargo differs", then "the native library directories differ".
    let guard = measuring_lock();
    let key = "a build script across a version bump";
    let (_dir, repo) = bench_package_shape(&guard, key, |repo| {
        std::fs::write(
            repo.join("benches/build.rs"),
            "fn main() {\n    println!(\"cargo::rerun-if-changed=build.rs\");\n    \
             let out = std::env::var(\"OUT_DIR\").unwrap();\n    \
             println!(\"cargo::rustc-link-search=native={out}\");\n}\n",
        )
        .unwrap();
        amend_base(repo);
        replace_in(
            repo,
            "benches/Cargo.toml",
            "version = \"0.1.0\"",
            "version = \"0.2.0\"",
        );
        commit_all(repo, "release the bench package 0.2.0");
    });
    let (report, err) = select_bench_package(&repo);
    assert_same_code(&report, &err, &["mix", "sum", "version"]);
}

/// A build script that compiles `csrc/step.c` with the system's C compiler into a static library
/// and, as the `cc` crate does, prints only `rerun-if-env-changed` lines: cargo then watches no
/// file of the package. Its flags are the `cc` crate's: a section per function, no `NDEBUG`.
const C_LIBRARY_BUILD_SCRIPT: &str = r##"use std::process::Command;

fn main() {
    let out = std::env::var("OUT_DIR").unwrap();
    let object = format!("{out}/step.o");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let compiled = Command::new(cc)
        .args(["-O2", "-ffunction-sections", "-fdata-sections", "-fPIC"])
        .args(["-c", "csrc/step.c", "-o", &object])
        .status()
        .unwrap();
    assert!(compiled.success());
    let archived = Command::new("ar")
        .args(["crs", &format!("{out}/libshapec.a"), &object])
        .status()
        .unwrap();
    assert!(archived.success());
    println!("cargo::rustc-link-search=native={out}");
    println!("cargo::rustc-link-lib=static=shapec");
    println!("cargo::rerun-if-env-changed=CC");
    println!("cargo::rerun-if-env-changed=CFLAGS");
}
"##;

/// [`shared_library_with_a_bench_package`] whose library compiles C with
/// [`C_LIBRARY_BUILD_SCRIPT`] (a `-sys` crate's shape), a benchmark `cstep` whose timed loop
/// calls the C function `shape_step` and one, `cguard`, calling `shape_guard`, which asserts;
/// head changes `shape_step` only, one line longer, which moves `shape_guard`'s assertion down.
fn library_with_c_code(repo: &Path) {
    shared_library_with_a_bench_package(repo);
    std::fs::create_dir_all(repo.join("csrc")).unwrap();
    std::fs::write(
        repo.join("csrc/step.c"),
        "#include <assert.h>\n#include <stdint.h>\n\n\
         uint64_t shape_step(uint64_t x) {\n    return x * 3 + 1;\n}\n\n\
         uint64_t shape_guard(uint64_t x) {\n    assert(x != 12345);\n    \
         return (x ^ (x >> 7)) + 3;\n}\n",
    )
    .unwrap();
    std::fs::write(repo.join("build.rs"), C_LIBRARY_BUILD_SCRIPT).unwrap();
    replace_in(
        repo,
        "src/lib.rs",
        "pub fn mix(rounds: u64) -> u64 {",
        "unsafe extern \"C\" {\n    fn shape_step(x: u64) -> u64;\n    \
         fn shape_guard(x: u64) -> u64;\n}\n\n\
         pub fn cstep(rounds: u64) -> u64 {\n    \
         (0..rounds).fold(1u64, |x, _| unsafe { shape_step(x) })\n}\n\n\
         pub fn cguard(rounds: u64) -> u64 {\n    \
         (0..rounds).fold(1u64, |x, _| unsafe { shape_guard(x) })\n}\n\n\
         pub fn mix(rounds: u64) -> u64 {",
    );
    replace_in(
        repo,
        "benches/benches/shapes.rs",
        "fn benches(c: &mut Criterion) {\n",
        "fn benches(c: &mut Criterion) {\n    \
         c.bench_function(\"cstep\", |b| b.iter(|| shapelib::cstep(black_box(200))));\n    \
         c.bench_function(\"cguard\", |b| b.iter(|| shapelib::cguard(black_box(200))));\n",
    );
    amend_base(repo);
    replace_in(
        repo,
        "csrc/step.c",
        "    return x * 3 + 1;\n",
        "    x = x * 5;\n    return x + 1;\n",
    );
    commit_all(repo, "the C step multiplies by 5, in two lines");
}

#[test]
fn a_c_change_a_build_script_s_rerun_lines_do_not_watch_is_built_and_measured() {
    // capstone-rs "bump capstone to 5.0.7" (C only: `SStream.c`, `cs.c`): capstone-sys's build
    // script prints only the `cc` crate's `rerun-if-env-changed` lines, so cargo watched no file
    // of the package, took its last run for fresh, and linked head with base's C library: both
    // builds "up to date", every benchmark "same code".
    if Command::new("cc").arg("--version").output().is_err() {
        eprintln!("no C compiler (`cc`): skipped");
        return;
    }
    let guard = measuring_lock();
    let key = "a C change no rerun line watches";
    let (_dir, repo) = shared_repo(&guard, Profile::Quick, key, "lib", library_with_c_code);
    let (report, err) = select_bench_package(&repo);
    assert_same_code(&report, &err, &["mix", "sum", "version", "cguard"]);
    assert_eq!(reason(&report, "cstep"), "reaches_change", "{err}");
    let detail = bench_entry(&report, "cstep")["selection"]["detail"].to_string();
    assert!(detail.contains("shape_step"), "{detail}\n{err}");
    // CRoaring 4.4.1 (croaring-rs `cr-c441`): `shape_guard`'s assertion passes another line to
    // `__assert_fail`, its one difference, which is set aside and said.
    let detail = bench_entry(&report, "cguard")["selection"]["detail"].to_string();
    assert!(detail.contains("__assert_fail"), "{detail}\n{err}");
}

#[test]
fn a_working_tree_file_read_by_its_path_that_the_commit_changes_keeps_a_benchmark_measured() {
    // rust-lexical's benchmarks find their data from their executable's path (the nearest
    // `target` directory, then `../data`), which leads from the user's target directory to the
    // working tree's `data/`, not a checkout's: both sides read one file, the working tree's,
    // whichever revision changed it, and a file outside both checkouts was taken for the
    // machine's (the same for both sides). Here the path comes from the environment, the one
    // way a test can point a benchmark at the working tree; head changes that data file.
    let guard = measuring_lock();
    let key = "a working-tree file read by its path";
    let (_dir, repo) = bench_package_shape(&guard, key, |repo| {
        std::fs::create_dir_all(repo.join("data")).unwrap();
        std::fs::write(repo.join("data/input.txt"), "1 2 3\n").unwrap();
        add_bench_target(
            &repo.join("benches"),
            "reads",
            "use std::hint::black_box;\nuse criterion::{criterion_group, criterion_main, Criterion};\n\n\
             fn benches(c: &mut Criterion) {\n    \
             let path = std::env::var(\"SHAPE_DATA\").unwrap_or_default();\n    \
             let text = std::fs::read_to_string(path).unwrap_or_default();\n    \
             c.bench_function(\"data\", |b| b.iter(|| black_box(text.as_str()).len()));\n}\n\n\
             criterion_group!(group, benches);\ncriterion_main!(group);\n",
        );
        amend_base(repo);
        std::fs::write(repo.join("data/input.txt"), "1 2 3 4 5 6 7 8\n").unwrap();
        commit_all(repo, "more data");
    });
    let data = repo.join("data/input.txt");
    let args = with_options(
        &parent_vs_head_json(&[]),
        &["--manifest-path", "benches/Cargo.toml", "--bench", "reads"],
    );
    let output = output_logged(
        perfdiff_command(&repo, &with_default_layouts(&args))
            .env_remove("CARGO_PERFDIFF_MEASURE_ALL")
            .env("SHAPE_DATA", &data),
    );
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    let report = json_report(&output);
    let selection = &bench_entry(&report, "data")["selection"];
    assert_eq!(selection["measured"], true, "{selection:#}\n{err}");
    let detail = selection["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains("working tree") && detail.contains("input.txt"),
        "{selection:#}"
    );
}

#[test]
fn a_benchmark_that_finds_its_data_from_its_executable_s_path_reads_each_revision_s_own() {
    // rust-lexical's benchmarks walk up from `current_exe()` to the nearest `target` directory
    // and read `../data`: under `cargo bench` in a checkout, that checkout's data. Forks run
    // from cargo-perfdiff's own directory read the user's working tree on both sides (here
    // head's data, whichever side ran), so a commit that makes the data 10,000 times longer was
    // `unchanged (same code)`. Run from each side's checkout, base reads 6 bytes and head 60,000.
    let guard = measuring_lock();
    let key = "data found from the executable's path";
    let (_dir, repo) = bench_package_shape(&guard, key, |repo| {
        std::fs::create_dir_all(repo.join("data")).unwrap();
        std::fs::write(repo.join("data/input.txt"), "1 2 3\n").unwrap();
        add_bench_target(
            &repo.join("benches"),
            "found",
            "use std::hint::black_box;\nuse criterion::{criterion_group, criterion_main, Criterion};\n\n\
             fn data() -> String {\n    \
             let exe = std::env::current_exe().unwrap();\n    \
             let target = exe.ancestors().find(|p| p.ends_with(\"target\")).unwrap();\n    \
             std::fs::read_to_string(target.join(\"../../data/input.txt\")).unwrap_or_default()\n}\n\n\
             fn benches(c: &mut Criterion) {\n    \
             let text = data();\n    \
             c.bench_function(\"sum\", |b| {\n        \
             b.iter(|| black_box(text.as_bytes()).iter().map(|&x| u64::from(x)).sum::<u64>())\n    });\n}\n\n\
             criterion_group!(group, benches);\ncriterion_main!(group);\n",
        );
        amend_base(repo);
        std::fs::write(repo.join("data/input.txt"), "12345\n".repeat(10_000)).unwrap();
        commit_all(repo, "much more data");
    });
    let args = with_options(
        &parent_vs_head_json(&[]),
        &["--manifest-path", "benches/Cargo.toml", "--bench", "found"],
    );
    let output = output_logged(
        perfdiff_command(&repo, &with_default_layouts(&args))
            .env_remove("CARGO_PERFDIFF_MEASURE_ALL"),
    );
    let err = stderr(&output);
    let report = json_report(&output);
    let entry = bench_entry(&report, "sum");
    assert_eq!(entry["selection"]["measured"], true, "{entry:#}\n{err}");
    // Two forks a side give no verdict; their means tell which data each side read: a loop
    // over 60,000 bytes against one over 6, thousands of times longer however busy the machine
    // (the same data on both sides, the means are within a few times of each other).
    let mean = |side: &str| entry[side]["mean_ns"].as_f64().unwrap_or_default();
    assert!(mean("head") > 100.0 * mean("base"), "{entry:#}\n{err}");
    // Nothing is left in the checkouts' workspaces once the run is over.
    let slots =
        state_dir(&shared_target_dir(), &repo.join("benches")).join("worktrees/target/package");
    for slot in ["base", "head"] {
        assert!(!slots.join(slot).join("benches/target").exists(), "{slot}");
    }
}

/// [`shared_library_with_a_bench_package`] whose library has a build script that writes a table
/// into its `OUT_DIR` (`gen.rs`, `include!`d, and `bytes.bin`, `include_bytes!`d), and a
/// benchmark `lookup` whose timed loop runs the generated `generated`, which indexes the table at
/// a runtime index: its bounds check's panic location names `gen.rs` by its absolute path in the
/// build-script output directory.
fn shared_library_with_generated_code(repo: &Path) {
    shared_library_with_a_bench_package(repo);
    std::fs::write(
        repo.join("build.rs"),
        "use std::path::Path;\n\nfn main() {\n    \
         let out = std::env::var(\"OUT_DIR\").unwrap();\n    \
         let values: Vec<String> = (0..64u64).map(|i| (i * 7 % 61).to_string()).collect();\n    \
         let code = format!(\n        \
         \"pub static TABLE: [u64; 64] = [{}];\\n\\npub fn generated(i: usize) -> u64 {{\\n    TABLE[i]\\n}}\\n\",\n        \
         values.join(\", \")\n    );\n    \
         std::fs::write(Path::new(&out).join(\"gen.rs\"), code).unwrap();\n    \
         std::fs::write(Path::new(&out).join(\"bytes.bin\"), [3u8, 1, 4, 1, 5, 9, 2, 6]).unwrap();\n    \
         println!(\"cargo::rerun-if-changed=build.rs\");\n}\n",
    )
    .unwrap();
    let lib = repo.join("src/lib.rs");
    let text = std::fs::read_to_string(&lib).unwrap();
    std::fs::write(
        &lib,
        format!(
            "include!(concat!(env!(\"OUT_DIR\"), \"/gen.rs\"));\n\n\
             static BYTES: &[u8] = include_bytes!(concat!(env!(\"OUT_DIR\"), \"/bytes.bin\"));\n\n\
             pub fn lookup(i: usize) -> u64 {{\n    generated(i) + u64::from(BYTES[i % 8])\n}}\n\n{text}"
        ),
    )
    .unwrap();
    replace_in(
        repo,
        "benches/benches/shapes.rs",
        "fn benches(c: &mut Criterion) {\n",
        "fn benches(c: &mut Criterion) {\n    \
         c.bench_function(\"lookup\", |b| b.iter(|| shapelib::lookup(black_box(17))));\n",
    );
    amend_base(repo);
}

#[test]
fn code_that_compiles_its_build_script_s_out_dir_in_is_the_same_code_across_a_version_bump() {
    // Cargo names a build script's output directory (`…/build/<package>-<hash>/out`) by a hash of
    // the package's version: a release renames it, and a panic location in an `include!`d
    // generated file holds the two names as data, so `lookup` was measured for changed data.
    let guard = measuring_lock();
    let key = "generated code across a version bump";
    let (_dir, repo) = shared_repo(&guard, Profile::Quick, key, "lib", |repo| {
        shared_library_with_generated_code(repo);
        replace_in(
            repo,
            "Cargo.toml",
            "version = \"0.1.0\"",
            "version = \"0.2.0\"",
        );
        commit_all(repo, "release 0.2.0");
    });
    let (report, err) = select_bench_package(&repo);
    assert_same_code(&report, &err, &["lookup", "mix", "sum"]);
    let lookup = bench_entry(&report, "lookup")["selection"]["detail"].to_string();
    assert!(
        lookup.starts_with("\"same code: ")
            && lookup.contains("the build-script output directory of `shapelib` read alike"),
        "{lookup}: {:#}",
        bench_entry(&report, "lookup")
    );
    assert_eq!(reason(&report, "version"), "reaches_change", "{err}");
}

#[test]
fn a_generated_file_included_as_bytes_is_still_compared_by_content_across_a_version_bump() {
    // The output directory read alike is only its name: what `include_bytes!` compiled in from
    // it is data, compared by content, and a release that changes it measures its reader.
    let guard = measuring_lock();
    let key = "generated bytes changed across a version bump";
    let (_dir, repo) = shared_repo(&guard, Profile::Quick, key, "lib", |repo| {
        shared_library_with_generated_code(repo);
        replace_in(
            repo,
            "Cargo.toml",
            "version = \"0.1.0\"",
            "version = \"0.2.0\"",
        );
        replace_in(repo, "build.rs", "[3u8, 1, 4, 1,", "[2u8, 7, 1, 8,");
        commit_all(repo, "release 0.2.0 with other bytes");
    });
    let (report, err) = select_bench_package(&repo);
    assert_same_code(&report, &err, &["mix", "sum"]);
    assert_eq!(reason(&report, "lookup"), "reaches_change", "{err}");
    let lookup = bench_entry(&report, "lookup")["selection"].to_string();
    assert!(lookup.contains("changed data"), "{lookup}");
}

#[test]
fn a_release_that_drops_a_feature_no_one_enables_is_the_same_code() {
    // rust-lexical 1.0.6 removed three deprecated features of lexical-util that nothing
    // enabled. Cargo lists a crate's declared features to rustc (`--check-cfg`, for the
    // `unexpected_cfgs` lint); they were hashed into the crate's symbol names, so every symbol
    // of the crate was renamed and a version bump's benchmarks had to be probed.
    let guard = measuring_lock();
    let key = "a feature no one enables dropped";
    let (_dir, repo) = bench_package_shape(&guard, key, |repo| {
        replace_in(
            repo,
            "Cargo.toml",
            "edition = \"2021\"\n",
            "edition = \"2021\"\n\n[features]\nlegacy = []\n",
        );
        amend_base(repo);
        replace_in(repo, "Cargo.toml", "\n[features]\nlegacy = []\n", "");
        commit_all(repo, "drop the legacy feature");
    });
    let (report, err) = select_bench_package(&repo);
    assert_same_code(&report, &err, &["mix", "sum", "version"]);
    assert!(
        err.contains("3 of 3 benchmark(s) execute the same code"),
        "{err}"
    );
}

/// [`shared_library_with_a_bench_package`] whose `mix` calls `shape_xor`, a global label without
/// a type or size written with `global_asm!` (as assembly's functions are), then a commit that
/// changes `sum` only.
#[cfg(target_arch = "x86_64")]
fn library_calling_a_typeless_label(repo: &Path) {
    shared_library_with_a_bench_package(repo);
    replace_in(
        repo,
        "src/lib.rs",
        "pub fn mix(rounds: u64) -> u64 {",
        "std::arch::global_asm!(\".globl shape_xor\", \"shape_xor:\", \"mov rax, rdi\", \
         \"xor rax, rsi\", \"ret\");\n\nextern \"C\" {\n    fn shape_xor(a: u64, b: u64) -> u64;\n}\n\n\
         pub fn mix(rounds: u64) -> u64 {",
    );
    replace_in(
        repo,
        "src/lib.rs",
        "x = (x ^ i)",
        "x = unsafe { shape_xor(x, i) }",
    );
    amend_base(repo);
    sum_adds_another_multiple(repo);
}

#[cfg(target_arch = "x86_64")]
#[test]
fn code_of_a_global_label_without_a_type_is_compared_like_a_function() {
    // BLAKE3's build script assembles `.S` files whose functions are global labels without
    // `.type` or `.size` (`blake3_hash_many_avx2`): no symbol covered the code they ran, and
    // 49 of 67 benchmarks were measured for "no symbol covers the executed address".
    let guard = measuring_lock();
    let key = "a global label without a type";
    let (_dir, repo) = shared_repo(&guard, Profile::Quick, key, "lib", |repo| {
        library_calling_a_typeless_label(repo);
    });
    only_sum_reaches_the_change(&repo);
    // The label's own code changed: the benchmark that runs it reaches the change.
    let key = "a global label without a type, changed";
    let (_dir, repo) = shared_repo(&guard, Profile::Quick, key, "lib", |repo| {
        library_calling_a_typeless_label(repo);
        replace_in(repo, "src/lib.rs", "xor rax, rsi", "or rax, rsi");
        commit_all(repo, "mix ors");
    });
    let manifest = ["--manifest-path", "benches/Cargo.toml"];
    let output = selecting(&repo, &with_options(&parent_vs_head_json(&[]), &manifest));
    let err = stderr(&output);
    let report = json_report(&output);
    assert_eq!(reason(&report, "mix"), "reaches_change", "{err}");
    assert_eq!(reason(&report, "sum"), "same_code", "{err}");
}

/// A build script that names the code it gives the linker after the package's version, as
/// ring's does (`ring_core_0_17_14_`: every C and assembly symbol, and the static library it
/// links): `shape_core_<version>_xor`, a typed and sized assembly function written with
/// `global_asm!` into `OUT_DIR`, and an (empty) static library `shape_core_<version>_`.
const VERSION_PREFIXING_BUILD_SCRIPT: &str = r##"use std::path::Path;

fn main() {
    let out = std::env::var("OUT_DIR").unwrap();
    let version = std::env::var("CARGO_PKG_VERSION").unwrap().replace('.', "_");
    let p = format!("shape_core_{version}_");
    let code = format!(
        "std::arch::global_asm!(\".globl {p}xor\", \".type {p}xor,@function\", \"{p}xor:\", \
         \"mov rax, rdi\", \"xor rax, rsi\", \"ret\", \".size {p}xor, .-{p}xor\");\n\
         unsafe extern \"C\" {{\n    #[link_name = \"{p}xor\"]\n    \
         fn shape_xor(a: u64, b: u64) -> u64;\n}}\n"
    );
    std::fs::write(Path::new(&out).join("prefixed.rs"), code).unwrap();
    std::fs::write(Path::new(&out).join(format!("lib{p}.a")), b"!<arch>\n").unwrap();
    println!("cargo::rustc-link-search=native={out}");
    println!("cargo::rustc-link-lib=static={p}");
    println!("cargo::rerun-if-changed=build.rs");
}
"##;

/// [`shared_library_with_a_bench_package`] with [`VERSION_PREFIXING_BUILD_SCRIPT`], `mix` calling
/// the assembly function, then a release (0.1.0 → 0.2.0) that changes nothing else.
#[cfg(target_arch = "x86_64")]
fn library_prefixing_its_symbols_with_its_version(repo: &Path) {
    shared_library_with_a_bench_package(repo);
    std::fs::write(repo.join("build.rs"), VERSION_PREFIXING_BUILD_SCRIPT).unwrap();
    replace_in(
        repo,
        "src/lib.rs",
        "pub fn mix(rounds: u64) -> u64 {",
        "include!(concat!(env!(\"OUT_DIR\"), \"/prefixed.rs\"));\n\npub fn mix(rounds: u64) -> u64 {",
    );
    replace_in(
        repo,
        "src/lib.rs",
        "x = (x ^ i)",
        "x = unsafe { shape_xor(x, i) }",
    );
    amend_base(repo);
    replace_in(
        repo,
        "Cargo.toml",
        "version = \"0.1.0\"",
        "version = \"0.2.0\"",
    );
    commit_all(repo, "release 0.2.0");
}

#[cfg(target_arch = "x86_64")]
#[test]
fn a_build_script_that_names_its_symbols_after_the_version_is_the_same_code_across_a_bump() {
    // ring 0.17.14 → 0.17.16000: 0 of 123 benchmarks the same code. The static library the
    // build script links (`-l static=ring_core_0_17_14_`) went into every Rust symbol's hash,
    // and every assembly symbol (`ring_core_0_17_14_chacha20_poly1305_open_avx2`) had no
    // partner in head.
    let guard = measuring_lock();
    let key = "symbols named after the version";
    let (_dir, repo) = shared_repo(&guard, Profile::Quick, key, "lib", |repo| {
        library_prefixing_its_symbols_with_its_version(repo);
    });
    let (report, err) = select_bench_package(&repo);
    assert_same_code(&report, &err, &["mix", "sum"]);
    assert_eq!(reason(&report, "version"), "reaches_change", "{err}");
}

#[test]
fn a_benchmark_that_panics_on_its_data_file_says_why_its_trace_failed() {
    // pcap-file's benchmarks parse `benches/bench.pcap`, which a clone without Git LFS holds
    // as a pointer: each panicked in its routine, and was measured for "its trace failed: …
    // it exited with 101", which names nothing to act on.
    let guard = measuring_lock();
    let key = "a data file that is a Git LFS pointer";
    let (_dir, repo) = bench_package_shape(&guard, key, |repo| {
        std::fs::write(
            repo.join("benches/data.txt"),
            "version https://git-lfs.github.com/spec/v1\noid sha256:0\nsize 9\n",
        )
        .unwrap();
        replace_in(
            repo,
            "benches/benches/shapes.rs",
            "fn benches(c: &mut Criterion) {\n",
            "fn benches(c: &mut Criterion) {\n    \
             c.bench_function(\"data\", |b| b.iter(|| std::fs::read_to_string(\"data.txt\")\
             .unwrap().trim().parse::<u64>().expect(\"data.txt holds a number\")));\n",
        );
        amend_base(repo);
        sum_adds_another_multiple(repo);
    });
    let args = [
        "HEAD~1",
        "HEAD",
        "--list",
        "--manifest-path",
        "benches/Cargo.toml",
    ];
    let output = selecting(&repo, &args);
    let all = all_output(&output);
    let data = all
        .lines()
        .find(|line| line.starts_with("data "))
        .unwrap_or_else(|| panic!("no line for `data`: {all}"));
    assert!(
        data.contains("its trace failed")
            && data.contains("panicked at benches/shapes.rs")
            && data.contains("data.txt holds a number"),
        "{data}\n{all}"
    );
}

/// [`shared_library_with_a_bench_package`] whose `mix` registers a fork handler with
/// `pthread_atfork` once (as rand 0.8's `thread_rng()` does), then a commit that changes `sum`
/// only.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn library_registering_a_fork_handler(repo: &Path) {
    shared_library_with_a_bench_package(repo);
    replace_in(
        repo,
        "src/lib.rs",
        "pub fn mix(rounds: u64) -> u64 {\n",
        "extern \"C\" {\n    fn pthread_atfork(\n        prepare: Option<extern \"C\" fn()>,\n        \
         parent: Option<extern \"C\" fn()>,\n        child: Option<extern \"C\" fn()>,\n    \
         ) -> i32;\n}\n\nstatic FORK_HANDLER: std::sync::Once = std::sync::Once::new();\n\n\
         pub fn mix(rounds: u64) -> u64 {\n    \
         FORK_HANDLER.call_once(|| unsafe {\n        pthread_atfork(None, None, None);\n    });\n",
    );
    amend_base(repo);
    sum_adds_another_multiple(repo);
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn a_benchmark_that_registers_a_fork_handler_is_still_the_same_code() {
    // rust-crc32fast's benchmarks fill their input from rand 0.8's `thread_rng()`, which calls
    // `pthread_atfork`: glibc links it from `libc_nonshared.a`, which the linker script `libc.so`
    // adds and no input names, and every benchmark, across a version bump too, was measured for
    // "__pthread_atfork is in none of the objects the executable was linked from".
    let guard = measuring_lock();
    let key = "a fork handler registered";
    let (_dir, repo) = shared_repo(&guard, Profile::Quick, key, "lib", |repo| {
        library_registering_a_fork_handler(repo);
    });
    only_sum_reaches_the_change(&repo);
}

#[test]
fn a_dependency_added_to_the_library_changes_the_code_of_no_benchmark_it_does_not_reach() {
    // html5ever's #740 added `memchr` to the library's dependencies for its serializer: one more
    // `--extern` to the library, and when that went into its symbol hashes, every function of
    // the library (and of the crates above it) was renamed, and the tokenizer's benchmarks,
    // which the change does not reach, were measured for "changed code".
    let guard = measuring_lock();
    let key = "a new dependency of the library";
    let (_dir, repo) = bench_package_shape(&guard, key, |repo| {
        write_library_package(&repo.join("helper"), "helper", "");
        std::fs::write(
            repo.join("helper/src/lib.rs"),
            "pub fn triple(x: u64) -> u64 {\n    x.wrapping_mul(3)\n}\n",
        )
        .unwrap();
        let manifest = std::fs::read_to_string(repo.join("Cargo.toml")).unwrap();
        std::fs::write(
            repo.join("Cargo.toml"),
            format!("{manifest}\n[dependencies]\nhelper = {{ path = \"helper\" }}\n"),
        )
        .unwrap();
        replace_in(
            repo,
            "src/lib.rs",
            "s.wrapping_add(i * 3)",
            "s.wrapping_add(helper::triple(i) ^ 1)",
        );
        commit_all(repo, "sum uses a new dependency");
    });
    let report = only_sum_reaches_the_change(&repo);
    let changed = bench_entry(&report, "sum")["selection"].to_string();
    assert!(changed.contains("shapelib::sum"), "{changed}");
}

#[test]
fn a_library_that_denies_a_warning_of_today_s_compiler_is_still_compared() {
    // rust-base64 at 0.21.7 (the base of its #269) has `#![deny(warnings)]`, and today's
    // compiler warns about two things it wrote (`unexpected_cfgs`, an elided lifetime): the
    // base's build stopped with "could not compile `base64`", and nothing was compared.
    let guard = measuring_lock();
    let key = "a library that denies its own warning";
    let (_dir, repo) = bench_package_shape(&guard, key, |repo| {
        replace_in(
            repo,
            "src/lib.rs",
            "pub fn mix(",
            "#![deny(warnings)]\n\nfn never_called() {}\n\npub fn mix(",
        );
        amend_base(repo);
        sum_adds_another_multiple(repo);
    });
    only_sum_reaches_the_change(&repo);
}

#[test]
fn a_release_that_renames_a_function_names_it_as_changed_code_not_the_version() {
    // rust-base64's #269 rewrote its decode loop (functions gone, new ones) and bumped 0.21.7 →
    // 0.22.0: its decode benchmarks were measured, rightly, but "undecided" for the version's
    // "new symbol hashes", which a normalised build does not give; the gone function is the
    // reason.
    let guard = measuring_lock();
    let key = "a release with a function renamed";
    let (_dir, repo) = bench_package_shape(&guard, key, |repo| {
        replace_in(
            repo,
            "src/lib.rs",
            "(0..rounds).fold(0u64, |s, i| s.wrapping_add(i * 3))",
            "(0..rounds).fold(0u64, |s, i| s.wrapping_add(thrice(i)))\n}\n\n\
             #[inline(never)]\nfn thrice(i: u64) -> u64 {\n    std::hint::black_box(i) * 3",
        );
        amend_base(repo);
        replace_in(
            repo,
            "Cargo.toml",
            "version = \"0.1.0\"",
            "version = \"0.2.0\"",
        );
        replace_in(repo, "src/lib.rs", "fn thrice(", "fn times_three(");
        replace_in(
            repo,
            "src/lib.rs",
            "wrapping_add(thrice(i))",
            "wrapping_add(times_three(i))",
        );
        commit_all(repo, "release 0.2.0, sum's helper renamed");
    });
    let (report, err) = select_bench_package(&repo);
    assert_eq!(reason(&report, "mix"), "same_code", "{err}");
    assert_eq!(reason(&report, "sum"), "reaches_change", "{err}");
    let changed = bench_entry(&report, "sum")["selection"].to_string();
    assert!(changed.contains("shapelib::"), "{changed}");
    assert!(!changed.contains("symbol hashes"), "{changed}");
}

#[test]
fn a_library_outside_the_bench_package_s_workspace_compiles_once_for_both_sides() {
    let _guard = measuring_lock();
    let dir = scratch();
    let repo = dir.path().join("lib");
    library_with_a_bench_package(&repo);
    replace_in(
        &repo,
        "benches/benches/shapes.rs",
        "black_box(200)",
        "black_box(201)",
    );
    commit_all(&repo, "mix does more rounds");
    let args = with_options(
        &parent_vs_head_json(&["sum"]),
        &["--manifest-path", "benches/Cargo.toml", "--verbose"],
    );
    let output = output_logged(&mut perfdiff_command(&repo, &args));
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    // The library is one unit to cargo for both checkouts (built through one path), and head's
    // checkout of the same source, written after base's build, is not taken for changed.
    assert_eq!(err.matches(": compiling shapelib").count(), 1, "{err}");
    assert!(
        err.contains("base HEAD~1 (") && err.contains("head HEAD ("),
        "{err}"
    );
    assert!(err.contains("one path for both checkouts"), "{err}");
    // The bench package changed: compiled on both sides.
    assert_eq!(err.matches(": compiling shapebench").count(), 2, "{err}");
}

/// A virtual workspace whose `fixtures` crate finds its files through the directory compiled
/// into it, and a `bench` package whose `read` benchmark uses it and whose `other` benchmark
/// does work of its own; committed as "base".
fn workspace_with_a_fixtures_crate(repo: &Path) {
    criterion_workspace_repo(repo, &["fixtures", "bench"], |repo| {
        write_library_package(&repo.join("fixtures"), "fixtures", "");
        std::fs::write(
            repo.join("fixtures/src/lib.rs"),
            "pub fn file(name: &str) -> std::path::PathBuf {\n    \
             std::path::Path::new(env!(\"CARGO_MANIFEST_DIR\")).join(\"data\").join(name)\n}\n",
        )
        .unwrap();
        std::fs::create_dir_all(repo.join("fixtures/data")).unwrap();
        std::fs::write(repo.join("fixtures/data/input.txt"), "3 1 4 1 5 9 2 6\n").unwrap();
        let bench = repo.join("bench");
        write_criterion_package(
            &bench,
            "bench",
            &[],
            "\n[dependencies]\nfixtures = { path = \"../fixtures\" }\n",
        );
        add_bench_target(
            &bench,
            "reads",
            "use std::hint::black_box;\nuse criterion::{criterion_group, criterion_main, Criterion};\n\n\
             fn benches(c: &mut Criterion) {\n    \
             let input = std::fs::read(fixtures::file(\"input.txt\")).expect(\"the fixture\");\n    \
             c.bench_function(\"read\", |b| b.iter(|| black_box(&input).iter().map(|&x| x as u64).sum::<u64>()));\n    \
             c.bench_function(\"other\", |b| b.iter(|| (0..black_box(100u64)).fold(1u64, |a, i| a.wrapping_mul(i | 1))));\n}\n\n\
             criterion_group!(group, benches);\ncriterion_main!(group);\n",
        );
    });
}

#[test]
fn a_crate_that_compiles_its_directory_in_builds_the_same_code_in_both_checkouts() {
    let guard = measuring_lock();
    let (_dir, repo) = shared_repo(&guard, Profile::Quick, "fixtures crate", "ws", |repo| {
        workspace_with_a_fixtures_crate(repo);
        replace_in(repo, "bench/benches/reads.rs", "i | 1", "i | 3");
        commit_all(repo, "other changes");
    });
    let output = selecting(&repo, &parent_vs_head_json(&[]));
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    let report = json_report(&output);
    assert_eq!(reason(&report, "read"), "same_code", "{err}");
    assert_eq!(reason(&report, "other"), "reaches_change", "{err}");
}

/// [`selecting`] with `--verbose` (the build log names each crate compiled) and without the
/// store of kept builds, so each side is built by cargo here and its compilations are counted.
fn selecting_verbose_alone(dir: &Path, args: &[&str]) -> Output {
    let args = with_options(args, &["--verbose"]);
    output_logged(
        perfdiff_command(dir, &with_default_layouts(&args))
            .env_remove("CARGO_PERFDIFF_MEASURE_ALL")
            .env(NO_SHARED_BUILDS.0, NO_SHARED_BUILDS.1),
    )
}

/// How many times the build log of [`selecting_verbose_alone`] says, on either side, that cargo
/// compiled the package `name`.
fn compiled(err: &str, name: &str) -> usize {
    err.lines()
        .filter(|line| line.ends_with(&format!(": compiling {name}")))
        .count()
}

/// A copy of crates.io's `itoa` 1.0.18 (the version criterion's lock holds) at `dir`, as a
/// repository holds a patched dependency: its source from cargo's registry cache and a manifest
/// of its own (the registry's names dev-dependencies this suite has not built).
fn vendored_itoa(dir: &Path) {
    let registry = cargo_perfdiff::steps::build::cargo_env::cargo_home()
        .expect("cargo's home")
        .join("registry/src");
    let source = std::fs::read_dir(&registry)
        .into_iter()
        .flatten()
        .flatten()
        .map(|index| index.path().join("itoa-1.0.18/src"))
        .find(|src| src.is_dir())
        .unwrap_or_else(|| panic!("itoa 1.0.18 in {}", registry.display()));
    std::fs::create_dir_all(dir.join("src")).unwrap();
    for file in std::fs::read_dir(&source).unwrap().flatten() {
        std::fs::copy(file.path(), dir.join("src").join(file.file_name())).unwrap();
    }
    std::fs::write(
        dir.join("Cargo.toml"),
        "[package]\nname = \"itoa\"\nversion = \"1.0.18\"\nedition = \"2021\"\n\n\
         [features]\nno-panic = []\n",
    )
    .unwrap();
}

/// Resolves the workspace of `manifest` (in `repo`) into its `Cargo.lock`, and checks that its
/// `[patch]` of `itoa` is used: the lock's `itoa` has no registry source.
fn lock_with_the_patch(repo: &Path, manifest: &str) {
    let output = std::process::Command::new("cargo")
        .args([
            "metadata",
            "--format-version",
            "1",
            "--manifest-path",
            manifest,
        ])
        .current_dir(repo)
        .output()
        .expect("cargo metadata runs");
    assert!(output.status.success(), "{}", stderr(&output));
    let lock_path = repo.join(manifest).with_file_name("Cargo.lock");
    let lock = std::fs::read_to_string(lock_path).unwrap();
    let itoa = lock
        .split("[[package]]")
        .find(|entry| entry.contains("name = \"itoa\""))
        .expect("itoa in the lock");
    assert!(!itoa.contains("source ="), "the patch is unused: {lock}");
}

/// A virtual workspace shaped like RustCrypto/hashes' (where head's build recompiled every
/// member before the build's freshness gave same-content files the recorded moment): one
/// member is a crate crates.io also has (`itoa`, as `sha1` is there) and `[patch.crates-io]`
/// points every use of it, criterion's own (through serde_json) included, at that member.
/// `fmtlib` formats with it; the `bench` package's `format` benchmark calls `fmtlib`, `other`
/// does work of its own. Committed as "base".
fn workspace_patching_its_own_member(repo: &Path) {
    criterion_workspace_repo(repo, &["itoa", "fmtlib", "bench"], |repo| {
        let manifest = std::fs::read_to_string(repo.join("Cargo.toml")).unwrap();
        std::fs::write(
            repo.join("Cargo.toml"),
            format!("{manifest}\n[patch.crates-io]\nitoa = {{ path = \"itoa\" }}\n"),
        )
        .unwrap();
        vendored_itoa(&repo.join("itoa"));
        write_library_package(
            &repo.join("fmtlib"),
            "fmtlib",
            "\n[dependencies]\nitoa = \"1\"\n",
        );
        std::fs::write(
            repo.join("fmtlib/src/lib.rs"),
            "pub fn digits(x: u64) -> usize {\n    itoa::Buffer::new().format(x).len()\n}\n",
        )
        .unwrap();
        let bench = repo.join("bench");
        write_criterion_package(
            &bench,
            "bench",
            &[],
            "\n[dependencies]\nfmtlib = { path = \"../fmtlib\" }\n",
        );
        add_bench_target(
            &bench,
            "formats",
            "use std::hint::black_box;\nuse criterion::{criterion_group, criterion_main, Criterion};\n\n\
             fn benches(c: &mut Criterion) {\n    \
             c.bench_function(\"format\", |b| b.iter(|| fmtlib::digits(black_box(1_234_567))));\n    \
             c.bench_function(\"other\", |b| b.iter(|| (0..black_box(100u64)).fold(1u64, |a, i| a.wrapping_mul(i | 1))));\n}\n\n\
             criterion_group!(group, benches);\ncriterion_main!(group);\n",
        );
        lock_with_the_patch(repo, "Cargo.toml");
    });
}

#[test]
fn a_patch_to_the_workspace_s_own_member_compiles_each_crate_once_for_both_sides() {
    let _guard = measuring_lock();
    let dir = scratch();
    let repo = dir.path().join("ws");
    workspace_patching_its_own_member(&repo);
    replace_in(&repo, "bench/benches/formats.rs", "i | 1", "i | 3");
    commit_all(&repo, "other changes");
    let output = selecting_verbose_alone(&repo, &parent_vs_head_json(&[]));
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    // Head's checkout, written after base's build, shares base's units: the patched member
    // and the library the commit does not touch compile once, the changed package on both
    // sides.
    assert_eq!(compiled(&err, "itoa"), 1, "{err}");
    assert_eq!(compiled(&err, "fmtlib"), 1, "{err}");
    assert!(compiled(&err, "bench") >= 2, "{err}");
    let report = json_report(&output);
    assert_eq!(reason(&report, "format"), "same_code", "{err}");
    assert_eq!(reason(&report, "other"), "reaches_change", "{err}");
}

/// The bench-package shape ([`library_with_a_bench_package`]'s) with two more things real
/// libraries have: the library formats with `itoa`, which the bench package's workspace patches
/// to a copy in the repository (`[patch.crates-io] itoa = { path = "../vendor/itoa" }`: outside
/// that workspace, so cargo names it by its absolute path), and a build script that generates
/// code (`$OUT_DIR/gen.rs`, `include!`d, whose assertion's panic location names the generated
/// file by its absolute path in the target directory). `mix` does the library's own work,
/// `digits` formats, `generated` reads the generated table. Committed as "base".
fn library_with_a_patch_and_generated_code(repo: &Path) {
    std::fs::create_dir_all(repo.join("src")).unwrap();
    git_ok(repo, &["init", "-q"]);
    std::fs::write(
        repo.join("Cargo.toml"),
        "[package]\nname = \"genlib\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
         [dependencies]\nitoa = \"1\"\n\n[workspace]\nexclude = [\"benches\", \"vendor\"]\n",
    )
    .unwrap();
    std::fs::write(
        repo.join("build.rs"),
        "use std::path::Path;\n\n// The step between the table's values.\nconst STEP: u64 = 7;\n\n\
         fn main() {\n    \
         let values: Vec<String> = (0..64u64).map(|i| (i * STEP % 61).to_string()).collect();\n    \
         let code = format!(\n        \
         \"pub const TABLE: [u64; 64] = [{}];\\n\\npub fn generated(i: u64) -> u64 {{\\n    \
         assert!(i < 1 << 40, \\\"{{i}} is out of range\\\");\\n    \
         TABLE[(i % 64) as usize] + TABLE[(i * 3 % 64) as usize]\\n}}\\n\",\n        \
         values.join(\", \")\n    );\n    \
         let out = Path::new(&std::env::var(\"OUT_DIR\").unwrap()).join(\"gen.rs\");\n    \
         std::fs::write(out, code).unwrap();\n    \
         println!(\"cargo:rerun-if-changed=build.rs\");\n}\n",
    )
    .unwrap();
    std::fs::write(
        repo.join("src/lib.rs"),
        "include!(concat!(env!(\"OUT_DIR\"), \"/gen.rs\"));\n\n\
         pub fn mix(rounds: u64) -> u64 {\n    let mut x = 1u64;\n    for i in 0..rounds {\n        \
         x = (x ^ i).wrapping_mul(0x100_0000_01b3).rotate_left(5);\n    }\n    x\n}\n\n\
         pub fn digits(x: u64) -> usize {\n    itoa::Buffer::new().format(x).len()\n}\n",
    )
    .unwrap();
    vendored_itoa(&repo.join("vendor/itoa"));
    let benches = repo.join("benches");
    write_criterion_package(
        &benches,
        "genbench",
        &[],
        "\n[dependencies]\ngenlib = { path = \"..\" }\n\n\
         [patch.crates-io]\nitoa = { path = \"../vendor/itoa\" }\n",
    );
    add_bench_target(
        &benches,
        "gens",
        "use std::hint::black_box;\nuse criterion::{criterion_group, criterion_main, Criterion};\n\n\
         fn benches(c: &mut Criterion) {\n    \
         c.bench_function(\"mix\", |b| b.iter(|| genlib::mix(black_box(200))));\n    \
         c.bench_function(\"digits\", |b| b.iter(|| genlib::digits(black_box(1_234_567))));\n    \
         c.bench_function(\"generated\", |b| b.iter(|| genlib::generated(black_box(17))));\n}\n\n\
         criterion_group!(group, benches);\ncriterion_main!(group);\n",
    );
    copy_demo_lock(&benches);
    lock_with_the_patch(repo, "benches/Cargo.toml");
    std::fs::write(repo.join(".gitignore"), "target/\n").unwrap();
    commit_all(repo, "base");
}

#[test]
fn a_patch_outside_the_bench_package_and_generated_code_build_the_same_code_in_both_checkouts() {
    let _guard = measuring_lock();
    let dir = scratch();
    let repo = dir.path().join("lib");
    library_with_a_patch_and_generated_code(&repo);
    // The build script changes, what it generates does not.
    replace_in(&repo, "build.rs", "table's values", "table's 64 values");
    commit_all(&repo, "build script comment");
    let args = with_options(
        &parent_vs_head_json(&[]),
        &["--manifest-path", "benches/Cargo.toml"],
    );
    let output = selecting_verbose_alone(&repo, &args);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    // The patched crate, outside the bench package's workspace, is one unit for both sides
    // (built through one path); the library's build script changed, so it runs on both.
    assert_eq!(compiled(&err, "itoa"), 1, "{err}");
    assert_eq!(compiled(&err, "genlib"), 2, "{err}");
    assert!(err.contains("one path for both checkouts"), "{err}");
    let report = json_report(&output);
    assert_same_code(&report, &err, &["mix", "digits", "generated"]);

    // What the build script generates changes: the benchmark that reads it is measured, the
    // others are not.
    replace_in(&repo, "build.rs", "STEP: u64 = 7", "STEP: u64 = 11");
    commit_all(&repo, "another step");
    let output = selecting_verbose_alone(&repo, &args);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    let report = json_report(&output);
    assert_eq!(reason(&report, "generated"), "reaches_change", "{err}");
    assert_same_code(&report, &err, &["mix", "digits"]);
}

/// bstr's shape: the root package is the library, with no bench target, and its workspace has
/// the bench package as a member (`members = ["bench"]`, `path = ".."`); committed as "base",
/// then a commit changing `sum`.
fn library_with_a_bench_member(repo: &Path) {
    library_with_a_bench_package(repo);
    replace_in(
        repo,
        "Cargo.toml",
        "exclude = [\"benches\"]",
        "members = [\"benches\"]",
    );
    std::fs::rename(repo.join("benches/Cargo.lock"), repo.join("Cargo.lock")).unwrap();
    commit_all(repo, "the bench package is a member");
    replace_in(repo, "src/lib.rs", "i * 3", "i * 5");
    commit_all(repo, "sum triples no more");
}

#[test]
fn the_member_named_by_its_manifest_or_its_directory_is_the_package_built() {
    // bstr: `--manifest-path bench/Cargo.toml` ran cargo at the workspace root, which builds the
    // root package (no bench target) where the user's `cargo bench` builds the member's: "no
    // benchmarks found". From the member's directory it was the same.
    let guard = measuring_lock();
    let (_dir, repo) = shared_repo(&guard, Profile::Quick, "bench member", "lib", |repo| {
        library_with_a_bench_member(repo);
    });
    let list = ["HEAD~1", "HEAD", "--list", "--format", "json"];
    let from_root = with_options(&list, &["--manifest-path", "benches/Cargo.toml"]);
    let runs = [
        (repo.clone(), from_root),
        (repo.join("benches"), list.to_vec()),
    ];
    for (dir, args) in &runs {
        let output = output_logged(&mut perfdiff_command(dir, args));
        assert_eq!(
            output.status.code(),
            Some(0),
            "{args:?}: {}",
            all_output(&output)
        );
        let listing: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        for id in ["mix", "sum", "version"] {
            bench_entry(&listing, id);
        }
    }
}

/// The JSON report and the standard error of selecting HEAD~1 → HEAD from the bench package
/// (`--manifest-path benches/Cargo.toml`), which must succeed.
fn select_bench_package(repo: &Path) -> (serde_json::Value, String) {
    let manifest = ["--manifest-path", "benches/Cargo.toml"];
    let output = selecting(repo, &with_options(&parent_vs_head_json(&[]), &manifest));
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    (json_report(&output), err)
}

/// The bench package's selection (`--manifest-path benches/Cargo.toml`, parent against head):
/// `mix` and `version` the same code, `sum` reaching the change. The JSON report.
fn only_sum_reaches_the_change(repo: &Path) -> serde_json::Value {
    let (report, err) = select_bench_package(repo);
    assert_same_code(&report, &err, &["mix", "version"]);
    assert_eq!(reason(&report, "sum"), "reaches_change", "{err}");
    report
}

#[test]
fn a_bench_package_cargo_counts_a_member_despite_exclude_is_named_with_the_workspace() {
    // hyperium/http (field-trials.md, session 18): its root workspace has `members = ["."]`
    // and `exclude = ["benches"]`; cargo counts every directory below a member "." as one, so
    // `benches/` is refused ("current package believes it's in a workspace when it's not"),
    // by `cargo bench` too. The error kept cargo's first and last lines only, the last as its
    // cause: the advice to add the package to `exclude`, where it already is, without the
    // paths of the package and the workspace or "adding `benches` to `workspace.members`".
    let dir = scratch();
    let repo = dir.path().join("lib");
    library_with_a_bench_package(&repo);
    replace_in(
        &repo,
        "Cargo.toml",
        "[workspace]\n",
        "[workspace]\nmembers = [\".\"]\n",
    );
    commit_all(&repo, "members: the root");
    let args = [
        "HEAD~1",
        "HEAD",
        "--list",
        "--manifest-path",
        "benches/Cargo.toml",
    ];
    let output = output_logged(&mut perfdiff_command(&repo, &args));
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(err.contains("believes it's in a workspace"), "{err}");
    assert!(err.contains("benches/Cargo.toml"), "the package: {err}");
    assert!(
        err.contains("adding `benches` to the `workspace.members` array"),
        "{err}"
    );
    assert!(!err.contains("caused by: Alternatively"), "{err}");
}

#[test]
fn a_toolchain_file_naming_a_toolchain_not_installed_says_so_and_how_to_install_it() {
    // str4d/rage (field-trials.md, `age-version`) pins 1.74.0 in `rust-toolchain.toml`. Run as
    // `cargo-perfdiff perfdiff` (no rustup proxy before it to set `RUSTUP_TOOLCHAIN`), cargo's
    // proxy fails, and under `RUST_BACKTRACE=1` rustup prints anyhow's backtrace after its
    // message: the run's error named the last frame as the cause, "(caused by: 12: <unknown>)".
    // As a user's shell runs it: rustup's `cargo`, not the toolchain's that `cargo test` gives.
    // Without rustup no toolchain file is read at all: nothing to check.
    if Command::new("rustup").arg("--version").output().is_err() {
        eprintln!("no rustup: a toolchain file names nothing to install");
        return;
    }
    let dir = scratch();
    let repo = pinning_a_toolchain_not_installed(dir.path());
    let output = output_logged(
        list_as_a_shell_runs_it(&repo, dir.path())
            .env_remove("CARGO")
            .env_remove("RUSTUP_TOOLCHAIN")
            .env("RUST_BACKTRACE", "1")
            .env("RUSTUP_AUTO_INSTALL", "0"),
    );
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(
        err.contains("is not installed (help: run `rustup toolchain install` to install it)"),
        "{err}"
    );
    assert!(!err.contains("<unknown>"), "{err}");
}

#[test]
fn started_by_rustup_each_checkout_builds_with_its_own_toolchain_file() {
    // `cargo perfdiff` through rustup's proxy inherits the toolchain rustup chose where the
    // user stood (`RUSTUP_TOOLCHAIN`, `CARGO`): both checkouts were built with it, whatever
    // each one's `rust-toolchain.toml` says. Here base pins a toolchain that is not installed
    // and head pins none: as the user's own build of base would, base's build must fail.
    let Some(cargo_home) = rustup_cargo_home() else {
        eprintln!("no rustup: a toolchain file names nothing to resolve");
        return;
    };
    let dir = scratch();
    let repo = pinning_a_toolchain_not_installed(dir.path());
    std::fs::remove_file(repo.join("rust-toolchain.toml")).unwrap();
    commit_all(&repo, "unpin it");
    let toolchain_cargo = Command::new("rustup")
        .args(["which", "cargo"])
        .output()
        .unwrap();
    let toolchain_cargo = String::from_utf8(toolchain_cargo.stdout).unwrap();
    let output = output_logged(
        list_as_a_shell_runs_it(&repo, dir.path())
            .env("CARGO", toolchain_cargo.trim())
            .env("CARGO_HOME", cargo_home)
            .env("RUSTUP_TOOLCHAIN", "stable")
            .env("RUSTUP_TOOLCHAIN_SOURCE", "default")
            .env("RUSTUP_AUTO_INSTALL", "0"),
    );
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{err}");
    let base_failed = "error: building the benchmarks of base HEAD~1";
    assert!(err.contains(base_failed), "{err}");
    assert!(err.contains("toolchain '1.1.0-"), "{err}");
    let help = "is not installed (help: run `rustup toolchain install` to install it)";
    assert!(err.contains(help), "{err}");
}

/// A library with a bench package whose last commit pins toolchain 1.1.0 (not installed).
fn pinning_a_toolchain_not_installed(dir: &Path) -> PathBuf {
    let repo = dir.join("lib");
    library_with_a_bench_package(&repo);
    let toolchain = "[toolchain]\nchannel = \"1.1.0\"\n";
    std::fs::write(repo.join("rust-toolchain.toml"), toolchain).unwrap();
    commit_all(&repo, "pin a toolchain");
    repo
}

/// `cargo-perfdiff perfdiff HEAD~1 HEAD --list` on `repo`'s bench package, with `cargo` found
/// on `PATH` as in a user's shell ([`path_without_toolchains`]), building into `dir/target`.
fn list_as_a_shell_runs_it(repo: &Path, dir: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_cargo-perfdiff"));
    command
        .args(["perfdiff", "HEAD~1", "HEAD", "--list"])
        .args(["--manifest-path", "benches/Cargo.toml"])
        .current_dir(repo)
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .env("PATH", path_without_toolchains());
    command
}

/// The `CARGO_HOME` holding rustup's proxies (`bin/cargo`), or `None` without rustup.
fn rustup_cargo_home() -> Option<std::path::PathBuf> {
    let rustup = Command::new("rustup").arg("--version").output().ok()?;
    if !rustup.status.success() {
        return None;
    }
    let home = std::env::var_os("CARGO_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME").map(|home| std::path::Path::new(&home).join(".cargo"))
        })?;
    home.join("bin").join("cargo").is_file().then_some(home)
}

/// `PATH` without a toolchain's own directories (`…/.rustup/toolchains/…/bin`, which rustup's
/// proxy puts first for `cargo test`): `cargo` is rustup's proxy, as in a user's shell.
fn path_without_toolchains() -> std::ffi::OsString {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let kept =
        std::env::split_paths(&path).filter(|p| !p.to_string_lossy().contains("/toolchains/"));
    std::env::join_paths(kept).unwrap()
}

#[test]
fn a_bench_target_using_an_item_behind_a_feature_names_the_feature() {
    // tokio-rs/tracing (field-trials.md, `tracing-version`): tracing-subscriber's `filter` and
    // `filter_log` benches use `EnvFilter`, behind its `env-filter` feature, with no
    // `required-features`; the run quoted "unresolved import" alone.
    // A target that builds beside it, so the run goes on and says why it left `filter` out.
    let dir = scratch();
    let repo = dir.path().join("gated");
    write_criterion_package(
        &repo,
        "gated",
        &[("ok", &[("a", 10)])],
        "\n[features]\nenv-filter = []\n",
    );
    copy_demo_lock(&repo);
    std::fs::write(
        repo.join("src/lib.rs"),
        "#[cfg(feature = \"env-filter\")]\npub struct EnvFilter;\n",
    )
    .unwrap();
    add_bench_target(
        &repo,
        "filter",
        "use gated::EnvFilter;\n\nfn main() {\n    let _ = EnvFilter;\n}\n",
    );
    std::fs::write(repo.join(".gitignore"), "target/\n").unwrap();
    git_ok(&repo, &["init", "-q"]);
    commit_all(&repo, "base");
    std::fs::write(repo.join("README.md"), "gated\n").unwrap();
    commit_all(&repo, "a readme");
    let output = selecting(&repo, &["HEAD~1", "HEAD", "--list"]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    let line = "bench target filter failed to compile in both revisions: error[E0432]: \
                unresolved import `gated::EnvFilter` (at benches/filter.rs:1:5); \
                the item is gated behind the `env-filter` feature";
    assert!(err.contains(line), "{err}");
}

/// [`shared_library_with_a_bench_package`] whose library has `scale`, written by a procedural
/// macro of the repository (`shapegen`, a path dependency) from the number in `factor.txt`, as
/// pest's `#[derive(Parser)]` writes parsers from `.pest` files; the bench package's `scaled`
/// calls it in its set-up only, outside the timed loop, which runs `sum`.
fn shared_library_with_a_generating_macro(repo: &Path) {
    shared_library_with_a_bench_package(repo);
    std::fs::create_dir_all(repo.join("gen/src")).unwrap();
    std::fs::write(
        repo.join("gen/Cargo.toml"),
        "[package]\nname = \"shapegen\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
         [lib]\nproc-macro = true\n",
    )
    .unwrap();
    std::fs::write(
        repo.join("gen/src/lib.rs"),
        "use proc_macro::TokenStream;\n\n#[proc_macro]\n\
         pub fn scale_from(input: TokenStream) -> TokenStream {\n    \
         let name = input.to_string().trim_matches('\"').to_string();\n    \
         let dir = std::env::var(\"CARGO_MANIFEST_DIR\").unwrap();\n    \
         let text = std::fs::read_to_string(std::path::Path::new(&dir).join(&name)).unwrap();\n    \
         let n: u64 = text.trim().parse().unwrap();\n    \
         format!(\n        \
         \"const _: &str = include_str!(concat!(env!(\\\"CARGO_MANIFEST_DIR\\\"), \\\"/{name}\\\"));\\n\\\n         \
         #[inline(never)] pub fn scale(x: u64) -> u64 {{ let mut s = x; \\\n         \
         for i in 0..x {{ s = s.rotate_left(3) ^ i.wrapping_mul({n}); }} s }}\"\n    )\n    \
         .parse()\n    .unwrap()\n}\n",
    )
    .unwrap();
    std::fs::write(repo.join("factor.txt"), "3\n").unwrap();
    replace_in(
        repo,
        "Cargo.toml",
        "[workspace]",
        "[dependencies]\nshapegen = { path = \"gen\" }\n\n[workspace]",
    );
    let lib = repo.join("src/lib.rs");
    let text = std::fs::read_to_string(&lib).unwrap();
    std::fs::write(
        &lib,
        format!("shapegen::scale_from!(\"factor.txt\");\n\n{text}"),
    )
    .unwrap();
    replace_in(
        repo,
        "benches/benches/shapes.rs",
        "fn benches(c: &mut Criterion) {\n",
        "fn benches(c: &mut Criterion) {\n    \
         c.bench_function(\"scaled\", |b| {\n        \
         let k = shapelib::scale(black_box(64)) % 200;\n        \
         b.iter(|| shapelib::sum(black_box(k)))\n    });\n",
    );
    amend_base(repo);
}

/// [`shared_library_with_a_generating_macro`] whose macro takes the rotation of the code it
/// writes from `shapecore`, a library crate of the repository it depends on by path, as
/// logos-derive writes lexers through logos-codegen.
fn shared_library_with_a_macro_built_on_a_codegen_crate(repo: &Path) {
    shared_library_with_a_generating_macro(repo);
    std::fs::create_dir_all(repo.join("core/src")).unwrap();
    std::fs::write(
        repo.join("core/Cargo.toml"),
        "[package]\nname = \"shapecore\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    )
    .unwrap();
    std::fs::write(
        repo.join("core/src/lib.rs"),
        "pub fn rotation() -> u32 {\n    3\n}\n",
    )
    .unwrap();
    replace_in(
        repo,
        "gen/Cargo.toml",
        "proc-macro = true\n",
        "proc-macro = true\n\n[dependencies]\nshapecore = { path = \"../core\" }\n",
    );
    replace_in(repo, "gen/src/lib.rs", "rotate_left(3)", "rotate_left({r})");
    replace_in(
        repo,
        "gen/src/lib.rs",
        "let n: u64 = text.trim().parse().unwrap();",
        "let n: u64 = text.trim().parse().unwrap();\n    let r = shapecore::rotation();",
    );
    amend_base(repo);
}

#[test]
fn code_a_macro_writes_through_a_changed_codegen_crate_is_not_the_same_source() {
    // logos' lexers (field trial logos-unroll): `#[derive(Logos)]` calls logos-codegen, and a
    // commit that changes only logos-codegen changes the code the derive writes, whose lines,
    // the call's, read the same and name no changed item. A set-up running it was "the same
    // source".
    let guard = measuring_lock();
    let key = "code a macro writes through a codegen crate";
    let (_dir, repo) = shared_repo(&guard, Profile::Quick, key, "lib", |repo| {
        shared_library_with_a_macro_built_on_a_codegen_crate(repo);
        replace_in(repo, "core/src/lib.rs", "    3\n", "    5\n");
        commit_all(repo, "another rotation");
    });
    let (report, err) = select_bench_package(&repo);
    assert_same_code(&report, &err, &["mix", "sum", "version"]);
    let scaled = bench_entry(&report, "scaled")["selection"].to_string();
    assert_eq!(
        reason(&report, "scaled"),
        "reaches_change",
        "{scaled}: {err}"
    );
}

#[test]
fn code_a_macro_writes_from_a_changed_data_file_is_not_the_same_source() {
    // pest's parsers, written by `#[derive(Parser)]` from `.pest` files (field trial
    // pest-json-ctrl): the code has the lines of the macro's call, which read the same, so a
    // set-up running it was "the same source" though the data file it was made from changed.
    let guard = measuring_lock();
    let key = "code a macro writes from a data file";
    let (_dir, repo) = shared_repo(&guard, Profile::Quick, key, "lib", |repo| {
        shared_library_with_a_generating_macro(repo);
        std::fs::write(repo.join("factor.txt"), "5\n").unwrap();
        commit_all(repo, "another factor");
    });
    let (report, err) = select_bench_package(&repo);
    assert_same_code(&report, &err, &["mix", "sum", "version"]);
    let scaled = bench_entry(&report, "scaled")["selection"].to_string();
    assert_eq!(
        reason(&report, "scaled"),
        "reaches_change",
        "{scaled}: {err}"
    );
}
