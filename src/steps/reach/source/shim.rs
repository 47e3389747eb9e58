//! rustc's C `main`: the entry shim the compiler generates for a binary, compared by its code.
//!
//! Why: the shim (the C `main`, not a Rust path) only hands the user's `main`, `argc`, `argv`
//! and the SIGPIPE setting to `std::rt::lang_start_internal` (through `lang_start`); the
//! compiler makes it from a fixed template and gives it no line (field trial
//! html5ever-serialize: "main: code at 0x… has no line", 6 `deserialize` benchmarks measured,
//! docs/design/field-trials.md). Its machine code differs between two builds only in the
//! addresses it passes, which move whenever code before them grows. So it is the same on both
//! sides when each side's `main` is such a shim: one small symbol, no line and no function in
//! the DWARF at any of its instructions, made only of the instructions such a shim uses (moves,
//! `lea`, calls, `push`/`pop`, `ret`), read on x86-64 ([`instructions`]); and the two are the
//! same instructions byte for byte but for their instruction-pointer-relative addresses, each
//! of which points on both sides into a symbol of the same name at the same offset, or, where
//! no symbol holds it or only one of rustc's anonymous constants does (`anon.<hash>.<n>`, named
//! by a hash of its unit: a vtable), into a section of the same name. The user's
//! `main` it passes is a function of its own, compared in its own right when its code differs.
//! Anything else is left to the comparison by lines (which cannot compare it: unknown).

use object::{Architecture, Object, ObjectSection, ObjectSymbol};

use super::{Reader, SourceComparison};

/// The largest shim accepted, in bytes (x86-64's is 46).
const MAX_SHIM: u64 = 96;

/// `main` compared as rustc's entry shim: `None` when `function` is not the C `main` or either
/// side's is not such a shim (then its lines decide).
pub(super) fn compare_entry_shims(
    readers: [&Reader<'_>; 2],
    function: &str,
) -> Option<SourceComparison> {
    if function != "main" {
        return None;
    }
    let [base, head] = readers.map(|r| r.entry_shim());
    let (base, head) = (base?, head?);
    let same = base.instructions.len() == head.instructions.len()
        && base
            .instructions
            .iter()
            .zip(&head.instructions)
            .all(|(b, h)| same_instruction(b, h));
    Some(match same {
        true => SourceComparison::Same,
        false => SourceComparison::Differs(
            "`main`, rustc's C entry shim, differs beyond the addresses it passes".to_string(),
        ),
    })
}

/// One side's entry shim, decoded, with where its addresses point.
struct Shim {
    instructions: Vec<Instruction>,
}

/// An instruction of a shim: its bytes, and where it points when it has an
/// instruction-pointer-relative address (the field's offset in its bytes, and the target).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Instruction {
    bytes: Vec<u8>,
    relative: Option<(usize, Target)>,
}

/// Where an address points: into a symbol (its name, demangled without hash, and the offset),
/// else, or when the symbol is one of rustc's anonymous constants, into a section (its name),
/// else nowhere known.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Target {
    Symbol(String, u64),
    Section(String),
    Unknown,
}

/// Whether `b` (base's) and `h` (head's) are the same instruction but for where it points.
fn same_instruction(b: &Instruction, h: &Instruction) -> bool {
    match (&b.relative, &h.relative) {
        (None, None) => b.bytes == h.bytes,
        (Some((at, bt)), Some((ht_at, ht))) => {
            let outside = |i: &Instruction| {
                let mut bytes = i.bytes.clone();
                bytes[*at..*at + 4].fill(0);
                bytes
            };
            at == ht_at && outside(b) == outside(h) && bt == ht && *bt != Target::Unknown
        }
        _ => false,
    }
}

impl Reader<'_> {
    /// This side's C `main` when it is rustc's entry shim ([`compare_entry_shims`]).
    fn entry_shim(&self) -> Option<Shim> {
        let &[(start, end)] = self.symbols.get("main")?.as_slice() else {
            return None;
        };
        if end - start > MAX_SHIM || self.has_lines(start, end) {
            return None;
        }
        let data = std::fs::read(self.executable).ok()?;
        let file = object::File::parse(&*data).ok()?;
        if file.architecture() != Architecture::X86_64 {
            return None;
        }
        let code = file.sections().find_map(|s| {
            let (address, size) = (s.address(), s.size());
            let inside = address <= start && end <= address + size;
            let data = s.data().ok().filter(|_| inside)?;
            data.get((start - address) as usize..(end - address) as usize)
        })?;
        let decoded = instructions(code)?;
        let instructions = decoded
            .into_iter()
            .map(|(offset, len, field)| {
                let bytes = code[offset..offset + len].to_vec();
                let relative = field.map(|at| {
                    let disp = i32::from_le_bytes(bytes[at..at + 4].try_into().unwrap_or([0; 4]));
                    let next = start + (offset + len) as u64;
                    (at, target_of(&file, next.wrapping_add_signed(disp.into())))
                });
                Instruction { bytes, relative }
            })
            .collect();
        Some(Shim { instructions })
    }

    /// Whether the DWARF gives any address of `start..end` a line or a function.
    fn has_lines(&self, start: u64, end: u64) -> bool {
        (start..end).any(|address| {
            let Ok(mut frames) = self.loader.find_frames(address) else {
                return true;
            };
            let mut any = false;
            while let Ok(Some(frame)) = frames.next() {
                let line = frame.location.as_ref().and_then(|l| l.line);
                any |= frame.function.is_some() || line.is_some_and(|l| l > 0);
            }
            any
        })
    }
}

/// Where `address` points in `file` ([`Target`]).
fn target_of(file: &object::File<'_>, address: u64) -> Target {
    let symbol = file
        .symbols()
        .find(|s| s.size() > 0 && s.address() <= address && address < s.address() + s.size());
    // rustc's anonymous constants (`anon.<hash>.<n>`, a vtable among them) are named by a hash
    // of their unit, which differs between the sides: such a one counts by its section.
    if let Some(symbol) = symbol
        && let Ok(name) = symbol.name()
        && !name.starts_with("anon.")
    {
        let name = format!("{:#}", rustc_demangle::demangle(name));
        return Target::Symbol(name, address - symbol.address());
    }
    let section = file
        .sections()
        .find(|s| s.address() <= address && address < s.address() + s.size());
    match section.and_then(|s| s.name().ok().map(str::to_string)) {
        Some(name) => Target::Section(name),
        None => Target::Unknown,
    }
}

/// The instructions of `code`, each (offset, length, offset in it of an
/// instruction-pointer-relative 32-bit field), when every one is of the few an entry shim uses:
/// `push`/`pop` of a register, `ret`, `int3`, `nop`, `call`/`jmp` by a 32-bit offset, and, with a
/// ModRM operand and no immediate, `mov` (`89`, `8b`), `movsxd` (`63`), `lea` (`8d`), `xor`
/// (`31`, `33`), `test` (`85`), `movzx` (`0f b6`, `0f b7`), an indirect `call` or `jmp` (`ff /2`,
/// `ff /4`), each with at most one REX prefix. `None` for anything else.
fn instructions(code: &[u8]) -> Option<Vec<(usize, usize, Option<usize>)>> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < code.len() {
        let start = at;
        if (0x40..=0x4f).contains(&code[at]) {
            at += 1;
        }
        let opcode = *code.get(at)?;
        at += 1;
        let field = match opcode {
            0x50..=0x5f | 0xc3 | 0xcc | 0x90 => None,
            0xe8 | 0xe9 => {
                at += 4;
                Some(at - 4 - start)
            }
            0x89 | 0x8b | 0x63 | 0x8d | 0x31 | 0x33 | 0x85 => modrm(code, &mut at, start, None)?,
            0xff => modrm(code, &mut at, start, Some(&[2, 4]))?,
            0x0f if matches!(code.get(at), Some(0xb6 | 0xb7)) => {
                at += 1;
                modrm(code, &mut at, start, None)?
            }
            _ => return None,
        };
        if at > code.len() {
            return None;
        }
        out.push((start, at - start, field));
    }
    Some(out)
}

/// Reads the ModRM operand at `*at` (and its SIB byte and displacement), moving `*at` past it;
/// `regs`: the opcode extensions allowed. `Some(field)`: the offset from `start` of an
/// instruction-pointer-relative field; `None` (outer) when the operand is not one allowed.
fn modrm(code: &[u8], at: &mut usize, start: usize, regs: Option<&[u8]>) -> Option<Option<usize>> {
    let byte = *code.get(*at)?;
    *at += 1;
    let (mode, reg, rm) = (byte >> 6, (byte >> 3) & 7, byte & 7);
    if regs.is_some_and(|regs| !regs.contains(&reg)) {
        return None;
    }
    if mode == 3 {
        return Some(None);
    }
    if mode == 0 && rm == 5 {
        *at += 4;
        return Some(Some(*at - 4 - start));
    }
    let base = if rm == 4 {
        let sib = *code.get(*at)?;
        *at += 1;
        sib & 7
    } else {
        rm
    };
    *at += match mode {
        0 if base == 5 => 4,
        0 => 0,
        1 => 1,
        _ => 4,
    };
    Some(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shim_s_instructions_are_read_and_anything_else_is_not() {
        // rustc 1.9x's x86-64 shim: push rax; mov rcx,rsi; movzx eax,[rip+d]; movsxd rdx,edi;
        // lea rax,[rip+d]; mov [rsp],rax; lea rsi,[rip+d]; mov rdi,rsp; xor r8d,r8d;
        // call [rip+d]; pop rcx; ret
        let code = [
            0x50, 0x48, 0x89, 0xf1, 0x0f, 0xb6, 0x05, 0xcd, 0x88, 0xff, 0xff, 0x48, 0x63, 0xd7,
            0x48, 0x8d, 0x05, 0x2b, 0xfc, 0xff, 0xff, 0x48, 0x89, 0x04, 0x24, 0x48, 0x8d, 0x35,
            0x18, 0xe4, 0x03, 0x00, 0x48, 0x89, 0xe7, 0x45, 0x31, 0xc0, 0xff, 0x15, 0x54, 0x03,
            0x04, 0x00, 0x59, 0xc3,
        ];
        let decoded = instructions(&code).unwrap();
        let fields: Vec<(usize, Option<usize>)> =
            decoded.iter().map(|&(at, _, field)| (at, field)).collect();
        assert_eq!(
            fields,
            [
                (0, None),
                (1, None),
                (4, Some(3)),
                (11, None),
                (14, Some(3)),
                (21, None),
                (25, Some(3)),
                (32, None),
                (35, None),
                (38, Some(2)),
                (44, None),
                (45, None),
            ]
        );
        let end: usize = decoded.iter().map(|&(_, len, _)| len).sum();
        assert_eq!(end, code.len());
        // `mov edi, 5` (an immediate), `add`, a truncated `lea`: not a shim's.
        assert!(instructions(&[0xbf, 5, 0, 0, 0]).is_none());
        assert!(instructions(&[0x48, 0x01, 0xc0]).is_none());
        assert!(instructions(&[0x48, 0x8d, 0x05, 0x00]).is_none());
        // `ff /0` is `inc`, not a call.
        assert!(instructions(&[0xff, 0xc0]).is_none());
    }
}
