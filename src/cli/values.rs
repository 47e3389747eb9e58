//! The command line's names for the values of settings (`--stop decided`, `--fail-on never`,
//! `--format json`, …) and the help of each. The enums belong to the layers below, which know
//! nothing of clap; this is where the command line learns to spell them.

use clap::ValueEnum;
use clap::builder::PossibleValue;

use crate::model::policy::{FailOn, StopRule};
use crate::model::samples::Mode;
use crate::orchestrate::demo::DemoHarness;
use crate::steps::report::Format;

impl ValueEnum for Mode {
    fn value_variants<'a>() -> &'a [Self] {
        &[Mode::Interleaved, Mode::Duet]
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(match self {
            Mode::Interleaved => PossibleValue::new("interleaved")
                .help("Forks of base and head alternate in randomised rounds"),
            Mode::Duet => PossibleValue::new("duet").help(
                "Base and head run at the same time on two pinned CPUs; forks of one round are \
                 paired",
            ),
        })
    }
}

impl ValueEnum for StopRule {
    fn value_variants<'a>() -> &'a [Self] {
        &[
            StopRule::Fixed,
            StopRule::Cv,
            StopRule::Rciw,
            StopRule::Kld,
            StopRule::Decided,
        ]
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(match self {
            StopRule::Fixed => PossibleValue::new("fixed").help("Exactly `forks` rounds"),
            StopRule::Cv => PossibleValue::new("cv")
                .help("Coefficient of variation stable over a sliding window (Laaber et al.)"),
            StopRule::Rciw => PossibleValue::new("rciw").help(
                "Relative width of the bootstrap CI of the mean stable over a sliding window",
            ),
            StopRule::Kld => PossibleValue::new("kld")
                .help("Kullback–Leibler based probability that new data changes nothing"),
            StopRule::Decided => PossibleValue::new("decided").help(
                "The comparison is decided: the verdict can no longer change (alpha spent over \
                 looks)",
            ),
        })
    }
}

impl ValueEnum for FailOn {
    fn value_variants<'a>() -> &'a [Self] {
        &[
            FailOn::Regression,
            FailOn::Inconclusive,
            FailOn::AnyChange,
            FailOn::Never,
        ]
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(match self {
            FailOn::Regression => {
                PossibleValue::new("regression").help("Exit 1 when a benchmark regressed (default)")
            }
            FailOn::Inconclusive => PossibleValue::new("inconclusive")
                .help("Exit 1 on a regression, 3 when a benchmark is inconclusive or failed"),
            FailOn::AnyChange => PossibleValue::new("any-change")
                .help("Exit 1 on a regression, 4 on an improvement (any change needs review)"),
            FailOn::Never => {
                PossibleValue::new("never").help("Always exit 0 unless the tool itself failed")
            }
        })
    }
}

impl ValueEnum for Format {
    fn value_variants<'a>() -> &'a [Self] {
        &[Format::Table, Format::Json, Format::Markdown]
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(match self {
            Format::Table => PossibleValue::new("table").help("A table for the terminal"),
            Format::Json => PossibleValue::new("json")
                .help("The full report as JSON (a stable schema, see docs/reports.md)"),
            Format::Markdown => PossibleValue::new("markdown").help(
                "GitHub-flavoured Markdown for a pull-request comment or `$GITHUB_STEP_SUMMARY`",
            ),
        })
    }
}

impl ValueEnum for DemoHarness {
    fn value_variants<'a>() -> &'a [Self] {
        &[
            DemoHarness::Criterion,
            DemoHarness::Divan,
            DemoHarness::Libtest,
            DemoHarness::Bencher,
            DemoHarness::Mixed,
        ]
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(match self {
            DemoHarness::Criterion => PossibleValue::new("criterion")
                .help("criterion (its version set by `--criterion`)"),
            DemoHarness::Divan => PossibleValue::new("divan").help("divan"),
            DemoHarness::Libtest => PossibleValue::new("libtest").help(
                "libtest `#[bench]`, which needs a nightly toolchain: `cargo +nightly perfdiff demo`",
            ),
            DemoHarness::Bencher => PossibleValue::new("bencher").help("the `bencher` crate"),
            DemoHarness::Mixed => PossibleValue::new("mixed").help(
                "a workspace with one member per harness (the libtest one needs nightly, the rest \
                 are compared on stable)",
            ),
        })
    }
}
