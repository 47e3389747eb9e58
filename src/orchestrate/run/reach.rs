//! Selection by reach: before any timing, the benchmarks whose executed code, data and read
//! files are the same on both sides are set apart as `unchanged` (same code), and every other
//! benchmark says why it is measured ([`crate::steps::reach`], docs/selection.md).
//!
//! Each benchmark present on both sides is traced once on base (kept per executable content, so a
//! second comparison against the same base traces nothing), and compared with head's executable
//! through the objects both were linked from. Nothing here can make a benchmark skipped that the
//! step did not decide `same_code`: every failure on the way leaves it measured, with the reason.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::context::is_command;
use super::phases::SelectionPart;
use super::reach_outside::Decided;
use super::reach_probe::Probes;
use super::reach_sides::{SelectedSides, checkout_of, linked_code};
use super::{BuiltTarget, fork_timeout};
use crate::config::Settings;
use crate::model::samples::SelectionRecord;
use crate::model::samples::{Presence, SampleFile};
use crate::model::target::TargetKey;
use crate::steps::discover::Matched;
use crate::steps::fork::{ForkRequest, run_place};
use crate::steps::instructions::Valgrind;
use crate::steps::progress::{Progress, StepKind};
use crate::steps::reach::code::{CodeComparison, Comparer, LinkedCode};
use crate::steps::reach::files::{self, Checkouts};
use crate::steps::reach::settings::{self as build_settings, SideSettings};
use crate::steps::reach::trace::{self, TouchedFiles, TraceCache};
use crate::steps::reach::versions::{self, VersionChange};
use crate::steps::reach::{
    TimedSame, decide, name_timed_part, name_untimed, runs_changes_only_outside, settings_differ,
    undecided,
};
use crate::steps::report::id_line;
use crate::steps::stop::WARMUP_TIME_MIN;

/// The selection of every benchmark of `matched` that both sides have, by id; empty when
/// selection is off (`--measure-all`). Benchmarks whose records already hold a selection (a
/// resumed run) keep it.
pub(super) fn select_by_reach(
    selected: &SelectedSides<'_>,
    matched: &[Matched],
    file: &SampleFile,
    progress: &mut Progress,
) -> BTreeMap<String, SelectionRecord> {
    let (commands, candidates): (Vec<&Matched>, Vec<&Matched>) = matched
        .iter()
        .filter(|m| m.presence == Presence::Both)
        .filter(|m| {
            !file
                .benchmarks
                .iter()
                .any(|b| b.id == m.id && b.selection.is_some())
        })
        .partition(|m| is_command(m));
    if selected.settings.measure_all || (candidates.is_empty() && commands.is_empty()) {
        return BTreeMap::new();
    }
    let valgrind = match Valgrind::find() {
        Ok(valgrind) => valgrind,
        Err(e) => {
            progress.note(&format!(
                "every benchmark is measured: choosing what the change reaches needs valgrind ({e})"
            ));
            let why = format!("valgrind is missing: {e}");
            return candidates
                .iter()
                .chain(&commands)
                .map(|m| (m.id.clone(), undecided(why.clone())))
                .collect();
        }
    };
    progress.start_steps(
        &format!(
            "finding what the change reaches: {} benchmark(s), each traced once on base (under valgrind; natively where no function differs or valgrind would be too slow), then each it would skip probed natively (kept traces and probes reused)",
            candidates.len() + commands.len()
        ),
        rayon::current_num_threads(),
        [TRACE_PRIOR, probe_prior(selected.settings)],
    );
    let by_target = by_target(candidates);
    let traces = by_target.values().map(Vec::len).sum::<usize>() + commands.len();
    progress.expect_steps(StepKind::Trace, traces as u64);
    // Read once for every target and command: what explains functions without a partner.
    let versions = versions::changed(&selected.base.root, &selected.head.root);
    let mut records = select_targets(selected, &valgrind, by_target, &versions, progress);
    if !commands.is_empty() {
        let (decided, kept) = super::reach_commands::select_commands(
            selected, &valgrind, &commands, &versions, progress,
        );
        records.extend(decided);
        if kept > 0 {
            progress.note(&format!(
                "{kept} of {} command trace(s) kept from an earlier run (the same command, programs and files)",
                commands.len()
            ));
        }
    }
    progress.finish_bar();
    announce(&records, progress);
    records
}

/// The selection of the benchmarks of every pair of bench targets of `by_target`, and a note
/// of how many probes were kept from an earlier run; `versions`: the workspace's packages whose
/// version changed.
fn select_targets(
    selected: &SelectedSides<'_>,
    valgrind: &Valgrind,
    by_target: BTreeMap<(TargetKey, TargetKey), Vec<&Matched>>,
    versions: &[VersionChange],
    progress: &Progress,
) -> BTreeMap<String, SelectionRecord> {
    let mut records = BTreeMap::new();
    let mut probes = Probes::default();
    for ((base_key, head_key), benchmarks) in by_target {
        let (Some(base), Some(head)) = (
            selected.base.targets.get(&base_key),
            selected.head.targets.get(&head_key),
        ) else {
            progress.drop_steps(StepKind::Trace, benchmarks.len() as u64);
            continue;
        };
        let sides = (base, head);
        let (decided, probed) =
            select_in_target(selected, valgrind, sides, &benchmarks, versions, progress);
        probes.kept += probed.kept;
        probes.probed += probed.probed;
        records.extend(decided);
    }
    if probes.kept > 0 {
        progress.note(&format!(
            "{} of {} probe(s) kept from an earlier run (the same executable, changed functions, fork and files read)",
            probes.kept, probes.probed
        ));
    }
    records
}

/// `candidates` by their pair of bench targets (base's, head's).
fn by_target(candidates: Vec<&Matched>) -> BTreeMap<(TargetKey, TargetKey), Vec<&Matched>> {
    let mut by_target: BTreeMap<(TargetKey, TargetKey), Vec<&Matched>> = BTreeMap::new();
    for m in candidates {
        if let (Some(base), Some(head)) = (&m.base_target, &m.head_target) {
            by_target
                .entry((base.clone(), head.clone()))
                .or_default()
                .push(m);
        }
    }
    by_target
}

/// What a benchmark's trace is expected to take before one is done: valgrind's start and one
/// call of the routine in test mode.
const TRACE_PRIOR: Duration = Duration::from_secs(3);

/// What a native probe is expected to take before one is done: a fork's warm-up (at least the
/// adaptive floor) and measurement, stretched by the probe's first margin, and a start.
fn probe_prior(settings: &Settings) -> Duration {
    let warm_up = Duration::from_millis(settings.warm_up_ms).max(WARMUP_TIME_MIN);
    (warm_up + Duration::from_millis(settings.measurement_ms)).mul_f64(1.25)
        + Duration::from_millis(500)
}

/// The selection of `benchmarks`, all of one bench target whose executables are `base` and
/// `head`, and how many of them were probed and kept; `versions`: the workspace's packages
/// whose version changed.
fn select_in_target(
    sides: &SelectedSides<'_>,
    valgrind: &Valgrind,
    (base, head): (&BuiltTarget, &BuiltTarget),
    benchmarks: &[&Matched],
    versions: &[VersionChange],
    progress: &Progress,
) -> (Vec<(String, SelectionRecord)>, Probes) {
    let all = |record: SelectionRecord| {
        progress.drop_steps(StepKind::Trace, benchmarks.len() as u64);
        let records = benchmarks.iter().map(|m| (m.id.clone(), record.clone()));
        (records.collect::<Vec<_>>(), Probes::default())
    };
    let (base_checkout, head_checkout) =
        (checkout_of(&sides.base.root), checkout_of(&sides.head.root));
    let differences = build_settings::differences(
        &side_settings(&base_checkout, &sides.base.root, base),
        &side_settings(&head_checkout, &sides.head.root, head),
    );
    if let Some(first) = differences.first() {
        return all(settings_differ(first));
    }
    let (base_code, head_code) = match (target_code(base), target_code(head)) {
        (Ok(b), Ok(h)) => (b, h),
        (Err(why), _) | (_, Err(why)) => return all(undecided(why)),
    };
    let mut comparer = Comparer::new(&base_code, &head_code)
        .with_checkouts(&base_checkout, &head_checkout, versions)
        .with_out_dirs(&base.exe.build_out_dirs, &head.exe.build_out_dirs);
    let cache = trace_cache(sides, &base_checkout);
    let executable = run_from(sides, base);
    let mut own_files = own_files(base);
    own_files.push(executable.clone());
    let build_dirs = build_dirs(sides, &executable);
    let checkouts = Checkouts {
        base: &base_checkout,
        head: &head_checkout,
        own_files: &own_files,
        build_dirs: &build_dirs,
        working_tree: Some(sides.working_tree),
    };
    // One run for the target's benchmarks where it can be split, else one each, one per CPU.
    let requests: Vec<ForkRequest> = benchmarks
        .iter()
        .map(|m| trace_request(sides, base, &executable, m))
        .collect();
    let tracing = Instant::now();
    let natively = all_code_same(&mut comparer, &executable)
        .filter(|_| requests.iter().all(|r| trace::native::supports(r.harness)));
    let mut same = |union: &trace::Trace| {
        decide_traced(union, &mut comparer, &checkouts, versions)
            .0
            .skipped()
    };
    let tracer = Tracer::new(valgrind, &cache, sides.perfdiff_dir, progress);
    let traces = tracer.run(&requests, natively, &mut same);
    sides.clock.add(SelectionPart::Trace, tracing.elapsed());
    // What each trace touched of the project: a probe's kept outcome depends on it too.
    let touched = touched_files(&traces, &base_checkout, sides.target_dir, &executable);
    let decided: Vec<(String, Decided)> = benchmarks
        .iter()
        .zip(traces)
        .map(|(m, traced)| {
            let decided = match traced {
                Err(e) => (undecided(format!("its trace failed: {e}")), None),
                Ok(traced) => decide_traced(&traced, &mut comparer, &checkouts, versions),
            };
            (m.id.clone(), decided)
        })
        .collect();
    // What runs only outside the timed loop is not measured: skipped when its source is the same.
    let records = super::reach_outside::skip_outside_loop(sides, (base, head), decided, progress);
    // The trace's iterations are fewer than a fork's: what it would skip is run once natively.
    let probing = Instant::now();
    let probed = ((base, head), (requests.as_slice(), touched.as_slice()));
    let probed = super::reach_probe::probe_skipped(sides, &mut comparer, probed, records, progress);
    sides.clock.add(SelectionPart::Probe, probing.elapsed());
    probed
}

/// The code `built` was linked from, as the comparison reads it.
fn target_code(built: &BuiltTarget) -> Result<LinkedCode, String> {
    let exe = &built.exe;
    linked_code(
        &exe.path,
        exe.relink.as_ref(),
        exe.relink_missing.as_deref(),
        "its build",
    )
}

/// The kept traces of the benchmarks run in base's `checkout`: each reused while what it touched
/// of the checkout and the target directory is as it was.
fn trace_cache(sides: &SelectedSides<'_>, checkout: &Path) -> TraceCache {
    let project = [checkout.to_path_buf(), sides.target_dir.to_path_buf()];
    TraceCache::new(sides.perfdiff_dir.join("traces")).with_project(&project)
}

/// What each of `traces` touched of the project (`checkout`, `target_dir`) but `executable`.
fn touched_files(
    traces: &[Result<trace::Trace, trace::TraceError>],
    checkout: &Path,
    target_dir: &Path,
    executable: &Path,
) -> Vec<TouchedFiles> {
    let project = [checkout.to_path_buf(), target_dir.to_path_buf()];
    let touched = traces.iter().map(|traced| match traced {
        Ok(traced) => TouchedFiles::of(traced, &project, executable),
        Err(_) => TouchedFiles::default(),
    });
    touched.collect()
}

/// Why the benchmarks of `executable` (base's, compared by `comparer`) need no valgrind trace:
/// no function of it differs from its partner in head (nor the data they reach), so what each
/// benchmark executes is the same code, and the native trace tells what it reads and starts.
/// `None` when some function differs or the comparison cannot say. (A harness the native trace
/// cannot follow, `bencher`'s, is traced under valgrind all the same: ttf-parser's 24.)
fn all_code_same(comparer: &mut Comparer<'_>, executable: &Path) -> Option<String> {
    match comparer.changed_entries() {
        Ok(changed) if changed.is_empty() => Some(format!(
            "{}: traced natively (no function differs from head's executable, so only the files \
             its benchmarks read are asked, which needs no valgrind run)",
            executable.file_name().unwrap_or_default().to_string_lossy()
        )),
        _ => None,
    }
}

/// What traces a target's benchmarks: valgrind, the kept traces, a scratch directory for runs,
/// and where each step is told.
struct Tracer<'a> {
    valgrind: &'a Valgrind,
    cache: &'a TraceCache,
    scratch: &'a Path,
    progress: &'a Progress,
}

impl<'a> Tracer<'a> {
    fn new(
        valgrind: &'a Valgrind,
        cache: &'a TraceCache,
        scratch: &'a Path,
        progress: &'a Progress,
    ) -> Self {
        Tracer {
            valgrind,
            cache,
            scratch,
            progress,
        }
    }

    /// The traces of `requests`: [`Tracer::natively`] when `natively` says why no function of
    /// their target differs (with `same`), else [`Tracer::traces`].
    fn run(
        &self,
        requests: &[ForkRequest],
        natively: Option<String>,
        same: &mut dyn FnMut(&trace::Trace) -> bool,
    ) -> Vec<Result<trace::Trace, trace::TraceError>> {
        match natively {
            Some(why) => self.natively(requests, &why, same),
            None => self.traces(requests),
        }
    }

    /// The traces of `requests` (one target's benchmarks), each step told to the progress, and a
    /// note when valgrind would take too long and they were traced natively.
    fn traces(&self, requests: &[ForkRequest]) -> Vec<Result<trace::Trace, trace::TraceError>> {
        let done = |request: &ForkRequest, took| self.done(request, took);
        let note = |message: &str| self.progress.note(message);
        let (valgrind, cache, scratch) = (self.valgrind, self.cache, self.scratch);
        trace::split::trace_benchmarks(requests, valgrind, cache, scratch, (&done, &note))
    }

    /// The traces of `requests` when no function of their target differs from head's (`why`,
    /// noted): the kept ones, and those not kept from one native run of them all
    /// ([`Tracer::union_if_same`]), else each natively in a run of its own, kept (what a
    /// benchmark that read a changed file needs: its own files, so that the others stay the
    /// same). Each kept trace is read once.
    fn natively(
        &self,
        requests: &[ForkRequest],
        why: &str,
        same: &mut dyn FnMut(&trace::Trace) -> bool,
    ) -> Vec<Result<trace::Trace, trace::TraceError>> {
        let mut traces: Vec<Option<Result<trace::Trace, trace::TraceError>>> = requests
            .iter()
            .map(|request| self.cache.kept(request).map(Ok))
            .collect();
        let missing: Vec<ForkRequest> = requests
            .iter()
            .zip(&traces)
            .filter(|(_, kept)| kept.is_none())
            .map(|(request, _)| request.clone())
            .collect();
        for (request, _) in requests.iter().zip(&traces).filter(|(_, t)| t.is_some()) {
            self.done(request, Duration::ZERO);
        }
        let made = self.union_if_same(&missing, why, same).unwrap_or_else(|| {
            let done = |request: &ForkRequest, took| self.done(request, took);
            let note = |message: &str| self.progress.note(message);
            let (cache, scratch) = (self.cache, self.scratch);
            trace::split::trace_benchmarks_natively(&missing, cache, scratch, (&done, &note), why)
        });
        let slots = traces.iter_mut().filter(|trace| trace.is_none());
        for (slot, trace) in slots.zip(made) {
            *slot = Some(trace);
        }
        traces.into_iter().flatten().collect()
    }

    /// The traces of `missing` (two or more benchmarks of one target, none kept) from one native
    /// run of them all ([`trace::split::trace_union_natively`]), when `same` finds that run's
    /// trace the same code and files: each benchmark did less than all of them, so it is the
    /// same too. `None` when the run fails or is not the same. One run pays a target's set-up
    /// once: range-set-blaze's 500 benchmarks each took 13 to 20 s natively on a busy machine,
    /// most of it the set-up criterion runs before its filter.
    fn union_if_same(
        &self,
        missing: &[ForkRequest],
        why: &str,
        same: &mut dyn FnMut(&trace::Trace) -> bool,
    ) -> Option<Vec<Result<trace::Trace, trace::TraceError>>> {
        if missing.len() < 2 {
            return None;
        }
        let started = Instant::now();
        let union = trace::split::trace_union_natively(missing, self.scratch).ok()?;
        if !same(&union) {
            return None;
        }
        self.progress.note(&format!("{why}; in one run"));
        let each = started.elapsed() / missing.len() as u32;
        let given = missing.iter().map(|request| {
            self.done(request, each);
            Ok(trace::Trace {
                cwd: request.cwd.clone(),
                ..union.clone()
            })
        });
        Some(given.collect())
    }

    fn done(&self, request: &ForkRequest, took: Duration) {
        let id = id_line(&request.benchmark_id);
        self.progress.step_done(StepKind::Trace, took, &id);
    }
}

/// The decision for a benchmark whose trace is `traced`; `versions`: the workspace's packages
/// whose version changed.
fn decide_traced(
    traced: &trace::Trace,
    comparer: &mut Comparer<'_>,
    checkouts: &Checkouts<'_>,
    versions: &[VersionChange],
) -> Decided {
    if let Some(call) = traced.unresolved.iter().next() {
        return (
            undecided(format!(
                "a file it opens cannot be told from its trace ({call})"
            )),
            None,
        );
    }
    let started = |dir: &Path| traced.programs.iter().find(|p| p.starts_with(dir));
    if let Some(program) =
        started(checkouts.base).or_else(|| checkouts.build_dirs.iter().find_map(|d| started(d)))
    {
        return (
            undecided(format!(
                "it starts {}, a program of the checkout or build",
                program.display()
            )),
            None,
        );
    }
    let code = comparer.compare(&traced.executed);
    let files = files::compare(
        traced
            .files
            .iter()
            .map(|(path, access)| (path.as_path(), *access >= trace::Access::Opened)),
        checkouts,
    );
    let mut record = decide(&code, &files, &[], versions::renaming(versions));
    record.set_up_ms = traced.set_up_ms.map(|ms| ms.round() as u64);
    // Which of the changed functions its timed loop runs, when the trace tells.
    let mut timed_same = None;
    if let (Some(timed), false) = (&traced.timed, record.changed_functions.is_empty()) {
        match comparer.compare(timed) {
            CodeComparison::Differs { functions, .. } => name_timed_part(&mut record, &functions),
            CodeComparison::Same {
                functions, data, ..
            } => {
                name_timed_part(&mut record, &[]);
                timed_same = Some(TimedSame {
                    functions,
                    data,
                    files: files.same,
                });
            }
            CodeComparison::Unknown { .. } => {}
        }
    }
    if let (None, Some(why)) = (&traced.timed, &traced.untimed) {
        name_untimed(&mut record, why);
    }
    let candidate = runs_changes_only_outside(&record) && files.undecided.is_none();
    (record, timed_same.filter(|_| candidate))
}

/// The directories whose files are build output: the target directory, and the place in base's
/// checkout that `executable` runs from ([`run_place::ours_of`]), though it lies in the checkout.
fn build_dirs(sides: &SelectedSides<'_>, executable: &Path) -> Vec<PathBuf> {
    std::iter::once(sides.target_dir.to_path_buf())
        .chain(run_place::ours_of(executable))
        .collect()
}

/// Base's cargo-built executable where a fork runs it from: in base's checkout of the workspace
/// ([`run_place`]), so that a benchmark that finds its data from its executable's path reads in
/// its trace and probe what it reads when measured; its kept path where the forks run from
/// cargo-perfdiff's own directory (either checkout holds a `target` of its own).
fn run_from(sides: &SelectedSides<'_>, base: &BuiltTarget) -> PathBuf {
    run_place::in_checkouts([&sides.base.root, &sides.head.root])
        .and_then(|[release, _]| run_place::place(&release, &base.exe.path).ok())
        .unwrap_or_else(|| base.exe.path.clone())
}

/// The fork request whose trace tells what `matched` executes: base's cargo-built executable at
/// `executable` ([`run_from`]), run as a fork runs it (its package's directory, cargo's
/// environment).
fn trace_request(
    sides: &SelectedSides<'_>,
    base: &BuiltTarget,
    executable: &Path,
    matched: &Matched,
) -> ForkRequest {
    ForkRequest {
        executable: executable.to_path_buf(),
        cwd: base.exe.package_root.clone(),
        env: base.env.clone(),
        benchmark_id: matched.criterion_id.clone(),
        harness: base.harness.get(),
        warm_up: Duration::from_millis(sides.settings.warm_up_ms),
        measurement: Duration::from_millis(sides.settings.measurement_ms),
        sample_size: sides.settings.sample_size.max(10),
        harness_sample_size: None,
        timeout: fork_timeout(sides.settings),
        criterion_home: sides.perfdiff_dir.join("criterion-home").join("trace"),
        cpu: None,
        command: None,
    }
}

/// The files a trace may open that are the bench executable's own: it, and its kept copies.
fn own_files(built: &BuiltTarget) -> Vec<PathBuf> {
    std::iter::once(built.exe.path.clone())
        .chain(built.exe.layouts.iter().cloned())
        .collect()
}

/// A side's settings as [`build_settings::differences`] compares them.
fn side_settings<'a>(
    checkout: &'a Path,
    workspace: &'a Path,
    built: &'a BuiltTarget,
) -> SideSettings<'a> {
    SideSettings {
        checkout,
        workspace,
        env: &built.exe.cargo_env,
        library_dirs: &built.exe.native_library_dirs,
    }
}

/// One line for what was set apart, and one per reason a benchmark is measured.
fn announce(records: &BTreeMap<String, SelectionRecord>, progress: &mut Progress) {
    let skipped = records.values().filter(|r| r.skipped()).count();
    progress.note(&format!(
        "{skipped} of {} benchmark(s) execute the same code on both sides: unchanged without measuring (--measure-all measures them)",
        records.len()
    ));
    for line in measured_lines(records) {
        progress.note(&line);
    }
}

/// How many benchmarks of one reason get a line each; more share one line, which names this
/// many and counts the rest.
const NAMED_PER_REASON: usize = 3;

/// The lines saying why the measured benchmarks of `records` are measured, in their order:
/// `ID is measured: WHY`, except that a reason more than [`NAMED_PER_REASON`] benchmarks share
/// is one line where its first would be, `N benchmarks are measured (A, B, C and N − 3 more):
/// WHY` (RustCrypto/hashes: 192 lines of one reason; the JSON keeps each benchmark's).
fn measured_lines(records: &BTreeMap<String, SelectionRecord>) -> Vec<String> {
    let measured: Vec<(&String, &SelectionRecord)> =
        records.iter().filter(|(_, r)| r.measured).collect();
    let sharing = |why: &str| -> Vec<String> {
        let ids = measured.iter().filter(|(_, r)| r.detail == why);
        ids.map(|(id, _)| id_line(id)).collect()
    };
    let mut told: Vec<&str> = Vec::new();
    let mut lines = Vec::new();
    for (id, record) in &measured {
        let why = record.detail.as_str();
        let ids = sharing(why);
        if ids.len() <= NAMED_PER_REASON {
            lines.push(format!("{} is measured: {why}", id_line(id)));
        } else if !told.contains(&why) {
            told.push(why);
            let named = ids[..NAMED_PER_REASON].join(", ");
            let more = ids.len() - NAMED_PER_REASON;
            let n = ids.len();
            lines.push(format!(
                "{n} benchmarks are measured ({named} and {more} more): {why}"
            ));
        }
    }
    lines
}

/// Sets each benchmark's selection on its records (its time record, its instruction record when
/// instructions are counted, a command's memory record).
pub(super) fn record(file: &mut SampleFile, selections: BTreeMap<String, SelectionRecord>) {
    for (id, selection) in selections {
        let ids = [
            crate::model::profile::instructions_id(&id),
            crate::model::command::memory_id(&id),
            id,
        ];
        for record in file.benchmarks.iter_mut().filter(|b| ids.contains(&b.id)) {
            record.selection = Some(selection.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reason_of_many_measured_benchmarks_is_one_line_and_of_few_one_line_each() {
        let no_objects = "its build kept no objects to compare";
        let mut records: BTreeMap<String, SelectionRecord> = ["a_10", "a_100", "b_10", "b_100"]
            .iter()
            .map(|id| (id.to_string(), undecided(no_objects.into())))
            .collect();
        records.insert("a_2".into(), undecided("its trace failed".into()));
        records.insert("c".into(), undecided("its trace failed".into()));
        let same = SelectionRecord {
            measured: false,
            ..SelectionRecord::default()
        };
        records.insert("d".into(), same);
        // A criterion id with a line break (pulldown-cmark's groups) stays on its line.
        records.insert(
            "e {\n  /1".into(),
            undecided("the build settings differ".into()),
        );
        assert_eq!(
            measured_lines(&records),
            [
                "4 benchmarks are measured (a_10, a_100, b_10 and 1 more): its build kept no \
                 objects to compare",
                "a_2 is measured: its trace failed",
                "c is measured: its trace failed",
                "e {\\n  /1 is measured: the build settings differ",
            ]
        );
    }
}
