//! Test-only code: what a crate compiled without `cfg(test)` does not contain, left out of the
//! names a commit changes ([`super::changed_names`]) in the files of such crates.
//!
//! Why: a commit that changes a `#[cfg(test)] mod tests` of a library (bstr's `src/utf8.rs`,
//! whose test `chars` gained an assertion, field trial bstr-count) changed the name `chars` for
//! every function whose lines name it, and so every benchmark whose set-up calls bstr's
//! `chars` was measured. But a library linked into a bench executable is never compiled with
//! `cfg(test)`: cargo passes `--test` (or, for `harness = false`, `--cfg test`) to the bench
//! target's own crate only, never to the libraries it depends on.
//!
//! Why it is sound. `cfg` is evaluated before names are resolved: an item under `#[cfg(test)]`
//! (or `cfg(all(test, …))`, which needs `test` too) is removed from a crate compiled without
//! `cfg(test)` as if it were not written, and so is everything inside it, and a file reached
//! only through a `#[cfg(test)] mod x;` (its own `#![cfg(test)]` likewise). libtest's `#[test]`
//! and `#[bench]` remove their function without `--test`. So no path of the non-test code of
//! that crate can reach such an item, nor can another crate (it was never compiled there), and
//! what that crate computes is the same whatever the item says. The comparison therefore
//! reads each file as it is compiled: without its test-only items ([`strip`]), unless the file
//! may belong to a crate compiled with `cfg(test)` ([`TestUnits`]): one under the folder of a
//! measured bench target's root, or anywhere when a bench target's file has a `#[path]`
//! attribute or an `include!` (its modules may then be any file), or when the caller cannot
//! tell ([`TestUnits::Anywhere`]). An item under `cfg(any(test, …))` or `cfg(not(test))` is
//! kept. `#[test]` is a macro of the standard prelude, which an import may shadow: it counts as
//! test-only only in a module without a glob import or an import named `test` or `bench`,
//! and when no file has a `#[macro_use] extern crate` (whose macros come before the prelude's).
//! A file counts as test-only when every file that may declare it (the module files of its
//! folder: `a.rs`, `a/mod.rs`, `a/lib.rs`, `a/main.rs` for `a/b.rs`) declares it only under
//! `cfg(test)` or is test-only itself, on both sides, no manifest names it (a target's root),
//! and no file has a `#[path]` attribute or includes it. What an item's removal changes is
//! seen where it is compiled: an item that gains `#[cfg(test)]` leaves the non-test code, so
//! its name changes there.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use proc_macro2::{Delimiter, TokenStream, TokenTree};

/// The crates of a build that are compiled with `cfg(test)`: where test-only items count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TestUnits {
    /// Any file may be compiled with `cfg(test)`: every item counts (the caller cannot tell).
    Anywhere,
    /// The folders (inside the checkout, `bench/src/`) of the roots of the crates compiled
    /// with `cfg(test)`: the measured bench targets'. Files elsewhere are compiled without it.
    Under(Vec<PathBuf>),
}

impl TestUnits {
    /// The crates rooted at `roots` (bench targets' root files, inside `checkout`) compiled
    /// with `cfg(test)`: [`TestUnits::Under`] their folders, or [`TestUnits::Anywhere`] when
    /// one is unknown or outside the checkout.
    pub fn bench_roots<'a>(checkout: &Path, roots: impl IntoIterator<Item = &'a Path>) -> Self {
        let mut folders = Vec::new();
        for root in roots {
            let relative = root.strip_prefix(checkout).ok();
            match relative.and_then(Path::parent) {
                Some(folder) if root.is_absolute() => folders.push(folder.to_path_buf()),
                _ => return TestUnits::Anywhere,
            }
        }
        TestUnits::Under(folders)
    }
}

/// Which files of the two checkouts are read without their test-only items, decided once for
/// all of them ([`Surroundings`]).
#[derive(Debug)]
pub(super) struct TestFilter {
    /// `None`: every file may be compiled with `cfg(test)`.
    folders: Option<Vec<PathBuf>>,
    /// Whether a `#[test]` or `#[bench]` attribute is libtest's wherever the module does not
    /// import another.
    test_attribute_is_std: bool,
    /// Whether files may be declared from anywhere (a `#[path]` attribute) or included.
    files_move: bool,
    checkouts: [PathBuf; 2],
}

/// What every file of the two checkouts says that decides the filter.
#[derive(Debug, Default)]
struct Surroundings {
    macro_use_crate: bool,
    path_attribute: bool,
    include: bool,
    path_or_include_in_test_crate: bool,
}

impl TestFilter {
    /// The filter for the `.rs` files `files` of the `checkouts` (base, head), whose crates
    /// compiled with `cfg(test)` are `units`.
    pub(super) fn new(units: &TestUnits, checkouts: [&Path; 2], files: &BTreeSet<PathBuf>) -> Self {
        let folders = match units {
            TestUnits::Anywhere => None,
            TestUnits::Under(folders) => Some(folders.clone()),
        };
        let mut seen = Surroundings::default();
        for file in files {
            for checkout in checkouts {
                let text = std::fs::read_to_string(checkout.join(file)).unwrap_or_default();
                let path = text.contains("#[path");
                let include = text.contains("include!");
                seen.macro_use_crate |= text.contains("macro_use") && text.contains("extern crate");
                seen.path_attribute |= path;
                seen.include |= include;
                let in_test = folders.as_ref().is_some_and(|f| under(f, file));
                seen.path_or_include_in_test_crate |= in_test && (path || include);
            }
        }
        TestFilter {
            folders: folders.filter(|_| !seen.path_or_include_in_test_crate),
            test_attribute_is_std: !seen.macro_use_crate,
            files_move: seen.path_attribute || seen.include,
            checkouts: checkouts.map(Path::to_path_buf),
        }
    }

    /// Whether `file` (inside the checkouts) is compiled without `cfg(test)` only: its
    /// test-only items are left out.
    pub(super) fn strips(&self, file: &Path) -> bool {
        self.folders.as_ref().is_some_and(|f| !under(f, file))
    }

    /// `file` parsed as the crate compiled without `cfg(test)` sees it, when it [`Self::strips`].
    pub(super) fn read(&self, file: &Path, mut parsed: syn::File) -> syn::File {
        if self.strips(file) {
            if parsed.attrs.iter().any(requires_test) {
                parsed.items.clear();
            }
            strip(&mut parsed.items, self.test_attribute_is_std);
        }
        parsed
    }

    /// Whether `file` is compiled, where it [`Self::strips`], only under `cfg(test)` on both
    /// sides: reached only through `#[cfg(test)] mod` declarations, so no item of it counts.
    pub(super) fn test_only_file(&self, file: &Path) -> bool {
        if !self.strips(file) || self.files_move || self.named_by_manifest(file) {
            return false;
        }
        self.checkouts
            .iter()
            .all(|checkout| declared_for_tests_only(checkout, file, 0))
    }

    /// Whether a manifest of either checkout names `file`'s name (a target's root, which no
    /// `mod` declares).
    fn named_by_manifest(&self, file: &Path) -> bool {
        let Some(name) = file.file_name().and_then(|n| n.to_str()) else {
            return true;
        };
        self.checkouts.iter().any(|checkout| {
            let mut manifests = Vec::new();
            if super::manifest_files(checkout, Path::new(""), &mut manifests).is_err() {
                return true;
            }
            let names_it = |m: &PathBuf| std::fs::read_to_string(m).map(|t| t.contains(name));
            manifests.iter().any(|m| names_it(m).unwrap_or(true))
        })
    }
}

/// Whether `file` is inside one of `folders`.
fn under(folders: &[PathBuf], file: &Path) -> bool {
    folders.iter().any(|folder| file.starts_with(folder))
}

/// How deep declarations are followed up the folders (a file's module, its parent's…).
const MAX_DEPTH: usize = 16;

/// Whether every file of `checkout` that may declare `file` as a module (at its top level)
/// declares it only under `cfg(test)` or is itself such a file, and at least one does.
fn declared_for_tests_only(checkout: &Path, file: &Path, depth: usize) -> bool {
    let Some((stem, folder)) = module_name(file) else {
        return false;
    };
    if depth > MAX_DEPTH {
        return false;
    }
    let candidates = super::module_parents(&folder);
    let mut declared = false;
    for candidate in candidates.iter().filter(|c| c.as_path() != file) {
        let Ok(text) = std::fs::read_to_string(checkout.join(candidate)) else {
            continue;
        };
        let Ok(parsed) = syn::parse_file(&text) else {
            return false;
        };
        proc_macro2::extra::invalidate_current_thread_spans();
        let declarations = parsed.items.iter().filter_map(|item| match item {
            syn::Item::Mod(m) if m.ident == stem && m.content.is_none() => Some(m),
            _ => None,
        });
        for declaration in declarations {
            declared = true;
            let for_tests = declaration.attrs.iter().any(requires_test)
                || parsed.attrs.iter().any(requires_test)
                || declared_for_tests_only(checkout, candidate, depth + 1);
            if !for_tests {
                return false;
            }
        }
    }
    declared
}

/// The module name `file` is declared by and the folder of the files that may declare it
/// (`a/b.rs` and `a/b/mod.rs`: `b`, `a`); `None` for a crate root's name (`lib.rs`, `main.rs`)
/// or a file at the top.
fn module_name(file: &Path) -> Option<(String, PathBuf)> {
    let stem = file.file_stem()?.to_str()?;
    let parent = file.parent()?;
    if stem == "lib" || stem == "main" {
        return None;
    }
    if stem == "mod" {
        let name = parent.file_name()?.to_str()?.to_string();
        return Some((name, parent.parent()?.to_path_buf()));
    }
    (!parent.as_os_str().is_empty()).then(|| (stem.to_string(), parent.to_path_buf()))
}

/// Removes from `items` (a module's, and those of the inline modules, impls and traits
/// inside) what a crate compiled without `cfg(test)` does not contain: items under a `cfg`
/// that needs `test`, and (when `test_attribute_is_std` and the module imports no other)
/// `#[test]` and `#[bench]` functions.
pub(super) fn strip(items: &mut Vec<syn::Item>, test_attribute_is_std: bool) {
    let libtest = test_attribute_is_std && !imports_test_attribute(items);
    items.retain(|item| !is_test_only(attributes(item), libtest));
    for item in items.iter_mut() {
        match item {
            syn::Item::Mod(m) => {
                if let Some((_, inner)) = &mut m.content {
                    strip(inner, test_attribute_is_std);
                }
            }
            syn::Item::Impl(i) => i.items.retain(|member| {
                let attrs = match member {
                    syn::ImplItem::Const(c) => &c.attrs,
                    syn::ImplItem::Fn(f) => &f.attrs,
                    syn::ImplItem::Type(t) => &t.attrs,
                    syn::ImplItem::Macro(m) => &m.attrs,
                    _ => return true,
                };
                !is_test_only(attrs, libtest)
            }),
            syn::Item::Trait(t) => t.items.retain(|member| {
                let attrs = match member {
                    syn::TraitItem::Const(c) => &c.attrs,
                    syn::TraitItem::Fn(f) => &f.attrs,
                    syn::TraitItem::Type(t) => &t.attrs,
                    syn::TraitItem::Macro(m) => &m.attrs,
                    _ => return true,
                };
                !is_test_only(attrs, libtest)
            }),
            _ => {}
        }
    }
}

/// Whether an item with `attrs` is left out without `cfg(test)`: a `cfg` needing `test`, or
/// (`libtest`: the attribute is libtest's) `#[test]` or `#[bench]`.
fn is_test_only(attrs: &[syn::Attribute], libtest: bool) -> bool {
    let harness = |a: &syn::Attribute| {
        let path = a.path();
        matches!(a.meta, syn::Meta::Path(_)) && (path.is_ident("test") || path.is_ident("bench"))
    };
    attrs.iter().any(requires_test) || (libtest && attrs.iter().any(harness))
}

/// Whether a module's `items` may bring another `test` or `bench` attribute into scope: a glob
/// import, or an import of either name.
fn imports_test_attribute(items: &[syn::Item]) -> bool {
    fn brings(tree: &syn::UseTree) -> bool {
        match tree {
            syn::UseTree::Path(p) => brings(&p.tree),
            syn::UseTree::Group(g) => g.items.iter().any(brings),
            syn::UseTree::Name(n) => n.ident == "test" || n.ident == "bench",
            syn::UseTree::Rename(r) => r.rename == "test" || r.rename == "bench",
            syn::UseTree::Glob(_) => true,
        }
    }
    items
        .iter()
        .any(|item| matches!(item, syn::Item::Use(u) if brings(&u.tree)))
}

/// Whether `attribute` is a `cfg` whose predicate needs `test`: `cfg(test)`, `cfg(all(…, test,
/// …))`, nested `all`s.
fn requires_test(attribute: &syn::Attribute) -> bool {
    match &attribute.meta {
        syn::Meta::List(list) if list.path.is_ident("cfg") => needs_test(list.tokens.clone()),
        _ => false,
    }
}

/// Whether the `cfg` predicate `tokens` holds only when `test` does.
fn needs_test(tokens: TokenStream) -> bool {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    match trees.as_slice() {
        [TokenTree::Ident(test)] => test == "test",
        [TokenTree::Ident(all), TokenTree::Group(group)]
            if all == "all" && group.delimiter() == Delimiter::Parenthesis =>
        {
            predicates(group.stream()).into_iter().any(needs_test)
        }
        _ => false,
    }
}

/// The comma-separated predicates of a `cfg` list.
fn predicates(tokens: TokenStream) -> Vec<TokenStream> {
    let mut out = vec![TokenStream::new()];
    for tree in tokens {
        match (&tree, out.last_mut()) {
            (TokenTree::Punct(p), _) if p.as_char() == ',' => out.push(TokenStream::new()),
            (_, Some(last)) => last.extend([tree]),
            (_, None) => {}
        }
    }
    out
}

/// The outer attributes of `item` (none for tokens syn keeps verbatim).
fn attributes(item: &syn::Item) -> &[syn::Attribute] {
    use syn::Item;
    match item {
        Item::Const(i) => &i.attrs,
        Item::Enum(i) => &i.attrs,
        Item::ExternCrate(i) => &i.attrs,
        Item::Fn(i) => &i.attrs,
        Item::ForeignMod(i) => &i.attrs,
        Item::Impl(i) => &i.attrs,
        Item::Macro(i) => &i.attrs,
        Item::Mod(i) => &i.attrs,
        Item::Static(i) => &i.attrs,
        Item::Struct(i) => &i.attrs,
        Item::Trait(i) => &i.attrs,
        Item::TraitAlias(i) => &i.attrs,
        Item::Type(i) => &i.attrs,
        Item::Union(i) => &i.attrs,
        Item::Use(i) => &i.attrs,
        _ => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::super::{ChangedNames, Side, SourceComparison, changed_names_compiled};
    use super::*;

    /// The item keys of `text` read as a crate without `cfg(test)` compiles it.
    fn kept(text: &str) -> Vec<String> {
        let mut parsed = syn::parse_file(text).unwrap();
        strip(&mut parsed.items, true);
        let mut definitions = super::super::Definitions::default();
        definitions.items(&parsed.items, "");
        definitions.0.into_keys().collect()
    }

    #[test]
    fn the_filter_leaves_out_what_needs_cfg_test_and_libtest_s_test_functions() {
        let text = "pub fn chars() {}\n\
                    #[cfg(test)]\nmod tests {\n    #[test]\n    fn chars() {}\n}\n\
                    #[cfg(all(unix, test))]\nfn only_unix_tests() {}\n\
                    #[cfg(all(unix, any(test, doc)))]\nfn any_test() {}\n\
                    #[cfg(any(test, feature = \"x\"))]\nfn any() {}\n\
                    #[cfg(not(test))]\nfn not() {}\n\
                    #[test]\nfn top_test() {}\n\
                    #[bench]\nfn top_bench() {}\n\
                    pub struct S;\nimpl S {\n    #[cfg(test)]\n    fn helper() {}\n    pub fn kept() {}\n}\n\
                    #[cfg(test)]\nuse std::fmt::Debug;\n";
        assert_eq!(
            kept(text),
            [
                "fn any",
                "fn any_test",
                "fn chars",
                "fn not",
                "impl S ",
                "impl S ::fn kept",
                "type S"
            ]
        );
        let whole = "#![cfg(test)]\npub fn helper() {}\n";
        let (_dir, filter) = filter_for(&TestUnits::Under(vec![]), &[]);
        let read = filter.read(Path::new("src/a.rs"), syn::parse_file(whole).unwrap());
        assert!(read.items.is_empty());
    }

    #[test]
    fn a_test_attribute_another_import_may_shadow_is_kept() {
        let glob = "use other::*;\n#[test]\nfn t() {}\n#[cfg(test)]\nfn c() {}\n";
        assert_eq!(kept(glob), ["fn t", "use use other::*"]);
        let named = "use tokio::test;\n#[test]\nfn t() {}\n";
        assert_eq!(kept(named), ["fn t", "use use tokio::test"]);
        let mut parsed = syn::parse_file("#[test]\nfn t() {}\n").unwrap();
        strip(&mut parsed.items, false);
        assert_eq!(
            parsed.items.len(),
            1,
            "a #[macro_use] extern crate may shadow it"
        );
    }

    /// A [`TestFilter`] for checkouts of `files` (path, base's text, head's text) in the
    /// temporary directory it comes with.
    fn filter_for(
        units: &TestUnits,
        files: &[(&str, &str, &str)],
    ) -> (tempfile::TempDir, TestFilter) {
        let dir = write_checkouts(files);
        let [base, head] = ["base", "head"].map(|s| dir.path().join(s));
        let names = files.iter().map(|(p, _, _)| PathBuf::from(p)).collect();
        let filter = TestFilter::new(units, [&base, &head], &names);
        (dir, filter)
    }

    use super::super::tests::write_checkouts;

    /// The names changed between checkouts of `files`, a crate under `benches/` compiled with
    /// `cfg(test)`.
    fn changed(files: &[(&str, &str, &str)], units: &TestUnits) -> ChangedNames {
        let dir = write_checkouts(files);
        let [base, head] = ["base", "head"].map(|s| dir.path().join(s));
        changed_names_compiled(&base, &head, units).unwrap()
    }

    #[test]
    fn a_test_only_item_or_file_changes_no_name_of_a_crate_compiled_without_cfg_test() {
        let benches = TestUnits::Under(vec![PathBuf::from("benches")]);
        let lib = |extra: &str, module: &str| {
            format!(
                "pub fn chars() {{}}\n{module}\n#[cfg(test)]\nmod tests {{\n    #[test]\n    \
                 fn chars() {{{extra}}}\n}}\n"
            )
        };
        let (base, head) = (lib("", ""), lib("assert!(true);", ""));
        let files = [("src/lib.rs", base.as_str(), head.as_str())];
        assert!(changed(&files, &benches).is_empty());
        assert!(changed(&files, &TestUnits::Anywhere).contains("chars"));
        let in_bench = [("benches/b.rs", base.as_str(), head.as_str())];
        assert!(changed(&in_bench, &benches).contains("chars"));
        // A file reached only through `#[cfg(test)] mod helpers;`, and one a module of it
        // declares.
        let root = lib("", "#[cfg(test)]\nmod helpers;\nmod shown;");
        let files = [
            ("src/lib.rs", root.as_str(), root.as_str()),
            (
                "src/helpers.rs",
                "mod deep;\npub fn a() {}",
                "mod deep;\npub fn b() {}",
            ),
            ("src/helpers/deep.rs", "pub fn c() {}", "pub fn d() {}"),
            ("src/shown.rs", "pub fn e() {}", "pub fn f() {}"),
        ];
        let names = changed(&files, &benches);
        assert!(
            !["a", "b", "c", "d"].iter().any(|n| names.contains(n)),
            "{names:?}"
        );
        assert!(names.contains("e") && names.contains("f"), "{names:?}");
        // Gaining `#[cfg(test)]` leaves the crate's code: a change there.
        let moved = [(
            "src/lib.rs",
            "pub fn g() {}\n",
            "#[cfg(test)]\npub fn g() {}\n",
        )];
        assert!(changed(&moved, &benches).contains("g"));
    }

    #[test]
    fn a_file_is_test_only_only_where_every_declaration_is_and_nothing_moves_files() {
        let benches = TestUnits::Under(vec![PathBuf::from("benches")]);
        let both = "#[cfg(test)]\nmod t;\n";
        let file = ("src/t.rs", "fn a() {}", "fn b() {}");
        let test_only_in = |units: &TestUnits, files: &[(&str, &str, &str)]| {
            filter_for(units, files)
                .1
                .test_only_file(Path::new("src/t.rs"))
        };
        let test_only = |files: &[(&str, &str, &str)]| test_only_in(&benches, files);
        assert!(test_only(&[("src/lib.rs", both, both), file]));
        let main = ("src/main.rs", "mod t;\n", "mod t;\n");
        assert!(!test_only(&[("src/lib.rs", both, both), main, file]));
        assert!(!test_only(&[("src/lib.rs", both, "mod t;\n"), file]));
        let path = ("src/other.rs", "#[path = \"x.rs\"]\nmod x;\n", "");
        assert!(!test_only(&[("src/lib.rs", both, both), path, file]));
        let manifest = ("Cargo.toml", "[[bin]]\npath = \"src/t.rs\"\n", "");
        assert!(!test_only(&[("src/lib.rs", both, both), manifest, file]));
        let anywhere = TestUnits::Anywhere;
        assert!(!test_only_in(
            &anywhere,
            &[("src/lib.rs", both, both), file]
        ));
        let included = ("benches/b.rs", "include!(\"../src/t.rs\");", "");
        let (_dir, filter) = filter_for(&benches, &[("src/lib.rs", both, both), included, file]);
        assert!(!filter.strips(Path::new("src/t.rs")), "{filter:?}");
    }

    /// Builds `lib` as the library `demo` (without `cfg(test)`, as cargo links it) and `bench`
    /// as a bench target linking it (with `--cfg test`, as cargo builds a `harness = false`
    /// one), optimised with line tables, in the checkout `dir/side`; gives the bench executable.
    fn bench_build(dir: &Path, side: &str, lib: &str, bench: &str) -> PathBuf {
        let checkout = dir.join(side);
        for (path, text) in [("src/lib.rs", lib), ("benches/bench.rs", bench)] {
            std::fs::create_dir_all(checkout.join(path).parent().unwrap()).unwrap();
            std::fs::write(checkout.join(path), text).unwrap();
        }
        let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
        let compile = |args: &[&str]| {
            let status = std::process::Command::new(&rustc)
                .current_dir(&checkout)
                .args(["--edition=2021", "-O", "-C", "debuginfo=line-tables-only"])
                .args(args)
                .status()
                .unwrap();
            assert!(status.success());
        };
        compile(&["--crate-type=rlib", "--crate-name=demo", "src/lib.rs"]);
        let extern_demo = "--extern=demo=libdemo.rlib";
        let bench_args = [
            "--crate-name=bench",
            "--cfg=test",
            extern_demo,
            "benches/bench.rs",
        ];
        compile(&[&bench_args[..], &["-o", "bench"]].concat());
        checkout.join("bench")
    }

    #[test]
    fn a_set_up_naming_a_library_function_whose_namesake_test_changed_is_the_same_source() {
        let lib = |extra: &str| {
            format!(
                "#[inline(never)]\npub fn chars(s: &str) -> usize {{\n    \
                 s.chars().filter(|c| c.is_alphabetic()).count()\n}}\n\n#[cfg(test)]\n\
                 mod tests {{\n    #[test]\n    fn chars() {{\n        \
                 assert_eq!(super::chars(\"ab\"), 2);{extra}\n    }}\n}}\n"
            )
        };
        let bench = "#[inline(never)]\nfn setup(text: &str) -> usize {\n    \
                     demo::chars(text) + 1\n}\n\nfn main() {\n    \
                     println!(\"{}\", setup(std::hint::black_box(\"abc\")));\n}\n";
        let dir = tempfile::tempdir().unwrap();
        let base = bench_build(dir.path(), "base", &lib(""), bench);
        let added = "\n        assert_eq!(super::chars(\"a1\"), 1);";
        let head = bench_build(dir.path(), "head", &lib(added), bench);
        let [base_checkout, head_checkout] = ["base", "head"].map(|s| dir.path().join(s));
        let compare = |units: &TestUnits| {
            let changed = changed_names_compiled(&base_checkout, &head_checkout, units).unwrap();
            let side = |executable, checkout| Side {
                executable,
                checkout,
            };
            super::super::compare_function(
                &side(&base, &base_checkout),
                &side(&head, &head_checkout),
                "bench::setup",
                &changed,
            )
        };
        let benches = TestUnits::bench_roots(
            &base_checkout,
            [base_checkout.join("benches/bench.rs").as_path()],
        );
        assert_eq!(benches, TestUnits::Under(vec![PathBuf::from("benches")]));
        assert_eq!(compare(&benches), SourceComparison::Same);
        let SourceComparison::Differs(reason) = compare(&TestUnits::Anywhere) else {
            panic!("counting test code, the set-up names the changed `chars`");
        };
        assert!(reason.contains("`chars`"), "{reason}");
    }
}
