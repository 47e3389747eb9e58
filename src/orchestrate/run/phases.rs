//! Where a run's wall time goes: each phase is timed where the run sequences it, and the times
//! are recorded in the samples file ([`Phases`]) so that the report, `--explain` and scripts
//! (the field trials) read the split from the run itself instead of from progress lines.
//!
//! Why a file of its own, at the bottom of `run/`: selection by reach times its traces and
//! probes inside `reach` and `reach_commands`, which share its clock through
//! [`super::reach_sides::SelectedSides`]; kept here, below them, no import goes in a circle.
//! The traces and probes run on several threads, so the clock is atomic (the sides are shared
//! with them); each part is timed on the thread that waits for them, so its time is wall time,
//! not a sum over threads.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::model::samples::{BuildTime, Phases};

/// A duration in whole milliseconds, as the samples file records it.
pub(super) fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// How long `f` takes, with its result.
pub(super) fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let started = Instant::now();
    let result = f();
    (result, started.elapsed())
}

/// One side's preparation: its checkout and its build.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct SideTimes {
    pub(super) checkout: Duration,
    pub(super) build: Duration,
    /// How many crates cargo compiled for the side (0: up to date).
    pub(super) crates_compiled: usize,
}

impl SideTimes {
    pub(super) fn build_time(&self) -> BuildTime {
        BuildTime {
            ms: millis(self.build),
            crates_compiled: self.crates_compiled,
        }
    }
}

/// The parts of selection by reach that are timed apart: its traces and its probes.
#[derive(Debug, Default)]
pub(super) struct SelectionClock {
    trace_us: AtomicU64,
    probe_us: AtomicU64,
}

/// What [`SelectionClock::time`] adds the time to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum SelectionPart {
    Trace,
    Probe,
}

impl SelectionClock {
    /// Adds `took`, a wall time spent on `part`, to its total.
    pub(super) fn add(&self, part: SelectionPart, took: Duration) {
        let micros = u64::try_from(took.as_micros()).unwrap_or(u64::MAX);
        self.counter(part).fetch_add(micros, Ordering::Relaxed);
    }

    fn counter(&self, part: SelectionPart) -> &AtomicU64 {
        match part {
            SelectionPart::Trace => &self.trace_us,
            SelectionPart::Probe => &self.probe_us,
        }
    }

    /// The time added to `part` so far.
    pub(super) fn total(&self, part: SelectionPart) -> Duration {
        Duration::from_micros(self.counter(part).load(Ordering::Relaxed))
    }
}

/// The phases of a run up to its rounds: the sides' checkouts and builds (`head` absent when
/// base's build served both), discovery, and selection (`selection`: its whole time, of which
/// the clock's traces and probes are parts).
pub(super) fn before_rounds(
    opening: Duration,
    (base, head): (SideTimes, Option<SideTimes>),
    discovery: Duration,
    selection: Duration,
    clock: &SelectionClock,
) -> Phases {
    let trace = clock.total(SelectionPart::Trace);
    let probe = clock.total(SelectionPart::Probe);
    let checkout = opening + base.checkout + head.map_or(Duration::ZERO, |h| h.checkout);
    Phases {
        checkout_ms: millis(checkout),
        build: crate::model::samples::SideBuildTimes {
            base: Some(base.build_time()),
            head: head.map(|h| h.build_time()),
        },
        discovery_ms: millis(discovery),
        trace_ms: millis(trace),
        probe_ms: millis(probe),
        selection_ms: millis(selection.saturating_sub(trace + probe)),
        analysis_ms: 0,
        explain_ms: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timesplit_selection_is_its_whole_time_less_its_traces_and_probes() {
        let clock = SelectionClock::default();
        clock.add(SelectionPart::Trace, Duration::from_secs(12));
        clock.add(SelectionPart::Probe, Duration::from_secs(3));
        let base = SideTimes {
            checkout: Duration::from_millis(400),
            build: Duration::from_secs(30),
            crates_compiled: 64,
        };
        let head = SideTimes {
            checkout: Duration::from_millis(300),
            build: Duration::from_secs(11),
            crates_compiled: 3,
        };
        let phases = before_rounds(
            Duration::from_millis(100),
            (base, Some(head)),
            Duration::from_secs(2),
            Duration::from_millis(15_500),
            &clock,
        );
        assert_eq!(phases.checkout_ms, 800);
        assert_eq!(
            phases.build.base,
            Some(BuildTime {
                ms: 30_000,
                crates_compiled: 64
            })
        );
        assert_eq!(
            phases.build.head,
            Some(BuildTime {
                ms: 11_000,
                crates_compiled: 3
            })
        );
        assert_eq!((phases.trace_ms, phases.probe_ms), (12_000, 3_000));
        assert_eq!(phases.selection_ms, 500);
        assert_eq!(phases.total_ms(), 800 + 41_000 + 2_000 + 15_500);
        // One build for both sides (the same commit): no head build, nothing counted twice.
        let same = before_rounds(
            Duration::ZERO,
            (base, None),
            Duration::ZERO,
            Duration::ZERO,
            &clock,
        );
        assert_eq!(same.build.head, None);
        assert_eq!(same.selection_ms, 0, "never below zero");
    }

    #[test]
    fn timesplit_the_clock_adds_each_part_to_its_own_total() {
        let clock = SelectionClock::default();
        clock.add(SelectionPart::Trace, Duration::from_secs(5));
        clock.add(SelectionPart::Trace, Duration::from_millis(1_500));
        assert_eq!(
            clock.total(SelectionPart::Trace),
            Duration::from_millis(6_500)
        );
        assert_eq!(clock.total(SelectionPart::Probe), Duration::ZERO);
        clock.add(SelectionPart::Probe, Duration::from_micros(250));
        assert_eq!(
            clock.total(SelectionPart::Probe),
            Duration::from_micros(250)
        );
    }
}
