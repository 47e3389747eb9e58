//! The deterministic benchmark fixture (`fixtures/fake-criterion`) as a git repository with a
//! base and a head commit, the shape of the demo (`support::demo_repo`): `hash/mix`,
//! `hash/checksum`, `hash/slight` and `hash/steady` in bench target `demo`, and head changing
//! their true times by known factors and adding `hash/new_in_head`.
//!
//! The fixture is a criterion bench executable that reports the times its `benchmarks.txt` sets
//! instead of measuring them, so a run takes milliseconds a fork and its verdicts do not depend
//! on the machine. Tests change what it reports by committing another `benchmarks.txt`
//! ([`set_benchmark`], [`scale_benchmark`]). Runs go through [`fixture_perfdiff`], which gives
//! the forks the test's own directory for their fork counters: the same test gets the same
//! samples every time.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use crate::support::{self, FAST, ONE_LAYOUT, Scratch};

/// The fixture's files, as the base commit holds them.
const FILES: &[(&str, &str)] = &[
    (
        "Cargo.toml",
        include_str!("../../fixtures/fake-criterion/Cargo.toml"),
    ),
    (
        "Cargo.lock",
        include_str!("../../fixtures/fake-criterion/Cargo.lock"),
    ),
    (
        "src/lib.rs",
        include_str!("../../fixtures/fake-criterion/src/lib.rs"),
    ),
    (
        "benches/demo.rs",
        include_str!("../../fixtures/fake-criterion/benches/demo.rs"),
    ),
    (
        "benchmarks.txt",
        include_str!("../../fixtures/fake-criterion/benchmarks.txt"),
    ),
    (".gitignore", "target/\n"),
];

/// The spec file whose lines set what each benchmark reports.
pub const SPEC: &str = "benchmarks.txt";

/// What head changes: each factor multiplies a benchmark's true time.
#[derive(Debug, Clone, Copy)]
pub struct Changes {
    pub mix: f64,
    pub checksum: f64,
    pub slight: f64,
    /// Head adds `hash/new_in_head`.
    pub add_benchmark: bool,
}

/// The changes of `support::strong_changes()`: mix twice the time, checksum half, slight +3 %,
/// a benchmark added.
pub fn strong() -> Changes {
    Changes {
        mix: 2.0,
        checksum: 0.5,
        slight: 1.03,
        add_benchmark: true,
    }
}

/// Head changes no benchmark (its commit changes a comment of `benchmarks.txt`).
pub fn unchanged() -> Changes {
    Changes {
        mix: 1.0,
        checksum: 1.0,
        slight: 1.0,
        add_benchmark: false,
    }
}

/// The fixture with `changes` in a fresh scratch directory (`support::scratch`), as
/// `support::demo_repo` makes the demo: `<scratch>/demo repo ü`, base then head committed.
pub fn fixture_repo(changes: &Changes) -> (Scratch, PathBuf) {
    let dir = support::own_target_scratch();
    let repo = dir.path().join("demo repo ü");
    fixture_repo_at(&repo, changes);
    (dir, repo)
}

/// [`fixture_repo`] at the path `repo` (in a [`Scratch`] directory the caller holds).
pub fn fixture_repo_at(repo: &Path, changes: &Changes) {
    write_fixture_files(repo);
    support::git_ok(repo, &["init", "-q"]);
    support::commit_all(repo, "base");
    for (id, factor) in [
        ("hash/mix", changes.mix),
        ("hash/checksum", changes.checksum),
        ("hash/slight", changes.slight),
    ] {
        scale_benchmark(repo, id, factor);
    }
    if changes.add_benchmark {
        set_benchmark(repo, "hash/new_in_head ns=3000");
    }
    let mut spec = std::fs::read_to_string(repo.join(SPEC)).unwrap();
    spec.push_str("# head\n");
    std::fs::write(repo.join(SPEC), spec).unwrap();
    support::commit_all(repo, "head");
}

/// Writes the fixture's files (its manifest, lock file, library, bench target, `benchmarks.txt`
/// and `.gitignore`) into `dir` (not committed).
pub fn write_fixture_files(dir: &Path) {
    for (path, text) in FILES {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

/// Sets the line of the benchmark `line` names (its first word) in `repo`'s spec, replacing
/// the one there or adding it (not committed).
pub fn set_benchmark(repo: &Path, line: &str) {
    set_benchmark_in(&repo.join(SPEC), line);
}

/// The id a spec line sets: up to a tab if it has one (an id with spaces), else its first word.
fn spec_id(line: &str) -> &str {
    match line.split_once('\t') {
        Some((id, _)) => id,
        None => line.split_whitespace().next().unwrap_or(""),
    }
}

/// [`set_benchmark`] in the spec file `path` (a bench target's of [`write_fixture_package`]).
pub fn set_benchmark_in(path: &Path, line: &str) {
    let id = spec_id(line);
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    match lines.iter().position(|l| spec_id(l) == id) {
        Some(at) => lines[at] = line.to_string(),
        None => lines.push(line.to_string()),
    }
    std::fs::write(path, lines.join("\n") + "\n").unwrap();
}

/// The fixture's bench source reading its spec from `<package>/<spec>` instead of
/// `benchmarks.txt`, for a package with several bench targets.
pub fn fixture_source(spec: &str) -> String {
    let source = FILES
        .iter()
        .find(|(path, _)| *path == "benches/demo.rs")
        .unwrap()
        .1;
    let include = "include_str!(\"../benchmarks.txt\")";
    assert!(source.contains(include), "the fixture includes its spec");
    source.replace(include, &format!("include_str!(\"../{spec}\")"))
}

/// A bench target of [`write_fixture_package`]: its name and its benchmarks, each an id and
/// its true time an iteration in nanoseconds.
pub type FixtureTarget<'a> = (&'a str, &'a [(&'a str, u64)]);

/// Writes a package `name` at `dir` with a fixture bench target for each of `targets` (target
/// `T` reports what `T.txt` sets), its manifest ending in `extra` (not committed): what
/// `support::write_criterion_package` writes, on the fixture.
pub fn write_fixture_package(dir: &Path, name: &str, targets: &[FixtureTarget], extra: &str) {
    support::write_library_package(dir, name, extra);
    for (target, benchmarks) in targets {
        add_fixture_target(dir, target, benchmarks);
    }
}

/// Adds the fixture bench target `target` reporting `benchmarks` (id, ns) to the package at
/// `dir` (not committed).
pub fn add_fixture_target(dir: &Path, target: &str, benchmarks: &[(&str, u64)]) {
    let spec = format!("{target}.txt");
    let lines: String = benchmarks
        .iter()
        .map(|(id, ns)| format!("{id} ns={ns}\n"))
        .collect();
    std::fs::write(dir.join(&spec), lines).unwrap();
    support::add_bench_target(dir, target, &fixture_source(&spec));
}

/// A git repository at `repo` holding a virtual workspace of `members` (written by the caller
/// into `repo/<member>` through `write_members`), with its lock file; commits it as "base".
pub fn fixture_workspace_repo(repo: &Path, members: &[&str], write_members: impl FnOnce(&Path)) {
    std::fs::create_dir_all(repo).unwrap();
    support::git_ok(repo, &["init", "-q"]);
    support::write_workspace_manifest(repo, members);
    std::fs::write(repo.join(".gitignore"), "target/\n").unwrap();
    write_members(repo);
    generate_lockfile(repo);
    support::commit_all(repo, "base");
}

/// `cargo generate-lockfile` in `repo`: the fixture has no dependency, so this reads nothing
/// from the network.
pub fn generate_lockfile(repo: &Path) {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args(["generate-lockfile", "--offline"])
        .current_dir(repo)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
}

/// Multiplies the true time (`ns=`) of benchmark `id` in `repo`'s spec by `factor` (not
/// committed).
pub fn scale_benchmark(repo: &Path, id: &str, factor: f64) {
    let text = std::fs::read_to_string(repo.join(SPEC)).unwrap();
    let line = text
        .lines()
        .find(|l| l.split_whitespace().next() == Some(id))
        .unwrap_or_else(|| panic!("{id} not in {SPEC}"));
    let scaled: Vec<String> = line
        .split_whitespace()
        .map(|word| match word.strip_prefix("ns=") {
            Some(ns) => format!("ns={}", ns.parse::<f64>().unwrap() * factor),
            None => word.to_string(),
        })
        .collect();
    set_benchmark(repo, &scaled.join(" "));
}

/// `cargo perfdiff ARGS` in `dir` (`support::cargo_perfdiff`), the fixture's forks counting in
/// the directory beside `dir`'s repository ([`fork_counters`]).
pub fn fixture_perfdiff(dir: &Path, args: &[&str]) -> Output {
    fixture_perfdiff_with_env(dir, args, &[])
}

/// [`fixture_perfdiff`] with more environment variables set.
pub fn fixture_perfdiff_with_env(dir: &Path, args: &[&str], vars: &[(&str, &str)]) -> Output {
    let counters = fork_counters(dir);
    let counters = counters.to_str().unwrap();
    let mut all = vec![("PERFDIFF_FIXTURE_STATE", counters)];
    all.extend_from_slice(vars);
    support::cargo_perfdiff_with_env(dir, args, &all)
}

/// `support::perfdiff_command` (a command not yet run) with the fixture's fork counters set, as
/// [`fixture_perfdiff`] runs it.
pub fn fixture_command(dir: &Path, args: &[&str]) -> Command {
    let mut command = support::perfdiff_command(dir, args);
    command.env("PERFDIFF_FIXTURE_STATE", fork_counters(dir));
    command
}

/// Where the fixture's forks run in `dir` count themselves: `fixture-forks` beside the
/// repository `dir` is in (the scratch directory of the test), never inside it.
pub fn fork_counters(dir: &Path) -> PathBuf {
    let repo = dir
        .ancestors()
        .find(|d| d.join(".git").exists())
        .unwrap_or(dir);
    repo.parent().unwrap_or(repo).join("fixture-forks")
}

/// Starts `command` in a process group of its own with its output piped: a test can signal the
/// whole run (cargo, its compilers, the forks) and read what it printed.
pub fn spawn_in_own_group(mut command: Command) -> Child {
    command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .unwrap()
}

/// `HEAD~1 HEAD --stop fixed --forks N`, the report as JSON whatever the verdicts, samples to
/// `samples`, the tests' tiny settings and one layout.
pub fn fixed_args<'a>(forks: &'a str, samples: &'a str) -> Vec<&'a str> {
    let mut args = vec![
        "HEAD~1",
        "HEAD",
        "--stop",
        "fixed",
        "--forks",
        forks,
        "--format",
        "json",
        "--fail-on",
        "never",
        "--samples",
        samples,
    ];
    args.extend_from_slice(FAST);
    args.extend_from_slice(ONE_LAYOUT);
    args
}

/// A side's forks of `id` in a samples file, in the order recorded.
pub fn forks_of(samples: &Path, id: &str, side: &str) -> Vec<serde_json::Value> {
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(samples).unwrap()).unwrap();
    let benchmark = file["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["id"] == id)
        .unwrap_or_else(|| panic!("{id} not in {file:#}"))
        .clone();
    benchmark[side]["forks"].as_array().unwrap().clone()
}

/// A fork's mean time per iteration, ns.
pub fn mean_of(fork: &serde_json::Value) -> f64 {
    let sum = |key: &str| -> f64 {
        fork[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .sum()
    };
    sum("times_ns") / sum("iters")
}
