//! How long a trace may run: a budget of **CPU time** (user and system, of every process of the
//! traced run), with a wall-clock ceiling against a run that sleeps or hangs
//! (docs/design/selection-trace.md, "Bounded").
//!
//! Why CPU time: a budget of wall-clock time turns the machine's load into the selection's
//! outcome. On a machine with eleven runnable processes for two CPUs, image-png's fourteen
//! native traces each hit a wall-clock cap of 30 s they finish well within on a quiet machine,
//! and every benchmark was measured; two runs of the same commits selected differently. A run's
//! CPU time is what it computed, whatever else the machine runs (a process waiting for a CPU
//! accrues none), so the same build, benchmark and budget stop at the same point of the run.
//!
//! Why still a wall-clock ceiling: a run that sleeps (a benchmark waiting on a timer, a
//! deadlock, a set-up that blocks) accrues no CPU time and would never be stopped. The ceiling is
//! [`WALL_FACTOR`] times the CPU budget, never past the fork timeout: a run stopped there waited
//! far longer than it computed, which a busy machine alone does not explain up to that factor.
//!
//! Which limit stopped a run ([`Limit`]) is said in its error
//! ([`super::TraceError::OverBudget`]). What is counted: every process of the run's process
//! group (the benchmark, valgrind in it, the processes it forks, with what they reaped), read
//! from `/proc/PID/stat`; for the native trace also the tracing thread of cargo-perfdiff
//! ([`Meter::with_thread`]: the trace's cost includes its stops, as valgrind's instrumentation
//! is counted in its own process).

use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::util::proc_stat;

/// A run's wall-clock ceiling is this many times its CPU budget (never past the fork timeout):
/// a run may wait for a CPU seven times as long as it runs (a machine with 16 runnable processes
/// for two CPUs) and still be stopped by what it computed.
pub const WALL_FACTOR: u32 = 8;

/// How often a running run's CPU time is read (each read scans `/proc`).
const POLL: Duration = Duration::from_millis(100);

/// What a run may spend: CPU time, and wall-clock time as a ceiling.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    pub cpu: Duration,
    pub wall: Duration,
}

impl Budget {
    /// A CPU budget of `cpu` with a ceiling of [`WALL_FACTOR`] times it, never past `timeout`.
    pub fn of(cpu: Duration, timeout: Duration) -> Budget {
        Budget {
            cpu: cpu.min(timeout),
            wall: (cpu * WALL_FACTOR).min(timeout),
        }
    }

    /// The budget of runs made one after the other.
    pub fn sum(budgets: impl IntoIterator<Item = Budget>) -> Budget {
        budgets.into_iter().fold(
            Budget {
                cpu: Duration::ZERO,
                wall: Duration::ZERO,
            },
            |a, b| Budget {
                cpu: a.cpu + b.cpu,
                wall: a.wall + b.wall,
            },
        )
    }

    /// The larger of each limit.
    pub fn max(self, other: Budget) -> Budget {
        Budget {
            cpu: self.cpu.max(other.cpu),
            wall: self.wall.max(other.wall),
        }
    }
}

/// Which limit stopped a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// It computed its CPU budget.
    Cpu(Duration),
    /// It reached its wall-clock ceiling before (it slept, hung or waited).
    Wall(Duration),
}

impl std::fmt::Display for Limit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let time = |d: &Duration| crate::util::terminal::wall_time(d.as_millis() as u64);
        match self {
            Limit::Cpu(d) => write!(
                f,
                "after {} of CPU time, the most a trace may compute",
                time(d)
            ),
            Limit::Wall(d) => write!(
                f,
                "after {} of wall-clock time, its ceiling (it waited or slept far longer than it computed)",
                time(d)
            ),
        }
    }
}

/// Watches one running process group against a [`Budget`], and optionally a part of it
/// ([`Meter::progressed`]): a run of several benchmarks may go at most one benchmark's budget
/// without a sign of progress.
#[derive(Debug)]
pub struct Meter {
    budget: Budget,
    part: Option<Budget>,
    thread: Option<i32>,
    state: Mutex<MeterState>,
}

#[derive(Debug)]
struct MeterState {
    started: Instant,
    /// The CPU time last read, and when.
    cpu: Duration,
    read_at: Option<Instant>,
    /// Where the current part began: its CPU time and instant; `progressed` asks for a new one.
    part_from: (Duration, Instant),
    progressed: bool,
    fired: Option<Limit>,
}

impl Meter {
    /// A meter of `budget` that starts now.
    pub fn new(budget: Budget) -> Meter {
        let now = Instant::now();
        Meter {
            budget,
            part: None,
            thread: None,
            state: Mutex::new(MeterState {
                started: now,
                cpu: Duration::ZERO,
                read_at: None,
                part_from: (Duration::ZERO, now),
                progressed: false,
                fired: None,
            }),
        }
    }

    /// Also stops the run when one part (between two [`Meter::progressed`]) exceeds `part`.
    pub fn with_part(mut self, part: Budget) -> Meter {
        self.part = Some(part);
        self
    }

    /// Also counts the CPU time of thread `tid` of this process (the native trace's tracer).
    pub fn with_thread(mut self, tid: i32) -> Meter {
        self.thread = Some(tid);
        self
    }

    /// Records a sign of progress: the next part starts at the next reading.
    pub fn progressed(&self) {
        self.lock().progressed = true;
    }

    /// The limit the run of process group `group` has reached, if any (and then always that
    /// one). Reads `/proc` at most every [`POLL`].
    pub fn check(&self, group: i32) -> Option<Limit> {
        let mut state = self.lock();
        if state.fired.is_some() {
            return state.fired;
        }
        let now = Instant::now();
        if state.read_at.is_none_or(|at| now - at >= POLL) {
            let own = self.thread.and_then(thread_cpu).unwrap_or_default();
            state.cpu = state.cpu.max(group_cpu(group) + own);
            state.read_at = Some(now);
            if std::mem::take(&mut state.progressed) {
                state.part_from = (state.cpu, now);
            }
        }
        let (cpu, wall) = (state.cpu, now - state.started);
        let (part_cpu, part_wall) = (cpu - state.part_from.0, now - state.part_from.1);
        state.fired = self.limit(cpu, wall, part_cpu, part_wall);
        state.fired
    }

    /// The limit reached by a run that has used `cpu` and `wall`, its current part `part_cpu`
    /// and `part_wall`: the CPU budget first (it is the one a run is meant to meet).
    fn limit(
        &self,
        cpu: Duration,
        wall: Duration,
        part_cpu: Duration,
        part_wall: Duration,
    ) -> Option<Limit> {
        let part = self.part.unwrap_or(self.budget);
        if cpu >= self.budget.cpu {
            Some(Limit::Cpu(self.budget.cpu))
        } else if part_cpu >= part.cpu {
            Some(Limit::Cpu(part.cpu))
        } else if wall >= self.budget.wall {
            Some(Limit::Wall(self.budget.wall))
        } else if part_wall >= part.wall {
            Some(Limit::Wall(part.wall))
        } else {
            None
        }
    }

    /// The limit that stopped the run, if one did.
    pub fn fired(&self) -> Option<Limit> {
        self.lock().fired
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, MeterState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The clock ticks of `/proc/PID/stat` per second.
fn ticks_per_second() -> u64 {
    // SAFETY: sysconf reads a configuration value; no memory is passed.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if ticks > 0 { ticks as u64 } else { 100 }
}

/// From the text of a `/proc/PID/stat`: its process group, and its CPU time in clock ticks
/// (user and system, its own and that of the children it reaped).
pub fn parse_stat(text: &str) -> Option<(i32, u64)> {
    let stat = proc_stat::parse(text)?;
    Some((stat.group, stat.own_ticks? + stat.reaped_ticks?))
}

fn ticks(ticks: u64) -> Duration {
    Duration::from_nanos(ticks.saturating_mul(1_000_000_000) / ticks_per_second())
}

/// The CPU time of every process whose process group is `group` (with what each reaped).
pub fn group_cpu(group: i32) -> Duration {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Duration::ZERO;
    };
    let total = entries
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
        })
        .filter_map(|e| std::fs::read_to_string(e.path().join("stat")).ok())
        .filter_map(|text| parse_stat(&text))
        .filter(|(g, _)| *g == group)
        .map(|(_, t)| t)
        .sum();
    ticks(total)
}

/// The CPU time of thread `tid` of this process.
fn thread_cpu(tid: i32) -> Option<Duration> {
    // A thread's own fields: its children's are the process's, left out.
    proc_stat::read(&format!("/proc/self/task/{tid}/stat"), |s| s.own_ticks)?.map(ticks)
}

/// The calling thread's id (for [`Meter::with_thread`]).
pub fn current_thread() -> i32 {
    // SAFETY: gettid has no arguments and cannot fail.
    unsafe { libc::gettid() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::CommandExt;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn the_stat_line_gives_the_group_and_the_four_cpu_fields() {
        // A command name with a space and a parenthesis; utime 7, stime 3, cutime 20, cstime 10.
        let stat = "4242 (a b) c) S 1 4240 4240 0 -1 4194560 100 0 0 0 7 3 20 10 20 0 1 0 5 0 0";
        assert_eq!(parse_stat(stat), Some((4240, 40)));
        assert_eq!(parse_stat("4242 (x) S 1"), None);
    }

    #[test]
    fn the_cpu_budget_is_met_first_then_a_part_s_then_the_ceilings() {
        let meter = Meter::new(Budget {
            cpu: 10 * MS,
            wall: 80 * MS,
        })
        .with_part(Budget {
            cpu: 4 * MS,
            wall: 32 * MS,
        });
        assert_eq!(meter.limit(3 * MS, 20 * MS, 3 * MS, 20 * MS), None);
        assert_eq!(
            meter.limit(10 * MS, 90 * MS, 3 * MS, 20 * MS),
            Some(Limit::Cpu(10 * MS))
        );
        // One part's CPU time, though the run's is within its budget.
        assert_eq!(
            meter.limit(6 * MS, 20 * MS, 4 * MS, 20 * MS),
            Some(Limit::Cpu(4 * MS))
        );
        // Waiting or sleeping: the ceilings.
        assert_eq!(
            meter.limit(MS, 80 * MS, Duration::ZERO, 10 * MS),
            Some(Limit::Wall(80 * MS))
        );
        assert_eq!(
            meter.limit(MS, 40 * MS, Duration::ZERO, 32 * MS),
            Some(Limit::Wall(32 * MS))
        );
        // Runs made one after the other: their budgets summed; the largest of each limit.
        let (a, b) = (
            Budget::of(30 * MS, 1000 * MS),
            Budget::of(200 * MS, 1000 * MS),
        );
        assert_eq!(
            Budget::sum([a, b]),
            Budget {
                cpu: 230 * MS,
                wall: 1240 * MS
            }
        );
        assert_eq!(a.max(b), b);
        assert_eq!(b.wall, 1000 * MS);
    }

    /// Runs `script` in a process group of its own until `budget` stops it; which limit did.
    fn stopped(script: &str, budget: Budget) -> Limit {
        let mut child = std::process::Command::new("/bin/sh")
            .args(["-c", script])
            .process_group(0)
            .spawn()
            .unwrap();
        let meter = Meter::new(budget);
        let group = child.id() as i32;
        let limit = loop {
            if let Some(limit) = meter.check(group) {
                break limit;
            }
            std::thread::sleep(10 * MS);
        };
        // SAFETY: kill sends a signal to the group this test started.
        unsafe { libc::kill(-group, libc::SIGKILL) };
        child.wait().unwrap();
        assert_eq!(meter.fired(), Some(limit));
        limit
    }

    #[test]
    fn a_run_that_sleeps_is_stopped_by_its_ceiling_and_one_that_spins_by_its_cpu_budget() {
        // Sleeping computes nothing: only the ceiling stops it, however large the CPU budget.
        let sleeping = Budget {
            cpu: Duration::from_secs(3600),
            wall: 300 * MS,
        };
        assert_eq!(stopped("sleep 3600", sleeping), Limit::Wall(300 * MS));
        // Spinning, in a child of the group's leader: its CPU time counts, and stops it long
        // before a ceiling no busy machine reaches.
        let spinning = Budget {
            cpu: 100 * MS,
            wall: Duration::from_secs(3600),
        };
        let spin = "sh -c 'while :; do :; done' & wait";
        assert_eq!(stopped(spin, spinning), Limit::Cpu(100 * MS));
    }
}
