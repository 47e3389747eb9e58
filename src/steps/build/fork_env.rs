//! The environment of a fork: the `CARGO_*` variables and library search path `cargo bench`
//! gives a bench process, which perfdiff has to give it since it starts the executables itself.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock};

use super::BenchExecutable;
use super::cargo_env::cargo_program;

/// The environment `cargo bench` gives a bench process, to be set on top of the inherited one.
/// The working directory is `exe.package_root`.
///
/// Cargo sets (see `fill_env` in cargo's `compilation.rs`): `CARGO`, `CARGO_MANIFEST_DIR`,
/// `CARGO_MANIFEST_PATH`, `CARGO_PKG_NAME`, `CARGO_PKG_VERSION` and its `_MAJOR/_MINOR/_PATCH/_PRE`
/// parts, the manifest metadata variables (`CARGO_PKG_AUTHORS`, `_DESCRIPTION`, `_HOMEPAGE`,
/// `_REPOSITORY`, `_LICENSE`, `_LICENSE_FILE`, `_RUST_VERSION`, `_README`; empty when absent), and
/// the dynamic library search path: `<target>/release`, `<target>/release/deps`, the toolchain's
/// target libdir, then the inherited value. `CARGO_PRIMARY_PACKAGE`, `CARGO_CRATE_NAME` and
/// `CARGO_BIN_NAME` are compile-time only and not set at run time.
///
/// `CARGO_TARGET_DIR` is set to the shared target dir, as it was for the build: criterion then
/// keeps its own output under it (not in the user's `target/criterion`) and does not spawn
/// `cargo metadata` in every fork to find a target directory.
///
/// Before them come the variables of the configuration's `[env]` table and of the package's
/// build script (`OUT_DIR`, `cargo:rustc-env`; [`BenchExecutable::cargo_env`]). A later entry
/// replaces an earlier one of the same name when the process is started, so, as under cargo,
/// cargo's own variables win over the build script's, and those over `[env]`.
///
/// The library search path starts with the build scripts' library directories inside the
/// target directory ([`BenchExecutable::native_library_dirs`]), as cargo's does.
///
/// Not reproduced: `--target` builds (other layout).
pub fn fork_environment(
    exe: &BenchExecutable,
    shared_target_dir: &Path,
) -> Vec<(OsString, OsString)> {
    let mut env: Vec<(OsString, OsString)> = exe.cargo_env.clone();
    let mut set = |key: &str, value: OsString| env.push((OsString::from(key), value));
    set("CARGO", cargo_program());
    set(
        "CARGO_TARGET_DIR",
        shared_target_dir.as_os_str().to_os_string(),
    );
    set(
        "CARGO_MANIFEST_DIR",
        exe.package_root.as_os_str().to_os_string(),
    );
    set(
        "CARGO_MANIFEST_PATH",
        exe.manifest_path.as_os_str().to_os_string(),
    );
    set("CARGO_PKG_NAME", exe.package.clone().into());
    for (key, value) in version_variables(&exe.package_version) {
        set(key, value.into());
    }
    for (key, value) in package_metadata_variables(&exe.manifest_path) {
        set(key, value.into());
    }
    let release = shared_target_dir.join("release");
    let mut search_path = exe.native_library_dirs.clone();
    search_path.extend([release.clone(), release.join("deps")]);
    if let Some(libdir) = toolchain_target_libdir(&exe.package_root) {
        search_path.push(libdir);
    }
    let (variable, value) = dylib_search_path(search_path);
    set(variable, value);
    env
}

/// `CARGO_PKG_VERSION` and its parts, as cargo splits a semver version.
pub(super) fn version_variables(version: &str) -> Vec<(&'static str, String)> {
    let without_build = version.split('+').next().unwrap_or_default();
    let (core, pre) = without_build.split_once('-').unwrap_or((without_build, ""));
    let mut parts = core.split('.').map(str::to_string);
    vec![
        ("CARGO_PKG_VERSION", version.to_string()),
        ("CARGO_PKG_VERSION_MAJOR", parts.next().unwrap_or_default()),
        ("CARGO_PKG_VERSION_MINOR", parts.next().unwrap_or_default()),
        ("CARGO_PKG_VERSION_PATCH", parts.next().unwrap_or_default()),
        ("CARGO_PKG_VERSION_PRE", pre.to_string()),
    ]
}

/// The manifest metadata variables cargo sets, read from the package manifest; values inherited
/// with `key.workspace = true` come from `[workspace.package]` of the nearest workspace manifest.
pub(super) fn package_metadata_variables(manifest_path: &Path) -> Vec<(&'static str, String)> {
    const KEYS: [(&str, &str); 8] = [
        ("description", "CARGO_PKG_DESCRIPTION"),
        ("homepage", "CARGO_PKG_HOMEPAGE"),
        ("repository", "CARGO_PKG_REPOSITORY"),
        ("license", "CARGO_PKG_LICENSE"),
        ("license-file", "CARGO_PKG_LICENSE_FILE"),
        ("authors", "CARGO_PKG_AUTHORS"),
        ("rust-version", "CARGO_PKG_RUST_VERSION"),
        ("readme", "CARGO_PKG_README"),
    ];
    let package = read_toml(manifest_path)
        .and_then(|m| m.get("package").and_then(toml::Value::as_table).cloned())
        .unwrap_or_default();
    let mut workspace_package = None;
    KEYS.iter()
        .map(|(key, variable)| {
            let mut value = package.get(*key).cloned();
            if value.as_ref().is_some_and(is_workspace_inherited) {
                let inherited = workspace_package
                    .get_or_insert_with(|| workspace_package_table(manifest_path))
                    .get(*key)
                    .cloned();
                value = inherited;
            }
            let text = match (*key, value) {
                ("readme", None) => default_readme(manifest_path),
                (_, Some(toml::Value::String(s))) => s,
                (_, Some(toml::Value::Array(items))) => items
                    .iter()
                    .filter_map(toml::Value::as_str)
                    .collect::<Vec<_>>()
                    .join(":"),
                _ => String::new(),
            };
            (*variable, text)
        })
        .collect()
}

pub(super) fn is_workspace_inherited(value: &toml::Value) -> bool {
    value.get("workspace").and_then(toml::Value::as_bool) == Some(true)
}

pub(super) fn read_toml(path: &Path) -> Option<toml::Table> {
    fs::read_to_string(path).ok()?.parse::<toml::Table>().ok()
}

/// `[workspace.package]` of the nearest manifest above the package that has a `[workspace]`.
pub(super) fn workspace_package_table(manifest_path: &Path) -> toml::Table {
    let package_dir = manifest_path.parent().unwrap_or(Path::new("."));
    package_dir
        .ancestors()
        .filter_map(|dir| read_toml(&dir.join("Cargo.toml")))
        .find_map(|manifest| {
            manifest
                .get("workspace")
                .and_then(toml::Value::as_table)
                .cloned()
        })
        .and_then(|workspace| {
            workspace
                .get("package")
                .and_then(toml::Value::as_table)
                .cloned()
        })
        .unwrap_or_default()
}

/// Cargo's readme default: the first of `README.md`, `README.txt`, `README` in the package root.
pub(super) fn default_readme(manifest_path: &Path) -> String {
    let dir = manifest_path.parent().unwrap_or(Path::new("."));
    ["README.md", "README.txt", "README"]
        .into_iter()
        .find(|name| dir.join(name).is_file())
        .unwrap_or_default()
        .to_string()
}

/// The variable the platform's dynamic loader searches, and cargo sets for a bench process.
pub fn dylib_search_variable() -> &'static str {
    if cfg!(windows) {
        "PATH"
    } else if cfg!(target_os = "macos") {
        "DYLD_FALLBACK_LIBRARY_PATH"
    } else {
        "LD_LIBRARY_PATH"
    }
}

/// The platform's dynamic library search variable with `paths` first, then the inherited value.
pub(super) fn dylib_search_path(paths: Vec<PathBuf>) -> (&'static str, OsString) {
    let variable = dylib_search_variable();
    let inherited: Vec<PathBuf> = std::env::var_os(variable)
        .map(|v| std::env::split_paths(&v).collect())
        .unwrap_or_default();
    let mut all = paths;
    if cfg!(target_os = "macos") && inherited.is_empty() {
        // The defaults macOS uses when the variable is unset, which setting it would lose.
        if let Some(home) = std::env::var_os("HOME") {
            all.push(PathBuf::from(home).join("lib"));
        }
        all.extend([PathBuf::from("/usr/local/lib"), PathBuf::from("/usr/lib")]);
    }
    all.extend(inherited);
    // A path containing the separator cannot be expressed; leave it out rather than fail.
    all.retain(|p| std::env::join_paths([p]).is_ok());
    (variable, std::env::join_paths(all).unwrap_or_default())
}

/// `rustc --print target-libdir` as seen from `dir` (so a `rust-toolchain.toml` there is honoured),
/// cached per directory; `None` when rustc cannot say.
pub(super) fn toolchain_target_libdir(dir: &Path) -> Option<PathBuf> {
    static CACHE: OnceLock<Mutex<BTreeMap<PathBuf, Option<PathBuf>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(known) = cache.lock().ok()?.get(dir) {
        return known.clone();
    }
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let libdir = Command::new(rustc)
        .args(["--print", "target-libdir"])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()
        .filter(|output| output.status.success())
        .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_string())
        .filter(|path| !path.is_empty())
        .map(PathBuf::from);
    cache.lock().ok()?.insert(dir.to_path_buf(), libdir.clone());
    libdir
}
