//! Instructions by function: one profile, profiles added up, and the difference between the
//! profiles of two revisions, most changed function first.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

pub use crate::model::profile::{
    FunctionChange, FunctionPerIteration, Instructions, PerIterationProfile, diff,
};

/// The instructions of one function in a profile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionCost {
    /// Demangled, without the symbol hash (`demo::parse`, `<T as Trait>::method`).
    pub name: String,
    /// The source file of the function, when the debug line tables give one.
    pub file: Option<String>,
    /// The lowest line of that file with executed code (near the function's start).
    pub line: Option<u32>,
    /// The object (executable or shared library) it is in.
    pub object: Option<String>,
    /// Instructions executed in the function itself, code inlined into it included.
    pub self_instructions: u64,
    /// Its own instructions and those of everything it called.
    pub inclusive_instructions: u64,
    /// How often it was called.
    pub calls: u64,
    /// By instruction address, when the profile has them (`--dump-instr=yes`), in address order:
    /// what [`super::inlined`] splits among the functions inlined into this one.
    #[serde(skip)]
    pub by_address: Vec<AddressCost>,
}

/// The instructions executed at one instruction address of a function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AddressCost {
    pub address: u64,
    /// Executed there.
    pub self_instructions: u64,
    /// Executed by the calls made there (their inclusive count).
    pub callee_instructions: u64,
}

/// `a` and `b` merged address by address (both in address order).
fn merge_addresses(a: &[AddressCost], b: &[AddressCost]) -> Vec<AddressCost> {
    let mut merged: Vec<AddressCost> = a.iter().chain(b).copied().collect();
    merged.sort_by_key(|c| c.address);
    merged.dedup_by(|later, earlier| {
        if later.address == earlier.address {
            earlier.self_instructions += later.self_instructions;
            earlier.callee_instructions += later.callee_instructions;
            true
        } else {
            false
        }
    });
    merged
}

/// The functions of one profile, highest inclusive cost first.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Profile {
    /// Every instruction counted (callgrind's `totals:`).
    pub total: u64,
    pub functions: Vec<FunctionCost>,
}

impl Profile {
    /// Profiles added up function by function (e.g. the dumps of several samples).
    pub fn sum<'a>(profiles: impl IntoIterator<Item = &'a Profile>) -> Profile {
        let mut total = 0;
        let mut index: HashMap<(String, Option<String>), usize> = HashMap::new();
        let mut functions: Vec<FunctionCost> = Vec::new();
        for profile in profiles {
            total += profile.total;
            for function in &profile.functions {
                let key = (function.name.clone(), function.file.clone());
                match index.get(&key) {
                    Some(&i) => {
                        let merged = &mut functions[i];
                        merged.self_instructions += function.self_instructions;
                        merged.inclusive_instructions += function.inclusive_instructions;
                        merged.calls += function.calls;
                        if !function.by_address.is_empty() {
                            merged.by_address =
                                merge_addresses(&merged.by_address, &function.by_address);
                        }
                        merged.line = match (merged.line, function.line) {
                            (Some(a), Some(b)) => Some(a.min(b)),
                            (a, b) => a.or(b),
                        };
                    }
                    None => {
                        index.insert(key, functions.len());
                        functions.push(function.clone());
                    }
                }
            }
        }
        functions.sort_by(|a, b| {
            b.inclusive_instructions
                .cmp(&a.inclusive_instructions)
                .then_with(|| a.name.cmp(&b.name))
        });
        Profile { total, functions }
    }

    /// The function called `name` (the first of that name).
    pub fn function(&self, name: &str) -> Option<&FunctionCost> {
        self.functions.iter().find(|f| f.name == name)
    }

    /// The profile per iteration: every cost divided by `iterations`.
    pub fn per_iteration(&self, iterations: f64) -> PerIterationProfile {
        let scale = |value: u64| value as f64 / iterations;
        PerIterationProfile {
            total: scale(self.total),
            functions: self
                .functions
                .iter()
                .map(|f| FunctionPerIteration {
                    name: f.name.clone(),
                    file: f.file.clone(),
                    line: f.line,
                    instructions: Instructions {
                        self_: scale(f.self_instructions),
                        inclusive: scale(f.inclusive_instructions),
                    },
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn function(name: &str, self_: u64, inclusive: u64) -> FunctionCost {
        FunctionCost {
            name: name.into(),
            file: Some("src/lib.rs".into()),
            line: Some(3),
            object: None,
            self_instructions: self_,
            inclusive_instructions: inclusive,
            calls: 1,
            by_address: Vec::new(),
        }
    }

    fn profile(functions: Vec<FunctionCost>) -> Profile {
        Profile {
            total: functions.iter().map(|f| f.self_instructions).sum(),
            functions,
        }
    }

    #[test]
    fn profiles_add_up_function_by_function() {
        let a = profile(vec![function("f", 10, 30), function("g", 20, 20)]);
        let b = profile(vec![function("f", 1, 3)]);
        let sum = Profile::sum([&a, &b]);
        assert_eq!(sum.total, 31);
        assert_eq!(sum.function("f").unwrap().inclusive_instructions, 33);
        assert_eq!(sum.function("f").unwrap().calls, 2);
        assert_eq!(sum.function("g").unwrap().self_instructions, 20);
        let per = sum.per_iteration(2.0);
        assert_eq!(per.total, 15.5);
        assert_eq!(per.functions[0].instructions.inclusive, 16.5);
    }

    #[test]
    fn the_function_that_does_more_itself_comes_before_its_callers() {
        // main → bench → (parse, render); head makes render do 500 more per iteration.
        let base = profile(vec![
            function("main", 0, 3000),
            function("bench", 10, 3000),
            function("parse", 1990, 1990),
            function("render", 1000, 1000),
        ])
        .per_iteration(1.0);
        let head = profile(vec![
            function("main", 0, 3500),
            function("bench", 10, 3500),
            function("parse", 1990, 1990),
            function("render", 1500, 1500),
            function("new_helper", 0, 0),
        ])
        .per_iteration(1.0);
        let changes = diff(&base, &head, 0.5);
        let names: Vec<&str> = changes.iter().map(|c| c.name.as_str()).collect();
        // The callers only pass render's work on: left out.
        assert_eq!(names, ["render"]);
        assert_eq!(changes[0].base.self_, 1000.0);
        assert_eq!(changes[0].head.inclusive, 1500.0);
        assert_eq!(changes[0].delta().self_, 500.0);
        assert_eq!(changes[0].file.as_deref(), Some("src/lib.rs"));
        assert_eq!(changes[0].line, Some(3));
    }

    #[test]
    fn without_a_change_of_self_counts_the_inclusive_changes_are_listed() {
        let base = profile(vec![function("main", 0, 3000), function("iter", 0, 3000)]);
        let head = profile(vec![function("main", 0, 3300), function("iter", 0, 3300)]);
        let changes = diff(&base.per_iteration(1.0), &head.per_iteration(1.0), 0.5);
        let names: Vec<&str> = changes.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["iter", "main"]);
    }

    #[test]
    fn a_function_on_one_side_only_changes_from_or_to_zero() {
        let base = profile(vec![function("old", 40, 40)]).per_iteration(2.0);
        let head = profile(vec![function("new", 60, 60)]).per_iteration(2.0);
        let changes = diff(&base, &head, 0.0);
        assert_eq!(changes[0].name, "new");
        assert_eq!(changes[0].base, Instructions::default());
        assert_eq!(changes[0].head.self_, 30.0);
        assert_eq!(changes[1].name, "old");
        assert_eq!(changes[1].head, Instructions::default());
    }

    #[test]
    fn the_change_serialises_with_self_and_inclusive() {
        let change = FunctionChange {
            name: "demo::render".into(),
            file: None,
            line: None,
            base: Instructions {
                self_: 1.0,
                inclusive: 2.0,
            },
            head: Instructions {
                self_: 3.0,
                inclusive: 4.0,
            },
        };
        let json = serde_json::to_value(&change).unwrap();
        assert_eq!(json["base"]["self"], 1.0);
        assert_eq!(json["head"]["inclusive"], 4.0);
    }
}
