//! Starting a process whose executable file was written a moment ago.
//!
//! Why: `exec` fails with "Text file busy" (`ETXTBSY`) while any process holds the file open for
//! writing. A multi-threaded program that writes an executable and then runs it can hit this
//! through no fault of its own: if another thread forks while the file is still open for writing,
//! the new child inherits that descriptor and keeps it until its own `exec`, a window of
//! microseconds to milliseconds. `O_CLOEXEC` does not close it: the descriptor lives until the exec,
//! and that is the window. cargo-perfdiff writes fresh copies of every bench executable each
//! round (the fork step's fresh copies) and starts forks from several threads in duet mode, and its
//! test suite starts scripts it has just written from parallel tests, which is where this was
//! seen. The error is transient by nature, so it is retried for a short while; any other error,
//! or a file still busy after [`BUSY_RETRY_LIMIT`], is returned as it is.

use std::io;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

/// How long a busy executable is retried before the error is returned.
pub const BUSY_RETRY_LIMIT: Duration = Duration::from_secs(2);
/// The first pause between attempts; it doubles up to [`LONGEST_PAUSE`].
const FIRST_PAUSE: Duration = Duration::from_millis(1);
const LONGEST_PAUSE: Duration = Duration::from_millis(100);

/// [`Command::spawn`], retried while the executable is busy (see the module docs).
pub fn spawn_when_not_busy(command: &mut Command) -> io::Result<Child> {
    let started = Instant::now();
    let mut pause = FIRST_PAUSE;
    loop {
        match command.spawn() {
            Err(e)
                if e.kind() == io::ErrorKind::ExecutableFileBusy
                    && started.elapsed() < BUSY_RETRY_LIMIT =>
            {
                std::thread::sleep(pause);
                pause = (pause * 2).min(LONGEST_PAUSE);
            }
            result => return result,
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::fs::{File, Permissions};
    use std::io::Write;
    use std::os::unix::fs::PermissionsExt;
    use std::path::Path;

    /// A script in `dir`, still open for writing: the handle is what makes it busy.
    fn open_script(dir: &Path) -> (std::path::PathBuf, File) {
        let path = dir.join("just-written");
        let mut file = File::create(&path).unwrap();
        file.write_all(b"#!/bin/sh\nexit 7\n").unwrap();
        file.set_permissions(Permissions::from_mode(0o755)).unwrap();
        (path, file)
    }

    #[test]
    fn a_file_that_stops_being_busy_is_started() {
        let dir = tempfile::tempdir().unwrap();
        let (path, file) = open_script(dir.path());
        assert_eq!(
            Command::new(&path).spawn().unwrap_err().kind(),
            io::ErrorKind::ExecutableFileBusy,
            "a file open for writing cannot be executed"
        );
        let closer = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            drop(file);
        });
        let status = spawn_when_not_busy(&mut Command::new(&path))
            .unwrap()
            .wait()
            .unwrap();
        closer.join().unwrap();
        assert_eq!(status.code(), Some(7));
    }

    #[test]
    fn a_file_that_stays_busy_gives_the_error_after_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let (path, _file) = open_script(dir.path());
        let started = Instant::now();
        let err = spawn_when_not_busy(&mut Command::new(&path)).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::ExecutableFileBusy);
        assert!(started.elapsed() >= BUSY_RETRY_LIMIT);
    }

    #[test]
    fn other_errors_are_not_retried() {
        let dir = tempfile::tempdir().unwrap();
        let err = spawn_when_not_busy(&mut Command::new(dir.path().join("missing"))).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
    }
}
