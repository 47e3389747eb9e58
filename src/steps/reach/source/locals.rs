//! A function's own local bindings, which the names check does not take for changed items.
//!
//! Why: the names check ([`super::names_changed`]) says a function whose lines read the same
//! still differs when they name an item the commit changed, and it matches bare names. bstr's
//! bench function `chars` declares `let mut count = 0;`, so its lines name `count`, which
//! matched the `Chars::count` that PR #223 adds, and 111 benchmarks stayed measured for it
//! (field trial bstr-count). A name the function binds itself (a `let` pattern, a parameter, a
//! closure's parameter, a `for`, `match`, `if let` or `while let` pattern), used as a
//! one-segment path expression where that binding is in scope, is that local and no item: the
//! compiler resolves a path of one segment to the innermost local binding of that name before
//! any item. So those identifiers (the binding and its uses, by line and column) are left out
//! of the names check ([`local_positions`]); every other occurrence of the name still counts: a
//! method call `.count()`, a path `Chars::count`, a one-segment `count` no local of the
//! function's binds (a free function, a constant), a struct field written short (`S { count }`
//! names the field `count` too).
//!
//! Conservative where unsure, keeping the name counting:
//! - a pattern's plain identifier (no `mut`, `ref` or `@`) may be a constant, a unit struct or
//!   a unit variant rather than a binding (`FOO =>` in a `match`). It is taken as a binding only
//!   where a local of that name is already in scope (which the compiler resolves it to before
//!   any item, so the pattern binds anew), or in an irrefutable pattern (`let` without `else`, a
//!   parameter, a `for`) when it starts with a lower-case letter or `_`. The one case left is a
//!   lower-case unit struct or constant of a single-valued type there, which the compiler's
//!   default lints (`non_camel_case_types`, `non_upper_case_globals`) warn about;
//! - an item declared in a block (a `fn count`, a `use`) shadows the locals of the blocks
//!   around it in the whole block, and a macro called as a statement may declare any: below
//!   such a block's start, an outer local of that name (any name, for a macro) is not resolved;
//! - a macro's tokens are not parsed, so a name in them counts, except in the standard
//!   library's macros whose arguments are expressions (`assert!`, `println!`, `write!`, …: their
//!   argument `count` is the path expression `count`), when the checkout defines or imports
//!   no macro of that name anywhere and no `#[macro_use]` may bring one
//!   ([`StdMacros::of_checkout`]; a glob import of one is an error where it is called, E0659),
//!   and never in a file outside the checkout;
//! - types, const generic arguments, an array's length, a `const` block are constant contexts,
//!   where no local can be named: nothing there is resolved to a local;
//! - a file that does not parse, or whose lines are not those of the span, leaves every name
//!   counting.

use std::cell::{OnceCell, RefCell};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use proc_macro2::Ident;
use syn::punctuated::Punctuated;
use syn::visit::{self, Visit};

use super::Span;

/// Where an identifier token is in its file: its line (from 1) and its column (in characters,
/// from 0), as `proc-macro2`'s `span-locations` gives them.
pub(super) type Position = (u32, u32);

/// The positions of the identifiers of a file that are a function's local binding or a use of
/// one ([`local_positions`]).
pub(super) type Locals = BTreeSet<Position>;

/// The names the lines of `span` hold, each occurrence `locals` holds left out: what the
/// names check matches against the changed items.
pub(super) fn span_names<'s>(
    span: &'s Span,
    locals: &'s Locals,
) -> impl Iterator<Item = String> + 's {
    span.text
        .iter()
        .zip(span.first..)
        .flat_map(move |(line, number)| {
            super::identifier_columns(line)
                .filter(move |(column, _)| !locals.contains(&(number, *column)))
                .map(|(_, name)| name)
        })
}

/// One side's files' locals, each file parsed once ([`local_positions`]).
pub(super) struct LocalsCache {
    checkout: PathBuf,
    macros: OnceCell<StdMacros>,
    files: RefCell<BTreeMap<String, Rc<FileLocals>>>,
}

/// A file's lines (their ends trimmed, as a span's) and its locals.
struct FileLocals {
    lines: Vec<String>,
    locals: Rc<Locals>,
}

impl LocalsCache {
    /// The cache of the files of `checkout` (and of those outside it).
    pub(super) fn new(checkout: &Path) -> LocalsCache {
        LocalsCache {
            checkout: checkout.to_path_buf(),
            macros: OnceCell::new(),
            files: RefCell::default(),
        }
    }

    /// The locals of the file compared as `file` (its path in the checkout, or its whole
    /// path), when its lines where `span` is are the span's; none otherwise, nor for a file
    /// that cannot be read or parsed.
    pub(super) fn of(&self, file: &str, span: &Span) -> Rc<Locals> {
        let read = self.file(file);
        let first = span.first.saturating_sub(1) as usize;
        let lines = read.lines.get(first..first + span.text.len());
        match lines == Some(span.text.as_slice()) {
            true => read.locals.clone(),
            false => Rc::default(),
        }
    }

    /// The file compared as `file`, read and parsed once.
    fn file(&self, file: &str) -> Rc<FileLocals> {
        let mut files = self.files.borrow_mut();
        let entry = files.entry(file.to_string()).or_insert_with(|| {
            let path = self.checkout.join(file);
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            let macros = match path.starts_with(&self.checkout) {
                true => self
                    .macros
                    .get_or_init(|| StdMacros::of_checkout(&self.checkout)),
                false => &StdMacros::None,
            };
            Rc::new(FileLocals {
                lines: text.lines().map(|l| l.trim_end().to_string()).collect(),
                locals: Rc::new(local_positions(&text, macros)),
            })
        });
        entry.clone()
    }
}

/// The standard library's macros whose arguments are expressions, comma-separated (the
/// first of the formatting ones a string literal): the tokens `count` in `assert!(count > 0)`
/// are the path expression `count`, resolved where the macro is called.
const STD_MACROS: &[&str] = &[
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "print",
    "println",
    "eprint",
    "eprintln",
    "format",
    "format_args",
    "write",
    "writeln",
    "panic",
    "unreachable",
    "todo",
    "unimplemented",
    "dbg",
];

/// Which of [`STD_MACROS`] are the standard library's where a file is compiled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum StdMacros {
    /// None: a file outside the checkout, or a checkout where `#[macro_use]` may bring any.
    None,
    /// All but these, which the checkout defines (`macro_rules!`) or names in a `use`.
    AllBut(BTreeSet<String>),
}

impl StdMacros {
    /// The standard library's macros as the files of `checkout` see them, read by words and
    /// erring towards "not the standard library's": a `#[macro_use]` anywhere (it may bring
    /// a dependency's macros of any name, or a module's), a `macro_rules!` of the name, the
    /// name among the words of a `use` (up to its `;`). A file that cannot be read: none.
    pub(super) fn of_checkout(checkout: &Path) -> StdMacros {
        let mut files = BTreeSet::new();
        if super::rust_files(checkout, Path::new(""), &mut files).is_err() {
            return StdMacros::None;
        }
        let mut shadowed = BTreeSet::new();
        for file in files {
            let Ok(text) = std::fs::read_to_string(checkout.join(file)) else {
                return StdMacros::None;
            };
            if text.contains("macro_use") {
                return StdMacros::None;
            }
            shadowed.extend(shadowing_names(&text));
        }
        StdMacros::AllBut(shadowed)
    }

    /// Whether the macro called by `path` is the standard library's [`STD_MACROS`] one:
    /// `assert`, `std::assert`, `::core::assert`.
    fn holds(&self, path: &syn::Path) -> bool {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        let name = match segments.as_slice() {
            [name] if path.leading_colon.is_none() => name,
            [krate, name] if krate == "std" || krate == "core" => name,
            _ => return false,
        };
        match self {
            StdMacros::None => false,
            StdMacros::AllBut(shadowed) => {
                STD_MACROS.contains(&name.as_str()) && !shadowed.contains(name)
            }
        }
    }
}

/// The names of [`STD_MACROS`] that `text` defines with `macro_rules!` or names in a `use`
/// (the words from a `use` to its `;`).
fn shadowing_names(text: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for (at, _) in text.match_indices("macro_rules!") {
        let rest = text[at + "macro_rules!".len()..].trim_start();
        names.extend(super::identifiers(rest).next());
    }
    for statement in text.split(';') {
        let mut words = statement.split(|c: char| !(c.is_alphanumeric() || c == '_'));
        if words.any(|w| w == "use") {
            names.extend(words.map(str::to_string));
        }
    }
    names.retain(|n| STD_MACROS.contains(&n.as_str()));
    names
}

/// The positions of the identifiers of the file `text` that are a local binding of the
/// function around them, or a one-segment path expression resolved to one (see the module's
/// doc); empty when the file does not parse.
pub(super) fn local_positions(text: &str, macros: &StdMacros) -> Locals {
    let Ok(file) = syn::parse_file(text) else {
        proc_macro2::extra::invalidate_current_thread_spans();
        return Locals::new();
    };
    let mut resolver = Resolver {
        scopes: Vec::new(),
        positions: Locals::new(),
        macros,
    };
    resolver.visit_file(&file);
    // The positions are read: free the text `span-locations` keeps for them.
    proc_macro2::extra::invalidate_current_thread_spans();
    resolver.positions
}

/// What a name in scope is, innermost last in its block.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Binding {
    /// A local binding of this name.
    Local(String),
    /// An item of this name declared in the block: it shadows the locals around the block.
    Item(String),
    /// A macro called as a statement in the block: it may declare an item of any name.
    Opaque,
}

/// How a pattern binds: irrefutable (`let` without `else`, a parameter, a `for`) or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Refutable {
    No,
    Yes,
}

/// Walks a file's functions with their scopes, recording where a local is bound or used.
struct Resolver<'m> {
    /// The scopes of the function being walked, innermost last; empty outside a function.
    scopes: Vec<Vec<Binding>>,
    positions: Locals,
    macros: &'m StdMacros,
}

impl Resolver<'_> {
    /// Whether the one-segment path `name` resolves to a local here.
    fn is_local(&self, name: &str) -> bool {
        for binding in self.scopes.iter().flat_map(|s| s.iter()).rev() {
            match binding {
                Binding::Local(n) if n == name => return true,
                Binding::Item(n) if n == name => return false,
                Binding::Opaque => return false,
                _ => {}
            }
        }
        false
    }

    /// Records `ident`'s position as a local's.
    fn mark(&mut self, ident: &Ident) {
        let start = ident.span().start();
        if let (Ok(line), Ok(column)) = (u32::try_from(start.line), u32::try_from(start.column)) {
            self.positions.insert((line, column));
        }
    }

    /// Binds `name` in the innermost scope.
    fn bind(&mut self, name: &Ident) {
        if let Some(scope) = self.scopes.last_mut() {
            scope.push(Binding::Local(name.to_string()));
        }
    }

    /// Runs `walk` in a scope of its own, starting with `bindings`.
    fn scoped(&mut self, bindings: Vec<Binding>, walk: impl FnOnce(&mut Self)) {
        self.scopes.push(bindings);
        walk(self);
        self.scopes.pop();
    }

    /// Runs `walk` where no local of the code around is in scope: an item, a constant context.
    fn apart(&mut self, walk: impl FnOnce(&mut Self)) {
        let outer = std::mem::take(&mut self.scopes);
        walk(self);
        self.scopes = outer;
    }

    /// A function's parameters bound in a scope of their own, then its body walked.
    fn function<'a>(&mut self, inputs: impl Iterator<Item = &'a syn::FnArg>, body: &syn::Block) {
        self.apart(|this| {
            this.scoped(Vec::new(), |this| {
                for input in inputs {
                    if let syn::FnArg::Typed(typed) = input {
                        this.pattern(&typed.pat, Refutable::No);
                    }
                }
                this.visit_block(body);
            });
        });
    }

    /// Binds the names `pat` binds (see the module's doc for a plain identifier), recording
    /// their positions; a struct field written short binds without its position, which names
    /// the field too. The paths, literals and ranges of a pattern are not walked.
    fn pattern(&mut self, pat: &syn::Pat, refutable: Refutable) {
        use syn::Pat;
        match pat {
            Pat::Ident(p) => self.ident_pattern(p, refutable, true),
            Pat::Or(p) => p.cases.iter().for_each(|c| self.pattern(c, refutable)),
            Pat::Paren(p) => self.pattern(&p.pat, refutable),
            Pat::Reference(p) => self.pattern(&p.pat, refutable),
            Pat::Slice(p) => p.elems.iter().for_each(|e| self.pattern(e, refutable)),
            Pat::Tuple(p) => p.elems.iter().for_each(|e| self.pattern(e, refutable)),
            Pat::TupleStruct(p) => p.elems.iter().for_each(|e| self.pattern(e, refutable)),
            Pat::Type(p) => self.pattern(&p.pat, refutable),
            Pat::Struct(p) => {
                for field in &p.fields {
                    match (&field.colon_token, &*field.pat) {
                        (None, Pat::Ident(ident)) => self.ident_pattern(ident, refutable, false),
                        _ => self.pattern(&field.pat, refutable),
                    }
                }
            }
            Pat::Guard(p) => {
                self.pattern(&p.pat, refutable);
                self.visit_expr(&p.guard);
            }
            _ => {}
        }
    }

    /// An identifier pattern: a binding when it has `mut`, `ref` or `@`, or when a local of
    /// its name is in scope, or, irrefutable, when it starts lower-case; else it may be a
    /// constant, and binds nothing here. `marked`: whether its position is recorded.
    fn ident_pattern(&mut self, p: &syn::PatIdent, refutable: Refutable, marked: bool) {
        let name = p.ident.to_string();
        let lower = name.starts_with(|c: char| c.is_lowercase() || c == '_');
        let binds = p.by_ref.is_some()
            || p.mutability.is_some()
            || p.subpat.is_some()
            || self.is_local(&name)
            || (refutable == Refutable::No && lower);
        if let Some((_, subpat)) = &p.subpat {
            self.pattern(subpat, refutable);
        }
        if binds {
            if marked {
                self.mark(&p.ident);
            }
            self.bind(&p.ident);
        }
    }

    /// The items a block declares, and what may declare any: a macro called as a statement, a
    /// glob import, an item without a name to tell.
    fn block_items(&self, block: &syn::Block) -> Vec<Binding> {
        let mut bindings = Vec::new();
        for stmt in &block.stmts {
            match stmt {
                syn::Stmt::Item(syn::Item::Use(u)) => {
                    let mut names = Vec::new();
                    match use_names(&u.tree, &mut names) {
                        true => bindings.extend(names.into_iter().map(Binding::Item)),
                        false => bindings.push(Binding::Opaque),
                    }
                }
                syn::Stmt::Item(syn::Item::Impl(_)) => {}
                syn::Stmt::Item(item) => match item_name(item) {
                    Some(name) => bindings.push(Binding::Item(name)),
                    None => bindings.push(Binding::Opaque),
                },
                syn::Stmt::Macro(m) if !self.macros.holds(&m.mac.path) => {
                    bindings.push(Binding::Opaque)
                }
                _ => {}
            }
        }
        bindings
    }

    /// The arguments of a standard library macro call walked as expressions; any other
    /// macro's tokens are left as they are.
    fn mac(&mut self, mac: &syn::Macro) {
        if !self.macros.holds(&mac.path) {
            return;
        }
        let parser = Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated;
        if let Ok(arguments) = mac.parse_body_with(parser) {
            arguments.iter().for_each(|a| self.visit_expr(a));
        }
    }
}

/// The name a block's item declares, `None` when it has none to tell (a macro, a foreign
/// block, verbatim tokens): that may declare any.
fn item_name(item: &syn::Item) -> Option<String> {
    use syn::Item;
    let ident = match item {
        Item::Const(i) => &i.ident,
        Item::Enum(i) => &i.ident,
        Item::ExternCrate(i) => i.rename.as_ref().map_or(&i.ident, |(_, r)| r),
        Item::Fn(i) => &i.sig.ident,
        Item::Mod(i) => &i.ident,
        Item::Static(i) => &i.ident,
        Item::Struct(i) => &i.ident,
        Item::Trait(i) => &i.ident,
        Item::Type(i) => &i.ident,
        Item::Union(i) => &i.ident,
        _ => return None,
    };
    Some(ident.to_string())
}

/// The names a `use` tree brings in; `false` when it has a glob, which may bring any.
fn use_names(tree: &syn::UseTree, names: &mut Vec<String>) -> bool {
    match tree {
        syn::UseTree::Path(p) => use_names(&p.tree, names),
        syn::UseTree::Name(n) => {
            names.push(n.ident.to_string());
            true
        }
        syn::UseTree::Rename(r) => {
            names.push(r.rename.to_string());
            true
        }
        syn::UseTree::Glob(_) => false,
        syn::UseTree::Group(g) => g.items.iter().all(|t| use_names(t, names)),
    }
}

impl<'ast> Visit<'ast> for Resolver<'_> {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        self.apart(|this| visit::visit_item(this, item));
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.function(f.sig.inputs.iter(), &f.block);
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.function(f.sig.inputs.iter(), &f.block);
    }

    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        if let Some(body) = &f.default {
            self.function(f.sig.inputs.iter(), body);
        }
    }

    fn visit_block(&mut self, block: &'ast syn::Block) {
        let items = self.block_items(block);
        self.scoped(items, |this| {
            block.stmts.iter().for_each(|s| this.visit_stmt(s));
        });
    }

    fn visit_local(&mut self, local: &'ast syn::Local) {
        let refutable = match &local.init {
            Some(init) => {
                self.visit_expr(&init.expr);
                if let Some((_, diverge)) = &init.diverge {
                    self.visit_expr(diverge);
                    Refutable::Yes
                } else {
                    Refutable::No
                }
            }
            None => Refutable::No,
        };
        self.pattern(&local.pat, refutable);
    }

    fn visit_expr_closure(&mut self, closure: &'ast syn::ExprClosure) {
        self.scoped(Vec::new(), |this| {
            closure
                .inputs
                .iter()
                .for_each(|p| this.pattern(p, Refutable::No));
            this.visit_expr(&closure.body);
        });
    }

    fn visit_expr_for_loop(&mut self, for_loop: &'ast syn::ExprForLoop) {
        self.visit_expr(&for_loop.expr);
        self.scoped(Vec::new(), |this| {
            this.pattern(&for_loop.pat, Refutable::No);
            this.visit_block(&for_loop.body);
        });
    }

    fn visit_expr_match(&mut self, m: &'ast syn::ExprMatch) {
        self.visit_expr(&m.expr);
        for arm in &m.arms {
            self.scoped(Vec::new(), |this| {
                this.pattern(&arm.pat, Refutable::Yes);
                this.visit_expr(&arm.body);
            });
        }
    }

    fn visit_expr_if(&mut self, e: &'ast syn::ExprIf) {
        self.scoped(Vec::new(), |this| {
            this.visit_expr(&e.cond);
            this.visit_block(&e.then_branch);
        });
        if let Some((_, otherwise)) = &e.else_branch {
            self.visit_expr(otherwise);
        }
    }

    fn visit_expr_while(&mut self, e: &'ast syn::ExprWhile) {
        self.scoped(Vec::new(), |this| {
            this.visit_expr(&e.cond);
            this.visit_block(&e.body);
        });
    }

    fn visit_expr_let(&mut self, e: &'ast syn::ExprLet) {
        self.visit_expr(&e.expr);
        self.pattern(&e.pat, Refutable::Yes);
    }

    fn visit_expr_path(&mut self, e: &'ast syn::ExprPath) {
        let path = &e.path;
        if let (None, None, Some(segment), 1) = (
            &e.qself,
            &path.leading_colon,
            path.segments.first(),
            path.segments.len(),
        ) && segment.arguments.is_none()
            && self.is_local(&segment.ident.to_string())
        {
            self.mark(&segment.ident);
        }
    }

    fn visit_field_value(&mut self, field: &'ast syn::FieldValue) {
        // `S { count }` names the field `count` with the same token: not left out.
        if field.colon_token.is_some() {
            self.visit_expr(&field.expr);
        }
    }

    fn visit_expr_repeat(&mut self, e: &'ast syn::ExprRepeat) {
        // The length is a constant context.
        self.visit_expr(&e.expr);
    }

    fn visit_expr_const(&mut self, e: &'ast syn::ExprConst) {
        self.apart(|this| visit::visit_expr_const(this, e));
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.mac(mac);
    }

    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {
        // No local is named in an attribute.
    }

    fn visit_pat(&mut self, _: &'ast syn::Pat) {
        // Patterns are bound where they are met ([`Resolver::pattern`]); one met elsewhere
        // binds nothing and is not walked.
    }

    fn visit_type(&mut self, _: &'ast syn::Type) {
        // A constant context: no local is named there.
    }

    fn visit_generic_argument(&mut self, _: &'ast syn::GenericArgument) {
        // A type or a constant context.
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::write_checkouts;
    use super::super::{ChangedNames, changed_names, names_changed};
    use super::*;

    /// The library both checkouts hold: head adds `Chars::count` (bstr #223), changes the
    /// constant `COUNT` and the free function `total`.
    const BASE: &str = "pub struct Chars;\nimpl Chars {\n    pub fn next(&self) {}\n}\n\
                        pub const COUNT: u32 = 1;\npub fn total() -> u32 { 1 }\n";
    const HEAD: &str = "pub struct Chars;\nimpl Chars {\n    pub fn next(&self) {}\n    \
                        pub fn count(self) -> usize { 0 }\n}\npub const COUNT: u32 = 2;\n\
                        pub fn total() -> u32 { 2 }\n";

    /// The changed name that `function` of the bench file `bench` (the same on both sides)
    /// names, its locals left out as a run leaves them ([`LocalsCache`]); the function's lines
    /// run from its `fn` to the next line `}`. `extra`: more files of both checkouts.
    fn named_with(bench: &str, function: &str, extra: &[(&str, &str, &str)]) -> Option<String> {
        let mut files = vec![
            ("src/lib.rs", BASE, HEAD),
            ("bench/src/bench.rs", bench, bench),
        ];
        files.extend_from_slice(extra);
        let dir = write_checkouts(&files);
        let (base, head) = (dir.path().join("base"), dir.path().join("head"));
        let changed: ChangedNames = changed_names(&base, &head).unwrap();
        let lines: Vec<String> = bench.lines().map(str::to_string).collect();
        let start = lines
            .iter()
            .position(|l| l.contains(&format!("fn {function}(")))
            .unwrap();
        let end = start + lines[start..].iter().position(|l| l == "}").unwrap();
        let span = Span {
            first: start as u32 + 1,
            text: lines[start..=end].to_vec(),
        };
        let cache = LocalsCache::new(&head);
        let file = "bench/src/bench.rs".to_string();
        let found = names_changed([(&file, &span)], &changed, &|f, s| cache.of(f, s));
        found.map(|(name, _)| name)
    }

    /// [`named_with`] without more files.
    fn named(bench: &str, function: &str) -> Option<String> {
        named_with(bench, function, &[])
    }

    /// bstr's bench function `chars`, as it reads in bstr's `bench/src/bench.rs`.
    const CHARS: &str = "fn chars(c: &mut Criterion) {\n    define(c, \"chars\", |b| {\n        \
                         b.iter(|| {\n            let mut count = 0;\n            for ch in \
                         CORPUS.chars() {\n                count += ch.len_utf8();\n            \
                         }\n            assert!(count > 0);\n        });\n    });\n}\n";

    #[test]
    fn a_local_binding_is_not_the_changed_item_of_its_name() {
        assert_eq!(named(CHARS, "chars"), None);
        // Shadowed later: each use is the local in scope where it is.
        let shadowed = "fn f(c: Chars) -> usize {\n    let count = 1;\n    let count = count + 1;\n    \
                        let add = |count: usize| count * 2;\n    add(count)\n}\n";
        assert_eq!(named(shadowed, "f"), None);
        let parameters = "fn f(count: usize) -> usize {\n    let add = |total: usize| total + 1;\n    \
                          for k in 0..count {\n        let _ = add(k);\n    }\n    \
                          match Some(count) {\n        Some(mut count) => count += 1,\n        \
                          None => {}\n    }\n    if let Some(ref count) = Some(1) {\n        \
                          println!(\"{}\", count);\n    }\n    count\n}\n";
        assert_eq!(named(parameters, "f"), None);
    }

    #[test]
    fn a_method_call_or_a_path_of_the_changed_name_still_counts() {
        let method = "fn f(s: &str) -> usize {\n    let mut count = 0;\n    count += \
                      s.chars().count();\n    count\n}\n";
        assert_eq!(named(method, "f").as_deref(), Some("count"));
        let path =
            "fn f(c: Chars) -> usize {\n    let count = 1;\n    count + Chars::count(c)\n}\n";
        assert_eq!(named(path, "f").as_deref(), Some("count"));
    }

    #[test]
    fn a_name_no_local_binds_still_counts() {
        // A free function, a constant of that name: not shadowed.
        let call = "fn f() -> u32 {\n    let n = 1;\n    n + total()\n}\n";
        assert_eq!(named(call, "f").as_deref(), Some("total"));
        // Its own initialiser is before the binding; a block's end ends it.
        let init = "fn f() -> u32 {\n    let total = total();\n    total\n}\n";
        assert_eq!(named(init, "f").as_deref(), Some("total"));
        let ended = "fn f() -> u32 {\n    {\n        let total = 1;\n        let _ = total;\n    \
                     }\n    total()\n}\n";
        assert_eq!(named(ended, "f").as_deref(), Some("total"));
        // An item of a block shadows the locals around it, a statement macro may declare one.
        let item = "fn f() -> u32 {\n    let total = 1;\n    {\n        use crate::total;\n        \
                    total()\n    }\n}\n";
        assert_eq!(named(item, "f").as_deref(), Some("total"));
        let mac = "fn f() -> u32 {\n    let total = 1;\n    {\n        make!();\n        \
                   total\n    }\n}\n";
        assert_eq!(named(mac, "f").as_deref(), Some("total"));
        // Used before a later `let` shadows it: the item then, the local after.
        let later = "fn f() -> u32 {\n    let n = total();\n    let total = 2;\n    n + total\n}\n";
        assert_eq!(named(later, "f").as_deref(), Some("total"));
        // A function declared inside sees no local of the one around it.
        let nested = "fn f() -> u32 {\n    let total = 1;\n    fn g() -> u32 {\n        \
                      total()\n    }\n    g() + total\n}\n";
        assert_eq!(named(nested, "f").as_deref(), Some("total"));
        // A field written short names the field too.
        let field = "fn f() -> S {\n    let count = 1;\n    S { count }\n}\n";
        assert_eq!(named(field, "f").as_deref(), Some("count"));
    }

    #[test]
    fn a_pattern_that_may_name_a_constant_still_counts() {
        let constant = "fn f(n: u32) -> u32 {\n    match n {\n        COUNT => 1,\n        \
                        _ => 0,\n    }\n}\n";
        assert_eq!(named(constant, "f").as_deref(), Some("COUNT"));
        // Refutable and lower-case with no local of its name: a constant's pattern maybe.
        let lower = "fn f(n: Option<usize>) -> usize {\n    match n {\n        Some(count) => \
                     count,\n        None => 0,\n    }\n}\n";
        assert_eq!(named(lower, "f").as_deref(), Some("count"));
        // Irrefutable upper-case: maybe a unit struct's or a constant's.
        let upper = "fn f(COUNT: u32) -> u32 {\n    COUNT\n}\n";
        assert_eq!(named(upper, "f").as_deref(), Some("COUNT"));
    }

    #[test]
    fn a_macro_s_tokens_count_unless_the_standard_library_s_macro_is_called() {
        let unknown = "fn f() -> usize {\n    let count = 1;\n    check!(count);\n    0\n}\n";
        assert_eq!(named(unknown, "f").as_deref(), Some("count"));
        let own = "macro_rules! assert {\n    ($e:ident) => {};\n}\n";
        let shadowed = [("src/own.rs", own, own)];
        assert_eq!(
            named_with(CHARS, "chars", &shadowed).as_deref(),
            Some("count")
        );
        let imported = "use other::assert;\n";
        let shadowed = [("src/own.rs", imported, imported)];
        assert_eq!(
            named_with(CHARS, "chars", &shadowed).as_deref(),
            Some("count")
        );
        let macro_use = "#[macro_use]\nextern crate other;\n";
        let any = [("src/own.rs", macro_use, macro_use)];
        assert_eq!(named_with(CHARS, "chars", &any).as_deref(), Some("count"));
    }

    #[test]
    fn lines_that_are_not_the_file_s_leave_every_name_counting() {
        let dir = write_checkouts(&[("src/lib.rs", CHARS, CHARS)]);
        let cache = LocalsCache::new(&dir.path().join("head"));
        let lines: Vec<String> = CHARS.lines().map(str::to_string).collect();
        let at = |first: u32| Span {
            first,
            text: lines.clone(),
        };
        assert!(!cache.of("src/lib.rs", &at(1)).is_empty());
        assert!(cache.of("src/lib.rs", &at(2)).is_empty());
        assert!(cache.of("src/missing.rs", &at(1)).is_empty());
    }
}
