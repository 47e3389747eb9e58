//! A whole comparison: revisions → worktrees → builds → discovery → rounds of forks → analysis.
//!
//! This module only sequences the steps; each lives in its own module. Its one rule of its own:
//! the samples file is saved after every fork, so whatever happens (a crash, Ctrl-C, a failing
//! benchmark) the measurements taken so far are kept and `--resume` can continue.
//!
//! The steps in the order a run takes them: prepare the sides (`prepare`: open the repository,
//! lock the run, check out and build each revision, set up the commands), select and discover
//! (`select`: list both sides' benchmarks and choose what is measured), measure rounds and
//! checkpoint (`rounds`), then analyse.

mod context;
mod count;
mod duet_check;
mod phases;
mod prepare;
mod reach;
mod reach_command_probe;
mod reach_commands;
mod reach_outside;
mod reach_probe;
mod reach_probe_outside;
mod reach_sides;
mod rounds;
mod select;

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::config::Settings;
use crate::model::harness::{Harness, HarnessKind};
use crate::model::samples::{FailureRecord, Presence, RevisionInfo, RunInfo, SampleFile};
use crate::model::target::TargetKey;
use crate::orchestrate::error::{Error, Result};
use crate::steps::analysis::{self, Report, SkippedTarget};
use crate::steps::build::programs::Programs;
use crate::steps::build::{
    self, BenchExecutable, BuildOptions, FeatureGatedBench, UncompiledBench, UnselectedPackage,
};
use crate::steps::discover::Matched;
use crate::steps::estimate::{Plan, Planned};
use crate::steps::git::revisions::{self, Revision};
use crate::steps::git::worktree;
use crate::steps::progress::Progress;
use crate::steps::schedule::{self, Shard, Side};
use crate::steps::stop::StopPolicy;
use context::MeasureContext;
use prepare::{Opened, build_sides};
use rounds::register_command;
use select::{Selection, select_and_discover, sorted_once};

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
    /// (`--copy-untracked`, [`crate::steps::git::untracked::UntrackedCopies`]).
    pub copy_untracked: Vec<PathBuf>,
    pub settings: Settings,
    /// Compare the settings' commands alone, building and listing no benchmarks.
    pub commands_only: bool,
    pub shard: Option<Shard>,
    pub resume: Option<PathBuf>,
    pub samples_path: Option<PathBuf>,
    /// Keep the executables built for other commits (a bisection comes back to them); a
    /// comparison removes them (`prepare::remove_other_executables`).
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
    /// How long its checkout and build took.
    times: phases::SideTimes,
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
    count::valgrind_for(&request.settings)?;
    with_selected_benchmarks(request, None, progress, measure_selected)
}

/// Runs a whole comparison for a caller that holds the workspace's run lock already
/// ([`lock_workspace`]): a bisection holds it from its first step to its last.
pub fn run_locked(
    request: &RunRequest,
    lock: &worktree::RunLock,
    progress: &mut Progress,
) -> Result<RunOutcome> {
    count::valgrind_for(&request.settings)?;
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
    with_selected_benchmarks(request, lock, progress, |selected, progress| {
        let unannounced = selected.skipped[selected.announced..].to_vec();
        let clock = phases::SelectionClock::default();
        let sides = reach_sides::SelectedSides {
            settings: &request.settings,
            perfdiff_dir: selected.perfdiff_dir,
            target_dir: selected.target_dir,
            working_tree: &selected.comparison.repo_root,
            build: &request.build,
            base: selected.base,
            head: selected.head,
            clock: &clock,
        };
        let empty = SampleFile::new(RunInfo::default());
        let (selection, selecting) =
            phases::timed(|| reach::select_by_reach(&sides, &selected.matched, &empty, progress));
        // As a comparison records them up to its rounds ([`open_samples`]).
        let head = (!std::ptr::eq(selected.base, selected.head)).then_some(selected.head.times);
        let phases = phases::before_rounds(
            selected.opening,
            (selected.base.times, head),
            selected.discovery,
            selecting,
            &clock,
        );
        Ok(Listed {
            matched: selected.matched,
            skipped: sorted_once(selected.skipped),
            unannounced: sorted_once(unannounced),
            selection,
            phases,
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
    /// Whether a run would measure each benchmark, and why, by id (empty with `--measure-all`).
    pub selection: BTreeMap<String, crate::model::samples::SelectionRecord>,
    /// Where the listing's time went, as a comparison records its phases up to its rounds.
    pub phases: crate::model::samples::Phases,
}

/// The warning for benchmarks of which none is present on both sides (`presences`, one each):
/// a run compares nothing, and passes. Why said: a release whose bench target changed harness
/// (itoa 1.0.16: libtest's `#[bench]` ids in base, criterion's in head) would otherwise pass a
/// pre-release gate in silence (docs/design/field-trials.md). `None` when one pairs, or none
/// is listed at all (discovery says so on its own).
pub fn none_on_both_sides(presences: &[Presence]) -> Option<String> {
    if presences.is_empty() || presences.contains(&Presence::Both) {
        return None;
    }
    Some(format!(
        "warning: no benchmark is present on both sides, so a run compares nothing: the {} \
         listed have other ids in base and head (benchmarks renamed, or another harness: \
         libtest's `#[bench]` on one side, criterion on the other?); `--fail-on inconclusive` \
         fails such a run (exit 3)",
        presences.len()
    ))
}

/// What measuring `matched` would take at `settings`: the benchmarks present in both revisions,
/// from their first round (what `--list` tells before a run).
pub fn plan(
    matched: &[Matched],
    selection: &BTreeMap<String, crate::model::samples::SelectionRecord>,
    settings: &Settings,
) -> Plan {
    let same_code = |m: &Matched| selection.get(&m.id).is_some_and(|s| s.skipped());
    let measured: Vec<Planned> = matched
        .iter()
        .filter(|m| m.presence == Presence::Both && !same_code(m))
        .map(|m| Planned {
            completed_rounds: 0,
            times_itself: m.harness.is_some_and(|h| h.times_itself()),
            set_up: rounds::set_up_of(selection.get(&m.id)),
        })
        .collect();
    Plan::new(&settings.into(), &measured)
}

/// A comparison up to its measuring: both revisions built, their benchmarks listed and matched.
struct Selected<'a> {
    request: &'a RunRequest,
    started: Instant,
    comparison: &'a revisions::Comparison,
    perfdiff_dir: &'a Path,
    target_dir: &'a Path,
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
    /// How long opening the repository (resolving the revisions, locking) took, and discovery.
    opening: Duration,
    discovery: Duration,
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
    let opening = started.elapsed();
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
    let (selection, discovery) =
        phases::timed(|| select_and_discover(request, comparison, sides, progress));
    let Selection {
        matched,
        skipped,
        announced,
        failed_listings,
    } = selection?;
    let selected = Selected {
        request,
        started,
        comparison,
        perfdiff_dir: &opened.perfdiff_dir,
        target_dir: &opened.target_dir,
        seed,
        resumed,
        base: &base_build,
        head: head_build,
        matched,
        skipped,
        announced,
        failed_listings,
        opening,
        discovery,
    };
    then(selected, progress)
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

/// Measures the selected benchmarks, saving the samples after every fork, and analyses them.
fn measure_selected(mut selected: Selected<'_>, progress: &mut Progress) -> Result<RunOutcome> {
    let samples_path = samples_path(&selected);
    progress.note(&format!(
        "samples are saved after every fork to {}",
        samples_path.display()
    ));
    let mut file = open_samples(&mut selected, &samples_path, progress)?;
    let Selected {
        request,
        started,
        perfdiff_dir,
        target_dir,
        seed,
        base: base_build,
        head: head_build,
        matched,
        ..
    } = selected;
    let settings = &request.settings;
    let valgrind = count::valgrind_for(settings)?;

    let context = MeasureContext {
        settings,
        seed,
        perfdiff_dir,
        target_dir,
        base: base_build,
        head: head_build,
        matched: &matched,
        followed: request.focus.as_ref().map(|f| f.records.as_slice()),
        samples_path: &samples_path,
        started,
        measuring_since: Instant::now(),
        build: &request.build,
        valgrind: valgrind.as_ref(),
        linked_layouts: RefCell::default(),
        divan_sample_sizes: RefCell::default(),
    };
    rounds::measure(&context, &mut file, progress)?;
    let (mut report, analysing) =
        phases::timed(|| analyse_samples(&file, settings, Some(&samples_path)));
    let counts = settings.explain || settings.metric.instructions;
    let explaining = Instant::now();
    if counts && count::explain(&context, &mut file, &report, progress)?
        || !counts && count::note_compiled_differently(&context, &mut file, &report, progress)
    {
        // The profiles and the same-source functions change what is listed, never a verdict.
        analysis::functions::attach(&mut report.benchmarks, &file);
    }
    if let Some(phases) = &mut file.run.phases {
        phases.analysis_ms = phases::millis(analysing);
        phases.explain_ms = phases::millis(explaining.elapsed());
    }
    context::save_wall_time(&context, &mut file)?;
    report.run = file.run.clone();
    Ok(RunOutcome {
        report,
        samples: file,
        samples_path,
    })
}

/// Where the samples are saved: the file resumed, else the one asked for, else one named after
/// the comparison.
fn samples_path(selected: &Selected<'_>) -> PathBuf {
    let Selected {
        request,
        comparison,
        perfdiff_dir,
        ..
    } = selected;
    match (&request.resume, &request.samples_path) {
        (Some(path), _) => path.clone(),
        (None, Some(path)) => path.clone(),
        (None, None) => default_samples_path(perfdiff_dir, &comparison.base, &comparison.head),
    }
}

/// The samples file the rounds measure into, saved at `samples_path`: the one resumed (taken
/// from `selected`) or a new one, with every benchmark registered, the selection by reach and
/// the skipped targets (also taken) recorded.
fn open_samples(
    selected: &mut Selected<'_>,
    samples_path: &Path,
    progress: &mut Progress,
) -> Result<SampleFile> {
    let settings = &selected.request.settings;
    let mut file = selected.resumed.take().unwrap_or_else(|| {
        SampleFile::new(run_info(
            &selected.comparison.base,
            &selected.comparison.head,
            settings,
            selected.seed,
            selected.request.shard,
        ))
    });
    let matched = &selected.matched;
    register_benchmarks(
        &mut file,
        matched,
        &selected.failed_listings,
        (selected.base, selected.head),
    );
    count::register(&mut file, matched, settings.metric);
    let clock = phases::SelectionClock::default();
    let sides = reach_sides::SelectedSides {
        settings,
        perfdiff_dir: selected.perfdiff_dir,
        target_dir: selected.target_dir,
        working_tree: &selected.comparison.repo_root,
        build: &selected.request.build,
        base: selected.base,
        head: selected.head,
        clock: &clock,
    };
    let (selections, selecting) =
        phases::timed(|| reach::select_by_reach(&sides, matched, &file, progress));
    reach::record(&mut file, selections);
    // One build serves both sides when they are one commit: its time is base's alone.
    let head = (!std::ptr::eq(selected.base, selected.head)).then_some(selected.head.times);
    file.run.phases = Some(phases::before_rounds(
        selected.opening,
        (selected.base.times, head),
        selected.discovery,
        selecting,
        &clock,
    ));
    file.skipped_targets = sorted_once(std::mem::take(&mut selected.skipped));
    file.save(samples_path)?;
    Ok(file)
}

/// Gives every matched benchmark its record in `file`: target, package, criterion id and
/// harness, a command its time and memory records, and each side whose bench target could not
/// be listed that listing's failure.
fn register_benchmarks(
    file: &mut SampleFile,
    matched: &[Matched],
    failed_listings: &[(Side, TargetKey, FailureRecord)],
    (base, head): (&SideBuild, &SideBuild),
) {
    for m in matched {
        let record = file.benchmark_mut(&m.id, m.presence);
        record.target = m.target().map(|key| key.target.clone());
        record.package = m.target().map(|key| key.package.clone());
        record.criterion_id = (m.criterion_id != m.id).then(|| m.criterion_id.clone());
        record.harness = m.harness;
        if m.harness == Some(HarnessKind::Command) {
            register_command(file, m, base, head);
            continue;
        }
        for (side, target, failure) in failed_listings {
            let (side_target, side_record) = match side {
                Side::Base => (&m.base_target, &mut record.base),
                Side::Head => (&m.head_target, &mut record.head),
            };
            if side_target.as_ref() == Some(target) && side_record.failure.is_none() {
                side_record.failure = Some(failure.clone());
            }
        }
    }
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
                // A shard that left duet says so for the merged run (its forks are tagged).
                if all.run.mode_change.is_none() {
                    all.run.mode_change = file.run.mode_change;
                }
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
        merged.run.phases = None;
    }
    Ok(merged)
}

/// A cargo target directory cargo-perfdiff builds into, `<target>/perfdiff/<name>`: shared by
/// every workspace building into `target_dir` (a CARGO_TARGET_DIR of several clones too), so
/// their dependencies compile once. `target` holds the comparison's builds, `target-line-tables`
/// the builds with line tables that name functions ([`count`]).
fn shared_build_target(target_dir: &Path, name: &str) -> PathBuf {
    target_dir.join("perfdiff").join(name)
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
    let hash = crate::util::hash::fnv1a(workspace.to_string_lossy().as_bytes());
    base.join(format!("ws-{name}-{:08x}", hash as u32))
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
        mode_change: None,
        phases: None,
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

/// How long one process of a bench target may run: a fork, or the listing of its benchmarks.
fn fork_timeout(settings: &Settings) -> Duration {
    Duration::from_secs_f64(settings.fork_timeout_s.max(1.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use super::{prepare::*, select::*};
    use crate::model::command::CommandSpec;
    use crate::steps::discover::{self, DiscoverError, Settled};

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
