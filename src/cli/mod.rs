//! The command line: parses arguments, layers them over the configuration files, calls the
//! library, prints the report and turns the outcome into an exit code.
//!
//! Invoked as `cargo perfdiff …` cargo passes `perfdiff` as the first argument; as
//! `cargo-perfdiff …` it does not. Both work.

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Args, Parser, Subcommand};

pub mod error;
pub mod replay;
mod values;

#[cfg(test)]
mod help_snapshot;

use crate::config::{self, FailOn, Mode, PartialSettings, StopRule};
use crate::model::samples::{Presence, SampleFile};
use crate::orchestrate::demo::DemoHarness;
use crate::orchestrate::error::Error;
use crate::orchestrate::run::{self, RunRequest};
use crate::steps::progress::{Progress, Style};
use crate::steps::report::{self, Format};
use crate::steps::schedule::Shard;
use crate::util::exit_code;
use error::CliError;

/// Examples under `-h`: the common commands, one line each.
const EXAMPLES: &str = "\
Examples:
  cargo perfdiff                     your uncommitted edit against HEAD
  cargo perfdiff HEAD~1 HEAD         the last commit
  cargo perfdiff main...HEAD -- io/  this branch; benchmarks matching io/
Exit codes: 0 no regression, 1 regression, 2 error (all of them: --help).";

/// Under `--help`: the revisions, the examples and every exit code.
const LONG_AFTER_HELP: &str = "\
Revisions work like `git diff`: none compares HEAD with the working tree (uncommitted changes \
included), one compares REV with the working tree, `A B` or `A..B` compares A with B, and \
`A...B` compares merge-base(A, B) with B.

Examples:
  cargo perfdiff                                 your uncommitted edit against HEAD
  cargo perfdiff HEAD~1 HEAD                     the last commit
  cargo perfdiff main...HEAD -- io/              this branch; benchmarks matching io/
  cargo perfdiff --list                          what a run would measure, and its time
  cargo perfdiff --mode duet --format markdown   on a shared CI runner, for a PR comment
  cargo perfdiff --metric instructions           instruction counts under valgrind: no noise
  cargo perfdiff demo                            a demo with a known regression
  cargo perfdiff --shard 1/3                     a third of a large suite (merge: report)
  cargo perfdiff report target/perfdiff/runs/*.json --format json
  cargo perfdiff --calibrate                     this machine's noise floor
  cargo perfdiff bisect v1.4 HEAD -- io/         the commit that changed io/ benchmarks
  cargo perfdiff completions bash > ~/.local/share/bash-completion/completions/cargo-perfdiff

Exit codes: 0 no regression (or --fail-on never), 1 regression, 2 error, 3 inconclusive or \
failed (--fail-on inconclusive), 4 improved (--fail-on any-change), 130 interrupted (the \
samples are kept: --resume).

Settings also come from [workspace.metadata.perfdiff], [package.metadata.perfdiff] or \
perfdiff.toml (--print-config shows where each came from). Documentation: README.md and docs/.";

/// Did this change make my code slower? Statistical A/B benchmark comparison
///
/// Builds the benchmarks of two git revisions, runs them interleaved (or side by side on two
/// pinned CPUs), stops as soon as the answer is clear, and gives every benchmark a verdict:
/// regressed, improved, unchanged or inconclusive.
#[derive(Debug, Parser)]
#[command(
    name = "cargo-perfdiff",
    bin_name = "cargo perfdiff",
    version,
    args_conflicts_with_subcommands = true,
    after_help = EXAMPLES,
    after_long_help = LONG_AFTER_HELP
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub compare: CompareArgs,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Re-analyse samples files without measuring
    ///
    /// Several files (the shards of one run) are merged into one report.
    Report(ReportArgs),
    /// Replay stop rules on a recorded samples file
    ///
    /// The file should be recorded with a generous fixed configuration (`--stop fixed --forks
    /// 20`); --max-forks is at most the recording's rounds.
    Replay(replay::ReplayArgs),
    /// Compare two commits of a demo with a known regression
    ///
    /// The demo is a throwaway git repository whose second commit makes one benchmark 10 %
    /// slower, one 3 % slower and one 20 % faster, leaves one unchanged and adds one.
    Demo(DemoArgs),
    /// Find the commit between GOOD and BAD that changed the benchmarks
    ///
    /// Confirms the change between GOOD and BAD, then measures commits against GOOD with a
    /// comparison's rounds, stop rule and verdicts until each changed benchmark has its first
    /// changed commit. Exit codes: 0 every change has its culprit, 5 a change was narrowed to a
    /// range only, 6 no change between GOOD and BAD was confirmed, 2 error, 130 interrupted (run
    /// the same command again to resume). Guarantee and `git bisect run`: docs/bisect.md.
    Bisect(Box<BisectArgs>),
    /// Print a shell completion script
    ///
    /// The script completes `cargo-perfdiff`, the name cargo runs for `cargo perfdiff`. Bash:
    /// `cargo perfdiff completions bash > ~/.local/share/bash-completion/completions/cargo-perfdiff`;
    /// zsh: into a directory of your `fpath` as `_cargo-perfdiff`; fish: `cargo perfdiff
    /// completions fish > ~/.config/fish/completions/cargo-perfdiff.fish`.
    Completions(CompletionsArgs),
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// The limits and parameters of a stop rule, shared by measuring and `replay` so that both speak
/// of a rule in the same words.
#[derive(Debug, Args, Default, Clone, PartialEq)]
pub struct StopLimitArgs {
    /// Rounds always run before a stop rule may stop [default: 2 under decided, whose look at two
    /// forks decides only large changes; 3 under cv, rciw and kld]
    #[arg(long, hide_short_help = true)]
    pub min_forks: Option<usize>,
    /// Rounds after which a benchmark stops whatever its rule says [default: 10]
    #[arg(long, hide_short_help = true)]
    pub max_forks: Option<usize>,
    /// Threshold of the stop rule [default: the rule's published value]
    #[arg(long, hide_short_help = true)]
    pub stop_threshold: Option<f64>,
    /// Sliding window of the stop rules [default: 5]
    #[arg(long, hide_short_help = true)]
    pub window: Option<usize>,
}

impl From<StopLimitArgs> for crate::orchestrate::replay::StopLimits {
    fn from(args: StopLimitArgs) -> Self {
        crate::orchestrate::replay::StopLimits {
            min_forks: args.min_forks,
            max_forks: args.max_forks,
            stop_threshold: args.stop_threshold,
            window: args.window,
        }
    }
}

/// Which workspace and which of its packages are benchmarked.
#[derive(Debug, Args, Default, Clone)]
pub struct PackageArgs {
    /// Cargo.toml to benchmark, e.g. bench/Cargo.toml
    ///
    /// The package or workspace whose benchmarks are compared, as `cargo bench --manifest-path`
    /// takes it: a workspace member's manifest builds that member. [default: found from the
    /// current directory, as cargo does]
    #[arg(long, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,
    /// Package(s) to benchmark (names or globs)
    #[arg(long, short = 'p', value_name = "SPEC")]
    pub package: Vec<String>,
}

/// Which bench targets are built, with which features.
#[derive(Debug, Args, Default, Clone)]
pub struct BenchTargetArgs {
    /// Only this bench target (repeatable)
    #[arg(long, value_name = "NAME")]
    pub bench: Vec<String>,
    /// Features to activate (comma or space separated, repeatable)
    #[arg(long, short = 'F', hide_short_help = true)]
    pub features: Vec<String>,
    /// Activate all features
    #[arg(long, hide_short_help = true)]
    pub all_features: bool,
    /// Do not activate the `default` feature
    #[arg(long, hide_short_help = true)]
    pub no_default_features: bool,
}

/// Interleaved or duet.
#[derive(Debug, Args, Default, Clone)]
pub struct ModeArgs {
    /// interleaved (default), or duet on two pinned CPUs
    ///
    /// `interleaved`: forks of base and head alternate in random order; `duet`: base and head
    /// run at the same time, each pinned to its own CPU, so that noise from outside hits both
    /// (recommended on shared CI runners).
    #[arg(long, value_enum, hide_possible_values = true)]
    pub mode: Option<Mode>,
}

/// How benchmarks are measured: the metric, code layouts, the stop rule and its limits, and
/// each fork.
#[derive(Debug, Args, Default, Clone)]
pub struct MeasuringArgs {
    #[command(flatten)]
    pub metric: MetricArgs,
    /// Code layouts per revision that forks are spread over: cargo's build and LAYOUTS − 1 relinks
    /// with the functions in other orders, shared by base and head; 1 measures cargo's build
    /// alone [default: 10]
    #[arg(long, value_name = "N", hide_short_help = true)]
    pub layouts: Option<usize>,
    /// When to stop adding forks [default: decided]
    #[arg(long, value_enum, hide_short_help = true)]
    pub stop: Option<StopRule>,
    /// Rounds of forks with --stop fixed; alone, it means --stop fixed (with another rule, cap it
    /// with --max-forks) [default: 10]
    #[arg(long, hide_short_help = true)]
    pub forks: Option<usize>,
    #[command(flatten)]
    pub stop_limits: StopLimitArgs,
    /// Criterion warm-up time of the first fork, in seconds; later forks adapt it [default: 0.1]
    #[arg(long, value_name = "SECS", value_parser = parse_seconds, hide_short_help = true)]
    pub warm_up_time: Option<f64>,
    /// Criterion measurement time of every fork, in seconds (criterion 0.3 rounds it up to whole
    /// seconds). Unset, forks measure 0.5 s for two rounds, then each benchmark's the length its
    /// noise between and within forks asks for (docs/stopping.md)
    #[arg(long, value_name = "SECS", value_parser = parse_seconds, hide_short_help = true)]
    pub measurement_time: Option<f64>,
    /// Criterion samples per fork, at least 10 [default: 30]
    #[arg(long, hide_short_help = true)]
    pub sample_size: Option<usize>,
    /// Kill a fork running longer than this and report the benchmark failed; a bench target's
    /// listing of its benchmarks gets as long [default: 300]
    #[arg(long, value_name = "SECS", hide_short_help = true)]
    pub fork_timeout: Option<f64>,
}

/// What is measured: wall time, instructions, or both, and the functions behind a change.
#[derive(Debug, Args, Default, Clone)]
pub struct MetricArgs {
    /// time (default), instructions, or time,instructions
    ///
    /// `instructions` counts every benchmark's and command's instructions per iteration under
    /// valgrind (records `ID (instructions)`): blind to noise, so a 0.5 % change is found in a
    /// few rounds on a busy runner, but blind to caches, branch prediction and I/O too
    /// (docs/instructions.md). Needs valgrind.
    #[arg(long, value_name = "METRICS")]
    pub metric: Option<config::Metrics>,
    /// Name the functions behind every change: count the instructions of each benchmark whose
    /// time changed, by function, under valgrind (always so with --metric instructions)
    #[arg(long, hide_short_help = true)]
    pub explain: bool,
    /// Measure every benchmark, also those that execute the same code on both sides
    ///
    /// By default each benchmark is traced once under valgrind before any timing, and one whose
    /// executed functions, the data they reach and the files it reads are the same on both
    /// sides is `unchanged` (same code) without a fork (docs/selection.md).
    #[arg(
        long,
        env = "CARGO_PERFDIFF_MEASURE_ALL",
        value_parser = clap::builder::FalseyValueParser::new(),
        hide_env_values = true,
        hide_short_help = true
    )]
    pub measure_all: bool,
    /// Whether clap took `measure_all` from [`MEASURE_ALL_VARIABLE`] rather than the flag, so
    /// that `--print-config` names the variable as its source ([`parse`]).
    #[arg(skip)]
    pub measure_all_from_env: bool,
}

/// The environment variable that sets `--measure-all` (clap's `env` above).
pub const MEASURE_ALL_VARIABLE: &str = "CARGO_PERFDIFF_MEASURE_ALL";

/// The smallest change that matters.
#[derive(Debug, Args, Default, Clone)]
pub struct ThresholdArgs {
    /// Smallest change that matters [default: 0.02]
    ///
    /// Relative: 0.02 is 2 %. Changes smaller than this are not relevant; `unchanged` means
    /// the whole interval lies within ±threshold.
    #[arg(long, value_name = "FRACTION")]
    pub threshold: Option<f64>,
    /// Smallest change of an instruction count that matters [default: 0.002]
    #[arg(long, value_name = "FRACTION", hide_short_help = true)]
    pub instructions_threshold: Option<f64>,
}

/// Settings shared by measuring and re-analysing.
#[derive(Debug, Args, Default, Clone)]
pub struct AnalysisArgs {
    #[command(flatten)]
    pub threshold: ThresholdArgs,
    /// Significance level of the paired test that decides, after false-discovery control; the
    /// printed interval is at 1 − alpha [default: 0.01]
    #[arg(long, hide_short_help = true)]
    pub alpha: Option<f64>,
    /// Level of each of the two one-sided tests that call a benchmark `unchanged`: its
    /// 1 − 2 × this interval must lie inside ±threshold [default: 0.05, a 90 % interval]
    #[arg(long, hide_short_help = true)]
    pub equivalence_alpha: Option<f64>,
    /// Confidence level of the bootstrap of the ratio of means (information) [default: 0.99]
    #[arg(long, hide_short_help = true)]
    pub confidence: Option<f64>,
    /// Bootstrap resamples [default: 10000]
    #[arg(long, hide_short_help = true)]
    pub resamples: Option<usize>,
    /// Disable Benjamini–Hochberg false discovery rate control across the suite
    #[arg(long, hide_short_help = true)]
    pub no_fdr: bool,
    /// Seed for every random choice (fork order, bootstrap); recorded in the samples file
    #[arg(long, hide_short_help = true)]
    pub seed: Option<u64>,
    /// When to exit non-zero [default: regression]
    ///
    /// `regression` (default) exits 1 when a benchmark regressed; `inconclusive` also exits 3
    /// when one is inconclusive or failed; `any-change` also exits 4 when one improved; `never`
    /// exits 0 unless the tool itself failed.
    #[arg(long, value_enum, value_name = "GATE", hide_possible_values = true)]
    pub fail_on: Option<FailOn>,
}

/// Where and how the report is written.
#[derive(Debug, Args, Default, Clone)]
pub struct OutputArgs {
    /// Report format: table (default), json or markdown
    ///
    /// `table` for the terminal (fitted to its width), `json` for scripts (schema in
    /// docs/reports.md), `markdown` for a pull-request comment or `$GITHUB_STEP_SUMMARY`.
    #[arg(
        long,
        value_enum,
        default_value = "table",
        hide_default_value = true,
        hide_possible_values = true
    )]
    pub format: Format,
    /// Write the report to FILE instead of stdout
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Also write an HTML page with plots to FILE
    ///
    /// The page is self-contained: every benchmark's distributions and its ratio CI against the
    /// threshold band, no JavaScript, nothing loaded from elsewhere.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Print only errors and the report
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Print a line per fork
    #[arg(long, short = 'v', conflicts_with = "quiet", hide_short_help = true)]
    pub verbose: bool,
}

#[derive(Debug, Args, Default)]
pub struct CompareArgs {
    /// Revisions to compare: none, REV, A B, A..B or A...B
    ///
    /// As `git diff` takes them: none compares HEAD with the working tree, REV compares REV
    /// with the working tree, `A B` or `A..B` compares A with B, `A...B` compares merge-base(A,
    /// B) with B.
    #[arg(value_name = "REVISION", num_args = 0..=2)]
    pub revisions: Vec<String>,
    /// Only benchmarks whose id matches one of these regexes
    ///
    /// As criterion takes them: a plain substring such as `hash/` works.
    #[arg(last = true, value_name = "FILTER")]
    pub filters: Vec<String>,

    #[command(flatten)]
    pub packages: PackageArgs,
    /// Benchmark every member of the workspace [default: cargo's default members, which in a
    /// workspace whose root is a package is the root alone]
    #[arg(long, conflicts_with = "package", hide_short_help = true)]
    pub workspace: bool,
    /// With --workspace: leave out these members (names or globs, repeatable)
    #[arg(
        long,
        value_name = "SPEC",
        requires = "workspace",
        hide_short_help = true
    )]
    pub exclude: Vec<String>,
    #[command(flatten)]
    pub targets: BenchTargetArgs,
    /// Copy PATH (a file or directory of your working tree that git ignores or never held, such
    /// as downloaded benchmark data) into both revisions' checkouts (repeatable)
    #[arg(long, value_name = "PATH", hide_short_help = true)]
    pub copy_untracked: Vec<PathBuf>,

    #[command(flatten)]
    pub mode: ModeArgs,
    /// The two CPUs of duet mode, e.g. 2,3 [default: the first two this process may use]
    #[arg(long, value_name = "A,B", value_parser = parse_cpus, hide_short_help = true)]
    pub cpus: Option<[usize; 2]>,
    /// Stay in duet mode when a round's forks show the two CPUs shared (they waited for a CPU
    /// 2 % of their time or more) [default: the remaining rounds run interleaved]
    #[arg(long, hide_short_help = true)]
    pub keep_duet: bool,
    #[command(flatten)]
    pub measuring: MeasuringArgs,
    /// Also compare a program: NAME='{bin}/prog args'
    ///
    /// Repeatable. `{bin}` in COMMAND is the revision's directory of built programs (`cargo build
    /// --release`), `{root}` its checkout: `--cmd parse='{bin}/mycli parse data/in.json'`. Each
    /// execution is measured from outside, wall time and peak memory, and each gets a verdict
    /// (docs/commands.md). Replaces the `[[command]]` tables of the configuration.
    #[arg(long = "cmd", value_name = "NAME=COMMAND", value_parser = parse_command)]
    pub commands: Vec<config::CommandSpec>,
    /// Compare the commands alone, not the benchmarks
    #[arg(long, hide_short_help = true)]
    pub commands_only: bool,
    /// Cargo profile the programs of commands are built with [default: release]
    #[arg(long, value_name = "NAME", hide_short_help = true)]
    pub profile: Option<String>,
    /// Measure share K of N of the benchmarks
    ///
    /// A deterministic share, for a suite split over N machines; `cargo perfdiff report` merges
    /// the shards' samples files into one report.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<Shard>,
    /// Continue an interrupted run from its samples file
    #[arg(long, value_name = "FILE", hide_short_help = true)]
    pub resume: Option<PathBuf>,
    /// Where to write the samples file [default: target/perfdiff/runs/TIME-BASE-HEAD.json]
    #[arg(long, value_name = "FILE", hide_short_help = true)]
    pub samples: Option<PathBuf>,
    /// Measure each benchmark against itself (HEAD vs HEAD) and print its noise floor
    #[arg(long, hide_short_help = true)]
    pub calibrate: bool,
    /// Print the effective settings and where each came from, then exit
    #[arg(long, hide_short_help = true)]
    pub print_config: bool,
    /// List what a run would measure; measure nothing
    ///
    /// Builds both revisions, lists the benchmarks a comparison would measure (after filters,
    /// the ignore list and --shard) with the forks and time a run would take, and exits.
    #[arg(long, conflicts_with_all = ["resume", "samples", "html"])]
    pub list: bool,

    /// Exit as `git bisect run` expects: 0 good, 1 bad (the --fail-on gate failed), 125 skip
    /// (head does not build, or nothing failed the gate but something was inconclusive), 128 any
    /// other error (stops `git bisect run`)
    #[arg(long, hide_short_help = true, conflicts_with_all = ["list", "calibrate", "print_config"])]
    pub git_bisect: bool,

    #[command(flatten)]
    pub analysis: AnalysisArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `cargo perfdiff bisect GOOD BAD`: the measuring options of a comparison, minus those that make
/// no sense across many commits (shards, resuming a file, listing, calibrating, the gate).
#[derive(Debug, Args)]
pub struct BisectArgs {
    /// The last commit known good (the older end)
    #[arg(value_name = "GOOD")]
    pub good: String,
    /// A commit known bad, a descendant of GOOD (the newer end)
    #[arg(value_name = "BAD")]
    pub bad: String,
    /// Only benchmarks whose id matches one of these regexes
    #[arg(last = true, value_name = "FILTER")]
    pub filters: Vec<String>,
    /// Search every commit of GOOD..BAD, those of merged branches too [default: BAD's
    /// first-parent line, a merge counted as one commit]
    #[arg(long)]
    pub all_commits: bool,
    /// Times an inconclusive step is measured again, each time with twice the forks
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub retries: usize,

    #[command(flatten)]
    pub packages: PackageArgs,
    #[command(flatten)]
    pub targets: BenchTargetArgs,
    #[command(flatten)]
    pub mode: ModeArgs,
    #[command(flatten)]
    pub measuring: MeasuringArgs,
    #[command(flatten)]
    pub analysis: BisectAnalysisArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// The analysis options of a bisection: alpha and the CI level are shared out over its
/// decisions, so they are its own options; the threshold is a comparison's.
#[derive(Debug, Args, Default, Clone)]
pub struct BisectAnalysisArgs {
    #[command(flatten)]
    pub threshold: ThresholdArgs,
    /// Chance that any culprit or range named is wrong, shared out over every decision
    /// (docs/bisect.md) [default: 0.01]
    #[arg(long)]
    pub alpha: Option<f64>,
    /// Confidence level of the ratio CI, shared out like alpha [default: 0.99]
    #[arg(long, hide_short_help = true)]
    pub confidence: Option<f64>,
    /// Bootstrap resamples [default: 10000]
    #[arg(long, hide_short_help = true)]
    pub resamples: Option<usize>,
    /// Seed for every random choice (fork order, bootstrap)
    #[arg(long, hide_short_help = true)]
    pub seed: Option<u64>,
}

impl BisectArgs {
    /// The comparison options every step runs with.
    fn comparison(&self) -> CompareArgs {
        CompareArgs {
            filters: self.filters.clone(),
            packages: self.packages.clone(),
            targets: self.targets.clone(),
            mode: self.mode.clone(),
            measuring: self.measuring.clone(),
            analysis: self.analysis.comparison(),
            output: self.output.clone(),
            ..CompareArgs::default()
        }
    }
}

impl BisectAnalysisArgs {
    /// The analysis options of each step's comparison.
    fn comparison(&self) -> AnalysisArgs {
        AnalysisArgs {
            threshold: self.threshold.clone(),
            alpha: self.alpha,
            confidence: self.confidence,
            resamples: self.resamples,
            seed: self.seed,
            ..AnalysisArgs::default()
        }
    }
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Samples files (perfdiff-samples/1); several are merged (e.g. shards)
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub analysis: AnalysisArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Where to create the demo repository [default: a fresh temporary directory]
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Criterion version of the demo crate (0.5; 0.3, 0.4 and 0.8 also work)
    #[arg(long, default_value = "0.5")]
    pub criterion: String,
    /// Benchmark harness of the demo crate (libtest needs `cargo +nightly perfdiff demo`; mixed is
    /// a workspace with one member per harness)
    #[arg(long, value_enum, default_value_t = DemoHarness::Criterion)]
    pub harness: DemoHarness,
    /// Compare a program from the outside instead (commands, docs/commands.md): `democli hash`
    /// does 1.2x the work in head, `democli table` fills twice the memory, `democli steady` is
    /// unchanged
    #[arg(long, conflicts_with_all = ["harness", "criterion"])]
    pub program: bool,
    #[command(flatten)]
    pub metric: MetricArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// A warm-up or measurement time in seconds, as criterion's flags take it: a finite number of at
/// least a millisecond (the settings keep milliseconds, and criterion rejects a zero duration).
fn parse_seconds(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(seconds) if seconds.is_finite() && seconds >= 0.001 => Ok(seconds),
        _ => Err(format!(
            "expected a number of seconds, at least 0.001, got {text:?}"
        )),
    }
}

fn parse_command(text: &str) -> Result<config::CommandSpec, String> {
    config::CommandSpec::from_cli(text).map_err(|e| e.to_string())
}

fn parse_cpus(text: &str) -> Result<[usize; 2], String> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    match parts.as_slice() {
        [a, b] => {
            let a: usize = a.parse().map_err(|_| format!("invalid CPU {a:?}"))?;
            let b: usize = b.parse().map_err(|_| format!("invalid CPU {b:?}"))?;
            if a == b {
                return Err("the two CPUs must differ".to_string());
            }
            Ok([a, b])
        }
        _ => Err(format!("expected two CPUs like 0,1, got {text:?}")),
    }
}

/// `args` parsed as [`Parser::try_parse_from`] does, noting which settings clap read from the
/// environment rather than the command line (`--print-config` tells them apart).
pub fn parse(args: Vec<OsString>) -> Result<Cli, clap::Error> {
    use clap::{CommandFactory, FromArgMatches, parser::ValueSource};
    let mut command = Cli::command();
    let mut matches = command.try_get_matches_from_mut(args)?;
    // Asked first: reading the matches into `Cli` takes their values out.
    let from_env = matches.value_source("measure_all") == Some(ValueSource::EnvVariable);
    let mut cli = Cli::from_arg_matches_mut(&mut matches).map_err(|e| e.format(&mut command))?;
    cli.compare.measuring.metric.measure_all_from_env = from_env;
    Ok(cli)
}

/// Entry point of the binary; returns the process exit code.
pub fn main() -> i32 {
    let cli = match parse(cargo_args(std::env::args_os())) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                exit_code::ERROR
            } else {
                exit_code::OK
            };
        }
    };
    install_interrupt_handler();
    match dispatch(cli) {
        Ok(code) => code,
        // An interrupt while building shows up as a failed cargo; say what really happened.
        Err(e) if crate::util::interrupt::interrupted() && !e.is_interrupt() => {
            eprintln!("error: interrupted before any fork of this run was measured");
            exit_code::INTERRUPTED
        }
        Err(e) => {
            eprintln!("error: {e}");
            e.exit_code()
        }
    }
}

/// Drops the `perfdiff` that cargo inserts when run as `cargo perfdiff`.
fn cargo_args(args: impl IntoIterator<Item = OsString>) -> Vec<OsString> {
    let mut args: Vec<OsString> = args.into_iter().collect();
    if args.get(1).is_some_and(|a| a == "perfdiff") {
        args.remove(1);
    }
    args
}

fn install_interrupt_handler() {
    // A second handler cannot be installed (tests call `main` once per process); ignore that.
    let _ = ctrlc::set_handler(crate::util::interrupt::request_interrupt);
}

fn dispatch(cli: Cli) -> Result<i32, CliError> {
    match cli.command {
        Some(Command::Report(args)) => Ok(report_command(args)?),
        Some(Command::Replay(args)) => Ok(replay::replay_command(&args)?),
        Some(Command::Demo(args)) => demo_command(args),
        Some(Command::Completions(args)) => Ok(completions_command(&args)?),
        Some(Command::Bisect(args)) => bisect_command(&args),
        None => Ok(compare_command(cli.compare)?),
    }
}

/// The command-line layer of the settings.
fn cli_layer(args: &CompareArgs) -> PartialSettings {
    let mut layer = analysis_layer(&args.analysis);
    layer.mode = args.mode.mode;
    layer.metric = args.measuring.metric.metric;
    layer.explain = args.measuring.metric.explain.then_some(true);
    let metric = &args.measuring.metric;
    // Set from the environment, it is a layer of its own ([`environment_layer`]).
    layer.measure_all = (metric.measure_all && !metric.measure_all_from_env).then_some(true);
    layer.stop = args.measuring.stop;
    layer.forks = args.measuring.forks;
    let StopLimitArgs {
        min_forks,
        max_forks,
        stop_threshold,
        window,
    } = args.measuring.stop_limits.clone();
    layer.min_forks = min_forks;
    layer.max_forks = max_forks;
    layer.stop_threshold = stop_threshold;
    layer.window = window;
    layer.warm_up_ms = args.measuring.warm_up_time.map(seconds_to_ms);
    layer.measurement_ms = args.measuring.measurement_time.map(seconds_to_ms);
    layer.sample_size = args.measuring.sample_size;
    layer.layouts = args.measuring.layouts;
    layer.fork_timeout_s = args.measuring.fork_timeout;
    layer.cpus = args.cpus;
    layer.keep_duet = args.keep_duet.then_some(true);
    if !args.commands.is_empty() {
        layer.commands = Some(args.commands.clone());
    }
    layer.profile = args.profile.clone();
    if !args.filters.is_empty() {
        layer.filters = Some(args.filters.clone());
    }
    if args.measuring.stop.is_none() && args.measuring.forks.is_some() {
        // `--forks N` alone means the fixed configuration.
        layer.stop = Some(StopRule::Fixed);
    }
    layer
}

/// The settings clap read from environment variables, as a layer named after the variable,
/// between the files and the command line: `CARGO_PERFDIFF_MEASURE_ALL`.
fn environment_layer(args: &CompareArgs) -> Option<(config::Source, PartialSettings)> {
    let metric = &args.measuring.metric;
    (metric.measure_all && metric.measure_all_from_env).then(|| {
        let source = config::Source::Environment {
            variable: MEASURE_ALL_VARIABLE.to_string(),
        };
        let layer = PartialSettings {
            measure_all: Some(true),
            ..PartialSettings::default()
        };
        (source, layer)
    })
}

fn analysis_layer(args: &AnalysisArgs) -> PartialSettings {
    PartialSettings {
        threshold: args.threshold.threshold,
        instructions_threshold: args.threshold.instructions_threshold,
        alpha: args.alpha,
        equivalence_alpha: args.equivalence_alpha,
        confidence: args.confidence,
        resamples: args.resamples,
        fdr: args.no_fdr.then_some(false),
        seed: args.seed,
        fail_on: args.fail_on,
        ..PartialSettings::default()
    }
}

fn seconds_to_ms(seconds: f64) -> u64 {
    (seconds * 1000.0).round().max(0.0) as u64
}

/// Where the command runs from, the workspace root and the effective settings of `args`.
fn resolve_settings(args: &CompareArgs) -> Result<(PathBuf, PathBuf, config::Effective), Error> {
    let start_dir = match &args.packages.manifest_path {
        Some(path) => path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_path_buf(),
        None => std::env::current_dir().map_err(|e| Error::io(".", e))?,
    };
    let workspace_root = crate::steps::build::workspace_root(&start_dir)?;
    let mut layers = config::load_files(&workspace_root)?;
    layers.extend(environment_layer(args));
    let effective = config::resolve(layers, cli_layer(args))?;
    Ok((start_dir, workspace_root, effective))
}

/// The packages to build: those named, or none with `--workspace`, or else the package cargo
/// would build from where the command runs (a member's directory or `--manifest-path`), since
/// the build runs at the workspace root.
fn packages_to_build(
    args: &CompareArgs,
    start_dir: &Path,
    workspace_root: &Path,
) -> Result<Vec<String>, Error> {
    if !args.packages.package.is_empty() || args.workspace {
        return Ok(args.packages.package.clone());
    }
    let current = crate::steps::build::current_package(start_dir, workspace_root)?;
    Ok(current.into_iter().collect())
}

/// The comparison `args` ask for, of `revisions`.
fn run_request(
    args: &CompareArgs,
    (start_dir, workspace_root): (PathBuf, PathBuf),
    settings: &config::Settings,
    revisions: Vec<String>,
) -> Result<RunRequest, Error> {
    let packages = packages_to_build(args, &start_dir, &workspace_root)?;
    Ok(RunRequest {
        start_dir,
        workspace_root,
        revisions,
        build: crate::steps::build::BuildOptions {
            packages,
            workspace: args.workspace,
            exclude: args.exclude.clone(),
            benches: args.targets.bench.clone(),
            features: args.targets.features.clone(),
            all_features: args.targets.all_features,
            no_default_features: args.targets.no_default_features,
            layouts: settings.layouts,
            line_tables: false,
            // Set by the comparison itself ([`crate::steps::build::kept_builds_from_env`]).
            kept_builds: 0,
        },
        // Relative to where the command runs, which --manifest-path moves `start_dir` from.
        copy_untracked: match args.packages.manifest_path {
            None => args.copy_untracked.clone(),
            Some(_) => args
                .copy_untracked
                .iter()
                .map(|p| std::path::absolute(p).unwrap_or_else(|_| p.clone()))
                .collect(),
        },
        settings: settings.clone(),
        commands_only: args.commands_only,
        shard: args.shard,
        resume: args.resume.clone(),
        samples_path: args.samples.clone(),
        keep_builds: false,
        focus: None,
    })
}

fn compare_command(args: CompareArgs) -> Result<i32, Error> {
    if !args.git_bisect {
        return compare(args);
    }
    match compare(args) {
        Ok(code) => Ok(code),
        Err(e) => {
            eprintln!("error: {e}");
            Ok(git_bisect_error_code(&e))
        }
    }
}

/// `--git-bisect`: what `git bisect run` should make of a report: 1 (bad) when the `--fail-on`
/// gate fails for a change, 125 (skip) when nothing failed it but a benchmark was inconclusive or
/// failed, 0 (good) otherwise.
fn git_bisect_code(report: &crate::steps::analysis::Report, fail_on: FailOn) -> i32 {
    use crate::steps::analysis::Outcome;
    let gate = report::exit_code(report, fail_on);
    let unsure = report
        .benchmarks
        .iter()
        .any(|b| matches!(b.verdict, Outcome::Inconclusive | Outcome::Failed));
    if gate == exit_code::REGRESSION || gate == exit_code::CHANGE {
        exit_code::REGRESSION
    } else if unsure {
        exit_code::GIT_BISECT_SKIP
    } else {
        exit_code::OK
    }
}

/// `--git-bisect`: an error becomes 125 (skip) when head, the commit `git bisect` checked out,
/// does not build or lacks the benchmarks, 130 when interrupted, and 128 otherwise (which stops
/// `git bisect run`: a GOOD that does not build, a typo, a full disk).
fn git_bisect_error_code(error: &Error) -> i32 {
    if crate::orchestrate::bisect::interrupted_meanwhile() {
        // A build stopped by Ctrl-C fails too: not a commit to skip.
        return exit_code::INTERRUPTED;
    }
    match error {
        Error::Build(crate::steps::build::BuildError::Failed { revision, .. })
            if revision.starts_with("head") =>
        {
            exit_code::GIT_BISECT_SKIP
        }
        Error::NothingToRun(_) => exit_code::GIT_BISECT_SKIP,
        Error::Interrupted { .. } => exit_code::INTERRUPTED,
        _ => exit_code::GIT_BISECT_ABORT,
    }
}

fn compare(args: CompareArgs) -> Result<i32, Error> {
    let (start_dir, workspace_root, effective) = resolve_settings(&args)?;
    if args.print_config {
        print!("{}", effective.render());
        return Ok(exit_code::OK);
    }
    if args.commands_only && effective.settings.commands.is_empty() {
        return Err(Error::Usage(
            "--commands-only compares commands, and none is declared: add --cmd \
             NAME='{bin}/PROGRAM ARGS', or [[command]] tables to perfdiff.toml (docs/commands.md)"
                .to_string(),
        ));
    }
    let mut revisions = args.revisions.clone();
    if args.calibrate {
        if !revisions.is_empty() {
            return Err(Error::Usage(
                "--calibrate compares HEAD with itself; give no revisions".to_string(),
            ));
        }
        revisions = vec!["HEAD".to_string(), "HEAD".to_string()];
    }
    // A report that cannot be written should fail now, not after minutes of measuring.
    check_writable(&args.output)?;
    let mut progress = Progress::new(Style::detect(args.output.quiet), args.output.verbose);
    let request = run_request(
        &args,
        (start_dir, workspace_root),
        &effective.settings,
        revisions,
    )?;
    if args.list {
        return list(&args, request, &effective.settings, &mut progress);
    }
    let outcome = run::run(&request, &mut progress)?;
    progress.finish_bar();
    let code = write_outputs(
        &outcome.report,
        &outcome.samples,
        &args.output,
        effective.settings.fail_on,
    )
    .map_err(|e| measurements_kept(e, &outcome.samples_path))?;
    if args.git_bisect {
        return Ok(git_bisect_code(&outcome.report, effective.settings.fail_on));
    }
    if args.calibrate {
        eprint!("{}", report::render_calibration(&outcome.report));
    }
    Ok(code)
}

/// `--list`: what a run would measure, and what it would take; measures nothing.
fn list(
    args: &CompareArgs,
    request: RunRequest,
    settings: &config::Settings,
    progress: &mut Progress,
) -> Result<i32, Error> {
    // Listing measures nothing: cargo's build alone tells the benchmarks, unless the selection
    // by reach compares their code, which it does in the objects the layouts' build keeps.
    let layouts = match request.settings.measure_all {
        true => 1,
        false => request.settings.layouts,
    };
    let request = RunRequest {
        settings: config::Settings {
            layouts,
            ..request.settings
        },
        ..request
    };
    let run::Listed {
        matched,
        skipped,
        unannounced,
        selection,
        phases,
    } = run::list(&request, progress)?;
    progress.finish_bar();
    let several_packages = crate::steps::analysis::distinct_more_than_one(
        matched
            .iter()
            .filter_map(|m| m.target().map(|k| k.package.as_str()))
            .chain(skipped.iter().filter_map(|s| s.package.as_deref())),
    );
    for skipped in &unannounced {
        progress.note(&format!(
            "skipped bench target `{}`: {}",
            skipped.label(several_packages),
            skipped.reason
        ));
    }
    let plan = run::plan(&matched, &selection, settings);
    let same_code = selection.values().filter(|s| s.skipped()).count();
    let presences: Vec<Presence> = matched.iter().map(|m| m.presence).collect();
    for line in comparison_notes(&presences, same_code, &plan.describe()) {
        progress.note(&line);
    }
    if plan.is_large() {
        progress.note(&format!(
            "note: {}",
            crate::steps::estimate::large_run_hint()
        ));
    }
    write_text(
        &args.output,
        &report::render_listing(
            &matched,
            &skipped,
            &selection,
            Some(&phases),
            args.output.format,
        ),
    )?;
    Ok(exit_code::OK)
}

/// What `--list` says a run would compare: the benchmarks present on both sides (those on one
/// side only are reported, never compared), `same_code` of them unchanged without measuring, and
/// `plan` (what measuring the rest takes). Why apart: a release whose bench target changed
/// harness (itoa 1.0.16: libtest's `#[bench]` ids in base, criterion's in head) has no
/// benchmark on both sides, so a run compares nothing and passes; counting every benchmark
/// listed said "28 benchmark(s) would be compared" (docs/design/field-trials.md).
fn comparison_notes(presences: &[Presence], same_code: usize, plan: &str) -> Vec<String> {
    let both = presences.iter().filter(|p| **p == Presence::Both).count();
    let one_sided = presences.len() - both;
    let mut apart = Vec::new();
    if same_code > 0 {
        apart.push(format!(
            "{same_code} unchanged without measuring: same code"
        ));
    }
    if one_sided > 0 {
        apart.push(format!("{one_sided} on one side only, not compared"));
    }
    let apart = match apart.is_empty() {
        true => String::new(),
        false => format!(" ({})", apart.join("; ")),
    };
    let mut notes = vec![format!(
        "{both} benchmark(s) would be compared{apart}; a run would take {plan}"
    )];
    notes.extend(run::none_on_both_sides(presences));
    notes
}

fn report_command(args: ReportArgs) -> Result<i32, Error> {
    let samples = run::merge_sample_files(&args.files)?;
    let mut settings = run::recorded_settings(&samples);
    let effective = config::resolve(
        vec![(
            config::Source::Default,
            PartialSettings::from_settings(&settings),
        )],
        analysis_layer(&args.analysis),
    )?;
    settings = effective.settings;
    let report = run::analyse_samples(&samples, &settings, None);
    write_outputs(&report, &samples, &args.output, settings.fail_on)
}

fn demo_command(args: DemoArgs) -> Result<i32, CliError> {
    check_writable(&args.output)?;
    let (repo, _keep) = crate::orchestrate::demo::prepare_demo_dir(
        args.dir.as_deref(),
        &args.criterion,
        args.harness,
        args.program,
    )?;
    let mut progress = Progress::new(Style::detect(args.output.quiet), args.output.verbose);
    let contents = match args.program {
        true => "the program democli, compared with commands; head: `democli hash` does 1.2x \
                 the work, `democli table` fills 2x the memory, `democli steady` unchanged"
            .to_string(),
        false => format!(
            "{} benchmarks; head: hash/mix does 1.1x the work, hash/checksum 0.8x, hash/slight \
             1.03x, hash/steady unchanged, hash/new_in_head added",
            args.harness
        ),
    };
    progress.note(&format!("demo repository: {} ({contents})", repo.display()));
    let workspace_root = crate::steps::build::workspace_root(&repo).map_err(Error::from)?;
    let mut settings = crate::orchestrate::demo::demo_settings();
    settings.fail_on = FailOn::Never;
    settings.metric = args.metric.metric.unwrap_or(settings.metric);
    settings.explain |= args.metric.explain;
    settings.measure_all |= args.metric.measure_all;
    if args.program {
        settings.commands = crate::orchestrate::demo::program_demo_commands();
    }
    let request = RunRequest {
        start_dir: repo.clone(),
        workspace_root,
        revisions: vec!["HEAD~1".to_string(), "HEAD".to_string()],
        build: Default::default(),
        copy_untracked: Vec::new(),
        settings,
        commands_only: args.program,
        shard: None,
        resume: None,
        samples_path: None,
        keep_builds: false,
        focus: None,
    };
    let outcome = run::run(&request, &mut progress)?;
    progress.finish_bar();
    let gate = write_outputs(
        &outcome.report,
        &outcome.samples,
        &args.output,
        FailOn::Regression,
    )?;
    progress.note(&format!(
        "in your own repository this verdict would exit with code {gate} (see `cargo perfdiff --help`); \
         the demo itself succeeded"
    ));
    progress.note(&format!(
        "try it yourself: cd {} && cargo perfdiff HEAD~1 HEAD",
        repo.display()
    ));
    // The demo worked, whatever it found: a newcomer's first command should not look failed.
    Ok(exit_code::OK)
}

fn bisect_command(args: &BisectArgs) -> Result<i32, CliError> {
    let compare = args.comparison();
    let (start_dir, workspace_root, effective) = resolve_settings(&compare)?;
    check_writable(&args.output)?;
    let mut progress = Progress::new(Style::detect(args.output.quiet), args.output.verbose);
    let request = crate::orchestrate::bisect::BisectRequest {
        good: args.good.clone(),
        bad: args.bad.clone(),
        all_commits: args.all_commits,
        retries: args.retries,
        template: run_request(
            &compare,
            (start_dir, workspace_root),
            &effective.settings,
            Vec::new(),
        )?,
    };
    let report = crate::orchestrate::bisect::bisect(&request, &mut progress)?;
    progress.finish_bar();
    write_text(
        &args.output,
        &crate::orchestrate::bisect::render::render(&report, args.output.format),
    )?;
    if let Some(path) = &args.output.html {
        write_file(
            path,
            crate::orchestrate::bisect::render::html(&report).as_bytes(),
        )?;
    }
    Ok(crate::orchestrate::bisect::exit_code(&report))
}

/// Writes the completion script for `args.shell` to stdout.
fn completions_command(args: &CompletionsArgs) -> Result<i32, Error> {
    let mut script = Vec::new();
    clap_complete::generate(
        args.shell,
        &mut <Cli as clap::CommandFactory>::command(),
        "cargo-perfdiff",
        &mut script,
    );
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(&script)
        .and_then(|()| stdout.flush())
        .map_err(|e| Error::io("<stdout>", e))?;
    Ok(exit_code::OK)
}

/// A report that cannot be written after a whole run: say where the measurements are.
fn measurements_kept(error: Error, samples: &Path) -> Error {
    Error::Usage(format!(
        "cannot write the report: {error}; the measurements are kept in {path} \
         (`cargo perfdiff report {path}` writes it again)",
        path = samples.display()
    ))
}

/// Writes the report (stdout or `--output`) and the HTML page; returns the exit code of the gate.
fn write_outputs(
    report: &crate::steps::analysis::Report,
    samples: &SampleFile,
    output: &OutputArgs,
    fail_on: FailOn,
) -> Result<i32, Error> {
    let style = report::Style::detect(output.output.is_some());
    write_text(output, &report::render(report, output.format, &style))?;
    if let Some(path) = &output.html {
        write_file(path, report::render_html(report, samples).as_bytes())?;
    }
    Ok(report::exit_code(report, fail_on))
}

/// Writes `text` to `--output`, or to stdout when none is given.
fn write_text(output: &OutputArgs, text: &str) -> Result<(), Error> {
    match &output.output {
        Some(path) => write_file(path, text.as_bytes()),
        None => {
            let mut stdout = std::io::stdout().lock();
            stdout
                .write_all(text.as_bytes())
                .and_then(|()| stdout.flush())
                .map_err(|e| Error::io("<stdout>", e))
        }
    }
}

/// Fails if `--output` or `--html` could not be written: its directory cannot be created, it is
/// a directory, or it cannot be opened for writing. Nothing the user had is changed: an existing
/// file is opened without truncation, and a file created for the test is removed again.
fn check_writable(output: &OutputArgs) -> Result<(), Error> {
    for path in [&output.output, &output.html].into_iter().flatten() {
        let cannot = |e: std::io::Error| {
            Error::Usage(format!(
                "cannot write the report to {}: {e}",
                path.display()
            ))
        };
        create_parent_dir(path, |_, e| cannot(e))?;
        if path.is_dir() {
            return Err(cannot(std::io::Error::other("it is a directory")));
        }
        let existed = path.exists();
        std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(cannot)?;
        if !existed {
            let _ = std::fs::remove_file(path);
        }
    }
    Ok(())
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    create_parent_dir(path, |dir, e| Error::io(dir, e))?;
    std::fs::write(path, bytes).map_err(|e| Error::io(path, e))
}

/// Creates the directory `path` is to be written in, if it names one; `error` describes a failure
/// given that directory.
fn create_parent_dir<E>(
    path: &Path,
    error: impl FnOnce(&Path, std::io::Error) -> E,
) -> Result<(), E> {
    match path.parent().filter(|d| !d.as_os_str().is_empty()) {
        Some(dir) => std::fs::create_dir_all(dir).map_err(|e| error(dir, e)),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_definition_is_consistent() {
        <Cli as clap::CommandFactory>::command().debug_assert();
    }

    #[test]
    fn a_listing_with_no_benchmark_on_both_sides_says_a_run_compares_nothing() {
        // itoa 1.0.15 → 1.0.16: 14 libtest ids only in base, 14 criterion ids only in head.
        let presences = [[Presence::OnlyInBase; 14], [Presence::OnlyInHead; 14]].concat();
        let notes = comparison_notes(&presences, 0, "0 forks");
        assert_eq!(
            notes[0],
            "0 benchmark(s) would be compared (28 on one side only, not compared); a run would \
             take 0 forks"
        );
        assert!(notes[1].starts_with("warning: no benchmark is present on both sides"));
    }

    #[test]
    fn a_listing_counts_only_the_benchmarks_on_both_sides_as_compared() {
        let presences = [Presence::Both, Presence::Both, Presence::OnlyInHead];
        let notes = comparison_notes(&presences, 1, "2 forks");
        assert_eq!(
            notes,
            [
                "2 benchmark(s) would be compared (1 unchanged without measuring: same code; 1 on \
              one side only, not compared); a run would take 2 forks"
            ]
        );
        let both = comparison_notes(&[Presence::Both], 0, "4 forks");
        assert_eq!(
            both,
            ["1 benchmark(s) would be compared; a run would take 4 forks"]
        );
    }

    #[test]
    fn cargo_inserted_subcommand_name_is_dropped() {
        let args = cargo_args(["cargo-perfdiff", "perfdiff", "HEAD~1"].map(OsString::from));
        assert_eq!(args, ["cargo-perfdiff", "HEAD~1"].map(OsString::from));
        let args = cargo_args(["cargo-perfdiff", "HEAD~1"].map(OsString::from));
        assert_eq!(args, ["cargo-perfdiff", "HEAD~1"].map(OsString::from));
    }

    #[test]
    fn revisions_and_filters_parse() {
        let cli =
            Cli::try_parse_from(["cargo-perfdiff", "main", "HEAD", "--", "hash/", "x"]).unwrap();
        assert_eq!(cli.compare.revisions, ["main", "HEAD"]);
        assert_eq!(cli.compare.filters, ["hash/", "x"]);
        assert!(Cli::try_parse_from(["cargo-perfdiff", "a", "b", "c"]).is_err());
    }

    #[test]
    fn forks_alone_means_fixed() {
        let cli = Cli::try_parse_from(["cargo-perfdiff", "--forks", "10"]).unwrap();
        assert_eq!(cli_layer(&cli.compare).stop, Some(StopRule::Fixed));
    }

    #[test]
    fn times_are_seconds_of_at_least_a_millisecond() {
        assert_eq!(parse_seconds("0.5"), Ok(0.5));
        assert_eq!(parse_seconds("0.001"), Ok(0.001));
        for bad in ["0", "0.0004", "-1", "NaN", "inf", "1s", ""] {
            assert!(parse_seconds(bad).is_err(), "{bad}");
        }
        for flag in ["--measurement-time", "--warm-up-time"] {
            let error = Cli::try_parse_from(["cargo-perfdiff", flag, "0"])
                .unwrap_err()
                .to_string();
            assert!(error.contains(flag), "{error}");
        }
    }

    #[test]
    fn cpus_are_validated() {
        assert_eq!(parse_cpus("2,3"), Ok([2, 3]));
        assert!(parse_cpus("1,1").is_err());
        assert!(parse_cpus("1").is_err());
    }

    #[test]
    fn subcommands_parse() {
        let cli = Cli::try_parse_from([
            "cargo-perfdiff",
            "report",
            "a.json",
            "b.json",
            "--format",
            "json",
        ])
        .unwrap();
        assert!(matches!(cli.command, Some(Command::Report(_))));
    }

    fn report_with(verdicts: &[crate::steps::analysis::Outcome]) -> crate::steps::analysis::Report {
        let empty = SampleFile::new(Default::default());
        let mut report =
            crate::steps::analysis::analyse(&empty, &(&config::Settings::default()).into(), 0);
        report.benchmarks = verdicts
            .iter()
            .enumerate()
            .map(|(i, &verdict)| {
                let mut result =
                    crate::steps::analysis::BenchmarkResult::new(&format!("b{i}"), 0.02);
                result.verdict = verdict;
                result
            })
            .collect();
        report
    }

    #[test]
    fn git_bisect_gets_good_bad_or_skip() {
        use crate::steps::analysis::Outcome::*;
        let code = |verdicts: &[crate::steps::analysis::Outcome], fail_on| {
            git_bisect_code(&report_with(verdicts), fail_on)
        };
        assert_eq!(code(&[Unchanged, Improved], FailOn::Regression), 0);
        assert_eq!(
            code(&[Unchanged, Regressed, Inconclusive], FailOn::Regression),
            1
        );
        // Noise is never taken for good or bad: git skips the commit.
        assert_eq!(code(&[Unchanged, Inconclusive], FailOn::Regression), 125);
        assert_eq!(code(&[Failed], FailOn::Regression), 125);
        assert_eq!(code(&[Improved], FailOn::AnyChange), 1);
        assert_eq!(code(&[Inconclusive], FailOn::Inconclusive), 125);
    }

    #[test]
    fn git_bisect_skips_a_head_that_does_not_build_and_stops_on_other_errors() {
        let failed = |revision: &str| {
            Error::Build(crate::steps::build::BuildError::Failed {
                revision: revision.to_string(),
                diagnostics: String::new(),
                hint: None,
            })
        };
        assert_eq!(git_bisect_error_code(&failed("head HEAD (abc)")), 125);
        assert_eq!(git_bisect_error_code(&failed("base v1 (abc)")), 128);
        assert_eq!(
            git_bisect_error_code(&Error::NothingToRun("no benchmark".into())),
            125
        );
        assert_eq!(git_bisect_error_code(&Error::Usage("typo".into())), 128);
        let interrupted = Error::Interrupted {
            samples: PathBuf::from("s.json"),
        };
        assert_eq!(git_bisect_error_code(&interrupted), 130);
    }

    #[test]
    fn the_equivalence_level_is_its_own_option_beside_alpha() {
        let cli = Cli::try_parse_from([
            "cargo-perfdiff",
            "--alpha",
            "0.02",
            "--equivalence-alpha",
            "0.1",
        ])
        .unwrap();
        let layer = cli_layer(&cli.compare);
        assert_eq!(
            (layer.alpha, layer.equivalence_alpha),
            (Some(0.02), Some(0.1))
        );
        let plain = cli_layer(&Cli::try_parse_from(["cargo-perfdiff"]).unwrap().compare);
        assert_eq!(
            plain.equivalence_alpha, None,
            "the default comes from the settings"
        );
    }

    #[test]
    fn bisect_parses_its_ends_options_and_filters() {
        let cli = Cli::try_parse_from([
            "cargo-perfdiff",
            "bisect",
            "v1",
            "HEAD",
            "--all-commits",
            "--retries",
            "2",
            "--threshold",
            "0.05",
            "--",
            "parse/",
        ])
        .unwrap();
        let Some(Command::Bisect(args)) = cli.command else {
            panic!("not bisect");
        };
        assert_eq!((args.good.as_str(), args.bad.as_str()), ("v1", "HEAD"));
        assert!(args.all_commits);
        assert_eq!(args.retries, 2);
        let layer = cli_layer(&args.comparison());
        assert_eq!(layer.threshold, Some(0.05));
        assert_eq!(layer.filters, Some(vec!["parse/".to_string()]));
        assert!(Cli::try_parse_from(["cargo-perfdiff", "bisect", "v1"]).is_err());
    }

    #[test]
    fn measuring_and_replay_take_the_same_stop_limits() {
        let limits = [
            "--min-forks",
            "4",
            "--max-forks",
            "12",
            "--stop-threshold",
            "0.05",
            "--window",
            "6",
        ];
        let compare = Cli::try_parse_from(["cargo-perfdiff"].into_iter().chain(limits)).unwrap();
        let replay = Cli::try_parse_from(
            ["cargo-perfdiff", "replay", "f.json"]
                .into_iter()
                .chain(limits),
        )
        .unwrap();
        let Some(Command::Replay(replay)) = replay.command else {
            panic!("not a replay");
        };
        let expected = StopLimitArgs {
            min_forks: Some(4),
            max_forks: Some(12),
            stop_threshold: Some(0.05),
            window: Some(6),
        };
        assert_eq!(compare.compare.measuring.stop_limits, expected);
        assert_eq!(replay.stop_limits, expected);
        let layer = cli_layer(&compare.compare);
        assert_eq!(
            (layer.min_forks, layer.max_forks, layer.window),
            (Some(4), Some(12), Some(6))
        );
        assert_eq!(layer.stop_threshold, Some(0.05));
    }
}
