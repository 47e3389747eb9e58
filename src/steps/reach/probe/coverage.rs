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
//! Two figures, each 1 for a run exactly as long as an undisturbed fork's:
//! - **CPU share**: the probe ran `scale` times a fork's time, of which it had a CPU for
//!   `(1 − wait) × (1 − steal)` (the leader task's run-queue wait, [`crate::steps::fork::cpu_wait`],
//!   and the hypervisor's steal, [`crate::steps::fork::steal`]).
//! - **Iterations** (criterion): the iterations of its samples against a fork's measurement time
//!   divided by the fastest sample's time per iteration, which a stall in the warm-up does not
//!   inflate.

use std::time::Duration;

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
}

/// How much of an undisturbed fork's run the probe covered (≥ 1: all of it), or why it cannot
/// tell.
pub fn covered(run: &RunShape<'_>) -> Result<f64, String> {
    let wait = run.cpu_wait_share.ok_or(
        "cannot tell whether it ran as long as a fork: its wait for a CPU is unreadable \
         (/proc/<pid>/schedstat)",
    )?;
    let had_cpu = (1.0 - wait) * (1.0 - run.record.steal_share.unwrap_or(0.0));
    match run.harness {
        Harness::Criterion(dialect) => {
            let fork_ms = fork_measurement_ms(run, dialect);
            let ran_ms = run
                .record
                .config
                .as_ref()
                .map_or(fork_ms * run.scale, |c| c.measurement_ms);
            let stretch = ran_ms / fork_ms;
            let iterations = iterations_covered(run.record, fork_ms).unwrap_or(0.0);
            let figure = (stretch * had_cpu).min(iterations);
            // A time the benchmark sets itself, or criterion 0.3's whole seconds, does not
            // stretch: such a run can only be as long as a fork's.
            let stretched = stretch >= run.scale * 0.99;
            Ok(if stretched {
                figure
            } else {
                figure / (1.0 - TOLERATED_WAIT)
            })
        }
        Harness::Divan => Ok(run.scale * had_cpu),
        Harness::Libtest | Harness::Bencher | Harness::Command => {
            Ok(had_cpu / (1.0 - TOLERATED_WAIT))
        }
    }
}

/// A measuring fork's measurement time: the benchmark's own where it sets one (criterion used
/// another than it was asked), the one it is sent otherwise.
fn fork_measurement_ms(run: &RunShape<'_>, dialect: crate::model::harness::CliDialect) -> f64 {
    let sent = dialect.sent_duration(run.fork_measurement).as_secs_f64() * 1000.0;
    match (&run.record.config, &run.record.asked) {
        (Some(used), Some(asked)) if (used.measurement_ms - asked.measurement_ms).abs() > 0.5 => {
            used.measurement_ms
        }
        _ => sent,
    }
}

/// The run's iterations over an undisturbed fork's: the fork's measurement time divided by the
/// fastest sample's time per iteration. `None` without samples.
fn iterations_covered(record: &ForkRecord, fork_ms: f64) -> Option<f64> {
    let fastest_ns = record
        .iters
        .iter()
        .zip(&record.times_ns)
        .filter(|(iters, _)| **iters > 0.0)
        .map(|(iters, ns)| ns / iters)
        .min_by(f64::total_cmp)?;
    let made: f64 = record.iters.iter().sum();
    Some(made * fastest_ns / (fork_ms * 1e6))
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

/// Why a run that covered `covered` (below 1) of an undisturbed fork's run at `scale` does not
/// count, in words a user can act on. A harness that stops on its own rule (libtest's and
/// `bencher`'s runner, a command) cannot be asked to run longer to make up for waiting for a
/// CPU, so the share of its run it had a CPU decides, and only a quieter moment helps: a user
/// who read "at 1.00× its time" for such a run could not tell what to change.
pub fn shortfall(harness: Harness, scale: f64, covered: f64) -> String {
    let runner = match harness {
        Harness::Criterion(_) | Harness::Divan => {
            return format!(
                "the last covered {:.0} % of an undisturbed fork's run at {scale:.2}× its time",
                covered * 100.0
            );
        }
        Harness::Libtest => "libtest's `#[bench]` runner",
        Harness::Bencher => "`bencher`'s runner",
        Harness::Command => "a command",
    };
    let needed = 1.0 - TOLERATED_WAIT;
    format!(
        "{runner} stops on its own rule, so its probe cannot run longer to make up for waiting: \
         the last had a CPU for {:.0} % of its run, {:.0} % needed; run again when the machine \
         is quieter (the probes that counted are kept)",
        covered * needed * 100.0,
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
        }
    }

    #[test]
    fn a_quiet_probe_at_the_first_scale_covers_a_fork() {
        // 250 ms at 250 ns an iteration: 1,000,000 iterations, 55 steps of 18,182.
        let quiet = record(18_182.0, 250.0, 250.0, 250.0);
        let covered = covered(&shape(&quiet, FIRST_SCALE, 0.001)).unwrap();
        assert!(covered > 1.2 && covered < 1.26, "{covered}");
    }

    #[test]
    fn a_probe_that_shared_its_cpu_covers_less() {
        // Forks waited 80 % of the time: every sample 5× slower, so the iterations look right
        // and only the wait tells.
        let shared = record(3_636.0, 1_250.0, 250.0, 250.0);
        let covered = covered(&shape(&shared, FIRST_SCALE, 0.8)).unwrap();
        assert!((covered - 0.25).abs() < 0.01, "{covered}");
    }

    #[test]
    fn a_stall_in_the_warm_up_leaves_too_few_iterations() {
        // The warm-up's estimate was 10× too slow: a tenth of the iterations at full speed.
        let stalled = record(1_818.0, 250.0, 250.0, 250.0);
        let covered = covered(&shape(&stalled, FIRST_SCALE, 0.0)).unwrap();
        assert!((covered - 0.125).abs() < 0.01, "{covered}");
    }

    #[test]
    fn a_measurement_time_the_benchmark_sets_is_a_fork_s_too() {
        // The group measures 1 s whatever it is asked: the probe is no longer than a fork.
        // It covers a fork when it waited little, as a harness that stops on its own rule.
        let own = record(72_727.0, 250.0, 250.0, 1_000.0);
        assert!(covered(&shape(&own, FIRST_SCALE, 0.02)).unwrap() >= 1.0);
        assert!(covered(&shape(&own, FIRST_SCALE, 0.2)).unwrap() < 1.0);
    }

    #[test]
    fn an_unreadable_wait_cannot_keep_a_skip() {
        let quiet = record(18_182.0, 250.0, 250.0, 250.0);
        let unknown = RunShape {
            cpu_wait_share: None,
            ..shape(&quiet, FIRST_SCALE, 0.0)
        };
        assert!(covered(&unknown).unwrap_err().contains("schedstat"));
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
        assert!(covered(&run(0.05)).unwrap() >= 1.0);
        assert!(covered(&run(0.2)).unwrap() < 1.0);
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
        let covered = covered(&run).unwrap();
        let why = shortfall(Harness::Libtest, 1.0, covered);
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
        let stretched = shortfall(CRITERION, 2.5, 0.4);
        assert_eq!(
            stretched,
            "the last covered 40 % of an undisturbed fork's run at 2.50× its time"
        );
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
