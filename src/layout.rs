//! Code layouts: the same code of a bench target, linked in other orders.
//!
//! Why: a benchmark's speed depends on where its code sits (function order, alignment, which
//! functions share a cache line or a branch-predictor slot), not only on what the code does. One
//! executable is one sample of layout (Curtsinger & Berger, STABILIZER, ASPLOS 2013), and a
//! change anywhere in a crate moves code it never touches, so a comparison of two executables
//! compares two layouts as well as two versions of the code (`docs/layout.md`). Measuring each
//! revision in several layouts lets the analysis see how far a benchmark moves from layout alone.
//!
//! Layout 0 is cargo's own build, the executable the user's `cargo bench` makes. Layout `k ≥ 1`
//! is the same bench target relinked by
//! `cargo rustc --profile bench --bench T -p ID -- -C link-arg=-Wl,--shuffle-sections=*=k`:
//! the extra arguments of `cargo rustc` change no crate's `-C metadata` and no code (the symbol
//! names, and with them codegen-unit partitioning and inlining, stay those of layout 0, as
//! `tests/layouts.rs` checks), only the order in which the linker places the input sections; and
//! with one section per function (rustc's default) that is the function order. Cargo keeps each
//! variant as a unit of its own, so it is built once per source and seed and reused, and a crate
//! whose source is the same on both sides gets byte-identical executables in every layout.
//!
//! `--shuffle-sections` is an option of LLVM's lld (rust-lld, the default linker on x86_64 Linux
//! since Rust 1.90); a linker that rejects it leaves the target with layout 0 alone, and the run
//! says so. The seeds are fixed (layout `k` is seed `k`; lld takes 0 for a random seed), so every
//! run of a commit measures the same layouts and reuses their builds.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use crate::build::{BenchArtifact, BuildEvent, BuildOptions, CargoBuild};

/// The `-C` argument that makes layout `layout` (at least 1) of a bench executable.
pub fn shuffle_link_arg(layout: usize) -> String {
    format!("link-arg=-Wl,--shuffle-sections=*={layout}")
}

/// Relinks the bench executables of one build: the cargo that built them and its options.
pub struct Relinker<'a> {
    pub(crate) cargo: &'a CargoBuild<'a>,
    pub opts: &'a BuildOptions,
}

impl Relinker<'_> {
    /// Builds layout `layout` of `artifact` and returns the executable cargo made (in the target
    /// directory), or why it could not: the one-line reason of cargo or the linker.
    pub fn relink(
        &self,
        artifact: &BenchArtifact,
        layout: usize,
        on_event: &mut dyn FnMut(BuildEvent),
    ) -> Result<PathBuf, String> {
        let mut args: Vec<String> = ["rustc", "--profile", "bench", "--message-format=json"]
            .map(String::from)
            .to_vec();
        args.extend(
            [
                "--package",
                &artifact.package_id,
                "--bench",
                &artifact.target,
            ]
            .map(String::from),
        );
        args.extend(self.opts.feature_args());
        args.extend(["--".to_string(), "-C".to_string(), shuffle_link_arg(layout)]);
        let command = self.cargo.cargo(&args);
        let (parsed, stderr_tail, status) =
            crate::build::run_cargo(command, self.cargo.workspace_dir, on_event)
                .map_err(|e| e.to_string())?;
        let built = parsed
            .benches
            .iter()
            .find(|b| b.package_id == artifact.package_id && b.target == artifact.target);
        match built {
            Some(built) if status.success() => Ok(built.executable.clone()),
            _ => Err(failure_reason(&parsed.errors(), &stderr_tail)),
        }
    }
}

/// The line that says why a relink failed: the linker's or rustc's error, else cargo's last word.
fn failure_reason(errors: &str, stderr_tail: &[String]) -> String {
    let interesting = |line: &&str| {
        let line = line.trim();
        !line.is_empty() && !line.starts_with("= note: \"") && !line.starts_with("-->")
    };
    let from_linker = errors
        .lines()
        .find(|line| line.contains("unknown argument") || line.contains("unrecognized option"));
    from_linker
        .or_else(|| errors.lines().find(interesting))
        .or_else(|| stderr_tail.iter().map(String::as_str).rfind(interesting))
        .map(|line| {
            let line = line.trim();
            let line = line.strip_prefix("= note:").unwrap_or(line).trim();
            line.strip_prefix("error:")
                .unwrap_or(line)
                .trim()
                .to_string()
        })
        .unwrap_or_else(|| "cargo rustc failed without a message".to_string())
}

/// Where layout `layout` of an executable named `file_name` is kept in a revision's bin
/// directory.
pub fn kept_path(bin_dir: &Path, layout: usize, file_name: &OsStr) -> PathBuf {
    bin_dir.join(format!("layout-{layout}")).join(file_name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_k_is_seed_k_never_lld_s_random_zero() {
        assert_eq!(shuffle_link_arg(3), "link-arg=-Wl,--shuffle-sections=*=3");
    }

    #[test]
    fn the_reason_is_the_linker_s_complaint_when_there_is_one() {
        let errors = "error: linking with `cc` failed: exit status: 1\n  |\n  = note: \"cc\" \"-m64\"\n  = note: ld: unrecognized option '--shuffle-sections=*=1'\n";
        assert_eq!(
            failure_reason(errors, &[]),
            "ld: unrecognized option '--shuffle-sections=*=1'"
        );
        assert_eq!(
            failure_reason("", &["error: no bench target named `x`".to_string()]),
            "no bench target named `x`"
        );
        assert_eq!(
            failure_reason("", &[]),
            "cargo rustc failed without a message"
        );
    }
}
