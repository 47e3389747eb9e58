//! `--print-config` output and `to_toml`: every key shown with its source, and the TOML written
//! reads back to the same settings.

use std::collections::BTreeMap;
use std::fs;

use cargo_perfdiff::config::{
    BenchOverride, Effective, FailOn, KNOWN_KEYS, Mode, PartialSettings, Settings, Source,
    StopRule, load, resolve,
};

/// Every setting resolved from one file layer (a file, unlike the command line, may set `forks`
/// beside a rule other than `fixed`).
fn resolve_everything_set() -> Effective {
    let file = Source::File {
        path: "/repo/perfdiff.toml".into(),
        table: "top level".to_string(),
    };
    resolve(vec![(file, everything_set())], PartialSettings::default()).unwrap()
}

fn everything_set() -> PartialSettings {
    let mut benchmarks = BTreeMap::new();
    benchmarks.insert(
        "^hash/(mix|checksum)$".to_string(),
        BenchOverride {
            threshold: Some(0.1),
            ignore: false,
        },
    );
    benchmarks.insert(
        "flaky \"quoted\"".to_string(),
        BenchOverride {
            threshold: None,
            ignore: true,
        },
    );
    PartialSettings {
        mode: Some(Mode::Duet),
        metric: Some("time,instructions".parse().unwrap()),
        explain: Some(true),
        measure_all: Some(true),
        stop: Some(StopRule::Rciw),
        forks: Some(7),
        min_forks: Some(3),
        max_forks: Some(9),
        stop_threshold: Some(0.03),
        window: Some(4),
        layouts: Some(3),
        warm_up_ms: Some(100),
        measurement_ms: Some(500),
        sample_size: Some(20),
        threshold: Some(0.04),
        instructions_threshold: Some(0.001),
        alpha: Some(0.05),
        equivalence_alpha: Some(0.1),
        confidence: Some(0.95),
        resamples: Some(2000),
        fdr: Some(false),
        seed: Some(u64::MAX),
        fork_timeout_s: Some(12.5),
        filters: Some(vec!["hash/".to_string(), "a\\.b".to_string()]),
        fail_on: Some(FailOn::Inconclusive),
        cpus: Some([2, 5]),
        keep_duet: Some(true),
        benchmarks: Some(benchmarks),
        commands: Some(vec![
            cargo_perfdiff::config::CommandSpec::from_cli("parse={bin}/mycli parse 'a b'").unwrap(),
        ]),
        profile: Some("bench".to_string()),
    }
}

#[test]
fn known_keys_match_the_partial_settings_fields() {
    let partial = PartialSettings {
        seed: Some(1), // u64::MAX does not fit a TOML integer
        ..everything_set()
    };
    let table = toml::Table::try_from(partial).expect("serialises");
    let mut fields: Vec<&str> = table.keys().map(String::as_str).collect();
    let mut known = KNOWN_KEYS.to_vec();
    fields.sort_unstable();
    known.sort_unstable();
    assert_eq!(
        fields, known,
        "KNOWN_KEYS must list every PartialSettings key"
    );
}

#[test]
fn render_lists_every_key_with_its_value_and_source() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("perfdiff.toml"), "threshold = 0.05\n").unwrap();
    let cli = PartialSettings {
        mode: Some(Mode::Duet),
        ..PartialSettings::default()
    };
    let text = load(dir.path(), cli).unwrap().render();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines.len(),
        1 + KNOWN_KEYS.len() - 1,
        "header + one row per key:\n{text}"
    );
    for key in KNOWN_KEYS.iter().filter(|k| **k != "benchmarks") {
        assert!(
            lines
                .iter()
                .any(|l| l.split_whitespace().next() == Some(key)),
            "{key} missing:\n{text}"
        );
    }
    let row = |key: &str| {
        *lines
            .iter()
            .find(|l| l.starts_with(&format!("{key} ")))
            .unwrap()
    };
    assert!(row("threshold").contains("0.05"), "{text}");
    assert!(row("threshold").ends_with("perfdiff.toml"), "{text}");
    assert!(
        row("mode").contains("duet") && row("mode").ends_with("command line"),
        "{text}"
    );
    assert!(row("alpha").ends_with("default"), "{text}");
    // Aligned: the value column starts at the same position in every row.
    let value_column = |line: &str| {
        line.find("  ")
            .map(|i| i + line[i..].len() - line[i..].trim_start().len())
    };
    let columns: Vec<_> = lines.iter().map(|l| value_column(l)).collect();
    assert!(
        columns.windows(2).all(|w| w[0] == w[1]),
        "not aligned:\n{text}"
    );
}

#[test]
fn render_shows_per_benchmark_overrides() {
    let effective = resolve_everything_set();
    let text = effective.render();
    assert!(
        text.contains("benchmarks.\"^hash/(mix|checksum)$\""),
        "{text}"
    );
    assert!(text.contains("threshold = 0.1"), "{text}");
    assert!(text.contains("ignore"), "{text}");
}

#[test]
fn to_toml_reads_back_to_the_same_settings() {
    let defaults = resolve(Vec::new(), PartialSettings::default()).unwrap();
    for effective in [defaults, resolve_everything_set()] {
        let text = effective.to_toml();
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("perfdiff.toml"), &text).unwrap();
        let reread = load(dir.path(), PartialSettings::default())
            .unwrap_or_else(|e| panic!("to_toml output rejected: {e}\n{text}"));
        assert_eq!(reread.settings, effective.settings, "{text}");
    }
}

#[test]
fn to_toml_of_defaults_comments_out_unset_options() {
    let text = resolve(Vec::new(), PartialSettings::default())
        .unwrap()
        .to_toml();
    assert!(text.contains("# seed = "), "{text}");
    assert!(text.contains("\nthreshold = 0.02\n"), "{text}");
    let parsed: toml::Table = text.parse().unwrap();
    assert!(!parsed.contains_key("seed"));
    assert_eq!(
        resolve(Vec::new(), PartialSettings::default())
            .unwrap()
            .settings,
        Settings::default()
    );
}

#[test]
#[ignore = "prints the output for a person to look at"]
fn show_render_and_toml() {
    let effective = resolve_everything_set();
    println!("{}\n{}", effective.render(), effective.to_toml());
    let defaults = resolve(Vec::new(), PartialSettings::default()).unwrap();
    println!("{}\n{}", defaults.render(), defaults.to_toml());
}

#[test]
fn sources_display_file_and_table() {
    let source = Source::File {
        path: "/repo/Cargo.toml".into(),
        table: "[workspace.metadata.perfdiff]".to_string(),
    };
    assert_eq!(
        source.to_string(),
        "/repo/Cargo.toml [workspace.metadata.perfdiff]"
    );
    assert_eq!(Source::CommandLine.to_string(), "command line");
}

/// The `measure-all` row of `cargo perfdiff --print-config` in a workspace of no settings, with
/// `args` and `CARGO_PERFDIFF_MEASURE_ALL` set to `variable` (unset: `None`).
fn measure_all_row(args: &[&str], variable: Option<&str>) -> String {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("Cargo.toml"),
        "[package]\nname = \"settings\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    )
    .unwrap();
    fs::create_dir(dir.path().join("src")).unwrap();
    fs::write(dir.path().join("src/lib.rs"), "").unwrap();
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_cargo-perfdiff"));
    command
        .args(["perfdiff", "--print-config"])
        .args(args)
        .current_dir(dir.path())
        .env_remove("CARGO_PERFDIFF_MEASURE_ALL");
    if let Some(value) = variable {
        command.env("CARGO_PERFDIFF_MEASURE_ALL", value);
    }
    let output = command.output().unwrap();
    assert!(output.status.success(), "{output:?}");
    let text = String::from_utf8(output.stdout).unwrap();
    let row = text
        .lines()
        .find(|line| line.starts_with("measure-all "))
        .unwrap_or_else(|| panic!("no measure-all row in {text}"));
    row.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn measure_all_from_the_environment_is_labelled_with_its_variable() {
    assert_eq!(
        measure_all_row(&[], Some("1")),
        "measure-all true environment CARGO_PERFDIFF_MEASURE_ALL"
    );
    // The flag is the command line's, with the variable set or not; a falsey value sets nothing.
    assert_eq!(
        measure_all_row(&["--measure-all"], Some("1")),
        "measure-all true command line"
    );
    assert_eq!(
        measure_all_row(&["--measure-all"], None),
        "measure-all true command line"
    );
    assert_eq!(measure_all_row(&[], Some("0")), "measure-all false default");
    assert_eq!(
        Source::Environment {
            variable: "CARGO_PERFDIFF_MEASURE_ALL".to_string()
        }
        .to_string(),
        "environment CARGO_PERFDIFF_MEASURE_ALL"
    );
}
