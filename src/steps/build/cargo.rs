//! Running cargo and reading its messages: the JSON stream parsed into artifacts and
//! diagnostics, progress forwarded, an interrupt passed on to cargo.

use std::collections::{BTreeMap, VecDeque};
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;

use cargo_metadata::{Message, TargetKind};

use super::cargo_env::{BuildScriptEnv, cargo_program};
use super::cargo_output::{BenchArtifact, FailedTarget};
use super::one_path::OnePath;
use super::workspace::{
    all_benches_failed_hint, bench_packages_elsewhere, has_separate_build_dir, revision_metadata,
};
use super::{BuildError, BuildEvent, BuildOptions, cargo_env};

/// How many lines of cargo's stderr an error message quotes.
pub(super) const STDERR_TAIL_LINES: usize = 30;

/// What cargo's JSON message stream says about a build.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParsedBuild {
    /// Executables of `bench` targets, in the order cargo reported them.
    pub benches: Vec<BenchArtifact>,
    /// Executables of `bin` targets (the programs commands run), in the order cargo reported
    /// them.
    pub programs: Vec<BenchArtifact>,
    /// Every rendered rustc diagnostic, in order.
    pub diagnostics: Vec<RenderedDiagnostic>,
    /// `build-finished`'s verdict; `None` when the stream ended before it (cargo died early).
    pub success: Option<bool>,
    /// The targets an error-level diagnostic was reported for, in order, without repeats.
    pub failed_targets: Vec<FailedTarget>,
    /// What each package's build script gives the processes cargo runs for it, by package id.
    pub build_scripts: BTreeMap<String, BuildScriptEnv>,
    /// Lines of stdout that are not cargo's JSON messages: what rustc printed for a `--print`
    /// request (the linker command of `--print link-args`).
    pub printed: Vec<String>,
}

impl ParsedBuild {
    /// The rendered error-level diagnostics, joined.
    pub fn errors(&self) -> String {
        self.diagnostics
            .iter()
            .filter(|d| d.is_error)
            .map(|d| d.rendered.trim_end())
            .collect::<Vec<_>>()
            .join("\n\n")
    }
}

/// One rendered rustc diagnostic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderedDiagnostic {
    /// Level `error` or `error: internal compiler error`.
    pub is_error: bool,
    pub rendered: String,
}

/// Folds cargo messages into a [`ParsedBuild`], one line at a time, so the same code serves the
/// live build (which reports progress per line) and [`parse_messages`].
#[derive(Debug, Default)]
pub(super) struct MessageCollector {
    pub(super) parsed: ParsedBuild,
}

/// What one stdout line contributed, for progress reporting.
pub(super) enum Observed {
    Diagnostic(usize),
    Finished,
    Nothing,
}

/// rustc's code for `#![feature]` used on the stable release channel.
pub(super) const NIGHTLY_FEATURE_ON_STABLE: &str = "E0554";

impl MessageCollector {
    fn note_failed_target(
        &mut self,
        package_id: String,
        target: cargo_metadata::Target,
        needs_nightly: bool,
        rendered: &str,
    ) {
        let failed = &mut self.parsed.failed_targets;
        match failed
            .iter_mut()
            .find(|f| f.package_id == package_id && f.target == target.name)
        {
            Some(known) => {
                known.needs_nightly |= needs_nightly;
                known.errors += 1;
            }
            None => failed.push(FailedTarget {
                package_id,
                is_bench: target.kind.contains(&TargetKind::Bench),
                target: target.name,
                needs_nightly,
                first_error: diagnostic_headline(rendered),
                errors: 1,
            }),
        }
    }

    fn observe_line(&mut self, line: &[u8]) -> Observed {
        let text = String::from_utf8_lossy(line);
        let text = text.trim();
        if !text.starts_with('{') {
            if !text.is_empty() {
                self.parsed.printed.push(text.to_string());
            }
            return Observed::Nothing;
        }
        match serde_json::from_str::<Message>(text) {
            Ok(message) => self.observe(message),
            Err(_) => Observed::Nothing,
        }
    }

    fn observe(&mut self, message: Message) -> Observed {
        match message {
            Message::CompilerArtifact(artifact) => {
                let kind = &artifact.target.kind;
                let list = if kind.contains(&TargetKind::Bench) {
                    &mut self.parsed.benches
                } else if kind.contains(&TargetKind::Bin) {
                    &mut self.parsed.programs
                } else {
                    return Observed::Nothing;
                };
                if let Some(executable) = artifact.executable {
                    list.push(BenchArtifact {
                        package_id: artifact.package_id.repr,
                        target: artifact.target.name,
                        executable: executable.into_std_path_buf(),
                        manifest_path: artifact.manifest_path.into_std_path_buf(),
                        src_path: artifact.target.src_path.into_std_path_buf(),
                    });
                }
                Observed::Nothing
            }
            Message::CompilerMessage(message) => {
                let Some(rendered) = message.message.rendered else {
                    return Observed::Nothing;
                };
                let is_error = matches!(
                    message.message.level,
                    cargo_metadata::diagnostic::DiagnosticLevel::Error
                        | cargo_metadata::diagnostic::DiagnosticLevel::Ice
                );
                if is_error {
                    let needs_nightly = message
                        .message
                        .code
                        .as_ref()
                        .is_some_and(|code| code.code == NIGHTLY_FEATURE_ON_STABLE);
                    self.note_failed_target(
                        message.package_id.repr,
                        message.target,
                        needs_nightly,
                        &rendered,
                    );
                }
                self.parsed
                    .diagnostics
                    .push(RenderedDiagnostic { is_error, rendered });
                Observed::Diagnostic(self.parsed.diagnostics.len() - 1)
            }
            Message::BuildScriptExecuted(script) => {
                let out_dir = Some(script.out_dir.into_std_path_buf())
                    .filter(|dir| !dir.as_os_str().is_empty());
                self.parsed.build_scripts.insert(
                    script.package_id.repr,
                    BuildScriptEnv {
                        out_dir,
                        vars: script.env,
                        library_dirs: script
                            .linked_paths
                            .iter()
                            .map(|value| cargo_env::link_search_dir(value.as_str()))
                            .collect(),
                    },
                );
                Observed::Nothing
            }
            Message::BuildFinished(finished) => {
                self.parsed.success = Some(finished.success);
                Observed::Finished
            }
            _ => Observed::Nothing,
        }
    }
}

/// Parses cargo's JSON message stream. Lines that are not cargo messages (garbage, invalid UTF-8,
/// unknown message kinds) are skipped; a read error ends the stream. Never panics.
pub fn parse_messages<R: BufRead>(mut reader: R) -> ParsedBuild {
    let mut collector = MessageCollector::default();
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                collector.observe_line(&line);
            }
        }
    }
    collector.parsed
}

/// A line from one of cargo's two output streams, in the order the reader threads saw them.
pub(super) enum CargoLine {
    Stdout(Vec<u8>),
    Stderr(String),
}

/// How cargo is run to build one revision's bench targets.
pub(crate) struct CargoBuild<'a> {
    pub(crate) workspace_dir: &'a Path,
    pub(super) label: &'a str,
    pub(super) shared_target_dir: &'a Path,
    /// True when cargo reports a `build.build-dir` apart from the target directory.
    pub(super) separate_build_dir: bool,
    /// The link cargo builds the checkout through, when its workspace lies below the checkout's
    /// root ([`OnePath`]).
    pub(crate) one_path: Option<OnePath>,
}

impl<'a> CargoBuild<'a> {
    /// How cargo builds in the checkout at `workspace_dir` into `shared_target_dir` (asks cargo
    /// whether a separate build directory is configured).
    pub(crate) fn new(
        workspace_dir: &'a Path,
        label: &'a str,
        shared_target_dir: &'a Path,
    ) -> Result<Self, BuildError> {
        let metadata = revision_metadata(workspace_dir, label, shared_target_dir)?;
        Ok(CargoBuild {
            workspace_dir,
            label,
            shared_target_dir,
            separate_build_dir: has_separate_build_dir(&metadata),
            one_path: one_path_of(workspace_dir),
        })
    }

    /// `cargo bench --no-run --message-format=json` with `opts`, in its own process group.
    pub(super) fn command(&self, opts: &BuildOptions) -> Command {
        let mut args: Vec<String> = ["bench", "--no-run", "--message-format=json"]
            .map(String::from)
            .to_vec();
        args.extend(opts.cargo_args());
        self.cargo(&args)
    }

    /// `cargo ARGS` in the workspace, building into the shared target directory, its output
    /// piped, in its own process group; through the link of [`OnePath`], pointed at this
    /// checkout, where there is one (else through the checkout's own path).
    pub(crate) fn cargo(&self, args: &[String]) -> Command {
        let mut command = Command::new(cargo_program());
        let checkout = super::freshness::Checkout::containing(self.workspace_dir);
        let through = self.one_path.as_ref().filter(|one| one.point().is_ok());
        match through {
            Some(one) => {
                let (subcommand, rest) = args
                    .split_first()
                    .map_or((None, args), |(s, r)| (Some(s), r));
                let manifest = one.through_link(self.workspace_dir).join("Cargo.toml");
                command
                    .args(subcommand)
                    .arg("--manifest-path")
                    .arg(manifest)
                    .args(rest.iter().map(|arg| one.arg_through_link(arg)));
            }
            None => {
                command.args(args);
            }
        }
        command
            .current_dir(self.workspace_dir)
            .env("CARGO_TARGET_DIR", self.shared_target_dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if self.separate_build_dir {
            // A configured `build.build-dir` would keep dependencies per worktree path; keep
            // everything in the shared directory so they compile once and `release/deps` is real.
            command.env("CARGO_BUILD_BUILD_DIR", self.shared_target_dir);
        }
        // The same source builds the same code in either checkout, at any version.
        let root = through.map_or(checkout.root.as_path(), |one| one.link.as_path());
        super::normalize::apply(&mut command, root);
        // Its own process group, so an interrupt stops cargo and its compilers together.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        command
    }

    /// The error of a build that failed, quoting every run's `errors`; with the packages of
    /// their own with bench targets to compare instead when no bench target compiled
    /// (`none_left`).
    pub(super) fn failed(
        &self,
        errors: &[String],
        failed: &[FailedTarget],
        none_left: bool,
    ) -> BuildError {
        let hint = match none_left {
            true => all_benches_failed_hint(failed, &bench_packages_elsewhere(self.workspace_dir)),
            false => None,
        };
        BuildError::Failed {
            revision: self.label.to_string(),
            diagnostics: errors.join("\n\n"),
            hint,
        }
    }
}

/// The link a cargo build in `workspace_dir` goes through, when builds are normalised and the
/// workspace lies below its checkout's root ([`OnePath::for_workspace`]).
pub(crate) fn one_path_of(workspace_dir: &Path) -> Option<OnePath> {
    let checkout = super::freshness::Checkout::containing(workspace_dir);
    let workspace = std::path::absolute(workspace_dir).ok()?;
    super::normalize::enabled()
        .then(|| OnePath::for_workspace(&checkout.root, &workspace))
        .flatten()
}

/// Runs cargo, feeding both output streams to the collector and `on_event` on this thread; what
/// cargo says through the link of `one_path` is read as the checkout's ([`OnePath::to_slot`]).
pub(crate) fn run_cargo(
    mut command: Command,
    dir: &Path,
    one_path: Option<&OnePath>,
    on_event: &mut dyn FnMut(BuildEvent),
) -> Result<(ParsedBuild, Vec<String>, std::process::ExitStatus), BuildError> {
    let mut child = command.spawn().map_err(|source| BuildError::Spawn {
        command: "cargo bench --no-run".to_string(),
        dir: dir.to_path_buf(),
        source,
    })?;
    let (sender, receiver) = mpsc::channel();
    let stdout = child.stdout.take().map(|out| {
        let sender = sender.clone();
        std::thread::spawn(move || forward_lines(out, |line| sender.send(CargoLine::Stdout(line))))
    });
    let stderr = child.stderr.take().map(|err| {
        let sender = sender.clone();
        std::thread::spawn(move || {
            forward_lines(err, |line| {
                sender.send(CargoLine::Stderr(
                    String::from_utf8_lossy(&line).trim_end().to_string(),
                ))
            })
        })
    });
    drop(sender);
    let cargo_done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watcher = stop_cargo_on_interrupt(child.id(), cargo_done.clone());
    let mut collector = MessageCollector::default();
    let mut stderr_tail = VecDeque::new();
    for mut line in receiver {
        if let (Some(one), CargoLine::Stdout(bytes)) = (one_path, &mut line) {
            one.to_slot(bytes);
        }
        if let (Some(one), CargoLine::Stderr(text)) = (one_path, &mut line) {
            let mut bytes = std::mem::take(text).into_bytes();
            one.to_slot(&mut bytes);
            *text = String::from_utf8_lossy(&bytes).into_owned();
        }
        match line {
            CargoLine::Stdout(line) => match collector.observe_line(&line) {
                Observed::Diagnostic(index) => on_event(BuildEvent::Message(
                    &collector.parsed.diagnostics[index].rendered,
                )),
                Observed::Finished => on_event(BuildEvent::Finished),
                Observed::Nothing => {}
            },
            CargoLine::Stderr(line) => {
                if let Some(name) = compiling_crate(&line) {
                    on_event(BuildEvent::Compiling(name));
                } else if !is_progress_line(&line) {
                    stderr_tail.push_back(line);
                    if stderr_tail.len() > STDERR_TAIL_LINES {
                        stderr_tail.pop_front();
                    }
                }
            }
        }
    }
    for reader in [stdout, stderr].into_iter().flatten() {
        let _ = reader.join();
    }
    // Before the wait reaps cargo, so the watcher never signals a recycled pid.
    cargo_done.store(true, std::sync::atomic::Ordering::SeqCst);
    let _ = watcher.join();
    let status = child.wait().map_err(|source| BuildError::Spawn {
        command: "cargo bench --no-run".to_string(),
        dir: dir.to_path_buf(),
        source,
    })?;
    Ok((collector.parsed, stderr_tail.into(), status))
}

/// Passes a Ctrl-C/SIGTERM of cargo-perfdiff on to cargo's process group (SIGINT: cargo and its
/// compilers stop), so an interrupt does not wait for the build. Cargo runs in a process group of
/// its own, which neither a terminal's Ctrl-C nor a SIGTERM to cargo-perfdiff reaches.
pub(super) fn stop_cargo_on_interrupt(
    pid: u32,
    done: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        while !done.load(std::sync::atomic::Ordering::SeqCst) {
            if crate::util::interrupt::interrupted() {
                #[cfg(unix)]
                // SAFETY: kill(2) on our own child's group, not yet reaped (see `run_cargo`).
                unsafe {
                    libc::kill(-(pid as libc::pid_t), libc::SIGINT);
                }
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    })
}

/// Sends every line (without its newline) of `stream` until it ends or the receiver is gone.
pub(super) fn forward_lines<E>(stream: impl Read, mut send: impl FnMut(Vec<u8>) -> Result<(), E>) {
    let mut reader = BufReader::new(stream);
    loop {
        let mut line = Vec::new();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {
                while line.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
                    line.pop();
                }
                if send(line).is_err() {
                    return;
                }
            }
        }
    }
}

/// `   Compiling serde v1.0.1 (…)` -> `serde`.
pub(super) fn compiling_crate(line: &str) -> Option<&str> {
    line.trim_start()
        .strip_prefix("Compiling ")?
        .split_whitespace()
        .next()
}

/// Cargo status lines that say nothing about a failure.
pub(super) fn is_progress_line(line: &str) -> bool {
    const PROGRESS: [&str; 8] = [
        "Compiling ",
        "Checking ",
        "Downloading ",
        "Downloaded ",
        "Updating ",
        "Locking ",
        "Blocking waiting for file lock",
        "warning: build failed, waiting for other jobs to finish",
    ];
    let line = line.trim_start();
    line.is_empty() || PROGRESS.iter().any(|p| line.starts_with(p))
}

/// The error text of a failed build: rustc's errors, then the end of cargo's stderr.
pub(super) fn failure_text(
    parsed: &ParsedBuild,
    stderr_tail: &[String],
    status: std::process::ExitStatus,
) -> String {
    let mut text = parsed.errors();
    let tail = stderr_tail.join("\n");
    if !tail.trim().is_empty() {
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        text.push_str(&tail);
    }
    if text.trim().is_empty() {
        text = format!("cargo bench --no-run exited with {status} and printed no error");
    }
    text
}
/// A rendered rustc diagnostic as one line: its first line and where it points
/// (`error[E0425]: cannot find value `x` in this scope (at benches/b.rs:3:9)`), leaving out the
/// source snippet and the notes and help that follow, but for one: the feature that would
/// have compiled an item the code names ("the item is gated behind the `env-filter` feature",
/// rustc's label under "found an item that was configured out"), the one thing a user can act
/// on when a bench target uses its package's item without `required-features` (tracing-subscriber's
/// `filter` bench and `EnvFilter`).
pub(super) fn diagnostic_headline(rendered: &str) -> String {
    let mut lines = rendered.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.next().unwrap_or_default().to_string();
    // rustc puts the primary location right under the headline; a later `-->` is a note's.
    let headline = match lines
        .next()
        .and_then(|l| l.strip_prefix("-->"))
        .map(str::trim)
    {
        Some(location) => format!("{first} (at {location})"),
        None => first,
    };
    match feature_gate(rendered) {
        Some(gate) => format!("{headline}; {gate}"),
        None => headline,
    }
}

/// rustc's "the item is gated behind the `X` feature" (a label of a configured-out item's note),
/// to the end of its line.
fn feature_gate(rendered: &str) -> Option<&str> {
    const GATE: &str = "the item is gated behind ";
    rendered
        .lines()
        .find_map(|line| line.find(GATE).map(|at| line[at..].trim_end()))
}
