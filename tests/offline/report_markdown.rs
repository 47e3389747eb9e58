//! The Markdown report: outcome in the title, bad news first, a valid GitHub table, escaped ids.

use crate::report_support;

use cargo_perfdiff::steps::analysis::Outcome;
use cargo_perfdiff::steps::report::{Format, Style, render};
use report_support::{all_verdicts, with_verdicts};

fn markdown(report: &cargo_perfdiff::steps::analysis::Report) -> String {
    render(report, Format::Markdown, &Style::plain())
}

/// Cells of a table row: split on pipes not escaped with a backslash.
fn cells(row: &str) -> usize {
    let mut count = 0;
    let mut escaped = false;
    for c in row.chars() {
        match c {
            '\\' if !escaped => escaped = true,
            '|' if !escaped => count += 1,
            _ => escaped = false,
        }
    }
    count - 1
}

#[test]
fn title_gives_the_outcome() {
    let out = markdown(&all_verdicts());
    if std::env::var_os("PERFDIFF_SHOW").is_some() {
        println!("{out}");
    }
    assert!(
        out.starts_with("## :x: 1 regression (1 failed, 1 improved)"),
        "{out}"
    );
    let clean = markdown(&with_verdicts(&[Outcome::Unchanged, Outcome::Improved]));
    assert!(
        clean.starts_with("## :white_check_mark: no regression (1 improved)"),
        "{clean}"
    );
    let failed = markdown(&with_verdicts(&[Outcome::Failed]));
    assert!(
        failed.starts_with("## :warning: no regression (1 failed)"),
        "{failed}"
    );
    let two = markdown(&with_verdicts(&[Outcome::Regressed, Outcome::Regressed]));
    assert!(two.starts_with("## :x: 2 regressions"), "{two}");
}

#[test]
fn revisions_are_named() {
    let out = markdown(&all_verdicts());
    assert!(
        out.contains(
            "Comparing base **HEAD\\~1** (0123456789) → head **HEAD** (fedcba9876) · 7 benchmarks"
        ),
        "{out}"
    );
}

#[test]
fn regressions_and_failures_come_first_the_rest_collapsed() {
    let out = markdown(&all_verdicts());
    let details = out
        .find("<details><summary>5 other benchmarks:")
        .expect("collapsed section");
    let mix = out.find("| hash/mix |").unwrap();
    let broken = out.find("| hash/broken |").unwrap();
    let steady = out.find("| hash/steady |").unwrap();
    assert!(
        mix < details && broken < details && steady > details,
        "{out}"
    );
    assert!(out.contains(
        "1 improved, 1 unchanged, 1 inconclusive, 1 only in base, 1 only in head</summary>\n\n|"
    ));
    // The stderr tail, without terminal escape codes, fenced.
    assert!(
        out.contains(
            "```text\nthread 'main' panicked at benches/hash.rs:12:5:\nindex out of bounds\n```"
        ),
        "{out}"
    );
    assert!(!out.contains('\x1b'));
    let settings = out.rfind("<sub>").unwrap();
    assert!(settings > out.rfind("</details>").unwrap());
    assert!(out[settings..].contains("seed 42"));
}

#[test]
fn tables_are_well_formed() {
    let out = markdown(&all_verdicts());
    let rows: Vec<&str> = out.lines().filter(|l| l.starts_with('|')).collect();
    assert_eq!(
        rows.len(),
        2 * 2 + 7,
        "two headers, two separators, seven rows"
    );
    for row in &rows {
        assert_eq!(cells(row), 9, "wrong cell count in {row}");
        assert!(row.ends_with('|'));
    }
    // Each table is preceded by a blank line, or GitHub does not render it.
    for (i, line) in out.lines().enumerate().skip(1) {
        if line.starts_with("| Benchmark") {
            assert_eq!(
                out.lines().nth(i - 1),
                Some(""),
                "no blank line before table at {i}"
            );
        }
    }
}

#[test]
fn ids_are_escaped() {
    let out = markdown(&all_verdicts());
    assert!(
        out.contains(r"parse\|pipe \<script\>alert(1)\</script\> \& ünïcödé \`tick\` \*bold\*"),
        "{out}"
    );
    assert!(
        !out.replace("\\<script", "").contains("<script"),
        "unescaped tag"
    );
    let mut report = with_verdicts(&[Outcome::Regressed]);
    report.benchmarks[0].id = "ping @octocat\nnext line".to_string();
    let out = markdown(&report);
    // The line break shown as `\n` (a backslash escaped for Markdown), as every report shows it.
    assert!(out.contains("ping @\u{200B}octocat\\\\nnext line"), "{out}");
}

#[test]
fn empty_report_renders() {
    let out = markdown(&with_verdicts(&[]));
    assert!(out.starts_with("## :white_check_mark: no regression"));
    assert!(!out.contains("| Benchmark"));
}

/// A job summary stays short however many benchmarks share a cause: one bounded line per cause
/// under **Notes**, and each benchmark's own words collapsed below it.
#[test]
fn many_benchmarks_of_one_cause_are_one_line_and_each_is_collapsed_below() {
    let out = markdown(&report_support::given_up_alike(42));
    let notes = &out[out.find("**Notes**").expect("notes")..];
    let items: Vec<&str> = notes
        .lines()
        .take_while(|l| !l.starts_with("<details>"))
        .filter(|l| l.starts_with("- "))
        .collect();
    // Its two causes, then the skipped bench target every test report has.
    assert_eq!(items.len(), 3, "{out}");
    assert!(items[2].contains("skipped"), "{out}");
    assert!(
        items[0].contains("(42 benchmarks; worst: **nano/41** \\[0.09, 11.75\\] after 5 rounds"),
        "{}",
        items[0]
    );
    assert!(items[0].ends_with("; every one below)"), "{}", items[0]);
    let details = &notes[notes
        .find("<details><summary>Each benchmark's warnings and notes")
        .expect("collapsed")..];
    let details = &details[..details.find("</details>").expect("closed")];
    for i in 0..42 {
        let rounds = 3 + i % 3;
        let line = format!(
            "- warning **nano/{i}**: stopped early, after {rounds} rounds: at this noise a verdict \
             would take about {} rounds in all, more than --max-forks (10) allows, so the stop \
             rule gave it up\n",
            100 * (i + 1)
        );
        assert!(details.contains(&line), "{line}");
    }
    // A report whose causes name every benchmark has nothing to collapse.
    assert!(!markdown(&all_verdicts()).contains("Each benchmark's warnings"));
}
