//! C's `assert` lines ([`super::assert_failure`]): real builds of a small C file on both sides,
//! with the `cc` crate's flags (`-O2`, a section per function, no `NDEBUG`).
//!
//! Why real builds: where the compiler puts a failed assertion's block (in the function's
//! section, or a `.cold` part of its own), and how it loads the call's arguments, is the
//! compiler's, and only a real build shows it (CRoaring's amalgamation, field-trials.md
//! `cr-c441`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::test_builds::address;
use super::{CodeComparison, Comparer, LinkedCode, assert_failure::SET_ASIDE};

/// A C program: `noted` prints its own line through `printf` (which returns), `checked` asserts
/// `x < LIMIT` and scales by `SCALE`; `top` and `middle` are lines put above each of them.
fn c_source(top: &str, middle: &str, limit: &str, scale: &str) -> String {
    format!(
        "{top}#include <assert.h>\n#include <stdio.h>\n\
         __attribute__((noinline)) int noted(int x) {{ if (x == 12345) printf(\"%d\\n\", __LINE__); return x; }}\n\
         {middle}__attribute__((noinline)) int checked(int x) {{\n\
         \x20   assert(x > 0);\n\
         \x20   assert(x < {limit});\n\
         \x20   return x * {scale} + 1;\n\
         }}\n\
         int main(int argc, char **argv) {{ (void)argv; return (checked(argc + 5) + noted(argc)) & 1; }}\n"
    )
}

/// `source` compiled in `dir` as the `cc` crate compiles a C file, and linked: the code (with
/// the object) and the executable.
fn c_side(dir: &Path, source: &str) -> (LinkedCode, PathBuf) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("main.c"), source).unwrap();
    let cc = |args: &[&str]| {
        let status = std::process::Command::new("cc")
            .current_dir(dir)
            .args(args)
            .status()
            .unwrap();
        assert!(status.success(), "cc {args:?} in {}", dir.display());
    };
    cc(&[
        "-O2",
        "-ffunction-sections",
        "-fdata-sections",
        "-fPIC",
        "-c",
        "main.c",
        "-o",
        "main.o",
    ]);
    cc(&["main.o", "-o", "main"]);
    let executable = dir.join("main");
    let code = LinkedCode::open(&executable, &[dir.join("main.o")]).unwrap();
    (code, executable)
}

#[test]
#[cfg(target_arch = "x86_64")]
fn an_assert_s_line_alone_is_set_aside_and_any_other_change_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let side = |name: &str, source: String| c_side(&dir.path().join(name), &source);
    let (base, base_exe) = side("base", c_source("", "", "1000000", "1000003"));
    let function = |name: &str| address(&base_exe, name, |found| found == name);
    let checked = BTreeSet::from([function("checked")]);
    let both = BTreeSet::from([function("checked"), function("noted")]);
    let compare =
        |head: &LinkedCode, executed: &BTreeSet<u64>| Comparer::new(&base, head).compare(executed);
    // Blank lines above `checked`: its assertions pass other lines to `__assert_fail`, nothing
    // else differs.
    let (moved, _) = side("moved", c_source("", "\n\n\n", "1000000", "1000003"));
    match compare(&moved, &both) {
        CodeComparison::Same { set_aside, .. } => {
            assert_eq!(set_aside, vec![SET_ASIDE.to_string()]);
        }
        other => panic!("{other:?}"),
    }
    // The same source: nothing set aside.
    let (again, _) = side("again", c_source("", "", "1000000", "1000003"));
    let same = compare(&again, &both);
    assert!(
        matches!(&same, CodeComparison::Same { set_aside, .. } if set_aside.is_empty()),
        "{same:?}"
    );
    // Moved, and the assertion's condition or a constant of the function changed (each of the
    // same width): the code differs.
    let differs = |name: &str| CodeComparison::Differs {
        functions: vec![name.into()],
        data: Vec::new(),
        unpaired: false,
    };
    let (condition, _) = side("condition", c_source("", "\n\n\n", "2000000", "1000003"));
    assert_eq!(compare(&condition, &checked), differs("checked"));
    let (scale, _) = side("scale", c_source("", "\n\n\n", "1000000", "1000033"));
    assert_eq!(compare(&scale, &checked), differs("checked"));
    // A line passed to a function that returns (`printf`) is no assertion's: `noted` differs.
    let (top, _) = side("top", c_source("\n\n\n", "", "1000000", "1000003"));
    assert_eq!(compare(&top, &both), differs("noted"));
}
