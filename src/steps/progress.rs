//! Progress: what the user sees while revisions are checked out, built and measured.
//!
//! On a terminal, indicatif bars (a spinner per build, a bar with the time left for the run). When
//! stderr is not a terminal or `CI` is set, plain one-line-per-event logs without control
//! characters, so CI logs stay readable, with a line per round saying the time left. `-q`
//! silences everything but errors; `-v` adds per-fork lines. Everything goes to stderr: stdout
//! carries only the report.
//!
//! The time left is the run's own: the mean wall time of the forks measured so far in this run
//! times the forks still expected ([`crate::steps::estimate::time_left`]), the settings' estimate only
//! until the first fork ends. indicatif's own ETA smooths the rate of recent steps, which at a
//! round's end, where checkpoints and the next round's set-up take time without a step, swings.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::steps::estimate::{time_left, wall};
use crate::util::terminal::{Stream, terminal_columns, wrap_words};

/// How much to say and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// Bars and spinners on a terminal.
    Bars,
    /// One plain line per event.
    Plain,
    /// Nothing but errors.
    Quiet,
}

impl Style {
    /// Bars on a terminal, plain lines in CI or when stderr is redirected, quiet with `-q`.
    pub fn detect(quiet: bool) -> Style {
        if quiet {
            Style::Quiet
        } else if std::io::stderr().is_terminal() && std::env::var_os("CI").is_none() {
            Style::Bars
        } else {
            Style::Plain
        }
    }
}

/// The progress display of one command.
pub struct Progress {
    style: Style,
    verbose: bool,
    started: Instant,
    bar: Option<ProgressBar>,
    run: Option<RunClock>,
}

/// What the time left of a run is computed from.
#[derive(Debug, Clone, Copy)]
struct RunClock {
    started: Instant,
    /// Forks measured in this run (a resumed run's earlier forks are not).
    measured: u64,
    /// Forks done, the resumed ones included, and expected in all.
    done: u64,
    total: u64,
    /// Estimate of a fork's wall time before any was measured.
    prior: Duration,
}

impl RunClock {
    fn left(&self) -> String {
        let remaining = self.total.saturating_sub(self.done);
        let left = time_left(self.started.elapsed(), self.measured, remaining, self.prior);
        format!("about {} left", wall(left))
    }
}

impl Progress {
    pub fn new(style: Style, verbose: bool) -> Self {
        Progress {
            style,
            verbose,
            started: Instant::now(),
            bar: None,
            run: None,
        }
    }

    /// A progress display that prints nothing (tests, library use).
    pub fn quiet() -> Self {
        Progress::new(Style::Quiet, false)
    }

    /// A one-off message (a phase starting, a path to remember). On a terminal it is wrapped
    /// between words at the terminal's width; plain logs keep one line per message.
    pub fn note(&self, message: &str) {
        match self.style {
            Style::Quiet => {}
            Style::Bars => {
                let width = terminal_columns(Stream::Stderr);
                let message = wrap_words(message, width);
                match &self.bar {
                    Some(bar) => bar.println(message),
                    None => eprintln!("{message}"),
                }
            }
            Style::Plain => self.plain(message),
        }
    }

    /// A warning: shown unless quiet.
    pub fn warn(&self, message: &str) {
        self.note(&format!("warning: {message}"));
    }

    /// Detail shown only with `-v`.
    pub fn detail(&self, message: &str) {
        if self.verbose {
            self.note(message);
        }
    }

    /// Starts a spinner for an open-ended step (checkout, build).
    pub fn start_step(&mut self, message: &str) {
        self.finish_bar();
        match self.style {
            Style::Bars => {
                let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
                bar.set_style(
                    ProgressStyle::with_template("{spinner:.cyan} {elapsed:>4} {msg}")
                        .expect("valid template"),
                );
                bar.set_message(message.to_string());
                bar.enable_steady_tick(Duration::from_millis(120));
                self.bar = Some(bar);
            }
            Style::Plain => self.plain(message),
            Style::Quiet => {}
        }
    }

    /// Updates the current step's message (e.g. the crate being compiled).
    pub fn step_message(&self, message: &str) {
        if let Some(bar) = &self.bar {
            bar.set_message(message.to_string());
        }
    }

    /// Starts measuring: prints `headline`, then a bar of `total` forks expected at most, `done`
    /// of them already (a resumed run), each expected to take `per_fork` until one is measured.
    pub fn start_run(&mut self, headline: &str, (done, total): (u64, u64), per_fork: Duration) {
        self.finish_bar();
        self.note(headline);
        let clock = RunClock {
            started: Instant::now(),
            measured: 0,
            done,
            total,
            prior: per_fork,
        };
        self.run = Some(clock);
        if self.style == Style::Bars {
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template(
                    "{elapsed:>4} [{bar:30.cyan/blue}] {pos}/{len} forks, {prefix} {msg}",
                )
                .expect("valid template")
                .progress_chars("=> "),
            );
            bar.set_position(done);
            bar.set_prefix(clock.left());
            self.bar = Some(bar);
        }
    }

    /// A round ended and at most `still_to_run` more forks are expected (benchmarks stopped
    /// early); in plain logs, a line with the forks done and the time left. The total counts the
    /// forks already done as this clock counted them (failed ones too), so it is never below them.
    pub fn round_done(&mut self, round: usize, still_to_run: u64) {
        let Some(clock) = self.run.as_mut() else {
            return;
        };
        clock.total = clock.done + still_to_run;
        let clock = *clock;
        match (&self.bar, self.style) {
            (Some(bar), _) => {
                bar.set_length(clock.total);
                bar.set_prefix(clock.left());
            }
            (None, Style::Plain) if clock.done < clock.total => self.plain(&format!(
                "round {round}: {}/{} forks, {}",
                clock.done,
                clock.total,
                clock.left()
            )),
            (None, Style::Plain) => self.plain(&format!(
                "round {round}: {}/{} forks, the last",
                clock.done, clock.total
            )),
            _ => {}
        }
    }

    /// `forks` forks finished (a benchmark's base and head of one round).
    pub fn fork_done(&mut self, forks: u64, message: &str) {
        if let Some(clock) = self.run.as_mut() {
            clock.measured += forks;
            clock.done += forks;
        }
        match (&self.bar, self.run) {
            (Some(bar), Some(clock)) => {
                bar.set_position(clock.done);
                bar.set_prefix(clock.left());
                bar.set_message(message.to_string());
            }
            _ => self.detail(message),
        }
    }

    /// Clears any bar; further output is plain.
    pub fn finish_bar(&mut self) {
        self.run = None;
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }

    fn plain(&self, message: &str) {
        let elapsed = self.started.elapsed().as_secs_f64();
        let mut stderr = std::io::stderr().lock();
        let _ = writeln!(stderr, "[{elapsed:7.1}s] {}", strip_control(message));
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish_bar();
    }
}

/// Removes control characters (escape sequences from cargo's colours, carriage returns) so plain
/// logs stay plain. Newlines are kept.
pub fn strip_control(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            // Skip a CSI sequence: ESC [ ... final byte in @..~
            if chars.peek() == Some(&'[') {
                chars.next();
                for next in chars.by_ref() {
                    if ('@'..='~').contains(&next) {
                        break;
                    }
                }
            }
        } else if c == '\n' || c == '\t' || !c.is_control() {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strip_control_removes_escapes_but_keeps_text() {
        assert_eq!(
            strip_control("\x1b[1m\x1b[31merror\x1b[0m: x\r\n"),
            "error: x\n"
        );
        assert_eq!(strip_control("plain ünïcode"), "plain ünïcode");
    }
}
