//! Copies renamed by a fat-LTO link ([`super::objects::lto_stem`]): rustc builds of both sides.
//!
//! Why real builds: the counter LLVM's IR linker appends is what a fat-LTO build of an
//! unchanged dependency renumbers (rust-lexical #210, docs/design/selection-trace.md), and
//! only a real link shows which of its symbols carry it and what refers to them.

use std::collections::BTreeSet;
use std::path::Path;

use super::test_builds::{address, rustc};
use super::{CodeComparison, Comparer, LinkedCode};

/// The address of the first symbol whose name contains `part` in `executable`.
fn address_of(executable: &Path, part: &str) -> u64 {
    address(executable, part, |name| name.contains(part))
}

/// One side in `dir`: `vt.o`, assembled from `asm` by rustc, and `main.rs`, whose `reads` reads
/// the table `_ZN3dep5TABLE17h0123456789abcdefE` that `asm` defines. Returns the code and the
/// executable's path.
#[cfg(target_arch = "x86_64")]
fn asm_side(dir: &Path, asm: &str) -> (LinkedCode, std::path::PathBuf) {
    std::fs::create_dir_all(dir).unwrap();
    let quoted: Vec<String> = asm.lines().map(|l| format!("{l:?}")).collect();
    let vt = format!(
        "std::arch::global_asm!({}, options(att_syntax));\n",
        quoted.join(", ")
    );
    std::fs::write(dir.join("vt.rs"), vt).unwrap();
    let main = "unsafe extern \"C\" { #[link_name = \"_ZN3dep5TABLE17h0123456789abcdefE\"] \
                static TABLE: [usize; 1]; }\n\
                #[inline(never)] #[unsafe(no_mangle)] pub extern \"C\" fn reads() -> usize { \
                unsafe { core::ptr::read_volatile(&raw const TABLE[0]) } }\n\
                fn main() { std::process::exit(reads() as i32) }\n";
    std::fs::write(dir.join("main.rs"), main).unwrap();
    rustc(
        dir,
        &["--crate-type=lib", "--emit=obj", "-o", "vt.o", "vt.rs"],
    );
    rustc(
        dir,
        &[
            "-C",
            "codegen-units=1",
            "--emit=obj,link",
            "-C",
            "link-arg=vt.o",
            "main.rs",
        ],
    );
    let executable = dir.join("main");
    let inputs = [dir.join("main.o"), dir.join("vt.o")];
    (LinkedCode::open(&executable, &inputs).unwrap(), executable)
}

/// The assembly of a table (as a vtable holds a function) that points to the local function
/// `name`, whose code is `body`.
fn table_to(name: &str, body: &str) -> String {
    format!(
        ".section .text.{name},\"ax\",@progbits\n.type {name},@function\n{name}:\n{body}\n\
         ret\n.size {name},.-{name}\n\
         .section .data.rel.ro.table,\"aw\",@progbits\n.p2align 3\n\
         .globl _ZN3dep5TABLE17h0123456789abcdefE\n.hidden _ZN3dep5TABLE17h0123456789abcdefE\n\
         .type _ZN3dep5TABLE17h0123456789abcdefE,@object\n\
         .size _ZN3dep5TABLE17h0123456789abcdefE,8\n_ZN3dep5TABLE17h0123456789abcdefE:\n\
         .quad {name}\n.text"
    )
}

const DROP: &str = "_ZN4core3ptr13drop_in_place17h00112233aabbccddE";

#[test]
#[cfg(target_arch = "x86_64")]
fn data_pointing_to_a_copy_renumbered_by_a_fat_lto_link_is_compared_by_that_copy_s_content() {
    let dir = tempfile::tempdir().unwrap();
    let side = |name: &str, function: &str, body: &str| {
        asm_side(&dir.path().join(name), &table_to(function, body))
    };
    let (base, base_exe) = side("base", &format!("{DROP}.2228"), "xor %eax, %eax");
    let (head, _) = side("head", &format!("{DROP}.2295"), "xor %eax, %eax");
    let (plain, _) = side("plain", DROP, "xor %eax, %eax");
    let (other, _) = side("other", &format!("{DROP}.2295"), "mov $1, %eax");
    let reads = BTreeSet::from([address_of(&base_exe, "reads")]);
    let same = |head: &LinkedCode, executed: &BTreeSet<u64>| {
        matches!(
            Comparer::new(&base, head).compare(executed),
            CodeComparison::Same { .. }
        )
    };
    // The table of `reads` points to the same code under another counter, or under the name
    // without one: the same data.
    assert!(
        same(&head, &reads),
        "{:?}",
        Comparer::new(&base, &head).compare(&reads)
    );
    assert!(same(&plain, &reads));
    // The copy it points to holds other code: the table is changed data.
    assert_eq!(
        Comparer::new(&base, &other).compare(&reads),
        CodeComparison::Differs {
            functions: vec!["reads".into()],
            data: vec!["dep::TABLE".into()],
            unpaired: false,
        }
    );
    // The renamed copy itself executed: paired with head's copy of that name by content.
    let copy = BTreeSet::from([address_of(&base_exe, &format!("{DROP}.2228"))]);
    assert!(
        same(&head, &copy),
        "{:?}",
        Comparer::new(&base, &head).compare(&copy)
    );
    assert!(!same(&other, &copy));
}

/// One side of the fat-LTO build in `dir`: `dep.rs` as an rlib (with its bitcode, as cargo
/// builds a registry crate), and `main.rs` linked with `-C lto=fat`, its one object kept.
fn lto_side(dir: &Path, dep: &str, main: &str) -> (LinkedCode, std::path::PathBuf) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("dep.rs"), dep).unwrap();
    std::fs::write(dir.join("main.rs"), main).unwrap();
    rustc(dir, &["--crate-type=rlib", "dep.rs"]);
    rustc(
        dir,
        &[
            "-C",
            "lto=fat",
            "--emit=obj,link",
            "--extern",
            "dep=libdep.rlib",
            "main.rs",
        ],
    );
    let executable = dir.join("main");
    let code = LinkedCode::open(&executable, &[dir.join("main.o")]).unwrap();
    (code, executable)
}

/// A dependency whose `describe` boxes a `String` as `dyn Display` and formats it: its data
/// holds the vtable of `String` as `fmt::Write`, which points to the dependency's own copies of
/// `write_str` and `write_char`, renamed when the fat-LTO link meets them after another's.
const DEP: &str = "use std::fmt;\n\
    #[inline(never)]\n\
    pub fn describe(n: usize) -> usize {\n\
        let b: Box<dyn fmt::Display> = std::hint::black_box(Box::new(\"one string the dependency repeats, of forty\".repeat(n)));\n\
        b.to_string().len()\n\
    }\n";

const MAIN: &str = "fn main() {\n\
        let n = dep::describe(std::env::args().count());\n\
        println!(\"{}\", \"y\".repeat(n));\n\
    }\n";

/// `MAIN` with a function that has nothing to do with `describe`.
const MAIN_UNRELATED: &str = "#[inline(never)]\n\
    fn unrelated(n: u64) -> u64 {\n\
        let v: Vec<u64> = (0..n).collect();\n\
        v.iter().sum()\n\
    }\n\
    fn main() {\n\
        let n = dep::describe(std::env::args().count());\n\
        println!(\"{}{}\", \"y\".repeat(n), unrelated(3));\n\
    }\n";

#[test]
#[cfg(target_arch = "x86_64")]
fn a_dependency_s_data_renumbered_by_an_unrelated_change_under_fat_lto_is_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let side = |name: &str, dep: &str, main: &str| lto_side(&dir.path().join(name), dep, main);
    let (base, base_exe) = side("base", DEP, MAIN);
    let (head, _) = side("head", DEP, MAIN_UNRELATED);
    let (other, _) = side("other", &DEP.replace("forty", "fifty"), MAIN_UNRELATED);
    let describe = BTreeSet::from([address_of(&base_exe, "3dep8describe")]);
    let compared = Comparer::new(&base, &head).compare(&describe);
    assert!(
        matches!(compared, CodeComparison::Same { .. }),
        "{compared:?}"
    );
    // What `describe` repeats is other data: changed.
    assert_eq!(
        Comparer::new(&base, &other).compare(&describe),
        CodeComparison::Differs {
            functions: vec!["dep::describe".into()],
            data: vec!["data of dep::describe".into()],
            unpaired: false,
        }
    );
}
