//! The files a traced process touched, read from valgrind's `--trace-syscalls=yes` log.
//!
//! Why valgrind's log and not `strace`: the benchmark already runs under valgrind for its code,
//! valgrind sees every system call of the program it runs (before the kernel does), and no second
//! tool has to be installed (CI installs valgrind alone). The cost is a format that is valgrind's
//! own debugging output, so it is read strictly: an `open` whose path cannot be resolved is kept
//! as [`Touched::unresolved`], never dropped, and the caller treats any as "cannot tell".
//!
//! The format, as valgrind 3.19 writes it (one line per call, or two when the call blocks and
//! other threads' calls may come between):
//!
//! ```text
//! SYSCALL[9881,1](257) sys_openat ( 4294967196, 0x1fff000a43(/etc/hostname), 0 ) --> [async] ...
//! SYSCALL[9881,1](257) ... [async] --> Success(0x4)
//! SYSCALL[9881,1](262) sys_newfstatat ( 4, 0x49dbdd5(), 0x1fff000580 )[sync] --> Success(0x0)
//! ```
//!
//! `[pid,tid]`, the call's number, its name and arguments, a string argument as `0xADDR(text)`,
//! the directory descriptor `AT_FDCWD` (-100) printed as `4294967196`, and the result
//! (`Success(0xFD)`, `Failure(0xERRNO)`), on the same line (`[sync]`) or on a later
//! `... [async] -->` line of the same thread.
//!
//! What counts: `open`, `openat`, `openat2` and `creat` (a file read or written, a directory
//! listed, or a path that was not there: all three can change what the benchmark does), the
//! stat family and `access` (a path probed), `execve` (a program started), and `chdir`/`fchdir`
//! (relative paths after them resolve elsewhere).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// How a path was touched; a path touched several ways keeps the strongest (the last variant
/// strongest).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    /// Only its metadata or existence was asked (`stat`, `access`, …), or the call failed.
    Probed,
    /// An open of it failed (it was not there, or was refused): its absence was seen.
    Missing,
    /// Opened for writing only (`O_WRONLY`, `creat`): nothing was read through it.
    Written,
    /// Opened as a file (read, written, or both).
    Opened,
    /// Opened as a directory (`O_DIRECTORY`, as `read_dir` does): its listing may have been read.
    Directory,
}

/// What the system calls of one run touched.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Touched {
    /// Absolute paths (relative ones resolved against the process's working directory).
    pub files: BTreeMap<PathBuf, Access>,
    /// Programs it started (`execve`), absolute when they were given so.
    pub programs: BTreeSet<PathBuf>,
    /// Calls whose path could not be resolved or whose line could not be read, as logged.
    pub unresolved: BTreeSet<String>,
    /// Whether it set a thread's CPU affinity (`sched_setaffinity`, which
    /// `pthread_setaffinity_np` and `core_affinity` call, and valgrind passes through): a
    /// benchmark that pins itself, whose native probe runs alone from the start
    /// ([`crate::steps::reach::trace::TouchedFiles::sets_affinity`]). Any call counts, failed or
    /// not: a scheduling choice only.
    pub sets_affinity: bool,
}

impl Touched {
    fn touch(&mut self, path: PathBuf, access: Access) {
        let entry = self.files.entry(path).or_insert(access);
        *entry = (*entry).max(access);
    }

    /// Adds what `other` touched.
    pub fn merge(&mut self, other: Touched) {
        for (path, access) in other.files {
            self.touch(path, access);
        }
        self.programs.extend(other.programs);
        self.unresolved.extend(other.unresolved);
        self.sets_affinity |= other.sets_affinity;
    }
}

/// `AT_FDCWD` as valgrind prints a directory descriptor (an `int` printed as unsigned, or signed).
const AT_FDCWD: [&str; 2] = ["4294967196", "-100"];

/// The calls that open a path: name, index of the directory descriptor argument (if any), index
/// of the path, index of the flags (if any).
const OPENS: &[(&str, Option<usize>, usize, Option<usize>)] = &[
    ("sys_open", None, 0, Some(1)),
    ("sys_creat", None, 0, None),
    ("sys_openat", Some(0), 1, Some(2)),
    ("sys_openat2", Some(0), 1, None),
];

/// The calls that only look at a path: name, directory descriptor argument, path argument.
const PROBES: &[(&str, Option<usize>, usize)] = &[
    ("sys_stat", None, 0),
    ("sys_newstat", None, 0),
    ("sys_lstat", None, 0),
    ("sys_newlstat", None, 0),
    ("sys_stat64", None, 0),
    ("sys_lstat64", None, 0),
    ("sys_access", None, 0),
    ("sys_readlink", None, 0),
    ("sys_newfstatat", Some(0), 1),
    ("sys_fstatat64", Some(0), 1),
    ("sys_statx", Some(0), 1),
    ("sys_faccessat", Some(0), 1),
    ("sys_faccessat2", Some(0), 1),
    ("sys_readlinkat", Some(0), 1),
];

/// The call that sets a thread's CPU affinity, as valgrind 3.19 names it (without the `sys_` of
/// most others), and with it.
const AFFINITY: [&str; 2] = ["sched_setaffinity ( ", "sys_sched_setaffinity ( "];

/// One process's state while its log is read.
struct Process {
    /// Its working directory; `None` once it changed in a way the log does not show.
    cwd: Option<PathBuf>,
    /// Descriptors opened on paths, for paths relative to a directory descriptor.
    descriptors: HashMap<u64, PathBuf>,
    /// A call of each thread waiting for its `[async]` result: the path it opened, how, and
    /// whether it was a `chdir`.
    pending: HashMap<u64, Pending>,
}

#[derive(Clone)]
struct Pending {
    path: PathBuf,
    access: Access,
    chdir: bool,
}

/// Reads the log of one process that started in `cwd` (`None`: not known, relative paths are
/// then unresolved).
pub fn parse(log: &str, cwd: Option<&Path>) -> Touched {
    let mut touched = Touched::default();
    let mut process = Process {
        cwd: cwd.map(Path::to_path_buf),
        descriptors: HashMap::new(),
        pending: HashMap::new(),
    };
    for line in log.lines() {
        if let Some(call) = Call::parse(line) {
            process.call(&call, &mut touched);
        }
    }
    // A call that never returned (the process ended in it): it may still have read the path.
    for pending in process.pending.into_values() {
        if !pending.chdir {
            touched.touch(pending.path, pending.access);
        }
    }
    touched
}

/// Whether the process of `log` replaced itself with another program: a successful `execve`
/// never returns, so its line has no result (`-->`). Such a process writes no profile.
pub fn replaced_itself(log: &str) -> bool {
    log.lines().any(|line| {
        line.starts_with("SYSCALL[")
            && (line.contains(") sys_execve ( ") || line.contains(") sys_execveat ( "))
            && !line.contains("-->")
    })
}

/// One line of the log that is a system call (its start, its end, or both).
struct Call<'a> {
    thread: u64,
    /// The call's name (`sys_openat`) and its argument text, when the line starts a call.
    start: Option<(&'a str, &'a str)>,
    /// The result, when the line ends a call: `Ok(value)` or `Err(errno)`.
    result: Option<Result<u64, u64>>,
    /// Whether the line starts a call that sets a thread's CPU affinity ([`AFFINITY`]).
    affinity: bool,
}

impl<'a> Call<'a> {
    fn parse(line: &'a str) -> Option<Call<'a>> {
        let rest = line.strip_prefix("SYSCALL[")?;
        let (ids, rest) = rest.split_once(']')?;
        let thread = ids.split_once(',')?.1.trim().parse().ok()?;
        let (_, rest) = rest.split_once(')')?;
        let rest = rest.trim_start();
        let result = rest.rsplit_once("--> ").and_then(|(_, r)| parse_result(r));
        let start = rest
            .starts_with("sys_")
            .then(|| rest.split_once(" ( "))
            .flatten();
        Some(Call {
            thread,
            start,
            result,
            affinity: AFFINITY.iter().any(|name| rest.starts_with(name)),
        })
    }
}

/// `Success(0x4)` → `Ok(4)`, `Failure(0x2)` → `Err(2)` (after `[async]`/`[sync]` markers).
fn parse_result(text: &str) -> Option<Result<u64, u64>> {
    let text = text.trim().trim_start_matches("[async]").trim_start();
    let text = text
        .strip_prefix("[pre-success]")
        .or_else(|| text.strip_prefix("[pre-fail]"))
        .unwrap_or(text)
        .trim_start();
    let (kind, value) = text.split_once('(')?;
    let value = value.split_once(')')?.0;
    let value = u64::from_str_radix(value.trim_start_matches("0x"), 16).ok()?;
    match kind {
        "Success" => Some(Ok(value)),
        "Failure" => Some(Err(value)),
        _ => None,
    }
}

impl Process {
    fn call(&mut self, call: &Call<'_>, touched: &mut Touched) {
        touched.sets_affinity |= call.affinity;
        if let Some((name, args)) = call.start {
            self.start(call.thread, name, args, touched);
        }
        if let Some(result) = call.result
            && let Some(pending) = self.pending.remove(&call.thread)
        {
            self.finish(pending, result, touched);
        }
    }

    fn start(&mut self, thread: u64, name: &str, args: &str, touched: &mut Touched) {
        // A thread's call left without its result (not seen in valgrind's logs): as if it
        // succeeded, so its path is not lost.
        if let Some(pending) = self.pending.remove(&thread)
            && !pending.chdir
        {
            touched.touch(pending.path, pending.access);
        }
        let arguments = split_arguments(args);
        if let Some(&(_, dirfd, path_at, flags_at)) = OPENS.iter().find(|o| o.0 == name) {
            let flags = flags_at.and_then(|i| arguments.get(i).and_then(|f| flags_value(f)));
            let access = match flags {
                Some(flags) if flags & i64::from(libc::O_DIRECTORY) != 0 => Access::Directory,
                Some(flags) if flags & i64::from(libc::O_ACCMODE) == i64::from(libc::O_WRONLY) => {
                    Access::Written
                }
                // `creat` writes only; `openat2`'s flags are in a structure the log does not show.
                None if name == "sys_creat" => Access::Written,
                _ => Access::Opened,
            };
            self.path_call(
                thread,
                (name, args),
                (dirfd, path_at),
                access,
                &arguments,
                touched,
            );
        } else if let Some(&(_, dirfd, path_at)) = PROBES.iter().find(|p| p.0 == name) {
            self.path_call(
                thread,
                (name, args),
                (dirfd, path_at),
                Access::Probed,
                &arguments,
                touched,
            );
        } else if name == "sys_execve" || name == "sys_execveat" {
            let path_at = usize::from(name == "sys_execveat");
            match arguments.get(path_at).and_then(|a| string_argument(a)) {
                Some(program) => {
                    touched.programs.insert(PathBuf::from(program));
                }
                None => {
                    touched.unresolved.insert(format!("{name} ( {args}"));
                }
            }
        } else if name == "sys_chdir" {
            let path = arguments.first().and_then(|a| string_argument(a));
            match path.and_then(|p| self.resolve(None, p)) {
                Some(path) => {
                    self.pending.insert(
                        thread,
                        Pending {
                            path,
                            access: Access::Probed,
                            chdir: true,
                        },
                    );
                }
                None => self.cwd = None,
            }
        } else if name == "sys_fchdir" {
            self.cwd = None;
        }
    }

    /// A call on the path of `arguments[path_at]`, relative to descriptor `arguments[dirfd]`.
    fn path_call(
        &mut self,
        thread: u64,
        (name, args): (&str, &str),
        (dirfd, path_at): (Option<usize>, usize),
        access: Access,
        arguments: &[&str],
        touched: &mut Touched,
    ) {
        if arguments.get(path_at).is_some_and(|a| null_pointer(a)) {
            // No path at all: the kernel fails the call (EFAULT) without looking anything up.
            // Rust's standard library makes such a `statx` call to learn whether `statx` exists.
            return;
        }
        let Some(path) = arguments.get(path_at).and_then(|a| string_argument(a)) else {
            touched.unresolved.insert(format!("{name} ( {args}"));
            return;
        };
        if path.is_empty() {
            // `fstatat(fd, "", AT_EMPTY_PATH)`: the descriptor itself, already counted.
            return;
        }
        let directory = dirfd.map(|i| arguments.get(i).copied().unwrap_or(""));
        match self.resolve(directory, path) {
            Some(path) => {
                self.pending.insert(
                    thread,
                    Pending {
                        path,
                        access,
                        chdir: false,
                    },
                );
            }
            None => {
                touched.unresolved.insert(format!("{name} ( {args}"));
            }
        }
    }

    fn finish(&mut self, pending: Pending, result: Result<u64, u64>, touched: &mut Touched) {
        match (pending.chdir, result) {
            (true, Ok(_)) => self.cwd = Some(pending.path),
            (true, Err(_)) => {}
            (false, Ok(fd)) => {
                if pending.access >= Access::Written {
                    self.descriptors.insert(fd, pending.path.clone());
                }
                touched.touch(pending.path, pending.access);
            }
            (false, Err(_)) => {
                let access = pending.access.min(Access::Missing);
                touched.touch(pending.path, access);
            }
        }
    }

    /// `path` made absolute: against the directory of descriptor `directory` (as printed; `None`
    /// or `AT_FDCWD` for the working directory); `None` when that directory is not known.
    fn resolve(&self, directory: Option<&str>, path: &str) -> Option<PathBuf> {
        let path = Path::new(path);
        if path.is_absolute() {
            return Some(clean(path));
        }
        let base = match directory {
            None => self.cwd.as_ref()?,
            Some(fd) if AT_FDCWD.contains(&fd.trim()) => self.cwd.as_ref()?,
            Some(fd) => self.descriptors.get(&fd.trim().parse::<u64>().ok()?)?,
        };
        Some(clean(&base.join(path)))
    }
}

/// `path` without `.` components (`..` kept: it may cross a symbolic link).
fn clean(path: &Path) -> PathBuf {
    path.components().collect()
}

/// A printed flags argument (decimal or `0x` hex).
fn flags_value(flags: &str) -> Option<i64> {
    let flags = flags.trim();
    match flags.strip_prefix("0x") {
        Some(hex) => i64::from_str_radix(hex, 16).ok(),
        None => flags.parse::<i64>().ok(),
    }
}

/// The arguments of `args` (the text after `sys_x ( `), split at the commas outside a string
/// argument's parentheses.
fn split_arguments(args: &str) -> Vec<&str> {
    let mut arguments = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (i, c) in args.char_indices() {
        match c {
            '(' => depth += 1,
            ')' if depth == 0 => {
                arguments.push(args[start..i].trim());
                return arguments;
            }
            ')' => depth -= 1,
            ',' if depth == 0 => {
                arguments.push(args[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    // No closing parenthesis: a path with one in it, or a line cut short. Unreadable.
    Vec::new()
}

/// The text of a string argument `0xADDR(text)`; `None` when it is not one.
fn string_argument(argument: &str) -> Option<&str> {
    let rest = argument.strip_prefix("0x")?;
    let open = rest.find('(')?;
    if !rest[..open].bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    rest[open + 1..].strip_suffix(')')
}

/// Whether a pointer argument is null: valgrind prints a null string argument `0x0((null))`.
fn null_pointer(argument: &str) -> bool {
    argument
        .strip_prefix("0x")
        .and_then(|rest| rest.split_once('('))
        .is_some_and(|(address, _)| u64::from_str_radix(address, 16) == Ok(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines as valgrind 3.19 wrote them for `cat /etc/hostname ./nonexist` (shortened), with a
    /// second thread's calls between an `[async]` start and its end.
    const LOG: &str = "\
==9881== Callgrind, a call-graph generating cache profiler
SYSCALL[9881,1](257) sys_openat ( 4294967196, 0x4035530(/usr/lib/locale/C.UTF-8/LC_IDENTIFICATION), 524288 ) --> [async] ...
SYSCALL[9881,1](257) ... [async] --> Success(0x3)
SYSCALL[9881,1](3) sys_close ( 3 )[sync] --> Success(0x0)
SYSCALL[9881,1](257) sys_openat ( 4294967196, 0x1fff000a43(/etc/hostname), 0 ) --> [async] ...
SYSCALL[9881,2](262) sys_newfstatat ( 4294967196, 0x49dbdd5(data/probe.txt), 0x1ffeffeca0 )[sync] --> Failure(0x2)
SYSCALL[9881,1](257) ... [async] --> Success(0x4)
SYSCALL[9881,1](262) sys_newfstatat ( 4, 0x49dbdd5(), 0x1fff000580 )[sync] --> Success(0x0)
SYSCALL[9881,1](257) sys_openat ( 4294967196, 0x1fff000a51(./nonexist), 0 ) --> [async] ...
SYSCALL[9881,1](257) ... [async] --> Failure(0x2)
SYSCALL[9881,1](257) sys_openat ( 4294967196, 0x1fff000a51(data), 591872 ) --> [async] ...
SYSCALL[9881,1](257) ... [async] --> Success(0x5)
SYSCALL[9881,1](257) sys_openat ( 5, 0x1fff000a51(inner.bin), 524288 ) --> [async] ...
SYSCALL[9881,1](257) ... [async] --> Success(0x6)
SYSCALL[9881,1](257) sys_openat ( 9, 0x1fff000a51(unknown.bin), 524288 ) --> [async] ...
SYSCALL[9881,1](257) ... [async] --> Success(0x7)
SYSCALL[9881,1](59) sys_execve ( 0x1fff000b00(/usr/bin/gnuplot), 0x1fff000c00, 0x1fff000d00 ) --> [pre-fail] Failure(0x2)
SYSCALL[9881,1](257) sys_openat ( 4294967196, 0x1fff000a51(out.log), 577 ) --> [async] ...
SYSCALL[9881,1](257) ... [async] --> Success(0x8)
SYSCALL[9881,1](257) sys_openat ( 4294967196, 0x1fff000a51(both.txt), 577 )[sync] --> Success(0x9)
SYSCALL[9881,1](257) sys_openat ( 4294967196, 0x1fff000a51(both.txt), 524288 )[sync] --> Success(0xa)
";

    #[test]
    fn a_call_setting_a_thread_s_cpu_affinity_is_seen() {
        // As valgrind 3.19 wrote them for `taskset -c 0 true`: the set call without `sys_`.
        let pinned = "\
SYSCALL[23473,1](204) sched_getaffinity ( 0, 256, 0x4038b60 )[sync] --> Success(0x20)
SYSCALL[23473,1](203) sched_setaffinity ( 0, 32, 0x40393b0 )[sync] --> Success(0x0)
";
        assert!(parse(pinned, None).sets_affinity);
        // Only reading it, or nothing of it, is not setting it.
        let read = pinned.lines().next().unwrap();
        assert!(!parse(read, None).sets_affinity);
        assert!(!parse(LOG, Some(Path::new("/ck"))).sets_affinity);
        // Merged into what other processes' logs touched.
        let mut all = parse(LOG, Some(Path::new("/ck")));
        all.merge(parse(pinned, None));
        assert!(all.sets_affinity);
    }

    #[test]
    fn opens_probes_and_programs_are_read_with_their_results() {
        let touched = parse(LOG, Some(Path::new("/ck/pkg")));
        let files: Vec<(String, Access)> = touched
            .files
            .iter()
            .map(|(p, a)| (p.display().to_string(), *a))
            .collect();
        assert_eq!(
            files,
            [
                ("/ck/pkg/both.txt".to_string(), Access::Opened),
                ("/ck/pkg/data".to_string(), Access::Directory),
                ("/ck/pkg/data/inner.bin".to_string(), Access::Opened),
                ("/ck/pkg/data/probe.txt".to_string(), Access::Probed),
                ("/ck/pkg/nonexist".to_string(), Access::Missing),
                ("/ck/pkg/out.log".to_string(), Access::Written),
                ("/etc/hostname".to_string(), Access::Opened),
                (
                    "/usr/lib/locale/C.UTF-8/LC_IDENTIFICATION".to_string(),
                    Access::Opened
                ),
            ]
        );
        assert_eq!(
            touched.programs,
            BTreeSet::from([PathBuf::from("/usr/bin/gnuplot")])
        );
        // Relative to descriptor 9, which the log never opened: not guessed.
        assert_eq!(touched.unresolved.len(), 1, "{:?}", touched.unresolved);
        assert!(
            touched
                .unresolved
                .iter()
                .next()
                .unwrap()
                .contains("unknown.bin")
        );
    }

    #[test]
    fn a_chdir_moves_relative_paths_and_an_fchdir_makes_them_unresolved() {
        let log = "\
SYSCALL[5,1](80) sys_chdir ( 0x10(/elsewhere) )[sync] --> Success(0x0)
SYSCALL[5,1](257) sys_openat ( 4294967196, 0x20(a.txt), 0 )[sync] --> Success(0x3)
SYSCALL[5,1](80) sys_chdir ( 0x10(/missing) )[sync] --> Failure(0x2)
SYSCALL[5,1](257) sys_openat ( 4294967196, 0x20(b.txt), 0 )[sync] --> Success(0x3)
SYSCALL[5,1](81) sys_fchdir ( 3 )[sync] --> Success(0x0)
SYSCALL[5,1](257) sys_openat ( 4294967196, 0x20(c.txt), 0 )[sync] --> Success(0x3)
SYSCALL[5,1](257) sys_openat ( 4294967196, 0x20(/abs/./d.txt), 0 )[sync] --> Success(0x3)
";
        let touched = parse(log, Some(Path::new("/start")));
        let files: Vec<&Path> = touched.files.keys().map(PathBuf::as_path).collect();
        assert_eq!(
            files,
            [
                Path::new("/abs/d.txt"),
                Path::new("/elsewhere/a.txt"),
                Path::new("/elsewhere/b.txt")
            ]
        );
        assert_eq!(touched.unresolved.len(), 1);
    }

    #[test]
    fn a_call_with_a_null_path_touches_nothing_and_leaves_nothing_unresolved() {
        // Rust's standard library on nightly (2026) probes for `statx` this way, in every
        // libtest bench executable: it made every benchmark of RustCrypto/hashes "measured".
        let log = "\
SYSCALL[7,1](332) sys_statx ( 0, 0x0((null)), 0, 4095, 0x0 )[sync] --> Failure(0xe)
SYSCALL[7,1](257) sys_openat ( 4294967196, 0x20(data/in.txt), 0 )[sync] --> Success(0x3)
";
        let touched = parse(log, Some(Path::new("/start")));
        assert!(touched.unresolved.is_empty(), "{touched:?}");
        let files: Vec<&Path> = touched.files.keys().map(PathBuf::as_path).collect();
        assert_eq!(files, [Path::new("/start/data/in.txt")]);
    }

    #[test]
    fn a_line_that_cannot_be_read_is_unresolved_never_dropped() {
        // A path with a line break in it: valgrind's line ends inside the string.
        let log = "SYSCALL[5,1](257) sys_openat ( 4294967196, 0x20(data/odd\n";
        let touched = parse(log, Some(Path::new("/start")));
        assert!(touched.files.is_empty());
        assert_eq!(touched.unresolved.len(), 1);
        // A call that never returned still counts as opened.
        let log = "SYSCALL[5,1](257) sys_openat ( 4294967196, 0x20(x.txt), 0 ) --> [async] ...\n";
        let touched = parse(log, Some(Path::new("/start")));
        assert_eq!(
            touched.files.get(Path::new("/start/x.txt")),
            Some(&Access::Opened)
        );
    }

    #[test]
    fn a_process_that_started_another_program_is_told_from_one_that_failed_to() {
        // As valgrind 3.19 logged `sh -c "/bin/true; exit 0"`: the child that became /bin/true.
        let replaced = "SYSCALL[17866,1](14) sys_rt_sigprocmask ( 2, 0x1fff0002c0, 0x1fff000340, 8 ) --> [pre-success] Success(0x0)
SYSCALL[17866,1](59) sys_execve ( 0x1298d8(/bin/true), 0x129900, 0x4035b98 )
";
        assert!(replaced_itself(replaced));
        assert!(!replaced_itself(LOG), "its execve failed");
    }

    #[test]
    fn the_strongest_access_wins() {
        let mut a = Touched::default();
        a.touch("/x".into(), Access::Probed);
        a.touch("/x".into(), Access::Opened);
        a.touch("/x".into(), Access::Missing);
        let mut b = Touched::default();
        b.touch("/x".into(), Access::Directory);
        a.merge(b);
        assert_eq!(a.files[Path::new("/x")], Access::Directory);
    }
}
