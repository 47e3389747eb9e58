//! One fork of a command ([`crate::command`]): one measured execution of a program, through the
//! small helper process of [`super::exec_helper`] that reads its wall time, CPU times and peak
//! memory.
//!
//! The steps mirror [`super::text::TextFork`] so that duet mode can hold two executions and
//! start them together: a held fork waits at the same pipe barrier, before the helper starts.
//! The fork's value is the execution's wall time (its one sample, [`PerFork::Execution`]); the
//! record also carries CPU times and peak memory ([`ExecResources`]), from which the command's
//! memory benchmark is recorded.

use std::ffi::OsString;
use std::io;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::exec_helper::{self, ExecResult};
use super::process::{BenchProcess, Launch, describe_status};
use super::session::{FinishedFork, STDERR_GRACE, deadline_after, format_duration, unix_ms_now};
use super::steal::CpuTimes;
use super::{ForkError, ForkOutcome, ForkRequest, interrupted};
use crate::harness::PerFork;
use crate::samples::{ExecResources, FailureRecord, ForkRecord};

/// How often a running execution is checked for its end, a timeout or an interrupt.
const CHECK_INTERVAL: Duration = Duration::from_millis(2);

/// What a command fork runs, beyond what every fork has (working directory, environment, CPU).
#[derive(Debug, Clone, PartialEq)]
pub struct CommandRun {
    /// The command line, placeholders replaced; `argv[0]` is the program.
    pub argv: Vec<OsString>,
    /// Run with `sh -c` before every execution, unmeasured.
    pub prepare: Option<String>,
    /// Unmeasured executions before the measured one.
    pub warm_up: usize,
    /// The helper executable (cargo-perfdiff itself, [`exec_helper::HELPER_ARG`]).
    pub helper: PathBuf,
}

/// A launched (or held) command execution.
pub struct CommandFork {
    name: String,
    command_line: String,
    cpu: Option<usize>,
    timeout: Duration,
    process: BenchProcess,
    barrier: Option<io::PipeWriter>,
    /// Where the helper writes the outcome; removed when the fork is dropped.
    result: tempfile::TempPath,
    measured_signal: Option<Arc<AtomicBool>>,
    started_at: Instant,
    started_unix_ms: u64,
    released_at: Instant,
    cpu_times_at_start: Option<CpuTimes>,
    deadline: Instant,
}

enum Ending {
    Exited,
    TimedOut,
    Cancelled,
}

impl CommandFork {
    /// Starts the helper for `req` (which must carry a [`CommandRun`]); with `held` it waits
    /// before starting until [`release`](Self::release).
    pub fn launch(
        req: &ForkRequest,
        run: &CommandRun,
        held: bool,
    ) -> Result<CommandFork, ForkError> {
        if interrupted() {
            return Err(ForkError::Interrupted);
        }
        super::session::check_launchable(req)?;
        let launch_error = |source| ForkError::Launch {
            executable: run.helper.display().to_string(),
            source,
        };
        let (barrier_reader, barrier) = if held {
            let (reader, writer) = io::pipe().map_err(launch_error)?;
            (Some(reader), Some(writer))
        } else {
            (None, None)
        };
        let result = tempfile::Builder::new()
            .prefix("perfdiff-exec-")
            .tempfile()
            .map_err(launch_error)?
            .into_temp_path();
        let args =
            exec_helper::helper_args(&result, run.warm_up, run.prepare.as_deref(), &run.argv);
        let started_unix_ms = unix_ms_now();
        let started_at = Instant::now();
        let cpu_times_at_start = CpuTimes::now();
        let process = BenchProcess::spawn(Launch {
            executable: &run.helper,
            args,
            cwd: &req.cwd,
            env: req.env.clone(),
            cpu: req.cpu,
            barrier: barrier_reader,
            on_line: None,
        })
        .map_err(launch_error)?;
        Ok(CommandFork {
            name: req.benchmark_id.clone(),
            command_line: shell_line(&run.argv),
            cpu: req.cpu,
            timeout: req.timeout,
            process,
            barrier,
            result,
            measured_signal: None,
            started_at,
            started_unix_ms,
            released_at: started_at,
            cpu_times_at_start,
            deadline: deadline_after(started_at, req.timeout),
        })
    }

    /// Lets a held execution start; the timeout starts again here. No-op otherwise.
    pub fn release(&mut self) {
        if self.barrier.take().is_some() {
            self.released_at = Instant::now();
            self.deadline = deadline_after(self.released_at, self.timeout);
        }
    }

    /// Sets `flag` once the execution has ended.
    pub fn signal_when_measured(&mut self, flag: Arc<AtomicBool>) {
        self.measured_signal = Some(flag);
    }

    /// Waits for the execution to end, the timeout, `cancel` or an interrupt. The process group
    /// is always killed and reaped before this returns.
    pub fn finish(mut self, cancel: &AtomicBool) -> Result<FinishedFork, ForkError> {
        self.release();
        let ending = loop {
            if interrupted() {
                let _ = self.process.kill_and_reap();
                return Err(ForkError::Interrupted);
            }
            if self.process.has_exited() {
                break Ending::Exited;
            }
            if cancel.load(Ordering::SeqCst) {
                break Ending::Cancelled;
            }
            if Instant::now() >= self.deadline {
                break Ending::TimedOut;
            }
            std::thread::sleep(CHECK_INTERVAL);
        };
        let ended_at = Instant::now();
        if let (Ending::Exited, Some(flag)) = (&ending, &self.measured_signal) {
            flag.store(true, Ordering::SeqCst);
        }
        Ok(self.end(ending, ended_at))
    }

    fn end(mut self, ending: Ending, ended_at: Instant) -> FinishedFork {
        let cpu_wait_share = self.process.cpu_wait_share();
        let status = self.process.kill_and_reap();
        let tail = self.process.output_tail(STDERR_GRACE);
        let wall_ms = self.started_at.elapsed().as_secs_f64() * 1e3;
        let steal_share = self
            .cpu_times_at_start
            .zip(CpuTimes::now())
            .and_then(|(start, end)| start.steal_share_until(&end));
        let failure = |message: String| {
            ForkOutcome::Failed(FailureRecord {
                message,
                stderr_tail: tail.clone(),
            })
        };
        let result: Option<ExecResult> = std::fs::read_to_string(&self.result)
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok());
        let outcome = match (ending, result) {
            (Ending::Cancelled, _) => {
                failure(format!("{} was stopped by cargo-perfdiff", self.who()))
            }
            (Ending::TimedOut, _) => failure(format!(
                "{} did not finish within the fork timeout of {} and was killed",
                self.who(),
                format_duration(self.timeout)
            )),
            (Ending::Exited, Some(result)) if result.succeeded() => {
                ForkOutcome::Completed(Box::new(ForkRecord {
                    iters: vec![1.0],
                    times_ns: vec![result.wall_ns],
                    per_fork: Some(PerFork::Execution),
                    resources: Some(ExecResources {
                        user_ns: result.user_ns,
                        system_ns: result.system_ns,
                        peak_rss_bytes: result.peak_rss_bytes,
                    }),
                    cpu: self.cpu,
                    started_unix_ms: Some(self.started_unix_ms),
                    wall_ms: Some(wall_ms),
                    steal_share,
                    cpu_wait_share,
                    ..ForkRecord::default()
                }))
            }
            (Ending::Exited, Some(result)) => failure(format!(
                "{} failed: `{}` ended with {}",
                self.who(),
                self.command_line,
                result.ending()
            )),
            (Ending::Exited, None) => failure(format!(
                "{}: the measuring helper gave no result ({})",
                self.who(),
                status.map_or_else(|e| e.to_string(), describe_status)
            )),
        };
        FinishedFork {
            outcome,
            measurement_window: Some((self.released_at, ended_at)),
        }
    }

    fn who(&self) -> String {
        format!("command `{}`", self.name)
    }
}

/// The command line as a shell would read it back, for messages.
fn shell_line(argv: &[OsString]) -> String {
    argv.iter()
        .map(|word| super::quote_for_shell(&word.to_string_lossy()))
        .collect::<Vec<_>>()
        .join(" ")
}
