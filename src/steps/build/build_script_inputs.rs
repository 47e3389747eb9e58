//! Which build scripts must run again: a package's build script reruns when any file of its
//! package changed, whatever the script told cargo to watch.
//!
//! # Why
//!
//! Cargo reruns a build script when a file of its package changes only while the script prints no
//! `rerun-if-changed` and no `rerun-if-env-changed` line; once it prints one, cargo watches those
//! alone. The `cc` crate prints `rerun-if-env-changed` for every variable it reads (`CC`,
//! `CFLAGS`, … : 808 lines for capstone-sys), so a `-sys` crate whose own script names no file
//! has cargo watch no file at all: its C sources can change and cargo takes the build script's
//! last output as fresh. Both sides of a comparison build into one target directory, so head was
//! linked with base's C library (capstone-rs's "bump capstone to 5.0.7" changes `SStream.c` and
//! `cs.c`: both builds "up to date", every benchmark "same code"). A script that watches only
//! `build.rs` or a directory other than the one that changed does the same.
//!
//! # How
//!
//! [`super::freshness::mark_changed`] gives every file that differs from the last build a new
//! modification time. For each such file, the package that holds it (the nearest directory above
//! it with a `Cargo.toml`: cargo leaves a directory with a manifest of its own out of the package
//! above) is found, and its build script's source
//! file (`build = "…"`, else `build.rs` where it exists; none with `build = false`) is marked too:
//! cargo then compiles the script again and, its executable being newer than its last run, runs it
//! again, as a fresh checkout of that revision would. This is cargo's own rule for scripts that
//! watch nothing, applied whatever they watch: a Rust-only change to a `-sys` crate's own files
//! reruns its script too (the same C then compiles to the same code); a change in another package
//! reruns nothing.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

/// The build-script source files (relative to the checkout `root`, `/`-separated) of the packages
/// holding any of `changed` (relative paths of files in `files`, the checkout's files).
pub fn of_packages_holding<'a>(
    root: &Path,
    files: &BTreeMap<String, u64>,
    changed: impl IntoIterator<Item = &'a String>,
) -> BTreeSet<String> {
    let mut packages = BTreeSet::new();
    for file in changed {
        if let Some(package) = package_dir(files, file) {
            packages.insert(package);
        }
    }
    packages
        .iter()
        .filter_map(|package| build_script(root, files, package))
        .collect()
}

/// The directory (relative, `""` for the root) of the package holding `file`: the nearest
/// directory above it with a `Cargo.toml` (one that declares only a workspace holds no build
/// script, [`build_script`]).
fn package_dir(files: &BTreeMap<String, u64>, file: &str) -> Option<String> {
    let mut dir = file;
    while let Some(slash) = dir.rfind('/') {
        dir = &dir[..slash];
        if has_manifest(files, dir) {
            return Some(dir.to_string());
        }
    }
    has_manifest(files, "").then(String::new)
}

fn has_manifest(files: &BTreeMap<String, u64>, dir: &str) -> bool {
    files.contains_key(&join(dir, "Cargo.toml"))
}

/// The package's build script source, relative to the checkout: `build = "path"` in its
/// manifest, else `build.rs` beside it where that exists; none when the manifest says
/// `build = false`, has no `[package]`, or cannot be read.
fn build_script(root: &Path, files: &BTreeMap<String, u64>, package: &str) -> Option<String> {
    let manifest = join(package, "Cargo.toml");
    let text = fs::read_to_string(root.join(&manifest)).ok()?;
    let value: toml::Table = text.parse().ok()?;
    let declared = value.get("package")?.as_table()?.get("build");
    let script = match declared {
        Some(toml::Value::String(path)) => join(package, path.trim_start_matches("./")),
        Some(toml::Value::Boolean(true)) | None => join(package, "build.rs"),
        Some(_) => return None,
    };
    files.contains_key(&script).then_some(script)
}

fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_string()
    } else {
        format!("{dir}/{name}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A checkout with the given files (each holding `text` where given, else a line).
    fn checkout(files: &[(&str, &str)]) -> (tempfile::TempDir, BTreeMap<String, u64>) {
        let dir = tempfile::tempdir().unwrap();
        let mut listed = BTreeMap::new();
        for (relative, text) in files {
            let path = dir.path().join(relative);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
            listed.insert((*relative).to_string(), 0);
        }
        (dir, listed)
    }

    const SYS: &str = "[package]\nname = \"shape-sys\"\nversion = \"0.1.0\"\nlinks = \"shape\"\n";

    fn scripts(root: &Path, files: &BTreeMap<String, u64>, changed: &[&str]) -> Vec<String> {
        let changed: Vec<String> = changed.iter().map(|c| (*c).to_string()).collect();
        of_packages_holding(root, files, &changed)
            .into_iter()
            .collect()
    }

    #[test]
    fn a_changed_c_file_names_its_package_s_build_script() {
        // capstone-sys: the C sources in a directory below the package, `build.rs` beside its
        // manifest; the workspace's root manifest declares no package.
        let (dir, files) = checkout(&[
            (
                "Cargo.toml",
                "[workspace]\nmembers = [\"shape-sys\", \"shape\"]\n",
            ),
            ("shape-sys/Cargo.toml", SYS),
            ("shape-sys/build.rs", "fn main() {}\n"),
            (
                "shape-sys/csrc/lib/shape.c",
                "int shape(void) { return 1; }\n",
            ),
            (
                "shape/Cargo.toml",
                "[package]\nname = \"shape\"\nversion = \"0.1.0\"\n",
            ),
            ("shape/src/lib.rs", "\n"),
        ]);
        let root = dir.path();
        assert_eq!(
            scripts(root, &files, &["shape-sys/csrc/lib/shape.c"]),
            ["shape-sys/build.rs"]
        );
        // A change in another package, or in the workspace's own files, reruns no script.
        assert!(scripts(root, &files, &["shape/src/lib.rs", "Cargo.toml"]).is_empty());
    }

    #[test]
    fn a_declared_build_path_is_named_and_build_false_names_none() {
        let (dir, files) = checkout(&[
            ("Cargo.toml", &format!("{SYS}build = \"tools/gen.rs\"\n")),
            ("tools/gen.rs", "fn main() {}\n"),
            ("build.rs", "fn main() {}\n"),
            ("vendor/a.c", "\n"),
            (
                "off/Cargo.toml",
                "[package]\nname = \"off\"\nbuild = false\n",
            ),
            ("off/build.rs", "fn main() {}\n"),
            ("off/b.c", "\n"),
            ("plain/Cargo.toml", "[package]\nname = \"plain\"\n"),
            ("plain/src/lib.rs", "\n"),
        ]);
        let root = dir.path();
        assert_eq!(scripts(root, &files, &["vendor/a.c"]), ["tools/gen.rs"]);
        assert!(scripts(root, &files, &["off/b.c"]).is_empty());
        // A package without a build script has none to rerun.
        assert!(scripts(root, &files, &["plain/src/lib.rs"]).is_empty());
    }
}
