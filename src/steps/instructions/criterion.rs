//! One criterion benchmark counted under callgrind.
//!
//! The benchmark runs as an ordinary fork ([`crate::steps::fork::run_fork`]): connected to us over
//! criterion's runner protocol, it reports the iteration count of every sample, does none of its
//! own analysis and writes no report. The only difference is the executable: a small script in
//! the run's own directory that `exec`s valgrind in front of the bench executable (same process,
//! same process group, so the fork's timeout and kill reach it). valgrind is told:
//!
//! - `--collect-atstart=no --toggle-collect=F`: count nothing but the calls of `F`, criterion's
//!   `Bencher::iter` (or `iter_custom`, `iter_batched`, `iter_batched_ref`): criterion's start-up,
//!   the benchmark's set-up outside the closure, and everything between samples are not counted;
//! - `--dump-after=F`: write the counts after every call, so that each call of the warm-up and of
//!   each sample has its own profile. The last N are the N samples criterion reports.
//!
//! Instructions per iteration are then the slope of a line through `(iterations, instructions)`
//! of the samples, whose iteration counts criterion reports, and of the warm-up calls, whose
//! counts criterion's warm-up fixes (1, 2, 4, …) ([`fit_with_warm_up`], [`super::fit`]). On the demo's `hash/mix` (criterion 0.5, 2,000 rounds of
//! multiply-xorshift) every sample lies on the line `13,022 × iterations + 280`: 13,022
//! instructions per iteration, 280 per sample for reading the clock.
//!
//! Why exact function names rather than a pattern: callgrind applies only the first of its
//! function options whose *pattern* matches a function, so `--toggle-collect='*Bencher*iter*'`
//! and `--dump-after='*Bencher*iter*'` together never dump; given as exact names, both apply.
//! The names are read from the executable's symbol table, demangled as valgrind shows them.
//!
//! What is counted inside the call: the closure's every iteration and criterion's loop around it;
//! with `iter_batched`, also the set-up closure (criterion calls it inside, between timings).

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::{
    CALLGRIND, Derivation, InstructionOutcome, InstructionsError, Valgrind, dumps, failed, fit,
    io_error, read_profiles, symbols,
};
use crate::model::harness::Harness;
use crate::steps::fork::{ForkOutcome, ForkRequest, run_fork};
use crate::util::shell::quote_for_shell;

/// The criterion functions whose calls are the measured part of a benchmark, by their last
/// path segment. `iter_with_setup`, `iter_with_large_drop` and `iter_with_large_setup` call
/// `iter_batched` in the versions that have them, so they are counted through it (toggling both
/// would switch counting off inside).
pub const MEASURED_METHODS: &[&str] = &["iter", "iter_custom", "iter_batched", "iter_batched_ref"];

/// The raw names of criterion's measured `Bencher` methods in the executable at `path`.
pub fn measured_functions(path: &Path) -> Result<Vec<String>, InstructionsError> {
    symbols::matching(path, |skeleton, _| is_measured_method(skeleton))
}

/// `criterion::bencher::Bencher::iter` and the like (a [`symbols::skeleton`]): a method of
/// [`MEASURED_METHODS`] of a type named exactly `Bencher` (not `AsyncBencher`, not libtest's
/// `test::bench::Bencher`).
pub fn is_measured_method(skeleton: &str) -> bool {
    let Some((owner, method)) = skeleton.rsplit_once("::") else {
        return false;
    };
    MEASURED_METHODS.contains(&method)
        && !skeleton.starts_with("test::")
        && (owner == "Bencher" || owner.ends_with("::Bencher"))
}

/// The valgrind options that count only the functions `toggle` matches ([`symbols::toggle_pattern`])
/// and dump after each call of one of `functions`.
pub fn callgrind_options(toggle: &str, functions: &[String], out_dir: &Path) -> Vec<String> {
    let mut options = toggled_options(toggle, out_dir);
    options.extend(functions.iter().map(|f| format!("--dump-after={f}")));
    options
}

/// The valgrind options that count only the functions `toggle` matches, into profiles in
/// `out_dir`; the dump options that delimit the samples follow them (the toggle must come
/// before them: see [`symbols::toggle_pattern`]).
pub fn toggled_options(toggle: &str, out_dir: &Path) -> Vec<String> {
    let mut options: Vec<String> = CALLGRIND.map(String::from).to_vec();
    options.extend([
        dumps::out_file_option(out_dir),
        "--collect-atstart=no".to_string(),
        // Raw symbol names, as the toggle's and the dumps' functions are (super::symbols).
        "--demangle=no".to_string(),
        // Costs by instruction address, for the functions inlined into others (super::inlined).
        "--dump-instr=yes".to_string(),
        format!("--toggle-collect={toggle}"),
    ]);
    options
}

/// The arguments of valgrind that run `executable` with [`callgrind_options`], to which the
/// executable's own arguments are added.
pub fn callgrind_args(
    toggle: &str,
    functions: &[String],
    out_dir: &Path,
    executable: &Path,
) -> Vec<std::ffi::OsString> {
    let mut args: Vec<std::ffi::OsString> = callgrind_options(toggle, functions, out_dir)
        .into_iter()
        .map(Into::into)
        .collect();
    args.push(executable.as_os_str().to_owned());
    args
}

/// Writes the script that runs `executable` under valgrind with `options` (and the arguments it
/// is given), and returns its path.
pub fn write_wrapper(
    dir: &Path,
    valgrind: &Path,
    options: &[String],
    executable: &Path,
) -> Result<PathBuf, InstructionsError> {
    use std::os::unix::fs::PermissionsExt;
    let mut words = vec![quote_for_shell(&valgrind.to_string_lossy())];
    words.extend(options.iter().map(|o| quote_for_shell(o)));
    words.push(quote_for_shell(&executable.to_string_lossy()));
    let script = format!(
        "#!/bin/sh\n# cargo-perfdiff: the benchmark under callgrind\nexec {} \"$@\"\n",
        words.join(" ")
    );
    let path = dir.join("under-callgrind");
    std::fs::write(&path, script).map_err(io_error(&path))?;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
        .map_err(io_error(&path))?;
    Ok(path)
}

/// Counts the instructions of the criterion benchmark of `req` (a criterion fork request, as
/// the time metric would run it) under `valgrind`, using `work_dir` (empty, kept by the caller)
/// for the script and the profiles.
///
/// valgrind slows the benchmark down some 20–50×, while criterion still measures for the wall
/// time it is given: with a short `--measurement-time` it simply runs fewer iterations, which
/// changes nothing of the count per iteration. `req.timeout` must allow for valgrind's start.
pub fn measure(
    req: &ForkRequest,
    valgrind: &Valgrind,
    work_dir: &Path,
) -> Result<InstructionOutcome, InstructionsError> {
    if !matches!(req.harness, Harness::Criterion(_)) || req.command.is_some() {
        return Err(InstructionsError::UnsupportedHarness(req.harness.name()));
    }
    let functions = measured_functions(&req.executable)?;
    let Some((toggle, functions)) = symbols::toggle_pattern(&req.executable, &functions)? else {
        return Ok(failed(
            format!(
                "benchmark `{}`: {} has no criterion `Bencher::iter` in its symbol table (is it \
                 stripped?), so its measured calls cannot be told apart",
                req.benchmark_id,
                req.executable.display()
            ),
            String::new(),
        ));
    };
    let out_dir = work_dir.join("profiles");
    let (outcome, wall_ms) = run_counted(req, valgrind, work_dir, &out_dir, (&toggle, &functions))?;
    let record = match outcome {
        ForkOutcome::Completed(record) => record,
        ForkOutcome::Failed(failure) => return Ok(InstructionOutcome::Failed(failure)),
    };
    let who = format!("benchmark `{}` under callgrind", req.benchmark_id);
    let first = dumps::first_with_dumps(&out_dir).map_err(io_error(&out_dir))?;
    let Some(process) = first else {
        return Ok(failed(
            format!("{who}: no call of {} was counted", functions.join(", ")),
            String::new(),
        ));
    };
    let samples = record.iters.len();
    if process.dumps.len() < samples {
        return Ok(failed(
            format!(
                "{who}: criterion reported {samples} samples, but only {} calls of the measured \
                 function were counted",
                process.dumps.len()
            ),
            String::new(),
        ));
    }
    let warm_up_calls = process.dumps.len() - samples;
    let profiles = match read_profiles(&process.dumps) {
        Ok(profiles) => profiles,
        Err(message) => return Ok(failed(format!("{who}: {message}"), String::new())),
    };
    let (warm_up, measured) = profiles.split_at(warm_up_calls);
    let counts: Vec<fit::SampleCount> = warm_up_iterations(warm_up_calls)
        .chain(record.iters.iter().copied())
        .zip(&profiles)
        .map(|(iterations, profile)| fit::SampleCount {
            iterations,
            instructions: profile.total as f64,
        })
        .collect();
    let Some(line) = fit_with_warm_up(&counts, warm_up.len()) else {
        return Ok(failed(
            format!("{who}: the samples ran no iterations"),
            String::new(),
        ));
    };
    let iterations: f64 = record.iters.iter().sum();
    let counted = super::Counted {
        derivation: Derivation::CriterionSamples,
        samples: counts[warm_up_calls..].to_vec(),
        fit: line,
        warm_up_calls,
        profiles: measured,
        iterations,
        wall_ms,
    };
    Ok(super::measured(counted, &req.executable))
}

/// Runs the fork of `req` under callgrind (through a wrapper script in `work_dir`), counting
/// the calls of `functions` (matched by `toggle`) into `out_dir`: the fork's outcome and its
/// wall time in milliseconds.
fn run_counted(
    req: &ForkRequest,
    valgrind: &Valgrind,
    work_dir: &Path,
    out_dir: &Path,
    (toggle, functions): (&str, &[String]),
) -> Result<(ForkOutcome, f64), InstructionsError> {
    std::fs::create_dir_all(out_dir).map_err(io_error(out_dir))?;
    let options = callgrind_options(toggle, functions, out_dir);
    let wrapper = write_wrapper(work_dir, &valgrind.path, &options, &req.executable)?;
    let mut under_valgrind = req.clone();
    under_valgrind.executable = wrapper;
    let started = Instant::now();
    let outcome = run_fork(&under_valgrind)?;
    Ok((outcome, started.elapsed().as_secs_f64() * 1e3))
}

/// Whether `counts` ran at least two different iteration counts.
fn distinct_iterations(counts: &[fit::SampleCount]) -> bool {
    counts
        .iter()
        .any(|c| c.iterations != counts.first().map_or(0.0, |f| f.iterations))
}

/// The iterations of criterion's warm-up calls: 1, 2, 4, … (its warm-up doubles the count after
/// every call until the warm-up time has passed, in every version since 0.2).
pub fn warm_up_iterations(calls: usize) -> impl Iterator<Item = f64> {
    (0..calls).map(|k| 2f64.powi(k as i32))
}

/// The line through the samples and the warm-up calls (`counts`: the `warm_up` calls first).
///
/// The warm-up calls matter because under valgrind criterion often samples flat: every sample
/// runs the same number of iterations (one, for a slow benchmark), which leaves the per-sample
/// overhead inseparable from the work; the warm-up's 1, 2, 4, … iterations separate them. The
/// first warm-up call is left out when the rest still has two iteration counts: it is the first
/// call of the benchmark, which may initialise something once.
pub fn fit_with_warm_up(
    counts: &[fit::SampleCount],
    warm_up: usize,
) -> Option<fit::PerIterationFit> {
    // The samples alone, when they ran different iteration counts and lie on one line: their
    // iteration counts are criterion's own report, while the warm-up's are inferred (and a
    // warm-up call counted apart from what criterion did would bend the line).
    let samples = &counts[warm_up.min(counts.len())..];
    let exact_samples = distinct_iterations(samples)
        .then(|| fit::fit(samples))
        .flatten()
        .filter(|line| line.exact);
    if exact_samples.is_some() {
        return exact_samples;
    }
    let rest = &counts[warm_up.min(1)..];
    if warm_up > 0 && distinct_iterations(rest) {
        return fit::fit(rest);
    }
    fit::fit(counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_measured_methods_are_criterion_s_bencher_loops() {
        for name in [
            "criterion::bencher::Bencher<M>::iter",
            "<criterion::bencher::Bencher<criterion::measurement::WallTime>>::iter::<u64, \
             demo::hash::{closure#0}>",
            "criterion::Bencher<M>::iter",
            "criterion::bencher::Bencher<M>::iter_batched",
            "criterion::bencher::Bencher<M>::iter_batched_ref",
            "criterion::bencher::Bencher<M>::iter_custom",
            "criterion2::bencher::Bencher<M>::iter",
        ] {
            assert!(is_measured_method(&symbols::skeleton(name)), "{name}");
        }
        for name in [
            "criterion::bencher::Bencher<M>::iter_with_setup",
            "criterion::bencher::AsyncBencher<A,M>::iter",
            "criterion::bencher::Bencher<M>::iter::{{closure}}",
            "test::bench::Bencher::iter",
            "core::iter::traits::iterator::Iterator::map",
            "iter",
        ] {
            assert!(!is_measured_method(&symbols::skeleton(name)), "{name}");
        }
    }

    fn counts(points: &[(f64, f64)]) -> Vec<fit::SampleCount> {
        points
            .iter()
            .map(|&(iterations, instructions)| fit::SampleCount {
                iterations,
                instructions,
            })
            .collect()
    }

    #[test]
    fn flat_samples_are_separated_from_their_overhead_by_the_warm_up() {
        // Seen under load: one warm-up call of 1 iteration, then 10 samples of 1 iteration:
        // nothing separates the 280 instructions of each sample's clock reads.
        let flat = counts(&[(1.0, 13_302.0); 11]);
        let line = fit_with_warm_up(&flat, 1).unwrap();
        assert_eq!(line.per_iteration, 13_302.0);
        assert!(!line.exact);
        // Three warm-up calls (1, 2, 4 iterations) and flat samples of 8: exact, the first
        // warm-up call (which may initialise something once) left out.
        let mut points: Vec<(f64, f64)> = warm_up_iterations(3)
            .map(|n| (n, 13_022.0 * n + 280.0))
            .collect();
        points[0].1 += 5_000.0;
        points.extend([(8.0, 13_022.0 * 8.0 + 280.0); 10]);
        let line = fit_with_warm_up(&counts(&points), 3).unwrap();
        assert!((line.per_iteration - 13_022.0).abs() < 1e-6, "{line:?}");
        assert!(line.exact, "{line:?}");
    }

    #[test]
    fn linear_samples_on_one_line_decide_whatever_the_warm_up_did() {
        // A warm-up call counted apart from what criterion did (an iteration count off the
        // doubling) must not bend an exact line through the samples criterion reported.
        let mut points: Vec<(f64, f64)> = vec![(1.0, 1_850.0), (2.0, 3_400.0), (4.0, 9_999_999.0)];
        points
            .extend((1..=10).map(|k| (f64::from(k) * 64.0, 1_550.0 * f64::from(k) * 64.0 + 90.0)));
        let line = fit_with_warm_up(&counts(&points), 3).unwrap();
        assert!((line.per_iteration - 1_550.0).abs() < 1e-6, "{line:?}");
        assert!(line.exact, "{line:?}");
    }

    #[test]
    fn the_wrapper_execs_valgrind_with_the_benchmark_s_arguments() {
        let dir = tempfile::tempdir().unwrap();
        let options = callgrind_options(
            "_ZN9criterion7bencher16Bencher$LT$M$GT$4iter17h*",
            &["_ZN9criterion7bencher16Bencher$LT$M$GT$4iter17h0123E".to_string()],
            Path::new("/tmp/out dir"),
        );
        let path = write_wrapper(
            dir.path(),
            Path::new("/usr/bin/valgrind"),
            &options,
            Path::new("/x/demo-1234"),
        )
        .unwrap();
        let script = std::fs::read_to_string(path).unwrap();
        assert!(
            script.contains(
                "exec /usr/bin/valgrind --tool=callgrind -q --vgdb=no '--callgrind-out-file=/tmp/out dir/\
                 callgrind.out.%p' --collect-atstart=no --demangle=no --dump-instr=yes \
                 '--toggle-collect=_ZN9criterion7bencher16Bencher$LT$M$GT$4iter17h*' \
                 '--dump-after=_ZN9criterion7bencher16Bencher$LT$M$GT$4iter17h0123E' \
                 /x/demo-1234 \"$@\""
            ),
            "{script}"
        );
    }
}
