//! A fork its own samples show disturbed is measured again (`StopPolicy::remeasures`): the
//! fixture makes one fork of head slow (`outlier=K:F`), or every fork slower than the last
//! (`drift=F`), and the samples file says per round which fork was measured again.

use crate::bench_fixture::*;
use crate::support::*;

/// The rounds of the forks measured again among `forks`.
fn remeasured_rounds(forks: &[serde_json::Value]) -> Vec<u64> {
    forks
        .iter()
        .filter(|f| f.get("remeasured").is_some())
        .map(|f| f["round"].as_u64().unwrap())
        .collect()
}

#[test]
fn a_disturbed_fork_is_measured_again_and_the_samples_file_says_so_per_round() {
    let (dir, repo) = fixture_repo(&unchanged());
    // Head's third fork of `hash/steady` is 1.5 times slower; every fork of head's `hash/slight`
    // 15 % slower than the one before.
    set_benchmark(&repo, "hash/steady ns=4000 outlier=2:1.5");
    set_benchmark(&repo, "hash/slight ns=8000 drift=0.15");
    commit_all(&repo, "a slow fork and a drift in head");
    let samples = dir.path().join("run.json");
    let args = [
        &["HEAD~1", "HEAD", "--format", "json", "--fail-on", "never"][..],
        // Six rounds whatever the looks say, so that every round the test names runs.
        &["--min-forks", "6", "--max-forks", "6"],
        &["--samples", samples.to_str().unwrap()],
        FAST,
        ONE_LAYOUT,
        &["--", "hash/steady", "hash/slight"],
    ]
    .concat();
    let output = fixture_perfdiff(&repo, &args);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let head = forks_of(&samples, "hash/steady", "head");
    assert_eq!(
        head.len(),
        6,
        "one fork a round, the disturbed one inside its replacement"
    );
    assert_eq!(remeasured_rounds(&head), [2], "{head:#?}");
    let replacement = &head[2];
    let first = &replacement["remeasured"];
    assert_eq!(first["round"], 2, "{first:#}");
    assert!((mean_of(first) / 6000.0 - 1.0).abs() < 0.02, "{first:#}");
    assert!((mean_of(replacement) / 4000.0 - 1.0).abs() < 0.02);
    assert!(first.get("remeasured").is_none(), "measured again once");
    assert!(remeasured_rounds(&forks_of(&samples, "hash/steady", "base")).is_empty());
    // The slow fork is out of the analysis: the rounds are alike, so nothing changed.
    let report = json_report(&output);
    assert_eq!(
        verdict_of(&report, "hash/steady"),
        "unchanged",
        "{report:#}"
    );
    // Head's drift makes fork 2 slower than every earlier one by more than 10 %, and so on:
    // each replacement is not judged again, and the benchmark's cap stops at two.
    let drifting = forks_of(&samples, "hash/slight", "head");
    assert_eq!(drifting.len(), 6);
    assert_eq!(remeasured_rounds(&drifting), [2, 3], "{drifting:#?}");
    // The report counts every fork run, those measured again among them.
    let forks = |id: &str| {
        let benchmarks = report["benchmarks"].as_array().unwrap();
        benchmarks.iter().find(|b| b["id"] == id).unwrap()["forks"].clone()
    };
    let again = |head: usize| serde_json::json!({"base": 0, "head": head});
    assert_eq!(forks("hash/steady")["head"], 7, "{report:#}");
    assert_eq!(forks("hash/steady")["remeasured"], again(1), "{report:#}");
    assert_eq!(forks("hash/slight")["head"], 8, "{report:#}");
    assert_eq!(forks("hash/slight")["remeasured"], again(2), "{report:#}");
}
