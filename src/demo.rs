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

use std::fs;
use std::path::{Path, PathBuf};

/// Errors creating the demo repository.
#[derive(Debug, thiserror::Error)]
pub enum DemoError {
    #[error("cannot create the demo repository in {path}: {message}")]
    Create { path: PathBuf, message: String },
}

const CARGO_TOML: &str = include_str!("../fixtures/criterion-demo/Cargo.toml");
const CARGO_LOCK: &str = include_str!("../fixtures/criterion-demo/Cargo.lock");
const LIB_RS: &str = include_str!("../fixtures/criterion-demo/src/lib.rs");
const BENCH_RS: &str = include_str!("../fixtures/criterion-demo/benches/demo.rs");

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
}

impl Default for DemoChanges {
    fn default() -> Self {
        DemoChanges {
            mix: 1.1,
            checksum: 0.8,
            slight: 1.03,
            add_benchmark: true,
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
}

/// Creates the demo repository in `dir` (which must be empty or absent): a base commit and a head
/// commit on branch `main`. Returns the repository path.
pub fn create_demo_repo(dir: &Path, options: &DemoOptions) -> Result<PathBuf, DemoError> {
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
    write_base(dir, options).map_err(|e| fail(e.to_string()))?;
    let repo =
        git2::Repository::init_opts(dir, git2::RepositoryInitOptions::new().initial_head("main"))
            .map_err(|e| fail(e.message().to_string()))?;
    commit_all(&repo, "base: the fixture as it was").map_err(|e| fail(e.message().to_string()))?;
    apply_head_changes(dir, &options.changes).map_err(|e| fail(e.to_string()))?;
    commit_all(
        &repo,
        "head: mix 1.1x work, checksum 0.8x, slight 1.03x, new benchmark",
    )
    .map_err(|e| fail(e.message().to_string()))?;
    Ok(dir.to_path_buf())
}

fn write_base(dir: &Path, options: &DemoOptions) -> std::io::Result<()> {
    fs::create_dir_all(dir.join("src"))?;
    fs::create_dir_all(dir.join("benches"))?;
    let (manifest, lock) = match options.criterion_version.as_deref() {
        None | Some("0.5") => (CARGO_TOML.to_string(), Some(CARGO_LOCK)),
        Some(version) => (
            CARGO_TOML.replace("version = \"0.5\"", &format!("version = \"{version}\"")),
            None,
        ),
    };
    fs::write(dir.join("Cargo.toml"), manifest)?;
    if let Some(lock) = lock {
        fs::write(dir.join("Cargo.lock"), lock)?;
    }
    fs::write(dir.join("src/lib.rs"), LIB_RS)?;
    fs::write(dir.join("benches/demo.rs"), BENCH_RS)?;
    fs::write(dir.join(".gitignore"), "/target\n")?;
    Ok(())
}

/// The head commit's source: constants scaled, and optionally one more benchmark.
fn apply_head_changes(dir: &Path, changes: &DemoChanges) -> std::io::Result<()> {
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
    fs::write(dir.join("src/lib.rs"), lib)?;
    if changes.add_benchmark {
        let bench = BENCH_RS.replace(
            "    // perfdiff-demo: head adds a benchmark here\n",
            "    group.bench_function(\"new_in_head\", |b| b.iter(|| mix(black_box(STEADY_ROUNDS / 2))));\n",
        );
        fs::write(dir.join("benches/demo.rs"), bench)?;
    }
    Ok(())
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
/// holds the demo), else a fresh directory under the system's temporary directory. Returns the
/// repository path and whether it was newly created.
pub fn prepare_demo_dir(
    dir: Option<&Path>,
    criterion_version: &str,
) -> Result<(PathBuf, bool), DemoError> {
    let options = DemoOptions {
        criterion_version: Some(criterion_version.to_string()),
        ..DemoOptions::default()
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
    if is_demo_repo(&dir) {
        return Ok((dir, false));
    }
    create_demo_repo(&dir, &options).map(|path| (path, true))
}

/// True when `dir` already holds a demo repository (so `--dir` can be reused between runs).
fn is_demo_repo(dir: &Path) -> bool {
    dir.join(".git").exists()
        && fs::read_to_string(dir.join("Cargo.toml"))
            .is_ok_and(|m| m.contains("name = \"perfdiff-demo\""))
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
