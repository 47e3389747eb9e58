//! `replay` over the committed recording of the demo crate (`fixtures/recordings/`, recorded with
//! `scripts/record_demo.sh`: `--stop fixed --forks 20`).
//!
//! The figures are recomputed here from first principles (wall times of the kept forks, a fresh
//! analysis of the truncated recording) so a bookkeeping slip in `replay` fails the test, and the
//! targets of issue #4 are checked for the default rule.
use std::path::Path;

use cargo_perfdiff::config::{Settings, StopRule};
use cargo_perfdiff::model::samples::SampleFile;
use cargo_perfdiff::orchestrate::replay::{self, ReplayOptions, RuleReplay, StopLimits};
use cargo_perfdiff::steps::analysis::Outcome;

const RECORDING: &str = "fixtures/recordings/demo-fixed20.json";

fn recording() -> SampleFile {
    SampleFile::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join(RECORDING)).unwrap()
}

fn wall(forks: &[cargo_perfdiff::model::samples::ForkRecord]) -> f64 {
    forks.iter().map(|f| f.wall_ms.unwrap()).sum()
}

/// Fewer bootstrap resamples than a real run: the bookkeeping, not the CIs, is under test.
fn options() -> ReplayOptions {
    ReplayOptions {
        resamples: Some(1_000),
        ..Default::default()
    }
}

/// The stop limits with `--max-forks N` and the defaults otherwise.
fn max_forks(n: usize) -> StopLimits {
    StopLimits {
        max_forks: Some(n),
        ..Default::default()
    }
}

fn check_bookkeeping(file: &SampleFile, result: &RuleReplay) {
    let settings = replay::replay_settings(file, result.rule, &options());
    let mut truncated = file.clone();
    let (mut kept_total, mut full_total) = (0.0, 0.0);
    for b in &result.benchmarks {
        let record = file.benchmarks.iter().find(|r| r.id == b.id).unwrap();
        let rounds = b.rounds;
        assert!(
            rounds >= result.min_forks.min(b.recorded_rounds),
            "{}",
            b.id
        );
        assert!(rounds <= result.max_forks, "{}", b.id);
        let kept = wall(&record.base.forks[..rounds]) + wall(&record.head.forks[..rounds]);
        let full = wall(&record.base.forks[..result.max_forks])
            + wall(&record.head.forks[..result.max_forks]);
        assert!((b.wall_kept_ms - kept).abs() < 1e-6, "{}", b.id);
        assert!((b.wall_full_ms - full).abs() < 1e-6, "{}", b.id);
        assert!(
            (b.time_saved - (1.0 - kept / full)).abs() < 1e-12,
            "{}",
            b.id
        );
        assert_eq!(b.agrees, b.verdict == b.verdict_full, "{}", b.id);
        for side in b.change_rate_sides {
            assert!((0.0..1.0).contains(&side), "{}: {side}", b.id);
        }
        if rounds == b.recorded_rounds {
            assert_eq!(b.change_rate_sides, [0.0, 0.0], "{}: all forks kept", b.id);
        }
        kept_total += kept;
        full_total += full;
        let t = truncated
            .benchmarks
            .iter_mut()
            .find(|r| r.id == b.id)
            .unwrap();
        t.base.forks.truncate(rounds);
        t.head.forks.truncate(rounds);
    }
    assert!((result.totals.time_saved - (1.0 - kept_total / full_total)).abs() < 1e-12);
    let agreeing = result.benchmarks.iter().filter(|b| b.agrees).count();
    assert!(
        (result.totals.agreement - agreeing as f64 / result.benchmarks.len() as f64).abs() < 1e-12
    );
    // The replayed means are those of an analysis of the truncated recording with the same
    // warm-up detection.
    let policy = cargo_perfdiff::steps::stop::StopPolicy::from_settings(&settings);
    for record in &mut truncated.benchmarks {
        for forks in [&mut record.base.forks, &mut record.head.forks] {
            forks.iter_mut().for_each(|fork| policy.mark_warmup(fork));
        }
    }
    let report = cargo_perfdiff::orchestrate::run::analyse_samples(&truncated, &settings, None);
    for b in &result.benchmarks {
        let r = report.benchmarks.iter().find(|r| r.id == b.id).unwrap();
        assert_eq!(r.forks.base, b.rounds, "{}", b.id);
        assert_eq!(r.base.warmup_dropped, b.warmup_dropped[0], "{}", b.id);
    }
}

#[test]
fn replay_figures_are_computed_from_the_recording() {
    let file = recording();
    for rule in [
        StopRule::Cv,
        StopRule::Kld,
        StopRule::Decided,
        StopRule::Fixed,
    ] {
        let result = replay::replay(&file, rule, &ReplayOptions::default());
        assert_eq!(
            result.benchmarks.len(),
            4,
            "{rule}: measured benchmarks only"
        );
        check_bookkeeping(&file, &result);
    }
}

#[test]
fn timesplit_a_recording_from_before_the_time_split_replays_and_reports_without_it() {
    let raw =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(RECORDING)).unwrap();
    assert!(
        !raw.contains("\"phases\""),
        "the recording predates the split"
    );
    let file = recording();
    assert_eq!(file.run.phases, None);
    let result = replay::replay(&file, StopRule::Decided, &options());
    assert_eq!(result.benchmarks.len(), 4);
    check_bookkeeping(&file, &result);
    // `cargo perfdiff report` of it: the table has no split (nor a time line: no measure_ms).
    let report = cargo_perfdiff::orchestrate::run::analyse_samples(
        &file,
        &cargo_perfdiff::orchestrate::run::recorded_settings(&file),
        None,
    );
    assert_eq!(report.run.phases, None);
    use cargo_perfdiff::steps::report::{Format, Style, render};
    let style = Style {
        color: false,
        width: None,
        wrap: false,
    };
    let table = render(&report, Format::Table, &style);
    assert!(table.contains("hash/"), "{table}");
    assert!(!table.contains("time:"), "{table}");
}

#[test]
fn fixed_at_max_forks_is_the_reference_itself() {
    let file = recording();
    let options = ReplayOptions {
        limits: max_forks(20),
        ..options()
    };
    let result = replay::replay(&file, StopRule::Fixed, &options);
    assert_eq!(result.totals.time_saved, 0.0);
    assert_eq!(result.totals.agreement, 1.0);
    assert_eq!(result.totals.mean_change_rate, 0.0);
    assert!(result.benchmarks.iter().all(|b| !b.capped));
}

/// Issue #4's targets for the default rule against the fixed max-forks configuration. The recording
/// was taken on a 2-core machine at load average 7–8 (see the `.load` file beside it): samples vary
/// by 20–40 %, so the mean of 3 forks differs from the mean of 10 by ~20 % whatever rule stops
/// there. Two targets are NOT met on this recording and are not asserted at their value
/// (docs/design/replay.md has the figures): the change rate (≤ 1.5 %; here ~9 %) and the time saved
/// (≥ 60 %; here 27 %, because the large-change guard keeps noise-inflated "changes" running; 69 %
/// without the guard). What is asserted: agreement, overhead, and that the rule does save time.
#[test]
fn the_default_rule_on_the_recording() {
    let file = recording();
    let rule = Settings::default().stop;
    let result = replay::replay(&file, rule, &options());
    let t = &result.totals;
    eprintln!(
        "{}",
        replay::render_table(std::slice::from_ref(&result), true)
    );
    assert!(t.time_saved >= 0.20, "time saved {}", t.time_saved);
    assert!(t.agreement >= 0.95, "agreement {}", t.agreement);
    // Checkpoints run unoptimised in a debug test build on a loaded machine; the release figure
    // is in docs/design/replay.md.
    let overhead_limit = if cfg!(debug_assertions) { 0.10 } else { 0.02 };
    assert!(
        t.checkpoint_overhead < overhead_limit,
        "overhead {}",
        t.checkpoint_overhead
    );
    eprintln!(
        "time saved {:.1} % (target 60 %), mean change rate {:.2} % (target 1.5 %)",
        t.time_saved * 100.0,
        t.mean_change_rate * 100.0
    );
}

#[test]
fn the_binary_prints_a_table_and_json_for_several_rules() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(RECORDING);
    let out = assert_cmd::Command::cargo_bin("cargo-perfdiff")
        .unwrap()
        .args(["perfdiff", "replay"])
        .arg(&path)
        .args(["--stop", "cv,decided", "--format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rules: Vec<&str> = json
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["rule"].as_str().unwrap())
        .collect();
    assert_eq!(rules, ["cv", "decided"]);
    assert!(json[1]["totals"]["time_saved"].is_number());
    let table = assert_cmd::Command::cargo_bin("cargo-perfdiff")
        .unwrap()
        .args(["perfdiff", "replay", "-v", "--stop", "kld,decided"])
        .arg(&path)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&table.stdout);
    for rule in ["kld", "decided", "time saved", "hash/steady"] {
        assert!(text.contains(rule), "{text}");
    }
}

#[test]
fn a_missing_recording_is_named() {
    let out = assert_cmd::Command::cargo_bin("cargo-perfdiff")
        .unwrap()
        .args(["perfdiff", "replay", "/no/such/recording.json"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("/no/such/recording.json"));
}

/// Replays the default rule on a committed recording and checks the change-rate (≤ 1.5 %) and
/// overhead (< 2 %) targets of issue #4, the given time saved and agreement, and the bookkeeping.
fn assert_default_rule_targets(recording: &str, min_time_saved: f64, min_agreement: f64) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(recording);
    let file = SampleFile::load(&path).unwrap();
    let result = replay::replay(&file, Settings::default().stop, &options());
    let t = &result.totals;
    eprintln!(
        "{}",
        replay::render_table(std::slice::from_ref(&result), true)
    );
    assert!(
        t.time_saved >= min_time_saved,
        "time saved {}",
        t.time_saved
    );
    assert!(t.agreement >= min_agreement, "agreement {}", t.agreement);
    assert!(
        t.mean_change_rate <= 0.015,
        "change rate {}",
        t.mean_change_rate
    );
    let overhead_limit = if cfg!(debug_assertions) { 0.10 } else { 0.02 };
    assert!(
        t.checkpoint_overhead < overhead_limit,
        "overhead {}",
        t.checkpoint_overhead
    );
    check_bookkeeping(&file, &result);
}

/// The same targets on a recording taken when the machine was quiet (load average ~1.1, see the
/// `.load` file): time saved, change rate and overhead are met; agreement is 3 of 4 because the
/// full recording calls `hash/steady` inconclusive (a few later forks 3–8 % slow) where 3 forks
/// already showed it unchanged.
#[test]
fn the_default_rule_on_a_quiet_recording_meets_time_and_change_rate_targets() {
    assert_default_rule_targets("fixtures/recordings/demo-quiet-fixed20.json", 0.60, 0.75);
}

/// The targets on a real crate: base64's criterion suite, 24 benchmarks, with a real encode
/// regression in head and code-layout changes in the unchanged decoder
/// (`fixtures/recordings/README.md`), recorded with `--stop fixed --forks 10` on the quiet
/// machine, one code layout. Change rate and overhead targets are met; 32.7 % of the time is
/// saved in this order (the two-group rule before paired rounds: 53 %): without layouts a
/// round's two forks share little, pairing costs degrees of freedom, and futility waits for the
/// second look (`docs/design/stop-rule.md`). At least 23 of 24 verdicts agree.
#[test]
fn the_default_rule_on_a_real_crate_agrees_with_fixed_max_forks() {
    assert_default_rule_targets("fixtures/recordings/base64-encode-fixed10.json", 0.30, 0.95);
}

/// An A/A recording of 12 base64 benchmarks (the same executable on both sides) taken while
/// bursts from outside the virtual machine slowed 40–58 % of the forks of rounds 2–6 (the load
/// average inside stayed at 1.0–1.5). With the bootstrap alone the fixed 10-fork analysis called
/// `decode/3072` `improved`, a false alarm; now that every verdict also needs the fork-means t
/// interval neither it nor the default rule (which also leaves disturbed forks out) raises one.
#[test]
fn the_default_rule_raises_no_false_alarm_on_a_disturbed_a_a_recording() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/recordings/base64-aa-disturbed-fixed10.json");
    let file = SampleFile::load(&path).unwrap();
    let result = replay::replay(&file, Settings::default().stop, &options());
    let changed = |verdict: Outcome| matches!(verdict, Outcome::Regressed | Outcome::Improved);
    let false_alarms: Vec<&str> = result
        .benchmarks
        .iter()
        .filter(|b| changed(b.verdict))
        .map(|b| b.id.as_str())
        .collect();
    assert!(false_alarms.is_empty(), "false alarms: {false_alarms:?}");
    let fixed_false_alarms: Vec<&str> = result
        .benchmarks
        .iter()
        .filter(|b| changed(b.verdict_full))
        .map(|b| b.id.as_str())
        .collect();
    assert!(
        fixed_false_alarms.is_empty(),
        "fixed-run false alarms: {fixed_false_alarms:?}"
    );
    assert!(
        result.totals.time_saved > 0.25,
        "{}",
        result.totals.time_saved
    );
}

/// The burst-free recording of the same base64 A/B: change rate and overhead met, 46.4 % of the
/// time saved (58.1 % with the two-group rule), at least 23 of 24 verdicts the same as over ten
/// rounds.
#[test]
fn the_default_rule_on_a_burst_free_recording_of_the_real_crate() {
    assert_default_rule_targets(
        "fixtures/recordings/base64-encode-quiet-fixed10.json",
        0.44,
        0.95,
    );
}

/// A second real crate: bumpalo's criterion 0.3 suite, 17 benchmarks, with a deliberate regression
/// of `Vec::extend_from_slice_copy` in head (`fixtures/recordings/README.md`). 45.7 % of the
/// time saved (61.6 % with the two-group rule), every verdict the same as fixed 10's, change
/// rate and overhead met.
#[test]
fn the_default_rule_on_a_second_real_crate() {
    assert_default_rule_targets("fixtures/recordings/bumpalo-fixed10.json", 0.43, 0.99);
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/recordings/bumpalo-fixed10.json");
    let file = SampleFile::load(&path).unwrap();
    let result = replay::replay(&file, Settings::default().stop, &options());
    let decided_in_full: Vec<_> = result
        .benchmarks
        .iter()
        .filter(|b| matches!(b.verdict_full, Outcome::Regressed | Outcome::Unchanged))
        .collect();
    // 7 regressed and 4 unchanged with the default resamples; one more unchanged with these.
    assert!(decided_in_full.len() >= 11, "{}", decided_in_full.len());
    for b in decided_in_full {
        assert!(
            b.agrees,
            "{}: {:?} -> {:?}",
            b.id, b.verdict_full, b.verdict
        );
    }
}

/// Round orders: order 0 is the recording, another order moves whole rounds (base and head of a
/// round together, every benchmark alike) and is the same every time it is asked for.
#[test]
fn shuffled_orders_move_whole_rounds() {
    let file = recording();
    assert_eq!(replay::permute_rounds(&file, 0), file);
    let shuffled = replay::permute_rounds(&file, 7);
    assert_eq!(shuffled, replay::permute_rounds(&file, 7), "seeded");
    assert_ne!(shuffled, file, "order 7 is not the recorded order");
    let rounds_of =
        |record: &cargo_perfdiff::model::samples::BenchmarkRecord| -> Vec<(usize, usize)> {
            record
                .base
                .forks
                .iter()
                .zip(&record.head.forks)
                .map(|(b, h)| (b.round.unwrap(), h.round.unwrap()))
                .collect()
        };
    let first = rounds_of(&shuffled.benchmarks[0]);
    for (original, moved) in file.benchmarks.iter().zip(&shuffled.benchmarks) {
        let pairs = rounds_of(moved);
        assert!(
            pairs.iter().all(|(b, h)| b == h),
            "{}: pairs kept",
            moved.id
        );
        if pairs.len() == first.len() {
            assert_eq!(pairs, first, "{}: the same order for all", moved.id);
        }
        let mut sorted: Vec<usize> = pairs.iter().map(|p| p.0).collect();
        sorted.sort_unstable();
        let recorded: Vec<usize> = rounds_of(original).iter().map(|p| p.0).collect();
        assert_eq!(sorted, recorded, "{}: the same rounds", moved.id);
    }
}

/// `--orders`: one replay per order, and a summary whose means and worst cases are those of the
/// replays it summarises; "clear" benchmarks are those the threshold's exact place cannot flip.
#[test]
fn several_orders_are_summarised_by_their_mean_and_worst() {
    let quiet =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/recordings/demo-quiet-fixed20.json");
    let file = SampleFile::load(&quiet).unwrap();
    let results: Vec<RuleReplay> = (0..4)
        .map(|order| {
            let options = ReplayOptions {
                limits: max_forks(10),
                order: Some(order),
                ..options()
            };
            replay::replay(&file, StopRule::Decided, &options)
        })
        .collect();
    let summary = replay::summarise_orders(&results);
    assert_eq!(summary.len(), 1);
    let s = &summary[0];
    assert_eq!(s.orders, 4);
    let mean = |f: fn(&RuleReplay) -> f64| results.iter().map(f).sum::<f64>() / 4.0;
    assert!((s.mean.time_saved - mean(|r| r.totals.time_saved)).abs() < 1e-12);
    assert!((s.mean.agreement - mean(|r| r.totals.agreement)).abs() < 1e-12);
    let worst = results
        .iter()
        .map(|r| r.totals.agreement)
        .fold(1.0, f64::min);
    assert_eq!(s.worst_agreement, worst);
    for r in &results {
        check_bookkeeping(&replay::permute_rounds(&file, r.order), r);
        let clear: Vec<_> = r.benchmarks.iter().filter(|b| b.clear).collect();
        assert_eq!(r.totals.clear_benchmarks, clear.len());
        // hash/mix (+9.8 %) and hash/checksum (−20 %) are clear changes in every order's first
        // 10 of the 20 rounds, hash/slight (+3.3 %) is within twice the 2 % threshold in all
        let ids: Vec<&str> = clear.iter().map(|b| b.id.as_str()).collect();
        for id in ["hash/mix", "hash/checksum"] {
            assert!(ids.contains(&id), "order {}: {ids:?}", r.order);
        }
        assert!(!ids.contains(&"hash/slight"), "order {}: {ids:?}", r.order);
    }
    let table = replay::render_orders_table(&results);
    assert!(table.contains("worst agree"), "{table}");
    assert!(table.contains("decided"), "{table}");
}

#[test]
fn the_binary_replays_several_orders_and_refuses_none() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(RECORDING);
    let out = assert_cmd::Command::cargo_bin("cargo-perfdiff")
        .unwrap()
        .args(["perfdiff", "replay", "--stop", "decided", "--orders", "3"])
        .arg(&path)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("worst agree"), "{text}");
    let row = text.lines().find(|l| l.starts_with("decided")).unwrap();
    assert_eq!(row.split_whitespace().nth(1), Some("3"), "{row}");
    let none = assert_cmd::Command::cargo_bin("cargo-perfdiff")
        .unwrap()
        .args(["perfdiff", "replay", "--orders", "0"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(none.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&none.stderr).contains("--orders"));
}

/// The held-out crate (hex, `fixtures/recordings/README.md`), replayed in several orders of its
/// rounds: the default rule may leave a clear verdict `inconclusive`, but never contradicts one
/// (a clear change called unchanged or the other way, a clear "unchanged" called changed), and the
/// one real change (4.4× slower) is found in every order, at the first look with a spread to
/// judge (three rounds), or at the next when a disturbed round was left out.
#[test]
fn the_default_rule_never_contradicts_a_clear_verdict_of_the_held_out_crate() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/recordings/hex-encode-fixed10.json");
    let file = SampleFile::load(&path).unwrap();
    for order in 0..4 {
        let options = ReplayOptions {
            order: Some(order),
            ..options()
        };
        let result = replay::replay(&file, Settings::default().stop, &options);
        assert_eq!(result.benchmarks.len(), 11);
        assert_no_clear_verdict_contradicted(&result, &format!("order {order}"));
        let encode = result
            .benchmarks
            .iter()
            .find(|b| b.id == "encode/hex")
            .unwrap();
        assert_eq!(encode.verdict, Outcome::Regressed, "order {order}");
        assert!(
            encode.rounds <= 5,
            "order {order}: {} rounds",
            encode.rounds
        );
        assert!(
            result.totals.time_saved > 0.25,
            "order {order}: {:?}",
            result.totals
        );
    }
}

/// A clear verdict of the full recording (`BenchmarkReplay::clear`) may be left `inconclusive`
/// by a replayed rule, but never contradicted: a clear change called unchanged or the other way,
/// a clear "unchanged" called changed.
fn assert_no_clear_verdict_contradicted(result: &RuleReplay, context: &str) {
    for b in result.benchmarks.iter().filter(|b| b.clear) {
        assert!(
            b.agrees || b.verdict == Outcome::Inconclusive,
            "{context}: {} {:?} -> {:?}",
            b.id,
            b.verdict_full,
            b.verdict
        );
    }
}

/// The default rule replayed on `fixtures/recordings/{name}` in the recorded order and three
/// shuffles, with each order's index.
fn default_rule_in_four_orders(name: &str) -> Vec<(u64, RuleReplay)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/recordings")
        .join(name);
    let file = SampleFile::load(&path).unwrap();
    (0..4)
        .map(|order| {
            let options = ReplayOptions {
                order: Some(order),
                ..options()
            };
            (
                order,
                replay::replay(&file, Settings::default().stop, &options),
            )
        })
        .collect()
}

/// The same A/B recorded on a noisy host (fork means 10–60 % apart, `fixtures/recordings/README.md`):
/// fixed 10 decides only the 4.4× regression. The default rule must find it too, call nothing
/// else changed, and not run undecidable benchmarks to the cap because three noisy forks
/// estimated a large change by chance (the large-change guard's two standard errors): over these
/// four orders it saves 39 % (61 % with the two-group rule, which gave up after three forks; the
/// paired rounds wait for the second look, since three rounds cannot tell a hopeless benchmark
/// from one disturbed round).
#[test]
fn on_a_noisy_host_the_default_rule_gives_up_what_no_fork_count_decides() {
    let mut saved = 0.0;
    for (order, result) in default_rule_in_four_orders("hex-encode-noisy-fixed10.json") {
        for b in &result.benchmarks {
            let expected = if b.id == "encode/hex" {
                Outcome::Regressed
            } else {
                Outcome::Inconclusive
            };
            assert_eq!(b.verdict, expected, "order {order}: {}", b.id);
        }
        saved += result.totals.time_saved / 4.0;
    }
    assert!(saved > 0.37, "time saved {saved}");
}

/// The held-out httparse recording, on a host whose fork means lay ±10–28 % apart: fixed 10
/// finds 9 clear changes, most of which need all ten forks under that noise (13 before at most
/// one fork in five could be left out as disturbed: four estimates swung by 10–18 points with the
/// slow forks kept). A benchmark that runs to the cap is judged on the same forks as fixed 10, at
/// the last look's level; with an equal share of alpha (a 99.76 % interval against fixed 10's
/// 99 %) the default rule agreed on 35 of the then 52 over these four orders, with the last
/// look's 35 % on 38; the two-group rule on 25 of 36. With paired rounds fixed 10 itself finds 3
/// clear changes (it left out fewer forks as disturbed: only rounds far outside the others are),
/// and the default rule agrees on 10 of their 12. It must never call a benchmark changed in the
/// direction opposite to fixed 10.
#[test]
fn on_a_noisy_host_the_last_look_finds_the_changes_fixed_ten_finds() {
    let (mut clear, mut clear_agreeing) = (0, 0);
    for (order, result) in default_rule_in_four_orders("httparse-noisy-fixed10.json") {
        for b in &result.benchmarks {
            let opposite = matches!(
                (b.verdict_full, b.verdict),
                (Outcome::Regressed, Outcome::Improved) | (Outcome::Improved, Outcome::Regressed)
            );
            assert!(!opposite, "order {order}: {}", b.id);
            if b.clear {
                clear += 1;
                clear_agreeing += usize::from(b.agrees);
            }
        }
    }
    eprintln!("{clear_agreeing} of {clear}");
    assert_eq!(clear, 4 * 3);
    assert!(clear_agreeing >= 9, "{clear_agreeing} of {clear}");
}

/// A third held-out crate, on a quiet host: unicode-segmentation's ASCII fast path (`af87c8d`),
/// 24 benchmarks, recorded twice (`fixtures/recordings/README.md`; the two fixed-10 runs agree on
/// only 19 verdicts). On each recording, in every one of four orders, the default rule finds every
/// clear change in its direction (10 on the first, 12 on the second), the −79 % one after three
/// rounds, and contradicts no clear verdict: a clear "unchanged" may stay `inconclusive`, never
/// be called changed. It saves 20 % of the time (the two-group rule: 33 %): most of these changes
/// are 2–6 %, which paired rounds over one code layout decide after eight rounds.
#[test]
fn on_a_third_held_out_crate_every_clear_change_is_found_in_every_order() {
    for (recording, changes) in [
        ("unicode-segmentation-fixed10.json", 10),
        ("unicode-segmentation-again-fixed10.json", 12),
    ] {
        for (order, result) in default_rule_in_four_orders(recording) {
            let context = format!("{recording}, order {order}");
            assert_eq!(result.benchmarks.len(), 24, "{context}");
            let clear_changes = result.benchmarks.iter().filter(|b| {
                b.clear && matches!(b.verdict_full, Outcome::Regressed | Outcome::Improved)
            });
            assert_eq!(clear_changes.clone().count(), changes, "{context}");
            for b in clear_changes {
                assert_eq!(b.verdict, b.verdict_full, "{context}: {}", b.id);
            }
            assert_no_clear_verdict_contradicted(&result, &context);
            let ascii = result
                .benchmarks
                .iter()
                .find(|b| b.id == "words/grapheme/source_code")
                .unwrap();
            assert_eq!(
                (ascii.verdict, ascii.rounds),
                (Outcome::Improved, 3),
                "{context}"
            );
            assert!(
                result.totals.time_saved > 0.15,
                "{context}: {:?}",
                result.totals
            );
        }
    }
}

/// The held-out itertools recording (criterion 0.4, a noisy host: a side's fork means 6–13 %
/// apart, `fixtures/recordings/README.md`). Fixed 10 finds the 20 `nth` benchmarks 6–79 % faster
/// and leaves the 24 untouched ones `inconclusive` (or, with equivalence at its own 5 %, a few of
/// them `unchanged`, which they are). Over these four orders the default rule must
/// find every `nth` change of 40 % or more within eight rounds, call nothing else changed, never
/// contradict a clear verdict, and save 41 % of the time (50 % or more with the two-group rule). The `nth/0` changes (−6 % to −12 %) it may give up: at this noise three or
/// five forks often cannot tell them from noise.
#[test]
fn on_a_noisy_host_the_large_changes_of_a_criterion_0_4_suite_are_found_early() {
    let mut saved = 0.0;
    for (order, result) in default_rule_in_four_orders("itertools-noisy-fixed10.json") {
        assert_eq!(result.benchmarks.len(), 44);
        assert_no_clear_verdict_contradicted(&result, &format!("order {order}"));
        for b in &result.benchmarks {
            let context = format!("order {order}: {} after {} forks", b.id, b.rounds);
            if !b.id.contains("/nth/") {
                assert!(
                    matches!(b.verdict, Outcome::Inconclusive | Outcome::Unchanged),
                    "{context}: {:?}",
                    b.verdict
                );
            } else if !b.id.ends_with("/nth/0") {
                assert_eq!(b.verdict, Outcome::Improved, "{context}");
                assert!(b.rounds <= 8, "{context}");
            }
        }
        saved += result.totals.time_saved / 4.0;
    }
    assert!(saved > 0.39, "time saved {saved}");
}

/// One round decides nothing (the layout issue): the first round alone of a real A/A recording
/// (base64, head = base plus a comment) is what `--forks 1` or an interrupted run gives. Judged
/// by the within-fork bootstrap alone, two of its benchmarks once came out changed; now none
/// does, and those say why.
#[test]
fn a_single_fork_per_side_is_never_called_changed() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/recordings/base64-aa-disturbed-fixed10.json");
    let mut file = SampleFile::load(&path).unwrap();
    for record in &mut file.benchmarks {
        record.base.forks.truncate(1);
        record.head.forks.truncate(1);
    }
    let report =
        cargo_perfdiff::orchestrate::run::analyse_samples(&file, &Settings::default(), None);
    let changed: Vec<_> = report
        .benchmarks
        .iter()
        .filter(|b| matches!(b.verdict, Outcome::Regressed | Outcome::Improved))
        .map(|b| b.id.as_str())
        .collect();
    assert!(
        changed.is_empty(),
        "called changed on one fork: {changed:?}"
    );
    for formerly_changed in [
        "decode_small_input/decode/500",
        "decode_small_input/decode_slice/500",
    ] {
        let result = report
            .benchmarks
            .iter()
            .find(|b| b.id == formerly_changed)
            .unwrap();
        assert!(
            result
                .warnings
                .iter()
                .any(|w| w.to_string().contains("fewer than two rounds")),
            "{formerly_changed}: {:?}",
            result.warnings
        );
    }
}
