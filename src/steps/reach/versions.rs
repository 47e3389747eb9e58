//! The workspace's own packages whose version differs between the two sides, read from each
//! side's `Cargo.lock`: what explains a benchmark whose functions have no partner.
//!
//! Why: cargo passes each crate a `-C metadata` hash of its package id, version included, and
//! rustc mixes it into every symbol's hash. A commit that only bumps `version` (the release gate:
//! `cargo perfdiff v1.2.3 HEAD`) therefore gives every function of the package, and every
//! instantiation of a generic over its types, a new name, and code identity pairs functions by
//! name: nothing of the package has a partner and every benchmark that runs it is measured. That
//! is conservative and correct, but naming one unpaired function as "changed code" misleads; the
//! version change is what happened. A comparison's own builds no longer hash the version in
//! (`crate::steps::build::normalize`, docs/design/build-normalisation.md), so this explains
//! builds made without that; the changes also name the version in data that holds it.
//!
//! Only path packages (workspace members and path dependencies: no `source` in the lock) are
//! listed: a registry dependency's new version is new code as well as new names, and the
//! functions it changed say more than its version.

use std::collections::BTreeMap;
use std::path::Path;

/// A package of the workspace whose version differs between base and head.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionChange {
    pub package: String,
    pub base: String,
    pub head: String,
}

/// The path packages whose version differs between the lock files in `base` and `head` (two
/// workspace roots), sorted by name. A package one side lacks, or that a side has in several
/// versions, is left out; a missing or unreadable lock file lists nothing (the decision does not
/// depend on this, only its wording).
pub fn changed(base: &Path, head: &Path) -> Vec<VersionChange> {
    let (base, head) = (path_packages(base), path_packages(head));
    base.into_iter()
        .filter_map(|(package, from)| {
            let to = head.get(&package)?;
            (&from != to).then(|| VersionChange {
                package,
                base: from,
                head: to.clone(),
            })
        })
        .collect()
}

/// Of `versions` (the workspace's packages whose version changed), those that rename their
/// functions: none in a build cargo-perfdiff normalises ([`crate::steps::build::normalize`]
/// hashes no version in), where a function without a partner is new or gone code and is named
/// as changed code: rust-base64's #269 bumped 0.21.7 → 0.22.0 with its rewritten decode loop,
/// and its decode benchmarks were said to be measured for "new symbol hashes". (The versions
/// still name the version in changed data that holds it.)
pub fn renaming(versions: &[VersionChange]) -> &[VersionChange] {
    match crate::steps::build::normalize::enabled() {
        true => &[],
        false => versions,
    }
}

/// The version of each path package of the lock file in `workspace`, by name (packages of one
/// name in several versions left out).
fn path_packages(workspace: &Path) -> BTreeMap<String, String> {
    let Some(lock) = std::fs::read_to_string(workspace.join("Cargo.lock"))
        .ok()
        .and_then(|text| text.parse::<toml::Table>().ok())
    else {
        return BTreeMap::new();
    };
    let packages = lock.get("package").and_then(toml::Value::as_array);
    let mut found: BTreeMap<String, Option<String>> = BTreeMap::new();
    for package in packages.into_iter().flatten() {
        let field = |key: &str| package.get(key).and_then(toml::Value::as_str);
        let (Some(name), Some(version), None) = (field("name"), field("version"), field("source"))
        else {
            continue;
        };
        found
            .entry(name.to_string())
            .and_modify(|seen| *seen = None)
            .or_insert_with(|| Some(version.to_string()));
    }
    found
        .into_iter()
        .filter_map(|(name, version)| Some((name, version?)))
        .collect()
}

/// "the package version of `demo` changed (0.1.0 → 0.2.0), so its functions have new symbol
/// hashes and cannot be paired"; several packages are listed in one line.
pub fn explanation(changes: &[VersionChange]) -> String {
    let each = |c: &VersionChange| format!("`{}` ({} → {})", c.package, c.base, c.head);
    match changes {
        [one] => format!(
            "the package version of `{}` changed ({} → {}), so its functions have new symbol \
             hashes and cannot be paired",
            one.package, one.base, one.head
        ),
        many => format!(
            "the package versions of {} changed, so their functions have new symbol hashes and \
             cannot be paired",
            many.iter().map(each).collect::<Vec<_>>().join(", ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOCK: &str = r#"version = 4

[[package]]
name = "demo"
version = "0.1.0"
dependencies = ["helper", "itoa"]

[[package]]
name = "helper"
version = "1.0.0"

[[package]]
name = "itoa"
version = "1.0.10"
source = "registry+https://github.com/rust-lang/crates.io-index"
checksum = "b1a46d1a171d865aa5f83f92695765caa047a9b4cbae2cbf37dbd613a793fd4c"
"#;

    fn sides(head_lock: &str) -> Vec<VersionChange> {
        let dir = tempfile::tempdir().unwrap();
        let (base, head) = (dir.path().join("base"), dir.path().join("head"));
        for (root, lock) in [(&base, LOCK), (&head, head_lock)] {
            std::fs::create_dir_all(root).unwrap();
            std::fs::write(root.join("Cargo.lock"), lock).unwrap();
        }
        changed(&base, &head)
    }

    #[test]
    fn a_path_package_s_new_version_is_listed_and_a_registry_one_is_not() {
        assert_eq!(sides(LOCK), vec![]);
        let bumped = LOCK
            .replace(
                "name = \"demo\"\nversion = \"0.1.0\"",
                "name = \"demo\"\nversion = \"0.2.0\"",
            )
            .replace("1.0.10", "1.0.11");
        let found = sides(&bumped);
        assert_eq!(
            found,
            vec![VersionChange {
                package: "demo".into(),
                base: "0.1.0".into(),
                head: "0.2.0".into()
            }]
        );
        assert_eq!(
            explanation(&found),
            "the package version of `demo` changed (0.1.0 → 0.2.0), so its functions have new \
             symbol hashes and cannot be paired"
        );
    }

    #[test]
    fn a_missing_lock_or_a_package_in_two_versions_lists_nothing() {
        assert_eq!(sides("not a lock ["), vec![]);
        let twice = format!("{LOCK}\n[[package]]\nname = \"helper\"\nversion = \"2.0.0\"\n");
        let bumped = twice.replace("version = \"2.0.0\"", "version = \"2.1.0\"");
        assert_eq!(sides(&bumped), vec![]);
        let two = vec![
            VersionChange {
                package: "a".into(),
                base: "1.0.0".into(),
                head: "1.1.0".into(),
            },
            VersionChange {
                package: "b".into(),
                base: "0.1.0".into(),
                head: "0.2.0".into(),
            },
        ];
        assert_eq!(
            explanation(&two),
            "the package versions of `a` (1.0.0 → 1.1.0), `b` (0.1.0 → 0.2.0) changed, so their \
             functions have new symbol hashes and cannot be paired"
        );
    }
}
