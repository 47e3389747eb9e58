//! Seeded simulation of the shipped rule: the `decided` stop rule's whole sequential procedure
//! (a look after every round, stop at the first decided look or at max-forks) followed by the
//! final analysis a real run makes (`run::analyse_samples`, per-look alpha), on data with the
//! structure of a real run:
//!
//! - every round `r` runs layout `r` of both sides; a layout moves a benchmark by a log-normal
//!   effect with sd `layout_sd`, shared by base and head when their layouts place the shared code
//!   alike (`shared_layouts`), independent otherwise;
//! - every fork has its own level around its layout's (log-normal, `fork_sd`), and a share of
//!   forks is disturbed (10–100 % slow, as a neighbour's burst makes them);
//! - every sample has log-normal noise around its fork's level (`sample_sd`).
//!
//! The A/A cases use a relevance threshold of 0, so that only the statistics stand between the
//! noise and a false alarm: their rate must stay at most alpha however often the rule looked.
//! The other cases measure what users see at the default threshold (2 %) and alpha (1 %): the
//! share of A/A comparisons called `unchanged`, the power at +3 % and +10 %, and the rounds run.
//! `cargo test --release --test offline stop_decided_simulation:: -- --ignored --nocapture` prints
//! the full table of `docs/design/statistics.md` ("The shipped rule, simulated").
use cargo_perfdiff::config::{Settings, StopRule};
use cargo_perfdiff::model::samples::{
    BenchmarkRecord, ForkRecord, Presence, SampleFile, SideRecord,
};
use cargo_perfdiff::steps::analysis::Outcome;
use cargo_perfdiff::steps::stop::StopPolicy;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::sync::atomic::{AtomicBool, Ordering};

const SAMPLES: usize = 10;

fn standard_normal(rng: &mut Xoshiro256PlusPlus) -> f64 {
    let u1: f64 = 1.0 - rng.random::<f64>();
    let u2: f64 = rng.random::<f64>();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// The structure of the simulated runs (see the module docs).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Scenario {
    change: f64,
    layout_sd: f64,
    shared_layouts: bool,
    fork_sd: f64,
    sample_sd: f64,
    disturbed_share: f64,
}

impl Scenario {
    pub(crate) const fn new(layout_sd: f64, fork_sd: f64) -> Scenario {
        Scenario {
            change: 0.0,
            layout_sd,
            shared_layouts: true,
            fork_sd,
            sample_sd: 0.01,
            disturbed_share: 0.0,
        }
    }

    pub(crate) fn with_change(self, change: f64) -> Scenario {
        Scenario { change, ..self }
    }
}

/// One fork at `level` (its layout's), in round `round`.
fn fork(rng: &mut Xoshiro256PlusPlus, level: f64, round: usize, s: &Scenario) -> ForkRecord {
    let mut fork_level = level * (s.fork_sd * standard_normal(rng)).exp();
    if rng.random::<f64>() < s.disturbed_share {
        fork_level *= 1.1 + 0.9 * rng.random::<f64>();
    }
    let iters: Vec<f64> = (1..=SAMPLES).map(|i| (i * 10) as f64).collect();
    let times_ns = iters
        .iter()
        .map(|n| n * fork_level * (s.sample_sd * standard_normal(rng)).exp())
        .collect();
    ForkRecord {
        iters,
        times_ns,
        round: Some(round),
        layout: Some(round),
        warmup_dropped: Some(0),
        wall_ms: Some(1000.0),
        ..Default::default()
    }
}

pub(crate) fn empty_record() -> BenchmarkRecord {
    BenchmarkRecord {
        id: "sim/bench".to_string(),
        target: None,
        package: None,
        criterion_id: None,
        presence: Presence::Both,
        base: SideRecord::default(),
        head: SideRecord::default(),
        stop: None,
        selection: None,
        harness: None,
        fork_length: None,
    }
}

/// The forks of one simulated comparison: each round's pair, and a side's fork measured again.
pub(crate) trait Draws {
    /// Base's fork and head's of round `round`.
    fn round(&mut self, round: usize) -> (ForkRecord, ForkRecord);
    /// Another fork of the side (`head` or base) of round `round`, in the same layout.
    fn again(&mut self, round: usize, head: bool) -> ForkRecord;
}

/// The Gaussian forks of a scenario; a fork measured again keeps its round's layout.
struct Gaussian<'s> {
    rng: Xoshiro256PlusPlus,
    scenario: &'s Scenario,
    /// The levels of base and head in the current round's layout.
    levels: (f64, f64),
}

impl Draws for Gaussian<'_> {
    fn round(&mut self, round: usize) -> (ForkRecord, ForkRecord) {
        let scenario = self.scenario;
        let base_layout = (scenario.layout_sd * standard_normal(&mut self.rng)).exp();
        let head_layout = if scenario.shared_layouts {
            base_layout
        } else {
            (scenario.layout_sd * standard_normal(&mut self.rng)).exp()
        };
        self.levels = (
            1000.0 * base_layout,
            1000.0 * (1.0 + scenario.change) * head_layout,
        );
        let base = fork(&mut self.rng, self.levels.0, round, scenario);
        (base, fork(&mut self.rng, self.levels.1, round, scenario))
    }

    fn again(&mut self, round: usize, head: bool) -> ForkRecord {
        let level = if head { self.levels.1 } else { self.levels.0 };
        fork(&mut self.rng, level, round, self.scenario)
    }
}

/// Runs the rule's sequential procedure and the final verdict once: the verdict, the rounds
/// and the forks measured again.
fn simulate(scenario: &Scenario, settings: &Settings, seed: u64) -> (Outcome, usize, usize) {
    let mut draws = Gaussian {
        rng: Xoshiro256PlusPlus::seed_from_u64(seed),
        scenario,
        levels: (1000.0, 1000.0),
    };
    run_to_verdict(settings, seed, &mut draws)
}

/// Whether [`run_to_verdict`] measures a fork again as a run does (true but in
/// `calibrated_simulation::print_what_measuring_again_changes`, which compares without).
pub(crate) static REMEASURE: AtomicBool = AtomicBool::new(true);

/// Adds the rounds `draws` makes (base's fork, head's; a fork the shipped rule measures again,
/// [`StopPolicy::remeasures`], replaced by another draw that holds it) until the stop rule ends
/// the benchmark or its rounds run out, then analyses them as a run would: the verdict, the
/// rounds run and the forks measured again.
pub(crate) fn run_to_verdict(
    settings: &Settings,
    seed: u64,
    draws: &mut dyn Draws,
) -> (Outcome, usize, usize) {
    let policy = StopPolicy::from_settings(settings);
    let mut record = empty_record();
    let mut again = 0;
    for round in 0..policy.max_rounds() {
        let (base, head) = draws.round(round);
        for (fork, head) in [(base, false), (head, true)] {
            let side = if head { &record.head } else { &record.base };
            let fork =
                if REMEASURE.load(Ordering::Relaxed) && policy.remeasures(&record, side, &fork) {
                    again += 1;
                    ForkRecord {
                        remeasured: Some(Box::new(fork)),
                        ..draws.again(round, head)
                    }
                } else {
                    fork
                };
            let side = if head {
                &mut record.head
            } else {
                &mut record.base
            };
            side.forks.push(fork);
        }
        if let Some(stop) = policy.evaluate(&record, round + 1, seed, &[]) {
            record.stop = Some(stop);
            break;
        }
    }
    let rounds = record.base.forks.len();
    let mut file = SampleFile::new(Default::default());
    file.benchmarks.push(record);
    let report = cargo_perfdiff::orchestrate::run::analyse_samples(&file, settings, None);
    (report.benchmarks[0].verdict, rounds, again)
}

/// The default `decided` settings with `threshold` and `alpha`; few bootstrap resamples, since
/// the bootstrap is information only and does not decide.
pub(crate) fn settings(threshold: f64, alpha: f64) -> Settings {
    Settings {
        max_forks: 10,
        stop: StopRule::Decided,
        threshold,
        alpha,
        resamples: 100,
        seed: Some(7),
        ..Settings::default()
    }
}

/// What `trials` seeded runs of a scenario ended with.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    pub(crate) trials: usize,
    pub(crate) regressed: usize,
    pub(crate) improved: usize,
    pub(crate) unchanged: usize,
    pub(crate) rounds: usize,
    /// Forks measured again ([`StopPolicy::remeasures`]).
    pub(crate) again: usize,
}

impl Tally {
    pub(crate) fn share(&self, count: usize) -> f64 {
        count as f64 / self.trials as f64
    }
    pub(crate) fn false_alarms(&self) -> f64 {
        self.share(self.regressed + self.improved)
    }
    pub(crate) fn mean_rounds(&self) -> f64 {
        self.rounds as f64 / self.trials as f64
    }
    /// Forks measured again per comparison.
    pub(crate) fn mean_again(&self) -> f64 {
        self.again as f64 / self.trials as f64
    }
    /// Counts one run's verdict and rounds.
    pub(crate) fn add(&mut self, verdict: Outcome, rounds: usize) {
        self.rounds += rounds;
        match verdict {
            Outcome::Regressed => self.regressed += 1,
            Outcome::Improved => self.improved += 1,
            Outcome::Unchanged => self.unchanged += 1,
            _ => {}
        }
    }
}

pub(crate) fn run(scenario: &Scenario, settings: &Settings, trials: usize) -> Tally {
    let mut tally = Tally {
        trials,
        ..Tally::default()
    };
    for t in 0..trials as u64 {
        let (verdict, rounds, again) =
            simulate(scenario, settings, 0xD1CE ^ t.wrapping_mul(0x9E37_79B9));
        tally.add(verdict, rounds);
        tally.again += again;
    }
    tally
}

/// Runs 600 seeded A/A comparisons at alpha 5 % and threshold 0 and asserts that at most alpha
/// of them end `regressed` or `improved`.
fn assert_a_a_false_alarms_at_most_alpha(scenario: Scenario) {
    let alpha = 0.05;
    let tally = run(&scenario, &settings(0.0, alpha), 600);
    eprintln!(
        "A/A {scenario:?}: false alarms {:.3}, mean rounds {:.1}",
        tally.false_alarms(),
        tally.mean_rounds()
    );
    assert!(
        tally.false_alarms() <= alpha,
        "A/A false alarm rate {} exceeds alpha {alpha} ({tally:?})",
        tally.false_alarms()
    );
}

#[test]
fn a_a_false_alarms_stay_below_alpha_despite_repeated_looks() {
    assert_a_a_false_alarms_at_most_alpha(Scenario::new(0.05, 0.01));
}

/// Layouts the two sides do not share: their effects do not cancel, and the interval must be
/// honestly wide rather than guess.
#[test]
fn a_a_false_alarms_stay_below_alpha_with_layouts_that_are_not_shared() {
    assert_a_a_false_alarms_at_most_alpha(Scenario {
        shared_layouts: false,
        ..Scenario::new(0.05, 0.01)
    });
}

/// One fork in ten runs 10–100 % slow, as on a shared machine: leaving such forks out (with
/// their rounds' partners) is symmetric between the sides, so it must not raise false alarms.
#[test]
fn a_a_false_alarms_stay_below_alpha_when_forks_are_disturbed() {
    assert_a_a_false_alarms_at_most_alpha(Scenario {
        disturbed_share: 0.1,
        ..Scenario::new(0.05, 0.02)
    });
}

/// Layouts that move a benchmark by 5 % (sd), shared by both sides, 1 % fork noise: at the
/// default settings a +10 % change is always found, +3 % mostly, and an untouched benchmark is
/// never called changed and often `unchanged`.
#[test]
fn shared_layouts_decide_small_changes_and_show_unchanged() {
    let settings = settings(0.02, 0.01);
    let base = Scenario::new(0.05, 0.01);
    let a_a = run(&base, &settings, 200);
    let three = run(&base.with_change(0.03), &settings, 100);
    let ten = run(&base.with_change(0.10), &settings, 50);
    eprintln!(
        "A/A unchanged {:.2} (false {:.3}, rounds {:.1}); +3 % {:.2} ({:.1}); +10 % {:.2} ({:.1})",
        a_a.share(a_a.unchanged),
        a_a.false_alarms(),
        a_a.mean_rounds(),
        three.share(three.regressed),
        three.mean_rounds(),
        ten.share(ten.regressed),
        ten.mean_rounds()
    );
    assert_eq!(a_a.regressed + a_a.improved, 0, "{a_a:?}");
    // With equivalence at its own 5 % (a 90 % interval) 88 % of A/A runs end `unchanged` (53 %
    // when it shared the difference test's 1 %), and +3 % is found as often as before (87 %).
    assert!(a_a.share(a_a.unchanged) >= 0.8, "{a_a:?}");
    assert!(three.share(three.regressed) >= 0.85, "{three:?}");
    assert_eq!(three.improved + three.unchanged, 0, "{three:?}");
    assert_eq!(ten.regressed, ten.trials, "{ten:?}");
    assert!(ten.mean_rounds() <= 5.0, "{ten:?}");
}

/// Two one-sided tests at `equivalence-alpha` (5 %): when the true change is exactly at the
/// threshold (+2 % or −2 %, the edge of "no relevant change"), `unchanged` is a wrong verdict, and
/// it must come at most 5 % of the time however often the rule looked.
#[test]
fn unchanged_at_the_threshold_stays_below_the_equivalence_level() {
    let defaults = settings(0.02, 0.01);
    assert_eq!(defaults.equivalence_alpha, 0.05);
    for change in [0.02, -0.02] {
        let tally = run(
            &Scenario::new(0.05, 0.01).with_change(change),
            &defaults,
            600,
        );
        eprintln!(
            "at {change:+}: unchanged {:.3}",
            tally.share(tally.unchanged)
        );
        assert!(tally.share(tally.unchanged) <= 0.05, "{change}: {tally:?}");
    }
}

/// A quiet benchmark (0.3 % fork noise) is called `unchanged` well before max-forks.
#[test]
fn a_quiet_unchanged_benchmark_is_decided_early() {
    let tally = run(&Scenario::new(0.05, 0.003), &settings(0.02, 0.01), 40);
    assert!(tally.unchanged >= 39, "{tally:?}");
    assert!(tally.mean_rounds() <= 6.0, "{tally:?}");
}

/// A clear change amid one disturbed fork in twenty (the rate recorded on this project's
/// machine, `src/stats/disturbed.rs`) is decided in nine runs of ten (36 of these 40; the rest
/// `inconclusive`: a disturbed round leaves the rounds too spread out, and is left out only
/// beyond a strict limit), and never called wrong.
#[test]
fn a_clear_change_is_decided_despite_disturbed_forks() {
    let scenario = Scenario {
        disturbed_share: 0.05,
        ..Scenario::new(0.05, 0.01).with_change(0.10)
    };
    let tally = run(&scenario, &settings(0.02, 0.01), 40);
    assert!(tally.regressed >= 34, "{tally:?}");
    assert_eq!(tally.improved + tally.unchanged, 0, "{tally:?}");
}

/// The table of `docs/design/statistics.md`: per cell A/A false alarms at threshold 0 and alpha 1 %
/// (10,000 trials), then at the defaults (1,000 trials each) the A/A `unchanged` share, the power at +3 % and +10 % and the mean
/// rounds of each.
#[test]
#[ignore = "prints the full table; run in release with --ignored --nocapture"]
fn print_the_table_of_the_shipped_rule() {
    let cells = [
        (0.01, 0.01, true),
        (0.05, 0.01, true),
        (0.15, 0.01, true),
        (0.05, 0.005, true),
        (0.05, 0.05, true),
        (0.05, 0.01, false),
        (0.15, 0.01, false),
    ];
    let trials = 1000;
    // False alarms are rare: ten times the trials for their column.
    let strict_trials = 10_000;
    println!(
        "| layout sd | fork sd | layouts | A/A false (thr 0) | A/A unchanged | +3 % | +10 % | rounds A/A, +3 %, +10 % |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    for (layout_sd, fork_sd, shared) in cells {
        let scenario = Scenario {
            shared_layouts: shared,
            ..Scenario::new(layout_sd, fork_sd)
        };
        let strict = run(&scenario, &settings(0.0, 0.01), strict_trials);
        let defaults = settings(0.02, 0.01);
        let a_a = run(&scenario, &defaults, trials);
        let three = run(&scenario.with_change(0.03), &defaults, trials);
        let ten = run(&scenario.with_change(0.10), &defaults, trials);
        println!(
            "| {} % | {} % | {} | {:.1} % | {:.0} % | {:.0} % | {:.0} % | {:.1}, {:.1}, {:.1} |",
            layout_sd * 100.0,
            fork_sd * 100.0,
            if shared { "shared" } else { "independent" },
            strict.false_alarms() * 100.0,
            a_a.share(a_a.unchanged) * 100.0,
            three.share(three.regressed) * 100.0,
            ten.share(ten.regressed) * 100.0,
            a_a.mean_rounds(),
            three.mean_rounds(),
            ten.mean_rounds()
        );
    }
}

/// The figures of `docs/design/equivalence-and-futility.md`: at the default settings, per cell
/// of layout and fork noise, the A/A `unchanged` share, the `unchanged` share when the true
/// change is exactly at the threshold (+2 % and −2 %: at most the equivalence level), the power
/// at +3 % and the mean rounds of A/A, +3 % and +10 % runs (against the 10 of `--stop fixed`).
#[test]
#[ignore = "prints the figures of the equivalence and futility design note; --ignored --nocapture"]
fn print_equivalence_and_futility_figures() {
    let trials = 1000;
    println!(
        "| layout sd | fork sd | A/A unchanged | unchanged at +2 %, −2 % | +3 % found | rounds A/A, +3 %, +10 % |"
    );
    println!("| --- | --- | --- | --- | --- | --- |");
    for (layout_sd, fork_sd) in [(0.01, 0.01), (0.05, 0.01), (0.05, 0.005), (0.05, 0.02)] {
        let scenario = Scenario::new(layout_sd, fork_sd);
        let defaults = settings(0.02, 0.01);
        let a_a = run(&scenario, &defaults, trials);
        let up = run(&scenario.with_change(0.02), &defaults, trials);
        let down = run(&scenario.with_change(-0.02), &defaults, trials);
        let three = run(&scenario.with_change(0.03), &defaults, trials);
        let ten = run(&scenario.with_change(0.10), &defaults, trials);
        println!(
            "| {} % | {} % | {:.1} % | {:.1} %, {:.1} % | {:.1} % | {:.1}, {:.1}, {:.1} |",
            layout_sd * 100.0,
            fork_sd * 100.0,
            a_a.share(a_a.unchanged) * 100.0,
            up.share(up.unchanged) * 100.0,
            down.share(down.unchanged) * 100.0,
            three.share(three.regressed) * 100.0,
            a_a.mean_rounds(),
            three.mean_rounds(),
            ten.mean_rounds()
        );
    }
}
