//! Build: `cargo bench --no-run --message-format=json` in a revision's worktree; bench executables
//! are taken from the `compiler-artifact` messages and copied to a per-commit directory.
//!
//! Why it works this way:
//! - Both revisions build into one shared `CARGO_TARGET_DIR`, so dependencies that did not change
//!   compile once, and with nothing of ours in the build: cargo names and hashes a workspace crate
//!   by its path *relative to the workspace root*, so the same crate in the two checkouts is one
//!   unit with the same `-C metadata`, and identical source gives a byte-identical executable, as
//!   the user's own `cargo bench` would. That the second checkout's files are not taken for fresh
//!   (cargo compares modification times) is [`crate::steps::build::freshness`]'s job, done before each build.
//! - Cargo's JSON messages are the only reliable record of which file is the bench executable of
//!   which target (the hash in `deps/<name>-<hash>` is not predictable). The executables are still
//!   copied to the revision's `bin_dir`, so a later `cargo` invocation on the shared target dir
//!   (a rebuild, the user's own `cargo bench`) cannot replace a binary under a running comparison.
//! - `--message-format=json` (not `json-render-diagnostics`) keeps rustc's rendered diagnostics
//!   inside the JSON, so errors can be quoted per message; cargo's own progress (`Compiling x`) and
//!   its own errors (a broken manifest, a failed download) still arrive on stderr, whose tail is
//!   kept for the error message.
//! - A bench target that does not compile (a nightly-only `#[bench]` file beside criterion
//!   benches, a bench not updated with the library) is reported and left out, not a reason to
//!   compare nothing: cargo stops at its first failing unit, and `cargo bench` has no
//!   `--keep-going`, so cargo runs again with `--bench` for each of the others. A failure in
//!   anything else (the library, a dependency) still ends the run: no benchmark can be trusted
//!   to be the code under test then.
//! - A bench process started by cargo gets a working directory, `CARGO_*` variables and a dynamic
//!   library search path; [`fork_environment`] reproduces them so benchmarks that read fixtures
//!   relative to their package, or link a dylib, behave as under `cargo bench`.

pub mod cargo_env;
pub mod freshness;
mod keep;
pub mod layout;
pub mod programs;

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::ffi::{OsStr, OsString};
use std::fs;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock, mpsc};

use cargo_metadata::{Message, MetadataCommand, TargetKind};

use crate::model::target::TargetKey;
use crate::steps::build::cargo_env::BuildScriptEnv;
use crate::util::fs::copy_atomically;
use keep::{BuildSite, Kept};

/// How many lines of cargo's stderr an error message quotes.
const STDERR_TAIL_LINES: usize = 30;

/// Errors building a revision's benchmarks or asking cargo about a workspace.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error(
        "building the benchmarks of {revision} failed:\n{diagnostics}{}",
        .hint.as_deref().map(|h| format!("\n\nhint: {h}")).unwrap_or_default()
    )]
    Failed {
        revision: String,
        diagnostics: String,
        /// What to do about it, when every bench target failed to compile
        /// ([`all_benches_failed_hint`]).
        hint: Option<String>,
    },
    #[error("no Cargo.toml in {} or any parent", dir.display())]
    NoManifest { dir: PathBuf },
    #[error("cannot ask cargo about the workspace in {}: {message}", dir.display())]
    Metadata { dir: PathBuf, message: String },
    #[error("cannot run `{command}` in {}: {source}", dir.display())]
    Spawn {
        command: String,
        dir: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot prepare the executables directory {} of {revision}: {source}", dir.display())]
    BinDir {
        revision: String,
        dir: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot prepare the build of {revision} in {}: {source}", dir.display())]
    Freshness {
        revision: String,
        dir: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot copy the bench executable {} of {revision} to {}: {source}", from.display(), to.display())]
    Copy {
        revision: String,
        from: PathBuf,
        to: PathBuf,
        source: std::io::Error,
    },
}

/// Which packages, bench targets and features to build; passed through to `cargo bench`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BuildOptions {
    /// `-p`/`--package` selections; empty means cargo's default members (or, with
    /// `workspace`, every member).
    pub packages: Vec<String>,
    /// `--workspace`: every member of the workspace.
    pub workspace: bool,
    /// `--exclude` (with `--workspace`): members left out, by name or glob.
    pub exclude: Vec<String>,
    /// `--bench` selections; empty means every bench target.
    pub benches: Vec<String>,
    /// `--features` (each entry may itself be a comma- or space-separated list, as for cargo).
    pub features: Vec<String>,
    pub all_features: bool,
    pub no_default_features: bool,
    /// Code layouts of each bench target: cargo's build and `layouts − 1` relinks of it
    /// ([`crate::steps::build::layout`]); 0 and 1 both mean cargo's build alone.
    pub layouts: usize,
}

impl BuildOptions {
    /// The options as `cargo bench` arguments.
    pub fn cargo_args(&self) -> Vec<String> {
        let mut args = Vec::new();
        if self.workspace {
            args.push("--workspace".to_string());
        }
        for excluded in &self.exclude {
            args.extend(["--exclude".to_string(), excluded.clone()]);
        }
        for package in &self.packages {
            args.extend(["--package".to_string(), package.clone()]);
        }
        for bench in &self.benches {
            args.extend(["--bench".to_string(), bench.clone()]);
        }
        args.extend(self.feature_args());
        args
    }

    /// The feature selection alone, as cargo arguments.
    pub fn feature_args(&self) -> Vec<String> {
        let mut args = Vec::new();
        for features in &self.features {
            args.extend(["--features".to_string(), features.clone()]);
        }
        if self.all_features {
            args.push("--all-features".to_string());
        }
        if self.no_default_features {
            args.push("--no-default-features".to_string());
        }
        args
    }
}

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
        .args(["locate-project", "--workspace", "--message-format", "plain"])
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
    Path::new(&manifest)
        .parent()
        .map(Path::to_path_buf)
        .ok_or_else(|| {
            metadata_error(format!(
                "cargo located no workspace manifest ({manifest:?})"
            ))
        })
}

/// A bench executable of one revision, ready to be run.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BenchExecutable {
    /// Package name.
    pub package: String,
    /// Bench target name (`[[bench]]` name).
    pub target: String,
    /// The copied executable in the caller's per-revision bin directory: cargo's build, layout 0.
    pub path: PathBuf,
    /// Where the executables of layouts 1, 2, … are: the same code relinked in other orders
    /// ([`crate::steps::build::layout`]), each linked when a round first needs it ([`Self::layout`]); empty
    /// when one layout was asked for or the linker cannot order functions.
    #[serde(default)]
    pub layouts: Vec<PathBuf>,
    /// What links them.
    #[serde(default)]
    pub relink: Option<crate::steps::build::layout::KeptLink>,
    /// Manifest directory of the package inside the worktree (the working directory of forks).
    pub package_root: PathBuf,
    pub manifest_path: PathBuf,
    /// The target's root source file in the worktree (a `bencher` target's benchmarks are
    /// listed from it).
    #[serde(default)]
    pub src_path: PathBuf,
    /// False when the target says `harness = false` (criterion, divan, plain binaries).
    pub harness: bool,
    pub package_version: String,
    /// What cargo adds to a bench process's environment from its configuration's `[env]` and the
    /// package's build script, in the order it applies them ([`crate::steps::build::cargo_env`]).
    pub cargo_env: Vec<(OsString, OsString)>,
    /// Library directories the build's build scripts named inside the target directory, which
    /// cargo puts first on a bench process's library search path
    /// ([`cargo_env::native_library_dirs`]).
    pub native_library_dirs: Vec<PathBuf>,
}

impl BenchExecutable {
    /// The executable of layout `layout` (0: cargo's build), linked now if no round needed it
    /// before; or why it cannot be.
    pub fn layout(&self, layout: usize) -> Result<&Path, String> {
        let Some(path) = layout.checked_sub(1).map(|k| &self.layouts[k]) else {
            return Ok(&self.path);
        };
        if !path.is_file() {
            let relink = self.relink.as_ref().ok_or("nothing links it")?;
            relink.link(layout, path)?;
        }
        Ok(path)
    }

    /// Whether layout `layout` is still to be linked.
    pub fn unlinked(&self, layout: usize) -> bool {
        layout
            .checked_sub(1)
            .is_some_and(|k| !self.layouts[k].is_file())
    }
}

/// Progress of a build, reported as it happens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BuildEvent<'a> {
    /// Cargo started compiling this crate (name as cargo prints it).
    Compiling(&'a str),
    /// A rendered rustc diagnostic (warning or error).
    Message(&'a str),
    /// Cargo reported the end of the build (successful or not).
    Finished,
    /// A bench target was not built because it requires features that are not enabled
    /// (cargo skips such targets silently).
    NeedsFeatures(&'a FeatureGatedBench),
    /// A workspace member with bench targets that the build does not select (not `-p`, not a
    /// default member).
    NotSelected(&'a UnselectedPackage),
    /// Bench target (or program) `target` is being linked once more through cargo, which keeps
    /// what links its other code layouts ([`crate::steps::build::layout`]).
    Relinking { target: &'a str },
    /// Bench target `target` could not be relinked in another layout, for `reason`; it is
    /// measured in cargo's build alone.
    LayoutsUnavailable { target: &'a str, reason: &'a str },
    /// A bench target the build asked for that has no executable: it failed to compile (or
    /// shares its name with one that did), and the other bench targets were built without it.
    NotCompiled(&'a UncompiledBench),
}

/// A bench target that was not built because of a compile error, while the others were.
/// Ordered by package, then target.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct UncompiledBench {
    pub package: String,
    pub target: String,
    pub why: Uncompiled,
}

/// Why an [`UncompiledBench`] has no executable.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Uncompiled {
    /// rustc reported errors for it: the first, in one line (its headline and location), and
    /// how many there were.
    Failed { error: String, errors: usize },
    /// It uses `#![feature]` (libtest's `#[bench]` needs `#![feature(test)]`) and the toolchain is
    /// stable (rustc's error E0554).
    NeedsNightly,
    /// A bench target of the same name in `package` failed to compile: cargo's `--bench NAME`,
    /// the only way to leave a bench target out, leaves out every package's target of that name.
    SharesFailedName { package: String },
}

impl UncompiledBench {
    /// Whether it was left out only because the toolchain is not nightly.
    pub fn needs_nightly(&self) -> bool {
        self.why == Uncompiled::NeedsNightly
    }

    /// Why it was not built in `revision`, for a report: `failed to compile in head HEAD
    /// (1a2b3c4d5): error[E0425]: cannot find value `x` in this scope (at benches/b.rs:3:9)`.
    pub fn reason_in(&self, revision: &str) -> String {
        match &self.why {
            Uncompiled::Failed { error, errors } => {
                let more = match errors.saturating_sub(1) {
                    0 => String::new(),
                    n => format!(", and {n} more error(s)"),
                };
                format!("failed to compile in {revision}: {error}{more}")
            }
            Uncompiled::NeedsNightly => format!(
                "needs a nightly toolchain in {revision}: it uses `#![feature]` (libtest's \
                 `#[bench]` needs `#![feature(test)]`), which a stable toolchain refuses"
            ),
            Uncompiled::SharesFailedName { package } => format!(
                "not built in {revision}: bench target `{}` of package {package} failed to \
                 compile, and cargo's `--bench {}` cannot leave out one package's target of \
                 that name without the others'",
                self.target, self.target
            ),
        }
    }
}

/// A workspace member with bench targets that a build left out: in a workspace whose root is a
/// package, cargo builds only the root's bench targets unless told `-p` or `--workspace`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct UnselectedPackage {
    pub package: String,
    pub bench_targets: Vec<String>,
}

/// A bench target with `required-features`, which cargo builds only when they are enabled.
/// Ordered by package, then target.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct FeatureGatedBench {
    pub package: String,
    pub target: String,
    pub required_features: Vec<String>,
    /// The `cargo perfdiff` arguments that enable them (`-p` only in a workspace of several
    /// packages).
    pub suggestion: String,
}

/// What cargo's JSON message stream says about a build.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParsedBuild {
    /// Executables of `bench` targets, in the order cargo reported them.
    pub benches: Vec<BenchArtifact>,
    /// Executables of `bin` targets (the programs commands run), in the order cargo reported
    /// them.
    pub programs: Vec<BenchArtifact>,
    /// Every rendered rustc diagnostic, in order.
    pub diagnostics: Vec<RenderedDiagnostic>,
    /// `build-finished`'s verdict; `None` when the stream ended before it (cargo died early).
    pub success: Option<bool>,
    /// The targets an error-level diagnostic was reported for, in order, without repeats.
    pub failed_targets: Vec<FailedTarget>,
    /// What each package's build script gives the processes cargo runs for it, by package id.
    pub build_scripts: BTreeMap<String, BuildScriptEnv>,
    /// Lines of stdout that are not cargo's JSON messages: what rustc printed for a `--print`
    /// request (the linker command of `--print link-args`).
    pub printed: Vec<String>,
}

/// A target cargo reported an error for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailedTarget {
    /// Cargo's package id.
    pub package_id: String,
    pub target: String,
    pub is_bench: bool,
    /// Whether one of its errors was E0554: `#![feature]` on a stable toolchain.
    pub needs_nightly: bool,
    /// Its first error in one line: headline and location.
    pub first_error: String,
    /// How many errors rustc reported for it.
    pub errors: usize,
}

impl ParsedBuild {
    /// The rendered error-level diagnostics, joined.
    pub fn errors(&self) -> String {
        self.diagnostics
            .iter()
            .filter(|d| d.is_error)
            .map(|d| d.rendered.trim_end())
            .collect::<Vec<_>>()
            .join("\n\n")
    }
}

/// A bench executable as cargo reported it (before it is copied).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BenchArtifact {
    /// Cargo's package id (`path+file:///…#name@version`).
    pub package_id: String,
    /// Bench target name.
    pub target: String,
    pub executable: PathBuf,
    pub manifest_path: PathBuf,
    /// The target's root source file.
    pub src_path: PathBuf,
}

/// One rendered rustc diagnostic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderedDiagnostic {
    /// Level `error` or `error: internal compiler error`.
    pub is_error: bool,
    pub rendered: String,
}

/// Folds cargo messages into a [`ParsedBuild`], one line at a time, so the same code serves the
/// live build (which reports progress per line) and [`parse_messages`].
#[derive(Debug, Default)]
struct MessageCollector {
    parsed: ParsedBuild,
}

/// What one stdout line contributed, for progress reporting.
enum Observed {
    Diagnostic(usize),
    Finished,
    Nothing,
}

/// rustc's code for `#![feature]` used on the stable release channel.
const NIGHTLY_FEATURE_ON_STABLE: &str = "E0554";

impl MessageCollector {
    fn note_failed_target(
        &mut self,
        package_id: String,
        target: cargo_metadata::Target,
        needs_nightly: bool,
        rendered: &str,
    ) {
        let failed = &mut self.parsed.failed_targets;
        match failed
            .iter_mut()
            .find(|f| f.package_id == package_id && f.target == target.name)
        {
            Some(known) => {
                known.needs_nightly |= needs_nightly;
                known.errors += 1;
            }
            None => failed.push(FailedTarget {
                package_id,
                is_bench: target.kind.contains(&TargetKind::Bench),
                target: target.name,
                needs_nightly,
                first_error: diagnostic_headline(rendered),
                errors: 1,
            }),
        }
    }

    fn observe_line(&mut self, line: &[u8]) -> Observed {
        let text = String::from_utf8_lossy(line);
        let text = text.trim();
        if !text.starts_with('{') {
            if !text.is_empty() {
                self.parsed.printed.push(text.to_string());
            }
            return Observed::Nothing;
        }
        match serde_json::from_str::<Message>(text) {
            Ok(message) => self.observe(message),
            Err(_) => Observed::Nothing,
        }
    }

    fn observe(&mut self, message: Message) -> Observed {
        match message {
            Message::CompilerArtifact(artifact) => {
                let kind = &artifact.target.kind;
                let list = if kind.contains(&TargetKind::Bench) {
                    &mut self.parsed.benches
                } else if kind.contains(&TargetKind::Bin) {
                    &mut self.parsed.programs
                } else {
                    return Observed::Nothing;
                };
                if let Some(executable) = artifact.executable {
                    list.push(BenchArtifact {
                        package_id: artifact.package_id.repr,
                        target: artifact.target.name,
                        executable: executable.into_std_path_buf(),
                        manifest_path: artifact.manifest_path.into_std_path_buf(),
                        src_path: artifact.target.src_path.into_std_path_buf(),
                    });
                }
                Observed::Nothing
            }
            Message::CompilerMessage(message) => {
                let Some(rendered) = message.message.rendered else {
                    return Observed::Nothing;
                };
                let is_error = matches!(
                    message.message.level,
                    cargo_metadata::diagnostic::DiagnosticLevel::Error
                        | cargo_metadata::diagnostic::DiagnosticLevel::Ice
                );
                if is_error {
                    let needs_nightly = message
                        .message
                        .code
                        .as_ref()
                        .is_some_and(|code| code.code == NIGHTLY_FEATURE_ON_STABLE);
                    self.note_failed_target(
                        message.package_id.repr,
                        message.target,
                        needs_nightly,
                        &rendered,
                    );
                }
                self.parsed
                    .diagnostics
                    .push(RenderedDiagnostic { is_error, rendered });
                Observed::Diagnostic(self.parsed.diagnostics.len() - 1)
            }
            Message::BuildScriptExecuted(script) => {
                let out_dir = Some(script.out_dir.into_std_path_buf())
                    .filter(|dir| !dir.as_os_str().is_empty());
                self.parsed.build_scripts.insert(
                    script.package_id.repr,
                    BuildScriptEnv {
                        out_dir,
                        vars: script.env,
                        library_dirs: script
                            .linked_paths
                            .iter()
                            .map(|value| cargo_env::link_search_dir(value.as_str()))
                            .collect(),
                    },
                );
                Observed::Nothing
            }
            Message::BuildFinished(finished) => {
                self.parsed.success = Some(finished.success);
                Observed::Finished
            }
            _ => Observed::Nothing,
        }
    }
}

/// Parses cargo's JSON message stream. Lines that are not cargo messages (garbage, invalid UTF-8,
/// unknown message kinds) are skipped; a read error ends the stream. Never panics.
pub fn parse_messages<R: BufRead>(mut reader: R) -> ParsedBuild {
    let mut collector = MessageCollector::default();
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                collector.observe_line(&line);
            }
        }
    }
    collector.parsed
}

/// A line from one of cargo's two output streams, in the order the reader threads saw them.
enum CargoLine {
    Stdout(Vec<u8>),
    Stderr(String),
}

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
    };
    let cargo = CargoBuild {
        workspace_dir,
        label,
        shared_target_dir,
        separate_build_dir: packages.separate_build_dir,
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
fn nothing_to_build(packages: &WorkspacePackages, opts: &BuildOptions) -> bool {
    let only_defaults = *opts
        == BuildOptions {
            workspace: opts.workspace,
            layouts: opts.layouts,
            ..BuildOptions::default()
        };
    packages.bench_targets.is_empty() && packages.feature_gated.is_empty() && only_defaults
}

/// What a bench build keeps once cargo has run: the targets left out reported, each executable
/// copied into `bin_dir` with its environment and its layouts prepared.
fn finish_benches(
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
    };
    let layouts = relink_layouts(&relinker, &parsed.benches, bin_dir, on_event);
    let built = Built {
        parsed: &parsed,
        layouts: &layouts,
        packages: &packages.by_id,
        config_env: &config_env,
        native_library_dirs: &native_library_dirs,
    };
    kept.executables = copy_executables(&built, cargo.label, bin_dir)?;
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
fn kept_whole_build(
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
    };
    site.kept(opts.cargo_args(), opts.layouts, KeptBuild::usable)
}

/// Where a build of the bench targets `names` alone is kept: `only-<hash of the names>` in the
/// revision's `bin_dir`, one directory per selection, apart from the build of every target.
fn narrow_bin_dir(bin_dir: &Path, names: &[String]) -> PathBuf {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    names.hash(&mut hasher);
    bin_dir.join(format!("only-{:016x}", hasher.finish()))
}

/// A build kept with its executables in their bin directory ([`freshness::keep`]).
#[derive(serde::Serialize, serde::Deserialize)]
struct KeptBuild {
    executables: Vec<BenchExecutable>,
    /// Feature-gated bench targets the build was asked for and cargo did not build.
    not_built: Vec<FeatureGatedBench>,
    /// Bench targets left out for a compile error, reported again when the build is reused
    /// (absent in builds kept before there were any: those were complete).
    #[serde(default)]
    not_compiled: Vec<UncompiledBench>,
}

impl KeptBuild {
    /// Whether every executable the kept build names is still there (or can be linked again).
    fn usable(&self) -> bool {
        self.executables.iter().all(|exe| {
            let linked = || exe.layouts.iter().all(|path| path.is_file());
            exe.path.is_file() && (linked() || exe.relink.as_ref().is_some_and(|r| r.intact()))
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
fn relink_layouts(
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
                    target: &artifact.target,
                    reason: &reason,
                });
                Layouts::default()
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
    pub link: Option<crate::steps::build::layout::KeptLink>,
}

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
        return Ok(Layouts::default());
    }
    on_event(BuildEvent::Relinking {
        target: &artifact.target,
    });
    let link = relinker.template(artifact, on_event)?;
    link.remove_unlinked_intermediates();
    let name = link
        .output()
        .file_name()
        .map_or_else(|| OsString::from(&artifact.target), OsStr::to_os_string);
    let inputs = crate::steps::build::layout::inputs_dir(bin_dir, &name);
    let kept = crate::steps::build::layout::KeptLink::preserve(
        &link,
        &inputs,
        relinker.cargo.workspace_dir,
    )?;
    Ok(Layouts {
        paths: (1..relinker.opts.layouts)
            .map(|layout| crate::steps::build::layout::kept_path(bin_dir, layout, &name))
            .collect(),
        link: Some(kept),
    })
}

/// Copies an executable `from` the target directory to `to` in a bin directory of `label`'s,
/// creating the directory.
pub(crate) fn copy_into(from: &Path, to: &Path, label: &str) -> Result<(), BuildError> {
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

/// The feature-gated bench targets this build was asked for (by `--bench`, or by not naming any)
/// that cargo did not build.
fn not_built<'a>(
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

/// How cargo is run to build one revision's bench targets.
pub(crate) struct CargoBuild<'a> {
    pub(crate) workspace_dir: &'a Path,
    label: &'a str,
    shared_target_dir: &'a Path,
    /// True when cargo reports a `build.build-dir` apart from the target directory.
    separate_build_dir: bool,
}

impl<'a> CargoBuild<'a> {
    /// How cargo builds in the checkout at `workspace_dir` into `shared_target_dir` (asks cargo
    /// whether a separate build directory is configured).
    pub(crate) fn new(
        workspace_dir: &'a Path,
        label: &'a str,
        shared_target_dir: &'a Path,
    ) -> Result<Self, BuildError> {
        let metadata = revision_metadata(workspace_dir, label, shared_target_dir)?;
        Ok(CargoBuild {
            workspace_dir,
            label,
            shared_target_dir,
            separate_build_dir: has_separate_build_dir(&metadata),
        })
    }

    /// `cargo bench --no-run --message-format=json` with `opts`, in its own process group.
    fn command(&self, opts: &BuildOptions) -> Command {
        let mut args: Vec<String> = ["bench", "--no-run", "--message-format=json"]
            .map(String::from)
            .to_vec();
        args.extend(opts.cargo_args());
        self.cargo(&args)
    }

    /// `cargo ARGS` in the workspace, building into the shared target directory, its output
    /// piped, in its own process group.
    pub(crate) fn cargo(&self, args: &[String]) -> Command {
        let mut command = Command::new(cargo_program());
        command
            .args(args)
            .current_dir(self.workspace_dir)
            .env("CARGO_TARGET_DIR", self.shared_target_dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if self.separate_build_dir {
            // A configured `build.build-dir` would keep dependencies per worktree path; keep
            // everything in the shared directory so they compile once and `release/deps` is real.
            command.env("CARGO_BUILD_BUILD_DIR", self.shared_target_dir);
        }
        // Its own process group, so an interrupt stops cargo and its compilers together.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        command
    }

    /// The error of a build that failed, quoting every run's `errors`; with the packages of
    /// their own with bench targets to compare instead when no bench target compiled
    /// (`none_left`).
    fn failed(&self, errors: &[String], failed: &[FailedTarget], none_left: bool) -> BuildError {
        let hint = match none_left {
            true => all_benches_failed_hint(failed, &bench_packages_elsewhere(self.workspace_dir)),
            false => None,
        };
        BuildError::Failed {
            revision: self.label.to_string(),
            diagnostics: errors.join("\n\n"),
            hint,
        }
    }
}

/// What cargo built: the messages of its last (successful) run, and the bench targets it was
/// asked for that were left out for a compile error.
struct Compiled {
    parsed: ParsedBuild,
    not_compiled: Vec<UncompiledBench>,
}

/// Runs cargo until every bench target that compiles is built. Cargo stops at the first unit
/// that fails (and `cargo bench` has no `--keep-going`; its `--no-fail-fast` is about running),
/// so when the only failures are in bench targets and other bench targets are left, cargo runs
/// again with `--bench` for each of those: one broken bench file (often a nightly-only `#[bench]`
/// file next to criterion benches) leaves out that target, not the whole comparison. The
/// package selection and features stay as asked, so every unit, and so every executable, is the
/// one a plain `cargo bench` builds. A failure anywhere else (the library, a dependency, a build
/// script), or in every bench target, is the build's error.
fn compile_benches(
    cargo: &CargoBuild,
    packages: &WorkspacePackages,
    opts: &BuildOptions,
    on_event: &mut dyn FnMut(BuildEvent),
) -> Result<Compiled, BuildError> {
    let mut attempt = opts.clone();
    let mut failed: Vec<FailedTarget> = Vec::new();
    // Bench targets cargo built in some run: their `required-features` are evidently enabled.
    let mut built: Vec<(String, String)> = Vec::new();
    let mut earlier_errors: Vec<String> = Vec::new();
    loop {
        let (parsed, stderr_tail, status) =
            run_cargo(cargo.command(&attempt), cargo.workspace_dir, on_event)?;
        if status.success() && parsed.success != Some(false) {
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

/// The bench targets the build is asked for, as (package id, target name): those without
/// `required-features`, and those with them that cargo builds (seen `built`, here or in
/// `also_built`) or whose features the options plainly enable
/// ([`WorkspacePackages::gated_enabled`]).
fn asked_bench_targets(
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
fn bench_names_left(asked: &[(String, String)], failed: &[FailedTarget]) -> Vec<String> {
    let failed_name = |name: &str| failed.iter().any(|f| f.target == name);
    sorted_names(
        asked
            .iter()
            .map(|(_, target)| target.as_str())
            .filter(|target| !failed_name(target)),
    )
}

fn sorted_names<'a>(names: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut names: Vec<String> = names.map(str::to_string).collect();
    names.sort_unstable();
    names.dedup();
    names
}

/// The `asked` bench targets left out of a successful build: those that `failed` to compile, and
/// those that share a name with one of them. Sorted.
fn not_compiled(
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

/// Runs cargo, feeding both output streams to the collector and `on_event` on this thread.
pub(crate) fn run_cargo(
    mut command: Command,
    dir: &Path,
    on_event: &mut dyn FnMut(BuildEvent),
) -> Result<(ParsedBuild, Vec<String>, std::process::ExitStatus), BuildError> {
    let mut child = command.spawn().map_err(|source| BuildError::Spawn {
        command: "cargo bench --no-run".to_string(),
        dir: dir.to_path_buf(),
        source,
    })?;
    let (sender, receiver) = mpsc::channel();
    let stdout = child.stdout.take().map(|out| {
        let sender = sender.clone();
        std::thread::spawn(move || forward_lines(out, |line| sender.send(CargoLine::Stdout(line))))
    });
    let stderr = child.stderr.take().map(|err| {
        let sender = sender.clone();
        std::thread::spawn(move || {
            forward_lines(err, |line| {
                sender.send(CargoLine::Stderr(
                    String::from_utf8_lossy(&line).trim_end().to_string(),
                ))
            })
        })
    });
    drop(sender);
    let cargo_done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watcher = stop_cargo_on_interrupt(child.id(), cargo_done.clone());
    let mut collector = MessageCollector::default();
    let mut stderr_tail = VecDeque::new();
    for line in receiver {
        match line {
            CargoLine::Stdout(line) => match collector.observe_line(&line) {
                Observed::Diagnostic(index) => on_event(BuildEvent::Message(
                    &collector.parsed.diagnostics[index].rendered,
                )),
                Observed::Finished => on_event(BuildEvent::Finished),
                Observed::Nothing => {}
            },
            CargoLine::Stderr(line) => {
                if let Some(name) = compiling_crate(&line) {
                    on_event(BuildEvent::Compiling(name));
                } else if !is_progress_line(&line) {
                    stderr_tail.push_back(line);
                    if stderr_tail.len() > STDERR_TAIL_LINES {
                        stderr_tail.pop_front();
                    }
                }
            }
        }
    }
    for reader in [stdout, stderr].into_iter().flatten() {
        let _ = reader.join();
    }
    // Before the wait reaps cargo, so the watcher never signals a recycled pid.
    cargo_done.store(true, std::sync::atomic::Ordering::SeqCst);
    let _ = watcher.join();
    let status = child.wait().map_err(|source| BuildError::Spawn {
        command: "cargo bench --no-run".to_string(),
        dir: dir.to_path_buf(),
        source,
    })?;
    Ok((collector.parsed, stderr_tail.into(), status))
}

/// Passes a Ctrl-C/SIGTERM of cargo-perfdiff on to cargo's process group (SIGINT: cargo and its
/// compilers stop), so an interrupt does not wait for the build. Cargo runs in a process group of
/// its own, which neither a terminal's Ctrl-C nor a SIGTERM to cargo-perfdiff reaches.
fn stop_cargo_on_interrupt(
    pid: u32,
    done: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        while !done.load(std::sync::atomic::Ordering::SeqCst) {
            if crate::util::interrupt::interrupted() {
                #[cfg(unix)]
                // SAFETY: kill(2) on our own child's group, not yet reaped (see `run_cargo`).
                unsafe {
                    libc::kill(-(pid as libc::pid_t), libc::SIGINT);
                }
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    })
}

/// Sends every line (without its newline) of `stream` until it ends or the receiver is gone.
fn forward_lines<E>(stream: impl Read, mut send: impl FnMut(Vec<u8>) -> Result<(), E>) {
    let mut reader = BufReader::new(stream);
    loop {
        let mut line = Vec::new();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {
                while line.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
                    line.pop();
                }
                if send(line).is_err() {
                    return;
                }
            }
        }
    }
}

/// `   Compiling serde v1.0.1 (…)` -> `serde`.
fn compiling_crate(line: &str) -> Option<&str> {
    line.trim_start()
        .strip_prefix("Compiling ")?
        .split_whitespace()
        .next()
}

/// Cargo status lines that say nothing about a failure.
fn is_progress_line(line: &str) -> bool {
    const PROGRESS: [&str; 8] = [
        "Compiling ",
        "Checking ",
        "Downloading ",
        "Downloaded ",
        "Updating ",
        "Locking ",
        "Blocking waiting for file lock",
        "warning: build failed, waiting for other jobs to finish",
    ];
    let line = line.trim_start();
    line.is_empty() || PROGRESS.iter().any(|p| line.starts_with(p))
}

/// The error text of a failed build: rustc's errors, then the end of cargo's stderr.
fn failure_text(
    parsed: &ParsedBuild,
    stderr_tail: &[String],
    status: std::process::ExitStatus,
) -> String {
    let mut text = parsed.errors();
    let tail = stderr_tail.join("\n");
    if !tail.trim().is_empty() {
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        text.push_str(&tail);
    }
    if text.trim().is_empty() {
        text = format!("cargo bench --no-run exited with {status} and printed no error");
    }
    text
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
    let mut found = Vec::new();
    let mut to_visit = vec![(root.to_path_buf(), 1)];
    while let Some((dir, depth)) = to_visit.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let skipped = name.to_string_lossy().starts_with('.') || name == "target";
            if skipped || !entry.file_type().is_ok_and(|t| t.is_dir()) {
                continue;
            }
            let path = entry.path();
            if depth < DEPTH {
                to_visit.push((path.clone(), depth + 1));
            }
            let manifest = path.join("Cargo.toml");
            let elsewhere =
                || workspace_root(&path).is_ok_and(|ws| ws.canonicalize().unwrap_or(ws) != ours);
            if declares_bench_targets(&manifest) && elsewhere() {
                found.push(
                    manifest
                        .strip_prefix(root)
                        .unwrap_or(&manifest)
                        .to_path_buf(),
                );
            }
        }
    }
    found.sort();
    found
}

/// Whether `manifest` declares a package with bench targets: `[[bench]]` entries, or `.rs` files
/// in a `benches/` directory beside it that cargo finds by itself (unless `autobenches = false`).
fn declares_bench_targets(manifest: &Path) -> bool {
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
struct WorkspacePackages {
    by_id: HashMap<String, PackageInfo>,
    /// Bench targets with `required-features` in the packages the build selects, by package id.
    feature_gated: Vec<(String, FeatureGatedBench)>,
    /// Those of `feature_gated` the build asks for (by `--bench`, or by not naming any) whose
    /// features the options plainly enable ([`features_enabled`]), as (package id, target name).
    gated_enabled: Vec<(String, String)>,
    /// True when cargo reports a `build.build-dir` apart from the target directory.
    separate_build_dir: bool,
    /// The bench targets this build compiles (in the selected packages, named by `--bench` if
    /// any, without `required-features`), as (package id, target name).
    bench_targets: Vec<(String, String)>,
    /// Workspace members with bench targets that the build does not select.
    unselected: Vec<UnselectedPackage>,
}

#[derive(Debug, Clone)]
struct PackageInfo {
    name: String,
    version: String,
    manifest_path: PathBuf,
}

/// `cargo metadata --no-deps` of a revision's checkout; a manifest cargo cannot read is a failed
/// build of `label`.
fn revision_metadata(
    workspace_dir: &Path,
    label: &str,
    shared_target_dir: &Path,
) -> Result<cargo_metadata::Metadata, BuildError> {
    MetadataCommand::new()
        .current_dir(workspace_dir)
        .no_deps()
        .env("CARGO_TARGET_DIR", shared_target_dir)
        .exec()
        .map_err(|e| BuildError::Failed {
            revision: label.to_string(),
            diagnostics: e.to_string().trim_end().to_string(),
            hint: None,
        })
}

/// True when cargo reports a `build.build-dir` apart from the target directory.
fn has_separate_build_dir(metadata: &cargo_metadata::Metadata) -> bool {
    metadata
        .build_directory
        .as_ref()
        .is_some_and(|build_dir| *build_dir != metadata.target_directory)
}

/// Reads the workspace's packages; a manifest cargo cannot read is a failed build of `label`.
fn workspace_packages(
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
fn package_selected(
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
fn spec_matches(spec: &str, name: &str) -> bool {
    let pattern = spec.split(['@', ':']).next().unwrap_or(spec);
    if !pattern.contains(['*', '?', '[']) {
        return pattern == name;
    }
    // Cargo reads these globs with the `glob` crate too; a malformed one names nothing.
    glob::Pattern::new(pattern).is_ok_and(|glob| glob.matches(name))
}

/// Every bench target of the packages `opts` selects ([`package_selected`]), with its package.
fn selected_bench_targets<'a>(
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

/// The workspace members with bench targets that `opts` does not select ([`package_selected`]).
fn unselected_packages(
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
fn built_bench_targets(
    metadata: &cargo_metadata::Metadata,
    opts: &BuildOptions,
) -> Vec<(String, String)> {
    selected_bench_targets(metadata, opts)
        .filter(|(_, t)| t.required_features.is_empty())
        .filter(|(_, t)| opts.benches.is_empty() || opts.benches.contains(&t.name))
        .map(|(package, t)| (package.id.repr.clone(), t.name.clone()))
        .collect()
}

/// ` (`#![feature]` needs a nightly toolchain)` when every target in `failed` failed for that.
fn nightly_remark(failed: &[FailedTarget]) -> &'static str {
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
fn enabled_gated_benches(
    metadata: &cargo_metadata::Metadata,
    opts: &BuildOptions,
) -> Vec<(String, String)> {
    selected_bench_targets(metadata, opts)
        .filter(|(_, t)| !t.required_features.is_empty())
        .filter(|(_, t)| opts.benches.is_empty() || opts.benches.contains(&t.name))
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
fn features_enabled(
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
fn feature_gated_benches(
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

/// What a successful build knows about its bench executables.
struct Built<'a> {
    parsed: &'a ParsedBuild,
    /// The other layouts, by package id and target ([`relink_layouts`]).
    layouts: &'a BTreeMap<(String, String), Layouts>,
    packages: &'a HashMap<String, PackageInfo>,
    /// The `[env]` variables cargo would set ([`cargo_env::config_env`]).
    config_env: &'a [(OsString, OsString)],
    native_library_dirs: &'a [PathBuf],
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
fn copy_executables(
    built: &Built,
    label: &str,
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
        copy_into(&artifact.executable, &destination, label)?;
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
        });
    }
    executables.sort_by(|a, b| (&a.package, &a.target).cmp(&(&b.package, &b.target)));
    Ok(executables)
}

/// Name and version from a package id, when `cargo metadata` did not list the package
/// (`path+file:///p/demo#name@1.0.0`, `path+file:///p/demo#1.0.0`, or the old `name 1.0.0 (…)`).
fn package_from_id(id: &str, manifest_path: &Path) -> PackageInfo {
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
fn bench_harness(manifest_path: &Path, target: &str) -> bool {
    let Ok(text) = fs::read_to_string(manifest_path) else {
        return true;
    };
    let Ok(manifest) = text.parse::<toml::Table>() else {
        return true;
    };
    manifest
        .get("bench")
        .and_then(toml::Value::as_array)
        .into_iter()
        .flatten()
        .find(|bench| bench.get("name").and_then(toml::Value::as_str) == Some(target))
        .and_then(|bench| bench.get("harness"))
        .and_then(toml::Value::as_bool)
        .unwrap_or(true)
}

/// The environment `cargo bench` gives a bench process, to be set on top of the inherited one.
/// The working directory is `exe.package_root`.
///
/// Cargo sets (see `fill_env` in cargo's `compilation.rs`): `CARGO`, `CARGO_MANIFEST_DIR`,
/// `CARGO_MANIFEST_PATH`, `CARGO_PKG_NAME`, `CARGO_PKG_VERSION` and its `_MAJOR/_MINOR/_PATCH/_PRE`
/// parts, the manifest metadata variables (`CARGO_PKG_AUTHORS`, `_DESCRIPTION`, `_HOMEPAGE`,
/// `_REPOSITORY`, `_LICENSE`, `_LICENSE_FILE`, `_RUST_VERSION`, `_README`; empty when absent), and
/// the dynamic library search path: `<target>/release`, `<target>/release/deps`, the toolchain's
/// target libdir, then the inherited value. `CARGO_PRIMARY_PACKAGE`, `CARGO_CRATE_NAME` and
/// `CARGO_BIN_NAME` are compile-time only and not set at run time.
///
/// `CARGO_TARGET_DIR` is set to the shared target dir, as it was for the build: criterion then
/// keeps its own output under it (not in the user's `target/criterion`) and does not spawn
/// `cargo metadata` in every fork to find a target directory.
///
/// Before them come the variables of the configuration's `[env]` table and of the package's
/// build script (`OUT_DIR`, `cargo:rustc-env`; [`BenchExecutable::cargo_env`]). A later entry
/// replaces an earlier one of the same name when the process is started, so, as under cargo,
/// cargo's own variables win over the build script's, and those over `[env]`.
///
/// The library search path starts with the build scripts' library directories inside the
/// target directory ([`BenchExecutable::native_library_dirs`]), as cargo's does.
///
/// Not reproduced: `--target` builds (other layout).
pub fn fork_environment(
    exe: &BenchExecutable,
    shared_target_dir: &Path,
) -> Vec<(OsString, OsString)> {
    let mut env: Vec<(OsString, OsString)> = exe.cargo_env.clone();
    let mut set = |key: &str, value: OsString| env.push((OsString::from(key), value));
    set("CARGO", cargo_program());
    set(
        "CARGO_TARGET_DIR",
        shared_target_dir.as_os_str().to_os_string(),
    );
    set(
        "CARGO_MANIFEST_DIR",
        exe.package_root.as_os_str().to_os_string(),
    );
    set(
        "CARGO_MANIFEST_PATH",
        exe.manifest_path.as_os_str().to_os_string(),
    );
    set("CARGO_PKG_NAME", exe.package.clone().into());
    for (key, value) in version_variables(&exe.package_version) {
        set(key, value.into());
    }
    for (key, value) in package_metadata_variables(&exe.manifest_path) {
        set(key, value.into());
    }
    let release = shared_target_dir.join("release");
    let mut search_path = exe.native_library_dirs.clone();
    search_path.extend([release.clone(), release.join("deps")]);
    if let Some(libdir) = toolchain_target_libdir(&exe.package_root) {
        search_path.push(libdir);
    }
    let (variable, value) = dylib_search_path(search_path);
    set(variable, value);
    env
}

/// `CARGO_PKG_VERSION` and its parts, as cargo splits a semver version.
fn version_variables(version: &str) -> Vec<(&'static str, String)> {
    let without_build = version.split('+').next().unwrap_or_default();
    let (core, pre) = without_build.split_once('-').unwrap_or((without_build, ""));
    let mut parts = core.split('.').map(str::to_string);
    vec![
        ("CARGO_PKG_VERSION", version.to_string()),
        ("CARGO_PKG_VERSION_MAJOR", parts.next().unwrap_or_default()),
        ("CARGO_PKG_VERSION_MINOR", parts.next().unwrap_or_default()),
        ("CARGO_PKG_VERSION_PATCH", parts.next().unwrap_or_default()),
        ("CARGO_PKG_VERSION_PRE", pre.to_string()),
    ]
}

/// The manifest metadata variables cargo sets, read from the package manifest; values inherited
/// with `key.workspace = true` come from `[workspace.package]` of the nearest workspace manifest.
fn package_metadata_variables(manifest_path: &Path) -> Vec<(&'static str, String)> {
    const KEYS: [(&str, &str); 8] = [
        ("description", "CARGO_PKG_DESCRIPTION"),
        ("homepage", "CARGO_PKG_HOMEPAGE"),
        ("repository", "CARGO_PKG_REPOSITORY"),
        ("license", "CARGO_PKG_LICENSE"),
        ("license-file", "CARGO_PKG_LICENSE_FILE"),
        ("authors", "CARGO_PKG_AUTHORS"),
        ("rust-version", "CARGO_PKG_RUST_VERSION"),
        ("readme", "CARGO_PKG_README"),
    ];
    let package = read_toml(manifest_path)
        .and_then(|m| m.get("package").and_then(toml::Value::as_table).cloned())
        .unwrap_or_default();
    let mut workspace_package = None;
    KEYS.iter()
        .map(|(key, variable)| {
            let mut value = package.get(*key).cloned();
            if value.as_ref().is_some_and(is_workspace_inherited) {
                let inherited = workspace_package
                    .get_or_insert_with(|| workspace_package_table(manifest_path))
                    .get(*key)
                    .cloned();
                value = inherited;
            }
            let text = match (*key, value) {
                ("readme", None) => default_readme(manifest_path),
                (_, Some(toml::Value::String(s))) => s,
                (_, Some(toml::Value::Array(items))) => items
                    .iter()
                    .filter_map(toml::Value::as_str)
                    .collect::<Vec<_>>()
                    .join(":"),
                _ => String::new(),
            };
            (*variable, text)
        })
        .collect()
}

fn is_workspace_inherited(value: &toml::Value) -> bool {
    value.get("workspace").and_then(toml::Value::as_bool) == Some(true)
}

fn read_toml(path: &Path) -> Option<toml::Table> {
    fs::read_to_string(path).ok()?.parse::<toml::Table>().ok()
}

/// `[workspace.package]` of the nearest manifest above the package that has a `[workspace]`.
fn workspace_package_table(manifest_path: &Path) -> toml::Table {
    let package_dir = manifest_path.parent().unwrap_or(Path::new("."));
    package_dir
        .ancestors()
        .filter_map(|dir| read_toml(&dir.join("Cargo.toml")))
        .find_map(|manifest| {
            manifest
                .get("workspace")
                .and_then(toml::Value::as_table)
                .cloned()
        })
        .and_then(|workspace| {
            workspace
                .get("package")
                .and_then(toml::Value::as_table)
                .cloned()
        })
        .unwrap_or_default()
}

/// Cargo's readme default: the first of `README.md`, `README.txt`, `README` in the package root.
fn default_readme(manifest_path: &Path) -> String {
    let dir = manifest_path.parent().unwrap_or(Path::new("."));
    ["README.md", "README.txt", "README"]
        .into_iter()
        .find(|name| dir.join(name).is_file())
        .unwrap_or_default()
        .to_string()
}

/// The variable the platform's dynamic loader searches, and cargo sets for a bench process.
pub fn dylib_search_variable() -> &'static str {
    if cfg!(windows) {
        "PATH"
    } else if cfg!(target_os = "macos") {
        "DYLD_FALLBACK_LIBRARY_PATH"
    } else {
        "LD_LIBRARY_PATH"
    }
}

/// The platform's dynamic library search variable with `paths` first, then the inherited value.
fn dylib_search_path(paths: Vec<PathBuf>) -> (&'static str, OsString) {
    let variable = dylib_search_variable();
    let inherited: Vec<PathBuf> = std::env::var_os(variable)
        .map(|v| std::env::split_paths(&v).collect())
        .unwrap_or_default();
    let mut all = paths;
    if cfg!(target_os = "macos") && inherited.is_empty() {
        // The defaults macOS uses when the variable is unset, which setting it would lose.
        if let Some(home) = std::env::var_os("HOME") {
            all.push(PathBuf::from(home).join("lib"));
        }
        all.extend([PathBuf::from("/usr/local/lib"), PathBuf::from("/usr/lib")]);
    }
    all.extend(inherited);
    // A path containing the separator cannot be expressed; leave it out rather than fail.
    all.retain(|p| std::env::join_paths([p]).is_ok());
    (variable, std::env::join_paths(all).unwrap_or_default())
}

/// `rustc --print target-libdir` as seen from `dir` (so a `rust-toolchain.toml` there is honoured),
/// cached per directory; `None` when rustc cannot say.
fn toolchain_target_libdir(dir: &Path) -> Option<PathBuf> {
    static CACHE: OnceLock<Mutex<BTreeMap<PathBuf, Option<PathBuf>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(known) = cache.lock().ok()?.get(dir) {
        return known.clone();
    }
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let libdir = Command::new(rustc)
        .args(["--print", "target-libdir"])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()
        .filter(|output| output.status.success())
        .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_string())
        .filter(|path| !path.is_empty())
        .map(PathBuf::from);
    cache.lock().ok()?.insert(dir.to_path_buf(), libdir.clone());
    libdir
}

/// The cargo to run: the one that started us (`CARGO`, set for cargo subcommands), else `cargo`.
pub(crate) fn cargo_program() -> OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

/// Cargo's multi-line error as one line: its first line, and its innermost cause when different
/// (`error: failed to parse manifest at `…` (caused by: invalid type: integer `3`, …)`). A quoted
/// source snippet (` --> Cargo.toml:1:9`, `1 | text`, `  |   ^`) becomes its location.
fn one_line(message: &str) -> String {
    let lines: Vec<&str> = message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && *l != "Caused by:")
        .collect();
    let location = lines
        .iter()
        .find_map(|l| l.strip_prefix("-->"))
        .map(str::trim);
    let prose: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| !is_snippet_line(l))
        .collect();
    let text = match (prose.first(), prose.last()) {
        (Some(first), Some(last)) if first != last => format!("{first} (caused by: {last})"),
        (Some(first), _) => first.to_string(),
        _ => message.trim().to_string(),
    };
    match location {
        Some(location) if !text.contains(location) => format!("{text} (at {location})"),
        _ => text,
    }
}

/// A rendered rustc diagnostic as one line: its first line and where it points
/// (`error[E0425]: cannot find value `x` in this scope (at benches/b.rs:3:9)`), leaving out the
/// source snippet and the notes and help that follow.
fn diagnostic_headline(rendered: &str) -> String {
    let mut lines = rendered.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.next().unwrap_or_default().to_string();
    // rustc puts the primary location right under the headline; a later `-->` is a note's.
    match lines
        .next()
        .and_then(|l| l.strip_prefix("-->"))
        .map(str::trim)
    {
        Some(location) => format!("{first} (at {location})"),
        None => first,
    }
}

/// A line of a quoted source snippet in a diagnostic: `--> file:line:col`, `|`, `12 | text`.
fn is_snippet_line(line: &str) -> bool {
    line.starts_with("-->")
        || line.starts_with('|')
        || line.split_once('|').is_some_and(|(number, _)| {
            !number.trim().is_empty() && number.trim().chars().all(|c| c.is_ascii_digit())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SUCCESS: &[u8] =
        include_bytes!("../../../fixtures/cargo-messages/criterion-demo-success.jsonl");
    const SYNTAX_ERROR: &[u8] =
        include_bytes!("../../../fixtures/cargo-messages/criterion-demo-syntax-error.jsonl");
    /// The demo crate with a second bench target, `nightly`, that uses `#![feature(test)]`,
    /// built on stable.
    const NIGHTLY_BENCH: &[u8] =
        include_bytes!("../../../fixtures/cargo-messages/criterion-demo-nightly-bench.jsonl");
    const DEMO_ID: &str = "path+file:///home/dev/demo#perfdiff-demo@0.1.0";

    #[test]
    fn build_scripts_are_recorded_by_package_with_out_dir_variables_and_library_dirs() {
        // A dependency's script, as cargo reported it in a real build; it sets no variable.
        let parsed = parse_messages(SUCCESS);
        let quote = &parsed.build_scripts["registry+https://github.com/rust-lang/crates.io-index#quote@1.0.47"];
        assert_eq!(
            quote.out_dir.as_deref(),
            Some(Path::new(
                "/home/dev/demo/target/release/build/quote-6a0b13dda2211c58/out"
            ))
        );
        assert!(quote.vars.is_empty());
        assert!(!parsed.build_scripts.contains_key(DEMO_ID));

        let line = br#"{"reason":"build-script-executed","package_id":"path+file:///p#x@0.1.0","linked_libs":[],"linked_paths":["native=/t/out","/t/bare"],"cfgs":[],"env":[["GREETING","hi"]],"out_dir":""}"#;
        let parsed = parse_messages(&line[..]);
        let script = &parsed.build_scripts["path+file:///p#x@0.1.0"];
        assert_eq!(script.out_dir, None);
        assert_eq!(script.vars, [("GREETING".to_string(), "hi".to_string())]);
        assert_eq!(
            script.library_dirs,
            [PathBuf::from("/t/out"), PathBuf::from("/t/bare")]
        );
    }

    #[test]
    fn a_failed_target_keeps_its_first_error_in_one_line_and_counts_them() {
        let parsed = parse_messages(NIGHTLY_BENCH);
        assert_eq!(parsed.success, Some(false));
        assert_eq!(
            parsed.failed_targets,
            vec![FailedTarget {
                package_id: DEMO_ID.to_string(),
                target: "nightly".to_string(),
                is_bench: true,
                needs_nightly: true,
                first_error: "error[E0554]: `#![feature]` may not be used on the stable \
                              release channel (at benches/nightly.rs:1:1)"
                    .to_string(),
                errors: 1,
            }]
        );
        let syntax = parse_messages(SYNTAX_ERROR);
        assert_eq!(
            syntax.failed_targets[0].first_error,
            "error: this file contains an unclosed delimiter (at benches/demo.rs:17:16)"
        );
        assert!(!syntax.failed_targets[0].needs_nightly);
        // A second error of the same target is counted, not repeated.
        let mut twice = NIGHTLY_BENCH.to_vec();
        twice.extend_from_slice(NIGHTLY_BENCH);
        assert_eq!(parse_messages(&twice[..]).failed_targets[0].errors, 2);
    }

    #[test]
    fn diagnostic_headlines_keep_the_first_line_and_its_location() {
        assert_eq!(
            diagnostic_headline(
                "error[E0425]: cannot find value `x` in this scope\n --> benches/b.rs:3:9\n  |\n3 | x\n  | ^ not found\n\n  = help: try y\n"
            ),
            "error[E0425]: cannot find value `x` in this scope (at benches/b.rs:3:9)"
        );
        // A location further down belongs to a note, not to the error.
        assert_eq!(
            diagnostic_headline("error: linking with `cc` failed\n\nnote: see\n --> x.rs:1:1\n"),
            "error: linking with `cc` failed"
        );
        assert_eq!(diagnostic_headline(""), "");
    }

    fn failure(package_id: &str, target: &str, is_bench: bool) -> FailedTarget {
        FailedTarget {
            package_id: package_id.to_string(),
            target: target.to_string(),
            is_bench,
            needs_nightly: false,
            first_error: format!("error: {target} is broken"),
            errors: 1,
        }
    }

    fn packages(bench_targets: &[(&str, &str)]) -> WorkspacePackages {
        WorkspacePackages {
            by_id: [("id-a", "a"), ("id-b", "b")]
                .map(|(id, name)| {
                    let info = PackageInfo {
                        name: name.to_string(),
                        version: "0.1.0".to_string(),
                        manifest_path: PathBuf::from(format!("/w/{name}/Cargo.toml")),
                    };
                    (id.to_string(), info)
                })
                .into_iter()
                .collect(),
            feature_gated: Vec::new(),
            gated_enabled: Vec::new(),
            separate_build_dir: false,
            bench_targets: bench_targets
                .iter()
                .map(|(id, t)| (id.to_string(), t.to_string()))
                .collect(),
            unselected: Vec::new(),
        }
    }

    #[test]
    fn the_bench_targets_left_are_named_once_without_the_failed_names() {
        let packages = packages(&[
            ("id-a", "speed"),
            ("id-a", "broken"),
            ("id-b", "speed"),
            ("id-b", "broken"),
            ("id-b", "alpha"),
        ]);
        let asked = asked_bench_targets(&packages, &[], &[]);
        let failed = [failure("id-a", "broken", true)];
        assert_eq!(bench_names_left(&asked, &failed), ["alpha", "speed"]);
        let every = [
            failure("id-a", "speed", true),
            failure("id-b", "alpha", true),
        ];
        assert_eq!(
            bench_names_left(&asked, &[&failed[..], &every[..]].concat()),
            Vec::<String>::new()
        );
    }

    #[test]
    fn a_target_left_out_is_reported_with_its_error_or_its_failed_namesake() {
        let packages = packages(&[("id-a", "speed"), ("id-a", "broken"), ("id-b", "broken")]);
        let asked = asked_bench_targets(&packages, &[], &[]);
        let failed = [
            failure("id-a", "broken", true),
            failure("id-a", "lib", false),
        ];
        let left_out = not_compiled(&failed, &asked, &packages);
        assert_eq!(
            left_out,
            [
                UncompiledBench {
                    package: "a".to_string(),
                    target: "broken".to_string(),
                    why: Uncompiled::Failed {
                        error: "error: broken is broken".to_string(),
                        errors: 1
                    },
                },
                UncompiledBench {
                    package: "b".to_string(),
                    target: "broken".to_string(),
                    why: Uncompiled::SharesFailedName {
                        package: "a".to_string()
                    },
                },
            ]
        );
        assert_eq!(
            left_out[0].reason_in("head HEAD (1a2b3c4d5)"),
            "failed to compile in head HEAD (1a2b3c4d5): error: broken is broken"
        );
        assert!(
            left_out[1].reason_in("base").starts_with(
                "not built in base: bench target `broken` of package a failed to compile"
            ),
            "{}",
            left_out[1].reason_in("base")
        );
        let mut many = left_out[0].clone();
        many.why = Uncompiled::Failed {
            error: "error: x".to_string(),
            errors: 3,
        };
        assert_eq!(
            many.reason_in("both revisions"),
            "failed to compile in both revisions: error: x, and 2 more error(s)"
        );
    }

    #[test]
    fn gated_targets_are_asked_for_when_cargo_built_them_or_their_features_are_on() {
        let mut packages = packages(&[("id-a", "speed")]);
        let gated = |target: &str| FeatureGatedBench {
            package: "a".to_string(),
            target: target.to_string(),
            required_features: vec!["extra".to_string()],
            suggestion: "--features extra".to_string(),
        };
        packages.feature_gated = ["on", "built", "off"]
            .map(|t| ("id-a".to_string(), gated(t)))
            .to_vec();
        packages.gated_enabled = vec![("id-a".to_string(), "on".to_string())];
        let built = [("id-a".to_string(), "built".to_string())];
        let asked = asked_bench_targets(&packages, &built, &[]);
        let names: Vec<&str> = asked.iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(names, ["speed", "on", "built"]);
    }

    #[test]
    fn required_features_count_as_enabled_only_when_the_options_plainly_enable_them() {
        let table: BTreeMap<String, Vec<String>> = [
            ("default", &["std"][..]),
            ("std", &["alloc"][..]),
            ("alloc", &[][..]),
            ("fast", &["dep:simd", "serde/std"][..]),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.iter().map(|s| s.to_string()).collect()))
        .collect();
        let required =
            |features: &[&str]| -> Vec<String> { features.iter().map(|f| f.to_string()).collect() };
        let default = BuildOptions::default();
        assert!(features_enabled(
            "p",
            &table,
            &required(&["alloc"]),
            &default
        ));
        assert!(!features_enabled(
            "p",
            &table,
            &required(&["fast"]),
            &default
        ));
        let no_default = BuildOptions {
            no_default_features: true,
            ..BuildOptions::default()
        };
        assert!(!features_enabled(
            "p",
            &table,
            &required(&["alloc"]),
            &no_default
        ));
        let named = BuildOptions {
            no_default_features: true,
            features: vec!["p/std,other/fast".into(), "fast".into()],
            ..BuildOptions::default()
        };
        assert!(features_enabled(
            "p",
            &table,
            &required(&["alloc", "fast"]),
            &named
        ));
        assert!(!features_enabled("q", &table, &required(&["std"]), &named));
        let all = BuildOptions {
            all_features: true,
            ..BuildOptions::default()
        };
        assert!(features_enabled(
            "p",
            &table,
            &required(&["anything"]),
            &all
        ));
    }

    #[test]
    fn when_every_bench_target_failed_a_package_of_their_own_is_suggested() {
        let parsed = parse_messages(NIGHTLY_BENCH);
        let failed = &parsed.failed_targets;
        let elsewhere = [PathBuf::from("benches/Cargo.toml")];
        assert_eq!(
            all_benches_failed_hint(failed, &elsewhere).as_deref(),
            Some(
                "no bench target of this workspace compiled (`#![feature]` needs a nightly \
                 toolchain); `benches/Cargo.toml` is a package of its own with bench targets: \
                 compare it with `--manifest-path benches/Cargo.toml`"
            )
        );
        let two = [PathBuf::from("a/Cargo.toml"), PathBuf::from("b/Cargo.toml")];
        let hint = all_benches_failed_hint(failed, &two).unwrap();
        assert!(
            hint.ends_with(
                "packages of their own have bench targets: `a/Cargo.toml`, `b/Cargo.toml`: \
                 compare one with `--manifest-path a/Cargo.toml`"
            ),
            "{hint}"
        );
        assert_eq!(all_benches_failed_hint(failed, &[]), None);
        // A library error: another package's benchmarks would not help.
        let mut library = failed.clone();
        library[0].is_bench = false;
        assert_eq!(all_benches_failed_hint(&library, &elsewhere), None);
    }

    #[test]
    fn real_success_stream_yields_only_the_bench_executable() {
        let parsed = parse_messages(SUCCESS);
        assert_eq!(parsed.success, Some(true));
        assert_eq!(parsed.benches.len(), 1, "{parsed:?}");
        let bench = &parsed.benches[0];
        assert_eq!(bench.target, "demo");
        assert!(
            bench.package_id.contains("perfdiff-demo@0.1.0"),
            "{}",
            bench.package_id
        );
        assert!(
            bench
                .executable
                .to_string_lossy()
                .ends_with("/release/deps/demo-58ab3878b9f181ed"),
            "{}",
            bench.executable.display()
        );
        assert_eq!(bench.manifest_path, Path::new("/home/dev/demo/Cargo.toml"));
        assert!(parsed.diagnostics.is_empty());
    }

    #[test]
    fn real_failure_stream_keeps_rendered_errors_and_warnings() {
        let parsed = parse_messages(SYNTAX_ERROR);
        assert_eq!(parsed.success, Some(false));
        assert!(parsed.benches.is_empty());
        assert_eq!(parsed.diagnostics.iter().filter(|d| d.is_error).count(), 1);
        assert_eq!(parsed.diagnostics.iter().filter(|d| !d.is_error).count(), 2);
        let errors = parsed.errors();
        assert!(errors.contains("unclosed delimiter"), "{errors}");
        assert!(errors.contains("benches/demo.rs:17"), "{errors}");
        assert!(!errors.contains("unused variable"), "{errors}");
    }

    #[test]
    fn garbage_lines_are_skipped_and_real_ones_kept() {
        let mut input =
            b"Compiling foo\n{not json\n\xff\xfe binary\n{\"reason\":\"mystery\"}\n".to_vec();
        input.extend_from_slice(SUCCESS);
        input.extend_from_slice(b"{\"reason\":\"compiler-artifact\"}\n[1,2]\n");
        let parsed = parse_messages(&input[..]);
        assert_eq!(parsed.benches.len(), 1);
        assert_eq!(parsed.success, Some(true));
    }

    #[test]
    fn a_stream_cut_before_build_finished_has_no_verdict() {
        let cut = &SUCCESS[..SUCCESS.len() / 2];
        let parsed = parse_messages(cut);
        assert_eq!(parsed.success, None);
        assert!(parsed.benches.is_empty());
    }

    #[test]
    fn options_become_cargo_arguments() {
        let opts = BuildOptions {
            packages: vec!["a".into()],
            workspace: false,
            exclude: Vec::new(),
            benches: vec!["b1".into(), "b2".into()],
            features: vec!["f1 f2".into()],
            all_features: true,
            no_default_features: true,
            layouts: 4,
        };
        assert_eq!(
            opts.cargo_args(),
            [
                "--package",
                "a",
                "--bench",
                "b1",
                "--bench",
                "b2",
                "--features",
                "f1 f2",
                "--all-features",
                "--no-default-features"
            ]
        );
        assert!(BuildOptions::default().cargo_args().is_empty());
        let every_member = BuildOptions {
            workspace: true,
            ..Default::default()
        };
        assert_eq!(every_member.cargo_args(), ["--workspace"]);
        let but_one = BuildOptions {
            workspace: true,
            exclude: vec!["a*".into()],
            ..Default::default()
        };
        assert_eq!(but_one.cargo_args(), ["--workspace", "--exclude", "a*"]);
    }

    #[test]
    fn package_specs_match_names_and_globs_as_cargo_takes_them() {
        assert!(spec_matches("alpha", "alpha"));
        assert!(spec_matches("alpha@0.1.0", "alpha"));
        assert!(!spec_matches("alpha", "alphabet"));
        assert!(spec_matches("al*", "alphabet"));
        assert!(spec_matches("b?ta", "beta"));
        assert!(spec_matches("[ab]*", "beta") && !spec_matches("[ab]*", "gamma"));
        assert!(spec_matches("[!ab]*", "gamma") && !spec_matches("[!ab]*", "alpha"));
        assert!(spec_matches("a-*", "a-b") && !spec_matches("a.*", "ab"));
        assert!(!spec_matches("[unclosed", "u"));
    }

    #[test]
    fn compiling_lines_name_the_crate() {
        assert_eq!(compiling_crate("   Compiling serde v1.0.1"), Some("serde"));
        assert_eq!(
            compiling_crate("   Compiling perfdiff-demo v0.1.0 (/x)"),
            Some("perfdiff-demo")
        );
        assert_eq!(compiling_crate("error: could not compile"), None);
        assert!(is_progress_line("  Downloaded foo v1"));
        assert!(!is_progress_line("error: could not compile `x`"));
    }

    #[test]
    fn package_ids_of_every_format_give_name_and_version() {
        let manifest = Path::new("/p/demo/Cargo.toml");
        let new = package_from_id("path+file:///p/demo#perfdiff-demo@0.1.0", manifest);
        assert_eq!(
            (new.name.as_str(), new.version.as_str()),
            ("perfdiff-demo", "0.1.0")
        );
        let short = package_from_id("path+file:///p/demo#0.2.0", manifest);
        assert_eq!(
            (short.name.as_str(), short.version.as_str()),
            ("demo", "0.2.0")
        );
        let old = package_from_id("demo 0.3.0 (path+file:///p/demo)", manifest);
        assert_eq!((old.name.as_str(), old.version.as_str()), ("demo", "0.3.0"));
    }

    #[test]
    fn version_is_split_like_cargo_does() {
        let vars: BTreeMap<_, _> = version_variables("1.22.333-beta.1+build")
            .into_iter()
            .collect();
        assert_eq!(vars["CARGO_PKG_VERSION_MAJOR"], "1");
        assert_eq!(vars["CARGO_PKG_VERSION_MINOR"], "22");
        assert_eq!(vars["CARGO_PKG_VERSION_PATCH"], "333");
        assert_eq!(vars["CARGO_PKG_VERSION_PRE"], "beta.1");
    }

    #[test]
    fn harness_comes_from_the_bench_entry_and_defaults_to_true() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = dir.path().join("Cargo.toml");
        fs::write(
            &manifest,
            "[package]\nname = \"x\"\nversion = \"0.1.0\"\n\n[[bench]]\nname = \"crit\"\nharness = false\n\n[[bench]]\nname = \"lt\"\n",
        )
        .unwrap();
        assert!(!bench_harness(&manifest, "crit"));
        assert!(bench_harness(&manifest, "lt"));
        assert!(bench_harness(&manifest, "auto_discovered"));
        assert!(bench_harness(&dir.path().join("missing.toml"), "crit"));
    }

    #[test]
    fn metadata_variables_follow_workspace_inheritance() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(
            dir.path().join("Cargo.toml"),
            "[workspace]\nmembers = [\"a\"]\n[workspace.package]\nlicense = \"MIT\"\nauthors = [\"A\", \"B\"]\n",
        )
        .unwrap();
        fs::create_dir(dir.path().join("a")).unwrap();
        fs::write(
            dir.path().join("a/Cargo.toml"),
            "[package]\nname = \"a\"\nversion = \"0.1.0\"\ndescription = \"d\"\nlicense.workspace = true\nauthors.workspace = true\n",
        )
        .unwrap();
        fs::write(dir.path().join("a/README.md"), "hi").unwrap();
        let vars: BTreeMap<_, _> = package_metadata_variables(&dir.path().join("a/Cargo.toml"))
            .into_iter()
            .collect();
        assert_eq!(vars["CARGO_PKG_DESCRIPTION"], "d");
        assert_eq!(vars["CARGO_PKG_LICENSE"], "MIT");
        assert_eq!(vars["CARGO_PKG_AUTHORS"], "A:B");
        assert_eq!(vars["CARGO_PKG_README"], "README.md");
        assert_eq!(vars["CARGO_PKG_HOMEPAGE"], "");
    }

    #[test]
    fn fork_environment_has_cargo_variables_and_library_path() {
        let root = Path::new("/w/pkg");
        let exe = BenchExecutable {
            package: "pkg".into(),
            target: "b".into(),
            path: "/bins/b-123".into(),
            layouts: Vec::new(),
            relink: None,
            package_root: root.into(),
            manifest_path: root.join("Cargo.toml"),
            src_path: root.join("benches/b.rs"),
            harness: false,
            package_version: "2.3.4".into(),
            // `[env]`, then the build script's, as `copy_executables` orders them; an `[env]`
            // entry may not replace a variable cargo sets.
            cargo_env: [
                ("CARGO_PKG_NAME", "from-config"),
                ("DATA_DIR", "from-config"),
                ("GREETING", "from-config"),
                ("GREETING", "from-script"),
            ]
            .map(|(k, v)| (OsString::from(k), OsString::from(v)))
            .to_vec(),
            native_library_dirs: vec![PathBuf::from("/shared/target/release/build/s-1/out")],
        };
        let env: BTreeMap<_, _> = fork_environment(&exe, Path::new("/shared/target"))
            .into_iter()
            .collect();
        let get = |k: &str| {
            env.get(OsStr::new(k))
                .map(|v| v.to_string_lossy().into_owned())
        };
        assert_eq!(get("CARGO_MANIFEST_DIR").as_deref(), Some("/w/pkg"));
        assert_eq!(get("CARGO_PKG_NAME").as_deref(), Some("pkg"));
        assert_eq!(get("CARGO_PKG_VERSION_MINOR").as_deref(), Some("3"));
        assert_eq!(get("CARGO_TARGET_DIR").as_deref(), Some("/shared/target"));
        assert_eq!(get("DATA_DIR").as_deref(), Some("from-config"));
        assert_eq!(get("GREETING").as_deref(), Some("from-script"));
        let variable = dylib_search_variable();
        let paths: Vec<PathBuf> = std::env::split_paths(&env[OsStr::new(variable)]).collect();
        assert_eq!(paths[0], Path::new("/shared/target/release/build/s-1/out"));
        assert_eq!(paths[1], Path::new("/shared/target/release"));
        assert_eq!(paths[2], Path::new("/shared/target/release/deps"));
    }

    #[cfg(unix)]
    #[test]
    fn multi_line_cargo_errors_keep_first_line_and_cause() {
        let cargo = "error: failed to parse manifest at `/x/Cargo.toml`\n\nCaused by:\n  invalid type: integer `3`\n";
        assert_eq!(
            one_line(cargo),
            "error: failed to parse manifest at `/x/Cargo.toml` (caused by: invalid type: integer `3`)"
        );
        let snippet = "error: key with no value, expected `=`\n --> Cargo.toml:1:9\n  |\n1 | garbage [[\n  |         ^\n";
        assert_eq!(
            one_line(snippet),
            "error: key with no value, expected `=` (at Cargo.toml:1:9)"
        );
        assert_eq!(one_line("  just this \n"), "just this");
        assert_eq!(one_line(""), "");
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..2048)) {
            let _ = parse_messages(&bytes[..]);
        }

        #[test]
        fn arbitrary_json_like_lines_never_panic(lines in proptest::collection::vec("\\{\"reason\":\"(compiler-artifact|compiler-message|build-finished)\"[ -~]{0,80}\\}?", 0..20)) {
            let input = lines.join("\n");
            let _ = parse_messages(input.as_bytes());
        }
    }
}
