//! The operating-system side of a fork: a benchmark process in its own process group, optionally
//! pinned to one CPU, whose output tail (stderr and stdout) we keep and whose whole process tree
//! we can kill.
//!
//! Why a process group: benchmarks may start helpers (servers, subprocesses); killing only the
//! direct child would leave them running and skewing every later fork. The child becomes the
//! leader of a new group, so `kill(-pgid, SIGKILL)` reaches everything it started (short of a
//! helper that deliberately leaves the group).
//!
//! Why exit is observed with `waitid(WNOWAIT)`: the group is killed *before* the leader is reaped.
//! While the leader is an unreaped zombie its pid, and so the group id, cannot be reused, so the
//! kill can never hit an unrelated process group.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io::{self, Read};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::util::proc_stat;

/// The share of a fork's run on a CPU above which a fork killed at its timeout was running,
/// not hung ([`BenchProcess::busy_share`]).
const BUSY: f64 = 0.5;

/// What a fork killed at its timeout was doing when its main thread was on a CPU for most of
/// its run: still running, so slower than the timeout rather than hung. mime_guess's
/// `from_ext uppercased` calls `iter` once per table entry (about 1,000 times) in one routine;
/// criterion times the last call only, so its warm-up grows the iterations about a
/// thousandfold past what it asks, and the fork outgrew 300 s at full CPU while the message
/// said "hung". `None` otherwise (a thread that waits, or a figure that cannot be read).
pub(super) fn still_running(busy: Option<f64>) -> Option<String> {
    let busy = busy.filter(|share| *share >= BUSY)?;
    Some(format!(
        "still running, on a CPU {:.0} % of the time: slower than the timeout, not hung (one \
         iteration, or a routine that calls `iter` many times, can take far longer than the \
         time asked); a larger `--fork-timeout` lets it finish",
        busy.min(1.0) * 100.0
    ))
}

/// How many trailing output lines (stderr and stdout) a failure record keeps.
pub const OUTPUT_TAIL_LINES: usize = 20;
/// How long to wait for killed group members to actually die (they are not our children, so
/// we cannot wait for them; SIGKILL takes effect when they are next scheduled).
const GROUP_EXIT_LIMIT: Duration = Duration::from_secs(2);
/// Longest output line kept, in bytes; longer lines are cut (progress bars, binary junk).
const MAX_LINE_BYTES: usize = 1000;

/// What to start.
pub struct Launch<'a> {
    pub executable: &'a Path,
    pub args: Vec<OsString>,
    pub cwd: &'a Path,
    /// Added to the inherited environment, in order (later entries win).
    pub env: Vec<(OsString, OsString)>,
    pub cpu: Option<usize>,
    /// Hold the process before it starts until the write end of this pipe is closed (see
    /// [`BARRIER_SCRIPT`]); `None` starts it at once.
    pub barrier: Option<io::PipeReader>,
    /// Called with every complete line of output (stdout and stderr), as it arrives.
    pub on_line: Option<LineWatch>,
}

/// A callback for each line a process prints (without its line ending).
pub type LineWatch = Box<dyn FnMut(&str) + Send>;

/// How a process is held at a barrier: a shell whose standard input is the barrier pipe reads
/// it until it is closed, then `exec`s the executable with its arguments (same pid, group and
/// CPU affinity). The waiting happens before the executable exists, so nothing of the benchmark
/// runs early; closing the pipe releases every process held on it at once. (A `pre_exec` hook
/// cannot wait: `Command::spawn` itself waits for the `exec`.)
pub const BARRIER_SCRIPT: &str = "read _; exec \"$0\" \"$@\"";

/// The shell that holds a process at a barrier.
const BARRIER_SHELL: &str = "/bin/sh";

/// A running benchmark process. Dropping it kills its process group and reaps it.
pub struct BenchProcess {
    child: Child,
    output: OutputTail,
    status: Option<ExitStatus>,
}

impl BenchProcess {
    /// Starts the process as the leader of a new process group, pinned to `cpu` if given.
    pub fn spawn(launch: Launch<'_>) -> io::Result<BenchProcess> {
        // stdout and stderr share one pipe: argument errors of older criterion (clap 2) and
        // messages of custom mains go to stdout, and a failure should quote them too.
        let (output, output_writer) = io::pipe()?;
        let mut command = match launch.barrier {
            Some(barrier) => {
                let mut shell = Command::new(BARRIER_SHELL);
                shell
                    .arg("-c")
                    .arg(BARRIER_SCRIPT)
                    .arg(launch.executable)
                    .stdin(barrier);
                shell
            }
            None => {
                let mut direct = Command::new(launch.executable);
                direct.stdin(Stdio::null());
                direct
            }
        };
        command
            .args(&launch.args)
            .current_dir(launch.cwd)
            .envs(launch.env)
            .stdout(output_writer.try_clone()?)
            .stderr(output_writer)
            .process_group(0);
        if let Some(cpu) = launch.cpu {
            pin_after_fork(&mut command, cpu)?;
        }
        let child = crate::util::spawn::spawn_when_not_busy(&mut command)?;
        // The parent's write ends must close, or the reader never sees the end of the output.
        drop(command);
        let output = OutputTail::collect(output, launch.on_line);
        Ok(BenchProcess {
            child,
            output,
            status: None,
        })
    }

    /// The process's id, which is also its process group's.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// True once the process has exited (it is not reaped yet, see the module docs).
    pub fn has_exited(&self) -> bool {
        if self.status.is_some() {
            return true;
        }
        // SAFETY: waitid only writes into `info`, a zeroed siginfo_t we own; WNOWAIT leaves the
        // child waitable, so the later `Child::wait` still reaps it.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        let result = unsafe {
            libc::waitid(
                libc::P_PID,
                self.child.id() as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
            )
        };
        // SAFETY: after a successful waitid the pid field of `info` is initialised (0 if the
        // child has not exited yet).
        result == 0 && unsafe { info.si_pid() } != 0
    }

    /// Share of the time the process wanted a CPU that it waited for one
    /// ([`super::cpu_wait`]); read it after [`has_exited`](Self::has_exited) and before
    /// reaping, while the figure is final and still readable.
    pub fn cpu_wait_share(&self) -> Option<f64> {
        super::cpu_wait::SchedTimes::of_process(self.child.id())?.wait_share()
    }

    /// Share of the time since `started` that the process's main thread ran on a CPU (about 1
    /// for a thread that never waited; more only by clock skew); read before reaping. A fork
    /// killed at its timeout while busy was slower than the timeout, not hung
    /// ([`still_running`]). The main thread's alone: a benchmark whose work is
    /// in other threads reads as idle, and its fork is called hung, as before.
    pub fn busy_share(&self, started: std::time::Instant) -> Option<f64> {
        let running = super::cpu_wait::SchedTimes::of_process(self.child.id())?.running_ns;
        let wall = started.elapsed().as_nanos();
        (wall > 0).then(|| running as f64 / wall as f64)
    }

    /// The CPUs a thread of the process allows itself (`Cpus_allowed_list` of
    /// `/proc/<pid>/task/*/status`), the first that is not only `cpu`, the one it was pinned
    /// to: the benchmark moved itself (`sched_setaffinity`). Read it before reaping, while a
    /// leader that exited is still a zombie with its mask; `None` when every thread read is
    /// still on `cpu`, or nothing can be read.
    pub fn own_cpus(&self, cpu: usize) -> Option<String> {
        own_cpus_of(self.child.id(), &cpu.to_string())
    }

    /// Kills the whole process group, then reaps the leader. Returns its exit status; idempotent.
    /// Also the way to reap a leader that [`has_exited`](Self::has_exited) on its own: whatever
    /// it left behind in its group dies with it.
    pub fn kill_and_reap(&mut self) -> io::Result<ExitStatus> {
        if let Some(status) = self.status {
            return Ok(status);
        }
        self.kill_group();
        let status = self.child.wait()?;
        self.status = Some(status);
        wait_until_group_gone(self.child.id() as libc::pid_t, GROUP_EXIT_LIMIT);
        Ok(status)
    }

    /// The last lines of output (stderr and stdout). Waits up to `grace` for the pipe to close so
    /// the final lines (a panic message) are in; a helper that escaped the group and holds the
    /// pipe open costs at most that wait.
    pub fn output_tail(&self, grace: Duration) -> String {
        self.output.tail(grace)
    }

    /// Sends `signal` to the group's leader alone (the process started), while it is running;
    /// the rest of its group is left as it is.
    pub fn signal_leader(&self, signal: libc::c_int) {
        if self.status.is_some() {
            return;
        }
        // SAFETY: plain syscall. The pid is our own child's, not yet reaped, so it names that
        // process and no other.
        unsafe {
            libc::kill(self.child.id() as libc::pid_t, signal);
        }
    }

    fn kill_group(&self) {
        let pgid = self.child.id() as libc::pid_t;
        // SAFETY: plain syscall. The group id is the pid of our own, not yet reaped child, so it
        // names this process group and no other. ESRCH (group already gone) is fine.
        unsafe {
            libc::kill(-pgid, libc::SIGKILL);
        }
    }
}

impl Drop for BenchProcess {
    fn drop(&mut self) {
        let _ = self.kill_and_reap();
    }
}

/// Returns once no live process is left in group `pgid`, or after `limit`. Zombies count as
/// gone: they are dead, and an orphan's zombie is reaped by init (or, in some containers, never).
fn wait_until_group_gone(pgid: libc::pid_t, limit: Duration) {
    let deadline = Instant::now() + limit;
    loop {
        // SAFETY: signal 0 only checks for existence. ESRCH: the group is empty.
        if unsafe { libc::kill(-pgid, 0) } != 0 || !group_has_live_member(pgid) {
            return;
        }
        if Instant::now() >= deadline {
            return;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Whether /proc lists a process of group `pgid` that is not a zombie.
fn group_has_live_member(pgid: libc::pid_t) -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return false;
    };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| {
            proc_stat::read(&format!("/proc/{pid}/stat"), |stat| {
                stat.group == pgid && !matches!(stat.state, "Z" | "X")
            })
        })
        .any(|live| live)
}

/// The CPUs a thread of process `pid` allows itself (`Cpus_allowed_list` of
/// `/proc/<pid>/task/*/status`), the first that is not `given` (a list as the kernel writes it,
/// `0` or `0-3`); `None` when every thread read allows `given`, or nothing can be read.
pub fn own_cpus_of(pid: u32, given: &str) -> Option<String> {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).ok()?;
    tasks
        .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("status")).ok())
        .filter_map(|status| allowed_list(&status))
        .find(|allowed| allowed != given)
}

/// The CPUs this process's calling thread allows itself, as the kernel writes the list.
pub fn allowed_cpus_of_self() -> Option<String> {
    allowed_list(&std::fs::read_to_string("/proc/thread-self/status").ok()?)
}

/// The `Cpus_allowed_list` line of a `/proc` status file, its value trimmed.
fn allowed_list(status: &str) -> Option<String> {
    status
        .lines()
        .find_map(|line| line.strip_prefix("Cpus_allowed_list:"))
        .map(|value| value.trim().to_string())
}

/// Makes the child pin itself to `cpu` between fork and exec.
fn pin_after_fork(command: &mut Command, cpu: usize) -> io::Result<()> {
    if cpu >= libc::CPU_SETSIZE as usize {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("CPU {cpu} is beyond the largest CPU number this system supports"),
        ));
    }
    // The set is built here, in the parent, so the child only makes one syscall.
    // SAFETY: cpu_set_t is plain bits, valid when zeroed; `cpu` is in range (checked above).
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    unsafe { libc::CPU_SET(cpu, &mut set) };
    // SAFETY: between fork and exec only async-signal-safe work is allowed. The closure makes a
    // single raw syscall on a value copied into it; it neither allocates nor takes locks
    // (`last_os_error` only reads errno).
    unsafe {
        command.pre_exec(move || {
            if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
    Ok(())
}

/// CPUs this process may run on, ascending.
pub fn usable_cpus() -> Vec<usize> {
    // SAFETY: sched_getaffinity writes into a zeroed cpu_set_t we own, of the size we pass;
    // CPU_ISSET only reads it, for indices below CPU_SETSIZE.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    let ok =
        unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) }
            == 0;
    if !ok {
        let count = std::thread::available_parallelism().map_or(1, |n| n.get());
        return (0..count).collect();
    }
    (0..libc::CPU_SETSIZE as usize)
        .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
        .collect()
}

/// A short human description of how a process ended: `exit status 3`, `signal 9 (SIGKILL)`.
pub fn describe_status(status: ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exit status {code}");
    }
    match status.signal() {
        Some(signal) => match signal_name(signal) {
            Some(name) => format!("signal {signal} ({name})"),
            None => format!("signal {signal}"),
        },
        None => status.to_string(),
    }
}

fn signal_name(signal: i32) -> Option<&'static str> {
    Some(match signal {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGILL => "SIGILL",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGTERM => "SIGTERM",
        _ => return None,
    })
}

/// The last lines of a pipe, collected by a background thread (so a chatty benchmark never
/// blocks on a full pipe) in bounded memory.
struct OutputTail {
    lines: Arc<Mutex<TailLines>>,
    closed: Mutex<mpsc::Receiver<()>>,
}

impl OutputTail {
    fn collect(mut pipe: impl Read + Send + 'static, on_line: Option<LineWatch>) -> OutputTail {
        let lines = Arc::new(Mutex::new(TailLines::default()));
        let (closed_tx, closed_rx) = mpsc::channel();
        let sink = Arc::clone(&lines);
        std::thread::spawn(move || {
            let mut chunk = [0u8; 8192];
            let mut watch = on_line.map(LineSplitter::new);
            loop {
                match pipe.read(&mut chunk) {
                    Ok(0) => break,
                    Ok(n) => {
                        if let Some(watch) = watch.as_mut() {
                            watch.push(&chunk[..n]);
                        }
                        sink.lock()
                            .unwrap_or_else(|p| p.into_inner())
                            .push(&chunk[..n]);
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(_) => break,
                }
            }
            let _ = closed_tx.send(());
        });
        OutputTail {
            lines,
            closed: Mutex::new(closed_rx),
        }
    }

    fn tail(&self, grace: Duration) -> String {
        // Either the pipe closed (message received, or sender dropped) or the grace ran out.
        let _ = self
            .closed
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .recv_timeout(grace);
        self.lines.lock().unwrap_or_else(|p| p.into_inner()).text()
    }
}

/// Cuts output into lines for a [`LineWatch`] (bytes that are not UTF-8 are replaced; a line
/// longer than [`MAX_WATCHED_LINE_BYTES`] is passed on cut).
struct LineSplitter {
    watch: LineWatch,
    current: Vec<u8>,
}

/// Longest line a [`LineWatch`] is given, in bytes.
const MAX_WATCHED_LINE_BYTES: usize = 64 * 1024;

impl LineSplitter {
    fn new(watch: LineWatch) -> Self {
        LineSplitter {
            watch,
            current: Vec::new(),
        }
    }

    fn push(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            if byte == b'\n' {
                let line = String::from_utf8_lossy(&self.current);
                (self.watch)(line.trim_end_matches('\r'));
                self.current.clear();
            } else if self.current.len() < MAX_WATCHED_LINE_BYTES {
                self.current.push(byte);
            }
        }
    }
}

/// The last [`OUTPUT_TAIL_LINES`] lines seen, plus the unfinished current line.
#[derive(Default)]
struct TailLines {
    complete: VecDeque<Vec<u8>>,
    current: Vec<u8>,
}

impl TailLines {
    fn push(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            if byte == b'\n' {
                let line = std::mem::take(&mut self.current);
                if self.complete.len() == OUTPUT_TAIL_LINES {
                    self.complete.pop_front();
                }
                self.complete.push_back(line);
            } else if self.current.len() < MAX_LINE_BYTES {
                self.current.push(byte);
            }
        }
    }

    fn text(&self) -> String {
        let mut lines: Vec<&[u8]> = self.complete.iter().map(Vec::as_slice).collect();
        if !self.current.is_empty() {
            lines.push(&self.current);
        }
        let keep = lines.len().saturating_sub(OUTPUT_TAIL_LINES);
        lines[keep..]
            .iter()
            .map(|line| {
                String::from_utf8_lossy(line)
                    .trim_end_matches('\r')
                    .to_string()
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tail_keeps_the_last_lines_and_the_unfinished_one() {
        let mut tail = TailLines::default();
        for i in 0..30 {
            tail.push(format!("line {i}\n").as_bytes());
        }
        tail.push(b"partial");
        let text = tail.text();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), OUTPUT_TAIL_LINES);
        assert_eq!(lines.first(), Some(&"line 11"));
        assert_eq!(lines.last(), Some(&"partial"));
    }

    #[test]
    fn overlong_lines_are_cut() {
        let mut tail = TailLines::default();
        tail.push(&vec![b'x'; 5 * MAX_LINE_BYTES]);
        tail.push(b"\n");
        assert_eq!(tail.text().len(), MAX_LINE_BYTES);
    }

    fn shell(script: &str, cpu: usize) -> BenchProcess {
        BenchProcess::spawn(Launch {
            executable: Path::new("/bin/sh"),
            args: vec!["-c".into(), script.into()],
            cwd: Path::new("/"),
            env: Vec::new(),
            cpu: Some(cpu),
            barrier: None,
            on_line: None,
        })
        .unwrap()
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_process_sharing_its_cpu_reports_waiting_for_it() {
        let cpu = usable_cpus()[0];
        // Dropping the hog kills it with its group.
        let _hog = shell("while :; do :; done", cpu);
        let mut counter = shell("i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done", cpu);
        while !counter.has_exited() {
            std::thread::sleep(Duration::from_millis(5));
        }
        let share = counter.cpu_wait_share().expect("schedstat readable");
        counter.kill_and_reap().unwrap();
        // Two busy processes on one CPU each get about half of it.
        assert!(share > 0.25, "waited {share}");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_pinned_process_that_moves_itself_to_another_cpu_is_read_so_and_one_that_stays_is_not() {
        let cpus = usable_cpus();
        let (&first, &last) = (cpus.first().unwrap(), cpus.last().unwrap());
        let ended = |mut process: BenchProcess| {
            while !process.has_exited() {
                std::thread::sleep(Duration::from_millis(5));
            }
            // Read as a fork reads it: exited, not yet reaped.
            let own = process.own_cpus(last);
            process.kill_and_reap().unwrap();
            own
        };
        assert_eq!(ended(shell("exit 0", last)), None);
        if first == last {
            return; // one CPU: nowhere else to move
        }
        // `taskset` moves the shell (`$$`) itself, as `sched_setaffinity(0, …)` would.
        let moved = shell(&format!("taskset -cp {first} $$ >/dev/null"), last);
        assert_eq!(ended(moved), Some(first.to_string()));
    }

    #[test]
    fn usable_cpus_is_ascending_and_not_empty() {
        let cpus = usable_cpus();
        assert!(!cpus.is_empty());
        assert!(cpus.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn a_pinned_child_runs_only_on_its_cpu_and_its_group_dies_with_it() {
        let cpu = *usable_cpus().last().unwrap();
        let mut process = BenchProcess::spawn(Launch {
            executable: Path::new("/bin/sh"),
            args: vec![
                "-c".into(),
                "grep Cpus_allowed_list /proc/self/status >&2; sleep 30 & sleep 30".into(),
            ],
            cwd: Path::new("/"),
            env: vec![],
            cpu: Some(cpu),
            barrier: None,
            on_line: None,
        })
        .unwrap();
        std::thread::sleep(Duration::from_millis(200));
        assert!(!process.has_exited());
        let pgid = process.child.id() as libc::pid_t;
        assert!(group_has_live_member(pgid));
        let status = process.kill_and_reap().unwrap();
        assert!(!group_has_live_member(pgid), "a background child survived");
        assert_eq!(describe_status(status), "signal 9 (SIGKILL)");
        let tail = process.output_tail(Duration::from_secs(2));
        assert!(tail.ends_with(&format!("\t{cpu}")), "{tail}");
    }
}
