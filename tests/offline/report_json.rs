//! The JSON report's contract: the paths CI scripts rely on (documented in docs/reports.md).

use crate::report_support;

use cargo_perfdiff::steps::analysis::Report;
use cargo_perfdiff::steps::report::{Format, Style, render};
use report_support::{NASTY_ID, all_verdicts};
use serde_json::Value;

fn json() -> Value {
    let text = render(&all_verdicts(), Format::Json, &Style::plain());
    serde_json::from_str(&text).expect("the JSON report parses")
}

fn number(value: &Value, pointer: &str) -> f64 {
    value
        .pointer(pointer)
        .and_then(Value::as_f64)
        .unwrap_or_else(|| panic!("{pointer} is not a number in {value}"))
}

#[test]
fn top_level_fields() {
    let v = json();
    assert_eq!(v["schema"], "perfdiff-report/2");
    assert!(v["benchmarks"].is_array());
    assert_eq!(v["summary"]["regressed"], 1);
    assert_eq!(v["summary"]["only_in_head"], 1);
    assert_eq!(v["settings"]["threshold"], 0.02);
    assert_eq!(v["settings"]["seed"], 42);
    assert_eq!(v["run"]["base"]["spec"], "HEAD~1");
    assert_eq!(
        v["samples_file"],
        "target/perfdiff/samples-HEAD~1-HEAD.json"
    );
}

#[test]
fn every_benchmark_has_id_verdict_and_forks() {
    let v = json();
    let verdicts = [
        "regressed",
        "improved",
        "unchanged",
        "inconclusive",
        "only_in_base",
        "only_in_head",
        "failed",
    ];
    let benchmarks = v["benchmarks"].as_array().unwrap();
    assert_eq!(benchmarks.len(), 7);
    for b in benchmarks {
        assert!(b["id"].is_string(), "{b}");
        let verdict = b["verdict"].as_str().unwrap();
        assert!(verdicts.contains(&verdict), "unknown verdict {verdict}");
        assert!(
            b["forks"]["base"].is_u64() && b["forks"]["head"].is_u64(),
            "{b}"
        );
    }
    let seen: Vec<&str> = benchmarks
        .iter()
        .map(|b| b["verdict"].as_str().unwrap())
        .collect();
    for verdict in verdicts {
        assert!(seen.contains(&verdict), "{verdict} not covered");
    }
    assert!(benchmarks.iter().any(|b| b["id"] == NASTY_ID));
}

#[test]
fn measured_benchmarks_carry_the_statistics() {
    let v = json();
    let mix = &v["benchmarks"][0];
    assert_eq!(mix["id"], "hash/mix");
    assert_eq!(mix["verdict"], "regressed");
    assert_eq!(number(mix, "/ratio/estimate"), 1.5);
    assert_eq!(number(mix, "/ratio/ci_low"), 1.47);
    assert_eq!(number(mix, "/ratio/ci_high"), 1.53);
    assert_eq!(number(mix, "/ratio/confidence"), 0.99);
    assert_eq!(mix["ratio"]["kind"], "difference");
    assert_eq!(mix["paired"]["unit"], "rounds");
    assert_eq!(number(mix, "/paired/n"), 10.0);
    assert_eq!(number(mix, "/paired/df"), 9.0);
    assert_eq!(number(mix, "/paired/p_value"), 1e-6);
    assert_eq!(number(mix, "/paired/q_value"), 4e-6);
    assert!((number(mix, "/change_rate") - 0.5).abs() < 1e-12);
    assert_eq!(number(mix, "/mann_whitney/u"), 123.0);
    assert_eq!(number(mix, "/mann_whitney/p_value"), 1e-6);
    assert_eq!(number(mix, "/cliffs_delta/delta"), 0.98);
    assert_eq!(mix["cliffs_delta"]["magnitude"], "large");
    assert_eq!(number(mix, "/base/mean_ns"), 1000.0);
    assert_eq!(number(mix, "/threshold"), 0.02);
    let improved = v["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["verdict"] == "improved")
        .unwrap();
    assert!(
        number(improved, "/change_rate") < 0.0 && number(improved, "/cliffs_delta/delta") < 0.0
    );
}

#[test]
fn unmeasured_benchmarks_omit_the_statistics() {
    let v = json();
    for b in v["benchmarks"].as_array().unwrap() {
        if ["only_in_base", "only_in_head", "failed"].contains(&b["verdict"].as_str().unwrap()) {
            for absent in [
                "ratio",
                "paired",
                "change_rate",
                "mann_whitney",
                "cliffs_delta",
            ] {
                assert!(b.get(absent).is_none(), "{absent} present in {b}");
            }
        }
    }
    let failed = v["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["verdict"] == "failed")
        .unwrap();
    assert!(
        failed["failure"]
            .as_str()
            .unwrap()
            .contains("index out of bounds")
    );
}

#[test]
fn round_trips_into_the_same_report() {
    let report = all_verdicts();
    let text = render(&report, Format::Json, &Style::plain());
    let back: Report = serde_json::from_str(&text).unwrap();
    // Compared field by field: without serde_json's `float_roundtrip` feature a parsed float may
    // differ from the written one in the last bit.
    assert_eq!(back.benchmarks.len(), report.benchmarks.len());
    for (b, r) in back.benchmarks.iter().zip(&report.benchmarks) {
        assert_eq!((&b.id, b.verdict, b.forks), (&r.id, r.verdict, r.forks));
        assert_eq!(b.ratio.is_some(), r.ratio.is_some());
    }
    assert_eq!(
        (back.settings, back.summary, back.run),
        (
            report.settings.clone(),
            report.summary.clone(),
            report.run.clone()
        )
    );
    assert!(text.ends_with("}\n"));
}

/// Each warning is its sentence in JSON, as before warnings had causes, for every benchmark of
/// a cause the table bounds.
#[test]
fn each_benchmarks_warnings_are_sentences_in_the_json() {
    let report = report_support::given_up_alike(42);
    let v: serde_json::Value =
        serde_json::from_str(&render(&report, Format::Json, &Style::plain())).unwrap();
    let benchmarks = v["benchmarks"].as_array().unwrap();
    assert_eq!(benchmarks.len(), 42);
    for (i, b) in benchmarks.iter().enumerate() {
        assert_eq!(
            b["warnings"],
            serde_json::json!([format!(
                "stopped early, after {} rounds: at this noise a verdict would take about {} \
                 rounds in all, more than --max-forks (10) allows, so the stop rule gave it up",
                3 + i % 3,
                100 * (i + 1)
            )]),
            "{b}"
        );
    }
}
