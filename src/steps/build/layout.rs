//! Code layouts: the same code of a bench target (or program), linked in other orders that
//! base and head share.
//!
//! Why: a benchmark's speed depends on where its code sits (function order, alignment, which
//! functions share a cache line or a branch-predictor slot), not only on what the code does. One
//! executable is one sample of layout (Curtsinger & Berger, STABILIZER, ASPLOS 2013), and a
//! change anywhere in a crate moves code it never touches, so a comparison of two executables
//! compares two layouts as well as two versions of the code (`docs/layout.md`). Measuring each
//! revision in several layouts lets the analysis see how far a benchmark moves from layout alone;
//! and since a round runs the same layout index on both sides, layout `k` of base and layout `k`
//! of head should place the code the two revisions share alike, so that the round compares the
//! revisions in (nearly) the same layout.
//!
//! Layout 0 is cargo's own build, through the compiler wrapper ([`super::normalize`]): the
//! functions of the user's `cargo bench` build, in the order its normalised symbol hashes give
//! (on httparse, the same 2,620 functions and sizes, 160 of them at the same address; with the
//! wrapper alone, at another path, byte-identical, docs/design/field-trials.md). The others link
//! the objects of that very compilation again: in the side's own build, the compiler wrapper
//! ([`super::normalize`]) adds `-C link-arg=-Wl,--symbol-ordering-file=/dev/null -C save-temps
//! --print link-args` to the compilation of each bench target (each program of a program build)
//! ([`keep_links`]: by crate name; never to a build script or a proc macro). Cargo never sees
//! the arguments: the unit keeps its fingerprint, file name and dependencies, those of the
//! build's own feature resolution over the workspace, and a plain `cargo bench` after ours finds
//! it up to date. rustc keeps the objects it gives the linker and prints the link command, which
//! cargo passes on, and each target takes its own ([`LinkCommand::printed_for`]). The arguments
//! change nothing of the executable: with and without them, rustc 1.95 linked a byte-identical
//! bench executable under the default bench profile, thin LTO, and fat LTO with one codegen unit
//! (a one-package crate, and toml's `toml_benchmarks` with `lto = true`, `codegen-units = 1` and
//! line tables; `tests/orchestration/layouts.rs` checks it under fat LTO). So a target is
//! compiled once per side, layouts or not. Before, each was compiled a second time for its
//! layouts, which under fat LTO is a second whole-program optimisation per target and side
//! (toml's `toml-release` trial did not get through its base's build, docs/design/field-trials.md).
//!
//! Where the build could not keep the link (cargo found the unit up to date, compiled without the
//! arguments by an earlier version and no command saved since; or the linker refused them: GNU
//! ld has no ordering files, and the build that failed on it runs again without them, which the
//! target directory remembers, [`note_linker_refused`]), the target is linked once more by the
//! build that made it, which then fails as before and says why: the side's own cargo
//! command again (`cargo bench --no-run`, or `cargo build --profile P` for a program, with the
//! build's package selection, features, profile and target directory), narrowed to the target
//! (`--bench T`, `--bin T`), with cargo's executable of the target moved aside so that cargo
//! compiles that unit again and no other, and the wrapper adding the same arguments to that one
//! compilation, which it recognises by the executable's file name (`--crate-name` and `-C
//! extra-filename`, which name the unit; checked on a workspace where another member turns on a
//! feature of a shared dependency, `tests/end_to_end/layouts.rs`: the layouts have the functions
//! of cargo's executable). Cargo's executable is put back afterwards, so layout 0 stays the one
//! cargo linked. An empty ordering file leaves the linker's
//! order alone, the extra arguments change no crate's `-C metadata` and no code (the symbol
//! names, and with them codegen-unit partitioning and inlining, stay those of layout 0),
//! `-C save-temps` keeps the objects the linker is given and `--print link-args` prints its
//! command line ([`LinkCommand`]). Layout `k ≥ 1` links those objects again with that
//! command, the empty ordering file replaced by one that lists every function of the objects
//! sorted by a keyed hash of (`k`, its name) ([`ordering`](super::link::ordering)): a function's place in that order
//! depends on its own name alone, so the functions base and head share come in the same relative
//! order on both sides whatever the other side adds or removes (lld's `--shuffle-sections`,
//! used before, permutes all sections with one seeded Fisher–Yates, and one added function
//! re-permutes everything). The suffix ThinLTO gives promoted local symbols (`.llvm.<digits>`, a
//! hash of the crate's source) is left out of the key, so such a function sorts alike on both
//! sides too. Each layout also starts the code on a page of its own (`-z separate-code`), so that
//! the sections before it, whose sizes follow every change of code, do not shift it: a shared
//! function then sits at the same address on both sides up to the first function before it in
//! the order whose size differs. The compiled code depends on neither: identical source gives
//! byte-identical executables in every layout, and a link takes a fraction of a second.
//!
//! Layouts are linked when a round first needs them ([`KeptLink`](super::link::KeptLink)), so a run that stops early
//! links only those it ran; what links them is kept with the build and serves later runs.
//!
//! The command is saved beside the executable cargo linked (`<executable>.perfdiff-link`) with
//! the objects it links; a later build in which cargo did not compile the unit again (a new
//! commit elsewhere in the workspace: the executable is then older than the saved command, and
//! every file the command links is still there) uses it without compiling the target once more.
//! The other intermediate files of `-C save-temps` (bitcode) are removed. A saved command whose
//! own `PATH` (the shell's at the build, behind the toolchain's tool directories rustc puts
//! first) no longer finds its linker is not used. The kept link records the linker that `PATH`
//! found, and checks it before every layout like the objects: layouts are linked as layout 0
//! was, whatever a later shell's `PATH` holds (so a new shell rebuilds nothing), and a build
//! whose linker is gone or changed is not reused for layouts still to link
//! ([`super::link::KeptLink::links_as_built`]).
//!
//! `--symbol-ordering-file` is an option of LLVM's lld (rust-lld, the default linker on x86_64
//! Linux since Rust 1.90) and of mold; a linker that rejects it (GNU ld) fails the relink, which
//! leaves the target with layout 0 alone, and the run says so.
//!
//! Without the wrapper (the library used by another program than `cargo-perfdiff`, whose builds
//! are not normalised) the target is linked once more by `cargo rustc --profile bench --bench T
//! -p ID -- …` with the same arguments. That selects one package and resolves features for it
//! alone, while cargo's build resolves them over the workspace: where another member turns on
//! features of a dependency the target shares (anstyle: clap's `color`, `error-context`, … from
//! other members), `cargo rustc` compiles that dependency, and everything above it, anew with
//! other code and other symbol hashes, and its objects are another program than layout 0 (on
//! anstyle, 953 of the 1,789 functions of `stream`'s executable were in none of them; this was
//! every relink's method until the relink in the build replaced it). So, whichever way the
//! target was relinked, the Rust functions (`_ZN…17h…E`, `_R…`; the link adds C start-up
//! functions no object names) that cargo's executable defines are looked up in the objects,
//! ThinLTO's suffix aside; when one is missing the target keeps layout 0 alone and the run says
//! so, as for a linker without ordering files, and selection measures its benchmarks (no objects
//! to compare).
//!
//! The seeds are fixed (layout `k` is seed `k`), so every run of a commit measures the same
//! layouts and reuses their builds.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use super::link::{LinkCommand, template_link_arg};
use crate::steps::build::{BenchArtifact, BuildEvent, BuildOptions, CargoBuild, ParsedBuild};

/// What makes layouts, as the kept builds' key names it: a build kept by another method is not
/// reused as if it were this one's.
pub const METHOD: &str = "symbol-ordering-file, separate-code, relinked in the build";

/// Relinks the executables of one build: the cargo that built them, its options, and which
/// kind of target they are.
pub struct Relinker<'a> {
    pub(crate) cargo: &'a CargoBuild<'a>,
    pub opts: &'a BuildOptions,
    pub kind: RelinkedKind<'a>,
    /// What rustc printed in the build that made the executables ([`ParsedBuild::printed`]):
    /// the link commands of the units it compiled with [`keep_links`].
    pub printed: &'a [String],
}

/// Makes the build `command` runs keep what links the layouts of the executables it compiles:
/// the compilations of the bench targets of crate names `crates` (of every executable but build
/// scripts when `None`: a program build's `bin` targets) get the template's arguments
/// ([`template_args`]) from the compiler wrapper, which cargo does not see. Also with one layout
/// (`--list` builds so): the executable is the same, and a later run with layouts then finds
/// the link kept rather than compiling the target again. Nothing without the wrapper, nor in a
/// target directory whose linker refused the arguments before ([`note_linker_refused`]).
pub(super) fn keep_links(
    command: &mut std::process::Command,
    crates: Option<&[String]>,
    target_dir: &Path,
) {
    if !refused_marker(target_dir).exists() {
        super::normalize::add_to_executables(command, crates, &template_args());
    }
}

/// Remembers that the linker of builds into `target_dir` refused the template's ordering file
/// ([`linker_refused`]), so that later builds there do not fail their first link and compile
/// again (GNU ld, the default linker of some targets): their targets are relinked once more
/// instead, which says why they have no layouts. Failure to write it only costs that.
pub(super) fn note_linker_refused(target_dir: &Path) {
    let _ = std::fs::write(refused_marker(target_dir), "--symbol-ordering-file\n");
}

/// The file in a target directory that says its linker refused ordering files.
fn refused_marker(target_dir: &Path) -> PathBuf {
    target_dir.join("perfdiff-linker-refuses-ordering-files")
}

/// The kind of target a [`Relinker`] relinks, and the profile it was built with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RelinkedKind<'a> {
    /// Bench targets, built with the `bench` profile (`cargo bench`).
    Bench,
    /// Programs (`bin` targets), built with this profile (`cargo build --profile P`).
    Bin { profile: &'a str },
}

impl<'a> RelinkedKind<'a> {
    /// The `cargo rustc` arguments that select `target` of this kind.
    fn selection<'t>(self, target: &'t str) -> [&'t str; 4]
    where
        'a: 't,
    {
        match self {
            RelinkedKind::Bench => ["--profile", "bench", "--bench", target],
            RelinkedKind::Bin { profile } => ["--profile", profile, "--bin", target],
        }
    }

    /// The cargo command of the build that made `target` of this kind with `opts`, narrowed to
    /// that target: the package selection, features and profile unchanged, so that cargo
    /// resolves features as it did, and every unit is the build's own.
    fn build_args(self, target: &str, opts: &BuildOptions) -> Vec<String> {
        let mut args: Vec<String> = match self {
            RelinkedKind::Bench => ["bench", "--no-run", "--bench", target]
                .map(String::from)
                .to_vec(),
            RelinkedKind::Bin { profile } => ["build", "--profile", profile, "--bin", target]
                .map(String::from)
                .to_vec(),
        };
        args.push("--message-format=json".to_string());
        let selection = BuildOptions {
            benches: Vec::new(),
            ..opts.clone()
        };
        args.extend(selection.cargo_args());
        args
    }
}

impl Relinker<'_> {
    /// Links `artifact` once more, in the linker's own order, keeping its objects, and returns
    /// the command that did it, for [`LinkCommand::replay`]; or the one-line reason of cargo or
    /// the linker. Through the build that made it when builds go through the compiler wrapper
    /// (the `cargo-perfdiff` executable), else through `cargo rustc` (the library used alone).
    pub fn template(
        &self,
        artifact: &BenchArtifact,
        on_event: &mut dyn FnMut(BuildEvent),
    ) -> Result<LinkCommand, String> {
        match super::normalize::enabled() {
            true => self.relink_in_the_build(artifact, on_event),
            false => self.relink_through_cargo_rustc(artifact, on_event),
        }
    }

    /// Saves the link command the build printed for `artifact` beside its executable, and removes
    /// the bitcode `-C save-temps` left, linking nothing: a build with one layout, after which a
    /// run with layouts takes the command ([`LinkCommand::saved_since`]) rather than compiling
    /// the target once more.
    pub fn save_kept_link(&self, artifact: &BenchArtifact) {
        let kept = unit_executable(artifact)
            .ok()
            .and_then(|unit| LinkCommand::printed_for(self.printed, &unit));
        if let Some(kept) = kept {
            kept.remove_unlinked_intermediates();
        }
    }

    /// The link of `artifact` as the build that made it kept it: the command rustc printed when
    /// it compiled the unit with [`keep_links`], or the one saved when it last did and cargo has
    /// not compiled the unit since. Else (a unit compiled without them: by an earlier version,
    /// or where the linker refused them) linked again in that build: its unit's executable moved
    /// aside, the build's cargo command run again with the template's arguments added to that
    /// unit alone, and cargo's executable put back.
    fn relink_in_the_build(
        &self,
        artifact: &BenchArtifact,
        on_event: &mut dyn FnMut(BuildEvent),
    ) -> Result<LinkCommand, String> {
        let unit = unit_executable(artifact)?;
        let kept = LinkCommand::printed_for(self.printed, &unit)
            .or_else(|| LinkCommand::saved_since(&unit));
        if let Some(kept) = kept {
            on_event(BuildEvent::LinkKept {
                target: &artifact.target,
            });
            return Ok(kept);
        }
        on_event(BuildEvent::Relinking {
            target: &artifact.target,
        });
        let failed = |path: &Path, e: std::io::Error| format!("{}: {e}", path.display());
        let mut aside = unit.clone().into_os_string();
        aside.push(".perfdiff-cargo");
        let aside = PathBuf::from(aside);
        std::fs::rename(&unit, &aside).map_err(|e| failed(&unit, e))?;
        let relinked = self.rerun_build(artifact, &unit, on_event);
        std::fs::rename(&aside, &unit).map_err(|e| failed(&unit, e))?;
        if artifact.executable != unit {
            uplift(&unit, &artifact.executable).map_err(|e| failed(&artifact.executable, e))?;
        }
        relinked
    }

    /// Runs the build's cargo command for `artifact` again, the wrapper adding the template's
    /// arguments to the compilation of `unit` (cargo's executable, moved aside), and returns the
    /// link command rustc printed.
    fn rerun_build(
        &self,
        artifact: &BenchArtifact,
        unit: &Path,
        on_event: &mut dyn FnMut(BuildEvent),
    ) -> Result<LinkCommand, String> {
        let unit_name = unit
            .file_name()
            .and_then(OsStr::to_str)
            .ok_or_else(|| format!("{}: not a file name cargo gives", unit.display()))?;
        let mut command = self
            .cargo
            .cargo(&self.kind.build_args(&artifact.target, self.opts));
        super::normalize::add_to_unit(&mut command, unit_name, &template_args());
        let (parsed, built, stderr_tail, success) = self.run_for(command, artifact, on_event)?;
        match built {
            Some(built) if success && built.executable != artifact.executable => Err(format!(
                "the relink built {} where the build made {}",
                built.executable.display(),
                artifact.executable.display()
            )),
            Some(_) if success => LinkCommand::printed(&parsed.printed, unit)
                .ok_or_else(|| "rustc printed no link command".to_string()),
            _ => Err(failure_reason(&parsed.errors(), &stderr_tail)),
        }
    }

    /// Runs `command`, a cargo build that links `artifact` again: what cargo reported, the
    /// executable it built of `artifact`'s package and target (if any), its error output's
    /// tail, and whether it succeeded.
    fn run_for(
        &self,
        command: std::process::Command,
        artifact: &BenchArtifact,
        on_event: &mut dyn FnMut(BuildEvent),
    ) -> Result<(ParsedBuild, Option<BenchArtifact>, Vec<String>, bool), String> {
        let (parsed, stderr_tail, status) = crate::steps::build::run_cargo(
            command,
            self.cargo.workspace_dir,
            self.cargo.one_path.as_ref(),
            on_event,
        )
        .map_err(|e| e.to_string())?;
        let built = self
            .artifacts(&parsed)
            .iter()
            .find(|b| b.package_id == artifact.package_id && b.target == artifact.target)
            .cloned();
        Ok((parsed, built, stderr_tail, status.success()))
    }

    /// The executables of this kind in `parsed`.
    fn artifacts<'p>(&self, parsed: &'p ParsedBuild) -> &'p [BenchArtifact] {
        match self.kind {
            RelinkedKind::Bench => &parsed.benches,
            RelinkedKind::Bin { .. } => &parsed.programs,
        }
    }

    /// Links `artifact` once more through `cargo rustc`, and returns the command that did it
    /// (printed now, or saved when cargo last linked it). When cargo found the unit up to date
    /// and no command was saved, its executable is removed and cargo asked again.
    fn relink_through_cargo_rustc(
        &self,
        artifact: &BenchArtifact,
        on_event: &mut dyn FnMut(BuildEvent),
    ) -> Result<LinkCommand, String> {
        on_event(BuildEvent::Relinking {
            target: &artifact.target,
        });
        let executable = match self.link_through_cargo(artifact, on_event)? {
            (_, Some(link)) => return Ok(link),
            (executable, None) => executable,
        };
        std::fs::remove_file(&executable).map_err(|e| format!("{}: {e}", executable.display()))?;
        match self.link_through_cargo(artifact, on_event)? {
            (_, Some(link)) => Ok(link),
            (_, None) => Err("rustc printed no link command".to_string()),
        }
    }

    /// Runs `cargo rustc` with the template's link argument: the executable it built, and its
    /// link command when there is one.
    fn link_through_cargo(
        &self,
        artifact: &BenchArtifact,
        on_event: &mut dyn FnMut(BuildEvent),
    ) -> Result<(PathBuf, Option<LinkCommand>), String> {
        let mut args: Vec<String> = ["rustc", "--message-format=json"]
            .map(String::from)
            .to_vec();
        args.extend(["--package", &artifact.package_id].map(String::from));
        args.extend(self.kind.selection(&artifact.target).map(String::from));
        args.extend(self.opts.feature_args());
        args.push("--".to_string());
        args.extend(template_args());
        let command = self.cargo.cargo(&args);
        let (parsed, built, stderr_tail, success) = self.run_for(command, artifact, on_event)?;
        match built {
            Some(built) if success => Ok((
                built.executable.clone(),
                LinkCommand::printed_or_saved(&parsed.printed, &built.executable),
            )),
            _ => Err(failure_reason(&parsed.errors(), &stderr_tail)),
        }
    }
}

/// Whether a build's `errors` say that the linker refused the template's ordering file
/// ([`keep_links`]; GNU ld has no `--symbol-ordering-file`): the build is then run again
/// without it, as the user runs it. The linker's complaint, not the command line rustc quotes
/// (`= note: "cc" … "-Wl,--symbol-ordering-file=/dev/null"`), names the option.
pub(super) fn linker_refused(errors: &str) -> bool {
    errors.lines().any(|line| {
        let line = line.trim();
        line.contains("--symbol-ordering-file") && !line.starts_with("= note: \"")
    })
}

/// The function names of the objects `link` links, when they are the program cargo built
/// (`executable`, layout 0): every Rust function of the executable is among them. Otherwise the
/// reason, for a target left with layout 0 alone. A relink in the build links the build's own
/// objects; `cargo rustc -p ID` (without the wrapper) resolves features for that package alone,
/// and a dependency that another member of the workspace gives more features is then compiled
/// anew, with other code and other symbol hashes, as is everything above it.
pub fn names_of_the_same_program(
    link: &LinkCommand,
    executable: &Path,
) -> Result<Vec<String>, String> {
    let names = link.function_names()?;
    match super::link::rust_functions_missing(executable, &names)? {
        (0, _) => Ok(names),
        (missing, of) => Err(another_program(missing, of)),
    }
}

/// Why a relink whose objects lack `missing` of the `of` Rust functions of cargo's executable
/// gives no layouts.
fn another_program(missing: usize, of: usize) -> String {
    format!(
        "the relink built another program: {missing} of the {of} Rust functions of cargo's \
         executable are in none of its objects (a dependency compiled with other features, as \
         when `cargo rustc` builds the package alone)"
    )
}

/// The arguments the wrapper adds to the compilations of the executables whose layouts are
/// linked: the template's empty ordering file, the objects kept, the link command printed. None
/// changes the code ([`super::normalize`] leaves them out of `-C metadata`; the executable is
/// byte for byte the same, `tests/orchestration/layouts.rs`).
pub fn template_args() -> Vec<String> {
    let mut args = vec!["-C".to_string(), template_link_arg()];
    args.extend(["-C", "save-temps", "--print", "link-args"].map(String::from));
    args
}

/// The executable of `artifact`'s unit, where rustc writes it (`deps/<crate>-<hash>`): the
/// artifact itself for a bench target; for a program, which cargo uplifts to the profile's
/// directory as a hard link, the file of `deps/` that is the same file.
fn unit_executable(artifact: &BenchArtifact) -> Result<PathBuf, String> {
    let executable = &artifact.executable;
    let dir = executable.parent().unwrap_or(Path::new("."));
    if dir.file_name() == Some(OsStr::new("deps")) {
        return Ok(executable.clone());
    }
    let failed = |path: &Path, e: std::io::Error| format!("{}: {e}", path.display());
    let same = std::fs::metadata(executable).map_err(|e| failed(executable, e))?;
    let deps = dir.join("deps");
    let prefix = format!("{}-", artifact.target.replace('-', "_"));
    let entries = std::fs::read_dir(&deps).map_err(|e| failed(&deps, e))?;
    entries
        .flatten()
        .filter(|entry| {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            name.starts_with(&prefix) && !name.contains('.')
        })
        .find(|entry| {
            entry.metadata().is_ok_and(|m| {
                std::os::unix::fs::MetadataExt::ino(&m)
                    == std::os::unix::fs::MetadataExt::ino(&same)
                    && std::os::unix::fs::MetadataExt::dev(&m)
                        == std::os::unix::fs::MetadataExt::dev(&same)
            })
        })
        .map(|entry| entry.path())
        .ok_or_else(|| {
            format!(
                "{}: cargo's own file in {} not found",
                executable.display(),
                deps.display()
            )
        })
}

/// Makes `uplifted` the file `unit` is again, as cargo's uplift left it: a hard link (a copy
/// where the file system refuses).
fn uplift(unit: &Path, uplifted: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(uplifted) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    std::fs::hard_link(unit, uplifted).or_else(|_| std::fs::copy(unit, uplifted).map(|_| ()))
}

/// The line that says why a relink failed: the linker's or rustc's error, else cargo's last word.
fn failure_reason(errors: &str, stderr_tail: &[String]) -> String {
    let interesting = |line: &&str| {
        let line = line.trim();
        !line.is_empty() && !line.starts_with("= note: \"") && !line.starts_with("-->")
    };
    let from_linker = errors
        .lines()
        .find(|line| line.contains("unknown argument") || line.contains("unrecognized option"));
    from_linker
        .or_else(|| errors.lines().find(interesting))
        .or_else(|| stderr_tail.iter().map(String::as_str).rfind(interesting))
        .map(|line| {
            let line = line.trim();
            let line = line.strip_prefix("= note:").unwrap_or(line).trim();
            line.strip_prefix("error:")
                .unwrap_or(line)
                .trim()
                .to_string()
        })
        .unwrap_or_else(|| "cargo rustc failed without a message".to_string())
}

/// Where layout `layout` of an executable named `file_name` is kept in a revision's bin
/// directory.
pub fn kept_path(bin_dir: &Path, layout: usize, file_name: &OsStr) -> PathBuf {
    layout_dir(bin_dir, layout).join(file_name)
}

/// Where the files the link of `executable` (a file name) needs are preserved in a revision's
/// bin directory.
pub fn inputs_dir(bin_dir: &Path, executable: &OsStr) -> PathBuf {
    bin_dir.join("link-inputs").join(executable)
}

/// Removes the layouts and preserved link inputs of the build kept in `bin_dir`, before a new
/// build replaces it: layouts are linked when first needed, and one left by the old build would
/// be taken for the new one's.
pub fn forget(bin_dir: &Path) -> std::io::Result<()> {
    let entries = match std::fs::read_dir(bin_dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        entries => entries?,
    };
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if (name.starts_with("layout-") || name == "link-inputs") && entry.file_type()?.is_dir() {
            std::fs::remove_dir_all(entry.path())?;
        }
    }
    Ok(())
}

/// The directory of layout `layout`'s executables in a revision's bin directory.
pub fn layout_dir(bin_dir: &Path, layout: usize) -> PathBuf {
    bin_dir.join(format!("layout-{layout}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reason_is_the_linker_s_complaint_when_there_is_one() {
        let errors = "error: linking with `cc` failed: exit status: 1\n  |\n  = note: \"cc\" \"-m64\"\n  = note: ld: unrecognized option '--symbol-ordering-file=/dev/null'\n";
        assert_eq!(
            failure_reason(errors, &[]),
            "ld: unrecognized option '--symbol-ordering-file=/dev/null'"
        );
        assert_eq!(
            failure_reason("", &["error: no bench target named `x`".to_string()]),
            "no bench target named `x`"
        );
        assert_eq!(
            failure_reason("", &[]),
            "cargo rustc failed without a message"
        );
    }

    #[test]
    fn a_linker_that_refuses_the_ordering_file_is_told_from_the_command_it_ran() {
        let refused = "error: linking with `cc` failed: exit status: 1\n  |\n  = note: \"cc\" \"-m64\" \"-Wl,--symbol-ordering-file=/dev/null\"\n  = note: /usr/bin/ld.bfd: unrecognized option '--symbol-ordering-file=/dev/null'\n";
        assert!(linker_refused(refused));
        // Another link error, whose command line names the option too, is the build's own.
        let other = "error: linking with `cc` failed: exit status: 1\n  = note: \"cc\" \"-Wl,--symbol-ordering-file=/dev/null\"\n  = note: rust-lld: error: undefined symbol: missing\n";
        assert!(!linker_refused(other));
        assert!(!linker_refused(
            "error[E0425]: cannot find value `x` in this scope"
        ));
    }

    #[test]
    fn objects_without_functions_of_cargo_s_executable_are_another_program() {
        // This test executable stands for cargo's: linked from a copy of itself, every function
        // is there; from an archive without objects, none.
        let exe = std::env::current_exe().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let object = dir.path().join("all.o");
        std::fs::copy(&exe, &object).unwrap();
        let empty = dir.path().join("libnone.rlib");
        std::fs::write(&empty, b"!<arch>\n").unwrap();
        let link = |input: &Path| {
            let line = format!(
                r#""cc" "{}" "-o" "/t/deps/x-1" "-Wl,--symbol-ordering-file=/dev/null""#,
                input.display()
            );
            LinkCommand::parse(&line).expect("a link command")
        };
        let names = names_of_the_same_program(&link(&object), &exe).unwrap();
        assert!(
            names.iter().any(|n| n.contains("are_another_program")),
            "{} names",
            names.len()
        );
        let reason = names_of_the_same_program(&link(&empty), &exe).unwrap_err();
        assert!(
            reason.starts_with("the relink built another program: "),
            "{reason}"
        );
    }
}
