//! One fork of a harness that prints a summary instead of handing over its samples: divan,
//! libtest `#[bench]` and the `bencher` crate ([`crate::harness`]).
//!
//! The fork runs the executable on the harness's own command line for exactly one benchmark and
//! watches its output, line by line as it arrives, for that benchmark's result. The value read
//! there (nanoseconds per iteration) is the fork's one sample ([`ForkRecord::per_fork`]). The
//! process is stopped as soon as the value is in: nothing after it is needed, and a `bencher`
//! executable, which selects by substring, would go on to measure other benchmarks.
//!
//! The steps mirror [`super::session::RunningFork`] so that duet mode can hold two forks and
//! start them together. These harnesses have no runner protocol to park them at, so a held fork
//! waits before its executable even starts ([`super::process::BARRIER_SCRIPT`]); releasing a
//! pair closes both barriers back to back.

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use super::process::{BenchProcess, Launch, describe_status};
use super::session::{FinishedFork, STDERR_GRACE, deadline_after, format_duration, unix_ms_now};
use super::steal::CpuTimes;
use super::{ForkError, ForkOutcome, ForkRequest, interrupted};
use crate::harness::Harness;
use crate::samples::{FailureRecord, ForkRecord};

/// How often a running fork is checked for its value, its exit, a timeout or an interrupt: the
/// value's line is read by a thread of its own, so this only bounds how late the process is
/// stopped after it.
const CHECK_INTERVAL: Duration = Duration::from_millis(5);

/// A launched (or held) summary-printing benchmark process.
pub struct TextFork {
    benchmark_id: String,
    executable_name: String,
    /// The fork's arguments, as a shell would need them, for messages.
    command_line: String,
    harness: Harness,
    cpu: Option<usize>,
    timeout: Duration,
    process: BenchProcess,
    /// The write end of the barrier a held fork waits on; dropping it releases the fork.
    barrier: Option<io::PipeWriter>,
    /// The benchmark's value and when its line was read.
    found: Arc<OnceLock<(f64, Instant)>>,
    measured_signal: Option<Arc<AtomicBool>>,
    started_at: Instant,
    started_unix_ms: u64,
    released_at: Instant,
    cpu_times_at_start: Option<CpuTimes>,
    deadline: Instant,
}

/// Why the finish loop stopped.
enum Ending {
    Found,
    Exited,
    TimedOut,
    Cancelled,
}

impl TextFork {
    /// Starts the benchmark process (pinned to `req.cpu`, in its own group); with `held` it
    /// waits before starting the executable until [`release`](Self::release).
    pub fn launch(req: &ForkRequest, held: bool) -> Result<TextFork, ForkError> {
        if interrupted() {
            return Err(ForkError::Interrupted);
        }
        super::session::check_launchable(req)?;
        let launch_error = |source| ForkError::Launch {
            executable: req.executable.display().to_string(),
            source,
        };
        let (barrier_reader, barrier) = if held {
            let (reader, writer) = io::pipe().map_err(launch_error)?;
            (Some(reader), Some(writer))
        } else {
            (None, None)
        };
        let found: Arc<OnceLock<(f64, Instant)>> = Arc::new(OnceLock::new());
        let watch = {
            let (found, harness, id) = (Arc::clone(&found), req.harness, req.benchmark_id.clone());
            Box::new(move |line: &str| {
                if found.get().is_none()
                    && let Some(value) = harness.value_in_line(&id, line)
                {
                    let _ = found.set((value, Instant::now()));
                }
            })
        };
        let args = req
            .harness
            .summary_fork_args(&req.benchmark_id, req.measurement);
        let command_line = shell_words(&args);
        let started_unix_ms = unix_ms_now();
        let started_at = Instant::now();
        let cpu_times_at_start = CpuTimes::now();
        let process = BenchProcess::spawn(Launch {
            executable: &req.executable,
            args,
            cwd: &req.cwd,
            env: req.env.clone(),
            cpu: req.cpu,
            barrier: barrier_reader,
            on_line: Some(watch),
        })
        .map_err(launch_error)?;
        Ok(TextFork {
            benchmark_id: req.benchmark_id.clone(),
            executable_name: super::session::executable_name(&req.executable),
            command_line,
            harness: req.harness,
            cpu: req.cpu,
            timeout: req.timeout,
            process,
            barrier,
            found,
            measured_signal: None,
            started_at,
            started_unix_ms,
            released_at: started_at,
            cpu_times_at_start,
            deadline: deadline_after(started_at, req.timeout),
        })
    }

    /// Lets a held fork start its executable; the timeout starts again here. No-op otherwise.
    pub fn release(&mut self) {
        if self.barrier.take().is_some() {
            self.released_at = Instant::now();
            self.deadline = deadline_after(self.released_at, self.timeout);
        }
    }

    /// Sets `flag` as soon as the benchmark's value has been read.
    pub fn signal_when_measured(&mut self, flag: Arc<AtomicBool>) {
        self.measured_signal = Some(flag);
    }

    /// Waits for the benchmark's value (then stops the process), its exit, the timeout, `cancel`
    /// or an interrupt. The process group is always killed and reaped before this returns.
    pub fn finish(mut self, cancel: &AtomicBool) -> Result<FinishedFork, ForkError> {
        self.release();
        let ending = loop {
            if interrupted() {
                let _ = self.process.kill_and_reap();
                return Err(ForkError::Interrupted);
            }
            if self.found.get().is_some() {
                break Ending::Found;
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
            std::thread::sleep(CHECK_INTERVAL);
        };
        if let (Ending::Found, Some(flag)) = (&ending, &self.measured_signal) {
            flag.store(true, Ordering::SeqCst);
        }
        Ok(self.end(ending))
    }

    /// Kills and reaps the process and turns what was read into the outcome.
    fn end(mut self, ending: Ending) -> FinishedFork {
        let cpu_wait_share = self.process.cpu_wait_share();
        let status = self.process.kill_and_reap();
        // An exit may have raced the value's line: once the output's readers are done (or the
        // grace is over), every line has been through the watcher, so `found` is final.
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
        let found = self.found.get().copied();
        let outcome = match (ending, found) {
            (Ending::Found | Ending::Exited, Some((value, _))) => {
                ForkOutcome::Completed(Box::new(ForkRecord {
                    iters: vec![1.0],
                    times_ns: vec![value],
                    per_fork: self.harness.per_fork(),
                    cpu: self.cpu,
                    started_unix_ms: Some(self.started_unix_ms),
                    wall_ms: Some(wall_ms),
                    steal_share,
                    cpu_wait_share,
                    ..ForkRecord::default()
                }))
            }
            (Ending::Cancelled, _) => {
                failure(format!("{} was stopped by cargo-perfdiff", self.who()))
            }
            (Ending::TimedOut, _) => failure(format!(
                "{} did not finish within the fork timeout of {} and was killed",
                self.who(),
                format_duration(self.timeout)
            )),
            (_, None) => match status {
                Err(error) => failure(format!(
                    "{}: cannot learn its exit status: {error}",
                    self.who()
                )),
                Ok(status) if !status.success() => failure(format!(
                    "{} {}: the process ended with {}",
                    self.who(),
                    if tail.contains("panicked at") {
                        "panicked"
                    } else {
                        "failed"
                    },
                    describe_status(status)
                )),
                Ok(_) => failure(format!(
                    "{} matched no benchmark: `{} {}` printed no result for it",
                    self.who(),
                    self.executable_name,
                    self.command_line
                )),
            },
        };
        FinishedFork {
            outcome,
            measurement_window: found.map(|(_, read_at)| (self.released_at, read_at)),
        }
    }

    /// `divan benchmark `mix` (divan_demo-1a2b3c)`: how every failure message starts.
    fn who(&self) -> String {
        format!(
            "{} benchmark `{}` ({})",
            self.harness, self.benchmark_id, self.executable_name
        )
    }
}

/// Arguments as a shell would read them back, for messages.
fn shell_words(args: &[std::ffi::OsString]) -> String {
    args.iter()
        .map(|arg| super::quote_for_shell(&arg.to_string_lossy()))
        .collect::<Vec<_>>()
        .join(" ")
}
