//! Whether a function compiled differently on the two sides was compiled from the same source.
//!
//! A commit changes the machine code of functions whose source it does not touch: a new function
//! in a module moves the codegen-unit partition, and with it the inlining of its neighbours
//! (chrono's `Local::now` and `Cache::offset`, docs/design/field-trials.md). When such a function
//! runs only outside a benchmark's timed loop (the harness's start-up, the benchmark's set-up),
//! its code is not measured: what matters there is only that it computes the same inputs. That
//! is decided here from the line tables (a build with `debug = "line-tables-only"`, the one
//! `--explain` makes): every instruction of the function's symbol, with its whole inline chain,
//! says which function of which source file and which line it comes from. Per (file, function)
//! the lines from the first to the last that contributed code are one span, and two sides are
//! the same when they have the same spans with the same text (line numbers may shift: a function
//! added above moves them). A span covers the lines without code inside it too, so a statement
//! added or removed there is seen even when it compiled to nothing of its own.
//!
//! Soundness first: a file that cannot be read, an instruction without a line, a function
//! without a symbol, are [`SourceComparison::Unknown`]; the caller measures then. Files of the
//! standard library (`/rustc/<commit>/library/…`) are the same text when their path is: the
//! commit hash names the toolchain. What the lines do not show is a definition used from
//! elsewhere that leaves no instruction of its own: a `const` folded into an immediate, a type's
//! layout, a macro's body. A commit that changes those changes the source of the function's
//! module or of another file, and the caller only trusts this comparison for functions whose
//! code lies outside the timed loop, never to skip a benchmark whose timed code differs.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use object::{Object, ObjectSymbol, SymbolKind};

/// One instruction's place in the source: the function of its inline chain (innermost or one
/// around it), the file and the line.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Place {
    pub function: String,
    pub file: PathBuf,
    pub line: u32,
}

/// The source a function was compiled from: per (file as compared, function of the inline
/// chain), the text of its span of lines.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FunctionSource {
    pub spans: BTreeMap<(String, String), Span>,
}

/// A span of one file's lines: where it starts, and its text line by line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    pub first: u32,
    pub text: Vec<String>,
}

/// The two sides' sources of one function compared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceComparison {
    /// The same spans with the same text: it computes the same (as far as its lines tell).
    Same,
    /// A span differs or is on one side only; the reason names it.
    Differs(String),
    /// The line tables or the files cannot tell.
    Unknown(String),
}

/// How a function's source is found: the line tables of `executable` (a build with line
/// tables), the checkout its workspace sources are read from.
pub struct Side<'a> {
    pub executable: &'a Path,
    pub checkout: &'a Path,
}

/// The two sides' sources of `function` (demangled, without its hash: the line-tables build's
/// symbols hash differently from the measured build's) compared.
pub fn compare_function(
    base: &Side<'_>,
    head: &Side<'_>,
    function: &str,
    changed: &BTreeSet<String>,
) -> SourceComparison {
    compare_functions(base, head, &[function.to_string()], changed)
        .pop()
        .unwrap_or_else(|| SourceComparison::Unknown(format!("{function}: not compared")))
}

/// [`compare_function`] for each of `functions`, in their order; each executable read once.
/// `changed`: the names the commit's changed lines hold ([`changed_names`]); a function whose
/// lines name one of them differs, though its own lines read the same.
pub fn compare_functions(
    base: &Side<'_>,
    head: &Side<'_>,
    functions: &[String],
    changed: &BTreeSet<String>,
) -> Vec<SourceComparison> {
    let sources = |side: &Side<'_>| -> Vec<Result<FunctionSource, String>> {
        match places_of_all(side.executable, functions) {
            Err(reason) => functions.iter().map(|_| Err(reason.clone())).collect(),
            Ok(all) => all
                .into_iter()
                .map(|places| {
                    source_of(&places?, side.checkout, |path| {
                        std::fs::read_to_string(path).ok()
                    })
                })
                .collect(),
        }
    };
    sources(base)
        .into_iter()
        .zip(sources(head))
        .map(|pair| match pair {
            (Ok(base), Ok(head)) => match (compare(&base, &head), uses_changed(&base, changed)) {
                (SourceComparison::Same, Some(name)) => SourceComparison::Differs(format!(
                    "its lines name `{name}`, which the commit changes elsewhere"
                )),
                (comparison, _) => comparison,
            },
            (Err(reason), _) | (_, Err(reason)) => SourceComparison::Unknown(reason),
        })
        .collect()
}

/// Every place the code of `function`'s symbols (all of its instantiations) comes from: each
/// row of the line tables in their extent, with each frame of its inline chain.
pub fn places_of(executable: &Path, function: &str) -> Result<BTreeSet<Place>, String> {
    places_of_all(executable, &[function.to_string()])?
        .pop()
        .unwrap_or_else(|| Err(format!("{function}: not found")))
}

/// [`places_of`] for each of `functions`, in their order; the executable read once.
fn places_of_all(
    executable: &Path,
    functions: &[String],
) -> Result<Vec<Result<BTreeSet<Place>, String>>, String> {
    let extents = extents_of(executable, functions)?;
    let loader = addr2line::Loader::new(executable).map_err(|e| {
        format!(
            "cannot read the line tables of {}: {e}",
            executable.display()
        )
    })?;
    let all = functions
        .iter()
        .map(|function| match extents.get(function.as_str()) {
            None => Err(format!("{} has no symbol {function}", executable.display())),
            Some(extents) => places_in(&loader, extents, function),
        })
        .collect();
    Ok(all)
}

/// The places of the code in `extents` (of `function`).
fn places_in(
    loader: &addr2line::Loader,
    extents: &[(u64, u64)],
    function: &str,
) -> Result<BTreeSet<Place>, String> {
    let mut places = BTreeSet::new();
    for &(start, end) in extents {
        let rows = loader
            .find_location_range(start, end)
            .map_err(|e| format!("{function}: {e}"))?;
        let mut covered = start;
        for (address, length, _) in rows {
            if address > covered {
                return Err(format!("{function}: code at {covered:#x} has no line"));
            }
            covered = covered.max(address + length);
            places.extend(frames_at(loader, address, function)?);
        }
        if covered < end {
            return Err(format!("{function}: code at {covered:#x} has no line"));
        }
    }
    // Rows of line 0 (code the compiler made: a loop's header, a spill) belong to the function
    // whose span covers them; a function with no line at all cannot be compared.
    if places.is_empty() {
        return Err(format!("{function}: its code has no source line"));
    }
    Ok(places)
}

/// The extents (start, end) of one function's symbols.
type Extents = Vec<(u64, u64)>;

/// The extents (start, end) of the function symbols of `executable` named one of `functions`
/// once demangled without their hash, by that name.
fn extents_of<'n>(
    executable: &Path,
    functions: &'n [String],
) -> Result<BTreeMap<&'n str, Extents>, String> {
    let data = std::fs::read(executable)
        .map_err(|e| format!("cannot read {}: {e}", executable.display()))?;
    let file = object::File::parse(&*data)
        .map_err(|e| format!("cannot parse {}: {e}", executable.display()))?;
    let wanted: BTreeSet<&str> = functions.iter().map(String::as_str).collect();
    let mut extents: BTreeMap<&str, Extents> = BTreeMap::new();
    for symbol in file.symbols() {
        if symbol.kind() != SymbolKind::Text || symbol.size() == 0 {
            continue;
        }
        let Ok(raw) = symbol.name() else {
            continue;
        };
        let name = format!("{:#}", rustc_demangle::demangle(raw));
        if let Some(&function) = wanted.get(name.as_str()) {
            let start = symbol.address();
            extents
                .entry(function)
                .or_default()
                .push((start, start + symbol.size()));
        }
    }
    Ok(extents)
}

/// The places of the instruction at `address`: every frame of its inline chain.
fn frames_at(
    loader: &addr2line::Loader,
    address: u64,
    function: &str,
) -> Result<Vec<Place>, String> {
    let mut frames = loader
        .find_frames(address)
        .map_err(|e| format!("{function}: {e}"))?;
    let mut places = Vec::new();
    while let Ok(Some(frame)) = frames.next() {
        let name = frame
            .function
            .as_ref()
            .and_then(|f| f.raw_name().ok())
            .map(|raw| format!("{:#}", rustc_demangle::demangle(&raw)));
        let location = frame.location.as_ref();
        let Some(name) = name else {
            return Err(format!("{function}: code at {address:#x} has no function"));
        };
        // A frame without a line (0 or none: code the compiler made, such as a loop's header)
        // is in the span of the function it is in, or of the frames around it.
        if let (Some(file), Some(line)) = (
            location.and_then(|l| l.file),
            location.and_then(|l| l.line).filter(|&l| l > 0),
        ) {
            places.push(Place {
                function: name,
                file: PathBuf::from(file),
                line,
            });
        }
    }
    Ok(places)
}

/// The source of `places`: the files read with `read`, a file of `checkout` named by its path
/// inside it (the two checkouts' paths differ), any other by its whole path. A relative path is
/// the checkout's: the build maps the checkout's root to `.` in the file names it compiles in
/// (`--remap-path-prefix`, [`crate::steps::build::normalize`]), so `./src/lib.rs` names the
/// same file text in both line tables only when it is read from each side's own checkout.
pub fn source_of(
    places: &BTreeSet<Place>,
    checkout: &Path,
    read: impl Fn(&Path) -> Option<String>,
) -> Result<FunctionSource, String> {
    let mut lines: BTreeMap<(PathBuf, String), (u32, u32)> = BTreeMap::new();
    for place in places {
        let span = lines
            .entry((place.file.clone(), place.function.clone()))
            .or_insert((place.line, place.line));
        span.0 = span.0.min(place.line);
        span.1 = span.1.max(place.line);
    }
    let mut source = FunctionSource::default();
    for ((file, function), (first, last)) in lines {
        let file = if file.is_relative() {
            checkout.join(file)
        } else {
            file
        };
        let key = match file.strip_prefix(checkout) {
            Ok(inside) => inside.to_string_lossy().into_owned(),
            Err(_) => file.to_string_lossy().into_owned(),
        };
        let text = if is_toolchain(&file) {
            Vec::new()
        } else {
            let whole = read(&file).ok_or_else(|| format!("cannot read {}", file.display()))?;
            let text: Vec<String> = whole
                .lines()
                .skip(first as usize - 1)
                .take((last - first + 1) as usize)
                .map(|l| l.trim_end().to_string())
                .collect();
            if text.len() != (last - first + 1) as usize {
                return Err(format!("{} has no line {last}", file.display()));
            }
            text
        };
        source.spans.insert((key, function), Span { first, text });
    }
    Ok(source)
}

/// Whether `file` is the standard library's as the line tables name it
/// (`/rustc/<commit>/library/…`): the same path is the same toolchain's same file.
fn is_toolchain(file: &Path) -> bool {
    file.starts_with("/rustc/")
}

/// The two sides' sources compared: the same spans (by file and function) with the same text.
pub fn compare(base: &FunctionSource, head: &FunctionSource) -> SourceComparison {
    for ((file, function), span) in &base.spans {
        match head.spans.get(&(file.clone(), function.clone())) {
            None => {
                return SourceComparison::Differs(format!(
                    "base's code of {function} ({file}) is not in head's"
                ));
            }
            Some(other) => {
                if let Some(offset) = first_difference(&span.text, &other.text) {
                    return SourceComparison::Differs(format!(
                        "{function} differs at {file}:{} (head's line {})",
                        span.first + offset,
                        other.first + offset
                    ));
                }
            }
        }
    }
    if let Some((file, function)) = head.spans.keys().find(|k| !base.spans.contains_key(*k)) {
        return SourceComparison::Differs(format!(
            "head's code of {function} ({file}) is not in base's"
        ));
    }
    SourceComparison::Same
}

/// The names (identifiers, keywords left out) on the lines the commit changes in any Rust
/// file of the two checkouts: lines one side has more often than the other, in each file whose
/// text differs (or that one side lacks). What a function's lines do not show but use (a
/// `const` folded into an immediate, a type, a macro) is named where it is used, so a function
/// whose lines name one of these may compute otherwise from lines that read the same.
pub fn changed_names(base: &Path, head: &Path) -> Result<BTreeSet<String>, String> {
    let mut files = BTreeSet::new();
    for checkout in [base, head] {
        rust_files(checkout, Path::new(""), &mut files)?;
    }
    let mut names = BTreeSet::new();
    for file in files {
        let read =
            |checkout: &Path| std::fs::read_to_string(checkout.join(&file)).unwrap_or_default();
        let (a, b) = (read(base), read(head));
        if a == b {
            continue;
        }
        let mut counts: BTreeMap<&str, i64> = BTreeMap::new();
        for line in a.lines() {
            *counts.entry(line.trim()).or_default() += 1;
        }
        for line in b.lines() {
            *counts.entry(line.trim()).or_default() -= 1;
        }
        let lines = counts.into_iter().filter(|(_, n)| *n != 0);
        names.extend(lines.flat_map(|(line, _)| identifiers(line)));
    }
    Ok(names)
}

/// The `.rs` files under `dir` (of `checkout`, relative to it), version control and build
/// directories left out.
fn rust_files(checkout: &Path, dir: &Path, files: &mut BTreeSet<PathBuf>) -> Result<(), String> {
    let path = checkout.join(dir);
    let entries =
        std::fs::read_dir(&path).map_err(|e| format!("cannot list {}: {e}", path.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("cannot list {}: {e}", path.display()))?;
        let name = entry.file_name();
        let relative = dir.join(&name);
        let kind = entry
            .file_type()
            .map_err(|e| format!("cannot read {}: {e}", relative.display()))?;
        if kind.is_dir() && name != ".git" && name != "target" {
            rust_files(checkout, &relative, files)?;
        } else if kind.is_file() && relative.extension().is_some_and(|e| e == "rs") {
            files.insert(relative);
        }
    }
    Ok(())
}

/// The identifiers of `text`, Rust's keywords left out.
fn identifiers(text: &str) -> impl Iterator<Item = String> + '_ {
    const KEYWORDS: &[&str] = &[
        "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum",
        "extern", "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move",
        "mut", "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait",
        "true", "type", "unsafe", "use", "where", "while",
    ];
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|word| {
            word.chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_')
        })
        .filter(|word| !KEYWORDS.contains(word))
        .map(str::to_string)
}

/// The first name of `changed` that the lines of `source` hold.
fn uses_changed(source: &FunctionSource, changed: &BTreeSet<String>) -> Option<String> {
    source
        .spans
        .values()
        .flat_map(|span| &span.text)
        .flat_map(|line| identifiers(line))
        .find(|name| changed.contains(name))
}

/// The index of the first line where `a` and `b` differ, `None` when they are the same.
fn first_difference(a: &[String], b: &[String]) -> Option<u32> {
    let index = a
        .iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .or((a.len() != b.len()).then_some(a.len().min(b.len())))?;
    Some(index as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(function: &str, file: &str, line: u32) -> Place {
        Place {
            function: function.to_string(),
            file: PathBuf::from(file),
            line,
        }
    }

    const BASE: &str = "fn setup() -> u64 {\n    let x = 3;\n    x * 2\n}\n";
    /// BASE with an unrelated function added above: every line two further down.
    const SHIFTED: &str = "fn other() {}\n\nfn setup() -> u64 {\n    let x = 3;\n    x * 2\n}\n";

    fn source(checkout: &str, text: &'static str, lines: &[u32]) -> FunctionSource {
        let places = lines
            .iter()
            .map(|&l| place("demo::setup", &format!("{checkout}/src/lib.rs"), l))
            .collect();
        source_of(&places, Path::new(checkout), |_| Some(text.to_string())).unwrap()
    }

    #[test]
    fn the_same_lines_moved_down_are_the_same_source() {
        let base = source("/b", BASE, &[1, 3]);
        let head = source("/h", SHIFTED, &[3, 5]);
        assert_eq!(compare(&base, &head), SourceComparison::Same);
    }

    #[test]
    fn a_changed_line_of_the_span_differs_and_is_named() {
        let base = source("/b", BASE, &[1, 3]);
        let head = source(
            "/h",
            "fn setup() -> u64 {\n    let x = 3;\n    x * 5\n}\n",
            &[1, 3],
        );
        let SourceComparison::Differs(reason) = compare(&base, &head) else {
            panic!("a changed line must differ");
        };
        assert_eq!(
            reason,
            "demo::setup differs at src/lib.rs:3 (head's line 3)"
        );
    }

    #[test]
    fn a_line_without_code_inside_the_span_still_counts() {
        // Line 2 has no instruction of its own (folded into line 3), but it is in the span.
        let base = source("/b", BASE, &[1, 3]);
        let head = source(
            "/h",
            "fn setup() -> u64 {\n    let x = 4;\n    x * 2\n}\n",
            &[1, 3],
        );
        assert!(matches!(
            compare(&base, &head),
            SourceComparison::Differs(_)
        ));
    }

    #[test]
    fn an_inlined_function_on_one_side_only_differs() {
        let base = source("/b", BASE, &[1, 3]);
        let mut places: BTreeSet<Place> = [1, 3]
            .iter()
            .map(|&l| place("demo::setup", "/h/src/lib.rs", l))
            .collect();
        places.insert(place("demo::helper", "/h/src/util.rs", 1));
        let head = source_of(&places, Path::new("/h"), |p| {
            Some(
                if p.ends_with("util.rs") {
                    "fn helper() {}\n"
                } else {
                    BASE
                }
                .to_string(),
            )
        })
        .unwrap();
        let SourceComparison::Differs(reason) = compare(&base, &head) else {
            panic!("code inlined on one side only must differ");
        };
        assert!(reason.contains("demo::helper"), "{reason}");
    }

    #[test]
    fn a_relative_path_is_read_from_each_side_s_own_checkout() {
        // As a build that maps the checkout's root to `.` names the file on both sides.
        let places: BTreeSet<Place> = [place("demo::setup", "./src/lib.rs", 2)]
            .into_iter()
            .collect();
        let read = |path: &Path| {
            let text = match path.starts_with("/b") {
                true => "// base\nfn setup() {}\n",
                false => "// head\nfn setup() { changed() }\n",
            };
            assert!(path.ends_with("src/lib.rs"), "{}", path.display());
            Some(text.to_string())
        };
        let base = source_of(&places, Path::new("/b"), read).unwrap();
        let head = source_of(&places, Path::new("/h"), read).unwrap();
        assert!(
            base.spans
                .contains_key(&("src/lib.rs".to_string(), "demo::setup".to_string()))
        );
        assert!(
            matches!(compare(&base, &head), SourceComparison::Differs(_)),
            "{base:?} {head:?}"
        );
        let again = source_of(&places, Path::new("/b2"), |_| {
            read(Path::new("/b/src/lib.rs"))
        });
        assert_eq!(compare(&base, &again.unwrap()), SourceComparison::Same);
    }

    #[test]
    fn a_file_outside_the_checkout_is_compared_by_its_whole_path() {
        let dep = |checkout: &str| {
            let places = [place("dep::f", "/registry/src/dep-1.0/src/lib.rs", 1)]
                .into_iter()
                .collect();
            source_of(&places, Path::new(checkout), |_| {
                Some("fn f() {}\n".to_string())
            })
            .unwrap()
        };
        assert_eq!(compare(&dep("/b"), &dep("/h")), SourceComparison::Same);
        let other = source_of(
            &[place("dep::f", "/registry/src/dep-1.1/src/lib.rs", 1)]
                .into_iter()
                .collect(),
            Path::new("/h"),
            |_| Some("fn f() {}\n".to_string()),
        )
        .unwrap();
        assert!(matches!(
            compare(&dep("/b"), &other),
            SourceComparison::Differs(_)
        ));
    }

    #[test]
    fn an_unreadable_file_or_a_missing_line_cannot_tell() {
        let places = [place("demo::setup", "/b/src/lib.rs", 9)]
            .into_iter()
            .collect();
        assert!(source_of(&places, Path::new("/b"), |_| None).is_err());
        assert!(source_of(&places, Path::new("/b"), |_| Some(BASE.to_string())).is_err());
    }

    #[test]
    fn the_standard_library_is_the_same_by_its_path() {
        let places = [place("core::f", "/rustc/abc/library/core/src/lib.rs", 7)]
            .into_iter()
            .collect();
        let read = |_: &Path| None;
        let base = source_of(&places, Path::new("/b"), read).unwrap();
        let head = source_of(&places, Path::new("/h"), read).unwrap();
        assert_eq!(compare(&base, &head), SourceComparison::Same);
    }

    #[inline(never)]
    fn traced_for_source(x: u64) -> u64 {
        x.wrapping_mul(31) ^ 7
    }

    #[test]
    fn a_function_of_this_test_binary_has_its_source_found_in_its_line_tables() {
        assert_ne!(traced_for_source(std::hint::black_box(3)), 0);
        let exe = std::env::current_exe().unwrap();
        let checkout = Path::new(env!("CARGO_MANIFEST_DIR"));
        let name = "cargo_perfdiff::steps::reach::source::tests::traced_for_source";
        let side = Side {
            executable: &exe,
            checkout,
        };
        let places = places_of(&exe, name).unwrap();
        assert!(
            places
                .iter()
                .any(|p| p.file.ends_with("src/steps/reach/source.rs")),
            "{places:?}"
        );
        let none = BTreeSet::new();
        assert_eq!(
            compare_function(&side, &side, name, &none),
            SourceComparison::Same
        );
        let missing = compare_function(&side, &side, "no::such::function", &none);
        assert!(matches!(missing, SourceComparison::Unknown(_)));
    }
    /// A program whose `setup` inlines `util::helper`; `above` goes before it, `shift` is the
    /// helper's shift.
    fn program(above: &str, shift: u32) -> String {
        format!(
            "{above}mod util {{\n    #[inline(always)]\n    pub fn helper(x: u64) -> u64 {{\n        \
             x.wrapping_mul(0x9E37_79B9) ^ (x >> {shift})\n    }}\n}}\n\n#[inline(never)]\n\
             fn setup(n: u64) -> u64 {{\n    let mut acc = 0;\n    for i in 0..n {{\n        \
             acc ^= util::helper(i);\n    }}\n    acc\n}}\n\n\
             fn main() {{\n    println!(\"{{}}\", setup(std::hint::black_box(1000)));\n}}\n"
        )
    }

    /// `text` compiled optimised with line tables in a checkout of its own under `dir`.
    fn compiled(dir: &Path, side: &str, text: &str) -> PathBuf {
        let checkout = dir.join(side);
        std::fs::create_dir_all(checkout.join("src")).unwrap();
        std::fs::write(checkout.join("src/main.rs"), text).unwrap();
        let exe = checkout.join("demo");
        let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
        let status = std::process::Command::new(rustc)
            .current_dir(&checkout)
            .args(["--edition=2021", "--crate-name", "demo", "-O", "-C"])
            .args(["debuginfo=line-tables-only", "src/main.rs", "-o"])
            .arg(&exe)
            .status()
            .unwrap();
        assert!(status.success());
        exe
    }

    #[test]
    fn two_real_builds_of_the_same_source_elsewhere_are_the_same_and_a_changed_inlined_line_is_not()
    {
        let dir = tempfile::tempdir().unwrap();
        let base = compiled(dir.path(), "base", &program("", 7));
        let shifted = compiled(
            dir.path(),
            "shifted",
            &program(
                "#[allow(dead_code)]\nfn unrelated() -> u32 {\n    7\n}\n\n",
                7,
            ),
        );
        let changed = compiled(dir.path(), "changed", &program("", 9));
        let side = |exe: &Path, name: &str| (exe.to_path_buf(), dir.path().join(name));
        let compare_with = |(exe, checkout): (PathBuf, PathBuf)| {
            let (base_exe, base_checkout) = side(&base, "base");
            let changed = changed_names(&base_checkout, &checkout).unwrap();
            compare_function(
                &Side {
                    executable: &base_exe,
                    checkout: &base_checkout,
                },
                &Side {
                    executable: &exe,
                    checkout: &checkout,
                },
                "demo::setup",
                &changed,
            )
        };
        let places = places_of(&base, "demo::setup").unwrap();
        assert!(
            places.iter().any(|p| p.function.ends_with("helper")),
            "the helper is inlined into setup: {places:?}"
        );
        assert_eq!(
            compare_with(side(&shifted, "shifted")),
            SourceComparison::Same
        );
        let SourceComparison::Differs(reason) = compare_with(side(&changed, "changed")) else {
            panic!("a changed line of an inlined function must differ");
        };
        assert!(reason.contains("helper"), "{reason}");
    }
    #[test]
    fn a_function_whose_lines_name_what_the_commit_changes_elsewhere_differs() {
        let dir = tempfile::tempdir().unwrap();
        let write = |side: &str, rounds: u32| {
            let src = dir.path().join(side).join("src");
            std::fs::create_dir_all(&src).unwrap();
            std::fs::write(
                src.join("consts.rs"),
                format!("pub const ROUNDS: u64 = {rounds};\n"),
            )
            .unwrap();
            std::fs::write(src.join("lib.rs"), "fn run() -> u64 {\n    ROUNDS * 2\n}\n").unwrap();
            dir.path().join(side)
        };
        let (base, head) = (write("base", 2000), write("head", 2200));
        let changed = changed_names(&base, &head).unwrap();
        assert!(changed.contains("ROUNDS"), "{changed:?}");
        assert!(
            !changed.contains("const"),
            "keywords are not names: {changed:?}"
        );
        let places = [place("demo::run", "/b/src/lib.rs", 2)]
            .into_iter()
            .collect();
        let source = source_of(&places, Path::new("/b"), |_| {
            Some("fn run() -> u64 {\n    ROUNDS * 2\n}\n".to_string())
        })
        .unwrap();
        assert_eq!(compare(&source, &source), SourceComparison::Same);
        assert_eq!(uses_changed(&source, &changed).as_deref(), Some("ROUNDS"));
        assert_eq!(uses_changed(&source, &BTreeSet::new()), None);
    }
}
