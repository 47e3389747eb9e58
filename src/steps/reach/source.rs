//! Whether a function compiled differently on the two sides was compiled from the same source.
//!
//! A commit changes the machine code of functions whose source it does not touch: a new function
//! in a module moves the codegen-unit partition, and with it the inlining of its neighbours
//! (chrono's `Local::now` and `Cache::offset`, docs/design/field-trials.md). When such a function
//! runs only outside a benchmark's timed loop (the harness's start-up, the benchmark's set-up),
//! its code is not measured: what matters there is only that it computes the same inputs. That
//! is decided here from the line tables (a build with `debug = "line-tables-only"`, the one
//! `--explain` makes): every instruction of the function's symbol, with its whole inline chain,
//! says which function of which source file and which line it comes from. Per (file, function)
//! the lines from the first to the last that contributed code are one span, and two sides are
//! the same when they have the same spans with the same text (line numbers may shift: a function
//! added above moves them). A span covers the lines without code inside it too, so a statement
//! added or removed there is seen even when it compiled to nothing of its own.
//!
//! Soundness first: a file that cannot be read, an instruction without a line, a function
//! without a symbol or an inlined copy, are [`SourceComparison::Unknown`]; the caller measures
//! then. Files of the
//! standard library (`/rustc/<commit>/library/…`) are the same text when their path is: the
//! commit hash names the toolchain (and its crates.io dependencies, `/rust/deps/<crate>-<version>/…`,
//! a published version's files). What the lines do not show is a definition used from
//! elsewhere that leaves no instruction of its own: a `const` folded into an immediate, a type's
//! layout, a macro's body, a trait's default method. So the changed files of the two checkouts
//! are parsed (`syn`) and the names of the items whose definition differs are collected
//! ([`changed_names`]): a function whose lines name one differs, though they read the same.
//! A constant, static or type whose unchanged definition names a changed item changes with it.
//! Items, not the identifiers of the changed lines: a local variable renamed in one function
//! (`to` in chrono's RFC 3339 parser) must not make every function with a local of that name
//! differ. Nor does a function's own local binding (`let mut count` in bstr's bench `chars`)
//! and its one-segment uses count as the changed item of its name (`Chars::count`): the
//! compiler resolves them to the local first ([`locals`], conservative where unsure). A file that does not parse falls back to every name on its changed lines. A changed
//! `use` without visibility changes what its names mean in its own module only (chrono's
//! `parse.rs` imports `NaiveDate`, which names a type used everywhere): those names count in
//! the files of that module ([`ChangedNames::contains_in`]), its own and those of the modules
//! inside it (`use super::*` reaches a private import; no path from outside does). A crate
//! root's or `mod.rs`'s inner modules are in its folder; any other file's in the folder of its
//! name when the file around it declares it (else it may be a crate root: its whole folder). A
//! `#[path]` attribute in the module, or an `include!` of the file, may put its code anywhere:
//! then its names count everywhere. The caller only trusts this comparison for functions whose
//! code lies outside the timed loop, never to skip a benchmark whose timed code differs.
//!
//! Inlined on one side, called on the other ([`SourceComparison::SameApart`]): the codegen units
//! a commit moves also move what is inlined (chrono's `offset`, inlined into `Local::now` in
//! base's build and called from it in head's), so one side has spans the other has not. Such a
//! span is not a difference when, first, its function's whole definition is the same: the line
//! tables name a function by its short name (`offset` for the module's function and for
//! `Cache::offset` alike), so the definition is the innermost item of the file that holds the
//! span's lines (a closure's is the function around it; lines two same-named functions share are
//! held by every item they overlap), parsed with `syn` on both sides, and the items of that key
//! must read the same token for token, lines shifted or not; and no item of that name may change
//! anywhere ([`changed_names`]: a namesake elsewhere in the file could be the one called). And,
//! second, the side without it must call a copy of it: a symbol whose outermost frame is that
//! function at a line of that definition (each instantiation of a generic by its own extents).
//! The copy's spans join that side's and are compared in their turn, what it inlines and what
//! the first side inlined but it calls, until both sides hold the same functions (a key of the
//! workspace that copies brought to both sides is followed both ways: chrono's two `offset`s
//! move in opposite directions, base inlining the module's and calling `Cache::offset`). What remains
//! on one side only differs, except: code the compiler placed at the lines of another function
//! both sides compare (a `for` loop's desugaring); a function of the standard library (the same
//! by its path, its generic arguments in its name), which the other side may have optimised into
//! other code; a function with no symbol at all on one side, inlined into all its callers
//! there, which are compared in their own right (one side calls it, the other does not, so their
//! code differs); and a function of the workspace inlined with frames on one side that leaves
//! no code of its own on the other, neither frames nor a symbol (chrono's
//! `DateTime::from_naive_utc_and_offset<Utc>`, a constructor head's optimiser merged into the
//! instructions of `Local::now`), under the conditions below. A file that cannot be read or
//! parsed, lines no item holds, more than 32 copies to follow: [`SourceComparison::Unknown`].
//!
//! Why the last is sound ([`Apart::merged_away`]). What a side computes at such a call is fixed
//! by the source of the caller, of the function and of what it calls. The caller's lines are
//! compared (a span both sides have reads the same; one only one side has is followed in its
//! turn). The function's whole definition, the innermost `syn` item holding its lines, reads
//! the same token for token on both sides (so does its impl's header, else every name in the
//! impl changes), no item of its name changes anywhere, and neither its whole text (not only
//! the lines that kept code) nor its name with its generic arguments names what the commit
//! changes where that text is: so every path it names resolves to an item whose definition did
//! not change (an item that changed gives its name; an import that changed gives its names in
//! its module). What it calls, inlined with it, is in the first side's spans and followed like
//! any other; called, it is a function of its own in the other side's trace, compared there
//! when its code differs. What is left is what no name shows, and the rest of this comparison
//! cannot see either: a trait method found through a changed import of its trait, a glob import
//! that brings another item of the same name. This rule is used only for code outside the timed
//! loop, where what matters is that the inputs it computes are the same; a function whose
//! definition or callees' names differ keeps the benchmark measured.
//!
//! Other lines of its own code on the two sides (`own_lines`): which of a function's lines hold
//! code changes with what it inlines (a function whose callee is inlined may need no frame, so
//! its signature's line holds none; called, it pushes one there), so a span both sides have
//! may start or end elsewhere though no text changed. Such spans are the same when the
//! function's own item holds each side's span, reads the same token for token on both sides,
//! and names nothing the commit changes (the same conditions as [`Apart::merged_away`]'s).
//!
//! Inlined into its callers on both sides (`inlined`): a function with no symbol on either side
//! (bstr's registration functions, called once from `main`, field trial bstr-count) is compared
//! by its inlined copies, every `DW_TAG_inlined_subroutine` whose abstract origin it is. The line
//! tables name an inlined function by its short name alone, so the copies of that name are told
//! apart by the file their own frames are in: the one file whose items define a free function of
//! that path (its inline modules and the file's path, or, at its top, the root of that crate as
//! a unit's name gives it); none, or two such files, is unknown. At each address of a copy, the
//! frames from the copy's own inward (its depth among the inlined subroutines) are its places,
//! as a symbol's whole chain is. Copies are matched by their inline chain: in each chain both
//! sides have, as many copies, each reading the same spans as one of the other side's; a chain
//! one side has alone (a caller the commit adds) is left out only when the symbol holding it is
//! compared in its own right wherever a benchmark runs it (the argument is in `inlined`'s doc).
//! No span may name what the commit changes; a callee inlined in one copy and called in another
//! is a difference here, not followed. Where that finds a difference, copies whose every line,
//! and every function they are inlined into, is in a file that reads the same on both sides are
//! the same source whatever their number (the compiler inlined the same text otherwise); a
//! function of the standard library named by a qualified path (`<i32 as
//! core::cmp::PartialOrd>::lt`, whose crates `qualified` reads with `syn`) is compared so by
//! every copy of its short name (the argument is in `inlined`'s doc).
//!
//! rustc's C `main` (`shim`): the entry shim the compiler makes for a binary has no line. It is
//! the same on both sides when both are such a shim: one small symbol without line or function
//! in the DWARF, made of the few x86-64 instructions a shim uses, the same bytes but for its
//! instruction-pointer-relative addresses, each pointing on both sides into a symbol of one name
//! at one offset, or where no symbol holds it (or an anonymous constant, `anon.<hash>.<n>`), into a
//! section of one name. The user's `main`
//! it passes is compared in its own right. A C `main` with lines (`#![no_main]`) is compared by
//! them.
//!
//! A function nothing is inlined into has no `DW_TAG_subprogram` in a line-tables-only build
//! (LLVM writes one only for a function with inlined scopes): its instructions' one frame has
//! rows and no function, and is the function of the symbol that holds them
//! ([`unnamed_frame_name`]). Test-only code (`test_only`): the names a commit changes are read
//! from each file as the crates that compile it see it, a library's `#[cfg(test)]` items and
//! `#[test]` functions left out ([`changed_names_compiled`]): they are removed before names
//! are resolved, so no code of a crate compiled without `cfg(test)` can name them.
//!
//! Why a dependency's lines are checked for fewer names ([`ChangedNames::contains_in`]). The
//! names check matches bare names, so a line of clap_lex (a crates.io package) naming its own
//! `new` matched unicode-segmentation's inherent `AsciiWordBoundIter::new`, which that commit
//! adds (field trial useg-ascii). A path written in a file resolves in that file's crate, to
//! its own items, its dependencies' and the standard library's. A file of a registry's or a
//! git repository's package, or of the toolchain, outside the checkout ([`is_dependency`]),
//! belongs to a package that depends on no package of the checkout: cargo resolves its
//! dependencies from registries and repositories, never to a path, unless a `[patch]` or
//! `[replace]` (in a manifest or a configuration file) puts the checkout's package in their
//! place. So, unless those may be at play ([`may_patch`], decided by words and erring
//! towards "may"), such a file names an item of the checkout only in ways that do not go
//! through the item's path: through a trait (generic code calling `T::new()`, `T::SIZE`,
//! `<T as Tr>::X`, a method by its trait, on the checkout's type), so the items of traits
//! and trait impls count there, in an instance whose generic arguments name a crate of the
//! checkout or cannot be read (the orphan rules' argument is in [`generics`]); by a symbol
//! name (`no_mangle`, `export_name`, an `extern` block linking to it), so an item with such
//! an attribute counts whatever the arguments; and through
//! the generic arguments of its function's name, which [`Apart::merged_away`] checks as a
//! line of the checkout. An item-level macro call (it may expand to trait impls) and a
//! changed line of a file that does not parse count everywhere too. A dependency's macro
//! expanded in the checkout names the checkout's items by paths of its body that resolve where
//! it is called; its code's lines are the call's, in the checkout, unless the macro is marked
//! `#[collapse_debuginfo(no)]` or the build passes `-C collapse-macro-debuginfo`: a mention of
//! the attribute in the dependency's file keeps every name counting there, of the flag in the
//! checkout's manifests, cargo's configuration or the flags' variables, everywhere. What is inherent (a free function, an inherent method or
//! constant, a type, a static, a `macro_rules!`, a definition naming one) counts only in the
//! checkout's files, and in those outside it that are not a dependency's (a path dependency
//! beside the checkout may depend on it through a path back).

mod compiled_in;
mod dependency_lines;
mod divan_registration;
mod generics;
mod harness_macros;
mod inlined;
mod locals;
mod made_by_call;
mod own_lines;
mod own_source;
mod proc_macros;
mod qualified;
mod shim;
mod test_only;

pub use divan_registration::{registered_benchmark, registers};
pub use generics::checkout_crates;
pub use inlined::has_checkout_line_tables;
use test_only::TestFilter;
pub use test_only::TestUnits;

use std::cell::{OnceCell, RefCell};
use std::collections::{BTreeMap, BTreeSet};
use std::iter::once;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use object::{Object, ObjectSymbol, SymbolKind};

/// One instruction's place in the source: the function of its inline chain (innermost or one
/// around it), the file and the line.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Place {
    pub function: String,
    pub file: PathBuf,
    pub line: u32,
}

/// The source a function was compiled from: per (file as compared, function of the inline
/// chain), the text of its span of lines.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FunctionSource {
    pub spans: BTreeMap<(String, String), Span>,
}

/// A span of one file's lines: where it starts, and its text line by line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    pub first: u32,
    pub text: Vec<String>,
}

/// The two sides' sources of one function compared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceComparison {
    /// The same spans with the same text: it computes the same (as far as its lines tell).
    Same,
    /// The same source, with what differs between the sides' code left out for a reason the
    /// note gives: a function inlined on one side and called on the other (its whole definition
    /// reads the same on both sides, and the copy called is compared in its own right: "`offset`
    /// (src/offset/local/unix.rs) inlined in base, called in head, same source"), inlined copies
    /// in a chain one side has alone whose holder is compared in its own right, or the groups a
    /// `criterion_main!` list appends at its end, which run after every common benchmark.
    SameApart(String),
    /// A span differs or is on one side only; the reason names it.
    Differs(String),
    /// The line tables or the files cannot tell.
    Unknown(String),
}

impl SourceComparison {
    /// Whether both sides were compiled from the same source ([`SourceComparison::Same`] or
    /// [`SourceComparison::SameApart`]).
    pub fn is_same(&self) -> bool {
        matches!(
            self,
            SourceComparison::Same | SourceComparison::SameApart(_)
        )
    }
}

/// How a function's source is found: the line tables of `executable` (a build with line
/// tables), the checkout its workspace sources are read from.
pub struct Side<'a> {
    pub executable: &'a Path,
    pub checkout: &'a Path,
}

/// The two sides' sources of `function` (demangled, without its hash: the line-tables build's
/// symbols hash differently from the measured build's) compared.
pub fn compare_function(
    base: &Side<'_>,
    head: &Side<'_>,
    function: &str,
    changed: &ChangedNames,
) -> SourceComparison {
    compare_functions(base, head, &[function.to_string()], changed)
        .pop()
        .unwrap_or_else(|| SourceComparison::Unknown(format!("{function}: not compared")))
}

/// [`compare_function`] for each of `functions`, in their order; each executable read once.
/// `changed`: the names the commit's changed lines hold ([`changed_names`]); a function whose
/// lines name one of them differs, though its own lines read the same.
pub fn compare_functions(
    base: &Side<'_>,
    head: &Side<'_>,
    functions: &[String],
    changed: &ChangedNames,
) -> Vec<SourceComparison> {
    match (Reader::open(base), Reader::open(head)) {
        (Ok(base), Ok(head)) => functions
            .iter()
            .map(|function| compare_one([&base, &head], function, changed))
            .collect(),
        (Err(why), _) | (_, Err(why)) => functions
            .iter()
            .map(|_| SourceComparison::Unknown(why.clone()))
            .collect(),
    }
}

/// The names of the two sides, as reasons give them.
const SIDES: [&str; 2] = ["base", "head"];

/// The most functions called on one side and inlined on the other that one comparison follows.
const MAX_COPIES: usize = 32;

/// A span's key: the file as compared and the function of the inline chain.
type Key = (String, String);

/// One side's executable, read once: its function symbols (by name demangled without hash,
/// and by [`short_name`]), its line tables, the checkout its sources are read from, and the
/// items of the files parsed so far.
struct Reader<'a> {
    executable: &'a Path,
    checkout: &'a Path,
    symbols: BTreeMap<String, Extents>,
    by_short_name: BTreeMap<String, Vec<String>>,
    loader: addr2line::Loader,
    items: RefCell<BTreeMap<String, ParsedItems>>,
    /// Its functions' inlined copies, read when a function has no symbol on either side.
    inlined: OnceCell<Result<inlined::InlinedIndex, String>>,
    /// The local bindings of the files read, which the names check leaves out.
    locals: locals::LocalsCache,
}

impl<'a> Reader<'a> {
    fn open(side: &Side<'a>) -> Result<Self, String> {
        let symbols = extents_of(side.executable)?;
        let loader = addr2line::Loader::new(side.executable).map_err(|e| {
            format!(
                "cannot read the line tables of {}: {e}",
                side.executable.display()
            )
        })?;
        let mut by_short_name: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for name in symbols.keys() {
            by_short_name
                .entry(short_name(name))
                .or_default()
                .push(name.clone());
        }
        Ok(Reader {
            executable: side.executable,
            checkout: side.checkout,
            symbols,
            by_short_name,
            loader,
            items: RefCell::default(),
            inlined: OnceCell::new(),
            locals: locals::LocalsCache::new(side.checkout),
        })
    }

    /// The source of `function`'s symbols; `None` when it has none. The code of the groups
    /// `left_out` inlined right inside it is not read ([`made_by_call`]).
    fn source(
        &self,
        function: &str,
        left_out: &BTreeSet<String>,
    ) -> Result<Option<FunctionSource>, String> {
        let Some(extents) = self.symbols.get(function) else {
            return Ok(None);
        };
        let places = places_leaving_out(&self.loader, extents, function, left_out)?;
        source_of(&places, self.checkout, |path| {
            std::fs::read_to_string(path).ok()
        })
        .map(Some)
    }

    /// The symbols that are the function of `key` itself, not inlined: the outermost frame at
    /// each of their entries is that function of that file, at a line within `lines` (any line
    /// when `None`: a file of the toolchain, the same by its path).
    fn copies(&self, key: &Key, lines: Option<(u32, u32)>) -> Vec<(String, Extents)> {
        let (file, function) = key;
        let candidates = self.by_short_name.get(&short_name(function));
        let own = |symbol: &str, start: u64| {
            let Some(place) = self.outermost(start, symbol) else {
                return false;
            };
            let (_, compared) = file_key(&place.file, self.checkout);
            last_segment(&place.function) == last_segment(function)
                && compared == *file
                && lines.is_none_or(|(first, last)| (first..=last).contains(&place.line))
        };
        // A name without its hash is every instantiation of a generic: only the extents of
        // this one are its copy.
        let copy = |name: &String| {
            let extents: Extents = self.symbols[name]
                .iter()
                .copied()
                .filter(|&(start, _)| own(name, start))
                .collect();
            (!extents.is_empty()).then(|| (name.clone(), extents))
        };
        candidates.into_iter().flatten().filter_map(copy).collect()
    }

    /// The source of the code in `extents`, of symbols named `function`.
    fn source_in(&self, function: &str, extents: &[(u64, u64)]) -> Result<FunctionSource, String> {
        let places = places_in(&self.loader, extents, function)?;
        source_of(&places, self.checkout, |path| {
            std::fs::read_to_string(path).ok()
        })
    }

    /// The outermost frame of the inline chain at `address`: the function whose symbol
    /// (`symbol`) it is; a lone frame without a function is the symbol's
    /// ([`unnamed_frame_name`]).
    fn outermost(&self, address: u64, symbol: &str) -> Option<Place> {
        let mut frames = self.loader.find_frames(address).ok()?;
        let (mut outermost, mut count) = (None, 0);
        while let Ok(Some(frame)) = frames.next() {
            (outermost, count) = (Some(frame), count + 1);
        }
        let frame = outermost?;
        let raw = frame.function.as_ref().and_then(|f| f.raw_name().ok());
        let function = match raw {
            Some(raw) => format!("{:#}", rustc_demangle::demangle(&raw)),
            None if count == 1 => unnamed_frame_name(symbol),
            None => return None,
        };
        let location = frame.location.as_ref()?;
        Some(Place {
            function,
            file: PathBuf::from(location.file?),
            line: location.line.filter(|&l| l > 0)?,
        })
    }

    /// The items of the file compared as `file` on this side, with their lines.
    fn items(&self, file: &str) -> ParsedItems {
        let mut items = self.items.borrow_mut();
        let entry = items
            .entry(file.to_string())
            .or_insert_with(|| items_of(self.checkout, file));
        entry.clone()
    }
}

/// Extensions of the C, C++ and assembly files a build script compiles (a file `include!`d as
/// Rust may have any other, `tables.rs.in`).
const NOT_RUST: &[&str] = &[
    "c", "h", "cc", "cpp", "cxx", "hh", "hpp", "hxx", "S", "s", "asm",
];

/// The items of `file` (relative to `checkout`), or why they cannot be had. A file that is not
/// Rust (a `-sys` crate's C, which its build script compiles and its line tables name) is said to
/// be so by its path in the checkout, rather than fail in the Rust parser.
fn items_of(checkout: &Path, file: &str) -> ParsedItems {
    let extension = Path::new(file).extension().and_then(|e| e.to_str());
    if extension.is_some_and(|e| NOT_RUST.contains(&e)) {
        return Err(format!(
            "`{file}` is not Rust: only Rust items are compared by source"
        ));
    }
    let path = checkout.join(file);
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    item_lines(&text)
        .map(Rc::new)
        .map_err(|e| format!("cannot parse {}: {e}", path.display()))
}

/// The items of a file with their lines, or why it cannot be read or parsed.
type ParsedItems = Result<Rc<Vec<ItemLines>>, String>;

/// An item of a file (a function, a method, an impl, a module, any other item), with the
/// lines it takes: what a span of lines is found in.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ItemLines {
    /// Its module, its owner (an impl, a trait) and its name, or its text when it has none.
    key: String,
    first: u32,
    last: u32,
    /// Its tokens, doc comments and codegen hints left out ([`text`]).
    text: String,
}

/// The items of the file `text`, at every level (inline modules, impls and traits, and their
/// members), with their lines.
fn item_lines(text: &str) -> Result<Vec<ItemLines>, String> {
    let items = syn::parse_file(text)
        .map(|file| {
            let mut items = Vec::new();
            collect_items(&file.items, "", &mut items);
            items
        })
        .map_err(|e| e.to_string());
    // The lines are read: free the text `span-locations` keeps per thread for them, which
    // would otherwise grow with every file parsed.
    proc_macro2::extra::invalidate_current_thread_spans();
    items
}

/// Records `items` of the module `scope` (`a::b::`) and what is inside them.
fn collect_items(items: &[syn::Item], scope: &str, out: &mut Vec<ItemLines>) {
    use syn::Item;
    for item in items {
        let key = match item {
            Item::Fn(f) => format!("{scope}fn {}", f.sig.ident),
            Item::Impl(i) => {
                let key = match &i.trait_ {
                    Some((path, _)) => {
                        format!("{scope}impl {} for {}", text(path), text(&i.self_ty))
                    }
                    None => format!("{scope}impl {}", text(&i.self_ty)),
                };
                for member in &i.items {
                    let name = match member {
                        syn::ImplItem::Fn(f) => format!("fn {}", f.sig.ident),
                        other => format!("item {}", text(other)),
                    };
                    push_item(out, format!("{key}::{name}"), member);
                }
                key
            }
            Item::Trait(t) => {
                let key = format!("{scope}trait {}", t.ident);
                for member in &t.items {
                    let name = match member {
                        syn::TraitItem::Fn(f) => format!("fn {}", f.sig.ident),
                        other => format!("item {}", text(other)),
                    };
                    push_item(out, format!("{key}::{name}"), member);
                }
                key
            }
            Item::Mod(m) => {
                if let Some((_, inner)) = &m.content {
                    collect_items(inner, &format!("{scope}{}::", m.ident), out);
                }
                format!("{scope}mod {}", m.ident)
            }
            other => format!("{scope}item {}", text(other)),
        };
        push_item(out, key, item);
    }
}

/// Records `item` under `key` with its lines.
fn push_item(
    out: &mut Vec<ItemLines>,
    key: String,
    item: &(impl syn::spanned::Spanned + quote::ToTokens),
) {
    let span = item.span();
    out.push(ItemLines {
        key,
        first: span.start().line as u32,
        last: span.end().line as u32,
        text: text(item),
    });
}

/// The innermost of `items` that holds the lines `first` to `last`.
fn innermost(items: &[ItemLines], first: u32, last: u32) -> Option<&ItemLines> {
    items
        .iter()
        .filter(|i| i.first <= first && last <= i.last)
        .min_by_key(|i| i.last - i.first)
}

/// The name of `function` without its path and generic arguments (`offset` of
/// `chrono::offset::local::inner::Cache::offset`, `drop_in_place` of
/// `core::ptr::drop_in_place<alloc::string::String>`); every closure's is `{closure}`.
fn short_name(function: &str) -> String {
    let last = last_segment(function);
    let name = match last.find('<') {
        Some(open) if open > 0 => last[..open].trim_end_matches("::"),
        _ => last,
    };
    if name.starts_with("{closure") || name.starts_with("{{closure") {
        "{closure}".to_string()
    } else {
        name.to_string()
    }
}

/// The last segment of the path `function`, with its generic arguments: what follows the last
/// `::` outside angle brackets (`<Cache as Default>::default` gives `default`). A `::` before
/// `<` is a turbofish, the generic arguments of the segment before it, not a segment of its
/// own: `<IndexMap<usize, i32>>::hash::<usize>` gives `hash::<usize>` (indexmap's field
/// trial: `<usize>` was taken for the name, and every file with a copy of anything was its).
fn last_segment(function: &str) -> &str {
    let (mut depth, mut start) = (0usize, 0);
    let bytes = function.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'<' => depth += 1,
            b'>' if i == 0 || bytes[i - 1] != b'-' => depth = depth.saturating_sub(1),
            b':' if depth == 0
                && bytes.get(i + 1) == Some(&b':')
                && bytes.get(i + 2) != Some(&b'<') =>
            {
                start = i + 2
            }
            _ => {}
        }
    }
    &function[start.min(function.len())..]
}

/// [`compare_function`] of one function, each side read by its [`Reader`].
fn compare_one(
    readers: [&Reader<'_>; 2],
    function: &str,
    changed: &ChangedNames,
) -> SourceComparison {
    if let Some(shims) = shim::compare_entry_shims(readers, function) {
        return shims;
    }
    if let Some(registration) = divan_registration::compare_registration(readers, function) {
        return registration;
    }
    let made = match made_by_call::made_by_call(readers, function, changed) {
        Ok(made) => made,
        Err(comparison) => return comparison,
    };
    let sources = [0, 1].map(|side| readers[side].source(function, &made.left_out[side]));
    let sources = match sources {
        [Err(why), _] | [_, Err(why)] => return SourceComparison::Unknown(why),
        [Ok(None), Ok(None)] => return inlined::compare_inlined(readers, function, changed),
        [Ok(base), Ok(head)] => [base, head],
    };
    let mut apart = Apart {
        readers,
        changed,
        symbolless: [sources[0].is_none(), sources[1].is_none()],
        pools: Default::default(),
        copies: Default::default(),
        followed: BTreeSet::new(),
        checked: BTreeMap::new(),
        accepted: BTreeSet::new(),
        notes: BTreeSet::new(),
        other_lines: BTreeSet::new(),
    };
    let originals = sources.map(Option::unwrap_or_default);
    if let Err(comparison) = apart.compare(&originals) {
        return comparison;
    }
    let files = apart
        .pools
        .iter()
        .flat_map(|pool| pool.keys().map(|(file, _)| file));
    if let Some(reason) = compiled_in::reason(files, changed) {
        return SourceComparison::Differs(reason);
    }
    let symbolless = (0..2).filter(|&side| apart.symbolless[side]).map(|side| {
        format!(
            "`{}` has no symbol in {}, inlined into its callers there, same source",
            short_name(function),
            SIDES[side]
        )
    });
    let apart_notes = apart.other_lines.into_iter().chain(apart.notes);
    let notes: Vec<String> = symbolless.chain(made.note).chain(apart_notes).collect();
    match notes.len() {
        0 => SourceComparison::Same,
        1..=3 => SourceComparison::SameApart(notes.join("; ")),
        n => SourceComparison::SameApart(format!("{} (+{} more)", notes[..3].join("; "), n - 3)),
    }
}

/// The comparison of one function whose code inlines, on one side, a function the other side
/// calls: the spans on one side only are followed to the copy the other side calls.
struct Apart<'r, 'a> {
    readers: [&'r Reader<'a>; 2],
    changed: &'r ChangedNames,
    /// Whether the function has no symbol on a side: inlined into its callers there.
    symbolless: [bool; 2],
    /// Per side, the spans of the function and of the copies followed, by key.
    pools: [BTreeMap<Key, Vec<Span>>; 2],
    /// Per side, the copies followed.
    copies: [BTreeSet<String>; 2],
    /// The keys followed, by the side that has them: each is searched for once.
    followed: BTreeSet<(usize, Key)>,
    /// The keys whose whole definition was found the same, by the side and the lines that
    /// located it, with its lines on each side (`None`: a file of the toolchain).
    checked: BTreeMap<(usize, Key, u32, u32), DefinedAt>,
    /// The keys a side has alone that need no copy on the other side: the function has no
    /// symbol there, or the lines are its caller's.
    accepted: BTreeSet<(usize, Key)>,
    /// What was inlined on one side and called on the other.
    notes: BTreeSet<String>,
    /// The functions of a dependency's unchanged file that hold other lines of it on the two
    /// sides ([`dependency_lines`]), noted first.
    other_lines: BTreeSet<String>,
}

impl Apart<'_, '_> {
    /// The two sides' `originals` compared: a span both have must read the same; one a side
    /// has alone must be of a function whose whole definition reads the same on both sides,
    /// and the other side must call a copy of it, whose spans are compared in their turn; no
    /// span of either side may name what the commit changes.
    fn compare(&mut self, originals: &[FunctionSource; 2]) -> Result<(), SourceComparison> {
        if let Some(why) = self.common_difference(originals) {
            return Err(SourceComparison::Differs(why));
        }
        self.pools = [0, 1].map(|side| {
            let spans = originals[side].spans.iter();
            spans.map(|(k, s)| (k.clone(), vec![s.clone()])).collect()
        });
        // A copy followed brings what it inlines: follow until no copy is added. A key of the
        // workspace both sides now have is followed too, unless both functions have it: it may
        // be two functions of one name (chrono's two `offset`s), one inlined on each side.
        let both = |key: &Key| originals.iter().all(|o| o.spans.contains_key(key));
        let mut grew = true;
        while grew {
            grew = false;
            for side in [0, 1] {
                let mut keys = self.alone(side);
                let shared = self.pools[side].keys().filter(|key| {
                    !both(key) && !is_toolchain(Path::new(&key.0)) && !keys.contains(key)
                });
                let shared: Vec<Key> = shared.cloned().collect();
                keys.extend(shared);
                for key in keys {
                    grew |= self.follow(side, &key)?;
                }
            }
        }
        for side in [0, 1] {
            if let Some((file, function)) = self.alone(side).first() {
                let other = SIDES[1 - side];
                return Err(SourceComparison::Differs(format!(
                    "{}'s code of {function} ({file}) is not in {other}'s, nor in a copy of it \
                     that {other} calls",
                    SIDES[side]
                )));
            }
        }
        let keys: BTreeSet<Key> = self.pools.iter().flat_map(|p| p.keys().cloned()).collect();
        for key in keys.iter().filter(|key| !both(key)) {
            for side in [0, 1] {
                if self.pools[side].contains_key(key) {
                    self.same_definition(side, key)?;
                }
            }
        }
        for (pool, reader) in self.pools.iter().zip(self.readers) {
            let spans = pool
                .iter()
                .flat_map(|(key, spans)| spans.iter().map(move |s| (key, s)));
            let locals = |file: &str, span: &Span| reader.locals.of(file, span);
            let found = generics::names_changed_by_instance(spans, self.changed, &locals);
            if let Some((name, file)) = found {
                return Err(SourceComparison::Differs(self.changed.reason(&name, file)));
            }
        }
        if let Some(note) = harness_macros::invocation_difference(self)? {
            self.notes.insert(note);
        }
        Ok(())
    }

    /// The first difference of the spans both `originals` have, as a reason. A function of a
    /// dependency's unchanged file whose spans hold other lines of it on the two sides, its
    /// instances inlined differently, is noted instead ([`dependency_lines`]).
    fn common_difference(&mut self, originals: &[FunctionSource; 2]) -> Option<String> {
        let [base, head] = originals;
        for (key, span) in &base.spans {
            let Some(other) = head.spans.get(key) else {
                continue;
            };
            let Some(offset) = first_difference(&span.text, &other.text) else {
                continue;
            };
            let dependency =
                dependency_lines::same_file_other_lines(key, [span, other], self.changed);
            match dependency.or_else(|| self.own_lines_otherwise(key, [span, other])) {
                Some(note) => self.other_lines.insert(note),
                None => {
                    let (file, function) = key;
                    return Some(format!(
                        "{function} differs at {file}:{} (head's line {})",
                        span.first + offset,
                        other.first + offset
                    ));
                }
            };
        }
        None
    }

    /// The keys of `side`'s spans that the other side has not, and that are still to follow.
    fn alone(&self, side: usize) -> Vec<Key> {
        let other = &self.pools[1 - side];
        self.pools[side]
            .keys()
            .filter(|key| !other.contains_key(*key))
            .filter(|key| !self.accepted.contains(&(side, (*key).clone())))
            .cloned()
            .collect()
    }

    /// Follows `key`, inlined on `side` and not on the other: its whole definition must be the
    /// same, and the other side must have a copy of it, whose spans join the other side's.
    /// Whether a copy was added.
    fn follow(&mut self, side: usize, key: &Key) -> Result<bool, SourceComparison> {
        if !self.followed.insert((side, key.clone())) {
            return Ok(false);
        }
        let other = 1 - side;
        let definition = self.same_definition(side, key)?;
        // The function itself is inlined into its callers there, which are compared in their
        // own right (their code differs: one side calls it, the other does not); or the lines
        // are of another function that both sides compare, where the compiler placed code of
        // this one (a `for` loop's desugaring, a macro's expansion): no copy to follow.
        if self.symbolless[other] || !definition.defines {
            self.accepted.insert((side, key.clone()));
            return Ok(false);
        }
        let (file, function) = key;
        let copies = self.readers[other].copies(key, definition.lines[other]);
        let no_copy = copies.is_empty();
        let mut grew = false;
        for (copy, extents) in copies {
            let id = format!("{copy} at {:#x}", extents[0].0);
            if !self.copies[other].insert(id) {
                continue;
            }
            if self.copies.iter().map(BTreeSet::len).sum::<usize>() > MAX_COPIES {
                return Err(SourceComparison::Unknown(format!(
                    "more than {MAX_COPIES} functions are inlined on one side and called on the other"
                )));
            }
            let source = self.readers[other].source_in(&copy, &extents);
            let source = source.map_err(SourceComparison::Unknown)?;
            for (k, span) in source.spans {
                self.pools[other].entry(k).or_default().push(span);
            }
            grew = true;
        }
        // None yet: a copy followed later (of the function that inlines it there) may hold it.
        // The standard library's code is the same by its path, and its generic arguments are
        // in its name: where the other side optimised such a function away or into another
        // of its functions, what it calls of the workspace is followed in its own right.
        if !self.pools[other].contains_key(key) {
            if is_toolchain(Path::new(file)) {
                self.accepted.insert((side, key.clone()));
            } else if no_copy {
                self.merged_away(side, key, &definition)?;
            }
            return Ok(grew);
        }
        self.notes.insert(format!(
            "`{}` ({file}) inlined in {}, called in {}, same source",
            short_name(function),
            SIDES[side],
            SIDES[other]
        ));
        Ok(grew)
    }

    /// Accepts `key`, a function of the workspace inlined on `side` that leaves no code of its
    /// own on the other (no symbol whose outermost frame it is: the optimiser merged it into
    /// the code around it there), as a function of the standard library is: its whole
    /// definition reads the same on both sides ([`Apart::same_definition`], done), no item of
    /// its name changes, and that definition names nothing the commit changes in its file
    /// ([`ChangedNames::contains_in`]), nor does the function's name (its generic arguments).
    /// Its callers are compared in their own right, and what it calls is in their spans, or in
    /// the other side's trace as functions of their own.
    fn merged_away(
        &mut self,
        side: usize,
        key: &Key,
        definition: &DefinedAt,
    ) -> Result<(), SourceComparison> {
        let (file, function) = key;
        if let Some(name) = self.changed_name_in(key, definition) {
            return Err(SourceComparison::Differs(format!(
                "{function} ({file}) is inlined in {} and leaves no code of its own in {}, and \
                 {}",
                SIDES[side],
                SIDES[1 - side],
                self.changed.reason(&name, file)
            )));
        }
        self.accepted.insert((side, key.clone()));
        self.notes.insert(format!(
            "`{}` ({file}) inlined in {}, merged into its callers in {} (no code of its own), \
             same source",
            short_name(function),
            SIDES[side],
            SIDES[1 - side]
        ));
        Ok(())
    }

    /// The first name the commit changes that the function of `key` names: in its generic
    /// arguments, its path, or the whole text of its `definition`.
    fn changed_name_in(&self, key: &Key, definition: &DefinedAt) -> Option<String> {
        let (file, function) = key;
        let (path, arguments) = split_generic_arguments(function);
        let by_arguments = identifiers(&arguments).find(|n| self.changed.named_in(n, file));
        let counts = |n: &String| self.changed.contains_in_instance(n, file, function);
        let by_path = || identifiers(&path).find(counts);
        let by_name = by_arguments.or_else(by_path);
        let mut names = definition.names.iter();
        let by_text = || names.find(|n| counts(n)).cloned();
        by_name.or_else(by_text)
    }

    /// Whether the function of `key` has the same whole definition on both sides: the
    /// innermost item of its file holding its lines (those of its spans, on a side that has
    /// one), and every item of that key in the other side's version of the file, read the same.
    /// Its lines on each side when it does; a file of the toolchain is the same by its path.
    fn same_definition(&mut self, side: usize, key: &Key) -> Result<DefinedAt, SourceComparison> {
        let (file, function) = key;
        let spans = self.pools[side].get(key).map_or(&[][..], Vec::as_slice);
        let first = spans.iter().map(|s| s.first).min().unwrap_or_default();
        let last = spans
            .iter()
            .map(|s| s.first + (s.text.len() as u32).saturating_sub(1))
            .max()
            .unwrap_or_default();
        let checked = (side, key.clone(), first, last);
        if let Some(definition) = self.checked.get(&checked) {
            return Ok(definition.clone());
        }
        let name = short_name(function);
        if is_toolchain(Path::new(file)) {
            let definition = DefinedAt {
                lines: [None, None],
                defines: true,
                names: Vec::new(),
            };
            self.checked.insert(checked, definition.clone());
            return Ok(definition);
        }
        if name != "{closure}" && self.changed.contains_in_instance(&name, file, function) {
            return Err(SourceComparison::Differs(format!(
                "{function} ({file}) is inlined on one side only, and {}",
                self.changed.name_reason(&name, file)
            )));
        }
        let items = [0, 1].map(|s| self.readers[s].items(file));
        let items = match items {
            [Err(why), _] | [_, Err(why)] => return Err(SourceComparison::Unknown(why)),
            [Ok(base), Ok(head)] => [base, head],
        };
        let definition = defined_at([&items[0], &items[1]], side, (first, last), key)?;
        self.checked.insert(checked, definition.clone());
        Ok(definition)
    }
}

/// The text of the function name `function` outside angle brackets (its path, resolved in the
/// crate of the file it is defined in) and inside them (its generic arguments, a qualified
/// self type or trait: they may name any crate's items, the checkout's too).
fn split_generic_arguments(function: &str) -> (String, String) {
    let (mut path, mut arguments, mut depth) = (String::new(), String::new(), 0usize);
    let mut previous = ' ';
    for c in function.chars() {
        match c {
            '<' => depth += 1,
            '>' if depth > 0 && previous != '-' => depth -= 1,
            _ => {}
        }
        previous = c;
        let into = if depth > 0 || c == '>' {
            &mut arguments
        } else {
            &mut path
        };
        into.push(if matches!(c, '<' | '>') { ' ' } else { c });
    }
    (path, arguments)
}

/// Where the function of `key` (`file`, `function`) is defined, its lines `first` to `last` on
/// `side`, found in the `items` of both sides' versions of the file
/// ([`Apart::same_definition`]): the same text on both sides, else why not.
fn defined_at(
    items: [&[ItemLines]; 2],
    side: usize,
    (first, last): (u32, u32),
    (file, function): &Key,
) -> Result<DefinedAt, SourceComparison> {
    let name = short_name(function);
    // The item that holds the lines; when none does (two functions of one name, or two
    // closures `{closure#0}` of two functions, share a key), every item they overlap.
    let keys: BTreeSet<&str> = match innermost(items[side], first, last) {
        Some(item) => once(item.key.as_str()).collect(),
        None => items[side]
            .iter()
            .filter(|i| i.first <= last && first <= i.last)
            .map(|i| i.key.as_str())
            .collect(),
    };
    if keys.is_empty() {
        return Err(SourceComparison::Unknown(format!(
            "no item of {file} holds lines {first}-{last} of {function} ({})",
            SIDES[side]
        )));
    }
    let of_keys = |items: &[ItemLines]| -> Vec<ItemLines> {
        let held = items.iter().filter(|i| keys.contains(i.key.as_str()));
        held.cloned().collect()
    };
    let [base, head] = [of_keys(items[0]), of_keys(items[1])];
    let texts = |items: &[ItemLines]| {
        let mut texts: Vec<(String, String)> = items
            .iter()
            .map(|i| (i.key.clone(), i.text.clone()))
            .collect();
        texts.sort();
        texts
    };
    if texts(&base) != texts(&head) {
        return Err(SourceComparison::Differs(format!(
            "{function} ({file}) is inlined on one side only, and its source differs"
        )));
    }
    let lines = |items: &[ItemLines]| {
        let first = items.iter().map(|i| i.first).min()?;
        Some((first, items.iter().map(|i| i.last).max()?))
    };
    let defines = keys.iter().any(|k| k.ends_with(&format!("fn {name}")));
    let names: BTreeSet<String> = base.iter().flat_map(|i| identifiers(&i.text)).collect();
    let definition = DefinedAt {
        lines: [lines(&base), lines(&head)],
        defines: name == "{closure}" || defines,
        names: names.into_iter().collect(),
    };
    Ok(definition)
}

/// Where the function of a span is defined, found the same on both sides
/// ([`Apart::same_definition`]).
#[derive(Debug, Clone)]
struct DefinedAt {
    /// The lines of the item that holds it on each side (`None`: a file of the toolchain).
    lines: [Option<(u32, u32)>; 2],
    /// Whether that item is the function itself (or the function around a closure), not one
    /// whose lines the compiler gave its code.
    defines: bool,
    /// The names its whole text holds (the same on both sides; none for the toolchain's).
    names: Vec<String>,
}

/// The first name of `changed` that the lines of `spans` (each of the file compared as the
/// string with it) hold, with that file: a name a private `use` changes counts in its module's
/// files only ([`ChangedNames::contains_in`]); a local binding of the function the lines are
/// in, and its uses, are not the item of that name (`locals` gives them: [`locals`]).
fn names_changed<'s>(
    spans: impl IntoIterator<Item = (&'s String, &'s Span)>,
    changed: &ChangedNames,
    locals: &LocalsOf<'_>,
) -> Option<(String, &'s String)> {
    spans.into_iter().find_map(|(file, span)| {
        let locals = locals(file, span);
        let mut names = locals::span_names(span, &locals);
        let name = names.find(|name| changed.contains_in(name, file))?;
        Some((name, file))
    })
}

/// The local bindings of the file compared as the string, where the span is
/// ([`locals::LocalsCache::of`]).
type LocalsOf<'l> = dyn Fn(&str, &Span) -> Rc<locals::Locals> + 'l;

/// Every place the code of `function`'s symbols (all of its instantiations) comes from: each
/// row of the line tables in their extent, with each frame of its inline chain.
pub fn places_of(executable: &Path, function: &str) -> Result<BTreeSet<Place>, String> {
    places_of_all(executable, &[function.to_string()])?
        .pop()
        .unwrap_or_else(|| Err(format!("{function}: not found")))
}

/// [`places_of`] for each of `functions`, in their order; the executable read once.
fn places_of_all(
    executable: &Path,
    functions: &[String],
) -> Result<Vec<Result<BTreeSet<Place>, String>>, String> {
    let extents = extents_of(executable)?;
    let loader = addr2line::Loader::new(executable).map_err(|e| {
        format!(
            "cannot read the line tables of {}: {e}",
            executable.display()
        )
    })?;
    let all = functions
        .iter()
        .map(|function| match extents.get(function.as_str()) {
            None => Err(format!("{} has no symbol {function}", executable.display())),
            Some(extents) => places_in(&loader, extents, function),
        })
        .collect();
    Ok(all)
}

/// The places of the code in `extents` (of `function`).
fn places_in(
    loader: &addr2line::Loader,
    extents: &[(u64, u64)],
    function: &str,
) -> Result<BTreeSet<Place>, String> {
    places_leaving_out(loader, extents, function, &BTreeSet::new())
}

/// [`places_in`] but for the code of the functions `left_out` (short names) inlined right
/// inside `function`: `main`'s groups appended at the end of its list ([`made_by_call`]).
fn places_leaving_out(
    loader: &addr2line::Loader,
    extents: &[(u64, u64)],
    function: &str,
    left_out: &BTreeSet<String>,
) -> Result<BTreeSet<Place>, String> {
    let mut places = BTreeSet::new();
    for &(start, end) in extents {
        let rows = loader
            .find_location_range(start, end)
            .map_err(|e| format!("{function}: {e}"))?;
        let mut covered = start;
        for (address, length, _) in rows {
            if address > covered {
                return Err(format!("{function}: code at {covered:#x} has no line"));
            }
            covered = covered.max(address + length);
            let frames = frames_at(loader, address, function)?;
            if !left_out.is_empty() && inside_one_of(loader, address, left_out) {
                continue;
            }
            places.extend(frames);
        }
        if covered < end {
            return Err(format!("{function}: code at {covered:#x} has no line"));
        }
    }
    // Rows of line 0 (code the compiler made: a loop's header, a spill) belong to the function
    // whose span covers them; a function with no line at all cannot be compared.
    if places.is_empty() {
        return Err(format!("{function}: its code has no source line"));
    }
    Ok(places)
}

/// Whether the frame right inside the outermost one at `address` (a function inlined into the
/// symbol's own code) is of a function whose short name is one of `names`.
fn inside_one_of(loader: &addr2line::Loader, address: u64, names: &BTreeSet<String>) -> bool {
    let Ok(mut frames) = loader.find_frames(address) else {
        return false;
    };
    let mut chain = Vec::new();
    while let Ok(Some(frame)) = frames.next() {
        let raw = frame.function.as_ref().and_then(|f| f.raw_name().ok());
        chain.push(raw.map(|raw| format!("{:#}", rustc_demangle::demangle(&raw))));
    }
    let inside = chain.len().checked_sub(2).and_then(|i| chain[i].as_deref());
    inside.is_some_and(|name| names.contains(&short_name(name)))
}

/// The extents (start, end) of one function's symbols.
type Extents = Vec<(u64, u64)>;

/// The extents (start, end) of the function symbols of `executable`, by name demangled without
/// its hash.
fn extents_of(executable: &Path) -> Result<BTreeMap<String, Extents>, String> {
    let data = std::fs::read(executable)
        .map_err(|e| format!("cannot read {}: {e}", executable.display()))?;
    let file = object::File::parse(&*data)
        .map_err(|e| format!("cannot parse {}: {e}", executable.display()))?;
    let mut extents: BTreeMap<String, Extents> = BTreeMap::new();
    for symbol in file.symbols() {
        if symbol.kind() != SymbolKind::Text || symbol.size() == 0 {
            continue;
        }
        let Ok(raw) = symbol.name() else {
            continue;
        };
        let name = format!("{:#}", rustc_demangle::demangle(raw));
        let start = symbol.address();
        extents
            .entry(name)
            .or_default()
            .push((start, start + symbol.size()));
    }
    Ok(extents)
}

/// The places of the instruction at `address` (in a symbol of `function`): every frame of its
/// inline chain. A lone frame without a function is `function`'s own code
/// ([`unnamed_frame_name`]).
fn frames_at(
    loader: &addr2line::Loader,
    address: u64,
    function: &str,
) -> Result<Vec<Place>, String> {
    let mut frames = loader
        .find_frames(address)
        .map_err(|e| format!("{function}: {e}"))?;
    let (mut places, mut first) = (Vec::new(), true);
    while let Ok(Some(frame)) = frames.next() {
        let name = frame
            .function
            .as_ref()
            .and_then(|f| f.raw_name().ok())
            .map(|raw| format!("{:#}", rustc_demangle::demangle(&raw)));
        let location = frame.location.as_ref();
        let alone = name.is_none() && first && matches!(frames.next(), Ok(None));
        let Some(name) = name.or_else(|| alone.then(|| unnamed_frame_name(function))) else {
            return Err(format!("{function}: code at {address:#x} has no function"));
        };
        first = false;
        // A frame without a line (0 or none: code the compiler made, such as a loop's header)
        // is in the span of the function it is in, or of the frames around it.
        if let (Some(file), Some(line)) = (
            location.and_then(|l| l.file),
            location.and_then(|l| l.line).filter(|&l| l > 0),
        ) {
            places.push(Place {
                function: name,
                file: PathBuf::from(file),
                line,
            });
        }
    }
    Ok(places)
}

/// The name the debug information gives the function of the symbol `function` (demangled,
/// without its hash): the last segment of its path, with its generic arguments (`setup` of
/// `bench::setup`), as a frame of it names it.
///
/// Why a frame may have none, and why the symbol's function is then the one: in a build with
/// `debug = "line-tables-only"`, LLVM gives a function an entry (`DW_TAG_subprogram`) only
/// when something is inlined into it (bstr's `find_iter` benchmarks, field trial bstr-count:
/// "code at … has no function"); its instructions keep their rows in the line tables. With
/// nothing inlined, every instruction of it is at a line of its own source (or none), so the
/// address's one frame, with no function, is the function whose symbol holds it.
fn unnamed_frame_name(function: &str) -> String {
    last_segment(function).to_string()
}

/// The source of `places`: the files read with `read`, a file of `checkout` named by its path
/// inside it (the two checkouts' paths differ), any other by its whole path. A relative path is
/// the checkout's: the build maps the checkout's root to `.` in the file names it compiles in
/// (`--remap-path-prefix`, [`crate::steps::build::normalize`]), so `./src/lib.rs` names the
/// same file text in both line tables only when it is read from each side's own checkout.
pub fn source_of(
    places: &BTreeSet<Place>,
    checkout: &Path,
    read: impl Fn(&Path) -> Option<String>,
) -> Result<FunctionSource, String> {
    let mut lines: BTreeMap<(PathBuf, String), (u32, u32)> = BTreeMap::new();
    for place in places {
        let span = lines
            .entry((place.file.clone(), place.function.clone()))
            .or_insert((place.line, place.line));
        span.0 = span.0.min(place.line);
        span.1 = span.1.max(place.line);
    }
    let mut source = FunctionSource::default();
    for ((file, function), (first, last)) in lines {
        let (file, key) = file_key(&file, checkout);
        let text = if is_toolchain(&file) {
            Vec::new()
        } else {
            let whole = read(&file).ok_or_else(|| format!("cannot read {}", file.display()))?;
            let text: Vec<String> = whole
                .lines()
                .skip(first as usize - 1)
                .take((last - first + 1) as usize)
                .map(|l| l.trim_end().to_string())
                .collect();
            if text.len() != (last - first + 1) as usize {
                return Err(format!("{} has no line {last}", file.display()));
            }
            text
        };
        source.spans.insert((key, function), Span { first, text });
    }
    Ok(source)
}

/// The file `file` of the line tables as it is read (a relative path is `checkout`'s) and as
/// it is compared (its path inside the checkout, else its whole path).
fn file_key(file: &Path, checkout: &Path) -> (PathBuf, String) {
    let file = if file.is_relative() {
        checkout.join(remapped_part(file))
    } else {
        file.to_path_buf()
    };
    let key = match file.strip_prefix(checkout) {
        Ok(inside) => inside.to_string_lossy().into_owned(),
        Err(_) => file.to_string_lossy().into_owned(),
    };
    (file, key)
}

/// The part of a relative line-table path that names the checkout's file. The line tables put
/// a unit's compilation directory before each relative file; a normalised build remaps the
/// checkout to `.`, and cargo compiles every unit from the workspace's root. A path dependency
/// outside a workspace below the checkout's root (jiff's `bench/` with `jiff = { path = ".." }`)
/// is given to rustc by its absolute path, which the remapping makes `./src/lib.rs`: joined to
/// the compilation directory `./bench`, `./bench/./src/lib.rs`, read as `bench/src/lib.rs`,
/// no file (field trial `jiff-tsdt`). The `.` the remapping wrote starts the checkout's path;
/// cargo writes no `.` inside the relative paths it gives rustc.
fn remapped_part(file: &Path) -> PathBuf {
    let text = file.to_str();
    match text.and_then(|t| t.find("/./").map(|at| &t[at + 3..])) {
        Some(rest) => PathBuf::from(rest),
        None => file.to_path_buf(),
    }
}

/// Whether the file compared as `file` is a dependency's as cargo keeps their sources, outside
/// the checkout (so compared by its whole path): a registry's (`…/registry/src/…`), a git
/// checkout's (`…/git/checkouts/…`), the toolchain's ([`is_toolchain`]). A package there
/// depends on no package of the checkout unless a `[patch]` or `[replace]` makes it
/// ([`ChangedNames::patched`]). A path dependency outside the checkout may depend on it (by
/// a path back, through a dev-dependency), so it is not one.
fn is_dependency(file: &str) -> bool {
    let path = Path::new(file);
    path.is_absolute()
        && (file.contains("/registry/src/")
            || file.contains("/git/checkouts/")
            || is_toolchain(path))
}

/// Whether `file` is the standard library's as the line tables name it
/// (`/rustc/<commit>/library/…`): the same path is the same toolchain's same file. The
/// crates.io dependencies the standard library is built with are named
/// `/rust/deps/<crate>-<version>/…` (hashbrown's, whose generic code `HashMap` brings in):
/// a published version's files never change, so the same path is the same text there too.
fn is_toolchain(file: &Path) -> bool {
    file.starts_with("/rustc/") || file.starts_with("/rust/deps/")
}

/// The two sides' sources compared: the same spans (by file and function) with the same text.
pub fn compare(base: &FunctionSource, head: &FunctionSource) -> SourceComparison {
    for ((file, function), span) in &base.spans {
        match head.spans.get(&(file.clone(), function.clone())) {
            None => {
                return SourceComparison::Differs(format!(
                    "base's code of {function} ({file}) is not in head's"
                ));
            }
            Some(other) => {
                if let Some(offset) = first_difference(&span.text, &other.text) {
                    return SourceComparison::Differs(format!(
                        "{function} differs at {file}:{} (head's line {})",
                        span.first + offset,
                        other.first + offset
                    ));
                }
            }
        }
    }
    if let Some((file, function)) = head.spans.keys().find(|k| !base.spans.contains_key(*k)) {
        return SourceComparison::Differs(format!(
            "head's code of {function} ({file}) is not in base's"
        ));
    }
    SourceComparison::Same
}

/// How many definitions [`ChangedNames::uses_chain`] names before it stops.
const USES_SHOWN: usize = 8;

/// The names a commit changes ([`changed_names`]), each with the file it changes it in and how
/// that was found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChangedNames {
    names: BTreeMap<String, Origin>,
    /// The names only a changed private `use` changes, with the modules whose files they
    /// change in ([`Scope`]).
    imported: BTreeMap<String, Vec<Scope>>,
    /// The changed names that code outside the checkout may name without depending on the
    /// checkout's package: a trait's or a trait impl's item (generic code naming `T::new()`,
    /// `T::SIZE` on the checkout's type), an item exported by its symbol name, an item-level
    /// macro call's names, a changed line of a file that does not parse. The others are
    /// inherent: free functions, inherent methods and constants, types, statics, macros.
    anywhere: BTreeSet<String>,
    /// Those of `anywhere` that a dependency's code names whatever its generic arguments: an
    /// item exported by its symbol name, an item-level macro call's names, a changed line of
    /// a file that does not parse (not only a trait's or a trait impl's items:
    /// [`generics`]).
    unbound: BTreeSet<String>,
    /// The names of the checkout's crates ([`generics::checkout_crates`]); `None` when a
    /// manifest cannot be read.
    crates: Option<BTreeSet<String>>,
    /// Whether a registry's or a git repository's package may depend on a package of the
    /// checkout ([`may_patch`]): then its files may name any item of it.
    patched: bool,
    /// Whether the two checkouts resolve their dependencies alike: the same manifests and lock
    /// files but for their own packages' versions ([`dependency_lines::same_dependencies`]), so
    /// every registry package is built with the same features on both sides.
    same_dependencies: bool,
    /// Per dependency's file read so far, whether it mentions `collapse_debuginfo`: a macro
    /// of it expanded in the checkout may keep its own lines there.
    collapsing: RefCell<BTreeMap<String, bool>>,
    /// Per Rust file of the checkout (as compared) whose text names a file of the checkout that
    /// is not Rust and that the commit changes, that file ([`compiled_in`]): code a macro makes
    /// from it (`include_str!`, a proc macro's `#[grammar = "…"]`) has the macro's lines, which
    /// read the same.
    compiled_in: BTreeMap<String, String>,
    /// The functions whose own definition the commit changes ([`own_source`]).
    own: own_source::ChangedFunctions,
}

/// The files of the module a private `use` is in, where it changes what a name means: its own
/// file and those of the modules inside it. A private import is visible there and nowhere else
/// (`use super::*` in a module inside it reaches it; no path from outside does).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Scope {
    /// The file of the `use`, as compared (its path inside the checkout).
    file: String,
    /// The folder its inner modules' files are in (`src/format/parse/` for
    /// `src/format/parse.rs`; a crate root's or a `mod.rs`'s own folder, `""` at the top).
    under: String,
}

impl Scope {
    /// Whether the file compared as `file` is in this module.
    fn holds(&self, file: &str) -> bool {
        file == self.file || file.starts_with(&self.under)
    }
}

/// Where a changed name comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Origin {
    /// An item of this file whose definition differs or is on one side only.
    Item(String),
    /// A changed line of this file, which does not parse on one side.
    Line(String),
    /// A constant, static or type of this file whose unchanged definition names this changed
    /// name: its value or layout may change with it.
    Uses(String, String),
    /// A procedural macro's name, and why it changes ([`proc_macros`]).
    Macro(String),
}

impl ChangedNames {
    /// Whether `function` (demangled, without hash; a closure's is its function's) is a
    /// function of a changed file whose own definition the commit changes, or whose definition
    /// names a name the commit changes (a constant it reads): it cannot be "compiled
    /// differently from the same source" ([`own_source`]; `false` when it cannot be placed).
    pub fn changes_own_source(&self, function: &str) -> bool {
        self.own
            .of(function)
            .any(|f| f.changed || f.names.iter().any(|name| self.contains_in(name, &f.file)))
    }

    /// Whether the commit changes `name` anywhere (in a file only, by a private `use`, too).
    pub fn contains(&self, name: &str) -> bool {
        self.names.contains_key(name) || self.imported.contains_key(name)
    }

    /// Whether the commit changes what `name` means in the file compared as `file`: an item
    /// of that name changes, or a changed private `use` of its module brings it in. In a file
    /// of a dependency's package ([`is_dependency`]), which cannot depend on the checkout's
    /// unless it is [`ChangedNames::patched`], only a name code there can reach through a
    /// trait counts ([`ChangedNames::anywhere`]).
    pub fn contains_in(&self, name: &str, file: &str) -> bool {
        if !self.patched && is_dependency(file) && !self.mentions_collapse(file) {
            return self.anywhere.contains(name);
        }
        self.named_in(name, file)
    }

    /// Whether the dependency's file `file` mentions `collapse_debuginfo` (read once): a macro
    /// of it marked `#[collapse_debuginfo(no)]` and expanded in the checkout keeps the lines
    /// of its body, whose paths resolve in the checkout. A file that cannot be read does not:
    /// its lines were read to be compared, and the toolchain's have no text.
    fn mentions_collapse(&self, file: &str) -> bool {
        let mut known = self.collapsing.borrow_mut();
        *known.entry(file.to_string()).or_insert_with(|| {
            std::fs::read_to_string(file).is_ok_and(|t| t.contains("collapse_debuginfo"))
        })
    }

    /// Whether `name` is changed as [`ChangedNames::contains_in`] tells for a file of the
    /// checkout: also what a function's name says, its generic arguments naming the
    /// checkout's types whatever file it is defined in.
    pub fn named_in(&self, name: &str, file: &str) -> bool {
        self.names.contains_key(name)
            || self
                .imported
                .get(name)
                .is_some_and(|scopes| scopes.iter().any(|s| s.holds(file)))
    }

    /// Whether no name changes.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty() && self.imported.is_empty()
    }

    /// Records `name` as changed in `origin` (the first origin found is kept).
    fn insert(&mut self, name: String, origin: &Origin) {
        self.names.entry(name).or_insert_with(|| origin.clone());
    }

    /// Why a function whose lines of `file` name `name` differs.
    fn reason(&self, name: &str, file: &str) -> String {
        let scopes = self.imported.get(name).into_iter().flatten();
        if let (false, Some(scope)) = (
            self.names.contains_key(name),
            scopes.clone().find(|s| s.holds(file)),
        ) {
            return format!(
                "its lines name `{name}`, which a changed private `use` of {} brings into \
                 their module",
                scope.file
            );
        }
        let place = match self.names.get(name) {
            Some(Origin::Item(of)) if is_dependency(file) && self.anywhere.contains(name) => {
                format!("an item of {of}, of a trait or a trait impl: generic code names it")
            }
            Some(Origin::Item(file)) => format!("an item of {file}"),
            Some(Origin::Line(file)) => {
                format!("a changed line of {file}, which does not parse: every name on it counts")
            }
            Some(Origin::Uses(file, via)) => {
                format!(
                    "a definition of {file} that names `{via}`, which {}",
                    self.uses_chain(via)
                )
            }
            Some(Origin::Macro(why)) => why.clone(),
            None => "nowhere".to_string(),
        };
        format!("its lines name `{name}`, which the commit changes elsewhere ({place})")
    }

    /// Why the name `via`, which a changed definition names, changes: "the commit changes"
    /// when the commit changes its item, else each definition that names the next changed
    /// name in turn, down to the item the commit changes (at most [`USES_SHOWN`] of them).
    /// Names change with what their definitions name by name only ([`add_dependents`]), so
    /// without the chain a reason called a name changed that no line of the commit holds
    /// (field trial `facet-hash-fnv`: `push` of facet-core through five definitions, from the
    /// `default` of a new `impl Default` in facet-hash).
    fn uses_chain(&self, via: &str) -> String {
        let mut links = Vec::new();
        let (mut name, mut seen) = (via, BTreeSet::new());
        while let Some(Origin::Uses(file, next)) = self.names.get(name) {
            if !seen.insert(name) || links.len() == USES_SHOWN {
                links.push("…".to_string());
                return format!("changes with what it names: {}", links.join(", "));
            }
            links.push(format!("`{name}` ({file}) names `{next}`"));
            name = next;
        }
        if links.is_empty() {
            return "the commit changes".to_string();
        }
        let root = match self.names.get(name) {
            Some(Origin::Item(file)) => format!("an item of {file}"),
            Some(Origin::Line(file)) => format!("a changed line of {file}"),
            Some(Origin::Macro(why)) => why.clone(),
            _ => "changed".to_string(),
        };
        format!(
            "changes with what it names: {}, which the commit changes ({root})",
            links.join(", ")
        )
    }

    /// Why a function named `name` whose whole definition is compared differs by its name
    /// alone: the reason [`ChangedNames::reason`] gives, said of its name.
    fn name_reason(&self, name: &str, file: &str) -> String {
        let reason = self.reason(name, file);
        match reason.strip_prefix(&format!("its lines name `{name}`, which ")) {
            Some(rest) => {
                let rest =
                    rest.replacen("the commit changes elsewhere (", "the commit changes (", 1);
                format!("its name `{name}` is one {rest}")
            }
            None => reason,
        }
    }
}

/// The names of what the commit changes in any Rust file of the two checkouts, per file whose
/// text differs (or that one side lacks): both sides parsed ([`changed_items`]), the names of
/// the items whose definition differs or is on one side only. What a function's lines do not
/// show but use (a `const` folded into an immediate, a type, a macro) is named where it is
/// used, so a function whose lines name one of these may compute otherwise from lines that
/// read the same. A file that does not parse on a side gives every name on its changed lines
/// instead ([`changed_line_names`]). Every file is read with its test-only items: this is
/// for a caller that cannot tell which crates are compiled with `cfg(test)`.
pub fn changed_names(base: &Path, head: &Path) -> Result<ChangedNames, String> {
    changed_names_compiled(base, head, &TestUnits::Anywhere)
}

/// [`changed_names`], each file read as its crates compile it: without its test-only items
/// where no crate of `tests` holds it ([`test_only`]).
pub fn changed_names_compiled(
    base: &Path,
    head: &Path,
    tests: &TestUnits,
) -> Result<ChangedNames, String> {
    // One walk of each checkout: the Rust files compared here, the others for `compiled_in`.
    let mut all = BTreeSet::new();
    for checkout in [base, head] {
        files_where(checkout, Path::new(""), &|_| true, &mut all)?;
    }
    let (files, others): (BTreeSet<PathBuf>, BTreeSet<PathBuf>) =
        all.into_iter().partition(|file| is_rust_file(file));
    let filter = TestFilter::new(tests, [base, head], &files);
    let (mut names, mut seeds) = (ChangedNames::default(), BTreeSet::new());
    let mut imported: Vec<(PathBuf, BTreeSet<String>)> = Vec::new();
    let mut elsewhere = Elsewhere::default();
    let others = compiled_in::changed_other_files(base, head, others);
    let mut changed_rust = Vec::new();
    for file in &files {
        let read =
            |checkout: &Path| std::fs::read_to_string(checkout.join(file)).unwrap_or_default();
        let (a, b) = (read(base), read(head));
        elsewhere.note(file, [&a, &b]);
        if let Some(other) = compiled_in::named_by([&a, &b], &others) {
            names.compiled_in.insert(file.display().to_string(), other);
        }
        if a == b || filter.test_only_file(file) {
            continue;
        }
        changed_rust.push(file.clone());
        let shown = file.display().to_string();
        match changed_items(&a, &b, |parsed| filter.read(file, parsed)) {
            Some(changes) => {
                if let (Ok(x), Ok(y)) = (item_lines(&a), item_lines(&b)) {
                    names.own.add_file(file, &x, &y);
                }
                let origin = Origin::Item(shown);
                names.anywhere.extend(changes.anywhere);
                names.unbound.extend(changes.unbound);
                changes
                    .names
                    .into_iter()
                    .for_each(|n| names.insert(n, &origin));
                seeds.extend(changes.primaries);
                imported.push((file.clone(), changes.imported));
            }
            None => {
                let origin = Origin::Line(shown);
                for name in changed_line_names(&a, &b) {
                    names.anywhere.insert(name.clone());
                    names.unbound.insert(name.clone());
                    names.insert(name, &origin);
                }
            }
        }
    }
    for (file, imports) in imported {
        let scope = module_scope(&file, [base, head]);
        if elsewhere.reaches(&file, &scope) {
            let origin = Origin::Item(file.display().to_string());
            imports.into_iter().for_each(|n| names.insert(n, &origin));
            continue;
        }
        for name in imports {
            names.imported.entry(name).or_default().push(scope.clone());
        }
    }
    if !seeds.is_empty() {
        add_dependents(head, &files, seeds, &mut names, &filter);
    }
    for (name, why) in proc_macros::changed_macros([base, head], &changed_rust) {
        names.insert(name, &Origin::Macro(why));
    }
    names.patched = [base, head].into_iter().any(may_patch);
    names.crates = generics::checkout_crates([base, head]);
    names.same_dependencies = dependency_lines::same_dependencies([base, head]);
    Ok(names)
}

/// Whether a package of a registry or a git repository may depend on a package of `checkout`
/// ([`ChangedNames::patched`]): decided by words, conservatively, from the checkout's
/// manifests and cargo's configuration files as seen from it
/// ([`crate::steps::build::cargo_env::config_files`]). Any `patch` or `replace` (a `[patch]`
/// or `[replace]` table, a dotted `patch.crates-io` key, or a mere mention) counts; so does
/// `collapse-macro-debuginfo` (or the `collapse_debuginfo` attribute), which may put the
/// lines of a dependency's macro, expanded in the checkout, in the dependency's file. A file
/// that cannot be read counts too.
fn may_patch(checkout: &Path) -> bool {
    let mut manifests = Vec::new();
    if manifest_files(checkout, Path::new(""), &mut manifests).is_err() {
        return true;
    }
    let home = crate::steps::build::cargo_env::cargo_home();
    let configs = crate::steps::build::cargo_env::config_files(checkout, home.as_deref());
    let flags = [
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "CARGO_BUILD_RUSTFLAGS",
    ];
    let mut flags = flags.iter().filter_map(|v| std::env::var(v).ok());
    let texts = manifests
        .iter()
        .chain(&configs)
        .map(std::fs::read_to_string);
    let mut texts = texts.map(|t| t.unwrap_or_else(|_| "patch".to_string()));
    texts.any(|t| mentions_patch(&t)) || flags.any(|f| mentions_patch(&f))
}

/// Whether `text` (a manifest, a configuration file, flags) mentions what may let a dependency
/// name the checkout's items ([`may_patch`]).
fn mentions_patch(text: &str) -> bool {
    ["patch", "replace", "collapse"]
        .iter()
        .any(|word| text.contains(word))
}

/// The `Cargo.toml` files under `dir` of `checkout` (paths as read), version control and
/// build directories left out.
fn manifest_files(checkout: &Path, dir: &Path, files: &mut Vec<PathBuf>) -> Result<(), String> {
    files_named(checkout, dir, &["Cargo.toml"], files)
}

/// The files named one of `file_names` under `dir` of `checkout` (paths as read), version
/// control and build directories left out.
fn files_named(
    checkout: &Path,
    dir: &Path,
    file_names: &[&str],
    files: &mut Vec<PathBuf>,
) -> Result<(), String> {
    let path = checkout.join(dir);
    let entries = std::fs::read_dir(&path).map_err(|e| e.to_string())?;
    for entry in entries {
        let entry = entry.map_err(|e| e.to_string())?;
        let name = entry.file_name();
        let kind = entry.file_type().map_err(|e| e.to_string())?;
        if kind.is_dir() && name != ".git" && name != "target" {
            files_named(checkout, &dir.join(&name), file_names, files)?;
        } else if kind.is_file() && file_names.iter().any(|f| name == *f) {
            files.push(path.join(&name));
        }
    }
    Ok(())
}

/// What can put a module's code in a file outside its [`Scope`]: the files with a `#[path]`
/// attribute (a module inside them may be anywhere), and the lines with an `include!` (the file
/// included is code of the module that includes it).
#[derive(Debug, Default)]
struct Elsewhere {
    path_attributes: Vec<String>,
    includes: Vec<String>,
}

impl Elsewhere {
    /// Notes what the texts of `file` (on each side) hold.
    fn note(&mut self, file: &Path, texts: [&String; 2]) {
        if texts.iter().any(|t| t.contains("#[path")) {
            self.path_attributes
                .push(file.to_string_lossy().into_owned());
        }
        let lines = texts.into_iter().flat_map(|t| t.lines());
        let includes = lines.filter(|l| l.contains("include!"));
        self.includes.extend(includes.map(str::to_string));
    }

    /// Whether a private `use` of `file`, whose module's files are `scope`, may change names
    /// outside it: a file of the module has a `#[path]` attribute, or a line includes a file of
    /// `file`'s name.
    fn reaches(&self, file: &Path, scope: &Scope) -> bool {
        let name = file.file_name().map(|n| n.to_string_lossy().into_owned());
        let included = |line: &String| name.as_ref().is_none_or(|n| line.contains(n.as_str()));
        self.path_attributes.iter().any(|f| scope.holds(f)) || self.includes.iter().any(included)
    }
}

/// The files of the module whose file is `file` (inside both `checkouts`): `file` and its inner
/// modules' folder. A `mod.rs` or crate root's (`lib.rs`, `main.rs`) inner modules are in its
/// own folder; any other file's in the folder of its name (`a/b.rs`: `a/b/`) when the file of
/// the module around it declares it on every side that has the file (`mod b` in `a.rs`,
/// `a/mod.rs`, `a/lib.rs` or `a/main.rs`), else it may be a crate root itself (a bench target,
/// a `[lib] path`), and its own folder is taken. A side without the file has none of its
/// `use`s, so only the sides with it decide: a module a commit adds (num-bigint's
/// `src/biguint/roots.rs`, declared by head's `src/biguint.rs` alone) is scoped to its own
/// folder, not to its siblings'.
fn module_scope(file: &Path, checkouts: [&Path; 2]) -> Scope {
    let shown = file.to_string_lossy().into_owned();
    let folder = |dir: &Path| {
        let dir = dir.to_string_lossy();
        if dir.is_empty() {
            String::new()
        } else {
            format!("{dir}/")
        }
    };
    let parent = file.parent().unwrap_or(Path::new(""));
    let own_folder = Scope {
        file: shown.clone(),
        under: folder(parent),
    };
    let Some(stem) = file.file_stem().and_then(|s| s.to_str()) else {
        return own_folder;
    };
    if ["mod", "lib", "main"].contains(&stem) {
        return own_folder;
    }
    let outer = module_parents(parent);
    let declared_in = |checkout: &Path| {
        let declares = |text: String| declares_module(&text, stem);
        let texts = outer
            .iter()
            .filter_map(|f| std::fs::read_to_string(checkout.join(f)).ok());
        texts.into_iter().any(declares)
    };
    let mut with_file = checkouts
        .into_iter()
        .filter(|checkout| checkout.join(file).is_file())
        .peekable();
    if with_file.peek().is_some() && with_file.all(declared_in) {
        Scope {
            file: shown,
            under: folder(&parent.join(stem)),
        }
    } else {
        own_folder
    }
}

/// The files that may declare the modules whose files are in `folder` (a module's file
/// `folder.rs` or `folder/mod.rs`, or a crate root in it).
fn module_parents(folder: &Path) -> [PathBuf; 4] {
    [
        folder.with_extension("rs"),
        folder.join("mod.rs"),
        folder.join("lib.rs"),
        folder.join("main.rs"),
    ]
}

/// Whether the file `text` declares, at its top level, the module `name` in a file of its own
/// (`mod name;`).
fn declares_module(text: &str, name: &str) -> bool {
    let Ok(file) = syn::parse_file(text) else {
        return false;
    };
    proc_macro2::extra::invalidate_current_thread_spans();
    file.items
        .iter()
        .any(|item| matches!(item, syn::Item::Mod(m) if m.ident == name && m.content.is_none()))
}

/// Adds to `names` the names of the constants, statics and types of `checkout`'s `files` whose
/// definitions (the same text, else they changed themselves) name a changed item (`seeds`: the
/// items' own names, not their fields' nor a `use`'s, which do not change what the name means
/// elsewhere), each a changed item in its turn: `const B: u32 = A * 2` changes with `A`, a
/// struct with a field of a changed type with it. A file that does not parse adds none.
fn add_dependents(
    checkout: &Path,
    files: &BTreeSet<PathBuf>,
    mut seeds: BTreeSet<String>,
    names: &mut ChangedNames,
    filter: &TestFilter,
) {
    let mut dependents = Vec::new();
    for file in files {
        let Ok(text) = std::fs::read_to_string(checkout.join(file)) else {
            continue;
        };
        let Ok(parsed) = syn::parse_file(&text) else {
            continue;
        };
        let parsed = filter.read(file, parsed);
        let mut definitions = Definitions::default();
        definitions.items(&parsed.items, "");
        for (key, definition) in definitions.0 {
            if let (Some(primary), true) = (primary(&key), is_compile_time(&key)) {
                let uses: BTreeSet<String> = definition
                    .texts
                    .iter()
                    .flat_map(|t| identifiers(t))
                    .collect();
                let file = file.display().to_string();
                let gives = (definition.names, [definition.anywhere, definition.unbound]);
                dependents.push((file, primary.to_string(), gives, uses));
            }
        }
    }
    let mut grew = true;
    while grew {
        grew = false;
        for (file, primary, (gives, [anywhere, unbound]), uses) in &dependents {
            if seeds.contains(primary) {
                continue;
            }
            if let Some(via) = uses.iter().find(|u| seeds.contains(*u)) {
                let origin = Origin::Uses(file.clone(), via.clone());
                gives.iter().for_each(|g| names.insert(g.clone(), &origin));
                if *anywhere {
                    names.anywhere.extend(gives.iter().cloned());
                }
                if *unbound {
                    names.unbound.extend(gives.iter().cloned());
                }
                seeds.insert(primary.clone());
                grew = true;
            }
        }
    }
}

/// The name of the item the [`Definitions`] key `key` is of, when it is a fn, a constant, a
/// static or a type: what another definition may name.
fn primary(key: &str) -> Option<&str> {
    let mut words = key.rsplit(' ');
    let (name, kind) = (words.next()?, words.next()?);
    let item = ["fn", "const", "static", "type"];
    item.iter().any(|k| kind.ends_with(k)).then_some(name)
}

/// Whether the [`Definitions`] key `key` is a constant's, a static's or a type's: what is
/// computed or laid out when compiling.
fn is_compile_time(key: &str) -> bool {
    let kind = key.rsplit(' ').nth(1).unwrap_or_default();
    ["const", "static", "type"]
        .iter()
        .any(|k| kind.ends_with(k))
}

/// The names (identifiers, keywords left out) on the lines of `a` and `b` that one has more
/// often than the other.
fn changed_line_names<'t>(a: &'t str, b: &'t str) -> impl Iterator<Item = String> + 't {
    let mut counts: BTreeMap<&str, i64> = BTreeMap::new();
    for line in a.lines() {
        *counts.entry(line.trim()).or_default() += 1;
    }
    for line in b.lines() {
        *counts.entry(line.trim()).or_default() -= 1;
    }
    let lines: Vec<&str> = counts
        .into_iter()
        .filter(|(_, n)| *n != 0)
        .map(|(line, _)| line)
        .collect();
    lines.into_iter().flat_map(identifiers)
}

/// What changes in one file ([`changed_items`]).
#[derive(Debug, Default)]
struct FileChanges {
    /// The names of its items whose definition differs or is on one side only.
    names: BTreeSet<String>,
    /// The names its changed private `use`s bring in: they change what those names mean in
    /// its module only.
    imported: BTreeSet<String>,
    /// The changed items' own names ([`primary`]).
    primaries: BTreeSet<String>,
    /// Those of `names` that code outside the checkout may name ([`Definition::anywhere`]).
    anywhere: BTreeSet<String>,
    /// Those of `anywhere` not through a trait only ([`Definition::unbound`]).
    unbound: BTreeSet<String>,
}

/// The names of the items of the file texts `a` and `b` whose definitions differ (their
/// tokens, doc comments and codegen hints left out) or that one side only has, and those
/// items' own names ([`primary`]); `None` when one does not parse. Each side is read as
/// `compiled` gives it (its test-only items left out where they are not compiled:
/// [`TestFilter::read`]). See [`Definitions`] for which names an item gives.
fn changed_items(
    a: &str,
    b: &str,
    compiled: impl Fn(syn::File) -> syn::File,
) -> Option<FileChanges> {
    let definitions = |text: &str| -> Option<Definitions> {
        let file = compiled(syn::parse_file(text).ok()?);
        let macros = harness_macros::CriterionMacros::of(&file);
        let mut definitions = Definitions(BTreeMap::new(), macros);
        definitions.items(&file.items, "");
        Some(definitions)
    };
    let (a, b) = (definitions(a)?, definitions(b)?);
    let mut changes = FileChanges::default();
    for key in a.0.keys().chain(b.0.keys()) {
        let (x, y) = (a.0.get(key), b.0.get(key));
        if let (Some(x), Some(y)) = (x, y)
            && x.texts == y.texts
        {
            continue;
        }
        let definitions = [x, y].into_iter().flatten();
        let private = definitions.clone().all(|d| d.private_import);
        let anywhere = !private && definitions.clone().any(|d| d.anywhere);
        let unbound = !private && definitions.clone().any(|d| d.unbound);
        let names = match private {
            true => &mut changes.imported,
            false => &mut changes.names,
        };
        for definition in definitions {
            names.extend(definition.names.iter().cloned());
            if anywhere {
                changes.anywhere.extend(definition.names.iter().cloned());
            }
            if unbound {
                changes.unbound.extend(definition.names.iter().cloned());
            }
        }
        changes.primaries.extend(primary(key).map(str::to_string));
    }
    Some(changes)
}

/// One definition (or all of the same key, under different `cfg`s): its texts and the names a
/// change of it changes.
#[derive(Debug, Default)]
struct Definition {
    texts: Vec<String>,
    names: BTreeSet<String>,
    /// Whether it is a `use` without visibility: a change of it changes what its names mean in
    /// its own module (and those inside it) only.
    private_import: bool,
    /// Whether code outside the checkout may name it without depending on the checkout's
    /// package ([`ChangedNames::anywhere`]): an item of a trait or of a trait impl, an item
    /// exported by its symbol name (`no_mangle`, `export_name`), an item-level macro call.
    anywhere: bool,
    /// Whether code outside the checkout may name it other than through a trait: an item
    /// exported by its symbol name, an item-level macro call (`anywhere` too).
    unbound: bool,
}

/// A file's definitions by key (the module path, the kind and the name: `a::b::fn f`,
/// `impl Default for Cache::fn default`). What a changed definition changes:
/// - a fn, method or trait item, a `const`, a `static`, a type alias, a `macro_rules!`, a
///   module declaration, an `extern crate`, a foreign item: its name;
/// - a struct, enum or union: its name and the names of all its fields and variants (a layout
///   or the discriminants may move with any of them);
/// - a trait's or an impl's header (generics, bounds, the trait): the names of all its items,
///   the trait's and the trait implemented; an inline module's attributes: all names inside;
/// - a `use`: each imported name (a glob: the module's);
/// - a macro invocation at item level or anything else: every name in its tokens, but a call
///   of criterion's `criterion_group!` or `criterion_main!` as the file brings them: the name
///   of the function it defines ([`harness_macros`]).
#[derive(Debug, Default)]
struct Definitions(
    BTreeMap<String, Definition>,
    harness_macros::CriterionMacros,
);

impl Definitions {
    /// Records `text` under `key`, a change of it changing `names`.
    fn add(&mut self, key: String, text: String, names: impl IntoIterator<Item = String>) {
        let definition = self.0.entry(key).or_default();
        let exported = text.contains("no_mangle") || text.contains("export_name");
        definition.anywhere |= exported;
        definition.unbound |= exported;
        definition.texts.push(text);
        definition.names.extend(names);
    }

    /// Records `items` of the module `scope` (`a::b::`).
    fn items(&mut self, items: &[syn::Item], scope: &str) {
        for item in items {
            self.item(item, scope);
        }
    }

    /// Records one item of the module `scope`.
    fn item(&mut self, item: &syn::Item, scope: &str) {
        use syn::Item;
        let named = |kind: &str, ident: &syn::Ident| {
            (format!("{scope}{kind} {ident}"), [ident.to_string()])
        };
        let (key, names) = match item {
            Item::Const(c) => named("const", &c.ident),
            Item::Static(s) => named("static", &s.ident),
            Item::Fn(f) => named("fn", &f.sig.ident),
            Item::Type(t) => named("type", &t.ident),
            Item::TraitAlias(t) => named("trait", &t.ident),
            Item::ExternCrate(c) => named("crate", c.rename.as_ref().map_or(&c.ident, |r| &r.1)),
            Item::Macro(syn::ItemMacro {
                ident: Some(ident), ..
            }) => named("macro", ident),
            Item::Mod(m) if m.content.is_none() => named("mod", &m.ident),
            Item::Struct(s) => {
                let names = strings(once(&s.ident).chain(field_names(&s.fields)));
                return self.add(format!("{scope}type {}", s.ident), text(s), names);
            }
            Item::Union(u) => {
                let fields = u.fields.named.iter().filter_map(|f| f.ident.as_ref());
                let names = once(&u.ident).chain(fields);
                return self.add(format!("{scope}type {}", u.ident), text(u), strings(names));
            }
            Item::Enum(e) => return self.enumeration(e, scope),
            Item::Trait(t) => return self.trait_(t, scope),
            Item::Impl(i) => return self.implementation(i, scope),
            Item::Mod(m) => return self.module(m, scope),
            Item::Use(u) => {
                let attributes: String = u.attrs.iter().map(text).collect();
                let prefix = format!("{attributes}{}use ", text(&u.vis));
                let private = matches!(u.vis, syn::Visibility::Inherited);
                return self.uses(&u.tree, &prefix, scope, private);
            }
            Item::ForeignMod(f) => return self.foreign(f, scope),
            // criterion's harness macros: a change of the call changes what it defines only.
            Item::Macro(m) if self.1.defines(m).is_some() => {
                let defined = self.1.defines(m).unwrap_or_default();
                (format!("{scope}fn {defined}"), [defined])
            }
            other => {
                let text = text(other);
                // An unnamed macro call's attributes name no item: `not` of its `#[cfg(not(…))]`
                // is no function (tinyvec 1.10, field trial `tv-release`: criterion's analysis
                // code, which calls `not`, was taken for changed in 88 benchmarks' forks).
                let named = match other {
                    Item::Macro(m) => self::text(&m.mac),
                    _ => text.clone(),
                };
                let names: Vec<String> = identifiers(&named).collect();
                let key = format!("{scope}tokens {text}");
                self.add(key.clone(), text, names);
                self.reachable_anywhere(&key);
                self.0.entry(key).or_default().unbound = true;
                return;
            }
        };
        self.add(key, text(item), names);
    }

    /// Records an enum: a change of it changes its name, its variants' and their fields'.
    fn enumeration(&mut self, e: &syn::ItemEnum, scope: &str) {
        let variants = e.variants.iter();
        let names = once(&e.ident)
            .chain(variants.clone().map(|v| &v.ident))
            .chain(variants.flat_map(|v| field_names(&v.fields)));
        self.add(format!("{scope}type {}", e.ident), text(e), strings(names));
    }

    /// Records a trait: its header (a change of it changes all) and each of its items.
    fn trait_(&mut self, t: &syn::ItemTrait, scope: &str) {
        let key = format!("{scope}trait {}", t.ident);
        let mut names = vec![t.ident.to_string()];
        for item in &t.items {
            let (kind, name) = match item {
                syn::TraitItem::Const(c) => ("const", Some(&c.ident)),
                syn::TraitItem::Fn(f) => ("fn", Some(&f.sig.ident)),
                syn::TraitItem::Type(t) => ("type", Some(&t.ident)),
                _ => ("tokens", None),
            };
            names.extend(self.member(&key, kind, name, text(item), true));
        }
        let mut header = t.clone();
        header.items.clear();
        self.add(key.clone(), text(&header), names);
        self.reachable_anywhere(&key);
    }

    /// Records an impl: its header (a change of it changes all, the trait's name too) and
    /// each of its items, keyed by the trait and the type.
    fn implementation(&mut self, i: &syn::ItemImpl, scope: &str) {
        let implemented = i.trait_.as_ref().map(|(path, _)| path);
        let key = match implemented {
            Some(path) => format!("{scope}impl {} for {}", text(path), text(&i.self_ty)),
            None => format!("{scope}impl {}", text(&i.self_ty)),
        };
        let last = implemented
            .and_then(|p| p.segments.last())
            .map(|s| &s.ident);
        let mut names = strings(last);
        for item in &i.items {
            let (kind, name) = match item {
                syn::ImplItem::Const(c) => ("const", Some(&c.ident)),
                syn::ImplItem::Fn(f) => ("fn", Some(&f.sig.ident)),
                syn::ImplItem::Type(t) => ("type", Some(&t.ident)),
                _ => ("tokens", None),
            };
            let of_trait = implemented.is_some();
            names.extend(self.member(&key, kind, name, text(item), of_trait));
        }
        let mut header = i.clone();
        header.items.clear();
        self.add(key.clone(), text(&header), names);
        if implemented.is_some() {
            self.reachable_anywhere(&key);
        }
    }

    /// Marks the definition of `key` as one code outside the checkout may name
    /// ([`Definition::anywhere`]).
    fn reachable_anywhere(&mut self, key: &str) {
        if let Some(definition) = self.0.get_mut(key) {
            definition.anywhere = true;
        }
    }

    /// Records an item of a trait, an impl or a foreign block (`owner`) named `name` (`None`:
    /// known by its tokens, naming all of theirs); gives the names a change of it changes.
    /// `of_trait`: the owner is a trait or a trait impl, whose items generic code anywhere may
    /// name through the trait ([`Definition::anywhere`]).
    fn member(
        &mut self,
        owner: &str,
        kind: &str,
        name: Option<&syn::Ident>,
        text: String,
        of_trait: bool,
    ) -> Vec<String> {
        let (key, names) = match name {
            Some(name) => (format!("{owner}::{kind} {name}"), vec![name.to_string()]),
            None => (
                format!("{owner}::{kind} {text}"),
                identifiers(&text).collect(),
            ),
        };
        self.add(key.clone(), text, names.clone());
        if of_trait {
            self.reachable_anywhere(&key);
        }
        names
    }

    /// Records an inline module: its items, and its header (attributes: a change of it
    /// changes every name inside).
    fn module(&mut self, m: &syn::ItemMod, scope: &str) {
        let mut inner = Definitions::default();
        if let Some((_, items)) = &m.content {
            inner.items(items, &format!("{scope}{}::", m.ident));
        }
        let inside = inner.0.values().flat_map(|d| d.names.iter().cloned());
        let names: BTreeSet<String> = inside.chain([m.ident.to_string()]).collect();
        let mut header = m.clone();
        header.content = None;
        let key = format!("{scope}mod {} {{}}", m.ident);
        self.add(key.clone(), text(&header), names);
        if inner.0.values().any(|d| d.anywhere) {
            self.reachable_anywhere(&key);
        }
        if inner.0.values().any(|d| d.unbound) {
            self.0.entry(key.clone()).or_default().unbound = true;
        }
        for (key, definition) in inner.0 {
            let merged = self.0.entry(key).or_default();
            merged.texts.extend(definition.texts);
            merged.names.extend(definition.names);
            merged.anywhere |= definition.anywhere;
            merged.unbound |= definition.unbound;
        }
    }

    /// Records each name a `use` imports (`prefix`: its attributes, visibility and path so
    /// far), keyed by its whole path: a changed import is one side's only. `private`: the
    /// `use` has no visibility, so it changes what the name means in its own module only.
    fn uses(&mut self, tree: &syn::UseTree, prefix: &str, scope: &str, private: bool) {
        use syn::UseTree;
        let (leaf, name) = match tree {
            UseTree::Path(p) => {
                let prefix = format!("{prefix}{}::", p.ident);
                return self.uses(&p.tree, &prefix, scope, private);
            }
            UseTree::Group(g) => {
                let mut each = |t| self.uses(t, prefix, scope, private);
                return g.items.iter().for_each(&mut each);
            }
            UseTree::Name(n) => (n.ident.to_string(), Some(n.ident.to_string())),
            UseTree::Rename(r) => (
                format!("{} as {}", r.ident, r.rename),
                Some(r.rename.to_string()),
            ),
            UseTree::Glob(_) => {
                let path = prefix.rsplit("use ").next().unwrap_or_default();
                ("*".to_string(), identifiers(path).last())
            }
        };
        let key = format!("{scope}use {prefix}{leaf}");
        self.add(key.clone(), key.clone(), name);
        self.0.entry(key).or_default().private_import = private;
    }

    /// Records the items of an `extern` block by their names.
    fn foreign(&mut self, f: &syn::ItemForeignMod, scope: &str) {
        let attributes: String = f.attrs.iter().map(text).collect();
        let owner = format!("{scope}{attributes}{}", text(&f.abi));
        for item in &f.items {
            let (kind, name) = match item {
                syn::ForeignItem::Fn(f) => ("fn", Some(&f.sig.ident)),
                syn::ForeignItem::Static(s) => ("static", Some(&s.ident)),
                syn::ForeignItem::Type(t) => ("type", Some(&t.ident)),
                _ => ("tokens", None),
            };
            self.member(&owner, kind, name, text(item), false);
        }
    }
}

/// The names of `idents`.
fn strings<'a>(idents: impl IntoIterator<Item = &'a syn::Ident>) -> Vec<String> {
    idents.into_iter().map(syn::Ident::to_string).collect()
}

/// The names of the named ones of `fields`.
fn field_names(fields: &syn::Fields) -> impl Iterator<Item = &syn::Ident> + Clone {
    fields.iter().filter_map(|f| f.ident.as_ref())
}

/// The tokens of `tokens` as text, the attributes that change nothing it computes (doc
/// comments, codegen hints, lints: [`ignored_attribute`]) left out.
fn text(tokens: &impl quote::ToTokens) -> String {
    let mut out = String::new();
    write_tokens(tokens.to_token_stream(), &mut out);
    out
}

/// Appends the text of `stream` to `out`, [`ignored_attribute`]s left out.
fn write_tokens(stream: proc_macro2::TokenStream, out: &mut String) {
    use proc_macro2::{Delimiter, TokenTree};
    let trees: Vec<TokenTree> = stream.into_iter().collect();
    let mut i = 0;
    while i < trees.len() {
        if let Some(length) = ignored_attribute(&trees[i..]) {
            i += length;
            continue;
        }
        match &trees[i] {
            TokenTree::Group(group) => {
                let (open, close) = match group.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Brace => ("{", "}"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::None => ("", ""),
                };
                out.push_str(open);
                write_tokens(group.stream(), out);
                out.push_str(close);
            }
            tree => out.push_str(&tree.to_string()),
        }
        out.push(' ');
        i += 1;
    }
}

/// How many of `trees` (2 or 3) an attribute at their start takes when it changes nothing an
/// item computes: a doc comment (`#[doc …]`, `#![doc …]`), a codegen hint (`inline`, `cold`,
/// `track_caller`, `optimize`), a lint's level or a tool's (`allow`, `must_use`, `rustfmt::…`).
/// A hint changes the code of the item's callers, not what they compute, which is what this
/// comparison is for; `cfg`, `repr`, `target_feature` and the others are kept.
fn ignored_attribute(trees: &[proc_macro2::TokenTree]) -> Option<usize> {
    use proc_macro2::{Delimiter, TokenTree};
    const IGNORED: &[&str] = &[
        "doc",
        "inline",
        "cold",
        "track_caller",
        "optimize",
        "must_use",
        "allow",
        "warn",
        "deny",
        "forbid",
        "expect",
        "rustfmt",
        "clippy",
    ];
    let punct = |tree: Option<&TokenTree>, c: char| {
        let is = |p: &proc_macro2::Punct| p.as_char() == c;
        matches!(tree, Some(TokenTree::Punct(p)) if is(p))
    };
    if !punct(trees.first(), '#') {
        return None;
    }
    let bang = usize::from(punct(trees.get(1), '!'));
    let Some(TokenTree::Group(group)) = trees.get(1 + bang) else {
        return None;
    };
    let first = group.stream().into_iter().next();
    let ignored =
        matches!(first, Some(TokenTree::Ident(ident)) if IGNORED.iter().any(|i| ident == i));
    (group.delimiter() == Delimiter::Bracket && ignored).then_some(2 + bang)
}

/// The `.rs` files under `dir` (of `checkout`, relative to it), version control and build
/// directories left out.
fn rust_files(checkout: &Path, dir: &Path, files: &mut BTreeSet<PathBuf>) -> Result<(), String> {
    files_where(checkout, dir, &is_rust_file, files)
}

/// Whether `file` is a Rust source file (`.rs`).
fn is_rust_file(file: &Path) -> bool {
    file.extension().is_some_and(|e| e == "rs")
}

/// The files under `dir` (of `checkout`, relative to it) that `keep` takes, version control
/// and build directories left out.
fn files_where(
    checkout: &Path,
    dir: &Path,
    keep: &dyn Fn(&Path) -> bool,
    files: &mut BTreeSet<PathBuf>,
) -> Result<(), String> {
    let path = checkout.join(dir);
    let entries =
        std::fs::read_dir(&path).map_err(|e| format!("cannot list {}: {e}", path.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("cannot list {}: {e}", path.display()))?;
        let name = entry.file_name();
        let relative = dir.join(&name);
        let kind = entry
            .file_type()
            .map_err(|e| format!("cannot read {}: {e}", relative.display()))?;
        if kind.is_dir() && name != ".git" && name != "target" {
            files_where(checkout, &relative, keep, files)?;
        } else if kind.is_file() && keep(&relative) {
            files.insert(relative);
        }
    }
    Ok(())
}

/// The identifiers of `text`, Rust's keywords left out.
fn identifiers(text: &str) -> impl Iterator<Item = String> + '_ {
    identifier_columns(text).map(|(_, word)| word)
}

/// [`identifiers`] with the column (in characters, from 0) each starts at.
fn identifier_columns(text: &str) -> impl Iterator<Item = (u32, String)> + '_ {
    const KEYWORDS: &[&str] = &[
        "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum",
        "extern", "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move",
        "mut", "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait",
        "true", "type", "unsafe", "use", "where", "while",
    ];
    let word_char = |c: char| c.is_alphanumeric() || c == '_';
    let mut chars = text.chars().zip(0u32..).peekable();
    std::iter::from_fn(move || {
        loop {
            let (c, column) = chars.next()?;
            if !word_char(c) {
                continue;
            }
            let mut word = String::from(c);
            while let Some((c, _)) = chars.next_if(|&(c, _)| word_char(c)) {
                word.push(c);
            }
            let starts = c.is_alphabetic() || c == '_';
            if starts && !KEYWORDS.contains(&word.as_str()) {
                return Some((column, word));
            }
        }
    })
}

/// The first name of `changed` that the lines of `source` hold.
#[cfg(test)]
fn uses_changed(source: &FunctionSource, changed: &ChangedNames) -> Option<String> {
    let spans = source.spans.iter().map(|((file, _), span)| (file, span));
    names_changed(spans, changed, &|_, _| Rc::default()).map(|(name, _)| name)
}

/// The index of the first line where `a` and `b` differ, `None` when they are the same.
fn first_difference(a: &[String], b: &[String]) -> Option<u32> {
    let index = a
        .iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .or((a.len() != b.len()).then_some(a.len().min(b.len())))?;
    Some(index as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(function: &str, file: &str, line: u32) -> Place {
        Place {
            function: function.to_string(),
            file: PathBuf::from(file),
            line,
        }
    }

    #[test]
    fn a_c_file_the_line_tables_name_is_said_not_to_be_rust() {
        // croaring-rs "update croaring to 4.4.1": C functions run outside the timed loop were
        // "cannot be compared (cannot parse …/base/croaring-sys/CRoaring/roaring.c: cannot parse
        // string into token stream)", the Rust parser's failure on C, named by the slot's path.
        let dir = tempfile::tempdir().unwrap();
        let c = "croaring-sys/CRoaring/roaring.c";
        std::fs::create_dir_all(dir.path().join("croaring-sys/CRoaring")).unwrap();
        std::fs::write(dir.path().join(c), "int f(void) { return 1; }\n").unwrap();
        let why = items_of(dir.path(), c).unwrap_err();
        assert_eq!(
            why,
            "`croaring-sys/CRoaring/roaring.c` is not Rust: only Rust items are compared by source"
        );
        std::fs::write(dir.path().join("lib.rs"), "fn f() -> u32 { 1 }\n").unwrap();
        assert_eq!(items_of(dir.path(), "lib.rs").unwrap().len(), 1);
    }

    const BASE: &str = "fn setup() -> u64 {\n    let x = 3;\n    x * 2\n}\n";
    /// BASE with an unrelated function added above: every line two further down.
    const SHIFTED: &str = "fn other() {}\n\nfn setup() -> u64 {\n    let x = 3;\n    x * 2\n}\n";

    fn source(checkout: &str, text: &'static str, lines: &[u32]) -> FunctionSource {
        let places = lines
            .iter()
            .map(|&l| place("demo::setup", &format!("{checkout}/src/lib.rs"), l))
            .collect();
        source_of(&places, Path::new(checkout), |_| Some(text.to_string())).unwrap()
    }

    #[test]
    fn the_same_lines_moved_down_are_the_same_source() {
        let base = source("/b", BASE, &[1, 3]);
        let head = source("/h", SHIFTED, &[3, 5]);
        assert_eq!(compare(&base, &head), SourceComparison::Same);
    }

    #[test]
    fn a_changed_line_of_the_span_differs_and_is_named() {
        let base = source("/b", BASE, &[1, 3]);
        let head = source(
            "/h",
            "fn setup() -> u64 {\n    let x = 3;\n    x * 5\n}\n",
            &[1, 3],
        );
        let SourceComparison::Differs(reason) = compare(&base, &head) else {
            panic!("a changed line must differ");
        };
        assert_eq!(
            reason,
            "demo::setup differs at src/lib.rs:3 (head's line 3)"
        );
    }

    #[test]
    fn a_line_without_code_inside_the_span_still_counts() {
        // Line 2 has no instruction of its own (folded into line 3), but it is in the span.
        let base = source("/b", BASE, &[1, 3]);
        let head = source(
            "/h",
            "fn setup() -> u64 {\n    let x = 4;\n    x * 2\n}\n",
            &[1, 3],
        );
        assert!(matches!(
            compare(&base, &head),
            SourceComparison::Differs(_)
        ));
    }

    #[test]
    fn an_inlined_function_on_one_side_only_differs() {
        let base = source("/b", BASE, &[1, 3]);
        let mut places: BTreeSet<Place> = [1, 3]
            .iter()
            .map(|&l| place("demo::setup", "/h/src/lib.rs", l))
            .collect();
        places.insert(place("demo::helper", "/h/src/util.rs", 1));
        let head = source_of(&places, Path::new("/h"), |p| {
            Some(
                if p.ends_with("util.rs") {
                    "fn helper() {}\n"
                } else {
                    BASE
                }
                .to_string(),
            )
        })
        .unwrap();
        let SourceComparison::Differs(reason) = compare(&base, &head) else {
            panic!("code inlined on one side only must differ");
        };
        assert!(reason.contains("demo::helper"), "{reason}");
    }

    #[test]
    fn a_relative_path_is_read_from_each_side_s_own_checkout() {
        // As a build that maps the checkout's root to `.` names the file on both sides.
        let places: BTreeSet<Place> = [place("demo::setup", "./src/lib.rs", 2)]
            .into_iter()
            .collect();
        let read = |path: &Path| {
            let text = match path.starts_with("/b") {
                true => "// base\nfn setup() {}\n",
                false => "// head\nfn setup() { changed() }\n",
            };
            assert!(path.ends_with("src/lib.rs"), "{}", path.display());
            Some(text.to_string())
        };
        let base = source_of(&places, Path::new("/b"), read).unwrap();
        let head = source_of(&places, Path::new("/h"), read).unwrap();
        assert!(
            base.spans
                .contains_key(&("src/lib.rs".to_string(), "demo::setup".to_string()))
        );
        assert!(
            matches!(compare(&base, &head), SourceComparison::Differs(_)),
            "{base:?} {head:?}"
        );
        let again = source_of(&places, Path::new("/b2"), |_| {
            read(Path::new("/b/src/lib.rs"))
        });
        assert_eq!(compare(&base, &again.unwrap()), SourceComparison::Same);
    }

    #[test]
    fn a_file_outside_the_checkout_is_compared_by_its_whole_path() {
        let dep = |checkout: &str| {
            let places = [place("dep::f", "/registry/src/dep-1.0/src/lib.rs", 1)]
                .into_iter()
                .collect();
            source_of(&places, Path::new(checkout), |_| {
                Some("fn f() {}\n".to_string())
            })
            .unwrap()
        };
        assert_eq!(compare(&dep("/b"), &dep("/h")), SourceComparison::Same);
        let other = source_of(
            &[place("dep::f", "/registry/src/dep-1.1/src/lib.rs", 1)]
                .into_iter()
                .collect(),
            Path::new("/h"),
            |_| Some("fn f() {}\n".to_string()),
        )
        .unwrap();
        assert!(matches!(
            compare(&dep("/b"), &other),
            SourceComparison::Differs(_)
        ));
    }

    #[test]
    fn an_unreadable_file_or_a_missing_line_cannot_tell() {
        let places = [place("demo::setup", "/b/src/lib.rs", 9)]
            .into_iter()
            .collect();
        assert!(source_of(&places, Path::new("/b"), |_| None).is_err());
        assert!(source_of(&places, Path::new("/b"), |_| Some(BASE.to_string())).is_err());
    }

    #[test]
    fn the_standard_library_is_the_same_by_its_path() {
        let places = [
            place("core::f", "/rustc/abc/library/core/src/lib.rs", 7),
            place("find", "/rust/deps/hashbrown-0.16.1/src/raw/mod.rs", 9),
        ]
        .into_iter()
        .collect();
        let read = |_: &Path| None;
        let base = source_of(&places, Path::new("/b"), read).unwrap();
        let head = source_of(&places, Path::new("/h"), read).unwrap();
        assert_eq!(compare(&base, &head), SourceComparison::Same);
        let other: BTreeSet<Place> = [place("find", "/rust/hashbrown/src/raw/mod.rs", 9)]
            .into_iter()
            .collect();
        assert!(source_of(&other, Path::new("/b"), read).is_err());
    }

    #[inline(never)]
    fn traced_for_source(x: u64) -> u64 {
        x.wrapping_mul(31) ^ 7
    }

    #[test]
    fn a_function_of_this_test_binary_has_its_source_found_in_its_line_tables() {
        assert_ne!(traced_for_source(std::hint::black_box(3)), 0);
        let exe = std::env::current_exe().unwrap();
        let checkout = Path::new(env!("CARGO_MANIFEST_DIR"));
        let name = "cargo_perfdiff::steps::reach::source::tests::traced_for_source";
        let side = Side {
            executable: &exe,
            checkout,
        };
        let places = places_of(&exe, name).unwrap();
        assert!(
            places
                .iter()
                .any(|p| p.file.ends_with("src/steps/reach/source.rs")),
            "{places:?}"
        );
        let none = ChangedNames::default();
        // Both compared with each side's symbols read once. The missing name is in no DWARF
        // string of the binary: decided without indexing every inlined copy of it.
        let names = [
            name.to_string(),
            "no::such::function_of_no_crate".to_string(),
        ];
        let [found, missing] =
            <[_; 2]>::try_from(compare_functions(&side, &side, &names, &none)).unwrap();
        assert_eq!(found, SourceComparison::Same);
        assert!(
            matches!(missing, SourceComparison::Unknown(_)),
            "{missing:?}"
        );
    }
    /// A program whose `setup` inlines `util::helper`; `above` goes before it, `shift` is the
    /// helper's shift.
    fn program(above: &str, shift: u32) -> String {
        format!(
            "{above}mod util {{\n    #[inline(always)]\n    pub fn helper(x: u64) -> u64 {{\n        \
             x.wrapping_mul(0x9E37_79B9) ^ (x >> {shift})\n    }}\n}}\n\n#[inline(never)]\n\
             fn setup(n: u64) -> u64 {{\n    let mut acc = 0;\n    for i in 0..n {{\n        \
             acc ^= util::helper(i);\n    }}\n    acc\n}}\n\n\
             fn main() {{\n    println!(\"{{}}\", setup(std::hint::black_box(1000)));\n}}\n"
        )
    }

    /// `text` compiled optimised with line tables in a checkout of its own under `dir`.
    fn compiled(dir: &Path, side: &str, text: &str) -> PathBuf {
        compiled_with(dir, side, text, "line-tables-only")
    }

    /// [`compiled`] with `-C debuginfo=<debuginfo>`.
    fn compiled_with(dir: &Path, side: &str, text: &str, debuginfo: &str) -> PathBuf {
        let checkout = dir.join(side);
        std::fs::create_dir_all(checkout.join("src")).unwrap();
        std::fs::write(checkout.join("src/main.rs"), text).unwrap();
        let exe = checkout.join("demo");
        let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
        let status = std::process::Command::new(rustc)
            .current_dir(&checkout)
            .args(["--edition=2021", "--crate-name", "demo", "-O", "-C"])
            .arg(format!("debuginfo={debuginfo}"))
            .args(["src/main.rs", "-o"])
            .arg(&exe)
            .status()
            .unwrap();
        assert!(status.success());
        exe
    }

    #[test]
    fn an_executable_built_with_debug_information_has_line_tables_of_its_checkout_s_code() {
        let dir = tempfile::tempdir().unwrap();
        let text = "fn main() {\n    println!(\"{}\", std::hint::black_box(3) * 7);\n}\n";
        for (side, debuginfo, has) in [
            ("none", "0", false),
            ("lines", "line-tables-only", true),
            ("full", "2", true),
        ] {
            let exe = compiled_with(dir.path(), side, text, debuginfo);
            assert_eq!(has_checkout_line_tables(&exe), has, "debuginfo={debuginfo}");
        }
        assert!(!has_checkout_line_tables(&dir.path().join("missing")));
    }

    /// `files` (path in the checkout, text) compiled optimised with line tables, `src/main.rs`
    /// the crate's root, in a checkout of its own under `dir`.
    pub(super) fn compiled_files(dir: &Path, side: &str, files: &[(&str, String)]) -> PathBuf {
        compiled_files_below(dir, side, "", files)
    }

    /// [`compiled_files`] of a crate in the folder `below` of the checkout, compiled from there
    /// as cargo compiles a workspace's member from the workspace's root, and with the checkout
    /// remapped to `.` as the normalised build does: the line tables then name `src/main.rs` in
    /// the compilation directory `./<below>` (rust-lexical's `extras/benchmark/`).
    pub(super) fn compiled_files_below(
        dir: &Path,
        side: &str,
        below: &str,
        files: &[(&str, String)],
    ) -> PathBuf {
        let checkout = dir.join(side);
        let workspace = checkout.join(below);
        write_files(&workspace, files);
        let main = Path::new("src/main.rs");
        compile_demo(&checkout, &workspace, main, !below.is_empty())
    }

    /// rustc building `main` (as given to it) into `checkout/demo` from `cwd`, with line tables,
    /// the checkout remapped to `.` when `remap` (as the normalised build does).
    fn compile_demo(checkout: &Path, cwd: &Path, main: &Path, remap: bool) -> PathBuf {
        let exe = checkout.join("demo");
        let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
        let mut command = std::process::Command::new(rustc);
        if remap {
            command.arg(format!("--remap-path-prefix={}=.", checkout.display()));
        }
        let status = command
            .current_dir(cwd)
            .args(["--edition=2021", "--crate-name", "demo", "-O", "-C"])
            .arg("debuginfo=line-tables-only")
            .arg(main)
            .arg("-o")
            .arg(&exe)
            .status()
            .unwrap();
        assert!(status.success());
        exe
    }

    /// [`compiled_files`] of a crate at the checkout's root compiled from the folder `below`,
    /// as cargo compiles a path dependency outside a workspace below the root (jiff's `bench/`
    /// with `path = ".."`): rustc is given its root by its absolute path, and the checkout is
    /// remapped to `.`, so the line tables name `./src/main.rs` in `./<below>`.
    pub(super) fn compiled_files_outside(
        dir: &Path,
        side: &str,
        below: &str,
        files: &[(&str, String)],
    ) -> PathBuf {
        let checkout = dir.join(side);
        let workspace = checkout.join(below);
        std::fs::create_dir_all(&workspace).unwrap();
        write_files(&checkout, files);
        compile_demo(&checkout, &workspace, &checkout.join("src/main.rs"), true)
    }

    /// Writes each of `files` (a path below `root`, its text).
    fn write_files(root: &Path, files: &[(&str, String)]) {
        for (path, text) in files {
            let path = root.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
    }

    /// A crate whose `setup` calls `util::helper`, marked `hint` (`always`: inlined, `never`:
    /// called); `above` goes before it in `src/util.rs`, `shift` is its shift, and `add` what
    /// `util::other::helper`, a function of the same name in the same file, adds.
    fn apart_crate(hint: &str, above: &str, shift: u32, add: u32) -> Vec<(&'static str, String)> {
        let main = "mod util;\n\n#[inline(never)]\nfn setup(n: u64) -> u64 {\n    let mut acc = 0;\n    \
                    for i in 0..n {\n        acc ^= util::helper(i);\n    }\n    acc\n}\n\n\
                    fn main() {\n    println!(\"{}\", setup(std::hint::black_box(1000)));\n    \
                    println!(\"{}\", util::other::helper(std::hint::black_box(3)));\n}\n";
        let util = format!(
            "{above}#[inline({hint})]\npub fn helper(x: u64) -> u64 {{\n    \
             x.wrapping_mul(0x9E37_79B9) ^ (x >> {shift})\n}}\n\npub mod other {{\n    \
             #[inline(never)]\n    pub fn helper(x: u64) -> u64 {{\n        x + {add}\n    }}\n}}\n"
        );
        vec![("src/main.rs", main.to_string()), ("src/util.rs", util)]
    }

    /// `function` compared between the crates built in `dir`'s checkouts `base` and `head`.
    pub(super) fn compare_apart(
        dir: &Path,
        base: &str,
        head: &str,
        function: &str,
    ) -> SourceComparison {
        let [base, head] = [base, head].map(|side| dir.join(side));
        let changed = changed_names(&base, &head).unwrap();
        let [base_exe, head_exe] = [&base, &head].map(|c| c.join("demo"));
        compare_function(
            &Side {
                executable: &base_exe,
                checkout: &base,
            },
            &Side {
                executable: &head_exe,
                checkout: &head,
            },
            function,
            &changed,
        )
    }

    #[test]
    fn a_function_inlined_on_one_side_and_called_on_the_other_from_the_same_source_is_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let unrelated = "#[allow(dead_code)]\nfn unrelated() -> u32 {\n    7\n}\n\n";
        for (side, hint, above) in [
            ("inlined", "always", ""),
            ("called", "never", ""),
            ("shifted", "never", unrelated),
        ] {
            compiled_files(dir.path(), side, &apart_crate(hint, above, 7, 1));
        }
        let inlined = places_of(&dir.path().join("inlined/demo"), "demo::setup").unwrap();
        assert!(
            inlined.iter().any(|p| p.function.ends_with("helper")),
            "the helper is inlined into setup: {inlined:?}"
        );
        let called = places_of(&dir.path().join("called/demo"), "demo::setup").unwrap();
        assert!(
            !called.iter().any(|p| p.function.ends_with("helper")),
            "the helper is called from setup: {called:?}"
        );
        for head in ["called", "shifted"] {
            let compared = compare_apart(dir.path(), "inlined", head, "demo::setup");
            let SourceComparison::SameApart(note) = &compared else {
                panic!("inlined in base, called in {head}: the same source: {compared:?}");
            };
            assert!(
                note.contains("`helper` (src/util.rs) inlined in base, called in head"),
                "{note}"
            );
        }
        // The other way round: called in base, inlined in head.
        let compared = compare_apart(dir.path(), "shifted", "inlined", "demo::setup");
        let SourceComparison::SameApart(note) = &compared else {
            panic!("called in base, inlined in head: the same source: {compared:?}");
        };
        assert!(note.contains("inlined in head, called in base"), "{note}");
        // Base's copy of the helper, which head inlines everywhere, has the same source.
        let helper = compare_apart(dir.path(), "called", "inlined", "demo::util::helper");
        assert!(helper.is_same(), "{helper:?}");
    }

    #[test]
    fn a_path_dependency_outside_a_workspace_below_the_root_is_read_from_the_checkout() {
        // jiff #518 (field trial jiff-tsdt): jiff's files, compiled from `bench/`, were read
        // as `bench/./src/…`, no file, so no set-up function of jiff could be compared.
        let dir = tempfile::tempdir().unwrap();
        let unrelated = "#[allow(dead_code)]\nfn unrelated() -> u32 {\n    7\n}\n\n";
        for (side, above, shift) in [("base", "", 7), ("head", unrelated, 7), ("changed", "", 8)] {
            let files = apart_crate("always", above, shift, 1);
            compiled_files_outside(dir.path(), side, "bench", &files);
        }
        for function in ["demo::setup", "demo::util::helper"] {
            let same = compare_apart(dir.path(), "base", "head", function);
            assert!(same.is_same(), "{function}: {same:?}");
            let changed = compare_apart(dir.path(), "base", "changed", function);
            let differs = matches!(changed, SourceComparison::Differs(_));
            assert!(differs, "{function}: {changed:?}");
        }
        assert_eq!(
            remapped_part(Path::new("./bench/./src/lib.rs")),
            Path::new("src/lib.rs")
        );
        let member = Path::new("./bench/src/bench.rs");
        assert_eq!(
            remapped_part(member),
            member,
            "a member's file, in its folder"
        );
    }

    #[test]
    fn a_function_inlined_on_one_side_only_differs_when_its_source_or_a_namesake_does() {
        let dir = tempfile::tempdir().unwrap();
        for (side, hint, shift, add) in [
            ("base", "always", 7, 1),
            ("body", "never", 9, 1),
            ("namesake", "never", 7, 2),
            ("unreadable", "never", 7, 1),
        ] {
            compiled_files(dir.path(), side, &apart_crate(hint, "", shift, add));
        }
        let body = compare_apart(dir.path(), "base", "body", "demo::setup");
        assert!(matches!(body, SourceComparison::Differs(_)), "{body:?}");
        let SourceComparison::Differs(reason) =
            compare_apart(dir.path(), "base", "namesake", "demo::setup")
        else {
            panic!("another `helper` of the file changed: it differs");
        };
        assert!(
            reason.contains("its name `helper` is one the commit changes (an item of"),
            "{reason}"
        );
        // The file that holds the helper cannot be read on the side that calls it.
        let (base, head) = (dir.path().join("base"), dir.path().join("unreadable"));
        let changed = changed_names(&base, &head).unwrap();
        std::fs::remove_file(head.join("src/util.rs")).unwrap();
        let unknown = compare_function(
            &Side {
                executable: &base.join("demo"),
                checkout: &base,
            },
            &Side {
                executable: &head.join("demo"),
                checkout: &head,
            },
            "demo::setup",
            &changed,
        );
        assert!(
            matches!(unknown, SourceComparison::Unknown(ref why) if why.contains("util.rs")),
            "{unknown:?}"
        );
    }

    /// A crate whose `setup` (on one line: its span is that line on both sides) inlines
    /// `util::mix`, which multiplies by `k`; `main` passes `k` (`"1"`: a constant, which the
    /// optimiser propagates into `setup`, leaving `mix` no code at all), and `mix` is `body`.
    fn merged_crate(k: &str, body: &str) -> Vec<(&'static str, String)> {
        let main = format!(
            "mod util;\n\n#[inline(never)]\n\
             fn setup(x: u64, k: u64) -> u64 {{ let y = util::mix(x, k); y.rotate_left(5) ^ x }}\n\n\
             fn main() {{\n    println!(\"{{}}\", setup(std::hint::black_box(1000), {k}));\n}}\n"
        );
        let util =
            format!("#[inline(always)]\npub fn mix(x: u64, k: u64) -> u64 {{\n    {body}\n}}\n");
        vec![("src/main.rs", main), ("src/util.rs", util)]
    }

    #[test]
    fn a_same_function_of_the_workspace_that_leaves_no_code_on_one_side_is_followed_no_further() {
        let dir = tempfile::tempdir().unwrap();
        let same = "x.wrapping_mul(k)";
        for (side, k, body) in [
            ("base", "std::hint::black_box(3)", same),
            ("merged", "1", same),
            ("edited", "1", "x.wrapping_mul(k).wrapping_add(0)"),
        ] {
            compiled_files(dir.path(), side, &merged_crate(k, body));
        }
        let has_mix = |side: &str| {
            let places = places_of(&dir.path().join(side).join("demo"), "demo::setup").unwrap();
            places.iter().any(|p| p.function.ends_with("mix"))
        };
        assert!(has_mix("base"), "base inlines `mix` with frames of its own");
        assert!(
            !has_mix("merged"),
            "`mix` leaves no code in `setup` when `k` is 1"
        );
        let merged_symbols = extents_of(&dir.path().join("merged/demo")).unwrap();
        assert!(
            !merged_symbols.keys().any(|name| name.ends_with("mix")),
            "nor a symbol of its own"
        );
        let compared = compare_apart(dir.path(), "base", "merged", "demo::setup");
        let SourceComparison::SameApart(note) = &compared else {
            panic!("the same `mix`, merged into its caller in head: {compared:?}");
        };
        assert!(
            note.contains("`mix` (src/util.rs) inlined in base, merged into its callers in head"),
            "{note}"
        );
        // The other way round.
        let compared = compare_apart(dir.path(), "merged", "base", "demo::setup");
        assert!(compared.is_same(), "{compared:?}");
        // A definition that differs is not accepted, though it leaves no code either.
        let compared = compare_apart(dir.path(), "base", "edited", "demo::setup");
        let SourceComparison::Differs(reason) = &compared else {
            panic!("`mix` changed: {compared:?}");
        };
        assert!(reason.contains("`mix`"), "{reason}");
    }

    /// A crate whose `register` (in `src/main.rs`, marked `#[inline(always)]`: no symbol) is
    /// called `calls` times from `main`, and pushes `k + add`; `above` goes before it, and
    /// `util::register`, a namesake in another file, is inlined into `main` too.
    fn registering_crate(above: &str, add: u32, calls: usize) -> Vec<(&'static str, String)> {
        let call = "    register(&mut v, std::hint::black_box(2));\n".repeat(calls);
        let main = format!(
            "mod util;\n\n{above}#[inline(always)]\nfn register(v: &mut Vec<u64>, k: u64) {{\n    \
             v.push(util::work(k));\n    v.push(k + {add});\n}}\n\n\
             fn main() {{\n    let mut v = Vec::new();\n{call}    \
             util::register(&mut v, std::hint::black_box(3));\n    println!(\"{{v:?}}\");\n}}\n"
        );
        let util = "#[inline(never)]\npub fn work(k: u64) -> u64 {\n    k.wrapping_mul(3)\n}\n\n\
                    #[inline(always)]\npub fn register(v: &mut Vec<u64>, k: u64) {\n    \
                    v.push(k ^ 5);\n}\n";
        vec![("src/main.rs", main), ("src/util.rs", util.to_string())]
    }

    #[test]
    fn a_function_inlined_into_its_callers_on_both_sides_is_compared_by_its_inlined_copies() {
        let dir = tempfile::tempdir().unwrap();
        let unrelated = "#[allow(dead_code)]\nfn unrelated() -> u32 {\n    7\n}\n\n";
        for (side, above, add, calls) in [
            ("base", "", 1, 2),
            ("shifted", unrelated, 1, 2),
            ("edited", "", 2, 2),
            ("more", "", 1, 3),
        ] {
            compiled_files(dir.path(), side, &registering_crate(above, add, calls));
        }
        let symbols = extents_of(&dir.path().join("base/demo")).unwrap();
        assert!(
            !symbols
                .keys()
                .any(|name| name.starts_with("demo::") && name.ends_with("register")),
            "`register` has no symbol: {:?}",
            symbols
                .keys()
                .filter(|n| n.starts_with("demo"))
                .collect::<Vec<_>>()
        );
        // The same source, its lines moved down: the same, though no side has a symbol.
        let same = compare_apart(dir.path(), "base", "shifted", "demo::register");
        assert_eq!(same, SourceComparison::Same);
        let same = compare_apart(dir.path(), "shifted", "base", "demo::register");
        assert_eq!(same, SourceComparison::Same);
        // The namesake in `src/util.rs` is not `demo::register`.
        let edited = compare_apart(dir.path(), "base", "edited", "demo::register");
        let SourceComparison::Differs(why) = &edited else {
            panic!("a line of `register` changed: {edited:?}");
        };
        assert!(why.contains("src/main.rs"), "{why}");
        let more = compare_apart(dir.path(), "base", "more", "demo::register");
        let SourceComparison::Differs(why) = &more else {
            panic!("inlined once more in head: {more:?}");
        };
        assert!(
            why.contains("inlined 2 times in base and 3 in head"),
            "{why}"
        );
        // A function no side has, inlined or not, still cannot be compared.
        let none = compare_apart(dir.path(), "base", "shifted", "demo::absent");
        assert!(matches!(none, SourceComparison::Unknown(_)), "{none:?}");
    }

    /// A library `dep` (`src/dep.rs`, an rlib) whose `register` is inlined into `used`, which
    /// `main` calls, and into `unused`, which nothing calls: the linker drops `unused`'s
    /// section but keeps its DWARF, its addresses left at 0. `above` goes before `register`.
    fn library_with_a_discarded_copy(dir: &Path, side: &str, above: &str) -> PathBuf {
        let checkout = dir.join(side);
        std::fs::create_dir_all(checkout.join("src")).unwrap();
        // `register` contiguous in `unused`: one range, DWARF's low and high pc (at 0 here).
        let dep = format!(
            "{above}#[inline(always)]\nfn register(k: u64) -> u64 {{\n    (k ^ 0x55) >> 3\n}}\n\n\
             #[inline(never)]\npub fn used(k: u64) -> u64 {{\n    register(k) + 1\n}}\n\n\
             #[inline(never)]\npub fn unused(k: u64) -> u64 {{\n    register(k) + 2\n}}\n"
        );
        let main = "fn main() {\n    println!(\"{}\", dep::used(std::hint::black_box(2)));\n}\n";
        std::fs::write(checkout.join("src/dep.rs"), dep).unwrap();
        std::fs::write(checkout.join("src/main.rs"), main).unwrap();
        let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
        let optimised = ["--edition=2021", "-O", "-C", "debuginfo=line-tables-only"];
        let library = std::process::Command::new(&rustc)
            .current_dir(&checkout)
            .args(optimised)
            .args(["--crate-type", "rlib", "--crate-name", "dep", "src/dep.rs"])
            .status()
            .unwrap();
        assert!(library.success());
        let exe = checkout.join("demo");
        let binary = std::process::Command::new(&rustc)
            .current_dir(&checkout)
            .args(optimised)
            .args([
                "--crate-name",
                "demo",
                "--extern",
                "dep=libdep.rlib",
                "src/main.rs",
                "-o",
            ])
            .arg(&exe)
            .status()
            .unwrap();
        assert!(binary.success());
        exe
    }

    #[test]
    fn an_inlined_copy_the_linker_discarded_is_not_compared() {
        let dir = tempfile::tempdir().unwrap();
        let unrelated = "#[allow(dead_code)]\nfn unrelated() -> u32 {\n    7\n}\n\n";
        let base = library_with_a_discarded_copy(dir.path(), "base", "");
        library_with_a_discarded_copy(dir.path(), "shifted", unrelated);
        let symbols = extents_of(&base).unwrap();
        assert!(symbols.keys().any(|name| name.starts_with("dep::used")));
        assert!(
            !symbols.keys().any(|name| name.starts_with("dep::unused")),
            "the linker keeps `unused`: {:?}",
            symbols
                .keys()
                .filter(|n| n.starts_with("dep"))
                .collect::<Vec<_>>()
        );
        // `register`'s copy in `unused` is DWARF at address 0: were it a copy, its code would
        // have no line, and the two sides could not be compared.
        let same = compare_apart(dir.path(), "base", "shifted", "dep::register");
        assert_eq!(same, SourceComparison::Same);
    }

    #[test]
    fn rustc_s_c_main_shim_is_the_same_on_both_sides_and_a_c_main_of_the_user_is_compared_by_lines()
    {
        let dir = tempfile::tempdir().unwrap();
        let unrelated = "#[allow(dead_code)]\nfn unrelated() -> u32 {\n    7\n}\n\n";
        compiled(dir.path(), "base", &program("", 7));
        compiled(dir.path(), "shifted", &program(unrelated, 7));
        let [base, shifted] = ["base", "shifted"].map(|side| dir.path().join(side).join("demo"));
        assert!(
            places_of(&base, "main").is_err(),
            "rustc's `main` has no line"
        );
        let compared = compare_apart(dir.path(), "base", "shifted", "main");
        assert_eq!(compared, SourceComparison::Same);
        assert!(shifted.exists());
        // A C `main` the user wrote has lines: they decide.
        let own = |code: u32| {
            format!(
                "#![no_main]\n\n#[unsafe(no_mangle)]\npub extern \"C\" fn main() -> i32 {{\n    \
                 std::hint::black_box({code})\n}}\n"
            )
        };
        compiled(dir.path(), "own", &own(0));
        compiled(dir.path(), "own-edited", &own(1));
        let compared = compare_apart(dir.path(), "own", "own-edited", "main");
        assert!(
            matches!(compared, SourceComparison::Differs(_)),
            "{compared:?}"
        );
    }

    #[test]
    fn a_span_is_found_in_the_innermost_item_holding_its_lines() {
        let text = "fn offset(d: u32) -> u32 {\n    let f = |x: u32| x + 1;\n    f(d)\n}\n\
                    struct Cache;\n\
                    impl Cache {\n    fn offset(&mut self, d: u32) -> u32 {\n        d * 2\n    }\n}\n";
        let items = item_lines(text).unwrap();
        let at = |first, last| innermost(&items, first, last).map(|i| i.key.as_str());
        assert_eq!(at(2, 3), Some("fn offset"));
        assert_eq!(at(8, 8), Some("impl Cache ::fn offset"));
        assert_eq!(at(3, 8), None);
        assert!(item_lines("fn broken( {").is_err());
    }

    #[test]
    fn a_function_nothing_is_inlined_into_is_compared_by_the_lines_of_its_symbol() {
        // LLVM gives such a function no `DW_TAG_subprogram` in a line-tables-only build:
        // bstr's `find_iter` (field trial bstr-count), "code at … has no function".
        let program = |above: &str, add: u32| {
            format!(
                "{above}#[inline(never)]\nfn helper(x: u64) -> u64 {{\n    x.wrapping_mul(3)\n}}\n\n\
                 #[inline(never)]\nfn setup(n: u64) -> u64 {{\n    helper(n) ^ helper(n + {add})\n}}\n\n\
                 fn main() {{\n    println!(\"{{}}\", setup(std::hint::black_box(7)));\n}}\n"
            )
        };
        let dir = tempfile::tempdir().unwrap();
        let base = compiled(dir.path(), "base", &program("", 1));
        let shifted = compiled(dir.path(), "shifted", &program("// moved\n\n", 1));
        let changed = compiled(dir.path(), "changed", &program("", 2));
        let places = places_of(&base, "demo::setup").unwrap();
        assert!(places.iter().all(|p| p.function == "setup"), "{places:?}");
        let side = |executable: &PathBuf, name: &str| (executable.clone(), dir.path().join(name));
        let compare_with = |(exe, checkout): (PathBuf, PathBuf)| {
            let base_side = Side {
                executable: &base,
                checkout: &dir.path().join("base"),
            };
            let other = Side {
                executable: &exe,
                checkout: &checkout,
            };
            compare_function(&base_side, &other, "demo::setup", &ChangedNames::default())
        };
        assert_eq!(
            compare_with(side(&shifted, "shifted")),
            SourceComparison::Same
        );
        let compared = compare_with(side(&changed, "changed"));
        assert!(
            matches!(compared, SourceComparison::Differs(_)),
            "{compared:?}"
        );
    }

    #[test]
    fn code_compiled_in_from_a_changed_file_that_is_not_rust_differs() {
        // pest's `#[derive(Parser)] #[grammar = "grammars/json.pest"]` (field trial
        // pest-json-ctrl), here `include_str!`: the set-up's code changes with the data file
        // while its lines, the macro call's, read the same.
        let program = "#[inline(never)]\nfn setup(n: usize) -> usize {\n    \
                       include_str!(\"data.txt\").bytes().take(n).filter(|b| *b == b'x').count()\n}\n\n\
                       fn main() {\n    println!(\"{}\", setup(std::hint::black_box(64)));\n}\n";
        set_up_compiled_in_differs(program, "src/main.rs, which names src/data.txt");
    }

    #[test]
    fn code_compiled_in_from_a_file_whose_name_is_built_differs() {
        // The name `concat!` assembles (or a build script's `OUT_DIR` holds) is no file's name.
        let program = "#[inline(never)]\nfn setup(n: usize) -> usize {\n    \
                       include_str!(concat!(\"da\", \"ta.txt\")).bytes().take(n).filter(|b| *b == b'x').count()\n}\n\n\
                       fn main() {\n    println!(\"{}\", setup(std::hint::black_box(64)));\n}\n";
        set_up_compiled_in_differs(program, "which may be made from src/data.txt");
    }

    /// `program`'s `setup` compiles in `src/data.txt`, changed by head: it differs, the reason
    /// saying `expected`; with the same data on both sides it is the same.
    fn set_up_compiled_in_differs(program: &str, expected: &str) {
        let dir = tempfile::tempdir().unwrap();
        let build = |side: &str, data: &str| {
            let files = [
                ("src/main.rs", program.to_string()),
                ("src/data.txt", data.into()),
            ];
            // The executable outside its checkout, as cargo's target directory is left out.
            let executable = dir.path().join(format!("{side}.demo"));
            std::fs::rename(compiled_files(dir.path(), side, &files), &executable).unwrap();
            (executable, dir.path().join(side))
        };
        let (base, head) = (build("base", "xx\n"), build("head", "xxx\n"));
        fn side((executable, checkout): &(PathBuf, PathBuf)) -> Side<'_> {
            Side {
                executable,
                checkout,
            }
        }
        let changed = changed_names(&base.1, &head.1).unwrap();
        let compared = compare_function(&side(&base), &side(&head), "demo::setup", &changed);
        let SourceComparison::Differs(reason) = compared else {
            panic!("code made from a changed data file must differ: {compared:?}");
        };
        assert!(reason.contains(expected), "{reason}");
        // The same data on both sides: the same source.
        let same = build("same", "xx\n");
        let unchanged = changed_names(&base.1, &same.1).unwrap();
        let compared = compare_function(&side(&base), &side(&same), "demo::setup", &unchanged);
        assert!(compared.is_same(), "{compared:?}");
    }

    #[test]
    fn short_names_drop_the_path_the_generic_arguments_and_a_closure_s_number() {
        for (name, short) in [
            ("chrono::offset::local::inner::Cache::offset", "offset"),
            (
                "<chrono::offset::local::inner::Cache as core::default::Default>::default",
                "default",
            ),
            (
                "core::ptr::drop_in_place<alloc::string::String>",
                "drop_in_place",
            ),
            (
                "get_or_insert_with<demo::Cache, fn() -> demo::Cache>",
                "get_or_insert_with",
            ),
            (
                "<indexmap::map::IndexMap<usize, i32>>::hash::<usize>",
                "hash",
            ),
            ("demo::mix::<u64>", "mix"),
            ("demo::offset::{{closure}}", "{closure}"),
            ("{closure#0}", "{closure}"),
            ("offset", "offset"),
        ] {
            assert_eq!(short_name(name), short, "{name}");
        }
    }

    #[test]
    fn two_real_builds_of_the_same_source_elsewhere_are_the_same_and_a_changed_inlined_line_is_not()
    {
        let dir = tempfile::tempdir().unwrap();
        let base = compiled(dir.path(), "base", &program("", 7));
        let shifted = compiled(
            dir.path(),
            "shifted",
            &program(
                "#[allow(dead_code)]\nfn unrelated() -> u32 {\n    7\n}\n\n",
                7,
            ),
        );
        let changed = compiled(dir.path(), "changed", &program("", 9));
        let side = |exe: &Path, name: &str| (exe.to_path_buf(), dir.path().join(name));
        let compare_with = |(exe, checkout): (PathBuf, PathBuf)| {
            let (base_exe, base_checkout) = side(&base, "base");
            let changed = changed_names(&base_checkout, &checkout).unwrap();
            compare_function(
                &Side {
                    executable: &base_exe,
                    checkout: &base_checkout,
                },
                &Side {
                    executable: &exe,
                    checkout: &checkout,
                },
                "demo::setup",
                &changed,
            )
        };
        let places = places_of(&base, "demo::setup").unwrap();
        assert!(
            places.iter().any(|p| p.function.ends_with("helper")),
            "the helper is inlined into setup: {places:?}"
        );
        assert_eq!(
            compare_with(side(&shifted, "shifted")),
            SourceComparison::Same
        );
        let SourceComparison::Differs(reason) = compare_with(side(&changed, "changed")) else {
            panic!("a changed line of an inlined function must differ");
        };
        assert!(reason.contains("helper"), "{reason}");
    }
    #[test]
    fn a_function_whose_lines_name_what_the_commit_changes_elsewhere_differs() {
        let dir = tempfile::tempdir().unwrap();
        let write = |side: &str, rounds: u32| {
            let src = dir.path().join(side).join("src");
            std::fs::create_dir_all(&src).unwrap();
            std::fs::write(
                src.join("consts.rs"),
                format!("pub const ROUNDS: u64 = {rounds};\n"),
            )
            .unwrap();
            std::fs::write(src.join("lib.rs"), "fn run() -> u64 {\n    ROUNDS * 2\n}\n").unwrap();
            dir.path().join(side)
        };
        let (base, head) = (write("base", 2000), write("head", 2200));
        let changed = changed_names(&base, &head).unwrap();
        assert!(changed.contains("ROUNDS"), "{changed:?}");
        assert!(
            !changed.contains("const"),
            "keywords are not names: {changed:?}"
        );
        let places = [place("demo::run", "/b/src/lib.rs", 2)]
            .into_iter()
            .collect();
        let source = source_of(&places, Path::new("/b"), |_| {
            Some("fn run() -> u64 {\n    ROUNDS * 2\n}\n".to_string())
        })
        .unwrap();
        assert_eq!(compare(&source, &source), SourceComparison::Same);
        assert_eq!(uses_changed(&source, &changed).as_deref(), Some("ROUNDS"));
        assert_eq!(uses_changed(&source, &ChangedNames::default()), None);
        assert_eq!(
            changed.reason("ROUNDS", "src/lib.rs"),
            "its lines name `ROUNDS`, which the commit changes elsewhere (an item of \
             src/consts.rs)"
        );
    }

    /// The names changed from `base` to `head`, the text of `src/lib.rs` on each side.
    fn changed_between(base: &str, head: &str) -> ChangedNames {
        let dir = tempfile::tempdir().unwrap();
        for (side, text) in [("base", base), ("head", head)] {
            std::fs::create_dir_all(dir.path().join(side).join("src")).unwrap();
            std::fs::write(dir.path().join(side).join("src/lib.rs"), text).unwrap();
        }
        changed_names(&dir.path().join("base"), &dir.path().join("head")).unwrap()
    }

    /// The name of `changed` that a function made of `lines` names, if any.
    fn named(lines: &str, changed: &ChangedNames) -> Option<String> {
        named_at(lines, "src/lib.rs", changed)
    }

    /// [`named`] for lines of the file compared as `file`.
    fn named_at(lines: &str, file: &str, changed: &ChangedNames) -> Option<String> {
        let span = Span {
            first: 1,
            text: lines.lines().map(str::to_string).collect(),
        };
        let key = (file.to_string(), "demo::f".to_string());
        let source = FunctionSource {
            spans: [(key, span)].into_iter().collect(),
        };
        uses_changed(&source, changed)
    }

    #[test]
    fn a_changed_local_name_marks_its_function_and_not_others_using_the_same_name() {
        let other = "fn other(to: u32) -> u32 {\n    to + 1\n}\n";
        let base =
            format!("fn parse(s: &str) -> usize {{\n    let to = s.len();\n    to\n}}\n{other}");
        let head =
            format!("fn parse(s: &str) -> usize {{\n    let end = s.len();\n    end\n}}\n{other}");
        let changed = changed_between(&base, &head);
        assert!(changed.contains("parse"), "{changed:?}");
        assert!(
            !changed.contains("to") && !changed.contains("end"),
            "{changed:?}"
        );
        assert_eq!(named("    to + 1", &changed), None);
        assert_eq!(
            named("    parse(x) + to", &changed).as_deref(),
            Some("parse")
        );
    }

    #[test]
    fn a_changed_const_marks_a_function_naming_it_and_not_its_neighbours() {
        let text = |n: u32| format!("const ROUNDS: u32 = {n};\nconst WIDTH: u32 = 8;\n");
        let changed = changed_between(&text(2), &text(3));
        assert_eq!(named("    ROUNDS * 2", &changed).as_deref(), Some("ROUNDS"));
        assert_eq!(named("    WIDTH * 2", &changed), None);
    }

    #[test]
    fn a_struct_with_a_new_field_marks_a_function_naming_the_struct_or_a_field() {
        let base = "pub struct Cache {\n    pub zone: u32,\n}\nstruct Other {\n    to: u8,\n}\n";
        let head = base.replace("pub zone: u32,", "pub zone: u32,\n    pub extra: u64,");
        let changed = changed_between(base, &head);
        assert_eq!(
            named("Cache::default()", &changed).as_deref(),
            Some("Cache")
        );
        assert_eq!(named("    self.zone", &changed).as_deref(), Some("zone"));
        assert_eq!(named("    Other { to: 1 }", &changed), None);
    }

    #[test]
    fn a_changed_enum_marks_its_variants_by_their_names() {
        let base = "enum Pad {\n    Zero,\n    Space,\n}\n";
        let head = "enum Pad {\n    Zero,\n    Space,\n    Tab,\n}\n";
        let changed = changed_between(base, head);
        assert_eq!(named("    Zero => 0,", &changed).as_deref(), Some("Zero"));
    }

    #[test]
    fn a_changed_macro_rules_marks_its_callers() {
        let text = |body: &str| {
            format!("macro_rules! try_opt {{\n    ($e:expr) => {{ {body} }};\n}}\nfn f() {{}}\n")
        };
        let changed = changed_between(
            &text("$e?"),
            &text("match $e { Some(v) => v, None => return None }"),
        );
        assert_eq!(
            named("    try_opt!(x)", &changed).as_deref(),
            Some("try_opt")
        );
        assert_eq!(named("    f()", &changed), None);
    }

    #[test]
    fn a_changed_method_trait_default_or_use_marks_its_names() {
        let base = "use std::fmt::Write;\ntrait T {\n    fn d(&self) -> u8 { 1 }\n}\n\
                    impl S {\n    fn m(&self) {}\n    fn n(&self) {}\n}\n";
        let head = "use std::fmt::Debug;\ntrait T {\n    fn d(&self) -> u8 { 2 }\n}\n\
                    impl S {\n    fn m(&self) { x() }\n    fn n(&self) {}\n}\n";
        let changed = changed_between(base, head);
        for name in ["Write", "Debug", "d", "m"] {
            assert!(changed.contains(name), "{name}: {changed:?}");
        }
        for name in ["n", "T", "S", "std", "fmt", "x"] {
            assert!(!changed.contains(name), "{name}: {changed:?}");
        }
    }

    /// A file of a crates.io package, as the line tables name it (useg-ascii's clap_lex).
    const REGISTRY: &str =
        "/home/u/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/clap_lex-0.7.4/src/lib.rs";

    /// A library whose inherent `new`, trait impl's `default` and trait impl's constant `SIZE`
    /// change from base to head.
    fn inherent_and_trait_items(n: u32) -> String {
        format!(
            "pub struct W(u32);\nimpl W {{\n    pub fn new() -> Self {{ W({n}) }}\n}}\n\
             impl Default for W {{\n    fn default() -> Self {{ W({n}) }}\n}}\n\
             impl Sized2 for W {{\n    const SIZE: u32 = {n};\n}}\n"
        )
    }

    #[test]
    fn an_inherent_item_changed_marks_no_line_of_a_registry_file_and_a_trait_impl_s_still_does() {
        let mut changed =
            changed_between(&inherent_and_trait_items(1), &inherent_and_trait_items(2));
        // What `may_patch` finds where nothing patches (its own test below).
        changed.patched = false;
        for name in ["new", "default", "SIZE"] {
            assert!(changed.contains(name), "{name}: {changed:?}");
        }
        let cursor = "    let cursor = ArgCursor::new(0);";
        assert_eq!(named(cursor, &changed).as_deref(), Some("new"));
        assert_eq!(named_at(cursor, REGISTRY, &changed), None);
        let git = "/home/u/.cargo/git/checkouts/dep-1a2b/3c4d5e6/src/lib.rs";
        assert_eq!(named_at(cursor, git, &changed), None);
        let elsewhere = "/work/sibling/src/lib.rs";
        assert_eq!(
            named_at(cursor, elsewhere, &changed).as_deref(),
            Some("new"),
            "a path dependency outside the checkout may depend on it"
        );
        let generic = "    let t = T::default();\n    t.get() * T::SIZE";
        assert_eq!(
            named_at(generic, REGISTRY, &changed).as_deref(),
            Some("default")
        );
        assert_eq!(
            named_at("    T::SIZE", REGISTRY, &changed).as_deref(),
            Some("SIZE")
        );
        assert_eq!(
            changed.reason("SIZE", REGISTRY),
            "its lines name `SIZE`, which the commit changes elsewhere (an item of src/lib.rs, \
             of a trait or a trait impl: generic code names it)"
        );
    }

    #[test]
    fn an_exported_symbol_or_a_trait_s_own_item_changed_still_marks_a_registry_file() {
        let text = |n: u32| {
            format!(
                "#[no_mangle]\npub extern \"C\" fn hook() -> u32 {{ {n} }}\n\
                 pub trait Tr {{\n    fn each(&self) -> u32 {{ {n} }}\n}}\n"
            )
        };
        let mut changed = changed_between(&text(1), &text(2));
        changed.patched = false;
        assert_eq!(
            named_at("    unsafe { hook() }", REGISTRY, &changed).as_deref(),
            Some("hook")
        );
        assert_eq!(
            named_at("    x.each()", REGISTRY, &changed).as_deref(),
            Some("each")
        );
    }

    #[test]
    fn a_registry_file_mentioning_collapse_debuginfo_still_counts_every_name() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("registry/src/index-1/dep-1.0.0/src/lib.rs");
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        let text =
            "#[collapse_debuginfo(no)]\nmacro_rules! make {\n    ($t:ident) => { $t::new() };\n}\n";
        std::fs::write(&file, text).unwrap();
        let mut changed =
            changed_between(&inherent_and_trait_items(1), &inherent_and_trait_items(2));
        changed.patched = false;
        let file = file.to_string_lossy();
        assert_eq!(
            named_at("    ($t:ident) => { $t::new() };", &file, &changed).as_deref(),
            Some("new")
        );
        let other = file.replace("dep-1.0.0", "dep-1.0.1");
        std::fs::create_dir_all(Path::new(&other).parent().unwrap()).unwrap();
        std::fs::write(
            &other,
            "macro_rules! make {\n    ($t:ident) => { $t::new() };\n}\n",
        )
        .unwrap();
        assert_eq!(
            named_at("    ($t:ident) => { $t::new() };", &other, &changed),
            None
        );
    }

    #[test]
    fn a_function_name_s_generic_arguments_are_told_apart_from_its_path() {
        let (path, arguments) =
            split_generic_arguments("<clap_lex::RawArgs as From<W>>::from<u8>::{closure#0}");
        assert_eq!(identifiers(&path).collect::<Vec<_>>(), ["from", "closure"]);
        assert_eq!(
            identifiers(&arguments).collect::<Vec<_>>(),
            ["clap_lex", "RawArgs", "From", "W", "u8"]
        );
        let (path, arguments) = split_generic_arguments("new");
        assert_eq!((path.as_str(), arguments.as_str()), ("new", ""));
        let (path, arguments) = split_generic_arguments("call<fn() -> W>");
        assert_eq!(identifiers(&path).collect::<Vec<_>>(), ["call"]);
        assert_eq!(identifiers(&arguments).collect::<Vec<_>>(), ["W"]);
    }

    #[test]
    fn with_a_patch_a_registry_file_s_line_naming_an_inherent_item_still_differs() {
        let lib = (inherent_and_trait_items(1), inherent_and_trait_items(2));
        let manifest = "[package]\nname = \"w\"\n\n[patch.crates-io]\nw = { path = \".\" }\n";
        let changed = changed_in_files(&[
            ("Cargo.toml", manifest, manifest),
            ("src/lib.rs", &lib.0, &lib.1),
        ]);
        assert!(changed.patched, "{changed:?}");
        let cursor = "    let cursor = ArgCursor::new(0);";
        assert_eq!(named_at(cursor, REGISTRY, &changed).as_deref(), Some("new"));
        assert!(mentions_patch(
            "[replace]\n\"foo:0.1.0\" = { path = \"x\" }\n"
        ));
        assert!(mentions_patch("patch.crates-io.foo.path = \"x\"\n"));
        assert!(mentions_patch("-Ccollapse-macro-debuginfo=no"));
        assert!(!mentions_patch(
            "[package]\nname = \"w\"\n[dependencies]\nclap = \"4\"\n"
        ));
    }

    /// `files` (path, base's text, head's text) written into checkouts `base` and `head` of a
    /// temporary directory.
    pub(super) fn write_checkouts(files: &[(&str, &str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (path, base, head) in files {
            for (side, text) in [("base", base), ("head", head)] {
                let path = dir.path().join(side).join(path);
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(path, text).unwrap();
            }
        }
        dir
    }

    /// The names changed between checkouts of `files` (path, base's text, head's text).
    fn changed_in_files(files: &[(&str, &str, &str)]) -> ChangedNames {
        let dir = write_checkouts(files);
        changed_names(&dir.path().join("base"), &dir.path().join("head")).unwrap()
    }

    #[test]
    fn a_macro_call_s_cfg_attribute_names_no_item() {
        // tinyvec 1.10 (field trial `tv-release`) removed
        // `#[cfg(all(feature = "generic-array", not(feature = "rustc_1_55")))]
        // core::compile_error!(…)`: `not` was a changed name, and criterion's analysis code,
        // which names `not`, was taken for changed.
        let base = "#[cfg(all(feature = \"g\", not(feature = \"r\")))]\n\
                    core::compile_error!(\"g needs r\");\npub fn keep() {}\n";
        let changed = changed_in_files(&[("src/lib.rs", base, "pub fn keep() {}\n")]);
        assert!(changed.contains("compile_error"), "{changed:?}");
        for word in ["not", "all", "cfg", "feature"] {
            assert!(!changed.contains(word), "{word}: {changed:?}");
        }
    }

    #[test]
    fn a_changed_private_use_changes_its_names_in_its_module_s_files_only() {
        let lib = "mod a;\nmod b;\npub struct Thing;\npub struct Other;\n";
        let changed = changed_in_files(&[
            ("src/lib.rs", lib, lib),
            (
                "src/a.rs",
                "use crate::Thing;\nmod inner;\n",
                "use crate::{Other, Thing};\nmod inner;\n",
            ),
            ("src/a/inner.rs", "", ""),
            ("src/b.rs", "fn f() {}\n", "fn f() {}\n"),
        ]);
        assert!(changed.contains("Other"), "{changed:?}");
        assert!(!changed.contains("Thing"), "{changed:?}");
        for file in ["src/a.rs", "src/a/inner.rs"] {
            assert!(changed.contains_in("Other", file), "{file}: {changed:?}");
        }
        for file in ["src/b.rs", "src/lib.rs", "src/ab.rs"] {
            assert!(!changed.contains_in("Other", file), "{file}: {changed:?}");
        }
        let name = named("    let o = Other;", &changed);
        assert_eq!(name, None, "a function of src/lib.rs naming `Other`");
        // A `use` with a visibility changes the name everywhere.
        let changed = changed_in_files(&[
            ("src/lib.rs", "mod a;\n", "mod a;\n"),
            ("src/a.rs", "", "pub(crate) use std::fmt::Write;\n"),
        ]);
        assert!(changed.contains_in("Write", "src/lib.rs"), "{changed:?}");
        // A crate root's module is its folder; a `#[path]` in the module, or an `include!` of
        // the file, may put its code anywhere.
        let root = changed_in_files(&[("benches/run.rs", "", "use std::fmt::Write;\n")]);
        assert!(root.contains_in("Write", "benches/other.rs"), "{root:?}");
        assert!(!root.contains_in("Write", "src/lib.rs"), "{root:?}");
        let moved = changed_in_files(&[
            ("src/lib.rs", "mod a;\n", "mod a;\n"),
            (
                "src/a.rs",
                "#[path = \"../x.rs\"]\nmod x;\n",
                "#[path = \"../x.rs\"]\nmod x;\nuse std::fmt::Write;\n",
            ),
        ]);
        assert!(moved.contains_in("Write", "src/x.rs"), "{moved:?}");
        let included = changed_in_files(&[
            (
                "src/lib.rs",
                "mod a;\ninclude!(\"a/gen.rs\");\n",
                "mod a;\ninclude!(\"a/gen.rs\");\n",
            ),
            ("src/a.rs", "", ""),
            ("src/a/gen.rs", "", "use std::fmt::Write;\n"),
        ]);
        assert!(included.contains_in("Write", "src/lib.rs"), "{included:?}");
        let name = "Other".to_string();
        let scoped = changed_in_files(&[
            ("src/lib.rs", lib, lib),
            ("src/a.rs", "", "use crate::Other;\n"),
        ]);
        assert_eq!(
            scoped.reason(&name, "src/a.rs"),
            "its lines name `Other`, which a changed private `use` of src/a.rs brings into \
             their module"
        );
    }

    /// num-bigint #353 (`nb-sqrt` of scripts/field_trial.sh): head moves `impl Roots for
    /// BigUint` out of `src/biguint.rs` into a new module, `src/biguint/roots.rs`, whose private
    /// `use super::BigUint` was taken as changing `BigUint` in every file of `src/biguint/`
    /// (base does not declare the module, so it was scoped as a possible crate root): a set-up
    /// in `src/biguint/multiplication.rs` naming `BigUint` then "differed".
    #[test]
    fn a_module_the_commit_adds_scopes_its_private_use_to_its_own_folder() {
        let lib = "pub struct BigUint;\nmod biguint;\n";
        let dir = write_checkouts(&[
            ("src/lib.rs", lib, lib),
            (
                "src/biguint.rs",
                "mod multiplication;\n",
                "mod multiplication;\nmod roots;\n",
            ),
            (
                "src/biguint/multiplication.rs",
                "fn f() {}\n",
                "fn f() {}\n",
            ),
            (
                "src/biguint/roots.rs",
                "",
                "use crate::BigUint;\nfn g() {}\n",
            ),
        ]);
        let (base, head) = (dir.path().join("base"), dir.path().join("head"));
        std::fs::remove_file(base.join("src/biguint/roots.rs")).unwrap();
        let changed = changed_names(&base, &head).unwrap();
        assert!(
            changed.contains_in("BigUint", "src/biguint/roots.rs"),
            "{changed:?}"
        );
        assert!(
            changed.contains_in("BigUint", "src/biguint/roots/inner.rs"),
            "{changed:?}"
        );
        for sibling in [
            "src/biguint/multiplication.rs",
            "src/biguint.rs",
            "src/lib.rs",
        ] {
            assert!(
                !changed.contains_in("BigUint", sibling),
                "{sibling}: {changed:?}"
            );
        }
        // A file no side declares as a module may be a crate root: its folder, as before.
        let root = changed_in_files(&[("benches/run.rs", "", "use std::fmt::Write;\n")]);
        assert!(root.contains_in("Write", "benches/other.rs"), "{root:?}");
    }

    #[test]
    fn a_changed_glob_use_marks_its_module_and_not_its_attributes() {
        let changed = changed_between("#[cfg(test)]\nuse crate::helpers::*;\n", "");
        assert!(changed.contains("helpers"), "{changed:?}");
        assert!(
            !changed.contains("test") && !changed.contains("cfg"),
            "{changed:?}"
        );
    }

    #[test]
    fn a_function_made_cold_or_inline_changes_no_name_and_a_cfg_does() {
        let base = "#[inline(never)]\npub fn rare() {}\npub fn other() {}\n";
        let head = "#[cold]\n#[inline(always)]\n#[allow(dead_code)]\npub fn rare() {}\n\
                    #[cfg(unix)]\npub fn other() {}\n";
        let changed = changed_between(base, head);
        assert!(!changed.contains("rare"), "{changed:?}");
        assert!(changed.contains("other"), "{changed:?}");
    }

    #[test]
    fn a_name_changed_through_definitions_is_traced_back_to_the_item_the_commit_changes() {
        // Field trial `facet-hash-fnv`: `push` changed through five definitions that name one
        // another, from a new `impl Default`; the reason said "the commit changes an item
        // named `push`", which no line of the commit holds.
        let dir = tempfile::tempdir().unwrap();
        let write = |side: &str, a: u32| {
            let src = dir.path().join(side).join("src");
            std::fs::create_dir_all(&src).unwrap();
            std::fs::write(src.join("lib.rs"), format!("pub const A: u32 = {a};\n")).unwrap();
            let uses = "pub const B: u32 = A * 2;\npub const C: u32 = B + 1;\n\
                        pub struct Table {\n    push: [u8; C as usize],\n}\n";
            std::fs::write(src.join("uses.rs"), uses).unwrap();
            dir.path().join(side)
        };
        let (base, head) = (write("base", 2), write("head", 3));
        let changed = changed_names(&base, &head).unwrap();
        assert_eq!(
            changed.reason("C", "src/main.rs"),
            "its lines name `C`, which the commit changes elsewhere (a definition of \
             src/uses.rs that names `B`, which changes with what it names: `B` (src/uses.rs) \
             names `A`, which the commit changes (an item of src/lib.rs))"
        );
        assert_eq!(
            changed.name_reason("push", "src/main.rs"),
            "its name `push` is one the commit changes (a definition of src/uses.rs that \
             names `C`, which changes with what it names: `C` (src/uses.rs) names `B`, \
             `B` (src/uses.rs) names `A`, which the commit changes (an item of src/lib.rs))"
        );
        // One step: as before.
        assert_eq!(
            changed.reason("B", "src/main.rs"),
            "its lines name `B`, which the commit changes elsewhere (a definition of \
             src/uses.rs that names `A`, which the commit changes)"
        );
    }

    #[test]
    fn a_constant_or_type_naming_a_changed_one_changes_with_it_in_an_unchanged_file() {
        let dir = tempfile::tempdir().unwrap();
        let write = |side: &str, a: u32, field: &str| {
            let src = dir.path().join(side).join("src");
            std::fs::create_dir_all(&src).unwrap();
            let lib =
                format!("pub const A: u32 = {a};\npub struct Inner {{\n    x: u8,{field}\n}}\n");
            std::fs::write(src.join("lib.rs"), lib).unwrap();
            let uses = "pub const B: u32 = A * 2;\npub const C: u32 = B + 1;\n\
                        pub struct Outer {\n    inner: Inner,\n}\npub const D: u8 = 1;\n";
            std::fs::write(src.join("uses.rs"), uses).unwrap();
            dir.path().join(side)
        };
        let (base, head) = (write("base", 2, ""), write("head", 3, "\n    y: u64,"));
        let changed = changed_names(&base, &head).unwrap();
        for name in ["A", "B", "C", "Inner", "Outer", "inner"] {
            assert!(changed.contains(name), "{name}: {changed:?}");
        }
        assert!(!changed.contains("D"), "{changed:?}");
        assert_eq!(
            changed.reason("B", "src/lib.rs"),
            "its lines name `B`, which the commit changes elsewhere (a definition of \
             src/uses.rs that names `A`, which the commit changes)"
        );
        // A changed `use` of `Inner` elsewhere changes no definition naming it.
        std::fs::write(
            head.join("src/lib.rs"),
            "pub const A: u32 = 2;\npub struct Inner {\n    x: u8,\n}\n",
        )
        .unwrap();
        std::fs::write(head.join("src/other.rs"), "use crate::Inner;\n").unwrap();
        let changed = changed_names(&base, &head).unwrap();
        assert!(changed.contains("Inner"), "{changed:?}");
        assert!(
            !changed.contains("Outer") && !changed.contains("B"),
            "{changed:?}"
        );
    }

    #[test]
    fn a_changed_doc_comment_or_comment_changes_no_name() {
        let base = "/// One.\n// note\nfn f() {}\n";
        let head = "/// Two.\n// other note\nfn f() {}\n";
        assert!(changed_between(base, head).is_empty());
    }

    #[test]
    fn a_file_that_does_not_parse_gives_every_name_of_its_changed_lines() {
        let base = "fn f() {\n    let to = 1;\n";
        let head = "fn f() {\n    let end = 1;\n";
        let changed = changed_between(base, head);
        assert!(
            changed.contains("to") && changed.contains("end"),
            "{changed:?}"
        );
        assert!(!changed.contains("f"), "{changed:?}");
        let name = named("    to + 1", &changed).unwrap();
        assert_eq!(
            changed.reason(&name, "src/lib.rs"),
            "its lines name `to`, which the commit changes elsewhere (a changed line of \
             src/lib.rs, which does not parse: every name on it counts)"
        );
    }
}
