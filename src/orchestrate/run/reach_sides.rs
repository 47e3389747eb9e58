//! The sides as selection by reach sees them ([`SelectedSides`]), and what the selection of
//! benchmarks (`reach`) and of commands (`reach_commands`) both do with them: find a side's
//! checkout, open an executable's linked code, trace a fork afresh.
//!
//! Why a file of its own: `reach` hands commands to `reach_commands` and skipped benchmarks to
//! `reach_probe`, which both need these; kept here, below the three, no two of them import each
//! other in a circle.

use std::path::{Path, PathBuf};

use super::SideBuild;
use super::phases::SelectionClock;
use crate::config::Settings;
use crate::steps::build::BuildOptions;
use crate::steps::build::link::KeptLink;
use crate::steps::fork::ForkRequest;
use crate::steps::instructions::Valgrind;
use crate::steps::reach::code::LinkedCode;
use crate::steps::reach::source;
use crate::steps::reach::trace;

/// What a comparison's sides are, for selection.
pub(super) struct SelectedSides<'a> {
    pub(super) settings: &'a Settings,
    pub(super) perfdiff_dir: &'a Path,
    pub(super) target_dir: &'a Path,
    /// The root of the user's working tree: a file a benchmark opens there, in neither
    /// checkout, is no revision's ([`crate::steps::reach::files::Checkouts::working_tree`]).
    pub(super) working_tree: &'a Path,
    /// How the sides were built: a build with line tables ([`super::reach_outside`]) differs
    /// from it only in those.
    pub(super) build: &'a BuildOptions,
    pub(super) base: &'a SideBuild,
    pub(super) head: &'a SideBuild,
    /// Where the selection's traces and probes add their wall time.
    pub(super) clock: &'a SelectionClock,
}

/// The code of the executable at `path`, with the objects its build kept for code layouts
/// (`relink`) to compare it by; or why it cannot be compared. `build` names that build in the
/// reason ("its build", "the build of NAME"), and `missing`, where the build knew it, why it kept
/// none ([`no_objects`]).
pub(super) fn linked_code(
    path: &Path,
    relink: Option<&KeptLink>,
    missing: Option<&str>,
    build: &str,
) -> std::result::Result<LinkedCode, String> {
    let relink = relink.ok_or_else(|| no_objects(build, missing))?;
    if !relink.intact() {
        return Err(format!("the objects {build} kept changed since the build"));
    }
    let inputs: Vec<PathBuf> = relink.inputs().map(Path::to_path_buf).collect();
    LinkedCode::open(path, &inputs).map_err(|e| e.to_string())
}

/// Why `build` kept no objects to compare: the cause the build gave (`missing`), or, from a
/// build that did not record one (kept by an older version), each it can be.
fn no_objects(build: &str, missing: Option<&str>) -> String {
    match missing {
        Some(why) => format!("{build} kept no objects to compare: {why}"),
        None => format!(
            "{build} kept no objects to compare (one code layout, a linker that cannot order \
             functions, or a relink that built another program)"
        ),
    }
}

/// The trace `request` asks for, made now in a scratch directory of `perfdiff_dir`.
pub(super) fn traced_afresh(
    request: &ForkRequest,
    valgrind: &Valgrind,
    perfdiff_dir: &Path,
) -> Result<trace::Trace, trace::TraceError> {
    let scratch = tempfile::tempdir_in(perfdiff_dir).map_err(|source| trace::TraceError::Io {
        who: format!("`{}`", request.benchmark_id),
        path: perfdiff_dir.to_path_buf(),
        source,
    })?;
    trace::trace_benchmark(request, valgrind, scratch.path())
}

/// The root of the checkout holding `workspace`: the nearest directory up from it with a `.git`
/// (the slot repository), or the workspace itself.
pub(super) fn checkout_of(workspace: &Path) -> PathBuf {
    workspace
        .ancestors()
        .find(|dir| dir.join(".git").exists())
        .unwrap_or(workspace)
        .to_path_buf()
}

/// The names the commit changes between the `checkouts` of the two `sides`, each file read as
/// the sides' builds compile it: a library's test-only items left out, since only the bench
/// targets' own crates are compiled with `cfg(test)` ([`source::TestUnits`]).
pub(super) fn changed_names_of(
    sides: [&SideBuild; 2],
    checkouts: &[PathBuf; 2],
) -> Result<source::ChangedNames, String> {
    let units = sides.iter().zip(checkouts).map(|(side, checkout)| {
        let roots = side.targets.values().map(|t| t.exe.src_path.as_path());
        source::TestUnits::bench_roots(checkout, roots)
    });
    let mut tests = source::TestUnits::Under(Vec::new());
    for unit in units {
        tests = match (tests, unit) {
            (source::TestUnits::Under(mut a), source::TestUnits::Under(b)) => {
                a.extend(b);
                source::TestUnits::Under(a)
            }
            _ => source::TestUnits::Anywhere,
        };
    }
    source::changed_names_compiled(&checkouts[0], &checkouts[1], &tests)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_build_without_objects_says_which_cause_it_had() {
        let exe = Path::new("/nonexistent/bench");
        let reason = |missing| match linked_code(exe, None, missing, "its build") {
            Err(reason) => reason,
            Ok(_) => panic!("no objects, yet code"),
        };
        assert_eq!(
            reason(Some(crate::steps::build::ONE_LAYOUT)),
            format!(
                "its build kept no objects to compare: {}",
                crate::steps::build::ONE_LAYOUT
            )
        );
        let linker = "the linker rejected `--symbol-ordering-file`";
        assert_eq!(
            reason(Some(linker)),
            format!("its build kept no objects to compare: {linker}")
        );
        // A build kept by an older version names every cause it can be.
        assert!(reason(None).contains("one code layout, a linker"));
    }
}
