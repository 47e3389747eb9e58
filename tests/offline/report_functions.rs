//! The functions behind a change in every format: three under the row in the table, all of them
//! in Markdown (names escaped), a differential view in HTML, the `functions` array in JSON.

use crate::report_support;

use cargo_perfdiff::model::profile::{FunctionChange, Instructions};
use cargo_perfdiff::steps::analysis::{Outcome, Report};
use cargo_perfdiff::steps::report::{Format, Style, render, render_html};
use report_support::{samples_for, with_verdicts};

fn change(name: &str, base: f64, head: f64) -> FunctionChange {
    FunctionChange {
        name: name.to_string(),
        file: Some("src/lib.rs".to_string()),
        line: Some(19),
        base: Instructions {
            self_: base,
            inclusive: base + 10.0,
        },
        head: Instructions {
            self_: head,
            inclusive: head + 10.0,
        },
    }
}

/// A regression with five functions behind it (one with a name that could break Markdown),
/// and an unchanged benchmark without any.
fn report() -> Report {
    let mut report = with_verdicts(&[Outcome::Regressed, Outcome::Unchanged]);
    report.benchmarks[0].functions = vec![
        change("mix", 13_013.0, 26_013.0),
        change("<T as a|b>::render", 0.0, 400.0),
        change("parse", 500.0, 300.0),
        change("fourth", 20.0, 30.0),
        change("fifth", 10.0, 12.0),
    ];
    report
}

#[test]
fn the_table_lists_three_functions_under_the_changed_row() {
    let out = render(&report(), Format::Table, &Style::plain());
    let lines: Vec<&str> = out.lines().collect();
    let row = lines
        .iter()
        .position(|l| l.contains("regressed"))
        .expect("the regressed row");
    assert!(lines[row + 1].contains("↳ mix"), "{out}");
    assert!(lines[row + 1].contains("13,013") && lines[row + 1].contains("26,013"));
    assert!(lines[row + 1].contains("+99.9 %"), "{out}");
    assert!(lines[row + 2].contains("↳ <T as a|b>::render") && lines[row + 2].contains("new"));
    assert!(lines[row + 3].contains("↳ parse") && lines[row + 3].contains("-40.0 %"));
    assert!(!out.contains("fourth"), "three at most: {out}");
    assert!(
        !lines[row + 1].contains("regressed"),
        "no verdict on a function's row"
    );
}

#[test]
fn markdown_lists_every_function_in_a_well_formed_table() {
    let out = render(&report(), Format::Markdown, &Style::plain());
    assert!(out.contains("Functions behind"), "{out}");
    let rows: Vec<&str> = out.lines().filter(|l| l.starts_with("| `")).collect();
    assert_eq!(rows.len(), 5, "{out}");
    assert!(rows[0].contains("`mix`") && rows[0].contains("`src/lib.rs:19`"));
    assert!(rows[1].contains("a\\|b"), "the pipe escaped: {}", rows[1]);
    assert!(out.contains("fifth"), "all of them: {out}");
}

#[test]
fn html_shows_a_differential_view_and_json_the_array() {
    let report = report();
    let html = render_html(&report, &samples_for(&report));
    assert_eq!(html.matches("<table class=\"functions\"").count(), 1);
    assert!(html.contains("&lt;T as a|b&gt;::render"), "escaped");
    assert!(
        html.contains("#d73a49") && html.contains("#28a745"),
        "more and less work"
    );
    let json: serde_json::Value =
        serde_json::from_str(&render(&report, Format::Json, &Style::plain())).unwrap();
    let functions = json["benchmarks"][0]["functions"].as_array().unwrap();
    assert_eq!(functions.len(), 5);
    assert_eq!(functions[0]["name"], "mix");
    assert_eq!(functions[0]["file"], "src/lib.rs");
    assert_eq!(functions[0]["line"], 19);
    assert_eq!(functions[0]["base"]["self"], 13_013.0);
    assert_eq!(functions[0]["head"]["inclusive"], 26_023.0);
    assert!(json["benchmarks"][1].get("functions").is_none());
}
