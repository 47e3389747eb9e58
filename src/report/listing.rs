//! `--list`: the benchmarks a comparison would measure, without measuring them. Plain data in
//! (the matched benchmarks), text out: one line per benchmark for people and `grep`, or JSON for
//! scripts.

use std::fmt::Write;

use serde::Serialize;

use super::Format;
use crate::discover::Matched;
use crate::samples::Presence;

/// The JSON form: `{"benchmarks": [...]}`.
#[derive(Debug, Serialize)]
struct Listing<'a> {
    benchmarks: Vec<ListedBenchmark<'a>>,
}

/// One listed benchmark, as JSON gives it.
#[derive(Debug, Serialize)]
struct ListedBenchmark<'a> {
    id: &'a str,
    /// The bench target that has it (head's, or base's when head lacks it).
    target: Option<&'a str>,
    presence: Presence,
}

/// The listing in `format`: JSON (`{"benchmarks": [...]}`) or, for the table and Markdown
/// formats, one line per benchmark: its id, its bench target and, for a benchmark that only one
/// side has, which.
pub fn render_listing(matched: &[Matched], format: Format) -> String {
    let listed: Vec<ListedBenchmark> = matched
        .iter()
        .map(|m| ListedBenchmark {
            id: &m.id,
            target: m.head_target.as_deref().or(m.base_target.as_deref()),
            presence: m.presence,
        })
        .collect();
    match format {
        Format::Json => super::json::pretty("listing", &Listing { benchmarks: listed }),
        Format::Table | Format::Markdown => listing_lines(&listed),
    }
}

fn listing_lines(listed: &[ListedBenchmark]) -> String {
    let width = listed
        .iter()
        .map(|b| b.id.chars().count())
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for bench in listed {
        let side = match bench.presence {
            Presence::Both => "",
            Presence::OnlyInBase => ", only in base",
            Presence::OnlyInHead => ", only in head",
        };
        let target = bench.target.unwrap_or("?");
        let _ = writeln!(out, "{:<width$}  (bench target {target}{side})", bench.id);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matched(id: &str, base: Option<&str>, head: Option<&str>, presence: Presence) -> Matched {
        Matched {
            id: id.to_string(),
            base_target: base.map(str::to_string),
            head_target: head.map(str::to_string),
            presence,
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
        let text = render_listing(&sample(), Format::Table);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines,
            [
                "hash/mix          (bench target demo)",
                "hash/gone         (bench target old, only in base)",
                "hash/new_in_head  (bench target demo, only in head)",
            ]
        );
        assert_eq!(render_listing(&sample(), Format::Markdown), text);
    }

    #[test]
    fn json_lists_id_target_and_presence() {
        let json: serde_json::Value =
            serde_json::from_str(&render_listing(&sample(), Format::Json)).unwrap();
        let benchmarks = json["benchmarks"].as_array().unwrap();
        assert_eq!(benchmarks.len(), 3);
        assert_eq!(benchmarks[1]["id"], "hash/gone");
        assert_eq!(benchmarks[1]["target"], "old");
        assert_eq!(benchmarks[1]["presence"], "only_in_base");
        assert_eq!(benchmarks[2]["presence"], "only_in_head");
    }

    #[test]
    fn an_empty_listing_is_empty() {
        assert_eq!(render_listing(&[], Format::Table), "");
    }
}
