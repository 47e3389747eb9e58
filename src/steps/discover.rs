//! Discovery: which harness each bench target uses, and which benchmark ids each contains.
//!
//! Why it works this way:
//! - Classification reads the executable's bytes and never runs it: a bench target may be
//!   anything (a plain `main` that deletes files), so only binaries known to speak a harness's
//!   command line are run. A target with the default harness is libtest's `#[bench]`. Every
//!   criterion binary contains the string `CARGO_CRITERION_PORT` (criterion reads it on start to
//!   find cargo-criterion; its forks `criterion2` and `codspeed-criterion-compat` keep it); every
//!   divan binary contains `DIVAN_SAMPLE_COUNT` (the environment name of its `--sample-count`
//!   option); every `bencher` binary contains its result line's ` ns/iter (+/- `.
//! - Each harness lists its benchmarks its own way ([`list_benchmarks`]; [`crate::model::harness`]).
//!   Criterion's listing is described below.
//! - Listing uses `--bench --list --format terse`, which recent criterion (0.5, 0.7 and 0.8 are
//!   tested) answers with exactly one `<id>: benchmark` line per benchmark and nothing else on
//!   stdout. Criterion 0.3 and 0.4 reject `--format`; their plain `--list` prints `<id>: bench`
//!   lines (among warnings), and their forks are then told their benchmark by an anchored regex
//!   ([`CliDialect`]), since they have no `--exact` either.
//! - An id with a line break (pulldown-cmark names groups by such strings) spans several lines
//!   of that listing, only its last ending in `: benchmark`, and what a benchmark prints while
//!   listed lands there too: the lines before an id's last are joined to it only when criterion
//!   confirms the join (`--exact` lists it), so a printed line is never part of an id
//!   ([`parse_whole_list`]).
//! - divan before 0.1.18 rejects the terse listing's `--format` as well; its `--list` tree is
//!   read instead. That tree shows a benchmark with `args` without its arguments: they are read
//!   from a run in divan's test mode, each a benchmark of its own (`<path>::<arg>`, as later
//!   divan lists it), and a benchmark whose arguments that run does not show is set apart with
//!   what that run did ([`Listing::unselectable`], [`ArgumentsUnseen`]; [`divan`]). A tree that
//!   cannot be read fails that target's listing only, like any listing failure
//!   ([`settle_failed_listings`]), and names the divan version the executable shows. What a
//!   benchmark prints in that run lands after its argument's name, so each argument is checked
//!   with `--list --exact`, which runs nothing ([`selected_argument`]).
//! - divan (≥ 0.1.18) lists a benchmark run at several thread counts (`threads = [1, 2]`) once,
//!   by its path, but draws a row per count, and one fork reads one row: each count is a
//!   benchmark of its own, `<path>::t=<N>` as divan draws it, learned from one run in its test
//!   mode ([`divan::thread_counts`]) and selected with `--threads N` ([`divan::selection`]).
//! - A bench target is a package's `[[bench]]` ([`TargetKey`]): in a workspace, members name their
//!   targets by convention (`benches/bench.rs`), so one target name in several members is the
//!   normal case, and a name alone would lose or swap whole suites.
//! - Benchmarks are matched across revisions by package, target and criterion id. A benchmark
//!   that no other target of its package has on the other side, and that moved there from one
//!   target to another of the same package (a target renamed or split), is still matched; a
//!   package that exists on one side only has its benchmarks `only_in_base` / `only_in_head`.
//! - A listing that starts measuring is stopped at once: criterion prints `Benchmarking <id>` as it
//!   starts to measure a benchmark and never while listing, and an executable does that when its
//!   `Criterion` never reads the command line (`Criterion::default()` in a hand-written `main`,
//!   or in the functions `criterion_main!` calls, as curve25519-dalek's benches do, instead of
//!   `criterion_group!`, which calls `configure_from_args`). Such a target would run its whole
//!   suite for `--list` and for every fork, so it is skipped with that reason instead of after
//!   the fork timeout.
//! - Every executable is listed twice: an id made of the time or a random value (chrono names two
//!   benchmarks after `Utc::now()`) differs in every process, so no fork could select it and the
//!   revisions would each seem to have benchmarks the other lacks. [`split_unstable`] sets such
//!   ids apart, to be reported as skipped. The second listing runs no benchmark ([`list_again`]):
//!   divan's test mode is not run again (a newer divan's thread counts are the first run's); an
//!   old divan's `--list --exact` is asked for the arguments the first one read, which shows their
//!   benchmark only if they exist in this run too.
//! - The same criterion id in two bench targets is not an error: both are compared, each under a
//!   name of its own ([`qualified_id`]). An id unique in the run keeps its plain criterion id, so
//!   single-target suites and recordings made before read as they did; a colliding one becomes
//!   `target::id`, or `package::target::id` when the colliding targets share a name. `::` is
//!   never criterion's group separator (`/`), and forks are still given the plain id.

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use regex::Regex;

use crate::model::harness::CliDialect;
pub use crate::model::harness::HarnessKind;
use crate::model::harness::{Harness, bencher, divan, libtest};
use crate::model::samples::Presence;
use crate::model::target::{QUALIFIER, TargetKey};
use crate::steps::build::BenchExecutable;
use crate::steps::schedule::Side;

/// The string every criterion benchmark binary contains.
const CRITERION_MARKER: &str = "CARGO_CRITERION_PORT";
/// The string every divan benchmark binary contains.
const DIVAN_MARKER: &str = "DIVAN_SAMPLE_COUNT";
/// A piece of the result line's format string every `bencher` binary contains
/// (`{:>11} ns/iter (+/- {})`); libtest's own harness is known from the target instead.
const BENCHER_MARKER: &str = " ns/iter (+/- ";
/// Bytes read at a time when scanning an executable.
const SCAN_CHUNK: usize = 1 << 20;
/// What criterion prints as it starts to measure a benchmark (on stdout or stderr, by version);
/// a listing never does.
const MEASURING_MARKER: &str = "Benchmarking ";
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
    /// A listing that began to measure: the executable ignores its command line.
    #[error("cannot list the benchmarks of {executable}: {message}")]
    ListMeasured { executable: String, message: String },
    #[error("cannot read the bench executable {} (target {target}): {source}", path.display())]
    Read {
        path: PathBuf,
        target: String,
        source: std::io::Error,
    },
}

/// What a bench executable is, as far as measuring it goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Classified {
    /// A benchmark harness cargo-perfdiff runs: list it with [`list_benchmarks`].
    Runs(HarnessKind),
    /// Anything else; it is not run, and `reason` says why.
    Skipped { reason: String },
}

/// Decides which harness `exe` uses, without running it: libtest for a target with the default
/// harness, else from the markers its bytes contain.
pub fn classify(exe: &BenchExecutable) -> Result<Classified, DiscoverError> {
    if exe.harness {
        return Ok(Classified::Runs(HarnessKind::Libtest));
    }
    let found = scan_for_markers(&exe.path).map_err(|source| DiscoverError::Read {
        path: exe.path.clone(),
        target: exe.target.clone(),
        source,
    })?;
    Ok(if found.criterion {
        Classified::Runs(HarnessKind::Criterion)
    } else if found.divan {
        Classified::Runs(HarnessKind::Divan)
    } else if found.bencher {
        Classified::Runs(HarnessKind::Bencher)
    } else {
        Classified::Skipped {
            reason: format!(
                "plain binary, no benchmark harness (bench target {:?})",
                exe.target
            ),
        }
    })
}

/// Which markers a file contains.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Markers {
    criterion: bool,
    divan: bool,
    bencher: bool,
}

/// Scans a file chunk by chunk (memory stays bounded for large binaries) for the markers; chunks
/// overlap by one marker length so a marker across a chunk boundary is found. Stops at the
/// criterion marker, which decides the classification.
fn scan_for_markers(path: &std::path::Path) -> std::io::Result<Markers> {
    let mut file = File::open(path)?;
    let overlap = [CRITERION_MARKER, DIVAN_MARKER, BENCHER_MARKER]
        .map(str::len)
        .into_iter()
        .max()
        .unwrap_or(0)
        - 1;
    let mut buffer = vec![0u8; SCAN_CHUNK + overlap];
    let mut kept = 0;
    let mut found = Markers::default();
    // A literal alternation is searched with memchr/aho-corasick acceleration.
    let markers = regex::bytes::Regex::new(&format!(
        "{CRITERION_MARKER}|{DIVAN_MARKER}|{}",
        regex::escape(BENCHER_MARKER)
    ))
    .expect("escaped literals form a valid regex");
    loop {
        let read = read_full(&mut file, &mut buffer[kept..])?;
        let filled = kept + read;
        for marker in markers.find_iter(&buffer[..filled]) {
            match marker.as_bytes() {
                m if m == CRITERION_MARKER.as_bytes() => found.criterion = true,
                m if m == DIVAN_MARKER.as_bytes() => found.divan = true,
                _ => found.bencher = true,
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
    pub harness: Harness,
    /// Benchmarks listed that no fork can select, left out of `ids`, and why: divan before
    /// 0.1.18 lists a benchmark with `args` without its arguments ([`divan::parse_tree_list`]),
    /// and these are those whose arguments its test mode did not give.
    pub unselectable: Option<Unselectable>,
    /// A divan before 0.1.18's benchmarks with `args` and what its test mode gave for them, so
    /// that [`list_again`] need not run them again.
    with_args: Option<ArgumentRun>,
    /// A divan's benchmarks run at several thread counts and those counts, from its test mode
    /// ([`divan::thread_counts`]), so that [`list_again`] need not run it again.
    thread_counts: Vec<(String, Vec<u32>)>,
}

impl Listing {
    fn new(ids: Vec<String>, harness: Harness) -> Self {
        Self {
            ids,
            harness,
            unselectable: None,
            with_args: None,
            thread_counts: Vec::new(),
        }
    }
}

/// Benchmarks of a divan before 0.1.18 that take `args` and that no fork can select, since its
/// listing shows them without their arguments, and what the run of them in its test mode, which
/// shows the arguments, did instead.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Unselectable {
    pub benchmarks: Vec<String>,
    pub cause: ArgumentsUnseen,
}

/// What the run of an old divan's benchmarks with `args` in its test mode (`--test`) did when it
/// gave none of their arguments.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ArgumentsUnseen {
    /// It failed: how (`exited with exit status: 101`, a timeout), and the line of its stderr
    /// that says most (a panic's message).
    Failed(String),
    /// It ran, but its output is not divan's tree: which line is not.
    Unreadable(String),
    /// It ran and was read, but drew none of their arguments as a leaf of its own: divan draws
    /// an argument run at several thread counts (`threads`) with a leaf per count below it, so
    /// it has no row of its own to read.
    NoLeaf,
}

/// The benchmarks with `args` of a divan before 0.1.18 (those whose path `--exact` does not
/// select) and what the run of them in its test mode gave.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ArgumentRun {
    benchmarks: Vec<String>,
    /// Their arguments as `(benchmark, id)`, or why there are none.
    arguments: Result<Vec<(String, String)>, ArgumentsUnseen>,
}

/// Lists the benchmark ids of `exe`, a bench executable of harness `kind`, running it (but for
/// `bencher`, read from its source) in its package root with `env`, killed after `timeout`.
pub fn list_benchmarks(
    kind: HarnessKind,
    exe: &BenchExecutable,
    env: &[(OsString, OsString)],
    timeout: Duration,
) -> Result<Listing, DiscoverError> {
    let listing = |ids, harness| Ok(Listing::new(ids, harness));
    match kind {
        HarnessKind::Criterion => list_criterion(exe, env, timeout),
        // Commands are declared, never found in a bench executable.
        HarnessKind::Command => listing(Vec::new(), Harness::Command),
        HarnessKind::Divan => {
            let env = divan_env(env);
            list_divan(
                |args| run_listing(exe, &env, timeout, args),
                || divan_version(&exe.path),
            )
        }
        HarnessKind::Libtest => {
            let stdout = run_listing(exe, env, timeout, libtest::LIST_ARGS)?;
            listing(libtest::parse_list(&stdout), Harness::Libtest)
        }
        HarnessKind::Bencher => {
            let ids =
                bencher::list_from_source(&exe.src_path).map_err(|error| DiscoverError::List {
                    executable: format!("bench target {:?} ({})", exe.target, exe.path.display()),
                    message: format!(
                        "a `bencher` executable cannot list its benchmarks, and its source could \
                         not be read: {error}"
                    ),
                    stderr_tail: String::new(),
                })?;
            listing(ids, Harness::Bencher)
        }
    }
}

/// [`list_benchmarks`] of `exe`, and [`list_again`] after it (`None` when the first failed):
/// criterion's two listings side by side, since the second does not depend on the first and each
/// runs every benchmark function's set-up before criterion's filter, which for a target that
/// builds large inputs is seconds a listing (range-set-blaze: two targets, four listings a side).
pub fn list_twice(
    kind: HarnessKind,
    exe: &BenchExecutable,
    env: &[(OsString, OsString)],
    timeout: Duration,
) -> (
    Result<Listing, DiscoverError>,
    Option<Result<Listing, DiscoverError>>,
) {
    if kind == HarnessKind::Criterion {
        let (first, second) = std::thread::scope(|scope| {
            let copy = exe.clone();
            let second = scope.spawn(move || list_benchmarks(kind, &copy, env, timeout));
            let first = list_benchmarks(kind, exe, env, timeout);
            let second = second.join();
            (
                first,
                second.unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            )
        });
        let second = first.is_ok().then_some(second);
        return (first, second);
    }
    let first = list_benchmarks(kind, exe, env, timeout);
    let again = first
        .as_ref()
        .ok()
        .map(|first| list_again(kind, exe, env, timeout, first));
    (first, again)
}

/// Lists `exe` again after `first`, its listing by [`list_benchmarks`], to tell the ids that
/// change from one run of it to the next ([`split_unstable`]). Only what lists is run again:
/// `bencher`'s listing reads the source, which says the same every time, and a divan before
/// 0.1.18 does not run its benchmarks with `args` in its test mode again ([`list_divan_again`]),
/// which ran each of their arguments a second time for every executable.
pub fn list_again(
    kind: HarnessKind,
    exe: &BenchExecutable,
    env: &[(OsString, OsString)],
    timeout: Duration,
    first: &Listing,
) -> Result<Listing, DiscoverError> {
    match (kind, &first.with_args) {
        (HarnessKind::Bencher, _) => Ok(first.clone()),
        (HarnessKind::Divan, Some(with_args)) => {
            let env = divan_env(env);
            let run = |args: &[&str]| run_listing(exe, &env, timeout, args);
            let listing = list_divan_again(run, &executable_label(exe), with_args)?;
            Ok(with_thread_counts(listing, first.thread_counts.clone()))
        }
        (HarnessKind::Divan, None) => {
            let env = divan_env(env);
            let stdout = run_listing(exe, &env, timeout, divan::LIST_ARGS)?;
            Ok(terse_listing(
                divan::parse_list(&stdout),
                first.thread_counts.clone(),
            ))
        }
        _ => list_benchmarks(kind, exe, env, timeout),
    }
}

/// The environment of a divan listing: `env` and [`divan::list_env`].
fn divan_env(env: &[(OsString, OsString)]) -> Vec<(OsString, OsString)> {
    env.iter().cloned().chain(divan::list_env()).collect()
}

/// How errors name a bench executable.
fn executable_label(exe: &BenchExecutable) -> String {
    format!("bench target {:?} ({})", exe.target, exe.path.display())
}

/// Criterion's terse listing (criterion2 refuses `--bench` with `--list`: it drops the first).
const TERSE_ARGS: &[&str] = &["--bench", "--list", "--format", "terse"];

/// The ids of a terse listing `stdout` (of `exe` run with `args`), an id with a line break whole
/// ([`parse_whole_list`]): a way of joining lines is the id when `--exact` with it lists exactly
/// one benchmark (criterion's `--exact` compares the whole id, `\n` included).
fn whole_ids(
    exe: &BenchExecutable,
    env: &[(OsString, OsString)],
    timeout: Duration,
    args: &[&str],
    stdout: &str,
) -> Vec<String> {
    parse_whole_list(stdout, |joined| {
        let exact: Vec<&str> = args.iter().copied().chain(["--exact", joined]).collect();
        run_listing(exe, env, timeout, &exact).is_ok_and(|out| parse_list(&out).len() == 1)
    })
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
fn list_criterion(
    exe: &BenchExecutable,
    env: &[(OsString, OsString)],
    timeout: Duration,
) -> Result<Listing, DiscoverError> {
    let terse = run_listing(exe, env, timeout, TERSE_ARGS);
    match terse {
        Ok(stdout) => Ok(Listing::new(
            whole_ids(exe, env, timeout, TERSE_ARGS, &stdout),
            Harness::Criterion(CliDialect::Current),
        )),
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
            Ok(Listing::new(ids, Harness::Criterion(dialect)))
        }
        // criterion2 (oxc's fork) refuses `--list` together with `--bench`, and lists without it.
        Err(terse_error @ DiscoverError::List { .. })
            if terse_error.to_string().contains("`--bench`") =>
        {
            let args = &TERSE_ARGS[1..];
            match run_listing(exe, env, timeout, args) {
                Ok(stdout) if !parse_list(&stdout).is_empty() => Ok(Listing::new(
                    whole_ids(exe, env, timeout, args, &stdout),
                    Harness::Criterion(CliDialect::Current),
                )),
                _ => Err(terse_error),
            }
        }
        Err(terse_error) => Err(terse_error),
    }
}

/// Lists divan benchmarks with `run` (which runs the executable with the arguments given):
/// `--list --format terse` first; when divan's parser rejects `--format` (before 0.1.18), the
/// tree of `--list`, then `--list --exact` with every path it gave, which prints only those a
/// fork can select, and for the others (benchmarks with `args`) a run in test mode that shows
/// their arguments, each listed as a benchmark of its own ([`divan`]). Either way a benchmark
/// run at several thread counts is one benchmark per count, learned from a run in test mode
/// ([`divan_thread_counts`]). A tree that cannot be read is an error
/// naming the divan version (from `version`, when the executable shows it), so that only this
/// target is set apart.
fn list_divan(
    run: impl Fn(&[&str]) -> Result<String, DiscoverError>,
    version: impl FnOnce() -> Option<String>,
) -> Result<Listing, DiscoverError> {
    let (executable, stderr) = match run(divan::LIST_ARGS) {
        Ok(stdout) => {
            let ids = divan::parse_list(&stdout);
            let counts = divan_thread_counts(&run, &ids, &["--test"]);
            return Ok(terse_listing(ids, counts));
        }
        Err(DiscoverError::List {
            executable,
            stderr_tail,
            ..
        }) if stderr_tail.contains(divan::FORMAT_REJECTED) => (executable, stderr_tail),
        Err(error) => return Err(error),
    };
    let unreadable = |detail: String, stderr_tail: String| DiscoverError::List {
        executable: executable.clone(),
        message: format!(
            "its divan{} rejects `--list --format terse`, and its `--list` could not be read \
             ({detail}); divan ≥ 0.1.18 lists reliably",
            version().map_or_else(String::new, |v| format!(" {v}"))
        ),
        stderr_tail,
    };
    let tree = match run(divan::TREE_LIST_ARGS) {
        Ok(stdout) => divan::parse_tree_list(&stdout),
        Err(error) => return Err(unreadable(error.to_string(), stderr)),
    };
    let paths = tree.map_err(|error| unreadable(error.to_string(), String::new()))?;
    // A failing or unreadable second listing says nothing about the paths: keep them all.
    let selectable = exact_selectable(&run, &paths).unwrap_or_else(|| paths.clone());
    let benchmarks: Vec<String> = paths
        .iter()
        .filter(|path| !selectable.contains(path))
        .cloned()
        .collect();
    let arguments = divan_arguments(&run, &benchmarks);
    let with_args = ArgumentRun {
        benchmarks,
        arguments,
    };
    // Exactly the benchmarks without `args` (those ran in test mode for their arguments), so
    // that no benchmark runs twice there; one drawn with thread counts has no argument read.
    let args = divan::exact_test_args(&selectable);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let counts = divan_thread_counts(&run, &selectable, &args);
    Ok(with_thread_counts(tree_listing(paths, with_args), counts))
}

/// The thread counts of divan benchmarks `ids` run at several (`threads = [1, 2]`), from a run
/// of the executable in divan's test mode with `args` (`--test`, or exactly some benchmarks),
/// which runs each benchmark once and draws a leaf for each count; neither listing shows them.
/// None when no benchmark has several, and when that run fails or cannot be read: such
/// benchmarks are then listed by their path, whose forks find no row of their own.
fn divan_thread_counts(
    run: &impl Fn(&[&str]) -> Result<String, DiscoverError>,
    ids: &[String],
    args: &[&str],
) -> Vec<(String, Vec<u32>)> {
    if ids.is_empty() {
        return Vec::new();
    }
    run(args).map_or_else(|_| Vec::new(), |stdout| divan::thread_counts(&stdout, ids))
}

/// The listing of a divan ≥ 0.1.18 from its terse `ids`: each benchmark run at several thread
/// counts (`counts`) listed as one benchmark per count ([`divan::thread_id`]).
fn terse_listing(ids: Vec<String>, counts: Vec<(String, Vec<u32>)>) -> Listing {
    with_thread_counts(Listing::new(ids, Harness::Divan), counts)
}

/// `listing` with each benchmark run at several thread counts (`counts`) listed as one
/// benchmark per count ([`divan::thread_id`]), whatever divan listed it: a divan before 0.1.18
/// lists such a benchmark by its path too, and its forks, run at every count, would print a row
/// for each count and none for the path.
fn with_thread_counts(mut listing: Listing, counts: Vec<(String, Vec<u32>)>) -> Listing {
    listing.ids = divan::with_thread_counts(std::mem::take(&mut listing.ids), &counts);
    listing.thread_counts = counts;
    listing
}

/// Of `paths`, those a `--list --exact` with all of them prints (divan before 0.1.18), in that
/// listing's order; `None` when it fails or cannot be read. No paths, no listing: divan takes
/// no filter as every benchmark.
fn exact_selectable(
    run: &impl Fn(&[&str]) -> Result<String, DiscoverError>,
    paths: &[String],
) -> Option<Vec<String>> {
    if paths.is_empty() {
        return Some(Vec::new());
    }
    let exact = divan::exact_list_args(paths);
    let exact: Vec<&str> = exact.iter().map(String::as_str).collect();
    divan::parse_tree_list(&run(&exact).ok()?).ok()
}

/// The listing of a divan before 0.1.18 from the `paths` of its tree: each selectable path, each
/// argument `with_args` read in the place of its benchmark, and the benchmarks with `args` of
/// none set apart.
fn tree_listing(paths: Vec<String>, with_args: ArgumentRun) -> Listing {
    let arguments = with_args.arguments.as_deref().unwrap_or_default();
    let (mut ids, mut unseen) = (Vec::new(), Vec::new());
    for path in paths {
        if !with_args.benchmarks.contains(&path) {
            ids.push(path);
            continue;
        }
        let before = ids.len();
        ids.extend(
            arguments
                .iter()
                .filter(|(benchmark, _)| *benchmark == path)
                .map(|(_, id)| id.clone()),
        );
        if ids.len() == before {
            unseen.push(path);
        }
    }
    let cause = with_args
        .arguments
        .as_ref()
        .err()
        .cloned()
        .unwrap_or(ArgumentsUnseen::NoLeaf);
    Listing {
        ids,
        harness: Harness::Divan,
        unselectable: (!unseen.is_empty()).then_some(Unselectable {
            benchmarks: unseen,
            cause,
        }),
        with_args: Some(with_args),
        thread_counts: Vec::new(),
    }
}

/// The arguments of divan benchmarks `with_args` (before 0.1.18), as `(benchmark, id)`, from a
/// run of them in divan's test mode ([`divan::argument_list_args`]); none when there are no such
/// benchmarks, and what happened when that run fails or cannot be read (they stay unselectable).
fn divan_arguments(
    run: &impl Fn(&[&str]) -> Result<String, DiscoverError>,
    with_args: &[String],
) -> Result<Vec<(String, String)>, ArgumentsUnseen> {
    if with_args.is_empty() {
        return Ok(Vec::new());
    }
    let args = divan::argument_list_args(with_args);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let stdout =
        run(&args).map_err(|error| ArgumentsUnseen::Failed(how_it_failed(&error, &args)))?;
    let arguments = divan::parse_argument_tree(&stdout, with_args)
        .map_err(|error| ArgumentsUnseen::Unreadable(error.to_string()))?;
    Ok(arguments
        .into_iter()
        .filter_map(|(benchmark, id)| selected_argument(run, benchmark, &id))
        .collect())
}

/// The argument of `benchmark` that the leaf read as `id` stands for, as `(benchmark, id)`:
/// `id` when `--list --exact id` (which runs nothing) shows the benchmark, else its longest
/// prefix that does; `None` when none does. Test mode runs each argument after drawing its name,
/// so what the benchmark prints lands on the leaf's line after the name (divan 0.1.14 draws
/// `├─ 1said 1` for an argument `1` that prints `said 1`). The prefix is found halving the
/// candidates: a listing with several paths shows the benchmark when one of them is its.
fn selected_argument(
    run: &impl Fn(&[&str]) -> Result<String, DiscoverError>,
    benchmark: String,
    id: &str,
) -> Option<(String, String)> {
    let shows = |paths: &[String]| {
        exact_selectable(run, paths).is_some_and(|shown| shown.contains(&benchmark))
    };
    if shows(&[id.to_string()]) {
        return Some((benchmark, id.to_string()));
    }
    let start = benchmark.len() + 2;
    // Longest first: every shorter prefix of the argument, on character boundaries.
    let mut candidates: Vec<String> = id
        .char_indices()
        .map(|(at, _)| at)
        .filter(|&at| at > start)
        .rev()
        .map(|at| id[..at].to_string())
        .collect();
    while candidates.len() > 1 {
        let rest = candidates.split_off(candidates.len().div_ceil(2));
        if !shows(&candidates) {
            candidates = rest;
        }
    }
    let found = candidates
        .pop()
        .filter(|only| shows(std::slice::from_ref(only)))?;
    Some((benchmark, found))
}

/// How a run with `args` failed, in one line: what [`run_listing`] says without the command line
/// (`exited with exit status: 101`, a timeout), and the line of its stderr that says most.
fn how_it_failed(error: &DiscoverError, args: &[&str]) -> String {
    let (message, tail) = match error {
        DiscoverError::List {
            message,
            stderr_tail,
            ..
        }
        | DiscoverError::ListTimedOut {
            message,
            stderr_tail,
            ..
        } => (message.as_str(), stderr_tail.as_str()),
        other => return other.to_string(),
    };
    let command = format!("`{}` ", args.join(" "));
    let message = message.strip_prefix(&command).unwrap_or(message);
    match stderr_headline(tail) {
        Some(headline) => format!("{message}: {headline}"),
        None => message.to_string(),
    }
}

/// Lists a divan before 0.1.18 again without running its benchmarks: the tree of `--list`, then
/// `--list --exact` with its paths but those of `first`'s benchmarks with `args`, and with the
/// ids of the arguments `first` read instead. Divan's filter keeps a benchmark with `args` when
/// one of its arguments matches, so such a benchmark is in that tree exactly when an argument
/// it had in the first listing exists in this run too: its arguments are listed again then,
/// and left out (found to change from one run to the next) when not. A step that fails is an
/// error (`executable` names it), which keeps the first listing's ids.
fn list_divan_again(
    run: impl Fn(&[&str]) -> Result<String, DiscoverError>,
    executable: &str,
    first: &ArgumentRun,
) -> Result<Listing, DiscoverError> {
    let unreadable = |error: divan::UnknownTree| DiscoverError::List {
        executable: executable.to_string(),
        message: format!("its second `--list` could not be read ({error})"),
        stderr_tail: String::new(),
    };
    let paths = divan::parse_tree_list(&run(divan::TREE_LIST_ARGS)?).map_err(unreadable)?;
    let arguments = first.arguments.as_deref().unwrap_or_default();
    let asked: Vec<String> = paths
        .iter()
        .filter(|path| !first.benchmarks.contains(*path))
        .cloned()
        .chain(arguments.iter().map(|(_, id)| id.clone()))
        .collect();
    let mut shown = HashSet::new();
    if !asked.is_empty() {
        let exact = divan::exact_list_args(&asked);
        let exact: Vec<&str> = exact.iter().map(String::as_str).collect();
        shown.extend(divan::parse_tree_list(&run(&exact)?).map_err(unreadable)?);
    }
    let shown_paths = paths.into_iter().filter(|path| shown.contains(path));
    let again = ArgumentRun {
        benchmarks: first.benchmarks.clone(),
        arguments: Ok(arguments.to_vec()),
    };
    let mut listing = tree_listing(shown_paths.collect(), again);
    listing.with_args = Some(first.clone());
    Ok(listing)
}

/// The divan version compiled into the executable at `path`, from the source paths its panic
/// locations carry (`…/divan-0.1.14/src/…`); `None` when none is found or it cannot be read.
fn divan_version(path: &std::path::Path) -> Option<String> {
    const OVERLAP: usize = 64;
    let pattern =
        regex::bytes::Regex::new(r"divan-(\d+\.\d+\.\d+)[/\\]src").expect("a valid regex");
    let mut file = File::open(path).ok()?;
    let mut buffer = vec![0u8; SCAN_CHUNK + OVERLAP];
    let mut kept = 0;
    loop {
        let read = read_full(&mut file, &mut buffer[kept..]).ok()?;
        let filled = kept + read;
        if let Some(found) = pattern.captures(&buffer[..filled]) {
            return Some(String::from_utf8_lossy(&found[1]).into_owned());
        }
        if read == 0 || filled < buffer.len() {
            return None;
        }
        kept = OVERLAP.min(filled);
        buffer.copy_within(filled - kept..filled, 0);
    }
}

/// Splits the ids of one listing into those a second listing of the same executable gave again
/// (in the first listing's order) and, for the others, what they share with the most alike id
/// of the second listing up to its last separator (criterion's `/`, divan's and libtest's `::`),
/// followed by `…` (`delayed_format/with_display/…` for a criterion id ending in the time,
/// `t::stamped::…` for a divan argument that is): ids that change from one process to the next
/// cannot be selected by a fork, and this names them the same way whichever listing they came
/// from.
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
            format!("{}…", up_to_last_separator(shared))
        })
        .collect();
    patterns.sort();
    patterns.dedup();
    (stable, patterns)
}

/// `prefix` up to and with its last separator of names, `/` (criterion) or `::` (divan,
/// libtest), whichever ends later; empty without one.
fn up_to_last_separator(prefix: &str) -> &str {
    let slash = prefix.rfind('/').map(|at| at + 1);
    let colons = prefix.rfind("::").map(|at| at + 2);
    &prefix[..slash.max(colons).unwrap_or(0)]
}

/// Splits criterion ids into those a fork can select and the repeats of an id: criterion lists
/// the second benchmark registered under an id as `<id> #2` (the third `#3`, …) but matches its
/// filter against the id without the suffix, so `--exact '<id> #2'` runs nothing and no command
/// line measures that benchmark alone (nom's `json` target registers `json` twice).
pub fn split_repeated_ids(ids: Vec<String>) -> (Vec<String>, Vec<String>) {
    let listed: HashSet<String> = ids.iter().cloned().collect();
    ids.into_iter().partition(|id| match id.rsplit_once(" #") {
        Some((first, n)) => !(listed.contains(first) && n.parse::<u32>().is_ok_and(|n| n >= 2)),
        None => true,
    })
}

/// Splits divan ids into those a fork can select and the paths two benchmarks share (each once):
/// divan joins names into a path with `::`, and a name may hold `::` itself, so a benchmark
/// named `a::b` beside a module `a` with a benchmark `b` lists `<crate>::a::b` twice, and
/// `--exact` selects both, whose rows one fork cannot tell apart (divan 0.1.14 and 0.1.21 alike).
pub fn split_shared_paths(ids: Vec<String>) -> (Vec<String>, Vec<String>) {
    let mut seen = HashSet::new();
    let shared: HashSet<String> = ids.iter().filter(|id| !seen.insert(*id)).cloned().collect();
    let (mut selectable, mut set_apart) = (Vec::new(), Vec::new());
    for id in ids {
        if !shared.contains(&id) {
            selectable.push(id);
        } else if !set_apart.contains(&id) {
            set_apart.push(id);
        }
    }
    (selectable, set_apart)
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
    let executable = executable_label(exe);
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
    let mut child = crate::util::spawn::spawn_when_not_busy(&mut command)
        .map_err(|e| fail(format!("cannot start it: {e}")))?;
    let measuring = Arc::new(OnceLock::new());
    let stdout = read_in_background(child.stdout.take(), Some(Arc::clone(&measuring)));
    let stderr = read_in_background(child.stderr.take(), Some(Arc::clone(&measuring)));
    let waited = wait_with_timeout(&mut child, timeout, &measuring)
        .map_err(|e| fail(format!("cannot wait for it: {e}")))?;
    let stdout = join_text(stdout);
    let stderr = join_text(stderr);
    match waited {
        Waited::Measuring => Err(DiscoverError::ListMeasured {
            executable,
            message: format!(
                "it began to measure instead (`{}`), killed: its criterion does not read the \
                 command line (a `Criterion::default()` without `.configure_from_args()`, in a \
                 hand-written `main` or a function `criterion_main!` calls, instead of \
                 `criterion_group!`), so no fork could select one of its benchmarks",
                measuring.get().map_or("", String::as_str)
            ),
        }),
        Waited::TimedOut => Err(DiscoverError::ListTimedOut {
            executable,
            message: format!("no answer within {timeout:.0?} (--fork-timeout), killed"),
            stderr_tail: stderr_tail(&stderr),
        }),
        Waited::Exited(status) if !status.success() => Err(fail_with(
            format!("`{}` exited with {status}", args.join(" ")),
            &stderr,
        )),
        Waited::Exited(_) => Ok(stdout),
    }
}

/// Ids from criterion's terse listing: every line ending in `: benchmark`, with that suffix cut.
/// Ids may contain spaces, colons, slashes and any unicode, so nothing else is touched. An id
/// with a line break is read here by its last line only; [`parse_whole_list`] joins its lines.
pub fn parse_list(stdout: &str) -> Vec<String> {
    ids_with_suffix(stdout, ": benchmark")
}

/// The most ids of a listing that may span several lines, each checked by a listing process of
/// its own (pulldown-cmark has 38); a listing with more is read line by line, as before.
const MOST_JOINED_IDS: usize = 64;

/// The most lines of a terse listing read as one id: lines a benchmark prints before the
/// listing are not tried without end.
const MOST_ID_LINES: usize = 16;

/// Ids from criterion's terse listing, an id with a line break whole. Criterion prints
/// `{id}: benchmark`, so an id holding `\n` (pulldown-cmark names groups by such strings) spans
/// several lines and only its last ends in `: benchmark`. The lines between the previous
/// `: benchmark` line (or the listing's start) and an id's last line may be the id's first
/// lines, or anything its benchmark printed: each way of joining them, longest first, is
/// offered to `is_id` (criterion asked whether it lists exactly that id), and the first it
/// accepts is the id. When none is accepted, the last line stands alone, as before.
pub fn parse_whole_list(stdout: &str, mut is_id: impl FnMut(&str) -> bool) -> Vec<String> {
    let blocks = listed_blocks(stdout);
    // Each join costs a listing process (the benchmarks' set-up code runs again): a suite
    // that prints a line per benchmark would ask once per id. Past the bound, no id is joined.
    let joinable = blocks.iter().filter(|block| block.len() > 1).count();
    let most = if joinable > MOST_JOINED_IDS {
        1
    } else {
        MOST_ID_LINES
    };
    blocks
        .iter()
        .map(|block| &block[block.len().saturating_sub(most)..])
        .map(|block| {
            let last = block.len() - 1;
            (0..last)
                .map(|first| block[first..].join("\n"))
                .find(|joined| is_id(joined))
                .unwrap_or_else(|| block[last].to_string())
        })
        .collect()
}

/// A terse listing's `: benchmark` lines (suffix cut), each after the lines before it that
/// follow the previous one (at most [`MOST_ID_LINES`] in all).
fn listed_blocks(stdout: &str) -> Vec<Vec<&str>> {
    let mut blocks = Vec::new();
    let mut pending: Vec<&str> = Vec::new();
    for line in stdout.lines() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        match line.strip_suffix(": benchmark") {
            Some(id) => {
                pending.push(id);
                let from = pending.len().saturating_sub(MOST_ID_LINES);
                blocks.push(pending.split_off(from));
                pending.clear();
            }
            None => pending.push(line),
        }
    }
    blocks
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

/// Reads `stream` to its end on a thread of its own. With `measuring`, the first line that
/// starts with [`MEASURING_MARKER`] (on either stream) is set there as soon as it is read.
fn read_in_background<R: Read + Send + 'static>(
    stream: Option<R>,
    measuring: Option<Arc<OnceLock<String>>>,
) -> Option<JoinHandle<Vec<u8>>> {
    stream.map(|stream| {
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stream);
            let mut bytes = Vec::new();
            let mut line = Vec::new();
            while matches!(reader.read_until(b'\n', &mut line), Ok(n) if n > 0) {
                if let Some(measuring) = &measuring
                    && line.starts_with(MEASURING_MARKER.as_bytes())
                {
                    let _ = measuring.set(String::from_utf8_lossy(&line).trim_end().to_string());
                }
                bytes.append(&mut line);
            }
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

/// How a listing process ended.
enum Waited {
    Exited(ExitStatus),
    /// Killed at the deadline.
    TimedOut,
    /// Killed because it began to measure ([`MEASURING_MARKER`]).
    Measuring,
}

/// Waits for `child`, killing it at the deadline or once `measuring` is set.
fn wait_with_timeout(
    child: &mut Child,
    timeout: Duration,
    measuring: &OnceLock<String>,
) -> std::io::Result<Waited> {
    let deadline = Instant::now() + timeout;
    let mut pause = Duration::from_millis(1);
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Waited::Exited(status));
        }
        let now = Instant::now();
        if measuring.get().is_some() || now >= deadline {
            kill_process_group(child);
            child.wait()?;
            return Ok(if measuring.get().is_some() {
                Waited::Measuring
            } else {
                Waited::TimedOut
            });
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

    /// Every id the filters can match, when that is a known list of names: each filter is
    /// anchored at both ends around literal names (`^hash$`, `^(hash|table)$`, `^a$|^b$`, with
    /// punctuation escaped as `regex::escape` writes it). `None` when any filter could match an id
    /// not known in advance (a prefix, a class, a substring), or there is no filter. What a run
    /// selects can then be told before anything is built: a filter naming commands only needs no
    /// bench target.
    pub fn exact_ids(&self) -> Option<Vec<String>> {
        let mut ids = Vec::new();
        for pattern in &self.patterns {
            let Pattern::Regex(regex) = pattern else {
                return None;
            };
            let names = anchored_names(regex.as_str())?;
            // The parse above is ours, not the regex crate's: each name must match, whole.
            let whole = |name: &String| regex.find(name).is_some_and(|m| m.len() == name.len());
            if !names.iter().all(whole) {
                return None;
            }
            ids.extend(names);
        }
        (!ids.is_empty()).then_some(ids)
    }
}

/// The names a pattern matches when it is `^NAME$`, `^(NAME|…)$` (or `(?:…)`) or `^NAME$|^NAME$`;
/// `None` for any other pattern.
fn anchored_names(pattern: &str) -> Option<Vec<String>> {
    if let Some(names) = pattern
        .strip_prefix('^')
        .and_then(|p| p.strip_suffix('$'))
        .filter(|inner| !inner.ends_with('\\'))
        .and_then(|inner| {
            let group = inner
                .strip_prefix("(?:")
                .or_else(|| inner.strip_prefix('('))?;
            split_alternatives(group.strip_suffix(')')?)
        })
    {
        return Some(names);
    }
    split_top_level(pattern)?
        .into_iter()
        .map(|alternative| {
            let inner = alternative.strip_prefix('^')?.strip_suffix('$')?;
            let mut names = split_alternatives(inner).filter(|names| names.len() == 1)?;
            names.pop()
        })
        .collect()
}

/// `a|b\|c` split at its unescaped `|`, each part read as a literal name; `None` when a part
/// holds anything but plain characters and escaped punctuation.
fn split_alternatives(text: &str) -> Option<Vec<String>> {
    split_top_level(text)?
        .into_iter()
        .map(|part| literal(&part))
        .collect()
}

/// `text` split at its unescaped `|` (escapes kept); `None` for a dangling backslash.
fn split_top_level(text: &str) -> Option<Vec<String>> {
    let mut parts = vec![String::new()];
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let last = parts.last_mut()?;
                last.push(c);
                last.push(chars.next()?);
            }
            '|' => parts.push(String::new()),
            c => parts.last_mut()?.push(c),
        }
    }
    Some(parts)
}

/// The name `text` matches literally: plain characters and escaped ASCII punctuation; `None` for
/// a metacharacter, a class escape (`\d`) or nothing at all.
fn literal(text: &str) -> Option<String> {
    const META: &str = ".^$*+?()[]{}|\\";
    let mut name = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next()? {
                escaped if escaped.is_ascii_punctuation() => name.push(escaped),
                _ => return None,
            },
            c if META.contains(c) => return None,
            c => name.push(c),
        }
    }
    (!name.is_empty()).then_some(name)
}

/// One benchmark and where it exists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Matched {
    /// The name it is reported, recorded and resumed under: the criterion id, qualified by its
    /// target (and package) when another target of the run defines the same id
    /// ([`qualified_id`]).
    pub id: String,
    /// The criterion id, exactly as the executable listed it (pass it to the executable as is).
    pub criterion_id: String,
    /// The bench target that has it in base, if any.
    pub base_target: Option<TargetKey>,
    /// The bench target that has it in head, if any.
    pub head_target: Option<TargetKey>,
    pub presence: Presence,
    /// The harness of its bench target (head's, or base's when head lacks it), once known.
    pub harness: Option<HarnessKind>,
}

impl Matched {
    /// The target it is reported under: head's, or base's when head lacks it.
    pub fn target(&self) -> Option<&TargetKey> {
        self.head_target.as_ref().or(self.base_target.as_ref())
    }

    /// Whether `filter` selects it, by its plain or its qualified id.
    pub fn selected_by(&self, filter: &Filter) -> bool {
        filter.matches(&self.id) || filter.matches(&self.criterion_id)
    }
}

/// Matches benchmarks across revisions by package, bench target and criterion id. Benchmarks on
/// one side only get `OnlyInBase`/`OnlyInHead` and are kept. A benchmark on one side only whose
/// id one other target of the same package has on the other side only is matched with it: the
/// target was renamed, or the benchmark moved to another target of its package.
///
/// Order: base's benchmarks in the order given (targets as given, ids as listed), with each
/// head-only one placed right after the benchmark that precedes it in head, so a new benchmark
/// appears next to its neighbours. Deterministic for a given input. An id a target lists twice
/// counts once. Ids defined by several targets are qualified ([`qualified_id`]).
pub fn match_benchmarks(
    base: &[(TargetKey, Vec<String>)],
    head: &[(TargetKey, Vec<String>)],
) -> Vec<Matched> {
    let base_entries = entries(base);
    let head_entries = entries(head);
    let in_base: HashSet<(&TargetKey, &str)> = base_entries.iter().copied().collect();
    let in_head: HashSet<(&TargetKey, &str)> = head_entries.iter().copied().collect();
    let moved = moved_within_package(&base_entries, &head_entries, &in_base, &in_head);

    let mut units: Vec<Unit> = base_entries
        .iter()
        .map(|&(key, id)| Unit {
            criterion_id: id,
            base: Some(key),
            head: None,
        })
        .collect();
    let unit_of: HashMap<(&TargetKey, &str), usize> = base_entries
        .iter()
        .enumerate()
        .map(|(index, &entry)| (entry, index))
        .collect();
    let mut order: Vec<usize> = (0..units.len()).collect();
    let mut cursor = 0;
    for &(key, id) in &head_entries {
        let known = unit_of
            .get(&(key, id))
            .or_else(|| moved.get(&(key, id)).and_then(|from| unit_of.get(from)));
        match known {
            Some(&unit) => {
                units[unit].head = Some(key);
                cursor = order.iter().position(|&u| u == unit).unwrap_or(cursor) + 1;
            }
            None => {
                units.push(Unit {
                    criterion_id: id,
                    base: None,
                    head: Some(key),
                });
                order.insert(cursor, units.len() - 1);
                cursor += 1;
            }
        }
    }
    let ids = qualified_ids(&units);
    order
        .into_iter()
        .map(|index| {
            let unit = &units[index];
            let presence = match (unit.base, unit.head) {
                (Some(_), Some(_)) => Presence::Both,
                (Some(_), None) => Presence::OnlyInBase,
                _ => Presence::OnlyInHead,
            };
            Matched {
                id: ids[index].clone(),
                criterion_id: unit.criterion_id.to_string(),
                base_target: unit.base.cloned(),
                head_target: unit.head.cloned(),
                presence,
                harness: None,
            }
        })
        .collect()
}

/// One benchmark being matched: its criterion id and the target that has it on each side.
struct Unit<'a> {
    criterion_id: &'a str,
    base: Option<&'a TargetKey>,
    head: Option<&'a TargetKey>,
}

impl Unit<'_> {
    /// The target it is reported under: head's, or base's when head lacks it.
    fn key(&self) -> &TargetKey {
        self.head.or(self.base).expect("a unit exists on some side")
    }
}

/// Every (target, id) of one side in order, each once.
fn entries(side: &[(TargetKey, Vec<String>)]) -> Vec<(&TargetKey, &str)> {
    let mut seen = HashSet::new();
    side.iter()
        .flat_map(|(key, ids)| ids.iter().map(move |id| (key, id.as_str())))
        .filter(|entry| seen.insert(*entry))
        .collect()
}

/// Head's one-sided benchmarks that moved from another target of the same package, mapped to
/// base's entry: the pairs where exactly one target of the package has the id on base's side
/// only and exactly one on head's side only.
fn moved_within_package<'a>(
    base: &[(&'a TargetKey, &'a str)],
    head: &[(&'a TargetKey, &'a str)],
    in_base: &HashSet<(&TargetKey, &str)>,
    in_head: &HashSet<(&TargetKey, &str)>,
) -> HashMap<(&'a TargetKey, &'a str), (&'a TargetKey, &'a str)> {
    type Candidates<'a> = HashMap<(&'a str, &'a str), Vec<(&'a TargetKey, &'a str)>>;
    let one_sided = |entries: &[(&'a TargetKey, &'a str)], other: &HashSet<(&TargetKey, &str)>| {
        let mut by_package: Candidates<'a> = HashMap::new();
        for &(key, id) in entries {
            if !other.contains(&(key, id)) {
                by_package
                    .entry((key.package.as_str(), id))
                    .or_default()
                    .push((key, id));
            }
        }
        by_package
    };
    let base_only = one_sided(base, in_head);
    let head_only = one_sided(head, in_base);
    head_only
        .into_iter()
        .filter_map(
            |(package_id, heads)| match (&heads[..], base_only.get(&package_id)) {
                ([head], Some(bases)) if bases.len() == 1 => Some((*head, bases[0])),
                _ => None,
            },
        )
        .collect()
}

/// The id each unit is reported under: its criterion id when no other unit has it, else
/// [`qualified_id`] by target, or by package and target when the colliding targets share a name
/// (or a qualified id would still collide).
fn qualified_ids(units: &[Unit]) -> Vec<String> {
    let mut by_id: HashMap<&str, Vec<usize>> = HashMap::new();
    for (index, unit) in units.iter().enumerate() {
        by_id.entry(unit.criterion_id).or_default().push(index);
    }
    let mut ids: Vec<String> = units.iter().map(|u| u.criterion_id.to_string()).collect();
    for indices in by_id.values().filter(|indices| indices.len() > 1) {
        let targets: HashSet<&str> = indices
            .iter()
            .map(|&i| units[i].key().target.as_str())
            .collect();
        let with_package = targets.len() < indices.len();
        for &i in indices {
            ids[i] = qualified_id(units[i].key(), units[i].criterion_id, with_package);
        }
    }
    // A qualified id that is some other benchmark's plain id (`kern::x` listed as such) takes
    // its package too.
    let plain: HashSet<&str> = units.iter().map(|u| u.criterion_id).collect();
    for (index, unit) in units.iter().enumerate() {
        if ids[index] != unit.criterion_id && plain.contains(ids[index].as_str()) {
            ids[index] = qualified_id(unit.key(), unit.criterion_id, true);
        }
    }
    ids
}

/// `target::id`, or `package::target::id` with `with_package`: the name of a benchmark whose
/// criterion id another bench target of the run defines too.
pub fn qualified_id(key: &TargetKey, criterion_id: &str, with_package: bool) -> String {
    if with_package {
        format!(
            "{}{QUALIFIER}{}{QUALIFIER}{criterion_id}",
            key.package, key.target
        )
    } else {
        format!("{}{QUALIFIER}{criterion_id}", key.target)
    }
}

/// A bench target of one revision whose benchmarks could not be listed: the executable panicked,
/// exited non-zero or hung while criterion called the benchmark functions to learn their ids
/// (set-up code outside `b.iter` runs then, e.g. reading a data file).
#[derive(Debug)]
pub struct FailedListing {
    pub target: TargetKey,
    /// A [`DiscoverError::List`], [`DiscoverError::ListTimedOut`] or
    /// [`DiscoverError::ListMeasured`].
    pub error: DiscoverError,
}

impl FailedListing {
    /// What went wrong, without the stderr tail.
    pub fn message(&self) -> String {
        match &self.error {
            DiscoverError::List { message, .. }
            | DiscoverError::ListTimedOut { message, .. }
            | DiscoverError::ListMeasured { message, .. } => message.clone(),
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

    /// Whether the listing was killed (for outlasting its timeout, or for measuring): the
    /// executable ran, so no file was missing.
    pub fn killed(&self) -> bool {
        matches!(
            self.error,
            DiscoverError::ListTimedOut { .. } | DiscoverError::ListMeasured { .. }
        )
    }

    /// One line of the stderr tail that says most: a panic's message (the line after
    /// `panicked at`), else the last line.
    pub fn headline(&self) -> Option<String> {
        stderr_headline(self.stderr_tail())
    }
}

/// The line of a stderr tail that says most: a panic's message (with the line after
/// `panicked at`), else the last line.
fn stderr_headline(tail: &str) -> Option<String> {
    crate::util::panic::message(tail).or_else(|| tail.lines().last().map(str::to_string))
}

/// Bench targets with the benchmark ids each lists, in order.
pub type TargetLists = Vec<(TargetKey, Vec<String>)>;

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
    let names = |failed: &[FailedListing]| -> Vec<TargetKey> {
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
    use super::{split_repeated_ids, split_unstable};

    #[test]
    fn the_repeats_criterion_numbers_are_split_off() {
        let ids = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let (kept, repeated) = split_repeated_ids(ids(&[
            "json",
            "json #2",
            "json #3",
            "issue #12",
            "x #1",
            "y #2",
        ]));
        assert_eq!(kept, ids(&["json", "issue #12", "x #1", "y #2"]));
        assert_eq!(repeated, ids(&["json #2", "json #3"]));
    }

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
    fn a_divan_id_that_changes_is_named_by_its_path_up_to_the_last_double_colon() {
        // divan 0.1.21's terse listings of a benchmark `#[divan::bench(args = [now()])]`, whose
        // argument is the time in nanoseconds, two runs apart (recorded).
        let first = ids(&["t::plain", "t::stamped::1795935123007436755"]);
        let second = ids(&["t::plain", "t::stamped::1795935123027996530"]);
        let (stable, unstable) = split_unstable(first, &second);
        assert_eq!(stable, ["t::plain"]);
        assert_eq!(unstable, ["t::stamped::…"]);
        // A time's single colons do not separate names; a criterion id's last `/` does.
        let (_, unstable) = split_unstable(ids(&["a::t/12:30:01"]), &ids(&["a::t/12:30:02"]));
        assert_eq!(unstable, ["a::t/…"]);
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
            layouts: Vec::new(),
            relink: None,
            relink_missing: None,
            package_root: path.parent().unwrap().to_path_buf(),
            manifest_path: path.parent().unwrap().join("Cargo.toml"),
            src_path: path.parent().unwrap().join("benches/t.rs"),
            harness,
            package_version: "0.1.0".into(),
            cargo_env: Vec::new(),
            native_library_dirs: Vec::new(),
            build_out_dirs: Vec::new(),
        }
    }

    /// One side's listings of targets of package `p`.
    fn side(targets: &[(&str, &[&str])]) -> TargetLists {
        in_packages(
            &targets
                .iter()
                .map(|(t, ids)| ("p", *t, *ids))
                .collect::<Vec<_>>(),
        )
    }

    /// One side's listings of `(package, target, ids)`.
    fn in_packages(targets: &[(&str, &str, &[&str])]) -> TargetLists {
        targets
            .iter()
            .map(|(p, t, ids)| {
                let ids = ids.iter().map(|i| i.to_string()).collect();
                (TargetKey::new(p, t), ids)
            })
            .collect()
    }

    fn target_of(key: &Option<TargetKey>) -> Option<&str> {
        key.as_ref().map(|k| k.target.as_str())
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
        let classified = |name: &str, marker: &str| {
            let path = file_with(dir.path(), name, 4096, marker, 100);
            classify(&executable(&path, false)).unwrap()
        };
        let runs = Classified::Runs;
        assert_eq!(
            classified("c", CRITERION_MARKER),
            runs(HarnessKind::Criterion)
        );
        assert_eq!(classified("d", DIVAN_MARKER), runs(HarnessKind::Divan));
        assert_eq!(classified("b", BENCHER_MARKER), runs(HarnessKind::Bencher));
        let Classified::Skipped { reason } = classified("p", "main") else {
            panic!("a plain binary classified as a harness")
        };
        assert!(reason.contains("plain binary"), "{reason}");
    }

    #[test]
    fn a_target_with_the_default_harness_is_libtest_without_reading_the_file() {
        let missing = Path::new("/nonexistent/dir/bench-123");
        assert_eq!(
            classify(&executable(missing, true)).unwrap(),
            Classified::Runs(HarnessKind::Libtest)
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
    fn an_id_with_a_line_break_is_read_whole_when_criterion_lists_it() {
        // pulldown-cmark: groups named by a string with a line break, two ending alike.
        let out = "plain: benchmark\n    pub fn a() {\n            /1: benchmark\n\
                   \x20   pub fn b() {\n            /1: benchmark\n";
        let ids = [
            "    pub fn a() {\n            /1",
            "    pub fn b() {\n            /1",
        ];
        let mut asked = Vec::new();
        let whole = parse_whole_list(out, |joined| {
            asked.push(joined.to_string());
            ids.contains(&joined)
        });
        assert_eq!(whole, ["plain", ids[0], ids[1]]);
        assert_eq!(asked, ids, "one-line ids are not asked about");
    }

    #[test]
    fn a_stray_line_before_an_id_is_not_glued_onto_it() {
        // A benchmark prints `loading corpus` before the listing; then an id of two lines whose
        // benchmark printed a line of its own before it: the longest join criterion lists wins.
        let out = "loading corpus\nhash/mix: benchmark\nwarming\ng\n/1: benchmark\n";
        let mut asked = Vec::new();
        let whole = parse_whole_list(out, |joined| {
            asked.push(joined.to_string());
            joined == "g\n/1"
        });
        assert_eq!(whole, ["hash/mix", "g\n/1"]);
        assert_eq!(
            asked,
            ["loading corpus\nhash/mix", "warming\ng\n/1", "g\n/1"]
        );
        // Nothing criterion lists whole: each id is its last line, as before (and ids that
        // then read alike are set apart, saying why: `listed_twice_reason`).
        assert_eq!(parse_whole_list(out, |_| false), ["hash/mix", "/1"]);
    }

    #[test]
    fn a_listing_with_more_than_64_ids_after_other_lines_is_read_line_by_line() {
        // A suite whose benchmarks each print a line while listed: no listing process per id.
        let out = "loading\nbench: benchmark\n".repeat(MOST_JOINED_IDS + 1);
        let whole = parse_whole_list(&out, |_| panic!("not asked"));
        assert_eq!(whole.len(), MOST_JOINED_IDS + 1);
        assert!(whole.iter().all(|id| id == "bench"), "{whole:?}");
    }

    #[test]
    fn at_most_sixteen_lines_are_tried_as_one_id() {
        let out = format!("{}last: benchmark\n", "noise\n".repeat(40));
        let mut asked = 0;
        let whole = parse_whole_list(&out, |_| {
            asked += 1;
            false
        });
        assert_eq!(
            (whole, asked),
            (vec!["last".to_string()], MOST_ID_LINES - 1)
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
    fn filters_of_anchored_names_tell_every_id_they_can_match() {
        let exact = |patterns: &[&str]| {
            let patterns: Vec<String> = patterns.iter().map(|p| p.to_string()).collect();
            Filter::new(&patterns).exact_ids()
        };
        let names = |ids: &[&str]| Some(ids.iter().map(|i| i.to_string()).collect::<Vec<_>>());
        assert_eq!(exact(&["^hash$"]), names(&["hash"]));
        assert_eq!(
            exact(&[&format!("^{}$", regex::escape("parse (peak memory)"))]),
            names(&["parse (peak memory)"])
        );
        assert_eq!(exact(&["^(hash|table)$"]), names(&["hash", "table"]));
        assert_eq!(exact(&["^(?:hash|table)$"]), names(&["hash", "table"]));
        assert_eq!(
            exact(&["^hash$|^table$", "^x$"]),
            names(&["hash", "table", "x"])
        );
        assert_eq!(exact(&["^a\\.b$"]), names(&["a.b"]));
        // Anything that may match an id not named: no list.
        for open in [
            "hash",
            "^hash",
            "hash$",
            "^hash.*$",
            "^h.sh$",
            "^(a)|(b)$",
            "^\\d$",
            "^(?i)hash$",
            "^[ab]$",
            "^a\\$",
            "^$",
            "^a|b$",
            "([unclosed",
        ] {
            assert_eq!(exact(&[open]), None, "{open}");
        }
        assert_eq!(exact(&["^hash$", "table"]), None);
        assert_eq!(exact(&[]), None);
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
        assert_eq!(target_of(&by_id["g/a"].base_target), Some("old_name"));
        assert_eq!(target_of(&by_id["g/a"].head_target), Some("new_name"));
        assert_eq!(by_id["g/gone"].presence, Presence::OnlyInBase);
        assert_eq!(by_id["g/gone"].head_target, None);
        assert_eq!(by_id["g/added"].presence, Presence::OnlyInHead);
        assert_eq!(by_id["g/added"].base_target, None);
        assert!(matched.iter().all(|m| m.id == m.criterion_id));
    }

    #[test]
    fn matching_is_deterministic_and_keeps_every_target_of_a_shared_id() {
        let base = side(&[("a", &["x", "y"]), ("b", &["y", "z"])]);
        let head = side(&[("a", &["z", "x"])]);
        let first = match_benchmarks(&base, &head);
        assert_eq!(first, match_benchmarks(&base, &head));
        let ids: Vec<(&str, &str, Presence)> = first
            .iter()
            .map(|m| (m.id.as_str(), m.criterion_id.as_str(), m.presence))
            .collect();
        // `z` moved from target `b` to `a` of the package: still compared.
        assert_eq!(
            ids,
            [
                ("x", "x", Presence::Both),
                ("a::y", "y", Presence::OnlyInBase),
                ("b::y", "y", Presence::OnlyInBase),
                ("z", "z", Presence::Both),
            ]
        );
    }

    #[test]
    fn same_named_targets_of_several_packages_are_matched_by_package() {
        // Head adds member `c` with its own `kern`: `b`'s benchmarks are untouched.
        let base = in_packages(&[("a", "kern", &["c_mix"]), ("b", "kern", &["b_mix", "mix"])]);
        let head = in_packages(&[
            ("a", "kern", &["c_mix"]),
            ("b", "kern", &["b_mix", "mix"]),
            ("c", "kern", &["mix", "c_only"]),
        ]);
        let matched = match_benchmarks(&base, &head);
        let got: Vec<(&str, Presence, Option<&str>)> = matched
            .iter()
            .map(|m| {
                let package = m.target().map(|k| k.package.as_str());
                (m.id.as_str(), m.presence, package)
            })
            .collect();
        assert_eq!(
            got,
            [
                ("c_mix", Presence::Both, Some("a")),
                ("b_mix", Presence::Both, Some("b")),
                ("b::kern::mix", Presence::Both, Some("b")),
                ("c::kern::mix", Presence::OnlyInHead, Some("c")),
                ("c_only", Presence::OnlyInHead, Some("c")),
            ]
        );
        // A member gone in head: its benchmarks are only in base, and nothing moves to another
        // package's target of the same name.
        let matched = match_benchmarks(&head, &base);
        let c_mix = matched.iter().find(|m| m.id == "c::kern::mix").unwrap();
        assert_eq!(c_mix.presence, Presence::OnlyInBase);
        assert_eq!(
            matched
                .iter()
                .find(|m| m.id == "b::kern::mix")
                .unwrap()
                .presence,
            Presence::Both
        );
    }

    #[test]
    fn two_targets_of_one_package_defining_an_id_are_both_kept_under_their_targets() {
        let lists = side(&[("kern", &["a_mix", "k"]), ("kern2", &["a_mix"])]);
        let matched = match_benchmarks(&lists, &lists);
        let ids: Vec<&str> = matched.iter().map(|m| m.id.as_str()).collect();
        assert_eq!(ids, ["kern::a_mix", "k", "kern2::a_mix"]);
        assert!(matched.iter().all(|m| m.presence == Presence::Both));
        assert!(matched.iter().all(|m| m.base_target == m.head_target));
        let filter = Filter::new(&["^a_mix$".to_string()]);
        assert_eq!(matched.iter().filter(|m| m.selected_by(&filter)).count(), 2);
        let filter = Filter::new(&["^kern2::".to_string()]);
        assert_eq!(matched.iter().filter(|m| m.selected_by(&filter)).count(), 1);
    }

    #[test]
    fn a_qualified_id_that_is_another_plain_id_takes_its_package() {
        let lists = side(&[("kern", &["x", "kern::x"]), ("other", &["x"])]);
        let ids: Vec<String> = match_benchmarks(&lists, &lists)
            .into_iter()
            .map(|m| m.id)
            .collect();
        assert_eq!(ids, ["p::kern::x", "kern::x", "other::x"]);
    }

    /// A divan executable that answers each listing with the first `answers` entry whose
    /// arguments match, and records the arguments it was run with.
    fn divan_exe<'a>(
        answers: &'a [(&'a str, Result<&'a str, &'a str>)],
        calls: &'a std::cell::RefCell<Vec<String>>,
    ) -> impl Fn(&[&str]) -> Result<String, DiscoverError> + 'a {
        move |args| {
            let args = args.join(" ");
            calls.borrow_mut().push(args.clone());
            let (_, answer) = answers
                .iter()
                .find(|(prefix, _)| args.starts_with(prefix))
                .expect("an answer for every listing");
            answer
                .map(str::to_string)
                .map_err(|stderr| DiscoverError::List {
                    executable: "bench target \"stream\"".into(),
                    message: format!("`{args}` exited with exit status: 2"),
                    stderr_tail: stderr.to_string(),
                })
        }
    }

    const FORMAT_ERROR: &str = "error: unexpected argument '--format' found\n\nUsage: stream";

    #[test]
    fn divan_s_rejection_of_format_is_known_without_clap_s_error_context() {
        // divan 0.1.14 builds clap without `error-context` unless another dependency enables it.
        let calls = Default::default();
        let answers = [
            ("--list --format", Err("error: unexpected argument found")),
            ("--list --exact stream::sizes::", Ok("stream\n╰─ sizes\n\n")),
            (
                "--list --exact",
                Ok("stream\n├─ parse\n│  ╰─ advance\n╰─ write\n"),
            ),
            ("--list", Ok(TREE)),
            ("--test", Ok("stream\n╰─ sizes\n   ╰─ 8\n")),
        ];
        let listing = list_divan(divan_exe(&answers, &calls), || None).unwrap();
        let ids = [
            "stream::parse::advance",
            "stream::sizes::8",
            "stream::write",
        ];
        assert_eq!(listing.ids, ids);
        // Another usage error is not taken for it.
        let answers = [(
            "--list --format",
            Err("error: invalid value 'terse' for '--format <FORMAT>'"),
        )];
        assert!(list_divan(divan_exe(&answers, &calls), || None).is_err());
    }
    const TREE: &str = "stream\n├─ parse\n│  ╰─ advance\n├─ sizes\n╰─ write\n\n";

    #[test]
    fn divan_is_listed_tersely_first() {
        let calls = Default::default();
        let answers = [
            ("--list --format terse", Ok("stream::write: benchmark\n")),
            ("--test", Ok("stream\n╰─ write\n")),
        ];
        let listing = list_divan(divan_exe(&answers, &calls), || None).unwrap();
        assert_eq!(listing.ids, vec!["stream::write"]);
        assert_eq!(calls.take(), vec!["--list --format terse", "--test"]);
    }

    #[test]
    fn divan_s_thread_counts_are_learned_from_its_test_mode_once() {
        let calls = Default::default();
        let terse = "stream::par: benchmark\nstream::write: benchmark\n";
        let answers = [
            ("--list --format terse", Ok(terse)),
            (
                "--test",
                Ok("stream\n├─ par\n│  ├─ t=1\n│  ╰─ t=4\n╰─ write\n"),
            ),
        ];
        let listing = list_divan(divan_exe(&answers, &calls), || None).unwrap();
        let ids = ["stream::par::t=1", "stream::par::t=4", "stream::write"];
        assert_eq!(listing.ids, ids);
        // A test mode that fails lists the benchmarks by their paths.
        let failing = [
            ("--list --format terse", Ok(terse)),
            ("--test", Err("thread 'main' panicked")),
        ];
        let listing = list_divan(divan_exe(&failing, &calls), || None).unwrap();
        assert_eq!(listing.ids, ["stream::par", "stream::write"]);
    }

    #[test]
    fn divan_before_0_1_18_is_listed_from_its_tree() {
        let calls = Default::default();
        // `sizes` has `args`: the tree shows it as a leaf, which `--exact` does not select.
        let exact = "stream\n├─ parse\n│  ╰─ advance\n╰─ write\n\n";
        // Its test mode shows the arguments, each a leaf below it.
        let arguments = "stream\n╰─ sizes\n   ├─ 8\n   ╰─ 64\n\n";
        let answers = [
            ("--list --format", Err(FORMAT_ERROR)),
            ("--list --exact stream::sizes::", Ok("stream\n╰─ sizes\n\n")),
            ("--list --exact", Ok(exact)),
            ("--list", Ok(TREE)),
            ("--test", Ok(arguments)),
        ];
        let listing = list_divan(divan_exe(&answers, &calls), || None).unwrap();
        let ids = [
            "stream::parse::advance",
            "stream::sizes::8",
            "stream::sizes::64",
            "stream::write",
        ];
        assert_eq!(listing.ids, ids);
        assert_eq!(listing.unselectable, None, "{listing:?}");
        assert_eq!(
            calls.take(),
            vec![
                "--list --format terse",
                "--list",
                "--list --exact stream::parse::advance stream::sizes stream::write",
                "--test ^stream::sizes::",
                "--list --exact stream::sizes::8",
                "--list --exact stream::sizes::64",
                "--test --exact stream::parse::advance stream::write",
            ]
        );
    }

    /// divan 0.1.14's `--test '^old::talk::'` on a scratch crate whose `talk`, with
    /// `args = [1, 8]`, prints `said N` (recorded): what it prints follows each argument's
    /// name on its leaf's line, and its line end leaves a blank line.
    const PRINTED_ARGUMENTS: &str = "old\n╰─ talk\n   ├─ 1said 1\n\n   ╰─ 8said 8\n\n\n";

    #[test]
    fn an_argument_whose_benchmark_prints_in_test_mode_is_read_by_its_own_name() {
        let calls: std::cell::RefCell<Vec<String>> = Default::default();
        // As divan 0.1.14 answers: `--list --exact` shows `talk` when one of its paths is an
        // argument of it (recorded: `old::talk::1` shows it, `old::talk::1s` does not).
        let run = |args: &[&str]| -> Result<String, DiscoverError> {
            calls.borrow_mut().push(args.join(" "));
            let shown = match args {
                ["--test", ..] => PRINTED_ARGUMENTS,
                ["--list", "--exact", paths @ ..]
                    if paths
                        .iter()
                        .any(|p| ["old::talk::1", "old::talk::8"].contains(p)) =>
                {
                    "old\n╰─ talk\n\n"
                }
                _ => "",
            };
            Ok(shown.to_string())
        };
        let talk = ["old::talk".to_string()];
        let arguments = divan_arguments(&run, &talk).unwrap();
        let ids: Vec<&str> = arguments.iter().map(|(_, id)| id.as_str()).collect();
        assert_eq!(ids, ["old::talk::1", "old::talk::8"]);
        // One test-mode run, one listing of each leaf as read, and a few of its prefixes.
        let calls = calls.take();
        assert_eq!(calls.iter().filter(|c| c.starts_with("--test")).count(), 1);
        assert!(calls.len() <= 1 + 2 * 5, "{calls:?}");
    }

    #[test]
    fn divan_arguments_its_test_mode_does_not_show_stay_unselectable_saying_why() {
        let exact = "stream\n├─ parse\n│  ╰─ advance\n╰─ write\n\n";
        let panic = "thread 'main' panicked at benches/stream.rs:9:5:\nno such file\n\
                     note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace";
        // Each argument run at two thread counts: a leaf per count, none its own.
        let threads = "stream\n╰─ sizes\n   ╰─ 8\n      ├─ t=1\n      ╰─ t=2\n\n";
        let cases = [
            (
                Err(panic),
                ArgumentsUnseen::Failed(
                    "exited with exit status: 2: thread 'main' panicked at \
                     benches/stream.rs:9:5: no such file"
                        .to_string(),
                ),
            ),
            (
                Ok("stream\n╰─ sizes\nwarning: x\n"),
                ArgumentsUnseen::Unreadable(
                    "line 3 is not part of divan's tree: \"warning: x\"".to_string(),
                ),
            ),
            (Ok("stream\n╰─ sizes\n\n"), ArgumentsUnseen::NoLeaf),
            (Ok(threads), ArgumentsUnseen::NoLeaf),
        ];
        for (test_mode, cause) in cases {
            let calls = Default::default();
            let answers = [
                ("--list --format", Err(FORMAT_ERROR)),
                ("--list --exact", Ok(exact)),
                ("--list", Ok(TREE)),
                ("--test", test_mode),
            ];
            let listing = list_divan(divan_exe(&answers, &calls), || None).unwrap();
            assert_eq!(listing.ids, vec!["stream::parse::advance", "stream::write"]);
            let expected = Unselectable {
                benchmarks: vec!["stream::sizes".to_string()],
                cause,
            };
            assert_eq!(listing.unselectable, Some(expected), "{test_mode:?}");
        }
    }

    /// `stream::sizes` has `args` (`8` and `64`); the second listing's `--list --exact` shows
    /// it when `shown` does.
    fn listed_twice(shown: &str) -> (Listing, Listing, Vec<String>) {
        let exact = "stream\n├─ parse\n│  ╰─ advance\n╰─ write\n\n";
        let calls = Default::default();
        let answers = [
            ("--list --format", Err(FORMAT_ERROR)),
            (
                "--list --exact stream::parse::advance stream::sizes ",
                Ok(exact),
            ),
            ("--list --exact stream::sizes::", Ok("stream\n╰─ sizes\n\n")),
            ("--list --exact", Ok(shown)),
            ("--list", Ok(TREE)),
            ("--test", Ok("stream\n╰─ sizes\n   ├─ 8\n   ╰─ 64\n\n")),
        ];
        let first = list_divan(divan_exe(&answers, &calls), || None).unwrap();
        calls.borrow_mut().clear();
        let with_args = first.with_args.as_ref().expect("listed from its tree");
        let again = list_divan_again(divan_exe(&answers, &calls), "stream", with_args).unwrap();
        (first, again, calls.take())
    }

    #[test]
    fn a_divan_path_two_benchmarks_share_is_set_apart() {
        // divan 0.1.21's terse listing of a scratch crate with `#[divan::bench(name = "a::b")]`
        // and `mod a { #[divan::bench] fn b() }`, recorded in part.
        let listed = "names::a::b: benchmark\nnames::b: benchmark\nnames::a::b: benchmark\n\
                      names::x::y::inner: benchmark\n";
        let (selectable, shared) = split_shared_paths(divan::parse_list(listed));
        assert_eq!(selectable, ["names::b", "names::x::y::inner"]);
        assert_eq!(shared, ["names::a::b"]);
    }

    #[test]
    fn an_old_divan_is_not_run_in_its_test_mode_again_to_list_it_twice() {
        let (first, again, calls) = listed_twice(TREE);
        assert_eq!(
            first.ids,
            [
                "stream::parse::advance",
                "stream::sizes::8",
                "stream::sizes::64",
                "stream::write"
            ]
        );
        assert_eq!(again.ids, first.ids);
        // The arguments read the first time are asked for by their ids instead.
        assert_eq!(
            calls,
            [
                "--list",
                "--list --exact stream::parse::advance stream::write stream::sizes::8 \
                 stream::sizes::64"
            ]
        );
    }

    #[test]
    fn arguments_an_old_divan_no_longer_has_are_not_listed_again() {
        // Arguments made of a random value: none of those of the first run exists in the
        // second, so divan's filter leaves `sizes` out.
        let (first, again, _) = listed_twice("stream\n├─ parse\n│  ╰─ advance\n╰─ write\n\n");
        assert_eq!(again.ids, ["stream::parse::advance", "stream::write"]);
        let (stable, unstable) = split_unstable(first.ids, &again.ids);
        assert_eq!(stable, ["stream::parse::advance", "stream::write"]);
        assert_eq!(unstable.len(), 1, "{unstable:?}");
    }

    #[test]
    fn an_old_divan_without_args_is_run_in_test_mode_once_for_its_thread_counts() {
        let calls = Default::default();
        let tree = "stream\n╰─ write\n\n";
        let answers = [
            ("--list --format", Err(FORMAT_ERROR)),
            ("--list --exact", Ok(tree)),
            ("--list", Ok(tree)),
            ("--test", Ok(tree)),
        ];
        let listing = list_divan(divan_exe(&answers, &calls), || None).unwrap();
        assert_eq!(listing.ids, vec!["stream::write"]);
        let calls = calls.take();
        assert_eq!(calls.len(), 4, "{calls:?}");
        assert_eq!(calls[3], "--test --exact stream::write");
    }

    /// divan 0.1.7's `--list` of its own internal benchmarks (`internal_benches`, at nvzqz/divan
    /// fb269a9, recorded in part): `tally_alloc` and the group `current` have
    /// `threads = [0, 1, 2, 4, 16]`, drawn as leaves like any other benchmark.
    const OLD_THREADS_TREE: &str = "divan\n├─ alloc\n│  ╰─ thread_info\n│     ├─ tally_alloc\n\
                                    │     ╰─ current\n│        ╰─ try\n╰─ time\n\
                                    \x20  ╰─ get_tsc\n\n";

    /// Its `--test` (recorded in part, on 2 CPUs: `0`, the available parallelism, is `t=2`).
    const OLD_THREADS_TEST_MODE: &str = "divan\n├─ alloc\n│  ╰─ thread_info\n\
                                         │     ├─ tally_alloc\n│     │  ├─ t=1\n\
                                         │     │  ├─ t=2\n│     │  ╰─ t=16\n\
                                         │     ╰─ current\n│        ╰─ try\n\
                                         │           ├─ t=1\n│           ╰─ t=2\n\
                                         ╰─ time\n   ╰─ get_tsc\n\n";

    #[test]
    fn an_old_divan_s_thread_counts_are_benchmarks_of_their_own() {
        // Without them, `divan::alloc::thread_info::tally_alloc` was listed by its path, and
        // every fork of it printed rows for `t=1` … `t=16` and none for it: "matched no
        // benchmark", the benchmark `failed`.
        let calls = Default::default();
        let answers = [
            ("--list --format", Err(FORMAT_ERROR)),
            ("--list --exact", Ok(OLD_THREADS_TREE)),
            ("--list", Ok(OLD_THREADS_TREE)),
            ("--test", Ok(OLD_THREADS_TEST_MODE)),
        ];
        let first = list_divan(divan_exe(&answers, &calls), || None).unwrap();
        let ids = [
            "divan::alloc::thread_info::tally_alloc::t=1",
            "divan::alloc::thread_info::tally_alloc::t=2",
            "divan::alloc::thread_info::tally_alloc::t=16",
            "divan::alloc::thread_info::current::try::t=1",
            "divan::alloc::thread_info::current::try::t=2",
            "divan::time::get_tsc",
        ];
        assert_eq!(first.ids, ids);
        assert_eq!(first.unselectable, None);
        // Each is selected by its path at its count.
        assert_eq!(
            divan::select_args(&first.ids[2]),
            [
                "--exact",
                "divan::alloc::thread_info::tally_alloc",
                "--threads",
                "16"
            ]
        );
        // Listed again (each executable of a side), the counts are not learned anew.
        calls.borrow_mut().clear();
        let with_args = first.with_args.as_ref().expect("listed from its tree");
        let again = list_divan_again(divan_exe(&answers, &calls), "internals", with_args).unwrap();
        let again = with_thread_counts(again, first.thread_counts.clone());
        assert_eq!(again.ids, ids);
        assert!(!calls.take().iter().any(|c| c.starts_with("--test")));
    }

    #[test]
    fn an_unreadable_divan_tree_names_the_version() {
        let calls = Default::default();
        let answers = [
            ("--list --format", Err(FORMAT_ERROR)),
            ("--list", Ok("stream::write: benchmark\n")),
        ];
        let error = list_divan(divan_exe(&answers, &calls), || Some("0.1.14".into())).unwrap_err();
        let message = error.to_string();
        assert!(message.contains("bench target \"stream\""), "{message}");
        assert!(message.contains("its divan 0.1.14 rejects"), "{message}");
        assert!(
            message.contains("divan ≥ 0.1.18 lists reliably"),
            "{message}"
        );
        assert!(
            matches!(error, DiscoverError::List { .. }),
            "set apart, not fatal"
        );
    }

    #[test]
    fn other_divan_listing_failures_are_not_retried() {
        let calls = Default::default();
        let answers = [(
            "--list",
            Err("thread 'main' panicked at benches/stream.rs:3:5"),
        )];
        let error = list_divan(divan_exe(&answers, &calls), || None).unwrap_err();
        assert!(error.to_string().contains("panicked"), "{error}");
        assert_eq!(calls.take().len(), 1);
    }

    #[test]
    fn divan_version_from_the_executable_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("stream");
        // The version's path across the end of the first read (a chunk and its overlap).
        let path_bytes: &[u8] = b"/index/divan-macros-0.1.9/src/divan-0.1.14/src/lib.rs";
        let start = path_bytes.len() - "divan-0.1.14/src/lib.rs".len();
        let mut bytes = vec![0u8; SCAN_CHUNK + 64 - start - 8];
        bytes.extend_from_slice(path_bytes);
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(divan_version(&path).as_deref(), Some("0.1.14"));
        std::fs::write(&path, b"no version here").unwrap();
        assert_eq!(divan_version(&path), None);
    }

    fn failed(target: &str, stderr_tail: &str) -> FailedListing {
        FailedListing {
            target: TargetKey::new("p", target),
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
        assert_eq!(failure.target.target, "speed");
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
            .map(|(side, f)| (*side, f.target.target.as_str()))
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
