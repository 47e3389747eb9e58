//! The process of a fork that has no runner protocol to park at: a harness that prints a summary
//! ([`super::text::TextFork`]) or a command's execution ([`super::command::CommandFork`]).
//!
//! Both need the same things around their process: in duet mode it is held before it starts,
//! at a pipe barrier ([`super::process::BARRIER_SCRIPT`]), and released together with the other
//! side's; its timeout runs from its release; it is checked until it is done, exits, times out,
//! is cancelled or the run is interrupted; and at its end its process group is killed and reaped
//! and what the process left (exit status, output tail, wall time, CPU steal and wait shares) is
//! collected. What each fork reads from its process, and what its outcome is, stays its own.

use std::ffi::OsString;
use std::io;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::process::{BenchProcess, Launch, LineWatch};
use super::session::{STDERR_GRACE, deadline_after, format_duration, unix_ms_now};
use super::steal::CpuTimes;
use super::{ForkError, ForkRequest};
use crate::util::interrupt::interrupted;
use crate::util::shell::quote_for_shell;

/// A launched (or held) process of a fork.
pub(super) struct HeldProcess {
    process: BenchProcess,
    /// The write end of the barrier a held process waits on; dropping it releases the process.
    barrier: Option<io::PipeWriter>,
    measured_signal: Option<Arc<AtomicBool>>,
    pub(super) cpu: Option<usize>,
    timeout: Duration,
    started_at: Instant,
    pub(super) started_unix_ms: u64,
    pub(super) released_at: Instant,
    cpu_times_at_start: Option<CpuTimes>,
    deadline: Instant,
}

/// Why waiting for the process stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ending {
    /// The fork's own condition was met (its value was read).
    Done,
    Exited,
    TimedOut,
    Cancelled,
}

/// What a process left when it ended.
pub(super) struct Ended {
    pub(super) status: io::Result<std::process::ExitStatus>,
    /// The last lines of its output (stderr and stdout).
    pub(super) tail: String,
    pub(super) wall_ms: f64,
    pub(super) steal_share: Option<f64>,
    pub(super) cpu_wait_share: Option<f64>,
    /// The CPUs it moved itself to, when pinned ([`ForkRecord::own_cpus`]).
    pub(super) own_cpus: Option<String>,
    /// Share of its run its main thread was on a CPU ([`BenchProcess::busy_share`]).
    pub(super) busy_share: Option<f64>,
}

impl HeldProcess {
    /// Starts `executable args` for `req` (its working directory, environment and CPU) in a
    /// process group of its own; with `held`, it waits before it starts until
    /// [`release`](Self::release). A launch that fails is [`ForkError::Launch`] naming
    /// `executable`.
    pub(super) fn launch(
        req: &ForkRequest,
        executable: &Path,
        args: Vec<OsString>,
        held: bool,
        on_line: Option<LineWatch>,
    ) -> Result<HeldProcess, ForkError> {
        if interrupted() {
            return Err(ForkError::Interrupted);
        }
        super::session::check_launchable(req)?;
        let launch_error = |source| ForkError::Launch {
            executable: executable.display().to_string(),
            source,
        };
        let (barrier_reader, barrier) = if held {
            let (reader, writer) = io::pipe().map_err(launch_error)?;
            (Some(reader), Some(writer))
        } else {
            (None, None)
        };
        let started_unix_ms = unix_ms_now();
        let started_at = Instant::now();
        let cpu_times_at_start = CpuTimes::now();
        let process = BenchProcess::spawn(Launch {
            executable,
            args,
            cwd: &req.cwd,
            env: req.env.clone(),
            cpu: req.cpu,
            barrier: barrier_reader,
            on_line,
        })
        .map_err(launch_error)?;
        Ok(HeldProcess {
            process,
            barrier,
            measured_signal: None,
            cpu: req.cpu,
            timeout: req.timeout,
            started_at,
            started_unix_ms,
            released_at: started_at,
            cpu_times_at_start,
            deadline: deadline_after(started_at, req.timeout),
        })
    }

    /// Lets a held process start; the timeout starts again here. No-op otherwise.
    pub(super) fn release(&mut self) {
        if self.barrier.take().is_some() {
            self.released_at = Instant::now();
            self.deadline = deadline_after(self.released_at, self.timeout);
        }
    }

    /// Sets `flag` once the fork has its result ([`Self::wait`] ending with `measured`).
    pub(super) fn signal_when_measured(&mut self, flag: Arc<AtomicBool>) {
        self.measured_signal = Some(flag);
    }

    /// Releases the process if held, then checks every `interval` until `done` holds, it
    /// exits, the timeout passes, `cancel` is set or the run is interrupted (then the process
    /// group is killed and the error returned). Signals "measured" when the ending is `measured`.
    pub(super) fn wait(
        &mut self,
        cancel: &AtomicBool,
        interval: Duration,
        done: impl Fn() -> bool,
        measured: Ending,
    ) -> Result<Ending, ForkError> {
        self.release();
        let ending = loop {
            if interrupted() {
                let _ = self.process.kill_and_reap();
                return Err(ForkError::Interrupted);
            }
            if done() {
                break Ending::Done;
            }
            if cancel.load(Ordering::SeqCst) {
                break Ending::Cancelled;
            }
            if Instant::now() >= self.deadline {
                break Ending::TimedOut;
            }
            if self.process.has_exited() {
                break Ending::Exited;
            }
            std::thread::sleep(interval);
        };
        if let (true, Some(flag)) = (ending == measured, &self.measured_signal) {
            flag.store(true, Ordering::SeqCst);
        }
        Ok(ending)
    }

    /// Asks the process that leads the group (a helper in front of the benchmark) to stop,
    /// with `SIGTERM` to it alone, and waits until it has exited, the timeout passes or `cancel`
    /// is set; the group is killed afterwards by [`Self::end`] as ever. An interrupt kills the
    /// group and is returned.
    pub(super) fn stop_leader(
        &mut self,
        cancel: &AtomicBool,
        interval: Duration,
    ) -> Result<(), ForkError> {
        self.process.signal_leader(libc::SIGTERM);
        // `done` never holds, so "measured" is not signalled a second time.
        self.wait(cancel, interval, || false, Ending::Done)?;
        Ok(())
    }

    /// Kills and reaps the process group and collects what the process left. Once the output's
    /// readers are done (or their grace is over), every line has been through its watcher.
    pub(super) fn end(&mut self) -> Ended {
        let cpu_wait_share = self.process.cpu_wait_share();
        let own_cpus = self.cpu.and_then(|cpu| self.process.own_cpus(cpu));
        let busy_share = self.process.busy_share(self.started_at);
        let status = self.process.kill_and_reap();
        let tail = self.process.output_tail(STDERR_GRACE);
        let steal_share = self
            .cpu_times_at_start
            .zip(CpuTimes::now())
            .and_then(|(start, end)| start.steal_share_until(&end));
        Ended {
            status,
            tail,
            wall_ms: self.started_at.elapsed().as_secs_f64() * 1e3,
            steal_share,
            cpu_wait_share,
            own_cpus,
            busy_share,
        }
    }

    /// The failure message of an ending that has nothing to do with the fork's own result:
    /// cancelled by cargo-perfdiff, or killed at the timeout (saying so when it was still
    /// running, `busy`: [`Ended::busy_share`]); `None` for any other ending.
    pub(super) fn stopped_message(
        &self,
        ending: Ending,
        who: &str,
        busy: Option<f64>,
    ) -> Option<String> {
        match ending {
            Ending::Cancelled => Some(format!("{who} was stopped by cargo-perfdiff")),
            Ending::TimedOut => Some(format!(
                "{who} did not finish within the fork timeout of {} and was killed{}",
                format_duration(self.timeout),
                super::process::still_running(busy)
                    .map(|running| format!(" ({running})"))
                    .unwrap_or_default()
            )),
            Ending::Done | Ending::Exited => None,
        }
    }
}

/// Arguments as a shell would read them back, for messages.
pub(super) fn shell_words(args: &[OsString]) -> String {
    args.iter()
        .map(|arg| quote_for_shell(&arg.to_string_lossy()))
        .collect::<Vec<_>>()
        .join(" ")
}
