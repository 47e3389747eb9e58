//! Steal time: CPU time the hypervisor gave to other guests while a fork ran.
//!
//! On a virtual machine (a laptop's is rare, a CI runner's is the rule) the host can deschedule
//! our virtual CPUs; the benchmark then runs slower although nothing inside the machine was busy,
//! and the load average does not show it. Linux counts it as `steal` in `/proc/stat`. Each fork
//! records the share of all CPU time that was stolen while it ran, so a report can say when the
//! machine was disturbed from outside (the recordings in `docs/design/replay.md` had bursts of slow
//! forks at a load average of 1).

/// A reading of the all-CPU line of `/proc/stat`: stolen and total time, in clock ticks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CpuTimes {
    pub steal: u64,
    pub total: u64,
}

impl CpuTimes {
    /// The current reading; `None` where `/proc/stat` cannot be read or parsed (not Linux).
    pub fn now() -> Option<CpuTimes> {
        let stat = std::fs::read_to_string("/proc/stat").ok()?;
        parse_cpu_line(stat.lines().next()?)
    }

    /// The share of all CPU time between `self` and a later reading that was stolen, in
    /// `[0, 1]`; `None` when no time passed (or the counters went backwards).
    pub fn steal_share_until(&self, later: &CpuTimes) -> Option<f64> {
        let total = later.total.checked_sub(self.total)?;
        let steal = later.steal.checked_sub(self.steal)?;
        (total > 0).then(|| (steal as f64 / total as f64).min(1.0))
    }
}

/// Parses `cpu  user nice system idle iowait irq softirq steal [guest guest_nice]`. The total is
/// the sum of the first eight fields (guest time is already counted in user and nice).
pub fn parse_cpu_line(line: &str) -> Option<CpuTimes> {
    let mut fields = line.split_whitespace();
    if fields.next()? != "cpu" {
        return None;
    }
    let values: Vec<u64> = fields
        .take(8)
        .map(str::parse)
        .collect::<Result<_, _>>()
        .ok()?;
    if values.len() < 8 {
        return None;
    }
    Some(CpuTimes {
        steal: values[7],
        total: values.iter().sum(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_all_cpu_line_is_parsed() {
        let line = "cpu  1690722 76267 133105 889293 8481 0 3072 9083 0 0";
        let times = parse_cpu_line(line).unwrap();
        assert_eq!(times.steal, 9083);
        assert_eq!(
            times.total,
            1690722 + 76267 + 133105 + 889293 + 8481 + 3072 + 9083
        );
    }

    #[test]
    fn other_lines_and_short_lines_are_refused() {
        assert_eq!(parse_cpu_line("cpu0 1 2 3 4 5 6 7 8 0 0"), None);
        assert_eq!(parse_cpu_line("cpu  1 2 3"), None);
        assert_eq!(parse_cpu_line("cpu  1 2 3 4 5 6 7 x"), None);
    }

    #[test]
    fn the_share_is_stolen_over_total_time() {
        let before = CpuTimes {
            steal: 100,
            total: 1_000,
        };
        let after = CpuTimes {
            steal: 150,
            total: 1_200,
        };
        assert_eq!(before.steal_share_until(&after), Some(0.25));
        assert_eq!(before.steal_share_until(&before), None);
        assert_eq!(after.steal_share_until(&before), None);
    }

    #[test]
    fn this_machine_can_be_read_on_linux() {
        if cfg!(target_os = "linux") {
            let times = CpuTimes::now().expect("/proc/stat");
            assert!(times.total >= times.steal);
        }
    }
}
