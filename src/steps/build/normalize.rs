//! Build normalisation: the same source builds the same code whatever the checkout's path or the
//! packages' version numbers.
//!
//! # Why
//!
//! Rust mangles every symbol with a hash of its crate's `-C metadata`, and that hash orders items
//! in codegen units, decides the partition (and so cross-unit inlining) and the order of
//! functions in the object files: two builds whose `-C metadata` differ differ in code layout
//! everywhere, even for identical source, and a benchmark that moves by 20–60 % with layout can no
//! longer be compared (one binary is one sample of code layout). Cargo derives `-C metadata` from
//! the package id, which for a path dependency *outside* the workspace (a bench package of its own
//! with `path = ".."` dependencies, a `[patch]` to a local path) holds its absolute path, and for
//! every package its version; and it hashes the dependencies' hashes in. So the two checkouts of a
//! comparison (two paths) and a release comparison across a version bump built different code for
//! crates neither side changed, and selection found nothing the same.
//!
//! # How
//!
//! Cargo runs every compiler through `RUSTC_WRAPPER`, and cargo-perfdiff's own executable serves
//! as that wrapper ([`run_if_asked`], set on cargo's command by [`apply`]). For each compilation it
//! replaces cargo's `-C metadata` by a hash of what decides the crate's code and nothing else:
//! rustc's arguments with the checkout's root replaced by a placeholder, without the output and
//! library directories and cargo's file-name hash, and without its `--extern` dependencies
//! ([`normalise`]): a dependency added that a crate's code does not reach changes none of its
//! symbols, whether a dev-dependency of a bench target (unicode-segmentation's `proptest`) or a
//! library's new dependency for one module (html5ever's `memchr` for its serializer renamed
//! every function of html5ever, and, `memchr` being compiled with one more feature, of every
//! crate above `memchr`, criterion included). The package version is not an argument (cargo
//! passes it in `CARGO_PKG_VERSION`), so a version bump changes no hash, while code that reads the version
//! (`env!("CARGO_PKG_VERSION")`) still compiles the new one in. It also maps the checkout's root to
//! `.` in file names compiled into the code (`--remap-path-prefix`: `file!()`, panic locations
//! of crates outside the workspace, which cargo names by absolute path).
//!
//! What it does not change: the code itself (only symbol names' hashes, which any build's path
//! already sets arbitrarily) and `env!` values. That a path dependency outside the workspace is
//! one unit to cargo for both checkouts, compiled once, is [`super::one_path`]'s: cargo builds
//! through a link, which is then the root named here, and the compiler's working directory (the
//! link resolved) is remapped too. Unit tests below; end to end in
//! `tests/end_to_end/repository_shapes.rs`.
//!
//! The wrapper also keeps what links the code layouts ([`super::layout`]): on a build's cargo
//! command ([`add_to_executables`]) it adds the link arguments the layouts need to the
//! compilations of the bench targets (or programs) named there, and on the narrowed re-run of a
//! build that could not keep them ([`add_to_unit`]) to the one executable named there; after the
//! hash is taken, so that unit is the build's own (its fingerprint, file name, dependencies and
//! features) and cargo never sees them. Build scripts and proc macros never get them.
//!
//! It caps the lints of the compilations cargo does not cap (the workspace's own crates) at
//! `warn`, also after the hash ([`lint_cap`]): a crate that denies warnings builds at an old
//! revision on today's compiler, and no code changes.

use std::ffi::OsString;
use std::hash::Hasher;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use siphasher::sip::SipHasher13;

/// Names the normalisation in a build's key ([`super::freshness::BuildKey`]): a build made
/// without it, or by another version of it, is never taken for one made with it.
pub const SCHEME: &str = "normalised-metadata=5";

/// Set on cargo's command: the checkout's root; its presence makes the executable a wrapper.
const ROOT_VARIABLE: &str = "CARGO_PERFDIFF_RUSTC_WRAPPER_ROOT";
/// The user's own `RUSTC_WRAPPER` (sccache, say), which the wrapper runs in turn.
const INNER_VARIABLE: &str = "CARGO_PERFDIFF_INNER_RUSTC_WRAPPER";
/// Stands for the checkout's root in what is hashed.
const ROOT_PLACEHOLDER: &str = "<checkout>";
/// Set on the cargo command of a relink ([`super::layout`]): the file name of the executable
/// (`<crate name><extra-filename>`) whose compilation gets the arguments of [`UNIT_ARGS_VARIABLE`].
const UNIT_VARIABLE: &str = "CARGO_PERFDIFF_RELINK_UNIT";
/// Set on the cargo command of a build that keeps what links its layouts ([`super::layout`]):
/// the crate names of the executables (bench targets) whose compilations get the arguments of
/// [`UNIT_ARGS_VARIABLE`], one a line, or [`EVERY_EXECUTABLE`].
const EXECUTABLES_VARIABLE: &str = "CARGO_PERFDIFF_KEEP_LINKS";
/// Every executable the build compiles but build scripts (a program build's `bin` targets).
const EVERY_EXECUTABLE: &str = "*";
/// Those arguments, one a line.
const UNIT_ARGS_VARIABLE: &str = "CARGO_PERFDIFF_RELINK_ARGS";

/// The executable that serves as the wrapper: set once by the `cargo-perfdiff` binary
/// ([`enable`]). The library is also linked into test binaries, which cannot serve as a
/// compiler wrapper, so without it cargo runs as the user would run it.
static WRAPPER: OnceLock<PathBuf> = OnceLock::new();

/// Makes every build run through `executable` (the running `cargo-perfdiff`) as its compiler
/// wrapper.
pub fn enable(executable: PathBuf) {
    let _ = WRAPPER.set(executable);
}

/// Whether builds are normalised in this process.
pub fn enabled() -> bool {
    WRAPPER.get().is_some()
}

/// What a normalised build changed, for the build log (`--verbose`); `None` when builds are not
/// normalised. `one_path`: the link the build went through, if it did ([`super::one_path`]).
pub fn described(one_path: Option<&super::one_path::OnePath>) -> Option<String> {
    let mut text = "normalised build: each crate's `-C metadata` (its symbol hashes) is a hash of \
                    its compiler arguments without the checkout's path or the package version, \
                    and the checkout's path is `.` in file names compiled in; the workspace's \
                    lints are capped at `warn` (a lint changes no code); a profile's `strip = \
                    true` keeps the symbol table (`-C strip=debuginfo`: the same code, which \
                    selection reads by its symbols)"
        .to_string();
    if let Some(one) = one_path {
        text.push_str(&format!(
            "; cargo built it through `{}` (pointed at `{}`), one path for both checkouts, so \
             packages outside the workspace compile once and executables name their own checkout",
            one.link.display(),
            one.root.display()
        ));
    }
    enabled().then_some(text)
}

/// The key argument naming whether and how a build is normalised.
pub(super) fn key_arg() -> String {
    match enabled() {
        true => SCHEME.to_string(),
        false => "normalised-metadata=0".to_string(),
    }
}

/// Adds `args` to the compilation of the executable named `file_name` (`<crate>-<hash>`, as
/// cargo names it in `deps/`), and to no other, in the build `command` runs: the wrapper adds
/// them, so cargo does not see them and the unit keeps its fingerprint, file name and place in
/// the build's feature resolution. Without the wrapper, adds nothing.
pub(super) fn add_to_unit(command: &mut Command, file_name: &str, args: &[String]) {
    if enabled() {
        command
            .env(UNIT_VARIABLE, file_name)
            .env(UNIT_ARGS_VARIABLE, args.join("\n"));
    }
}

/// Adds `args` to the compilations of the executables of crate names `crates` (a bench target
/// `my-bench` is crate `my_bench`), or of every executable but build scripts when `crates` is
/// `None`, in the build `command` runs; as [`add_to_unit`], cargo does not see them. Without
/// the wrapper, adds nothing.
pub(super) fn add_to_executables(
    command: &mut Command,
    crates: Option<&[String]>,
    args: &[String],
) {
    if enabled() {
        let crates = crates.map_or_else(|| EVERY_EXECUTABLE.to_string(), |names| names.join("\n"));
        command
            .env(EXECUTABLES_VARIABLE, crates)
            .env(UNIT_ARGS_VARIABLE, args.join("\n"));
    }
}

/// Which compilations get the extra arguments: the executable of one file name ([`add_to_unit`]),
/// and those of some crate names or of every crate but build scripts ([`add_to_executables`]).
#[derive(Debug, Clone, Copy, Default)]
struct Chosen<'a> {
    /// `<crate name><extra-filename>`.
    unit: Option<&'a str>,
    /// Crate names one a line, or [`EVERY_EXECUTABLE`].
    crates: Option<&'a str>,
}

impl Chosen<'_> {
    /// Whether the compilation of an executable of crate `name` with file name `file_name` is
    /// chosen.
    fn contains(&self, name: &str, file_name: &str) -> bool {
        let by_crate = |crates: &str| match crates {
            EVERY_EXECUTABLE => true,
            crates => crates.lines().any(|c| c == name),
        };
        self.unit == Some(file_name)
            || (!name.starts_with("build_script_") && self.crates.is_some_and(by_crate))
    }
}

/// The arguments `extra` (one a line) when `args` compile an executable that `chosen` names
/// (`--crate-name` and `-C extra-filename` give its file name; `--test`, `--crate-type bin` or
/// no `--crate-type` at all, as cargo compiles a bench target without a harness, an
/// executable); nothing for any other compilation (a library, a proc macro, a build script
/// unless named by file).
fn unit_args(args: &[String], chosen: Chosen, extra: &str) -> Vec<String> {
    let mut crate_name = None;
    let mut extra_filename = "";
    let mut i = 0;
    while i < args.len() {
        let (option, value, width) = split_option(args, i);
        i += width;
        match (option, value) {
            ("-C", Some(v)) if v.starts_with("extra-filename=") => {
                extra_filename = &v["extra-filename=".len()..];
            }
            ("--crate-name", None) => crate_name = args.get(i).map(String::as_str),
            _ => {}
        }
    }
    let named =
        crate_name.is_some_and(|name| chosen.contains(name, &format!("{name}{extra_filename}")));
    match named && compiles_an_executable(args) {
        true => extra.lines().map(String::from).collect(),
        false => Vec::new(),
    }
}

/// Whether `args` compile an executable (`--test`, `--crate-type bin`, or no `--crate-type` at
/// all, as cargo compiles a bench target without a harness): a crate no other crate links
/// against.
fn compiles_an_executable(args: &[String]) -> bool {
    let mut test = false;
    let mut crate_types: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let (option, value, width) = split_option(args, i);
        i += width;
        match (option, value) {
            ("--test", None) => test = true,
            ("--crate-type", None) => crate_types.extend(args.get(i).map(String::as_str)),
            (option, None) => {
                crate_types.extend(option.strip_prefix("--crate-type="));
            }
            _ => {}
        }
    }
    test || crate_types.iter().all(|t| *t == "bin")
}

/// Runs cargo's compilations of the checkout at `root` through the wrapper, when enabled.
pub(super) fn apply(command: &mut Command, root: &Path) {
    let Some(wrapper) = WRAPPER.get() else {
        return;
    };
    let user_wrapper = ["RUSTC_WRAPPER", "CARGO_BUILD_RUSTC_WRAPPER"]
        .into_iter()
        .filter_map(std::env::var_os)
        .find(|value| !value.is_empty());
    if let Some(inner) = user_wrapper {
        command.env(INNER_VARIABLE, inner);
    }
    command
        .env("RUSTC_WRAPPER", wrapper)
        .env_remove("CARGO_BUILD_RUSTC_WRAPPER")
        .env(ROOT_VARIABLE, root);
}

/// Serves as the compiler wrapper when cargo started this process as one: runs the compiler with
/// normalised arguments and returns its exit code; `None` otherwise.
pub fn run_if_asked() -> Option<i32> {
    let root = std::env::var_os(ROOT_VARIABLE)?;
    let mut args = std::env::args_os().skip(1);
    let compiler = args.next()?;
    let args: Vec<OsString> = args.collect();
    let strings = as_strings(&args);
    let normalised = strings
        .as_deref()
        .and_then(|strings| normalise(strings, &roots(&root)));
    let mut args = match normalised {
        Some(normalised) => normalised.args.into_iter().map(OsString::from).collect(),
        None => args,
    };
    let unit = std::env::var(UNIT_VARIABLE).ok();
    let crates = std::env::var(EXECUTABLES_VARIABLE).ok();
    let extra = std::env::var(UNIT_ARGS_VARIABLE).ok();
    if let (Some(strings), Some(extra)) = (&strings, extra) {
        let chosen = Chosen {
            unit: unit.as_deref(),
            crates: crates.as_deref(),
        };
        args.extend(
            unit_args(strings, chosen, &extra)
                .into_iter()
                .map(OsString::from),
        );
    }
    let mut command = match std::env::var_os(INNER_VARIABLE) {
        Some(inner) => {
            let mut command = Command::new(inner);
            command.arg(compiler);
            command
        }
        None => Command::new(compiler),
    };
    command.args(args);
    Some(run(command))
}

fn run(mut command: Command) -> i32 {
    #[cfg(unix)]
    {
        let error = std::os::unix::process::CommandExt::exec(&mut command);
        eprintln!("cargo-perfdiff (compiler wrapper): cannot run the compiler: {error}");
        101
    }
    #[cfg(not(unix))]
    match command.status() {
        Ok(status) => status.code().unwrap_or(101),
        Err(error) => {
            eprintln!("cargo-perfdiff (compiler wrapper): cannot run the compiler: {error}");
            101
        }
    }
}

/// The checkout's root as cargo names it, and as the file system resolves it when that differs:
/// cargo builds through a link ([`super::one_path`]), while the compiler's working directory
/// (named in debug information) is the resolved one.
fn roots(root: &std::ffi::OsStr) -> Vec<String> {
    let given = root.to_string_lossy().into_owned();
    let resolved = std::fs::canonicalize(root)
        .ok()
        .map(|path| path.to_string_lossy().into_owned())
        .filter(|path| *path != given);
    std::iter::once(given).chain(resolved).collect()
}

fn as_strings(args: &[OsString]) -> Option<Vec<String>> {
    args.iter().map(|a| a.to_str().map(String::from)).collect()
}

/// One compilation's arguments, normalised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Normalised {
    /// The arguments to run the compiler with.
    pub args: Vec<String>,
    /// The `-C metadata` value they carry.
    pub metadata: String,
}

/// The arguments of a compilation with cargo's `-C metadata` replaced by a hash of what decides
/// the crate's code, and the checkout's root (each of `roots`, the names it goes by) remapped to
/// `.` in file names; `None` for a call that compiles no crate (`rustc -vV`, `--print`).
///
/// The `--extern`s are not hashed: a dependency's own hash is not its code (the code is compared
/// by content, [`crate::steps::reach`]), and a dependency added that a crate's code does not
/// reach must rename none of its symbols. What must stay apart within one build still does: two
/// versions of a registry crate (their source paths), a package with other features (`--cfg`)
/// or at another optimisation level. A package compiled twice with the same settings and other
/// dependencies (a build dependency whose own dependencies resolve other features, under a
/// `build-override` equal to the profile) gets one hash for both units; they are linked into
/// different programs (a build script or a proc macro, and the benchmarks), and were rustc
/// ever to load both into one crate graph it would stop with its `StableCrateId` collision
/// error, never build other code.
pub fn normalise(args: &[String], roots: &[String]) -> Option<Normalised> {
    args.iter().position(|a| a == "--crate-name")?;
    let mut kept = Vec::with_capacity(args.len() + 4);
    let mut hashed: Vec<String> = Vec::with_capacity(args.len());
    let mut i = 0;
    while i < args.len() {
        let (option, value, width) = split_option(args, i);
        i += width;
        match (option, value) {
            ("-C", Some(v)) if v.starts_with("metadata=") => continue,
            // `strip = true` in the profile: hashed as given, compiled keeping the symbol table.
            ("-C", Some(STRIP_SYMBOLS)) => {
                hashed.push(format!("-C {STRIP_SYMBOLS}"));
                kept.extend(["-C".to_string(), KEEP_SYMBOLS.to_string()]);
                continue;
            }
            ("-C", Some(v)) if v.starts_with("extra-filename=") => {}
            ("-C", Some(v)) if LINK_ONLY.iter().any(|o| v.starts_with(o)) => {}
            ("--out-dir" | "-L" | "--extern", Some(_)) => {}
            // The native libraries to link (a build script's `rustc-link-lib`): the linker's,
            // not the code's. ring's is named after its version (`-l
            // static=ring_core_0_17_14_`), and renamed every Rust symbol of ring across a
            // version bump.
            ("-l", Some(_)) => {}
            ("--print" | "--diagnostic-width" | "--color", Some(_)) => {}
            // The cfgs a crate may test (its declared features): read by the `unexpected_cfgs`
            // lint alone. A release that drops a feature no one enables (rust-lexical 1.0.6's
            // lexical-util) renamed every symbol of the crate and of each crate above it.
            ("--check-cfg", Some(_)) => {}
            (option, Some(v)) => hashed.push(format!("{option} {}", placeholder(v, roots))),
            (option, None) => hashed.push(placeholder(option, roots)),
        }
        kept.extend(args[i - width..i].iter().cloned());
    }
    let metadata = hash_of(&hashed);
    kept.extend(["-C".to_string(), format!("metadata={metadata}")]);
    for root in roots.iter().filter(|root| !root.is_empty()) {
        kept.push(format!("--remap-path-prefix={root}=."));
    }
    kept.extend(lint_cap(args));
    Some(Normalised {
        args: kept,
        metadata,
    })
}

/// `--cap-lints warn` for a compilation that cargo gave no cap (the workspace's own crates;
/// cargo caps its dependencies' at `allow`), after the hash is taken: a lint changes no code,
/// and a crate that denies warnings (`#![deny(warnings)]`, `-D warnings`) builds at an older
/// revision only with the compiler of its day (rust-base64 at 0.21.7: `unexpected_cfgs` and
/// `mismatched_lifetime_syntaxes`, both newer than it). A comparison is no lint gate: without
/// the cap it could not build that revision at all.
fn lint_cap(args: &[String]) -> Vec<String> {
    let capped = args
        .iter()
        .any(|a| a == "--cap-lints" || a.starts_with("--cap-lints="));
    match capped {
        true => Vec::new(),
        false => vec!["--cap-lints".to_string(), "warn".to_string()],
    }
}

/// A profile's `strip = true` (or `"symbols"`), as cargo passes it: the linker drops the
/// executable's symbol table. Selection reads which function an executed address is in from that
/// table ([`crate::steps::reach`]), so a stripped program or bench executable had every command
/// and benchmark measured, "the executable has no symbol table (stripped)" (fd's release
/// profile, field-trials.md, session 20). The wrapper compiles [`KEEP_SYMBOLS`] instead, after the
/// hash is taken (the crate's `-C metadata` stays the user's build's): the same code and data,
/// only the symbol table kept (it is not loaded when the program runs), and debug information
/// still stripped as `symbols` strips it.
const STRIP_SYMBOLS: &str = "strip=symbols";
/// What [`STRIP_SYMBOLS`] becomes.
const KEEP_SYMBOLS: &str = "strip=debuginfo";

/// `-C` options that change no compiled code (where the outputs go, how the linker is called,
/// what is kept of the intermediate files): the code layouts' relink passes some of them
/// (`link-arg`, `save-temps`) and must get the symbols of cargo's own build.
const LINK_ONLY: [&str; 6] = [
    "incremental=",
    "link-arg=",
    "link-args=",
    "save-temps",
    "linker=",
    "linker-flavor=",
];

/// Options that take a value, as rustc accepts them: `-C v`, `-Cv`, `--out-dir v`,
/// `--out-dir=v`. Returns the option, its value and how many arguments they took.
fn split_option(args: &[String], i: usize) -> (&str, Option<&str>, usize) {
    const WITH_VALUE: [&str; 9] = [
        "-C",
        "-L",
        "-l",
        "--extern",
        "--out-dir",
        "--print",
        "--diagnostic-width",
        "--color",
        "--check-cfg",
    ];
    let arg = args[i].as_str();
    if WITH_VALUE.contains(&arg) {
        return match args.get(i + 1) {
            Some(value) => (arg, Some(value.as_str()), 2),
            None => (arg, None, 1),
        };
    }
    for option in WITH_VALUE {
        let joined = match option.starts_with("--") {
            true => arg
                .strip_prefix(option)
                .and_then(|rest| rest.strip_prefix('=')),
            false => arg.strip_prefix(option).filter(|rest| !rest.is_empty()),
        };
        if let Some(value) = joined {
            return (option, Some(value), 1);
        }
    }
    (arg, None, 1)
}

fn placeholder(text: &str, roots: &[String]) -> String {
    let mut text = text.to_string();
    for root in roots.iter().filter(|root| !root.is_empty()) {
        text = text.replace(root.as_str(), ROOT_PLACEHOLDER);
    }
    text
}

fn hash_of(parts: &[String]) -> String {
    let mut hasher = SipHasher13::new_with_keys(0x7065_7266_6469_6666, 0x6d65_7461_6461_7461);
    for part in parts {
        hasher.write_usize(part.len());
        hasher.write(part.as_bytes());
    }
    format!("{:016x}", hasher.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(String::from).collect()
    }

    /// A compilation as cargo 1.95 runs it (`cargo build -v`), in checkout `root`.
    fn cargo_line(root: &str, metadata: &str, dep: &str) -> Vec<String> {
        args(&format!(
            "--crate-name core --edition=2021 {root}/core/src/lib.rs --error-format=json \
             --crate-type lib --emit=dep-info,metadata,link -C opt-level=3 \
             -C metadata={metadata} -C extra-filename=-{metadata} --out-dir /t/release/deps \
             -L dependency=/t/release/deps --extern dep=/t/release/deps/libdep-{dep}.rlib \
             --cap-lints allow"
        ))
    }

    fn root(path: &str) -> Vec<String> {
        vec![path.to_string()]
    }

    #[test]
    fn the_same_crate_in_two_checkouts_gets_one_hash_and_its_paths_remapped() {
        let base = normalise(&cargo_line("/w/base", "aaaa", "1111"), &root("/w/base")).unwrap();
        let head = normalise(&cargo_line("/w/head", "bbbb", "2222"), &root("/w/head")).unwrap();
        assert_eq!(base.metadata, head.metadata);
        assert!(
            base.args
                .contains(&"--remap-path-prefix=/w/base=.".to_string())
        );
        assert!(
            !base
                .args
                .iter()
                .any(|a| a.contains("aaaa") && a.starts_with("metadata"))
        );
        assert_eq!(
            base.args
                .iter()
                .filter(|a| a.starts_with("metadata="))
                .count(),
            1,
            "{:?}",
            base.args
        );
        // Cargo's file name, output directory and dependencies' paths are kept as cargo gave them.
        assert!(base.args.contains(&"extra-filename=-aaaa".to_string()));
        assert!(
            base.args
                .contains(&"dep=/t/release/deps/libdep-1111.rlib".to_string())
        );
    }

    /// fd's release profile (`strip = true`, LTO, one codegen unit): cargo passes `-C
    /// strip=symbols` to the program's compilation, which left it without a symbol table, and
    /// selection measured every command ("the executable has no symbol table (stripped)").
    #[test]
    fn a_profile_that_strips_symbols_keeps_them_with_the_same_metadata() {
        let program = |strip: &str| {
            args(&format!(
                "--crate-name fd --edition=2024 /w/base/src/main.rs --crate-type bin \
                 -C opt-level=3 -C lto -C codegen-units=1 {strip} -C metadata=aaaa \
                 --out-dir /t/release/deps"
            ))
        };
        let roots = root("/w/base");
        for stripped in ["-C strip=symbols", "-Cstrip=symbols"] {
            let normalised = normalise(&program(stripped), &roots).unwrap();
            assert!(
                !normalised.args.iter().any(|a| a.ends_with("strip=symbols")),
                "{:?}",
                normalised.args
            );
            let at = normalised.args.iter().position(|a| a == "strip=debuginfo");
            assert_eq!(at.map(|at| &normalised.args[at - 1][..]), Some("-C"));
            // The hash is the user's setting's: other strip settings give other hashes.
            let other = normalise(&program("-C strip=debuginfo"), &roots).unwrap();
            assert_ne!(normalised.metadata, other.metadata);
        }
        let (spaced, joined) = (
            normalise(&program("-C strip=symbols"), &roots).unwrap(),
            normalise(&program("-Cstrip=symbols"), &roots).unwrap(),
        );
        assert_eq!(spaced.metadata, joined.metadata);
        // Any other strip setting is the user's, as given.
        let kept = normalise(&program("-C strip=debuginfo"), &roots).unwrap();
        assert!(kept.args.contains(&"strip=debuginfo".to_string()));
    }

    #[test]
    fn a_build_through_the_link_remaps_the_link_and_the_slot_it_points_at() {
        let line = cargo_line("/w/live", "aaaa", "1111");
        let roots = |slot: &str| vec!["/w/live".to_string(), slot.to_string()];
        let base = normalise(&line, &roots("/w/base")).unwrap();
        let head = normalise(&line, &roots("/w/head")).unwrap();
        assert_eq!(base.metadata, head.metadata);
        for remap in [
            "--remap-path-prefix=/w/live=.",
            "--remap-path-prefix=/w/base=.",
        ] {
            assert!(base.args.contains(&remap.to_string()), "{:?}", base.args);
        }
    }

    #[test]
    fn the_features_a_crate_declares_but_no_one_enables_change_no_hash() {
        // rust-lexical 1.0.6 dropped three deprecated features of lexical-util that nothing
        // enabled: cargo's `--check-cfg` listed one set on base, another on head.
        let with_declared = |features: &str| {
            let mut line = cargo_line("/w/base", "aaaa", "1111");
            line.push("--check-cfg".to_string());
            line.push("cfg(docsrs,test)".to_string());
            line.push("--check-cfg".to_string());
            line.push(format!("cfg(feature, values({features}))"));
            line
        };
        let base = with_declared("\"std\", \"parse\", \"write\"");
        let head = with_declared("\"std\"");
        let (base_n, head_n) = (
            normalise(&base, &root("/w/base")).unwrap(),
            normalise(&head, &root("/w/base")).unwrap(),
        );
        assert_eq!(base_n.metadata, head_n.metadata);
        // rustc still gets them, for its lint.
        assert!(
            base_n.args.contains(&base[base.len() - 1]),
            "{:?}",
            base_n.args
        );
        // The `=` form is the same option.
        let mut joined = cargo_line("/w/base", "aaaa", "1111");
        joined.push("--check-cfg=cfg(feature, values(\"std\"))".to_string());
        let joined = normalise(&joined, &root("/w/base")).unwrap();
        let bare = normalise(&cargo_line("/w/base", "aaaa", "1111"), &root("/w/base")).unwrap();
        assert_eq!(joined.metadata, bare.metadata);
    }

    #[test]
    fn what_decides_the_code_changes_the_hash() {
        let line = cargo_line("/w/base", "aaaa", "1111");
        let base = normalise(&line, &root("/w/base")).unwrap();
        let mut other_level = line.clone();
        let level = other_level.iter().position(|a| a == "opt-level=3").unwrap();
        other_level[level] = "opt-level=2".to_string();
        let other_level = normalise(&other_level, &root("/w/base")).unwrap();
        assert_ne!(base.metadata, other_level.metadata);
        // Other features are another crate.
        let mut featured = line.clone();
        featured.extend(args("--cfg feature=\"std\""));
        let featured = normalise(&featured, &root("/w/base")).unwrap();
        assert_ne!(base.metadata, featured.metadata);
        // Another source file is another crate.
        let moved = cargo_line("/w/base/x", "aaaa", "1111");
        let moved = normalise(&moved, &root("/w/base")).unwrap();
        assert_ne!(base.metadata, moved.metadata);
    }

    #[test]
    fn a_dependency_added_changes_no_crate_s_hash() {
        // A bench target as cargo compiles it (no `--crate-type`) and with `--crate-type bin`:
        // a dev-dependency added to the package is one more `--extern` to every bench target,
        // used or not (unicode-segmentation's `proptest`).
        for crate_type in ["", "--crate-type bin ", "--crate-type=bin "] {
            let bench = |externs: &str| {
                args(&format!(
                    "--crate-name chars --edition=2018 benches/chars.rs {crate_type}\
                     --emit=dep-info,link -C opt-level=3 -C metadata=1 -C extra-filename=-1 \
                     --out-dir /t/release/deps {externs}"
                ))
            };
            let one = "--extern criterion=/t/release/deps/libcriterion-1.rlib";
            let two = format!("{one} --extern proptest=/t/release/deps/libproptest-2.rlib");
            let base = normalise(&bench(one), &[]).unwrap();
            let head = normalise(&bench(&two), &[]).unwrap();
            assert_eq!(base.metadata, head.metadata, "{crate_type}");
            assert!(
                head.args
                    .contains(&"proptest=/t/release/deps/libproptest-2.rlib".into())
            );
        }
        // A library given one more dependency for one of its modules (html5ever's `memchr`)
        // keeps its hash too, and so the symbols of every function the change does not touch;
        // the `--extern` itself reaches the compiler as cargo gave it.
        let line = cargo_line("/w/base", "aaaa", "1111");
        let mut more = line.clone();
        more.extend(args("--extern memchr=/t/release/deps/libmemchr-2.rlib"));
        let base = normalise(&line, &root("/w/base")).unwrap();
        let head = normalise(&more, &root("/w/base")).unwrap();
        assert_eq!(base.metadata, head.metadata);
        assert!(
            head.args
                .contains(&"memchr=/t/release/deps/libmemchr-2.rlib".into())
        );
    }

    #[test]
    fn a_native_library_named_after_the_version_changes_no_hash() {
        // ring's build script links the C and assembly it compiles as a static library named
        // after ring's version: every Rust symbol of ring was renamed by a version bump.
        let line = cargo_line("/w/base", "aaaa", "1111");
        let linked = |library: &str| {
            let mut line = line.clone();
            line.extend(args(&format!("-L native=/t/build/ring-1/out {library}")));
            normalise(&line, &root("/w/base")).unwrap()
        };
        let base = linked("-l static=ring_core_0_17_14_");
        let head = linked("-l static=ring_core_0_17_16000_");
        assert_eq!(base.metadata, head.metadata);
        assert_eq!(
            linked("-lstatic=ring_core_0_17_14_").metadata,
            base.metadata
        );
        assert!(head.args.contains(&"static=ring_core_0_17_16000_".into()));
    }

    #[test]
    fn joined_option_forms_are_read_like_separate_ones() {
        let separate = args(
            "--crate-name a src/lib.rs -C metadata=1 -C extra-filename=-1 --out-dir /o -L /l -C opt-level=3",
        );
        let joined = args(
            "--crate-name a src/lib.rs -Cmetadata=2 -Cextra-filename=-2 --out-dir=/p -L/m -Copt-level=3",
        );
        let separate = normalise(&separate, &[]).unwrap();
        let joined = normalise(&joined, &[]).unwrap();
        assert_eq!(separate.metadata, joined.metadata);
        assert!(!joined.args.iter().any(|a| a == "-Cmetadata=2"));
        assert!(
            !separate
                .args
                .iter()
                .any(|a| a.starts_with("--remap-path-prefix"))
        );
    }

    #[test]
    fn the_layouts_relink_keeps_the_symbols_of_cargo_s_build() {
        let line = cargo_line("/w/base", "aaaa", "1111");
        let mut relink = line.clone();
        relink.extend(args(
            "-C link-arg=-Wl,--symbol-ordering-file=/dev/null -C save-temps --print link-args",
        ));
        let cargo = normalise(&line, &root("/w/base")).unwrap();
        let relink = normalise(&relink, &root("/w/base")).unwrap();
        assert_eq!(cargo.metadata, relink.metadata);
        assert!(relink.args.contains(&"save-temps".to_string()));
    }

    /// The compilation of the executable of file name `unit` alone (the narrowed re-run).
    fn unit(unit: &str) -> Chosen<'_> {
        Chosen {
            unit: Some(unit),
            crates: None,
        }
    }

    /// The compilations of the executables of crate names `crates` (one a line, or `*`).
    fn crates(crates: &str) -> Chosen<'_> {
        Chosen {
            unit: None,
            crates: Some(crates),
        }
    }

    /// A bench target without a harness, as cargo 1.95 compiles it: no `--crate-type`.
    const BENCH: &str = "--crate-name mixes --edition=2021 b/benches/mixes.rs --emit=dep-info,link \
                         -C opt-level=3 -C metadata=aa -C extra-filename=-0123abcd --out-dir /t/deps";

    #[test]
    fn the_relink_s_arguments_go_to_the_one_executable_they_name() {
        let extra = "-C\nsave-temps\n--print\nlink-args";
        let added = ["-C", "save-temps", "--print", "link-args"];
        let chosen = unit("mixes-0123abcd");
        assert_eq!(unit_args(&args(BENCH), chosen, extra), added);
        let program = BENCH.replace("--emit", "--crate-type bin --emit");
        assert_eq!(unit_args(&args(&program), chosen, extra), added);
        // A libtest bench target (`--test`), and the joined form of the option.
        let harness = BENCH.replace("--emit", "--test --emit");
        let harness = harness.replace("-C extra-filename", "-Cextra-filename");
        assert_eq!(unit_args(&args(&harness), chosen, extra), added);
        // Another unit, and the library of the same name and hash, get nothing.
        assert!(unit_args(&args(BENCH), unit("mixes-ffff"), extra).is_empty());
        let library = BENCH.replace("--emit", "--crate-type lib --emit");
        assert!(unit_args(&args(&library), chosen, extra).is_empty());
        assert!(unit_args(&args("-vV"), chosen, extra).is_empty());
        assert!(unit_args(&args(BENCH), Chosen::default(), extra).is_empty());
    }

    #[test]
    fn a_build_s_bench_targets_get_the_arguments_and_build_scripts_and_proc_macros_do_not() {
        let extra = "-C\nsave-temps";
        let added = ["-C", "save-temps"];
        // The build's bench targets by crate name (`my-bench` is `my_bench`), whatever its hash.
        for chosen in [crates("other\nmixes"), crates("*")] {
            assert_eq!(unit_args(&args(BENCH), chosen, extra), added);
            let harness = BENCH.replace("--emit", "--test --emit");
            assert_eq!(unit_args(&args(&harness), chosen, extra), added);
        }
        assert!(unit_args(&args(BENCH), crates("other"), extra).is_empty());
        // A build script is an executable too (`--crate-type bin`), a proc macro is not: neither
        // gets them, not even from `*`.
        let script = "--crate-name build_script_build --edition=2021 build.rs --crate-type bin \
                      --emit=dep-info,link -C extra-filename=-77 --out-dir /t/build/x-77";
        for chosen in [crates("*"), crates("build_script_build")] {
            assert!(unit_args(&args(script), chosen, extra).is_empty());
        }
        let proc_macro = BENCH.replace("--emit", "--crate-type proc-macro --emit");
        assert!(unit_args(&args(&proc_macro), crates("*"), extra).is_empty());
        assert!(unit_args(&args(&proc_macro), crates("mixes"), extra).is_empty());
    }

    #[test]
    fn a_crate_of_the_workspace_gets_its_lints_capped_at_warn_and_its_hash_kept() {
        let dependency = cargo_line("/w/base", "aaaa", "1111");
        let own: Vec<String> = dependency[..dependency.len() - 2].to_vec();
        let normalised = normalise(&own, &root("/w/base")).unwrap();
        assert!(normalised.args.ends_with(&args("--cap-lints warn")));
        let mut capped_by_hand = own.clone();
        capped_by_hand.extend(args("--cap-lints warn"));
        let hashed_as_before = normalise(&capped_by_hand, &root("/w/base")).unwrap();
        // Were the cap added before the hash, both would hash the same arguments.
        assert_ne!(normalised.metadata, hashed_as_before.metadata);
        for cap in [
            &args("--cap-lints allow")[..],
            &args("--cap-lints=allow")[..],
        ] {
            let mut line = own.clone();
            line.extend(cap.iter().cloned());
            let kept = normalise(&line, &root("/w/base")).unwrap().args;
            assert_eq!(kept.iter().filter(|a| a.contains("cap-lints")).count(), 1);
            assert!(!kept.contains(&"warn".to_string()));
        }
    }

    #[test]
    fn calls_that_compile_no_crate_are_left_alone() {
        assert_eq!(normalise(&args("-vV"), &root("/w")), None);
        assert_eq!(
            normalise(&args("- --crate-type lib --print=file-names"), &root("/w")),
            None
        );
    }
}
