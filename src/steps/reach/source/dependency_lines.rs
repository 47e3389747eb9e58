//! Other lines of one function of a dependency's unchanged file, on the two sides: the same
//! source when nothing but the callers' inlining can explain them ([`same_file_other_lines`]).
//!
//! Why. A span is the lines from the first to the last that a (file, function) contributed to
//! a symbol's code ([`super::source_of`]). Functions a `macro_rules!` generates share the
//! macro's lines and, having no generic parameters, one name: `cast`'s `promotion!` makes a
//! `fn cast` for every pair of number types (`cast-0.3.0/src/lib.rs`, lines 177–192). Which of
//! them the compiler inlines into a caller, and so which lines of the macro and of its
//! invocations the caller's code holds, is the compiler's choice, and it changes when the
//! crate around changes (criterion's `analysis::common<WallTime, usize>`, compiled again in
//! rust-base64 #269's bench crate, held other lines of `cast` in base than in head: its 48
//! encode benchmarks, which #269 cannot reach, were measured; docs/design/field-trials.md).
//! The same holds for a generic function's one instance, whose lines keep code or not as the
//! optimiser places it (criterion's `classify<f64>` there: lines 259–272 in base, 259–271 in
//! head). Comparing the spans' texts says "differs" for a file that is byte for byte the same.
//!
//! The rule: such a span is the same on both sides when
//! - its file is a dependency's package as cargo keeps it, a registry's
//!   (`…/registry/src/<index>/<name>-<version>/…`) or a git checkout's
//!   (`…/git/checkouts/<name>-<hash>/<commit>/…`): one path is one published version or one
//!   commit, and both sides' line tables name that path, read from one place, so the two spans
//!   are of one text (and the lines both spans hold read the same, checked);
//! - the two checkouts resolve their dependencies alike ([`ChangedNames::same_dependencies`]):
//!   every manifest the same but for the versions of the checkout's own packages (`[package]`
//!   `version`, a path dependency's `version`), the lock files too. Then every registry package
//!   is built with the same features and dependencies on both sides, so the same lines compile
//!   to code that computes the same (a `cfg!(feature = …)` in the body, a `#[cfg]` constant it
//!   names, a dependency it calls): the file alone does not fix that, its crate's build does;
//! - no package of a registry or a git repository may depend on the checkout (no `[patch]`,
//!   `[replace]`, no collapsing of macro lines into the dependency's file:
//!   [`super::may_patch`], and the file does not mention `collapse_debuginfo`): the code at the
//!   file's lines is then the dependency's own, whose paths resolve in its crate;
//! - the function's instance names no crate of the checkout ([`super::generics`]'s rule: its
//!   generic arguments are known and hold none): such an instance selects no impl of the
//!   checkout, so whatever instance is inlined computes what the dependency alone says
//!   (`cast`: no arguments at all);
//! - the function is one the file writes (`fn cast`, a macro's body included), not a closure:
//!   a frame named after a function of the checkout is not taken for the dependency's.
//!
//! Why sound. What a caller computes is fixed by its own lines and what they call. Its lines
//! are compared as before (a span both sides have reads the same; one a side has alone is
//! followed). A call into such a function runs the dependency's code for that instance, the
//! same text built alike on both sides, inlined or not; which of its instances got inlined
//! into the caller, and so which of its lines hold code there, changes where the code is, not
//! what it computes. The names check still runs over both sides' spans afterwards (a trait
//! item of the checkout named there, an exported symbol, counts as before). Anything else
//! (a file of the checkout, a path dependency's, a manifest or lock that differs, a
//! `[patch]`) keeps comparing texts: a benchmark stays measured when in doubt. Not covered:
//! without a lock file each side resolves against the registry's index when it is built, and
//! a version published in between could change the features another package asks of this one.

use std::path::{Path, PathBuf};

use super::{ChangedNames, Key, Span, is_dependency, is_toolchain, short_name};

/// Whether `spans`, the two sides' spans of `key` (whose texts differ), are of one function of
/// a dependency's unchanged file, inlined differently (the module doc's rule); if so, the note
/// that says what was taken as the same.
pub(super) fn same_file_other_lines(
    key: &Key,
    spans: [&Span; 2],
    changed: &ChangedNames,
) -> Option<String> {
    let (file, function) = key;
    let candidate = is_dependency(file)
        && !is_toolchain(Path::new(file))
        && changed.same_dependencies
        && !changed.patched
        && !changed.mentions_collapse(file)
        && changed.foreign_instance(function);
    if !candidate || !overlap_reads_the_same(spans) {
        return None;
    }
    let name = short_name(function);
    let text = std::fs::read_to_string(file).ok()?;
    if name == "{closure}" || !writes_function(&text, &name) {
        return None;
    }
    let [base, head] = spans.map(|s| format!("{}–{}", s.first, last_line(s)));
    Some(format!(
        "`{name}` ({file}) holds lines {base} in base's code and {head} in head's: a \
         dependency's file, the same on both sides and built alike, compiled otherwise \
         (inlining), same source"
    ))
}

/// The last line of `span`.
fn last_line(span: &Span) -> u32 {
    span.first + (span.text.len() as u32).saturating_sub(1)
}

/// Whether the lines both spans hold read the same.
fn overlap_reads_the_same([a, b]: [&Span; 2]) -> bool {
    fn line(span: &Span, n: u32) -> Option<&String> {
        span.text.get((n - span.first) as usize)
    }
    let (first, last) = (a.first.max(b.first), last_line(a).min(last_line(b)));
    (first..=last).all(|n| line(a, n) == line(b, n))
}

/// Whether `text` writes a function named `name` (`fn name(` or `fn name<`), a macro's body
/// included.
fn writes_function(text: &str, name: &str) -> bool {
    text.match_indices("fn ").any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let rest = text[at + 3..].trim_start();
        let after = rest.strip_prefix(name).and_then(|r| r.chars().next());
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
            && matches!(after, Some('(' | '<') | Some(' '))
    })
}

/// Whether the checkouts resolve their dependencies alike ([`ChangedNames::same_dependencies`]):
/// the same manifests and lock files (the same paths inside each checkout), each the same but
/// for the versions of the checkout's own packages. A file that cannot be listed, read or
/// parsed does not.
pub(super) fn same_dependencies(checkouts: [&Path; 2]) -> bool {
    let listed = checkouts.map(|checkout| {
        let mut files = Vec::new();
        let names = ["Cargo.toml", "Cargo.lock"];
        super::files_named(checkout, Path::new(""), &names, &mut files).ok()?;
        let mut inside: Vec<PathBuf> = files
            .iter()
            .filter_map(|f| f.strip_prefix(checkout).ok().map(Path::to_path_buf))
            .collect();
        inside.sort();
        (inside.len() == files.len()).then_some(inside)
    });
    let [Some(base), Some(head)] = listed else {
        return false;
    };
    base == head
        && base.iter().all(|file| {
            let [a, b] = checkouts.map(|c| without_own_versions(&c.join(file)));
            a.is_some() && a == b
        })
}

/// The manifest or lock file at `path`, parsed, without the versions of the checkout's own
/// packages: a manifest's `[package]` and `[workspace.package]` `version` and every `version`
/// beside a `path` (a path dependency's requirement, checked against the package it names);
/// a lock's `version` of every package without a `source` (the workspace's own).
fn without_own_versions(path: &Path) -> Option<toml::Table> {
    let mut table: toml::Table = std::fs::read_to_string(path).ok()?.parse().ok()?;
    let is_lock = path.file_name().is_some_and(|n| n == "Cargo.lock");
    if is_lock {
        let packages = table.get_mut("package").and_then(toml::Value::as_array_mut);
        for package in packages.into_iter().flatten() {
            if let Some(p) = package.as_table_mut().filter(|p| !p.contains_key("source")) {
                p.remove("version");
            }
        }
        return Some(table);
    }
    for key in ["package", "workspace"] {
        let Some(section) = table.get_mut(key).and_then(toml::Value::as_table_mut) else {
            continue;
        };
        section.remove("version");
        let inner = section
            .get_mut("package")
            .and_then(toml::Value::as_table_mut);
        inner.map(|p| p.remove("version"));
    }
    drop_path_versions(&mut table);
    Some(table)
}

/// Removes `version` from every table of `table` (itself included) that has a `path`.
fn drop_path_versions(table: &mut toml::Table) {
    if table.contains_key("path") {
        table.remove("version");
    }
    for (_, value) in table.iter_mut() {
        match value {
            toml::Value::Table(inner) => drop_path_versions(inner),
            toml::Value::Array(items) => items
                .iter_mut()
                .filter_map(toml::Value::as_table_mut)
                .for_each(drop_path_versions),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Side, SourceComparison, changed_names, compare_function};
    use super::*;

    /// A dependency's file: `conv`, written by a macro for `u8` and `u16` and by hand for
    /// `u64`, a larger body that only some optimisation levels inline.
    const DEPENDENCY: &str = "pub trait Conv {\n    fn conv(self) -> u64;\n}\n\n\
        macro_rules! small {\n    ($($t:ty),+) => {\n        $(\n            \
        impl Conv for $t {\n                #[inline]\n                \
        fn conv(self) -> u64 {\n                    self as u64\n                }\n            \
        }\n        )+\n    };\n}\n\nsmall!(u8, u16);\n\nimpl Conv for u64 {\n    #[inline]\n    \
        fn conv(self) -> u64 {\n        let mut acc = self;\n        \
        for i in 0..(self & 15) {\n            \
        acc = acc.rotate_left(7) ^ i.wrapping_mul(0x9e37_79b9);\n            \
        acc = acc.wrapping_add(i * 3);\n        }\n        acc\n    }\n}\n";

    /// The checkout's program, the same on both sides: `setup` calls two instances of `conv`.
    fn program(dependency: &Path) -> String {
        format!(
            "#[path = {:?}]\nmod dep;\n\nuse dep::Conv;\n\n#[inline(never)]\n\
             fn setup(a: u8, b: u64) -> u64 {{\n    a.conv() ^ b.conv()\n}}\n\n\
             fn main() {{\n    let b = std::hint::black_box(1000u64);\n    \
             println!(\"{{}}\", setup(std::hint::black_box(3), b));\n    \
             println!(\"{{}}\", std::hint::black_box(77u64).conv());\n}}\n",
            dependency.display()
        )
    }

    /// `program` compiled in `dir/side` with line tables at `opt_level`; its manifest's
    /// version is the side's own.
    fn compiled(dir: &Path, side: &str, text: &str, opt_level: &str) -> PathBuf {
        let checkout = dir.join(side);
        std::fs::create_dir_all(checkout.join("src")).unwrap();
        std::fs::write(checkout.join("src/main.rs"), text).unwrap();
        let version = if side == "base" { "0.1.0" } else { "0.2.0" };
        let manifest = format!("[package]\nname = \"demo\"\nversion = \"{version}\"\n");
        std::fs::write(checkout.join("Cargo.toml"), manifest).unwrap();
        let exe = checkout.join("demo");
        let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
        let status = std::process::Command::new(rustc)
            .current_dir(&checkout)
            .args(["--edition=2021", "--crate-name", "demo", "-C"])
            .arg(format!("opt-level={opt_level}"))
            .args(["-C", "debuginfo=line-tables-only", "src/main.rs", "-o"])
            .arg(&exe)
            .status()
            .unwrap();
        assert!(status.success());
        exe
    }

    /// `setup` compiled at `-O` in base and `opt-level=z` in head (which calls `u64`'s `conv`
    /// and inlines `u8`'s), the dependency's file at `dependency` (absolute, else in each
    /// checkout's `src`), compared.
    fn compare_setup(dir: &Path, dependency: &Path) -> SourceComparison {
        for side in ["base", "head"] {
            let file = dir.join(side).join("src").join(dependency);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, DEPENDENCY).unwrap();
        }
        let text = program(dependency);
        let exes = [("base", "2"), ("head", "z")].map(|(s, o)| compiled(dir, s, &text, o));
        let checkouts = ["base", "head"].map(|s| dir.join(s));
        let mut changed = changed_names(&checkouts[0], &checkouts[1]).unwrap();
        // What `may_patch` finds where nothing patches (the machine's cargo configuration
        // may mention a patch).
        changed.patched = false;
        let side = |s: usize| Side {
            executable: &exes[s],
            checkout: &checkouts[s],
        };
        compare_function(&side(0), &side(1), "demo::setup", &changed)
    }

    #[test]
    fn a_dependency_s_function_inlined_differently_from_its_unchanged_file_is_the_same_source() {
        let dir = tempfile::tempdir().unwrap();
        let registry = dir
            .path()
            .join("registry/src/index.example-1/dep-0.1.0/src/lib.rs");
        let compared = compare_setup(dir.path(), &registry);
        let SourceComparison::SameApart(note) = &compared else {
            panic!("{compared:?}");
        };
        assert!(
            note.starts_with(&format!("`conv` ({}) holds lines ", registry.display()))
                && note.contains("a dependency's file, the same on both sides and built alike"),
            "{note}"
        );
        // The same file in the checkout, which a commit may change: its lines are compared.
        let other = tempfile::tempdir().unwrap();
        let compared = compare_setup(other.path(), Path::new("dep.rs"));
        let SourceComparison::Differs(why) = &compared else {
            panic!("{compared:?}");
        };
        assert!(why.starts_with("conv differs at"), "{why}");
    }

    /// Checkouts `base` and `head` with `manifests` (base's and head's `Cargo.toml`), and a
    /// registry's file of `DEPENDENCY` text beside them; the names the commit changes, where
    /// nothing patches.
    fn rule_setup(manifests: [&str; 2]) -> (tempfile::TempDir, String, ChangedNames) {
        let dir = tempfile::tempdir().unwrap();
        for (side, manifest) in ["base", "head"].iter().zip(manifests) {
            std::fs::create_dir_all(dir.path().join(side).join("src")).unwrap();
            std::fs::write(dir.path().join(side).join("Cargo.toml"), manifest).unwrap();
        }
        let file = dir
            .path()
            .join("registry/src/index.example-1/dep-0.1.0/src/lib.rs");
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, DEPENDENCY).unwrap();
        let sides = ["base", "head"].map(|s| dir.path().join(s));
        let mut changed = changed_names(&sides[0], &sides[1]).unwrap();
        changed.patched = false;
        (dir, file.display().to_string(), changed)
    }

    /// Lines `first` to `last` of `DEPENDENCY` as a span.
    fn span(first: u32, last: u32) -> Span {
        let lines = DEPENDENCY.lines().skip(first as usize - 1);
        let text = lines.take((last - first + 1) as usize).map(str::to_string);
        Span {
            first,
            text: text.collect(),
        }
    }

    const MANIFEST: &str = "[package]\nname = \"demo\"\nversion = \"0.1.0\"\n\n\
                            [dependencies]\ndep = \"0.1\"\n";

    #[test]
    fn other_lines_of_a_dependency_s_function_are_the_same_only_for_its_own_built_alike() {
        let bumped = MANIFEST.replace("0.1.0", "0.2.0");
        let (_dir, file, mut changed) = rule_setup([MANIFEST, &bumped]);
        let (one, both) = (span(8, 12), span(8, 27));
        let rule = |file: &str, function: &str, spans: [&Span; 2], changed: &ChangedNames| {
            let key = (file.to_string(), function.to_string());
            same_file_other_lines(&key, spans, changed)
        };
        let note = rule(&file, "conv", [&one, &both], &changed);
        assert_eq!(
            note.as_deref(),
            Some(
                format!(
                    "`conv` ({file}) holds lines 8–12 in base's code and 8–27 in head's: a \
                     dependency's file, the same on both sides and built alike, compiled \
                     otherwise (inlining), same source"
                )
                .as_str()
            )
        );
        assert!(rule(&file, "conv<u64>", [&both, &one], &changed).is_some());
        // An instance naming the checkout's crate, a function the file does not write, a
        // closure, a file of the checkout, lines that read otherwise: compared as before.
        for function in ["conv<demo::W>", "setup", "{closure#0}"] {
            assert_eq!(rule(&file, function, [&one, &both], &changed), None);
        }
        assert_eq!(rule("src/dep.rs", "conv", [&one, &both], &changed), None);
        let mut edited = span(8, 27);
        edited.text[3] = "                fn conv(self) -> u64 { 0 }".into();
        assert_eq!(rule(&file, "conv", [&one, &edited], &changed), None);
        changed.patched = true;
        assert_eq!(rule(&file, "conv", [&one, &both], &changed), None);
        // A dependency with another feature on one side is built otherwise.
        let featured = MANIFEST.replace(
            "dep = \"0.1\"",
            "dep = { version = \"0.1\", features = [\"std\"] }",
        );
        let (_dir, file, changed) = rule_setup([MANIFEST, &featured]);
        assert!(!changed.same_dependencies);
        assert_eq!(rule(&file, "conv", [&one, &both], &changed), None);
        // A file that mentions `collapse_debuginfo` may hold the checkout's code.
        let (_dir, file, changed) = rule_setup([MANIFEST, MANIFEST]);
        let text = format!("{DEPENDENCY}// collapse_debuginfo\n");
        std::fs::write(&file, text).unwrap();
        assert_eq!(rule(&file, "conv", [&one, &both], &changed), None);
    }

    #[test]
    fn dependencies_resolve_alike_when_only_the_checkout_s_own_versions_differ() {
        let dir = tempfile::tempdir().unwrap();
        let sides = ["base", "head"].map(|s| dir.path().join(s));
        let write = |side: usize, file: &str, text: &str| {
            let path = sides[side].join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        let lock = |own: &str, dep: &str| {
            format!(
                "version = 3\n\n[[package]]\nname = \"demo\"\nversion = \"{own}\"\n\
                 dependencies = [\"dep\"]\n\n[[package]]\nname = \"dep\"\nversion = \"{dep}\"\n\
                 source = \"registry+https://github.com/rust-lang/crates.io-index\"\n"
            )
        };
        let fuzz = |v: &str| {
            format!(
                "[package]\nname = \"fuzz\"\n\n[dependencies]\n\
                 demo = {{ path = \"..\", version = \"{v}\" }}\n"
            )
        };
        for (side, own) in [(0, "0.1.0"), (1, "0.2.0")] {
            write(side, "Cargo.toml", &MANIFEST.replace("0.1.0", own));
            write(side, "Cargo.lock", &lock(own, "0.1.4"));
            write(side, "fuzz/Cargo.toml", &fuzz(own));
        }
        let alike = || same_dependencies([&sides[0], &sides[1]]);
        assert!(alike());
        // Another registry version in the lock, a lock on one side only, a manifest that
        // does not parse: not alike.
        write(1, "Cargo.lock", &lock("0.2.0", "0.1.5"));
        assert!(!alike());
        std::fs::remove_file(sides[1].join("Cargo.lock")).unwrap();
        assert!(!alike());
        std::fs::remove_file(sides[0].join("Cargo.lock")).unwrap();
        assert!(alike());
        write(1, "fuzz/Cargo.toml", "[package\n");
        assert!(!alike());
    }
}
