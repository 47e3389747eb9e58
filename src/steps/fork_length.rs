//! How long a benchmark's forks measure after the first rounds: Kalibera and Jones's optimum.
//!
//! A fork's mean carries two kinds of noise: what differs from one process to the next (where
//! its memory lands, the code layout of its round, the machine's state) and the sampling noise
//! within the fork, which shrinks as the fork measures longer. Only more forks average the
//! first away, and each fork pays a fixed cost (process start, set-up, warm-up) whatever it
//! measures. Kalibera and Jones (ISMM 2013) give the measurement per fork that makes the mean
//! most precise for the time: `T* = sqrt(c_fork · σ²_within,1ms / σ²_between)`, with
//! `σ²_within,1ms` the within-fork variance of a 1 ms mean. A benchmark whose forks differ by
//! more than their samples gets shorter forks and more of them in the time; one whose samples
//! are the noisier gets longer forks.
//!
//! [`choose`] reads the components and the fork cost off a benchmark's first rounds (two give
//! both: two forks a side, each with its samples) and returns the length for both sides of its
//! later rounds, so a round still pairs forks measured alike, and the user's build is not
//! touched. A measurement time the user set is kept ([`ForkLengthReason::Fixed`]), and so is
//! one the benchmark's own code sets. docs/design/fork-length.md has the model and the figures.

use crate::model::samples::{
    BenchmarkRecord, ForkLengthChoice, ForkLengthReason, ForkRecord, Mode, SideRecord,
};
use crate::stats::components::{self, GroupMean};

/// Rounds measured at the default length before the choice: two give each side two forks, so
/// both variance components (pooled over the sides, two degrees of freedom between forks).
pub const CHOOSE_AFTER_ROUNDS: usize = 2;

/// The shortest measurement a chosen fork gets, in milliseconds: criterion still takes its
/// samples (each at least one iteration) in it, and below it a fork's warm-up estimate of the
/// iteration time, from which criterion sizes its samples, gets coarse.
pub const MIN_MEASUREMENT_MS: f64 = 100.0;

/// The longest, as a multiple of the default: past it a fork's wall time, and so the delay
/// before the next checkpoint, grows for little (the stop rule looks after every round).
pub const MAX_MEASUREMENT_FACTOR: f64 = 4.0;

/// An optimum within this factor of the default keeps the default: the estimate from two rounds
/// is not precise enough to move for less.
pub const KEEP_WITHIN_FACTOR: f64 = 1.25;

/// Forks are shortened only when they differ by more than their samples at this level (the F
/// test of the between component): from two rounds its estimate has two degrees of freedom, and
/// a benchmark whose noise is within its forks, shortened on a chance spread of two fork means,
/// would lose most of its precision for the time.
pub const BETWEEN_SHOWN_P: f64 = 0.05;

/// What the choice depends on besides the benchmark's record.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ForkLengthSettings {
    /// The measurement time of the first rounds (`--measurement-time`), in milliseconds.
    pub default_ms: f64,
    /// Whether the user set it: then every fork measures it.
    pub fixed: bool,
    pub mode: Mode,
}

/// The length of `record`'s forks from its next round on (after [`CHOOSE_AFTER_ROUNDS`], or
/// later in a file resumed without a choice), and why.
pub fn choose(record: &BenchmarkRecord, settings: &ForkLengthSettings) -> ForkLengthChoice {
    ForkLengthChoice {
        from_round: record.completed_rounds(),
        ..length_for(record, settings)
    }
}

/// [`choose`] before its round is set.
fn length_for(record: &BenchmarkRecord, settings: &ForkLengthSettings) -> ForkLengthChoice {
    let kept = |reason: ForkLengthReason, why: &str| ForkLengthChoice {
        measurement_ms: settings.default_ms,
        default_ms: settings.default_ms,
        from_round: CHOOSE_AFTER_ROUNDS,
        reason,
        why: why.to_string(),
        ..ForkLengthChoice::default()
    };
    if settings.fixed {
        return kept(
            ForkLengthReason::Fixed,
            "the measurement time was set (--measurement-time or measurement-ms): every fork measures it",
        );
    }
    if settings.mode == Mode::Duet {
        return kept(
            ForkLengthReason::Duet,
            "duet pairs samples taken at the same time: its forks keep their length",
        );
    }
    let forks: Vec<&ForkRecord> = record
        .base
        .forks_with_data()
        .into_iter()
        .chain(record.head.forks_with_data())
        .collect();
    if forks
        .iter()
        .any(|f| f.per_fork.is_some() || f.iters.len() < 2)
    {
        return kept(
            ForkLengthReason::OneValuePerFork,
            "its forks give one value each: there is no within-fork noise to weigh",
        );
    }
    if forks.iter().any(|f| measurement_set_in_code(f)) {
        return kept(
            ForkLengthReason::SetInCode,
            "its own code sets criterion's measurement time, which wins over the command line",
        );
    }
    match measured(record) {
        Some(measured) => from_components(measured, settings),
        None => kept(
            ForkLengthReason::NotEnoughData,
            "its first rounds gave too few forks with samples and times to weigh them",
        ),
    }
}

/// What the first rounds measured: the two variance components and the fork cost.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Measured {
    /// Variance of a fork's log mean from within-fork noise, for a 1 ms measurement.
    within_per_ms: f64,
    /// Variance component of the log fork means between forks, pooled over the sides.
    between: f64,
    /// The p-value of "the forks differ no more than their samples" (F test).
    between_p: f64,
    /// The fixed cost of a fork, in milliseconds.
    fork_cost_ms: f64,
}

/// The components over both sides' forks with at least two kept samples (each side's forks
/// about its own mean: the change between the sides is no noise) and the median fork cost;
/// `None` when a side has fewer than two such forks or no fork recorded its wall time.
fn measured(record: &BenchmarkRecord) -> Option<Measured> {
    let sides = [side_forks(&record.base), side_forks(&record.head)];
    if sides.iter().any(|forks| forks.len() < 2) {
        return None;
    }
    let means: Vec<Vec<GroupMean>> = sides
        .iter()
        .map(|forks| forks.iter().map(|(mean, _)| *mean).collect())
        .collect();
    let moments = components::components_of_means(&means).ok()?;
    // Each fork's within variance of its mean, times the time it measured: a 1 ms mean's.
    let scaled: Vec<f64> = sides
        .iter()
        .flatten()
        .map(|(mean, ms)| mean.mean_variance * ms)
        .collect();
    let costs: Vec<f64> = record
        .base
        .forks_with_data()
        .into_iter()
        .chain(record.head.forks_with_data())
        .filter_map(fork_cost_ms)
        .collect();
    if costs.is_empty() {
        return None;
    }
    Some(Measured {
        within_per_ms: scaled.iter().sum::<f64>() / scaled.len() as f64,
        between: moments.between,
        between_p: moments.p_value,
        fork_cost_ms: crate::stats::descriptive::median(&costs),
    })
}

/// A side's forks with at least two kept samples: each one's log mean with its variance, and the
/// time its kept samples measured.
fn side_forks(side: &SideRecord) -> Vec<(GroupMean, f64)> {
    side.forks_with_data()
        .into_iter()
        .filter_map(|fork| Some((fork_mean(fork)?, kept_ms(fork))))
        .collect()
}

/// A fork's log mean time per iteration over its kept samples, weighted by their iterations
/// (a sample of `i` iterations has `1/i` of the variance of one), and the variance of that mean.
fn fork_mean(fork: &ForkRecord) -> Option<GroupMean> {
    let skip = fork.warmup_dropped.unwrap_or(0);
    let (logs, weights): (Vec<f64>, Vec<f64>) = fork
        .iters
        .iter()
        .zip(&fork.times_ns)
        .skip(skip)
        .filter(|(i, t)| **i > 0.0 && **t > 0.0)
        .map(|(i, t)| ((t / i).ln(), *i))
        .unzip();
    components::weighted_group(&logs, &weights).ok()
}

/// The time a fork's kept samples measured, in milliseconds.
fn kept_ms(fork: &ForkRecord) -> f64 {
    measured_ms(fork, fork.warmup_dropped.unwrap_or(0))
}

/// The time a fork's samples from the `skip`-th on measured, in milliseconds: their times, or,
/// in another unit than nanoseconds (a custom criterion measurement such as cycles), their share
/// of the measurement time criterion used.
fn measured_ms(fork: &ForkRecord, skip: usize) -> f64 {
    let value: f64 = fork.times_ns.iter().skip(skip).sum();
    if fork.unit.is_none() {
        return value / 1e6;
    }
    let total: f64 = fork.times_ns.iter().sum();
    let measurement_ms = fork.config.as_ref().map_or(0.0, |c| c.measurement_ms);
    if total > 0.0 {
        value / total * measurement_ms
    } else {
        0.0
    }
}

/// The fixed cost of a fork, from its own timestamps: its wall time less the time all its
/// samples measured (what remains is process start, set-up, warm-up and criterion's own work),
/// and at least its time outside the benchmark plus the warm-up criterion used (a harness that
/// reports times it did not spend, like the test fixture, leaves only those).
fn fork_cost_ms(fork: &ForkRecord) -> Option<f64> {
    let wall = fork.wall_ms?;
    let sampled = measured_ms(fork, 0);
    let warm_up = fork.config.as_ref().map_or(0.0, |c| c.warm_up_ms);
    let floor = fork.outside_ms.unwrap_or(0.0) + warm_up;
    let cost = (wall - sampled).max(floor);
    (cost.is_finite() && cost > 0.0).then_some(cost)
}

/// Whether the benchmark's code set criterion's measurement time: criterion used another one
/// than the fork asked for.
fn measurement_set_in_code(fork: &ForkRecord) -> bool {
    match (&fork.config, &fork.asked) {
        (Some(used), Some(asked)) => (used.measurement_ms - asked.measurement_ms).abs() > 0.5,
        _ => false,
    }
}

/// The choice from the measured components: the optimum, clamped to the bounds, and kept when
/// it is within [`KEEP_WITHIN_FACTOR`] of the default.
fn from_components(m: Measured, settings: &ForkLengthSettings) -> ForkLengthChoice {
    let default = settings.default_ms;
    let optimum =
        components::optimal_inner_repetitions(m.fork_cost_ms, 1.0, m.within_per_ms, m.between)
            .ok()
            .filter(|ms| ms.is_finite());
    let max = default * MAX_MEASUREMENT_FACTOR;
    let mut target = optimum
        .unwrap_or(max)
        .clamp(MIN_MEASUREMENT_MS.min(default), max.max(default));
    if m.between_p > BETWEEN_SHOWN_P {
        // Two rounds give the between component two degrees of freedom: shorten only when the
        // forks are shown to differ by more than their samples.
        target = target.max(default);
    }
    let (reason, length) = if target > default * KEEP_WITHIN_FACTOR {
        (ForkLengthReason::Longer, target.round())
    } else if target < default / KEEP_WITHIN_FACTOR {
        (ForkLengthReason::Shorter, target.round())
    } else {
        (ForkLengthReason::Kept, default)
    };
    let within_at_default = m.within_per_ms / default;
    ForkLengthChoice {
        measurement_ms: length,
        default_ms: default,
        from_round: CHOOSE_AFTER_ROUNDS,
        reason,
        within_per_ms: Some(m.within_per_ms),
        between: Some(m.between),
        between_p_value: Some(m.between_p),
        within_at_default: Some(within_at_default),
        fork_cost_ms: Some(m.fork_cost_ms),
        optimum_ms: optimum,
        forks_per_default_fork: Some((m.fork_cost_ms + default) / (m.fork_cost_ms + length)),
        why: why(reason, &m, within_at_default, optimum),
    }
}

/// The reason for a length chosen from the components, in a sentence.
fn why(
    reason: ForkLengthReason,
    m: &Measured,
    within_at_default: f64,
    optimum: Option<f64>,
) -> String {
    let spread = |variance: f64| format!("{:.2} %", variance.sqrt() * 100.0);
    let noise = format!(
        "forks differ by {} beyond their samples, a fork's samples leave {} of noise in its mean, \
         and a fork costs {:.0} ms besides measuring",
        spread(m.between),
        spread(within_at_default),
        m.fork_cost_ms
    );
    let optimum = optimum.map_or("unbounded (the forks do not differ)".to_string(), |ms| {
        format!("{ms:.0} ms")
    });
    let verdict = match reason {
        ForkLengthReason::Shorter => "shorter forks, more of them in the time",
        ForkLengthReason::Longer => "longer forks: the noise within a fork dominates",
        _ if m.between_p > BETWEEN_SHOWN_P => {
            "the forks are not shown to differ beyond their samples (F test), so not shorter"
        }
        _ => "the default is within a quarter of the optimum",
    };
    format!("{noise}: the optimum is {optimum}; {verdict}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::samples::ForkSettings;

    /// A fork of `n` samples of linear sampling (`i` iterations), each `ns · (1 + noise_i)` a
    /// iteration, whose mean is moved by `shift`; `wall_ms` of wall time.
    fn fork(ns: f64, shift: f64, jitter: f64, round: usize) -> ForkRecord {
        let n = 30;
        let iters: Vec<f64> = (1..=n).map(|i| (i * 100) as f64).collect();
        let times_ns: Vec<f64> = iters
            .iter()
            .enumerate()
            .map(|(i, it)| {
                let wiggle = if i % 2 == 0 { jitter } else { -jitter };
                it * ns * (1.0 + shift) * (1.0 + wiggle)
            })
            .collect();
        let sampled: f64 = times_ns.iter().sum::<f64>() / 1e6;
        ForkRecord {
            iters,
            times_ns,
            round: Some(round),
            wall_ms: Some(sampled + 300.0),
            config: Some(ForkSettings {
                sample_size: n,
                warm_up_ms: 100.0,
                measurement_ms: 500.0,
                sampling: None,
            }),
            ..ForkRecord::default()
        }
    }

    fn record(shifts: [f64; 2], jitter: f64) -> BenchmarkRecord {
        let mut file = crate::model::samples::SampleFile::new(Default::default());
        let record = file.benchmark_mut("b", crate::model::samples::Presence::Both);
        for (round, shift) in shifts.into_iter().enumerate() {
            record.base.forks.push(fork(1000.0, shift, jitter, round));
            record.head.forks.push(fork(1100.0, -shift, jitter, round));
        }
        record.clone()
    }

    fn settings() -> ForkLengthSettings {
        ForkLengthSettings {
            default_ms: 500.0,
            fixed: false,
            mode: Mode::Interleaved,
        }
    }

    #[test]
    fn forks_that_differ_more_than_their_samples_get_shorter_forks() {
        let choice = choose(&record([0.05, -0.05], 0.001), &settings());
        assert_eq!(choice.reason, ForkLengthReason::Shorter, "{choice:?}");
        assert_eq!(choice.measurement_ms, MIN_MEASUREMENT_MS);
        assert!(choice.forks_per_default_fork.unwrap() > 1.5);
        assert!((choice.fork_cost_ms.unwrap() - 300.0).abs() < 1e-6);
        assert!(choice.why.contains("shorter forks"), "{}", choice.why);
    }

    #[test]
    fn noise_within_forks_gets_longer_forks() {
        let choice = choose(&record([0.0001, -0.0001], 0.05), &settings());
        assert_eq!(choice.reason, ForkLengthReason::Longer, "{choice:?}");
        assert_eq!(choice.measurement_ms, 2000.0);
        assert!(choice.forks_per_default_fork.unwrap() < 1.0);
    }

    #[test]
    fn the_optimum_is_kalibera_and_jones_s() {
        let choice = choose(&record([0.002, -0.002], 0.01), &settings());
        let (c, w, b) = (
            choice.fork_cost_ms.unwrap(),
            choice.within_per_ms.unwrap(),
            choice.between.unwrap(),
        );
        assert!(b > 0.0 && w > 0.0);
        let expected = (c * w / b).sqrt();
        assert!((choice.optimum_ms.unwrap() - expected).abs() < 1e-9 * expected);
    }

    #[test]
    fn a_measurement_time_the_user_set_is_kept() {
        let fixed = ForkLengthSettings {
            fixed: true,
            ..settings()
        };
        let choice = choose(&record([0.05, -0.05], 0.001), &fixed);
        assert_eq!(choice.reason, ForkLengthReason::Fixed);
        assert_eq!(choice.measurement_ms, 500.0);
    }

    #[test]
    fn duet_and_one_value_forks_and_code_settings_keep_the_default() {
        let duet = ForkLengthSettings {
            mode: Mode::Duet,
            ..settings()
        };
        let noisy = record([0.05, -0.05], 0.001);
        assert_eq!(choose(&noisy, &duet).reason, ForkLengthReason::Duet);
        let mut single = noisy.clone();
        for fork in single.base.forks.iter_mut().chain(&mut single.head.forks) {
            fork.iters = vec![1.0];
            fork.times_ns = vec![1000.0];
        }
        assert_eq!(
            choose(&single, &settings()).reason,
            ForkLengthReason::OneValuePerFork
        );
        let mut coded = noisy.clone();
        coded.base.forks[0].asked = Some(ForkSettings {
            measurement_ms: 100.0,
            ..coded.base.forks[0].config.clone().unwrap()
        });
        assert_eq!(
            choose(&coded, &settings()).reason,
            ForkLengthReason::SetInCode
        );
    }

    #[test]
    fn one_round_is_not_enough() {
        let mut first = record([0.05, -0.05], 0.001);
        first.base.forks.truncate(1);
        first.head.forks.truncate(1);
        let choice = choose(&first, &settings());
        assert_eq!(choice.reason, ForkLengthReason::NotEnoughData);
        assert_eq!(choice.measurement_ms, 500.0);
    }
}
