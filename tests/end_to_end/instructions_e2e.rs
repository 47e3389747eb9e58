//! End to end, the instructions metric: the demo compared with `--metric instructions` (records
//! `ID (instructions)` only, decided after the first rounds, the functions behind each change
//! named), with `--metric time,instructions` (both records, the time record's functions from the
//! instruction record), with `--explain` on a time-only run. The real valgrind runs (`.ci/run`
//! installs it). A missing valgrind, refused before anything is built, is tested in
//! `orchestration::compare`.

use crate::support;

use support::*;

fn report_of(repo: &std::path::Path, args: &[&str]) -> serde_json::Value {
    let output = cargo_perfdiff(repo, args);
    assert!(output.status.success(), "{}", all_output(&output));
    json_report(&output)
}

/// The ids of the report's benchmarks, sorted.
fn ids(report: &serde_json::Value) -> Vec<String> {
    let mut ids: Vec<String> = report["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["id"].as_str().unwrap().to_string())
        .collect();
    ids.sort();
    ids
}

fn function_names(entry: &serde_json::Value) -> Vec<String> {
    entry["functions"]
        .as_array()
        .map(|functions| {
            functions
                .iter()
                .map(|f| f["name"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn instructions_find_every_change_of_the_demo_in_the_first_rounds_and_name_their_functions() {
    let _guard = measuring_lock();
    let (_dir, repo) = shared_demo(&_guard, &strong_changes());
    let before = RepoState::capture(&repo);
    let args = [
        &[
            "HEAD~1",
            "HEAD",
            "--metric",
            "instructions",
            "--layouts",
            "2",
        ][..],
        &["--format", "json", "--fail-on", "never"],
        // A criterion benchmark is counted while it measures for the time it is given: a count
        // per iteration does not depend on it (fewer iterations, the same slope), so the tests'
        // tiny settings ([`FAST`], seed 7 too) rather than 0.1 s of warm-up and 0.5 s of
        // measurement (30 samples) under valgrind for each of the run's counts.
        FAST,
        &["--", "hash/mix", "hash/checksum", "hash/steady"],
    ]
    .concat();
    let report = report_of(&repo, &args);
    let listed = ids(&report);
    assert_eq!(
        listed,
        [
            "hash/checksum (instructions)",
            "hash/mix (instructions)",
            "hash/steady (instructions)"
        ],
        "instructions alone: no time records"
    );
    let mix = bench_entry(&report, "hash/mix (instructions)");
    assert_eq!(mix["verdict"], "regressed", "{mix:#}");
    assert_eq!(mix["unit"], "instructions");
    assert_eq!(mix["per_fork"], "instructions");
    let rate = mix["change_rate"].as_f64().unwrap();
    // 2× the rounds of work; criterion's loop around them is a few instructions an iteration.
    assert!((0.95..1.0).contains(&rate), "2x the work: {mix:#}");
    let checksum = bench_entry(&report, "hash/checksum (instructions)");
    assert_eq!(checksum["verdict"], "improved", "{checksum:#}");
    let steady = bench_entry(&report, "hash/steady (instructions)");
    assert_eq!(steady["verdict"], "unchanged", "{steady:#}");
    for entry in [mix, checksum, steady] {
        let rounds = entry["stop"]["rounds"].as_u64().unwrap();
        assert!(rounds <= 3, "decided after the first rounds: {entry:#}");
    }
    let functions = function_names(mix);
    assert!(!functions.is_empty(), "{mix:#}");
    assert!(
        functions[0].contains("mix"),
        "the changed function first: {functions:?}"
    );
    let first = &mix["functions"][0];
    let (base, head) = (
        first["base"]["self"].as_f64().unwrap(),
        first["head"]["self"].as_f64().unwrap(),
    );
    assert!((1.9..2.1).contains(&(head / base)), "{first:#}");
    assert!(function_names(steady).is_empty(), "{steady:#}");
    assert!(
        before == RepoState::capture(&repo),
        "the user's repository is unchanged"
    );
}

#[test]
fn time_and_instructions_together_and_explain_name_the_functions_behind_a_time_change() {
    let _guard = measuring_lock();
    let (_dir, repo) = shared_demo(&_guard, &strong_changes());
    let common = [
        &[
            "HEAD~1",
            "HEAD",
            "--stop",
            "fixed",
            "--forks",
            "3",
            "--layouts",
            "1",
        ][..],
        FAST,
        &["--format", "json", "--fail-on", "never", "--alpha", "0.05"],
    ]
    .concat();
    let both = [
        &common[..],
        &["--metric", "time,instructions", "--", "hash/mix"],
    ]
    .concat();
    let report = report_of(&repo, &both);
    let listed = ids(&report);
    assert_eq!(listed, ["hash/mix", "hash/mix (instructions)"]);
    assert_eq!(
        report["settings"]["threshold"], 0.02,
        "{:#}",
        report["settings"]
    );
    assert_eq!(report["settings"]["instructions_threshold"], 0.002);
    let time = bench_entry(&report, "hash/mix");
    assert_eq!(time["verdict"], "regressed", "{time:#}");
    assert!(time["unit"].is_null(), "{time:#}");
    let counted = bench_entry(&report, "hash/mix (instructions)");
    assert_eq!(counted["verdict"], "regressed", "{counted:#}");
    assert_eq!(function_names(time), function_names(counted));
    assert!(!function_names(time).is_empty(), "{time:#}");

    // With selection on (the default layouts keep the objects it compares), so that the changed
    // functions of its timed loop have their source compared from the build with line tables.
    let explained = [&common[..], &["--explain", "--", "hash/mix"]].concat();
    let output = output_logged(
        perfdiff_command(&repo, &with_default_layouts(&explained))
            .env_remove("CARGO_PERFDIFF_MEASURE_ALL"),
    );
    assert!(output.status.success(), "{}", all_output(&output));
    let report = json_report(&output);
    assert_eq!(ids(&report), ["hash/mix"], "--explain adds no record");
    assert!(report["settings"]["instructions_threshold"].is_null());
    let time = bench_entry(&report, "hash/mix");
    assert_eq!(time["verdict"], "regressed", "{time:#}");
    let functions = function_names(time);
    assert!(
        functions.first().is_some_and(|f| f.contains("mix")),
        "{functions:?}"
    );
    // The change is a constant the timed closure names (`MIX_ROUNDS`): its lines read the same
    // on both sides, but it is not code compiled differently from the same source.
    let changed = &time["selection"]["changed_functions"];
    assert!(
        changed.as_array().is_some_and(|a| !a.is_empty()),
        "selection names the changed code: {time:#}"
    );
    assert!(time["selection"]["same_source"].is_null(), "{time:#}");
    assert!(
        !time["warnings"]
            .to_string()
            .contains("compiled differently"),
        "{time:#}"
    );
}

#[test]
fn commands_are_counted_per_execution_and_half_a_percent_more_work_is_found() {
    let guard = measuring_lock();
    let changes = cargo_perfdiff::orchestrate::demo::ProgramChanges {
        hash: 1.005,
        table: 1.0,
        check_fails: false,
    };
    let key = format!("{changes:?}");
    let (_dir, repo) = shared_repo(&guard, Profile::Quick, &key, "cli repo", |repo| {
        cargo_perfdiff::orchestrate::demo::create_program_demo_repo(repo, &changes).unwrap();
    });
    let args = [
        &[
            "HEAD~1",
            "HEAD",
            "--commands-only",
            "--metric",
            "instructions",
        ][..],
        &[
            "--cmd",
            "hash={bin}/democli hash",
            "--cmd",
            "steady={bin}/democli steady",
        ],
        &["--layouts", "2", "--format", "json", "--fail-on", "never"],
    ]
    .concat();
    let report = report_of(&repo, &args);
    let listed = ids(&report);
    assert_eq!(
        listed,
        ["hash (instructions)", "steady (instructions)"],
        "no time or memory records without the time metric"
    );
    let hash = bench_entry(&report, "hash (instructions)");
    assert_eq!(hash["verdict"], "regressed", "0.5 % more work: {hash:#}");
    assert_eq!(hash["harness"], "command");
    let rate = hash["change_rate"].as_f64().unwrap();
    // The program's start-up and exit are counted too: a little under 0.5 %.
    assert!((0.003..0.0055).contains(&rate), "{hash:#}");
    assert!(!function_names(hash).is_empty(), "{hash:#}");
    let steady = bench_entry(&report, "steady (instructions)");
    assert_eq!(steady["verdict"], "unchanged", "{steady:#}");
    // The build with line tables that named the functions went to the target directory every
    // workspace building into the shared one uses (its dependencies compile once for all), not
    // to one of this repository's own.
    let line_tables = shared_target_dir().join("perfdiff/target-line-tables");
    assert!(
        line_tables.join("release").is_dir(),
        "{}",
        line_tables.display()
    );
    assert!(!state_dir(&repo).join("line-tables/target").exists());
}
