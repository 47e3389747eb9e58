//! A function inlined into all its callers on both sides, compared by its inlined copies.
//!
//! Why: a small function of a bench crate (bstr's registration functions, `byte_lines`, `chars`,
//! called once from `main`) may be inlined everywhere in the line-tables build, so neither side
//! has a symbol of it (field trial bstr-count, docs/design/field-trials.md). Its code is still
//! there: every `DW_TAG_inlined_subroutine` whose abstract origin is that function is a copy of
//! it, with the address ranges it covers. The line tables of `debug = "line-tables-only"` name a
//! function by its short name only (`byte_lines`, `define<F>`: no module path, no linkage name),
//! so the copies are found by short name ([`InlinedIndex`]) and then told apart by where their
//! lines are ([`inlined_sources`]): the file whose items define a function of that path. At each
//! address of a copy, the frames from the copy's own (its depth in the DIE tree) inward are its
//! places: its lines, and what it inlines in its turn, as for a symbol.
//!
//! Copies are matched by where they sit ([`compare_copies`]). A caller the commit adds or
//! removes brings copies one side has alone: bstr's `define<F>` is inlined 45 times in base and
//! 47 in head, whose new `chars_count` calls it twice, and counting every copy made it differ
//! for every benchmark. So the copies are grouped by their inline chain: the short names of the
//! functions they are inlined into, from the symbol that holds them inward (paths and generic
//! arguments left out, every closure `{closure}`: fewer, larger groups, which errs toward
//! comparing). A chain both sides have is compared as all the copies once were: as many copies
//! in it on both sides, each reading the same spans as one of the other side's; with no such
//! chain, nothing of the function is compared, and it differs. A chain one side has alone is
//! left out only when the symbol S holding the copy has a symbol of that name on both sides and
//! ([`Reader::caller_compared`]):
//! - S's own comparison ([`super::compare_one`], the one the caller makes of S) is the same: it
//!   covers every frame inlined into S, the copy's lines among them, so what the copy computes
//!   is compared there, whichever benchmark runs it; or
//! - S differs or is unknown, and every instruction of S, on both sides, has its outermost frame
//!   in a file of the workspace, not a dependency's or the toolchain's ([`Reader::all_own`]).
//!   Why a benchmark that executes such a copy is then measured: it executes S, whose code
//!   differs between the sides (one holds a copy the other's has not; where the measured build's
//!   S is the same code after all, the benchmark runs the same code there). Its trace is taken
//!   on base: a benchmark that reaches S in head reaches it in base too, unless it turned away
//!   earlier, in changed code that is charged in its own right. The trace charges a changed
//!   symbol with the workspace's functions inlined at the addresses it executed and, when the
//!   outermost frame there is the workspace's, with the symbol itself
//!   ([`crate::steps::instructions::inlined::source_names`]): S is charged, by the name its
//!   symbol has in both builds, and its comparison, the same function of the same two builds,
//!   is not the same, so the benchmark is measured (a function beyond the most compared is not
//!   compared, which measures it too). A native probe of a skipped benchmark stops in S, which
//!   is not among the functions of the same source.
//!
//! Where neither holds, the copies count as before, and the function differs. bstr's `main`
//! is criterion's `criterion_main!` expanded, whose lines are criterion's `macros.rs`: a trace
//! charges it by its own name all the same, a path of the checkout's crate
//! ([`crate::steps::instructions::inlined::source_names`]), and its comparison is the call
//! that makes it, with the groups head appends at the end of its list left out
//! ([`super::made_by_call`]): the same, so `define`'s copies in `main > g15 > chars_count` are
//! left out by the first rule. A copy in a symbol the other side has not (a function added
//! and not inlined) keeps counting: the code that calls it is what the trace charges, and
//! nothing here says where that is.
//!
//! Copies of text the same on both sides, whatever their count ([`same_text_everywhere`]).
//! Field trial `itt-mergeby` (itertools #920) measured 695 benchmarks for the standard
//! library's own hashbrown `drop_inner_table`, inlined 96 times in base and 95 in head: the
//! bench crate compiled anew around the change, one `drop_in_place` fewer inlines it. Issue #55
//! item 2: what runs outside the timed loop is compared by what it computes, not by its
//! machine code. So when the rules above find a difference, the function is still the same
//! source when both sides have a copy, and every line of every copy (its own frame and what is
//! inlined into it), and every function around it at its call (its inline chain, from the
//! symbol that holds it), is in a file that reads the same on both sides: the toolchain's or a
//! dependency's (the same text by its path), or a file of the checkout with the same bytes in
//! both checkouts; no line of a copy names what the commit changes ([`names_changed`]), and no
//! function of those frames has generic arguments naming a changed item through a path of the
//! checkout ([`ChangedNames::named_in_arguments`]). Why that is sound:
//! - Each copy executes the text of its frames, all the same on both sides. A callee it runs
//!   is either inlined into it (its frame and file are among the copy's lines, checked) or
//!   called: a function with a symbol of its own, whose machine code differs when its source
//!   does, which the trace then charges and compares in its own right.
//! - The path into each copy, from the symbol holding it, is text the same on both sides too
//!   (the chain's files), so a copy more or fewer is the compiler inlining the same text into
//!   more or fewer of the same callers, or one side not instantiating a caller: whatever made
//!   it (a new call, a type no longer dropped) is code the commit changed, in a function the
//!   trace charges and compares itself. Nothing here says that code is the same.
//! - A generic function of the same text instantiated with a type whose definition changed
//!   (its layout, a constant folded into the instructions, leaving no frame of the changed
//!   file): the instance's name holds the type's path, a path of the checkout naming a changed
//!   item, which the generic-arguments check refuses; a type of a crate outside the checkout
//!   cannot be changed by it (its files read the same). What that check cannot see is what no
//!   name shows anywhere in this module (a trait impl chosen through a changed import).
//!
//! A function of the standard library named by a qualified path
//! (`<i32 as core::cmp::PartialOrd>::lt`, [`qualified::is_toolchain_function`]) is not defined
//! by any file here ([`defines`] reads free functions only), and its short name is shared by
//! functions of many files (criterion's, core's, the checkout's). Its copies are among the
//! copies of every function of that name, so it is compared by all of them
//! ([`compare_toolchain_copies`]): the same source when they all read the same as above, else
//! unknown as before.
//!
//! A trait impl's method, a trait's provided method, a closure ([`Reader::file_defines`]):
//! itertools #920's set-up inlines `<MultiPeek<I> as Iterator>::next` (copies of a `next` in
//! 108 files), a closure of it, and `Itertools::multipeek` everywhere, and no file was found to
//! define them. A trait impl's method of a type of a crate of the build, for a trait of the
//! standard library, is in that crate ([`qualified::ImplMethod`], the orphan rules), in a file
//! of it that holds such an impl ([`Reader::is_file_of`]: a namesake in the bench crate is
//! not taken). A provided method is a path through its trait, as through a module
//! ([`defines`]). A closure is written inside the function around it, so its copies are the
//! `{closure}` copies of the file defining that function, every closure of that file (more
//! copies: a difference is likelier, never hidden); unless the function calls a macro there,
//! whose closure's lines may be in the macro's file: unknown.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use addr2line::gimli;
use object::{Object, ObjectSection, SectionKind};

use super::locals::Locals;
use super::qualified;
use super::{
    ChangedNames, Extents, FunctionSource, Key, Place, Reader, SIDES, SourceComparison, Span,
    compare, compare_one, file_key, is_dependency, is_toolchain, last_segment, names_changed,
    short_name, source_of,
};

/// One inlined copy of a function: how many inlined subroutines hold it, itself included (its
/// frame's index from the outermost in an inline chain), and its address ranges.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct InlinedCopy {
    pub level: usize,
    pub ranges: Vec<(u64, u64)>,
}

/// Every inlined copy of an executable's functions, by the short name of its abstract origin
/// ([`super::short_name`]). `unresolved`: inlined subroutines whose origin could not be read (a
/// reference into another unit): any function could be among them. `roots`: each unit's crate
/// root file, as its name gives it (`src/bench.rs/@/bstr.1a2b-cgu.0`), with its crate.
#[derive(Debug, Default)]
pub(super) struct InlinedIndex {
    pub copies: BTreeMap<String, Vec<InlinedCopy>>,
    pub unresolved: usize,
    pub roots: BTreeSet<(PathBuf, String)>,
}

type Slice<'d> = gimli::EndianSlice<'d, gimli::RunTimeEndian>;

/// `f` of `executable`'s object file and DWARF, read once.
fn with_dwarf<R>(
    executable: &Path,
    f: impl FnOnce(&object::File<'_>, &gimli::Dwarf<Slice<'_>>) -> Result<R, String>,
) -> Result<R, String> {
    let data = std::fs::read(executable)
        .map_err(|e| format!("cannot read {}: {e}", executable.display()))?;
    let file = object::File::parse(&*data)
        .map_err(|e| format!("cannot parse {}: {e}", executable.display()))?;
    let endian = match file.is_little_endian() {
        true => gimli::RunTimeEndian::Little,
        false => gimli::RunTimeEndian::Big,
    };
    let load = |id: gimli::SectionId| -> Result<Cow<'_, [u8]>, String> {
        match file.section_by_name(id.name()) {
            None => Ok(Cow::Borrowed(&[][..])),
            Some(section) => section
                .uncompressed_data()
                .map_err(|e| format!("cannot read {} of {}: {e}", id.name(), executable.display())),
        }
    };
    let sections = gimli::DwarfSections::load(load)?;
    let dwarf = sections.borrow(|section| gimli::EndianSlice::new(section, endian));
    f(&file, &dwarf)
}

/// The message of a DWARF error of `executable`.
fn unreadable(executable: &Path) -> impl Fn(gimli::Error) -> String + '_ {
    move |e| format!("cannot read the DWARF of {}: {e}", executable.display())
}

/// Whether `executable` has debug information of code compiled from its checkout: a
/// compilation unit whose name (`<root source file>/@/<codegen unit>`) is a relative path, as
/// the build names the checkout's files (`.`-relative; a dependency's and the toolchain's are
/// absolute). A bench profile with `debug = true` (or `"line-tables-only"`) builds such
/// executables, and their line tables are then as good as those of a build made for them
/// (`orchestrate::run::count::LineTables`).
/// Read once per executable (its path, size and modification time): selection's outside-loop
/// check and the note after measuring ask of the same executables.
pub fn has_checkout_line_tables(executable: &Path) -> bool {
    type Seen = BTreeMap<(PathBuf, u64, Option<std::time::SystemTime>), bool>;
    static SEEN: std::sync::Mutex<Seen> = std::sync::Mutex::new(BTreeMap::new());
    let Ok(meta) = std::fs::metadata(executable) else {
        return false;
    };
    let key = (executable.to_path_buf(), meta.len(), meta.modified().ok());
    if let Some(&known) = SEEN.lock().ok().as_ref().and_then(|seen| seen.get(&key)) {
        return known;
    }
    let has = read_checkout_line_tables(executable);
    if let Ok(mut seen) = SEEN.lock() {
        seen.insert(key, has);
    }
    has
}

/// [`has_checkout_line_tables`], read from the executable's DWARF.
fn read_checkout_line_tables(executable: &Path) -> bool {
    let found = with_dwarf(executable, |_, dwarf| {
        let mut headers = dwarf.units();
        while let Some(header) = headers.next().map_err(unreadable(executable))? {
            let unit = dwarf.unit(header).map_err(unreadable(executable))?;
            let relative = unit.name.as_ref().is_some_and(|name| {
                let name = name.to_string_lossy();
                name.contains("/@/") && !name.starts_with('/')
            });
            if relative && unit.line_program.is_some() {
                return Ok(true);
            }
        }
        Ok(false)
    });
    found.unwrap_or(false)
}

/// A unit's crate root file as its line tables name files: relative to the unit's compilation
/// directory (`comp_dir`), which the line tables put before every relative file. cargo compiles
/// a workspace's members from the workspace's root, so where the workspace lies below the
/// checkout's root (rust-lexical's `extras/benchmark/`) the unit names `parse-float/canada.rs`
/// in `./extras/benchmark`, read as the checkout's `extras/benchmark/parse-float/canada.rs`.
fn unit_root(comp_dir: Option<Cow<'_, str>>, root: &str) -> PathBuf {
    match comp_dir {
        Some(dir) if Path::new(root).is_relative() && !dir.is_empty() => {
            Path::new(&*dir).join(root)
        }
        _ => PathBuf::from(root),
    }
}

/// The inlined copies of `executable`'s functions, from its DWARF.
pub(super) fn inlined_index(executable: &Path) -> Result<InlinedIndex, String> {
    with_dwarf(executable, |file, dwarf| {
        let why = unreadable(executable);
        // The linker discards unused sections but not their DWARF, whose addresses it leaves
        // at 0 (or another value outside the code): such a copy is not in the executable.
        let code: Vec<(u64, u64)> = file
            .sections()
            .filter(|s| s.kind() == SectionKind::Text)
            .map(|s| (s.address(), s.address() + s.size()))
            .collect();
        let mut index = InlinedIndex::default();
        let mut headers = dwarf.units();
        let mut units = Vec::new();
        while let Some(header) = headers.next().map_err(&why)? {
            units.push(dwarf.unit(header).map_err(&why)?);
        }
        for unit in &units {
            if let Some(name) = &unit.name {
                let name = name.to_string_lossy();
                if let Some((root, krate)) = name.split_once("/@/") {
                    let krate = krate.split('.').next().unwrap_or(krate);
                    let root = unit_root(unit.comp_dir.map(|d| d.to_string_lossy()), root);
                    index.roots.insert((root, krate.to_string()));
                }
            }
            index_unit(dwarf, (unit, &units), &code, &mut index).map_err(&why)?;
        }
        Ok(index)
    })
}

/// Whether `executable`'s DWARF may name a function `name` (a short name): its bytes are in
/// one of its debug sections (where a DIE's name is: `.debug_str`, `.debug_line_str`, or
/// inline in `.debug_info`; a mangled linkage name holds them too), or `name` is not ASCII (a
/// mangled name spells it otherwise). Reading that is much cheaper than indexing every inlined
/// copy ([`inlined_index`]), whose DIEs a name found nowhere cannot be the origin of. Why a
/// miss is safe whatever it misses: a side without copies of a function that has no symbol
/// there makes it unknown, or differ ([`compare_copies`]), never the same.
fn may_name(executable: &Path, name: &str) -> Result<bool, String> {
    if name.is_empty() || !name.is_ascii() {
        return Ok(true);
    }
    let data = std::fs::read(executable)
        .map_err(|e| format!("cannot read {}: {e}", executable.display()))?;
    let file = object::File::parse(&*data)
        .map_err(|e| format!("cannot parse {}: {e}", executable.display()))?;
    let finder = memchr::memmem::Finder::new(name.as_bytes());
    for section in file.sections() {
        let Ok(section_name) = section.name() else {
            return Ok(true);
        };
        if !(section_name.starts_with(".debug") || section_name.starts_with(".zdebug")) {
            continue;
        }
        let bytes = section.uncompressed_data().map_err(|e| {
            format!(
                "cannot read {section_name} of {}: {e}",
                executable.display()
            )
        })?;
        if finder.find(&bytes).is_some() {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Adds the inlined subroutines of `unit` to `index`.
fn index_unit<'d>(
    dwarf: &gimli::Dwarf<Slice<'d>>,
    (unit, units): (&gimli::Unit<Slice<'d>>, &[gimli::Unit<Slice<'d>>]),
    code: &[(u64, u64)],
    index: &mut InlinedIndex,
) -> gimli::Result<()> {
    // The DIEs around the current one: (depth, whether it is an inlined subroutine).
    let mut around: Vec<(isize, bool)> = Vec::new();
    let mut entries = unit.entries();
    while let Some(entry) = entries.next_dfs()? {
        let depth = entry.depth();
        while around.last().is_some_and(|&(d, _)| d >= depth) {
            around.pop();
        }
        let inlined = entry.tag() == gimli::DW_TAG_inlined_subroutine;
        around.push((depth, inlined));
        if !inlined {
            continue;
        }
        let Some(name) = origin_name(dwarf, (unit, units), entry)? else {
            index.unresolved += 1;
            continue;
        };
        let mut ranges = Vec::new();
        let mut iter = dwarf.die_ranges(unit, entry)?;
        while let Some(range) = iter.next()? {
            let linked = code
                .iter()
                .any(|&(s, e)| s <= range.begin && range.begin < e);
            if range.begin < range.end && linked {
                ranges.push((range.begin, range.end));
            }
        }
        if ranges.is_empty() {
            continue;
        }
        let level = around.iter().filter(|(_, i)| *i).count();
        index
            .copies
            .entry(super::short_name(&name))
            .or_default()
            .push(InlinedCopy { level, ranges });
    }
    Ok(())
}

/// The name of the abstract origin of the inlined subroutine `entry` of `unit`, following the
/// origins and specifications, into another of `units` too; `None` when it leads to no name.
fn origin_name<'d>(
    dwarf: &gimli::Dwarf<Slice<'d>>,
    (mut unit, units): (&gimli::Unit<Slice<'d>>, &[gimli::Unit<Slice<'d>>]),
    entry: &gimli::DebuggingInformationEntry<Slice<'d>>,
) -> gimli::Result<Option<String>> {
    let mut current = entry.clone();
    for _ in 0..8 {
        let next = [gimli::DW_AT_abstract_origin, gimli::DW_AT_specification]
            .into_iter()
            .find_map(|at| current.attr_value(at));
        let offset = match next {
            Some(gimli::AttributeValue::UnitRef(offset)) => offset,
            Some(gimli::AttributeValue::DebugInfoRef(offset)) => {
                let found = units
                    .iter()
                    .find_map(|u| Some((u, offset.to_unit_offset(&u.header)?)));
                let Some((other, offset)) = found else {
                    return Ok(None);
                };
                unit = other;
                offset
            }
            Some(_) => return Ok(None),
            None => break,
        };
        current = unit.entry(offset)?;
        let name = [gimli::DW_AT_linkage_name, gimli::DW_AT_name]
            .into_iter()
            .find_map(|at| current.attr_value(at));
        if let Some(name) = name {
            let raw = dwarf.attr_string(unit, name)?;
            let raw = raw.to_string_lossy();
            return Ok(Some(format!("{:#}", rustc_demangle::demangle(&raw))));
        }
    }
    Ok(None)
}

/// One inlined copy as compared: where it sits (`chain`: the short names of the functions it
/// is inlined into, from the symbol that holds it inward), the first address of its code, its
/// source, and the functions around it where it is inlined (`callers`: each frame of its
/// chain at its first address, by the file its call is in, `""` when none is known, and its
/// name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct PlacedCopy {
    pub chain: Vec<String>,
    pub at: u64,
    pub source: FunctionSource,
    pub callers: Vec<Key>,
}

/// `function`, with no symbol on either side, compared by its inlined copies: those of the one
/// file that defines a function of its path ([`defines`]), matched by where they sit (their
/// inline chain): as many copies in each chain on both sides, each reading the same spans as one
/// of the other side's there; a chain one side has alone is left out only where the symbol
/// holding it is compared in its own right ([`Reader::caller_compared`]). No span may name what
/// the commit changes. Where that finds a difference, copies whose every line and caller reads
/// the same on both sides are the same source whatever their count ([`same_text_everywhere`]).
/// Anything unread, or copies in two files that could each define it, is unknown, but for a
/// function of the standard library ([`compare_toolchain_copies`]).
pub(super) fn compare_inlined(
    readers: [&Reader<'_>; 2],
    function: &str,
    changed: &ChangedNames,
) -> SourceComparison {
    match inlined_sources(readers, function) {
        Err(why) if qualified::is_toolchain_function(function) => {
            compare_toolchain_copies(readers, function, changed, why)
        }
        Err(why) => SourceComparison::Unknown(why),
        Ok((file, sources)) => {
            let mut decided: BTreeMap<(usize, String), Result<String, String>> = BTreeMap::new();
            let mut holder = |side: usize, at: u64| {
                let symbol = readers[side].symbol_at(at)?;
                let decision = decided
                    .entry((side, symbol.clone()))
                    .or_insert_with(|| Reader::caller_compared(readers, side, &symbol, changed));
                decision.clone()
            };
            let locals = |side: usize, file: &str, span: &Span| readers[side].locals.of(file, span);
            let compared = compare_copies(&file, function, &sources, changed, &mut holder, &locals);
            if compared.is_same() {
                return compared;
            }
            let same_text = |file: &str| same_text_file(readers, file);
            match same_text_everywhere(&sources, changed, &same_text, &locals) {
                Ok(()) => SourceComparison::SameApart(same_text_note(&file, function, &sources)),
                Err(_) => compared,
            }
        }
    }
}

/// A function of the standard library (`<i32 as core::cmp::PartialOrd>::lt`,
/// [`qualified::is_toolchain_function`]) whose copies no one file holds (`why`): its copies
/// are among those of every function of its short name, in whatever file, and it is the same
/// source when all of those are ([`same_text_everywhere`]); else unknown, as before.
fn compare_toolchain_copies(
    readers: [&Reader<'_>; 2],
    function: &str,
    changed: &ChangedNames,
    why: String,
) -> SourceComparison {
    let name = short_name(function);
    let sources = [0, 1].map(|side| every_copy(readers[side], &name));
    let sources = match sources {
        [Err(e), _] | [_, Err(e)] => return SourceComparison::Unknown(format!("{why}; {e}")),
        [Ok(base), Ok(head)] => [base, head],
    };
    let locals = |side: usize, file: &str, span: &Span| readers[side].locals.of(file, span);
    let same_text = |file: &str| same_text_file(readers, file);
    match same_text_everywhere(&sources, changed, &same_text, &locals) {
        Ok(()) => {
            let place = format!("every `{name}`, a function of the standard library");
            SourceComparison::SameApart(same_text_note(&place, function, &sources))
        }
        Err(not) => SourceComparison::Unknown(format!("{why}; {not}")),
    }
}

/// Every inlined copy of a function of short name `name` on one side, each read in the file
/// its own frame is in.
fn every_copy(reader: &Reader<'_>, name: &str) -> Result<Vec<PlacedCopy>, String> {
    let by_file = reader.copies_by_file(name)?;
    let copies = by_file.values().flat_map(|copies| {
        copies
            .iter()
            .map(move |copy| reader.copy_source(copy, name, None))
    });
    copies.collect()
}

/// The note of a function whose copies all read the same ([`same_text_everywhere`]).
fn same_text_note(file: &str, function: &str, sources: &[Vec<PlacedCopy>; 2]) -> String {
    format!(
        "`{}` ({file}) has no symbol on either side and is inlined {} times in base and {} in \
         head, every copy, and the functions it is inlined into, in files that read the same \
         on both sides (the toolchain's, a dependency's, the checkout's the commit does not \
         change): the same text inlined otherwise, same source",
        short_name(function),
        sources[0].len(),
        sources[1].len()
    )
}

/// Whether what every copy of `sources` executes is text that reads the same on both sides,
/// whatever the number of copies and where they sit: both sides have a copy; every line of
/// every copy, and each function around it at its call (its inline chain, from the symbol
/// holding it), is in a file that reads the same on both sides (`same_text`); no line of a
/// copy names what the commit changes, nor do the generic arguments of any of those
/// functions. `Err` says why not. The argument is in the module doc.
fn same_text_everywhere(
    sources: &[Vec<PlacedCopy>; 2],
    changed: &ChangedNames,
    same_text: &dyn Fn(&str) -> bool,
    locals: &dyn Fn(usize, &str, &Span) -> Rc<Locals>,
) -> Result<(), String> {
    if let Some(side) = (0..2).find(|&side| sources[side].is_empty()) {
        return Err(format!("{} has no copy", SIDES[side]));
    }
    let mut known: BTreeMap<&str, bool> = BTreeMap::new();
    for (side, copies) in sources.iter().enumerate() {
        for copy in copies {
            let functions = copy.source.spans.keys().chain(&copy.callers);
            for (file, function) in functions {
                if !*known.entry(file).or_insert_with(|| same_text(file)) {
                    return Err(format!("{file} does not read the same on both sides"));
                }
                if let Some(name) = changed.named_in_arguments(function, file) {
                    return Err(format!(
                        "`{function}` names `{name}`, which the commit changes"
                    ));
                }
            }
            let spans = copy.source.spans.iter();
            let spans = spans.map(|((file, _), span)| (file, span));
            let found = names_changed(spans, changed, &|file, span| locals(side, file, span));
            if let Some((name, file)) = found {
                return Err(changed.reason(&name, file));
            }
        }
    }
    Ok(())
}

/// Whether the file compared as `file` reads the same on both sides: the toolchain's or a
/// dependency's (the same text by its path, [`is_dependency`]), or the checkout's with the
/// same bytes in both checkouts. Any other file, or one that cannot be read, does not.
fn same_text_file(readers: [&Reader<'_>; 2], file: &str) -> bool {
    let path = Path::new(file);
    if is_dependency(file) {
        return true;
    }
    if path.is_absolute() || file.is_empty() {
        return false;
    }
    let [base, head] = readers.map(|r| std::fs::read(r.checkout.join(path)).ok());
    base.is_some() && base == head
}

/// Each side's inlined copies of `function`, with the file that defines it.
fn inlined_sources(
    readers: [&Reader<'_>; 2],
    function: &str,
) -> Result<(String, [Vec<PlacedCopy>; 2]), String> {
    let (defined, name) = match enclosing_function(function) {
        Some(enclosing) => (enclosing, "{closure}".to_string()),
        None if short_name(function) == "{closure}" => {
            return Err(format!("no side has a symbol {function}"));
        }
        None => (function, short_name(function)),
    };
    let [base, head] = readers.map(|r| r.copies_by_file(&name));
    let by_file = [base?, head?];
    let mut defining = BTreeSet::new();
    for side in [0, 1] {
        // The toolchain's files define no function of a crate of the build.
        let files = by_file[side].keys().filter(|f| !is_toolchain(Path::new(f)));
        for file in files {
            if readers[side].file_defines(file, defined, defined != function)? {
                defining.insert(file.clone());
            }
        }
    }
    if defining.is_empty() {
        defining.extend(one_toolchain_file(by_file.iter().flat_map(|f| f.keys())));
    }
    let mut defining = defining.into_iter();
    let (Some(file), None) = (defining.next(), defining.next()) else {
        // Each file once, whichever sides have copies there.
        let files: BTreeSet<&str> = by_file
            .iter()
            .flat_map(|f| f.keys())
            .map(String::as_str)
            .collect();
        let files: Vec<&str> = files.into_iter().collect();
        return Err(match files.is_empty() {
            true => format!("no side has a symbol {function}, nor an inlined copy of it"),
            false => format!(
                "no side has a symbol {function}, and which inlined copies of a `{name}` are \
                 its cannot be told ({})",
                files.join(", ")
            ),
        });
    };
    let sources = [0, 1].map(|side| {
        let copies = by_file[side].get(&file).map_or(&[][..], Vec::as_slice);
        let sources = copies
            .iter()
            .map(|copy| readers[side].copy_source(copy, &name, Some(&file)));
        sources.collect::<Result<Vec<_>, String>>()
    });
    let [base, head] = sources;
    Ok((file, [base?, head?]))
}

/// The function a closure's name (`demo::setup::{{closure}}`, `…::{closure#0}`, nested ones
/// too) says it is written in, or `None` for any other name or a closure of no function.
fn enclosing_function(function: &str) -> Option<&str> {
    let mut rest = function;
    while short_name(rest) == "{closure}" {
        let last = last_segment(rest);
        rest = rest.strip_suffix(last)?.strip_suffix("::")?;
    }
    (rest != function && !rest.is_empty()).then_some(rest)
}

/// Whether the tokens `text` hold a macro call (a name, `!`, a group): a closure there may
/// have its lines in the macro's file, not the one around the call. Text that does not read
/// as tokens holds one, as far as anyone can tell.
fn calls_macro(text: &str) -> bool {
    use proc_macro2::{TokenStream, TokenTree};
    fn walk(stream: TokenStream) -> bool {
        let trees: Vec<TokenTree> = stream.into_iter().collect();
        trees.iter().enumerate().any(|(i, tree)| match tree {
            TokenTree::Group(group) => {
                let called = i >= 2
                    && matches!(&trees[i - 1], TokenTree::Punct(p) if p.as_char() == '!')
                    && matches!(&trees[i - 2], TokenTree::Ident(_));
                called || walk(group.stream())
            }
            _ => false,
        })
    }
    text.parse::<TokenStream>().map_or(true, walk)
}

/// The crate of `file` ([`Reader::is_file_of`]) among the crate `roots` (root file as compared,
/// crate name): the one crate whose root's folder is the deepest that holds the file, or
/// `None` when none holds it or two crates' roots share that folder.
fn crate_of<'r>(roots: impl Iterator<Item = (PathBuf, &'r str)>, file: &Path) -> Option<&'r str> {
    let mut deepest: Option<(usize, BTreeSet<&str>)> = None;
    for (root, name) in roots {
        let folder = root.parent().unwrap_or(Path::new(""));
        if !file.starts_with(folder) {
            continue;
        }
        let depth = folder.components().count();
        match &mut deepest {
            Some((d, names)) if *d == depth => {
                names.insert(name);
            }
            Some((d, _)) if *d > depth => {}
            _ => deepest = Some((depth, BTreeSet::from([name]))),
        }
    }
    let names = deepest?.1;
    let mut names = names.into_iter();
    match (names.next(), names.next()) {
        (Some(one), None) => Some(one),
        _ => None,
    }
}

/// The file of the copies when every copy, on both sides, is in one and the same file of the
/// toolchain: the standard library's own dependency (`/rust/deps/hashbrown-0.16.1/…`, whose
/// `RawTableInner::drop_inner_table` `HashMap`'s drop inlines) shares its crate's name with a
/// crate of the build (itertools' criterion brings in hashbrown too), so no file "defines" it
/// by its path; but then the code of that name the executable holds is the toolchain's, the
/// same text by its path, and its copies are compared as any others (chain by chain, with
/// what they inline in their turn). Copies in two files, or in a file of the build, decide
/// nothing here.
fn one_toolchain_file<'f>(files: impl Iterator<Item = &'f String>) -> Option<String> {
    let files: BTreeSet<&String> = files.collect();
    match files.into_iter().collect::<Vec<_>>()[..] {
        [file] if is_toolchain(Path::new(file)) => Some(file.clone()),
        _ => None,
    }
}

/// Whether a copy's own line in `own` may stand for a function of `file`: the same file, or,
/// for a function of the toolchain's, any file of the toolchain. The standard library is
/// compiled with MIR inlining, so `drop_inner_table` of its hashbrown brings lines of `alloc`'s
/// `alloc.rs` as its own, with no inlined frame between; the toolchain's files are the same
/// text by their paths on both sides, so nothing of the checkout hides there.
fn same_file_or_toolchain(own: &str, file: &str) -> bool {
    own == file || (is_toolchain(Path::new(file)) && is_toolchain(Path::new(own)))
}

/// Whether the copies a side has alone in the symbol holding the address may be left out
/// (`Ok`, a note saying why) or not (`Err`, why not): [`Reader::caller_compared`] in a run,
/// anything in a test.
type Holder<'h> = dyn FnMut(usize, u64) -> Result<String, String> + 'h;

/// The inlined copies of `file`'s `function` on both sides (`sources`) compared, chain by chain;
/// `holder` decides the copies of a chain one side has alone.
fn compare_copies(
    file: &str,
    function: &str,
    sources: &[Vec<PlacedCopy>; 2],
    changed: &ChangedNames,
    holder: &mut Holder<'_>,
    locals: &dyn Fn(usize, &str, &Span) -> Rc<Locals>,
) -> SourceComparison {
    let name = short_name(function);
    let by_chain = sources.each_ref().map(|copies| {
        let mut chains: BTreeMap<&[String], Vec<&PlacedCopy>> = BTreeMap::new();
        for copy in copies {
            chains.entry(&copy.chain).or_default().push(copy);
        }
        chains
    });
    let chains: BTreeSet<&[String]> = by_chain.iter().flat_map(|c| c.keys().copied()).collect();
    // Copies of chains one side has alone are left out only beside some compared: a function
    // found only where nothing of it is compared (removed, or moved to callers of its own)
    // differs, whatever holds it.
    if !by_chain[0]
        .keys()
        .any(|chain| by_chain[1].contains_key(chain))
    {
        return SourceComparison::Differs(format!(
            "`{name}` ({file}) has no symbol on either side, and is inlined {} times in base and \
             {} in head, in no function that both sides inline it into",
            sources[0].len(),
            sources[1].len()
        ));
    }
    let mut left_out = BTreeSet::new();
    for chain in chains {
        let copies = by_chain
            .each_ref()
            .map(|c| c.get(chain).map_or(&[][..], Vec::as_slice));
        let compared = match copies {
            [[], alone] | [alone, []] => {
                let side = usize::from(copies[0].is_empty());
                one_side_alone(side, alone, holder).map(|notes| left_out.extend(notes))
            }
            [base, head] => same_copies(base, head),
        };
        if let Err(why) = compared {
            return SourceComparison::Differs(format!(
                "`{name}` ({file}) has no symbol on either side, and is inlined {} times in base \
                 and {} in head; in `{}`: {why}",
                sources[0].len(),
                sources[1].len(),
                chain_text(chain)
            ));
        }
    }
    let found = [0, 1].into_iter().find_map(|side| {
        let spans = sources[side].iter().flat_map(|copy| {
            let spans = copy.source.spans.iter();
            spans.map(|((file, _), span)| (file, span))
        });
        names_changed(spans, changed, &|file, span| locals(side, file, span))
    });
    if let Some((changed_name, file)) = found {
        return SourceComparison::Differs(changed.reason(&changed_name, file));
    }
    match left_out.is_empty() {
        true => SourceComparison::Same,
        false => SourceComparison::SameApart(format!(
            "`{name}` ({file}) compared by its inlined copies in the functions both sides inline \
             it into; {}",
            left_out.into_iter().collect::<Vec<_>>().join("; ")
        )),
    }
}

/// The copies of one chain on both sides: as many, each with the same spans' text as one of
/// the other side's (line numbers aside).
fn same_copies(base: &[&PlacedCopy], head: &[&PlacedCopy]) -> Result<(), String> {
    let [mut base, mut head] =
        [base, head].map(|c| c.iter().map(|c| &c.source).collect::<Vec<_>>());
    if base.len() != head.len() {
        return Err(format!(
            "{} copies in base and {} in head",
            base.len(),
            head.len()
        ));
    }
    base.sort_by(|a, b| texts(a).cmp(&texts(b)));
    head.sort_by(|a, b| texts(a).cmp(&texts(b)));
    match base.iter().zip(&head).find(|(b, h)| texts(b) != texts(h)) {
        None => Ok(()),
        Some((b, h)) => Err(match compare(b, h) {
            SourceComparison::Differs(why) => format!("a copy differs ({why})"),
            _ => "a copy's spans differ".to_string(),
        }),
    }
}

/// The copies of a chain `side` has alone (`alone`): each left out when `holder` says the
/// symbol holding it may, with its note; else why not.
fn one_side_alone(
    side: usize,
    alone: &[&PlacedCopy],
    holder: &mut Holder<'_>,
) -> Result<Vec<String>, String> {
    let other = SIDES[1 - side];
    alone
        .iter()
        .map(|copy| holder(side, copy.at))
        .collect::<Result<Vec<_>, String>>()
        .map_err(|why| {
            format!(
                "{} copies in {} only, none in {other}, not left out: {why}",
                alone.len(),
                SIDES[side]
            )
        })
}

/// A chain as a reason names it: `main > g15 > chars_count`.
fn chain_text(chain: &[String]) -> String {
    chain.join(" > ")
}

/// What a copy's spans read, their line numbers aside (a function added above moves them).
fn texts(copy: &FunctionSource) -> Vec<(&Key, &Vec<String>)> {
    copy.spans
        .iter()
        .map(|(key, span)| (key, &span.text))
        .collect()
}

impl Reader<'_> {
    /// The inlined copies of this side's functions, and its units' crate roots, read once.
    pub(super) fn index(&self) -> Result<&InlinedIndex, String> {
        self.inlined
            .get_or_init(|| inlined_index(self.executable))
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Whether the file compared as `file` is the root of the crate `krate` in some unit.
    fn is_root_of(&self, file: &str, krate: &str) -> bool {
        let Some(Ok(index)) = self.inlined.get() else {
            return false;
        };
        let parts = |path: &Path| -> Vec<String> {
            let parts = path.components().filter(|c| c.as_os_str() != ".");
            parts
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect()
        };
        let file = parts(Path::new(file));
        index.roots.iter().any(|(root, name)| {
            let root = parts(Path::new(&file_key(root, self.checkout).1));
            name == krate && !file.is_empty() && (root.ends_with(&file) || file.ends_with(&root))
        })
    }

    /// Whether the file compared as `file` defines `function` ([`defines`] for a free function
    /// or a trait's provided method, [`qualified::ImplMethod`] for a trait impl's method in a
    /// file of the self type's crate, [`Reader::is_file_of`]). A trait's method without a body
    /// defines nothing. `closure`: the closures of `function` are looked for, so an item of its
    /// name that calls a macro makes it unknown (`Err`): the closure's lines may be the macro's.
    fn file_defines(&self, file: &str, function: &str, closure: bool) -> Result<bool, String> {
        let items = self.items(file)?;
        let required =
            |i: &&super::ItemLines| i.key.contains("trait ") && i.text.trim_end().ends_with(';');
        let with_body = items.iter().filter(|i| !required(i));
        let keys: Vec<&str> = with_body.map(|i| i.key.as_str()).collect();
        let defined = match qualified::impl_method(function) {
            Some(method) => {
                let of_crate = method.crates.iter().any(|k| self.is_file_of(file, k));
                of_crate && keys.iter().any(|k| method.is_key(k))
            }
            None => {
                let krate = qualified::one_crate(function).unwrap_or_default();
                defines(&keys, file, function, self.is_root_of(file, &krate))
            }
        };
        let name = format!("fn {}", short_name(function));
        let mut named = items.iter().filter(|i| i.key.ends_with(&name));
        if defined && closure && named.any(|i| calls_macro(&i.text)) {
            return Err(format!(
                "a `{}` of {file} calls a macro: where the lines of {function}'s closures are \
                 cannot be told",
                short_name(function)
            ));
        }
        Ok(defined)
    }

    /// Whether the file compared as `file` is one of the crate `krate`'s, as far as the units'
    /// crate roots tell: the deepest folder of a crate root that holds the file is that of
    /// `krate`'s root and of no other crate's (`src/lib.rs`'s `src/multipeek_impl.rs`; not
    /// `benches/specializations.rs`, the bench crate's root). Two crates' roots in one folder
    /// (`src/lib.rs`, `src/main.rs`), or no root above the file: not known, so not.
    fn is_file_of(&self, file: &str, krate: &str) -> bool {
        let Some(Ok(index)) = self.inlined.get() else {
            return false;
        };
        let roots = index.roots.iter().map(|(root, name)| {
            let root = PathBuf::from(file_key(root, self.checkout).1);
            (root, name.as_str())
        });
        crate_of(roots, Path::new(file)) == Some(krate)
    }

    /// The inlined copies of functions of short name `name`, by the file their own frames are
    /// in (as compared: [`file_key`]).
    fn copies_by_file(&self, name: &str) -> Result<BTreeMap<String, Vec<InlinedCopy>>, String> {
        // The debug sections name a closure `{closure#0}`, not `{closure}`.
        let probe = name.strip_suffix('}').filter(|_| name == "{closure}");
        if self.inlined.get().is_none() && !may_name(self.executable, probe.unwrap_or(name))? {
            return Ok(BTreeMap::new());
        }
        let index = self.index()?;
        if index.unresolved > 0 {
            return Err(format!(
                "{} inlined subroutines of {} have an origin in another unit",
                index.unresolved,
                self.executable.display()
            ));
        }
        let mut by_file: BTreeMap<String, Vec<InlinedCopy>> = BTreeMap::new();
        for copy in index.copies.get(name).into_iter().flatten() {
            let own = self.own_frames(copy.ranges[0].0, copy.level, name)?;
            let (_, key) = file_key(&own.file, self.checkout);
            by_file.entry(key).or_default().push(copy.clone());
        }
        Ok(by_file)
    }

    /// The inlined copy `copy` of `file`'s `name` as compared: where it sits, and the places of
    /// every address of its ranges, from its own frame inward. `file`: the file its own frame
    /// must be in at every address (or any of the toolchain's, [`same_file_or_toolchain`]);
    /// `None`, any file (a copy of whichever function of that short name).
    fn copy_source(
        &self,
        copy: &InlinedCopy,
        name: &str,
        file: Option<&str>,
    ) -> Result<PlacedCopy, String> {
        let at = copy.ranges[0].0;
        let around = self.own_frames(at, copy.level, name)?;
        let (chain, callers) = (around.chain, around.callers);
        let mut places = BTreeSet::new();
        for &(start, end) in &copy.ranges {
            let rows = self
                .loader
                .find_location_range(start, end)
                .map_err(|e| format!("{name}: {e}"))?;
            let mut covered = start;
            for (address, length, _) in rows {
                let probe = address.max(start);
                if probe > covered {
                    return Err(format!("{name}: inlined code at {covered:#x} has no line"));
                }
                covered = covered.max(address + length);
                let own = self.own_frames(probe, copy.level, name)?;
                let own_file = file_key(&own.file, self.checkout).1;
                if let Some(file) = file.filter(|file| !same_file_or_toolchain(&own_file, file)) {
                    return Err(format!(
                        "{name}: the inlined code at {probe:#x} is in {}, not {file}",
                        own.file.display()
                    ));
                }
                places.extend(own.places);
            }
            if covered < end {
                return Err(format!("{name}: inlined code at {covered:#x} has no line"));
            }
        }
        let source = source_of(&places, self.checkout, |path| {
            std::fs::read_to_string(path).ok()
        })?;
        Ok(PlacedCopy {
            chain,
            at,
            source,
            callers,
        })
    }

    /// At `address`, the frame `level` from the outermost, which must be a function of short
    /// name `name`: its file, its places and those of the frames inside it, and the short names
    /// of the frames around it.
    fn own_frames(&self, address: u64, level: usize, name: &str) -> Result<OwnFrames, String> {
        let mut iter = self
            .loader
            .find_frames(address)
            .map_err(|e| format!("{name}: {e}"))?;
        let mut frames = Vec::new();
        while let Ok(Some(frame)) = iter.next() {
            let function = frame.function.as_ref().and_then(|f| f.raw_name().ok());
            let function = function.map(|raw| format!("{:#}", rustc_demangle::demangle(&raw)));
            let location = frame.location.as_ref();
            let file = location.and_then(|l| l.file).map(PathBuf::from);
            let line = location.and_then(|l| l.line).filter(|&l| l > 0);
            frames.push((function, file, line));
        }
        frames.reverse();
        let own = frames.get(level).and_then(|(function, file, _)| {
            let function = function.as_deref()?;
            (short_name(function) == name).then_some(file.clone()?)
        });
        let Some(own) = own else {
            return Err(format!(
                "{name}: the inline chain at {address:#x} has no frame of it at depth {level}"
            ));
        };
        let chain = frames[..level].iter().map(|(function, _, _)| {
            function
                .as_deref()
                .map_or_else(|| "?".to_string(), short_name)
        });
        let chain = chain.collect();
        let callers = frames[..level].iter().map(|(function, file, _)| {
            let file = file.as_ref().map(|f| file_key(f, self.checkout).1);
            (
                file.unwrap_or_default(),
                function.clone().unwrap_or_default(),
            )
        });
        let callers = callers.collect();
        let mut places = Vec::new();
        for (function, file, line) in frames.into_iter().skip(level) {
            let Some(function) = function else {
                return Err(format!("{name}: code at {address:#x} has no function"));
            };
            if let (Some(file), Some(line)) = (file, line) {
                places.push(Place {
                    function,
                    file,
                    line,
                });
            }
        }
        Ok(OwnFrames {
            file: own,
            places,
            chain,
            callers,
        })
    }

    /// The one function symbol whose code holds `address`.
    pub(super) fn symbol_at(&self, address: u64) -> Result<String, String> {
        let holds = |extents: &Extents| extents.iter().any(|&(s, e)| s <= address && address < e);
        let mut names = self.symbols.iter().filter(|(_, extents)| holds(extents));
        match (names.next(), names.next()) {
            (Some((name, _)), None) => Ok(name.clone()),
            (None, _) => Err(format!("no symbol holds the code at {address:#x}")),
            (Some(_), Some(_)) => Err(format!("two symbols hold the code at {address:#x}")),
        }
    }

    /// Whether the copies of a function inlined into `symbol` on `side`, in a chain the other
    /// side has not, may be left out of that function's comparison: `Ok` with a note when
    /// `symbol` (a symbol on both sides) is compared in its own right wherever a benchmark
    /// executes it, `Err` with why not. The argument is in the module doc.
    fn caller_compared(
        readers: [&Reader<'_>; 2],
        side: usize,
        symbol: &str,
        changed: &ChangedNames,
    ) -> Result<String, String> {
        let other = SIDES[1 - side];
        if !readers[1 - side].symbols.contains_key(symbol) {
            return Err(format!(
                "`{symbol}`, which holds them, has no symbol in {other}"
            ));
        }
        let why = match compare_one(readers, symbol, changed) {
            comparison if comparison.is_same() => {
                return Ok(format!(
                    "copies in {}'s `{symbol}` alone left out: its source is the same on both \
                     sides, these copies' lines with it",
                    SIDES[side]
                ));
            }
            SourceComparison::Differs(why) | SourceComparison::Unknown(why) => why,
            SourceComparison::Same | SourceComparison::SameApart(_) => String::new(),
        };
        match readers.iter().all(|r| r.all_own(symbol)) {
            true => Ok(format!(
                "copies in {}'s `{symbol}` alone left out: its source is not the same ({why}), \
                 and a benchmark executing them is measured for it",
                SIDES[side]
            )),
            false => Err(format!(
                "`{symbol}`, which holds them, differs ({why}), but some of its code is a \
                 dependency's or the toolchain's, so a trace may name what is inlined into it, \
                 not it"
            )),
        }
    }

    /// Whether the outermost frame of every instruction of `symbol` is in a file of the
    /// workspace, not a dependency's nor the toolchain's ([`is_dependency`]): a trace that
    /// executes changed code of it then names `symbol` itself
    /// ([`crate::steps::instructions::inlined::source_names`]).
    pub(super) fn all_own(&self, symbol: &str) -> bool {
        let Some(extents) = self.symbols.get(symbol) else {
            return false;
        };
        let own = |address: u64| {
            let Ok(mut frames) = self.loader.find_frames(address) else {
                return false;
            };
            let mut file = None;
            while let Ok(Some(frame)) = frames.next() {
                file = frame.location.and_then(|l| l.file).map(PathBuf::from);
            }
            file.is_some_and(|f| !is_dependency(&file_key(&f, self.checkout).1))
        };
        extents.iter().all(|&(start, end)| {
            let Ok(rows) = self.loader.find_location_range(start, end) else {
                return false;
            };
            let mut rows = rows.peekable();
            rows.peek().is_some() && rows.all(|(address, _, _)| own(address.max(start)))
        })
    }
}

/// The frames of an inlined copy at one address ([`Reader::own_frames`]).
struct OwnFrames {
    /// The file of the copy's own frame.
    file: PathBuf,
    /// The places of its frame and of those inside it.
    places: Vec<Place>,
    /// The short names of the frames around it, the outermost (the symbol) first.
    chain: Vec<String>,
    /// The frames around it, by the file of their call (`""` when none) and their name.
    callers: Vec<Key>,
}

/// Whether the items of a file (their keys, [`super::ItemLines`]) define a free function whose
/// path is `function` (`bstr::byte_lines`): an item `m::fn name` (inline modules `m`) such
/// that the path ends with `m::name` after its crate, and the modules between are the last of
/// the file's path (`src/a/b.rs`: `a::b`), or none when the file is the root of that crate
/// (`root`: a unit's name says so; a bench target's `path` may be any file). A path with
/// generic arguments or a trait is not one.
pub(super) fn defines(keys: &[&str], file: &str, function: &str, root: bool) -> bool {
    if function.contains(['<', '>', ' ', '{']) {
        return false;
    }
    let path: Vec<&str> = function.split("::").collect();
    let Some((name, outer)) = path.split_last() else {
        return false;
    };
    let from_file = file_modules(file);
    keys.iter().any(|key| {
        let Some(scope) = key.strip_suffix(&format!("fn {name}")) else {
            return false;
        };
        if !scope.is_empty() && !scope.ends_with("::") {
            return false;
        }
        // A trait's provided method is a path through the trait (`itertools::Itertools::
        // multipeek`), as through a module: a trait and a module of one name cannot coexist.
        let inline = scope.split("::").filter(|s| !s.is_empty());
        let inline: Vec<&str> = inline
            .map(|s| s.strip_prefix("trait ").unwrap_or(s))
            .collect();
        let Some(middle) = outer
            .len()
            .checked_sub(inline.len())
            .filter(|&n| n >= 1 && outer[n..] == inline[..])
            .map(|n| &outer[1..n])
        else {
            return false;
        };
        match middle.is_empty() {
            true => root,
            false => from_file.ends_with(middle),
        }
    })
}

/// The modules the path of `file` names (`src/a/b.rs`: `a`, `b`; `src/a/mod.rs`: `a`).
fn file_modules(file: &str) -> Vec<&str> {
    let path = file.strip_suffix(".rs").unwrap_or(file);
    let mut parts: Vec<&str> = path.split('/').collect();
    if matches!(parts.last(), Some(&("mod" | "lib" | "main"))) {
        parts.pop();
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::super::tests::{compare_apart, compiled_files};
    use super::*;
    use crate::steps::reach::source::Span;

    #[test]
    fn copies_all_in_one_file_of_the_toolchain_are_that_file_s() {
        // itertools #920 (field trial itt-mergeby): std's hashbrown, inlined into `HashMap`'s
        // drop in criterion's set-up, on both sides; 695 benchmarks were measured for it.
        let std = "/rust/deps/hashbrown-0.16.1/src/raw/mod.rs".to_string();
        let both = [std.clone(), std.clone()];
        assert_eq!(one_toolchain_file(both.iter()), Some(std.clone()));
        let registry = "/r/registry/src/i/hashbrown-0.14.5/src/raw/mod.rs".to_string();
        assert_eq!(
            one_toolchain_file([std.clone(), registry.clone()].iter()),
            None
        );
        assert_eq!(one_toolchain_file([registry].iter()), None);
        let core = "/rustc/5980/library/core/src/cmp.rs".to_string();
        assert_eq!(one_toolchain_file([std, core].iter()), None);
        assert_eq!(one_toolchain_file([].iter()), None);
        // Its copies' own lines may be in another file of the toolchain (MIR inlining), never
        // in one of the build.
        let alloc = "/rustc/5980/library/alloc/src/alloc.rs";
        let std = "/rust/deps/hashbrown-0.16.1/src/raw/mod.rs";
        assert!(same_file_or_toolchain(alloc, std));
        assert!(!same_file_or_toolchain("src/lib.rs", std));
        assert!(!same_file_or_toolchain(alloc, "src/lib.rs"));
        assert!(same_file_or_toolchain("src/lib.rs", "src/lib.rs"));
    }

    /// A copy sitting in `chain` whose one span, of `define` in `bench.rs`, reads `text`.
    fn copy(chain: &[&str], text: &str) -> PlacedCopy {
        let key = ("bench.rs".to_string(), "define".to_string());
        let span = Span {
            first: 10,
            text: vec![text.to_string()],
        };
        PlacedCopy {
            chain: chain.iter().map(|c| c.to_string()).collect(),
            at: 0x1000,
            source: FunctionSource {
                spans: [(key, span)].into_iter().collect(),
            },
            callers: Vec::new(),
        }
    }

    /// `sides` compared with a holder that answers `answer` and records what it was asked.
    fn compared(
        sides: [Vec<PlacedCopy>; 2],
        answer: Result<&str, &str>,
    ) -> (SourceComparison, Vec<usize>) {
        let mut asked = Vec::new();
        let mut holder = |side: usize, _at: u64| {
            asked.push(side);
            answer.map(str::to_string).map_err(str::to_string)
        };
        let changed = ChangedNames::default();
        let none = |_: usize, _: &str, _: &Span| Rc::default();
        let comparison = compare_copies(
            "bench.rs",
            "bstr::define",
            &sides,
            &changed,
            &mut holder,
            &none,
        );
        (comparison, asked)
    }

    #[test]
    fn copies_in_a_chain_one_side_has_alone_are_left_out_only_when_the_holder_says_so() {
        let both = || vec![copy(&["main", "g5", "chars"], "group.finish();")];
        let mut head = both();
        head.extend([1, 2].map(|_| copy(&["main", "g15", "chars_count"], "group.finish();")));
        let (left_out, asked) = compared([both(), head.clone()], Ok("`main` differs"));
        let SourceComparison::SameApart(note) = &left_out else {
            panic!("head's new caller's copies are left out: {left_out:?}");
        };
        assert!(note.contains("`main` differs"), "{note}");
        assert_eq!(asked, [1, 1], "asked once per copy head has alone");
        let (kept, _) = compared([both(), head], Err("`main` is a dependency's macro"));
        let SourceComparison::Differs(why) = &kept else {
            panic!("not left out, today's rule: {kept:?}");
        };
        assert!(
            why.contains("inlined 1 times in base and 3 in head")
                && why.contains("`main > g15 > chars_count`")
                && why.contains("2 copies in head only")
                && why.contains("dependency's macro"),
            "{why}"
        );
        // Base's alone: asked about base.
        let mut base = both();
        base.push(copy(&["main", "gone"], "group.finish();"));
        let (_, asked) = compared([base, both()], Ok("differs"));
        assert_eq!(asked, [0]);
        // No chain both sides have: nothing of it compared, it differs.
        let gone = vec![copy(&["main", "gone"], "group.finish();")];
        let (nowhere, asked) = compared([gone, both()], Ok("differs"));
        let SourceComparison::Differs(why) = &nowhere else {
            panic!("no copy compared: {nowhere:?}");
        };
        assert!(why.contains("in no function that both sides"), "{why}");
        assert!(asked.is_empty());
    }

    #[test]
    fn copies_in_a_chain_both_sides_have_are_compared_there_whatever_the_holder_says() {
        let at = |chain: &[&str], text: &str| copy(chain, text);
        let base = vec![at(&["main", "a"], "x"), at(&["main", "b"], "y")];
        // The same copies in other chains: each chain compared on its own.
        let swapped = vec![at(&["main", "a"], "y"), at(&["main", "b"], "x")];
        let (swap, asked) = compared([base.clone(), swapped], Ok("anything"));
        assert!(matches!(swap, SourceComparison::Differs(_)), "{swap:?}");
        assert!(asked.is_empty(), "no chain is one side's alone");
        // One more copy in a caller both sides have.
        let mut more = base.clone();
        more.push(at(&["main", "a"], "x"));
        let (more, _) = compared([base.clone(), more], Ok("anything"));
        let SourceComparison::Differs(why) = &more else {
            panic!("a second copy in `a`: {more:?}");
        };
        assert!(
            why.contains("in `main > a`: 1 copies in base and 2 in head"),
            "{why}"
        );
        let (same, _) = compared([base.clone(), base.into_iter().rev().collect()], Err("-"));
        assert_eq!(same, SourceComparison::Same);
    }

    /// A crate whose `register` (`#[inline(always)]`: no symbol) is inlined `in_setup` times
    /// into `setup` (`#[inline(never)]`) and once into `main`; `extra` (its definition, with
    /// its attribute) calls it once more, called from `setup` (`in_setup_extra`) or `main`.
    fn callers_crate(in_setup: usize, extra: Option<(&str, bool)>) -> Vec<(&'static str, String)> {
        let call = "    register(v, std::hint::black_box(2));\n".repeat(in_setup);
        let (definition, from_setup, from_main) = match extra {
            None => (String::new(), "", ""),
            Some((hint, in_setup)) => (
                format!(
                    "#[inline({hint})]\nfn extra(v: &mut Vec<u64>) {{\n    \
                     register(v, std::hint::black_box(4));\n}}\n\n"
                ),
                if in_setup { "    extra(v);\n" } else { "" },
                if in_setup { "" } else { "    extra(&mut v);\n" },
            ),
        };
        let main = format!(
            "#[inline(never)]\nfn work(k: u64) -> u64 {{\n    k.wrapping_mul(3)\n}}\n\n\
             #[inline(always)]\nfn register(v: &mut Vec<u64>, k: u64) {{\n    \
             v.push(work(k));\n    v.push(k + 1);\n}}\n\n{definition}\
             #[inline(never)]\nfn setup(v: &mut Vec<u64>) {{\n{call}{from_setup}}}\n\n\
             fn main() {{\n    let mut v = Vec::new();\n    setup(&mut v);\n    \
             register(&mut v, std::hint::black_box(3));\n{from_main}    println!(\"{{v:?}}\");\n}}\n"
        );
        vec![("src/main.rs", main)]
    }

    #[test]
    fn copies_in_a_new_caller_are_left_out_where_the_symbol_holding_them_is_compared() {
        let dir = tempfile::tempdir().unwrap();
        for (side, in_setup, extra) in [
            ("base", 1, None),
            ("new-caller", 1, Some(("always", true))),
            ("twice", 2, None),
            ("new-symbol", 1, Some(("never", false))),
        ] {
            compiled_files(dir.path(), side, &callers_crate(in_setup, extra));
        }
        // Head's `setup` inlines the new `extra`, and `register` into it: a chain base has
        // not. `setup` differs (it calls `extra`), its code is all the crate's: a benchmark
        // executing that copy is measured for `setup`.
        let setup = compare_apart(dir.path(), "base", "new-caller", "demo::setup");
        assert!(matches!(setup, SourceComparison::Differs(_)), "{setup:?}");
        let register = compare_apart(dir.path(), "base", "new-caller", "demo::register");
        let SourceComparison::SameApart(note) = &register else {
            panic!("the copy in head's `setup > extra` is left out: {register:?}");
        };
        assert!(
            note.contains("head's `demo::setup` alone left out"),
            "{note}"
        );
        let back = compare_apart(dir.path(), "new-caller", "base", "demo::register");
        assert!(back.is_same(), "the other way round: {back:?}");
        // A second copy in `setup`, a caller both sides inline it into: still differs.
        let twice = compare_apart(dir.path(), "base", "twice", "demo::register");
        let SourceComparison::Differs(why) = &twice else {
            panic!("one copy more in `setup`: {twice:?}");
        };
        assert!(
            why.contains("in `setup`: 1 copies in base and 2 in head"),
            "{why}"
        );
        // In a symbol base has not (`extra`, called): nothing compares it in its own right
        // wherever it runs here, so today's rule holds.
        let new_symbol = compare_apart(dir.path(), "base", "new-symbol", "demo::register");
        let SourceComparison::Differs(why) = &new_symbol else {
            panic!("a copy in a new symbol: {new_symbol:?}");
        };
        assert!(
            why.contains("`demo::extra`, which holds them, has no symbol in base"),
            "{why}"
        );
    }

    /// bstr's shape: `setup` is made by `make_setup!`, a macro of a file cargo would keep in
    /// its registry (`registry/src/…`, `#[path]` here), from `first` and, in head, `extra`,
    /// both inlined and each inlining `register`.
    fn macro_made_crate(dir: &Path, side: &str, extra: bool) {
        let macros = dir.join("registry/src/fake-0.1.0/src/macros.rs");
        std::fs::create_dir_all(macros.parent().unwrap()).unwrap();
        let body = "macro_rules! make_setup {\n    ($($f:ident),*) => {\n        \
                    #[inline(never)]\n        fn setup(v: &mut Vec<u64>) {\n            \
                    $( $f(v); )*\n        }\n    };\n}\n";
        std::fs::write(&macros, body).unwrap();
        let (definition, called) = match extra {
            true => (
                "#[inline(always)]\nfn extra(v: &mut Vec<u64>) {\n    \
                 register(v, std::hint::black_box(4));\n}\n\n",
                "first, extra",
            ),
            false => ("", "first"),
        };
        let main = format!(
            "#[path = {:?}]\n#[macro_use]\nmod fake;\n\n\
             #[inline(never)]\nfn work(k: u64) -> u64 {{\n    k.wrapping_mul(3)\n}}\n\n\
             #[inline(always)]\nfn register(v: &mut Vec<u64>, k: u64) {{\n    \
             v.push(work(k));\n    v.push(k + 1);\n}}\n\n\
             #[inline(always)]\nfn first(v: &mut Vec<u64>) {{\n    \
             register(v, std::hint::black_box(2));\n}}\n\n{definition}\
             make_setup!({called});\n\n\
             fn main() {{\n    let mut v = Vec::new();\n    setup(&mut v);\n    \
             println!(\"{{v:?}}\");\n}}\n",
            macros.display()
        );
        compiled_files(dir, side, &[("src/main.rs", main)]);
    }

    /// A crate whose `util::setup<T>` (`#[inline(never)]`) inlines `util::register`
    /// (`#[inline(always)]`), both in `src/util.rs` (`util`, then `extra` after it), `main`
    /// instantiating `setup` for each of `types`, and calling `x.lt(&y)` on `i32`s; `util`'s
    /// own `lt` makes `lt`'s copies be in two files.
    fn instances_crate(types: &[&str], extra: &str) -> Vec<(&'static str, String)> {
        let util = format!(
            "#[inline(always)]\npub fn register(v: &mut Vec<u64>, k: u64) {{\n    \
             v.push(k.wrapping_mul(3));\n}}\n\n#[inline(never)]\npub fn setup<T>(v: &mut \
             Vec<u64>) {{\n    register(v, std::hint::black_box(std::mem::size_of::<T>() as \
             u64));\n}}\n\n#[inline(always)]\npub fn lt(a: u64, b: u64) -> bool {{\n    \
             a.wrapping_add(1) < b\n}}\n{extra}"
        );
        let calls: String = types
            .iter()
            .map(|t| format!("    util::setup::<{t}>(&mut v);\n"))
            .collect();
        let main = format!(
            "mod util;\n\nfn main() {{\n    let mut v = Vec::new();\n{calls}    \
             let (x, y) = std::hint::black_box((3i32, 4i32));\n    \
             println!(\"{{v:?}} {{}} {{}}\", x.lt(&y), util::lt(v[0], 9));\n}}\n"
        );
        vec![("src/util.rs", util), ("src/main.rs", main)]
    }

    #[test]
    fn copies_of_text_the_same_on_both_sides_are_the_same_source_whatever_their_count() {
        // itertools #920 (field trial itt-mergeby): std's hashbrown `drop_inner_table`, in
        // the toolchain's files and inlined into callers of the same text, 96 times in base
        // and 95 in head; 695 benchmarks were measured for the copy fewer.
        let dir = tempfile::tempdir().unwrap();
        compiled_files(dir.path(), "base", &instances_crate(&["u32", "u64"], ""));
        compiled_files(dir.path(), "head", &instances_crate(&["u32"], ""));
        let changed_util = "\n#[allow(dead_code)]\npub fn added() -> u64 {\n    1\n}\n";
        compiled_files(dir.path(), "util", &instances_crate(&["u32"], changed_util));
        // Head instantiates `setup` once, not twice: one copy fewer in `setup`, from
        // `src/util.rs`, which the commit does not change.
        let register = compare_apart(dir.path(), "base", "head", "demo::util::register");
        let SourceComparison::SameApart(note) = &register else {
            panic!("the same text inlined once less: {register:?}");
        };
        assert!(
            note.contains("inlined 2 times in base and 1 in head") && note.contains("same source"),
            "{note}"
        );
        // The same, with `src/util.rs` changed elsewhere: the copies count as before.
        let changed = compare_apart(dir.path(), "base", "util", "demo::util::register");
        let SourceComparison::Differs(why) = &changed else {
            panic!("a file the commit changes: {changed:?}");
        };
        assert!(
            why.contains("in `setup`: 2 copies in base and 1 in head"),
            "{why}"
        );
    }

    #[test]
    fn a_standard_library_function_named_by_a_qualified_path_is_compared_by_every_copy_of_its_name()
    {
        // itertools #920: `<i32 as core::cmp::PartialOrd>::lt` in criterion's set-up was read
        // as a function of the crate `<i32 as core`, which no file defines; 155 benchmarks
        // were measured for it.
        // Base and head built from the same text: what stopped it was the crate.
        let dir = tempfile::tempdir().unwrap();
        compiled_files(dir.path(), "base", &instances_crate(&["u32"], ""));
        compiled_files(dir.path(), "head", &instances_crate(&["u32"], ""));
        let added = "\n#[allow(dead_code)]\npub fn added() -> u64 {\n    1\n}\n";
        compiled_files(dir.path(), "util", &instances_crate(&["u32"], added));
        let lt = "<i32 as core::cmp::PartialOrd>::lt";
        let same = compare_apart(dir.path(), "base", "head", lt);
        let SourceComparison::SameApart(note) = &same else {
            panic!("every `lt` reads the same: {same:?}");
        };
        assert!(
            note.contains("every `lt`, a function of the standard library"),
            "{note}"
        );
        // `util::lt`, one of its namesakes, is in a file the commit changes: unknown, as before.
        let changed = compare_apart(dir.path(), "base", "util", lt);
        let SourceComparison::Unknown(why) = &changed else {
            panic!("a namesake in a changed file: {changed:?}");
        };
        assert!(
            why.contains("cannot be told") && why.contains("src/util.rs does not read the same"),
            "{why}"
        );
    }

    #[test]
    fn copies_are_the_same_text_only_when_every_file_reads_the_same_and_names_nothing_changed() {
        let copies = |n: usize, file: &str, caller: &str| -> Vec<PlacedCopy> {
            let mut copy = copy(&["drop_in_place", "drop"], "self.free_buckets();");
            let key = |f: &str, function: &str| (f.to_string(), function.to_string());
            copy.source.spans = [(key(file, "drop"), span("self.free_buckets();"))].into();
            copy.callers = vec![key("/rustc/1/core/ptr.rs", caller)];
            vec![copy; n]
        };
        let std = "/rust/deps/hashbrown-0.16.1/src/raw/mod.rs";
        let same = |file: &str| file != "src/changed.rs";
        let mut changed = ChangedNames::default();
        changed.insert(
            "W".to_string(),
            &super::super::Origin::Item("src/w.rs".into()),
        );
        changed.crates = Some(["demo".to_string()].into());
        let none = |_: usize, _: &str, _: &Span| Rc::default();
        let check =
            |sources: [Vec<PlacedCopy>; 2]| same_text_everywhere(&sources, &changed, &same, &none);
        let core = "drop_in_place<core::iter::{impl#2}::W>";
        assert_eq!(check([copies(6, std, core), copies(5, std, core)]), Ok(()));
        let why = check([copies(6, std, core), copies(0, std, core)]).unwrap_err();
        assert!(why.contains("head has no copy"), "{why}");
        let why = check([copies(1, "src/changed.rs", core), copies(1, std, core)]).unwrap_err();
        assert!(
            why.contains("src/changed.rs does not read the same"),
            "{why}"
        );
        let own = "drop_in_place<demo::W>";
        let why = check([copies(1, std, core), copies(1, std, own)]).unwrap_err();
        assert!(why.contains("names `W`"), "{why}");
        let mut named = copies(1, "src/same.rs", core);
        named[0].source.spans = [(
            ("src/same.rs".to_string(), "drop".to_string()),
            span("W::new();"),
        )]
        .into();
        let why = check([named, copies(1, std, core)]).unwrap_err();
        assert!(why.contains("its lines name `W`"), "{why}");
    }

    fn span(text: &str) -> Span {
        Span {
            first: 1,
            text: vec![text.to_string()],
        }
    }

    #[test]
    fn copies_in_a_symbol_a_dependency_s_macro_made_keep_counting() {
        let dir = tempfile::tempdir().unwrap();
        macro_made_crate(dir.path(), "base", false);
        macro_made_crate(dir.path(), "head", true);
        // `setup` differs, but its lines are the macro's: a trace names `first` and `register`,
        // inlined into it, and not `setup`, so nothing compares head's new `extra` there.
        let register = compare_apart(dir.path(), "base", "head", "demo::register");
        let SourceComparison::Differs(why) = &register else {
            panic!("the copy in `setup > extra` still counts: {register:?}");
        };
        assert!(
            why.contains("`setup > extra`") && why.contains("a dependency's"),
            "{why}"
        );
    }

    #[test]
    fn a_free_function_is_defined_by_its_file_and_inline_modules() {
        let root = ["fn byte_lines", "fn chars", "inner::fn deep"];
        let bench = "bench/src/bench.rs";
        assert!(defines(&root, bench, "bstr::byte_lines", true));
        assert!(
            !defines(&root, bench, "bstr::byte_lines", false),
            "at the top of a file that is no crate's root"
        );
        assert!(defines(&root, bench, "bstr::inner::deep", true));
        assert!(!defines(&root, bench, "bstr::deep", true));
        assert!(!defines(&root, bench, "bstr::other", true));
        assert!(!defines(&root, "src/x.rs", "byte_lines", true), "no crate");
        let module = ["fn f"];
        assert!(defines(&module, "src/a/b.rs", "demo::a::b::f", false));
        assert!(defines(&module, "src/a/mod.rs", "demo::a::f", false));
        assert!(!defines(&module, "src/a/b.rs", "demo::c::f", false));
        let method = ["impl Chars ::fn count", "trait ByteSlice::fn chars"];
        assert!(!defines(&method, "src/utf8.rs", "bstr::utf8::count", false));
        assert!(!defines(&method, "src/ext_slice.rs", "bstr::chars", true));
        assert!(!defines(&root, "src/x.rs", "bstr::define<F>", true));
        assert!(!defines(
            &["item fn chars"],
            "src/x.rs",
            "bstr::chars",
            true
        ));
    }

    /// A crate whose `setup` (in `src/main.rs`, with `main_extra` after it) calls `W::next`,
    /// a trait impl's method inlined everywhere, with a closure (`closure`, its body), and
    /// `Tr::provided`, a trait's provided method, both of `src/util.rs`.
    fn methods_crate(closure: &str, main_extra: &str) -> Vec<(&'static str, String)> {
        let util = format!(
            "pub struct W(pub u64);\n\nimpl Iterator for W {{\n    type Item = u64;\n\n    \
             #[inline(always)]\n    fn next(&mut self) -> Option<u64> {{\n        \
             self.0 = self.0.wrapping_mul(7);\n        (self.0 > 3).then(|| {closure})\n    \
             }}\n}}\n\npub trait Tr {{\n    fn seed(&self) -> u64;\n\n    #[inline(always)]\n    \
             fn provided(&self) -> u64 {{\n        std::hint::black_box(self.seed()).wrapping_mul(11)\n    }}\n}}\n\n\
             impl Tr for W {{\n    #[inline(always)]\n    fn seed(&self) -> u64 {{\n        \
             self.0\n    }}\n}}\n"
        );
        let main = format!(
            "mod util;\n\nuse util::Tr;\n\n#[inline(never)]\nfn setup(n: u64) -> u64 {{\n    \
             let mut w = util::W(std::hint::black_box(n));\n    let a = w.next().unwrap_or(0);\n    \
             a ^ w.provided()\n}}\n{main_extra}\nfn main() {{\n    \
             println!(\"{{}}\", setup(std::hint::black_box(3)));\n}}\n"
        );
        vec![("src/util.rs", util), ("src/main.rs", main)]
    }

    #[test]
    fn a_trait_impl_s_method_its_closure_and_a_provided_method_are_found_by_their_items() {
        // itertools #920 (field trial itt-mergeby): `<MultiPeek<I> as Iterator>::next`, its
        // closure and `Itertools::multipeek`, inlined everywhere, kept 155 benchmarks
        // measured: `defines` knew free functions only, and a closure nothing.
        let dir = tempfile::tempdir().unwrap();
        compiled_files(
            dir.path(),
            "base",
            &methods_crate("std::hint::black_box(self.0) ^ 5", ""),
        );
        let moved = "\n#[allow(dead_code)]\nfn added() -> u64 {\n    1\n}\n";
        compiled_files(
            dir.path(),
            "head",
            &methods_crate("std::hint::black_box(self.0) ^ 5", moved),
        );
        compiled_files(
            dir.path(),
            "closure",
            &methods_crate("std::hint::black_box(self.0) ^ 6", ""),
        );
        let macro_call = "{ debug_assert!(true); std::hint::black_box(self.0) ^ 5 }";
        compiled_files(dir.path(), "macro", &methods_crate(macro_call, ""));
        let next = "<demo::util::W as core::iter::traits::iterator::Iterator>::next";
        let closure = format!("{next}::{{{{closure}}}}");
        let provided = "demo::util::Tr::provided";
        for function in [next, closure.as_str(), provided] {
            let same = compare_apart(dir.path(), "base", "head", function);
            assert!(same.is_same(), "{function}: {same:?}");
            let changed = compare_apart(dir.path(), "base", "closure", function);
            let differs = matches!(changed, SourceComparison::Differs(_));
            assert_eq!(differs, function != provided, "{function}: {changed:?}");
        }
        // A macro call in `next`: its closure's lines may be the macro's, unknown.
        let unknown = compare_apart(dir.path(), "base", "macro", &closure);
        let SourceComparison::Unknown(why) = &unknown else {
            panic!("a macro call around the closure: {unknown:?}");
        };
        assert!(why.contains("calls a macro"), "{why}");
    }

    /// A crate whose `setup` converts through a blanket impl (`ConvertInto`, jiff's bench
    /// crate's shape) into a type named by its path, and steps an iterator whose impl names its
    /// trait by its path, each inlined everywhere, of `src/util.rs`; `factor` the conversion's.
    fn paths_crate(factor: &str, main_extra: &str) -> Vec<(&'static str, String)> {
        let util = format!(
            "pub trait ConvertFrom<F> {{\n    fn convert_from(x: F) -> Self;\n}}\n\n\
             pub trait ConvertInto<T> {{\n    fn convert_into(self) -> T;\n}}\n\n\
             impl<F, T: ConvertFrom<F>> ConvertInto<T> for F {{\n    #[inline(always)]\n    \
             fn convert_into(self) -> T {{\n        T::convert_from(self)\n    }}\n}}\n\n\
             impl ConvertFrom<u32> for std::num::Wrapping<u64> {{\n    #[inline(always)]\n    \
             fn convert_from(x: u32) -> Self {{\n        \
             std::num::Wrapping(std::hint::black_box(x as u64).wrapping_mul({factor}))\n    \
             }}\n}}\n\npub struct W(pub u64);\n\nimpl std::iter::Iterator for W {{\n    \
             type Item = u64;\n\n    #[inline(always)]\n    fn next(&mut self) -> Option<u64> \
             {{\n        self.0 = std::hint::black_box(self.0).wrapping_mul(7);\n        \
             Some(self.0)\n    }}\n}}\n"
        );
        let main = format!(
            "mod util;\n\nuse util::ConvertInto;\n\n#[inline(never)]\nfn setup(n: u32) -> u64 \
             {{\n    let w: std::num::Wrapping<u64> = std::hint::black_box(n).convert_into();\n    \
             let mut it = util::W(w.0);\n    it.next().unwrap_or(0)\n}}\n{main_extra}\n\
             fn main() {{\n    println!(\"{{}}\", setup(std::hint::black_box(3)));\n}}\n"
        );
        vec![("src/util.rs", util), ("src/main.rs", main)]
    }

    #[test]
    fn a_blanket_impl_s_method_and_an_impl_named_by_paths_are_found_by_their_items() {
        // jiff #518 (field trial jiff-tsdt): `<F as ConvertInto<T>>::convert_into` and
        // `<chrono::DateTime<Utc> as ConvertFrom<Timestamp>>::convert_from`, inlined in the
        // bench crate's set-up, had no defining file: a blanket impl, a trait of the build,
        // and an item key that writes a path `a : : B`, which was never read as one.
        let dir = tempfile::tempdir().unwrap();
        compiled_files(dir.path(), "base", &paths_crate("5", ""));
        let moved = "\n#[allow(dead_code)]\nfn added() -> u64 {\n    1\n}\n";
        compiled_files(dir.path(), "head", &paths_crate("5", moved));
        compiled_files(dir.path(), "changed", &paths_crate("6", ""));
        let into = "<F as demo::util::ConvertInto<T>>::convert_into";
        let from =
            "<core::num::wrapping::Wrapping<u64> as demo::util::ConvertFrom<u32>>::convert_from";
        let next = "<demo::util::W as core::iter::traits::iterator::Iterator>::next";
        for function in [into, from, next] {
            let same = compare_apart(dir.path(), "base", "head", function);
            assert!(same.is_same(), "{function}: {same:?}");
        }
        for function in [into, from] {
            let changed = compare_apart(dir.path(), "base", "changed", function);
            let differs = matches!(changed, SourceComparison::Differs(_));
            assert!(differs, "{function}: {changed:?}");
        }
        // A name no file of its crate defines: unknown, each file of its copies named once
        // (both sides' were listed, `src/util.rs, src/util.rs`).
        let elsewhere = "<F as other::ConvertInto<T>>::convert_into";
        let unknown = compare_apart(dir.path(), "base", "head", elsewhere);
        let SourceComparison::Unknown(why) = &unknown else {
            panic!("no file of `other` defines it: {unknown:?}");
        };
        assert!(why.contains("cannot be told (src/util.rs)"), "{why}");
    }

    #[test]
    fn a_closure_is_looked_for_in_the_function_around_it() {
        let next = "<demo::W as core::iter::traits::iterator::Iterator>::next";
        let closure = format!("{next}::{{{{closure}}}}");
        assert_eq!(enclosing_function(&closure), Some(next));
        let nested = "demo::setup::{{closure}}::{closure#1}";
        assert_eq!(enclosing_function(nested), Some("demo::setup"));
        assert_eq!(enclosing_function("demo::setup"), None);
        assert_eq!(enclosing_function("{{closure}}"), None);
        assert!(calls_macro("fn next () { debug_assert ! (true) ; 1 }"));
        assert!(calls_macro("fn f () { let v = vec ! [1] ; }"));
        assert!(!calls_macro("fn f () { if a != b { ! c } else { d } }"));
        assert!(!calls_macro(
            "fn f () { self . buf . pop_front () . or_else (| | x) }"
        ));
    }

    #[test]
    fn a_file_is_the_crate_s_whose_root_s_folder_is_the_deepest_above_it() {
        // itertools #920: `MultiPeek` of the library, not a namesake of the bench crate.
        let roots = |list: &[(&'static str, &'static str)]| {
            let list: Vec<(PathBuf, &'static str)> =
                list.iter().map(|&(r, n)| (PathBuf::from(r), n)).collect();
            list.into_iter()
        };
        let itertools = [
            ("src/lib.rs", "itertools"),
            ("benches/specializations.rs", "specializations"),
        ];
        let of = |list: &[(&'static str, &'static str)], file: &str| {
            crate_of(roots(list), Path::new(file)).map(str::to_string)
        };
        assert_eq!(
            of(&itertools, "src/multipeek_impl.rs").as_deref(),
            Some("itertools")
        );
        assert_eq!(
            of(&itertools, "src/adaptors/mod.rs").as_deref(),
            Some("itertools")
        );
        let bench = of(&itertools, "benches/specializations.rs");
        assert_eq!(bench.as_deref(), Some("specializations"));
        assert_eq!(of(&itertools, "tests/quick.rs"), None, "no root above it");
        let nested = [("src/lib.rs", "outer"), ("src/inner/lib.rs", "inner")];
        assert_eq!(of(&nested, "src/inner/a.rs").as_deref(), Some("inner"));
        assert_eq!(of(&nested, "src/a.rs").as_deref(), Some("outer"));
        let shared = [("src/lib.rs", "demo"), ("src/main.rs", "demo_bin")];
        assert_eq!(
            of(&shared, "src/util.rs"),
            None,
            "two crates' roots in one folder"
        );
    }

    #[test]
    fn a_trait_s_provided_method_is_defined_by_its_trait() {
        let lib = ["trait Itertools::fn multipeek", "fn multipeek"];
        let function = "itertools::Itertools::multipeek";
        assert!(defines(&lib, "src/lib.rs", function, true));
        assert!(
            !defines(&lib, "src/lib.rs", function, false),
            "not its crate's root"
        );
        let module = ["fn multipeek"];
        assert!(!defines(&module, "src/multipeek_impl.rs", function, false));
        assert!(!defines(
            &module,
            "benches/specializations.rs",
            function,
            true
        ));
        let inner = ["adaptors::trait Itertools::fn multipeek"];
        assert!(defines(
            &inner,
            "src/lib.rs",
            "itertools::adaptors::Itertools::multipeek",
            true
        ));
    }

    #[test]
    fn a_name_in_no_debug_section_of_the_executable_has_no_inlined_copy_to_look_for() {
        let exe = std::env::current_exe().unwrap();
        assert!(may_name(&exe, "copies_by_file").unwrap());
        assert!(!may_name(&exe, "function_of_no_crate").unwrap());
        // Not ASCII: a mangled name spells it otherwise.
        assert!(may_name(&exe, "fünction_of_no_crate").unwrap());
        assert!(may_name(Path::new("/no/such/executable"), "f").is_err());
    }
}
