//! The instructions a run executed, by object, read from callgrind's profiles
//! (`--collect-atstart=yes --dump-instr=yes --demangle=no`).
//!
//! Why not [`crate::steps::instructions::callgrind::parse`]: it adds costs up by function name
//! and file, which is what a profile is for, but here the question is which object each address
//! lies in, and names shared across objects (`_init`, `frame_dummy`, `deregister_tm_clones` are in
//! every one) would put a library's addresses into the executable's set. This reader keeps the
//! `ob=` of every cost line and nothing else.
//!
//! Which addresses: callgrind writes an instruction's position as its address minus the load
//! offset of its object (for a position-independent executable, loaded by valgrind at
//! `0x108000`, the ELF virtual address of the file: the entry point `_start` of the fixture's
//! bench executable shows as its `e_entry`, `0x7e2f0`, not `0x186_2f0`). So the positions of
//! the executable's object are already comparable with its symbol table; [`check_addresses`]
//! makes sure of it on every trace, against the symbols of the functions callgrind named.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use object::{Object, ObjectSection, ObjectSymbol};

/// The executed instruction positions of one profile, by object (`ob=`), and by function within
/// each object (the raw, mangled name callgrind gave it); and the calls made, by caller.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Executed {
    pub objects: BTreeMap<String, ObjectCode>,
    /// Every function (raw name, whatever its object) called from each function (`cfn=`):
    /// what ran from the time a function was entered until it returned, as a graph.
    pub calls: BTreeMap<String, BTreeSet<String>>,
}

/// What ran in one object.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ObjectCode {
    pub addresses: BTreeSet<u64>,
    pub functions: BTreeMap<String, BTreeSet<u64>>,
}

/// A profile that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProfileError {
    #[error("line {line}: {message}")]
    Line { line: usize, message: String },
    /// No `totals:` line: valgrind did not finish writing it (killed, or out of space).
    #[error("the profile ends without its `totals:` line (cut short)")]
    Cut,
    #[error("the profile has no instruction addresses (`positions: instr line`)")]
    NoAddresses,
}

impl Executed {
    /// Adds what `other` executed.
    pub fn merge(&mut self, other: Executed) {
        for (object, code) in other.objects {
            let mine = self.objects.entry(object).or_default();
            mine.addresses.extend(code.addresses);
            for (function, addresses) in code.functions {
                mine.functions
                    .entry(function)
                    .or_default()
                    .extend(addresses);
            }
        }
        for (caller, callees) in other.calls {
            self.calls.entry(caller).or_default().extend(callees);
        }
    }

    /// The functions `roots` (raw names) called, directly or through others, and the roots
    /// themselves when they ran. A function called from a root on one call and from elsewhere on
    /// another is in it: the graph does not tell the calls apart.
    pub fn reached_from(&self, roots: &BTreeSet<String>) -> BTreeSet<String> {
        let ran = |name: &String| {
            self.calls.contains_key(name)
                || self
                    .objects
                    .values()
                    .any(|o| o.functions.contains_key(name))
        };
        let mut reached: BTreeSet<String> = roots.iter().filter(|r| ran(r)).cloned().collect();
        let mut pending: Vec<String> = reached.iter().cloned().collect();
        while let Some(caller) = pending.pop() {
            for callee in self.calls.get(&caller).into_iter().flatten() {
                if reached.insert(callee.clone()) {
                    pending.push(callee.clone());
                }
            }
        }
        reached
    }
}

/// Reads one profile file's text.
pub fn parse(text: &str) -> Result<Executed, ProfileError> {
    let mut reader = Reader::default();
    for (index, line) in text.lines().enumerate() {
        reader
            .line(line.trim_end())
            .map_err(|message| ProfileError::Line {
                line: index + 1,
                message,
            })?;
    }
    if !reader.instr_positions {
        return Err(ProfileError::NoAddresses);
    }
    if !reader.totals {
        return Err(ProfileError::Cut);
    }
    Ok(reader.executed)
}

#[derive(Default)]
struct Reader {
    objects: HashMap<String, String>,
    functions: HashMap<String, String>,
    object: String,
    function: String,
    last_address: i64,
    /// Set by `calls=`, `jump=` and `jcnd=`: the next position line is the call's or jump's
    /// source, written relative to the last cost line but not becoming the last itself
    /// (callgrind's `fprint_jcc` does not update it).
    source_line: bool,
    instr_positions: bool,
    totals: bool,
    executed: Executed,
}

/// `(12) name` defines id 12 in `table`; `(12)` refers to it; a bare `name` is itself.
fn resolve(table: &mut HashMap<String, String>, value: &str) -> Result<String, String> {
    let value = value.trim();
    let Some(rest) = value.strip_prefix('(') else {
        return Ok(value.to_string());
    };
    let (id, name) = rest
        .split_once(')')
        .ok_or_else(|| format!("{value:?} is no name"))?;
    let name = name.trim();
    if name.is_empty() {
        return table
            .get(id)
            .cloned()
            .ok_or_else(|| format!("name ({id}) used before it was defined"));
    }
    table.insert(id.to_string(), name.to_string());
    Ok(name.to_string())
}

impl Reader {
    fn line(&mut self, line: &str) -> Result<(), String> {
        let Some(&first) = line.as_bytes().first() else {
            return Ok(());
        };
        if first.is_ascii_digit() || matches!(first, b'+' | b'-' | b'*') {
            return self.position(line);
        }
        let Some((key, value)) = line.split_once(['=', ':']) else {
            return Ok(());
        };
        match key {
            "positions" => self.instr_positions = value.split_whitespace().next() == Some("instr"),
            "totals" => self.totals = true,
            "ob" => self.object = resolve(&mut self.objects, value)?,
            "cob" => {
                resolve(&mut self.objects, value)?;
            }
            "fn" => self.function = without_recursion_level(&resolve(&mut self.functions, value)?),
            "cfn" => {
                let callee = without_recursion_level(&resolve(&mut self.functions, value)?);
                self.executed
                    .calls
                    .entry(self.function.clone())
                    .or_default()
                    .insert(callee);
            }
            "calls" | "jump" | "jcnd" => self.source_line = true,
            _ => {}
        }
        Ok(())
    }

    /// A cost line (or the source line after `jump=`/`calls=`): its first column is an
    /// instruction that ran, in the current object and function.
    fn position(&mut self, line: &str) -> Result<(), String> {
        if !self.instr_positions {
            return Ok(());
        }
        let field = line.split_whitespace().next().unwrap_or("");
        let address = match field {
            "*" => self.last_address,
            _ if field.starts_with('+') => self.last_address + number(&field[1..])?,
            _ if field.starts_with('-') => self.last_address - number(&field[1..])?,
            _ => number(field)?,
        };
        if !std::mem::take(&mut self.source_line) {
            self.last_address = address;
        }
        let address = u64::try_from(address).map_err(|_| format!("address {address} < 0"))?;
        let code = self
            .executed
            .objects
            .entry(self.object.clone())
            .or_default();
        code.addresses.insert(address);
        code.functions
            .entry(self.function.clone())
            .or_default()
            .insert(address);
        Ok(())
    }
}

fn number(field: &str) -> Result<i64, String> {
    let parsed = match field.strip_prefix("0x") {
        Some(hex) => i64::from_str_radix(hex, 16),
        None => field.parse(),
    };
    parsed.map_err(|_| format!("{field:?} is not a position"))
}

/// `name` without the `'N` callgrind appends to the deeper levels of a recursion.
fn without_recursion_level(name: &str) -> String {
    match name.rsplit_once('\'') {
        Some((function, level))
            if !function.is_empty()
                && !level.is_empty()
                && level.bytes().all(|b| b.is_ascii_digit()) =>
        {
            function.to_string()
        }
        _ => name.to_string(),
    }
}

/// Why the positions of an executable's object cannot be taken for its virtual addresses.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AddressError {
    #[error("cannot read its symbol table: {0}")]
    Unreadable(String),
    #[error(
        "none of the {0} functions callgrind named has a symbol to check its addresses against"
    )]
    NothingToCheck(usize),
    #[error(
        "callgrind placed {function} at {address:#x}, outside its symbol ({ranges}): its addresses are not the file's"
    )]
    Outside {
        function: String,
        address: u64,
        ranges: String,
    },
}

/// Checks that the positions of `code` (what ran in the executable whose file is `data`) are the
/// file's virtual addresses: every address of a function callgrind named after a symbol lies in
/// that symbol (one of them, when several share the name). Returns how many functions were
/// checked.
pub fn check_addresses(code: &ObjectCode, data: &[u8]) -> Result<usize, AddressError> {
    let file = object::File::parse(data).map_err(|e| AddressError::Unreadable(e.to_string()))?;
    let mut symbols: HashMap<&str, Vec<(u64, u64)>> = HashMap::new();
    for symbol in file.symbols().chain(file.dynamic_symbols()) {
        if symbol.kind() != object::SymbolKind::Text {
            continue;
        }
        if let Ok(name) = symbol.name() {
            symbols
                .entry(name)
                .or_default()
                .push((symbol.address(), symbol.size()));
        }
    }
    let unnamed = UnnamedCode::of(&file);
    let shared = SharedTails::of(&symbols);
    let mut checked = 0;
    for (function, addresses) in &code.functions {
        let Some(ranges) = symbols.get(function.as_str()) else {
            continue;
        };
        // A symbol without a size (hand-written assembly) tells where it starts only.
        if ranges.iter().any(|&(_, size)| size == 0) {
            continue;
        }
        let inside = |a: u64| {
            unnamed.covers(a)
                || shared.covers(function, a)
                || ranges
                    .iter()
                    .any(|&(start, size)| a >= start && a < start + size)
        };
        if let Some(&address) = addresses.iter().find(|&&a| !inside(a)) {
            return Err(AddressError::Outside {
                function: function.clone(),
                address,
                ranges: ranges
                    .iter()
                    .map(|(s, n)| format!("{s:#x}+{n:#x}"))
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
        checked += 1;
    }
    if checked == 0 {
        return Err(AddressError::NothingToCheck(code.functions.len()));
    }
    Ok(checked)
}

/// The code of global labels without a type (`STT_NOTYPE` in an executable section): assembly
/// that leaves out `.type` defines its functions so (BLAKE3's `.S` files), valgrind names no
/// function there, and callgrind counts what runs there to the function that called it
/// (`blake3::platform::Platform::compress_in_place` for `blake3_compress_in_place_sse2`). Such
/// an address is the file's all the same: from a label to the next function symbol.
struct UnnamedCode {
    /// Every function's and label's start, sorted, each with whether it is such a label.
    starts: Vec<(u64, bool)>,
}

impl UnnamedCode {
    fn of(file: &object::File<'_>) -> UnnamedCode {
        let code: Vec<(u64, u64)> = file
            .sections()
            .filter(|s| s.kind() == object::SectionKind::Text)
            .map(|s| (s.address(), s.address() + s.size()))
            .collect();
        let in_code = |a: u64| code.iter().any(|&(s, e)| (s..e).contains(&a));
        let mut starts: Vec<(u64, bool)> = file
            .symbols()
            .filter(|s| s.is_definition() && in_code(s.address()))
            .filter_map(|s| match s.kind() {
                object::SymbolKind::Text => Some((s.address(), false)),
                object::SymbolKind::Unknown if !s.is_local() => Some((s.address(), true)),
                _ => None,
            })
            .collect();
        starts.sort_unstable();
        // A label and a function at one address: the function's symbol names it.
        starts.dedup_by_key(|(at, _)| *at);
        UnnamedCode { starts }
    }

    /// Whether `address` follows a label without a type before any other start.
    fn covers(&self, address: u64) -> bool {
        let after = self.starts.partition_point(|&(at, _)| at <= address);
        after > 0 && self.starts[after - 1].1
    }
}

/// Hand-written assembly that jumps into another function's body: ring's (BoringSSL's perlasm)
/// `chacha20_poly1305_open_avx2` ends in `jmp .Lopen_sse_tail_16`, code inside
/// `chacha20_poly1305_open_sse41`'s symbol. Callgrind counts code entered by a jump, not a
/// call, to the function that jumped, so it names `open_avx2` at an address of `open_sse41`,
/// and every ChaCha20-Poly1305 benchmark's trace was refused. Such an address is the file's all
/// the same: it lies in another function's symbol. Only a function that is not Rust's may do
/// so (rustc jumps into no other function's body, and a tail call enters at a symbol's start,
/// which callgrind names as a call): the check stays whole for the Rust functions, which every
/// trace holds and a load offset would move.
struct SharedTails {
    /// Every sized function symbol's range, sorted by start.
    ranges: Vec<(u64, u64)>,
}

impl SharedTails {
    fn of(symbols: &HashMap<&str, Vec<(u64, u64)>>) -> SharedTails {
        let mut ranges: Vec<(u64, u64)> = symbols
            .values()
            .flatten()
            .filter(|&&(_, size)| size > 0)
            .map(|&(start, size)| (start, start.saturating_add(size)))
            .collect();
        ranges.sort_unstable();
        SharedTails { ranges }
    }

    /// Whether `function` (a raw name), which callgrind named at `address`, may be there by a
    /// jump into another function's body: it is not a Rust function and `address` lies in a
    /// function symbol.
    fn covers(&self, function: &str, address: u64) -> bool {
        if crate::steps::build::link::is_rust_symbol(function) {
            return false;
        }
        let after = self.ranges.partition_point(|&(start, _)| start <= address);
        self.ranges[..after]
            .iter()
            .any(|&(start, end)| (start..end).contains(&address))
    }
}

/// Whether `object` (an `ob=` name) is the file at `path`.
pub fn is_same_file(object: &str, path: &Path) -> bool {
    let object = Path::new(object);
    if object == path {
        return true;
    }
    match (object.canonicalize(), path.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// As callgrind 3.19 writes it (shortened): compressed names, relative and repeated positions,
    /// a call, a name shared by two objects.
    const PROFILE: &str = "# callgrind format
version: 1
positions: instr line
events: Ir
summary: 30
ob=(1) /usr/lib/libc.so.6
fl=(1) ???
fn=(1) frame_dummy
0x1000 0 1
+4 0 1
ob=(2) /bench/exe
fn=(2) frame_dummy
0x7e2f0 0 1
fn=(3) _ZN4demo3mix17h0123E
0x8000 0 1
+3 * 2
cob=(1)
cfn=(4) memcpy
calls=1 0x2000 0
+2 0 9
-1 * 1
fn=(5) _ZN4demo3mix17h0123E'2
0x8010 0 1
ob=(1)
fn=(4)
0x2000 0 9

totals: 30
";

    #[test]
    fn addresses_are_kept_by_object_and_function() {
        let executed = parse(PROFILE).unwrap();
        let libc = &executed.objects["/usr/lib/libc.so.6"];
        assert_eq!(libc.addresses, BTreeSet::from([0x1000, 0x1004, 0x2000]));
        let exe = &executed.objects["/bench/exe"];
        // The call's source line (+2 from 0x8003) does not move the base of the next line
        // (-1 from 0x8003, not from 0x8005).
        assert_eq!(
            exe.addresses,
            BTreeSet::from([0x7e2f0, 0x8000, 0x8002, 0x8003, 0x8005, 0x8010])
        );
        assert_eq!(
            exe.functions["_ZN4demo3mix17h0123E"],
            BTreeSet::from([0x8000, 0x8002, 0x8003, 0x8005, 0x8010])
        );
        assert_eq!(exe.functions["frame_dummy"], BTreeSet::from([0x7e2f0]));
    }

    #[test]
    fn the_calls_make_a_graph_and_what_a_function_reached_is_followed_through_it() {
        let executed = parse(PROFILE).unwrap();
        assert_eq!(
            executed.calls["_ZN4demo3mix17h0123E"],
            BTreeSet::from(["memcpy".to_string()])
        );
        let roots = |names: &[&str]| names.iter().map(|n| n.to_string()).collect();
        assert_eq!(
            executed.reached_from(&roots(&["_ZN4demo3mix17h0123E"])),
            roots(&["_ZN4demo3mix17h0123E", "memcpy"])
        );
        // A root that did not run reaches nothing; a function nothing calls is not reached.
        assert!(executed.reached_from(&roots(&["absent"])).is_empty());
        assert!(
            !executed
                .reached_from(&roots(&["_ZN4demo3mix17h0123E"]))
                .contains("frame_dummy")
        );
    }

    #[test]
    fn a_profile_cut_short_or_without_addresses_is_refused() {
        let cut = PROFILE.replace("totals: 30\n", "");
        assert_eq!(parse(&cut), Err(ProfileError::Cut));
        let lines = PROFILE.replace("positions: instr line", "positions: line");
        assert_eq!(parse(&lines), Err(ProfileError::NoAddresses));
        let unknown = PROFILE.replace("fn=(4)\n0x2000", "fn=(9)\n0x2000");
        assert!(matches!(parse(&unknown), Err(ProfileError::Line { .. })));
    }

    #[test]
    fn an_address_after_a_label_without_a_type_is_the_file_s() {
        // A function at 0x100, BLAKE3's assembly label at 0x200, another function at 0x300.
        let unnamed = UnnamedCode {
            starts: vec![(0x100, false), (0x200, true), (0x300, false)],
        };
        assert!(!unnamed.covers(0xff));
        assert!(!unnamed.covers(0x1ff));
        assert!(unnamed.covers(0x200));
        assert!(unnamed.covers(0x2ff));
        assert!(!unnamed.covers(0x300));
    }

    /// Two assembly functions as perlasm writes them (typed, sized, global), the second ending
    /// in a jump into the first one's body, as ring's `chacha20_poly1305_open_avx2` jumps into
    /// `chacha20_poly1305_open_sse41`'s tail.
    const SHARED_TAIL: &str = r#"std::arch::global_asm!(
    ".globl shared_a", ".type shared_a,@function", "shared_a:",
    "    mov eax, 1", "2:", "    add eax, edi", "    ret",
    ".size shared_a, .-shared_a",
    ".globl shared_b", ".type shared_b,@function", "shared_b:",
    "    mov eax, 2", "    jmp 2b",
    ".size shared_b, .-shared_b",
);
unsafe extern "C" { fn shared_b(x: u32) -> u32; }
fn main() { std::process::exit((unsafe { shared_b(std::hint::black_box(3)) } != 5) as i32) }
"#;

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn assembly_that_jumps_into_another_function_s_body_is_the_file_s() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("main.rs"), SHARED_TAIL).unwrap();
        let rustc = std::process::Command::new("rustc")
            .current_dir(dir.path())
            .args(["-O", "--edition", "2021", "main.rs"])
            .status()
            .unwrap();
        assert!(rustc.success());
        let exe = dir.path().join("main");
        let profile = dir.path().join("callgrind.out");
        let valgrind = std::process::Command::new("valgrind")
            .args([
                "--tool=callgrind",
                "--collect-atstart=yes",
                "--dump-instr=yes",
            ])
            .arg("--demangle=no")
            .arg(format!("--callgrind-out-file={}", profile.display()))
            .arg(&exe)
            .stderr(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(valgrind.success());
        let executed = parse(&std::fs::read_to_string(&profile).unwrap()).unwrap();
        let (_, code) = executed
            .objects
            .iter()
            .find(|(object, _)| is_same_file(object, &exe))
            .unwrap();
        let data = std::fs::read(&exe).unwrap();
        let file = object::File::parse(&*data).unwrap();
        let shared_a = file.symbols().find(|s| s.name() == Ok("shared_a")).unwrap();
        let tail = shared_a.address()..shared_a.address() + shared_a.size();
        // Callgrind names the function that jumped at the other one's address.
        assert!(code.functions["shared_b"].iter().any(|a| tail.contains(a)));
        assert!(check_addresses(code, &data).is_ok_and(|checked| checked > 1));
    }

    #[test]
    fn a_rust_function_named_in_another_function_s_body_is_refused() {
        let exe = std::env::current_exe().unwrap();
        let data = std::fs::read(&exe).unwrap();
        let file = object::File::parse(&*data).unwrap();
        let mut sized = file.symbols().filter(|s| {
            s.kind() == object::SymbolKind::Text
                && s.size() > 16
                && s.name()
                    .is_ok_and(crate::steps::build::link::is_rust_symbol)
        });
        let (one, other) = (sized.next().unwrap(), sized.next().unwrap());
        let mut code = ObjectCode::default();
        code.functions.insert(
            one.name().unwrap().to_string(),
            BTreeSet::from([one.address(), other.address() + 1]),
        );
        assert!(matches!(
            check_addresses(&code, &data),
            Err(AddressError::Outside { .. })
        ));
    }

    #[test]
    fn addresses_outside_their_symbol_are_refused() {
        let exe = std::env::current_exe().unwrap();
        let data = std::fs::read(&exe).unwrap();
        let file = object::File::parse(&*data).unwrap();
        let (name, start, size) = file
            .symbols()
            .filter(|s| s.kind() == object::SymbolKind::Text && s.size() > 16)
            .find_map(|s| Some((s.name().ok()?.to_string(), s.address(), s.size())))
            .unwrap();
        let mut code = ObjectCode::default();
        code.functions
            .insert(name.clone(), BTreeSet::from([start, start + size - 1]));
        assert_eq!(check_addresses(&code, &data), Ok(1));
        // Shifted by a load offset into another function: refused. (A fixed offset landed, as
        // this test executable grew, in code no symbol names, which counts as anyone's.)
        let elsewhere = file
            .symbols()
            .filter(|s| s.kind() == object::SymbolKind::Text && s.size() > 16)
            .map(|s| s.address())
            .find(|&a| a > start + size + 0x1000)
            .unwrap();
        code.functions
            .insert(name.clone(), BTreeSet::from([elsewhere]));
        assert!(matches!(
            check_addresses(&code, &data),
            Err(AddressError::Outside { .. })
        ));
        let mut unknown = ObjectCode::default();
        unknown
            .functions
            .insert("no such symbol".into(), BTreeSet::from([1]));
        assert_eq!(
            check_addresses(&unknown, &data),
            Err(AddressError::NothingToCheck(1))
        );
    }
}
