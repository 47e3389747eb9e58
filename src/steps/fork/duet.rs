//! The process mechanics of duet mode (METHOD.md "Duet pairs"; paper 002, sections 3 and 4.4).
//!
//! Duet mode runs a base fork and a head fork *at the same time*, each pinned to its own CPU.
//! Whatever disturbs the machine (another tenant, a frequency change, a cron job) then hits both
//! alike and largely cancels in their ratio. Three things make that work here:
//!
//! - **a common start**: both processes are launched and both connect, and only then do both get
//!   criterion's runner hello, back to back. Criterion blocks on that hello before running any
//!   benchmark code, so it is the barrier (the paper uses shared memory);
//! - **pinning**: each fork runs on its own CPU ([`choose_cpus`]), so the two do not time-share;
//! - **equal load to the end** (section 4.4): if one side finishes first, the other would
//!   measure its tail on an idler machine. The finished side's benchmark is relaunched as a
//!   *filler* fork, whose results are discarded, until the other side finishes; then the filler
//!   is killed.
//!
//! How well the two measurement phases coincided is returned as [`DuetPairOutcome::overlap`],
//! and each fork's measurement window is stored in its record
//! ([`ForkRecord::measurement_window_ms`]).
//!
//! **Pairing by time.** Criterion sizes each fork's samples (iterations per sample) from that
//! fork's own warm-up, and nothing on its command line fixes the iteration counts. When one side
//! is disturbed during warm-up, or the two sides' iteration times differ a lot, sample *i* of base
//! and sample *i* of head no longer run at the same moment, and pairing them by position pairs
//! unrelated moments. [`time_paired_run`] therefore places every sample on the wall clock (the
//! measurement window split in proportion to the samples' own times, which is exact up to
//! criterion's small per-sample overhead) and pairs what ran at the same moment: the shared part
//! of the two windows is cut into equal time slices, and each slice contributes the pair
//! (base sample running then, head sample running then). Every moment both sides measured thus
//! counts equally; moments only one side measured do not enter the paired ratio (they still
//! enter Mann–Whitney and Cliff's delta).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::model::samples::ForkRecord;
use crate::stats::duet::DuetRun;
use crate::steps::fork::Fork;
use crate::steps::fork::session::FinishedFork;
use crate::steps::fork::{ForkError, ForkOutcome, ForkRequest, usable_cpus};

/// Below this mean overlap of the two measurement windows, the report warns that pairing helps
/// little (half of each side's measurement then met no counterpart).
pub const LOW_OVERLAP: f64 = 0.5;

/// In duet mode the warm-up is at most this share of the measurement time (see
/// [`pair_warm_up`]).
pub const MAX_WARM_UP_SHARE: f64 = 0.2;

/// The warm-up both forks of a pair get: the longer of the two sides' adaptive warm-ups, capped
/// at [`MAX_WARM_UP_SHARE`] of the measurement time.
///
/// Why the cap: criterion warms up by doubling the iterations of a batch until the total passes
/// the warm-up time, so the last batch overshoots it by up to 100 %, at random. The two sides
/// of a pair therefore start measuring up to one warm-up time apart; with a warm-up as long as
/// the measurement (the adaptive warm-up grows to 10 s for benchmarks that are slow to settle)
/// the two measurement phases may not overlap at all. Warm-up samples that criterion's warm-up
/// did not absorb are still dropped by steady-state detection.
pub fn pair_warm_up(adaptive: Duration, measurement: Duration) -> Duration {
    adaptive.min(measurement.mul_f64(MAX_WARM_UP_SHARE))
}

/// Time slices per kept sample when pairing by time: fine enough that even the shortest samples
/// of criterion's linear sampling (sample 1 is 1/55 of a 10-sample fork) get slices of their own.
const SLICES_PER_SAMPLE: usize = 8;

/// Both outcomes of one duet pair.
#[derive(Debug, Clone, PartialEq)]
pub struct DuetPairOutcome {
    pub base: ForkOutcome,
    pub head: ForkOutcome,
    /// Fraction (0–1) of the union of the two measurement phases during which both measured;
    /// 0 when either side did not measure.
    pub overlap: f64,
    /// Filler forks launched to keep the machine busy after one side finished (results
    /// discarded).
    pub fillers: usize,
}

/// Runs a base fork and a head fork at the same instant, each on its own CPU (`req.cpu`, set by
/// the caller), keeping the machine equally busy until both have finished.
///
/// A side that fails does not stop the other; its outcome is `Failed` (and the overlap 0).
/// `Err` as for [`crate::steps::fork::run_fork`]: launch or socket problems, an interrupt.
pub fn run_pair(base: &ForkRequest, head: &ForkRequest) -> Result<DuetPairOutcome, ForkError> {
    let mut base_fork = Fork::launch_held(base)?;
    let mut head_fork = Fork::launch_held(head)?;
    let stop = AtomicBool::new(false);
    base_fork.wait_until_connected(&stop)?;
    head_fork.wait_until_connected(&stop)?;
    // One clock reading converts both forks' windows to Unix time, so they stay comparable.
    let clock = WallClock::now();
    // The barrier: both are parked in criterion's hello. Release them back to back.
    base_fork.release();
    head_fork.release();

    // "Done" means measured: once a side has its samples, filling for it is pointless.
    let base_done = Arc::new(AtomicBool::new(false));
    let head_done = Arc::new(AtomicBool::new(false));
    base_fork.signal_when_measured(Arc::clone(&base_done));
    head_fork.signal_when_measured(Arc::clone(&head_done));
    let (base_result, head_result) = thread::scope(|scope| {
        let base_side = scope.spawn(|| run_side(base_fork, base, &base_done, &head_done, &stop));
        let head_result = run_side(head_fork, head, &head_done, &base_done, &stop);
        let base_result = base_side
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (base_result, head_result)
    });
    let ((base, base_fillers), (head, head_fillers)) = (base_result?, head_result?);
    Ok(DuetPairOutcome {
        overlap: overlap_fraction(base.measurement_window, head.measurement_window),
        base: clock.stamp_window(base),
        head: clock.stamp_window(head),
        fillers: base_fillers + head_fillers,
    })
}

/// An `Instant` and the Unix time read at (nearly) the same moment: converts instants to Unix
/// milliseconds that can be stored and compared across the two forks of a pair.
struct WallClock {
    instant: Instant,
    unix_ms: f64,
}

impl WallClock {
    fn now() -> Self {
        let unix_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64() * 1e3);
        WallClock {
            instant: Instant::now(),
            unix_ms,
        }
    }

    fn unix_ms(&self, at: Instant) -> f64 {
        match at.checked_duration_since(self.instant) {
            Some(after) => self.unix_ms + after.as_secs_f64() * 1e3,
            None => self.unix_ms - self.instant.duration_since(at).as_secs_f64() * 1e3,
        }
    }

    /// The fork's outcome, its record carrying the measurement window.
    fn stamp_window(&self, finished: FinishedFork) -> ForkOutcome {
        match finished.outcome {
            ForkOutcome::Completed(mut record) => {
                record.measurement_window_ms = finished
                    .measurement_window
                    .map(|(start, end)| [self.unix_ms(start), self.unix_ms(end)]);
                ForkOutcome::Completed(record)
            }
            failed => failed,
        }
    }
}

/// The overlap ([`overlap_fraction`]) of two recorded forks' measurement windows; `None` when
/// either has none (interleaved mode, or a samples file from before windows were recorded).
pub fn recorded_overlap(base: &ForkRecord, head: &ForkRecord) -> Option<f64> {
    let ([b0, b1], [h0, h1]) = (base.measurement_window_ms?, head.measurement_window_ms?);
    let union = b1.max(h1) - b0.min(h0);
    let intersection = (b1.min(h1) - b0.max(h0)).max(0.0);
    Some(if union > 0.0 {
        intersection / union
    } else {
        0.0
    })
}

/// The duet run of one round, its samples paired by time (see the module docs).
///
/// `None` when the pairing by time is impossible: a fork without a recorded window, a fork that
/// gave one value ([`ForkRecord::per_fork`]), or windows that do not overlap at all. Samples
/// dropped as warm-up ([`ForkRecord::warmup_dropped`]) are never paired. The run may come back
/// empty when no kept samples met.
pub fn time_paired_run(base: &ForkRecord, head: &ForkRecord) -> Option<DuetRun> {
    // One value per fork has no moments to pair: the round pairs the two values.
    if base.per_fork.is_some() || head.per_fork.is_some() {
        return None;
    }
    let base_line = Timeline::of(base)?;
    let head_line = Timeline::of(head)?;
    let from = base_line.start.max(head_line.start);
    let to = base_line.end.min(head_line.end);
    if to <= from {
        return None;
    }
    let kept = base_line.kept().max(head_line.kept()).max(1);
    let slices = kept * SLICES_PER_SAMPLE;
    let width = (to - from) / slices as f64;
    let mut run = DuetRun {
        base: Vec::with_capacity(slices),
        head: Vec::with_capacity(slices),
    };
    for slice in 0..slices {
        let at = from + (slice as f64 + 0.5) * width;
        if let (Some(b), Some(h)) = (base_line.value_at(at), head_line.value_at(at)) {
            run.base.push(b);
            run.head.push(h);
        }
    }
    Some(run)
}

/// One fork's samples placed on the wall clock.
struct Timeline {
    start: f64,
    end: f64,
    /// Unix ms at which each sample ends.
    sample_ends: Vec<f64>,
    /// Per-iteration time of each sample.
    per_iteration: Vec<f64>,
    /// Leading samples dropped as warm-up.
    skip: usize,
}

impl Timeline {
    /// The window is split among the samples in proportion to their measured times, so the
    /// per-sample overhead criterion does not time is spread evenly.
    fn of(fork: &ForkRecord) -> Option<Timeline> {
        let [start, end] = fork.measurement_window_ms?;
        let total: f64 = fork.times_ns.iter().sum();
        if !(total > 0.0 && end > start) {
            return None;
        }
        let mut elapsed = 0.0;
        let sample_ends = fork
            .times_ns
            .iter()
            .map(|t| {
                elapsed += t;
                start + (end - start) * elapsed / total
            })
            .collect();
        Some(Timeline {
            start,
            end,
            sample_ends,
            per_iteration: fork
                .iters
                .iter()
                .zip(&fork.times_ns)
                .map(|(i, t)| t / i)
                .collect(),
            skip: fork.warmup_dropped.unwrap_or(0),
        })
    }

    fn kept(&self) -> usize {
        self.per_iteration.len().saturating_sub(self.skip)
    }

    /// The per-iteration time of the kept sample running at `at`, if any.
    fn value_at(&self, at: f64) -> Option<f64> {
        let index = self.sample_ends.partition_point(|&end| end <= at);
        (index >= self.skip)
            .then(|| self.per_iteration.get(index).copied())
            .flatten()
            .filter(|v| v.is_finite() && *v > 0.0)
    }
}

/// Finishes one side, then keeps its CPU busy with fillers while the other side still runs.
/// Returns the side's own result and how many fillers it launched. An error (an interrupt) sets
/// `stop`, which ends the other side too.
fn run_side(
    fork: Fork,
    req: &ForkRequest,
    done: &AtomicBool,
    other_done: &AtomicBool,
    stop: &AtomicBool,
) -> Result<(FinishedFork, usize), ForkError> {
    let result = fork.finish(stop);
    done.store(true, Ordering::SeqCst);
    let finished = match result {
        Ok(finished) => finished,
        Err(error) => {
            stop.store(true, Ordering::SeqCst);
            return Err(error);
        }
    };
    // A side that failed would fail again as a filler; the other side then runs alone.
    if finished.outcome.failure().is_some() {
        return Ok((finished, 0));
    }
    match fill_until(req, other_done) {
        Ok(fillers) => Ok((finished, fillers)),
        Err(error) => {
            stop.store(true, Ordering::SeqCst);
            Err(error)
        }
    }
}

/// Relaunches `req` as filler forks, results discarded, until `other_done` is set; the running
/// filler is then killed. Stops early (quietly) if a filler cannot run, except on interrupt.
/// Returns the number of fillers launched.
fn fill_until(req: &ForkRequest, other_done: &AtomicBool) -> Result<usize, ForkError> {
    let mut launched = 0;
    while !other_done.load(Ordering::SeqCst) {
        let mut filler = match Fork::launch(req) {
            Ok(filler) => filler,
            Err(ForkError::Interrupted) => return Err(ForkError::Interrupted),
            // The real fork of this side just launched fine; a filler failing to is not worth
            // failing the pair over.
            Err(_) => return Ok(launched),
        };
        launched += 1;
        filler.wait_until_connected(other_done)?;
        filler.release();
        let finished = filler.finish(other_done)?;
        if finished.outcome.failure().is_some() {
            break;
        }
    }
    Ok(launched)
}

/// The fraction of the union of two time windows covered by their intersection; 0 if either is
/// missing or the union is empty.
pub fn overlap_fraction(a: Option<(Instant, Instant)>, b: Option<(Instant, Instant)>) -> f64 {
    let (Some((a_start, a_end)), Some((b_start, b_end))) = (a, b) else {
        return 0.0;
    };
    let union = a_end
        .max(b_end)
        .saturating_duration_since(a_start.min(b_start));
    let intersection = a_end
        .min(b_end)
        .saturating_duration_since(a_start.max(b_start));
    if union.is_zero() {
        return 0.0;
    }
    intersection.as_secs_f64() / union.as_secs_f64()
}

/// The two CPUs for duet mode: `requested` if given (validated against the CPUs this process may
/// use), else the first two usable CPUs.
pub fn choose_cpus(requested: Option<[usize; 2]>) -> Result<[usize; 2], ForkError> {
    choose_from(requested, &usable_cpus())
}

fn choose_from(requested: Option<[usize; 2]>, usable: &[usize]) -> Result<[usize; 2], ForkError> {
    match requested {
        Some([a, b]) if a == b => Err(ForkError::SameCpuTwice(a)),
        Some(cpus) => {
            if let Some(&cpu) = cpus.iter().find(|cpu| !usable.contains(cpu)) {
                return Err(ForkError::CpuNotUsable {
                    cpu,
                    usable: usable.to_vec(),
                });
            }
            Ok(cpus)
        }
        None => match usable {
            [first, second, ..] => Ok([*first, *second]),
            _ => Err(ForkError::NotEnoughCpus {
                usable: usable.to_vec(),
            }),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn window(base: Instant, from_ms: u64, to_ms: u64) -> Option<(Instant, Instant)> {
        Some((
            base + Duration::from_millis(from_ms),
            base + Duration::from_millis(to_ms),
        ))
    }

    #[test]
    fn overlap_is_intersection_over_union() {
        let t = Instant::now();
        assert_eq!(overlap_fraction(window(t, 0, 100), window(t, 0, 100)), 1.0);
        assert!(
            (overlap_fraction(window(t, 0, 100), window(t, 50, 150)) - 50.0 / 150.0).abs() < 1e-9
        );
        assert_eq!(
            overlap_fraction(window(t, 0, 100), window(t, 200, 300)),
            0.0
        );
        assert_eq!(overlap_fraction(window(t, 0, 100), None), 0.0);
    }

    fn fork(times_ns: &[f64], iters: &[f64], window: [f64; 2]) -> ForkRecord {
        ForkRecord {
            iters: iters.to_vec(),
            times_ns: times_ns.to_vec(),
            measurement_window_ms: Some(window),
            ..ForkRecord::default()
        }
    }

    #[test]
    fn identical_windows_pair_like_positions() {
        // Two samples each of equal length: slices pair sample 0 with 0 and 1 with 1.
        let base = fork(&[100.0, 100.0], &[1.0, 1.0], [0.0, 10.0]);
        let head = fork(&[300.0, 300.0], &[2.0, 1.2], [0.0, 10.0]);
        let run = time_paired_run(&base, &head).unwrap();
        assert_eq!(run.base.len(), 2 * SLICES_PER_SAMPLE);
        let ratios: Vec<f64> = run.head.iter().zip(&run.base).map(|(h, b)| h / b).collect();
        assert_eq!(
            ratios.iter().filter(|&&r| r == 1.5).count(),
            SLICES_PER_SAMPLE
        );
        assert_eq!(
            ratios.iter().filter(|&&r| r == 2.5).count(),
            SLICES_PER_SAMPLE
        );
    }

    #[test]
    fn shifted_windows_pair_what_ran_at_the_same_moment() {
        // Base measured 0–20 ms: a slow sample (0–10), then a fast one (10–20). Head measured
        // 10–20 ms in one sample: it must meet base's second sample only, whatever positions say.
        let base = fork(&[10.0, 10.0], &[1.0, 2.0], [0.0, 20.0]);
        let head = fork(&[30.0], &[6.0], [10.0, 20.0]);
        let run = time_paired_run(&base, &head).unwrap();
        assert!(!run.base.is_empty());
        assert!(run.base.iter().all(|&b| b == 5.0), "{run:?}");
        assert!(run.head.iter().all(|&h| h == 5.0), "{run:?}");
        assert!((recorded_overlap(&base, &head).unwrap() - 0.5).abs() < 1e-12);
    }

    #[test]
    fn warm_up_samples_and_missing_windows_are_not_paired() {
        let mut base = fork(&[10.0, 10.0], &[1.0, 1.0], [0.0, 20.0]);
        base.warmup_dropped = Some(1);
        let head = fork(&[10.0, 10.0], &[1.0, 1.0], [0.0, 20.0]);
        let run = time_paired_run(&base, &head).unwrap();
        assert_eq!(
            run.base.len(),
            SLICES_PER_SAMPLE,
            "only the second half pairs"
        );
        let apart = fork(&[10.0], &[1.0], [30.0, 40.0]);
        assert!(time_paired_run(&head, &apart).is_none());
        assert_eq!(recorded_overlap(&head, &apart), Some(0.0));
        let unknown = ForkRecord {
            measurement_window_ms: None,
            ..head.clone()
        };
        assert!(time_paired_run(&unknown, &head).is_none());
        assert_eq!(recorded_overlap(&unknown, &head), None);
    }

    #[test]
    fn pair_warm_up_is_capped_by_the_measurement_time() {
        let second = Duration::from_secs(1);
        assert_eq!(
            pair_warm_up(Duration::from_secs(10), 2 * second),
            Duration::from_millis(400)
        );
        assert_eq!(
            pair_warm_up(Duration::from_millis(100), 2 * second),
            Duration::from_millis(100)
        );
    }

    #[test]
    fn requested_cpus_are_validated() {
        assert_eq!(choose_from(Some([3, 1]), &[0, 1, 2, 3]).unwrap(), [3, 1]);
        let error = choose_from(Some([0, 7]), &[0, 1]).unwrap_err();
        assert!(
            matches!(error, ForkError::CpuNotUsable { cpu: 7, .. }),
            "{error}"
        );
        assert_eq!(
            error.to_string(),
            "CPU 7 is not available to this process (usable CPUs: 0, 1)"
        );
        assert!(matches!(
            choose_from(Some([1, 1]), &[0, 1]),
            Err(ForkError::SameCpuTwice(1))
        ));
    }

    #[test]
    fn default_cpus_are_the_first_two_usable() {
        assert_eq!(choose_from(None, &[2, 5, 6]).unwrap(), [2, 5]);
        let error = choose_from(None, &[4]).unwrap_err();
        assert_eq!(
            error.to_string(),
            "duet mode needs two CPUs, but this process may only use CPU 4; use interleaved mode"
        );
    }
}
