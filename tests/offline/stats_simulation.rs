//! Seeded simulation: which interval covers the true ratio over the few rounds a comparison
//! runs, the paired t interval that decides ([`PairedRounds`]) or the percentile bootstrap at the
//! level of the design ([`ratio_of_means_by_rounds`])?
//!
//! Synthetic rounds as a run produces them: each round runs one layout of both sides, whose
//! effect (log-normal, sd 5 %) both share but for a part of head's own (sd 1.5 %: layouts shared
//! as far as they can be, not perfectly); each fork has its own level around it (log-normal, sd
//! 1 %) and every sample log-normal noise around the fork's level (sd 2 %). The true ratio
//! (geometric, over the layout distribution) is then the ratio of the two base levels.
//! Everything is seeded: the test is deterministic.
use cargo_perfdiff::stats::bootstrap::ratio_of_means_by_rounds;
use cargo_perfdiff::stats::descriptive::mean;
use cargo_perfdiff::stats::{BootstrapConfig, PairedRounds, Round};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

const TRIALS: usize = 1000;
const LAYOUT_SD: f64 = 0.05;
const HEAD_OWN_LAYOUT_SD: f64 = 0.015;
const FORK_SD: f64 = 0.01;
const SAMPLE_SD: f64 = 0.02;
const SAMPLES: usize = 10;
const CONFIDENCE: f64 = 0.99;

fn standard_normal(rng: &mut Xoshiro256PlusPlus) -> f64 {
    let u1: f64 = 1.0 - rng.random::<f64>();
    let u2: f64 = rng.random::<f64>();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

fn fork(rng: &mut Xoshiro256PlusPlus, level: f64) -> Vec<f64> {
    let fork_level = level * (FORK_SD * standard_normal(rng)).exp();
    (0..SAMPLES)
        .map(|_| fork_level * (SAMPLE_SD * standard_normal(rng)).exp())
        .collect()
}

/// `rounds` rounds of base at 1000 and head at `1000 · ratio`, round `r` in layout `r % layouts`
/// (each layout's effect drawn once).
fn rounds(
    rng: &mut Xoshiro256PlusPlus,
    count: usize,
    layouts: usize,
    ratio: f64,
) -> Vec<(Vec<f64>, Vec<f64>, usize)> {
    let effects: Vec<(f64, f64)> = (0..layouts)
        .map(|_| {
            let shared = LAYOUT_SD * standard_normal(rng);
            let own = HEAD_OWN_LAYOUT_SD * standard_normal(rng);
            (shared.exp(), (shared + own).exp())
        })
        .collect();
    (0..count)
        .map(|r| {
            let layout = r % layouts;
            let base = fork(rng, 1000.0 * effects[layout].0);
            let head = fork(rng, 1000.0 * ratio * effects[layout].1);
            (base, head, layout)
        })
        .collect()
}

/// How often, of [`TRIALS`], each interval covered `ratio`: `(t, bootstrap)`.
fn coverage(count: usize, layouts: usize, ratio: f64, seed: u64) -> (usize, usize) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let (mut t_covered, mut bootstrap_covered) = (0, 0);
    for trial in 0..TRIALS {
        let data = rounds(&mut rng, count, layouts, ratio);
        let paired: Vec<Round> = data
            .iter()
            .map(|(b, h, layout)| Round {
                log_ratio: (mean(h) / mean(b)).ln(),
                layout: Some(*layout),
            })
            .collect();
        let t = PairedRounds::of(&paired).unwrap().interval(CONFIDENCE);
        t_covered += usize::from(t.ci_low <= ratio && ratio <= t.ci_high);
        let samples: Vec<(Vec<f64>, Vec<f64>)> = data.into_iter().map(|(b, h, _)| (b, h)).collect();
        let config = BootstrapConfig {
            confidence: CONFIDENCE,
            resamples: 500,
            seed: trial as u64,
        };
        let boot = ratio_of_means_by_rounds(&samples, &config).unwrap();
        bootstrap_covered += usize::from(boot.ci_low <= ratio && ratio <= boot.ci_high);
    }
    (t_covered, bootstrap_covered)
}

/// Nominal coverage, less three Monte Carlo standard errors.
fn at_least_nominal() -> usize {
    let sd = (CONFIDENCE * (1.0 - CONFIDENCE) / TRIALS as f64).sqrt();
    ((CONFIDENCE - 3.0 * sd) * TRIALS as f64).floor() as usize
}

#[test]
fn the_t_interval_over_rounds_covers_from_two_rounds_on_and_the_bootstrap_does_not() {
    for (count, ratio) in [(2, 1.0), (3, 1.0), (5, 1.03), (10, 1.0), (10, 1.1)] {
        let (t, bootstrap) = coverage(count, count, ratio, count as u64);
        eprintln!("{count} rounds, ratio {ratio}: t {t}/{TRIALS}, bootstrap {bootstrap}/{TRIALS}");
        assert!(t >= at_least_nominal(), "{count} rounds: t covered {t}");
        if count <= 5 {
            // A percentile interval of a handful of blocks cannot reach past the most extreme
            // of them: far below its level.
            assert!(
                bootstrap < at_least_nominal() - 30,
                "{count} rounds: bootstrap covered {bootstrap}"
            );
        }
    }
}

/// Fewer layouts than rounds (`--layouts 4` with ten rounds): rounds of a layout share its
/// effect, the units are the layouts, and the coverage holds with their unbalanced counts
/// (3, 3, 2, 2 rounds).
#[test]
fn coverage_holds_when_layouts_repeat_unevenly() {
    let (t, _) = coverage(10, 4, 1.05, 44);
    eprintln!("10 rounds over 4 layouts: t {t}/{TRIALS}");
    assert!(t >= at_least_nominal(), "t covered {t}");
}
