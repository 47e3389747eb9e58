//! Code identity (`steps::reach::code`) on real builds of `fixtures/reach-code`: a base and two
//! heads (a comment that shifts every line; one change of each kind, each in its own function),
//! built once and shared by every test, compared with executed addresses taken from base's
//! symbol table for the functions a test names.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use cargo_perfdiff::steps::build::{BenchExecutable, BuildOptions, build_benches};
use cargo_perfdiff::steps::reach::code::{
    CodeComparison, Comparer, LinkedCode, features_valgrind_hides,
};
use cargo_perfdiff::steps::reach::versions;
use object::{Object, ObjectSection, ObjectSymbol, SymbolKind};

fn shared_target_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("target/test-fixture-builds")
}

const FILES: [&str; 9] = [
    "Cargo.toml",
    "Cargo.lock",
    "build.rs",
    "data/generated.txt",
    "src/lib.rs",
    "benches/kernels.rs",
    "helper/Cargo.toml",
    "helper/src/lib.rs",
    "data/blob.bin",
];

/// A copy of the fixture in `dir/name`, each file passed through `edit(file, text)`.
fn copy_fixture(dir: &Path, name: &str, edit: &dyn Fn(&str, String) -> String) -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/reach-code");
    let destination = dir.join(name);
    for file in FILES {
        let to = destination.join(file);
        fs::create_dir_all(to.parent().unwrap()).unwrap();
        let text = fs::read_to_string(source.join(file)).unwrap();
        fs::write(to, edit(file, text)).unwrap();
    }
    destination
}

/// The bench executable of the fixture copy `workspace`, built with its relink kept.
fn build(workspace: &Path, label: &str, bin_dir: &Path) -> BenchExecutable {
    let options = BuildOptions {
        layouts: 2,
        ..BuildOptions::default()
    };
    let exes = build_benches(
        workspace,
        label,
        &shared_target_dir(),
        bin_dir,
        &options,
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(exes.len(), 1, "{exes:?}");
    exes.into_iter().next().unwrap()
}

/// The edits of the head with every kind of change, each in a function of its own, after a
/// comment that shifts every line of the library.
fn every_change(file: &str, text: String) -> String {
    let replace = |text: String, marker: &str, with: &str| -> String {
        let line = text
            .lines()
            .find(|l| l.ends_with(&format!("// head: {marker}")))
            .unwrap_or_else(|| panic!("no line marked {marker}"))
            .to_string();
        text.replace(&line, with)
    };
    match file {
        "src/lib.rs" => {
            let text = format!("// A comment that shifts every line.\n{text}");
            let text = replace(text, "body", "    x.wrapping_mul(37).rotate_left(7)");
            let text = replace(
                text,
                "static table",
                "static TABLE: [u64; 8] = [3, 1, 4, 1, 5, 9, 2, 7];",
            );
            let text = replace(
                text,
                "const table",
                "const CONST_TABLE: [u64; 8] = [2, 7, 1, 8, 2, 8, 1, 9];",
            );
            let text = replace(text, "dyn method", "        self.0 * self.0 * 4");
            let text = replace(text, "generic", "        self.0 + 3");
            let text = replace(text, "ring", "    value: 5,");
            let text = replace(
                text,
                "twin",
                "    x.wrapping_mul(0x9E37_79B9).rotate_left(13) ^ 0x56",
            );
            let text = replace(text, "lazy", "    [1, 1, 2, 4]");
            replace(
                text,
                "input name",
                "    let name = std::str::from_utf8(format!(\"input-{n}.text\").as_bytes()).unwrap().len();",
            )
        }
        "helper/src/lib.rs" => text.replace("wrapping_mul(3)", "wrapping_mul(5)"),
        "data/blob.bin" => text.replace("bytes", "BYTES"),
        "data/generated.txt" => text.replace("41", "43"),
        _ => text,
    }
}

/// Head: base with a comment added at the top of the library (every line below it shifts), and
/// `input_name`'s `format!` rewritten with an inline argument: the same expansion, its
/// `.unwrap()` two columns left (unicode-segmentation's set-up, docs/design/selection-trace.md).
fn comment_only(file: &str, text: String) -> String {
    match file {
        "src/lib.rs" => {
            let (from, to) = (
                "format!(\"input-{}.txt\", n).as_bytes()).unwrap()",
                "format!(\"input-{n}.txt\").as_bytes()).unwrap()",
            );
            assert!(text.contains(from), "{text}");
            format!(
                "// A comment.\n// Another comment.\n{}",
                text.replace(from, to)
            )
        }
        _ => text,
    }
}

/// Head: base with the helper crate's version bumped (in its manifest and in `Cargo.lock`).
fn version_bump(file: &str, text: String) -> String {
    let (from, to) = (
        "name = \"reach-helper\"\nversion = \"0.1.0\"",
        "name = \"reach-helper\"\nversion = \"0.1.1\"",
    );
    match file {
        "helper/Cargo.toml" | "Cargo.lock" => {
            assert!(text.contains(from), "{file}: {text}");
            text.replace(from, to)
        }
        _ => text,
    }
}

/// Base and the heads, built once for every test.
struct Builds {
    base: LinkedCode,
    base_exe: PathBuf,
    comment: LinkedCode,
    changes: LinkedCode,
    bumped: LinkedCode,
    /// The copies: `base`, `comment`, `changes`, `bumped`.
    dir: tempfile::TempDir,
}

fn builds() -> &'static Builds {
    static BUILDS: OnceLock<Builds> = OnceLock::new();
    BUILDS.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let open = |name: &str, edit: &dyn Fn(&str, String) -> String| {
            let workspace = copy_fixture(dir.path(), name, edit);
            let exe = build(&workspace, name, &dir.path().join("bin").join(name));
            let inputs: Vec<PathBuf> = exe
                .relink
                .as_ref()
                .expect("the build keeps what it was linked from")
                .inputs()
                .map(Path::to_path_buf)
                .collect();
            (LinkedCode::open(&exe.path, &inputs).unwrap(), exe.path)
        };
        let (base, base_exe) = open("base", &|_, text| text);
        let (comment, _) = open("comment", &comment_only);
        let (changes, _) = open("changes", &every_change);
        let (bumped, _) = open("bumped", &version_bump);
        Builds {
            base,
            base_exe,
            comment,
            changes,
            bumped,
            dir,
        }
    })
}

/// The demangled name (without hash) of every function of base's executable, with the
/// addresses of its first and last instruction byte: what a trace of it would give.
fn functions_of_base() -> Vec<(String, [u64; 2])> {
    let data = fs::read(&builds().base_exe).unwrap();
    let file = object::File::parse(&*data).unwrap();
    file.symbols()
        .filter(|s| s.kind() == SymbolKind::Text && s.is_definition())
        .map(|s| {
            let name = format!("{:#}", rustc_demangle::demangle(s.name().unwrap()));
            // A symbol without a size (start-up code): its first instruction.
            let last = s.address() + s.size().max(1) - 1;
            (name, [s.address(), last])
        })
        .collect()
}

/// The executed addresses of the functions of base named `names` (each must exist).
fn executed(names: &[&str]) -> BTreeSet<u64> {
    let functions = functions_of_base();
    let mut addresses = BTreeSet::new();
    for name in names {
        let found: Vec<u64> = functions
            .iter()
            .filter(|(n, _)| n == name)
            .flat_map(|(_, range)| *range)
            .collect();
        assert!(!found.is_empty(), "no function {name} in base");
        addresses.extend(found);
    }
    addresses
}

fn compare_with_changes(names: &[&str]) -> CodeComparison {
    let b = builds();
    Comparer::new(&b.base, &b.changes).compare(&executed(names))
}

fn differs(functions: &[&str], data: &[&str]) -> CodeComparison {
    CodeComparison::Differs {
        functions: functions.iter().map(|f| f.to_string()).collect(),
        data: data.iter().map(|d| d.to_string()).collect(),
        unpaired: false,
    }
}

#[test]
fn a_comment_that_shifts_every_line_changes_no_function() {
    let b = builds();
    let every: BTreeSet<u64> = functions_of_base()
        .into_iter()
        .flat_map(|(_, range)| range)
        .collect();
    let compared = Comparer::new(&b.base, &b.comment).compare(&every);
    let CodeComparison::Same {
        functions, data, ..
    } = compared
    else {
        panic!("{compared:?}");
    };
    assert!(
        functions > 500 && data > 100,
        "{functions} functions, {data} data"
    );
}

/// The native probe's breakpoints: every function of base whose code head changed, none when
/// only a comment moved every line.
#[test]
fn the_changed_entries_are_every_changed_function_and_none_for_a_comment() {
    let b = builds();
    assert_eq!(
        Comparer::new(&b.base, &b.comment).changed_entries(),
        Ok(Vec::new())
    );
    let changed = Comparer::new(&b.base, &b.changes)
        .changed_entries()
        .unwrap();
    let names: BTreeSet<&str> = changed.iter().map(|e| e.name.as_str()).collect();
    for expected in [
        "perfdiff_reach_code::body_changes",
        "perfdiff_reach_code::static_table",
        "perfdiff_reach_code::const_table",
        "<perfdiff_reach_code::Circle as perfdiff_reach_code::Shape>::area",
        // The other crate's `#[inline]` helper, inlined into it.
        "perfdiff_reach_code::scaled",
        "perfdiff_reach_code::input_name",
    ] {
        assert!(names.contains(expected), "{expected} not in {names:#?}");
    }
    assert!(
        !names.contains("perfdiff_reach_code::untouched") && !names.contains("kernels::main"),
        "{names:#?}"
    );
    // The twins are one body in base with two names, and only twin_b's partner differs: what
    // is watched is the caller that names twin_b (main), not the body, which a caller of
    // twin_a enters too.
    let start = |name: &str| {
        functions_of_base()
            .into_iter()
            .find(|(n, _)| n == name)
            .map(|(_, range)| range[0])
    };
    let twin = changed
        .iter()
        .find(|e| e.name == "perfdiff_reach_code::twin_b")
        .expect("twin_b is watched");
    assert_eq!(Some(twin.address), start("kernels::main"), "{changed:#?}");
    assert!(
        changed
            .iter()
            .all(|e| Some(e.address) != start("perfdiff_reach_code::twin_a")),
        "{changed:#?}"
    );
    // Each at the start of a function of base, as its symbol table has it.
    let starts: BTreeSet<u64> = functions_of_base()
        .iter()
        .map(|(_, [start, _])| *start)
        .collect();
    assert!(
        changed.iter().all(|e| starts.contains(&e.address)),
        "{changed:#?}"
    );
    eprintln!("{} changed functions: {names:#?}", changed.len());
}

/// A `format!` rewritten with an inline argument (`{}", n` as `{n}"`) expands to the same code;
/// only the column of the panic location of the `.unwrap()` after it moves: the same code. Another
/// name formatted is other data: it differs.
#[test]
fn a_format_rewritten_to_compute_the_same_is_the_same_code_and_one_that_computes_otherwise_differs()
{
    let b = builds();
    let input_name = executed(&["perfdiff_reach_code::input_name"]);
    let rewritten = Comparer::new(&b.base, &b.comment).compare(&input_name);
    assert!(
        matches!(rewritten, CodeComparison::Same { data, .. } if data > 0),
        "{rewritten:?}"
    );
    let CodeComparison::Differs {
        functions, data, ..
    } = compare_with_changes(&["perfdiff_reach_code::input_name"])
    else {
        panic!("another name formatted must differ");
    };
    assert_eq!(functions, ["perfdiff_reach_code::input_name"]);
    assert!(!data.is_empty(), "the name is data: {data:?}");
}

#[test]
fn a_changed_body_differs_and_an_untouched_function_does_not() {
    assert_eq!(
        compare_with_changes(&["perfdiff_reach_code::body_changes"]),
        differs(&["perfdiff_reach_code::body_changes"], &[])
    );
    let untouched = compare_with_changes(&["perfdiff_reach_code::untouched"]);
    assert!(
        matches!(untouched, CodeComparison::Same { functions: 1, .. }),
        "{untouched:?}"
    );
}

#[test]
fn a_caller_is_compared_by_its_own_code_not_by_what_it_calls() {
    // main calls every kernel, changed ones included, but executes only its own code here.
    let main = compare_with_changes(&["kernels::main"]);
    assert!(matches!(main, CodeComparison::Same { .. }), "{main:?}");
}

#[test]
fn a_changed_static_table_or_constant_table_differs_as_data() {
    assert_eq!(
        compare_with_changes(&["perfdiff_reach_code::static_table"]),
        differs(
            &["perfdiff_reach_code::static_table"],
            &["perfdiff_reach_code::TABLE"]
        )
    );
    assert_eq!(
        compare_with_changes(&["perfdiff_reach_code::const_table"]),
        differs(
            &["perfdiff_reach_code::const_table"],
            &["data of perfdiff_reach_code::const_table"]
        )
    );
}

#[test]
fn a_method_reached_through_dyn_differs_and_its_caller_does_not() {
    let circle = "<perfdiff_reach_code::Circle as perfdiff_reach_code::Shape>::area";
    let square = "<perfdiff_reach_code::Square as perfdiff_reach_code::Shape>::area";
    // The caller's code and the vtables it builds are the same (the vtables followed as data,
    // their functions by name)...
    let callers = compare_with_changes(&[
        "perfdiff_reach_code::make_shape",
        "perfdiff_reach_code::via_dyn",
        square,
    ]);
    let CodeComparison::Same {
        functions: 3, data, ..
    } = callers
    else {
        panic!("{callers:?}");
    };
    assert!(data >= 2, "the two vtables are data: {data}");
    // ...and the method the vtable leads to, executed, is the change.
    assert_eq!(
        compare_with_changes(&[
            "perfdiff_reach_code::make_shape",
            "perfdiff_reach_code::via_dyn",
            circle,
            square
        ]),
        differs(&[circle], &[])
    );
}

#[test]
fn of_two_instantiations_of_a_generic_only_the_changed_one_differs() {
    let b = builds();
    let instances: Vec<BTreeSet<u64>> = functions_of_base()
        .into_iter()
        .filter(|(name, _)| name == "perfdiff_reach_code::total")
        .map(|(_, range)| range.into_iter().collect())
        .collect();
    assert_eq!(instances.len(), 2, "{instances:?}");
    let mut comparer = Comparer::new(&b.base, &b.changes);
    let verdicts: Vec<CodeComparison> = instances.iter().map(|i| comparer.compare(i)).collect();
    let same = verdicts
        .iter()
        .filter(|v| matches!(v, CodeComparison::Same { .. }))
        .count();
    assert_eq!(same, 1, "{verdicts:?}");
    assert!(verdicts.contains(&differs(&["perfdiff_reach_code::total"], &[])));
}

#[test]
fn an_inlined_helper_of_another_crate_differs() {
    assert_eq!(
        compare_with_changes(&["perfdiff_reach_code::scaled"]),
        differs(&["perfdiff_reach_code::scaled"], &[])
    );
}

#[test]
fn code_a_build_script_generates_differs_when_its_output_does() {
    let generated = executed(&["perfdiff_reach_code::generated"]);
    let b = builds();
    assert!(matches!(
        Comparer::new(&b.base, &b.comment).compare(&generated),
        CodeComparison::Same { functions: 1, .. }
    ));
    assert_eq!(
        Comparer::new(&b.base, &b.changes).compare(&generated),
        differs(&["perfdiff_reach_code::generated"], &[])
    );
}

#[test]
fn functions_the_compiler_merged_are_each_paired_with_their_own_partner() {
    let functions = functions_of_base();
    let address = |name: &str| {
        functions
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, range)| range[0])
    };
    assert_eq!(
        address("perfdiff_reach_code::twin_a"),
        address("perfdiff_reach_code::twin_b"),
        "base's twins are one function with two names"
    );
    // Head's twin_b is a function of its own: the merged address is twin_a's (the same) and
    // twin_b's (changed) at once.
    assert_eq!(
        compare_with_changes(&["perfdiff_reach_code::twin_a"]),
        differs(&["perfdiff_reach_code::twin_b"], &[])
    );
}

#[test]
fn included_bytes_that_change_differ_as_data() {
    let compared = compare_with_changes(&["perfdiff_reach_code::blob_sum"]);
    let CodeComparison::Differs {
        functions, data, ..
    } = &compared
    else {
        panic!("{compared:?}");
    };
    assert_eq!(functions, &["perfdiff_reach_code::blob_sum"]);
    assert_eq!(data.len(), 1, "{compared:?}");
}

#[test]
fn statics_that_point_to_each_other_are_compared_through_the_cycle() {
    let b = builds();
    let ring = executed(&["perfdiff_reach_code::ring"]);
    let same = Comparer::new(&b.base, &b.comment).compare(&ring);
    assert!(
        matches!(
            same,
            CodeComparison::Same {
                functions: 1,
                data: 2,
                ..
            }
        ),
        "{same:?}"
    );
    let changed = Comparer::new(&b.base, &b.changes).compare(&ring);
    let CodeComparison::Differs {
        functions, data, ..
    } = &changed
    else {
        panic!("{changed:?}");
    };
    assert_eq!(functions, &["perfdiff_reach_code::ring"]);
    assert!(
        data == &["perfdiff_reach_code::RING_A"] || data == &["perfdiff_reach_code::RING_B"],
        "{changed:?}"
    );
}

#[test]
fn an_address_no_symbol_covers_is_unknown() {
    let b = builds();
    let outside = BTreeSet::from([1u64]);
    let compared = Comparer::new(&b.base, &b.comment).compare(&outside);
    assert!(
        matches!(&compared, CodeComparison::Unknown { reason } if reason.contains("0x1")),
        "{compared:?}"
    );
}

#[test]
fn a_function_of_a_dependency_whose_version_changed_has_no_partner() {
    let b = builds();
    let checksum = executed(&["reach_helper::checksum"]);
    assert!(matches!(
        Comparer::new(&b.base, &b.changes).compare(&checksum),
        CodeComparison::Same { functions: 1, .. }
    ));
    assert_eq!(
        Comparer::new(&b.base, &b.bumped).compare(&checksum),
        CodeComparison::Differs {
            functions: vec!["reach_helper::checksum".into()],
            data: vec![],
            unpaired: true,
        }
    );
    // What the record then says: the bump, read from the two builds' lock files.
    let bumps = versions::changed(&b.dir.path().join("base"), &b.dir.path().join("bumped"));
    assert_eq!(
        versions::explanation(&bumps),
        "the package version of `reach-helper` changed (0.1.0 → 0.1.1), so its functions have \
         new symbol hashes and cannot be paired"
    );
    assert_eq!(
        versions::changed(&b.dir.path().join("base"), &b.dir.path().join("comment")),
        vec![]
    );
}

#[test]
fn a_lazily_initialised_static_differs_when_its_initialiser_is_executed() {
    // Reading it: the same code; its initialiser is a function pointer in the static, by name.
    assert!(matches!(
        compare_with_changes(&["perfdiff_reach_code::lazy_sum"]),
        CodeComparison::Same { .. }
    ));
    // The traced process runs the initialiser too (the closure, inlined into the `FnOnce` shim
    // that makes it a function pointer): that is the change.
    let shim = "core::ops::function::FnOnce::call_once";
    assert_eq!(
        compare_with_changes(&["perfdiff_reach_code::lazy_sum", shim]),
        differs(&[shim], &[])
    );
}

#[test]
fn a_plt_stub_is_its_import() {
    let b = builds();
    let data = fs::read(&b.base_exe).unwrap();
    let file = object::File::parse(&*data).unwrap();
    let plt = object::Object::section_by_name(&file, ".plt").expect("lld writes a .plt");
    let address = object::ObjectSection::address(&plt);
    let entries = object::ObjectSection::size(&plt) / 16;
    assert!(entries >= 2, "the resolver and at least one import");
    let stubs: BTreeSet<u64> = (0..entries).map(|i| address + 16 * i + 3).collect();
    let compared = Comparer::new(&b.base, &b.comment).compare(&stubs);
    assert_eq!(
        compared,
        CodeComparison::Same {
            functions: entries as usize,
            data: 0,
            alike: Vec::new(),
            set_aside: Vec::new(),
        }
    );
}

#[test]
fn of_every_function_only_the_changed_ones_differ() {
    let b = builds();
    let every: BTreeSet<u64> = functions_of_base()
        .into_iter()
        .flat_map(|(_, range)| range)
        .collect();
    assert_eq!(
        Comparer::new(&b.base, &b.changes).compare(&every),
        differs(
            &[
                "<perfdiff_reach_code::Circle as perfdiff_reach_code::Shape>::area",
                "core::ops::function::FnOnce::call_once",
                "perfdiff_reach_code::blob_sum",
                "perfdiff_reach_code::body_changes",
                "perfdiff_reach_code::const_table",
                "perfdiff_reach_code::generated",
                "perfdiff_reach_code::input_name",
                "perfdiff_reach_code::ring",
                "perfdiff_reach_code::scaled",
                "perfdiff_reach_code::static_table",
                "perfdiff_reach_code::total",
                "perfdiff_reach_code::twin_b",
            ],
            &[
                "data of perfdiff_reach_code::blob_sum",
                "data of perfdiff_reach_code::const_table",
                "data of perfdiff_reach_code::input_name",
                "perfdiff_reach_code::RING_B",
                "perfdiff_reach_code::TABLE",
            ]
        )
    );
}

/// A copy of `fixtures/criterion-demo` as `name`, built, its code opened.
fn criterion_demo(
    dir: &Path,
    name: &str,
    edit: &dyn Fn(&str, String) -> String,
) -> (LinkedCode, PathBuf) {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/criterion-demo");
    let destination = dir.join(name);
    for file in ["Cargo.toml", "Cargo.lock", "src/lib.rs", "benches/demo.rs"] {
        let to = destination.join(file);
        fs::create_dir_all(to.parent().unwrap()).unwrap();
        let text = fs::read_to_string(source.join(file)).unwrap();
        fs::write(to, edit(file, text)).unwrap();
    }
    let exe = build(&destination, name, &dir.join("bin").join(name));
    let inputs: Vec<PathBuf> = exe
        .relink
        .as_ref()
        .unwrap()
        .inputs()
        .map(Path::to_path_buf)
        .collect();
    (LinkedCode::open(&exe.path, &inputs).unwrap(), exe.path)
}

/// Criterion, with a bench crate of several codegen units whose local functions ThinLTO promotes
/// with a suffix that is a hash of their module (`.llvm.<digits>`): a change anywhere in the
/// module changes every suffix, and the functions are still paired without it.
#[test]
fn a_criterion_bench_crate_s_thin_lto_suffixes_do_not_unpair_its_functions() {
    let dir = tempfile::tempdir().unwrap();
    let (base, base_exe) = criterion_demo(dir.path(), "base", &|_, text| text);
    // A comment that shifts every line, and one changed line in `mix`.
    let (head, _) = criterion_demo(dir.path(), "head", &|file, text| {
        if file == "src/lib.rs" {
            format!("// A comment.\n{text}").replace("x ^= x >> 29;", "x ^= x >> 31;")
        } else {
            text
        }
    });
    let data = fs::read(&base_exe).unwrap();
    let file = object::File::parse(&*data).unwrap();
    let functions: Vec<_> = file
        .symbols()
        .filter(|s| s.kind() == SymbolKind::Text && s.is_definition())
        .collect();
    assert!(
        functions
            .iter()
            .any(|s| s.name().unwrap().contains(".llvm.")),
        "no function has ThinLTO's suffix: the test would not test it"
    );
    let every: BTreeSet<u64> = functions
        .iter()
        .flat_map(|s| [s.address(), s.address() + s.size().max(1) - 1])
        .collect();
    // `mix` is inlined into each benchmark's closure, in criterion's `Bencher::iter`; nothing
    // else of criterion's thousands of functions differs.
    assert_eq!(
        Comparer::new(&base, &head).compare(&every),
        differs(&["criterion::bencher::Bencher<M>::iter"], &[])
    );
}

/// The address of the first `cpuid` (`0f a2`) in base's function `name` (demangled, no hash).
#[cfg(target_arch = "x86_64")]
fn cpuid_in(name: &str) -> u64 {
    let data = fs::read(&builds().base_exe).unwrap();
    let file = object::File::parse(&*data).unwrap();
    let symbol = file
        .symbols()
        .find(|s| format!("{:#}", rustc_demangle::demangle(s.name().unwrap())) == name)
        .unwrap_or_else(|| panic!("no function {name} in base"));
    let section = file
        .section_by_index(symbol.section_index().unwrap())
        .unwrap();
    let bytes = section
        .data_range(symbol.address(), symbol.size())
        .unwrap()
        .unwrap();
    let at = bytes.windows(2).position(|w| w == [0x0f, 0xa2]).unwrap();
    symbol.address() + at as u64
}

#[test]
#[cfg(target_arch = "x86_64")]
fn code_that_reads_the_cpu_s_features_is_said_to_need_a_probe_where_valgrind_hides_some() {
    // What a trace of `by_cpu` under valgrind gives: its own code and std's detection, which
    // runs `cpuid`. Natively, on a CPU with AVX-512F, it takes the branch the trace did not.
    let b = builds();
    let mut run = executed(&["perfdiff_reach_code::by_cpu"]);
    run.insert(cpuid_in("std_detect::detect::cache::detect_and_initialize"));
    // A benchmark's code is the same: its native probe, which stops at every changed function,
    // runs the branch the CPU chooses (a changed function entered natively only:
    // `selection_e2e::a_changed_function_the_trace_does_not_enter_is_found_by_the_native_probe`).
    let compared = Comparer::new(&b.base, &b.comment).compare(&run);
    assert!(
        matches!(compared, CodeComparison::Same { .. }),
        "{compared:?}"
    );
    // A command's program is probed natively only where valgrind hides features: why.
    let why = Comparer::new(&b.base, &b.comment).cpu_dependent(&run);
    if features_valgrind_hides().is_empty() {
        assert_eq!(why, None);
    } else {
        let reason = why.unwrap();
        assert!(
            reason.contains("cpuid") && reason.contains("valgrind hides"),
            "{reason}"
        );
    }
}

/// A build of one code layout relinks nothing, so selection by reach has no objects to compare
/// its code by: the build records that cause, and selection's reason names it rather than
/// every cause it could be.
#[test]
fn a_build_of_one_code_layout_records_why_it_kept_no_objects() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = copy_fixture(dir.path(), "one-layout", &|_, text| text);
    let options = BuildOptions {
        layouts: 1,
        ..BuildOptions::default()
    };
    let exes = build_benches(
        &workspace,
        "one-layout",
        &shared_target_dir(),
        &dir.path().join("bin"),
        &options,
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(exes.len(), 1, "{exes:?}");
    assert!(exes[0].relink.is_none());
    assert_eq!(
        exes[0].relink_missing.as_deref(),
        Some(cargo_perfdiff::steps::build::ONE_LAYOUT)
    );
}
