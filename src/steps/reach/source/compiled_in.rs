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
//! (then the benchmark is measured when it need not be); what it misses is a file named only
//! by a build script or a macro that builds the name (`concat!`), and code inlined into
//! functions compared without a symbol ([`super::inlined`]).

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

/// The first of `others` whose file name one of `texts` holds, as its path in the checkout.
pub(super) fn named_by(texts: [&str; 2], others: &[PathBuf]) -> Option<String> {
    others
        .iter()
        .find(|other| {
            let name = other.file_name().map(|n| n.to_string_lossy().into_owned());
            name.is_some_and(|name| texts.iter().any(|text| text.contains(&name)))
        })
        .map(|other| other.display().to_string())
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
            "its lines are in {file}, which names {other}: the commit changes that file, which \
             is not Rust, and code a macro compiles in from it has the macro's lines"
        ))
    })
}
