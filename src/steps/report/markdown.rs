//! GitHub-flavoured Markdown for a pull-request comment or `$GITHUB_STEP_SUMMARY`.
//!
//! A reviewer wants the answer in the title and the bad news right below it; everything that is
//! fine is collapsed in a `<details>` block. Every string that came from outside (ids, revision
//! names, stderr) is escaped, since an id like `a|b` would otherwise split a table cell and
//! `<script>` would become markup.

use super::notices;
use super::text::{self, outcome_label};
use crate::steps::analysis::{BenchmarkResult, Outcome, Report};

/// The Markdown report.
pub fn render(report: &Report) -> String {
    let mut out = format!("## {}\n\n", title(report));
    if let Some(comparison) = comparison(report) {
        out += &format!("{comparison}\n\n");
    }
    if let Some(warning) = text::run_warning(report) {
        // Above the results: it says how far to trust them.
        out += &format!("> :warning: {}\n\n", escape(&warning));
    }
    let (attention, rest): (Vec<&BenchmarkResult>, Vec<&BenchmarkResult>) = report
        .benchmarks
        .iter()
        .partition(|b| matches!(b.verdict, Outcome::Regressed | Outcome::Failed));
    if !attention.is_empty() {
        out += &results_table(report, &attention);
        out.push('\n');
    }
    out += &failures(&attention);
    out += &functions(report);
    if !rest.is_empty() {
        out += &format!(
            "<details><summary>{} other benchmark{}: {}</summary>\n\n",
            rest.len(),
            plural(rest.len()),
            rest_summary(&rest)
        );
        out += &results_table(report, &rest);
        out += "\n</details>\n\n";
    }
    out += &notes(report);
    out += &settings(report);
    out
}

/// `:x: 1 regression`, `:warning: no regression, 2 failed`, `:white_check_mark: no regression`.
fn title(report: &Report) -> String {
    let count = |o: Outcome| report.benchmarks.iter().filter(|b| b.verdict == o).count();
    let regressed = count(Outcome::Regressed);
    let failed = count(Outcome::Failed);
    let improved = count(Outcome::Improved);
    let mut title = if regressed > 0 {
        format!(":x: {regressed} regression{}", plural(regressed))
    } else if failed > 0 {
        ":warning: no regression".to_string()
    } else {
        ":white_check_mark: no regression".to_string()
    };
    let mut extras = Vec::new();
    if failed > 0 {
        extras.push(format!("{failed} failed"));
    }
    if improved > 0 {
        extras.push(format!("{improved} improved"));
    }
    if !extras.is_empty() {
        title += &format!(" ({})", extras.join(", "));
    }
    title + " — cargo-perfdiff"
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// `Comparing `HEAD~1` (1a2b3c4d5e) → `HEAD` (…) · 4 benchmarks`.
fn comparison(report: &Report) -> Option<String> {
    let side = |info: Option<&crate::model::samples::RevisionInfo>| {
        info.map_or("?".to_string(), |i| {
            let mut s = format!("**{}**", escape(&i.spec));
            if let Some(commit) = &i.commit {
                s += &format!(" ({})", escape(commit.get(..10).unwrap_or(commit)));
            }
            if i.dirty {
                s += " + uncommitted changes";
            }
            s
        })
    };
    (report.run.base.is_some() || report.run.head.is_some()).then(|| {
        format!(
            "Comparing base {} → head {} · {} benchmark{}",
            side(report.run.base.as_ref()),
            side(report.run.head.as_ref()),
            report.benchmarks.len(),
            plural(report.benchmarks.len())
        )
    })
}

fn rest_summary(rest: &[&BenchmarkResult]) -> String {
    text::SUMMARY_ORDER
        .iter()
        .map(|&o| (o, rest.iter().filter(|b| b.verdict == o).count()))
        .filter(|&(_, n)| n > 0)
        .map(|(o, n)| format!("{n} {}", outcome_label(o)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn results_table(report: &Report, results: &[&BenchmarkResult]) -> String {
    let p_header = if report.settings.fdr { "p (q)" } else { "p" };
    let layouts = report.layouts_measured();
    let (layout_header, layout_rule) = if layouts {
        (" Layout ± |", "--:|")
    } else {
        ("", "")
    };
    let mut out = format!(
        "| Benchmark | Base | Head | Change | Ratio {} CI |{layout_header} {p_header} | Cliff's δ | Forks | Verdict |\n",
        text::percent(text::difference_level(&report.settings))
    );
    out += &format!("|:--|--:|--:|--:|:-:|{layout_rule}--:|:--|--:|:--|\n");
    let several_packages = report.several_packages();
    for b in results {
        let name = match (&b.package, several_packages) {
            (Some(package), true) => {
                format!("{} ({})", escape(&text::id_line(&b.id)), escape(package))
            }
            _ => escape(&text::id_line(&b.id)),
        };
        let mut cells = vec![
            name,
            text::mean_in(b.base.mean_ns, b.unit.as_deref()),
            text::mean_in(b.head.mean_ns, b.unit.as_deref()),
            text::change(b.change_rate),
            text::ratio_ci(b.ratio.as_ref()),
            text::p_and_q(b, report.settings.fdr),
            text::delta(b.cliffs_delta.as_ref()),
            text::forks(b),
            format!("{} {}", emoji(b.verdict), text::verdict_label(b)),
        ];
        if layouts {
            cells.insert(5, text::layout_spread(b));
        }
        out += &format!("| {} |\n", cells.join(" | "));
    }
    out
}

/// For every changed benchmark whose instructions were counted by function, the functions
/// behind the change, all of them, in a table: name, where, and self and inclusive instructions
/// per iteration in base and head.
fn functions(report: &Report) -> String {
    let mut out = String::new();
    for b in report.benchmarks.iter().filter(|b| !b.functions.is_empty()) {
        out += &format!(
            "**Functions behind {} {}** (instructions per iteration, most changed first):\n\n",
            escape(&text::id_line(&b.id)),
            outcome_label(b.verdict)
        );
        out += "| Function | Where | Self base | Self head | Change | Inclusive base | Inclusive head |\n";
        out += "|:--|:--|--:|--:|--:|--:|--:|\n";
        for f in &b.functions {
            let place = match (&f.file, f.line) {
                (Some(file), Some(line)) => format!("`{}:{line}`", escape(file)),
                (Some(file), None) => format!("`{}`", escape(file)),
                _ => String::new(),
            };
            out += &format!(
                "| `{}` | {place} | {} | {} | {} | {} | {} |\n",
                f.name.replace('`', "'").replace('|', "\\|"),
                text::instructions(f.base.self_),
                text::instructions(f.head.self_),
                text::function_change(f),
                text::instructions(f.base.inclusive),
                text::instructions(f.head.inclusive),
            );
        }
        out.push('\n');
    }
    out
}

fn emoji(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Regressed => ":red_circle:",
        Outcome::Improved => ":green_circle:",
        Outcome::Unchanged => ":white_circle:",
        Outcome::Inconclusive => ":yellow_circle:",
        Outcome::Failed => ":warning:",
        Outcome::OnlyInBase => ":heavy_minus_sign:",
        Outcome::OnlyInHead => ":heavy_plus_sign:",
    }
}

/// Each failure with its stderr tail in a collapsed code block.
fn failures(results: &[&BenchmarkResult]) -> String {
    let mut out = String::new();
    for b in results {
        let Some(failure) = &b.failure else { continue };
        let failure = text::sanitize(failure);
        let (first, tail) = failure.split_once('\n').unwrap_or((&failure, ""));
        out += &format!(
            "**{}** failed: {}\n",
            escape(&text::id_line(&b.id)),
            escape(first)
        );
        if !tail.trim().is_empty() {
            out += &format!(
                "<details><summary>stderr</summary>\n\n{}\n</details>\n",
                fenced(tail)
            );
        }
        out.push('\n');
    }
    out
}

/// Warnings and skipped targets as a list; empty when there are none.
fn notes(report: &Report) -> String {
    let mut items: Vec<String> = text::interval_legend(report)
        .map(|l| escape(&l))
        .into_iter()
        .collect();
    let notices = notices::benchmark_notices(report);
    for notice in &notices {
        items.push(notice_item(notice));
    }
    for note in text::run_notes(report) {
        items.push(escape(&note));
    }
    let several_packages = report.several_packages();
    for skipped in &report.skipped_targets {
        items.push(format!(
            "bench target **{}** skipped: {}",
            escape(&skipped.label(several_packages)),
            escape(&skipped.reason.replace('\n', " "))
        ));
    }
    if items.is_empty() {
        return String::new();
    }
    let mut out = "**Notes**\n\n".to_string();
    for item in items {
        out += &format!("- {item}\n");
    }
    out + "\n" + &every_benchmark(&notices)
}

/// A benchmark notice as a list item: escaped, its ids in bold, a cause shared by many bounded
/// to the worst few like the table's.
fn notice_item(notice: &notices::Notice) -> String {
    let escaped = notices::Notice {
        shared_message: escape(&notice.shared_message),
        benchmarks: notice
            .benchmarks
            .iter()
            .map(|entry| notices::Entry {
                message: escape(&entry.message),
                figure: entry.figure.as_deref().map(escape),
                ..entry.clone()
            })
            .collect(),
        ..notice.clone()
    };
    notices::notice_line(
        &escaped,
        |id| format!("**{}**", escape(id)),
        EVERY_ONE_BELOW,
    )
}

/// Where a bounded notice's other benchmarks are in the Markdown.
const EVERY_ONE_BELOW: &str = "every one below";

/// Each benchmark of the notices that name only some, with its own words, collapsed: a job
/// summary stays short and loses nothing.
fn every_benchmark(notices: &[notices::Notice]) -> String {
    if !notices::any_bounded(notices) {
        return String::new();
    }
    let mut out = "<details><summary>Each benchmark's warnings and notes</summary>\n\n".to_string();
    for notice in notices
        .iter()
        .filter(|n| n.benchmarks.len() > notices::NAMED)
    {
        for entry in &notice.benchmarks {
            out += &format!(
                "- {} **{}**: {}\n",
                notice.kind.as_str(),
                escape(&text::id_line(&entry.id)),
                escape(&entry.message)
            );
        }
    }
    out + "\n</details>\n\n"
}

fn settings(report: &Report) -> String {
    let mut line = format!(
        "<sub>Ratio = head / base (> 1: head slower). {}",
        escape(&text::settings_line(&report.settings))
    );
    if let Some(time) = text::time_line(report) {
        line += &format!(" · {}", escape(&time));
    }
    if let Some(version) = &report.run.tool_version {
        line += &format!(" · cargo-perfdiff {}", escape(version));
    }
    line + "</sub>\n"
}

/// `text` in a code fence longer than any run of backticks inside it.
fn fenced(body: &str) -> String {
    let longest_run = body.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat((longest_run + 1).max(3));
    format!("{fence}text\n{}\n{fence}\n", body.trim_end())
}

/// Escapes Markdown and HTML metacharacters so that `raw` renders literally, on one line, inside
/// a table cell or a list item. Backslash escapes work for every ASCII punctuation character in
/// CommonMark; characters that only matter at the start of a line (`#`, `-`) or after an escaped
/// one (`(` after `]`, `!` before `[`) are left alone. `~` is escaped (GFM strikethrough);
/// `|` must be escaped even inside code spans in GFM tables. GitHub links `@name` after
/// rendering, whatever the escaping, so a zero-width space follows every `@`.
pub fn escape(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    for c in text::sanitize(raw).chars() {
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '<' | '>' | '~' | '&' | '$' => {
                out.push('\\');
                out.push(c);
            }
            '@' => out.push_str("@\u{200B}"),
            '\n' | '\t' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}
