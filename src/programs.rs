//! Build of a revision's programs, the `bin` targets that commands run ([`crate::command`]):
//! `cargo build --profile P --bins --message-format=json` in the revision's checkout.
//!
//! It follows the bench build ([`crate::build`]) in everything that makes a comparison fair:
//! both revisions build into the one shared target directory, so a crate whose source is the
//! same on both sides is one unit with one `-C metadata` and gives byte-identical programs, as
//! the user's own `cargo build --release` would; the checkout's files are marked changed where
//! they differ from the last build ([`crate::freshness`]); the programs are copied out of the
//! target directory, so a later cargo run cannot replace them under a running comparison; and a
//! build is kept and reused while the checkout, the options and the profile are the same.
//!
//! Code layouts apply to programs as to benchmarks ([`crate::layout`]): layout 0 is cargo's
//! build, and layout `k` the same program relinked with the linker's sections shuffled with
//! seed `k`. Each layout is a directory holding every program of the revision, the `{bin}` a
//! command of that layout's rounds sees.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use crate::build::{self, BuildError, BuildEvent, BuildOptions, CargoBuild};
use crate::freshness::{self, BuildKey};
use crate::layout::{RelinkedKind, Relinker};

/// The profile programs are built with unless the configuration says otherwise.
pub const DEFAULT_PROFILE: &str = "release";

/// One revision's programs, in every layout.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, Default)]
pub struct Programs {
    /// The directory of each layout's programs: cargo's build first, then the relinked ones.
    pub layout_dirs: Vec<PathBuf>,
    /// The programs' file names, sorted.
    pub names: Vec<String>,
}

/// Builds the programs of the checkout at `workspace_dir` (the revision's workspace root) with
/// `profile` and copies them into `bin_dir/programs`, relinked into `opts.layouts` layouts.
pub fn build_programs(
    workspace_dir: &Path,
    label: &str,
    shared_target_dir: &Path,
    bin_dir: &Path,
    opts: &BuildOptions,
    profile: &str,
    on_event: &mut dyn FnMut(BuildEvent),
) -> Result<Programs, BuildError> {
    let programs_dir = bin_dir.join("programs");
    let checkout = freshness::Checkout::containing(workspace_dir);
    let freshness_error = |source| BuildError::Freshness {
        revision: label.to_string(),
        dir: checkout.root.clone(),
        source,
    };
    let _building = freshness::lock(shared_target_dir).map_err(freshness_error)?;
    let sources = checkout.scan().map_err(freshness_error)?;
    let mut key_args = vec!["programs".to_string(), format!("profile={profile}")];
    key_args.extend(package_args(opts));
    key_args.push(format!("layouts={}", opts.layouts.max(1)));
    let key = BuildKey::new(
        &checkout,
        &sources,
        workspace_dir,
        &key_args,
        shared_target_dir,
    );
    if let Some(kept) = kept_programs(&programs_dir, key) {
        return Ok(kept);
    }
    freshness::forget(&programs_dir).map_err(freshness_error)?;
    let marked = checkout
        .mark_changed(shared_target_dir, &sources)
        .map_err(freshness_error)?;
    let cargo = CargoBuild::new(workspace_dir, label, shared_target_dir)?;
    let mut args: Vec<String> = [
        "build",
        "--profile",
        profile,
        "--bins",
        "--message-format=json",
    ]
    .map(String::from)
    .to_vec();
    args.extend(package_args(opts));
    let (parsed, stderr_tail, status) =
        build::run_cargo(cargo.cargo(&args), workspace_dir, on_event)?;
    if !status.success() || parsed.success == Some(false) {
        let mut diagnostics = parsed.errors();
        if diagnostics.is_empty() {
            diagnostics = stderr_tail.join("\n");
        }
        return Err(BuildError::Failed {
            revision: label.to_string(),
            diagnostics: format!("`cargo build --profile {profile} --bins`:\n{diagnostics}"),
            hint: None,
        });
    }
    checkout
        .record(shared_target_dir, &sources, &marked)
        .map_err(freshness_error)?;
    let programs = copy_layouts(
        &cargo,
        &parsed.programs,
        opts,
        profile,
        label,
        &programs_dir,
        on_event,
    )?;
    // A workspace with no bin target copies nothing, and its (empty) build is kept all the same.
    std::fs::create_dir_all(&programs_dir).map_err(freshness_error)?;
    freshness::keep(&programs_dir, key, &programs).map_err(freshness_error)?;
    Ok(programs)
}

/// The package and feature selection, as `cargo build` takes it (bench selections do not apply).
fn package_args(opts: &BuildOptions) -> Vec<String> {
    BuildOptions {
        benches: Vec::new(),
        ..opts.clone()
    }
    .cargo_args()
}

/// The kept programs in `programs_dir` under `key`, if every one is still there.
fn kept_programs(programs_dir: &Path, key: BuildKey) -> Option<Programs> {
    freshness::kept::<Programs>(programs_dir, key).filter(|kept| {
        kept.layout_dirs
            .iter()
            .all(|dir| kept.names.iter().all(|name| dir.join(name).is_file()))
    })
}

/// Copies cargo's programs into `programs_dir/cargo` and each relinked layout into
/// `programs_dir/layout-K`. A program that cannot be relinked leaves the revision with cargo's
/// layout alone (every layout directory must hold every program), and `on_event` hears why.
fn copy_layouts(
    cargo: &CargoBuild,
    artifacts: &[build::BenchArtifact],
    opts: &BuildOptions,
    profile: &str,
    label: &str,
    programs_dir: &Path,
    on_event: &mut dyn FnMut(BuildEvent),
) -> Result<Programs, BuildError> {
    let cargo_dir = programs_dir.join("cargo");
    let mut names = Vec::new();
    for artifact in artifacts {
        let name = file_name(&artifact.executable, &artifact.target);
        build::copy_into(&artifact.executable, &cargo_dir.join(&name), label)?;
        names.push(name.to_string_lossy().into_owned());
    }
    names.sort();
    let relinker = Relinker {
        cargo,
        opts,
        kind: RelinkedKind::Bin { profile },
    };
    let mut layout_dirs = vec![cargo_dir];
    let mut relinked: Vec<Vec<PathBuf>> = Vec::new();
    for artifact in artifacts {
        match build::layouts_of(&relinker, artifact, label, programs_dir, on_event)? {
            Ok(paths) => relinked.push(paths),
            Err(reason) => {
                on_event(BuildEvent::LayoutsUnavailable {
                    target: &artifact.target,
                    reason: &reason,
                });
                return Ok(Programs { layout_dirs, names });
            }
        }
    }
    for layout in 1..opts.layouts.max(1) {
        layout_dirs.push(crate::layout::layout_dir(programs_dir, layout));
    }
    debug_assert!(
        relinked
            .iter()
            .all(|paths| paths.len() + 1 == layout_dirs.len())
    );
    Ok(Programs { layout_dirs, names })
}

fn file_name(executable: &Path, target: &str) -> OsString {
    executable
        .file_name()
        .map(OsStr::to_os_string)
        .unwrap_or_else(|| OsString::from(target))
}
