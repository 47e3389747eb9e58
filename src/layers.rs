//! Keeps the layer rule of the crate docs: every `crate::…` path in a module's source names a
//! module listed *before* it in [`LAYERS`] (or the module itself). The list runs bottom to top;
//! within a layer, in the order of the data flow. A new upward import fails
//! [`every_import_points_down`], naming the file, the path and both modules.
//!
//! Below the listed modules, the files (and folders) of one module import from each other as they
//! need, but never round a circle: [`no_import_circle_between_files`] follows every `crate::`,
//! `super::` and `self::` path from one child of a module to another (and the names the parent
//! imports from a child, `pub use cargo::run_cargo`), and names each circle with the imports that
//! close it. [`no_function_passes_80_lines`] keeps functions short enough to read at once.
//!
//! Why text and not a parser: the sources are rustfmt-formatted, so comments, literals, paths and
//! a function's closing brace can be told line by line, and the check needs no new dependency.

use std::collections::{BTreeMap, BTreeSet};
use std::iter::Peekable;
use std::path::{Path, PathBuf};
use std::str::Chars;

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
            "steps::fork_length",
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

/// Files that are not modules of a layer: the crate root, the programs' `main`s (`cargo-perfdiff`
/// and the measuring helper, `src/bin/`) and this check.
const OUTSIDE_LAYERS: &[&str] = &["lib", "main", "bin::perfdiff-exec", "layers"];

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

/// The source without comments (doc links may point anywhere), string literals (raw ones too) and
/// character literals (`'{'` would unbalance the braces). The lines stay where they were: a
/// string's line breaks are kept, so a line number in the result is one in the file.
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
                code.push('"');
                let hashes = raw_string_hashes(&code[..code.len() - 1]);
                let mut escaped = false;
                while let Some(c) = chars.next() {
                    if c == '\n' {
                        code.push('\n');
                    }
                    if c == '"' && !escaped && closes_raw_string(&mut chars, hashes) {
                        break;
                    }
                    escaped = hashes.is_none() && c == '\\' && !escaped;
                }
                code.push('"');
            }
            '\'' => {
                code.push('\'');
                if skip_char_literal(&mut chars) {
                    code.push('\'');
                }
            }
            _ => code.push(c),
        }
    }
    code
}

/// How many `#` open the raw string whose `"` follows `before` (`r#"` → 1, `br"` → 0), or `None`
/// when the string is not raw.
fn raw_string_hashes(before: &str) -> Option<usize> {
    let prefix = before.trim_end_matches('#');
    let hashes = before.len() - prefix.len();
    let before_r = prefix.strip_suffix('r')?;
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    let raw = before_r.strip_suffix('b').unwrap_or(before_r);
    (!raw.ends_with(is_ident)).then_some(hashes)
}

/// Whether the `"` just read ends the string: it does in a plain string, and in a raw one when
/// as many `#` follow as opened it (they are then consumed).
fn closes_raw_string(chars: &mut Peekable<Chars>, hashes: Option<usize>) -> bool {
    let Some(hashes) = hashes else {
        return true;
    };
    if chars.clone().take(hashes).filter(|&c| c == '#').count() < hashes {
        return false;
    }
    for _ in 0..hashes {
        chars.next();
    }
    true
}

/// After a `'`: skips a character literal (`'{'`, `'\''`, `'\u{7d}'`) and its closing quote; a
/// lifetime (`'a`) is left as it is. Whether one was skipped.
fn skip_char_literal(chars: &mut Peekable<Chars>) -> bool {
    let mut ahead = chars.clone();
    match (ahead.next(), ahead.next()) {
        (Some('\\'), _) => {
            chars.next();
            chars.next();
            for c in chars.by_ref() {
                if c == '\'' {
                    break;
                }
            }
            true
        }
        (Some(_), Some('\'')) => {
            chars.next();
            chars.next();
            true
        }
        _ => false,
    }
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

/// Whether `c` can be part of an identifier.
fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The byte offset of the `}` that closes the `{` at `open` (the end of `code` if none does).
fn matching_brace(code: &str, open: usize) -> usize {
    let mut depth = 0usize;
    for (i, c) in code[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return open + i;
                }
            }
            _ => {}
        }
    }
    code.len()
}

/// The inline modules of a file (`mod tests { … }`), outer ones first: each name with the byte
/// range of its body, so that a `super::` inside one is resolved from it.
fn inline_modules(code: &str) -> Vec<(String, std::ops::Range<usize>)> {
    let mut found = Vec::new();
    for (start, _) in code.match_indices("mod ") {
        if code[..start].ends_with(is_ident_char) {
            continue;
        }
        let rest = &code[start + "mod ".len()..];
        let name: String = rest.chars().take_while(|&c| is_ident_char(c)).collect();
        let after = rest[name.len()..].trim_start();
        if !name.is_empty() && after.starts_with('{') {
            let open = code.len() - after.len();
            found.push((name, open..matching_brace(code, open)));
        }
    }
    found
}

/// The module that the code at `offset` of `module`'s file is in.
fn module_at(module: &str, inline: &[(String, std::ops::Range<usize>)], offset: usize) -> String {
    let mut path = module.to_string();
    for (name, _) in inline.iter().filter(|(_, body)| body.contains(&offset)) {
        path = join_path(&path, name);
    }
    path
}

/// `a::b` and `c` → `a::b::c`; the crate root is the empty path.
fn join_path(head: &str, tail: &str) -> String {
    match (head.is_empty(), tail.is_empty()) {
        (true, _) => tail.to_string(),
        (_, true) => head.to_string(),
        _ => format!("{head}::{tail}"),
    }
}

/// The paths a use tree (or a path in code) at the start of `text` names, each with the name it
/// binds: `a::{b, c::d as e, self, f::*}` → (`a::b`, `b`), (`a::c::d`, `e`), (`a`, `a`), (`a::f`, `*`).
fn expand_tree(text: &str) -> Vec<(String, String)> {
    let is_path_char = |c: char| is_ident_char(c) || c == ':';
    let head: String = text.chars().take_while(|&c| is_path_char(c)).collect();
    let rest = &text[head.len()..];
    let head = head.trim_end_matches(':');
    if rest.starts_with('{') {
        let body = &rest[1..matching_brace(rest, 0)];
        let mut items = Vec::new();
        let mut depth = 0usize;
        let mut start = 0;
        for (i, c) in body.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth = depth.saturating_sub(1),
                ',' if depth == 0 => {
                    items.push(&body[start..i]);
                    start = i + 1;
                }
                _ => {}
            }
        }
        items.push(&body[start..]);
        let items = items.into_iter().map(str::trim).filter(|i| !i.is_empty());
        return items
            .flat_map(expand_tree)
            .map(|(path, name)| match path.as_str() {
                "self" => (
                    head.to_string(),
                    head.rsplit("::").next().unwrap().to_string(),
                ),
                _ => (join_path(head, &path), name),
            })
            .collect();
    }
    let name = match (rest.starts_with('*'), rest.trim_start().strip_prefix("as ")) {
        (true, _) => "*".to_string(),
        (_, Some(alias)) => alias
            .trim_start()
            .chars()
            .take_while(|&c| is_ident_char(c))
            .collect(),
        _ => head.rsplit("::").next().unwrap().to_string(),
    };
    vec![(head.to_string(), name)]
}

/// `path` (as written in `base`) from the crate root, if it starts with `crate::`, `self::` or
/// `super::`: in `steps::build::cargo`, `super::keep::X` is `steps::build::keep::X`.
fn resolve(path: &str, base: &str) -> Option<String> {
    if let Some(rest) = path.strip_prefix("crate::") {
        return Some(rest.to_string());
    }
    let mut parent: Vec<&str> = base.split("::").filter(|s| !s.is_empty()).collect();
    let mut rest = path.strip_prefix("self::");
    if rest.is_none() && path.starts_with("super::") {
        let mut tail = path;
        while let Some(after) = tail.strip_prefix("super::") {
            parent.pop();
            tail = after;
        }
        rest = Some(tail);
    }
    Some(join_path(&parent.join("::"), rest?))
}

/// Every path a file names through `crate::`, `self::` or `super::`, from the crate root, each
/// with the text it was written as.
fn file_references(code: &str, module: &str) -> Vec<(String, String)> {
    let inline = inline_modules(code);
    let mut found = Vec::new();
    for prefix in ["crate::", "self::", "super::"] {
        for (start, _) in code.match_indices(prefix) {
            if code[..start].ends_with(|c: char| is_ident_char(c) || ":$".contains(c)) {
                continue; // `$crate::`, the second `super::` of `super::super::`
            }
            let base = module_at(module, &inline, start);
            for (path, _) in expand_tree(&code[start..]) {
                if let Some(resolved) = resolve(&path, &base) {
                    found.push((resolved, path));
                }
            }
        }
    }
    found
}

/// The names a module's own file imports from its child modules at its top level (`pub use
/// cargo::run_cargo;` in `steps/build/mod.rs`), each with that child: a sibling that names
/// `super::run_cargo` depends on `cargo`.
fn child_aliases(
    code: &str,
    module: &str,
    children: &BTreeSet<String>,
) -> BTreeMap<String, String> {
    let mut aliases = BTreeMap::new();
    let mut depth = 0usize;
    let mut last = 0;
    for (start, _) in code.match_indices("use ") {
        for c in code[last..start].chars() {
            match c {
                '{' => depth += 1,
                '}' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        last = start;
        if depth > 0 || code[..start].ends_with(is_ident_char) {
            continue;
        }
        for (path, name) in expand_tree(code[start + "use ".len()..].trim_start()) {
            let full = resolve(&path, module).unwrap_or_else(|| join_path(module, &path));
            let below = match module.is_empty() {
                true => Some(full.as_str()),
                false => full.strip_prefix(&format!("{module}::")),
            };
            let Some(below) = below else {
                continue;
            };
            let child = below.split("::").next().unwrap_or_default();
            if children.contains(child) && name != "*" && name != child {
                aliases.insert(name, child.to_string());
            }
        }
    }
    aliases
}

/// The source file of `module`'s own code (the crate root's is `lib.rs`).
fn own_file(src: &Path, module: &str) -> Option<PathBuf> {
    if module.is_empty() {
        return Some(src.join("lib.rs"));
    }
    let path = src.join(module.replace("::", "/"));
    [path.join("mod.rs"), path.with_extension("rs")]
        .into_iter()
        .find(|file| file.is_file())
}

/// Imports between the children of one module: parent → (from child → (to child → where)).
type SiblingImports = BTreeMap<String, BTreeMap<String, BTreeMap<String, String>>>;

/// Every import from one child of a module to another (sibling files or folders), through a path
/// to the other child or a name the parent imports from it. The parent's own file may use its
/// children as it likes: it is not a sibling.
fn sibling_imports(src: &Path) -> SiblingImports {
    let mut files = Vec::new();
    source_files(src, &mut files);
    let modules: Vec<(PathBuf, String)> = files
        .into_iter()
        .map(|file| {
            let module = module_of(file.strip_prefix(src).unwrap());
            (file, module)
        })
        .filter(|(_, module)| !OUTSIDE_LAYERS.contains(&module.as_str()))
        .collect();
    let mut children: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (_, module) in &modules {
        let segments: Vec<&str> = module.split("::").collect();
        for i in 0..segments.len() {
            let parent = segments[..i].join("::");
            children
                .entry(parent)
                .or_default()
                .insert(segments[i].to_string());
        }
    }
    let aliases: BTreeMap<&String, BTreeMap<String, String>> = children
        .iter()
        .filter_map(|(parent, kids)| {
            let code = code_only(&std::fs::read_to_string(own_file(src, parent)?).unwrap());
            Some((parent, child_aliases(&code, parent, kids)))
        })
        .collect();
    let mut imports = SiblingImports::new();
    for (file, module) in &modules {
        let code = code_only(&std::fs::read_to_string(file).unwrap());
        let from: Vec<&str> = module.split("::").collect();
        for (target, written) in file_references(&code, module) {
            let to: Vec<&str> = target.split("::").collect();
            let shared = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
            if shared + 1 > from.len().min(to.len()) {
                continue; // the module itself, or one of its ancestors or descendants
            }
            let parent = from[..shared].join("::");
            let name = to[shared];
            let sibling = match children.get(&parent) {
                Some(kids) if kids.contains(name) => name.to_string(),
                _ => match aliases.get(&parent).and_then(|a| a.get(name)) {
                    Some(child) => child.clone(),
                    None => continue,
                },
            };
            if sibling != from[shared] {
                let relative = file.strip_prefix(src).unwrap().display();
                imports
                    .entry(parent)
                    .or_default()
                    .entry(from[shared].to_string())
                    .or_default()
                    .entry(sibling)
                    .or_insert_with(|| format!("src/{relative}: {written}"));
            }
        }
    }
    imports
}

/// Every import circle among the children of a module, as a line naming it, each import with
/// where it is written: `orchestrate::run: count → rounds → count (…)`.
fn import_circles(imports: &SiblingImports) -> Vec<String> {
    let mut circles = Vec::new();
    for (parent, graph) in imports {
        let mut seen = BTreeSet::new();
        for start in graph.keys() {
            if seen.contains(start) {
                continue;
            }
            let Some(circle) = shortest_circle(graph, start) else {
                continue;
            };
            seen.extend(circle.iter().cloned());
            let places: Vec<&str> = circle
                .windows(2)
                .map(|pair| graph[&pair[0]][&pair[1]].as_str())
                .collect();
            let name = if parent.is_empty() { "crate" } else { parent };
            circles.push(format!(
                "{name}: {} ({})",
                circle.join(" → "),
                places.join("; ")
            ));
        }
    }
    circles
}

/// The shortest way from `start` back to itself through the imports of `graph`, as the children
/// passed, `start` first and last (breadth first, so a two-file circle is named as two files).
fn shortest_circle(
    graph: &BTreeMap<String, BTreeMap<String, String>>,
    start: &String,
) -> Option<Vec<String>> {
    let mut came_from: BTreeMap<&String, &String> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(node) = queue.pop_front() {
        for next in graph.get(node).into_iter().flat_map(BTreeMap::keys) {
            if next == start {
                let mut circle = vec![start.clone()];
                let mut at = node;
                while at != start {
                    circle.push(at.clone());
                    at = came_from[at];
                }
                circle.push(start.clone());
                circle.reverse();
                return Some(circle);
            }
            if !came_from.contains_key(next) {
                came_from.insert(next, node);
                queue.push_back(next);
            }
        }
    }
    None
}

/// The longest a function may be, in lines from `fn` to its closing brace.
const MAX_FUNCTION_LINES: usize = 80;

/// Every function of rustfmt-formatted `code` (comments and strings blanked by [`code_only`]):
/// (the line its `fn` is on, from 1; its name; its lines from `fn` to the closing brace). A
/// function's closing brace is the first line after it that is a `}` at the `fn`'s indentation;
/// a declaration without a body (in a trait) is left out.
fn function_lengths(code: &str) -> Vec<(usize, String, usize)> {
    let lines: Vec<&str> = code.lines().collect();
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(name) = function_name(line) else {
            continue;
        };
        let indent = line.len() - line.trim_start().len();
        let end = if line.trim_end().ends_with(';') {
            None
        } else if line.trim_end().ends_with('}') && line.contains('{') {
            Some(i)
        } else {
            closing_line(&lines, i, indent)
        };
        if let Some(end) = end {
            found.push((i + 1, name, end - i + 1));
        }
    }
    found
}

/// The line of the `}` that closes the function whose `fn` is on line `start` at `indent`: the
/// first line after it at that indentation that is `}`, unless a `;` there ends a declaration.
fn closing_line(lines: &[&str], start: usize, indent: usize) -> Option<usize> {
    for (j, line) in lines.iter().enumerate().skip(start + 1) {
        let text = line.trim();
        let own = line.len() - line.trim_start().len();
        if text.is_empty() || own > indent {
            continue;
        }
        if own < indent || text.ends_with(';') {
            return None;
        }
        if text == "}" {
            return Some(j);
        }
    }
    None
}

/// The function a line declares (`pub(crate) async fn name(`), if it starts one.
fn function_name(line: &str) -> Option<String> {
    let mut rest = line.trim_start();
    let qualifiers = [
        "pub(crate) ",
        "pub(super) ",
        "pub ",
        "const ",
        "async ",
        "unsafe ",
        "extern \"\" ",
    ];
    while let Some(after) = qualifiers.iter().find_map(|q| rest.strip_prefix(q)) {
        rest = after;
    }
    let name: String = rest
        .strip_prefix("fn ")?
        .chars()
        .take_while(|&c| is_ident_char(c))
        .collect();
    (!name.is_empty()).then_some(name)
}

/// Every function under `src` longer than [`MAX_FUNCTION_LINES`], as `file:line name (N lines)`.
fn long_functions(src: &Path) -> Vec<String> {
    let mut files = Vec::new();
    source_files(src, &mut files);
    files.sort();
    let mut long = Vec::new();
    for file in files {
        let code = code_only(&std::fs::read_to_string(&file).unwrap());
        for (line, name, lines) in function_lengths(&code) {
            if lines > MAX_FUNCTION_LINES {
                let relative = file.strip_prefix(src).unwrap().display();
                long.push(format!("src/{relative}:{line} {name} ({lines} lines)"));
            }
        }
    }
    long
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

/// No two files (or folders) of one module import from each other, directly or round a longer
/// circle: what both need goes into a file of its own, or down into the one the other uses.
#[test]
fn no_import_circle_between_files() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let circles = import_circles(&sibling_imports(&src));
    assert!(
        circles.is_empty(),
        "import circles between the files of a module (move what they share into a file of its \
         own, or down into one of them):\n{}",
        circles.join("\n")
    );
}

/// Functions stay small enough to read at once: none passes [`MAX_FUNCTION_LINES`].
#[test]
fn no_function_passes_80_lines() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let long = long_functions(&src);
    assert!(
        long.is_empty(),
        "functions longer than {MAX_FUNCTION_LINES} lines (from `fn` to the closing brace):\n{}",
        long.join("\n")
    );
}

#[test]
fn literals_are_blanked_and_lines_kept() {
    let code = code_only(
        "let a = r#\"x \" crate::a {\"#; // crate::b\nlet b = '{'; let c = '\\''; fn f<'a>() {}\nlet d = \"two\nlines\"; let e = br\"\\\"; crate::c",
    );
    assert_eq!(
        code,
        "let a = r#\"\"; \nlet b = ''; let c = ''; fn f<'a>() {}\nlet d = \"\n\"; let e = br\"\"; crate::c"
    );
}

#[test]
fn use_trees_are_expanded_with_the_names_they_bind() {
    let tree = "super::{rounds::{self, Layout as L}, count::*, fork_timeout};\nrest::x";
    assert_eq!(
        expand_tree(tree),
        [
            ("super::rounds", "rounds"),
            ("super::rounds::Layout", "L"),
            ("super::count", "*"),
            ("super::fork_timeout", "fork_timeout"),
        ]
        .map(|(path, name)| (path.to_string(), name.to_string()))
    );
}

#[test]
fn imports_between_siblings_are_found_through_paths_and_reexports() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    let files = [
        ("lib.rs", "pub mod m;"),
        (
            "m/mod.rs",
            "mod a;\nmod b;\nmod c;\npub use b::Thing;\nfn f() { use c::Hidden; }",
        ),
        (
            "m/a.rs",
            "use super::Thing;\n// super::c::X\nfn f() -> super::Hidden {}",
        ),
        ("m/b.rs", "pub struct Thing;\nfn f() { crate::m::c::g() }"),
        ("m/c.rs", "mod tests {\n    use super::super::a::f;\n}"),
    ];
    for (path, text) in files {
        let path = src.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let imports = sibling_imports(src);
    let m = &imports["m"];
    let edges: Vec<(&str, &str)> = m
        .iter()
        .flat_map(|(from, to)| to.keys().map(move |to| (from.as_str(), to.as_str())))
        .collect();
    assert_eq!(edges, [("a", "b"), ("b", "c"), ("c", "a")]);
    assert_eq!(m["c"]["a"], "src/m/c.rs: super::super::a::f");
    assert_eq!(
        import_circles(&imports),
        [
            "m: a → b → c → a (src/m/a.rs: super::Thing; src/m/b.rs: crate::m::c::g; src/m/c.rs: super::super::a::f)"
        ]
    );
}

#[test]
fn functions_are_measured_from_fn_to_their_closing_brace() {
    let code = "\
pub(crate) fn short() -> u8 { 1 }
fn signature(
    a: u8,
) -> u8
where
    u8: Copy,
{
    a
}
trait T {
    fn declared(&self);
    fn declared_long(
        &self,
    ) -> u8;
    fn provided(&self) {
        let _ = 1;
    }
}";
    let found = function_lengths(code);
    let found: Vec<(usize, &str, usize)> = found
        .iter()
        .map(|(line, name, lines)| (*line, name.as_str(), *lines))
        .collect();
    assert_eq!(
        found,
        [(1, "short", 1), (2, "signature", 8), (15, "provided", 3)]
    );
}
