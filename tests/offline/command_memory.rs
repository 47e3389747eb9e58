//! The peak memory a command's execution reports is the program's own, as `/usr/bin/time -f %M`
//! reads it, not the size of cargo-perfdiff (Linux keeps a process's high-water RSS across exec:
//! docs/commands.md, "Why a helper process measures memory"). Runs the real helper.

use std::process::Command;

use crate::gnu_time::assert_peak_as_gnu_time_says;

/// The measuring helper's own program, `perfdiff-exec`, which cargo-perfdiff starts from beside
/// itself.
const HELPER: &str = env!("CARGO_BIN_EXE_perfdiff-exec");

/// Peak RSS in KiB of `argv` as `helper` measures it.
fn helper_peak_kib(helper: &str, argv: &[&str]) -> f64 {
    let dir = tempfile::tempdir().unwrap();
    let result = dir.path().join("result.json");
    let status = Command::new(helper)
        .arg("__perfdiff-exec")
        .arg(&result)
        .args(["0", "", "--"])
        .args(argv)
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let outcome: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&result).unwrap()).unwrap();
    assert_eq!(outcome["exit_code"], 0, "{outcome}");
    outcome["peak_rss_bytes"].as_f64().unwrap() / 1024.0
}

#[test]
fn a_small_and_a_large_program_peak_at_their_own_size_as_gnu_time_says() {
    let small: &[&str] = &["/bin/true"];
    // dd reads 32 MiB of zeros into one buffer: its peak is about 33 MiB.
    let large: &[&str] = &["dd", "if=/dev/zero", "of=/dev/null", "bs=32M", "count=1"];
    let small_peak = helper_peak_kib(HELPER, small);
    let large_peak = helper_peak_kib(HELPER, large);
    assert!(
        small_peak < 3.0 * 1024.0,
        "/bin/true peaked at {small_peak} KiB"
    );
    assert!(
        (32.0 * 1024.0..40.0 * 1024.0).contains(&large_peak),
        "dd peaked at {large_peak} KiB"
    );
    for (argv, peak) in [(small, small_peak), (large, large_peak)] {
        assert_peak_as_gnu_time_says(argv, peak);
    }
}

/// Where `perfdiff-exec` is missing, cargo-perfdiff answers the same arguments itself: the peak
/// is still the program's own above cargo-perfdiff's written pages, not its whole size.
#[test]
fn cargo_perfdiff_itself_still_answers_as_the_helper() {
    let small_peak = helper_peak_kib(env!("CARGO_BIN_EXE_cargo-perfdiff"), &["/bin/true"]);
    assert!(
        small_peak < 4.0 * 1024.0,
        "/bin/true peaked at {small_peak} KiB"
    );
}

#[test]
fn perfdiff_exec_run_by_hand_says_what_it_is() {
    let output = Command::new(HELPER).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("run `cargo perfdiff` instead"), "{stderr}");
}
