//! Keeps the layer rule of the crate docs: every `crate::…` path in a module's source names a
//! module listed *before* it in [`LAYERS`] (or the module itself). The list runs bottom to top;
//! within a layer, in the order of the data flow. A new upward import fails
//! [`every_import_points_down`], naming the file, the path and both modules.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The modules of the crate from the bottom up: (layer, modules of that layer in order).
const LAYERS: &[(&str, &[&str])] = &[
    ("leaf utilities", &["util"]),
    // The `perfdiff-stats` crate, re-exported: the compiler keeps it free of the others.
    ("statistics", &["stats"]),
    (
        "data model",
        &[
            "model::harness",
            "model::target",
            "model::profile",
            "model::policy",
            "model::command",
            "model::samples",
        ],
    ),
    (
        "steps",
        &[
            "steps::git",
            "steps::build",
            "steps::schedule",
            "steps::discover",
            "steps::fork",
            "steps::instructions",
            "steps::reach",
            "steps::analysis",
            "steps::stop",
            "steps::report",
            "steps::estimate",
            "steps::progress",
        ],
    ),
    ("configuration", &["config"]),
    (
        "orchestration",
        &[
            "orchestrate::error",
            "orchestrate::run",
            "orchestrate::replay",
            "orchestrate::demo",
            "orchestrate::bisect",
        ],
    ),
    ("command line", &["cli"]),
];

/// Files that are not modules of a layer: the crate root and this check.
const OUTSIDE_LAYERS: &[&str] = &["lib", "main", "layers"];

/// Position of `module` (a `::` path) in the flattened [`LAYERS`]: the longest listed prefix.
fn rank(module: &str) -> Option<(usize, &'static str)> {
    LAYERS
        .iter()
        .flat_map(|(_, modules)| modules.iter())
        .enumerate()
        .filter(|(_, listed)| module == **listed || module.starts_with(&format!("{listed}::")))
        .max_by_key(|(_, listed)| listed.len())
        .map(|(i, listed)| (i, *listed))
}

/// Whether `module` only gathers listed modules (`steps`, `model`): its `mod.rs` declares them.
fn is_folder_of_layers(module: &str) -> bool {
    rank(module).is_none()
        && LAYERS
            .iter()
            .flat_map(|(_, modules)| modules.iter())
            .any(|listed| listed.starts_with(&format!("{module}::")))
}

/// The module path of a source file under `src/`: `src/steps/fork/mod.rs` → `steps::fork`.
fn module_of(relative: &Path) -> String {
    let mut parts: Vec<String> = relative
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts.join("::")
}

/// The source without comments (doc links may point anywhere) and without string literals.
fn code_only(source: &str) -> String {
    let mut code = String::with_capacity(source.len());
    let mut chars = source.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        code.push('\n');
                        break;
                    }
                }
            }
            '"' => {
                let mut escaped = false;
                for c in chars.by_ref() {
                    if c == '"' && !escaped {
                        break;
                    }
                    escaped = c == '\\' && !escaped;
                }
                code.push_str("\"\"");
            }
            _ => code.push(c),
        }
    }
    code
}

/// Every path after `crate::`, with `use crate::{a::b, c}` groups spelled out (`a::b`, `c`).
fn crate_paths(code: &str) -> Vec<String> {
    let is_path_char = |c: char| c.is_alphanumeric() || c == '_' || c == ':';
    let mut paths = Vec::new();
    for (start, _) in code.match_indices("crate::") {
        if code[..start].ends_with(|c: char| c.is_alphanumeric() || "_:$".contains(c)) {
            continue; // `cargo_perfdiff::`, `$crate::` and the like
        }
        let rest = &code[start + "crate::".len()..];
        let head: String = rest.chars().take_while(|&c| is_path_char(c)).collect();
        if rest[head.len()..].starts_with('{') {
            let group = &rest[head.len() + 1..];
            let group = &group[..group.find('}').unwrap_or(group.len())];
            for item in group.split(',').map(str::trim).filter(|i| !i.is_empty()) {
                paths.push(format!("{head}{item}"));
            }
        } else {
            paths.push(head);
        }
    }
    paths
}

/// Every path after `super::` (one or more), resolved against `module` to a path from the crate
/// root: in `steps::build::cargo`, `super::keep::X` is `steps::build::keep::X`.
fn super_paths(code: &str, module: &str) -> Vec<String> {
    let is_path_char = |c: char| c.is_alphanumeric() || c == '_' || c == ':';
    let mut paths = Vec::new();
    for (start, _) in code.match_indices("super::") {
        if code[..start].ends_with(|c: char| c.is_alphanumeric() || "_:".contains(c)) {
            continue; // the second `super::` of `super::super::`, seen with the first
        }
        let mut parent: Vec<&str> = module.split("::").collect();
        let mut tail = &code[start..];
        while let Some(after) = tail.strip_prefix("super::") {
            parent.pop();
            tail = after;
        }
        let path: String = tail.chars().take_while(|&c| is_path_char(c)).collect();
        parent.push(&path);
        paths.push(parent.join("::"));
    }
    paths
}

fn source_files(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            source_files(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}

/// Every import from a module to one listed after it, as `file: path (from → to)`.
fn upward_imports(src: &Path) -> Vec<String> {
    let mut files = Vec::new();
    source_files(src, &mut files);
    let mut upward = BTreeSet::new();
    for file in files {
        let relative = file.strip_prefix(src).unwrap();
        let module = module_of(relative);
        if OUTSIDE_LAYERS.contains(&module.as_str()) || is_folder_of_layers(&module) {
            continue;
        }
        let (own, own_name) = rank(&module).unwrap_or_else(|| {
            panic!(
                "{} is in no layer: add its module to LAYERS",
                relative.display()
            )
        });
        let code = code_only(&std::fs::read_to_string(&file).unwrap());
        let mut paths = crate_paths(&code);
        paths.extend(super_paths(&code, &module));
        for path in paths {
            let Some((target, target_name)) = rank(&path) else {
                continue; // the crate root's re-exports
            };
            if target > own {
                upward.insert(format!(
                    "{}: crate::{path} ({own_name} → {target_name})",
                    relative.display()
                ));
            }
        }
    }
    upward.into_iter().collect()
}

#[test]
fn every_import_points_down() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let upward = upward_imports(&src);
    assert!(
        upward.is_empty(),
        "imports that point up the layers of src/lib.rs:\n{}",
        upward.join("\n")
    );
}

/// The command line is clap's only user: below it, no module names clap.
#[test]
fn clap_only_in_the_command_line() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    source_files(&src, &mut files);
    let outside: Vec<String> = files
        .iter()
        .filter(|file| !file.strip_prefix(&src).unwrap().starts_with("cli"))
        .filter(|file| code_only(&std::fs::read_to_string(file).unwrap()).contains("clap::"))
        .map(|file| file.display().to_string())
        .collect();
    assert!(outside.is_empty(), "clap outside src/cli: {outside:?}");
}

/// Every listed module has its source under `src/` (`stats` is the `perfdiff-stats` crate, whose
/// manifest lets it depend on nothing of ours).
#[test]
fn every_listed_module_exists() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    for (_, modules) in LAYERS {
        for module in modules.iter().filter(|&&m| m != "stats") {
            let path = src.join(module.replace("::", "/"));
            assert!(
                path.is_dir() || path.with_extension("rs").is_file(),
                "{module} is listed in LAYERS but has no source"
            );
        }
    }
}

#[test]
fn super_paths_are_resolved_from_the_module() {
    let code = code_only("use super::keep::BuildSite;\nlet x = super::super::fork::run();");
    assert_eq!(
        super_paths(&code, "steps::build::cargo"),
        ["steps::build::keep::BuildSite", "steps::fork::run"]
    );
}

#[test]
fn grouped_and_plain_paths_are_both_seen() {
    let code = code_only(
        "use crate::{a::b, c};\n// crate::d in a comment\nlet s = \"crate::e\"; crate::f::g();\nx::crate::h",
    );
    assert_eq!(crate_paths(&code), ["a::b", "c", "f::g"]);
}
