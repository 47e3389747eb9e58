//! Selecting and discovering: the bench targets the builds left out said once, the benchmarks
//! of both sides listed, matched and selected (filters, ignore list, shard, commands), and why
//! nothing was found when nothing is.

use std::path::Path;
use std::time::Duration;

use super::context::is_command;
use super::{BuiltTarget, RunRequest, SideBuild, fork_timeout};
use crate::config::Settings;
use crate::model::command::{self, CommandSpec};
use crate::model::harness::{Harness, HarnessKind};
use crate::model::samples::{FailureRecord, Presence};
use crate::model::target::TargetKey;
use crate::orchestrate::error::{Error, Result};
use crate::steps::analysis::SkippedTarget;
use crate::steps::build::{FeatureGatedBench, UncompiledBench, UnselectedPackage};
use crate::steps::discover::{
    ArgumentsUnseen, Classified, DiscoverError, FailedListing, Filter, Matched, Settled,
    SideListings, TargetLists, Unselectable,
};
use crate::steps::git::revisions;
use crate::steps::progress::Progress;
use crate::steps::schedule::{Shard, Side};
use crate::steps::{analysis, build, discover};

/// What a run measures, and what it leaves out and why.
pub(super) struct Selection {
    pub(super) matched: Vec<Matched>,
    pub(super) skipped: Vec<SkippedTarget>,
    /// How many of `skipped`, from the first, a note has already named.
    pub(super) announced: usize,
    pub(super) failed_listings: Vec<(Side, TargetKey, FailureRecord)>,
}

/// Says which bench targets the builds left out, lists the benchmarks of both sides and selects
/// those the run measures (filters, ignore list, shard, commands).
pub(super) fn select_and_discover(
    request: &RunRequest,
    comparison: &revisions::Comparison,
    (base_build, head_build): (&SideBuild, &SideBuild),
    progress: &mut Progress,
) -> Result<Selection> {
    let settings = &request.settings;
    let needs_features = both_sides(&base_build.needs_features, &head_build.needs_features);
    let several = several_packages(base_build, head_build);
    let labels = [comparison.base.label(), comparison.head.label()];
    let (left_out, mut skipped) = announce_left_out(
        comparison,
        (base_build, head_build),
        &needs_features,
        progress,
    );
    let announced = skipped.len();
    let unselected = both_sides(&base_build.unselected, &head_build.unselected);
    // Listing runs every benchmark's set-up code, as a fork does: it gets a fork's time.
    let list_timeout = fork_timeout(&request.settings);
    let mut unselectable = Vec::new();
    let mut discover = |side: &SideBuild, skipped: &mut Vec<SkippedTarget>| {
        let set_apart = SetApart {
            skipped,
            unselectable: &mut unselectable,
        };
        discover_side(side, &left_out, list_timeout, set_apart, progress)
    };
    let settled = discover::settle_failed_listings(
        discover(base_build, &mut skipped)?,
        discover(head_build, &mut skipped)?,
    );
    let failed_listings = failed_listings(&settled, &labels, several, progress);
    let (base_lists, head_lists) = set_apart_unlisted(settled, &labels, &mut skipped)?;
    let empty = listed_nothing(&base_lists, &head_lists);
    let mut matched = select_benchmarks(
        &base_lists,
        &head_lists,
        &command_entries(&settings.commands),
        settings,
        request.shard,
        &NothingFound {
            needs_features: &needs_features,
            skipped: &skipped,
            unselectable: &unselectable,
            unselected: &unselected,
            listed_nothing: &empty,
            workspace_root: &request.workspace_root,
            start_dir: &request.start_dir,
        },
    )?;
    if !empty.is_empty() {
        progress.note(&listed_nothing_clause(&empty));
    }
    for m in &mut matched {
        m.harness = harness_of(base_build, head_build, m)
            .map(Harness::kind)
            .or(m.harness);
    }
    if !unselected.is_empty() {
        progress.note(&unselected_members(&unselected));
    }
    Ok(Selection {
        matched,
        skipped,
        announced,
        failed_listings,
    })
}

/// Notes, once per target, the bench targets that need features or did not compile (and the
/// nightly command for `#[bench]` targets); returns the targets left out and their skip records.
pub(super) fn announce_left_out(
    comparison: &revisions::Comparison,
    (base_build, head_build): (&SideBuild, &SideBuild),
    needs_features: &[FeatureGatedBench],
    progress: &mut Progress,
) -> (Vec<TargetKey>, Vec<SkippedTarget>) {
    let several = several_packages(base_build, head_build);
    let mut skipped: Vec<SkippedTarget> = needs_features.iter().map(skipped_for_features).collect();
    // Once per target, not once per side.
    for gated in &skipped {
        progress.note(&format!(
            "bench target {} {}",
            gated.label(several),
            gated.reason
        ));
    }
    let labels = [comparison.base.label(), comparison.head.label()];
    let not_compiled = not_compiled(base_build, head_build, &labels);
    for (key, uncompiled) in &not_compiled {
        progress.note(&format!(
            "bench target {} {}",
            key.label(several),
            uncompiled.reason
        ));
    }
    if let Some(note) = nightly_command(base_build, head_build, comparison, several) {
        progress.note(&note);
    }
    let (left_out, not_compiled): (Vec<TargetKey>, Vec<SkippedTarget>) =
        not_compiled.into_iter().unzip();
    skipped.extend(not_compiled);
    (left_out, skipped)
}

/// The harness of `matched`'s bench target: head's, or base's when head lacks it; `None` when
/// neither side built it.
pub(super) fn harness_of(base: &SideBuild, head: &SideBuild, matched: &Matched) -> Option<Harness> {
    let of = |build: &SideBuild, key: &Option<TargetKey>| {
        key.as_ref()
            .and_then(|key| build.targets.get(key))
            .map(|built| built.harness.get())
    };
    of(head, &matched.head_target).or_else(|| of(base, &matched.base_target))
}

/// Whether the two sides' bench targets (built or gated by features) come from more than one
/// package: messages then name each target's package.
pub(super) fn several_packages(base: &SideBuild, head: &SideBuild) -> bool {
    let packages = [base, head].into_iter().flat_map(|side| {
        let built = side.targets.keys().map(|key| key.package.as_str());
        let gated = side.needs_features.iter().map(|g| g.package.as_str());
        let not_compiled = side.not_compiled.iter().map(|u| u.package.as_str());
        built.chain(gated).chain(not_compiled)
    });
    analysis::distinct_more_than_one(packages)
}

/// What either side's build reported, sorted, each once.
pub(super) fn both_sides<T: Ord + Clone>(base: &[T], head: &[T]) -> Vec<T> {
    sorted_once(base.iter().chain(head).cloned().collect())
}

/// `items` sorted, each once.
pub(super) fn sorted_once<T: Ord>(mut items: Vec<T>) -> Vec<T> {
    items.sort();
    items.dedup();
    items
}

/// How a bench target cargo skipped for its `required-features` appears in the report.
pub(super) fn skipped_for_features(gated: &FeatureGatedBench) -> SkippedTarget {
    SkippedTarget {
        package: Some(gated.package.clone()),
        target: gated.target.clone(),
        reason: format!(
            "not built: it requires the feature(s) `{}` of {}, which are not enabled (pass `{}`)",
            gated.required_features.join("`, `"),
            gated.package,
            gated.suggestion
        ),
    }
}

/// The bench targets a compile error left out of either side's build, each skipped once with
/// why, naming the revision(s). A target that one side could not build is not compared at all:
/// the other side's benchmarks alone would read as removed or added.
pub(super) fn not_compiled(
    base: &SideBuild,
    head: &SideBuild,
    labels: &[String; 2],
) -> Vec<(TargetKey, SkippedTarget)> {
    let keys = sorted_once(
        base.not_compiled
            .iter()
            .chain(&head.not_compiled)
            .map(|u| TargetKey::new(&u.package, &u.target))
            .collect(),
    );
    keys.into_iter()
        .map(|key| {
            let on = |side: &SideBuild| {
                side.not_compiled
                    .iter()
                    .find(|u| u.package == key.package && u.target == key.target)
                    .cloned()
            };
            let reason = not_compiled_reason(on(base), on(head), labels);
            let skipped = SkippedTarget {
                package: Some(key.package.clone()),
                target: key.target.clone(),
                reason,
            };
            (key, skipped)
        })
        .collect()
}

/// When bench targets were left out because the toolchain is not nightly (libtest's `#[bench]`),
/// the command that compares them: the same revisions with `cargo +nightly`, those targets only.
pub(super) fn nightly_command(
    base: &SideBuild,
    head: &SideBuild,
    comparison: &revisions::Comparison,
    several_packages: bool,
) -> Option<String> {
    let keys = sorted_once(
        base.not_compiled
            .iter()
            .chain(&head.not_compiled)
            .filter(|u| u.needs_nightly())
            .map(|u| TargetKey::new(&u.package, &u.target))
            .collect(),
    );
    if keys.is_empty() {
        return None;
    }
    let mut command = vec!["cargo".to_string(), "+nightly".into(), "perfdiff".into()];
    command.extend(revision_arguments(comparison));
    if several_packages {
        for package in sorted_once(keys.iter().map(|k| k.package.clone()).collect()) {
            command.extend(["-p".to_string(), package]);
        }
    }
    for target in sorted_once(keys.iter().map(|k| k.target.clone()).collect()) {
        command.extend(["--bench".to_string(), target]);
    }
    let labels: Vec<String> = keys.iter().map(|k| k.label(several_packages)).collect();
    Some(format!(
        "{} bench target(s) need a nightly toolchain ({}); compare them with `{}`",
        keys.len(),
        labels.join(", "),
        command
            .iter()
            .map(|word| crate::util::shell::quote_for_shell(word))
            .collect::<Vec<_>>()
            .join(" ")
    ))
}

/// The revision arguments that select `comparison` again: none for HEAD against the working
/// tree, `REV` for REV against the working tree, `A...B` for a merge base, else both.
pub(super) fn revision_arguments(comparison: &revisions::Comparison) -> Vec<String> {
    if comparison.base.spec.contains("...") {
        return vec![comparison.base.spec.clone()];
    }
    match (comparison.base.working_tree, comparison.head.working_tree) {
        (false, true) if comparison.base.spec == "HEAD" => Vec::new(),
        (false, true) => vec![comparison.base.spec.clone()],
        _ => vec![comparison.base.spec.clone(), comparison.head.spec.clone()],
    }
}

/// Why a target is skipped when it was not compiled in `base`, `head` or both.
pub(super) fn not_compiled_reason(
    base: Option<UncompiledBench>,
    head: Option<UncompiledBench>,
    labels: &[String; 2],
) -> String {
    let [base_label, head_label] = [Side::Base, Side::Head].map(|side| side_label(side, labels));
    match (base, head) {
        (Some(base), Some(head)) if base.why == head.why => base.reason_in("both revisions"),
        (Some(base), Some(head)) => format!(
            "{}; {}",
            base.reason_in(&base_label),
            head.reason_in(&head_label)
        ),
        (Some(base), None) => format!(
            "{}; its benchmarks in {head_label} are not compared",
            base.reason_in(&base_label)
        ),
        (None, Some(head)) => format!(
            "{}; its benchmarks in {base_label} are not compared",
            head.reason_in(&head_label)
        ),
        (None, None) => String::new(),
    }
}

/// Where discovery sets apart what it cannot measure: the targets (or parts of them) skipped,
/// with why, and, by target, the benchmarks of a divan that lists them without their `args`
/// (so that "no benchmarks found" names that cause once for every target).
pub(super) struct SetApart<'a> {
    pub(super) skipped: &'a mut Vec<SkippedTarget>,
    pub(super) unselectable: &'a mut Vec<(TargetKey, Unselectable)>,
}

/// Lists the benchmarks of every target of one side but those `left_out` (skipped
/// already); other harnesses are skipped, and a target whose listing fails is kept apart for
/// [`discover::settle_failed_listings`].
pub(super) fn discover_side(
    side: &SideBuild,
    left_out: &[TargetKey],
    timeout: Duration,
    set_apart: SetApart<'_>,
    progress: &Progress,
) -> Result<SideListings> {
    let SetApart {
        skipped,
        unselectable,
    } = set_apart;
    let mut listings = SideListings::default();
    let listed = side
        .targets
        .iter()
        .filter(|(key, _)| !left_out.contains(key));
    for (key, built) in listed {
        let BuiltTarget { exe, env, .. } = built;
        let skip = |reason: String| SkippedTarget {
            package: Some(key.package.clone()),
            target: key.target.clone(),
            reason,
        };
        match discover::classify(exe)? {
            Classified::Runs(kind) => {
                let (listing, again) = match discover::list_twice(kind, exe, env, timeout) {
                    (Ok(listing), again) => (listing, again),
                    (Err(error), _) => {
                        listings.failed.push(FailedListing {
                            target: key.clone(),
                            error,
                        });
                        continue;
                    }
                };
                // A second listing that fails says nothing about the ids: keep them all.
                let (ids, unstable) = match again {
                    Some(Ok(again)) => discover::split_unstable(listing.ids, &again.ids),
                    _ => (listing.ids, Vec::new()),
                };
                if !unstable.is_empty() {
                    skipped.push(skip(unstable_ids_reason(&unstable)));
                }
                let (ids, reasons) = split_unselectable_ids(kind, ids);
                skipped.extend(reasons.into_iter().map(skip));
                if let Some(set_apart) = listing.unselectable {
                    skipped.push(skip(unselectable_reason(&set_apart)));
                    unselectable.push((key.clone(), set_apart));
                }
                built.harness.set(listing.harness);
                listings.lists.push((key.clone(), ids));
            }
            Classified::Skipped { reason } => {
                progress.detail(&format!(
                    "skipping bench target {} of package {}: {reason}",
                    key.target, key.package
                ));
                skipped.push(skip(reason));
            }
        }
    }
    Ok(listings)
}

/// The failure each benchmark of a target whose listing failed on one side is given there,
/// announced as a note.
pub(super) fn failed_listings(
    settled: &Settled,
    labels: &[String; 2],
    several_packages: bool,
    progress: &Progress,
) -> Vec<(Side, TargetKey, FailureRecord)> {
    settled
        .failed_on_one_side
        .iter()
        .map(|&(side, ref failed)| {
            let message = format!(
                "listing the benchmarks of bench target `{}` failed: {}",
                failed.target.label(several_packages),
                failed.message()
            );
            progress.note(&format!(
                "{}: {message}; its benchmarks are reported failed",
                side_label(side, labels)
            ));
            let failure = FailureRecord {
                message,
                stderr_tail: failed.stderr_tail().to_string(),
            };
            (side, failed.target.clone(), failure)
        })
        .collect()
}

/// `base HEAD~1 (1a2b3c4)`: a side and its revision, from the revisions' `labels` (base, head).
pub(super) fn side_label(side: Side, labels: &[String; 2]) -> String {
    let label = match side {
        Side::Base => &labels[0],
        Side::Head => &labels[1],
    };
    format!("{} {label}", side.as_str())
}

/// Sets apart the targets no revision could list: skipped, with why, when other targets have
/// benchmarks; the error, when none has.
pub(super) fn set_apart_unlisted(
    settled: Settled,
    labels: &[String; 2],
    skipped: &mut Vec<SkippedTarget>,
) -> Result<(TargetLists, TargetLists)> {
    let Settled {
        base,
        head,
        unlisted,
        ..
    } = settled;
    let nothing_else = base.iter().chain(&head).all(|(_, ids)| ids.is_empty());
    let mut unlisted = unlisted.into_iter();
    if nothing_else && let Some((side, failed)) = unlisted.next() {
        return Err(unlisted_error(side, failed.error).into());
    }
    for (side, failed) in unlisted {
        let where_ = match side {
            None => "either revision".to_string(),
            Some(side) => side_label(side, labels),
        };
        let headline = failed
            .headline()
            .map(|h| format!(": {h}"))
            .unwrap_or_default();
        // A listing killed for its time had slow set-up code, not a file the checkouts lack.
        let hint = match side {
            None if !failed.killed() => format!(" ({NOT_IN_CHECKOUTS})"),
            _ => String::new(),
        };
        skipped.push(SkippedTarget {
            package: Some(failed.target.package.clone()),
            target: failed.target.target.clone(),
            reason: format!(
                "its benchmarks could not be listed in {where_}: {}{headline}{hint}",
                failed.message()
            ),
        });
    }
    Ok((base, head))
}

/// Why a listing that fails in both revisions may fail, and the remedy.
pub(super) const NOT_IN_CHECKOUTS: &str = "each is a checkout of what git holds: a file the benchmarks \
     read that is not committed, or that git ignores, is missing there; `--copy-untracked PATH` \
     brings it along";

/// The error of a listing that failed with nothing else to compare. When it failed in both
/// revisions, the likeliest cause is something both checkouts lack that the user's has: a file
/// git does not track.
pub(super) fn unlisted_error(side: Option<Side>, error: DiscoverError) -> DiscoverError {
    match (side, error) {
        (
            None,
            DiscoverError::List {
                executable,
                message,
                stderr_tail,
            },
        ) => DiscoverError::List {
            executable,
            message: format!("{message}, in both revisions ({NOT_IN_CHECKOUTS})"),
            stderr_tail,
        },
        (_, error) => error,
    }
}

/// Why benchmarks whose ids change from one process to the next are not measured, naming them
/// by what their ids keep ([`discover::split_unstable`]).
pub(super) fn unstable_ids_reason(unstable: &[String]) -> String {
    format!(
        "only its benchmark(s) `{}`, whose ids change from one run of the executable to the next \
         (a time or a random value in the id): no fork can select them, and the revisions cannot \
         be matched; give them fixed ids to compare them",
        unstable.join("`, `")
    )
}

/// Why benchmarks of a divan before 0.1.18 that take `args` are not measured: its `--list` shows
/// them without their arguments, and what the run of them in its test mode did
/// ([`discover::list_benchmarks`]).
pub(super) fn unselectable_reason(unselectable: &Unselectable) -> String {
    format!(
        "only its benchmark(s) `{}`, which take `args`: its divan (before 0.1.18) lists them \
         without their arguments, and {}",
        unselectable.benchmarks.join("`, `"),
        arguments_unseen(&unselectable.cause, None)
    )
}

/// What the run of benchmarks with `args` in an old divan's test mode did instead of showing
/// their arguments, and what follows; `benchmarks` names them where several targets are one
/// clause ([`unselectable_group_reason`]).
fn arguments_unseen(cause: &ArgumentsUnseen, benchmarks: Option<&str>) -> String {
    let named = benchmarks.map_or_else(String::new, |names| format!(" ({names})"));
    let upgrade = "; divan ≥ 0.1.18 lists them";
    match cause {
        ArgumentsUnseen::Failed(how) => format!(
            "the run of them in its test mode (`--test`) that shows the arguments failed \
             ({how}), so no fork can select one{named}{upgrade}"
        ),
        ArgumentsUnseen::Unreadable(why) => format!(
            "the output of the run of them in its test mode (`--test`) that shows the arguments \
             could not be read ({why}), so no fork can select one{named}{upgrade}"
        ),
        // Upgrading would not help: each thread count has a row, and a fork reads one.
        ArgumentsUnseen::NoLeaf => format!(
            "the run of them in its test mode (`--test`) drew none of their arguments as a leaf \
             of its own (an argument run at several thread counts, `threads`, has a leaf per \
             count below it), so no fork can measure one alone{named}"
        ),
    }
}

/// Splits a listing's `ids` (of a target of harness `kind`) into those a fork can select and
/// why the others are not measured, each a reason of the target's [`SkippedTarget`]: criterion's
/// repeats of an id and ids listed twice ([`listed_twice_reason`]), divan's shared paths.
fn split_unselectable_ids(kind: HarnessKind, ids: Vec<String>) -> (Vec<String>, Vec<String>) {
    let (ids, repeated) = match kind {
        HarnessKind::Criterion => discover::split_repeated_ids(ids),
        HarnessKind::Divan => discover::split_shared_paths(ids),
        _ => (ids, Vec::new()),
    };
    let mut reasons = Vec::new();
    if !repeated.is_empty() {
        reasons.push(repeated_ids_reason(kind, &repeated));
    }
    if kind != HarnessKind::Criterion {
        return (ids, reasons);
    }
    let (ids, twice) = discover::split_shared_paths(ids);
    if !twice.is_empty() {
        reasons.push(listed_twice_reason(&twice));
    }
    (ids, reasons)
}

/// Why criterion ids its listing shows more than once are not measured. One `Criterion` never
/// lists an id twice (it numbers a repeat, `json #2`), but two ways list one twice:
/// - two benchmark groups register the same id: each `criterion_group!` makes a `Criterion` of
///   its own, which numbers repeats only among its own ids (time's `rand08` and `rand09`
///   modules both register `Random: time` … in groups of their own), and `--exact` with the id
///   runs both, whose results one fork cannot tell apart;
/// - an id with a line break is printed over several lines, and only the last reads as a
///   `<id>: benchmark` line, so two ids that end alike after their last line break read as one
///   (pulldown-cmark's benchmark groups named by a string with a line break,
///   `"    pub fn pathological_link_def(…) {\n            "`, each list `            /1` to
///   `/19`); `--exact` with that last line selects none of them. Discovery reads such ids whole
///   when criterion confirms them ([`discover::parse_whole_list`]); only those it does not are
///   left to this.
///
/// The ids alone do not tell the two apart, so the reason names both, the first first.
fn listed_twice_reason(twice: &[String]) -> String {
    format!(
        "only its benchmark(s) `{}`: criterion's listing shows each of these ids more than once: \
         two benchmark groups register the same id (each `criterion_group!` numbers repeats, \
         `#2`, only among its own ids), and a fork selecting the id runs both; or it prints an \
         id with a line break (a group or benchmark name holding `\\n`) over several lines, \
         and only the last line reads as the id, which no fork can select; give them ids of \
         their own, without a line break, to compare them",
        twice.join("`, `")
    )
}

/// Why criterion's repeats of an id (`json #2`, [`discover::split_repeated_ids`]) and divan's
/// paths two benchmarks share ([`discover::split_shared_paths`]) are not measured.
pub(super) fn repeated_ids_reason(kind: HarnessKind, repeated: &[String]) -> String {
    let repeated = repeated.join("`, `");
    match kind {
        HarnessKind::Divan => format!(
            "only its benchmark(s) `{repeated}`: two divan benchmarks have this path (divan \
             joins names with `::`, and a name may hold `::` itself: `name = \"a::b\"` beside a \
             module `a`'s benchmark `b`), and `--exact` selects both, so no fork can measure one \
             alone; rename one to compare them"
        ),
        _ => format!(
            "only its benchmark(s) `{repeated}`: criterion lists a benchmark registered under an \
             id already taken with ` #N` added, but selects by the id without it, so no fork can \
             measure it alone; give it an id of its own to compare it"
        ),
    }
}

/// What the builds and discovery set aside, to say why no benchmark was found, and
/// where to look for packages of their own with bench targets.
pub(super) struct NothingFound<'a> {
    pub(super) needs_features: &'a [FeatureGatedBench],
    pub(super) skipped: &'a [SkippedTarget],
    /// The benchmarks of `skipped`'s targets that an old divan lists without their `args`.
    pub(super) unselectable: &'a [(TargetKey, Unselectable)],
    pub(super) unselected: &'a [UnselectedPackage],
    /// Bench targets that listed no benchmark in either revision ([`listed_nothing`]).
    pub(super) listed_nothing: &'a [TargetKey],
    pub(super) workspace_root: &'a Path,
    pub(super) start_dir: &'a Path,
}

/// Why no benchmark was found, for the error: a bench target gated by features is the
/// likeliest reason (say which and how); otherwise name the targets no harness runs; and
/// name the workspace members whose bench targets the build did not select (in a workspace
/// whose root is a package, cargo builds only the root's unless told `-p` or `--workspace`).
pub(super) fn why_nothing_found(found: &NothingFound) -> String {
    if !found.needs_features.is_empty() {
        let gated: Vec<String> = found
            .needs_features
            .iter()
            .map(|g| format!("`{}` (pass `{}`)", g.target, g.suggestion))
            .collect();
        return format!(
            ": cargo did not build bench target(s) {} because they require features that are \
             not enabled",
            gated.join(", ")
        );
    }
    let reasons = skip_reasons(found.skipped, found.unselectable);
    let why = if !reasons.is_empty() {
        format!(
            "; only benchmarks of criterion, divan, libtest `#[bench]` and `bencher` are \
             measured, and the bench targets are not: {}",
            reasons.join("; ")
        )
    } else if !found.listed_nothing.is_empty() {
        String::new()
    } else if found.unselected.is_empty() {
        ": neither has a bench target".to_string()
    } else {
        ": the selected package(s) have no bench target".to_string()
    };
    let why = match found.listed_nothing {
        [] => why,
        empty if why.is_empty() => format!(": {}", listed_nothing_clause(empty)),
        empty => format!("{why}; {}", listed_nothing_clause(empty)),
    };
    let why = match found.unselected {
        [] => why,
        unselected => format!("{why}; {}", unselected_members(unselected)),
    };
    let why = match build::unit_test_benches_clause(&unit_benches(found, &reasons)) {
        None => why,
        Some(clause) => format!("{why}; {clause}"),
    };
    match build::compare_elsewhere(&packages_elsewhere(found)) {
        None => why,
        Some(hint) => format!("{why}; {hint}"),
    }
}

/// The files of `#[bench]` functions in unit tests ([`build::unit_test_benches`]), looked for
/// only when no bench target was skipped for a reason of its own (`reasons`) or listed nothing:
/// then "no bench target" is the whole answer, and they are where `cargo bench`'s went.
fn unit_benches(found: &NothingFound, reasons: &[String]) -> Vec<std::path::PathBuf> {
    match reasons.is_empty() && found.listed_nothing.is_empty() {
        true => build::unit_test_benches(found.workspace_root),
        false => Vec::new(),
    }
}

/// Why each target was skipped, once per cause: targets whose benchmarks an old divan lists
/// without their `args` (each side's discovery names them) are one clause when there are several
/// whose test mode did the same ([`unselectable_group_reason`]), not one each.
pub(super) fn skip_reasons(
    skipped: &[SkippedTarget],
    unselectable: &[(TargetKey, Unselectable)],
) -> Vec<String> {
    let unselectable = sorted_once(unselectable.to_vec());
    // Grouped by what the test mode did (failed, unreadable, no leaf), whatever its words.
    let mut groups: Vec<Vec<(TargetKey, Unselectable)>> = Vec::new();
    for entry in unselectable {
        let kind = std::mem::discriminant(&entry.1.cause);
        match groups
            .iter_mut()
            .find(|group| std::mem::discriminant(&group[0].1.cause) == kind)
        {
            Some(group) => group.push(entry),
            None => groups.push(vec![entry]),
        }
    }
    groups.retain(|group| distinct(group.iter().map(|(key, _)| key)).len() > 1);
    let in_group = |s: &SkippedTarget| {
        groups.iter().flatten().any(|(key, set_apart)| {
            s.package.as_deref() == Some(key.package.as_str())
                && s.target == key.target
                && s.reason == unselectable_reason(set_apart)
        })
    };
    let mut reasons: Vec<String> = sorted_once(skipped.to_vec())
        .into_iter()
        .filter(|s| !in_group(s))
        .map(|s| s.reason)
        .collect();
    reasons.extend(groups.iter().map(|group| unselectable_group_reason(group)));
    reasons
}

/// How many of a grouped cause's targets and benchmarks are named; the rest are counted.
const NAMED_IN_GROUP: usize = 3;

/// One clause for the targets whose benchmarks an old divan lists without their `args` and whose
/// test mode did the same (failed, could not be read, or drew no argument as a leaf): `the 15
/// benchmark(s) of 4 bench targets (`a`, `b`, `c` and 1 more) take `args`: …, and the run of them
/// in its test mode … failed (in `a`: …), so no fork can select one (`x`, `y`, `z` and 12 more);
/// divan ≥ 0.1.18 lists them`. The first target's failure is quoted; the targets' own skip
/// records keep every name and failure.
pub(super) fn unselectable_group_reason(unselectable: &[(TargetKey, Unselectable)]) -> String {
    let named = |names: Vec<String>| {
        let shown = names
            .iter()
            .take(NAMED_IN_GROUP)
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ");
        match names.len().saturating_sub(NAMED_IN_GROUP) {
            0 => shown,
            more => format!("{shown} and {more} more"),
        }
    };
    // A target may be here for each side (in other words): named and counted once.
    let keys = distinct(unselectable.iter().map(|(key, _)| key.clone()));
    let targets = named(keys.iter().map(|key| key.target.clone()).collect());
    let benchmarks = distinct(unselectable.iter().flat_map(|(_, u)| u.benchmarks.clone()));
    let count = benchmarks.len();
    // Grouped by kind: a failure's own words are the first target's.
    let cause = match unselectable.first() {
        Some((key, u)) => match &u.cause {
            ArgumentsUnseen::Failed(how) => {
                ArgumentsUnseen::Failed(format!("in `{}`: {how}", key.target))
            }
            ArgumentsUnseen::Unreadable(why) => {
                ArgumentsUnseen::Unreadable(format!("in `{}`: {why}", key.target))
            }
            ArgumentsUnseen::NoLeaf => ArgumentsUnseen::NoLeaf,
        },
        None => ArgumentsUnseen::NoLeaf,
    };
    format!(
        "the {count} benchmark(s) of {} bench targets ({targets}) take `args`: their divan \
         (before 0.1.18) lists them without their arguments, and {}",
        keys.len(),
        arguments_unseen(&cause, Some(&named(benchmarks)))
    )
}

/// `items` without repeats, in the order they first come.
fn distinct<T: Clone + Eq + std::hash::Hash>(items: impl Iterator<Item = T>) -> Vec<T> {
    let mut seen = std::collections::HashSet::new();
    items.filter(|item| seen.insert(item.clone())).collect()
}

/// The manifests of [`build::bench_packages_elsewhere`] as the user would type them: relative
/// when run from the workspace root, else absolute.
pub(super) fn packages_elsewhere(found: &NothingFound) -> Vec<String> {
    let canonical = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    let from_root = canonical(found.start_dir) == canonical(found.workspace_root);
    build::bench_packages_elsewhere(found.workspace_root)
        .into_iter()
        .map(|manifest| match from_root {
            true => manifest,
            false => found.workspace_root.join(manifest),
        })
        .map(|manifest| manifest.display().to_string())
        .collect()
}

/// `workspace member(s) not built have bench targets: `a` (a_bench): pass `-p a`, or
/// `--workspace` for all of them`.
pub(super) fn unselected_members(unselected: &[UnselectedPackage]) -> String {
    let members: Vec<String> = unselected
        .iter()
        .map(|u| format!("`{}` ({})", u.package, u.bench_targets.join(", ")))
        .collect();
    format!(
        "workspace member(s) not built have bench targets: {}: pass `-p {}`, or `--workspace` \
         for all of them",
        members.join(", "),
        unselected[0].package
    )
}

/// Matches, filters, drops ignored ones and keeps this shard's share.
pub(super) fn select_benchmarks(
    base: &[(TargetKey, Vec<String>)],
    head: &[(TargetKey, Vec<String>)],
    commands: &[Matched],
    settings: &Settings,
    shard: Option<Shard>,
    nothing_found: &NothingFound,
) -> Result<Vec<Matched>> {
    let mut all = discover::match_benchmarks(base, head);
    all.extend(commands.iter().cloned());
    if all.is_empty() {
        return Err(Error::NothingToRun(format!(
            "no benchmarks found in either revision{}",
            why_nothing_found(nothing_found)
        )));
    }
    let found: Vec<String> = all.iter().map(|m| m.id.clone()).collect();
    let filter = Filter::new(&settings.filters);
    let selected: Vec<Matched> = all
        .into_iter()
        .filter(|m| {
            // A command is selected by its name or by its memory record's id.
            let memory = is_command(m) && filter.matches(&command::memory_id(&m.id));
            (m.selected_by(&filter) || memory)
                && !settings.is_ignored(&m.id)
                && !settings.is_ignored(&m.criterion_id)
        })
        .filter(|m| shard.is_none_or(|s| s.contains(&m.id)))
        .collect();
    if selected.is_empty() {
        let empty = match nothing_found.listed_nothing {
            [] => String::new(),
            empty => format!("; {}", listed_nothing_clause(empty)),
        };
        return Err(Error::NothingToRun(format!(
            "no benchmark matches the filter {:?}{}; {}{empty}",
            settings.filters,
            shard.map(|s| format!(" in shard {s}")).unwrap_or_default(),
            benchmarks_found(&found)
        )));
    }
    Ok(selected)
}

/// The commands, as benchmarks of both revisions (one entry each: its time; the memory record is
/// its companion, [`command::memory_id`]).
pub(super) fn command_entries(commands: &[CommandSpec]) -> Vec<Matched> {
    commands
        .iter()
        .map(|c| Matched {
            id: c.name.clone(),
            criterion_id: c.name.clone(),
            base_target: None,
            head_target: None,
            presence: Presence::Both,
            harness: Some(HarnessKind::Command),
        })
        .collect()
}

/// The bench targets that listed no benchmark on any side that has them: built and run, but
/// empty, which is what a target compiled out by a feature it does not require in its manifest
/// (uuid's `benches/v4.rs` starts `#![cfg(feature = "v4")]`) looks like. Cargo builds such a
/// target without the feature, so [`why_nothing_found`]'s `required-features` hint cannot name
/// it; said, a user who misses its benchmarks knows where they went.
pub(super) fn listed_nothing(base: &TargetLists, head: &TargetLists) -> Vec<TargetKey> {
    let keys = distinct(base.iter().chain(head).map(|(key, _)| key.clone()));
    keys.into_iter()
        .filter(|key| {
            base.iter()
                .chain(head)
                .filter(|(k, _)| k == key)
                .all(|(_, ids)| ids.is_empty())
        })
        .collect()
}

/// `bench target(s) `v4` and `v7` list no benchmark: …`, with the remedy.
pub(super) fn listed_nothing_clause(empty: &[TargetKey]) -> String {
    let names: Vec<String> = empty.iter().map(|k| format!("`{}`", k.target)).collect();
    let names = match names.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    };
    format!(
        "bench target(s) {names} list no benchmark: code compiled out \
         (such as a file that starts `#![cfg(feature = \"…\")]`) lists none, and `--features` \
         may bring its benchmarks in"
    )
}

/// The benchmarks there are, for an error whose filter matched none: the ids to write a filter
/// from (or the sign that `--bench` chose another target), the first [`IDS_SHOWN`] of them.
pub(super) fn benchmarks_found(ids: &[String]) -> String {
    const IDS_SHOWN: usize = 8;
    let shown = ids.iter().take(IDS_SHOWN).cloned().collect::<Vec<_>>();
    let more = ids.len().saturating_sub(IDS_SHOWN);
    let tail = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    format!(
        "the {} benchmark(s) found are {}{tail}",
        ids.len(),
        shown.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lists(entries: &[(&str, &[&str])]) -> TargetLists {
        entries
            .iter()
            .map(|(target, ids)| {
                let ids = ids.iter().map(|id| id.to_string()).collect();
                (TargetKey::new("uuid", target), ids)
            })
            .collect()
    }

    #[test]
    fn criterion_ids_listed_twice_are_set_apart_with_the_line_break_named() {
        // pulldown-cmark's `lib` target: two benchmark groups named by a string with a line
        // break list `            /1` each (criterion's listing, read line by line), beside
        // ids of their own and a repeat criterion numbers.
        let listed = [
            "            /1",
            "            /2",
            "            /1",
            "smart",
            "smart #2",
        ];
        let ids = listed.iter().map(|id| id.to_string()).collect();
        let (kept, reasons) = split_unselectable_ids(HarnessKind::Criterion, ids);
        assert_eq!(kept, ["            /2", "smart"], "{reasons:?}");
        assert_eq!(reasons.len(), 2, "{reasons:?}");
        assert!(reasons[0].contains("`smart #2`"), "{reasons:?}");
        assert!(
            reasons[1].starts_with("only its benchmark(s) `            /1`: criterion's listing")
                && reasons[1].contains("line break"),
            "{reasons:?}"
        );
        // A divan path two benchmarks share is one reason, as before; libtest keeps its ids.
        let shared = vec!["a::b".to_string(), "a::b".to_string()];
        let (kept, reasons) = split_unselectable_ids(HarnessKind::Divan, shared.clone());
        assert!(kept.is_empty() && reasons.len() == 1, "{reasons:?}");
        let (kept, reasons) = split_unselectable_ids(HarnessKind::Libtest, shared.clone());
        assert_eq!((kept, reasons), (shared, Vec::new()));
    }

    #[test]
    fn criterion_ids_two_groups_register_are_set_apart_with_both_groups_named() {
        // time's `benchmarks` target: its `rand08` and `rand09` modules each register
        // `Random: time` (and seven more) in a `criterion_group!` of their own, whose
        // `Criterion` numbers repeats only among its own ids, so the listing shows each twice,
        // whole, one line each; `--exact` with one runs both. No line break is involved.
        let listed = ["Random: time", "Date: noop", "Random: time"];
        let ids = listed.iter().map(|id| id.to_string()).collect();
        let (kept, reasons) = split_unselectable_ids(HarnessKind::Criterion, ids);
        assert_eq!(kept, ["Date: noop"], "{reasons:?}");
        assert_eq!(reasons.len(), 1, "{reasons:?}");
        assert!(
            reasons[0].starts_with("only its benchmark(s) `Random: time`: criterion's listing")
                && reasons[0].contains("two benchmark groups register the same id")
                && reasons[0].contains("a fork selecting the id runs both"),
            "{reasons:?}"
        );
    }

    #[test]
    fn a_target_empty_on_every_side_that_has_it_listed_nothing() {
        // uuid: `v4` and `v7` start `#![cfg(feature = ...)]`, so without the feature their
        // libtest harness lists nothing; `parse_str` lists its benchmarks; `gone` is base's
        // alone, empty there; `new` lists a benchmark in head only.
        let base = lists(&[
            ("parse_str", &["parse_nil"]),
            ("v4", &[]),
            ("v7", &[]),
            ("gone", &[]),
            ("new", &[]),
        ]);
        let head = lists(&[
            ("parse_str", &["parse_nil"]),
            ("v4", &[]),
            ("v7", &[]),
            ("new", &["new_v7"]),
        ]);
        let empty: Vec<String> = listed_nothing(&base, &head)
            .into_iter()
            .map(|k| k.target)
            .collect();
        assert_eq!(empty, ["v4", "v7", "gone"]);
        let clause = listed_nothing_clause(&listed_nothing(&base, &head));
        assert!(
            clause.starts_with(
                "bench target(s) `v4`, `v7` and `gone` list no benchmark: code compiled out"
            ),
            "{clause}"
        );
        assert!(clause.contains("`--features`"), "{clause}");
        assert!(listed_nothing(&lists(&[("a", &["x"])]), &Vec::new()).is_empty());
    }

    fn divan_target(
        target: &str,
        ids: &[&str],
        cause: ArgumentsUnseen,
    ) -> (SkippedTarget, (TargetKey, Unselectable)) {
        let unselectable = Unselectable {
            benchmarks: ids.iter().map(|id| id.to_string()).collect(),
            cause,
        };
        let skipped = SkippedTarget {
            package: Some("anstream".to_string()),
            target: target.to_string(),
            reason: unselectable_reason(&unselectable),
        };
        (skipped, (TargetKey::new("anstream", target), unselectable))
    }

    /// A test mode that panicked, in `target`'s words.
    fn panicked(target: &str) -> ArgumentsUnseen {
        ArgumentsUnseen::Failed(format!(
            "exited with exit status: 101: thread 'main' panicked at benches/{target}.rs:9:5: \
             no such file"
        ))
    }

    /// Both sides' skip records and unselectable benchmarks of `targets`, and a target of no
    /// known harness.
    fn set_apart_twice(
        targets: &[(SkippedTarget, (TargetKey, Unselectable))],
    ) -> (Vec<SkippedTarget>, Vec<(TargetKey, Unselectable)>) {
        let other = SkippedTarget {
            package: Some("anstyle".to_string()),
            target: "render".to_string(),
            reason: "no known harness".to_string(),
        };
        let skipped = targets
            .iter()
            .chain(targets)
            .map(|(s, _)| s.clone())
            .chain([other])
            .collect();
        let unselectable = targets
            .iter()
            .chain(targets)
            .map(|(_, u)| u.clone())
            .collect();
        (skipped, unselectable)
    }

    #[test]
    fn targets_an_old_divan_cannot_select_from_are_one_clause_with_the_counts() {
        let targets = [
            divan_target(
                "stream",
                &["stream::auto", "stream::always"],
                panicked("stream"),
            ),
            divan_target(
                "strip",
                &["strip::bytes", "strip::str", "strip::utf8"],
                panicked("strip"),
            ),
            divan_target("wincon", &["wincon::write"], panicked("wincon")),
            divan_target("parse", &["parse::advance"], panicked("parse")),
        ];
        // Each side's discovery sets the same targets apart: named once.
        let (skipped, unselectable) = set_apart_twice(&targets);
        let reasons = skip_reasons(&skipped, &unselectable);
        assert_eq!(reasons.len(), 2, "{reasons:#?}");
        assert_eq!(reasons[0], "no known harness");
        assert_eq!(
            reasons[1],
            "the 7 benchmark(s) of 4 bench targets (`parse`, `stream`, `strip` and 1 more) take \
             `args`: their divan (before 0.1.18) lists them without their arguments, and the run \
             of them in its test mode (`--test`) that shows the arguments failed (in `parse`: \
             exited with exit status: 101: thread 'main' panicked at benches/parse.rs:9:5: no \
             such file), so no fork can select one (`parse::advance`, `stream::auto`, \
             `stream::always` and 4 more); divan ≥ 0.1.18 lists them"
        );
        assert_eq!(reasons.join("; ").matches("divan ≥ 0.1.18").count(), 1);
    }

    #[test]
    fn an_old_divan_s_unselectable_benchmarks_say_what_its_test_mode_did() {
        let unreadable = ArgumentsUnseen::Unreadable(
            "line 3 is not part of divan's tree: \"warning: x\"".to_string(),
        );
        let targets = [
            divan_target("stream", &["stream::auto"], ArgumentsUnseen::NoLeaf),
            divan_target("strip", &["strip::bytes"], ArgumentsUnseen::NoLeaf),
            divan_target("wincon", &["wincon::write"], panicked("wincon")),
            divan_target("parse", &["parse::advance"], unreadable),
        ];
        let (skipped, unselectable) = set_apart_twice(&targets);
        let reasons = skip_reasons(&skipped, &unselectable);
        // One clause for the two whose test mode drew no leaf; the others their own.
        assert_eq!(reasons.len(), 4, "{reasons:#?}");
        let grouped = &reasons[3];
        assert!(
            grouped.starts_with("the 2 benchmark(s) of 2 bench targets (`stream`, `strip`)"),
            "{grouped}"
        );
        assert!(
            grouped.contains(
                "drew none of their arguments as a leaf of its own (an argument run at several \
                 thread counts, `threads`, has a leaf per count below it), so no fork can measure \
                 one alone (`stream::auto`, `strip::bytes`)"
            ),
            "{grouped}"
        );
        // A newer divan lists them, but draws a row per thread count as well.
        assert!(!grouped.contains("0.1.18 lists them"), "{grouped}");
        assert_eq!(reasons[2], "no known harness");
        let (parse, wincon) = (&reasons[0], &reasons[1]);
        assert!(
            parse.starts_with("only its benchmark(s) `parse::advance`, which take `args`"),
            "{parse}"
        );
        assert!(
            parse.contains(
                "the output of the run of them in its test mode (`--test`) that shows \
                 the arguments could not be read (line 3 is not part of divan's tree"
            ),
            "{parse}"
        );
        assert!(
            wincon.contains("shows the arguments failed (exited with exit status: 101: thread"),
            "{wincon}"
        );
    }

    #[test]
    fn a_target_whose_test_mode_failed_otherwise_on_each_side_is_counted_once() {
        let in_base = divan_target("stream", &["stream::auto"], panicked("stream"));
        let in_head = divan_target("stream", &["stream::auto"], panicked("stream_head"));
        let strip = divan_target("strip", &["strip::bytes", "strip::str"], panicked("strip"));
        let targets = [in_base, in_head, strip];
        let skipped: Vec<SkippedTarget> = targets.iter().map(|(s, _)| s.clone()).collect();
        let unselectable: Vec<_> = targets.iter().map(|(_, u)| u.clone()).collect();
        let reasons = skip_reasons(&skipped, &unselectable);
        assert_eq!(reasons.len(), 1, "{reasons:#?}");
        assert!(
            reasons[0].starts_with("the 3 benchmark(s) of 2 bench targets (`stream`, `strip`)"),
            "{}",
            reasons[0]
        );
    }

    #[test]
    fn one_target_an_old_divan_cannot_select_from_keeps_its_own_reason() {
        let (skipped, unselectable) =
            divan_target("stream", &["stream::auto"], ArgumentsUnseen::NoLeaf);
        let reasons = skip_reasons(std::slice::from_ref(&skipped), &[unselectable]);
        assert_eq!(reasons, vec![skipped.reason]);
    }
}
