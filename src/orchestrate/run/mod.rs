//! A whole comparison: revisions → worktrees → builds → discovery → rounds of forks → analysis.
//!
//! This module only sequences the steps; each lives in its own module. Its one rule of its own:
//! the samples file is saved after every fork, so whatever happens (a crash, Ctrl-C, a failing
//! benchmark) the measurements taken so far are kept and `--resume` can continue.

mod prepare;
mod rounds;

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::config::{Settings, StopRule};
use crate::model::command::{self, CommandSpec, Places};
use crate::model::harness::{Harness, HarnessKind};
use crate::model::samples::{
    BenchmarkRecord, FailureRecord, ForkRecord, Mode, Presence, RevisionInfo, RunInfo, SampleFile,
};
use crate::model::target::TargetKey;
use crate::orchestrate::error::{Error, Result};
use crate::steps::analysis::{self, Report, SkippedTarget};
use crate::steps::build::programs::{self, Programs};
use crate::steps::build::{
    self, BenchExecutable, BuildEvent, BuildOptions, FeatureGatedBench, UncompiledBench,
    UnselectedPackage,
};
use crate::steps::discover::{
    self, Classified, DiscoverError, FailedListing, Filter, Matched, Settled, SideListings,
    TargetLists,
};
use crate::steps::estimate::{Plan, large_run_hint};
use crate::steps::fork::command::CommandRun;
use crate::steps::fork::duet;
use crate::steps::fork::fresh_copy::FreshCopies;
use crate::steps::fork::{self, ForkError, ForkOutcome, ForkRequest};
use crate::steps::git::revisions::{self, Revision};
use crate::steps::git::untracked::UntrackedCopies;
use crate::steps::git::worktree;
use crate::steps::progress::Progress;
use crate::steps::schedule::{self, Shard, Side};
use crate::steps::stop::StopPolicy;

/// Everything a comparison needs to know.
#[derive(Debug, Clone)]
pub struct RunRequest {
    /// Where the user ran the command (any directory inside the repository).
    pub start_dir: PathBuf,
    /// The user's cargo workspace root.
    pub workspace_root: PathBuf,
    /// Revision arguments as typed (see `revisions::resolve_comparison`).
    pub revisions: Vec<String>,
    pub build: BuildOptions,
    /// Paths of the user's working tree git does not hold, copied into both checkouts
    /// (`--copy-untracked`, [`UntrackedCopies`]).
    pub copy_untracked: Vec<PathBuf>,
    pub settings: Settings,
    /// Compare the settings' commands alone, building and listing no benchmarks.
    pub commands_only: bool,
    pub shard: Option<Shard>,
    pub resume: Option<PathBuf>,
    pub samples_path: Option<PathBuf>,
    /// Keep the executables built for other commits (a bisection comes back to them); a
    /// comparison removes them ([`remove_other_executables`]).
    pub keep_builds: bool,
    /// What the caller will read of the run, when it knows more than the filters say (a
    /// bisection's step knows it from its confirmation); `None`: everything selected.
    pub focus: Option<Focus>,
}

/// The part of a comparison its caller reads: the run builds and measures no more than that
/// needs. A bisection's step that searches a command needs its programs and no bench target; one
/// that searches a benchmark needs its bench target alone.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Focus {
    /// The bench targets that hold the benchmarks asked for: only these are built (a kept build
    /// of every target serves too). `None`: every target the build options select.
    pub bench_targets: Option<Vec<TargetKey>>,
    /// The records whose verdicts are read. A command whose other record is not among them runs
    /// until these are decided; its other record is still measured, by the same executions.
    pub records: Vec<String>,
}

/// What a comparison produced.
#[derive(Debug)]
pub struct RunOutcome {
    pub report: Report,
    pub samples: SampleFile,
    pub samples_path: PathBuf,
}

/// One side's built bench executables, by package and target (two members of a workspace may
/// each have a target of the same name).
struct SideBuild {
    targets: BTreeMap<TargetKey, BuiltTarget>,
    /// Bench targets cargo did not build because they need features that are not enabled.
    needs_features: Vec<FeatureGatedBench>,
    /// Workspace members with bench targets that the build did not select.
    unselected: Vec<UnselectedPackage>,
    /// Bench targets left out of the build for a compile error (the others were built).
    not_compiled: Vec<UncompiledBench>,
    /// The revision's programs, when commands are compared.
    programs: Option<Programs>,
    /// The revision's checkout of the workspace (`{root}` of its commands).
    root: PathBuf,
    /// Commands whose set-up or inputs failed in this revision: they are `failed` here.
    command_failures: Vec<(String, FailureRecord)>,
}

/// A bench executable with the environment `cargo bench` would give it, computed once (it reads
/// the package's manifests) and reused by discovery and every fork.
struct BuiltTarget {
    exe: BenchExecutable,
    env: Vec<(OsString, OsString)>,
    /// Its harness and the command line its forks speak, learnt when its benchmarks are listed
    /// (a cell: in an A/A comparison both sides share one build).
    harness: Cell<Harness>,
}

/// Runs a whole comparison.
pub fn run(request: &RunRequest, progress: &mut Progress) -> Result<RunOutcome> {
    with_selected_benchmarks(request, None, progress, measure_selected)
}

/// Runs a whole comparison for a caller that holds the workspace's run lock already
/// ([`lock_workspace`]): a bisection holds it from its first step to its last.
pub fn run_locked(
    request: &RunRequest,
    lock: &worktree::RunLock,
    progress: &mut Progress,
) -> Result<RunOutcome> {
    with_selected_benchmarks(request, Some(lock), progress, measure_selected)
}

/// The run lock of `workspace_root`'s state directory ([`state_dir`]), taken now or refused
/// with one line when another run holds it. [`run`] and [`list`] take it themselves; a caller
/// that runs several comparisons as one operation takes it once and passes it to
/// [`run_locked`] and [`list_locked`].
pub fn lock_workspace(workspace_root: &Path) -> Result<worktree::RunLock> {
    let target_dir = build::target_directory(workspace_root)?;
    let perfdiff_dir = state_dir(&target_dir, workspace_root);
    std::fs::create_dir_all(&perfdiff_dir).map_err(|e| Error::io(&perfdiff_dir, e))?;
    Ok(worktree::lock_run(&perfdiff_dir, Duration::ZERO)?)
}

/// Checks out and builds both revisions and returns the benchmarks a comparison would measure
/// (matched across the revisions, filtered, ignored ones dropped, this shard's share) and what
/// was skipped, measuring nothing: `--list`.
pub fn list(request: &RunRequest, progress: &mut Progress) -> Result<Listed> {
    list_with(request, None, progress)
}

/// [`list`] for a caller that holds the workspace's run lock ([`lock_workspace`]).
pub fn list_locked(
    request: &RunRequest,
    lock: &worktree::RunLock,
    progress: &mut Progress,
) -> Result<Listed> {
    list_with(request, Some(lock), progress)
}

fn list_with(
    request: &RunRequest,
    lock: Option<&worktree::RunLock>,
    progress: &mut Progress,
) -> Result<Listed> {
    with_selected_benchmarks(request, lock, progress, |selected, _| {
        let unannounced = selected.skipped[selected.announced..].to_vec();
        Ok(Listed {
            matched: selected.matched,
            skipped: sorted_once(selected.skipped),
            unannounced: sorted_once(unannounced),
        })
    })
}

/// What `--list` shows: the benchmarks a comparison would measure and the bench targets it would
/// skip.
pub struct Listed {
    pub matched: Vec<Matched>,
    pub skipped: Vec<SkippedTarget>,
    /// The skipped targets no note has named yet (those cargo left out were named as the builds
    /// ended; those discovery skipped were not).
    pub unannounced: Vec<SkippedTarget>,
}

/// What measuring `matched` would take at `settings`: the benchmarks present in both revisions,
/// from their first round (what `--list` tells before a run).
pub fn plan(matched: &[Matched], settings: &Settings) -> Plan {
    let measured = matched.iter().filter(|m| m.presence == Presence::Both);
    Plan::new(&settings.into(), &vec![0; measured.count()])
}

/// A comparison up to its measuring: both revisions built, their benchmarks listed and matched.
struct Selected<'a> {
    request: &'a RunRequest,
    started: Instant,
    comparison: &'a revisions::Comparison,
    perfdiff_dir: &'a Path,
    seed: u64,
    resumed: Option<SampleFile>,
    base: &'a SideBuild,
    head: &'a SideBuild,
    matched: Vec<Matched>,
    skipped: Vec<SkippedTarget>,
    /// How many of `skipped`, from the first, a note has already named.
    announced: usize,
    /// Bench targets whose listing failed on one side, by side: their benchmarks are `failed`
    /// there.
    failed_listings: Vec<(Side, TargetKey, FailureRecord)>,
}

/// Resolves, checks out, builds and discovers, then hands the selection to `then` while the run
/// lock is still held: the one `held` by the caller when it is this workspace's, else its own.
fn with_selected_benchmarks<T>(
    request: &RunRequest,
    held: Option<&worktree::RunLock>,
    progress: &mut Progress,
    then: impl FnOnce(Selected<'_>, &mut Progress) -> Result<T>,
) -> Result<T> {
    let started = Instant::now();
    let opened = Opened::open(request, held)?;
    let comparison = &opened.comparison;
    let (resumed, seed) = resumed_and_seed(request, comparison)?;
    progress.note(&format!(
        "comparing {} (base) with {} (head)",
        comparison.base.label(),
        comparison.head.label()
    ));
    let (base_build, head_build) = build_sides(request, &opened, progress)?;
    let head_build = head_build.as_ref().unwrap_or(&base_build);
    let sides = (&base_build, head_build);
    let Selection {
        matched,
        skipped,
        announced,
        failed_listings,
    } = select_and_discover(request, comparison, sides, progress)?;
    let selected = Selected {
        request,
        started,
        comparison,
        perfdiff_dir: &opened.perfdiff_dir,
        seed,
        resumed,
        base: &base_build,
        head: head_build,
        matched,
        skipped,
        announced,
        failed_listings,
    };
    then(selected, progress)
}

/// A comparison resolved in its repository, with the run's state directory locked.
struct Opened {
    repo: git2::Repository,
    comparison: revisions::Comparison,
    untracked: UntrackedCopies,
    /// The workspace root, relative to the repository root.
    workspace_rel: PathBuf,
    /// The workspace's cargo target directory.
    target_dir: PathBuf,
    perfdiff_dir: PathBuf,
    /// The run lock taken here, when the caller held none of this workspace's.
    _own_lock: Option<worktree::RunLock>,
}

impl Opened {
    fn open(request: &RunRequest, held: Option<&worktree::RunLock>) -> Result<Opened> {
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

/// The samples file a resumed run continues, and the run's seed: the settings', the resumed
/// file's, or a fresh one.
fn resumed_and_seed(
    request: &RunRequest,
    comparison: &revisions::Comparison,
) -> Result<(Option<SampleFile>, u64)> {
    let resumed = match &request.resume {
        Some(path) => Some(load_resumable(path, &comparison.base, &comparison.head)?),
        None => None,
    };
    let seed = request
        .settings
        .seed
        .or(resumed.as_ref().and_then(|f| f.run.seed))
        .unwrap_or_else(schedule::fresh_seed);
    Ok((resumed, seed))
}

/// Checks out and builds both sides in their worktree slots; `None` for head when base's build
/// serves it too.
fn build_sides(
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
    let shared_target = opened.target_dir.join("perfdiff").join("target");
    let options = BuildOptions {
        // Round r runs layout r mod layouts: more layouts than rounds would never run.
        layouts: settings
            .layouts
            .min(StopPolicy::from_settings(settings).max_rounds()),
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

/// What a run measures, and what it leaves out and why.
struct Selection {
    matched: Vec<Matched>,
    skipped: Vec<SkippedTarget>,
    /// How many of `skipped`, from the first, a note has already named.
    announced: usize,
    failed_listings: Vec<(Side, TargetKey, FailureRecord)>,
}

/// Says which bench targets the builds left out, lists the benchmarks of both sides and selects
/// those the run measures (filters, ignore list, shard, commands).
fn select_and_discover(
    request: &RunRequest,
    comparison: &revisions::Comparison,
    (base_build, head_build): (&SideBuild, &SideBuild),
    progress: &mut Progress,
) -> Result<Selection> {
    let settings = &request.settings;
    let needs_features = both_sides(&base_build.needs_features, &head_build.needs_features);
    let several = several_packages(base_build, head_build);
    let labels = [comparison.base.label(), comparison.head.label()];
    let (left_out, mut skipped) = announce_left_out(
        comparison,
        (base_build, head_build),
        &needs_features,
        progress,
    );
    let announced = skipped.len();
    let unselected = both_sides(&base_build.unselected, &head_build.unselected);
    // Listing runs every benchmark's set-up code, as a fork does: it gets a fork's time.
    let list_timeout = fork_timeout(&request.settings);
    let discover = |side: &SideBuild, skipped: &mut Vec<SkippedTarget>| {
        discover_side(side, &left_out, list_timeout, skipped, progress)
    };
    let settled = discover::settle_failed_listings(
        discover(base_build, &mut skipped)?,
        discover(head_build, &mut skipped)?,
    );
    let failed_listings = failed_listings(&settled, &labels, several, progress);
    let (base_lists, head_lists) = set_apart_unlisted(settled, &labels, &mut skipped)?;
    let mut matched = select_benchmarks(
        &base_lists,
        &head_lists,
        &command_entries(&settings.commands),
        settings,
        request.shard,
        &NothingFound {
            needs_features: &needs_features,
            skipped: &skipped,
            unselected: &unselected,
            workspace_root: &request.workspace_root,
            start_dir: &request.start_dir,
        },
    )?;
    for m in &mut matched {
        m.harness = harness_of(base_build, head_build, m)
            .map(Harness::kind)
            .or(m.harness);
    }
    if !unselected.is_empty() {
        progress.note(&unselected_members(&unselected));
    }
    Ok(Selection {
        matched,
        skipped,
        announced,
        failed_listings,
    })
}

/// Notes, once per target, the bench targets that need features or did not compile (and the
/// nightly command for `#[bench]` targets); returns the targets left out and their skip records.
fn announce_left_out(
    comparison: &revisions::Comparison,
    (base_build, head_build): (&SideBuild, &SideBuild),
    needs_features: &[FeatureGatedBench],
    progress: &mut Progress,
) -> (Vec<TargetKey>, Vec<SkippedTarget>) {
    let several = several_packages(base_build, head_build);
    let mut skipped: Vec<SkippedTarget> = needs_features.iter().map(skipped_for_features).collect();
    // Once per target, not once per side.
    for gated in &skipped {
        progress.note(&format!(
            "bench target {} {}",
            gated.label(several),
            gated.reason
        ));
    }
    let labels = [comparison.base.label(), comparison.head.label()];
    let not_compiled = not_compiled(base_build, head_build, &labels);
    for (key, uncompiled) in &not_compiled {
        progress.note(&format!(
            "bench target {} {}",
            key.label(several),
            uncompiled.reason
        ));
    }
    if let Some(note) = nightly_command(base_build, head_build, comparison, several) {
        progress.note(&note);
    }
    let (left_out, not_compiled): (Vec<TargetKey>, Vec<SkippedTarget>) =
        not_compiled.into_iter().unzip();
    skipped.extend(not_compiled);
    (left_out, skipped)
}

/// The harness of `matched`'s bench target: head's, or base's when head lacks it; `None` when
/// neither side built it.
fn harness_of(base: &SideBuild, head: &SideBuild, matched: &Matched) -> Option<Harness> {
    let of = |build: &SideBuild, key: &Option<TargetKey>| {
        key.as_ref()
            .and_then(|key| build.targets.get(key))
            .map(|built| built.harness.get())
    };
    of(head, &matched.head_target).or_else(|| of(base, &matched.base_target))
}

/// Measures the selected benchmarks, saving the samples after every fork, and analyses them.
fn measure_selected(selected: Selected<'_>, progress: &mut Progress) -> Result<RunOutcome> {
    let Selected {
        request,
        started,
        comparison,
        perfdiff_dir,
        seed,
        resumed,
        base: base_build,
        head: head_build,
        matched,
        skipped,
        failed_listings,
        announced: _,
    } = selected;
    let settings = &request.settings;
    let samples_path = match (&request.resume, &request.samples_path) {
        (Some(path), _) => path.clone(),
        (None, Some(path)) => path.clone(),
        (None, None) => default_samples_path(perfdiff_dir, &comparison.base, &comparison.head),
    };
    progress.note(&format!(
        "samples are saved after every fork to {}",
        samples_path.display()
    ));
    let mut file = resumed.unwrap_or_else(|| {
        SampleFile::new(run_info(
            &comparison.base,
            &comparison.head,
            settings,
            seed,
            request.shard,
        ))
    });
    for m in &matched {
        let record = file.benchmark_mut(&m.id, m.presence);
        record.target = m.target().map(|key| key.target.clone());
        record.package = m.target().map(|key| key.package.clone());
        record.criterion_id = (m.criterion_id != m.id).then(|| m.criterion_id.clone());
        record.harness = m.harness;
        if m.harness == Some(HarnessKind::Command) {
            register_command(&mut file, m, base_build, head_build);
            continue;
        }
        for (side, target, failure) in &failed_listings {
            let (side_target, side_record) = match side {
                Side::Base => (&m.base_target, &mut record.base),
                Side::Head => (&m.head_target, &mut record.head),
            };
            if side_target.as_ref() == Some(target) && side_record.failure.is_none() {
                side_record.failure = Some(failure.clone());
            }
        }
    }
    file.skipped_targets = sorted_once(skipped);
    file.save(&samples_path)?;

    let context = MeasureContext {
        settings,
        seed,
        perfdiff_dir,
        base: base_build,
        head: head_build,
        matched: &matched,
        followed: request.focus.as_ref().map(|f| f.records.as_slice()),
        samples_path: &samples_path,
        started,
        measuring_since: Instant::now(),
        linked_layouts: RefCell::default(),
    };
    rounds::measure(&context, &mut file, progress)?;

    let report = analyse_samples(&file, settings, Some(&samples_path));
    Ok(RunOutcome {
        report,
        samples: file,
        samples_path,
    })
}

/// Analyses a samples file with the settings the verdicts must use (per-look alpha under
/// `--stop decided`).
pub fn analyse_samples(
    file: &SampleFile,
    settings: &Settings,
    samples_path: Option<&Path>,
) -> Report {
    let analysis_settings = StopPolicy::from_settings(settings).analysis_settings(&settings.into());
    let seed = settings.seed.or(file.run.seed).unwrap_or(0);
    let mut report = analysis::analyse(file, &analysis_settings, seed);
    report.samples_file = samples_path.map(|p| p.display().to_string());
    report
}

/// The settings a samples file was recorded with (defaults for anything missing).
pub fn recorded_settings(file: &SampleFile) -> Settings {
    let mut settings: Settings = file
        .run
        .settings
        .clone()
        .and_then(|value| serde_json::from_value(value).ok())
        .unwrap_or_default();
    if settings.seed.is_none() {
        settings.seed = file.run.seed;
    }
    settings
}

/// Loads several samples files (shards of one run) into one. Benchmarks must not repeat.
pub fn merge_sample_files(paths: &[PathBuf]) -> Result<SampleFile> {
    let mut merged: Option<SampleFile> = None;
    let mut origin: BTreeMap<String, PathBuf> = BTreeMap::new();
    for path in paths {
        let file = SampleFile::load(path)?;
        for bench in &file.benchmarks {
            if let Some(first) = origin.insert(bench.id.clone(), path.clone()) {
                return Err(Error::Usage(format!(
                    "benchmark {:?} is in both {} and {}: merge shards of one run, not repeated runs",
                    bench.id,
                    first.display(),
                    path.display()
                )));
            }
        }
        match &mut merged {
            None => merged = Some(file),
            Some(all) => {
                if all.run.mode != file.run.mode {
                    return Err(Error::Usage(format!(
                        "{} was measured in {} mode but {} in {} mode",
                        paths[0].display(),
                        all.run.mode,
                        path.display(),
                        file.run.mode
                    )));
                }
                all.benchmarks.extend(file.benchmarks);
                all.skipped_targets.extend(file.skipped_targets);
            }
        }
    }
    let mut merged = merged.ok_or_else(|| Error::Usage("no samples file given".to_string()))?;
    merged.skipped_targets = sorted_once(std::mem::take(&mut merged.skipped_targets));
    if paths.len() > 1 {
        // One shard's timings say nothing about the whole (the shards ran in parallel).
        merged.run.shard = None;
        merged.run.wall_ms = None;
        merged.run.measure_ms = None;
    }
    Ok(merged)
}

/// Where this workspace's state lives (worktrees, executables, runs, the lock):
/// `<target>/perfdiff`, or `<target>/perfdiff/ws-<name>-<hash>` when the target directory lies
/// outside the workspace (a CARGO_TARGET_DIR shared by several projects must not mix their
/// worktrees).
pub fn state_dir(target_dir: &Path, workspace_root: &Path) -> PathBuf {
    let base = target_dir.join("perfdiff");
    let workspace = workspace_root
        .canonicalize()
        .unwrap_or_else(|_| workspace_root.to_path_buf());
    let target = target_dir
        .canonicalize()
        .unwrap_or_else(|_| target_dir.to_path_buf());
    if target.starts_with(&workspace) {
        return base;
    }
    let name: String = workspace
        .file_name()
        .map(|n| {
            n.to_string_lossy()
                .chars()
                .filter(|c| c.is_alphanumeric() || *c == '-' || *c == '_')
                .collect()
        })
        .unwrap_or_default();
    let hash = workspace
        .to_string_lossy()
        .bytes()
        .fold(0xCBF2_9CE4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01B3)
        });
    base.join(format!("ws-{name}-{:08x}", hash as u32))
}

fn relative_workspace(repo_root: &Path, workspace_root: &Path) -> Result<PathBuf> {
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
fn selected_commands(settings: &Settings, shard: Option<Shard>) -> Vec<CommandSpec> {
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
fn filters_name_only_commands(settings: &Settings) -> bool {
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
struct Builder<'a> {
    repo: &'a git2::Repository,
    perfdiff_dir: &'a Path,
    shared_target: &'a Path,
    workspace_rel: &'a Path,
    options: &'a BuildOptions,
    untracked: &'a UntrackedCopies,
    /// The commands measured: their programs are built when there is one.
    commands: &'a [CommandSpec],
    /// Build no bench target.
    commands_only: bool,
    /// The bench targets needed, when fewer than the options select ([`Focus::bench_targets`]).
    bench_targets: Option<&'a [TargetKey]>,
    profile: &'a str,
}

impl Builder<'_> {
    /// Checks out and builds one side (`side`, "base" or "head") in worktree slot `slot`.
    fn prepare(
        &self,
        side: &str,
        slot: &str,
        revision: &Revision,
        progress: &mut Progress,
    ) -> Result<SideBuild> {
        let label = format!("{side} {}", revision.label());
        let checkout = self.check_out(slot, revision, &label, progress)?;
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
        let command_failures = match &programs {
            Some(programs) => {
                prepare::prepare_side(self.commands, programs, &root, &label, progress)
            }
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
        })
    }

    /// Checks `revision` out in worktree slot `slot` and copies the untracked files asked for
    /// into it; returns the checkout.
    fn check_out(
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
    fn build_benches(
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
    fn build_programs(
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
    fn built_targets(&self, executables: Vec<BenchExecutable>) -> BTreeMap<TargetKey, BuiltTarget> {
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
struct BuildLog {
    needs_features: Vec<FeatureGatedBench>,
    unselected: Vec<UnselectedPackage>,
    not_compiled: Vec<UncompiledBench>,
    compiled: usize,
}

impl BuildLog {
    /// Takes in one event of `label`'s build, showing progress.
    fn hear(&mut self, event: BuildEvent, label: &str, layouts: usize, progress: &mut Progress) {
        match event {
            BuildEvent::Compiling(name) => {
                self.compiled += 1;
                progress.step_message(&format!("building {label}: {name}"))
            }
            BuildEvent::Message(text) => progress.detail(text),
            BuildEvent::Finished => {}
            BuildEvent::NeedsFeatures(gated) => self.needs_features.push(gated.clone()),
            BuildEvent::NotSelected(package) => self.unselected.push(package.clone()),
            BuildEvent::Relinking { target } => progress.step_message(&format!(
                "building {label}: {target} for its {layouts} code layouts"
            )),
            BuildEvent::LayoutsUnavailable { target, reason } => progress.note(&format!(
                "bench target {target} of {label} is measured in cargo's build alone: relinking \
                 it in another code layout failed ({reason})"
            )),
            BuildEvent::NotCompiled(target) => self.not_compiled.push(target.clone()),
        }
    }

    /// `built base abc123: 3 bench target(s), 1 left out (need nightly), 2 program(s), up to date`.
    fn summary(&self, label: &str, executables: usize, programs: Option<&Programs>) -> String {
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
fn one_build_serves_both(base: &Revision, head: &Revision) -> bool {
    base == head && !base.working_tree
}

/// The two worktree slots, each a checkout that a later run reuses (`worktree::materialise`).
const SLOTS: [&str; 2] = ["base", "head"];

/// Which slot each side is checked out and built in, `[base's, head's]`, given the commit each
/// slot holds (`held`, in the order of [`SLOTS`]). Normally base in "base" and head in "head"; but
/// when a side's commit already sits in the other slot and neither side's commit sits in its own,
/// the sides swap slots, so that comparing A..B and then B..C, or calibrating HEAD after
/// HEAD~1..HEAD, finds B (HEAD) built and compiles only what the other side changes. When both
/// sides are one commit, base takes the slot that holds it.
fn assign_slots(base: &Revision, head: &Revision, held: &[Option<String>; 2]) -> [&'static str; 2] {
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
fn bin_dir_name(slot: &str, revision: &Revision) -> String {
    match (&revision.commit, revision.working_tree) {
        (_, true) => format!("working-tree-{slot}"),
        (Some(commit), false) => commit.clone(),
        (None, false) => format!("unknown-{slot}"),
    }
}

/// Whether the two sides' bench targets (built or gated by features) come from more than one
/// package: messages then name each target's package.
fn several_packages(base: &SideBuild, head: &SideBuild) -> bool {
    let packages = [base, head].into_iter().flat_map(|side| {
        let built = side.targets.keys().map(|key| key.package.as_str());
        let gated = side.needs_features.iter().map(|g| g.package.as_str());
        let not_compiled = side.not_compiled.iter().map(|u| u.package.as_str());
        built.chain(gated).chain(not_compiled)
    });
    analysis::distinct_more_than_one(packages)
}

/// What either side's build reported, sorted, each once.
fn both_sides<T: Ord + Clone>(base: &[T], head: &[T]) -> Vec<T> {
    sorted_once(base.iter().chain(head).cloned().collect())
}

/// `items` sorted, each once.
fn sorted_once<T: Ord>(mut items: Vec<T>) -> Vec<T> {
    items.sort();
    items.dedup();
    items
}

/// Removes the bench executables kept for commits other than `keep` (this run's two sides)
/// from `bin`: each build copies a commit's executables there (hundreds of megabytes for a
/// large suite), and nothing reads them after their run, so a developer comparing each new
/// commit would otherwise fill the disk. Runs hold the lock, so no other run is using them.
/// A directory that cannot be removed is left, with a line in the verbose log.
fn remove_other_executables(bin: &Path, keep: &[String], progress: &Progress) {
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

/// How a bench target cargo skipped for its `required-features` appears in the report.
fn skipped_for_features(gated: &FeatureGatedBench) -> SkippedTarget {
    SkippedTarget {
        package: Some(gated.package.clone()),
        target: gated.target.clone(),
        reason: format!(
            "not built: it requires the feature(s) `{}` of {}, which are not enabled (pass `{}`)",
            gated.required_features.join("`, `"),
            gated.package,
            gated.suggestion
        ),
    }
}

/// The bench targets a compile error left out of either side's build, each skipped once with
/// why, naming the revision(s). A target that one side could not build is not compared at all:
/// the other side's benchmarks alone would read as removed or added.
fn not_compiled(
    base: &SideBuild,
    head: &SideBuild,
    labels: &[String; 2],
) -> Vec<(TargetKey, SkippedTarget)> {
    let keys = sorted_once(
        base.not_compiled
            .iter()
            .chain(&head.not_compiled)
            .map(|u| TargetKey::new(&u.package, &u.target))
            .collect(),
    );
    keys.into_iter()
        .map(|key| {
            let on = |side: &SideBuild| {
                side.not_compiled
                    .iter()
                    .find(|u| u.package == key.package && u.target == key.target)
                    .cloned()
            };
            let reason = not_compiled_reason(on(base), on(head), labels);
            let skipped = SkippedTarget {
                package: Some(key.package.clone()),
                target: key.target.clone(),
                reason,
            };
            (key, skipped)
        })
        .collect()
}

/// When bench targets were left out because the toolchain is not nightly (libtest's `#[bench]`),
/// the command that compares them: the same revisions with `cargo +nightly`, those targets only.
fn nightly_command(
    base: &SideBuild,
    head: &SideBuild,
    comparison: &revisions::Comparison,
    several_packages: bool,
) -> Option<String> {
    let keys = sorted_once(
        base.not_compiled
            .iter()
            .chain(&head.not_compiled)
            .filter(|u| u.needs_nightly())
            .map(|u| TargetKey::new(&u.package, &u.target))
            .collect(),
    );
    if keys.is_empty() {
        return None;
    }
    let mut command = vec!["cargo".to_string(), "+nightly".into(), "perfdiff".into()];
    command.extend(revision_arguments(comparison));
    if several_packages {
        for package in sorted_once(keys.iter().map(|k| k.package.clone()).collect()) {
            command.extend(["-p".to_string(), package]);
        }
    }
    for target in sorted_once(keys.iter().map(|k| k.target.clone()).collect()) {
        command.extend(["--bench".to_string(), target]);
    }
    let labels: Vec<String> = keys.iter().map(|k| k.label(several_packages)).collect();
    Some(format!(
        "{} bench target(s) need a nightly toolchain ({}); compare them with `{}`",
        keys.len(),
        labels.join(", "),
        command
            .iter()
            .map(|word| crate::util::shell::quote_for_shell(word))
            .collect::<Vec<_>>()
            .join(" ")
    ))
}

/// The revision arguments that select `comparison` again: none for HEAD against the working
/// tree, `REV` for REV against the working tree, `A...B` for a merge base, else both.
fn revision_arguments(comparison: &revisions::Comparison) -> Vec<String> {
    if comparison.base.spec.contains("...") {
        return vec![comparison.base.spec.clone()];
    }
    match (comparison.base.working_tree, comparison.head.working_tree) {
        (false, true) if comparison.base.spec == "HEAD" => Vec::new(),
        (false, true) => vec![comparison.base.spec.clone()],
        _ => vec![comparison.base.spec.clone(), comparison.head.spec.clone()],
    }
}

/// Why a target is skipped when it was not compiled in `base`, `head` or both.
fn not_compiled_reason(
    base: Option<UncompiledBench>,
    head: Option<UncompiledBench>,
    labels: &[String; 2],
) -> String {
    let [base_label, head_label] = [Side::Base, Side::Head].map(|side| side_label(side, labels));
    match (base, head) {
        (Some(base), Some(head)) if base.why == head.why => base.reason_in("both revisions"),
        (Some(base), Some(head)) => format!(
            "{}; {}",
            base.reason_in(&base_label),
            head.reason_in(&head_label)
        ),
        (Some(base), None) => format!(
            "{}; its benchmarks in {head_label} are not compared",
            base.reason_in(&base_label)
        ),
        (None, Some(head)) => format!(
            "{}; its benchmarks in {base_label} are not compared",
            head.reason_in(&head_label)
        ),
        (None, None) => String::new(),
    }
}

/// Lists the benchmarks of every target of one side but those `left_out` (skipped
/// already); other harnesses are skipped, and a target whose listing fails is kept apart for
/// [`discover::settle_failed_listings`].
fn discover_side(
    side: &SideBuild,
    left_out: &[TargetKey],
    timeout: Duration,
    skipped: &mut Vec<SkippedTarget>,
    progress: &Progress,
) -> Result<SideListings> {
    let mut listings = SideListings::default();
    let listed = side
        .targets
        .iter()
        .filter(|(key, _)| !left_out.contains(key));
    for (key, built) in listed {
        let BuiltTarget { exe, env, .. } = built;
        let skip = |reason: String| SkippedTarget {
            package: Some(key.package.clone()),
            target: key.target.clone(),
            reason,
        };
        match discover::classify(exe)? {
            Classified::Runs(kind) => {
                let listing = match discover::list_benchmarks(kind, exe, env, timeout) {
                    Ok(listing) => listing,
                    Err(error) => {
                        listings.failed.push(FailedListing {
                            target: key.clone(),
                            error,
                        });
                        continue;
                    }
                };
                // A second listing that fails says nothing about the ids: keep them all. A
                // `bencher` listing reads the source, which says the same every time.
                let again = match kind {
                    HarnessKind::Bencher => Ok(listing.clone()),
                    _ => discover::list_benchmarks(kind, exe, env, timeout),
                };
                let (ids, unstable) = match again {
                    Ok(again) => discover::split_unstable(listing.ids, &again.ids),
                    Err(_) => (listing.ids, Vec::new()),
                };
                if !unstable.is_empty() {
                    skipped.push(skip(unstable_ids_reason(&unstable)));
                }
                let (ids, repeated) = match kind {
                    HarnessKind::Criterion => discover::split_repeated_ids(ids),
                    _ => (ids, Vec::new()),
                };
                if !repeated.is_empty() {
                    skipped.push(skip(repeated_ids_reason(&repeated)));
                }
                built.harness.set(listing.harness);
                listings.lists.push((key.clone(), ids));
            }
            Classified::Skipped { reason } => {
                progress.detail(&format!(
                    "skipping bench target {} of package {}: {reason}",
                    key.target, key.package
                ));
                skipped.push(skip(reason));
            }
        }
    }
    Ok(listings)
}

/// The failure each benchmark of a target whose listing failed on one side is given there,
/// announced as a note.
fn failed_listings(
    settled: &Settled,
    labels: &[String; 2],
    several_packages: bool,
    progress: &Progress,
) -> Vec<(Side, TargetKey, FailureRecord)> {
    settled
        .failed_on_one_side
        .iter()
        .map(|&(side, ref failed)| {
            let message = format!(
                "listing the benchmarks of bench target `{}` failed: {}",
                failed.target.label(several_packages),
                failed.message()
            );
            progress.note(&format!(
                "{}: {message}; its benchmarks are reported failed",
                side_label(side, labels)
            ));
            let failure = FailureRecord {
                message,
                stderr_tail: failed.stderr_tail().to_string(),
            };
            (side, failed.target.clone(), failure)
        })
        .collect()
}

/// `base HEAD~1 (1a2b3c4)`: a side and its revision, from the revisions' `labels` (base, head).
fn side_label(side: Side, labels: &[String; 2]) -> String {
    let label = match side {
        Side::Base => &labels[0],
        Side::Head => &labels[1],
    };
    format!("{} {label}", side.as_str())
}

/// Sets apart the targets no revision could list: skipped, with why, when other targets have
/// benchmarks; the error, when none has.
fn set_apart_unlisted(
    settled: Settled,
    labels: &[String; 2],
    skipped: &mut Vec<SkippedTarget>,
) -> Result<(TargetLists, TargetLists)> {
    let Settled {
        base,
        head,
        unlisted,
        ..
    } = settled;
    let nothing_else = base.iter().chain(&head).all(|(_, ids)| ids.is_empty());
    let mut unlisted = unlisted.into_iter();
    if nothing_else && let Some((side, failed)) = unlisted.next() {
        return Err(unlisted_error(side, failed.error).into());
    }
    for (side, failed) in unlisted {
        let where_ = match side {
            None => "either revision".to_string(),
            Some(side) => side_label(side, labels),
        };
        let headline = failed
            .headline()
            .map(|h| format!(": {h}"))
            .unwrap_or_default();
        // A listing killed for its time had slow set-up code, not a file the checkouts lack.
        let hint = match side {
            None if !failed.killed() => format!(" ({NOT_IN_CHECKOUTS})"),
            _ => String::new(),
        };
        skipped.push(SkippedTarget {
            package: Some(failed.target.package.clone()),
            target: failed.target.target.clone(),
            reason: format!(
                "its benchmarks could not be listed in {where_}: {}{headline}{hint}",
                failed.message()
            ),
        });
    }
    Ok((base, head))
}

/// Why a listing that fails in both revisions may fail, and the remedy.
const NOT_IN_CHECKOUTS: &str = "each is a checkout of what git holds: a file the benchmarks \
     read that is not committed, or that git ignores, is missing there; `--copy-untracked PATH` \
     brings it along";

/// The error of a listing that failed with nothing else to compare. When it failed in both
/// revisions, the likeliest cause is something both checkouts lack that the user's has: a file
/// git does not track.
fn unlisted_error(side: Option<Side>, error: DiscoverError) -> DiscoverError {
    match (side, error) {
        (
            None,
            DiscoverError::List {
                executable,
                message,
                stderr_tail,
            },
        ) => DiscoverError::List {
            executable,
            message: format!("{message}, in both revisions ({NOT_IN_CHECKOUTS})"),
            stderr_tail,
        },
        (_, error) => error,
    }
}

/// Why benchmarks whose ids change from one process to the next are not measured, naming them
/// by what their ids keep ([`discover::split_unstable`]).
fn unstable_ids_reason(unstable: &[String]) -> String {
    format!(
        "only its benchmark(s) `{}`, whose ids change from one run of the executable to the next \
         (a time or a random value in the id): no fork can select them, and the revisions cannot \
         be matched; give them fixed ids to compare them",
        unstable.join("`, `")
    )
}

/// Why criterion's repeats of an id (`json #2`) are not measured ([`discover::split_repeated_ids`]).
fn repeated_ids_reason(repeated: &[String]) -> String {
    format!(
        "only its benchmark(s) `{}`: criterion lists a benchmark registered under an id already \
         taken with ` #N` added, but selects by the id without it, so no fork can measure it \
         alone; give it an id of its own to compare it",
        repeated.join("`, `")
    )
}

/// What the builds and discovery set aside, to say why no benchmark was found, and
/// where to look for packages of their own with bench targets.
struct NothingFound<'a> {
    needs_features: &'a [FeatureGatedBench],
    skipped: &'a [SkippedTarget],
    unselected: &'a [UnselectedPackage],
    workspace_root: &'a Path,
    start_dir: &'a Path,
}

/// Why no benchmark was found, for the error: a bench target gated by features is the
/// likeliest reason (say which and how); otherwise name the targets no harness runs; and
/// name the workspace members whose bench targets the build did not select (in a workspace
/// whose root is a package, cargo builds only the root's unless told `-p` or `--workspace`).
fn why_nothing_found(found: &NothingFound) -> String {
    if !found.needs_features.is_empty() {
        let gated: Vec<String> = found
            .needs_features
            .iter()
            .map(|g| format!("`{}` (pass `{}`)", g.target, g.suggestion))
            .collect();
        return format!(
            ": cargo did not build bench target(s) {} because they require features that are \
             not enabled",
            gated.join(", ")
        );
    }
    let reasons: Vec<String> = sorted_once(found.skipped.to_vec())
        .into_iter()
        .map(|s| s.reason)
        .collect();
    let why = if !reasons.is_empty() {
        format!(
            "; only benchmarks of criterion, divan, libtest `#[bench]` and `bencher` are \
             measured, and the bench targets are not: {}",
            reasons.join("; ")
        )
    } else if found.unselected.is_empty() {
        ": neither has a bench target".to_string()
    } else {
        ": the selected package(s) have no bench target".to_string()
    };
    let why = match found.unselected {
        [] => why,
        unselected => format!("{why}; {}", unselected_members(unselected)),
    };
    match build::compare_elsewhere(&packages_elsewhere(found)) {
        None => why,
        Some(hint) => format!("{why}; {hint}"),
    }
}

/// The manifests of [`build::bench_packages_elsewhere`] as the user would type them: relative
/// when run from the workspace root, else absolute.
fn packages_elsewhere(found: &NothingFound) -> Vec<String> {
    let canonical = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    let from_root = canonical(found.start_dir) == canonical(found.workspace_root);
    build::bench_packages_elsewhere(found.workspace_root)
        .into_iter()
        .map(|manifest| match from_root {
            true => manifest,
            false => found.workspace_root.join(manifest),
        })
        .map(|manifest| manifest.display().to_string())
        .collect()
}

/// `workspace member(s) not built have bench targets: `a` (a_bench): pass `-p a`, or
/// `--workspace` for all of them`.
fn unselected_members(unselected: &[UnselectedPackage]) -> String {
    let members: Vec<String> = unselected
        .iter()
        .map(|u| format!("`{}` ({})", u.package, u.bench_targets.join(", ")))
        .collect();
    format!(
        "workspace member(s) not built have bench targets: {}: pass `-p {}`, or `--workspace` \
         for all of them",
        members.join(", "),
        unselected[0].package
    )
}

/// Matches, filters, drops ignored ones and keeps this shard's share.
fn select_benchmarks(
    base: &[(TargetKey, Vec<String>)],
    head: &[(TargetKey, Vec<String>)],
    commands: &[Matched],
    settings: &Settings,
    shard: Option<Shard>,
    nothing_found: &NothingFound,
) -> Result<Vec<Matched>> {
    let mut all = discover::match_benchmarks(base, head);
    all.extend(commands.iter().cloned());
    if all.is_empty() {
        return Err(Error::NothingToRun(format!(
            "no benchmarks found in either revision{}",
            why_nothing_found(nothing_found)
        )));
    }
    let found: Vec<String> = all.iter().map(|m| m.id.clone()).collect();
    let filter = Filter::new(&settings.filters);
    let selected: Vec<Matched> = all
        .into_iter()
        .filter(|m| {
            // A command is selected by its name or by its memory record's id.
            let memory = is_command(m) && filter.matches(&command::memory_id(&m.id));
            (m.selected_by(&filter) || memory)
                && !settings.is_ignored(&m.id)
                && !settings.is_ignored(&m.criterion_id)
        })
        .filter(|m| shard.is_none_or(|s| s.contains(&m.id)))
        .collect();
    if selected.is_empty() {
        return Err(Error::NothingToRun(format!(
            "no benchmark matches the filter {:?}{}; {}",
            settings.filters,
            shard.map(|s| format!(" in shard {s}")).unwrap_or_default(),
            benchmarks_found(&found)
        )));
    }
    Ok(selected)
}

/// The commands, as benchmarks of both revisions (one entry each: its time; the memory record is
/// its companion, [`command::memory_id`]).
fn command_entries(commands: &[CommandSpec]) -> Vec<Matched> {
    commands
        .iter()
        .map(|c| Matched {
            id: c.name.clone(),
            criterion_id: c.name.clone(),
            base_target: None,
            head_target: None,
            presence: Presence::Both,
            harness: Some(HarnessKind::Command),
        })
        .collect()
}

/// The benchmarks there are, for an error whose filter matched none: the ids to write a filter
/// from (or the sign that `--bench` chose another target), the first [`IDS_SHOWN`] of them.
fn benchmarks_found(ids: &[String]) -> String {
    const IDS_SHOWN: usize = 8;
    let shown = ids.iter().take(IDS_SHOWN).cloned().collect::<Vec<_>>();
    let more = ids.len().saturating_sub(IDS_SHOWN);
    let tail = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    format!(
        "the {} benchmark(s) found are {}{tail}",
        ids.len(),
        shown.join(", ")
    )
}

fn run_info(
    base: &Revision,
    head: &Revision,
    settings: &Settings,
    seed: u64,
    shard: Option<Shard>,
) -> RunInfo {
    RunInfo {
        base: Some(revision_info(base)),
        head: Some(revision_info(head)),
        mode: settings.mode,
        seed: Some(seed),
        settings: serde_json::to_value(settings).ok(),
        tool_version: Some(env!("CARGO_PKG_VERSION").to_string()),
        started_unix_ms: Some(unix_ms()),
        shard: shard.map(|s| s.to_string()),
        wall_ms: Some(0),
        measure_ms: Some(0),
    }
}

fn revision_info(revision: &Revision) -> RevisionInfo {
    RevisionInfo {
        spec: revision.spec.clone(),
        commit: revision.commit.clone(),
        dirty: revision.working_tree,
    }
}

/// A samples file to resume must be of the same two commits.
fn load_resumable(path: &Path, base: &Revision, head: &Revision) -> Result<SampleFile> {
    let mut file = SampleFile::load(path)?;
    let same = |recorded: &Option<RevisionInfo>, rev: &Revision| {
        recorded
            .as_ref()
            .is_some_and(|r| r.commit == rev.commit && !r.dirty && !rev.working_tree)
    };
    if !(same(&file.run.base, base) && same(&file.run.head, head)) {
        return Err(Error::Usage(format!(
            "{} records a different comparison (or a working tree, which cannot be resumed); \
             resume with the same two committed revisions",
            path.display()
        )));
    }
    for bench in &mut file.benchmarks {
        // An interrupted round may have measured one side only: drop its unpaired fork.
        bench.truncate_to_rounds(bench.completed_rounds());
    }
    Ok(file)
}

fn default_samples_path(perfdiff_dir: &Path, base: &Revision, head: &Revision) -> PathBuf {
    let short = |r: &Revision| match (&r.commit, r.working_tree) {
        (_, true) => "worktree".to_string(),
        (Some(c), false) => c.chars().take(9).collect(),
        (None, false) => "unknown".to_string(),
    };
    perfdiff_dir.join("runs").join(format!(
        "{}-{}-{}.json",
        utc_timestamp(),
        short(base),
        short(head)
    ))
}

fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// `YYYYMMDD-HHMMSS` in UTC (civil-from-days, Howard Hinnant's algorithm).
fn utc_timestamp() -> String {
    let secs = unix_ms() / 1000;
    let (days, rem) = ((secs / 86_400) as i64, secs % 86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}{month:02}{day:02}-{:02}{:02}{:02}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// What the measurement loop needs.
struct MeasureContext<'a> {
    settings: &'a Settings,
    seed: u64,
    perfdiff_dir: &'a Path,
    base: &'a SideBuild,
    head: &'a SideBuild,
    matched: &'a [Matched],
    /// The records the caller reads ([`Focus::records`]); `None`: all.
    followed: Option<&'a [String]>,
    samples_path: &'a Path,
    started: Instant,
    measuring_since: Instant,
    /// The layouts a side's target (`None`: its programs) has, where linking one failed: its
    /// rounds go through those alone.
    linked_layouts: RefCell<BTreeMap<(Side, Option<TargetKey>), usize>>,
}

impl MeasureContext<'_> {
    fn side(&self, side: Side) -> &SideBuild {
        match side {
            Side::Base => self.base,
            Side::Head => self.head,
        }
    }

    fn built(&self, side: Side, matched: &Matched) -> &BuiltTarget {
        let (build, target) = match side {
            Side::Base => (self.base, matched.base_target.as_ref()),
            Side::Head => (self.head, matched.head_target.as_ref()),
        };
        target
            .and_then(|target| build.targets.get(target))
            .expect("measured benchmarks are present on both sides")
    }

    /// The layout both sides of `matched` run in `round`: the rounds go through the layouts both
    /// sides have, in turn, so each layout index is measured as often on either side.
    fn layout(&self, matched: &Matched, round: usize) -> Layout {
        let layouts = |side: Side| {
            let prepared = match is_command(matched) {
                true => self
                    .side(side)
                    .programs
                    .as_ref()
                    .map_or(1, |p| p.layout_dirs.len()),
                false => self.built(side, matched).exe.layouts.len() + 1,
            };
            let linked = self.linked_layouts.borrow();
            let linked = linked.get(&(side, self.target_of(side, matched)));
            linked.map_or(prepared, |&linked| prepared.min(linked))
        };
        let count = [Side::Base, Side::Head]
            .map(layouts)
            .into_iter()
            .min()
            .unwrap_or(1);
        Layout {
            index: round % count,
            count,
        }
    }

    /// The target of `matched` on `side`, or `None` for a command (the side's programs).
    fn target_of(&self, side: Side, matched: &Matched) -> Option<TargetKey> {
        match (is_command(matched), side) {
            (true, _) => None,
            (false, Side::Base) => matched.base_target.clone(),
            (false, Side::Head) => matched.head_target.clone(),
        }
    }

    /// [`Self::layout`], with the executables of that layout linked on both sides if no round
    /// needed them before. A side whose layout cannot be linked keeps the layouts it has (the
    /// rounds go through those alone), and the run says so.
    fn linked_layout(&self, matched: &Matched, round: usize, progress: &Progress) -> Layout {
        loop {
            let layout = self.layout(matched, round);
            let failed = [Side::Base, Side::Head].into_iter().find_map(|side| {
                let linked = self.link_layout(side, matched, layout.index, progress);
                linked.err().map(|reason| (side, reason))
            });
            let Some((side, reason)) = failed else {
                return layout;
            };
            let what = match self.target_of(side, matched) {
                Some(target) => format!("bench target {}", target.target),
                None => "the programs".to_string(),
            };
            progress.note(&format!(
                "{what} of {} {} measured in its first {} code layout(s) from now on: linking \
                 layout {} failed ({reason})",
                side.as_str(),
                if what.starts_with("the") { "are" } else { "is" },
                layout.index,
                layout.index
            ));
            // Both sides run the layouts the side with fewer has.
            self.linked_layouts
                .borrow_mut()
                .insert((side, self.target_of(side, matched)), layout.index);
        }
    }

    /// Links layout `layout` of `matched`'s executable (or of the programs) on `side`, unless it
    /// is linked already.
    fn link_layout(
        &self,
        side: Side,
        matched: &Matched,
        layout: usize,
        progress: &Progress,
    ) -> std::result::Result<(), String> {
        let linking = |what: &str| {
            let message = format!("linking layout {layout} of {what} ({})", side.as_str());
            progress.step_message(&message);
            progress.detail(&message);
        };
        match is_command(matched) {
            true => {
                let Some(programs) = self.side(side).programs.as_ref() else {
                    return Ok(());
                };
                if programs.unlinked(layout) {
                    linking("the programs");
                    programs.link_layout(layout)?;
                }
            }
            false => {
                let exe = &self.built(side, matched).exe;
                if exe.unlinked(layout) {
                    linking(&exe.target);
                    exe.layout(layout)?;
                }
            }
        }
        Ok(())
    }

    fn request(
        &self,
        side: Side,
        matched: &Matched,
        layout: Layout,
        warm_up: Duration,
        cpu: Option<usize>,
        copies: &mut FreshCopies,
    ) -> Result<ForkRequest> {
        if is_command(matched) {
            return self.command_request(side, matched, layout, cpu, copies);
        }
        let BuiltTarget { exe, env, harness } = self.built(side, matched);
        let original = match layout.index {
            0 => &exe.path,
            k => &exe.layouts[k - 1],
        };
        let executable = copies
            .path(side, original)
            .map_err(|e| Error::io(original, e))?;
        Ok(ForkRequest {
            executable,
            cwd: exe.package_root.clone(),
            env: env.clone(),
            benchmark_id: matched.criterion_id.clone(),
            harness: harness.get(),
            warm_up,
            measurement: Duration::from_millis(self.settings.measurement_ms),
            sample_size: self.settings.sample_size.max(10),
            timeout: fork_timeout(self.settings),
            criterion_home: self.perfdiff_dir.join("criterion-home").join(side.as_str()),
            cpu,
            command: None,
        })
    }

    /// The fork of a command: one execution of its program from this round's fresh copy of the
    /// side's programs in `layout`.
    fn command_request(
        &self,
        side: Side,
        matched: &Matched,
        layout: Layout,
        cpu: Option<usize>,
        copies: &mut FreshCopies,
    ) -> Result<ForkRequest> {
        let build = self.side(side);
        let spec = self
            .settings
            .commands
            .iter()
            .find(|c| c.name == matched.id)
            .expect("measured commands are declared");
        let programs = build
            .programs
            .as_ref()
            .expect("programs built for commands");
        let original = &programs.layout_dirs[layout.index];
        let bin = copies
            .directory(side, original, &programs.names)
            .map_err(|e| Error::io(original, e))?;
        let places = Places {
            bin,
            root: build.root.clone(),
        };
        let argv = spec.argv(&places);
        let helper = crate::steps::fork::exec_helper::helper_executable()
            .map_err(|e| Error::io("cargo-perfdiff", e))?;
        Ok(ForkRequest {
            executable: PathBuf::from(&argv[0]),
            cwd: spec.working_dir(&build.root),
            env: spec.environment(&places),
            benchmark_id: matched.id.clone(),
            harness: Harness::Command,
            warm_up: Duration::ZERO,
            measurement: Duration::ZERO,
            sample_size: 1,
            timeout: fork_timeout(self.settings),
            criterion_home: self.perfdiff_dir.join("criterion-home").join(side.as_str()),
            cpu,
            command: Some(CommandRun {
                argv,
                prepare: spec.prepare_line(&places),
                warm_up: spec.warm_up,
                helper,
            }),
        })
    }
}

fn is_command(matched: &Matched) -> bool {
    matched.harness == Some(HarnessKind::Command)
}

/// Registers a command's two records, time and memory, with the failures its set-up had.
fn register_command(file: &mut SampleFile, m: &Matched, base: &SideBuild, head: &SideBuild) {
    for id in [m.id.clone(), command::memory_id(&m.id)] {
        let record = file.benchmark_mut(&id, Presence::Both);
        record.harness = Some(HarnessKind::Command);
        for (build, side_record) in [(base, &mut record.base), (head, &mut record.head)] {
            let failure = build
                .command_failures
                .iter()
                .find(|(name, _)| *name == m.id);
            if let (Some((_, failure)), None) = (failure, &side_record.failure) {
                side_record.failure = Some(failure.clone());
            }
        }
    }
}

/// The code layout a round's forks of one benchmark run in, of how many.
#[derive(Debug, Clone, Copy)]
struct Layout {
    index: usize,
    count: usize,
}

impl Layout {
    /// What the samples file records: the index, when there is more than one layout.
    fn recorded(self) -> Option<usize> {
        (self.count > 1).then_some(self.index)
    }
}

/// How long one process of a bench target may run: a fork, or the listing of its benchmarks.
fn fork_timeout(settings: &Settings) -> Duration {
    Duration::from_secs_f64(settings.fork_timeout_s.max(1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_target_no_revision_could_list_is_skipped_or_the_error_when_nothing_else_is_left() {
        let failed = |target: &str| discover::FailedListing {
            target: TargetKey::new("p", target),
            error: DiscoverError::List {
                executable: format!("bench target {target:?}"),
                message: "`--bench --list --format terse` exited with exit status: 101".into(),
                stderr_tail: "thread 'main' panicked at benches/x.rs:1:1:\nno data.bin".into(),
            },
        };
        let labels = ["HEAD~1 (abc)".to_string(), "HEAD (def)".to_string()];
        let settled = Settled {
            base: vec![(TargetKey::new("p", "ok"), vec!["a".into()])],
            head: vec![(TargetKey::new("p", "ok"), vec!["a".into()])],
            unlisted: vec![(None, failed("x")), (Some(Side::Head), failed("y"))],
            ..Settled::default()
        };
        let mut skipped = Vec::new();
        let (base, head) = set_apart_unlisted(settled, &labels, &mut skipped).unwrap();
        assert_eq!((base.len(), head.len()), (1, 1));
        let reasons: Vec<(&str, &str)> = skipped
            .iter()
            .map(|s| (s.target.as_str(), s.reason.as_str()))
            .collect();
        assert_eq!(
            reasons,
            [
                (
                    "x",
                    &format!(
                        "its benchmarks could not be listed in either revision: `--bench --list \
                         --format terse` exited with exit status: 101: thread 'main' panicked at \
                         benches/x.rs:1:1: no data.bin ({NOT_IN_CHECKOUTS})"
                    )[..]
                ),
                (
                    "y",
                    "its benchmarks could not be listed in head HEAD (def): `--bench --list \
                     --format terse` exited with exit status: 101: thread 'main' panicked at \
                     benches/x.rs:1:1: no data.bin"
                )
            ]
        );

        let nothing_else = |side| Settled {
            unlisted: vec![(side, failed("x"))],
            ..Settled::default()
        };
        let error = set_apart_unlisted(nothing_else(None), &labels, &mut Vec::new())
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("exit status: 101, in both revisions"),
            "{error}"
        );
        assert!(
            error.contains("git ignores") && error.ends_with("no data.bin"),
            "{error}"
        );
        let error = set_apart_unlisted(nothing_else(Some(Side::Base)), &labels, &mut Vec::new())
            .unwrap_err()
            .to_string();
        assert!(!error.contains("both revisions"), "{error}");
    }

    #[test]
    fn a_target_not_compiled_is_skipped_naming_the_revisions_it_failed_in() {
        let labels = [
            "HEAD~1 (aaaaaaaaa)".to_string(),
            "HEAD (bbbbbbbbb)".to_string(),
        ];
        let failed = |error: &str| {
            Some(UncompiledBench {
                package: "p".into(),
                target: "bad".into(),
                why: build::Uncompiled::Failed {
                    error: error.into(),
                    errors: 1,
                },
            })
        };
        assert_eq!(
            not_compiled_reason(None, failed("error: e"), &labels),
            "failed to compile in head HEAD (bbbbbbbbb): error: e; its benchmarks in base \
             HEAD~1 (aaaaaaaaa) are not compared"
        );
        assert_eq!(
            not_compiled_reason(failed("error: e"), None, &labels),
            "failed to compile in base HEAD~1 (aaaaaaaaa): error: e; its benchmarks in head \
             HEAD (bbbbbbbbb) are not compared"
        );
        assert_eq!(
            not_compiled_reason(failed("error: e"), failed("error: e"), &labels),
            "failed to compile in both revisions: error: e"
        );
        assert_eq!(
            not_compiled_reason(failed("error: e"), failed("error: f"), &labels),
            "failed to compile in base HEAD~1 (aaaaaaaaa): error: e; failed to compile in head \
             HEAD (bbbbbbbbb): error: f"
        );
    }

    #[test]
    fn a_target_skipped_for_two_reasons_keeps_both_and_repeats_neither() {
        let skipped = |reason: &str| SkippedTarget {
            package: None,
            target: "demo".to_string(),
            reason: reason.to_string(),
        };
        // Base and head each report the same two reasons: not side by side once sorted by target.
        let from_both_sides = vec![skipped("x"), skipped("y"), skipped("x"), skipped("y")];
        assert_eq!(sorted_once(from_both_sides), [skipped("x"), skipped("y")]);
    }

    #[test]
    fn merged_shards_report_what_each_skipped_once() {
        let dir = tempfile::tempdir().unwrap();
        let skipped = |target: &str| SkippedTarget {
            package: Some("p".to_string()),
            target: target.to_string(),
            reason: "plain binary, no benchmark harness".to_string(),
        };
        let shard = |id: &str, targets: &[&str]| {
            let mut file = SampleFile::new(Default::default());
            file.benchmark_mut(id, crate::model::samples::Presence::Both);
            file.skipped_targets = targets.iter().map(|t| skipped(t)).collect();
            let path = dir.path().join(format!("{id}.json"));
            file.save(&path).unwrap();
            path
        };
        let paths = [shard("a", &["speed", "size"]), shard("b", &["speed"])];
        let merged = merge_sample_files(&paths).unwrap();
        assert_eq!(merged.skipped_targets, [skipped("size"), skipped("speed")]);
    }

    fn commit(sha: &str) -> Revision {
        Revision {
            spec: sha.to_string(),
            commit: Some(sha.repeat(40)),
            working_tree: false,
        }
    }

    fn held(base_slot: Option<&str>, head_slot: Option<&str>) -> [Option<String>; 2] {
        [base_slot, head_slot].map(|c| c.map(|c| c.repeat(40)))
    }

    #[test]
    fn sides_keep_their_own_slots_unless_a_swap_finds_a_commit_built() {
        let (a, b, c) = (commit("a"), commit("b"), commit("c"));
        // Fresh state, or each slot already holding its own side: no swap.
        assert_eq!(assign_slots(&a, &b, &held(None, None)), SLOTS);
        assert_eq!(assign_slots(&a, &b, &held(Some("a"), Some("b"))), SLOTS);
        // A..B, then B..C: B sits in the head slot, so base takes it and C goes where A was.
        assert_eq!(
            assign_slots(&b, &c, &held(Some("a"), Some("b"))),
            ["head", "base"]
        );
        // B..A after A..B: both sides find their commit in the other slot.
        assert_eq!(
            assign_slots(&b, &a, &held(Some("a"), Some("b"))),
            ["head", "base"]
        );
        // Head's commit in the base slot (C..A after A..B) is worth a swap too.
        assert_eq!(
            assign_slots(&c, &a, &held(Some("a"), Some("b"))),
            ["head", "base"]
        );
        // A swap that would cost the side already in place its build is not made.
        assert_eq!(
            assign_slots(&b, &b.clone(), &held(Some("b"), Some("b"))),
            SLOTS
        );
        assert_eq!(assign_slots(&a, &c, &held(Some("a"), Some("c"))), SLOTS);
        assert_eq!(
            assign_slots(&a, &a.clone(), &held(Some("a"), Some("b"))),
            SLOTS
        );
    }

    #[test]
    fn calibration_builds_in_the_slot_that_holds_the_commit() {
        let b = commit("b");
        assert_eq!(
            assign_slots(&b, &b.clone(), &held(Some("a"), Some("b"))),
            ["head", "base"]
        );
        assert_eq!(assign_slots(&b, &b.clone(), &held(None, None)), SLOTS);
    }

    #[test]
    fn the_working_tree_never_matches_a_held_commit() {
        let mut tree = commit("b");
        tree.working_tree = true;
        // HEAD (b) vs the working tree based on b, after A..B: base finds b in the head slot and
        // the working tree goes to the base slot.
        assert_eq!(
            assign_slots(&commit("b"), &tree, &held(Some("a"), Some("b"))),
            ["head", "base"]
        );
        // The working tree as base claims no slot of its own.
        assert_eq!(
            assign_slots(&tree, &commit("c"), &held(Some("b"), Some("a"))),
            SLOTS
        );
    }

    #[test]
    fn only_the_commands_the_filters_select_are_built_and_a_filter_of_commands_needs_no_bench() {
        let command = |name: &str| CommandSpec {
            name: name.to_string(),
            run: format!("{{bin}}/cli {name}"),
            ..CommandSpec::default()
        };
        let settings = |filters: &[&str]| Settings {
            commands: vec![command("parse"), command("check")],
            filters: filters.iter().map(|f| f.to_string()).collect(),
            ..Settings::default()
        };
        let names = |settings: &Settings| -> Vec<String> {
            selected_commands(settings, None)
                .into_iter()
                .map(|c| c.name)
                .collect()
        };
        assert_eq!(names(&settings(&[])), ["parse", "check"]);
        // By name or by memory record; a filter of benchmarks selects none.
        assert_eq!(names(&settings(&["^parse$"])), ["parse"]);
        assert_eq!(names(&settings(&["check \\(peak"])), ["check"]);
        assert!(names(&settings(&["^hash/"])).is_empty());
        // Only anchored names of commands (or of their memory records) rule out every benchmark.
        assert!(filters_name_only_commands(&settings(&["^parse$"])));
        assert!(filters_name_only_commands(&settings(&[
            "^(parse|check \\(peak memory\\))$"
        ])));
        assert!(!filters_name_only_commands(&settings(&["parse"])));
        assert!(!filters_name_only_commands(&settings(&[
            "^parse$", "^hash$"
        ])));
        assert!(!filters_name_only_commands(&settings(&[])));
    }

    #[test]
    fn timestamps_are_compact_utc() {
        let stamp = utc_timestamp();
        assert_eq!(stamp.len(), 15, "{stamp}");
        assert!(stamp.starts_with("20"), "{stamp}");
        assert_eq!(&stamp[8..9], "-");
    }
}
