//! The round loop: rounds of forks until every benchmark's stop rule says stop.
//!
//! Each round measures the benchmarks still active, in the schedule's order, interleaved (one
//! side's fork after the other's) or as duet pairs (both sides at once on two CPUs), then
//! checkpoints: every record the round touched is judged by its stop rule, and the samples file
//! is saved, so an interrupt loses at most the fork running.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use super::context::{Layout, MeasureContext, interrupted, is_command, save_progress};
use super::{SideBuild, count, duet_check};
use crate::config::StopRule;
use crate::model::command;
use crate::model::harness::HarnessKind;
use crate::model::profile::instructions_id;
use crate::model::samples::{
    BenchmarkRecord, ForkRecord, Mode, Presence, SampleFile, SelectionRecord,
};
use crate::orchestrate::error::Result;
use crate::steps::discover::Matched;
use crate::steps::estimate::{Plan, Planned, large_run_hint};
use crate::steps::fork::fresh_copy::FreshCopies;
use crate::steps::fork::{ForkOutcome, duet, shared_cpus};
use crate::steps::fork_length::{self, ForkLengthSettings};
use crate::steps::progress::Progress;
use crate::steps::report::id_line;
use crate::steps::schedule::Side;
use crate::steps::stop::StopPolicy;
use crate::steps::{fork, schedule};

/// Rounds of forks until every benchmark's stop rule says stop.
pub(super) fn measure(
    ctx: &MeasureContext,
    file: &mut SampleFile,
    progress: &mut Progress,
) -> Result<()> {
    let mut rounds = RoundLoop::new(ctx, file)?;
    announce_run(ctx, file, &rounds.index, &rounds.measurable, progress);
    for round in 0..rounds.policy.max_rounds() {
        let active = rounds.active(file, round);
        if active.is_empty() {
            // A resumed benchmark sits out the rounds it completed and catches up after them:
            // stop only when none is left to run (a file resumed after its first round used to
            // end here, measuring nothing).
            if rounds.pending(file) {
                continue;
            }
            break;
        }
        rounds.measure_round(round, &active, file, progress)?;
        if rounds.cpus.is_some() && duet_check::leaves_duet(ctx, round, file, progress) {
            rounds.cpus = None;
        }
        rounds.checkpoint(round, &active, file, progress)?;
        rounds.choose_fork_lengths(&active, file, progress);
        let remaining = rounds.active(file, round + 1).len();
        let still_to_run = remaining * 2 * (rounds.policy.max_rounds() - round - 1);
        progress.round_done(round + 1, still_to_run as u64);
    }
    mark_unfinished(file, &rounds.policy);
    save_progress(ctx, file)
}

/// What the round loop keeps between rounds. Benchmarks are numbered as in `ctx.matched`; records
/// by their index into the samples file.
struct RoundLoop<'c, 'a> {
    ctx: &'c MeasureContext<'a>,
    policy: StopPolicy,
    /// The two CPUs of duet mode; `None` when interleaved.
    cpus: Option<[usize; 2]>,
    /// Each benchmark's record.
    index: Vec<usize>,
    /// A command's memory record, which takes the same forks as its time record.
    companion: Vec<Option<usize>>,
    /// Each benchmark's instruction record ([`count::register`]), with the instructions metric.
    counted: Vec<Option<usize>>,
    /// The records whose stop rule keeps each benchmark running ([`deciding_records`]).
    deciding: Vec<Vec<usize>>,
    /// The benchmarks with something to run: in both revisions, and not failed before measuring
    /// (their target's listing failed).
    measurable: Vec<usize>,
    /// The warm-up each benchmark's side gets next.
    warm_up: BTreeMap<(usize, Side), Duration>,
    /// The time each record's checkpoints took so far.
    checkpoint_ms: BTreeMap<usize, f64>,
    copies: FreshCopies,
}

impl<'c, 'a> RoundLoop<'c, 'a> {
    fn new(ctx: &'c MeasureContext<'a>, file: &SampleFile) -> Result<Self> {
        let policy = StopPolicy::from_settings(ctx.settings);
        // A resumed duet run that left duet goes on interleaved.
        let cpus = match ctx.settings.mode {
            Mode::Duet if !shared_cpus::left_duet(file) => {
                Some(duet::choose_cpus(ctx.settings.cpus)?)
            }
            Mode::Duet | Mode::Interleaved => None,
        };
        let position = |id: &str| file.benchmarks.iter().position(|b| b.id == id);
        let counted: Vec<Option<usize>> = ctx
            .matched
            .iter()
            .map(|m| {
                let id = instructions_id(&m.id);
                ctx.settings
                    .metric
                    .instructions
                    .then(|| position(&id))
                    .flatten()
            })
            .collect();
        // Without the time metric a benchmark's only record is its instruction record.
        let index: Vec<usize> = ctx
            .matched
            .iter()
            .zip(&counted)
            .map(|(m, counted)| position(&m.id).or(*counted).expect("registered"))
            .collect();
        let companion: Vec<Option<usize>> = ctx
            .matched
            .iter()
            .map(|m| {
                is_command(m)
                    .then(|| position(&command::memory_id(&m.id)))
                    .flatten()
            })
            .collect();
        let deciding = deciding_records(ctx, file, &index, &companion, &counted);
        let measurable = (0..ctx.matched.len())
            .filter(|&i| {
                let record = &file.benchmarks[index[i]];
                let same_code = record.selection.as_ref().is_some_and(|s| s.skipped());
                ctx.matched[i].presence == Presence::Both && !record.failed() && !same_code
            })
            .collect();
        let copies = ctx.fresh_copies()?;
        Ok(RoundLoop {
            ctx,
            policy,
            cpus,
            index,
            companion,
            counted,
            deciding,
            measurable,
            warm_up: BTreeMap::new(),
            checkpoint_ms: BTreeMap::new(),
            copies,
        })
    }

    /// The measurable benchmarks that take part in `round` ([`is_active`]).
    fn active(&self, file: &SampleFile, round: usize) -> Vec<usize> {
        let active_in = |i: usize| {
            self.deciding[i]
                .iter()
                .any(|&b| is_active(&file.benchmarks[b], round))
        };
        self.measurable
            .iter()
            .copied()
            .filter(|&i| active_in(i))
            .collect()
    }

    /// Whether a benchmark is still to run in a later round (a resumed one catching up).
    fn pending(&self, file: &SampleFile) -> bool {
        self.measurable.iter().any(|&i| {
            self.deciding[i].iter().any(|&b| {
                let record = &file.benchmarks[b];
                record.stop.is_none()
                    && !record.failed()
                    && record.completed_rounds() < self.policy.max_rounds()
            })
        })
    }

    /// Measures one round of the `active` benchmarks in the schedule's order.
    fn measure_round(
        &mut self,
        round: usize,
        active: &[usize],
        file: &mut SampleFile,
        progress: &mut Progress,
    ) -> Result<()> {
        self.copies.start_round();
        let timed = self.timed_in_round(file, round, active);
        let plan = schedule::plan_round(self.ctx.seed, round, &timed);
        for slot in &plan.slots {
            let matched = &self.ctx.matched[slot.benchmark];
            let layout = self.ctx.linked_layout(matched, round, progress);
            let copies = &mut self.copies;
            self.ctx
                .note_divan_sample_size(matched, layout, copies, progress)?;
            let at = (round, layout);
            match self.cpus {
                None => self.measure_interleaved(slot, at, file, progress)?,
                Some(cpus) => self.measure_duet(slot, at, cpus, file, progress)?,
            }
            let id = id_line(&matched.id);
            progress.fork_done(2, &format!("round {} {id}", round + 1));
        }
        self.count_round(round, active, file, progress)
    }

    /// The `active` benchmarks whose time (or memory) record takes part in `round`: none
    /// without the time metric.
    fn timed_in_round(&self, file: &SampleFile, round: usize, active: &[usize]) -> Vec<usize> {
        if !self.ctx.settings.metric.time {
            return Vec::new();
        }
        let timed_active = |i: usize| {
            std::iter::once(self.index[i])
                .chain(self.companion[i])
                .any(|b| is_active(&file.benchmarks[b], round))
        };
        active
            .iter()
            .copied()
            .filter(|&i| timed_active(i))
            .collect()
    }

    /// The round's instruction forks, after its timed ones: both sides of every `active`
    /// benchmark whose instruction record takes part, all at once on every usable CPU
    /// ([`count::run_jobs`]); then they are recorded in the schedule's order.
    fn count_round(
        &mut self,
        round: usize,
        active: &[usize],
        file: &mut SampleFile,
        progress: &mut Progress,
    ) -> Result<()> {
        let ctx = self.ctx;
        let (Some(valgrind), true) = (ctx.valgrind, ctx.settings.metric.instructions) else {
            return Ok(());
        };
        let mut jobs = Vec::new();
        for &i in active {
            let Some(record) = self.counted[i] else {
                continue;
            };
            if !is_active(&file.benchmarks[record], round) {
                continue;
            }
            let matched = &ctx.matched[i];
            let layout = ctx.linked_layout(matched, round, progress);
            for side in [Side::Base, Side::Head] {
                let warm_up = Duration::ZERO;
                let request =
                    ctx.request(side, matched, layout, warm_up, None, &mut self.copies)?;
                jobs.push(count::CountJob {
                    record,
                    side,
                    round,
                    layout: layout.recorded(),
                    request: count::count_request(request),
                });
            }
        }
        if jobs.is_empty() {
            return Ok(());
        }
        progress.step_message(&format!(
            "round {}: counting instructions of {} benchmark(s) under valgrind",
            round + 1,
            jobs.len() / 2
        ));
        let outcomes = count::run_jobs(&jobs, valgrind, &ctx.perfdiff_dir.join("instructions"));
        for (job, outcome) in jobs.iter().zip(outcomes) {
            let outcome = outcome.map_err(|e| count::count_error(e, ctx, file))?;
            count::record_count(file, job, outcome, &ctx.side(job.side).root);
        }
        progress.fork_done(
            jobs.len() as u64,
            &format!("round {} instructions", round + 1),
        );
        save_progress(ctx, file)
    }

    /// The warm-up of `benchmark`'s `side` in this fork, adapted to its previous forks.
    fn next_warm_up(&mut self, benchmark: usize, side: Side, file: &SampleFile) -> Duration {
        let record = &file.benchmarks[self.index[benchmark]];
        let initial = Duration::from_millis(self.ctx.settings.warm_up_ms);
        let current = *self.warm_up.entry((benchmark, side)).or_insert(initial);
        let next = match side {
            Side::Base => self.policy.next_warm_up(&record.base, current),
            Side::Head => self.policy.next_warm_up(&record.head, current),
        };
        self.warm_up.insert((benchmark, side), next);
        next
    }

    /// The measurement time of `benchmark`'s forks (both sides alike): its chosen fork length
    /// once its first rounds gave one, the setting's before.
    fn measurement_of(&self, benchmark: usize, file: &SampleFile) -> Duration {
        let record = &file.benchmarks[self.index[benchmark]];
        record.fork_length.as_ref().map_or(
            Duration::from_millis(self.ctx.settings.measurement_ms),
            |choice| Duration::from_secs_f64(choice.measurement_ms / 1e3),
        )
    }

    /// After the first rounds ([`fork_length::CHOOSE_AFTER_ROUNDS`]), the fork length of each
    /// `active` benchmark still running, from its variance between and within forks and its
    /// forks' cost, kept in its record (so a resumed run keeps it) for both sides' later forks.
    fn choose_fork_lengths(
        &self,
        active: &[usize],
        file: &mut SampleFile,
        progress: &mut Progress,
    ) {
        if !self.ctx.settings.metric.time {
            return;
        }
        let settings = ForkLengthSettings::from(self.ctx.settings);
        for &i in active {
            let record = &mut file.benchmarks[self.index[i]];
            let undecided = record.fork_length.is_none() && record.stop.is_none();
            if is_command(&self.ctx.matched[i])
                || !undecided
                || record.failed()
                || record.completed_rounds() < fork_length::CHOOSE_AFTER_ROUNDS
            {
                continue;
            }
            let choice = fork_length::choose(record, &settings);
            if choice.measurement_ms != choice.default_ms {
                progress.detail(&format!(
                    "{}: forks measure {:.0} ms from round {} ({})",
                    record.id,
                    choice.measurement_ms,
                    choice.from_round + 1,
                    choice.why
                ));
            }
            record.fork_length = Some(choice);
        }
    }

    /// One slot interleaved: each side's fork in turn, in the slot's random order; a fork its
    /// own samples show disturbed is measured again ([`Self::remeasure_if_disturbed`]).
    fn measure_interleaved(
        &mut self,
        slot: &schedule::Slot,
        (round, layout): (usize, Layout),
        file: &mut SampleFile,
        progress: &Progress,
    ) -> Result<()> {
        for &side in &slot.order {
            let warm_up = self.next_warm_up(slot.benchmark, side, file);
            let first = self.run_side(slot.benchmark, side, layout, warm_up, file)?;
            let outcome = self.remeasure_if_disturbed(
                (slot.benchmark, side),
                (round, layout),
                warm_up,
                first,
                file,
                progress,
            )?;
            let records = (self.index[slot.benchmark], self.companion[slot.benchmark]);
            let at = (round, layout.recorded());
            record_outcomes(file, records, at, &self.policy, vec![(side, outcome)]);
            save_progress(self.ctx, file)?;
        }
        Ok(())
    }

    /// One interleaved fork of `benchmark`'s `side` with `warm_up`, at its chosen length.
    fn run_side(
        &mut self,
        benchmark: usize,
        side: Side,
        layout: Layout,
        warm_up: Duration,
        file: &mut SampleFile,
    ) -> Result<ForkOutcome> {
        let ctx = self.ctx;
        let matched = &ctx.matched[benchmark];
        let mut request =
            ctx.timed_request(side, matched, layout, warm_up, None, &mut self.copies)?;
        request.measurement = self.measurement_of(benchmark, file);
        let mut outcome = fork::run_fork(&request).map_err(|e| interrupted(e, ctx, file))?;
        if let ForkOutcome::Completed(fork) = &mut outcome {
            shared_cpus::tag_interleaved(fork, file.run.mode);
        }
        Ok(outcome)
    }

    /// `first`, the fork just measured for `benchmark`'s `side` in `round`, or, when its own
    /// samples show it disturbed ([`StopPolicy::remeasures`]), a fork of the same side measured
    /// again at once with the same settings, which keeps `first` in its `remeasured` (the
    /// samples file states it per round). Commands are not measured again: their memory record
    /// takes the same executions.
    fn remeasure_if_disturbed(
        &mut self,
        (benchmark, side): (usize, Side),
        (round, layout): (usize, Layout),
        warm_up: Duration,
        first: ForkOutcome,
        file: &mut SampleFile,
        progress: &Progress,
    ) -> Result<ForkOutcome> {
        let ForkOutcome::Completed(fork) = &first else {
            return Ok(first);
        };
        let matched = &self.ctx.matched[benchmark];
        let record = &file.benchmarks[self.index[benchmark]];
        let mut judged = (**fork).clone();
        judged.round = Some(round);
        judged.layout = layout.recorded();
        self.policy.mark_warmup(&mut judged);
        let side_record = match side {
            Side::Base => &record.base,
            Side::Head => &record.head,
        };
        if is_command(matched) || !self.policy.remeasures(record, side_record, &judged) {
            return Ok(first);
        }
        progress.detail(&format!(
            "{}: {}'s fork of round {} was far slower than its earlier forks: measured again",
            matched.id,
            side.as_str(),
            round + 1
        ));
        let mut again = self.run_side(benchmark, side, layout, warm_up, file)?;
        if let ForkOutcome::Completed(fork) = &mut again {
            fork.remeasured = Some(Box::new(judged));
        }
        Ok(again)
    }

    /// One slot as a duet pair: both sides at once, each on its own CPU.
    fn measure_duet(
        &mut self,
        slot: &schedule::Slot,
        (round, layout): (usize, Layout),
        cpus: [usize; 2],
        file: &mut SampleFile,
        progress: &Progress,
    ) -> Result<()> {
        let ctx = self.ctx;
        let matched = &ctx.matched[slot.benchmark];
        // The side run first in this round's random order gets the first CPU.
        let cpu_of = |side: Side| {
            Some(if slot.order[0] == side {
                cpus[0]
            } else {
                cpus[1]
            })
        };
        // Duet pairs need identical settings on both sides for overlapping samples, and a short
        // warm-up (its random overshoot would desynchronise them).
        let base_warm_up = self.next_warm_up(slot.benchmark, Side::Base, file);
        let head_warm_up = self.next_warm_up(slot.benchmark, Side::Head, file);
        let warm_up = duet::pair_warm_up(
            base_warm_up.max(head_warm_up),
            Duration::from_millis(ctx.settings.measurement_ms),
        );
        let copies = &mut self.copies;
        let base = ctx.timed_request(
            Side::Base,
            matched,
            layout,
            warm_up,
            cpu_of(Side::Base),
            copies,
        )?;
        let head = ctx.timed_request(
            Side::Head,
            matched,
            layout,
            warm_up,
            cpu_of(Side::Head),
            copies,
        )?;
        let pair = duet::run_pair(&base, &head).map_err(|e| interrupted(e, ctx, file))?;
        let outcomes = vec![(Side::Base, pair.base), (Side::Head, pair.head)];
        let records = (self.index[slot.benchmark], self.companion[slot.benchmark]);
        record_outcomes(
            file,
            records,
            (round, layout.recorded()),
            &self.policy,
            outcomes,
        );
        if pair.overlap < duet::LOW_OVERLAP {
            progress.detail(&format!(
                "{}: base and head measured at the same time for only {:.0} % of the pair",
                matched.id,
                pair.overlap * 100.0
            ));
        }
        save_progress(ctx, file)
    }

    /// After a round: every record of the `active` benchmarks that has not stopped or failed is
    /// judged by its stop rule, with the time the checkpoints took; then the file is saved.
    fn checkpoint(
        &mut self,
        round: usize,
        active: &[usize],
        file: &mut SampleFile,
        progress: &mut Progress,
    ) -> Result<()> {
        let p_values = crate::steps::analysis::current_p_values(file, self.policy.mode);
        let mut records: Vec<usize> = active
            .iter()
            .flat_map(|&i| {
                std::iter::once(self.index[i])
                    .chain(self.companion[i])
                    .chain(self.counted[i])
            })
            .collect();
        records.sort_unstable();
        records.dedup();
        for b in records {
            let record = &mut file.benchmarks[b];
            if record.failed() || record.stop.is_some() {
                continue;
            }
            let checkpoint = Instant::now();
            let others = crate::steps::analysis::others(&p_values, b);
            let stop = self
                .policy
                .evaluate(record, round + 1, self.ctx.seed ^ b as u64, &others);
            let spent = self.checkpoint_ms.entry(b).or_insert(0.0);
            *spent += checkpoint.elapsed().as_secs_f64() * 1e3;
            if let Some(mut stop) = stop {
                // The overhead of every checkpoint of this benchmark, not only the last.
                stop.checkpoint_ms = *spent;
                progress.detail(&format!(
                    "{}: stopped after {} round(s)",
                    record.id, stop.rounds
                ));
                record.stop = Some(stop);
            }
        }
        save_progress(self.ctx, file)
    }
}

/// The records whose stop rule keeps each matched benchmark running, by index into the file's
/// records: its own, and a command's memory record ([`command::memory_id`]), which the same
/// executions measure; of a command, only those the caller follows ([`Focus::records`]) when it
/// follows either.
fn deciding_records(
    ctx: &MeasureContext,
    file: &SampleFile,
    index: &[usize],
    companion: &[Option<usize>],
    counted: &[Option<usize>],
) -> Vec<Vec<usize>> {
    let followed = |b: &usize| {
        ctx.followed
            .is_none_or(|ids| ids.contains(&file.benchmarks[*b].id))
    };
    (0..index.len())
        .map(|i| {
            let mut all: Vec<usize> = std::iter::once(index[i])
                .chain(companion[i])
                .chain(counted[i])
                .collect();
            all.dedup();
            let chosen: Vec<usize> = all.iter().copied().filter(followed).collect();
            if chosen.is_empty() { all } else { chosen }
        })
        .collect()
}

/// Says what the run will measure, the forks it expects and their time, with a hint for a
/// large suite, and starts the progress bar.
fn announce_run(
    ctx: &MeasureContext,
    file: &SampleFile,
    index: &[usize],
    measurable: &[usize],
    progress: &mut Progress,
) {
    let policy = StopPolicy::from_settings(ctx.settings);
    let planned: Vec<Planned> = measurable
        .iter()
        .map(|&i| {
            let record = &file.benchmarks[index[i]];
            Planned {
                completed_rounds: record.completed_rounds(),
                times_itself: record.harness.is_some_and(|h| h.times_itself()),
                set_up: set_up_of(record.selection.as_ref()),
            }
        })
        .collect();
    let plan = Plan::new(&ctx.settings.into(), &planned);
    progress.start_run(
        &format!(
            "measuring {} benchmark(s), {} mode, stop rule {}: {}",
            plan.benchmarks,
            ctx.settings.mode,
            policy.rule,
            plan.describe()
        ),
        (
            forks_recorded(file, index, measurable) as u64,
            (measurable.len() * policy.max_rounds() * 2) as u64,
        ),
        plan.mean_fork(),
    );
    if plan.is_large() {
        progress.note(&format!("note: {}", large_run_hint()));
    }
    let presences: Vec<_> = file.benchmarks.iter().map(|b| b.presence).collect();
    if let Some(warning) = super::none_on_both_sides(&presences) {
        progress.note(&warning);
    }
}

/// How long a fork of a benchmark runs outside its timed routine, when its selection's trace
/// timed that (a native trace), for the first estimate.
pub(super) fn set_up_of(selection: Option<&SelectionRecord>) -> Option<Duration> {
    selection?.set_up_ms.map(Duration::from_millis)
}

/// Forks recorded so far for the `measurable` benchmarks, both sides.
fn forks_recorded(file: &SampleFile, index: &[usize], measurable: &[usize]) -> usize {
    measurable
        .iter()
        .map(|&i| {
            let record = &file.benchmarks[index[i]];
            record.base.forks.len() + record.head.forks.len()
        })
        .sum()
}

/// A benchmark takes part in a round while it has not stopped, not failed, and has no more
/// completed rounds than the round number (a resumed benchmark catches up).
fn is_active(record: &BenchmarkRecord, round: usize) -> bool {
    record.stop.is_none() && !record.failed() && record.completed_rounds() <= round
}

/// Stores fork outcomes in the record: samples (with warm-up marked, and the round and layout
/// they ran in) or the failure.
fn record_outcomes(
    file: &mut SampleFile,
    (bench, memory): (usize, Option<usize>),
    (round, layout): (usize, Option<usize>),
    policy: &StopPolicy,
    outcomes: Vec<(Side, ForkOutcome)>,
) {
    if let Some(memory) = memory {
        let memory_outcomes = outcomes
            .iter()
            .map(|(side, outcome)| (*side, memory_outcome(outcome)))
            .collect();
        record_outcomes(
            file,
            (memory, None),
            (round, layout),
            policy,
            memory_outcomes,
        );
    }
    let record = &mut file.benchmarks[bench];
    for (side, outcome) in outcomes {
        let side_record = match side {
            Side::Base => &mut record.base,
            Side::Head => &mut record.head,
        };
        match outcome {
            ForkOutcome::Completed(mut fork) => {
                fork.round = Some(round);
                fork.layout = layout;
                policy.mark_warmup(&mut fork);
                side_record.forks.push(*fork);
            }
            ForkOutcome::Failed(failure) => {
                side_record.failure = Some(failure);
            }
        }
    }
}

/// A command execution's outcome as its memory record takes it: the peak RSS as the fork's one
/// value, in bytes; a failure as it is.
fn memory_outcome(outcome: &ForkOutcome) -> ForkOutcome {
    match outcome {
        ForkOutcome::Completed(fork) => ForkOutcome::Completed(Box::new(ForkRecord {
            iters: vec![1.0],
            times_ns: vec![fork.resources.map_or(0.0, |r| r.peak_rss_bytes)],
            per_fork: Some(crate::model::harness::PerFork::PeakMemory),
            unit: Some(command::MEMORY_UNIT.to_string()),
            resources: None,
            ..(**fork).clone()
        })),
        failed => failed.clone(),
    }
}

/// Benchmarks that ran out of rounds without a stop record (e.g. a resumed run) get one.
fn mark_unfinished(file: &mut SampleFile, policy: &StopPolicy) {
    for record in &mut file.benchmarks {
        if record.presence == Presence::Both
            && record.stop.is_none()
            && !record.failed()
            && !record.base.forks.is_empty()
        {
            record.stop = Some(crate::model::samples::StopRecord {
                rule: policy.rule.to_string(),
                rounds: record.completed_rounds(),
                capped: policy.rule != StopRule::Fixed,
                ..Default::default()
            });
        }
    }
}

/// Registers a command's two records, time and memory, with the failures its set-up had.
pub(super) fn register_command(
    file: &mut SampleFile,
    m: &Matched,
    base: &SideBuild,
    head: &SideBuild,
) {
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
