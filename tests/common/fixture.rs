//! Building the fixture crates under `fixtures/` into real criterion bench executables, once per
//! test run, for tests that run real forks.
//!
//! Declared once per test binary (`#[path = "common/fixture.rs"] mod fixture;` in its root file),
//! used from its modules with `use crate::fixture;`, then `fixture::criterion_demo()` or
//! `fixture::failing_benches()`.
//!
//! Each fixture is copied to `<repo>/target/test-fixtures/<name>` (outside the repository's own
//! workspace, and never inside `fixtures/`) and built with `cargo bench --no-run` into the shared
//! target directory `<repo>/target/test-fixture-builds`. Criterion is therefore compiled once
//! across all test runs and test binaries; later builds take a second. Copies are written only
//! when their content changed, via rename, so concurrent test binaries do not trip over each
//! other, and cargo's own lock serialises the builds.
#![allow(dead_code)]

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// A built fixture crate.
#[derive(Debug, Clone)]
pub struct Fixture {
    /// The copied crate: the working directory its benchmarks run in.
    pub dir: PathBuf,
    /// The bench executable.
    pub executable: PathBuf,
}

/// `fixtures/criterion-demo`, bench target `demo` (`hash/mix`, `hash/checksum`, `hash/steady`).
pub fn criterion_demo() -> &'static Fixture {
    static BUILT: OnceLock<Fixture> = OnceLock::new();
    BUILT.get_or_init(|| build("criterion-demo", "demo"))
}

/// `fixtures/failing-benches`, bench target `failing` (`fail/panics`, `fail/exits`,
/// `fail/hangs`, `ok/fast`, `ok/sleeps`, `own/settings`).
pub fn failing_benches() -> &'static Fixture {
    static BUILT: OnceLock<Fixture> = OnceLock::new();
    BUILT.get_or_init(|| build("failing-benches", "failing"))
}

impl Fixture {
    /// This fixture's bench executable as a build hands it on: target `target` of `package`,
    /// its source `benches/<target>.rs`, no layouts, not libtest's harness.
    pub fn bench_executable(
        &self,
        package: &str,
        target: &str,
    ) -> cargo_perfdiff::steps::build::BenchExecutable {
        cargo_perfdiff::steps::build::BenchExecutable {
            package: package.into(),
            target: target.into(),
            path: self.executable.clone(),
            layouts: Vec::new(),
            relink: None,
            relink_missing: None,
            package_root: self.dir.clone(),
            manifest_path: self.dir.join("Cargo.toml"),
            harness: false,
            package_version: "0.1.0".into(),
            cargo_env: Vec::new(),
            native_library_dirs: Vec::new(),
            build_out_dirs: Vec::new(),
            src_path: self.dir.join(format!("benches/{target}.rs")),
        }
    }

    /// What divan's test mode (`--test`, as selection's trace runs it) prints for benchmark `id`
    /// alone; panics when the run fails.
    pub fn divan_test_mode_stdout(&self, id: &str) -> String {
        let mut args = vec!["--test".to_string()];
        args.extend(cargo_perfdiff::model::harness::divan::select_args(id));
        let output = std::process::Command::new(&self.executable)
            .args(&args)
            .current_dir(&self.dir)
            .output()
            .unwrap();
        assert!(output.status.success(), "{id}: {output:?}");
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// A short divan fork of benchmark `id` (10 ms warm-up, 50 ms measuring), in the fixture's
    /// directory, its criterion home `home`.
    pub fn divan_fork(&self, id: &str, home: &Path) -> cargo_perfdiff::steps::fork::ForkRequest {
        cargo_perfdiff::steps::fork::ForkRequest {
            executable: self.executable.clone(),
            cwd: self.dir.clone(),
            env: vec![],
            benchmark_id: id.to_string(),
            harness: cargo_perfdiff::model::harness::Harness::Divan,
            warm_up: std::time::Duration::from_millis(10),
            measurement: std::time::Duration::from_millis(50),
            sample_size: 10,
            harness_sample_size: None,
            timeout: std::time::Duration::from_secs(60),
            criterion_home: home.to_path_buf(),
            cpu: None,
            command: None,
        }
    }
}

/// The repository root (this crate's manifest directory).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Copies `fixtures/<name>` and builds its `[[bench]]` target `bench`; panics with cargo's output
/// if that fails (a test environment problem, not a test result).
pub fn build(name: &str, bench: &str) -> Fixture {
    build_with(name, bench, &[])
}

/// [`build`] of bench target `bench` alone (`--bench`): a fixture whose other targets need what
/// the test does not (`trace-fixture`'s libtest `#[bench]` target needs a nightly toolchain).
pub fn build_target(name: &str, bench: &str) -> Fixture {
    build_with(name, bench, &["--bench", bench])
}

fn build_with(name: &str, bench: &str, args: &[&str]) -> Fixture {
    let root = repo_root();
    let source = root.join("fixtures").join(name);
    let dir = root.join("target/test-fixtures").join(name);
    copy_tree(&source, &dir)
        .unwrap_or_else(|e| panic!("cannot copy {} to {}: {e}", source.display(), dir.display()));
    let target_dir = root.join("target/test-fixture-builds");
    // Offline first: the registry cache normally has everything and the network may be absent.
    let output = cargo_bench_no_run(&dir, &target_dir, true, args);
    let output = if output.status.success() {
        output
    } else {
        cargo_bench_no_run(&dir, &target_dir, false, args)
    };
    assert!(
        output.status.success(),
        "building fixture {name} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let executable = bench_executable(&output.stdout, bench).unwrap_or_else(|| {
        panic!("cargo built fixture {name} but reported no executable for bench target {bench}")
    });
    Fixture { dir, executable }
}

fn cargo_bench_no_run(
    dir: &Path,
    target_dir: &Path,
    offline: bool,
    args: &[&str],
) -> std::process::Output {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .args(["bench", "--no-run", "--message-format=json"])
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target_dir);
    if offline {
        command.arg("--offline");
    }
    command
        .output()
        .unwrap_or_else(|e| panic!("cannot run cargo in {}: {e}", dir.display()))
}

/// The executable of bench target `bench` in cargo's JSON messages.
fn bench_executable(messages: &[u8], bench: &str) -> Option<PathBuf> {
    String::from_utf8_lossy(messages)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|message| message["reason"] == "compiler-artifact")
        .filter(|message| message["target"]["name"] == bench)
        .filter(|message| {
            message["target"]["kind"]
                .as_array()
                .is_some_and(|kinds| kinds.iter().any(|kind| kind == "bench"))
        })
        .find_map(|message| message["executable"].as_str().map(PathBuf::from))
}

/// Mirrors `from` into `to`, skipping `target/`; files are replaced only when they differ.
fn copy_tree(from: &Path, to: &Path) -> io::Result<()> {
    fs::create_dir_all(to)?;
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let name = entry.file_name();
        if name == "target" {
            continue;
        }
        let (source, destination) = (entry.path(), to.join(&name));
        if entry.file_type()?.is_dir() {
            copy_tree(&source, &destination)?;
        } else {
            copy_if_changed(&source, &destination)?;
        }
    }
    Ok(())
}

fn copy_if_changed(source: &Path, destination: &Path) -> io::Result<()> {
    let content = fs::read(source)?;
    if fs::read(destination).ok().as_deref() == Some(content.as_slice()) {
        return Ok(());
    }
    let temporary = destination.with_extension(format!("tmp{}", std::process::id()));
    fs::write(&temporary, &content)?;
    fs::rename(&temporary, destination)
}
