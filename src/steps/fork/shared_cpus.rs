//! When duet's two CPUs are shared: the rule that ends duet mode for the rest of a run.
//!
//! Why: duet pins base and head to two CPUs and cancels what hits both at once. What runs on
//! one of those CPUs besides the fork preempts it at moments its partner does not share, and
//! that does not cancel: beside a noisy neighbour on a 2-core machine duet forks waited for a
//! CPU 10–19 % of their ready time, and duet found nothing (every verdict `inconclusive`,
//! intervals up to [0.45, 3.30]) where interleaved runs beside the same neighbour found +10 %
//! every time. A fork records its own wait ([`super::cpu_wait`]), so a run sees after each duet
//! round whether its CPUs were free; when they were not, the remaining rounds run interleaved
//! (unpinned forks go where the scheduler finds room), unless the user keeps duet.
//!
//! The limit, [`SHARED_FROM`], is 2 % of a round's ready time, weighted by the forks' wall
//! time: on quiet machines no round of the committed recordings reached 0.4 % (60 rounds of six
//! crates, `fixtures/recordings/`), and beside the neighbour forks waited five times the limit
//! or more; a fork slowed by 2 % at moments its partner is not is as large as the default
//! relevance threshold. The round that showed it is set aside: its pairs were measured on shared
//! CPUs, and left in they would widen every later interval (docs/design/duet.md#when-the-two-cpus-are-shared).

use std::collections::BTreeMap;

use crate::model::harness::PerFork;
use crate::model::samples::{CpuWait, ForkRecord, Mode, ModeChange, Repinned, SampleFile};

/// A duet round whose forks waited for a CPU this share of their ready time or more (weighted by
/// wall time) shows its two CPUs shared.
pub const SHARED_FROM: f64 = 0.02;

/// The CPU wait of one round's duet forks, wall-weighted: in all and per pinned CPU.
#[derive(Debug, Clone, PartialEq)]
pub struct RoundWait {
    pub share: f64,
    pub cpus: Vec<CpuWait>,
}

/// Whether `fork` ran in round `round` as one side of a duet pair and measured time: pinned, in
/// the run's mode (not an interleaved round), and not a command's memory record, which repeats
/// its time fork.
pub fn is_duet_fork_of(fork: &ForkRecord, round: usize) -> bool {
    fork.round == Some(round)
        && fork.cpu.is_some()
        && fork.mode.is_none()
        && fork.per_fork != Some(PerFork::PeakMemory)
}

/// The CPU wait of `forks` (wall-weighted, in all and per CPU), over those that recorded their
/// CPU, wait and wall time; `None` when none did (not Linux, or no duet fork).
pub fn round_wait<'a>(forks: impl IntoIterator<Item = &'a ForkRecord>) -> Option<RoundWait> {
    // Per CPU: Σ share × wall, Σ wall, forks.
    let mut by_cpu: BTreeMap<usize, (f64, f64, usize)> = BTreeMap::new();
    for fork in forks {
        let (Some(cpu), Some(share), Some(wall)) = (fork.cpu, fork.cpu_wait_share, fork.wall_ms)
        else {
            continue;
        };
        let entry = by_cpu.entry(cpu).or_default();
        entry.0 += share * wall;
        entry.1 += wall;
        entry.2 += 1;
    }
    let (weighted, wall) = by_cpu
        .values()
        .fold((0.0, 0.0), |(w, t), (cw, ct, _)| (w + cw, t + ct));
    (wall > 0.0).then(|| RoundWait {
        share: weighted / wall,
        cpus: by_cpu
            .into_iter()
            .map(|(cpu, (weighted, wall, forks))| CpuWait {
                cpu,
                cpu_wait_share: if wall > 0.0 { weighted / wall } else { 0.0 },
                forks,
            })
            .collect(),
    })
}

/// The CPU wait of duet round `round` of `file`, over every benchmark's forks of that round.
pub fn wait_of_round(file: &SampleFile, round: usize) -> Option<RoundWait> {
    round_wait(
        file.benchmarks
            .iter()
            .flat_map(|b| b.base.forks.iter().chain(&b.head.forks))
            .filter(|f| is_duet_fork_of(f, round)),
    )
}

/// The decision after duet round `round`, whose forks waited `wait`: `None` while the CPUs were
/// free (below [`SHARED_FROM`]); else the change, to interleaved from the next round, or duet
/// kept when the user insists (`keep_duet`).
pub fn judge(round: usize, wait: &RoundWait, keep_duet: bool) -> Option<ModeChange> {
    (wait.share >= SHARED_FROM).then(|| change(round, wait, keep_duet))
}

/// The change after duet round `round`, whose forks waited `wait`: to interleaved from the
/// next round, or duet kept (`keep_duet`).
fn change(round: usize, wait: &RoundWait, keep_duet: bool) -> ModeChange {
    ModeChange {
        asked: Mode::Duet,
        used: if keep_duet {
            Mode::Duet
        } else {
            Mode::Interleaved
        },
        from_round: round + 1,
        shared_round: round,
        cpu_wait_share: wait.share,
        limit: SHARED_FROM,
        cpus: wait.cpus.clone(),
        repinned: Vec::new(),
    }
}

/// The benchmarks of `file` whose duet forks of round `round` set their own CPU affinity
/// ([`ForkRecord::own_cpus`]), one each (its first such fork), in the file's order.
pub fn repinned_of_round(file: &SampleFile, round: usize) -> Vec<Repinned> {
    file.benchmarks
        .iter()
        .filter_map(|b| {
            let forks = b.base.forks.iter().chain(&b.head.forks);
            forks
                .filter(|f| is_duet_fork_of(f, round))
                .find_map(|f| Some((f.cpu?, f.own_cpus.clone()?)))
                .map(|(cpu, own_cpus)| Repinned {
                    benchmark: b.id.clone(),
                    cpu,
                    own_cpus,
                })
        })
        .collect()
}

/// The decision after duet round `round` when benchmarks of it set their own CPU affinity
/// (`repinned`, not empty): each side pinned to its CPU no longer holds, and a benchmark that
/// pins itself to one CPU puts both sides of its pair there, a contest for that CPU which
/// pairing cannot cancel, however little the round's forks waited in all (one benchmark of many
/// barely moves the round's wait). The change is made as for shared CPUs ([`judge`]), the
/// benchmarks named as its cause; `wait`: the round's, where it was read.
pub fn judge_repinned(
    round: usize,
    wait: Option<&RoundWait>,
    repinned: Vec<Repinned>,
    keep_duet: bool,
) -> Option<ModeChange> {
    if repinned.is_empty() {
        return None;
    }
    let wait = wait.cloned().unwrap_or(RoundWait {
        share: 0.0,
        cpus: Vec::new(),
    });
    Some(ModeChange {
        repinned,
        ..change(round, &wait, keep_duet)
    })
}

/// Whether a run with `file`'s record left duet: its rounds from then on, resumed ones too, run
/// interleaved.
pub fn left_duet(file: &SampleFile) -> bool {
    file.run
        .mode_change
        .as_ref()
        .is_some_and(|change| change.used != change.asked)
}

/// Records `change` in `file`; when the run leaves duet, the duet forks of the round that showed
/// the CPUs shared are set aside (every record's, a command's memory record too).
pub fn record(file: &mut SampleFile, change: ModeChange) {
    if change.used != change.asked {
        let round = Some(change.shared_round);
        let forks = file
            .benchmarks
            .iter_mut()
            .flat_map(|b| b.base.forks.iter_mut().chain(b.head.forks.iter_mut()));
        for fork in forks.filter(|f| f.round == round && f.cpu.is_some() && f.mode.is_none()) {
            fork.set_aside = true;
        }
    }
    file.run.mode_change = Some(change);
}

/// `fork` as measured in an interleaved round of a run in `run_mode`: tagged with its mode when
/// that is not the run's (a duet run that left duet).
pub fn tag_interleaved(fork: &mut ForkRecord, run_mode: Mode) {
    if run_mode != Mode::Interleaved {
        fork.mode = Some(Mode::Interleaved);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::samples::{BenchmarkRecord, Presence, RunInfo};

    fn fork(round: usize, cpu: usize, wait: f64, wall_ms: f64) -> ForkRecord {
        ForkRecord {
            iters: vec![1.0],
            times_ns: vec![100.0],
            round: Some(round),
            cpu: Some(cpu),
            cpu_wait_share: Some(wait),
            wall_ms: Some(wall_ms),
            ..ForkRecord::default()
        }
    }

    #[test]
    fn the_neighbours_waits_leave_duet_and_a_quiet_rounds_do_not() {
        // Beside the noisy neighbour: 10–19 % of the forks' ready time.
        let neighbour = round_wait(&[fork(0, 0, 0.19, 600.0), fork(0, 1, 0.10, 600.0)]).unwrap();
        assert!((neighbour.share - 0.145).abs() < 1e-12);
        let change = judge(0, &neighbour, false).expect("shared");
        assert_eq!((change.asked, change.used), (Mode::Duet, Mode::Interleaved));
        assert_eq!((change.shared_round, change.from_round), (0, 1));
        assert_eq!(change.limit, SHARED_FROM);
        assert_eq!(
            change.cpus.iter().map(|c| c.cpu).collect::<Vec<_>>(),
            [0, 1]
        );
        // The quietest and the busiest round of the committed quiet recordings: 0.03 %, 0.37 %.
        for quiet in [0.0003, 0.0037] {
            let wait = round_wait(&[fork(3, 0, quiet, 500.0), fork(3, 1, quiet, 500.0)]).unwrap();
            assert_eq!(judge(3, &wait, false), None, "{quiet}");
        }
        // At the limit: shared.
        let edge = round_wait(&[fork(1, 0, SHARED_FROM, 1.0)]).unwrap();
        assert!(judge(1, &edge, false).is_some());
    }

    #[test]
    fn the_wait_is_weighted_by_wall_time_and_one_busy_cpu_is_enough() {
        // One CPU shared (its forks waited 30 %), the other free: 15 % in all, per CPU apart.
        let forks = [
            fork(2, 1, 0.30, 400.0),
            fork(2, 0, 0.0, 400.0),
            fork(2, 1, 0.30, 100.0),
            fork(2, 0, 0.0, 100.0),
        ];
        let wait = round_wait(&forks).unwrap();
        assert!((wait.share - 0.15).abs() < 1e-12);
        assert_eq!(
            wait.cpus,
            [
                CpuWait {
                    cpu: 0,
                    cpu_wait_share: 0.0,
                    forks: 2
                },
                CpuWait {
                    cpu: 1,
                    cpu_wait_share: 0.30,
                    forks: 2
                }
            ]
        );
        // A short fork's spike counts for its wall time only: 4.4 % in a 10 ms fork beside
        // 1 s forks at 0.03 %.
        let spike = round_wait(&[
            fork(0, 0, 0.044, 10.0),
            fork(0, 1, 0.0003, 1000.0),
            fork(0, 0, 0.0003, 1000.0),
        ])
        .unwrap();
        assert!(judge(0, &spike, false).is_none(), "{}", spike.share);
    }

    #[test]
    fn keep_duet_records_the_shared_round_and_changes_nothing() {
        let wait = round_wait(&[fork(4, 0, 0.12, 500.0)]).unwrap();
        let change = judge(4, &wait, true).unwrap();
        assert_eq!(change.used, Mode::Duet);
        let mut file = one_benchmark_file();
        record(&mut file, change);
        assert!(!left_duet(&file));
        assert!(file.benchmarks[0].base.forks.iter().all(|f| !f.set_aside));
    }

    #[test]
    fn leaving_duet_sets_the_shared_rounds_duet_forks_aside() {
        let mut file = one_benchmark_file();
        let wait = wait_of_round(&file, 1).unwrap();
        assert!((wait.share - 0.12).abs() < 1e-12, "round 1 only");
        record(&mut file, judge(1, &wait, false).unwrap());
        assert!(left_duet(&file));
        let record = &file.benchmarks[0];
        for side in [&record.base, &record.head] {
            let aside: Vec<bool> = side.forks.iter().map(|f| f.set_aside).collect();
            assert_eq!(aside, [false, true]);
        }
        let mut later = fork(2, 0, 0.0, 1.0);
        later.cpu = None;
        tag_interleaved(&mut later, file.run.mode);
        assert_eq!(later.mode, Some(Mode::Interleaved));
        let mut interleaved_run = fork(2, 0, 0.0, 1.0);
        tag_interleaved(&mut interleaved_run, Mode::Interleaved);
        assert_eq!(interleaved_run.mode, None);
    }

    #[test]
    fn no_recorded_wait_decides_nothing() {
        let mut unread = fork(0, 0, 0.0, 500.0);
        unread.cpu_wait_share = None;
        assert_eq!(round_wait(&[unread]), None);
        let mut interleaved = fork(0, 0, 0.5, 500.0);
        interleaved.mode = Some(Mode::Interleaved);
        assert!(!is_duet_fork_of(&interleaved, 0));
    }

    #[test]
    fn a_benchmark_that_moved_itself_off_its_cpu_leaves_duet_however_little_its_round_waited() {
        let mut file = one_benchmark_file();
        let quiet = file.benchmark_mut("quiet", Presence::Both);
        quiet.base.forks = vec![fork(0, 0, 0.0003, 500.0)];
        quiet.head.forks = vec![fork(0, 1, 0.0003, 500.0)];
        assert!(repinned_of_round(&file, 0).is_empty());
        let wait = wait_of_round(&file, 0).unwrap();
        assert_eq!(judge_repinned(0, Some(&wait), Vec::new(), false), None);
        // Head's fork of `a`, pinned to CPU 1, pinned itself to CPU 0: both sides on CPU 0.
        file.benchmarks[0].head.forks[0].own_cpus = Some("0".into());
        let repinned = repinned_of_round(&file, 0);
        let moved = Repinned {
            benchmark: "a".into(),
            cpu: 1,
            own_cpus: "0".into(),
        };
        assert_eq!(repinned, std::slice::from_ref(&moved));
        assert!(wait.share < SHARED_FROM, "{}", wait.share);
        let change = judge_repinned(0, Some(&wait), repinned, false).expect("left");
        assert_eq!((change.used, change.from_round), (Mode::Interleaved, 1));
        assert_eq!(change.repinned, [moved]);
        record(&mut file, change);
        assert!(left_duet(&file));
        assert!(file.benchmarks[0].head.forks[0].set_aside);
        // Another round's moves are not this round's; no wait read still decides.
        assert!(repinned_of_round(&file, 1).is_empty());
        let unread = judge_repinned(0, None, repinned_of_round(&file, 0), true).unwrap();
        assert_eq!((unread.used, unread.cpu_wait_share), (Mode::Duet, 0.0));
    }

    /// A duet run's benchmark with two rounds: round 0 quiet, round 1 waiting 12 %.
    fn one_benchmark_file() -> SampleFile {
        let mut file = SampleFile::new(RunInfo {
            mode: Mode::Duet,
            ..RunInfo::default()
        });
        let record: &mut BenchmarkRecord = file.benchmark_mut("a", Presence::Both);
        record.base.forks = vec![fork(0, 0, 0.0003, 500.0), fork(1, 1, 0.12, 500.0)];
        record.head.forks = vec![fork(0, 1, 0.0003, 500.0), fork(1, 0, 0.12, 500.0)];
        file
    }
}
