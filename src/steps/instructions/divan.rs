//! One divan benchmark counted under callgrind.
//!
//! divan prints no iteration counts per sample, but it lets the command line fix them:
//! `--sample-count C --sample-size S` runs exactly C samples of S iterations each. Each sample
//! runs in one call of divan's sample task (`divan::thread_pool::TaskShared<F>::new::call` in
//! divan 0.1, the benchmark inlined into it), so counting only that function and dumping after
//! each call gives each sample's count, as for criterion ([`super::criterion`]). All samples of
//! one run have the same size, which leaves divan's per-sample overhead (reading the clock)
//! inside; so the benchmark runs twice, with samples of [`SMALL_SAMPLE`] and [`LARGE_SAMPLE`]
//! iterations, and the line through both runs' samples separates the two. divan's start-up,
//! its timer calibration (by far the largest part of a divan run under valgrind: some 90 million
//! instructions) and its statistics are not counted.
//!
//! On the demo's `hash::mix`: every sample of 1 iteration counted 13,264 instructions, every
//! sample of 11 counted 143,614: 13,035 per iteration (divan's loop around the call costs 13
//! more than criterion's), 229 per sample.

use std::path::Path;

use super::profile::Profile;
use super::{
    Derivation, InstructionOutcome, InstructionsError, Valgrind, dumps, failed, fit, io_error,
    read_profiles,
};
use crate::model::harness::Harness;
use crate::steps::fork::ForkRequest;

/// Samples per run (they should all count the same; more only cost time).
pub const SAMPLE_COUNT: usize = 3;
/// Iterations per sample of the first run.
pub const SMALL_SAMPLE: usize = 1;
/// Iterations per sample of the second run.
pub const LARGE_SAMPLE: usize = 5;

/// The crates divan's code is compiled under: divan itself, and CodSpeed's wall-time fork of it,
/// `codspeed-divan-compat-walltime`, which a repository gets through `codspeed-divan-compat`
/// (usually renamed to `divan` in its manifest, so the benchmarks read the same). The fork keeps
/// divan 0.1's modules and functions under its own crate name, and nothing else tells the two
/// apart in an executable's symbols.
const DIVAN_CRATES: [&str; 2] = ["divan", "codspeed_divan_compat_walltime"];

/// `skeleton`'s path inside divan (or its fork, [`DIVAN_CRATES`]): `thread_pool::TaskShared::
/// new::call` for `divan::thread_pool::TaskShared::new::call`; `None` outside them.
fn within_divan(skeleton: &str) -> Option<&str> {
    DIVAN_CRATES.iter().find_map(|krate| {
        skeleton
            .strip_prefix(krate)
            .and_then(|rest| rest.strip_prefix("::"))
    })
}

/// Whether `skeleton` (a [`super::symbols::skeleton`]) is divan's sample task (in
/// `divan::thread_pool` from 0.1.16; `divan::util::thread::pool` in its repository since 0.1.21),
/// in divan or its fork ([`DIVAN_CRATES`]).
pub fn is_sample_task(skeleton: &str) -> bool {
    matches!(
        within_divan(skeleton),
        Some("thread_pool::TaskShared::new::call" | "util::thread::pool::TaskShared::new::call")
    )
}

/// Whether `skeleton` is divan's sampling loop, `BenchContext::bench_loop_threaded` (in
/// `divan::bench` until 0.1.17, `divan::benchmark` since; in divan or its fork,
/// [`DIVAN_CRATES`]): it runs every sample of a benchmark, and divan's tuning between them, in
/// every version.
pub fn is_sampling_loop(skeleton: &str) -> bool {
    matches!(
        within_divan(skeleton),
        Some(
            "bench::BenchContext::bench_loop_threaded"
                | "benchmark::BenchContext::bench_loop_threaded"
        )
    )
}

/// Counts the instructions of the divan benchmark of `req` (`req.benchmark_id` its path) under
/// `valgrind`, using `work_dir` for the profiles.
pub fn measure(
    req: &ForkRequest,
    valgrind: &Valgrind,
    work_dir: &Path,
) -> Result<InstructionOutcome, InstructionsError> {
    if req.harness != Harness::Divan || req.command.is_some() {
        return Err(InstructionsError::UnsupportedHarness(req.harness.name()));
    }
    let who = format!("benchmark `{}` under callgrind", req.benchmark_id);
    let functions =
        super::symbols::matching(&req.executable, |skeleton, _| is_sample_task(skeleton))?;
    let Some((toggle, functions)) = super::symbols::toggle_pattern(&req.executable, &functions)?
    else {
        return Ok(failed(
            format!(
                "{who}: {} has no divan sample task (`divan::thread_pool::TaskShared<F>::new::\
                 call`) in its symbol table: a divan version other than 0.1, or a stripped \
                 executable",
                req.executable.display()
            ),
            String::new(),
        ));
    };
    let mut counts = Vec::new();
    let mut large_profiles = Vec::new();
    let mut wall_ms = 0.0;
    for size in [SMALL_SAMPLE, LARGE_SAMPLE] {
        let run = SampleRun {
            req,
            valgrind,
            toggle: &toggle,
            functions: &functions,
            who: &who,
        };
        let (ms, profiles) = match run.count(size, work_dir)? {
            Ok(counted) => counted,
            Err(failure) => return Ok(failure),
        };
        wall_ms += ms;
        counts.extend(profiles.iter().map(|p| fit::SampleCount {
            iterations: size as f64,
            instructions: p.total as f64,
        }));
        if size == LARGE_SAMPLE {
            large_profiles = profiles;
        }
    }
    let Some(line) = fit::fit(&counts) else {
        return Ok(failed(format!("{who}: no iterations"), String::new()));
    };
    let iterations = (SAMPLE_COUNT * LARGE_SAMPLE) as f64;
    let counted = super::Counted {
        derivation: Derivation::DivanTwoSampleSizes,
        samples: counts,
        fit: line,
        warm_up_calls: 0,
        profiles: &large_profiles,
        iterations,
        wall_ms,
    };
    Ok(super::measured(counted, &req.executable))
}

/// One run of a divan benchmark under callgrind, counting each of [`SAMPLE_COUNT`] samples.
struct SampleRun<'a> {
    req: &'a ForkRequest,
    valgrind: &'a Valgrind,
    /// Callgrind's `--toggle-collect` pattern and the functions it names (the sample task).
    toggle: &'a str,
    functions: &'a [String],
    who: &'a str,
}

impl SampleRun<'_> {
    /// Runs the benchmark with `size` iterations a sample, its profiles in `work_dir`: the wall
    /// time of the run and each sample's profile, or the outcome of a failed run.
    fn count(
        &self,
        size: usize,
        work_dir: &Path,
    ) -> Result<Result<(f64, Vec<Profile>), InstructionOutcome>, InstructionsError> {
        let (req, who) = (self.req, self.who);
        let out_dir = work_dir.join(format!("profiles-{size}"));
        std::fs::create_dir_all(&out_dir).map_err(io_error(&out_dir))?;
        let mut args = super::criterion::callgrind_args(
            self.toggle,
            self.functions,
            &out_dir,
            &req.executable,
        );
        let select = crate::model::harness::divan::select_args(&req.benchmark_id);
        let select = select.iter().map(String::as_str);
        for arg in std::iter::once("--bench").chain(select).chain([
            "--sample-count",
            &SAMPLE_COUNT.to_string(),
            "--sample-size",
            &size.to_string(),
            "--color",
            "never",
        ]) {
            args.push(arg.into());
        }
        let (ms, tail) = match super::command::run_under_valgrind(req, self.valgrind, args, who)? {
            Ok(ran) => ran,
            Err(failure) => return Ok(Err(failure)),
        };
        let first = dumps::first_with_dumps(&out_dir).map_err(io_error(&out_dir))?;
        let Some(process) = first else {
            let message = format!(
                "{who}: no sample was counted (is `{}` its exact path?)",
                req.benchmark_id
            );
            return Ok(Err(failed(message, tail)));
        };
        if process.dumps.len() != SAMPLE_COUNT {
            let message = format!(
                "{who}: {} samples were counted, {SAMPLE_COUNT} asked for",
                process.dumps.len()
            );
            return Ok(Err(failed(message, tail)));
        }
        match read_profiles(&process.dumps) {
            Ok(profiles) => Ok(Ok((ms, profiles))),
            Err(message) => Ok(Err(failed(format!("{who}: {message}"), tail))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sample_task_is_divan_s() {
        let skeleton = super::super::symbols::skeleton;
        for name in [
            "divan::thread_pool::TaskShared<F>::new::call",
            "<divan::thread_pool::TaskShared<_>>::new::call::<<divan::thread_pool::ThreadPool>\
             ::par_extend<u8, fn() -> u8>>",
        ] {
            assert!(is_sample_task(&skeleton(name)), "{name}");
        }
        assert!(!is_sample_task(&skeleton(
            "divan::thread_pool::ThreadPool::broadcast_task"
        )));
        assert!(!is_sample_task(&skeleton(
            "mycrate::TaskShared<F>::new::call"
        )));
    }

    /// const-hex's benchmarks (`divan = { package = "codspeed-divan-compat" }`) hold divan's
    /// sample task and sampling loop under the fork's crate, as `nm -C` shows them in its
    /// executable; a crate whose name merely starts like divan's holds neither.
    #[test]
    fn codspeed_s_fork_of_divan_has_divan_s_sample_task_and_sampling_loop() {
        let skeleton = super::super::symbols::skeleton;
        assert!(is_sample_task(&skeleton(
            "codspeed_divan_compat_walltime::thread_pool::TaskShared<F>::new::call"
        )));
        assert!(is_sampling_loop(&skeleton(
            "<codspeed_divan_compat_walltime::bench::BenchContext>::bench_loop_threaded::<(), u64, \
             _, _, _>"
        )));
        for name in [
            "divan_extra::thread_pool::TaskShared<F>::new::call",
            "codspeed_divan_compat::thread_pool::TaskShared<F>::new::call",
            "codspeed_divan_compat_walltime::thread_pool::ThreadPool::broadcast_task",
        ] {
            assert!(!is_sample_task(&skeleton(name)), "{name}");
            assert!(!is_sampling_loop(&skeleton(name)), "{name}");
        }
    }
}
