//! The search of a bisection, as pure bookkeeping: which commits may still hold each benchmark's
//! change, which commit to measure next, and when to stop.
//!
//! Why it is kept apart from measuring: the search must be replayable. A bisection that is
//! interrupted, or run again to re-render its report, rebuilds its state by feeding the recorded
//! step results to [`Search::apply`] in order; nothing here reads the clock, the disk or a random
//! number, so the same results always give the same next step.
//!
//! The range is a set of commits (GOOD excluded, BAD included) in an order where every commit comes
//! after its ancestors, each with the set of commits of the range it contains (itself and its
//! ancestors). A benchmark's change lies in its *candidates*: at the start all of them, as BAD is
//! confirmed changed. Measuring a commit `m` against GOOD tells whether `m` already has the change:
//! if it has, the culprit is among `m`'s ancestors; if not, it is none of them. This is `git
//! bisect`'s rule, and on a first-parent line it is binary search.
//!
//! Each benchmark is searched on its own (two changes in different commits get two culprits), but a
//! step measures together every benchmark whose best next commit is the same one, so benchmarks that
//! changed in the same commit are bisected in the same steps. A benchmark's search stops with a
//! culprit when one candidate is left, or with a range when a step stays inconclusive, when every
//! commit that could split the candidates does not build, or when it has used its budget of
//! decisions ([`Search::decision_budget`]), on which the error control rests
//! (`docs/design/bisect.md`).

use serde::{Deserialize, Serialize};

/// Where a benchmark's change was seen between GOOD and BAD.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Slower (for a time metric) at BAD than at GOOD.
    Regressed,
    /// Faster at BAD than at GOOD.
    Improved,
}

/// What one measurement of a commit against GOOD said about one benchmark.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Evidence {
    /// Changed in the benchmark's direction beyond the threshold: the change is there.
    Present,
    /// Unchanged, or changed the other way: the change is not there yet.
    Absent,
    /// Neither could be told, after every extra fork allowed.
    Inconclusive,
}

/// The commits of the range and their ancestry, in an order where ancestors come first; the last
/// commit is BAD.
#[derive(Debug, Clone)]
pub struct Range {
    /// `contains[i][j]`: commit `j` is commit `i` or one of its ancestors.
    contains: Vec<Vec<bool>>,
}

impl Range {
    /// A first-parent line of `n` commits: commit `i` contains commits `0..=i`.
    pub fn linear(n: usize) -> Range {
        Range {
            contains: (0..n).map(|i| (0..n).map(|j| j <= i).collect()).collect(),
        }
    }

    /// A range from each commit's parents inside the range (indices of earlier commits).
    ///
    /// Returns `None` if a parent does not come before its child.
    pub fn from_parents(parents: &[Vec<usize>]) -> Option<Range> {
        let n = parents.len();
        let mut contains: Vec<Vec<bool>> = Vec::with_capacity(n);
        for (i, ps) in parents.iter().enumerate() {
            let mut set = vec![false; n];
            set[i] = true;
            for &p in ps {
                let parent = contains.get(p)?;
                for (j, &has) in parent.iter().enumerate() {
                    set[j] |= has;
                }
            }
            contains.push(set);
        }
        Some(Range { contains })
    }

    pub fn len(&self) -> usize {
        self.contains.len()
    }

    pub fn is_empty(&self) -> bool {
        self.contains.is_empty()
    }
}

/// Why a benchmark's search ended without one culprit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "why")]
pub enum Unresolved {
    /// The step measuring this commit stayed inconclusive.
    Inconclusive { commit: usize },
    /// Every commit that could narrow the candidates further does not build (or lacks the
    /// benchmark).
    Skipped,
    /// The benchmark used its budget of decisions.
    Budget,
}

/// Where one benchmark's search stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "state")]
pub enum Status {
    Searching,
    /// The one commit left.
    Culprit {
        commit: usize,
    },
    /// The change lies in `candidates` (indices into the range), no closer.
    Range {
        candidates: Vec<usize>,
        unresolved: Unresolved,
    },
}

/// One benchmark's search.
#[derive(Debug, Clone)]
pub struct Target {
    pub id: String,
    pub direction: Direction,
    candidates: Vec<bool>,
    /// Decisions taken so far: every measured attempt at a step counts, inconclusive ones too.
    decisions: usize,
    status: Status,
}

impl Target {
    pub fn status(&self) -> &Status {
        &self.status
    }

    /// The commits that may still hold the change, in range order.
    pub fn candidates(&self) -> Vec<usize> {
        indices(&self.candidates)
    }

    pub fn decisions(&self) -> usize {
        self.decisions
    }
}

/// The next measurement: `commit` against GOOD, for the benchmarks `targets` (indices into
/// [`Search::targets`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    pub commit: usize,
    pub targets: Vec<usize>,
}

/// The whole search: the range, the benchmarks searched and the commits found not to build.
#[derive(Debug, Clone)]
pub struct Search {
    range: Range,
    targets: Vec<Target>,
    skipped: Vec<bool>,
    budget: usize,
}

impl Search {
    /// A search of `range` for the benchmarks confirmed changed (`(id, direction)`), each allowed
    /// `budget` decisions.
    pub fn new(range: Range, changed: Vec<(String, Direction)>, budget: usize) -> Search {
        let n = range.len();
        let targets = changed
            .into_iter()
            .map(|(id, direction)| {
                let mut target = Target {
                    id,
                    direction,
                    candidates: vec![true; n],
                    decisions: 0,
                    status: Status::Searching,
                };
                settle(&mut target);
                target
            })
            .collect();
        Search {
            range,
            targets,
            skipped: vec![false; n],
            budget,
        }
    }

    /// Decisions each benchmark may take: `ceil(log2(n)) + 2` steps (binary search, plus two for
    /// steps moved off the middle by commits that do not build or by merges), each measured at
    /// most `attempts` times.
    pub fn decision_budget(commits: usize, attempts: usize) -> usize {
        let steps = usize::BITS - commits.max(1).saturating_sub(1).leading_zeros();
        (steps as usize + 2) * attempts.max(1)
    }

    pub fn targets(&self) -> &[Target] {
        &self.targets
    }

    /// The commits found not to build or to lack a benchmark, in range order.
    pub fn skipped(&self) -> Vec<usize> {
        indices(&self.skipped)
    }

    pub fn is_done(&self) -> bool {
        self.targets.iter().all(|t| t.status != Status::Searching)
    }

    /// The next step: the best commit of the first benchmark still searching, measured for every
    /// benchmark whose best commit it is too. `None` when every search has ended. Benchmarks
    /// left with no commit to measure end with their range here.
    pub fn next_probe(&mut self) -> Option<Probe> {
        for t in 0..self.targets.len() {
            if self.targets[t].status != Status::Searching {
                continue;
            }
            if self.targets[t].decisions >= self.budget {
                self.end(t, Unresolved::Budget);
                continue;
            }
            match self.best_commit(t) {
                Some(commit) => {
                    let targets = (t..self.targets.len())
                        .filter(|&u| {
                            u == t
                                || (self.targets[u].status == Status::Searching
                                    && self.targets[u].decisions < self.budget
                                    && self.best_commit(u) == Some(commit))
                        })
                        .collect();
                    return Some(Probe { commit, targets });
                }
                None => self.end(t, Unresolved::Skipped),
            }
        }
        None
    }

    /// Records one attempt at measuring `commit` for target `t`: a decision of the budget.
    pub fn count_attempt(&mut self, t: usize) {
        self.targets[t].decisions += 1;
    }

    /// Applies what measuring `commit` said about target `t`.
    pub fn apply(&mut self, t: usize, commit: usize, evidence: Evidence) {
        let contains = &self.range.contains[commit];
        let target = &mut self.targets[t];
        if target.status != Status::Searching {
            return;
        }
        match evidence {
            Evidence::Present => {
                for (c, &inside) in target.candidates.iter_mut().zip(contains) {
                    *c &= inside;
                }
            }
            Evidence::Absent => {
                for (c, &inside) in target.candidates.iter_mut().zip(contains) {
                    *c &= !inside;
                }
            }
            Evidence::Inconclusive => {
                self.end(t, Unresolved::Inconclusive { commit });
                return;
            }
        }
        settle(target);
    }

    /// Marks `commit` as one that cannot be measured (it does not build, or lacks a benchmark).
    pub fn skip(&mut self, commit: usize) {
        self.skipped[commit] = true;
    }

    fn end(&mut self, t: usize, unresolved: Unresolved) {
        let target = &mut self.targets[t];
        target.status = Status::Range {
            candidates: indices(&target.candidates),
            unresolved,
        };
    }

    /// The commit that splits target `t`'s candidates most evenly (git bisect's choice): among the
    /// measurable commits, the one whose share of the candidates is closest to half, the earliest
    /// on a tie. A commit containing none or all of the candidates says nothing.
    fn best_commit(&self, t: usize) -> Option<usize> {
        let candidates = &self.targets[t].candidates;
        let total = candidates.iter().filter(|&&c| c).count();
        (0..self.range.len())
            .filter(|&m| candidates[m] && !self.skipped[m])
            .filter_map(|m| {
                let inside = self.range.contains[m]
                    .iter()
                    .zip(candidates)
                    .filter(|&(&a, &b)| a && b)
                    .count();
                (inside > 0 && inside < total).then(|| ((2 * inside).abs_diff(total), m))
            })
            .min()
            .map(|(_, m)| m)
    }
}

/// Ends a target's search when its candidates say all: one left is the culprit.
fn settle(target: &mut Target) {
    let left = indices(&target.candidates);
    if let [only] = left.as_slice() {
        target.status = Status::Culprit { commit: *only };
    } else if left.is_empty() {
        // Contradicting evidence (possible only through a wrong decision): nothing to name.
        target.status = Status::Range {
            candidates: Vec::new(),
            unresolved: Unresolved::Inconclusive { commit: 0 },
        };
    }
}

fn indices(set: &[bool]) -> Vec<usize> {
    set.iter()
        .enumerate()
        .filter(|&(_, &s)| s)
        .map(|(i, _)| i)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs a search to its end with `truth(target, commit)` answering every probe, `broken`
    /// commits skipped; returns the probes made.
    fn drive(
        search: &mut Search,
        broken: &[usize],
        truth: impl Fn(usize, usize) -> Evidence,
    ) -> Vec<Probe> {
        let mut probes = Vec::new();
        while let Some(probe) = search.next_probe() {
            probes.push(probe.clone());
            assert!(probes.len() < 100, "the search does not end");
            if broken.contains(&probe.commit) {
                search.skip(probe.commit);
                continue;
            }
            for &t in &probe.targets {
                search.count_attempt(t);
                search.apply(t, probe.commit, truth(t, probe.commit));
            }
        }
        probes
    }

    fn from(culprit: usize) -> impl Fn(usize, usize) -> Evidence {
        move |_, commit| {
            if commit >= culprit {
                Evidence::Present
            } else {
                Evidence::Absent
            }
        }
    }

    fn one(n: usize) -> Search {
        Search::new(
            Range::linear(n),
            vec![("a".into(), Direction::Regressed)],
            Search::decision_budget(n, 1),
        )
    }

    #[test]
    fn every_culprit_of_a_line_is_found_in_log2_steps() {
        for n in 1..=40 {
            for culprit in 0..n {
                let mut search = one(n);
                let probes = drive(&mut search, &[], from(culprit));
                assert_eq!(
                    search.targets()[0].status(),
                    &Status::Culprit { commit: culprit },
                    "n {n} culprit {culprit}"
                );
                let log2 = (n as f64).log2().ceil() as usize;
                assert!(probes.len() <= log2, "n {n}: {} probes", probes.len());
                // BAD itself is confirmed already: never measured again.
                assert!(probes.iter().all(|p| p.commit != n - 1));
            }
        }
    }

    #[test]
    fn a_commit_that_does_not_build_is_stepped_around() {
        // Twelve commits, commit 6 does not build, commit 8 is the culprit: 7 is measured
        // instead of 6.
        let mut search = one(12);
        let probes = drive(&mut search, &[6], from(8));
        assert_eq!(search.targets()[0].status(), &Status::Culprit { commit: 8 });
        assert_eq!(search.skipped(), vec![6]);
        assert!(probes.iter().any(|p| p.commit == 6));
    }

    #[test]
    fn a_broken_commit_next_to_the_culprit_leaves_a_range_naming_both() {
        // The culprit 5 cannot be told apart from 4, which does not build.
        let mut search = one(10);
        drive(&mut search, &[4], from(5));
        assert_eq!(
            search.targets()[0].status(),
            &Status::Range {
                candidates: vec![4, 5],
                unresolved: Unresolved::Skipped
            }
        );
    }

    #[test]
    fn an_inconclusive_step_ends_with_the_range_narrowed_so_far() {
        let mut search = one(16);
        let probe = search.next_probe().unwrap();
        search.count_attempt(0);
        search.apply(0, probe.commit, Evidence::Absent);
        let probe = search.next_probe().unwrap();
        search.count_attempt(0);
        search.apply(0, probe.commit, Evidence::Inconclusive);
        let Status::Range {
            candidates,
            unresolved,
        } = search.targets()[0].status().clone()
        else {
            panic!("not a range");
        };
        assert_eq!(
            unresolved,
            Unresolved::Inconclusive {
                commit: probe.commit
            }
        );
        assert_eq!(candidates, (8..16).collect::<Vec<_>>());
        assert!(search.next_probe().is_none());
    }

    #[test]
    fn two_changes_in_different_commits_get_their_own_culprits() {
        // Target 0 changed at commit 3, target 1 at commit 9: shared steps until they part.
        let mut search = Search::new(
            Range::linear(12),
            vec![
                ("slower".into(), Direction::Regressed),
                ("faster".into(), Direction::Improved),
            ],
            Search::decision_budget(12, 1),
        );
        let culprits = [3, 9];
        let probes = drive(&mut search, &[], |t, commit| from(culprits[t])(t, commit));
        assert_eq!(search.targets()[0].status(), &Status::Culprit { commit: 3 });
        assert_eq!(search.targets()[1].status(), &Status::Culprit { commit: 9 });
        assert_eq!(probes[0].targets, vec![0, 1], "the first step serves both");
        assert!(probes.len() <= 8);
        for target in search.targets() {
            assert!(target.decisions() <= Search::decision_budget(12, 1));
        }
    }

    #[test]
    fn the_budget_ends_a_search_that_keeps_stepping_around_broken_commits() {
        // Every other commit does not build: the search still ends, with a range or a culprit,
        // within the budget.
        let broken: Vec<usize> = (0..31).filter(|c| c % 2 == 1).collect();
        let mut search = one(32);
        drive(&mut search, &broken, from(20));
        let status = search.targets()[0].status().clone();
        match status {
            Status::Range { candidates, .. } => assert!(candidates.contains(&20)),
            Status::Culprit { commit } => assert_eq!(commit, 20),
            Status::Searching => panic!("still searching"),
        }
        assert!(search.targets()[0].decisions() <= Search::decision_budget(32, 1));
    }

    #[test]
    fn merges_are_bisected_by_ancestry() {
        // 0 ─ 1 ─ 2 ─────── 5 (merge of 2 and 4) ─ 6
        //      └── 3 ─ 4 ──┘
        // The culprit is 3, on the side branch.
        let parents = vec![
            vec![],
            vec![0],
            vec![1],
            vec![1],
            vec![3],
            vec![2, 4],
            vec![5],
        ];
        let range = Range::from_parents(&parents).unwrap();
        let mut search = Search::new(
            range.clone(),
            vec![("a".into(), Direction::Regressed)],
            Search::decision_budget(7, 1),
        );
        drive(&mut search, &[], |_, commit| {
            if range.contains[commit][3] {
                Evidence::Present
            } else {
                Evidence::Absent
            }
        });
        assert_eq!(search.targets()[0].status(), &Status::Culprit { commit: 3 });
        assert!(Range::from_parents(&[vec![1], vec![]]).is_none());
    }

    #[test]
    fn budgets_grow_with_log2_of_the_range_and_the_attempts() {
        assert_eq!(Search::decision_budget(1, 1), 2);
        assert_eq!(Search::decision_budget(2, 1), 3);
        assert_eq!(Search::decision_budget(12, 1), 6);
        assert_eq!(Search::decision_budget(16, 2), 12);
        assert_eq!(Search::decision_budget(17, 2), 14);
    }
}
