//! The `bencher` crate: libtest's bench runner ported to stable Rust.
//!
//! Why its benchmarks are listed from the source: a `bencher` executable has no listing mode.
//! `benchmark_main!` takes its first argument other than `--bench` as a substring filter and runs
//! every benchmark that contains it, so the only way to learn the names by running it would be to
//! run the whole suite. The names are `stringify!` of the paths given to `benchmark_group!`, so
//! they are read from the bench target's source (its root file and the modules it declares),
//! keeping the groups `benchmark_main!` runs. A name the executable does not know shows up in its
//! first fork, which then fails naming it.
//!
//! One fork passes the benchmark's name as the filter: it selects every benchmark whose name
//! contains it, run in name order, so the fork stops as soon as its own benchmark's line is read
//! (see [`crate::steps::fork::text`]); a benchmark whose name contains another's and sorts before it
//! still runs first in that other benchmark's forks.

use std::collections::HashSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use regex::Regex;

/// Errors reading a bench target's source.
#[derive(Debug, thiserror::Error)]
pub enum ListError {
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// The arguments of one fork of benchmark `name`.
pub fn fork_args(name: &str) -> Vec<OsString> {
    ["--bench", name].map(OsString::from).to_vec()
}

/// The benchmark names of the bench target whose root source file is `root`, sorted as the
/// executable runs them.
pub fn list_from_source(root: &Path) -> Result<Vec<String>, ListError> {
    let mut sources = Vec::new();
    collect_sources(
        root,
        root_module_dir(root),
        &mut sources,
        &mut HashSet::new(),
    )?;
    let text: String = sources.iter().map(|s| strip_comments(s)).collect();
    Ok(names_in(&text))
}

/// The names `benchmark_main!` runs in `source` (every group's when it names none).
pub fn names_in(source: &str) -> Vec<String> {
    let groups = Regex::new(r"benchmark_group!\s*[(\[{]\s*([A-Za-z_][A-Za-z0-9_]*)\s*,([^)\]}]*)")
        .expect("a valid regex");
    let main = Regex::new(r"benchmark_main!\s*[(\[{]([^)\]}]*)").expect("a valid regex");
    let run: Option<HashSet<String>> = main.captures(source).map(|c| {
        c[1].split(',')
            .map(|g| last_segment(&squeeze(g)).to_string())
            .filter(|g| !g.is_empty())
            .collect()
    });
    let mut names: Vec<String> = groups
        .captures_iter(source)
        .filter(|c| run.as_ref().is_none_or(|run| run.contains(&c[1])))
        .flat_map(|c| {
            c[2].split(',')
                .map(squeeze)
                .filter(|name| !name.is_empty())
                .collect::<Vec<_>>()
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

/// `text` without whitespace (`stringify!` of a path prints none).
fn squeeze(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

fn last_segment(path: &str) -> &str {
    path.rsplit("::").next().unwrap_or(path)
}

/// Where the modules a crate root declares live: its own directory.
fn root_module_dir(root: &Path) -> PathBuf {
    root.parent().map(Path::to_path_buf).unwrap_or_default()
}

/// Reads `file` and, recursively, the files of the `mod name;` items it declares, whose files are
/// `dir/name.rs` or `dir/name/mod.rs`.
fn collect_sources(
    file: &Path,
    dir: PathBuf,
    sources: &mut Vec<String>,
    seen: &mut HashSet<PathBuf>,
) -> Result<(), ListError> {
    if !seen.insert(file.to_path_buf()) {
        return Ok(());
    }
    let text = std::fs::read_to_string(file).map_err(|source| ListError::Read {
        path: file.to_path_buf(),
        source,
    })?;
    let declared =
        Regex::new(r"(?m)^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+([A-Za-z_][A-Za-z0-9_]*)\s*;")
            .expect("a valid regex");
    let modules: Vec<String> = declared
        .captures_iter(&strip_comments(&text))
        .map(|c| c[1].to_string())
        .collect();
    sources.push(text);
    for name in modules {
        let flat = dir.join(format!("{name}.rs"));
        let nested = dir.join(&name).join("mod.rs");
        // Modules a file declares live in the directory named after it (`name/`).
        if flat.is_file() {
            collect_sources(&flat, dir.join(&name), sources, seen)?;
        } else if nested.is_file() {
            collect_sources(&nested, dir.join(&name), sources, seen)?;
        }
    }
    Ok(())
}

/// `source` without `//` and `/* */` comments (string literals are not special-cased: a bench
/// file's macro calls hold paths, not strings).
fn strip_comments(source: &str) -> String {
    let block = Regex::new(r"(?s)/\*.*?\*/").expect("a valid regex");
    let line = Regex::new(r"//[^\n]*").expect("a valid regex");
    let without_blocks = block.replace_all(source, " ");
    line.replace_all(&without_blocks, "").into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_of_the_groups_main_runs_sorted() {
        let source = r#"
            benchmark_group!(benches, mix, checksum, codec::encode,);
            benchmark_group!(unused, never);
            benchmark_main!(benches);
        "#;
        assert_eq!(names_in(source), vec!["checksum", "codec::encode", "mix"]);
    }

    #[test]
    fn every_group_without_a_main_and_multiline_lists() {
        let source = "benchmark_group!(a,\n    x,\n    y\n);\nbenchmark_group!(b, z);";
        assert_eq!(names_in(source), vec!["x", "y", "z"]);
    }

    #[test]
    fn comments_are_ignored_and_modules_followed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("bench.rs");
        std::fs::write(
            &root,
            "mod more;\n// benchmark_group!(old, gone);\nbenchmark_group!(g, /* x, */ y);\n\
             benchmark_main!(g, more::h);",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("more.rs"),
            "benchmark_group!(h, in_module);",
        )
        .unwrap();
        assert_eq!(list_from_source(&root).unwrap(), vec!["in_module", "y"]);
    }

    #[test]
    fn a_missing_root_is_an_error_naming_it() {
        let err = list_from_source(Path::new("/nonexistent/bench.rs")).unwrap_err();
        assert!(err.to_string().contains("/nonexistent/bench.rs"));
    }
}
