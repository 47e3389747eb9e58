//! One execution of a command counted under callgrind: the whole program, from its first
//! instruction (the dynamic loader) to its exit, and every process it starts
//! (`--trace-children=yes`); instructions per execution.
//!
//! The command's `prepare` line runs first, unmeasured, as in a time fork. Its warm-up
//! executions are not repeated: they exist to warm caches and page in files, which changes the
//! time of the next execution but not its instruction count (a program whose work depends on
//! what an earlier execution left behind counts that difference in both metrics).

use std::path::Path;
use std::time::{Duration, Instant};

use super::{
    CALLGRIND, Derivation, InstructionMeasurement, InstructionOutcome, InstructionsError, Valgrind,
    dumps, failed, fit, io_error, profile::Profile, read_profiles,
};
use crate::steps::fork::ForkRequest;
use crate::steps::fork::process::{BenchProcess, Launch, describe_status};

/// Counts the instructions of one execution of the command of `req` (whose
/// [`command`](ForkRequest::command) must be set) under `valgrind`, with its profiles in
/// `work_dir` (empty, kept by the caller).
pub fn measure(
    req: &ForkRequest,
    valgrind: &Valgrind,
    work_dir: &Path,
) -> Result<InstructionOutcome, InstructionsError> {
    let Some(run) = &req.command else {
        return Err(InstructionsError::UnsupportedHarness(req.harness.name()));
    };
    let who = format!("command `{}` under callgrind", req.benchmark_id);
    if let Err(failure) = run_prepare(req, &who)? {
        return Ok(failure);
    }
    let out_dir = work_dir.join("profiles");
    std::fs::create_dir_all(&out_dir).map_err(io_error(&out_dir))?;
    let mut args: Vec<std::ffi::OsString> = CALLGRIND.map(Into::into).to_vec();
    args.extend([
        "--trace-children=yes".into(),
        "--dump-instr=yes".into(),
        "--demangle=no".into(),
        dumps::out_file_option(&out_dir).into(),
    ]);
    args.extend(run.argv.iter().cloned());
    let (wall_ms, tail) = match run_under_valgrind(req, valgrind, args, &who)? {
        Ok(ran) => ran,
        Err(failure) => return Ok(failure),
    };
    let paths: Vec<_> = dumps::by_process(&out_dir)
        .map_err(io_error(&out_dir))?
        .into_iter()
        .filter_map(|p| p.at_exit)
        .collect();
    let profiles = match read_profiles(&paths) {
        Ok(profiles) if !profiles.is_empty() => profiles,
        Ok(_) => return Ok(failed(format!("{who}: callgrind wrote no profile"), tail)),
        Err(message) => return Ok(failed(format!("{who}: {message}"), tail)),
    };
    let mut profile = Profile::sum(&profiles);
    if let Some(program) = run.argv.first().map(std::path::Path::new)
        && program.components().count() > 1
    {
        profile = super::inlined::attribute(&profile, program);
    }
    let count = fit::SampleCount {
        iterations: 1.0,
        instructions: profile.total as f64,
    };
    Ok(InstructionOutcome::Measured(Box::new(
        InstructionMeasurement {
            per_iteration: count.instructions,
            derivation: Derivation::WholeExecution,
            samples: vec![count],
            fit: fit::PerIterationFit {
                per_iteration: count.instructions,
                per_sample: 0.0,
                max_residual: 0.0,
                exact: true,
            },
            warm_up_calls: 0,
            profile: profile.per_iteration(1.0),
            wall_ms,
        },
    )))
}

/// Runs the `prepare` line of `req`'s command, if any, in its working directory and
/// environment, unmeasured: the failure of `who` when it fails.
pub(crate) fn run_prepare(
    req: &ForkRequest,
    who: &str,
) -> Result<Result<(), InstructionOutcome>, InstructionsError> {
    let Some(prepare) = req.command.as_ref().and_then(|run| run.prepare.as_ref()) else {
        return Ok(Ok(()));
    };
    let status = std::process::Command::new("/bin/sh")
        .args(["-c", prepare])
        .current_dir(&req.cwd)
        .envs(req.env.iter().map(|(k, v)| (k, v)))
        .stdin(std::process::Stdio::null())
        .status()
        .map_err(io_error("/bin/sh"))?;
    if status.success() {
        return Ok(Ok(()));
    }
    Ok(Err(failed(
        format!(
            "{who}: its prepare command `{prepare}` failed ({})",
            describe_status(status)
        ),
        String::new(),
    )))
}

/// How long to wait for the output pipe to close after the process ended.
const OUTPUT_GRACE: Duration = Duration::from_millis(500);

/// Runs valgrind with `args` in `req`'s working directory, environment and CPU, killing it at
/// `req.timeout`: the wall time in milliseconds and the output's tail, or the failure of `who`
/// (timed out, or ended other than with success).
pub(crate) fn run_under_valgrind(
    req: &ForkRequest,
    valgrind: &Valgrind,
    args: Vec<std::ffi::OsString>,
    who: &str,
) -> Result<Result<(f64, String), InstructionOutcome>, InstructionsError> {
    run_under_valgrind_watching(req, valgrind, args, who, None, None)
}

/// A limit on a run besides the fork timeout: called with the run's process group id while it
/// runs, it says why the run must be stopped now (`Some`), and the run is killed with that
/// reason. Why: a trace's budget is CPU time, which only the caller knows how to count
/// ([`crate::steps::reach::trace::budget`]).
pub(crate) type RunLimit<'a> = &'a (dyn Fn(i32) -> Option<String> + Sync);

/// [`run_under_valgrind`], with every line of output given to `on_line` as it comes, and killed
/// when `limit` says so.
pub(crate) fn run_under_valgrind_watching(
    req: &ForkRequest,
    valgrind: &Valgrind,
    args: Vec<std::ffi::OsString>,
    who: &str,
    on_line: Option<crate::steps::fork::process::LineWatch>,
    limit: Option<RunLimit<'_>>,
) -> Result<Result<(f64, String), InstructionOutcome>, InstructionsError> {
    let started = Instant::now();
    let mut process = BenchProcess::spawn(Launch {
        executable: &valgrind.path,
        args,
        cwd: &req.cwd,
        env: req.env.clone(),
        cpu: req.cpu,
        barrier: None,
        on_line,
    })
    .map_err(|source| crate::steps::fork::ForkError::Launch {
        executable: valgrind.path.display().to_string(),
        source,
    })?;
    let deadline = started + req.timeout;
    while !process.has_exited() {
        if crate::util::interrupt::interrupted() {
            let _ = process.kill_and_reap();
            return Err(crate::steps::fork::ForkError::Interrupted.into());
        }
        if Instant::now() >= deadline {
            let _ = process.kill_and_reap();
            return Ok(Err(failed(
                format!(
                    "{who} did not finish within the fork timeout of {:?} and was killed",
                    req.timeout
                ),
                process.output_tail(OUTPUT_GRACE),
            )));
        }
        if let Some(why) = limit.and_then(|limit| limit(process.pid() as i32)) {
            let _ = process.kill_and_reap();
            return Ok(Err(failed(
                format!("{who} was stopped {why}"),
                process.output_tail(OUTPUT_GRACE),
            )));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let status = process.kill_and_reap();
    let wall_ms = started.elapsed().as_secs_f64() * 1e3;
    let tail = process.output_tail(OUTPUT_GRACE);
    match status {
        Ok(status) if status.success() => Ok(Ok((wall_ms, tail))),
        Ok(status) => Ok(Err(failed(
            format!(
                "{who} failed: the process ended with {}",
                describe_status(status)
            ),
            tail,
        ))),
        Err(e) => Ok(Err(failed(
            format!("{who}: cannot learn its exit status: {e}"),
            tail,
        ))),
    }
}
