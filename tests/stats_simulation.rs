//! Seeded simulation: does the 99 % CI cover the true ratio, and does `decide` stay quiet on A/A?
//!
//! Synthetic fork-structured data as benchmarks produce them: every fork has its own level
//! (log-normal fork effect: layout, frequency, caches) and every iteration log-normal noise
//! around it. Both sides share the noise model, so the true ratio of means is exactly the ratio
//! of the two base levels. Everything is seeded: the test is deterministic.
use cargo_perfdiff::stats::bootstrap::ratio_of_means;
use cargo_perfdiff::stats::cliffs::cliffs_delta;
use cargo_perfdiff::stats::descriptive::{change_rate, mean_of_fork_means};
use cargo_perfdiff::stats::mann_whitney::mann_whitney_u;
use cargo_perfdiff::stats::verdict::decide;
use cargo_perfdiff::stats::{BootstrapConfig, Evidence, Verdict};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

const TRIALS: usize = 500;
const FORKS: usize = 20;
const ITERATIONS: usize = 10;
const FORK_SD: f64 = 0.02;
const ITERATION_SD: f64 = 0.05;

fn standard_normal(rng: &mut Xoshiro256PlusPlus) -> f64 {
    // Box–Muller; one value per call is plenty here.
    let u1: f64 = 1.0 - rng.random::<f64>();
    let u2: f64 = rng.random::<f64>();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

fn side(rng: &mut Xoshiro256PlusPlus, level: f64) -> Vec<Vec<f64>> {
    (0..FORKS)
        .map(|_| {
            let fork_level = level * (FORK_SD * standard_normal(rng)).exp();
            (0..ITERATIONS)
                .map(|_| fork_level * (ITERATION_SD * standard_normal(rng)).exp())
                .collect()
        })
        .collect()
}

struct Outcome {
    covered: usize,
    false_alarms: usize,
}

fn simulate(true_ratio: f64, seed: u64) -> Outcome {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut outcome = Outcome {
        covered: 0,
        false_alarms: 0,
    };
    for trial in 0..TRIALS {
        let base = side(&mut rng, 1000.0);
        let head = side(&mut rng, 1000.0 * true_ratio);
        let config = BootstrapConfig {
            confidence: 0.99,
            resamples: 1000,
            seed: trial as u64,
        };
        let ratio = ratio_of_means(&base, &head, &config).unwrap();
        if ratio.ci_low <= true_ratio && true_ratio <= ratio.ci_high {
            outcome.covered += 1;
        }
        let (base_flat, head_flat) = (base.concat(), head.concat());
        let evidence = Evidence {
            ratio,
            p_value: mann_whitney_u(&base_flat, &head_flat).unwrap().p_value,
            delta: cliffs_delta(&base_flat, &head_flat).unwrap().delta,
            change_rate: change_rate(mean_of_fork_means(&base), mean_of_fork_means(&head)),
            fork_interval: None,
            layout_spread: None,
        };
        let verdict = decide(&evidence, 0.02, 0.01);
        if matches!(verdict, Verdict::Regressed | Verdict::Improved) {
            outcome.false_alarms += 1;
        }
    }
    outcome
}

#[test]
fn ci_covers_the_true_ratio_and_a_a_tests_stay_quiet() {
    let a_a = simulate(1.0, 1);
    let slower = simulate(1.1, 2);
    eprintln!(
        "coverage A/A {}/{TRIALS}, ratio 1.1 {}/{TRIALS}; A/A false alarms {}/{TRIALS}",
        a_a.covered, slower.covered, a_a.false_alarms
    );
    let at_least = (0.97 * TRIALS as f64).ceil() as usize;
    assert!(
        a_a.covered >= at_least,
        "A/A coverage {}/{TRIALS}",
        a_a.covered
    );
    assert!(
        slower.covered >= at_least,
        "coverage {}/{TRIALS}",
        slower.covered
    );
    assert!(
        a_a.false_alarms <= TRIALS / 100,
        "false alarms {}",
        a_a.false_alarms
    );
}
