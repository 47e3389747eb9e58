//! The terminal table: content, colour only when asked, and fitting narrow terminals.

use crate::report_support;

use cargo_perfdiff::steps::analysis::{BenchWarning, ForkCounts, RemeasuredForks, Side};
use cargo_perfdiff::steps::report::{DROP_ORDER, Destination, Format, PIPED_WIDTH, Style, render};
use report_support::{NASTY_ID, all_verdicts, given_up_alike, report_of};

/// No colour, no width limit.
const NO_COLOR: Style = Style {
    color: false,
    width: None,
    wrap: false,
};

fn plain(width: Option<u16>) -> String {
    render(
        &all_verdicts(),
        Format::Table,
        &Style {
            color: false,
            width,
            wrap: false,
        },
    )
}

#[test]
fn rows_carry_the_numbers() {
    let out = plain(None);
    if std::env::var_os("PERFDIFF_SHOW").is_some() {
        println!("{out}");
        println!("{}", plain(Some(80)));
        println!(
            "{}",
            render(
                &all_verdicts(),
                Format::Table,
                &Style {
                    color: true,
                    width: Some(100),
                    wrap: false
                }
            )
        );
    }
    for expected in [
        "hash/mix",
        "1.00 µs",
        "1.50 µs",
        "+50.0 %",
        "[1.47, 1.53]",
        "1.0e-6 (4.0e-6)",
        "+0.98 large",
        "10/10",
        "regressed",
        "-20.0 %",
        "3.20 ms",
        "812 ns",
        "1.50 s",
        "[0.995, 1.007]",
        "only in base",
        "only in head",
        "inconclusive",
        "failed",
        "ünïcödé",
    ] {
        assert!(out.contains(expected), "missing {expected:?} in\n{out}");
    }
}

#[test]
fn footer_has_summary_warnings_failures_and_settings() {
    let out = plain(None);
    assert!(
        out.starts_with("HEAD~1 (0123456789) → HEAD (fedcba9876)\n"),
        "{out}"
    );
    assert!(out.contains(
        "1 regressed, 1 improved, 1 unchanged, 1 inconclusive, 1 failed, 1 only in base, 1 only in head\n"
    ));
    assert!(out.contains("warning: parse|pipe <script>"));
    assert!(out.contains("2 fork(s) never reached a steady state"));
    assert!(out.contains("hides changes below ±8.1 %"));
    assert!(
        out.contains("failed: hash/broken: head: the benchmark process exited with status 101\n")
    );
    assert!(out.contains("    │ index out of bounds\n"), "{out}");
    assert!(out.contains("skipped bench target `custom_harness`"));
    assert!(out.contains(
        "settings: interleaved mode · threshold ±2 % · alpha 0.01 (unchanged: 0.05 each side) · bootstrap 99 % (10000 resamples) · FDR on · seed 42\n"
    ));
    assert!(out.contains("samples: target/perfdiff/samples-HEAD~1-HEAD.json\n"));
}

#[test]
fn no_control_characters_without_colour() {
    for width in [None, Some(60), Some(80), Some(200)] {
        let out = plain(width);
        let bad: Vec<char> = out
            .chars()
            .filter(|c| c.is_control() && *c != '\n')
            .collect();
        assert!(
            bad.is_empty(),
            "control characters {bad:?} at width {width:?}"
        );
    }
    // An id with its own escape sequence is neutralised too.
    let mut report = all_verdicts();
    report.benchmarks[0].id = "evil\x1b[2J\x07id".to_string();
    let out = render(&report, Format::Table, &Style::plain());
    assert!(!out.contains('\x1b') && !out.contains('\x07'));
}

#[test]
fn colour_marks_verdicts() {
    let out = render(
        &all_verdicts(),
        Format::Table,
        &Style {
            color: true,
            width: None,
            wrap: false,
        },
    );
    assert!(out.contains("\x1b["), "no escape codes with colour on");
    assert!(
        out.contains("31m") || out.contains("38;5;9m") || out.contains("91m"),
        "no red"
    );
}

/// The table's lines: the header, then one line per benchmark (between the three rules).
fn table_lines(out: &str) -> Vec<&str> {
    let lines: Vec<&str> = out.lines().collect();
    let rules: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].starts_with('─'))
        .collect();
    assert_eq!(rules.len(), 3, "three rules:\n{out}");
    let mut table = vec![lines[rules[0] + 1]];
    table.extend(&lines[rules[1] + 1..rules[2]]);
    table
}

/// A report as a real suite gives one: every verdict, a benchmark id far longer than a third of
/// any terminal, benchmarks of two packages and a layout spread, so every column is there.
fn crowded_report() -> cargo_perfdiff::steps::analysis::Report {
    let mut report = all_verdicts();
    report.benchmarks[0].id =
        "combinations_with_replacement/specialised_nth_of_a_long_iterator/1048576".to_string();
    for (i, b) in report.benchmarks.iter_mut().enumerate() {
        b.package = Some(
            if i % 2 == 0 {
                "alpha"
            } else {
                "beta-with-a-long-name"
            }
            .into(),
        );
        b.layout_spread = Some(cargo_perfdiff::steps::analysis::LayoutSpread {
            layouts: 10,
            spread: 0.013,
            head_slower: 5,
            rounds: 10,
        });
    }
    report
}

/// `report`'s table at `width` columns, with colour or not, the notes unwrapped.
fn table_at(report: &cargo_perfdiff::steps::analysis::Report, width: u16, color: bool) -> String {
    let style = Style {
        color,
        width: Some(width),
        wrap: false,
    };
    render(report, Format::Table, &style)
}

/// The style a report piped into another program or a file gets.
fn piped() -> Style {
    Style::resolve(&Destination::default())
}

/// Every benchmark is one row no wider than the terminal, with its id (whole or visibly
/// shortened), change, interval and verdict on it, every number whole.
fn assert_rows_fit(report: &cargo_perfdiff::steps::analysis::Report, style: &Style) {
    let width = usize::from(style.width.unwrap());
    let out = render(report, Format::Table, style);
    let lines = table_lines(&out);
    assert_eq!(lines.len(), report.benchmarks.len() + 1, "{out}");
    for line in out.lines().take_while(|l| !l.contains(" regressed,")) {
        let columns = line.chars().count();
        assert!(columns <= width, "{columns} > {width}: {line}\n{out}");
    }
    // A change and an interval, whole, or the placeholder of a benchmark without one.
    let change = regex::Regex::new(r" ([+-]\d+\.\d %|—) ").unwrap();
    let interval = regex::Regex::new(r" (\[\d+\.\d+, \d+\.\d+\]†?|—) ").unwrap();
    for (row, b) in lines[1..].iter().zip(&report.benchmarks) {
        let label = cargo_perfdiff::steps::report::outcome_label(b.verdict);
        assert!(row.ends_with(label), "verdict not on the row: {row}\n{out}");
        assert!(
            change.is_match(row),
            "no whole change on the row: {row}\n{out}"
        );
        assert!(
            interval.is_match(row),
            "no whole interval on the row: {row}\n{out}"
        );
        let id_start: String = b.id.chars().take(8).collect();
        assert!(row.trim_start().starts_with(&id_start), "id: {row}\n{out}");
        let whole = row.contains(&b.id);
        assert!(
            whole || row.contains('…'),
            "id neither whole nor shortened: {row}"
        );
    }
    let header = lines[0];
    for kept in ["benchmark", "change", "ratio 99 % CI", "verdict"] {
        assert!(header.contains(kept), "{kept} dropped at {width}: {header}");
    }
}

#[test]
fn every_row_fits_at_80_100_and_120_columns_and_piped() {
    assert_eq!(
        piped(),
        Style {
            color: false,
            width: Some(PIPED_WIDTH),
            wrap: false
        }
    );
    for report in [all_verdicts(), crowded_report()] {
        for width in [80, 100, 120] {
            assert_rows_fit(
                &report,
                &Style {
                    color: false,
                    width: Some(width),
                    wrap: false,
                },
            );
        }
        assert_rows_fit(&report, &piped());
    }
}

#[test]
fn colour_changes_nothing_but_the_escape_sequences() {
    let report = crowded_report();
    for width in [80, 100, 120] {
        let plain = table_at(&report, width, false);
        let coloured = table_at(&report, width, true);
        assert!(coloured.contains("\x1b["), "no colour at {width}");
        let uncoloured: Vec<String> = strip_ansi(&coloured)
            .lines()
            .map(|l| l.trim_end().to_string())
            .collect();
        assert_eq!(uncoloured.join("\n") + "\n", plain, "at {width}");
    }
}

/// `text` without ANSI escape sequences.
fn strip_ansi(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            for end in chars.by_ref() {
                if end.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[test]
fn a_long_id_is_shortened_in_the_middle_not_wrapped() {
    let out = plain(Some(80));
    let row = table_lines(&out)
        .into_iter()
        .find(|l| l.contains("parse|pipe"))
        .unwrap_or_else(|| panic!("no row for the long id:\n{out}"));
    assert!(row.contains('…'), "{row}");
    assert!(row.contains("*bold*"), "the id's end is kept: {row}");
    assert!(row.ends_with("inconclusive"), "{row}");
    // Nothing of the id spills onto a line of its own.
    assert!(
        !out.lines().any(|l| l.trim_start().starts_with("*bold*")),
        "{out}"
    );
}

#[test]
fn columns_are_dropped_in_the_documented_order() {
    let report = crowded_report();
    let header = |width: u16| {
        let out = table_at(&report, width, false);
        table_lines(&out)[0].to_string()
    };
    let present = |header: &str, column: &str| {
        let padded = format!(" {column} ");
        format!("{header} ").contains(&padded)
    };
    let mut dropped_so_far = 0;
    for width in (40..=260).rev() {
        let header = header(width);
        let dropped = DROP_ORDER
            .iter()
            .take_while(|c| !present(&header, c))
            .count();
        assert!(
            DROP_ORDER[dropped..].iter().all(|c| present(&header, c)),
            "at {width} a column went out of order: {header}"
        );
        assert!(dropped >= dropped_so_far, "at {width}: {header}");
        dropped_so_far = dropped;
    }
    assert_eq!(
        dropped_so_far,
        DROP_ORDER.len(),
        "all dropped at 40 columns"
    );
}

#[test]
fn the_prose_under_the_table_wraps_between_words_on_a_terminal() {
    let terminal = Style {
        color: false,
        width: Some(80),
        wrap: true,
    };
    let out = render(&all_verdicts(), Format::Table, &terminal);
    let footer = out.lines().skip_while(|l| !l.contains(" regressed,"));
    for line in footer.filter(|l| !l.starts_with("    │")) {
        assert!(line.chars().count() <= 80, "{line}");
    }
    let settings = out
        .lines()
        .position(|l| l.starts_with("settings: "))
        .unwrap();
    let continued = out.lines().nth(settings + 1).unwrap();
    assert!(
        continued.starts_with("  ") && continued.ends_with("seed 42"),
        "{out}"
    );
}

#[test]
fn fits_eighty_columns() {
    let out = plain(Some(80));
    for line in out
        .lines()
        .skip(1)
        .take_while(|l| !l.contains("regressed,"))
    {
        assert!(
            line.chars().count() <= 80,
            "line too wide ({}): {line}",
            line.chars().count()
        );
    }
    // The least important columns went first; the essential ones stayed.
    let header = out.lines().nth(2).unwrap();
    assert!(!header.contains("forks"), "{header}");
    for kept in ["benchmark", "change", "verdict"] {
        assert!(header.contains(kept), "{kept} dropped: {header}");
    }
}

#[test]
fn wide_terminal_keeps_every_column() {
    let out = plain(Some(250));
    for column in [
        "base",
        "head",
        "change",
        "ratio 99 % CI",
        "p (q)",
        "Cliff's δ",
        "forks",
        "verdict",
    ] {
        assert!(out.contains(column), "{column} missing");
    }
    assert!(out.contains(NASTY_ID.split('`').next().unwrap()));
}

#[test]
fn empty_report_says_so() {
    let out = render(&report_of(Vec::new()), Format::Table, &Style::plain());
    assert!(out.contains("no benchmarks"), "{out}");
}

#[test]
fn tiny_terminal_does_not_break() {
    for width in [0, 1, 10, 30] {
        let out = plain(Some(width));
        assert!(
            out.contains("hash/mix") || out.contains("hash/"),
            "width {width}:\n{out}"
        );
        assert!(out.contains("1 regressed"));
    }
}

#[test]
fn disturbed_forks_are_one_note_for_the_run() {
    let mut report = all_verdicts();
    assert!(!plain(None).contains("disturbed"));
    report.benchmarks[0].head.disturbed_forks = 1;
    report.benchmarks[1].base.disturbed_forks = 2;
    let forks: usize = report
        .benchmarks
        .iter()
        .map(|b| b.forks.base + b.forks.head)
        .sum();
    let style = NO_COLOR;
    let out = render(&report, Format::Table, &style);
    let expected = format!("note: 3 of {forks} forks in 2 benchmark(s) were left out as disturbed");
    assert_eq!(out.matches(expected.as_str()).count(), 1, "{out}");
    let markdown = render(&report, Format::Markdown, &style);
    assert!(
        markdown.contains("were left out as disturbed"),
        "{markdown}"
    );
}

#[test]
fn steal_time_is_noted_only_when_noticeable() {
    let style = NO_COLOR;
    let mut report = all_verdicts();
    report.steal_share = Some(0.002);
    assert!(!render(&report, Format::Table, &style).contains("steal time"));
    report.steal_share = Some(0.034);
    let out = render(&report, Format::Table, &style);
    assert!(
        out.contains("note: the hypervisor took 3.4 % of this machine's CPU time"),
        "{out}"
    );
    assert!(render(&report, Format::Markdown, &style).contains("steal time"));
}

#[test]
fn cpu_wait_is_noted_only_when_noticeable_with_advice_for_the_mode() {
    let style = NO_COLOR;
    let mut report = all_verdicts();
    report.cpu_wait_share = Some(0.004);
    assert!(!render(&report, Format::Table, &style).contains("waited for a CPU"));
    report.cpu_wait_share = Some(0.21);
    let out = render(&report, Format::Table, &style);
    assert!(
        out.contains("note: forks waited for a CPU 21 % of the time they were ready to run"),
        "{out}"
    );
    assert!(out.contains("other work on this machine"), "{out}");
    report.settings.mode = cargo_perfdiff::config::Mode::Duet;
    let markdown = render(&report, Format::Markdown, &style);
    assert!(
        markdown.contains("waited for a CPU") && markdown.contains("--cpus"),
        "{markdown}"
    );
}

#[test]
fn time_outside_the_benchmarks_is_noted_when_it_is_a_large_share() {
    let style = NO_COLOR;
    let mut report = all_verdicts();
    let outside = |share: f64| cargo_perfdiff::steps::analysis::OutsideTime {
        share,
        median_ms: 245.4,
        heaviest_targets: vec!["bench1".into(), "specializations".into()],
    };
    report.outside_benchmark = Some(outside(0.05));
    assert!(!render(&report, Format::Table, &style).contains("outside the benchmark"));
    report.outside_benchmark = Some(outside(0.27));
    let out = render(&report, Format::Table, &style);
    assert!(
        out.contains(
            "note: forks spent 27 % of their time outside the benchmark they measured (245 ms a \
             fork at the median; most in bench target(s) `bench1`, `specializations`)"
        ),
        "{out}"
    );
    assert!(out.contains("`LazyLock`"), "{out}");
    assert!(render(&report, Format::Markdown, &style).contains("outside the benchmark"));
}

#[test]
fn the_time_line_splits_measuring_from_the_rest_when_the_run_recorded_it() {
    let style = NO_COLOR;
    let mut report = all_verdicts();
    assert!(!render(&report, Format::Table, &style).contains("time:"));
    // 11 sides ran forks: 10 each, but hash/mix stopped after 3 per side (96 forks in all).
    report.benchmarks[0].forks = ForkCounts::new(3, 3);
    report.run.wall_ms = Some(229_553);
    report.run.measure_ms = Some(228_900);
    let out = render(&report, Format::Table, &style);
    let expected =
        "time: 3 min 50 s in all, 3 min 49 s of it running 96 forks (8.7 per benchmark and side)";
    assert_eq!(out.matches(expected).count(), 1, "{out}");
    let markdown = render(&report, Format::Markdown, &style);
    assert!(
        markdown.contains("3 min 49 s of it running 96 forks (8.7 per benchmark and side)"),
        "{markdown}"
    );
}

#[test]
fn forks_measured_again_are_counted_in_the_forks_column_and_the_time_line() {
    let style = NO_COLOR;
    let mut report = all_verdicts();
    // hash/mix ran 3 rounds, and one fork of head was measured again: 3/4 forks, 97 in all.
    report.benchmarks[0].forks = ForkCounts {
        remeasured: RemeasuredForks { base: 0, head: 1 },
        ..ForkCounts::new(3, 4)
    };
    report.run.wall_ms = Some(229_553);
    report.run.measure_ms = Some(228_900);
    let expected =
        "3 min 49 s of it running 97 forks (1 measured again, 8.8 per benchmark and side)";
    for format in [Format::Table, Format::Markdown] {
        let out = render(&report, format, &style);
        assert_eq!(out.matches(expected).count(), 1, "{out}");
        assert!(out.contains("3/4 (1 again)"), "{out}");
        assert!(out.contains("10/10"), "{out}");
        assert!(!out.contains("10/10 ("), "{out}");
    }
    let json = render(&report, Format::Json, &style);
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    let forks = |i: usize| json["benchmarks"][i]["forks"].clone();
    assert_eq!(
        forks(0),
        serde_json::json!({"base": 3, "head": 4, "remeasured": {"base": 0, "head": 1}})
    );
    assert_eq!(forks(3), serde_json::json!({"base": 10, "head": 10}));
}

#[test]
fn timesplit_the_time_line_splits_the_whole_run_when_it_recorded_its_phases() {
    use cargo_perfdiff::model::samples::{BuildTime, Phases, SideBuildTimes};
    let style = NO_COLOR;
    let mut report = all_verdicts();
    report.benchmarks[0].forks = ForkCounts::new(3, 3);
    report.run.wall_ms = Some(94_000);
    report.run.measure_ms = Some(25_800);
    report.run.phases = Some(Phases {
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
    });
    let out = render(&report, Format::Table, &style);
    let expected = "time: 1 min 34 s in all: build 41.0 s (base 30.0 s, head 11.0 s) · trace 12.0 s · \
                    probe 3.0 s · measuring 25.8 s (96 forks, 8.7 per benchmark and side) · other \
                    12.2 s";
    assert_eq!(out.matches(expected).count(), 1, "{out}");
    assert!(
        !out.contains("phase by phase"),
        "--explain's line only with --explain: {out}"
    );
    // With --explain: every phase, and what each side's build compiled.
    report.run.settings = Some(serde_json::json!({ "explain": true }));
    let out = render(&report, Format::Table, &style);
    assert!(
        out.contains(
            "time, phase by phase: checkout 812 ms · base's build 30.0 s (64 crates compiled) · \
             head's build 11.0 s (3 crates compiled) · discovery 2.1 s · trace 12.0 s · probe \
             3.0 s · selection 400 ms · measuring 25.8 s · analysis 12 ms · other 8.9 s"
        ),
        "{out}"
    );
    // The Markdown report's last line (and with it the GitHub Action's job summary) carries it.
    let markdown = render(&report, Format::Markdown, &style);
    assert!(
        markdown.contains("build 41.0 s (base 30.0 s, head 11.0 s) · trace 12.0 s"),
        "{markdown}"
    );
}

/// Sets every side's relative SD of fork means to `spread`.
fn with_fork_spread(
    mut report: cargo_perfdiff::steps::analysis::Report,
    spread: f64,
) -> cargo_perfdiff::steps::analysis::Report {
    for b in &mut report.benchmarks {
        b.base.fork_rel_sd = Some(spread);
        b.head.fork_rel_sd = Some(spread);
    }
    report
}

#[test]
fn a_noisy_machine_is_named_once_for_the_run_with_what_to_try() {
    use cargo_perfdiff::steps::report::{median_fork_rel_sd, noisy_forks_note};
    let table = |report: &cargo_perfdiff::steps::analysis::Report| {
        render(
            report,
            Format::Table,
            &Style {
                color: false,
                width: None,
                wrap: false,
            },
        )
    };
    // Forks 1 % apart under a 2 % threshold: an ordinary quiet run, no note.
    let quiet = with_fork_spread(all_verdicts(), 0.01);
    assert_eq!(noisy_forks_note(&quiet), None);
    assert!(!table(&quiet).contains("these forks are noisy"));

    // A loaded machine: forks 21 % apart (the loaded demo recording's median).
    let mut noisy = with_fork_spread(all_verdicts(), 0.21);
    noisy.benchmarks[0].base.fork_rel_sd = Some(0.01);
    noisy.benchmarks[1].head.fork_rel_sd = None;
    assert_eq!(median_fork_rel_sd(&noisy), Some(0.21));
    let out = table(&noisy);
    assert!(
        out.contains("note: the forks of a typical benchmark differed by 21 %"),
        "{out}"
    );
    assert!(out.contains("against a threshold of ±2 %"), "{out}");
    assert!(out.contains("the benchmark's own spread"), "{out}");
    assert!(out.contains("--mode duet"), "{out}");
    assert!(out.contains("--calibrate in each mode"), "{out}");
    // Duet runs are pointed at the other mode: on a very noisy host (winnow, 2026-11-23) duet's
    // forks lay further apart than interleaved ones.
    noisy.settings.mode = cargo_perfdiff::config::Mode::Duet;
    let note = noisy_forks_note(&noisy).unwrap();
    assert!(
        note.contains("try a quieter machine, or --mode interleaved"),
        "{note}"
    );
    assert!(!note.contains("--mode duet"), "{note}");
    // The note scales with the run's threshold: 21 % is not noisy against ±25 %, and it is from
    // one threshold up (ropey's noisy-host run: 2.3 % against ±2 %, 23 of 24 undecidable).
    noisy.settings.threshold = 0.25;
    assert_eq!(noisy_forks_note(&noisy), None);
    noisy.settings.threshold = 0.21;
    assert!(noisy_forks_note(&noisy).is_some());
    let ropey = with_fork_spread(all_verdicts(), 0.023);
    assert!(noisy_forks_note(&ropey).is_some());
    // The quiet recordings' medians (0.5–1.1 %) stay below it.
    assert_eq!(
        noisy_forks_note(&with_fork_spread(all_verdicts(), 0.011)),
        None
    );
}

/// An `inconclusive` result 2 % apart with a wide interval, for the notes' tests to dress.
fn inconclusive(id: &str) -> cargo_perfdiff::steps::analysis::BenchmarkResult {
    report_support::measured(
        id,
        cargo_perfdiff::steps::analysis::Outcome::Inconclusive,
        50.0,
        (1.02, 0.8, 1.3),
        0.4,
        (0.05, cargo_perfdiff::stats::Magnitude::Negligible),
    )
}

/// Benchmarks given up alike share one warning line and one note line, each naming them all;
/// a notice about one benchmark keeps the `id: message` form.
#[test]
fn notices_shared_by_several_benchmarks_are_said_once() {
    let given_up = |id: &str, mdc: f64, needed: usize| {
        let mut b = inconclusive(id);
        b.min_detectable_change = Some(mdc);
        b.warnings.push(BenchWarning::GaveUp {
            rounds: 5,
            max_forks: Some(10),
            rounds_needed: Some(needed),
        });
        b
    };
    let mut lone = given_up("f64/lone", 0.2, 0);
    lone.warnings[0] = BenchWarning::Unsteady {
        side: Side::Head,
        forks: 1,
    };
    let report = report_of(vec![
        given_up("f32/ryu", 0.1331, 40),
        lone,
        given_up("f64/ryu", 0.4956, 600),
    ]);
    let style = NO_COLOR;
    let out = render(&report, Format::Table, &style);
    let lines = |prefix: &str| out.lines().filter(|l| l.starts_with(prefix)).count();
    assert_eq!(lines("warning: "), 2, "{out}");
    assert_eq!(lines("note: "), 1, "{out}");
    const STOPPED_EARLY: &str = "stopped early: at this noise no verdict was in reach within \
                                 --max-forks (10) rounds, so the stop rule gave them up";
    assert!(
        out.contains(&format!(
            "warning: {STOPPED_EARLY} (2 benchmarks: f32/ryu [0.80, 1.30] after 5 rounds (about \
             40 needed), f64/ryu [0.80, 1.30] after 5 rounds (about 600 needed))\n"
        )),
        "{out}"
    );
    assert!(out.contains("warning: f64/lone: head: 1 fork(s) never reached a steady state\n"));
    assert!(
        out.contains(
            "note: this run's noise hides changes below the size given for each (threshold ±2 %), \
             and about how many rounds would reveal ±2 % at that noise (--max-forks, or --forks \
             with --stop fixed) (3 benchmarks: f32/ryu ±13.31 % (443 rounds), f64/lone ±20 % \
             (1000 rounds), f64/ryu ±49.56 % (6141 rounds))\n"
        ),
        "{out}"
    );
    let markdown = render(&report, Format::Markdown, &style);
    assert!(
        markdown.contains(&format!(
            "- {STOPPED_EARLY} (2 benchmarks: **f32/ryu** \\[0.80, 1.30\\] after 5 rounds \
             (about 40 needed), **f64/ryu** \\[0.80, 1.30\\] after 5 rounds (about 600 \
             needed))\n"
        )),
        "{markdown}"
    );
    // A benchmark alone in its cause reads as its own sentence.
    let alone = report_of(vec![given_up("f32/ryu", 0.01, 40)]);
    let out = render(&alone, Format::Table, &style);
    assert!(
        out.contains(
            "warning: f32/ryu: stopped early, after 5 rounds: at this noise a verdict would take \
             about 40 rounds in all, more than --max-forks (10) allows, so the stop rule gave it \
             up\n"
        ),
        "{out}"
    );
}

/// A real crate's run left 42 of 45 benchmarks given up alike, and printed 42 warnings and a
/// note of 2,500 characters: each cause is one line, its count and its three worst named, the
/// rest left to the JSON and the HTML.
#[test]
fn a_cause_of_many_benchmarks_is_one_short_line_naming_the_worst() {
    let report = given_up_alike(42);
    let out = render(&report, Format::Table, &NO_COLOR);
    let notices: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("warning: ") || l.starts_with("note: "))
        .collect();
    assert_eq!(notices.len(), 2, "{out}");
    let warning = notices[0];
    assert!(
        warning.starts_with(
            "warning: stopped early: at this noise no verdict was in reach within --max-forks \
             (10) rounds, so the stop rule gave them up (42 benchmarks; worst: nano/41 [0.09, \
             11.75] after 5 rounds (about 4200 needed), nano/40 "
        ),
        "{warning}"
    );
    assert!(
        warning.ends_with("; every one in --format json and --html)"),
        "{warning}"
    );
    assert!(warning.contains(", nano/39 ") && !warning.contains("nano/38"));
    let note = notices[1];
    assert!(
        note.contains("(42 benchmarks; worst: nano/41 ±61 % ("),
        "{note}"
    );
    for line in notices {
        assert!(line.chars().count() < 400, "{} chars: {line}", line.len());
    }
}

/// The rounds the note asks for are the ones the power formula gives for a change of the
/// threshold's size at the measured spread of the rounds, up to rounding the detectable change.
#[test]
fn the_rounds_a_hidden_change_needs_follow_the_power_formula() {
    use cargo_perfdiff::stats::power::{min_detectable_change, units_needed};
    use cargo_perfdiff::steps::report::rounds_to_reveal_threshold;
    let alpha = 0.01;
    for (sd, rounds) in [(0.01, 3), (0.03, 5), (0.08, 10), (0.2, 4)] {
        let mut result = inconclusive("noisy");
        result.paired.as_mut().unwrap().rounds.n = rounds;
        result.min_detectable_change = Some(min_detectable_change(sd, rounds, alpha, 0.8));
        let wanted = units_needed(sd, result.threshold, alpha, 0.8);
        let got = rounds_to_reveal_threshold(&result).unwrap();
        assert!(
            got.abs_diff(wanted) <= 1,
            "{sd} {rounds}: {got} vs {wanted}"
        );
    }
    let mut unknown = inconclusive("unknown");
    unknown.min_detectable_change = Some(f64::INFINITY);
    assert_eq!(rounds_to_reveal_threshold(&unknown), None);
    unknown.min_detectable_change = None;
    assert_eq!(rounds_to_reveal_threshold(&unknown), None);
}

/// The calibration's advice names the other mode, never the one the run used: duet is the
/// quieter mode on some machines and interleaving on others.
#[test]
fn calibration_suggests_the_other_mode_and_the_forks_the_noise_needs() {
    use cargo_perfdiff::config::Mode;
    use cargo_perfdiff::steps::report::render_calibration;
    let mut report = with_fork_spread(all_verdicts(), 0.03);
    let interleaved = render_calibration(&report);
    assert!(
        interleaved.contains("Suggestion: --max-forks "),
        "{interleaved}"
    );
    assert!(interleaved.contains("so may --mode duet"), "{interleaved}");
    report.settings.mode = Mode::Duet;
    let duet = render_calibration(&report);
    assert!(duet.contains("so may --mode interleaved"), "{duet}");
    assert!(!duet.contains("--mode duet"), "{duet}");
}

/// The real binary, re-rendering a recorded run of the demo: piped, the table is fitted to
/// [`PIPED_WIDTH`]; `COLUMNS` sets another width; neither has a colour.
#[test]
fn the_binary_fits_a_piped_report_and_honours_columns() {
    let recording = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/recordings/demo-quiet-fixed20.json"
    );
    let report = |columns: Option<&str>| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_cargo-perfdiff"));
        command.args(["report", recording, "--resamples", "1000"]);
        command.env_remove("COLUMNS").env_remove("NO_COLOR");
        if let Some(columns) = columns {
            command.env("COLUMNS", columns);
        }
        let output = command.output().unwrap();
        assert!(output.status.success(), "{output:?}");
        String::from_utf8(output.stdout).unwrap()
    };
    for (columns, width) in [(None, usize::from(PIPED_WIDTH)), (Some("80"), 80)] {
        let out = report(columns);
        assert!(!out.contains('\x1b'), "{out}");
        for line in out.lines().take_while(|l| !l.contains(" regressed,")) {
            assert!(line.chars().count() <= width, "wider than {width}: {line}");
        }
        let rows = &table_lines(&out)[1..];
        assert_eq!(rows.len(), 5, "{out}");
        for verdict in ["regressed", "improved", "unchanged", "only in head"] {
            assert!(
                rows.iter().any(|r| r.ends_with(verdict)),
                "{verdict}:\n{out}"
            );
        }
    }
}

/// docs/reports.md states the order columns are dropped in: it must be the code's.
#[test]
fn the_documented_drop_order_is_the_real_one() {
    let doc =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/reports.md")).unwrap();
    for (i, column) in DROP_ORDER.iter().enumerate() {
        let row = format!("| {} | `{column}` |", i + 1);
        assert!(doc.contains(&row), "docs/reports.md lacks {row}");
    }
}

/// The warnings come before the notes, whichever benchmark came first: a real run's lines
/// alternated between the two.
#[test]
fn warnings_come_before_notes() {
    let mut noted = inconclusive("a/noted");
    noted.min_detectable_change = Some(0.1);
    let mut warned = inconclusive("b/warned");
    warned.warnings.push(BenchWarning::NoSamples);
    let out = render(&report_of(vec![noted, warned]), Format::Table, &NO_COLOR);
    let labels: Vec<&str> = out
        .lines()
        .filter_map(|l| l.split_once(": ").map(|(label, _)| label))
        .filter(|label| ["warning", "note"].contains(label))
        .collect();
    assert_eq!(labels, ["warning", "note"], "{out}");
}
