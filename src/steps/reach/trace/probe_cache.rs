//! Native probes' outcomes kept beside the traces ([`super::cache`]), so that `--list` and the
//! comparison after it, or the same comparison run again, do not probe again: a probe runs for a
//! fork's length, and one still settling for several seconds more (chrono's listing spent 73 s
//! probing, and its comparison right after 73 s again).
//!
//! What an outcome depends on, and so its key: the content of base's executable (the probe runs
//! it); the entries its breakpoints were set at (addresses and names), and the timed routines'
//! with the entries that count only inside them; the fork as the probe ran it (benchmark,
//! harness, working directory, added environment, warm-up, measurement, sample size, time limit,
//! criterion's home), which fixes its command line; the steady-state settings that decide
//! whether it runs again with a longer warm-up; what is at each path of the project (checkout,
//! build output) its trace touched, as a kept trace checks them ([`super::inputs`]): a file's
//! content, a directory's listing, whether a path only asked about is there; and
//! [`PROBE_VERSION`] with this program's version. A kept trace holds the same paths beside its
//! key and is reused only while they are as they were; a probe's outcome has them in its key.
//!
//! Only an outcome is kept: a changed function entered (which), or a run as long as a fork that
//! entered none. A failure is not, and the next run probes again. The machine's load is not in
//! the key: a kept "not reached" was a run judged to cover an undisturbed fork's.
//!
//! Also kept, apart: that a benchmark's probe must run alone ([`KeptAlone`]), because an earlier
//! probe saw it set its own CPU affinity or was too busy beside another probe. Its key
//! ([`alone_key`]) is only the benchmark (its id, harness and executable's file name), not its
//! code: a benchmark that pins itself does so in the next commit too (simd-json's every
//! benchmark), and a stale one only costs time, its probe running alone as a fork runs.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::cache::{fields_digest, run_fields};
use super::inputs::{Seen, benchmark_reads_content};
use super::{Access, Trace, TraceCache, executable_digest};
use crate::steps::fork::ForkRequest;
use crate::steps::reach::code::ChangedEntry;
use crate::steps::reach::probe::{PROBE_VERSION, Timed};

/// A probe's outcome as kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KeptProbe {
    /// It entered this changed function (demangled).
    Reached { name: String },
    /// It ran as long as a fork without entering one that counts; `settling`: it did so in a
    /// second run with the longest warm-up, its first still settling; `outside`: the changed
    /// functions it entered outside every timed routine, whose source decides
    /// ([`crate::steps::reach::probe::Probe::NotReached`]).
    NotReached {
        settling: bool,
        #[serde(default)]
        outside: Vec<String>,
    },
}

/// Why a benchmark's probe runs alone, kept from an earlier run
/// (`orchestrate::run::reach_probe`): in words, for the log ("it set its own CPU affinity: CPU
/// 0", "it was too busy beside another probe").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeptAlone {
    pub why: String,
}

/// The key under which [`KeptAlone`] is kept for the benchmark of `request`: its id, harness and
/// executable's file name (the build's normalised metadata hash, the same in another checkout),
/// with [`PROBE_VERSION`].
pub fn alone_key(request: &ForkRequest) -> String {
    let version = PROBE_VERSION.to_le_bytes();
    let file_name = request.executable.file_name().unwrap_or_default();
    let fields: [&[u8]; 5] = [
        b"native probe alone",
        &version,
        request.benchmark_id.as_bytes(),
        request.harness.name().as_bytes(),
        file_name.as_encoded_bytes(),
    ];
    fields_digest(fields)
}

/// The paths of the project a benchmark's trace touched, and how: what its probe's outcome
/// depends on besides its code; and whether the trace saw it set its own CPU affinity, which
/// only schedules its probe (alone from the start) and is not in the key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TouchedFiles {
    paths: Vec<(PathBuf, Access)>,
    sets_affinity: bool,
}

impl TouchedFiles {
    /// The paths under `project` (the checkout, the build's directories) that `trace` touched,
    /// but `executable`, whose content the key holds anyway.
    pub fn of(trace: &Trace, project: &[PathBuf], executable: &Path) -> Self {
        let touched = trace.files.iter().filter(|(path, _)| {
            path.as_path() != executable && project.iter().any(|dir| path.starts_with(dir))
        });
        TouchedFiles {
            paths: touched.map(|(p, a)| (p.clone(), *a)).collect(),
            sets_affinity: trace.sets_affinity,
        }
    }

    /// Whether the trace saw the benchmark set a thread's CPU affinity ([`Trace::sets_affinity`]):
    /// it pins itself, and its probe beside another's may share its CPU with it.
    pub fn sets_affinity(&self) -> bool {
        self.sets_affinity
    }
}

/// One benchmark's probe, as its key holds it.
pub struct ProbeInputs<'a> {
    /// The fork as the probe runs it.
    pub request: &'a ForkRequest,
    pub entries: &'a [ChangedEntry],
    pub timed: &'a Timed,
    /// The steady-state settings that decide whether it runs a second time, in words.
    pub settling: &'a str,
    pub files: &'a TouchedFiles,
}

/// The keys of one executable's probes: its digest, computed once, and what was found at the
/// paths their benchmarks touched, each read once (several benchmarks read the same input).
pub struct ProbeKeys {
    executable: PathBuf,
    digest: String,
    found: Seen,
}

impl ProbeKeys {
    /// The keys of the probes of `executable` (base's), its content digested now.
    pub fn new(executable: &Path) -> std::io::Result<Self> {
        Ok(ProbeKeys {
            executable: executable.to_path_buf(),
            digest: executable_digest(executable)?,
            found: Seen::default(),
        })
    }

    /// The key of `probe`'s outcome; `None` (not kept) when a path it touched cannot be read
    /// or it runs another executable.
    pub fn key(&self, probe: &ProbeInputs<'_>) -> Option<String> {
        let req = probe.request;
        if req.executable != self.executable {
            return None;
        }
        let version = PROBE_VERSION.to_le_bytes();
        let nanos = |d: std::time::Duration| d.as_nanos().to_le_bytes().to_vec();
        let mut fields: Vec<Vec<u8>> = vec![
            b"native probe".to_vec(),
            version.to_vec(),
            env!("CARGO_PKG_VERSION").as_bytes().to_vec(),
            self.digest.as_bytes().to_vec(),
            req.harness.name().as_bytes().to_vec(),
            nanos(req.warm_up),
            nanos(req.measurement),
            nanos(req.timeout),
            (req.sample_size as u64).to_le_bytes().to_vec(),
            req.criterion_home.as_os_str().as_encoded_bytes().to_vec(),
            probe.settling.as_bytes().to_vec(),
        ];
        fields.extend(run_fields(req).map(<[u8]>::to_vec));
        for list in [
            probe.entries,
            &probe.timed.routines,
            &probe.timed.same_outside,
        ] {
            fields.extend(entry_fields(list));
        }
        fields.extend(self.file_fields(probe.files)?);
        Some(fields_digest(fields.iter().map(Vec::as_slice)))
    }

    /// `files` as key fields: their count, then each path and what is there (a file's digest,
    /// a directory's listing's; for a path only looked for or written, whether it is there).
    fn file_fields(&self, files: &TouchedFiles) -> Option<Vec<Vec<u8>>> {
        let mut fields = vec![(files.paths.len() as u64).to_le_bytes().to_vec()];
        for (path, access) in &files.paths {
            // Only whether something is there counts for a path it looked for or only wrote.
            let found = match (self.found.at(path)?, benchmark_reads_content(*access)) {
                (None, _) => "\0nothing".to_string(),
                (Some(_), false) => "\0there".to_string(),
                (Some(found), true) => found,
            };
            fields.push(path.as_os_str().as_encoded_bytes().to_vec());
            fields.push(found.into_bytes());
        }
        Some(fields)
    }
}

/// `entries` as key fields: their count, then each address and name, in address order.
fn entry_fields(entries: &[ChangedEntry]) -> Vec<Vec<u8>> {
    let mut sorted: Vec<&ChangedEntry> = entries.iter().collect();
    sorted.sort_by(|a, b| (a.address, &a.name).cmp(&(b.address, &b.name)));
    let mut fields = vec![(sorted.len() as u64).to_le_bytes().to_vec()];
    for entry in sorted {
        fields.push(entry.address.to_le_bytes().to_vec());
        fields.push(entry.name.as_bytes().to_vec());
    }
    fields
}

impl TraceCache {
    /// The outcome kept under `key` ([`ProbeKeys::key`]), if one can be read.
    pub fn kept_probe(&self, key: &str) -> Option<KeptProbe> {
        let bytes = std::fs::read(self.probe_path(key)).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    /// Keeps `outcome` under `key`; one that cannot be written only costs the next run a probe.
    pub fn keep_probe(&self, key: &str, outcome: &KeptProbe) {
        let _ = self.keep(&self.probe_path(key), outcome);
    }

    fn probe_path(&self, key: &str) -> PathBuf {
        self.dir.join(format!("probe-{key}.json"))
    }

    /// Why the benchmark under `key` ([`alone_key`]) is probed alone, if an earlier run said so.
    pub fn kept_alone(&self, key: &str) -> Option<KeptAlone> {
        let bytes = std::fs::read(self.alone_path(key)).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    /// Keeps that the benchmark under `key` is probed alone, and why; one that cannot be written
    /// only costs the next run a probe beside others.
    pub fn keep_alone(&self, key: &str, alone: &KeptAlone) {
        let _ = self.keep(&self.alone_path(key), alone);
    }

    fn alone_path(&self, key: &str) -> PathBuf {
        self.dir.join(format!("alone-{key}.json"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn request(executable: &Path) -> ForkRequest {
        ForkRequest {
            executable: executable.to_path_buf(),
            cwd: "/ck".into(),
            env: vec![("CARGO_PKG_NAME".into(), "demo".into())],
            benchmark_id: "hash/steady".into(),
            harness: crate::model::harness::Harness::default(),
            warm_up: Duration::from_millis(100),
            measurement: Duration::from_millis(200),
            sample_size: 10,
            harness_sample_size: None,
            timeout: Duration::from_secs(60),
            criterion_home: "/ck/target/perfdiff/criterion-home/probe".into(),
            cpu: None,
            command: None,
        }
    }

    fn entry(address: u64, name: &str) -> ChangedEntry {
        ChangedEntry {
            address,
            name: name.into(),
        }
    }

    /// The parts of one probe's key that tests change one at a time.
    struct Probe {
        request: ForkRequest,
        entries: Vec<ChangedEntry>,
        timed: Timed,
        settling: String,
        files: TouchedFiles,
    }

    impl Probe {
        fn key(&self, keys: &ProbeKeys) -> Option<String> {
            keys.key(&ProbeInputs {
                request: &self.request,
                entries: &self.entries,
                timed: &self.timed,
                settling: &self.settling,
                files: &self.files,
            })
        }
    }

    fn probe(exe: &Path, input: &Path) -> Probe {
        Probe {
            request: request(exe),
            entries: vec![entry(0x2000, "demo::mix"), entry(0x1000, "demo::checksum")],
            timed: Timed::default(),
            settling: "window 5 threshold 0.02".into(),
            files: TouchedFiles {
                paths: vec![(input.to_path_buf(), Access::Opened)],
                sets_affinity: false,
            },
        }
    }

    #[test]
    fn an_outcome_is_kept_by_the_executable_s_content_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let cache = TraceCache::new(dir.path().join("traces"));
        let (exe, input) = (dir.path().join("bench"), dir.path().join("input.txt"));
        std::fs::write(&exe, b"base's executable").unwrap();
        std::fs::write(&input, b"corpus").unwrap();
        let key = probe(&exe, &input).key(&ProbeKeys::new(&exe).unwrap());
        let key = key.unwrap();
        assert_eq!(cache.kept_probe(&key), None);
        let reached = KeptProbe::Reached {
            name: "demo::mix".into(),
        };
        cache.keep_probe(&key, &reached);
        assert_eq!(cache.kept_probe(&key), Some(reached));
        // The same content elsewhere: the same key.
        let copy = dir.path().join("copy");
        std::fs::copy(&exe, &copy).unwrap();
        let mut moved = probe(&copy, &input);
        assert_eq!(
            moved.key(&ProbeKeys::new(&copy).unwrap()),
            Some(key.clone())
        );
        // Entries in another order are the same set.
        moved.entries.reverse();
        assert_eq!(
            moved.key(&ProbeKeys::new(&copy).unwrap()),
            Some(key.clone())
        );
        // Another executable than the keys were made for: not kept.
        assert_eq!(moved.key(&ProbeKeys::new(&exe).unwrap()), None);
        // Rebuilt: another key.
        std::fs::write(&exe, b"base's executable, rebuilt").unwrap();
        let rebuilt = probe(&exe, &input).key(&ProbeKeys::new(&exe).unwrap());
        assert_ne!(rebuilt, Some(key));
    }

    /// What a change of one input is, and the change.
    type Change = (&'static str, Box<dyn Fn(&mut Probe)>);

    #[test]
    fn every_input_of_a_probe_is_in_its_key() {
        let dir = tempfile::tempdir().unwrap();
        let (exe, input) = (dir.path().join("bench"), dir.path().join("input.txt"));
        std::fs::write(&exe, b"base's executable").unwrap();
        std::fs::write(&input, b"corpus").unwrap();
        // Fresh keys each time: what is at a path is read once per set of keys.
        let key = |probe: &Probe| probe.key(&ProbeKeys::new(&exe).unwrap()).unwrap();
        let first = key(&probe(&exe, &input));
        let changes: Vec<Change> = vec![
            (
                "an entry's address",
                Box::new(|p| p.entries[0].address += 1),
            ),
            ("an entry's name", Box::new(|p| p.entries[0].name += "2")),
            (
                "one entry more",
                Box::new(|p| p.entries.push(entry(3, "f"))),
            ),
            ("one entry fewer", Box::new(|p| drop(p.entries.pop()))),
            (
                "a timed routine",
                Box::new(|p| p.timed.routines.push(entry(9, "iter"))),
            ),
            (
                "an entry counted only inside it",
                Box::new(|p| p.timed.same_outside.push(entry(0x2000, "demo::mix"))),
            ),
            ("the benchmark", Box::new(|p| p.request.benchmark_id += "2")),
            ("the directory", Box::new(|p| p.request.cwd.push("sub"))),
            (
                "the environment",
                Box::new(|p| p.request.env.push(("SIZE".into(), "9".into()))),
            ),
            ("the warm-up", Box::new(|p| p.request.warm_up *= 2)),
            (
                "the measurement time",
                Box::new(|p| p.request.measurement *= 2),
            ),
            ("the sample size", Box::new(|p| p.request.sample_size += 1)),
            ("the time limit", Box::new(|p| p.request.timeout *= 2)),
            (
                "the harness",
                Box::new(|p| p.request.harness = crate::model::harness::Harness::Divan),
            ),
            ("the settling rule", Box::new(|p| p.settling += "1")),
            (
                "no file read",
                Box::new(|p| p.files = TouchedFiles::default()),
            ),
        ];
        for (what, change) in changes {
            let mut changed = probe(&exe, &input);
            change(&mut changed);
            assert_ne!(key(&changed), first, "{what}");
        }
        // The file's content, and only what is there for a path looked for.
        std::fs::write(&input, b"another corpus").unwrap();
        let read_again = key(&probe(&exe, &input));
        assert_ne!(read_again, first);
        let mut looked_for = probe(&exe, &input);
        looked_for.files.paths[0].1 = Access::Missing;
        let there = key(&looked_for);
        std::fs::write(&input, b"a third corpus").unwrap();
        assert_eq!(key(&looked_for), there);
        std::fs::remove_file(&input).unwrap();
        assert_ne!(key(&looked_for), there);
    }

    #[test]
    fn that_a_benchmark_is_probed_alone_is_kept_by_the_benchmark_not_its_code() {
        let dir = tempfile::tempdir().unwrap();
        let cache = TraceCache::new(dir.path().join("traces"));
        let base = request(Path::new("/ck/target/perfdiff/bin/a/parse-0123"));
        let key = alone_key(&base);
        assert_eq!(cache.kept_alone(&key), None);
        let pinned = KeptAlone {
            why: "it set its own CPU affinity: CPU 0".into(),
        };
        cache.keep_alone(&key, &pinned);
        assert_eq!(cache.kept_alone(&key), Some(pinned));
        // The next commit's build of the same benchmark, elsewhere: the same key.
        let next = request(Path::new("/ck/target/perfdiff/bin/b/parse-0123"));
        assert_eq!(alone_key(&next), key);
        // Another benchmark, or another bench target: another key. Not a probe's outcome.
        let mut other = base.clone();
        other.benchmark_id += "2";
        assert_ne!(alone_key(&other), key);
        assert_ne!(alone_key(&request(Path::new("/ck/bin/a/other-0123"))), key);
        assert!(
            !dir.path()
                .join("traces")
                .join(format!("probe-{key}.json"))
                .exists()
        );
    }

    #[test]
    fn the_files_of_a_probe_are_those_of_the_project_its_trace_touched_but_the_executable() {
        let mut trace = Trace {
            files: [
                ("/ck/data/input.txt".into(), Access::Opened),
                ("/ck/target/release/deps/demo-1".into(), Access::Opened),
                ("/ck/target/release/build/out/table".into(), Access::Missing),
                ("/proc/self/maps".into(), Access::Opened),
                ("/etc/ld.so.cache".into(), Access::Opened),
            ]
            .into(),
            ..Trace::default()
        };
        let project = ["/ck".into(), "/ck/target".into()];
        let files = TouchedFiles::of(
            &trace,
            &project,
            Path::new("/ck/target/release/deps/demo-1"),
        );
        assert_eq!(
            files,
            TouchedFiles {
                paths: vec![
                    ("/ck/data/input.txt".into(), Access::Opened),
                    ("/ck/target/release/build/out/table".into(), Access::Missing),
                ],
                sets_affinity: false,
            }
        );
        // That it pins itself goes with them, but not into the probe's key.
        trace.sets_affinity = true;
        let pinning = TouchedFiles::of(&trace, &project, Path::new("/ck/none"));
        assert!(pinning.sets_affinity());
        let exe = Path::new("/ck/target/release/deps/demo-1");
        let files = TouchedFiles::of(&trace, &project, exe);
        let keys = ProbeKeys {
            executable: exe.to_path_buf(),
            digest: "d".into(),
            found: Seen::default(),
        };
        let unpinned = TouchedFiles {
            sets_affinity: false,
            ..files.clone()
        };
        assert_eq!(keys.file_fields(&files), keys.file_fields(&unpinned));
    }
}
