//! The bundled demo: the fixture crate turned into a throwaway git repository with two commits
//! whose differences are known, so a newcomer sees a real verdict without a repository of their
//! own, and the integration tests have ground truth.
//!
//! The fixture's files are embedded in the binary, so `cargo install` users have them too.
//!
//! Between the base and the head commit (the same shape as a real pull request's suite):
//! - `hash/mix` does 1.1× the work (a 10 % regression),
//! - `hash/checksum` does 0.8× the work (a 20 % improvement),
//! - `hash/slight` does 1.03× the work (a 3 % regression, near the default threshold),
//! - `hash/steady` is unchanged,
//! - `hash/new_in_head` exists only in head.
//!
//! With criterion, `cargo perfdiff demo`'s head adds `new_in_head` in a bench target of its own (`benches/added.rs`), as
//! a pull request adding a benchmark file does, rather than to the `hash` group: registering one
//! more benchmark in a group changes the group's function, which every benchmark of the group
//! executes, so selection by reach (docs/selection.md) would have to measure `steady` too. This
//! way `steady` executes the same code on both sides and the demo shows it `unchanged (same
//! code)`; `--measure-all` measures it.
//!
//! The same crate comes with each harness cargo-perfdiff runs (`--harness`): criterion (the
//! default), divan, libtest `#[bench]` (nightly) and `bencher`, whose benchmarks are named
//! `demo::hash::mix` (divan) and `hash::mix` (libtest, bencher); `mixed` is a workspace with one
//! member per harness, all calling one library member, so every harness sees the same changes.
//!
//! `--program` is the demo of commands ([`crate::model::command`]): `fixtures/cli-demo`, a small
//! program whose head makes `hash` 1.2× the work and doubles the memory `table` fills, leaving
//! `steady` alone ([`create_program_demo_repo`]), compared with [`program_demo_commands`].

use std::fs;
use std::path::{Path, PathBuf};

/// Errors creating the demo repository.
#[derive(Debug, thiserror::Error)]
pub enum DemoError {
    #[error("cannot create the demo repository in {path}: {message}")]
    Create { path: PathBuf, message: String },
}

const CARGO_TOML: &str = include_str!("../../fixtures/criterion-demo/Cargo.toml");
const CARGO_LOCK: &str = include_str!("../../fixtures/criterion-demo/Cargo.lock");
const LIB_RS: &str = include_str!("../../fixtures/criterion-demo/src/lib.rs");
const BENCH_RS: &str = include_str!("../../fixtures/criterion-demo/benches/demo.rs");
const DIVAN_RS: &str = include_str!("../../fixtures/harness-demos/divan.rs");
const LIBTEST_RS: &str = include_str!("../../fixtures/harness-demos/libtest.rs");
const BENCHER_RS: &str = include_str!("../../fixtures/harness-demos/bencher.rs");
const DIVAN_LOCK: &str = include_str!("../../fixtures/harness-demos/divan.lock");
const BENCHER_LOCK: &str = include_str!("../../fixtures/harness-demos/bencher.lock");
const MIXED_LOCK: &str = include_str!("../../fixtures/harness-demos/mixed.lock");
const CLI_CARGO_TOML: &str = include_str!("../../fixtures/cli-demo/Cargo.toml");
const CLI_CARGO_LOCK: &str = include_str!("../../fixtures/cli-demo/Cargo.lock");
const CLI_MAIN_RS: &str = include_str!("../../fixtures/cli-demo/src/main.rs");

/// Where head adds a benchmark in every bench file.
const NEW_BENCHMARK_MARKER: &str = "    // perfdiff-demo: head adds a benchmark here\n";
/// Where head adds it to `bencher`'s group.
const BENCHER_GROUP_MARKER: &str = "    // perfdiff-demo: head adds it to the group here\n";

/// The benchmark harness of the demo crate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DemoHarness {
    /// criterion (its version set by `--criterion`)
    #[default]
    Criterion,
    /// divan
    Divan,
    /// libtest `#[bench]`, which needs a nightly toolchain: `cargo +nightly perfdiff demo`
    Libtest,
    /// the `bencher` crate
    Bencher,
    /// a workspace with one member per harness (the libtest one needs nightly, the rest are
    /// compared on stable)
    Mixed,
}

impl DemoHarness {
    /// The harnesses a single-harness crate can use, in `--harness` order.
    const SINGLE: [DemoHarness; 4] = [
        DemoHarness::Criterion,
        DemoHarness::Divan,
        DemoHarness::Libtest,
        DemoHarness::Bencher,
    ];

    fn name(self) -> &'static str {
        match self {
            DemoHarness::Criterion => "criterion",
            DemoHarness::Divan => "divan",
            DemoHarness::Libtest => "libtest",
            DemoHarness::Bencher => "bencher",
            DemoHarness::Mixed => "mixed",
        }
    }

    /// The bench file's source.
    fn bench_source(self) -> &'static str {
        match self {
            DemoHarness::Criterion | DemoHarness::Mixed => BENCH_RS,
            DemoHarness::Divan => DIVAN_RS,
            DemoHarness::Libtest => LIBTEST_RS,
            DemoHarness::Bencher => BENCHER_RS,
        }
    }

    /// The dev-dependency line of the harness, if it is a crate.
    fn dependency(self, criterion_version: &str) -> Option<String> {
        match self {
            DemoHarness::Criterion | DemoHarness::Mixed => Some(format!(
                "criterion = {{ version = \"{criterion_version}\", default-features = false, features = [\"cargo_bench_support\"] }}"
            )),
            DemoHarness::Divan => Some("divan = \"0.1\"".to_string()),
            DemoHarness::Libtest => None,
            DemoHarness::Bencher => Some("bencher = \"0.1\"".to_string()),
        }
    }

    /// Head's bench file: `source` with `new_in_head` added.
    fn with_new_benchmark(self, source: &str) -> String {
        let (function, group_entry) = match self {
            DemoHarness::Criterion | DemoHarness::Mixed => (
                "    group.bench_function(\"new_in_head\", |b| b.iter(|| mix(black_box(STEADY_ROUNDS / 2))));\n",
                "",
            ),
            DemoHarness::Divan => (
                "    #[divan::bench]\n    fn new_in_head() -> u64 {\n        super::mix(black_box(STEADY_ROUNDS / 2))\n    }\n",
                "",
            ),
            DemoHarness::Libtest => (
                "    #[bench]\n    fn new_in_head(b: &mut Bencher) {\n        b.iter(|| mix_rounds(STEADY_ROUNDS / 2));\n    }\n",
                "",
            ),
            DemoHarness::Bencher => (
                "    pub fn new_in_head(b: &mut Bencher) {\n        b.iter(|| mix_rounds(STEADY_ROUNDS / 2));\n    }\n",
                "    hash::new_in_head,\n",
            ),
        };
        source
            .replace(NEW_BENCHMARK_MARKER, function)
            .replace(BENCHER_GROUP_MARKER, group_entry)
    }
}

impl std::fmt::Display for DemoHarness {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Which changes the head commit makes, as multipliers of the base's work.
#[derive(Debug, Clone, PartialEq)]
pub struct DemoChanges {
    /// Work factor of `hash/mix` in head (1.1 = 10 % slower).
    pub mix: f64,
    /// Work factor of `hash/checksum` in head (0.8 = 20 % faster).
    pub checksum: f64,
    /// Work factor of `hash/slight` in head (1.03 = 3 % slower).
    pub slight: f64,
    /// Whether head adds `hash/new_in_head`.
    pub add_benchmark: bool,
    /// Whether criterion's `new_in_head` goes in a bench target of its own (`added`) rather than
    /// into the `hash` group; `cargo perfdiff demo` does this (see the module docs).
    pub new_benchmark_own_target: bool,
}

impl Default for DemoChanges {
    fn default() -> Self {
        DemoChanges {
            mix: 1.1,
            checksum: 0.8,
            slight: 1.03,
            add_benchmark: true,
            new_benchmark_own_target: false,
        }
    }
}

impl DemoChanges {
    /// Head changes no benchmark: every work factor 1, no benchmark added (a test then makes a
    /// head commit of its own).
    pub fn none() -> Self {
        DemoChanges {
            mix: 1.0,
            checksum: 1.0,
            slight: 1.0,
            add_benchmark: false,
            new_benchmark_own_target: false,
        }
    }
}

/// Options of the demo repository.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DemoOptions {
    pub changes: DemoChanges,
    /// Criterion version the fixture depends on (`"0.5"` by default; `"0.3"`, `"0.4"` and `"0.8"`
    /// also work).
    pub criterion_version: Option<String>,
    /// The benchmark harness (criterion by default).
    pub harness: DemoHarness,
}

/// Creates the demo repository in `dir` (which must be empty or absent): a base commit and a head
/// commit on branch `main`. Returns the repository path.
pub fn create_demo_repo(dir: &Path, options: &DemoOptions) -> Result<PathBuf, DemoError> {
    create_two_commits(
        dir,
        &base_files(options),
        |dir| apply_head_changes(dir, options),
        "head: mix 1.1x work, checksum 0.8x, slight 1.03x, new benchmark",
    )
}

/// What head changes in the program demo.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProgramChanges {
    /// Work factor of `democli hash` (1.2 = 20 % slower).
    pub hash: f64,
    /// Factor of the memory `democli table` fills (2.0 = twice the peak memory).
    pub table: f64,
    /// Whether `democli check` fails in head (exit code 1, a message on stderr).
    pub check_fails: bool,
}

impl Default for ProgramChanges {
    fn default() -> Self {
        ProgramChanges {
            hash: 1.2,
            table: 2.0,
            check_fails: false,
        }
    }
}

/// Creates the program demo repository in `dir` (empty or absent): `fixtures/cli-demo` as the
/// base commit, and head with `changes`. Returns the repository path.
pub fn create_program_demo_repo(
    dir: &Path,
    changes: &ProgramChanges,
) -> Result<PathBuf, DemoError> {
    create_two_commits(
        dir,
        &program_base_files(),
        |dir| {
            let main = scaled_constant(CLI_MAIN_RS, "HASH_ROUNDS", changes.hash);
            let mut main = scaled_constant(&main, "TABLE_BYTES", changes.table);
            if changes.check_fails {
                main = main.replace(
                    "fn check() -> Result<(), String> {\n    Ok(())",
                    "fn check() -> Result<(), String> {\n    Err(\"the input is corrupt\".to_string())",
                );
            }
            fs::write(dir.join("src/main.rs"), main)
        },
        &format!(
            "head: hash {}x work, table {}x memory{}",
            changes.hash,
            changes.table,
            if changes.check_fails {
                ", check fails"
            } else {
                ""
            }
        ),
    )
}

/// `source` with its constant `const NAME: u64 = VALUE;` multiplied by `factor`.
fn scaled_constant(source: &str, name: &str, factor: f64) -> String {
    let pattern =
        regex::Regex::new(&format!(r"(const {name}: u64 = )([0-9_]+);")).expect("a valid pattern");
    pattern
        .replace(source, |caps: &regex::Captures| {
            let value: u64 = caps[2].replace('_', "").parse().unwrap_or(0);
            format!("{}{};", &caps[1], (value as f64 * factor).round() as u64)
        })
        .into_owned()
}

/// The program demo's base commit, with its commands in a `perfdiff.toml`, so that a plain
/// `cargo perfdiff HEAD~1 HEAD` in it compares them.
fn program_base_files() -> Vec<(PathBuf, String)> {
    let mut config =
        "# The commands cargo perfdiff compares in this repository (docs/commands.md).\n"
            .to_string();
    for command in program_demo_commands() {
        config.push_str(&format!(
            "\n[[command]]\nname = {:?}\nrun = {:?}\n",
            command.name, command.run
        ));
    }
    vec![
        (".gitignore".into(), "/target\n".to_string()),
        ("perfdiff.toml".into(), config),
        ("Cargo.toml".into(), CLI_CARGO_TOML.to_string()),
        ("Cargo.lock".into(), CLI_CARGO_LOCK.to_string()),
        ("src/main.rs".into(), CLI_MAIN_RS.to_string()),
    ]
}

/// The commands the program demo compares: `hash` (slower in head), `table` (more memory in
/// head) and `steady` (unchanged).
pub fn program_demo_commands() -> Vec<crate::model::command::CommandSpec> {
    ["hash", "table", "steady"]
        .iter()
        .map(|name| crate::model::command::CommandSpec {
            name: (*name).to_string(),
            run: format!("{{bin}}/democli {name}"),
            ..Default::default()
        })
        .collect()
}

/// Writes `base` into `dir` (empty or absent) and commits it, then lets `head` change the files
/// and commits them with `head_message`, on branch `main`.
fn create_two_commits(
    dir: &Path,
    base: &[(PathBuf, String)],
    head: impl FnOnce(&Path) -> std::io::Result<()>,
    head_message: &str,
) -> Result<PathBuf, DemoError> {
    let fail = |message: String| DemoError::Create {
        path: dir.to_path_buf(),
        message,
    };
    if dir.exists()
        && fs::read_dir(dir)
            .map_err(|e| fail(e.to_string()))?
            .next()
            .is_some()
    {
        return Err(fail("the directory is not empty".to_string()));
    }
    write_files(dir, base).map_err(|e| fail(e.to_string()))?;
    let repo =
        git2::Repository::init_opts(dir, git2::RepositoryInitOptions::new().initial_head("main"))
            .map_err(|e| fail(e.message().to_string()))?;
    commit_all(&repo, "base: the fixture as it was").map_err(|e| fail(e.message().to_string()))?;
    head(dir).map_err(|e| fail(e.to_string()))?;
    commit_all(&repo, head_message).map_err(|e| fail(e.message().to_string()))?;
    Ok(dir.to_path_buf())
}

/// The files of the base commit, as (path, contents).
fn base_files(options: &DemoOptions) -> Vec<(PathBuf, String)> {
    let version = options.criterion_version.as_deref().unwrap_or("0.5");
    let mut files = vec![(PathBuf::from(".gitignore"), "/target\n".to_string())];
    match options.harness {
        DemoHarness::Criterion => {
            files.push(("Cargo.toml".into(), criterion_manifest(version)));
            if version == "0.5" {
                files.push(("Cargo.lock".into(), CARGO_LOCK.to_string()));
            }
            files.push(("src/lib.rs".into(), LIB_RS.to_string()));
            files.push(("benches/demo.rs".into(), BENCH_RS.to_string()));
        }
        DemoHarness::Divan | DemoHarness::Libtest | DemoHarness::Bencher => {
            let harness = options.harness;
            let manifest = package_manifest(
                "perfdiff-demo",
                harness.dependency(version).as_deref(),
                Some(("demo", harness)),
            );
            files.push(("Cargo.toml".into(), own_workspace(manifest)));
            match harness {
                DemoHarness::Divan => files.push(("Cargo.lock".into(), DIVAN_LOCK.to_string())),
                DemoHarness::Bencher => files.push(("Cargo.lock".into(), BENCHER_LOCK.to_string())),
                _ => {}
            }
            files.push(("src/lib.rs".into(), LIB_RS.to_string()));
            files.push(("benches/demo.rs".into(), harness.bench_source().to_string()));
        }
        DemoHarness::Mixed => files.extend(mixed_workspace_files(version)),
    }
    files
}

/// The criterion crate's manifest, with criterion `version`.
fn criterion_manifest(version: &str) -> String {
    CARGO_TOML.replace("version = \"0.5\"", &format!("version = \"{version}\""))
}

/// A virtual workspace: the library as member `kernel`, and member `<harness>` with bench target
/// `<harness>_demo` for every harness.
fn mixed_workspace_files(criterion_version: &str) -> Vec<(PathBuf, String)> {
    let members: Vec<String> = std::iter::once("kernel")
        .chain(DemoHarness::SINGLE.iter().map(|h| h.name()))
        .map(|m| format!("\"{m}\""))
        .collect();
    let mut files = vec![
        (
            PathBuf::from("Cargo.toml"),
            format!(
                "# The demo's benchmarks once per harness, all measuring the `kernel` library.\n\
                 [workspace]\nmembers = [{}]\nresolver = \"2\"\n",
                members.join(", ")
            ),
        ),
        (
            "kernel/Cargo.toml".into(),
            package_manifest("perfdiff-demo", None, None),
        ),
        ("kernel/src/lib.rs".into(), LIB_RS.to_string()),
    ];
    if criterion_version == "0.5" {
        files.push(("Cargo.lock".into(), MIXED_LOCK.to_string()));
    }
    for harness in DemoHarness::SINGLE {
        let name = harness.name();
        let kernel = "perfdiff-demo = { path = \"../kernel\" }";
        let dependencies = match harness.dependency(criterion_version) {
            Some(dependency) => format!("{kernel}\n{dependency}"),
            None => kernel.to_string(),
        };
        let target = format!("{name}_demo");
        files.push((
            format!("{name}/Cargo.toml").into(),
            package_manifest(
                &format!("perfdiff-demo-{name}"),
                Some(&dependencies),
                Some((&target, harness)),
            ),
        ));
        files.push((
            format!("{name}/src/lib.rs").into(),
            format!("//! Only the {name} benchmarks of the demo.\n"),
        ));
        files.push((
            format!("{name}/benches/{target}.rs").into(),
            harness.bench_source().to_string(),
        ));
    }
    files
}

/// A package manifest with `dev_dependencies` and, if given, one bench target of `harness`.
fn package_manifest(
    name: &str,
    dev_dependencies: Option<&str>,
    bench: Option<(&str, DemoHarness)>,
) -> String {
    let mut manifest = format!(
        "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\npublish = false\n"
    );
    if let Some(dependencies) = dev_dependencies {
        manifest.push_str(&format!("\n[dev-dependencies]\n{dependencies}\n"));
    }
    if let Some((target, harness)) = bench {
        // libtest is the default harness: only the others need `harness = false`.
        let harness_line = match harness {
            DemoHarness::Libtest => "",
            _ => "harness = false\n",
        };
        manifest.push_str(&format!("\n[[bench]]\nname = \"{target}\"\n{harness_line}"));
    }
    manifest
}

/// `manifest` as a workspace of its own, wherever it is copied.
fn own_workspace(manifest: String) -> String {
    format!("{manifest}\n# Its own workspace, wherever it is copied.\n[workspace]\n")
}

fn write_files(dir: &Path, files: &[(PathBuf, String)]) -> std::io::Result<()> {
    for (path, contents) in files {
        let path = dir.join(path);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)?;
        }
        fs::write(path, contents)?;
    }
    Ok(())
}

/// The head commit's source: constants scaled, and optionally one more benchmark.
fn apply_head_changes(dir: &Path, options: &DemoOptions) -> std::io::Result<()> {
    let changes = &options.changes;
    let scale = |text: String, name: &str, base: u64, factor: f64| {
        let scaled = (base as f64 * factor).round() as u64;
        text.replace(
            &format!("pub const {name}: u64 = {base};"),
            &format!("pub const {name}: u64 = {scaled};"),
        )
    };
    let lib = scale(LIB_RS.to_string(), "MIX_ROUNDS", 2000, changes.mix);
    let lib = scale(lib, "CHECKSUM_ROUNDS", 2500, changes.checksum);
    let lib = scale(lib, "SLIGHT_ROUNDS", 3000, changes.slight);
    let bench_files: Vec<(PathBuf, DemoHarness)> = match options.harness {
        DemoHarness::Mixed => {
            fs::write(dir.join("kernel/src/lib.rs"), lib)?;
            DemoHarness::SINGLE
                .iter()
                .map(|&h| (format!("{0}/benches/{0}_demo.rs", h.name()).into(), h))
                .collect()
        }
        single => {
            fs::write(dir.join("src/lib.rs"), lib)?;
            vec![("benches/demo.rs".into(), single)]
        }
    };
    if changes.add_benchmark
        && changes.new_benchmark_own_target
        && options.harness == DemoHarness::Criterion
    {
        return add_criterion_bench_target(dir);
    }
    if changes.add_benchmark {
        for (file, harness) in bench_files {
            let source = fs::read_to_string(dir.join(&file))?;
            fs::write(dir.join(&file), harness.with_new_benchmark(&source))?;
        }
    }
    Ok(())
}

/// Head's `new_in_head` for criterion: a second bench target, `added`, so that the `demo`
/// target's code is untouched apart from the constants head scales.
fn add_criterion_bench_target(dir: &Path) -> std::io::Result<()> {
    let manifest = fs::read_to_string(dir.join("Cargo.toml"))?;
    let manifest = format!("{manifest}\n[[bench]]\nname = \"added\"\nharness = false\n");
    fs::write(dir.join("Cargo.toml"), manifest)?;
    let source = BENCH_RS
        .replace(
            "use perfdiff_demo::{mix, CHECKSUM_ROUNDS, MIX_ROUNDS, SLIGHT_ROUNDS, STEADY_ROUNDS};",
            "use perfdiff_demo::{mix, STEADY_ROUNDS};",
        )
        .lines()
        .filter(|line| !line.contains("group.bench_function("))
        .collect::<Vec<_>>()
        .join("\n");
    let source = DemoHarness::Criterion.with_new_benchmark(&format!("{source}\n"));
    fs::write(dir.join("benches/added.rs"), source)
}

fn commit_all(repo: &git2::Repository, message: &str) -> Result<git2::Oid, git2::Error> {
    let mut index = repo.index()?;
    index.add_all(["*"], git2::IndexAddOption::DEFAULT, None)?;
    index.write()?;
    let tree = repo.find_tree(index.write_tree()?)?;
    let signature = git2::Signature::now("cargo-perfdiff demo", "demo@cargo-perfdiff.invalid")?;
    let parent = repo.head().ok().and_then(|h| h.peel_to_commit().ok());
    let parents: Vec<&git2::Commit> = parent.iter().collect();
    repo.commit(
        Some("HEAD"),
        &signature,
        &signature,
        message,
        &tree,
        &parents,
    )
}

/// The directory of `cargo perfdiff demo`: `dir` if given (created if absent, reused if it already
/// holds the same demo), else a fresh directory under the system's temporary directory. Returns
/// the repository path and whether it was newly created.
/// With `program`, the program demo ([`create_program_demo_repo`]) in place of the benchmarks'.
pub fn prepare_demo_dir(
    dir: Option<&Path>,
    criterion_version: &str,
    harness: DemoHarness,
    program: bool,
) -> Result<(PathBuf, bool), DemoError> {
    let mut options = DemoOptions {
        criterion_version: Some(criterion_version.to_string()),
        harness,
        ..DemoOptions::default()
    };
    options.changes.new_benchmark_own_target = true;
    let base = match program {
        true => program_base_files(),
        false => base_files(&options),
    };
    let dir = match dir {
        Some(dir) => dir.to_path_buf(),
        None => {
            let parent = tempfile::Builder::new()
                .prefix("cargo-perfdiff-demo-")
                .tempdir()
                .map_err(|e| DemoError::Create {
                    path: std::env::temp_dir(),
                    message: e.to_string(),
                })?;
            parent.keep().join("demo")
        }
    };
    if is_demo_repo(&dir, &base) {
        return Ok((dir, false));
    }
    match program {
        true => create_program_demo_repo(&dir, &ProgramChanges::default()),
        false => create_demo_repo(&dir, &options),
    }
    .map(|path| (path, true))
}

/// True when `dir` already holds the demo repository whose base commit is `base` (so `--dir` can
/// be reused between runs): its manifest, which head does not change, is the one the demo writes.
fn is_demo_repo(dir: &Path, base: &[(PathBuf, String)]) -> bool {
    let expected = base
        .iter()
        .find(|(path, _)| path == Path::new("Cargo.toml"))
        .map(|(_, manifest)| manifest);
    dir.join(".git").exists()
        && fs::read_to_string(dir.join("Cargo.toml")).ok().as_ref() == expected
}

/// Settings of the demo run: the defaults, which are what a user gets.
pub fn demo_settings() -> crate::config::Settings {
    crate::config::Settings::default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demo_repo_has_two_commits_with_the_known_changes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("demo");
        create_demo_repo(&path, &DemoOptions::default()).unwrap();
        let repo = git2::Repository::open(&path).unwrap();
        let head = repo.head().unwrap().peel_to_commit().unwrap();
        assert_eq!(head.parent_count(), 1);
        let lib = fs::read_to_string(path.join("src/lib.rs")).unwrap();
        assert!(lib.contains("pub const MIX_ROUNDS: u64 = 2200;"));
        assert!(lib.contains("pub const SLIGHT_ROUNDS: u64 = 3090;"));
        assert!(lib.contains("pub const CHECKSUM_ROUNDS: u64 = 2000;"));
        assert!(lib.contains("pub const STEADY_ROUNDS: u64 = 2000;"));
        let bench = fs::read_to_string(path.join("benches/demo.rs")).unwrap();
        assert!(bench.contains("new_in_head"));
        let statuses = repo.statuses(None).unwrap();
        assert!(statuses.is_empty(), "the demo repository is clean");
    }

    #[test]
    fn the_program_demo_scales_its_constants_in_head() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p");
        let changes = ProgramChanges {
            check_fails: true,
            ..ProgramChanges::default()
        };
        create_program_demo_repo(&path, &changes).unwrap();
        let main = fs::read_to_string(path.join("src/main.rs")).unwrap();
        assert!(
            main.contains("const HASH_ROUNDS: u64 = 48000000;"),
            "{main}"
        );
        assert!(
            main.contains("const TABLE_BYTES: u64 = 33554432;"),
            "{main}"
        );
        assert!(main.contains("the input is corrupt"), "{main}");
        let repo = git2::Repository::open(&path).unwrap();
        let head = repo.head().unwrap().peel_to_commit().unwrap();
        assert_eq!(head.parent_count(), 1);
        assert!(head.message().unwrap().contains("hash 1.2x work"));
        assert_eq!(program_demo_commands().len(), 3);
        let config = crate::config::load(&path, Default::default()).unwrap();
        assert_eq!(config.settings.commands, program_demo_commands());
    }

    #[test]
    fn demo_refuses_a_non_empty_directory() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("keep.txt"), "mine").unwrap();
        let err = create_demo_repo(dir.path(), &DemoOptions::default()).unwrap_err();
        assert!(err.to_string().contains("not empty"));
        assert_eq!(
            fs::read_to_string(dir.path().join("keep.txt")).unwrap(),
            "mine"
        );
    }

    #[test]
    fn every_harness_gets_the_same_changes_and_a_new_benchmark() {
        for harness in [
            DemoHarness::Divan,
            DemoHarness::Libtest,
            DemoHarness::Bencher,
        ] {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("demo");
            let options = DemoOptions {
                harness,
                ..Default::default()
            };
            create_demo_repo(&path, &options).unwrap();
            let lib = fs::read_to_string(path.join("src/lib.rs")).unwrap();
            assert!(
                lib.contains("pub const MIX_ROUNDS: u64 = 2200;"),
                "{harness}"
            );
            let bench = fs::read_to_string(path.join("benches/demo.rs")).unwrap();
            assert!(bench.contains("fn new_in_head"), "{harness}: {bench}");
            assert!(!bench.contains("perfdiff-demo: head adds"), "{harness}");
            let manifest = fs::read_to_string(path.join("Cargo.toml")).unwrap();
            assert_eq!(
                manifest.contains("harness = false"),
                harness != DemoHarness::Libtest,
                "{manifest}"
            );
            assert_eq!(
                path.join("Cargo.lock").exists(),
                harness != DemoHarness::Libtest
            );
            assert!(is_demo_repo(&path, &base_files(&options)));
            let criterion = DemoOptions::default();
            assert!(
                !is_demo_repo(&path, &base_files(&criterion)),
                "another harness's demo is not reused"
            );
        }
    }

    #[test]
    fn the_bencher_demo_adds_its_new_benchmark_to_the_group() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("demo");
        let options = DemoOptions {
            harness: DemoHarness::Bencher,
            ..Default::default()
        };
        create_demo_repo(&path, &options).unwrap();
        let names = crate::model::harness::bencher::list_from_source(&path.join("benches/demo.rs"));
        assert_eq!(
            names.unwrap(),
            [
                "hash::checksum",
                "hash::mix",
                "hash::new_in_head",
                "hash::slight",
                "hash::steady"
            ]
        );
    }

    #[test]
    fn the_mixed_demo_is_a_workspace_of_one_member_per_harness() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("demo");
        let options = DemoOptions {
            harness: DemoHarness::Mixed,
            ..Default::default()
        };
        create_demo_repo(&path, &options).unwrap();
        let root = fs::read_to_string(path.join("Cargo.toml")).unwrap();
        assert!(
            root.contains(r#"members = ["kernel", "criterion", "divan", "libtest", "bencher"]"#)
        );
        let kernel = fs::read_to_string(path.join("kernel/src/lib.rs")).unwrap();
        assert!(kernel.contains("pub const CHECKSUM_ROUNDS: u64 = 2000;"));
        for harness in DemoHarness::SINGLE {
            let member = path.join(harness.name());
            let manifest = fs::read_to_string(member.join("Cargo.toml")).unwrap();
            assert!(manifest.contains(r#"path = "../kernel""#), "{manifest}");
            let bench = member.join(format!("benches/{}_demo.rs", harness.name()));
            assert!(fs::read_to_string(bench).unwrap().contains("new_in_head"));
        }
        assert!(path.join("Cargo.lock").exists());
    }

    #[test]
    fn criterion_version_can_be_switched() {
        let dir = tempfile::tempdir().unwrap();
        let options = DemoOptions {
            criterion_version: Some("0.8".to_string()),
            ..Default::default()
        };
        create_demo_repo(&dir.path().join("d"), &options).unwrap();
        let manifest = fs::read_to_string(dir.path().join("d/Cargo.toml")).unwrap();
        assert!(manifest.contains("version = \"0.8\""));
        assert!(!dir.path().join("d/Cargo.lock").exists());
    }
}
