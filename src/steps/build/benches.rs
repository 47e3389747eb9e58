//! The bench build of one revision: cargo run through the one freshness-and-keeping sequence
//! ([`super::keep`]), the targets left out reported, the executables copied out with their
//! environment and their layouts prepared.

use std::collections::{BTreeMap, HashMap};
use std::ffi::{OsStr, OsString};
use std::fs;
use std::path::{Path, PathBuf};

use super::cargo::{CargoBuild, ParsedBuild, failure_text, run_cargo};
use super::cargo_env::{BuildOutDir, BuildScriptEnv};
use super::cargo_output::{BenchArtifact, FailedTarget};
use super::keep::{BuildSite, Kept};
use super::workspace::{
    PackageInfo, WorkspacePackages, bench_harness, benched_by_default, not_built, package_from_id,
    workspace_packages,
};
use super::{
    BenchExecutable, BuildError, BuildEvent, BuildOptions, FeatureGatedBench, Uncompiled,
    UncompiledBench, cargo_env, layout,
};
use crate::model::target::TargetKey;
use crate::util::fs::copy_atomically;

/// Builds the bench executables of one revision and copies them into `bin_dir`.
///
/// Runs `cargo bench --no-run --message-format=json` in `workspace_dir` (the revision's workspace
/// root inside its worktree) with `CARGO_TARGET_DIR=shared_target_dir`, reporting progress through
/// `on_event`. Returns the executables sorted by package and target. A revision without bench
/// targets gives an empty list. Bench targets that fail to compile while others compile are left
/// out and reported as [`BuildEvent::NotCompiled`].
///
/// Before cargo runs, the files of the checkout that differ from what the target directory was
/// last built from are marked changed ([`crate::steps::build::freshness`]): the workspace's crates are one unit
/// per crate for both revisions, and cargo decides what to rebuild by modification time. The
/// checkouts of one workspace are sibling directories (the worktree slots).
pub fn build_benches(
    workspace_dir: &Path,
    label: &str,
    shared_target_dir: &Path,
    bin_dir: &Path,
    opts: &BuildOptions,
    on_event: &mut dyn FnMut(BuildEvent),
) -> Result<Vec<BenchExecutable>, BuildError> {
    let packages = workspace_packages(workspace_dir, label, shared_target_dir, opts)?;
    for unselected in &packages.unselected {
        on_event(BuildEvent::NotSelected(unselected));
    }
    if nothing_to_build(&packages, opts) {
        // No bench target to build: cargo would compile the library and its dev-dependencies
        // (a minute for chrono) for nothing. With packages, targets or features named, cargo
        // still runs, to say what it makes of them.
        return Ok(Vec::new());
    }
    let site = BuildSite {
        workspace_dir,
        label,
        shared_target_dir,
        kept_dir: bin_dir,
        kept_builds: opts.kept_builds,
    };
    let cargo = CargoBuild {
        workspace_dir,
        label,
        shared_target_dir,
        separate_build_dir: packages.separate_build_dir,
        one_path: super::one_path_of(workspace_dir),
    };
    let build = site.kept_or_built(
        opts.cargo_args(),
        opts.layouts,
        KeptBuild::usable,
        |on_event| compile_benches(&cargo, &packages, opts, on_event),
        |compiled, on_event| finish_benches(&cargo, &packages, opts, compiled, bin_dir, on_event),
        on_event,
    )?;
    match build {
        Kept::Reused(kept) => {
            kept.report_left_out(on_event);
            Ok(kept.executables)
        }
        Kept::Built(kept) => Ok(kept.executables),
    }
}

/// Whether a build with `opts` has nothing to do: no bench target, none gated on features, and
/// nothing named that cargo should have its say on.
pub(super) fn nothing_to_build(packages: &WorkspacePackages, opts: &BuildOptions) -> bool {
    let only_defaults = *opts
        == BuildOptions {
            workspace: opts.workspace,
            layouts: opts.layouts,
            kept_builds: opts.kept_builds,
            ..BuildOptions::default()
        };
    packages.bench_targets.is_empty() && packages.feature_gated.is_empty() && only_defaults
}

/// What a bench build keeps once cargo has run: the targets left out reported, each executable
/// copied into `bin_dir` with its environment and its layouts prepared.
pub(super) fn finish_benches(
    cargo: &CargoBuild,
    packages: &WorkspacePackages,
    opts: &BuildOptions,
    compiled: Compiled,
    bin_dir: &Path,
    on_event: &mut dyn FnMut(BuildEvent),
) -> Result<KeptBuild, BuildError> {
    let Compiled {
        parsed,
        not_compiled,
    } = compiled;
    // A gated target that failed to compile had its features: it is reported as not compiled.
    let not_built: Vec<FeatureGatedBench> =
        not_built(&packages.feature_gated, &parsed.benches, opts)
            .filter(|gated| {
                !not_compiled
                    .iter()
                    .any(|u| u.package == gated.package && u.target == gated.target)
            })
            .cloned()
            .collect();
    let mut kept = KeptBuild {
        executables: Vec::new(),
        not_built,
        not_compiled,
    };
    kept.report_left_out(on_event);
    let config_env = cargo_env::config_env(
        cargo.workspace_dir,
        cargo_env::cargo_home().as_deref(),
        |key| std::env::var_os(key).is_some(),
    );
    let native_library_dirs =
        cargo_env::native_library_dirs(parsed.build_scripts.values(), cargo.shared_target_dir);
    let relinker = layout::Relinker {
        cargo,
        opts,
        kind: layout::RelinkedKind::Bench,
        printed: &parsed.printed,
    };
    let layouts = relink_layouts(&relinker, &parsed.benches, bin_dir, on_event);
    let built = Built {
        parsed: &parsed,
        layouts: &layouts,
        packages: &packages.by_id,
        config_env: &config_env,
        native_library_dirs: &native_library_dirs,
    };
    kept.executables = copy_executables(&built, cargo, bin_dir)?;
    Ok(kept)
}

/// Builds the bench targets `needed` of one revision, when the question needs fewer than `opts`
/// select (a bisection's step that searches one benchmark needs its target alone); otherwise as
/// [`build_benches`]. A build of every selected target kept in `bin_dir` (the confirmation's)
/// serves as it is. Otherwise cargo builds the needed targets only, as `--bench NAME` with the
/// package selection and features unchanged, so every unit is the one the whole build makes;
/// that build is kept apart, in a directory of `bin_dir` named after the targets
/// (`narrow_bin_dir`), where it neither replaces the whole build nor passes for it. Returns
/// the executables of the needed targets.
pub fn build_needed_benches(
    workspace_dir: &Path,
    label: &str,
    shared_target_dir: &Path,
    bin_dir: &Path,
    opts: &BuildOptions,
    needed: &[TargetKey],
    on_event: &mut dyn FnMut(BuildEvent),
) -> Result<Vec<BenchExecutable>, BuildError> {
    let is_needed = |package: &str, target: &str| {
        needed
            .iter()
            .any(|k| k.package == package && k.target == target)
    };
    if needed.is_empty() {
        return Ok(Vec::new());
    }
    let names = sorted_names(needed.iter().map(|k| k.target.as_str()));
    if names == sorted_names(opts.benches.iter().map(String::as_str)) {
        let all = build_benches(
            workspace_dir,
            label,
            shared_target_dir,
            bin_dir,
            opts,
            on_event,
        )?;
        return Ok(all
            .into_iter()
            .filter(|exe| is_needed(&exe.package, &exe.target))
            .collect());
    }
    let kept = kept_whole_build(workspace_dir, label, shared_target_dir, bin_dir, opts)?;
    let executables = match kept {
        Some(kept) => {
            let gated = kept.not_built.iter();
            for gated in gated.filter(|g| is_needed(&g.package, &g.target)) {
                on_event(BuildEvent::NeedsFeatures(gated));
            }
            let uncompiled = kept.not_compiled.iter();
            for uncompiled in uncompiled.filter(|u| is_needed(&u.package, &u.target)) {
                on_event(BuildEvent::NotCompiled(uncompiled));
            }
            kept.executables
        }
        None => {
            let narrow = BuildOptions {
                benches: names,
                ..opts.clone()
            };
            let dir = narrow_bin_dir(bin_dir, &narrow.benches);
            build_benches(
                workspace_dir,
                label,
                shared_target_dir,
                &dir,
                &narrow,
                on_event,
            )?
        }
    };
    Ok(executables
        .into_iter()
        .filter(|exe| is_needed(&exe.package, &exe.target))
        .collect())
}

/// The build of every target `opts` select kept in `bin_dir` for the checkout as it is now, if
/// there is one.
pub(super) fn kept_whole_build(
    workspace_dir: &Path,
    label: &str,
    shared_target_dir: &Path,
    bin_dir: &Path,
    opts: &BuildOptions,
) -> Result<Option<KeptBuild>, BuildError> {
    let site = BuildSite {
        workspace_dir,
        label,
        shared_target_dir,
        kept_dir: bin_dir,
        kept_builds: opts.kept_builds,
    };
    site.kept(opts.cargo_args(), opts.layouts, KeptBuild::usable)
}

/// Where a build of the bench targets `names` alone is kept: `only-<hash of the names>` in the
/// revision's `bin_dir`, one directory per selection, apart from the build of every target.
pub(super) fn narrow_bin_dir(bin_dir: &Path, names: &[String]) -> PathBuf {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    names.hash(&mut hasher);
    bin_dir.join(format!("only-{:016x}", hasher.finish()))
}

/// A build kept with its executables in their bin directory ([`freshness::keep`]).
#[derive(serde::Serialize, serde::Deserialize)]
pub(super) struct KeptBuild {
    pub(super) executables: Vec<BenchExecutable>,
    /// Feature-gated bench targets the build was asked for and cargo did not build.
    pub(super) not_built: Vec<FeatureGatedBench>,
    /// Bench targets left out for a compile error, reported again when the build is reused
    /// (absent in builds kept before there were any: those were complete).
    #[serde(default)]
    pub(super) not_compiled: Vec<UncompiledBench>,
}

impl KeptBuild {
    /// Whether every executable the kept build names is still there (or can be linked again).
    fn usable(&self) -> bool {
        self.executables.iter().all(|exe| {
            let linked = || exe.layouts.iter().all(|path| path.is_file());
            let relinks = || exe.relink.as_ref().is_some_and(|r| r.links_as_built());
            exe.path.is_file() && (linked() || relinks())
        })
    }

    /// Tells `on_event` of the bench targets the build left out: those needing features, then
    /// those that did not compile.
    fn report_left_out(&self, on_event: &mut dyn FnMut(BuildEvent)) {
        for gated in &self.not_built {
            on_event(BuildEvent::NeedsFeatures(gated));
        }
        for uncompiled in &self.not_compiled {
            on_event(BuildEvent::NotCompiled(uncompiled));
        }
    }
}

/// Layouts 1 to `layouts − 1` of every bench artifact, by package id and target: where they go
/// in `bin_dir` (`layout-K/`) and what links them. A target the linker cannot relink gets none,
/// and `on_event` hears why.
pub(super) fn relink_layouts(
    relinker: &crate::steps::build::layout::Relinker,
    artifacts: &[BenchArtifact],
    bin_dir: &Path,
    on_event: &mut dyn FnMut(BuildEvent),
) -> BTreeMap<(String, String), Layouts> {
    let mut layouts = BTreeMap::new();
    for artifact in artifacts {
        let these = match layouts_of(relinker, artifact, bin_dir, on_event) {
            Ok(these) => these,
            Err(reason) => {
                on_event(BuildEvent::LayoutsUnavailable {
                    package: &package_from_id(&artifact.package_id, &artifact.manifest_path).name,
                    target: &artifact.target,
                    reason: &reason,
                });
                Layouts {
                    unavailable: Some(reason),
                    ..Layouts::default()
                }
            }
        };
        layouts.insert(
            (artifact.package_id.clone(), artifact.target.clone()),
            these,
        );
    }
    layouts
}

/// Layouts 1, 2, … of one executable: where each is linked in a bin directory, and what links
/// it when a round first needs it.
#[derive(Debug, Default)]
pub(crate) struct Layouts {
    pub paths: Vec<PathBuf>,
    pub link: Option<crate::steps::build::link::KeptLink>,
    /// Why `link` is none, in one line: one layout asked for ([`ONE_LAYOUT`]), or the relink's
    /// failure (the linker's error, another program built).
    pub unavailable: Option<String>,
}

/// Why a build with one code layout keeps no objects: it links nothing again.
pub const ONE_LAYOUT: &str =
    "one code layout was asked for (`--layouts 1`), so nothing was relinked";

/// Layouts 1, 2, … of one bench target (or program) whose layouts go in `bin_dir`, or why it has
/// no layouts but cargo's build. Cargo links the target once more, keeping its objects and
/// printing its linker command; the files that command links are preserved in
/// `bin_dir/link-inputs`, and each layout links them again in its own order when a round first
/// needs it (`crate::steps::build::layout`).
pub(crate) fn layouts_of(
    relinker: &crate::steps::build::layout::Relinker,
    artifact: &BenchArtifact,
    bin_dir: &Path,
    on_event: &mut dyn FnMut(BuildEvent),
) -> Result<Layouts, String> {
    if relinker.opts.layouts <= 1 {
        relinker.save_kept_link(artifact);
        return Ok(Layouts {
            unavailable: Some(ONE_LAYOUT.to_string()),
            ..Layouts::default()
        });
    }
    let link = relinker.template(artifact, on_event)?;
    let names = crate::steps::build::layout::names_of_the_same_program(&link, &artifact.executable);
    link.remove_unlinked_intermediates();
    let names = names?;
    let name = link
        .output()
        .file_name()
        .map_or_else(|| OsString::from(&artifact.target), OsStr::to_os_string);
    let inputs = crate::steps::build::layout::inputs_dir(bin_dir, &name);
    let kept = crate::steps::build::link::KeptLink::preserve(
        &link,
        &inputs,
        relinker.cargo.workspace_dir,
        relinker.cargo.one_path.as_ref(),
    )?
    .with_function_names(names);
    Ok(Layouts {
        paths: (1..relinker.opts.layouts)
            .map(|layout| crate::steps::build::layout::kept_path(bin_dir, layout, &name))
            .collect(),
        link: Some(kept),
        unavailable: None,
    })
}

/// Copies an executable cargo built `from` the target directory `to` a bin directory, with
/// what it compiled in through the link of `cargo`'s build set to its checkout
/// ([`super::one_path::OnePath::patch_file`]).
pub(crate) fn copy_out(cargo: &CargoBuild, from: &Path, to: &Path) -> Result<(), BuildError> {
    copy_into(from, to, cargo.label)?;
    match &cargo.one_path {
        Some(one) => one.patch_file(to).map_err(|source| BuildError::Copy {
            revision: cargo.label.to_string(),
            from: from.to_path_buf(),
            to: to.to_path_buf(),
            source,
        }),
        None => Ok(()),
    }
}

/// Copies an executable `from` the target directory to `to` in a bin directory of `label`'s,
/// creating the directory.
pub(super) fn copy_into(from: &Path, to: &Path, label: &str) -> Result<(), BuildError> {
    let dir = to.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(|source| BuildError::BinDir {
        revision: label.to_string(),
        dir: dir.to_path_buf(),
        source,
    })?;
    copy_atomically(from, to).map_err(|source| BuildError::Copy {
        revision: label.to_string(),
        from: from.to_path_buf(),
        to: to.to_path_buf(),
        source,
    })
}

/// What cargo built: the messages of its last (successful) run, and the bench targets it was
/// asked for that were left out for a compile error.
pub(super) struct Compiled {
    pub(super) parsed: ParsedBuild,
    pub(super) not_compiled: Vec<UncompiledBench>,
}

/// Runs cargo until every bench target that compiles is built. Cargo stops at the first unit
/// that fails (and `cargo bench` has no `--keep-going`; its `--no-fail-fast` is about running),
/// so when the only failures are in bench targets and other bench targets are left, cargo runs
/// again with `--bench` for each of those: one broken bench file (often a nightly-only `#[bench]`
/// file next to criterion benches) leaves out that target, not the whole comparison. The
/// package selection and features stay as asked, so every unit, and so every executable, is the
/// one a plain `cargo bench` builds. A failure anywhere else (the library, a dependency, a build
/// script), or in every bench target, is the build's error.
pub(super) fn compile_benches(
    cargo: &CargoBuild,
    packages: &WorkspacePackages,
    opts: &BuildOptions,
    on_event: &mut dyn FnMut(BuildEvent),
) -> Result<Compiled, BuildError> {
    let mut attempt = bench_targets_alone(packages, opts);
    let mut failed: Vec<FailedTarget> = Vec::new();
    // Bench targets cargo built in some run: their `required-features` are evidently enabled.
    let mut built: Vec<(String, String)> = Vec::new();
    let mut earlier_errors: Vec<String> = Vec::new();
    // What rustc printed in every run: the link commands of the bench units each compiled.
    let mut printed: Vec<String> = Vec::new();
    let crates = bench_crate_names(packages);
    let mut keep_links = true;
    loop {
        let mut command = cargo.command(&attempt);
        if keep_links {
            layout::keep_links(&mut command, Some(&crates), cargo.shared_target_dir);
        }
        let (mut parsed, stderr_tail, status) = run_cargo(
            command,
            cargo.workspace_dir,
            cargo.one_path.as_ref(),
            on_event,
        )?;
        printed.append(&mut parsed.printed);
        let failed_run = !status.success() || parsed.success == Some(false);
        if failed_run && keep_links && layout::linker_refused(&parsed.errors()) {
            // A linker without ordering files (GNU ld): cargo's build as the user has it, and
            // each target's relink then says why it has no layouts.
            layout::note_linker_refused(cargo.shared_target_dir);
            keep_links = false;
            printed.clear();
            continue;
        }
        if status.success() && parsed.success != Some(false) {
            parsed.printed = printed;
            let asked = asked_bench_targets(packages, &built, &parsed.benches);
            return Ok(Compiled {
                not_compiled: not_compiled(&failed, &asked, packages),
                parsed,
            });
        }
        let only_benches =
            !parsed.failed_targets.is_empty() && parsed.failed_targets.iter().all(|f| f.is_bench);
        failed.extend(parsed.failed_targets.iter().cloned());
        built.extend(
            parsed
                .benches
                .iter()
                .map(|b| (b.package_id.clone(), b.target.clone())),
        );
        let left = only_benches
            .then(|| bench_names_left(&asked_bench_targets(packages, &built, &[]), &failed));
        earlier_errors.push(failure_text(&parsed, &stderr_tail, status));
        match left {
            Some(names)
                if !names.is_empty()
                    && names != attempt.benches
                    && !crate::util::interrupt::interrupted() =>
            {
                attempt = BuildOptions {
                    benches: names,
                    ..opts.clone()
                };
            }
            left => {
                let none_left = left.is_some_and(|names| names.is_empty());
                return Err(cargo.failed(&earlier_errors, &failed, none_left));
            }
        }
    }
}

/// `opts` for the build's first cargo run: with no `--bench` given, each bench target the
/// build asks for named (`--bench NAME`), so that cargo compiles those and what they need, and
/// not the other targets `cargo bench` builds by default: every selected library's unit-test
/// harness (and each binary's) in the bench profile, which no comparison runs. Under fat LTO
/// each is a whole-program optimisation of its own: toml's virtual workspace has nine such
/// harnesses beside its three bench targets (docs/design/field-trials.md). The bench
/// executables are the same units either way (the relink narrows the build to `--bench T` as
/// well, [`layout`]). Cargo's own selection is kept where naming would change what is built: a
/// target with `required-features` (named, cargo refuses it unless the features are on; unnamed,
/// it skips it) or `bench = false` (named, cargo builds it), or no bench target at all (cargo
/// then says what it makes of the options).
pub(super) fn bench_targets_alone(
    packages: &WorkspacePackages,
    opts: &BuildOptions,
) -> BuildOptions {
    let cargo_selects_the_same = packages.feature_gated.is_empty()
        && packages.bench_targets.iter().all(|(id, target)| {
            packages
                .by_id
                .get(id)
                .is_some_and(|p| benched_by_default(&p.manifest_path, target))
        });
    if !opts.benches.is_empty() || packages.bench_targets.is_empty() || !cargo_selects_the_same {
        return opts.clone();
    }
    let names = packages.bench_targets.iter().map(|(_, t)| t.as_str());
    BuildOptions {
        benches: sorted_names(names),
        ..opts.clone()
    }
}

/// The crate names of the bench targets a build may compile (a target `my-bench` is crate
/// `my_bench`): those it asks for and those gated on features, whose compilations keep what
/// links their layouts ([`layout::keep_links`]).
fn bench_crate_names(packages: &WorkspacePackages) -> Vec<String> {
    let targets = packages.bench_targets.iter().map(|(_, target)| target);
    let gated = packages
        .feature_gated
        .iter()
        .map(|(_, gated)| &gated.target);
    sorted_names(targets.chain(gated).map(String::as_str))
        .into_iter()
        .map(|name| name.replace('-', "_"))
        .collect()
}

/// The bench targets the build is asked for, as (package id, target name): those without
/// `required-features`, and those with them that cargo builds (seen `built`, here or in
/// `also_built`) or whose features the options plainly enable
/// ([`WorkspacePackages::gated_enabled`]).
pub(super) fn asked_bench_targets(
    packages: &WorkspacePackages,
    built: &[(String, String)],
    also_built: &[BenchArtifact],
) -> Vec<(String, String)> {
    let was_built = |id: &String, target: &String| {
        built.iter().any(|(i, t)| i == id && t == target)
            || also_built
                .iter()
                .any(|b| &b.package_id == id && &b.target == target)
    };
    let gated = packages
        .feature_gated
        .iter()
        .map(|(id, gated)| (id.clone(), gated.target.clone()))
        .filter(|(id, target)| {
            was_built(id, target)
                || packages
                    .gated_enabled
                    .contains(&(id.clone(), target.clone()))
        });
    packages
        .bench_targets
        .iter()
        .cloned()
        .chain(gated)
        .collect()
}

/// The `--bench` names that build the `asked` bench targets but the `failed` ones, sorted, each
/// once. `--bench NAME` selects every selected package's target of that name, so a target
/// sharing its name with a failed one is left out too ([`Uncompiled::SharesFailedName`]).
pub(super) fn bench_names_left(asked: &[(String, String)], failed: &[FailedTarget]) -> Vec<String> {
    let failed_name = |name: &str| failed.iter().any(|f| f.target == name);
    sorted_names(
        asked
            .iter()
            .map(|(_, target)| target.as_str())
            .filter(|target| !failed_name(target)),
    )
}

pub(super) fn sorted_names<'a>(names: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut names: Vec<String> = names.map(str::to_string).collect();
    names.sort_unstable();
    names.dedup();
    names
}

/// The `asked` bench targets left out of a successful build: those that `failed` to compile, and
/// those that share a name with one of them. Sorted.
pub(super) fn not_compiled(
    failed: &[FailedTarget],
    asked: &[(String, String)],
    packages: &WorkspacePackages,
) -> Vec<UncompiledBench> {
    let package_name = |id: &str| {
        packages
            .by_id
            .get(id)
            .map(|p| p.name.clone())
            .unwrap_or_else(|| package_from_id(id, Path::new("")).name)
    };
    let failed_benches = failed.iter().filter(|f| f.is_bench);
    let mut uncompiled: Vec<UncompiledBench> = failed_benches
        .clone()
        .map(|f| UncompiledBench {
            package: package_name(&f.package_id),
            target: f.target.clone(),
            why: if f.needs_nightly {
                Uncompiled::NeedsNightly
            } else {
                Uncompiled::Failed {
                    error: f.first_error.clone(),
                    errors: f.errors,
                }
            },
        })
        .collect();
    for (id, target) in asked {
        let is_failed = |f: &&FailedTarget| &f.package_id == id && &f.target == target;
        if failed_benches.clone().any(|f| is_failed(&f)) {
            continue;
        }
        if let Some(namesake) = failed_benches.clone().find(|f| &f.target == target) {
            uncompiled.push(UncompiledBench {
                package: package_name(id),
                target: target.clone(),
                why: Uncompiled::SharesFailedName {
                    package: package_name(&namesake.package_id),
                },
            });
        }
    }
    uncompiled.sort();
    uncompiled.dedup();
    uncompiled
}

/// What a successful build knows about its bench executables.
pub(super) struct Built<'a> {
    pub(super) parsed: &'a ParsedBuild,
    /// The other layouts, by package id and target ([`relink_layouts`]).
    pub(super) layouts: &'a BTreeMap<(String, String), Layouts>,
    pub(super) packages: &'a HashMap<String, PackageInfo>,
    /// The `[env]` variables cargo would set ([`cargo_env::config_env`]).
    pub(super) config_env: &'a [(OsString, OsString)],
    pub(super) native_library_dirs: &'a [PathBuf],
}

/// The output directory of each build script of `parsed`, by package name (cargo's package id
/// names it, or the last segment of a path or git source's address where it names none).
pub(super) fn build_out_dirs(parsed: &ParsedBuild) -> Vec<BuildOutDir> {
    let mut dirs: Vec<BuildOutDir> = parsed
        .build_scripts
        .iter()
        .filter_map(|(id, script)| {
            let source = id.split(['#', '?']).next().unwrap_or(id);
            let package = package_from_id(id, &Path::new(source).join("Cargo.toml")).name;
            let dir = script.out_dir.clone()?;
            Some(BuildOutDir { package, dir })
        })
        .collect();
    dirs.sort_by(|a, b| (&a.package, &a.dir).cmp(&(&b.package, &b.dir)));
    dirs
}

impl Built<'_> {
    /// The `[env]` variables, then those of the package's build script, which win.
    fn cargo_env_of(&self, package_id: &str) -> Vec<(OsString, OsString)> {
        let script = self
            .parsed
            .build_scripts
            .get(package_id)
            .map(BuildScriptEnv::variables)
            .unwrap_or_default();
        self.config_env.iter().cloned().chain(script).collect()
    }
}

/// Copies each bench executable into `bin_dir` and describes it.
pub(super) fn copy_executables(
    built: &Built,
    cargo: &CargoBuild,
    bin_dir: &Path,
) -> Result<Vec<BenchExecutable>, BuildError> {
    let mut executables = Vec::new();
    for artifact in &built.parsed.benches {
        let file_name = artifact
            .executable
            .file_name()
            .map(OsStr::to_os_string)
            .unwrap_or_else(|| OsString::from(&artifact.target));
        let destination = bin_dir.join(file_name);
        copy_out(cargo, &artifact.executable, &destination)?;
        let layouts = built
            .layouts
            .get(&(artifact.package_id.clone(), artifact.target.clone()));
        let package = built
            .packages
            .get(&artifact.package_id)
            .cloned()
            .unwrap_or_else(|| package_from_id(&artifact.package_id, &artifact.manifest_path));
        executables.push(BenchExecutable {
            harness: bench_harness(&package.manifest_path, &artifact.target),
            package: package.name,
            target: artifact.target.clone(),
            path: destination,
            layouts: layouts.map(|l| l.paths.clone()).unwrap_or_default(),
            relink: layouts.and_then(|l| l.link.clone()),
            relink_missing: layouts.and_then(|l| l.unavailable.clone()),
            package_root: package
                .manifest_path
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_default(),
            manifest_path: package.manifest_path,
            src_path: artifact.src_path.clone(),
            package_version: package.version,
            cargo_env: built.cargo_env_of(&artifact.package_id),
            native_library_dirs: built.native_library_dirs.to_vec(),
            build_out_dirs: build_out_dirs(built.parsed),
        });
    }
    executables.sort_by(|a, b| (&a.package, &a.target).cmp(&(&b.package, &b.target)));
    Ok(executables)
}
