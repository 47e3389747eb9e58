//! What a round's forks are made from: the measurement context ([`MeasureContext`]: the sides,
//! the settings, the code layouts linked so far), a benchmark's or a command's fork request, and
//! saving the samples file on the way.
//!
//! Why a file of its own: the round loop (`rounds`), the instruction forks (`count`) and
//! selection's traces of commands (`reach_commands`) all make forks from it, and the round loop
//! runs the instruction forks; here, below all three, none of them imports another in a circle.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::{BuiltTarget, SideBuild, fork_timeout};
use crate::config::Settings;
use crate::model::command::Places;
use crate::model::harness::{Harness, HarnessKind};
use crate::model::samples::SampleFile;
use crate::model::target::TargetKey;
use crate::orchestrate::error::{Error, Result};
use crate::steps::build::BuildOptions;
use crate::steps::discover::Matched;
use crate::steps::fork::command::CommandRun;
use crate::steps::fork::fresh_copy::FreshCopies;
use crate::steps::fork::{ForkError, ForkRequest, divan_tune};
use crate::steps::progress::Progress;
use crate::steps::report::id_line;
use crate::steps::schedule::Side;

pub(super) fn save_progress(ctx: &MeasureContext, file: &mut SampleFile) -> Result<()> {
    file.run.measure_ms = Some(ctx.measuring_since.elapsed().as_millis() as u64);
    save_wall_time(ctx, file)
}

/// Saves the file with the run's wall time so far, its time measuring left as it is (work after
/// the rounds, such as `--explain`'s counts, is not measuring).
pub(super) fn save_wall_time(ctx: &MeasureContext, file: &mut SampleFile) -> Result<()> {
    file.run.wall_ms = Some(ctx.started.elapsed().as_millis() as u64);
    file.save(ctx.samples_path)?;
    Ok(())
}

/// On interruption the samples taken so far are saved and the error says how to resume.
pub(super) fn interrupted(error: ForkError, ctx: &MeasureContext, file: &mut SampleFile) -> Error {
    if matches!(error, ForkError::Interrupted) {
        let _ = save_progress(ctx, file);
        return Error::Interrupted {
            samples: ctx.samples_path.to_path_buf(),
        };
    }
    error.into()
}

/// A benchmark of a run: its base target (none for a command) and its id.
type BenchKey = (Option<TargetKey>, String);

/// What the measurement loop needs.
pub(super) struct MeasureContext<'a> {
    pub(super) settings: &'a Settings,
    pub(super) seed: u64,
    pub(super) perfdiff_dir: &'a Path,
    /// The workspace's cargo target directory (which other workspaces may share).
    pub(super) target_dir: &'a Path,
    pub(super) base: &'a SideBuild,
    pub(super) head: &'a SideBuild,
    pub(super) matched: &'a [Matched],
    /// The records the caller reads ([`Focus::records`]); `None`: all.
    pub(super) followed: Option<&'a [String]>,
    pub(super) samples_path: &'a Path,
    pub(super) started: Instant,
    pub(super) measuring_since: Instant,
    /// What the sides were built with (a build with line tables repeats it, [`super::count::LineTables`]).
    pub(super) build: &'a BuildOptions,
    /// valgrind, when the run counts instructions (the metric, or `--explain`).
    pub(super) valgrind: Option<&'a crate::steps::instructions::Valgrind>,
    /// The layouts a side's target (`None`: its programs) has, where linking one failed: its
    /// rounds go through those alone.
    pub(super) linked_layouts: RefCell<BTreeMap<(Side, Option<TargetKey>), usize>>,
    /// The sample size of each divan benchmark's forks, by its base target and id, once read
    /// ([`MeasureContext::timed_request`]).
    pub(super) divan_sample_sizes: RefCell<BTreeMap<BenchKey, Option<u64>>>,
}

impl MeasureContext<'_> {
    /// A round's fresh copies of the executables, each side's run from its own checkout of the
    /// workspace ([`crate::steps::fork::run_place`]).
    pub(super) fn fresh_copies(&self) -> Result<FreshCopies> {
        let dir = self.perfdiff_dir.join("fresh-bin");
        let workspaces = [self.base.root.as_path(), self.head.root.as_path()];
        FreshCopies::in_checkouts(dir.clone(), workspaces).map_err(|e| Error::io(&dir, e))
    }

    pub(super) fn side(&self, side: Side) -> &SideBuild {
        match side {
            Side::Base => self.base,
            Side::Head => self.head,
        }
    }

    pub(super) fn built(&self, side: Side, matched: &Matched) -> &BuiltTarget {
        let (build, target) = match side {
            Side::Base => (self.base, matched.base_target.as_ref()),
            Side::Head => (self.head, matched.head_target.as_ref()),
        };
        target
            .and_then(|target| build.targets.get(target))
            .expect("measured benchmarks are present on both sides")
    }

    /// The layout both sides of `matched` run in `round`: the rounds go through the layouts both
    /// sides have, in turn, so each layout index is measured as often on either side.
    pub(super) fn layout(&self, matched: &Matched, round: usize) -> Layout {
        let layouts = |side: Side| {
            let prepared = match is_command(matched) {
                true => self
                    .side(side)
                    .programs
                    .as_ref()
                    .map_or(1, |p| p.layout_dirs.len()),
                false => self.built(side, matched).exe.layouts.len() + 1,
            };
            let linked = self.linked_layouts.borrow();
            let linked = linked.get(&(side, self.target_of(side, matched)));
            linked.map_or(prepared, |&linked| prepared.min(linked))
        };
        let count = [Side::Base, Side::Head]
            .map(layouts)
            .into_iter()
            .min()
            .unwrap_or(1);
        Layout {
            index: round % count,
            count,
        }
    }

    /// The target of `matched` on `side`, or `None` for a command (the side's programs).
    pub(super) fn target_of(&self, side: Side, matched: &Matched) -> Option<TargetKey> {
        match (is_command(matched), side) {
            (true, _) => None,
            (false, Side::Base) => matched.base_target.clone(),
            (false, Side::Head) => matched.head_target.clone(),
        }
    }

    /// [`Self::layout`], with the executables of that layout linked on both sides if no round
    /// needed them before. A side whose layout cannot be linked keeps the layouts it has (the
    /// rounds go through those alone), and the run says so.
    pub(super) fn linked_layout(
        &self,
        matched: &Matched,
        round: usize,
        progress: &Progress,
    ) -> Layout {
        loop {
            let layout = self.layout(matched, round);
            let failed = [Side::Base, Side::Head].into_iter().find_map(|side| {
                let linked = self.link_layout(side, matched, layout.index, progress);
                linked.err().map(|reason| (side, reason))
            });
            let Some((side, reason)) = failed else {
                return layout;
            };
            let what = match self.target_of(side, matched) {
                Some(target) => format!("bench target {}", target.target),
                None => "the programs".to_string(),
            };
            progress.note(&format!(
                "{what} of {} {} measured in its first {} code layout(s) from now on: linking \
                 layout {} failed ({reason})",
                side.as_str(),
                if what.starts_with("the") { "are" } else { "is" },
                layout.index,
                layout.index
            ));
            // Both sides run the layouts the side with fewer has.
            self.linked_layouts
                .borrow_mut()
                .insert((side, self.target_of(side, matched)), layout.index);
        }
    }

    /// Links layout `layout` of `matched`'s executable (or of the programs) on `side`, unless it
    /// is linked already.
    pub(super) fn link_layout(
        &self,
        side: Side,
        matched: &Matched,
        layout: usize,
        progress: &Progress,
    ) -> std::result::Result<(), String> {
        let linking = |what: &str| {
            let message = format!("linking layout {layout} of {what} ({})", side.as_str());
            progress.step_message(&message);
            progress.detail(&message);
        };
        match is_command(matched) {
            true => {
                let Some(programs) = self.side(side).programs.as_ref() else {
                    return Ok(());
                };
                if programs.unlinked(layout) {
                    linking("the programs");
                    programs.link_layout(layout)?;
                }
            }
            false => {
                let exe = &self.built(side, matched).exe;
                if exe.unlinked(layout) {
                    linking(&exe.target);
                    exe.layout(layout)?;
                }
            }
        }
        Ok(())
    }

    /// [`Self::request`] of a fork that measures time: a divan benchmark's gets the sample size
    /// both sides' forks of it share ([`divan_tune`]), read from its executables before its
    /// first fork.
    pub(super) fn timed_request(
        &self,
        side: Side,
        matched: &Matched,
        layout: Layout,
        warm_up: Duration,
        cpu: Option<usize>,
        copies: &mut FreshCopies,
    ) -> Result<ForkRequest> {
        let mut request = self.request(side, matched, layout, warm_up, cpu, copies)?;
        if request.harness == Harness::Divan {
            request.harness_sample_size = self.divan_sample_size(matched, layout, copies)?;
        }
        Ok(request)
    }

    /// Says under `--verbose`, before divan benchmark `matched`'s first fork, the sample size
    /// its forks are given ([`Self::divan_sample_size`]), which otherwise only the report's
    /// forks show (`sample_iterations`): that of every fork, so a user watching a run can tell
    /// whether a value read in nanoseconds rests on samples of many iterations.
    pub(super) fn note_divan_sample_size(
        &self,
        matched: &Matched,
        layout: Layout,
        copies: &mut FreshCopies,
        progress: &Progress,
    ) -> Result<()> {
        // A command has no bench target, so no harness of its own to size samples for.
        let divan =
            !is_command(matched) && self.built(Side::Base, matched).harness.get() == Harness::Divan;
        if !divan
            || self
                .divan_sample_sizes
                .borrow()
                .contains_key(&self.bench_key(matched))
        {
            return Ok(());
        }
        let id = id_line(&matched.id);
        progress.detail(&match self.divan_sample_size(matched, layout, copies)? {
            Some(size) => format!(
                "{id}: every fork of both sides runs {size} iterations a sample \
                 (`--sample-size {size}`): a sample of one iteration lasts fewer ticks of \
                 divan's timer than divan wants"
            ),
            None => {
                format!("{id}: divan's own sample size (a sample of one iteration is long enough)")
            }
        });
        Ok(())
    }

    /// The key of `matched`'s divan sample size: its base target and id.
    fn bench_key(&self, matched: &Matched) -> BenchKey {
        (
            self.target_of(Side::Base, matched),
            matched.criterion_id.clone(),
        )
    }

    /// The sample size of divan benchmark `matched`'s forks: the larger of what each side's
    /// executable needs ([`divan_tune::sample_size`]), `None` where both tune themselves right.
    fn divan_sample_size(
        &self,
        matched: &Matched,
        layout: Layout,
        copies: &mut FreshCopies,
    ) -> Result<Option<u64>> {
        let key = self.bench_key(matched);
        if let Some(size) = self.divan_sample_sizes.borrow().get(&key) {
            return Ok(*size);
        }
        let mut size = None;
        for side in [Side::Base, Side::Head] {
            let request = self.request(side, matched, layout, Duration::ZERO, None, copies)?;
            size = size.max(divan_tune::sample_size(&request)?);
        }
        self.divan_sample_sizes.borrow_mut().insert(key, size);
        Ok(size)
    }

    pub(super) fn request(
        &self,
        side: Side,
        matched: &Matched,
        layout: Layout,
        warm_up: Duration,
        cpu: Option<usize>,
        copies: &mut FreshCopies,
    ) -> Result<ForkRequest> {
        if is_command(matched) {
            return self.command_request(side, matched, layout, cpu, copies);
        }
        let BuiltTarget { exe, env, harness } = self.built(side, matched);
        let original = match layout.index {
            0 => &exe.path,
            k => &exe.layouts[k - 1],
        };
        let executable = copies
            .path(side, original)
            .map_err(|e| Error::io(original, e))?;
        Ok(ForkRequest {
            executable,
            cwd: exe.package_root.clone(),
            env: env.clone(),
            benchmark_id: matched.criterion_id.clone(),
            harness: harness.get(),
            warm_up,
            measurement: Duration::from_millis(self.settings.measurement_ms),
            sample_size: self.settings.sample_size.max(10),
            harness_sample_size: None,
            timeout: fork_timeout(self.settings),
            criterion_home: self.perfdiff_dir.join("criterion-home").join(side.as_str()),
            cpu,
            command: None,
        })
    }

    /// The fork of a command: one execution of its program from this round's fresh copy of the
    /// side's programs in `layout`.
    pub(super) fn command_request(
        &self,
        side: Side,
        matched: &Matched,
        layout: Layout,
        cpu: Option<usize>,
        copies: &mut FreshCopies,
    ) -> Result<ForkRequest> {
        let programs = self
            .side(side)
            .programs
            .as_ref()
            .expect("programs built for commands");
        let original = &programs.layout_dirs[layout.index];
        let bin = copies
            .directory(side, original, &programs.names)
            .map_err(|e| Error::io(original, e))?;
        let mut request = self.command_request_in(side, matched, bin)?;
        request.cpu = cpu;
        Ok(request)
    }

    /// The fork of a command running its programs from `bin` (`{bin}`), on no pinned CPU.
    pub(super) fn command_request_in(
        &self,
        side: Side,
        matched: &Matched,
        bin: PathBuf,
    ) -> Result<ForkRequest> {
        command_fork(
            self.settings,
            self.perfdiff_dir,
            (side, self.side(side)),
            matched,
            bin,
        )
    }
}

/// The fork of the command `matched` on `side` (built as `build`), running its programs from
/// `bin` (`{bin}`), on no pinned CPU: what a round measures, and what selection traces.
pub(super) fn command_fork(
    settings: &Settings,
    perfdiff_dir: &Path,
    (side, build): (Side, &SideBuild),
    matched: &Matched,
    bin: PathBuf,
) -> Result<ForkRequest> {
    let spec = settings
        .commands
        .iter()
        .find(|c| c.name == matched.id)
        .expect("measured commands are declared");
    let places = Places {
        bin,
        root: build.root.clone(),
    };
    let argv = spec.argv(&places);
    let helper = crate::steps::fork::exec_helper::helper_executable()
        .map_err(|e| Error::io("cargo-perfdiff", e))?;
    Ok(ForkRequest {
        executable: PathBuf::from(&argv[0]),
        cwd: spec.working_dir(&build.root),
        env: spec.environment(&places),
        benchmark_id: matched.id.clone(),
        harness: Harness::Command,
        warm_up: Duration::ZERO,
        measurement: Duration::ZERO,
        sample_size: 1,
        harness_sample_size: None,
        timeout: fork_timeout(settings),
        criterion_home: perfdiff_dir.join("criterion-home").join(side.as_str()),
        cpu: None,
        command: Some(CommandRun {
            argv,
            prepare: spec.prepare_line(&places),
            warm_up: spec.warm_up,
            helper,
        }),
    })
}

pub(super) fn is_command(matched: &Matched) -> bool {
    matched.harness == Some(HarnessKind::Command)
}

/// The code layout a round's forks of one benchmark run in, of how many.
#[derive(Debug, Clone, Copy)]
pub(super) struct Layout {
    pub(super) index: usize,
    pub(super) count: usize,
}

impl Layout {
    /// Layout 0, cargo's own build, alone.
    pub(super) fn cargo_build() -> Layout {
        Layout { index: 0, count: 1 }
    }

    /// What the samples file records: the index, when there is more than one layout.
    pub(super) fn recorded(self) -> Option<usize> {
        (self.count > 1).then_some(self.index)
    }
}
