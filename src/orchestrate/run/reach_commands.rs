//! Selection by reach for commands (`[[command]]`, `--cmd`): a command whose every program runs
//! the same code on both sides, and whose files are the same, is `unchanged` (same code) without
//! an execution measured (docs/selection.md, "Commands").
//!
//! Why apart from the benchmarks' selection ([`super::reach`]): a benchmark is one function of
//! one bench executable, a command is a command line that may start any number of programs
//! (the revision's own, built by cargo into `{bin}`, a shell, a system tool). The command is
//! traced once on base as configured (its arguments, working directory and environment), every
//! program it starts traced too ([`trace::Trace::executed_by_program`]); then each program is
//! compared by what it is:
//! - a program of the revision (`{bin}`): by code identity, through the objects its build kept
//!   for code layouts, exactly as a bench executable;
//! - a program of the checkout (a committed script or binary): by content, as a file it reads;
//! - any other program of the build output: undecided (it cannot be paired with head's);
//! - a program outside the checkout and the build (`/bin/sh`, `/usr/bin/python3`): the same file
//!   on both sides, since both sides run this machine's one file at that path.
//!
//! A native run may take a path the trace under valgrind did not: by the CPU's features, which
//! valgrind hides in part, by timing, or by threads. So a skip of a command whose programs have
//! functions that differ stands only once a native run with a breakpoint at every one of them
//! entered none ([`super::reach_command_probe`]).
//!
//! Conservative as the rest: a `setup` or `prepare` line (run natively, untraced, it may start a
//! changed program whose output the command then reads outside the checkout) leaves the command
//! measured, and so do a failed trace, a program head does not build, and a build that kept no
//! objects. A command's trace is kept under the command as configured with the content of every
//! program it started and every file of the project it touched, and reused while they are as
//! they were ([`TraceCache::get_or_trace_command`]).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;

use super::SideBuild;
use super::context::command_fork;
use super::phases::SelectionPart;
use super::reach_command_probe::{Decided, probed};
use super::reach_sides::{SelectedSides, checkout_of, linked_code, traced_afresh};
use crate::model::samples::SelectionRecord;
use crate::steps::build::programs::Programs;
use crate::steps::discover::Matched;
use crate::steps::fork::ForkRequest;
use crate::steps::instructions::Valgrind;
use crate::steps::progress::{Progress, StepKind};
use crate::steps::reach::code::{CodeComparison, Comparer, LinkedCode};
use crate::steps::reach::files::{self, Checkouts, FileComparison};
use crate::steps::reach::probe::{CommandWatch, WatchedProgram};
use crate::steps::reach::settings::{self as build_settings, SideSettings};
use crate::steps::reach::trace::{self, CommandTrace, Trace, TraceCache};
use crate::steps::reach::versions::VersionChange;
use crate::steps::reach::{decide, settings_differ, undecided};
use crate::steps::schedule::Side;

/// The selection of the commands `commands` (present on both sides), by id, and how many of
/// their traces were kept from an earlier run; `versions`: the workspace's packages whose
/// version changed.
pub(super) fn select_commands(
    sides: &SelectedSides<'_>,
    valgrind: &Valgrind,
    commands: &[&Matched],
    versions: &[VersionChange],
    progress: &Progress,
) -> (Vec<(String, SelectionRecord)>, usize) {
    let (programs, checkouts) = match comparable(sides) {
        Ok(found) => found,
        Err(record) => {
            progress.drop_steps(StepKind::Trace, commands.len() as u64);
            let all = commands.iter().map(|m| (m.id.clone(), (*record).clone()));
            return (all.collect(), 0);
        }
    };
    // Built one by one (the sides are not shared between threads), traced side by side.
    let requests: Vec<Result<ForkRequest, String>> = commands
        .iter()
        .map(|m| command_request(sides, m, &programs.base.layout_dirs[0]))
        .collect();
    let project = [
        checkouts.0.clone(),
        sides.target_dir.to_path_buf(),
        programs.base.layout_dirs[0].clone(),
        programs.base_bin.clone(),
    ];
    let tracing = std::time::Instant::now();
    let (traces, kept) = traced(sides, valgrind, &requests, &project, progress);
    sides.clock.add(SelectionPart::Trace, tracing.elapsed());
    let executed: BTreeSet<String> = traces
        .iter()
        .flatten()
        .flat_map(|t| t.executed_by_program.keys())
        .filter_map(|path| programs.own_name(path))
        .collect();
    let code: BTreeMap<String, Result<(LinkedCode, LinkedCode), String>> = executed
        .into_iter()
        .map(|name| {
            let pair = programs.linked(&name);
            (name, pair)
        })
        .collect();
    let mut comparers: BTreeMap<&str, Comparer<'_>> = code
        .iter()
        .filter_map(|(name, pair)| {
            let (base, head) = pair.as_ref().ok()?;
            let comparer = Comparer::new(base, head)
                .with_checkouts(&checkouts.0, &checkouts.1, versions)
                .with_out_dirs(&programs.base.build_out_dirs, &programs.head.build_out_dirs);
            Some((name.as_str(), comparer))
        })
        .collect();
    let own_files = programs.files();
    let build_dirs = [sides.target_dir.to_path_buf()];
    let checkouts = Checkouts {
        base: &checkouts.0,
        head: &checkouts.1,
        own_files: &own_files,
        build_dirs: &build_dirs,
        working_tree: Some(sides.working_tree),
    };
    let compared = Compared {
        programs: &programs,
        code: &code,
        checkouts: &checkouts,
        versions,
    };
    let decided: Vec<Decided> = traces
        .into_iter()
        .map(|traced| match traced {
            Err(why) => Decided::record(undecided(why)),
            Ok(traced) => compared.decide(&traced, &mut comparers),
        })
        .collect();
    let records = probed(sides, commands, &requests, decided, progress);
    (records, kept)
}

/// The traces `requests` ask for, kept or made now, side by side, and how many were kept;
/// `project`: the directories whose files a kept trace's reuse depends on.
fn traced(
    sides: &SelectedSides<'_>,
    valgrind: &Valgrind,
    requests: &[Result<ForkRequest, String>],
    project: &[PathBuf],
    progress: &Progress,
) -> (Vec<Result<Trace, String>>, usize) {
    let cache = TraceCache::new(sides.perfdiff_dir.join("traces"));
    let traced: Vec<Result<CommandTrace, String>> = requests
        .par_iter()
        .map(|request| {
            let request = request.as_ref().inspect_err(|_| {
                progress.drop_steps(StepKind::Trace, 1);
            })?;
            let started = Instant::now();
            let trace = cache
                .get_or_trace_command(request, project, || {
                    traced_afresh(request, valgrind, sides.perfdiff_dir)
                })
                .map_err(|e| format!("its trace failed: {e}"));
            progress.step_done(StepKind::Trace, started.elapsed(), &request.benchmark_id);
            trace
        })
        .collect();
    let kept = traced.iter().flatten().filter(|t| t.kept).count();
    let traces = traced.into_iter().map(|t| t.map(|t| t.trace)).collect();
    (traces, kept)
}

/// Both sides' programs and checkouts, when their commands can be compared at all: both sides
/// built their programs with the same settings. Otherwise every command's record.
fn comparable<'s>(
    sides: &SelectedSides<'s>,
) -> Result<(Pair<'s>, (PathBuf, PathBuf)), Box<SelectionRecord>> {
    let not_built = || Box::new(undecided("its programs were not built".to_string()));
    let (Some(base), Some(head)) = (&sides.base.programs, &sides.head.programs) else {
        return Err(not_built());
    };
    let base_bin = base.layout_dirs.first().ok_or_else(not_built)?;
    let checkouts = (checkout_of(&sides.base.root), checkout_of(&sides.head.root));
    let settings_of = |checkout, build: &'s SideBuild| SideSettings {
        checkout,
        workspace: &build.root,
        env: &[],
        library_dirs: &[],
    };
    let differences = build_settings::differences(
        &settings_of(&checkouts.0, sides.base),
        &settings_of(&checkouts.1, sides.head),
    );
    if let Some(first) = differences.first() {
        return Err(Box::new(settings_differ(first)));
    }
    let pair = Pair {
        base,
        head,
        base_bin: canonical(base_bin),
    };
    Ok((pair, checkouts))
}

/// The fork that traces command `m` on base as configured, its programs from `base_bin`; or why
/// it is not traced (a `setup` or `prepare` line).
fn command_request(
    sides: &SelectedSides<'_>,
    m: &Matched,
    base_bin: &Path,
) -> Result<ForkRequest, String> {
    let spec = sides.settings.commands.iter().find(|c| c.name == m.id);
    if let Some(spec) = spec {
        let lines = [("setup", &spec.setup), ("prepare", &spec.prepare)];
        if let Some((what, _)) = lines.iter().find(|(_, line)| line.is_some()) {
            return Err(format!(
                "its {what} line runs untraced (what it starts cannot be compared)"
            ));
        }
    }
    command_fork(
        sides.settings,
        sides.perfdiff_dir,
        (Side::Base, sides.base),
        m,
        base_bin.to_path_buf(),
    )
    .map_err(|e| format!("its trace failed: {e}"))
}

/// Both sides' programs, and where base's ran from.
struct Pair<'a> {
    base: &'a Programs,
    head: &'a Programs,
    /// Base's `{bin}` of the trace (cargo's build), canonical.
    base_bin: PathBuf,
}

impl Pair<'_> {
    /// The name of the program at `path` when it is one of base's own (in `{bin}`).
    fn own_name(&self, path: &Path) -> Option<String> {
        let path = canonical(path);
        let name = path.strip_prefix(&self.base_bin).ok()?.to_str()?;
        self.base
            .names
            .iter()
            .any(|n| n == name)
            .then(|| name.to_string())
    }

    /// Base's and head's code of the program `name`, from the objects their builds kept.
    fn linked(&self, name: &str) -> Result<(LinkedCode, LinkedCode), String> {
        let open = |programs: &Programs, side: &str| -> Result<LinkedCode, String> {
            let index = programs
                .names
                .iter()
                .position(|n| n == name)
                .ok_or_else(|| format!("{side} does not build the program {name}"))?;
            linked_code(
                &programs.layout_dirs[0].join(name),
                programs.relinks.get(index),
                programs.relinks_missing.as_deref(),
                &format!("the build of {name}"),
            )
        };
        Ok((open(self.base, "base")?, open(self.head, "head")?))
    }

    /// Every program of either side's cargo build: files a command may open that are its own.
    fn files(&self) -> Vec<PathBuf> {
        [self.base, self.head]
            .iter()
            .filter_map(|p| p.layout_dirs.first().map(|dir| (p, dir)))
            .flat_map(|(p, dir)| p.names.iter().map(move |n| dir.join(n)))
            .collect()
    }
}

/// What a command's decision is taken against.
struct Compared<'a> {
    programs: &'a Pair<'a>,
    code: &'a BTreeMap<String, Result<(LinkedCode, LinkedCode), String>>,
    checkouts: &'a Checkouts<'a>,
    /// The workspace's packages whose version changed.
    versions: &'a [VersionChange],
}

impl Compared<'_> {
    /// The decision for a command whose trace is `traced`: with what its native probe must
    /// watch when it is the same code only as far as a trace under valgrind can tell.
    fn decide(&self, traced: &Trace, comparers: &mut BTreeMap<&str, Comparer<'_>>) -> Decided {
        if let Some(call) = traced.unresolved.iter().next() {
            return Decided::record(undecided(format!(
                "a file it opens cannot be told from its trace ({call})"
            )));
        }
        let mut read: BTreeMap<PathBuf, bool> = traced
            .files
            .iter()
            .map(|(path, access)| (path.clone(), *access >= trace::Access::Opened))
            .collect();
        let mut code = CodeComparison::Same {
            functions: 0,
            data: 0,
            alike: Vec::new(),
            set_aside: Vec::new(),
        };
        let mut watch = ProbeNeeded::default();
        let started = traced.executed_by_program.keys().chain(&traced.programs);
        for program in started.collect::<BTreeSet<_>>() {
            if let Some(name) = self.programs.own_name(program) {
                let none = BTreeSet::new();
                let executed = traced.executed_by_program.get(program).unwrap_or(&none);
                let compared = self.compare_program(&name, executed, comparers, &mut watch);
                code = combine(code, compared);
            } else if program.starts_with(self.checkouts.base) {
                read.insert(program.clone(), true);
            } else if let Some(dir) = self
                .checkouts
                .build_dirs
                .iter()
                .find(|dir| program.starts_with(dir))
            {
                return Decided::record(undecided(format!(
                    "it starts {}, build output in {} that is not one of the revision's programs",
                    program.display(),
                    dir.display()
                )));
            }
        }
        let files: FileComparison = files::compare(
            read.iter().map(|(path, opened)| (path.as_path(), *opened)),
            self.checkouts,
        );
        let record = decide(
            &code,
            &files,
            &[],
            crate::steps::reach::versions::renaming(self.versions),
        );
        self.with_probe(record, watch)
    }

    /// The code comparison of the program `name` of a command whose trace ran `executed` in it.
    /// When it is the same while some functions of the program differ, those go to `watch` for
    /// the command's native probe: a native run may take a path its trace under valgrind did
    /// not (by the CPU's features, which valgrind hides in part; by timing, or threads). A
    /// program that read the CPU's features is unknown when they cannot be listed.
    fn compare_program(
        &self,
        name: &str,
        executed: &BTreeSet<u64>,
        comparers: &mut BTreeMap<&str, Comparer<'_>>,
        watch: &mut ProbeNeeded,
    ) -> CodeComparison {
        let comparer = match (self.code.get(name), comparers.get_mut(name)) {
            (Some(Err(why)), _) => {
                return CodeComparison::Unknown {
                    reason: why.clone(),
                };
            }
            (_, Some(comparer)) => comparer,
            _ => {
                return CodeComparison::Unknown {
                    reason: format!("{name} was not compared"),
                };
            }
        };
        let compared = comparer.compare(executed);
        if !matches!(compared, CodeComparison::Same { .. }) {
            return compared;
        }
        let cpu = comparer.cpu_dependent(executed);
        match (comparer.changed_entries(), cpu) {
            // Watched even without an entry: the probe takes any other program of `{bin}` it
            // sees start for one its trace did not.
            (Ok(entries), cpu) => {
                if !entries.is_empty() {
                    watch.reasons.extend(cpu);
                }
                let path = self.programs.base_bin.join(name);
                watch.programs.push(WatchedProgram { path, entries });
                compared
            }
            (Err(why), Some(reason)) => CodeComparison::Unknown {
                reason: format!("{reason}, and its changed functions cannot be listed: {why}"),
            },
            (Err(_), None) => compared,
        }
    }

    /// `record`, and the probe it needs: a command skipped as the same code whose programs have
    /// functions that differ is probed.
    fn with_probe(&self, record: SelectionRecord, watch: ProbeNeeded) -> Decided {
        let entries = watch.programs.iter().any(|p| !p.entries.is_empty());
        let probe = (record.skipped() && entries).then(|| {
            let why = match watch.reasons.is_empty() {
                true => "a native run may take a path its trace did not".to_string(),
                false => watch.reasons.join("; "),
            };
            let watch = CommandWatch {
                programs: watch.programs,
                bin: self.programs.base_bin.clone(),
            };
            (watch, why)
        });
        Decided { record, probe }
    }
}

/// The programs of one command whose functions differ, with their changed entries, and why
/// those that read the CPU's features may take natively a path its trace did not.
#[derive(Default)]
struct ProbeNeeded {
    programs: Vec<WatchedProgram>,
    reasons: Vec<String>,
}

/// The comparison of a command that runs the code of `a` and of `b`: it differs when either
/// does (with the functions of both), else it is unknown when either is, else the same.
fn combine(a: CodeComparison, b: CodeComparison) -> CodeComparison {
    use CodeComparison::{Differs, Same, Unknown};
    match (a, b) {
        (
            Differs {
                functions,
                data,
                unpaired,
            },
            Differs {
                functions: f,
                data: d,
                unpaired: u,
            },
        ) => Differs {
            functions: sorted([functions, f].concat()),
            data: sorted([data, d].concat()),
            unpaired: unpaired || u,
        },
        (d @ Differs { .. }, _) | (_, d @ Differs { .. }) => d,
        (u @ Unknown { .. }, _) | (_, u @ Unknown { .. }) => u,
        (
            Same {
                functions,
                data,
                alike,
                set_aside,
            },
            Same {
                functions: f,
                data: d,
                alike: a,
                set_aside: s,
            },
        ) => Same {
            functions: functions + f,
            data: data + d,
            alike: sorted([alike, a].concat()),
            set_aside: sorted([set_aside, s].concat()),
        },
    }
}

fn sorted(mut names: Vec<String>) -> Vec<String> {
    names.sort();
    names.dedup();
    names
}

/// `path` with its links resolved, or as it is when it cannot be.
fn canonical(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_differs_when_any_program_does_and_is_unknown_before_it_is_the_same() {
        let same = |n| CodeComparison::Same {
            functions: n,
            data: 1,
            alike: Vec::new(),
            set_aside: Vec::new(),
        };
        let differs = |name: &str| CodeComparison::Differs {
            functions: vec![name.to_string()],
            data: vec![],
            unpaired: name.starts_with('b'),
        };
        let unknown = CodeComparison::Unknown {
            reason: "no symbol".into(),
        };
        assert_eq!(
            combine(same(2), same(3)),
            CodeComparison::Same {
                functions: 5,
                data: 2,
                alike: Vec::new(),
                set_aside: Vec::new(),
            }
        );
        assert_eq!(combine(same(2), unknown.clone()), unknown);
        assert_eq!(combine(unknown.clone(), differs("b::f")), differs("b::f"));
        assert_eq!(
            combine(differs("b::g"), differs("a::f")),
            CodeComparison::Differs {
                functions: vec!["a::f".into(), "b::g".into()],
                data: vec![],
                unpaired: true
            }
        );
    }
}
