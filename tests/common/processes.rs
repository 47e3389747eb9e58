//! Finding processes through /proc, to check that forks leave nothing running behind them.
//!
//! Declared once per test binary (`#[path = "common/processes.rs"] mod processes;` in its root
//! file), used from its modules with `use crate::processes;`. A test gives its fork a unique
//! environment variable ([`marker`]); every process of the fork's tree inherits it, so
//! [`alive_with_marker`] finds them all, whatever their pids.
#![allow(dead_code)]

use std::ffi::OsString;
use std::fs;

/// A unique `NAME=value` pair to put in a fork's environment.
pub fn marker(label: &str) -> (OsString, OsString) {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    (
        "PERFDIFF_TEST_MARKER".into(),
        format!("{label}-{}-{nanos}", std::process::id()).into(),
    )
}

/// Pids of live (not zombie) processes whose environment holds `marker`.
pub fn alive_with_marker(marker: &(OsString, OsString)) -> Vec<u32> {
    let needle = [
        marker.0.as_encoded_bytes(),
        b"=",
        marker.1.as_encoded_bytes(),
    ]
    .concat();
    let Ok(entries) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| is_alive(pid))
        .filter(|&pid| {
            fs::read(format!("/proc/{pid}/environ"))
                .is_ok_and(|environ| environ.split(|&b| b == 0).any(|var| var == needle))
        })
        .collect()
}

/// True if `pid` exists and is not a zombie (a zombie is dead; only its parent has not reaped it,
/// which for an orphan in a container may never happen).
pub fn is_alive(pid: u32) -> bool {
    let Ok(stat) = fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    // The state follows the parenthesised command name, which may itself contain spaces.
    let state = stat
        .rsplit_once(')')
        .and_then(|(_, rest)| rest.split_whitespace().next());
    !matches!(state, Some("Z") | Some("X") | None)
}
