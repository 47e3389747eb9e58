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
//! How well the two measurement phases coincided is returned as [`DuetPairOutcome::overlap`].

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::Instant;

use crate::fork::session::{FinishedFork, RunningFork};
use crate::fork::{ForkError, ForkOutcome, ForkRequest, usable_cpus};

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
/// `Err` as for [`crate::fork::run_fork`]: launch or socket problems, an interrupt.
pub fn run_pair(base: &ForkRequest, head: &ForkRequest) -> Result<DuetPairOutcome, ForkError> {
    let mut base_fork = RunningFork::launch(base)?;
    let mut head_fork = RunningFork::launch(head)?;
    let stop = AtomicBool::new(false);
    base_fork.wait_until_connected(&stop)?;
    head_fork.wait_until_connected(&stop)?;
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
        base: base.outcome,
        head: head.outcome,
        fillers: base_fillers + head_fillers,
    })
}

/// Finishes one side, then keeps its CPU busy with fillers while the other side still runs.
/// Returns the side's own result and how many fillers it launched. An error (an interrupt) sets
/// `stop`, which ends the other side too.
fn run_side(
    fork: RunningFork,
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
        let mut filler = match RunningFork::launch(req) {
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
