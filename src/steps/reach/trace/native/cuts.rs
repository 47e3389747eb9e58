//! One native run of several criterion benchmarks cut into parts at criterion's
//! `<Reports as Report>::test_start` and `test_pass` (docs/design/selection-trace.md, "One
//! native run, split"): outside, benchmark 1, outside, benchmark 2, …, outside, as callgrind's
//! dumps cut the valgrind run ([`crate::steps::reach::trace::split`]).
//!
//! Why the breakpoints change at each cut: an entry is one-shot (its byte restored at its first
//! hit), so a function first entered in benchmark 1's part would go unseen in benchmark 3's,
//! which is given only the outside parts before it and its own. So at every cut the benchmark
//! process's breakpoints are rewritten to every function's entry except those hit in an
//! *outside* part so far (given to every later benchmark anyway, they need no second look) and
//! the boundary just hit (its instruction runs next): a function costs at most one stop per part
//! it is entered in, and the two boundaries stay armed, each re-armed at the other's hit. The
//! timed routine's state machine ([`super::timed`]) starts each part afresh: no entry timed, and
//! on leaving a routine it re-arms what the part has not entered ([`TimedPart::next_part`]).
//!
//! What is not cut here, only recorded for the caller to refuse: a boundary out of order
//! (`test_start` inside a benchmark's part, `test_pass` outside one), a run that ends inside a
//! benchmark's part. Entries hit in other processes are given to every benchmark.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use super::timed::TimedPart;
use crate::steps::reach::trace::budget::Budget;

/// Where a run is cut: the entries (ELF virtual addresses) of criterion's `test_start` and
/// `test_pass`, and the most one part may take (a set-up that hangs stops the run after one
/// benchmark's budget, not all of theirs).
#[derive(Debug, Clone, Copy)]
pub struct CutAt<'a> {
    pub starts: &'a [u64],
    pub passes: &'a [u64],
    pub part: Budget,
}

/// The parts of the run so far: a [`Cut`] in the running process's addresses, and what cutting
/// it needs besides.
#[derive(Debug)]
pub(super) struct Cuts {
    starts: BTreeSet<u64>,
    passes: BTreeSet<u64>,
    /// Entries hit in the outside parts so far.
    given: BTreeSet<u64>,
    began: Instant,
    so_far: Cut,
}

/// A finished run's parts, as ELF virtual addresses ([`Cuts::finish`]).
#[derive(Debug, Default)]
pub struct Cut {
    /// The entries hit in each part of the benchmark's process: outside, benchmark, …, outside.
    pub parts: Vec<BTreeSet<u64>>,
    /// The entries hit in other processes.
    pub others: BTreeSet<u64>,
    /// Each benchmark part's timed part, or why it is not known.
    pub timed: Vec<Result<BTreeSet<u64>, String>>,
    /// The length of the benchmark process's system-call log at each cut.
    pub log_at: Vec<usize>,
    /// How long each part ran (under the trace's stops).
    pub durations: Vec<Duration>,
    /// Why the parts are not in the order expected (`None`: they are).
    pub wrong: Option<String>,
}

impl Cuts {
    /// Cuts at the entries `starts` (`test_start`) and `passes` (`test_pass`).
    pub fn new(starts: BTreeSet<u64>, passes: BTreeSet<u64>) -> Self {
        Cuts {
            starts,
            passes,
            given: BTreeSet::new(),
            began: Instant::now(),
            so_far: Cut {
                parts: vec![BTreeSet::new()],
                ..Cut::default()
            },
        }
    }

    /// Whether a benchmark's part is running.
    fn inside(&self) -> bool {
        self.so_far.parts.len().is_multiple_of(2)
    }

    pub fn is_boundary(&self, at: u64) -> bool {
        self.starts.contains(&at) || self.passes.contains(&at)
    }

    /// The entry `at` hit by the benchmark's process, in the current part.
    pub fn entered(&mut self, at: u64) {
        if !self.inside() {
            self.given.insert(at);
        }
        if let Some(part) = self.so_far.parts.last_mut() {
            part.insert(at);
        }
    }

    /// The entry `at` hit by another process.
    pub fn entered_elsewhere(&mut self, at: u64) {
        self.so_far.others.insert(at);
    }

    /// The boundary `at` hit by the benchmark's process, whose log is `log_len` bytes long: the
    /// next part begins (`test_start`'s entry is its benchmark's, `test_pass`'s too); the
    /// breakpoints to write (module docs).
    pub fn boundary(&mut self, at: u64, part: &mut TimedPart, log_len: usize) -> BTreeSet<u64> {
        let start = self.starts.contains(&at);
        if start == self.inside() {
            let (which, where_) = match start {
                true => ("test_start", "inside"),
                false => ("test_pass", "outside"),
            };
            self.so_far.wrong.get_or_insert(format!(
                "criterion's `{which}` was entered {where_} a benchmark (part {})",
                self.so_far.parts.len()
            ));
        }
        if !start {
            self.entered(at);
        }
        self.so_far.durations.push(self.began.elapsed());
        self.began = Instant::now();
        self.so_far.log_at.push(log_len);
        self.so_far.parts.push(BTreeSet::new());
        if start {
            self.entered(at);
        }
        let mut disarmed = self.given.clone();
        disarmed.insert(at);
        let ended = part.next_part(disarmed);
        if !start {
            self.so_far.timed.push(ended);
        }
        let mut armed = part.armed_outside();
        armed.remove(&at);
        armed
    }

    /// The parts at the run's end, `bias` taken off every address.
    pub fn finish(self, bias: u64) -> Cut {
        let inside = self.inside();
        let mut cut = self.so_far;
        cut.durations.push(self.began.elapsed());
        if inside {
            let why = "the run ended inside a benchmark's part";
            cut.wrong.get_or_insert(why.to_string());
        }
        let unbiased = |set: BTreeSet<u64>| set.into_iter().map(|a| a.wrapping_sub(bias)).collect();
        Cut {
            parts: cut.parts.into_iter().map(unbiased).collect(),
            others: unbiased(cut.others),
            timed: cut
                .timed
                .into_iter()
                .map(|timed| timed.map(unbiased))
                .collect(),
            ..cut
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::steps::reach::probe::timing::test_stops::{returned, stop};

    const START: u64 = 0x100;
    const PASS: u64 = 0x200;
    const ITER: u64 = 0x1000;
    const SHARED: u64 = 0x2000;
    const SET_UP: u64 = 0x3000;
    const NEVER: u64 = 0x4000;

    /// A hit of the benchmark's process at `at`, as the follower records it.
    fn hit(cuts: &mut Cuts, part: &mut TimedPart, at: u64) -> Option<BTreeSet<u64>> {
        let trap = part.stop(&stop(at), false);
        if cuts.is_boundary(at) {
            return Some(cuts.boundary(at, part, 0));
        }
        cuts.entered(at);
        match trap {
            super::super::timed::Trap::Resume { rewrite } => rewrite,
            super::super::timed::Trap::Foreign => None,
        }
    }

    #[test]
    fn each_cut_re_arms_what_benchmark_parts_entered_and_not_what_outside_parts_did() {
        let functions = BTreeSet::from([START, PASS, ITER, SHARED, SET_UP, NEVER]);
        let mut part = TimedPart::new(functions, Ok(BTreeSet::from([ITER])));
        let mut cuts = Cuts::new(BTreeSet::from([START]), BTreeSet::from([PASS]));
        hit(&mut cuts, &mut part, SET_UP);
        // Benchmark 1: everything armed but the set-up's entry (given) and `test_start`.
        let armed = hit(&mut cuts, &mut part, START).unwrap();
        assert_eq!(armed, BTreeSet::from([PASS, ITER, SHARED, NEVER]));
        hit(&mut cuts, &mut part, ITER);
        hit(&mut cuts, &mut part, SHARED);
        // Leaving the routine re-arms what this part has not entered.
        let left = part.stop(&returned(), false);
        let outside = BTreeSet::from([PASS, ITER, NEVER]);
        let rewrite = super::super::timed::Trap::Resume {
            rewrite: Some(outside),
        };
        assert_eq!(left, rewrite);
        // Outside again: `SHARED`, entered only in a benchmark's part, is armed again.
        let armed = hit(&mut cuts, &mut part, PASS).unwrap();
        assert_eq!(armed, BTreeSet::from([START, ITER, SHARED, NEVER]));
        let armed = hit(&mut cuts, &mut part, START).unwrap();
        assert_eq!(armed, BTreeSet::from([PASS, ITER, SHARED, NEVER]));
        hit(&mut cuts, &mut part, PASS);
        let cut = cuts.finish(0);
        assert_eq!(cut.wrong, None);
        assert_eq!(cut.parts.len(), 5);
        assert_eq!(cut.parts[1], BTreeSet::from([START, ITER, SHARED, PASS]));
        assert_eq!(cut.timed[0], Ok(BTreeSet::from([ITER, SHARED])));
        assert_eq!(cut.timed[1], Err("no timed routine was entered".into()));
        assert_eq!(cut.log_at.len(), 4);
    }

    #[test]
    fn a_boundary_out_of_order_or_a_run_ending_inside_a_benchmark_is_wrong() {
        let functions = BTreeSet::from([START, PASS]);
        let mut part = TimedPart::new(functions.clone(), Err("none".into()));
        let mut cuts = Cuts::new(BTreeSet::from([START]), BTreeSet::from([PASS]));
        hit(&mut cuts, &mut part, PASS);
        assert!(cuts.finish(0).wrong.unwrap().contains("test_pass"));
        let mut part = TimedPart::new(functions, Err("none".into()));
        let mut cuts = Cuts::new(BTreeSet::from([START]), BTreeSet::from([PASS]));
        hit(&mut cuts, &mut part, START);
        assert!(cuts.finish(0).wrong.unwrap().contains("ended inside"));
    }
}
