//! Reading configuration files: each file kind, their precedence, the command line over them,
//! per-benchmark overrides, and the errors a user meets (unknown keys, bad values, bad TOML).

use std::fs;
use std::path::Path;

use cargo_perfdiff::config::{
    ConfigError, FailOn, Mode, PartialSettings, Source, StopRule, load, load_files, resolve,
};

fn workspace(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    for (name, text) in files {
        fs::write(dir.path().join(name), text).expect("write file");
    }
    dir
}

fn file_source(root: &Path, name: &str, table: &str) -> Source {
    Source::File {
        path: root.join(name),
        table: table.to_string(),
    }
}

fn error_of(files: &[(&str, &str)]) -> (String, ConfigError) {
    let dir = workspace(files);
    let error = load_files(dir.path()).expect_err("configuration should be rejected");
    (error.to_string(), error)
}

const PACKAGE_MANIFEST: &str = r#"
[package]
name = "demo"
version = "0.1.0"
edition = "2021"

[dependencies]
serde = "1"
"#;

#[test]
fn no_files_give_the_defaults_from_default_sources() {
    let dir = workspace(&[]);
    let effective = load(dir.path(), PartialSettings::default()).unwrap();
    assert_eq!(
        effective.settings,
        cargo_perfdiff::config::Settings::default()
    );
    assert!(effective.sources.values().all(|s| *s == Source::Default));
    assert!(effective.sources.contains_key("fork-timeout"));
}

#[test]
fn manifest_without_perfdiff_tables_adds_no_layer() {
    let dir = workspace(&[("Cargo.toml", PACKAGE_MANIFEST)]);
    assert!(load_files(dir.path()).unwrap().is_empty());
}

#[test]
fn workspace_metadata_is_read() {
    let manifest = r#"
[workspace]
members = ["a", "b"]

[workspace.metadata.perfdiff]
mode = "duet"
threshold = 0.05
fork-timeout = 60
filters = ["hash/", "parse"]
cpus = [2, 3]
"#;
    let dir = workspace(&[("Cargo.toml", manifest)]);
    let effective = load(dir.path(), PartialSettings::default()).unwrap();
    let s = &effective.settings;
    assert_eq!(s.mode, Mode::Duet);
    assert_eq!(s.threshold, 0.05);
    assert_eq!(s.fork_timeout_s, 60.0);
    assert_eq!(s.filters, vec!["hash/".to_string(), "parse".to_string()]);
    assert_eq!(s.cpus, Some([2, 3]));
    let ws = file_source(dir.path(), "Cargo.toml", "[workspace.metadata.perfdiff]");
    assert_eq!(effective.sources["threshold"], ws);
    assert_eq!(effective.sources["alpha"], Source::Default);
}

#[test]
fn package_metadata_is_read() {
    let manifest = format!(
        "{PACKAGE_MANIFEST}\n[package.metadata.perfdiff]\nstop = \"cv\"\nsample-size = 50\nfail-on = \"any-change\"\n"
    );
    let dir = workspace(&[("Cargo.toml", &manifest)]);
    let effective = load(dir.path(), PartialSettings::default()).unwrap();
    assert_eq!(effective.settings.stop, StopRule::Cv);
    assert_eq!(effective.settings.sample_size, 50);
    assert_eq!(effective.settings.fail_on, FailOn::AnyChange);
    assert_eq!(
        effective.sources["stop"],
        file_source(dir.path(), "Cargo.toml", "[package.metadata.perfdiff]")
    );
}

#[test]
fn perfdiff_toml_is_read_at_top_level() {
    let dir = workspace(&[(
        "perfdiff.toml",
        "forks = 12\nmin-forks = 4\nmax-forks = 30\nwindow = 6\nseed = 42\nfdr = false\n",
    )]);
    let effective = load(dir.path(), PartialSettings::default()).unwrap();
    let s = &effective.settings;
    assert_eq!(
        (s.forks, s.min_forks, s.max_forks, s.window),
        (12, 4, 30, 6)
    );
    assert_eq!(s.seed, Some(42));
    assert!(!s.fdr);
    assert_eq!(
        effective.sources["seed"],
        file_source(dir.path(), "perfdiff.toml", "")
    );
}

#[test]
fn seeds_above_the_toml_integer_range_are_written_as_strings() {
    let dir = workspace(&[("perfdiff.toml", "seed = \"18446744073709551615\"\n")]);
    let effective = load(dir.path(), PartialSettings::default()).unwrap();
    assert_eq!(effective.settings.seed, Some(u64::MAX));
}

#[test]
fn perfdiff_toml_beats_package_metadata_beats_workspace_metadata() {
    let manifest = r#"
[package]
name = "demo"
version = "0.1.0"

[workspace]

[workspace.metadata.perfdiff]
threshold = 0.10
alpha = 0.05
confidence = 0.95

[package.metadata.perfdiff]
threshold = 0.20
alpha = 0.02
equivalence-alpha = 0.1
"#;
    let dir = workspace(&[
        ("Cargo.toml", manifest),
        ("perfdiff.toml", "threshold = 0.30\n"),
    ]);
    let layers = load_files(dir.path()).unwrap();
    let tables: Vec<String> = layers
        .iter()
        .map(|(source, _)| source.to_string())
        .collect();
    assert_eq!(tables.len(), 3, "{tables:?}");
    assert!(tables[0].ends_with("[workspace.metadata.perfdiff]"));
    assert!(tables[1].ends_with("[package.metadata.perfdiff]"));
    assert!(tables[2].ends_with("perfdiff.toml"));

    let effective = resolve(layers, PartialSettings::default()).unwrap();
    assert_eq!(effective.settings.threshold, 0.30);
    assert_eq!(effective.settings.alpha, 0.02);
    assert_eq!(effective.settings.equivalence_alpha, 0.1);
    assert_eq!(effective.settings.confidence, 0.95);
    assert_eq!(
        effective.sources["threshold"],
        file_source(dir.path(), "perfdiff.toml", "")
    );
    assert_eq!(
        effective.sources["alpha"],
        file_source(dir.path(), "Cargo.toml", "[package.metadata.perfdiff]")
    );
    assert_eq!(
        effective.sources["confidence"],
        file_source(dir.path(), "Cargo.toml", "[workspace.metadata.perfdiff]")
    );
}

#[test]
fn command_line_beats_files() {
    let dir = workspace(&[(
        "perfdiff.toml",
        "threshold = 0.05\nmode = \"duet\"\nfilters = [\"a\"]\n",
    )]);
    let cli = PartialSettings {
        threshold: Some(0.01),
        filters: Some(vec!["b".to_string()]),
        ..PartialSettings::default()
    };
    let effective = load(dir.path(), cli).unwrap();
    assert_eq!(effective.settings.threshold, 0.01);
    assert_eq!(
        effective.settings.filters,
        vec!["b".to_string()],
        "filters are replaced, not merged"
    );
    assert_eq!(effective.settings.mode, Mode::Duet);
    assert_eq!(effective.sources["threshold"], Source::CommandLine);
    assert_eq!(
        effective.sources["mode"],
        file_source(dir.path(), "perfdiff.toml", "")
    );
}

#[test]
fn per_benchmark_overrides_change_threshold_and_ignore() {
    let config = r#"
threshold = 0.02

[benchmarks."^hash/mix$"]
threshold = 0.10

[benchmarks."flaky"]
ignore = true
"#;
    let dir = workspace(&[("perfdiff.toml", config)]);
    let effective = load(dir.path(), PartialSettings::default()).unwrap();
    let s = &effective.settings;
    assert_eq!(s.threshold_for("hash/mix"), 0.10);
    assert_eq!(
        s.threshold_for("hash/mix_more"),
        0.02,
        "the pattern is anchored"
    );
    assert_eq!(s.threshold_for("hash/steady"), 0.02);
    assert!(s.is_ignored("io/flaky_disk"));
    assert!(!s.is_ignored("hash/mix"));
    assert_eq!(
        effective.sources["benchmarks.\"flaky\""],
        file_source(dir.path(), "perfdiff.toml", "")
    );
}

#[test]
fn per_benchmark_overrides_merge_by_pattern_across_layers() {
    let manifest = r#"
[workspace.metadata.perfdiff.benchmarks."^a"]
threshold = 0.2
[workspace.metadata.perfdiff.benchmarks."^b"]
ignore = true
"#;
    let config = "[benchmarks.\"^a\"]\nthreshold = 0.3\n";
    let dir = workspace(&[("Cargo.toml", manifest), ("perfdiff.toml", config)]);
    let s = load(dir.path(), PartialSettings::default())
        .unwrap()
        .settings;
    assert_eq!(s.threshold_for("a1"), 0.3);
    assert!(s.is_ignored("b1"));
}

#[test]
fn unknown_key_names_key_file_line_and_suggestion() {
    let (message, error) = error_of(&[("perfdiff.toml", "mode = \"duet\"\nthresold = 0.05\n")]);
    match error {
        ConfigError::UnknownKey {
            key,
            suggestion,
            line,
            ..
        } => {
            assert_eq!(key, "thresold");
            assert_eq!(suggestion.as_deref(), Some("threshold"));
            assert_eq!(line, Some(2));
        }
        other => panic!("expected UnknownKey, got {other:?}"),
    }
    assert!(message.contains("perfdiff.toml:2"), "{message}");
    assert!(message.contains("`thresold`"), "{message}");
    assert!(message.contains("did you mean `threshold`"), "{message}");
}

#[test]
fn unknown_key_in_cargo_metadata_names_the_table() {
    let manifest = format!("{PACKAGE_MANIFEST}\n[package.metadata.perfdiff]\nfork_timeout = 10\n");
    let (message, _) = error_of(&[("Cargo.toml", &manifest)]);
    assert!(
        message.contains("Cargo.toml [package.metadata.perfdiff]"),
        "{message}"
    );
    assert!(message.contains("did you mean `fork-timeout`"), "{message}");
}

#[test]
fn unknown_key_in_a_benchmark_table_suggests_benchmark_keys() {
    let manifest = "[workspace.metadata.perfdiff.benchmarks.\"x\"]\nignored = true\n";
    let (message, _) = error_of(&[("Cargo.toml", manifest)]);
    assert!(
        message.contains("[workspace.metadata.perfdiff]"),
        "{message}"
    );
    assert!(message.contains("unknown key `ignored`"), "{message}");
    assert!(message.contains("did you mean `ignore`"), "{message}");
}

#[test]
fn unknown_key_far_from_every_known_key_has_no_suggestion() {
    let (message, _) = error_of(&[("perfdiff.toml", "colour = \"blue\"\n")]);
    assert!(message.contains("unknown key `colour`"), "{message}");
    assert!(!message.contains("did you mean"), "{message}");
}

#[test]
fn out_of_range_values_name_file_and_key() {
    let cases = [
        ("threshold = 1.5", "threshold"),
        ("threshold = 0.0", "threshold"),
        ("alpha = 0.5", "alpha"),
        ("equivalence-alpha = 0.5", "equivalence-alpha"),
        ("equivalence-alpha = 0.0", "equivalence-alpha"),
        ("confidence = 0.4", "confidence"),
        ("sample-size = 5", "sample-size"),
        ("forks = 1", "forks"),
        ("window = 1", "window"),
        ("resamples = 99", "resamples"),
        ("min-forks = 10\nmax-forks = 5", "min-forks"),
        ("cpus = [1, 1]", "cpus"),
        ("fork-timeout = -1", "fork-timeout"),
        ("warm-up-ms = 0", "warm-up-ms"),
        ("measurement-ms = 0", "measurement-ms"),
        ("filters = [\"(unclosed\"]", "filters"),
        (
            "[benchmarks.\"[bad\"]\nignore = true",
            "benchmarks.\"[bad\"",
        ),
        (
            "[benchmarks.\"ok\"]\nthreshold = 2.0",
            "benchmarks.\"ok\".threshold",
        ),
    ];
    for (text, key) in cases {
        let (message, error) = error_of(&[("perfdiff.toml", text)]);
        assert!(
            matches!(error, ConfigError::InvalidValue { .. }),
            "{text}: expected InvalidValue, got {error:?}"
        );
        assert!(message.contains("perfdiff.toml"), "{text}: {message}");
        assert!(message.contains(&format!("`{key}`")), "{text}: {message}");
        assert!(
            !message.contains('\n'),
            "{text}: one line please: {message}"
        );
    }
}

#[test]
fn min_forks_defaults_to_the_stop_rules_own_value_unless_set() {
    let min_forks_of = |files: &[(&str, &str)], cli: PartialSettings| {
        load(workspace(files).path(), cli)
            .unwrap()
            .settings
            .min_forks
    };
    // `decided` (the default rule) looks first at two forks; the paper's rules start at three.
    assert_eq!(min_forks_of(&[], PartialSettings::default()), 2);
    let cv = PartialSettings {
        stop: Some(StopRule::Cv),
        ..PartialSettings::default()
    };
    assert_eq!(min_forks_of(&[], cv.clone()), 3);
    assert_eq!(
        min_forks_of(
            &[("perfdiff.toml", "stop = \"kld\"\n")],
            PartialSettings::default()
        ),
        3
    );
    // A value from any layer wins over the rule's default.
    assert_eq!(
        min_forks_of(&[("perfdiff.toml", "min-forks = 4\n")], cv.clone()),
        4
    );
    // The rule's default never exceeds max-forks.
    let capped = PartialSettings {
        max_forks: Some(2),
        ..cv
    };
    assert_eq!(min_forks_of(&[], capped), 2);
}

#[test]
fn min_forks_above_max_forks_across_layers_is_rejected_naming_both() {
    let dir = workspace(&[("perfdiff.toml", "min-forks = 8\n")]);
    let cli = PartialSettings {
        max_forks: Some(4),
        ..PartialSettings::default()
    };
    let message = load(dir.path(), cli).unwrap_err().to_string();
    assert!(message.contains("perfdiff.toml"), "{message}");
    assert!(message.contains("min-forks"), "{message}");
    assert!(message.contains("command line"), "{message}");
}

#[test]
fn invalid_command_line_values_name_the_command_line() {
    let cli = PartialSettings {
        alpha: Some(0.7),
        ..PartialSettings::default()
    };
    let message = resolve(Vec::new(), cli).unwrap_err().to_string();
    assert!(message.starts_with("command line: `alpha`"), "{message}");
}

#[test]
fn forks_with_a_rule_other_than_fixed_is_rejected_pointing_to_max_forks() {
    // `--stop rciw --forks 5` would otherwise run rciw with its own cap and ignore the 5.
    let cli = PartialSettings {
        stop: Some(StopRule::Rciw),
        forks: Some(5),
        ..PartialSettings::default()
    };
    let message = resolve(Vec::new(), cli).unwrap_err().to_string();
    assert!(
        message.starts_with("command line: `forks` (5)"),
        "{message}"
    );
    assert!(message.contains("--stop rciw"), "{message}");
    assert!(message.contains("--max-forks 5"), "{message}");
    // With the fixed rule, or alone (which means fixed), forks is what it is for.
    for stop in [Some(StopRule::Fixed), None] {
        let cli = PartialSettings {
            stop,
            forks: Some(5),
            ..PartialSettings::default()
        };
        assert!(resolve(Vec::new(), cli).is_ok(), "{stop:?}");
    }
    // A file may keep `forks` for the runs that pass `--stop fixed`.
    let dir = workspace(&[("perfdiff.toml", "stop = \"cv\"\nforks = 4\n")]);
    let files = load_files(dir.path()).expect("a file may set forks beside another rule");
    let settings = resolve(files, PartialSettings::default()).expect("resolves");
    assert_eq!(
        (settings.settings.stop, settings.settings.forks),
        (StopRule::Cv, 4)
    );
}

#[test]
fn wrong_types_name_file_line_and_key() {
    let (message, error) = error_of(&[("perfdiff.toml", "\nforks = \"ten\"\n")]);
    assert!(
        matches!(error, ConfigError::Malformed { line: Some(2), .. }),
        "{error:?}"
    );
    assert!(message.contains("perfdiff.toml:2"), "{message}");
    let (message, _) = error_of(&[("perfdiff.toml", "mode = \"sequential\"\n")]);
    assert!(message.contains("sequential"), "{message}");
}

#[test]
fn malformed_toml_names_file_and_line() {
    let (message, error) = error_of(&[("perfdiff.toml", "mode = \"duet\"\n\nthreshold = = 3\n")]);
    assert!(
        matches!(error, ConfigError::Malformed { line: Some(3), .. }),
        "{error:?}"
    );
    assert!(message.contains("perfdiff.toml:3"), "{message}");
    assert!(!message.contains('\n'), "one line please: {message}");

    let (message, _) = error_of(&[("Cargo.toml", "[package\nname = 1\n")]);
    assert!(message.contains("Cargo.toml:1"), "{message}");
}

#[test]
fn unreadable_files_are_errors_naming_the_file() {
    let dir = workspace(&[]);
    fs::create_dir(dir.path().join("perfdiff.toml")).unwrap();
    let message = load_files(dir.path()).unwrap_err().to_string();
    assert!(message.contains("perfdiff.toml"), "{message}");

    let dir = workspace(&[]);
    fs::write(dir.path().join("perfdiff.toml"), [0xff, 0xfe, b'=']).unwrap();
    let message = load_files(dir.path()).unwrap_err().to_string();
    assert!(message.contains("perfdiff.toml"), "{message}");
}

#[test]
fn suggestions_catch_misspellings_but_not_unrelated_words() {
    use cargo_perfdiff::config::{BENCHMARK_KEYS, KNOWN_KEYS, closest_key};
    let cases = [
        ("thresold", Some("threshold")),
        ("fork_timeout", Some("fork-timeout")),
        ("warmup-ms", Some("warm-up-ms")),
        ("Sample_Size", Some("sample-size")),
        ("alfa", Some("alpha")),
        ("seeds", Some("seed")),
        ("foo", None),
        ("colour", None),
        ("benchmark-filter", None),
    ];
    for (key, expected) in cases {
        assert_eq!(closest_key(key, KNOWN_KEYS), expected, "{key}");
    }
    assert_eq!(closest_key("ignored", BENCHMARK_KEYS), Some("ignore"));
}

#[test]
fn a_measurement_time_set_anywhere_fixes_every_fork_s_length() {
    let dir = workspace(&[]);
    let defaults = load(dir.path(), PartialSettings::default()).unwrap();
    assert!(
        !defaults.settings.measurement_fixed,
        "unset: chosen per benchmark"
    );
    let cli = PartialSettings {
        measurement_ms: Some(500),
        ..PartialSettings::default()
    };
    let on_the_command_line = load(dir.path(), cli).unwrap();
    assert!(on_the_command_line.settings.measurement_fixed);
    let dir = workspace(&[("perfdiff.toml", "measurement-ms = 300\n")]);
    let in_a_file = load(dir.path(), PartialSettings::default()).unwrap();
    assert!(in_a_file.settings.measurement_fixed);
    assert_eq!(in_a_file.settings.measurement_ms, 300);
}
