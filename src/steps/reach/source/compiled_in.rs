//! Files that are not Rust but are compiled in: a changed one makes its includer's code differ.
//!
//! Why: the source comparison reads a function's lines, and code a macro makes from a file
//! has the lines of the macro's call, not of that file. `include_str!("data.json")` in a
//! set-up function gives a string whose bytes change with `data.json` while the line reads
//! the same; a procedural macro reading a grammar (pest's `#[derive(Parser)] #[grammar =
//! "grammars/json.pest"]`, field trial `pest-json-ctrl`) writes parsers whose every line is
//! the `#[derive]`'s. Neither shows in the changed Rust items ([`super::changed_names`]), so
//! a function whose code changed with such a file was the same source. A Rust file whose text
//! names a changed file of the checkout that is not Rust (by its file name: a macro may be
//! given the path relative to anywhere) may compile it in, so a function with lines in that
//! file differs. Conservative: the name may be in a comment or a string used at run time
//! (then the benchmark is measured when it need not be). A file whose name is built, not
//! written, is not found by its name: `include_bytes!(concat!(env!("OUT_DIR"), "/table.bin"))`
//! compiles in what a build script made, perhaps from a data file of the checkout it reads by
//! a name of its own (or a whole folder), and `include_str!(concat!("data/", "x.json"))` spells
//! no name whole. So a Rust file that names `OUT_DIR` or passes `concat!` to an `include`
//! macro names every changed file that is not Rust ([`builds_a_name`]). What this misses is
//! code inlined into functions compared without a symbol ([`super::inlined`]).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Those of `others`, the files of the two checkouts that are not Rust (version control and
/// build directories left out), whose bytes differ (or that one side lacks), by their path in
/// the checkout.
pub(super) fn changed_other_files(
    base: &Path,
    head: &Path,
    others: BTreeSet<PathBuf>,
) -> Vec<PathBuf> {
    let read = |checkout: &Path, file: &Path| std::fs::read(checkout.join(file)).ok();
    others
        .into_iter()
        .filter(|file| read(base, file) != read(head, file))
        .collect()
}

/// How one of `texts` names one of `others`, the changed files that are not Rust: `names
/// <path>` for the first whose file name it holds, else, for a text that builds the name of
/// what it compiles in ([`builds_a_name`]), what it may compile in from the first.
pub(super) fn named_by(texts: [&str; 2], others: &[PathBuf]) -> Option<String> {
    let by_name = others.iter().find(|other| {
        let name = other.file_name().map(|n| n.to_string_lossy().into_owned());
        name.is_some_and(|name| texts.iter().any(|text| text.contains(&name)))
    });
    if let Some(other) = by_name {
        return Some(format!("names {}", other.display()));
    }
    let first = others.first()?;
    texts.iter().any(|text| builds_a_name(text)).then(|| {
        format!(
            "compiles in a file whose name it builds (`OUT_DIR`, `concat!`), which may be made \
             from {} (or another changed file)",
            first.display()
        )
    })
}

/// Whether `text` compiles in a file whose name is built rather than written: it names a build
/// script's `OUT_DIR`, or gives `concat!` to `include!`, `include_str!` or `include_bytes!`.
fn builds_a_name(text: &str) -> bool {
    if text.contains("OUT_DIR") {
        return true;
    }
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    [
        "include!(concat!",
        "include_str!(concat!",
        "include_bytes!(concat!",
    ]
    .iter()
    .any(|call| compact.contains(call))
}

/// Why code with lines in one of `files` (each as compared) differs, when one of them names a
/// changed file that is not Rust ([`super::ChangedNames`]'s `compiled_in`).
pub(super) fn reason<'f>(
    files: impl IntoIterator<Item = &'f String>,
    changed: &super::ChangedNames,
) -> Option<String> {
    files.into_iter().find_map(|file| {
        let other = changed.compiled_in.get(file)?;
        Some(format!(
            "its lines are in {file}, which {other}: the commit changes that file, which is not \
             Rust, and code a macro compiles in from it has the macro's lines"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn changed() -> Vec<PathBuf> {
        vec![PathBuf::from("data/zones.txt"), PathBuf::from("README.md")]
    }

    #[test]
    fn a_file_written_by_name_is_named() {
        let text = "const README: &str = include_str!(\"../README.md\");";
        let named = named_by([text, text], &changed());
        assert_eq!(named.as_deref(), Some("names README.md"));
        assert_eq!(named_by(["fn f() {}", "fn f() {}"], &changed()), None);
    }

    #[test]
    fn a_file_whose_name_is_built_may_be_any_changed_file() {
        // A build script's output (chrono-tz's shape: tables generated from data files), and a
        // name `concat!` assembles.
        for text in [
            "include!(concat!(env!(\"OUT_DIR\"), \"/timezones.rs\"));",
            "static T: &[u8] = include_bytes!(concat!(env!(\"OUT_DIR\"), \"/t.bin\"));",
            "const J: &str = include_str!(\n    concat!(\"data/\", \"x.json\"),\n);",
        ] {
            let named = named_by(["fn f() {}", text], &changed()).unwrap();
            assert!(
                named.contains("which may be made from data/zones.txt"),
                "{named}"
            );
        }
        // `concat!` elsewhere builds no file's name; nothing changed, nothing named.
        let format = "const V: &str = concat!(\"v\", env!(\"CARGO_PKG_VERSION\"));";
        assert_eq!(named_by([format, format], &changed()), None);
        let out_dir = "include!(concat!(env!(\"OUT_DIR\"), \"/t.rs\"));";
        assert_eq!(named_by([out_dir, out_dir], &[]), None);
    }
}
