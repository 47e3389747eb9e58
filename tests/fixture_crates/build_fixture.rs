//! Real builds of copies of `fixtures/criterion-demo`: executables copied per revision, classified
//! without being run, and listed.
//!
//! All builds share `target/test-fixture-builds`, so criterion compiles once across test runs.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use cargo_perfdiff::model::samples::Presence;
use cargo_perfdiff::model::target::TargetKey;
use cargo_perfdiff::steps::build::{
    BenchExecutable, BuildError, BuildEvent, BuildOptions, build_benches, fork_environment,
};
use cargo_perfdiff::steps::discover::{
    Classified, HarnessKind, classify, list_benchmarks, match_benchmarks,
};

fn shared_target_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("target/test-fixture-builds")
}

/// A copy of the demo fixture (with its Cargo.lock) in `dir/name`.
fn copy_fixture(dir: &Path, name: &str) -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/criterion-demo");
    let destination = dir.join(name);
    for file in ["Cargo.toml", "Cargo.lock", "src/lib.rs", "benches/demo.rs"] {
        let to = destination.join(file);
        fs::create_dir_all(to.parent().unwrap()).unwrap();
        fs::copy(source.join(file), to).unwrap();
    }
    destination
}

/// Builds `workspace` as revision `label`, recording the events.
fn build(
    workspace: &Path,
    label: &str,
    bin_dir: &Path,
) -> (Result<Vec<BenchExecutable>, BuildError>, Vec<String>) {
    let mut events = Vec::new();
    let result = build_benches(
        workspace,
        label,
        &shared_target_dir(),
        bin_dir,
        &BuildOptions::default(),
        &mut |event| {
            events.push(match event {
                BuildEvent::Compiling(name) => format!("compiling {name}"),
                BuildEvent::Message(text) => format!("message {text}"),
                BuildEvent::Finished => "finished".to_string(),
                BuildEvent::NeedsFeatures(gated) => format!("needs features {gated:?}"),
                BuildEvent::NotSelected(package) => format!("not selected {package:?}"),
                BuildEvent::Relinking { target } => format!("relinking {target}"),
                BuildEvent::LinkKept { target } => format!("link kept {target}"),
                BuildEvent::LayoutsUnavailable { target, reason, .. } => {
                    format!("layouts unavailable {target}: {reason}")
                }
                BuildEvent::NotCompiled(target) => format!("not compiled {target:?}"),
            })
        },
    );
    (result, events)
}

fn list(exe: &BenchExecutable) -> Vec<String> {
    let env = fork_environment(exe, &shared_target_dir());
    list_benchmarks(HarnessKind::Criterion, exe, &env, Duration::from_secs(60))
        .unwrap()
        .ids
}

#[test]
fn two_revisions_share_the_target_dir_and_keep_their_own_executables() {
    let dir = tempfile::tempdir().unwrap();
    let base = copy_fixture(dir.path(), "base");
    let head = copy_fixture(dir.path(), "head");
    let bench = head.join("benches/demo.rs");
    let source = fs::read_to_string(&bench).unwrap().replace(
        "    // perfdiff-demo: head adds a benchmark here\n",
        "    group.bench_function(\"new_in_head\", |b| b.iter(|| mix(black_box(7))));\n",
    );
    fs::write(&bench, source).unwrap();

    let (base_result, base_events) = build(&base, "base (HEAD~1)", &dir.path().join("bin/base"));
    let (head_result, head_events) = build(&head, "head (HEAD)", &dir.path().join("bin/head"));
    let base_exes = base_result.unwrap();
    let head_exes = head_result.unwrap();

    assert!(
        base_events.iter().any(|e| e == "compiling perfdiff-demo"),
        "{base_events:?}"
    );
    assert_eq!(
        base_events.last().map(String::as_str),
        Some("finished"),
        "{base_events:?}"
    );
    // Head's sources are older than base's artifacts; it must still be compiled, not reused.
    assert!(
        head_events.iter().any(|e| e == "compiling perfdiff-demo"),
        "{head_events:?}"
    );
    assert_eq!(base_exes.len(), 1, "{base_exes:?}");
    let (base_exe, head_exe) = (&base_exes[0], &head_exes[0]);
    assert_eq!(base_exe.package, "perfdiff-demo");
    assert_eq!(base_exe.package_version, "0.1.0");
    assert_eq!(base_exe.target, "demo");
    assert!(!base_exe.harness);
    assert_eq!(base_exe.package_root, base);
    assert_eq!(base_exe.manifest_path, base.join("Cargo.toml"));
    assert!(
        base_exe.path.starts_with(dir.path().join("bin/base")),
        "{}",
        base_exe.path.display()
    );
    assert!(
        head_exe.path.starts_with(dir.path().join("bin/head")),
        "{}",
        head_exe.path.display()
    );
    assert!(base_exe.path.is_file() && head_exe.path.is_file());
    let same = fs::read(&base_exe.path).unwrap() == fs::read(&head_exe.path).unwrap();
    assert!(!same, "base and head have the same executable");

    assert_eq!(
        classify(base_exe).unwrap(),
        Classified::Runs(HarnessKind::Criterion)
    );
    assert_eq!(
        classify(head_exe).unwrap(),
        Classified::Runs(HarnessKind::Criterion)
    );
    let base_ids = list(base_exe);
    let head_ids = list(head_exe);
    assert_eq!(
        base_ids,
        ["hash/mix", "hash/checksum", "hash/slight", "hash/steady"]
    );
    assert_eq!(
        head_ids,
        [
            "hash/mix",
            "hash/checksum",
            "hash/slight",
            "hash/steady",
            "hash/new_in_head"
        ]
    );

    // Building base again into its bin directory takes the build kept there: cargo does not run.
    let (kept, kept_events) = build(&base, "base (HEAD~1)", &dir.path().join("bin/base"));
    assert!(kept_events.is_empty(), "{kept_events:?}");
    assert_eq!(kept.unwrap(), base_exes);

    // Building it anew (another bin directory) after head rebuilds what differs (the bench
    // target; criterion is reused) into base's executable, byte for byte.
    let (again, again_events) = build(&base, "base (HEAD~1)", &dir.path().join("bin/again"));
    assert!(
        !again_events
            .iter()
            .any(|e| e.starts_with("compiling criterion")),
        "{again_events:?}"
    );
    let again = &again.unwrap()[0];
    assert_eq!(list(again), base_ids);
    assert!(fs::read(&again.path).unwrap() == fs::read(&base_exe.path).unwrap());

    let demo = TargetKey::new("perfdiff-demo", "demo");
    let matched = match_benchmarks(&[(demo.clone(), base_ids)], &[(demo, head_ids)]);
    let presence: HashMap<_, _> = matched
        .iter()
        .map(|m| (m.id.as_str(), m.presence))
        .collect();
    assert_eq!(presence.len(), 5);
    assert_eq!(presence["hash/steady"], Presence::Both);
    assert_eq!(presence["hash/new_in_head"], Presence::OnlyInHead);
}

#[test]
fn plain_and_libtest_bench_targets_are_skipped_without_being_run() {
    let dir = tempfile::tempdir().unwrap();
    let crate_dir = copy_fixture(dir.path(), "extra");
    let manifest = crate_dir.join("Cargo.toml");
    let mut text = fs::read_to_string(&manifest).unwrap();
    text.push_str("\n[[bench]]\nname = \"plain\"\nharness = false\n");
    fs::write(&manifest, text).unwrap();
    // Each writes a file next to its manifest if it is ever run.
    fs::write(
        crate_dir.join("benches/plain.rs"),
        "fn main() { std::fs::write(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/plain-ran\"), \"\").unwrap(); }\n",
    )
    .unwrap();
    // Auto-discovered, default harness: libtest. Stable cannot compile `#[bench]`, but a libtest
    // bench target with only tests builds on stable, and is what a `#[bench]` target looks like.
    fs::write(
        crate_dir.join("benches/libtest_style.rs"),
        "#[test]\nfn writes() { std::fs::write(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/libtest-ran\"), \"\").unwrap(); }\n",
    )
    .unwrap();

    let (result, _) = build(&crate_dir, "working tree", &dir.path().join("bin"));
    let exes = result.unwrap();
    let targets: Vec<&str> = exes.iter().map(|e| e.target.as_str()).collect();
    assert_eq!(targets, ["demo", "libtest_style", "plain"]);
    let harness: Vec<Classified> = exes.iter().map(|e| classify(e).unwrap()).collect();
    assert_eq!(harness[0], Classified::Runs(HarnessKind::Criterion));
    match &harness[1] {
        Classified::Runs(HarnessKind::Libtest) => {}
        other => panic!("libtest target classified as {other:?}"),
    }
    match &harness[2] {
        Classified::Skipped { reason } => assert!(reason.contains("plain binary"), "{reason}"),
        other => panic!("plain target classified as {other:?}"),
    }
    assert!(exes[1].harness && !exes[2].harness);
    assert!(
        !crate_dir.join("plain-ran").exists(),
        "classify ran the plain binary"
    );
    assert!(
        !crate_dir.join("libtest-ran").exists(),
        "classify ran the libtest binary"
    );
}

/// A copy of the demo fixture in `dir/name` with a syntax error appended to its file `broken`.
fn copy_fixture_broken_in(dir: &Path, name: &str, broken: &str) -> PathBuf {
    let crate_dir = copy_fixture(dir, name);
    let file = crate_dir.join(broken);
    let mut source = fs::read_to_string(&file).unwrap();
    source.push_str("fn broken( {\n");
    fs::write(&file, source).unwrap();
    crate_dir
}

#[test]
fn a_syntax_error_fails_naming_the_revision_with_cargos_error() {
    let dir = tempfile::tempdir().unwrap();
    let crate_dir = copy_fixture_broken_in(dir.path(), "broken", "benches/demo.rs");

    let (result, events) = build(&crate_dir, "head (deadbeef1)", &dir.path().join("bin"));
    let err = result.unwrap_err();
    assert!(matches!(err, BuildError::Failed { .. }), "{err:?}");
    let text = err.to_string();
    assert!(text.contains("head (deadbeef1)"), "{text}");
    assert!(text.contains("unclosed delimiter"), "{text}");
    assert!(text.contains("could not compile `perfdiff-demo`"), "{text}");
    assert!(
        events.iter().any(|e| e.starts_with("message error")),
        "{events:?}"
    );
    // No bin directory at all, or none of base's executables in it.
    let copied: Vec<_> = fs::read_dir(dir.path().join("bin"))
        .into_iter()
        .flatten()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("demo"))
        .collect();
    assert!(copied.is_empty(), "{copied:?}");
}

#[test]
fn a_nightly_only_bench_target_is_left_out_and_reported_again_when_the_build_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let crate_dir = copy_fixture(dir.path(), "nightly-bench");
    // Common in real crates: libtest `#[bench]` files, which need nightly, beside criterion's.
    fs::write(
        crate_dir.join("benches/nightly.rs"),
        "#![feature(test)]\nextern crate test;\n#[bench]\nfn one(b: &mut test::Bencher) { b.iter(|| 1) }\n",
    )
    .unwrap();

    let bin = dir.path().join("bin");
    let (result, events) = build(&crate_dir, "base (cafe)", &bin);
    let exes = result.unwrap();
    let targets: Vec<&str> = exes.iter().map(|e| e.target.as_str()).collect();
    assert_eq!(targets, ["demo"]);
    assert_eq!(
        classify(&exes[0]).unwrap(),
        Classified::Runs(HarnessKind::Criterion)
    );
    let not_compiled: Vec<&String> = events
        .iter()
        .filter(|e| e.starts_with("not compiled"))
        .collect();
    assert_eq!(not_compiled.len(), 1, "{events:?}");
    // rustc's E0554 (`#![feature]` on stable) marks it as needing nightly, not as broken.
    assert!(
        not_compiled[0].contains("target: \"nightly\"")
            && not_compiled[0].contains("why: NeedsNightly"),
        "{not_compiled:?}"
    );

    // The build is kept with what it left out: the same again, without cargo.
    let (again, events_again) = build(&crate_dir, "base (cafe)", &bin);
    assert_eq!(again.unwrap(), exes);
    assert!(
        !events_again.iter().any(|e| e.starts_with("compiling")),
        "{events_again:?}"
    );
    let not_compiled_again: Vec<&String> = events_again
        .iter()
        .filter(|e| e.starts_with("not compiled"))
        .collect();
    assert_eq!(not_compiled_again, not_compiled);
}

#[test]
fn a_broken_library_gives_no_hint_to_skip_bench_targets() {
    let dir = tempfile::tempdir().unwrap();
    let crate_dir = copy_fixture_broken_in(dir.path(), "broken-lib", "src/lib.rs");
    let (result, _) = build(&crate_dir, "head (beef)", &dir.path().join("bin"));
    let text = result.unwrap_err().to_string();
    assert!(text.contains("unclosed delimiter"), "{text}");
    assert!(!text.contains("hint:"), "{text}");
}

#[test]
fn a_broken_manifest_fails_naming_the_revision() {
    let dir = tempfile::tempdir().unwrap();
    let crate_dir = copy_fixture(dir.path(), "bad-manifest");
    fs::write(crate_dir.join("Cargo.toml"), "[package\nname = ").unwrap();
    let (result, _) = build(&crate_dir, "base (cafe)", &dir.path().join("bin"));
    let text = result.unwrap_err().to_string();
    assert!(text.contains("base (cafe)"), "{text}");
    assert!(text.contains("Cargo.toml"), "{text}");
}

#[test]
fn criterion_0_8_is_classified_and_listed_too() {
    let dir = tempfile::tempdir().unwrap();
    let crate_dir = copy_fixture(dir.path(), "criterion-0.8");
    let manifest = crate_dir.join("Cargo.toml");
    let text = fs::read_to_string(&manifest).unwrap();
    fs::write(
        &manifest,
        text.replace("version = \"0.5\"", "version = \"0.8\""),
    )
    .unwrap();
    fs::remove_file(crate_dir.join("Cargo.lock")).unwrap();

    let (result, _) = build(&crate_dir, "head", &dir.path().join("bin"));
    let exes = result.unwrap();
    assert_eq!(exes.len(), 1, "{exes:?}");
    assert_eq!(
        classify(&exes[0]).unwrap(),
        Classified::Runs(HarnessKind::Criterion)
    );
    assert_eq!(
        list(&exes[0]),
        ["hash/mix", "hash/checksum", "hash/slight", "hash/steady"]
    );
}
