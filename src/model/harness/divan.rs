//! divan: listing, one fork's command line, and its summary table.
//!
//! Listing: divan prints machine-readable names only in the `--list --format terse` form it
//! offers cargo-nextest (it accepts `--format` only when `NEXTEST=1` is set), one
//! `<path>: benchmark` line per benchmark, `<path>::<arg>` for each argument of a benchmark with
//! `args`. Those paths are exactly what `--exact` selects.
//!
//! One fork: `--bench --exact <path> --min-time <s> --max-time <s>` measures that benchmark (one
//! argument of it) for the measurement time; command-line options override the benchmark's own
//! attributes in divan. Divan has no machine-readable output (nvzqz/divan#10), so the value is
//! read from its table: the row of the benchmark, whose third column is the median time per
//! iteration over its samples (`fastest │ slowest │ median │ mean │ samples │ iters`), printed to
//! four significant digits with a unit from `ps` to `d`.
//!
//! Why the median, not the mean: over 20 forks of the demo's divan benchmarks (0.5 s each), the
//! fork medians varied by a CV of 0.0–0.1 %, the fork means by 0.3–0.6 %: divan's samples at a
//! few microseconds are single iterations, and an interrupt in one of them moves the mean (one
//! sample of 4.7 ms among 33,000 of 3 µs put a fork's mean 60 % above its median). libtest and
//! `bencher` report a median as well. The figures and the command: docs/design/evidence.md, "Every
//! harness".

use std::ffi::OsString;
use std::time::Duration;

/// The column separator of divan's table.
const COLUMN: char = '│';
/// The index of the median among the columns.
const MEDIAN_COLUMN: usize = 2;

/// The arguments of a divan listing (with [`list_env`]).
pub const LIST_ARGS: &[&str] = &["--list", "--format", "terse"];

/// The environment a divan listing needs: divan accepts `--format terse` only under nextest.
pub fn list_env() -> Vec<(OsString, OsString)> {
    vec![("NEXTEST".into(), "1".into())]
}

/// The names in divan's terse listing, in order.
pub fn parse_list(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .map(|line| line.strip_suffix('\r').unwrap_or(line))
        .filter_map(|line| line.strip_suffix(": benchmark"))
        .map(str::to_string)
        .collect()
}

/// The arguments of one fork measuring exactly `path` for `measurement`.
pub fn fork_args(path: &str, measurement: Duration) -> Vec<OsString> {
    let seconds = measurement.as_secs_f64().to_string();
    [
        "--bench",
        "--exact",
        path,
        "--min-time",
        &seconds,
        "--max-time",
        &seconds,
        "--color",
        "never",
    ]
    .map(OsString::from)
    .to_vec()
}

/// The median nanoseconds per iteration of benchmark `path` from its row of divan's table; `None`
/// for the header, rows of its parents (no values), counter rows and any other line.
pub fn median_in_row(path: &str, line: &str) -> Option<f64> {
    // Nested rows start with the tree's own `│`, which is not a column separator.
    let row = line.trim_start_matches([' ', '├', '╰', '─', COLUMN]);
    let columns: Vec<&str> = row.split(COLUMN).collect();
    if columns.len() <= MEDIAN_COLUMN {
        return None;
    }
    let leaf = path.rsplit("::").next().unwrap_or(path);
    let name_and_fastest = columns[0];
    if !name_and_fastest.starts_with(leaf) {
        return None;
    }
    // A benchmark's row has its fastest time right of its name; parents and headers do not.
    parse_duration_ns(&name_and_fastest[leaf.len()..])?;
    parse_duration_ns(columns[MEDIAN_COLUMN])
}

/// A divan duration (`1.234 µs`) in nanoseconds.
pub fn parse_duration_ns(text: &str) -> Option<f64> {
    let mut parts = text.split_whitespace();
    let (number, unit) = (parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    let scale = match unit {
        "ps" => 1e-3,
        "ns" => 1.0,
        "µs" | "us" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        "m" => 60e9,
        "h" => 3600e9,
        "d" => 86400e9,
        _ => return None,
    };
    let value: f64 = number.parse().ok()?;
    value.is_finite().then_some(value * scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLE: &str = "\
divan_demo     fastest       │ slowest       │ median        │ mean          │ samples │ iters
├─ hash                      │               │               │               │         │
│  ╰─ mix      1.458 µs      │ 2.5 µs        │ 1.5 µs        │ 1.52 µs       │ 100     │ 800
╰─ sizes                     │               │               │               │         │
   ├─ 8        10.1 ns       │ 20 ns         │ 11 ns         │ 11.25 ns      │ 100     │ 51200
   ╰─ 64       1.001 ms      │ 1.2 ms        │ 1.1 ms        │ 1.102 ms      │ 100     │ 100
               12.5 GB/s     │ 10 GB/s       │ 11 GB/s       │ 11.2 GB/s     │         │";

    fn median_of(path: &str) -> Option<f64> {
        TABLE.lines().find_map(|line| median_in_row(path, line))
    }

    #[test]
    fn the_median_of_the_benchmark_row() {
        assert_eq!(median_of("hash::mix"), Some(1500.0));
        assert_eq!(median_of("sizes::8"), Some(11.0));
        assert_eq!(median_of("sizes::64"), Some(1_100_000.0));
    }

    #[test]
    fn headers_parents_and_counters_have_no_value() {
        assert_eq!(median_of("hash"), None);
        assert_eq!(
            median_in_row("fastest", TABLE.lines().next().unwrap()),
            None
        );
        let counter = TABLE.lines().last().unwrap();
        assert_eq!(median_in_row("x", counter), None);
    }

    #[test]
    fn durations_in_every_unit() {
        assert_eq!(parse_duration_ns("500 ps"), Some(0.5));
        assert_eq!(parse_duration_ns(" 2 s "), Some(2e9));
        assert_eq!(parse_duration_ns("1.5 us"), Some(1500.0));
        assert_eq!(parse_duration_ns("1.5"), None);
        assert_eq!(parse_duration_ns("1.5 GB/s"), None);
    }

    #[test]
    fn terse_listing() {
        let stdout = "hash::mix: benchmark\nsizes::8: benchmark\nnoise\n";
        assert_eq!(parse_list(stdout), vec!["hash::mix", "sizes::8"]);
    }
}
