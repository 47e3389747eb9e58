//! One libtest `#[bench]` benchmark (nightly) counted under callgrind.
//!
//! libtest inlines everything of a benchmark into one function, the closure it wraps the
//! benchmark function in (`<crate::path::{closure#0} as FnOnce<(&mut test::bench::Bencher,)>>::
//! call_once`): `Bencher::iter`, its sampling loop and the benchmark's closure. What separates
//! one sample from the next is the clock: each sample is `let start = Instant::now(); for _ in
//! 0..k { black_box(inner()) } start.elapsed()`. So valgrind counts only inside that closure
//! (libtest's start-up and its other tests not counted), and dumps after every return from
//! `Instant::now` and before every call of `Instant::elapsed`: a dump triggered by `elapsed`
//! whose previous dump was triggered by `now` is exactly one sample's loop, nothing of the clock
//! or of libtest's statistics in it. (libtest also times each round with `now` and `elapsed`;
//! those dumps follow a dump of the other kind and are left out.)
//!
//! libtest follows the same fixed schedule as the `bencher` crate (one sample of 1 iteration,
//! then rounds of 50 samples of `n` and 50 of `5n`, `n` doubling), so the iteration counts and
//! `n` come as there ([`super::bencher::infer_n`]). On the demo's `hash::mix`: a sample of 1
//! iteration counts 13,028 instructions, samples of 160 and 320 count 2,083,370 and 4,166,730:
//! 13,021 per iteration, the loop being unrolled: samples of few iterations are a few
//! instructions off the line, so the line goes through the samples of rounds 3 and later
//! ([`super::bencher::fit_schedule`]), which run multiples of 8 iterations.

use std::path::{Path, PathBuf};

use super::{Derivation, InstructionOutcome, InstructionsError, Valgrind, dumps, failed, io_error};
use crate::model::harness::Harness;
use crate::steps::fork::ForkRequest;

/// The clock functions whose calls delimit a sample (their [`super::symbols::skeleton`]s).
pub const NOW: &str = "std::time::Instant::now";
pub const ELAPSED: &str = "std::time::Instant::elapsed";

/// Whether `skeleton` (a [`super::symbols::skeleton`]) is one of libtest's functions that hold a
/// benchmark's timed loop: `Bencher::iter`, and the generic functions it times the loop in
/// (`bench::iter`, its samples; `bench::ns_iter_inner`, one sample between two clock reads).
pub fn is_timed_routine(skeleton: &str) -> bool {
    matches!(
        skeleton,
        "test::bench::Bencher::iter" | "test::bench::iter" | "test::bench::ns_iter_inner"
    )
}

/// Whether `name` is the closure libtest wraps benchmark `benchmark_id` (`hash::mix`) in.
pub fn is_benchmark_closure(name: &str, benchmark_id: &str) -> bool {
    let Some(rest) = name.strip_prefix('<') else {
        return false;
    };
    let Some((closure, rest)) = rest.split_once(" as core::ops::function::FnOnce<") else {
        return false;
    };
    let Some(path) = closure
        .strip_suffix("::{closure#0}")
        .or_else(|| closure.strip_suffix("::{{closure}}"))
    else {
        return false;
    };
    rest.ends_with(">>::call_once")
        && rest.contains("test::bench::Bencher")
        && path
            .split_once("::")
            .is_some_and(|(_, path)| path == benchmark_id)
}

/// Counts the instructions of the libtest benchmark of `req` under `valgrind`, with the
/// profiles in `work_dir`. The executable must have been built with a nightly toolchain (or
/// `RUSTC_BOOTSTRAP=1`), as for the time metric.
pub fn measure(
    req: &ForkRequest,
    valgrind: &Valgrind,
    work_dir: &Path,
) -> Result<InstructionOutcome, InstructionsError> {
    if req.harness != Harness::Libtest || req.command.is_some() {
        return Err(InstructionsError::UnsupportedHarness(req.harness.name()));
    }
    let who = format!("benchmark `{}` under callgrind", req.benchmark_id);
    let id = req.benchmark_id.clone();
    let closures = super::symbols::matching(&req.executable, |_, demangled| {
        is_benchmark_closure(demangled, &id)
    })?;
    let now = super::symbols::matching(&req.executable, |skeleton, _| skeleton == NOW)?;
    let elapsed = super::symbols::matching(&req.executable, |skeleton, _| skeleton == ELAPSED)?;
    if closures.is_empty() || now.is_empty() || elapsed.is_empty() {
        return Ok(failed(
            format!(
                "{who}: {} lacks libtest's benchmark closure or `Instant::now`/`elapsed` in its \
                 symbol table (stripped, or a libtest this version does not know)",
                req.executable.display()
            ),
            String::new(),
        ));
    }
    let out_dir = work_dir.join("profiles");
    std::fs::create_dir_all(&out_dir).map_err(io_error(&out_dir))?;
    let Some((toggle, _)) = super::symbols::toggle_pattern(&req.executable, &closures)? else {
        return Ok(failed(
            format!("{who}: no benchmark closure"),
            String::new(),
        ));
    };
    let mut args = callgrind_args(&out_dir, &toggle, &now, &elapsed);
    args.push(req.executable.clone().into_os_string());
    args.extend(crate::model::harness::libtest::fork_args(&req.benchmark_id));
    let (wall_ms, tail) = match super::command::run_under_valgrind(req, valgrind, args, &who)? {
        Ok(ran) => ran,
        Err(failure) => return Ok(failure),
    };
    let first = dumps::first_with_dumps(&out_dir).map_err(io_error(&out_dir))?;
    let Some(process) = first else {
        return Ok(failed(format!("{who}: no sample was counted"), tail));
    };
    let samples = timed_dumps(&process.dumps, &now, &elapsed)?;
    if samples.len() < 2 + 50 {
        return Ok(failed(
            format!(
                "{who}: {} samples were counted, fewer than libtest's first round",
                samples.len()
            ),
            tail,
        ));
    }
    let run = super::bencher::ScheduledRun {
        derivation: Derivation::LibtestSchedule,
        samples: "samples",
        who: &who,
        tail,
        wall_ms,
    };
    Ok(super::bencher::measured_on_schedule(
        &samples,
        run,
        &req.executable,
    ))
}

/// Callgrind's options for a libtest benchmark: counting only inside the benchmark's closure
/// (`toggle`), a dump after each `Instant::now` and before each `elapsed`, so that the dumps
/// between the two hold one timed batch of iterations each.
fn callgrind_args(
    out_dir: &Path,
    toggle: &str,
    now: &[String],
    elapsed: &[String],
) -> Vec<std::ffi::OsString> {
    let mut options = super::criterion::toggled_options(toggle, out_dir);
    options.extend(now.iter().map(|name| format!("--dump-after={name}")));
    options.extend(elapsed.iter().map(|name| format!("--dump-before={name}")));
    options.into_iter().map(Into::into).collect()
}

/// The samples among a process's dumps: each one triggered by `elapsed` right after one
/// triggered by `now`, the work of one timed batch.
fn timed_dumps(
    dumps: &[PathBuf],
    now: &[String],
    elapsed: &[String],
) -> Result<Vec<PathBuf>, InstructionsError> {
    let mut samples = Vec::new();
    let mut previous_was_now = false;
    for path in dumps {
        let text = std::fs::read_to_string(path).map_err(io_error(path))?;
        let trigger = dumps::trigger(&text).unwrap_or("");
        let is_now = trigger
            .strip_prefix("--dump-after=")
            .is_some_and(|name| now.iter().any(|n| n == name));
        let is_elapsed = trigger
            .strip_prefix("--dump-before=")
            .is_some_and(|name| elapsed.iter().any(|n| n == name));
        if is_elapsed && previous_was_now {
            samples.push(path.clone());
        }
        previous_was_now = is_now;
    }
    Ok(samples)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_benchmark_closure_is_found_by_its_path() {
        let name = "<demo::hash::mix::{closure#0} as core::ops::function::FnOnce<(&mut \
                    test::bench::Bencher,)>>::call_once";
        assert!(is_benchmark_closure(name, "hash::mix"));
        assert!(!is_benchmark_closure(name, "hash::mi"));
        assert!(!is_benchmark_closure(name, "mix"));
        assert!(!is_benchmark_closure(
            "<demo::hash::mix::{closure#0} as core::ops::function::FnOnce<(&std::path::Path,)>>::call_once",
            "hash::mix"
        ));
    }
}
