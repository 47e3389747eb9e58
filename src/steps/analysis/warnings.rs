//! What a user should know about one benchmark's result, as a list of causes.
//!
//! Each warning is a value with its figures, not a sentence: a report on many benchmarks groups
//! them by cause (one line for 42 benchmarks given up alike, naming the worst) and still words
//! each one alone in the same place, its [`std::fmt::Display`]. In JSON a warning is that
//! sentence, as it always was; a report read back from JSON keeps the sentence as
//! [`BenchWarning::Text`].

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::model::samples::StopRecord;

use super::Outcome;

/// One thing about a benchmark's result that the row of its verdict cannot say.
#[derive(Debug, Clone, PartialEq)]
pub enum BenchWarning {
    /// Base and head measured in different units, so their ratio means nothing.
    UnitMismatch { base: String, head: String },
    /// A side has no samples to compare.
    NoSamples,
    /// Forks of one side in which no steady state was found.
    Unsteady { side: Side, forks: usize },
    /// The `decided` rule gave the benchmark up after `rounds`: no verdict was in reach within
    /// `max_forks` ([`crate::steps::stop`]). `rounds_needed`: about how many rounds in all would
    /// decide it, as the stop rule estimated it when it gave up.
    GaveUp {
        rounds: usize,
        max_forks: Option<usize>,
        rounds_needed: Option<usize>,
    },
    /// The benchmark ran to `max-forks` without its stop rule being met. `rounds_needed`, for an
    /// `inconclusive` one: about how many rounds in all would decide it at its estimate and
    /// spread.
    Capped {
        rounds: usize,
        rounds_needed: Option<usize>,
    },
    /// The interval alone calls a change that false-discovery control over `tests` benchmarks
    /// does not keep.
    HeldBackByFdr {
        without: Outcome,
        p_value: f64,
        q_value: f64,
        tests: usize,
    },
    /// Fewer than two rounds (or layouts) to pair.
    SingleRound {
        base_forks: usize,
        head_forks: usize,
    },
    /// Instruction counts per iteration that were not exact: samples up to `worst` instructions
    /// off one line.
    InexactInstructions { worst: f64 },
    /// A duet benchmark whose sides measured at the same time for only `overlap` of their windows.
    DuetOverlap { overlap: f64 },
    /// The time and instruction verdicts of one benchmark disagree.
    Disagreement {
        time: Outcome,
        instructions: Outcome,
    },
    /// A `regressed` or `improved` benchmark whose executed code changed in `functions` although
    /// their source (and the source inlined into them) did not: a change elsewhere made the
    /// compiler inline or lay them out differently, and the verdict may be that difference.
    CompiledDifferently { functions: Vec<String> },
    /// The harness printed whole nanoseconds an iteration (`bencher`, an older libtest), and one
    /// nanosecond is `share` of the smallest fork value, `smallest_ns`: at least half the
    /// threshold, so a change of about that size may be the rounding.
    Rounded { smallest_ns: f64, share: f64 },
    /// A warning read back from a JSON report: its words, its cause unknown.
    Text(String),
}

/// A side of the comparison: the schedule's.
pub use crate::steps::schedule::Side;

impl BenchWarning {
    /// The warnings of how a benchmark stopped: given up by futility, or at the cap. `max_forks`
    /// is the run's, when its settings say (older files and replays may not).
    pub fn of_stop(stop: &StopRecord, max_forks: Option<usize>) -> Vec<BenchWarning> {
        let mut warnings = Vec::new();
        if stop.details.get("futile").is_some_and(|f| *f > 0.0) {
            // A figure no larger than the rounds allowed comes from an older formula (it aimed
            // at a change of the threshold's size whatever the estimate): not shown.
            let allowed = max_forks.unwrap_or(stop.rounds).max(stop.rounds);
            let rounds_needed = stop
                .details
                .get("rounds_needed")
                .filter(|n| n.is_finite() && **n > allowed as f64)
                .map(|n| n.round() as usize);
            warnings.push(BenchWarning::GaveUp {
                rounds: stop.rounds,
                max_forks,
                rounds_needed,
            });
        }
        if stop.capped {
            warnings.push(BenchWarning::Capped {
                rounds: stop.rounds,
                rounds_needed: None,
            });
        }
        warnings
    }
}

impl std::fmt::Display for BenchWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BenchWarning::UnitMismatch { base, head } => write!(
                f,
                "base measured in {base} and head in {head}: their ratio compares different \
                 quantities"
            ),
            BenchWarning::NoSamples => f.write_str("no samples on one side"),
            BenchWarning::Unsteady { side, forks } => write!(
                f,
                "{}: {forks} fork(s) never reached a steady state",
                side.as_str()
            ),
            BenchWarning::GaveUp {
                rounds,
                max_forks,
                rounds_needed,
            } => gave_up(f, *rounds, *max_forks, *rounds_needed),
            BenchWarning::Capped {
                rounds,
                rounds_needed,
            } => {
                write!(
                    f,
                    "stopped at max-forks ({rounds} rounds) before the stop rule was met"
                )?;
                match rounds_needed {
                    Some(n) => write!(
                        f,
                        "; at this noise a verdict would take about {n} rounds in all"
                    ),
                    None => Ok(()),
                }
            }
            BenchWarning::HeldBackByFdr {
                without,
                p_value,
                q_value,
                tests,
            } => write!(
                f,
                "its interval alone says {}, but not after false-discovery control over {tests} \
                 benchmarks (p = {}, q = {})",
                without.as_str(),
                short_p(*p_value),
                short_p(*q_value),
            ),
            BenchWarning::SingleRound {
                base_forks,
                head_forks,
            } => write!(
                f,
                "{base_forks} fork(s) of base and {head_forks} of head give fewer than two rounds \
                 (or code layouts) to pair: one round cannot tell a change from the difference \
                 between two processes, at least two are needed (raise --forks or --max-forks)"
            ),
            BenchWarning::InexactInstructions { worst } => write!(
                f,
                "instructions per iteration are not exact: samples lie up to {worst:.0} \
                 instructions off one line, so the work per iteration depends on time, state or \
                 chance"
            ),
            BenchWarning::DuetOverlap { overlap } => write!(
                f,
                "duet: base and head measured at the same time for only {:.0} % of their \
                 measurement windows on average (very different iteration times, or a disturbed \
                 warm-up); pairing cancels less noise",
                overlap * 100.0
            ),
            BenchWarning::Disagreement { time, instructions } => {
                disagreement(f, *time, *instructions)
            }
            BenchWarning::CompiledDifferently { functions } => write!(
                f,
                "its code changed where its source did not: {} compiled differently from the \
                 same source (the compiler inlined or laid it out differently because of a change \
                 elsewhere), so the verdict may be that difference and not the change's",
                short_list(functions)
            ),
            BenchWarning::Rounded { smallest_ns, share } => write!(
                f,
                "its harness printed whole nanoseconds an iteration (the smallest {smallest_ns:.0} \
                 ns): one nanosecond is {:.1} % of it, so a change of about that size may be the \
                 rounding and not the code's",
                share * 100.0
            ),
            BenchWarning::Text(text) => f.write_str(text),
        }
    }
}

/// At most three names of `names`, and how many more.
pub fn short_list(names: &[String]) -> String {
    let mut text = names.iter().take(3).cloned().collect::<Vec<_>>().join(", ");
    if names.len() > 3 {
        text.push_str(&format!(" (+{} more)", names.len() - 3));
    }
    text
}

/// The words of [`BenchWarning::GaveUp`]: after how many rounds, how many a verdict would take
/// in all, and why it stopped before them.
fn gave_up(
    f: &mut std::fmt::Formatter<'_>,
    rounds: usize,
    max_forks: Option<usize>,
    rounds_needed: Option<usize>,
) -> std::fmt::Result {
    let allowed = match max_forks {
        Some(max) => format!("--max-forks ({max})"),
        None => "--max-forks".to_string(),
    };
    write!(f, "stopped early, after {rounds} rounds: ")?;
    match rounds_needed {
        Some(n) => write!(
            f,
            "at this noise a verdict would take about {n} rounds in all, more than {allowed} \
             allows, so the stop rule gave it up"
        ),
        None => write!(
            f,
            "at this noise no verdict was in reach within {allowed} rounds, so the stop rule \
             gave it up"
        ),
    }
}

/// The words of [`BenchWarning::Disagreement`].
fn disagreement(
    f: &mut std::fmt::Formatter<'_>,
    time: Outcome,
    instructions: Outcome,
) -> std::fmt::Result {
    match (time, instructions) {
        (t, Outcome::Unchanged) => write!(
            f,
            "time {} but instructions unchanged: not more or less work, but caches, branch \
             prediction, code alignment, I/O or waiting (docs/instructions.md)",
            t.as_str()
        ),
        (Outcome::Unchanged, i) => write!(
            f,
            "instructions {} but time unchanged: the processor hides this change of the work \
             here; it may show on other machines",
            i.as_str()
        ),
        (t, i) => write!(
            f,
            "time {} but instructions {}: the work and its speed moved in opposite directions",
            t.as_str(),
            i.as_str()
        ),
    }
}

/// A p-value in a few characters: `0.042`, `3.1e-5`.
fn short_p(p: f64) -> String {
    if p >= 0.001 || p == 0.0 {
        format!("{p:.3}")
    } else {
        format!("{p:.1e}")
    }
}

impl Serialize for BenchWarning {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for BenchWarning {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(BenchWarning::Text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stop(rounds: usize, futile: bool, capped: bool, needed: Option<f64>) -> StopRecord {
        let mut details = std::collections::BTreeMap::new();
        details.insert("futile".to_string(), f64::from(u8::from(futile)));
        if let Some(n) = needed {
            details.insert("rounds_needed".to_string(), n);
        }
        StopRecord {
            rule: "decided".to_string(),
            rounds,
            base_stable: false,
            head_stable: false,
            capped,
            checkpoint_ms: 0.0,
            details,
        }
    }

    fn words(stop: &StopRecord, max_forks: Option<usize>) -> Vec<String> {
        BenchWarning::of_stop(stop, max_forks)
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn a_benchmark_given_up_says_the_rounds_it_would_need_in_all_and_why_it_stopped_before() {
        assert_eq!(
            words(&stop(5, true, false, Some(53.0)), Some(10)),
            [
                "stopped early, after 5 rounds: at this noise a verdict would take about 53 rounds \
              in all, more than --max-forks (10) allows, so the stop rule gave it up"
            ]
        );
        // A run whose settings are not recorded names the option without its value.
        assert_eq!(
            words(&stop(3, true, false, Some(12.0)), None),
            [
                "stopped early, after 3 rounds: at this noise a verdict would take about 12 rounds \
              in all, more than --max-forks allows, so the stop rule gave it up"
            ]
        );
    }

    #[test]
    fn a_figure_within_the_rounds_allowed_is_not_shown() {
        // An older stop rule recorded, after 5 of 10 rounds, "about 5 rounds": whatever it was,
        // it was not the rounds a verdict needs, since ten could not reach one.
        let expected = [
            "stopped early, after 5 rounds: at this noise no verdict was in reach \
                         within --max-forks (10) rounds, so the stop rule gave it up",
        ];
        assert_eq!(words(&stop(5, true, false, Some(5.0)), Some(10)), expected);
        assert_eq!(words(&stop(5, true, false, Some(10.0)), Some(10)), expected);
        assert_eq!(words(&stop(5, true, false, None), Some(10)), expected);
        // Unknown max-forks: at least more than the rounds run.
        assert_eq!(
            words(&stop(5, true, false, Some(4.0)), None),
            [
                "stopped early, after 5 rounds: at this noise no verdict was in reach within \
              --max-forks rounds, so the stop rule gave it up"
            ]
        );
    }

    #[test]
    fn a_benchmark_at_the_cap_says_so_and_a_finished_one_nothing() {
        assert_eq!(
            words(&stop(10, false, true, None), Some(10)),
            ["stopped at max-forks (10 rounds) before the stop rule was met"]
        );
        let needing = BenchWarning::Capped {
            rounds: 10,
            rounds_needed: Some(14),
        };
        assert_eq!(
            needing.to_string(),
            "stopped at max-forks (10 rounds) before the stop rule was met; at this noise a \
             verdict would take about 14 rounds in all"
        );
        assert!(words(&stop(5, false, false, Some(30.0)), Some(10)).is_empty());
    }

    #[test]
    fn a_warning_is_its_words_in_json_and_comes_back_as_them() {
        let warning = BenchWarning::Unsteady {
            side: Side::Head,
            forks: 2,
        };
        let json = serde_json::to_string(&warning).unwrap();
        assert_eq!(json, "\"head: 2 fork(s) never reached a steady state\"");
        let back: BenchWarning = serde_json::from_str(&json).unwrap();
        assert_eq!(back.to_string(), warning.to_string());
    }
}
