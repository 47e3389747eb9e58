//! A dependency's generic code checked by its generic arguments: which of the names the commit
//! changes a line of a registry's, a git repository's or the toolchain's package can reach in
//! one instance of its function.
//!
//! Why. Such a package depends on no package of the checkout (`[patch]`/`[replace]` aside:
//! [`super::may_patch`], then every name counts as before), so a path written in its files
//! resolves to its own items, its dependencies' and the standard library's. What it may still
//! reach of the checkout goes through a trait: generic code calling `T::new()`, naming
//! `<I as Iterator>::Item`, `T::SIZE`, resolves them to the impl the instance's types select,
//! which may be the checkout's. So the names of the checkout's trait and trait-impl items
//! count in such files ([`super::ChangedNames::contains_in`]). Field trial useg-ascii:
//! clap's argument parsing (`Command::get_matches_from`, run before criterion's timed loop)
//! names `Item`, and unicode-segmentation's commit adds an `impl Iterator for
//! AsciiWordBoundIter`, whose `type Item` is a changed name of a trait impl: the 8
//! `words/scalar/*` benchmarks stayed measured, though clap is instantiated there with clap's
//! and std's types only.
//!
//! The rule. An instance of a dependency's function whose generic arguments (its own and its
//! impl's: the self type and the trait's arguments are the impl's parameters) name no crate
//! of the checkout selects no impl of the checkout. Which impl a trait item resolves to is
//! fixed by the types of the trait reference, `<T as Tr<P…>>`, and those are built from the
//! instance's arguments and from types the dependency itself names (its own, its
//! dependencies', the standard library's: none of the checkout). An impl in a crate of the
//! checkout of a trait it does not define (the dependency cannot name a trait of the
//! checkout) must, by the orphan rules, have a type of its own crate in its header, in `T` or
//! in `P…` (as such, or under `&`, `Box`, `Pin`): that type must then come from the
//! instance's arguments, where its path names its crate. A blanket impl of the checkout
//! (`impl<F: Fn()> Tr<Local> for F`) has `Local` in the trait's arguments, the same. So such
//! an instance's lines name trait items of the dependency's crates and of the toolchain
//! only: the changed names of the checkout's traits and trait impls do not count there. The
//! others that count in a dependency's file still do, whatever the arguments
//! ([`super::ChangedNames::unbound`]): an item exported by its symbol name (an `extern` block
//! links to it by name), an item-level macro call's names (its expansion may hold such an
//! item), a changed line of a file that does not parse.
//!
//! Where the arguments are read. The line tables of a build with `debug =
//! "line-tables-only"` name each function of an inline chain, its symbol's outermost frame
//! too, by the `DW_AT_name` rustc gives its subprogram: the item's name followed by the
//! instance's generic arguments, the impl's first (`get_matches_from<alloc::string::String,
//! std::env::Args>` for `Cmd<T>::get_matches_from::<I>`, `count<demo::W>` for
//! `Iterator::count` on the checkout's `W`, `{closure#0}<std::env::Args>` for a closure of a
//! generic function), without a path, whatever the mangling (such a build emits no linkage
//! name; rustc 1.95, both manglings, checked). Types are written with their whole path from
//! their crate's name (`demo::main::{closure_env#0}` for a closure of the checkout,
//! `core::iter::adapters::map::Map<…>`); the arguments are those of the instance, after
//! substitution, so an `impl Trait` shows its concrete type. A name with a path (a linkage
//! name demangled: legacy mangling carries the generic parameters, `Cmd<T>`, or none at all,
//! not the arguments) gives no arguments: the rule does not apply
//! ([`instance_arguments`]), nor where an argument still reads `impl ` (an opaque type not
//! revealed). A function item or pointer is written as its signature (`fn(&str) -> usize`):
//! its types are in the signature (what an associated type such as `F::Output` can be), and
//! its body, called, is code of its own, inlined with its own frames in the checkout's file
//! (compared with every name counting) or a function of its own in the trace.
//!
//! Crates of the checkout ([`checkout_crates`]): per manifest of either checkout, its
//! package's name and its `[lib]`'s, every target named in it (`[[bin]]`, `[[bench]]`,
//! `[[test]]`, `[[example]]`), and the targets cargo finds by their files (`src/bin/`,
//! `benches/`, `tests/`, `examples/`: a file's stem, a folder's name), `-` read as `_`; and
//! `build_script_build`. A word of the arguments that is one of these names counts, as a
//! path's first segment or not (erring towards "names the checkout"); a manifest that cannot
//! be read or parsed turns the rule off.
//!
//! Limits, each keeping the old behaviour or argued. `dyn` dispatch: a call through a vtable
//! reaches the checkout's impl at run time, as a function of its own (compared in its own
//! right when its code differs); devirtualised and inlined, its code keeps the frames of the
//! checkout's impl, compared in the checkout's file, and devirtualising needs the concrete
//! type where the trait object is made, in an instance's arguments or in the checkout's code.
//! LTO and LLVM's clones (`.constprop.`, `.specialized.`, `.isra`): they change which code is
//! where, not what a line's names resolve to, which is fixed by the instance (a clone's
//! subprogram is the instance it was cloned from); what they bring in of the checkout is
//! inlined with its own frames. Still, a frame whose name is not the `DW_AT_name` form above
//! gets no benefit. `[patch]`/`[replace]`, `collapse_debuginfo`: every name counts, as before.
//! Inlined copies compared without a symbol ([`super::inlined`]) keep the old check.

use std::collections::BTreeSet;
use std::path::Path;

use super::{ChangedNames, Key, LocalsOf, Span, is_dependency, last_segment, manifest_files};

impl ChangedNames {
    /// [`ChangedNames::contains_in`] for a line of the function `function`, as the line tables
    /// name its frame: in a dependency's file, an instance whose generic arguments name no
    /// crate of the checkout counts only the names it may reach without a trait
    /// ([`ChangedNames::unbound`]).
    pub(super) fn contains_in_instance(&self, name: &str, file: &str, function: &str) -> bool {
        if !self.contains_in(name, file) {
            return false;
        }
        if self.patched || !is_dependency(file) || self.mentions_collapse(file) {
            return true;
        }
        self.unbound.contains(name) || !self.foreign_instance(function)
    }

    /// Whether the instance `function` (a frame's name) has generic arguments that are known
    /// and name no crate of the checkout.
    pub(super) fn foreign_instance(&self, function: &str) -> bool {
        let (Some(crates), Some(arguments)) = (&self.crates, instance_arguments(function)) else {
            return false;
        };
        !names_checkout(arguments, crates)
    }
}

impl ChangedNames {
    /// The first name the commit changes that the generic arguments of `function` (a frame's
    /// or a symbol's name, of the file compared as `file`) name through a path of the
    /// checkout: a path whose first segment is a crate of the checkout, or that continues
    /// another (`Foo<T>::Bar`), or any path when the crates are not known. A demangled name
    /// writes each item by its path where it is defined, so a path of another crate
    /// (`core::iter::adapters::flatten::{impl#20}::fold::flatten::{closure_env#0}`) names that
    /// crate's items, not the checkout's `fold`.
    pub(super) fn named_in_arguments(&self, function: &str, file: &str) -> Option<String> {
        let (_, arguments) = super::split_generic_arguments(function);
        let is_path = |c: char| c.is_alphanumeric() || matches!(c, '_' | ':' | '{' | '}' | '#');
        let paths = arguments
            .split(|c: char| !is_path(c))
            .filter(|p| !p.is_empty());
        let of_checkout = |path: &&str| {
            let first = path.split("::").next().unwrap_or_default();
            let crates = self.crates.as_ref();
            first.is_empty() || crates.is_none_or(|crates| crates.contains(first))
        };
        let mut names = paths.filter(of_checkout).flat_map(super::identifiers);
        names.find(|name| self.named_in(name, file))
    }
}

/// The first name of `changed` that the lines of `spans` (each keyed by its file and the
/// function whose frame it is) hold, with that file: [`super::names_changed`] with each
/// span's instance checked ([`ChangedNames::contains_in_instance`]).
pub(super) fn names_changed_by_instance<'s>(
    spans: impl IntoIterator<Item = (&'s Key, &'s Span)>,
    changed: &ChangedNames,
    locals: &LocalsOf<'_>,
) -> Option<(String, &'s String)> {
    spans.into_iter().find_map(|((file, function), span)| {
        let locals = locals(file, span);
        let mut names = super::locals::span_names(span, &locals);
        let name = names.find(|name| changed.contains_in_instance(name, file, function))?;
        Some((name, file))
    })
}

/// The generic arguments of `function` as the line tables name a frame (`count<demo::W>`:
/// `demo::W`; `next`: none, ``): `None` when the name has a path (a demangled linkage name,
/// whose generic arguments may be missing) or its brackets do not close at its end.
pub(super) fn instance_arguments(function: &str) -> Option<&str> {
    if last_segment(function) != function || function.is_empty() {
        return None;
    }
    let Some(open) = function.find('<') else {
        return Some("");
    };
    let arguments = function[open + 1..].strip_suffix('>')?;
    // The brackets of the arguments must balance (`->` is not one).
    let mut depth = 0i64;
    let bytes = arguments.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'<' => depth += 1,
            b'>' if i == 0 || bytes[i - 1] != b'-' => depth -= 1,
            _ => {}
        }
        if depth < 0 {
            return None;
        }
    }
    (depth == 0).then_some(arguments)
}

/// Whether the generic arguments `arguments` name one of `crates` (any word of them, a path's
/// first segment or not), or an opaque type (`impl `), which could be anything.
fn names_checkout(arguments: &str, crates: &BTreeSet<String>) -> bool {
    let mut words = arguments.split(|c: char| !(c.is_alphanumeric() || c == '_'));
    words.any(|word| word == "impl" || crates.contains(word))
}

/// The names of the crates the packages of `checkouts` make (see the module doc), `None` when
/// a manifest cannot be listed, read or parsed.
pub fn checkout_crates(checkouts: [&Path; 2]) -> Option<BTreeSet<String>> {
    let mut crates: BTreeSet<String> = ["build_script_build".to_string()].into();
    for checkout in checkouts {
        let mut manifests = Vec::new();
        manifest_files(checkout, Path::new(""), &mut manifests).ok()?;
        for manifest in manifests {
            let text = std::fs::read_to_string(&manifest).ok()?;
            let table: toml::Table = text.parse().ok()?;
            crates.extend(declared_targets(&table));
            let dir = manifest.parent()?;
            crates.extend(found_targets(dir));
        }
    }
    Some(crates.into_iter().map(|c| c.replace('-', "_")).collect())
}

/// The package's, the library's and every declared target's name of the manifest `table`.
fn declared_targets(table: &toml::Table) -> Vec<String> {
    let name = |value: Option<&toml::Value>| {
        let name = value?.get("name")?.as_str()?;
        Some(name.to_string())
    };
    let mut names: Vec<String> = [table.get("package"), table.get("lib")]
        .into_iter()
        .filter_map(name)
        .collect();
    for kind in ["bin", "bench", "test", "example"] {
        let targets = table.get(kind).and_then(toml::Value::as_array);
        names.extend(targets.into_iter().flatten().filter_map(|t| name(Some(t))));
    }
    names
}

/// The names of the targets cargo finds by their files under the package folder `dir`.
fn found_targets(dir: &Path) -> Vec<String> {
    let mut names = Vec::new();
    for folder in ["src/bin", "benches", "tests", "examples"] {
        let Ok(entries) = std::fs::read_dir(dir.join(folder)) else {
            continue;
        };
        for path in entries.flatten().map(|e| e.path()) {
            let stem = match path.extension() {
                Some(e) if e == "rs" => path.file_stem(),
                Some(_) => None,
                None => path.file_name(),
            };
            names.extend(stem.map(|s| s.to_string_lossy().into_owned()));
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::super::{Side, SourceComparison, changed_names, compare_function};
    use super::*;

    #[test]
    fn a_frame_s_name_gives_its_instance_s_arguments_and_a_path_gives_none() {
        let cases = [
            ("count<demo::W>", Some("demo::W")),
            (
                "get_matches_from<alloc::string::String, std::env::Args>",
                Some("alloc::string::String, std::env::Args"),
            ),
            ("{closure#0}<std::env::Args>", Some("std::env::Args")),
            ("parse_ref<fn(&str) -> usize>", Some("fn(&str) -> usize")),
            ("next", Some("")),
            // Demangled linkage names: legacy's parameters (`T`, `F`) or nothing, v0's path.
            ("dep::Cmd<T>::get_matches_from", None),
            ("<F as dep::Parse>::parse_ref", None),
            ("dep::count", None),
            ("count<demo::W", None),
            ("count<a>>", None),
            ("", None),
        ];
        for (function, arguments) in cases {
            assert_eq!(instance_arguments(function), arguments, "{function}");
        }
    }

    #[test]
    fn arguments_name_the_checkout_by_a_crate_s_name_a_closure_of_it_or_an_opaque_type() {
        let crates: BTreeSet<String> = ["unicode_segmentation", "words"].map(str::to_string).into();
        let named = |arguments: &str| names_checkout(arguments, &crates);
        assert!(named("unicode_segmentation::word::AsciiWordBoundIter"));
        assert!(named("&mut [unicode_segmentation::W; 3], u8"));
        assert!(named("words::main::{closure_env#0}"));
        assert!(named(
            "core::iter::adapters::map::Map<u8, impl core::ops::Fn()>"
        ));
        assert!(!named("std::env::Args, alloc::string::String"));
        assert!(!named(
            "clap_builder::builder::value_parser::StringValueParser"
        ));
        assert!(!named("fn(&str) -> usize"));
        assert!(!named(""));
        assert!(!named("unicode_segmentation_extra::X"));
    }

    #[test]
    fn the_checkout_s_crates_are_its_packages_libraries_and_targets_declared_or_found() {
        let dir = tempfile::tempdir().unwrap();
        let [base, head] = ["base", "head"].map(|side| dir.path().join(side));
        let write = |path: &Path, text: &str| {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write(
            &base.join("Cargo.toml"),
            "[package]\nname = \"unicode-segmentation\"\n\n[[bench]]\nname = \"chars\"\n",
        );
        write(&base.join("benches/words.rs"), "");
        write(&base.join("examples/show/main.rs"), "");
        write(
            &head.join("Cargo.toml"),
            "[package]\nname = \"unicode-segmentation\"\n\n[lib]\nname = \"useg\"\n",
        );
        write(
            &head.join("tools/Cargo.toml"),
            "[package]\nname = \"gen\"\n",
        );
        let crates = checkout_crates([&base, &head]).unwrap();
        let expected = [
            "build_script_build",
            "chars",
            "gen",
            "show",
            "unicode_segmentation",
            "useg",
            "words",
        ];
        assert_eq!(crates, expected.map(str::to_string).into());
        write(&head.join("tools/Cargo.toml"), "[package\n");
        assert_eq!(checkout_crates([&base, &head]), None);
    }

    /// Changed names where head adds `impl Iterator for W` (a trait impl: `Item`, `next`) and
    /// changes the exported `hook`; the checkout's crate is `demo`.
    fn iterator_added() -> ChangedNames {
        let dir = tempfile::tempdir().unwrap();
        let base =
            "pub struct W(pub u32);\n#[no_mangle]\npub extern \"C\" fn hook() -> u32 { 1 }\n";
        let head = format!(
            "{base}impl Iterator for W {{\n    type Item = u32;\n    \
             fn next(&mut self) -> Option<u32> {{ None }}\n}}\n"
        )
        .replace("{ 1 }", "{ 2 }");
        for (side, text) in [("base", base), ("head", head.as_str())] {
            let checkout = dir.path().join(side);
            std::fs::create_dir_all(checkout.join("src")).unwrap();
            std::fs::write(checkout.join("src/lib.rs"), text).unwrap();
            std::fs::write(checkout.join("Cargo.toml"), "[package]\nname = \"demo\"\n").unwrap();
        }
        let mut changed =
            changed_names(&dir.path().join("base"), &dir.path().join("head")).unwrap();
        // What `may_patch` finds where nothing patches, whatever this machine's configuration.
        changed.patched = false;
        changed
    }

    const REGISTRY: &str = "/home/u/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/clap_builder-4.5.0/src/parser.rs";

    #[test]
    fn a_trait_impl_s_name_counts_in_a_dependency_s_instance_only_when_its_arguments_name_the_checkout()
     {
        let changed = iterator_added();
        assert_eq!(
            changed.crates,
            Some(["build_script_build", "demo"].map(str::to_string).into())
        );
        let counts =
            |name: &str, function: &str| changed.contains_in_instance(name, REGISTRY, function);
        // clap's generic code instantiated with std's types only: `Item` is std's.
        assert!(!counts(
            "Item",
            "get_matches_from<alloc::string::String, std::env::Args>"
        ));
        assert!(!counts("next", "{closure#0}<std::env::Args>"));
        assert!(!counts("Item", "parse_ref<fn(&str) -> usize>"));
        assert!(!counts("Item", "new"));
        // Stays counted: the checkout's type, a closure of the checkout, an opaque type, a
        // name without its arguments (a linkage name), an exported symbol's name.
        assert!(counts("Item", "count<demo::W>"));
        assert!(counts("next", "for_each<demo::main::{closure_env#0}>"));
        assert!(counts("Item", "{closure#0}<impl core::ops::Fn()>"));
        assert!(counts(
            "Item",
            "clap_builder::parser::Parser::get_matches_with"
        ));
        assert!(counts("hook", "get_matches_from<std::env::Args>"));
        // What does not change, or counts only in the checkout, is not counted either way.
        assert!(!counts("W", "count<demo::W>"));
        // A file of the checkout counts every name, whatever the instance.
        let inside =
            |name: &str| changed.contains_in_instance(name, "src/lib.rs", "count<std::env::Args>");
        assert!(inside("Item") && inside("next"));
        // A `[patch]` may make the dependency depend on the checkout: every name counts.
        let mut patched = changed.clone();
        patched.patched = true;
        assert!(patched.contains_in_instance("Item", REGISTRY, "get_matches_from<std::env::Args>"));
        // Crates unknown (a manifest unread): as before.
        let mut unknown = changed.clone();
        unknown.crates = None;
        assert!(unknown.contains_in_instance("Item", REGISTRY, "get_matches_from<std::env::Args>"));
    }

    #[test]
    fn spans_are_checked_by_their_instance() {
        let changed = iterator_added();
        let span = Span {
            first: 1,
            text: vec!["        let shown: &I::Item = &item;".to_string()],
        };
        let key = |function: &str| (REGISTRY.to_string(), function.to_string());
        let foreign = key("count<std::env::Args>");
        let checkout = key("count<demo::W>");
        let none = |_: &str, _: &Span| std::rc::Rc::default();
        assert_eq!(
            names_changed_by_instance([(&foreign, &span)], &changed, &none),
            None
        );
        let spans = [(&foreign, &span), (&checkout, &span)];
        let found = names_changed_by_instance(spans, &changed, &none);
        assert_eq!(found.map(|(name, _)| name).as_deref(), Some("Item"));
    }

    /// A registry-like package `dep` (an rlib whose file is under `…/registry/src/…`, outside
    /// the checkouts) with a generic `count` naming `I::Item`, built once into `dir`; then per
    /// side a checkout of the crate `demo` whose `src/main.rs` is the text given, linked to it.
    fn built(dir: &Path, sides: [(&str, &str); 2]) -> [PathBuf; 2] {
        let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
        let optimised = ["--edition=2021", "-O", "-C", "debuginfo=line-tables-only"];
        let package = dir.join("registry/src/index.example-0123/dep-1.0.0");
        let dep = "#[inline(never)]\npub fn count<I: Iterator>(it: I) -> usize\nwhere\n    \
                   I::Item: core::fmt::Debug,\n{\n    let mut n = 0;\n    for item in it {\n        \
                   let shown: &I::Item = &item;\n        n += format!(\"{shown:?}\").len();\n    \
                   }\n    n\n}\n";
        std::fs::create_dir_all(package.join("src")).unwrap();
        std::fs::write(package.join("src/lib.rs"), dep).unwrap();
        let library = std::process::Command::new(&rustc)
            .args(optimised)
            .args(["--crate-type", "rlib", "--crate-name", "dep", "--out-dir"])
            .arg(dir)
            .arg(package.join("src/lib.rs"))
            .status()
            .unwrap();
        assert!(library.success());
        sides.map(|(side, main_rs)| {
            let checkout = dir.join(side);
            std::fs::create_dir_all(checkout.join("src")).unwrap();
            std::fs::write(checkout.join("src/main.rs"), main_rs).unwrap();
            let manifest = "[package]\nname = \"demo\"\nversion = \"0.1.0\"\n";
            std::fs::write(checkout.join("Cargo.toml"), manifest).unwrap();
            let binary = std::process::Command::new(&rustc)
                .current_dir(&checkout)
                .args(optimised)
                .args(["--crate-name", "demo", "--extern"])
                .arg(format!("dep={}", dir.join("libdep.rlib").display()))
                .args(["src/main.rs", "-o", "demo"])
                .status()
                .unwrap();
            assert!(binary.success());
            checkout
        })
    }

    /// `dep::count` compared between the two `checkouts` ([`built`]), nothing patching.
    fn compare_count(checkouts: &[PathBuf; 2]) -> SourceComparison {
        let mut changed = changed_names(&checkouts[0], &checkouts[1]).unwrap();
        changed.patched = false;
        assert!(changed.contains("Item"), "{changed:?}");
        let executables = checkouts.clone().map(|c| c.join("demo"));
        let side = |i: usize| Side {
            executable: &executables[i],
            checkout: &checkouts[i],
        };
        compare_function(&side(0), &side(1), "dep::count", &changed)
    }

    /// A `main.rs` with the type `W`, an `impl Iterator for W` of that `item` type when there
    /// is one, and a `main` counting `counted` with `dep::count`.
    fn with_iterator(item: Option<&str>, counted: &str) -> String {
        let implementation = item.map_or(String::new(), |item| {
            format!(
                "impl Iterator for W {{\n    type Item = {item};\n    #[inline(never)]\n    \
                 fn next(&mut self) -> Option<{item}> {{\n        \
                 self.0 = self.0.checked_sub(1)?;\n        Some(self.0 as {item})\n    }}\n}}\n\n"
            )
        });
        format!(
            "pub struct W(pub u32);\n\n{implementation}fn main() {{\n    \
             println!(\"{{}}\", dep::count({counted}));\n}}\n"
        )
    }

    #[test]
    fn a_dependency_s_generic_code_naming_item_is_the_same_unless_instantiated_with_the_checkout_s_type()
     {
        // Field trial useg-ascii's shape: head adds `impl Iterator for W` to the checkout, and
        // the dependency's `count`, which names `Item`, runs with std's `Args` only.
        let dir = tempfile::tempdir().unwrap();
        let args = "std::env::args()";
        let (base, head) = (with_iterator(None, args), with_iterator(Some("u32"), args));
        let checkouts = built(dir.path(), [("base", &base), ("head", &head)]);
        assert_eq!(compare_count(&checkouts), SourceComparison::Same);
        // Instantiated with the checkout's `W`, whose `Item` the commit changes: it differs.
        let dir = tempfile::tempdir().unwrap();
        let counted = "W(std::hint::black_box(3))";
        let (base, head) = (
            with_iterator(Some("u32"), counted),
            with_iterator(Some("u64"), counted),
        );
        let checkouts = built(dir.path(), [("base", &base), ("head", &head)]);
        let comparison = compare_count(&checkouts);
        let SourceComparison::Differs(why) = &comparison else {
            panic!("{comparison:?}");
        };
        assert!(why.contains("`Item`"), "{why}");
    }
}
