//! One benchmark of the `bencher` crate counted under callgrind.
//!
//! `bencher` (libtest's benchmark runner ported to stable) calls the user's benchmark function
//! once per sample, with the sample's iteration count in the `Bencher` it passes, and
//! `Bencher::iter` inlined into it: the benchmark function itself (`<crate>::<path>`, the name
//! the fork selects) runs exactly one sample per call. Counting only it, and dumping after every
//! call, gives each sample's count, as for criterion ([`super::criterion`]).
//!
//! `bencher` reports no iteration counts, but it follows a fixed schedule (`Bencher::auto_bench`,
//! the same as libtest's `bench::iter`): one call of 1 iteration, then rounds of 50 calls of `n`
//! iterations and 50 of `5n`, `n` doubling after every round, until the samples agree or 3 s have
//! passed. Only `n` depends on time (1 ms over the first call's time, at least 1); it is found
//! from the counts themselves: with `c₀ = a + b`, `c₁ = a·n + b` and `c₅₁ = 5a·n + b`,
//! `n = (c₅₁ − c₁) / ((c₅₁ − c₁) − 4(c₁ − c₀))` (1 when `c₁ = c₀`). Then every call has its
//! iteration count, and the line through all of them gives the instructions per iteration;
//! a benchmark whose work varies, or a schedule that is not this one, shows as a fit that is not
//! exact.
//!
//! On the demo's `hash::mix`: 901 calls, `n` = 1: 13,022 per iteration, 137 per sample.

use std::path::Path;

use super::{
    Derivation, InstructionOutcome, InstructionsError, Valgrind, dumps, failed, fit, io_error,
    read_profiles,
};
use crate::model::harness::Harness;
use crate::steps::fork::ForkRequest;

/// Calls per half round of the schedule.
pub const HALF_ROUND: usize = 50;

/// The iteration counts of the first `calls` calls of the schedule with `n`.
pub fn schedule(calls: usize, n: u64) -> Vec<f64> {
    (0..calls)
        .map(|j| {
            if j == 0 {
                return 1.0;
            }
            let round = (j - 1) / (2 * HALF_ROUND);
            let factor = if (j - 1) % (2 * HALF_ROUND) < HALF_ROUND {
                1.0
            } else {
                5.0
            };
            n as f64 * factor * 2f64.powi(round as i32)
        })
        .collect()
}

/// The round of the `j`-th call of the schedule (`None` for the first call, before any round).
pub fn round_of(j: usize) -> Option<usize> {
    (j > 0).then(|| (j - 1) / (2 * HALF_ROUND))
}

/// The rounds from which on every sample's iteration count is a multiple of 8 whatever `n`.
pub const FIRST_ALIGNED_ROUND: usize = 3;

/// The line through the samples of the schedule with `n` whose `counts` are given: through the
/// samples of rounds 3 and later when there are any, else through all. In round `m` every
/// sample runs a multiple of 2^m iterations, so from round 3 on a loop the compiler unrolled up
/// to 8 times runs no remainder iterations, and each sample costs exactly `a·k + b`; earlier
/// samples of a few iterations are a few instructions off that line (libtest's loop).
pub fn fit_schedule(counts: &[fit::SampleCount]) -> Option<fit::PerIterationFit> {
    let aligned: Vec<fit::SampleCount> = counts
        .iter()
        .enumerate()
        .filter(|(j, _)| round_of(*j).is_some_and(|m| m >= FIRST_ALIGNED_ROUND))
        .map(|(_, c)| *c)
        .collect();
    if aligned.len() >= 2 * HALF_ROUND {
        return fit::fit(&aligned);
    }
    fit::fit(counts)
}

/// `n` of the schedule from the counts of its calls (at least the first 52); `None` when they do
/// not fit the schedule.
pub fn infer_n(counts: &[f64]) -> Option<u64> {
    let (c0, c1, c51) = (
        *counts.first()?,
        *counts.get(1)?,
        *counts.get(1 + HALF_ROUND)?,
    );
    if (c1 - c0).abs() < 0.5 {
        return Some(1);
    }
    let denominator = (c51 - c1) - 4.0 * (c1 - c0);
    if denominator <= 0.0 {
        return None;
    }
    let n = ((c51 - c1) / denominator).round();
    (n >= 1.0).then_some(n as u64)
}

/// Whether `skeleton` (a [`super::symbols::skeleton`]) is `bencher`'s `Bencher::iter`: the
/// clock read, the loop, the clock read again.
pub fn is_timed_routine(skeleton: &str) -> bool {
    skeleton == "bencher::Bencher::iter"
}

/// The benchmark function of `benchmark_id` (`hash::mix`): `<crate>::hash::mix`.
pub fn is_benchmark_function(name: &str, benchmark_id: &str) -> bool {
    name.split_once("::")
        .is_some_and(|(krate, path)| path == benchmark_id && !krate.contains(['<', ' ']))
}

/// Counts the instructions of the `bencher` benchmark of `req` under `valgrind`, with the
/// profiles in `work_dir`.
pub fn measure(
    req: &ForkRequest,
    valgrind: &Valgrind,
    work_dir: &Path,
) -> Result<InstructionOutcome, InstructionsError> {
    if req.harness != Harness::Bencher || req.command.is_some() {
        return Err(InstructionsError::UnsupportedHarness(req.harness.name()));
    }
    let who = format!("benchmark `{}` under callgrind", req.benchmark_id);
    let id = req.benchmark_id.clone();
    let functions = super::symbols::matching(&req.executable, |skeleton, _| {
        is_benchmark_function(skeleton, &id)
    })?;
    let Some((toggle, functions)) = super::symbols::toggle_pattern(&req.executable, &functions)?
    else {
        return Ok(failed(
            format!(
                "{who}: {} has no function `<crate>::{}` in its symbol table (stripped, \
                 inlined into bencher's runner, or merged by the compiler with another \
                 benchmark function of the same code)",
                req.executable.display(),
                req.benchmark_id
            ),
            String::new(),
        ));
    };
    let out_dir = work_dir.join("profiles");
    std::fs::create_dir_all(&out_dir).map_err(io_error(&out_dir))?;
    let mut args = super::criterion::callgrind_args(&toggle, &functions, &out_dir, &req.executable);
    args.extend(crate::model::harness::bencher::fork_args(&req.benchmark_id));
    let (wall_ms, tail) = match super::command::run_under_valgrind(req, valgrind, args, &who)? {
        Ok(ran) => ran,
        Err(failure) => return Ok(failure),
    };
    let first = dumps::first_with_dumps(&out_dir).map_err(io_error(&out_dir))?;
    let Some(process) = first else {
        return Ok(failed(format!("{who}: no sample was counted"), tail));
    };
    if process.dumps.len() < 2 + HALF_ROUND {
        return Ok(failed(
            format!(
                "{who}: {} calls were counted, fewer than bencher's first round",
                process.dumps.len()
            ),
            tail,
        ));
    }
    let run = ScheduledRun {
        derivation: Derivation::BencherSchedule,
        samples: "calls",
        who: &who,
        tail,
        wall_ms,
    };
    Ok(measured_on_schedule(&process.dumps, run, &req.executable))
}

/// A run of a harness that samples on bencher's schedule (bencher, libtest), its samples'
/// profiles written: what the measurement needs besides them.
pub(super) struct ScheduledRun<'a> {
    pub derivation: Derivation,
    /// What a sample is called in messages (`calls`, `samples`).
    pub samples: &'a str,
    /// The benchmark under callgrind, as messages name it.
    pub who: &'a str,
    /// The end of the run's output, for a failure.
    pub tail: String,
    pub wall_ms: f64,
}

/// The measurement from the profiles of `sample_dumps` (one per sample, in order) of a run on
/// bencher's schedule: its `n` found from the counts, the iterations of every sample from the
/// schedule, a line through them ([`fit_schedule`]); a failure of the benchmark when the
/// profiles cannot be read or do not follow the schedule.
pub(super) fn measured_on_schedule(
    sample_dumps: &[std::path::PathBuf],
    run: ScheduledRun<'_>,
    executable: &Path,
) -> InstructionOutcome {
    let ScheduledRun {
        derivation,
        samples,
        who,
        tail,
        wall_ms,
    } = run;
    let profiles = match read_profiles(sample_dumps) {
        Ok(profiles) => profiles,
        Err(message) => return failed(format!("{who}: {message}"), tail),
    };
    let totals: Vec<f64> = profiles.iter().map(|p| p.total as f64).collect();
    let Some(n) = infer_n(&totals) else {
        let harness = match derivation {
            Derivation::LibtestSchedule => "libtest",
            _ => "bencher",
        };
        return failed(
            format!("{who}: the counts of its {samples} do not follow {harness}'s schedule"),
            tail,
        );
    };
    let iterations = schedule(totals.len(), n);
    let counts: Vec<fit::SampleCount> = iterations
        .iter()
        .zip(&totals)
        .map(|(&iterations, &instructions)| fit::SampleCount {
            iterations,
            instructions,
        })
        .collect();
    let Some(line) = fit_schedule(&counts) else {
        return failed(format!("{who}: no iterations"), tail);
    };
    let counted = super::Counted {
        derivation,
        samples: counts,
        fit: line,
        warm_up_calls: 0,
        profiles: &profiles,
        iterations: iterations.iter().sum(),
        wall_ms,
    };
    super::measured(counted, executable)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schedule_is_one_call_then_rounds_of_n_and_5n_doubling() {
        let s = schedule(302, 3);
        assert_eq!(s[0], 1.0);
        assert!(s[1..51].iter().all(|&k| k == 3.0));
        assert!(s[51..101].iter().all(|&k| k == 15.0));
        assert!(s[101..151].iter().all(|&k| k == 6.0));
        assert!(s[151..201].iter().all(|&k| k == 30.0));
        assert_eq!(s[201], 12.0);
        assert_eq!(s[301], 24.0);
        assert_eq!(round_of(0), None);
        assert_eq!(round_of(100), Some(0));
        assert_eq!(round_of(101), Some(1));
    }

    #[test]
    fn an_unrolled_loop_s_remainders_are_left_out_once_rounds_are_aligned() {
        // 13,021 per iteration, 10 per sample, and up to 7 instructions more for the remainder
        // of a loop unrolled 8 times.
        let counts = |calls: usize| -> Vec<fit::SampleCount> {
            schedule(calls, 1)
                .into_iter()
                .map(|k| fit::SampleCount {
                    iterations: k,
                    instructions: 13_021.0 * k + 10.0 + (k % 8.0),
                })
                .collect()
        };
        let line = fit_schedule(&counts(501)).unwrap();
        assert!((line.per_iteration - 13_021.0).abs() < 1e-6, "{line:?}");
        assert!(line.max_residual < 1e-6, "{line:?}");
        // Before round 3, all samples, a little off.
        let early = fit_schedule(&counts(201)).unwrap();
        assert!((early.per_iteration - 13_021.0).abs() < 0.5, "{early:?}");
    }

    #[test]
    fn n_is_found_from_the_counts() {
        for n in [1, 2, 3, 17, 1000, 1_000_000] {
            let counts: Vec<f64> = schedule(120, n)
                .iter()
                .map(|k| 13_022.0 * k + 137.0)
                .collect();
            assert_eq!(infer_n(&counts), Some(n), "{n}");
        }
        // Not the schedule: the 5n calls cost less than the n calls.
        let mut counts = vec![100.0; 60];
        counts[1] = 300.0;
        assert_eq!(infer_n(&counts), None);
    }

    #[test]
    fn the_benchmark_function_is_the_crate_s_path() {
        assert!(is_benchmark_function("demo::hash::mix", "hash::mix"));
        assert!(!is_benchmark_function("demo::hash::mix2", "hash::mix"));
        assert!(!is_benchmark_function("demo::x::hash::mix", "hash::mix"));
        assert!(!is_benchmark_function(
            "<demo::T as X>::hash::mix",
            "hash::mix"
        ));
    }
}
