//! `cargo perfdiff` / `cargo-perfdiff`: a thin shell over [`cargo_perfdiff::cli::main`].

fn main() {
    std::process::exit(cargo_perfdiff::cli::main());
}
