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
//!
//! Two differences are of place, not of setting: each checkout's own path, and the hash in the
//! name of the package's build-script output directory (`OUT_DIR`, `…/build/<package>-<hash>/out`),
//! which cargo derives from the package's version among others, so a version bump renamed it and
//! measured every benchmark of a package with a build script (BLAKE3's 1.8.6, field trial of
//! 2026-11-30). Both are written as placeholders before comparing. What the directory holds is
//! not skipped by this: code compiled from it is compared as code, and a benchmark that opens a
//! file of the build's output at run time is measured (`files`).

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
    if let Some(variables) = env_differences(base, head) {
        found.push(format!(
            "the bench process's environment from cargo differs (cargo's `[env]` or a build \
             script's `cargo:rustc-env`): {variables}"
        ));
    }
    let dirs = |side: &SideSettings<'_>| -> Vec<PathBuf> {
        side.library_dirs
            .iter()
            .map(|dir| without_hash(dir).unwrap_or_else(|| dir.clone()))
            .map(|dir| {
                dir.strip_prefix(side.checkout)
                    .unwrap_or(&dir)
                    .to_path_buf()
            })
            .collect()
    };
    if dirs(base) != dirs(head) {
        found.push("the native library directories differ".to_string());
    }
    found.sort();
    found.dedup();
    found
}

/// The variables of the bench process's environment whose values differ between the sides (or
/// that one side alone has), each named with both values as compared (`{checkout}`, `{hash}`
/// placeholders in them); `None` when none differs. A user must be able to tell which variable
/// measured every benchmark (mime_guess #96: its build script's `MIME_TYPES_GENERATED_PATH`,
/// an absolute path on base and a file name on head, read only by `env!` at compile time).
fn env_differences(base: &SideSettings<'_>, head: &SideSettings<'_>) -> Option<String> {
    const SHOWN: usize = 3;
    let (b, h) = (
        relocated(base.env, base.checkout),
        relocated(head.env, head.checkout),
    );
    let value = |side: &[(OsString, String)], key: &OsString| {
        side.iter()
            .find(|(k, _)| k == key)
            .map_or_else(|| "unset".to_string(), |(_, v)| format!("`{v}`"))
    };
    let mut keys: Vec<&OsString> = b.iter().chain(&h).map(|(key, _)| key).collect();
    keys.sort();
    keys.dedup();
    let differing: Vec<String> = keys
        .into_iter()
        .filter(|key| value(&b, key) != value(&h, key))
        .map(|key| {
            let name = key.to_string_lossy();
            format!(
                "{name} ({} on base, {} on head)",
                value(&b, key),
                value(&h, key)
            )
        })
        .collect();
    let (shown, rest) = differing.split_at(differing.len().min(SHOWN));
    match rest.len() {
        _ if shown.is_empty() && b != h => Some("the order or repetition of its variables".into()),
        _ if shown.is_empty() => None,
        0 => Some(shown.join(", ")),
        more => Some(format!("{} and {more} more", shown.join(", "))),
    }
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
/// like name each side's own checkout; the same place in both is no difference), and the hash
/// of its build-script output directory as `{hash}` wherever that directory is named.
fn relocated(env: &[(OsString, OsString)], checkout: &Path) -> Vec<(OsString, String)> {
    let root = checkout.to_string_lossy().into_owned();
    let out_dir = env
        .iter()
        .find(|(key, _)| key == "OUT_DIR")
        .map(|(_, value)| value.to_string_lossy().into_owned());
    let unhashed = out_dir
        .as_deref()
        .and_then(|dir| without_hash(Path::new(dir)))
        .map(|dir| dir.to_string_lossy().trim_end_matches('/').to_string());
    env.iter()
        .map(|(key, value)| {
            let mut value = value.to_string_lossy().into_owned();
            if let (Some(dir), Some(plain)) = (&out_dir, &unhashed) {
                value = value.replace(dir.as_str(), plain);
            }
            (key.clone(), value.replace(&root, "{checkout}"))
        })
        .collect()
}

/// A path in a build script's output directory, `…/build/<package>-<hash>/out[/…]`, with the
/// hash (hexadecimal digits, cargo's metadata of the unit) written `{hash}`; `None` for a path
/// of another shape, which is then compared as it is.
fn without_hash(path: &Path) -> Option<PathBuf> {
    let out = path.ancestors().find(|dir| {
        dir.file_name().is_some_and(|name| name == "out")
            && dir
                .parent()
                .and_then(Path::parent)
                .and_then(Path::file_name)
                .is_some_and(|name| name == "build")
    })?;
    let unit = out.parent()?;
    let (package, hash) = unit.file_name()?.to_str()?.rsplit_once('-')?;
    if hash.is_empty() || !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let plain = unit
        .with_file_name(format!("{package}-{{hash}}"))
        .join("out");
    Some(plain.join(path.strip_prefix(out).ok()?))
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

    #[test]
    fn a_variable_of_the_bench_environment_that_differs_is_named_with_both_values() {
        // mime_guess #96: the build script's `cargo:rustc-env=MIME_TYPES_GENERATED_PATH` was the
        // generated file's absolute path on base and its name alone on head; every benchmark was
        // measured for "the bench process's environment from cargo differs", naming nothing.
        let dir = tempfile::tempdir().unwrap();
        let base = checkout(&dir.path().join("base"), MANIFEST);
        let head = checkout(&dir.path().join("head"), MANIFEST);
        let out = "/t/release/build/mime_guess-0c5919a05baddc7e/out";
        let side = |path: String| {
            vec![
                (OsString::from("OUT_DIR"), OsString::from(out)),
                (
                    OsString::from("MIME_TYPES_GENERATED_PATH"),
                    OsString::from(path),
                ),
            ]
        };
        let b = side(format!("{out}/mime_types_generated.rs"));
        let h = side("/mime_types_generated.rs".to_string());
        let found = differences_of(&base, &head, [&b, &h]);
        assert_eq!(
            found,
            [
                "the bench process's environment from cargo differs (cargo's `[env]` or a build \
              script's `cargo:rustc-env`): MIME_TYPES_GENERATED_PATH \
              (`/t/release/build/mime_guess-{hash}/out/mime_types_generated.rs` on base, \
              `/mime_types_generated.rs` on head)"
            ]
        );
        // A variable one side alone has is named as unset on the other; the same variables in
        // another order are no difference.
        let mut more = h.clone();
        more.push((OsString::from("EXTRA"), OsString::from("1")));
        let found = differences_of(&base, &head, [&h, &more]);
        assert!(
            found[0].ends_with(": EXTRA (unset on base, `1` on head)"),
            "{found:?}"
        );
        let reversed: Vec<_> = h.iter().rev().cloned().collect();
        let found = differences_of(&base, &head, [&h, &reversed]);
        assert!(
            found[0].ends_with("the order or repetition of its variables"),
            "{found:?}"
        );
    }

    #[test]
    fn a_build_script_s_output_directory_renamed_by_a_version_bump_is_the_same_place() {
        // BLAKE3 1.8.5 → 1.8.6: cargo named the build script's directory by another hash, and
        // every benchmark was measured for "the bench process's environment from cargo differs".
        let dir = tempfile::tempdir().unwrap();
        let base = checkout(&dir.path().join("base"), MANIFEST);
        let head = checkout(&dir.path().join("head"), MANIFEST);
        let side = |hash: &str, package: &str| {
            let out = format!("/t/release/build/{package}-{hash}/out");
            vec![
                (OsString::from("OUT_DIR"), OsString::from(&out)),
                (
                    OsString::from("TABLES"),
                    OsString::from(format!("{out}/t.rs")),
                ),
            ]
        };
        let (b, h) = (
            side("0c5919a05baddc7e", "blake3"),
            side("b8a9664b6f2ea4ac", "blake3"),
        );
        assert_eq!(differences_of(&base, &head, [&b, &h]), Vec::<String>::new());
        // Another package's directory, or another value beside it, still differs.
        let other = side("b8a9664b6f2ea4ac", "blake4");
        assert_eq!(differences_of(&base, &head, [&b, &other]).len(), 1);
        let mut moved = h.clone();
        moved[1].1 = OsString::from("/t/release/build/blake3-b8a9664b6f2ea4ac/out/u.rs");
        assert_eq!(differences_of(&base, &head, [&b, &moved]).len(), 1);
        // The directory handed to the linker (cc's `rustc-link-search`) is renamed alike.
        let lib = |hash: &str| [PathBuf::from(format!("/t/release/build/blake3-{hash}/out"))];
        let (lb, lh) = (lib("0c5919a05baddc7e"), lib("b8a9664b6f2ea4ac"));
        let found = differences(
            &SideSettings {
                checkout: &base,
                workspace: &base,
                env: &b,
                library_dirs: &lb,
            },
            &SideSettings {
                checkout: &head,
                workspace: &head,
                env: &h,
                library_dirs: &lh,
            },
        );
        assert_eq!(found, Vec::<String>::new());
        // A directory not named as cargo names one is compared as it is.
        let odd = |name: &str| vec![(OsString::from("OUT_DIR"), OsString::from(name))];
        let (x, y) = (odd("/t/build/x-1/gen"), odd("/t/build/x-2/gen"));
        assert_eq!(differences_of(&base, &head, [&x, &y]).len(), 1);
    }
}
