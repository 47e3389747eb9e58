//! `cargo perfdiff bisect` on histories of the deterministic benchmark fixture, and `cargo
//! perfdiff GOOD HEAD --git-bisect` driving a real `git bisect run`: the search, its steps, a
//! commit that does not build, an interrupted bisection resumed, the exit codes `git bisect
//! run` reads, and what each step builds in a workspace of a program and bench targets (its
//! command's peak memory changes, its work does not). The changes (4×, 8× and 0.2×) and the
//! threshold (±50 %) are those of `end_to_end`'s bisection tests, whose tests of instruction
//! counts and of selection stay on real builds; here no verdict depends on the machine.

use crate::bench_fixture::*;
use crate::support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use support::*;

/// Commits a comment in the fixture's library: a commit that changes no benchmark.
fn commit_a_comment_in_the_fixture_library(repo: &Path) {
    replace_in(
        repo,
        "src/lib.rs",
        "pub fn",
        "// A comment changes no code.\npub fn",
    );
    commit_all(repo, "a comment");
}

fn break_the_build(repo: &Path) {
    replace_in(
        repo,
        "src/lib.rs",
        "pub fn identity(",
        "pub fn identity(this does not compile, ",
    );
    commit_all(repo, "broken: does not compile");
    replace_in(repo, "src/lib.rs", "this does not compile, ", "");
    commit_all(repo, "fix the build");
}

fn mix_four_times_slower(repo: &Path) {
    scale_benchmark(repo, "hash/mix", 4.0);
    commit_all(repo, "mix: four times the time");
}

/// Commits hash/checksum at a fifth of its time.
fn checksum_five_times_faster(repo: &Path) {
    scale_benchmark(repo, "hash/checksum", 0.2);
    commit_all(repo, "checksum: a fifth of the time");
}

#[test]
fn bisect_names_each_culprit_skips_the_broken_commit_resumes_and_touches_nothing() {
    let (_dir, repo) = fixture_repo(&unchanged());
    // GOOD, then: unrelated commits, a commit that does not build, hash/mix 4× slower,
    // hash/checksum 0.2× in a later commit, more unrelated commits (BAD).
    let good = rev_parse(&repo, "HEAD");
    write_notes(&repo, "notes 1");
    commit_a_comment_in_the_fixture_library(&repo);
    break_the_build(&repo);
    mix_four_times_slower(&repo);
    let mix_culprit = rev_parse(&repo, "HEAD");
    write_notes(&repo, "notes 2");
    checksum_five_times_faster(&repo);
    let checksum_culprit = rev_parse(&repo, "HEAD");
    write_notes(&repo, "notes 3");
    let broken = rev_parse(&repo, "HEAD~5");
    seed_criterion_results(&repo);
    let before = RepoState::capture(&repo);

    let out = repo.parent().unwrap();
    let report_path = out.join("bisect.json");
    let html_path = out.join("bisect.html");
    let mut args = vec![
        "bisect",
        &good,
        "HEAD",
        "--format",
        "json",
        "--output",
        report_path.to_str().unwrap(),
        "--html",
        html_path.to_str().unwrap(),
    ];
    args.extend_from_slice(BISECT_FAST);
    args.extend(["--", "hash/mix", "hash/checksum"]);
    // Ctrl-C once two steps after the confirmation are kept: exit 130, the steps kept.
    let steps_kept = || {
        std::fs::read_to_string(state_file(&repo, &good))
            .ok()
            .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
            .map_or(0, |state| state["steps"].as_array().map_or(0, Vec::len))
    };
    // The fixture's forks take milliseconds, so a step is mostly its build: this run compiles
    // every step itself (no stored build), which leaves seconds between the third step kept
    // and the last, however warm the store is.
    let mut command = fixture_command(&repo, &args);
    command.env(NO_SHARED_BUILDS.0, NO_SHARED_BUILDS.1);
    let mut child = spawn_in_own_group(command);
    let deadline = Instant::now() + Duration::from_secs(300);
    while steps_kept() < 3 && child.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "no step was kept in time");
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: plain kill(2) on the process group this test started.
    unsafe { libc::kill(-(child.id() as i32), libc::SIGINT) };
    let interrupted = child.wait_with_output().unwrap();
    let err = stderr(&interrupted);
    // Three of at most seven steps were kept: the bisection had not finished.
    assert_eq!(interrupted.status.code(), Some(130), "{err}");
    assert!(err.contains("run the same command again"), "{err}");
    assert_eq!(RepoState::capture(&repo), before);

    // The same command again resumes: the kept steps are replayed, the rest measured.
    let output = fixture_perfdiff(&repo, &args);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "culprits found: {err}");
    assert!(err.contains("resuming"), "{err}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report_path).unwrap()).unwrap();
    assert_eq!(report["verdict"], "culprit", "{report:#}");
    assert_eq!(report["commits"], 8);
    let culprit = |id: &str| {
        let result = report["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == id)
            .unwrap_or_else(|| panic!("{id} not searched: {report:#}"));
        (
            result["direction"].as_str().unwrap().to_string(),
            result["culprit"]["sha"]
                .as_str()
                .unwrap_or("none")
                .to_string(),
        )
    };
    assert_eq!(
        culprit("hash/mix"),
        ("regressed".to_string(), mix_culprit.clone())
    );
    assert_eq!(
        culprit("hash/checksum"),
        ("improved".to_string(), checksum_culprit.clone())
    );
    assert_eq!(report["results"].as_array().unwrap().len(), 2);
    let mix = &report["results"][0];
    assert!(mix["diff_stat"].as_str().unwrap().contains(SPEC), "{mix:#}");
    // The broken commit is named as skipped whenever a step landed on it; no other commit is.
    for skipped in report["skipped"].as_array().unwrap() {
        assert_eq!(skipped["commit"]["sha"], broken.as_str(), "{skipped:#}");
        assert!(
            skipped["reason"]
                .as_str()
                .unwrap()
                .contains("does not build")
        );
    }
    let steps = report["steps"].as_array().unwrap();
    assert_eq!(steps[0]["kind"], "confirm");
    // Fewer steps, confirmation included, than comparing each of the 8 commits with GOOD.
    assert!(steps.len() < 8, "{} steps", steps.len());
    let html = std::fs::read_to_string(&html_path).unwrap();
    assert!(html.contains(&mix_culprit[..9]) && html.contains("<table>"));
    assert_eq!(RepoState::capture(&repo), before);

    // Run again: every step is replayed from the kept state, nothing is measured, same answer.
    let mut table_args: Vec<&str> = args
        .iter()
        .copied()
        .filter(|a| !["--format", "json", "--html"].contains(a))
        .collect();
    table_args.retain(|a| *a != html_path.to_str().unwrap());
    let output = fixture_perfdiff(&repo, &table_args);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    assert!(err.contains("resuming"), "{err}");
    assert!(!err.contains("measuring"), "nothing measured again: {err}");
    let table = std::fs::read_to_string(&report_path).unwrap();
    assert!(
        table.contains(&format!("first at {mix_culprit}")),
        "{table}"
    );
    assert!(
        table.contains(&format!("first at {checksum_culprit}")),
        "{table}"
    );
    assert_eq!(RepoState::capture(&repo), before);
}

/// The state file of the bisection from `good` to HEAD in `repo`'s target directory.
fn state_file(repo: &Path, good: &str) -> PathBuf {
    let pattern = target_dir(repo)
        .join("perfdiff/*/bisect")
        .join(format!("{}-*", &good[..9]))
        .join("state.json");
    glob::glob(pattern.to_str().unwrap())
        .unwrap()
        .flatten()
        .next()
        .unwrap_or_default()
}

/// `git bisect run cargo perfdiff GOOD HEAD --git-bisect …` in `repo`, each step's
/// cargo-perfdiff set up as [`perfdiff_command`] sets it up: the installed binary on PATH, the
/// test's own target directory, every benchmark measured, the scratch repositories' optimisation
/// level (so the steps build as the test's own `--git-bisect` run did, and find its builds).
fn git_bisect_run(repo: &Path, perfdiff_args: &[&str]) -> std::process::Output {
    let perfdiff = fixture_command(repo, perfdiff_args);
    let mut command = Command::new("git");
    command
        .args(["bisect", "run", "cargo", "perfdiff"])
        .args(perfdiff_args)
        .current_dir(repo);
    for (name, value) in perfdiff.get_envs() {
        match value {
            Some(value) => command.env(name, value),
            None => command.env_remove(name),
        };
    }
    command.output().unwrap()
}

#[test]
fn git_bisect_run_finds_the_culprit_with_exit_codes_0_1_and_125() {
    let (_dir, repo) = fixture_repo(&unchanged());
    let good = rev_parse(&repo, "HEAD");
    break_the_build(&repo);
    mix_four_times_slower(&repo);
    let culprit = rev_parse(&repo, "HEAD");
    write_notes(&repo, "notes");
    let broken = rev_parse(&repo, "HEAD~3");
    git_ok(&repo, &["bisect", "start", "HEAD", &good]);
    // The commit that does not build is skipped (125), whichever commit git tries first.
    git_ok(&repo, &["checkout", "-q", &broken]);
    let skip = fixture_perfdiff(
        &repo,
        &with_options(
            &[&good, "HEAD", "--git-bisect", "--", "hash/mix"],
            BISECT_FAST,
        ),
    );
    assert_eq!(skip.status.code(), Some(125), "{}", stderr(&skip));
    git_ok(&repo, &["bisect", "skip"]);

    let mut args = vec![good.as_str(), "HEAD", "--git-bisect", "--quiet"];
    args.extend_from_slice(BISECT_FAST);
    args.extend(["--", "hash/mix"]);
    let output = git_bisect_run(&repo, &args);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "git bisect run failed: {stdout}{}",
        stderr(&output)
    );
    assert!(
        stdout.contains(&format!("{culprit} is the first bad commit")),
        "{stdout}"
    );
    git_ok(&repo, &["bisect", "reset"]);
}

/// A workspace as the held-out check of issue 44 has it: a program in one member (`app`, whose
/// `spin` command `perfdiff.toml` declares) and fixture bench targets in another (`core`:
/// `hashes` with `mix` and `steady`, and `extra`), with `spin` 8× slower in one commit and
/// `mix` 4× slower in a later one. Returns GOOD and the two culprits.
fn program_and_benches_repo(repo: &Path) -> (String, String, String) {
    fixture_workspace_repo(repo, &["app", "core"], |root| {
        write_library_package(&root.join("app"), "app", "");
        std::fs::remove_file(root.join("app/src/lib.rs")).unwrap();
        std::fs::write(root.join("app/src/main.rs"), spin_source(4)).unwrap();
        let hashes: FixtureTarget = ("hashes", &[("mix", 2000), ("steady", 2000)]);
        let extra: FixtureTarget = ("extra", &[("other", 500)]);
        write_fixture_package(&root.join("core"), "core", &[hashes, extra], "");
        std::fs::write(
            root.join("perfdiff.toml"),
            "[[command]]\nname = \"spin\"\nrun = \"{bin}/app\"\n",
        )
        .unwrap();
    });
    let good = rev_parse(repo, "HEAD");
    write_notes(repo, "notes 1");
    std::fs::write(repo.join("app/src/main.rs"), spin_source(32)).unwrap();
    commit_all(repo, "app: eight times the memory at once");
    let spin_culprit = rev_parse(repo, "HEAD");
    write_notes(repo, "notes 2");
    set_benchmark_in(&repo.join("core/hashes.txt"), "mix ns=8000");
    commit_all(repo, "core: mix takes four times the time");
    let mix_culprit = rev_parse(repo, "HEAD");
    write_notes(repo, "notes 3");
    (good, spin_culprit, mix_culprit)
}

/// A program that touches 32 MiB of fresh pages, `mib` MiB at a time: the same work whatever
/// `mib`, and a peak resident size of `mib` MiB besides its own, which the machine's load does
/// not change (a command's time is its wall time, which load does). The command counterpart of
/// the fixture's set times: its memory record changes, its time record does not.
fn spin_source(mib: usize) -> String {
    format!(
        r#"use std::alloc::{{Layout, alloc, dealloc}};

unsafe extern "C" {{
    fn madvise(addr: *mut u8, len: usize, advice: i32) -> i32;
}}

/// Linux's MADV_DONTNEED: the pages go back to the system, and read as zeros when touched again.
const MADV_DONTNEED: i32 = 4;
const PAGE: usize = 4096;

fn main() {{
    let block = {mib} << 20;
    let layout = Layout::from_size_align(block, PAGE).unwrap();
    let start = unsafe {{ alloc(layout) }};
    assert!(!start.is_null());
    for _ in 0..32 / {mib} {{
        for page in (0..block).step_by(PAGE) {{
            unsafe {{ start.add(page).write_volatile(1) }};
        }}
        assert_eq!(unsafe {{ madvise(start, block, MADV_DONTNEED) }}, 0);
    }}
    unsafe {{ dealloc(start, layout) }};
    println!("touched 32 MiB, {mib} MiB at a time");
}}
"#
    )
}

/// The files directly in `dir` (none if it does not exist).
fn file_names(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// The record of `spin` that changes: its peak memory.
const SPIN_MEMORY: &str = "spin (peak memory)";

#[test]
fn bisect_steps_build_only_what_they_search_and_a_second_bisection_refuses() {
    let dir = own_target_scratch();
    let repo = dir.path().join("program and benches");
    let (good, spin_culprit, mix_culprit) = program_and_benches_repo(&repo);
    let before = RepoState::capture(&repo);
    let report_path = dir.path().join("bisect.json");
    let mut args = vec![
        "bisect",
        good.as_str(),
        "HEAD",
        "--format",
        "json",
        "--output",
        report_path.to_str().unwrap(),
    ];
    args.extend_from_slice(BISECT_FAST);
    let first = fixture_command(&repo, &args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Once the first has saved its state it holds the lock, until its last step.
    let deadline = Instant::now() + Duration::from_secs(300);
    while !state_file(&repo, &good).is_file() {
        assert!(
            Instant::now() < deadline,
            "the first bisection saved no state"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let second = fixture_perfdiff(&repo, &args);
    assert_clean_error(&second, 2, "another cargo-perfdiff run is using");
    assert_eq!(
        stderr(&second).trim().lines().count(),
        1,
        "{}",
        stderr(&second)
    );

    let output = first.wait_with_output().unwrap();
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "culprits found: {err}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report_path).unwrap()).unwrap();
    let culprit = |id: &str| {
        report["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == id)
            .map(|r| r["culprit"]["sha"].as_str().unwrap_or("none").to_string())
            .unwrap_or_else(|| panic!("{id} not searched: {report:#}"))
    };
    assert_eq!(culprit(SPIN_MEMORY), spin_culprit, "{report:#}");
    assert_eq!(culprit("mix"), mix_culprit, "{report:#}");
    assert_eq!(report["results"].as_array().unwrap().len(), 2, "{report:#}");

    // Each search step built what it searched, and kept the verdicts of those records only: the
    // programs for `spin`'s memory, the `hashes` target alone for `mix`, never `extra` nor every
    // target.
    let bin = state_dir(&repo).join("bin");
    let steps = report["steps"].as_array().unwrap();
    assert!(steps.len() > 2, "{report:#}");
    for step in &steps[1..] {
        let ids: Vec<&str> = step["benchmarks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["id"].as_str().unwrap())
            .collect();
        assert!(
            ids.iter().all(|id| [SPIN_MEMORY, "mix"].contains(id)),
            "{step:#}"
        );
        let commit = bin.join(step["head"]["sha"].as_str().unwrap());
        let kept = file_names(&commit);
        assert!(
            !kept.contains(&"perfdiff-build.json".to_string()),
            "{kept:?}"
        );
        assert_eq!(
            kept.contains(&"programs".to_string()),
            ids.contains(&SPIN_MEMORY)
        );
        let narrow: Vec<&String> = kept.iter().filter(|n| n.starts_with("only-")).collect();
        match ids.contains(&"mix") {
            true => {
                assert_eq!(narrow.len(), 1, "{kept:?}");
                let executables = file_names(&commit.join(narrow[0]));
                assert!(executables.iter().any(|e| e.starts_with("hashes-")));
                assert!(!executables.iter().any(|e| e.starts_with("extra-")));
            }
            false => assert!(narrow.is_empty(), "{kept:?}"),
        }
    }
    // The time record of `spin`, the same work on both sides, is not searched: it may be
    // inconclusive at the confirmation (step 1), measured again there like every record, but it
    // never made a search step measure again.
    for line in err
        .lines()
        .filter(|l| l.contains(" inconclusive; measuring again"))
    {
        let (step, ids) = line
            .split(" inconclusive;")
            .next()
            .and_then(|before| before.split_once("step ")?.1.split_once(": "))
            .unwrap_or_else(|| panic!("{line}"));
        if step != "1" {
            assert!(!ids.split(", ").any(|id| id == "spin"), "{err}");
        }
    }
    assert_eq!(RepoState::capture(&repo), before);

    // Run again: every step, those of the command too, is replayed; nothing is measured.
    let again = fixture_perfdiff(&repo, &args);
    let err = stderr(&again);
    assert_eq!(again.status.code(), Some(0), "{err}");
    assert!(err.contains("resuming"), "{err}");
    assert!(!err.contains("measuring"), "nothing measured again: {err}");

    // A comparison whose filter names a command only builds no bench target; one naming a
    // benchmark builds no program.
    let listed = fixture_perfdiff(&repo, &[&good, "HEAD", "--list", "--", "^spin$"]);
    let err = stderr(&listed);
    assert!(listed.status.success(), "{err}");
    assert_eq!(
        err.matches(": 0 bench target(s), 1 program(s)").count(),
        2,
        "{err}"
    );
    assert!(String::from_utf8_lossy(&listed.stdout).contains("spin"));
    let listed = fixture_perfdiff(&repo, &[&good, "HEAD", "--list", "--", "^mix$"]);
    let err = stderr(&listed);
    assert!(listed.status.success(), "{err}");
    assert!(!err.contains("program(s)"), "{err}");
    assert_eq!(RepoState::capture(&repo), before);
}
