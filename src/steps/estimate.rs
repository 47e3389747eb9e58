//! How long a run will take, said before it measures, and how long is left while it does.
//!
//! A first `cargo perfdiff` in a user's repository may measure hundreds of benchmarks, and
//! minutes of measuring that start without a word look like a hang. So before the first fork the
//! run states how many benchmarks and forks it expects and what they would take ([`Plan`]), and
//! for a large suite how to measure less. The forks are a range, since the stop rule may stop a
//! benchmark from `min-forks` rounds on and always stops it at `max-forks`; the time is an
//! estimate from the settings alone, since nothing has been measured yet. Once forks have run,
//! the time left comes from them instead ([`time_left`]): their mean wall time in this run,
//! which includes whatever the settings do not say (slow iterations, set-up code, a busy host).
//! One thing is known before any fork: a benchmark traced natively (valgrind too slow for its
//! set-up) was timed outside its timed routine (before its first entry, after its last return),
//! and every fork runs that again (image-png's `decoder` generates its inputs for some 14 s a fork, 95 % of its wall
//! time, where the settings say 700 ms); the first estimate adds it ([`Planned::set_up`]).
//!
//! Instruction forks ([`Counting`]) are planned apart: they run under valgrind with settings of
//! their own, not the run's warm-up and measurement, one per side and round, and a round's run
//! on every usable CPU at once, so their time is neither a timed fork's nor added one by one.

use std::time::Duration;

use crate::model::samples::Mode;
use crate::steps::stop::{StopPolicy, StopSettings};

/// Time a fork takes beyond its warm-up and measurement: starting the executable, criterion's
/// set-up and the report back. The demo's forks took 0.64 s at the default 0.1 s warm-up and 0.5
/// s measurement (40 ms more), itertools' 0.93 s (its groups' set-up code: 197 ms a fork at the
/// median, `outside_ms`); 100 ms is between the two.
pub const FORK_OVERHEAD: Duration = Duration::from_millis(100);

/// Wall time of one instruction fork of a criterion benchmark under valgrind with the counting
/// settings (0.1 s warm-up, 0.1 s measurement): 12.4 s for the demo's 16 forks on one CPU,
/// 0.78 s each (docs/evidence.md, "Instruction counts: what they cost"). Benchmark code that sets
/// its own times takes longer (base64's 3.5 s: 4.7 s a fork); the progress line's time left
/// comes from the forks measured once some have run.
pub const COUNT_FORK: Duration = Duration::from_millis(800);

/// Wall time of one fork of a benchmark whose harness times itself (libtest `#[bench]`,
/// `bencher`), whatever the settings: their runner takes 50 samples of about 1 ms and 50 of 5 ms,
/// doubling both until the samples' median absolute deviation is under 1 % (after 100 ms) or 3 s
/// have passed, so a fork takes 0.3, 0.9, 2.1 or 4.5 s. On the project's 2-core machine, whose
/// 1 ms samples vary by more than 1 %, the demo's `bencher` benchmarks took 4.5 s every time
/// (docs/harnesses.md); the estimate takes that, with start-up.
pub const SELF_TIMED_FORK: Duration = Duration::from_millis(4600);

/// A run whose forks could take this long at `max-forks` is large: it gets a hint on measuring
/// less. The demo's 4 measured benchmarks take under a minute at most, base64's 24 about 5.6
/// minutes; winnow's 72 (17 minutes) and anything larger get the hint.
pub const LARGE_RUN: Duration = Duration::from_secs(10 * 60);

/// What the estimate takes of a run's settings: the stop rule's limits and a fork's length.
#[derive(Debug, Clone, PartialEq)]
pub struct EstimateSettings {
    /// The stop rule, whose limits bound the forks.
    pub stop: StopSettings,
    /// Warm-up time asked for per fork, in milliseconds.
    pub warm_up_ms: u64,
    /// Measurement time per fork, in milliseconds.
    pub measurement_ms: u64,
    /// Whether the run times forks (the time metric).
    pub time: bool,
    /// The instruction forks, when the run counts instructions.
    pub counting: Option<Counting>,
}

/// How a run counts instructions, for the estimate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counting {
    /// Instruction forks run at once (the usable CPUs).
    pub workers: usize,
}

/// The instruction forks a run expects and their time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CountPlan {
    pub fewest_forks: u64,
    pub most_forks: u64,
    /// Instruction forks run at once.
    pub workers: usize,
}

impl CountPlan {
    /// The wall time of `forks` instruction forks, `workers` at a time.
    fn time(&self, forks: u64) -> Duration {
        let waves = forks.div_ceil(self.workers.max(1) as u64);
        COUNT_FORK.saturating_mul(waves.min(u64::from(u32::MAX)) as u32)
    }

    /// `8 to 40 instruction forks under valgrind, about 3.2 s to 16.0 s (about 800 ms a fork, 2
    /// at once)`.
    fn describe(&self) -> String {
        let (fewest, most) = (self.time(self.fewest_forks), self.time(self.most_forks));
        let forks = if self.fewest_forks == self.most_forks {
            format!(
                "{} instruction forks under valgrind, about {}",
                self.most_forks,
                wall(most)
            )
        } else {
            format!(
                "{} to {} instruction forks under valgrind, about {} to {}",
                self.fewest_forks,
                self.most_forks,
                wall(fewest),
                wall(most)
            )
        };
        format!(
            "{forks} (about {} a fork, {} at once)",
            wall(COUNT_FORK),
            self.workers.max(1)
        )
    }
}

/// What the estimate needs of one benchmark to be measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Planned {
    /// Rounds it has completed (zero unless the run is resumed).
    pub completed_rounds: usize,
    /// Whether its harness times itself ([`SELF_TIMED_FORK`]).
    pub times_itself: bool,
    /// How long a fork of it runs outside its timed routine (its harness's start-up, its set-up,
    /// the set-up of the benchmarks criterion runs after it), when its trace timed that (a native
    /// trace); what exceeds [`FORK_OVERHEAD`] is added to each of its timed forks.
    pub set_up: Option<Duration>,
}

/// The forks a run expects and the time they should take, before any is measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    /// Benchmarks to measure.
    pub benchmarks: usize,
    /// Forks if the stop rule stops every benchmark at its first chance.
    pub fewest_forks: u64,
    /// Forks if every benchmark runs to `max-forks`.
    pub most_forks: u64,
    /// Wall time one fork is expected to add to the run, from the settings.
    pub per_fork: Duration,
    /// Of the timed forks, those of benchmarks whose harness times itself.
    pub self_timed: Option<SelfTimedPlan>,
    /// The instruction forks, when the run counts instructions.
    pub counted: Option<CountPlan>,
    /// What the known set-up of some benchmarks adds to their timed forks.
    pub set_up: Option<SetUpPlan>,
}

/// The time the set-up of benchmarks whose trace timed it ([`Planned::set_up`]) adds to their
/// timed forks, beyond the settings' [`FORK_OVERHEAD`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SetUpPlan {
    /// Benchmarks whose set-up is longer than [`FORK_OVERHEAD`].
    pub benchmarks: usize,
    /// Added over the fewest forks, and over the most.
    pub fewest: Duration,
    pub most: Duration,
    /// The most it adds to one fork.
    pub longest: Duration,
}

impl SetUpPlan {
    /// The plan of `benchmarks`' set-up over `fewest` and `most` rounds in `mode`; `None` when
    /// none has a set-up longer than [`FORK_OVERHEAD`].
    fn new(benchmarks: &[Planned], (fewest, most): (usize, usize), mode: Mode) -> Option<Self> {
        let extra = |b: &Planned| {
            let set_up = b.set_up?.saturating_sub(FORK_OVERHEAD);
            (!set_up.is_zero()).then(|| in_mode(set_up, mode))
        };
        let over = |rounds: usize| {
            let forks = |b: &Planned| 2 * rounds.saturating_sub(b.completed_rounds) as u32;
            let each = benchmarks
                .iter()
                .filter_map(|b| Some(extra(b)?.saturating_mul(forks(b))));
            each.fold(Duration::ZERO, Duration::saturating_add)
        };
        Some(SetUpPlan {
            benchmarks: benchmarks.iter().filter_map(extra).count(),
            fewest: over(fewest),
            most: over(most),
            longest: benchmarks.iter().filter_map(extra).max()?,
        })
    }
}

/// The timed forks of benchmarks whose harness times itself (libtest, `bencher`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SelfTimedPlan {
    pub benchmarks: usize,
    pub fewest_forks: u64,
    pub most_forks: u64,
    /// Wall time one of their forks adds to the run: [`SELF_TIMED_FORK`], half in duet mode.
    pub per_fork: Duration,
}

impl Plan {
    /// The plan for `benchmarks`, each from the rounds it has completed.
    pub fn new(settings: &EstimateSettings, benchmarks: &[Planned]) -> Plan {
        let policy = StopPolicy::from_settings(settings.stop.clone());
        let forks_left = |rounds: usize, of: &dyn Fn(&Planned) -> bool| -> u64 {
            benchmarks
                .iter()
                .filter(|b| of(b))
                .map(|b| 2 * rounds.saturating_sub(b.completed_rounds) as u64)
                .sum()
        };
        let all = |_: &Planned| true;
        let self_timed = |b: &Planned| b.times_itself;
        let timed = |rounds: usize, of: &dyn Fn(&Planned) -> bool| {
            if settings.time {
                forks_left(rounds, of)
            } else {
                0
            }
        };
        let timing_itself = benchmarks.iter().filter(|b| b.times_itself).count();
        Plan {
            benchmarks: benchmarks.len(),
            fewest_forks: timed(policy.min_forks, &all),
            most_forks: timed(policy.max_rounds(), &all),
            per_fork: per_fork(settings),
            self_timed: (settings.time && timing_itself > 0).then(|| SelfTimedPlan {
                benchmarks: timing_itself,
                fewest_forks: timed(policy.min_forks, &self_timed),
                most_forks: timed(policy.max_rounds(), &self_timed),
                per_fork: in_mode(SELF_TIMED_FORK, settings.stop.mode),
            }),
            // Instruction records stop by the same rule as timed ones (identical counts decide
            // at the first look).
            counted: settings.counting.map(|counting| CountPlan {
                fewest_forks: forks_left(policy.min_forks, &all),
                most_forks: forks_left(policy.max_rounds(), &all),
                workers: counting.workers,
            }),
            set_up: settings
                .time
                .then(|| {
                    let rounds = (policy.min_forks, policy.max_rounds());
                    SetUpPlan::new(benchmarks, rounds, settings.stop.mode)
                })
                .flatten(),
        }
    }

    /// What the known set-up adds to the fewest forks, and to the most.
    fn set_up_time(&self) -> (Duration, Duration) {
        self.set_up
            .map_or((Duration::ZERO, Duration::ZERO), |s| (s.fewest, s.most))
    }

    /// Time of the fewest and of the most forks, instruction forks included.
    pub fn time_range(&self) -> (Duration, Duration) {
        let counted = |forks: fn(&CountPlan) -> u64| {
            self.counted.map_or(Duration::ZERO, |c| c.time(forks(&c)))
        };
        let (fewest, most) = self.set_up_time();
        (
            self.timed(self.fewest_forks, |s| s.fewest_forks)
                + fewest
                + counted(|c| c.fewest_forks),
            self.timed(self.most_forks, |s| s.most_forks) + most + counted(|c| c.most_forks),
        )
    }

    /// The mean wall time of a timed fork, what the progress line takes before any has run.
    pub fn mean_fork(&self) -> Duration {
        match self.most_forks {
            0 => self.per_fork,
            forks => {
                (self.timed(forks, |s| s.most_forks) + self.set_up_time().1).div_f64(forks as f64)
            }
        }
    }

    /// The wall time of `forks` timed forks, of which `self_timed(plan)` are self-timed.
    fn timed(&self, forks: u64, self_timed: fn(&SelfTimedPlan) -> u64) -> Duration {
        let times = |per_fork: Duration, forks: u64| {
            per_fork.saturating_mul(forks.min(u64::from(u32::MAX)) as u32)
        };
        let own = self.self_timed.map_or(0, |s| self_timed(&s));
        times(self.per_fork, forks.saturating_sub(own))
            + self
                .self_timed
                .map_or(Duration::ZERO, |s| times(s.per_fork, own))
    }

    /// Whether the run is large enough to suggest measuring less ([`LARGE_RUN`]).
    pub fn is_large(&self) -> bool {
        self.time_range().1 >= LARGE_RUN
    }

    /// `16 to 80 forks, about 11.2 s to 56.0 s (700 ms a fork from the settings)`.
    pub fn describe(&self) -> String {
        match (self.most_forks, self.counted) {
            (_, None) => self.describe_timed(),
            (0, Some(counted)) => counted.describe(),
            (_, Some(counted)) => format!("{}, and {}", self.describe_timed(), counted.describe()),
        }
    }

    /// The timed forks' part of [`Plan::describe`].
    fn describe_timed(&self) -> String {
        let (set_up_fewest, set_up_most) = self.set_up_time();
        let fewest = self.timed(self.fewest_forks, |s| s.fewest_forks) + set_up_fewest;
        let most = self.timed(self.most_forks, |s| s.most_forks) + set_up_most;
        let forks = if self.fewest_forks == self.most_forks {
            format!("{} forks, about {}", self.most_forks, wall(most))
        } else {
            format!(
                "{} to {} forks, about {} to {}",
                self.fewest_forks,
                self.most_forks,
                wall(fewest),
                wall(most)
            )
        };
        let mut per_fork = format!("{} a fork from the settings", wall(self.per_fork));
        if let Some(own) = self.self_timed {
            per_fork.push_str(&format!(
                "; {} for the {} libtest or bencher benchmark(s), which time themselves",
                wall(own.per_fork),
                own.benchmarks
            ));
        }
        if let Some(set_up) = self.set_up {
            per_fork.push_str(&format!(
                "; up to {} more for the {} benchmark(s) whose set-up their trace timed",
                wall(set_up.longest),
                set_up.benchmarks
            ));
        }
        format!("{forks} ({per_fork})")
    }
}

/// The advice for a large run: what measures part of the suite, and how to split it.
pub fn large_run_hint() -> String {
    "a large suite: to measure part of it, give benchmark filters (`cargo perfdiff A B -- \
     REGEX`), `--bench NAME` or `-p PACKAGE` (`--list` shows what a run would measure); to split \
     it over machines, run each with `--shard K/N` and merge the samples with `cargo perfdiff \
     report`. Ctrl-C keeps what was measured (`--resume` continues)"
        .to_string()
}

/// Wall time one fork adds to the run at these settings: its warm-up, measurement and
/// [`FORK_OVERHEAD`]; half that in duet mode, where base and head run at the same time.
pub fn per_fork(settings: &EstimateSettings) -> Duration {
    let fork = Duration::from_millis(settings.warm_up_ms + settings.measurement_ms) + FORK_OVERHEAD;
    in_mode(fork, settings.stop.mode)
}

/// The wall time a fork of length `fork` adds in `mode`: half in duet, where two run at once.
fn in_mode(fork: Duration, mode: Mode) -> Duration {
    match mode {
        Mode::Interleaved => fork,
        Mode::Duet => fork / 2,
    }
}

/// Time left for `remaining` forks: at the mean wall time of the `measured` forks so far
/// (`elapsed` since the first started), or at `prior` a fork before any was measured.
pub fn time_left(elapsed: Duration, measured: u64, remaining: u64, prior: Duration) -> Duration {
    let per_fork = match measured {
        0 => prior,
        n => elapsed.div_f64(n as f64),
    };
    per_fork.mul_f64(remaining as f64)
}

/// A duration for people, as the reports write it: `850 ms`, `38.6 s`, `3 min 50 s`.
pub fn wall(duration: Duration) -> String {
    crate::util::terminal::wall_time(duration.as_millis().min(u128::from(u64::MAX)) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::policy::StopRule;

    /// The settings of a default run.
    fn defaults() -> EstimateSettings {
        EstimateSettings {
            stop: StopSettings::defaults_for_tests(),
            warm_up_ms: 100,
            measurement_ms: 500,
            time: true,
            counting: None,
        }
    }

    /// `n` benchmarks of a harness that takes the settings, none measured yet.
    fn fresh(n: usize) -> Vec<Planned> {
        vec![Planned::default(); n]
    }

    fn resumed(rounds: &[usize]) -> Vec<Planned> {
        rounds
            .iter()
            .map(|&completed_rounds| Planned {
                completed_rounds,
                ..Planned::default()
            })
            .collect()
    }

    #[test]
    fn forks_of_harnesses_that_time_themselves_are_planned_at_their_own_pace() {
        // The demo's 4 benchmarks beside 2 of `bencher`: 24 to 120 forks, of which 8 to 40
        // take 4.6 s whatever the settings.
        let own = Planned {
            times_itself: true,
            ..Planned::default()
        };
        let benchmarks = [fresh(4), vec![own; 2]].concat();
        let plan = Plan::new(&defaults(), &benchmarks);
        assert_eq!((plan.fewest_forks, plan.most_forks), (24, 120));
        let self_timed = plan.self_timed.unwrap();
        assert_eq!((self_timed.fewest_forks, self_timed.most_forks), (8, 40));
        let fork = Duration::from_millis(700);
        assert_eq!(
            plan.time_range(),
            (
                fork * 16 + SELF_TIMED_FORK * 8,
                fork * 80 + SELF_TIMED_FORK * 40
            )
        );
        assert_eq!(
            plan.describe(),
            "24 to 120 forks, about 48.0 s to 4 min 00 s (700 ms a fork from the settings; \
             4.6 s for the 2 libtest or bencher benchmark(s), which time themselves)"
        );
        assert_eq!(plan.mean_fork(), plan.time_range().1 / 120);
        // In duet mode two run at once; without timed forks there is nothing of theirs to plan.
        let mut duet = defaults();
        duet.stop.mode = Mode::Duet;
        let plan = Plan::new(&duet, &benchmarks);
        assert_eq!(plan.self_timed.unwrap().per_fork, SELF_TIMED_FORK / 2);
        let counting = EstimateSettings {
            time: false,
            counting: Some(Counting { workers: 2 }),
            ..defaults()
        };
        assert_eq!(Plan::new(&counting, &benchmarks).self_timed, None);
    }

    #[test]
    fn instruction_forks_are_planned_at_valgrind_s_pace_on_every_cpu() {
        // `--metric instructions` on the demo's 4 benchmarks and 2 CPUs: 16 forks when two
        // rounds decide (identical counts), 80 at most; two at once.
        let settings = EstimateSettings {
            time: false,
            counting: Some(Counting { workers: 2 }),
            ..defaults()
        };
        let plan = Plan::new(&settings, &fresh(4));
        assert_eq!((plan.fewest_forks, plan.most_forks), (0, 0));
        let counted = plan.counted.unwrap();
        assert_eq!((counted.fewest_forks, counted.most_forks), (16, 80));
        assert_eq!(plan.time_range(), (COUNT_FORK * 8, COUNT_FORK * 40));
        assert_eq!(
            plan.describe(),
            "16 to 80 instruction forks under valgrind, about 6.4 s to 32.0 s (about 800 ms a \
             fork, 2 at once)"
        );
        // On one CPU the same forks take twice as long.
        let one = Plan::new(
            &EstimateSettings {
                counting: Some(Counting { workers: 1 }),
                ..settings.clone()
            },
            &fresh(4),
        );
        assert_eq!(one.time_range().1, COUNT_FORK * 80);
        // With time as well, both kinds of fork are said and added up.
        let both = Plan::new(
            &EstimateSettings {
                time: true,
                ..settings
            },
            &fresh(4),
        );
        assert_eq!(
            both.describe(),
            "16 to 80 forks, about 11.2 s to 56.0 s (700 ms a fork from the settings), and 16 to \
             80 instruction forks under valgrind, about 6.4 s to 32.0 s (about 800 ms a fork, 2 \
             at once)"
        );
        assert_eq!(
            both.time_range().1,
            Duration::from_millis(700) * 80 + COUNT_FORK * 40
        );
    }

    #[test]
    fn the_demo_plans_its_forks_and_time_from_the_settings() {
        let plan = Plan::new(&defaults(), &fresh(4));
        assert_eq!(plan.per_fork, Duration::from_millis(700));
        assert_eq!((plan.fewest_forks, plan.most_forks), (16, 80));
        assert_eq!(
            plan.describe(),
            "16 to 80 forks, about 11.2 s to 56.0 s (700 ms a fork from the settings)"
        );
        assert!(!plan.is_large());
    }

    #[test]
    fn a_fixed_rule_expects_one_count_and_duet_runs_two_forks_at_once() {
        let mut settings = defaults();
        settings.stop.rule = StopRule::Fixed;
        settings.stop.forks = 3;
        settings.stop.mode = Mode::Duet;
        let plan = Plan::new(&settings, &fresh(2));
        assert_eq!((plan.fewest_forks, plan.most_forks), (12, 12));
        assert_eq!(plan.per_fork, Duration::from_millis(350));
        assert!(plan.describe().starts_with("12 forks, about 4.2 s ("));
    }

    #[test]
    fn a_set_up_the_trace_timed_is_added_to_each_fork_of_its_benchmark() {
        // image-png's `decoder`: 14 benchmarks whose forks generate their inputs for 14 s
        // outside the timed routine, beside the demo's 4 without a known set-up.
        let png = Planned {
            set_up: Some(Duration::from_secs(14)),
            ..Planned::default()
        };
        let quick = Planned {
            set_up: Some(Duration::from_millis(40)),
            ..Planned::default()
        };
        let benchmarks = [fresh(4), vec![png; 14], vec![quick]].concat();
        let plan = Plan::new(&defaults(), &benchmarks);
        let set_up = plan.set_up.unwrap();
        // Beyond the 100 ms every fork is given; a set-up shorter than that adds nothing.
        let extra = Duration::from_millis(13_900);
        assert_eq!(set_up.benchmarks, 14);
        assert_eq!(set_up.longest, extra);
        assert_eq!(
            (set_up.fewest, set_up.most),
            (extra * 14 * 4, extra * 14 * 20)
        );
        let fork = Duration::from_millis(700);
        assert_eq!(
            plan.time_range(),
            (fork * 76 + extra * 56, fork * 380 + extra * 280)
        );
        assert_eq!(plan.mean_fork(), plan.time_range().1 / 380);
        assert!(plan.is_large());
        assert_eq!(
            plan.describe(),
            "76 to 380 forks, about 13 min 52 s to 1 h 09 min (700 ms a fork from the \
             settings; up to 13.9 s more for the 14 benchmark(s) whose set-up their trace timed)"
        );
        // A resumed benchmark adds only its rounds left; duet mode halves it; without the time
        // metric there are no timed forks to add it to.
        let resumed = Planned {
            completed_rounds: 10,
            ..png
        };
        assert_eq!(
            Plan::new(&defaults(), &[png, resumed]).set_up.unwrap().most,
            extra * 20
        );
        let mut duet = defaults();
        duet.stop.mode = Mode::Duet;
        assert_eq!(Plan::new(&duet, &[png]).set_up.unwrap().longest, extra / 2);
        let counting = EstimateSettings {
            time: false,
            counting: Some(Counting { workers: 2 }),
            ..defaults()
        };
        assert_eq!(Plan::new(&counting, &[png]).set_up, None);
        assert_eq!(Plan::new(&defaults(), &fresh(4)).set_up, None);
    }

    #[test]
    fn a_resumed_run_plans_only_the_rounds_left() {
        let plan = Plan::new(&defaults(), &resumed(&[10, 4, 0]));
        assert_eq!(plan.fewest_forks, 4);
        assert_eq!(plan.most_forks, 12 + 20);
    }

    #[test]
    fn a_suite_that_could_take_ten_minutes_is_large() {
        // 72 benchmarks (winnow): 1,440 forks at most, 16.8 minutes.
        let winnow = Plan::new(&defaults(), &fresh(72));
        assert!(winnow.is_large(), "{}", winnow.describe());
        // 24 (base64): 5.6 minutes.
        assert!(!Plan::new(&defaults(), &fresh(24)).is_large());
    }

    #[test]
    fn time_left_comes_from_the_forks_measured() {
        let prior = Duration::from_millis(700);
        assert_eq!(
            time_left(Duration::ZERO, 0, 10, prior),
            Duration::from_secs(7)
        );
        // Ten forks in 20 s: 2 s a fork, whatever the settings said.
        assert_eq!(
            time_left(Duration::from_secs(20), 10, 30, prior),
            Duration::from_secs(60)
        );
        assert_eq!(
            time_left(Duration::from_secs(20), 10, 0, prior),
            Duration::ZERO
        );
    }
}
