//! C's `assert`: two definitions of one function whose machine code differs only in the
//! constants a failed assertion hands to the C library (its line, above all), on the path that
//! ends in that call.
//!
//! Why it matters: a C library built without `NDEBUG` (the `cc` crate defines none) compiles
//! every `assert(cond)` into a test and, when it fails, `__assert_fail("cond", __FILE__,
//! __LINE__, __PRETTY_FUNCTION__)`. The line is an immediate of the code (`mov $0x4f4d,%edx`
//! before `call __assert_fail`), so a commit that removes 15 lines near the top of CRoaring's
//! amalgamation changed the code of every function with an assertion below them, and 63 of 76
//! benchmarks were measured for functions the commit does not touch (field-trials.md,
//! `cr-c441`). The strings are data, compared by content as any data is.
//!
//! Why it is sound: the decision is taken from decoded instructions (x86-64; other
//! architectures keep every difference). Base's and head's bytes, of one length and with the
//! same relocations (compared by the caller as for any code), decode to instructions of the same
//! lengths; every byte that differs lies in the immediate of a `mov $imm, %reg` into a 32- or
//! 64-bit argument register (`rdi`, `rsi`, `rdx`, `rcx`, `r8`, `r9`) no relocation fills; after
//! it, every instruction up to a call goes on to the next (no branch, return or trap) and neither
//! reads nor writes that register, and no branch of the section lands after the `mov` up to the
//! call or inside the `mov`; the call is to a C library's assertion-failure function (an import
//! no input defines, by a relocation of the call's own field), which never returns. So the
//! immediate is an argument of that call and nothing else: it is what a failed assertion
//! prints, on the way to `abort`. Everything else is compared as before, so both sides test the
//! same conditions and fail at the same points.
//!
//! Not seen as the same (kept a difference): an assertion whose block jumps to a shared call
//! (the tail merged with another assertion's), a line passed through the stack or memory, and
//! aarch64's code.

use iced_x86::{
    Code, Decoder, DecoderOptions, FlowControl, Instruction, InstructionInfoFactory, OpKind,
    Register,
};

/// The C libraries' functions a failed `assert` calls, which never return: glibc's and musl's
/// (`__assert_fail`, `__assert_perror_fail`), Apple's (`__assert_rtn`) and MinGW's (`_assert`).
const ASSERT_FAILURE: [&str; 4] = [
    "__assert_fail",
    "__assert_perror_fail",
    "__assert_rtn",
    "_assert",
];

/// x86-64 relocations a call's 32-bit field takes: `R_X86_64_PC32` and `R_X86_64_PLT32`
/// (`call f`), `R_X86_64_GOTPCREL`, `R_X86_64_GOTPCRELX` and `R_X86_64_REX_GOTPCRELX`
/// (`call *f@GOTPCREL(%rip)`, `-fno-plt`).
const CALL_RELOCATIONS: [u32; 5] = [2, 4, 9, 41, 42];

/// The System V x86-64 registers of a call's first six integer arguments.
const ARGUMENTS: [Register; 6] = [
    Register::RDI,
    Register::RSI,
    Register::RDX,
    Register::RCX,
    Register::R8,
    Register::R9,
];

/// What the reason says was set aside ([`super::CodeComparison::Same`]'s `set_aside`), and why
/// that is not the benchmark's.
pub const SET_ASIDE: &str = "the line numbers C's `assert` passes to `__assert_fail` (the \
                             constants of that call's arguments, on the path a failed assertion \
                             takes to abort; the code otherwise the same)";

/// x86-64 relocations that fill a 32-bit field (`R_X86_64_PC32`, `GOT32`, `PLT32`, `GOTPCREL`,
/// `32`, `32S`, the 32-bit TLS ones, `GOTPCRELX`, `REX_GOTPCRELX`); any other is taken to fill
/// 8 bytes (the widest).
const FIELDS_OF_4: [u32; 14] = [2, 3, 4, 9, 10, 11, 19, 20, 21, 22, 23, 41, 42, 43];

/// One side's code: its bytes, its relocations (offset and type), and what the relocation at an
/// offset refers to, `(type, name)`, where it is an import no input defines.
pub(super) struct Side<'a, F: Fn(u64) -> Option<(u32, String)>> {
    pub bytes: &'a [u8],
    pub relocated: Vec<(u64, u32)>,
    pub import_at: F,
}

/// One decoded instruction: where it starts, and where its immediate lies in the section.
struct Decoded {
    at: usize,
    instruction: Instruction,
    immediate: std::ops::Range<usize>,
}

/// Whether base's code `base` and head's `head` differ only in the constants of arguments to a
/// C library's assertion-failure call, on the path that ends in it (the module's doc). `false`
/// when they are equal, of other lengths, or differ anywhere else.
pub(super) fn only_assert_arguments_differ<B, H>(base: &Side<B>, head: &Side<H>) -> bool
where
    B: Fn(u64) -> Option<(u32, String)>,
    H: Fn(u64) -> Option<(u32, String)>,
{
    let (b, h) = (base.bytes, head.bytes);
    if b.len() != h.len() || b == h {
        return false;
    }
    let (Some(decoded), Some(decoded_head)) = (decode(b), decode(h)) else {
        return false;
    };
    let same_lengths = decoded.len() == decoded_head.len()
        && decoded
            .iter()
            .zip(&decoded_head)
            .all(|(x, y)| (x.at, x.instruction.len()) == (y.at, y.instruction.len()));
    if !same_lengths {
        return false;
    }
    let targets = branch_targets(&decoded);
    let mut info = InstructionInfoFactory::new();
    decoded.iter().enumerate().all(|(index, one)| {
        let end = one.at + one.instruction.len();
        b[one.at..end] == h[one.at..end]
            || sets_assert_argument(&decoded, index, (base, head), &targets, &mut info)
    })
}

/// The section decoded from its start, one instruction after another (`None` if it ends
/// inside one).
fn decode(bytes: &[u8]) -> Option<Vec<Decoded>> {
    let mut decoder = Decoder::with_ip(64, bytes, 0, DecoderOptions::NONE);
    let mut found = Vec::new();
    let mut instruction = Instruction::default();
    while decoder.can_decode() {
        let at = decoder.position();
        decoder.decode_out(&mut instruction);
        if at + instruction.len() > bytes.len() {
            return None;
        }
        let offsets = decoder.get_constant_offsets(&instruction);
        let start = at + offsets.immediate_offset();
        let immediate = if offsets.has_immediate() {
            start..start + offsets.immediate_size()
        } else {
            at..at
        };
        found.push(Decoded {
            at,
            instruction,
            immediate,
        });
    }
    Some(found)
}

/// Every offset of the section a direct branch or call of it lands at.
fn branch_targets(decoded: &[Decoded]) -> std::collections::BTreeSet<u64> {
    decoded
        .iter()
        .map(|d| &d.instruction)
        .filter(|i| i.op0_kind() == OpKind::NearBranch64)
        .map(Instruction::near_branch_target)
        .collect()
}

/// Whether instruction `index` of base's `decoded` differs from head's only in an immediate
/// that sets an argument of an assertion-failure call it goes on to unchanged.
fn sets_assert_argument<B, H>(
    decoded: &[Decoded],
    index: usize,
    (base, head): (&Side<B>, &Side<H>),
    targets: &std::collections::BTreeSet<u64>,
    info: &mut InstructionInfoFactory,
) -> bool
where
    B: Fn(u64) -> Option<(u32, String)>,
    H: Fn(u64) -> Option<(u32, String)>,
{
    let one = &decoded[index];
    let end = one.at + one.instruction.len();
    let only_immediate =
        (one.at..end).all(|at| base.bytes[at] == head.bytes[at] || one.immediate.contains(&at));
    let Some(register) = argument_set(&one.instruction) else {
        return false;
    };
    let entered_inside = targets
        .range(one.at as u64 + 1..end as u64)
        .next()
        .is_some();
    if !only_immediate || entered_inside || relocated(base, &one.immediate) {
        return false;
    }
    let Some(call) = carried_to_call(&decoded[index + 1..], register, targets, info) else {
        return false;
    };
    let field = (call.at + call.instruction.len() - 4) as u64;
    calls_assert_failure(&base.import_at, field) && calls_assert_failure(&head.import_at, field)
}

/// The argument register `instruction` sets from its immediate: `mov $imm, %reg` into a
/// whole 32- or 64-bit argument register.
fn argument_set(instruction: &Instruction) -> Option<Register> {
    let moves_immediate = matches!(
        instruction.code(),
        Code::Mov_r32_imm32 | Code::Mov_r64_imm64 | Code::Mov_rm32_imm32 | Code::Mov_rm64_imm32
    );
    if !moves_immediate || instruction.op0_kind() != OpKind::Register {
        return None;
    }
    let register = instruction.op0_register().full_register();
    ARGUMENTS.contains(&register).then_some(register)
}

/// Whether a relocation fills any byte of `range` (a relocated field's bytes are the linker's).
fn relocated<F: Fn(u64) -> Option<(u32, String)>>(
    side: &Side<F>,
    range: &std::ops::Range<usize>,
) -> bool {
    let (start, end) = (range.start as u64, range.end as u64);
    side.relocated.iter().any(|&(at, r_type)| {
        let width = if FIELDS_OF_4.contains(&r_type) { 4 } else { 8 };
        at < end && at + width > start
    })
}

/// The call that the instructions `after` a `mov` into `register` go on to, straight: each one
/// before it goes to the next, leaves `register` alone (neither reads nor writes it) and is no
/// branch's target, nor is the call.
fn carried_to_call<'d>(
    after: &'d [Decoded],
    register: Register,
    targets: &std::collections::BTreeSet<u64>,
    info: &mut InstructionInfoFactory,
) -> Option<&'d Decoded> {
    for next in after {
        if targets.contains(&(next.at as u64)) {
            return None;
        }
        let instruction = &next.instruction;
        match instruction.flow_control() {
            FlowControl::Call | FlowControl::IndirectCall => {
                return is_call_by_field(instruction).then_some(next);
            }
            FlowControl::Next => {}
            _ => return None,
        }
        let touches = info
            .info(instruction)
            .used_registers()
            .iter()
            .any(|used| used.register().full_register() == register);
        if touches {
            return None;
        }
    }
    None
}

/// A call whose target is the 32-bit field ending the instruction: `call rel32`, or
/// `call *disp32(%rip)`.
fn is_call_by_field(instruction: &Instruction) -> bool {
    match instruction.code() {
        Code::Call_rel32_64 => true,
        Code::Call_rm64 => instruction.is_ip_rel_memory_operand(),
        _ => false,
    }
}

/// Whether the relocation of the call's field at `field` names a C library's
/// assertion-failure function that no input defines.
fn calls_assert_failure<F: Fn(u64) -> Option<(u32, String)>>(import_at: &F, field: u64) -> bool {
    import_at(field).is_some_and(|(r_type, name)| {
        CALL_RELOCATIONS.contains(&r_type) && ASSERT_FAILURE.contains(&name.as_str())
    })
}

#[cfg(test)]
mod tests {
    use super::{Side, only_assert_arguments_differ};

    /// `lea .., %rcx; mov $line, %edx; <between>; lea .., %rdi; call <callee>`, after `before`:
    /// a failed assertion's block as gcc emits it. The call's field is relocated
    /// (`R_X86_64_PLT32`) to the import `callee`.
    fn block(
        before: &[u8],
        line: u8,
        between: &[u8],
        callee: &'static str,
    ) -> Side<'static, impl Fn(u64) -> Option<(u32, String)>> {
        let mut bytes = before.to_vec();
        bytes.extend([0x48, 0x8d, 0x0d, 0, 0, 0, 0]);
        bytes.extend([0xba, line, 0x4f, 0, 0]);
        bytes.extend(between);
        bytes.extend([0x48, 0x8d, 0x3d, 0, 0, 0, 0]);
        let call = bytes.len() as u64 + 1;
        bytes.extend([0xe8, 0, 0, 0, 0]);
        let relocated = vec![(before.len() as u64 + 3, 2), (call - 3 - 4, 2), (call, 4)];
        Side {
            bytes: Box::leak(bytes.into_boxed_slice()),
            relocated,
            import_at: move |at| (at == call).then(|| (4, callee.to_string())),
        }
    }

    const LEA_RSI: [u8; 7] = [0x48, 0x8d, 0x35, 0, 0, 0, 0];

    #[test]
    fn only_the_line_of_a_block_ending_in_an_assertion_failure_is_set_aside() {
        let same = |b: &Side<_>, h: &Side<_>| only_assert_arguments_differ(b, h);
        let fail = "__assert_fail";
        assert!(same(
            &block(&[], 0x4d, &LEA_RSI, fail),
            &block(&[], 0x41, &LEA_RSI, fail)
        ));
        // Equal bytes are not this rule's.
        assert!(!same(
            &block(&[], 0x4d, &LEA_RSI, fail),
            &block(&[], 0x4d, &LEA_RSI, fail)
        ));
        // A call that returns (`printf`): its argument counts.
        let printf = "printf";
        assert!(!same(
            &block(&[], 0x4d, &LEA_RSI, printf),
            &block(&[], 0x41, &LEA_RSI, printf)
        ));
        // `%edx` read on the way (`mov %edx, %eax`): the line goes elsewhere too.
        let reads = [0x89, 0xd0, 0x90, 0x90, 0x90, 0x90, 0x90];
        assert!(!same(
            &block(&[], 0x4d, &reads, fail),
            &block(&[], 0x41, &reads, fail)
        ));
        // A branch before the block landing after the `mov` (`jmp` to the `lea`'s of `%rsi`).
        let jump = [0xeb, 7 + 5];
        assert!(!same(
            &block(&jump, 0x4d, &LEA_RSI, fail),
            &block(&jump, 0x41, &LEA_RSI, fail)
        ));
        // A branch that lands on the block's start is fine.
        let to_start = [0xeb, 0];
        assert!(same(
            &block(&to_start, 0x4d, &LEA_RSI, fail),
            &block(&to_start, 0x41, &LEA_RSI, fail)
        ));
    }

    #[test]
    fn an_immediate_of_another_register_or_instruction_is_a_difference() {
        let fail = "__assert_fail";
        let with = |line: u8, opcode: u8| {
            let mut side = block(&[], line, &LEA_RSI, fail);
            let mut bytes = side.bytes.to_vec();
            bytes[7] = opcode;
            side.bytes = Box::leak(bytes.into_boxed_slice());
            side
        };
        // `mov $imm, %eax` (not an argument) and `mov $imm, %edx` on both sides.
        assert!(!only_assert_arguments_differ(
            &with(0x4d, 0xb8),
            &with(0x41, 0xb8)
        ));
        assert!(only_assert_arguments_differ(
            &with(0x4d, 0xba),
            &with(0x41, 0xba)
        ));
        // `mov $imm, %esi`, overwritten by the block's `lea .., %rsi` before the call: no
        // argument of it.
        assert!(!only_assert_arguments_differ(
            &with(0x4d, 0xbe),
            &with(0x41, 0xbe)
        ));
        // `mov $imm, %ecx` (the fourth argument), then the block leaves `%rcx` alone.
        assert!(only_assert_arguments_differ(
            &with(0x4d, 0xb9),
            &with(0x41, 0xb9)
        ));
    }
}
