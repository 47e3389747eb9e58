//! Build: `cargo bench --no-run --message-format=json` in a revision's worktree; bench executables
//! are taken from the `compiler-artifact` messages and copied to a per-commit directory.
//!
//! Why it works this way:
//! - Both revisions build into one shared `CARGO_TARGET_DIR`, so dependencies that did not change
//!   compile once: cargo names and hashes a workspace crate by its path *relative to the
//!   workspace root*, so the same crate in the two checkouts is one unit, and the compiler wrapper
//!   ([`normalize`]) gives it one `-C metadata` without path or version, so identical source gives
//!   a byte-identical executable (the functions of the user's own `cargo bench` build, in the
//!   order those hashes give). That the second checkout's files are not taken for fresh
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
//!
//! One file a job: running cargo and reading its messages (`cargo`), the workspace's packages and
//! features (`workspace`), freshness and keeping, one sequence for bench targets and programs
//! (`keep`, over [`freshness`] and `store`, the builds every workspace of a target directory
//! shares by content), relinking into code layouts ([`layout`]), the environment of a
//! fork (`fork_env`, [`cargo_env`]); `benches` and [`programs`] are the two builds, this file
//! their types and errors.

mod benches;
mod build_script_inputs;
mod cargo;
pub mod cargo_env;
mod cargo_output;
mod fork_env;
pub mod freshness;
mod keep;
pub mod layout;
pub mod link;
pub mod normalize;
pub mod one_path;
pub mod programs;
mod store;
pub mod toolchain;
mod unit_benches;
mod workspace;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

pub use benches::ONE_LAYOUT;
pub(crate) use benches::{Layouts, copy_out, layouts_of};
pub use benches::{build_benches, build_needed_benches};
pub(crate) use cargo::{CargoBuild, one_path_of, run_cargo};
pub use cargo::{ParsedBuild, RenderedDiagnostic, parse_messages};
pub use cargo_env::BuildOutDir;
pub use cargo_output::{BenchArtifact, FailedTarget};
pub use fork_env::{dylib_search_variable, fork_environment};
pub use unit_benches::{unit_test_benches, unit_test_benches_clause};
pub use workspace::{
    all_benches_failed_hint, bench_packages_elsewhere, compare_elsewhere, current_package,
    target_directory, workspace_root,
};

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
    /// Build with debug line tables (`debug = "line-tables-only"` in the `bench` and `release`
    /// profiles, given to cargo as `--config`), for the functions behind a change
    /// (docs/design/instructions.md). Never for the executables a comparison measures: such a build
    /// goes to a target directory of its own.
    pub line_tables: bool,
    /// How many builds the target directory's store of kept builds keeps, which every workspace
    /// building there takes builds of the same content from (`store`); 0 (the default) neither
    /// takes nor puts. A comparison sets it from `CARGO_PERFDIFF_KEPT_BUILDS`
    /// ([`kept_builds_from_env`]). Not an option of cargo's: it changes no build.
    pub kept_builds: usize,
}

/// How many builds a run's store of kept builds keeps: `CARGO_PERFDIFF_KEPT_BUILDS`, else 8.
pub fn kept_builds_from_env() -> usize {
    store::capacity_from_env()
}

/// The `--config` values of a build with line tables ([`BuildOptions::line_tables`]).
pub const LINE_TABLES_CONFIG: [&str; 2] = [
    "profile.bench.debug=\"line-tables-only\"",
    "profile.release.debug=\"line-tables-only\"",
];

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
        if self.line_tables {
            for config in LINE_TABLES_CONFIG {
                args.extend(["--config".to_string(), config.to_string()]);
            }
        }
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
    pub relink: Option<crate::steps::build::link::KeptLink>,
    /// Why `relink` is none, as the build knew it: one code layout asked for, or the relink's
    /// failure (a linker that cannot order functions, a relink that built another program).
    /// Selection by reach, which compares the objects kept, says which.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relink_missing: Option<String>,
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
    /// Every build script's output directory in the build, by package, as cargo reported them:
    /// what selection reads alike in base's and head's code ([`BuildOutDir`]). Empty in a build
    /// kept before it was recorded, which then reads none alike.
    #[serde(default)]
    pub build_out_dirs: Vec<BuildOutDir>,
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
    /// Bench target (or program) `target` is being compiled and linked once more through cargo,
    /// which keeps what links its other code layouts ([`crate::steps::build::layout`]): its
    /// build could not keep it (a unit compiled without the wrapper's arguments).
    Relinking { target: &'a str },
    /// What links the other code layouts of bench target (or program) `target` was kept by the
    /// build's own compilation of it ([`crate::steps::build::layout`]): it is not compiled again.
    LinkKept { target: &'a str },
    /// Bench target `target` of package `package` could not be relinked in another layout, for
    /// `reason`; it is measured in cargo's build alone.
    LayoutsUnavailable {
        package: &'a str,
        target: &'a str,
        reason: &'a str,
    },
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

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::ffi::OsStr;
    use std::fs;

    use super::*;
    use super::{benches::*, cargo::*, cargo_output::*, fork_env::*, workspace::*};

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
    fn each_build_script_s_output_directory_is_recorded_by_its_package_s_name() {
        let script = |id: &str, out: &str| {
            format!(
                r#"{{"reason":"build-script-executed","package_id":"{id}","linked_libs":[],"linked_paths":[],"cfgs":[],"env":[],"out_dir":"{out}"}}"#
            )
        };
        let lines = [
            // A path package whose id names no package (its directory's name is its own).
            script(
                "path+file:///w/live/shapelib#0.2.0",
                "/t/build/shapelib-aa/out",
            ),
            script("path+file:///w/live#x@0.1.0", "/t/build/x-bb/out"),
            script(
                "registry+https://github.com/rust-lang/crates.io-index#quote@1.0.47",
                "/t/build/quote-cc/out",
            ),
            script(
                "git+https://h/o/gitdep?branch=m#1.0.0",
                "/t/build/gitdep-dd/out",
            ),
            // A script without an output directory records none.
            script("path+file:///p#none@0.1.0", ""),
        ];
        let parsed = parse_messages(lines.join("\n").as_bytes());
        let recorded: Vec<(String, String)> = benches::build_out_dirs(&parsed)
            .into_iter()
            .map(|d| (d.package, d.dir.to_string_lossy().into_owned()))
            .collect();
        let expected = [
            ("gitdep", "/t/build/gitdep-dd/out"),
            ("quote", "/t/build/quote-cc/out"),
            ("shapelib", "/t/build/shapelib-aa/out"),
            ("x", "/t/build/x-bb/out"),
        ]
        .map(|(p, d)| (p.to_string(), d.to_string()));
        assert_eq!(recorded, expected);
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

    #[test]
    fn a_configured_out_item_s_feature_is_named_beside_the_headline() {
        // tokio-rs/tracing (field-trials.md, `tracing-version`): tracing-subscriber's `filter`
        // bench uses `EnvFilter`, behind its `env-filter` feature, without `required-features`;
        // the headline alone ("unresolved import") did not say which feature to pass.
        let rendered = "error[E0432]: unresolved import `gated::EnvFilter`\n --> benches/b.rs:1:5\n  |\n\
                        1 | use gated::EnvFilter;\n  |     ^^^^^^^^^^^^^^^^ no `EnvFilter` in the root\n  |\n\
                        note: found an item that was configured out\n --> src/lib.rs:2:12\n  |\n\
                        1 | #[cfg(feature = \"env-filter\")]\n  |       ---------------------- the item is gated behind the `env-filter` feature\n\
                        2 | pub struct EnvFilter;\n  |            ^^^^^^^^^\n\n";
        assert_eq!(
            diagnostic_headline(rendered),
            "error[E0432]: unresolved import `gated::EnvFilter` (at benches/b.rs:1:5); \
             the item is gated behind the `env-filter` feature"
        );
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
            line_tables: false,
            kept_builds: 8,
        };
        let with_line_tables = BuildOptions {
            line_tables: true,
            ..BuildOptions::default()
        };
        assert_eq!(
            with_line_tables.cargo_args(),
            [
                "--config",
                "profile.bench.debug=\"line-tables-only\"",
                "--config",
                "profile.release.debug=\"line-tables-only\""
            ]
        );
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
    fn the_build_names_its_bench_targets_unless_naming_them_changes_what_cargo_builds() {
        // toml's shape: members without bench targets beside one with three. Named, cargo
        // builds the three and not the libraries' test harnesses `cargo bench` adds.
        let three = packages(&[("id-b", "2-array"), ("id-b", "0-cargo"), ("id-b", "1-map")]);
        let opts = BuildOptions::default();
        assert_eq!(
            bench_targets_alone(&three, &opts).benches,
            ["0-cargo", "1-map", "2-array"]
        );
        // Same-named targets of two members: one name selects both, as `--bench` does.
        let twins = packages(&[("id-a", "speed"), ("id-b", "speed")]);
        assert_eq!(bench_targets_alone(&twins, &opts).benches, ["speed"]);
        // The user's `--bench` is kept as given.
        let named = BuildOptions {
            benches: vec!["1-map".to_string()],
            ..BuildOptions::default()
        };
        assert_eq!(bench_targets_alone(&three, &named), named);
        // No bench target: cargo's own selection, which says what it makes of the options.
        assert_eq!(bench_targets_alone(&packages(&[]), &opts), opts);
        // A target with `required-features`: named, cargo would refuse it without them.
        let mut gated = packages(&[("id-a", "speed")]);
        gated.feature_gated.push((
            "id-b".to_string(),
            FeatureGatedBench {
                package: "b".to_string(),
                target: "simd".to_string(),
                required_features: vec!["simd".to_string()],
                suggestion: "--features simd".to_string(),
            },
        ));
        assert_eq!(bench_targets_alone(&gated, &opts), opts);
        // `bench = false`: named, cargo would build what `cargo bench` leaves out.
        let dir = tempfile::tempdir().unwrap();
        let manifest = dir.path().join("Cargo.toml");
        fs::write(
            &manifest,
            "[package]\nname = \"a\"\nversion = \"0.1.0\"\n\n[[bench]]\nname = \"slow\"\nbench = false\n",
        )
        .unwrap();
        let mut off = packages(&[("id-a", "speed"), ("id-a", "slow")]);
        off.by_id.get_mut("id-a").unwrap().manifest_path = manifest.clone();
        assert_eq!(bench_targets_alone(&off, &opts), opts);
        assert!(!benched_by_default(&manifest, "slow"));
        assert!(benched_by_default(&manifest, "speed"));
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
            relink_missing: None,
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
            build_out_dirs: Vec::new(),
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

    #[test]
    fn a_multi_line_error_without_a_cause_keeps_every_line() {
        // hyperium/http (field-trials.md, session 18): `members = ["."]` makes cargo count
        // `benches/` a member although `exclude` names it. Its last line was given as the
        // cause, and the lines naming the package and the workspace were dropped.
        let cargo = "error: current package believes it's in a workspace when it's not:\n\
                     current:   /r/benches/Cargo.toml\n\
                     workspace: /r/Cargo.toml\n\n\
                     this may be fixable by adding `benches` to the `workspace.members` array \
                     of the manifest located at: /r/Cargo.toml\n\
                     Alternatively, to keep it out of the workspace, add the package to the \
                     `workspace.exclude` array, or add an empty `[workspace]` table to the \
                     package's manifest.\n";
        let line = one_line(cargo);
        assert!(!line.contains("caused by"), "{line}");
        for part in [
            "current:   /r/benches/Cargo.toml",
            "workspace: /r/Cargo.toml",
            "adding `benches` to the `workspace.members` array",
            "add an empty `[workspace]` table",
        ] {
            assert!(line.contains(part), "{part} in {line}");
        }
        assert!(!line.contains('\n'), "{line}");
    }

    #[test]
    fn rustup_s_missing_toolchain_keeps_its_help_and_drops_its_backtrace() {
        // str4d/rage (field-trials.md, `age-version`): its `rust-toolchain.toml` names 1.74.0,
        // and under `RUST_BACKTRACE=1` rustup prints anyhow's backtrace after the message; its
        // last frame was given as the cause, "(caused by: 12: <unknown>)".
        let rustup = "error: toolchain '1.74.0-x86_64-unknown-linux-gnu' is not installed\n\
                      help: run `rustup toolchain install` to install it\n\n\
                      Stack backtrace:\n   0: anyhow::error::<impl …>::from\n\
                      \x20  1: rustup::config::Cfg::local_toolchain::{{closure}}\n\
                      \x20 11: __libc_start_main_impl\n             at ./csu/../csu/libc-start.c:360:3\n\
                      \x20 12: <unknown>\n";
        let expected = "error: toolchain '1.74.0-x86_64-unknown-linux-gnu' is not installed \
                        (help: run `rustup toolchain install` to install it)";
        assert_eq!(one_line(rustup), expected);
        let (message, _) = rustup.split_once("\n\nStack").unwrap();
        assert_eq!(one_line(message), expected);
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
