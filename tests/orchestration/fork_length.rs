//! Forks of the right length (docs/design/fork-length.md) on the deterministic fixture: after two
//! rounds, a benchmark whose forks differ by more than their samples gets shorter forks, one
//! whose samples are the noisier gets longer ones, both sides of a round alike; the JSON and
//! `--explain` say so, and a measurement time the user sets is kept.

use crate::bench_fixture::*;
use crate::support;

use support::*;

/// The fixture with `hash/mix`'s forks 5 % apart and its samples steady, and `hash/checksum`'s
/// forks alike and its samples 5 % apart, the same on both sides (head changes a comment).
fn noise_repo() -> (Scratch, std::path::PathBuf) {
    let (dir, repo) = fixture_repo(&unchanged());
    set_benchmark(&repo, "hash/mix ns=5000 spread=0.05 jitter=0.0005");
    set_benchmark(&repo, "hash/checksum ns=6000 spread=0.0001 jitter=0.05");
    support::commit_all(&repo, "noise");
    let mut spec = std::fs::read_to_string(repo.join(SPEC)).unwrap();
    spec.push_str("# head again\n");
    std::fs::write(repo.join(SPEC), spec).unwrap();
    support::commit_all(&repo, "head");
    (dir, repo)
}

/// Four fixed rounds of `hash/mix` and `hash/checksum`, every benchmark measured, with a 3 s
/// warm-up (which the fixture reports without spending it: a fork's fixed cost) and `extra`;
/// returns the JSON report.
fn run(repo: &std::path::Path, name: &str, extra: &[&str]) -> serde_json::Value {
    let report_path = repo.parent().unwrap().join(format!("{name}.json"));
    let mut args = vec![
        "HEAD~1",
        "HEAD",
        "--stop",
        "fixed",
        "--forks",
        "4",
        "--layouts",
        "1",
        "--warm-up-time",
        "3",
        "--sample-size",
        "10",
        "--seed",
        "7",
        "--measure-all",
        "--format",
        "json",
        "--output",
        report_path.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--", "^hash/(mix|checksum)$"]);
    let output = fixture_perfdiff(repo, &args);
    assert_eq!(output.status.code(), Some(0), "stderr: {}", stderr(&output));
    serde_json::from_str(&std::fs::read_to_string(&report_path).unwrap()).unwrap()
}

fn benchmark<'a>(report: &'a serde_json::Value, id: &str) -> &'a serde_json::Value {
    report["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["id"] == id)
        .unwrap_or_else(|| panic!("{id} in {report}"))
}

/// The measurement time each fork of `id`'s `side` asked for, in round order.
fn asked_ms(samples: &serde_json::Value, id: &str, side: &str) -> Vec<f64> {
    let record = benchmark(samples, id);
    record[side]["forks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["asked"]["measurement_ms"].as_f64().unwrap())
        .collect()
}

#[test]
fn forks_that_differ_get_shorter_forks_and_noisy_samples_longer_ones() {
    let (_dir, repo) = noise_repo();
    let report = run(&repo, "adaptive", &["--explain"]);

    let mix = &benchmark(&report, "hash/mix")["fork_length"];
    assert_eq!(mix["reason"], "shorter", "{mix}");
    let mix_ms = mix["measurement_ms"].as_f64().unwrap();
    assert!(mix_ms < 500.0, "{mix}");
    assert!(
        mix["between"].as_f64().unwrap() > mix["within_at_default"].as_f64().unwrap(),
        "{mix}"
    );
    assert!(mix["between_p_value"].as_f64().unwrap() < 0.05, "{mix}");
    assert!(
        mix["forks_per_default_fork"].as_f64().unwrap() > 1.0,
        "{mix}"
    );

    let checksum = &benchmark(&report, "hash/checksum")["fork_length"];
    assert_eq!(checksum["reason"], "longer", "{checksum}");
    let checksum_ms = checksum["measurement_ms"].as_f64().unwrap();
    assert!(checksum_ms > 500.0, "{checksum}");
    // Its two rounds do not show its forks to differ beyond their samples (their spread is the
    // samples' noise), so the fork cost makes longer forks the cheaper precision.
    assert!(
        checksum["between_p_value"].as_f64().unwrap() > 0.05,
        "{checksum}"
    );
    for choice in [mix, checksum] {
        // The warm-up the fixture reports counts in the fork's fixed cost.
        assert!(
            choice["fork_cost_ms"].as_f64().unwrap() >= 1000.0,
            "{choice}"
        );
        assert_eq!(choice["from_round"], 2, "{choice}");
        assert!(!choice["why"].as_str().unwrap().is_empty());
    }

    // Both sides of a round asked for the same length: the default in the first two rounds,
    // the chosen one after.
    let samples_path = report["samples_file"].as_str().unwrap();
    let samples: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(samples_path).unwrap()).unwrap();
    for (id, chosen) in [("hash/mix", mix_ms), ("hash/checksum", checksum_ms)] {
        let expected = vec![500.0, 500.0, chosen, chosen];
        assert_eq!(asked_ms(&samples, id, "base"), expected, "{id} base");
        assert_eq!(asked_ms(&samples, id, "head"), expected, "{id} head");
    }

    // `--explain` (recorded in the samples file) shows each choice under the table.
    let output = fixture_perfdiff(&repo, &["report", samples_path]);
    let table = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        table.contains(&format!(
            "fork length: hash/mix: {mix_ms:.0} ms from round 3 instead of 500 ms"
        )),
        "{table}"
    );
    assert!(
        table.contains(&format!(
            "fork length: hash/checksum: {checksum_ms:.0} ms from round 3"
        )),
        "{table}"
    );
}

#[test]
fn a_measurement_time_the_user_sets_is_every_fork_s() {
    let (_dir, repo) = noise_repo();
    let report = run(&repo, "fixed", &["--measurement-time", "0.3"]);
    for id in ["hash/mix", "hash/checksum"] {
        let choice = &benchmark(&report, id)["fork_length"];
        assert_eq!(choice["reason"], "fixed", "{choice}");
        assert_eq!(choice["measurement_ms"], 300.0, "{choice}");
    }
    let samples_path = report["samples_file"].as_str().unwrap();
    let samples: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(samples_path).unwrap()).unwrap();
    assert_eq!(asked_ms(&samples, "hash/mix", "base"), vec![300.0; 4]);
    assert_eq!(asked_ms(&samples, "hash/checksum", "head"), vec![300.0; 4]);
}
