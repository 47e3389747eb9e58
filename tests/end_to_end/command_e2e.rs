//! End to end, commands: the program demo (`fixtures/cli-demo`, the `democli` program) in a git
//! repository whose head makes `hash` 2× the work, doubles what `table` allocates, leaves
//! `steady` alone and makes `check` fail with a message on stderr. Compared as a user would, with
//! `--cmd`. Errors in declaring commands, which build and measure nothing, and commands compared
//! beside benchmarks in one duet run (what the run does with both, no verdict), are in
//! `orchestration::commands`.

use crate::support;

use cargo_perfdiff::orchestrate::demo::{ProgramChanges, create_program_demo_repo};
use support::*;

/// The program demo's repository with head's changes made unmistakable (verdicts must not depend
/// on how loaded the test machine is) and `check` failing. A repository of its own: the test's
/// `--html report.html` writes into the checkout.
fn cli_repo() -> (Scratch, std::path::PathBuf) {
    let dir = scratch();
    let repo = dir.path().join("cli repo");
    let changes = ProgramChanges {
        hash: 2.0,
        table: 2.0,
        check_fails: true,
    };
    create_program_demo_repo(&repo, &changes).unwrap();
    (dir, repo)
}

const COMMANDS: &[&str] = &[
    "--cmd",
    "hash={bin}/democli hash",
    "--cmd",
    "table={bin}/democli table",
    "--cmd",
    "steady={bin}/democli steady",
    "--cmd",
    "check={bin}/democli check",
];

fn entry<'a>(report: &'a serde_json::Value, id: &str) -> &'a serde_json::Value {
    bench_entry(report, id)
}

#[test]
fn commands_get_time_and_memory_verdicts_and_a_failing_one_is_failed_with_its_stderr() {
    let _measuring = measuring_lock();
    let (_dir, repo) = cli_repo();
    let before = RepoState::capture(&repo);
    let mut args = vec![
        "HEAD~1",
        "HEAD",
        "--commands-only",
        "--stop",
        "fixed",
        "--forks",
        "8",
        // Four layouts in eight rounds: each layout runs twice, and the paired interval rests on
        // the four layout means (two would leave one degree of freedom).
        "--layouts",
        "4",
        "--seed",
        "7",
        "--format",
        "json",
        "--fail-on",
        "never",
        "--html",
        "report.html",
    ];
    args.extend_from_slice(COMMANDS);
    let output = cargo_perfdiff(&repo, &args);
    assert!(output.status.success(), "{}", stderr(&output));
    let report = json_report(&output);

    let hash = entry(&report, "hash");
    assert_eq!(hash["verdict"], "regressed", "{hash:#}");
    assert_eq!(hash["harness"], "command");
    assert_eq!(hash["per_fork"], "execution");
    assert_eq!(hash["forks"]["base"], 8);
    let memory = entry(&report, "table (peak memory)");
    assert_eq!(memory["verdict"], "regressed", "{memory:#}");
    assert_eq!(memory["unit"], "bytes");
    let ratio = memory["change_rate"].as_f64().unwrap();
    assert!((0.6..1.1).contains(&ratio), "16 MiB → 32 MiB: {memory:#}");
    let steady = entry(&report, "steady");
    assert!(
        !["regressed", "improved"].contains(&steady["verdict"].as_str().unwrap()),
        "{steady:#}"
    );
    let steady_memory = entry(&report, "steady (peak memory)");
    assert!(
        !["regressed", "improved"].contains(&steady_memory["verdict"].as_str().unwrap()),
        "{steady_memory:#}"
    );
    // A program this small peaks at a few MiB, not at cargo-perfdiff's own size.
    let base_peak = steady_memory["base"]["mean_ns"].as_f64().unwrap();
    assert!(base_peak < 8e6, "{steady_memory:#}");
    for id in ["check", "check (peak memory)"] {
        let check = entry(&report, id);
        assert_eq!(check["verdict"], "failed", "{check:#}");
        let failure = check["failure"].as_str().unwrap();
        assert!(
            failure.starts_with("head: command `check` failed"),
            "{failure}"
        );
        assert!(failure.contains("the input is corrupt"), "{failure}");
    }
    // Every format shows them: the HTML plots memory in MiB, and the Markdown of a re-analysis
    // of the samples file gives both records with their units.
    let html = std::fs::read_to_string(repo.join("report.html")).unwrap();
    std::fs::remove_file(repo.join("report.html")).unwrap();
    assert!(html.contains("table (peak memory)") && html.contains("peak memory (MiB)"));
    let samples = report["samples_file"].as_str().unwrap();
    // Round r ran the programs of layout r mod 4 on both sides, each layout linked when a round
    // first needed it.
    let recorded: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(samples).unwrap()).unwrap();
    let hash_record = recorded["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["id"] == "hash")
        .unwrap();
    for side in ["base", "head"] {
        let layouts: Vec<Option<u64>> = hash_record[side]["forks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|fork| fork["layout"].as_u64())
            .collect();
        assert_eq!(layouts, [0, 1, 2, 3, 0, 1, 2, 3].map(Some), "{side}");
    }
    let markdown = cargo_perfdiff(&repo, &["report", samples, "--format", "markdown"]);
    let markdown = String::from_utf8_lossy(&markdown.stdout).into_owned();
    assert!(markdown.contains("| table (peak memory) |"), "{markdown}");
    assert!(markdown.contains(" MiB |"), "{markdown}");
    assert_eq!(
        RepoState::capture(&repo),
        before,
        "the user's repository changed"
    );

    // The gate: a regressed command exits 1, as a regressed benchmark does. A filter naming a
    // command's memory record selects the command (both its records).
    let mut gate = vec!["HEAD~1", "HEAD", "--commands-only", "--stop", "fixed"];
    gate.extend_from_slice(&["--forks", "6", "--layouts", "1", "--format", "json"]);
    gate.extend_from_slice(&["--cmd", "table={bin}/democli table"]);
    gate.extend_from_slice(&["--cmd", "steady={bin}/democli steady"]);
    gate.extend_from_slice(&["--", "^table \\(peak memory\\)$"]);
    let output = cargo_perfdiff(&repo, &gate);
    assert_eq!(output.status.code(), Some(1), "{}", all_output(&output));
    let ids: Vec<String> = json_report(&output)["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids.len(), 2, "{ids:?}");
    assert!(ids.iter().all(|id| id.starts_with("table")), "{ids:?}");
}
