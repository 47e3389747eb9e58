//! The decision for a skipped benchmark whose native probe entered changed functions outside its
//! timed routine that were not known to be of the same source ([`decide_outside`]).
//!
//! Why: a criterion benchmark's trace runs criterion in test mode, one call of the routine, so
//! the sampling loop that runs *around* the timed routine in a fork (`criterion::analysis::
//! common`) is never traced, and never source-compared. Its machine code differs between base's
//! and head's executables whenever the bench crate's other code changed (register allocation),
//! though its source did not (rust-base64 #269: all 56 encode benchmarks of a decoding change,
//! docs/design/field-trials.md). What runs outside the timed routine is not measured; what it
//! computes is the same when its source is (issue #55 item 2), as for a benchmark whose trace
//! found its changed code only outside its loop ([`super::reach_outside`]).
//!
//! How: the probe notes every such function instead of stopping at the first
//! ([`crate::steps::reach::probe::timing`]); it still stops at the first changed function
//! entered inside the timed routine. Their sources are compared once for the target, from the
//! builds with line tables `--explain` makes (built when first needed). The benchmark stays
//! skipped only when every one is of the same source; a different source, or one that could not
//! be compared, measures it.

use std::collections::{BTreeMap, BTreeSet};

use crate::model::samples::{SelectionReason, SelectionRecord};
use crate::steps::progress::Progress;
use crate::steps::reach::source::SourceComparison;

use super::reach_outside::MAX_COMPARED;

/// The sources of some changed functions, compared between base and head, in order; or why
/// they could not be.
pub(super) type Compared = Result<Vec<SourceComparison>, String>;

/// `probed` (each skipped benchmark's record after its probe, with the changed functions it
/// entered outside its timed routine) decided: a benchmark that entered any stays skipped when
/// `compare` finds every one of the same source, its record naming them; else it is measured,
/// naming the first whose source differs or could not be compared.
pub(super) fn decide_outside(
    probed: Vec<(String, SelectionRecord, Vec<String>)>,
    compare: impl FnOnce(&[String]) -> Compared,
    progress: &Progress,
) -> Vec<(String, SelectionRecord)> {
    let entered: BTreeSet<&String> = probed
        .iter()
        .filter(|(_, record, _)| record.skipped())
        .flat_map(|(_, _, outside)| outside)
        .collect();
    if entered.is_empty() {
        return probed.into_iter().map(|(id, r, _)| (id, r)).collect();
    }
    progress.note(&format!(
        "the native probes entered {} changed function(s) only outside the timed routine: \
         comparing their source in builds of both sides with line tables",
        entered.len()
    ));
    let functions: Vec<String> = entered.into_iter().take(MAX_COMPARED).cloned().collect();
    let compared: BTreeMap<String, SourceComparison> = match compare(&functions) {
        Ok(compared) => functions.into_iter().zip(compared).collect(),
        Err(why) => {
            let unknown = SourceComparison::Unknown(why);
            functions
                .into_iter()
                .map(|f| (f, unknown.clone()))
                .collect()
        }
    };
    probed
        .into_iter()
        .map(|(id, record, outside)| (id, decided(record, &outside, &compared)))
        .collect()
}

/// The record of a skipped benchmark whose probe entered `outside` outside its timed routine,
/// once their sources are `compared`.
fn decided(
    record: SelectionRecord,
    outside: &[String],
    compared: &BTreeMap<String, SourceComparison>,
) -> SelectionRecord {
    if !record.skipped() || outside.is_empty() {
        return record;
    }
    let other = outside.iter().find_map(|f| match compared.get(f) {
        None => Some((f, "was not compared".to_string())),
        Some(SourceComparison::Differs(why)) => Some((f, format!("differs ({why})"))),
        Some(SourceComparison::Unknown(why)) => Some((f, format!("cannot be compared ({why})"))),
        Some(SourceComparison::Same | SourceComparison::SameApart(_)) => None,
    });
    if let Some((name, why)) = other {
        return SelectionRecord {
            measured: true,
            reason: SelectionReason::ReachesChange,
            detail: format!(
                "it reaches `{name}` outside its timed routine in a native run, which its trace \
                 did not, and its source {why}, so what it computes may have changed (native \
                 probe)"
            ),
            changed_functions: vec![name.clone()],
            outside_loop: vec![name.clone()],
            same_source: Vec::new(),
            ..record
        };
    }
    let names: Vec<String> = outside.iter().map(|f| format!("`{f}`")).collect();
    // What was taken as the same though the code's lines differ, and why.
    let notes: Vec<&str> = outside
        .iter()
        .filter_map(|f| match compared.get(f) {
            Some(SourceComparison::SameApart(note)) => Some(note.as_str()),
            _ => None,
        })
        .collect();
    let notes = match notes.is_empty() {
        true => String::new(),
        false => format!(": {}", notes.join("; ")),
    };
    let mut same_source = record.same_source.clone();
    same_source.extend(
        outside
            .iter()
            .filter(|f| !record.same_source.contains(f))
            .cloned(),
    );
    SelectionRecord {
        detail: format!(
            "{}; the changed code it entered there runs only outside its timed loop ({}), \
             compiled from the same source on both sides{notes}",
            record.detail,
            names.join(", ")
        ),
        same_source,
        ..record
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skipped() -> SelectionRecord {
        SelectionRecord {
            measured: false,
            reason: SelectionReason::SameCode,
            detail: "same code".into(),
            ..SelectionRecord::default()
        }
    }

    fn compared() -> BTreeMap<String, SourceComparison> {
        [
            ("common", SourceComparison::Same),
            ("edited", SourceComparison::Differs("line 3".into())),
            ("unknown", SourceComparison::Unknown("unreadable".into())),
        ]
        .into_iter()
        .map(|(f, c)| (f.to_string(), c))
        .collect()
    }

    #[test]
    fn a_benchmark_that_entered_only_same_source_functions_outside_its_routine_stays_skipped() {
        let record = decided(skipped(), &["common".into()], &compared());
        assert!(record.skipped(), "{record:?}");
        assert_eq!(record.same_source, ["common"]);
        assert!(
            record
                .detail
                .contains("only outside its timed loop (`common`)"),
            "{}",
            record.detail
        );
        // Entering none leaves the record as it was.
        assert_eq!(decided(skipped(), &[], &compared()), skipped());
    }

    #[test]
    fn what_was_taken_as_the_same_source_is_said_in_the_record() {
        let mut compared = compared();
        let note = "`cast` (cast-0.3.0/src/lib.rs) holds lines 181–181 in base's code and 181–307 \
                    in head's";
        let apart = SourceComparison::SameApart(note.into());
        compared.insert("analysis".into(), apart);
        let outside = ["common".to_string(), "analysis".to_string()];
        let record = decided(skipped(), &outside, &compared);
        assert!(record.skipped(), "{record:?}");
        assert_eq!(record.same_source, ["common", "analysis"]);
        assert!(
            record.detail.ends_with(&format!(
                "(`common`, `analysis`), compiled from the same source on both sides: {note}"
            )),
            "{}",
            record.detail
        );
    }

    #[test]
    fn a_different_unknown_or_uncompared_source_outside_the_routine_measures_it() {
        for (function, why) in [
            ("edited", "differs (line 3)"),
            ("unknown", "cannot be compared (unreadable)"),
            ("beyond", "was not compared"),
        ] {
            let outside = ["common".to_string(), function.to_string()];
            let record = decided(skipped(), &outside, &compared());
            assert!(record.measured, "{record:?}");
            assert_eq!(record.reason, SelectionReason::ReachesChange);
            assert_eq!(record.changed_functions, [function]);
            assert!(record.detail.contains(why), "{}", record.detail);
        }
    }
}
