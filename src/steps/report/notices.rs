//! The warnings and notes about benchmarks under a report, one line per cause.
//!
//! On a noisy host most benchmarks of a suite are given up alike: a line per benchmark and
//! warning buried the run's own notes (a live 16-benchmark run printed 30 such lines, a real
//! crate's 45-benchmark run 42 warnings), and one line naming them all grew to 2,500
//! characters. So a cause shared by several benchmarks is one line with their count, naming at
//! most [`NAMED`] of them (the worst first, where a figure ranks them); a cause of one benchmark
//! reads as that benchmark's own sentence. Every benchmark's own warnings stay in the JSON
//! (`warnings`) and on its HTML card.

use super::text::{
    MORE_FORKS, detectable_note, p_value as p, per_fork_note, percent, ratio_ci,
    rounds_to_reveal_threshold, settings_from_code_note, slow_iterations_note,
};
use crate::steps::analysis::{BenchWarning, BenchmarkResult, Report};

/// Benchmarks a line names when a cause has more than this many: the worst, where their
/// figures rank them.
pub const NAMED: usize = 3;

/// Whether a [`Notice`] is a warning (the result may not be what it seems) or a note (what the
/// noise allows).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoticeKind {
    Warning,
    Note,
}

impl NoticeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            NoticeKind::Warning => "warning",
            NoticeKind::Note => "note",
        }
    }
}

/// One benchmark a [`Notice`] concerns.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub id: String,
    /// The figure it adds among several (its interval and rounds, its detectable change).
    pub figure: Option<String>,
    /// The words for it alone.
    pub message: String,
    /// How bad it is, larger worse, compared in order: what ranks it among the named.
    pub(super) rank: (f64, f64),
}

/// One warning or note about benchmarks, and the benchmarks it concerns, in the order of the
/// report.
#[derive(Debug, Clone, PartialEq)]
pub struct Notice {
    pub kind: NoticeKind,
    /// The words when several benchmarks share the notice, each with its figure.
    pub shared_message: String,
    /// Whether the figures rank the benchmarks, so that a bounded line names the worst.
    pub ranked: bool,
    pub benchmarks: Vec<Entry>,
}

impl Notice {
    /// The benchmarks a bounded line names: all of them up to [`NAMED`], else the [`NAMED`]
    /// worst (the first ones when nothing ranks them).
    pub fn named(&self) -> Vec<&Entry> {
        let mut entries: Vec<&Entry> = self.benchmarks.iter().collect();
        if self.ranked {
            entries.sort_by(|a, b| {
                (b.rank.0.total_cmp(&a.rank.0)).then(b.rank.1.total_cmp(&a.rank.1))
            });
        }
        entries.truncate(NAMED);
        entries
    }
}

/// What one warning or note of one benchmark adds to the notices.
struct Item {
    kind: NoticeKind,
    message: String,
    shared_message: String,
    ranked: bool,
    figure: Option<String>,
    rank: (f64, f64),
}

/// The per-benchmark warnings and notes, one [`Notice`] per cause: the warnings, then the
/// notes, each in the order its cause first appears.
pub fn benchmark_notices(report: &Report) -> Vec<Notice> {
    let mut notices: Vec<Notice> = Vec::new();
    for result in &report.benchmarks {
        let warnings = result.warnings.iter().map(|w| warning_item(w, result));
        for item in warnings.chain(note_items(result, report)) {
            add(&mut notices, &result.id, item);
        }
    }
    notices.sort_by_key(|n| n.kind != NoticeKind::Warning);
    notices
}

/// Adds `item` of benchmark `id` to the notice of its cause; a second item of the same
/// benchmark and cause (its base and its head) joins its entry.
fn add(notices: &mut Vec<Notice>, id: &str, item: Item) {
    let same = |n: &&mut Notice| n.kind == item.kind && n.shared_message == item.shared_message;
    let notice = match notices.iter_mut().position(|n| same(&n)) {
        Some(i) => &mut notices[i],
        None => {
            notices.push(Notice {
                kind: item.kind,
                shared_message: item.shared_message.clone(),
                ranked: item.ranked,
                benchmarks: Vec::new(),
            });
            notices.last_mut().expect("pushed")
        }
    };
    match notice.benchmarks.iter_mut().find(|e| e.id == id) {
        Some(entry) => {
            entry.message = format!("{}; {}", entry.message, item.message);
            entry.figure = match (entry.figure.take(), item.figure) {
                (Some(a), Some(b)) => Some(format!("{a} and {b}")),
                (a, b) => a.or(b),
            };
            entry.rank = (entry.rank.0 + item.rank.0, entry.rank.1 + item.rank.1);
        }
        None => notice.benchmarks.push(Entry {
            id: id.to_string(),
            figure: item.figure,
            message: item.message,
            rank: item.rank,
        }),
    }
}

/// A warning as a notice item: its words, the words of its cause, and its figure.
fn warning_item(warning: &BenchWarning, result: &BenchmarkResult) -> Item {
    let shared = stop_shared(warning, result)
        .or_else(|| measuring_shared(warning))
        .unwrap_or_default();
    Item {
        kind: NoticeKind::Warning,
        message: warning.to_string(),
        ranked: shared.rank.is_some(),
        shared_message: shared.words.unwrap_or_else(|| warning.to_string()),
        figure: shared.figure,
        rank: shared.rank.unwrap_or_default(),
    }
}

/// How several benchmarks share a warning's cause: its words for them (`None`: the warning's
/// own), each one's figure among them, and what ranks it (`None`: nothing does).
#[derive(Default)]
struct Shared {
    words: Option<String>,
    figure: Option<String>,
    rank: Option<(f64, f64)>,
}

/// How wide a benchmark's interval is, on the log scale: what ranks undecided benchmarks first
/// (the rounds a verdict would take rank them next: an estimate on the threshold's edge needs
/// thousands of rounds however narrow its interval, and is not the worst of a noisy run).
fn interval_width(result: &BenchmarkResult) -> f64 {
    result
        .ratio
        .map_or(0.0, |r| (r.ci_high / r.ci_low).ln().abs())
}

/// A warning of how the benchmark stopped (given up, capped) shared: each figure its interval
/// and rounds; `None` for other warnings.
fn stop_shared(warning: &BenchWarning, result: &BenchmarkResult) -> Option<Shared> {
    let interval = result.ratio.map(|r| ratio_ci(Some(&r)));
    let rank = |needed: &Option<usize>| {
        let rounds = needed.map_or(0.0, |n| n as f64);
        Some((interval_width(result), rounds))
    };
    Some(match warning {
        BenchWarning::GaveUp {
            rounds,
            max_forks,
            rounds_needed,
        } => {
            let allowed =
                max_forks.map_or("--max-forks".to_string(), |m| format!("--max-forks ({m})"));
            let needed = rounds_needed.map_or(String::new(), |n| format!(" (about {n} needed)"));
            Shared {
                words: Some(format!(
                    "stopped early: at this noise no verdict was in reach within {allowed} \
                     rounds, so the stop rule gave them up"
                )),
                figure: Some(format!(
                    "{}after {rounds} rounds{needed}",
                    interval.map_or(String::new(), |i| i + " ")
                )),
                rank: rank(rounds_needed),
            }
        }
        BenchWarning::Capped {
            rounds,
            rounds_needed,
        } => {
            let needed = rounds_needed.map(|n| format!("(about {n} rounds needed)"));
            Shared {
                words: Some(format!(
                    "stopped at max-forks ({rounds} rounds) before the stop rule was met"
                )),
                figure: match (interval, needed) {
                    (Some(i), Some(n)) => Some(format!("{i} {n}")),
                    (i, n) => i.or(n),
                },
                rank: rank(rounds_needed),
            }
        }
        _ => return None,
    })
}

/// A warning about what was measured shared, with its figure; `None` for a warning whose own
/// words are its cause's (no samples, time and instructions disagreeing, one read back).
fn measuring_shared(warning: &BenchWarning) -> Option<Shared> {
    let (words, figure, rank) = match warning {
        BenchWarning::Unsteady { side, forks } => (
            "forks never reached a steady state (how many of each side given for each)",
            format!("{} {forks}", side.as_str()),
            Some((*forks as f64, 0.0)),
        ),
        BenchWarning::HeldBackByFdr {
            without,
            p_value,
            q_value,
            tests,
        } => {
            let words = format!(
                "their intervals alone say a change, but not after false-discovery control over \
                 {tests} benchmarks"
            );
            let figure = format!("{without} (p = {}, q = {})", p(*p_value), p(*q_value));
            return Some(Shared {
                words: Some(words),
                figure: Some(figure),
                rank: None,
            });
        }
        BenchWarning::SingleRound {
            base_forks,
            head_forks,
        } => (
            "fewer than two rounds (or code layouts) to pair: one round cannot tell a change from \
             the difference between two processes, at least two are needed (raise --forks or \
             --max-forks)",
            format!("{base_forks}/{head_forks} forks"),
            None,
        ),
        BenchWarning::UnitMismatch { base, head } => (
            "base and head measured in different units: their ratio compares different quantities",
            format!("{base} and {head}"),
            None,
        ),
        BenchWarning::InexactInstructions { worst } => (
            "instructions per iteration are not exact, so the work per iteration depends on time, \
             state or chance",
            format!("up to {worst:.0} instructions off one line"),
            Some((*worst, 0.0)),
        ),
        BenchWarning::DuetOverlap { overlap } => (
            "duet: base and head measured at the same time for only part of their measurement \
             windows (very different iteration times, or a disturbed warm-up); pairing cancels \
             less noise",
            format!("{:.0} % together", overlap * 100.0),
            Some((1.0 - overlap, 0.0)),
        ),
        BenchWarning::Rounded { smallest_ns, share } => (
            "their harness printed whole nanoseconds an iteration, and one nanosecond is at least \
             half the threshold of the smallest value: a change of about that size may be the \
             rounding and not the code's",
            format!("{smallest_ns:.0} ns, a step of {:.1} %", share * 100.0),
            Some((*share, 0.0)),
        ),
        BenchWarning::CompiledDifferently { functions } => (
            "their code changed where its source did not: the named functions compiled \
             differently from the same source (the compiler inlined or laid them out differently \
             because of a change elsewhere), so the verdict may be that difference and not the \
             change's",
            super::super::analysis::warnings::short_list(functions),
            None,
        ),
        _ => return None,
    };
    Some(Shared {
        words: Some(words.to_string()),
        figure: Some(figure),
        rank,
    })
}

/// The notes of one benchmark: what its noise hides, slow iterations, one value per fork,
/// settings its code sets.
fn note_items(result: &BenchmarkResult, report: &Report) -> Vec<Item> {
    let mut items = Vec::new();
    let note = |message, shared: &str, figure, rank: Option<f64>| Item {
        kind: NoticeKind::Note,
        message,
        shared_message: shared.to_string(),
        ranked: rank.is_some(),
        figure: Some(figure),
        rank: (rank.unwrap_or_default(), 0.0),
    };
    if let (Some(message), Some(mdc)) = (detectable_note(result), result.min_detectable_change) {
        let threshold = percent(result.threshold);
        let shared = format!(
            "this run's noise hides changes below the size given for each (threshold \
             ±{threshold}), and about how many rounds would reveal ±{threshold} at that noise \
             ({MORE_FORKS})"
        );
        let figure = match rounds_to_reveal_threshold(result) {
            Some(rounds) => format!("±{} ({rounds} rounds)", percent(mdc)),
            None => format!("±{}", percent(mdc)),
        };
        items.push(note(message, &shared, figure, Some(mdc)));
    }
    if let Some((message, figure)) = slow_iterations_note(result, &report.run) {
        let slowest = [&result.base, &result.head]
            .iter()
            .filter_map(|side| side.fork_measured_ms)
            .fold(0.0, f64::max);
        let shared = "one iteration takes so long that criterion measures a fork's samples for \
                      more than twice the time asked (the time of an iteration and of a fork's \
                      samples given for each): `--sample-size 10`, criterion's least, shortens \
                      such forks";
        items.push(note(message, shared, figure, Some(slowest)));
    }
    if let Some((message, figure)) = per_fork_note(result) {
        let shared = "their harness prints a summary, not its samples, so each fork gave one \
                      value (the harness and the value given for each) and the statistics rest \
                      on the fork values";
        items.push(note(message, shared, figure, None));
    }
    if let Some((message, figure)) = settings_from_code_note(result) {
        let shared = "their bench code sets the criterion settings given for each, which \
                      criterion prefers to cargo-perfdiff's --measurement-time, --warm-up-time \
                      (and its adaptive warm-up) and --sample-size";
        items.push(note(message, shared, figure, None));
    }
    items
}

/// A notice as one line without its `warning:`/`note:` label: `id: message` for one benchmark;
/// `message (N benchmarks: id figure, …)` for up to [`NAMED`]; for more, `message (N benchmarks;
/// worst: id figure, …; rest)` with `rest` saying where the others are. `quote` dresses each id.
pub fn notice_line(notice: &Notice, quote: impl Fn(&str) -> String, rest: &str) -> String {
    let named = |entries: Vec<&Entry>| {
        entries
            .iter()
            .map(|e| match &e.figure {
                Some(figure) => format!("{} {figure}", quote(&e.id)),
                None => quote(&e.id),
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let count = notice.benchmarks.len();
    match notice.benchmarks.as_slice() {
        [only] => format!("{}: {}", quote(&only.id), only.message),
        _ if count <= NAMED => format!(
            "{} ({count} benchmarks: {})",
            notice.shared_message,
            named(notice.benchmarks.iter().collect())
        ),
        _ => format!(
            "{} ({count} benchmarks; {}: {}; {rest})",
            notice.shared_message,
            if notice.ranked { "worst" } else { "among them" },
            named(notice.named())
        ),
    }
}

/// Whether some notice of `notices` names only some of its benchmarks.
pub fn any_bounded(notices: &[Notice]) -> bool {
    notices.iter().any(|n| n.benchmarks.len() > NAMED)
}
