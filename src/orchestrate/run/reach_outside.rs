//! The skip of a benchmark whose changed code runs only outside its timed loop
//! ([`crate::steps::reach::skip_outside_loop`]): the source of that code, compared from builds of
//! both sides with line tables, decides.
//!
//! Why: a change elsewhere makes the compiler lay out or inline generic code of the harness
//! (criterion's argument parsing, its teardown) or a benchmark's set-up differently, though its
//! source did not change (docs/design/field-trials.md). Such code is not measured; what matters
//! is only that it computes the same inputs, which the same source and the same inlined source
//! show. A changed source (polyval's set-up that picks the backend the timed loop runs) keeps
//! the benchmark measured. A set-up whose source was rewritten but compiles to the same code
//! (unicode-segmentation's `format!("{}.txt", file)` as `format!("{file}.txt")`) never comes
//! here: the code comparison finds it the same, its panic locations' lines and columns aside
//! ([`crate::steps::reach::code`], docs/design/selection-trace.md).
//!
//! A function another benchmark of the target executed is compared too, and when its source is
//! the same, a skipped benchmark's native probe may enter it outside the timed loop
//! ([`same_elsewhere`]): one traced run of a criterion target gives the initialiser of a lazily
//! built value (chrono's `<Cache as Default>::default`, behind every `Local::now`) to the first
//! benchmark that runs it, and the others' probes enter it natively (docs/design/field-trials.md).
//!
//! The line tables come from the build `--explain` makes (`debug = "line-tables-only"`, in a
//! target directory and kept directory of its own: the measured executables stay exactly as
//! cargo builds them, and a later `--explain` or run of the same revisions builds nothing). It
//! is built only when a benchmark is such a candidate, only for its bench target; a build that
//! fails leaves the candidates measured, saying why.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use super::count::LineTablesBuild;
use super::reach_sides::{SelectedSides, changed_names_of, checkout_of};
use super::{BuiltTarget, SideBuild};
use crate::model::samples::SelectionRecord;
use crate::model::target::TargetKey;
use crate::steps::build::{self, BuildEvent};
use crate::steps::progress::Progress;
use crate::steps::reach::source::{self, SourceComparison};
use crate::steps::reach::{TimedSame, skip_outside_loop as decide_outside};
use crate::steps::schedule::Side;

/// A benchmark's decision from its trace, and when its changed code runs only outside its timed
/// loop ([`crate::steps::reach::runs_changes_only_outside`]), what was found the same inside it:
/// then the source of that code decides.
pub(super) type Decided = (SelectionRecord, Option<TimedSame>);

/// The most changed functions of one bench target whose sources are compared: each costs a
/// walk of its line tables on both sides. Those beyond are not compared (their benchmarks are
/// measured).
pub(super) const MAX_COMPARED: usize = 512;

/// The records of `decided` (the benchmarks of one bench target, whose executables are `base`
/// and `head`), each candidate ([`Decided`]) skipped when the source of its changed code is the
/// same on both sides, measured as before, saying why, when not.
pub(super) fn skip_outside_loop(
    sides: &SelectedSides<'_>,
    (base, head): (&BuiltTarget, &BuiltTarget),
    decided: Vec<(String, Decided)>,
    progress: &Progress,
) -> Vec<(String, SelectionRecord)> {
    let candidates = decided.iter().filter(|(_, (_, timed))| timed.is_some());
    let functions: BTreeSet<String> = candidates
        .clone()
        .flat_map(|(_, (record, _))| record.outside_loop.iter().cloned())
        .collect();
    if functions.is_empty() {
        return decided.into_iter().map(|(id, (r, _))| (id, r)).collect();
    }
    progress.note(&format!(
        "{} benchmark(s) of {} execute changed code only outside their timed loop: comparing its \
         source in builds of both sides with line tables",
        candidates.count(),
        base.exe.target
    ));
    // The candidates' own functions first: those decide; then those of the others.
    let elsewhere: BTreeSet<String> = decided
        .iter()
        .flat_map(|(_, (record, _))| record.changed_functions.iter().cloned())
        .filter(|f| !functions.contains(f))
        .collect();
    let functions: Vec<String> = functions
        .into_iter()
        .chain(elsewhere)
        .take(MAX_COMPARED)
        .collect();
    let compared: BTreeMap<&String, SourceComparison> =
        match compare_sources(sides, (base, head), &functions) {
            Ok(compared) => functions.iter().zip(compared).collect(),
            Err(why) => {
                let unknown = SourceComparison::Unknown(why);
                functions.iter().map(|f| (f, unknown.clone())).collect()
            }
        };
    decided
        .into_iter()
        .map(|(id, (record, timed))| match timed {
            None => (id, record),
            Some(timed) => {
                let sources: Vec<SourceComparison> = record
                    .outside_loop
                    .iter()
                    .map_while(|f| compared.get(f).map(|c| own_registration(&id, f, c)))
                    .collect();
                (
                    id,
                    same_elsewhere(decide_outside(record, &sources, timed), &compared),
                )
            }
        })
        .collect()
}

/// `compared`, the comparison of `function`, for the benchmark `id`: a divan registration set
/// apart as another benchmark's ([`source::registered_benchmark`]) differs when `id` may be the
/// benchmark it registers, so the rule never vouches for the benchmark's own registration.
fn own_registration(id: &str, function: &str, compared: &SourceComparison) -> SourceComparison {
    match (compared, source::registered_benchmark(function)) {
        (SourceComparison::SameApart(_), Some(name)) if source::registers(name, id) => {
            SourceComparison::Differs(format!(
                "it registers the divan benchmark `{}`, which may be this one",
                name.to_lowercase()
            ))
        }
        _ => compared.clone(),
    }
}

/// `record` (decided by [`decide_outside`]) with, when it is skipped, every other function
/// `compared` found of the same source added to its `same_source`: its native probe may enter
/// those outside its timed loop, as it may its own (what runs there is not measured, and what
/// it computes is the same by their source), and still stops at any inside it. A function whose
/// source differs or was not compared still ends its probe wherever it is entered.
fn same_elsewhere(
    mut record: SelectionRecord,
    compared: &BTreeMap<&String, SourceComparison>,
) -> SelectionRecord {
    if record.measured {
        return record;
    }
    let same = compared.iter().filter(|(_, c)| c.is_same());
    let others: Vec<String> = same
        .map(|(f, _)| (*f).clone())
        .filter(|f| !record.same_source.contains(f))
        .collect();
    record.same_source.extend(others);
    record
}

/// The sources of `functions` compared between the builds with line tables of the bench targets
/// of `base` and `head`.
pub(super) fn compare_sources(
    sides: &SelectedSides<'_>,
    (base, head): (&BuiltTarget, &BuiltTarget),
    functions: &[String],
) -> Result<Vec<SourceComparison>, String> {
    let base_exe = with_line_tables(sides, Side::Base, sides.base, base)?;
    let head_exe = with_line_tables(sides, Side::Head, sides.head, head)?;
    let checkouts = [&sides.base.root, &sides.head.root].map(|root| checkout_of(root));
    let changed = changed_names_of([sides.base, sides.head], &checkouts)?;
    let side = |executable, checkout| source::Side {
        executable,
        checkout,
    };
    Ok(source::compare_functions(
        &side(&base_exe, &checkouts[0]),
        &side(&head_exe, &checkouts[1]),
        functions,
        &changed,
    ))
}

/// The executable of `built`'s bench target on `side` (whose build is `side_build`), built with
/// debug line tables where `--explain` builds it; the executable measured where it has line
/// tables of its own code already (a bench profile with `debug = true`).
fn with_line_tables(
    sides: &SelectedSides<'_>,
    side: Side,
    side_build: &SideBuild,
    built: &BuiltTarget,
) -> Result<PathBuf, String> {
    if source::has_checkout_line_tables(&built.exe.path) {
        return Ok(built.exe.path.clone());
    }
    let LineTablesBuild {
        options,
        target_dir,
        kept_dir,
        label,
    } = LineTablesBuild::of(sides.build, sides.target_dir, sides.perfdiff_dir, side);
    let key = TargetKey::new(&built.exe.package, &built.exe.target);
    let mut quiet = |_: BuildEvent| {};
    let built = build::build_needed_benches(
        &side_build.root,
        &label,
        &target_dir,
        &kept_dir,
        &options,
        std::slice::from_ref(&key),
        &mut quiet,
    )
    .map_err(|e| format!("the build of {label} failed: {e}"))?;
    built
        .into_iter()
        .find(|exe| TargetKey::new(&exe.package, &exe.target) == key)
        .map(|exe| exe.path)
        .ok_or_else(|| format!("the build of {label} made no {}", key.target))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_divan_registration_set_apart_differs_for_the_benchmark_it_may_register() {
        let function = "demo::renamed::__DIVAN_BENCH_OLD::push";
        let apart = SourceComparison::SameApart("registers `old`".into());
        let own = own_registration("demo::renamed::old", function, &apart);
        assert!(matches!(own, SourceComparison::Differs(_)), "{own:?}");
        assert_eq!(
            own_registration("demo::renamed::kept", function, &apart),
            apart
        );
        let edited = SourceComparison::Differs("edited".into());
        assert_eq!(
            own_registration("demo::renamed::old", "demo::f", &apart),
            apart
        );
        assert_eq!(
            own_registration("demo::renamed::old", function, &edited),
            edited
        );
    }

    #[test]
    fn a_skipped_benchmark_may_enter_other_functions_of_the_same_source_outside_its_loop() {
        let names = ["own", "init", "edited", "unknown"].map(String::from);
        let compared: BTreeMap<&String, SourceComparison> = [
            (&names[0], SourceComparison::Same),
            (&names[1], SourceComparison::SameApart("`x` inlined".into())),
            (&names[2], SourceComparison::Differs("edited".into())),
            (&names[3], SourceComparison::Unknown("unreadable".into())),
        ]
        .into_iter()
        .collect();
        let skipped = SelectionRecord {
            measured: false,
            same_source: vec!["own".into()],
            ..SelectionRecord::default()
        };
        let record = same_elsewhere(skipped, &compared);
        assert_eq!(record.same_source, ["own", "init"]);
        let measured = SelectionRecord {
            measured: true,
            ..SelectionRecord::default()
        };
        assert!(same_elsewhere(measured, &compared).same_source.is_empty());
    }
}
