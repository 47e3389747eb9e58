//! The instructions metric in a run: the records it adds, the instruction forks of a round, and
//! the profiles of the benchmarks called changed, counted in a build with line tables (with the
//! instructions metric, and with `--explain` for time).
//!
//! Why a part of its own: instruction forks differ from timed ones in two ways that shape the
//! round loop. They do not disturb each other (valgrind simulates the processor: what else runs
//! on the machine changes no count), so a round's instruction forks run on every usable CPU at
//! once, after its timed forks, never beside them. And they are (nearly) deterministic, so their
//! records are decided after the first rounds by the same paired statistics as time.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use super::context::is_command;
use super::reach_sides::{changed_names_of, checkout_of};
use crate::config;
use crate::config::Settings;
use crate::model::command;
use crate::model::profile::instructions_id;
use crate::model::samples::{BenchmarkRecord, SampleFile, SideRecord};
use crate::model::target::TargetKey;
use crate::orchestrate::error::{Error, Result};
use crate::steps::analysis::Report;
use crate::steps::build::{BuildEvent, BuildOptions, programs};
use crate::steps::discover::Matched;
use crate::steps::fork::{ForkRequest, run_place};
use crate::steps::progress::Progress;
use crate::steps::reach::source;
use crate::steps::schedule::Side;
use crate::steps::{analysis, build};

use std::sync::atomic::{AtomicUsize, Ordering};

use super::context::{self, Layout, MeasureContext};

use crate::steps::instructions::{self, InstructionOutcome, InstructionsError, Valgrind};

/// Criterion's warm-up in an instruction fork. Nothing of the warm-up is counted; it only has to
/// give criterion an estimate of an iteration's time to plan its samples by.
const COUNT_WARM_UP: Duration = Duration::from_millis(100);

/// Criterion's measurement time in an instruction fork: under valgrind (20–50× slower) it
/// still gives the 10 samples of different iteration counts the per-iteration line is fitted
/// through; a longer one would count more iterations and change nothing.
const COUNT_MEASUREMENT: Duration = Duration::from_millis(100);

/// Samples of a criterion instruction fork: criterion's minimum, enough for an exact line.
const COUNT_SAMPLE_SIZE: usize = 10;

/// Adds an instruction record (`ID (instructions)`, [`instructions_id`]) for every benchmark and
/// command of `matched` when `metrics` asks for instructions, with the target, harness and the
/// failures before measuring of its time record; without the time metric, the time records (and
/// commands' memory records) that hold no fork are then dropped (a resumed file keeps what it
/// measured). Idempotent, so a resumed file passes through.
pub(super) fn register(file: &mut SampleFile, matched: &[Matched], metrics: config::Metrics) {
    if !metrics.instructions {
        return;
    }
    for m in matched {
        let Some(time) = file.benchmarks.iter().find(|b| b.id == m.id).cloned() else {
            continue;
        };
        let record = file.benchmark_mut(&instructions_id(&m.id), time.presence);
        record.target = time.target;
        record.package = time.package;
        record.criterion_id = time.criterion_id;
        record.harness = time.harness;
        for (from, to) in [
            (&time.base, &mut record.base),
            (&time.head, &mut record.head),
        ] {
            if to.failure.is_none() && from.forks.is_empty() {
                to.failure = from.failure.clone();
            }
        }
    }
    if !metrics.time {
        let timed: std::collections::BTreeSet<String> = matched
            .iter()
            .flat_map(|m| [m.id.clone(), command::memory_id(&m.id)])
            .collect();
        let measured = |b: &BenchmarkRecord| !(b.base.forks.is_empty() && b.head.forks.is_empty());
        file.benchmarks
            .retain(|b| !timed.contains(&b.id) || measured(b));
    }
}

/// Valgrind, found before anything is checked out or built when the run needs it (the
/// instructions metric, or `--explain`), so that a missing one stops the run at once with the
/// command that installs it.
pub(super) fn valgrind_for(settings: &Settings) -> Result<Option<Valgrind>> {
    if !(settings.metric.instructions || settings.explain) {
        return Ok(None);
    }
    Ok(Some(Valgrind::find()?))
}

/// One instruction fork to run: a side of a benchmark in a layout, and where its result goes.
pub(super) struct CountJob {
    /// The record the result is kept in.
    pub(super) record: usize,
    pub(super) side: Side,
    pub(super) round: usize,
    pub(super) layout: Option<usize>,
    pub(super) request: ForkRequest,
}

impl CountJob {
    /// The side of its record the job's result goes to.
    fn side_record<'f>(&self, file: &'f mut SampleFile) -> &'f mut SideRecord {
        let record = &mut file.benchmarks[self.record];
        match self.side {
            Side::Base => &mut record.base,
            Side::Head => &mut record.head,
        }
    }
}

/// The fork request of an instruction fork: the timed fork's, with criterion's times fixed for
/// valgrind and on no pinned CPU.
pub(super) fn count_request(mut request: ForkRequest) -> ForkRequest {
    if request.command.is_none() {
        request.warm_up = COUNT_WARM_UP;
        request.measurement = COUNT_MEASUREMENT;
        request.sample_size = COUNT_SAMPLE_SIZE;
    }
    request.cpu = None;
    request
}

/// Runs `jobs` under `valgrind`, as many at once as this process has usable CPUs, each in an
/// empty directory of its own under `dir`. The results are in the order of `jobs`.
pub(super) fn run_jobs(
    jobs: &[CountJob],
    valgrind: &Valgrind,
    dir: &Path,
) -> Vec<std::result::Result<InstructionOutcome, InstructionsError>> {
    let workers = crate::steps::fork::usable_cpus()
        .len()
        .clamp(1, jobs.len().max(1));
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<_>>> = Mutex::new((0..jobs.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(job) = jobs.get(i) else { break };
                    let result = run_job(job, valgrind, &dir.join(format!("job-{i}")));
                    results.lock().expect("no worker panics")[i] = Some(result);
                }
            });
        }
    });
    results
        .into_inner()
        .expect("no worker panics")
        .into_iter()
        .map(|result| result.expect("every job ran"))
        .collect()
}

fn run_job(
    job: &CountJob,
    valgrind: &Valgrind,
    work_dir: &Path,
) -> std::result::Result<InstructionOutcome, InstructionsError> {
    let _ = std::fs::remove_dir_all(work_dir);
    std::fs::create_dir_all(work_dir).map_err(|source| InstructionsError::Io {
        path: work_dir.to_path_buf(),
        source,
    })?;
    let outcome = instructions::measure(&job.request, valgrind, work_dir);
    let _ = std::fs::remove_dir_all(work_dir);
    outcome
}

/// Keeps the result of `job` in its record: the fork (its round and layout marked) and, the
/// first time, the side's profile; or the failure, which makes the record `failed`.
pub(super) fn record_count(
    file: &mut SampleFile,
    job: &CountJob,
    outcome: InstructionOutcome,
    root: &Path,
) {
    let side = job.side_record(file);
    match outcome {
        InstructionOutcome::Measured(measurement) => {
            let mut fork = measurement.fork_record();
            fork.round = Some(job.round);
            fork.layout = job.layout;
            fork.started_unix_ms = Some(crate::steps::fork::session::unix_ms_now());
            side.forks.push(fork);
            if side.profile.is_none() {
                side.profile = Some(measurement.kept_profile().relative_to(root));
            }
        }
        InstructionOutcome::Failed(failure) => side.failure = Some(failure),
    }
}

/// The error that stops a run for an instruction fork's error: an interrupt says how to resume.
pub(super) fn count_error(
    error: InstructionsError,
    ctx: &MeasureContext,
    file: &mut SampleFile,
) -> Error {
    match error {
        InstructionsError::Fork(fork) => context::interrupted(fork, ctx, file),
        other => other.into(),
    }
}

/// `--explain`, and every run that counts instructions: for each benchmark or command called
/// `regressed` or `improved` (in any metric), each side is counted once more, by function, in a
/// build with debug line tables ([`LineTables`]), so that the report names the functions behind
/// the change with their files and lines, inlined code given back to the function it came from.
/// The profiles go to the benchmark's instruction record, else to its time record. When the
/// build with line tables fails, the executables measured are counted instead (functions by
/// their symbols alone), and the run says why. `report` is the analysis of `file` after the
/// rounds; returns whether any profile was counted.
pub(super) fn explain(
    ctx: &MeasureContext,
    file: &mut SampleFile,
    report: &Report,
    progress: &mut Progress,
) -> Result<bool> {
    let Some(valgrind) = ctx.valgrind else {
        return Ok(false);
    };
    let changed = changed_benchmarks(file, report, ctx.matched);
    if changed.is_empty() {
        return Ok(false);
    }
    progress.note(&format!(
        "explaining {} change(s): counting their instructions by function under valgrind, in \
         a build with line tables",
        changed.len()
    ));
    let matched: Vec<&Matched> = changed.iter().map(|&(_, m)| &ctx.matched[m]).collect();
    let line_tables = [Side::Base, Side::Head].map(|side| {
        LineTables::build(ctx, side, &matched, progress).unwrap_or_else(|reason| {
            progress.note(&format!(
                "the functions behind the changes are named without files and lines: the build \
                 of {} with line tables failed ({reason})",
                side.as_str()
            ));
            LineTables::default()
        })
    });
    if let Some(names) = changed_names_for(ctx, &changed) {
        note_same_source(ctx, file, &changed, &line_tables, &names);
    }
    let mut copies = ctx.fresh_copies()?;
    copies.start_round();
    let mut jobs = Vec::new();
    for (record, m) in changed {
        let matched = &ctx.matched[m];
        for side in [Side::Base, Side::Head] {
            let layout = Layout::cargo_build();
            let request = ctx.request(side, matched, layout, COUNT_WARM_UP, None, &mut copies)?;
            let tables = &line_tables[usize::from(side == Side::Head)];
            jobs.push(CountJob {
                record,
                side,
                round: 0,
                layout: None,
                request: count_request(tables.apply(ctx, side, matched, request)),
            });
        }
    }
    let outcomes = run_jobs(&jobs, valgrind, &ctx.perfdiff_dir.join("instructions"));
    for (job, outcome) in jobs.iter().zip(outcomes) {
        match outcome.map_err(|e| count_error(e, ctx, file))? {
            InstructionOutcome::Measured(measurement) => {
                let root = &ctx.side(job.side).root;
                job.side_record(file).profile = Some(measurement.kept_profile().relative_to(root));
            }
            InstructionOutcome::Failed(failure) => progress.note(&format!(
                "cannot name the functions behind {}: {}",
                file.benchmarks[job.record].id, failure.message
            )),
        }
    }
    context::save_wall_time(ctx, file)?;
    Ok(true)
}

/// Without `--explain` (which does this and counts instructions too): names, beside every
/// `regressed` or `improved` verdict whose timed loop (a command: its programs) runs changed
/// functions, those of them compiled from the same source on both sides ([`note_same_source`]),
/// read from the builds with line tables selection's same-source check keeps (built here when
/// it has none). Issue #55: a
/// verdict that may be the compiler's different inlining, not the change's, says so at default
/// settings. When the commit rewrites the very definition of every such function
/// ([`source::ChangedNames::changes_own_source`]), none can be named, and the build, which can
/// cost more than the rest of the run (190 of 194 s on fd's LTO build), is not made. Returns
/// whether the sources were compared; a failed build is said and skipped.
pub(super) fn note_compiled_differently(
    ctx: &MeasureContext,
    file: &mut SampleFile,
    report: &Report,
    progress: &mut Progress,
) -> bool {
    let changed: Vec<(usize, usize)> = changed_benchmarks(file, report, ctx.matched)
        .into_iter()
        .filter(|&(record, _)| !compared_functions(file, record).is_empty())
        .collect();
    let Some(names) = changed_names_for(ctx, &changed) else {
        return false;
    };
    if changed
        .iter()
        .all(|&(record, _)| unexplained(file, record, &names).is_empty())
    {
        return false;
    }
    let matched: Vec<&Matched> = changed.iter().map(|&(_, m)| &ctx.matched[m]).collect();
    let built =
        [Side::Base, Side::Head].map(|side| LineTables::build(ctx, side, &matched, progress));
    let line_tables = match built {
        [Ok(base), Ok(head)] => [base, head],
        [Err(reason), _] | [_, Err(reason)] => {
            progress.note(&format!(
                "cannot tell whether the changed verdicts' code changed with its source: the \
                 build with line tables failed ({reason})"
            ));
            return false;
        }
    };
    note_same_source(ctx, file, &changed, &line_tables, &names);
    true
}

/// The names the commit changes ([`changed_names_of`]), read when `changed` has a benchmark;
/// `None` when it has none or they cannot be read (then nothing is compared by source).
fn changed_names_for(
    ctx: &MeasureContext,
    changed: &[(usize, usize)],
) -> Option<source::ChangedNames> {
    if changed.is_empty() {
        return None;
    }
    let checkouts = [Side::Base, Side::Head].map(|side| checkout_of(&ctx.side(side).root));
    let sides = [Side::Base, Side::Head].map(|side| ctx.side(side));
    changed_names_of(sides, &checkouts).ok()
}

/// The most changed functions of one benchmark whose sources are compared: each costs a walk of
/// its line tables on both sides.
const MAX_SOURCE_COMPARED: usize = 64;

/// The changed functions the record `record` executes in its timed loop (all but those its
/// trace ran only outside it), the first [`MAX_SOURCE_COMPARED`]: those compared by source.
fn compared_functions(file: &SampleFile, record: usize) -> Vec<String> {
    let selection = file.benchmarks[record].selection.as_ref();
    let functions = selection.into_iter().flat_map(|s| s.changed_in_loop());
    functions.take(MAX_SOURCE_COMPARED).cloned().collect()
}

/// Of [`compared_functions`] of `record`, those not rewritten by the commit
/// ([`source::ChangedNames::changes_own_source`]): the ones that may have been compiled
/// differently from the same source.
fn unexplained(file: &SampleFile, record: usize, names: &source::ChangedNames) -> Vec<String> {
    let mut functions = compared_functions(file, record);
    functions.retain(|f| !names.changes_own_source(f));
    functions
}

/// Records, in the selection of every changed benchmark (`changed`, as [`changed_benchmarks`]
/// gives them), which of the changed functions it executes in its timed loop
/// ([`compared_functions`]) were compiled from the same source on
/// both sides, read from the two builds with line tables ([`source::compare_functions`]): their
/// code changed because of a change elsewhere (inlining, codegen units, layout), and the report
/// says so beside the verdict. A function that cannot be compared is left out (not named), and
/// so is one whose own definition the commit changes ([`source::ChangedNames::changes_own_source`]).
fn note_same_source(
    ctx: &MeasureContext,
    file: &mut SampleFile,
    changed: &[(usize, usize)],
    tables: &[LineTables; 2],
    changed_names: &source::ChangedNames,
) {
    let checkouts = [Side::Base, Side::Head].map(|side| checkout_of(&ctx.side(side).root));
    let asked: Vec<Asked> = changed
        .iter()
        .map(|&(record, m)| {
            let functions = unexplained(file, record, changed_names);
            (
                m,
                functions,
                compared_executables(ctx, tables, &ctx.matched[m]),
            )
        })
        .collect();
    let compared = compare_by_pair(&asked, &checkouts, changed_names);
    for (m, functions, pairs) in &asked {
        let same = same_source_in(pairs, functions, &compared);
        if same.is_empty() {
            continue;
        }
        let matched = &ctx.matched[*m];
        let ids = [instructions_id(&matched.id), matched.id.clone()];
        for benchmark in file.benchmarks.iter_mut().filter(|b| ids.contains(&b.id)) {
            if let Some(selection) = &mut benchmark.selection {
                selection.same_source = same.clone();
            }
        }
    }
}

/// What one changed benchmark asks to compare by source: its index in `matched`, its functions
/// and the pairs of executables that hold them.
type Asked = (usize, Vec<String>, Vec<[PathBuf; 2]>);

/// Each function's source comparison, by pair of executables.
type ComparedByPair = BTreeMap<[PathBuf; 2], BTreeMap<String, source::SourceComparison>>;

/// Compares by source, once per pair of executables, every function any benchmark of `asked`
/// (its functions and pairs, as [`note_same_source`] gathers them) asks of it: reading an
/// executable's line tables takes seconds, and a bench target's benchmarks share it.
fn compare_by_pair(
    asked: &[Asked],
    checkouts: &[PathBuf; 2],
    changed_names: &source::ChangedNames,
) -> ComparedByPair {
    let mut wanted: BTreeMap<&[PathBuf; 2], BTreeSet<&String>> = BTreeMap::new();
    for (_, functions, pairs) in asked {
        for pair in pairs {
            wanted.entry(pair).or_default().extend(functions);
        }
    }
    let side = |executable, checkout| source::Side {
        executable,
        checkout,
    };
    wanted
        .into_iter()
        .filter(|(_, functions)| !functions.is_empty())
        .map(|([base, head], functions)| {
            let functions: Vec<String> = functions.into_iter().cloned().collect();
            let compared = source::compare_functions(
                &side(base, &checkouts[0]),
                &side(head, &checkouts[1]),
                &functions,
                changed_names,
            );
            (
                [base.clone(), head.clone()],
                functions.into_iter().zip(compared).collect(),
            )
        })
        .collect()
}

/// The executables, base's and head's, whose line tables tell where `matched`'s functions come
/// from: its bench target's in `tables`, or for a command each program both sides' builds with
/// line tables have (a command runs programs of the workspace, and which one ran a function its
/// name alone does not say).
fn compared_executables(
    ctx: &MeasureContext,
    tables: &[LineTables; 2],
    matched: &Matched,
) -> Vec<[PathBuf; 2]> {
    if is_command(matched) {
        let dirs = tables.each_ref().map(|t| t.programs.as_ref());
        let [Some(base_dir), Some(head_dir)] = dirs else {
            return Vec::new();
        };
        let names = ctx.side(Side::Base).programs.iter().flat_map(|p| &p.names);
        return names
            .map(|name| [base_dir.join(name), head_dir.join(name)])
            .filter(|pair| pair.iter().all(|exe| exe.is_file()))
            .collect();
    }
    let exes = [Side::Base, Side::Head].map(|side| {
        let tables = &tables[usize::from(side == Side::Head)];
        ctx.target_of(side, matched)
            .and_then(|target| tables.benches.get(&target))
    });
    match exes {
        [Some(base), Some(head)] => vec![[base.clone(), head.clone()]],
        _ => Vec::new(),
    }
}

/// Of `functions`, those compiled from the same source on both sides of some pair of `pairs`
/// ([`source::compare_functions`], read from `compared`) and from different source in none: a
/// function several programs hold counts as the same only if no program's copy reads
/// differently.
fn same_source_in(
    pairs: &[[PathBuf; 2]],
    functions: &[String],
    compared: &ComparedByPair,
) -> Vec<String> {
    let differs = |c: &source::SourceComparison| matches!(c, source::SourceComparison::Differs(_));
    functions
        .iter()
        .filter(|&function| {
            let of_function = || {
                pairs
                    .iter()
                    .filter_map(|pair| compared.get(pair)?.get(function))
            };
            of_function().any(|c| c.is_same()) && !of_function().any(differs)
        })
        .cloned()
        .collect()
}

/// The benchmarks and commands with a record called `regressed` or `improved`: the record their
/// profiles go to (the instruction record, else the time record) and their index in `matched`.
fn changed_benchmarks(
    file: &SampleFile,
    report: &Report,
    matched: &[Matched],
) -> Vec<(usize, usize)> {
    let position = |id: &str| file.benchmarks.iter().position(|b| b.id == id);
    let mut changed: Vec<(usize, usize)> = report
        .benchmarks
        .iter()
        .filter(|r| {
            matches!(
                r.verdict,
                analysis::Outcome::Regressed | analysis::Outcome::Improved
            )
        })
        .filter_map(|r| {
            let subject = analysis::functions::subject(&r.id);
            let record = position(&instructions_id(subject)).or_else(|| position(subject))?;
            let benchmark = matched.iter().position(|m| m.id == subject)?;
            Some((record, benchmark))
        })
        .collect();
    changed.sort_unstable();
    changed.dedup();
    changed
}

/// One side's executables built with debug line tables ([`BuildOptions::line_tables`]), in a
/// target directory and a kept directory of their own, so that the executables the comparison
/// measures stay exactly as cargo builds them: bench targets by target, and the programs'
/// directory. Kept like every build: a later run of the same revision builds nothing.
///
/// The target directory (`<target>/perfdiff/target-line-tables`, [`super::shared_build_target`])
/// is shared, as the comparison's own is, by every workspace building into the same cargo
/// target directory: the dependencies compiled with line tables (criterion's tree, a minute on
/// two cores) then compile once for all clones of a project, not once for each.
#[derive(Default)]
pub(super) struct LineTables {
    benches: BTreeMap<TargetKey, PathBuf>,
    programs: Option<PathBuf>,
}

/// Where and how `side` is built with line tables: the options, the shared target directory, the
/// kept directory and the progress label. One place, so that `--explain` and selection's
/// same-source check reuse each other's build.
pub(super) struct LineTablesBuild {
    pub options: BuildOptions,
    pub target_dir: PathBuf,
    pub kept_dir: PathBuf,
    pub label: String,
}

impl LineTablesBuild {
    pub(super) fn of(
        build: &BuildOptions,
        target_dir: &Path,
        perfdiff_dir: &Path,
        side: Side,
    ) -> Self {
        LineTablesBuild {
            options: BuildOptions {
                line_tables: true,
                layouts: 1,
                ..build.clone()
            },
            target_dir: super::shared_build_target(target_dir, "target-line-tables"),
            kept_dir: perfdiff_dir.join("line-tables").join(side.as_str()),
            label: format!("{} with line tables", side.as_str()),
        }
    }
}

impl LineTables {
    /// Builds the bench targets of `matched` (and the programs, for a command) on `side`.
    fn build(
        ctx: &MeasureContext,
        side: Side,
        matched: &[&Matched],
        progress: &mut Progress,
    ) -> std::result::Result<LineTables, String> {
        let LineTablesBuild {
            options,
            target_dir,
            kept_dir,
            label,
        } = LineTablesBuild::of(ctx.build, ctx.target_dir, ctx.perfdiff_dir, side);
        let root = &ctx.side(side).root;
        let mut quiet = |_: BuildEvent| {};
        let (mut tables, needed) = LineTables::of_measured(ctx, side, matched);
        let programs_needed = matched.iter().any(|m| is_command(m));
        if needed.is_empty() && !programs_needed {
            return Ok(tables);
        }
        progress.start_step(&format!("building {label}"));
        if !needed.is_empty() {
            let built = build::build_needed_benches(
                root,
                &label,
                &target_dir,
                &kept_dir,
                &options,
                &needed,
                &mut quiet,
            )
            .map_err(|e| e.to_string())?;
            for exe in built {
                tables
                    .benches
                    .insert(TargetKey::new(&exe.package, &exe.target), exe.path);
            }
        }
        if programs_needed {
            let programs = programs::build_programs(
                root,
                &label,
                &target_dir,
                &kept_dir,
                &options,
                &ctx.settings.profile,
                &mut quiet,
            )
            .map_err(|e| e.to_string())?;
            tables.programs = programs.layout_dirs.first().cloned();
        }
        progress.finish_bar();
        Ok(tables)
    }

    /// The measured executables of `matched`'s bench targets on `side` that have line tables of
    /// their own code already ([`source::has_checkout_line_tables`]: a bench profile with
    /// `debug = true`, such as itertools'), and the targets still to build with them. Reading
    /// the executables measured saves a build of both sides (itertools' `specializations`: 45 s
    /// each) and compares the very code that ran.
    fn of_measured(
        ctx: &MeasureContext,
        side: Side,
        matched: &[&Matched],
    ) -> (LineTables, Vec<TargetKey>) {
        let mut tables = LineTables::default();
        let mut needed = Vec::new();
        for &m in matched {
            let Some(target) = ctx.target_of(side, m) else {
                continue;
            };
            if tables.benches.contains_key(&target) || needed.contains(&target) {
                continue;
            }
            let exe = &ctx.built(side, m).exe.path;
            if source::has_checkout_line_tables(exe) {
                tables.benches.insert(target, exe.clone());
            } else {
                needed.push(target);
            }
        }
        (tables, needed)
    }

    /// `request` (a fork of `matched` on `side`) with the executable, or a command's programs,
    /// of this build; as it is where this build has none, or where its executable is the one
    /// measured ([`LineTables::of_measured`]: the request runs its fresh copy).
    fn apply(
        &self,
        ctx: &MeasureContext,
        side: Side,
        matched: &Matched,
        mut request: ForkRequest,
    ) -> ForkRequest {
        if is_command(matched) {
            if let Some(bin) = &self.programs {
                return ctx
                    .command_request_in(side, matched, bin.clone())
                    .unwrap_or(request);
            }
            return request;
        }
        let exe = ctx
            .target_of(side, matched)
            .and_then(|target| self.benches.get(&target));
        let measured = &ctx.built(side, matched).exe.path;
        if let Some(exe) = exe.filter(|exe| *exe != measured) {
            // Where the fork runs from its checkout, so does this build: a benchmark that finds
            // its data from its executable's path reads that side's (`run_place`).
            request.executable =
                run_place::beside(&request.executable, exe).unwrap_or_else(|| exe.clone());
        }
        request
    }
}
