//! Build of a revision's programs, the `bin` targets that commands run ([`crate::model::command`]):
//! `cargo build --profile P --bins --message-format=json` in the revision's checkout.
//!
//! It follows the bench build ([`crate::steps::build`]) in everything that makes a comparison fair:
//! both revisions build into the one shared target directory, so a crate whose source is the
//! same on both sides is one unit with one `-C metadata` and gives byte-identical programs on
//! both sides (the functions of the user's own `cargo build --release`, in the order the
//! wrapper's normalised symbol hashes give); the checkout's files are marked changed where
//! they differ from the last build ([`crate::steps::build::freshness`]); the programs are copied out of the
//! target directory, so a later cargo run cannot replace them under a running comparison; and a
//! build is kept and reused while the checkout, the options and the profile are the same.
//!
//! Code layouts apply to programs as to benchmarks ([`crate::steps::build::layout`]): layout 0 is cargo's
//! build, and layout `k` the same program relinked with its functions in the order of seed `k`. Each layout is a directory holding every program of the revision, the `{bin}` a
//! command of that layout's rounds sees.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use crate::steps::build::keep::{BuildSite, Kept};
use crate::steps::build::layout::{RelinkedKind, Relinker};
use crate::steps::build::{self, BuildError, BuildEvent, BuildOptions, CargoBuild, ParsedBuild};

/// The profile programs are built with unless the configuration says otherwise.
pub const DEFAULT_PROFILE: &str = "release";

/// One revision's programs, in every layout.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, Default)]
pub struct Programs {
    /// The directory of each layout's programs: cargo's build first, then the relinked ones,
    /// each linked when a round first needs it ([`Programs::link_layout`]).
    pub layout_dirs: Vec<PathBuf>,
    /// The programs' file names, sorted.
    pub names: Vec<String>,
    /// What links each program (in the order of `names`) in the other layouts.
    #[serde(default)]
    pub relinks: Vec<crate::steps::build::link::KeptLink>,
    /// Why `relinks` is empty, as the build knew it: one code layout asked for, or the relink's
    /// failure (see [`crate::steps::build::BenchExecutable::relink_missing`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relinks_missing: Option<String>,
    /// Every build script's output directory in the build, by package
    /// (see [`crate::steps::build::BenchExecutable::build_out_dirs`]).
    #[serde(default)]
    pub build_out_dirs: Vec<build::BuildOutDir>,
}

impl Programs {
    /// Links the programs of layout `layout` that no round needed before; or says why one
    /// cannot be.
    pub fn link_layout(&self, layout: usize) -> Result<(), String> {
        let Some(dir) = self.layout_dirs.get(layout).filter(|_| layout > 0) else {
            return Ok(());
        };
        for (name, relink) in self.names.iter().zip(&self.relinks) {
            let path = dir.join(name);
            if !path.is_file() {
                relink.link(layout, &path)?;
            }
        }
        Ok(())
    }

    /// Whether some program of layout `layout` is still to be linked.
    pub fn unlinked(&self, layout: usize) -> bool {
        layout > 0
            && self
                .layout_dirs
                .get(layout)
                .is_some_and(|dir| self.names.iter().any(|name| !dir.join(name).is_file()))
    }

    /// Whether every layout is linked or can be.
    fn complete(&self) -> bool {
        let cargo_s = self.layout_dirs.first();
        let in_cargo_s =
            || cargo_s.is_some_and(|dir| self.names.iter().all(|name| dir.join(name).is_file()));
        let relinkable = || {
            self.layout_dirs.len() == 1
                || (self.relinks.len() == self.names.len()
                    && self
                        .relinks
                        .iter()
                        .all(crate::steps::build::link::KeptLink::links_as_built))
        };
        in_cargo_s() && relinkable()
    }
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
    let site = BuildSite {
        workspace_dir,
        label,
        shared_target_dir,
        kept_dir: &programs_dir,
        kept_builds: opts.kept_builds,
    };
    let mut key_args = vec!["programs".to_string(), format!("profile={profile}")];
    key_args.extend(package_args(opts));
    let build = site.kept_or_built(
        key_args,
        opts.layouts,
        Programs::complete,
        |on_event| {
            compile_programs(
                workspace_dir,
                label,
                shared_target_dir,
                opts,
                profile,
                on_event,
            )
        },
        |(cargo, parsed), on_event| {
            let programs = copy_layouts(&cargo, &parsed, opts, profile, &programs_dir, on_event)?;
            // A workspace with no bin target copies nothing, and its (empty) build is kept all
            // the same.
            site.create_kept_dir()?;
            Ok(programs)
        },
        on_event,
    )?;
    match build {
        Kept::Reused(programs) | Kept::Built(programs) => Ok(programs),
    }
}

/// `cargo build --profile P --bins` of the checkout at `workspace_dir`.
fn compile_programs<'a>(
    workspace_dir: &'a Path,
    label: &'a str,
    shared_target_dir: &'a Path,
    opts: &BuildOptions,
    profile: &str,
    on_event: &mut dyn FnMut(BuildEvent),
) -> Result<(CargoBuild<'a>, ParsedBuild), BuildError> {
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
    let mut command = cargo.cargo(&args);
    // `--bins` compiles the programs and build scripts alone: every program keeps its link.
    crate::steps::build::layout::keep_links(&mut command, None, shared_target_dir);
    let (mut parsed, mut stderr_tail, mut status) =
        build::run_cargo(command, workspace_dir, cargo.one_path.as_ref(), on_event)?;
    let failed = !status.success() || parsed.success == Some(false);
    if failed && crate::steps::build::layout::linker_refused(&parsed.errors()) {
        // A linker without ordering files: the programs as the user builds them, and each
        // relink then says why there are no layouts.
        crate::steps::build::layout::note_linker_refused(shared_target_dir);
        (parsed, stderr_tail, status) = build::run_cargo(
            cargo.cargo(&args),
            workspace_dir,
            cargo.one_path.as_ref(),
            on_event,
        )?;
    }
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
    Ok((cargo, parsed))
}

/// The package and feature selection, as `cargo build` takes it (bench selections do not apply).
fn package_args(opts: &BuildOptions) -> Vec<String> {
    BuildOptions {
        benches: Vec::new(),
        ..opts.clone()
    }
    .cargo_args()
}

/// Copies cargo's programs into `programs_dir/cargo` and prepares each relinked layout in
/// `programs_dir/layout-K`, linked when a round first needs it. A program that cannot be
/// relinked leaves the revision with cargo's layout alone (every layout directory must hold
/// every program), and `on_event` hears why.
fn copy_layouts(
    cargo: &CargoBuild,
    parsed: &ParsedBuild,
    opts: &BuildOptions,
    profile: &str,
    programs_dir: &Path,
    on_event: &mut dyn FnMut(BuildEvent),
) -> Result<Programs, BuildError> {
    let cargo_dir = programs_dir.join("cargo");
    let mut artifacts: Vec<(String, &build::BenchArtifact)> = parsed
        .programs
        .iter()
        .map(|a| {
            (
                file_name(&a.executable, &a.target)
                    .to_string_lossy()
                    .into_owned(),
                a,
            )
        })
        .collect();
    artifacts.sort_by(|a, b| a.0.cmp(&b.0));
    for (name, artifact) in &artifacts {
        build::copy_out(cargo, &artifact.executable, &cargo_dir.join(name))?;
    }
    let names: Vec<String> = artifacts.iter().map(|(name, _)| name.clone()).collect();
    let relinker = Relinker {
        cargo,
        opts,
        kind: RelinkedKind::Bin { profile },
        printed: &parsed.printed,
    };
    let cargo_only = |names, why: Option<String>| Programs {
        layout_dirs: vec![cargo_dir.clone()],
        names,
        relinks: Vec::new(),
        relinks_missing: why,
        build_out_dirs: super::benches::build_out_dirs(parsed),
    };
    let mut relinks = Vec::new();
    for (_, artifact) in &artifacts {
        match build::layouts_of(&relinker, artifact, programs_dir, on_event) {
            Ok(build::Layouts {
                link: Some(link), ..
            }) => relinks.push(link),
            Ok(layouts) => return Ok(cargo_only(names, layouts.unavailable)),
            Err(reason) => {
                let package = super::workspace::package_from_id(
                    &artifact.package_id,
                    &artifact.manifest_path,
                );
                on_event(BuildEvent::LayoutsUnavailable {
                    package: &package.name,
                    target: &artifact.target,
                    reason: &reason,
                });
                return Ok(cargo_only(names, Some(reason)));
            }
        }
    }
    let mut layout_dirs = vec![cargo_dir.clone()];
    for layout in 1..opts.layouts.max(1) {
        layout_dirs.push(crate::steps::build::layout::layout_dir(
            programs_dir,
            layout,
        ));
    }
    Ok(Programs {
        layout_dirs,
        names,
        relinks,
        relinks_missing: None,
        build_out_dirs: super::benches::build_out_dirs(parsed),
    })
}

fn file_name(executable: &Path, target: &str) -> OsString {
    executable
        .file_name()
        .map(OsStr::to_os_string)
        .unwrap_or_else(|| OsString::from(target))
}
