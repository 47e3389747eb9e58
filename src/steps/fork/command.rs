//! One fork of a command ([`crate::model::command`]): one measured execution of a program, through the
//! small helper process of [`super::exec_helper`] that reads its wall time, CPU times and peak
//! memory.
//!
//! The steps mirror [`super::text::TextFork`] so that duet mode can hold two executions and
//! start them together: a held fork waits at the same pipe barrier, before the helper starts
//! ([`super::held::HeldProcess`]). The fork's value is the execution's wall time (its one sample,
//! [`PerFork::Execution`]); the record also carries CPU times and peak memory
//! ([`ExecResources`]), from which the command's memory record is made.

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use super::exec_helper::{self, ExecResult};
use super::held::{Ending, HeldProcess, shell_words};
use super::process::describe_status;
use super::session::FinishedFork;
use super::{ForkError, ForkOutcome, ForkRequest};
use crate::model::harness::PerFork;
use crate::model::samples::{ExecResources, FailureRecord, ForkRecord};

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
    /// The helper executable (`perfdiff-exec`, [`exec_helper::helper_executable`]).
    pub helper: PathBuf,
}

/// A launched (or held) command execution.
pub struct CommandFork {
    name: String,
    command_line: String,
    held: HeldProcess,
    /// Where the helper writes the outcome; removed when the fork is dropped.
    result: tempfile::TempPath,
}

impl CommandFork {
    /// Starts the helper for `req` and `run`; with `held` it waits before starting until
    /// [`release`](Self::release).
    pub fn launch(
        req: &ForkRequest,
        run: &CommandRun,
        held: bool,
    ) -> Result<CommandFork, ForkError> {
        let result = tempfile::Builder::new()
            .prefix("perfdiff-exec-")
            .tempfile()
            .map_err(|source| ForkError::Launch {
                executable: run.helper.display().to_string(),
                source,
            })?
            .into_temp_path();
        let args =
            exec_helper::helper_args(&result, run.warm_up, run.prepare.as_deref(), &run.argv);
        let held = HeldProcess::launch(req, &run.helper, args, held, None)?;
        Ok(CommandFork {
            name: req.benchmark_id.clone(),
            command_line: shell_words(&run.argv),
            held,
            result,
        })
    }

    /// Lets a held execution start; the timeout starts again here. No-op otherwise.
    pub fn release(&mut self) {
        self.held.release();
    }

    /// Sets `flag` once the execution has ended.
    pub fn signal_when_measured(&mut self, flag: Arc<AtomicBool>) {
        self.held.signal_when_measured(flag);
    }

    /// Waits for the execution to end, the timeout, `cancel` or an interrupt. The process group
    /// is always killed and reaped before this returns.
    pub fn finish(mut self, cancel: &AtomicBool) -> Result<FinishedFork, ForkError> {
        let ending = self
            .held
            .wait(cancel, CHECK_INTERVAL, || false, Ending::Exited)?;
        let ended_at = Instant::now();
        Ok(self.end(ending, ended_at))
    }

    fn end(mut self, ending: Ending, ended_at: Instant) -> FinishedFork {
        let ended = self.held.end();
        let failure = |message: String| {
            ForkOutcome::Failed(FailureRecord {
                message,
                stderr_tail: ended.tail.clone(),
            })
        };
        let who = format!("command `{}`", self.name);
        let result: Option<ExecResult> = std::fs::read_to_string(&self.result)
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok());
        let outcome = match (
            self.held.stopped_message(ending, &who, ended.busy_share),
            result,
        ) {
            (Some(message), _) => failure(message),
            (None, Some(result)) if result.succeeded() => {
                ForkOutcome::Completed(Box::new(ForkRecord {
                    iters: vec![1.0],
                    times_ns: vec![result.wall_ns],
                    per_fork: Some(PerFork::Execution),
                    resources: Some(ExecResources {
                        user_ns: result.user_ns,
                        system_ns: result.system_ns,
                        peak_rss_bytes: result.peak_rss_bytes,
                    }),
                    cpu: self.held.cpu,
                    started_unix_ms: Some(self.held.started_unix_ms),
                    wall_ms: Some(ended.wall_ms),
                    steal_share: ended.steal_share,
                    cpu_wait_share: ended.cpu_wait_share,
                    own_cpus: ended.own_cpus.clone(),
                    ..ForkRecord::default()
                }))
            }
            (None, Some(result)) => failure(format!(
                "{who} failed: `{}` ended with {}",
                self.command_line,
                result.ending()
            )),
            (None, None) => failure(format!(
                "{who}: the measuring helper gave no result ({})",
                ended
                    .status
                    .as_ref()
                    .map_or_else(|e| e.to_string(), |s| describe_status(*s))
            )),
        };
        FinishedFork {
            outcome,
            measurement_window: Some((self.held.released_at, ended_at)),
        }
    }
}
