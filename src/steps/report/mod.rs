//! Reporters: an analysed [`Report`] in, text out, plus the process exit code.
//!
//! Every format is a pure function of the report (and, for HTML, the raw samples): no I/O, no
//! clocks, no environment. That keeps them trivially testable with hand-made reports and lets
//! `cargo perfdiff report` re-render any saved run identically. Deciding *whether* to colour or how
//! wide the terminal is happens once, in [`Style::detect`], at the edge.
//!
//! - [`Format::Table`] — the terminal view (comfy-table): one row per benchmark at any width,
//!   optional columns dropped in [`DROP_ORDER`] and long ids shortened to fit.
//! - [`Format::Json`] — the machine contract, `serde_json` of [`Report`] (schema in
//!   `docs/reports.md`).
//! - [`Format::Markdown`] — a pull-request comment / `$GITHUB_STEP_SUMMARY`: regressions first,
//!   everything else collapsed.
//! - [`render_html`] — one self-contained page with inline SVG plots of the samples.
//! - [`render_listing`] — `--list`: the benchmarks a run would measure, without a report.

mod calibration;
mod html;
mod json;
mod listing;
mod markdown;
mod notices;
mod table;
mod text;
mod time;

use crate::model::policy::FailOn;
use crate::steps::analysis::{Outcome, Report};
use crate::util::exit_code as code;

use crate::util::terminal::{Stream, terminal_columns};
pub use calibration::render_calibration;
pub use html::escape as escape_html;
pub use html::render_html;
pub use listing::render_listing;
pub use markdown::escape as escape_markdown;
pub use table::DROP_ORDER;
pub use text::{
    id_line, median_fork_rel_sd, mode_change_sentence, noisy_forks_note, outcome_label,
    rounds_to_reveal_threshold,
};

/// Output format of the report on stdout (`--format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// A table for the terminal.
    #[default]
    Table,
    /// The full report as JSON (a stable schema, see docs/reports.md).
    Json,
    /// GitHub-flavoured Markdown for a pull-request comment or `$GITHUB_STEP_SUMMARY`.
    Markdown,
}

/// How the terminal output may look.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Style {
    /// Use ANSI colours. When false the output contains no escape sequence at all.
    pub color: bool,
    /// Width to fit the table in; `None` renders every column at its natural width.
    pub width: Option<u16>,
    /// Wrap the notes under the table between words at `width`: on a terminal, which would
    /// otherwise break them mid-word. Piped or in a file each note stays one line, for grep and
    /// for log viewers that wrap lines themselves.
    pub wrap: bool,
}

/// The width the table is fitted to when the report does not go to a terminal (a pipe, a file,
/// a CI log) and `COLUMNS` is not set: the width clap wraps `--help` at when it cannot tell, wide
/// enough for a benchmark's id, change, interval, verdict and both means.
pub const PIPED_WIDTH: u16 = 100;

/// What decides the [`Style`]: where the report goes and the environment, gathered in one place
/// so that the decision itself ([`Style::resolve`]) is a pure function.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Destination {
    /// The report is written to a terminal (not to a pipe or a file).
    pub terminal: bool,
    /// `NO_COLOR`: any non-empty value turns colour off (<https://no-color.org>).
    pub no_color: Option<String>,
    /// `TERM`: `dumb` turns colour off.
    pub term: Option<String>,
    /// `COLUMNS`: when it is a positive number, the width, terminal or not.
    pub columns: Option<String>,
    /// The terminal's own width (the kernel's window size), when it is one.
    pub window_columns: Option<u16>,
}

impl Destination {
    /// Stdout, or a file (`--output`) when `to_file`, with this process's environment.
    pub fn detect(to_file: bool) -> Self {
        use std::io::IsTerminal;
        let terminal = !to_file && std::io::stdout().is_terminal();
        let var = |name| std::env::var_os(name).map(|v| v.to_string_lossy().into_owned());
        Destination {
            terminal,
            no_color: var("NO_COLOR"),
            term: var("TERM"),
            columns: var("COLUMNS"),
            window_columns: if terminal {
                terminal_columns(Stream::Stdout)
            } else {
                None
            },
        }
    }
}

impl Style {
    /// No colour, natural width: for files, pipes and tests.
    pub fn plain() -> Self {
        Style::default()
    }

    /// The style of a report written to stdout, or to a file when `to_file`.
    pub fn detect(to_file: bool) -> Self {
        Style::resolve(&Destination::detect(to_file))
    }

    /// Colour only on a terminal, without a non-empty `NO_COLOR` and with a `TERM` other than
    /// `dumb`. The width is `COLUMNS` when set, else the terminal's, else [`PIPED_WIDTH`]: always
    /// known, so the table never wraps (a terminal wraps a row mid-number, and the verdict lands
    /// on the next line). Notes are wrapped on a terminal only.
    pub fn resolve(destination: &Destination) -> Self {
        let no_color = destination
            .no_color
            .as_deref()
            .is_some_and(|v| !v.is_empty());
        let dumb = destination.term.as_deref() == Some("dumb");
        let columns = destination
            .columns
            .as_deref()
            .and_then(|c| c.trim().parse::<u16>().ok())
            .filter(|&c| c > 0);
        let window = destination.window_columns.filter(|_| destination.terminal);
        Style {
            color: destination.terminal && !no_color && !dumb,
            width: Some(columns.or(window).unwrap_or(PIPED_WIDTH)),
            wrap: destination.terminal,
        }
    }
}

/// Renders `report` in `format`; `style` only matters for [`Format::Table`].
pub fn render(report: &Report, format: Format, style: &Style) -> String {
    match format {
        Format::Table => table::render(report, style),
        Format::Json => json::render(report),
        Format::Markdown => markdown::render(report),
    }
}

/// The process exit code for `report` under the gate `fail_on` (codes in
/// [`crate::util::exit_code`]):
///
/// | `--fail-on`    | 1 when          | otherwise                                   |
/// |----------------|-----------------|---------------------------------------------|
/// | `regression`   | any regressed   | 0                                           |
/// | `inconclusive` | any regressed   | 3 if any inconclusive or failed, or none    |
/// |                |                 | compared (each on one side only), else 0    |
/// | `any-change`   | any regressed   | 4 if any improved, else 0                   |
/// | `never`        | —               | 0                                           |
///
/// `any-change` counts only *detected* changes: inconclusive, failed, and benchmarks present on
/// one side only do not make it fail (use `inconclusive` to gate on those). A report whose
/// benchmarks are each on one side only compared nothing (a bench target that changed harness,
/// every benchmark renamed): the `inconclusive` gate, which fails on what it could not decide,
/// fails there too; the others pass, with the warning the run printed.
pub fn exit_code(report: &Report, fail_on: FailOn) -> i32 {
    let any = |outcome: Outcome| report.benchmarks.iter().any(|b| b.verdict == outcome);
    let regressed = any(Outcome::Regressed);
    match fail_on {
        FailOn::Never => code::OK,
        _ if regressed => code::REGRESSION,
        FailOn::Regression => code::OK,
        FailOn::Inconclusive
            if any(Outcome::Inconclusive) || any(Outcome::Failed) || compared_none(report) =>
        {
            code::INCONCLUSIVE
        }
        FailOn::Inconclusive => code::OK,
        FailOn::AnyChange if any(Outcome::Improved) => code::CHANGE,
        FailOn::AnyChange => code::OK,
    }
}

/// Whether `report` lists benchmarks of which none was on both sides.
fn compared_none(report: &Report) -> bool {
    let one_side = |b: &crate::steps::analysis::BenchmarkResult| {
        matches!(b.verdict, Outcome::OnlyInBase | Outcome::OnlyInHead)
    };
    !report.benchmarks.is_empty() && report.benchmarks.iter().all(one_side)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_and_html_show_an_id_s_line_break_as_backslash_n() {
        let shown = text::id_line("    pub fn a() {\n            /1");
        let md = escape_markdown(&shown);
        assert!(md.contains("{\\\\n "), "{md}");
        assert!(escape_html(&shown).contains("{\\n "));
    }

    fn resolve(terminal: bool, window: Option<u16>, env: &[(&str, &str)]) -> Style {
        let var = |name: &str| {
            env.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        };
        Style::resolve(&Destination {
            terminal,
            no_color: var("NO_COLOR"),
            term: var("TERM"),
            columns: var("COLUMNS"),
            window_columns: window,
        })
    }

    #[test]
    fn a_terminal_gets_colour_and_its_own_width() {
        let style = resolve(true, Some(93), &[("TERM", "xterm")]);
        assert_eq!(
            style,
            Style {
                color: true,
                width: Some(93),
                wrap: true,
            }
        );
    }

    #[test]
    fn no_color_and_a_dumb_terminal_turn_colour_off() {
        assert!(!resolve(true, Some(80), &[("NO_COLOR", "1")]).color);
        assert!(!resolve(true, Some(80), &[("TERM", "dumb")]).color);
        // An empty NO_COLOR is unset (no-color.org).
        assert!(resolve(true, Some(80), &[("NO_COLOR", "")]).color);
    }

    #[test]
    fn a_pipe_gets_no_colour_and_the_fixed_width() {
        assert_eq!(
            resolve(false, None, &[]),
            Style {
                color: false,
                width: Some(PIPED_WIDTH),
                wrap: false,
            }
        );
        // A window size is a terminal's only.
        assert_eq!(resolve(false, Some(50), &[]).width, Some(PIPED_WIDTH));
        // A terminal whose size cannot be read is fitted like a pipe.
        assert_eq!(resolve(true, None, &[]).width, Some(PIPED_WIDTH));
    }

    #[test]
    fn columns_sets_the_width_terminal_or_not() {
        assert_eq!(resolve(false, None, &[("COLUMNS", "80")]).width, Some(80));
        assert_eq!(
            resolve(true, Some(200), &[("COLUMNS", "120")]).width,
            Some(120)
        );
        for ignored in ["0", "wide", "-3", ""] {
            let style = resolve(true, Some(90), &[("COLUMNS", ignored)]);
            assert_eq!(style.width, Some(90), "COLUMNS={ignored:?}");
        }
    }
}
