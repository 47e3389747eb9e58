//! Listing benchmarks: criterion's terse format, failures, and the timeout. Scripts stand in for
//! bench executables, so each failure mode is produced for real.
#![cfg(unix)]

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::{Duration, Instant};

use cargo_perfdiff::model::harness::CliDialect;
use cargo_perfdiff::steps::build::BenchExecutable;
use cargo_perfdiff::steps::discover::{DiscoverError, HarnessKind, list_benchmarks};

/// An executable shell script with `body`, as bench target `fake` of a package in `dir`.
fn script(dir: &Path, body: &str) -> BenchExecutable {
    let path = dir.join("fake-bench");
    fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
    BenchExecutable {
        package: "pkg".into(),
        target: "fake".into(),
        path,
        layouts: Vec::new(),
        relink: None,
        relink_missing: None,
        package_root: dir.to_path_buf(),
        manifest_path: dir.join("Cargo.toml"),
        harness: false,
        package_version: "0.1.0".into(),
        cargo_env: Vec::new(),
        native_library_dirs: Vec::new(),
        build_out_dirs: Vec::new(),
        src_path: dir.join("benches/fake.rs"),
    }
}

#[test]
fn arguments_environment_and_directory_are_those_of_a_listing() {
    let dir = tempfile::tempdir().unwrap();
    let exe = script(
        dir.path(),
        r#"[ "$*" = "--bench --list --format terse" ] || { echo "bad args: $*" >&2; exit 9; }
[ -z "$CARGO_CRITERION_PORT" ] || { echo "port leaked" >&2; exit 8; }
echo "$PWD: benchmark"
echo "$MY_VAR/with space: benchmark"
echo "Gnuplot not found, using plotters backend"
printf 'ünï/cödé:x/3: benchmark\n'"#,
    );
    let env = [("MY_VAR".into(), "from env".into())];
    let listing =
        list_benchmarks(HarnessKind::Criterion, &exe, &env, Duration::from_secs(20)).unwrap();
    assert_eq!(
        listing.harness.criterion_dialect().unwrap(),
        CliDialect::Current
    );
    let ids = listing.ids;
    let cwd = dir.path().canonicalize().unwrap();
    assert_eq!(
        ids,
        [
            cwd.display().to_string(),
            "from env/with space".to_string(),
            "ünï/cödé:x/3".to_string()
        ]
    );
}

/// Criterion 0.3's answers: clap rejects `--format`, and `--list` prints `<id>: bench` lines
/// after its warnings.
const CRITERION_0_3: &str = r#"case "$*" in
  "--bench --list") echo "WARNING: HTML report generation will become optional"
                    echo "alloc-try-with/small, small: bench"
                    echo "extend 4 bytes/extend: bench" ;;
  "--bench --list --measurement-time 0.5")
      echo "error: Invalid value: The argument '0.5' isn't a valid value"; exit 1 ;;
  *) echo "error: Found argument '--format' which wasn't expected" >&2; exit 1 ;;
esac"#;

/// Criterion 0.4's: clap rejects `--format` as in 0.3, but a fractional `--measurement-time`
/// is taken.
const CRITERION_0_4: &str = r#"case "$*" in
  "--bench --list"|"--bench --list --measurement-time 0.5")
      echo "combinations_with_replacement1/nth/0: bench"
      echo "combinations_with_replacement1/fold: bench" ;;
  *) echo "error: Found argument '--format' which wasn't expected" >&2; exit 2 ;;
esac"#;

#[test]
fn criterion_0_3_and_0_4_are_listed_without_format_and_told_apart_by_their_seconds() {
    for (listing_script, ids, dialect) in [
        (
            CRITERION_0_3,
            ["alloc-try-with/small, small", "extend 4 bytes/extend"],
            CliDialect::Criterion03,
        ),
        (
            CRITERION_0_4,
            [
                "combinations_with_replacement1/nth/0",
                "combinations_with_replacement1/fold",
            ],
            CliDialect::Criterion04,
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let exe = script(dir.path(), listing_script);
        let listing =
            list_benchmarks(HarnessKind::Criterion, &exe, &[], Duration::from_secs(20)).unwrap();
        assert_eq!(listing.ids, ids, "{dialect:?}");
        assert_eq!(listing.harness.criterion_dialect().unwrap(), dialect);
    }
}

#[test]
fn only_a_rejected_format_is_retried() {
    let dir = tempfile::tempdir().unwrap();
    let calls = dir.path().join("calls");
    let exe = script(
        dir.path(),
        &format!(
            "echo x >> '{}'\necho 'thread main panicked' >&2\nexit 3",
            calls.display()
        ),
    );
    assert!(list_benchmarks(HarnessKind::Criterion, &exe, &[], Duration::from_secs(20)).is_err());
    assert_eq!(fs::read_to_string(&calls).unwrap().lines().count(), 1);
}

#[test]
fn a_failing_listing_names_the_target_and_quotes_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let exe = script(
        dir.path(),
        "echo 'thread main panicked: no fixture' >&2\nexit 3",
    );
    let err =
        list_benchmarks(HarnessKind::Criterion, &exe, &[], Duration::from_secs(20)).unwrap_err();
    assert!(matches!(err, DiscoverError::List { .. }));
    let text = err.to_string();
    assert!(
        text.contains("\"fake\"") && text.contains("fake-bench"),
        "{text}"
    );
    assert!(text.contains("no fixture") && text.contains("3"), "{text}");
}

#[test]
fn a_hanging_executable_is_killed_at_the_timeout() {
    let dir = tempfile::tempdir().unwrap();
    // A child that outlives the script would keep the output pipes open if only the script died.
    let exe = script(dir.path(), "echo 'thinking' >&2\nsleep 30\necho late");
    let started = Instant::now();
    let err = list_benchmarks(
        HarnessKind::Criterion,
        &exe,
        &[],
        Duration::from_millis(300),
    )
    .unwrap_err();
    assert!(matches!(err, DiscoverError::ListTimedOut { .. }), "{err}");
    let err = err.to_string();
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "took {:?}",
        started.elapsed()
    );
    assert!(err.contains("killed") && err.contains("thinking"), "{err}");
}

#[test]
fn a_missing_executable_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let mut exe = script(dir.path(), "true");
    exe.path = dir.path().join("gone");
    let err = list_benchmarks(HarnessKind::Criterion, &exe, &[], Duration::from_secs(5))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("gone") && err.contains("cannot start"),
        "{err}"
    );
}
