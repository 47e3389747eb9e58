//! libtest's table of benchmarks ([`super::libtest_table`]): rustc builds of a libtest bench
//! crate on both sides.
//!
//! Why real builds: what `rustc --test` compiles the descriptors into (their layout, where the
//! name and file strings go, what points to the benchmark's function) is the compiler's, and
//! only a real build shows it (smol-rs/fastrand v2.4.0 → v2.5.0, docs/design/selection-trace.md).

use std::collections::BTreeSet;
use std::path::Path;

use super::test_builds::{address, built};
use super::{CodeComparison, Comparer, LinkedCode, libtest_table::SET_ASIDE};

/// A libtest bench crate: two benchmarks after `above` (lines of the file before them), the
/// first with `attributes` besides `#[bench]` and named `first`.
fn bench_source(above: &str, attributes: &str, first: &str) -> String {
    format!(
        "#![feature(test)]\nextern crate test;\nuse test::{{black_box, Bencher}};\n{above}\
         #[inline(never)]\nfn work(n: u64) -> u64 {{ (0..n).fold(0, |a, x| a ^ x.wrapping_mul(31)) }}\n\
         #[bench]\n{attributes}fn {first}(b: &mut Bencher) {{ b.iter(|| work(black_box(100))) }}\n\
         #[bench]\nfn beta_longer(b: &mut Bencher) {{ b.iter(|| work(black_box(200))) }}\n"
    )
}

/// Builds `source` as `bench.rs` in `dir` with `rustc -O --test` (nightly's libtest through
/// `RUSTC_BOOTSTRAP`, as a bench target on stable is built), keeping its object. Returns the code
/// and the executable's path.
fn bench_side(dir: &Path, source: &str) -> (LinkedCode, std::path::PathBuf) {
    built(
        dir,
        "bench",
        source,
        &[("RUSTC_BOOTSTRAP", "1")],
        &["--test"],
    )
}

/// The address of `bench::main`, the `main` `rustc --test` generates, in `executable`.
fn generated_main(executable: &Path) -> BTreeSet<u64> {
    let main = address(executable, "bench::main", |name| {
        name.contains("5bench4main")
    });
    BTreeSet::from([main])
}

#[test]
#[cfg(target_arch = "x86_64")]
fn a_libtest_table_whose_benchmarks_moved_down_is_set_aside_and_any_other_change_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let side = |name: &str, source: String| bench_side(&dir.path().join(name), &source);
    let (base, base_exe) = side("base", bench_source("", "", "alpha"));
    let above = "// A comment\n// of three lines\n// above every benchmark.\n";
    let (moved, _) = side("moved", bench_source(above, "", "alpha"));
    let main = generated_main(&base_exe);
    // Lines added above the benchmarks: their descriptors hold other lines, nothing else.
    match Comparer::new(&base, &moved).compare(&main) {
        CodeComparison::Same { set_aside, .. } => {
            assert_eq!(set_aside, vec![SET_ASIDE.to_string()]);
        }
        other => panic!("{other:?}"),
    }
    // The same table on both sides: nothing set aside.
    let (again, _) = side("again", bench_source("", "", "alpha"));
    let same = Comparer::new(&base, &again).compare(&main);
    assert!(
        matches!(&same, CodeComparison::Same { set_aside, .. } if set_aside.is_empty()),
        "{same:?}"
    );
    // Moved, and a benchmark ignored, or renamed (to a name of the same width): changed data.
    let differs = CodeComparison::Differs {
        functions: vec!["bench::main".into()],
        data: vec!["data of bench::main".into()],
        unpaired: false,
    };
    for (name, attributes, first) in [
        ("ignored", "#[ignore]\n", "alpha"),
        ("renamed", "", "gamma"),
    ] {
        let (head, _) = side(name, bench_source(above, attributes, first));
        assert_eq!(
            Comparer::new(&base, &head).compare(&main),
            differs,
            "{name}"
        );
    }
}
