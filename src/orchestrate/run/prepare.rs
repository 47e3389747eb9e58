//! Preparing the sides: the repository opened and the run locked, each revision checked out in
//! its worktree slot and built (bench targets, and the programs of commands), and each command's
//! set-up run and its inputs checked in each checkout before anything is measured.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::phases::SideTimes;
use super::{BuiltTarget, RunRequest, SideBuild, state_dir};
use crate::config::Settings;
use crate::model::command::{self, BIN_PLACEHOLDER, CommandSpec, Places};
use crate::model::harness::Harness;
use crate::model::samples::{FailureRecord, Mode};
use crate::model::target::TargetKey;
use crate::orchestrate::error::{Error, Result};
use crate::steps::build;
use crate::steps::build::programs::Programs;
use crate::steps::build::{
    BenchExecutable, BuildEvent, BuildOptions, FeatureGatedBench, UncompiledBench,
    UnselectedPackage, programs,
};
use crate::steps::discover::Filter;
use crate::steps::fork::duet;
use crate::steps::git::revisions::Revision;
use crate::steps::git::untracked::UntrackedCopies;
pub(super) use crate::steps::git::worktree::SLOTS;
use crate::steps::git::{revisions, worktree};
use crate::steps::progress::Progress;
use crate::steps::schedule::Shard;
use crate::steps::stop::StopPolicy;

/// Runs each command's set-up in one revision's checkout (`root`) and checks its inputs there,
/// reading each once so the first measured execution does not pay for the disk. Returns the
/// commands that cannot be measured in this revision, with why: they are `failed` on this side.
pub fn prepare_side(
    commands: &[CommandSpec],
    programs: &Programs,
    root: &Path,
    label: &str,
    progress: &Progress,
) -> Vec<(String, FailureRecord)> {
    let places = Places {
        bin: programs.layout_dirs.first().cloned().unwrap_or_default(),
        root: root.to_path_buf(),
    };
    let mut failures = Vec::new();
    for spec in commands {
        if let Some(missing) = spec.missing_program(&programs.names) {
            failures.push((
                spec.name.clone(),
                FailureRecord {
                    message: format!(
                        "command `{}`: {BIN_PLACEHOLDER}/{missing} is not a program of {label}; \
                         its programs are: {}",
                        spec.name,
                        if programs.names.is_empty() {
                            "none (no bin target was built)".to_string()
                        } else {
                            programs.names.join(", ")
                        }
                    ),
                    stderr_tail: String::new(),
                },
            ));
            continue;
        }
        if let Some(setup) = spec.setup_line(&places) {
            progress.detail(&format!(
                "command {}: set-up in {label}: {setup}",
                spec.name
            ));
            if let Err(failure) = run_setup(spec, &setup, &places, label) {
                failures.push((spec.name.clone(), failure));
                continue;
            }
        }
        let dir = spec.working_dir(root);
        let missing = spec
            .inputs
            .iter()
            .find(|input| std::fs::read(dir.join(input)).is_err());
        if let Some(input) = missing {
            failures.push((
                spec.name.clone(),
                FailureRecord {
                    message: format!(
                        "command `{}`: its input {input} cannot be read in {label} ({})",
                        spec.name,
                        dir.join(input).display()
                    ),
                    stderr_tail: String::new(),
                },
            ));
        }
    }
    failures
}

/// Runs a set-up command with `sh -c`; a failure carries its output's tail.
fn run_setup(
    spec: &CommandSpec,
    setup: &str,
    places: &Places,
    label: &str,
) -> Result<(), FailureRecord> {
    let output = std::process::Command::new("/bin/sh")
        .arg("-c")
        .arg(setup)
        .current_dir(spec.working_dir(&places.root))
        .envs(spec.environment(places))
        .stdin(std::process::Stdio::null())
        .output();
    let failure = |message: String, tail: String| FailureRecord {
        message: format!(
            "command `{}`: its set-up `{setup}` {message} in {label}",
            spec.name
        ),
        stderr_tail: tail,
    };
    match output {
        Err(error) => Err(failure(format!("could not start ({error})"), String::new())),
        Ok(output) if !output.status.success() => {
            let text = String::from_utf8_lossy(&output.stderr).into_owned()
                + &String::from_utf8_lossy(&output.stdout);
            let tail: Vec<&str> = text.lines().rev().take(20).collect();
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            Err(failure(
                format!("failed ({})", output.status),
                tail.join("\n"),
            ))
        }
        Ok(_) => Ok(()),
    }
}

/// A comparison resolved in its repository, with the run's state directory locked.
pub(super) struct Opened {
    pub(super) repo: git2::Repository,
    pub(super) comparison: revisions::Comparison,
    pub(super) untracked: UntrackedCopies,
    /// The workspace root, relative to the repository root.
    pub(super) workspace_rel: PathBuf,
    /// The workspace's cargo target directory.
    pub(super) target_dir: PathBuf,
    pub(super) perfdiff_dir: PathBuf,
    /// The run lock taken here, when the caller held none of this workspace's.
    pub(super) _own_lock: Option<worktree::RunLock>,
}

impl Opened {
    pub(super) fn open(request: &RunRequest, held: Option<&worktree::RunLock>) -> Result<Opened> {
        let repo = revisions::open_repository(&request.start_dir)?;
        let comparison = revisions::resolve_comparison(&repo, &request.revisions)?;
        let untracked = UntrackedCopies::new(&repo, &request.start_dir, &request.copy_untracked)?;
        let workspace_rel = relative_workspace(&comparison.repo_root, &request.workspace_root)?;
        let target_dir = build::target_directory(&request.workspace_root)?;
        let perfdiff_dir = state_dir(&target_dir, &request.workspace_root);
        std::fs::create_dir_all(&perfdiff_dir).map_err(|e| Error::io(&perfdiff_dir, e))?;
        let _own_lock = match held {
            Some(lock) if lock.path() == perfdiff_dir.join("lock") => None,
            _ => Some(worktree::lock_run(&perfdiff_dir, Duration::ZERO)?),
        };
        if request.settings.mode == Mode::Duet {
            // Fail before minutes of building, not after.
            duet::choose_cpus(request.settings.cpus)?;
        }
        Ok(Opened {
            repo,
            comparison,
            untracked,
            workspace_rel,
            target_dir,
            perfdiff_dir,
            _own_lock,
        })
    }
}

/// Checks out and builds both sides in their worktree slots; `None` for head when base's build
/// serves it too.
pub(super) fn build_sides(
    request: &RunRequest,
    opened: &Opened,
    progress: &mut Progress,
) -> Result<(SideBuild, Option<SideBuild>)> {
    let Opened {
        repo,
        comparison,
        perfdiff_dir,
        ..
    } = opened;
    let settings = &request.settings;
    // One cargo target directory for both revisions (dependencies compile once), shared even by
    // workspaces that share a CARGO_TARGET_DIR.
    let shared_target = super::shared_build_target(&opened.target_dir, "target");
    let options = BuildOptions {
        // Round r runs layout r mod layouts: more layouts than rounds would never run.
        layouts: settings
            .layouts
            .min(StopPolicy::from_settings(settings).max_rounds()),
        // Builds of the same content kept by any workspace building into this target
        // directory serve (docs/design/kept-builds.md).
        kept_builds: build::kept_builds_from_env(),
        ..request.build.clone()
    };
    // Build what the run measures: the programs of the commands selected, and no bench target
    // when nothing but commands can be selected.
    let commands = selected_commands(settings, request.shard);
    let focus = request.focus.as_ref();
    let bench_targets = focus.and_then(|f| f.bench_targets.as_deref());
    let builder = Builder {
        repo,
        perfdiff_dir,
        shared_target: &shared_target,
        workspace_rel: &opened.workspace_rel,
        options: &options,
        untracked: &opened.untracked,
        commands: &commands,
        commands_only: request.commands_only
            || filters_name_only_commands(settings)
            || bench_targets.is_some_and(<[TargetKey]>::is_empty),
        bench_targets,
        profile: &settings.profile,
    };
    let held = SLOTS.map(|slot| worktree::slot_commit(repo, perfdiff_dir, slot));
    let [base_slot, head_slot] = assign_slots(&comparison.base, &comparison.head, &held);
    if !request.keep_builds {
        remove_other_executables(
            &perfdiff_dir.join("bin"),
            &[
                bin_dir_name(base_slot, &comparison.base),
                bin_dir_name(head_slot, &comparison.head),
            ],
            progress,
        );
    }
    let base_build = builder.prepare("base", base_slot, &comparison.base, progress)?;
    let head_build = if one_build_serves_both(&comparison.base, &comparison.head) {
        None
    } else {
        Some(builder.prepare("head", head_slot, &comparison.head, progress)?)
    };
    Ok((base_build, head_build))
}

pub(super) fn relative_workspace(repo_root: &Path, workspace_root: &Path) -> Result<PathBuf> {
    let canonical = |p: &Path| p.canonicalize().map_err(|e| Error::io(p, e));
    let repo = canonical(repo_root)?;
    let workspace = canonical(workspace_root)?;
    workspace
        .strip_prefix(&repo)
        .map(Path::to_path_buf)
        .map_err(|_| {
            Error::Usage(format!(
                "the cargo workspace {} is not inside the git repository {}",
                workspace.display(),
                repo.display()
            ))
        })
}

/// The commands a run measures: those the filters select (by name or by memory record), not
/// ignored, in this shard (as [`select_benchmarks`] selects them). Only their programs are built.
pub(super) fn selected_commands(settings: &Settings, shard: Option<Shard>) -> Vec<CommandSpec> {
    let filter = Filter::new(&settings.filters);
    settings
        .commands
        .iter()
        .filter(|c| filter.matches(&c.name) || filter.matches(&command::memory_id(&c.name)))
        .filter(|c| !settings.is_ignored(&c.name))
        .filter(|c| shard.is_none_or(|s| s.contains(&c.name)))
        .cloned()
        .collect()
}

/// Whether the filters can select commands only: every id they can match is a command's name
/// or its memory record's ([`Filter::exact_ids`]), so no bench target needs building, whatever
/// its benchmarks are called.
pub(super) fn filters_name_only_commands(settings: &Settings) -> bool {
    let is_command = |id: &String| {
        settings
            .commands
            .iter()
            .any(|c| c.name == *id || command::memory_id(&c.name) == *id)
    };
    Filter::new(&settings.filters)
        .exact_ids()
        .is_some_and(|ids| ids.iter().all(is_command))
}

/// What checking out and building a side needs, the same for both sides.
pub(super) struct Builder<'a> {
    pub(super) repo: &'a git2::Repository,
    pub(super) perfdiff_dir: &'a Path,
    pub(super) shared_target: &'a Path,
    pub(super) workspace_rel: &'a Path,
    pub(super) options: &'a BuildOptions,
    pub(super) untracked: &'a UntrackedCopies,
    /// The commands measured: their programs are built when there is one.
    pub(super) commands: &'a [CommandSpec],
    /// Build no bench target.
    pub(super) commands_only: bool,
    /// The bench targets needed, when fewer than the options select ([`Focus::bench_targets`]).
    pub(super) bench_targets: Option<&'a [TargetKey]>,
    pub(super) profile: &'a str,
}

impl Builder<'_> {
    /// Checks out and builds one side (`side`, "base" or "head") in worktree slot `slot`.
    pub(super) fn prepare(
        &self,
        side: &str,
        slot: &str,
        revision: &Revision,
        progress: &mut Progress,
    ) -> Result<SideBuild> {
        let label = format!("{side} {}", revision.label());
        let (checkout, checkout_time) =
            super::phases::timed(|| self.check_out(slot, revision, &label, progress));
        let checkout = checkout?;
        let building = Instant::now();
        progress.start_step(&format!("building {label}"));
        let bin_dir = self
            .perfdiff_dir
            .join("bin")
            .join(bin_dir_name(slot, revision));
        let root = checkout.join(self.workspace_rel);
        let mut log = BuildLog::default();
        let mut on_event =
            |event: BuildEvent| log.hear(event, &label, self.options.layouts, progress);
        let executables = self.build_benches(&root, &label, &bin_dir, &mut on_event)?;
        let programs = self.build_programs(&root, &label, &bin_dir, &mut on_event)?;
        progress.finish_bar();
        progress.note(&log.summary(&label, executables.len(), programs.as_ref()));
        if let Some(note) = cargo_build_alone(&label, &log.layouts_unavailable) {
            progress.note(&note);
        }
        let one_path = crate::steps::build::one_path_of(&root);
        if let Some(normalised) = crate::steps::build::normalize::described(one_path.as_ref()) {
            progress.detail(&format!("{label}: {normalised}"));
        }
        if let Some(toolchain) = crate::steps::build::toolchain::described() {
            progress.detail(&format!("{label}: {toolchain}"));
        }
        let command_failures = match &programs {
            Some(programs) => prepare_side(self.commands, programs, &root, &label, progress),
            None => Vec::new(),
        };
        Ok(SideBuild {
            targets: self.built_targets(executables),
            needs_features: log.needs_features,
            unselected: log.unselected,
            not_compiled: log.not_compiled,
            programs,
            root,
            command_failures,
            times: SideTimes {
                checkout: checkout_time,
                build: building.elapsed(),
                crates_compiled: log.compiled,
            },
        })
    }

    /// Checks `revision` out in worktree slot `slot` and copies the untracked files asked for
    /// into it; returns the checkout.
    pub(super) fn check_out(
        &self,
        slot: &str,
        revision: &Revision,
        label: &str,
        progress: &mut Progress,
    ) -> Result<PathBuf> {
        progress.start_step(&format!("checking out {label}"));
        let checkout = worktree::materialise(self.repo, self.perfdiff_dir, slot, revision)?;
        let copied = self.untracked.copy_into(&checkout)?;
        if copied > 0 {
            progress.detail(&format!(
                "copied {copied} file(s) git does not hold into the checkout of {label}"
            ));
        }
        Ok(checkout)
    }

    /// The bench executables of the side: none when only commands are measured, the needed
    /// targets' when the caller needs fewer than the options select, else every selected one.
    pub(super) fn build_benches(
        &self,
        root: &Path,
        label: &str,
        bin_dir: &Path,
        on_event: &mut dyn FnMut(BuildEvent),
    ) -> Result<Vec<BenchExecutable>> {
        let (target, options) = (self.shared_target, self.options);
        Ok(match (self.commands_only, self.bench_targets) {
            (true, _) => Vec::new(),
            (false, None) => build::build_benches(root, label, target, bin_dir, options, on_event)?,
            (false, Some(needed)) => build::build_needed_benches(
                root, label, target, bin_dir, options, needed, on_event,
            )?,
        })
    }

    /// The side's programs, when commands are measured.
    pub(super) fn build_programs(
        &self,
        root: &Path,
        label: &str,
        bin_dir: &Path,
        on_event: &mut dyn FnMut(BuildEvent),
    ) -> Result<Option<Programs>> {
        if self.commands.is_empty() {
            return Ok(None);
        }
        Ok(Some(programs::build_programs(
            root,
            label,
            self.shared_target,
            bin_dir,
            self.options,
            self.profile,
            on_event,
        )?))
    }

    /// Each executable with the environment its forks run in, by target.
    pub(super) fn built_targets(
        &self,
        executables: Vec<BenchExecutable>,
    ) -> BTreeMap<TargetKey, BuiltTarget> {
        executables
            .into_iter()
            .map(|exe| {
                let env = build::fork_environment(&exe, self.shared_target);
                let target = BuiltTarget {
                    exe,
                    env,
                    harness: Cell::new(Harness::default()),
                };
                (
                    TargetKey::new(&target.exe.package, &target.exe.target),
                    target,
                )
            })
            .collect()
    }
}

/// What a side's build said besides its executables: the bench targets it left out, and how
/// many crates cargo compiled.
#[derive(Default)]
pub(super) struct BuildLog {
    pub(super) needs_features: Vec<FeatureGatedBench>,
    pub(super) unselected: Vec<UnselectedPackage>,
    pub(super) not_compiled: Vec<UncompiledBench>,
    pub(super) compiled: usize,
    /// The targets measured in cargo's build alone, as `(package, target, why)`: told in one
    /// note when the build ends ([`cargo_build_alone`]).
    pub(super) layouts_unavailable: Vec<(String, String, String)>,
}

impl BuildLog {
    /// Takes in one event of `label`'s build, showing progress.
    pub(super) fn hear(
        &mut self,
        event: BuildEvent,
        label: &str,
        layouts: usize,
        progress: &mut Progress,
    ) {
        match event {
            BuildEvent::Compiling(name) => {
                self.compiled += 1;
                progress.step_message(&format!(
                    "building {label}: crate {}, {name}",
                    self.compiled
                ));
                progress.detail(&format!("{label}: compiling {name}"));
            }
            BuildEvent::Message(text) => progress.detail(text),
            BuildEvent::Finished => {}
            BuildEvent::NeedsFeatures(gated) => self.needs_features.push(gated.clone()),
            BuildEvent::NotSelected(package) => self.unselected.push(package.clone()),
            BuildEvent::Relinking { target } => {
                progress.step_message(&format!(
                    "building {label}: {target} for its {layouts} code layouts"
                ));
                progress.detail(&format!(
                    "{label}: compiling {target} once more for its {layouts} code layouts (its \
                     build kept no link of it)"
                ));
            }
            BuildEvent::LinkKept { target } => progress.detail(&format!(
                "{label}: {target}: its {layouts} code layouts relink the objects its build \
                 kept (no second compilation)"
            )),
            BuildEvent::LayoutsUnavailable {
                package,
                target,
                reason,
            } => {
                progress.detail(&format!(
                    "{label}: bench target {target} of package {package} cannot be relinked in \
                     another code layout ({reason})"
                ));
                let failed = (package.to_string(), target.to_string(), reason.to_string());
                self.layouts_unavailable.push(failed);
            }
            BuildEvent::NotCompiled(target) => self.not_compiled.push(target.clone()),
        }
    }

    /// `built base abc123: 3 bench target(s), 1 left out (need nightly), 2 program(s), up to date`.
    pub(super) fn summary(
        &self,
        label: &str,
        executables: usize,
        programs: Option<&Programs>,
    ) -> String {
        let work = match self.compiled {
            0 => "up to date".to_string(),
            n => format!("{n} crate(s) compiled"),
        };
        let nightly = self
            .not_compiled
            .iter()
            .filter(|u| u.needs_nightly())
            .count();
        let failed = match (self.not_compiled.len() - nightly, nightly) {
            (0, 0) => String::new(),
            (0, n) => format!(", {n} left out (need nightly)"),
            (n, 0) => format!(", {n} left out for compile errors"),
            (n, m) => format!(", {n} left out for compile errors and {m} (need nightly)"),
        };
        let programs_built = programs
            .map(|p| format!(", {} program(s)", p.names.len()))
            .unwrap_or_default();
        format!("built {label}: {executables} bench target(s){failed}{programs_built}, {work}")
    }
}

/// Whether the two sides are one commit (HEAD vs HEAD, calibration), so that one checkout and
/// build, base's, serves both.
pub(super) fn one_build_serves_both(base: &Revision, head: &Revision) -> bool {
    base == head && !base.working_tree
}

/// Which slot each side is checked out and built in, `[base's, head's]`, given the commit each
/// slot holds (`held`, in the order of [`SLOTS`]). Normally base in "base" and head in "head"; but
/// when a side's commit already sits in the other slot and neither side's commit sits in its own,
/// the sides swap slots, so that comparing A..B and then B..C, or calibrating HEAD after
/// HEAD~1..HEAD, finds B (HEAD) built and compiles only what the other side changes. When both
/// sides are one commit, base takes the slot that holds it.
pub(super) fn assign_slots(
    base: &Revision,
    head: &Revision,
    held: &[Option<String>; 2],
) -> [&'static str; 2] {
    let holds = |slot: usize, revision: &Revision| {
        !revision.working_tree && revision.commit.is_some() && held[slot] == revision.commit
    };
    if one_build_serves_both(base, head) {
        return if holds(1, base) && !holds(0, base) {
            [SLOTS[1], SLOTS[0]]
        } else {
            SLOTS
        };
    }
    let own = holds(0, base) || holds(1, head);
    let crossed = holds(1, base) || holds(0, head);
    if crossed && !own {
        [SLOTS[1], SLOTS[0]]
    } else {
        SLOTS
    }
}

/// Committed revisions get a directory per commit; the working tree one of its own.
pub(super) fn bin_dir_name(slot: &str, revision: &Revision) -> String {
    match (&revision.commit, revision.working_tree) {
        (_, true) => format!("working-tree-{slot}"),
        (Some(commit), false) => commit.clone(),
        (None, false) => format!("unknown-{slot}"),
    }
}

/// Removes the bench executables kept for commits other than `keep` (this run's two sides)
/// from `bin`: each build copies a commit's executables there (hundreds of megabytes for a
/// large suite), and nothing reads them after their run, so a developer comparing each new
/// commit would otherwise fill the disk. Runs hold the lock, so no other run is using them.
/// A directory that cannot be removed is left, with a line in the verbose log.
pub(super) fn remove_other_executables(bin: &Path, keep: &[String], progress: &Progress) {
    let Ok(entries) = std::fs::read_dir(bin) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        if keep.iter().any(|k| name == k.as_str()) {
            continue;
        }
        if let Err(e) = std::fs::remove_dir_all(entry.path()) {
            progress.detail(&format!(
                "cannot remove old executables {}: {e}",
                entry.path().display()
            ));
        }
    }
}

/// How many of the targets measured in cargo's build alone one note names before it counts the
/// rest.
const NAMED_ALONE: usize = 5;

/// One note for the bench targets of `label` measured in cargo's build alone (`(package, target,
/// why)`): the first with its reason, the next few by name and the rest counted (a workspace
/// of 23 members whose targets are all `benches/mod.rs` gave 23 notes a side, each naming only
/// `mod`). `-v` gives each target's reason as the build hears it.
fn cargo_build_alone(label: &str, failed: &[(String, String, String)]) -> Option<String> {
    let name =
        |(package, target, _): &(String, String, String)| format!("{target} of package {package}");
    let (first, others) = failed.split_first()?;
    let why = &first.2;
    if others.is_empty() {
        return Some(format!(
            "bench target {} in {label} is measured in cargo's build alone: relinking it in \
             another code layout failed ({why})",
            name(first)
        ));
    }
    let mut named: Vec<String> = others.iter().take(NAMED_ALONE).map(name).collect();
    if others.len() > NAMED_ALONE {
        named.push(format!("{} more", others.len() - NAMED_ALONE));
    }
    Some(format!(
        "{} bench targets of {label} are measured in cargo's build alone: relinking them in \
         another code layout failed ({}: {why}); the others: {} (`-v` gives each one's reason)",
        failed.len(),
        name(first),
        named.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failed(package: &str, target: &str) -> (String, String, String) {
        let why = "the relink through `cargo rustc` built another program";
        (package.into(), target.into(), why.into())
    }

    #[test]
    fn one_target_in_cargo_s_build_alone_is_named_with_its_package_and_reason() {
        let note = cargo_build_alone("base abc", &[failed("b", "mixes")]).unwrap();
        assert_eq!(
            note,
            "bench target mixes of package b in base abc is measured in cargo's build alone: \
             relinking it in another code layout failed (the relink through `cargo rustc` built \
             another program)"
        );
        assert_eq!(cargo_build_alone("base abc", &[]), None);
    }

    #[test]
    fn same_named_targets_of_many_packages_are_one_note_naming_the_packages() {
        // RustCrypto/hashes: 23 members, each with `benches/mod.rs`.
        let packages = [
            "bash-hash",
            "belt-hash",
            "blake2",
            "fsb",
            "gost94",
            "groestl",
            "jh",
        ];
        let targets: Vec<_> = packages.iter().map(|p| failed(p, "mod")).collect();
        let note = cargo_build_alone("head 81ae18a", &targets).unwrap();
        assert_eq!(
            note,
            "7 bench targets of head 81ae18a are measured in cargo's build alone: relinking \
             them in another code layout failed (mod of package bash-hash: the relink through \
             `cargo rustc` built another program); the others: mod of package belt-hash, mod of \
             package blake2, mod of package fsb, mod of package gost94, mod of package groestl, \
             1 more (`-v` gives each one's reason)"
        );
    }
}
