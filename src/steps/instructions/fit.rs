//! Instructions per iteration from per-sample counts: a straight line through
//! `(iterations, instructions)` of each sample.
//!
//! A sample's count is `a × iterations + b`: `a` the benchmark's instructions per iteration,
//! `b` what the harness spends on each sample around its loop (reading the clock twice, the
//! loop's set-up). Criterion's samples run different iteration counts (`d, 2d, … nd` in its
//! linear sampling), so both are found, and a line that goes through every sample to within
//! [`EXACT_TOLERANCE`] instructions shows that the benchmark does the same work in every
//! iteration: the figure is exact. When it does not (the work depends on time, on state left by
//! earlier iterations, on randomness), the Theil–Sen slope (the median of the slopes between
//! samples, which a minority of samples off the line does not move) is given, flagged as not
//! exact, with its largest miss.

use serde::{Deserialize, Serialize};

/// The largest miss of a sample, in instructions, for which the fit still counts as exact (a
/// sample's count is an integer; the clock read between samples may take a different path now
/// and then).
pub const EXACT_TOLERANCE: f64 = 2.0;

/// The largest miss of a sample as a share of one iteration's instructions for which the fit
/// still counts as exact: an unrolled loop runs its remainder iterations differently, so a
/// sample of `k` iterations costs a few instructions more or less than `k` times the average
/// (libtest's loop: 13,028 instructions for 1 iteration of the demo's `hash::mix`, 13,021 each
/// for many).
pub const EXACT_SHARE_OF_ITERATION: f64 = 0.001;

/// One sample: its iterations and the instructions it executed.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SampleCount {
    pub iterations: f64,
    pub instructions: f64,
}

/// Instructions per iteration, and how well the samples agree on it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PerIterationFit {
    /// Instructions per iteration (the slope).
    pub per_iteration: f64,
    /// Instructions per sample outside the iterations (the intercept); 0 when every sample ran
    /// the same number of iterations, which leaves it unknown (and inside `per_iteration`).
    pub per_sample: f64,
    /// The largest distance of a sample from the line, in instructions.
    pub max_residual: f64,
    /// Every sample is on the line (within [`EXACT_TOLERANCE`] instructions, or
    /// [`EXACT_SHARE_OF_ITERATION`] of one iteration) and the iteration counts differ, so the
    /// per-sample overhead is separated out: the figure is exact.
    pub exact: bool,
}

/// The fit of `samples`; `None` when there are none, or none with iterations.
pub fn fit(samples: &[SampleCount]) -> Option<PerIterationFit> {
    let samples: Vec<SampleCount> = samples
        .iter()
        .copied()
        .filter(|s| s.iterations > 0.0)
        .collect();
    if samples.is_empty() {
        return None;
    }
    let n = samples.len() as f64;
    let mean_x = samples.iter().map(|s| s.iterations).sum::<f64>() / n;
    let mean_y = samples.iter().map(|s| s.instructions).sum::<f64>() / n;
    let sxx: f64 = samples
        .iter()
        .map(|s| (s.iterations - mean_x).powi(2))
        .sum();
    let sxy: f64 = samples
        .iter()
        .map(|s| (s.iterations - mean_x) * (s.instructions - mean_y))
        .sum();
    let distinct = sxx > 1e-9 * mean_x.max(1.0).powi(2);
    let (per_iteration, per_sample) = if distinct {
        let slope = sxy / sxx;
        (slope, mean_y - slope * mean_x)
    } else {
        // One iteration count: the ratio, overhead included.
        (mean_y / mean_x, 0.0)
    };
    let max_residual = largest_residual(&samples, per_iteration, per_sample);
    let exact = distinct
        && max_residual <= EXACT_TOLERANCE.max(EXACT_SHARE_OF_ITERATION * per_iteration.abs());
    if distinct && !exact {
        // Some samples off the line (a sample that ran into work of its own: the allocator
        // reorganising, a lazy initialisation): the Theil–Sen line, which a minority of such
        // samples does not move, so that forks of the same code still agree.
        let (per_iteration, per_sample) = theil_sen(&samples);
        return Some(PerIterationFit {
            per_iteration,
            per_sample,
            max_residual: largest_residual(&samples, per_iteration, per_sample),
            exact: false,
        });
    }
    Some(PerIterationFit {
        per_iteration,
        per_sample,
        max_residual,
        exact,
    })
}

fn largest_residual(samples: &[SampleCount], per_iteration: f64, per_sample: f64) -> f64 {
    samples
        .iter()
        .map(|s| (s.instructions - (per_iteration * s.iterations + per_sample)).abs())
        .fold(0.0, f64::max)
}

/// The Theil–Sen line through `samples`: the median of the slopes between every two samples of
/// different iteration counts, and the median intercept at that slope.
fn theil_sen(samples: &[SampleCount]) -> (f64, f64) {
    let mut slopes: Vec<f64> = Vec::new();
    for (i, a) in samples.iter().enumerate() {
        for b in &samples[i + 1..] {
            if a.iterations != b.iterations {
                slopes.push((b.instructions - a.instructions) / (b.iterations - a.iterations));
            }
        }
    }
    let slope = median(&mut slopes);
    let mut intercepts: Vec<f64> = samples
        .iter()
        .map(|s| s.instructions - slope * s.iterations)
        .collect();
    (slope, median(&mut intercepts))
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => values[n / 2],
        _ => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn samples(points: &[(f64, f64)]) -> Vec<SampleCount> {
        points
            .iter()
            .map(|&(iterations, instructions)| SampleCount {
                iterations,
                instructions,
            })
            .collect()
    }

    #[test]
    fn criterion_s_linear_samples_give_the_exact_slope_and_overhead() {
        // Seen on the demo's hash/mix under callgrind: 16 iterations more per sample, 208,352
        // instructions more, 280 per sample around the loop.
        let points: Vec<(f64, f64)> = (1..=10)
            .map(|k| (16.0 * k as f64, 13_022.0 * 16.0 * k as f64 + 280.0))
            .collect();
        let fit = fit(&samples(&points)).unwrap();
        assert!((fit.per_iteration - 13_022.0).abs() < 1e-6, "{fit:?}");
        assert!((fit.per_sample - 280.0).abs() < 1e-3, "{fit:?}");
        assert!(fit.exact, "{fit:?}");
    }

    #[test]
    fn work_that_varies_is_flagged() {
        let fit = fit(&samples(&[(10.0, 1000.0), (20.0, 2100.0), (30.0, 2900.0)])).unwrap();
        assert!(!fit.exact, "{fit:?}");
        assert!(fit.max_residual > 10.0, "{fit:?}");
        assert!((fit.per_iteration - 95.0).abs() < 1e-9, "{fit:?}");
    }

    #[test]
    fn a_few_samples_off_the_line_do_not_move_it() {
        // Seen on base64's encode/100 under callgrind: now and then a sample runs millions of
        // instructions more; forks of the same code must still agree on the work.
        let mut points: Vec<(f64, f64)> = (1..=10)
            .map(|k| (64.0 * k as f64, 1_550.0 * 64.0 * k as f64 + 90.0))
            .collect();
        points[3].1 += 2_600_000.0;
        points[8].1 += 900_000.0;
        let fit = fit(&samples(&points)).unwrap();
        assert!(!fit.exact, "flagged: {fit:?}");
        assert!((fit.per_iteration - 1_550.0).abs() < 1e-6, "{fit:?}");
        assert!((fit.max_residual - 2_600_000.0).abs() < 1.0, "{fit:?}");
    }

    #[test]
    fn one_iteration_count_gives_the_ratio_not_exact() {
        let fit = fit(&samples(&[(100.0, 10_300.0), (100.0, 10_300.0)])).unwrap();
        assert_eq!(fit.per_iteration, 103.0);
        assert_eq!(fit.per_sample, 0.0);
        assert!(!fit.exact);
        assert!(super::fit(&[]).is_none());
    }
}
