//! The native probe of every benchmark selection would skip ([`crate::steps::reach::probe`]):
//! run once as a fork runs it, with a breakpoint at every function of base's executable whose
//! code differs from head's, so that a changed function the valgrind trace's fewer iterations
//! never reached still measures the benchmark. The probe of a benchmark of a harness with a
//! timed routine (criterion, divan, libtest, `bencher`: [`has_timed_routine`]) watches that
//! routine: what it enters outside it, untraced, is decided by its source afterwards
//! ([`super::reach_probe_outside`]). A fork runs its harness's sampling and bookkeeping around
//! the routine (criterion's `analysis::common`, divan's tuning between samples, what a
//! benchmark's function runs after `Bencher::bench` or `iter` has returned), which a trace of one
//! call (test mode) or of a shorter run never runs; counting every changed entry there measured
//! such a benchmark for code no sample times.
//!
//! Why after the decision and only for the skipped: a benchmark already measured needs no
//! probe, and a comment-only commit (no function differs) needs none at all. The set of changed
//! functions is computed once per pair of executables, by the same [`Comparer`] that decided.
//!
//! Why kept: a probe runs for a fork's length (longer when it is still settling), and `--list`
//! then the comparison, or the same comparison run again, would run the same probes again. Each
//! outcome is kept beside the traces under everything it depends on
//! ([`crate::steps::reach::trace::probe_cache`]); a failure is not kept.

use std::path::Path;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::model::harness::Harness;
use crate::model::samples::{ForkRecord, SelectionReason, SelectionRecord};
use crate::steps::fork::ForkRequest;
use crate::steps::progress::{Progress, StepKind};
use crate::steps::reach::code::{ChangedEntry, Comparer};
use crate::steps::reach::probe::{
    Probe, ProbeFailure, Timed, has_timed_routine, probe_benchmark, timed_routines,
};
use crate::steps::reach::trace::{
    KeptAlone, KeptProbe, ProbeInputs, ProbeKeys, TouchedFiles, TraceCache, alone_key,
};
use crate::steps::reach::undecided;
use crate::steps::report::id_line;

use super::BuiltTarget;
use super::reach_outside::compare_sources;
use super::reach_sides::SelectedSides;
use crate::steps::stop::{StopPolicy, WARMUP_TIME_MAX, WARMUP_TIME_MIN};

/// `records` (of the benchmarks `requests` trace, in the same order; `files`: what each one's
/// trace touched of the project) with every skipped one probed: measured when its probe enters
/// a changed function that counts or fails, or enters one outside its timed routine whose
/// source is not the same in the builds with line tables of `base`'s and `head`'s bench target
/// ([`super::reach_probe_outside::decide_outside`]); and how many were probed and
/// kept.
pub(super) fn probe_skipped(
    sides: &SelectedSides<'_>,
    comparer: &mut Comparer<'_>,
    ((base, head), (requests, files)): Targets<'_>,
    records: Vec<(String, SelectionRecord)>,
    progress: &Progress,
) -> (Vec<(String, SelectionRecord)>, Probes) {
    if !records.iter().any(|(_, record)| record.skipped()) {
        return (records, Probes::default());
    }
    let entries = match comparer.changed_entries() {
        Ok(entries) => entries,
        Err(why) => {
            let failed = undecided(format!("its native probe cannot run: {why}"));
            let records = records
                .into_iter()
                .map(|(id, r)| (id, if r.skipped() { failed.clone() } else { r }))
                .collect();
            return (records, Probes::default());
        }
    };
    let policy = StopPolicy::from_settings(sides.settings);
    // The timed routines of the target's executable, found once when a probe watches them.
    let watched = |((_, r), q): (&(String, SelectionRecord), &ForkRequest)| {
        is_outside_skip(r) || (r.skipped() && has_timed_routine(q.harness))
    };
    let timed = match records.iter().zip(requests).any(watched) {
        true => requests
            .first()
            .map(|request| timed_routines(&request.executable, request.harness)),
        false => None,
    };
    // The target's benchmarks all run base's one executable: digested once for their keys,
    // when there is something to probe.
    let keys = match entries.is_empty() {
        true => None,
        false => requests
            .first()
            .and_then(|request| ProbeKeys::new(&request.executable).ok()),
    };
    let probing = Probing {
        entries: &entries,
        timed: timed.as_ref(),
        perfdiff_dir: sides.perfdiff_dir,
        policy: &policy,
        progress,
        kept: Kept {
            cache: TraceCache::new(sides.perfdiff_dir.join("traces")),
            keys: keys.as_ref(),
            settling: settling_rule(&policy),
        },
    };
    let (probed, probes) = probing.probe_all(records, (requests, files));
    // What a probe entered outside the timed routine, untraced, is skipped when its source is.
    let compare = |functions: &[String]| compare_sources(sides, (base, head), functions);
    let decided = super::reach_probe_outside::decide_outside(probed, compare, progress);
    (decided, probes)
}

/// The bench target's executables on both sides, and its benchmarks' traced requests and what
/// each trace touched of the project, in the same order.
pub(super) type Targets<'a> = (
    (&'a BuiltTarget, &'a BuiltTarget),
    (&'a [ForkRequest], &'a [TouchedFiles]),
);

/// How many of a target's benchmarks were probed, and of those how many outcomes were kept
/// from an earlier run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Probes {
    pub(super) probed: usize,
    pub(super) kept: usize,
}

/// The settings of steady-state detection that decide whether a probe runs again with the
/// longest warm-up ([`Probing::still_settling`]), in words, for the kept outcome's key.
fn settling_rule(policy: &StopPolicy) -> String {
    format!(
        "warm-up detection: window {}, threshold {}",
        policy.window, policy.warmup_threshold
    )
}

/// Whether `record` is skipped although it executes changed code, because that code runs only
/// outside its timed loop: its probe counts only what runs inside the timed routine.
fn is_outside_skip(record: &SelectionRecord) -> bool {
    record.skipped() && !record.outside_loop.is_empty()
}

/// Whether the probe of `record` watches its timed routine only to tell apart what runs outside
/// it ([`Probing::timed_of`], a benchmark skipped by its trace), so that a probe
/// that cannot (threads of the benchmark's own beside the routine) may count every entry
/// instead, as it did before it watched the routine.
fn watches_only(record: &SelectionRecord, timed: &Timed) -> bool {
    !is_outside_skip(record) && !timed.routines.is_empty()
}

/// Why the watching probe of `record` failed, when a probe counting every entry may pass where
/// it did not: it watched only to tell apart what runs outside the routine ([`watches_only`]),
/// and a run failed ([`ProbeFailure::may_pass_unwatched`]: watching may be what failed). `None`
/// for a run too busy to cover a fork's, or whose wait is unreadable: the probe counting every
/// entry would be judged by the same figures on the same machine, and the benchmark is measured
/// for what the watching probe found.
fn failed_watching<'p>(
    probe: &'p Probe,
    record: &SelectionRecord,
    timed: &Timed,
) -> Option<&'p ProbeFailure> {
    match probe {
        Probe::Failed(why) if watches_only(record, timed) && why.may_pass_unwatched() => Some(why),
        _ => None,
    }
}

/// What every probe of a run shares.
struct Probing<'a> {
    entries: &'a [ChangedEntry],
    /// The timed routines' entries when a skip of the target rests on them, or why they cannot
    /// be found.
    timed: Option<&'a Result<Vec<ChangedEntry>, String>>,
    perfdiff_dir: &'a Path,
    policy: &'a StopPolicy,
    /// Where each probe run's coverage and samples are logged (`--verbose`).
    progress: &'a Progress,
    kept: Kept<'a>,
}

/// Where the probes' outcomes are kept, and what their keys are made of.
struct Kept<'a> {
    cache: TraceCache,
    /// `None` when base's executable cannot be read: nothing is kept.
    keys: Option<&'a ProbeKeys>,
    settling: String,
}

/// What the record says of a probe run again because its first was still settling.
const SETTLING: &str = " (still settling: probed again with the longest warm-up a fork can get)";

/// Why a benchmark whose trace saw it set its own CPU affinity is probed alone from the start.
const TRACED_PINNING: &str = "its trace saw it set its own CPU affinity (sched_setaffinity)";

/// What the record says of a probe run again alone because its first was too busy while
/// another probe ran beside it ([`Probing::alone_again`]).
const ALONE: &str =
    " (its first probe was too busy while another probe ran beside it: probed again alone)";

/// What the probe of one benchmark made of its record.
struct Probed {
    record: SelectionRecord,
    /// Whether its outcome was kept from an earlier run; `None`: nothing was probed.
    kept: Option<bool>,
    /// The changed functions it entered outside its timed routine, whose source decides.
    outside: Vec<String>,
    /// Its probe failed as too busy ([`ProbeFailure::TooBusy`]).
    too_busy: bool,
    /// The CPUs the benchmark allowed itself when its probe saw it set its own CPU affinity
    /// ([`crate::steps::reach::probe::ProbeOutcome::own_cpus`]).
    own_cpus: Option<String>,
}

impl Probed {
    /// `record` as decided without a probe run (`kept`: whether from an earlier run).
    fn decided(record: SelectionRecord, kept: Option<bool>) -> Probed {
        Probed {
            record,
            kept,
            outside: Vec::new(),
            too_busy: false,
            own_cpus: None,
        }
    }

    /// This outcome, kept from an earlier run (`true`) or probed now.
    fn kept(self, kept: bool) -> Probed {
        Probed {
            kept: Some(kept),
            ..self
        }
    }

    /// This outcome, its probe having seen the benchmark allow itself `own_cpus`.
    fn pinned(self, own_cpus: Option<String>) -> Probed {
        Probed { own_cpus, ..self }
    }
}

/// One benchmark of a target in [`Probing::probe_all`]: what its probe made of it, its record
/// before when that probe was too busy (to probe it again alone), when the probe ran, and
/// whether it was probed again alone after that.
struct Slot {
    id: String,
    probed: Probed,
    before: Option<SelectionRecord>,
    span: Option<(Instant, Instant)>,
    again_alone: bool,
    /// Its probe ran in the first pass, where others may run beside it.
    crowded: bool,
    /// A probe of it again alone is expected ([`Progress::expect_alone_steps`]): its first,
    /// beside others, was too busy.
    expected_alone: bool,
}

impl Slot {
    /// A benchmark measured already: nothing to probe. Also one whose probe waits to run alone.
    fn unprobed(id: String, record: SelectionRecord) -> Slot {
        Slot {
            id,
            probed: Probed::decided(record, None),
            before: None,
            span: None,
            again_alone: false,
            crowded: false,
            expected_alone: false,
        }
    }

    /// Why the next run probes this benchmark alone from the start, if it must: its probe saw
    /// it set its own CPU affinity, or was too busy beside another probe.
    fn alone_next_time(&self) -> Option<KeptAlone> {
        let why = match (&self.probed.own_cpus, self.again_alone) {
            (Some(cpus), _) => {
                format!("an earlier probe saw it set its own CPU affinity: CPU {cpus}")
            }
            (None, true) => "an earlier probe was too busy beside another probe".to_string(),
            (None, false) => return None,
        };
        Some(KeptAlone { why })
    }
}

/// How many of the probes run at `spans` ran at some moment of the one at `at` (none when it
/// did not run).
fn overlapping(spans: &[Option<(Instant, Instant)>], at: usize) -> usize {
    let Some((start, end)) = spans[at] else {
        return 0;
    };
    spans
        .iter()
        .enumerate()
        .filter(|(other, span)| *other != at && span.is_some_and(|(s, e)| s < end && start < e))
        .count()
}

impl Probing<'_> {
    /// [`probe_skipped`] once its probes' shared part is known: the probes run one per CPU at
    /// a time, as the traces run, but those an earlier run found must run alone
    /// ([`KeptAlone`]), which run one after the other once the others are done
    /// ([`Probing::alone_first`]); then each that was too busy while another ran beside it runs
    /// again alone ([`Probing::alone_again`]). What this run found must run alone is kept.
    fn probe_all(
        &self,
        records: Vec<(String, SelectionRecord)>,
        (requests, files): (&[ForkRequest], &[TouchedFiles]),
    ) -> (Vec<(String, SelectionRecord, Vec<String>)>, Probes) {
        let alone: Vec<Option<KeptAlone>> = requests
            .iter()
            .zip(files)
            .map(|(request, files)| self.alone_from_the_start(request, files))
            .collect();
        self.expect_probes(&records, &alone);
        // Other probes may run beside each of the first pass.
        let crowded = rayon::current_num_threads() > 1
            && records.iter().filter(|(_, r)| r.skipped()).count() > 1;
        let mut slots: Vec<Slot> = records
            .into_par_iter()
            .zip(requests.par_iter().zip(files.par_iter()))
            .zip(alone.par_iter())
            .map(|(((id, record), (request, files)), alone)| match alone {
                Some(_) if record.skipped() => Slot::unprobed(id, record),
                _ => self.first_pass((id, record), (request, files), (crowded, false)),
            })
            .collect();
        for (at, slot) in slots.iter_mut().enumerate() {
            if let Some(why) = &alone[at] {
                self.alone_first(slot, why, (&requests[at], &files[at]));
            }
        }
        let spans: Vec<_> = slots.iter().map(|slot| slot.span).collect();
        for (at, slot) in slots.iter_mut().enumerate() {
            let beside = overlapping(&spans, at);
            // A benchmark that pins itself may have given up beside others before any ran.
            let pinned = slot.crowded && slot.probed.own_cpus.is_some();
            if slot.probed.too_busy && (beside > 0 || pinned) {
                self.alone_again(slot, beside, (&requests[at], &files[at]));
            } else if slot.expected_alone {
                self.progress.drop_alone_steps(StepKind::Probe, 1);
            }
        }
        self.remember_alone(&slots, requests);
        let count = |kept: fn(&Option<bool>) -> bool| {
            slots.iter().filter(|slot| kept(&slot.probed.kept)).count()
        };
        let probes = Probes {
            probed: count(Option::is_some),
            kept: count(|kept| *kept == Some(true)),
        };
        let records = slots
            .into_iter()
            .map(|slot| (slot.id, slot.probed.record, slot.probed.outside))
            .collect();
        (records, probes)
    }

    /// Why the probe of `request`'s benchmark runs alone from the start, if it must: an earlier
    /// run found it must ([`KeptAlone`]), or its trace saw it set its own CPU affinity
    /// ([`TouchedFiles::sets_affinity`]), so that a first run need not probe it beside the others
    /// first (where it may share the CPU it pins itself to with another, and fall short) and then
    /// again alone. A scheduling choice only: a benchmark wrongly taken to pin itself costs
    /// parallelism, never soundness (every probe is judged by the same figures).
    fn alone_from_the_start(
        &self,
        request: &ForkRequest,
        files: &TouchedFiles,
    ) -> Option<KeptAlone> {
        let kept = self.kept.cache.kept_alone(&alone_key(request));
        kept.or_else(|| {
            files.sets_affinity().then(|| KeptAlone {
                why: TRACED_PINNING.to_string(),
            })
        })
    }

    /// Tells the progress the probes expected of `records` (`alone`: those that run alone from
    /// the start, one after the other, once the others are done).
    fn expect_probes(&self, records: &[(String, SelectionRecord)], alone: &[Option<KeptAlone>]) {
        if self.entries.is_empty() {
            return;
        }
        let skipped = records.iter().zip(alone).filter(|((_, r), _)| r.skipped());
        let (alone, beside): (Vec<_>, Vec<_>) = skipped.partition(|(_, alone)| alone.is_some());
        self.progress
            .expect_steps(StepKind::Probe, beside.len() as u64);
        self.progress
            .expect_alone_steps(StepKind::Probe, alone.len() as u64);
    }

    /// The first probe of `record` (a benchmark not skipped is left as it is), run beside the
    /// others when `crowded` ([`probe_benchmark`]'s `beside`), or `alone` from the start: its
    /// outcome, when it ran, and the record before it when it was too busy. One too busy beside
    /// others is expected to run again alone, told to the progress before this one is done, so
    /// that its time counts in the time left.
    fn first_pass(
        &self,
        (id, record): (String, SelectionRecord),
        (request, files): (&ForkRequest, &TouchedFiles),
        (crowded, alone): (bool, bool),
    ) -> Slot {
        if !record.skipped() {
            return Slot::unprobed(id, record);
        }
        let before = record.clone();
        let started = Instant::now();
        let probed = self.probed((&id, record), (request, files), crowded);
        let ended = Instant::now();
        // A probe that ran (not kept) and failed is what may be probed again.
        let ran = probed.kept == Some(false);
        let expected_alone = self.expects_again_alone(&probed, crowded);
        if expected_alone {
            self.progress.expect_alone_steps(StepKind::Probe, 1);
        }
        self.step_done(&id, &probed, ended - started, alone);
        Slot {
            before: probed.too_busy.then_some(before),
            span: ran.then_some((started, ended)),
            id,
            probed,
            again_alone: false,
            crowded,
            expected_alone,
        }
    }

    /// Whether the first probe `probed`, run beside others when `crowded`, is expected to run
    /// again alone ([`Probing::alone_again`]): it ran (not kept) and was too busy beside others.
    /// Told to the progress before its own step is done, so that the time left counts it.
    fn expects_again_alone(&self, probed: &Probed, crowded: bool) -> bool {
        crowded && probed.kept == Some(false) && probed.too_busy && !self.entries.is_empty()
    }

    /// Probes `slot`'s benchmark (skipped, not yet probed) alone, as an earlier run found it must
    /// be (`why`), after the probes run one per CPU are done: the first pass would otherwise put
    /// it beside another, then probe it again alone, twice the runs for one that counts.
    fn alone_first(
        &self,
        slot: &mut Slot,
        why: &KeptAlone,
        (request, files): (&ForkRequest, &TouchedFiles),
    ) {
        if !slot.probed.record.skipped() || slot.probed.kept.is_some() {
            return;
        }
        let record = std::mem::take(&mut slot.probed.record);
        let mut ran = self.first_pass((slot.id.clone(), record), (request, files), (false, true));
        if ran.probed.kept == Some(false) {
            let why = &why.why;
            let id = id_line(&ran.id);
            self.progress.detail(&format!(
                "probe of {id}: probed alone from the start: {why}"
            ));
            ran.probed.record.detail = format!(
                "{} (probed alone from the start: {why})",
                ran.probed.record.detail
            );
        }
        *slot = ran;
    }

    /// Keeps, for the next run, that the benchmarks of `slots` (of `requests`, in the same
    /// order) whose probe saw them set their own CPU affinity, or was too busy beside another,
    /// are probed alone from the start ([`Slot::alone_next_time`]).
    fn remember_alone(&self, slots: &[Slot], requests: &[ForkRequest]) {
        for (slot, request) in slots.iter().zip(requests) {
            if let Some(alone) = slot.alone_next_time() {
                self.kept.cache.keep_alone(&alone_key(request), &alone);
            }
        }
    }

    /// Probes `slot`'s benchmark again, alone: its first probe was too busy while `beside`
    /// other probes ran at some moment of it. A benchmark that pins itself to a CPU (simd-json's
    /// `core_affinity::set_for_current(core_ids[0])`) shares that CPU with every other probe
    /// that does, and the first pass runs one per CPU at once; a fork never has another fork
    /// beside it. Once: a second "too busy" is the machine's own, and the benchmark is measured.
    fn alone_again(
        &self,
        slot: &mut Slot,
        beside: usize,
        (request, files): (&ForkRequest, &TouchedFiles),
    ) {
        let Some(before) = slot.before.take() else {
            return;
        };
        let id = &slot.id;
        let why = match beside {
            0 => "too busy where other probes run beside, pinned to its own CPU".to_string(),
            _ => format!("too busy while {beside} other probe(s) ran beside it"),
        };
        self.progress.detail(&format!(
            "probe of {}: {why}: probed again alone",
            id_line(id)
        ));
        if !slot.expected_alone {
            self.progress.expect_alone_steps(StepKind::Probe, 1);
        }
        let started = Instant::now();
        let mut probed = self.probed((id, before), (request, files), false);
        self.step_done(id, &probed, started.elapsed(), true);
        probed.record.detail = format!("{}{ALONE}", probed.record.detail);
        // What the first probe saw of its affinity holds for the one alone.
        let own_cpus = probed.own_cpus.take().or(slot.probed.own_cpus.take());
        slot.probed = probed.pinned(own_cpus);
        slot.again_alone = true;
    }

    /// Tells the progress that the probe of `id` is done (`took`; a kept outcome in no time, as
    /// a kept trace is told), one that ran `alone` ([`Progress::expect_alone_steps`]) or not.
    fn step_done(&self, id: &str, probed: &Probed, took: Duration, alone: bool) {
        if self.entries.is_empty() {
            return;
        }
        let took = match probed.kept {
            Some(true) => Duration::ZERO,
            _ => took,
        };
        match alone {
            true => self
                .progress
                .alone_step_done(StepKind::Probe, took, &id_line(id)),
            false => self.progress.step_done(StepKind::Probe, took, &id_line(id)),
        }
    }

    /// The record of the skipped benchmark `record` after its probe (`files`: what its trace
    /// touched of the project), whether the probe's outcome was kept from an earlier run
    /// (`None`: nothing was probed), and the changed functions it entered outside its timed
    /// routine, whose source decides ([`super::reach_probe_outside`]).
    fn probed(
        &self,
        (id, record): (&str, SelectionRecord),
        (request, files): (&ForkRequest, &TouchedFiles),
        beside: bool,
    ) -> Probed {
        let timed = match self.timed_of(&record, request.harness) {
            Ok(timed) => timed,
            Err(why) => {
                let why = format!("its native probe cannot run: {why}");
                return Probed::decided(undecided(why), None);
            }
        };
        if self.entries.is_empty() {
            return Probed::decided(record, None);
        }
        let mut request = request.clone();
        request.criterion_home = self.perfdiff_dir.join("criterion-home").join("probe");
        // Forks after the first warm up for at least the adaptive warm-up's floor, whatever
        // `--warm-up-time` says: the probe as well.
        request.warm_up = request.warm_up.max(WARMUP_TIME_MIN);
        let key = self.kept.keys.and_then(|keys| {
            keys.key(&ProbeInputs {
                request: &request,
                entries: self.entries,
                timed: &timed,
                settling: &self.kept.settling,
                files,
            })
        });
        if let Some(kept) = key
            .as_deref()
            .and_then(|key| self.kept.cache.kept_probe(key))
        {
            let (probe, settling) = match kept {
                KeptProbe::Reached { name } => (Probe::Reached { name }, false),
                KeptProbe::NotReached { settling, outside } => {
                    let record = None;
                    (Probe::NotReached { record, outside }, settling)
                }
            };
            return self.judged(record, probe, &timed, settling).kept(true);
        }
        let (probe, settling, own_cpus) = self.run(id, request.clone(), &timed, beside);
        if let Some(why) = failed_watching(&probe, &record, &timed) {
            // Watching the timed routine failed (a benchmark with threads of its own): every
            // entry counts instead, as for a harness without a routine, and the record says
            // why. Not kept: its key is the watching probe's.
            let timed = Timed::default();
            let (probe, settling, pinned) = self.run(id, request, &timed, beside);
            let judged = self.judged(record, probe, &timed, settling);
            let mut probed = judged.kept(false).pinned(pinned.or(own_cpus));
            probed.record.detail = format!(
                "{} (its probe counted changed functions wherever entered: watching its timed \
                 routine failed: {why})",
                probed.record.detail
            );
            return probed;
        }
        let outcome = match &probe {
            Probe::Reached { name } => Some(KeptProbe::Reached { name: name.clone() }),
            Probe::NotReached { outside, .. } => Some(KeptProbe::NotReached {
                settling,
                outside: outside.clone(),
            }),
            Probe::Failed(_) => None,
        };
        if let (Some(key), Some(outcome)) = (&key, outcome) {
            self.kept.cache.keep_probe(key, &outcome);
        }
        let judged = self.judged(record, probe, &timed, settling);
        judged.kept(false).pinned(own_cpus)
    }

    /// What the probe of `record` (run by `harness`) watches in the timed routine ([`Timed`]),
    /// or why it cannot run. A benchmark skipped by its trace watches its harness's timed
    /// routine too, with no function known to be of the same source: what it enters outside is
    /// noted for its source to decide; where its routine cannot be found (inlined: libtest's and
    /// `bencher`'s generic `iter` in a release build), every entry counts, as before, and so
    /// does every entry of a run that never enters it ([`crate::steps::reach::probe::timing`]).
    fn timed_of(&self, record: &SelectionRecord, harness: Harness) -> Result<Timed, String> {
        match (is_outside_skip(record), self.timed) {
            (false, Some(Ok(routines))) if has_timed_routine(harness) => Ok(Timed {
                routines: routines.clone(),
                same_outside: Vec::new(),
            }),
            (false, _) => Ok(Timed::default()),
            (true, Some(Ok(routines))) if !self.entries.is_empty() => Ok(Timed {
                routines: routines.clone(),
                same_outside: self
                    .entries
                    .iter()
                    .filter(|e| record.same_source.contains(&e.name))
                    .cloned()
                    .collect(),
            }),
            (true, Some(Err(why))) => Err(why.clone()),
            (true, _) => Err("no changed function to stop at".to_string()),
        }
    }

    /// Runs the probe of `request` (of benchmark `id`), again with the longest warm-up when its
    /// run is still settling (then `true`); and the CPUs the benchmark allowed itself when a run
    /// saw it set its own CPU affinity.
    fn run(
        &self,
        id: &str,
        mut request: ForkRequest,
        timed: &Timed,
        beside: bool,
    ) -> (Probe, bool, Option<String>) {
        let scratch = match tempfile::tempdir_in(self.perfdiff_dir) {
            Ok(scratch) => scratch,
            Err(e) => {
                let why = format!(
                    "cannot make a scratch directory in {}: {e}",
                    self.perfdiff_dir.display()
                );
                return (Probe::Failed(ProbeFailure::Run(why)), false, None);
            }
        };
        let shown = id_line(id);
        let log = |line: &str| self.progress.detail(&format!("probe of {shown}: {line}"));
        let watch = (&log as &dyn Fn(&str), beside);
        let first = probe_benchmark(&request, (self.entries, timed), scratch.path(), watch);
        if let Probe::NotReached {
            record: Some(run), ..
        } = &first.probe
            && self.still_settling(run)
        {
            let longest = longest_warm_up(request.warm_up);
            request.timeout += longest - request.warm_up;
            request.warm_up = longest;
            let again = probe_benchmark(&request, (self.entries, timed), scratch.path(), watch);
            return (again.probe, true, again.own_cpus.or(first.own_cpus));
        }
        (first.probe, false, first.own_cpus)
    }

    /// The record of the skipped benchmark `record` after its `probe` (with `timed`, as
    /// [`probe_benchmark`] took it; `settling`: it ran a second time, its first still settling),
    /// the changed functions it entered outside its timed routine, and whether it was too busy.
    fn judged(
        &self,
        record: SelectionRecord,
        probe: Probe,
        timed: &Timed,
        settling: bool,
    ) -> Probed {
        let outside = match &probe {
            Probe::NotReached { outside, .. } => outside.clone(),
            _ => Vec::new(),
        };
        let too_busy = matches!(probe, Probe::Failed(ProbeFailure::TooBusy { .. }));
        Probed {
            record: self.judged_record(record, probe, timed, settling),
            kept: None,
            outside,
            too_busy,
            own_cpus: None,
        }
    }

    /// [`Probing::judged`]'s record.
    fn judged_record(
        &self,
        record: SelectionRecord,
        probe: Probe,
        timed: &Timed,
        settling: bool,
    ) -> SelectionRecord {
        match probe {
            Probe::NotReached { .. } => {
                let settling = if settling { SETTLING } else { "" };
                // Changed functions of the same source stop the probe only inside the timed
                // routine: say so only when there are some (else it watched every changed
                // function everywhere).
                let counted = match timed.routines.is_empty() || timed.same_outside.is_empty() {
                    true => "",
                    false => {
                        " inside its timed routine, and outside it only those of the same source"
                    }
                };
                SelectionRecord {
                    detail: format!(
                        "{}; a native run as long as a fork entered none of the {} changed function(s){counted}{settling}",
                        record.detail,
                        self.entries.len()
                    ),
                    ..record
                }
            }
            Probe::Reached { name } => {
                // Functions of the same source stop the probe only inside the timed routine.
                let inside = match timed.same_outside.iter().any(|e| e.name == name) {
                    true => " inside its timed routine",
                    false => "",
                };
                SelectionRecord {
                    measured: true,
                    reason: SelectionReason::ReachesChange,
                    detail: format!(
                        "it reaches `{name}`{inside} in a native run, which its trace did not (native probe)"
                    ),
                    changed_functions: vec![name],
                    outside_loop: Vec::new(),
                    same_source: Vec::new(),
                    ..record
                }
            }
            Probe::Failed(why) => undecided(format!("probe: {why}")),
        }
    }

    /// Whether steady-state detection drops samples of the probe's `run` as warm-up: then the
    /// adaptive warm-up would give later forks a longer one ([`StopPolicy::next_warm_up`]), and
    /// they would make more iterations than the probe did.
    fn still_settling(&self, run: &ForkRecord) -> bool {
        let mut fork = run.clone();
        self.policy.mark_warmup(&mut fork);
        fork.warmup_dropped.unwrap_or(0) > 0 && !fork.unsteady
    }
}

/// The longest warm-up a fork can make, from a first one of `first`: the adaptive warm-up grows
/// to [`WARMUP_TIME_MAX`] (a longer first one is kept), and criterion's warm-up overshoots its
/// time by up to 100 % (it doubles its batches until the time has passed), so twice that.
fn longest_warm_up(first: Duration) -> Duration {
    first.max(WARMUP_TIME_MAX) * 2
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Settings;

    /// A criterion fork of 30 linear samples (the default) whose time per iteration is
    /// `per_iter(i)`.
    fn fork(per_iter: impl Fn(usize) -> f64) -> ForkRecord {
        let iters: Vec<f64> = (1..=30).map(|i| 1000.0 * i as f64).collect();
        ForkRecord {
            times_ns: iters
                .iter()
                .enumerate()
                .map(|(i, n)| n * per_iter(i))
                .collect(),
            iters,
            ..ForkRecord::default()
        }
    }

    fn probing<'a>(policy: &'a StopPolicy, progress: &'a Progress) -> Probing<'a> {
        Probing {
            entries: &[],
            timed: None,
            perfdiff_dir: Path::new("/nonexistent"),
            policy,
            progress,
            kept: Kept {
                cache: TraceCache::new("/nonexistent".into()),
                keys: None,
                settling: settling_rule(policy),
            },
        }
    }

    #[test]
    fn probes_that_run_alone_from_the_start_count_their_whole_time_in_the_time_left() {
        let policy = StopPolicy::from_settings(&Settings::default());
        let mut progress = Progress::quiet();
        progress.start_steps("probing", 2, [Duration::ZERO, Duration::from_secs(10)]);
        let entries = [ChangedEntry {
            address: 0x1000,
            name: "demo::elsewhere".into(),
        }];
        let probing = Probing {
            entries: &entries,
            ..probing(&policy, &progress)
        };
        let skipped = SelectionRecord {
            reason: SelectionReason::SameCode,
            ..SelectionRecord::default()
        };
        let measured = SelectionRecord {
            measured: true,
            ..skipped.clone()
        };
        let records: Vec<(String, SelectionRecord)> = [&skipped, &skipped, &skipped, &measured]
            .into_iter()
            .enumerate()
            .map(|(k, r)| (format!("b{k}"), r.clone()))
            .collect();
        let pinned = Some(KeptAlone {
            why: TRACED_PINNING.into(),
        });
        // Two beside each other on two workers (10 s), then one alone (10 s); the measured one
        // is not probed, alone or not.
        probing.expect_probes(&records, &[None, None, pinned.clone(), pinned]);
        let summary = progress.steps_summary().unwrap();
        assert_eq!(summary, "0/3 probed, about 20.0 s left");
        // A first probe too busy beside others that ran is expected again alone; one kept, one
        // that was not beside others, or one not too busy is not.
        let too_busy = Probed {
            too_busy: true,
            ..Probed::decided(skipped.clone(), Some(false))
        };
        assert!(probing.expects_again_alone(&too_busy, true));
        assert!(!probing.expects_again_alone(&too_busy, false));
        let kept = Probed {
            kept: Some(true),
            ..too_busy
        };
        assert!(!probing.expects_again_alone(&kept, true));
        let covered = Probed::decided(skipped, Some(false));
        assert!(!probing.expects_again_alone(&covered, true));
    }

    #[test]
    fn a_probe_whose_samples_still_settle_is_probed_again_and_a_steady_one_is_not() {
        let policy = StopPolicy::from_settings(&Settings::default());
        let progress = Progress::quiet();
        let probing = probing(&policy, &progress);
        // The first sample 40 % slower, the next ones less and less so.
        let settling = fork(|i| 100.0 + 40.0 * 0.6f64.powi(i as i32));
        assert!(probing.still_settling(&settling));
        let steady = fork(|i| 100.0 + (i % 2) as f64 * 0.01);
        assert!(!probing.still_settling(&steady));
    }

    #[test]
    fn a_watching_probe_too_busy_is_not_run_again_counting_every_entry_and_one_that_failed_is() {
        use crate::steps::reach::probe::coverage::{CoverageError, Limit};
        let skipped = SelectionRecord {
            measured: false,
            reason: SelectionReason::SameCode,
            ..SelectionRecord::default()
        };
        let routine = ChangedEntry {
            address: 0x1000,
            name: "<test::bench::Bencher>::iter".into(),
        };
        let timed = Timed {
            routines: vec![routine],
            same_outside: Vec::new(),
        };
        // A libtest run that had a CPU for 30 % of its run: the same again unwatched.
        let busy = Probe::Failed(ProbeFailure::TooBusy {
            limit: Limit::CpuShare,
            shortfall: "libtest's `#[bench]` runner stops on its own rule".into(),
        });
        assert_eq!(failed_watching(&busy, &skipped, &timed), None);
        let short = Probe::Failed(ProbeFailure::TooBusy {
            limit: Limit::Iterations,
            shortfall: "the last made 85 % of an undisturbed fork's iterations".into(),
        });
        assert_eq!(failed_watching(&short, &skipped, &timed), None);
        let unread = Probe::Failed(ProbeFailure::Coverage(CoverageError::UnreadableWait));
        assert_eq!(failed_watching(&unread, &skipped, &timed), None);
        // Watching failed: a thread of the benchmark's own beside the routine.
        let threads = ProbeFailure::Run("2 threads when the timed routine was entered".into());
        let watching = Probe::Failed(threads.clone());
        assert_eq!(failed_watching(&watching, &skipped, &timed), Some(&threads));
        // Nothing watched, or a benchmark measured: nothing to run again.
        assert_eq!(
            failed_watching(&watching, &skipped, &Timed::default()),
            None
        );
    }

    #[test]
    fn a_probe_overlaps_those_that_ran_at_some_moment_of_it_and_none_when_it_did_not_run() {
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let spans = [
            Some((at(0), at(10))),
            Some((at(5), at(20))),
            Some((at(20), at(30))),
            None,
            Some((at(40), at(50))),
        ];
        // The second ran beside the first and the third only touched it at its end.
        assert_eq!(overlapping(&spans, 0), 1);
        assert_eq!(overlapping(&spans, 1), 1);
        assert_eq!(overlapping(&spans, 2), 0);
        assert_eq!(overlapping(&spans, 3), 0);
        assert_eq!(overlapping(&spans, 4), 0);
    }

    #[test]
    fn the_longest_warm_up_covers_the_adaptive_cap_and_criterion_s_overshoot() {
        assert_eq!(
            longest_warm_up(Duration::from_millis(100)),
            2 * WARMUP_TIME_MAX
        );
        assert_eq!(
            longest_warm_up(Duration::from_secs(5)),
            Duration::from_secs(10)
        );
    }
}
