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
//!
//! Selection's traces and native probes ([`Progress::start_steps`]) run side by side on every CPU
//! before any fork, and can take minutes on a large suite: they get a bar (a line now and then in
//! plain logs) with the time left too, from the mean time of each kind of step so far (a trace
//! and a probe differ by far), over the CPUs they share.

use std::io::{IsTerminal, Write};
use std::sync::Mutex;
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
    /// Selection's steps, finished from several threads at once.
    steps: Option<Mutex<StepClock>>,
    /// When plain logs last printed the open-ended step's message ([`Progress::step_message`]).
    step_line: Mutex<Option<Instant>>,
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
            steps: None,
            step_line: Mutex::new(None),
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
            Style::Plain => {
                self.plain(message);
                *self.step_line.lock().expect("not poisoned") = Some(Instant::now());
            }
            Style::Quiet => {}
        }
    }

    /// Updates the current step's message (e.g. the crate being compiled). Plain logs print it
    /// now and then ([`PLAIN_MESSAGE_EVERY`]), so that a build of many minutes in CI is not one
    /// line and then silence.
    pub fn step_message(&self, message: &str) {
        if let Some(bar) = &self.bar {
            bar.set_message(message.to_string());
        } else if self.style == Style::Plain {
            let mut last = self.step_line.lock().expect("not poisoned");
            if line_due(*last, Instant::now(), PLAIN_MESSAGE_EVERY) {
                *last = Some(Instant::now());
                drop(last);
                self.plain(message);
            }
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

    /// Starts selection's steps: prints `headline`, then a bar (plain lines now and then) of the
    /// steps expected so far ([`Progress::expect_steps`]), each kind expected to take its `prior`
    /// until one is done, `workers` of them at a time.
    pub fn start_steps(&mut self, headline: &str, workers: usize, priors: [Duration; 2]) {
        self.finish_bar();
        self.note(headline);
        let tally = |prior| StepTally {
            done: 0,
            total: 0,
            spent: Duration::ZERO,
            prior,
            alone: 0,
        };
        self.steps = Some(Mutex::new(StepClock {
            workers: workers.max(1),
            kinds: priors.map(tally),
            last_line: None,
        }));
        if self.style == Style::Bars {
            let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template("{elapsed:>4} [{bar:30.cyan/blue}] {prefix} {msg}")
                    .expect("valid template")
                    .progress_chars("=> "),
            );
            self.bar = Some(bar);
        }
    }

    /// `count` more steps of `kind` are expected (the probes, once the traces tell which).
    pub fn expect_steps(&self, kind: StepKind, count: u64) {
        if let Some(clock) = self.step_clock(|clock| clock.kinds[kind as usize].total += count) {
            self.show_steps(&clock, None);
        }
    }

    /// `count` more steps of `kind` are expected that run alone, one after the other (a probe
    /// of a benchmark that pins itself, or one probed again alone): they do not share the
    /// workers, so each adds its whole time to the time left. Done with
    /// [`Progress::alone_step_done`].
    pub fn expect_alone_steps(&self, kind: StepKind, count: u64) {
        if let Some(clock) = self.step_clock(|clock| {
            let tally = &mut clock.kinds[kind as usize];
            tally.total += count;
            tally.alone += count;
        }) {
            self.show_steps(&clock, None);
        }
    }

    /// `count` of the steps of `kind` expected to run alone will not run (a probe expected to
    /// run again alone that need not).
    pub fn drop_alone_steps(&self, kind: StepKind, count: u64) {
        if let Some(clock) = self.step_clock(|clock| {
            let tally = &mut clock.kinds[kind as usize];
            let dropped = count.min(tally.alone);
            tally.alone -= dropped;
            tally.total = tally.total.saturating_sub(dropped).max(tally.done);
        }) {
            self.show_steps(&clock, None);
        }
    }

    /// A step of `kind` expected to run alone ([`Progress::expect_alone_steps`]) ended after
    /// `took`: `what` names it.
    pub fn alone_step_done(&self, kind: StepKind, took: Duration, what: &str) {
        self.finish_step(kind, took, what, true);
    }

    /// `count` of the steps of `kind` expected will not run (a target that cannot be compared).
    pub fn drop_steps(&self, kind: StepKind, count: u64) {
        if let Some(clock) = self.step_clock(|clock| {
            let tally = &mut clock.kinds[kind as usize];
            tally.total = tally.total.saturating_sub(count).max(tally.done);
        }) {
            self.show_steps(&clock, None);
        }
    }

    /// A step of `kind` ended after `took`: `what` names it (the benchmark).
    pub fn step_done(&self, kind: StepKind, took: Duration, what: &str) {
        self.finish_step(kind, took, what, false);
    }

    /// [`Progress::step_done`], of a step expected to run alone when `alone`.
    fn finish_step(&self, kind: StepKind, took: Duration, what: &str, alone: bool) {
        let now = Instant::now();
        let mut plain_line = false;
        let clock = self.step_clock(|clock| {
            let tally = &mut clock.kinds[kind as usize];
            if alone {
                tally.alone = tally.alone.saturating_sub(1);
            }
            tally.done += 1;
            tally.total = tally.total.max(tally.done);
            tally.spent += took;
            // Plain logs: a line every few seconds, and at the last step expected.
            plain_line = clock.remaining() == 0
                || clock
                    .last_line
                    .is_none_or(|last| now.duration_since(last) >= PLAIN_STEP_EVERY);
            if plain_line {
                clock.last_line = Some(now);
            }
        });
        let Some(clock) = clock else {
            return;
        };
        let what = format!("{} {what} in {}", kind.past(), wall(took));
        match self.style {
            Style::Plain if plain_line => self.plain(&format!("{}; {what}", clock.summary())),
            Style::Bars => self.show_steps(&clock, Some(&what)),
            _ => {}
        }
    }

    /// What the bar of selection's steps says (`3/11 traced, about 40 s left`), for tests of
    /// those who count them.
    #[cfg(test)]
    pub(crate) fn steps_summary(&self) -> Option<String> {
        self.step_clock(|_| {}).map(|clock| clock.summary())
    }

    /// Applies `change` to the steps' clock, and returns a copy of it after; `None` when no
    /// steps were started.
    fn step_clock(&self, change: impl FnOnce(&mut StepClock)) -> Option<StepClock> {
        let mut clock = self
            .steps
            .as_ref()?
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        change(&mut clock);
        Some(clock.clone())
    }

    /// Shows `clock` on the bar, with `message` when given.
    fn show_steps(&self, clock: &StepClock, message: Option<&str>) {
        if let Some(bar) = &self.bar {
            let (done, total) = clock
                .kinds
                .iter()
                .fold((0, 0), |(d, t), k| (d + k.done, t + k.total));
            bar.set_length(total);
            bar.set_position(done);
            bar.set_prefix(clock.summary());
            if let Some(message) = message {
                bar.set_message(message.to_string());
            }
        }
    }

    /// Clears any bar; further output is plain.
    pub fn finish_bar(&mut self) {
        self.run = None;
        self.steps = None;
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

/// How often plain logs say how selection's steps progress, at most.
const PLAIN_STEP_EVERY: Duration = Duration::from_secs(5);

/// How often plain logs repeat an open-ended step's changing message (the crate being compiled).
const PLAIN_MESSAGE_EVERY: Duration = Duration::from_secs(30);

/// Whether a plain line is due at `now`, the last one printed at `last` (none yet: due).
fn line_due(last: Option<Instant>, now: Instant, every: Duration) -> bool {
    last.is_none_or(|last| now.saturating_duration_since(last) >= every)
}

/// A step of selection: a benchmark traced under valgrind, or probed natively.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepKind {
    Trace = 0,
    Probe = 1,
}

impl StepKind {
    fn past(self) -> &'static str {
        match self {
            StepKind::Trace => "traced",
            StepKind::Probe => "probed",
        }
    }
}

/// The steps of one kind: done and expected, the time the done ones took (each on its own
/// thread), and what one is expected to take before any is done; of those expected and not
/// done, how many run alone ([`Progress::expect_alone_steps`]).
#[derive(Debug, Clone, Copy)]
struct StepTally {
    done: u64,
    total: u64,
    spent: Duration,
    prior: Duration,
    alone: u64,
}

impl StepTally {
    /// The time one more step is expected to take.
    fn per_step(&self) -> Duration {
        match self.done {
            0 => self.prior,
            n => self.spent.div_f64(n as f64),
        }
    }
}

/// What the time left of selection's steps is computed from.
#[derive(Debug, Clone)]
struct StepClock {
    /// Steps run at once.
    workers: usize,
    /// By [`StepKind`].
    kinds: [StepTally; 2],
    /// When plain logs last said how far the steps are.
    last_line: Option<Instant>,
}

impl StepClock {
    fn remaining(&self) -> u64 {
        self.kinds.iter().map(|k| k.total - k.done).sum()
    }

    /// The time left: every step still expected at its kind's time per step, shared by the
    /// workers (no more of them than there are such steps left), and then those that run alone,
    /// one after the other, at the same time per step.
    fn left(&self) -> Duration {
        let alone = |k: &StepTally| k.alone.min(k.total - k.done);
        let shared = |k: &StepTally| k.total - k.done - alone(k);
        let work = |count: &dyn Fn(&StepTally) -> u64| -> Duration {
            let each = self.kinds.iter();
            each.map(|k| k.per_step().mul_f64(count(k) as f64)).sum()
        };
        let sharing = self.kinds.iter().map(shared).sum::<u64>();
        let sharing = (self.workers as u64).min(sharing).max(1);
        work(&shared).div_f64(sharing as f64) + work(&alone)
    }

    /// `3/11 traced, 1/2 probed, about 40 s left` (a kind none of is expected left out).
    fn summary(&self) -> String {
        let mut parts: Vec<String> = [StepKind::Trace, StepKind::Probe]
            .iter()
            .map(|&kind| (kind, self.kinds[kind as usize]))
            .filter(|(_, tally)| tally.total > 0)
            .map(|(kind, tally)| format!("{}/{} {}", tally.done, tally.total, kind.past()))
            .collect();
        parts.push(format!("about {} left", wall(self.left())));
        parts.join(", ")
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
    fn a_plain_step_message_is_printed_first_then_once_per_interval() {
        let start = Instant::now();
        let every = Duration::from_secs(30);
        assert!(line_due(None, start, every));
        assert!(!line_due(
            Some(start),
            start + Duration::from_secs(29),
            every
        ));
        assert!(line_due(Some(start), start + every, every));
        // A clock read before the last line (another thread's) is not due.
        assert!(!line_due(Some(start + every), start, every));
    }

    fn clock(workers: usize, trace: (u64, u64, u64), probe: (u64, u64, u64)) -> StepClock {
        let tally = |(done, total, spent_s): (u64, u64, u64), prior_s| StepTally {
            done,
            total,
            spent: Duration::from_secs(spent_s),
            prior: Duration::from_secs(prior_s),
            alone: 0,
        };
        StepClock {
            workers,
            kinds: [tally(trace, 3), tally(probe, 1)],
            last_line: None,
        }
    }

    #[test]
    fn selection_s_time_left_counts_each_kind_at_its_own_pace_over_the_workers() {
        // Nothing done: 10 traces at the prior 3 s, on 2 workers.
        assert_eq!(
            clock(2, (0, 10, 0), (0, 0, 0)).left(),
            Duration::from_secs(15)
        );
        // 4 traces took 40 s in all (10 s each): 6 left, 30 s on 2 workers; and 2 probes at
        // their prior 1 s.
        assert_eq!(
            clock(2, (4, 10, 40), (0, 2, 0)).left(),
            Duration::from_secs(31)
        );
        // One step left: one worker runs it, the other waits.
        assert_eq!(
            clock(2, (9, 10, 90), (0, 0, 0)).left(),
            Duration::from_secs(10)
        );
        assert_eq!(clock(2, (10, 10, 90), (0, 0, 0)).left(), Duration::ZERO);
        assert_eq!(
            clock(2, (4, 10, 40), (1, 2, 2)).summary(),
            "4/10 traced, 1/2 probed, about 31.0 s left"
        );
        assert_eq!(
            clock(1, (0, 3, 0), (0, 0, 0)).summary(),
            "0/3 traced, about 9.0 s left"
        );
    }

    #[test]
    fn selection_s_steps_are_counted_from_any_thread() {
        let mut progress = Progress::quiet();
        progress.start_steps(
            "tracing",
            2,
            [Duration::from_secs(3), Duration::from_secs(1)],
        );
        progress.expect_steps(StepKind::Trace, 4);
        std::thread::scope(|scope| {
            for k in 0..4 {
                let progress = &progress;
                scope.spawn(move || {
                    progress.step_done(StepKind::Trace, Duration::from_secs(2), &format!("b{k}"))
                });
            }
        });
        progress.expect_steps(StepKind::Probe, 1);
        let clock = progress.step_clock(|_| {}).unwrap();
        assert_eq!(clock.summary(), "4/4 traced, 0/1 probed, about 1.0 s left");
        progress.finish_bar();
        assert!(progress.step_clock(|_| {}).is_none());
    }

    #[test]
    fn probes_that_run_alone_count_their_whole_time_in_the_time_left() {
        // 4 probes at 10 s each done; 4 more beside one another on 2 workers (20 s), and 2
        // that run alone after them, one after the other (20 s).
        let mut beside = clock(2, (0, 0, 0), (4, 10, 40));
        beside.kinds[StepKind::Probe as usize].alone = 2;
        assert_eq!(beside.left(), Duration::from_secs(40));
        // The last probe beside the others done, one probe to run again alone: its time is
        // left, not "about 0 ms".
        let mut last = clock(2, (0, 0, 0), (8, 9, 80));
        last.kinds[StepKind::Probe as usize].alone = 1;
        assert_eq!(last.left(), Duration::from_secs(10));
        assert_eq!(last.summary(), "8/9 probed, about 10.0 s left");
    }

    #[test]
    fn a_probe_expected_alone_is_counted_until_done_or_dropped() {
        let mut progress = Progress::quiet();
        progress.start_steps("probing", 2, [Duration::ZERO, Duration::from_secs(1)]);
        progress.expect_steps(StepKind::Probe, 2);
        progress.expect_alone_steps(StepKind::Probe, 2);
        for k in 0..2 {
            progress.step_done(StepKind::Probe, Duration::from_secs(4), &format!("b{k}"));
        }
        let left = |progress: &Progress| progress.step_clock(|_| {}).unwrap().left();
        // Two alone at 4 s each, one after the other.
        assert_eq!(left(&progress), Duration::from_secs(8));
        progress.drop_alone_steps(StepKind::Probe, 1);
        assert_eq!(left(&progress), Duration::from_secs(4));
        progress.alone_step_done(StepKind::Probe, Duration::from_secs(4), "b0");
        let clock = progress.step_clock(|_| {}).unwrap();
        assert_eq!(clock.summary(), "3/3 probed, about 0 ms left");
        // Dropping more than are expected alone leaves the count as it is.
        progress.drop_alone_steps(StepKind::Probe, 1);
        assert_eq!(left(&progress), Duration::ZERO);
        progress.finish_bar();
    }

    #[test]
    fn strip_control_removes_escapes_but_keeps_text() {
        assert_eq!(
            strip_control("\x1b[1m\x1b[31merror\x1b[0m: x\r\n"),
            "error: x\n"
        );
        assert_eq!(strip_control("plain ünïcode"), "plain ünïcode");
    }
}
