//! Which functions the native trace saw entered inside the benchmark's timed routine (its
//! [`crate::steps::reach::trace::Trace::timed`] part), with the probe's state machine
//! ([`Routine`]: a routine's entry makes it inside, its return address, reached by the same
//! thread and frame, outside again).
//!
//! Why: a trace without its timed part counts every executed changed function as timed, so a
//! benchmark whose changed code runs only in its set-up (compiled differently from the same
//! source) is measured; the valgrind trace reads its timed part from the call graph, the native
//! trace has no graph and must watch the routine as the probe does.
//!
//! The breakpoints of the leader process are in one of two sets. *Outside*: the entry of every
//! function not entered yet, and the timed routines' entries. *Inside*: the entry of every
//! function not yet entered inside, and the routine's return address. A function entered first
//! in the set-up has its breakpoint removed at that hit (later calls of the set-up run at native
//! speed) and written back when a routine is entered, so that a call inside counts it as timed;
//! at the return, the breakpoints of the functions already entered are removed again. Each
//! change of state rewrites the leader's whole set (the code is read, patched and written back),
//! so the memory's breakpoints never depend on which hits came before (a `vfork`ed child restores
//! bytes in memory it shares). The cost, in breakpoint stops: each function at most once outside
//! and once inside per call of the routine, plus two stops a call (a harness's test mode makes one
//! call), where keeping every breakpoint until a function is seen inside would stop at every call
//! of a set-up function.
//!
//! Where the state cannot be trusted, the timed part is unknown (why, in one line) and the trace
//! goes on with one-shot breakpoints: a routine entered or left beside another thread that may be
//! running (one asleep in a system call, which the tracer saw start, runs nothing: libtest's main
//! thread waiting for the thread it runs the benchmark on; at an entry the tracer first gives the
//! other threads a moment to fall asleep, reading the stops they make meanwhile), another thread
//! of the process stopping while it runs ([`TimedPart::stopped`]), a routine entered by a child
//! process or while one runs; a thread or process started inside it; its return reached by
//! another thread or frame; a return address at a function's entry.

use std::collections::BTreeSet;

use crate::steps::reach::probe::timing::{Routine, Stop};

/// What the tracer does after a breakpoint stop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Trap {
    /// Not a breakpoint of the trace: the program's own trap, passed on.
    Foreign,
    /// Resume the thread at the breakpoint's address: with `rewrite`, after writing the leader's
    /// breakpoints so that exactly those addresses hold one; without, after restoring the byte
    /// at the breakpoint in the stopped thread's process.
    Resume { rewrite: Option<BTreeSet<u64>> },
}

/// The functions entered, in and out of the timed routine (addresses in the running process).
#[derive(Debug, Clone)]
pub(super) struct TimedPart {
    functions: BTreeSet<u64>,
    routines: BTreeSet<u64>,
    routine: Routine,
    /// Every function entry hit.
    pub entered: BTreeSet<u64>,
    /// The entries left without a breakpoint outside a routine: those hit, in a run that is not
    /// split; in a split run, those hit in the current part and the ones [`TimedPart::next_part`]
    /// was given (entries that need not be seen again).
    disarmed: BTreeSet<u64>,
    /// Those hit inside a timed routine.
    timed: BTreeSet<u64>,
    /// Why the timed part is not known (`None` while it is).
    unknown: Option<String>,
    /// Breakpoint stops so far (the trace's cost beyond system calls).
    pub stops: u64,
    /// Whether a timed routine's entry was hit.
    pub routine_entered: bool,
}

impl TimedPart {
    /// The trace of `functions` (every function entry), those of `routines` the timed routines';
    /// `Err(why)`: no routine is known, every entry is one-shot and the part stays unknown.
    pub fn new(functions: BTreeSet<u64>, routines: Result<BTreeSet<u64>, String>) -> Self {
        let (routines, unknown) = match routines {
            Ok(routines) if !routines.is_empty() => (routines, None),
            Ok(_) => (
                BTreeSet::new(),
                Some("no timed routine is known".to_string()),
            ),
            Err(why) => (BTreeSet::new(), Some(why)),
        };
        TimedPart {
            functions,
            routines,
            routine: Routine::default(),
            entered: BTreeSet::new(),
            disarmed: BTreeSet::new(),
            timed: BTreeSet::new(),
            unknown,
            stops: 0,
            routine_entered: false,
        }
    }

    /// Whether a timed routine is being run.
    pub fn inside(&self) -> bool {
        self.routine.returns_to().is_some()
    }

    /// Whether `at` is a timed routine's entry.
    pub fn is_routine(&self, at: u64) -> bool {
        self.routines.contains(&at)
    }

    /// Whether `at` is a function's entry.
    pub fn is_function(&self, at: u64) -> bool {
        self.functions.contains(&at)
    }

    /// The breakpoints the leader holds at its start: every function's entry.
    pub fn armed_at_start(&self) -> &BTreeSet<u64> {
        &self.functions
    }

    /// The timed part (the entries hit inside a timed routine), or why it is not known.
    pub fn finish(self) -> Result<BTreeSet<u64>, String> {
        self.so_far()
    }

    /// The timed part of the part so far ([`TimedPart::finish`]).
    fn so_far(&self) -> Result<BTreeSet<u64>, String> {
        match &self.unknown {
            Some(why) => Err(why.clone()),
            None if !self.routine_entered => Err("no timed routine was entered".to_string()),
            None if self.routine.returns_to().is_some() => {
                Err("its timed routine never returned".to_string())
            }
            None => Ok(self.timed.clone()),
        }
    }

    /// A split run's next part begins ([`super::cuts`]): the timed part of the one that ends
    /// (or why it is not known), and the next starts with no entry timed, no routine entered,
    /// and `disarmed` the entries left without a breakpoint outside a routine. A routine not
    /// returned from by the end of its part leaves the state untrusted for the rest of the run.
    pub fn next_part(&mut self, disarmed: BTreeSet<u64>) -> Result<BTreeSet<u64>, String> {
        let ended = self.so_far();
        if self.inside() {
            self.lose("a timed routine was still running at a benchmark's end".to_string());
        }
        self.timed.clear();
        self.routine_entered = false;
        self.disarmed = disarmed;
        ended
    }

    /// The breakpoints outside a routine: every function's entry not disarmed, and the routines'
    /// entries.
    pub fn armed_outside(&self) -> BTreeSet<u64> {
        let outside = self.functions.difference(&self.disarmed).copied();
        outside.chain(self.routines.iter().copied()).collect()
    }

    /// Any stop of `thread`, a thread of the benchmark's process: inside a routine that another
    /// thread runs, the part is lost. Why: the routine was entered only while every other thread
    /// was asleep in a system call ([`Stop::asleep`]); one that stops (its call ended, a
    /// breakpoint, a signal) runs the program's code beside the routine, and what it runs
    /// cannot be placed inside or outside it.
    pub fn stopped(&mut self, thread: i32) {
        if self.routine.thread().is_some_and(|inside| inside != thread) {
            self.lose(
                "another thread of its process woke while the timed routine ran: what it ran \
                 cannot be placed inside or outside it"
                    .to_string(),
            );
        }
    }

    /// A thread or process started (`clone`, `fork`, `vfork`): inside a routine, the part is lost.
    pub fn started_task(&mut self) {
        if self.routine.returns_to().is_some() {
            self.lose("a thread or process was started inside the timed routine".to_string());
        }
    }

    /// What to do after `stop`; `children`: whether a child process is running beside the
    /// benchmark's.
    pub fn stop(&mut self, stop: &Stop, children: bool) -> Trap {
        let function = self.functions.contains(&stop.at);
        if !function && !self.routine.was_return(stop.at) {
            return Trap::Foreign;
        }
        self.stops += 1;
        if function {
            self.entered.insert(stop.at);
            self.disarmed.insert(stop.at);
        }
        let routine = self.routines.contains(&stop.at);
        self.routine_entered |= routine;
        let one_shot = Trap::Resume { rewrite: None };
        if self.unknown.is_some() || !stop.own_process {
            if self.unknown.is_none() && routine {
                self.lose("a child process entered the timed routine".to_string());
            }
            return one_shot;
        }
        match self.routine.returns_to() {
            None if routine => self.enter(stop, children),
            None if function => one_shot,
            None => self.lose_at(stop.at),
            Some(returns_to) if stop.at == returns_to => self.leave(stop),
            Some(_) if function => {
                self.timed.insert(stop.at);
                one_shot
            }
            Some(_) => self.lose_at(stop.at),
        }
    }

    /// A routine's entry reached outside: inside now, every function not entered inside armed.
    fn enter(&mut self, stop: &Stop, children: bool) -> Trap {
        if children {
            self.lose("a child process was running when the timed routine was entered".into());
            return Trap::Resume { rewrite: None };
        }
        if self.functions.contains(&stop.top) {
            self.lose("the timed routine's return address is a function's entry".into());
            return Trap::Resume { rewrite: None };
        }
        if let Err(why) = self.routine.enter(stop) {
            self.lose(why);
            return Trap::Resume { rewrite: None };
        }
        self.timed.insert(stop.at);
        let inside = self.functions.difference(&self.timed).copied();
        Trap::Resume {
            rewrite: Some(inside.chain([stop.top]).collect()),
        }
    }

    /// The routine's return address reached inside: outside again, the functions entered
    /// disarmed, the routines armed.
    fn leave(&mut self, stop: &Stop) -> Trap {
        if let Err(why) = self.routine.leave(stop) {
            self.lose(why);
            return Trap::Resume { rewrite: None };
        }
        Trap::Resume {
            rewrite: Some(self.armed_outside()),
        }
    }

    /// A stop at a return address that is not the current one: lost, the byte restored.
    fn lose_at(&mut self, at: u64) -> Trap {
        self.lose(format!(
            "a thread stopped at {at:#x}, a return address of the timed routine, outside its call"
        ));
        Trap::Resume { rewrite: None }
    }

    fn lose(&mut self, why: String) {
        self.unknown.get_or_insert(why);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::steps::reach::probe::timing::test_stops::{RETURN, SP, returned, stop};

    const ITER: u64 = 0x1000;
    const SET_UP: u64 = 0x2000;
    const BOTH: u64 = 0x2100;
    const IN_LOOP: u64 = 0x3000;
    const NEVER: u64 = 0x3100;

    fn part() -> TimedPart {
        TimedPart::new(
            BTreeSet::from([ITER, SET_UP, BOTH, IN_LOOP, NEVER]),
            Ok(BTreeSet::from([ITER])),
        )
    }

    const ONE_SHOT: Trap = Trap::Resume { rewrite: None };

    fn rewrite(addresses: &[u64]) -> Trap {
        Trap::Resume {
            rewrite: Some(addresses.iter().copied().collect()),
        }
    }

    #[test]
    fn a_function_entered_in_set_up_and_again_inside_is_timed_one_only_in_set_up_is_not() {
        let mut part = part();
        assert_eq!(part.stop(&stop(SET_UP), false), ONE_SHOT);
        assert_eq!(part.stop(&stop(BOTH), false), ONE_SHOT);
        // Entering re-arms every function not entered inside (the set-up's too) and the return.
        assert_eq!(
            part.stop(&stop(ITER), false),
            rewrite(&[SET_UP, BOTH, IN_LOOP, NEVER, RETURN])
        );
        assert_eq!(part.stop(&stop(BOTH), false), ONE_SHOT);
        assert_eq!(part.stop(&stop(IN_LOOP), false), ONE_SHOT);
        // Outside again: only what was never entered, and the routine.
        assert_eq!(part.stop(&returned(), false), rewrite(&[ITER, NEVER]));
        assert_eq!(part.stops, 6);
        assert_eq!(part.entered, BTreeSet::from([ITER, SET_UP, BOTH, IN_LOOP]));
        assert_eq!(part.finish(), Ok(BTreeSet::from([ITER, BOTH, IN_LOOP])));
    }

    #[test]
    fn a_second_call_re_arms_only_what_the_first_did_not_enter_inside() {
        let mut part = part();
        part.stop(&stop(ITER), false);
        part.stop(&stop(IN_LOOP), false);
        part.stop(&returned(), false);
        assert_eq!(part.stop(&stop(SET_UP), false), ONE_SHOT);
        assert_eq!(
            part.stop(&stop(ITER), false),
            rewrite(&[SET_UP, BOTH, NEVER, RETURN])
        );
        assert_eq!(part.stop(&returned(), false), rewrite(&[ITER, BOTH, NEVER]));
        assert_eq!(part.finish(), Ok(BTreeSet::from([ITER, IN_LOOP])));
    }

    #[test]
    fn threads_children_and_other_frames_make_the_part_unknown_and_the_trace_goes_on() {
        let lost = |stops: &[(Stop, bool)]| {
            let mut part = part();
            for (stop, children) in stops {
                part.stop(stop, *children);
            }
            part.stop(&stop(SET_UP), false);
            assert!(part.entered.contains(&SET_UP));
            part.finish().unwrap_err()
        };
        let crowded = Stop {
            threads: 2,
            ..stop(ITER)
        };
        assert!(lost(&[(crowded, false)]).contains("2 threads"));
        assert!(lost(&[(stop(ITER), true)]).contains("child process was running"));
        let child = Stop {
            own_process: false,
            ..stop(ITER)
        };
        assert!(lost(&[(child, false)]).contains("child process entered"));
        let other_frame = Stop {
            sp: SP - 64,
            ..returned()
        };
        assert!(lost(&[(stop(ITER), false), (other_frame, false)]).contains("frame"));
        let mut part = part();
        part.stop(&stop(ITER), false);
        part.started_task();
        // Lost: hits are one-shot from here, the return address's byte restored.
        assert_eq!(part.stop(&returned(), false), ONE_SHOT);
        assert!(part.finish().unwrap_err().contains("started inside"));
    }

    #[test]
    fn a_routine_run_on_a_thread_of_its_own_beside_a_sleeping_one_has_its_part() {
        // libtest's shape: the main thread asleep in a system call (waiting for the result), the
        // benchmark on the thread it started, set-up and routine both.
        let on_thread = |at: u64| Stop {
            threads: 2,
            asleep: 1,
            ..stop(at)
        };
        let returned_on_thread = Stop {
            threads: 2,
            asleep: 1,
            ..returned()
        };
        let mut part = part();
        part.stop(&on_thread(SET_UP), false);
        assert_eq!(
            part.stop(&on_thread(ITER), false),
            rewrite(&[SET_UP, BOTH, IN_LOOP, NEVER, RETURN])
        );
        part.stopped(7);
        part.stop(&on_thread(IN_LOOP), false);
        assert_eq!(
            part.stop(&returned_on_thread, false),
            rewrite(&[ITER, BOTH, NEVER])
        );
        // After the return, the main thread wakes (the result came): outside, nothing lost.
        part.stopped(1);
        assert_eq!(part.finish(), Ok(BTreeSet::from([ITER, IN_LOOP])));
        // The other thread woke while the routine ran: unknown.
        let mut woke = self::part();
        woke.stop(&on_thread(ITER), false);
        woke.stopped(1);
        woke.stop(&returned_on_thread, false);
        assert!(woke.finish().unwrap_err().contains("another thread"));
        // The other thread running (not asleep in a call) when the routine was entered: unknown.
        let mut running = self::part();
        running.stop(
            &Stop {
                asleep: 0,
                ..on_thread(ITER)
            },
            false,
        );
        assert!(
            running
                .finish()
                .unwrap_err()
                .contains("1 of them not asleep")
        );
    }

    #[test]
    fn without_a_routine_or_its_entry_the_part_is_unknown_and_the_program_s_traps_are_its_own() {
        let mut part = TimedPart::new(BTreeSet::from([SET_UP]), Err("inlined".into()));
        assert_eq!(part.stop(&stop(SET_UP), false), ONE_SHOT);
        assert_eq!(part.stop(&stop(0x9999), false), Trap::Foreign);
        assert_eq!(part.finish(), Err("inlined".to_string()));
        let mut never = self::part();
        never.stop(&stop(SET_UP), false);
        assert_eq!(never.finish(), Err("no timed routine was entered".into()));
        let mut unreturned = self::part();
        unreturned.stop(&stop(ITER), false);
        assert!(unreturned.finish().unwrap_err().contains("never returned"));
    }
}
