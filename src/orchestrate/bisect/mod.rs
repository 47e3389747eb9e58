//! `cargo perfdiff bisect GOOD BAD`: the first commit between GOOD and BAD at which the selected
//! benchmarks changed, found with the comparison's own measurements and verdicts.
//!
//! Why it works this way (the guarantee is spelled out in `docs/design/bisect.md`):
//! - **Confirm first.** GOOD is compared with BAD as a comparison would; only benchmarks whose
//!   verdict there is `regressed` or `improved` are searched, each in its own direction. Nothing
//!   confirmed, nothing searched.
//! - **Every step measures a commit against GOOD**, never against the last good bound: each
//!   benchmark's question is then always the same one ("is GOOD→BAD's change there yet?"), which a
//!   regression of one benchmark and an improvement of another in different commits cannot mix up,
//!   and GOOD's build is reused by every step.
//! - **A noisy step is not guessed.** An inconclusive verdict gets its step measured again with
//!   twice the forks (its samples file resumed), up to `--retries` times; still inconclusive, the
//!   search of that benchmark ends with the range it narrowed the change to.
//! - **The error is controlled as a whole** by Bonferroni: half of alpha (and of the CI's
//!   non-coverage) goes to the confirmation, split over its benchmarks and attempts; the other half
//!   to the search, split over the changed benchmarks and each one's budget of decisions
//!   ([`search::Search::decision_budget`]). Each step's verdicts are taken at that level, without
//!   false-discovery control, under the comparison's stop rule (which corrects for its own looks).
//! - **Builds are kept per commit** (the run does not remove other commits' executables), so each
//!   commit is built once and GOOD's build serves every step; a commit whose build fails is skipped
//!   like `git bisect skip` and named.
//! - **A step pays only for what it searches** (`step_focus`): it builds the targets that hold
//!   the records still searched, as the confirmation found them (a command's programs, a
//!   benchmark's bench target), and those records alone decide when a command stops and whether
//!   the step is measured again. A user waits for every build; a bench target the search never
//!   runs cost minutes a step with fat LTO.
//! - **One lock for the whole bisection**: the workspace's run lock is taken before the state is
//!   read and held to the last step, so a second bisection refuses at once instead of
//!   interleaving its steps and overwriting the state file.
//! - **Resumable.** Every step's samples file and the list of finished steps are kept under
//!   `<target>/perfdiff/bisect/<good>-<bad>/`; the search is a pure function of the finished steps
//!   ([`search`]), so running the same command again replays them, resumes the step that was
//!   interrupted and measures only what is missing.

pub mod history;
pub mod render;
pub mod search;

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::config::{Settings, StopRule};
use crate::model::harness::HarnessKind;
use crate::model::samples::{BenchmarkRecord, SampleFile};
use crate::model::target::TargetKey;
use crate::orchestrate::error::Error;
use crate::orchestrate::run::{self, Focus, RunRequest};
use crate::steps::analysis::{Outcome, Report};
use crate::steps::build::BuildError;
use crate::steps::git::revisions;
use crate::steps::progress::Progress;
use crate::steps::stop::StopPolicy;
use crate::util::exit_code;
use history::{CommitInfo, History};
use search::{Direction, Evidence, Probe, Search, Status, Unresolved};

/// Result of a bisection's steps.
type Result<T, E = BisectError> = std::result::Result<T, E>;

/// Errors of a bisection: a comparison's, or its own.
#[derive(Debug, thiserror::Error)]
pub enum BisectError {
    /// A comparison of the bisection failed.
    #[error(transparent)]
    Compare(#[from] Error),
    #[error(transparent)]
    History(#[from] history::HistoryError),
    #[error(
        "`{good}` does not build, so nothing can be compared with it: {reason} (pick an older GOOD that builds)"
    )]
    GoodDoesNotBuild { good: String, reason: String },
    #[error(
        "`{bad}` does not build, so the change cannot be confirmed: {reason} (pick a BAD that builds)"
    )]
    BadDoesNotBuild { bad: String, reason: String },
    #[error("cannot read the bisection state {}: {message}", path.display())]
    State { path: PathBuf, message: String },
    #[error(
        "interrupted; the finished steps and the samples of this step are kept in {} (run the same command again to continue)",
        dir.display()
    )]
    Interrupted { dir: PathBuf },
}

/// Everything a bisection needs: the two ends, and a comparison's request as the template of
/// every step (its `revisions`, `resume` and `samples_path` are set per step).
#[derive(Debug, Clone)]
pub struct BisectRequest {
    pub good: String,
    pub bad: String,
    /// Every commit of `GOOD..BAD`, not only BAD's first-parent line.
    pub all_commits: bool,
    /// How many times an inconclusive step is measured again, each time with twice the forks.
    pub retries: usize,
    pub template: RunRequest,
}

/// The schema tag of a bisection report and state file.
pub const SCHEMA: &str = "perfdiff-bisect/1";

/// What a bisection found: the JSON report, and what the other formats render.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BisectReport {
    pub schema: String,
    pub good: CommitInfo,
    pub bad: CommitInfo,
    /// Commits searched (GOOD excluded, BAD included).
    pub commits: usize,
    /// Whether only BAD's first-parent line was searched.
    pub first_parent: bool,
    /// `culprit`: every changed benchmark has its culprit; `range`: some change could only be
    /// narrowed to a range; `not_confirmed`: no selected benchmark changed between GOOD and BAD.
    pub verdict: String,
    pub levels: Levels,
    pub results: Vec<BenchmarkResult>,
    /// Selected benchmarks that did not change between GOOD and BAD, with their verdict there.
    pub not_confirmed: Vec<NotConfirmed>,
    /// Commits that could not be measured, and why.
    pub skipped: Vec<SkippedCommit>,
    pub steps: Vec<StepRecord>,
    /// Where the state and every step's samples are.
    pub dir: String,
    /// Wall time of the steps measured (or replayed) by this invocation and earlier ones.
    pub wall_ms: u64,
}

/// The per-decision levels of the error control (`docs/design/bisect.md`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Levels {
    /// The user's alpha: bound on the probability that any culprit or range named is wrong.
    pub alpha: f64,
    pub confirm_alpha: f64,
    pub confirm_confidence: f64,
    pub search_alpha: f64,
    pub search_confidence: f64,
    /// Decisions each benchmark's search may take.
    pub budget: usize,
}

/// One benchmark's answer.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BenchmarkResult {
    pub id: String,
    pub direction: Direction,
    /// The first commit with the change, when one could be isolated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub culprit: Option<CommitInfo>,
    /// `git diff --stat` of the culprit against its first parent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff_stat: Option<String>,
    /// The commits the change could be narrowed to (the culprit alone when isolated).
    pub candidates: Vec<CommitInfo>,
    /// Why the search stopped short of one commit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unresolved: Option<String>,
    /// The ratio BAD / GOOD the confirmation measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ratio: Option<[f64; 3]>,
}

/// A selected benchmark the confirmation did not find changed, so not searched.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct NotConfirmed {
    pub id: String,
    /// Its verdict between GOOD and BAD (`unchanged`, `inconclusive`, `only_in_head`, …).
    pub verdict: String,
}

/// A commit that could not be measured.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SkippedCommit {
    pub commit: CommitInfo,
    pub reason: String,
}

/// Whether a step confirms the change between GOOD and BAD or searches between them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StepKind {
    Confirm,
    Search,
}

/// One finished step: GOOD against `head`, the verdict of each benchmark it measured.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StepRecord {
    pub number: usize,
    pub kind: StepKind,
    pub head: CommitInfo,
    pub benchmarks: Vec<StepBenchmark>,
    /// Set when `head` could not be measured (it does not build, or lacks a benchmark).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// The level of each of its decisions: Mann–Whitney alpha and the ratio CI's confidence.
    pub alpha: f64,
    pub confidence: f64,
    /// The samples file of the step.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub samples: Option<String>,
    pub wall_ms: u64,
}

impl StepRecord {
    /// The estimate of head / GOOD the step measured for benchmark `id`, if it has one.
    fn estimate_of(&self, id: &str) -> Option<f64> {
        self.benchmarks
            .iter()
            .find(|b| b.id == id)
            .and_then(|b| b.ratio)
            .map(|r| r[0])
    }
}

/// One benchmark of a step.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StepBenchmark {
    pub id: String,
    /// The comparison's verdict (`regressed`, `unchanged`, …) of head against GOOD.
    pub verdict: String,
    /// `[estimate, ci_low, ci_high]` of head / GOOD.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ratio: Option<[f64; 3]>,
    /// The relevance threshold the verdict was taken at.
    pub threshold: f64,
    /// Forks per side, the larger side.
    pub forks: usize,
    /// Times the step was measured for it (more than one after an inconclusive attempt).
    pub attempts: usize,
    /// Decided `unchanged` without measuring: it executes the same code at this commit as at
    /// GOOD (docs/selection.md).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub same_code: bool,
}

/// The state kept between invocations: the finished steps, and what they are valid for.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct State {
    schema: String,
    good: String,
    bad: String,
    all_commits: bool,
    retries: usize,
    /// The settings every step ran with (filters included): steps measured under others are
    /// not reused.
    settings: serde_json::Value,
    steps: Vec<StepRecord>,
}

/// Runs (or resumes) a bisection: confirms the change between the ends, then searches the
/// commits between them for each confirmed change.
pub fn bisect(request: &BisectRequest, progress: &mut Progress) -> Result<BisectReport> {
    let started = Instant::now();
    let Opened {
        ends,
        lock,
        dir,
        settings,
        mut state,
        good,
        bad,
    } = Opened::open(request, progress)?;
    let ctx = StepContext {
        request,
        settings: &settings,
        good: &good,
        dir: &dir,
        lock: &lock,
    };
    let attempts = request.retries + 1;

    let confirm = confirmation(&ctx, &mut state, &bad, attempts, progress)?;
    let (changed, not_confirmed) = confirmed_changes(&confirm);
    announce_confirmation(&confirm, &changed, progress);
    let budget = Search::decision_budget(ends.history.commits.len(), attempts);
    let level = search_level(&settings, changed.len(), budget);
    let mut search = Search::new(ends.history.range.clone(), changed.clone(), budget);
    let skipped = search_steps(
        &ctx,
        &mut search,
        &ends.history,
        (&confirm, &changed, level),
        &mut state,
        progress,
    )?;
    let results = results(&ends.repo, &search, &ends.history, &confirm);
    let steps = state.steps;
    let wall_ms = steps
        .iter()
        .map(|s| s.wall_ms)
        .sum::<u64>()
        .max(started.elapsed().as_millis() as u64);
    Ok(BisectReport {
        schema: SCHEMA.to_string(),
        good,
        bad,
        commits: ends.history.commits.len(),
        first_parent: !request.all_commits,
        verdict: overall_verdict(&changed, &results).to_string(),
        levels: Levels {
            alpha: settings.alpha,
            confirm_alpha: confirm.alpha,
            confirm_confidence: confirm.confidence,
            search_alpha: level.0,
            search_confidence: level.1,
            budget,
        },
        results,
        not_confirmed,
        skipped,
        steps,
        dir: dir.display().to_string(),
        wall_ms,
    })
}

/// A bisection ready for its first step: its ends resolved, the workspace locked, its directory
/// and its state (resumed or new, saved), announced.
struct Opened {
    ends: Ends,
    lock: crate::steps::git::worktree::RunLock,
    dir: PathBuf,
    settings: Settings,
    state: State,
    good: CommitInfo,
    bad: CommitInfo,
}

impl Opened {
    fn open(request: &BisectRequest, progress: &mut Progress) -> Result<Opened> {
        let ends = Ends::read(request)?;
        // Held from the first step to the last, so a second bisection (or comparison) of this
        // workspace refuses at once instead of interleaving its steps with ours and overwriting
        // the state file.
        let lock = run::lock_workspace(&request.template.workspace_root)?;
        let dir = bisection_dir(request, &ends)?;
        let settings = pinned_settings(&request.template.settings);
        let state = load_state(
            &dir,
            request,
            &ends.good_sha,
            &ends.bad_sha,
            &settings,
            progress,
        )?;
        // Saved before measuring: a bisection interrupted in its first step is resumed only
        // under the same settings too.
        save_state(&dir, &state)?;
        announce_bisection(request, &ends, &dir, progress);
        let good = CommitInfo {
            sha: ends.good_sha.clone(),
            subject: subject_of(&ends.repo, &ends.good_sha),
        };
        let bad = ends
            .history
            .commits
            .last()
            .cloned()
            .expect("a non-empty range");
        Ok(Opened {
            ends,
            lock,
            dir,
            settings,
            state,
            good,
            bad,
        })
    }
}

/// GOOD and BAD resolved in their repository, and the commits between them.
struct Ends {
    repo: git2::Repository,
    comparison: revisions::Comparison,
    good_sha: String,
    bad_sha: String,
    history: History,
}

impl Ends {
    fn read(request: &BisectRequest) -> Result<Ends> {
        let repo = revisions::open_repository(&request.template.start_dir).map_err(Error::from)?;
        let specs = [request.good.clone(), request.bad.clone()];
        let comparison = revisions::resolve_comparison(&repo, &specs).map_err(Error::from)?;
        let good_sha = comparison.base.commit.clone().unwrap_or_default();
        let bad_sha = comparison.head.commit.clone().unwrap_or_default();
        let history = history::read(
            &repo,
            &good_sha,
            &bad_sha,
            request.all_commits,
            (&request.good, &request.bad),
        )?;
        Ok(Ends {
            repo,
            comparison,
            good_sha,
            bad_sha,
            history,
        })
    }
}

/// The directory a bisection of these ends keeps its state and steps in, created.
fn bisection_dir(request: &BisectRequest, ends: &Ends) -> Result<PathBuf> {
    let workspace_root = &request.template.workspace_root;
    let target_dir = crate::steps::build::target_directory(workspace_root).map_err(Error::from)?;
    let dir = run::state_dir(&target_dir, workspace_root)
        .join("bisect")
        .join(format!(
            "{}-{}",
            short(&ends.good_sha),
            short(&ends.bad_sha)
        ));
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    Ok(dir)
}

fn announce_bisection(request: &BisectRequest, ends: &Ends, dir: &Path, progress: &mut Progress) {
    progress.note(&format!(
        "bisecting {} commits between {} (good) and {} (bad){}; steps are kept in {}",
        ends.history.commits.len(),
        ends.comparison.base.label(),
        ends.comparison.head.label(),
        if request.all_commits {
            ""
        } else {
            " on the first-parent line"
        },
        dir.display()
    ));
}

/// The benchmarks the confirmation found changed, with the direction, and those it did not.
fn confirmed_changes(confirm: &StepRecord) -> (Vec<(String, Direction)>, Vec<NotConfirmed>) {
    let changed = confirm
        .benchmarks
        .iter()
        .filter_map(|b| direction_of(&b.verdict).map(|d| (b.id.clone(), d)))
        .collect();
    let not_confirmed = confirm
        .benchmarks
        .iter()
        .filter(|b| direction_of(&b.verdict).is_none())
        .map(|b| NotConfirmed {
            id: b.id.clone(),
            verdict: b.verdict.clone(),
        })
        .collect();
    (changed, not_confirmed)
}

/// `not_confirmed`, `culprit` (every change has its commit) or `range`.
fn overall_verdict(changed: &[(String, Direction)], results: &[BenchmarkResult]) -> &'static str {
    if changed.is_empty() {
        "not_confirmed"
    } else if results.iter().all(|r| r.culprit.is_some()) {
        "culprit"
    } else {
        "range"
    }
}

/// The confirmation, GOOD against BAD for every selected benchmark: the kept one, or measured
/// now (and kept).
fn confirmation(
    ctx: &StepContext<'_>,
    state: &mut State,
    bad: &CommitInfo,
    attempts: usize,
    progress: &mut Progress,
) -> Result<StepRecord> {
    if let Some(step) = state.steps.first().filter(|s| s.kind == StepKind::Confirm) {
        return Ok(step.clone());
    }
    state.steps.clear();
    let selected = count_selected(ctx, progress)?;
    let plan = StepPlan {
        number: 1,
        kind: StepKind::Confirm,
        head: bad,
        ids: None,
        level: confirm_level(ctx.settings, selected, attempts),
        thresholds: &[],
        focus: None,
    };
    let step = ctx.measure(&plan, progress)?;
    if let Some(reason) = &step.skipped {
        return Err(BisectError::BadDoesNotBuild {
            bad: ctx.request.bad.clone(),
            reason: reason.clone(),
        });
    }
    state.steps.push(step.clone());
    save_state(ctx.dir, state)?;
    Ok(step)
}

/// The search's steps until every benchmark's search has ended: the steps `state` keeps are
/// replayed while they are the ones the search asks for, the others measured (at `level`) and
/// kept. Returns the commits skipped.
fn search_steps(
    ctx: &StepContext<'_>,
    search: &mut Search,
    history: &History,
    (confirm, changed, level): (&StepRecord, &[(String, Direction)], (f64, f64)),
    state: &mut State,
    progress: &mut Progress,
) -> Result<Vec<SkippedCommit>> {
    let mut recorded = state.steps.split_off(1).into_iter();
    let mut skipped = Vec::new();
    while let Some(probe) = search.next_probe() {
        let head = &history.commits[probe.commit];
        let ids: Vec<String> = probe
            .targets
            .iter()
            .map(|&t| search.targets()[t].id.clone())
            .collect();
        let replayed = recorded
            .next()
            .filter(|step| replays(step, &head.sha, &ids));
        let step = match replayed {
            Some(step) => step,
            None => {
                // Steps after a mismatch were for another search: measure from here.
                recorded = Vec::new().into_iter();
                let thresholds = search_thresholds(ctx.settings, confirm, &ids);
                let plan = StepPlan {
                    number: state.steps.len() + 1,
                    kind: StepKind::Search,
                    head,
                    ids: Some(&ids),
                    level,
                    thresholds: &thresholds,
                    focus: Some(step_focus(confirm, &ids)),
                };
                let step = ctx.measure(&plan, progress)?;
                announce_step(&step, history.commits.len(), progress);
                step
            }
        };
        if let Some(reason) = &step.skipped {
            skipped.push(SkippedCommit {
                commit: head.clone(),
                reason: reason.clone(),
            });
        }
        apply_step(search, &probe, &step, changed);
        state.steps.push(step);
        save_state(ctx.dir, state)?;
    }
    Ok(skipped)
}

/// Each benchmark's threshold in a search step ([`search_threshold`]), from the ratio its
/// confirmation measured.
fn search_thresholds(
    settings: &Settings,
    confirm: &StepRecord,
    ids: &[String],
) -> Vec<(String, f64)> {
    ids.iter()
        .map(|id| {
            let ratio = confirm.estimate_of(id);
            (id.clone(), search_threshold(settings, id, ratio))
        })
        .collect()
}

/// The exit code of a bisection: 0 every change has its culprit, 5 some change was narrowed to
/// a range only, 6 no change between GOOD and BAD was confirmed.
pub fn exit_code(report: &BisectReport) -> i32 {
    match report.verdict.as_str() {
        "culprit" => exit_code::OK,
        "range" => exit_code::BISECT_RANGE,
        _ => exit_code::BISECT_NOT_CONFIRMED,
    }
}

/// The settings of every step, with the code layouts capped once at the rounds of a first
/// attempt: retries add rounds, and a changed layout count would be another build of each
/// commit.
fn pinned_settings(settings: &Settings) -> Settings {
    let mut pinned = settings.clone();
    pinned.layouts = pinned
        .layouts
        .min(StopPolicy::from_settings(settings).max_rounds());
    pinned.fdr = false;
    pinned
}

/// The filters that select `ids` in a step: each benchmark's own id, for an instruction record
/// (`hash/mix (instructions)`) the benchmark it counts, since filters select what is measured and
/// the instructions metric adds the record ([`crate::model::profile::counted_id`]). Before, a
/// step of `bisect --metric instructions` selected nothing and the search ended in a range.
fn step_filters(ids: &[String]) -> Vec<String> {
    let mut filters: Vec<String> = ids
        .iter()
        .map(|id| crate::model::profile::counted_id(id).unwrap_or(id))
        .map(|id| format!("^{}$", regex::escape(id)))
        .collect();
    filters.sort();
    filters.dedup();
    filters
}

/// `(alpha, confidence)` of each confirmation decision: half the error budget over `selected`
/// benchmarks and `attempts` attempts.
fn confirm_level(settings: &Settings, selected: usize, attempts: usize) -> (f64, f64) {
    share(settings, 2 * selected.max(1) * attempts)
}

/// `(alpha, confidence)` of each search decision: half the error budget over `changed`
/// benchmarks' `budget` decisions.
fn search_level(settings: &Settings, changed: usize, budget: usize) -> (f64, f64) {
    share(settings, 2 * changed.max(1) * budget)
}

fn share(settings: &Settings, parts: usize) -> (f64, f64) {
    let parts = parts as f64;
    (
        settings.alpha / parts,
        1.0 - (1.0 - settings.confidence) / parts,
    )
}

/// The direction a confirmation verdict gives, if it is a change.
fn direction_of(verdict: &str) -> Option<Direction> {
    match verdict {
        "regressed" => Some(Direction::Regressed),
        "improved" => Some(Direction::Improved),
        _ => None,
    }
}

/// What a step's verdict says about a benchmark searched in `direction`.
fn evidence_of(verdict: &str, direction: Direction) -> Option<Evidence> {
    match (verdict, direction_of(verdict)) {
        (_, Some(d)) if d == direction => Some(Evidence::Present),
        (_, Some(_)) | ("unchanged", None) => Some(Evidence::Absent),
        ("inconclusive", None) => Some(Evidence::Inconclusive),
        _ => None,
    }
}

/// Whether a recorded step is the one the search asks for now: the same commit, measured for the
/// same benchmarks (in any order; a skipped step measured none).
fn replays(step: &StepRecord, sha: &str, ids: &[String]) -> bool {
    let mut recorded: Vec<&str> = step.benchmarks.iter().map(|b| b.id.as_str()).collect();
    let mut asked: Vec<&str> = ids.iter().map(String::as_str).collect();
    recorded.sort_unstable();
    asked.sort_unstable();
    step.head.sha == sha && (step.skipped.is_some() || recorded == asked)
}

/// Feeds a finished step to the search.
fn apply_step(
    search: &mut Search,
    probe: &Probe,
    step: &StepRecord,
    changed: &[(String, Direction)],
) {
    if step.skipped.is_some() {
        search.skip(probe.commit);
        return;
    }
    for &t in &probe.targets {
        let (id, direction) = &changed[search_index(changed, &search.targets()[t].id)];
        let Some(measured) = step.benchmarks.iter().find(|b| &b.id == id) else {
            // The commit lacks the benchmark: it cannot be measured, like one that does not
            // build.
            search.skip(probe.commit);
            continue;
        };
        for _ in 0..measured.attempts.max(1) {
            search.count_attempt(t);
        }
        match evidence_of(&measured.verdict, *direction) {
            Some(evidence) => search.apply(t, probe.commit, evidence),
            None => search.skip(probe.commit),
        }
    }
}

fn search_index(changed: &[(String, Direction)], id: &str) -> usize {
    changed.iter().position(|(c, _)| c == id).unwrap_or(0)
}

/// One step: GOOD against `head`.
struct StepPlan<'a> {
    number: usize,
    kind: StepKind,
    head: &'a CommitInfo,
    /// The benchmarks measured; `None`: those the user's filters select.
    ids: Option<&'a [String]>,
    /// `(alpha, confidence)` of each decision.
    level: (f64, f64),
    /// Per-benchmark thresholds ([`search_threshold`]); none for the confirmation.
    thresholds: &'a [(String, f64)],
    /// What the step builds and follows ([`step_focus`]); `None` for the confirmation, which
    /// measures everything the user's filters select.
    focus: Option<Focus>,
}

/// The threshold of a search step for benchmark `id`, whose confirmation measured `ratio` (BAD /
/// GOOD): half the confirmed change on the log scale (the distance from 1 of the geometric
/// midpoint `sqrt(ratio)`), or the user's threshold if larger. A commit then counts as having the
/// change when at least about half of it is there, and as not having it when its whole interval
/// stays closer to GOOD than that, which noise two or three times the user's threshold still
/// allows when the change is large.
fn search_threshold(settings: &Settings, id: &str, ratio: Option<f64>) -> f64 {
    let user = settings.threshold_for(id);
    match ratio {
        Some(r) if r.is_finite() && r > 0.0 => user.max((r.sqrt() - 1.0).abs()),
        _ => user,
    }
}

/// What a step measures and keeps, the same for every step.
struct StepContext<'a> {
    request: &'a BisectRequest,
    settings: &'a Settings,
    good: &'a CommitInfo,
    dir: &'a Path,
    /// The workspace's run lock, held for the whole bisection.
    lock: &'a crate::steps::git::worktree::RunLock,
}

impl StepContext<'_> {
    /// The comparison request of a step's attempt `attempt` (0 first): the step's level, its
    /// benchmarks and thresholds, what it builds and follows (`focus`), twice the forks for each
    /// attempt after the first.
    fn run_request(
        &self,
        plan: &StepPlan<'_>,
        focus: Option<&Focus>,
        attempt: usize,
        samples: &Path,
    ) -> RunRequest {
        let mut settings = self.settings.clone();
        settings.alpha = plan.level.0;
        // A false `unchanged` is evidence that the change is absent and steers the search as a
        // false change does, so equivalence takes the same share of the one error budget.
        settings.equivalence_alpha = plan.level.0;
        settings.confidence = plan.level.1;
        if let Some(ids) = plan.ids {
            settings.filters = step_filters(ids);
        }
        if !plan.thresholds.is_empty() {
            // The step's thresholds decide: the user's own are already in them.
            for o in settings.overrides.values_mut() {
                o.threshold = None;
            }
            for (id, threshold) in plan.thresholds {
                settings.overrides.insert(
                    format!("^{}$", regex::escape(id)),
                    crate::model::policy::BenchOverride {
                        threshold: Some(*threshold),
                        ignore: false,
                    },
                );
            }
        }
        let grow = 1 << attempt;
        match settings.stop {
            StopRule::Fixed => settings.forks *= grow,
            _ => settings.max_forks *= grow,
        }
        RunRequest {
            revisions: vec![self.good.sha.clone(), plan.head.sha.clone()],
            settings,
            resume: samples.is_file().then(|| samples.to_path_buf()),
            samples_path: Some(samples.to_path_buf()),
            keep_builds: true,
            focus: focus.cloned(),
            ..self.request.template.clone()
        }
    }

    /// Measures a step, again with twice the forks while some benchmark is inconclusive and
    /// retries are left.
    fn measure(&self, plan: &StepPlan<'_>, progress: &mut Progress) -> Result<StepRecord> {
        let StepPlan {
            number,
            kind,
            head,
            ids,
            level,
            ..
        } = *plan;
        let started = Instant::now();
        let samples = self.dir.join(format!("step-{number:02}.json"));
        discard_other_comparison(&samples, &self.good.sha, &head.sha);
        progress.note(&format!(
            "step {number}: {} against {} (good){}",
            describe(head),
            self.good.short(),
            match ids {
                Some(ids) => format!(", for {}", ids.join(", ")),
                None => String::new(),
            }
        ));
        let mut benchmarks: Vec<StepBenchmark> = Vec::new();
        let mut focus = plan.focus.clone();
        for attempt in 0..=self.request.retries {
            let report = match self.attempt(plan, &mut focus, attempt, &samples, progress) {
                Ok(report) => report,
                Err(error) => {
                    progress.finish_bar();
                    return self.unmeasured(error, (number, kind, level), head, started);
                }
            };
            progress.finish_bar();
            merge_verdicts(&mut benchmarks, &report, attempt, ids);
            // Only the records searched are measured again: a command's other record, or a
            // benchmark measured beside them, does not make the step longer.
            let inconclusive: Vec<String> = benchmarks
                .iter()
                .filter(|b| b.verdict == "inconclusive")
                .map(|b| b.id.clone())
                .collect();
            if inconclusive.is_empty() || attempt == self.request.retries {
                break;
            }
            progress.note(&format!(
                "step {number}: {} inconclusive; measuring again with twice the forks",
                inconclusive.join(", ")
            ));
            let next = self.run_request(plan, focus.as_ref(), attempt + 1, &samples);
            reopen(&samples, &inconclusive, &next.settings)?;
        }
        Ok(StepRecord {
            number,
            kind,
            head: head.clone(),
            benchmarks,
            skipped: None,
            alpha: level.0,
            confidence: level.1,
            samples: Some(samples.display().to_string()),
            wall_ms: started.elapsed().as_millis() as u64,
        })
    }

    /// Measures attempt `attempt` of a step. A step that builds only the bench targets that held
    /// its benchmarks at the confirmation (`focus`) and finds one of them missing there (moved to
    /// another target, or a target renamed, in this commit) is measured again with every bench
    /// target built, and so are its later attempts.
    fn attempt(
        &self,
        plan: &StepPlan<'_>,
        focus: &mut Option<Focus>,
        attempt: usize,
        samples: &Path,
        progress: &mut Progress,
    ) -> Result<Report, Error> {
        let request = self.run_request(plan, focus.as_ref(), attempt, samples);
        let outcome = run::run_locked(&request, self.lock, progress);
        let narrowed = focus
            .as_ref()
            .is_some_and(|f| f.bench_targets.as_ref().is_some_and(|t| !t.is_empty()));
        let missed = match &outcome {
            Ok(outcome) => plan.ids.is_some_and(|ids| misses(&outcome.report, ids)),
            Err(Error::NothingToRun(_)) => true,
            Err(_) => false,
        };
        if !(narrowed && missed) || crate::util::interrupt::interrupted() {
            return outcome.map(|o| o.report);
        }
        progress.finish_bar();
        progress.note(&format!(
            "step {}: a benchmark searched is not in the bench target(s) that held it between \
             GOOD and BAD; measuring the step again with every bench target built",
            plan.number
        ));
        if let Some(focus) = focus.as_mut() {
            focus.bench_targets = None;
        }
        let _ = std::fs::remove_file(samples);
        let request = self.run_request(plan, focus.as_ref(), attempt, samples);
        run::run_locked(&request, self.lock, progress).map(|o| o.report)
    }

    /// A step that ended in an error: a skipped commit when `head` does not build or lacks the
    /// benchmarks, the error otherwise.
    fn unmeasured(
        &self,
        error: Error,
        (number, kind, level): (usize, StepKind, (f64, f64)),
        head: &CommitInfo,
        started: Instant,
    ) -> Result<StepRecord> {
        if interrupted_meanwhile() {
            // A build stopped by Ctrl-C fails too: that is no reason to skip the commit.
            return Err(BisectError::Interrupted {
                dir: self.dir.to_path_buf(),
            });
        }
        let reason = match &error {
            Error::Build(BuildError::Failed {
                revision,
                diagnostics,
                ..
            }) if revision.starts_with("base") => {
                return Err(BisectError::GoodDoesNotBuild {
                    good: self.request.good.clone(),
                    reason: build_failure(diagnostics),
                });
            }
            Error::Build(BuildError::Failed { diagnostics, .. }) => build_failure(diagnostics),
            Error::NothingToRun(message) if kind == StepKind::Search => message.clone(),
            Error::Interrupted { .. } => {
                return Err(BisectError::Interrupted {
                    dir: self.dir.to_path_buf(),
                });
            }
            _ => return Err(error.into()),
        };
        Ok(StepRecord {
            number,
            kind,
            head: head.clone(),
            benchmarks: Vec::new(),
            skipped: Some(reason),
            alpha: level.0,
            confidence: level.1,
            samples: None,
            wall_ms: started.elapsed().as_millis() as u64,
        })
    }
}

/// Counts the benchmarks the user's filters select (both commits built and listed, nothing
/// measured): the confirmation's share of the error budget depends on it.
fn count_selected(ctx: &StepContext<'_>, progress: &mut Progress) -> Result<usize> {
    let bad = ctx.request.bad.clone();
    let request = RunRequest {
        revisions: vec![ctx.good.sha.clone(), bad.clone()],
        settings: ctx.settings.clone(),
        keep_builds: true,
        ..ctx.request.template.clone()
    };
    let listed = run::list_locked(&request, ctx.lock, progress);
    if listed.is_err() && interrupted_meanwhile() {
        return Err(BisectError::Interrupted {
            dir: ctx.dir.to_path_buf(),
        });
    }
    match listed {
        Ok(listed) => {
            progress.finish_bar();
            Ok(listed
                .matched
                .iter()
                .filter(|m| m.presence == crate::model::samples::Presence::Both)
                .count())
        }
        Err(Error::Build(BuildError::Failed {
            revision,
            diagnostics,
            ..
        })) if revision.starts_with("base") => Err(BisectError::GoodDoesNotBuild {
            good: ctx.request.good.clone(),
            reason: build_failure(&diagnostics),
        }),
        Err(Error::Build(BuildError::Failed { diagnostics, .. })) => {
            Err(BisectError::BadDoesNotBuild {
                bad,
                reason: build_failure(&diagnostics),
            })
        }
        Err(error) => Err(error.into()),
    }
}

/// Whether `report` lacks a verdict between the two commits for one of `ids`: it is absent, or
/// on one side only.
fn misses(report: &Report, ids: &[String]) -> bool {
    ids.iter().any(|id| {
        !report
            .benchmarks
            .iter()
            .any(|b| &b.id == id && !matches!(b.verdict, Outcome::OnlyInBase | Outcome::OnlyInHead))
    })
}

/// What a search step for `ids` builds and follows: the bench targets that held them at the
/// confirmation (its samples file says which) and those of any benchmark with the same
/// criterion id (with them present, the ids are qualified as they were), no bench target for a
/// command; every bench target when the file does not say. Only `ids` decide when a command
/// stops ([`Focus::records`]).
fn step_focus(confirm: &StepRecord, ids: &[String]) -> Focus {
    let file = confirm
        .samples
        .as_ref()
        .and_then(|path| SampleFile::load(Path::new(path)).ok());
    Focus {
        bench_targets: file.and_then(|file| targets_holding(&file, ids)),
        records: ids.to_vec(),
    }
}

/// The bench targets of `file` that hold `ids` (and the benchmarks that share their criterion
/// ids), sorted; `None` when a record does not name its target.
fn targets_holding(file: &SampleFile, ids: &[String]) -> Option<Vec<TargetKey>> {
    let is_command = |r: &&BenchmarkRecord| r.harness == Some(HarnessKind::Command);
    let criterion_id = |r: &BenchmarkRecord| r.criterion_id.clone().unwrap_or_else(|| r.id.clone());
    let mut targets = Vec::new();
    for id in ids {
        let record = file.benchmarks.iter().find(|r| &r.id == id)?;
        if is_command(&record) {
            continue;
        }
        let shared = criterion_id(record);
        let namesakes = file
            .benchmarks
            .iter()
            .filter(|r| !is_command(r) && criterion_id(r) == shared);
        for r in namesakes {
            targets.push(TargetKey::new(r.package.as_deref()?, r.target.as_deref()?));
        }
    }
    targets.sort();
    targets.dedup();
    Some(targets)
}

/// Takes the verdicts of `report` for the benchmarks not yet decided (a retry measures only the
/// inconclusive ones: the others keep the verdict of their own attempt), of `ids` only when the
/// step searches those (a command's other record is measured too, and not searched).
fn merge_verdicts(
    benchmarks: &mut Vec<StepBenchmark>,
    report: &Report,
    attempt: usize,
    ids: Option<&[String]>,
) {
    let searched = |id: &String| ids.is_none_or(|ids| ids.contains(id));
    for result in report.benchmarks.iter().filter(|r| searched(&r.id)) {
        let measured = StepBenchmark {
            id: result.id.clone(),
            verdict: result.verdict.as_str().to_string(),
            ratio: result.ratio.map(|r| [r.estimate, r.ci_low, r.ci_high]),
            threshold: result.threshold,
            forks: result.forks.base.max(result.forks.head),
            attempts: attempt + 1,
            same_code: result.same_code(),
        };
        match benchmarks.iter_mut().find(|b| b.id == result.id) {
            Some(known) if known.verdict == "inconclusive" => *known = measured,
            Some(_) => {}
            None if attempt == 0 => benchmarks.push(measured),
            None => {}
        }
    }
    if attempt == 0 {
        benchmarks.retain(|b| {
            report
                .benchmarks
                .iter()
                .any(|r| r.id == b.id && r.verdict != Outcome::OnlyInBase)
        });
    }
}

/// Lets the inconclusive benchmarks of a step's samples file run again: their stop record is
/// cleared, so a resumed run gives them more forks, and the file records the settings of that
/// attempt (`cargo perfdiff report` then analyses it as the attempt did).
fn reopen(samples: &Path, ids: &[String], settings: &Settings) -> Result<()> {
    let mut file = SampleFile::load(samples).map_err(Error::from)?;
    file.run.settings = serde_json::to_value(settings).ok();
    for record in &mut file.benchmarks {
        if ids.contains(&record.id) {
            record.stop = None;
        }
    }
    file.save(samples).map_err(Error::from)?;
    Ok(())
}

/// Removes a step's samples file left by another bisection of the same directory (another search
/// path after a change of settings): it records another pair of commits.
fn discard_other_comparison(samples: &Path, good: &str, head: &str) {
    let Ok(file) = SampleFile::load(samples) else {
        let _ = std::fs::remove_file(samples);
        return;
    };
    let commit = |info: &Option<crate::model::samples::RevisionInfo>| {
        info.as_ref()
            .and_then(|r| r.commit.clone())
            .unwrap_or_default()
    };
    if commit(&file.run.base) != good || commit(&file.run.head) != head {
        let _ = std::fs::remove_file(samples);
    }
}

fn state_path(dir: &Path) -> PathBuf {
    dir.join("state.json")
}

/// The finished steps of an earlier run of the same bisection, or none when there was none or it
/// ran with other settings (then its steps are discarded, with a note).
fn load_state(
    dir: &Path,
    request: &BisectRequest,
    good: &str,
    bad: &str,
    settings: &Settings,
    progress: &Progress,
) -> Result<State> {
    let fresh = State {
        schema: SCHEMA.to_string(),
        good: good.to_string(),
        bad: bad.to_string(),
        all_commits: request.all_commits,
        retries: request.retries,
        settings: serde_json::to_value(settings).unwrap_or_default(),
        steps: Vec::new(),
    };
    let path = state_path(dir);
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(fresh);
    };
    let old: State = match serde_json::from_str(&text) {
        Ok(old) => old,
        Err(e) => {
            // The state only saves measuring: one that cannot be read is measured again.
            progress.note(&format!(
                "cannot read the kept steps {} ({e}): starting afresh",
                path.display()
            ));
            remove_step_files(dir);
            return Ok(fresh);
        }
    };
    let same = old.schema == fresh.schema
        && old.good == fresh.good
        && old.bad == fresh.bad
        && old.all_commits == fresh.all_commits
        && old.retries == fresh.retries
        && old.settings == fresh.settings;
    if !same {
        progress.note(&format!(
            "the steps kept in {} were measured with other settings: starting afresh",
            dir.display()
        ));
        remove_step_files(dir);
        return Ok(fresh);
    }
    if !old.steps.is_empty() {
        progress.note(&format!(
            "resuming: {} finished step(s) kept in {}",
            old.steps.len(),
            dir.display()
        ));
    }
    Ok(old)
}

/// Whether Ctrl-C (or SIGTERM) came, given that a step just failed. Ctrl-C reaches cargo and
/// the interrupt handler's thread at once, so a build or `cargo metadata` can fail before the
/// handler has recorded the interrupt: on this error path, it gets a moment to.
pub fn interrupted_meanwhile() -> bool {
    if crate::util::interrupt::interrupted() {
        return true;
    }
    std::thread::sleep(std::time::Duration::from_millis(200));
    crate::util::interrupt::interrupted()
}

/// Removes the samples files of the steps of an earlier bisection (their settings differ).
fn remove_step_files(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with("step-") && name.ends_with(".json") {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

fn save_state(dir: &Path, state: &State) -> Result<()> {
    let path = state_path(dir);
    let text = serde_json::to_string_pretty(state).map_err(|e| BisectError::State {
        path: path.clone(),
        message: e.to_string(),
    })?;
    let partial = dir.join("state.json.partial");
    std::fs::write(&partial, text).map_err(|e| Error::io(&partial, e))?;
    std::fs::rename(&partial, &path).map_err(|e| Error::io(&path, e).into())
}

fn announce_confirmation(
    confirm: &StepRecord,
    changed: &[(String, Direction)],
    progress: &Progress,
) {
    if changed.is_empty() {
        progress.note("no selected benchmark changed between GOOD and BAD: nothing to bisect");
        return;
    }
    for (id, direction) in changed {
        let ratio = confirm
            .estimate_of(id)
            .map(|r| format!(" (×{r:.3})"))
            .unwrap_or_default();
        progress.note(&format!(
            "confirmed: {id} {} between GOOD and BAD{ratio}",
            render::direction_word(*direction)
        ));
    }
}

fn announce_step(step: &StepRecord, commits: usize, progress: &Progress) {
    let what = match &step.skipped {
        Some(reason) => format!("skipped ({reason})"),
        None => step
            .benchmarks
            .iter()
            .map(|b| format!("{} {}", b.id, b.verdict))
            .collect::<Vec<_>>()
            .join(", "),
    };
    progress.note(&format!(
        "step {}: {} of {commits} commits: {what}",
        step.number,
        step.head.short()
    ));
}

/// Every searched benchmark's answer, with the culprit's diff stat.
fn results(
    repo: &git2::Repository,
    search: &Search,
    history: &History,
    confirm: &StepRecord,
) -> Vec<BenchmarkResult> {
    search
        .targets()
        .iter()
        .map(|target| {
            let ratio = confirm
                .benchmarks
                .iter()
                .find(|b| b.id == target.id)
                .and_then(|b| b.ratio);
            let (candidates, culprit, unresolved) = match target.status() {
                Status::Culprit { commit } => (vec![*commit], Some(*commit), None),
                Status::Range {
                    candidates,
                    unresolved,
                } => (
                    candidates.clone(),
                    None,
                    Some(describe_unresolved(unresolved, history)),
                ),
                Status::Searching => (target.candidates(), None, Some("not finished".to_string())),
            };
            let culprit = culprit.map(|c| history.commits[c].clone());
            BenchmarkResult {
                id: target.id.clone(),
                direction: target.direction,
                diff_stat: culprit
                    .as_ref()
                    .and_then(|c| history::diff_stat(repo, &c.sha).ok()),
                culprit,
                candidates: candidates
                    .iter()
                    .map(|&c| history.commits[c].clone())
                    .collect(),
                unresolved,
                ratio,
            }
        })
        .collect()
}

fn describe_unresolved(unresolved: &Unresolved, history: &History) -> String {
    match unresolved {
        Unresolved::Inconclusive { commit } => format!(
            "the step measuring {} stayed inconclusive after every retry",
            history.commits[*commit].short()
        ),
        Unresolved::Skipped => {
            "the commits that could narrow it further cannot be measured".to_string()
        }
        Unresolved::Budget => "the search used its budget of decisions".to_string(),
    }
}

fn describe(commit: &CommitInfo) -> String {
    format!("{} {:?}", commit.short(), commit.subject)
}

fn subject_of(repo: &git2::Repository, sha: &str) -> String {
    git2::Oid::from_str(sha)
        .ok()
        .and_then(|id| repo.find_commit(id).ok())
        .and_then(|c| c.summary().ok().flatten().map(str::to_string))
        .unwrap_or_default()
}

fn short(sha: &str) -> &str {
    &sha[..sha.len().min(9)]
}

/// A build failure in one line: "does not build" and the compiler's first error.
fn build_failure(diagnostics: &str) -> String {
    match diagnostics
        .lines()
        .map(str::trim)
        .find(|line| line.starts_with("error"))
    {
        Some(error) => format!("does not build ({error})"),
        None => "does not build".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_are_evidence_in_the_confirmed_direction() {
        use Direction::*;
        use Evidence::*;
        assert_eq!(evidence_of("regressed", Regressed), Some(Present));
        assert_eq!(evidence_of("improved", Improved), Some(Present));
        assert_eq!(evidence_of("unchanged", Regressed), Some(Absent));
        // the other way is not the change searched for
        assert_eq!(evidence_of("improved", Regressed), Some(Absent));
        assert_eq!(evidence_of("inconclusive", Improved), Some(Inconclusive));
        assert_eq!(evidence_of("failed", Regressed), None);
        assert_eq!(evidence_of("only_in_base", Regressed), None);
    }

    #[test]
    fn a_step_selects_the_benchmark_an_instruction_record_counts() {
        let ids = [
            "hash/mix".to_string(),
            "hash/mix (instructions)".to_string(),
            "parse (x) (instructions)".to_string(),
        ];
        assert_eq!(step_filters(&ids), ["^hash/mix$", r"^parse \(x\)$"]);
    }

    #[test]
    fn the_error_budget_is_split_between_confirmation_and_search() {
        let settings = Settings {
            alpha: 0.01,
            confidence: 0.99,
            ..Settings::default()
        };
        // 3 selected benchmarks, 2 attempts: 12 parts of alpha for the confirmation.
        let (alpha, confidence) = confirm_level(&settings, 3, 2);
        assert!((alpha - 0.01 / 12.0).abs() < 1e-15);
        assert!((confidence - (1.0 - 0.01 / 12.0)).abs() < 1e-12);
        // 2 changed benchmarks with a budget of 12 decisions each: 48 parts for the search.
        let (alpha, _) = search_level(&settings, 2, 12);
        assert!((alpha - 0.01 / 48.0).abs() < 1e-15);
        // Summed over every decision that may be taken, the two halves make alpha.
        let total = 3.0 * 2.0 * confirm_level(&settings, 3, 2).0
            + 2.0 * 12.0 * search_level(&settings, 2, 12).0;
        assert!((total - 0.01).abs() < 1e-12);
    }

    #[test]
    fn a_search_step_asks_for_half_the_confirmed_change_or_the_threshold() {
        let settings = Settings {
            threshold: 0.02,
            ..Settings::default()
        };
        // 3x slower: the geometric midpoint is sqrt(3) = 1.732.
        let t = search_threshold(&settings, "a", Some(3.0));
        assert!((t - (3f64.sqrt() - 1.0)).abs() < 1e-12);
        // 0.25x: the midpoint is 0.5, half of it away from 1.
        assert!((search_threshold(&settings, "a", Some(0.25)) - 0.5).abs() < 1e-12);
        // +3 %: half of it is below the user's threshold, which stays.
        assert_eq!(search_threshold(&settings, "a", Some(1.03)), 0.02);
        assert_eq!(search_threshold(&settings, "a", None), 0.02);
        assert_eq!(search_threshold(&settings, "a", Some(f64::NAN)), 0.02);
    }

    #[test]
    fn a_recorded_step_is_replayed_for_the_same_commit_and_benchmarks_in_any_order() {
        let step = |ids: &[&str], skipped: Option<&str>| StepRecord {
            number: 2,
            kind: StepKind::Search,
            head: CommitInfo {
                sha: "abc".into(),
                subject: String::new(),
            },
            benchmarks: ids
                .iter()
                .map(|id| StepBenchmark {
                    id: id.to_string(),
                    verdict: "unchanged".into(),
                    ratio: None,
                    threshold: 0.02,
                    forks: 2,
                    attempts: 1,
                    same_code: false,
                })
                .collect(),
            skipped: skipped.map(str::to_string),
            alpha: 0.01,
            confidence: 0.99,
            samples: None,
            wall_ms: 0,
        };
        let asked = ["b".to_string(), "a".to_string()];
        assert!(replays(&step(&["a", "b"], None), "abc", &asked));
        assert!(!replays(&step(&["a"], None), "abc", &asked));
        assert!(!replays(&step(&["a", "b"], None), "abd", &asked));
        assert!(replays(&step(&[], Some("does not build")), "abc", &asked));
    }

    #[test]
    fn a_step_without_one_of_its_benchmarks_skips_the_commit() {
        let changed = vec![("a".to_string(), Direction::Regressed)];
        let mut search = Search::new(search::Range::linear(6), changed.clone(), 10);
        let probe = search.next_probe().unwrap();
        let step = StepRecord {
            number: 2,
            kind: StepKind::Search,
            head: CommitInfo {
                sha: "abc".into(),
                subject: String::new(),
            },
            benchmarks: Vec::new(),
            skipped: None,
            alpha: 0.01,
            confidence: 0.99,
            samples: None,
            wall_ms: 0,
        };
        apply_step(&mut search, &probe, &step, &changed);
        assert_eq!(search.skipped(), vec![probe.commit]);
        // The search moves on to another commit instead of asking for the same one again.
        assert_ne!(search.next_probe().map(|p| p.commit), Some(probe.commit));
    }

    fn record(
        id: &str,
        target: Option<(&str, &str)>,
        criterion_id: Option<&str>,
    ) -> BenchmarkRecord {
        let mut file = SampleFile::new(Default::default());
        let record = file.benchmark_mut(id, crate::model::samples::Presence::Both);
        record.package = target.map(|(p, _)| p.to_string());
        record.target = target.map(|(_, t)| t.to_string());
        record.criterion_id = criterion_id.map(str::to_string);
        record.harness = Some(match target {
            Some(_) => HarnessKind::Criterion,
            None => HarnessKind::Command,
        });
        record.clone()
    }

    #[test]
    fn a_step_builds_the_targets_that_held_its_benchmarks_and_none_for_a_command() {
        let mut file = SampleFile::new(Default::default());
        file.benchmarks = vec![
            record("parse", None, None),
            record("parse (peak memory)", None, None),
            record("hash/mix", Some(("core", "hash")), None),
            record("io/read", Some(("core", "io")), None),
            // One criterion id in two targets: qualified, and both needed to stay so.
            record("kern::a_mix", Some(("core", "kern")), Some("a_mix")),
            record("kern2::a_mix", Some(("core", "kern2")), Some("a_mix")),
        ];
        let targets = |file: &SampleFile, ids: &[&str]| {
            let ids: Vec<String> = ids.iter().map(|i| i.to_string()).collect();
            targets_holding(file, &ids).map(|keys| {
                keys.into_iter()
                    .map(|k| format!("{}/{}", k.package, k.target))
                    .collect::<Vec<_>>()
            })
        };
        assert_eq!(targets(&file, &["parse"]), Some(Vec::new()));
        assert_eq!(
            targets(&file, &["parse (peak memory)", "hash/mix"]),
            Some(vec!["core/hash".into()])
        );
        assert_eq!(
            targets(&file, &["kern::a_mix"]),
            Some(vec!["core/kern".into(), "core/kern2".into()])
        );
        // A record that does not say (or is not there): every target.
        assert_eq!(targets(&file, &["gone"]), None);
        file.benchmarks.push(record("old", None, None));
        file.benchmarks.last_mut().unwrap().harness = None;
        assert_eq!(targets(&file, &["old"]), None);
    }

    #[test]
    fn a_step_keeps_the_verdicts_of_the_records_it_searches_only() {
        let report = |verdicts: &[(&str, Outcome)]| {
            let empty = SampleFile::new(Default::default());
            let mut report =
                crate::steps::analysis::analyse(&empty, &(&Settings::default()).into(), 0);
            for (id, verdict) in verdicts {
                let mut result = crate::steps::analysis::BenchmarkResult::new(id, 0.02);
                result.verdict = *verdict;
                report.benchmarks.push(result);
            }
            report
        };
        let ids = vec!["parse".to_string()];
        let mut benchmarks = Vec::new();
        let first = report(&[
            ("parse", Outcome::Regressed),
            ("parse (peak memory)", Outcome::Inconclusive),
        ]);
        merge_verdicts(&mut benchmarks, &first, 0, Some(&ids));
        assert_eq!(benchmarks.len(), 1);
        assert_eq!(benchmarks[0].verdict, "regressed");
        // The confirmation keeps every record.
        let mut all = Vec::new();
        merge_verdicts(&mut all, &first, 0, None);
        assert_eq!(all.len(), 2);
        assert!(misses(&first, &["absent".to_string()]));
        assert!(!misses(&first, &ids));
        assert!(misses(&report(&[("parse", Outcome::OnlyInHead)]), &ids));
    }

    #[test]
    fn layouts_are_pinned_so_retries_reuse_the_builds() {
        let settings = Settings {
            layouts: 10,
            max_forks: 4,
            fdr: true,
            ..Settings::default()
        };
        let pinned = pinned_settings(&settings);
        assert_eq!(pinned.layouts, 4);
        assert!(!pinned.fdr);
    }
}
