//! The variables `cargo bench` gives a bench process besides its own `CARGO_*` ones: the `[env]`
//! table of cargo's configuration files, the `cargo:rustc-env` values and `OUT_DIR` of the
//! package's build script, and the library directories build scripts name.
//!
//! Why: perfdiff starts bench executables itself (it needs one process per fork), so whatever
//! cargo would have put into their environment has to be put there by perfdiff, or a benchmark
//! that reads a variable at run time (a data directory, a size, a feature switch) measures
//! something other than under `cargo bench`, or fails. [`crate::steps::build::fork_environment`] adds the
//! `CARGO_*` variables and the library search path; this module finds the rest.
//!
//! Cargo's rules, as observed with cargo 1.95 and documented in the Cargo book ("Configuration",
//! `[env]`):
//! - configuration files are `.cargo/config.toml` (or `.cargo/config`, which wins when both
//!   exist) in the directory cargo was started in and every ancestor, then
//!   `$CARGO_HOME/config.toml`; a deeper directory's value of a key wins;
//! - an `[env]` entry is `KEY = "value"` or `KEY = { value = "…", force = bool, relative = bool }`;
//!   without `force` it does not replace a variable already in cargo's own environment, and with
//!   `relative` the value is a path relative to the directory that holds the `.cargo` directory;
//! - cargo's own variables, then the build script's, win over `[env]`;
//! - the `cargo:rustc-link-search` directories of every build script of the build (dependencies
//!   too) that lie inside the target directory come first on the library search path, so a
//!   dynamic library a `-sys` crate built into its `OUT_DIR` is found; directories outside it are
//!   left to the system.
//!
//! A configuration file perfdiff cannot read or parse is skipped: cargo reads the same files
//! before the build, so it would already have stopped with its own error.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// One entry of an `[env]` table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigEnvEntry {
    pub value: String,
    /// Set even when the variable is already in the environment.
    pub force: bool,
    /// `value` is a path relative to `root`.
    pub relative: bool,
    /// The directory that holds the `.cargo` directory of the file the entry came from.
    pub root: PathBuf,
}

impl ConfigEnvEntry {
    /// The value as the process gets it: joined to `root` when `relative`.
    pub fn resolved_value(&self) -> OsString {
        if self.relative {
            self.root.join(&self.value).into_os_string()
        } else {
            OsString::from(&self.value)
        }
    }
}

/// Cargo's configuration files as seen from `invocation_dir`, the highest precedence first:
/// `.cargo/config` or `.cargo/config.toml` in `invocation_dir` and each ancestor, then
/// `cargo_home/config` or `config.toml` unless the walk already visited that directory.
pub fn config_files(invocation_dir: &Path, cargo_home: Option<&Path>) -> Vec<PathBuf> {
    let mut directories: Vec<PathBuf> = invocation_dir
        .ancestors()
        .map(|dir| dir.join(".cargo"))
        .collect();
    if let Some(home) = cargo_home
        && !directories.iter().any(|d| same_directory(d, home))
    {
        directories.push(home.to_path_buf());
    }
    directories
        .iter()
        .filter_map(|dir| {
            ["config", "config.toml"]
                .iter()
                .map(|name| dir.join(name))
                .find(|file| file.is_file())
        })
        .collect()
}

fn same_directory(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// The `[env]` entries of one configuration file's text; `file` is where it was read from.
/// Entries of a shape cargo does not accept either (a number, a table without `value`) are left
/// out; a file that is not TOML gives none.
pub fn parse_env_table(text: &str, file: &Path) -> BTreeMap<String, ConfigEnvEntry> {
    let root = file
        .parent()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let Ok(document) = text.parse::<toml::Table>() else {
        return BTreeMap::new();
    };
    let Some(table) = document.get("env").and_then(toml::Value::as_table) else {
        return BTreeMap::new();
    };
    table
        .iter()
        .filter_map(|(key, value)| {
            let entry = match value {
                toml::Value::String(value) => ConfigEnvEntry {
                    value: value.clone(),
                    force: false,
                    relative: false,
                    root: root.clone(),
                },
                toml::Value::Table(fields) => ConfigEnvEntry {
                    value: fields.get("value")?.as_str()?.to_string(),
                    force: flag(fields, "force"),
                    relative: flag(fields, "relative"),
                    root: root.clone(),
                },
                _ => return None,
            };
            Some((key.clone(), entry))
        })
        .collect()
}

fn flag(fields: &toml::Table, name: &str) -> bool {
    fields
        .get(name)
        .and_then(toml::Value::as_bool)
        .unwrap_or(false)
}

/// The merged `[env]` table cargo uses when started in `invocation_dir`: for every key, the entry
/// of the highest-precedence file that has it.
pub fn config_env_table(
    invocation_dir: &Path,
    cargo_home: Option<&Path>,
) -> BTreeMap<String, ConfigEnvEntry> {
    let mut merged = BTreeMap::new();
    // Lowest precedence first, so that later files replace earlier entries.
    for file in config_files(invocation_dir, cargo_home).iter().rev() {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        merged.extend(parse_env_table(&text, file));
    }
    merged
}

/// The `[env]` variables cargo would set for a process it starts from `invocation_dir`:
/// every entry whose key is not yet in the environment (`is_set` says), and every `force` entry.
pub fn config_env(
    invocation_dir: &Path,
    cargo_home: Option<&Path>,
    is_set: impl Fn(&str) -> bool,
) -> Vec<(OsString, OsString)> {
    config_env_table(invocation_dir, cargo_home)
        .into_iter()
        .filter(|(key, entry)| entry.force || !is_set(key))
        .map(|(key, entry)| (OsString::from(key), entry.resolved_value()))
        .collect()
}

/// `$CARGO_HOME`, or `~/.cargo` when it is not set, as cargo finds it.
pub fn cargo_home() -> Option<PathBuf> {
    std::env::var_os("CARGO_HOME")
        .filter(|home| !home.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::home_dir().map(|home| home.join(".cargo")))
}

/// What a package's build script gives the processes cargo runs for it: its `cargo:rustc-env`
/// values and `OUT_DIR`, and the library directories it asked the linker to search (from cargo's
/// `build-script-executed` message).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BuildScriptEnv {
    pub out_dir: Option<PathBuf>,
    pub vars: Vec<(String, String)>,
    /// `cargo:rustc-link-search` directories, without their `KIND=` prefix.
    pub library_dirs: Vec<PathBuf>,
}

/// A build script's output directory as cargo reported it (`build-script-executed`): the
/// package's name and its `OUT_DIR`. Selection reads one package's directory in base's code and
/// in head's alike (cargo names it by a hash of the package's version).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BuildOutDir {
    pub package: String,
    pub dir: PathBuf,
}

/// The directory of a `cargo:rustc-link-search` value as cargo reports it (`native=/p`, `all=/p`,
/// or a bare `/p`).
pub fn link_search_dir(value: &str) -> PathBuf {
    const KINDS: [&str; 5] = ["native", "crate", "dependency", "framework", "all"];
    match value.split_once('=') {
        Some((kind, dir)) if KINDS.contains(&kind) => PathBuf::from(dir),
        _ => PathBuf::from(value),
    }
}

/// The library directories of `scripts` that cargo puts on a bench process's library search
/// path: those inside `target_dir`, each once, in the order of `scripts` and of each script's
/// report.
pub fn native_library_dirs<'a>(
    scripts: impl IntoIterator<Item = &'a BuildScriptEnv>,
    target_dir: &Path,
) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    for dir in scripts.into_iter().flat_map(|s| &s.library_dirs) {
        if dir.starts_with(target_dir) && !dirs.contains(dir) {
            dirs.push(dir.clone());
        }
    }
    dirs
}

impl BuildScriptEnv {
    /// The variables in the order cargo sets them: `OUT_DIR`, then the script's own.
    pub fn variables(&self) -> Vec<(OsString, OsString)> {
        let out_dir = self
            .out_dir
            .iter()
            .map(|dir| (OsString::from("OUT_DIR"), dir.clone().into_os_string()));
        let vars = self
            .vars
            .iter()
            .map(|(key, value)| (OsString::from(key), OsString::from(value)));
        out_dir.chain(vars).collect()
    }
}

/// The cargo to run: the one that started us (`CARGO`, set for cargo subcommands), else `cargo`.
pub(crate) fn cargo_program() -> OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn plain_forced_and_relative_entries_are_read() {
        let file = Path::new("/p/ws/.cargo/config.toml");
        let table = parse_env_table(
            r#"
            [build]
            jobs = 2
            [env]
            PLAIN = "one"
            FORCED = { value = "two", force = true }
            DATA = { value = "fixtures/data", relative = true }
            NUMBER = 3
            NO_VALUE = { force = true }
            "#,
            file,
        );
        assert_eq!(
            table.keys().collect::<Vec<_>>(),
            ["DATA", "FORCED", "PLAIN"]
        );
        assert_eq!(table["PLAIN"].resolved_value(), "one");
        assert!(table["FORCED"].force && !table["PLAIN"].force);
        assert_eq!(table["DATA"].resolved_value(), "/p/ws/fixtures/data");
    }

    #[test]
    fn a_file_that_is_not_toml_or_has_no_env_table_gives_nothing() {
        let file = Path::new("/p/.cargo/config.toml");
        assert!(parse_env_table("[env\nX = 1", file).is_empty());
        assert!(parse_env_table("[build]\njobs = 2\n", file).is_empty());
        assert!(parse_env_table("env = 3\n", file).is_empty());
    }

    #[test]
    fn the_deepest_file_wins_and_cargo_home_comes_last() {
        let tmp = tempfile::tempdir().unwrap();
        let outer = tmp.path().join("outer");
        let inner = outer.join("inner");
        let home = tmp.path().join("home");
        write(
            &outer.join(".cargo/config.toml"),
            "[env]\nA = \"outer\"\nB = \"outer\"\n",
        );
        // `config` wins over `config.toml` in the same directory.
        write(&inner.join(".cargo/config"), "[env]\nA = \"inner\"\n");
        write(
            &inner.join(".cargo/config.toml"),
            "[env]\nA = \"ignored\"\n",
        );
        write(
            &home.join("config.toml"),
            "[env]\nA = \"home\"\nC = \"home\"\n",
        );
        let files = config_files(&inner, Some(&home));
        assert_eq!(
            files[..3],
            [
                inner.join(".cargo/config"),
                outer.join(".cargo/config.toml"),
                home.join("config.toml"),
            ]
        );
        let table = config_env_table(&inner, Some(&home));
        let value = |k: &str| table[k].value.clone();
        assert_eq!(
            (value("A"), value("B"), value("C")),
            ("inner".into(), "outer".into(), "home".into())
        );
    }

    #[test]
    fn cargo_home_inside_the_walk_is_read_once() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join(".cargo");
        write(&home.join("config.toml"), "[env]\nA = \"home\"\n");
        let files = config_files(&tmp.path().join("project"), Some(&home));
        assert_eq!(
            files
                .iter()
                .filter(|f| **f == home.join("config.toml"))
                .count(),
            1
        );
    }

    #[test]
    fn a_variable_already_set_is_kept_unless_the_entry_forces_it() {
        let tmp = tempfile::tempdir().unwrap();
        write(
            &tmp.path().join(".cargo/config.toml"),
            "[env]\nSET = \"config\"\nFORCED = { value = \"config\", force = true }\nNEW = \"config\"\n",
        );
        let env = config_env(tmp.path(), None, |key| key == "SET" || key == "FORCED");
        let keys: Vec<_> = env.iter().map(|(k, _)| k.to_str().unwrap()).collect();
        assert_eq!(keys, ["FORCED", "NEW"]);
    }

    #[test]
    fn link_search_values_lose_their_kind_and_only_those_in_the_target_dir_are_kept() {
        assert_eq!(link_search_dir("native=/t/out"), Path::new("/t/out"));
        assert_eq!(link_search_dir("all=/t/x"), Path::new("/t/x"));
        assert_eq!(link_search_dir("/t/bare"), Path::new("/t/bare"));
        assert_eq!(link_search_dir("/odd=dir"), Path::new("/odd=dir"));
        let script = |dirs: &[&str]| BuildScriptEnv {
            library_dirs: dirs.iter().map(PathBuf::from).collect(),
            ..BuildScriptEnv::default()
        };
        let scripts = [
            script(&["/t/release/build/a-1/out", "/usr/lib/outside"]),
            script(&["/t/release/build/a-1/out", "/t/release/extra"]),
        ];
        assert_eq!(
            native_library_dirs(&scripts, Path::new("/t")),
            [
                PathBuf::from("/t/release/build/a-1/out"),
                PathBuf::from("/t/release/extra")
            ]
        );
    }

    #[test]
    fn a_build_script_gives_out_dir_first_then_its_variables() {
        let script = BuildScriptEnv {
            out_dir: Some(PathBuf::from("/t/release/build/x-1/out")),
            vars: vec![("GREETING".into(), "hello".into())],
            library_dirs: Vec::new(),
        };
        assert_eq!(
            script.variables(),
            [
                (
                    OsString::from("OUT_DIR"),
                    OsString::from("/t/release/build/x-1/out")
                ),
                (OsString::from("GREETING"), OsString::from("hello")),
            ]
        );
    }
}
