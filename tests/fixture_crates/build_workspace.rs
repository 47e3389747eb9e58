//! Workspaces: package selection, the target directory cargo would use, the workspace root.

use std::fs;
use std::path::{Path, PathBuf};

use cargo_perfdiff::model::target::TargetKey;
use cargo_perfdiff::steps::build::{
    BuildError, BuildEvent, BuildOptions, FeatureGatedBench, UnselectedPackage,
    bench_packages_elsewhere, build_benches, build_needed_benches, target_directory,
    workspace_root,
};
use cargo_perfdiff::steps::discover::{Classified, classify};

fn shared_target_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("target/test-fixture-builds")
}

/// A package `name` in `dir/name` with one plain (`harness = false`) bench target `<name>_bench`.
fn write_package(dir: &Path, name: &str) {
    let root = dir.join(name);
    fs::create_dir_all(root.join("benches")).unwrap();
    fs::create_dir_all(root.join("src")).unwrap();
    fs::write(
        root.join("Cargo.toml"),
        format!(
            "[package]\nname = \"{name}\"\nversion = \"1.2.3\"\nedition = \"2021\"\n\n\
             [[bench]]\nname = \"{name}_bench\"\nharness = false\n"
        ),
    )
    .unwrap();
    fs::write(root.join("src/lib.rs"), "").unwrap();
    fs::write(
        root.join(format!("benches/{name}_bench.rs")),
        "fn main() {}\n",
    )
    .unwrap();
}

/// A workspace with members `a` and `b`.
fn two_package_workspace(dir: &Path) -> PathBuf {
    let root = dir.join("ws");
    fs::create_dir_all(&root).unwrap();
    fs::write(
        root.join("Cargo.toml"),
        "[workspace]\nmembers = [\"a\", \"b\"]\nresolver = \"2\"\n",
    )
    .unwrap();
    write_package(&root, "a");
    write_package(&root, "b");
    root
}

fn build(workspace: &Path, bin_dir: &Path, opts: &BuildOptions) -> Vec<(String, String)> {
    let exes = build_benches(
        workspace,
        "working tree",
        &shared_target_dir(),
        bin_dir,
        opts,
        &mut |_| {},
    )
    .unwrap();
    for exe in &exes {
        assert!(
            exe.path.starts_with(bin_dir) && exe.path.is_file(),
            "{exe:?}"
        );
        assert_eq!(exe.package_root, workspace.join(&exe.package));
        assert_eq!(exe.package_version, "1.2.3");
        assert!(matches!(classify(exe).unwrap(), Classified::Skipped { .. }));
    }
    exes.into_iter().map(|e| (e.package, e.target)).collect()
}

/// A build of some bench targets (a bisection's step) is kept apart from the build of every
/// target: neither replaces the other, and a kept build of every target serves the narrower
/// question without cargo.
#[test]
fn a_build_of_some_targets_is_kept_apart_and_the_whole_build_serves_it() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = two_package_workspace(dir.path());
    let bin_dir = dir.path().join("bin");
    let opts = BuildOptions::default();
    let needed = [TargetKey::new("b", "b_bench")];
    // (executables, whether cargo ran)
    let needed_build = || {
        let mut cargo_ran = false;
        let exes = build_needed_benches(
            &workspace,
            "working tree",
            &shared_target_dir(),
            &bin_dir,
            &opts,
            &needed,
            &mut |event| cargo_ran |= event == BuildEvent::Finished,
        )
        .unwrap();
        (exes, cargo_ran)
    };
    let (narrow, cargo_ran) = needed_build();
    assert!(cargo_ran);
    let names: Vec<&str> = narrow.iter().map(|e| e.target.as_str()).collect();
    assert_eq!(names, ["b_bench"]);
    let apart = narrow[0].path.parent().unwrap();
    assert!(apart.starts_with(&bin_dir) && apart != bin_dir, "{apart:?}");
    assert!(
        apart
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("only-")
    );
    assert!(!bin_dir.join("perfdiff-build.json").exists());

    // The build of every target does not take the narrower one for itself, and keeps its own.
    let mut cargo_ran = false;
    let whole = build_benches(
        &workspace,
        "working tree",
        &shared_target_dir(),
        &bin_dir,
        &opts,
        &mut |event| cargo_ran |= event == BuildEvent::Finished,
    )
    .unwrap();
    assert!(cargo_ran);
    assert_eq!(whole.len(), 2);
    assert!(
        whole
            .iter()
            .all(|e| e.path.parent() == Some(bin_dir.as_path()))
    );
    assert!(narrow[0].path.is_file(), "the narrower build is still kept");

    // Now the whole build serves the narrower question as it is: no cargo.
    let (served, cargo_ran) = needed_build();
    assert!(!cargo_ran);
    assert_eq!(served.len(), 1);
    assert_eq!(served[0].path.parent(), Some(bin_dir.as_path()));
    let again = build(&workspace, &bin_dir, &opts);
    assert_eq!(again.len(), 2);
}

#[test]
fn every_member_is_built_unless_packages_are_selected() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = two_package_workspace(dir.path());
    let all = build(
        &workspace,
        &dir.path().join("bin-all"),
        &BuildOptions::default(),
    );
    assert_eq!(
        all,
        [
            ("a".to_string(), "a_bench".to_string()),
            ("b".to_string(), "b_bench".to_string())
        ]
    );
    let only_b = BuildOptions {
        packages: vec!["b".to_string()],
        ..Default::default()
    };
    assert_eq!(
        build(&workspace, &dir.path().join("bin-b"), &only_b),
        [("b".to_string(), "b_bench".to_string())]
    );
    let one_bench = BuildOptions {
        benches: vec!["a_bench".to_string()],
        ..Default::default()
    };
    assert_eq!(
        build(&workspace, &dir.path().join("bin-a"), &one_bench),
        [("a".to_string(), "a_bench".to_string())]
    );
}

/// A workspace whose root is itself a package, `root`, without bench targets, and members `a`
/// and `b` with one each: cargo's default members are the root alone.
fn rooted_workspace(dir: &Path) -> PathBuf {
    let root = dir.join("rooted");
    fs::create_dir_all(root.join("src")).unwrap();
    fs::write(
        root.join("Cargo.toml"),
        "[package]\nname = \"root\"\nversion = \"1.2.3\"\nedition = \"2021\"\n\n\
         [workspace]\nmembers = [\"a\", \"b\"]\nresolver = \"2\"\n",
    )
    .unwrap();
    fs::write(root.join("src/lib.rs"), "").unwrap();
    write_package(&root, "a");
    write_package(&root, "b");
    root
}

/// Builds and returns the bench executables as (package, target) and what `pick` takes from
/// the build's events.
fn build_picking<T>(
    workspace: &Path,
    bin_dir: &Path,
    opts: &BuildOptions,
    pick: impl Fn(BuildEvent) -> Option<T>,
) -> (Vec<(String, String)>, Vec<T>) {
    let mut picked = Vec::new();
    let exes = build_benches(
        workspace,
        "working tree",
        &shared_target_dir(),
        bin_dir,
        opts,
        &mut |event| picked.extend(pick(event)),
    )
    .unwrap();
    let built = exes.into_iter().map(|e| (e.package, e.target)).collect();
    (built, picked)
}

/// Builds and returns the bench executables and the members reported as not selected.
fn build_noting_unselected(
    workspace: &Path,
    bin_dir: &Path,
    opts: &BuildOptions,
) -> (Vec<(String, String)>, Vec<UnselectedPackage>) {
    build_picking(workspace, bin_dir, opts, |event| match event {
        BuildEvent::NotSelected(package) => Some(package.clone()),
        _ => None,
    })
}

/// The error of a build of `workspace` that must fail, as the user reads it; the executables
/// would go to a fresh temporary directory.
fn build_error(workspace: &Path, label: &str, target_dir: &Path, opts: &BuildOptions) -> String {
    let bin = tempfile::tempdir().unwrap();
    build_benches(workspace, label, target_dir, bin.path(), opts, &mut |_| {})
        .unwrap_err()
        .to_string()
}

#[test]
fn members_left_out_of_a_rooted_workspace_are_named_and_workspace_builds_them() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = rooted_workspace(dir.path());
    let member = |name: &str| UnselectedPackage {
        package: name.to_string(),
        bench_targets: vec![format!("{name}_bench")],
    };
    let bench = |name: &str| (name.to_string(), format!("{name}_bench"));

    let (built, unselected) = build_noting_unselected(
        &workspace,
        &dir.path().join("bin-default"),
        &BuildOptions::default(),
    );
    assert!(built.is_empty(), "{built:?}");
    assert_eq!(unselected, [member("a"), member("b")]);

    let only_a = BuildOptions {
        packages: vec!["a".to_string()],
        ..Default::default()
    };
    let (built, unselected) =
        build_noting_unselected(&workspace, &dir.path().join("bin-a"), &only_a);
    assert_eq!(built, [bench("a")]);
    assert_eq!(unselected, [member("b")]);

    let all = BuildOptions {
        workspace: true,
        ..Default::default()
    };
    let (built, unselected) =
        build_noting_unselected(&workspace, &dir.path().join("bin-all"), &all);
    assert_eq!(built, [bench("a"), bench("b")]);
    assert!(unselected.is_empty(), "{unselected:?}");
}

#[test]
fn packages_of_their_own_with_bench_targets_are_found_and_members_are_not() {
    let dir = tempfile::tempdir().unwrap();
    let root = rooted_workspace(dir.path());
    // A package of its own (its own workspace), with a bench target cargo finds by itself.
    let own = root.join("bench");
    fs::create_dir_all(own.join("benches")).unwrap();
    fs::create_dir_all(own.join("src")).unwrap();
    fs::write(
        own.join("Cargo.toml"),
        "[package]\nname = \"own\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
    )
    .unwrap();
    fs::write(own.join("src/lib.rs"), "").unwrap();
    fs::write(own.join("benches/speed.rs"), "fn main() {}\n").unwrap();
    // Neither a target directory nor a hidden one is searched.
    for hidden in ["target", ".cache"] {
        write_package(&root.join(hidden), "elsewhere");
        let manifest = root.join(hidden).join("elsewhere/Cargo.toml");
        let text = fs::read_to_string(&manifest).unwrap();
        fs::write(&manifest, format!("{text}\n[workspace]\n")).unwrap();
    }

    // Members `a` and `b` have bench targets too, but they are the root's own.
    assert_eq!(
        bench_packages_elsewhere(&root),
        [PathBuf::from("bench/Cargo.toml")]
    );
    // When every bench target built fails to compile (a nightly-only `#[bench]` file, say),
    // the error points at the package of its own.
    fs::write(
        root.join("a/benches/a_bench.rs"),
        "#![feature(test)]\nfn main() {}\n",
    )
    .unwrap();
    let options = BuildOptions {
        packages: vec!["a".to_string()],
        ..Default::default()
    };
    let error = build_error(
        &root,
        "head HEAD (abc)",
        &dir.path().join("target"),
        &options,
    );
    assert!(
        error.ends_with("compare it with `--manifest-path bench/Cargo.toml`"),
        "{error}"
    );
    // `autobenches = false` leaves `benches/` alone.
    let manifest = own.join("Cargo.toml");
    let text = fs::read_to_string(&manifest).unwrap();
    fs::write(
        &manifest,
        text.replace(
            "edition = \"2021\"\n",
            "edition = \"2021\"\nautobenches = false\n",
        ),
    )
    .unwrap();
    assert!(bench_packages_elsewhere(&root).is_empty());
}

/// Builds and returns the feature-gated bench targets cargo skipped.
fn skipped_for_features(
    workspace: &Path,
    bin_dir: &Path,
    opts: &BuildOptions,
) -> Vec<FeatureGatedBench> {
    let (_, skipped) = build_picking(workspace, bin_dir, opts, |event| match event {
        BuildEvent::NeedsFeatures(gated) => Some(gated.clone()),
        _ => None,
    });
    skipped
}

#[test]
fn a_bench_target_skipped_for_its_required_features_is_reported_with_the_flag_to_pass() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = two_package_workspace(dir.path());
    let manifest = workspace.join("b/Cargo.toml");
    let text = fs::read_to_string(&manifest).unwrap();
    fs::write(
        &manifest,
        text.replace(
            "harness = false\n",
            "harness = false\nrequired-features = [\"bench\"]\n\n[features]\nbench = []\n",
        ),
    )
    .unwrap();
    let skipped = skipped_for_features(
        &workspace,
        &dir.path().join("bin"),
        &BuildOptions::default(),
    );
    assert_eq!(
        skipped,
        [FeatureGatedBench {
            package: "b".to_string(),
            target: "b_bench".to_string(),
            required_features: vec!["bench".to_string()],
            suggestion: "-p b --features bench".to_string(),
        }]
    );
    // Not reported when it was not asked for, nor once the feature is on.
    let only_a = BuildOptions {
        packages: vec!["a".to_string()],
        ..Default::default()
    };
    assert!(skipped_for_features(&workspace, &dir.path().join("bin-a"), &only_a).is_empty());
    let with_feature = BuildOptions {
        packages: vec!["b".to_string()],
        features: vec!["bench".to_string()],
        ..Default::default()
    };
    assert!(skipped_for_features(&workspace, &dir.path().join("bin-b"), &with_feature).is_empty());
}

#[test]
fn an_unknown_package_fails_with_cargos_message() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = two_package_workspace(dir.path());
    let opts = BuildOptions {
        packages: vec!["nope".to_string()],
        ..Default::default()
    };
    let err = build_error(&workspace, "base (1234)", &shared_target_dir(), &opts);
    assert!(err.contains("base (1234)") && err.contains("nope"), "{err}");
}

#[test]
fn the_workspace_root_is_found_from_any_directory_inside() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = two_package_workspace(dir.path()).canonicalize().unwrap();
    assert_eq!(workspace_root(&workspace.join("b/src")).unwrap(), workspace);
    assert_eq!(workspace_root(&workspace).unwrap(), workspace);
    let lone = dir.path().canonicalize().unwrap().join("lone");
    write_package(dir.path(), "lone");
    assert_eq!(workspace_root(&lone.join("benches")).unwrap(), lone);
}

#[test]
fn a_directory_without_a_manifest_is_refused_plainly() {
    let dir = tempfile::tempdir().unwrap();
    if dir
        .path()
        .ancestors()
        .any(|d| d.join("Cargo.toml").exists())
    {
        return; // the temporary directory lives inside some crate; nothing to test here
    }
    let err = workspace_root(dir.path()).unwrap_err();
    assert!(matches!(err, BuildError::NoManifest { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        format!("no Cargo.toml in {} or any parent", dir.path().display())
    );
}

#[test]
fn the_target_directory_honours_build_target_dir_in_cargo_config() {
    let dir = tempfile::tempdir().unwrap();
    write_package(dir.path(), "configured");
    let root = dir.path().join("configured");
    fs::create_dir_all(root.join(".cargo")).unwrap();
    fs::write(
        root.join(".cargo/config.toml"),
        "[build]\ntarget-dir = \"elsewhere/tgt\"\n",
    )
    .unwrap();
    let expected = match std::env::var_os("CARGO_TARGET_DIR") {
        // The environment wins over the configuration, as in cargo.
        Some(env) => PathBuf::from(env),
        None => root.join("elsewhere/tgt"),
    };
    assert_eq!(target_directory(&root).unwrap(), expected);
    // Without the configuration: `<workspace>/target`.
    let plain = dir.path().join("plain");
    write_package(dir.path(), "plain");
    if std::env::var_os("CARGO_TARGET_DIR").is_none() {
        assert_eq!(
            target_directory(&plain.join("src")).unwrap(),
            plain.join("target")
        );
    }
}

#[test]
fn the_target_directory_of_a_broken_manifest_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("Cargo.toml"), "[package]\nname = 3\n").unwrap();
    let err = target_directory(dir.path()).unwrap_err().to_string();
    assert!(err.contains(&dir.path().display().to_string()), "{err}");
}
