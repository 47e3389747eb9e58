//! A bisection's report as text for the terminal, Markdown, JSON and a self-contained HTML page:
//! the answer first (each changed benchmark's culprit with its subject and diff stat, or the range
//! it was narrowed to), then every step (the commit measured against GOOD, the ratio CI, the
//! verdict, the forks and the time), then the commits skipped.

use super::search::Direction;
use super::{BenchmarkResult, BisectReport, NotConfirmed, StepBenchmark, StepKind, StepRecord};
use crate::steps::report::{Format, escape_html, escape_markdown};

/// The report in `format`.
pub fn render(report: &BisectReport, format: Format) -> String {
    match format {
        Format::Table => text(report),
        Format::Markdown => markdown(report),
        Format::Json => {
            let mut json = serde_json::to_string_pretty(report).unwrap_or_default();
            json.push('\n');
            json
        }
    }
}

pub fn direction_word(direction: Direction) -> &'static str {
    match direction {
        Direction::Regressed => "regressed",
        Direction::Improved => "improved",
    }
}

/// One line saying what was found.
fn headline(report: &BisectReport) -> String {
    let found = report
        .results
        .iter()
        .filter(|r| r.culprit.is_some())
        .count();
    match report.verdict.as_str() {
        "culprit" => format!(
            "found the culprit of {found} change(s) between {} and {} ({} commits, {} steps)",
            report.good.short(),
            report.bad.short(),
            report.commits,
            report.steps.len()
        ),
        "range" => format!(
            "{} of {} change(s) between {} and {} narrowed to a range only ({} commits, {} steps)",
            report.results.len() - found,
            report.results.len(),
            report.good.short(),
            report.bad.short(),
            report.commits,
            report.steps.len()
        ),
        _ => format!(
            "no selected benchmark changed between {} and {}: nothing to bisect",
            report.good.short(),
            report.bad.short()
        ),
    }
}

fn result_lines(result: &BenchmarkResult) -> Vec<String> {
    let ratio = result
        .ratio
        .map(|r| format!(" (GOOD→BAD ×{:.3})", r[0]))
        .unwrap_or_default();
    let mut lines = Vec::new();
    match &result.culprit {
        Some(culprit) => {
            lines.push(format!(
                "{} {}{ratio} first at {} {}",
                result.id,
                direction_word(result.direction),
                culprit.sha,
                culprit.subject
            ));
        }
        None => {
            lines.push(format!(
                "{} {}{ratio} somewhere in {} commit(s): {}",
                result.id,
                direction_word(result.direction),
                result.candidates.len(),
                result.unresolved.as_deref().unwrap_or("")
            ));
            for commit in &result.candidates {
                lines.push(format!("  {} {}", commit.short(), commit.subject));
            }
        }
    }
    lines
}

fn ratio_cell(benchmark: &StepBenchmark) -> String {
    match benchmark.ratio {
        Some([estimate, low, high]) => format!("{estimate:.3} [{low:.3}, {high:.3}]"),
        None => "–".to_string(),
    }
}

/// The rows of the step table: one per benchmark of a step (one for a skipped step).
fn step_rows(step: &StepRecord) -> Vec<[String; 7]> {
    let what = match step.kind {
        StepKind::Confirm => "confirm".to_string(),
        StepKind::Search => step.number.to_string(),
    };
    let time = format!("{:.1} s", step.wall_ms as f64 / 1000.0);
    let head = format!("GOOD vs {}", step.head.short());
    if let Some(reason) = &step.skipped {
        return vec![[
            what,
            head,
            "–".to_string(),
            "–".to_string(),
            // The compiler's error is in the list of skipped commits below the table.
            format!("skipped: {}", reason.split(" (").next().unwrap_or(reason)),
            "–".to_string(),
            time,
        ]];
    }
    step.benchmarks
        .iter()
        .map(|b| {
            [
                what.clone(),
                head.clone(),
                b.id.clone(),
                ratio_cell(b),
                match b.same_code {
                    true => format!("{} (same code)", b.verdict),
                    false => format!("{} (±{:.0} %)", b.verdict, b.threshold * 100.0),
                },
                if b.attempts > 1 {
                    format!("{} ({} attempts)", b.forks, b.attempts)
                } else {
                    b.forks.to_string()
                },
                time.clone(),
            ]
        })
        .collect()
}

const HEADER: [&str; 7] = [
    "step",
    "commits",
    "benchmark",
    "ratio [CI]",
    "verdict",
    "forks",
    "time",
];

fn text(report: &BisectReport) -> String {
    let mut out = format!("{}\n\n", headline(report));
    for result in &report.results {
        for line in result_lines(result) {
            out += &format!("{line}\n");
        }
        if let Some(stat) = &result.diff_stat {
            for line in stat.lines() {
                out += &format!("  {line}\n");
            }
        }
        out += "\n";
    }
    for NotConfirmed { id, verdict } in &report.not_confirmed {
        out += &format!("{id}: {verdict} between GOOD and BAD, not searched\n");
    }
    let rows: Vec<[String; 7]> = report.steps.iter().flat_map(step_rows).collect();
    let widths: Vec<usize> = (0..7)
        .map(|c| {
            rows.iter()
                .map(|r| r[c].chars().count())
                .chain([HEADER[c].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: Vec<&str>| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(cell, &w)| format!("{cell:<w$}"))
            .collect();
        padded.join("  ").trim_end().to_string() + "\n"
    };
    out += "\n";
    out += &line(HEADER.to_vec());
    for row in &rows {
        out += &line(row.iter().map(String::as_str).collect());
    }
    out += &skipped_and_levels(report);
    out
}

fn skipped_and_levels(report: &BisectReport) -> String {
    let mut out = String::new();
    for skipped in &report.skipped {
        out += &format!(
            "\nskipped {} {:?}: {}",
            skipped.commit.short(),
            skipped.commit.subject,
            skipped.reason
        );
    }
    if !report.skipped.is_empty() {
        out += "\n";
    }
    out += &format!(
        "\neach decision at alpha {:.2e} (confirmation) and {:.2e} (search): the chance that any \
         culprit or range named is wrong is at most {} (docs/bisect.md)\nsamples of every step: {} \
         (`cargo perfdiff report` re-analyses one)\n",
        report.levels.confirm_alpha, report.levels.search_alpha, report.levels.alpha, report.dir
    );
    out
}

fn markdown(report: &BisectReport) -> String {
    let mut out = format!(
        "### cargo-perfdiff bisect\n\n**{}**\n\n",
        escape_markdown(&headline(report))
    );
    for result in &report.results {
        let lines = result_lines(result);
        out += &format!("- {}\n", escape_markdown(&lines[0]));
        for line in &lines[1..] {
            out += &format!("  - {}\n", escape_markdown(line.trim()));
        }
        if let Some(stat) = &result.diff_stat {
            out += &format!("\n  ```\n{}  ```\n", indent(stat, "  "));
        }
    }
    for NotConfirmed { id, verdict } in &report.not_confirmed {
        out += &format!(
            "- {}: {verdict} between GOOD and BAD, not searched\n",
            escape_markdown(id)
        );
    }
    out += "\n| ";
    out += &HEADER.join(" | ");
    out += " |\n|";
    out += &" --- |".repeat(HEADER.len());
    out += "\n";
    for step in &report.steps {
        for row in step_rows(step) {
            let cells: Vec<String> = row.iter().map(|c| escape_markdown(c)).collect();
            out += &format!("| {} |\n", cells.join(" | "));
        }
    }
    for line in skipped_and_levels(report).lines().filter(|l| !l.is_empty()) {
        out += &format!("\n{}\n", escape_markdown(line));
    }
    out
}

fn indent(text: &str, prefix: &str) -> String {
    text.lines().map(|l| format!("{prefix}{l}\n")).collect()
}

/// A self-contained page: the answer and the table of steps, nothing loaded from elsewhere.
pub fn html(report: &BisectReport) -> String {
    let mut body = format!(
        "<h1>cargo-perfdiff bisect</h1>\n<p><strong>{}</strong></p>\n",
        escape_html(&headline(report))
    );
    for result in &report.results {
        let lines = result_lines(result);
        body += &format!(
            "<h2>{}</h2>\n<p>{}</p>\n",
            escape_html(&result.id),
            escape_html(&lines[0])
        );
        if lines.len() > 1 {
            body += "<ul>\n";
            for line in &lines[1..] {
                body += &format!("<li><code>{}</code></li>\n", escape_html(line.trim()));
            }
            body += "</ul>\n";
        }
        if let Some(stat) = &result.diff_stat {
            body += &format!("<pre>{}</pre>\n", escape_html(stat));
        }
    }
    body += "<h2>Steps</h2>\n<table>\n<tr>";
    for h in HEADER {
        body += &format!("<th>{h}</th>");
    }
    body += "</tr>\n";
    for step in &report.steps {
        for row in step_rows(step) {
            body += "<tr>";
            for cell in &row {
                body += &format!("<td>{}</td>", escape_html(cell));
            }
            body += "</tr>\n";
        }
    }
    body += "</table>\n";
    body += &format!(
        "<pre>{}</pre>\n",
        escape_html(skipped_and_levels(report).trim())
    );
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>cargo-perfdiff bisect {}..{}</title>\n\
         <style>body{{font-family:sans-serif;max-width:70em;margin:2em auto}}table{{border-collapse:collapse}}\
         td,th{{border:1px solid #ccc;padding:.2em .5em;text-align:left}}</style>\n</head>\n<body>\n{body}</body>\n</html>\n",
        escape_html(report.good.short()),
        escape_html(report.bad.short())
    )
}
