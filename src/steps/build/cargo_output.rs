//! What cargo reports, in the forms both the build (`cargo.rs`) and the workspace's questions
//! (`workspace.rs`) read it: a bench executable it built, a target it failed to build, and its
//! multi-line messages made one line.
//!
//! Why a file of its own: the build asks the workspace which packages it selects, and the
//! workspace reads what the build reported (the targets it built, the targets that failed); kept
//! here, below both, neither imports the other in a circle.

use std::path::PathBuf;

/// A target cargo reported an error for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailedTarget {
    /// Cargo's package id.
    pub package_id: String,
    pub target: String,
    pub is_bench: bool,
    /// Whether one of its errors was E0554: `#![feature]` on a stable toolchain.
    pub needs_nightly: bool,
    /// Its first error in one line: headline and location.
    pub first_error: String,
    /// How many errors rustc reported for it.
    pub errors: usize,
}

/// A bench executable as cargo reported it (before it is copied).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BenchArtifact {
    /// Cargo's package id (`path+file:///…#name@version`).
    pub package_id: String,
    /// Bench target name.
    pub target: String,
    pub executable: PathBuf,
    pub manifest_path: PathBuf,
    /// The target's root source file.
    pub src_path: PathBuf,
}

/// Cargo's multi-line error as one line: its first line, and its innermost cause when different
/// (`error: failed to parse manifest at `…` (caused by: invalid type: integer `3`, …)`). An
/// error without a `Caused by:` chain is one message written over several lines, and keeps
/// them all: cargo's "current package believes it's in a workspace when it's not:" names the
/// package and the workspace on the lines after it, and its last line is advice, not a cause
/// (hyperium/http's `benches/`, field-trials.md, session 18: only the first and last lines
/// were kept, so the paths and "adding `benches` to the `workspace.members` array" were lost,
/// and the advice to add it to `workspace.exclude`, where it already was, read as the cause).
/// A quoted source snippet (` --> Cargo.toml:1:9`, `1 | text`, `  |   ^`) becomes its
/// location. A `help:` line is advice, not a cause, and keeps its word (rustup's "toolchain
/// '1.74.0-…' is not installed (help: run `rustup toolchain install` to install it)", for a
/// `rust-toolchain.toml` that names one); a backtrace after the message (rustup's under
/// `RUST_BACKTRACE=1`) is no part of it, or its last frame, `12: <unknown>`, was given as the
/// cause.
pub(super) fn one_line(message: &str) -> String {
    let lines: Vec<&str> = message
        .lines()
        .map(str::trim)
        .take_while(|l| !is_backtrace_start(l))
        .filter(|l| !l.is_empty() && *l != "Caused by:")
        .collect();
    let location = lines
        .iter()
        .find_map(|l| l.strip_prefix("-->"))
        .map(str::trim);
    let (help, prose): (Vec<&str>, Vec<&str>) = lines
        .iter()
        .copied()
        .filter(|l| !is_snippet_line(l))
        .partition(|l| l.starts_with("help:"));
    let chained = message.lines().any(|l| l.trim() == "Caused by:");
    let mut text = match (prose.first(), prose.last()) {
        (Some(first), Some(last)) if chained && first != last => {
            format!("{first} (caused by: {last})")
        }
        (Some(_), _) => prose.join(" "),
        _ => message.trim().to_string(),
    };
    if let Some(help) = help.first() {
        text = format!("{text} ({help})");
    }
    match location {
        Some(location) if !text.contains(location) => format!("{text} (at {location})"),
        _ => text,
    }
}

/// The line a backtrace printed after an error begins with: anyhow's (`Stack backtrace:`) or
/// a panic's (`stack backtrace:`).
fn is_backtrace_start(line: &str) -> bool {
    line.eq_ignore_ascii_case("stack backtrace:")
}

/// A line of a quoted source snippet in a diagnostic: `--> file:line:col`, `|`, `12 | text`.
pub(super) fn is_snippet_line(line: &str) -> bool {
    line.starts_with("-->")
        || line.starts_with('|')
        || line.split_once('|').is_some_and(|(number, _)| {
            !number.trim().is_empty() && number.trim().chars().all(|c| c.is_ascii_digit())
        })
}
