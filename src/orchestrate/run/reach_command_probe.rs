//! The native probe of a command that selection would skip while some functions of its programs
//! differ ([`crate::steps::reach::probe::probe_command`]): the command runs once more, natively,
//! as a fork runs it, with a breakpoint at every changed function of its programs in every
//! process that runs one; entering one measures the command after all.
//!
//! Why: the trace runs under valgrind, and a native run may take another path. Valgrind hides
//! some of this CPU's features (AVX-512, SHA), so a program that chooses its code by them
//! (`memchr`, `regex` and most of their users) may run natively code its trace did not; so may a
//! program whose path depends on timing or threads, which valgrind serialises and slows 50-fold.
//! Without a probe a command of the first kind stayed measured whenever any function of its
//! program differed, even one it never runs (a version bump that changes only `--version`'s
//! text). One execution is what a fork measures, so one run decides; it costs one execution.

use std::time::Instant;

use super::phases::SelectionPart;
use super::reach_sides::SelectedSides;
use crate::model::samples::{SelectionReason, SelectionRecord};
use crate::steps::discover::Matched;
use crate::steps::fork::ForkRequest;
use crate::steps::progress::{Progress, StepKind};
use crate::steps::reach::probe::{CommandWatch, Probe, probe_command};
use crate::steps::reach::undecided;

/// A command's decision, and the native probe that must confirm a skip: what it watches, and
/// why it is needed.
pub(super) struct Decided {
    pub(super) record: SelectionRecord,
    pub(super) probe: Option<(CommandWatch, String)>,
}

impl Decided {
    pub(super) fn record(record: SelectionRecord) -> Self {
        Decided {
            record,
            probe: None,
        }
    }
}

/// The records of `commands` (in their order) from their decisions, each skip that needs a probe
/// probed through its fork (`requests`, in the same order) first.
pub(super) fn probed(
    sides: &SelectedSides<'_>,
    commands: &[&Matched],
    requests: &[Result<ForkRequest, String>],
    decided: Vec<Decided>,
    progress: &Progress,
) -> Vec<(String, SelectionRecord)> {
    let probes = decided.iter().filter(|d| d.probe.is_some()).count();
    if probes > 0 {
        progress.expect_steps(StepKind::Probe, probes as u64);
    }
    commands
        .iter()
        .zip(requests)
        .zip(decided)
        .map(|((m, request), decided)| {
            let record = match (decided.probe, request) {
                (None, _) => decided.record,
                (Some(_), Err(why)) => undecided(why.clone()),
                (Some((watch, why)), Ok(request)) => {
                    let started = Instant::now();
                    let record = probe_one(sides, request, decided.record, (&watch, &why));
                    sides.clock.add(SelectionPart::Probe, started.elapsed());
                    progress.step_done(StepKind::Probe, started.elapsed(), &m.id);
                    record
                }
            };
            (m.id.clone(), record)
        })
        .collect()
}

/// `record`, a skip, as the native probe of `request` watching `watch` leaves it; `why` the
/// probe is needed (the programs that read the CPU's features, or a native run's other path).
fn probe_one(
    sides: &SelectedSides<'_>,
    request: &ForkRequest,
    record: SelectionRecord,
    (watch, why): (&CommandWatch, &str),
) -> SelectionRecord {
    let scratch = match tempfile::tempdir_in(sides.perfdiff_dir) {
        Ok(scratch) => scratch,
        Err(e) => {
            return undecided(format!(
                "{why}, and its native probe cannot run: cannot make a scratch directory in {}: {e}",
                sides.perfdiff_dir.display()
            ));
        }
    };
    let changed: usize = watch.programs.iter().map(|p| p.entries.len()).sum();
    match probe_command(request, watch, scratch.path()) {
        Probe::NotReached { .. } => SelectionRecord {
            detail: format!(
                "{}; a native run entered none of the {changed} changed function(s) of its \
                 programs (native probe)",
                record.detail
            ),
            ..record
        },
        Probe::Reached { name } => SelectionRecord {
            measured: true,
            reason: SelectionReason::ReachesChange,
            detail: format!(
                "it executes changed code in a native run, which its trace did not: `{name}` \
                 (native probe)"
            ),
            changed_functions: vec![name],
            ..record
        },
        Probe::Failed(failure) => undecided(format!("{why}; its native probe failed: {failure}")),
    }
}
