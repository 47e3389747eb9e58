//! The exit code under each `--fail-on` gate.

use crate::report_support;

use cargo_perfdiff::config::FailOn;
use cargo_perfdiff::steps::analysis::Outcome::{self, *};
use cargo_perfdiff::steps::report::exit_code;
use cargo_perfdiff::util::exit_code as code;
use report_support::{all_verdicts, with_verdicts};

fn exit(verdicts: &[Outcome], fail_on: FailOn) -> i32 {
    exit_code(&with_verdicts(verdicts), fail_on)
}

#[test]
fn regression_gate() {
    assert_eq!(
        exit(&[Regressed, Improved], FailOn::Regression),
        code::REGRESSION
    );
    assert_eq!(
        exit(
            &[Inconclusive, Failed, Improved, OnlyInHead],
            FailOn::Regression
        ),
        code::OK
    );
    assert_eq!(exit(&[], FailOn::Regression), code::OK);
}

#[test]
fn inconclusive_gate() {
    assert_eq!(
        exit(&[Regressed, Inconclusive], FailOn::Inconclusive),
        code::REGRESSION
    );
    assert_eq!(
        exit(&[Unchanged, Inconclusive], FailOn::Inconclusive),
        code::INCONCLUSIVE
    );
    assert_eq!(
        exit(&[Unchanged, Failed], FailOn::Inconclusive),
        code::INCONCLUSIVE
    );
    assert_eq!(
        exit(&[Unchanged, Improved, OnlyInBase], FailOn::Inconclusive),
        code::OK
    );
}

/// A run whose benchmarks are each on one side only (a bench target that changed harness
/// between releases) compared nothing: the gate that fails on what it could not decide fails,
/// the default one passes (its warning says why), and a report listing nothing is no such run.
#[test]
fn a_run_that_compared_nothing_fails_the_inconclusive_gate_only() {
    let nothing_compared = [OnlyInBase, OnlyInBase, OnlyInHead];
    assert_eq!(
        exit(&nothing_compared, FailOn::Inconclusive),
        code::INCONCLUSIVE
    );
    assert_eq!(exit(&nothing_compared, FailOn::Regression), code::OK);
    assert_eq!(exit(&nothing_compared, FailOn::AnyChange), code::OK);
    assert_eq!(exit(&[], FailOn::Inconclusive), code::OK);
}

#[test]
fn any_change_gate() {
    assert_eq!(
        exit(&[Improved, Regressed], FailOn::AnyChange),
        code::REGRESSION
    );
    assert_eq!(
        exit(&[Improved, Unchanged], FailOn::AnyChange),
        code::CHANGE
    );
    // Only detected changes count: inconclusive, failed and one-sided benchmarks do not.
    assert_eq!(
        exit(
            &[Inconclusive, Failed, OnlyInBase, OnlyInHead],
            FailOn::AnyChange
        ),
        code::OK
    );
}

#[test]
fn never_gate() {
    assert_eq!(exit_code(&all_verdicts(), FailOn::Never), code::OK);
}

#[test]
fn codes_are_the_documented_numbers() {
    assert_eq!(exit_code(&all_verdicts(), FailOn::Regression), 1);
    assert_eq!(exit(&[Inconclusive], FailOn::Inconclusive), 3);
    assert_eq!(exit(&[Improved], FailOn::AnyChange), 4);
}
