//! Code layouts: the same code of a bench target, linked in other orders.
//!
//! Why: a benchmark's speed depends on where its code sits (function order, alignment, which
//! functions share a cache line or a branch-predictor slot), not only on what the code does. One
//! executable is one sample of layout (Curtsinger & Berger, STABILIZER, ASPLOS 2013), and a
//! change anywhere in a crate moves code it never touches, so a comparison of two executables
//! compares two layouts as well as two versions of the code (`docs/layout.md`). Measuring each
//! revision in several layouts lets the analysis see how far a benchmark moves from layout alone.
//!
//! Layout 0 is cargo's own build, the executable the user's `cargo bench` makes. Layout `k ≥ 1`
//! is the same bench target relinked by
//! `cargo rustc --profile bench --bench T -p ID -- -C link-arg=-Wl,--shuffle-sections=*=k`:
//! the extra arguments of `cargo rustc` change no crate's `-C metadata` and no code (the symbol
//! names, and with them codegen-unit partitioning and inlining, stay those of layout 0, as
//! `tests/layouts.rs` checks), only the order in which the linker places the input sections; and
//! with one section per function (rustc's default) that is the function order. Cargo keeps each
//! variant as a unit of its own, so it is built once per source and seed and reused, and a crate
//! whose source is the same on both sides gets byte-identical executables in every layout.
//!
//! Only layout 1 goes through cargo, asked to keep the objects it links (`-C save-temps`) and
//! to print the linker's command line (`--print link-args`). Layouts 2, 3, … link those same
//! objects again with another seed ([`LinkCommand::replay`]): the executable is byte-identical
//! to the one `cargo rustc` would build for that seed (the compiled code does not depend on the
//! seed), and a link takes a fraction of a second where `cargo rustc` recompiles the bench crate
//! (4.6 s for k256's `field` target, against 0.07 s). The objects the command links stay beside
//! layout 1's executable, with the command in `<executable>.perfdiff-link`, because cargo finds
//! layout 1 up to date whenever the target's code did not change (a new commit elsewhere in the
//! workspace) and prints nothing then; the other intermediate files of `-C save-temps` (bitcode)
//! are removed. When there is no command, or a replay fails, the layout is built through cargo
//! as layout 1 is.
//!
//! `--shuffle-sections` is an option of LLVM's lld (rust-lld, the default linker on x86_64 Linux
//! since Rust 1.90); a linker that rejects it leaves the target with layout 0 alone, and the run
//! says so. The seeds are fixed (layout `k` is seed `k`; lld takes 0 for a random seed), so every
//! run of a commit measures the same layouts and reuses their builds.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::build::{BenchArtifact, BuildEvent, BuildOptions, CargoBuild};

/// The `-C` argument that makes layout `layout` (at least 1) of a bench executable.
pub fn shuffle_link_arg(layout: usize) -> String {
    format!("link-arg=-Wl,--shuffle-sections=*={layout}")
}

/// Relinks the executables of one build: the cargo that built them, its options, and which
/// kind of target they are.
pub struct Relinker<'a> {
    pub(crate) cargo: &'a CargoBuild<'a>,
    pub opts: &'a BuildOptions,
    pub kind: RelinkedKind<'a>,
}

/// The kind of target a [`Relinker`] relinks, and the profile it was built with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RelinkedKind<'a> {
    /// Bench targets, built with the `bench` profile (`cargo bench`).
    Bench,
    /// Programs (`bin` targets), built with this profile (`cargo build --profile P`).
    Bin { profile: &'a str },
}

impl<'a> RelinkedKind<'a> {
    /// The `cargo rustc` arguments that select `target` of this kind.
    fn selection<'t>(self, target: &'t str) -> [&'t str; 4]
    where
        'a: 't,
    {
        match self {
            RelinkedKind::Bench => ["--profile", "bench", "--bench", target],
            RelinkedKind::Bin { profile } => ["--profile", profile, "--bin", target],
        }
    }
}

/// A layout cargo built: its executable (in the target directory) and, when it was asked for,
/// the linker command that made it (printed now, or saved when cargo last linked it).
pub struct Relinked {
    pub executable: PathBuf,
    pub link: Option<LinkCommand>,
}

impl Relinker<'_> {
    /// Builds layout `layout` of `artifact` through cargo, or says why it could not: the one-line
    /// reason of cargo or the linker. With `keep_link`, the objects are kept and the linker
    /// command is returned, for [`LinkCommand::replay`].
    pub fn relink(
        &self,
        artifact: &BenchArtifact,
        layout: usize,
        keep_link: bool,
        on_event: &mut dyn FnMut(BuildEvent),
    ) -> Result<Relinked, String> {
        let mut args: Vec<String> = ["rustc", "--message-format=json"]
            .map(String::from)
            .to_vec();
        args.extend(["--package", &artifact.package_id].map(String::from));
        args.extend(self.kind.selection(&artifact.target).map(String::from));
        args.extend(self.opts.feature_args());
        args.extend(["--".to_string(), "-C".to_string(), shuffle_link_arg(layout)]);
        if keep_link {
            args.extend(["-C", "save-temps", "--print", "link-args"].map(String::from));
        }
        let command = self.cargo.cargo(&args);
        let (parsed, stderr_tail, status) =
            crate::build::run_cargo(command, self.cargo.workspace_dir, on_event)
                .map_err(|e| e.to_string())?;
        let artifacts = match self.kind {
            RelinkedKind::Bench => &parsed.benches,
            RelinkedKind::Bin { .. } => &parsed.programs,
        };
        let built = artifacts
            .iter()
            .find(|b| b.package_id == artifact.package_id && b.target == artifact.target);
        match built {
            Some(built) if status.success() => Ok(Relinked {
                executable: built.executable.clone(),
                link: keep_link
                    .then(|| {
                        LinkCommand::printed_or_saved(&parsed.printed, &built.executable, layout)
                    })
                    .flatten(),
            }),
            _ => Err(failure_reason(&parsed.errors(), &stderr_tail)),
        }
    }
}

/// The command rustc ran to link one layout, as `--print link-args` shows it:
/// `KEY="value" … "cc" "arg" …`, each string in Rust's debug quoting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkCommand {
    /// The line as rustc printed it, which is what is saved.
    line: String,
    env: Vec<(OsString, OsString)>,
    program: OsString,
    args: Vec<OsString>,
    /// Where `args` name the output (the argument after `-o`) and the shuffle seed.
    output_at: usize,
    seed_at: usize,
}

impl LinkCommand {
    /// The linker command in `line`, if it is one that links layout `layout`: it names an
    /// output and has that layout's shuffle argument.
    pub fn parse(line: &str, layout: usize) -> Option<LinkCommand> {
        let mut env = Vec::new();
        let mut words = Vec::new();
        let mut rest = line.trim();
        while !rest.is_empty() {
            let (key, quoted) = match rest.find('"') {
                Some(0) => (None, rest),
                Some(at) => {
                    let key = rest[..at].strip_suffix('=')?;
                    let plain = key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                    (plain.then_some(key)?.into(), &rest[at..])
                }
                None => return None,
            };
            let (value, after) = unquote(quoted)?;
            match key {
                Some(key) => env.push((OsString::from(key), value)),
                None => words.push(value),
            }
            rest = after.trim_start();
        }
        let seed = format!("-Wl,--shuffle-sections=*={layout}");
        let seed_at = words
            .iter()
            .position(|w| w == seed.as_str())?
            .checked_sub(1)?;
        let output_at = words.iter().position(|w| w == "-o")?;
        let program = words.first()?.clone();
        Some(LinkCommand {
            line: line.trim().to_string(),
            env,
            program,
            args: words.split_off(1),
            output_at,
            seed_at,
        })
    }

    /// The command rustc printed for `executable` in `printed`, saved beside it (replacing the
    /// one saved before, whose temporary directory is removed); else the one saved when cargo
    /// last linked it, if every file it links is still there.
    fn printed_or_saved(printed: &[String], executable: &Path, layout: usize) -> Option<Self> {
        let saved_at = saved_path(executable);
        let saved = std::fs::read_to_string(&saved_at)
            .ok()
            .and_then(|line| LinkCommand::parse(&line, layout));
        let commands: Vec<LinkCommand> = printed
            .iter()
            .filter_map(|line| LinkCommand::parse(line, layout))
            .collect();
        let fresh = match commands.iter().position(|link| link.output() == executable) {
            Some(at) => commands.into_iter().nth(at),
            // One command can only be this target's, wherever its output was named.
            None if commands.len() == 1 => commands.into_iter().next(),
            None => None,
        };
        match fresh {
            Some(fresh) => {
                if let Some(old) = saved.filter(|old| old.temp_dirs() != fresh.temp_dirs()) {
                    old.temp_dirs().iter().for_each(|dir| {
                        let _ = std::fs::remove_dir_all(dir);
                    });
                }
                let _ = std::fs::write(&saved_at, &fresh.line);
                Some(fresh)
            }
            None => saved.filter(LinkCommand::inputs_exist),
        }
    }

    /// Whether every object and library the command links is still on disk.
    fn inputs_exist(&self) -> bool {
        self.args
            .iter()
            .map(Path::new)
            .filter(|arg| arg.is_absolute() && is_link_input(arg))
            .all(Path::exists)
    }

    /// rustc's temporary directories (`rustcXXXXXX`, holding `symbols.o`) beside the output.
    fn temp_dirs(&self) -> std::collections::BTreeSet<&Path> {
        let dir = self.output().parent();
        self.args
            .iter()
            .filter_map(|arg| Path::new(arg).parent())
            .filter(|parent| {
                parent.parent() == dir
                    && parent
                        .file_name()
                        .is_some_and(|name| name.to_string_lossy().starts_with("rustc"))
            })
            .collect()
    }

    /// Links layout `layout` into `output` from the same objects.
    pub fn replay(&self, layout: usize, output: &Path, dir: &Path) -> Result<(), String> {
        let mut args = self.args.clone();
        args[self.seed_at] = format!("-Wl,--shuffle-sections=*={layout}").into();
        args[self.output_at] = output.as_os_str().to_os_string();
        let done = Command::new(&self.program)
            .args(&args)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .current_dir(dir)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("cannot run {}: {e}", self.program.to_string_lossy()))?;
        if done.status.success() {
            return Ok(());
        }
        let stderr = String::from_utf8_lossy(&done.stderr);
        Err(stderr
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("the linker failed without a message")
            .trim()
            .to_string())
    }

    /// The executable this command linked.
    pub fn output(&self) -> &Path {
        Path::new(&self.args[self.output_at])
    }

    /// Removes what `-C save-temps` kept beside the executable that this command does not link
    /// (bitcode and objects of earlier builds), never cargo's dep-info (`<name>.d`) nor the
    /// saved command. Failures are ignored: they cost disk space, not correctness.
    pub fn remove_unlinked_intermediates(&self) {
        let output = self.output();
        let (Some(dir), Some(name)) = (output.parent(), output.file_name()) else {
            return;
        };
        let prefix = format!("{}.", name.to_string_lossy());
        let linked: std::collections::BTreeSet<&Path> = self.args.iter().map(Path::new).collect();
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let file = entry.file_name().to_string_lossy().into_owned();
            if file.starts_with(&prefix)
                && is_intermediate(&file)
                && !linked.contains(path.as_path())
            {
                let _ = std::fs::remove_file(path);
            }
        }
    }
}

/// Where the link command of the layout-1 executable `executable` is saved.
fn saved_path(executable: &Path) -> PathBuf {
    let mut name = executable.as_os_str().to_os_string();
    name.push(".perfdiff-link");
    PathBuf::from(name)
}

/// Whether a linker argument names a file it links (an object or a library).
fn is_link_input(arg: &Path) -> bool {
    arg.extension()
        .is_some_and(|extension| ["o", "rlib", "a", "so"].iter().any(|e| extension == *e))
}

/// Whether a file beside an executable is one `-C save-temps` may keep: an object, bitcode or
/// LLVM text, never the dep-info (`.d`) cargo reads for freshness.
fn is_intermediate(file: &str) -> bool {
    [".o", ".bc", ".ll", ".s"]
        .iter()
        .any(|extension| file.ends_with(extension))
}

/// The string at the start of `text` in Rust's debug quoting (`"…"` with `\"`, `\\`, `\n`,
/// `\t`, `\r`, `\0`, `\'`, `\u{…}` and, for bytes that are not UTF-8, `\xNN`), and what
/// follows it.
fn unquote(text: &str) -> Option<(OsString, &str)> {
    let mut chars = text.strip_prefix('"')?.char_indices();
    let mut bytes = Vec::new();
    let push = |c: char, bytes: &mut Vec<u8>| {
        bytes.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes())
    };
    while let Some((at, c)) = chars.next() {
        match c {
            '"' => {
                let after = &text[1 + at + 1..];
                return Some((OsString::from_vec(bytes), after));
            }
            '\\' => match chars.next()?.1 {
                'n' => bytes.push(b'\n'),
                't' => bytes.push(b'\t'),
                'r' => bytes.push(b'\r'),
                '0' => bytes.push(0),
                'x' => {
                    let hex: String = [chars.next()?.1, chars.next()?.1].iter().collect();
                    bytes.push(u8::from_str_radix(&hex, 16).ok()?);
                }
                'u' => {
                    chars.next().filter(|(_, c)| *c == '{')?;
                    let hex: String = chars
                        .by_ref()
                        .map(|(_, c)| c)
                        .take_while(|c| *c != '}')
                        .collect();
                    push(
                        char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?,
                        &mut bytes,
                    );
                }
                other => push(other, &mut bytes),
            },
            c => push(c, &mut bytes),
        }
    }
    None
}

/// The line that says why a relink failed: the linker's or rustc's error, else cargo's last word.
fn failure_reason(errors: &str, stderr_tail: &[String]) -> String {
    let interesting = |line: &&str| {
        let line = line.trim();
        !line.is_empty() && !line.starts_with("= note: \"") && !line.starts_with("-->")
    };
    let from_linker = errors
        .lines()
        .find(|line| line.contains("unknown argument") || line.contains("unrecognized option"));
    from_linker
        .or_else(|| errors.lines().find(interesting))
        .or_else(|| stderr_tail.iter().map(String::as_str).rfind(interesting))
        .map(|line| {
            let line = line.trim();
            let line = line.strip_prefix("= note:").unwrap_or(line).trim();
            line.strip_prefix("error:")
                .unwrap_or(line)
                .trim()
                .to_string()
        })
        .unwrap_or_else(|| "cargo rustc failed without a message".to_string())
}

/// Where layout `layout` of an executable named `file_name` is kept in a revision's bin
/// directory.
pub fn kept_path(bin_dir: &Path, layout: usize, file_name: &OsStr) -> PathBuf {
    layout_dir(bin_dir, layout).join(file_name)
}

/// The directory of layout `layout`'s executables in a revision's bin directory.
pub fn layout_dir(bin_dir: &Path, layout: usize) -> PathBuf {
    bin_dir.join(format!("layout-{layout}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_k_is_seed_k_never_lld_s_random_zero() {
        assert_eq!(shuffle_link_arg(3), "link-arg=-Wl,--shuffle-sections=*=3");
    }

    /// What rustc 1.95 printed for `--print link-args` (shortened).
    const PRINTED: &str = r#"LC_ALL="C" PATH="/rust/bin:/usr/bin" VSLANG="1033" "cc" "-m64" "/t/deps/rustcJjUnQI/symbols.o" "/t/deps/field-c0fb.field.c296-cgu.00.rcgu.o" "-Wl,--as-needed" "/t/deps/libk256-a085.rlib" "-o" "/t/deps/field-c0fb" "-Wl,--gc-sections" "-Wl,--shuffle-sections=*=1" "-Wl,-O1" "-nodefaultlibs""#;

    #[test]
    fn the_printed_link_command_is_parsed_with_its_environment_output_and_seed() {
        let link = LinkCommand::parse(PRINTED, 1).expect("a link command");
        assert_eq!(link.program, "cc");
        assert_eq!(
            link.env,
            [
                ("LC_ALL", "C"),
                ("PATH", "/rust/bin:/usr/bin"),
                ("VSLANG", "1033")
            ]
            .map(|(k, v)| (OsString::from(k), OsString::from(v)))
        );
        assert_eq!(link.output(), Path::new("/t/deps/field-c0fb"));
        assert_eq!(link.args[link.seed_at], "-Wl,--shuffle-sections=*=1");
        assert_eq!(link.args.len(), 11);
        // Another layout's seed, or a line that is not a command, is not taken for it.
        assert_eq!(LinkCommand::parse(PRINTED, 2), None);
        assert_eq!(LinkCommand::parse("warning: unused", 1), None);
        assert_eq!(LinkCommand::parse("", 1), None);
    }

    #[test]
    fn debug_quoting_is_undone() {
        let (text, rest) = unquote(r#""a\"b\\c\n\u{e9}\x80" tail"#).unwrap();
        assert_eq!(
            text.into_vec(),
            b"a\"b\\c\n\xc3\xa9\x80".to_vec(),
            "quote, backslash, newline, é as UTF-8 and a raw byte"
        );
        assert_eq!(rest, " tail");
        assert_eq!(unquote(r#""unterminated"#), None);
    }

    #[test]
    fn only_intermediate_files_are_removed_never_cargo_s_dep_info() {
        assert!(is_intermediate("field-c0fb.field.c296-cgu.00.rcgu.o"));
        assert!(is_intermediate(
            "field-c0fb.field.c296-cgu.00.rcgu.thin-lto-input.bc"
        ));
        assert!(!is_intermediate("field-c0fb.d"));
    }

    #[test]
    fn the_reason_is_the_linker_s_complaint_when_there_is_one() {
        let errors = "error: linking with `cc` failed: exit status: 1\n  |\n  = note: \"cc\" \"-m64\"\n  = note: ld: unrecognized option '--shuffle-sections=*=1'\n";
        assert_eq!(
            failure_reason(errors, &[]),
            "ld: unrecognized option '--shuffle-sections=*=1'"
        );
        assert_eq!(
            failure_reason("", &["error: no bench target named `x`".to_string()]),
            "no bench target named `x`"
        );
        assert_eq!(
            failure_reason("", &[]),
            "cargo rustc failed without a message"
        );
    }
}
