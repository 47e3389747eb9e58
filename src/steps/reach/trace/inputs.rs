//! What a kept trace depended on besides its key, recorded beside it so that it is reused only
//! while those paths are as they were: one rule for the bench targets' traces
//! ([`super::cache`]) and the commands' ([`super::command_cache`]).
//!
//! Why: a key is known before the trace is made, but what a run reads at run time (a data file
//! of the checkout read with `std::fs::read`, a script a command interprets) is known only from
//! the trace. Each such path is kept with what was found there: a file's digest, a directory's
//! listing's, nothing; for a path only opened for writing, whether something is there.

use std::collections::BTreeMap;
use std::hash::Hasher;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use siphasher::sip128::{Hasher128, SipHasher13};

use super::{Access, Trace};

/// One path a trace depended on and what was there when it was made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Input {
    path: PathBuf,
    /// Only whether something is there counts (a file it only opened for writing).
    existence: bool,
    /// `None` when nothing was there.
    found: Option<String>,
}

impl Input {
    /// What is at `path` now, as a kept trace records it; `None` when it cannot be read.
    fn now(path: &Path, existence: bool, seen: &Seen) -> Option<Input> {
        let found = seen.at(path)?;
        Some(Input {
            path: path.to_path_buf(),
            existence,
            found: found.map(|digest| if existence { "there".into() } else { digest }),
        })
    }

    #[cfg(test)]
    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    /// Whether what is at its path now is what was there when the trace was made.
    pub(super) fn unchanged(&self, seen: &Seen) -> bool {
        Self::now(&self.path, self.existence, seen).as_ref() == Some(self)
    }
}

/// What was found at paths, each read once: the benchmarks of one target often read the same
/// inputs, which need not be digested once per benchmark. Only for paths that do not change
/// while it is used (the kept traces' checks, before anything is traced again).
#[derive(Debug, Default)]
pub(super) struct Seen(Mutex<BTreeMap<PathBuf, Option<String>>>);

impl Seen {
    /// What is at `path` ([`found`]), read once; `None` when it cannot be read.
    pub(super) fn at(&self, path: &Path) -> Option<Option<String>> {
        let mut memo = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(found) = memo.get(path) {
            return Some(found.clone());
        }
        let now = found(path).ok()?;
        memo.insert(path.to_path_buf(), now.clone());
        Some(now)
    }
}

/// Whether a benchmark's access to a path counts by what is there (a file it opened, a directory
/// it listed) rather than by whether something is: the rule of its kept trace's inputs and of its
/// probe's key alike (the loader's stat of the build's `deps` directory must not count its listing).
pub(super) fn benchmark_reads_content(access: Access) -> bool {
    matches!(access, Access::Opened | Access::Directory)
}

/// The paths under `project` (the checkout, the build's directories) that `trace` touched, each
/// with whether only its existence counts: all but those touched in a way `by_content` says
/// counts by what is there.
pub(super) fn project_paths<'a>(
    trace: &'a Trace,
    project: &'a [PathBuf],
    by_content: fn(Access) -> bool,
) -> impl Iterator<Item = (&'a Path, bool)> {
    let files = trace
        .files
        .iter()
        .filter(|(path, _)| project.iter().any(|dir| path.starts_with(dir)));
    files.map(move |(path, access)| (path.as_path(), !by_content(*access)))
}

/// What is at each of `paths` now (path, whether only its existence counts), sorted by path,
/// each once; `None` when one cannot be read (then nothing is kept: the next run traces again).
pub(super) fn inputs_now<'a>(
    paths: impl IntoIterator<Item = (&'a Path, bool)>,
) -> Option<Vec<Input>> {
    let seen = Seen::default();
    let mut inputs = Vec::new();
    for (path, existence) in paths {
        inputs.push(Input::now(path, existence, &seen)?);
    }
    inputs.sort_by(|a, b| a.path.cmp(&b.path));
    inputs.dedup_by(|a, b| a.path == b.path);
    Some(inputs)
}

/// The 128-bit SipHash-1-3 of the file at `path`, in hex: the executable's identity in the kept
/// traces' keys, and a file's content among their inputs. (Not a cryptographic hash: it tells
/// apart the files of honest builds and checkouts.)
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

/// What is at `path`: a file's digest, a directory's listing's, `None` when nothing is there.
pub(super) fn found(path: &Path) -> std::io::Result<Option<String>> {
    let metadata = match std::fs::metadata(path) {
        Ok(metadata) => metadata,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    if !metadata.is_dir() {
        return executable_digest(path).map(Some);
    }
    let mut names: Vec<_> = std::fs::read_dir(path)?
        .map(|entry| entry.map(|e| e.file_name()))
        .collect::<std::io::Result<_>>()?;
    names.sort();
    let mut hasher = SipHasher13::new();
    for name in names {
        hasher.write(name.as_encoded_bytes());
        hasher.write_u8(0);
    }
    Ok(Some(format!("dir {:032x}", hasher.finish128().as_u128())))
}

#[cfg(test)]
mod tests {
    use super::*;

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
