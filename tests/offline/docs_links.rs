//! The README, `docs/` and the design notes in `docs/design/` are the product's front door: every
//! relative link and anchor in them must lead somewhere, every picture must exist, every design
//! note must say when it was last revised and be listed in the design index, and CI must run the
//! test command the README's first screen tells a newcomer to run.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The Markdown files directly in `dir`, sorted.
fn markdown_in(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    files.sort();
    files
}

/// The Markdown files a reader follows links through: the README, the user pages and the
/// design notes.
fn markdown_files() -> Vec<PathBuf> {
    let mut files = vec![root().join("README.md")];
    files.extend(markdown_in(&root().join("docs")));
    files.extend(markdown_in(&root().join("docs/design")));
    files
}

/// The lines of `text` outside fenced code blocks.
fn prose_lines(text: &str) -> Vec<&str> {
    let mut in_code = false;
    text.lines()
        .filter(|line| {
            if line.trim_start().starts_with("```") {
                in_code = !in_code;
                return false;
            }
            !in_code
        })
        .collect()
}

/// A heading's anchor as GitHub makes it: lower case, spaces to hyphens, punctuation other than
/// `-` and `_` dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a Markdown file's headings; a repeated heading gets `-1`, `-2`, … as on GitHub.
fn anchors(path: &Path) -> HashSet<String> {
    let text = fs::read_to_string(path).unwrap();
    let mut seen: HashSet<String> = HashSet::new();
    for line in prose_lines(&text) {
        let Some(heading) = line.strip_prefix('#') else {
            continue;
        };
        let base = slug(heading.trim_start_matches('#'));
        let mut anchor = base.clone();
        let mut n = 0;
        while seen.contains(&anchor) {
            n += 1;
            anchor = format!("{base}-{n}");
        }
        seen.insert(anchor);
    }
    seen
}

/// The targets of the inline links and images in `text`'s prose: `[text](target)`.
fn link_targets(text: &str) -> Vec<String> {
    let mut targets = Vec::new();
    for line in prose_lines(text) {
        let mut rest = line;
        while let Some(start) = rest.find("](") {
            rest = &rest[start + 2..];
            let end = rest.find(')').unwrap_or(rest.len());
            targets.push(rest[..end].to_string());
            rest = &rest[end..];
        }
    }
    targets
}

#[test]
fn every_relative_link_and_anchor_resolves() {
    let mut broken = Vec::new();
    for file in markdown_files() {
        let text = fs::read_to_string(&file).unwrap();
        for target in link_targets(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (path, anchor) = target.split_once('#').unwrap_or((&target, ""));
            let resolved = if path.is_empty() {
                file.clone()
            } else {
                file.parent().unwrap().join(path)
            };
            let name = file.strip_prefix(root()).unwrap().display().to_string();
            if !resolved.exists() {
                broken.push(format!("{name}: {target} (no such file)"));
            } else if !anchor.is_empty()
                && resolved.extension().is_some_and(|e| e == "md")
                && !anchors(&resolved).contains(anchor)
            {
                broken.push(format!("{name}: {target} (no such heading)"));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn anchors_are_made_as_github_makes_them() {
    assert_eq!(slug("Table (`--format table`)"), "table---format-table");
    assert_eq!(
        slug("Stopping early: the default rule against a fixed ten forks"),
        "stopping-early-the-default-rule-against-a-fixed-ten-forks"
    );
    assert_eq!(slug("`benchmarks[]`"), "benchmarks");
}

/// CI runs the test command the README's first screen gives; change both or neither.
#[test]
fn ci_runs_the_readme_test_command() {
    let ci = fs::read_to_string(root().join(".ci/run")).unwrap();
    let command = ci
        .lines()
        .map(str::trim)
        .find(|line| line.starts_with("cargo test"))
        .expect(".ci/run runs cargo test");
    let readme = fs::read_to_string(root().join("README.md")).unwrap();
    let first_block: Vec<&str> = readme
        .split("```sh\n")
        .nth(1)
        .and_then(|block| block.split("```").next())
        .expect("a sh block on the README's first screen")
        .lines()
        .collect();
    assert!(
        first_block
            .iter()
            .any(|line| line.split('#').next().unwrap().trim() == command),
        "the README's first commands {first_block:?} lack `{command}`"
    );
    let first_screen: String = readme.lines().take(40).collect::<Vec<_>>().join("\n");
    assert!(first_screen.contains("cargo install --locked --path . && cargo perfdiff demo"));
}

/// The design notes are kept current: each ends with the date of its last major revision, and
/// the index links every one of them.
#[test]
fn every_design_note_is_dated_and_indexed() {
    let design = root().join("docs/design");
    let index = fs::read_to_string(design.join("README.md")).unwrap();
    let mut problems = Vec::new();
    for note in markdown_in(&design) {
        let name = note.file_name().unwrap().to_string_lossy().to_string();
        if name == "README.md" {
            continue;
        }
        let text = fs::read_to_string(&note).unwrap();
        let last = text
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        let dated = last
            .strip_prefix("Last major revision: ")
            .is_some_and(|date| date.len() == 10 && date.as_bytes()[4] == b'-');
        if !dated {
            problems.push(format!(
                "{name}: last line is not `Last major revision: YYYY-MM-DD`"
            ));
        }
        if !index.contains(&format!("]({name})")) {
            problems.push(format!("{name}: not linked from docs/design/README.md"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
