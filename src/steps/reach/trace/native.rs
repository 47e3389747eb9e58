//! A benchmark's trace made without valgrind, natively under ptrace, for a bench target whose
//! run under valgrind outlasts its budget or dies at an instruction valgrind cannot decode
//! (docs/design/selection-trace.md, "The native trace").
//!
//! Why: everything a criterion target does before criterion's filter (its `main`, its
//! `criterion_group!` functions) runs in every traced run, and callgrind runs it some 50–100×
//! slower than natively: image-png's `decoder` builds PNGs of up to 12,288² pixels first, which
//! took the one run of its 14 benchmarks past its budget and then each benchmark's own run to
//! its 30 s cap, so all were measured. Natively that set-up takes seconds.
//!
//! What it records, and what selection needs of it ([`follow`] for how):
//! - the functions entered in the benchmark's own executable: a breakpoint at the entry of every
//!   function symbol, removed at its first hit (and put back while a timed routine runs, below).
//!   [`Trace::executed`] then holds those
//!   entry addresses, one per function entered, where valgrind's holds every instruction; the
//!   comparison maps each address to the functions there ([`crate::steps::reach::code`]), so
//!   an entry stands for its function. What this loses: code reached without entering at a
//!   symbol's start (a landing pad, a jump into the middle) lies inside a function already
//!   entered, so nothing for the verdict; the names `--explain` gives a changed function's
//!   inlined callees come from its executed addresses, so only those at its entry are named. A
//!   PLT stub (no symbol) is not counted among the functions compared, as the libraries it leads
//!   to are not compared either.
//! - the files it touches: every system call on a path ([`super::syscalls`]'s set), in each
//!   thread and in each process it forks, read from the tracee's memory at the call's start
//!   and logged in valgrind's format, so that one reader makes [`Trace::files`] for both.
//! - its timed part ([`Trace::timed`], [`timed`]): the functions entered while the harness's
//!   timed routine runs, watched with the probe's state machine (its entry, its return address);
//!   unknown (`None`, [`Trace::untimed`] says why) when no routine is found or the state cannot
//!   be trusted (threads, child processes), and then every executed changed function counts as
//!   timed. And how long the run took before the routine's first entry ([`Trace::set_up_ms`]),
//!   which every fork spends again, for the run's first estimate.
//!
//! The run is the valgrind trace's (the fork's working directory and environment, the harness's
//! test mode with the exact filter, a private `CRITERION_HOME`), bounded by the same budget
//! ([`super::runs::budget`]), counted as the CPU time of the benchmark's processes and of the
//! tracing thread ([`super::budget`]). It runs natively, so CPU features valgrind hides are seen as a
//! fork sees them. Anything that fails is a [`TraceError`] and the benchmark is measured.
//!
//! Several criterion benchmarks of one target can be traced in one such run cut into parts at
//! criterion's `test_start` and `test_pass` ([`trace_split_natively`], [`cuts`]: the
//! breakpoints of entries hit in a benchmark's part are written again at each cut, so that a
//! later part sees them too), which [`super::split`] shares out per benchmark as it does
//! valgrind's split run: the set-up before criterion's filter is then run once, not once per
//! benchmark.

mod cuts;
mod follow;
mod timed;

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Instant;

use super::budget::Budget;
use super::runs::{self, Mode};
use super::syscalls::{self, Touched};
use super::{RunSummary, Trace, TraceError, Tracer};
use crate::model::harness::Harness;
use crate::steps::fork::ForkRequest;

pub use cuts::{Cut, CutAt};

/// The native trace of `req`'s benchmark (a fork request as for [`super::trace_benchmark`]),
/// its output and `CRITERION_HOME` in `dir`.
pub fn trace_natively(req: &ForkRequest, dir: &Path) -> Result<Trace, TraceError> {
    let run = Run {
        args: runs::test_args(req.harness, &req.benchmark_id),
        ids: vec![req.benchmark_id.as_str()],
        budget: runs::budget(req),
        cut_at: None,
    };
    traced(req, dir, routines_of(req), run).map(|(trace, _stops)| trace)
}

/// One native run of the benchmarks `ids`, run as `first` is (its executable, working
/// directory, environment) with `args` (its harness's test mode and a filter selecting them
/// all) within `budget`: one trace of what they executed, read and started together, for a
/// caller that needs only what the run as a whole did (a target none of whose code differs:
/// [`super::split::trace_union_natively`]). Its set-up time is the run's, no benchmark's, so
/// it is left out.
pub fn trace_run_natively(
    first: &ForkRequest,
    dir: &Path,
    (args, ids): (Vec<OsString>, &[&str]),
    budget: Budget,
) -> Result<Trace, TraceError> {
    let run = Run {
        args,
        ids: ids.to_vec(),
        budget,
        cut_at: None,
    };
    let (trace, _stops) = traced(first, dir, routines_of(first), run)?;
    Ok(Trace {
        set_up_ms: None,
        ..trace
    })
}

/// One native run of the criterion benchmarks `ids`, run as `first` is with `args` (test mode,
/// a filter selecting them all) within `budget`, cut into parts at `cut_at` (criterion's
/// `test_start` and `test_pass`): what each part entered, read and timed, for
/// [`super::split::trace_together_natively`] to give each benchmark its share.
pub fn trace_split_natively(
    first: &ForkRequest,
    dir: &Path,
    (args, ids): (Vec<OsString>, &[&str]),
    (cut_at, budget): (CutAt<'_>, Budget),
) -> Result<SplitRun, TraceError> {
    let run = Run {
        args,
        ids: ids.to_vec(),
        budget,
        cut_at: Some(cut_at),
    };
    let (followed, wall_ms, output) = followed(first, dir, routines_of(first), run)?;
    let cut = followed.cut.unwrap_or_default();
    let leader = followed.logs.first().map_or("", |(_, log)| log.as_str());
    let moved = leader.contains(" sys_chdir ") || leader.contains(" sys_fchdir ");
    let logs = (!moved).then(|| cut_log(leader, &cut.log_at)).flatten();
    let mut others_touched = Touched::default();
    for (_, log) in followed.logs.iter().skip(1) {
        let start = (!moved).then_some(first.cwd.as_path());
        others_touched.merge(syscalls::parse(log, start));
    }
    Ok(SplitRun {
        whole: touched(&followed.logs, &first.cwd),
        cut,
        logs,
        others_touched,
        libraries: followed.libraries,
        threads: followed.threads,
        wall_ms,
        output,
    })
}

/// A native run cut into parts ([`trace_split_natively`]).
#[derive(Debug)]
pub struct SplitRun {
    /// Each part's entries, each benchmark part's timed part, how long each part ran, and why
    /// the parts are not in the order expected.
    pub cut: Cut,
    /// The benchmark process's system-call log cut as the parts are; `None` when it could not
    /// be (it changed its directory: a later part's relative paths depend on an earlier one).
    pub logs: Option<Vec<String>>,
    /// What the other processes' system calls touched.
    pub others_touched: Touched,
    /// What every process's system calls touched.
    pub whole: Touched,
    /// The other files mapped executable into the benchmark's process at its exit.
    pub libraries: BTreeSet<PathBuf>,
    /// The threads the benchmark's process started.
    pub threads: usize,
    pub wall_ms: f64,
    /// Its standard output.
    pub output: String,
}

/// `log` cut at the byte offsets `at` (each at a line's end), `None` if one is not.
fn cut_log(log: &str, at: &[usize]) -> Option<Vec<String>> {
    let mut texts = Vec::with_capacity(at.len() + 1);
    let mut from = 0;
    for &to in at.iter().chain([&log.len()]) {
        texts.push(log.get(from..to)?.to_string());
        from = to;
    }
    Some(texts)
}

/// Whether a benchmark of `harness` can be traced natively: only a run in the harness's test
/// mode is followed, and `bencher` has none (its one run measures, which valgrind traces).
pub fn supports(harness: Harness) -> bool {
    Mode::runs_for(harness) == [Mode::Test]
}

/// The entries of `req`'s harness's timed routines (ELF virtual addresses), or why none is
/// known.
fn routines_of(req: &ForkRequest) -> Result<Vec<u64>, String> {
    crate::steps::reach::probe::timed_routines(&req.executable, req.harness)
        .map(|routines| routines.iter().map(|r| r.address).collect())
}

/// What a native run runs: its arguments, the benchmarks its output must show ran, its
/// budget, and for a run cut into parts, where.
struct Run<'a> {
    args: Vec<OsString>,
    ids: Vec<&'a str>,
    budget: Budget,
    cut_at: Option<CutAt<'a>>,
}

/// The native trace of `run` of `req`'s executable, with the entries of the timed routines or
/// why none is known; the trace and the breakpoint stops it made.
fn traced(
    req: &ForkRequest,
    dir: &Path,
    routines: Result<Vec<u64>, String>,
    run: Run<'_>,
) -> Result<(Trace, u64), TraceError> {
    let (followed, wall_ms, _output) = followed(req, dir, routines, run)?;
    let stops = followed.stops;
    Ok((made(req, followed, wall_ms), stops))
}

/// `run` of `req`'s executable followed to its end (as for [`traced`]): what it showed, its wall
/// time, its standard output; an error unless it exited with success, showed each benchmark
/// ran and entered a function.
fn followed(
    req: &ForkRequest,
    dir: &Path,
    routines: Result<Vec<u64>, String>,
    run: Run<'_>,
) -> Result<(follow::Followed, f64, String), TraceError> {
    let who = super::who(req);
    if !supports(req.harness) {
        return Err(TraceError::Unsupported {
            who,
            what: "natively, a benchmark without a test mode or a command,",
        });
    }
    let failed = |message: String, tail: String| TraceError::Failed {
        who: who.clone(),
        mode: Mode::Test,
        message,
        tail,
    };
    let io = |path: &Path| {
        let (who, path) = (who.clone(), path.to_path_buf());
        move |source| TraceError::Io { who, path, source }
    };
    let home = dir.join("criterion-home");
    std::fs::create_dir_all(&home).map_err(io(&home))?;
    let (out_path, err_path) = (dir.join("stdout"), dir.join("stderr"));
    let stdout = std::fs::File::create(&out_path).map_err(io(&out_path))?;
    let stderr = std::fs::File::create(&err_path).map_err(io(&err_path))?;
    let (entries, first_segment) =
        function_entries(&req.executable).map_err(|message| failed(message, String::new()))?;
    let mut env = req.env.clone();
    env.push(("CRITERION_HOME".into(), home.into_os_string()));
    let started = Instant::now();
    let followed = follow::run(follow::Launch {
        program: &req.executable,
        args: run.args,
        cwd: &req.cwd,
        env,
        stdout,
        stderr,
        budget: run.budget,
        entries: &entries,
        routines,
        first_segment,
        cut_at: run.cut_at,
    })
    .map_err(|message| failed(message, String::new()))?;
    let wall_ms = started.elapsed().as_secs_f64() * 1e3;
    let output = std::fs::read(&out_path).map_err(io(&out_path))?;
    let output = String::from_utf8_lossy(&output).into_owned();
    let tail = || tail_of(&err_path);
    if let Some(message) = failure(followed.end) {
        return Err(failed(message, tail()));
    }
    let shown = |id: &&str| runs::shows_run(req.harness, Mode::Test, id, &output);
    if !run.ids.iter().all(shown) {
        return Err(TraceError::NotRun {
            who,
            mode: Mode::Test,
            tail: tail(),
        });
    }
    if followed.entered.is_empty() {
        return Err(TraceError::Addresses {
            who,
            mode: Mode::Test,
            executable: req.executable.clone(),
            message: "no function of it was entered".to_string(),
        });
    }
    Ok((followed, wall_ms, output))
}

/// Why a run that ended so is no trace (`None`: it exited with success).
fn failure(end: follow::End) -> Option<String> {
    match end {
        follow::End::Exited(0) => None,
        follow::End::Stopped(limit) => Some(format!("stopped natively {limit}")),
        follow::End::Interrupted => Some("stopped natively: interrupted".to_string()),
        follow::End::Exited(code) => Some(format!("it exited with {code}")),
        follow::End::Signaled(signal) => Some(format!("it was killed by signal {signal}")),
    }
}

/// The trace of `req`'s benchmark from what its run showed.
fn made(req: &ForkRequest, followed: follow::Followed, wall_ms: f64) -> Trace {
    let touched = touched(&followed.logs, &req.cwd);
    let untimed = |why: String| format!("traced natively, {why}");
    Trace {
        executed: followed.entered,
        libraries: followed.libraries,
        files: touched.files,
        programs: touched.programs,
        unresolved: touched.unresolved,
        sets_affinity: touched.sets_affinity,
        cwd: req.cwd.clone(),
        runs: vec![RunSummary {
            mode: Mode::Test,
            instructions: 0,
            wall_ms,
            shared_by: None,
        }],
        untimed: followed.timed.as_ref().err().cloned().map(untimed),
        timed: followed.timed.ok(),
        tracer: Tracer::Native,
        set_up_ms: followed.set_up.map(|d| d.as_secs_f64() * 1e3),
        ..Trace::default()
    }
}

/// The entry of every function symbol defined in the executable at `path` (ELF virtual
/// addresses), and the virtual address of its segment at file offset 0.
pub fn function_entries(path: &Path) -> Result<(Vec<u64>, u64), String> {
    use object::{Object, ObjectSegment, ObjectSymbol, SymbolKind};
    let data = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let file =
        object::File::parse(&*data).map_err(|e| format!("cannot parse {}: {e}", path.display()))?;
    let entries: BTreeSet<u64> = file
        .symbols()
        .filter(|s| s.kind() == SymbolKind::Text && s.is_definition() && s.address() != 0)
        .map(|s| s.address())
        .collect();
    if entries.is_empty() {
        return Err(format!(
            "{} has no function symbols (stripped?)",
            path.display()
        ));
    }
    let first = file
        .segments()
        .find(|segment| segment.file_range().0 == 0)
        .map(|segment| segment.address())
        .ok_or_else(|| format!("{}: no segment starts at file offset 0", path.display()))?;
    Ok((entries.into_iter().collect(), first))
}

/// What the logs of the run's processes touched: the benchmark's (first) started in `cwd`,
/// the others were forked from it, so started there too unless it changed its directory.
fn touched(logs: &[(i32, String)], cwd: &Path) -> Touched {
    let mut touched = Touched::default();
    let moved = logs
        .first()
        .is_some_and(|(_, log)| log.contains(" sys_chdir ") || log.contains(" sys_fchdir "));
    for (index, (_, log)) in logs.iter().enumerate() {
        let start = (index == 0 || !moved).then_some(cwd);
        touched.merge(syscalls::parse(log, start));
    }
    touched
}

/// The last lines of the file at `path` (the benchmark's standard error).
fn tail_of(path: &Path) -> String {
    let text = std::fs::read(path).unwrap_or_default();
    let text = String::from_utf8_lossy(&text);
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(20)..].join("\n")
}

#[cfg(all(test, target_os = "linux", target_arch = "x86_64"))]
mod tests {
    use super::*;
    use crate::model::harness::Harness;
    use crate::steps::reach::trace::Access;
    use std::path::PathBuf;
    use std::time::Duration;

    /// The run [`trace_natively`] makes of `req`'s one benchmark.
    fn one_run(req: &ForkRequest) -> Run<'_> {
        Run {
            args: runs::test_args(req.harness, &req.benchmark_id),
            ids: vec![req.benchmark_id.as_str()],
            budget: runs::budget(req),
            cut_at: None,
        }
    }

    /// Set in the environment of the traced run: the file the target opens.
    const TARGET_FILE: &str = "PERFDIFF_NATIVE_TRACE_TARGET_FILE";
    /// Set instead: the file where the target writes the process id of a program it starts and
    /// leaves running.
    const LEFT_RUNNING: &str = "PERFDIFF_NATIVE_TRACE_LEFT_RUNNING";

    #[inline(never)]
    fn called_once(x: u64) -> u64 {
        std::hint::black_box(x.wrapping_mul(7))
    }

    #[inline(never)]
    fn never_called(x: u64) -> u64 {
        std::hint::black_box(x.wrapping_mul(11))
    }

    #[inline(never)]
    fn called_in_child(x: u64) -> u64 {
        std::hint::black_box(x.wrapping_mul(13))
    }

    /// Not a check: the program the tests below trace (this test executable, filtered to this
    /// test), doing its work only when [`TARGET_FILE`] is set: it calls one function, opens a
    /// file, starts a program and forks a child that calls another function.
    #[test]
    fn native_target() {
        if let Some(path) = std::env::var_os(LEFT_RUNNING) {
            let child = std::process::Command::new("sleep").arg("300").spawn();
            std::fs::write(path, child.unwrap().id().to_string()).unwrap();
            return;
        }
        let Some(path) = std::env::var_os(TARGET_FILE) else {
            return;
        };
        let total = called_once(3);
        assert!(total == 21 || never_called(total) > 0);
        std::fs::read(&path).unwrap();
        assert!(
            std::process::Command::new("true")
                .status()
                .unwrap()
                .success()
        );
        // SAFETY: the child calls one function and `_exit`s, as a forked child of a program
        // with threads may.
        unsafe {
            let child = libc::fork();
            if child == 0 {
                called_in_child(5);
                libc::_exit(0);
            }
            let mut status = 0;
            libc::waitpid(child, &mut status, 0);
        }
    }

    /// The entry of the function of this test executable whose demangled path ends with `name`.
    fn entry_of(name: &str) -> u64 {
        use object::{Object, ObjectSymbol};
        let data = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        let file = object::File::parse(&*data).unwrap();
        let wanted = format!("native::tests::{name}");
        file.symbols()
            .find(|s| {
                s.name()
                    .is_ok_and(|n| format!("{:#}", rustc_demangle::demangle(n)).ends_with(&wanted))
            })
            .unwrap_or_else(|| panic!("no symbol {name}"))
            .address()
    }

    fn request(cwd: &Path, env: Vec<(OsString, OsString)>) -> ForkRequest {
        ForkRequest {
            executable: std::env::current_exe().unwrap(),
            cwd: cwd.to_path_buf(),
            env,
            benchmark_id: "steps::reach::trace::native::tests::native_target".to_string(),
            harness: Harness::Libtest,
            warm_up: Duration::ZERO,
            measurement: Duration::ZERO,
            sample_size: 10,
            harness_sample_size: None,
            timeout: Duration::from_secs(300),
            criterion_home: cwd.join("home"),
            cpu: None,
            command: None,
        }
    }

    use std::ffi::OsString;

    #[test]
    fn the_functions_entered_the_file_opened_and_a_forked_child_s_calls_are_traced() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("input.txt");
        std::fs::write(&input, b"read by the target").unwrap();
        let env = vec![(TARGET_FILE.into(), input.clone().into_os_string())];
        let scratch = dir.path().join("scratch");
        std::fs::create_dir(&scratch).unwrap();
        let trace = trace_natively(&request(dir.path(), env), &scratch).unwrap();
        assert!(trace.executed.contains(&entry_of("called_once")));
        assert!(!trace.executed.contains(&entry_of("never_called")));
        assert!(trace.executed.contains(&entry_of("called_in_child")));
        assert_eq!(trace.files.get(&input), Some(&Access::Opened));
        assert!(
            trace.programs.iter().any(|p| p.ends_with("true")),
            "{:?}",
            trace.programs
        );
        assert!(trace.unresolved.is_empty(), "{:?}", trace.unresolved);
        assert_eq!(trace.tracer, Tracer::Native);
        // The test executable has no libtest routine of its own (inlined or not instantiated),
        // or the test runs beside libtest's main thread: no timed part either way.
        assert_eq!(trace.timed, None);
        assert!(trace.untimed.is_some());
        assert!(!trace.libraries.is_empty());
    }

    /// A program the benchmark starts and leaves running is killed with it: nothing of the
    /// trace outlives it (a process of its group left stopped once kept the trace waiting).
    #[test]
    fn a_program_the_benchmark_leaves_running_does_not_outlive_its_trace() {
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("pid");
        let env = vec![(LEFT_RUNNING.into(), pid_file.clone().into_os_string())];
        let scratch = dir.path().join("scratch");
        std::fs::create_dir(&scratch).unwrap();
        trace_natively(&request(dir.path(), env), &scratch).unwrap();
        let pid = std::fs::read_to_string(&pid_file).unwrap();
        let running = || {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let state = stat.rsplit(')').next().unwrap_or("").trim_start();
            !stat.is_empty() && !state.starts_with('Z')
        };
        let waited = std::time::Instant::now();
        while running() && waited.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(!running(), "`sleep 300` ({pid}) outlived the trace");
    }

    /// The test programs' functions: a set-up (`set_up_only`, `both`), a timed routine
    /// (`timed`, calling `both` and `in_loop`) and teardown (`after_only`).
    macro_rules! timed_functions {
        () => {
            "use std::hint::black_box;\n\
            #[inline(never)] fn set_up_only(x: u64) -> u64 { black_box(x.wrapping_mul(3)) }\n\
            #[inline(never)] fn both(x: u64) -> u64 { black_box(x.wrapping_mul(5)) }\n\
            #[inline(never)] fn in_loop(x: u64) -> u64 { black_box(x.wrapping_mul(7)) }\n\
            #[inline(never)] fn after_only(x: u64) -> u64 { black_box(x.wrapping_mul(11)) }\n\
            #[inline(never)] fn timed(n: u64) -> u64 {\n\
                let mut acc = 0;\n\
                for i in 0..n { acc ^= both(i) ^ in_loop(i); }\n\
                acc\n\
            }\n"
        };
    }

    /// A program with a set-up, then a timed routine (`timed`), then teardown; it prints the
    /// line libtest's test mode prints for the benchmark `bench`.
    const TIMED_PROGRAM: &str = concat!(
        timed_functions!(),
        "fn main() {\n\
            let mut set_up = 0;\n\
            for i in 0..10_000 { set_up ^= set_up_only(i) ^ both(i); }\n\
            let timed = timed(black_box(1000));\n\
            let after = after_only(set_up ^ timed);\n\
            println!(\"test bench ... ok\");\n\
            black_box(after);\n\
        }\n"
    );

    /// [`TIMED_PROGRAM`]'s functions run as libtest runs a benchmark: on a thread the main
    /// thread starts and then waits for (`join`, asleep in a system call). The thread waits
    /// until the main thread is asleep before its set-up, so that the test does not depend on
    /// which of the two the machine runs first.
    const THREADED_PROGRAM: &str = concat!(
        timed_functions!(),
        "fn main_asleep(main: u32) -> bool {\n\
            let stat = std::fs::read_to_string(format!(\"/proc/self/task/{main}/stat\")).unwrap();\n\
            matches!(stat.rsplit_once(')').unwrap().1.split_whitespace().next(), Some(\"S\"))\n\
        }\n\
        fn main() {\n\
            let main = std::process::id();\n\
            let worker = std::thread::spawn(move || {\n\
                while !main_asleep(main) { std::thread::yield_now(); }\n\
                let mut set_up = 0;\n\
                for i in 0..10_000 { set_up ^= set_up_only(i) ^ both(i); }\n\
                let timed = timed(black_box(1000));\n\
                after_only(set_up ^ timed)\n\
            });\n\
            let after = worker.join().unwrap();\n\
            println!(\"test bench ... ok\");\n\
            black_box(after);\n\
        }\n"
    );

    /// [`TIMED_PROGRAM`] compiled optimised in `dir`, and its functions' entries by name.
    fn timed_program(dir: &Path) -> (PathBuf, std::collections::BTreeMap<String, u64>) {
        compiled(dir, TIMED_PROGRAM)
    }

    /// The program of `text` compiled optimised in `dir`, and its functions' entries by name.
    fn compiled(dir: &Path, text: &str) -> (PathBuf, std::collections::BTreeMap<String, u64>) {
        use object::{Object, ObjectSymbol};
        let source = dir.join("timed.rs");
        std::fs::write(&source, text).unwrap();
        let exe = dir.join("timed");
        let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
        let status = std::process::Command::new(rustc)
            .args(["--edition=2021", "--crate-name", "demo", "-O", "-o"])
            .arg(&exe)
            .arg(&source)
            .status()
            .unwrap();
        assert!(status.success());
        let data = std::fs::read(&exe).unwrap();
        let file = object::File::parse(&*data).unwrap();
        let entries = file
            .symbols()
            .filter_map(|s| {
                let name = format!("{:#}", rustc_demangle::demangle(s.name().ok()?));
                let name = name.strip_prefix("demo::")?.to_string();
                Some((name, s.address()))
            })
            .collect();
        (exe, entries)
    }

    #[test]
    fn a_function_called_in_set_up_and_in_the_timed_routine_is_timed_one_only_in_set_up_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let (exe, entries) = timed_program(dir.path());
        let (req, scratch) = bench_request(dir.path(), exe);
        let (trace, stops) =
            traced(&req, &scratch, Ok(vec![entries["timed"]]), one_run(&req)).unwrap();
        let timed = assert_set_up_apart(&trace, &entries);
        assert!(timed.is_subset(&trace.executed));
        assert_eq!(trace.untimed, None);
        assert!(trace.set_up_ms.is_some());
        // One stop a function outside, one more for `both`, entered again inside, and the
        // return: 10,000 calls of the set-up's functions cost one stop each.
        let executed = trace.executed.len() as u64;
        assert!(stops <= executed + 2, "{stops} stops, {executed} functions");
        // Without a routine: every entry one-shot, no timed part, and why.
        let (untimed, _) = traced(&req, &scratch, Err("none here".into()), one_run(&req)).unwrap();
        assert_eq!(untimed.executed, trace.executed);
        assert_eq!(untimed.timed, None);
        assert!(untimed.untimed.unwrap().contains("none here"));
    }

    #[test]
    fn a_routine_run_on_a_thread_while_the_main_thread_waits_has_its_timed_part() {
        let dir = tempfile::tempdir().unwrap();
        let (exe, entries) = compiled(dir.path(), THREADED_PROGRAM);
        let (req, scratch) = bench_request(dir.path(), exe);
        let (trace, _) = traced(&req, &scratch, Ok(vec![entries["timed"]]), one_run(&req)).unwrap();
        assert_set_up_apart(&trace, &entries);
    }

    /// A request tracing benchmark `bench` of the test program `exe`, and a scratch directory.
    fn bench_request(dir: &Path, exe: PathBuf) -> (ForkRequest, PathBuf) {
        let mut req = request(dir, Vec::new());
        req.executable = exe;
        req.benchmark_id = "bench".to_string();
        let scratch = dir.join("scratch");
        std::fs::create_dir(&scratch).unwrap();
        (req, scratch)
    }

    /// Asserts that the test program's `timed`, `both` and `in_loop` ran in the timed part and
    /// its `set_up_only`, `after_only` and `main` ran outside it; the timed part.
    fn assert_set_up_apart(
        trace: &Trace,
        entries: &std::collections::BTreeMap<String, u64>,
    ) -> std::collections::BTreeSet<u64> {
        let timed = trace
            .timed
            .clone()
            .unwrap_or_else(|| panic!("no timed part: {:?}", trace.untimed));
        for name in ["timed", "both", "in_loop"] {
            assert!(timed.contains(&entries[name]), "{name} is timed");
        }
        for name in ["set_up_only", "after_only", "main"] {
            assert!(!timed.contains(&entries[name]), "{name} is not timed");
            assert!(trace.executed.contains(&entries[name]), "{name} ran");
        }
        timed
    }

    #[test]
    fn a_run_whose_output_does_not_show_the_benchmark_is_no_trace() {
        let dir = tempfile::tempdir().unwrap();
        let mut req = request(dir.path(), Vec::new());
        req.benchmark_id = "no::such::test".to_string();
        let error = trace_natively(&req, dir.path()).unwrap_err();
        assert!(matches!(error, TraceError::NotRun { .. }), "{error}");
    }

    #[test]
    fn the_logs_of_forked_processes_start_in_the_directory_unless_it_changed() {
        let open = |path: &str| {
            format!("SYSCALL[1,1](257) sys_openat ( -100, 0x10({path}), 0 ) --> Success(0x3)")
        };
        let logs = vec![(1, open("a")), (2, open("b"))];
        let files: Vec<PathBuf> = touched(&logs, Path::new("/ck")).files.into_keys().collect();
        assert_eq!(files, [PathBuf::from("/ck/a"), PathBuf::from("/ck/b")]);
        let moved = vec![
            (
                1,
                "SYSCALL[1,1](81) sys_fchdir ( 3 ) --> Success(0x0)".to_string(),
            ),
            (2, open("b")),
        ];
        assert_eq!(touched(&moved, Path::new("/ck")).unresolved.len(), 1);
    }
}
