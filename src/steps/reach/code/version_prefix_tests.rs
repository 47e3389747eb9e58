//! Symbols a build script names after the package's version ([`super::identity`]'s
//! `CheckoutPaths::renamed`): rustc builds of both sides, as ring builds its C and assembly.
//!
//! Why real builds: what the comparison pairs is the objects' symbols and the relocations that
//! name them, which only a compiler and an assembler write.

use std::collections::BTreeSet;
use std::path::Path;

use super::test_builds::{addresses, built};
use super::{CodeComparison, Comparer, LinkedCode};
use crate::steps::reach::versions::VersionChange;

/// An assembly function and a static named with the prefix `PREFIX` stands for (ring's
/// `ring_core_0_17_14_`, from its `links` key, which its build script checks against the
/// version), and Rust code that calls and reads them through `link_name`, as ring's
/// `prefixed_extern!` does. `BODY` is the function's one instruction before `ret`.
const APP: &str = r#"std::arch::global_asm!(
    ".globl demo_core_PREFIX_double", ".type demo_core_PREFIX_double,@function",
    "demo_core_PREFIX_double:", "    BODY", "    ret",
    ".size demo_core_PREFIX_double, .-demo_core_PREFIX_double",
);
unsafe extern "C" {
    #[link_name = "demo_core_PREFIX_double"]
    fn double(x: u32) -> u32;
}
#[unsafe(export_name = "demo_core_PREFIX_scale")]
pub static SCALE: u32 = 1;
#[inline(never)] #[unsafe(no_mangle)]
pub extern "C" fn app() -> u32 {
    unsafe { double(std::hint::black_box(21)) * std::ptr::read_volatile(&SCALE) }
}
fn main() { std::process::exit(app() as i32 - 42) }
"#;

/// [`APP`] with version `version` in its names and `body`, built in `dir`.
fn side(dir: &Path, version: &str, body: &str) -> (LinkedCode, std::path::PathBuf) {
    let prefix = version.replace('.', "_");
    let source = APP.replace("PREFIX", &prefix).replace("BODY", body);
    built(dir, "main", &source, &[], &[])
}

/// The addresses of `app` and of the assembly function it calls.
fn executed(executable: &Path) -> BTreeSet<u64> {
    let ran = |name: &str| name == "app" || name.ends_with("_double");
    addresses(executable, ran).into_iter().collect()
}

#[test]
#[cfg(target_arch = "x86_64")]
fn symbols_a_version_bump_renames_are_paired_and_compared() {
    let dir = tempfile::tempdir().unwrap();
    let at = |name: &str| dir.path().join(name);
    let (base, base_exe) = side(&at("base"), "0.9.0", "lea eax, [rdi + rdi]");
    let executed = executed(&base_exe);
    assert_eq!(executed.len(), 2);
    let bump = [VersionChange {
        package: "demo".into(),
        base: "0.9.0".into(),
        head: "0.10.0".into(),
    }];
    let compare = |head: &LinkedCode, versions: &[VersionChange]| {
        Comparer::new(&base, head)
            .with_checkouts(&at("base"), &at("head"), versions)
            .compare(&executed)
    };
    // The release: every prefixed name is the new version's, the code the same.
    let (head, _) = side(&at("head"), "0.10.0", "lea eax, [rdi + rdi]");
    assert!(
        matches!(compare(&head, &bump), CodeComparison::Same { .. }),
        "{:?}",
        compare(&head, &bump)
    );
    // Unless the version changed, other names are other functions.
    assert!(matches!(
        compare(&head, &[]),
        CodeComparison::Differs { unpaired: true, .. }
    ));
    // Renamed and changed: the assembly function's code is compared, and differs.
    let (changed, _) = side(&at("changed"), "0.10.0", "lea eax, [rdi + rdi*2]");
    assert!(matches!(
        compare(&changed, &bump),
        CodeComparison::Differs {
            unpaired: false,
            ..
        }
    ));
}
