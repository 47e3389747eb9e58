//! A bench process started by perfdiff gets the variables `cargo bench` would give it: checked
//! against cargo itself, on a small crate whose build script sets a variable and names library
//! directories, and whose `.cargo/config.toml` has an `[env]` table.

use std::fs;
use std::path::Path;
use std::process::Command;

use cargo_perfdiff::steps::build::{
    BuildOptions, build_benches, dylib_search_variable, fork_environment,
};

/// Variables the bench prints, one `NAME=value` line each (`NAME unset` when absent).
const PRINTED: &[&str] = &[
    "FROM_SCRIPT",
    "FROM_CONFIG",
    "FORCED",
    "DATA_DIR",
    "SHADOWED",
    "CARGO_PKG_NAME",
    "CARGO_MANIFEST_DIR",
];

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// A crate with a build script, an `[env]` table and a plain bench that prints [`PRINTED`],
/// whether `OUT_DIR` is a directory, and which of the script's library directories are on the
/// library search path.
fn env_crate(dir: &Path) {
    write(
        &dir.join("Cargo.toml"),
        "[package]\nname = \"env-probe\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
         [[bench]]\nname = \"probe\"\nharness = false\n",
    );
    // Two library directories: its own OUT_DIR (inside the target directory, which cargo puts on
    // the library search path) and one outside it (which cargo leaves to the system).
    write(
        &dir.join("build.rs"),
        "fn main() {\n    println!(\"cargo:rustc-env=FROM_SCRIPT=script-value\");\n    \
         println!(\"cargo:rustc-env=SHADOWED=script-value\");\n    \
         let out = std::env::var(\"OUT_DIR\").unwrap();\n    \
         println!(\"cargo:rustc-link-search=native={out}\");\n    \
         println!(\"cargo:rustc-link-search=native=/nonexistent/outside-lib\");\n}\n",
    );
    write(&dir.join("src/lib.rs"), "");
    let names = PRINTED
        .iter()
        .map(|n| format!("{n:?}"))
        .collect::<Vec<_>>()
        .join(", ");
    let search = dylib_search_variable();
    write(
        &dir.join("benches/probe.rs"),
        &format!(
            "fn main() {{\n    for name in [{names}] {{\n        match std::env::var(name) {{\n            \
             Ok(value) => println!(\"{{name}}={{value}}\"),\n            \
             Err(_) => println!(\"{{name}} unset\"),\n        }}\n    }}\n    \
             let out_dir = std::env::var(\"OUT_DIR\").unwrap_or_default();\n    \
             println!(\"OUT_DIR is a directory: {{}}\", std::path::Path::new(&out_dir).is_dir());\n    \
             let search = std::env::var_os({search:?}).unwrap_or_default();\n    \
             let dirs: Vec<_> = std::env::split_paths(&search).collect();\n    \
             println!(\"OUT_DIR on the library path: {{}}\", dirs.contains(&out_dir.into()));\n    \
             println!(\"outside dir on the library path: {{}}\", \
             dirs.contains(&\"/nonexistent/outside-lib\".into()));\n}}\n"
        ),
    );
    write(
        &dir.join(".cargo/config.toml"),
        "[env]\nFROM_CONFIG = \"config-value\"\n\
         FORCED = { value = \"forced-value\", force = true }\n\
         DATA_DIR = { value = \"fixtures/data\", relative = true }\n\
         SHADOWED = \"config-value\"\n",
    );
}

fn stdout_of(command: &mut Command) -> String {
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "{command:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn a_bench_process_gets_the_environment_cargo_bench_gives_it() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("ws");
    env_crate(&workspace);
    let target = dir.path().join("target");

    let exes = build_benches(
        &workspace,
        "head (HEAD)",
        &target,
        &dir.path().join("bin"),
        &BuildOptions::default(),
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(exes.len(), 1, "{exes:?}");
    let exe = &exes[0];
    let ours = stdout_of(
        Command::new(&exe.path)
            .current_dir(&exe.package_root)
            .envs(fork_environment(exe, &target)),
    );
    let cargos = stdout_of(
        Command::new(env!("CARGO"))
            .args(["bench", "-q", "--bench", "probe"])
            .current_dir(&workspace)
            .env("CARGO_TARGET_DIR", &target),
    );

    assert_eq!(ours, cargos);
    // Not vacuous: every variable is set, each by the source that wins under cargo.
    let expected = [
        "FROM_SCRIPT=script-value".to_string(),
        "FROM_CONFIG=config-value".to_string(),
        "FORCED=forced-value".to_string(),
        format!("DATA_DIR={}", workspace.join("fixtures/data").display()),
        "SHADOWED=script-value".to_string(),
        "CARGO_PKG_NAME=env-probe".to_string(),
        format!("CARGO_MANIFEST_DIR={}", workspace.display()),
        "OUT_DIR is a directory: true".to_string(),
        "OUT_DIR on the library path: true".to_string(),
        "outside dir on the library path: false".to_string(),
    ];
    assert_eq!(ours.lines().collect::<Vec<_>>(), expected);
}
