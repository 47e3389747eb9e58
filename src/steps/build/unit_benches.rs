//! Where a workspace keeps libtest `#[bench]` functions in the unit tests of a library or
//! binary, which `cargo bench` runs and cargo-perfdiff does not compare.
//!
//! Why: cargo builds every library and binary with `bench = true` (the default) in its test
//! harness under `cargo bench`, so `#[bench]` functions beside the code (`#[cfg(test)] mod
//! benches`, or a binary's modules under `#![cfg_attr(test, feature(test))]`, rayon-demo's
//! way) run with the bench targets. cargo-perfdiff compares bench targets only (`benches/*.rs`,
//! `[[bench]]`), so such a package has "no bench target"; the error names where its
//! `#[bench]` functions are (field-trials.md, session 20) instead of leaving the user to
//! wonder where `cargo bench`'s benchmarks went.

use std::fs;
use std::path::{Path, PathBuf};

/// How deep below the root the directories looked into go (a member's `src/a/b/c.rs` is 4).
const DEPTH: usize = 6;

/// Directories that hold no unit tests of a library or binary: bench, test and example
/// targets of their own, and build output.
const NOT_UNIT_TESTS: [&str; 4] = ["target", "benches", "tests", "examples"];

/// The `.rs` files under `root` outside bench, test and example directories that hold a
/// `#[bench]` attribute at the start of a line, relative to `root` and sorted. Hidden
/// directories and `target` are skipped, and at most [`DEPTH`] directories are entered.
pub fn unit_test_benches(root: &Path) -> Vec<PathBuf> {
    let skipped = |name: &str| name.starts_with('.') || NOT_UNIT_TESTS.contains(&name);
    let mut found: Vec<PathBuf> = crate::util::fs::dirs_within(root, DEPTH - 1, skipped)
        .into_iter()
        .filter_map(|dir| fs::read_dir(dir).ok())
        .flat_map(|entries| entries.flatten())
        .filter(|entry| entry.file_type().is_ok_and(|t| t.is_file()))
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "rs") && has_bench_attribute(path))
        .map(|path| path.strip_prefix(root).unwrap_or(&path).to_path_buf())
        .collect();
    found.sort();
    found
}

/// Whether a line of the file starts (after indentation) with `#[bench]`.
fn has_bench_attribute(file: &Path) -> bool {
    fs::read_to_string(file).is_ok_and(|text| {
        text.lines()
            .any(|line| line.trim_start().starts_with("#[bench]"))
    })
}

/// The clause of the "no benchmarks" error naming `files` (from [`unit_test_benches`]), the
/// first three and how many more; `None` without any.
pub fn unit_test_benches_clause(files: &[PathBuf]) -> Option<String> {
    const SHOWN: usize = 3;
    if files.is_empty() {
        return None;
    }
    let shown: Vec<String> = files
        .iter()
        .take(SHOWN)
        .map(|f| format!("`{}`", f.display()))
        .collect();
    let more = match files.len().saturating_sub(SHOWN) {
        0 => String::new(),
        n => format!(" (+{n} more)"),
    };
    Some(format!(
        "`#[bench]` functions in the unit tests of a library or binary ({}{more}) are run by \
         `cargo bench` but not compared: cargo-perfdiff compares bench targets (`benches/*.rs`, \
         `[[bench]]`); move them into one to compare them",
        shown.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bench_functions_beside_the_code_are_found_and_those_of_bench_targets_are_not() {
        // rayon-demo's shape: `#[bench]` in the modules of a binary, and a bench target beside.
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let write = |path: &str, text: &str| {
            let path = root.join(path);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        };
        let bench =
            "#[cfg(test)]\nmod b {\n    #[bench]\n    fn one(b: &mut test::Bencher) {}\n}\n";
        write(
            "demo/src/main.rs",
            "#![cfg_attr(test, feature(test))]\nfn main() {}\n",
        );
        write("demo/src/sort.rs", bench);
        write("demo/src/tsp/bench.rs", bench);
        write("benches/speed.rs", bench);
        write("demo/tests/t.rs", bench);
        write("target/release/build/x/out/gen.rs", bench);
        write(
            "src/lib.rs",
            "// a comment naming #[bench] is not one\npub fn f() {}\n",
        );
        let found = unit_test_benches(root);
        assert_eq!(
            found,
            [
                PathBuf::from("demo/src/sort.rs"),
                PathBuf::from("demo/src/tsp/bench.rs")
            ]
        );
        let clause = unit_test_benches_clause(&found).unwrap();
        assert!(
            clause.starts_with(
                "`#[bench]` functions in the unit tests of a library or binary \
                 (`demo/src/sort.rs`, `demo/src/tsp/bench.rs`) are run by `cargo bench`"
            ),
            "{clause}"
        );
        assert_eq!(unit_test_benches_clause(&[]), None);
    }

    #[test]
    fn more_than_three_files_are_counted() {
        let files: Vec<PathBuf> = (1..=5)
            .map(|i| PathBuf::from(format!("src/m{i}.rs")))
            .collect();
        let clause = unit_test_benches_clause(&files).unwrap();
        assert!(
            clause.contains("(`src/m1.rs`, `src/m2.rs`, `src/m3.rs` (+2 more))"),
            "{clause}"
        );
    }
}
