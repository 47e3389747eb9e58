//! Traces kept by what they depend on, so that comparing a second head against the same base
//! traces nothing new, and a bisection reuses the traces of the executables it already has.
//!
//! What a trace depends on: the executable's content ([`executable_digest`]), the benchmark and
//! its harness, the working directory (its file paths are resolved there and name it) and the
//! environment the fork adds, all known before the trace is made: a trace is kept under a digest
//! of these, as JSON in one file per trace, written whole (to a temporary file, then renamed) so
//! that a reader never sees half a trace. And what the benchmark reads at run time: a base
//! commit that changes only a data file it reads (`benches/texts/*.txt` with `std::fs::read`)
//! keeps the executable, yet may take the benchmark through other functions. No key known before
//! the trace can name those files, so a trace is kept with them, as a command's is
//! ([`super::command_cache`], the rule in [`super::inputs`]): every path of the project
//! ([`TraceCache::with_project`]: the checkout, the build's directories) the trace opened,
//! looked for or started, but the executable itself, with what was there: a file's content and
//! a directory's listing where it was opened, whether something is there where it was only
//! looked for, asked about or written (as the native probe's key counts them; the dynamic loader
//! asks about the build's `deps` directory, whose listing every build changes). It is reused only
//! while each is as it was; otherwise it is traced again and overwritten. What it read elsewhere
//! on the machine (`/proc`, `/etc`, the toolchain) is taken as the same.
//!
//! A failed trace is not kept: the next run tries again. A kept file that cannot be read, or one
//! kept before its inputs were (a bare trace, before 2026-11-29), is traced again and
//! overwritten. The marker that valgrind is too slow for a target is not a trace and has no
//! inputs: it is kept under the executable, harness, directory and environment only (a stale
//! one makes a trace native, never wrong).

use std::hash::Hasher;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use siphasher::sip128::{Hasher128, SipHasher13};

use super::inputs::{
    Input, Seen, benchmark_reads_content, executable_digest, inputs_now, project_paths,
};
use super::{Trace, TraceError, Tracer, ValgrindUnfit};
use crate::steps::fork::ForkRequest;

/// A directory of traces.
#[derive(Debug, Clone)]
pub struct TraceCache {
    pub(super) dir: PathBuf,
    /// The directories (the checkout, the build's) whose paths a benchmark's kept trace is
    /// kept with and reused only while they are as they were; none unless
    /// [`TraceCache::with_project`] says.
    project: Vec<PathBuf>,
    /// What was found at the paths kept traces were checked against, each read once for all the
    /// benchmarks of a target.
    seen: Arc<Seen>,
}

/// A benchmark's kept trace and what it depended on besides its key. `inputs` has no default:
/// a file kept before 2026-11-29 (a bare trace, without them) does not read as one, and is
/// traced again and overwritten.
#[derive(Debug, Serialize, Deserialize)]
struct KeptBenchmark<T> {
    inputs: Vec<Input>,
    trace: T,
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

/// The version of how a trace is made and what a benchmark is given of it, in every kept
/// trace's key (benchmarks' and commands'): bump it when a change could make a trace made now
/// differ from one kept before, so that the traces an older cargo-perfdiff kept are made again
/// (a kept trace is otherwise reused for as long as its executable and files are the same).
/// 2 (2026-11-29): divan's, libtest's and `bencher`'s traces tell their timed part; a criterion
/// benchmark of a shared run is no longer given what runs after its samples.
/// 3 (2026-11-29): nor is a criterion benchmark traced in a run of its own, when it can be split.
/// 4 (2026-11-30): nor is a divan or libtest benchmark what its test-mode run runs after its
/// timed routine returns, where that routine is a function of its own.
/// 5 (2026-11-30): the executable traced runs from base's checkout of the workspace, as the
/// forks do (`steps::fork::run_place`), so a file found from its path is the revision's.
/// 6 (2026-11-30): the benchmarks of CodSpeed's fork of divan (`codspeed-divan-compat`) have
/// divan's timed routine too, so their traces tell their timed part.
pub const TRACE_VERSION: u32 = 6;

const TRACE_VERSION_FIELD: [u8; 4] = TRACE_VERSION.to_le_bytes();

/// The fields of `req` that every kept trace's key holds: the trace version, the benchmark's
/// id, working directory and added environment (name, value, …).
pub(super) fn run_fields(req: &ForkRequest) -> impl Iterator<Item = &[u8]> {
    [
        &TRACE_VERSION_FIELD[..],
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

impl TraceCache {
    pub fn new(dir: PathBuf) -> Self {
        TraceCache {
            dir,
            project: Vec::new(),
            seen: Arc::default(),
        }
    }

    /// This cache, its benchmarks' traces kept with what they touched under `project` (the
    /// checkout they run in, the build's directories) and reused only while it is as it was.
    pub fn with_project(self, project: &[PathBuf]) -> Self {
        TraceCache {
            project: project.to_vec(),
            ..self
        }
    }

    /// The key of the trace of `req`'s benchmark: its executable's digest, harness, id,
    /// working directory and added environment.
    pub fn key(req: &ForkRequest) -> std::io::Result<String> {
        let digest = executable_digest(&req.executable)?;
        let identity = [digest.as_bytes(), req.harness.name().as_bytes()];
        Ok(fields_digest(identity.into_iter().chain(run_fields(req))))
    }

    /// The kept trace of `req`'s benchmark when it can be reused ([`TraceCache::kept`]), or the
    /// one `trace` makes, kept. `trace` is not called when a trace is reused.
    pub fn get_or_trace(
        &self,
        req: &ForkRequest,
        trace: impl FnOnce() -> Result<Trace, TraceError>,
    ) -> Result<Trace, TraceError> {
        if let Some(kept) = self.kept(req) {
            return Ok(kept);
        }
        let fresh = trace()?;
        self.keep_trace(req, &fresh)?;
        Ok(fresh)
    }

    /// The kept trace of `req`'s benchmark, if there is one that can be read and every path of
    /// the project it touched (but the executable) is as it was when it was made.
    pub fn kept(&self, req: &ForkRequest) -> Option<Trace> {
        let kept = read_kept(&self.path_of(req).ok()?)?;
        kept.inputs
            .iter()
            .all(|input| input.unchanged(&self.seen))
            .then_some(kept.trace)
    }

    /// Keeps `trace` as the trace of `req`'s benchmark (one benchmark's: a run shared with
    /// others is kept once per benchmark, each under its own key), with what is now at each path
    /// of the project it touched; not kept when one of them cannot be read (the next run traces
    /// again).
    pub fn keep_trace(&self, req: &ForkRequest, trace: &Trace) -> Result<(), TraceError> {
        let path = self.path_of(req)?;
        let Some(inputs) = self.inputs_of(req, trace) else {
            return Ok(());
        };
        let kept = KeptBenchmark { inputs, trace };
        self.keep(&path, &kept).map_err(|source| TraceError::Io {
            who: format!("benchmark `{}`", req.benchmark_id),
            path,
            source,
        })
    }

    /// What the trace of `req`'s benchmark depended on besides its key: every path under the
    /// project it touched or started, but its executable, with what is there now; `None` when
    /// one cannot be read.
    fn inputs_of(&self, req: &ForkRequest, trace: &Trace) -> Option<Vec<Input>> {
        let under_project = |path: &Path| self.project.iter().any(|dir| path.starts_with(dir));
        let programs = trace.programs.iter().map(PathBuf::as_path);
        let programs = programs
            .filter(|path| under_project(path))
            .map(|p| (p, false));
        // As its probe's key counts them: a file's content, a directory's listing where it was
        // opened; whether it is there where it was only looked for, asked about or written (the
        // dynamic loader asks about the build's `deps` directory, whose listing every build
        // changes).
        let paths = project_paths(trace, &self.project, benchmark_reads_content).chain(programs);
        inputs_now(paths.filter(|(path, _)| *path != req.executable))
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

    /// Why an earlier run found valgrind unfit for the target of `req` (too slow for it, or
    /// running an instruction valgrind cannot decode; its executable run so, whatever the
    /// benchmark: what `main` sets up before the harness's filter runs for every benchmark, and
    /// code compiled for this CPU runs from the start): then its benchmarks are traced natively
    /// at once ([`super::split::trace_benchmarks`]) instead of spending a valgrind run again. A
    /// marker kept before 2026-12-01 (a text) says too slow.
    pub fn unfit_for_valgrind(&self, req: &ForkRequest) -> Option<ValgrindUnfit> {
        let bytes = std::fs::read(self.unfit_marker_path(req).ok()?).ok()?;
        Some(serde_json::from_slice(&bytes).unwrap_or(ValgrindUnfit::TooSlow))
    }

    /// Remembers why valgrind is unfit for the target of `req`; a marker that cannot be written
    /// only costs the next run a valgrind run again.
    pub fn remember_unfit_for_valgrind(&self, req: &ForkRequest, unfit: &ValgrindUnfit) {
        if let Ok(path) = self.unfit_marker_path(req) {
            let _ = self.keep(&path, unfit);
        }
    }

    /// Where the marker of [`TraceCache::unfit_for_valgrind`] is: under a digest of the
    /// executable's content, the harness, the working directory and the added environment. Its
    /// key and name still say "too slow", what it first marked, so that markers kept by earlier
    /// versions are found.
    fn unfit_marker_path(&self, req: &ForkRequest) -> std::io::Result<PathBuf> {
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

/// The trace kept at `path` with its inputs, if it can be read (one that cannot, or one kept
/// before its inputs were, is traced again) and is not a native trace kept before it told its
/// timed part.
fn read_kept(path: &Path) -> Option<KeptBenchmark<Trace>> {
    let bytes = std::fs::read(path).ok()?;
    let kept = serde_json::from_slice::<KeptBenchmark<Trace>>(&bytes).ok()?;
    let trace = &kept.trace;
    let stale = trace.tracer == Tracer::Native
        && trace.untimed.as_deref() == Some(NATIVE_WITHOUT_TIMED_PART);
    (!stale).then_some(kept)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::steps::reach::trace::Access;
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
            harness_sample_size: None,
            timeout: Duration::from_secs(1),
            criterion_home: "/nonexistent".into(),
            cpu: None,
            command: None,
        }
    }

    #[test]
    fn every_key_holds_the_trace_version_so_an_older_tool_s_traces_are_made_again() {
        let dir = tempfile::tempdir().unwrap();
        let exe = dir.path().join("exe");
        std::fs::write(&exe, b"bytes").unwrap();
        let req = request(&exe);
        let first = run_fields(&req).next().unwrap();
        assert_eq!(first, TRACE_VERSION.to_le_bytes());
        // The key a trace of version 1 had (no version field) is not today's.
        let digest = executable_digest(&exe).unwrap();
        let identity = [digest.as_bytes(), req.harness.name().as_bytes()];
        let unversioned = fields_digest(identity.into_iter().chain(run_fields(&req).skip(1)));
        assert_ne!(TraceCache::key(&req).unwrap(), unversioned);
        let command = TraceCache::command_key(&req);
        let old_command =
            fields_digest(std::iter::once(&b"command"[..]).chain(run_fields(&req).skip(1)));
        assert_ne!(command, old_command);
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

    /// A trace of a benchmark run in `checkout`, which opened `exe` (its own executable) and
    /// `input`, looked for `missing`, wrote `output`, asked about the directory of `exe` (as the
    /// dynamic loader does) and read a file outside the project.
    fn reading(exe: &Path, input: &Path, missing: &Path, output: &Path) -> Trace {
        Trace {
            executed: [0x1000].into(),
            files: [
                (exe.to_path_buf(), Access::Opened),
                (exe.parent().unwrap().to_path_buf(), Access::Probed),
                (input.to_path_buf(), Access::Opened),
                (missing.to_path_buf(), Access::Missing),
                (output.to_path_buf(), Access::Written),
                ("/proc/self/maps".into(), Access::Opened),
            ]
            .into(),
            ..Trace::default()
        }
    }

    #[test]
    fn a_benchmark_is_traced_again_only_when_a_file_of_the_project_it_read_changed() {
        let dir = tempfile::tempdir().unwrap();
        let checkout = dir.path().join("checkout");
        std::fs::create_dir_all(checkout.join("benches/texts")).unwrap();
        let exe = checkout.join("target/bench");
        let input = checkout.join("benches/texts/a.txt");
        let missing = checkout.join("benches/texts/b.txt");
        let output = checkout.join("out.txt");
        std::fs::create_dir_all(exe.parent().unwrap()).unwrap();
        std::fs::write(&exe, b"bench").unwrap();
        std::fs::write(&input, b"text v1").unwrap();
        let req = request(&exe);
        let made = reading(&exe, &input, &missing, &output);
        let project = [checkout.clone()];
        let mut calls = 0;
        // One cache per run, as a run makes one.
        let mut run = || {
            let cache = TraceCache::new(dir.path().join("traces")).with_project(&project);
            cache
                .get_or_trace(&req, || {
                    calls += 1;
                    std::fs::write(&output, format!("run {calls}")).unwrap();
                    Ok(made.clone())
                })
                .unwrap()
        };
        assert_eq!(run(), made);
        // The same file read (the output rewritten, another build beside the executable, a file
        // outside the project aside): reused.
        std::fs::write(&output, b"other output").unwrap();
        std::fs::write(exe.with_file_name("other-bench"), b"built since").unwrap();
        assert_eq!(run(), made);
        // The file it read changes, then a file it looked for appears: traced again each time,
        // and the new trace reused after.
        std::fs::write(&input, b"text v2").unwrap();
        run();
        run();
        std::fs::write(&missing, b"now there").unwrap();
        run();
        run();
        assert_eq!(calls, 3);
        // Its executable is in the key, not among what it was kept with.
        let cache = TraceCache::new(dir.path().join("traces")).with_project(&project);
        let inputs = cache.inputs_of(&req, &made).unwrap();
        let paths: Vec<&Path> = inputs.iter().map(Input::path).collect();
        let build = exe.parent().unwrap();
        assert_eq!(paths, [&input, &missing, &output, build]);
    }

    #[test]
    fn a_trace_kept_before_its_inputs_were_is_traced_again_and_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let cache = TraceCache::new(dir.path().join("traces"));
        let exe = dir.path().join("a");
        std::fs::write(&exe, b"bytes").unwrap();
        let req = request(&exe);
        let old = Trace {
            executed: [0x1000].into(),
            ..Trace::default()
        };
        // Today's format before 2026-11-29: the bare trace, under the same key.
        cache.keep(&cache.path_of(&req).unwrap(), &old).unwrap();
        assert_eq!(cache.kept(&req), None);
        let new = Trace {
            executed: [0x2000].into(),
            ..Trace::default()
        };
        assert_eq!(cache.get_or_trace(&req, || Ok(new.clone())).unwrap(), new);
        assert_eq!(cache.kept(&req), Some(new));
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
    fn valgrind_unfit_is_remembered_per_executable_and_environment_not_per_benchmark() {
        let dir = tempfile::tempdir().unwrap();
        let cache = TraceCache::new(dir.path().join("traces"));
        let exe = dir.path().join("a");
        std::fs::write(&exe, b"bytes").unwrap();
        let alpha = request(&exe);
        assert_eq!(cache.unfit_for_valgrind(&alpha), None);
        cache.remember_unfit_for_valgrind(&alpha, &ValgrindUnfit::TooSlow);
        let mut beta = request(&exe);
        beta.benchmark_id = "beta".into();
        assert_eq!(
            cache.unfit_for_valgrind(&alpha),
            Some(ValgrindUnfit::TooSlow)
        );
        assert_eq!(
            cache.unfit_for_valgrind(&beta),
            Some(ValgrindUnfit::TooSlow)
        );
        // Why is kept: an instruction valgrind cannot decode, with its bytes.
        let cannot = ValgrindUnfit::CannotRun {
            bytes: "66 0f ae 3d".into(),
        };
        cache.remember_unfit_for_valgrind(&beta, &cannot);
        assert_eq!(cache.unfit_for_valgrind(&alpha), Some(cannot));
        // Another environment (the set-up may depend on it), another build: not known.
        let mut other_env = request(&exe);
        other_env.env = vec![("SIZE".into(), "small".into())];
        assert_eq!(cache.unfit_for_valgrind(&other_env), None);
        std::fs::write(&exe, b"rebuilt").unwrap();
        assert_eq!(cache.unfit_for_valgrind(&alpha), None);
        // Nor is the marker taken for a trace.
        assert!(cache.kept(&alpha).is_none());
        // A marker kept before the reason was (a text) reads as too slow.
        std::fs::write(&exe, b"bytes").unwrap();
        let marker = cache.unfit_marker_path(&alpha).unwrap();
        std::fs::write(&marker, b"\"valgrind outlasted its budget\"").unwrap();
        assert_eq!(
            cache.unfit_for_valgrind(&alpha),
            Some(ValgrindUnfit::TooSlow)
        );
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
}
