//! Shared helpers of the end-to-end tests: the real binary run as `cargo perfdiff`, demo
//! repositories, and a byte-exact snapshot of everything of the user's that must not change.
#![allow(dead_code)]

use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, MutexGuard};

use cargo_perfdiff::orchestrate::demo::{DemoOptions, create_demo_repo};

/// End-to-end runs measure real benchmarks: one at a time, so they do not disturb each other.
static MEASURING: Mutex<()> = Mutex::new(());

/// Held while a test measures: [`measuring_lock`].
pub struct MeasuringGuard {
    /// When the lock was taken: with `PERFDIFF_TEST_RUN_TIMES` set, how long the test held it is
    /// logged ([`log_run_time`]), the test's own time without its wait for the lock.
    taken: std::time::Instant,
    /// The lock on `measuring.lock` in the target directory's temporary directory (released
    /// first: fields drop in order).
    _file: File,
    _thread: MutexGuard<'static, ()>,
}

impl Drop for MeasuringGuard {
    fn drop(&mut self) {
        log_line(&format!(
            "{:.1}\tmeasuring lock held",
            self.taken.elapsed().as_secs_f64()
        ));
    }
}

/// Waits until no other test measures, then holds the measuring lock until the guard is dropped:
/// the threads of one test binary wait on a mutex, test processes (as nextest runs them) on a
/// lock file in `CARGO_TARGET_TMPDIR`.
pub fn measuring_lock() -> MeasuringGuard {
    let thread = MEASURING
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    // Taken before the clock starts: the wait for another test process is not the test's time.
    let file = locked_file(&Path::new(env!("CARGO_TARGET_TMPDIR")).join("measuring.lock"));
    MeasuringGuard {
        taken: std::time::Instant::now(),
        _file: file,
        _thread: thread,
    }
}

/// `path`, created if absent, with an exclusive OS lock on it (released when the file closes).
fn locked_file(path: &Path) -> File {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let file = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    file.lock()
        .unwrap_or_else(|e| panic!("locking {}: {e}", path.display()));
    file
}

/// A cargo target directory shared by all end-to-end tests, so criterion compiles once.
pub fn shared_target_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target")
        .join("e2e")
}

/// The [`own_target_scratch`] directories: each root and the target directory its runs build
/// into.
static OWN_TARGETS: Mutex<Vec<(PathBuf, PathBuf)>> = Mutex::new(Vec::new());

/// The cargo target directory cargo-perfdiff run in `dir` builds into: its test's own when `dir`
/// lies in an [`own_target_scratch`] directory, else [`shared_target_dir`].
pub fn target_dir(dir: &Path) -> PathBuf {
    let own = OWN_TARGETS.lock().unwrap_or_else(|p| p.into_inner());
    match own.iter().find(|(root, _)| dir.starts_with(root)) {
        Some((_, target)) => target.clone(),
        None => shared_target_dir(),
    }
}

/// The target directory of the test running on this thread: `target/orchestration/<test>`
/// (libtest names a test's thread after the test; `::` becomes `-`; a harness that runs tests on
/// an unnamed thread puts them all in `main`, which is correct, only shared).
fn own_target_dir() -> PathBuf {
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("main").replace("::", "-");
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target")
        .join("orchestration")
        .join(test)
}

/// `cargo perfdiff ARGS` in `dir`, with the freshly built binary first on PATH (cargo finds
/// `cargo-perfdiff` there), the shared target directory, and no CI/colour surprises.
pub fn cargo_perfdiff(dir: &Path, args: &[&str]) -> Output {
    cargo_perfdiff_with_env(dir, args, &[])
}

/// [`cargo_perfdiff`] with more environment variables set.
pub fn cargo_perfdiff_with_env(dir: &Path, args: &[&str], vars: &[(&str, &str)]) -> Output {
    let started = std::time::Instant::now();
    let output = perfdiff_command(dir, args)
        .envs(vars.iter().copied())
        .output()
        .expect("cargo runs");
    log_run_time(args, started.elapsed(), &output);
    output
}

/// Runs `command` (a [`perfdiff_command`] a test set up further) and logs it as
/// [`cargo_perfdiff`] logs its runs.
pub fn output_logged(command: &mut Command) -> Output {
    let started = std::time::Instant::now();
    let output = command.output().expect("cargo runs");
    let args: Vec<String> = command
        .get_args()
        .skip(1)
        .map(|arg| arg.to_string_lossy().into_owned())
        .collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    log_run_time(&args, started.elapsed(), &output);
    output
}

/// With `PERFDIFF_TEST_RUN_TIMES=FILE` set, appends to FILE a line per run of cargo-perfdiff
/// (the test's name, the seconds the run took, its build notes, its arguments): where a test's
/// time goes, for docs/design/test-suite.md. A figure taken on a busy machine only ranks runs.
fn log_run_time(args: &[&str], took: std::time::Duration, output: &Output) {
    let err = stderr(output);
    let builds: Vec<&str> = err
        .lines()
        .filter(|line| {
            line.contains("built base")
                || line.contains("built head")
                || line.contains("finding what the change reaches")
        })
        .map(str::trim)
        .collect();
    log_line(&format!(
        "{:.1}\t{}\t{}",
        took.as_secs_f64(),
        builds.join(" | "),
        args.join(" ")
    ));
}

/// Appends `fields` to the `PERFDIFF_TEST_RUN_TIMES` file, if set, after the test's name.
fn log_line(fields: &str) {
    let Some(path) = std::env::var_os("PERFDIFF_TEST_RUN_TIMES") else {
        return;
    };
    let test = std::thread::current().name().unwrap_or("?").to_string();
    let mut file = File::options()
        .create(true)
        .append(true)
        .open(path)
        .unwrap();
    std::io::Write::write_all(&mut file, format!("{test}\t{fields}\n").as_bytes()).unwrap();
}

/// The optimisation level of the builds in [`Scratch`] directories, the tests' own repositories
/// (`cargo bench`'s profile, through cargo's own `CARGO_PROFILE_*` variables, which
/// cargo-perfdiff passes on like any of the user's settings). Level 1 compiles a demo revision
/// in about 4 s against 6.5 s at the release profile's level 3 on the project's 2-core machine,
/// and criterion's dependencies likewise; what those tests check (builds, identity, forks,
/// failures, verdicts on 2× changes) does not depend on it, and they are most of the suite's
/// builds. The shared demos ([`shared_demo`], [`shared_demo_repo`]) and the repositories of
/// [`release_scratch`] build with the release profile as users have it: layouts, merged
/// functions and instruction counts are checked there.
pub const OPT_LEVEL: &str = "1";

/// The roots of the [`Scratch`] directories whose builds use [`OPT_LEVEL`].
static QUICK_BUILDS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Whether cargo-perfdiff run in `dir` builds with [`OPT_LEVEL`].
fn quick_builds(dir: &Path) -> bool {
    let quick = QUICK_BUILDS.lock().unwrap_or_else(|p| p.into_inner());
    quick.iter().any(|root| dir.starts_with(root))
}

/// Fast measurement settings for tests (the defaults take a few seconds per fork).
pub const FAST: &[&str] = &[
    "--warm-up-time",
    "0.05",
    "--measurement-time",
    "0.2",
    "--sample-size",
    "10",
    "--seed",
    "7",
];

/// `--alpha 0.001`, for the end-to-end tests that assert an untouched benchmark is not called
/// changed. That assertion is a statistical claim, false about alpha of the time by chance: at
/// the default 1 %, one of 27 kept runs of `head_vs_previous_commit_finds_the_known_changes_and_
/// touches_nothing` called the demo's untouched `hash/steady` −2.2 % `improved` (four forks a
/// side, fork means 1.0 % and 0.5 % apart, every gate met; the other 26 estimates lay between
/// −3.3 % and +2.2 % around +0.1 %). At 0.1 % the t interval on the fork means makes such a call
/// ten times rarer, and the tests' 2× and 0.5× changes are still decided.
pub const STRICT_ALPHA: &[&str] = &["--alpha", "0.001"];

/// Unmistakable changes for tests of the plumbing (verdicts must not depend on how loaded the
/// test machine is): hash/mix twice the work, hash/checksum half, hash/slight +3 %.
pub fn strong_changes() -> DemoOptions {
    DemoOptions {
        changes: cargo_perfdiff::orchestrate::demo::DemoChanges {
            mix: 2.0,
            checksum: 0.5,
            slight: 1.03,
            add_benchmark: true,
            new_benchmark_own_target: false,
        },
        criterion_version: None,
        harness: Default::default(),
    }
}

/// A temporary directory for a test's own repositories and files that, when dropped, also
/// removes the state cargo-perfdiff kept in the target directory (the shared one, or the
/// test's own) for every workspace inside it (worktrees, kept builds, runs: 10 to 300 MB each). Without it, each test's
/// repository would leave its state behind in `target/e2e` for good, as its path is never
/// used again: about 480 MB for the suite's 40, part of what filled a fresh CI machine's disk.
pub struct Scratch {
    dir: tempfile::TempDir,
}

/// A fresh [`Scratch`] directory whose repositories build with [`OPT_LEVEL`].
pub fn scratch() -> Scratch {
    let scratch = release_scratch();
    let mut quick = QUICK_BUILDS.lock().unwrap_or_else(|p| p.into_inner());
    quick.push(scratch.path().to_path_buf());
    scratch
}

/// A fresh [`scratch`] directory whose runs build into a target directory of the test's own,
/// `target/orchestration/<test>` ([`target_dir`]), kept from one run of the suite to the next
/// as `target/e2e` is: for the tests of the deterministic fixture (`tests/orchestration`), which
/// has no dependency to share and builds in seconds. In one shared directory, tests running in
/// parallel waited for each other: every build, a kept one too, locks the target directory
/// while cargo runs, so a test's "up to date" waited for another test's compile (32 s in a busy
/// run). In its own directory a test also finds only its own kept
/// builds (a second run of the suite takes them all from the store, as before).
pub fn own_target_scratch() -> Scratch {
    let scratch = scratch();
    let mut own = OWN_TARGETS.lock().unwrap_or_else(|p| p.into_inner());
    own.push((scratch.path().to_path_buf(), own_target_dir()));
    scratch
}

/// A fresh [`Scratch`] directory whose repositories build with the release profile as users
/// have it (no [`OPT_LEVEL`]).
pub fn release_scratch() -> Scratch {
    Scratch {
        dir: tempfile::tempdir().unwrap(),
    }
}

impl Scratch {
    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let mut quick = QUICK_BUILDS.lock().unwrap_or_else(|p| p.into_inner());
        quick.retain(|root| root != self.dir.path());
        drop(quick);
        for workspace in workspaces_under(self.dir.path(), 3) {
            let state = state_dir(&workspace);
            if state.exists() {
                let _ = std::fs::remove_dir_all(&state);
            }
        }
        let mut own = OWN_TARGETS.lock().unwrap_or_else(|p| p.into_inner());
        own.retain(|(root, _)| root != self.dir.path());
    }
}

/// The directories under `dir`, down to `depth` levels, that hold a manifest or a repository
/// (cargo-perfdiff's state is keyed by the workspace root, which may lie below the repository),
/// leaving out `.git` and `target`.
fn workspaces_under(dir: &Path, depth: usize) -> Vec<PathBuf> {
    let mut found = Vec::new();
    if dir.join("Cargo.toml").exists() || dir.join(".git").exists() {
        found.push(dir.to_path_buf());
    }
    if depth == 0 {
        return found;
    }
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let name = entry.file_name();
        if name != ".git" && name != "target" && entry.path().is_dir() {
            found.extend(workspaces_under(&entry.path(), depth - 1));
        }
    }
    found
}

/// A demo repository in a fresh [`Scratch`] directory, built with [`OPT_LEVEL`].
pub fn demo_repo(options: &DemoOptions) -> (Scratch, PathBuf) {
    demo_repo_in(scratch(), options)
}

/// A demo repository in a fresh [`release_scratch`] directory, built as users build it.
pub fn release_demo_repo(options: &DemoOptions) -> (Scratch, PathBuf) {
    demo_repo_in(release_scratch(), options)
}

fn demo_repo_in(dir: Scratch, options: &DemoOptions) -> (Scratch, PathBuf) {
    let repo = dir.path().join("demo repo ü");
    create_demo_repo(&repo, options).unwrap();
    (dir, repo)
}

/// The demo repository `options` make, shared by every test that only reads it, and a fresh
/// temporary directory for the test's own files (as [`demo_repo`] gives): [`shared_repo`] of
/// the demo alone.
pub fn shared_demo(measuring: &MeasuringGuard, options: &DemoOptions) -> (Scratch, PathBuf) {
    let key = format!("{options:?}");
    shared_repo(measuring, Profile::Release, &key, "demo repo ü", |repo| {
        create_demo_repo(repo, options).unwrap();
    })
}

/// The profile a [`shared_repo`]'s runs build with: cargo's release profile as users have it,
/// or at [`OPT_LEVEL`] as a [`scratch`] repository's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Profile {
    Release,
    Quick,
}

/// [`shared_repo`] of the demo `options` make, with `then` adding its commits on top, built at
/// [`OPT_LEVEL`] as [`demo_repo`]'s: the repository of a test that compares commits of its own
/// and only reads them.
pub fn shared_demo_with(
    measuring: &MeasuringGuard,
    options: &DemoOptions,
    key: &str,
    then: impl FnOnce(&Path),
) -> (Scratch, PathBuf) {
    let key = format!("{options:?} {key}");
    shared_repo(measuring, Profile::Quick, &key, "demo repo ü", |repo| {
        create_demo_repo(repo, options).unwrap();
        then(repo);
    })
}

/// The repository `make` writes (a git repository at the path it is given, committed), shared
/// by every test that asks with the same `key` and kept from one run of the suite to the next,
/// its runs building with `profile`, and a fresh temporary directory for the test's own files
/// (as [`demo_repo`] gives).
///
/// One repository per content and profile, at a fixed path,
/// `CARGO_TARGET_TMPDIR/shared-demos/<hash of its commits' trees>[-quick]/<name>`, created by the
/// first test that asks (under a lock file, so test processes running at once agree). Its state
/// directory is therefore kept too: the worktrees, the builds cargo-perfdiff keeps of the last
/// run's two commits, and the traces selection keyed by executable content. A test in a
/// [`Scratch`] repository made them all again on every run (its state is removed with it): the
/// checkouts, the builds taken from the store, and every benchmark traced under valgrind again.
///
/// Only for tests that change neither the repository nor its state directory, do not depend on
/// what an earlier run left there (builds, traces, samples files: their assertions hold on a
/// first run and on the next), and hold `measuring` while they run cargo-perfdiff in it, so
/// that no two runs in it overlap.
pub fn shared_repo(
    _measuring: &MeasuringGuard,
    profile: Profile,
    key: &str,
    name: &str,
    make: impl FnOnce(&Path),
) -> (Scratch, PathBuf) {
    static SHARED: Mutex<Option<HashMap<String, PathBuf>>> = Mutex::new(None);
    let mut shared = SHARED.lock().unwrap_or_else(|p| p.into_inner());
    let key = format!("{profile:?}\t{name}\t{key}");
    let repo = match shared.get_or_insert_with(HashMap::new).get(&key) {
        Some(repo) => repo.clone(),
        None => {
            let repo = create_shared_repo(profile, name, make);
            if profile == Profile::Quick {
                let mut quick = QUICK_BUILDS.lock().unwrap_or_else(|p| p.into_inner());
                quick.push(repo.parent().unwrap().to_path_buf());
            }
            shared.as_mut().unwrap().insert(key, repo.clone());
            repo
        }
    };
    (scratch(), repo)
}

/// Makes the repository `make` writes in a scratch directory, then moves it to its shared place
/// unless a repository of the same content is already there.
fn create_shared_repo(profile: Profile, name: &str, make: impl FnOnce(&Path)) -> PathBuf {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("shared-demos");
    std::fs::create_dir_all(&root).unwrap();
    let scratch = tempfile::tempdir_in(&root).unwrap();
    let made = scratch.path().join(name);
    make(&made);
    // The trees of its commits name its content: commit ids also hold the time of creation.
    let trees = git_ok(&made, &["log", "--format=%T"]);
    let hash = trees.bytes().fold(0xCBF2_9CE4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01B3)
    });
    let quick = if profile == Profile::Quick {
        "-quick"
    } else {
        ""
    };
    let dir = root.join(format!("{hash:016x}{quick}"));
    let _lock = locked_file(&dir.with_extension("lock"));
    let ready = dir.join("ready");
    let repo = dir.join(name);
    if !ready.exists() {
        if dir.exists() {
            std::fs::remove_dir_all(&dir).unwrap();
        }
        std::fs::create_dir(&dir).unwrap();
        // The state of earlier repositories at this path (their worktrees belong to them).
        for workspace in workspaces_under(&made, 3) {
            let state = state_dir(&repo.join(workspace.strip_prefix(&made).unwrap()));
            if state.exists() {
                std::fs::remove_dir_all(&state).unwrap();
            }
        }
        std::fs::rename(&made, &repo).unwrap();
        std::fs::write(&ready, trees).unwrap();
    }
    repo
}

/// Everything of the user's that cargo-perfdiff must leave byte-for-byte unchanged.
#[derive(Debug, PartialEq, Eq)]
pub struct RepoState {
    head: String,
    status: String,
    refs: String,
    stash: String,
    index: Vec<u8>,
    files: Vec<(PathBuf, Vec<u8>)>,
    /// The user's own criterion results, `target/criterion` (none if absent).
    criterion: Vec<(PathBuf, Vec<u8>)>,
}

fn git(repo: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(repo)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

impl RepoState {
    pub fn capture(repo: &Path) -> RepoState {
        RepoState {
            head: git(repo, &["rev-parse", "HEAD", "--symbolic-full-name", "HEAD"]),
            status: git(
                repo,
                &[
                    "status",
                    "--porcelain=v1",
                    "--untracked-files=all",
                    "--ignored",
                ],
            ),
            refs: git(repo, &["show-ref"]),
            stash: git(repo, &["stash", "list"]),
            index: std::fs::read(repo.join(".git/index")).unwrap_or_default(),
            files: source_files(repo),
            criterion: all_files(&repo.join("target/criterion")),
        }
    }
}

/// Every file outside .git and target, with its bytes.
fn source_files(root: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if name == ".git" || name == "target" {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else {
                files.push((
                    path.strip_prefix(root).unwrap().to_path_buf(),
                    std::fs::read(&path).unwrap(),
                ));
            }
        }
    }
    files.sort();
    files
}

/// Every file under `root` with its bytes (none if `root` does not exist).
fn all_files(root: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                files.push((
                    path.strip_prefix(root).unwrap().to_path_buf(),
                    std::fs::read(&path).unwrap(),
                ));
            }
        }
    }
    files.sort();
    files
}

/// Gives `repo` criterion results of its own (`target/criterion`), as a user who ran
/// `cargo bench` has, so [`RepoState`] can check that cargo-perfdiff leaves them alone.
pub fn seed_criterion_results(repo: &Path) {
    for id in ["hash/mix", "hash/steady"] {
        let dir = repo.join("target/criterion").join(id).join("base");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("estimates.json"),
            format!("{{\"mean\": {{\"point_estimate\": 1234.5}}, \"id\": {id:?}}}"),
        )
        .unwrap();
    }
}

/// The verdict of benchmark `id` in a JSON report.
pub fn verdict_of(report: &serde_json::Value, id: &str) -> String {
    report["benchmarks"]
        .as_array()
        .expect("benchmarks array")
        .iter()
        .find(|b| b["id"] == id)
        .unwrap_or_else(|| panic!("{id} missing from {report:#}"))["verdict"]
        .as_str()
        .unwrap()
        .to_string()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Asserts one clean error line: no panic, no backtrace, no Rust debug output.
pub fn assert_clean_error(output: &Output, code: i32, needle: &str) {
    let err = stderr(output);
    assert_eq!(output.status.code(), Some(code), "stderr: {err}");
    assert!(err.contains(needle), "expected {needle:?} in: {err}");
    for bad in [
        "panicked",
        "RUST_BACKTRACE",
        "stack backtrace",
        "Error {",
        "Os {",
    ] {
        assert!(!err.contains(bad), "{bad:?} in: {err}");
    }
}

/// `cargo perfdiff ARGS` in `dir` as a [`Command`] not yet run, set up as [`cargo_perfdiff`]
/// sets it up, so a test can add environment variables or spawn it.
pub fn perfdiff_command(dir: &Path, args: &[&str]) -> Command {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_cargo-perfdiff"));
    let path = std::env::join_paths(std::iter::once(bin.parent().unwrap().to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let mut command = Command::new("cargo");
    command
        .arg("perfdiff")
        .args(args)
        .current_dir(dir)
        .env("PATH", path)
        .env("CARGO_TARGET_DIR", target_dir(dir))
        .env("NO_COLOR", "1")
        // Every benchmark measured, as the statistics these tests check need: selection by
        // reach traces each benchmark under valgrind first, and has tests of its own
        // (`selection_e2e`), which remove this variable.
        .env("CARGO_PERFDIFF_MEASURE_ALL", "1")
        .env(KEPT_BUILDS.0, KEPT_BUILDS.1)
        .env_remove("CARGO_PERFDIFF_LOG")
        // Set to time the tests (`-Z unstable-options --report-time`), it would change every
        // build's fingerprint under cargo-perfdiff and rebuild the demos' dependencies.
        .env_remove("RUSTC_BOOTSTRAP");
    if quick_builds(dir) {
        command
            .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", OPT_LEVEL)
            .env("CARGO_PROFILE_BENCH_OPT_LEVEL", OPT_LEVEL);
    }
    command
}

/// How many builds the store of kept builds in the shared target directory keeps for the
/// suite (cargo-perfdiff's `CARGO_PERFDIFF_KEPT_BUILDS`, 8 by default): the tests' own
/// repositories of one content (a demo made with the same options, at the same optimisation
/// level, compared with the same build options) take each other's builds from it, whatever
/// their paths. Every commit a test makes has the same tree from one run of the suite to the
/// next, so a store that holds all of the suite's builds lets a warm run build none of them
/// again (51 were put or taken by three quarters of `end_to_end`, 3 to 6 MB each at one
/// layout). At 24, the bisection tests, which build a dozen commits each and run first, pushed
/// out every build of the tests after them.
pub const KEPT_BUILDS: (&str, &str) = ("CARGO_PERFDIFF_KEPT_BUILDS", "400");

/// The variable that turns the store of kept builds off, for the tests of what a workspace
/// builds on its own (its slots, its kept builds, what cargo compiles).
pub const NO_SHARED_BUILDS: (&str, &str) = ("CARGO_PERFDIFF_KEPT_BUILDS", "0");

/// `args` with the tiny fixed measurement settings of the robustness tests added (before the
/// `--` of benchmark filters, if any): two rounds, and cargo's build alone ([`ONE_LAYOUT`]).
pub fn quick<'a>(args: &[&'a str]) -> Vec<&'a str> {
    let settings = [&["--stop", "fixed", "--forks", "2"][..], ONE_LAYOUT].concat();
    with_options(&with_options(args, FAST), &settings)
}

/// `--layouts 1`, for the tests whose subject is not code layouts: cargo's build alone. A build
/// with more layouts keeps its link inputs, and relinks a layout for each new round; the key of a build holds its layout count, so the build of a `--list`
/// (always one layout) serves the run after it only at one layout.
pub const ONE_LAYOUT: &[&str] = &["--layouts", "1"];

/// `args` without [`ONE_LAYOUT`] (the default layouts), for selection by reach, which compares
/// code in the objects only a build with layouts keeps.
pub fn with_default_layouts<'a>(args: &[&'a str]) -> Vec<&'a str> {
    match args.windows(2).position(|pair| pair == ONE_LAYOUT) {
        Some(at) => [&args[..at], &args[at + 2..]].concat(),
        None => args.to_vec(),
    }
}

/// `args` with the value of their `--layouts` set to `layouts` (the option must be there, as
/// [`quick`] puts it).
pub fn with_layouts<'a>(mut args: Vec<&'a str>, layouts: &'a str) -> Vec<&'a str> {
    let at = args
        .iter()
        .position(|a| *a == "--layouts")
        .expect("--layouts in the arguments");
    args[at + 1] = layouts;
    args
}

/// [`quick`] arguments comparing `base` with `head` for the benchmarks `filters` select, the
/// report as JSON on stdout and exit 0 whatever the verdicts.
pub fn compare_json<'a>(base: &'a str, head: &'a str, filters: &[&'a str]) -> Vec<&'a str> {
    let comparison = [base, head, "--format", "json", "--fail-on", "never", "--"];
    quick(&[&comparison[..], filters].concat())
}

/// [`compare_json`] of `HEAD~1` with `HEAD`.
pub fn parent_vs_head_json<'a>(filters: &[&'a str]) -> Vec<&'a str> {
    compare_json("HEAD~1", "HEAD", filters)
}

/// What a command printed, stdout then stderr: a table report and its notes.
pub fn all_output(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned() + &stderr(output)
}

/// `args` with `options` put before any `--`: after it they would be benchmark filters.
pub fn with_options<'a>(args: &[&'a str], options: &[&'a str]) -> Vec<&'a str> {
    let split = args.iter().position(|a| *a == "--").unwrap_or(args.len());
    [&args[..split], options, &args[split..]].concat()
}

/// Runs git in `repo` with a fixed identity; panics (with git's output) if it fails.
pub fn git_ok(repo: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=perfdiff test",
            "-c",
            "user.email=test@perfdiff.invalid",
            "-c",
            "protocol.file.allow=always",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(repo)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?} in {} failed: {}",
        repo.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The full commit id `revision` names in `repo`.
pub fn rev_parse(repo: &Path, revision: &str) -> String {
    git_ok(repo, &["rev-parse", revision]).trim().to_string()
}

/// Replaces `from` by `to` in `repo/file` (which must contain it).
pub fn replace_in(repo: &Path, file: &str, from: &str, to: &str) {
    let path = repo.join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(from), "{from:?} not in {}", path.display());
    std::fs::write(&path, text.replace(from, to)).unwrap();
}

/// Commits a comment in the demo's `src/lib.rs`: a commit that changes no code.
pub fn commit_a_comment_in_the_library(repo: &Path) {
    replace_in(
        repo,
        "src/lib.rs",
        "pub fn",
        "// A comment changes no code.\npub fn",
    );
    commit_all(repo, "a comment");
}

/// Commits everything in `repo` (new, changed and deleted files).
pub fn commit_all(repo: &Path, message: &str) {
    git_ok(repo, &["add", "-A"]);
    git_ok(repo, &["commit", "-q", "-m", message]);
}

/// Writes a library package `name` at `dir`: a `Cargo.toml` ending in `extra` and an empty
/// `src/lib.rs` (not committed).
pub fn write_library_package(dir: &Path, name: &str, extra: &str) {
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        format!("[package]\nname = {name:?}\nversion = \"0.1.0\"\nedition = \"2021\"\n{extra}"),
    )
    .unwrap();
    std::fs::write(dir.join("src/lib.rs"), "").unwrap();
}

/// Adds a `harness = false` bench target `name` whose source is `source` to the package at
/// `repo` (not committed).
pub fn add_bench_target(repo: &Path, name: &str, source: &str) {
    std::fs::create_dir_all(repo.join("benches")).unwrap();
    std::fs::write(repo.join(format!("benches/{name}.rs")), source).unwrap();
    let manifest = std::fs::read_to_string(repo.join("Cargo.toml")).unwrap();
    std::fs::write(
        repo.join("Cargo.toml"),
        format!("{manifest}\n[[bench]]\nname = {name:?}\nharness = false\n"),
    )
    .unwrap();
}

/// Adds a criterion group `name` holding `functions` (`(id, closure body)`, the body receiving
/// `b: &mut Bencher`) to the demo's bench target.
pub fn add_bench_group(repo: &Path, name: &str, functions: &[(&str, &str)]) {
    let mut body = format!(
        "fn extra_{ident}(c: &mut Criterion) {{\n    let mut group = c.benchmark_group({name:?});\n",
        ident = name.replace(|c: char| !c.is_ascii_alphanumeric(), "_")
    );
    for (id, closure) in functions {
        body.push_str(&format!(
            "    group.bench_function({id:?}, |b| {{ {closure} }});\n"
        ));
    }
    body.push_str("    group.finish();\n}\n\n");
    let path = repo.join("benches/demo.rs");
    let text = std::fs::read_to_string(&path).unwrap();
    let (before, after) = text
        .split_once("criterion_group!(benches, ")
        .expect("the demo bench has a criterion_group!");
    let ident = name.replace(|c: char| !c.is_ascii_alphanumeric(), "_");
    std::fs::write(
        &path,
        format!("{before}{body}criterion_group!(benches, extra_{ident}, {after}"),
    )
    .unwrap();
}

/// The directory where cargo-perfdiff keeps the state of `workspace` (worktrees, bin, runs,
/// lock) when run through [`cargo_perfdiff`] (in the target directory of [`target_dir`]).
pub fn state_dir(workspace: &Path) -> PathBuf {
    cargo_perfdiff::orchestrate::run::state_dir(&target_dir(workspace), workspace)
}

/// Text that must never reach a user: panics, backtraces, Rust debug output.
pub const PANIC_TEXT: &[&str] = &[
    "panicked",
    "RUST_BACKTRACE",
    "stack backtrace",
    "Error {",
    "Os {",
];

/// Asserts that `text` holds none of [`PANIC_TEXT`].
pub fn assert_no_panic_text(text: &str) {
    for bad in PANIC_TEXT {
        assert!(!text.contains(bad), "{bad:?} in: {text}");
    }
}

/// The JSON report written to stdout.
pub fn json_report(output: &Output) -> serde_json::Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "no JSON report on stdout ({e}); exit {:?}, stderr: {}",
            output.status.code(),
            stderr(output)
        )
    })
}

/// The report entry of benchmark `id`.
pub fn bench_entry<'a>(report: &'a serde_json::Value, id: &str) -> &'a serde_json::Value {
    report["benchmarks"]
        .as_array()
        .expect("benchmarks array")
        .iter()
        .find(|b| b["id"] == id)
        .unwrap_or_else(|| panic!("{id} missing from {report:#}"))
}

/// The entry of benchmark `id` in `report`, asserting that it was measured, not failed, with
/// `forks` forks on each side.
pub fn measured_entry<'a>(
    report: &'a serde_json::Value,
    id: &str,
    forks: u64,
) -> &'a serde_json::Value {
    let entry = bench_entry(report, id);
    assert_eq!(entry["forks"]["base"], forks, "{id}: {entry:#}");
    assert_eq!(entry["forks"]["head"], forks, "{id}: {entry:#}");
    assert_ne!(entry["verdict"], "failed", "{id}: {entry:#}");
    entry
}

/// A demo repository shared by the tests of one test binary (created once per run under
/// `target/robustness/<name>`), so they reuse its worktrees and builds. Tests using it must hold
/// [`measuring_lock`] and leave it as they found it.
pub fn shared_demo_repo(name: &str) -> PathBuf {
    static CREATED: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/robustness")
        .join(name)
        .join("demo repo ü");
    let mut created = CREATED.lock().unwrap_or_else(|p| p.into_inner());
    if !created.iter().any(|n| n == name) {
        if repo.exists() {
            std::fs::remove_dir_all(&repo).unwrap();
        }
        create_demo_repo(&repo, &DemoOptions::default()).unwrap();
        created.push(name.to_string());
    }
    repo
}

/// A bench target of [`write_criterion_package`]: its name and its benchmarks, each a criterion
/// id (top-level, no group) and the rounds of work its iteration does.
pub type CriterionTarget<'a> = (&'a str, &'a [(&'a str, u64)]);

/// Writes a package `name` at `dir` with a criterion (0.5, as the demo's lock has it) bench
/// target for each of `targets`, its manifest ending in `extra` (not committed).
pub fn write_criterion_package(dir: &Path, name: &str, targets: &[CriterionTarget], extra: &str) {
    let criterion = "[dev-dependencies]\ncriterion = { version = \"0.5\", default-features = \
                     false, features = [\"cargo_bench_support\"] }\n";
    write_library_package(dir, name, &format!("{criterion}{extra}"));
    for (target, benchmarks) in targets {
        add_bench_target(dir, target, &criterion_source(benchmarks));
    }
}

/// The source of a criterion bench target defining `benchmarks` (id, rounds of work).
pub fn criterion_source(benchmarks: &[(&str, u64)]) -> String {
    let mut functions = String::new();
    for (id, rounds) in benchmarks {
        functions.push_str(&format!(
            "    c.bench_function({id:?}, |b| b.iter(|| work(black_box({rounds}))));\n"
        ));
    }
    format!(
        "use std::hint::black_box;\n\nuse criterion::{{criterion_group, criterion_main, Criterion}};\n\n\
         fn work(rounds: u64) -> u64 {{\n    let mut x = 0x9E37_79B9_7F4A_7C15_u64;\n    \
         for i in 0..rounds {{\n        x ^= x >> 29;\n        \
         x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9).wrapping_add(i);\n    }}\n    x\n}}\n\n\
         fn benches(c: &mut Criterion) {{\n{functions}}}\n\n\
         criterion_group!(group, benches);\ncriterion_main!(group);\n"
    )
}

/// A git repository at `repo` holding a virtual workspace of `members` (written by the caller
/// into `repo/<member>` through `write_members`), with the demo's `Cargo.lock` so criterion
/// resolves to what the other tests already built. Commits it as "base".
pub fn criterion_workspace_repo(repo: &Path, members: &[&str], write_members: impl FnOnce(&Path)) {
    std::fs::create_dir_all(repo).unwrap();
    git_ok(repo, &["init", "-q"]);
    write_workspace_manifest(repo, members);
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/criterion-demo/Cargo.lock"),
        repo.join("Cargo.lock"),
    )
    .unwrap();
    std::fs::write(repo.join(".gitignore"), "target/\n").unwrap();
    write_members(repo);
    commit_all(repo, "base");
}

/// The root manifest of a virtual workspace of `members`.
pub fn write_workspace_manifest(repo: &Path, members: &[&str]) {
    let members: Vec<String> = members.iter().map(|m| format!("{m:?}")).collect();
    std::fs::write(
        repo.join("Cargo.toml"),
        format!(
            "[workspace]\nmembers = [{}]\nresolver = \"2\"\n",
            members.join(", ")
        ),
    )
    .unwrap();
}

/// Tiny forks, one code layout, a wide threshold (the changes are 4× and 0.2×), at most six
/// forks a side per attempt: the bisection tests' settings.
pub const BISECT_FAST: &[&str] = &[
    "--warm-up-time",
    "0.05",
    "--measurement-time",
    "0.1",
    "--sample-size",
    "10",
    "--seed",
    "7",
    "--layouts",
    "1",
    "--threshold",
    "0.5",
    "--max-forks",
    "6",
];

/// Appends `text` to the repository's `NOTES.md` and commits it: a commit that changes no code.
pub fn write_notes(repo: &Path, text: &str) {
    let path = repo.join("NOTES.md");
    let mut notes = std::fs::read_to_string(&path).unwrap_or_default();
    notes.push_str(text);
    notes.push('\n');
    std::fs::write(path, notes).unwrap();
    commit_all(repo, &format!("docs: {text}"));
}

/// The executable of bench target `demo` in `layout` kept for `commit` (layout 0 is cargo's
/// build, in the bin directory itself).
pub fn layout_executable(repo: &Path, commit: &str, layout: usize) -> PathBuf {
    target_layout_executable(repo, commit, "demo", layout)
}

/// The executable of bench target `target` of `commit` in layout `layout` (cargo's build for 0).
pub fn target_layout_executable(repo: &Path, commit: &str, target: &str, layout: usize) -> PathBuf {
    let mut dir = state_dir(repo).join("bin").join(commit);
    if layout > 0 {
        dir = dir.join(format!("layout-{layout}"));
    }
    let prefix = format!("{target}-");
    std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|entry| entry.path())
        .find(|path| {
            path.is_file()
                && path
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with(&prefix))
        })
        .unwrap_or_else(|| panic!("no {target} executable in {}", dir.display()))
}

/// The layout each fork of `side` ran in, for every benchmark of the newest samples file.
pub fn fork_layouts(repo: &Path, side: &str) -> Vec<Vec<Option<u64>>> {
    let runs = state_dir(repo).join("runs");
    let newest = std::fs::read_dir(&runs)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .max_by_key(|p| std::fs::metadata(p).unwrap().modified().unwrap())
        .expect("a samples file");
    let samples: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(newest).unwrap()).unwrap();
    samples["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| !b[side]["forks"].as_array().unwrap().is_empty())
        .map(|b| {
            b[side]["forks"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f["layout"].as_u64())
                .collect()
        })
        .collect()
}
