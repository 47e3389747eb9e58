//! After each duet round: whether its forks show the two pinned CPUs shared, or a benchmark that
//! set its own CPU affinity (both sides of its pair then on one CPU), and if so, the rest of the
//! run interleaved ([`crate::steps::fork::shared_cpus`] holds the rules and their reasons).
//!
//! Why a file of its own: the round loop (`rounds`) only asks one question after a duet round;
//! recording the change, setting the round aside and telling the user live here.

use super::context::MeasureContext;
use crate::model::samples::SampleFile;
use crate::steps::fork::shared_cpus;
use crate::steps::progress::Progress;
use crate::steps::report::mode_change_sentence;

/// Judges duet round `round` of `file` by its forks' own CPU affinity and CPU wait, once per
/// run: when a benchmark moved itself off its CPU, or the CPUs were shared, records what the
/// run does (in `file.run.mode_change`, the round's duet forks set aside) and says so. True
/// when the remaining rounds run interleaved.
pub(super) fn leaves_duet(
    ctx: &MeasureContext,
    round: usize,
    file: &mut SampleFile,
    progress: &Progress,
) -> bool {
    if file.run.mode_change.is_some() {
        // Judged once: a kept duet stays kept.
        return false;
    }
    let keep = ctx.settings.keep_duet;
    let wait = shared_cpus::wait_of_round(file, round);
    let repinned = shared_cpus::repinned_of_round(file, round);
    let change = shared_cpus::judge_repinned(round, wait.as_ref(), repinned, keep)
        .or_else(|| wait.and_then(|wait| shared_cpus::judge(round, &wait, keep)));
    let Some(change) = change else {
        return false;
    };
    progress.warn(&mode_change_sentence(&change));
    shared_cpus::record(file, change);
    shared_cpus::left_duet(file)
}
