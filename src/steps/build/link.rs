//! Linking the objects of one executable again, in another order of its functions: the command
//! rustc printed for the link through cargo ([`LinkCommand`]), kept with copies of every file it
//! links ([`KeptLink`]), and the order of each layout ([`ordering`]). How the link through cargo
//! is had, and where the layouts of a build go, is [`super::layout`]'s.
//!
//! Apart from `layout` because nothing here needs cargo or the build's types: the build's types
//! (`mod.rs`: a [`super::BenchExecutable`] keeps its [`KeptLink`]) and the relinker
//! (`layout.rs`, which runs cargo for a [`super::BenchArtifact`]) both use it, and neither file
//! names the other.

use std::collections::BTreeSet;
use std::ffi::{OsStr, OsString};
use std::hash::Hasher;
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use object::read::archive::ArchiveFile;
use object::{Object, ObjectSymbol, SymbolKind};
use rayon::prelude::*;

use super::one_path::OnePath;

/// The linker argument of the link through cargo: an empty ordering file, the linker's own order.
/// The replays put each layout's ordering file in its place.
const TEMPLATE: &str = "-Wl,--symbol-ordering-file=/dev/null";

/// The `-C` argument of the link through cargo.
pub fn template_link_arg() -> String {
    format!("link-arg={TEMPLATE}")
}

/// The command rustc ran for the link through cargo, as `--print link-args` shows it:
/// `KEY="value" … "cc" "arg" …`, each string in Rust's debug quoting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkCommand {
    /// The line as rustc printed it, which is what is saved.
    line: String,
    env: Vec<(OsString, OsString)>,
    program: OsString,
    args: Vec<OsString>,
    /// Where `args` name the output (the argument after `-o`) and the empty ordering file.
    output_at: usize,
    template_at: usize,
}

impl LinkCommand {
    /// The linker command in `line`, if it is the link through cargo: it names an output and
    /// has the template's empty ordering file.
    pub fn parse(line: &str) -> Option<LinkCommand> {
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
        let template_at = words.iter().position(|w| w == TEMPLATE)?.checked_sub(1)?;
        let output_at = words.iter().position(|w| w == "-o")?;
        let program = words.first()?.clone();
        Some(LinkCommand {
            line: line.trim().to_string(),
            env,
            program,
            args: words.split_off(1),
            output_at,
            template_at,
        })
    }

    /// The command rustc printed for `executable` in `printed`, saved beside it (replacing the
    /// one saved before, whose temporary directory is removed); else the one saved when cargo
    /// last linked it, if every file it links is still there.
    pub(super) fn printed_or_saved(printed: &[String], executable: &Path) -> Option<Self> {
        Self::printed(printed, executable).or_else(|| {
            Self::read_saved(&saved_path(executable))
                .filter(|saved| saved.inputs_exist() && saved.linker_runs())
        })
    }

    /// The command rustc printed for `executable` in `printed`, saved beside it (replacing the
    /// one saved before, whose temporary directory is removed).
    pub(super) fn printed(printed: &[String], executable: &Path) -> Option<Self> {
        let commands: Vec<LinkCommand> = printed
            .iter()
            .filter_map(|line| LinkCommand::parse(line))
            .collect();
        let fresh = match commands.iter().position(|link| link.output() == executable) {
            Some(at) => commands.into_iter().nth(at),
            // One command can only be this target's, wherever its output was named.
            None if commands.len() == 1 => commands.into_iter().next(),
            None => None,
        }?;
        Some(fresh.saved_for(executable))
    }

    /// The command rustc printed in `printed` that linked `executable` (named by that path, or
    /// by another path to the same file), saved beside it as [`Self::printed`] saves it. A
    /// build that compiled several executables printed one command for each, and one it found
    /// up to date printed none: another's is never taken for it.
    pub(super) fn printed_for(printed: &[String], executable: &Path) -> Option<Self> {
        let same_file = |output: &Path| {
            use std::os::unix::fs::MetadataExt;
            let id = |path: &Path| std::fs::metadata(path).map(|m| (m.dev(), m.ino())).ok();
            id(output).is_some() && id(output) == id(executable)
        };
        printed
            .iter()
            .filter_map(|line| LinkCommand::parse(line))
            .find(|link| link.output() == executable || same_file(link.output()))
            .map(|fresh| fresh.saved_for(executable))
    }

    /// This command, saved beside `executable` (replacing the one saved before, whose
    /// temporary directory is removed).
    fn saved_for(self, executable: &Path) -> Self {
        let fresh = self;
        let saved_at = saved_path(executable);
        let saved = Self::read_saved(&saved_at);
        if let Some(old) = saved.filter(|old| old.temp_dirs() != fresh.temp_dirs()) {
            old.temp_dirs().iter().for_each(|dir| {
                let _ = std::fs::remove_dir_all(dir);
            });
        }
        let _ = std::fs::write(&saved_at, &fresh.line);
        fresh
    }

    /// The command saved when `executable` was last relinked in its build, if cargo has not
    /// compiled it since (cargo's executable, put back after the relink, is older than the
    /// saved command; a compilation would make it newer and remove the objects), every file
    /// it links is still there and its own `PATH` still finds the linker it recorded.
    pub(super) fn saved_since(executable: &Path) -> Option<Self> {
        let saved_at = saved_path(executable);
        let modified = |path: &Path| std::fs::metadata(path).and_then(|m| m.modified()).ok();
        if modified(&saved_at)? <= modified(executable)? {
            return None;
        }
        Self::read_saved(&saved_at).filter(|saved| saved.inputs_exist() && saved.linker_runs())
    }

    /// The command saved at `saved_at`, if it is one.
    fn read_saved(saved_at: &Path) -> Option<Self> {
        std::fs::read_to_string(saved_at)
            .ok()
            .and_then(|line| LinkCommand::parse(&line))
    }

    /// The same command with the files it links named by their kept copies.
    fn with_inputs<'p>(mut self, moved: impl Iterator<Item = (&'p PathBuf, &'p PathBuf)>) -> Self {
        for (original, copy) in moved {
            for arg in self
                .args
                .iter_mut()
                .filter(|arg| Path::new(arg) == original)
            {
                *arg = copy.as_os_str().to_os_string();
            }
        }
        self
    }

    /// Whether every object and library the command links is still on disk.
    fn inputs_exist(&self) -> bool {
        self.inputs().all(Path::exists)
    }

    /// Whether the linker the command names can still be run as the command runs it: a program
    /// named by its path, or one its own `PATH` finds ([`Self::linker`]). A command saved in a
    /// shell whose `PATH` named a directory since removed cannot, and cargo is asked again.
    fn linker_runs(&self) -> bool {
        Path::new(&self.program).components().count() > 1 || self.linker().is_some()
    }

    /// The linker a program named without a directory (rustc's `cc`) is: the first executable
    /// of that name in the command's own `PATH`, the one rustc gave the linker (its toolchain's
    /// tool directories, then the `PATH` of the build), with its length and modification time.
    /// This is what a relink depends on beyond the command's arguments, whatever else the
    /// `PATH` of a later shell holds. A program named by an absolute path is that file; one named
    /// by a relative path is not followed (`None`, as for a program not found).
    fn linker(&self) -> Option<Linker> {
        let program = Path::new(&self.program);
        let path = match program.components().count() {
            1 => {
                let search = self
                    .env
                    .iter()
                    .rev()
                    .find(|(name, _)| name == "PATH")
                    .map(|(_, value)| value.clone())
                    .or_else(|| std::env::var_os("PATH"))?;
                std::env::split_paths(&search)
                    .map(|dir| dir.join(program))
                    .find(|candidate| is_executable(candidate))?
            }
            _ if program.is_absolute() => program.to_path_buf(),
            _ => return None,
        };
        let metadata = std::fs::metadata(&path).ok()?;
        Some(Linker {
            len: metadata.len(),
            modified: metadata.modified().ok()?,
            path,
        })
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

    /// Links the same objects into `output` in the order of `ordering_file` ([`ordering`]).
    pub fn replay(&self, ordering_file: &Path, output: &Path, dir: &Path) -> Result<(), String> {
        let args = self.replay_args(ordering_file, output);
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

    /// The command's arguments for a replay: its output `output`, and in place of the empty
    /// ordering file, `ordering_file` and `-z separate-code`. The latter starts the code on a
    /// page of its own, so that what precedes it (unwind tables, read-only data, whose sizes
    /// follow every change of code) does not move it: with the order shared, a function then
    /// sits at the same address on both sides until the first function in the order whose size
    /// differs between them (on the demo with a start-up function added, up to 94 % of the
    /// shared functions at the same offset in their page depending on the seed, against none
    /// without; docs/layout.md).
    /// `-Xlinker` passes each argument whole, whatever commas the path holds.
    fn replay_args(&self, ordering_file: &Path, output: &Path) -> Vec<OsString> {
        let mut ordering = OsString::from("--symbol-ordering-file=");
        ordering.push(ordering_file);
        let linker_args = [
            ordering,
            "--no-warn-symbol-ordering".into(),
            "-z".into(),
            "separate-code".into(),
        ];
        let mut args = self.args.clone();
        args[self.output_at] = output.as_os_str().to_os_string();
        args.splice(
            self.template_at..=self.template_at,
            linker_args
                .into_iter()
                .flat_map(|arg| [OsString::from("-Xlinker"), arg]),
        );
        args
    }

    /// The files the command links that the symbols of its functions are read from: objects and
    /// static libraries named by absolute path (rustc names every one so).
    fn inputs(&self) -> impl Iterator<Item = &Path> {
        self.args
            .iter()
            .map(Path::new)
            .filter(|arg| arg.is_absolute() && is_link_input(arg))
    }

    /// The names of the functions defined in the objects and static libraries the command links,
    /// sorted, each once: what [`ordering`] orders. A file that cannot be read is an error (the
    /// layouts would not be the same functions' orders); a member of a library that is not an
    /// object (an rlib's metadata) is skipped.
    pub fn function_names(&self) -> Result<Vec<String>, String> {
        let inputs: Vec<&Path> = self.inputs().collect();
        let per_file: Vec<BTreeSet<String>> = inputs
            .par_iter()
            .map(|path| {
                let data = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
                functions_in_file(&data).map_err(|e| format!("{}: {e}", path.display()))
            })
            .collect::<Result<_, String>>()?;
        let all: BTreeSet<String> = per_file.into_iter().flatten().collect();
        Ok(all.into_iter().collect())
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

/// What links the layouts of one executable when a round first needs them, kept with its build:
/// the link through cargo's command, with every file it links preserved in the revision's bin
/// directory.
///
/// Why a copy: the two revisions build into one target directory, where a crate whose source
/// differs between them has the same file names on both sides (its unit is the same), so by the
/// time base's layout 5 is needed, head's build has replaced base's objects and libraries there.
/// Static libraries are hard links (rustc writes a new file and renames it over the old one, so
/// the link keeps this build's content; a copy where the file system refuses), objects are
/// copies (rustc rewrites them in place); the length and modification time of each are recorded
/// and checked before every link, so a file changed behind our back fails that layout rather
/// than linking another revision's code into it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct KeptLink {
    /// The command as rustc printed it.
    line: String,
    /// Each file it links, and its preserved copy with that copy's length and modification time.
    inputs: Vec<KeptInput>,
    /// The linker's working directory (the revision's workspace).
    dir: PathBuf,
    /// The linker the command ran when it was kept ([`LinkCommand::linker`]), checked before
    /// every link like the inputs: layouts are linked by the linker of the build they share
    /// their code with. Absent when it could not be told, and in links kept before it was.
    #[serde(default)]
    linker: Option<Linker>,
    /// The function names of the inputs, read once per run when the first layout is linked.
    #[serde(skip)]
    names: std::cell::OnceCell<Vec<String>>,
}

/// The linker program of a link command as its `PATH` found it, and the file's length and
/// modification time then ([`LinkCommand::linker`]).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Linker {
    path: PathBuf,
    len: u64,
    modified: std::time::SystemTime,
}

/// One file a [`KeptLink`] links: where the command names it, and its preserved copy.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct KeptInput {
    original: PathBuf,
    copy: PathBuf,
    len: u64,
    modified: std::time::SystemTime,
}

impl KeptLink {
    /// Preserves the files `link` links in `dir` (emptied first) and keeps what relinks them;
    /// `workspace_dir` is the linker's working directory. What the files compiled in through the
    /// link of `one_path` is set to the checkout's in the preserved copies, so every layout
    /// linked from them reads its own checkout ([`OnePath::patch_file`]).
    pub fn preserve(
        link: &LinkCommand,
        dir: &Path,
        workspace_dir: &Path,
        one_path: Option<&OnePath>,
    ) -> Result<Self, String> {
        let failed = |path: &Path, e: std::io::Error| format!("{}: {e}", path.display());
        if dir.exists() {
            std::fs::remove_dir_all(dir).map_err(|e| failed(dir, e))?;
        }
        std::fs::create_dir_all(dir).map_err(|e| failed(dir, e))?;
        let mut inputs = Vec::new();
        for (at, original) in link.inputs().enumerate() {
            let name = original.file_name().unwrap_or(OsStr::new("input"));
            let mut file = OsString::from(format!("{at}-"));
            file.push(name);
            let copy = dir.join(file);
            preserve_file(original, &copy).map_err(|e| failed(original, e))?;
            if let Some(one) = one_path {
                one.patch_file(&copy).map_err(|e| failed(&copy, e))?;
            }
            let metadata = std::fs::metadata(&copy).map_err(|e| failed(&copy, e))?;
            let modified = metadata.modified().map_err(|e| failed(&copy, e))?;
            inputs.push(KeptInput {
                original: original.to_path_buf(),
                copy,
                len: metadata.len(),
                modified,
            });
        }
        Ok(KeptLink {
            line: link.line.clone(),
            inputs,
            dir: workspace_dir.to_path_buf(),
            linker: link.linker(),
            names: Default::default(),
        })
    }

    /// The same, with the function names of its inputs already read (`names`, as
    /// [`LinkCommand::function_names`] gives them), so the first layout does not read them again.
    pub fn with_function_names(self, names: Vec<String>) -> Self {
        let _ = self.names.set(names);
        self
    }

    /// The preserved copies of the files the link links (objects, static libraries, rlibs with
    /// std's among them), in the command's order: what the executable's code was linked from.
    pub fn inputs(&self) -> impl Iterator<Item = &Path> {
        self.inputs.iter().map(|input| input.copy.as_path())
    }

    /// Whether every preserved file is still there as it was kept: the objects selection
    /// compares.
    pub fn intact(&self) -> bool {
        self.changed_input().is_none()
    }

    /// Whether layouts can still be linked as the build's own executable was: every preserved
    /// file [`intact`](Self::intact), and the command still runs the linker it ran then
    /// ([`Self::changed_linker`]).
    pub fn links_as_built(&self) -> bool {
        self.intact() && self.changed_linker().is_none()
    }

    /// The linker the command was kept with, when its `PATH` no longer finds that file as it was
    /// (removed, replaced, or another one found first): a layout linked now would not be linked
    /// as the build's own executable was. Unchecked when none was recorded.
    fn changed_linker(&self) -> Option<&Path> {
        let kept = self.linker.as_ref()?;
        let now = LinkCommand::parse(&self.line).and_then(|command| command.linker());
        (now.as_ref() != Some(kept)).then_some(kept.path.as_path())
    }

    /// The first preserved file that is gone or changed since it was kept.
    fn changed_input(&self) -> Option<&Path> {
        self.inputs
            .iter()
            .find(|input| {
                let kept = std::fs::metadata(&input.copy).ok();
                kept.and_then(|m| Some((m.len(), m.modified().ok()?)))
                    != Some((input.len, input.modified))
            })
            .map(|input| input.copy.as_path())
    }

    /// Links layout `layout` (at least 1) into `destination`, through a partial file renamed
    /// when complete, so an interrupted link never leaves a truncated executable there; or the
    /// one-line reason it could not.
    pub fn link(&self, layout: usize, destination: &Path) -> Result<(), String> {
        if let Some(changed) = self.changed_input() {
            return Err(format!(
                "{} changed since the build (it was kept to link its layouts)",
                changed.display()
            ));
        }
        if let Some(linker) = self.changed_linker() {
            return Err(format!(
                "the linker {} is gone or changed since the build (its PATH at the build is \
                 used to link its layouts)",
                linker.display()
            ));
        }
        let command = LinkCommand::parse(&self.line)
            .ok_or("the kept link command cannot be read")?
            .with_inputs(self.inputs.iter().map(|i| (&i.original, &i.copy)));
        if self.names.get().is_none() {
            let _ = self.names.set(command.function_names()?);
        }
        let names = self.names.get().map(Vec::as_slice).unwrap_or_default();
        let parent = destination.parent().unwrap_or(Path::new("."));
        let failed = |e: std::io::Error| format!("{}: {e}", parent.display());
        std::fs::create_dir_all(parent).map_err(failed)?;
        let mut ordering_file = tempfile::Builder::new()
            .prefix(".order-")
            .tempfile_in(parent)
            .map_err(failed)?;
        std::io::Write::write_all(
            &mut ordering_file,
            ordering(layout as u64, names).as_bytes(),
        )
        .map_err(failed)?;
        let partial = destination.with_extension("partial");
        let linked = command
            .replay(ordering_file.path(), &partial, &self.dir)
            .and_then(|()| std::fs::rename(&partial, destination).map_err(failed));
        if linked.is_err() {
            let _ = std::fs::remove_file(&partial);
        }
        linked
    }
}

/// Keeps `original` at `copy` as it is now: a hard link for a static library, which rustc
/// replaces rather than rewrites (a copy where hard links fail), a copy for anything else.
fn preserve_file(original: &Path, copy: &Path) -> std::io::Result<()> {
    let archive = original
        .extension()
        .is_some_and(|e| e == "rlib" || e == "a");
    if archive && std::fs::hard_link(original, copy).is_ok() {
        return Ok(());
    }
    std::fs::copy(original, copy).map(|_| ())
}

/// The names of the functions an object file, or each object of a static library, defines.
fn functions_in_file(data: &[u8]) -> Result<BTreeSet<String>, object::Error> {
    let mut names = BTreeSet::new();
    match ArchiveFile::parse(data) {
        Ok(archive) => {
            for member in archive.members() {
                let member = member?;
                // An rlib's metadata, or anything else that is not an object, has no functions.
                if let Ok(object) = object::File::parse(member.data(data)?) {
                    functions_in(&object, &mut names);
                }
            }
        }
        Err(_) => functions_in(&object::File::parse(data)?, &mut names),
    }
    Ok(names)
}

/// Adds the names of the functions `object` defines to `names`.
fn functions_in(object: &object::File, names: &mut BTreeSet<String>) {
    let defined = object
        .symbols()
        .filter(|symbol| symbol.kind() == SymbolKind::Text && symbol.is_definition());
    for symbol in defined {
        if let Ok(name) = symbol.name()
            && !name.is_empty()
        {
            names.insert(name.to_string());
        }
    }
}

/// The Rust functions (legacy `_ZN…17h<hash>E` or v0 `_R…` names) that `executable` defines and
/// none of `names` is, ThinLTO's suffix aside on both sides, with how many Rust functions it
/// defines: `(missing, of)`. Only Rust names are compared, because the link adds functions no
/// input names on its command line (the C start-up files' `_start`, `_init`, …) and a native
/// library may be linked by `-l`, not by path; Rust code is always linked from the objects and
/// rlibs the command names. An executable without a symbol table defines none.
pub fn rust_functions_missing(
    executable: &Path,
    names: &[String],
) -> Result<(usize, usize), String> {
    let failed = |e: &dyn std::fmt::Display| format!("{}: {e}", executable.display());
    let data = std::fs::read(executable).map_err(|e| failed(&e))?;
    let defined = functions_in_file(&data).map_err(|e| failed(&e))?;
    let known: std::collections::HashSet<&str> =
        names.iter().map(|name| stable_name(name)).collect();
    let rust: BTreeSet<&str> = defined
        .iter()
        .map(|name| stable_name(name))
        .filter(|name| is_rust_symbol(name))
        .collect();
    let missing = rust.iter().filter(|name| !known.contains(*name)).count();
    Ok((missing, rust.len()))
}

/// Whether `name` is a Rust symbol: v0 mangling (`_R`), or legacy mangling (`_ZN`, ending in
/// `17h`, 16 hexadecimal digits and `E`, which C++'s `_ZN` names do not).
pub(crate) fn is_rust_symbol(name: &str) -> bool {
    let legacy = || {
        let Some(body) = name.strip_prefix("_ZN").and_then(|n| n.strip_suffix('E')) else {
            return false;
        };
        let hash = body.len().checked_sub(16).and_then(|at| body.get(at..));
        let marker = body
            .len()
            .checked_sub(19)
            .and_then(|at| body.get(at..at + 3));
        marker == Some("17h") && hash.is_some_and(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))
    };
    name.starts_with("_R") || legacy()
}

/// The contents of the ordering file of layout `seed`: `names`, one a line, sorted by a hash of
/// (`seed`, the name without its volatile suffix), then by name. The hash is SipHash-1-3 keyed by
/// the seed: fixed across runs, machines and versions of Rust, and any name's place in the order
/// depends on that name alone.
pub fn ordering(seed: u64, names: &[String]) -> String {
    let mut keyed: Vec<(u64, &str)> = names
        .iter()
        .map(|name| {
            let mut hasher = siphasher::sip::SipHasher13::new_with_keys(seed, 0);
            hasher.write(stable_name(name).as_bytes());
            (hasher.finish(), name.as_str())
        })
        .collect();
    keyed.sort_unstable();
    keyed
        .into_iter()
        .fold(String::new(), |mut text, (_, name)| {
            text.push_str(name);
            text.push('\n');
            text
        })
}

/// `name` without the suffix ThinLTO gives a promoted local symbol (`.llvm.<digits>`, a hash of
/// the crate's source, which a change elsewhere in the crate changes).
pub(crate) fn stable_name(name: &str) -> &str {
    match name.rsplit_once(".llvm.") {
        Some((stem, digits))
            if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) =>
        {
            stem
        }
        _ => name,
    }
}

/// Whether `path` is a file this process could execute.
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Where the link command of the executable `executable` cargo linked is saved.
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

#[cfg(test)]
mod tests {
    use super::*;

    /// What rustc 1.95 printed for `--print link-args` (shortened).
    const PRINTED: &str = r#"LC_ALL="C" PATH="/rust/bin:/usr/bin" VSLANG="1033" "cc" "-m64" "/t/deps/rustcJjUnQI/symbols.o" "/t/deps/field-c0fb.field.c296-cgu.00.rcgu.o" "-Wl,--as-needed" "/t/deps/libk256-a085.rlib" "-o" "/t/deps/field-c0fb" "-Wl,--gc-sections" "-Wl,--symbol-ordering-file=/dev/null" "-Wl,-O1" "-nodefaultlibs""#;

    #[test]
    fn the_printed_link_command_is_parsed_with_its_environment_output_and_template() {
        let link = LinkCommand::parse(PRINTED).expect("a link command");
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
        assert_eq!(link.args[link.template_at], TEMPLATE);
        assert_eq!(link.args.len(), 11);
        assert_eq!(
            link.inputs().collect::<Vec<_>>(),
            [
                "/t/deps/rustcJjUnQI/symbols.o",
                "/t/deps/field-c0fb.field.c296-cgu.00.rcgu.o",
                "/t/deps/libk256-a085.rlib"
            ]
            .map(Path::new)
        );
        // A command of the shuffled layouts of earlier versions, or a line that is not a
        // command, is not taken for it.
        let shuffled = PRINTED.replace(TEMPLATE, "-Wl,--shuffle-sections=*=1");
        assert_eq!(LinkCommand::parse(&shuffled), None);
        assert_eq!(LinkCommand::parse("warning: unused"), None);
        assert_eq!(LinkCommand::parse(""), None);
    }

    /// An executable script `name` in `dir` that prints `says`.
    fn program(dir: &Path, name: &str, says: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let path = dir.join(name);
        std::fs::write(&path, format!("#!/bin/sh\necho {says}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    /// A link command through `cc` with the `PATH` `dirs` and the output `output`, linking no
    /// file.
    fn printed_with_path(dirs: &[&Path], output: &Path) -> String {
        let path = std::env::join_paths(dirs).unwrap();
        format!(
            r#"PATH="{}" "cc" "-o" "{}" "{TEMPLATE}""#,
            path.to_str().unwrap(),
            output.display()
        )
    }

    #[test]
    fn a_kept_link_keys_on_the_linker_its_own_path_found_and_not_on_the_path() {
        let scratch = tempfile::tempdir().unwrap();
        let (first, second) = (scratch.path().join("first"), scratch.path().join("second"));
        std::fs::create_dir_all(&first).unwrap();
        std::fs::create_dir_all(&second).unwrap();
        // A directory of the PATH without `cc`, then the `cc` found, then another.
        let cc = program(&first, "cc", "first");
        program(&second, "cc", "second");
        let elsewhere = scratch.path().join("elsewhere");
        std::fs::create_dir_all(&elsewhere).unwrap();
        let printed = printed_with_path(&[&elsewhere, &first, &second], Path::new("/t/f"));
        let link = LinkCommand::parse(&printed).unwrap();
        assert_eq!(link.linker().map(|l| l.path), Some(cc.clone()));
        let kept =
            KeptLink::preserve(&link, &scratch.path().join("kept"), scratch.path(), None).unwrap();
        // What this process's PATH holds does not matter: the command's own PATH decides.
        assert!(kept.links_as_built());
        // The linker rewritten in place, or gone (the second `cc` then found): not intact.
        std::fs::write(&cc, "#!/bin/sh\necho first, rewritten\n").unwrap();
        assert!(!kept.links_as_built());
        // Its objects are what they were: selection still compares them.
        assert!(kept.intact());
        let error = kept
            .link(1, &scratch.path().join("layout-1/f"))
            .unwrap_err();
        assert!(
            error.contains("the linker") && error.contains("first/cc"),
            "{error}"
        );
        std::fs::remove_file(&cc).unwrap();
        assert!(!kept.links_as_built());
        // A link kept before linkers were recorded is not checked.
        let older = KeptLink {
            linker: None,
            ..kept.clone()
        };
        assert!(older.links_as_built());
    }

    #[test]
    fn a_saved_command_whose_path_no_longer_finds_its_linker_is_not_used() {
        let scratch = tempfile::tempdir().unwrap();
        let executable = scratch.path().join("field-c0fb");
        let linkers = scratch.path().join("linkers");
        std::fs::create_dir_all(&linkers).unwrap();
        program(&linkers, "cc", "linked");
        std::fs::write(
            saved_path(&executable),
            printed_with_path(&[&linkers], &executable),
        )
        .unwrap();
        // Cargo printed nothing (the unit was fresh): the saved command serves.
        let saved = LinkCommand::printed_or_saved(&[], &executable);
        assert!(saved.is_some_and(|link| link.linker_runs()));
        // Its PATH's directory removed: cargo is asked to link again, printing a new one.
        std::fs::remove_dir_all(&linkers).unwrap();
        assert_eq!(LinkCommand::printed_or_saved(&[], &executable), None);
    }

    #[test]
    fn a_replay_puts_the_ordering_file_and_separate_code_where_the_empty_file_was() {
        let link = LinkCommand::parse(PRINTED).unwrap();
        let args = link.replay_args(Path::new("/tmp/a,b/order"), Path::new("/bin/layout-3/f"));
        let args: Vec<&str> = args.iter().map(|a| a.to_str().unwrap()).collect();
        let at = args.iter().position(|a| *a == "-Wl,--gc-sections").unwrap() + 1;
        assert_eq!(
            args[at..at + 8],
            [
                "-Xlinker",
                "--symbol-ordering-file=/tmp/a,b/order",
                "-Xlinker",
                "--no-warn-symbol-ordering",
                "-Xlinker",
                "-z",
                "-Xlinker",
                "separate-code"
            ]
        );
        assert_eq!(args[at + 8], "-Wl,-O1");
        assert_eq!(link.output(), Path::new("/t/deps/field-c0fb"));
        let output = args.iter().position(|a| *a == "-o").unwrap() + 1;
        assert_eq!(args[output], "/bin/layout-3/f");
        assert!(!args.contains(&TEMPLATE));
    }

    fn names(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    fn lines(text: &str) -> Vec<&str> {
        text.lines().collect()
    }

    #[test]
    fn the_order_of_shared_functions_does_not_depend_on_the_others() {
        let base = names(&[
            "_ZN4demo3mix17h01E",
            "main",
            "_ZN4demo5sleep17h02E",
            "memcpy",
        ]);
        let mut head = base.clone();
        head.extend(names(&["_ZN4demo6helper17h03E", "_ZN4demo7helper217h04E"]));
        for seed in 1..20 {
            let head_order = ordering(seed, &head);
            let shared: Vec<&str> = lines(&head_order)
                .into_iter()
                .filter(|name| base.iter().any(|b| b == name))
                .collect();
            assert_eq!(shared, lines(&ordering(seed, &base)), "seed {seed}");
        }
    }

    #[test]
    fn seeds_give_other_orders_and_each_seed_always_the_same() {
        let many: Vec<String> = (0..50).map(|i| format!("function_{i}")).collect();
        assert_eq!(ordering(3, &many), ordering(3, &many));
        assert_ne!(ordering(3, &many), ordering(4, &many));
        let order = ordering(3, &many);
        let mut sorted = lines(&order);
        sorted.sort();
        let mut expected: Vec<&str> = many.iter().map(String::as_str).collect();
        expected.sort();
        assert_eq!(sorted, expected, "every name, once");
        // Fixed across versions: a change of hash would change every kept layout silently.
        assert_eq!(
            lines(&ordering(1, &names(&["a", "b", "c"]))),
            ["a", "c", "b"]
        );
    }

    #[test]
    fn thin_lto_suffixes_do_not_move_a_function() {
        assert_eq!(
            stable_name("_ZN4core3ptr5drop17h1fE.llvm.1234567"),
            "_ZN4core3ptr5drop17h1fE"
        );
        assert_eq!(
            stable_name("_ZN4core3ptr5drop17h1fE"),
            "_ZN4core3ptr5drop17h1fE"
        );
        assert_eq!(stable_name("f.llvm.abc"), "f.llvm.abc");
        assert_eq!(stable_name("f.llvm."), "f.llvm.");
        let others = names(&["x", "y", "z", "w"]);
        for seed in 1..20 {
            let order = |f: &str| {
                let mut all = others.clone();
                all.push(f.to_string());
                let text = ordering(seed, &all);
                lines(&text).iter().position(|n| *n == f).unwrap()
            };
            assert_eq!(order("f.llvm.111"), order("f.llvm.98765"), "seed {seed}");
        }
    }

    #[test]
    fn functions_are_read_from_an_object_and_not_from_an_rlib_s_metadata() {
        // This test executable is an ELF file with a symbol table: its functions include this
        // very test.
        let exe = std::env::current_exe().unwrap();
        let names = functions_in_file(&std::fs::read(exe).unwrap()).unwrap();
        assert!(
            names
                .iter()
                .any(|n| n.contains("functions_are_read_from_an_object")),
            "{} names",
            names.len()
        );
        assert!(functions_in_file(b"not an object").is_err());
    }

    #[test]
    fn relink_compares_rust_functions_only_and_finds_those_no_input_defines() {
        assert!(is_rust_symbol("_ZN4demo3mix17h0123456789abcdefE"));
        assert!(is_rust_symbol("_RNvCs1234_4demo3mix"));
        assert!(!is_rust_symbol("_ZN3foo3barEv"), "C++");
        assert!(!is_rust_symbol("_ZN4demo3mix17h0123456789abcdeXE"));
        assert!(!is_rust_symbol("_start"));
        assert!(!is_rust_symbol("memcpy"));
        // This test executable's own functions: all known, then one of them not.
        let exe = std::env::current_exe().unwrap();
        let all: Vec<String> = functions_in_file(&std::fs::read(&exe).unwrap())
            .unwrap()
            .into_iter()
            .collect();
        let (missing, of) = rust_functions_missing(&exe, &all).unwrap();
        assert_eq!(missing, 0);
        assert!(of > 100, "{of} Rust functions");
        let without_this_test: Vec<String> = all
            .iter()
            .filter(|n| !n.contains("finds_those_no_input_defines"))
            .cloned()
            .collect();
        let (missing, _) = rust_functions_missing(&exe, &without_this_test).unwrap();
        assert!(missing >= 1, "this very test is missing");
        // Names with another ThinLTO suffix are the same function; C names are not compared.
        let suffixed: Vec<String> = all
            .iter()
            .filter(|n| is_rust_symbol(stable_name(n)))
            .map(|n| format!("{}.llvm.42", stable_name(n)))
            .collect();
        assert_eq!(rust_functions_missing(&exe, &suffixed).unwrap().0, 0);
        assert!(rust_functions_missing(Path::new("/nonexistent/exe"), &all).is_err());
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
}
