//! Code identity: whether a benchmark executes the same code on both sides, decided from the
//! objects each executable was linked from (issue #48; docs/design/selection-code-identity.md).
//!
//! Why objects and not the executables: in a linked executable every relocated field holds an
//! address, and the addresses move whenever any code before them grows, so two executables of
//! identical functions differ almost everywhere. In the objects rustc puts each function and
//! each constant in its own section, with its relocations beside it: exact extents and exact
//! targets, with no disassembly. The objects are the preserved inputs of the link
//! ([`crate::steps::build::layout::inputs_dir`]); the executable, cargo's own, only says
//! which function an executed address is in.
//!
//! The rules, soundness first (when in doubt: [`CodeComparison::Differs`] or
//! [`CodeComparison::Unknown`], never [`CodeComparison::Same`]):
//! - An executed address is in the functions whose symbol covers it, every name at that address;
//!   an address no symbol covers is unknown. A PLT stub is its import's name.
//! - A function is its section(s) in the objects, found by raw (mangled) name, hash included:
//!   base's and head's are paired by that name, so two instantiations of one generic never pair
//!   with each other, and a dependency whose version changed has no partner. The suffix ThinLTO
//!   gives a promoted local (`.llvm.<digits>`, a hash of its whole module, which any change in the
//!   module changes) is not part of the name. A name several objects define (a local copy per
//!   codegen unit) pairs all its definitions in link order, and a reference to such a name is
//!   compared by the content of the copy it refers to.
//! - A fat-LTO link renames a local symbol whose name a module linked before it took
//!   (`name.<n>`, [`objects::lto_stem`]), with one counter over the whole link, so an unrelated
//!   change renumbers the copies after it. Such a name is one of several copies: what refers to
//!   it compares the copy it refers to by content, under its name without the counter (whether
//!   the other side's copy has a counter or none); an executed copy whose name head lacks pairs
//!   every copy of its name on each side, in the link's order, each compared.
//! - Two sections are the same when their bytes, size, alignment and flags are, and their
//!   relocations are at the same offsets with the same types, addends and targets; a target
//!   function by name (its content counts only if it is executed), data by content, recursively
//!   (`identity`); in a section of merged constants, the one entry the relocation refers to.
//! - A panic location (`core::panic::Location`) is the same whatever its line and column, when
//!   its file is: a comment that shifts lines changes nothing else, and neither does a rewrite
//!   that shortens a line before an `.unwrap()` (`format!("{}.txt", file)` as
//!   `format!("{file}.txt")`, which expands to the same code: unicode-segmentation's set-up,
//!   docs/design/selection-trace.md). A location is read by the panic it is handed to, for its
//!   message; the code around it is compared in full, so both sides panic or neither does, at
//!   the same point. This is the one thing it knowingly does not see: a
//!   `Location::caller().line()` or `.column()` read outside a panic.
//! - C code that differs from the other side's only in what a failed `assert` passes to the C
//!   library (its line, which lines added above move) is the same ([`assert_failure`]).
//! - Code that executed a `cpuid` of the executable may choose, natively, code that its trace
//!   never ran (an AVX-512 or SHA kernel behind `is_x86_feature_detected!`) when this CPU has
//!   features valgrind hides ([`features_valgrind_hides`]). A benchmark's native probe stops at
//!   any changed function such a path enters; a command's programs are probed natively only
//!   then ([`Comparer::cpu_dependent`]).
//! - A function no input defines is unknown, except the C start-up code the linker driver adds
//!   ([`TOOLCHAIN_FUNCTIONS`]) and glibc's static part of `libc`
//!   ([`C_LIBRARY_STATIC_FUNCTIONS`]), the same files on both sides of one toolchain.

mod assert_failure;
#[cfg(test)]
mod assert_failure_tests;
mod executable;
mod identity;
mod libtest_table;
#[cfg(test)]
mod libtest_table_tests;
#[cfg(test)]
mod lto_copies_tests;
mod objects;
#[cfg(test)]
mod test_builds;
#[cfg(test)]
mod version_code_tests;
#[cfg(test)]
mod version_prefix_tests;

pub use libtest_table::SET_ASIDE as LIBTEST_TABLE_MOVED;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::versions::VersionChange;
use crate::steps::build::BuildOutDir;
use executable::{Executable, Place};
pub use identity::CheckoutPaths;
use identity::{Walk, demangle, functions_named_by};
use objects::{Objects, SecRef, lto_stem, stable_name};

/// Why a linked executable's code cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum CodeError {
    #[error("cannot read {path}: {source}", path = .path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot parse {path}: {message}", path = .path.display())]
    Parse { path: PathBuf, message: String },
}

/// The functions of the C start-up files (`crt1.o`, `crti.o`, `crtbegin.o`, …) that the linker
/// driver adds to every link without naming them on the command line: compared by name, as the
/// toolchain's own files (the build settings, the same on both sides, include the toolchain).
pub const TOOLCHAIN_FUNCTIONS: &[&str] = &[
    "_start",
    "_init",
    "_fini",
    "deregister_tm_clones",
    "register_tm_clones",
    "__do_global_dtors_aux",
    "frame_dummy",
    "__libc_csu_init",
    "__libc_csu_fini",
    "_dl_relocate_static_pie",
    "call_weak_fn",
];

/// The functions of glibc's `libc_nonshared.a`, which the linker script `libc.so` adds to every
/// link beside `libc.so.6` (`GROUP ( libc.so.6 libc_nonshared.a … )`) and which are linked into
/// the executable when called: the driver's `-lc` names them, never a path rustc gives, so no
/// input defines them. Compared by name, as toolchain files ([`TOOLCHAIN_FUNCTIONS`]). rand 0.8's
/// `thread_rng()` registers a fork handler with `pthread_atfork` (`__pthread_atfork`), so every
/// benchmark that draws its input from it was `Unknown` (rust-crc32fast, field-trials.md). The
/// `stat` family was there too before glibc 2.33.
pub const C_LIBRARY_STATIC_FUNCTIONS: &[&str] = &[
    "pthread_atfork",
    "__pthread_atfork",
    "atexit",
    "at_quick_exit",
    "__stack_chk_fail_local",
    "stat",
    "fstat",
    "lstat",
    "fstatat",
    "mknod",
    "mknodat",
    "stat64",
    "fstat64",
    "lstat64",
    "fstatat64",
];

/// Whether `name` is a function of the toolchain's own files that the link adds without naming
/// them ([`TOOLCHAIN_FUNCTIONS`], [`C_LIBRARY_STATIC_FUNCTIONS`]): the same on both sides of one
/// toolchain, though no input defines it.
fn is_toolchain_function(name: &str) -> bool {
    TOOLCHAIN_FUNCTIONS.contains(&name) || C_LIBRARY_STATIC_FUNCTIONS.contains(&name)
}

/// One side's code: cargo's executable (for address → symbol names) and the objects it was
/// linked from (for sections, their bytes and relocations).
pub struct LinkedCode {
    executable: Executable,
    objects: Objects,
    /// The executable's path, for the names its debug information gives inlined code.
    path: PathBuf,
    /// Its debug information, read when a changed function is first named (`None` until
    /// then; behind a lock, as a `LinkedCode` is shared between threads).
    lines: std::sync::Mutex<Option<Option<addr2line::Loader>>>,
}

impl LinkedCode {
    /// Reads `executable`'s symbol table and every object of `inputs` (objects, static
    /// libraries, rlibs; anything that is not an ELF object is skipped).
    pub fn open(executable: &Path, inputs: &[PathBuf]) -> Result<LinkedCode, CodeError> {
        let executable_path = executable;
        let inputs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
        let (executable, objects) =
            rayon::join(|| Executable::read(executable), || Objects::read(&inputs));
        Ok(LinkedCode {
            executable: executable?,
            objects: objects?,
            path: executable_path.to_path_buf(),
            lines: std::sync::Mutex::new(None),
        })
    }

    /// How a report names the changed function `name` (raw) of which `addresses` ran: as
    /// `--explain` names it, with the functions of the program inlined into it there, when the
    /// executable's debug information has them (`debug = "line-tables-only"` or more); else by
    /// its symbol name, demangled ([`crate::steps::instructions::inlined::source_names`]).
    /// `crates`: the checkout's crates, whose functions are named by their own name too
    /// ([`is_workspace_function`]).
    fn source_names(
        &self,
        name: &str,
        addresses: &[u64],
        crates: Option<&BTreeSet<String>>,
    ) -> Vec<String> {
        let symbol = demangle(name);
        let workspace = crates.is_some_and(|crates| is_workspace_function(&symbol, crates));
        let mut lines = self.lines.lock().unwrap_or_else(|e| e.into_inner());
        match lines.get_or_insert_with(|| addr2line::Loader::new(&self.path).ok()) {
            Some(loader) => crate::steps::instructions::inlined::source_names(
                loader,
                addresses.iter().copied(),
                &symbol,
                workspace,
            ),
            None => vec![symbol],
        }
    }
}

/// Whether the demangled symbol name `symbol` is a path into one of `crates` (the checkout's,
/// [`super::source::checkout_crates`]): `bstr::main`, `bstr::search::g10`; not an impl's
/// method (`<bstr::X as Tr>::f`), whose path does not say its crate, nor another crate's
/// generic instantiated with the checkout's types (`criterion::Bencher<M>::iter`).
fn is_workspace_function(symbol: &str, crates: &BTreeSet<String>) -> bool {
    symbol
        .split_once("::")
        .is_some_and(|(first, _)| crates.contains(first))
}

/// Whether a benchmark executes the same code on both sides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CodeComparison {
    /// Every executed function and every data object it reaches is identical. `functions`: the
    /// executed functions (names without ThinLTO's suffix) and PLT stubs; `data`: the data
    /// sections compared for them (a lower bound: what lies behind a pair another benchmark of
    /// the same `Comparer` already proved is not counted again).
    /// `alike`: the packages whose build-script output directory the data held, base's on one
    /// side and head's on the other, read alike ([`CheckoutPaths::read_alike`]; sorted).
    /// `set_aside`: differences found not to be the benchmark's, as the reason words them
    /// (libtest's table of benchmarks whose source lines moved, [`libtest_table::SET_ASIDE`];
    /// the lines C's `assert` passes to `__assert_fail`, [`assert_failure::SET_ASIDE`]).
    Same {
        functions: usize,
        data: usize,
        alike: Vec<String>,
        set_aside: Vec<String>,
    },
    /// These executed functions differ or have no partner, named as `--explain` names them
    /// (the program's functions inlined into them, where the debug information says; else
    /// demangled, without hash), sorted, deduplicated; `data`: the changed data objects reached (the static's name, or "data of"
    /// the function that references it). `unpaired`: some executed function has no
    /// definition of its name in head (a new symbol hash: a package's version, a generic's
    /// arguments, or the function itself gone).
    Differs {
        functions: Vec<String>,
        data: Vec<String>,
        unpaired: bool,
    },
    /// Cannot decide (an executed address with no symbol, a function no object defines,
    /// LTO bitcode, …): measure. One-line reason.
    Unknown { reason: String },
}

/// The CPU features this machine has that valgrind (3.19, as measured) does not show the programs
/// it runs: a program that chooses its code by them takes another path under valgrind.
/// Measured on an AVX-512 machine by printing `is_x86_feature_detected!` natively and under
/// valgrind (docs/design/selection-real-repository.md).
pub fn features_valgrind_hides() -> Vec<&'static str> {
    #[cfg(target_arch = "x86_64")]
    {
        let has = [
            ("avx512f", std::arch::is_x86_feature_detected!("avx512f")),
            ("sha", std::arch::is_x86_feature_detected!("sha")),
            ("gfni", std::arch::is_x86_feature_detected!("gfni")),
            ("vaes", std::arch::is_x86_feature_detected!("vaes")),
            (
                "vpclmulqdq",
                std::arch::is_x86_feature_detected!("vpclmulqdq"),
            ),
            ("adx", std::arch::is_x86_feature_detected!("adx")),
            ("xsavec", std::arch::is_x86_feature_detected!("xsavec")),
        ];
        has.iter()
            .filter(|(_, present)| *present)
            .map(|(name, _)| *name)
            .collect()
    }
    #[cfg(not(target_arch = "x86_64"))]
    Vec::new()
}

/// A function of base's executable whose code is not the same in head: its entry (an ELF
/// virtual address, as in base's symbol table) and its name, demangled.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ChangedEntry {
    pub address: u64,
    pub name: String,
}

/// One executed function's verdict, kept for every benchmark of the pair.
#[derive(Debug, Clone)]
enum Verdict {
    /// `alike`: the packages whose build-script output directory was read alike; `set_aside`:
    /// the differences set aside ([`identity::Walk::set_aside`]).
    Same {
        data: BTreeSet<SecRef>,
        alike: BTreeSet<String>,
        set_aside: BTreeSet<&'static str>,
    },
    /// `unpaired`: head defines no function of this name.
    Differs {
        data: Option<String>,
        unpaired: bool,
    },
    Unknown(String),
}

/// The functions a benchmark executed ([`Comparer::executed_functions`]).
#[derive(Default)]
struct Executed {
    /// Each executed function as the set of its raw names.
    groups: Vec<BTreeSet<String>>,
    /// PLT stubs executed.
    stubs: usize,
    /// The executed addresses of each raw name.
    addresses: HashMap<String, Vec<u64>>,
}

/// Compares base and head, remembering what it already compared (one Comparer serves every
/// benchmark of one pair of executables).
pub struct Comparer<'a> {
    base: &'a LinkedCode,
    head: &'a LinkedCode,
    /// Section pairs proven the same.
    proven: HashSet<(SecRef, SecRef)>,
    verdicts: HashMap<String, Verdict>,
    /// The two checkouts' paths, which the code of the two sides may hold ([`CheckoutPaths`]).
    paths: CheckoutPaths,
    /// The checkouts' crates (`None`: unknown), whose changed functions are named by their own
    /// name whatever their lines ([`LinkedCode::source_names`]).
    crates: Option<BTreeSet<String>>,
}

impl<'a> Comparer<'a> {
    pub fn new(base: &'a LinkedCode, head: &'a LinkedCode) -> Self {
        Comparer {
            base,
            head,
            proven: HashSet::new(),
            verdicts: HashMap::new(),
            paths: CheckoutPaths::default(),
            crates: None,
        }
    }

    /// Reads bytes that differ only by the checkouts' paths, `base` in base's code and `head` in
    /// head's, as the same ([`CheckoutPaths`]): a crate that compiles its directory in
    /// (`env!("CARGO_MANIFEST_DIR")`) builds the same code in both checkouts, which lie at paths
    /// of one length, and reads its own checkout's files.
    /// `versions`, the workspace's packages whose version changed, are named in the data that
    /// holds them (a benchmark that reads its version is measured, and says so).
    /// The checkouts' crates are read from their manifests: a changed function of one of them
    /// is named by its own name ([`LinkedCode::source_names`]).
    pub fn with_checkouts(mut self, base: &Path, head: &Path, versions: &[VersionChange]) -> Self {
        self.paths = CheckoutPaths::new(base, head).with_versions(versions);
        self.crates = super::source::checkout_crates([base, head]);
        self
    }

    /// Also reads a package's build-script output directory in base's code (`base`, as the
    /// build reported them) and the same package's in head's (`head`) alike: cargo names it by
    /// a hash of the package's version, so code that compiles it in (a panic location in an
    /// `include!`d generated file) is otherwise changed data across a version bump
    /// ([`CheckoutPaths::with_out_dirs`]).
    pub fn with_out_dirs(mut self, base: &[BuildOutDir], head: &[BuildOutDir]) -> Self {
        self.paths = self.paths.with_out_dirs(base, head);
        self
    }

    /// `executed`: ELF virtual addresses (as in base's symbol table) of executed instructions.
    pub fn compare(&mut self, executed: &BTreeSet<u64>) -> CodeComparison {
        for side in [self.base, self.head] {
            if let Some(file) = &side.objects.bitcode {
                return CodeComparison::Unknown {
                    reason: format!("LTO: {file} holds LLVM bitcode, not machine code"),
                };
            }
        }
        let Executed {
            groups,
            stubs,
            addresses,
        } = match self.executed_functions(executed) {
            Ok(found) => found,
            Err(reason) => return CodeComparison::Unknown { reason },
        };
        let names: BTreeSet<String> = groups.iter().flatten().cloned().collect();
        let verdicts: HashMap<String, Verdict> = names
            .iter()
            .map(|name| (name.clone(), self.function(name)))
            .collect();
        let entered = self.entered_names(&groups, &verdicts);
        let mut functions = BTreeSet::new();
        let mut data_changed = BTreeSet::new();
        let mut data_same = BTreeSet::new();
        let mut alike = BTreeSet::new();
        let mut set_aside = BTreeSet::new();
        let mut unpaired = false;
        let mut unknown = None;
        for name in entered {
            match &verdicts[name] {
                Verdict::Same {
                    data,
                    alike: read,
                    set_aside: aside,
                } => {
                    data_same.extend(data.iter().copied());
                    alike.extend(read.iter().cloned());
                    set_aside.extend(aside.iter().map(|s| s.to_string()));
                }
                Verdict::Differs {
                    data,
                    unpaired: gone,
                } => {
                    let ran = addresses.get(name).map_or(&[][..], Vec::as_slice);
                    let crates = self.crates.as_ref();
                    functions.extend(self.base.source_names(name, ran, crates));
                    data_changed.extend(data.clone());
                    unpaired |= gone;
                }
                Verdict::Unknown(reason) => {
                    unknown.get_or_insert(reason.clone());
                }
            }
        }
        if !functions.is_empty() {
            return CodeComparison::Differs {
                functions: functions.into_iter().collect(),
                data: data_changed.into_iter().collect(),
                unpaired,
            };
        }
        if let Some(reason) = unknown {
            return CodeComparison::Unknown { reason };
        }
        CodeComparison::Same {
            functions: groups.len() + stubs,
            data: data_same.len(),
            alike: alike.into_iter().collect(),
            set_aside: set_aside.into_iter().collect(),
        }
    }

    /// Why a benchmark that executed `executed` may run other code natively than under
    /// valgrind: it asked the CPU for its features, and valgrind hides some that this CPU has, so
    /// a path chosen by them (an AVX-512 or SHA kernel) ran natively and not in the trace. A
    /// benchmark's `Same` is probed natively always; a command's program only when this says
    /// why (its probe follows every `exec`, with a breakpoint at every changed function).
    pub fn cpu_dependent(&self, executed: &BTreeSet<u64>) -> Option<String> {
        let hidden = features_valgrind_hides();
        if hidden.is_empty() {
            return None;
        }
        let at = self.base.executable.executed_cpuid(executed)?;
        let within = match self.base.executable.place(at).0 {
            Place::Functions(names) => names.first().map(|n| demangle(n)),
            _ => None,
        };
        Some(format!(
            "it reads the CPU's features (cpuid at {at:#x}{}), and valgrind hides some this CPU \
             has ({}): natively it may take a path its trace did not",
            within.map(|n| format!(" in {n}")).unwrap_or_default(),
            hidden.join(", ")
        ))
    }

    /// Every function of base's executable that is not the same as its partner in head (no
    /// partner, other bytes, relocations to other targets or to changed data, or undecidable):
    /// the complement of what [`Comparer::compare`] calls the same, over all functions, not only
    /// executed ones. An entry with several names (merged functions) is changed when all its
    /// names are; when only some are, what leads into it by those names is
    /// ([`Comparer::entries_into`]). `Err` when base's objects hold LTO bitcode. The native probe
    /// ([`crate::steps::reach::probe`]) sets a breakpoint at each.
    pub fn changed_entries(&mut self) -> Result<Vec<ChangedEntry>, String> {
        for side in [self.base, self.head] {
            if let Some(file) = &side.objects.bitcode {
                return Err(format!("LTO: {file} holds LLVM bitcode, not machine code"));
            }
        }
        let entries: Vec<(u64, Vec<String>)> = self
            .base
            .executable
            .entries()
            .into_iter()
            .map(|(address, names)| {
                let names = names.iter().map(|n| stable_name(n).to_string());
                (address, names.collect())
            })
            .collect();
        let mut changed = Vec::new();
        let mut mixed = HashMap::new();
        for (address, names) in &entries {
            let differing: Vec<&String> = names
                .iter()
                .filter(|name| !matches!(self.function(name), Verdict::Same { .. }))
                .collect();
            match differing.first() {
                None => {}
                Some(name) if differing.len() == names.len() => changed.push(ChangedEntry {
                    address: *address,
                    name: demangle(name),
                }),
                Some(_) => mixed.extend(differing.into_iter().map(|n| (n.clone(), *address))),
            }
        }
        changed.extend(self.entries_into(&mixed, &entries));
        changed.sort_by_key(|entry| entry.address);
        changed.dedup_by_key(|entry| entry.address);
        Ok(changed)
    }

    /// The entries that lead into a merged function by one of its names that differ (`mixed`:
    /// each such name and the merged function's entry) when its other names are the same.
    ///
    /// Why not the merged entry itself: base's merged body is entered by every name, and a
    /// benchmark that calls it by a name whose head partner is the same (two benchmarks' equal
    /// closures, one of which head changes) would be stopped for nothing. A direct call names
    /// the function in the caller's code, so the callers that name a differing name are watched
    /// instead; a name that data (a vtable, a table of function pointers) or a start-up array
    /// holds is entered without such a call, and the merged entry itself is watched.
    fn entries_into(
        &self,
        mixed: &HashMap<String, u64>,
        entries: &[(u64, Vec<String>)],
    ) -> Vec<ChangedEntry> {
        if mixed.is_empty() {
            return Vec::new();
        }
        let objects = &self.base.objects;
        let mut found = Vec::new();
        for (address, names) in entries {
            let calls = names
                .iter()
                .flat_map(|name| objects.definitions_of(name))
                .filter_map(|at| objects.section_of(*at))
                .flat_map(|section| functions_named_by(objects, section))
                .find(|name| mixed.contains_key(name));
            if let Some(name) = calls {
                found.push(ChangedEntry {
                    address: *address,
                    name: demangle(&name),
                });
            }
        }
        for (i, object) in objects.objects.iter().enumerate() {
            let data = object.sections.iter().enumerate();
            for (at, _) in data.filter(|(_, s)| !s.is_code() && !s.unwind) {
                for name in functions_named_by(objects, (i as u32, at as u32)) {
                    if let Some(address) = mixed.get(&name) {
                        found.push(ChangedEntry {
                            address: *address,
                            name: demangle(&name),
                        });
                    }
                }
            }
        }
        found
    }

    /// The names whose head partners decide, of the executed functions `groups` (each the
    /// names of one executed function).
    ///
    /// Why not every name: the compiler merges identical functions into one body with several
    /// names (two benchmarks' closures doing the same work in base), and head, where they are no
    /// longer identical, gives each its own. The body base executed is then the same as head's
    /// under one name and not under the other, and which one head runs depends on the name the
    /// caller calls it by. Callers call by name: a merged function's names that decide are those
    /// that base's executed code, the data it reaches and the start-up arrays name (the callers
    /// are compared themselves, so head's call the same names). A merged function none of them
    /// names (entered from outside: a shared library, the C start-up) is decided by all its
    /// names.
    fn entered_names<'n>(
        &self,
        groups: &'n [BTreeSet<String>],
        verdicts: &HashMap<String, Verdict>,
    ) -> Vec<&'n String> {
        let all_same = |group: &BTreeSet<String>| {
            group
                .iter()
                .all(|n| matches!(verdicts[n], Verdict::Same { .. }))
        };
        if groups.iter().all(|g| g.len() == 1 || all_same(g)) {
            return groups.iter().flatten().collect();
        }
        let named = self.names_referred_to(groups, verdicts);
        groups
            .iter()
            .flat_map(|group| {
                let called: Vec<&String> = group.iter().filter(|n| named.contains(*n)).collect();
                if called.is_empty() {
                    group.iter().collect()
                } else {
                    called
                }
            })
            .collect()
    }

    /// The function names that base's executed functions, the data they reach and the objects'
    /// start-up arrays refer to.
    fn names_referred_to(
        &self,
        groups: &[BTreeSet<String>],
        verdicts: &HashMap<String, Verdict>,
    ) -> HashSet<String> {
        let objects = &self.base.objects;
        let code = groups
            .iter()
            .flatten()
            .flat_map(|name| objects.definitions_of(name))
            .filter_map(|at| objects.section_of(*at));
        let data = verdicts.values().flat_map(|verdict| match verdict {
            Verdict::Same { data, .. } => data.iter().copied().collect::<Vec<_>>(),
            _ => Vec::new(),
        });
        let startup = objects.objects.iter().enumerate().flat_map(|(i, object)| {
            object
                .sections
                .iter()
                .enumerate()
                .filter(|(_, section)| section.startup)
                .map(move |(at, _)| (i as u32, at as u32))
        });
        code.chain(data)
            .chain(startup)
            .flat_map(|section| functions_named_by(objects, section))
            .collect()
    }

    /// The functions `executed` is in, each as the set of its raw names (without ThinLTO's
    /// suffix), the executed addresses of each name, and how many PLT stubs; or why an address
    /// is in none.
    fn executed_functions(&self, executed: &BTreeSet<u64>) -> Result<Executed, String> {
        let mut found = Executed::default();
        let mut groups = BTreeSet::new();
        let mut stubs = BTreeSet::new();
        let mut same_until = 0;
        let mut current: Vec<String> = Vec::new();
        for &address in executed {
            if address >= same_until {
                let (place, until) = self.base.executable.place(address);
                same_until = until;
                current.clear();
                match place {
                    Place::Functions(names) => {
                        let names: BTreeSet<String> =
                            names.iter().map(|n| stable_name(n).to_string()).collect();
                        current.extend(names.iter().cloned());
                        groups.insert(names);
                    }
                    Place::Stub(import) => {
                        stubs.insert(import);
                    }
                    Place::Unknown(reason) => return Err(reason),
                }
            }
            for name in &current {
                found
                    .addresses
                    .entry(name.clone())
                    .or_default()
                    .push(address);
            }
        }
        found.groups = groups.into_iter().collect();
        found.stubs = stubs.len();
        Ok(found)
    }

    /// The verdict of the executed function `name` (raw), compared once per Comparer.
    fn function(&mut self, name: &str) -> Verdict {
        if let Some(known) = self.verdicts.get(name) {
            return known.clone();
        }
        let verdict = self.compare_function(name);
        self.verdicts.insert(name.to_string(), verdict.clone());
        verdict
    }

    fn compare_function(&mut self, name: &str) -> Verdict {
        let (base, head) = (&self.base.objects, &self.head.objects);
        let (in_base, in_head) = match lto_stem(name) {
            // A copy renamed by a fat-LTO link whose name head does not have: every copy of its
            // name on each side, paired in the order the link met them, each compared.
            Some(stem) if head.definitions_of(name).is_empty() => (
                placed(base, &base.copies_of(stem)),
                placed(head, &head.copies_of(stem)),
            ),
            _ => {
                let renamed = identity::renamed_between(base, head, &self.paths, name);
                let in_head = renamed.as_deref().unwrap_or(name);
                (
                    placed(base, base.definitions_of(name)),
                    placed(head, head.definitions_of(in_head)),
                )
            }
        };
        if in_base.is_empty() {
            if is_toolchain_function(name) {
                return Verdict::Same {
                    data: BTreeSet::new(),
                    alike: BTreeSet::new(),
                    set_aside: BTreeSet::new(),
                };
            }
            return Verdict::Unknown(format!(
                "{} is in none of the objects the executable was linked from",
                demangle(name)
            ));
        }
        if in_base.len() != in_head.len() {
            return Verdict::Differs {
                data: None,
                unpaired: in_head.is_empty(),
            };
        }
        let mut walk = Walk::new(base, head, &self.proven, demangle(name), &self.paths);
        for ((b, vb, zb), (h, vh, zh)) in in_base.into_iter().zip(in_head) {
            if (vb, zb) != (vh, zh) {
                return Verdict::Differs {
                    data: None,
                    unpaired: false,
                };
            }
            if let Err(mismatch) = walk.sections(b, h, None) {
                return Verdict::Differs {
                    data: mismatch.data,
                    unpaired: false,
                };
            }
        }
        let Walk {
            visited,
            data,
            alike,
            set_aside,
            ..
        } = walk;
        self.proven.extend(visited);
        Verdict::Same {
            data,
            alike,
            set_aside,
        }
    }
}

/// Each definition of `symbols`: its section, and its offset and size there.
fn placed(objects: &Objects, symbols: &[objects::SymRef]) -> Vec<(SecRef, u64, u64)> {
    symbols
        .iter()
        .filter_map(|at| {
            let symbol = objects.symbol(*at)?;
            Some((objects.section_of(*at)?, symbol.value, symbol.size))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use object::{Object, ObjectSymbol};

    use super::*;

    /// The executed address of `main` in this test executable.
    fn main_address() -> u64 {
        let data = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        let file = object::File::parse(&*data).unwrap();
        file.symbols()
            .find(|s| s.name() == Ok("main"))
            .expect("the test executable has a symbol table")
            .address()
    }

    fn open_with(inputs: &[(&str, &[u8])]) -> (tempfile::TempDir, LinkedCode) {
        let dir = tempfile::tempdir().unwrap();
        let paths: Vec<PathBuf> = inputs
            .iter()
            .map(|(name, bytes)| {
                let path = dir.path().join(name);
                std::fs::write(&path, bytes).unwrap();
                path
            })
            .collect();
        let code = LinkedCode::open(&std::env::current_exe().unwrap(), &paths).unwrap();
        (dir, code)
    }

    #[test]
    fn an_unreadable_input_is_an_error_naming_it() {
        let missing = PathBuf::from("/nonexistent/perfdiff/libgone.rlib");
        let Err(error) = LinkedCode::open(&std::env::current_exe().unwrap(), &[missing]) else {
            panic!("opened");
        };
        assert!(
            error
                .to_string()
                .starts_with("cannot read /nonexistent/perfdiff/libgone.rlib: "),
            "{error}"
        );
    }

    #[test]
    fn a_function_no_input_defines_is_unknown_and_a_linker_script_is_skipped() {
        let (_dir, code) = open_with(&[("libc.so", b"INPUT(-lc_real)\n")]);
        let executed = BTreeSet::from([main_address()]);
        assert_eq!(
            Comparer::new(&code, &code).compare(&executed),
            CodeComparison::Unknown {
                reason: "main is in none of the objects the executable was linked from".into()
            }
        );
    }

    #[test]
    fn bitcode_among_the_inputs_is_unknown() {
        let (_dir, code) = open_with(&[("lto.o", b"BC\xC0\xDE\x35\x14\x00\x00")]);
        let compared = Comparer::new(&code, &code).compare(&BTreeSet::from([main_address()]));
        assert!(
            matches!(&compared, CodeComparison::Unknown { reason }
                if reason.starts_with("LTO: ") && reason.contains("lto.o")),
            "{compared:?}"
        );
    }

    /// One side built by `rustc -O` in `dir`: `strs.o` defines the string `text` after a string
    /// `before` in `.rodata.str1.1`, under the global hidden name `symbol` (as ThinLTO promotes a
    /// constant several codegen units read), and the executable's `reads` reads it from its own
    /// object. Returns the code and the executed address of `reads`.
    #[cfg(target_arch = "x86_64")]
    fn promoted_string_side(
        dir: &Path,
        symbol: &str,
        before: &str,
        text: &str,
    ) -> (LinkedCode, u64) {
        let rustc = |args: &[&str]| {
            let status = std::process::Command::new("rustc")
                .current_dir(dir)
                .args(["-O", "--edition", "2021", "-C", "codegen-units=1"])
                .args(args)
                .status()
                .unwrap();
            assert!(status.success(), "rustc {args:?}");
        };
        std::fs::create_dir_all(dir).unwrap();
        let strs = format!(
            "std::arch::global_asm!(\".section .rodata.str1.1,\\\"aMS\\\",@progbits,1\", \
             \".asciz \\\"{before}\\\"\", \".globl {symbol}\", \".hidden {symbol}\", \
             \".type {symbol},@object\", \".size {symbol},2\", \"{symbol}:\", \
             \".asciz \\\"{text}\\\"\", \".text\");\n"
        );
        std::fs::write(dir.join("strs.rs"), strs).unwrap();
        let main = format!(
            "unsafe extern \"C\" {{ #[link_name = \"{symbol}\"] static TEXT: [u8; 2]; }}\n\
             #[inline(never)] #[unsafe(no_mangle)] pub extern \"C\" fn reads() -> u8 {{ \
             unsafe {{ core::ptr::read_volatile(&raw const TEXT[0]) }} }}\n\
             fn main() {{ std::process::exit(reads() as i32) }}\n"
        );
        std::fs::write(dir.join("main.rs"), main).unwrap();
        rustc(&["--crate-type=lib", "--emit=obj", "-o", "strs.o", "strs.rs"]);
        rustc(&["--emit=obj,link", "-C", "link-arg=strs.o", "main.rs"]);
        let executable = dir.join("main");
        let data = std::fs::read(&executable).unwrap();
        let file = object::File::parse(&*data).unwrap();
        let reads = file
            .symbols()
            .find(|s| s.name() == Ok("reads"))
            .unwrap()
            .address();
        let inputs = [dir.join("main.o"), dir.join("strs.o")];
        (LinkedCode::open(&executable, &inputs).unwrap(), reads)
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn a_string_another_object_defines_is_its_entry_wherever_its_unit_puts_it() {
        let dir = tempfile::tempdir().unwrap();
        let side = |name: &str, symbol: &str, before: &str, text: &str| {
            promoted_string_side(&dir.path().join(name), symbol, before, text)
        };
        // useg-ascii's words::main: the same string (there `"\xc0"`, a `format!` template), its
        // unit's other strings of another length.
        let (base, executed) = side("base", "anon.aa.24.llvm.1", "criterion.rs", "x");
        let (head, _) = side("head", "anon.bb.33.llvm.2", "bench.rs", "x");
        let (other, _) = side("other", "anon.bb.33.llvm.2", "bench.rs", "y");
        let executed = BTreeSet::from([executed]);
        assert!(
            matches!(
                Comparer::new(&base, &head).compare(&executed),
                CodeComparison::Same { .. }
            ),
            "{:?}",
            Comparer::new(&base, &head).compare(&executed)
        );
        assert!(
            matches!(
                Comparer::new(&base, &other).compare(&executed),
                CodeComparison::Differs { ref data, .. } if data == &["data of reads".to_string()]
            ),
            "{:?}",
            Comparer::new(&base, &other).compare(&executed)
        );
    }
}
