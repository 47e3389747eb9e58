//! Discovery: which bench targets are criterion benchmarks, and which benchmark ids each contains.
//!
//! Why it works this way:
//! - Classification reads the executable's bytes and never runs it: a bench target that is not a
//!   criterion benchmark may be anything (a plain `main` that deletes files, a divan binary that
//!   benchmarks for minutes), so only binaries known to speak criterion's command line are run.
//!   Every criterion binary contains the string `CARGO_CRITERION_PORT` (criterion reads it on start
//!   to find cargo-criterion); every divan binary contains `DIVAN_SAMPLE_COUNT` (the environment
//!   name of its `--sample-count` option).
//! - Listing uses `--bench --list --format terse`, which recent criterion (0.5, 0.7 and 0.8 are
//!   tested) answers with exactly one `<id>: benchmark` line per benchmark and nothing else on
//!   stdout. Criterion 0.3 and 0.4 reject `--format`; their plain `--list` prints `<id>: bench`
//!   lines (among warnings), and their forks are then told their benchmark by an anchored regex
//!   ([`CliDialect`]), since they have no `--exact` either.
//! - Benchmarks are matched across revisions by criterion id, not by target, so a bench target that
//!   was renamed or split still compares its benchmarks.
//! - Every executable is listed twice: an id made of the time or a random value (chrono names two
//!   benchmarks after `Utc::now()`) differs in every process, so no fork could select it and the
//!   revisions would each seem to have benchmarks the other lacks. [`split_unstable`] sets such
//!   ids apart, to be reported as skipped.
//! - The same id in two bench targets of one revision is an error ([`check_unique_ids`],
//!   [`match_benchmarks_checked`]): criterion itself keeps results per id (`target/criterion/<id>`),
//!   so such ids already collide for the user, and silently picking one would compare the wrong
//!   code. [`match_benchmarks`] alone cannot fail; for a duplicate it keeps the first target in the
//!   order given and ignores the others.

use std::collections::HashMap;
use std::ffi::OsString;
use std::fs::File;
use std::io::Read;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use regex::Regex;

use crate::build::BenchExecutable;
use crate::fork::CliDialect;
use crate::samples::Presence;
use crate::schedule::Side;

/// The string every criterion benchmark binary contains.
const CRITERION_MARKER: &str = "CARGO_CRITERION_PORT";
/// The string every divan benchmark binary contains.
const DIVAN_MARKER: &str = "DIVAN_SAMPLE_COUNT";
/// Bytes read at a time when scanning an executable.
const SCAN_CHUNK: usize = 1 << 20;
/// How many lines of a failing listing's stderr an error quotes.
const STDERR_TAIL_LINES: usize = 20;

/// Errors classifying or listing benchmarks.
#[derive(Debug, thiserror::Error)]
pub enum DiscoverError {
    #[error(
        "cannot list the benchmarks of {executable}: {message}{}",
        stderr_suffix(stderr_tail)
    )]
    List {
        executable: String,
        message: String,
        /// The last lines the executable wrote to stderr (empty if none).
        stderr_tail: String,
    },
    /// A listing killed for outlasting its timeout: slow set-up code, not a missing file.
    #[error(
        "cannot list the benchmarks of {executable}: {message}{}",
        stderr_suffix(stderr_tail)
    )]
    ListTimedOut {
        executable: String,
        message: String,
        stderr_tail: String,
    },
    #[error("cannot read the bench executable {} (target {target}): {source}", path.display())]
    Read {
        path: PathBuf,
        target: String,
        source: std::io::Error,
    },
    #[error(
        "benchmark id {id:?} of {revision} is defined by bench targets {first:?} and {second:?}; \
         criterion keeps results per id, so rename one of them or select one target with --bench"
    )]
    DuplicateId {
        revision: String,
        id: String,
        first: String,
        second: String,
    },
}

/// What kind of benchmark harness a bench executable uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Harness {
    /// A criterion benchmark: it can be listed and measured.
    Criterion,
    /// Anything else; it is not run, and `reason` says why.
    Skipped { reason: String },
}

/// Decides whether `exe` is a criterion benchmark, without running it.
pub fn classify(exe: &BenchExecutable) -> Result<Harness, DiscoverError> {
    if exe.harness {
        return Ok(skipped(format!(
            "libtest #[bench] is not supported yet (bench target {:?} uses the default harness; \
             criterion benchmarks need `harness = false`)",
            exe.target
        )));
    }
    let found = scan_for_markers(&exe.path).map_err(|source| DiscoverError::Read {
        path: exe.path.clone(),
        target: exe.target.clone(),
        source,
    })?;
    Ok(if found.criterion {
        Harness::Criterion
    } else if found.divan {
        skipped(format!(
            "divan benchmarks are not supported yet (bench target {:?})",
            exe.target
        ))
    } else {
        skipped(format!(
            "plain binary, not a criterion benchmark (bench target {:?})",
            exe.target
        ))
    })
}

fn skipped(reason: String) -> Harness {
    Harness::Skipped { reason }
}

/// Which markers a file contains.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Markers {
    criterion: bool,
    divan: bool,
}

/// Scans a file chunk by chunk (memory stays bounded for large binaries) for the markers; chunks
/// overlap by one marker length so a marker across a chunk boundary is found. Stops at the
/// criterion marker, which decides the classification.
fn scan_for_markers(path: &std::path::Path) -> std::io::Result<Markers> {
    let mut file = File::open(path)?;
    let overlap = CRITERION_MARKER.len().max(DIVAN_MARKER.len()) - 1;
    let mut buffer = vec![0u8; SCAN_CHUNK + overlap];
    let mut kept = 0;
    let mut found = Markers::default();
    // A literal alternation is searched with memchr/aho-corasick acceleration.
    let markers = regex::bytes::Regex::new(&format!("{CRITERION_MARKER}|{DIVAN_MARKER}"))
        .expect("two literal identifiers form a valid regex");
    loop {
        let read = read_full(&mut file, &mut buffer[kept..])?;
        let filled = kept + read;
        for marker in markers.find_iter(&buffer[..filled]) {
            if marker.as_bytes() == CRITERION_MARKER.as_bytes() {
                found.criterion = true;
            } else {
                found.divan = true;
            }
        }
        if found.criterion || read == 0 || filled < buffer.len() {
            return Ok(found);
        }
        kept = overlap.min(filled);
        buffer.copy_within(filled - kept..filled, 0);
    }
}

/// Reads until `buffer` is full or the file ends; returns the bytes read.
fn read_full(file: &mut File, buffer: &mut [u8]) -> std::io::Result<usize> {
    let mut total = 0;
    while total < buffer.len() {
        match file.read(&mut buffer[total..]) {
            Ok(0) => break,
            Ok(n) => total += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(total)
}

/// The benchmarks of one bench executable, and how to select one of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listing {
    pub ids: Vec<String>,
    pub dialect: CliDialect,
}

/// Lists the criterion benchmark ids of `exe` by running `<exe> --bench --list --format terse` in
/// its package root with `env`, killing it after `timeout`.
///
/// Criterion 0.3 and 0.4 know neither `--format terse` nor `--exact`: when the terse listing is
/// rejected for its `--format`, `--bench --list` is tried, whose `<id>: bench` lines mark such an
/// executable, and its forks will select their benchmark with an anchored regex instead. That
/// listing is first asked with a fractional `--measurement-time`, which 0.4 takes and 0.3 exits
/// on, so that only 0.3's forks are rounded up to whole seconds (a 0.4 suite's forks took three
/// times as long that way). If the listing fails both ways, the terse listing's error is the one
/// reported.
pub fn list_benchmarks(
    exe: &BenchExecutable,
    env: &[(OsString, OsString)],
    timeout: Duration,
) -> Result<Listing, DiscoverError> {
    let terse = run_listing(
        exe,
        env,
        timeout,
        &["--bench", "--list", "--format", "terse"],
    );
    match terse {
        Ok(stdout) => Ok(Listing {
            ids: parse_list(&stdout),
            dialect: CliDialect::Current,
        }),
        // Only an executable whose argument parser rejected `'--format'` (clap quotes it so) is
        // asked again: a hang or a panic would just repeat.
        Err(terse_error) if terse_error.to_string().contains("'--format'") => {
            let legacy = |extra: &[&str]| {
                let args: Vec<&str> = ["--bench", "--list"].iter().chain(extra).copied().collect();
                run_listing(exe, env, timeout, &args)
                    .map(|stdout| parse_legacy_list(&stdout))
                    .unwrap_or_default()
            };
            let fractional = legacy(&["--measurement-time", "0.5"]);
            let (ids, dialect) = if fractional.is_empty() {
                (legacy(&[]), CliDialect::Criterion03)
            } else {
                (fractional, CliDialect::Criterion04)
            };
            if ids.is_empty() {
                return Err(terse_error);
            }
            Ok(Listing { ids, dialect })
        }
        Err(terse_error) => Err(terse_error),
    }
}

/// Splits the ids of one listing into those a second listing of the same executable gave again
/// (in the first listing's order) and, for the others, what they share with the most alike id
/// of the second listing up to its last `/`, followed by `…` (`delayed_format/with_display/…`
/// for an id ending in the time): ids that change from one process to the next cannot be
/// selected by a fork, and this names them the same way whichever listing they came from.
pub fn split_unstable(first: Vec<String>, second: &[String]) -> (Vec<String>, Vec<String>) {
    let again: std::collections::HashSet<&str> = second.iter().map(String::as_str).collect();
    let (stable, unstable): (Vec<String>, Vec<String>) = first
        .into_iter()
        .partition(|id| again.contains(id.as_str()));
    let mut patterns: Vec<String> = unstable
        .iter()
        .map(|id| {
            let shared = second
                .iter()
                .map(|other| common_prefix(id, other))
                .max_by_key(|prefix| prefix.len())
                .unwrap_or("");
            let kept = shared.rfind('/').map_or("", |slash| &shared[..=slash]);
            format!("{kept}…")
        })
        .collect();
    patterns.sort();
    patterns.dedup();
    (stable, patterns)
}

/// The longest common prefix of `a` and `b`, on character boundaries.
fn common_prefix<'a>(a: &'a str, b: &str) -> &'a str {
    let end = a
        .char_indices()
        .zip(b.chars())
        .find(|((_, x), y)| x != y)
        .map_or_else(|| a.len().min(b.len()), |((i, _), _)| i);
    &a[..end]
}

/// Runs `exe` with the listing `args` and returns its stdout.
fn run_listing(
    exe: &BenchExecutable,
    env: &[(OsString, OsString)],
    timeout: Duration,
    args: &[&str],
) -> Result<String, DiscoverError> {
    let executable = format!("bench target {:?} ({})", exe.target, exe.path.display());
    let fail_with = |message: String, stderr: &str| DiscoverError::List {
        executable: executable.clone(),
        message,
        stderr_tail: stderr_tail(stderr),
    };
    let fail = |message: String| fail_with(message, "");
    let mut command = Command::new(&exe.path);
    // Its own process group, so a timeout kills whatever it started too (an orphan holding the
    // output pipes open would otherwise keep this function waiting).
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    command
        .args(args)
        .current_dir(&exe.package_root)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .env_remove("CARGO_CRITERION_PORT")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = crate::fork::spawn::spawn_when_not_busy(&mut command)
        .map_err(|e| fail(format!("cannot start it: {e}")))?;
    let stdout = read_in_background(child.stdout.take());
    let stderr = read_in_background(child.stderr.take());
    let status = wait_with_timeout(&mut child, timeout)
        .map_err(|e| fail(format!("cannot wait for it: {e}")))?;
    let stdout = join_text(stdout);
    let stderr = join_text(stderr);
    match status {
        None => Err(DiscoverError::ListTimedOut {
            executable,
            message: format!("no answer within {timeout:.0?} (--fork-timeout), killed"),
            stderr_tail: stderr_tail(&stderr),
        }),
        Some(status) if !status.success() => Err(fail_with(
            format!("`{}` exited with {status}", args.join(" ")),
            &stderr,
        )),
        Some(_) => Ok(stdout),
    }
}

/// Ids from criterion's terse listing: every line ending in `: benchmark`, with that suffix cut.
/// Ids may contain spaces, colons, slashes and any unicode, so nothing else is touched.
pub fn parse_list(stdout: &str) -> Vec<String> {
    ids_with_suffix(stdout, ": benchmark")
}

/// Ids from criterion 0.3's `--list`: every line ending in `: bench` (its stdout also carries
/// warnings, which never end that way).
pub fn parse_legacy_list(stdout: &str) -> Vec<String> {
    ids_with_suffix(stdout, ": bench")
}

fn ids_with_suffix(stdout: &str, suffix: &str) -> Vec<String> {
    stdout
        .lines()
        .map(|line| line.strip_suffix('\r').unwrap_or(line))
        .filter_map(|line| line.strip_suffix(suffix))
        .map(str::to_string)
        .collect()
}

fn read_in_background<R: Read + Send + 'static>(stream: Option<R>) -> Option<JoinHandle<Vec<u8>>> {
    stream.map(|mut stream| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = stream.read_to_end(&mut bytes);
            bytes
        })
    })
}

fn join_text(handle: Option<JoinHandle<Vec<u8>>>) -> String {
    handle
        .and_then(|h| h.join().ok())
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        .unwrap_or_default()
}

/// Waits for `child`; `None` when it was killed at the deadline.
fn wait_with_timeout(child: &mut Child, timeout: Duration) -> std::io::Result<Option<ExitStatus>> {
    let deadline = Instant::now() + timeout;
    let mut pause = Duration::from_millis(1);
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        let now = Instant::now();
        if now >= deadline {
            kill_process_group(child);
            child.wait()?;
            return Ok(None);
        }
        std::thread::sleep(pause.min(deadline - now));
        pause = (pause * 2).min(Duration::from_millis(50));
    }
}

/// Kills `child` and, on Unix, every process of its group (it was made a group leader).
fn kill_process_group(child: &mut Child) {
    #[cfg(unix)]
    if let Ok(pid) = libc::pid_t::try_from(child.id()) {
        // SAFETY: kill(2) with a negative pid signals the process group; no memory is involved.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
    let _ = child.kill();
}

/// The last [`STDERR_TAIL_LINES`] non-blank lines of `stderr`.
fn stderr_tail(stderr: &str) -> String {
    let all: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    all[all.len().saturating_sub(STDERR_TAIL_LINES)..].join("\n")
}

fn stderr_suffix(tail: &str) -> String {
    if tail.is_empty() {
        String::new()
    } else {
        format!("; stderr:\n{tail}")
    }
}

/// The user's FILTER arguments, as criterion takes them: each is a regex (a pattern that is not a
/// valid regex matches as a plain substring); an id matches if any filter matches; no filters
/// match everything.
#[derive(Debug, Clone)]
pub struct Filter {
    patterns: Vec<Pattern>,
}

#[derive(Debug, Clone)]
enum Pattern {
    Regex(Regex),
    Substring(String),
}

impl Filter {
    pub fn new(patterns: &[String]) -> Self {
        let patterns = patterns
            .iter()
            .map(|p| match Regex::new(p) {
                Ok(regex) => Pattern::Regex(regex),
                Err(_) => Pattern::Substring(p.clone()),
            })
            .collect();
        Filter { patterns }
    }

    pub fn matches(&self, id: &str) -> bool {
        self.patterns.is_empty()
            || self.patterns.iter().any(|p| match p {
                Pattern::Regex(regex) => regex.is_match(id),
                Pattern::Substring(text) => id.contains(text.as_str()),
            })
    }
}

/// One benchmark id and where it exists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Matched {
    /// The criterion id, exactly as the executable listed it (pass it to the executable as is).
    pub id: String,
    /// The bench target that has it in base, if any.
    pub base_target: Option<String>,
    /// The bench target that has it in head, if any.
    pub head_target: Option<String>,
    pub presence: Presence,
}

/// Matches benchmarks across revisions by criterion id. Ids on one side only get
/// `OnlyInBase`/`OnlyInHead` and are kept.
///
/// Order: base's ids in the order given (targets as given, ids as listed), with each head-only id
/// placed right after the id that precedes it in head, so a new benchmark appears next to its
/// neighbours. Deterministic for a given input. An id repeated within one side keeps its first
/// target (see [`check_unique_ids`] to refuse that instead).
pub fn match_benchmarks(
    base: &[(String, Vec<String>)],
    head: &[(String, Vec<String>)],
) -> Vec<Matched> {
    let base_targets = first_target_by_id(base);
    let head_targets = first_target_by_id(head);
    let mut order: Vec<&str> = Vec::new();
    for (_, ids) in base {
        for id in ids {
            if !order.contains(&id.as_str()) {
                order.push(id);
            }
        }
    }
    let mut cursor = 0;
    for (_, ids) in head {
        for id in ids {
            match order.iter().position(|known| known == id) {
                Some(index) => cursor = index + 1,
                None => {
                    order.insert(cursor, id);
                    cursor += 1;
                }
            }
        }
    }
    order
        .into_iter()
        .map(|id| {
            let base_target = base_targets.get(id).map(|t| t.to_string());
            let head_target = head_targets.get(id).map(|t| t.to_string());
            let presence = match (&base_target, &head_target) {
                (Some(_), Some(_)) => Presence::Both,
                (Some(_), None) => Presence::OnlyInBase,
                _ => Presence::OnlyInHead,
            };
            Matched {
                id: id.to_string(),
                base_target,
                head_target,
                presence,
            }
        })
        .collect()
}

fn first_target_by_id(side: &[(String, Vec<String>)]) -> HashMap<&str, &str> {
    let mut targets = HashMap::new();
    for (target, ids) in side {
        for id in ids {
            targets.entry(id.as_str()).or_insert(target.as_str());
        }
    }
    targets
}

/// Refuses an id that two bench targets of one revision (`revision` names it) both define.
pub fn check_unique_ids(
    revision: &str,
    side: &[(String, Vec<String>)],
) -> Result<(), DiscoverError> {
    let mut seen: HashMap<&str, &str> = HashMap::new();
    for (target, ids) in side {
        for id in ids {
            match seen.get(id.as_str()) {
                Some(first) if *first != target.as_str() => {
                    return Err(DiscoverError::DuplicateId {
                        revision: revision.to_string(),
                        id: id.clone(),
                        first: first.to_string(),
                        second: target.clone(),
                    });
                }
                _ => {
                    seen.insert(id, target);
                }
            }
        }
    }
    Ok(())
}

/// [`check_unique_ids`] on both sides, then [`match_benchmarks`].
pub fn match_benchmarks_checked(
    base_label: &str,
    base: &[(String, Vec<String>)],
    head_label: &str,
    head: &[(String, Vec<String>)],
) -> Result<Vec<Matched>, DiscoverError> {
    check_unique_ids(base_label, base)?;
    check_unique_ids(head_label, head)?;
    Ok(match_benchmarks(base, head))
}

/// A bench target of one revision whose benchmarks could not be listed: the executable panicked,
/// exited non-zero or hung while criterion called the benchmark functions to learn their ids
/// (set-up code outside `b.iter` runs then, e.g. reading a data file).
#[derive(Debug)]
pub struct FailedListing {
    pub target: String,
    /// A [`DiscoverError::List`] or [`DiscoverError::ListTimedOut`].
    pub error: DiscoverError,
}

impl FailedListing {
    /// What went wrong, without the stderr tail.
    pub fn message(&self) -> String {
        match &self.error {
            DiscoverError::List { message, .. } | DiscoverError::ListTimedOut { message, .. } => {
                message.clone()
            }
            other => other.to_string(),
        }
    }

    /// The last lines the executable wrote to stderr.
    pub fn stderr_tail(&self) -> &str {
        match &self.error {
            DiscoverError::List { stderr_tail, .. }
            | DiscoverError::ListTimedOut { stderr_tail, .. } => stderr_tail,
            _ => "",
        }
    }

    /// Whether the listing was killed for outlasting its timeout.
    pub fn timed_out(&self) -> bool {
        matches!(self.error, DiscoverError::ListTimedOut { .. })
    }

    /// One line of the stderr tail that says most: a panic's message (the line after
    /// `panicked at`), else the last line.
    pub fn headline(&self) -> Option<String> {
        let lines: Vec<&str> = self.stderr_tail().lines().collect();
        let panic = lines.iter().position(|l| l.contains("panicked at"));
        match panic {
            Some(at) => Some(lines[at..(at + 2).min(lines.len())].join(" ")),
            None => lines.last().map(|l| l.to_string()),
        }
    }
}

/// Bench targets with the benchmark ids each lists, in order.
pub type TargetLists = Vec<(String, Vec<String>)>;

/// One revision's discovery: the ids of every criterion target that listed, and the targets
/// that failed to.
#[derive(Debug, Default)]
pub struct SideListings {
    pub lists: TargetLists,
    pub failed: Vec<FailedListing>,
}

/// Both revisions' discovery once the failed listings are settled: see [`settle_failed_listings`].
#[derive(Debug, Default)]
pub struct Settled {
    pub base: TargetLists,
    pub head: TargetLists,
    /// Targets whose benchmarks the other revision listed: those benchmarks are compared as
    /// present in both and reported `failed` on this side.
    pub failed_on_one_side: Vec<(Side, FailedListing)>,
    /// Targets whose benchmarks no revision could list, with the side(s) where the listing
    /// failed (`None`: both).
    pub unlisted: Vec<(Option<Side>, FailedListing)>,
}

/// Settles the bench targets whose listing failed, so that one broken target does not stop the
/// comparison of the rest (a set-up panic in head is a result to report, not a reason to compare
/// nothing): a target that failed on one side and listed on the other takes the other side's
/// ids on the failing side too, so its benchmarks are matched and then reported `failed` there;
/// a target listed by neither side is set apart in [`Settled::unlisted`].
pub fn settle_failed_listings(base: SideListings, head: SideListings) -> Settled {
    let names = |failed: &[FailedListing]| -> Vec<String> {
        failed.iter().map(|f| f.target.clone()).collect()
    };
    let (base_failed, head_failed) = (names(&base.failed), names(&head.failed));
    let mut settled = Settled {
        base: base.lists,
        head: head.lists,
        ..Settled::default()
    };
    let sides = [
        (Side::Base, base.failed, &head_failed),
        (Side::Head, head.failed, &base_failed),
    ];
    for (side, failures, failed_on_other_side) in sides {
        for failure in failures {
            let in_both = failed_on_other_side.contains(&failure.target);
            if in_both && side == Side::Head {
                continue; // set apart once, with base's failure
            }
            let (own, other) = match side {
                Side::Base => (&mut settled.base, &settled.head),
                Side::Head => (&mut settled.head, &settled.base),
            };
            let listed = other.iter().find(|(t, _)| *t == failure.target);
            match listed.map(|(_, ids)| ids.clone()) {
                Some(ids) => {
                    own.push((failure.target.clone(), ids));
                    settled.failed_on_one_side.push((side, failure));
                }
                None => settled.unlisted.push(((!in_both).then_some(side), failure)),
            }
        }
    }
    settled
}

#[cfg(test)]
mod unstable_tests {
    use super::split_unstable;

    fn ids(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn ids_a_second_listing_does_not_give_again_are_set_apart_by_their_stable_part() {
        let first = ids(&[
            "bench_datetime_with",
            "delayed_format/with_display/2026-11-24 03:38:14.310156125 +00:00",
            "delayed_format/with_string_buffer/2026-11-24 03:38:14.310156125 +00:00",
            "sort/ünïcödé",
        ]);
        let second = ids(&[
            "delayed_format/with_display/2026-11-24 03:38:14.391700699 +00:00",
            "delayed_format/with_string_buffer/2026-11-24 03:38:14.391700699 +00:00",
            "sort/ünïcödé",
            "bench_datetime_with",
        ]);
        let (stable, unstable) = split_unstable(first, &second);
        assert_eq!(stable, ["bench_datetime_with", "sort/ünïcödé"]);
        assert_eq!(
            unstable,
            [
                "delayed_format/with_display/…",
                "delayed_format/with_string_buffer/…"
            ]
        );
    }

    #[test]
    fn an_id_without_a_stable_group_is_named_by_the_ellipsis_alone() {
        let (stable, unstable) = split_unstable(ids(&["0.8231"]), &ids(&["0.1174"]));
        assert!(stable.is_empty());
        assert_eq!(unstable, ["…"]);
        let (stable, unstable) = split_unstable(ids(&["a", "b"]), &ids(&["b", "a"]));
        assert_eq!(stable, ["a", "b"]);
        assert!(unstable.is_empty());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn executable(path: &Path, harness: bool) -> BenchExecutable {
        BenchExecutable {
            package: "p".into(),
            target: "t".into(),
            path: path.to_path_buf(),
            package_root: path.parent().unwrap().to_path_buf(),
            manifest_path: path.parent().unwrap().join("Cargo.toml"),
            harness,
            package_version: "0.1.0".into(),
            cargo_env: Vec::new(),
            native_library_dirs: Vec::new(),
        }
    }

    fn side(targets: &[(&str, &[&str])]) -> Vec<(String, Vec<String>)> {
        targets
            .iter()
            .map(|(t, ids)| (t.to_string(), ids.iter().map(|i| i.to_string()).collect()))
            .collect()
    }

    /// A file of `len` filler bytes with `marker` written at `at`.
    fn file_with(dir: &Path, name: &str, len: usize, marker: &str, at: usize) -> PathBuf {
        let mut bytes = vec![b'x'; len];
        bytes[at..at + marker.len()].copy_from_slice(marker.as_bytes());
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    #[test]
    fn markers_are_found_anywhere_including_across_chunk_boundaries() {
        let dir = tempfile::tempdir().unwrap();
        let len = 2 * SCAN_CHUNK + 100;
        for at in [
            0,
            SCAN_CHUNK - 5,
            SCAN_CHUNK + 3,
            2 * SCAN_CHUNK - 10,
            len - CRITERION_MARKER.len(),
        ] {
            let path = file_with(dir.path(), "c", len, CRITERION_MARKER, at);
            assert!(
                scan_for_markers(&path).unwrap().criterion,
                "criterion marker at {at}"
            );
            let path = file_with(dir.path(), "d", len, DIVAN_MARKER, at);
            let found = scan_for_markers(&path).unwrap();
            assert!(found.divan && !found.criterion, "divan marker at {at}");
        }
        let path = file_with(
            dir.path(),
            "none",
            len,
            "CARGO_CRITERION_POR",
            SCAN_CHUNK - 3,
        );
        assert_eq!(scan_for_markers(&path).unwrap(), Markers::default());
    }

    #[test]
    fn classification_follows_the_markers() {
        let dir = tempfile::tempdir().unwrap();
        let criterion = file_with(dir.path(), "c", 4096, CRITERION_MARKER, 100);
        assert_eq!(
            classify(&executable(&criterion, false)).unwrap(),
            Harness::Criterion
        );
        let divan = file_with(dir.path(), "d", 4096, DIVAN_MARKER, 100);
        let Harness::Skipped { reason } = classify(&executable(&divan, false)).unwrap() else {
            panic!("divan classified as criterion")
        };
        assert!(reason.contains("divan"), "{reason}");
        let plain = file_with(dir.path(), "p", 4096, "main", 100);
        let Harness::Skipped { reason } = classify(&executable(&plain, false)).unwrap() else {
            panic!("plain classified as criterion")
        };
        assert!(reason.contains("plain binary"), "{reason}");
    }

    #[test]
    fn libtest_targets_are_skipped_without_reading_the_file() {
        let missing = Path::new("/nonexistent/dir/bench-123");
        let Harness::Skipped { reason } = classify(&executable(missing, true)).unwrap() else {
            panic!("libtest classified as criterion")
        };
        assert!(
            reason.contains("libtest #[bench] is not supported yet"),
            "{reason}"
        );
    }

    #[test]
    fn an_unreadable_executable_names_path_and_target() {
        let missing = Path::new("/nonexistent/dir/bench-123");
        let err = classify(&executable(missing, false))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("/nonexistent/dir/bench-123") && err.contains("target t"),
            "{err}"
        );
    }

    #[test]
    fn terse_listing_keeps_ids_verbatim() {
        let out = "hash/mix: benchmark\nodd id: with colons/and spaces: benchmark\n\
                   größe/λ/10: benchmark\r\nGnuplot not found\n\nnot a: benchmark line\n";
        assert_eq!(
            parse_list(out),
            ["hash/mix", "odd id: with colons/and spaces", "größe/λ/10"]
        );
    }

    #[test]
    fn criterion_0_3_listing_keeps_ids_and_skips_its_warnings() {
        let out = "WARNING: HTML report generation will become a non-default optional feature.\n\
                   Gnuplot not found, using plotters backend\n\
                   extend 4 bytes/extend: bench\n\
                   alloc-try-with/small, small: bench\r\n\
                   format-realloc/format-realloc/10: bench\n";
        assert_eq!(
            parse_legacy_list(out),
            [
                "extend 4 bytes/extend",
                "alloc-try-with/small, small",
                "format-realloc/format-realloc/10"
            ]
        );
        assert!(parse_list(out).is_empty(), "not a terse listing");
    }

    #[test]
    fn filters_are_regexes_with_substring_fallback() {
        let filter = Filter::new(&["^hash/m".to_string(), "([unclosed".to_string()]);
        assert!(filter.matches("hash/mix"));
        assert!(!filter.matches("hash/checksum"));
        assert!(filter.matches("x/([unclosed/y"));
        assert!(Filter::new(&[]).matches("anything"));
    }

    #[test]
    fn benchmarks_match_by_id_across_renamed_targets() {
        let base = side(&[("old_name", &["g/a", "g/b", "g/gone"])]);
        let head = side(&[("new_name", &["g/new_first", "g/a", "g/added", "g/b"])]);
        let matched = match_benchmarks(&base, &head);
        let ids: Vec<&str> = matched.iter().map(|m| m.id.as_str()).collect();
        assert_eq!(ids, ["g/new_first", "g/a", "g/added", "g/b", "g/gone"]);
        let by_id: HashMap<&str, &Matched> = matched.iter().map(|m| (m.id.as_str(), m)).collect();
        assert_eq!(by_id["g/a"].presence, Presence::Both);
        assert_eq!(by_id["g/a"].base_target.as_deref(), Some("old_name"));
        assert_eq!(by_id["g/a"].head_target.as_deref(), Some("new_name"));
        assert_eq!(by_id["g/gone"].presence, Presence::OnlyInBase);
        assert_eq!(by_id["g/gone"].head_target, None);
        assert_eq!(by_id["g/added"].presence, Presence::OnlyInHead);
        assert_eq!(by_id["g/added"].base_target, None);
    }

    #[test]
    fn matching_is_deterministic_and_keeps_one_entry_per_id() {
        let base = side(&[("a", &["x", "y"]), ("b", &["y", "z"])]);
        let head = side(&[("a", &["z", "x"])]);
        let first = match_benchmarks(&base, &head);
        assert_eq!(first, match_benchmarks(&base, &head));
        assert_eq!(first.len(), 3);
        let y = first.iter().find(|m| m.id == "y").unwrap();
        assert_eq!(y.base_target.as_deref(), Some("a"));
    }

    #[test]
    fn an_id_in_two_targets_of_one_side_is_refused_with_both_named() {
        let base = side(&[("a", &["x"])]);
        let head = side(&[("a", &["x", "y"]), ("b", &["y"])]);
        let err = match_benchmarks_checked("base", &base, "head (abc)", &head)
            .unwrap_err()
            .to_string();
        assert!(err.contains("\"y\"") && err.contains("head (abc)"), "{err}");
        assert!(err.contains("\"a\"") && err.contains("\"b\""), "{err}");
        assert!(check_unique_ids("base", &base).is_ok());
    }

    fn failed(target: &str, stderr_tail: &str) -> FailedListing {
        FailedListing {
            target: target.into(),
            error: DiscoverError::List {
                executable: format!("bench target {target:?}"),
                message: "`--bench --list --format terse` exited with exit status: 101".into(),
                stderr_tail: stderr_tail.into(),
            },
        }
    }

    fn listings(lists: &[(&str, &[&str])], failed_targets: &[&str]) -> SideListings {
        SideListings {
            lists: side(lists),
            failed: failed_targets.iter().map(|t| failed(t, "")).collect(),
        }
    }

    #[test]
    fn a_target_failing_on_one_side_takes_the_other_sides_ids_there() {
        let settled = settle_failed_listings(
            listings(&[("speed", &["a", "b"]), ("size", &["s"])], &[]),
            listings(&[("size", &["s", "t"])], &["speed"]),
        );
        assert_eq!(
            settled.base,
            side(&[("speed", &["a", "b"]), ("size", &["s"])])
        );
        assert_eq!(
            settled.head,
            side(&[("size", &["s", "t"]), ("speed", &["a", "b"])])
        );
        let [(Side::Head, failure)] = &settled.failed_on_one_side[..] else {
            panic!("{:?}", settled.failed_on_one_side)
        };
        assert_eq!(failure.target, "speed");
        assert!(settled.unlisted.is_empty());
        // Matched, they are present in both revisions.
        let matched = match_benchmarks(&settled.base, &settled.head);
        assert!(
            matched
                .iter()
                .all(|m| m.id == "t" || m.presence == Presence::Both)
        );

        let settled = settle_failed_listings(
            listings(&[], &["speed"]),
            listings(&[("speed", &["a"])], &[]),
        );
        assert_eq!(settled.base, side(&[("speed", &["a"])]));
        assert!(matches!(settled.failed_on_one_side[..], [(Side::Base, _)]));
    }

    #[test]
    fn a_target_no_side_could_list_is_set_apart_once() {
        let settled = settle_failed_listings(
            listings(&[("ok", &["a"])], &["broken", "old"]),
            listings(&[("ok", &["a"])], &["broken", "new"]),
        );
        assert_eq!(settled.base, side(&[("ok", &["a"])]));
        assert_eq!(settled.head, side(&[("ok", &["a"])]));
        assert!(settled.failed_on_one_side.is_empty());
        let unlisted: Vec<(Option<Side>, &str)> = settled
            .unlisted
            .iter()
            .map(|(side, f)| (*side, f.target.as_str()))
            .collect();
        assert_eq!(
            unlisted,
            [
                (None, "broken"),
                (Some(Side::Base), "old"),
                (Some(Side::Head), "new")
            ]
        );
    }

    #[test]
    fn listings_without_failures_pass_through() {
        let settled = settle_failed_listings(
            listings(&[("speed", &["a"])], &[]),
            listings(&[("speed", &["a", "b"])], &[]),
        );
        assert_eq!(settled.base, side(&[("speed", &["a"])]));
        assert_eq!(settled.head, side(&[("speed", &["a", "b"])]));
        assert!(settled.failed_on_one_side.is_empty() && settled.unlisted.is_empty());
    }

    #[test]
    fn a_failed_listing_is_summed_up_by_its_panic_message_or_last_line() {
        let panic = "thread 'main' (42) panicked at benches/speed.rs:17:65:\n\
                     data.bin must exist: NotFound\nstack backtrace:\n   0: main";
        assert_eq!(
            failed("speed", panic).headline().as_deref(),
            Some(
                "thread 'main' (42) panicked at benches/speed.rs:17:65: data.bin must exist: NotFound"
            )
        );
        assert_eq!(
            failed("speed", "error: no data\nexiting")
                .headline()
                .as_deref(),
            Some("exiting")
        );
        assert_eq!(failed("speed", "").headline(), None);
        let error = failed("speed", "a\nb").error.to_string();
        assert!(
            error.ends_with("exit status: 101; stderr:\na\nb"),
            "{error}"
        );
        assert!(!failed("speed", "").error.to_string().contains("stderr"));
    }
}
