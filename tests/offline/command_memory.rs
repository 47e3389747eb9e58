//! The peak memory a command's execution reports is the program's own, as `/usr/bin/time -f %M`
//! reads it, not the size of cargo-perfdiff (Linux keeps a process's high-water RSS across exec:
//! docs/commands.md, "Why a helper process measures memory"). Runs the real helper.

use std::process::Command;

/// Peak RSS in KiB of `argv` as cargo-perfdiff's helper measures it.
fn helper_peak_kib(argv: &[&str]) -> f64 {
    let dir = tempfile::tempdir().unwrap();
    let result = dir.path().join("result.json");
    let status = Command::new(env!("CARGO_BIN_EXE_cargo-perfdiff"))
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

/// Peak RSS in KiB as GNU time reports it, when it is installed.
///
/// Both are floors, not exact: the program inherits the high-water RSS of whatever started it.
/// GNU time passes on its own few hundred KiB (864 on CI, 984 here); the helper passes on its own
/// pages, about 1,400 KiB in this debug build. So the two differ by up to about 550 KiB for the
/// same program, and [`FLOOR_TOLERANCE_KIB`] allows that with room. A helper that passed on
/// cargo-perfdiff's own size (tens of MiB) would still fail by far.
fn gnu_time_peak_kib(argv: &[&str]) -> Option<f64> {
    let output = Command::new("/usr/bin/time")
        .args(["-f", "%M"])
        .args(argv)
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&output.stderr);
    text.lines().last()?.trim().parse().ok()
}

/// How far the helper's peak may lie from GNU time's: the two floors' difference with room.
const FLOOR_TOLERANCE_KIB: f64 = 1024.0;

#[test]
fn a_small_and_a_large_program_peak_at_their_own_size_as_gnu_time_says() {
    let small: &[&str] = &["/bin/true"];
    // dd reads 32 MiB of zeros into one buffer: its peak is about 33 MiB.
    let large: &[&str] = &["dd", "if=/dev/zero", "of=/dev/null", "bs=32M", "count=1"];
    let small_peak = helper_peak_kib(small);
    let large_peak = helper_peak_kib(large);
    assert!(
        small_peak < 3.0 * 1024.0,
        "/bin/true peaked at {small_peak} KiB"
    );
    assert!(
        (32.0 * 1024.0..40.0 * 1024.0).contains(&large_peak),
        "dd peaked at {large_peak} KiB"
    );
    for (argv, peak) in [(small, small_peak), (large, large_peak)] {
        if let Some(reference) = gnu_time_peak_kib(argv) {
            assert!(
                (peak - reference).abs() <= FLOOR_TOLERANCE_KIB.max(reference * 0.05),
                "{argv:?}: {peak} KiB against /usr/bin/time's {reference} KiB"
            );
        }
    }
}
