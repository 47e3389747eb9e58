//! Commands: programs of the workspace compared from the outside, as hyperfine measures them, with
//! the same checkouts, builds, schedule, stop rules and verdicts as benchmarks.
//!
//! A command is declared on the command line (`--cmd NAME='COMMAND'`) or in the configuration
//! (`[[command]]` in `perfdiff.toml`, `[[workspace.metadata.perfdiff.command]]`), with optional
//! set-up, prepare command, working directory, environment and inputs ([`CommandSpec`]). Its text
//! names the revision's own programs through placeholders, so the same text runs base's program
//! and head's: `{bin}` is the directory of the revision's built binaries, `{root}` the revision's
//! checkout of the workspace. Both are also in the environment, as `PERFDIFF_BIN` and
//! `PERFDIFF_ROOT`.
//!
//! Each command is recorded as two benchmarks: its wall time under its name, and its peak
//! resident memory under [`memory_id`], so that memory gets its own verdict with the same
//! statistics (`docs/commands.md`).
//!
//! The text is split into words as a POSIX shell would (quotes and backslashes), and the program
//! is executed directly, without a shell: starting a shell would add its own time to both sides
//! and belong to neither program. Write `sh -c '…'` for pipes or redirections.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The placeholder for the directory of the revision's built binaries.
pub const BIN_PLACEHOLDER: &str = "{bin}";
/// The placeholder for the revision's checkout of the workspace.
pub const ROOT_PLACEHOLDER: &str = "{root}";

/// One command, as declared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct CommandSpec {
    /// What reports call it; also the id its samples are recorded under.
    pub name: String,
    /// The command line measured, e.g. `{bin}/mycli parse data/big.json`.
    pub run: String,
    /// Run once per revision (with `sh -c`) before any execution of this command is measured:
    /// generating input files, for instance. Not measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub setup: Option<String>,
    /// Run (with `sh -c`) before every execution, warm-ups included: clearing an output
    /// directory, for instance. Not measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prepare: Option<String>,
    /// Working directory, relative to the revision's checkout of the workspace (default: the
    /// workspace root of the checkout).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Environment variables added for the command (placeholders are replaced in the values).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    /// Files the command reads, relative to the working directory: checked to exist in each
    /// checkout before anything is measured, and read once so that the first execution of
    /// either side does not pay for the disk.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inputs: Vec<String>,
    /// Unmeasured executions before each measured one (default 0).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub warm_up: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Errors in a command's declaration or in running its set-up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    #[error(
        "--cmd {0:?}: expected NAME=COMMAND, e.g. --cmd parse='{{bin}}/mycli parse input.json'"
    )]
    NotNameEqualsCommand(String),
    #[error("command `{name}`: {message}")]
    Invalid { name: String, message: String },
    #[error("two commands are named `{0}`: command names must be unique")]
    Repeated(String),
}

impl CommandSpec {
    /// `NAME=COMMAND` from the command line.
    pub fn from_cli(text: &str) -> Result<CommandSpec, CommandError> {
        let (name, run) = text
            .split_once('=')
            .ok_or_else(|| CommandError::NotNameEqualsCommand(text.to_string()))?;
        let spec = CommandSpec {
            name: name.trim().to_string(),
            run: run.trim().to_string(),
            ..CommandSpec::default()
        };
        spec.validate()?;
        Ok(spec)
    }

    /// Checks what can be checked before anything is built: a name, a command, words a shell
    /// could split, no absolute or escaping working directory.
    pub fn validate(&self) -> Result<(), CommandError> {
        let invalid = |message: &str| CommandError::Invalid {
            name: self.name.clone(),
            message: message.to_string(),
        };
        if self.name.trim().is_empty() {
            return Err(CommandError::Invalid {
                name: self.run.clone(),
                message: "has no name".to_string(),
            });
        }
        if self.name.chars().any(char::is_control) {
            return Err(invalid("its name has a control character"));
        }
        match shlex::split(&self.run) {
            None => return Err(invalid("unbalanced quotes in its command line")),
            Some(words) if words.is_empty() => return Err(invalid("its command line is empty")),
            Some(_) => {}
        }
        if let Some(cwd) = &self.cwd
            && (Path::new(cwd).is_absolute()
                || Path::new(cwd)
                    .components()
                    .any(|c| c == std::path::Component::ParentDir))
        {
            return Err(invalid(
                "`cwd` must be a path inside the workspace, relative to its root",
            ));
        }
        Ok(())
    }

    /// The command line of one side: its words with the placeholders replaced.
    pub fn argv(&self, places: &Places) -> Vec<OsString> {
        shlex::split(&self.run)
            .unwrap_or_default()
            .iter()
            .map(|word| OsString::from(places.replace(word)))
            .collect()
    }

    /// The program its command line runs from `{bin}`, when that is not among `programs` (a
    /// typo, or a program the revision does not build).
    pub fn missing_program(&self, programs: &[String]) -> Option<String> {
        let words = shlex::split(&self.run)?;
        let program = words.first()?.strip_prefix(BIN_PLACEHOLDER)?;
        let name = program.trim_start_matches('/');
        (!programs.iter().any(|p| p == name)).then(|| name.to_string())
    }

    /// The working directory in a side's checkout.
    pub fn working_dir(&self, root: &Path) -> PathBuf {
        match &self.cwd {
            Some(cwd) => root.join(cwd),
            None => root.to_path_buf(),
        }
    }

    /// The variables added for the command, its set-up and prepare commands.
    pub fn environment(&self, places: &Places) -> Vec<(OsString, OsString)> {
        let mut env = vec![
            ("PERFDIFF_BIN".into(), places.bin.clone().into_os_string()),
            ("PERFDIFF_ROOT".into(), places.root.clone().into_os_string()),
        ];
        env.extend(
            self.env
                .iter()
                .map(|(key, value)| (key.into(), places.replace(value).into())),
        );
        env
    }

    /// The prepare command with the placeholders replaced.
    pub fn prepare_line(&self, places: &Places) -> Option<String> {
        self.prepare.as_deref().map(|p| places.replace(p))
    }

    /// The set-up command with the placeholders replaced.
    pub fn setup_line(&self, places: &Places) -> Option<String> {
        self.setup.as_deref().map(|s| places.replace(s))
    }
}

/// Where one side's command finds its programs and its checkout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Places {
    /// The directory of the side's built binaries (for this round's layout).
    pub bin: PathBuf,
    /// The side's checkout of the workspace.
    pub root: PathBuf,
}

impl Places {
    fn replace(&self, text: &str) -> String {
        text.replace(BIN_PLACEHOLDER, &self.bin.to_string_lossy())
            .replace(ROOT_PLACEHOLDER, &self.root.to_string_lossy())
    }
}

/// Checks a list of commands: each valid, names unique.
pub fn validate_all(commands: &[CommandSpec]) -> Result<(), CommandError> {
    let mut seen = std::collections::BTreeSet::new();
    for command in commands {
        command.validate()?;
        if !seen.insert(command.name.as_str()) {
            return Err(CommandError::Repeated(command.name.clone()));
        }
    }
    Ok(())
}

/// The id a command's peak memory is recorded and reported under.
pub fn memory_id(name: &str) -> String {
    format!("{name} (peak memory)")
}

/// The unit of a command's memory record.
pub const MEMORY_UNIT: &str = "bytes";

#[cfg(test)]
mod tests {
    use super::*;

    fn places() -> Places {
        Places {
            bin: PathBuf::from("/p/fresh-bin/base/programs"),
            root: PathBuf::from("/p/worktrees/base/ws"),
        }
    }

    #[test]
    fn a_command_line_is_split_as_a_shell_would_and_its_placeholders_replaced() {
        let spec =
            CommandSpec::from_cli("parse={bin}/mycli parse 'two words' {root}/in.json").unwrap();
        assert_eq!(spec.name, "parse");
        assert_eq!(
            spec.argv(&places()),
            [
                "/p/fresh-bin/base/programs/mycli",
                "parse",
                "two words",
                "/p/worktrees/base/ws/in.json"
            ]
            .map(OsString::from)
        );
    }

    #[test]
    fn the_environment_names_both_places_and_replaces_them_in_values() {
        let spec = CommandSpec {
            name: "x".into(),
            run: "true".into(),
            env: BTreeMap::from([("DATA".to_string(), "{root}/data".to_string())]),
            ..CommandSpec::default()
        };
        let env = spec.environment(&places());
        assert_eq!(env[0].0, "PERFDIFF_BIN");
        assert_eq!(env[1].1, "/p/worktrees/base/ws");
        assert_eq!(env[2], ("DATA".into(), "/p/worktrees/base/ws/data".into()));
    }

    #[test]
    fn bad_declarations_are_named_errors() {
        assert_eq!(
            CommandSpec::from_cli("no equals sign"),
            Err(CommandError::NotNameEqualsCommand("no equals sign".into()))
        );
        let error = CommandSpec::from_cli("x={bin}/a 'open").unwrap_err();
        assert_eq!(
            error.to_string(),
            "command `x`: unbalanced quotes in its command line"
        );
        assert!(CommandSpec::from_cli("=true").is_err());
        assert!(CommandSpec::from_cli("x=  ").is_err());
        let escaping = CommandSpec {
            name: "x".into(),
            run: "true".into(),
            cwd: Some("../elsewhere".into()),
            ..CommandSpec::default()
        };
        assert!(escaping.validate().is_err());
        let twice = [
            CommandSpec::from_cli("a=true").unwrap(),
            CommandSpec::from_cli("a=false").unwrap(),
        ];
        assert_eq!(
            validate_all(&twice),
            Err(CommandError::Repeated("a".into()))
        );
    }

    #[test]
    fn a_program_the_revision_does_not_build_is_named() {
        let spec = CommandSpec::from_cli("x={bin}/mycli run").unwrap();
        assert_eq!(spec.missing_program(&["mycli".to_string()]), None);
        assert_eq!(
            spec.missing_program(&["other".to_string()]),
            Some("mycli".to_string())
        );
        // A program from elsewhere is not ours to check.
        let system = CommandSpec::from_cli("x=sh -c '{bin}/mycli | wc'").unwrap();
        assert_eq!(system.missing_program(&[]), None);
    }

    #[test]
    fn the_working_directory_is_inside_the_checkout() {
        let mut spec = CommandSpec::from_cli("a=true").unwrap();
        let root = Path::new("/w/base");
        assert_eq!(spec.working_dir(root), root);
        spec.cwd = Some("data".into());
        assert_eq!(spec.working_dir(root), Path::new("/w/base/data"));
    }
}
