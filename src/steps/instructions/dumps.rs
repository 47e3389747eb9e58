//! The profile files one callgrind run leaves in its output directory.
//!
//! Every process valgrind ran writes `callgrind.out.PID` at its end, and with `--dump-after`
//! one `callgrind.out.PID.N` for each dump, numbered from 1 in the order they were taken. A
//! process forked and not yet `exec`ed (criterion probing for gnuplot, a `Command::spawn`) is
//! still under valgrind and writes an (empty) profile of its own, hence the grouping by process.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// File name prefix of every profile (`--callgrind-out-file=DIR/callgrind.out.%p`).
pub const PREFIX: &str = "callgrind.out.";

/// The profiles of one process: its numbered dumps in order, and the one written at its end.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProcessProfiles {
    pub pid: u32,
    pub dumps: Vec<PathBuf>,
    pub at_exit: Option<PathBuf>,
}

/// The `--callgrind-out-file` value that puts every process's profiles into `dir`.
pub fn out_file_option(dir: &Path) -> String {
    format!("--callgrind-out-file={}/{PREFIX}%p", dir.display())
}

/// The dumps of the first process in `dir` (in pid order) that wrote any: the benchmark's, when
/// the harness counts inside one process (a shell in front of it writes none).
pub fn first_with_dumps(dir: &Path) -> std::io::Result<Option<ProcessProfiles>> {
    Ok(by_process(dir)?.into_iter().find(|p| !p.dumps.is_empty()))
}

/// The profiles in `dir`, by process (in pid order).
pub fn by_process(dir: &Path) -> std::io::Result<Vec<ProcessProfiles>> {
    // By pid: the numbered dumps, and the profile written at exit.
    type Files = (Vec<(u32, PathBuf)>, Option<PathBuf>);
    let mut processes: BTreeMap<u32, Files> = BTreeMap::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        let Some(rest) = name.strip_prefix(PREFIX) else {
            continue;
        };
        let mut parts = rest.split('.');
        let Some(pid) = parts.next().and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        let slot = processes.entry(pid).or_default();
        match parts.next() {
            None => slot.1 = Some(path.clone()),
            Some(n) => {
                if let Ok(n) = n.parse::<u32>() {
                    slot.0.push((n, path.clone()));
                }
            }
        }
    }
    Ok(processes
        .into_iter()
        .map(|(pid, (mut dumps, at_exit))| {
            dumps.sort();
            ProcessProfiles {
                pid,
                dumps: dumps.into_iter().map(|(_, path)| path).collect(),
                at_exit,
            }
        })
        .collect())
}

/// The trigger callgrind wrote into a profile (`desc: Trigger: --dump-after=F`), or `None`.
pub fn trigger(text: &str) -> Option<&str> {
    text.lines()
        .take_while(|line| !line.starts_with("fn=") && !line.starts_with("ob="))
        .find_map(|line| line.strip_prefix("desc: Trigger:"))
        .map(str::trim)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_are_grouped_by_process_and_dumps_ordered_by_number() {
        let dir = tempfile::tempdir().unwrap();
        for name in [
            "callgrind.out.41",
            "callgrind.out.41.1",
            "callgrind.out.41.10",
            "callgrind.out.41.2",
            "callgrind.out.7",
            "valgrind.log",
        ] {
            std::fs::write(dir.path().join(name), "").unwrap();
        }
        let processes = by_process(dir.path()).unwrap();
        assert_eq!(processes.len(), 2);
        assert_eq!(processes[0].pid, 7);
        assert!(processes[0].dumps.is_empty());
        let names: Vec<_> = processes[1]
            .dumps
            .iter()
            .map(|p| p.file_name().unwrap().to_str().unwrap().to_string())
            .collect();
        assert_eq!(
            names,
            [
                "callgrind.out.41.1",
                "callgrind.out.41.2",
                "callgrind.out.41.10"
            ]
        );
        assert!(processes[1].at_exit.is_some());
    }

    #[test]
    fn the_trigger_of_a_dump_is_read_from_its_header() {
        let text = "version: 1\ndesc: I1 cache: \ndesc: Trigger: --dump-after=<std::time::Instant>::now\n\npositions: line\nevents: Ir\nfn=(1) f\n0 3\n";
        assert_eq!(
            trigger(text),
            Some("--dump-after=<std::time::Instant>::now")
        );
        assert_eq!(trigger("events: Ir\nfn=f\ndesc: Trigger: late\n"), None);
    }
}
