//! A function inlined into all its callers on both sides, compared by its inlined copies.
//!
//! Why: a small function of a bench crate (bstr's registration functions, `byte_lines`, `chars`,
//! called once from `main`) may be inlined everywhere in the line-tables build, so neither side
//! has a symbol of it (field trial bstr-count, docs/design/field-trials.md). Its code is still
//! there: every `DW_TAG_inlined_subroutine` whose abstract origin is that function is a copy of
//! it, with the address ranges it covers. The line tables of `debug = "line-tables-only"` name a
//! function by its short name only (`byte_lines`, `define<F>`: no module path, no linkage name),
//! so the copies are found by short name ([`InlinedIndex`]) and then told apart by where their
//! lines are ([`super::Reader::inlined_source`]): the file whose items define a function of that
//! path. At each address of a copy, the frames from the copy's own (its depth in the DIE tree)
//! inward are its places: its lines, and what it inlines in its turn, as for a symbol.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use addr2line::gimli;
use object::{Object, ObjectSection, SectionKind};

use super::{
    ChangedNames, FunctionSource, Key, Place, Reader, SourceComparison, compare, file_key,
    is_toolchain, names_changed, short_name, source_of,
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

/// The inlined copies of `executable`'s functions, from its DWARF.
pub(super) fn inlined_index(executable: &Path) -> Result<InlinedIndex, String> {
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
    let why = |e: gimli::Error| format!("cannot read the DWARF of {}: {e}", executable.display());
    // The linker discards unused sections but not their DWARF, whose addresses it leaves at 0
    // (or another value outside the code): such a copy is not in the executable.
    let code: Vec<(u64, u64)> = file
        .sections()
        .filter(|s| s.kind() == SectionKind::Text)
        .map(|s| (s.address(), s.address() + s.size()))
        .collect();
    let mut index = InlinedIndex::default();
    let mut headers = dwarf.units();
    let mut units = Vec::new();
    while let Some(header) = headers.next().map_err(why)? {
        units.push(dwarf.unit(header).map_err(why)?);
    }
    for unit in &units {
        if let Some(name) = &unit.name {
            let name = name.to_string_lossy();
            if let Some((root, unit)) = name.split_once("/@/") {
                let krate = unit.split('.').next().unwrap_or(unit);
                index.roots.insert((PathBuf::from(root), krate.to_string()));
            }
        }
        index_unit(&dwarf, (unit, &units), &code, &mut index).map_err(why)?;
    }
    Ok(index)
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

/// `function`, with no symbol on either side, compared by its inlined copies: those of the one
/// file that defines a function of its path ([`defines`]), the same number on both sides, and
/// each copy's spans the same text as one of the other side's; no span may name what the commit
/// changes. Anything unread, or copies in two files that could each define it, is unknown.
pub(super) fn compare_inlined(
    readers: [&Reader<'_>; 2],
    function: &str,
    changed: &ChangedNames,
) -> SourceComparison {
    match inlined_sources(readers, function) {
        Err(why) => SourceComparison::Unknown(why),
        Ok((file, sources)) => compare_copies(&file, function, &sources, changed),
    }
}

/// Each side's inlined copies of `function`, with the file that defines it.
fn inlined_sources(
    readers: [&Reader<'_>; 2],
    function: &str,
) -> Result<(String, [Vec<FunctionSource>; 2]), String> {
    let name = short_name(function);
    if name == "{closure}" {
        return Err(format!("no side has a symbol {function}"));
    }
    let [base, head] = readers.map(|r| r.copies_by_file(&name));
    let by_file = [base?, head?];
    let mut defining = BTreeSet::new();
    let krate = function.split("::").next().unwrap_or_default();
    for side in [0, 1] {
        // The toolchain's files define no function of a crate of the build.
        let files = by_file[side].keys().filter(|f| !is_toolchain(Path::new(f)));
        for file in files {
            let items = readers[side].items(file)?;
            let keys: Vec<&str> = items.iter().map(|i| i.key.as_str()).collect();
            let root = readers[side].is_root_of(file, krate);
            if defines(&keys, file, function, root) {
                defining.insert(file.clone());
            }
        }
    }
    let mut defining = defining.into_iter();
    let (Some(file), None) = (defining.next(), defining.next()) else {
        let files: Vec<String> = by_file.iter().flat_map(|f| f.keys().cloned()).collect();
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
            .map(|copy| readers[side].copy_source(copy, &name, &file));
        sources.collect::<Result<Vec<_>, String>>()
    });
    let [base, head] = sources;
    Ok((file, [base?, head?]))
}

/// The inlined copies of `file`'s `function` on both sides (`sources`) compared.
fn compare_copies(
    file: &str,
    function: &str,
    sources: &[Vec<FunctionSource>; 2],
    changed: &ChangedNames,
) -> SourceComparison {
    let name = short_name(function);
    let [mut base, mut head] = sources.each_ref().map(|c| c.iter().collect::<Vec<_>>());
    base.sort_by(|a, b| texts(a).cmp(&texts(b)));
    head.sort_by(|a, b| texts(a).cmp(&texts(b)));
    if base.len() != head.len() {
        return SourceComparison::Differs(format!(
            "`{name}` ({file}) has no symbol on either side, and is inlined {} times in base and \
             {} in head",
            base.len(),
            head.len()
        ));
    }
    let differing = base.iter().zip(&head).find(|(b, h)| texts(b) != texts(h));
    if let Some((b, h)) = differing {
        let why = match compare(b, h) {
            SourceComparison::Differs(why) => why,
            _ => "their spans differ".to_string(),
        };
        return SourceComparison::Differs(format!(
            "`{name}` ({file}) has no symbol on either side, and an inlined copy of it differs: \
             {why}"
        ));
    }
    let spans = sources
        .iter()
        .flatten()
        .flat_map(|copy| copy.spans.iter().map(|((file, _), span)| (file, span)));
    match names_changed(spans, changed) {
        Some((changed_name, file)) => {
            SourceComparison::Differs(changed.reason(&changed_name, file))
        }
        None => SourceComparison::Same,
    }
}

/// What a copy's spans read, their line numbers aside (a function added above moves them).
fn texts(copy: &FunctionSource) -> Vec<(&Key, &Vec<String>)> {
    copy.spans
        .iter()
        .map(|(key, span)| (key, &span.text))
        .collect()
}

impl Reader<'_> {
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

    /// The inlined copies of functions of short name `name`, by the file their own frames are
    /// in (as compared: [`file_key`]).
    fn copies_by_file(&self, name: &str) -> Result<BTreeMap<String, Vec<InlinedCopy>>, String> {
        let index = self
            .inlined
            .get_or_init(|| inlined_index(self.executable))
            .as_ref()
            .map_err(Clone::clone)?;
        if index.unresolved > 0 {
            return Err(format!(
                "{} inlined subroutines of {} have an origin in another unit",
                index.unresolved,
                self.executable.display()
            ));
        }
        let mut by_file: BTreeMap<String, Vec<InlinedCopy>> = BTreeMap::new();
        for copy in index.copies.get(name).into_iter().flatten() {
            let (file, _) = self.own_frames(copy.ranges[0].0, copy.level, name)?;
            let (_, key) = file_key(&file, self.checkout);
            by_file.entry(key).or_default().push(copy.clone());
        }
        Ok(by_file)
    }

    /// The source of the inlined copy `copy` of `file`'s `name`: the places of every address of
    /// its ranges, from its own frame inward.
    fn copy_source(
        &self,
        copy: &InlinedCopy,
        name: &str,
        file: &str,
    ) -> Result<FunctionSource, String> {
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
                let (own, frames) = self.own_frames(probe, copy.level, name)?;
                if file_key(&own, self.checkout).1 != file {
                    return Err(format!(
                        "{name}: the inlined code at {probe:#x} is in {}, not {file}",
                        own.display()
                    ));
                }
                places.extend(frames);
            }
            if covered < end {
                return Err(format!("{name}: inlined code at {covered:#x} has no line"));
            }
        }
        source_of(&places, self.checkout, |path| {
            std::fs::read_to_string(path).ok()
        })
    }

    /// At `address`, the file of the frame `level` from the outermost, which must be a function
    /// of short name `name`, and the places of it and the frames inside it.
    fn own_frames(
        &self,
        address: u64,
        level: usize,
        name: &str,
    ) -> Result<(PathBuf, Vec<Place>), String> {
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
        Ok((own, places))
    }
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
        let inline: Vec<&str> = scope.split("::").filter(|s| !s.is_empty()).collect();
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
    use super::*;

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
}
