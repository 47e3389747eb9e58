//! Procedural macros whose code the commit changes: the names they are called by change too.
//!
//! Why: code a procedural macro writes has the lines of the macro's call (`#[derive(Logos)]`),
//! and those lines read the same when the macro's own code changed, or the code of a package
//! of the checkout it builds on. logos' lexers are written by `logos-derive`, which calls
//! `logos-codegen` (field trial `logos-unroll`: the commit changes only how far
//! `logos-codegen` unrolls the loops it writes). No line of the call names an item of
//! `logos-codegen`, so the lexer was "the same source": a set-up that ran it would have been
//! skipped, and a verdict on it would have said the compiler inlined differently. So when the
//! commit changes a Rust file of a proc-macro package of the checkout, or of a package it
//! depends on by path (transitively), the names its macros are called by are changed names:
//! a derive's (`#[proc_macro_derive(Logos, …)]`), an attribute or function-like macro's (its
//! function's). Conservative: any function whose lines name one differs (an item of the same
//! name elsewhere, logos' trait `Logos`, too), and the names are read from the text of every
//! Rust file of the macro's package, comments included. The package's dependencies are read
//! from its manifest (`path = …`, or `workspace = true` through the `[workspace.dependencies]`
//! of any manifest of the checkout); a dependency outside the checkout cannot change with it.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

/// Each name a procedural macro of the two checkouts is called by, with why it changes, for
/// the macros whose package, or a package it depends on by path, holds one of `changed` (the
/// Rust files the commit changes, by their path in the checkout).
pub(super) fn changed_macros(checkouts: [&Path; 2], changed: &[PathBuf]) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for checkout in checkouts {
        let packages = Packages::read(checkout);
        for package in packages.proc_macros() {
            let Some(file) = changed
                .iter()
                .find(|f| packages.reached(package).iter().any(|d| f.starts_with(d)))
            else {
                continue;
            };
            for name in macro_names(checkout, &package.dir) {
                let why = format!(
                    "a procedural macro of {}, whose code the commit changes ({}): the code it \
                     writes has the lines of its call",
                    package.dir.display(),
                    file.display()
                );
                if !found.iter().any(|(n, _): &(String, String)| n == &name) {
                    found.push((name, why));
                }
            }
        }
    }
    found
}

/// A package of the checkout: its folder (relative to the checkout), whether it is a proc
/// macro, and the names and folders of its path dependencies.
struct Package {
    dir: PathBuf,
    proc_macro: bool,
    /// Path dependencies given by folder.
    paths: Vec<PathBuf>,
    /// Dependencies given as `workspace = true`, by name.
    inherited: Vec<String>,
}

/// Every package of a checkout, and its `[workspace.dependencies]` given by path.
struct Packages {
    packages: Vec<Package>,
    workspace_paths: Vec<(String, PathBuf)>,
}

impl Packages {
    fn read(checkout: &Path) -> Packages {
        let mut manifests = Vec::new();
        let _ = super::manifest_files(checkout, Path::new(""), &mut manifests);
        let mut packages = Packages {
            packages: Vec::new(),
            workspace_paths: Vec::new(),
        };
        for manifest in manifests {
            let Ok(text) = std::fs::read_to_string(&manifest) else {
                continue;
            };
            let Ok(table) = text.parse::<toml::Table>() else {
                continue;
            };
            let dir = manifest
                .parent()
                .and_then(|d| d.strip_prefix(checkout).ok())
                .unwrap_or(Path::new(""))
                .to_path_buf();
            packages.add(dir, &table);
        }
        packages
    }

    fn add(&mut self, dir: PathBuf, table: &toml::Table) {
        let workspace = table.get("workspace").and_then(|w| w.get("dependencies"));
        for (name, value) in workspace
            .and_then(toml::Value::as_table)
            .into_iter()
            .flatten()
        {
            let path = value.get("path").and_then(toml::Value::as_str);
            if let Some(folder) = path.and_then(|path| joined(&dir, path)) {
                self.workspace_paths.push((name.clone(), folder));
            }
        }
        if table.get("package").is_none() {
            return;
        }
        let lib = table.get("lib");
        let flag = |key| lib.and_then(|l| l.get(key)).and_then(toml::Value::as_bool);
        let mut package = Package {
            proc_macro: flag("proc-macro").or(flag("proc_macro")).unwrap_or(false),
            paths: Vec::new(),
            inherited: Vec::new(),
            dir,
        };
        for deps in dependency_tables(table) {
            for (name, value) in deps {
                if let Some(path) = value.get("path").and_then(toml::Value::as_str) {
                    package.paths.extend(joined(&package.dir, path));
                } else if value.get("workspace").and_then(toml::Value::as_bool) == Some(true) {
                    package.inherited.push(name.clone());
                }
            }
        }
        self.packages.push(package);
    }

    fn proc_macros(&self) -> impl Iterator<Item = &Package> {
        self.packages.iter().filter(|p| p.proc_macro)
    }

    /// The folders of `package` and of every package of the checkout it depends on by path,
    /// transitively.
    fn reached(&self, package: &Package) -> Vec<PathBuf> {
        let mut seen: BTreeSet<PathBuf> = BTreeSet::new();
        let mut todo = vec![package.dir.clone()];
        while let Some(dir) = todo.pop() {
            if !seen.insert(dir.clone()) {
                continue;
            }
            let Some(found) = self.packages.iter().find(|p| p.dir == dir) else {
                continue;
            };
            todo.extend(found.paths.iter().cloned());
            for name in &found.inherited {
                let paths = self.workspace_paths.iter().filter(|(n, _)| n == name);
                todo.extend(paths.map(|(_, p)| p.clone()));
            }
        }
        seen.into_iter().collect()
    }
}

/// The dependency tables of a manifest: `[dependencies]`, `[build-dependencies]` (a proc
/// macro's build script may write its code) and their `[target.….…]` forms.
fn dependency_tables(table: &toml::Table) -> Vec<&toml::Table> {
    let kinds = ["dependencies", "build-dependencies", "build_dependencies"];
    let mut tables: Vec<&toml::Table> = kinds
        .iter()
        .filter_map(|k| table.get(*k).and_then(toml::Value::as_table))
        .collect();
    let targets = table.get("target").and_then(toml::Value::as_table);
    for target in targets.into_iter().flat_map(|t| t.values()) {
        tables.extend(
            kinds
                .iter()
                .filter_map(|k| target.get(*k).and_then(toml::Value::as_table)),
        );
    }
    tables
}

/// `path` taken from the folder `dir` of the checkout, both relative to it; `None` outside it.
fn joined(dir: &Path, path: &str) -> Option<PathBuf> {
    let full = dir.join(path);
    let mut parts: Vec<Component> = Vec::new();
    for part in full.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::Normal(_) => parts.push(part),
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(parts.iter().collect())
}

/// The names the procedural macros of the package in `dir` are called by, read from the text
/// of its Rust files: a derive's first argument, an attribute or function-like macro's function.
fn macro_names(checkout: &Path, dir: &Path) -> BTreeSet<String> {
    let mut files = BTreeSet::new();
    let _ = super::files_where(checkout, dir, &super::is_rust_file, &mut files);
    let texts = files
        .iter()
        .filter_map(|f| std::fs::read_to_string(checkout.join(f)).ok());
    texts.flat_map(|text| names_in(&text)).collect()
}

/// [`macro_names`] of one file's text.
fn names_in(text: &str) -> Vec<String> {
    let ident = |rest: &str| -> Option<String> {
        let rest = rest.trim_start();
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        (end > 0).then(|| rest[..end].to_string())
    };
    let mut names = Vec::new();
    for (at, _) in text.match_indices("proc_macro_derive") {
        let rest = text[at + "proc_macro_derive".len()..].trim_start();
        names.extend(rest.strip_prefix('(').and_then(ident));
    }
    for attribute in ["proc_macro]", "proc_macro_attribute]"] {
        for (at, _) in text.match_indices(attribute) {
            let rest = &text[at..];
            let function = rest.find("fn ").map(|f| &rest[f + 3..]);
            names.extend(function.and_then(ident));
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, file: &str, text: &str) {
        let path = root.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// logos' shape: `logos-derive` (a proc macro, `Logos`) calls `logos-codegen` through a
    /// workspace dependency; the bench derives `Logos`.
    fn logos_shape(root: &Path) {
        write(
            root,
            "Cargo.toml",
            "[workspace]\nmembers = [\"derive\", \"codegen\", \"tests\"]\n\n\
             [workspace.dependencies]\ncodegen = { path = \"codegen\" }\n",
        );
        write(
            root,
            "derive/Cargo.toml",
            "[package]\nname = \"derive\"\n\n[lib]\nproc-macro = true\n\n\
             [dependencies]\ncodegen = { workspace = true }\n",
        );
        write(
            root,
            "derive/src/lib.rs",
            "#[proc_macro_derive(Logos, attributes(token))]\n\
             pub fn logos(input: TokenStream) -> TokenStream { codegen::generate(input) }\n\n\
             #[proc_macro]\npub fn lexer_for(input: TokenStream) -> TokenStream { input }\n",
        );
        write(
            root,
            "codegen/Cargo.toml",
            "[package]\nname = \"codegen\"\n",
        );
        write(root, "codegen/src/lib.rs", "pub fn generate() {}\n");
        write(
            root,
            "tests/Cargo.toml",
            "[package]\nname = \"tests\"\n\n[dependencies]\nderive = { path = \"../derive\" }\n",
        );
    }

    #[test]
    fn a_change_in_a_crate_a_proc_macro_calls_changes_the_macro_s_names() {
        let dir = tempfile::tempdir().unwrap();
        logos_shape(dir.path());
        let changed = [PathBuf::from("codegen/src/lib.rs")];
        let found = changed_macros([dir.path(), dir.path()], &changed);
        let names: Vec<&str> = found.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["Logos", "lexer_for"]);
        assert!(found[0].1.contains("derive") && found[0].1.contains("codegen/src/lib.rs"));
    }

    #[test]
    fn code_a_derive_writes_through_a_changed_codegen_crate_is_not_the_same_source() {
        // Field trial logos-unroll: the commit changes only logos-codegen, which logos-derive
        // calls; the lexer `#[derive(Logos)]` writes has the lines of the bench's derive.
        let (base, head) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        for (side, unroll) in [(&base, 16), (&head, 8)] {
            logos_shape(side.path());
            let generate = format!("pub fn generate() -> usize {{ {unroll} }}\n");
            write(side.path(), "codegen/src/lib.rs", &generate);
        }
        let changed = super::super::changed_names(base.path(), head.path()).unwrap();
        assert!(changed.contains("Logos"), "the derive's name must change");
        let reason = changed.reason("Logos", "tests/benches/bench.rs");
        assert!(
            reason.contains("a procedural macro of derive")
                && reason.contains("codegen/src/lib.rs"),
            "{reason}"
        );
        // The macro's crates the same, a change elsewhere: the derive's name does not change.
        let other = tempfile::tempdir().unwrap();
        logos_shape(other.path());
        write(
            other.path(),
            "codegen/src/lib.rs",
            "pub fn generate() -> usize { 16 }\n",
        );
        write(other.path(), "tests/src/lib.rs", "pub fn other() {}\n");
        let unchanged = super::super::changed_names(base.path(), other.path()).unwrap();
        assert!(!unchanged.contains("Logos"));
    }

    #[test]
    fn a_change_no_proc_macro_builds_on_changes_no_macro() {
        let dir = tempfile::tempdir().unwrap();
        logos_shape(dir.path());
        let changed = [PathBuf::from("tests/src/lib.rs")];
        assert!(changed_macros([dir.path(), dir.path()], &changed).is_empty());
    }

    #[test]
    fn a_path_outside_the_checkout_is_none() {
        assert_eq!(joined(Path::new("a"), "../b"), Some(PathBuf::from("b")));
        assert_eq!(joined(Path::new("a"), "../../b"), None);
    }
}
