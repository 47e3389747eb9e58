//! libtest's `#[bench]` harness, and the text both it and the `bencher` crate print.
//!
//! Listing: `<exe> --list --format terse` prints one `<name>: benchmark` line per `#[bench]`
//! function (`<name>: bench` before Rust 1.7x's libtest), and `<name>: test` for the tests of the
//! same target, which are not benchmarks.
//! One fork: `<exe> --bench --exact <name>` measures that function alone and prints
//! `test <name> ... bench:   1,234.56 ns/iter (+/- 78.90)`: the median time per iteration over
//! libtest's samples, and the spread of its samples (`max − min`), which we do not use. The
//! `bencher` crate prints the same line (whole nanoseconds), with the name padded to the longest
//! name of the run.

use std::ffi::OsString;

/// The suffixes of a benchmark's line in libtest's terse listing, current and older.
const BENCH_SUFFIXES: [&str; 2] = [": benchmark", ": bench"];

/// The `#[bench]` names in libtest's terse listing, in order; tests are left out.
pub fn parse_list(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .map(|line| line.strip_suffix('\r').unwrap_or(line))
        .filter_map(|line| {
            BENCH_SUFFIXES
                .iter()
                .find_map(|suffix| line.strip_suffix(suffix))
        })
        .map(str::to_string)
        .collect()
}

/// The arguments of a libtest listing.
pub const LIST_ARGS: &[&str] = &["--list", "--format", "terse"];

/// The arguments of one fork measuring exactly `name`.
pub fn fork_args(name: &str) -> Vec<OsString> {
    ["--bench", "--exact", name].map(OsString::from).to_vec()
}

/// The median nanoseconds per iteration of benchmark `name` from its result line
/// (`test <name> ... bench: <n> ns/iter (+/- <d>)`, the name possibly padded with spaces);
/// `None` for another benchmark's line or any other line.
pub fn ns_per_iter_in_line(name: &str, line: &str) -> Option<f64> {
    let rest = line.trim_end().strip_prefix("test ")?.strip_prefix(name)?;
    let rest = rest.trim_start_matches(' ').strip_prefix("... bench:")?;
    let number = rest.trim_start().split(' ').next()?;
    let after = rest.trim_start()[number.len()..].trim_start();
    if !after.starts_with("ns/iter") {
        return None;
    }
    super::parse_grouped_number(number)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listing_keeps_benches_only() {
        let stdout = "tests::adds: test\nmix: benchmark\nhash::checksum: benchmark\r\n";
        assert_eq!(parse_list(stdout), vec!["mix", "hash::checksum"]);
        let older = "tests::adds: test\nmix: bench\n";
        assert_eq!(parse_list(older), vec!["mix"]);
        assert!(parse_list("").is_empty());
    }

    #[test]
    fn result_lines_of_libtest_and_bencher() {
        let libtest = "test mix ... bench:       1,234.56 ns/iter (+/- 78.90)";
        assert_eq!(ns_per_iter_in_line("mix", libtest), Some(1234.56));
        let padded = "test mix          ... bench:      12,345 ns/iter (+/- 99) = 12 MB/s";
        assert_eq!(ns_per_iter_in_line("mix", padded), Some(12345.0));
        let tiny = "test a::b ... bench:           0.42 ns/iter (+/- 0.01)";
        assert_eq!(ns_per_iter_in_line("a::b", tiny), Some(0.42));
    }

    #[test]
    fn other_lines_and_other_benchmarks_are_not_read() {
        let line = "test mix_large ... bench:       1,234 ns/iter (+/- 78)";
        assert_eq!(ns_per_iter_in_line("mix", line), None);
        assert_eq!(ns_per_iter_in_line("mix", "test mix ... ignored"), None);
        assert_eq!(ns_per_iter_in_line("mix", "test mix ... FAILED"), None);
        assert_eq!(ns_per_iter_in_line("mix", "running 1 test"), None);
        assert_eq!(
            ns_per_iter_in_line("mix", "test mix ... bench: x ns/iter"),
            None
        );
    }
}
