//! The developer's loop and CI, end to end: configuration, gates, report formats, shards,
//! calibration, and plain output when nobody is watching a terminal.

use crate::bench_fixture::*;
use crate::support;

use std::path::Path;

use support::*;

/// A quick fixed run: three rounds of forks with tiny measurement times, in cargo's build alone.
fn quick<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    fixed_rounds("3", extra)
}

/// A fixed run of `rounds` rounds with tiny measurement times, in cargo's build alone.
fn fixed_rounds<'a>(rounds: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["--stop", "fixed", "--forks", rounds];
    args.extend_from_slice(FAST);
    args.extend_from_slice(ONE_LAYOUT);
    args.extend_from_slice(extra);
    args
}

fn json(output: &std::process::Output) -> serde_json::Value {
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}); stderr: {}", stderr(output)))
}

fn append(path: &Path, text: &str) {
    let mut content = std::fs::read_to_string(path).unwrap();
    content.push_str(text);
    std::fs::write(path, content).unwrap();
}

#[test]
fn a_workspace_metadata_threshold_changes_the_verdict_it_should() {
    let (_dir, repo) = fixture_repo(&strong());
    let mut args = vec!["HEAD~1", "HEAD", "--format", "json"];
    // Six rounds, not three: the paired interval of three rounds has two degrees of freedom
    // (t = 9.9 at 99 %), and a CI machine whose forks differed by 15 % (half of the time spent
    // waiting for a CPU) left even a 44 % change `inconclusive` there.
    args.extend(fixed_rounds("6", &["--", "hash/checksum"]));
    let strict = fixture_perfdiff(&repo, &args);
    let report = json(&strict);
    assert_eq!(
        verdict_of(&report, "hash/checksum"),
        "improved",
        "{report:#}\n{}",
        stderr(&strict)
    );

    // hash/checksum is about 50 % faster: a ±90 % threshold for it makes that irrelevant.
    append(
        &repo.join("Cargo.toml"),
        "\n[workspace.metadata.perfdiff.benchmarks.\"hash/checksum\"]\nthreshold = 0.9\n",
    );
    let lenient = fixture_perfdiff(&repo, &args);
    let report = json(&lenient);
    let verdict = verdict_of(&report, "hash/checksum");
    assert!(
        ["unchanged", "inconclusive"].contains(&verdict.as_str()),
        "{verdict}"
    );
    assert_eq!(lenient.status.code(), Some(0), "{}", stderr(&lenient));
    let threshold = report["benchmarks"][0]["threshold"].as_f64().unwrap();
    assert_eq!(
        threshold, 0.9,
        "the per-benchmark threshold is the one applied"
    );

    let config = fixture_perfdiff(&repo, &["--print-config"]);
    let text = String::from_utf8_lossy(&config.stdout);
    assert!(
        text.contains("hash/checksum") && text.contains("workspace.metadata.perfdiff"),
        "{text}"
    );
}

/// A samples file with one benchmark per factor: head = base × factor, 6 forks × 20 samples,
/// small deterministic noise. Gates are tested on it without measuring anything.
fn synthetic_samples(dir: &Path, factors: &[(&str, f64)]) -> std::path::PathBuf {
    let fork = |scale: f64, f: usize| {
        let times: Vec<f64> = (0..20)
            .map(|i| scale * (1000.0 + ((i * 7 + f * 13) % 11) as f64))
            .collect();
        serde_json::json!({"iters": vec![1.0; 20], "times_ns": times})
    };
    let benchmarks: Vec<serde_json::Value> = factors
        .iter()
        .map(|(id, factor)| {
            serde_json::json!({
                "id": id,
                "base": {"forks": (0..6).map(|f| fork(1.0, f)).collect::<Vec<_>>()},
                "head": {"forks": (0..6).map(|f| fork(*factor, f)).collect::<Vec<_>>()},
            })
        })
        .collect();
    let path = dir.join(format!("synthetic-{}.json", factors.len()));
    let file = serde_json::json!({"schema": "perfdiff-samples/1", "benchmarks": benchmarks});
    std::fs::write(&path, file.to_string()).unwrap();
    path
}

#[test]
fn fail_on_drives_the_exit_code() {
    let dir = own_target_scratch();
    let regression = synthetic_samples(dir.path(), &[("slower", 1.2), ("same", 1.0)]);
    let improvement = synthetic_samples(dir.path(), &[("faster", 0.8)]);
    let unchanged = synthetic_samples(
        dir.path(),
        &[("same", 1.0), ("also-same", 1.0), ("more", 1.0)],
    );
    let gate = |file: &Path, fail_on: &str| {
        let output = fixture_perfdiff(
            dir.path(),
            &["report", file.to_str().unwrap(), "--fail-on", fail_on],
        );
        output.status.code()
    };
    assert_eq!(gate(&regression, "regression"), Some(1));
    assert_eq!(gate(&regression, "never"), Some(0));
    assert_eq!(gate(&improvement, "regression"), Some(0));
    assert_eq!(gate(&improvement, "any-change"), Some(4));
    assert_eq!(gate(&unchanged, "any-change"), Some(0));
    assert_eq!(gate(&unchanged, "inconclusive"), Some(0));
}

#[test]
fn shards_merge_into_the_same_benchmark_set_as_one_run() {
    let (dir, repo) = fixture_repo(&strong());
    let mut sets = Vec::new();
    for shard in ["1/2", "2/2"] {
        let samples = dir.path().join(format!("shard{}.json", &shard[..1]));
        let mut args = vec![
            "HEAD~1",
            "HEAD",
            "--shard",
            shard,
            "--samples",
            samples.to_str().unwrap(),
            "--format",
            "json",
        ];
        args.extend(quick(&[]));
        let output = fixture_perfdiff(&repo, &args);
        assert!(
            matches!(output.status.code(), Some(0 | 1)),
            "{}",
            stderr(&output)
        );
        sets.push(samples);
    }
    let merged = fixture_perfdiff(
        &repo,
        &[
            "report",
            sets[0].to_str().unwrap(),
            sets[1].to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    let mut ids: Vec<String> = json(&merged)["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["id"].as_str().unwrap().to_string())
        .collect();
    ids.sort();
    assert_eq!(
        ids,
        [
            "hash/checksum",
            "hash/mix",
            "hash/new_in_head",
            "hash/slight",
            "hash/steady"
        ],
        "the shards together are the whole suite, each benchmark once"
    );
    let again = fixture_perfdiff(
        &repo,
        &[
            "report",
            sets[0].to_str().unwrap(),
            sets[0].to_str().unwrap(),
        ],
    );
    assert_clean_error(&again, 2, "in both");
}

#[test]
fn markdown_html_and_plain_logs_read_well() {
    let (dir, repo) = fixture_repo(&strong());
    let html = dir.path().join("report.html");
    let mut args = vec![
        "HEAD~1",
        "HEAD",
        "--format",
        "markdown",
        "--html",
        html.to_str().unwrap(),
    ];
    args.extend(quick(&[]));
    let output = fixture_perfdiff(&repo, &args);
    // A report, whatever the verdicts: three rounds on a busy machine may leave hash/mix
    // inconclusive (exit 0), as a run of the whole suite beside other work once did.
    assert!(
        matches!(output.status.code(), Some(0 | 1)),
        "{}",
        stderr(&output)
    );
    let markdown = String::from_utf8(output.stdout.clone()).unwrap();
    assert!(
        markdown.contains("| Benchmark |") && markdown.contains("|:--"),
        "a Markdown table:\n{markdown}"
    );
    assert!(
        markdown.contains("hash/mix") && markdown.contains("<details>"),
        "{markdown}"
    );
    let page = std::fs::read_to_string(&html).unwrap();
    let plots = page.matches("<svg").count();
    assert!(plots >= 4, "one plot per measured benchmark, found {plots}");
    assert!(
        !page.contains("http://") && !page.contains("https://"),
        "self-contained"
    );
    // Not a terminal: no control characters anywhere, in the report or the progress log.
    for (name, bytes) in [("stdout", &output.stdout), ("stderr", &output.stderr)] {
        let bad = bytes
            .iter()
            .filter(|&&b| b < 0x20 && b != b'\n' && b != b'\t')
            .count();
        assert_eq!(bad, 0, "{name} has {bad} control characters");
    }
    let err = stderr(&output);
    assert!(
        err.contains("samples are saved"),
        "plain progress lines on stderr"
    );
    // Before measuring: the forks expected and their time; after each round: the time left.
    assert!(
        err.contains(
            "measuring 4 benchmark(s), interleaved mode, stop rule fixed: 24 forks, about"
        ),
        "{err}"
    );
    assert!(err.contains("round 1: 8/24 forks, about "), "{err}");
    assert!(err.contains("round 3: 24/24 forks, the last"), "{err}");
}

#[test]
fn calibration_reports_the_noise_floor() {
    let (_dir, repo) = fixture_repo(&strong());
    let mut args = vec!["--calibrate", "--format", "json"];
    args.extend(quick(&["--", "hash/steady"]));
    let output = fixture_perfdiff(&repo, &args);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report = json(&output);
    let verdict = verdict_of(&report, "hash/steady");
    assert!(
        ["unchanged", "inconclusive"].contains(&verdict.as_str()),
        "A/A: {verdict}"
    );
    let err = stderr(&output);
    assert!(
        err.contains("Noise floor") && err.contains("hash/steady"),
        "{err}"
    );
}

/// The note a run prints when it has built `side` (`"base"` or `"head"`).
fn build_note<'a>(stderr: &'a str, side: &str) -> &'a str {
    stderr
        .lines()
        .find(|line| line.contains(&format!("built {side} ")))
        .unwrap_or_else(|| panic!("no build note for {side}: {stderr}"))
}

#[test]
fn a_commit_built_by_the_last_run_is_not_built_again() {
    let (_dir, repo) = fixture_repo(&strong());
    let args = quick(&["HEAD~1", "HEAD", "--", "hash/steady"]);
    let first = fixture_perfdiff_with_env(&repo, &args, &[NO_SHARED_BUILDS]);
    let err = stderr(&first);
    assert!(first.status.code().is_some_and(|c| c <= 1), "{err}");
    assert!(build_note(&err, "base").contains("compiled"), "{err}");
    assert!(build_note(&err, "head").contains("compiled"), "{err}");

    // The next commit: comparing it with its parent finds the parent built, in the other slot.
    append(&repo.join("src/lib.rs"), "\n// A third commit.\n");
    commit_all(&repo, "a third commit");
    let second = fixture_perfdiff_with_env(&repo, &args, &[NO_SHARED_BUILDS]);
    let err = stderr(&second);
    assert!(second.status.code().is_some_and(|c| c <= 1), "{err}");
    assert!(build_note(&err, "base").ends_with("up to date"), "{err}");
    assert!(build_note(&err, "head").contains("compiled"), "{err}");

    // Only this run's two commits keep their executables: the first commit's are gone.
    assert_eq!(kept_executables(&repo), commits(&repo, &["HEAD~1", "HEAD"]));

    // Calibrating HEAD right after finds it built as well.
    let calibration = fixture_perfdiff_with_env(
        &repo,
        &quick(&["--calibrate", "--", "hash/steady"]),
        &[NO_SHARED_BUILDS],
    );
    let err = stderr(&calibration);
    assert_eq!(calibration.status.code(), Some(0), "{err}");
    assert!(build_note(&err, "base").ends_with("up to date"), "{err}");
    assert_eq!(kept_executables(&repo), commits(&repo, &["HEAD"]));
}

#[test]
fn a_comparison_run_again_is_not_built_again_when_cargo_wrote_the_lock_file() {
    // A library that commits no `Cargo.lock` (httparse, RustCrypto's `benches/`): cargo writes
    // one into each checkout at its first build, and the next run finds the checkout with it.
    let (_dir, repo) = fixture_repo(&strong());
    support::git_ok(&repo, &["rm", "-q", "--cached", "Cargo.lock"]);
    append(&repo.join(".gitignore"), "Cargo.lock\n");
    commit_all(&repo, "no lock file");
    append(&repo.join("src/lib.rs"), "\n// A commit after it.\n");
    commit_all(&repo, "a commit after it");
    let args = quick(&["HEAD~1", "HEAD", "--", "hash/steady"]);
    let first = fixture_perfdiff_with_env(&repo, &args, &[NO_SHARED_BUILDS]);
    let err = stderr(&first);
    assert!(first.status.code().is_some_and(|c| c <= 1), "{err}");
    assert!(build_note(&err, "head").contains("compiled"), "{err}");

    let again = fixture_perfdiff_with_env(&repo, &args, &[NO_SHARED_BUILDS]);
    let err = stderr(&again);
    assert!(again.status.code().is_some_and(|c| c <= 1), "{err}");
    assert!(build_note(&err, "base").ends_with("up to date"), "{err}");
    assert!(build_note(&err, "head").ends_with("up to date"), "{err}");
}

/// The commits whose bench executables the state directory of `repo` keeps, sorted.
fn kept_executables(repo: &Path) -> Vec<String> {
    let bin = state_dir(repo).join("bin");
    let mut names: Vec<String> = std::fs::read_dir(&bin)
        .unwrap_or_else(|e| panic!("{}: {e}", bin.display()))
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The full ids of `revisions` in `repo`, sorted.
fn commits(repo: &Path, revisions: &[&str]) -> Vec<String> {
    let mut ids: Vec<String> = revisions.iter().map(|r| rev_parse(repo, r)).collect();
    ids.sort();
    ids
}

/// The names of the files in `runs` (none if it does not exist), sorted.
fn samples_files(runs: &Path) -> Vec<std::ffi::OsString> {
    let mut names: Vec<_> = std::fs::read_dir(runs)
        .map(|entries| entries.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn list_names_what_a_run_would_measure_and_measures_nothing() {
    let (_dir, repo) = fixture_repo(&strong());
    // The samples files earlier runs in the shared repository saved: listing adds none.
    let runs = state_dir(&repo).join("runs");
    let saved_before = samples_files(&runs);
    let output = fixture_perfdiff(&repo, &["HEAD~1", "HEAD", "--list", "--", "hash/"]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    let text = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("hash/mix ") && l.ends_with("(bench target demo, criterion)")),
        "{text}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("hash/new_in_head ") && l.ends_with(", only in head)")),
        "{text}"
    );
    assert_eq!(lines.len(), 5, "the demo's five hash/ benchmarks: {text}");
    // `hash/new_in_head` is listed but not counted as compared: it has no partner.
    assert!(
        err.contains("4 benchmark(s) would be compared (1 on one side only, not compared)"),
        "{err}"
    );
    assert!(
        !err.contains("no benchmark is present on both sides"),
        "{err}"
    );
    // The four in both revisions, two to ten rounds of two forks each, with the time they take.
    assert!(
        err.contains("a run would take 16 to 80 forks, about "),
        "{err}"
    );
    assert!(!err.contains("a large suite"), "{err}");
    assert!(!err.contains("measuring"), "{err}");
    // Forks that measure 30 s each make the same suite large: the hint says how to measure less.
    let long = fixture_perfdiff(
        &repo,
        &[
            "HEAD~1",
            "HEAD",
            "--list",
            "--measurement-time",
            "30",
            "--",
            "hash/",
        ],
    );
    let err = stderr(&long);
    assert!(err.contains("note: a large suite"), "{err}");
    assert!(
        err.contains("--shard K/N") && err.contains("-- REGEX"),
        "{err}"
    );
    // Instruction forks are said as such, at valgrind's pace and not the settings' fork time.
    let counted = fixture_perfdiff(
        &repo,
        &[
            "HEAD~1",
            "HEAD",
            "--list",
            "--metric",
            "instructions",
            "--measurement-time",
            "30",
            "--",
            "hash/",
        ],
    );
    let err = stderr(&counted);
    assert!(
        err.contains("a run would take 16 to 80 instruction forks under valgrind, about "),
        "{err}"
    );
    assert!(!err.contains("a fork from the settings"), "{err}");
    assert!(
        !err.contains("a large suite"),
        "30 s measurements do not apply: {err}"
    );
    let saved = samples_files(&runs);
    assert_eq!(saved, saved_before, "no samples file in {}", runs.display());

    // JSON for scripts, filters and all.
    let output = fixture_perfdiff(
        &repo,
        &[
            "HEAD~1", "HEAD", "--list", "--format", "json", "--", "steady",
        ],
    );
    let listing = json(&output);
    assert_eq!(listing["benchmarks"][0]["id"], "hash/steady");
    assert_eq!(listing["benchmarks"][0]["presence"], "both");
    assert_eq!(listing["benchmarks"].as_array().unwrap().len(), 1);

    // Nothing to list is the same error a run gives.
    let output = fixture_perfdiff(&repo, &["HEAD~1", "HEAD", "--list", "--", "no-such"]);
    assert_clean_error(&output, 2, "no benchmark matches the filter");
}

#[test]
fn settings_a_benchmark_sets_in_code_are_reported_per_side() {
    let (dir, repo) = fixture_repo(&strong());
    // A group that sets its measurement time and sample size in code, as criterion's
    // `group.measurement_time(…)` and `group.sample_size(…)` do: the fixture reports them as the
    // settings it measured with.
    set_benchmark(
        &repo,
        "own/settings ns=60 code-measurement-ms=150 code-sample-size=12",
    );
    commit_all(&repo, "base: a group with settings of its own");
    set_benchmark(
        &repo,
        "own/settings ns=60 code-measurement-ms=150 code-sample-size=14",
    );
    commit_all(&repo, "head: another sample size");

    let samples = dir.path().join("own.json");
    let mut args = vec![
        "HEAD~1",
        "HEAD",
        "--format",
        "json",
        "--samples",
        samples.to_str().unwrap(),
    ];
    args.extend(quick(&["--", "^own/"]));
    let report = json(&fixture_perfdiff(&repo, &args));
    let entry = bench_entry(&report, "own/settings");
    // FAST asks for 0.2 s and 10 samples; the group's 0.15 s and 12 or 14 win.
    for (side, samples) in [("base", 12), ("head", 14)] {
        assert_eq!(
            entry[side]["settings_from_code"],
            serde_json::json!({"measurement_ms": 150.0, "sample_size": samples}),
            "{entry:#}"
        );
    }
    // Forks run; the analysed count (`base.forks`) leaves out a fork a noisy host disturbed.
    assert_eq!(entry["forks"]["base"], 3, "{entry:#}");

    let text = fixture_perfdiff(&repo, &["report", samples.to_str().unwrap()]);
    let out = all_output(&text);
    assert!(
        out.contains(
            "note: own/settings: its bench code sets base: measurement time 150 ms, sample size \
             12; head: measurement time 150 ms, sample size 14, which criterion prefers to \
             cargo-perfdiff's --measurement-time and --sample-size"
        ),
        "{out}"
    );
}

#[test]
fn workspace_members_whose_benches_cargo_leaves_out_are_named() {
    let (_dir, repo) = fixture_repo(&strong());
    replace_in(
        &repo,
        "Cargo.toml",
        "[workspace]",
        "[workspace]\nmembers = [\"member\"]",
    );
    let member = repo.join("member");
    write_library_package(&member, "member", "");
    add_bench_target(&member, "speed", "fn main() {}\n");
    commit_all(&repo, "a member with a bench target");

    let output = fixture_perfdiff(&repo, &["HEAD~1", "HEAD", "--list"]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    assert!(
        err.contains(
            "workspace member(s) not built have bench targets: `member` (speed): pass \
             `-p member`, or `--workspace` for all of them"
        ),
        "{err}"
    );
}

#[test]
fn forks_that_slow_iterations_stretch_are_explained() {
    let (dir, repo) = fixture_repo(&strong());
    // 10.5 ms an iteration, as a 10 ms sleep takes beside other work: reported, not slept.
    set_benchmark(&repo, "heavy/sleep ns=10500000");
    commit_all(&repo, "a benchmark of 10 ms an iteration");
    append(&repo.join("src/lib.rs"), "\n// Another commit.\n");
    commit_all(&repo, "another commit");

    // 20 samples of at least one 10 ms iteration cannot fit in the 50 ms asked.
    let samples = dir.path().join("heavy.json");
    let args = [
        "HEAD~1",
        "HEAD",
        "--stop",
        "fixed",
        "--forks",
        "2",
        "--warm-up-time",
        "0.02",
        "--measurement-time",
        "0.05",
        "--sample-size",
        "20",
        "--layouts",
        "1",
        "--samples",
        samples.to_str().unwrap(),
        "--",
        "^heavy/",
    ];
    let run = fixture_perfdiff(&repo, &args);
    assert!(
        run.status.code().is_some_and(|c| c <= 1),
        "{}",
        stderr(&run)
    );
    let text = fixture_perfdiff(&repo, &["report", samples.to_str().unwrap()]);
    let out = all_output(&text);
    // 10.5 ms an iteration, as the fixture reports it (a real 10 ms sleep took 10.x to 12.4 ms).
    let iteration_ms = out
        .split_once("note: heavy/sleep: one iteration takes ")
        .and_then(|(_, rest)| rest.split_once(" ms"))
        .and_then(|(ms, _)| ms.parse::<f64>().ok());
    assert!(
        iteration_ms.is_some_and(|ms| (10.0..30.0).contains(&ms)),
        "{out}"
    );
    assert!(
        out.contains("so criterion measures a fork's 20 samples for")
            && out.contains("where 50 ms were asked: `--sample-size 10`, criterion's least"),
        "{out}"
    );
}

#[test]
fn benchmarks_whose_ids_change_every_run_are_skipped_and_named() {
    let (dir, repo) = fixture_repo(&strong());
    // An id made of the process id, as chrono makes two of the time: new in every process.
    set_benchmark(&repo, "process/pid ns=100 pid-id");
    commit_all(&repo, "a benchmark named after its process");
    append(&repo.join("src/lib.rs"), "\n// Another commit.\n");
    commit_all(&repo, "another commit");

    let output = fixture_perfdiff(&repo, &["HEAD~1", "HEAD", "--list"]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    assert!(
        err.contains(
            "skipped bench target `demo`: only its benchmark(s) `process/pid/…`, whose ids \
             change from one run of the executable to the next"
        ),
        "{err}"
    );
    let listed = String::from_utf8(output.stdout).unwrap();
    assert!(!listed.contains("process/"), "{listed}");
    assert!(listed.contains("hash/mix "), "{listed}");

    // A run reports them as skipped, and so does a re-analysis of its samples.
    let samples = dir.path().join("run.json");
    let args = quick(&[
        "HEAD~1",
        "HEAD",
        "--samples",
        samples.to_str().unwrap(),
        "--",
        "hash/steady",
    ]);
    let run = fixture_perfdiff(&repo, &args);
    assert!(
        run.status.code().is_some_and(|c| c <= 1),
        "{}",
        stderr(&run)
    );
    let report = fixture_perfdiff(&repo, &["report", samples.to_str().unwrap()]);
    for output in [&run, &report] {
        let text = all_output(output);
        assert!(
            text.contains("skipped bench target `demo`: only its benchmark(s) `process/pid/…`"),
            "{text}"
        );
    }
}

/// A run whose only benchmark is in head compares nothing: it warns, passes the default gate and
/// fails `--fail-on inconclusive` (exit 3), whose users ask to fail on what was not decided.
#[test]
fn a_run_that_compares_nothing_warns_and_fails_the_inconclusive_gate() {
    let (_dir, repo) = fixture_repo(&strong());
    let only_in_head = ["HEAD~1", "HEAD", "--", "hash/new_in_head"];
    let output = fixture_perfdiff(&repo, &only_in_head);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    assert!(
        err.contains("no benchmark is present on both sides, so a run compares nothing"),
        "{err}"
    );
    assert!(
        err.contains("`--fail-on inconclusive` fails such a run"),
        "{err}"
    );
    let gated = fixture_perfdiff(
        &repo,
        &[
            &only_in_head[..2],
            &["--fail-on", "inconclusive"],
            &only_in_head[2..],
        ]
        .concat(),
    );
    assert_eq!(gated.status.code(), Some(3), "{}", stderr(&gated));
}
