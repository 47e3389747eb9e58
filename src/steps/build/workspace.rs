//! The workspace and its features: which packages and bench targets a build selects, which
//! targets are gated on features, and what `cargo metadata` says of each package.

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use cargo_metadata::{MetadataCommand, TargetKind};

use super::cargo_env::cargo_program;
use super::cargo_output::{BenchArtifact, FailedTarget, one_line};
use super::{BuildError, BuildOptions, FeatureGatedBench, UnselectedPackage};

/// The workspace's target directory as cargo sees it from `manifest_dir` (honours
/// `CARGO_TARGET_DIR` and `build.target-dir` in `.cargo/config.toml`), via `cargo metadata --no-deps`.
pub fn target_directory(manifest_dir: &Path) -> Result<PathBuf, BuildError> {
    let metadata = MetadataCommand::new()
        .current_dir(manifest_dir)
        .no_deps()
        .exec()
        .map_err(|e| BuildError::Metadata {
            dir: manifest_dir.to_path_buf(),
            message: one_line(&e.to_string()),
        })?;
    Ok(metadata.target_directory.into_std_path_buf())
}

/// The workspace root (directory of the workspace Cargo.toml) containing `dir`.
///
/// Asks `cargo locate-project --workspace`, so `[workspace]` membership, `exclude` and nested
/// packages are decided by cargo itself; a directory with no Cargo.toml above it gets a plain
/// error instead of cargo's.
pub fn workspace_root(dir: &Path) -> Result<PathBuf, BuildError> {
    let manifest = locate_project(dir, true)?;
    Ok(manifest.parent().map(Path::to_path_buf).unwrap_or_default())
}

/// The package cargo would build from `dir` when no package is named: the member whose manifest
/// is nearest above `dir`, when that is not the workspace root's (`cargo bench` run in
/// `bench/`, or with `--manifest-path bench/Cargo.toml`, builds `bench`'s package, whereas at
/// the root it builds the root package or the default members). `None` at the root.
///
/// The comparison runs cargo at the workspace root of each checkout, so it names this package
/// with `-p` to build what the user's own command would.
pub fn current_package(dir: &Path, workspace_root: &Path) -> Result<Option<String>, BuildError> {
    let manifest = locate_project(dir, false)?;
    let canonical = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    if manifest.parent().map(canonical) == Some(canonical(workspace_root)) {
        return Ok(None);
    }
    let text = fs::read_to_string(&manifest).map_err(|e| BuildError::Metadata {
        dir: dir.to_path_buf(),
        message: format!("cannot read {}: {e}", manifest.display()),
    })?;
    let name = toml::from_str::<toml::Table>(&text)
        .ok()
        .and_then(|table| Some(table.get("package")?.get("name")?.as_str()?.to_string()));
    Ok(name)
}

/// The manifest `cargo locate-project` finds from `dir`: the workspace's with `workspace`, else
/// the nearest package's.
fn locate_project(dir: &Path, workspace: bool) -> Result<PathBuf, BuildError> {
    let absolute = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    if !absolute.ancestors().any(|d| d.join("Cargo.toml").is_file()) {
        return Err(BuildError::NoManifest {
            dir: dir.to_path_buf(),
        });
    }
    let metadata_error = |message: String| BuildError::Metadata {
        dir: dir.to_path_buf(),
        message,
    };
    let output = Command::new(cargo_program())
        .arg("locate-project")
        .args(workspace.then_some("--workspace"))
        .args(["--message-format", "plain"])
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .map_err(|source| BuildError::Spawn {
            command: "cargo locate-project".to_string(),
            dir: dir.to_path_buf(),
            source,
        })?;
    if !output.status.success() {
        return Err(metadata_error(one_line(&String::from_utf8_lossy(
            &output.stderr,
        ))));
    }
    let manifest = String::from_utf8_lossy(&output.stdout).trim().to_string();
    match Path::new(&manifest).parent() {
        Some(_) => Ok(PathBuf::from(manifest)),
        None => Err(metadata_error(format!(
            "cargo located no manifest ({manifest:?})"
        ))),
    }
}

/// The feature-gated bench targets this build was asked for (by `--bench`, or by not naming any)
/// that cargo did not build.
pub(super) fn not_built<'a>(
    gated: &'a [(String, FeatureGatedBench)],
    built: &[BenchArtifact],
    opts: &BuildOptions,
) -> impl Iterator<Item = &'a FeatureGatedBench> {
    gated
        .iter()
        .filter(move |(package_id, bench)| {
            let asked = opts.benches.is_empty() || opts.benches.contains(&bench.target);
            let was_built = built
                .iter()
                .any(|b| &b.package_id == package_id && b.target == bench.target);
            asked && !was_built
        })
        .map(|(_, bench)| bench)
}

/// Packages under `root` with bench targets that belong to another workspace than `root`'s, as
/// manifest paths relative to `root`. Crates whose criterion benches would raise their MSRV keep
/// them in a package of their own (chrono's `bench/`, rand's `benches/`), which a run from the
/// root does not see; they are compared with `--manifest-path`. Looks at most three directories
/// down, skipping `target` and hidden directories; whether a package is in `root`'s workspace is
/// cargo's answer ([`workspace_root`]), asked only of packages with bench targets.
pub fn bench_packages_elsewhere(root: &Path) -> Vec<PathBuf> {
    const DEPTH: usize = 3;
    let ours = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let skipped = |name: &str| name.starts_with('.') || name == "target";
    let mut found: Vec<PathBuf> = crate::util::fs::dirs_within(root, DEPTH, skipped)
        .into_iter()
        .filter(|dir| dir != root)
        .filter_map(|dir| {
            let manifest = dir.join("Cargo.toml");
            let elsewhere =
                || workspace_root(&dir).is_ok_and(|ws| ws.canonicalize().unwrap_or(ws) != ours);
            (declares_bench_targets(&manifest) && elsewhere()).then(|| {
                manifest
                    .strip_prefix(root)
                    .unwrap_or(&manifest)
                    .to_path_buf()
            })
        })
        .collect();
    found.sort();
    found
}

/// Whether `manifest` declares a package with bench targets: `[[bench]]` entries, or `.rs` files
/// in a `benches/` directory beside it that cargo finds by itself (unless `autobenches = false`).
pub(super) fn declares_bench_targets(manifest: &Path) -> bool {
    let Some(table) = fs::read_to_string(manifest)
        .ok()
        .and_then(|text| text.parse::<toml::Table>().ok())
    else {
        return false;
    };
    let Some(package) = table.get("package") else {
        return false;
    };
    let declared = table
        .get("bench")
        .and_then(toml::Value::as_array)
        .is_some_and(|benches| !benches.is_empty());
    let autobenches = package.get("autobenches").and_then(toml::Value::as_bool) != Some(false);
    let found_by_cargo = || {
        let benches = manifest.with_file_name("benches");
        fs::read_dir(benches).is_ok_and(|entries| {
            entries
                .flatten()
                .any(|e| e.path().extension().is_some_and(|x| x == "rs"))
        })
    };
    declared || (autobenches && found_by_cargo())
}

/// The workspace's packages by id, as `cargo metadata --no-deps` describes them.
pub(super) struct WorkspacePackages {
    pub(super) by_id: HashMap<String, PackageInfo>,
    /// Bench targets with `required-features` in the packages the build selects, by package id.
    pub(super) feature_gated: Vec<(String, FeatureGatedBench)>,
    /// Those of `feature_gated` the build asks for (by `--bench`, or by not naming any) whose
    /// features the options plainly enable ([`features_enabled`]), as (package id, target name).
    pub(super) gated_enabled: Vec<(String, String)>,
    /// True when cargo reports a `build.build-dir` apart from the target directory.
    pub(super) separate_build_dir: bool,
    /// The bench targets this build compiles (in the selected packages, named by `--bench` if
    /// any, without `required-features`), as (package id, target name).
    pub(super) bench_targets: Vec<(String, String)>,
    /// Workspace members with bench targets that the build does not select.
    pub(super) unselected: Vec<UnselectedPackage>,
}

#[derive(Debug, Clone)]
pub(super) struct PackageInfo {
    pub(super) name: String,
    pub(super) version: String,
    pub(super) manifest_path: PathBuf,
}

/// `cargo metadata --no-deps` of a revision's checkout; a manifest cargo cannot read is a failed
/// build of `label`.
pub(super) fn revision_metadata(
    workspace_dir: &Path,
    label: &str,
    shared_target_dir: &Path,
) -> Result<cargo_metadata::Metadata, BuildError> {
    let failed = |diagnostics: String| BuildError::Failed {
        revision: label.to_string(),
        diagnostics: diagnostics.trim_end().to_string(),
        hint: None,
    };
    let mut command = MetadataCommand::new();
    command
        .current_dir(workspace_dir)
        .no_deps()
        .env("CARGO_TARGET_DIR", shared_target_dir);
    let mut cargo = command.cargo_command();
    // A process group of its own, as the builds' cargo has ([`super::cargo::run_cargo`]): a
    // Ctrl-C to cargo-perfdiff's group would otherwise end `cargo metadata` with an error before
    // the interrupt handler's thread has set its flag, and the run would end as a failed build
    // (exit 2) instead of an interrupted one (130). It runs in a fraction of a second.
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut cargo, 0);
    let output = cargo
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| failed(format!("cannot run `cargo metadata`: {e}")))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(failed(format!(
            "`cargo metadata` exited with an error: {}",
            super::cargo_output::one_line(&stderr)
        )));
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let json = stdout
        .lines()
        .find(|line| line.starts_with('{'))
        .unwrap_or_default();
    MetadataCommand::parse(json).map_err(|e| failed(e.to_string()))
}

/// True when cargo reports a `build.build-dir` apart from the target directory.
pub(super) fn has_separate_build_dir(metadata: &cargo_metadata::Metadata) -> bool {
    metadata
        .build_directory
        .as_ref()
        .is_some_and(|build_dir| *build_dir != metadata.target_directory)
}

/// Reads the workspace's packages; a manifest cargo cannot read is a failed build of `label`.
pub(super) fn workspace_packages(
    workspace_dir: &Path,
    label: &str,
    shared_target_dir: &Path,
    opts: &BuildOptions,
) -> Result<WorkspacePackages, BuildError> {
    let metadata = revision_metadata(workspace_dir, label, shared_target_dir)?;
    let separate_build_dir = has_separate_build_dir(&metadata);
    let feature_gated = feature_gated_benches(&metadata, opts);
    let gated_enabled = enabled_gated_benches(&metadata, opts);
    let bench_targets = built_bench_targets(&metadata, opts);
    let unselected = unselected_packages(&metadata, opts);
    let by_id = metadata
        .packages
        .into_iter()
        .map(|p| {
            let info = PackageInfo {
                name: p.name.to_string(),
                version: p.version.to_string(),
                manifest_path: p.manifest_path.into_std_path_buf(),
            };
            (p.id.repr, info)
        })
        .collect();
    Ok(WorkspacePackages {
        by_id,
        feature_gated,
        gated_enabled,
        separate_build_dir,
        bench_targets,
        unselected,
    })
}

/// Whether `opts` selects `package` for the build (`--workspace`, `-p`, or else the default
/// members).
pub(super) fn package_selected(
    metadata: &cargo_metadata::Metadata,
    opts: &BuildOptions,
    package: &cargo_metadata::Package,
) -> bool {
    if opts.workspace {
        metadata.workspace_members.contains(&package.id)
            && !opts
                .exclude
                .iter()
                .any(|spec| spec_matches(spec, &package.name))
    } else if !opts.packages.is_empty() {
        opts.packages
            .iter()
            .any(|spec| spec_matches(spec, &package.name))
    } else if metadata.workspace_default_members.is_available() {
        metadata.workspace_default_members.contains(&package.id)
    } else {
        true
    }
}

/// Whether a `-p`/`--exclude` spec names package `name` as cargo reads it: the name (before an
/// `@version` or after a `url#`… the part before `@`/`:`), or a glob of names (`*`, `?`, `[…]`).
pub(super) fn spec_matches(spec: &str, name: &str) -> bool {
    let pattern = spec.split(['@', ':']).next().unwrap_or(spec);
    if !pattern.contains(['*', '?', '[']) {
        return pattern == name;
    }
    // Cargo reads these globs with the `glob` crate too; a malformed one names nothing.
    glob::Pattern::new(pattern).is_ok_and(|glob| glob.matches(name))
}

/// Every bench target of the packages `opts` selects ([`package_selected`]), with its package.
pub(super) fn selected_bench_targets<'a>(
    metadata: &'a cargo_metadata::Metadata,
    opts: &'a BuildOptions,
) -> impl Iterator<Item = (&'a cargo_metadata::Package, &'a cargo_metadata::Target)> {
    metadata
        .packages
        .iter()
        .filter(move |package| package_selected(metadata, opts, package))
        .flat_map(|package| {
            package
                .targets
                .iter()
                .filter(|t| t.kind.contains(&TargetKind::Bench))
                .map(move |t| (package, t))
        })
}

/// The bench targets of the packages `opts` selects that its `--bench` names ask for (every
/// one without `--bench`), with their packages.
fn named_bench_targets<'a>(
    metadata: &'a cargo_metadata::Metadata,
    opts: &'a BuildOptions,
) -> impl Iterator<Item = (&'a cargo_metadata::Package, &'a cargo_metadata::Target)> {
    selected_bench_targets(metadata, opts)
        .filter(|(_, t)| opts.benches.is_empty() || opts.benches.contains(&t.name))
}

/// The workspace members with bench targets that `opts` does not select ([`package_selected`]).
pub(super) fn unselected_packages(
    metadata: &cargo_metadata::Metadata,
    opts: &BuildOptions,
) -> Vec<UnselectedPackage> {
    metadata
        .packages
        .iter()
        .filter(|package| metadata.workspace_members.contains(&package.id))
        .filter(|package| !package_selected(metadata, opts, package))
        .filter_map(|package| {
            let bench_targets: Vec<String> = package
                .targets
                .iter()
                .filter(|t| t.kind.contains(&TargetKind::Bench))
                .map(|t| t.name.clone())
                .collect();
            (!bench_targets.is_empty()).then(|| UnselectedPackage {
                package: package.name.to_string(),
                bench_targets,
            })
        })
        .collect()
}

/// The bench targets `opts` asks cargo to compile, as (package id, target name); see
/// [`WorkspacePackages::bench_targets`].
pub(super) fn built_bench_targets(
    metadata: &cargo_metadata::Metadata,
    opts: &BuildOptions,
) -> Vec<(String, String)> {
    named_bench_targets(metadata, opts)
        .filter(|(_, t)| t.required_features.is_empty())
        .map(|(package, t)| (package.id.repr.clone(), t.name.clone()))
        .collect()
}

/// ` (`#![feature]` needs a nightly toolchain)` when every target in `failed` failed for that.
pub(super) fn nightly_remark(failed: &[FailedTarget]) -> &'static str {
    if failed.iter().all(|f| f.needs_nightly) {
        " (`#![feature]` needs a nightly toolchain)"
    } else {
        ""
    }
}

/// When the build failed in bench targets only and none is left to compare, the packages of
/// their own with bench targets (`elsewhere`, from [`bench_packages_elsewhere`]) to compare
/// instead: RustCrypto's workspaces keep nightly-only `#[bench]` files in their members and the
/// criterion suite in a separate `benches/` package. `None` without such a package.
pub fn all_benches_failed_hint(failed: &[FailedTarget], elsewhere: &[PathBuf]) -> Option<String> {
    if failed.is_empty() || failed.iter().any(|f| !f.is_bench) {
        return None;
    }
    let manifests: Vec<String> = elsewhere.iter().map(|p| p.display().to_string()).collect();
    Some(format!(
        "no bench target of this workspace compiled{}; {}",
        nightly_remark(failed),
        compare_elsewhere(&manifests)?
    ))
}

/// The bench targets with `required-features` that `opts` asks for and plainly enables
/// ([`features_enabled`]), as (package id, target name).
pub(super) fn enabled_gated_benches(
    metadata: &cargo_metadata::Metadata,
    opts: &BuildOptions,
) -> Vec<(String, String)> {
    named_bench_targets(metadata, opts)
        .filter(|(_, t)| !t.required_features.is_empty())
        .filter(|(package, t)| {
            features_enabled(&package.name, &package.features, &t.required_features, opts)
        })
        .map(|(package, t)| (package.id.repr.clone(), t.name.clone()))
        .collect()
}

/// Whether `opts` plainly enable every feature in `required` of package `name`, whose
/// `[features]` table is `table`: `--all-features`, or each feature named by `--features` (`f`
/// or `name/f`) or by the default features (without `--no-default-features`), following
/// `table`. What only
/// another package turns on (a dependency's `features = [...]`) is not seen, nor `dep/feature`
/// requirements: such a target counts as not enabled. Cargo's own answer, a target it builds,
/// is preferred where there is one ([`asked_bench_targets`]).
pub(super) fn features_enabled(
    name: &str,
    table: &BTreeMap<String, Vec<String>>,
    required: &[String],
    opts: &BuildOptions,
) -> bool {
    if opts.all_features {
        return true;
    }
    let mut enabled: Vec<&str> = opts
        .features
        .iter()
        .flat_map(|list| list.split([',', ' ']))
        .filter_map(|feature| match feature.split_once('/') {
            Some((owner, feature)) => (owner == name).then_some(feature),
            None => Some(feature),
        })
        .filter(|feature| !feature.is_empty())
        .collect();
    if !opts.no_default_features {
        enabled.push("default");
    }
    let mut next = 0;
    while let Some(feature) = enabled.get(next).copied() {
        let implied = table.get(feature).into_iter().flatten();
        for implied in implied {
            let plain = !implied.contains([':', '/']);
            if plain && !enabled.contains(&implied.as_str()) {
                enabled.push(implied);
            }
        }
        next += 1;
    }
    required.iter().all(|f| enabled.contains(&f.as_str()))
}

/// How to compare the packages of their own with bench targets whose manifests are
/// `manifests` (as the user would type them): `` `bench/Cargo.toml` is a package of its own
/// with bench targets: compare it with `--manifest-path bench/Cargo.toml` ``, or the first of
/// several. `None` without any.
pub fn compare_elsewhere(manifests: &[String]) -> Option<String> {
    match manifests {
        [] => None,
        [only] => Some(format!(
            "`{only}` is a package of its own with bench targets: compare it with \
             `--manifest-path {only}`"
        )),
        several => Some(format!(
            "packages of their own have bench targets: `{}`: compare one with \
             `--manifest-path {}`",
            several.join("`, `"),
            several[0]
        )),
    }
}

/// Bench targets with `required-features` in the packages `opts` selects (`-p`, or else the
/// default members).
pub(super) fn feature_gated_benches(
    metadata: &cargo_metadata::Metadata,
    opts: &BuildOptions,
) -> Vec<(String, FeatureGatedBench)> {
    let several_packages = metadata.workspace_members.len() > 1;
    selected_bench_targets(metadata, opts)
        .filter(|(_, t)| !t.required_features.is_empty())
        .map(|(package, t)| {
            let features = t.required_features.join(",");
            let suggestion = if several_packages {
                format!("-p {} --features {features}", package.name)
            } else {
                format!("--features {features}")
            };
            let bench = FeatureGatedBench {
                package: package.name.to_string(),
                target: t.name.clone(),
                required_features: t.required_features.clone(),
                suggestion,
            };
            (package.id.repr.clone(), bench)
        })
        .collect()
}

/// Name and version from a package id, when `cargo metadata` did not list the package
/// (`path+file:///p/demo#name@1.0.0`, `path+file:///p/demo#1.0.0`, or the old `name 1.0.0 (…)`).
pub(super) fn package_from_id(id: &str, manifest_path: &Path) -> PackageInfo {
    let directory_name = || {
        manifest_path
            .parent()
            .and_then(Path::file_name)
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let (name, version) = match id.rsplit_once('#') {
        Some((_, fragment)) => match fragment.rsplit_once('@') {
            Some((name, version)) => (name.to_string(), version.to_string()),
            None => (directory_name(), fragment.to_string()),
        },
        None => {
            let mut words = id.split_whitespace();
            let name = words.next().unwrap_or_default().to_string();
            (name, words.next().unwrap_or_default().to_string())
        }
    };
    PackageInfo {
        name,
        version,
        manifest_path: manifest_path.to_path_buf(),
    }
}

/// Whether bench target `target` of the package uses libtest's harness: `harness` of its
/// `[[bench]]` entry, true when absent (cargo's default, and auto-discovered benches).
/// `cargo metadata` does not report `harness`, so the manifest is read directly.
pub(super) fn bench_harness(manifest_path: &Path, target: &str) -> bool {
    bench_entry_flag(manifest_path, target, "harness").unwrap_or(true)
}

/// Whether `cargo bench` builds bench target `target` of the package when no target is named:
/// `bench` of its `[[bench]]` entry, true when absent. A target with `bench = false` is built
/// only when named (`--bench NAME`).
pub(super) fn benched_by_default(manifest_path: &Path, target: &str) -> bool {
    bench_entry_flag(manifest_path, target, "bench").unwrap_or(true)
}

/// The boolean `key` of bench target `target`'s `[[bench]]` entry in `manifest_path`, when the
/// manifest reads and has it.
fn bench_entry_flag(manifest_path: &Path, target: &str, key: &str) -> Option<bool> {
    let text = fs::read_to_string(manifest_path).ok()?;
    let manifest = text.parse::<toml::Table>().ok()?;
    manifest
        .get("bench")
        .and_then(toml::Value::as_array)
        .into_iter()
        .flatten()
        .find(|bench| bench.get("name").and_then(toml::Value::as_str) == Some(target))
        .and_then(|bench| bench.get(key))
        .and_then(toml::Value::as_bool)
}
