//! The terminal table: one row per benchmark, then what the rows cannot say (warnings, failures,
//! skipped targets, settings).
//!
//! Users judge the tool by this screen, and a row wider than the terminal wraps mid-number and
//! puts the verdict on the next line. So the table never wraps: when the width is known (always,
//! from the CLI: see [`super::Style::resolve`]), optional columns are dropped in [`DROP_ORDER`]
//! until it fits, then long benchmark ids are shortened in the middle with an ellipsis. The id,
//! change, interval and verdict always stay; everything dropped is still in the JSON and HTML.
//! On a terminal the prose under the table is wrapped between words at the same width.

use comfy_table::{
    Attribute, Cell, CellAlignment, Color, ContentArrangement, Table, TableComponent, presets,
};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use super::Style;
use super::notices;
use super::text;
use crate::model::profile::FunctionChange;
use crate::steps::analysis::{BenchmarkResult, Outcome, Report};

/// The optional columns, in the order they are dropped when the table is too wide (documented in
/// docs/reports.md): how many forks ran, the test statistics, the layout spread (a warning
/// under the table names a change it makes inconclusive), then the means, which a newcomer
/// reads first, and the package. `benchmark`, `change`, the ratio CI and `verdict` are never
/// dropped.
pub const DROP_ORDER: [&str; 7] = [
    "forks",
    "p (q)",
    "Cliff's δ",
    "layout ±",
    "base",
    "head",
    "package",
];

/// The functions listed under the row of a changed benchmark whose instructions were counted by
/// function (all of them are in Markdown, HTML and JSON).
pub const TABLE_FUNCTIONS: usize = 3;

/// The narrowest a shortened id gets, so that `benchmark` and a few characters of each end stay.
const MIN_ID_WIDTH: usize = 12;
/// The widest a package name is shown when the width is limited.
const MAX_PACKAGE_WIDTH: usize = 16;

/// What a column shows, as far as fitting and colouring it goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Id,
    Package,
    Verdict,
    Other,
}

/// One column with its cells already rendered, so that fitting works on their widths.
struct Column {
    header: String,
    /// Position in [`DROP_ORDER`]; `None` for a column that is never dropped.
    drop_rank: Option<usize>,
    kind: Kind,
    right_aligned: bool,
    rows: Vec<String>,
}

/// A row of the table: a benchmark's, or one of the functions listed under it.
#[derive(Debug, Clone, Copy)]
struct Row {
    result: usize,
    function: Option<usize>,
}

/// The rows of the table: each benchmark, then the first [`TABLE_FUNCTIONS`] of its functions.
fn rows(report: &Report) -> Vec<Row> {
    report
        .benchmarks
        .iter()
        .enumerate()
        .flat_map(|(result, b)| {
            let functions = (0..b.functions.len().min(TABLE_FUNCTIONS)).map(Some);
            std::iter::once(None)
                .chain(functions)
                .map(move |function| Row { result, function })
        })
        .collect()
}

/// The cell of a function's row under `header`: its name (indented, under the id), its self
/// instructions per iteration in base and head, and their change; nothing elsewhere.
fn function_cell(header: &str, change: &FunctionChange) -> String {
    match header {
        "benchmark" => format!("  ↳ {}", text::sanitize(&change.name)),
        "base" => text::instructions(change.base.self_),
        "head" => text::instructions(change.head.self_),
        "change" => text::function_change(change),
        _ => String::new(),
    }
}

impl Column {
    fn new(
        report: &Report,
        header: impl Into<String>,
        kind: Kind,
        right_aligned: bool,
        cell: impl Fn(&BenchmarkResult) -> String,
    ) -> Self {
        let header = header.into();
        let rows = rows(report)
            .into_iter()
            .map(|row| {
                let result = &report.benchmarks[row.result];
                match row.function {
                    None => cell(result),
                    Some(f) => function_cell(&header, &result.functions[f]),
                }
            })
            .collect();
        Column {
            drop_rank: drop_rank(&header),
            header,
            kind,
            right_aligned,
            rows,
        }
    }

    /// Display width of the widest cell, header included.
    fn width(&self) -> usize {
        self.rows
            .iter()
            .chain(std::iter::once(&self.header))
            .map(|text| text.width())
            .max()
            .unwrap_or(0)
    }

    /// Shortens every cell wider than `width` in the middle.
    fn shorten_to(&mut self, width: usize) {
        for row in &mut self.rows {
            *row = shorten_middle(row, width);
        }
    }
}

/// Position of the column named `header` in [`DROP_ORDER`].
fn drop_rank(header: &str) -> Option<usize> {
    DROP_ORDER.iter().position(|h| *h == header)
}

fn columns(report: &Report) -> Vec<Column> {
    use Kind::{Id, Other, Package, Verdict};
    let column = |header: &str, kind, right, cell: fn(&BenchmarkResult) -> String| {
        Column::new(report, header, kind, right, cell)
    };
    let fdr = report.settings.fdr;
    let mut columns = vec![
        column("benchmark", Id, false, |b| text::id_line(&b.id)),
        column("base", Other, true, |b| {
            text::mean_in(b.base.mean_ns, b.unit.as_deref())
        }),
        column("head", Other, true, |b| {
            text::mean_in(b.head.mean_ns, b.unit.as_deref())
        }),
        column("change", Other, true, |b| text::change(b.change_rate)),
        column(
            &format!(
                "ratio {} CI",
                text::percent(text::difference_level(&report.settings))
            ),
            Other,
            false,
            |b| text::ratio_ci(b.ratio.as_ref()),
        ),
        Column {
            // Without FDR control the header is `p`; the column drops all the same.
            drop_rank: drop_rank("p (q)"),
            ..Column::new(report, if fdr { "p (q)" } else { "p" }, Other, true, |b| {
                text::p_and_q(b, fdr)
            })
        },
        column("Cliff's δ", Other, false, |b| {
            text::delta(b.cliffs_delta.as_ref())
        }),
        column("forks", Other, true, text::forks),
        column("verdict", Verdict, false, text::verdict_label),
    ];
    // Several layouts measured: how far each benchmark moves between them, after the interval.
    if report.layouts_measured() {
        let spread = column("layout ±", Other, true, text::layout_spread);
        let after_interval = columns.len() - 4;
        columns.insert(after_interval, spread);
    }
    // Benchmarks of several packages: each row names its package, after the id.
    if report.several_packages() {
        let package = column("package", Package, false, |b| {
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
        for line in build_table(report, &fitted_columns(report, style), style).lines() {
            out += line.trim_end();
            out.push('\n');
        }
    }
    let wrap =
        |line: &str| crate::util::terminal::wrap_words(line, style.width.filter(|_| style.wrap));
    out += &paint(
        &wrap(&text::summary_line(report)),
        summary_color(report),
        style,
    );
    out.push('\n');
    out += &footer(report, &wrap);
    out
}

/// The columns that fit `style.width`, ids shortened to what is left for them; every column
/// at its natural width when the width is unknown.
fn fitted_columns(report: &Report, style: &Style) -> Vec<Column> {
    let mut columns = columns(report);
    let Some(width) = style.width.map(usize::from) else {
        return columns;
    };
    for column in columns.iter_mut().filter(|c| c.kind == Kind::Package) {
        column.shorten_to(MAX_PACKAGE_WIDTH);
    }
    // An id may take up to a third of the width before columns are dropped for it.
    let id_budget = (width / 3).max(20);
    while table_width(&columns, id_budget) > width {
        let Some(drop) = next_to_drop(&columns) else {
            break;
        };
        columns.remove(drop);
    }
    let others = table_width(&columns, 0) - padding();
    let id_width = width.saturating_sub(others + padding()).max(MIN_ID_WIDTH);
    for column in columns.iter_mut().filter(|c| c.kind == Kind::Id) {
        column.shorten_to(id_width);
    }
    columns
}

/// Index of the column to drop next, by [`DROP_ORDER`]; `None` when only essential ones are left.
fn next_to_drop(columns: &[Column]) -> Option<usize> {
    columns
        .iter()
        .enumerate()
        .filter_map(|(i, c)| Some((c.drop_rank?, i)))
        .min()
        .map(|(_, i)| i)
}

/// Padding comfy-table puts around each cell: one space each side.
fn padding() -> usize {
    2
}

/// Width of the table with the id column at most `id_budget` wide: the cells, their padding, and
/// the blank column comfy-table draws between two columns (where the header rule has its
/// intersections).
fn table_width(columns: &[Column], id_budget: usize) -> usize {
    let cells: usize = columns
        .iter()
        .map(|c| match c.kind {
            Kind::Id => c.width().min(id_budget),
            _ => c.width(),
        })
        .map(|w| w + padding())
        .sum();
    cells + columns.len().saturating_sub(1)
}

/// `text` at most `width` columns wide: the start and the end kept and `…` between them, so a
/// shortened id still shows its group and its parameter.
fn shorten_middle(text: &str, width: usize) -> String {
    if text.width() <= width {
        return text.to_string();
    }
    let room = width.saturating_sub(1);
    // The end gets the odd column: it holds the parameter that tells benchmarks of a group apart.
    let tail_room = room - room / 2;
    let head = take_width(text.chars(), room / 2);
    let tail: String = take_width(text.chars().rev(), tail_room)
        .chars()
        .rev()
        .collect();
    format!("{head}…{tail}")
}

/// The longest prefix of `chars` at most `width` columns wide.
fn take_width(chars: impl Iterator<Item = char>, width: usize) -> String {
    let mut used = 0;
    chars
        .take_while(|c| {
            used += c.width().unwrap_or(0);
            used <= width
        })
        .collect()
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
    for (i, row) in rows(report).into_iter().enumerate() {
        let result = &report.benchmarks[row.result];
        table.add_row(columns.iter().map(|c| {
            let cell = align(Cell::new(&c.rows[i]), c.right_aligned);
            if c.kind == Kind::Verdict && style.color && row.function.is_none() {
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

/// Warnings, failures, skipped targets, settings, samples path: one item per line, each passed
/// through `wrap` (a failure's output tail is shown as it came).
fn footer(report: &Report, wrap: &impl Fn(&str) -> String) -> String {
    let mut lines: Vec<String> = text::interval_legend(report)
        .iter()
        .map(|l| wrap(l))
        .collect();
    if let Some(warning) = text::run_warning(report) {
        lines.push(wrap(&format!("warning: {warning}")));
    }
    for notice in notices::benchmark_notices(report) {
        let line = notices::notice_line(&notice, text::id_line, EVERY_ONE);
        lines.push(wrap(&format!(
            "{}: {}",
            notice.kind.as_str(),
            text::sanitize(&line)
        )));
    }
    for result in report.benchmarks.iter().filter(|b| b.failure.is_some()) {
        lines.push(failure_block(result).trim_end().to_string());
    }
    let several_packages = report.several_packages();
    for skipped in &report.skipped_targets {
        lines.push(wrap(&format!(
            "skipped bench target `{}`: {}",
            text::id_line(&skipped.label(several_packages)),
            text::sanitize(&skipped.reason)
        )));
    }
    for note in text::run_notes(report) {
        lines.push(wrap(&format!("note: {note}")));
    }
    for line in fork_length_lines(report) {
        lines.push(wrap(&line));
    }
    if let Some(time) = text::time_line(report) {
        lines.push(wrap(&format!("time: {time}")));
    }
    if let Some(detail) = text::time_detail_line(report).filter(|_| explained(report)) {
        lines.push(wrap(&format!("time, phase by phase: {detail}")));
    }
    lines.push(wrap(&format!(
        "settings: {}",
        text::settings_line(&report.settings)
    )));
    if let Some(path) = &report.samples_file {
        lines.push(format!("samples: {}", text::sanitize(path)));
    }
    lines.into_iter().map(|line| line + "\n").collect()
}

/// Whether the run was made with `--explain` (its recorded settings say).
fn explained(report: &Report) -> bool {
    let explain = report
        .run
        .settings
        .as_ref()
        .and_then(|s| s.get("explain"))
        .and_then(serde_json::Value::as_bool);
    explain == Some(true)
}

/// With `--explain`, each benchmark whose forks got another length than the default after the
/// first rounds, with why (`fork_length` in the JSON, for every benchmark), and how many kept it.
fn fork_length_lines(report: &Report) -> Vec<String> {
    if !explained(report) {
        return Vec::new();
    }
    let chosen: Vec<_> = report
        .benchmarks
        .iter()
        .filter_map(|b| Some((b, b.fork_length.as_ref()?)))
        .collect();
    let mut lines: Vec<String> = chosen
        .iter()
        .filter(|(_, c)| c.measurement_ms != c.default_ms)
        .map(|(b, c)| {
            format!(
                "fork length: {}: {:.0} ms from round {} instead of {:.0} ms: {}",
                text::id_line(&b.id),
                c.measurement_ms,
                c.from_round + 1,
                c.default_ms,
                text::sanitize(&c.why)
            )
        })
        .collect();
    let kept = chosen
        .iter()
        .filter(|(_, c)| c.measurement_ms == c.default_ms)
        .count();
    if kept > 0 {
        lines.push(format!(
            "fork length: {kept} benchmark(s) kept the default measurement time (reasons in \
             --format json, `fork_length`)"
        ));
    }
    lines
}

/// Where a notice that names only the worst of its benchmarks sends the user for the others.
const EVERY_ONE: &str = "every one in --format json and --html";

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_text_keeps_both_ends_around_an_ellipsis() {
        assert_eq!(shorten_middle("hash/mix", 12), "hash/mix");
        let short = shorten_middle("combinations_with_replacement/nth/1024", 16);
        assert_eq!(short, "combina…nth/1024");
        assert_eq!(short.width(), 16);
        // Wide characters count double and are never cut in half.
        let wide = shorten_middle("ベンチマーク/とても長い名前", 11);
        assert!(wide.width() <= 11 && wide.contains('…'), "{wide}");
    }
}
