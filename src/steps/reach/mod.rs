//! Which benchmarks a change can reach: decided before measuring, from what each benchmark
//! executes and reads, so that a benchmark whose executed code, data and input files are the same
//! on both sides is `unchanged` without a fork (docs/selection.md).
//!
//! Why: a pull request that touches one module of a suite of a hundred benchmarks would
//! otherwise measure all hundred, so CI time grows with the suite rather than with the change,
//! and the untouched benchmarks are where the verdicts are weakest: the change moves their code
//! elsewhere in the executable, and a layout's few percent leaves them `inconclusive`. Peass
//! (Reichelt et al.) selects the tests a change can affect from traces of what each executes;
//! this module does the same at the level of machine code.
//!
//! The parts, in the order a decision takes them:
//! - [`trace`]: what one benchmark executes (instruction addresses in its executable) and which
//!   files it opens, under valgrind's callgrind, in its harness's test mode (one call of the
//!   timed routine; what later calls reach is the native [`probe`]'s); kept per executable
//!   content;
//! - [`code`]: whether those functions, and the data they reach, are the same machine code on
//!   both sides, compared in the objects the executables were linked from;
//! - [`files`]: whether the files of the checkout it read are the same in both checkouts;
//! - [`settings`]: whether both sides are built with the same settings;
//! - [`versions`]: which of the workspace's packages changed version (what explains functions
//!   without a partner).
//!
//! Conservative wherever unsure: a benchmark is skipped only when all four say "the same"; a
//! trace that fails, an address without a symbol, a function without a partner, a file that
//! cannot be read leave it measured, and its record says why ([`decide`]).

pub mod code;
pub mod files;
pub mod probe;
pub mod settings;
pub mod source;
pub mod trace;
pub mod versions;

use crate::model::samples::{SelectionReason, SelectionRecord};
use code::CodeComparison;
use files::FileComparison;
use source::SourceComparison;
use versions::VersionChange;

/// The decision for one benchmark from what was compared: skipped (`measured: false`) only when
/// the build settings agree, its code and data are the same and every file it read is. When an
/// executed function has no partner and `versions` lists packages whose version changed, that is
/// the reason given: their functions' new symbol hashes leave nothing to pair them with.
pub fn decide(
    code: &CodeComparison,
    files: &FileComparison,
    settings: &[String],
    versions: &[VersionChange],
) -> SelectionRecord {
    if let Some(first) = settings.first() {
        return settings_differ(first);
    }
    let (functions, data, alike, set_aside) = match code {
        CodeComparison::Unknown { reason } => return undecided(reason.clone()),
        CodeComparison::Same {
            functions,
            data,
            alike,
            set_aside,
        } => (*functions, *data, alike, set_aside),
        CodeComparison::Differs { unpaired: true, .. } if !versions.is_empty() => {
            return undecided(versions::explanation(versions));
        }
        CodeComparison::Differs {
            functions, data, ..
        } => {
            return reaches(functions.clone(), data.clone(), files);
        }
    };
    if let Some(why) = &files.undecided {
        return undecided(why.clone());
    }
    if !files.changed.is_empty() {
        return reaches(Vec::new(), Vec::new(), files);
    }
    SelectionRecord {
        measured: false,
        reason: SelectionReason::SameCode,
        detail: same_code_detail(functions, data, files.same)
            + &read_alike(alike)
            + &set_aside_detail(set_aside),
        functions,
        data,
        files: files.same,
        ..SelectionRecord::default()
    }
}

/// A measured benchmark whose sides are built with other settings (`first` names one).
pub fn settings_differ(first: &str) -> SelectionRecord {
    undecided(format!("the build settings differ: {first}"))
}

/// A measured benchmark whose selection could not be decided, and why.
pub fn undecided(why: String) -> SelectionRecord {
    SelectionRecord {
        measured: true,
        reason: SelectionReason::Undecided,
        detail: why,
        ..SelectionRecord::default()
    }
}

/// A measured benchmark that reaches the change: what changed that it executes or reads.
fn reaches(functions: Vec<String>, data: Vec<String>, files: &FileComparison) -> SelectionRecord {
    let mut record = SelectionRecord {
        measured: true,
        reason: SelectionReason::ReachesChange,
        changed_functions: functions,
        changed_data: data,
        changed_files: files.changed.clone(),
        looked_at_files: files.looked_at.clone(),
        ..SelectionRecord::default()
    };
    record.detail = reached_detail(&record, None);
    record
}

/// Says, in the detail of `record` (a benchmark that executes changed code), which of its changed
/// functions run within its timed loop and which only outside it: `timed` are the changed
/// functions among the code its timed routine reached ([`trace::Trace::timed`]). Only the detail
/// changes: what is measured does not (what runs outside the loop still computes its inputs).
pub fn name_timed_part(record: &mut SelectionRecord, timed: &[String]) {
    if record.reason == SelectionReason::ReachesChange && !record.changed_functions.is_empty() {
        record.detail = reached_detail(record, Some(timed));
        record.outside_loop = record
            .changed_functions
            .iter()
            .filter(|f| !timed.contains(f))
            .cloned()
            .collect();
    }
}

/// Says, in the detail of `record` (a benchmark that executes changed code), that which of its
/// changed functions run in its timed loop is not known, and why (its trace's
/// [`trace::Trace::untimed`]: the harness's timed routine was inlined, the run started a
/// thread): every one counts, wherever it runs.
pub fn name_untimed(record: &mut SelectionRecord, why: &str) {
    if record.reason == SelectionReason::ReachesChange && !record.changed_functions.is_empty() {
        record.detail = format!(
            "{}; which of them run in its timed loop is not known: {why}",
            record.detail
        );
    }
}

/// What was found the same for a benchmark whose changed code runs only outside its timed loop:
/// the functions and data objects its timed loop executes and reaches, the files it reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimedSame {
    pub functions: usize,
    pub data: usize,
    pub files: usize,
}

/// Whether `record` (measured because it executes changed code) may be skipped once the source
/// of its changed functions is compared: every changed function ran only outside its timed loop
/// (its trace told, [`name_timed_part`]), and it reaches no changed data and reads no changed
/// file. The caller also needs its timed loop's code the same and every file it reads known.
pub fn runs_changes_only_outside(record: &SelectionRecord) -> bool {
    record.reason == SelectionReason::ReachesChange
        && !record.changed_functions.is_empty()
        && record.outside_loop.len() == record.changed_functions.len()
        && record.changed_data.is_empty()
        && record.changed_files.is_empty()
}

/// The decision for `record` ([`runs_changes_only_outside`]) once the sources of its changed
/// functions (`record.outside_loop`, in order) are compared (`sources`): skipped as the same
/// code when every one was compiled from the same source on both sides (what runs outside the
/// timed loop is not measured; what it computes is the same), else measured as before, its
/// detail saying which function's source differs or could not be compared. `timed`: what was
/// found the same inside the loop.
pub fn skip_outside_loop(
    record: SelectionRecord,
    sources: &[SourceComparison],
    timed: TimedSame,
) -> SelectionRecord {
    let functions = &record.outside_loop;
    let first_other = functions
        .iter()
        .zip(sources)
        .find(|(_, source)| !source.is_same());
    let why = match first_other {
        _ if sources.len() != functions.len() => Some(format!(
            "the source of {} of its {} changed function(s) was not compared, so its set-up may \
             have changed",
            functions.len().saturating_sub(sources.len()),
            functions.len()
        )),
        None => None,
        Some((name, SourceComparison::Differs(why))) => Some(format!(
            "the source of `{name}` differs ({why}), so its set-up changed"
        )),
        Some((name, SourceComparison::Unknown(why))) => Some(format!(
            "the source of `{name}` cannot be compared ({why}), so its set-up may have changed"
        )),
        Some((_, SourceComparison::Same | SourceComparison::SameApart(_))) => None,
    };
    if let Some(why) = why {
        let detail = format!("{}; measured: {why}, {SET_UP_DECIDES}", record.detail);
        return SelectionRecord { detail, ..record };
    }
    let detail = format!(
        "{}; the code of {} differs only outside its timed loop (start-up, set-up, teardown), \
         compiled from the same source on both sides{}",
        same_code_detail(timed.functions, timed.data, timed.files).replacen(
            "same code:",
            "same code in its timed loop:",
            1
        ),
        list_names(functions),
        apart_notes(sources)
    );
    SelectionRecord {
        measured: false,
        reason: SelectionReason::SameCode,
        detail,
        functions: timed.functions,
        data: timed.data,
        files: timed.files,
        same_source: functions.clone(),
        ..record
    }
}

/// Why changed code outside the timed loop is measured unless its source is shown the same: the
/// loop's code is the same, but what the set-up computes can choose what the loop runs (POLYVAL's
/// CPU-feature check picked its portable backend at head, 10–17 times slower,
/// docs/design/field-trials.md).
const SET_UP_DECIDES: &str = "and what a set-up computes can decide what the timed loop runs (a \
                              CPU-feature check that picks another backend)";

/// What the source comparisons found inlined on one side and called on the other
/// ([`SourceComparison::SameApart`]), each once, in parentheses: "" when nothing was.
fn apart_notes(sources: &[SourceComparison]) -> String {
    let mut notes: Vec<&str> = Vec::new();
    for source in sources {
        if let SourceComparison::SameApart(note) = source
            && !notes.contains(&note.as_str())
        {
            notes.push(note);
        }
    }
    match notes.is_empty() {
        true => String::new(),
        false => format!(" ({})", notes.join("; ")),
    }
}

/// At most three of `names`, and how many more.
fn list_names(names: &[String]) -> String {
    let mut text = names.iter().take(3).cloned().collect::<Vec<_>>().join(", ");
    if names.len() > 3 {
        text.push_str(&format!(" (+{} more)", names.len() - 3));
    }
    text
}

/// "it executes changed code: a, b; reaches changed data: c; reads a changed file: d", at most
/// three names of each. With `timed` (the changed functions its timed loop reached), the code
/// says which part it is in: "executes changed code: a (in its timed loop), and only outside it
/// (start-up, set-up, teardown): b", or "executes changed code only outside its timed loop
/// (start-up, set-up, teardown), which can still decide what the loop runs: b" (a set-up's result
/// can choose what is timed).
fn reached_detail(record: &SelectionRecord, timed: Option<&[String]>) -> String {
    let list = list_names;
    let functions = &record.changed_functions;
    let code = match timed {
        _ if functions.is_empty() => None,
        None => Some(format!("executes changed code: {}", list(functions))),
        Some(timed) => {
            let (inside, outside): (Vec<String>, Vec<String>) =
                functions.iter().cloned().partition(|f| timed.contains(f));
            const OUTSIDE: &str = "(start-up, set-up, teardown)";
            Some(match (inside.is_empty(), outside.is_empty()) {
                (false, true) => format!(
                    "executes changed code: {} (in its timed loop)",
                    list(&inside)
                ),
                (true, _) => format!(
                    "executes changed code only outside its timed loop {OUTSIDE}, which can \
                     still decide what the loop runs: {}",
                    list(&outside)
                ),
                (false, false) => format!(
                    "executes changed code: {} (in its timed loop), and only outside it {OUTSIDE}: {}",
                    list(&inside),
                    list(&outside)
                ),
            })
        }
    };
    let read: Vec<String> = record
        .changed_files
        .iter()
        .filter(|f| !record.looked_at_files.contains(f))
        .cloned()
        .collect();
    let parts: Vec<String> = code
        .into_iter()
        .chain(
            [
                ("reaches changed data", &record.changed_data),
                ("reads changed files", &read),
                (
                    "looks at changed files (their size, kind or permissions, not their content)",
                    &record.looked_at_files,
                ),
            ]
            .into_iter()
            .filter(|(_, names)| !names.is_empty())
            .map(|(what, names)| format!("{what}: {}", list(names))),
        )
        .collect();
    format!("it {}", parts.join("; "))
}

/// What the same code's detail adds when data held a package's build-script output directory,
/// base's on one side and head's on the other (cargo names it by a hash of the version): "; the
/// build-script output directory of `lib` read alike (cargo named it by another hash)".
fn read_alike(packages: &[String]) -> String {
    if packages.is_empty() {
        return String::new();
    }
    let named: Vec<String> = packages.iter().map(|p| format!("`{p}`")).collect();
    let (dirs, them, hashes) = match named.len() {
        1 => ("directory", "it", "another hash"),
        _ => ("directories", "them", "other hashes"),
    };
    format!(
        "; the build-script output {dirs} of {} read alike (cargo named {them} by {hashes})",
        named.join(", ")
    )
}

/// What the code comparison set aside, each saying why, for the detail: "; set aside:
/// libtest's table of benchmarks: source lines moved (…)".
fn set_aside_detail(set_aside: &[String]) -> String {
    set_aside
        .iter()
        .map(|what| format!("; set aside: {what}"))
        .collect()
}

/// "same code: 41 functions, 12 data objects, 1 file compared".
pub fn same_code_detail(functions: usize, data: usize, files: usize) -> String {
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let mut parts = vec![
        plural(functions, "function", "functions"),
        plural(data, "data object", "data objects"),
    ];
    if files > 0 {
        parts.push(plural(files, "file", "files"));
    }
    format!("same code: {} compared", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same() -> CodeComparison {
        CodeComparison::Same {
            functions: 41,
            data: 12,
            alike: Vec::new(),
            set_aside: Vec::new(),
        }
    }

    #[test]
    fn the_same_code_files_and_settings_skip_the_benchmark() {
        let files = FileComparison {
            same: 1,
            ..FileComparison::default()
        };
        let record = decide(&same(), &files, &[], &[]);
        assert!(record.skipped());
        assert_eq!(
            record.detail,
            "same code: 41 functions, 12 data objects, 1 file compared"
        );
    }

    #[test]
    fn the_same_code_says_whose_build_script_output_directory_it_read_alike() {
        let alike = |packages: &[&str]| CodeComparison::Same {
            functions: 3,
            data: 2,
            alike: packages.iter().map(|p| p.to_string()).collect(),
            set_aside: Vec::new(),
        };
        let files = FileComparison::default();
        let record = decide(&alike(&["lib"]), &files, &[], &[]);
        assert!(record.skipped());
        assert_eq!(
            record.detail,
            "same code: 3 functions, 2 data objects compared; the build-script output directory \
             of `lib` read alike (cargo named it by another hash)"
        );
        let record = decide(&alike(&["a", "b"]), &files, &[], &[]);
        assert!(
            record
                .detail
                .ends_with("directories of `a`, `b` read alike (cargo named them by other hashes)"),
            "{}",
            record.detail
        );
        let record = decide(&alike(&[]), &files, &[], &[]);
        assert_eq!(
            record.detail,
            "same code: 3 functions, 2 data objects compared"
        );
    }

    #[test]
    fn the_same_code_says_what_it_set_aside() {
        let code = CodeComparison::Same {
            functions: 3,
            data: 2,
            alike: Vec::new(),
            set_aside: vec![code::LIBTEST_TABLE_MOVED.to_string()],
        };
        let record = decide(&code, &FileComparison::default(), &[], &[]);
        assert!(record.skipped());
        assert_eq!(
            record.detail,
            "same code: 3 functions, 2 data objects compared; set aside: libtest's table of \
             benchmarks: source lines moved (the descriptors `rustc --test` writes, which libtest \
             reads to list and name the benchmarks; names, flags and functions the same)"
        );
    }

    #[test]
    fn anything_changed_or_unsure_measures_it() {
        let quiet = FileComparison::default();
        let changed_file = FileComparison {
            changed: vec!["data/input.txt".into()],
            ..FileComparison::default()
        };
        let unreadable = FileComparison {
            undecided: Some("it reads x, which cannot be read".into()),
            ..FileComparison::default()
        };
        let differs = CodeComparison::Differs {
            functions: vec!["demo::mix".into()],
            data: vec![],
            unpaired: false,
        };
        let unknown = CodeComparison::Unknown {
            reason: "an executed address has no symbol".into(),
        };
        let settings = ["rust-toolchain.toml differs".to_string()];
        for (code, files, settings) in [
            (&differs, &quiet, &[][..]),
            (&unknown, &quiet, &[][..]),
            (&same(), &changed_file, &[][..]),
            (&same(), &unreadable, &[][..]),
            (&same(), &quiet, &settings[..]),
        ] {
            let record = decide(code, files, settings, &[]);
            assert!(record.measured && !record.skipped(), "{record:?}");
        }
        let record = decide(&differs, &changed_file, &[], &[]);
        assert_eq!(record.reason, SelectionReason::ReachesChange);
        assert_eq!(
            record.detail,
            "it executes changed code: demo::mix; reads changed files: data/input.txt"
        );
        // A file only asked about is said to be looked at, not read, and kept apart in the JSON.
        let looked_at = FileComparison {
            changed: vec!["data/input.txt".into(), "src/walk.rs".into()],
            looked_at: vec!["src/walk.rs".into()],
            ..FileComparison::default()
        };
        let record = decide(&same(), &looked_at, &[], &[]);
        assert!(record.measured, "{record:?}");
        assert_eq!(
            record.detail,
            "it reads changed files: data/input.txt; looks at changed files (their size, kind or \
             permissions, not their content): src/walk.rs"
        );
        assert_eq!(record.looked_at_files, ["src/walk.rs"]);
    }

    #[test]
    fn functions_without_a_partner_after_a_version_bump_are_measured_naming_the_bump() {
        let bump = [VersionChange {
            package: "demo".into(),
            base: "0.1.0".into(),
            head: "0.2.0".into(),
        }];
        let unpaired = CodeComparison::Differs {
            functions: vec!["criterion::bencher::Bencher<M>::iter".into()],
            data: vec![],
            unpaired: true,
        };
        let quiet = FileComparison::default();
        let record = decide(&unpaired, &quiet, &[], &bump);
        assert!(record.measured);
        assert_eq!(record.reason, SelectionReason::Undecided);
        assert_eq!(
            record.detail,
            "the package version of `demo` changed (0.1.0 → 0.2.0), so its functions have new \
             symbol hashes and cannot be paired"
        );
        // Without a bump, or when every function has a partner, the changed code is named.
        let record = decide(&unpaired, &quiet, &[], &[]);
        assert_eq!(record.reason, SelectionReason::ReachesChange);
        let paired = CodeComparison::Differs {
            functions: vec!["demo::mix".into()],
            data: vec![],
            unpaired: false,
        };
        let record = decide(&paired, &quiet, &[], &bump);
        assert_eq!(record.detail, "it executes changed code: demo::mix");
    }

    #[test]
    fn the_detail_says_which_changed_functions_run_only_outside_the_timed_loop() {
        let differs = CodeComparison::Differs {
            functions: vec![
                "demo::mix".into(),
                "criterion::Criterion<M>::configure_from_args".into(),
            ],
            data: vec!["demo::TABLE".into()],
            unpaired: false,
        };
        let quiet = FileComparison::default();
        let mut record = decide(&differs, &quiet, &[], &[]);
        name_timed_part(&mut record, &["demo::mix".to_string()]);
        assert_eq!(
            record.detail,
            "it executes changed code: demo::mix (in its timed loop), and only outside it \
             (start-up, set-up, teardown): criterion::Criterion<M>::configure_from_args; \
             reaches changed data: demo::TABLE"
        );
        // Still measured, for the same reason, with the same names.
        assert!(record.measured);
        assert_eq!(record.reason, SelectionReason::ReachesChange);
        assert_eq!(record.changed_functions.len(), 2);
        assert_eq!(
            record.outside_loop,
            ["criterion::Criterion<M>::configure_from_args"]
        );
        // Nothing inside: only the outside part is named.
        let mut record = decide(&differs, &quiet, &[], &[]);
        name_timed_part(&mut record, &[]);
        assert!(
            record.detail.starts_with(
                "it executes changed code only outside its timed loop (start-up, set-up, \
                 teardown), which can still decide what the loop runs: "
            ),
            "{}",
            record.detail
        );
        // All inside.
        let mut record = decide(&differs, &quiet, &[], &[]);
        let all = record.changed_functions.clone();
        name_timed_part(&mut record, &all);
        assert_eq!(
            record.detail,
            "it executes changed code: demo::mix, criterion::Criterion<M>::configure_from_args \
             (in its timed loop); reaches changed data: demo::TABLE"
        );
        // A skipped or undecided record keeps its detail.
        let mut same = decide(&same(), &quiet, &[], &[]);
        let detail = same.detail.clone();
        name_timed_part(&mut same, &[]);
        assert_eq!(same.detail, detail);
    }

    #[test]
    fn a_benchmark_whose_timed_loop_is_not_known_says_why() {
        let differs = CodeComparison::Differs {
            functions: vec!["demo::set_up".into()],
            data: vec![],
            unpaired: false,
        };
        let quiet = FileComparison::default();
        let mut record = decide(&differs, &quiet, &[], &[]);
        name_untimed(&mut record, "its run started a thread");
        assert_eq!(
            record.detail,
            "it executes changed code: demo::set_up; which of them run in its timed loop is not \
             known: its run started a thread"
        );
        assert!(record.measured && record.outside_loop.is_empty());
        assert!(!runs_changes_only_outside(&record));
        // Nothing to say of a benchmark that executes no changed function.
        let mut same = decide(&same(), &quiet, &[], &[]);
        let detail = same.detail.clone();
        name_untimed(&mut same, "its run started a thread");
        assert_eq!(same.detail, detail);
    }

    /// A benchmark whose two changed functions ran only outside its timed loop.
    fn outside_only() -> SelectionRecord {
        let differs = CodeComparison::Differs {
            functions: vec![
                "demo::set_up".into(),
                "criterion::Criterion<M>::configure_from_args".into(),
            ],
            data: vec![],
            unpaired: false,
        };
        let mut record = decide(&differs, &FileComparison::default(), &[], &[]);
        name_timed_part(&mut record, &[]);
        record
    }

    const TIMED: TimedSame = TimedSame {
        functions: 12,
        data: 3,
        files: 0,
    };

    #[test]
    fn changed_code_only_outside_the_timed_loop_from_the_same_source_is_the_same_code() {
        let record = outside_only();
        assert!(runs_changes_only_outside(&record));
        let same = [SourceComparison::Same, SourceComparison::Same];
        let skipped = skip_outside_loop(record, &same, TIMED);
        assert!(skipped.skipped(), "{skipped:?}");
        assert_eq!(
            skipped.detail,
            "same code in its timed loop: 12 functions, 3 data objects compared; the code of \
             demo::set_up, criterion::Criterion<M>::configure_from_args differs only outside its \
             timed loop (start-up, set-up, teardown), compiled from the same source on both sides"
        );
        assert_eq!(skipped.same_source, skipped.outside_loop);
        assert_eq!(skipped.changed_functions.len(), 2);
        assert_eq!((skipped.functions, skipped.data), (12, 3));
    }

    #[test]
    fn a_function_inlined_on_one_side_only_from_the_same_source_is_named_in_the_skip() {
        let note = "`offset` (src/unix.rs) inlined in base, called in head, same source";
        let sources = [
            SourceComparison::SameApart(note.to_string()),
            SourceComparison::SameApart(note.to_string()),
        ];
        let skipped = skip_outside_loop(outside_only(), &sources, TIMED);
        assert!(skipped.skipped(), "{skipped:?}");
        assert!(
            skipped.detail.ends_with(&format!(
                "compiled from the same source on both sides ({note})"
            )),
            "{}",
            skipped.detail
        );
    }

    #[test]
    fn a_changed_source_or_one_that_cannot_be_compared_outside_the_loop_is_measured() {
        let differs = [
            SourceComparison::Same,
            SourceComparison::Differs("demo::set_up differs at src/lib.rs:4".into()),
        ];
        let unknown = [
            SourceComparison::Unknown("no line tables".into()),
            SourceComparison::Same,
        ];
        for (sources, says) in [
            (
                &differs[..],
                "measured: the source of `criterion::Criterion<M>::configure_from_args` differs \
                 (demo::set_up differs at src/lib.rs:4), so its set-up changed, ",
            ),
            (
                &unknown[..],
                "measured: the source of `demo::set_up` cannot be compared (no line tables), so \
                 its set-up may have changed, ",
            ),
            (
                &differs[..1],
                "measured: the source of 1 of its 2 changed function(s) was not compared, so its \
                 set-up may have changed, ",
            ),
        ] {
            let record = skip_outside_loop(outside_only(), sources, TIMED);
            assert!(record.measured, "{record:?}");
            assert_eq!(record.reason, SelectionReason::ReachesChange);
            // Why it is measured: what the set-up computes can choose what the loop runs.
            let why = format!("{says}{SET_UP_DECIDES}");
            assert!(record.detail.ends_with(&why), "{}", record.detail);
        }
    }

    #[test]
    fn only_changed_code_all_outside_the_loop_without_changed_data_or_files_is_a_candidate() {
        assert!(runs_changes_only_outside(&outside_only()));
        // A changed function inside the loop, changed data, a changed file, or a trace that
        // cannot tell the loop.
        let mut inside = outside_only();
        name_timed_part(&mut inside, &["demo::set_up".to_string()]);
        let data = SelectionRecord {
            changed_data: vec!["demo::TABLE".into()],
            ..outside_only()
        };
        let file = SelectionRecord {
            changed_files: vec!["data/input.txt".into()],
            ..outside_only()
        };
        let untold = SelectionRecord {
            outside_loop: vec![],
            ..outside_only()
        };
        for record in [inside, data, file, untold] {
            assert!(!runs_changes_only_outside(&record), "{record:?}");
        }
        assert!(!runs_changes_only_outside(&decide(
            &same(),
            &FileComparison::default(),
            &[],
            &[]
        )));
    }
}
