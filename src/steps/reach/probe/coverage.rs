//! Whether a probe's run was as long as a measuring fork's: the iterations it made, against
//! what an undisturbed fork at the same settings would make.
//!
//! Why: criterion (and divan) fill a time, not a count. A probe that shares its CPU with other
//! work, or is stalled during criterion's warm-up (whose estimate sets the iterations of every
//! sample), makes fewer iterations than a fork on a quiet moment, and a changed function entered
//! only after that many calls would be skipped: seen once in the test suite under a load of 10 on
//! two cores (`late/counted`, entered on its 100,000th call; the quiet fork makes about a million).
//! So a probe counts only when it covered an undisturbed fork's whole run; otherwise it runs
//! again for longer, and a benchmark whose probe never covers one is measured.
//!
//! Two figures, each 1 for a run exactly as long as an undisturbed fork's; the smaller decides
//! ([`Limit`]):
//! - **CPU share**: the probe ran `scale` times a fork's time, of which it had a CPU for
//!   `(1 − wait) × (1 − steal)` (the leader task's run-queue wait, [`crate::steps::fork::cpu_wait`],
//!   and the hypervisor's steal, [`crate::steps::fork::steal`]).
//! - **Iterations** (criterion): the iterations of its samples against an undisturbed fork's,
//!   the larger of two figures ([`counted_ns_per_iter`], [`warm_up_covered`]).
//!
//! ## How many iterations an undisturbed fork makes (a warm-up slower than the samples)
//!
//! A fork makes `measurement / w` iterations, `w` the mean time per iteration of its warm-up:
//! criterion's warm-up runs the benchmark's first iterations in a fresh process, and its estimate
//! sets every sample's count. The probe's count is its own warm-up's `w`, which a stall there
//! (the machine busy) inflates: that is what the figure is for. `w` is the time of whole *calls*
//! of the timed routine: criterion's warm-up sums each call's `Bencher::elapsed_time`, from the
//! start of `iter` (`iter_batched`, …) to its end (`Routine::warm_up`, criterion 0.3 to 0.8),
//! so it holds the untimed set-up of `iter_batched` (simd-json copies its input every batch:
//! its samples time 47 % to 87 % of their calls). Either estimate below is enough:
//! - **From the samples' speed**: a fork's count at a time per iteration no slower than `w`. The
//!   *fastest sample*'s is, for a benchmark whose speed is steady or rises as it runs, whatever
//!   disturbed the other samples, and it was the only estimate until 2026-11-30. Where the
//!   *first samples* (at least the first third, any run of them from the first) are slower, their
//!   time less all the run may have waited for a CPU or had stolen, `(their time − (wait + steal)
//!   × the run's wall time) / their iterations`, is no slower than `w` either, for a benchmark
//!   that settles as it runs: they come right after the probe's warm-up, at least as long as a
//!   fork's, and taking off *all* the run's disturbance keeps load that lasts into them from
//!   reading as settling (a test below).
//!
//!   Where the helper timed the calls ([`Span`], below), each sample counts at its *call's*
//!   running time instead, set-up included, as `w` does (the samples' timed part alone is
//!   faster than `w` by the untimed share: simd-json's probes, with their CPU to themselves,
//!   fell short at 52 % to 86 %). The same argument holds for whole calls as for their timed
//!   part.
//!
//!   **A benchmark that slows as it runs** (state that grows, batches slower as they grow, as
//!   simd-json's do) breaks the argument: every sample comes after the warm-up, so even its
//!   first samples are slower than `w`, and counted at their speed it covers more than it did.
//!   With figures (`a_benchmark_that_slows_as_it_runs_is_not_counted_at_its_first_samples_speed`):
//!   samples rising from 200 to 300 ns an iteration after a warm-up at 200 ns or faster; a
//!   stall in the probe's warm-up (its thread stopped, which the CPU wait does not count) left
//!   it 800,000 iterations, 80 % of a fork's 1,000,000 at most. At the first samples' estimate
//!   (their mean, 262 ns less the 1 % wait) it read 105 %: covered. Hence a bound on the
//!   estimate from the first samples, which is never below the fastest sample's:
//!   - where the helper timed the calls ([`Span`]), it is held, the timed part's and the calls'
//!     alike, to the probe's own warm-up's running time per iteration (its calls double from one
//!     iteration, so `n` calls made `2^n − 1`): what its warm-up ran with no waiting in it
//!     (`a_benchmark_that_slows_as_it_runs_is_held_to_its_warm_up_s_running_time`: 191 ns,
//!     so the fastest sample's 200 ns counts, 80 %). The hold only acts where the samples ran
//!     slower than the warm-up; a fork's warm-up runs the same batches and at most a few larger
//!     ones, so it is no faster. Until 2026-11-30 (session 15) only the calls' estimate was
//!     held, and the timed part's, taken as the larger, undid the hold for a plain `iter`;
//!   - without calls, it counts only where the samples after the first third ran, on the whole,
//!     no slower than the first third ([`Estimates::slows`]): one that settles (300 ns falling to
//!     200 ns: the first third at 279 ns, the rest at 227 ns) or whose first samples a load
//!     slowed (375 ns then 250 ns) does not slow, and keeps the estimate the argument above
//!     makes sound; one that slows (221 ns, then 273 ns) counts at its fastest sample, as every
//!     run did before 2026-11-30. Load that came later reads as slowing: the fastest sample, the
//!     stricter.
//!
//!   What is left: the fastest sample of a benchmark that slows is itself slower than `w`, by
//!   what it slowed between its warm-up and that sample, and without calls nothing the probe
//!   sees bounds that (the same as before 2026-11-30); nor a slowing that a load in the first
//!   samples hides. Where the probe's warm-up was not stalled, such a probe still covers a fork
//!   (a longer warm-up of a benchmark that slows makes more iterations, and its samples at least
//!   `1.25^(1/(p+1))` of a fork's for a time per iteration growing as the `p`-th power of the
//!   iterations made).
//! - **From the probe's own warm-up**: the probe's `w` exceeds an undisturbed one's by what its
//!   warm-up's calls lost to anything but running. The helper times every call of the timed
//!   routine ([`Span`]: wall, and the thread's running and waiting times, at the stops of its
//!   entry and return); the warm-up's calls are those before the last one a sample.
//!   `w_fork ≥ w × (1 − lost / wall)`, `lost` their wall time not running (waiting, stopped,
//!   asleep), `wall` theirs in all. (Until 2026-11-30, `wall` less the share the sample calls did
//!   not time: stricter than what criterion sums, and no figure at all where most of a call was
//!   untimed, simd-json's 53 %.) So the run covers `stretch × (1 − lost / wall) × (1 − steal)`
//!   of a fork's iterations. That
//!   is, for a fork whose warm-up is no longer than the probe's: the probe's runs for
//!   [`FIRST_SCALE`] times a fork's time (or the benchmark's own, the same), and a later fork's
//!   grows only when its samples still settle, when the probe's are seen to settle too and it
//!   runs again with the longest warm-up a fork can get (`reach_probe::still_settling`). But
//!   criterion's doubling batches overshoot its warm-up time by up to 100 %, so a fork's may
//!   still run up to 1.6 times as long as the probe's (twice, where the benchmark sets its own
//!   time), and a benchmark whose first iterations are slower makes more iterations after a
//!   longer warm-up. Hence a bound ([`SLOWER_WARM_UP`]): the warm-up's figure counts only when
//!   the samples' figure is at least `1 / FIRST_SCALE`. Where the run cannot stretch (the
//!   benchmark's own times), its warm-up estimate is then at most 25 % slower than its samples:
//!   the slow start lost at most a fifth of its warm-up, and a fork's twice as long makes at
//!   most 12.5 % more iterations (`1.25 / (2 / 1.8)`), about the [`TOLERATED_WAIT`] such a run is
//!   allowed. Where it stretches (1.25×), a slow start losing up to 36 % of its warm-up passes
//!   the bound, and a fork's 1.6 times as long still makes fewer (`0.8` against `1 / (1.6 /
//!   1.24)`).
//!
//! Why both: a benchmark whose first iterations are slower than the rest (rust-base64's
//! `encode_string_reuse_buf_stream/100`: a warm-up estimate 17 % slower than every one of its
//! 30 flat samples, in the probe and in every fork alike) falls short by the samples however long
//! its warm-up ran undisturbed; its group sets its own times, so the probe is no longer than a
//! fork and only the margin of [`TOLERATED_WAIT`] is left, and it failed three quiet runs at 94 %
//! (docs/design/selection-trace.md, "A warm-up slower than the samples"). Its warm-up's calls ran
//! 99.5 % of their wall time: covered. And the warm-up's estimate is blind to what slows a
//! running thread without stopping it (a neighbour on a sibling hyperthread, caches), which the
//! samples' speed, slowed alike, cancels: as blind as the CPU-share figure is for the whole run.
//!
//! Why it still fails what the check is for: a stall in the probe's warm-up is time its thread
//! waited for a CPU (or did not run) while the warm-up's timed calls ran, and shows in their
//! spans (`a_stall_in_the_warm_up_shows_in_its_calls_of_the_timed_routine`); its samples run at
//! full speed from the first, so the samples' estimate falls short as before, counted at their
//! timed part or at their calls alike
//! (`a_stall_in_the_warm_up_leaves_too_few_iterations`,
//! `a_stall_in_the_warm_up_of_a_benchmark_that_sets_up_every_batch_still_falls_short`); and load
//! that lasts into the first samples shows in both
//! (`a_load_that_lasts_into_the_first_samples_is_not_read_as_settling`). Without spans (the
//! helper could not read the thread's schedstat, a run whose calls are not its warm-up's then
//! one a sample), only the samples' timed estimate counts, its first samples' only where the run
//! does not slow. Which runs have none: the probe's timed routine is watched only to tell what
//! runs outside it, and a benchmark whose own threads made watching fail is probed again
//! counting every entry, without calls; a custom measurement (criterion's `Measurement` in
//! other units than wall time) whose samples' times do not fit in their calls; a thread's
//! schedstat unreadable for a call (then the CPU wait, unreadable too, stops the coverage).

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::model::harness::Harness;
use crate::model::samples::ForkRecord;

/// How much longer than a fork's the first probe runs: a margin over a quiet fork's own spread
/// of iterations (its warm-up estimate sets them, within a few per cent).
pub const FIRST_SCALE: f64 = 1.25;

/// The longest a probe is asked to run, in forks' times.
pub const MAX_SCALE: f64 = 8.0;

/// Runs of the probe before a benchmark whose runs never covered a fork's is measured.
pub const ATTEMPTS: usize = 3;

/// The wait a run that cannot be asked to run longer may have had (libtest and bencher stop on
/// their own rule; a benchmark may set its own time): without the margin of [`FIRST_SCALE`], a
/// run that had its CPU for nine tenths of its time counts as a fork's.
const TOLERATED_WAIT: f64 = 0.1;

/// The least share of an undisturbed fork's iterations, counted at its samples' speed, that a
/// probe's run may have made for its undisturbed warm-up to count instead ([`warm_up_covered`]):
/// a warm-up estimate at most [`FIRST_SCALE`] times slower than its samples. Why a bound: a
/// fork's warm-up may run longer than the probe's (criterion's batches overshoot its time by up
/// to 100 %), and a benchmark whose first iterations are much slower makes more iterations after
/// a longer one; within this bound, at most 12.5 % more (the module's doc).
const SLOWER_WARM_UP: f64 = 1.0 / FIRST_SCALE;

/// Of a run's samples, the shortest share from the first whose speed stands for the first after
/// its warm-up.
const EARLY_SAMPLES: f64 = 1.0 / 3.0;

/// What one run of a probe tells about its length.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunShape<'a> {
    pub harness: Harness,
    /// The run's warm-up and measurement times over a fork's.
    pub scale: f64,
    /// A fork's measurement time, as requested (before the dialect's rounding).
    pub fork_measurement: Duration,
    /// Share of the benchmark's runnable time it waited for a CPU; `None` where unreadable.
    pub cpu_wait_share: Option<f64>,
    /// The fork record of the run (samples, settings criterion used, steal).
    pub record: &'a ForkRecord,
    /// Its calls of the timed routine, in order, where the probe watched it.
    pub spans: &'a [Span],
}

/// One call of the timed routine in a probe's run, from the stop at its entry to the stop at its
/// return (criterion: each batch of its warm-up, then each sample): the wall time, and how long
/// the thread that made it ran and waited for a CPU meanwhile.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Span {
    pub wall_ns: u64,
    pub running_ns: u64,
    pub waiting_ns: u64,
}

/// Which figure fell short: what a run again could change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// It waited for a CPU (or had it stolen) for too much of its run.
    CpuShare,
    /// Its samples made fewer iterations than an undisturbed fork's (a stall in its warm-up).
    Iterations,
}

/// How much of an undisturbed fork's run a probe's run covered (≥ 1: all of it), and which of
/// the two figures decided.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Coverage {
    pub figure: f64,
    pub limit: Limit,
}

impl Coverage {
    /// Whether the run was at least as long as an undisturbed fork's.
    pub fn covers(&self) -> bool {
        self.figure >= 1.0
    }
}

/// Why a run's coverage cannot be told.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CoverageError {
    #[error(
        "cannot tell whether it ran as long as a fork: its wait for a CPU is unreadable \
         (/proc/<pid>/schedstat)"
    )]
    UnreadableWait,
}

/// How much of an undisturbed fork's run the probe covered, or why it cannot tell.
pub fn covered(run: &RunShape<'_>) -> Result<Coverage, CoverageError> {
    let wait = run.cpu_wait_share.ok_or(CoverageError::UnreadableWait)?;
    let steal = run.record.steal_share.unwrap_or(0.0);
    let had_cpu = (1.0 - wait) * (1.0 - steal);
    let share = |figure| Coverage {
        figure,
        limit: Limit::CpuShare,
    };
    Ok(match run.harness {
        Harness::Criterion(dialect) => {
            let fork_ms = fork_measurement_ms(run, dialect);
            let ran_ms = run
                .record
                .config
                .as_ref()
                .map_or(fork_ms * run.scale, |c| c.measurement_ms);
            let stretch = ran_ms / fork_ms;
            let by_samples = iterations_covered(run, fork_ms, wait + steal).unwrap_or(0.0);
            let iterations = match warm_up_covered(run, stretch, steal) {
                Some(by_warm_up) if by_samples >= SLOWER_WARM_UP => by_samples.max(by_warm_up),
                _ => by_samples,
            };
            let mut coverage = match stretch * had_cpu <= iterations {
                true => share(stretch * had_cpu),
                false => Coverage {
                    figure: iterations,
                    limit: Limit::Iterations,
                },
            };
            if !stretches(run) {
                coverage.figure /= 1.0 - TOLERATED_WAIT;
            }
            coverage
        }
        Harness::Divan => share(run.scale * had_cpu),
        Harness::Libtest | Harness::Bencher | Harness::Command => {
            share(had_cpu / (1.0 - TOLERATED_WAIT))
        }
    })
}

/// A measuring fork's measurement time: the benchmark's own where it sets one (criterion used
/// another than it was asked), the one it is sent otherwise.
fn fork_measurement_ms(run: &RunShape<'_>, dialect: crate::model::harness::CliDialect) -> f64 {
    own_measurement_ms(run)
        .unwrap_or_else(|| dialect.sent_duration(run.fork_measurement).as_secs_f64() * 1000.0)
}

/// The measurement time the benchmark sets itself, where criterion used another than it was
/// asked (a group's `measurement_time`, which criterion keeps over the command line).
fn own_measurement_ms(run: &RunShape<'_>) -> Option<f64> {
    match (&run.record.config, &run.record.asked) {
        (Some(used), Some(asked)) if (used.measurement_ms - asked.measurement_ms).abs() > 0.5 => {
            Some(used.measurement_ms)
        }
        _ => None,
    }
}

/// Whether the run measured for the scaled time it was asked, so a longer run makes more
/// iterations. A time the benchmark sets itself, or criterion 0.3's whole seconds, does not
/// stretch: such a run can only be as long as a fork's, like a harness that stops on its own
/// rule, and asking it for longer changes nothing.
pub fn stretches(run: &RunShape<'_>) -> bool {
    match run.harness {
        Harness::Criterion(dialect) => {
            let fork_ms = fork_measurement_ms(run, dialect);
            let ran_ms = run
                .record
                .config
                .as_ref()
                .map_or(fork_ms * run.scale, |c| c.measurement_ms);
            ran_ms / fork_ms >= run.scale * 0.99
        }
        Harness::Divan => true,
        Harness::Libtest | Harness::Bencher | Harness::Command => false,
    }
}

/// Why a criterion run cannot be made longer, where it cannot (simd-json's groups set 20 s: a
/// probe asked for 8× a fork's time still measured 20 s, and "at 8.00× its time" misled).
pub fn fixed_length(run: &RunShape<'_>) -> Option<String> {
    if !matches!(run.harness, Harness::Criterion(_)) || stretches(run) {
        return None;
    }
    Some(match own_measurement_ms(run) {
        Some(ms) => format!(
            "the benchmark sets its own measurement time ({} s), which criterion keeps",
            ms / 1000.0
        ),
        None => "criterion 0.3 measures whole seconds".to_string(),
    })
}

/// The run's iterations over an undisturbed fork's: the fork's measurement time over
/// [`counted_ns_per_iter`]. `None` without samples.
fn iterations_covered(run: &RunShape<'_>, fork_ms: f64, disturbed_share: f64) -> Option<f64> {
    let per_iter_ns = counted_ns_per_iter(run, disturbed_share)?;
    let made: f64 = run.record.iters.iter().sum();
    Some(made * per_iter_ns / (fork_ms * 1e6))
}

/// The time per iteration a run's iterations are counted at (the module's doc): never slower
/// than its fastest sample's, and slower only as far as something bounds it. Where its calls of
/// the timed routine line up ([`calls`]), the slower of the samples' first-samples estimate and
/// the same estimate from the running time of each sample's call, set-up included (what
/// criterion's warm-up estimate is made of), held to its warm-up's own running time per
/// iteration ([`warm_up_running_ns_per_iter`]). Elsewhere the samples' alone
/// ([`undisturbed_ns_per_iter`]: the first samples' estimate only where the run does not slow).
/// `None` without samples.
fn counted_ns_per_iter(run: &RunShape<'_>, disturbed_share: f64) -> Option<f64> {
    let record = run.record;
    let timed = Estimates::of(&samples_of(record), record.wall_ms, disturbed_share)?;
    let held = calls(run).and_then(|(warm_up, sampled)| {
        let called: Vec<(f64, f64)> = record
            .iters
            .iter()
            .zip(sampled)
            .map(|(iters, span)| (*iters, span.running_ns as f64))
            .collect();
        let by_calls = Estimates::of(&called, record.wall_ms, disturbed_share)?;
        Some((
            by_calls.first_or_fastest(),
            warm_up_running_ns_per_iter(warm_up)?,
        ))
    });
    Some(match held {
        Some((by_calls, warm_up)) => {
            let slower = by_calls.max(timed.first_or_fastest());
            timed.fastest.max(slower.min(warm_up))
        }
        None => timed.unbounded(),
    })
}

/// The run's calls of the timed routine, its warm-up's (those before the last one a sample) and
/// its samples', where they line up: more calls than samples, each sample's call at least as
/// long as its time. `None` otherwise, and without a warm-up's wall time.
fn calls<'s>(run: &RunShape<'s>) -> Option<(&'s [Span], &'s [Span])> {
    let times = &run.record.times_ns;
    let batches = run
        .spans
        .len()
        .checked_sub(times.len())
        .filter(|n| *n > 0)?;
    let (warm_up, sampled) = run.spans.split_at(batches);
    let holds = |(span, ns): (&Span, &f64)| span.wall_ns as f64 >= ns * 0.999;
    let wall: u64 = warm_up.iter().map(|s| s.wall_ns).sum();
    (sampled.iter().zip(times).all(holds) && wall > 0).then_some((warm_up, sampled))
}

/// The running time per iteration of a criterion warm-up's calls `warm_up`: its batches double
/// from one iteration (`Routine::warm_up`, criterion 0.3 to 0.8), so `n` calls made `2^n − 1`.
fn warm_up_running_ns_per_iter(warm_up: &[Span]) -> Option<f64> {
    let calls = i32::try_from(warm_up.len())
        .ok()
        .filter(|n| (1..64).contains(n))?;
    let running: u64 = warm_up.iter().map(|s| s.running_ns).sum();
    Some(running as f64 / (2f64.powi(calls) - 1.0))
}

/// The run's iterations over an undisturbed fork's, from its warm-up's calls of the timed
/// routine (the module's doc): `stretch` (its measurement time over a fork's) times the share of
/// the warm-up's calls' wall time that was not lost to anything but running (waiting, stopped,
/// asleep), less steal. The whole call counts, set-up included: criterion's warm-up sums each
/// call's `Bencher::elapsed_time`, from the start of `iter` (or `iter_batched`, …) to its end.
/// `None` unless its calls line up ([`calls`]).
fn warm_up_covered(run: &RunShape<'_>, stretch: f64, steal: f64) -> Option<f64> {
    let (warm_up, _) = calls(run)?;
    let sum = |of: fn(&Span) -> u64| warm_up.iter().map(of).sum::<u64>() as f64;
    let wall = sum(|s| s.wall_ns);
    let lost = (wall - sum(|s| s.running_ns)).max(0.0);
    Some(stretch * (1.0 - lost / wall).max(0.0) * (1.0 - steal))
}

/// A time per iteration no slower than an undisturbed fork's warm-up measured, from the
/// samples alone (the module's doc): the fastest sample's, or, where the run does not slow
/// ([`Estimates::slows`]), the first samples' estimate, if slower. Only the fastest without the
/// run's wall time; `None` without samples.
pub fn undisturbed_ns_per_iter(record: &ForkRecord, disturbed_share: f64) -> Option<f64> {
    Estimates::of(&samples_of(record), record.wall_ms, disturbed_share).map(|e| e.unbounded())
}

/// The samples of `record`: iterations and nanoseconds.
fn samples_of(record: &ForkRecord) -> Vec<(f64, f64)> {
    let pairs = record.iters.iter().zip(&record.times_ns);
    pairs.map(|(iters, ns)| (*iters, *ns)).collect()
}

/// What a run's samples (or their calls) tell of an undisturbed fork's time per iteration (the
/// module's doc).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Estimates {
    /// The fastest sample's time per iteration.
    fastest: f64,
    /// The first samples' (without the run's wall time, none): for every run of samples from
    /// the first that holds at least the first third ([`EARLY_SAMPLES`]), their time less all
    /// the run may have been disturbed (CPU wait and steal) over their iterations; the slowest.
    first: Option<f64>,
    /// Whether the samples after the first third ran slower, on the whole, than the first third
    /// (a benchmark that slows as it runs, or load that came later).
    slows: bool,
}

impl Estimates {
    /// The estimates of `samples` (iterations, nanoseconds) of a run of `wall_ms`, of which a
    /// share `disturbed` was CPU wait or steal. `None` without samples.
    fn of(samples: &[(f64, f64)], wall_ms: Option<f64>, disturbed: f64) -> Option<Estimates> {
        let samples: Vec<(f64, f64)> = samples.iter().copied().filter(|(n, _)| *n > 0.0).collect();
        let fastest = samples
            .iter()
            .map(|(iters, ns)| ns / iters)
            .min_by(f64::total_cmp)?;
        let count = early_count(samples.len());
        let mean = |part: &[(f64, f64)]| {
            let (iters, ns) = part.iter().fold((0.0, 0.0), |(i, t), s| (i + s.0, t + s.1));
            (iters > 0.0).then(|| ns / iters)
        };
        let (early, later) = samples.split_at(count);
        let slows = mean(early)
            .zip(mean(later))
            .is_some_and(|(early, later)| later > early);
        let first = wall_ms.map(|wall_ms| {
            let disturbed_ns = disturbed.max(0.0) * wall_ms * 1e6;
            let prefixes = samples.iter().scan((0.0, 0.0), |(iters, ns), sample| {
                (*iters, *ns) = (*iters + sample.0, *ns + sample.1);
                Some((*ns - disturbed_ns) / *iters)
            });
            prefixes.skip(count - 1).fold(f64::MIN, f64::max)
        });
        Some(Estimates {
            fastest,
            first,
            slows,
        })
    }

    /// The first samples' estimate, or the fastest's where slower (or the only one).
    fn first_or_fastest(&self) -> f64 {
        self.first
            .map_or(self.fastest, |first| first.max(self.fastest))
    }

    /// Where nothing bounds the first samples' estimate (no calls of the timed routine): it
    /// counts only where the run does not slow; the fastest sample's otherwise.
    fn unbounded(&self) -> f64 {
        match self.slows {
            true => self.fastest,
            false => self.first_or_fastest(),
        }
    }
}

/// How many of `samples` samples are the first ([`EARLY_SAMPLES`]): at least one.
fn early_count(samples: usize) -> usize {
    ((samples as f64 * EARLY_SAMPLES).ceil() as usize).clamp(1, samples.max(1))
}

/// One run's coverage in a line of the verbose log: the figure and which decided, the run's
/// CPU wait, steal and wall time, its warm-up's calls of the timed routine, the time per
/// iteration its iterations were counted at ([`counted_ns_per_iter`]) and every sample's, in
/// nanoseconds: what tells a benchmark still settling, or a warm-up slower than its samples,
/// from a stalled warm-up.
pub fn described(run: &RunShape<'_>, coverage: Coverage) -> String {
    let record = run.record;
    let percent =
        |share: Option<f64>| share.map_or("unread".into(), |s| format!("{:.1} %", s * 100.0));
    let per_iter: Vec<String> = record
        .iters
        .iter()
        .zip(&record.times_ns)
        .filter(|(iters, _)| **iters > 0.0)
        .map(|(iters, ns)| format!("{:.2}", ns / iters))
        .collect();
    let disturbed = run.cpu_wait_share.unwrap_or(0.0) + record.steal_share.unwrap_or(0.0);
    let counted_at = counted_ns_per_iter(run, disturbed)
        .map_or("no sample's".into(), |ns| format!("{ns:.2} ns"));
    let limit = match coverage.limit {
        Limit::CpuShare => "CPU share",
        Limit::Iterations => "iterations",
    };
    let wall = record
        .wall_ms
        .map_or("unread".into(), |ms| format!("{ms:.0} ms"));
    format!(
        "at {:.2}× a fork's time, it covered {:.0} % of an undisturbed fork's run ({limit} \
         decided); CPU wait {}, steal {}, wall {wall}; {}; {} iterations, counted at \
         {counted_at} each; ns per iteration, sample by sample: {}",
        run.scale,
        coverage.figure * 100.0,
        percent(run.cpu_wait_share),
        percent(record.steal_share),
        described_calls(run),
        record.iters.iter().sum::<f64>(),
        per_iter.join(" ")
    )
}

/// The run's calls of the timed routine, in words: how many, how much of their wall time the
/// warm-up's (those before one a sample) ran, and how much of the sample calls' their samples
/// timed.
fn described_calls(run: &RunShape<'_>) -> String {
    let batches = run.spans.len().saturating_sub(run.record.times_ns.len());
    let (warm_up, sampled) = run.spans.split_at(batches);
    let sum = |spans: &[Span], of: fn(&Span) -> u64| spans.iter().map(of).sum::<u64>() as f64;
    let wall = sum(warm_up, |s| s.wall_ns);
    let timed = run.record.times_ns.iter().sum::<f64>();
    let per_iter = warm_up_running_ns_per_iter(warm_up)
        .map_or(String::new(), |ns| format!(", {ns:.2} ns an iteration"));
    format!(
        "{} calls of the timed routine, the warm-up's {batches} running {:.2} % of their {:.1} \
         ms{per_iter}, the samples' timing {:.2} % of theirs",
        run.spans.len(),
        sum(warm_up, |s| s.running_ns) / wall.max(1.0) * 100.0,
        wall / 1e6,
        timed / sum(sampled, |s| s.wall_ns).max(1.0) * 100.0
    )
}

/// The scale of the next run after one that covered `covered` at `scale`: long enough that the
/// same disturbance leaves the margin of [`FIRST_SCALE`]; the same scale for a harness that
/// cannot run longer.
pub fn next_scale(harness: Harness, scale: f64, covered: f64) -> f64 {
    if !honours_times(harness) {
        return scale;
    }
    (scale * FIRST_SCALE / covered.max(1.0 / MAX_SCALE)).clamp(scale, MAX_SCALE)
}

/// Why a run whose `coverage` fell short at `scale` does not count, in words a user can act on.
/// A harness that stops on its own rule (libtest's and `bencher`'s runner, a command) cannot be
/// asked to run longer to make up for waiting for a CPU, so the share of its run it had a CPU
/// decides, and only a quieter moment helps: a user who read "at 1.00× its time" for such a run
/// could not tell what to change. A criterion or divan run says which figure fell short.
pub fn shortfall(harness: Harness, scale: f64, coverage: Coverage) -> String {
    let percent = coverage.figure * 100.0;
    let runner = match (harness, coverage.limit) {
        (_, Limit::Iterations) => {
            return format!(
                "the last made {percent:.0} % of an undisturbed fork's iterations at {scale:.2}× \
                 its time"
            );
        }
        (Harness::Criterion(_) | Harness::Divan, Limit::CpuShare) => {
            return format!(
                "the last covered {percent:.0} % of an undisturbed fork's run at {scale:.2}× its \
                 time, waiting for a CPU"
            );
        }
        (Harness::Libtest, _) => "libtest's `#[bench]` runner",
        (Harness::Bencher, _) => "`bencher`'s runner",
        (Harness::Command, _) => "a command",
    };
    let needed = 1.0 - TOLERATED_WAIT;
    format!(
        "{runner} stops on its own rule, so its probe cannot run longer to make up for waiting: \
         the last had a CPU for {:.0} % of its run, {:.0} % needed; run again when the machine \
         is quieter (the probes that counted are kept)",
        coverage.figure * needed * 100.0,
        needed * 100.0
    )
}

/// [`shortfall`] of a criterion run that cannot be made longer (`fixed`, from [`fixed_length`])
/// and waited for a CPU: only its share of a CPU decides, and only a quieter moment helps.
pub fn shortfall_fixed(fixed: &str, coverage: Coverage) -> String {
    let needed = 1.0 - TOLERATED_WAIT;
    format!(
        "{fixed}, so its probe cannot run longer to make up for waiting: the last covered {:.0} % \
         of an undisturbed fork's run, {:.0} % needed; run again when the machine is quieter \
         (the probes that counted are kept)",
        coverage.figure * needed * 100.0,
        needed * 100.0
    )
}

/// The first run's scale.
pub fn first_scale(harness: Harness) -> f64 {
    if honours_times(harness) {
        FIRST_SCALE
    } else {
        1.0
    }
}

/// Whether the harness runs for the time it is given (criterion, divan), so a longer time makes
/// more iterations.
fn honours_times(harness: Harness) -> bool {
    matches!(harness, Harness::Criterion(_) | Harness::Divan)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::harness::CliDialect;
    use crate::model::samples::ForkSettings;

    const CRITERION: Harness = Harness::Criterion(CliDialect::Current);

    /// A criterion run of 10 linear samples at `ns_per_iter`, `d` iterations a step, measuring
    /// `used_ms` (asked `asked_ms`).
    fn record(d: f64, ns_per_iter: f64, asked_ms: f64, used_ms: f64) -> ForkRecord {
        let iters: Vec<f64> = (1..=10).map(|i| i as f64 * d).collect();
        let settings = |measurement_ms| ForkSettings {
            sample_size: 10,
            warm_up_ms: 50.0,
            measurement_ms,
            sampling: None,
        };
        ForkRecord {
            times_ns: iters.iter().map(|i| i * ns_per_iter).collect(),
            iters,
            config: Some(settings(used_ms)),
            asked: Some(settings(asked_ms)),
            ..ForkRecord::default()
        }
    }

    fn shape(record: &ForkRecord, scale: f64, wait: f64) -> RunShape<'_> {
        RunShape {
            harness: CRITERION,
            scale,
            fork_measurement: Duration::from_millis(200),
            cpu_wait_share: Some(wait),
            record,
            spans: &[],
        }
    }

    #[test]
    fn a_quiet_probe_at_the_first_scale_covers_a_fork() {
        // 250 ms at 250 ns an iteration: 1,000,000 iterations, 55 steps of 18,182.
        let quiet = record(18_182.0, 250.0, 250.0, 250.0);
        let covered = covered(&shape(&quiet, FIRST_SCALE, 0.001)).unwrap().figure;
        assert!(covered > 1.2 && covered < 1.26, "{covered}");
    }

    #[test]
    fn a_probe_that_shared_its_cpu_covers_less() {
        // Forks waited 80 % of the time: every sample 5× slower, so the iterations look right
        // and only the wait tells.
        let shared = record(3_636.0, 1_250.0, 250.0, 250.0);
        let covered = covered(&shape(&shared, FIRST_SCALE, 0.8)).unwrap().figure;
        assert!((covered - 0.25).abs() < 0.01, "{covered}");
    }

    #[test]
    fn a_stall_in_the_warm_up_leaves_too_few_iterations() {
        // The warm-up's estimate was 10× too slow: a tenth of the iterations at full speed.
        let stalled = record(1_818.0, 250.0, 250.0, 250.0);
        let covered = covered(&shape(&stalled, FIRST_SCALE, 0.0)).unwrap().figure;
        assert!((covered - 0.125).abs() < 0.01, "{covered}");
    }

    /// A criterion run of 30 linear samples, `d` iterations a step, whose `i`-th sample (from
    /// 0) runs at `per_iter(i)` ns an iteration, of `wall_ms` in all, measuring 250 ms as asked.
    fn sampled(d: f64, per_iter: impl Fn(usize) -> f64, wall_ms: f64) -> ForkRecord {
        let iters: Vec<f64> = (1..=30).map(|i| i as f64 * d).collect();
        let times_ns = iters
            .iter()
            .enumerate()
            .map(|(i, n)| n * per_iter(i))
            .collect();
        ForkRecord {
            iters,
            times_ns,
            wall_ms: Some(wall_ms),
            ..record(d, 0.0, 250.0, 250.0)
        }
    }

    #[test]
    fn a_stall_in_the_warm_up_falls_short_whatever_the_first_samples_are_counted_at() {
        // As `a_stall_in_the_warm_up_leaves_too_few_iterations`, the run's wall time known
        // (62.5 ms of warm-up, 25 ms of samples): the first samples are as fast as the last.
        let stalled = sampled(215.0, |_| 250.0, 100.0);
        let coverage = covered(&shape(&stalled, FIRST_SCALE, 0.0)).unwrap();
        assert_eq!(coverage.limit, Limit::Iterations);
        assert!(coverage.figure < 0.15, "{coverage:?}");
    }

    #[test]
    fn a_load_that_lasts_into_the_first_samples_is_not_read_as_settling() {
        // A load of 1.5 through the warm-up and the first ten samples, then quiet: the warm-up's
        // estimate 1.5× too slow, 83 % of a fork's 800,000 iterations at 250 ns. The run waited
        // 31 ms of its 239: its share of a CPU covers a fork's at 1.25×, and its first samples,
        // 1.5× slower than the rest, would read as settling if their wait were not taken off.
        let loaded = sampled(1_434.0, |i| if i < 10 { 375.0 } else { 250.0 }, 239.0);
        let coverage = covered(&shape(&loaded, FIRST_SCALE, 0.128)).unwrap();
        assert_eq!(coverage.limit, Limit::Iterations);
        assert!((coverage.figure - 0.83).abs() < 0.01, "{coverage:?}");
    }

    #[test]
    fn a_benchmark_still_settling_is_counted_at_its_first_samples_speed() {
        // Its time per iteration falls from 300 ns to 200 ns over the run, and its warm-up
        // (at 1.25× a fork's) estimated 280 ns: 1.25 × 200 ms / 280 ns = 893,000 iterations,
        // against a fork's 200 ms / 300 ns = 667,000 at most. Counted at the fastest sample's
        // 200 ns (1,000,000), it fell short; at the first ten's, less their 1 % wait, it covers.
        let settling = sampled(1_920.0, |i| 300.0 - 100.0 * i as f64 / 29.0, 320.0);
        let coverage = covered(&shape(&settling, FIRST_SCALE, 0.01)).unwrap();
        assert!(coverage.covers(), "{coverage:?}");
        let fastest = settling.iters.iter().sum::<f64>() * 200.0 / 200e6;
        assert!(fastest < 0.9, "{fastest}");
    }

    /// A benchmark that slows as it runs (its time per iteration rises from 200 ns at its first
    /// sample to 300 ns at its last: state that grows), whose probe's warm-up was stalled (its
    /// thread stopped, which the CPU wait does not count: 1 % of 400 ms): 1,720 iterations a
    /// step, 800,000 in all. A fork's warm-up ran before any sample, at 200 ns an iteration or
    /// faster, so a fork makes at least 200 ms / 200 ns = 1,000,000: the probe made 80 % at most.
    fn slowing_and_stalled() -> ForkRecord {
        sampled(1_720.0, |i| 200.0 + 100.0 * i as f64 / 29.0, 400.0)
    }

    #[test]
    fn a_benchmark_that_slows_as_it_runs_is_not_counted_at_its_first_samples_speed() {
        // Counted at its samples' mean (267 ns, less its 1 % wait: 262 ns), it would cover a
        // fork's run at 105 %; its samples after the first third ran slower than those, so it
        // counts at its fastest sample's 200 ns: 80 %.
        let slowing = slowing_and_stalled();
        let coverage = covered(&shape(&slowing, FIRST_SCALE, 0.01)).unwrap();
        assert_eq!(coverage.limit, Limit::Iterations);
        assert!((coverage.figure - 0.8).abs() < 0.005, "{coverage:?}");
        let estimates = Estimates::of(&samples_of(&slowing), slowing.wall_ms, 0.01).unwrap();
        assert!(estimates.slows, "{estimates:?}");
        let first = estimates.first.unwrap();
        assert!(first * 800_000.0 / 200e6 > 1.0, "{estimates:?}");
        // One that settles (`a_benchmark_still_settling_is_counted_at_its_first_samples_speed`)
        // or whose first samples a load slowed
        // (`a_load_that_lasts_into_the_first_samples_is_not_read_as_settling`) does not slow.
        let settling = sampled(1_920.0, |i| 300.0 - 100.0 * i as f64 / 29.0, 320.0);
        let loaded = sampled(1_434.0, |i| if i < 10 { 375.0 } else { 250.0 }, 239.0);
        for (what, run, wait) in [("settling", &settling, 0.01), ("loaded", &loaded, 0.128)] {
            let estimates = Estimates::of(&samples_of(run), run.wall_ms, wait).unwrap();
            assert!(!estimates.slows, "{what}: {estimates:?}");
        }
        let estimates = Estimates::of(&samples_of(&settling), settling.wall_ms, 0.01).unwrap();
        assert!(
            estimates.unbounded() > estimates.fastest * 1.25,
            "{estimates:?}"
        );
    }

    #[test]
    fn a_benchmark_that_slows_as_it_runs_is_held_to_its_warm_up_s_running_time() {
        // The same run, its calls of the timed routine seen: the warm-up's 17 batches ran 40 %
        // of their 62.5 ms (191 ns an iteration). Its samples' first estimate, slower than that,
        // is held to it and counts no slower than the fastest sample: 80 %, not 105 %.
        let slowing = slowing_and_stalled();
        let calls = spans(&slowing, 17, 62.5, 0.4);
        let run = RunShape {
            spans: &calls,
            ..shape(&slowing, FIRST_SCALE, 0.01)
        };
        let counted = counted_ns_per_iter(&run, 0.01).unwrap();
        assert!((counted - 200.0).abs() < 0.01, "{counted}");
        let coverage = covered(&run).unwrap();
        assert_eq!(coverage.limit, Limit::Iterations);
        assert!((coverage.figure - 0.8).abs() < 0.005, "{coverage:?}");
    }

    /// The first probe run of rust-base64's `encode_small_input/encode_string_reuse_buf_stream/100`
    /// (#269, `5d70ba7`) on this machine at a load of 8 on two cores (`--verbose`, 2026-11-30):
    /// 30 linear samples of 39,809 iterations a step, their times per iteration in ns. Its group
    /// sets 3 s of measurement itself, so the probe is no longer than a fork.
    const BASE64_BUSY_NS: [f64; 30] = [
        60.02, 111.34, 162.18, 111.45, 156.16, 169.74, 134.18, 136.90, 144.84, 160.68, 148.37,
        161.69, 200.87, 156.24, 149.80, 145.22, 154.83, 150.97, 142.32, 144.74, 131.60, 141.49,
        138.86, 130.54, 157.40, 151.68, 161.52, 149.70, 158.17, 150.40,
    ];

    #[test]
    fn rust_base64_s_busy_probe_is_counted_at_its_fastest_sample() {
        // It waited for a CPU 58.8 % of its 3,683 ms: every later sample ran at half the
        // first's speed or less. Taken off the first samples, that wait leaves nothing of them,
        // and its 18.5 million iterations count at the fastest's 60 ns: 41 %, as it said.
        let real = ForkRecord {
            steal_share: Some(0.0),
            config: Some(ForkSettings {
                sample_size: 30,
                warm_up_ms: 500.0,
                measurement_ms: 3_000.0,
                sampling: None,
            }),
            ..sampled(39_809.0, |i| BASE64_BUSY_NS[i], 3_683.0)
        };
        assert_eq!(undisturbed_ns_per_iter(&real, 0.588), Some(60.02));
        let coverage = covered(&shape(&real, FIRST_SCALE, 0.588)).unwrap();
        assert_eq!(coverage.limit, Limit::Iterations);
        assert!((coverage.figure - 0.41).abs() < 0.005, "{coverage:?}");
    }

    /// The calls of the timed routine of a run of `record`: `batches` warm-up batches of
    /// `warm_up_ms` in all, running `ran` of it, then one a sample, running throughout.
    fn spans(record: &ForkRecord, batches: u64, warm_up_ms: f64, ran: f64) -> Vec<Span> {
        let wall_ns = (warm_up_ms * 1e6) as u64 / batches;
        let batch = Span {
            wall_ns,
            running_ns: (wall_ns as f64 * ran) as u64,
            waiting_ns: (wall_ns as f64 * (1.0 - ran)) as u64,
        };
        let sample = |ns: &f64| Span {
            wall_ns: *ns as u64 + 20_000,
            running_ns: *ns as u64 + 20_000,
            waiting_ns: 0,
        };
        let samples = record.times_ns.iter().map(sample);
        std::iter::repeat_n(batch, batches as usize)
            .chain(samples)
            .collect()
    }

    #[test]
    fn a_stall_in_the_warm_up_shows_in_its_calls_of_the_timed_routine() {
        // The stall of `a_stall_in_the_warm_up_leaves_too_few_iterations`, as the helper saw it:
        // the warm-up's 17 batches ran a tenth of their 62.5 ms, waiting the rest.
        let stalled = record(1_818.0, 250.0, 250.0, 250.0);
        let calls = spans(&stalled, 17, 62.5, 0.1);
        let run = RunShape {
            spans: &calls,
            ..shape(&stalled, FIRST_SCALE, 0.0)
        };
        let warm_up = warm_up_covered(&run, FIRST_SCALE, 0.0).unwrap();
        assert!(warm_up <= 0.125, "{warm_up}");
        let coverage = covered(&run).unwrap();
        assert!((coverage.figure - 0.125).abs() < 0.01, "{coverage:?}");
    }

    #[test]
    fn a_warm_up_slower_than_its_samples_that_ran_throughout_covers_a_fork() {
        // Its group sets 1 s of measurement itself, so the probe is no longer than a fork. Its
        // warm-up estimated 1.2× the samples' 250 ns an iteration (a fork's does too: the
        // benchmark's first iterations are slower), its thread running throughout: counted at
        // the fastest sample's speed it made 83 % of a fork's iterations (/0.9: 93 %), at its
        // warm-up's less what it did not run, 99.8 % (111 %).
        let slow_start = record(60_606.0, 250.0, 250.0, 1_000.0);
        let calls = spans(&slow_start, 17, 62.5, 0.998);
        let run = RunShape {
            spans: &calls,
            ..shape(&slow_start, FIRST_SCALE, 0.01)
        };
        let coverage = covered(&RunShape { spans: &[], ..run }).unwrap();
        assert!(!coverage.covers(), "{coverage:?}");
        let coverage = covered(&run).unwrap();
        assert!(coverage.covers(), "{coverage:?}");
        // A warm-up twice as slow as the samples, though it ran throughout: a fork's warm-up,
        // longer by criterion's overshoot, may make many more iterations after such a start.
        let slower = record(60_606.0 / 1.6, 250.0, 250.0, 1_000.0);
        let calls = spans(&slower, 17, 62.5, 0.998);
        let run = RunShape {
            spans: &calls,
            ..shape(&slower, FIRST_SCALE, 0.01)
        };
        assert!(warm_up_covered(&run, 1.0, 0.0).unwrap() > 0.99);
        let coverage = covered(&run).unwrap();
        assert!((coverage.figure - 0.521 / 0.9).abs() < 0.01, "{coverage:?}");
        // Calls that are not the warm-up's then one a sample tell nothing.
        let shifted = &calls[..calls.len() - 1];
        assert_eq!(
            warm_up_covered(
                &RunShape {
                    spans: shifted,
                    ..run
                },
                1.0,
                0.0
            ),
            None
        );
        let samples_only = &calls[17..];
        assert_eq!(
            warm_up_covered(
                &RunShape {
                    spans: samples_only,
                    ..run
                },
                1.0,
                0.0
            ),
            None
        );
    }

    /// The same benchmark's first probe run under `chrt -f 10` (a stand-in for a quiet
    /// machine: it waited 2.9 % of its 3,407 ms, steal 0.1 %), 95,149 iterations a step:
    /// flat samples, but a warm-up estimate 13 % slower than the fastest of them.
    const BASE64_QUIET_NS: [f64; 30] = [
        61.61, 60.39, 61.22, 61.37, 61.45, 61.93, 60.95, 60.67, 60.20, 60.41, 60.35, 61.53, 60.28,
        61.19, 61.32, 61.16, 60.25, 61.21, 87.65, 59.85, 59.82, 59.96, 60.07, 61.20, 60.59, 60.30,
        60.69, 59.79, 60.76, 60.31,
    ];

    #[test]
    fn rust_base64_s_quiet_probe_covers_a_fork_by_its_warm_up() {
        let real = ForkRecord {
            steal_share: Some(0.001),
            config: Some(ForkSettings {
                sample_size: 30,
                warm_up_ms: 500.0,
                measurement_ms: 3_000.0,
                sampling: None,
            }),
            ..sampled(95_149.0, |i| BASE64_QUIET_NS[i], 3_407.0)
        };
        // Counted at its fastest sample's 59.79 ns, 44.2 million iterations are 88 % of a
        // fork's, 98 % with the margin of a run that cannot stretch: short, as in session 11.
        let by_samples = covered(&shape(&real, FIRST_SCALE, 0.029)).unwrap();
        assert_eq!(by_samples.limit, Limit::Iterations);
        assert!(!by_samples.covers(), "{by_samples:?}");
        // The helper saw its warm-up's 23 calls run 99.52 % of their 572.2 ms, and its samples
        // time 99.73 % of their calls: its estimate is an undisturbed fork's.
        let batch = Span {
            wall_ns: 572_200_000 / 23,
            running_ns: 572_200_000 / 23 * 9_952 / 10_000,
            waiting_ns: 572_200_000 / 23 * 48 / 10_000,
        };
        let sample = |ns: &f64| Span {
            wall_ns: (ns / 0.9973) as u64,
            running_ns: (ns / 0.9973) as u64,
            waiting_ns: 0,
        };
        let calls: Vec<Span> = std::iter::repeat_n(batch, 23)
            .chain(real.times_ns.iter().map(sample))
            .collect();
        let run = RunShape {
            spans: &calls,
            ..shape(&real, FIRST_SCALE, 0.029)
        };
        let warm_up = warm_up_covered(&run, 1.0, 0.001).unwrap();
        assert!((warm_up - 0.994).abs() < 0.001, "{warm_up}");
        assert!(covered(&run).unwrap().covers());
    }

    /// simd-json #462's `event_stacktrace_10kb/simd_json::to_borrowed_value_with_buffers`
    /// (`dc1c593`), the first run of its probe alone at a raised priority (`--verbose` and the
    /// helper's spans, 2026-11-30): CPU wait 0.8 %, steal 0.0 %, wall 22,139 ms; its group sets
    /// 1 s of warm-up and 20 s of measurement, and its routine (`iter_batched` of a 10 kB input,
    /// `BatchSize::SmallInput`) copies every batch's inputs untimed. 30 linear samples of 6,551
    /// iterations a step, their times per iteration in ns.
    const SIMD_JSON_NS: [f64; 30] = [
        2832.71, 2782.80, 3119.63, 3005.00, 3219.56, 3332.70, 3263.80, 3123.27, 3125.15, 3148.95,
        3235.40, 3222.40, 3151.28, 3069.00, 3080.65, 3129.03, 3126.55, 3170.28, 3088.51, 3141.14,
        3134.27, 3186.90, 3180.94, 3209.72, 3177.13, 3122.77, 3184.43, 3176.38, 3235.23, 3247.81,
    ];

    /// Its warm-up's 18 calls of `Bencher::iter_batched` (criterion 0.8), wall and running, µs.
    const SIMD_JSON_WARM_UP: [(u64, u64); 18] = [
        (229, 57),
        (45, 9),
        (45, 12),
        (54, 20),
        (71, 37),
        (106, 71),
        (202, 164),
        (327, 293),
        (1_061, 1_024),
        (2_565, 2_522),
        (5_532, 5_489),
        (11_616, 11_513),
        (23_719, 23_559),
        (49_585, 47_944),
        (103_961, 99_095),
        (206_257, 204_757),
        (436_267, 425_730),
        (881_417, 872_790),
    ];

    /// Its samples' calls, wall and running, µs: the samples time 47 % of them.
    const SIMD_JSON_SAMPLE_CALLS: [(u64, u64); 30] = [
        (39_711, 39_504),
        (79_255, 78_891),
        (124_882, 120_387),
        (166_910, 163_936),
        (215_650, 210_947),
        (267_315, 263_494),
        (309_011, 300_022),
        (342_133, 337_830),
        (387_783, 381_477),
        (439_274, 432_443),
        (497_805, 488_543),
        (526_225, 517_763),
        (556_792, 543_572),
        (596_689, 581_270),
        (642_793, 636_490),
        (696_008, 694_410),
        (742_371, 722_885),
        (786_737, 776_773),
        (808_222, 806_580),
        (867_801, 866_091),
        (918_226, 913_648),
        (976_370, 974_877),
        (1_019_496, 1_017_813),
        (1_072_201, 1_070_383),
        (1_102_645, 1_100_911),
        (1_128_561, 1_126_908),
        (1_189_384, 1_187_561),
        (1_240_841, 1_239_166),
        (1_299_796, 1_294_271),
        (1_353_193, 1_351_717),
    ];

    /// A call of `wall_us`, running `running_us`, waiting the rest.
    fn call((wall_us, running_us): (u64, u64)) -> Span {
        Span {
            wall_ns: wall_us * 1_000,
            running_ns: running_us * 1_000,
            waiting_ns: (wall_us - running_us) * 1_000,
        }
    }

    /// The simd-json run above, `d` iterations a step; asked for 1.25× a fork's 200 ms, it
    /// measured its own 20 s.
    fn simd_json(d: f64, wall_ms: f64) -> ForkRecord {
        ForkRecord {
            steal_share: Some(0.0),
            config: Some(ForkSettings {
                sample_size: 30,
                warm_up_ms: 1_000.0,
                measurement_ms: 20_000.0,
                sampling: None,
            }),
            ..sampled(d, |i| SIMD_JSON_NS[i], wall_ms)
        }
    }

    #[test]
    fn simd_json_s_quiet_probe_that_sets_up_every_batch_covers_a_fork() {
        let real = simd_json(6_551.0, 22_139.0);
        let calls: Vec<Span> = SIMD_JSON_WARM_UP
            .into_iter()
            .chain(SIMD_JSON_SAMPLE_CALLS)
            .map(call)
            .collect();
        let run = RunShape {
            spans: &calls,
            ..shape(&real, FIRST_SCALE, 0.008)
        };
        assert!(!stretches(&run));
        // Counted at the samples' timed part, its 3.05 million iterations were 47 % of "20 s
        // over 3,108 ns" (53 % with the margin of a run that cannot stretch), as it said; its
        // samples slow as their batches grow, so without its calls nothing holds that first
        // samples' estimate, and its fastest sample's 2,783 ns counts: 42 % (47 %). But
        // criterion's warm-up estimate is the calls' time per iteration, set-up included: the
        // warm-up's 18 calls ran 6,466 ns an iteration (2^18 − 1 iterations), so a fork makes
        // 20 s / 6,573 ns, as many as the probe made.
        let by_timed = covered(&RunShape { spans: &[], ..run }).unwrap();
        assert!((by_timed.figure - 0.471).abs() < 0.005, "{by_timed:?}");
        let warm_up = warm_up_running_ns_per_iter(&calls[..18]).unwrap();
        assert!((warm_up - 6_466.3).abs() < 0.5, "{warm_up}");
        // Its calls' estimate (6,586 ns, the samples slowing as their batches grow) is held to
        // the warm-up's; the warm-up ran 98.4 % of its calls' wall time: covered.
        let counted = counted_ns_per_iter(&run, 0.008).unwrap();
        assert!((counted - warm_up).abs() < 1e-6, "{counted}");
        let coverage = covered(&run).unwrap();
        assert!(coverage.covers(), "{coverage:?}");
        assert!(
            (coverage.figure - 0.985 / 0.9).abs() < 0.005,
            "{coverage:?}"
        );
    }

    #[test]
    fn a_stall_in_the_warm_up_of_a_benchmark_that_sets_up_every_batch_still_falls_short() {
        // The same benchmark, its warm-up's calls waiting as long as they ran (a load on its
        // CPU then): criterion's estimate twice the undisturbed one, half the iterations, at
        // full speed. The run waited 1.7 s of its 21 s.
        let stalled = simd_json(6_551.0 / 2.0, 21_000.0);
        let halved = |(wall, running): (u64, u64)| (wall / 2, running / 2);
        let doubled = |(wall, running): (u64, u64)| (wall + running, running);
        let calls: Vec<Span> = SIMD_JSON_WARM_UP
            .into_iter()
            .map(doubled)
            .chain(SIMD_JSON_SAMPLE_CALLS.into_iter().map(halved))
            .map(call)
            .collect();
        let run = RunShape {
            spans: &calls,
            ..shape(&stalled, FIRST_SCALE, 0.09)
        };
        let warm_up = warm_up_covered(&run, 1.0, 0.0).unwrap();
        assert!((warm_up - 0.5).abs() < 0.01, "{warm_up}");
        let coverage = covered(&run).unwrap();
        assert_eq!(coverage.limit, Limit::Iterations);
        assert!(coverage.figure < 0.6, "{coverage:?}");
    }

    #[test]
    fn a_measurement_time_the_benchmark_sets_is_a_fork_s_too() {
        // The group measures 1 s whatever it is asked: the probe is no longer than a fork.
        // It covers a fork when it waited little, as a harness that stops on its own rule.
        let own = record(72_727.0, 250.0, 250.0, 1_000.0);
        assert!(covered(&shape(&own, FIRST_SCALE, 0.02)).unwrap().covers());
        assert!(covered(&shape(&own, FIRST_SCALE, 0.2)).unwrap().figure < 1.0);
    }

    #[test]
    fn an_unreadable_wait_cannot_keep_a_skip() {
        let quiet = record(18_182.0, 250.0, 250.0, 250.0);
        let unknown = RunShape {
            cpu_wait_share: None,
            ..shape(&quiet, FIRST_SCALE, 0.0)
        };
        assert_eq!(covered(&unknown), Err(CoverageError::UnreadableWait));
    }

    #[test]
    fn harnesses_that_stop_on_their_own_rule_tolerate_a_little_wait() {
        let summary = ForkRecord::default();
        let run = |wait| RunShape {
            harness: Harness::Libtest,
            scale: 1.0,
            cpu_wait_share: Some(wait),
            ..shape(&summary, 1.0, 0.0)
        };
        assert!(covered(&run(0.05)).unwrap().covers());
        assert!(covered(&run(0.2)).unwrap().figure < 1.0);
        assert_eq!(next_scale(Harness::Libtest, 1.0, 0.5), 1.0);
    }

    #[test]
    fn a_runner_that_times_itself_says_what_share_of_a_cpu_it_had_and_what_helps() {
        // A libtest probe that had a CPU for 30 % of its run (load 6 on two cores).
        let summary = ForkRecord::default();
        let run = RunShape {
            harness: Harness::Libtest,
            scale: 1.0,
            cpu_wait_share: Some(0.7),
            ..shape(&summary, 1.0, 0.0)
        };
        let coverage = covered(&run).unwrap();
        assert_eq!(coverage.limit, Limit::CpuShare);
        let why = shortfall(Harness::Libtest, 1.0, coverage);
        assert!(
            why.contains("libtest's `#[bench]` runner stops on its own rule"),
            "{why}"
        );
        assert!(
            why.contains("a CPU for 30 % of its run, 90 % needed"),
            "{why}"
        );
        assert!(why.contains("when the machine is quieter"), "{why}");
        assert!(!why.contains("× its time"), "{why}");
        let waited = Coverage {
            figure: 0.4,
            limit: Limit::CpuShare,
        };
        assert_eq!(
            shortfall(CRITERION, 2.5, waited),
            "the last covered 40 % of an undisturbed fork's run at 2.50× its time, waiting for a \
             CPU"
        );
        let stalled = Coverage {
            limit: Limit::Iterations,
            ..waited
        };
        assert_eq!(
            shortfall(CRITERION, 2.5, stalled),
            "the last made 40 % of an undisturbed fork's iterations at 2.50× its time"
        );
    }

    #[test]
    fn a_benchmark_that_sets_its_own_time_says_so_and_why_only_a_quieter_moment_helps() {
        // simd-json's groups set `measurement_time(20 s)`, which criterion keeps over the
        // command line: a probe asked for 8× a fork's time still measured 20 s, on a machine
        // that gave it a CPU for a fifth of it.
        let own = record(4_000.0, 250_000.0, 250.0 * MAX_SCALE, 20_000.0);
        let run = shape(&own, MAX_SCALE, 0.8);
        assert!(!stretches(&run));
        let coverage = covered(&run).unwrap();
        assert!(!coverage.covers(), "{coverage:?}");
        assert_eq!(coverage.limit, Limit::CpuShare);
        let fixed = fixed_length(&run).unwrap();
        let why = shortfall_fixed(&fixed, coverage);
        assert!(
            why.starts_with(
                "the benchmark sets its own measurement time (20 s), which criterion keeps, so \
                 its probe cannot run longer"
            ),
            "{why}"
        );
        assert!(why.contains("when the machine is quieter"), "{why}");
        assert!(!why.contains("× its time"), "{why}");
        // A run that followed its scale has no fixed length.
        let quiet = record(18_182.0, 250.0, 250.0 * 2.5, 250.0 * 2.5);
        assert!(fixed_length(&shape(&quiet, 2.5, 0.0)).is_none());
    }

    #[test]
    fn the_next_run_is_long_enough_for_the_same_disturbance_within_the_cap() {
        let next = next_scale(CRITERION, FIRST_SCALE, 0.5);
        assert!(
            (next - FIRST_SCALE * FIRST_SCALE / 0.5).abs() < 1e-9,
            "{next}"
        );
        assert_eq!(next_scale(CRITERION, FIRST_SCALE, 0.01), MAX_SCALE);
        assert_eq!(next_scale(CRITERION, 2.0, 1.5), 2.0);
        assert_eq!(first_scale(Harness::Bencher), 1.0);
        assert_eq!(first_scale(Harness::Divan), FIRST_SCALE);
    }
}
