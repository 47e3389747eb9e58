//! Commands' traces kept by what they depend on, as bench targets' are ([`super::cache`]), so
//! that a second comparison against the same base, or a bisection step, traces a command only
//! when something it ran or read has changed.
//!
//! Why not the bench targets' key: a benchmark is one executable, whose content fixes what it
//! runs; a command is a command line that may start a shell, a script of the checkout, the
//! revision's programs, and read any file of the checkout, so its trace depends on files no key
//! known before the trace can name. A command's trace is therefore kept under the command as
//! configured (its arguments, working directory, environment, `prepare` line, warm-up
//! executions) together with the content of everything the trace shows it depended on: every
//! program it started, wherever it is, and every path of the project (its checkout, build
//! output, the revision's programs) it opened or looked for, with what it found (a file's bytes,
//! a directory's listing, nothing). A kept trace is reused only when all of these are as they
//! were; then the command, run again, would start the same programs on the same input, and is
//! not traced again. What it read elsewhere on the machine (`/proc`, `/etc`) is taken as the
//! same, as for a benchmark; what it was written (a file it only opened for writing) counts by
//! whether it was there. The paths and what was found there are recorded and checked as a
//! benchmark's are ([`super::inputs`]).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::cache::{fields_digest, run_fields};
use super::inputs::{Input, Seen, inputs_now, project_paths};
use super::{Access, Trace, TraceCache, TraceError};
use crate::steps::fork::ForkRequest;

/// A command's kept trace and what it was made from.
#[derive(Debug, Serialize, Deserialize)]
struct KeptCommand {
    trace: Trace,
    inputs: Vec<Input>,
}

/// A command's trace, and whether it was kept from an earlier run.
#[derive(Debug, Clone, PartialEq)]
pub struct CommandTrace {
    pub trace: Trace,
    pub kept: bool,
}

impl TraceCache {
    /// The key of command `req`'s trace: the command as configured, placeholders replaced.
    pub fn command_key(req: &ForkRequest) -> String {
        let mut command: Vec<&[u8]> = Vec::new();
        let warm_up;
        if let Some(run) = &req.command {
            command.extend(run.argv.iter().map(|arg| arg.as_encoded_bytes()));
            command.push(run.prepare.as_deref().unwrap_or("\0none").as_bytes());
            warm_up = run.warm_up.to_le_bytes();
            command.push(&warm_up);
        }
        let fields = std::iter::once(&b"command"[..]).chain(run_fields(req));
        fields_digest(fields.chain(command))
    }

    /// The kept trace of command `req` when every program it started and every path under
    /// `project` (the checkout, the build's directories) it touched is as it was; else the one
    /// `trace` makes, kept with what it depended on. `trace` is not called when a trace is
    /// reused.
    pub fn get_or_trace_command(
        &self,
        req: &ForkRequest,
        project: &[PathBuf],
        trace: impl FnOnce() -> Result<Trace, TraceError>,
    ) -> Result<CommandTrace, TraceError> {
        let path = self
            .dir
            .join(format!("command-{}.json", Self::command_key(req)));
        let kept = std::fs::read(&path)
            .ok()
            .and_then(|bytes| serde_json::from_slice::<KeptCommand>(&bytes).ok());
        let seen = Seen::default();
        if let Some(kept) = kept.filter(|k| k.inputs.iter().all(|i| i.unchanged(&seen))) {
            return Ok(CommandTrace {
                trace: kept.trace,
                kept: true,
            });
        }
        let fresh = trace()?;
        // A path that cannot be read now is not kept: the next run traces again.
        if let Some(inputs) = inputs_of(&fresh, project) {
            let kept = KeptCommand {
                trace: fresh,
                inputs,
            };
            self.keep(&path, &kept).map_err(|source| TraceError::Io {
                who: format!("command `{}`", req.benchmark_id),
                path: path.clone(),
                source,
            })?;
            return Ok(CommandTrace {
                trace: kept.trace,
                kept: false,
            });
        }
        Ok(CommandTrace {
            trace: fresh,
            kept: false,
        })
    }
}

/// What `trace` depended on: every program it started, and every path under `project` it
/// touched, with what is there now; `None` when one cannot be read.
fn inputs_of(trace: &Trace, project: &[PathBuf]) -> Option<Vec<Input>> {
    let programs = trace.executed_by_program.keys().chain(&trace.programs);
    let programs = programs.map(|p| (p.as_path(), false));
    // Only a file it only opened for writing counts by whether it is there.
    let by_content = |access| access != Access::Written;
    inputs_now(programs.chain(project_paths(trace, project, by_content)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::steps::fork::command::CommandRun;
    use std::path::Path;
    use std::time::Duration;

    fn request(argv: &[&str], cwd: &Path) -> ForkRequest {
        ForkRequest {
            executable: argv[0].into(),
            cwd: cwd.to_path_buf(),
            env: vec![],
            benchmark_id: "cmd".into(),
            harness: crate::model::harness::Harness::Command,
            warm_up: Duration::ZERO,
            measurement: Duration::ZERO,
            sample_size: 1,
            harness_sample_size: None,
            timeout: Duration::from_secs(1),
            criterion_home: "/nonexistent".into(),
            cpu: None,
            command: Some(CommandRun {
                argv: argv.iter().map(Into::into).collect(),
                prepare: None,
                warm_up: 0,
                helper: "/nonexistent/cargo-perfdiff".into(),
            }),
        }
    }

    /// A trace that ran `program` and read `input`, looked for `missing` and wrote `output`.
    fn made(program: &Path, input: &Path, missing: &Path, output: &Path) -> Trace {
        Trace {
            executed_by_program: [(program.to_path_buf(), [0x1000].into())].into(),
            files: [
                (input.to_path_buf(), Access::Opened),
                (missing.to_path_buf(), Access::Missing),
                (output.to_path_buf(), Access::Written),
                ("/proc/self/maps".into(), Access::Opened),
            ]
            .into(),
            ..Trace::default()
        }
    }

    #[test]
    fn a_command_is_traced_again_only_when_what_it_ran_or_read_changed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("checkout");
        std::fs::create_dir_all(&root).unwrap();
        let (program, input) = (root.join("tool"), root.join("input.txt"));
        let (missing, output) = (root.join("optional.toml"), root.join("out.txt"));
        std::fs::write(&program, b"program v1").unwrap();
        std::fs::write(&input, b"input v1").unwrap();
        let cache = TraceCache::new(dir.path().join("traces"));
        let project = [root.clone()];
        let req = request(&["/bin/sh", "run.sh"], &root);
        let trace = made(&program, &input, &missing, &output);
        let mut calls = 0;
        let mut get = |req: &ForkRequest| {
            cache
                .get_or_trace_command(req, &project, || {
                    calls += 1;
                    std::fs::write(&output, format!("run {calls}")).unwrap();
                    Ok(trace.clone())
                })
                .unwrap()
        };
        assert!(!get(&req).kept);
        // The same command, program and files (its output rewritten): kept.
        std::fs::write(&output, b"other output").unwrap();
        let again = get(&req);
        assert!(again.kept);
        assert_eq!(again.trace, trace);
        // Each change traces it again: the program, a file it read, a file it looked for, the
        // command line.
        std::fs::write(&program, b"program v2").unwrap();
        assert!(!get(&req).kept);
        assert!(get(&req).kept);
        std::fs::write(&input, b"input v2").unwrap();
        assert!(!get(&req).kept);
        std::fs::write(&missing, b"now there").unwrap();
        assert!(!get(&req).kept);
        assert!(!get(&request(&["/bin/sh", "other.sh"], &root)).kept);
        assert!(get(&req).kept);
        assert_eq!(calls, 5);
    }

    #[test]
    fn a_failed_command_trace_is_not_kept_and_the_key_covers_the_configuration() {
        let dir = tempfile::tempdir().unwrap();
        let cache = TraceCache::new(dir.path().join("traces"));
        let req = request(&["/bin/true"], dir.path());
        let failed = cache.get_or_trace_command(&req, &[], || {
            Err(TraceError::Unsupported {
                who: "command `cmd`".into(),
                what: "commands",
            })
        });
        assert!(failed.is_err());
        let traced = cache.get_or_trace_command(&req, &[], || Ok(Trace::default()));
        assert!(!traced.unwrap().kept);
        let key = TraceCache::command_key(&req);
        let mut other = req.clone();
        other.env.push(("MODE".into(), "fast".into()));
        assert_ne!(TraceCache::command_key(&other), key);
        let mut other = req.clone();
        other.command.as_mut().unwrap().warm_up = 1;
        assert_ne!(TraceCache::command_key(&other), key);
        let mut other = req.clone();
        other.cwd = "/elsewhere".into();
        assert_ne!(TraceCache::command_key(&other), key);
    }
}
