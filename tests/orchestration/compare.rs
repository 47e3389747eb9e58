//! End to end on the deterministic benchmark fixture (`bench_fixture`), whose changes are known
//! (here: hash/mix 2× the time, hash/checksum 0.5×, hash/slight 1.03×, hash/steady unchanged,
//! hash/new_in_head only in head): a comparison's report, exit code, samples file and
//! re-analysis, an uncommitted edit, and the errors of a run. Moved from `end_to_end::e2e`,
//! whose criterion-version tests stay on real builds; the error of a run that counts
//! instructions without valgrind (it builds nothing, on the demo) from
//! `end_to_end::instructions_e2e`; `--measure-all`, which measures every benchmark and records
//! no selection, from `end_to_end::selection_e2e`.

use crate::bench_fixture::*;
use crate::support;

use support::*;

fn fast_args<'a>(args: &[&'a str]) -> Vec<&'a str> {
    with_options(args, FAST)
}

#[test]
fn head_vs_previous_commit_finds_the_known_changes_and_touches_nothing() {
    let (_dir, repo) = fixture_repo(&strong());
    let before = RepoState::capture(&repo);
    let report_path = repo.parent().unwrap().join("report.json");
    let mut args = fast_args(&[
        "HEAD~1",
        "HEAD",
        "--stop",
        "fixed",
        "--forks",
        "6",
        "--format",
        "json",
        "--output",
        report_path.to_str().unwrap(),
    ]);
    args.extend_from_slice(STRICT_ALPHA);
    let output = fixture_perfdiff(&repo, &args);
    let err = stderr(&output);
    assert_eq!(
        output.status.code(),
        Some(1),
        "a regression exits 1; stderr: {err}"
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report_path).unwrap()).unwrap();
    assert_eq!(verdict_of(&report, "hash/mix"), "regressed");
    assert_eq!(verdict_of(&report, "hash/checksum"), "improved");
    let steady = verdict_of(&report, "hash/steady");
    assert!(
        ["unchanged", "inconclusive"].contains(&steady.as_str()),
        "steady: {steady}"
    );
    assert_eq!(verdict_of(&report, "hash/new_in_head"), "only_in_head");
    let mix = report["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["id"] == "hash/mix")
        .unwrap();
    let rate = mix["change_rate"].as_f64().unwrap();
    assert!((0.6..1.4).contains(&rate), "hash/mix change rate {rate}");
    assert_eq!(mix["forks"]["base"], 6);
    assert!(mix["ratio"]["ci_low"].as_f64().unwrap() > 1.0);
    // The paired test over the rounds decides; Mann–Whitney on 6 fork means a side is information
    // (every head fork slower than every base fork: 2 / C(12, 6) ≈ 0.002).
    assert!(mix["paired"]["p_value"].as_f64().unwrap() < 0.01, "{mix}");
    assert!(
        mix["mann_whitney"]["p_value"].as_f64().unwrap() < 0.01,
        "{mix}"
    );
    assert!(mix["cliffs_delta"]["delta"].as_f64().unwrap() > 0.33);
    let slight = verdict_of(&report, "hash/slight");
    assert!(
        ["regressed", "inconclusive"].contains(&slight.as_str()),
        "slight: {slight}"
    );

    // The samples file is where the report says, and `report` re-analyses it identically.
    let samples = report["samples_file"]
        .as_str()
        .expect("samples path")
        .to_string();
    assert!(
        samples.contains("perfdiff") && samples.contains("runs"),
        "{samples}"
    );
    // Every fork recorded how much CPU the hypervisor stole while it ran (Linux), and the report
    // carries the run's share.
    if cfg!(target_os = "linux") {
        let file: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&samples).unwrap()).unwrap();
        let fork = &file["benchmarks"][0]["base"]["forks"][0];
        // A fork shorter than one tick of /proc/stat's counters (10 ms over every CPU) has no
        // share of its own (`None`: no time passed), so the first fork that has one is read.
        let forks = file["benchmarks"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|b| ["base", "head"].map(|side| b[side]["forks"].clone()))
            .flat_map(|forks| forks.as_array().cloned().unwrap_or_default());
        let share = forks
            .filter_map(|f| f["steal_share"].as_f64())
            .next()
            .expect("a fork with a steal_share");
        assert!((0.0..=1.0).contains(&share), "{share}");
        assert!(report["steal_share"].as_f64().is_some(), "{report}");
        // And how long it waited for a CPU (other work on the machine).
        let wait = fork["cpu_wait_share"].as_f64().expect("cpu_wait_share");
        assert!((0.0..=1.0).contains(&wait), "{wait}");
        assert!(report["cpu_wait_share"].as_f64().is_some(), "{report}");
    }
    // The run says how much of its time went to measuring (the rest: checkout and build).
    let wall = report["run"]["wall_ms"].as_u64().expect("wall_ms");
    let measuring = report["run"]["measure_ms"].as_u64().expect("measure_ms");
    assert!(
        0 < measuring && measuring <= wall,
        "{measuring} of {wall} ms"
    );
    // And where the rest went, phase by phase (`run.phases`): each side's build (two commits:
    // two builds), what cargo compiled for it, discovery, selection; with measuring, never more
    // than the whole run.
    let phases = &report["run"]["phases"];
    let ms = |key: &str| {
        phases[key]
            .as_u64()
            .unwrap_or_else(|| panic!("{key}: {phases}"))
    };
    let builds: u64 = ["base", "head"]
        .iter()
        .map(|side| {
            let build = &phases["build"][side];
            assert!(build["crates_compiled"].as_u64().is_some(), "{phases}");
            build["ms"]
                .as_u64()
                .unwrap_or_else(|| panic!("{side}: {phases}"))
        })
        .sum();
    let others: u64 = [
        "checkout_ms",
        "discovery_ms",
        "trace_ms",
        "probe_ms",
        "selection_ms",
        "analysis_ms",
        "explain_ms",
    ]
    .iter()
    .map(|key| ms(key))
    .sum();
    assert!(builds > 0, "the fixture's builds take time: {phases}");
    assert!(
        builds + others + measuring <= wall,
        "phases {builds} + {others} ms and measuring {measuring} ms of {wall} ms: {phases}"
    );
    // The samples file records the same.
    let recorded: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&samples).unwrap()).unwrap();
    assert_eq!(recorded["run"]["phases"], *phases);
    assert_eq!(recorded["run"]["wall_ms"], report["run"]["wall_ms"]);
    // The per-round copies of the executables are gone with the run.
    let perfdiff_dir = std::path::Path::new(&samples)
        .parent()
        .and_then(std::path::Path::parent)
        .unwrap();
    assert!(
        perfdiff_dir.join("bin").exists(),
        "{}",
        perfdiff_dir.display()
    );
    assert!(!perfdiff_dir.join("fresh-bin").exists());
    let again = fixture_perfdiff(&repo, &["report", &samples, "--format", "json"]);
    assert_eq!(again.status.code(), Some(1), "{}", stderr(&again));
    let again: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    for id in [
        "hash/mix",
        "hash/checksum",
        "hash/steady",
        "hash/new_in_head",
    ] {
        assert_eq!(verdict_of(&again, id), verdict_of(&report, id), "{id}");
    }

    assert_eq!(
        RepoState::capture(&repo),
        before,
        "the user's repository changed"
    );
    assert!(
        !repo.join("target/criterion").exists(),
        "criterion wrote into the user's target"
    );
    assert!(
        !target_dir(&repo).join("criterion").exists(),
        "criterion wrote into the run's target/criterion"
    );
}

#[test]
fn uncommitted_edit_is_compared_with_head_without_touching_it() {
    let (_dir, repo) = fixture_repo(&unchanged());
    // The edit: steady takes twice the time, uncommitted.
    scale_benchmark(&repo, "hash/steady", 2.0);
    std::fs::write(repo.join("untracked-note.txt"), "mine").unwrap();
    let before = RepoState::capture(&repo);
    let output = fixture_perfdiff(
        &repo,
        &fast_args(&[
            "--stop",
            "fixed",
            "--forks",
            "5",
            "--layouts",
            "1",
            "--format",
            "json",
            "--",
            "steady",
        ]),
    );
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(verdict_of(&report, "hash/steady"), "regressed");
    assert_eq!(
        report["benchmarks"].as_array().unwrap().len(),
        1,
        "the filter keeps one benchmark"
    );
    assert_eq!(report["run"]["head"]["dirty"], true);
    assert_eq!(
        RepoState::capture(&repo),
        before,
        "the user's edit or repository changed"
    );
}

#[test]
fn errors_are_one_clean_line_with_exit_code_2() {
    let outside = own_target_scratch();
    std::fs::create_dir(outside.path().join("src")).unwrap();
    std::fs::write(outside.path().join("src/lib.rs"), "").unwrap();
    std::fs::write(
        outside.path().join("Cargo.toml"),
        "[package]\nname = \"x\"\nversion = \"0.1.0\"\n",
    )
    .unwrap();
    let output = fixture_perfdiff(outside.path(), &["HEAD~1", "HEAD"]);
    assert_clean_error(&output, 2, "git repository");

    let (_dir, repo) = fixture_repo(&strong());
    let before = RepoState::capture(&repo);
    let output = fixture_perfdiff(&repo, &["no-such-branch", "HEAD"]);
    assert_clean_error(&output, 2, "no-such-branch");
    assert_eq!(RepoState::capture(&repo), before);

    let output = fixture_perfdiff(&repo, &["--threshold", "7"]);
    assert_clean_error(&output, 2, "threshold");
}

#[test]
fn without_valgrind_a_run_that_counts_stops_at_once_naming_the_install_command() {
    let dir = own_target_scratch();
    let repo = dir.path().join("demo");
    cargo_perfdiff::orchestrate::demo::create_demo_repo(&repo, &Default::default()).unwrap();
    for metric in [&["--metric", "instructions"][..], &["--explain"]] {
        let args = [&["HEAD~1", "HEAD"][..], metric].concat();
        let output = cargo_perfdiff_with_env(
            &repo,
            &args,
            &[("CARGO_PERFDIFF_VALGRIND", "/nonexistent/valgrind")],
        );
        let err = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{err}");
        assert!(err.contains("need valgrind"), "{err}");
        assert!(err.contains("install it with `"), "{err}");
        assert!(!err.contains("building"), "stops before building: {err}");
    }
}

/// `--measure-all` measures every benchmark and records no selection by reach. Selection is on
/// otherwise here (`CARGO_PERFDIFF_MEASURE_ALL`, which the suite sets, is removed), at the
/// default layouts as selection needs them: without the option, `hash/steady` carries a
/// selection record (`undecided` on the fixture), and the test fails. Moved from
/// `end_to_end::selection_e2e`, where it measured the real demo under the measuring lock.
#[test]
fn measure_all_measures_every_benchmark_and_records_no_selection() {
    let (_dir, repo) = fixture_repo(&strong());
    let mut args = parent_vs_head_json(&["steady"]);
    args.insert(0, "--measure-all");
    let output = output_logged(
        fixture_command(&repo, &with_default_layouts(&args))
            .env_remove("CARGO_PERFDIFF_MEASURE_ALL"),
    );
    let report = json_report(&output);
    let steady = measured_entry(&report, "hash/steady", 2);
    assert!(steady.get("selection").is_none(), "{steady:#}");
}
