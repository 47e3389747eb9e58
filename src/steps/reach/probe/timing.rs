//! Which breakpoint hits of the native probe count, when only what runs inside the benchmark's
//! timed routine does (criterion's `Bencher::iter` and the like, divan's sample task, libtest's
//! and `bencher`'s `Bencher::iter`: [`crate::steps::instructions::timed`]): the probe of a benchmark whose
//! changed code runs only outside its timed loop (docs/design/selection-code-identity.md), and
//! of every benchmark of a harness with a timed routine skipped by its trace
//! (docs/design/selection-trace.md, "Every harness's timed routine").
//!
//! Why: such a benchmark enters its changed functions on every run (its set-up, its harness's
//! argument parsing, its teardown), so "the first entry of a changed function ends the probe"
//! would measure it always. What must not happen is a changed function entered *inside* the
//! timed routine in a later iteration, which the trace's one call did not show.
//!
//! How, without ever stepping over a breakpoint: the probe is in one of two states. *Outside*,
//! the timed routines' entries hold a breakpoint, and so do the changed functions that were not
//! found compiled from the same source (`same_outside` are left out: those the benchmark may
//! enter outside the loop; any other changed function entered outside the loop, such as a
//! set-up path taken only natively or the harness's sampling around the timed routine
//! (criterion's `analysis::common`, divan's tuning, a benchmark's function after `iter`), which
//! its shorter trace never runs, was never compared: it is noted ([`Timing::entered_outside`]),
//! its breakpoint taken out as if it were of the same source, and the run goes on; once it has
//! ended, its source decides, and the benchmark is measured unless it is the same; a run that
//! never entered a timed routine ends at the first it noted, [`Timing::noted_at_end`]). A thread
//! entering a timed routine makes it *inside*:
//! the entry's breakpoint is taken out, one is put at the routine's return address (read from
//! the top of the stack at its entry) and at every changed function's entry, and the thread goes
//! on from the entry's first instruction. Any changed function entered while inside, by any
//! thread, ends the probe ("executes changed code"). The return, reached by the same thread with
//! the stack pointer just above the return address it was read from, makes it outside again
//! (changed functions' breakpoints out, the entries' back in). Nesting needs no count: a timed
//! routine called from inside one (nested or recursive) meets no breakpoint, and the state
//! stays inside until the outermost call returns.
//!
//! Conservative wherever the state could be wrong, then the probe fails and the benchmark is
//! measured ([`Action::Lost`]): a timed routine entered while its process has another thread
//! (what that thread runs cannot be placed inside or outside), a thread still beside the routine
//! when it returns, a timed routine entered in a child process (its memory is a copy), a return
//! reached by another thread or frame, a stop at a breakpoint already taken out. A routine left
//! by unwinding never returns: the state stays inside, and every later changed entry counts.
//! Without timed routines, every changed entry counts, as before.
//!
//! The inside/outside part ([`Routine`]) is shared with the native trace, which tells its timed
//! part by the same rules (`crate::steps::reach::trace::native`), with one more thing it knows:
//! it stops every thread at each system call, so it can tell a thread asleep in one, which runs
//! nothing beside the routine ([`Stop::asleep`]; libtest's main thread waiting for the benchmark's
//! thread). The probe does not stop at system calls and counts every other thread as running.
//!
//! One limit: nothing stops at a changed entry of `same_outside` while another thread is inside
//! a timed routine, since the state is the process's; the rule above (no other thread when a
//! routine is entered or returns) is what keeps that from happening unseen.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;

use crate::model::harness::Harness;
use crate::model::samples::ForkRecord;

/// How long each divan sample of a probe's later runs is asked to last, when the probe stops at
/// the timed routine: it stops twice a sample (entry and return), and divan's own samples of a
/// fast benchmark last microseconds, so such a run spends its time in those stops (each waits
/// for a CPU on a busy machine), and seldom covers a fork's run.
pub const DIVAN_SAMPLE_NS: f64 = 1e6;

/// The environment that makes the samples of a probe's next run last about
/// [`DIVAN_SAMPLE_NS`], from the `record` of its last run (divan's median time per iteration):
/// `DIVAN_SAMPLE_SIZE`, for divan. Divan still fills the time it is given, so the run makes as
/// many iterations, only in fewer samples. `None` for the other harnesses (a criterion sample
/// lasts a hundredth of the measurement time) or a record without a time.
pub fn fewer_stops(harness: Harness, record: &ForkRecord) -> Option<(OsString, OsString)> {
    if harness != Harness::Divan {
        return None;
    }
    let per_iteration = record
        .iters
        .iter()
        .zip(&record.times_ns)
        .filter(|(iters, ns)| **iters > 0.0 && **ns > 0.0)
        .map(|(iters, ns)| ns / iters)
        .min_by(f64::total_cmp)?;
    let size = (DIVAN_SAMPLE_NS / per_iteration).ceil().max(1.0) as u64;
    Some(("DIVAN_SAMPLE_SIZE".into(), size.to_string().into()))
}

/// What the tracer knows of a thread stopped by an `int3`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stop {
    /// The stopped thread (its task id).
    pub thread: i32,
    /// Where the breakpoint is: the thread's instruction pointer less one.
    pub at: u64,
    /// The thread's stack pointer.
    pub sp: u64,
    /// The word at the stack pointer: at a function's entry, its return address.
    pub top: u64,
    /// Whether the thread is one of the probed process's (not of a child process).
    pub own_process: bool,
    /// How many threads the probed process has.
    pub threads: usize,
    /// How many of its other threads are known to run none of its code: each asleep in a system
    /// call whose start the tracer saw (the native trace stops at every call; the probe, which
    /// does not, says 0).
    pub asleep: usize,
}

impl Stop {
    /// How many of the process's other threads may be running its code beside this one.
    fn running_beside(&self) -> usize {
        self.threads.saturating_sub(1 + self.asleep)
    }
}

/// What the tracer does after a [`Stop`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// A changed function entered where it counts: the probe ends, the benchmark is measured.
    Hit(String),
    /// Rewrite the breakpoints at `rewrite` as [`Timing::armed`] now says, and resume the thread
    /// at `resume` (the instruction the breakpoint covered).
    Resume { resume: u64, rewrite: Vec<u64> },
    /// The probe cannot tell inside from outside from here (why): it fails.
    Lost(String),
    /// Not a breakpoint of the probe: the program's own trap, passed on.
    Foreign,
}

/// The timed routine being run: by which thread, where it returns to, and the stack pointer
/// once it has returned.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Inside {
    thread: i32,
    returns_to: u64,
    sp_after: u64,
}

/// Inside or outside the timed routine: the state both the probe ([`Timing`]) and the native
/// trace (`crate::steps::reach::trace::native`) keep, entered at a routine's entry and left at
/// its return address by the same thread and frame. Where it cannot tell, it says why (`Err`),
/// and the caller gives up the distinction (the probe fails, the trace tells no timed part).
#[derive(Debug, Clone, Default)]
pub struct Routine {
    inside: Option<Inside>,
    /// Every return address a breakpoint was put at.
    returns: BTreeSet<u64>,
}

impl Routine {
    /// The thread running the routine; `None` outside.
    pub fn thread(&self) -> Option<i32> {
        self.inside.as_ref().map(|inside| inside.thread)
    }

    /// Where the routine being run returns to; `None` outside.
    pub fn returns_to(&self) -> Option<u64> {
        self.inside.as_ref().map(|inside| inside.returns_to)
    }

    /// Whether a breakpoint was ever put at `at` as a return address.
    pub fn was_return(&self, at: u64) -> bool {
        self.returns.contains(&at)
    }

    /// A timed routine's entry reached while outside (`stop.top` its return address): inside
    /// now, unless a child process entered it or another thread of its process may be running
    /// beside it (not known to be asleep in a system call, [`Stop::asleep`]).
    pub fn enter(&mut self, stop: &Stop) -> Result<(), String> {
        if !stop.own_process {
            return Err("a child process entered the timed routine".to_string());
        }
        if stop.running_beside() > 0 {
            return Err(format!(
                "its process had {} threads when the timed routine was entered, {} of them not \
                 asleep in a system call: what they run cannot be placed inside or outside it",
                stop.threads,
                stop.running_beside()
            ));
        }
        self.inside = Some(Inside {
            thread: stop.thread,
            returns_to: stop.top,
            sp_after: stop.sp.wrapping_add(8),
        });
        self.returns.insert(stop.top);
        Ok(())
    }

    /// The routine's return address reached while inside: outside now, unless another thread
    /// or frame reached it, or another thread may be running beside it.
    pub fn leave(&mut self, stop: &Stop) -> Result<(), String> {
        let Some(inside) = &self.inside else {
            return Err("a return address was reached outside the timed routine".to_string());
        };
        if stop.thread != inside.thread || stop.sp != inside.sp_after {
            return Err(
                "the timed routine's return address was reached by another thread or frame"
                    .to_string(),
            );
        }
        if stop.running_beside() > 0 {
            return Err(format!(
                "its process had {} threads when the timed routine returned, {} of them not \
                 asleep in a system call: what they run cannot be placed inside or outside it",
                stop.threads,
                stop.running_beside()
            ));
        }
        self.inside = None;
        Ok(())
    }
}

/// The probe's breakpoints (by address in the running process) and its state.
#[derive(Debug, Clone)]
pub struct Timing {
    changed: BTreeMap<u64, String>,
    routines: BTreeMap<u64, String>,
    /// Changed entries that do not count outside a timed routine.
    same_outside: BTreeSet<u64>,
    routine: Routine,
    /// The changed functions entered outside every timed routine that were not in
    /// `same_outside`, in the order first entered: their source decides afterwards.
    entered_outside: Vec<String>,
    /// Whether a thread ever entered a timed routine.
    entered_routine: bool,
}

impl Timing {
    /// The probe of `changed` entries; with `routines` (the timed routines' entries), those of
    /// `same_outside` count only inside one of them; without, every entry counts.
    pub fn new(
        changed: BTreeMap<u64, String>,
        routines: BTreeMap<u64, String>,
        same_outside: BTreeSet<u64>,
    ) -> Self {
        Timing {
            changed,
            routines,
            same_outside,
            routine: Routine::default(),
            entered_outside: Vec::new(),
            entered_routine: false,
        }
    }

    /// The changed functions entered outside every timed routine that were not known to be of
    /// the same source ([`Timing::new`]'s `same_outside`), in the order first entered.
    pub fn entered_outside(&self) -> &[String] {
        &self.entered_outside
    }

    /// What the run, once ended, leaves to be decided: the changed functions it entered outside
    /// every timed routine ([`Timing::entered_outside`]), whose source decides, or the first of
    /// them as a hit (`Err`) when there were timed routines to watch and no thread ever entered
    /// one. Such a run's timed loop ran elsewhere: libtest's and `bencher`'s generic `iter`
    /// inlined into this benchmark's function, while another benchmark's instantiation, out of
    /// line, gave the executable its routine. Nothing it entered can then be placed outside the
    /// loop, and it ends as a probe counting every entry would have, at the first.
    pub fn noted_at_end(&self) -> Result<Vec<String>, String> {
        match (self.entered_routine, self.entered_outside.first()) {
            (false, Some(first)) => Err(first.clone()),
            _ => Ok(self.entered_outside.clone()),
        }
    }

    /// Whether a thread is inside a timed routine now.
    pub fn inside(&self) -> bool {
        self.routine.returns_to().is_some()
    }

    /// Whether only entries inside a timed routine count.
    fn timed(&self) -> bool {
        !self.routines.is_empty()
    }

    /// The addresses that hold a breakpoint now.
    pub fn armed(&self) -> BTreeSet<u64> {
        match self.routine.returns_to() {
            _ if !self.timed() => self.changed.keys().copied().collect(),
            None => self
                .routines
                .keys()
                .chain(self.changed.keys())
                .filter(|a| !self.same_outside.contains(a))
                .copied()
                .collect(),
            Some(returns_to) => self.changed.keys().copied().chain([returns_to]).collect(),
        }
    }

    /// What to do after `stop`.
    pub fn stop(&mut self, stop: &Stop) -> Action {
        if !self.armed().contains(&stop.at) {
            let ours = self.changed.contains_key(&stop.at)
                || self.routines.contains_key(&stop.at)
                || self.routine.was_return(stop.at);
            return if ours {
                Action::Lost(format!(
                    "a thread stopped at {:#x}, whose breakpoint was already taken out",
                    stop.at
                ))
            } else {
                Action::Foreign
            };
        }
        match self.routine.returns_to() {
            _ if !self.timed() => Action::Hit(self.changed[&stop.at].clone()),
            None if !self.routines.contains_key(&stop.at) => self.outside(stop.at),
            None => self.enter(stop),
            Some(returns_to) if stop.at == returns_to => self.leave(stop, returns_to),
            Some(_) => Action::Hit(self.changed[&stop.at].clone()),
        }
    }

    /// A changed entry not known to be of the same source reached outside every timed routine:
    /// noted, and from now on treated as one of the same source (its breakpoint out until a
    /// routine is entered). What runs there is not measured; whether what it computes is the
    /// same is for its source to decide once the probe has ended (the benchmark is measured
    /// unless it is the same).
    fn outside(&mut self, at: u64) -> Action {
        self.entered_outside.push(self.changed[&at].clone());
        self.same_outside.insert(at);
        Action::Resume {
            resume: at,
            rewrite: vec![at],
        }
    }

    /// A timed routine's entry reached while outside.
    fn enter(&mut self, stop: &Stop) -> Action {
        if let Some(name) = self.changed.get(&stop.at) {
            return Action::Hit(name.clone());
        }
        match self.routine.enter(stop) {
            Ok(()) => {
                self.entered_routine = true;
                Action::Resume {
                    resume: stop.at,
                    rewrite: self.every_address(stop.top),
                }
            }
            Err(why) => Action::Lost(why),
        }
    }

    /// The return address of the timed routine (`returns_to`) reached while inside.
    fn leave(&mut self, stop: &Stop, returns_to: u64) -> Action {
        match self.routine.leave(stop) {
            Ok(()) => Action::Resume {
                resume: stop.at,
                rewrite: self.every_address(returns_to),
            },
            Err(why) => Action::Lost(why),
        }
    }

    /// Every entry and `returns_to`: the addresses a change of state rewrites.
    fn every_address(&self, returns_to: u64) -> Vec<u64> {
        let all: BTreeSet<u64> = self
            .changed
            .keys()
            .chain(self.routines.keys())
            .copied()
            .chain([returns_to])
            .collect();
        all.into_iter().collect()
    }
}

/// The stops the state machine's tests and the native trace's feed it: the probed process's
/// one thread entering a function called from `RETURN` with its stack at `SP`, and returning.
#[cfg(test)]
pub(crate) mod test_stops {
    use super::Stop;

    pub const RETURN: u64 = 0x4010;
    pub const SP: u64 = 0x7ff0;

    /// The thread stopped at `at`, entered from [`RETURN`].
    pub fn stop(at: u64) -> Stop {
        Stop {
            thread: 7,
            at,
            sp: SP,
            top: RETURN,
            own_process: true,
            threads: 1,
            asleep: 0,
        }
    }

    /// The stop at the routine's return, as the thread that entered it reaches it.
    pub fn returned() -> Stop {
        Stop {
            sp: SP + 8,
            top: 0,
            ..stop(RETURN)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::test_stops::{RETURN, SP, returned, stop};
    use super::*;

    const ITER: u64 = 0x1000;
    const SET_UP: u64 = 0x2000;
    const IN_LOOP: u64 = 0x3000;
    const BACKEND: u64 = 0x5000;

    fn timing() -> Timing {
        let names = |entries: &[(u64, &str)]| {
            entries
                .iter()
                .map(|(a, n)| (*a, n.to_string()))
                .collect::<BTreeMap<_, _>>()
        };
        Timing::new(
            names(&[
                (SET_UP, "demo::set_up"),
                (IN_LOOP, "demo::work"),
                (BACKEND, "demo::backend"),
            ]),
            names(&[(ITER, "criterion::bencher::Bencher<M>::iter")]),
            BTreeSet::from([SET_UP, IN_LOOP]),
        )
    }

    #[test]
    fn a_run_that_never_entered_its_timed_routine_ends_at_what_it_noted_first() {
        // Nothing noted: nothing to decide.
        assert_eq!(timing().noted_at_end(), Ok(Vec::new()));
        // `backend` noted outside, no routine ever entered (libtest's `iter` inlined into this
        // benchmark's function): nothing can be placed outside the loop, so it counts.
        let mut timing = timing();
        assert!(matches!(timing.stop(&stop(BACKEND)), Action::Resume { .. }));
        assert_eq!(timing.noted_at_end(), Err("demo::backend".to_string()));
        // Once a thread has entered the routine (and left it), what was noted outside is left
        // to its source.
        assert!(matches!(timing.stop(&stop(ITER)), Action::Resume { .. }));
        assert!(matches!(timing.stop(&returned()), Action::Resume { .. }));
        assert_eq!(timing.noted_at_end(), Ok(vec!["demo::backend".to_string()]));
    }

    #[test]
    fn a_changed_function_not_compared_entered_outside_the_routine_is_noted_and_counts_inside() {
        let mut timing = timing();
        assert_eq!(timing.armed(), BTreeSet::from([ITER, BACKEND]));
        // A changed function not found the same source, entered outside (a set-up path taken
        // only natively, criterion's sampling loop), is noted for its source to decide, and the
        // run goes on without its breakpoint.
        assert_eq!(
            timing.stop(&stop(BACKEND)),
            Action::Resume {
                resume: BACKEND,
                rewrite: vec![BACKEND]
            }
        );
        assert_eq!(timing.entered_outside(), ["demo::backend"]);
        assert_eq!(timing.armed(), BTreeSet::from([ITER]));
        // Inside the timed routine it counts as every changed function does.
        assert!(matches!(timing.stop(&stop(ITER)), Action::Resume { .. }));
        assert_eq!(
            timing.stop(&stop(BACKEND)),
            Action::Hit("demo::backend".into())
        );
        assert_eq!(timing.entered_outside(), ["demo::backend"]);
        // Without timed routines, every changed entry holds one, and each counts.
        let mut every = Timing::new(timing.changed.clone(), BTreeMap::new(), BTreeSet::new());
        assert_eq!(every.armed(), BTreeSet::from([SET_UP, IN_LOOP, BACKEND]));
        assert_eq!(
            every.stop(&stop(SET_UP)),
            Action::Hit("demo::set_up".into())
        );
    }

    #[test]
    fn entering_the_routine_arms_the_changed_entries_and_its_return() {
        let mut timing = timing();
        assert_eq!(
            timing.stop(&stop(ITER)),
            Action::Resume {
                resume: ITER,
                rewrite: vec![ITER, SET_UP, IN_LOOP, RETURN, BACKEND]
            }
        );
        assert_eq!(
            timing.armed(),
            BTreeSet::from([SET_UP, IN_LOOP, RETURN, BACKEND])
        );
        // A changed function entered inside counts, by any thread.
        let other_thread = Stop {
            thread: 8,
            ..stop(IN_LOOP)
        };
        assert_eq!(timing.stop(&other_thread), Action::Hit("demo::work".into()));
    }

    #[test]
    fn the_return_makes_it_outside_again_and_set_up_between_calls_does_not_count() {
        let mut timing = timing();
        for _ in 0..3 {
            assert!(matches!(timing.stop(&stop(ITER)), Action::Resume { .. }));
            assert_eq!(
                timing.stop(&returned()),
                Action::Resume {
                    resume: RETURN,
                    rewrite: vec![ITER, SET_UP, IN_LOOP, RETURN, BACKEND]
                }
            );
            // Between calls the set-up runs: its entry holds no breakpoint.
            assert_eq!(timing.armed(), BTreeSet::from([ITER, BACKEND]));
        }
    }

    #[test]
    fn a_nested_call_stays_inside_until_the_outermost_returns() {
        let mut timing = timing();
        assert!(matches!(timing.stop(&stop(ITER)), Action::Resume { .. }));
        // The nested call's entry holds no breakpoint: it is never seen. Its return to the same
        // address (a recursive call from the same place) is another frame: lost.
        let nested_return = Stop {
            sp: SP - 64 + 8,
            ..returned()
        };
        assert!(matches!(timing.stop(&nested_return), Action::Lost(_)));
        let mut timing = self::timing();
        assert!(matches!(timing.stop(&stop(ITER)), Action::Resume { .. }));
        // Still inside after the nested call returned elsewhere: a changed entry counts.
        assert_eq!(
            timing.stop(&stop(IN_LOOP)),
            Action::Hit("demo::work".into())
        );
    }

    #[test]
    fn threads_and_child_processes_lose_the_state() {
        let crowded = Stop {
            threads: 2,
            ..stop(ITER)
        };
        assert!(matches!(timing().stop(&crowded), Action::Lost(_)));
        // A thread known to be asleep in a system call runs nothing beside the routine (the
        // native trace knows it; the probe always says 0).
        let beside_a_sleeper = Stop {
            asleep: 1,
            ..crowded
        };
        assert!(matches!(
            timing().stop(&beside_a_sleeper),
            Action::Resume { .. }
        ));
        let child = Stop {
            own_process: false,
            ..stop(ITER)
        };
        assert!(matches!(timing().stop(&child), Action::Lost(_)));
        // Another thread at the return address, or one left running beside the routine.
        let mut timing = timing();
        assert!(matches!(timing.stop(&stop(ITER)), Action::Resume { .. }));
        let other = Stop {
            thread: 8,
            ..returned()
        };
        assert!(matches!(timing.clone().stop(&other), Action::Lost(_)));
        let beside = Stop {
            threads: 2,
            ..returned()
        };
        assert!(matches!(timing.stop(&beside), Action::Lost(_)));
    }

    #[test]
    fn a_routine_that_is_itself_changed_counts_at_its_entry() {
        let mut timing = Timing::new(
            BTreeMap::from([(ITER, "criterion::bencher::Bencher<M>::iter".to_string())]),
            BTreeMap::from([(ITER, "criterion::bencher::Bencher<M>::iter".to_string())]),
            BTreeSet::new(),
        );
        assert_eq!(
            timing.stop(&stop(ITER)),
            Action::Hit("criterion::bencher::Bencher<M>::iter".into())
        );
    }

    #[test]
    fn a_stop_at_a_breakpoint_taken_out_is_lost_and_another_trap_is_the_program_s() {
        let mut timing = timing();
        // Outside: the changed entries hold none.
        assert!(matches!(timing.stop(&stop(SET_UP)), Action::Lost(_)));
        assert_eq!(timing.stop(&stop(0x9999)), Action::Foreign);
        assert!(matches!(timing.stop(&stop(ITER)), Action::Resume { .. }));
        assert!(matches!(timing.stop(&returned()), Action::Resume { .. }));
        // The old return address, reached again while outside.
        assert!(matches!(timing.stop(&stop(RETURN)), Action::Lost(_)));
    }

    #[test]
    fn a_divan_probe_that_stops_at_its_sample_task_asks_for_samples_of_a_millisecond() {
        let record = |ns: f64| ForkRecord {
            iters: vec![1.0],
            times_ns: vec![ns],
            ..ForkRecord::default()
        };
        let size = |ns: f64| fewer_stops(Harness::Divan, &record(ns));
        assert_eq!(
            size(2.5),
            Some(("DIVAN_SAMPLE_SIZE".into(), "400000".into()))
        );
        // A benchmark slower than a millisecond: one iteration a sample.
        assert_eq!(size(5e6), Some(("DIVAN_SAMPLE_SIZE".into(), "1".into())));
        assert_eq!(fewer_stops(Harness::Divan, &ForkRecord::default()), None);
        let criterion = Harness::Criterion(crate::model::harness::CliDialect::Current);
        assert_eq!(fewer_stops(criterion, &record(2.5)), None);
    }

    #[test]
    fn a_harness_s_routines_that_call_each_other_keep_the_outermost_call_inside() {
        // libtest's `Bencher::iter` calls `bench::ns_iter_inner` (both routines, when the
        // compiler kept both as functions); divan's sample task is entered once a sample.
        const INNER: u64 = 0x1800;
        let mut timing = Timing::new(
            BTreeMap::from([(SET_UP, "demo::set_up".to_string())]),
            BTreeMap::from([
                (ITER, "test::bench::Bencher::iter".to_string()),
                (INNER, "test::bench::ns_iter_inner".to_string()),
            ]),
            BTreeSet::from([SET_UP]),
        );
        assert_eq!(timing.armed(), BTreeSet::from([ITER, INNER]));
        assert!(matches!(timing.stop(&stop(ITER)), Action::Resume { .. }));
        // Inside, the inner routine's entry holds no breakpoint: its call is never seen.
        assert!(!timing.armed().contains(&INNER));
        assert_eq!(
            timing.stop(&stop(SET_UP)),
            Action::Hit("demo::set_up".into())
        );
        // Entered alone (the outer one inlined into the benchmark), the inner one starts the
        // inside itself, each sample, and set-up between samples does not count.
        let mut timing = Timing::new(
            BTreeMap::from([(SET_UP, "demo::set_up".to_string())]),
            BTreeMap::from([(INNER, "test::bench::ns_iter_inner".to_string())]),
            BTreeSet::from([SET_UP]),
        );
        for _ in 0..3 {
            assert!(matches!(timing.stop(&stop(INNER)), Action::Resume { .. }));
            assert!(matches!(timing.stop(&returned()), Action::Resume { .. }));
            assert_eq!(timing.armed(), BTreeSet::from([INNER]));
        }
    }
}
