//! Code that passes its package's version on ([`super::identity`]'s `version_read`): rustc
//! builds of both sides, `env!("CARGO_PKG_VERSION")` set as cargo sets it.
//!
//! Why real builds: whether the string's length lands in the code as an immediate, and where
//! the string goes, is the compiler's (uutils/coreutils 0.9.0 → 0.10.0: `uu_wc::uu_app` passes
//! `"(uutils coreutils) 0.9.0"`, 23 bytes, to clap, 24 in head).

use std::collections::BTreeSet;
use std::path::Path;

use super::test_builds::{address, built};
use super::{CodeComparison, Comparer, LinkedCode};
use crate::steps::reach::versions::VersionChange;

/// `app` passes the banner with the package's version to a function it does not inline, as
/// `uu_app` passes it to clap's `Command::version`.
/// (`shown` exported, so that the optimiser cannot specialise it for the one string.)
const APP: &str = "#[inline(never)] #[unsafe(no_mangle)]\n\
    pub fn shown(text: &str) -> usize { std::hint::black_box(text).len() }\n\
    #[inline(never)] #[unsafe(no_mangle)]\n\
    pub extern \"C\" fn app() -> usize { shown(concat!(\"(demo BANNER) \", env!(\"CARGO_PKG_VERSION\"))) }\n\
    fn main() { std::process::exit(app() as i32) }\n";

/// [`APP`] with `banner` built in `dir` as package version `version`.
fn side(dir: &Path, banner: &str, version: &str) -> (LinkedCode, std::path::PathBuf) {
    let source = APP.replace("BANNER", banner);
    built(dir, "main", &source, &[("CARGO_PKG_VERSION", version)], &[])
}

fn app_address(executable: &Path) -> BTreeSet<u64> {
    BTreeSet::from([address(executable, "app", |name| name == "app")])
}

#[test]
#[cfg(target_arch = "x86_64")]
fn code_that_passes_a_version_of_another_length_on_says_it_reads_the_version() {
    let dir = tempfile::tempdir().unwrap();
    let at = |name: &str| dir.path().join(name);
    let (base, base_exe) = side(&at("base"), "banner", "0.9.0");
    let executed = app_address(&base_exe);
    let bump = [VersionChange {
        package: "demo".into(),
        base: "0.9.0".into(),
        head: "0.10.0".into(),
    }];
    let compare = |head: &LinkedCode| {
        Comparer::new(&base, head)
            .with_checkouts(&at("base"), &at("head"), &bump)
            .compare(&executed)
    };
    let differs = |data: &[&str]| CodeComparison::Differs {
        functions: vec!["app".into()],
        data: data.iter().map(|d| d.to_string()).collect(),
        unpaired: false,
    };
    // The release: `app`'s code holds the length of another string, which holds the version.
    let (head, _) = side(&at("head"), "banner", "0.10.0");
    assert_eq!(
        compare(&head),
        differs(&["data of app (it holds the version of `demo`, 0.9.0 → 0.10.0)"])
    );
    // Another banner of another length, the version unchanged: its code alone.
    let (other, _) = side(&at("other"), "banners", "0.9.0");
    assert_eq!(compare(&other), differs(&[]));
}
