//! The ptrace side of the native trace (Linux, x86-64): start the benchmark stopped at its
//! `exec`, write a one-shot `int3` at the entry of every function of its executable, and follow
//! every thread and child process, stopping at each system call, until the benchmark ends. Which
//! breakpoints are armed when a timed routine is entered and left is [`super::timed`]'s choice;
//! here they are written (the whole set at each change of state) and the stops read.
//!
//! Why one-shot breakpoints: a function is known to have run once its entry was hit; restoring
//! its first byte there makes every later call native speed, so the run costs one stop per
//! function entered (twice for one entered again inside the timed routine) plus one per system
//! call, whatever the benchmark's set-up computes.
//! Restoring is idempotent (the original byte written again): a forked child's copy of the code
//! may still hold an `int3` its parent's has lost, and the thread that hits it restores it in its
//! own process's memory.
//!
//! Why system-call stops rather than a seccomp filter: the calls are few next to the set-up's
//! computation, and every call is seen without a filter program to keep in step with the list of
//! path-taking calls. Each call on a path is written as a line of valgrind's system-call log
//! (`SYSCALL[pid,tid](nr) sys_openat ( -100, 0xADDR(path), 0 ) --> Success(0x3)`), so that one
//! reader ([`crate::steps::reach::trace::syscalls`]) turns both tracers' logs into what was
//! touched, with the same rules for directories, descriptors and failures.
//!
//! A child that runs another program (`execve`) is let go at its `exec`, as valgrind (without
//! `--trace-children`) lets it go: the program is recorded, not its files. The benchmark itself
//! replacing its program is an error: nothing of the executable would run after it.

use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};
use std::ffi::OsString;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use nix::sys::ptrace::{self, Event, Options};
use nix::sys::signal::{self, Signal};
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::Pid;

use super::cuts::{Cut, CutAt, Cuts};
use super::timed::{TimedPart, Trap};
use crate::steps::reach::probe::timing::Stop;
use crate::steps::reach::probe::{load_bias, parse_maps};
use crate::steps::reach::trace::budget::{self, Budget, Limit, Meter};
use crate::util::proc_stat;

/// What to run, and where its output goes.
pub(super) struct Launch<'a> {
    pub program: &'a Path,
    pub args: Vec<OsString>,
    pub cwd: &'a Path,
    pub env: Vec<(OsString, OsString)>,
    pub stdout: File,
    pub stderr: File,
    pub budget: Budget,
    /// The function entries, as ELF virtual addresses of `program`.
    pub entries: &'a [u64],
    /// The entries of the harness's timed routines among them, or why none is known.
    pub routines: Result<Vec<u64>, String>,
    /// The virtual address of `program`'s segment at file offset 0 (for the load bias).
    pub first_segment: u64,
    /// For a run cut into parts ([`super::cuts`]): where.
    pub cut_at: Option<CutAt<'a>>,
}

/// Where the breakpoints go: [`Launch`]'s program, entries, routines and boundaries.
struct Places<'a> {
    program: &'a Path,
    entries: &'a [u64],
    routines: &'a Result<Vec<u64>, String>,
    first_segment: u64,
    cut_at: Option<CutAt<'a>>,
}

impl<'a> Launch<'a> {
    fn places(&'a self) -> Places<'a> {
        Places {
            program: self.program,
            entries: self.entries,
            routines: &self.routines,
            first_segment: self.first_segment,
            cut_at: self.cut_at,
        }
    }
}

/// How the benchmark's process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum End {
    Exited(i32),
    Signaled(i32),
    /// Killed at a limit of its budget.
    Stopped(Limit),
    /// Killed at the user's interrupt.
    Interrupted,
}

/// What one run showed.
#[derive(Debug)]
pub(super) struct Followed {
    pub end: End,
    /// The entries hit, as ELF virtual addresses.
    pub entered: BTreeSet<u64>,
    /// Of `entered`, those hit inside a timed routine ([`super::timed`]), or why that is not
    /// known.
    pub timed: Result<BTreeSet<u64>, String>,
    /// How long the benchmark ran outside its timed routine: before its first entry (start-up,
    /// set-up) and after its last return (what criterion runs of the other benchmarks' set-up,
    /// teardown), under the trace's stops; `None` when no routine was entered.
    pub set_up: Option<Duration>,
    /// The breakpoint stops the run made.
    pub stops: u64,
    /// Each process's system calls on paths, as valgrind's log writes them; the benchmark's
    /// process first, the others in the order they started.
    pub logs: Vec<(i32, String)>,
    /// The other files mapped executable into the benchmark's process at its exit.
    pub libraries: BTreeSet<PathBuf>,
    /// A run with boundaries: its parts.
    pub cut: Option<Cut>,
    /// The threads the benchmark's process started.
    pub threads: usize,
}

/// Runs `launch` to its end (or its budget) under ptrace.
pub(super) fn run(launch: Launch<'_>) -> Result<Followed, String> {
    let mut command = Command::new(launch.program);
    command
        .args(&launch.args)
        .current_dir(launch.cwd)
        .envs(launch.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(
            launch
                .stdout
                .try_clone()
                .map_err(|e| format!("cannot pass its output: {e}"))?,
        )
        .stderr(
            launch
                .stderr
                .try_clone()
                .map_err(|e| format!("cannot pass its output: {e}"))?,
        );
    // A process group of its own: the budget counts the CPU time of the processes in it.
    command.process_group(0);
    // SAFETY: `traceme` is one system call, async-signal-safe, as `pre_exec` requires.
    unsafe {
        command.pre_exec(|| ptrace::traceme().map_err(std::io::Error::from));
    }
    let child = command
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", launch.program.display()))?;
    let leader = Pid::from_raw(child.id() as i32);
    let mut meter = Meter::new(launch.budget).with_thread(budget::current_thread());
    if let Some(cut_at) = launch.cut_at {
        meter = meter.with_part(cut_at.part);
    }
    let meter = Arc::new(meter);
    let stopped = Arc::new(AtomicBool::new(false));
    let (cancel, watchdog) = watch(leader, Arc::clone(&meter), Arc::clone(&stopped));
    let mut state = State::new(leader);
    state.progress = launch.cut_at.map(|_| Arc::clone(&meter));
    let followed = state
        .start(&launch.places())
        .and_then(|bias| state.follow().map(|end| (bias, end)));
    drop(cancel);
    let _ = watchdog.join();
    state.kill_all();
    let (bias, end) = followed?;
    let end = match (stopped.load(Ordering::SeqCst), meter.fired()) {
        (false, _) => end,
        (true, Some(limit)) => End::Stopped(limit),
        (true, None) => End::Interrupted,
    };
    let unbiased = |set: &BTreeSet<u64>| set.iter().map(|a| a.wrapping_sub(bias)).collect();
    let entered = unbiased(&state.part.entered);
    let (stops, outside) = (state.part.stops, state.outside());
    let cut = state.cuts.take().map(|cuts| cuts.finish(bias));
    Ok(Followed {
        end,
        entered,
        timed: state.part.finish().map(|timed| unbiased(&timed)),
        set_up: outside,
        stops,
        logs: state.logs,
        libraries: state.libraries,
        cut,
        threads: state.threads,
    })
}

/// A thread that kills the benchmark at a limit of `meter`'s budget or at the user's interrupt,
/// unless the returned sender is dropped first.
fn watch(
    leader: Pid,
    meter: Arc<Meter>,
    stopped: Arc<AtomicBool>,
) -> (std::sync::mpsc::Sender<()>, std::thread::JoinHandle<()>) {
    let (cancel, cancelled) = std::sync::mpsc::channel::<()>();
    let watchdog = std::thread::spawn(move || {
        loop {
            if meter.check(leader.as_raw()).is_some() || crate::util::interrupt::interrupted() {
                stopped.store(true, Ordering::SeqCst);
                let _ = signal::kill(leader, Signal::SIGKILL);
                let _ = signal::killpg(leader, Signal::SIGKILL);
                return;
            }
            match cancelled.recv_timeout(Duration::from_millis(100)) {
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
                _ => return,
            }
        }
    });
    (cancel, watchdog)
}

/// One traced thread.
struct Task {
    /// Its process (thread group).
    process: i32,
    /// Inside a system call: the line to log at its end, if it is one on a path.
    in_call: Option<Option<Call>>,
}

/// Everything followed so far.
struct State {
    leader: Pid,
    /// Every breakpoint's address in the running process, with the byte it replaced.
    originals: HashMap<u64, u8>,
    /// The program's executable mappings (start, end), where the breakpoints are.
    code: Vec<(u64, u64)>,
    tasks: HashMap<Pid, Task>,
    /// Stopped before the event that announces them.
    early: HashSet<Pid>,
    /// The functions entered, in and out of the timed routine.
    part: TimedPart,
    started: Instant,
    /// When a timed routine was first entered, and when one last returned (since `started`).
    set_up: Option<Duration>,
    left: Option<Duration>,
    /// When the benchmark's process ended (since `started`).
    ended: Option<Duration>,
    logs: Vec<(i32, String)>,
    libraries: BTreeSet<PathBuf>,
    /// The program's path as mapped (for `libraries`).
    program: PathBuf,
    /// A run cut into parts: where it is.
    cuts: Option<Cuts>,
    /// The threads the benchmark's process started.
    threads: usize,
    /// A run cut into parts: told at each cut ([`Meter::progressed`]).
    progress: Option<Arc<Meter>>,
    /// Stops read while settling ([`State::settle`]) and left for [`State::follow`].
    deferred: VecDeque<WaitStatus>,
    /// Whether [`State::settle`] is running (a stop it handles does not settle again).
    settling: bool,
    /// Whether a thread stayed awake through a whole [`SETTLE`]: later entries do not wait.
    settle_failed: bool,
}

/// How long a timed routine's entry waits for the other threads of the benchmark's process to
/// be asleep ([`State::settle`]).
const SETTLE: Duration = Duration::from_millis(200);

fn refused(what: &'static str) -> impl Fn(nix::Error) -> String {
    move |e| format!("ptrace refused to {what}: {e}")
}

/// Resumes a stopped thread up to its next system call; one that died meanwhile is no error.
fn resume(p: Pid, signal: Option<Signal>) -> Result<(), String> {
    match ptrace::syscall(p, signal) {
        Ok(()) | Err(nix::Error::ESRCH) => Ok(()),
        Err(e) => Err(refused("resume a thread")(e)),
    }
}

impl State {
    fn new(leader: Pid) -> Self {
        // The leader is followed from its start, so that a failure before it runs still kills
        // and reaps it.
        let leader_task = Task {
            process: leader.as_raw(),
            in_call: None,
        };
        State {
            leader,
            originals: HashMap::new(),
            code: Vec::new(),
            tasks: HashMap::from([(leader, leader_task)]),
            early: HashSet::new(),
            part: TimedPart::new(BTreeSet::new(), Err("not started".into())),
            started: Instant::now(),
            set_up: None,
            left: None,
            ended: None,
            logs: vec![(leader.as_raw(), String::new())],
            libraries: BTreeSet::new(),
            program: PathBuf::new(),
            cuts: None,
            threads: 0,
            progress: None,
            deferred: VecDeque::new(),
            settling: false,
            settle_failed: false,
        }
    }

    /// Waits for the benchmark's stop at its `exec`, sets the options, writes the breakpoints
    /// and lets it go; the load bias.
    fn start(&mut self, launch: &Places<'_>) -> Result<u64, String> {
        let (program, entries, first) = (launch.program, launch.entries, launch.first_segment);
        let leader = self.leader;
        match waitpid(leader, None).map_err(refused("wait for the benchmark's start"))? {
            WaitStatus::Stopped(_, Signal::SIGTRAP) => {}
            other => return Err(format!("it did not stop at its start ({other:?})")),
        }
        let options = Options::PTRACE_O_TRACESYSGOOD
            | Options::PTRACE_O_TRACECLONE
            | Options::PTRACE_O_TRACEFORK
            | Options::PTRACE_O_TRACEVFORK
            | Options::PTRACE_O_TRACEEXEC
            | Options::PTRACE_O_TRACEEXIT
            | Options::PTRACE_O_EXITKILL;
        ptrace::setoptions(leader, options).map_err(refused("set its options"))?;
        self.program = std::fs::canonicalize(program)
            .map_err(|e| format!("cannot resolve {}: {e}", program.display()))?;
        let maps = std::fs::read_to_string(format!("/proc/{leader}/maps"))
            .map_err(|e| format!("cannot read its mappings: {e}"))?;
        let maps = parse_maps(&maps);
        let bias = load_bias(&maps, &self.program, first)
            .ok_or("its executable is not mapped at file offset 0")?;
        self.code = maps
            .iter()
            .filter(|m| m.path == self.program && m.executable)
            .map(|m| (m.start, m.end))
            .collect();
        let placed: BTreeSet<u64> = entries
            .iter()
            .map(|e| e.wrapping_add(bias))
            .filter(|at| {
                self.code
                    .iter()
                    .any(|(start, end)| (start..end).contains(&at))
            })
            .collect();
        let routines = launch.routines.as_ref().map_err(String::clone).map(|r| {
            let moved = r.iter().map(|e| e.wrapping_add(bias));
            moved.filter(|at| placed.contains(at)).collect()
        });
        if let Some(CutAt { starts, passes, .. }) = launch.cut_at {
            let moved = |set: &[u64]| -> BTreeSet<u64> {
                let moved = set.iter().map(|e| e.wrapping_add(bias));
                moved.filter(|at| placed.contains(at)).collect()
            };
            let (starts, passes) = (moved(starts), moved(passes));
            if starts.is_empty() || passes.is_empty() {
                return Err("criterion's `test_start` or `test_pass` is not in its code".into());
            }
            self.cuts = Some(Cuts::new(starts, passes));
        }
        self.part = TimedPart::new(placed, routines);
        let armed = self.part.armed_at_start().clone();
        self.rewrite(leader, &armed)?;
        self.started = Instant::now();
        resume(leader, None)?;
        Ok(bias)
    }

    /// Writes the program's code through the stopped thread `p` so that exactly the
    /// breakpoints of `armed` are in it: each executable mapping read, patched and written back
    /// whole. An address armed for the first time has its byte kept as read.
    fn rewrite(&mut self, p: Pid, armed: &BTreeSet<u64>) -> Result<(), String> {
        let memory = memory_of(p)?;
        for &(start, end) in &self.code {
            let mut code = vec![0u8; (end - start) as usize];
            memory
                .read_exact_at(&mut code, start)
                .map_err(|e| format!("cannot read its code: {e}"))?;
            for &at in armed.range(start..end) {
                self.originals
                    .entry(at)
                    .or_insert(code[(at - start) as usize]);
            }
            for (&at, &original) in &self.originals {
                if (start..end).contains(&at) {
                    let armed = armed.contains(&at);
                    code[(at - start) as usize] = if armed { 0xCC } else { original };
                }
            }
            memory
                .write_all_at(&code, start)
                .map_err(|e| format!("cannot write its breakpoints: {e}"))?;
        }
        Ok(())
    }

    /// Follows every thread and process until the benchmark's process ends, and every other
    /// process it started (not let go at an `exec`) is killed and reaped.
    fn follow(&mut self) -> Result<End, String> {
        let mut end = None;
        while !self.tasks.is_empty() {
            let waited = match self.deferred.pop_front() {
                Some(status) => Ok(status),
                None => waitpid(None, Some(WaitPidFlag::__WALL | WaitPidFlag::__WNOTHREAD)),
            };
            let status = match waited {
                Ok(status) => status,
                Err(nix::Error::EINTR) => continue,
                Err(nix::Error::ECHILD) => break,
                Err(e) => return Err(refused("wait for it")(e)),
            };
            if let Some(ended) = self.step(status)?
                && end.is_none()
            {
                end = Some(ended);
                // What the benchmark started and left running is not waited for.
                self.kill_all();
            }
        }
        end.ok_or_else(|| "its end was not seen".to_string())
    }

    /// Handles one stop or end; the benchmark's end when it is one.
    fn step(&mut self, status: WaitStatus) -> Result<Option<End>, String> {
        if let Some(p) = status.pid()
            && self
                .tasks
                .get(&p)
                .is_some_and(|t| t.process == self.leader.as_raw())
        {
            self.part.stopped(p.as_raw());
        }
        match status {
            WaitStatus::Exited(p, code) => return Ok(self.ended(p, End::Exited(code))),
            WaitStatus::Signaled(p, signal, _) => {
                return Ok(self.ended(p, End::Signaled(signal as i32)));
            }
            WaitStatus::PtraceSyscall(p) => {
                self.syscall(p)?;
                resume(p, None)?;
            }
            WaitStatus::PtraceEvent(p, _, event) => self.event(p, event)?,
            WaitStatus::Stopped(p, Signal::SIGTRAP) => {
                let ours = self.trapped(p)?;
                resume(p, (!ours).then_some(Signal::SIGTRAP))?;
            }
            WaitStatus::Stopped(p, Signal::SIGSTOP) if !self.tasks.contains_key(&p) => {
                self.early.insert(p);
            }
            // A new thread's or process's first stop, and a `SIGSTOP` sent to it: not passed
            // on (with `PTRACE_TRACEME` its group-stop would come back as the same stop).
            WaitStatus::Stopped(p, Signal::SIGSTOP) => resume(p, None)?,
            WaitStatus::Stopped(p, signal) => resume(p, Some(signal))?,
            _ => {}
        }
        Ok(None)
    }

    fn ended(&mut self, p: Pid, how: End) -> Option<End> {
        self.tasks.remove(&p);
        if p == self.leader {
            self.ended.get_or_insert(self.started.elapsed());
        }
        (p == self.leader).then_some(how)
    }

    /// See [`Followed::set_up`]: before the first entry, and after the last return when it was
    /// seen (a routine whose return was not seen counts nothing after it).
    fn outside(&self) -> Option<Duration> {
        let after = match (self.left, self.ended) {
            (Some(left), Some(ended)) => ended.saturating_sub(left),
            _ => Duration::ZERO,
        };
        Some(self.set_up? + after)
    }

    /// Kills every process still followed (the benchmark's first), every other process of its
    /// process group (a program it started and let go at its `exec`), and every child stopped
    /// before the event that announces it, which is reaped here. Why the last two: a child whose
    /// parent was killed before its fork was announced stayed stopped and traced, and the wait
    /// for the trace's other tasks waited on it for ever (an interrupted range-set-blaze run
    /// hung so, criterion having forked to start `gnuplot`).
    ///
    /// The leader is signalled by its pid only while it is followed (not reaped: a reaped pid
    /// may name another process by now); its group while any member is left.
    fn kill_all(&mut self) {
        let processes: BTreeSet<i32> = self.tasks.values().map(|t| t.process).collect();
        let _ = signal::killpg(self.leader, Signal::SIGKILL);
        for process in processes {
            let _ = signal::kill(Pid::from_raw(process), Signal::SIGKILL);
        }
        for child in std::mem::take(&mut self.early) {
            let _ = signal::kill(child, Signal::SIGKILL);
            let _ = waitpid(child, Some(WaitPidFlag::__WALL));
        }
        if !self.tasks.is_empty() {
            self.reap();
        }
    }

    /// Waits for every followed thread's end after [`State::kill_all`]; a thread stopped on its
    /// way out is let go on.
    fn reap(&mut self) {
        while !self.tasks.is_empty() {
            match waitpid(None, Some(WaitPidFlag::__WALL | WaitPidFlag::__WNOTHREAD)) {
                Ok(WaitStatus::Exited(p, _) | WaitStatus::Signaled(p, _, _)) => {
                    self.tasks.remove(&p);
                }
                Ok(
                    WaitStatus::PtraceEvent(p, _, _)
                    | WaitStatus::Stopped(p, _)
                    | WaitStatus::PtraceSyscall(p),
                ) => {
                    let _ = ptrace::cont(p, None);
                }
                Ok(_) | Err(nix::Error::EINTR) => {}
                Err(_) => return,
            }
        }
    }

    /// A ptrace event of thread `p`: a new thread or process, an `exec`, an exit.
    fn event(&mut self, p: Pid, event: i32) -> Result<(), String> {
        let process = self.tasks.get(&p).map_or(p.as_raw(), |t| t.process);
        let new = [
            Event::PTRACE_EVENT_CLONE,
            Event::PTRACE_EVENT_FORK,
            Event::PTRACE_EVENT_VFORK,
        ];
        if new.iter().any(|e| *e as i32 == event) {
            let child =
                Pid::from_raw(ptrace::getevent(p).map_err(refused("read an event"))? as i32);
            let thread = event == Event::PTRACE_EVENT_CLONE as i32
                && Path::new(&format!("/proc/{process}/task/{child}")).exists();
            let child_process = if thread { process } else { child.as_raw() };
            if !thread {
                self.logs.push((child_process, String::new()));
            } else if process == self.leader.as_raw() {
                self.threads += 1;
            }
            self.part.started_task();
            self.tasks.insert(
                child,
                Task {
                    process: child_process,
                    in_call: None,
                },
            );
            // Its first stop, when it came before this event, was held until now.
            if self.early.remove(&child) {
                resume(child, None)?;
            }
        } else if event == Event::PTRACE_EVENT_EXEC as i32 {
            if process == self.leader.as_raw() {
                return Err("the benchmark's process replaced its program (`execve`)".into());
            }
            // Another program: let go, as valgrind lets it go.
            self.tasks.retain(|_, t| t.process != process);
            let _ = ptrace::detach(p, None);
            return Ok(());
        } else if event == Event::PTRACE_EVENT_EXIT as i32 && p == self.leader {
            self.read_libraries();
        }
        resume(p, None)
    }

    /// The files other than the program mapped executable into the benchmark's process.
    fn read_libraries(&mut self) {
        if let Ok(maps) = std::fs::read_to_string(format!("/proc/{}/maps", self.leader)) {
            let mapped = parse_maps(&maps).into_iter();
            self.libraries.extend(
                mapped
                    .filter(|m| m.executable && m.path != self.program)
                    .map(|m| m.path),
            );
        }
    }

    /// A `SIGTRAP` of thread `p`: whether it is one of the breakpoints, then recorded
    /// ([`TimedPart::stop`]), the breakpoints rewritten or the one hit restored, and the thread
    /// set back to run the instruction it covered.
    fn trapped(&mut self, p: Pid) -> Result<bool, String> {
        let mut regs = ptrace::getregs(p).map_err(refused("read a thread's registers"))?;
        let at = regs.rip.wrapping_sub(1);
        let leader = self.leader.as_raw();
        let process = self.tasks.get(&p).map_or(p.as_raw(), |t| t.process);
        if process == leader && self.part.is_routine(at) && !self.part.inside() {
            self.settle(p)?;
        }
        let stop = Stop {
            thread: p.as_raw(),
            at,
            sp: regs.rsp,
            top: ptrace::read(p, regs.rsp as ptrace::AddressType).map_or(0, |word| word as u64),
            own_process: process == leader,
            threads: std::fs::read_dir(format!("/proc/{leader}/task"))
                .map_or(usize::MAX, Iterator::count),
            asleep: self.asleep_beside(p),
        };
        let children = self.tasks.values().any(|t| t.process != leader);
        let (entered_before, inside_before) = (self.part.routine_entered, self.part.inside());
        let rewrite = match self.part.stop(&stop, children) {
            Trap::Foreign => return Ok(false),
            Trap::Resume { rewrite } => self.cut(&stop).or(rewrite),
        };
        if !entered_before && self.part.routine_entered {
            self.set_up = Some(self.started.elapsed());
        }
        if inside_before && !self.part.inside() {
            self.left = Some(self.started.elapsed());
        }
        match rewrite {
            Some(armed) => self.rewrite(p, &armed)?,
            None => {
                let original = *self
                    .originals
                    .get(&at)
                    .ok_or_else(|| format!("no original byte is known at {at:#x}"))?;
                memory_of(p)?
                    .write_all_at(&[original], at)
                    .map_err(|e| format!("cannot remove the breakpoint at {at:#x}: {e}"))?;
            }
        }
        regs.rip = at;
        ptrace::setregs(p, regs).map_err(refused("set a thread's registers"))?;
        Ok(true)
    }

    /// In a run cut into parts, the entry of `stop` recorded in its part; at a boundary hit by
    /// the benchmark's process, the breakpoints to write ([`Cuts::boundary`]).
    fn cut(&mut self, stop: &Stop) -> Option<BTreeSet<u64>> {
        let State {
            cuts,
            part,
            logs,
            progress,
            ..
        } = self;
        let cuts = cuts.as_mut()?;
        if !part.is_function(stop.at) {
            return None;
        }
        if !stop.own_process {
            cuts.entered_elsewhere(stop.at);
            return None;
        }
        if cuts.is_boundary(stop.at) {
            if let Some(meter) = progress {
                meter.progressed();
            }
            let log_len = logs.first().map_or(0, |(_, log)| log.len());
            return Some(cuts.boundary(stop.at, part, log_len));
        }
        cuts.entered(stop.at);
        None
    }

    /// How many threads of the benchmark's process other than `p` run none of its code: each
    /// inside a system call whose start was seen (it stops again at the call's end, before any
    /// of its code runs) and asleep there (`S` or `D` in `/proc`: not woken, so nothing the
    /// thread at `p` did has handed it work yet).
    fn asleep_beside(&self, p: Pid) -> usize {
        self.beside(p, true).len()
    }

    /// The threads of the benchmark's process other than `p` not counted asleep
    /// ([`State::asleep_beside`]).
    fn awake_beside(&self, p: Pid) -> Vec<Pid> {
        self.beside(p, false)
    }

    /// The threads of the benchmark's process other than `p` that are (`asleep`) or are not
    /// asleep in a system call whose start was seen.
    fn beside(&self, p: Pid, asleep: bool) -> Vec<Pid> {
        let leader = self.leader.as_raw();
        let is = |t: &Pid, task: &Task| task.in_call.is_some() && is_asleep(leader, t.as_raw());
        let others = self
            .tasks
            .iter()
            .filter(|(t, task)| **t != p && task.process == leader);
        others
            .filter(|(t, task)| is(t, task) == asleep)
            .map(|(t, _)| *t)
            .collect()
    }

    /// Thread `p` stopped at a timed routine's entry: gives the process's other threads up to
    /// [`SETTLE`] to fall asleep in a system call, handling the stops they make meanwhile (all
    /// of it before the routine, so outside it). Why: a thread that has just entered a call
    /// whose stop this tracer has not read yet (libtest's main thread starting its wait for the
    /// benchmark's thread) or is about to (a few instructions from it) runs nothing beside the
    /// routine, but looked awake, and the timed part was lost by chance of timing. A thread
    /// that stays awake costs the wait once per run (a process running every benchmark enters
    /// a routine for each); a thread's end or death is left for [`State::follow`]. The
    /// decision is then made as before.
    fn settle(&mut self, p: Pid) -> Result<(), String> {
        if self.settling || self.settle_failed {
            return Ok(());
        }
        self.settling = true;
        let settled = self.settle_until(p, Instant::now() + SETTLE);
        self.settling = false;
        settled
    }

    fn settle_until(&mut self, p: Pid, deadline: Instant) -> Result<(), String> {
        let leader = self.leader.as_raw();
        loop {
            let awake = self.awake_beside(p);
            if awake.is_empty() {
                return Ok(());
            }
            if Instant::now() >= deadline {
                self.settle_failed = true;
                return Ok(());
            }
            for t in awake
                .into_iter()
                .filter(|t| is_traced_stop(leader, t.as_raw()))
            {
                let flags = WaitPidFlag::WNOHANG | WaitPidFlag::__WALL;
                match waitpid(t, Some(flags)) {
                    Ok(WaitStatus::StillAlive) | Err(nix::Error::EINTR | nix::Error::ECHILD) => {}
                    Ok(ended @ (WaitStatus::Exited(..) | WaitStatus::Signaled(..))) => {
                        self.deferred.push_back(ended);
                        return Ok(());
                    }
                    Ok(status) => {
                        self.step(status)?;
                    }
                    Err(e) => return Err(refused("wait for a thread")(e)),
                }
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// A system-call stop of thread `p`: at its start, the call read (if it is on a path); at
    /// its end, logged with its result.
    fn syscall(&mut self, p: Pid) -> Result<(), String> {
        let Some(task) = self.tasks.get_mut(&p) else {
            return Ok(());
        };
        let regs = ptrace::getregs(p).map_err(refused("read a thread's registers"))?;
        let line = match task.in_call.take() {
            None => {
                let call = Call::read(p, &regs);
                // A successful `execve` has no end in this process: logged at its start.
                let logged_now = call.as_ref().filter(|c| c.ends_without_result());
                let line = logged_now.map(|c| c.line(task.process, p, None));
                task.in_call = Some(call.filter(|c| !c.ends_without_result()));
                line
            }
            Some(call) => call.map(|c| c.line(task.process, p, Some(regs.rax as i64))),
        };
        if let Some(line) = line {
            let process = task.process;
            if let Some((_, log)) = self.logs.iter_mut().find(|(pid, _)| *pid == process) {
                log.push_str(&line);
                log.push('\n');
            }
        }
        Ok(())
    }
}

/// Whether thread `thread` of process `process` is asleep in the kernel (its state in
/// `/proc/PID/task/TID/stat` is `S` or `D`).
fn is_asleep(process: i32, thread: i32) -> bool {
    thread_state_is(process, thread, &["S", "D"])
}

/// Whether thread `thread` of process `process` is in a ptrace stop (state `t`): its stop is
/// this tracer's to read, and it runs nothing until resumed.
fn is_traced_stop(process: i32, thread: i32) -> bool {
    thread_state_is(process, thread, &["t"])
}

fn thread_state_is(process: i32, thread: i32, states: &[&str]) -> bool {
    proc_stat::read(&format!("/proc/{process}/task/{thread}/stat"), |stat| {
        states.contains(&stat.state)
    })
    .unwrap_or(false)
}

/// The memory of thread `p`'s process, for reading and writing (as its tracer).
fn memory_of(p: Pid) -> Result<File, String> {
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(format!("/proc/{p}/mem"))
        .map_err(|e| format!("cannot open the memory of thread {p}: {e}"))
}

/// How valgrind's log prints an argument of a call.
#[derive(Clone, Copy)]
enum Arg {
    /// A directory descriptor, signed (`-100` for `AT_FDCWD`).
    Fd,
    /// A string: `0xADDR(text)`.
    Path,
    /// Any other number, in decimal.
    Number,
}

use Arg::{Fd, Number, Path as P};

/// The calls on paths that [`crate::steps::reach::trace::syscalls`] reads, by their x86-64
/// number, with valgrind's names for them and their arguments; and the one that sets a thread's
/// CPU affinity (a benchmark that pins itself: its probe runs alone from the start).
const CALLS: &[(u64, &str, &[Arg])] = &[
    (2, "sys_open", &[P, Number, Number]),
    (85, "sys_creat", &[P, Number]),
    (257, "sys_openat", &[Fd, P, Number, Number]),
    (437, "sys_openat2", &[Fd, P, Number, Number]),
    (4, "sys_newstat", &[P, Number]),
    (6, "sys_newlstat", &[P, Number]),
    (21, "sys_access", &[P, Number]),
    (89, "sys_readlink", &[P, Number, Number]),
    (262, "sys_newfstatat", &[Fd, P, Number, Number]),
    (332, "sys_statx", &[Fd, P, Number, Number, Number]),
    (269, "sys_faccessat", &[Fd, P, Number]),
    (439, "sys_faccessat2", &[Fd, P, Number, Number]),
    (267, "sys_readlinkat", &[Fd, P, Number, Number]),
    (59, "sys_execve", &[P, Number, Number]),
    (322, "sys_execveat", &[Fd, P, Number, Number, Number]),
    (80, "sys_chdir", &[P]),
    (81, "sys_fchdir", &[Number]),
    (203, "sched_setaffinity", &[Number, Number, Number]),
];

/// A call on a path, read at its start.
struct Call {
    number: u64,
    name: &'static str,
    arguments: Vec<String>,
}

impl Call {
    /// The call thread `p` starts, when it is one of [`CALLS`].
    fn read(p: Pid, regs: &libc::user_regs_struct) -> Option<Call> {
        let &(number, name, kinds) = CALLS.iter().find(|c| c.0 == regs.orig_rax)?;
        let values = [regs.rdi, regs.rsi, regs.rdx, regs.r10, regs.r8];
        let arguments = kinds
            .iter()
            .zip(values)
            .map(|(kind, value)| match kind {
                Fd => (value as i32).to_string(),
                Number => value.to_string(),
                P => path_argument(p, value),
            })
            .collect();
        Some(Call {
            number,
            name,
            arguments,
        })
    }

    fn ends_without_result(&self) -> bool {
        matches!(self.name, "sys_execve" | "sys_execveat")
    }

    /// The call as valgrind's log writes it, with its result (a value, or `-errno`).
    fn line(&self, process: i32, thread: Pid, result: Option<i64>) -> String {
        let mut line = format!(
            "SYSCALL[{process},{thread}]({}) {} ( {} )",
            self.number,
            self.name,
            self.arguments.join(", ")
        );
        match result {
            Some(value) if (-4095..0).contains(&value) => {
                line.push_str(&format!(" --> Failure({:#x})", -value));
            }
            Some(value) => line.push_str(&format!(" --> Success({value:#x})")),
            None => {}
        }
        line
    }
}

/// A string argument at `address` in thread `p`'s memory as valgrind prints it; one that cannot
/// be read, or that the log could not carry (not UTF-8, a line break), is printed so that the
/// reader counts the call unresolved.
fn path_argument(p: Pid, address: u64) -> String {
    if address == 0 {
        return "0x0((null))".to_string();
    }
    match read_string(p, address) {
        Some(text) if !text.contains(['\n', '\r']) => format!("{address:#x}({text})"),
        _ => "unreadable".to_string(),
    }
}

/// The NUL-terminated string at `address` (at most `PATH_MAX` bytes), read page by page.
fn read_string(p: Pid, address: u64) -> Option<String> {
    const PATH_MAX: usize = 4096;
    let memory = File::open(format!("/proc/{p}/mem")).ok()?;
    let mut bytes = Vec::new();
    let mut at = address;
    while bytes.len() <= PATH_MAX {
        let to_page_end = (4096 - (at & 4095)) as usize;
        let mut chunk = vec![0u8; to_page_end];
        memory.read_exact_at(&mut chunk, at).ok()?;
        if let Some(nul) = chunk.iter().position(|&b| b == 0) {
            bytes.extend_from_slice(&chunk[..nul]);
            return String::from_utf8(bytes).ok();
        }
        bytes.extend_from_slice(&chunk);
        at += to_page_end as u64;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::steps::reach::trace::{Access, syscalls};

    #[test]
    fn a_call_is_logged_as_valgrind_logs_it_and_read_by_the_same_reader() {
        let call = |path: &str| Call {
            number: 257,
            name: "sys_openat",
            arguments: vec!["-100".into(), path.into(), "0".into(), "0".into()],
        };
        let read = |line: String| syscalls::parse(&line, Some(Path::new("/ck")));
        let thread = Pid::from_raw(8);
        let opened = read(call("0x10(data/x)").line(7, thread, Some(3)));
        assert_eq!(
            opened.files.into_iter().collect::<Vec<_>>(),
            [(PathBuf::from("/ck/data/x"), Access::Opened)]
        );
        // ENOENT: its absence was seen.
        let missing = read(call("0x10(data/x)").line(7, thread, Some(-2)));
        assert_eq!(
            missing.files.get(Path::new("/ck/data/x")),
            Some(&Access::Missing)
        );
        // A path the log could not carry: unresolved, never dropped.
        let unreadable = read(call("unreadable").line(7, thread, Some(3)));
        assert!(unreadable.files.is_empty());
        assert_eq!(unreadable.unresolved.len(), 1);
        assert!(!unreadable.sets_affinity);
    }

    #[test]
    fn a_call_setting_the_cpu_affinity_is_logged_and_read_as_such() {
        let &(number, name, kinds) = CALLS.iter().find(|c| c.0 == 203).unwrap();
        let call = Call {
            number,
            name,
            arguments: kinds.iter().map(|_| "0".to_string()).collect(),
        };
        let line = call.line(7, Pid::from_raw(8), Some(0));
        assert!(syscalls::parse(&line, None).sets_affinity, "{line}");
    }
}
