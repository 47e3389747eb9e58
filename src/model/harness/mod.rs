//! The benchmark harnesses cargo-perfdiff runs, and what is particular to each: how a bench
//! executable says which it uses, how its benchmarks are listed, how one fork selects exactly one
//! benchmark, and what that fork gives back.
//!
//! Why every harness goes through the same forks: none of them compares two revisions by itself,
//! and running each bench executable ourselves, one benchmark per process, gives all of them the
//! same schedule, stop rules and verdicts. What differs is what a fork yields:
//! - **criterion** (and its forks `criterion2` and `codspeed-criterion-compat`, which keep its
//!   runner protocol) hands over its raw samples over a socket ([`crate::steps::fork::protocol`]);
//! - **divan**, **libtest `#[bench]`** and the **`bencher`** crate only print a summary, so a fork
//!   yields one value ([`PerFork`]): divan's median time per iteration, libtest's and bencher's
//!   median `ns/iter`. The statistics then rest on the fork values (docs/design/statistics.md,
//!   "Harnesses that give one value per fork").
//!
//! The text formats are parsed here from plain `&str` lines, so they are tested without running
//! anything; [`crate::steps::fork::text`] runs the processes.

pub mod bencher;
pub mod divan;
pub mod libtest;

use std::ffi::OsString;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// The command line a criterion bench executable understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CliDialect {
    /// Criterion 0.5 and later: `--exact ID`, fractional seconds.
    #[default]
    Current,
    /// Criterion 0.4: no `--exact` (the filter is a regex), fractional seconds.
    Criterion04,
    /// Criterion 0.3: no `--exact`, and whole seconds only.
    Criterion03,
}

impl CliDialect {
    /// The arguments that select exactly benchmark `id`.
    pub fn select(self, id: &str) -> Vec<String> {
        match self {
            CliDialect::Current => vec!["--exact".to_string(), id.to_string()],
            CliDialect::Criterion04 | CliDialect::Criterion03 => {
                vec![format!("^{}$", regex::escape(id))]
            }
        }
    }

    /// The duration criterion is given for `duration`: criterion 0.3 takes whole seconds, at
    /// least one (it rejects zero), so a duration is rounded up; later versions take it as it is.
    pub fn sent_duration(self, duration: Duration) -> Duration {
        match self {
            CliDialect::Current | CliDialect::Criterion04 => duration,
            CliDialect::Criterion03 => {
                Duration::from_secs(duration.as_secs_f64().ceil().max(1.0) as u64)
            }
        }
    }

    /// A duration as `--warm-up-time` and `--measurement-time` take it ([`Self::sent_duration`]
    /// in seconds).
    pub fn seconds(self, duration: Duration) -> String {
        self.sent_duration(duration).as_secs_f64().to_string()
    }
}

/// The harness of a bench target, as far as running it is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Harness {
    /// Criterion (or a fork of it that keeps its runner protocol), in the command-line dialect
    /// of its version.
    Criterion(CliDialect),
    /// divan: `--exact` selection, `--min-time`/`--max-time`, a summary table on stdout.
    Divan,
    /// libtest's `#[bench]` (a bench target with the default harness, on a nightly toolchain).
    Libtest,
    /// The `bencher` crate: libtest's bench runner ported to stable, a substring filter only.
    Bencher,
    /// Not a harness: a command run from the outside ([`crate::model::command`]), one execution a fork.
    Command,
}

impl Default for Harness {
    /// Criterion in its current dialect: what a bench target is taken for until it is listed.
    fn default() -> Self {
        Harness::Criterion(CliDialect::Current)
    }
}

/// Which harness, without criterion's dialect: what reports and the samples file name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HarnessKind {
    Criterion,
    Divan,
    Libtest,
    Bencher,
    Command,
}

impl HarnessKind {
    /// Whether its forks take as long as the harness's own rule says, whatever the run's warm-up
    /// and measurement times: libtest's and `bencher`'s runner (`steps::estimate::SELF_TIMED_FORK`).
    pub fn times_itself(self) -> bool {
        matches!(self, HarnessKind::Libtest | HarnessKind::Bencher)
    }

    pub fn name(self) -> &'static str {
        match self {
            HarnessKind::Criterion => "criterion",
            HarnessKind::Divan => "divan",
            HarnessKind::Libtest => "libtest",
            HarnessKind::Bencher => "bencher",
            HarnessKind::Command => "command",
        }
    }
}

impl std::fmt::Display for HarnessKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Harness {
    /// Which harness it is.
    pub fn kind(self) -> HarnessKind {
        match self {
            Harness::Criterion(_) => HarnessKind::Criterion,
            Harness::Divan => HarnessKind::Divan,
            Harness::Libtest => HarnessKind::Libtest,
            Harness::Bencher => HarnessKind::Bencher,
            Harness::Command => HarnessKind::Command,
        }
    }

    /// The harness's name in reports and the samples file.
    pub fn name(self) -> &'static str {
        self.kind().name()
    }

    /// What one fork's single value is, for harnesses that give no raw samples; `None` for
    /// criterion, whose forks hand over every sample.
    pub fn per_fork(self) -> Option<PerFork> {
        match self {
            Harness::Criterion(_) => None,
            Harness::Divan => Some(PerFork::Median),
            Harness::Libtest | Harness::Bencher => Some(PerFork::Median),
            Harness::Command => Some(PerFork::Execution),
        }
    }

    /// The criterion command line its forks speak; `None` for the other harnesses.
    pub fn criterion_dialect(self) -> Option<CliDialect> {
        match self {
            Harness::Criterion(dialect) => Some(dialect),
            _ => None,
        }
    }

    /// The command line of one fork measuring exactly benchmark `id` for about `measurement`
    /// (for harnesses that take a time), divan's samples `sample_size` iterations long where it
    /// is set ([`divan::sample_size_for`]; the other harnesses have no such setting).
    /// Criterion's forks are built by [`crate::steps::fork::session`].
    pub fn summary_fork_args(
        self,
        id: &str,
        measurement: Duration,
        sample_size: Option<u64>,
    ) -> Vec<OsString> {
        match self {
            Harness::Divan => divan::fork_args(id, measurement, sample_size),
            Harness::Libtest => libtest::fork_args(id),
            Harness::Bencher => bencher::fork_args(id),
            Harness::Criterion(_) | Harness::Command => Vec::new(),
        }
    }

    /// Reads benchmark `id`'s value, in nanoseconds per iteration, from one line of a fork's
    /// output; `None` for any other line.
    pub fn value_in_line(self, id: &str, line: &str) -> Option<f64> {
        match self {
            Harness::Divan => divan::median_in_row(id, line),
            Harness::Libtest | Harness::Bencher => libtest::ns_per_iter_in_line(id, line),
            Harness::Criterion(_) | Harness::Command => None,
        }
    }
}

/// Reads benchmark `id`'s value from a fork's output, line by line: a line at a time
/// ([`Harness::value_in_line`]), but for divan, whose row a benchmark that prints splits over
/// several lines ([`divan::ValueRow`]).
#[derive(Debug, Clone)]
pub enum ValueWatch {
    Divan(divan::ValueRow),
    Line { harness: Harness, id: String },
}

impl ValueWatch {
    pub fn new(harness: Harness, id: &str) -> Self {
        match harness {
            Harness::Divan => ValueWatch::Divan(divan::ValueRow::new(id)),
            _ => ValueWatch::Line {
                harness,
                id: id.to_string(),
            },
        }
    }

    /// The value, if `line` (the next line of the output) holds it.
    pub fn line(&mut self, line: &str) -> Option<f64> {
        match self {
            ValueWatch::Divan(row) => row.line(line),
            ValueWatch::Line { harness, id } => harness.value_in_line(id, line),
        }
    }
}

impl std::fmt::Display for Harness {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What the one value of a fork is, for a harness that prints a summary instead of its samples.
/// Every such harness gives a median today; the samples file names it so that another summary
/// could be told apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PerFork {
    /// The harness's median time per iteration over its own samples (divan's table, libtest's
    /// and bencher's `ns/iter`).
    Median,
    /// One execution of a command: its wall time ([`crate::model::command`]).
    Execution,
    /// One execution of a command: its peak resident memory, in bytes.
    PeakMemory,
    /// One run under valgrind: instructions per iteration of a benchmark, per execution of a
    /// command ([`crate::model::profile`]).
    Instructions,
}

impl PerFork {
    pub fn as_str(self) -> &'static str {
        match self {
            PerFork::Median => "median",
            PerFork::Execution => "execution",
            PerFork::PeakMemory => "peak memory",
            PerFork::Instructions => "instructions",
        }
    }
}

/// Parses a number as the libtest family prints it: digits with `,` thousands separators and an
/// optional fraction (`1,234`, `1,234.56`, `0.42`).
pub(crate) fn parse_grouped_number(text: &str) -> Option<f64> {
    let plain: String = text.chars().filter(|&c| c != ',').collect();
    let value: f64 = plain.parse().ok()?;
    value.is_finite().then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_per_fork_values() {
        assert_eq!(Harness::Criterion(CliDialect::Current).name(), "criterion");
        assert_eq!(Harness::Criterion(CliDialect::Current).per_fork(), None);
        assert_eq!(Harness::Divan.per_fork(), Some(PerFork::Median));
        assert_eq!(Harness::Libtest.per_fork(), Some(PerFork::Median));
        assert_eq!(Harness::Bencher.per_fork(), Some(PerFork::Median));
    }

    #[test]
    fn grouped_numbers() {
        assert_eq!(parse_grouped_number("1,234"), Some(1234.0));
        assert_eq!(parse_grouped_number("1,234.56"), Some(1234.56));
        assert_eq!(parse_grouped_number("0.42"), Some(0.42));
        assert_eq!(parse_grouped_number("ns"), None);
        assert_eq!(parse_grouped_number(""), None);
    }
}
