//! The terminal table: one row per benchmark, then what the rows cannot say (warnings, failures,
//! skipped targets, settings).
//!
//! A table wider than the terminal wraps into an unreadable mess, so when the width is known the
//! least important columns are dropped first (forks, p-values, effect size, means) until it fits;
//! only then are long ids wrapped.

use comfy_table::{
    Attribute, Cell, CellAlignment, Color, ColumnConstraint, ContentArrangement, Table,
    TableComponent, Width, presets,
};

use super::Style;
use super::text::{self, outcome_label};
use crate::analysis::{BenchmarkResult, Outcome, Report};

/// One column: its header, how to fill a cell, and how readily it is dropped (higher = later).
struct Column {
    header: String,
    keep_priority: u8,
    right_aligned: bool,
    cell: fn(&BenchmarkResult, &Report) -> String,
}

fn columns(report: &Report) -> Vec<Column> {
    let column = |header: String, keep_priority, right_aligned, cell| Column {
        header,
        keep_priority,
        right_aligned,
        cell,
    };
    let mut columns = vec![
        column("benchmark".into(), 9, false, |b, _| text::id_line(&b.id)),
        column("base".into(), 3, true, |b, _| {
            text::mean_in(b.base.mean_ns, b.unit.as_deref())
        }),
        column("head".into(), 4, true, |b, _| {
            text::mean_in(b.head.mean_ns, b.unit.as_deref())
        }),
        column("change".into(), 8, true, |b, _| text::change(b.change_rate)),
        column(
            format!("ratio {} CI", text::percent(report.settings.confidence)),
            6,
            false,
            |b, _| text::ratio_ci(b.ratio.as_ref()),
        ),
        column(
            if report.settings.fdr { "p (q)" } else { "p" }.into(),
            1,
            true,
            |b, r| text::p_and_q(b, r.settings.fdr),
        ),
        column("Cliff's δ".into(), 2, false, |b, _| {
            text::delta(b.cliffs_delta.as_ref())
        }),
        column("forks".into(), 0, true, |b, _| text::forks(b)),
        column("verdict".into(), 9, false, |b, _| {
            outcome_label(b.verdict).to_string()
        }),
    ];
    // Several layouts measured: how far each benchmark moves between them, after the interval.
    if report.layouts_measured() {
        let spread = column("layout ±".into(), 5, true, |b, _| text::layout_spread(b));
        let after_interval = columns.len() - 4;
        columns.insert(after_interval, spread);
    }
    // Benchmarks of several packages: each row names its package, after the id.
    if report.several_packages() {
        let package = column("package".into(), 7, false, |b, _| {
            text::id_line(b.package.as_deref().unwrap_or("?"))
        });
        columns.insert(1, package);
    }
    columns
}

/// The full terminal report.
pub fn render(report: &Report, style: &Style) -> String {
    let mut out = String::new();
    if let Some(comparison) = text::comparison(report) {
        out += &text::sanitize(&comparison);
        out.push('\n');
    }
    if report.benchmarks.is_empty() {
        out += "no benchmarks to report\n";
    } else {
        for line in fitted_table(report, style).lines() {
            out += line.trim_end();
            out.push('\n');
        }
    }
    out += &paint(&text::summary_line(report), summary_color(report), style);
    out.push('\n');
    out += &footer(report);
    out
}

/// The table with as many columns as fit `style.width`. Ids longer than a third of the width
/// are wrapped rather than costing everyone else's columns.
fn fitted_table(report: &Report, style: &Style) -> Table {
    let mut columns = columns(report);
    let mut table = build_table(report, &columns, style);
    let Some(width) = style.width else {
        return table;
    };
    let id_budget = (width / 3).max(20);
    while natural_width(&mut table, id_budget) > usize::from(width) {
        let Some(drop) = least_important(&columns) else {
            break;
        };
        columns.remove(drop);
        table = build_table(report, &columns, style);
    }
    if natural_width(&mut table, u16::MAX) > usize::from(width) {
        let id_width = column_width(&mut table, 0).min(
            width.saturating_sub((natural_width(&mut table, 0)).min(usize::from(u16::MAX)) as u16),
        );
        table
            .set_content_arrangement(ContentArrangement::Dynamic)
            .set_width(width);
        if let Some(id_column) = table.column_mut(0) {
            id_column.set_constraint(ColumnConstraint::UpperBoundary(Width::Fixed(
                id_width.max(id_budget),
            )));
        }
    }
    table
}

fn column_width(table: &mut Table, index: usize) -> u16 {
    table
        .column_max_content_widths()
        .get(index)
        .copied()
        .unwrap_or(0)
}

/// Index of the column to drop next, never the id, change or verdict.
fn least_important(columns: &[Column]) -> Option<usize> {
    columns
        .iter()
        .enumerate()
        .filter(|(_, c)| c.keep_priority < 8)
        .min_by_key(|(_, c)| c.keep_priority)
        .map(|(i, _)| i)
}

/// Width of the table with the id column at most `id_budget` wide: contents plus one space of
/// padding each side (the style draws no vertical lines).
fn natural_width(table: &mut Table, id_budget: u16) -> usize {
    let mut widths = table.column_max_content_widths();
    if let Some(id) = widths.first_mut() {
        *id = (*id).min(id_budget);
    }
    widths.iter().map(|w| usize::from(*w) + 2).sum()
}

fn build_table(report: &Report, columns: &[Column], style: &Style) -> Table {
    let mut table = Table::new();
    table
        .load_preset(presets::UTF8_HORIZONTAL_ONLY)
        .set_style(TableComponent::HeaderLines, '─')
        .set_style(TableComponent::MiddleHeaderIntersections, '─')
        .set_content_arrangement(ContentArrangement::Disabled)
        .force_no_tty();
    for component in [
        TableComponent::LeftBorder,
        TableComponent::RightBorder,
        TableComponent::VerticalLines,
        TableComponent::HorizontalLines,
        TableComponent::MiddleIntersections,
        TableComponent::LeftBorderIntersections,
        TableComponent::RightBorderIntersections,
        TableComponent::LeftHeaderIntersection,
        TableComponent::RightHeaderIntersection,
        TableComponent::TopLeftCorner,
        TableComponent::TopRightCorner,
        TableComponent::BottomLeftCorner,
        TableComponent::BottomRightCorner,
    ] {
        table.remove_style(component);
    }
    if style.color {
        table.enforce_styling();
    }
    table.set_header(columns.iter().map(|c| {
        let cell = Cell::new(&c.header);
        let cell = if style.color {
            cell.add_attribute(Attribute::Bold)
        } else {
            cell
        };
        align(cell, c.right_aligned)
    }));
    for result in &report.benchmarks {
        table.add_row(columns.iter().map(|c| {
            let cell = align(Cell::new((c.cell)(result, report)), c.right_aligned);
            if c.header == "verdict" && style.color {
                style_verdict(cell, result.verdict)
            } else {
                cell
            }
        }));
    }
    table
}

fn align(cell: Cell, right: bool) -> Cell {
    if right {
        cell.set_alignment(CellAlignment::Right)
    } else {
        cell
    }
}

/// The colour a verdict is shown in; `None` for plain text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Paint {
    Red,
    Green,
    Yellow,
    Dim,
}

fn verdict_paint(outcome: Outcome) -> Option<Paint> {
    match outcome {
        Outcome::Regressed => Some(Paint::Red),
        Outcome::Improved => Some(Paint::Green),
        Outcome::Inconclusive | Outcome::Failed => Some(Paint::Yellow),
        Outcome::Unchanged => Some(Paint::Dim),
        Outcome::OnlyInBase | Outcome::OnlyInHead => None,
    }
}

fn style_verdict(cell: Cell, outcome: Outcome) -> Cell {
    match verdict_paint(outcome) {
        Some(Paint::Red) => cell.fg(Color::Red).add_attribute(Attribute::Bold),
        Some(Paint::Green) => cell.fg(Color::Green),
        Some(Paint::Yellow) => cell.fg(Color::Yellow),
        Some(Paint::Dim) => cell.add_attribute(Attribute::Dim),
        None => cell,
    }
}

/// The summary line is coloured like its worst verdict.
fn summary_color(report: &Report) -> Option<Paint> {
    let worst = report.benchmarks.iter().map(|b| b.verdict).min()?;
    verdict_paint(worst)
}

/// `line` in `paint` when colour is on; untouched otherwise.
fn paint(line: &str, paint: Option<Paint>, style: &Style) -> String {
    let code = match paint {
        Some(_) if !style.color => return line.to_string(),
        Some(Paint::Red) => "1;31",
        Some(Paint::Green) => "32",
        Some(Paint::Yellow) => "33",
        Some(Paint::Dim) => "2",
        None => return line.to_string(),
    };
    format!("\x1b[{code}m{line}\x1b[0m")
}

/// Warnings, failures, skipped targets, settings, samples path: one item per line.
fn footer(report: &Report) -> String {
    let mut out = String::new();
    for notice in text::benchmark_notices(report) {
        let line = text::notice_line(&notice, text::id_line);
        out += &format!("{}: {}\n", notice.kind.as_str(), text::sanitize(&line));
    }
    for result in report.benchmarks.iter().filter(|b| b.failure.is_some()) {
        out += &failure_block(result);
    }
    let several_packages = report.several_packages();
    for skipped in &report.skipped_targets {
        out += &format!(
            "skipped bench target `{}`: {}\n",
            text::id_line(&skipped.label(several_packages)),
            text::sanitize(&skipped.reason)
        );
    }
    for note in text::run_notes(report) {
        out += &format!("note: {note}\n");
    }
    if let Some(time) = text::time_line(report) {
        out += &format!("time: {time}\n");
    }
    out += &format!("settings: {}\n", text::settings_line(&report.settings));
    if let Some(path) = &report.samples_file {
        out += &format!("samples: {}\n", text::sanitize(path));
    }
    out
}

/// `failed: id: head: message`, then the stderr tail indented.
fn failure_block(result: &BenchmarkResult) -> String {
    let failure = text::sanitize(result.failure.as_deref().unwrap_or_default());
    let mut lines = failure.lines();
    let mut out = format!(
        "failed: {}: {}\n",
        text::id_line(&result.id),
        lines.next().unwrap_or("")
    );
    for line in lines {
        out += &format!("    │ {line}\n");
    }
    out
}
