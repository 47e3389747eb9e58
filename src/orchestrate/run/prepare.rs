//! Preparing the sides: each command's set-up run and its inputs checked in each revision's
//! checkout before anything is measured.

use std::path::Path;

use crate::model::command::{BIN_PLACEHOLDER, CommandSpec, Places};
use crate::model::samples::FailureRecord;
use crate::steps::build::programs::Programs;
use crate::steps::progress::Progress;

/// Runs each command's set-up in one revision's checkout (`root`) and checks its inputs there,
/// reading each once so the first measured execution does not pay for the disk. Returns the
/// commands that cannot be measured in this revision, with why: they are `failed` on this side.
pub fn prepare_side(
    commands: &[CommandSpec],
    programs: &Programs,
    root: &Path,
    label: &str,
    progress: &Progress,
) -> Vec<(String, FailureRecord)> {
    let places = Places {
        bin: programs.layout_dirs.first().cloned().unwrap_or_default(),
        root: root.to_path_buf(),
    };
    let mut failures = Vec::new();
    for spec in commands {
        if let Some(missing) = spec.missing_program(&programs.names) {
            failures.push((
                spec.name.clone(),
                FailureRecord {
                    message: format!(
                        "command `{}`: {BIN_PLACEHOLDER}/{missing} is not a program of {label}; \
                         its programs are: {}",
                        spec.name,
                        if programs.names.is_empty() {
                            "none (no bin target was built)".to_string()
                        } else {
                            programs.names.join(", ")
                        }
                    ),
                    stderr_tail: String::new(),
                },
            ));
            continue;
        }
        if let Some(setup) = spec.setup_line(&places) {
            progress.detail(&format!(
                "command {}: set-up in {label}: {setup}",
                spec.name
            ));
            if let Err(failure) = run_setup(spec, &setup, &places, label) {
                failures.push((spec.name.clone(), failure));
                continue;
            }
        }
        let dir = spec.working_dir(root);
        let missing = spec
            .inputs
            .iter()
            .find(|input| std::fs::read(dir.join(input)).is_err());
        if let Some(input) = missing {
            failures.push((
                spec.name.clone(),
                FailureRecord {
                    message: format!(
                        "command `{}`: its input {input} cannot be read in {label} ({})",
                        spec.name,
                        dir.join(input).display()
                    ),
                    stderr_tail: String::new(),
                },
            ));
        }
    }
    failures
}

/// Runs a set-up command with `sh -c`; a failure carries its output's tail.
fn run_setup(
    spec: &CommandSpec,
    setup: &str,
    places: &Places,
    label: &str,
) -> Result<(), FailureRecord> {
    let output = std::process::Command::new("/bin/sh")
        .arg("-c")
        .arg(setup)
        .current_dir(spec.working_dir(&places.root))
        .envs(spec.environment(places))
        .stdin(std::process::Stdio::null())
        .output();
    let failure = |message: String, tail: String| FailureRecord {
        message: format!(
            "command `{}`: its set-up `{setup}` {message} in {label}",
            spec.name
        ),
        stderr_tail: tail,
    };
    match output {
        Err(error) => Err(failure(format!("could not start ({error})"), String::new())),
        Ok(output) if !output.status.success() => {
            let text = String::from_utf8_lossy(&output.stderr).into_owned()
                + &String::from_utf8_lossy(&output.stdout);
            let tail: Vec<&str> = text.lines().rev().take(20).collect();
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            Err(failure(
                format!("failed ({})", output.status),
                tail.join("\n"),
            ))
        }
        Ok(_) => Ok(()),
    }
}
