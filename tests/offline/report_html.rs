//! The HTML page: self-contained, one plot per benchmark with samples, ids escaped.
//! Set `PERFDIFF_HTML_OUT=FILE` to keep the page (for `scripts/check_html.sh`).

use crate::report_support;

use cargo_perfdiff::model::samples::SampleFile;
use cargo_perfdiff::steps::analysis::Outcome;
use cargo_perfdiff::steps::report::render_html;
use report_support::{NASTY_ID, all_verdicts, samples_for};

fn page() -> String {
    let report = all_verdicts();
    let html = render_html(&report, &samples_for(&report));
    if let Some(path) = std::env::var_os("PERFDIFF_HTML_OUT") {
        std::fs::write(path, &html).expect("write PERFDIFF_HTML_OUT");
    }
    html
}

#[test]
fn one_plot_with_data_per_benchmark() {
    let html = page();
    let report = all_verdicts();
    let plots: Vec<&str> = html.split("<svg class=\"bench-plot\"").skip(1).collect();
    // Every benchmark of the fixture has samples on at least one side.
    assert_eq!(plots.len(), report.benchmarks.len());
    for plot in plots {
        let plot = &plot[..plot.find("</svg>").expect("closed svg")];
        assert!(
            plot.matches("<circle").count() >= 30,
            "plot without points: {plot:.200}"
        );
    }
    assert_eq!(html.matches("<svg").count(), html.matches("</svg>").count());
}

#[test]
fn benchmark_without_samples_gets_no_plot() {
    let report = all_verdicts();
    let html = render_html(&report, &SampleFile::new(report.run.clone()));
    assert_eq!(html.matches("class=\"bench-plot\"").count(), 0);
    assert_eq!(
        html.matches("No samples to plot").count(),
        report.benchmarks.len()
    );
}

#[test]
fn ratio_ci_is_drawn_against_the_threshold_band() {
    let html = page();
    // Overview plus one ratio panel per benchmark with a ratio.
    let with_ratio = all_verdicts()
        .benchmarks
        .iter()
        .filter(|b| b.ratio.is_some())
        .count();
    assert_eq!(html.matches("<rect class=\"band\"").count(), 1 + with_ratio);
    assert!(html.contains("relevance threshold ±2 %"));
    assert!(html.contains("ratio 1.5000, 99 % CI [1.47, 1.53]"));
}

#[test]
fn ids_are_escaped() {
    let html = page();
    assert!(!html.contains("<script"), "an id injected markup");
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(html.contains("parse|pipe"));
    assert!(html.contains("ünïcödé"));
    assert!(!html.contains('\x1b'), "stderr escape codes leaked");
    assert!(html.contains("index out of bounds"));
}

#[test]
fn page_is_self_contained() {
    let html = page();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.trim_end().ends_with("</html>"));
    for forbidden in ["http://", "https://", "<link", "<img", "@import", "url("] {
        assert!(!html.contains(forbidden), "external reference {forbidden}");
    }
}

#[test]
fn summary_and_settings_are_shown() {
    let html = page();
    assert!(html.contains("1 regression"));
    assert!(html.contains("HEAD~1 (0123456789) → HEAD (fedcba9876)"));
    assert!(html.contains("seed 42"));
    assert!(html.contains("target/perfdiff/samples-HEAD~1-HEAD.json"));
    for outcome in [Outcome::OnlyInBase, Outcome::OnlyInHead] {
        assert!(html.contains(&outcome.as_str().replace('_', " ")));
    }
    assert!(html.contains(NASTY_ID.split('<').next().unwrap()));
}

#[test]
fn degenerate_samples_draw_without_nan() {
    use cargo_perfdiff::model::samples::ForkRecord;
    let report = report_support::with_verdicts(&[Outcome::Unchanged, Outcome::Unchanged]);
    let mut samples = samples_for(&report);
    // Identical times on both sides; a single sample on one side.
    let constant = ForkRecord {
        iters: vec![1.0; 5],
        times_ns: vec![100.0; 5],
        ..ForkRecord::default()
    };
    samples.benchmarks[0].base.forks = vec![constant.clone()];
    samples.benchmarks[0].head.forks = vec![constant];
    samples.benchmarks[1].head.forks = vec![ForkRecord {
        iters: vec![1.0],
        times_ns: vec![0.0],
        ..ForkRecord::default()
    }];
    let html = render_html(&report, &samples);
    for bad in ["NaN", "=\"inf", "=\"-inf"] {
        assert!(!html.contains(bad), "non-finite coordinate {bad}");
    }
    assert_eq!(html.matches("class=\"bench-plot\"").count(), 2);
}

#[test]
fn huge_sample_counts_are_thinned() {
    use cargo_perfdiff::model::samples::ForkRecord;
    let report = report_support::with_verdicts(&[Outcome::Unchanged]);
    let mut samples = samples_for(&report);
    let big = ForkRecord {
        iters: vec![1.0; 50_000],
        times_ns: (0..50_000).map(|i| 100.0 + (i % 97) as f64).collect(),
        ..ForkRecord::default()
    };
    samples.benchmarks[0].base.forks = vec![big.clone()];
    samples.benchmarks[0].head.forks = vec![big];
    let html = render_html(&report, &samples);
    let circles = html.matches("<circle").count();
    assert!(circles <= 2 * 1500 + 10, "{circles} points drawn");
    assert!(html.len() < 1_000_000, "page of {} bytes", html.len());
}

#[test]
fn a_card_says_which_settings_the_benchmark_code_chose() {
    let mut report = all_verdicts();
    report.benchmarks[0].head.settings_from_code =
        Some(cargo_perfdiff::steps::analysis::SettingsFromCode {
            sample_size: Some(12),
            ..Default::default()
        });
    let html = render_html(&report, &samples_for(&report));
    assert!(
        html.contains(
            "<li>its bench code sets head: sample size 12, which criterion prefers to \
             cargo-perfdiff&#39;s --sample-size</li>"
        ),
        "{html}"
    );
}

/// The page keeps each benchmark's own warnings on its card, however many share a cause.
#[test]
fn each_card_keeps_its_own_warnings() {
    let report = report_support::given_up_alike(42);
    let html = render_html(&report, &samples_for(&report));
    for i in 0..42 {
        let warning = format!(
            "<li>stopped early, after {} rounds: at this noise a verdict would take about {} \
             rounds in all, more than --max-forks (10) allows, so the stop rule gave it up</li>",
            3 + i % 3,
            100 * (i + 1)
        );
        assert!(html.contains(&warning), "nano/{i}: {warning}");
    }
}

#[test]
fn a_duet_run_that_left_duet_says_so_under_the_headline() {
    use cargo_perfdiff::model::samples::{Mode, ModeChange};
    assert!(!page().contains("class=\"run-warning\""));
    let mut report = all_verdicts();
    report.run.mode = Mode::Duet;
    report.settings.mode = Mode::Duet;
    report.run.mode_change = Some(ModeChange {
        asked: Mode::Duet,
        used: Mode::Interleaved,
        from_round: 2,
        shared_round: 1,
        cpu_wait_share: 0.145,
        limit: 0.02,
        cpus: Vec::new(),
        repinned: Vec::new(),
    });
    let html = render_html(&report, &samples_for(&report));
    let header = &html[..html.find("</header>").expect("a header")];
    assert!(
        header.contains(
            "<p class=\"run-warning\">duet: in round 2 the forks waited for a CPU 14.5 % of the \
             time they were ready to run (limit 2 %)"
        ) && header.contains("the rounds from 3 on are interleaved"),
        "{header}"
    );
}
