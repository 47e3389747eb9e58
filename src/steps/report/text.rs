//! Number and label formatting shared by every format, so that the table, the Markdown and the
//! HTML say the same thing in the same words.

use crate::model::samples::{Mode, ModeChange, RevisionInfo, RunInfo};
use crate::stats::{CliffsDelta, IntervalKind, Magnitude, RatioInterval};
use crate::steps::analysis::{BenchmarkResult, Outcome, Report, ReportSettings, SettingsFromCode};
use crate::steps::fork::shared_cpus;
use crate::util::terminal::wall_time;

/// Placeholder for a value that does not exist (e.g. the base mean of a benchmark only in head).
pub const MISSING: &str = "—";

/// Verdicts in the order the summary line lists them.
pub const SUMMARY_ORDER: [Outcome; 7] = [
    Outcome::Regressed,
    Outcome::Improved,
    Outcome::Unchanged,
    Outcome::Inconclusive,
    Outcome::Failed,
    Outcome::OnlyInBase,
    Outcome::OnlyInHead,
];

/// A verdict as words: `only in head` rather than `only_in_head`.
pub fn outcome_label(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::OnlyInBase => "only in base",
        Outcome::OnlyInHead => "only in head",
        other => other.as_str(),
    }
}

/// A benchmark's verdict as a row shows it: `unchanged (same code)` for one decided without
/// measuring, because it executes the same code on both sides (docs/selection.md).
pub fn verdict_label(result: &BenchmarkResult) -> String {
    if result.same_code() {
        format!("{} (same code)", outcome_label(result.verdict))
    } else {
        outcome_label(result.verdict).to_string()
    }
}

/// A time per iteration in human units with three significant digits: `812 ns`, `1.23 µs`.
pub fn duration(ns: f64) -> String {
    if !ns.is_finite() {
        return MISSING.to_string();
    }
    const UNITS: [(f64, &str); 4] = [(1.0, "ns"), (1e3, "µs"), (1e6, "ms"), (1e9, "s")];
    let magnitude = ns.abs();
    // Thresholds at 999.5 so that rounding never prints `1000 µs` instead of `1.00 ms`.
    let (scale, unit) = UNITS
        .iter()
        .rev()
        .find(|(scale, _)| magnitude >= scale * 0.9995)
        .copied()
        .unwrap_or(UNITS[0]);
    let value = ns / scale;
    let decimals = match value.abs() {
        v if v >= 99.95 => 0,
        v if v >= 9.995 => 1,
        v if v >= 0.9995 || v == 0.0 => 2,
        _ => 3,
    };
    format!("{value:.decimals$} {unit}")
}

/// Optional mean time, `—` when absent.
pub fn mean(ns: Option<f64>) -> String {
    ns.map_or_else(|| MISSING.to_string(), duration)
}

/// A benchmark's mean in its unit: a duration for criterion's wall time (`unit` `None`),
/// otherwise three significant digits and the unit its custom measurement names (`1.23e4
/// cycles` reads `12300 cycles`).
pub fn mean_in(value: Option<f64>, unit: Option<&str>) -> String {
    match (value, unit) {
        (Some(value), Some(crate::model::command::MEMORY_UNIT)) if value.is_finite() => {
            bytes(value)
        }
        (Some(value), Some(crate::model::profile::INSTRUCTIONS_UNIT)) if value.is_finite() => {
            format!("{} instr", instructions(value))
        }
        (Some(value), Some(unit)) if value.is_finite() => format!("{} {unit}", significant(value)),
        (value, _) => mean(value),
    }
}

/// A count of instructions per iteration: whole numbers with thousands separators from 100 on
/// (`13,022`), one decimal below (`42.5`).
pub fn instructions(value: f64) -> String {
    if !value.is_finite() {
        return MISSING.to_string();
    }
    if value.abs() < 100.0 {
        return format!("{value:.1}");
    }
    let digits = format!("{:.0}", value.abs());
    let mut grouped = String::new();
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    if value < 0.0 {
        format!("-{grouped}")
    } else {
        grouped
    }
}

/// How a function's own instructions per iteration changed: `+10.0 %`, or `new` / `gone` for a
/// function on one side only.
pub fn function_change(change: &crate::model::profile::FunctionChange) -> String {
    let (base, head) = (change.base.self_, change.head.self_);
    match (base > 0.0, head > 0.0) {
        (true, _) => self::change(Some(head / base - 1.0)),
        (false, true) => "new".to_string(),
        (false, false) => {
            let (b, h) = (change.base.inclusive, change.head.inclusive);
            if b > 0.0 {
                self::change(Some(h / b - 1.0))
            } else {
                "new".to_string()
            }
        }
    }
}

/// A size in bytes with a binary unit and three significant digits: `812 KiB`, `33.7 MiB`.
pub fn bytes(value: f64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut scaled = value;
    let mut unit = 0;
    while scaled.abs() >= 1024.0 && unit + 1 < UNITS.len() {
        scaled /= 1024.0;
        unit += 1;
    }
    format!("{} {}", significant(scaled), UNITS[unit])
}

/// A relative change as a signed percentage: `+12.3 %`, `-4.0 %`.
pub fn change(rate: Option<f64>) -> String {
    match rate {
        Some(r) if r.is_finite() => format!("{:+.1} %", r * 100.0),
        _ => MISSING.to_string(),
    }
}

/// A relative threshold as a percentage without sign: `2 %`, `0.5 %`.
pub fn percent(fraction: f64) -> String {
    let p = fraction * 100.0;
    if (p - p.round()).abs() < 1e-9 {
        format!("{p:.0} %")
    } else {
        trim_float(p, 2) + " %"
    }
}

/// `value` with at most `decimals` decimals and no trailing zeros.
fn trim_float(value: f64, decimals: usize) -> String {
    let s = format!("{value:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// The ratio CI as `[1.10, 1.15]`, with enough decimals to tell the bounds apart, marked
/// [`EQUIVALENCE_MARK`] when it is the interval of two one-sided tests (`unchanged`).
pub fn ratio_ci(ratio: Option<&RatioInterval>) -> String {
    let Some(r) = ratio else {
        return MISSING.to_string();
    };
    let width = (r.ci_high - r.ci_low).abs();
    let decimals = if width >= 0.02 {
        2
    } else if width >= 0.002 {
        3
    } else {
        4
    };
    let mark = match r.kind {
        IntervalKind::Difference => "",
        IntervalKind::Equivalence => EQUIVALENCE_MARK,
    };
    format!("[{:.decimals$}, {:.decimals$}]{mark}", r.ci_low, r.ci_high)
}

/// Marks an interval of two one-sided tests in the table and the Markdown.
pub const EQUIVALENCE_MARK: &str = "†";

/// The level of the intervals that show a change: `1 − alpha`.
pub fn difference_level(settings: &ReportSettings) -> f64 {
    1.0 - settings.alpha
}

/// What the intervals of the report are, when some row shows the interval of two one-sided
/// tests: "intervals: 99.65 % t over the paired rounds; * `unchanged`: …".
pub fn interval_legend(report: &Report) -> Option<String> {
    let equivalence = report
        .benchmarks
        .iter()
        .filter_map(|b| b.ratio)
        .find(|r| r.kind == IntervalKind::Equivalence)?;
    Some(format!(
        "{EQUIVALENCE_MARK} the {} interval of two one-sided tests at alpha {}: inside \
         ±threshold, no change as large as the threshold (`unchanged`); the other intervals are \
         {} t intervals over the paired rounds",
        percent(equivalence.confidence),
        significant(report.settings.equivalence_alpha()),
        percent(difference_level(&report.settings)),
    ))
}

/// A p-value in three characters or so: `0.042`, `3.1e-5`.
pub fn p_value(p: f64) -> String {
    if !p.is_finite() {
        MISSING.to_string()
    } else if p >= 0.001 || p == 0.0 {
        format!("{p:.3}")
    } else {
        format!("{p:.1e}")
    }
}

/// The deciding paired test's p, and the FDR-adjusted q in parentheses when FDR is on.
pub fn p_and_q(result: &BenchmarkResult, fdr: bool) -> String {
    match result.paired {
        Some(test) if fdr => format!("{} ({})", p_value(test.p_value), p_value(test.q_value)),
        Some(test) => p_value(test.p_value),
        None => MISSING.to_string(),
    }
}

/// Which interval a benchmark's `ratio` is, in words: `99.65 % t over 10 rounds`, or for an
/// `unchanged` verdict `99.3 % (two one-sided tests) over 10 rounds`.
pub fn interval_label(result: &BenchmarkResult) -> Option<String> {
    let (ratio, test) = (result.ratio?, result.paired?);
    let units = format!("{} {}", test.rounds.n, test.rounds.unit.as_str());
    Some(match ratio.kind {
        IntervalKind::Difference => {
            format!("{} t interval over {units}", percent(ratio.confidence))
        }
        IntervalKind::Equivalence => format!(
            "{} interval of two one-sided tests over {units}",
            percent(ratio.confidence)
        ),
    })
}

pub fn magnitude_label(magnitude: Magnitude) -> &'static str {
    match magnitude {
        Magnitude::Negligible => "negligible",
        Magnitude::Small => "small",
        Magnitude::Medium => "medium",
        Magnitude::Large => "large",
    }
}

/// Cliff's delta with its magnitude: `+0.62 large`.
pub fn delta(delta: Option<&CliffsDelta>) -> String {
    match delta {
        Some(d) => format!("{:+.2} {}", d.delta, magnitude_label(d.magnitude)),
        None => MISSING.to_string(),
    }
}

/// The layout spread as `±4.1 %`, or [`MISSING`] for a benchmark measured in one layout.
pub fn layout_spread(result: &BenchmarkResult) -> String {
    match result.layout_spread {
        Some(layout) => format!("±{}", percent(layout.spread)),
        None => MISSING.to_string(),
    }
}

/// Forks run as `base/head`, and how many of them were measured again after a disturbance when
/// any were: `7/9 (1 again)`.
pub fn forks(result: &BenchmarkResult) -> String {
    let forks = result.forks;
    match forks.remeasured.total() {
        0 => format!("{}/{}", forks.base, forks.head),
        again => format!("{}/{} ({again} again)", forks.base, forks.head),
    }
}

/// Counts of every verdict present, in [`SUMMARY_ORDER`].
pub fn counts(report: &Report) -> Vec<(Outcome, usize)> {
    SUMMARY_ORDER
        .iter()
        .map(|&o| {
            (
                o,
                report.benchmarks.iter().filter(|b| b.verdict == o).count(),
            )
        })
        .filter(|&(_, n)| n > 0)
        .collect()
}

/// `1 regressed, 1 improved, 1 unchanged, 1 only in head`.
pub fn summary_line(report: &Report) -> String {
    let same_code = report.benchmarks.iter().filter(|b| b.same_code()).count();
    let parts: Vec<String> = counts(report)
        .into_iter()
        .map(|(o, n)| match o {
            Outcome::Unchanged if same_code > 0 => format!("{n} unchanged ({same_code} same code)"),
            o => format!("{n} {}", outcome_label(o)),
        })
        .collect();
    if parts.is_empty() {
        "no benchmarks".to_string()
    } else {
        parts.join(", ")
    }
}

/// Where the run's time went, `None` when the samples file does not say (older files, merged
/// shards, replays): `1 min 34 s in all: build 41.0 s (base 30.0 s, head 11.0 s) · trace
/// 12.0 s · probe 3.0 s · measuring 25.8 s (36 forks, 6 per benchmark and side)` when the run
/// recorded its phases ([`super::time::split`]), else `3 min 50 s in all, 3 min 49 s of it
/// running 160 forks (3.3 per benchmark and side)`.
pub fn time_line(report: &Report) -> Option<String> {
    let wall_ms = report.run.wall_ms?;
    let measure_ms = report.run.measure_ms?;
    let forks = fork_summary(report);
    if let Some(phases) = &report.run.phases {
        return Some(format!(
            "{} in all: {}",
            wall_time(wall_ms),
            super::time::split(phases, wall_ms, measure_ms, &forks)
        ));
    }
    let details = forks.details();
    let details = match details.is_empty() {
        true => String::new(),
        false => format!(" ({})", details.join(", ")),
    };
    Some(format!(
        "{} in all, {} of it running {} fork{}{details}",
        wall_time(wall_ms),
        wall_time(measure_ms),
        forks.forks,
        if forks.forks == 1 { "" } else { "s" }
    ))
}

/// Every phase of the run's time, for `--explain` ([`super::time::detail`]); `None` when the
/// samples file does not record them.
pub fn time_detail_line(report: &Report) -> Option<String> {
    let phases = report.run.phases.as_ref()?;
    Some(super::time::detail(
        phases,
        report.run.wall_ms?,
        report.run.measure_ms?,
    ))
}

/// The forks the rounds ran (those measured again after a disturbance among them), and how
/// many per benchmark and side that ran any.
fn fork_summary(report: &Report) -> super::time::ForkSummary {
    let sides: Vec<usize> = report
        .benchmarks
        .iter()
        .flat_map(|b| [b.forks.base, b.forks.head])
        .filter(|&forks| forks > 0)
        .collect();
    let forks: usize = sides.iter().sum();
    let per_side = (!sides.is_empty()).then(|| {
        format!(
            "{} per benchmark and side",
            trim_float(forks as f64 / sides.len() as f64, 1)
        )
    });
    let remeasured = report
        .benchmarks
        .iter()
        .map(|b| b.forks.remeasured.total())
        .sum();
    super::time::ForkSummary {
        forks,
        remeasured,
        per_side,
    }
}

/// The suite's disturbed forks in one sentence, `None` when there were none: `3 of 120 forks
/// in 2 benchmarks were left out as disturbed (…)`. A disturbed round is handled, not a problem
/// with the result, so it is one note for the run rather than a warning per benchmark.
pub fn disturbed_note(report: &Report) -> Option<String> {
    let per_benchmark: Vec<(usize, usize)> = report
        .benchmarks
        .iter()
        .map(|b| {
            let left_out = b.base.disturbed_forks + b.head.disturbed_forks;
            (left_out, b.forks.base + b.forks.head)
        })
        .collect();
    let left_out: usize = per_benchmark.iter().map(|(d, _)| d).sum();
    if left_out == 0 {
        return None;
    }
    let forks: usize = per_benchmark.iter().map(|(_, f)| f).sum();
    let benchmarks = per_benchmark.iter().filter(|(d, _)| *d > 0).count();
    Some(format!(
        "{left_out} of {forks} forks in {benchmarks} benchmark(s) were left out as disturbed \
         (rounds in which one fork ran far slower than its partner, beyond what the other rounds \
         show: a burst of machine activity; both forks of such a round go); per side in the \
         JSON as `disturbed_forks`"
    ))
}

/// The notes about the whole run (disturbed forks, noisy forks, steal time, CPU wait, time
/// outside the benchmarks), in that order.
pub fn run_notes(report: &Report) -> Vec<String> {
    [
        disturbed_note(report),
        noisy_forks_note(report),
        steal_note(report),
        cpu_wait_note(report),
        outside_benchmark_note(report),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// A run whose typical benchmark's fork means vary by this many relevance thresholds (relative
/// SD) gets a note: at one threshold, ten forks per side (the default `--max-forks`) leave a
/// minimum detectable change of about 1.5 thresholds, so changes of the threshold's size cannot
/// be decided. The committed recordings (`fixtures/recordings/`) have a median of 0.5–1.1 % on a
/// quiet machine (base64, hex, bumpalo, unicode-segmentation, the demo), 6–14 % on a noisy host
/// (httparse, winnow, hex) and 21 % under load (the demo), after disturbed forks are left out.
/// At twice the threshold (until 2026-11-23) a noisy-host run of ropey at 2.3 % got no note
/// although 23 of its 24 benchmarks were given up as undecidable.
pub const NOISY_FORKS_NOTE_FROM_THRESHOLDS: f64 = 1.0;

/// The median relative SD of a side's fork means over the benchmarks and sides that have one.
pub fn median_fork_rel_sd(report: &Report) -> Option<f64> {
    let spreads: Vec<f64> = report
        .benchmarks
        .iter()
        .flat_map(|b| [b.base.fork_rel_sd, b.head.fork_rel_sd])
        .flatten()
        .filter(|sd| sd.is_finite())
        .collect();
    (!spreads.is_empty()).then(|| crate::stats::descriptive::median(&spreads))
}

/// A note when the forks of the typical benchmark disagree by much more than the threshold,
/// `None` otherwise. Such a host (seen here with no steal time and no CPU wait to show for it)
/// makes most verdicts `inconclusive` whatever the stop rule, and the user should hear it once
/// for the run, with what to try, rather than only in each benchmark's detectable change.
pub fn noisy_forks_note(report: &Report) -> Option<String> {
    let spread = median_fork_rel_sd(report)?;
    let threshold = report.settings.threshold;
    if !(threshold > 0.0 && spread >= NOISY_FORKS_NOTE_FROM_THRESHOLDS * threshold) {
        return None;
    }
    let advice = match report.settings.mode {
        Mode::Duet => {
            "a quieter machine, or --mode interleaved, which is the quieter mode on some \
             machines (--calibrate in each mode shows which is quieter here)"
        }
        Mode::Interleaved => {
            "a quieter machine, or --mode duet, which cancels noise that hits both sides at once \
             but on some machines adds its own (--calibrate in each mode shows which is quieter \
             here)"
        }
    };
    Some(format!(
        "the forks of a typical benchmark differed by {} (median relative SD of a side's fork \
         means), against a threshold of ±{}: these forks are noisy (the machine's load, or the \
         benchmark's own spread from one process to the next: code and memory placement), so \
         small changes stay inconclusive; try {advice}",
        percent(spread),
        percent(threshold)
    ))
}

/// Shares of fork time spent outside the measured benchmark from this one up are worth a note.
/// The demo and unicode-segmentation spent 1.4 % there (10 ms a fork, mostly starting the
/// process); itertools, whose groups each build 1,000 iterators before their benchmarks, 21 %
/// (197 ms a fork of its `specializations` target, 108 ms of `bench1`).
pub const OUTSIDE_NOTE_FROM: f64 = 0.1;

/// A note when forks spent much of their time outside the benchmark they measured, `None`
/// otherwise: criterion runs every group function of an executable in every process, so inputs
/// a group builds before `bench_function` are built by every fork of every benchmark of that
/// executable, which the user can avoid.
pub fn outside_benchmark_note(report: &Report) -> Option<String> {
    let outside = report
        .outside_benchmark
        .as_ref()
        .filter(|o| o.share >= OUTSIDE_NOTE_FROM)?;
    let targets = match outside.heaviest_targets.as_slice() {
        [] => String::new(),
        targets => format!("; most in bench target(s) `{}`", targets.join("`, `")),
    };
    Some(format!(
        "forks spent {} of their time outside the benchmark they measured ({} a fork at the \
         median{targets}): starting the executable and running the set-up code of its other \
         benchmarks, which criterion runs in every process; an input built lazily (a \
         `LazyLock` first used inside the benchmark's closure) is built only by the forks that \
         measure it",
        percent(outside.share),
        rounded_wall_time(outside.median_ms)
    ))
}

/// Steal shares from this one up are worth a note (a quiet machine measures 0–0.5 %).
pub const STEAL_NOTE_FROM: f64 = 0.01;

/// A note when the hypervisor stole a noticeable share of the CPU while forks ran, `None`
/// otherwise: the user should know the machine was disturbed from outside, which neither the
/// load average nor the benchmarks' own noise figures explain.
pub fn steal_note(report: &Report) -> Option<String> {
    let share = report.steal_share.filter(|s| *s >= STEAL_NOTE_FROM)?;
    Some(format!(
        "the hypervisor took {} of this machine's CPU time while forks ran (steal time): it was \
         disturbed from outside, which makes results noisier; duet mode cancels part of it \
         (--mode duet)",
        percent(share)
    ))
}

/// CPU-wait shares from this one up are worth a note: the forks of a demo run on a quiet
/// machine waited 0.01–0.05 % of the time, and waiting 2 % slows a fork by about as much as the
/// default relevance threshold. The same share ends duet for a round's forks
/// ([`shared_cpus::SHARED_FROM`]): the note and duet's switch start at one figure.
pub const CPU_WAIT_NOTE_FROM: f64 = shared_cpus::SHARED_FROM;

/// A note when forks often waited for a CPU, `None` otherwise: other work on this machine shared
/// their CPUs, which makes results noisier and, in duet mode, means the pinned CPUs were not free.
pub fn cpu_wait_note(report: &Report) -> Option<String> {
    let share = report.cpu_wait_share.filter(|s| *s >= CPU_WAIT_NOTE_FROM)?;
    // A run that left duet says so in its own warning ([`mode_change_sentence`]).
    let advice = match (report.settings.mode, &report.run.mode_change) {
        (Mode::Duet, None) => {
            "the two pinned CPUs were not free: choose idle ones with --cpus, or stop what else runs"
        }
        _ => "other work on this machine competed with the benchmarks",
    };
    Some(format!(
        "forks waited for a CPU {} of the time they were ready to run ({advice}); results are \
         noisier than on a quiet machine",
        percent(share)
    ))
}

/// What a duet run did when a round's forks showed its two pinned CPUs shared, in one sentence
/// for every format and for the progress output: the figures that decided, and whether the
/// rounds after it ran interleaved (the round set aside) or duet was kept (`--keep-duet`).
/// Rounds are counted from 1 here, as the progress output counts them.
pub fn mode_change_sentence(change: &ModeChange) -> String {
    if !change.repinned.is_empty() {
        return repinned_sentence(change);
    }
    let per_cpu: Vec<String> = change
        .cpus
        .iter()
        .map(|c| format!("CPU {}: {}", c.cpu, percent(c.cpu_wait_share)))
        .collect();
    let figures = per_cpu
        .iter()
        .map(String::as_str)
        .chain([format!("limit {}", percent(change.limit)).as_str()])
        .collect::<Vec<_>>()
        .join(", ");
    let shared = change.shared_round + 1;
    let what = if change.used == change.asked {
        "duet was kept, as --keep-duet asks: results are noisier than interleaved ones would be"
            .to_string()
    } else {
        interleaved_from(change)
    };
    format!(
        "duet: in round {shared} the forks waited for a CPU {} of the time they were ready to run \
         ({figures}): other work shared the two pinned CPUs, which pairing cannot cancel; {what}",
        percent(change.cpu_wait_share)
    )
}

/// What a run that left duet did from then on.
fn interleaved_from(change: &ModeChange) -> String {
    format!(
        "the rounds from {} on are interleaved, and round {}'s pairs are set aside \
         (--keep-duet keeps duet)",
        change.from_round + 1,
        change.shared_round + 1
    )
}

/// [`mode_change_sentence`] when benchmarks set their own CPU affinity: which, where, why it
/// matters, and what the run did.
fn repinned_sentence(change: &ModeChange) -> String {
    const NAMED: usize = 3;
    let mut named: Vec<String> = change
        .repinned
        .iter()
        .take(NAMED)
        .map(|r| {
            format!(
                "`{}` (pinned to CPU {}, it allowed itself CPU {})",
                r.benchmark, r.cpu, r.own_cpus
            )
        })
        .collect();
    if change.repinned.len() > NAMED {
        named.push(format!("{} more", change.repinned.len() - NAMED));
    }
    let shared = change.shared_round + 1;
    let what = if change.used == change.asked {
        "duet was kept, as --keep-duet asks: such a benchmark's pairs are not measured side by \
         side on two CPUs"
            .to_string()
    } else {
        interleaved_from(change)
    };
    format!(
        "duet: in round {shared} {} set its own CPU affinity: {}; a benchmark that pins itself \
         can put base and head on one CPU, and its pairs are then a contest for that CPU, which \
         pairing cannot cancel; {what}",
        match change.repinned.len() {
            1 => "a benchmark",
            _ => "benchmarks",
        },
        named.join(", ")
    )
}

/// The warning about the whole run, when it has one: a duet run whose CPUs were shared.
pub fn run_warning(report: &Report) -> Option<String> {
    report.run.mode_change.as_ref().map(mode_change_sentence)
}

/// `interleaved mode · threshold ±2 % · alpha 0.01 · bootstrap 99 % (10000 resamples) · FDR on ·
/// seed 42`; `threshold ±2 % (instructions ±0.2 %)` when the report holds instruction records.
pub fn settings_line(settings: &ReportSettings) -> String {
    let threshold = match settings.instructions_threshold {
        Some(instructions) => format!(
            "±{} (instructions ±{})",
            percent(settings.threshold),
            percent(instructions)
        ),
        None => format!("±{}", percent(settings.threshold)),
    };
    // A report from before equivalence had its own level shows alpha alone.
    let equivalence = settings
        .equivalence_alpha
        .map(|level| format!(" (unchanged: {} each side)", significant(level)))
        .unwrap_or_default();
    format!(
        "{} mode · threshold {} · alpha {}{equivalence} · bootstrap {} ({} resamples) · FDR {} · \
         seed {}",
        settings.mode,
        threshold,
        significant(settings.alpha),
        percent(settings.confidence),
        settings.resamples,
        if settings.fdr { "on" } else { "off" },
        settings.seed
    )
}

/// A probability with three significant digits and no trailing zeros (`0.01`, `0.00333`): the
/// per-look alpha of `--stop decided` is a long fraction.
pub fn significant(value: f64) -> String {
    if !(value.is_finite() && value > 0.0) {
        return value.to_string();
    }
    let decimals = (2 - value.log10().floor() as i32).max(0) as usize;
    let text = format!("{value:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// A revision as the user named it, with the short commit: `HEAD~1 (1a2b3c4)`.
pub fn revision(info: Option<&RevisionInfo>) -> String {
    let Some(info) = info else {
        return "?".to_string();
    };
    let mut out = info.spec.clone();
    match (&info.commit, info.dirty) {
        (Some(commit), true) => out += &format!(" ({} + uncommitted changes)", short(commit)),
        (Some(commit), false) => out += &format!(" ({})", short(commit)),
        (None, true) => out += " (uncommitted changes)",
        (None, false) => {}
    }
    out
}

fn short(commit: &str) -> &str {
    commit.get(..10).unwrap_or(commit)
}

/// `base → head`, or `None` when the report does not say what was compared.
pub fn comparison(report: &Report) -> Option<String> {
    (report.run.base.is_some() || report.run.head.is_some()).then(|| {
        format!(
            "{} → {}",
            revision(report.run.base.as_ref()),
            revision(report.run.head.as_ref())
        )
    })
}

/// Text that came from outside (ids, stderr of a benchmark) made safe for a terminal or a page:
/// ANSI escape sequences removed, other control characters except newline and tab escaped.
pub fn sanitize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\x1b' => skip_escape_sequence(&mut chars),
            '\n' | '\t' => out.push(c),
            '\r' => {}
            c if c.is_control() => out.extend(c.escape_default()),
            c => out.push(c),
        }
    }
    out
}

/// Skips the rest of an escape sequence: CSI (`ESC [ … final`), OSC (`ESC ] … BEL/ST`), or one
/// character.
fn skip_escape_sequence(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    match chars.next() {
        Some('[') => {
            for c in chars.by_ref() {
                if ('\x40'..='\x7e').contains(&c) {
                    break;
                }
            }
        }
        Some(']') => {
            while let Some(c) = chars.next() {
                if c == '\x07' || (c == '\x1b' && chars.next_if_eq(&'\\').is_some()) {
                    break;
                }
            }
        }
        _ => {}
    }
}

/// A benchmark id on one line for a terminal: sanitized, a line break shown as `\n` (a criterion
/// id may hold one: pulldown-cmark names groups by such strings; JSON keeps the id raw), a tab as
/// a space.
pub fn id_line(id: &str) -> String {
    sanitize(&id.replace('\n', "\\n")).replace('\t', " ")
}

/// The note for a benchmark whose forks gave one value each, and its figure among several
/// (`(divan median)`); `None` for a benchmark with samples.
pub fn per_fork_note(result: &BenchmarkResult) -> Option<(String, String)> {
    let value = result.per_fork?;
    if result.harness == Some(crate::model::harness::HarnessKind::Command)
        || value == crate::model::harness::PerFork::Instructions
    {
        // A command's fork is one execution by definition (docs/commands.md), an instruction
        // fork one count per iteration (docs/instructions.md): nothing to note.
        return None;
    }
    let harness = result.harness.map_or("its harness", |h| h.name());
    Some((
        format!(
            "{harness} prints a summary, not its samples, so each fork gave one value (its {}) \
             and the statistics rest on the fork values",
            value.as_str()
        ),
        format!("({harness} {})", value.as_str()),
    ))
}

/// The note for a benchmark whose own code set criterion settings in place of those
/// cargo-perfdiff asked for, and its figure among several (the settings, per side where the
/// sides differ); `None` when neither side did. Without it a group's `measurement_time(10 s)`
/// made every fork twenty times as long as asked, with nothing to say why.
pub fn settings_from_code_note(result: &BenchmarkResult) -> Option<(String, String)> {
    let sides = [
        ("base", result.base.settings_from_code.as_ref()),
        ("head", result.head.settings_from_code.as_ref()),
    ];
    let (settings, figure) = match sides {
        [(_, None), (_, None)] => return None,
        [(_, Some(base)), (_, Some(head))] if base == head => {
            let parts = describe_settings(base);
            (in_words(&parts), parts.join(", "))
        }
        _ => {
            let per_side = sides
                .iter()
                .filter_map(|(side, set)| {
                    Some(format!("{side}: {}", describe_settings((*set)?).join(", ")))
                })
                .collect::<Vec<_>>()
                .join("; ");
            (per_side.clone(), per_side)
        }
    };
    let any =
        |field: fn(&SettingsFromCode) -> bool| sides.iter().any(|(_, s)| s.is_some_and(field));
    let options: Vec<String> = [
        (any(|s| s.measurement_ms.is_some()), "--measurement-time"),
        (
            any(|s| s.warm_up_ms.is_some()),
            "--warm-up-time (and its adaptive warm-up)",
        ),
        (any(|s| s.sample_size.is_some()), "--sample-size"),
    ]
    .into_iter()
    .filter(|(set, _)| *set)
    .map(|(_, option)| option.to_string())
    .collect();
    let note = format!(
        "its bench code sets {settings}, which criterion prefers to cargo-perfdiff's {}",
        in_words(&options)
    );
    Some((note, figure))
}

/// The note for a benchmark whose iterations are so slow that criterion measured its forks for
/// more than twice the measurement time asked (it takes at least one iteration per sample, so a
/// 1 s benchmark measures 30 s a fork at the default 30 samples), and its figure among several;
/// `None` otherwise, when the sample size is already criterion's least, or when a side's own code
/// set its settings (the note of [`settings_from_code_note`] speaks for it).
pub fn slow_iterations_note(result: &BenchmarkResult, run: &RunInfo) -> Option<(String, String)> {
    let setting = |key: &str| run.settings.as_ref()?.get(key)?.as_f64();
    // The forks' length chosen after the first rounds (up to 2 s) is asked too.
    let chosen_ms = result.fork_length.as_ref().map(|c| c.measurement_ms);
    let asked_ms = setting("measurement_ms")?.max(chosen_ms.unwrap_or(0.0));
    let samples = setting("sample_size")?;
    if samples <= 10.0 {
        return None;
    }
    let sides = [&result.base, &result.head];
    if sides.iter().any(|side| side.settings_from_code.is_some()) {
        return None;
    }
    let (measured_ms, iteration_ns) = sides
        .iter()
        .filter_map(|side| Some((side.fork_measured_ms?, side.mean_ns?)))
        .max_by(|a, b| a.0.total_cmp(&b.0))?;
    if measured_ms <= 2.0 * asked_ms {
        return None;
    }
    let at_ten_samples_ms = criterion_measuring_ms(10, iteration_ns / 1e6, asked_ms);
    let time = rounded_wall_time;
    let note = format!(
        "one iteration takes {}, so criterion measures a fork's {samples} samples for {} where {} \
         were asked: `--sample-size 10`, criterion's least, would take about {}",
        duration(iteration_ns),
        time(measured_ms),
        time(asked_ms),
        time(at_ten_samples_ms)
    );
    let figure = format!(
        "{} an iteration, {} a fork",
        duration(iteration_ns),
        time(measured_ms)
    );
    Some((note, figure))
}

/// How long criterion's automatic sampling measures `samples` samples of an iteration taking
/// `iteration_ms` when asked for `target_ms`: linear sampling (sample `i` runs `i·d`
/// iterations, `d` the least that fills the target) unless that would take more than twice
/// the target, else flat (every sample `ceil(target / (iteration · samples))` iterations, at
/// least one).
fn criterion_measuring_ms(samples: u32, iteration_ms: f64, target_ms: f64) -> f64 {
    let samples = f64::from(samples);
    let linear_runs = samples * (samples + 1.0) / 2.0;
    let linear_ms =
        linear_runs * (target_ms / (iteration_ms * linear_runs)).ceil().max(1.0) * iteration_ms;
    if linear_ms <= 2.0 * target_ms {
        return linear_ms;
    }
    samples * (target_ms / (iteration_ms * samples)).ceil().max(1.0) * iteration_ms
}

/// `["measurement time 2.0 s", "warm-up 700 ms", "sample size 15"]`: the settings present.
fn describe_settings(settings: &SettingsFromCode) -> Vec<String> {
    let time = rounded_wall_time;
    [
        settings
            .measurement_ms
            .map(|ms| format!("measurement time {}", time(ms))),
        settings
            .warm_up_ms
            .map(|ms| format!("warm-up {}", time(ms))),
        settings.sample_size.map(|n| format!("sample size {n}")),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// [`wall_time`] of a fractional number of milliseconds.
fn rounded_wall_time(ms: f64) -> String {
    wall_time(ms.round() as u64)
}

/// `a`, `a and b`, `a, b and c`.
fn in_words(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [only] => only.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// Where more forks come from: the cap of an adaptive rule, or the count of a fixed one.
pub const MORE_FORKS: &str = "--max-forks, or --forks with --stop fixed";

/// Why an inconclusive result could not decide, in words, when the noise explains it, with the
/// forks that would let it decide: "run more forks" alone left the user to guess how many, and
/// whether any number would do on this machine.
pub fn detectable_note(result: &BenchmarkResult) -> Option<String> {
    let mdc = result.min_detectable_change?;
    if !(result.verdict == Outcome::Inconclusive && mdc.is_finite() && mdc > result.threshold) {
        return None;
    }
    let threshold = percent(result.threshold);
    let remedy = match rounds_to_reveal_threshold(result) {
        Some(rounds) => {
            format!("about {rounds} rounds would reveal ±{threshold} at this noise ({MORE_FORKS})")
        }
        None => format!("run more rounds ({MORE_FORKS})"),
    };
    Some(format!(
        "this run's noise hides changes below ±{} (threshold ±{threshold}): {remedy}",
        percent(mdc)
    ))
}

/// Rounds that would bring the minimum detectable change down to the threshold at the spread
/// of the rounds this run measured (the detectable change shrinks with the square root of the
/// rounds, `stats::power`), or `None` without a finite detectable change or any rounds.
pub fn rounds_to_reveal_threshold(result: &BenchmarkResult) -> Option<usize> {
    let mdc = result.min_detectable_change?;
    let units = result.paired?.rounds.n;
    if !(mdc.is_finite() && result.threshold > 0.0 && units > 0) {
        return None;
    }
    let needed = units as f64 * (mdc / result.threshold).powi(2);
    Some(needed.ceil() as usize)
}

#[cfg(test)]
mod significant_tests {
    use super::significant;

    #[test]
    fn three_significant_digits_without_trailing_zeros() {
        assert_eq!(significant(0.01), "0.01");
        assert_eq!(significant(0.01 / 3.0), "0.00333");
        assert_eq!(significant(0.05), "0.05");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instruction_counts_are_grouped_by_thousands() {
        assert_eq!(instructions(13_022.4), "13,022");
        assert_eq!(instructions(1_234_567.0), "1,234,567");
        assert_eq!(instructions(999.0), "999");
        assert_eq!(instructions(42.25), "42.2");
        assert_eq!(instructions(-1_500.0), "-1,500");
        assert_eq!(
            mean_in(Some(13_022.0), Some("instructions")),
            "13,022 instr"
        );
    }

    #[test]
    fn means_of_a_custom_measurement_carry_its_unit() {
        assert_eq!(mean_in(Some(12_345.0), None), "12.3 µs");
        assert_eq!(mean_in(Some(12_345.0), Some("cycles")), "12345 cycles");
        assert_eq!(mean_in(Some(3.25), Some("cycles")), "3.25 cycles");
        assert_eq!(mean_in(None, Some("cycles")), MISSING);
    }

    #[test]
    fn durations_have_three_significant_digits() {
        assert_eq!(duration(812.4), "812 ns");
        assert_eq!(duration(1234.0), "1.23 µs");
        assert_eq!(duration(12_345.0), "12.3 µs");
        assert_eq!(duration(999.7), "1.00 µs");
        assert_eq!(duration(999_960.0), "1.00 ms");
        assert_eq!(duration(2.5e9), "2.50 s");
        assert_eq!(duration(0.456), "0.456 ns");
        assert_eq!(duration(f64::NAN), MISSING);
    }

    #[test]
    fn changes_are_signed_percentages() {
        assert_eq!(change(Some(0.123)), "+12.3 %");
        assert_eq!(change(Some(-0.04)), "-4.0 %");
        assert_eq!(change(None), MISSING);
    }

    #[test]
    fn ratio_ci_decimals_follow_width() {
        let ci = |lo, hi| RatioInterval {
            estimate: (lo + hi) / 2.0,
            ci_low: lo,
            ci_high: hi,
            confidence: 0.99,
            kind: IntervalKind::Difference,
        };
        assert_eq!(ratio_ci(Some(&ci(1.1, 1.15))), "[1.10, 1.15]");
        assert_eq!(ratio_ci(Some(&ci(0.998, 1.003))), "[0.998, 1.003]");
        let equivalence = RatioInterval {
            kind: IntervalKind::Equivalence,
            ..ci(0.995, 1.004)
        };
        assert_eq!(ratio_ci(Some(&equivalence)), "[0.995, 1.004]†");
    }

    #[test]
    fn an_id_with_a_line_break_is_shown_on_one_line_with_it_escaped() {
        // pulldown-cmark's groups: the table, markdown and HTML show `\n`, JSON the raw id.
        let id = "    pub fn a() {\n            /1";
        assert_eq!(id_line(id), "    pub fn a() {\\n            /1");
        assert_eq!(id_line("a\tb\x1b[31m"), "a b");
    }

    #[test]
    fn sanitize_strips_ansi_and_controls() {
        assert_eq!(sanitize("a\x1b[31mred\x1b[0m\x07b\nc"), "ared\\u{7}b\nc");
        assert_eq!(sanitize("\x1b]0;title\x07x"), "x");
    }

    /// A measured benchmark whose sides' code set `base` and `head`.
    fn with_settings_from_code(
        base: Option<SettingsFromCode>,
        head: Option<SettingsFromCode>,
    ) -> BenchmarkResult {
        let side = |settings_from_code| crate::steps::analysis::SideSummary {
            forks: 2,
            settings_from_code,
            ..Default::default()
        };
        BenchmarkResult {
            base: side(base),
            head: side(head),
            ..BenchmarkResult::new("own/settings", 0.02)
        }
    }

    #[test]
    fn sizes_in_bytes_read_with_a_binary_unit() {
        assert_eq!(bytes(35_332_608.0), "33.7 MiB");
        assert_eq!(bytes(1_783_808.0), "1.7 MiB");
        assert_eq!(bytes(812.0 * 1024.0), "812 KiB");
        assert_eq!(bytes(100.0), "100 B");
        assert_eq!(mean_in(Some(2048.0), Some("bytes")), "2 KiB");
    }

    #[test]
    fn a_benchmark_with_one_value_per_fork_says_so_and_which_value() {
        let criterion = BenchmarkResult {
            harness: Some(crate::model::harness::HarnessKind::Criterion),
            ..BenchmarkResult::new("hash/mix", 0.02)
        };
        assert_eq!(per_fork_note(&criterion), None);
        let divan = BenchmarkResult {
            harness: Some(crate::model::harness::HarnessKind::Divan),
            per_fork: Some(crate::model::harness::PerFork::Median),
            ..BenchmarkResult::new("demo::mix", 0.02)
        };
        let (note, figure) = per_fork_note(&divan).unwrap();
        assert!(note.starts_with("divan prints a summary"), "{note}");
        assert!(note.contains("(its median)"), "{note}");
        assert_eq!(figure, "(divan median)");
    }

    #[test]
    fn settings_a_benchmark_sets_in_code_are_named_with_the_options_they_defeat() {
        let all = SettingsFromCode {
            measurement_ms: Some(2000.0),
            warm_up_ms: Some(699.999_999),
            sample_size: Some(15),
        };
        let (note, figure) =
            settings_from_code_note(&with_settings_from_code(Some(all.clone()), Some(all)))
                .unwrap();
        assert_eq!(
            note,
            "its bench code sets measurement time 2.0 s, warm-up 700 ms and sample size 15, \
             which criterion prefers to cargo-perfdiff's --measurement-time, --warm-up-time \
             (and its adaptive warm-up) and --sample-size"
        );
        assert_eq!(
            figure,
            "measurement time 2.0 s, warm-up 700 ms, sample size 15"
        );

        let samples = SettingsFromCode {
            sample_size: Some(10),
            ..Default::default()
        };
        let (note, figure) =
            settings_from_code_note(&with_settings_from_code(None, Some(samples))).unwrap();
        assert_eq!(
            note,
            "its bench code sets head: sample size 10, which criterion prefers to \
             cargo-perfdiff's --sample-size"
        );
        assert_eq!(figure, "head: sample size 10");

        assert_eq!(
            settings_from_code_note(&with_settings_from_code(None, None)),
            None
        );
    }

    #[test]
    fn sides_whose_code_sets_different_settings_are_told_apart() {
        let measuring = |ms| SettingsFromCode {
            measurement_ms: Some(ms),
            ..Default::default()
        };
        let result = with_settings_from_code(Some(measuring(2000.0)), Some(measuring(5000.0)));
        let (_, figure) = settings_from_code_note(&result).unwrap();
        assert_eq!(
            figure,
            "base: measurement time 2.0 s; head: measurement time 5.0 s"
        );
    }

    #[test]
    fn criterion_measures_slow_iterations_flat_and_at_least_one_a_sample() {
        // A 40 ms iteration at 0.5 s: 30 samples of one iteration (1.2 s, seen in a real fork),
        // or 10 samples of two.
        assert_eq!(criterion_measuring_ms(30, 40.0, 500.0), 1200.0);
        assert_eq!(criterion_measuring_ms(10, 40.0, 500.0), 800.0);
        // A fast iteration fills the target with linear sampling.
        let fast = criterion_measuring_ms(30, 0.001, 500.0);
        assert!((500.0..=501.0).contains(&fast), "{fast}");
    }

    #[test]
    fn slow_iterations_are_named_with_what_fewer_samples_would_take() {
        let mut result = with_settings_from_code(None, None);
        result.base.mean_ns = Some(40.0e6);
        result.base.fork_measured_ms = Some(1200.0);
        result.head.mean_ns = Some(41.0e6);
        result.head.fork_measured_ms = Some(1230.0);
        let run = |sample_size: usize| RunInfo {
            settings: Some(serde_json::json!({"measurement_ms": 500, "sample_size": sample_size})),
            ..Default::default()
        };
        let (note, figure) = slow_iterations_note(&result, &run(30)).unwrap();
        assert_eq!(
            note,
            "one iteration takes 41.0 ms, so criterion measures a fork's 30 samples for 1.2 s \
             where 500 ms were asked: `--sample-size 10`, criterion's least, would take about \
             820 ms"
        );
        assert_eq!(figure, "41.0 ms an iteration, 1.2 s a fork");
        assert_eq!(slow_iterations_note(&result, &run(10)), None);

        // Forks measuring less than twice the time asked are not slow.
        result.head.fork_measured_ms = Some(900.0);
        result.base.fork_measured_ms = Some(900.0);
        assert_eq!(slow_iterations_note(&result, &run(30)), None);
    }

    #[test]
    fn forks_made_longer_by_the_fork_length_choice_are_not_slow_iterations() {
        // A 7 µs routine whose later forks were asked 2 s (noise within forks dominated): its
        // forks measured 1.6 s on average, four times the 500 ms setting but not what was asked.
        let mut result = with_settings_from_code(None, None);
        result.base.mean_ns = Some(7_000.0);
        result.base.fork_measured_ms = Some(1_600.0);
        result.head.mean_ns = Some(7_300.0);
        result.head.fork_measured_ms = Some(1_600.0);
        let run = RunInfo {
            settings: Some(serde_json::json!({"measurement_ms": 500, "sample_size": 30})),
            ..Default::default()
        };
        assert!(slow_iterations_note(&result, &run).is_some());
        result.fork_length = Some(crate::model::samples::ForkLengthChoice {
            measurement_ms: 2_000.0,
            default_ms: 500.0,
            from_round: 2,
            ..Default::default()
        });
        assert_eq!(slow_iterations_note(&result, &run), None);
    }

    #[test]
    fn the_settings_line_names_the_instruction_threshold_only_when_instructions_were_judged() {
        let mut settings = ReportSettings {
            mode: Mode::Interleaved,
            threshold: 0.02,
            instructions_threshold: None,
            alpha: 0.01,
            equivalence_alpha: None,
            confidence: 0.99,
            resamples: 10_000,
            fdr: true,
            seed: 42,
        };
        assert_eq!(
            settings_line(&settings),
            "interleaved mode · threshold ±2 % · alpha 0.01 · bootstrap 99 % (10000 resamples) · \
             FDR on · seed 42"
        );
        settings.equivalence_alpha = Some(0.05);
        assert_eq!(
            settings_line(&settings),
            "interleaved mode · threshold ±2 % · alpha 0.01 (unchanged: 0.05 each side) · \
             bootstrap 99 % (10000 resamples) · FDR on · seed 42"
        );
        settings.instructions_threshold = Some(0.002);
        assert!(
            settings_line(&settings).contains("threshold ±2 % (instructions ±0.2 %) · alpha"),
            "{}",
            settings_line(&settings)
        );
    }

    #[test]
    fn a_duet_run_left_for_a_benchmark_that_pins_itself_names_it_and_the_cause() {
        let change = ModeChange {
            asked: Mode::Duet,
            used: Mode::Interleaved,
            from_round: 1,
            shared_round: 0,
            cpu_wait_share: 0.004,
            limit: 0.02,
            cpus: Vec::new(),
            repinned: vec![crate::model::samples::Repinned {
                benchmark: "pinned/one".into(),
                cpu: 1,
                own_cpus: "0".into(),
            }],
        };
        assert_eq!(
            mode_change_sentence(&change),
            "duet: in round 1 a benchmark set its own CPU affinity: `pinned/one` (pinned to CPU \
             1, it allowed itself CPU 0); a benchmark that pins itself can put base and head on \
             one CPU, and its pairs are then a contest for that CPU, which pairing cannot \
             cancel; the rounds from 2 on are interleaved, and round 1's pairs are set aside \
             (--keep-duet keeps duet)"
        );
    }

    #[test]
    fn a_duet_run_that_left_duet_says_when_why_and_what_it_did() {
        let mut change = ModeChange {
            asked: Mode::Duet,
            used: Mode::Interleaved,
            from_round: 3,
            shared_round: 2,
            cpu_wait_share: 0.145,
            limit: 0.02,
            cpus: vec![
                crate::model::samples::CpuWait {
                    cpu: 0,
                    cpu_wait_share: 0.19,
                    forks: 4,
                },
                crate::model::samples::CpuWait {
                    cpu: 1,
                    cpu_wait_share: 0.1,
                    forks: 4,
                },
            ],
            repinned: Vec::new(),
        };
        assert_eq!(
            mode_change_sentence(&change),
            "duet: in round 3 the forks waited for a CPU 14.5 % of the time they were ready to \
             run (CPU 0: 19 %, CPU 1: 10 %, limit 2 %): other work shared the two pinned CPUs, \
             which pairing cannot cancel; the rounds from 4 on are interleaved, and round 3's \
             pairs are set aside (--keep-duet keeps duet)"
        );
        change.used = Mode::Duet;
        let kept = mode_change_sentence(&change);
        assert!(kept.ends_with("duet was kept, as --keep-duet asks: results are noisier than interleaved ones would be"), "{kept}");
    }

    #[test]
    fn percent_trims() {
        assert_eq!(percent(0.02), "2 %");
        assert_eq!(percent(0.005), "0.5 %");
        assert_eq!(percent(0.99), "99 %");
    }
}
