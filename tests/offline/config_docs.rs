//! docs/configuration.md is the users' reference: every key must be in its table, and every TOML
//! example in it must load (an example that errors teaches the wrong thing).

use std::fs;
use std::path::Path;

use cargo_perfdiff::config::{KNOWN_KEYS, PartialSettings, load};

fn configuration_doc() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/configuration.md");
    fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn toml_blocks(markdown: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in markdown.lines() {
        match (&mut current, line.trim()) {
            (None, "```toml") => current = Some(String::new()),
            (Some(block), "```") => {
                blocks.push(std::mem::take(block));
                current = None;
            }
            (Some(block), _) => {
                block.push_str(line);
                block.push('\n');
            }
            (None, _) => {}
        }
    }
    blocks
}

#[test]
fn every_key_is_documented() {
    let doc = configuration_doc();
    for key in KNOWN_KEYS.iter().filter(|k| **k != "benchmarks") {
        assert!(
            doc.contains(&format!("| `{key}` |")),
            "docs/configuration.md lacks `{key}`"
        );
    }
    assert!(doc.contains("| `ignore` |") && doc.contains("| `threshold` |"));
}

#[test]
fn every_toml_example_loads() {
    let blocks = toml_blocks(&configuration_doc());
    assert!(
        blocks.len() >= 3,
        "expected TOML examples, found {}",
        blocks.len()
    );
    for block in blocks {
        let dir = tempfile::tempdir().unwrap();
        let file = if block.contains("[workspace.metadata.perfdiff]") {
            "Cargo.toml"
        } else {
            "perfdiff.toml"
        };
        fs::write(dir.path().join(file), &block).unwrap();
        let effective = load(dir.path(), PartialSettings::default())
            .unwrap_or_else(|e| panic!("example does not load: {e}\n{block}"));
        assert_ne!(
            effective.settings,
            cargo_perfdiff::config::Settings::default(),
            "example changes nothing:\n{block}"
        );
    }
}

/// The README's configuration example loads too, and changes what it says it changes.
#[test]
fn the_readme_toml_example_loads() {
    let readme = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md");
    let blocks = toml_blocks(&readme);
    assert!(!blocks.is_empty(), "no TOML example in the README");
    for block in blocks {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("perfdiff.toml"), &block).unwrap();
        let effective = load(dir.path(), PartialSettings::default())
            .unwrap_or_else(|e| panic!("README example does not load: {e}\n{block}"));
        assert_eq!(effective.settings.threshold, 0.05, "{block}");
        assert!(!effective.settings.overrides.is_empty(), "{block}");
    }
}
