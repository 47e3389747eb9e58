//! The functions whose own definition a commit changes, read from the changed files' items
//! alone, with no line tables: what tells, before a build with line tables, that a changed
//! function cannot have been "compiled differently from the same source".
//!
//! Why: beside a `regressed` or `improved` verdict, the report names the functions of its timed
//! loop whose code changed although their source did not (issue #55). Telling that reads both
//! sides' line tables, from a build of its own: 52 of a 64-second run on ripgrep, 190 of 194 s
//! on fd (fat LTO, one codegen unit), where the only changed function, the walker's closure, is
//! the very one the commit rewrites (docs/design/field-trials.md, quiet runs of session 20). A
//! function whose own item reads differently on the two sides (its tokens, doc comments and
//! codegen hints left out, as [`super::ItemLines`] gives them) is not the same source, whatever
//! its line tables say; when every changed function of every changed verdict is such a one, the
//! build can be skipped, for it would name none.
//!
//! Which item a demangled name is: its path read with `syn` (closures' segments dropped, for a
//! closure's code is its function's), the module part matched to the file's module path (the
//! folders and file name after the package's `src/`, `mod.rs`, `lib.rs` and `main.rs` adding
//! none; a file outside `src/` is a crate root: a bench target) and its inline modules, then
//! the function: a free function, an inherent or trait method of a self type of that last
//! segment ([`super::qualified::ImplMethod::is_key`]), or a trait's default method. The crate
//! (the path's first segment) is not matched: a package's crate name is not its folder's. Any
//! name this cannot place (a `#[path]` module, a binary under `src/bin/`, a macro's function)
//! is not found, so the build goes ahead as before: finding less only costs the build.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path};

use super::{ItemLines, qualified};

/// A function of a changed file: the module path of its file and inline modules, and its item
/// key as [`super::ItemLines`] writes it without the inline modules (`impl Core < M , S >::fn
/// roll`).
type Place = (Vec<String>, String);

/// A function of a changed file as the commit leaves it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Function {
    /// Whether its definition differs between the sides, or one side only has it.
    pub changed: bool,
    /// The file, as compared.
    pub file: String,
    /// The names its definition holds, on either side ([`super::identifiers`]): a changed one
    /// (a constant it reads) changes what it computes though its text is the same.
    pub names: BTreeSet<String>,
}

/// The functions of the files a commit changes, each as [`Function`] tells.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct ChangedFunctions(BTreeMap<Place, Function>);

impl ChangedFunctions {
    /// Adds the functions of the file compared as `file`, whose items on the two sides are
    /// `base` and `head` ([`super::item_lines`]).
    pub(super) fn add_file(&mut self, file: &Path, base: &[ItemLines], head: &[ItemLines]) {
        let module = file_module(file);
        let texts = |items: &[ItemLines]| {
            let mut by_key: BTreeMap<String, Vec<String>> = BTreeMap::new();
            for item in items.iter().filter(|i| is_function_key(&i.key)) {
                by_key
                    .entry(item.key.clone())
                    .or_default()
                    .push(item.text.clone());
            }
            by_key
        };
        let (base, head) = (texts(base), texts(head));
        for key in base.keys().chain(head.keys()) {
            let sides = [base.get(key), head.get(key)];
            let (inline, rest) = split_scope(key);
            let mut path = module.clone();
            path.extend(inline);
            let texts = sides.into_iter().flatten().flatten();
            let function = Function {
                changed: sides[0] != sides[1],
                file: file.display().to_string(),
                names: texts.flat_map(|t| super::identifiers(t)).collect(),
            };
            self.0.insert((path, rest.to_string()), function);
        }
    }

    /// The functions of changed files the demangled function `function` (without hash) may be,
    /// or the function a closure of which it is: none when it cannot be placed.
    pub(super) fn of<'s>(&'s self, function: &str) -> impl Iterator<Item = &'s Function> + 's {
        let function = without_closures(function).to_string();
        let candidates: Vec<&Function> = if function.starts_with('<') {
            self.of_qualified(&function)
        } else {
            self.of_plain(&function)
        };
        candidates.into_iter()
    }

    /// [`ChangedFunctions::of`] for a plain path (`fd::walk::WorkerState::spawn_senders`,
    /// `grep::Core<M,S>::roll`): a free function of that module, or a method of a self type
    /// (or a trait's default method) of the path's last segment but one.
    fn of_plain(&self, function: &str) -> Vec<&Function> {
        let Ok(syn::TypePath {
            qself: None, path, ..
        }) = syn::parse_str(function)
        else {
            return Vec::new();
        };
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        let [_crate, within @ .., name] = &segments[..] else {
            return Vec::new();
        };
        let free = self.0.get(&(within.to_vec(), format!("fn {name}")));
        let [modules @ .., owner] = within else {
            return free.into_iter().collect();
        };
        let of_owner = self
            .0
            .iter()
            .filter(|((m, key), _)| m == modules && owner_key(key, owner, name))
            .map(|(_, f)| f);
        free.into_iter().chain(of_owner).collect()
    }

    /// [`ChangedFunctions::of`] for a qualified path (`<fd::cli::Opts as clap::Args>::f`,
    /// `<grep::Core<M, S>>::roll`): a method of an impl for that self type in its module.
    fn of_qualified(&self, function: &str) -> Vec<&Function> {
        let Some(method) = qualified::impl_method(function) else {
            return Vec::new();
        };
        let Ok(path) = syn::parse_str::<syn::TypePath>(function) else {
            return Vec::new();
        };
        let Some(syn::Type::Path(self_ty)) = path.qself.as_ref().map(|q| &*q.ty) else {
            return Vec::new();
        };
        let own: Vec<String> = self_ty
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        let [_crate, modules @ .., _self_name] = &own[..] else {
            return Vec::new();
        };
        let matching = self.0.iter();
        let matching = matching.filter(|((m, key), _)| m == modules && method.is_key(key));
        matching.map(|(_, f)| f).collect()
    }
}

/// `function` without the closures' segments at its end (`::{{closure}}`, `::{closure#0}`).
fn without_closures(function: &str) -> &str {
    let mut rest = function;
    while let Some(at) = rest.rfind("::{") {
        if !rest[at + 3..]
            .trim_start_matches('{')
            .starts_with("closure")
        {
            break;
        }
        rest = &rest[..at];
    }
    rest
}

/// Whether an item key (inline modules left out) is a method `name` of an inherent impl of a
/// self type whose last segment is `owner` ([`qualified::ImplMethod::is_key`]), or a default
/// method of the trait `owner`.
fn owner_key(key: &str, owner: &str, name: &str) -> bool {
    key.strip_suffix(&format!("::fn {name}"))
        .and_then(|header| header.strip_prefix("trait "))
        == Some(owner)
        || qualified::ImplMethod::inherent(owner, name).is_key(key)
}

/// Whether an item key is a function's: a free one, or a member of an impl or a trait.
fn is_function_key(key: &str) -> bool {
    let (_, rest) = split_scope(key);
    rest.starts_with("fn ") || rest.contains("::fn ")
}

/// An item key split into its inline modules (`a::b::` before the item) and the rest.
fn split_scope(key: &str) -> (Vec<String>, &str) {
    let mut modules = Vec::new();
    let mut rest = key;
    while let Some((first, after)) = rest.split_once("::") {
        let is_module = !first.is_empty() && first.chars().all(|c| c.is_alphanumeric() || c == '_');
        if !is_module {
            break;
        }
        modules.push(first.to_string());
        rest = after;
    }
    (modules, rest)
}

/// The module path of the file `file` (inside its checkout) within its crate: the folders and
/// file stem after the last `src` folder, a `mod.rs`, `lib.rs` or `main.rs` adding none; a file
/// outside any `src` folder is a crate root (a bench target, an example), with none.
fn file_module(file: &Path) -> Vec<String> {
    let parts: Vec<String> = file
        .with_extension("")
        .components()
        .filter_map(|c| match c {
            Component::Normal(part) => part.to_str().map(str::to_string),
            _ => None,
        })
        .collect();
    let Some(src) = parts.iter().rposition(|p| p == "src") else {
        return Vec::new();
    };
    let mut module = parts[src + 1..].to_vec();
    if module
        .last()
        .is_some_and(|stem| ["mod", "lib", "main"].contains(&stem.as_str()))
    {
        module.pop();
    }
    module
}

#[cfg(test)]
mod tests {
    use super::super::item_lines;
    use super::*;

    /// The functions of `file` between two of its texts, and whether a function of that name
    /// was found changed.
    struct Changed(ChangedFunctions);

    impl Changed {
        fn holds(&self, function: &str) -> bool {
            self.0.of(function).any(|f| f.changed)
        }
    }

    fn changed(file: &str, base: &str, head: &str) -> Changed {
        let mut functions = ChangedFunctions::default();
        let items = |text| item_lines(text).expect("parses");
        functions.add_file(Path::new(file), &items(base), &items(head));
        Changed(functions)
    }

    const WALK: &str = "
        pub struct WorkerState;
        impl WorkerState {
            fn spawn_senders(&self) { let f = |e: u32| e.is_power_of_two(); f(3); }
            fn other(&self) {}
        }
        mod inner { pub fn helper() -> u32 { 1 } }
    ";

    #[test]
    fn a_closure_of_a_method_the_commit_rewrites_changed_its_own_source() {
        let head = WALK.replace("e.is_power_of_two()", "e > 2");
        let functions = changed("src/walk.rs", WALK, &head);
        for name in [
            "fd::walk::WorkerState::spawn_senders::{{closure}}::{{closure}}",
            "fd::walk::WorkerState::spawn_senders",
            "<fd::walk::WorkerState>::spawn_senders::{closure#0}",
        ] {
            assert!(functions.holds(name), "{name}");
        }
        for name in [
            "fd::walk::WorkerState::other",
            "fd::exec::WorkerState::spawn_senders",
            "fd::walk::Other::spawn_senders",
            "fd::walk::inner::helper",
            "core::ptr::drop_in_place<fd::walk::WorkerState>",
        ] {
            assert!(!functions.holds(name), "{name}");
        }
    }

    #[test]
    fn free_functions_of_inline_modules_and_trait_methods_are_placed_by_their_module() {
        let head = WALK
            .replace("{ 1 }", "{ 2 }")
            .replace("impl WorkerState {", "impl Clone for WorkerState { fn clone(&self) -> Self { WorkerState } }\nimpl WorkerState {");
        let functions = changed("crates/core/src/walk/mod.rs", WALK, &head);
        assert!(functions.holds("fd_core::walk::inner::helper"));
        assert!(!functions.holds("fd_core::inner::helper"));
        assert!(functions.holds("<fd_core::walk::WorkerState as core::clone::Clone>::clone"));
        assert!(!functions.holds("<fd_core::walk::WorkerState as core::fmt::Debug>::clone"));
        assert!(!functions.holds("fd_core::walk::WorkerState::spawn_senders"));
    }

    #[test]
    fn a_function_whose_text_is_the_same_but_for_comments_and_lines_did_not_change() {
        let head = format!(
            "\n\n// moved\n{}",
            WALK.replace("fn other", "/// docs\n fn other")
        );
        let functions = changed("src/walk.rs", WALK, &head);
        for name in [
            "fd::walk::WorkerState::other",
            "fd::walk::WorkerState::spawn_senders",
        ] {
            assert!(!functions.holds(name), "{name}");
            assert!(functions.0.of(name).next().is_some(), "{name}: placed");
        }
    }

    #[test]
    fn a_generic_type_s_method_is_found_by_either_demangling() {
        let base =
            "pub struct Core<M, S>(M, S);\nimpl<M, S> Core<M, S> { fn roll(&self) -> u8 { 1 } }\n";
        let functions = changed(
            "crates/searcher/src/searcher/core.rs",
            base,
            &base.replace("{ 1 }", "{ 2 }"),
        );
        assert!(functions.holds("grep_searcher::searcher::core::Core<M,S>::roll"));
        assert!(functions.holds("<grep_searcher::searcher::core::Core<u8, i32>>::roll"));
        assert!(!functions.holds("grep_searcher::searcher::Core<M,S>::roll"));
    }

    /// Two checkouts of a crate whose commit changes a constant `work` reads, and no function.
    #[test]
    fn a_function_that_reads_a_changed_constant_changes_with_its_source() {
        let dir = tempfile::tempdir().unwrap();
        let lib = "const ROUNDS: u64 = 100;\n\
                   pub fn work(x: u64) -> u64 { x * ROUNDS }\n\
                   pub fn other(x: u64) -> u64 { x + 1 }\n";
        for (side, text) in [
            ("base", lib.to_string()),
            ("head", lib.replace("100", "2000")),
        ] {
            std::fs::create_dir_all(dir.path().join(side).join("src")).unwrap();
            std::fs::write(dir.path().join(side).join("src/lib.rs"), text).unwrap();
        }
        let names = super::super::changed_names(&dir.path().join("base"), &dir.path().join("head"))
            .unwrap();
        assert!(names.changes_own_source("demo::work"));
        assert!(!names.changes_own_source("demo::other"));
        assert!(!names.changes_own_source("other_crate::deep::work"));
    }

    #[test]
    fn file_modules_follow_the_folders_after_src() {
        for (file, module) in [
            ("src/lib.rs", vec![]),
            (
                "crates/searcher/src/searcher/core.rs",
                vec!["searcher", "core"],
            ),
            ("src/a/mod.rs", vec!["a"]),
            ("benches/parse.rs", vec![]),
        ] {
            assert_eq!(file_module(Path::new(file)), module, "{file}");
        }
    }
}
