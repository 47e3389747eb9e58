//! `--list`: the benchmarks a comparison would measure, without measuring them. Plain data in
//! (the matched benchmarks), text out: one line per benchmark for people and `grep`, or JSON for
//! scripts.

use std::fmt::Write;

use serde::Serialize;

use super::Format;
use std::collections::BTreeMap;

use crate::model::samples::{Phases, Presence, SelectionRecord, SkippedTarget};
use crate::steps::analysis::distinct_more_than_one;
use crate::steps::discover::{HarnessKind, Matched};

/// The JSON form: `{"benchmarks": [...], "skipped_targets": [...], "phases": {...}}`.
#[derive(Debug, Serialize)]
struct Listing<'a> {
    benchmarks: Vec<ListedBenchmark<'a>>,
    /// Bench targets (or some of their benchmarks) a run would not measure, and why.
    skipped_targets: &'a [SkippedTarget],
    /// Where the listing's time went: checkout, builds, discovery, trace, probe, selection,
    /// under the names a comparison's `run.phases` has.
    #[serde(skip_serializing_if = "Option::is_none")]
    phases: Option<&'a Phases>,
}

/// One listed benchmark, as JSON gives it.
#[derive(Debug, Serialize)]
struct ListedBenchmark<'a> {
    /// Its name in reports: the criterion id, qualified when several targets define it.
    id: &'a str,
    /// The id criterion gives it, when `id` is qualified.
    #[serde(skip_serializing_if = "Option::is_none")]
    criterion_id: Option<&'a str>,
    /// The package of its bench target.
    package: Option<&'a str>,
    /// The bench target that has it (head's, or base's when head lacks it).
    target: Option<&'a str>,
    /// That target's harness (`criterion`, `divan`, `libtest`, `bencher`).
    #[serde(skip_serializing_if = "Option::is_none")]
    harness: Option<HarnessKind>,
    presence: Presence,
    /// Whether a run would measure it, and why (absent with `--measure-all`).
    #[serde(skip_serializing_if = "Option::is_none")]
    selection: Option<&'a SelectionRecord>,
}

/// The listing in `format`: JSON (`{"benchmarks": [...], "skipped_targets": [...], "phases":
/// {...}}`, the phases when given) or, for the table and Markdown formats, one line per
/// benchmark: its id, its bench target (and the target's package when the benchmarks come from
/// several) and, for a benchmark that only one side has, which. Skipped targets and phases are
/// not in the text form: the command notes the targets.
pub fn render_listing(
    matched: &[Matched],
    skipped: &[SkippedTarget],
    selection: &BTreeMap<String, SelectionRecord>,
    phases: Option<&Phases>,
    format: Format,
) -> String {
    let listed: Vec<ListedBenchmark> = matched
        .iter()
        .map(|m| ListedBenchmark {
            id: &m.id,
            criterion_id: (m.criterion_id != m.id).then_some(m.criterion_id.as_str()),
            package: m.target().map(|k| k.package.as_str()),
            target: m.target().map(|k| k.target.as_str()),
            harness: m.harness,
            presence: m.presence,
            selection: selection.get(&m.id),
        })
        .collect();
    match format {
        Format::Json => super::json::pretty(
            "listing",
            &Listing {
                benchmarks: listed,
                skipped_targets: skipped,
                phases,
            },
        ),
        Format::Table | Format::Markdown => listing_lines(&listed, skipped),
    }
}

fn listing_lines(listed: &[ListedBenchmark], skipped: &[SkippedTarget]) -> String {
    let packages = listed
        .iter()
        .filter_map(|b| b.package)
        .chain(skipped.iter().filter_map(|s| s.package.as_deref()));
    let several_packages = distinct_more_than_one(packages);
    let width = listed
        .iter()
        .map(|b| super::text::id_line(b.id).chars().count())
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for bench in listed {
        if bench.harness == Some(crate::model::harness::HarnessKind::Command) {
            let _ = writeln!(
                out,
                "{:<width$}  (command: wall time, and peak memory as {:?})",
                bench.id,
                crate::model::command::memory_id(bench.id)
            );
            continue;
        }
        let side = match bench.presence {
            Presence::Both => "",
            Presence::OnlyInBase => ", only in base",
            Presence::OnlyInHead => ", only in head",
        };
        let target = bench.target.unwrap_or("?");
        let package = match bench.package {
            Some(package) if several_packages => format!(" of package {package}"),
            _ => String::new(),
        };
        let harness = bench
            .harness
            .map_or_else(String::new, |harness| format!(", {harness}"));
        let selected = match bench.selection {
            Some(s) if s.skipped() => format!(": not measured, {}", s.detail),
            Some(s) => format!(": measured, {}", s.detail),
            None => String::new(),
        };
        let _ = writeln!(
            out,
            "{:<width$}  (bench target {target}{package}{harness}{side}){selected}",
            super::text::id_line(bench.id)
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::target::TargetKey;

    fn matched(id: &str, base: Option<&str>, head: Option<&str>, presence: Presence) -> Matched {
        let key = |target: &str| TargetKey::new("p", target);
        Matched {
            id: id.to_string(),
            criterion_id: id.to_string(),
            base_target: base.map(key),
            head_target: head.map(key),
            presence,
            harness: None,
        }
    }

    fn sample() -> Vec<Matched> {
        vec![
            matched("hash/mix", Some("demo"), Some("demo"), Presence::Both),
            matched("hash/gone", Some("old"), None, Presence::OnlyInBase),
            matched("hash/new_in_head", None, Some("demo"), Presence::OnlyInHead),
        ]
    }

    #[test]
    fn lines_name_the_target_and_a_one_sided_presence() {
        let text = render_listing(&sample(), &[], &BTreeMap::new(), None, Format::Table);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines,
            [
                "hash/mix          (bench target demo)",
                "hash/gone         (bench target old, only in base)",
                "hash/new_in_head  (bench target demo, only in head)",
            ]
        );
        assert_eq!(
            render_listing(&sample(), &[], &BTreeMap::new(), None, Format::Markdown),
            text
        );
    }

    #[test]
    fn a_command_is_listed_with_its_two_records() {
        let mut command = matched("parse", None, None, Presence::Both);
        command.harness = Some(crate::model::harness::HarnessKind::Command);
        let text = render_listing(&[command], &[], &BTreeMap::new(), None, Format::Table);
        assert_eq!(
            text,
            "parse  (command: wall time, and peak memory as \"parse (peak memory)\")\n"
        );
    }

    #[test]
    fn lines_name_the_package_when_there_are_several() {
        let mut listed = sample();
        listed[1].base_target = Some(TargetKey::new("other", "demo"));
        listed[1].id = "other::demo::hash/gone".to_string();
        let text = render_listing(&listed, &[], &BTreeMap::new(), None, Format::Table);
        assert!(
            text.contains(
                "other::demo::hash/gone  (bench target demo of package other, only in base)"
            ),
            "{text}"
        );
        assert!(text.contains("(bench target demo of package p)"), "{text}");
    }

    #[test]
    fn json_lists_id_package_target_presence_and_skipped_targets() {
        let skipped = [SkippedTarget {
            package: Some("p".into()),
            target: "gated".into(),
            reason: "not built".into(),
        }];
        let json: serde_json::Value = serde_json::from_str(&render_listing(
            &sample(),
            &skipped,
            &BTreeMap::new(),
            None,
            Format::Json,
        ))
        .unwrap();
        let benchmarks = json["benchmarks"].as_array().unwrap();
        assert_eq!(benchmarks.len(), 3);
        assert_eq!(benchmarks[1]["id"], "hash/gone");
        assert_eq!(benchmarks[1]["target"], "old");
        assert_eq!(benchmarks[1]["package"], "p");
        assert_eq!(benchmarks[1]["presence"], "only_in_base");
        assert_eq!(benchmarks[2]["presence"], "only_in_head");
        assert!(benchmarks[0].get("criterion_id").is_none());
        assert_eq!(json["skipped_targets"][0]["target"], "gated");
        assert_eq!(json["skipped_targets"][0]["reason"], "not built");
    }

    #[test]
    fn each_line_and_entry_names_its_harness() {
        let mut listed = sample();
        listed[0].harness = Some(HarnessKind::Divan);
        listed[2].harness = Some(HarnessKind::Bencher);
        let text = render_listing(&listed, &[], &BTreeMap::new(), None, Format::Table);
        assert!(
            text.contains("hash/mix          (bench target demo, divan)"),
            "{text}"
        );
        assert!(
            text.contains("(bench target demo, bencher, only in head)"),
            "{text}"
        );
        let json: serde_json::Value = serde_json::from_str(&render_listing(
            &listed,
            &[],
            &BTreeMap::new(),
            None,
            Format::Json,
        ))
        .unwrap();
        assert_eq!(json["benchmarks"][0]["harness"], "divan");
        assert!(json["benchmarks"][1].get("harness").is_none());
    }

    #[test]
    fn json_records_the_phases_as_a_comparison_does() {
        let phases = Phases {
            checkout_ms: 800,
            discovery_ms: 2_000,
            trace_ms: 12_000,
            probe_ms: 3_000,
            ..Phases::default()
        };
        let render =
            |phases| render_listing(&sample(), &[], &BTreeMap::new(), phases, Format::Json);
        let json: serde_json::Value = serde_json::from_str(&render(Some(&phases))).unwrap();
        // The same fields, by the same names, as a comparison's `run.phases`.
        assert_eq!(json["phases"], serde_json::to_value(&phases).unwrap());
        assert_eq!(json["phases"]["trace_ms"], 12_000);
        assert_eq!(json["phases"]["probe_ms"], 3_000);
        let json: serde_json::Value = serde_json::from_str(&render(None)).unwrap();
        assert!(json.get("phases").is_none(), "{json}");
        // The text form has none.
        let text = render_listing(
            &sample(),
            &[],
            &BTreeMap::new(),
            Some(&phases),
            Format::Table,
        );
        assert!(!text.contains("trace"), "{text}");
    }

    #[test]
    fn an_empty_listing_is_empty() {
        assert_eq!(
            render_listing(&[], &[], &BTreeMap::new(), None, Format::Table),
            ""
        );
    }
}
