//! `perfdiff-exec`: cargo-perfdiff's measuring helper as a program of its own (started by
//! `cargo-perfdiff` beside which it is installed; not meant to be run by hand).
//!
//! Why a second executable: a program's peak memory, as `wait4` reads it, starts from the pages
//! of the process that forked it (Linux keeps the high-water RSS across `exec`). The helper
//! forks every measured program, so its own written pages are the floor of every command's
//! peak. Inside cargo-perfdiff's large image that floor is about 1.9 MiB of relocated data in a
//! debug build; this program links only the helper's code and forks from a few hundred KiB, as
//! GNU time does (docs/commands.md, "Why a helper process measures memory").

fn main() {
    let code = cargo_perfdiff::steps::fork::exec_helper::run_if_asked().unwrap_or_else(|| {
        eprintln!(
            "perfdiff-exec: this is cargo-perfdiff's measuring helper; run `cargo perfdiff` instead"
        );
        2
    });
    std::process::exit(code);
}
