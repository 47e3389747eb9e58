//! Files replaced whole.

use std::fs;
use std::path::Path;

/// Copies through a temporary file and a rename, so a process still running the previous copy
/// (Linux refuses to overwrite a running executable) does not break the build.
pub fn copy_atomically(from: &Path, to: &Path) -> std::io::Result<()> {
    let dir = to.parent().unwrap_or(Path::new("."));
    let temporary = tempfile::Builder::new().prefix(".copy-").tempfile_in(dir)?;
    fs::copy(from, temporary.path())?;
    temporary.persist(to).map_err(|e| e.error)?;
    Ok(())
}
