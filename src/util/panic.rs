//! A panic in a process's output, for one-line messages.
//!
//! Why one reader: a failed listing ([`crate::steps::discover`]) and a failed trace
//! ([`crate::steps::reach::trace`]) both quote the panic a benchmark printed, which is what a
//! user acts on ("it exited with 101" alone names nothing).

/// The panic that output `tail` holds: its first `panicked at` line and the line after it (the
/// message, since Rust 1.73), on one line; `None` without one.
pub fn message(tail: &str) -> Option<String> {
    let lines: Vec<&str> = tail.lines().collect();
    let at = lines.iter().position(|l| l.contains("panicked at"))?;
    Some(lines[at..(at + 2).min(lines.len())].join(" "))
}
