//! What decides a comparison besides the data: when a benchmark stops adding forks, what makes
//! the exit code non-zero, and the per-benchmark thresholds.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// When measurement of a benchmark stops adding forks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum StopRule {
    /// Exactly `forks` rounds.
    Fixed,
    /// Coefficient of variation stable over a sliding window (Laaber et al.).
    Cv,
    /// Relative width of the bootstrap CI of the mean stable over a sliding window.
    Rciw,
    /// Kullback–Leibler based probability that new data changes nothing.
    Kld,
    /// The comparison is decided: the verdict can no longer change (alpha spent over looks).
    #[default]
    Decided,
}

impl StopRule {
    /// The rounds a rule runs before it may stop when `min-forks` is not set. Under `decided`
    /// two: its look at two forks per side can decide only a change of at least five times the
    /// threshold (`stop::LARGE_CHANGE_ONLY_BELOW_FORKS`), which saved up to 3 points of time on
    /// the recordings and agreed with fixed 10 as often or more. Under the paper's rules three: at
    /// two forks they stop on two prefix values, which cost them 2–18 points of agreement in
    /// replay (`docs/design/replay.md`).
    pub fn default_min_forks(self) -> usize {
        match self {
            StopRule::Decided => 2,
            StopRule::Fixed | StopRule::Cv | StopRule::Rciw | StopRule::Kld => 3,
        }
    }
}

impl std::fmt::Display for StopRule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            StopRule::Fixed => "fixed",
            StopRule::Cv => "cv",
            StopRule::Rciw => "rciw",
            StopRule::Kld => "kld",
            StopRule::Decided => "decided",
        })
    }
}

/// What the forks measure: wall time (the default), instructions counted under valgrind
/// ([`crate::model::profile`], docs/instructions.md), or both. Written `time`, `instructions` or
/// `time,instructions` (in either order) on the command line and in the configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Metrics {
    pub time: bool,
    pub instructions: bool,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::TIME
    }
}

impl Metrics {
    /// Wall time alone.
    pub const TIME: Metrics = Metrics {
        time: true,
        instructions: false,
    };
    /// Instruction counts alone.
    pub const INSTRUCTIONS: Metrics = Metrics {
        time: false,
        instructions: true,
    };
}

impl std::str::FromStr for Metrics {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let mut metrics = Metrics {
            time: false,
            instructions: false,
        };
        for word in text.split(',').map(str::trim) {
            match word {
                "time" => metrics.time = true,
                "instructions" => metrics.instructions = true,
                other => {
                    return Err(format!(
                        "unknown metric `{other}`: expected `time`, `instructions` or \
                         `time,instructions`"
                    ));
                }
            }
        }
        Ok(metrics)
    }
}

impl TryFrom<String> for Metrics {
    type Error = String;

    fn try_from(text: String) -> Result<Self, Self::Error> {
        text.parse()
    }
}

impl From<Metrics> for String {
    fn from(metrics: Metrics) -> String {
        metrics.to_string()
    }
}

impl std::fmt::Display for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match (self.time, self.instructions) {
            (true, true) => "time,instructions",
            (false, true) => "instructions",
            _ => "time",
        })
    }
}

/// What makes the process exit non-zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum FailOn {
    /// Exit 1 when a benchmark regressed (default).
    #[default]
    Regression,
    /// Exit 1 on a regression, 3 when a benchmark is inconclusive or failed.
    Inconclusive,
    /// Exit 1 on a regression, 4 on an improvement (any change needs review).
    AnyChange,
    /// Always exit 0 unless the tool itself failed.
    Never,
}

/// Per-benchmark overrides from the configuration file, keyed by a regex over the benchmark id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct BenchOverride {
    /// Relevance threshold for matching benchmarks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold: Option<f64>,
    /// Do not run or report matching benchmarks.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ignore: bool,
}

/// The relevance threshold of instruction records (`ID (instructions)`) unless the user sets
/// another (`--instructions-threshold`): 0.2 %. An instruction count of the same code is the same
/// in every process, so it is relevance, not noise, that sets it: well under the 0.5 % of work a
/// comparison must find, above the few instructions a change elsewhere can move into a loop
/// (docs/instructions.md).
pub const DEFAULT_INSTRUCTIONS_THRESHOLD: f64 = 0.002;

/// The level of each of the two one-sided tests that call a benchmark `unchanged` unless the user
/// sets another (`--equivalence-alpha`): 5 %, so `unchanged` rests on a 90 % interval inside the
/// band, the convention of bioequivalence testing (Schuirmann 1987). A false `unchanged` passes
/// the gate as `inconclusive` would, so it need not be as rare as a false `regressed`, which keeps
/// `alpha` (docs/design/equivalence-and-futility.md).
pub const DEFAULT_EQUIVALENCE_ALPHA: f64 = 0.05;

/// The threshold of benchmark `id` that no override names: `instructions` for an instruction
/// record, `time` for every other record.
pub fn default_threshold(id: &str, time: f64, instructions: f64) -> f64 {
    match crate::model::profile::counted_id(id) {
        Some(_) => instructions,
        None => time,
    }
}

/// The relevance threshold for benchmark `id`: that of the first override in `overrides` that
/// names it and sets one, else its [`default_threshold`] of `time` and `instructions`.
pub fn threshold_for(
    overrides: &BTreeMap<String, BenchOverride>,
    (time, instructions): (f64, f64),
    id: &str,
) -> f64 {
    matching_overrides(overrides, id)
        .find_map(|o| o.threshold)
        .unwrap_or_else(|| default_threshold(id, time, instructions))
}

/// True when an override in `overrides` says to ignore benchmark `id`.
pub fn is_ignored(overrides: &BTreeMap<String, BenchOverride>, id: &str) -> bool {
    matching_overrides(overrides, id).any(|o| o.ignore)
}

fn matching_overrides<'a>(
    overrides: &'a BTreeMap<String, BenchOverride>,
    id: &'a str,
) -> impl Iterator<Item = &'a BenchOverride> {
    overrides
        .iter()
        .filter_map(move |(pattern, o)| override_matches(pattern, id).then_some(o))
}

/// Whether a per-benchmark override's pattern names `id`: a regex match, or a substring when the
/// pattern is not a valid regex.
fn override_matches(pattern: &str, id: &str) -> bool {
    regex::Regex::new(pattern)
        .map(|re| re.is_match(id))
        .unwrap_or_else(|_| id.contains(pattern))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics_are_read_and_written_as_a_list() {
        assert_eq!("time".parse(), Ok(Metrics::TIME));
        assert_eq!("instructions".parse(), Ok(Metrics::INSTRUCTIONS));
        let both: Metrics = "instructions, time".parse().unwrap();
        assert!(both.time && both.instructions);
        assert_eq!(both.to_string(), "time,instructions");
        let error = "cycles".parse::<Metrics>().unwrap_err();
        assert!(error.contains("unknown metric `cycles`"), "{error}");
        assert!("".parse::<Metrics>().is_err());
    }
}
