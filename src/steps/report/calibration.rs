//! The A/A calibration view (`cargo perfdiff --calibrate`, or any run of a revision against
//! itself): what this machine's noise lets each benchmark see.
//!
//! Peass (METHOD.md, "How much measurement a change needs") gives, for `n` forks per side and the
//! fork-to-fork noise σ, the smallest change a two-sided test at level α detects with 80 % power.
//! Users learn which thresholds are realistic before a verdict surprises them.

use std::fmt::Write;

use crate::model::samples::Mode;
use crate::stats::power;
use crate::steps::analysis::{BenchmarkResult, Report};

/// Power the calibration advice aims for.
const POWER: f64 = 0.8;

/// A table of the noise floor per benchmark and settings advice, as plain text.
pub fn render_calibration(report: &Report) -> String {
    let mut out = String::from("\nNoise floor on this machine (A/A calibration):\n");
    let _ = writeln!(
        out,
        "  {:<40} {:>10} {:>8} {:>14} {:>16}",
        "benchmark", "round noise", "rounds", "detectable", "rounds for ±thr"
    );
    let mut worst_forks = 0usize;
    for bench in &report.benchmarks {
        let Some(line) = calibration_line(bench, report.settings.alpha) else {
            continue;
        };
        worst_forks = worst_forks.max(line.forks_for_threshold);
        let _ = writeln!(
            out,
            "  {:<40} {:>9.2}% {:>8} {:>13.2}% {:>16}",
            truncate(&bench.id, 40),
            line.noise * 100.0,
            line.forks,
            line.detectable * 100.0,
            line.forks_for_threshold
        );
    }
    let _ = writeln!(
        out,
        "\n'detectable' is the smallest change found with {:.0} % power at the forks run and \
         alpha {}; changes below it look like noise here.",
        POWER * 100.0,
        report.settings.alpha
    );
    if worst_forks > 0 {
        let _ = writeln!(
            out,
            "Suggestion: --max-forks {} lets every benchmark resolve a ±{:.1} % change; a larger \
             --threshold needs fewer, and so may --mode {} (calibrate in that mode too to see \
             which is quieter on this machine).",
            worst_forks.max(3),
            report.settings.threshold * 100.0,
            other_mode(report.settings.mode)
        );
    }
    out
}

/// The mode to compare with: neither is the quieter one on every machine (duet's forks lay
/// further apart than interleaved ones on one noisy host, and closer on another).
fn other_mode(mode: Mode) -> &'static str {
    match mode {
        Mode::Interleaved => "duet",
        Mode::Duet => "interleaved",
    }
}

struct CalibrationLine {
    noise: f64,
    forks: usize,
    detectable: f64,
    forks_for_threshold: usize,
}

fn calibration_line(bench: &BenchmarkResult, alpha: f64) -> Option<CalibrationLine> {
    let rounds = bench.paired?.rounds;
    Some(CalibrationLine {
        noise: rounds.sd_log,
        forks: rounds.n,
        detectable: power::min_detectable_change(rounds.sd_log, rounds.n, alpha, POWER),
        forks_for_threshold: power::units_needed(rounds.sd_log, bench.threshold, alpha, POWER),
    })
}

fn truncate(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(width - 1).collect();
    cut.push('…');
    cut
}
