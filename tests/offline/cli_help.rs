//! The command line's own help: `-h` fits one screen, `--help` keeps every detail, and the shell
//! completions clap generates are there and load. Nothing is built or measured.

use std::process::{Command, Output};

use cargo_perfdiff::cli::Cli;
use clap::CommandFactory;

/// `cargo-perfdiff ARGS` with `COLUMNS` set, as cargo runs it (`perfdiff` first).
fn perfdiff(columns: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-perfdiff"))
        .arg("perfdiff")
        .args(args)
        .env("COLUMNS", columns)
        .output()
        .expect("the binary runs")
}

fn stdout(output: &Output) -> String {
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout.clone()).unwrap()
}

/// Every long option of the main command, as `--name`.
fn long_options() -> Vec<String> {
    Cli::command()
        .get_arguments()
        .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
        .collect()
}

#[test]
fn short_help_fits_one_screen_with_the_common_options_and_examples() {
    let help = stdout(&perfdiff("80", &["-h"]));
    let lines: Vec<&str> = help.lines().collect();
    assert!(lines.len() <= 40, "{} lines:\n{help}", lines.len());
    for line in &lines {
        assert!(line.chars().count() <= 80, "wider than 80: {line}");
    }
    for common in [
        "--manifest-path",
        "--package",
        "--bench",
        "--mode",
        "--shard",
        "--list",
        "--threshold",
        "--fail-on",
        "--format",
        "--output",
        "--html",
        "Examples:",
        "cargo perfdiff HEAD~1 HEAD",
        "Exit codes:",
    ] {
        assert!(help.contains(common), "{common} missing from -h:\n{help}");
    }
    for detail in [
        "--min-forks",
        "--warm-up-time",
        "--copy-untracked",
        "--resamples",
    ] {
        assert!(
            !help.contains(detail),
            "{detail} belongs in --help:\n{help}"
        );
    }
}

#[test]
fn long_help_keeps_every_option_and_the_detail() {
    let help = stdout(&perfdiff("100", &["--help"]));
    for option in long_options() {
        assert!(help.contains(&option), "{option} missing from --help");
    }
    for detail in [
        "merge-base(A, B)",
        "130 interrupted",
        "3 inconclusive or failed",
        "`any-change` also exits 4",
        "- decided: The comparison is decided",
        "--print-config",
    ] {
        assert!(
            help.contains(detail),
            "{detail} missing from --help:\n{help}"
        );
    }
}

#[test]
fn completions_are_printed_for_every_shell_clap_knows() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = stdout(&perfdiff("80", &["completions", shell]));
        // fish names options without their dashes (`-l threshold`).
        for word in ["cargo-perfdiff", "threshold", "fail-on", "completions"] {
            assert!(script.contains(word), "{shell}: no {word}");
        }
    }
    let unknown = perfdiff("80", &["completions", "tcsh"]);
    assert_eq!(unknown.status.code(), Some(2), "{unknown:?}");
    let error = String::from_utf8_lossy(&unknown.stderr);
    assert!(error.contains("possible values"), "{error}");
}

/// The bash script is valid bash, and completing `cargo-perfdiff --thr` offers `--threshold`.
#[test]
fn the_bash_completion_loads_and_completes() {
    let script = stdout(&perfdiff("80", &["completions", "bash"]));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cargo-perfdiff.bash");
    std::fs::write(&path, script).unwrap();
    // The function the script registers for `cargo-perfdiff`, called as bash would call it.
    let probe = format!(
        "source {path}; func=$(complete -p cargo-perfdiff | sed -E 's/.*-F ([^ ]+) .*/\\1/'); \
         COMP_WORDS=(cargo-perfdiff --thr); COMP_CWORD=1; \
         \"$func\" cargo-perfdiff --thr cargo-perfdiff; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        path = path.display()
    );
    let output = Command::new("bash")
        .args(["--norc", "--noprofile", "-c", &probe])
        .output()
        .expect("bash runs");
    let offered = String::from_utf8_lossy(&output.stdout);
    assert!(
        offered.lines().any(|l| l == "--threshold"),
        "offered {offered:?}; stderr {}",
        String::from_utf8_lossy(&output.stderr)
    );
}
