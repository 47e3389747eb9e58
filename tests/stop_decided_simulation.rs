//! Seeded simulation of the `decided` stop rule: its whole sequential procedure (a look after
//! every round, stop at the first decided look or at max-forks) followed by the final analysis a
//! real run makes (`run::analyse_samples`, per-look alpha). On A/A data the rate of false
//! "regressed"/"improved" verdicts must stay at most alpha, however often the rule looked.
//!
//! The data are fork-structured like criterion's: every fork has its own level (log-normal fork
//! effect), every sample log-normal noise around it. The relevance threshold is 0 in the A/A
//! case, so only the statistics stand between the noise and a false alarm (with the default 2 %
//! gate false alarms would be rare for any alpha and the test could not fail).
use cargo_perfdiff::analysis::Outcome;
use cargo_perfdiff::config::{Settings, StopRule};
use cargo_perfdiff::samples::{BenchmarkRecord, ForkRecord, SampleFile, SideRecord};
use cargo_perfdiff::stop::StopPolicy;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

const SAMPLES: usize = 10;

fn standard_normal(rng: &mut Xoshiro256PlusPlus) -> f64 {
    let u1: f64 = 1.0 - rng.random::<f64>();
    let u2: f64 = rng.random::<f64>();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

fn fork(rng: &mut Xoshiro256PlusPlus, level: f64, fork_sd: f64, sample_sd: f64) -> ForkRecord {
    let fork_level = level * (fork_sd * standard_normal(rng)).exp();
    let iters: Vec<f64> = (1..=SAMPLES).map(|i| (i * 10) as f64).collect();
    let times_ns = iters
        .iter()
        .map(|n| n * fork_level * (sample_sd * standard_normal(rng)).exp())
        .collect();
    ForkRecord {
        iters,
        times_ns,
        warmup_dropped: Some(0),
        wall_ms: Some(1000.0),
        ..Default::default()
    }
}

struct Scenario {
    head_level: f64,
    fork_sd: f64,
    sample_sd: f64,
    relevance: f64,
}

/// Runs the rule's sequential procedure and the final verdict once.
fn simulate(scenario: &Scenario, settings: &Settings, seed: u64) -> (Outcome, usize) {
    let policy = StopPolicy::from_settings(settings);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut record = BenchmarkRecord {
        id: "sim/bench".to_string(),
        target: None,
        presence: Default::default(),
        base: SideRecord::default(),
        head: SideRecord::default(),
        stop: None,
    };
    for round in 1..=policy.max_rounds() {
        let (s, n) = (scenario.fork_sd, scenario.sample_sd);
        record.base.forks.push(fork(&mut rng, 1000.0, s, n));
        record
            .head
            .forks
            .push(fork(&mut rng, 1000.0 * scenario.head_level, s, n));
        if let Some(stop) = policy.evaluate(&record, round, seed) {
            record.stop = Some(stop);
            break;
        }
    }
    let rounds = record.base.forks.len();
    let mut file = SampleFile::new(Default::default());
    file.benchmarks.push(record);
    let report = cargo_perfdiff::run::analyse_samples(&file, settings, None);
    (report.benchmarks[0].verdict, rounds)
}

fn settings(relevance: f64, alpha: f64) -> Settings {
    Settings {
        // Looks after rounds 3, 5, 8 and 10: four chances to raise a false alarm.
        max_forks: 10,
        stop: StopRule::Decided,
        threshold: relevance,
        alpha,
        confidence: 1.0 - alpha,
        resamples: 2_000,
        seed: Some(7),
        ..Settings::default()
    }
}

fn run(scenario: &Scenario, alpha: f64, trials: u64) -> (Vec<Outcome>, f64) {
    let settings = settings(scenario.relevance, alpha);
    let results: Vec<(Outcome, usize)> = (0..trials)
        .map(|t| simulate(scenario, &settings, 0xD1CE ^ t.wrapping_mul(0x9E37_79B9)))
        .collect();
    let mean_rounds = results.iter().map(|r| r.1 as f64).sum::<f64>() / trials as f64;
    (results.into_iter().map(|r| r.0).collect(), mean_rounds)
}

#[test]
fn a_a_false_alarms_stay_below_alpha_despite_repeated_looks() {
    let alpha = 0.05;
    let trials = 200;
    let scenario = Scenario {
        head_level: 1.0,
        fork_sd: 0.02,
        sample_sd: 0.03,
        relevance: 0.0,
    };
    let (verdicts, rounds) = run(&scenario, alpha, trials);
    let false_alarms = verdicts
        .iter()
        .filter(|v| matches!(v, Outcome::Regressed | Outcome::Improved))
        .count();
    let rate = false_alarms as f64 / trials as f64;
    eprintln!("A/A false alarms: {false_alarms} of {trials} ({rate}), mean rounds {rounds:.1}");
    assert!(
        rate <= alpha,
        "A/A false alarm rate {rate} (of {trials}, mean rounds {rounds:.1}) exceeds alpha {alpha}"
    );
}

#[test]
fn a_clear_change_is_decided_early_and_correctly() {
    let scenario = Scenario {
        head_level: 1.10,
        fork_sd: 0.01,
        sample_sd: 0.02,
        relevance: 0.02,
    };
    let (verdicts, rounds) = run(&scenario, 0.01, 20);
    let regressed = verdicts
        .iter()
        .filter(|v| **v == Outcome::Regressed)
        .count();
    assert!(regressed >= 19, "{verdicts:?}");
    assert!(
        rounds <= 5.0,
        "a 10 % change with 1 % fork noise needs few rounds, took {rounds}"
    );
}

#[test]
fn an_unchanged_benchmark_is_decided_unchanged_before_max_forks() {
    let scenario = Scenario {
        head_level: 1.0,
        fork_sd: 0.005,
        sample_sd: 0.01,
        relevance: 0.02,
    };
    let (verdicts, rounds) = run(&scenario, 0.01, 20);
    let unchanged = verdicts
        .iter()
        .filter(|v| **v == Outcome::Unchanged)
        .count();
    assert!(unchanged >= 19, "{verdicts:?}");
    assert!(rounds < 10.0, "mean rounds {rounds}");
}
