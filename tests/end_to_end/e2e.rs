//! End to end: the installed binary, run as `cargo perfdiff`, on the demo repository with each
//! criterion version whose command line differs (0.3, 0.4, 0.8), measured for real. What a
//! comparison does with its measurements (report, exit code, samples file, an uncommitted edit,
//! errors) is tested on the deterministic fixture, in `orchestration::compare`.

use crate::support;

use cargo_perfdiff::orchestrate::demo::DemoOptions;
use support::*;

fn fast_args<'a>(args: &[&'a str]) -> Vec<&'a str> {
    with_options(args, FAST)
}

/// The demo with criterion `version` finds the 2× change of hash/mix, and its forks measured for
/// `measured_ms` as criterion itself reports it (the tests ask for 0.2 s). One code layout: what
/// differs between criterion versions is the command line, not the build.
fn assert_criterion_version_works(version: &str, measured_ms: f64) {
    let guard = measuring_lock();
    let options = DemoOptions {
        criterion_version: Some(version.to_string()),
        ..strong_changes()
    };
    let (_dir, repo) = shared_demo_with(&guard, &options, "", |_| {});
    let output = cargo_perfdiff(
        &repo,
        &fast_args(&[
            "HEAD~1",
            "HEAD",
            "--stop",
            "fixed",
            "--forks",
            "5",
            "--layouts",
            "1",
            "--format",
            "json",
            "--",
            "hash/mix",
        ]),
    );
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(verdict_of(&report, "hash/mix"), "regressed");
    assert_eq!(report["benchmarks"].as_array().unwrap().len(), 1);
    let samples = report["samples_file"].as_str().expect("samples path");
    let samples: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(samples).unwrap()).unwrap();
    for side in ["base", "head"] {
        for fork in samples["benchmarks"][0][side]["forks"].as_array().unwrap() {
            assert_eq!(
                fork["config"]["measurement_ms"].as_f64(),
                Some(measured_ms),
                "criterion {version}, {side}: {fork}"
            );
        }
    }
}

#[test]
fn criterion_0_8_benchmarks_work_too() {
    assert_criterion_version_works("0.8", 200.0);
}

/// Criterion 0.4 has neither `--exact` nor `--list --format terse`, but takes fractions of a
/// second.
#[test]
fn criterion_0_4_benchmarks_work_too() {
    assert_criterion_version_works("0.4", 200.0);
}

/// Criterion 0.3 has neither `--exact` nor `--list --format terse`, and takes whole seconds only.
#[test]
fn criterion_0_3_benchmarks_work_too() {
    assert_criterion_version_works("0.3", 1000.0);
}
