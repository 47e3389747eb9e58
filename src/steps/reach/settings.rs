//! The build settings of the two sides, compared: a benchmark is skipped only when they agree.
//!
//! Why: the same source built with other settings is other code, and most such differences
//! show in the compared code already (another opt-level, another target CPU, a feature that
//! changes `-C metadata` and so every symbol's name). Not all of them: `panic`, `overflow-checks`
//! or `debug-assertions` may leave the benchmark's own functions alike and change what they call;
//! a `rust-toolchain.toml` names another compiler for one side; cargo's `[env]` gives the bench
//! process another environment. Both sides are built by one cargo, with one command line and one
//! environment, so what can differ is what the checkouts say: the profiles of the workspace's
//! manifest, cargo's configuration files, the toolchain file, and the environment and library
//! directories the build hands each bench process. Any difference measures every benchmark of
//! the target, and says which.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Files of a checkout whose content chooses how it is built, besides the manifests' profiles.
const SETTINGS_FILES: &[&str] = &[
    ".cargo/config.toml",
    ".cargo/config",
    "rust-toolchain.toml",
    "rust-toolchain",
];

/// One side's build, as far as its settings go.
#[derive(Debug, Clone, Copy)]
pub struct SideSettings<'a> {
    /// The checkout's root.
    pub checkout: &'a Path,
    /// The workspace's root inside the checkout (where its manifest is).
    pub workspace: &'a Path,
    /// What cargo adds to the bench process's environment ([`crate::steps::build::cargo_env`]).
    pub env: &'a [(OsString, OsString)],
    /// Library directories put first on the bench process's search path.
    pub library_dirs: &'a [PathBuf],
}

/// The build settings that differ between `base` and `head`, one short phrase each (empty: the
/// same settings).
pub fn differences(base: &SideSettings<'_>, head: &SideSettings<'_>) -> Vec<String> {
    let mut found = Vec::new();
    let roots = [base.checkout, base.workspace];
    let relative: Vec<PathBuf> = roots
        .iter()
        .filter_map(|root| root.strip_prefix(base.checkout).ok())
        .flat_map(|dir| SETTINGS_FILES.iter().map(move |file| dir.join(file)))
        .collect();
    for file in relative {
        if read(&base.checkout.join(&file)) != read(&head.checkout.join(&file)) {
            found.push(format!("{} differs", file.display()));
        }
    }
    if profiles(base.workspace) != profiles(head.workspace) {
        found.push("the workspace manifest's [profile] differs".to_string());
    }
    if relocated(base.env, base.checkout) != relocated(head.env, head.checkout) {
        found.push("the bench process's environment from cargo differs".to_string());
    }
    let dirs = |side: &SideSettings<'_>| -> Vec<PathBuf> {
        side.library_dirs
            .iter()
            .map(|dir| dir.strip_prefix(side.checkout).unwrap_or(dir).to_path_buf())
            .collect()
    };
    if dirs(base) != dirs(head) {
        found.push("the native library directories differ".to_string());
    }
    found.sort();
    found.dedup();
    found
}

/// A file's bytes, `None` when it is not there (or not readable, which then differs from a
/// readable one on the other side).
fn read(path: &Path) -> Option<Vec<u8>> {
    std::fs::read(path).ok()
}

/// The `[profile]` table of the manifest in `workspace`, parsed (so that formatting and comments
/// do not count); `None` without one, or without a readable manifest.
fn profiles(workspace: &Path) -> Option<toml::Value> {
    let text = std::fs::read_to_string(workspace.join("Cargo.toml")).ok()?;
    let manifest: toml::Table = text.parse().ok()?;
    manifest.get("profile").cloned()
}

/// The environment with the side's checkout written as `{checkout}` (`CARGO_MANIFEST_DIR` and the
/// like name each side's own checkout; the same place in both is no difference).
fn relocated(env: &[(OsString, OsString)], checkout: &Path) -> Vec<(OsString, String)> {
    let root = checkout.to_string_lossy().into_owned();
    env.iter()
        .map(|(key, value)| {
            let value = value.to_string_lossy().replace(&root, "{checkout}");
            (key.clone(), value)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checkout(dir: &Path, manifest: &str) -> PathBuf {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
        dir.to_path_buf()
    }

    const MANIFEST: &str = "[package]\nname = \"demo\"\n\n[profile.bench]\nopt-level = 3\n";

    fn differences_of(base: &Path, head: &Path, env: [&[(OsString, OsString)]; 2]) -> Vec<String> {
        fn side<'a>(root: &'a Path, env: &'a [(OsString, OsString)]) -> SideSettings<'a> {
            SideSettings {
                checkout: root,
                workspace: root,
                env,
                library_dirs: &[],
            }
        }
        differences(&side(base, env[0]), &side(head, env[1]))
    }

    #[test]
    fn the_same_settings_in_two_checkouts_do_not_differ() {
        let dir = tempfile::tempdir().unwrap();
        let base = checkout(&dir.path().join("base"), MANIFEST);
        let head = checkout(
            &dir.path().join("head"),
            &format!("# a comment\n{MANIFEST}"),
        );
        let env = |root: &Path| vec![(OsString::from("CARGO_MANIFEST_DIR"), root.into())];
        let (b, h) = (env(&base), env(&head));
        assert_eq!(differences_of(&base, &head, [&b, &h]), Vec::<String>::new());
    }

    #[test]
    fn a_profile_a_toolchain_file_or_cargo_s_environment_differs() {
        let dir = tempfile::tempdir().unwrap();
        let base = checkout(&dir.path().join("base"), MANIFEST);
        let head = checkout(
            &dir.path().join("head"),
            &MANIFEST.replace("opt-level = 3", "opt-level = 2"),
        );
        std::fs::write(head.join("rust-toolchain.toml"), "[toolchain]\n").unwrap();
        let b = vec![(OsString::from("MODE"), OsString::from("a"))];
        let h = vec![(OsString::from("MODE"), OsString::from("b"))];
        let found = differences_of(&base, &head, [&b, &h]);
        assert_eq!(found.len(), 3, "{found:?}");
        assert!(found.iter().any(|f| f.contains("rust-toolchain.toml")));
        assert!(found.iter().any(|f| f.contains("[profile]")));
        assert!(found.iter().any(|f| f.contains("environment")));
    }
}
