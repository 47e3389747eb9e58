//! The ptrace side of a command's probe (Linux, x86-64): start the command's first program
//! stopped at its `exec`, follow every thread and child process through their `exec`s, and
//! write the breakpoints of a watched program into each process that runs it, at the addresses
//! its own mapping gives (each process has its load bias); until a process hits one or the first
//! program ends.
//!
//! Why apart from [`super::tracer`]: a benchmark is one executable, its breakpoints written
//! once at its start, and a child that runs another program is let go at its `exec`. A command
//! starts its programs through `exec` (`sh -c '… | {bin}/rg …'`), so the programs to watch
//! appear only there, in processes of their own. There is no timed routine: the whole execution
//! is what a fork measures, so any watched entry entered anywhere counts, and the first hit ends
//! the probe (nothing is restored or stepped over).

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use nix::sys::ptrace::{self, Event, Options};
use nix::sys::signal::Signal;
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::Pid;

use super::tracer::{
    Code, kill_and_reap, maps_of, refused, resume_stopped, resumed_or_gone, spawn_traced,
    stopped_at_exec,
};
use super::{CommandWatch, Ending, ProbeError, first_segment, placed_entries};

/// Runs `program args…` with the breakpoints of `watch` in every process that runs one of its
/// programs, until one is hit (the command is killed then) or `program` ends.
pub(super) fn run(
    program: &Path,
    args: &[OsString],
    watch: &CommandWatch,
) -> Result<Ending, ProbeError> {
    let pid = spawn_traced(program, args)?;
    // The first program's own breakpoints are written by `follow`, as for any program started.
    let followed =
        stopped_at_exec(pid, program, Options::empty()).and_then(|()| follow(pid, watch));
    if !matches!(
        followed,
        Ok(Ending::Exited { .. } | Ending::Signaled { .. })
    ) {
        kill_and_reap(pid);
    }
    followed
}

/// Follows every process of the command until `pid`, the first, ends or a watched entry is hit.
/// Waits only for this thread's own tracees (`__WNOTHREAD`), as [`super::tracer`] does.
fn follow(pid: Pid, watch: &CommandWatch) -> Result<Ending, ProbeError> {
    let mut watched = Watched::new(watch);
    if let Some(ending) = watched.arm(pid)? {
        return Ok(ending);
    }
    ptrace::cont(pid, None).map_err(refused("continue it"))?;
    loop {
        let status = match waitpid(None, Some(WaitPidFlag::__WALL | WaitPidFlag::__WNOTHREAD)) {
            Ok(status) => status,
            Err(nix::Error::EINTR) => continue,
            Err(e) => return Err(refused("wait for it")(e)),
        };
        let resumed = match status {
            WaitStatus::Exited(p, code) if p == pid => return Ok(exited(code)),
            WaitStatus::Signaled(p, signal, _) if p == pid => {
                return Ok(Ending::Signaled {
                    signal: signal as i32,
                });
            }
            WaitStatus::PtraceEvent(p, _, event) if event == Event::PTRACE_EVENT_EXEC as i32 => {
                if let Some(ending) = watched.arm(p)? {
                    return Ok(ending);
                }
                ptrace::cont(p, None)
            }
            WaitStatus::PtraceEvent(p, _, _) => ptrace::cont(p, None),
            WaitStatus::Stopped(p, Signal::SIGTRAP) => match watched.hit(p) {
                Some(name) => return Ok(Ending::Hit { name }),
                None => ptrace::cont(p, Signal::SIGTRAP),
            },
            other => resume_stopped(other),
        };
        resumed_or_gone(resumed)?;
    }
}

/// The ending of a command whose first program exited with `code`, no entry hit.
fn exited(code: i32) -> Ending {
    Ending::Exited {
        code,
        leader: None,
        outside: Vec::new(),
        spans: Vec::new(),
        own_cpus: None,
    }
}

/// The programs watched, by their canonical paths.
struct Watched<'a> {
    watch: &'a CommandWatch,
    paths: Vec<PathBuf>,
    bin: PathBuf,
}

impl<'a> Watched<'a> {
    fn new(watch: &'a CommandWatch) -> Self {
        let canonical = |path: &Path| path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        Watched {
            watch,
            paths: watch.programs.iter().map(|p| canonical(&p.path)).collect(),
            bin: canonical(&watch.bin),
        }
    }

    /// The program thread `p` runs, by the index of its watch; `Err` with its path when it is
    /// another program of the build's `{bin}`, which the trace did not see start.
    fn program_of(&self, p: Pid) -> Result<Option<usize>, PathBuf> {
        let Ok(exe) = std::fs::read_link(format!("/proc/{p}/exe")) else {
            return Ok(None);
        };
        match self.paths.iter().position(|path| *path == exe) {
            Some(index) => Ok(Some(index)),
            None if exe.starts_with(&self.bin) => Err(exe),
            None => Ok(None),
        }
    }

    /// Writes the breakpoints of the program process `p` has just started (stopped at its
    /// `exec`), if it is watched; an ending when it is a program of `{bin}` not watched.
    fn arm(&mut self, p: Pid) -> Result<Option<Ending>, ProbeError> {
        let index = match self.program_of(p) {
            Ok(Some(index)) => index,
            Ok(None) => return Ok(None),
            Err(path) => {
                return Ok(Some(Ending::Failed {
                    message: format!(
                        "natively it starts {}, which its trace did not",
                        path.display()
                    ),
                }));
            }
        };
        let placed = self.placed(p, index)?;
        let addresses: BTreeSet<u64> = placed.into_keys().collect();
        Code::default().rewrite(p, &addresses, &addresses)?;
        Ok(None)
    }

    /// The watched entries of program `index` where process `p` maps them, with their names.
    fn placed(
        &self,
        p: Pid,
        index: usize,
    ) -> Result<std::collections::BTreeMap<u64, String>, ProbeError> {
        let watched = &self.watch.programs[index];
        let first = first_segment(&watched.path)?;
        placed_entries(&maps_of(p)?, &self.paths[index], first, &watched.entries)
    }

    /// The watched function thread `p`, stopped by a `SIGTRAP`, has just entered; `None` for a
    /// trap of its own (passed on).
    fn hit(&self, p: Pid) -> Option<String> {
        let index = self.program_of(p).ok()??;
        let regs = ptrace::getregs(p).ok()?;
        let mut placed = self.placed(p, index).ok()?;
        placed.remove(&regs.rip.wrapping_sub(1))
    }
}
