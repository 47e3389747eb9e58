//! Where a run's wall time went, in words: the split of the `time:` line (the table's footer,
//! the Markdown report and with it the GitHub Action's job summary) and `--explain`'s line with
//! every phase ([`Phases`], recorded by the run in its samples file).
//!
//! Why: a run of ten minutes may have spent eight of them building or tracing; the user who
//! wants a faster run must know which, and the field trials read the same figures from the
//! JSON. The short line names what usually dominates (build, trace, probe, measuring) and sums
//! the rest as `other`, so its figures add up to the whole; `--explain` names every phase.

use crate::model::samples::{BuildTime, Phases};
use crate::util::terminal::wall_time;

/// The rest of a run below this is not named on the short line.
const OTHER_SHOWN_FROM_MS: u64 = 1_000;

/// The forks the rounds ran, for the measuring part: `96 forks, 8.7 per benchmark and side`, or
/// `98 forks, 2 measured again, 8.9 per benchmark and side`.
pub struct ForkSummary {
    /// Every fork run, those measured again after a disturbance included.
    pub forks: usize,
    /// Of `forks`, those measured again ([`crate::steps::analysis::ForkCounts::remeasured`]).
    pub remeasured: usize,
    /// `8.7 per benchmark and side`, when any side ran a fork.
    pub per_side: Option<String>,
}

impl ForkSummary {
    fn describe(&self) -> String {
        let count = match self.forks {
            0 => return "no fork".to_string(),
            1 => "1 fork".to_string(),
            n => format!("{n} forks"),
        };
        std::iter::once(count)
            .chain(self.details())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// What follows the count: `2 measured again` when any were, `8.7 per benchmark and side`.
    pub fn details(&self) -> Vec<String> {
        let again = (self.remeasured > 0).then(|| format!("{} measured again", self.remeasured));
        again.into_iter().chain(self.per_side.clone()).collect()
    }
}

/// `build 41.0 s (base 30.0 s, head 11.0 s) · trace 12.0 s · probe 3.0 s · measuring 25.8 s
/// (36 forks, 6 per benchmark and side) · other 2.1 s`: trace and probe when selection ran,
/// the rest of `wall_ms` as `other` when it is a second or more.
pub fn split(phases: &Phases, wall_ms: u64, measure_ms: u64, forks: &ForkSummary) -> String {
    let mut parts = Vec::new();
    let builds = build_total(phases);
    if let Some(part) = build_part(phases) {
        parts.push(part);
    }
    for (name, ms) in [("trace", phases.trace_ms), ("probe", phases.probe_ms)] {
        if ms > 0 {
            parts.push(format!("{name} {}", wall_time(ms)));
        }
    }
    parts.push(format!(
        "measuring {} ({})",
        wall_time(measure_ms),
        forks.describe()
    ));
    let named = builds + phases.trace_ms + phases.probe_ms + measure_ms;
    let other = wall_ms.saturating_sub(named);
    if other >= OTHER_SHOWN_FROM_MS {
        parts.push(format!("other {}", wall_time(other)));
    }
    parts.join(" · ")
}

/// Every phase, for `--explain`: `checkout 812 ms · base's build 30.0 s (64 crates compiled) ·
/// head's build 11.0 s (3 crates compiled) · discovery 2.1 s · trace 12.0 s · probe 3.0 s ·
/// selection 400 ms · measuring 25.8 s · analysis 12 ms · other 1.1 s`. `explaining` appears
/// when the run counted after its rounds.
pub fn detail(phases: &Phases, wall_ms: u64, measure_ms: u64) -> String {
    let mut parts = vec![format!("checkout {}", wall_time(phases.checkout_ms))];
    for (side, build) in [("base", &phases.build.base), ("head", &phases.build.head)] {
        if let Some(build) = build {
            parts.push(format!("{side}'s build {}", side_build(build)));
        }
    }
    parts.extend([
        format!("discovery {}", wall_time(phases.discovery_ms)),
        format!("trace {}", wall_time(phases.trace_ms)),
        format!("probe {}", wall_time(phases.probe_ms)),
        format!("selection {}", wall_time(phases.selection_ms)),
        format!("measuring {}", wall_time(measure_ms)),
        format!("analysis {}", wall_time(phases.analysis_ms)),
    ]);
    if phases.explain_ms > 0 {
        parts.push(format!("explaining {}", wall_time(phases.explain_ms)));
    }
    let other = wall_ms.saturating_sub(phases.total_ms() + measure_ms);
    parts.push(format!("other {}", wall_time(other)));
    parts.join(" · ")
}

/// `30.0 s (64 crates compiled)`, `1.2 s (up to date)`.
fn side_build(build: &BuildTime) -> String {
    let work = match build.crates_compiled {
        0 => "up to date".to_string(),
        1 => "1 crate compiled".to_string(),
        n => format!("{n} crates compiled"),
    };
    format!("{} ({work})", wall_time(build.ms))
}

fn build_total(phases: &Phases) -> u64 {
    [&phases.build.base, &phases.build.head]
        .into_iter()
        .flatten()
        .map(|b| b.ms)
        .sum()
}

/// `build 41.0 s (base 30.0 s, head 11.0 s)`, or `build 30.0 s` when one build served both.
fn build_part(phases: &Phases) -> Option<String> {
    let total = wall_time(build_total(phases));
    match (&phases.build.base, &phases.build.head) {
        (Some(base), Some(head)) => Some(format!(
            "build {total} (base {}, head {})",
            wall_time(base.ms),
            wall_time(head.ms)
        )),
        (None, None) => None,
        _ => Some(format!("build {total}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::samples::SideBuildTimes;

    fn phases() -> Phases {
        Phases {
            checkout_ms: 812,
            build: SideBuildTimes {
                base: Some(BuildTime {
                    ms: 30_000,
                    crates_compiled: 64,
                }),
                head: Some(BuildTime {
                    ms: 11_000,
                    crates_compiled: 3,
                }),
            },
            discovery_ms: 2_100,
            trace_ms: 12_000,
            probe_ms: 3_000,
            selection_ms: 400,
            analysis_ms: 12,
            explain_ms: 0,
        }
    }

    fn forks() -> ForkSummary {
        ForkSummary {
            forks: 36,
            remeasured: 0,
            per_side: Some("6 per benchmark and side".to_string()),
        }
    }

    #[test]
    fn timesplit_the_short_line_names_build_trace_probe_and_measuring_and_sums_the_rest() {
        // 41 s build, 15 s traces and probes, 25.8 s measuring of 94 s: 12.2 s other.
        assert_eq!(
            split(&phases(), 94_000, 25_800, &forks()),
            "build 41.0 s (base 30.0 s, head 11.0 s) · trace 12.0 s · probe 3.0 s · measuring \
             25.8 s (36 forks, 6 per benchmark and side) · other 12.2 s"
        );
    }

    #[test]
    fn timesplit_forks_measured_again_are_counted_and_named() {
        let again = ForkSummary {
            forks: 38,
            remeasured: 2,
            per_side: Some("6.3 per benchmark and side".to_string()),
        };
        assert!(
            split(&phases(), 94_000, 25_800, &again).contains(
                "measuring 25.8 s (38 forks, 2 measured again, 6.3 per benchmark and side)"
            )
        );
    }

    #[test]
    fn timesplit_the_short_line_leaves_out_what_did_not_run() {
        let mut one_build = phases();
        one_build.build.head = None;
        one_build.trace_ms = 0;
        one_build.probe_ms = 0;
        let none = ForkSummary {
            forks: 0,
            remeasured: 0,
            per_side: None,
        };
        // Selection off, one build for both sides, under a second besides: no `other`.
        assert_eq!(
            split(&one_build, 30_900, 500, &none),
            "build 30.0 s · measuring 500 ms (no fork)"
        );
    }

    #[test]
    fn timesplit_explain_names_every_phase_and_what_each_build_compiled() {
        let mut explained = phases();
        explained.build.head = Some(BuildTime {
            ms: 900,
            crates_compiled: 0,
        });
        explained.explain_ms = 20_000;
        let line = detail(&explained, 120_000, 25_800);
        assert_eq!(
            line,
            "checkout 812 ms · base's build 30.0 s (64 crates compiled) · head's build 900 ms \
             (up to date) · discovery 2.1 s · trace 12.0 s · probe 3.0 s · selection 400 ms · \
             measuring 25.8 s · analysis 12 ms · explaining 20.0 s · other 25.0 s"
        );
    }

    #[test]
    fn timesplit_phases_longer_than_the_recorded_wall_time_leave_no_negative_rest() {
        // A samples file edited by hand, or a clock that jumped: nothing below zero.
        let line = split(&phases(), 1_000, 25_800, &forks());
        assert!(!line.contains("other"), "{line}");
        assert!(detail(&phases(), 1_000, 25_800).ends_with("other 0 ms"));
    }
}
