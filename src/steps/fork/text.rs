//! One fork of a harness that prints a summary instead of handing over its samples: divan,
//! libtest `#[bench]` and the `bencher` crate ([`crate::model::harness`]).
//!
//! The fork runs the executable on the harness's own command line for exactly one benchmark and
//! watches its output, line by line as it arrives, for that benchmark's result. The value read
//! there (nanoseconds per iteration) is the fork's one sample ([`ForkRecord::per_fork`]). The
//! process is stopped as soon as the value is in: nothing after it is needed, and a `bencher`
//! executable, which selects by substring, would go on to measure other benchmarks.
//!
//! The steps mirror [`super::session::RunningFork`] so that duet mode can hold two forks and
//! start them together. These harnesses have no runner protocol to park them at, so a held fork
//! waits before its executable even starts ([`super::held::HeldProcess`]); releasing a pair
//! closes both barriers back to back.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use super::held::{Ending, HeldProcess, shell_words};
use super::process::describe_status;
use super::session::FinishedFork;
use super::{ForkError, ForkOutcome, ForkRequest, Leader};
use crate::model::harness::{Harness, ValueWatch};
use crate::model::samples::{FailureRecord, ForkRecord};

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
    /// divan's `--sample-size`, where cargo-perfdiff set it.
    sample_iterations: Option<u64>,
    held: HeldProcess,
    leader: Leader,
    /// The benchmark's value and when its line was read.
    found: Arc<OnceLock<(f64, Instant)>>,
}

impl TextFork {
    /// Starts the benchmark process (pinned to `req.cpu`, in its own group); with `held` it
    /// waits before starting the executable until [`release`](Self::release). `leader`: what
    /// the executable is, and so how the fork ends once the value is read.
    pub fn launch(req: &ForkRequest, held: bool, leader: Leader) -> Result<TextFork, ForkError> {
        let found: Arc<OnceLock<(f64, Instant)>> = Arc::new(OnceLock::new());
        let watch = {
            let found = Arc::clone(&found);
            let mut value_of = ValueWatch::new(req.harness, &req.benchmark_id);
            Box::new(move |line: &str| {
                if found.get().is_none()
                    && let Some(value) = value_of.line(line)
                {
                    let _ = found.set((value, Instant::now()));
                }
            })
        };
        let args = req.harness.summary_fork_args(
            &req.benchmark_id,
            req.measurement,
            req.harness_sample_size,
        );
        let command_line = shell_words(&args);
        let held = HeldProcess::launch(req, &req.executable, args, held, Some(watch))?;
        Ok(TextFork {
            benchmark_id: req.benchmark_id.clone(),
            executable_name: super::session::executable_name(&req.executable),
            command_line,
            harness: req.harness,
            sample_iterations: req.harness_sample_size,
            held,
            leader,
            found,
        })
    }

    /// Lets a held fork start its executable; the timeout starts again here. No-op otherwise.
    pub fn release(&mut self) {
        self.held.release();
    }

    /// Sets `flag` as soon as the benchmark's value has been read.
    pub fn signal_when_measured(&mut self, flag: Arc<AtomicBool>) {
        self.held.signal_when_measured(flag);
    }

    /// Waits for the benchmark's value (then stops the process: a helper leading it is asked to
    /// stop and waited for first, [`Leader::Helper`]), its exit, the timeout, `cancel` or an
    /// interrupt. The process group is always killed and reaped before this returns.
    pub fn finish(mut self, cancel: &AtomicBool) -> Result<FinishedFork, ForkError> {
        let found = Arc::clone(&self.found);
        let ending = self.held.wait(
            cancel,
            CHECK_INTERVAL,
            || found.get().is_some(),
            Ending::Done,
        )?;
        if ending == Ending::Done && self.leader == Leader::Helper {
            self.held.stop_leader(cancel, CHECK_INTERVAL)?;
        }
        Ok(self.end(ending))
    }

    /// Kills and reaps the process and turns what was read into the outcome.
    fn end(mut self, ending: Ending) -> FinishedFork {
        let ended = self.held.end();
        // An exit may have raced the value's line: the process has ended, so `found` is final.
        let found = self.found.get().copied();
        let failure = |message: String| {
            ForkOutcome::Failed(FailureRecord {
                message,
                stderr_tail: ended.tail.clone(),
            })
        };
        let who = self.who();
        let outcome = match (
            self.held.stopped_message(ending, &who, ended.busy_share),
            found,
        ) {
            (Some(message), _) => failure(message),
            (None, Some((value, _))) => ForkOutcome::Completed(Box::new(ForkRecord {
                iters: vec![1.0],
                times_ns: vec![value],
                per_fork: self.harness.per_fork(),
                sample_iterations: self.sample_iterations,
                cpu: self.held.cpu,
                started_unix_ms: Some(self.held.started_unix_ms),
                wall_ms: Some(ended.wall_ms),
                steal_share: ended.steal_share,
                cpu_wait_share: ended.cpu_wait_share,
                own_cpus: ended.own_cpus.clone(),
                ..ForkRecord::default()
            })),
            (None, None) => match &ended.status {
                Err(error) => failure(format!("{who}: cannot learn its exit status: {error}")),
                Ok(status) if !status.success() => failure(format!(
                    "{who} {}: the process ended with {}",
                    if ended.tail.contains("panicked at") {
                        "panicked"
                    } else {
                        "failed"
                    },
                    describe_status(*status)
                )),
                Ok(_) => failure(format!(
                    "{who} matched no benchmark: `{} {}` printed no result for it",
                    self.executable_name, self.command_line
                )),
            },
        };
        FinishedFork {
            outcome,
            measurement_window: found.map(|(_, read_at)| (self.held.released_at, read_at)),
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
