//! The native probe of every benchmark selection would skip ([`crate::steps::reach::probe`]):
//! run once as a fork runs it, with a breakpoint at every function of base's executable whose
//! code differs from head's, so that a changed function the valgrind trace's fewer iterations
//! never reached still measures the benchmark.
//!
//! Why after the decision and only for the skipped: a benchmark already measured needs no
//! probe, and a comment-only commit (no function differs) needs none at all. The set of changed
//! functions is computed once per pair of executables, by the same [`Comparer`] that decided.

use std::path::Path;

use rayon::prelude::*;

use crate::model::samples::{SelectionReason, SelectionRecord};
use crate::steps::fork::ForkRequest;
use crate::steps::reach::code::{ChangedEntry, Comparer};
use crate::steps::reach::probe::{Probe, probe_benchmark};
use crate::steps::reach::undecided;
use crate::steps::stop::WARMUP_TIME_MIN;

/// `records` (of the benchmarks `requests` trace, in the same order) with every skipped one
/// probed: measured when its probe enters a changed function or fails.
pub(super) fn probe_skipped(
    perfdiff_dir: &Path,
    comparer: &mut Comparer<'_>,
    requests: &[ForkRequest],
    records: Vec<(String, SelectionRecord)>,
) -> Vec<(String, SelectionRecord)> {
    if !records.iter().any(|(_, record)| record.skipped()) {
        return records;
    }
    let entries = match comparer.changed_entries() {
        Ok(entries) => entries,
        Err(why) => {
            let failed = undecided(format!("its native probe cannot run: {why}"));
            return records
                .into_iter()
                .map(|(id, r)| (id, if r.skipped() { failed.clone() } else { r }))
                .collect();
        }
    };
    // One probe per CPU at a time, as the traces run.
    records
        .into_par_iter()
        .zip(requests.par_iter())
        .map(|((id, record), request)| {
            if !record.skipped() {
                return (id, record);
            }
            (id, probed(record, request, &entries, perfdiff_dir))
        })
        .collect()
}

/// The record of the skipped benchmark `record` after its probe.
fn probed(
    record: SelectionRecord,
    request: &ForkRequest,
    entries: &[ChangedEntry],
    perfdiff_dir: &Path,
) -> SelectionRecord {
    if entries.is_empty() {
        return record;
    }
    let scratch = match tempfile::tempdir_in(perfdiff_dir) {
        Ok(scratch) => scratch,
        Err(e) => {
            return undecided(format!(
                "probe: cannot make a scratch directory in {}: {e}",
                perfdiff_dir.display()
            ));
        }
    };
    let mut request = request.clone();
    request.criterion_home = perfdiff_dir.join("criterion-home").join("probe");
    // Forks after the first warm up for at least the adaptive warm-up's floor, whatever
    // `--warm-up-time` says: the probe as well.
    request.warm_up = request.warm_up.max(WARMUP_TIME_MIN);
    match probe_benchmark(&request, entries, scratch.path()) {
        Probe::NotReached => SelectionRecord {
            detail: format!(
                "{}; a native run as long as a fork entered none of the {} changed function(s)",
                record.detail,
                entries.len()
            ),
            ..record
        },
        Probe::Reached { name } => SelectionRecord {
            measured: true,
            reason: SelectionReason::ReachesChange,
            detail: format!("it reaches `{name}` after the trace's iterations (native probe)"),
            changed_functions: vec![name],
            ..record
        },
        Probe::Failed(why) => undecided(format!("probe: {why}")),
    }
}
