//! `/proc/PID/stat` and a thread's `/proc/PID/task/TID/stat`: the one parser of the fields the
//! project reads (state, process group, CPU times).
//!
//! Why one: the command name, in parentheses, may hold spaces and parentheses, so the fields are
//! those after the *last* `)`; four readers (a fork's process group, a trace's CPU budget, the
//! tracer's own thread, a sleeping thread) each split the line by hand before.

/// The fields of one `stat` line the project reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stat<'a> {
    /// The state letter: `R`, `S`, `D`, `Z`, `X`, …
    pub state: &'a str,
    /// The process group.
    pub group: i32,
    /// User and system time of the task itself, in clock ticks (absent in a truncated line).
    pub own_ticks: Option<u64>,
    /// User and system time of the children it reaped, in clock ticks (a process's; absent in a
    /// truncated line).
    pub reaped_ticks: Option<u64>,
}

/// Parses the text of a `stat` file; `None` without a state and a process group.
pub fn parse(text: &str) -> Option<Stat<'_>> {
    let fields: Vec<&str> = text.rsplit_once(')')?.1.split_whitespace().collect();
    // Fields after the name: 0 state, 1 ppid, 2 pgrp, …, 11 utime, 12 stime, 13 cutime, 14 cstime.
    let sum = |range: std::ops::Range<usize>| {
        fields
            .get(range)?
            .iter()
            .map(|f| f.parse::<u64>().ok())
            .sum::<Option<u64>>()
    };
    Some(Stat {
        state: fields.first()?,
        group: fields.get(2)?.parse().ok()?,
        own_ticks: sum(11..13),
        reaped_ticks: sum(13..15),
    })
}

/// Reads and parses the `stat` file at `path` (`/proc/PID/stat`, …); `None` when it is gone or
/// unreadable. Calls `f` with it, since the parsed fields borrow the text.
pub fn read<T>(path: &str, f: impl FnOnce(Stat<'_>) -> T) -> Option<T> {
    let text = std::fs::read_to_string(path).ok()?;
    parse(&text).map(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fields_follow_the_last_parenthesis_of_the_command_name() {
        let stat = "4242 (a b) c) S 1 4240 4240 0 -1 4194560 100 0 0 0 7 3 20 10 20 0 1 0 5 0 0";
        assert_eq!(
            parse(stat),
            Some(Stat {
                state: "S",
                group: 4240,
                own_ticks: Some(10),
                reaped_ticks: Some(30),
            })
        );
        let short = parse("4242 (x) Z 1 4240").unwrap();
        assert_eq!(
            (short.state, short.group, short.own_ticks),
            ("Z", 4240, None)
        );
        assert_eq!(parse("4242 (x) S 1"), None);
    }
}
