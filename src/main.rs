//! `cargo perfdiff` / `cargo-perfdiff`: a thin shell over [`cargo_perfdiff::cli::main`].

fn main() {
    // First, before anything else runs: the process may be the small helper that runs one
    // execution of a command (its peak memory must not include ours).
    if let Some(code) = cargo_perfdiff::steps::fork::exec_helper::run_if_asked() {
        std::process::exit(code);
    }
    // Or the helper that runs a benchmark under ptrace for selection's native probe.
    if let Some(code) = cargo_perfdiff::steps::reach::probe::run_if_asked() {
        std::process::exit(code);
    }
    // Or the compiler wrapper that normalises a build (cargo runs it for every crate).
    if let Some(code) = cargo_perfdiff::steps::build::normalize::run_if_asked() {
        std::process::exit(code);
    }
    // Started by rustup's proxy: each checkout builds with its own toolchain, as the user's
    // build there would (before any thread starts: it changes the environment).
    cargo_perfdiff::steps::build::toolchain::resolve_per_checkout();
    if let Ok(executable) = std::env::current_exe() {
        cargo_perfdiff::steps::build::normalize::enable(executable);
    }
    std::process::exit(cargo_perfdiff::cli::main());
}
