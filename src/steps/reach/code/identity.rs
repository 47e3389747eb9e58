//! Whether a section of base's objects and one of head's hold the same thing: the same bytes,
//! size, alignment and flags, and relocations at the same offsets, of the same types and addends,
//! to targets that are the same by identity. A function target is the same by its raw name (its
//! content is compared only where it is executed, as a function of its own); a data target (a
//! static, an anonymous constant, a vtable, a string, `include_bytes!` data) by its content,
//! recursively; a reference into merged constants by the one entry it refers to ([`Entry`]).
//!
//! Why a bisimulation: data refers to data in cycles (a vtable to a function, a static to itself
//! through a pointer); a pair met again while it is being compared is assumed the same, and the
//! pairs of one comparison are proven the same only when all of it came out the same. A pair found
//! different is different whatever was assumed, since assumptions only ever say "the same".

use std::collections::{BTreeSet, HashSet};

use object::SymbolKind;

use super::assert_failure;
use super::libtest_table::{self, Descriptor};
use super::objects::{Objects, Place, Relocation, SecRef, Target, lto_stem, stable_name};
use crate::steps::build::BuildOutDir;
use crate::steps::reach::versions::VersionChange;

/// `R_X86_64_64` and `R_AARCH64_ABS64`: an absolute 64-bit address.
const ABSOLUTE_64: [u32; 2] = [1, 257];

/// A pair of sections still to compare, with the name of what they are.
type Pending = (SecRef, SecRef, Option<String>);

/// Why two sections differ: `None` when it is the compared function's own code, else the data
/// object (its name, or "data of <function>").
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Mismatch {
    pub data: Option<String>,
}

/// What a relocation points to, resolved so that base's and head's can be compared.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Resolved {
    /// A function, by raw name without ThinLTO's suffix; `section` is the very definition
    /// referred to, when one is known; `by_content` when its content counts too: several
    /// definitions share that name (copies per codegen unit), or the name carries the counter of
    /// a fat-LTO link ([`lto_stem`]), which says only that it is one of several copies.
    Function {
        name: String,
        section: Option<SecRef>,
        by_content: bool,
    },
    /// Data by content: its name (`None` for anonymous data), and each definition with the
    /// symbol's offset and size in its section.
    Data {
        name: Option<String>,
        defs: Vec<(SecRef, u64, u64)>,
    },
    /// An anonymous section (a section symbol): its content.
    Section(SecRef),
    /// A name no input defines (a shared library's import, a linker-defined symbol).
    Import(String),
    Absolute(String, u64),
    None,
    /// A symbol this module cannot place.
    Unplaceable,
}

/// One comparison of an executed function's definitions on both sides: what it assumed and
/// which of base's data sections it reached.
pub(super) struct Walk<'a> {
    base: &'a Objects,
    head: &'a Objects,
    proven: &'a HashSet<(SecRef, SecRef)>,
    /// Every pair compared or being compared: assumed the same while the walk goes on.
    pub visited: HashSet<(SecRef, SecRef)>,
    /// Base's data sections reached.
    pub data: BTreeSet<SecRef>,
    /// The packages whose build-script output directory was read alike in what was compared
    /// ([`CheckoutPaths::read_alike`]).
    pub alike: BTreeSet<String>,
    /// Differences set aside as not the benchmark's ([`libtest_table::SET_ASIDE`]).
    pub set_aside: BTreeSet<&'static str>,
    /// The demangled name of the function compared, for the names of anonymous data.
    owner: String,
    /// The two checkouts' paths, which bytes may differ by ([`CheckoutPaths`]).
    paths: &'a CheckoutPaths,
}

/// The paths of the two checkouts, as code may hold them (`env!("CARGO_MANIFEST_DIR")` of a
/// crate that reads its fixtures): bytes that differ only where base holds a path of base's
/// checkout and head the same path of head's are the same. Only pairs of one length count:
/// then the code around them, and every address after them, is the same too; a path of
/// another length changes the size of what holds it, which stays a difference.
#[derive(Debug, Clone, Default)]
pub struct CheckoutPaths {
    pairs: Vec<(Vec<u8>, Vec<u8>)>,
    /// Build-script output directories read alike ([`CheckoutPaths::with_out_dirs`]).
    out_dirs: Vec<OutDirPair>,
    /// The workspace's packages whose version changed: what explains data that holds the
    /// version (`env!("CARGO_PKG_VERSION")`), which a version bump changes and nothing else.
    versions: Vec<VersionChange>,
}

impl CheckoutPaths {
    /// The paths `base` and `head`, as given and resolved (pairs of unequal length left out).
    pub fn new(base: &std::path::Path, head: &std::path::Path) -> CheckoutPaths {
        let resolved = |p: &std::path::Path| std::fs::canonicalize(p).unwrap_or(p.to_path_buf());
        let mut pairs: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
        for (b, h) in [
            (base.to_path_buf(), head.to_path_buf()),
            (resolved(base), resolved(head)),
        ] {
            let pair = (
                b.as_os_str().as_encoded_bytes().to_vec(),
                h.as_os_str().as_encoded_bytes().to_vec(),
            );
            if pair.0.len() == pair.1.len() && pair.0 != pair.1 && !pairs.contains(&pair) {
                pairs.push(pair);
            }
        }
        CheckoutPaths {
            pairs,
            out_dirs: Vec::new(),
            versions: Vec::new(),
        }
    }

    /// The same, also reading a package's build-script output directory in base (`base`: each
    /// build script's package and `OUT_DIR`, as cargo reported them) and the same package's in
    /// head alike ([`out_dir_pairs`]).
    pub fn with_out_dirs(mut self, base: &[BuildOutDir], head: &[BuildOutDir]) -> CheckoutPaths {
        self.out_dirs = out_dir_pairs(base, head);
        self
    }

    /// The same, also naming `versions` in the data that holds them ([`CheckoutPaths::versioned`]).
    pub fn with_versions(mut self, versions: &[VersionChange]) -> CheckoutPaths {
        self.versions = versions.to_vec();
        self
    }

    /// The name of changed data `label` (or "data of" the function), with the version it holds
    /// when base's bytes `b` hold a package's old version and head's `h` its new one: the
    /// benchmark reads the version, which is why it is measured.
    fn versioned(&self, label: Option<String>, b: &[u8], h: &[u8]) -> Option<String> {
        let Some(change) = self.version_between(&[b], &[h]) else {
            return label;
        };
        Some(format!(
            "{} (it holds the version of `{}`, {} → {})",
            label.as_deref().unwrap_or("data"),
            change.package,
            change.base,
            change.head
        ))
    }

    /// The package whose old version one of base's byte strings `base` holds and whose new
    /// version one of head's `head` holds.
    fn version_between(&self, base: &[&[u8]], head: &[&[u8]]) -> Option<&VersionChange> {
        let holds = |side: &[&[u8]], text: &str| {
            side.iter()
                .any(|bytes| memchr::memmem::find(bytes, text.as_bytes()).is_some())
        };
        self.versions
            .iter()
            .find(|c| holds(base, &c.base) && holds(head, &c.head))
    }

    /// Head's name for base's symbol `name` when a version bump renamed it: `name` holds a
    /// changed package's old version spelled with underscores (`0_17_14`, not next to another
    /// digit), and head's name holds the new one in its place. ring's build script prefixes
    /// every C and assembly symbol with `ring_core_0_17_14_` from its `links` key, which must
    /// equal the version, so that two versions of ring can be linked into one program; across a
    /// version bump every one of them was unpaired, and so was every Rust function that calls
    /// one. The callers decide whether such a rename is one ([`Walk::same_identity`]).
    pub(super) fn renamed(&self, name: &str) -> Option<String> {
        self.versions.iter().find_map(|change| {
            let (old, new) = (underscored(&change.base), underscored(&change.head));
            let at = delimited(name, &old)?;
            let mut renamed = String::with_capacity(name.len() + new.len());
            renamed.push_str(&name[..at]);
            renamed.push_str(&new);
            renamed.push_str(&name[at + old.len()..]);
            Some(renamed)
        })
    }

    /// Whether base's bytes `b` and head's `h` are the same once head's checkout paths and
    /// build-script output directories in `h` are read as base's.
    pub fn same(&self, b: &[u8], h: &[u8]) -> bool {
        self.read_alike(b, h).is_some()
    }

    /// [`CheckoutPaths::same`], saying how: `None` when the bytes differ, else the packages whose
    /// build-script output directory they hold (base's in `b`, head's in `h`), which were read
    /// alike (none: the bytes are equal, or differ by the checkouts' paths alone).
    pub fn read_alike(&self, b: &[u8], h: &[u8]) -> Option<BTreeSet<&str>> {
        let mut packages = BTreeSet::new();
        if b == h {
            return Some(packages);
        }
        if b.len() != h.len() {
            return None;
        }
        let mut read_as_base = h.to_vec();
        let mut replaced = false;
        let dirs = self
            .out_dirs
            .iter()
            .map(|p| (&p.base, &p.head, Some(&p.package)));
        let checkouts = self.pairs.iter().map(|(base, head)| (base, head, None));
        for (base, head, package) in checkouts.chain(dirs) {
            for at in memchr::memmem::find_iter(h, head) {
                read_as_base[at..at + head.len()].copy_from_slice(base);
                replaced = true;
                packages.extend(package.map(String::as_str));
            }
        }
        (replaced && read_as_base == b).then_some(packages)
    }
}

/// `version` as a symbol may spell it: its dots and hyphens as underscores.
fn underscored(version: &str) -> String {
    version.replace(['.', '-', '+'], "_")
}

/// Where `text` first holds `word` with no ASCII digit just before or after it.
fn delimited(text: &str, word: &str) -> Option<usize> {
    let digit = |at: Option<&u8>| at.is_some_and(u8::is_ascii_digit);
    let bytes = text.as_bytes();
    text.match_indices(word).map(|(at, _)| at).find(|&at| {
        let before = at.checked_sub(1).and_then(|i| bytes.get(i));
        !digit(before) && !digit(bytes.get(at + word.len()))
    })
}

/// One package's build-script output directory on both sides, as bytes.
#[derive(Debug, Clone)]
struct OutDirPair {
    package: String,
    base: Vec<u8>,
    head: Vec<u8>,
}

/// The packages whose build-script output directory is read alike: those with exactly one
/// directory on each side (a name with two, two versions of one crate, is left out: which is
/// whose cannot be told), of one length, differing only by cargo's hash of the unit
/// (`…/build/<package>-<hash>/out`, the one thing a version bump renames). Any other path,
/// another package's directory, or one of another length, stays a difference.
fn out_dir_pairs(base: &[BuildOutDir], head: &[BuildOutDir]) -> Vec<OutDirPair> {
    let only = |side: &[BuildOutDir], package: &str| {
        let mut dirs: Vec<&std::path::Path> = side
            .iter()
            .filter(|d| d.package == package)
            .map(|d| d.dir.as_path())
            .collect();
        dirs.sort();
        dirs.dedup();
        match dirs.as_slice() {
            [one] => Some(one.as_os_str().as_encoded_bytes().to_vec()),
            _ => None,
        }
    };
    let mut pairs: Vec<OutDirPair> = Vec::new();
    for found in base {
        if pairs.iter().any(|p| p.package == found.package) {
            continue;
        }
        let (Some(b), Some(h)) = (only(base, &found.package), only(head, &found.package)) else {
            continue;
        };
        if b.len() == h.len() && b != h && only_the_hash_differs(&b, &h, &found.package) {
            pairs.push(OutDirPair {
                package: found.package.clone(),
                base: b,
                head: h,
            });
        }
    }
    pairs
}

/// Whether `b` and `h` are both `<build>/<package>-<hash>/out` of one `<build>` directory (named
/// `build`), with hashes of hexadecimal digits.
fn only_the_hash_differs(b: &[u8], h: &[u8], package: &str) -> bool {
    matches!(
        (build_dir_of(b, package), build_dir_of(h, package)),
        (Some(in_b), Some(in_h)) if in_b == in_h
    )
}

/// The `<build>` directory of `path` when it is `<build>/<package>-<hash>/out`, `<build>` named
/// `build` and `<hash>` hexadecimal digits.
fn build_dir_of<'p>(path: &'p [u8], package: &str) -> Option<&'p str> {
    let text = std::str::from_utf8(path).ok()?;
    let unit = text.strip_suffix("/out")?;
    let (build, name) = unit.rsplit_once('/')?;
    let hash = name.strip_prefix(package)?.strip_prefix('-')?;
    let hex = !hash.is_empty() && hash.bytes().all(|c| c.is_ascii_hexdigit());
    (hex && build.ends_with("/build")).then_some(build)
}

impl<'a> Walk<'a> {
    pub fn new(
        base: &'a Objects,
        head: &'a Objects,
        proven: &'a HashSet<(SecRef, SecRef)>,
        owner: String,
        paths: &'a CheckoutPaths,
    ) -> Self {
        Walk {
            base,
            head,
            proven,
            visited: HashSet::new(),
            data: BTreeSet::new(),
            alike: BTreeSet::new(),
            set_aside: BTreeSet::new(),
            owner,
            paths,
        }
    }

    /// Whether base's section `b` and head's `h` are the same; `label` names them when they are
    /// data (`None`: the function compared). A work list rather than recursion: a long chain of
    /// data (a static linked list) must not exhaust the stack.
    pub fn sections(&mut self, b: SecRef, h: SecRef, label: Option<&str>) -> Result<(), Mismatch> {
        let mut pending = vec![(b, h, label.map(str::to_string))];
        while let Some((b, h, label)) = pending.pop() {
            self.section_pair(b, h, label, &mut pending)?;
        }
        Ok(())
    }

    /// Compares one pair of sections, leaving the pairs their relocations reach in `pending`.
    fn section_pair(
        &mut self,
        b: SecRef,
        h: SecRef,
        label: Option<String>,
        pending: &mut Vec<Pending>,
    ) -> Result<(), Mismatch> {
        if self.proven.contains(&(b, h)) || !self.visited.insert((b, h)) {
            return Ok(());
        }
        let (sb, sh) = (self.base.section(b), self.head.section(h));
        if sb.unreadable || sh.unreadable {
            return Err(Mismatch {
                data: label.clone(),
            });
        }
        let (bytes_b, bytes_h) = (self.base.bytes(b), self.head.bytes(h));
        // Changed data is named with the version it holds, whatever in it differs (its bytes,
        // or a relocation: rustc merges a version string into the constants of the function
        // that reads it, with pointers beside it); changed code with the version the data it
        // points to holds ([`version_read`]: the string's length is in the code).
        let (base, head, paths) = (self.base, self.head, self.paths);
        let owner = label.is_none().then(|| self.owner.clone());
        let data_differs = || Mismatch {
            data: match (&label, &owner) {
                (Some(_), _) => paths.versioned(label.clone(), bytes_b, bytes_h),
                (None, Some(owner)) => version_read(base, head, paths, owner, (b, h)),
                (None, None) => None,
            },
        };
        let same_shape = (sb.size, sb.align, sb.flags, sb.relocations.len())
            == (sh.size, sh.align, sh.flags, sh.relocations.len());
        if !same_shape {
            return Err(data_differs());
        }
        if !self.bytes_alike(b, h) {
            return Err(data_differs());
        }
        for (rb, rh) in sb.relocations.iter().zip(&sh.relocations) {
            if (rb.offset, rb.r_type) != (rh.offset, rh.r_type) {
                return Err(data_differs());
            }
            let entries = (entry(self.base, b.0, rb), entry(self.head, h.0, rh));
            if let (Some(eb), Some(eh)) = &entries
                && let Some(alike) = eb.alike(eh, self.paths)
            {
                self.data.insert(eb.section);
                self.alike.extend(alike.into_iter().map(str::to_string));
                continue;
            }
            match entries {
                (None, None) => {}
                (Some(eb), Some(eh)) => {
                    let data = self.anonymous(&label);
                    return Err(Mismatch {
                        data: self.paths.versioned(data, eb.bytes, eh.bytes),
                    });
                }
                _ => {
                    return Err(Mismatch {
                        data: self.anonymous(&label),
                    });
                }
            }
            if rb.addend != rh.addend {
                return Err(data_differs());
            }
            let tb = resolve(self.base, b.0, rb.target);
            let th = resolve(self.head, h.0, rh.target);
            self.targets(tb, th, &label, pending)?;
        }
        Ok(())
    }

    /// Whether the bytes of base's section `b` and head's `h` (of one shape) are the same, up to
    /// what is read alike or set aside: a panic location's line and column (the same file: its
    /// pointer, compared with the relocations, and its length), the checkouts' paths and
    /// build-script output directories ([`CheckoutPaths::read_alike`]), the source position
    /// of a libtest descriptor's item ([`libtest_table`]), and the line numbers a C `assert`
    /// passes to its failure call ([`assert_failure`]).
    fn bytes_alike(&mut self, b: SecRef, h: SecRef) -> bool {
        let (bytes_b, bytes_h) = (self.base.bytes(b), self.head.bytes(h));
        if is_location(self.base, b) && is_location(self.head, h) {
            return bytes_b[..16] == bytes_h[..16];
        }
        if let Some(alike) = self.paths.read_alike(bytes_b, bytes_h) {
            self.alike.extend(alike.into_iter().map(str::to_string));
            return true;
        }
        if assert_arguments_differ((self.base, b), (self.head, h)) {
            self.set_aside.insert(assert_failure::SET_ASIDE);
            return true;
        }
        let descriptors = (descriptor(self.base, b), descriptor(self.head, h));
        let moved = matches!(&descriptors, (Some(db), Some(dh))
            if libtest_table::only_positions_differ(db, dh));
        if moved {
            self.set_aside.insert(libtest_table::SET_ASIDE);
        }
        moved
    }

    /// Whether two relocations' targets are the same by identity, as far as can be told
    /// without their contents; the pairs of contents still to compare go to `pending`.
    fn targets(
        &mut self,
        b: Resolved,
        h: Resolved,
        label: &Option<String>,
        pending: &mut Vec<Pending>,
    ) -> Result<(), Mismatch> {
        let differs = || Mismatch {
            data: label.clone(),
        };
        match (b, h) {
            (
                Resolved::Function {
                    name: nb,
                    section: sb,
                    by_content: cb,
                },
                Resolved::Function {
                    name: nh,
                    section: sh,
                    by_content: ch,
                },
            ) if self.same_identity(symbol_identity(&nb), symbol_identity(&nh)) => {
                match (cb || ch, sb, sh) {
                    (false, ..) => Ok(()),
                    (true, Some(sb), Some(sh)) => {
                        pending.push((sb, sh, label.clone()));
                        Ok(())
                    }
                    _ => Err(differs()),
                }
            }
            (Resolved::Data { name: nb, defs: db }, Resolved::Data { name: nh, defs: dh })
                if self.same_data_name(&nb, &nh) && db.len() == dh.len() =>
            {
                let named = nb.as_deref().map(demangle);
                let label = named.or_else(|| self.anonymous(label));
                for ((sb, vb, zb), (sh, vh, zh)) in db.into_iter().zip(dh) {
                    if (vb, zb) != (vh, zh) {
                        let bytes_b = symbol_bytes(self.base.bytes(sb), vb, zb);
                        let bytes_h = symbol_bytes(self.head.bytes(sh), vh, zh);
                        return Err(Mismatch {
                            data: self.paths.versioned(label, bytes_b, bytes_h),
                        });
                    }
                    self.data.insert(sb);
                    pending.push((sb, sh, label.clone()));
                }
                Ok(())
            }
            (Resolved::Section(sb), Resolved::Section(sh)) => {
                self.data.insert(sb);
                pending.push((sb, sh, self.anonymous(label)));
                Ok(())
            }
            (b, h) if b == h && !matches!(b, Resolved::Unplaceable) => Ok(()),
            _ => Err(differs()),
        }
    }

    /// Whether base's symbol `b` and head's `h` name one thing: the same name, or a name a
    /// version bump renamed ([`CheckoutPaths::renamed`]) where neither side has the other's
    /// name (a program that links both versions keeps each name to its own).
    pub(super) fn same_identity(&self, b: &str, h: &str) -> bool {
        b == h || renamed_between(self.base, self.head, self.paths, b).as_deref() == Some(h)
    }

    /// [`Walk::same_identity`] for data names (`None`: anonymous, only its content).
    fn same_data_name(&self, b: &Option<String>, h: &Option<String>) -> bool {
        match (b, h) {
            (Some(b), Some(h)) => self.same_identity(b, h),
            _ => b == h,
        }
    }

    /// The name of anonymous data reached from `label` (or from the function compared).
    fn anonymous(&self, label: &Option<String>) -> Option<String> {
        Some(
            label
                .clone()
                .unwrap_or_else(|| format!("data of {}", self.owner)),
        )
    }
}

/// Head's name for base's symbol `name` when a version bump renamed it
/// ([`CheckoutPaths::renamed`]): only when head has no symbol of base's name and base none of
/// head's, so that a program that links both versions never pairs one with the other's.
pub(super) fn renamed_between(
    base: &Objects,
    head: &Objects,
    paths: &CheckoutPaths,
    name: &str,
) -> Option<String> {
    if !head.definitions_of(name).is_empty() {
        return None;
    }
    let renamed = paths.renamed(name)?;
    base.definitions_of(&renamed).is_empty().then_some(renamed)
}

/// When the code of function `owner` differs (base's section `b`, head's `h`, in `sections`):
/// its data, named with the version it holds, when the data its pointers reach holds a
/// package's old version in base and its new one in head ([`CheckoutPaths::with_versions`]). A
/// function that passes `env!("CARGO_PKG_VERSION")` on (to clap's `.version()`) holds the
/// string's length as an immediate, so a version of another length changes its code before its
/// data is compared; its data differs too, and reading the version is why it is measured.
/// `None` (the code alone) otherwise.
fn version_read(
    base: &Objects,
    head: &Objects,
    paths: &CheckoutPaths,
    owner: &str,
    (b, h): (SecRef, SecRef),
) -> Option<String> {
    if paths.versions.is_empty() {
        return None;
    }
    let change = paths.version_between(&reached_bytes(base, b), &reached_bytes(head, h))?;
    Some(format!(
        "data of {owner} (it holds the version of `{}`, {} → {})",
        change.package, change.base, change.head
    ))
}

/// The bytes of the data `section`'s relocations point to, one level: each entry of merged
/// constants, anonymous section or data symbol (functions left out).
fn reached_bytes(objects: &Objects, section: SecRef) -> Vec<&[u8]> {
    let mut reached = Vec::new();
    for relocation in &objects.section(section).relocations {
        if let Some(found) = entry(objects, section.0, relocation) {
            reached.push(found.bytes);
            continue;
        }
        match resolve(objects, section.0, relocation.target) {
            Resolved::Section(data) => reached.push(objects.bytes(data)),
            Resolved::Data { defs, .. } => reached.extend(
                defs.iter()
                    .map(|&(data, value, size)| symbol_bytes(objects.bytes(data), value, size)),
            ),
            _ => {}
        }
    }
    reached
}

/// The bytes of a data symbol at `value` of `size` in its section's `bytes` (what lies inside).
fn symbol_bytes(bytes: &[u8], value: u64, size: u64) -> &[u8] {
    let from = (value as usize).min(bytes.len());
    let to = (value.saturating_add(size) as usize).clamp(from, bytes.len());
    &bytes[from..to]
}

/// What a relocation into a section of merged constants (`.rodata.cst16`, `.rodata.str1.1`)
/// refers to: one entry, which the linker may move, merge with an equal one or keep apart from
/// its neighbours, so that it alone is the identity (not the section, whose other entries are
/// other constants of the codegen unit).
#[derive(Debug)]
struct Entry<'a> {
    /// Base's section, counted as data reached.
    section: SecRef,
    bytes: &'a [u8],
    /// Where in the entry the symbol is.
    within: usize,
    /// The addend left once the entry is found (a symbol's: the relocation's own).
    addend: i64,
}

impl Entry<'_> {
    /// Whether base's entry (`self`) and head's are the same constant, checkout paths and
    /// build-script output directories read alike: `None` when not, else the packages whose
    /// directory was read alike ([`CheckoutPaths::read_alike`]).
    fn alike<'p>(&self, head: &Self, paths: &'p CheckoutPaths) -> Option<BTreeSet<&'p str>> {
        if (self.within, self.addend) != (head.within, head.addend) {
            return None;
        }
        paths.read_alike(self.bytes, head.bytes)
    }
}

/// The entry of merged constants `relocation` (of object `object`) refers to: through a symbol
/// in that section, the entry at the symbol (as every linker finds it); through the section's
/// own symbol, only with an absolute 64-bit relocation, whose addend is the entry's offset.
/// An undefined symbol is its one global definition in another object: ThinLTO promotes a
/// string constant that several codegen units read to a global (`anon.<module>.<n>.llvm.<hash>`)
/// defined in one unit's `.rodata.str1.1`, where the unit's other strings decide its offset.
fn entry<'a>(objects: &'a Objects, object: u32, relocation: &Relocation) -> Option<Entry<'a>> {
    let absolute = ABSOLUTE_64.contains(&relocation.r_type);
    let (object, section, position, addend) = match relocation.target {
        Target::Section(section) if absolute => (object, section, relocation.addend, 0),
        Target::Symbol(at) => {
            let (object, symbol) = defining(objects, (object, at))?;
            let Place::Section(section) = symbol.place else {
                return None;
            };
            if symbol.kind != SymbolKind::Section {
                (
                    object,
                    section,
                    i64::try_from(symbol.value).ok()?,
                    relocation.addend,
                )
            } else if absolute {
                (object, section, relocation.addend, 0)
            } else {
                return None;
            }
        }
        _ => return None,
    };
    let section = (object, section);
    let bytes = objects.bytes(section);
    let position = u64::try_from(position).ok()?;
    let (start, end) = objects.section(section).merged_entry(bytes, position)?;
    Some(Entry {
        section,
        bytes: &bytes[start..end],
        within: position as usize - start,
        addend,
    })
}

/// The symbol `at` where it is defined: itself when its object defines it, else the one global
/// definition of its name among the other objects (`None` when there is not exactly one).
fn defining(objects: &Objects, at: (u32, u32)) -> Option<(u32, &super::objects::Symbol)> {
    let symbol = objects.symbol(at)?;
    if symbol.place != Place::Undefined {
        return Some((at.0, symbol));
    }
    let mut globals = objects.definitions_of(&symbol.name).iter().filter(|d| {
        objects
            .symbol(**d)
            .is_some_and(|s| !s.local && s.name == symbol.name)
    });
    let (Some(found), None) = (globals.next(), globals.next()) else {
        return None;
    };
    Some((found.0, objects.symbol(*found)?))
}

/// The target of a relocation of object `object`.
fn resolve(objects: &Objects, object: u32, target: Target) -> Resolved {
    let symbol_at = match target {
        Target::None => return Resolved::None,
        Target::Section(section) => return section_target(objects, (object, section)),
        Target::Symbol(at) => at,
    };
    let Some(symbol) = objects.symbol((object, symbol_at)) else {
        return Resolved::Unplaceable;
    };
    match symbol.place {
        Place::Section(section) if symbol.kind == SymbolKind::Section => {
            section_target(objects, (object, section))
        }
        Place::Section(section) => defined(objects, (object, symbol_at), (object, section)),
        Place::Absolute => Resolved::Absolute(symbol.name.to_string(), symbol.value),
        Place::Undefined => by_name(objects, &symbol.name),
        Place::Common => {
            Resolved::Import(format!("{} (common, {} bytes)", symbol.name, symbol.size))
        }
        Place::Other => Resolved::Unplaceable,
    }
}

/// A section symbol's target: the function it holds alone, or the data named at its start (a
/// static), else its content.
fn section_target(objects: &Objects, section: SecRef) -> Resolved {
    let object = &objects.objects[section.0 as usize];
    let at = section.1 as usize;
    if objects.section(section).is_code() {
        return match object.sole_function.get(at).copied().flatten() {
            Some(function) => defined(objects, (section.0, function), section),
            None => Resolved::Section(section),
        };
    }
    match object.name_of_section.get(at).copied().flatten() {
        Some(symbol) => defined(objects, (section.0, symbol), section),
        None => Resolved::Section(section),
    }
}

/// A symbol defined in `section` of its own object.
fn defined(objects: &Objects, symbol: (u32, u32), section: SecRef) -> Resolved {
    let Some(found) = objects.symbol(symbol) else {
        return Resolved::Unplaceable;
    };
    let code = objects.section(section).is_code() || found.kind == SymbolKind::Text;
    if code {
        let copies = objects.definitions_of(&found.name).len();
        return Resolved::Function {
            name: stable_name(&found.name).to_string(),
            section: Some(section),
            by_content: copies > 1 || lto_stem(&found.name).is_some(),
        };
    }
    Resolved::Data {
        name: data_name(&found.name),
        defs: vec![(section, found.value, found.size)],
    }
}

/// An undefined symbol, resolved by name among the other objects' global definitions.
fn by_name(objects: &Objects, name: &str) -> Resolved {
    let copies = objects.definitions_of(name);
    let defs: Vec<(u32, u32)> = copies
        .iter()
        .copied()
        .filter(|at| {
            objects
                .symbol(*at)
                .is_some_and(|s| !s.local && &*s.name == name)
        })
        .collect();
    if defs.is_empty() {
        return Resolved::Import(name.to_string());
    }
    let placed: Vec<(SecRef, u64, u64, bool)> = defs
        .iter()
        .filter_map(|at| {
            let symbol = objects.symbol(*at)?;
            let section = objects.section_of(*at)?;
            let code = objects.section(section).is_code() || symbol.kind == SymbolKind::Text;
            Some((section, symbol.value, symbol.size, code))
        })
        .collect();
    if placed.len() != defs.len() {
        // An absolute definition: compared by name and value.
        return match objects.symbol(defs[0]) {
            Some(symbol) if defs.len() == 1 => Resolved::Absolute(name.to_string(), symbol.value),
            _ => Resolved::Unplaceable,
        };
    }
    if placed.iter().any(|p| p.3) {
        // One of several copies of a name (without ThinLTO's suffix): by its content too.
        let section = match placed.as_slice() {
            [(section, ..)] => Some(*section),
            _ => None,
        };
        let copied = copies.len() > 1 || lto_stem(name).is_some();
        return Resolved::Function {
            name: stable_name(name).to_string(),
            section,
            by_content: section.is_some() && copied,
        };
    }
    Resolved::Data {
        name: data_name(name),
        defs: placed.into_iter().map(|(s, v, z, _)| (s, v, z)).collect(),
    }
}

/// A data symbol's name as its identity, without ThinLTO's suffix: none for anonymous
/// constants (the assembler's local labels `.L…`, numbered in the order constants were emitted;
/// `anon.…` when ThinLTO promotes one; rustc's `alloc_<hash>` of its content), which are only
/// their content.
fn data_name(name: &str) -> Option<String> {
    const ANONYMOUS: [&str; 3] = [".L", "anon.", "alloc_"];
    let named = !name.is_empty() && !ANONYMOUS.iter().any(|p| name.starts_with(p));
    named.then(|| symbol_identity(name).to_string())
}

/// What names one function (or data symbol) across a fat-LTO link and its rebuild: its raw name
/// without ThinLTO's suffix and without the IR linker's counter ([`lto_stem`]). A name with a
/// counter is one of several copies, so what it refers to is compared by content too.
fn symbol_identity(name: &str) -> &str {
    lto_stem(name).unwrap_or_else(|| stable_name(name))
}

/// The functions the relocations of `section` name, by raw name: how code and data refer to a
/// function, and so which of a merged function's names are the ones entered.
pub(super) fn functions_named_by(objects: &Objects, section: SecRef) -> Vec<String> {
    objects
        .section(section)
        .relocations
        .iter()
        .filter_map(|r| match resolve(objects, section.0, r.target) {
            Resolved::Function { name, .. } => Some(super::objects::stable_name(&name).to_string()),
            _ => None,
        })
        .collect()
}

/// A function's or static's name for a report: demangled, without its hash.
pub(super) fn demangle(name: &str) -> String {
    format!("{:#}", rustc_demangle::demangle(name))
}

/// Whether base's code section `b` and head's `h`, x86-64 both, differ only in the constants a
/// failed C `assert` passes to the C library ([`assert_failure`]): the relocations are compared
/// after, as any code's.
fn assert_arguments_differ((base, b): (&Objects, SecRef), (head, h): (&Objects, SecRef)) -> bool {
    let x86_64 = |objects: &Objects, at: SecRef| {
        objects.section(at).is_code() && objects.objects[at.0 as usize].x86_64
    };
    if !x86_64(base, b) || !x86_64(head, h) {
        return false;
    }
    let side = |objects, at: SecRef| assert_failure::Side {
        bytes: Objects::bytes(objects, at),
        relocated: objects
            .section(at)
            .relocations
            .iter()
            .map(|r| (r.offset, r.r_type))
            .collect(),
        import_at: move |offset| import_at(objects, at, offset),
    };
    assert_failure::only_assert_arguments_differ(&side(base, b), &side(head, h))
}

/// The type and name of the relocation at `offset` of `section` when it refers to a symbol no
/// input defines (an import of a shared library).
fn import_at(objects: &Objects, section: SecRef, offset: u64) -> Option<(u32, String)> {
    let found = objects
        .section(section)
        .relocations
        .iter()
        .find(|r| r.offset == offset)?;
    match resolve(objects, section.0, found.target) {
        Resolved::Import(name) => Some((found.r_type, name)),
        _ => None,
    }
}

/// Whether `section` holds a named symbol at its start (a static), which is compared whole.
fn is_named(objects: &Objects, section: SecRef) -> bool {
    let object = &objects.objects[section.0 as usize];
    object.name_of_section[section.1 as usize]
        .and_then(|at| object.symbols.get(at as usize))
        .is_some_and(|symbol| data_name(&symbol.name).is_some())
}

/// `section` as a candidate libtest descriptor ([`libtest_table`]): anonymous data (a named
/// static is compared whole), the strings its absolute pointers reach (each `&str`'s length in
/// the word after its pointer), and whether one reaches code.
fn descriptor(objects: &Objects, section: SecRef) -> Option<Descriptor<'_>> {
    let found = objects.section(section);
    if found.is_code() || is_named(objects, section) {
        return None;
    }
    let bytes = objects.bytes(section);
    let mut descriptor = Descriptor {
        bytes,
        ..Descriptor::default()
    };
    for relocation in &found.relocations {
        descriptor.relocated.push(relocation.offset);
        if !ABSOLUTE_64.contains(&relocation.r_type) {
            continue;
        }
        if let Resolved::Function { .. } = resolve(objects, section.0, relocation.target) {
            descriptor.reaches_code = true;
            continue;
        }
        let length = length_after(bytes, relocation.offset).filter(|n| (1..=4096).contains(n));
        let text = length.and_then(|n| string_at(objects, section.0, relocation, n as usize));
        descriptor.strings.extend(text);
    }
    Some(descriptor)
}

/// The `length` bytes an absolute pointer (`relocation` of object `object`) points to, as text:
/// in an entry of merged constants, within that entry.
fn string_at<'o>(
    objects: &'o Objects,
    object: u32,
    relocation: &Relocation,
    length: usize,
) -> Option<&'o str> {
    let bytes = match entry(objects, object, relocation) {
        Some(found) => {
            let start = usize::try_from(found.within as i64 + found.addend).ok()?;
            found.bytes.get(start..start.checked_add(length)?)?
        }
        None => {
            let (section, offset) = string_target(objects, object, relocation)?;
            let start = usize::try_from(offset).ok()?;
            objects
                .bytes(section)
                .get(start..start.checked_add(length)?)?
        }
    };
    std::str::from_utf8(bytes).ok()
}

/// Whether `section` is a `core::panic::Location`: anonymous (a static of that shape keeps its
/// name, and is compared whole), 24 bytes, one absolute 64-bit relocation at offset 0 to a
/// string whose length is the 64-bit word at offset 8 and that ends in `.rs`.
fn is_location(objects: &Objects, section: SecRef) -> bool {
    let found = objects.section(section);
    if is_named(objects, section) {
        return false;
    }
    let [relocation] = found.relocations.as_slice() else {
        return false;
    };
    if found.size != 24
        || found.is_code()
        || relocation.offset != 0
        || !ABSOLUTE_64.contains(&relocation.r_type)
    {
        return false;
    }
    let Some(length) = length_after(objects.bytes(section), 0) else {
        return false;
    };
    let length = length as usize;
    let Some((string, offset)) = string_target(objects, section.0, relocation) else {
        return false;
    };
    let text = objects.bytes(string);
    let start = usize::try_from(offset).ok();
    start
        .and_then(|start| text.get(start..start.checked_add(length)?))
        .is_some_and(|file| file.ends_with(b".rs"))
}

/// The little-endian word after a pointer at `offset` of `bytes`: the length of a `&str`
/// laid out there.
fn length_after(bytes: &[u8], offset: u64) -> Option<u64> {
    let at = usize::try_from(offset).ok()?.checked_add(8)?;
    let word = bytes.get(at..at.checked_add(8)?)?;
    Some(u64::from_le_bytes(word.try_into().ok()?))
}

/// The section and offset an absolute relocation points into.
fn string_target(objects: &Objects, object: u32, relocation: &Relocation) -> Option<(SecRef, i64)> {
    match relocation.target {
        Target::Section(section) => Some(((object, section), relocation.addend)),
        Target::Symbol(at) => {
            let symbol = objects.symbol((object, at))?;
            let section = objects.section_of((object, at))?;
            let base = if symbol.kind == SymbolKind::Section {
                0
            } else {
                symbol.value as i64
            };
            Some((section, base + relocation.addend))
        }
        Target::None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::{BuildOutDir, CheckoutPaths, VersionChange};
    use std::collections::BTreeSet;
    use std::path::Path;

    const BASE_LIB: &str = "/t/release/build/lib-0123456789abcdef/out";
    const HEAD_LIB: &str = "/t/release/build/lib-fedcba9876543210/out";

    fn out_dir(package: &str, dir: &str) -> BuildOutDir {
        BuildOutDir {
            package: package.into(),
            dir: dir.into(),
        }
    }

    /// Base's and head's bytes: `text` with `{}` replaced by each side's directory.
    fn sides(text: &str, base: &str, head: &str) -> (Vec<u8>, Vec<u8>) {
        let with = |dir: &str| text.replace("{}", dir).into_bytes();
        (with(base), with(head))
    }

    #[test]
    fn a_package_s_build_script_output_directory_renamed_by_its_version_is_read_alike() {
        let paths = CheckoutPaths::default()
            .with_out_dirs(&[out_dir("lib", BASE_LIB)], &[out_dir("lib", HEAD_LIB)]);
        let (b, h) = sides("\0{}/gen.rs\0{}/gen.rs", BASE_LIB, HEAD_LIB);
        assert_eq!(paths.read_alike(&b, &h), Some(BTreeSet::from(["lib"])));
        assert!(paths.same(&b, &h));
        // Base's directory on head's side, or head's on base's, is a difference.
        let (b, h) = sides("{}/gen.rs", HEAD_LIB, BASE_LIB);
        assert_eq!(paths.read_alike(&b, &h), None);
        let (b, h) = sides("{}/gen.rs", BASE_LIB, BASE_LIB);
        assert_eq!(paths.read_alike(&b, &h), Some(BTreeSet::new()));
        // What else differs still does.
        assert!(!paths.same(
            format!("{BASE_LIB}/gen.rs").as_bytes(),
            format!("{HEAD_LIB}/gem.rs").as_bytes()
        ));
    }

    #[test]
    fn another_package_s_directory_or_one_of_another_shape_is_never_read_alike() {
        const HEAD_OTHER: &str = "/t/release/build/oth-fedcba9876543210/out";
        let base = [
            out_dir("lib", BASE_LIB),
            out_dir("oth", "/t/release/build/oth-0123456789abcdef/out"),
        ];
        let head = [out_dir("lib", HEAD_LIB), out_dir("oth", HEAD_OTHER)];
        let paths = CheckoutPaths::default().with_out_dirs(&base, &head);
        // Base holds `lib`'s directory, head `oth`'s (of one length): not the same package.
        let (b, h) = sides("{}/gen.rs", BASE_LIB, HEAD_OTHER);
        assert!(!paths.same(&b, &h));
        let unpaired = |base: &[BuildOutDir], head: &[BuildOutDir], b: &str, h: &str| {
            let paths = CheckoutPaths::default().with_out_dirs(base, head);
            !paths.same(b.as_bytes(), h.as_bytes())
        };
        // Another package name on head's side.
        let head_other = [out_dir("lib2", HEAD_LIB)];
        assert!(unpaired(
            &[out_dir("lib", BASE_LIB)],
            &head_other,
            BASE_LIB,
            HEAD_LIB
        ));
        // Two directories of one package on a side: which is whose cannot be told.
        let two = [out_dir("lib", BASE_LIB), out_dir("lib", HEAD_LIB)];
        assert!(unpaired(
            &two,
            &[out_dir("lib", HEAD_LIB)],
            BASE_LIB,
            HEAD_LIB
        ));
        // Not in a `build` directory, or not cargo's unit hash.
        let (b, h) = ("/t/release/x/lib-0123/out", "/t/release/x/lib-3210/out");
        assert!(unpaired(&[out_dir("lib", b)], &[out_dir("lib", h)], b, h));
        let (b, h) = (
            "/t/release/build/lib-base/out",
            "/t/release/build/lib-head/out",
        );
        assert!(unpaired(&[out_dir("lib", b)], &[out_dir("lib", h)], b, h));
        // Other build directories.
        let h = "/u/release/build/lib-fedcba9876543210/out";
        assert!(unpaired(
            &[out_dir("lib", BASE_LIB)],
            &[out_dir("lib", h)],
            BASE_LIB,
            h
        ));
    }

    #[test]
    fn data_that_holds_a_changed_version_says_so() {
        let change = VersionChange {
            package: "lib".into(),
            base: "0.1.0".into(),
            head: "0.2.0".into(),
        };
        let paths = CheckoutPaths::default().with_versions(&[change]);
        assert_eq!(
            paths.versioned(Some("data of f".into()), b"v0.1.0\0", b"v0.2.0\0"),
            Some("data of f (it holds the version of `lib`, 0.1.0 → 0.2.0)".into())
        );
        assert_eq!(
            paths.versioned(Some("data of f".into()), b"x", b"y"),
            Some("data of f".into())
        );
    }

    #[test]
    fn bytes_that_differ_only_by_the_checkouts_paths_are_the_same() {
        let paths = CheckoutPaths::new(Path::new("/w/pkg/base"), Path::new("/w/pkg/head"));
        assert!(paths.same(b"/w/pkg/base/data/x.txt\0", b"/w/pkg/head/data/x.txt\0"));
        assert!(paths.same(b"same", b"same"));
        // Anything else that differs is a difference, and so is head holding base's path.
        assert!(!paths.same(b"/w/pkg/base/data/x.txt", b"/w/pkg/head/data/y.txt"));
        assert!(!paths.same(b"/w/pkg/head/data/x.txt", b"/w/pkg/base/data/x.txt"));
        assert!(!paths.same(b"abcd", b"abce"));
    }

    #[test]
    fn paths_of_another_length_are_never_read_alike() {
        let paths = CheckoutPaths::new(Path::new("/w/base"), Path::new("/w/head2"));
        assert!(!paths.same(b"/w/base/x\0\0", b"/w/head2/x\0"));
        assert!(!paths.same(b"/w/base/", b"/w/head2"));
        let none = CheckoutPaths::default();
        assert!(!none.same(b"/w/base", b"/w/head"));
    }
}
