//! The linked executable's side: which function an executed address is in, by the symbol table
//! cargo's executable keeps, and which import a PLT stub jumps to.
//!
//! Why the executable and not the objects: a trace gives addresses of the executable, and only
//! its symbol table says where the linker put each function. The names found here are then looked
//! up in the objects, where the code's identity is decided.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use object::{Object, ObjectSection, ObjectSymbol, ObjectSymbolTable, SymbolKind};

use super::CodeError;

/// What an executed address is in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Place {
    /// The functions (every name at that address: aliases, merged functions).
    Functions(Vec<String>),
    /// A PLT stub that jumps to this import (or the PLT's resolver).
    Stub(String),
    /// Not in any function: the reason, in one line.
    Unknown(String),
}

/// One function of the executable: `[start, end)` and its name.
struct Function {
    start: u64,
    end: u64,
    name: String,
}

/// A PLT section: its address range and the import each 16-byte entry jumps to.
struct Plt {
    start: u64,
    end: u64,
    /// The import of entry `i`, if it could be found.
    entries: Vec<Option<String>>,
}

/// The executable's functions, sorted by start, and its PLT sections.
pub(super) struct Executable {
    functions: Vec<Function>,
    longest: u64,
    plts: Vec<Plt>,
    /// Executable sections: `[start, end)`.
    code: Vec<(u64, u64)>,
    /// The bytes of the executable sections, each with its start address.
    text: Vec<(u64, Vec<u8>)>,
}

impl Executable {
    pub fn read(path: &Path) -> Result<Executable, CodeError> {
        let data = std::fs::read(path).map_err(|source| CodeError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let file = object::File::parse(&*data).map_err(|e| CodeError::Parse {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        if file.symbols().next().is_none() {
            return Err(CodeError::Parse {
                path: path.to_path_buf(),
                message: "the executable has no symbol table (stripped)".into(),
            });
        }
        let text: Vec<(u64, Vec<u8>)> = file
            .sections()
            .filter(|s| s.kind() == object::SectionKind::Text)
            .map(|s| Ok((s.address(), s.data()?.to_vec())))
            .collect::<Result<Vec<_>, object::Error>>()
            .map_err(|e| CodeError::Parse {
                path: path.to_path_buf(),
                message: e.to_string(),
            })?;
        let code: Vec<(u64, u64)> = text
            .iter()
            .map(|(start, bytes)| (*start, start + bytes.len() as u64))
            .collect();
        let functions = functions(&file, &code);
        let longest = functions.iter().map(|f| f.end - f.start).max().unwrap_or(0);
        Ok(Executable {
            functions,
            longest,
            plts: plts(&file),
            code,
            text,
        })
    }

    /// The first of the executed addresses `executed` whose instruction is `cpuid`: where the
    /// program asked the CPU for its features (std's `is_x86_feature_detected!`, `cpufeatures`).
    pub fn executed_cpuid(&self, executed: &BTreeSet<u64>) -> Option<u64> {
        first_cpuid(&self.text, executed)
    }

    /// What the executed address `address` is in, and the first address after it where the
    /// answer may change (every address in between is in the same place).
    pub fn place(&self, address: u64) -> (Place, u64) {
        if let Some(plt) = self
            .plts
            .iter()
            .find(|p| (p.start..p.end).contains(&address))
        {
            let entry = (address - plt.start) / 16;
            let until = (plt.start + 16 * (entry + 1)).min(plt.end);
            return match plt.entries.get(entry as usize).cloned().flatten() {
                Some(name) => (Place::Stub(name), until),
                None => (
                    Place::Unknown(format!("the PLT entry at {address:#x} names no import")),
                    until,
                ),
            };
        }
        let after = self.functions.partition_point(|f| f.start <= address);
        let next_start = self.functions.get(after).map_or(u64::MAX, |f| f.start);
        let covering: Vec<&Function> = self.functions[..after]
            .iter()
            .rev()
            .take_while(|f| f.start + self.longest > address)
            .filter(|f| f.end > address)
            .collect();
        let until = covering
            .iter()
            .map(|f| f.end)
            .fold(next_start, u64::min)
            .max(address + 1);
        let mut names: Vec<String> = covering.iter().map(|f| f.name.clone()).collect();
        names.sort();
        names.dedup();
        if !names.is_empty() {
            return (Place::Functions(names), until);
        }
        let reason = if self.code.iter().any(|(s, e)| (*s..*e).contains(&address)) {
            format!("no symbol covers the executed address {address:#x}")
        } else {
            format!("the executed address {address:#x} is not in the executable's code")
        };
        (Place::Unknown(reason), address + 1)
    }

    /// Every function's entry address with the names there (aliases, merged functions), in
    /// address order.
    pub fn entries(&self) -> Vec<(u64, Vec<&str>)> {
        let mut entries: Vec<(u64, Vec<&str>)> = Vec::new();
        for function in &self.functions {
            match entries.last_mut() {
                Some((start, names)) if *start == function.start => {
                    names.push(&function.name);
                }
                _ => entries.push((function.start, vec![&function.name])),
            }
        }
        entries
    }
}

/// The defined functions of `file`. A symbol without a size (start-up code written in
/// assembly) reaches to the next function or the end of its section.
fn functions(file: &object::File, code: &[(u64, u64)]) -> Vec<Function> {
    let mut found: Vec<(u64, u64, String)> = file
        .symbols()
        .filter(|s| s.is_definition() && starts_code(s, code))
        .filter_map(|s| Some((s.address(), s.size(), s.name().ok()?.to_string())))
        .filter(|(_, _, name)| !name.is_empty())
        .collect();
    found.sort();
    let starts: Vec<u64> = found.iter().map(|f| f.0).collect();
    found
        .iter()
        .map(|(start, size, name)| {
            let end = if *size > 0 {
                start + size
            } else {
                let section_end = code
                    .iter()
                    .find(|(s, e)| (*s..*e).contains(start))
                    .map_or(*start, |(_, e)| *e);
                let next = starts[starts.partition_point(|s| s <= start)..]
                    .first()
                    .copied()
                    .unwrap_or(u64::MAX);
                next.min(section_end)
            };
            Function {
                start: *start,
                end,
                name: name.clone(),
            }
        })
        .collect()
}

/// Whether `symbol` starts code: a function (`STT_FUNC`), or a global label without a type in an
/// executable section. Assembly that leaves out `.type name, @function` and `.size` defines the
/// second (BLAKE3's `blake3_hash_many_avx2`, from the `.S` files its build script compiles): left
/// out, no symbol covered its code, and every benchmark that hashed was measured, undecided. Its
/// extent is then inferred as any size-less function's; its object's code section is compared
/// whole. A local one is left out (an assembler's own labels, a mapping symbol).
fn starts_code(symbol: &object::Symbol<'_, '_>, code: &[(u64, u64)]) -> bool {
    match symbol.kind() {
        SymbolKind::Text => true,
        SymbolKind::Unknown => {
            !symbol.is_local()
                && code
                    .iter()
                    .any(|(s, e)| (*s..*e).contains(&symbol.address()))
        }
        _ => false,
    }
}

/// The PLT sections of `file` and the import each entry jumps to: the GOT slot of the entry's
/// `jmp *slot(%rip)` (x86-64), named by the dynamic relocation of that slot. The first entry of
/// `.plt` is the lazy resolver.
fn plts(file: &object::File) -> Vec<Plt> {
    let slots: HashMap<u64, String> = file
        .dynamic_relocations()
        .into_iter()
        .flatten()
        .filter_map(|(slot, relocation)| {
            let object::RelocationTarget::Symbol(index) = relocation.target() else {
                return None;
            };
            let symbol = file.dynamic_symbol_table()?.symbol_by_index(index).ok()?;
            Some((slot, symbol.name().ok()?.to_string()))
        })
        .collect();
    file.sections()
        .filter(|s| {
            s.name()
                .is_ok_and(|n| n.starts_with(".plt") || n == ".iplt")
        })
        .map(|section| {
            // Entries of 16 bytes; other PLT sections (GNU ld's 8-byte `.plt.got`) name nothing.
            let sized = section.name().is_ok_and(|n| n == ".plt" || n == ".plt.sec");
            let data = if sized {
                section.data().unwrap_or_default()
            } else {
                &[]
            };
            let entries = data
                .chunks(16)
                .enumerate()
                .map(|(i, entry)| {
                    let at = section.address() + 16 * i as u64;
                    if i == 0 && section.name().is_ok_and(|n| n == ".plt") {
                        return Some("<PLT resolver>".to_string());
                    }
                    let slot = jump_slot(entry, at)?;
                    slots.get(&slot).cloned()
                })
                .collect();
            Plt {
                start: section.address(),
                end: section.address() + section.size(),
                entries,
            }
        })
        .collect()
}

/// The first address of `executed` (instruction starts, as callgrind gives them) whose bytes in
/// `text` (sections and their start addresses) are `cpuid` (`0f a2`).
fn first_cpuid(text: &[(u64, Vec<u8>)], executed: &BTreeSet<u64>) -> Option<u64> {
    executed.iter().copied().find(|&address| {
        text.iter().any(|(start, bytes)| {
            address
                .checked_sub(*start)
                .and_then(|offset| usize::try_from(offset).ok())
                .and_then(|offset| bytes.get(offset..offset.checked_add(2)?))
                == Some(&[0x0f, 0xa2][..])
        })
    })
}

/// The GOT slot an x86-64 PLT entry at `at` jumps through: `ff 25 disp32`, RIP-relative.
fn jump_slot(entry: &[u8], at: u64) -> Option<u64> {
    let position = entry.windows(2).position(|w| w == [0xff, 0x25])?;
    let displacement = entry.get(position + 2..position + 6)?;
    let displacement = i32::from_le_bytes(displacement.try_into().ok()?);
    let next = at + position as u64 + 6;
    Some(next.wrapping_add_signed(i64::from(displacement)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plt_entry_s_jump_names_its_got_slot() {
        // 51a80: ff 25 ea 37 00 00   jmp *0x37ea(%rip)  # 55270
        let entry = [
            0xff, 0x25, 0xea, 0x37, 0, 0, 0x68, 0, 0, 0, 0, 0xe9, 0xe0, 0xff, 0xff, 0xff,
        ];
        assert_eq!(jump_slot(&entry, 0x51a80), Some(0x55270));
        // With an endbr64 first (IBT), as in `.plt.sec`.
        let entry = [
            0xf3, 0x0f, 0x1e, 0xfa, 0xff, 0x25, 0x10, 0, 0, 0, 0x66, 0x0f, 0x1f, 0x44, 0, 0,
        ];
        assert_eq!(jump_slot(&entry, 0x1000), Some(0x1000 + 10 + 0x10));
        assert_eq!(jump_slot(&[0x90; 16], 0x1000), None);
    }

    #[test]
    fn an_executed_cpuid_is_found_at_its_instruction_start_only() {
        // 0x1000: mov %ebx,%esi (89 de); 0x1002: cpuid (0f a2); 0x1004: ret (c3).
        let text = vec![(0x1000, vec![0x89, 0xde, 0x0f, 0xa2, 0xc3])];
        let executed = |addresses: &[u64]| addresses.iter().copied().collect::<BTreeSet<u64>>();
        assert_eq!(
            first_cpuid(&text, &executed(&[0x1000, 0x1002])),
            Some(0x1002)
        );
        assert_eq!(first_cpuid(&text, &executed(&[0x1000, 0x1004])), None);
        // An address past the section, or before it, is no cpuid.
        assert_eq!(
            first_cpuid(&text, &executed(&[0x0fff, 0x1003, 0x2000])),
            None
        );
    }
}
