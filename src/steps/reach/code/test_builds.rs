//! Real rustc builds for the comparison's tests, and the addresses of their symbols.
//!
//! Why one place: the tests of renamed symbols, version strings, libtest's table and fat-LTO
//! copies each build small crates on two sides with rustc and open what it wrote; each had its
//! own copy of the command and of the symbol lookup.

use std::path::{Path, PathBuf};

use object::{Object, ObjectSymbol};

use super::LinkedCode;

/// Runs `rustc -O --edition 2021` in `dir` with `args` and the environment `env`.
pub(super) fn rustc_with(dir: &Path, env: &[(&str, &str)], args: &[&str]) {
    let status = std::process::Command::new("rustc")
        .current_dir(dir)
        .envs(env.iter().copied())
        .args(["-O", "--edition", "2021"])
        .args(args)
        .status()
        .unwrap();
    assert!(status.success(), "rustc {args:?} in {}", dir.display());
}

/// Runs `rustc -O --edition 2021` in `dir` with `args`.
pub(super) fn rustc(dir: &Path, args: &[&str]) {
    rustc_with(dir, &[], args);
}

/// `source` written to `dir/<stem>.rs` and built there in one codegen unit, its object kept,
/// with `args` and `env` besides: the code (with that object) and the executable's path.
pub(super) fn built(
    dir: &Path,
    stem: &str,
    source: &str,
    env: &[(&str, &str)],
    args: &[&str],
) -> (LinkedCode, PathBuf) {
    std::fs::create_dir_all(dir).unwrap();
    let file = format!("{stem}.rs");
    std::fs::write(dir.join(&file), source).unwrap();
    let mut all = vec!["-C", "codegen-units=1", "--emit=obj,link"];
    all.extend(args);
    all.push(&file);
    rustc_with(dir, env, &all);
    let executable = dir.join(stem);
    let object = dir.join(format!("{stem}.o"));
    let code = LinkedCode::open(&executable, &[object]).unwrap();
    (code, executable)
}

/// The addresses of `executable`'s symbols whose name `wanted` accepts, in the symbol table's
/// order.
pub(super) fn addresses(executable: &Path, wanted: impl Fn(&str) -> bool) -> Vec<u64> {
    let data = std::fs::read(executable).unwrap();
    let file = object::File::parse(&*data).unwrap();
    file.symbols()
        .filter(|s| s.name().is_ok_and(&wanted))
        .map(|s| s.address())
        .collect()
}

/// The first of [`addresses`]; panics naming `what` when no symbol is accepted.
pub(super) fn address(executable: &Path, what: &str, wanted: impl Fn(&str) -> bool) -> u64 {
    let found = addresses(executable, wanted);
    *found
        .first()
        .unwrap_or_else(|| panic!("no symbol {what} in {}", executable.display()))
}
