//! Settings of a run: defaults, configuration files, and the command line, in that order of
//! precedence (the command line wins).
//!
//! [`Settings`] is the one place every tunable lives, so that the samples file can record exactly
//! what a run used and `--print-config` can show it with where each value came from.
//!
//! Why layers with provenance: a benchmark gate in CI is configured in three places at once (the
//! workspace's `Cargo.toml`, a `perfdiff.toml`, the workflow's command line), and "why is the
//! threshold 5 %?" must have an answer. So every layer is read into a [`PartialSettings`] (each
//! key optional), the layers are applied in order, and [`Effective::sources`] remembers which layer
//! set each key.
//!
//! Files, all optional, at the workspace root, lowest precedence first:
//! 1. `[workspace.metadata.perfdiff]` in `Cargo.toml`;
//! 2. `[package.metadata.perfdiff]` in the same `Cargo.toml` (when the root is a package);
//! 3. `perfdiff.toml`, keys at its top level.
//!
//! A more specific file wins: `perfdiff.toml` exists only for this tool, and a package's metadata
//! is closer to the benchmarks than the workspace's. Per-benchmark tables merge by pattern: a
//! higher layer's `benchmarks."REGEX"` replaces the same pattern of a lower layer and leaves other
//! patterns alone. Every other key, including `filters`, is replaced whole.
//!
//! Errors never panic and always name the file (with line where the TOML parser knows it), the
//! table and the key; an unknown key comes with the closest known one as a suggestion.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Deserializer, Serialize};

pub use crate::model::command::CommandSpec;
pub use crate::model::policy::{BenchOverride, FailOn, Metrics, StopRule, threshold_for};
pub use crate::model::samples::Mode;
use crate::steps::analysis::AnalysisSettings;
use crate::steps::estimate::EstimateSettings;
use crate::steps::fork_length::ForkLengthSettings;
use crate::steps::stop::StopSettings;

/// Errors in a configuration file or on the command line. Each names the file (or the command
/// line) and, where it can, the line and the key.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{path}: {message}")]
    Invalid { path: String, message: String },
    /// A configuration file exists but cannot be read (permissions, not UTF-8, a directory).
    #[error("cannot read configuration file {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The file is not valid TOML, or a value has the wrong type.
    #[error("{}{}: {}{message}", path.display(), line_suffix(*line), key_prefix(key.as_deref()))]
    Malformed {
        path: PathBuf,
        /// 1-based line of the offending text, when the parser knows it.
        line: Option<usize>,
        /// The key whose value is wrong (relative to the settings table), when known.
        key: Option<String>,
        message: String,
    },
    /// A key that is not a setting (typically a misspelling).
    #[error("{origin}{}: unknown key `{key}`{}", line_suffix(*line), suggestion_suffix(suggestion.as_deref()))]
    UnknownKey {
        /// The file and table, e.g. `/repo/Cargo.toml [workspace.metadata.perfdiff]`.
        origin: String,
        line: Option<usize>,
        key: String,
        /// The closest known key, if one is close.
        suggestion: Option<String>,
    },
    /// A value of the right type but outside its allowed range.
    #[error("{origin}{}: `{key}` {message}", line_suffix(*line))]
    InvalidValue {
        /// The file and table, or `command line`.
        origin: String,
        line: Option<usize>,
        key: String,
        message: String,
    },
}

fn line_suffix(line: Option<usize>) -> String {
    line.map(|l| format!(":{l}")).unwrap_or_default()
}

fn key_prefix(key: Option<&str>) -> String {
    key.map(|k| format!("`{k}`: ")).unwrap_or_default()
}

fn suggestion_suffix(suggestion: Option<&str>) -> String {
    suggestion
        .map(|s| format!(" (did you mean `{s}`?)"))
        .unwrap_or_default()
}

/// Every setting of a run, with its default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    /// Interleaved forks or duet pairs.
    pub mode: Mode,
    /// What the forks measure: wall time, instructions under valgrind, or both.
    pub metric: Metrics,
    /// Count the instructions of every benchmark whose time changed, by function, to name the
    /// functions behind the change (`--explain`; always so with the instructions metric).
    pub explain: bool,
    /// Measure every benchmark, also those that execute the same code on both sides
    /// (`--measure-all`; docs/selection.md). Off: such benchmarks are `unchanged` without a fork.
    pub measure_all: bool,
    /// When to stop adding forks.
    pub stop: StopRule,
    /// Rounds for `--stop fixed`.
    pub forks: usize,
    /// Rounds always run before a stop rule may stop a benchmark.
    pub min_forks: usize,
    /// Rounds after which a benchmark stops whatever its rule says.
    pub max_forks: usize,
    /// Threshold of the stop rule (`None`: the rule's published default).
    pub stop_threshold: Option<f64>,
    /// Sliding window length of the stop rules.
    pub window: usize,
    /// Code layouts of each revision that forks are spread over: the build cargo makes, and
    /// `layouts − 1` relinks of it with its functions in other orders (`docs/layouts.md`).
    pub layouts: usize,
    /// Criterion warm-up time asked for per fork, in milliseconds.
    pub warm_up_ms: u64,
    /// Criterion measurement time per fork, in milliseconds. The default, 0.5 s, is as precise
    /// per fork as 1 s on every quiet-host recording: past it a fork's mean is limited by the
    /// noise between forks, not within one (`scripts/fork_length.py`, docs/design/warm-up.md); on a
    /// noisy host it is about as precise per second of the run.
    pub measurement_ms: u64,
    /// Whether a layer set `measurement_ms` (`--measurement-time`, `measurement-ms`): then every
    /// fork measures it. Otherwise each benchmark's forks get the length its variance between
    /// and within forks asks for after the first rounds ([`crate::steps::fork_length`]). Not a
    /// key of its own: [`resolve`] derives it from where `measurement-ms` came from.
    pub measurement_fixed: bool,
    /// Criterion samples per fork (criterion wants at least 10).
    pub sample_size: usize,
    /// Changes smaller than this (relative, e.g. 0.02 = 2 %) are not relevant.
    pub threshold: f64,
    /// The same for instruction records (`ID (instructions)`), whose counts no noise moves.
    pub instructions_threshold: f64,
    /// Significance level of the paired test that decides (after false-discovery control).
    pub alpha: f64,
    /// Level of each of the two one-sided tests that show `unchanged`: the `1 − 2·alpha_eq`
    /// interval inside ±threshold (5 %, a 90 % interval, as in bioequivalence testing).
    pub equivalence_alpha: f64,
    /// Confidence of the bootstrap of the ratio of means (information).
    pub confidence: f64,
    /// Bootstrap resamples for the ratio CI.
    pub resamples: usize,
    /// Benjamini–Hochberg false discovery rate control across the suite.
    pub fdr: bool,
    /// Seed of every random choice; `None` draws one (recorded in the samples file).
    pub seed: Option<u64>,
    /// A fork running longer than this many seconds is killed and the benchmark `failed`.
    pub fork_timeout_s: f64,
    /// Benchmark filters (substring or regex, as criterion takes them).
    pub filters: Vec<String>,
    /// What makes the exit code non-zero.
    pub fail_on: FailOn,
    /// The two CPUs of duet mode; `None`: the first two the process may use.
    pub cpus: Option<[usize; 2]>,
    /// In duet mode, keep measuring duet pairs when a round's forks show the two CPUs shared
    /// (`--keep-duet`; docs/duet.md). Off: the remaining rounds run interleaved.
    pub keep_duet: bool,
    /// Per-benchmark overrides, keyed by a regex over the benchmark id.
    pub overrides: BTreeMap<String, BenchOverride>,
    /// Programs compared from the outside ([`crate::model::command`]), besides the benchmarks.
    pub commands: Vec<CommandSpec>,
    /// The cargo profile the programs that commands run are built with.
    pub profile: String,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            mode: Mode::Interleaved,
            metric: Metrics::TIME,
            explain: false,
            measure_all: false,
            stop: StopRule::default(),
            forks: 10,
            min_forks: StopRule::default().default_min_forks(),
            max_forks: 10,
            stop_threshold: None,
            window: 5,
            layouts: DEFAULT_LAYOUTS,
            warm_up_ms: 100,
            measurement_ms: 500,
            measurement_fixed: false,
            sample_size: 30,
            threshold: 0.02,
            instructions_threshold: crate::model::policy::DEFAULT_INSTRUCTIONS_THRESHOLD,
            alpha: 0.01,
            equivalence_alpha: crate::model::policy::DEFAULT_EQUIVALENCE_ALPHA,
            confidence: 0.99,
            resamples: 10_000,
            fdr: true,
            seed: None,
            fork_timeout_s: 300.0,
            filters: Vec::new(),
            fail_on: FailOn::Regression,
            cpus: None,
            keep_duet: false,
            overrides: BTreeMap::new(),
            commands: Vec::new(),
            profile: crate::steps::build::programs::DEFAULT_PROFILE.to_string(),
        }
    }
}

/// The analysis's part of the settings.
impl From<&Settings> for AnalysisSettings {
    fn from(s: &Settings) -> Self {
        AnalysisSettings {
            threshold: s.threshold,
            instructions_threshold: s.instructions_threshold,
            alpha: s.alpha,
            equivalence_alpha: s.equivalence_alpha,
            confidence: s.confidence,
            resamples: s.resamples,
            fdr: s.fdr,
            overrides: s.overrides.clone(),
        }
    }
}

/// The stop rules' part of the settings.
impl From<&Settings> for StopSettings {
    fn from(s: &Settings) -> Self {
        StopSettings {
            rule: s.stop,
            forks: s.forks,
            min_forks: s.min_forks,
            max_forks: s.max_forks,
            stop_threshold: s.stop_threshold,
            window: s.window,
            mode: s.mode,
            verdict: AnalysisSettings::from(s),
        }
    }
}

/// The fork-length choice's part of the settings.
impl From<&Settings> for ForkLengthSettings {
    fn from(s: &Settings) -> Self {
        ForkLengthSettings {
            default_ms: s.measurement_ms as f64,
            fixed: s.measurement_fixed,
            mode: s.mode,
        }
    }
}

/// The estimate's part of the settings.
impl From<&Settings> for EstimateSettings {
    fn from(s: &Settings) -> Self {
        EstimateSettings {
            stop: StopSettings::from(s),
            warm_up_ms: s.warm_up_ms,
            measurement_ms: s.measurement_ms,
            time: s.metric.time,
            counting: s
                .metric
                .instructions
                .then(|| crate::steps::estimate::Counting {
                    workers: crate::steps::fork::usable_cpus().len().max(1),
                }),
        }
    }
}

impl Settings {
    /// The relevance threshold for benchmark `id`, after per-benchmark overrides.
    pub fn threshold_for(&self, id: &str) -> f64 {
        let defaults = (self.threshold, self.instructions_threshold);
        threshold_for(&self.overrides, defaults, id)
    }

    /// True when a per-benchmark override says to ignore `id`.
    pub fn is_ignored(&self, id: &str) -> bool {
        crate::model::policy::is_ignored(&self.overrides, id)
    }
}

/// Every setting optional: what one layer (a file, or the command line) says.
///
/// Field names are those of [`Settings`]; the TOML keys are their kebab-case forms, except
/// `fork_timeout_s` (key `fork-timeout`, in seconds) and `benchmarks` (the per-benchmark tables
/// that become [`Settings::overrides`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct PartialSettings {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<Mode>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metric: Option<Metrics>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explain: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measure_all: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop: Option<StopRule>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forks: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_forks: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_forks: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_threshold: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layouts: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warm_up_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measurement_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sample_size: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub threshold: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instructions_threshold: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alpha: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub equivalence_alpha: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resamples: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fdr: Option<bool>,
    /// An integer, or a decimal string for seeds above `i64::MAX` (TOML integers are signed).
    #[serde(
        default,
        deserialize_with = "deserialize_seed",
        skip_serializing_if = "Option::is_none"
    )]
    pub seed: Option<u64>,
    #[serde(rename = "fork-timeout", skip_serializing_if = "Option::is_none")]
    pub fork_timeout_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filters: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fail_on: Option<FailOn>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpus: Option<[usize; 2]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keep_duet: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub benchmarks: Option<BTreeMap<String, BenchOverride>>,
    /// `[[command]]` tables.
    #[serde(rename = "command", skip_serializing_if = "Option::is_none")]
    pub commands: Option<Vec<CommandSpec>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
}

/// Layouts per revision unless the user says otherwise: chosen from the false alarms and the
/// cost measured with 1, 4 and 10: as many as the default `max-forks`, so every round of a
/// benchmark runs a layout of its own (`docs/layouts.md`).
pub const DEFAULT_LAYOUTS: usize = 10;

/// Every key a configuration table may hold, in the order `--print-config` shows them.
pub const KNOWN_KEYS: &[&str] = &[
    "mode",
    "metric",
    "explain",
    "measure-all",
    "stop",
    "forks",
    "min-forks",
    "max-forks",
    "stop-threshold",
    "window",
    "layouts",
    "warm-up-ms",
    "measurement-ms",
    "sample-size",
    "threshold",
    "instructions-threshold",
    "alpha",
    "equivalence-alpha",
    "confidence",
    "resamples",
    "fdr",
    "seed",
    "fork-timeout",
    "filters",
    "fail-on",
    "cpus",
    "keep-duet",
    "benchmarks",
    "command",
    "profile",
];

/// The keys of one `benchmarks."REGEX"` table.
pub const BENCHMARK_KEYS: &[&str] = &["threshold", "ignore"];

/// The keys of one `[[command]]` table ([`CommandSpec`]).
pub const COMMAND_KEYS: &[&str] = &[
    "name", "run", "setup", "prepare", "cwd", "env", "inputs", "warm-up",
];

fn deserialize_seed<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<u64>, D::Error> {
    struct SeedVisitor;
    impl serde::de::Visitor<'_> for SeedVisitor {
        type Value = Option<u64>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a non-negative integer, or one written as a string")
        }

        fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<Self::Value, E> {
            Ok(Some(n))
        }

        fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<Self::Value, E> {
            u64::try_from(n)
                .map(Some)
                .map_err(|_| E::custom(format!("must not be negative, got {n}")))
        }

        fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Self::Value, E> {
            text.trim()
                .parse()
                .map(Some)
                .map_err(|_| E::custom(format!("must be a non-negative integer, got {text:?}")))
        }
    }
    deserializer.deserialize_any(SeedVisitor)
}

impl PartialSettings {
    /// A layer that sets every value of `settings` (e.g. the settings a samples file recorded,
    /// so `report` re-analyses with them and the command line still overrides).
    pub fn from_settings(settings: &Settings) -> Self {
        PartialSettings {
            mode: Some(settings.mode),
            metric: Some(settings.metric),
            explain: Some(settings.explain),
            measure_all: Some(settings.measure_all),
            stop: Some(settings.stop),
            forks: Some(settings.forks),
            min_forks: Some(settings.min_forks),
            max_forks: Some(settings.max_forks),
            stop_threshold: settings.stop_threshold,
            window: Some(settings.window),
            layouts: Some(settings.layouts),
            warm_up_ms: Some(settings.warm_up_ms),
            measurement_ms: Some(settings.measurement_ms),
            sample_size: Some(settings.sample_size),
            threshold: Some(settings.threshold),
            instructions_threshold: Some(settings.instructions_threshold),
            alpha: Some(settings.alpha),
            equivalence_alpha: Some(settings.equivalence_alpha),
            confidence: Some(settings.confidence),
            resamples: Some(settings.resamples),
            fdr: Some(settings.fdr),
            seed: settings.seed,
            fork_timeout_s: Some(settings.fork_timeout_s),
            filters: Some(settings.filters.clone()),
            fail_on: Some(settings.fail_on),
            cpus: settings.cpus,
            keep_duet: Some(settings.keep_duet),
            benchmarks: (!settings.overrides.is_empty()).then(|| settings.overrides.clone()),
            commands: (!settings.commands.is_empty()).then(|| settings.commands.clone()),
            profile: Some(settings.profile.clone()),
        }
    }
}

/// Where a value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// [`Settings::default`].
    Default,
    /// A configuration file; `table` is e.g. `"[workspace.metadata.perfdiff]"`, and empty for the
    /// top level of `perfdiff.toml`.
    File { path: PathBuf, table: String },
    /// An environment variable (`CARGO_PERFDIFF_MEASURE_ALL`).
    Environment { variable: String },
    /// A command-line flag.
    CommandLine,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Default => f.write_str("default"),
            Source::Environment { variable } => write!(f, "environment {variable}"),
            Source::CommandLine => f.write_str("command line"),
            Source::File { path, table } if table.is_empty() => write!(f, "{}", path.display()),
            Source::File { path, table } => write!(f, "{} {table}", path.display()),
        }
    }
}

/// The settings a run uses, and where each key's value came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Effective {
    pub settings: Settings,
    /// One entry per key of [`KNOWN_KEYS`] except `benchmarks`, plus one `benchmarks."REGEX"`
    /// entry per per-benchmark override.
    pub sources: BTreeMap<String, Source>,
}

const WORKSPACE_TABLE: &str = "[workspace.metadata.perfdiff]";
const PACKAGE_TABLE: &str = "[package.metadata.perfdiff]";

/// The name of the dedicated configuration file at the workspace root.
pub const CONFIG_FILE_NAME: &str = "perfdiff.toml";

/// Reads the configuration files of the workspace at `workspace_root` (Cargo.toml there and
/// perfdiff.toml). Missing files are fine; unreadable or invalid ones are errors naming the file.
///
/// The layers come back lowest precedence first: workspace metadata, package metadata,
/// `perfdiff.toml`. Each layer's values are range-checked here already.
pub fn load_files(workspace_root: &Path) -> Result<Vec<(Source, PartialSettings)>, ConfigError> {
    let mut layers = Vec::new();
    let manifest_path = workspace_root.join("Cargo.toml");
    if let Some(text) = read_if_present(&manifest_path)? {
        layers.extend(manifest_layers(&manifest_path, &text)?);
    }
    let config_path = workspace_root.join(CONFIG_FILE_NAME);
    if let Some(text) = read_if_present(&config_path)? {
        layers.push(config_file_layer(&config_path, &text)?);
    }
    Ok(layers)
}

/// [`load_files`] then [`resolve`]: the effective settings of the workspace at `workspace_root`.
pub fn load(workspace_root: &Path, cli: PartialSettings) -> Result<Effective, ConfigError> {
    resolve(load_files(workspace_root)?, cli)
}

/// Layers defaults, then the files (in precedence order, followed by the settings of environment
/// variables, [`Source::Environment`]), then `cli`; validates the result.
pub fn resolve(
    files: Vec<(Source, PartialSettings)>,
    cli: PartialSettings,
) -> Result<Effective, ConfigError> {
    let mut effective = Effective {
        settings: Settings::default(),
        sources: KNOWN_KEYS
            .iter()
            .filter(|key| **key != "benchmarks")
            .map(|key| (key.to_string(), Source::Default))
            .collect(),
    };
    for (source, partial) in files.into_iter().chain([(Source::CommandLine, cli)]) {
        validate_layer(&partial, &source)?;
        effective.apply(partial, &source);
    }
    effective.default_min_forks_for_the_rule();
    effective.settings.measurement_fixed =
        *effective.source_of("measurement-ms") != Source::Default;
    effective.validate_combination()?;
    Ok(effective)
}

fn read_if_present(path: &Path) -> Result<Option<String>, ConfigError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(ConfigError::Read {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// The parts of a Cargo.toml this tool reads; everything else in the manifest is ignored.
#[derive(Deserialize)]
struct Manifest {
    workspace: Option<MetadataHolder>,
    package: Option<MetadataHolder>,
}

#[derive(Deserialize)]
struct MetadataHolder {
    metadata: Option<Metadata>,
}

#[derive(Deserialize)]
struct Metadata {
    perfdiff: Option<PartialSettings>,
}

impl Manifest {
    /// The workspace's and the package's settings tables.
    fn into_layers(self) -> [Option<PartialSettings>; 2] {
        let perfdiff = |holder: Option<MetadataHolder>| holder?.metadata?.perfdiff;
        [perfdiff(self.workspace), perfdiff(self.package)]
    }
}

/// A settings table a file may hold: its name as shown to people and its key path in the file.
struct TableSpec {
    name: &'static str,
    key_path: &'static [&'static str],
}

const WORKSPACE: TableSpec = TableSpec {
    name: WORKSPACE_TABLE,
    key_path: &["workspace", "metadata", "perfdiff"],
};
const PACKAGE: TableSpec = TableSpec {
    name: PACKAGE_TABLE,
    key_path: &["package", "metadata", "perfdiff"],
};
const TOP_LEVEL: TableSpec = TableSpec {
    name: "",
    key_path: &[],
};

fn manifest_layers(path: &Path, text: &str) -> Result<Vec<(Source, PartialSettings)>, ConfigError> {
    let document = parse_document(path, text)?;
    let manifest: Manifest = toml::from_str(text)
        .map_err(|e| typed_error(path, text, &document, &[&WORKSPACE, &PACKAGE], &e))?;
    let [workspace, package] = manifest.into_layers();
    [(WORKSPACE, workspace), (PACKAGE, package)]
        .into_iter()
        .filter_map(|(spec, partial)| Some(checked_layer(path, text, &spec, partial?)))
        .collect()
}

fn config_file_layer(path: &Path, text: &str) -> Result<(Source, PartialSettings), ConfigError> {
    let document = parse_document(path, text)?;
    let partial: PartialSettings =
        toml::from_str(text).map_err(|e| typed_error(path, text, &document, &[&TOP_LEVEL], &e))?;
    checked_layer(path, text, &TOP_LEVEL, partial)
}

/// Range-checks one file layer, pointing at the line of the offending key.
fn checked_layer(
    path: &Path,
    text: &str,
    spec: &TableSpec,
    partial: PartialSettings,
) -> Result<(Source, PartialSettings), ConfigError> {
    let source = file_source(path, spec.name);
    match check_values(&partial) {
        Ok(()) => Ok((source, partial)),
        Err(violation) => {
            let full_path: Vec<&str> = spec
                .key_path
                .iter()
                .copied()
                .chain(violation.key_path.iter().map(String::as_str))
                .collect();
            let line = line_of_key(text, &full_path);
            Err(violation.into_error(&source, line))
        }
    }
}

fn file_source(path: &Path, table: &str) -> Source {
    Source::File {
        path: path.to_path_buf(),
        table: table.to_string(),
    }
}

/// Parses the file as plain TOML first, so syntax errors are told apart from type errors.
fn parse_document(path: &Path, text: &str) -> Result<toml::Table, ConfigError> {
    text.parse::<toml::Table>()
        .map_err(|e| malformed(path, text, &[], &e))
}

/// A syntax or type error, with the line and (for type errors) the key whose value is wrong.
fn malformed(
    path: &Path,
    text: &str,
    specs: &[&TableSpec],
    error: &toml::de::Error,
) -> ConfigError {
    let offset = error.span().map(|span| span.start);
    let key = offset
        .and_then(|offset| key_path_at(text, offset))
        .map(|full_path| relative_key(&full_path, specs));
    ConfigError::Malformed {
        path: path.to_path_buf(),
        line: offset.map(|offset| line_of(text, offset)),
        key,
        message: error.message().trim().to_string(),
    }
}

/// `full_path` relative to the settings table it is in, dotted (`benchmarks."x".threshold`).
fn relative_key(full_path: &[String], specs: &[&TableSpec]) -> String {
    let relative = specs
        .iter()
        .filter(|spec| !spec.key_path.is_empty())
        .find_map(|spec| {
            let prefix_matches = full_path.len() > spec.key_path.len()
                && full_path.iter().zip(spec.key_path).all(|(a, b)| a == b);
            prefix_matches.then(|| &full_path[spec.key_path.len()..])
        })
        .unwrap_or(full_path);
    relative
        .iter()
        .map(|segment| {
            let bare = !segment.is_empty()
                && segment
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
            if bare {
                segment.clone()
            } else {
                quoted(segment)
            }
        })
        .collect::<Vec<_>>()
        .join(".")
}

/// The key path of the innermost value (not table) whose text holds byte `offset`.
fn key_path_at(text: &str, offset: usize) -> Option<Vec<String>> {
    fn search(table: &toml::de::DeTable<'_>, offset: usize, path: &mut Vec<String>) -> bool {
        for (key, value) in table.iter() {
            path.push(key.get_ref().to_string());
            let found = match value.get_ref() {
                toml::de::DeValue::Table(inner) => search(inner, offset, path),
                _ => value.span().contains(&offset) || key.span().contains(&offset),
            };
            if found {
                return true;
            }
            path.pop();
        }
        false
    }
    let document = toml::de::DeTable::parse(text).ok()?;
    let mut path = Vec::new();
    search(document.get_ref(), offset, &mut path).then_some(path)
}

/// The 1-based line of the key at `key_path`, if the file has it.
fn line_of_key(text: &str, key_path: &[&str]) -> Option<usize> {
    let document = toml::de::DeTable::parse(text).ok()?;
    let (last, parents) = key_path.split_last()?;
    let mut table = document.get_ref();
    for segment in parents {
        table = table.get(*segment)?.get_ref().as_table()?;
    }
    let (key, _) = table.get_key_value(*last)?;
    Some(line_of(text, key.span().start))
}

/// Turns a typed-deserialisation error into [`ConfigError::UnknownKey`] (with a suggestion) when
/// it is about an unknown key, else into [`ConfigError::Malformed`]. `specs` are the settings
/// tables the file may hold, to tell which one the unknown key is in.
fn typed_error(
    path: &Path,
    text: &str,
    document: &toml::Table,
    specs: &[&TableSpec],
    error: &toml::de::Error,
) -> ConfigError {
    let Some(key) = unknown_field_name(error.message()) else {
        return malformed(path, text, specs, error);
    };
    let holder = specs.iter().find_map(|spec| {
        table_at(document, spec.key_path)
            .filter(|table| holds_key(table, key))
            .map(|table| (spec.name, table))
    });
    let (table_name, candidates) = match holder {
        Some((name, table)) if table.contains_key(key) => (name, KNOWN_KEYS),
        Some((name, table)) if in_command_table(table, key) => (name, COMMAND_KEYS),
        Some((name, _)) => (name, BENCHMARK_KEYS),
        None => (specs.first().map_or("", |spec| spec.name), KNOWN_KEYS),
    };
    ConfigError::UnknownKey {
        origin: file_source(path, table_name).to_string(),
        line: error.span().map(|span| line_of(text, span.start)),
        key: key.to_string(),
        suggestion: closest_key(key, candidates).map(str::to_string),
    }
}

/// serde's message for `deny_unknown_fields` is "unknown field `KEY`, expected …".
fn unknown_field_name(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("unknown field `")?;
    rest.split_once('`').map(|(key, _)| key)
}

/// The table at `key_path` of a parsed file (the document itself for an empty path).
fn table_at<'a>(document: &'a toml::Table, key_path: &[&str]) -> Option<&'a toml::Table> {
    key_path
        .iter()
        .try_fold(document, |table, segment| table.get(*segment)?.as_table())
}

/// True when `key` is in one of `table`'s `[[command]]` tables.
fn in_command_table(table: &toml::Table, key: &str) -> bool {
    table
        .get("command")
        .and_then(toml::Value::as_array)
        .is_some_and(|commands| {
            commands
                .iter()
                .filter_map(toml::Value::as_table)
                .any(|command| command.contains_key(key))
        })
}

/// True when `key` is in `table`, in one of its `benchmarks."REGEX"` tables or in one of its
/// `[[command]]` tables.
fn holds_key(table: &toml::Table, key: &str) -> bool {
    in_command_table(table, key)
        || table.contains_key(key)
        || table
            .get("benchmarks")
            .and_then(toml::Value::as_table)
            .is_some_and(|benches| {
                benches
                    .values()
                    .filter_map(toml::Value::as_table)
                    .any(|bench| bench.contains_key(key))
            })
}

/// 1-based line number of byte `offset` in `text`.
fn line_of(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    1 + text.as_bytes()[..end]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
}

/// The known key closest to `key`, if it is close enough to be a plausible misspelling.
/// `snake_case` and `kebab-case` count as the same spelling.
pub fn closest_key<'a>(key: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let normalised = key.to_ascii_lowercase().replace('_', "-");
    candidates
        .iter()
        .map(|candidate| (edit_distance(&normalised, candidate), *candidate))
        .filter(|(distance, candidate)| *distance <= (candidate.len().div_ceil(3)).max(1))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate)
}

/// Levenshtein distance over chars.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != *cb);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        previous = current;
    }
    previous[b.len()]
}

/// A value out of range: the key path inside the settings table (e.g. `["threshold"]` or
/// `["benchmarks", "REGEX", "threshold"]`) and what is wrong with it.
struct Violation {
    key_path: Vec<String>,
    message: String,
}

impl Violation {
    fn new(key_path: &[&str], message: String) -> Violation {
        Violation {
            key_path: key_path.iter().map(|k| k.to_string()).collect(),
            message,
        }
    }

    /// The key as a person would write it: `benchmarks."REGEX".threshold`.
    fn display_key(&self) -> String {
        let mut segments = self.key_path.iter();
        let mut key = segments.next().cloned().unwrap_or_default();
        for (index, segment) in segments.enumerate() {
            key.push('.');
            // The segment after `benchmarks` is a regex: always quote it.
            key.push_str(&if index == 0 {
                quoted(segment)
            } else {
                segment.clone()
            });
        }
        key
    }

    fn into_error(self, source: &Source, line: Option<usize>) -> ConfigError {
        ConfigError::InvalidValue {
            origin: source.to_string(),
            line,
            key: self.display_key(),
            message: self.message,
        }
    }
}

/// Range checks of the values one layer sets, naming the layer and the key.
fn validate_layer(partial: &PartialSettings, source: &Source) -> Result<(), ConfigError> {
    check_values(partial)
        .and_then(|()| match source {
            Source::CommandLine => check_command_line(partial),
            _ => Ok(()),
        })
        .map_err(|violation| violation.into_error(source, None))
}

/// Flags that contradict each other on one command line. A file may set `forks` beside another
/// rule (for the runs that pass `--stop fixed`), but `--stop rciw --forks 5` would run rciw and
/// silently ignore the 5.
fn check_command_line(partial: &PartialSettings) -> Result<(), Violation> {
    match (partial.stop, partial.forks) {
        (Some(rule), Some(forks)) if rule != StopRule::Fixed => Err(Violation::new(
            &["forks"],
            format!(
                "({forks}) is the number of rounds of --stop fixed and has no effect with \
                 --stop {rule}; to cap {rule}, use --max-forks {forks}"
            ),
        )),
        _ => Ok(()),
    }
}

/// Range checks of the values one layer sets.
fn check_values(partial: &PartialSettings) -> Result<(), Violation> {
    check_numbers(partial)?;
    check_combinations(partial)?;
    check_texts(partial)
}

/// Each number within its range.
fn check_numbers(partial: &PartialSettings) -> Result<(), Violation> {
    open_range(&["threshold"], partial.threshold, 0.0, 1.0)?;
    open_range(
        &["instructions-threshold"],
        partial.instructions_threshold,
        0.0,
        1.0,
    )?;
    open_range(&["alpha"], partial.alpha, 0.0, 0.5)?;
    open_range(&["equivalence-alpha"], partial.equivalence_alpha, 0.0, 0.5)?;
    open_range(&["confidence"], partial.confidence, 0.5, 1.0)?;
    at_least("sample-size", partial.sample_size, 10)?;
    at_least("forks", partial.forks, 2)?;
    at_least("min-forks", partial.min_forks, 2)?;
    at_least("max-forks", partial.max_forks, 2)?;
    at_least("window", partial.window, 2)?;
    at_least("layouts", partial.layouts, 1)?;
    at_least("resamples", partial.resamples, 100)?;
    positive("stop-threshold", partial.stop_threshold)?;
    positive("fork-timeout", partial.fork_timeout_s)?;
    // Criterion rejects a zero duration (the fork would panic).
    for (key, value) in [
        ("warm-up-ms", partial.warm_up_ms),
        ("measurement-ms", partial.measurement_ms),
    ] {
        if value == Some(0) {
            return Err(Violation::new(&[key], "must be at least 1".to_string()));
        }
    }
    Ok(())
}

/// Values that must agree with one another.
fn check_combinations(partial: &PartialSettings) -> Result<(), Violation> {
    if let (Some(min), Some(max)) = (partial.min_forks, partial.max_forks)
        && min > max
    {
        return Err(Violation::new(
            &["min-forks"],
            format!("({min}) must not exceed max-forks ({max})"),
        ));
    }
    if let Some([a, b]) = partial.cpus
        && a == b
    {
        return Err(Violation::new(
            &["cpus"],
            format!("must name two different CPUs, got [{a}, {b}]"),
        ));
    }
    Ok(())
}

/// The texts: filters and per-benchmark patterns valid regexes (with their thresholds in range),
/// commands valid, the profile named (in this order: the first violation is reported).
fn check_texts(partial: &PartialSettings) -> Result<(), Violation> {
    for filter in partial.filters.iter().flatten() {
        regex::Regex::new(filter).map_err(|e| {
            Violation::new(
                &["filters"],
                format!("{filter:?} is not a valid regex: {}", one_line(&e)),
            )
        })?;
    }
    if let Some(commands) = &partial.commands {
        crate::model::command::validate_all(commands)
            .map_err(|e| Violation::new(&["command"], format!("is invalid: {e}")))?;
    }
    if partial
        .profile
        .as_deref()
        .is_some_and(|p| p.trim().is_empty())
    {
        return Err(Violation::new(
            &["profile"],
            "must name a cargo profile".to_string(),
        ));
    }
    for (pattern, bench) in partial.benchmarks.iter().flatten() {
        regex::Regex::new(pattern).map_err(|e| {
            Violation::new(
                &["benchmarks", pattern],
                format!("is not a valid regex: {}", one_line(&e)),
            )
        })?;
        open_range(
            &["benchmarks", pattern, "threshold"],
            bench.threshold,
            0.0,
            1.0,
        )?;
    }
    Ok(())
}

fn open_range(key: &[&str], value: Option<f64>, low: f64, high: f64) -> Result<(), Violation> {
    match value {
        Some(v) if !(v > low && v < high) => Err(Violation::new(
            key,
            format!("must be between {low} and {high} (exclusive), got {v}"),
        )),
        _ => Ok(()),
    }
}

fn at_least(key: &str, value: Option<usize>, min: usize) -> Result<(), Violation> {
    match value {
        Some(v) if v < min => Err(Violation::new(
            &[key],
            format!("must be at least {min}, got {v}"),
        )),
        _ => Ok(()),
    }
}

fn positive(key: &str, value: Option<f64>) -> Result<(), Violation> {
    match value {
        Some(v) if !(v > 0.0 && v.is_finite()) => Err(Violation::new(
            &[key],
            format!("must be a positive number, got {v}"),
        )),
        _ => Ok(()),
    }
}

/// The regex crate's errors span several lines (a caret diagram); keep the last, the reason.
fn one_line(error: &regex::Error) -> String {
    let text = error.to_string();
    text.lines()
        .map(str::trim)
        .rfind(|line| !line.is_empty())
        .map(|line| line.trim_start_matches("error: "))
        .unwrap_or_default()
        .to_string()
}

/// `text` as a TOML basic string (also a valid quoted key).
fn quoted(text: &str) -> String {
    toml::Value::String(text.to_string()).to_string()
}

impl Effective {
    /// Applies one layer over what is there, recording `source` for every key it sets.
    fn apply(&mut self, partial: PartialSettings, source: &Source) {
        let overrides = self.apply_keys(partial, source);
        for (pattern, bench) in overrides.into_iter().flatten() {
            self.sources.insert(benchmark_key(&pattern), source.clone());
            self.settings.overrides.insert(pattern, bench);
        }
    }

    /// Sets every field of the settings that `partial` gives a value, recording `source` for its
    /// key; returns the layer's `[benchmarks]` overrides, which are no one field. Each field of
    /// [`PartialSettings`] is named once, below: one added there and not here does not compile.
    fn apply_keys(
        &mut self,
        partial: PartialSettings,
        source: &Source,
    ) -> Option<BTreeMap<String, BenchOverride>> {
        let settings = &mut self.settings;
        let sources = &mut self.sources;
        let mut set = |key: &str, present: bool| {
            if present {
                sources.insert(key.to_string(), source.clone());
            }
        };
        macro_rules! layer {
            ($($field:ident => $key:literal, $wrap:expr;)*) => {{
                let PartialSettings { $($field,)* benchmarks } = partial;
                $(
                    set($key, $field.is_some());
                    if let Some(value) = $field {
                        settings.$field = $wrap(value);
                    }
                )*
                benchmarks
            }};
        }
        layer! {
            mode => "mode", std::convert::identity;
            metric => "metric", std::convert::identity;
            explain => "explain", std::convert::identity;
            measure_all => "measure-all", std::convert::identity;
            stop => "stop", std::convert::identity;
            forks => "forks", std::convert::identity;
            min_forks => "min-forks", std::convert::identity;
            max_forks => "max-forks", std::convert::identity;
            stop_threshold => "stop-threshold", Some;
            window => "window", std::convert::identity;
            layouts => "layouts", std::convert::identity;
            warm_up_ms => "warm-up-ms", std::convert::identity;
            measurement_ms => "measurement-ms", std::convert::identity;
            sample_size => "sample-size", std::convert::identity;
            threshold => "threshold", std::convert::identity;
            instructions_threshold => "instructions-threshold", std::convert::identity;
            alpha => "alpha", std::convert::identity;
            equivalence_alpha => "equivalence-alpha", std::convert::identity;
            confidence => "confidence", std::convert::identity;
            resamples => "resamples", std::convert::identity;
            fdr => "fdr", std::convert::identity;
            seed => "seed", Some;
            fork_timeout_s => "fork-timeout", std::convert::identity;
            filters => "filters", std::convert::identity;
            fail_on => "fail-on", std::convert::identity;
            cpus => "cpus", Some;
            keep_duet => "keep-duet", std::convert::identity;
            commands => "command", std::convert::identity;
            profile => "profile", std::convert::identity;
        }
    }

    /// Checks that need the merged settings: keys from different layers that must agree.
    fn validate_combination(&self) -> Result<(), ConfigError> {
        let s = &self.settings;
        if s.min_forks > s.max_forks {
            let origin = |key: &str| {
                self.sources
                    .get(key)
                    .map_or_else(|| "default".to_string(), ToString::to_string)
            };
            return Err(ConfigError::InvalidValue {
                origin: origin("min-forks"),
                line: None,
                key: "min-forks".to_string(),
                message: format!(
                    "({}) must not exceed max-forks ({}, from {})",
                    s.min_forks,
                    s.max_forks,
                    origin("max-forks")
                ),
            });
        }
        Ok(())
    }

    /// Unless a layer set `min-forks`, the stop rule's own default (at most `max-forks`): which
    /// rule is in force is only known once every layer is applied.
    fn default_min_forks_for_the_rule(&mut self) {
        if *self.source_of("min-forks") == Source::Default {
            let settings = &mut self.settings;
            settings.min_forks = settings.stop.default_min_forks().min(settings.max_forks);
        }
    }

    /// The source of `key` (`Default` for keys no layer set).
    pub fn source_of(&self, key: &str) -> &Source {
        self.sources.get(key).unwrap_or(&Source::Default)
    }

    /// `cargo perfdiff --print-config`: every setting, its value and its source, as aligned text.
    pub fn render(&self) -> String {
        let rows: Vec<[String; 3]> = entries(&self.settings)
            .into_iter()
            .map(|entry| {
                let source = self.source_of(&entry.key).to_string();
                [entry.key, entry.shown, source]
            })
            .collect();
        let header = ["key".to_string(), "value".to_string(), "source".to_string()];
        let widths: Vec<usize> = (0..2)
            .map(|column| {
                std::iter::once(&header)
                    .chain(&rows)
                    .map(|row| row[column].chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let mut out = String::new();
        for row in std::iter::once(&header).chain(&rows) {
            let line = format!(
                "{:<w0$}  {:<w1$}  {}",
                row[0],
                row[1],
                row[2],
                w0 = widths[0],
                w1 = widths[1]
            );
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }

    /// A valid `perfdiff.toml` holding the effective settings. Unset optional settings appear as
    /// comments, so the file documents them too; reading it back gives the same [`Settings`].
    pub fn to_toml(&self) -> String {
        let mut out = String::from(
            "# perfdiff.toml: the effective settings of cargo-perfdiff (see docs/configuration.md)\n",
        );
        let mut benchmark_tables = String::new();
        for entry in entries(&self.settings) {
            match (entry.toml, entry.key.starts_with("benchmarks.")) {
                // The `[[command]]` tables come last.
                (None, _) if entry.key == "command" => {}
                (Some(value), false) => out.push_str(&format!("{} = {value}\n", entry.key)),
                (None, _) => out.push_str(&format!("# {} = …  ({})\n", entry.key, entry.shown)),
                (Some(value), true) => {
                    benchmark_tables.push_str(&format!("\n[{}]\n{value}", entry.key));
                }
            }
        }
        out.push_str(&benchmark_tables);
        for command in &self.settings.commands {
            let table = toml::Table::try_from(command).unwrap_or_default();
            out.push_str(&format!("\n[[command]]\n{table}"));
        }
        out
    }
}

fn benchmark_key(pattern: &str) -> String {
    format!("benchmarks.{}", quoted(pattern))
}

/// One row of `--print-config` / one line of `to_toml`.
struct Entry {
    key: String,
    /// For people: the value, or what an unset value means.
    shown: String,
    /// For the TOML file: the value's TOML text (a table body for `benchmarks.…`), `None` if unset.
    toml: Option<String>,
}

impl Entry {
    fn set(key: &str, value: toml::Value) -> Entry {
        let text = value.to_string();
        Entry {
            key: key.to_string(),
            shown: text.trim_matches('"').to_string(),
            toml: Some(text),
        }
    }

    fn unset(key: &str, meaning: &str) -> Entry {
        Entry {
            key: key.to_string(),
            shown: meaning.to_string(),
            toml: None,
        }
    }

    fn optional(key: &str, value: Option<toml::Value>, meaning: &str) -> Entry {
        value.map_or_else(|| Entry::unset(key, meaning), |v| Entry::set(key, v))
    }
}

/// `measurement-ms`: set, every fork's length; unset, the first rounds' length before each
/// benchmark's own is chosen, which a file written from it must leave unset too (a value there
/// would fix every fork's length).
fn measurement_entry(s: &Settings) -> Entry {
    if s.measurement_fixed {
        return Entry::set("measurement-ms", integer(s.measurement_ms));
    }
    Entry::unset(
        "measurement-ms",
        &format!(
            "unset: {} for two rounds, then each benchmark's own length",
            s.measurement_ms
        ),
    )
}

fn integer(n: impl TryInto<i64> + Copy + ToString) -> toml::Value {
    n.try_into()
        .map(toml::Value::Integer)
        .unwrap_or_else(|_| toml::Value::String(n.to_string()))
}

fn text(value: impl ToString) -> toml::Value {
    toml::Value::String(value.to_string())
}

/// Every setting of `s` as `--print-config` and `to_toml` give it: the keys in their order, then
/// each `[benchmarks."PATTERN"]` override.
fn entries(s: &Settings) -> Vec<Entry> {
    let mut entries = key_entries(s);
    for (pattern, bench) in &s.overrides {
        entries.push(override_entry(pattern, bench));
    }
    entries
}

/// The entries of the keys, each one field of the settings.
fn key_entries(s: &Settings) -> Vec<Entry> {
    use toml::Value::{Array, Boolean, Float};
    let fail_on = match s.fail_on {
        FailOn::Regression => "regression",
        FailOn::Inconclusive => "inconclusive",
        FailOn::AnyChange => "any-change",
        FailOn::Never => "never",
    };
    vec![
        Entry::set("mode", text(s.mode)),
        Entry::set("metric", text(s.metric)),
        Entry::set("explain", Boolean(s.explain)),
        Entry::set("measure-all", Boolean(s.measure_all)),
        Entry::set("stop", text(s.stop)),
        Entry::set("forks", integer(s.forks)),
        Entry::set("min-forks", integer(s.min_forks)),
        Entry::set("max-forks", integer(s.max_forks)),
        Entry::optional(
            "stop-threshold",
            s.stop_threshold.map(Float),
            "unset: the stop rule's published default",
        ),
        Entry::set("window", integer(s.window)),
        Entry::set("layouts", integer(s.layouts)),
        Entry::set("warm-up-ms", integer(s.warm_up_ms)),
        measurement_entry(s),
        Entry::set("sample-size", integer(s.sample_size)),
        Entry::set("threshold", Float(s.threshold)),
        Entry::set("instructions-threshold", Float(s.instructions_threshold)),
        Entry::set("alpha", Float(s.alpha)),
        Entry::set("equivalence-alpha", Float(s.equivalence_alpha)),
        Entry::set("confidence", Float(s.confidence)),
        Entry::set("resamples", integer(s.resamples)),
        Entry::set("fdr", Boolean(s.fdr)),
        Entry::optional(
            "seed",
            s.seed.map(integer),
            "unset: drawn at random and recorded",
        ),
        Entry::set("fork-timeout", Float(s.fork_timeout_s)),
        Entry::set("filters", Array(s.filters.iter().map(text).collect())),
        Entry::set("fail-on", text(fail_on)),
        Entry::optional(
            "cpus",
            s.cpus
                .map(|cpus| Array(cpus.iter().map(|c| integer(*c)).collect())),
            "unset: the first two CPUs the process may use",
        ),
        Entry::set("keep-duet", Boolean(s.keep_duet)),
        command_entry(&s.commands),
        Entry::set("profile", text(&s.profile)),
    ]
}

/// The entry of the commands: shown by name and command line, written as `[[command]]` tables at
/// the end of the file (`to_toml`).
fn command_entry(commands: &[CommandSpec]) -> Entry {
    Entry {
        key: "command".to_string(),
        shown: if commands.is_empty() {
            "none: benchmarks only".to_string()
        } else {
            commands
                .iter()
                .map(|c| format!("{} = {}", c.name, c.run))
                .collect::<Vec<_>>()
                .join("; ")
        },
        toml: None,
    }
}

/// The entry of the override of the benchmarks `pattern` matches.
fn override_entry(pattern: &str, bench: &BenchOverride) -> Entry {
    let mut body = String::new();
    let mut shown = Vec::new();
    if let Some(threshold) = bench.threshold {
        body.push_str(&format!("threshold = {}\n", toml::Value::Float(threshold)));
        shown.push(format!("threshold = {threshold}"));
    }
    if bench.ignore {
        body.push_str("ignore = true\n");
        shown.push("ignore".to_string());
    }
    Entry {
        key: benchmark_key(pattern),
        shown: if shown.is_empty() {
            "(no effect)".to_string()
        } else {
            shown.join(", ")
        },
        toml: Some(body),
    }
}
