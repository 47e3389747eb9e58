//! Settings of a run: defaults, configuration files, and the command line, in that order of
//! precedence (the command line wins).
//!
//! [`Settings`] is the one place every tunable lives, so that the samples file can record exactly
//! what a run used and `--print-config` can show it with where each value came from.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use crate::samples::Mode;

/// Errors in a configuration file. Each names the file and, where it can, the key.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{path}: {message}")]
    Invalid { path: String, message: String },
}

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

/// Every setting of a run, with its default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// Interleaved forks or duet pairs.
    pub mode: Mode,
    /// When to stop adding forks.
    pub stop: StopRule,
    /// Rounds for `--stop fixed`.
    pub forks: usize,
    /// Rounds always run before a stop rule may stop a benchmark.
    pub min_forks: usize,
    /// Rounds after which a benchmark stops whatever its rule says.
    pub max_forks: usize,
    /// Threshold of the stop rule (`None`: the rule's published default).
    pub stop_threshold: Option<f64>,
    /// Sliding window length of the stop rules.
    pub window: usize,
    /// Criterion warm-up time asked for per fork, in milliseconds.
    pub warm_up_ms: u64,
    /// Criterion measurement time per fork, in milliseconds.
    pub measurement_ms: u64,
    /// Criterion samples per fork (criterion wants at least 10).
    pub sample_size: usize,
    /// Changes smaller than this (relative, e.g. 0.02 = 2 %) are not relevant.
    pub threshold: f64,
    /// Significance level of Mann–Whitney U (after false-discovery control).
    pub alpha: f64,
    /// Confidence of the ratio CI.
    pub confidence: f64,
    /// Bootstrap resamples for the ratio CI.
    pub resamples: usize,
    /// Benjamini–Hochberg false discovery rate control across the suite.
    pub fdr: bool,
    /// Seed of every random choice; `None` draws one (recorded in the samples file).
    pub seed: Option<u64>,
    /// A fork running longer than this many seconds is killed and the benchmark `failed`.
    pub fork_timeout_s: f64,
    /// Benchmark filters (substring or regex, as criterion takes them).
    pub filters: Vec<String>,
    /// What makes the exit code non-zero.
    pub fail_on: FailOn,
    /// The two CPUs of duet mode; `None`: the first two the process may use.
    pub cpus: Option<[usize; 2]>,
    /// Per-benchmark overrides, keyed by a regex over the benchmark id.
    pub overrides: BTreeMap<String, BenchOverride>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            mode: Mode::Interleaved,
            stop: StopRule::default(),
            forks: 10,
            min_forks: 3,
            max_forks: 20,
            stop_threshold: None,
            window: 5,
            warm_up_ms: 300,
            measurement_ms: 1000,
            sample_size: 30,
            threshold: 0.02,
            alpha: 0.01,
            confidence: 0.99,
            resamples: 10_000,
            fdr: true,
            seed: None,
            fork_timeout_s: 300.0,
            filters: Vec::new(),
            fail_on: FailOn::Regression,
            cpus: None,
            overrides: BTreeMap::new(),
        }
    }
}

impl Settings {
    /// The relevance threshold for benchmark `id`, after per-benchmark overrides.
    pub fn threshold_for(&self, id: &str) -> f64 {
        self.matching_overrides(id)
            .find_map(|o| o.threshold)
            .unwrap_or(self.threshold)
    }

    /// True when a per-benchmark override says to ignore `id`.
    pub fn is_ignored(&self, id: &str) -> bool {
        self.matching_overrides(id).any(|o| o.ignore)
    }

    fn matching_overrides<'a>(&'a self, id: &'a str) -> impl Iterator<Item = &'a BenchOverride> {
        self.overrides.iter().filter_map(move |(pattern, o)| {
            let matches = regex::Regex::new(pattern)
                .map(|re| re.is_match(id))
                .unwrap_or_else(|_| id.contains(pattern.as_str()));
            matches.then_some(o)
        })
    }
}
