//! CPU wait: how long a fork was ready to run but waited for a CPU.
//!
//! Why: a benchmark that shares its CPU with other work is measured slower, and by an amount
//! that changes from fork to fork. Inside the machine this is the one disturbance the forks can
//! report about themselves: Linux counts, per task, the time it spent runnable on a run queue
//! without running (`run_delay`, the second field of `/proc/<pid>/schedstat`). A fork alone on
//! its CPU waits well under 0.1 % of its running time (0.01–0.05 % in a demo run). In duet mode
//! it is the only sign that the two pinned CPUs were not free; in interleaved mode it shows a
//! machine busy with other work. The steal time of [`super::steal`] is the same question asked
//! about the hypervisor.
//!
//! The figure is read from the fork's leader task (criterion measures on the main thread) after
//! it exited and before it is reaped, while its `/proc` entry still exists.

/// Running and waiting time of a task, in nanoseconds, from `/proc/<pid>/schedstat`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SchedTimes {
    pub running_ns: u64,
    pub waiting_ns: u64,
}

impl SchedTimes {
    /// The times of process `pid`; `None` where they cannot be read (not Linux, no schedstat).
    pub fn of_process(pid: u32) -> Option<SchedTimes> {
        parse_schedstat(&std::fs::read_to_string(format!("/proc/{pid}/schedstat")).ok()?)
    }

    /// Share of the time the task wanted a CPU that it spent waiting for one, in `[0, 1]`;
    /// `None` before it ran at all.
    pub fn wait_share(&self) -> Option<f64> {
        let wanted = self.running_ns.checked_add(self.waiting_ns)?;
        (wanted > 0).then(|| self.waiting_ns as f64 / wanted as f64)
    }
}

/// Parses `running_ns waiting_ns timeslices`.
pub fn parse_schedstat(text: &str) -> Option<SchedTimes> {
    let mut fields = text.split_whitespace().map(str::parse::<u64>);
    Some(SchedTimes {
        running_ns: fields.next()?.ok()?,
        waiting_ns: fields.next()?.ok()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schedstat_line_is_parsed() {
        let times = parse_schedstat("497238344 564258 16\n").unwrap();
        assert_eq!(
            times,
            SchedTimes {
                running_ns: 497_238_344,
                waiting_ns: 564_258
            }
        );
        let share = times.wait_share().unwrap();
        assert!((share - 564_258.0 / 497_802_602.0).abs() < 1e-12);
    }

    #[test]
    fn malformed_or_empty_times_are_none() {
        assert_eq!(parse_schedstat(""), None);
        assert_eq!(parse_schedstat("12 x 3"), None);
        let never_ran = SchedTimes {
            running_ns: 0,
            waiting_ns: 0,
        };
        assert_eq!(never_ran.wait_share(), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_process_can_be_read() {
        let times = SchedTimes::of_process(std::process::id()).unwrap();
        assert!(times.running_ns > 0);
    }
}
