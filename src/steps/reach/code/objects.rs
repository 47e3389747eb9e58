//! The objects an executable was linked from, read once into owned tables: each object's
//! sections (extent, alignment, flags, relocations) and symbols, and every defined name.
//!
//! Why owned tables rather than `object`'s views: a comparison jumps from section to section
//! across a hundred objects (std's rlib among them), following relocations; re-parsing an object
//! for each jump would cost its whole section table every time. The bytes stay in the files'
//! buffers and are sliced when compared.

use std::collections::HashMap;
use std::path::Path;

use object::read::archive::ArchiveFile;
use object::read::elf::{ElfFile64, ElfSection64, SectionHeader as _};
use object::{
    Object as _, ObjectSection, ObjectSymbol, RelocationFlags, RelocationTarget, SectionFlags,
    SectionIndex, SymbolKind, SymbolSection,
};
use rayon::prelude::*;

use super::CodeError;
pub(super) use crate::steps::build::link::stable_name;

/// A section of an object, `(object, section index)`.
pub(super) type SecRef = (u32, u32);
/// A symbol of an object, `(object, symbol index)`.
pub(super) type SymRef = (u32, u32);

/// The ELF section flags a section's identity includes: what it may do at run time.
const IDENTITY_FLAGS: u64 = 0x1 | 0x2 | 0x4 | 0x10 | 0x20 | 0x400; // WRITE ALLOC EXEC MERGE STRINGS TLS
const SHF_EXECINSTR: u64 = 0x4;
const SHF_MERGE: u64 = 0x10;
const SHF_STRINGS: u64 = 0x20;

/// Every object of the inputs of one link, with their bytes.
pub(super) struct Objects {
    data: Vec<Vec<u8>>,
    pub objects: Vec<Object>,
    /// Defined symbols by raw name without ThinLTO's suffix ([`stable_name`]), in link order
    /// (objects in the command's order, archive members in archive order).
    pub definitions: HashMap<Box<str>, Vec<SymRef>>,
    /// An input that holds LLVM bitcode instead of machine code (linker-plugin LTO).
    pub bitcode: Option<String>,
    /// Defined symbols whose name carries the counter LLVM's IR linker appends ([`lto_stem`]),
    /// by that name without it, in symbol order.
    pub renamed: HashMap<Box<str>, Vec<SymRef>>,
}

/// One relocatable object (a file, or a member of an archive).
pub(super) struct Object {
    input: usize,
    start: usize,
    pub sections: Vec<Section>,
    pub symbols: Vec<Symbol>,
    /// Per section: the one function symbol at its offset 0, when it holds exactly one function.
    pub sole_function: Vec<Option<u32>>,
    /// Per section: a named symbol at its offset 0 (what a report calls the section).
    pub name_of_section: Vec<Option<u32>>,
    /// Whether its code is x86-64's (what [`super::assert_failure`] can decode).
    pub x86_64: bool,
}

pub(super) struct Section {
    /// The bytes' range in the object (none for `SHT_NOBITS`).
    range: Option<(usize, usize)>,
    pub size: u64,
    pub align: u64,
    /// The size of each entry of a section of merged constants (`SHF_MERGE`).
    pub entry_size: u64,
    pub flags: u64,
    pub relocations: Vec<Relocation>,
    /// A relocation this module cannot read (not RELA): the section is never called the same.
    pub unreadable: bool,
    /// An array of start-up or exit functions (`.init_array`, `.fini_array`, `.preinit_array`,
    /// `.ctors`, `.dtors`): the functions it names run without a call in the code.
    pub startup: bool,
    /// Unwinding tables (`.eh_frame`): they name every function, and call none.
    pub unwind: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) struct Relocation {
    pub offset: u64,
    pub r_type: u32,
    pub addend: i64,
    pub target: Target,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Target {
    Symbol(u32),
    Section(u32),
    None,
}

pub(super) struct Symbol {
    pub name: Box<str>,
    pub kind: SymbolKind,
    pub place: Place,
    pub value: u64,
    pub size: u64,
    pub local: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Place {
    Section(u32),
    Undefined,
    Absolute,
    Common,
    Other,
}

impl Section {
    pub fn is_code(&self) -> bool {
        self.flags & SHF_EXECINSTR != 0
    }

    /// The extent `[start, end)` of the entry at `position` of a section of merged constants
    /// (`SHF_MERGE`, no relocations): a NUL-terminated string in `bytes` (`SHF_STRINGS` of
    /// 1-byte characters), else `entry_size` bytes. The linker merges and reorders entries, so
    /// code can only ever read the one it refers to. `None` for any other section.
    pub fn merged_entry(&self, bytes: &[u8], position: u64) -> Option<(usize, usize)> {
        if self.flags & SHF_MERGE == 0 || !self.relocations.is_empty() || self.entry_size == 0 {
            return None;
        }
        let position = usize::try_from(position)
            .ok()
            .filter(|p| *p < bytes.len())?;
        if self.flags & SHF_STRINGS != 0 {
            if self.entry_size != 1 {
                return None;
            }
            let start = bytes[..position]
                .iter()
                .rposition(|b| *b == 0)
                .map_or(0, |at| at + 1);
            let end = position + bytes[position..].iter().position(|b| *b == 0)? + 1;
            return Some((start, end));
        }
        let size = usize::try_from(self.entry_size).ok()?;
        let start = position - position % size;
        (start + size <= bytes.len()).then_some((start, start + size))
    }
}

impl Objects {
    /// Reads every input; a file that cannot be read or parsed is an error, a file or archive
    /// member that is not an ELF object (a linker script, an rlib's metadata, a shared
    /// library) is skipped.
    pub fn read(inputs: &[&Path]) -> Result<Objects, CodeError> {
        let read: Vec<Input> = inputs
            .par_iter()
            .enumerate()
            .map(|(at, path)| read_input(at, path))
            .collect::<Result<_, _>>()?;
        let mut objects = Objects {
            data: Vec::new(),
            objects: Vec::new(),
            definitions: HashMap::new(),
            bitcode: None,
            renamed: HashMap::new(),
        };
        for input in read {
            objects.data.push(input.data);
            objects.bitcode = objects.bitcode.take().or(input.bitcode);
            objects.objects.extend(input.objects);
        }
        objects.index_definitions();
        Ok(objects)
    }

    fn index_definitions(&mut self) {
        for (o, object) in self.objects.iter().enumerate() {
            for (s, symbol) in object.symbols.iter().enumerate() {
                let defined = matches!(symbol.place, Place::Section(_) | Place::Absolute);
                let named = !symbol.name.is_empty()
                    && !matches!(symbol.kind, SymbolKind::Section | SymbolKind::File);
                if defined && named {
                    self.definitions
                        .entry(stable_name(&symbol.name).into())
                        .or_default()
                        .push((o as u32, s as u32));
                    if let Some(stem) = lto_stem(&symbol.name) {
                        self.renamed
                            .entry(stem.into())
                            .or_default()
                            .push((o as u32, s as u32));
                    }
                }
            }
        }
    }

    /// The definitions of `name` (raw, with or without ThinLTO's suffix): every symbol whose
    /// name is `name` but for that suffix.
    pub fn definitions_of(&self, name: &str) -> &[SymRef] {
        self.definitions
            .get(stable_name(name))
            .map_or(&[], Vec::as_slice)
    }

    /// Every definition of the symbol `stem` names, with or without the counter LLVM's IR
    /// linker appends ([`lto_stem`]): the copy that kept the name first, then the renamed ones
    /// by their counter, which follows the order the linker met them in.
    pub fn copies_of(&self, stem: &str) -> Vec<SymRef> {
        let mut renamed: Vec<(u64, SymRef)> = self
            .renamed
            .get(stem)
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .filter_map(|at| Some((counter(&self.symbol(*at)?.name)?, *at)))
            .collect();
        renamed.sort_unstable();
        let mut copies = self.definitions_of(stem).to_vec();
        copies.extend(renamed.into_iter().map(|(_, at)| at));
        copies
    }

    pub fn section(&self, at: SecRef) -> &Section {
        &self.objects[at.0 as usize].sections[at.1 as usize]
    }

    pub fn symbol(&self, at: SymRef) -> Option<&Symbol> {
        self.objects[at.0 as usize].symbols.get(at.1 as usize)
    }

    /// The bytes of a section (empty for `SHT_NOBITS`).
    pub fn bytes(&self, at: SecRef) -> &[u8] {
        let object = &self.objects[at.0 as usize];
        match object.sections[at.1 as usize].range {
            Some((from, to)) => &self.data[object.input][object.start + from..object.start + to],
            None => &[],
        }
    }

    /// The section a defined symbol is in.
    pub fn section_of(&self, at: SymRef) -> Option<SecRef> {
        match self.symbol(at)?.place {
            Place::Section(section) => Some((at.0, section)),
            _ => None,
        }
    }
}

/// `name` (raw, with or without ThinLTO's suffix) without the counter LLVM's IR linker
/// appends to a local symbol whose name a module linked before it already took (`.<n>`): in a
/// fat-LTO build every crate's module is linked into one, and each crate's own copy of an
/// inlined function of another crate (`<String as fmt::Write>::write_str`, `drop_in_place`)
/// keeps its name only in the first module met; the others are `name.2228`, `name.2295`, …,
/// numbered by one counter over the whole link, so an unrelated change anywhere before them
/// renumbers them. `None` when the name has no such counter.
pub(super) fn lto_stem(name: &str) -> Option<&str> {
    let (stem, digits) = stable_name(name).rsplit_once('.')?;
    let counted = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
    (counted && !stem.is_empty()).then_some(stem)
}

/// The counter of a renamed symbol's name ([`lto_stem`]).
fn counter(name: &str) -> Option<u64> {
    lto_stem(name)?;
    stable_name(name).rsplit_once('.')?.1.parse().ok()
}

/// One input file as read: its bytes, its objects, and the first of its members that is bitcode.
struct Input {
    data: Vec<u8>,
    objects: Vec<Object>,
    bitcode: Option<String>,
}

/// Reads one input.
fn read_input(at: usize, path: &Path) -> Result<Input, CodeError> {
    let data = std::fs::read(path).map_err(|source| CodeError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let label = path.display().to_string();
    let mut objects = Vec::new();
    let mut bitcode = None;
    let mut take = |start: usize, bytes: &[u8], label: String| -> Result<(), CodeError> {
        if is_bitcode(bytes) {
            bitcode.get_or_insert(label);
            return Ok(());
        }
        if let Some(object) = read_object(at, start, bytes, &label)? {
            objects.push(object);
        }
        Ok(())
    };
    match ArchiveFile::parse(&*data) {
        Ok(archive) => {
            for member in archive.members() {
                let member = member.map_err(|e| parse_error(path, e))?;
                let (offset, size) = member.file_range();
                let (start, end) = (offset as usize, (offset + size) as usize);
                let name = String::from_utf8_lossy(member.name()).into_owned();
                take(start, &data[start..end], format!("{label}({name})"))?;
            }
        }
        Err(_) => take(0, &data, label)?,
    }
    Ok(Input {
        data,
        objects,
        bitcode,
    })
}

/// LLVM bitcode, bare or in its wrapper.
fn is_bitcode(bytes: &[u8]) -> bool {
    bytes.starts_with(b"BC\xC0\xDE") || bytes.starts_with(&[0xDE, 0xC0, 0x17, 0x0B])
}

fn parse_error(path: &Path, e: object::Error) -> CodeError {
    CodeError::Parse {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

/// The tables of one relocatable ELF object; `None` for anything else.
fn read_object(
    input: usize,
    start: usize,
    bytes: &[u8],
    label: &str,
) -> Result<Option<Object>, CodeError> {
    // 64-bit ELF only (the targets this runs on); anything else is not an object of the link.
    let Ok(file) = ElfFile64::<object::Endianness>::parse(bytes) else {
        return Ok(None);
    };
    if file.kind() != object::ObjectKind::Relocatable {
        return Ok(None);
    }
    let failed = |e: object::Error| CodeError::Parse {
        path: label.into(),
        message: e.to_string(),
    };
    let count = file.sections().map(|s| s.index().0 + 1).max().unwrap_or(0);
    let mut sections: Vec<Section> = (0..count).map(|_| empty_section()).collect();
    for section in file.sections() {
        sections[section.index().0] = read_section(&section).map_err(failed)?;
    }
    let symbols = read_symbols(&file);
    let (sole_function, name_of_section) = section_names(&symbols, &sections);
    Ok(Some(Object {
        input,
        start,
        sections,
        symbols,
        sole_function,
        name_of_section,
        x86_64: file.architecture() == object::Architecture::X86_64,
    }))
}

fn empty_section() -> Section {
    Section {
        range: None,
        size: 0,
        align: 0,
        entry_size: 0,
        flags: 0,
        relocations: Vec::new(),
        unreadable: false,
        startup: false,
        unwind: false,
    }
}

fn read_section(section: &ElfSection64<object::Endianness>) -> Result<Section, object::Error> {
    let SectionFlags::Elf { sh_flags, .. } = section.flags() else {
        return Ok(empty_section());
    };
    let sh_flags = sh_flags.0;
    let range = section
        .file_range()
        .filter(|_| section.kind() != object::SectionKind::UninitializedData)
        .map(|(offset, size)| (offset as usize, (offset + size) as usize));
    let entry_size = section
        .elf_section_header()
        .sh_entsize(section.elf_file().endian());
    let mut read = Section {
        range,
        size: section.size(),
        align: section.align(),
        entry_size,
        flags: sh_flags & IDENTITY_FLAGS,
        relocations: Vec::new(),
        unreadable: false,
        unwind: section
            .name()
            .is_ok_and(|name| name.starts_with(".eh_frame")),
        startup: section.name().is_ok_and(|name| {
            [
                ".init_array",
                ".fini_array",
                ".preinit_array",
                ".ctors",
                ".dtors",
            ]
            .iter()
            .any(|array| name == *array || name.starts_with(&format!("{array}.")))
        }),
    };
    // Only what is loaded can be executed or read at run time; debug information is not.
    if sh_flags & 0x2 == 0 {
        return Ok(read);
    }
    for (offset, relocation) in section.relocations() {
        let RelocationFlags::Elf { r_type } = relocation.flags() else {
            read.unreadable = true;
            continue;
        };
        if relocation.has_implicit_addend() {
            read.unreadable = true;
        }
        let target = match relocation.target() {
            RelocationTarget::Symbol(symbol) => Target::Symbol(symbol.0 as u32),
            RelocationTarget::Section(section) => Target::Section(section.0 as u32),
            _ => Target::None,
        };
        read.relocations.push(Relocation {
            offset,
            r_type: r_type.0,
            addend: relocation.addend(),
            target,
        });
    }
    read.relocations.sort_by_key(|r| r.offset);
    Ok(read)
}

fn read_symbols(file: &ElfFile64<object::Endianness>) -> Vec<Symbol> {
    let count = file.symbols().map(|s| s.index().0 + 1).max().unwrap_or(0);
    let mut symbols: Vec<Symbol> = (0..count)
        .map(|_| Symbol {
            name: "".into(),
            kind: SymbolKind::Unknown,
            place: Place::Other,
            value: 0,
            size: 0,
            local: true,
        })
        .collect();
    for symbol in file.symbols() {
        let place = match symbol.section() {
            SymbolSection::Section(SectionIndex(at)) => Place::Section(at as u32),
            SymbolSection::Undefined => Place::Undefined,
            SymbolSection::Absolute => Place::Absolute,
            SymbolSection::Common => Place::Common,
            _ => Place::Other,
        };
        symbols[symbol.index().0] = Symbol {
            name: symbol.name().unwrap_or("").into(),
            kind: symbol.kind(),
            place,
            value: symbol.address(),
            size: symbol.size(),
            local: symbol.is_local(),
        };
    }
    symbols
}

/// Per section: its sole function symbol at offset 0, and a named symbol at offset 0.
/// Per section of an object, a symbol index or none.
type PerSection = Vec<Option<u32>>;

fn section_names(symbols: &[Symbol], sections: &[Section]) -> (PerSection, PerSection) {
    let mut functions: Vec<Vec<u32>> = vec![Vec::new(); sections.len()];
    let mut names = vec![None; sections.len()];
    for (at, symbol) in symbols.iter().enumerate() {
        let Place::Section(section) = symbol.place else {
            continue;
        };
        let section = section as usize;
        if section >= sections.len()
            || symbol.name.is_empty()
            || matches!(symbol.kind, SymbolKind::Section | SymbolKind::File)
        {
            continue;
        }
        if sections[section].is_code() {
            functions[section].push(at as u32);
        }
        if symbol.value == 0 && names[section].is_none() {
            names[section] = Some(at as u32);
        }
    }
    let sole = functions
        .into_iter()
        .map(|found| match found.as_slice() {
            [one] if symbols[*one as usize].value == 0 => Some(*one),
            _ => None,
        })
        .collect();
    (sole, names)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn merged(flags: u64, entry_size: u64) -> Section {
        Section {
            flags,
            entry_size,
            ..empty_section()
        }
    }

    #[test]
    fn an_entry_of_merged_strings_is_the_string_around_the_position() {
        let strings = merged(SHF_MERGE | SHF_STRINGS, 1);
        let bytes = b"src/lib.rs\0src/main.rs\0\0";
        assert_eq!(strings.merged_entry(bytes, 0), Some((0, 11)));
        assert_eq!(strings.merged_entry(bytes, 11), Some((11, 23)));
        assert_eq!(
            strings.merged_entry(bytes, 15),
            Some((11, 23)),
            "inside a string"
        );
        assert_eq!(
            strings.merged_entry(bytes, 23),
            Some((23, 24)),
            "the empty string"
        );
        assert_eq!(strings.merged_entry(bytes, 24), None, "past the end");
        assert_eq!(strings.merged_entry(b"unterminated", 0), None);
        let wide = merged(SHF_MERGE | SHF_STRINGS, 2);
        assert_eq!(
            wide.merged_entry(b"a\0\0\0", 0),
            None,
            "wide strings: the whole section"
        );
    }

    #[test]
    fn an_entry_of_merged_constants_is_its_fixed_size_slot() {
        let constants = merged(SHF_MERGE, 16);
        let bytes = [7u8; 32];
        assert_eq!(constants.merged_entry(&bytes, 0), Some((0, 16)));
        assert_eq!(constants.merged_entry(&bytes, 20), Some((16, 32)));
        assert_eq!(
            constants.merged_entry(&bytes[..24], 20),
            None,
            "a truncated entry"
        );
        assert_eq!(merged(0, 16).merged_entry(&bytes, 0), None, "not merged");
        let mut relocated = merged(SHF_MERGE, 16);
        relocated.relocations.push(Relocation {
            offset: 0,
            r_type: 1,
            addend: 0,
            target: Target::None,
        });
        assert_eq!(
            relocated.merged_entry(&bytes, 0),
            None,
            "relocated: not merged"
        );
    }
}
