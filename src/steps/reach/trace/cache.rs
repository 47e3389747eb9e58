//! Traces kept by what they depend on, so that comparing a second head against the same base
//! traces nothing new, and a bisection reuses the traces of the executables it already has.
//!
//! What a trace depends on: the executable's content ([`executable_digest`]), the benchmark and
//! its harness, the working directory (its file paths are resolved there and name it) and the
//! environment the fork adds. A trace is kept under a digest of all of these, as JSON in one
//! file per trace, written whole (to a temporary file, then renamed) so that a reader never sees
//! half a trace. A failed trace is not kept: the next run tries again. A kept file that cannot
//! be read is traced again and overwritten.

use std::hash::Hasher;
use std::io::Read;
use std::path::{Path, PathBuf};

use siphasher::sip128::{Hasher128, SipHasher13};

use super::{Trace, TraceError, Tracer};
use crate::model::harness::Harness;
use crate::steps::fork::ForkRequest;

/// A directory of traces.
#[derive(Debug, Clone)]
pub struct TraceCache {
    pub(super) dir: PathBuf,
}

/// The 128-bit SipHash-1-3 of the file at `path`, in hex: the executable's identity for the
/// cache. (Not a cryptographic hash: it tells apart the executables of honest builds.)
pub fn executable_digest(path: &Path) -> std::io::Result<String> {
    let mut file = std::fs::File::open(path)?;
    let mut hasher = SipHasher13::new();
    let mut buffer = vec![0u8; 1 << 16];
    let mut length = 0u64;
    loop {
        let n = file.read(&mut buffer)?;
        if n == 0 {
            break;
        }
        hasher.write(&buffer[..n]);
        length += n as u64;
    }
    hasher.write_u64(length);
    Ok(format!("{:032x}", hasher.finish128().as_u128()))
}

/// The 128-bit SipHash-1-3, in hex, of `fields`, each preceded by its length (so that no two
/// lists of fields hash alike by running into each other): a kept trace's key.
pub(super) fn fields_digest<'a>(fields: impl IntoIterator<Item = &'a [u8]>) -> String {
    let mut hasher = SipHasher13::new();
    for bytes in fields {
        hasher.write_u64(bytes.len() as u64);
        hasher.write(bytes);
    }
    format!("{:032x}", hasher.finish128().as_u128())
}

/// The fields of `req` that every kept trace's key holds: the benchmark's id, working directory
/// and added environment (name, value, …).
pub(super) fn run_fields(req: &ForkRequest) -> impl Iterator<Item = &[u8]> {
    [
        req.benchmark_id.as_bytes(),
        req.cwd.as_os_str().as_encoded_bytes(),
    ]
    .into_iter()
    .chain(env_fields(req))
}

/// The environment `req` adds, as key fields: name, value, ….
fn env_fields(req: &ForkRequest) -> impl Iterator<Item = &[u8]> {
    req.env
        .iter()
        .flat_map(|(name, value)| [name.as_encoded_bytes(), value.as_encoded_bytes()])
}

/// A field the keys of divan's, libtest's and `bencher`'s traces hold since their traces tell
/// their timed part (`Trace::timed`): one kept before has none, and would keep a benchmark whose
/// changed code runs only outside its timed loop measured for good.
fn timed_since(harness: Harness) -> Option<&'static [u8]> {
    match harness {
        Harness::Criterion(_) | Harness::Command => None,
        Harness::Divan | Harness::Libtest | Harness::Bencher => Some(b"timed part 2026-11-29"),
    }
}

impl TraceCache {
    pub fn new(dir: PathBuf) -> Self {
        TraceCache { dir }
    }

    /// The key of the trace of `req`'s benchmark: its executable's digest, harness, id,
    /// working directory and added environment.
    pub fn key(req: &ForkRequest) -> std::io::Result<String> {
        let digest = executable_digest(&req.executable)?;
        let identity = [digest.as_bytes(), req.harness.name().as_bytes()];
        Ok(fields_digest(
            identity
                .into_iter()
                .chain(timed_since(req.harness))
                .chain(run_fields(req)),
        ))
    }

    /// The kept trace of `req`'s benchmark, or the one `trace` makes, kept. `trace` is not called
    /// when a trace is kept.
    pub fn get_or_trace(
        &self,
        req: &ForkRequest,
        trace: impl FnOnce() -> Result<Trace, TraceError>,
    ) -> Result<Trace, TraceError> {
        let path = self.path_of(req)?;
        if let Some(kept) = read_kept(&path) {
            return Ok(kept);
        }
        let fresh = trace()?;
        self.keep_trace(req, &fresh)?;
        Ok(fresh)
    }

    /// The kept trace of `req`'s benchmark, if there is one that can be read.
    pub fn kept(&self, req: &ForkRequest) -> Option<Trace> {
        read_kept(&self.path_of(req).ok()?)
    }

    /// Keeps `trace` as the trace of `req`'s benchmark (one benchmark's: a run shared with
    /// others is kept once per benchmark, each under its own key).
    pub fn keep_trace(&self, req: &ForkRequest, trace: &Trace) -> Result<(), TraceError> {
        let path = self.path_of(req)?;
        self.keep(&path, trace).map_err(|source| TraceError::Io {
            who: format!("benchmark `{}`", req.benchmark_id),
            path,
            source,
        })
    }

    /// Where the trace of `req`'s benchmark is kept.
    fn path_of(&self, req: &ForkRequest) -> Result<PathBuf, TraceError> {
        let key = Self::key(req).map_err(|source| TraceError::Io {
            who: format!("benchmark `{}`", req.benchmark_id),
            path: req.executable.clone(),
            source,
        })?;
        Ok(self.dir.join(format!("{key}.json")))
    }

    /// Whether an earlier run found valgrind too slow for the target of `req` (its executable
    /// run so, whatever the benchmark: what `main` sets up before the harness's filter runs for
    /// every benchmark): then its benchmarks are traced natively at once
    /// ([`super::split::trace_benchmarks`]) instead of spending a valgrind run's budget again.
    pub fn too_slow_for_valgrind(&self, req: &ForkRequest) -> bool {
        self.too_slow_path(req).is_ok_and(|path| path.exists())
    }

    /// Remembers that valgrind outlasted its budget on the target of `req`; a marker that cannot
    /// be written only costs the next run its valgrind budget again.
    pub fn remember_too_slow_for_valgrind(&self, req: &ForkRequest) {
        if let Ok(path) = self.too_slow_path(req) {
            let _ = self.keep(&path, &"valgrind outlasted its budget");
        }
    }

    /// Where the marker of [`TraceCache::too_slow_for_valgrind`] is: under a digest of the
    /// executable's content, the harness, the working directory and the added environment.
    fn too_slow_path(&self, req: &ForkRequest) -> std::io::Result<PathBuf> {
        let digest = executable_digest(&req.executable)?;
        let fields = [
            b"too slow for valgrind".as_slice(),
            digest.as_bytes(),
            req.harness.name().as_bytes(),
            req.cwd.as_os_str().as_encoded_bytes(),
        ];
        let key = fields_digest(fields.into_iter().chain(env_fields(req)));
        Ok(self.dir.join(format!("{key}.too-slow")))
    }

    /// Writes `trace` whole to `path`: to a temporary file, then renamed.
    pub(super) fn keep(&self, path: &Path, trace: &impl serde::Serialize) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.dir)?;
        let mut file = tempfile::NamedTempFile::new_in(&self.dir)?;
        serde_json::to_writer(&mut file, trace)?;
        file.persist(path).map_err(|e| e.error)?;
        Ok(())
    }
}

/// What a native trace kept before it told its timed part (2026-11-29) says of it: such a
/// trace is made again, now with its timed part.
const NATIVE_WITHOUT_TIMED_PART: &str =
    "it was traced natively (valgrind would take longer than its budget)";

/// The trace kept at `path`, if it can be read (one that cannot is traced again) and is not a
/// native trace kept before it told its timed part.
fn read_kept(path: &Path) -> Option<Trace> {
    let bytes = std::fs::read(path).ok()?;
    let trace = serde_json::from_slice::<Trace>(&bytes).ok()?;
    let stale = trace.tracer == Tracer::Native
        && trace.untimed.as_deref() == Some(NATIVE_WITHOUT_TIMED_PART);
    (!stale).then_some(trace)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn request(executable: &Path) -> ForkRequest {
        ForkRequest {
            executable: executable.to_path_buf(),
            cwd: "/ck".into(),
            env: vec![],
            benchmark_id: "alpha".into(),
            harness: crate::model::harness::Harness::default(),
            warm_up: Duration::ZERO,
            measurement: Duration::ZERO,
            sample_size: 10,
            timeout: Duration::from_secs(1),
            criterion_home: "/nonexistent".into(),
            cpu: None,
            command: None,
        }
    }

    #[test]
    fn a_trace_is_made_once_per_executable_content_and_benchmark() {
        let dir = tempfile::tempdir().unwrap();
        let cache = TraceCache::new(dir.path().join("traces"));
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::write(&a, b"same bytes").unwrap();
        std::fs::write(&b, b"same bytes").unwrap();
        let made = Trace {
            executed: [0x1000, 0x1004].into(),
            cwd: "/ck".into(),
            ..Trace::default()
        };
        let first = cache
            .get_or_trace(&request(&a), || Ok(made.clone()))
            .unwrap();
        assert_eq!(first, made);
        // Another path, the same content: kept, the closure not called.
        let second = cache
            .get_or_trace(&request(&b), || panic!("traced again"))
            .unwrap();
        assert_eq!(second, made);
        // Another benchmark, another content, another directory: traced.
        let mut other = request(&b);
        other.benchmark_id = "beta".into();
        let mut calls = 0;
        let _ = cache.get_or_trace(&other, || {
            calls += 1;
            Ok(Trace::default())
        });
        std::fs::write(&b, b"other bytes").unwrap();
        let _ = cache.get_or_trace(&request(&b), || {
            calls += 1;
            Ok(Trace::default())
        });
        let mut moved = request(&a);
        moved.cwd = "/elsewhere".into();
        let _ = cache.get_or_trace(&moved, || {
            calls += 1;
            Ok(Trace::default())
        });
        assert_eq!(calls, 3);
    }

    #[test]
    fn a_failed_trace_is_not_kept() {
        let dir = tempfile::tempdir().unwrap();
        let cache = TraceCache::new(dir.path().join("traces"));
        let exe = dir.path().join("a");
        std::fs::write(&exe, b"bytes").unwrap();
        let failed = cache.get_or_trace(&request(&exe), || {
            Err(TraceError::Unsupported {
                who: "benchmark `alpha`".into(),
                what: "commands",
            })
        });
        assert!(failed.is_err());
        let traced = cache
            .get_or_trace(&request(&exe), || Ok(Trace::default()))
            .unwrap();
        assert_eq!(traced, Trace::default());
    }

    #[test]
    fn valgrind_too_slow_is_remembered_per_executable_and_environment_not_per_benchmark() {
        let dir = tempfile::tempdir().unwrap();
        let cache = TraceCache::new(dir.path().join("traces"));
        let exe = dir.path().join("a");
        std::fs::write(&exe, b"bytes").unwrap();
        let alpha = request(&exe);
        assert!(!cache.too_slow_for_valgrind(&alpha));
        cache.remember_too_slow_for_valgrind(&alpha);
        let mut beta = request(&exe);
        beta.benchmark_id = "beta".into();
        assert!(cache.too_slow_for_valgrind(&alpha) && cache.too_slow_for_valgrind(&beta));
        // Another environment (the set-up may depend on it), another build: not known.
        let mut other_env = request(&exe);
        other_env.env = vec![("SIZE".into(), "small".into())];
        assert!(!cache.too_slow_for_valgrind(&other_env));
        std::fs::write(&exe, b"rebuilt").unwrap();
        assert!(!cache.too_slow_for_valgrind(&alpha));
        // Nor is the marker taken for a trace.
        assert!(cache.kept(&alpha).is_none());
    }

    #[test]
    fn a_native_trace_kept_before_it_told_its_timed_part_is_made_again() {
        let dir = tempfile::tempdir().unwrap();
        let cache = TraceCache::new(dir.path().join("traces"));
        let exe = dir.path().join("a");
        std::fs::write(&exe, b"bytes").unwrap();
        let old = Trace {
            tracer: Tracer::Native,
            untimed: Some(NATIVE_WITHOUT_TIMED_PART.into()),
            ..Trace::default()
        };
        cache.keep_trace(&request(&exe), &old).unwrap();
        assert_eq!(cache.kept(&request(&exe)), None);
        let new = Trace {
            timed: Some([0x1000].into()),
            ..old
        };
        let new = Trace {
            untimed: None,
            ..new
        };
        cache.keep_trace(&request(&exe), &new).unwrap();
        assert_eq!(cache.kept(&request(&exe)), Some(new));
    }

    #[test]
    fn the_digest_is_of_the_content() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::write(&a, vec![7u8; 200_000]).unwrap();
        std::fs::write(&b, vec![7u8; 200_001]).unwrap();
        let (da, db) = (
            executable_digest(&a).unwrap(),
            executable_digest(&b).unwrap(),
        );
        assert_eq!(da.len(), 32);
        assert_ne!(da, db);
        std::fs::copy(&a, &b).unwrap();
        assert_eq!(executable_digest(&b).unwrap(), da);
    }
}
