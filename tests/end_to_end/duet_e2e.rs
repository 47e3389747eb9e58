//! Duet mode end to end: the installed binary, `--mode duet`, on the demo repository with
//! unmistakable changes (hash/mix twice the work, hash/checksum half, hash/steady unchanged), so
//! the verdicts test the duet plumbing, not how loaded the test machine happens to be.

use crate::support;

use cargo_perfdiff::model::samples::SampleFile;
use support::*;

#[test]
fn duet_mode_finds_the_known_changes_and_report_reanalyses_them() {
    let _guard = measuring_lock();
    let (_dir, repo) = shared_demo(&_guard, &strong_changes());
    let report_path = repo.parent().unwrap().join("duet-report.json");
    let samples_path = repo.parent().unwrap().join("duet-samples.json");
    let mut args = vec![
        "HEAD~1",
        "HEAD",
        "--mode",
        "duet",
        "--stop",
        "fixed",
        "--forks",
        "6",
        "--format",
        "json",
        "--output",
        report_path.to_str().unwrap(),
        "--samples",
        samples_path.to_str().unwrap(),
    ];
    // Short: the changes are large enough to stand out on a loaded machine.
    args.extend_from_slice(&[
        "--warm-up-time",
        "0.1",
        "--measurement-time",
        "0.5",
        "--sample-size",
        "10",
    ]);
    args.extend_from_slice(STRICT_ALPHA);
    args.extend_from_slice(&["--", "mix", "checksum", "steady"]);
    let output = cargo_perfdiff(&repo, &args);
    let report: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(&report_path)
            .unwrap_or_else(|e| panic!("no report ({e}); stderr: {}", stderr(&output))),
    )
    .unwrap();
    let summary: Vec<String> = report["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| format!("{} {} {}", b["id"], b["verdict"], b["ratio"]))
        .collect();
    assert_eq!(
        output.status.code(),
        Some(1),
        "a regression exits 1; verdicts: {summary:#?}; stderr: {}",
        stderr(&output)
    );
    assert_eq!(report["run"]["mode"], "duet");
    assert_eq!(report["settings"]["mode"], "duet");
    assert_eq!(verdict_of(&report, "hash/mix"), "regressed");
    assert_eq!(
        verdict_of(&report, "hash/checksum"),
        "improved",
        "{:#}",
        bench_entry(&report, "hash/checksum")
    );
    let steady = verdict_of(&report, "hash/steady");
    assert!(
        ["unchanged", "inconclusive"].contains(&steady.as_str()),
        "steady: {steady}"
    );

    // The samples file keeps the pairing: rounds, the two CPUs, and each fork's measurement
    // window, on both sides of every duet round. On a machine busy with other work the forks
    // wait for their CPUs and the run goes on interleaved after such a round
    // (docs/duet.md#when-the-two-cpus-are-shared): the changes are found all the same, and the
    // later rounds are unpinned. The first round is always a duet pair.
    let samples = SampleFile::load(&samples_path).unwrap();
    let left = &report["run"]["mode_change"];
    assert!(left.is_null() || left["used"] == "interleaved", "{left:#}");
    for bench in &samples.benchmarks {
        assert_eq!(bench.base.forks.len(), 6, "{}", bench.id);
        for (base, head) in bench.base.forks.iter().zip(&bench.head.forks) {
            assert_eq!(base.round, head.round, "{}", bench.id);
            assert_eq!(base.mode, head.mode, "{}", bench.id);
            if base.mode.is_some() {
                assert!(base.cpu.is_none() && head.cpu.is_none(), "{}", bench.id);
                continue;
            }
            let (b, h) = (base.cpu.unwrap(), head.cpu.unwrap());
            assert_ne!(b, h, "{}: both sides on CPU {b}", bench.id);
            let [start, end] = base.measurement_window_ms.expect("base window");
            assert!(start < end, "{}", bench.id);
            assert!(head.measurement_window_ms.is_some(), "{}", bench.id);
        }
    }

    // `report` re-analyses the file with the duet statistics and gets the same result.
    let again = cargo_perfdiff(
        &repo,
        &["report", samples_path.to_str().unwrap(), "--format", "json"],
    );
    assert_eq!(again.status.code(), Some(1), "{}", stderr(&again));
    let again: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(again["run"]["mode"], "duet");
    for id in ["hash/mix", "hash/checksum", "hash/steady"] {
        assert_eq!(verdict_of(&again, id), verdict_of(&report, id), "{id}");
        assert_eq!(ratio_of(&again, id), ratio_of(&report, id), "{id}");
    }
}

/// The `ratio` object of benchmark `id`.
fn ratio_of(report: &serde_json::Value, id: &str) -> serde_json::Value {
    report["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["id"] == id)
        .unwrap_or_else(|| panic!("{id} not in the report"))["ratio"]
        .clone()
}
