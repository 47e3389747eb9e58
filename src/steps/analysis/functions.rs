//! The functions behind a change, and what instruction counts add to the verdicts of time.
//!
//! Why in the analysis: the profiles are data the samples file already holds (each side's
//! instructions by function, [`crate::model::samples::SideRecord::profile`]); which records get
//! a list, and which note a disagreement between time and instructions deserves, follow from the
//! verdicts alone.

use super::{BenchWarning, BenchmarkResult, Outcome};
use crate::model::profile::{self, FunctionChange, counted_id, instructions_id};
use crate::model::samples::{BenchmarkRecord, SampleFile};

/// The most functions a record lists (the report's table shows the first few of them).
pub const MAX_FUNCTIONS: usize = 20;

/// A function is listed when its count per iteration changed by at least this share of the
/// benchmark's instructions per iteration (and at least [`MIN_CHANGE_INSTRUCTIONS`], and
/// [`MIN_SHARE_OF_THE_CHANGE`]).
pub const MIN_CHANGE_SHARE: f64 = 1e-4;

/// A function is listed when its count per iteration changed by at least this share of the
/// benchmark's own change: a function whose few instructions only moved (an identical function
/// merged with another on one side, named `steady` in base and `mix` in head) explains nothing
/// of a 10 % change.
pub const MIN_SHARE_OF_THE_CHANGE: f64 = 0.01;

/// The smallest change per iteration a listed function has, in instructions.
pub const MIN_CHANGE_INSTRUCTIONS: f64 = 0.5;

/// The benchmark or command a record is about: its id without ` (instructions)` or
/// ` (peak memory)`.
pub fn subject(id: &str) -> &str {
    counted_id(id)
        .or_else(|| id.strip_suffix(" (peak memory)"))
        .unwrap_or(id)
}

/// Fills `functions` of every `regressed` or `improved` result from the profiles of its record,
/// or those of the instruction record or the time record of the same benchmark.
pub fn attach(results: &mut [BenchmarkResult], samples: &SampleFile) {
    for result in results.iter_mut() {
        if matches!(result.verdict, Outcome::Regressed | Outcome::Improved) {
            result.functions = changes_of(samples, &result.id);
            // `--explain` may have added to the selection after the analysis read it.
            let selection = samples
                .benchmarks
                .iter()
                .find(|b| b.id == result.id)
                .and_then(|b| b.selection.clone());
            if selection.is_some() {
                result.selection = selection;
            }
        }
    }
    note_compiled_differently(results);
}

/// The functions whose instructions per iteration changed most for record `id`, from the first
/// record of its benchmark with profiles on both sides: its own, the instruction record, the
/// time record.
pub fn changes_of(samples: &SampleFile, id: &str) -> Vec<FunctionChange> {
    let subject = subject(id);
    let candidates = [
        id.to_string(),
        instructions_id(subject),
        subject.to_string(),
    ];
    let profiled = candidates.iter().find_map(|candidate| {
        let record = samples.benchmarks.iter().find(|b| &b.id == candidate)?;
        Some((record.base.profile.as_ref()?, record.head.profile.as_ref()?))
    });
    let Some((base, head)) = profiled else {
        return Vec::new();
    };
    let min_change = (base.total.abs().max(head.total.abs()) * MIN_CHANGE_SHARE)
        .max((head.total - base.total).abs() * MIN_SHARE_OF_THE_CHANGE)
        .max(MIN_CHANGE_INSTRUCTIONS);
    let mut changes = profile::diff(base, head, min_change);
    changes.truncate(MAX_FUNCTIONS);
    changes
}

/// The warning of an instruction record whose count per iteration was not exact in some fork:
/// the samples did not lie on one line, so the work per iteration depends on time, state or
/// chance (docs/instructions.md).
pub fn inexact_warning(record: &BenchmarkRecord) -> Option<BenchWarning> {
    let worst = record
        .base
        .forks
        .iter()
        .chain(&record.head.forks)
        .filter_map(|fork| fork.count.as_ref())
        .filter(|count| !count.exact)
        .map(|count| count.max_residual)
        .reduce(f64::max)?;
    Some(BenchWarning::InexactInstructions { worst })
}

/// Adds a note to each time result whose benchmark's instruction result disagrees with it:
/// one changed and the other `unchanged`, or the two changed in opposite directions. Time that
/// moves while the work does not points to caches, branch prediction, code alignment, I/O or
/// waiting; work that moves while time does not, to a change the processor hides.
pub fn note_disagreements(results: &mut [BenchmarkResult]) {
    let counted: Vec<(String, Outcome)> = results
        .iter()
        .filter_map(|r| Some((counted_id(&r.id)?.to_string(), r.verdict)))
        .collect();
    for result in results.iter_mut() {
        let Some((_, instructions)) = counted.iter().find(|(id, _)| *id == result.id) else {
            continue;
        };
        if let Some(note) = disagreement(result.verdict, *instructions) {
            result.warnings.push(note);
        }
    }
}

/// Warns of every `regressed` or `improved` benchmark whose selection found changed functions
/// compiled from the same source ([`crate::model::samples::SelectionRecord::same_source`]):
/// the verdict may be the compiler's different inlining or layout, not the change's. Once each.
pub fn note_compiled_differently(results: &mut [BenchmarkResult]) {
    for result in results.iter_mut() {
        if !matches!(result.verdict, Outcome::Regressed | Outcome::Improved) {
            continue;
        }
        let Some(functions) = result
            .selection
            .as_ref()
            .map(|s| s.same_source.clone())
            .filter(|f| !f.is_empty())
        else {
            continue;
        };
        let noted = result
            .warnings
            .iter()
            .any(|w| matches!(w, BenchWarning::CompiledDifferently { .. }));
        if !noted {
            result
                .warnings
                .push(BenchWarning::CompiledDifferently { functions });
        }
    }
}

fn disagreement(time: Outcome, instructions: Outcome) -> Option<BenchWarning> {
    use Outcome::{Improved, Regressed, Unchanged};
    let moved = |o: Outcome| matches!(o, Regressed | Improved);
    let disagree = match (time, instructions) {
        (t, Unchanged) => moved(t),
        (Unchanged, i) => moved(i),
        (Regressed, Improved) | (Improved, Regressed) => true,
        _ => false,
    };
    disagree.then_some(BenchWarning::Disagreement { time, instructions })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::profile::{FunctionPerIteration, Instructions, PerIterationProfile};
    use crate::model::samples::{BenchmarkRecord, Presence, SideRecord};

    fn profile(work: f64) -> PerIterationProfile {
        let function = |name: &str, n: f64| FunctionPerIteration {
            name: name.into(),
            file: None,
            line: None,
            instructions: Instructions {
                self_: n,
                inclusive: n,
            },
        };
        PerIterationProfile {
            total: 1000.0 + work,
            functions: vec![function("parse", 1000.0), function("render", work)],
        }
    }

    fn record(id: &str, base: Option<f64>, head: Option<f64>) -> BenchmarkRecord {
        BenchmarkRecord {
            id: id.into(),
            target: None,
            package: None,
            criterion_id: None,
            harness: None,
            presence: Presence::Both,
            base: SideRecord {
                profile: base.map(profile),
                ..SideRecord::default()
            },
            head: SideRecord {
                profile: head.map(profile),
                ..SideRecord::default()
            },
            stop: None,
            selection: None,
            fork_length: None,
        }
    }

    fn file(records: Vec<BenchmarkRecord>) -> SampleFile {
        let mut file = SampleFile::new(Default::default());
        file.benchmarks = records;
        file
    }

    #[test]
    fn a_time_record_takes_the_functions_of_its_instruction_record() {
        let samples = file(vec![
            record("hash/mix", None, None),
            record("hash/mix (instructions)", Some(500.0), Some(550.0)),
        ]);
        let changes = changes_of(&samples, "hash/mix");
        assert_eq!(changes.len(), 1, "{changes:?}");
        assert_eq!(changes[0].name, "render");
        assert_eq!(changes[0].base.self_, 500.0);
        assert_eq!(changes[0].head.self_, 550.0);
        assert_eq!(changes_of(&samples, "hash/mix (instructions)"), changes);
    }

    #[test]
    fn a_function_whose_few_instructions_only_moved_is_not_listed_beside_the_change() {
        // render does 1,000 more; `merged` is 4 instructions named `steady` in base and `mix`
        // in head (one function folded with another on one side only).
        let side = |work: f64, merged: &str| PerIterationProfile {
            total: 1004.0 + work,
            functions: vec![
                FunctionPerIteration {
                    name: "render".into(),
                    file: None,
                    line: None,
                    instructions: Instructions {
                        self_: work,
                        inclusive: work,
                    },
                },
                FunctionPerIteration {
                    name: merged.into(),
                    file: None,
                    line: None,
                    instructions: Instructions {
                        self_: 4.0,
                        inclusive: 4.0,
                    },
                },
            ],
        };
        let mut changed = record("mix", None, None);
        changed.base.profile = Some(side(10_000.0, "steady"));
        changed.head.profile = Some(side(11_000.0, "mix"));
        let names: Vec<String> = changes_of(&file(vec![changed]), "mix")
            .into_iter()
            .map(|c| c.name)
            .collect();
        assert_eq!(names, ["render"]);
    }

    #[test]
    fn an_explained_time_record_and_a_command_s_memory_use_their_own_profiles() {
        let samples = file(vec![record("parse", Some(10.0), Some(90.0))]);
        assert_eq!(changes_of(&samples, "parse")[0].name, "render");
        assert_eq!(
            changes_of(&samples, "parse (peak memory)")[0].name,
            "render"
        );
        assert!(changes_of(&samples, "other").is_empty());
    }

    #[test]
    fn only_changed_results_get_functions() {
        let samples = file(vec![record("a", Some(10.0), Some(90.0))]);
        let mut results = vec![BenchmarkResult::new("a", 0.02)];
        attach(&mut results, &samples);
        assert!(results[0].functions.is_empty());
        results[0].verdict = Outcome::Regressed;
        attach(&mut results, &samples);
        assert_eq!(results[0].functions[0].name, "render");
    }

    #[test]
    fn time_and_instructions_that_disagree_get_a_note() {
        let mut results = vec![
            BenchmarkResult::new("a", 0.02),
            BenchmarkResult::new("a (instructions)", 0.02),
            BenchmarkResult::new("b", 0.02),
            BenchmarkResult::new("b (instructions)", 0.02),
        ];
        results[0].verdict = Outcome::Regressed;
        results[1].verdict = Outcome::Unchanged;
        results[2].verdict = Outcome::Regressed;
        results[3].verdict = Outcome::Regressed;
        note_disagreements(&mut results);
        assert!(
            results[0].warnings[0]
                .to_string()
                .contains("instructions unchanged")
        );
        assert!(results[2].warnings.is_empty());
        assert!(results[1].warnings.is_empty());
        assert_eq!(
            disagreement(Outcome::Unchanged, Outcome::Improved)
                .map(|n| n.to_string().contains("hides")),
            Some(true)
        );
        assert!(disagreement(Outcome::Inconclusive, Outcome::Regressed).is_none());
    }
    #[test]
    fn a_changed_verdict_says_which_functions_compiled_differently_from_the_same_source() {
        use crate::model::samples::SelectionRecord;
        let selection = SelectionRecord {
            measured: true,
            changed_functions: vec!["demo::mix".into(), "demo::sample".into()],
            same_source: vec!["demo::sample".into()],
            ..SelectionRecord::default()
        };
        let mut results: Vec<BenchmarkResult> = [Outcome::Improved, Outcome::Unchanged]
            .into_iter()
            .map(|verdict| BenchmarkResult {
                verdict,
                selection: Some(selection.clone()),
                ..BenchmarkResult::new("a", 0.02)
            })
            .collect();
        note_compiled_differently(&mut results);
        note_compiled_differently(&mut results);
        assert_eq!(
            results[0].warnings,
            [BenchWarning::CompiledDifferently {
                functions: vec!["demo::sample".into()]
            }]
        );
        let words = results[0].warnings[0].to_string();
        assert!(
            words.starts_with("its code changed where its source did not: demo::sample"),
            "{words}"
        );
        // An unchanged verdict needs no such word.
        assert!(results[1].warnings.is_empty());
    }
}
