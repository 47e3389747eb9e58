//! A function of the workspace that criterion's `criterion_main!` or `criterion_group!` makes,
//! compared by the call that makes it; and `main`'s groups appended at the end of its list
//! left out.
//!
//! Why: a changed function is compared by its source only when a trace names it
//! ([`crate::steps::instructions::inlined::source_names`]), and a function whose outermost
//! lines are a dependency's (bstr's `main`, made by criterion's `criterion_main!`, whose lines
//! are criterion's `macros.rs`) was not named, only what the program inlined into it: its own
//! code, which groups it calls and in which order, was compared nowhere, so nothing could
//! vouch for the copies of `define` head's new group `g15` brings into it (field trial
//! bstr-count, docs/design/selection-trace.md). It is named now, by its own path when that path
//! is a crate of the checkout's. Its lines alone cannot compare it: they are the macro's body,
//! the same text whatever the call hands it, so a reordered list, or a group whose call
//! changed (another configuration, expanded into `main` with the same lines), would read the
//! same. So such a function ([`made_by_call`]) is the same only when the one top-level call
//! that makes it in the root files of the crates of its name (criterion's, as the file brings
//! it: [`CriterionMacros`]; a bench target may share its library's name, as bstr's does) reads
//! the same on both sides, token for token, and, for `main`, when
//! no group of its list is a name the commit changes (a group's call that changed changes its
//! name, [`super::changed_names`]; its configuration leaves no line of the checkout in
//! `main`). A function whose own lines are criterion's (a `criterion-<version>` folder of
//! cargo's) and whose call is not found (a group in a module), or found on one side only, is
//! unknown; one whose lines are another dependency's macro's (`thread_local!`) is compared by
//! its spans, as any function.
//!
//! A group with no symbol on either side (bstr's `g1`…, inlined into `main`;
//! [`symbolless_group`]) has no `fn` item to find its copies by. It is the same when its call
//! reads the same on both sides and names nothing the commit changes, and every copy of it
//! sits in a symbol whose own comparison is the same: that comparison covers the frames
//! inlined into it, the group's among them (criterion's lines by their whole path, its
//! version in it); what the group calls is compared where it runs, in its own right.
//!
//! One exception, `main`'s list extended at its end (`criterion_main!(g1, …, g14)` →
//! `(g1, …, g14, g15)`, [`super::harness_macros`]'s `appends`): `main` calls its groups in
//! order, then `final_summary`. A benchmark both sides have runs in base inside one of the
//! common groups, which head calls at the same positions after the same ones; what the groups
//! appended after them do runs after its samples, which cannot change them (`trace::split`'s
//! module docs; a benchmark's trace holds only the parts before its own). So the code of
//! `main` that is an appended group's, inlined (each address whose inline chain has one of
//! those groups right inside `main`), is left out of the longer side's places, with a note,
//! and the rest is compared as usual: the common groups' inlined code must read the same, as
//! must what each inlines. Only when no appended group has the last name of a common one (a
//! frame names a group by its last segment alone). A benchmark moved into the new group leaves
//! its old group's call changed, so that group's name is changed and `main` differs; a group
//! inserted before the end, a reordered list, a `main` written by hand (no call) are compared
//! as before: their code differs where the groups' order or calls do.

use std::collections::BTreeSet;
use std::path::Path;

use super::harness_macros::{CRITERION_CRATES, CriterionMacros, appends, criterion_call};
use super::{ChangedNames, Reader, SIDES, SourceComparison, file_key, text};

/// How a function that a criterion call may have made is compared ([`made_by_call`]).
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct MadeByCall {
    /// Per side, the groups (their last names) of `main`'s list appended at its end, whose
    /// code inlined into `main` is left out of that side's places.
    pub left_out: [BTreeSet<String>; 2],
    /// What was left out, as a note.
    pub note: Option<String>,
}

/// The top-level call of a crate root file that makes a function: its text and first line.
#[derive(Debug, Clone)]
struct Call {
    file: String,
    line: usize,
    text: String,
    known: CriterionMacros,
}

/// How `function` is compared when a criterion call of its crate's root files makes it
/// (module docs): `Ok` with what to leave out (nothing when no call makes it and its lines are
/// not criterion's), `Err` with the comparison when the calls decide it or it cannot be told.
pub(super) fn made_by_call(
    readers: [&Reader<'_>; 2],
    function: &str,
    changed: &ChangedNames,
) -> Result<MadeByCall, SourceComparison> {
    let Some((krate, name)) = workspace_path(function, changed) else {
        return Ok(MadeByCall::default());
    };
    let symbols = readers.map(|r| r.symbols.contains_key(function));
    if symbols == [false, false] {
        return symbolless_group(readers, function, (krate, name), changed);
    }
    if symbols != [true, true] {
        return Ok(MadeByCall::default());
    }
    let criterion = readers.iter().any(|r| r.has_criterion_lines(function));
    if !criterion && name != "main" {
        return Ok(MadeByCall::default());
    }
    let calls = readers.map(|r| making_call(r, krate, name));
    let unknown = |why: String| {
        Err(SourceComparison::Unknown(format!(
            "{function}'s lines are criterion's macro's, and {why}"
        )))
    };
    match calls {
        [Ok(Some(base)), Ok(Some(head))] => compare_calls(function, name, [base, head], changed),
        _ if !criterion => Ok(MadeByCall::default()),
        [Err(why), _] | [_, Err(why)] => unknown(why),
        _ => unknown(format!(
            "the root files of `{krate}` do not both have one criterion call making it"
        )),
    }
}

/// A group that a criterion call makes and that has no symbol on either side (inlined into
/// `main`, bstr's `g1`): the same when the call making it reads the same on both sides and
/// names nothing the commit changes, and every copy of it sits in a symbol whose own
/// comparison is the same (it covers the frames inlined into it, the group's among them, its
/// macro's lines by their whole path, the package's version in it). Anything else: compared as
/// before (`Ok`, nothing left out), by its inlined copies.
fn symbolless_group(
    readers: [&Reader<'_>; 2],
    function: &str,
    (krate, name): (&str, &str),
    changed: &ChangedNames,
) -> Result<MadeByCall, SourceComparison> {
    let calls = readers.map(|r| making_call(r, krate, name));
    let [Ok(Some(base)), Ok(Some(head))] = calls else {
        return Ok(MadeByCall::default());
    };
    if base.text != head.text || groups(&base).is_some() {
        return Ok(MadeByCall::default());
    }
    let mut names = super::identifiers(&base.text);
    if names.any(|n| n != "criterion_group" && changed.contains(&n)) {
        return Ok(MadeByCall::default());
    }
    let mut holders = BTreeSet::new();
    for reader in readers {
        let Ok(index) = reader.index() else {
            return Ok(MadeByCall::default());
        };
        for copy in index.copies.get(name).into_iter().flatten() {
            match reader.symbol_at(copy.ranges[0].0) {
                Ok(symbol) => holders.insert(symbol),
                Err(_) => return Ok(MadeByCall::default()),
            };
        }
    }
    let compared = |holder: &String| {
        holder != function && super::compare_one(readers, holder, changed).is_same()
    };
    if holders.is_empty() || !holders.iter().all(compared) {
        return Ok(MadeByCall::default());
    }
    let held: Vec<String> = holders.iter().map(|h| format!("`{h}`")).collect();
    Err(SourceComparison::SameApart(format!(
        "`{name}` has no symbol on either side; it is made by the same criterion call at {}:{} \
         on both sides, naming nothing the commit changes, and inlined only into {}, whose \
         source is the same",
        base.file,
        base.line,
        held.join(", ")
    )))
}

/// `function` as a crate of the checkout and the rest of its path, when it is a path into one
/// (`bstr::main`: `bstr`, `main`).
fn workspace_path<'f>(function: &'f str, changed: &ChangedNames) -> Option<(&'f str, &'f str)> {
    let (krate, rest) = function.split_once("::")?;
    let crates = changed.crates.as_ref()?;
    crates.contains(krate).then_some((krate, rest))
}

/// The one top-level criterion call that makes the function `name` (a name at the crate's
/// top: a group's, or `main`) in the root files of the crates named `krate` on `reader`'s side
/// (a bench target and the library it measures may share a name: bstr's); `None` when there is
/// none, why not when a root cannot be read, lies outside the checkout, or two calls make it.
fn making_call(reader: &Reader<'_>, krate: &str, name: &str) -> Result<Option<Call>, String> {
    if name.contains("::") || name.contains('<') {
        return Ok(None);
    }
    let mut calls = Vec::new();
    for file in reader.root_files(krate)? {
        calls.extend(calls_in(reader, &file, name)?);
    }
    let mut calls = calls.into_iter();
    match (calls.next(), calls.next()) {
        (Some(first), Some(second)) => Err(format!(
            "two calls make `{name}`, at {}:{} and {}:{}",
            first.file, first.line, second.file, second.line
        )),
        (call, _) => Ok(call),
    }
}

/// The top-level criterion calls of the root file `file` (as compared) that make `name`.
fn calls_in(reader: &Reader<'_>, file: &str, name: &str) -> Result<Vec<Call>, String> {
    let path = reader.checkout.join(file);
    let source = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let parsed = syn::parse_file(&source).map(|parsed| {
        let known = CriterionMacros::of(&parsed);
        let calls = parsed.items.iter().filter_map(|item| match item {
            syn::Item::Macro(call) if known.defines(call).as_deref() == Some(name) => Some(Call {
                file: file.to_string(),
                line: syn::spanned::Spanned::span(call).start().line,
                text: text(call),
                known,
            }),
            _ => None,
        });
        calls.collect::<Vec<Call>>()
    });
    // The lines are read: free the text `span-locations` keeps per thread for them.
    proc_macro2::extra::invalidate_current_thread_spans();
    parsed.map_err(|e| format!("cannot parse {}: {e}", path.display()))
}

/// The calls making `function` (whose name in its crate is `name`) on both sides compared:
/// the same tokens (and, for `main`, no group of its list changed), or `main`'s list extended
/// at its end on one side, whose appended groups are left out there.
fn compare_calls(
    function: &str,
    name: &str,
    [base, head]: [Call; 2],
    changed: &ChangedNames,
) -> Result<MadeByCall, SourceComparison> {
    let differs = || {
        Err(SourceComparison::Differs(format!(
            "{function} is made by the call at {}:{} in base, which head does not hold with \
             the same tokens",
            base.file, base.line
        )))
    };
    let lists = [&base, &head].map(groups);
    let [Some(base_groups), Some(head_groups)] = lists else {
        return match base.text == head.text {
            true => Ok(MadeByCall::default()),
            false => differs(),
        };
    };
    let longer = usize::from(head_groups.len() > base_groups.len());
    let common = base_groups.len().min(head_groups.len());
    let extended = appends([base.known, head.known], &base.text, &head.text);
    if base.text != head.text && !extended {
        return differs();
    }
    if let Some(group) = base_groups[..common].iter().find(|g| changed.contains(g)) {
        return Err(SourceComparison::Differs(format!(
            "{function} calls the group `{group}`, whose call the commit changes"
        )));
    }
    if !extended || name != "main" {
        return Ok(MadeByCall::default());
    }
    let all = [&base_groups, &head_groups][longer];
    let appended: BTreeSet<String> = all[common..].iter().cloned().collect();
    if let Some(group) = all[..common].iter().find(|g| appended.contains(*g)) {
        return Err(SourceComparison::Unknown(format!(
            "{function}: a group appended to its list in {} has the name of the common group \
             `{group}`",
            SIDES[longer]
        )));
    }
    let mut left_out: [BTreeSet<String>; 2] = Default::default();
    left_out[longer] = appended.clone();
    let names: Vec<String> = appended.iter().map(|g| format!("`{g}`")).collect();
    Ok(MadeByCall {
        left_out,
        note: Some(format!(
            "`main` is made by criterion's call at {}:{}, whose list {} extends at its end with \
             {}: their code in it left out, it runs after every benchmark both sides have",
            base.file,
            base.line,
            SIDES[longer],
            names.join(", ")
        )),
    })
}

/// Whether a path component is the folder cargo keeps a criterion package in
/// (`criterion-0.8.2`, `codspeed-criterion-compat-2.7.0`).
fn is_criterion_package(component: std::path::Component<'_>) -> bool {
    let folder = component.as_os_str().to_string_lossy();
    folder.rsplit_once('-').is_some_and(|(package, version)| {
        version.starts_with(|c: char| c.is_ascii_digit())
            && CRITERION_CRATES.contains(&package.replace('-', "_").as_str())
    })
}

/// The last names of the groups of a `criterion_main!` call's list (`search :: g2` → `g2`), in
/// order; `None` for another call.
fn groups(call: &Call) -> Option<Vec<String>> {
    let (opening, list, _) = criterion_call(call.known, &call.text)?;
    let path = opening.split('!').next()?.replace(' ', "");
    if path.rsplit("::").next() != Some("criterion_main") {
        return None;
    }
    let names = list.split(',').map(str::trim).filter(|g| !g.is_empty());
    let last = |g: &str| g.rsplit("::").next().unwrap_or(g).trim().to_string();
    Some(names.map(last).collect())
}

impl Reader<'_> {
    /// Whether some instruction of `symbol` has its outermost frame in a file of a criterion
    /// package kept by cargo (`…/registry/src/…/criterion-0.8.2/src/macros.rs`): its own lines
    /// are criterion's macro's.
    fn has_criterion_lines(&self, symbol: &str) -> bool {
        let Some(extents) = self.symbols.get(symbol) else {
            return false;
        };
        let criterion = |file: &Path| {
            let key = file_key(file, self.checkout).1;
            super::is_dependency(&key) && Path::new(&key).components().any(is_criterion_package)
        };
        extents.iter().any(|&(start, end)| {
            let Ok(rows) = self.loader.find_location_range(start, end) else {
                return false;
            };
            rows.into_iter()
                .filter_map(|(address, _, _)| self.outermost(address.max(start), symbol))
                .any(|place| criterion(&place.file))
        })
    }

    /// The root files of the crates named `krate` (as compared: their paths in the
    /// checkout), from the names of the units in the DWARF; why not when there is none, or one
    /// lies outside the checkout.
    fn root_files(&self, krate: &str) -> Result<BTreeSet<String>, String> {
        let index = self.index()?;
        let roots: BTreeSet<String> = index
            .roots
            .iter()
            .filter(|(_, name)| name == krate)
            .map(|(root, _)| file_key(root, self.checkout).1)
            .collect();
        if roots.is_empty() {
            return Err(format!(
                "no unit of {} is `{krate}`'s",
                self.executable.display()
            ));
        }
        match roots.iter().find(|root| Path::new(root).is_absolute()) {
            Some(root) => Err(format!(
                "a root of `{krate}`, {root}, is not the checkout's"
            )),
            None => Ok(roots),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::super::tests::{compare_apart, compiled_files_below};
    use super::*;

    /// criterion's two macros as a fake registry package's file (`registry/src/…` under
    /// `dir`, read through `#[path]`): `main` calls its groups in order, a group its targets.
    fn fake_criterion(dir: &Path) -> PathBuf {
        let macros = dir.join("registry/src/criterion-0.5.1/src/macros.rs");
        std::fs::create_dir_all(macros.parent().unwrap()).unwrap();
        let body = "macro_rules! criterion_group {\n    ($name:ident, $($target:path),+ $(,)*) => {\n        \
                    #[inline(always)]\n        pub fn $name() {\n            \
                    let mut c = std::hint::black_box(Vec::new());\n            \
                    $( $target(&mut c); )+\n            println!(\"{}\", c.len());\n        }\n    };\n}\n\n\
                    macro_rules! criterion_main {\n    ($($group:path),+ $(,)*) => {\n        \
                    fn main() {\n            $( $group(); )+\n            println!(\"done\");\n        }\n    };\n}\n\n\
                    pub(crate) use criterion_group;\npub(crate) use criterion_main;\n";
        std::fs::write(&macros, body).unwrap();
        macros
    }

    /// bstr's shape, built as `side` under `dir`: targets `first`, `second` and `extra` (which
    /// calls `define` twice) each inline `define`; `groups` are the group calls, `main` the
    /// `criterion_main!` call (or a hand-written `main`).
    fn bench_crate(dir: &Path, side: &str, groups: &str, main: &str) -> PathBuf {
        bench_crate_below(dir, (side, ""), groups, main)
    }

    /// [`bench_crate`] in the folder `below` of the checkout ([`compiled_files_below`]).
    fn bench_crate_below(
        dir: &Path,
        (side, below): (&str, &str),
        groups: &str,
        main: &str,
    ) -> PathBuf {
        let macros = fake_criterion(dir);
        let text = format!(
            "#[path = {:?}]\nmod criterion;\nuse criterion::{{criterion_group, criterion_main}};\n\n\
             #[inline(never)]\nfn work(k: u64) -> u64 {{\n    k.wrapping_mul(3)\n}}\n\n\
             #[inline(always)]\nfn define(v: &mut Vec<u64>, k: u64) {{\n    \
             v.push(work(k));\n    v.push(k + 1);\n}}\n\n\
             #[inline(always)]\nfn first(v: &mut Vec<u64>) {{\n    \
             define(v, std::hint::black_box(2));\n}}\n\n\
             #[inline(always)]\nfn second(v: &mut Vec<u64>) {{\n    \
             define(v, std::hint::black_box(5));\n}}\n\n\
             #[allow(dead_code)]\n#[inline(always)]\nfn extra(v: &mut Vec<u64>) {{\n    \
             define(v, std::hint::black_box(4));\n    define(v, std::hint::black_box(6));\n}}\n\n\
             {groups}\n{main}\n",
            macros.display()
        );
        let manifest = "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n";
        let files = [("src/main.rs", text), ("Cargo.toml", manifest.to_string())];
        compiled_files_below(dir, side, below, &files)
    }

    const GROUPS: &str = "criterion_group!(g1, first);\ncriterion_group!(g2, second);\n";
    const WITH_EXTRA: &str = "criterion_group!(g1, first);\ncriterion_group!(g2, second);\n\
                              criterion_group!(g3, extra);\n";

    /// How a trace names the code of `main` in `side`'s build: with `workspace`, as the
    /// checkout's own function.
    fn trace_names(dir: &Path, side: &str, workspace: bool) -> Vec<String> {
        use object::{Object, ObjectSymbol};
        let exe = dir.join(side).join("demo");
        let data = std::fs::read(&exe).unwrap();
        let file = object::File::parse(&*data).unwrap();
        let main = file
            .symbols()
            .find(|s| {
                s.name().is_ok_and(|n| {
                    rustc_demangle::demangle(n)
                        .to_string()
                        .starts_with("demo::main")
                })
            })
            .expect("the build has demo::main");
        let loader = addr2line::Loader::new(&exe).unwrap();
        let addresses = main.address()..main.address() + main.size();
        crate::steps::instructions::inlined::source_names(
            &loader,
            addresses,
            "demo::main",
            workspace,
        )
    }

    #[test]
    fn a_main_criterion_main_makes_is_named_compared_by_its_call_and_its_appended_groups_left_out()
    {
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path();
        bench_crate(dir, "base", GROUPS, "criterion_main!(g1, g2);");
        bench_crate(dir, "head", WITH_EXTRA, "criterion_main!(g1, g2, g3);");
        // A trace names `main` itself, though its lines are the fake criterion's.
        let names = trace_names(dir, "head", true);
        assert!(names.contains(&"demo::main".to_string()), "{names:?}");
        assert!(names.contains(&"define".to_string()), "{names:?}");
        let foreign = trace_names(dir, "head", false);
        assert!(!foreign.contains(&"demo::main".to_string()), "{foreign:?}");
        // `main`: the same up to its appended group `g3`, whose code in it is left out.
        let main = compare_apart(dir, "base", "head", "demo::main");
        let SourceComparison::SameApart(note) = &main else {
            panic!("head's `main` appends `g3`: {main:?}");
        };
        assert!(
            note.contains("`g3`") && note.contains("extends at its end"),
            "{note}"
        );
        let back = compare_apart(dir, "head", "base", "demo::main");
        assert!(back.is_same(), "base's list the longer: {back:?}");
        // `define`'s two copies in head's `main > g3 > extra` are left out: `main` is compared.
        let define = compare_apart(dir, "base", "head", "demo::define");
        let SourceComparison::SameApart(note) = &define else {
            panic!("the copies in `main > g3 > extra` are left out: {define:?}");
        };
        assert!(note.contains("`demo::main` alone left out"), "{note}");
        // `g1`, inlined into `main` on both sides: its call is the same, `main` too.
        let group = compare_apart(dir, "base", "head", "demo::g1");
        let SourceComparison::SameApart(note) = &group else {
            panic!("`g1` is made by the same call, inlined into `main`: {group:?}");
        };
        assert!(note.contains("inlined only into `demo::main`"), "{note}");
    }

    #[test]
    fn a_bench_crate_of_a_workspace_below_the_checkout_s_root_has_its_call_read_there() {
        // rust-lexical's benchmarks are a workspace in `extras/benchmark/`: cargo compiles each
        // member from there, and the line tables name `parse-float/canada.rs` in the
        // compilation directory `./extras/benchmark`. The crate root was read at the
        // checkout's top (`<checkout>/parse-float/canada.rs`, no such file): unknown.
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path();
        let below = "extras/bench";
        bench_crate_below(dir, ("base", below), GROUPS, "criterion_main!(g1, g2);");
        bench_crate_below(
            dir,
            ("head", below),
            WITH_EXTRA,
            "criterion_main!(g1, g2, g3);",
        );
        let main = compare_apart(dir, "base", "head", "demo::main");
        let SourceComparison::SameApart(note) = &main else {
            panic!("head's `main` appends `g3`: {main:?}");
        };
        assert!(note.contains("extends at its end"), "{note}");
    }

    #[test]
    fn a_main_whose_groups_or_their_order_change_still_differs() {
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path();
        let hand = |list: &str| format!("fn main() {{\n{list}    println!(\"done\");\n}}\n");
        let main_of = |list: &str| format!("criterion_main!({list});");
        let one_group = "criterion_group!(g1, first, second);\n";
        let moved = "criterion_group!(g1, first);\ncriterion_group!(g2, second);\n";
        let changed = "criterion_group!(g1, first, extra);\ncriterion_group!(g2, second);\n";
        // (case, base's groups and main, head's groups and main)
        let cases = [
            (
                "inserted",
                (GROUPS, main_of("g1, g2")),
                (WITH_EXTRA, main_of("g1, g3, g2")),
            ),
            (
                "reordered",
                (GROUPS, main_of("g1, g2")),
                (GROUPS, main_of("g2, g1")),
            ),
            (
                "changed-group",
                (GROUPS, main_of("g1, g2")),
                (changed, main_of("g1, g2")),
            ),
            (
                "moved",
                (one_group, main_of("g1")),
                (moved, main_of("g1, g2")),
            ),
            (
                "by-hand",
                (GROUPS, hand("    g1();\n    g2();\n")),
                (WITH_EXTRA, hand("    g1();\n    g2();\n    g3();\n")),
            ),
        ];
        for (case, base, head) in &cases {
            let expected = match *case {
                "changed-group" | "moved" => "calls the group `g1`, whose call the commit changes",
                "by-hand" => "main differs at src/main.rs",
                _ => "which head does not hold with the same tokens",
            };
            let [base_side, head_side] = [format!("{case}-base"), format!("{case}-head")];
            bench_crate(dir, &base_side, base.0, &base.1);
            bench_crate(dir, &head_side, head.0, &head.1);
            let main = compare_apart(dir, &base_side, &head_side, "demo::main");
            let SourceComparison::Differs(why) = &main else {
                panic!("{case}: {main:?}");
            };
            assert!(why.contains(expected), "{case}: {why}");
            if *case == "changed-group" {
                let group = compare_apart(dir, &base_side, &head_side, "demo::g1");
                assert!(!group.is_same(), "{case}: {group:?}");
            }
            // Where `define`'s copies sit in chains both sides have, they are the same: a
            // benchmark running them runs `main`, which differs.
            if *case == "inserted" {
                let define = compare_apart(dir, &base_side, &head_side, "demo::define");
                assert!(!define.is_same(), "{case}: {define:?}");
            }
        }
    }
}
