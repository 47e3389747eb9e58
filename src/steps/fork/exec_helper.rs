//! The small intermediate process that runs one execution of a command and reads its resource
//! usage: `perfdiff-exec __perfdiff-exec …` ([`HELPER_PROGRAM`], a program of its own installed
//! beside cargo-perfdiff; `cargo-perfdiff __perfdiff-exec …` where it is missing), started by
//! [`super::command::CommandFork`].
//!
//! Why a process of its own: Linux keeps a process's high-water RSS across `execve`, so the
//! `ru_maxrss` that `wait4` reports for a child is at least the RSS of the process it was forked
//! from. A program started straight from cargo-perfdiff (tens of MB, with its samples and
//! threads) would report cargo-perfdiff's size and hide every change of its own below it
//! (METHOD.md, "Measuring a program from outside"). This helper is a fresh image after its own
//! `exec`, of a program that links only this module: it touches almost nothing before it starts
//! the program, so the program inherits only the helper's few pages, as under `/usr/bin/time`,
//! and the peak read here is the program's own.
//! `tests/offline/command_memory.rs` checks the figure against `/usr/bin/time -f %M`.
//!
//! The helper also keeps what must not count from the measurement: the `prepare` command before
//! every execution and the warm-up executions run here, outside the timed window, and the time of
//! starting the helper itself falls before it. The program is executed directly, without a shell,
//! so a shell's start-up belongs to neither side.
//!
//! Protocol: `__perfdiff-exec RESULT_FILE WARM_UP PREPARE -- PROGRAM [ARGS…]` (`PREPARE` empty for
//! none). The outcome is written to `RESULT_FILE` as one JSON object ([`ExecResult`]); the
//! helper's own exit code is 0 whenever it could write that file.

use std::ffi::{OsStr, OsString};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Command, ExitStatus};
use std::time::Instant;

use serde::{Deserialize, Serialize};

/// The first argument that turns `cargo-perfdiff` into the helper.
pub const HELPER_ARG: &str = "__perfdiff-exec";

/// What one measured execution gave.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct ExecResult {
    /// From just before the program was started to the moment it was reaped, in nanoseconds.
    pub wall_ns: f64,
    /// CPU time in user mode, nanoseconds (`ru_utime`).
    pub user_ns: f64,
    /// CPU time in the kernel on its behalf, nanoseconds (`ru_stime`).
    pub system_ns: f64,
    /// Peak resident set size in bytes (`ru_maxrss`, which Linux gives in KiB).
    pub peak_rss_bytes: f64,
    /// Exit code, when the program exited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// Signal that ended it, when one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    /// Why the program (or its prepare command) could not be run, when it could not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl ExecResult {
    /// True when the program ran and exited with 0.
    pub fn succeeded(&self) -> bool {
        self.error.is_none() && self.exit_code == Some(0)
    }

    /// `exit code 2`, `signal 9`: how the program ended, for messages.
    pub fn ending(&self) -> String {
        match (&self.error, self.exit_code, self.signal) {
            (Some(error), _, _) => error.clone(),
            (None, Some(code), _) => format!("exit code {code}"),
            (None, None, Some(signal)) => format!("signal {signal}"),
            (None, None, None) => "an unknown status".to_string(),
        }
    }
}

/// The arguments that make the helper run `program args…` after `warm_up` unmeasured executions,
/// each execution preceded by `prepare` (run by `sh -c`), writing to `result`.
pub fn helper_args(
    result: &Path,
    warm_up: usize,
    prepare: Option<&str>,
    argv: &[OsString],
) -> Vec<OsString> {
    let mut args: Vec<OsString> = vec![
        HELPER_ARG.into(),
        result.as_os_str().to_os_string(),
        warm_up.to_string().into(),
        prepare.unwrap_or("").into(),
        "--".into(),
    ];
    args.extend(argv.iter().cloned());
    args
}

/// The measuring helper's own program, installed beside `cargo-perfdiff` (a `[[bin]]` of this
/// package, `src/bin/perfdiff-exec.rs`). It links only this module, so the pages it has written
/// when it forks a program, the floor of that program's peak memory, are about as few as GNU
/// time's; cargo-perfdiff's own image, as the helper, passes on about twice as many.
pub const HELPER_PROGRAM: &str = "perfdiff-exec";

/// This very process's image, through `/proc/<pid>/exe`, which stays valid while this process
/// lives even when the file it was started from is replaced or deleted (a `cargo install` or a
/// rebuild during a long run); the path it was started from where `/proc` is not mounted. The
/// native probe starts its tracer from it.
pub fn own_executable() -> std::io::Result<std::path::PathBuf> {
    let own = std::path::PathBuf::from(format!("/proc/{}/exe", std::process::id()));
    if own.exists() {
        Ok(own)
    } else {
        std::env::current_exe()
    }
}

/// The executable that runs each measured execution of a command: [`HELPER_PROGRAM`] beside this
/// program's file when it is there, else this program itself (it answers the same arguments; a
/// program's peak memory then starts from about 2 MiB instead of 1). `cargo install` and
/// `cargo build` put the two side by side.
pub fn helper_executable() -> std::io::Result<std::path::PathBuf> {
    let beside = std::env::current_exe()
        .ok()
        .and_then(|own| helper_beside(&own));
    match beside {
        Some(helper) => Ok(helper),
        None => own_executable(),
    }
}

/// [`HELPER_PROGRAM`] in the directory of `executable`, when it is a file there.
pub fn helper_beside(executable: &Path) -> Option<std::path::PathBuf> {
    let helper = executable.parent()?.join(HELPER_PROGRAM);
    helper.is_file().then_some(helper)
}

/// Runs the helper when the process was started as one (`args[1]` is [`HELPER_ARG`]) and returns
/// its exit code; `None` otherwise. Called first thing in `main`, before anything allocates much.
pub fn run_if_asked() -> Option<i32> {
    let mut args = std::env::args_os();
    let _program = args.next();
    if args.next().as_deref() != Some(OsStr::new(HELPER_ARG)) {
        return None;
    }
    let rest: Vec<OsString> = args.collect();
    Some(helper_main(&rest))
}

fn helper_main(args: &[OsString]) -> i32 {
    let [
        result,
        warm_up,
        prepare,
        separator,
        program,
        program_args @ ..,
    ] = args
    else {
        eprintln!("cargo-perfdiff: {HELPER_ARG}: wrong arguments");
        return 2;
    };
    if separator != "--" {
        eprintln!("cargo-perfdiff: {HELPER_ARG}: wrong arguments");
        return 2;
    }
    let warm_up: usize = warm_up.to_str().and_then(|w| w.parse().ok()).unwrap_or(0);
    let prepare = (!prepare.is_empty()).then_some(prepare.as_os_str());
    let outcome = execute(warm_up, prepare, program, program_args);
    let text = serde_json::to_string(&outcome).unwrap_or_default();
    match std::fs::write(result, text) {
        Ok(()) => 0,
        Err(error) => {
            eprintln!(
                "cargo-perfdiff: {HELPER_ARG}: cannot write {}: {error}",
                Path::new(result).display()
            );
            2
        }
    }
}

/// Warm-up executions, then the measured one.
fn execute(
    warm_up: usize,
    prepare: Option<&OsStr>,
    program: &OsStr,
    args: &[OsString],
) -> ExecResult {
    for _ in 0..warm_up {
        if let Err(error) = run_prepare(prepare) {
            return failed(error);
        }
        match run_measured(program, args) {
            Ok(result) if result.succeeded() => {}
            Ok(mut result) => {
                result.error = Some(format!(
                    "a warm-up execution ended with {}",
                    result.ending()
                ));
                return result;
            }
            Err(error) => return failed(error),
        }
    }
    if let Err(error) = run_prepare(prepare) {
        return failed(error);
    }
    run_measured(program, args).unwrap_or_else(failed)
}

fn failed(error: String) -> ExecResult {
    ExecResult {
        error: Some(error),
        ..ExecResult::default()
    }
}

/// Runs the prepare command through `sh -c`; an error says how it ended.
fn run_prepare(prepare: Option<&OsStr>) -> Result<(), String> {
    let Some(prepare) = prepare else {
        return Ok(());
    };
    let status = Command::new("/bin/sh")
        .arg("-c")
        .arg(prepare)
        .status()
        .map_err(|e| format!("cannot run the prepare command: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!(
            "the prepare command `{}` ended with {}",
            prepare.to_string_lossy(),
            status_text(status)
        ))
    }
}

fn status_text(status: ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit code {code}"),
        (None, Some(signal)) => format!("signal {signal}"),
        (None, None) => "an unknown status".to_string(),
    }
}

/// Starts the program, reaps it with `wait4` and returns its times and peak RSS.
fn run_measured(program: &OsStr, args: &[OsString]) -> Result<ExecResult, String> {
    let mut command = Command::new(program);
    command.args(args);
    // A `pre_exec` hook makes std start the program with fork + exec instead of posix_spawn's
    // vfork-like clone: a forked child copies only the page-table entries of the helper's
    // written memory (a few hundred KiB), where a vfork child shares the helper's whole address
    // space, executable pages included, and inherits all of it as its high-water RSS.
    // SAFETY: the hook does nothing, so it is trivially async-signal-safe.
    unsafe {
        command.pre_exec(|| Ok(()));
    }
    let started = Instant::now();
    let child = command.spawn().map_err(|e| {
        format!(
            "cannot start `{}`: {e}",
            Path::new(program).to_string_lossy()
        )
    })?;
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    // SAFETY: an all-zero rusage is a valid value; wait4 only writes into `status` and `usage`,
    // which we own, for our own child `pid` (std does not reap it: `child` is never waited on).
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let reaped = loop {
        let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if reaped == -1 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted
        {
            continue;
        }
        break reaped;
    };
    let wall_ns = started.elapsed().as_secs_f64() * 1e9;
    if reaped != pid {
        return Err(format!(
            "cannot wait for `{}`: {}",
            Path::new(program).to_string_lossy(),
            std::io::Error::last_os_error()
        ));
    }
    let time_ns = |t: libc::timeval| t.tv_sec as f64 * 1e9 + t.tv_usec as f64 * 1e3;
    let exit = ExitStatus::from_raw(status);
    Ok(ExecResult {
        wall_ns,
        user_ns: time_ns(usage.ru_utime),
        system_ns: time_ns(usage.ru_stime),
        peak_rss_bytes: usage.ru_maxrss as f64 * 1024.0,
        exit_code: exit.code(),
        signal: exit.signal(),
        error: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn how_an_execution_ended_reads_as_a_phrase() {
        let code = |c| ExecResult {
            exit_code: Some(c),
            ..ExecResult::default()
        };
        assert!(code(0).succeeded());
        assert!(!code(3).succeeded());
        assert_eq!(code(3).ending(), "exit code 3");
        let killed = ExecResult {
            signal: Some(9),
            ..ExecResult::default()
        };
        assert_eq!(killed.ending(), "signal 9");
        assert_eq!(
            failed("cannot start `x`".into()).ending(),
            "cannot start `x`"
        );
    }

    #[test]
    fn the_helper_program_is_found_beside_the_running_one_only_as_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let own = dir.path().join("cargo-perfdiff");
        std::fs::write(&own, "").unwrap();
        assert_eq!(helper_beside(&own), None, "missing: the caller falls back");
        std::fs::create_dir(dir.path().join(HELPER_PROGRAM)).unwrap();
        assert_eq!(helper_beside(&own), None, "a directory is not the helper");
        std::fs::remove_dir(dir.path().join(HELPER_PROGRAM)).unwrap();
        std::fs::write(dir.path().join(HELPER_PROGRAM), "").unwrap();
        assert_eq!(helper_beside(&own), Some(dir.path().join(HELPER_PROGRAM)));
    }

    #[test]
    fn the_helper_runs_the_program_and_reads_its_usage() {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("prepared");
        let prepare = format!("echo x >> {}", marker.display());
        let result = execute(
            2,
            Some(OsStr::new(&prepare)),
            OsStr::new("/bin/sh"),
            &["-c".into(), "exit 0".into()],
        );
        assert!(result.succeeded(), "{result:?}");
        assert!(result.wall_ns > 0.0 && result.peak_rss_bytes > 0.0);
        let prepared = std::fs::read_to_string(&marker).unwrap();
        assert_eq!(
            prepared.lines().count(),
            3,
            "before each of 2 warm-ups and the run"
        );

        let failing = execute(
            0,
            None,
            OsStr::new("/bin/sh"),
            &["-c".into(), "exit 3".into()],
        );
        assert_eq!(failing.exit_code, Some(3));
        let missing = execute(0, None, OsStr::new("/no/such/program"), &[]);
        assert!(missing.error.as_deref().unwrap().contains("cannot start"));
        let bad_prepare = execute(0, Some(OsStr::new("exit 4")), OsStr::new("/bin/true"), &[]);
        assert_eq!(
            bad_prepare.error.as_deref(),
            Some("the prepare command `exit 4` ended with exit code 4")
        );
    }
}
