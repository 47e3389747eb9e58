//! Functions made by an item-level macro call, criterion's `criterion_group!` and
//! `criterion_main!` first, compared by the call that makes them.
//!
//! Why: a pull request that adds a benchmark adds a group to `criterion_main!(g1, …, g14)` and
//! a `criterion_group!(g15, new)` beside the others (field trial bstr-count,
//! docs/design/field-trials.md). Such a call is not a `fn` item: until this, a changed one
//! changed every name in its tokens ([`super::changed_names`]), and the new group's call made
//! `criterion_group` itself a changed name, so every group's function (its lines are its own
//! call's) differed by its name check, and `criterion_main!`'s made every group's name
//! change too.
//!
//! What criterion's two macros define is known: `criterion_group!(NAME, targets…)` and
//! `criterion_group! { name = NAME; config = …; targets = … }` define `pub fn NAME()`, which
//! calls the targets in order with the configuration; `criterion_main!(groups…)` defines
//! `fn main()`, which calls the groups in order and then criterion's `final_summary`. The
//! macros are the criterion package's, a dependency's, the same text on both sides when its
//! version is (its other functions, compared by their whole path, name the version). So a
//! changed call of them changes the one function it defines ([`defines`]): its name is the
//! changed name, and the names the call only uses (its targets, its groups, the macro's own)
//! are not changed by it; each of those is compared where it is defined. Only when the file
//! brings the macro from a criterion package ([`CriterionMacros::of`]: a `use` of it, a glob
//! `use` of the crate, `#[macro_use] extern crate`, or a call by its path): a macro of the
//! checkout of the same name could define anything, and its calls keep naming all their
//! tokens. Inline modules do not inherit the file's imports here (their calls name all their
//! tokens, as before).
//!
//! The other half ([`invocation_difference`]): with criterion's macros (a dependency's,
//! collapsed into the call's lines), every row of a group's function is at its call's first
//! line, so its span of lines may be one line: a target added on a later line of a
//! `criterion_group! { … }` would leave the span the same and the defined name off it. So a
//! function whose lines lie in an item-level macro call, any macro's, is the same only when the
//! other side holds a call of the same tokens in the same file (its lines may have moved): the
//! same call of the same macro expands to the same items. Sound in one direction: stricter
//! than the spans alone.
//!
//! One exception ([`appends`]): `criterion_main!`'s call whose list the other side extends at
//! its end (`criterion_main!(g1, …, g14)` → `(g1, …, g14, g15)`) is the same *up to every
//! benchmark both sides have*, and is
//! compared as such ([`SourceComparison::SameApart`], with a note). `main` calls the groups in
//! order and then `final_summary`; a group builds its configuration and calls its targets in
//! order. A benchmark both sides have runs in base inside one of base's items, all of which
//! head calls at the same positions after the same ones (or the reverse, for a list head
//! shortens); so until its samples are taken both sides have made the same calls, each
//! compared in its own right where it ran (a group's function, a target's set-up). What the
//! extra items do runs after its samples, which cannot change them (`trace::split`'s module
//! docs: a benchmark's trace holds only what ran before its own part, so the new group's
//! function is not in it). Not a group's targets: a target appended to group `g` runs after
//! `g`'s benchmarks but before those of every group after `g`, whose traces hold `g`'s
//! function (it ran before them) and would take it as the same. A benchmark moved into the new group changes the function that
//! held it, which keeps it measured. When the groups are inlined into `main` (no symbol of
//! their own), main's spans on one side hold the new group's frames, which the other side has
//! not: [`super::made_by_call`] leaves the appended groups' inlined code out of `main`'s
//! places, and compares a `main` whose own lines are criterion's (not collapsed into the
//! call) by its call.

use super::{Apart, ItemLines, SourceComparison};

/// The crates whose `criterion_group!` and `criterion_main!` are criterion's (criterion, and
/// its forks that keep its macros).
pub(super) const CRITERION_CRATES: &[&str] =
    &["criterion", "criterion2", "codspeed_criterion_compat"];

/// Which of criterion's harness macros a file brings into scope by their bare names.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct CriterionMacros {
    group: bool,
    main: bool,
}

impl CriterionMacros {
    /// The macros `file` imports from a criterion package at its top level.
    pub(super) fn of(file: &syn::File) -> Self {
        let mut found = CriterionMacros::default();
        for item in &file.items {
            match item {
                syn::Item::Use(u) => found.uses(&u.tree, false),
                syn::Item::ExternCrate(c)
                    if CRITERION_CRATES.contains(&c.ident.to_string().as_str())
                        && c.attrs.iter().any(|a| a.path().is_ident("macro_use")) =>
                {
                    found = CriterionMacros {
                        group: true,
                        main: true,
                    };
                }
                _ => {}
            }
        }
        // A macro of the same name defined here would be the one called.
        for item in &file.items {
            if let syn::Item::Macro(m) = item
                && let Some(ident) = &m.ident
            {
                found.group &= ident != "criterion_group";
                found.main &= ident != "criterion_main";
            }
        }
        found
    }

    /// Records what a `use` tree imports; `inside`: its path so far starts at a criterion
    /// crate.
    fn uses(&mut self, tree: &syn::UseTree, inside: bool) {
        use syn::UseTree;
        match tree {
            UseTree::Path(p) if !inside => {
                let name = p.ident.to_string();
                let crate_name = name.as_str();
                if CRITERION_CRATES.contains(&crate_name) {
                    self.uses(&p.tree, true);
                }
            }
            UseTree::Name(n) if inside => self.name(&n.ident.to_string()),
            UseTree::Rename(r) if inside && r.ident == r.rename => self.name(&r.ident.to_string()),
            UseTree::Glob(_) if inside => {
                self.group = true;
                self.main = true;
            }
            UseTree::Group(g) => g.items.iter().for_each(|t| self.uses(t, inside)),
            _ => {}
        }
    }

    fn name(&mut self, name: &str) {
        self.group |= name == "criterion_group";
        self.main |= name == "criterion_main";
    }

    /// The name of the function the item-level call `call` defines, when it is a call of
    /// criterion's `criterion_group!` (its `NAME`) or `criterion_main!` (`main`) as this file
    /// brings them (by their bare names), or by a criterion crate's path.
    pub(super) fn defines(&self, call: &syn::ItemMacro) -> Option<String> {
        if call.ident.is_some() {
            return None;
        }
        let segments: Vec<String> = call
            .mac
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        let (macro_name, known) = match &segments[..] {
            [name] => (name.as_str(), *self),
            [krate, name] if CRITERION_CRATES.contains(&krate.as_str()) => (
                name.as_str(),
                CriterionMacros {
                    group: true,
                    main: true,
                },
            ),
            _ => return None,
        };
        match macro_name {
            "criterion_main" if known.main => Some("main".to_string()),
            "criterion_group" if known.group => group_name(&call.mac.tokens),
            _ => None,
        }
    }
}

/// The `NAME` of `criterion_group!`'s tokens: `NAME, targets…` or `name = NAME; …`.
fn group_name(tokens: &proc_macro2::TokenStream) -> Option<String> {
    use proc_macro2::TokenTree;
    let trees: Vec<TokenTree> = tokens.clone().into_iter().take(3).collect();
    match &trees[..] {
        [
            TokenTree::Ident(key),
            TokenTree::Punct(eq),
            TokenTree::Ident(name),
        ] if key == "name" && eq.as_char() == '=' => Some(name.to_string()),
        [TokenTree::Ident(name), TokenTree::Punct(comma), ..] if comma.as_char() == ',' => {
            Some(name.to_string())
        }
        _ => None,
    }
}

/// Whether the item of `item` is a macro call (`path ! (…)`, `path ! {…}`, `path ! […]`), by its
/// text ([`super::text`]: tokens separated by spaces, doc comments and hints left out).
fn is_macro_call(item: &ItemLines) -> bool {
    if !item.key.ends_with(&format!("item {}", item.text)) {
        return false;
    }
    let mut words = item.text.split(' ');
    let mut path = false;
    for word in words.by_ref() {
        match word {
            "!" => return path,
            ":" | "::" => {}
            w if w.chars().all(|c| c.is_alphanumeric() || c == '_') && !w.is_empty() => {
                path = true;
            }
            _ => return false,
        }
    }
    false
}

/// For the spans gathered in `apart`'s pools: the reason a function differs when one of its
/// spans in a file of the checkout lies in an item-level macro call that the other side's file
/// does not hold with the same tokens (module docs); a note when that call is criterion's and
/// the other side's only appends groups or targets to its list ([`appends`]); `Ok(None)` when
/// no span lies in a call that differs. A file that cannot be read or parsed is unknown.
pub(super) fn invocation_difference(
    apart: &Apart<'_, '_>,
) -> Result<Option<String>, SourceComparison> {
    let mut note = None;
    for side in [0, 1] {
        for ((file, function), spans) in &apart.pools[side] {
            if std::path::Path::new(file).is_absolute() {
                continue;
            }
            let items = |s: usize| apart.readers[s].items(file);
            let (own, other) = match (items(side), items(1 - side)) {
                (Ok(own), Ok(other)) => (own, other),
                (Err(why), _) | (_, Err(why)) => return Err(SourceComparison::Unknown(why)),
            };
            for span in spans {
                let last = span.first + (span.text.len() as u32).saturating_sub(1);
                let Some(call) = call_not_in(&own, &other, (span.first, last)) else {
                    continue;
                };
                let known = [side, 1 - side].map(|s| macros_of(apart, s, file));
                let extended = other.iter().find(|o| appends(known, &call.text, &o.text));
                if extended.is_some() {
                    note = Some(format!(
                        "`{}` is criterion's call at {file}:{}, whose list one side only extends                          at its end: the same up to every benchmark both sides have",
                        super::short_name(function),
                        call.first
                    ));
                    continue;
                }
                return Err(SourceComparison::Differs(format!(
                    "{function} is made by the macro call at {file}:{} in {}, which {} does not \
                     hold with the same tokens",
                    call.first,
                    super::SIDES[side],
                    super::SIDES[1 - side]
                )));
            }
        }
    }
    Ok(note)
}

/// criterion's macros as the file compared as `file` on `side` brings them (none when it
/// cannot be read or parsed).
fn macros_of(apart: &Apart<'_, '_>, side: usize, file: &str) -> CriterionMacros {
    let path = apart.readers[side].checkout.join(file);
    let parsed = std::fs::read_to_string(path)
        .ok()
        .and_then(|text| syn::parse_file(&text).ok());
    parsed.map_or_else(CriterionMacros::default, |f| CriterionMacros::of(&f))
}

/// Whether the call texts `a` (in a file bringing `known[0]`) and `b` (`known[1]`) are the same
/// call of criterion's `criterion_main!` but that one's list goes on past the other's end:
/// `criterion_main!(g1, g2)` and `criterion_main!(g1, g2, g3)`. `main` calls its groups in
/// order, then `final_summary`: up to the shorter list's end both compute the same, and a
/// benchmark both sides have is measured inside one of the common groups. What runs after its
/// samples cannot change them (`trace::split`'s module docs). Never a group's targets
/// ([`is_main_call`]).
pub(super) fn appends(known: [CriterionMacros; 2], a: &str, b: &str) -> bool {
    let (Some(a), Some(b)) = (criterion_call(known[0], a), criterion_call(known[1], b)) else {
        return false;
    };
    if a.0 != b.0 || a.2 != b.2 || !is_main_call(a.0) {
        return false;
    }
    let list = |inner: &str| inner.trim().trim_end_matches(',').trim_end().to_string();
    let (short, long) = match list(a.1).len() <= list(b.1).len() {
        true => (list(a.1), list(b.1)),
        false => (list(b.1), list(a.1)),
    };
    long.len() > short.len()
        && long.starts_with(&short)
        && long[short.len()..].trim_start().starts_with(',')
}

/// Whether a call's opening (`criterion_main ! (`, `criterion :: criterion_main ! {`) is
/// `criterion_main!`'s. Only `main`'s list: a group's targets run before every later group's
/// benchmarks, so a target appended to one group runs before those (a new target's set-up that
/// configures a global thread pool would change them).
fn is_main_call(opening: &str) -> bool {
    let path = opening
        .split('!')
        .next()
        .unwrap_or_default()
        .replace(' ', "");
    path.rsplit("::").next() == Some("criterion_main")
}

/// A call's text split as opening (its path, `!` and delimiter), list and closing, when it is
/// a call of criterion's `criterion_main!` or `criterion_group!` as `known` says the file
/// brings them, or by a criterion crate's path.
pub(super) fn criterion_call(known: CriterionMacros, text: &str) -> Option<(&str, &str, &str)> {
    let text = text.trim();
    let bang = text.find(" ! ")?;
    let path = text[..bang].replace(' ', "");
    let name = path.rsplit("::").next()?;
    let by_path = path
        .split_once("::")
        .is_some_and(|(krate, rest)| CRITERION_CRATES.contains(&krate) && !rest.contains("::"));
    let ok = match name {
        "criterion_main" => known.main || by_path,
        "criterion_group" => known.group || by_path,
        _ => false,
    };
    let open = bang + " ! ".len() + 1;
    let close = text.rfind([')', '}', ']'])?;
    (ok && open <= close).then(|| (&text[..open], &text[open..close], &text[close..]))
}

/// The item-level macro call of `own` that holds the lines `first` to `last`, when `other`
/// holds no call of the same tokens.
fn call_not_in<'i>(
    own: &'i [ItemLines],
    other: &[ItemLines],
    (first, last): (u32, u32),
) -> Option<&'i ItemLines> {
    let call = super::innermost(own, first, last)?;
    let same = other.iter().any(|i| i.text == call.text);
    (is_macro_call(call) && !same).then_some(call)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn macros(text: &str) -> CriterionMacros {
        CriterionMacros::of(&syn::parse_file(text).unwrap())
    }

    fn defined(known: CriterionMacros, call: &str) -> Option<String> {
        known.defines(&syn::parse_str::<syn::ItemMacro>(call).unwrap())
    }

    #[test]
    fn criterion_s_macros_define_their_group_and_main_where_the_file_brings_them() {
        let both = macros("use criterion::{criterion_group, criterion_main, Criterion};");
        assert_eq!(
            defined(both, "criterion_group!(g15, chars_count);"),
            Some("g15".into())
        );
        assert_eq!(
            defined(
                both,
                "criterion_group! { name = benches; config = Criterion::default(); targets = a, b }"
            ),
            Some("benches".into())
        );
        assert_eq!(
            defined(both, "criterion_main!(g1, g2, g15);"),
            Some("main".into())
        );
        // Brought otherwise: a glob, `#[macro_use]`, or called by its path.
        let glob = macros("use criterion::*;");
        assert_eq!(defined(glob, "criterion_main!(g);"), Some("main".into()));
        let old = macros("#[macro_use] extern crate criterion;");
        assert_eq!(defined(old, "criterion_group!(g, a);"), Some("g".into()));
        let none = macros("use std::fmt;");
        assert_eq!(
            defined(none, "criterion::criterion_group!(g, a);"),
            Some("g".into())
        );
        // Not criterion's: not imported, another crate's, the file's own macro of that name,
        // another macro.
        assert_eq!(defined(none, "criterion_group!(g, a);"), None);
        let other = macros("use divan::criterion_group;");
        assert_eq!(defined(other, "criterion_group!(g, a);"), None);
        let own = macros(
            "use criterion::criterion_group;\nmacro_rules! criterion_group { ($($t:tt)*) => {} }",
        );
        assert_eq!(defined(own, "criterion_group!(g, a);"), None);
        assert_eq!(
            defined(both, "lazy_static! { static ref X: u8 = 1; }"),
            None
        );
        assert_eq!(defined(both, "criterion_group!();"), None);
    }

    #[test]
    fn a_criterion_call_changes_the_name_it_defines_and_none_it_only_uses() {
        let base = "use criterion::{criterion_group, criterion_main};\n\
                    fn a(c: &mut Criterion) {}\n\
                    criterion_group!(g1, a);\n\
                    criterion_main!(g1);\n";
        let head = "use criterion::{criterion_group, criterion_main};\n\
                    fn a(c: &mut Criterion) {}\n\
                    fn b(c: &mut Criterion) {}\n\
                    criterion_group!(g1, a);\n\
                    criterion_group!(g2, b);\n\
                    criterion_main!(g1, g2);\n";
        let changes = super::super::changed_items(base, head, |file| file).unwrap();
        let names: Vec<&String> = changes.names.iter().collect();
        assert_eq!(names, ["b", "g2", "main"]);
        // A macro the file does not bring from criterion: every name of its changed call.
        let (base, head) = (
            base.replace("use criterion::{criterion_group, criterion_main};", ""),
            head.replace("use criterion::{criterion_group, criterion_main};", ""),
        );
        let changes = super::super::changed_items(&base, &head, |file| file).unwrap();
        for name in ["criterion_group", "criterion_main", "g1", "g2", "b"] {
            assert!(changes.names.contains(name), "{name}: {:?}", changes.names);
        }
    }

    #[test]
    fn a_macro_call_is_told_by_its_text() {
        let item = |key: &str, text: &str| ItemLines {
            key: key.to_string(),
            first: 1,
            last: 1,
            text: text.to_string(),
        };
        let text = |source: &str| super::super::text(&syn::parse_str::<syn::Item>(source).unwrap());
        let call = text("criterion_group!(g1, a);");
        assert!(is_macro_call(&item(&format!("item {call}"), &call)));
        let path = text("criterion::criterion_main! { g1 }");
        assert!(is_macro_call(&item(&format!("m::item {path}"), &path)));
        let function = text("fn g1() {}");
        assert!(!is_macro_call(&item("fn g1", &function)));
        let constant = text("const X: u8 = 1;");
        assert!(!is_macro_call(&item(
            &format!("item {constant}"),
            &constant
        )));
    }

    #[test]
    fn a_span_in_a_macro_call_needs_the_same_call_on_the_other_side() {
        let items = |text: &str| super::super::item_lines(text).unwrap();
        let base = items(
            "use criterion::criterion_group;\nfn a() {}\ncriterion_group! {\n    name = g;\n    targets = a\n}\n",
        );
        // The same call two lines down: the same.
        let moved = items(
            "use criterion::criterion_group;\nfn a() {}\nfn b() {}\n\ncriterion_group! {\n    name = g;\n    targets = a\n}\n",
        );
        assert!(call_not_in(&base, &moved, (3, 3)).is_none());
        // A target added on a line the span does not reach: differs.
        let added = items(
            "use criterion::criterion_group;\nfn a() {}\ncriterion_group! {\n    name = g;\n    targets = a, b\n}\n",
        );
        assert_eq!(call_not_in(&base, &added, (3, 3)).map(|c| c.first), Some(3));
        // A span in a function, not in a call: not this rule's.
        assert!(call_not_in(&base, &added, (2, 2)).is_none());
    }

    #[test]
    fn a_criterion_call_whose_list_one_side_extends_at_its_end_is_told() {
        let text = |source: &str| super::super::text(&syn::parse_str::<syn::Item>(source).unwrap());
        let both = macros("use criterion::{criterion_group, criterion_main};");
        let known = [both, both];
        let main = text("criterion_main!(g1, search::g2, g14);");
        for longer in [
            "criterion_main!(g1, search::g2, g14, g15);",
            "criterion_main!(g1, search::g2, g14, g15,);",
            "criterion_main!(\n    g1,\n    search::g2,\n    g14,\n    g15,\n);",
        ] {
            assert!(appends(known, &main, &text(longer)), "{longer}");
            assert!(appends(known, &text(longer), &main), "{longer}");
        }
        // Inserted before the end, reordered, the same, or a longer name.
        for other in [
            "criterion_main!(g1, g15, search::g2, g14);",
            "criterion_main!(search::g2, g1, g14);",
            "criterion_main!(g1, search::g2, g14);",
            "criterion_main!(g1, search::g2, g140);",
        ] {
            assert!(!appends(known, &main, &text(other)), "{other}");
        }
        // A group's targets, even extended at the end under the same name and configuration:
        // never (the new target runs before every later group's benchmarks).
        let group = text("criterion_group! { name = g; config = C::default(); targets = a, b }");
        let more = text("criterion_group! { name = g; config = C::default(); targets = a, b, c }");
        assert!(!appends(known, &group, &more));
        let config = text("criterion_group! { name = g; config = C::new(); targets = a, b, c }");
        assert!(!appends(known, &group, &config));
        assert!(!appends(
            known,
            &text("criterion_group!(g1, a);"),
            &text("criterion_group!(g1, a, b);")
        ));
        assert!(!appends(
            known,
            &text("criterion_group!(g1, a);"),
            &text("criterion_group!(g2, a, b);")
        ));
        // Not criterion's in the file: never.
        let none = [CriterionMacros::default(); 2];
        assert!(!appends(
            none,
            &main,
            &text("criterion_main!(g1, search::g2, g14, g15);")
        ));
        assert!(appends(
            none,
            &text("criterion::criterion_main!(g1);"),
            &text("criterion::criterion_main!(g1, g2);")
        ));
        assert!(!appends(
            known,
            &text("other_main!(g1);"),
            &text("other_main!(g1, g2);")
        ));
    }
}
