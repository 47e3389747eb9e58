//! The ptrace side of the probe (Linux, x86-64): start the program stopped at its `exec`, write
//! the breakpoints, and follow every thread and child process until one hits a breakpoint or the
//! program ends.
//!
//! Why every thread and child: a changed function a benchmark calls from a worker thread (or a
//! forked child, whose code pages are copies holding the same `int3`) must stop the probe too; an
//! untraced thread hitting an `int3` would instead die of SIGTRAP.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

use nix::sys::ptrace::{self, Event, Options};
use nix::sys::signal::{self, Signal};
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::Pid;

use crate::steps::fork::cpu_wait::{SchedTimes, parse_schedstat};
use crate::steps::fork::process::{allowed_cpus_of_self, own_cpus_of};

use super::coverage::Span;
use super::timing::{Action, Stop, Timing};
use super::{
    ChangedEntry, Ending, ProbeError, Timed, breakpoint_words, first_segment, parse_maps,
    placed_entries, with_breakpoints,
};

/// Set once the fork asked the helper to stop: it read the benchmark's value
/// ([`crate::steps::fork::Leader::Helper`]).
static STOP_ASKED: AtomicBool = AtomicBool::new(false);

/// A pidfd of the traced program while it runs (-1 otherwise), for the handler to wake
/// [`follow`] with.
static PROGRAM_PIDFD: AtomicI32 = AtomicI32::new(-1);

/// Makes `SIGTERM` ask this helper to stop the program ([`Ending::Stopped`]) rather than end
/// the helper before it writes what it saw; installed by the helper alone. Without
/// `SA_RESTART`, so a wait in progress returns.
pub(super) fn stop_when_asked() -> Result<(), ProbeError> {
    let action = signal::SigAction::new(
        signal::SigHandler::Handler(on_stop_request),
        signal::SaFlags::empty(),
        signal::SigSet::empty(),
    );
    // SAFETY: the handler only stores to an atomic and makes one system call, both
    // async-signal-safe.
    unsafe { signal::sigaction(Signal::SIGTERM, &action) }
        .map(drop)
        .map_err(refused("handle SIGTERM"))
}

/// Notes the request and stops the program with `SIGSTOP`: the stop is an event [`follow`]'s
/// wait returns for, so a request that lands between its check of [`STOP_ASKED`] and its wait
/// is seen at once, not at the program's next event. The pidfd names the program and no other
/// process, even once it has ended.
extern "C" fn on_stop_request(_: libc::c_int) {
    STOP_ASKED.store(true, Ordering::SeqCst);
    let pidfd = PROGRAM_PIDFD.load(Ordering::SeqCst);
    if pidfd >= 0 {
        // SAFETY: one system call with a null `siginfo`, as `pidfd_send_signal` allows; the
        // interrupted code's `errno` is put back as it was.
        unsafe {
            let errno = *libc::__errno_location();
            libc::syscall(
                libc::SYS_pidfd_send_signal,
                pidfd,
                libc::SIGSTOP,
                std::ptr::null::<libc::siginfo_t>(),
                0,
            );
            *libc::__errno_location() = errno;
        }
    }
}

/// A pidfd of the child `pid`, published for [`on_stop_request`] when none is (a test may
/// trace several programs at once); `None` when the kernel has no pidfds (before 5.3): a stop
/// asked for is then seen at the program's next event.
fn publish_pidfd(pid: Pid) -> Option<libc::c_int> {
    // SAFETY: plain system call; the pid is our own child's, not yet reaped.
    let pidfd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid.as_raw(), 0) } as libc::c_int;
    if pidfd < 0 {
        return None;
    }
    let _ = PROGRAM_PIDFD.compare_exchange(-1, pidfd, Ordering::SeqCst, Ordering::SeqCst);
    Some(pidfd)
}

/// Withdraws and closes a pidfd of [`publish_pidfd`].
fn withdraw_pidfd(pidfd: Option<libc::c_int>) {
    if let Some(pidfd) = pidfd {
        let _ = PROGRAM_PIDFD.compare_exchange(pidfd, -1, Ordering::SeqCst, Ordering::SeqCst);
        // SAFETY: our own descriptor, closed once.
        unsafe { libc::close(pidfd) };
    }
}

/// Runs `program` with a breakpoint at every entry of `entries`; with `timed` routines, those of
/// `timed.same_outside` count only when made inside one of them ([`Timing`]).
pub(super) fn run(
    program: &Path,
    args: &[OsString],
    entries: &[ChangedEntry],
    timed: &Timed,
) -> Result<Ending, ProbeError> {
    let pid = spawn_traced(program, args)?;
    let pidfd = publish_pidfd(pid);
    // From here on the child is killed when this process ends (PTRACE_O_EXITKILL), and killed
    // here on every error.
    let traced = start(pid, program, entries, timed)
        .and_then(|(mut timing, mut code)| follow(pid, &mut timing, &mut code));
    withdraw_pidfd(pidfd);
    if !matches!(
        traced,
        Ok(Ending::Exited { .. } | Ending::Signaled { .. } | Ending::Stopped { .. })
    ) {
        kill_and_reap(pid);
    }
    traced
}

/// Starts `program args…` (in this process's directory and environment) as a tracee, to stop
/// at its `exec`.
pub(super) fn spawn_traced(program: &Path, args: &[OsString]) -> Result<Pid, ProbeError> {
    let mut command = Command::new(program);
    command.args(args);
    // SAFETY: `traceme` is one system call, async-signal-safe, as `pre_exec` requires.
    unsafe {
        command.pre_exec(|| ptrace::traceme().map_err(std::io::Error::from));
    }
    let child = command.spawn().map_err(|source| ProbeError::Spawn {
        program: program.to_path_buf(),
        source,
    })?;
    Ok(Pid::from_raw(child.id() as i32))
}

/// Kills the program and reaps every traced thread of it: its leader is reported only after
/// the other threads, which as tracees are ours to reap. A thread stopped on its way out (its
/// exit event) is let go on, or it would wait for us forever.
pub(super) fn kill_and_reap(pid: Pid) {
    let _ = signal::kill(pid, Signal::SIGKILL);
    loop {
        match waitpid(None, Some(WaitPidFlag::__WALL | WaitPidFlag::__WNOTHREAD)) {
            Ok(WaitStatus::Exited(p, _) | WaitStatus::Signaled(p, _, _)) if p == pid => return,
            Ok(WaitStatus::PtraceEvent(p, _, _) | WaitStatus::Stopped(p, _)) => {
                let _ = ptrace::cont(p, None);
            }
            Ok(_) | Err(nix::Error::EINTR) => {}
            Err(_) => return,
        }
    }
}

pub(super) fn refused(what: &str) -> impl FnOnce(nix::Error) -> ProbeError + '_ {
    move |source| ProbeError::Ptrace {
        what: what.to_string(),
        source,
    }
}

/// Waits for the child's stop at its `exec`, sets the options and the first breakpoints; the
/// entries by their address in the running process, in a [`Timing`].
fn start(
    pid: Pid,
    program: &Path,
    entries: &[ChangedEntry],
    timed: &Timed,
) -> Result<(Timing, Code), ProbeError> {
    stopped_at_exec(pid, program, Options::PTRACE_O_TRACEEXIT)?;
    let canonical = std::fs::canonicalize(program).map_err(|source| ProbeError::Io {
        what: "resolve",
        path: program.to_path_buf(),
        source,
    })?;
    let (maps, first) = (maps_of(pid)?, first_segment(program)?);
    let timing = Timing::new(
        placed_entries(&maps, &canonical, first, entries)?,
        placed_entries(&maps, &canonical, first, &timed.routines)?,
        placed_entries(&maps, &canonical, first, &timed.same_outside)?
            .into_keys()
            .collect(),
    );
    let mut code = Code::default();
    let armed = timing.armed();
    code.rewrite(pid, &armed, &armed)?;
    ptrace::cont(pid, None).map_err(refused("continue it"))?;
    Ok((timing, code))
}

/// Waits for the stop of `pid`, just started from `program`, at its `exec`, and sets the options
/// that follow its every thread, child and `exec`, and kill them all with this process, and
/// `more`.
pub(super) fn stopped_at_exec(pid: Pid, program: &Path, more: Options) -> Result<(), ProbeError> {
    match waitpid(pid, None).map_err(refused("wait for the program's start"))? {
        WaitStatus::Stopped(_, Signal::SIGTRAP) => {}
        other => {
            return Err(ProbeError::Mapping {
                program: program.to_path_buf(),
                why: format!("it did not stop at its start ({other:?})"),
            });
        }
    }
    let options = Options::PTRACE_O_TRACECLONE
        | Options::PTRACE_O_TRACEFORK
        | Options::PTRACE_O_TRACEVFORK
        | Options::PTRACE_O_TRACEEXEC
        | Options::PTRACE_O_EXITKILL
        | more;
    ptrace::setoptions(pid, options).map_err(refused("set its options"))
}

/// The mappings of process `pid` (`/proc/<pid>/maps`).
pub(super) fn maps_of(pid: Pid) -> Result<Vec<super::Mapping>, ProbeError> {
    let maps_path = format!("/proc/{pid}/maps");
    let maps = std::fs::read_to_string(&maps_path).map_err(|source| ProbeError::Io {
        what: "read",
        path: maps_path.into(),
        source,
    })?;
    Ok(parse_maps(&maps))
}

/// The program's code words the probe wrote breakpoints into, as they were before.
#[derive(Default)]
pub(super) struct Code {
    originals: BTreeMap<u64, u64>,
}

impl Code {
    /// Writes the words of `addresses` through the stopped thread `pid` (all threads share the
    /// memory) with a breakpoint at each of `armed` in them and the program's own bytes
    /// elsewhere.
    pub(super) fn rewrite(
        &mut self,
        pid: Pid,
        addresses: &BTreeSet<u64>,
        armed: &BTreeSet<u64>,
    ) -> Result<(), ProbeError> {
        for word in breakpoint_words(addresses.iter().copied()).into_keys() {
            let failed = |e: nix::Error| ProbeError::Breakpoint {
                address: word,
                name: "a word of the probe's breakpoints".to_string(),
                why: e.to_string(),
            };
            let at = word as ptrace::AddressType;
            let original = match self.originals.get(&word) {
                Some(original) => *original,
                None => {
                    let original = ptrace::read(pid, at).map_err(failed)? as u64;
                    *self.originals.entry(word).or_insert(original)
                }
            };
            let offsets: Vec<usize> = armed
                .range(word..word + 8)
                .map(|a| (a - word) as usize)
                .collect();
            let new = with_breakpoints(original, &offsets);
            ptrace::write(pid, at, new as libc::c_long).map_err(failed)?;
        }
        Ok(())
    }
}

/// Follows every traced thread and process until the program ends or one hits a breakpoint.
/// The program's leader task's running and waiting times are read at its exit stop, while its
/// `/proc` entry still holds them (criterion measures on the main thread).
///
/// Waits only for this thread's own children and tracees (`__WNOTHREAD`): another thread of this
/// process (a test, a rayon worker) may have children of its own, whose stops are not ours.
fn follow(pid: Pid, timing: &mut Timing, code: &mut Code) -> Result<Ending, ProbeError> {
    let mut leader = None;
    let mut spans = Spans::default();
    // The program started with this helper's CPUs: any other list it set itself.
    let given = allowed_cpus_of_self();
    let own_cpus = || own_cpus_of(pid.as_raw() as u32, given.as_deref()?);
    let mut own = None;
    loop {
        if STOP_ASKED.load(Ordering::SeqCst) {
            // Its value is read: what it runs from here on is not measured.
            let leader = SchedTimes::of_process(pid.as_raw() as u32);
            let own_cpus = own_cpus();
            kill_and_reap(pid);
            return Ok(match timing.noted_at_end() {
                Ok(outside) => Ending::Stopped {
                    leader,
                    outside,
                    spans: spans.done,
                    own_cpus,
                },
                Err(name) => Ending::Hit { name },
            });
        }
        let status = match waitpid(None, Some(WaitPidFlag::__WALL | WaitPidFlag::__WNOTHREAD)) {
            Ok(status) => status,
            Err(nix::Error::EINTR) => continue,
            Err(e) => return Err(refused("wait for it")(e)),
        };
        // A thread that died between its stop and our request answers ESRCH: nothing to do.
        let resumed = match status {
            WaitStatus::Exited(p, code) if p == pid => {
                return Ok(match timing.noted_at_end() {
                    Ok(outside) => Ending::Exited {
                        code,
                        leader,
                        outside,
                        spans: spans.done,
                        own_cpus: own,
                    },
                    Err(name) => Ending::Hit { name },
                });
            }
            WaitStatus::Signaled(p, signal, _) if p == pid => {
                return Ok(Ending::Signaled {
                    signal: signal as i32,
                });
            }
            WaitStatus::PtraceEvent(p, _, event) if event == Event::PTRACE_EVENT_EXEC as i32 => {
                // A new program: none of the breakpoints is in it.
                ptrace::detach(p, None)
            }
            WaitStatus::PtraceEvent(p, _, event)
                if p == pid && event == Event::PTRACE_EVENT_EXIT as i32 =>
            {
                leader = SchedTimes::of_process(pid.as_raw() as u32);
                own = own_cpus();
                ptrace::cont(p, None)
            }
            WaitStatus::PtraceEvent(p, _, _) => ptrace::cont(p, None),
            WaitStatus::Stopped(p, Signal::SIGTRAP) => {
                match trapped(pid, p, (timing, &mut spans), code)? {
                    Some(ending) => return Ok(ending),
                    None => Ok(()),
                }
            }
            other => resume_stopped(other),
        };
        resumed_or_gone(resumed)?;
    }
}

/// Resumes a thread of `status` that no other arm handles: a new thread's or child's first
/// stop (and a `SIGSTOP` sent to it) without the signal, any other signal passed on; nothing
/// for an event that is not a stop.
pub(super) fn resume_stopped(status: WaitStatus) -> nix::Result<()> {
    match status {
        WaitStatus::Stopped(p, Signal::SIGSTOP) => ptrace::cont(p, None),
        WaitStatus::Stopped(p, signal) => ptrace::cont(p, signal),
        _ => Ok(()),
    }
}

/// A thread's resumption, where one that died between its stop and the request (`ESRCH`) is
/// nothing to report.
pub(super) fn resumed_or_gone(resumed: nix::Result<()>) -> Result<(), ProbeError> {
    match resumed {
        Ok(()) | Err(nix::Error::ESRCH) => Ok(()),
        Err(e) => Err(refused("continue a thread")(e)),
    }
}

/// The thread `p` of the program `pid` stopped by a `SIGTRAP`: the probe's end when it hit a
/// changed function that counts (or lost the timed routine), else `None` once the thread is
/// resumed.
fn trapped(
    pid: Pid,
    p: Pid,
    (timing, spans): (&mut Timing, &mut Spans),
    code: &mut Code,
) -> Result<Option<Ending>, ProbeError> {
    let was_inside = timing.inside();
    let mut regs = ptrace::getregs(p).map_err(refused("read a thread's registers"))?;
    let top = ptrace::read(p, regs.rsp as ptrace::AddressType).map_or(0, |word| word as u64);
    let stop = Stop {
        thread: p.as_raw(),
        at: regs.rip.wrapping_sub(1),
        sp: regs.rsp,
        top,
        own_process: Path::new(&format!("/proc/{pid}/task/{p}")).exists(),
        threads: std::fs::read_dir(format!("/proc/{pid}/task")).map_or(usize::MAX, Iterator::count),
        // The probe does not stop at system calls: no thread is known to be asleep.
        asleep: 0,
    };
    let resumed = match timing.stop(&stop) {
        Action::Hit(name) => return Ok(Some(Ending::Hit { name })),
        Action::Lost(message) => return Ok(Some(Ending::Failed { message })),
        Action::Foreign => ptrace::cont(p, Signal::SIGTRAP),
        Action::Resume { resume, rewrite } => {
            if timing.inside() != was_inside {
                spans.mark(pid, p, timing.inside());
            }
            code.rewrite(p, &rewrite.into_iter().collect(), &timing.armed())?;
            regs.rip = resume;
            ptrace::setregs(p, regs).map_err(refused("set a thread's registers"))?;
            ptrace::cont(p, None)
        }
    };
    match resumed {
        Ok(()) | Err(nix::Error::ESRCH) => Ok(None),
        Err(e) => Err(refused("continue a thread")(e)),
    }
}

/// The calls of the timed routine ([`Span`]), timed at the stops of their entry and return: the
/// clock, and the running and waiting times of the thread (`/proc/<pid>/task/<tid>/schedstat`).
/// A call whose times cannot be read is left out, and the coverage, finding fewer calls than
/// the run's samples and warm-up, does without them; so are all of them past [`MAX_SPANS`] (a
/// harness that calls its routine once an iteration: the result stays small).
#[derive(Debug, Default)]
struct Spans {
    open: Option<(std::time::Instant, SchedTimes)>,
    done: Vec<Span>,
    overflowed: bool,
}

/// The most calls of the timed routine a probe's result holds (a criterion run has its warm-up's
/// batches and a call a sample).
const MAX_SPANS: usize = 100_000;

impl Spans {
    /// Thread `thread` of `pid` has just entered the timed routine (`inside`) or returned.
    fn mark(&mut self, pid: Pid, thread: Pid, inside: bool) {
        if self.overflowed || self.done.len() >= MAX_SPANS {
            (self.overflowed, self.done, self.open) = (true, Vec::new(), None);
            return;
        }
        let times = std::fs::read_to_string(format!("/proc/{pid}/task/{thread}/schedstat"))
            .ok()
            .and_then(|text| parse_schedstat(&text));
        let (Some(times), Some((entered, at_entry))) = (times, self.open.take()) else {
            self.open = times
                .filter(|_| inside)
                .map(|t| (std::time::Instant::now(), t));
            return;
        };
        if inside {
            self.open = Some((std::time::Instant::now(), times));
            return;
        }
        self.done.push(Span {
            wall_ns: entered.elapsed().as_nanos() as u64,
            running_ns: times.running_ns.saturating_sub(at_entry.running_ns),
            waiting_ns: times.waiting_ns.saturating_sub(at_entry.waiting_ns),
        });
    }
}
