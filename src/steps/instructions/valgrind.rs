//! Finding valgrind, and saying in one line how to get it when it is not there.
//!
//! Instruction counts come from valgrind's `callgrind` tool, a real program the user installs
//! from their distribution. A run that asks for instructions checks for it first
//! ([`Valgrind::find`]), so that a missing or unusable valgrind stops it at once, with the
//! command that installs it, instead of failing benchmark by benchmark.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The environment variable that names the valgrind executable to use (a path, or a name looked
/// up on `PATH`); `valgrind` on `PATH` when unset.
pub const VALGRIND_ENV: &str = "CARGO_PERFDIFF_VALGRIND";

/// The options every callgrind run starts with: the tool, quiet, and no gdbserver. valgrind's
/// gdbserver (on by default) makes two FIFOs and a shared-memory file in `/tmp` for each process
/// and removes them only when the process exits normally; a run stopped at its budget is killed,
/// and would leave them behind on the user's machine (three files a killed process).
pub const CALLGRIND: [&str; 3] = ["--tool=callgrind", "-q", "--vgdb=no"];

/// Why valgrind cannot be used. Each message is one line that says what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ValgrindError {
    /// No valgrind executable on `PATH` (or where [`VALGRIND_ENV`] points).
    #[error(
        "instruction counts need valgrind, which is not installed{where_}: install it with `{install}`"
    )]
    Missing {
        /// ` (CARGO_PERFDIFF_VALGRIND=…)` when the variable named one that is not there.
        where_: String,
        /// The command that installs it on this system.
        install: String,
    },
    /// valgrind does not run on this operating system or processor.
    #[error(
        "instruction counts need valgrind, which does not support {platform}: run `--metric instructions` on Linux (x86-64 or AArch64), e.g. a CI runner where `{install}` installs it"
    )]
    UnsupportedPlatform { platform: String, install: String },
    /// The executable is there but does not run as valgrind does (`--version` failed).
    #[error(
        "{path} does not work as valgrind (`{path} --version` {problem}); reinstall it with `{install}`"
    )]
    Broken {
        path: String,
        problem: String,
        install: String,
    },
}

/// A valgrind that answered `--version`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Valgrind {
    /// The executable.
    pub path: PathBuf,
    /// What `--version` printed, e.g. `valgrind-3.19.0`.
    pub version: String,
}

impl Valgrind {
    /// Finds valgrind: the platform must be one valgrind supports, and the executable (from
    /// [`VALGRIND_ENV`], else `valgrind` on `PATH`) must answer `--version`.
    pub fn find() -> Result<Valgrind, ValgrindError> {
        let install = install_command(&os_release());
        if let Some(platform) = unsupported_platform(std::env::consts::OS, std::env::consts::ARCH) {
            return Err(ValgrindError::UnsupportedPlatform { platform, install });
        }
        Self::find_in(
            std::env::var_os(VALGRIND_ENV).filter(|v| !v.is_empty()),
            &std::env::var_os("PATH").unwrap_or_default(),
            install,
        )
    }

    /// [`find`](Self::find) with the named executable (`None`: `valgrind`) and `PATH` given.
    pub fn find_in(
        named: Option<OsString>,
        path_var: &std::ffi::OsStr,
        install: String,
    ) -> Result<Valgrind, ValgrindError> {
        let wanted = named.clone().unwrap_or_else(|| OsString::from("valgrind"));
        let Some(path) = locate(&wanted, path_var) else {
            let where_ = match named {
                Some(named) => format!(" ({VALGRIND_ENV}={})", named.to_string_lossy()),
                None => String::new(),
            };
            return Err(ValgrindError::Missing { where_, install });
        };
        Self::at(&path).map_err(|problem| ValgrindError::Broken {
            path: path.display().to_string(),
            problem,
            install,
        })
    }

    /// The valgrind at `path`, if it answers `--version`; else what went wrong.
    fn at(path: &Path) -> Result<Valgrind, String> {
        let output = Command::new(path)
            .arg("--version")
            .output()
            .map_err(|e| format!("cannot be started: {e}"))?;
        let version = String::from_utf8_lossy(&output.stdout).trim().to_string();
        if !output.status.success() || !version.starts_with("valgrind") {
            return Err(format!("answered {:?} with {}", version, output.status));
        }
        Ok(Valgrind {
            path: path.to_path_buf(),
            version,
        })
    }
}

/// Where `program` is: itself if it holds a `/`, else the first executable file of that name
/// in the directories of `path_var`.
pub fn locate(program: &std::ffi::OsStr, path_var: &std::ffi::OsStr) -> Option<PathBuf> {
    let program = Path::new(program);
    if program.components().count() > 1 {
        return is_executable(program).then(|| program.to_path_buf());
    }
    std::env::split_paths(path_var)
        .map(|dir| dir.join(program))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// `Some("macOS (aarch64)")` when valgrind does not run on `os`/`arch` (Rust's
/// `std::env::consts` names). Valgrind supports Linux on the common processors, and FreeBSD on
/// x86; its macOS port stopped at macOS 10.13 and never ran on Apple silicon.
pub fn unsupported_platform(os: &str, arch: &str) -> Option<String> {
    let supported = match os {
        "linux" => matches!(
            arch,
            "x86_64"
                | "x86"
                | "aarch64"
                | "arm"
                | "powerpc"
                | "powerpc64"
                | "s390x"
                | "mips"
                | "mips64"
        ),
        "freebsd" => matches!(arch, "x86_64" | "x86"),
        _ => false,
    };
    if supported {
        return None;
    }
    let os = match os {
        "macos" => "macOS",
        "windows" => "Windows",
        "linux" => "Linux",
        "freebsd" => "FreeBSD",
        other => other,
    };
    Some(format!("{os} ({arch})"))
}

/// The `ID` and `ID_LIKE` words of `/etc/os-release` (empty when it cannot be read).
fn os_release() -> String {
    std::fs::read_to_string("/etc/os-release").unwrap_or_default()
}

/// The command that installs valgrind, from the text of `/etc/os-release`: apt-get on Debian
/// and its derivatives (and when the distribution is unknown: CI runners mostly are Ubuntu),
/// dnf, pacman, zypper or apk elsewhere; `pkg` on FreeBSD.
pub fn install_command(os_release: &str) -> String {
    if std::env::consts::OS == "freebsd" {
        return "sudo pkg install valgrind".to_string();
    }
    let mut words = Vec::new();
    for line in os_release.lines() {
        if let Some(value) = line
            .strip_prefix("ID=")
            .or_else(|| line.strip_prefix("ID_LIKE="))
        {
            words.extend(
                value
                    .trim_matches('"')
                    .split_whitespace()
                    .map(str::to_ascii_lowercase),
            );
        }
    }
    let has = |names: &[&str]| words.iter().any(|w| names.contains(&w.as_str()));
    let command = if has(&["debian", "ubuntu"]) {
        "sudo apt-get install valgrind"
    } else if has(&["fedora", "rhel", "centos"]) {
        "sudo dnf install valgrind"
    } else if has(&["arch"]) {
        "sudo pacman -S valgrind"
    } else if has(&["suse", "opensuse"]) {
        "sudo zypper install valgrind"
    } else if has(&["alpine"]) {
        "sudo apk add valgrind"
    } else {
        "sudo apt-get install valgrind"
    };
    command.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_install_command_follows_the_distribution() {
        let debian = "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nID=debian\n";
        assert_eq!(install_command(debian), "sudo apt-get install valgrind");
        let ubuntu = "ID=ubuntu\nID_LIKE=debian\n";
        assert_eq!(install_command(ubuntu), "sudo apt-get install valgrind");
        let rocky = "ID=\"rocky\"\nID_LIKE=\"rhel centos fedora\"\n";
        assert_eq!(install_command(rocky), "sudo dnf install valgrind");
        assert_eq!(install_command("ID=arch\n"), "sudo pacman -S valgrind");
        assert_eq!(install_command(""), "sudo apt-get install valgrind");
    }

    #[test]
    fn platforms_valgrind_does_not_run_on_are_named() {
        assert_eq!(unsupported_platform("linux", "x86_64"), None);
        assert_eq!(unsupported_platform("linux", "aarch64"), None);
        assert_eq!(
            unsupported_platform("macos", "aarch64").as_deref(),
            Some("macOS (aarch64)")
        );
        assert_eq!(
            unsupported_platform("windows", "x86_64").as_deref(),
            Some("Windows (x86_64)")
        );
        assert_eq!(
            unsupported_platform("linux", "riscv64").as_deref(),
            Some("Linux (riscv64)")
        );
    }

    #[test]
    fn the_messages_are_one_line_naming_the_install_command() {
        let missing = ValgrindError::Missing {
            where_: String::new(),
            install: "sudo apt-get install valgrind".into(),
        };
        assert_eq!(
            missing.to_string(),
            "instruction counts need valgrind, which is not installed: install it with \
             `sudo apt-get install valgrind`"
        );
        let unsupported = ValgrindError::UnsupportedPlatform {
            platform: "macOS (aarch64)".into(),
            install: "sudo apt-get install valgrind".into(),
        };
        let text = unsupported.to_string();
        assert!(!text.contains('\n'), "{text}");
        assert!(text.contains("does not support macOS (aarch64)"), "{text}");
        assert!(text.contains("`sudo apt-get install valgrind`"), "{text}");
    }

    #[test]
    fn a_program_is_located_on_the_path_or_at_its_own_path() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("tool");
        std::fs::write(&script, "#!/bin/sh\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let path_var = std::env::join_paths(["/nonexistent".as_ref(), dir.path()]).unwrap();
        assert_eq!(locate("tool".as_ref(), &path_var), Some(script.clone()));
        assert_eq!(locate("absent".as_ref(), &path_var), None);
        assert_eq!(
            locate(script.as_os_str(), "".as_ref()),
            Some(script.clone())
        );
        // Not executable: not valgrind.
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert_eq!(locate("tool".as_ref(), &path_var), None);
    }

    #[test]
    fn a_missing_or_broken_valgrind_is_refused_with_the_install_command() {
        let install = || "sudo apt-get install valgrind".to_string();
        let missing = Valgrind::find_in(None, "/nonexistent".as_ref(), install()).unwrap_err();
        assert!(
            matches!(missing, ValgrindError::Missing { .. }),
            "{missing}"
        );
        let named = Valgrind::find_in(Some("/no/valgrind".into()), "".as_ref(), install());
        let text = named.unwrap_err().to_string();
        assert!(
            text.contains("(CARGO_PERFDIFF_VALGRIND=/no/valgrind)"),
            "{text}"
        );
        let broken = Valgrind::find_in(Some("/bin/false".into()), "".as_ref(), install());
        let text = broken.unwrap_err().to_string();
        assert!(
            text.starts_with("/bin/false does not work as valgrind"),
            "{text}"
        );
        assert!(text.contains("`sudo apt-get install valgrind`"), "{text}");
    }

    /// The real one: this machine and CI install valgrind (`.ci/run`).
    #[test]
    fn the_installed_valgrind_is_found() {
        let valgrind = Valgrind::find().expect("valgrind is installed (.ci/run installs it)");
        assert!(
            valgrind.version.starts_with("valgrind-3."),
            "{}",
            valgrind.version
        );
    }

    /// A callgrind run this tool kills (at its budget, or a stall) leaves nothing in `/tmp`:
    /// valgrind's gdbserver files exist from its start, so the run is killed once its program
    /// has started (it creates a marker file), then `/tmp` is searched for that process's files.
    #[test]
    fn a_killed_callgrind_run_leaves_no_files_in_tmp() {
        let valgrind = Valgrind::find().expect("valgrind is installed (.ci/run installs it)");
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("started");
        let mut child = Command::new(&valgrind.path)
            .args(CALLGRIND)
            .arg(format!(
                "--callgrind-out-file={}/out.%p",
                dir.path().display()
            ))
            .args(["sh", "-c", "touch \"$0\"; exec sleep 60"])
            .arg(&marker)
            .spawn()
            .unwrap();
        while !marker.exists() {
            if let Some(status) = child.try_wait().unwrap() {
                panic!("valgrind exited before its program started: {status}");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let pid = child.id();
        child.kill().unwrap();
        child.wait().unwrap();
        let left: Vec<String> = std::fs::read_dir(std::env::temp_dir())
            .unwrap()
            .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
            .filter(|name| name.starts_with("vgdb-") && name.contains(&format!("-{pid}-")))
            .collect();
        assert!(left.is_empty(), "left in /tmp: {left:?}");
    }
}
