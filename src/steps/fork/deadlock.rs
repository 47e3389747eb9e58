//! Whether a fork's benchmark waits for ever: every thread of it blocked on a lock that only
//! one of its own threads could release.
//!
//! Why: criterion locks its one connection to a runner in `Criterion::default()` and holds the
//! lock while that `Criterion` lives. A bench target that makes a second `Criterion` while the
//! first is still alive (gimli's `bench_read`: `let mut c = Criterion::default()…` twice in
//! one function, the first shadowed, not dropped) waits on that lock for ever under
//! cargo-perfdiff, as under cargo-criterion; `cargo bench` makes no connection and runs it.
//! Each such fork waited out the fork timeout and was called "hung" (a native probe of it twice
//! as long): 21 of gimli's 33 benchmarks, 12 min 30 s a probe (field-trials.md, session 18).
//!
//! What counts, read from `/proc/<pid>/task/*/syscall` (Linux on x86_64; elsewhere nothing is
//! ever found waiting for ever): every thread in `futex` waiting (`FUTEX_WAIT` or
//! `FUTEX_WAIT_BITSET`) with `FUTEX_PRIVATE_FLAG` (no other process can wake it) and no
//! timeout. No thread runs, so none can wake another; only a signal could. A process that
//! only waits for its children (the native probe's helper in front of the benchmark) waits for
//! ever when each of its children does. The caller asks for the state to last a while before
//! it trusts it ([`DEADLOCK_SETTLE`]).

use std::path::Path;
use std::time::Duration;

/// How long a fork must be seen waiting for ever before it is ended.
pub const DEADLOCK_SETTLE: Duration = Duration::from_secs(5);

/// `futex` and `wait4`/`waitid` on x86_64.
const SYS_FUTEX: u64 = 202;
const SYS_WAIT4: u64 = 61;
const SYS_WAITID: u64 = 247;
/// The futex operations that wait, and the flag of a futex private to its process.
const FUTEX_WAIT: u64 = 0;
const FUTEX_WAIT_BITSET: u64 = 9;
const FUTEX_PRIVATE_FLAG: u64 = 128;
const FUTEX_CMD_MASK: u64 = 0x7f;

/// What one thread is doing, as `/proc/<pid>/task/<tid>/syscall` says.
#[derive(Debug, PartialEq, Eq)]
enum ThreadState {
    /// In a private futex wait without a timeout.
    LockedForEver,
    /// Waiting for a child process.
    WaitingForChild,
    /// Anything else (running, another system call, unreadable).
    Other,
}

/// Whether process `pid` (and, where it only waits for them, its children) waits for ever.
pub fn waits_for_ever(pid: u32) -> bool {
    cfg!(all(target_os = "linux", target_arch = "x86_64")) && tree_waits(pid, 0)
}

/// [`waits_for_ever`] at `depth` below the fork's process (a few levels at most).
fn tree_waits(pid: u32, depth: usize) -> bool {
    let proc_dir = Path::new("/proc").join(pid.to_string());
    let Some(states) = thread_states(&proc_dir) else {
        return false;
    };
    if states.iter().all(|s| *s == ThreadState::LockedForEver) {
        return true;
    }
    if depth >= 3 || !states.iter().all(|s| *s == ThreadState::WaitingForChild) {
        return false;
    }
    let children = children_of(&proc_dir);
    !children.is_empty() && children.iter().all(|&child| tree_waits(child, depth + 1))
}

/// The state of each thread of the process at `proc_dir`; `None` when none can be read.
fn thread_states(proc_dir: &Path) -> Option<Vec<ThreadState>> {
    let tasks = std::fs::read_dir(proc_dir.join("task")).ok()?;
    let states: Vec<ThreadState> = tasks
        .flatten()
        .map(
            |task| match std::fs::read_to_string(task.path().join("syscall")) {
                Ok(line) => thread_state(&line),
                Err(_) => ThreadState::Other,
            },
        )
        .collect();
    (!states.is_empty()).then_some(states)
}

/// The children of every thread of the process at `proc_dir`.
fn children_of(proc_dir: &Path) -> Vec<u32> {
    let Ok(tasks) = std::fs::read_dir(proc_dir.join("task")) else {
        return Vec::new();
    };
    let lists = tasks
        .flatten()
        .filter_map(|task| std::fs::read_to_string(task.path().join("children")).ok());
    let mut children: Vec<u32> = lists
        .flat_map(|list| {
            list.split_whitespace()
                .filter_map(|pid| pid.parse().ok())
                .collect::<Vec<_>>()
        })
        .collect();
    children.sort_unstable();
    children.dedup();
    children
}

/// A thread's state from its `syscall` line: the call's number and six arguments in hex
/// (`202 0x560f9f1f9260 0x89 0x2 0x0 0x0 0xffffffff 0x7ffd… 0x7f4d…`), or `running`.
fn thread_state(line: &str) -> ThreadState {
    let fields: Vec<u64> = line
        .split_whitespace()
        .map(|field| match field.strip_prefix("0x") {
            Some(hex) => u64::from_str_radix(hex, 16).ok(),
            None => field.parse().ok(),
        })
        .collect::<Option<Vec<u64>>>()
        .unwrap_or_default();
    match fields.as_slice() {
        [SYS_FUTEX, _, op, _, timeout, ..] => {
            let waits = matches!(op & FUTEX_CMD_MASK, FUTEX_WAIT | FUTEX_WAIT_BITSET);
            if waits && op & FUTEX_PRIVATE_FLAG != 0 && *timeout == 0 {
                ThreadState::LockedForEver
            } else {
                ThreadState::Other
            }
        }
        [SYS_WAIT4 | SYS_WAITID, ..] => ThreadState::WaitingForChild,
        _ => ThreadState::Other,
    }
}

/// The failure's words for a criterion benchmark found waiting for ever before it began.
pub fn criterion_deadlock_message(who: &str) -> String {
    format!(
        "{who} waited for ever before its benchmark began: every thread of it waits on a lock \
         that only it could release. criterion does so when a second `Criterion` is made while \
         the first is still alive (`let mut c = Criterion::default()…` twice in one function): \
         each holds criterion's one connection to its runner, cargo-perfdiff's here as \
         cargo-criterion's, while `cargo bench` makes none and runs it. Let the first go \
         (`drop(c)`, or one `Criterion` for both) before making the next"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_private_futex_wait_without_a_timeout_is_locked_for_ever() {
        // gimli's bench executable under cargo-perfdiff, in `Criterion::default()`'s lock.
        let line = "202 0x560f9f1f9260 0x89 0x2 0x0 0x0 0xffffffff 0x7ffda16ee018 0x7f4d79a6c829";
        assert_eq!(thread_state(line), ThreadState::LockedForEver);
        // The same with `FUTEX_WAIT_PRIVATE`.
        let line = "202 0x5600 0x80 0x2 0x0 0x0 0x0 0x7ffd 0x7f4d";
        assert_eq!(thread_state(line), ThreadState::LockedForEver);
    }

    #[test]
    fn a_wait_with_a_timeout_a_shared_futex_or_a_running_thread_is_not() {
        // A timeout (a condvar's `wait_timeout`, a parked thread with a deadline) ends.
        let timed = "202 0x5600 0x89 0x2 0x7ffd0000 0x0 0xffffffff 0x7ffd 0x7f4d";
        assert_eq!(thread_state(timed), ThreadState::Other);
        // Another process may wake a shared futex.
        let shared = "202 0x5600 0x9 0x2 0x0 0x0 0xffffffff 0x7ffd 0x7f4d";
        assert_eq!(thread_state(shared), ThreadState::Other);
        // A wake is no wait.
        let wake = "202 0x5600 0x81 0x1 0x0 0x0 0x0 0x7ffd 0x7f4d";
        assert_eq!(thread_state(wake), ThreadState::Other);
        assert_eq!(thread_state("running"), ThreadState::Other);
        assert_eq!(
            thread_state("0 0x3 0x7ffd 0x2000 0x0 0x0 0x0 0x7ffd 0x7f4d"),
            ThreadState::Other
        );
        assert_eq!(
            thread_state("61 0xffffffff 0x7ffd 0x0 0x0 0x0 0x0 0x7ffd 0x7f4d"),
            ThreadState::WaitingForChild
        );
    }

    #[test]
    fn this_test_s_own_process_does_not_wait_for_ever() {
        assert!(!waits_for_ever(std::process::id()));
        assert!(!waits_for_ever(u32::MAX));
    }
}
