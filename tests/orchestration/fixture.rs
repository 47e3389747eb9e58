//! The deterministic benchmark fixture itself: cargo-perfdiff takes it for criterion, its
//! samples are the same in every run of a test, and what `benchmarks.txt` sets (a true ratio, a
//! spread, an outlier fork, a drift, a failure) is what a run records.

use std::path::Path;

use crate::bench_fixture::*;
use crate::support::*;

/// `--stop fixed --forks N`, the tests' tiny settings and one layout, the report as JSON.
fn fixed<'a>(forks: &'a str, samples: &'a str, filters: &[&'a str]) -> Vec<&'a str> {
    let mut args = fixed_args(forks, samples);
    args.push("--");
    args.extend_from_slice(filters);
    args
}

/// The fork means (ns an iteration) of `id` on `side` in a samples file, in fork order.
fn fork_means(samples: &Path, id: &str, side: &str) -> Vec<f64> {
    forks_of(samples, id, side).iter().map(mean_of).collect()
}

/// Every fork's samples of `id`, both sides, from a samples file.
fn all_times(samples: &Path, id: &str) -> serde_json::Value {
    let times = |side: &str| -> Vec<serde_json::Value> {
        forks_of(samples, id, side)
            .iter()
            .map(|f| f["times_ns"].clone())
            .collect()
    };
    serde_json::json!({"base": times("base"), "head": times("head")})
}

#[test]
fn the_fixture_is_criterion_and_reports_the_same_samples_in_every_run() {
    let mut runs = Vec::new();
    for _ in 0..2 {
        let (dir, repo) = fixture_repo(&strong());
        let listed = fixture_perfdiff(&repo, &["HEAD~1", "HEAD", "--list"]);
        let text = String::from_utf8_lossy(&listed.stdout).into_owned();
        assert!(
            text.lines().any(
                |l| l.starts_with("hash/mix ") && l.ends_with("(bench target demo, criterion)")
            ),
            "{text}{}",
            stderr(&listed)
        );
        let samples = dir.path().join("run.json");
        let output = fixture_perfdiff(&repo, &fixed("3", samples.to_str().unwrap(), &["hash/mix"]));
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let report = json_report(&output);
        assert_eq!(verdict_of(&report, "hash/mix"), "regressed", "{report:#}");
        runs.push((dir, samples));
    }
    let (first, second) = (
        all_times(&runs[0].1, "hash/mix"),
        all_times(&runs[1].1, "hash/mix"),
    );
    assert_eq!(first, second, "the same test, the same samples");
    // The true ratio is the one set (mix: 5000 ns, twice in head), each fork within its spread.
    let base = fork_means(&runs[0].1, "hash/mix", "base");
    let head = fork_means(&runs[0].1, "hash/mix", "head");
    assert_eq!(base.len(), 3, "{base:?}");
    for (b, h) in base.iter().zip(&head) {
        assert!((4900.0..5100.0).contains(b), "{base:?}");
        assert!((9800.0..10200.0).contains(h), "{head:?}");
    }
    assert_ne!(base[0], base[1], "forks differ by their spread: {base:?}");
}

#[test]
fn an_outlier_fork_and_a_drift_are_what_the_run_records() {
    let (dir, repo) = fixture_repo(&unchanged());
    set_benchmark(&repo, "hash/steady ns=4000 spread=0 outlier=2:3");
    set_benchmark(&repo, "hash/slight ns=8000 spread=0 drift=0.1");
    commit_all(&repo, "an outlier and a drift");
    let samples = dir.path().join("run.json");
    let output = fixture_perfdiff(
        &repo,
        &fixed("4", samples.to_str().unwrap(), &["steady", "slight"]),
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let steady = fork_means(&samples, "hash/steady", "head");
    assert_eq!(steady.len(), 4, "{steady:?}");
    for (fork, mean) in steady.iter().enumerate() {
        let expected = if fork == 2 { 12_000.0 } else { 4000.0 };
        assert!(
            (mean / expected - 1.0).abs() < 0.01,
            "fork {fork}: {steady:?}"
        );
    }
    let slight = fork_means(&samples, "hash/slight", "head");
    for (fork, mean) in slight.iter().enumerate() {
        let expected = 8000.0 * 1.1f64.powi(fork as i32);
        assert!(
            (mean / expected - 1.0).abs() < 0.01,
            "fork {fork}: {slight:?}"
        );
    }
}

#[test]
fn a_fork_that_fails_fails_its_benchmark_and_the_others_are_compared() {
    let (_dir, repo) = fixture_repo(&strong());
    set_benchmark(&repo, "hash/checksum ns=3000 panic=all");
    commit_all(&repo, "checksum panics");
    let args = [
        &["HEAD~2", "HEAD", "--format", "json"][..],
        &["--stop", "fixed", "--forks", "3"],
        FAST,
        ONE_LAYOUT,
        &["--", "hash/checksum", "hash/mix"],
    ]
    .concat();
    let output = fixture_perfdiff(&repo, &args);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "a regression exits 1: {err}");
    let report = json_report(&output);
    assert_eq!(verdict_of(&report, "hash/checksum"), "failed", "{report:#}");
    assert_eq!(verdict_of(&report, "hash/mix"), "regressed", "{report:#}");
    // The report names the fork that failed, how, and what it printed.
    let failure = bench_entry(&report, "hash/checksum")["failure"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        failure.starts_with("head: benchmark `hash/checksum`") && failure.contains("panicked"),
        "{failure}"
    );
    assert!(
        failure.contains("fork 0 fails, as benchmarks.txt says"),
        "{failure}"
    );
}
