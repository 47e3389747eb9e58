//! Hand-made reports and samples for the reporter tests. The statistics are not called: the
//! numbers are invented but consistent (ratio = head mean / base mean, δ sign follows it).
#![allow(dead_code)]

use cargo_perfdiff::model::samples::{
    BenchmarkRecord, ForkRecord, Mode, Presence, RevisionInfo, RunInfo, SampleFile, SideRecord,
};
use cargo_perfdiff::stats::mann_whitney::Method;
use cargo_perfdiff::stats::{
    CliffsDelta, IntervalKind, Magnitude, PairedRounds, RatioInterval, Unit,
};
use cargo_perfdiff::steps::analysis::{
    BenchWarning, BenchmarkResult, ForkCounts, MannWhitneySummary, Outcome, PairedTest,
    REPORT_SCHEMA, Report, ReportSettings, Side, SideSummary, SkippedTarget, Summary,
};

/// An id with every character that could break a format.
pub const NASTY_ID: &str = "parse|pipe <script>alert(1)</script> & ünïcödé `tick` *bold*";

fn side(mean_ns: Option<f64>, forks: usize) -> SideSummary {
    SideSummary {
        mean_ns,
        forks,
        samples: forks * 30,
        warmup_dropped: forks * 2,
        unsteady_forks: 0,
        disturbed_forks: 0,
        fork_rel_sd: mean_ns.map(|_| 0.01),
        stable: Some(true),
        settings_from_code: None,
        fork_measured_ms: None,
        cpu: None,
    }
}

/// A benchmark measured on both sides with the given verdict and statistics.
pub fn measured(
    id: &str,
    verdict: Outcome,
    base_ns: f64,
    ratio: (f64, f64, f64),
    p: f64,
    delta: (f64, Magnitude),
) -> BenchmarkResult {
    BenchmarkResult {
        target: Some("hashing".to_string()),
        package: None,
        criterion_id: None,
        verdict,
        ratio: Some(interval(verdict, ratio)),
        paired: Some(paired_test(ratio.0, p)),
        change_rate: Some(ratio.0 - 1.0),
        mann_whitney: Some(MannWhitneySummary {
            u: 123.0,
            p_value: p,
            method: Method::Asymptotic,
        }),
        cliffs_delta: Some(CliffsDelta {
            delta: delta.0,
            magnitude: delta.1,
        }),
        forks: ForkCounts::new(10, 10),
        base: side(Some(base_ns), 10),
        head: side(Some(base_ns * ratio.0), 10),
        min_detectable_change: Some(0.015),
        ..BenchmarkResult::new(id, 0.02)
    }
}

/// The interval a benchmark with `verdict` reports: for `unchanged` the 90 % interval of two
/// one-sided tests at 5 % (the settings' `equivalence_alpha`), else the 99 % t interval.
fn interval(verdict: Outcome, (estimate, ci_low, ci_high): (f64, f64, f64)) -> RatioInterval {
    let (confidence, kind) = match verdict {
        Outcome::Unchanged => (0.90, IntervalKind::Equivalence),
        _ => (0.99, IntervalKind::Difference),
    };
    RatioInterval {
        estimate,
        ci_low,
        ci_high,
        confidence,
        kind,
    }
}

/// The paired test of ten rounds behind a ratio `estimate` with p-value `p` (q four times it).
fn paired_test(estimate: f64, p: f64) -> PairedTest {
    PairedTest {
        rounds: PairedRounds {
            unit: Unit::Rounds,
            n: 10,
            rounds: 10,
            mean_log: estimate.ln(),
            sd_log: 0.01,
        },
        df: 9.0,
        p_value: p,
        q_value: (p * 4.0).min(1.0),
    }
}

/// A benchmark with no comparison: only on one side, or failed.
pub fn unmeasured(
    id: &str,
    verdict: Outcome,
    base_ns: Option<f64>,
    head_ns: Option<f64>,
) -> BenchmarkResult {
    let forks = |m: Option<f64>| if m.is_some() { 10 } else { 0 };
    BenchmarkResult {
        verdict,
        forks: ForkCounts::new(forks(base_ns), forks(head_ns)),
        base: side(base_ns, forks(base_ns)),
        head: side(head_ns, forks(head_ns)),
        ..BenchmarkResult::new(id, 0.02)
    }
}

/// One benchmark of every verdict, in the order analysis sorts them.
pub fn all_verdicts() -> Report {
    let mut failed = unmeasured("hash/broken", Outcome::Failed, Some(2_000.0), None);
    failed.failure = Some(
        "head: the benchmark process exited with status 101\nthread 'main' panicked at benches/hash.rs:12:5:\n\x1b[31mindex out of bounds\x1b[0m".to_string(),
    );
    let mut inconclusive = measured(
        NASTY_ID,
        Outcome::Inconclusive,
        52_300.0,
        (1.03, 0.97, 1.09),
        0.04,
        (0.12, Magnitude::Negligible),
    );
    inconclusive.min_detectable_change = Some(0.081);
    inconclusive.warnings.push(BenchWarning::Unsteady {
        side: Side::Head,
        forks: 2,
    });
    let benchmarks = vec![
        measured(
            "hash/mix",
            Outcome::Regressed,
            1_000.0,
            (1.5, 1.47, 1.53),
            1e-6,
            (0.98, Magnitude::Large),
        ),
        failed,
        inconclusive,
        measured(
            "hash/checksum",
            Outcome::Improved,
            3.2e6,
            (0.8, 0.78, 0.82),
            2e-5,
            (-0.91, Magnitude::Large),
        ),
        measured(
            "hash/steady",
            Outcome::Unchanged,
            812.0,
            (1.001, 0.995, 1.007),
            0.61,
            (0.02, Magnitude::Negligible),
        ),
        unmeasured("hash/old", Outcome::OnlyInBase, Some(1.5e9), None),
        unmeasured("hash/new_in_head", Outcome::OnlyInHead, None, Some(640.0)),
    ];
    report_of(benchmarks)
}

/// `count` nanobenchmarks given up alike by the stop rule after 3 to 5 of 10 rounds, as on a
/// real crate whose code placement differed everywhere: `nano/i` ran `3 + i % 3` rounds, its
/// interval `[1 / w, w]` with `w = 1.5 + i / 4` grows with `i`, and a verdict would take about
/// `100 · (i + 1)` rounds in all (so the last three are the worst). Each also has its note on
/// what the noise hides.
pub fn given_up_alike(count: usize) -> Report {
    let benchmarks = (0..count)
        .map(|i| {
            let wide = 1.5 + i as f64 / 4.0;
            let mut b = measured(
                &format!("nano/{i}"),
                Outcome::Inconclusive,
                20.0,
                (1.0, 1.0 / wide, wide),
                0.5,
                (0.0, Magnitude::Negligible),
            );
            let rounds = 3 + i % 3;
            b.forks = ForkCounts::new(rounds, rounds);
            b.min_detectable_change = Some(0.2 + i as f64 / 100.0);
            b.warnings.push(BenchWarning::GaveUp {
                rounds,
                max_forks: Some(10),
                rounds_needed: Some(100 * (i + 1)),
            });
            b
        })
        .collect();
    report_of(benchmarks)
}

/// A report around `benchmarks` with fixed run information and settings.
pub fn report_of(benchmarks: Vec<BenchmarkResult>) -> Report {
    let mut summary = Summary::default();
    for b in &benchmarks {
        *match b.verdict {
            Outcome::Regressed => &mut summary.regressed,
            Outcome::Improved => &mut summary.improved,
            Outcome::Unchanged => &mut summary.unchanged,
            Outcome::Inconclusive => &mut summary.inconclusive,
            Outcome::OnlyInBase => &mut summary.only_in_base,
            Outcome::OnlyInHead => &mut summary.only_in_head,
            Outcome::Failed => &mut summary.failed,
        } += 1;
    }
    Report {
        schema: REPORT_SCHEMA.to_string(),
        run: RunInfo {
            base: Some(RevisionInfo {
                spec: "HEAD~1".to_string(),
                commit: Some("0123456789abcdef0123456789abcdef01234567".to_string()),
                dirty: false,
            }),
            head: Some(RevisionInfo {
                spec: "HEAD".to_string(),
                commit: Some("fedcba9876543210fedcba9876543210fedcba98".to_string()),
                dirty: false,
            }),
            mode: Mode::Interleaved,
            seed: Some(42),
            tool_version: Some("0.1.0".to_string()),
            ..RunInfo::default()
        },
        settings: ReportSettings {
            mode: Mode::Interleaved,
            threshold: 0.02,
            instructions_threshold: None,
            alpha: 0.01,
            equivalence_alpha: Some(0.05),
            confidence: 0.99,
            resamples: 10_000,
            fdr: true,
            seed: 42,
        },
        summary,
        benchmarks,
        skipped_targets: vec![SkippedTarget {
            package: None,
            target: "custom_harness".to_string(),
            reason: "not a criterion benchmark (harness = false without criterion)".to_string(),
        }],
        samples_file: Some("target/perfdiff/samples-HEAD~1-HEAD.json".to_string()),
        checkpoint_overhead: None,
        steal_share: None,
        cpu_wait_share: None,
        outside_benchmark: None,
    }
}

/// A report with only the given verdicts (ids `b0`, `b1`, …).
pub fn with_verdicts(verdicts: &[Outcome]) -> Report {
    let benchmarks = verdicts
        .iter()
        .enumerate()
        .map(|(i, &v)| match v {
            Outcome::OnlyInBase => unmeasured(&format!("b{i}"), v, Some(1.0), None),
            Outcome::OnlyInHead => unmeasured(&format!("b{i}"), v, None, Some(1.0)),
            Outcome::Failed => unmeasured(&format!("b{i}"), v, Some(1.0), Some(1.0)),
            _ => measured(
                &format!("b{i}"),
                v,
                100.0,
                (1.0, 0.99, 1.01),
                0.5,
                (0.0, Magnitude::Negligible),
            ),
        })
        .collect();
    report_of(benchmarks)
}

/// Deterministic noise in [-1, 1).
fn noise(i: usize) -> f64 {
    let x = ((i as f64 + 1.0) * 12.9898).sin() * 43_758.545;
    (x - x.floor()) * 2.0 - 1.0
}

/// Forks of samples around `mean_ns` with a few slow outliers, like a real benchmark.
fn side_samples(mean_ns: Option<f64>, salt: usize) -> SideRecord {
    let Some(mean) = mean_ns else {
        return SideRecord::default();
    };
    let forks = (0..10)
        .map(|f| {
            let fork_offset = 1.0 + 0.01 * noise(salt * 97 + f);
            let iters: Vec<f64> = (1..=30).map(|k| k as f64 * 10.0).collect();
            let times_ns = iters
                .iter()
                .enumerate()
                .map(|(k, it)| {
                    let i = salt * 10_007 + f * 31 + k;
                    let outlier = if k % 17 == 3 { 1.15 } else { 1.0 };
                    it * mean * fork_offset * (1.0 + 0.02 * noise(i)) * outlier
                })
                .collect();
            ForkRecord {
                iters,
                times_ns,
                round: Some(f),
                ..ForkRecord::default()
            }
        })
        .collect();
    SideRecord {
        forks,
        ..SideRecord::default()
    }
}

/// Samples consistent with `report`: each side's samples around its mean.
pub fn samples_for(report: &Report) -> SampleFile {
    let mut file = SampleFile::new(report.run.clone());
    for (i, b) in report.benchmarks.iter().enumerate() {
        let presence = match b.verdict {
            Outcome::OnlyInBase => Presence::OnlyInBase,
            Outcome::OnlyInHead => Presence::OnlyInHead,
            _ => Presence::Both,
        };
        file.benchmarks.push(BenchmarkRecord {
            id: b.id.clone(),
            target: b.target.clone(),
            package: b.package.clone(),
            criterion_id: b.criterion_id.clone(),
            presence,
            base: side_samples(b.base.mean_ns, 2 * i),
            head: side_samples(b.head.mean_ns, 2 * i + 1),
            stop: None,
            selection: None,
            harness: None,
            fork_length: None,
        });
    }
    file
}
