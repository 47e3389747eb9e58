//! Instruction profiles as a comparison keeps them: instructions per iteration of a benchmark
//! (per execution of a command) by function, and the difference between the profiles of two
//! revisions, most changed function first.
//!
//! Why here, in the data model: the samples file keeps each side's profile
//! ([`crate::model::samples::SideRecord::profile`]), the analysis diffs them and the reports list
//! the functions behind a change; only the counting itself (valgrind, callgrind's files) is a
//! step ([`crate::steps::instructions`]).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

/// Instructions per iteration (per execution for a command) of one function.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Instructions {
    /// In the function itself.
    #[serde(rename = "self")]
    pub self_: f64,
    /// With everything it called.
    pub inclusive: f64,
}

/// One function of a [`PerIterationProfile`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionPerIteration {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    pub instructions: Instructions,
}

/// A profile in instructions per iteration of the benchmark (per execution of a command).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PerIterationProfile {
    pub total: f64,
    pub functions: Vec<FunctionPerIteration>,
}

/// How one function's instructions per iteration changed from base to head. A function that
/// exists on one side only has zeros on the other.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionChange {
    pub name: String,
    /// Where known (head's, else base's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    pub base: Instructions,
    pub head: Instructions,
}

impl FunctionChange {
    /// Head minus base, self and inclusive.
    pub fn delta(&self) -> Instructions {
        Instructions {
            self_: self.head.self_ - self.base.self_,
            inclusive: self.head.inclusive - self.base.inclusive,
        }
    }
}

/// The functions whose instructions per iteration differ between `base` and `head`, most
/// changed first.
///
/// "Most changed" is the absolute change of the function's *self* instructions, then of its
/// inclusive ones. Listed are the functions whose self count changed by at least `min_change`
/// instructions per iteration: the callers whose inclusive count only passes that work on
/// (every caller up to `main` changes inclusively by the same amount) are left out. When no
/// self count changed that much, the functions whose inclusive count did are listed instead.
pub fn diff(
    base: &PerIterationProfile,
    head: &PerIterationProfile,
    min_change: f64,
) -> Vec<FunctionChange> {
    let key = |f: &FunctionPerIteration| (f.name.clone(), f.file.clone());
    let mut changes: Vec<FunctionChange> = Vec::new();
    let mut index: HashMap<(String, Option<String>), usize> = HashMap::new();
    for (side, profile) in [(0, base), (1, head)] {
        for function in &profile.functions {
            let at = *index.entry(key(function)).or_insert_with(|| {
                changes.push(FunctionChange {
                    name: function.name.clone(),
                    file: function.file.clone(),
                    line: function.line,
                    base: Instructions::default(),
                    head: Instructions::default(),
                });
                changes.len() - 1
            });
            let change = &mut changes[at];
            let slot = if side == 0 {
                &mut change.base
            } else {
                change.line = function.line.or(change.line);
                &mut change.head
            };
            slot.self_ += function.instructions.self_;
            slot.inclusive += function.instructions.inclusive;
        }
    }
    // The functions whose own work changed; only when none did (the work moved into code that
    // was not counted by function), those whose inclusive count changed: otherwise every caller
    // up to `main` would follow with the same inclusive change.
    let own = |c: &FunctionChange| c.delta().self_.abs() >= min_change;
    if changes.iter().any(own) {
        changes.retain(own);
    } else {
        changes.retain(|c| c.delta().inclusive.abs() >= min_change);
    }
    changes.sort_by(|a, b| {
        let (da, db) = (a.delta(), b.delta());
        db.self_
            .abs()
            .total_cmp(&da.self_.abs())
            .then_with(|| db.inclusive.abs().total_cmp(&da.inclusive.abs()))
            .then_with(|| a.name.cmp(&b.name))
    });
    changes
}

/// The unit of an instruction record: instructions per iteration (per execution of a command).
pub const INSTRUCTIONS_UNIT: &str = "instructions";

/// The id a benchmark's or command's instruction count is recorded and reported under.
pub fn instructions_id(id: &str) -> String {
    format!("{id} (instructions)")
}

/// The benchmark or command an instruction record's id names (`hash/mix (instructions)` →
/// `hash/mix`); `None` for any other id.
pub fn counted_id(id: &str) -> Option<&str> {
    id.strip_suffix(" (instructions)")
}

/// The share of a profile's instructions below which a function is left out of the profile a
/// samples file keeps ([`PerIterationProfile::pruned`]): one in 100,000. What it drops cannot
/// be among the changes a report lists, which begin far above it.
pub const KEPT_SHARE: f64 = 1e-5;

impl PerIterationProfile {
    /// The profile without the functions whose self and inclusive instructions are both below
    /// `share` of the total, so that a samples file keeps what matters of a profile of thousands
    /// of functions (a command's start-up, the allocator, the standard library).
    pub fn pruned(&self, share: f64) -> PerIterationProfile {
        let floor = self.total.abs() * share;
        PerIterationProfile {
            total: self.total,
            functions: self
                .functions
                .iter()
                .filter(|f| f.instructions.self_ >= floor || f.instructions.inclusive >= floor)
                .cloned()
                .collect(),
        }
    }
}

impl PerIterationProfile {
    /// The profile with the files under `root` (a revision's checkout) named relative to it, so
    /// that base's and head's functions, built in two checkouts, are the same functions.
    pub fn relative_to(mut self, root: &std::path::Path) -> PerIterationProfile {
        for function in &mut self.functions {
            let relative = function
                .file
                .as_deref()
                .and_then(|file| std::path::Path::new(file).strip_prefix(root).ok())
                .map(|path| path.to_string_lossy().into_owned());
            if let Some(relative) = relative {
                function.file = Some(relative);
            }
        }
        self
    }
}

/// How a fork's instructions per iteration were derived ([`crate::model::samples::ForkRecord`]
/// of an instruction record): by which method, and whether the samples agreed exactly.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CountFit {
    /// `criterion_samples`, `divan_two_sample_sizes`, `bencher_schedule`, `libtest_schedule` or
    /// `whole_execution` (docs/design/instructions.md).
    pub derivation: String,
    /// Every sample lies on one line through (iterations, instructions): the benchmark does the
    /// same work in every iteration. False flags a count that depends on time, state or chance.
    pub exact: bool,
    /// Instructions per sample outside the iterations (the harness's own loop and clock reads).
    #[serde(default)]
    pub per_sample: f64,
    /// The largest distance of a sample from the line, in instructions.
    #[serde(default)]
    pub max_residual: f64,
    /// Samples the line was fitted through.
    #[serde(default)]
    pub samples: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn function(name: &str, self_: f64, inclusive: f64) -> FunctionPerIteration {
        FunctionPerIteration {
            name: name.into(),
            file: Some("src/lib.rs".into()),
            line: Some(3),
            instructions: Instructions { self_, inclusive },
        }
    }

    #[test]
    fn instruction_ids_name_what_they_count() {
        assert_eq!(instructions_id("hash/mix"), "hash/mix (instructions)");
        assert_eq!(counted_id("hash/mix (instructions)"), Some("hash/mix"));
        assert_eq!(counted_id("hash/mix"), None);
    }

    #[test]
    fn pruning_keeps_the_functions_that_matter_and_the_total() {
        let profile = PerIterationProfile {
            total: 1_000_000.0,
            functions: vec![
                function("main", 0.0, 1_000_000.0),
                function("work", 999_990.0, 999_990.0),
                function("tiny", 1.0, 1.0),
            ],
        };
        let pruned = profile.pruned(KEPT_SHARE);
        let names: Vec<&str> = pruned.functions.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["main", "work"]);
        assert_eq!(pruned.total, 1_000_000.0);
    }

    #[test]
    fn files_in_a_checkout_are_named_relative_to_it() {
        let mut inside = function("parse", 1.0, 1.0);
        inside.file = Some("/state/worktrees/base/ws/src/lib.rs".into());
        let outside = function("iter", 1.0, 1.0);
        let profile = PerIterationProfile {
            total: 2.0,
            functions: vec![inside, outside],
        }
        .relative_to(std::path::Path::new("/state/worktrees/base/ws"));
        assert_eq!(profile.functions[0].file.as_deref(), Some("src/lib.rs"));
        assert_eq!(profile.functions[1].file.as_deref(), Some("src/lib.rs"));
    }

    #[test]
    fn a_profile_without_files_serialises_without_them() {
        let mut f = function("f", 1.0, 2.0);
        f.file = None;
        f.line = None;
        let json = serde_json::to_value(&f).unwrap();
        assert!(json.get("file").is_none(), "{json}");
        assert_eq!(json["instructions"]["self"], 1.0);
    }
}
