//! Reporters: an analysed [`Report`] in, text out, plus the process exit code.
//!
//! Every format is a pure function of the report (and, for HTML, the raw samples): no I/O, no
//! clocks, no environment. That keeps them trivially testable with hand-made reports and lets
//! `cargo perfdiff report` re-render any saved run identically. Deciding *whether* to colour or how
//! wide the terminal is happens once, in [`Style::detect`], at the edge.
//!
//! - [`Format::Table`] — the terminal view (comfy-table), columns dropped to fit narrow terminals.
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
mod table;
mod text;

use crate::analysis::{Outcome, Report};
use crate::config::FailOn;
use crate::error::exit_code as code;

pub use calibration::render_calibration;
pub use html::render_html;
pub use listing::render_listing;
pub use text::{forks_to_reveal_threshold, median_fork_rel_sd, noisy_forks_note};

/// Output format of the report on stdout (`--format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
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
}

impl Style {
    /// No colour, natural width: for files, pipes and tests.
    pub fn plain() -> Self {
        Style::default()
    }

    /// The style for stdout: colour only on a terminal without `NO_COLOR` (<https://no-color.org>)
    /// and with a `TERM` other than `dumb`; the width of that terminal (or `$COLUMNS`).
    pub fn detect() -> Self {
        use std::io::IsTerminal;
        let is_tty = std::io::stdout().is_terminal();
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let dumb = std::env::var("TERM").is_ok_and(|t| t == "dumb");
        Style {
            color: is_tty && !no_color && !dumb,
            width: if is_tty { terminal_width() } else { None },
        }
    }
}

/// Width of the terminal on stdout: `$COLUMNS` if set, else the kernel's window size.
fn terminal_width() -> Option<u16> {
    if let Some(columns) = std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok()) {
        return Some(columns);
    }
    window_size_columns()
}

#[cfg(unix)]
fn window_size_columns() -> Option<u16> {
    // SAFETY: TIOCGWINSZ only writes a `winsize` into the struct we pass; a failing call leaves
    // it zeroed, which we treat as unknown.
    let mut size: libc::winsize = unsafe { std::mem::zeroed() };
    let ok = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut size) } == 0;
    (ok && size.ws_col > 0).then_some(size.ws_col)
}

#[cfg(not(unix))]
fn window_size_columns() -> Option<u16> {
    None
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
/// [`crate::error::exit_code`]):
///
/// | `--fail-on`    | 1 when          | otherwise                                   |
/// |----------------|-----------------|---------------------------------------------|
/// | `regression`   | any regressed   | 0                                           |
/// | `inconclusive` | any regressed   | 3 if any inconclusive or failed, else 0     |
/// | `any-change`   | any regressed   | 4 if any improved, else 0                   |
/// | `never`        | —               | 0                                           |
///
/// `any-change` counts only *detected* changes: inconclusive, failed, and benchmarks present on
/// one side only do not make it fail (use `inconclusive` to gate on those).
pub fn exit_code(report: &Report, fail_on: FailOn) -> i32 {
    let any = |outcome: Outcome| report.benchmarks.iter().any(|b| b.verdict == outcome);
    let regressed = any(Outcome::Regressed);
    match fail_on {
        FailOn::Never => code::OK,
        _ if regressed => code::REGRESSION,
        FailOn::Regression => code::OK,
        FailOn::Inconclusive if any(Outcome::Inconclusive) || any(Outcome::Failed) => {
            code::INCONCLUSIVE
        }
        FailOn::Inconclusive => code::OK,
        FailOn::AnyChange if any(Outcome::Improved) => code::CHANGE,
        FailOn::AnyChange => code::OK,
    }
}
