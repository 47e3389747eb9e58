//! divan: listing, one fork's command line, and its summary table.
//!
//! Listing: divan prints machine-readable names only in the `--list --format terse` form it
//! offers cargo-nextest (it accepts `--format` only when `NEXTEST=1` is set), one
//! `<path>: benchmark` line per benchmark, `<path>::<arg>` for each argument of a benchmark with
//! `args`. Those paths are exactly what `--exact` selects.
//!
//! Divan before 0.1.18 rejects `--format` (clap's usage error, exit status 2) and its plain
//! `--list` prints the tree its benchmark table is drawn with, without the table: a top-level
//! parent (the crate) on a line of its own, then each of its children as `├─ name` (`╰─ name` for
//! the last), a deeper node's line first indented by one `│  ` (`   ` below a last child) per level
//! between it and the crate's children. A benchmark's path
//! is its ancestors' names and its own joined by `::`, the same string divan's filter (and so
//! `--exact`) matches ([`parse_tree_list`]). That tree shows a benchmark with `args` as one leaf,
//! without its arguments, whose own path `--exact` does not select (divan filters `<path>::<arg>`):
//! such leaves are found by listing again with `--exact` and every leaf path ([`exact_list_args`]),
//! which prints only the selectable ones. Their arguments are then learned from divan's test
//! mode, which runs each argument once and draws them as leaves below their benchmark
//! ([`argument_list_args`], [`parse_argument_tree`]). Each argument is then a benchmark of its
//! own, `<path>::<arg>`: `--exact` selects exactly that argument in 0.1.14 too (its filter sees
//! `<path>::<arg>`), so one fork still measures one benchmark, and the id is the one divan ≥ 0.1.18
//! lists, so a comparison across a divan update matches them. Ignored benchmarks
//! (`name  (ignored)`) are left out, as their forks would measure nothing.
//!
//! One fork: `--bench --exact <path> --min-time <s> --max-time <s>` measures that benchmark (one
//! argument of it) for the measurement time; command-line options override the benchmark's own
//! attributes in divan. Divan has no machine-readable output (nvzqz/divan#10), so the value is
//! read from its table: the row of the benchmark (the one whose name ends its path: a name may
//! hold `::` itself, [`is_leaf_of`]), whose third column is the median time per
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

/// The arguments of the listing of divan before 0.1.18, which rejects `--format` ([`parse_tree_list`]).
pub const TREE_LIST_ARGS: &[&str] = &["--list"];

/// What divan's argument parser (clap) says when it rejects `--format` (before 0.1.18):
/// `error: unexpected argument '--format' found`, or `error: unexpected argument found` when
/// clap is built without its `error-context` feature, as divan asks for it (a crate with no other
/// dependency that enables it, such as `fixtures/divan-old`). `--list` is known to every divan,
/// so in the answer to the terse listing either one means `--format`.
pub const FORMAT_REJECTED: &str = "error: unexpected argument ";

/// The arguments of a tree listing of exactly `paths`: divan prints only the benchmarks `--exact`
/// selects, which leaves out those whose arguments the tree does not show.
pub fn exact_list_args(paths: &[String]) -> Vec<String> {
    exactly(["--list", "--exact"], paths)
}

/// `flags`, then `paths`.
fn exactly(flags: [&str; 2], paths: &[String]) -> Vec<String> {
    let flags = flags.map(str::to_string);
    flags.into_iter().chain(paths.iter().cloned()).collect()
}

/// The arguments of a run in test mode (every benchmark once) of exactly `paths`: a divan before
/// 0.1.18 runs its benchmarks with `args` in test mode for their arguments already
/// ([`argument_list_args`]), and this runs the others once more for their thread counts.
pub fn exact_test_args(paths: &[String]) -> Vec<String> {
    exactly(["--test", "--exact"], paths)
}

/// A tree listing that is not the shape divan (before 0.1.18) prints.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line} is not part of divan's tree: {text:?}")]
pub struct UnknownTree {
    /// The 1-based line number.
    pub line: usize,
    pub text: String,
}

/// One node of the tree: its level (0 for a top-level parent) and its name.
struct Node<'a> {
    /// Its 1-based line number.
    line: usize,
    level: usize,
    name: &'a str,
    ignored: bool,
}

/// The benchmark paths of divan's tree listing (before 0.1.18), in order: every leaf's ancestors
/// and name joined by `::`, as divan's `--exact` matches them; ignored benchmarks left out. A
/// listing with no benchmarks is empty; any line that does not fit the tree is an error.
pub fn parse_tree_list(stdout: &str) -> Result<Vec<String>, UnknownTree> {
    let nodes = tree_nodes(stdout)?;
    let paths = node_paths(&nodes);
    let mut leaves = Vec::new();
    for (i, (node, path)) in nodes.iter().zip(paths).enumerate() {
        if node.level > 0 && !has_children(&nodes, i) && !node.ignored {
            leaves.push(path);
        }
    }
    Ok(leaves)
}

/// The arguments of a run that shows the arguments of `benchmarks` (paths a tree listing gave,
/// of benchmarks with `args`): divan's test mode runs each argument once and draws the same tree
/// as `--list`, with every argument a leaf below its benchmark. Each filter is a regular
/// expression (without `--exact`) that matches the paths of one benchmark's arguments,
/// `<path>::<arg>`, which is what divan filters a benchmark with `args` by.
pub fn argument_list_args(benchmarks: &[String]) -> Vec<String> {
    let filters = benchmarks
        .iter()
        .map(|path| format!("^{}::", regex::escape(path)));
    std::iter::once("--test".to_string())
        .chain(filters)
        .collect()
}

/// The arguments of `benchmarks` in the tree of a run of [`argument_list_args`], in order, each
/// as `(benchmark, "<benchmark>::<arg>")`: the path `--exact` selects that argument by, and the
/// id divan ≥ 0.1.18 lists it under. Only leaves directly below one of `benchmarks` count (an
/// argument drawn with thread counts below it has no row of its own to read); any line that
/// does not fit the tree is an error.
pub fn parse_argument_tree(
    stdout: &str,
    benchmarks: &[String],
) -> Result<Vec<(String, String)>, UnknownTree> {
    let nodes = tree_nodes(stdout)?;
    let paths = node_paths(&nodes);
    let mut parents: Vec<&str> = Vec::new();
    let mut arguments = Vec::new();
    for (i, (node, path)) in nodes.iter().zip(&paths).enumerate() {
        parents.truncate(node.level);
        let parent = node.level.checked_sub(1).and_then(|up| parents.get(up));
        if let Some(&parent) = parent
            && benchmarks.iter().any(|b| b == parent)
            && !has_children(&nodes, i)
            && !node.ignored
        {
            arguments.push((parent.to_string(), path.clone()));
        }
        parents.push(path);
    }
    Ok(arguments)
}

/// The nodes of a tree as divan (before 0.1.18) draws it, blank lines left out; a line that does
/// not fit the tree (a top-level line without children among them) is an error.
fn tree_nodes(stdout: &str) -> Result<Vec<Node<'_>>, UnknownTree> {
    let mut nodes = Vec::new();
    for (index, line) in stdout.lines().enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() {
            continue;
        }
        let unknown = || UnknownTree {
            line: index + 1,
            text: line.to_string(),
        };
        let node = parse_node(index + 1, line).ok_or_else(unknown)?;
        // A node is one level below its parent at most, and only a top-level parent starts a tree.
        let deepest = nodes.last().map_or(0, |last: &Node| last.level + 1);
        if node.level > deepest || (nodes.is_empty() && node.level != 0) {
            return Err(unknown());
        }
        nodes.push(node);
    }
    // Divan drops a parent left without benchmarks: a childless top-level line is not its.
    let childless = (0..nodes.len()).find(|&i| nodes[i].level == 0 && !has_children(&nodes, i));
    if let Some(i) = childless {
        return Err(UnknownTree {
            line: nodes[i].line,
            text: nodes[i].name.to_string(),
        });
    }
    Ok(nodes)
}

/// Each node's path: its ancestors' names and its own, joined by `::`.
fn node_paths(nodes: &[Node]) -> Vec<String> {
    let mut ancestors: Vec<&str> = Vec::new();
    nodes
        .iter()
        .map(|node| {
            ancestors.truncate(node.level);
            ancestors.push(node.name);
            ancestors.join("::")
        })
        .collect()
}

/// Whether node `i` has children: the next node is one level below it.
fn has_children(nodes: &[Node], i: usize) -> bool {
    nodes
        .get(i + 1)
        .is_some_and(|next| next.level == nodes[i].level + 1)
}

/// One line of the tree: `prefix* branch name`, or a bare name for a top-level parent.
fn parse_node(number: usize, line: &str) -> Option<Node<'_>> {
    let mut rest = line;
    let mut level = 0;
    while let Some(after) = rest
        .strip_prefix("│  ")
        .or_else(|| rest.strip_prefix("   "))
    {
        rest = after;
        level += 1;
    }
    let Some(name) = rest
        .strip_prefix("├─ ")
        .or_else(|| rest.strip_prefix("╰─ "))
    else {
        // A top-level parent: no prefix, no branch.
        let bare = level == 0 && !rest.starts_with([' ', '│', '├', '╰']);
        return bare.then_some(Node {
            line: number,
            level: 0,
            name: rest,
            ignored: false,
        });
    };
    // An ignored leaf is padded to the widest name, then `(ignored)`.
    let (name, ignored) = match name.strip_suffix("(ignored)") {
        Some(padded) if padded.ends_with("  ") => (padded.trim_end(), true),
        _ => (name, false),
    };
    (!name.is_empty()).then_some(Node {
        line: number,
        level: level + 1,
        name,
        ignored,
    })
}

/// How the id of one thread count of a benchmark ends: `<path>::t=<N>`, the node divan draws
/// for it below the benchmark.
const THREADS_NODE: &str = "t=";

/// The id of benchmark (or argument) `path` run at `threads` threads: `<path>::t=<threads>`,
/// as divan draws that thread count below it.
pub fn thread_id(path: &str, threads: u32) -> String {
    format!("{path}::{THREADS_NODE}{threads}")
}

/// An id split into the path `--exact` selects and the thread count it is run at: a benchmark
/// with several thread counts (`threads = [1, 2]`) is one benchmark per count, `<path>::t=<N>`
/// ([`thread_id`]), which divan cannot select by its path alone (its filter sees `<path>`), so a
/// fork selects `<path>` and runs it at that count only (`--threads N`, which overrides the
/// benchmark's own; its row is then the benchmark's, with no `t=` below it).
pub fn selection(id: &str) -> (&str, Option<u32>) {
    let threads = id.rsplit_once("::").and_then(|(path, node)| {
        let count = node.strip_prefix(THREADS_NODE)?;
        if !count.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        Some((path, count.parse::<u32>().ok()?))
    });
    match threads {
        Some((path, count)) => (path, Some(count)),
        None => (id, None),
    }
}

/// The arguments that select exactly benchmark `id`: `--exact <path>`, and `--threads <N>` for
/// one thread count of it ([`selection`]).
pub fn select_args(id: &str) -> Vec<String> {
    let (path, threads) = selection(id);
    let mut args = vec!["--exact".to_string(), path.to_string()];
    if let Some(threads) = threads {
        args.extend(["--threads".to_string(), threads.to_string()]);
    }
    args
}

/// The arguments of one fork measuring exactly benchmark `id` for `measurement`, its samples
/// `sample_size` iterations long where it is set ([`sample_size_for`]), else divan's own tuning.
pub fn fork_args(id: &str, measurement: Duration, sample_size: Option<u64>) -> Vec<OsString> {
    let seconds = measurement.as_secs_f64().to_string();
    let mut args = vec!["--bench".to_string()];
    args.extend(select_args(id));
    args.extend(
        [
            "--min-time",
            &seconds,
            "--max-time",
            &seconds,
            "--color",
            "never",
        ]
        .map(str::to_string),
    );
    if let Some(size) = sample_size {
        args.extend(["--sample-size".to_string(), size.to_string()]);
    }
    args.into_iter().map(OsString::from).collect()
}

/// How many timer ticks divan wants a sample to last: it doubles a benchmark's sample size while
/// the slowest sample of a try is no longer than this many ticks of its timer's precision
/// (`precision_multiple <= 100`, divan 0.1.14 to 0.1.21 and CodSpeed's fork).
pub const TICKS_PER_SAMPLE: f64 = 100.0;

/// The largest sample size [`sample_size_for`] gives: a benchmark faster than a hundredth of a
/// timer tick an iteration is measured at this.
const MAX_SAMPLE_SIZE: u64 = 1 << 24;

/// How many samples and a short a time a tuning run takes ([`tune_args`]).
const TUNE_SAMPLES: &str = "100";
const TUNE_SECONDS: &str = "0.05";

/// The arguments of a short run of benchmark `id` whose samples are `sample_size` iterations
/// long: its table row's median tells how long one iteration takes
/// ([`crate::steps::fork::divan_tune`]).
pub fn tune_args(id: &str, sample_size: u64) -> Vec<OsString> {
    let mut args = vec!["--bench".to_string()];
    args.extend(select_args(id));
    let size = sample_size.to_string();
    args.extend(
        [
            "--sample-size",
            &size,
            "--sample-count",
            TUNE_SAMPLES,
            "--min-time",
            "0",
            "--max-time",
            TUNE_SECONDS,
            "--color",
            "never",
        ]
        .map(str::to_string),
    );
    args.into_iter().map(OsString::from).collect()
}

/// The sample size divan's own rule gives a benchmark of `median_ns` an iteration on a timer of
/// `precision_ns`: the smallest power of two whose samples last more than [`TICKS_PER_SAMPLE`]
/// ticks. Divan applies the rule to the *slowest* sample of each try, so one slow sample (the
/// first iterations of a fresh process, an interrupt) stops it at one iteration a sample, whose
/// median is then whole timer ticks less divan's overhead estimate: const-hex's 27.6 ns decoding
/// read as 49.75 ns there, every fork alike. Applied to the median it is robust to both.
pub fn sample_size_for(median_ns: f64, precision_ns: f64) -> u64 {
    let wanted = TICKS_PER_SAMPLE * precision_ns;
    let mut size = 1u64;
    while (size as f64) * median_ns <= wanted && size < MAX_SAMPLE_SIZE {
        size *= 2;
    }
    size
}

/// divan's timer precision, in nanoseconds, from the line it prints before its table
/// (`Timer precision: 20 ns`, on standard error).
pub fn timer_precision_ns(line: &str) -> Option<f64> {
    let precision = parse_duration_ns(line.trim().strip_prefix("Timer precision:")?)?;
    (precision > 0.0).then_some(precision)
}

/// The thread counts divan's test mode (`--test`, which runs every benchmark once) drew below
/// each of `ids`, as `(id, counts)`: the benchmark (or argument) run at several thread counts
/// has a `t=<N>` leaf for each, and no row of its own. Lines that are not part of the tree are
/// passed over: test mode runs the benchmarks, and what they print lands among its lines (after
/// a leaf's name, on the same line, up to the end of what it printed).
pub fn thread_counts(stdout: &str, ids: &[String]) -> Vec<(String, Vec<u32>)> {
    // A line printed on its own reads as a top-level name: only a root of the ids is one.
    let is_root = |name: &str| {
        ids.iter().any(|id| {
            id.strip_prefix(name)
                .is_some_and(|rest| rest.starts_with("::"))
        })
    };
    let nodes: Vec<Node<'_>> = stdout
        .lines()
        .enumerate()
        .filter_map(|(index, line)| parse_node(index + 1, line.strip_suffix('\r').unwrap_or(line)))
        .filter(|node| node.level > 0 || is_root(node.name))
        .collect();
    let paths = node_paths(&nodes);
    let mut counts: Vec<(String, Vec<u32>)> = Vec::new();
    for (i, node) in nodes.iter().enumerate() {
        let Some(parent) = parent_path(&nodes, &paths, i) else {
            continue;
        };
        let Some(count) = leaf_thread_count(node.name) else {
            continue;
        };
        if has_children(&nodes, i) || !ids.iter().any(|id| id == parent) {
            continue;
        }
        match counts.iter_mut().find(|(id, _)| id == parent) {
            Some((_, seen)) if !seen.contains(&count) => seen.push(count),
            Some(_) => {}
            None => counts.push((parent.to_string(), vec![count])),
        }
    }
    counts
}

/// The path of node `i`'s parent: the nearest node before it one level up.
fn parent_path<'a>(nodes: &[Node], paths: &'a [String], i: usize) -> Option<&'a str> {
    let level = nodes[i].level.checked_sub(1)?;
    (0..i)
        .rev()
        .find(|&j| nodes[j].level == level)
        .map(|j| paths[j].as_str())
}

/// The thread count of a `t=<N>` leaf; what the benchmark printed after the name, on the same
/// line, is not part of it only when it does not start with a digit.
fn leaf_thread_count(name: &str) -> Option<u32> {
    let count = name.strip_prefix(THREADS_NODE)?;
    let end = count
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(count.len());
    count[..end].parse().ok()
}

/// `ids` with each one `counts` names replaced by its thread counts' ids ([`thread_id`]), in
/// place and in the order divan drew them.
pub fn with_thread_counts(ids: Vec<String>, counts: &[(String, Vec<u32>)]) -> Vec<String> {
    ids.into_iter()
        .flat_map(|id| match counts.iter().find(|(with, _)| *with == id) {
            Some((_, threads)) => threads.iter().map(|&t| thread_id(&id, t)).collect(),
            None => vec![id],
        })
        .collect()
}

/// The median nanoseconds per iteration of benchmark `id` from its row of divan's table; `None`
/// for the header, rows of its parents (no values), counter rows and any other line. One thread
/// count of a benchmark is run alone, in the benchmark's own row ([`selection`]).
pub fn median_in_row(id: &str, line: &str) -> Option<f64> {
    let (path, _) = selection(id);
    // Nested rows start with the tree's own `│`, which is not a column separator.
    let row = line.trim_start_matches([' ', '├', '╰', '─', COLUMN]);
    let columns: Vec<&str> = row.split(COLUMN).collect();
    if columns.len() <= MEDIAN_COLUMN {
        return None;
    }
    // A benchmark's row has its fastest time right of its name; parents and headers do not.
    let (name, fastest) = name_and_fastest(columns[0])?;
    parse_duration_ns(fastest)?;
    if !is_leaf_of(path, name) {
        return None;
    }
    parse_duration_ns(columns[MEDIAN_COLUMN])
}

/// Whether `line` draws the node of `path` followed by what the benchmark printed to standard
/// output on the same line: divan writes a node's name, then runs it, and ends the line only
/// after (in test mode) or with its values (in a run), so a benchmark that prints, as uutils'
/// utilities do when run in-process, puts its text after the name (`╰─ 1` and `1048577 file`
/// become `╰─ 11048577 file`) and its values on a later line ([`ValueRow`]). A drawn node line
/// starts with the tree's `├─ ` or `╰─ `; the name is then one that can end the path
/// ([`is_leaf_of`]). With `--exact`, divan draws only the selected benchmark and its parents.
pub fn draws_leaf_then_output(path: &str, line: &str) -> bool {
    let Some((_, drawn)) = line.split_once(['├', '╰']) else {
        return false;
    };
    let Some(node) = drawn.strip_prefix("─ ") else {
        return false;
    };
    leaf_names(path).any(|name| node.starts_with(name))
}

/// The names that can end `path` as a node: the whole path and what follows each `::` in it.
fn leaf_names(path: &str) -> impl Iterator<Item = &str> {
    std::iter::once(path).chain(path.match_indices("::").map(|(at, _)| &path[at + 2..]))
}

/// Benchmark `id`'s value read from a fork's output line by line: its row of divan's table
/// ([`median_in_row`]), or, once its node was drawn with the benchmark's own output after it
/// ([`draws_leaf_then_output`]), the values divan wrote at the end of that output: a row whose
/// first column is the fastest time alone, its name left lines above.
#[derive(Debug, Clone)]
pub struct ValueRow {
    id: String,
    leaf_drawn: bool,
}

impl ValueRow {
    pub fn new(id: &str) -> Self {
        ValueRow {
            id: id.to_string(),
            leaf_drawn: false,
        }
    }

    /// The value, if `line` holds it.
    pub fn line(&mut self, line: &str) -> Option<f64> {
        let value = median_in_row(&self.id, line)
            .or_else(|| self.leaf_drawn.then(|| median_in_nameless_row(line))?);
        self.leaf_drawn |= draws_leaf_then_output(selection(&self.id).0, line);
        value
    }
}

/// The median of a row of divan's values without its name: the fastest time first, then the
/// other columns.
fn median_in_nameless_row(line: &str) -> Option<f64> {
    let columns: Vec<&str> = line.split(COLUMN).collect();
    if columns.len() <= MEDIAN_COLUMN {
        return None;
    }
    parse_duration_ns(columns[0].trim())?;
    parse_duration_ns(columns[MEDIAN_COLUMN])
}

/// Whether `name`, a node of divan's tree (a line of `--test`, a row of the table), can be the
/// last node of `path`: the path itself or its end after a `::`. Not the path's last `::`
/// segment: a name may hold `::` itself (`#[divan::bench(name = "a::b")]`, a generic
/// benchmark's `Vec<alloc::string::String>`, an argument `"p::q"`), which divan joins into the
/// path as it is. Given `--exact`, divan draws only the benchmark's own row with values.
pub fn is_leaf_of(path: &str, name: &str) -> bool {
    !name.is_empty()
        && path
            .strip_suffix(name)
            .is_some_and(|rest| rest.is_empty() || rest.ends_with("::"))
}

/// A row's first column split into its name and its fastest time (`a::b  1.458 µs   `): the
/// time is the last two words, the name what is left of them (it may hold spaces).
fn name_and_fastest(column: &str) -> Option<(&str, &str)> {
    let column = column.trim_end();
    let (before_unit, _) = column.rsplit_once(' ')?;
    let (name, _) = before_unit.trim_end().rsplit_once(' ')?;
    let name = name.trim_end();
    Some((name, &column[name.len()..]))
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

    /// divan 0.1.21's tables for `--bench --exact` on a scratch crate (recorded): a benchmark
    /// named `a::b`, a generic one of type `Vec<String>`, an argument `"p::q"`, and a benchmark
    /// in a group named `x::y`. Each name is one node, `::` and all.
    const COLON_TABLES: &str = "\
names    fastest       │ slowest       │ median        │ mean          │ samples │ iters
╰─ a::b  1.843 µs      │ 1.843 µs      │ 1.843 µs      │ 1.843 µs      │ 1       │ 1
names                             fastest       │ slowest       │ median        │ mean          │ samples │ iters
╰─ generic                                      │               │               │               │         │
   ╰─ Vec<alloc::string::String>  2.707 µs      │ 2.707 µs      │ 2.707 µs      │ 2.707 µs      │ 1       │ 1
names       fastest       │ slowest       │ median        │ mean          │ samples │ iters
╰─ arg                    │               │               │               │         │
   ╰─ p::q  2.081 µs      │ 2.081 µs      │ 2.081 µs      │ 2.081 µs      │ 1       │ 1
names        fastest       │ slowest       │ median        │ mean          │ samples │ iters
╰─ x::y                    │               │               │               │         │
   ╰─ inner  33.99 ns      │ 94.29 µs      │ 47.16 µs      │ 47.16 µs      │ 2       │ 256";

    #[test]
    fn names_with_colons_are_one_node() {
        let median = |path| COLON_TABLES.lines().find_map(|l| median_in_row(path, l));
        assert_eq!(median("names::a::b"), Some(1843.0));
        assert_eq!(
            median("names::generic::Vec<alloc::string::String>"),
            Some(2707.0)
        );
        assert_eq!(median("names::arg::p::q"), Some(2081.0));
        assert_eq!(median("names::x::y::inner"), Some(47160.0));
        // Only a whole node ends a path.
        assert_eq!(median("names::b"), None);
        assert_eq!(median("names::arg::q"), None);
        assert!(is_leaf_of("s::a::b", "a::b") && is_leaf_of("s::a::b", "b"));
        assert!(is_leaf_of("s::a::b", "s::a::b"));
        assert!(!is_leaf_of("s::a::b", "::b") && !is_leaf_of("s::xa::b", "a::b"));
        assert!(!is_leaf_of("s::a", ""));
    }

    #[test]
    fn durations_in_every_unit() {
        assert_eq!(parse_duration_ns("500 ps"), Some(0.5));
        assert_eq!(parse_duration_ns(" 2 s "), Some(2e9));
        assert_eq!(parse_duration_ns("1.5 us"), Some(1500.0));
        assert_eq!(parse_duration_ns("1.5"), None);
        assert_eq!(parse_duration_ns("1.5 GB/s"), None);
    }

    /// A tree as divan 0.1.14's painter draws it for `--list`: the crate, a module with a bench
    /// and a generic bench of two types, a group whose benchmarks' names have a space and `::`,
    /// an ignored benchmark padded to the widest name, and the blank line after the crate.
    const TREE: &str = "\
stream
├─ parse
│  ├─ advance
│  ╰─ generic
│     ├─ u8
│     ╰─ Vec<u8>
├─ strip
│  ├─ strip str
│  ├─ a::b
│  ╰─ skipped        (ignored)
╰─ write

";

    #[test]
    fn tree_listing_gives_the_paths_exact_selects() {
        assert_eq!(
            parse_tree_list(TREE).unwrap(),
            vec![
                "stream::parse::advance",
                "stream::parse::generic::u8",
                "stream::parse::generic::Vec<u8>",
                "stream::strip::strip str",
                "stream::strip::a::b",
                "stream::write",
            ]
        );
    }

    #[test]
    fn tree_listing_with_carriage_returns_and_two_crates() {
        let stdout = "a\r\n╰─ x\r\n\r\nb\n├─ m\n│  ╰─ y\n╰─ z\n";
        assert_eq!(
            parse_tree_list(stdout).unwrap(),
            vec!["a::x", "b::m::y", "b::z"]
        );
        assert_eq!(parse_tree_list(""), Ok(Vec::new()));
    }

    #[test]
    fn other_shapes_are_not_read_as_a_tree() {
        // A terse listing: top-level lines without children.
        let terse = "stream::write: benchmark\n";
        assert_eq!(parse_tree_list(terse).unwrap_err().line, 1);
        // A level skipped, a branch before any crate, a prefix without a branch.
        assert_eq!(parse_tree_list("s\n│  ├─ x\n").unwrap_err().line, 2);
        assert_eq!(parse_tree_list("├─ x\n").unwrap_err().line, 1);
        assert_eq!(parse_tree_list("s\n├─ m\n│  x\n").unwrap_err().line, 3);
        // A warning among the tree.
        let warned = "s\n╰─ x\nwarning: something\n";
        assert_eq!(parse_tree_list(warned).unwrap_err().line, 3);
    }

    #[test]
    fn exact_listing_names_every_path() {
        let paths = ["s::a".to_string(), "s::b c".to_string()];
        assert_eq!(
            exact_list_args(&paths),
            vec!["--list", "--exact", "s::a", "s::b c"]
        );
    }

    /// divan 0.1.14's `--test '^old::sum::'` on `fixtures/divan-old` (a benchmark with
    /// `args = [1, 8, 64]`), recorded.
    const ARGUMENT_TREE: &str = "old\n╰─ sum\n   ├─ 1\n   ├─ 8\n   ╰─ 64\n\n";

    /// divan 0.1.14's table for `--bench --exact old::sum::8` on the same fixture, recorded.
    const ARGUMENT_TABLE: &str = "\
old      fastest       │ slowest       │ median        │ mean          │ samples │ iters
╰─ sum                 │               │               │               │         │
   ╰─ 8  13.01 ns      │ 37.73 µs      │ 14.96 ns      │ 51.95 ns      │ 1751    │ 448256
";

    #[test]
    fn arguments_from_divan_0_1_14_test_mode() {
        let sum = ["old::sum".to_string()];
        let arguments: Vec<(String, String)> = ["1", "8", "64"]
            .map(|arg| ("old::sum".to_string(), format!("old::sum::{arg}")))
            .into();
        assert_eq!(parse_argument_tree(ARGUMENT_TREE, &sum), Ok(arguments));
        // Only arguments of the benchmarks asked about.
        let other = ["old::plain".to_string()];
        assert_eq!(parse_argument_tree(ARGUMENT_TREE, &other), Ok(Vec::new()));
    }

    /// divan 0.1.14's `--test '^strip::strip_str::' '^strip::strip_bytes::'` on anstyle's
    /// `strip` bench target (fb843c5), recorded: two benchmarks of the same four `args`.
    const ANSTYLE_ARGUMENT_TREE: &str = "\
strip
├─ strip_bytes
│  ├─ 0-state_changes
│  ├─ 1-demo.vte
│  ├─ 2-rg_help.vte
│  ╰─ 3-rg_linus.vte
╰─ strip_str
   ├─ 0-state_changes
   ├─ 1-demo.vte
   ├─ 2-rg_help.vte
   ╰─ 3-rg_linus.vte

";

    #[test]
    fn arguments_of_anstyle_s_strip_benchmarks() {
        let asked = ["strip::strip_str", "strip::strip_bytes"].map(str::to_string);
        let arguments = parse_argument_tree(ANSTYLE_ARGUMENT_TREE, &asked).unwrap();
        assert_eq!(arguments.len(), 8, "{arguments:?}");
        assert_eq!(
            arguments[0],
            (
                "strip::strip_bytes".to_string(),
                "strip::strip_bytes::0-state_changes".to_string()
            )
        );
        assert_eq!(arguments[7].1, "strip::strip_str::3-rg_linus.vte");
        assert_eq!(
            argument_list_args(&asked),
            vec!["--test", "^strip::strip_str::", "^strip::strip_bytes::"]
        );
    }

    #[test]
    fn arguments_of_two_benchmarks_and_what_is_not_an_argument() {
        // `g::a` has two arguments; `g::a::x` is a benchmark whose name has `::` (its own
        // filter matches it, but it sits beside `a`); `g::t`'s argument `2` has thread counts
        // below it, so no row of its own.
        let stdout = "\
s
╰─ g
   ├─ a
   │  ├─ 1
   │  ╰─ two words
   ├─ a::x
   ╰─ t
      ├─ 1
      ╰─ 2
         ├─ t=1
         ╰─ t=4
";
        let asked = ["s::g::a".to_string(), "s::g::t".to_string()];
        let ids: Vec<String> = parse_argument_tree(stdout, &asked)
            .unwrap()
            .into_iter()
            .map(|(_, id)| id)
            .collect();
        assert_eq!(ids, ["s::g::a::1", "s::g::a::two words", "s::g::t::1"]);
        let warned = "s\n╰─ g\nwarning: something\n";
        assert_eq!(parse_argument_tree(warned, &asked).unwrap_err().line, 3);
    }

    #[test]
    fn argument_run_filters_each_benchmark_s_arguments() {
        let benchmarks = ["s::a".to_string(), "s::f<u8>.x".to_string()];
        assert_eq!(
            argument_list_args(&benchmarks),
            vec!["--test", "^s::a::", r"^s::f<u8>\.x::"]
        );
    }

    #[test]
    fn an_argument_s_median_from_divan_0_1_14() {
        let median = |path| ARGUMENT_TABLE.lines().find_map(|l| median_in_row(path, l));
        assert_eq!(median("old::sum::8"), Some(14.96));
        assert_eq!(median("old::sum"), None);
    }

    /// divan 0.1.21's `--test` on a scratch crate (recorded): `par` with `threads = [1, 2]`,
    /// `both` with `args = [4, 8]` and the same threads, `avail` with `threads` (one count on
    /// two CPUs), and `plain`, which prints `hello from plain`: what a benchmark prints lands
    /// after its leaf's name, and divan's own line end after it.
    const THREADS_TEST_MODE: &str = "\
t
├─ avail
├─ both
│  ├─ 4
│  │  ├─ t=1
│  │  ╰─ t=2
│  ╰─ 8
│     ├─ t=1
│     ╰─ t=2
├─ par
│  ├─ t=1
│  ╰─ t=2
╰─ plainhello from plain


";

    /// divan 0.1.21's table for `--bench --exact t::par --threads 2` on the same crate.
    const ONE_THREAD_COUNT: &str = "\
t       fastest       │ slowest       │ median        │ mean          │ samples │ iters
╰─ par  2.182 ns      │ 33.15 ns      │ 2.408 ns      │ 2.648 ns      │ 194     │ 198656
";

    #[test]
    fn each_thread_count_is_a_benchmark_of_its_own() {
        let ids: Vec<String> = ["t::plain", "t::avail", "t::both::4", "t::both::8", "t::par"]
            .map(str::to_string)
            .into();
        let counts = thread_counts(THREADS_TEST_MODE, &ids);
        assert_eq!(
            counts,
            [
                ("t::both::4".to_string(), vec![1, 2]),
                ("t::both::8".to_string(), vec![1, 2]),
                ("t::par".to_string(), vec![1, 2]),
            ]
        );
        assert_eq!(
            with_thread_counts(ids, &counts),
            [
                "t::plain",
                "t::avail",
                "t::both::4::t=1",
                "t::both::4::t=2",
                "t::both::8::t=1",
                "t::both::8::t=2",
                "t::par::t=1",
                "t::par::t=2",
            ]
        );
        // A line a benchmark printed on its own is no node of the tree.
        let printed = "t\n├─ par\nnoise\n│  ├─ t=1\n│  ╰─ t=2\n╰─ plain\n";
        let par = ["t::par".to_string()];
        assert_eq!(
            thread_counts(printed, &par),
            [("t::par".to_string(), vec![1, 2])]
        );
    }

    #[test]
    fn a_thread_count_is_selected_by_its_benchmark_s_path_and_read_from_its_row() {
        assert_eq!(selection("t::par::t=2"), ("t::par", Some(2)));
        assert_eq!(selection("t::par"), ("t::par", None));
        assert_eq!(selection("t::t=x"), ("t::t=x", None));
        assert_eq!(selection("t::par::t="), ("t::par::t=", None));
        assert_eq!(
            select_args("t::both::4::t=1"),
            ["--exact", "t::both::4", "--threads", "1"]
        );
        let args = fork_args("t::par::t=2", Duration::from_millis(500), None);
        assert_eq!(
            args,
            [
                "--bench",
                "--exact",
                "t::par",
                "--threads",
                "2",
                "--min-time",
                "0.5",
                "--max-time",
                "0.5",
                "--color",
                "never"
            ]
        );
        let median = |id| ONE_THREAD_COUNT.lines().find_map(|l| median_in_row(id, l));
        assert_eq!(median("t::par::t=2"), Some(2.408));
        assert_eq!(median("t::par"), Some(2.408));
    }

    #[test]
    fn a_fork_given_a_sample_size_passes_it_to_divan() {
        let args = fork_args("m::f", Duration::from_secs(1), Some(128));
        let words: Vec<_> = args.iter().map(|a| a.to_str().unwrap()).collect();
        assert_eq!(words[words.len() - 2..], ["--sample-size", "128"]);
        let tune: Vec<_> = tune_args("m::f", 64)
            .into_iter()
            .map(|a| a.into_string().unwrap())
            .collect();
        assert_eq!(
            tune[..5],
            ["--bench", "--exact", "m::f", "--sample-size", "64"]
        );
    }

    #[test]
    fn divan_s_rule_sizes_samples_to_more_than_a_hundred_ticks() {
        assert_eq!(sample_size_for(2_001.0, 20.0), 1);
        assert_eq!(
            sample_size_for(2_000.0, 20.0),
            2,
            "not more than a hundred ticks"
        );
        assert_eq!(sample_size_for(49.75, 20.0), 64);
        assert_eq!(sample_size_for(0.0, 20.0), MAX_SAMPLE_SIZE, "bounded");
        assert_eq!(timer_precision_ns("Timer precision: 20 ns"), Some(20.0));
        assert_eq!(timer_precision_ns("Timer precision: 41.2 ns\r"), Some(41.2));
        assert_eq!(timer_precision_ns("Timer precision: 0 ns"), None);
        assert_eq!(timer_precision_ns("precision: 20 ns"), None);
    }

    #[test]
    fn terse_listing() {
        let stdout = "hash::mix: benchmark\nsizes::8: benchmark\nnoise\n";
        assert_eq!(parse_list(stdout), vec!["hash::mix", "sizes::8"]);
    }

    /// codspeed-divan-compat 4.4's output for `--bench --exact wc_bench::wc_bytes_synthetic::1`
    /// of uutils' `wc` (recorded; the temporary file's name shortened): each iteration of
    /// `wc -c FILE` prints a line to standard output, the first after the argument's name, and
    /// divan writes the values after the last.
    const PRINTING_RUN: &str = "\
Timer precision: 20 ns
wc_bench               fastest       │ slowest       │ median        │ mean          │ samples │ iters
╰─ wc_bytes_synthetic                │               │               │               │         │
   ╰─ 1                1048577 /tmp/.tmpX/test_data.txt
1048577 /tmp/.tmpX/test_data.txt
1048577 /tmp/.tmpX/test_data.txt
9.022 µs      │ 59.94 ms      │ 9.564 µs      │ 149.3 µs      │ 535     │ 535";

    fn value_read(id: &str, output: &str) -> Option<f64> {
        let mut row = ValueRow::new(id);
        output.lines().find_map(|line| row.line(line))
    }

    #[test]
    fn a_row_split_by_what_the_benchmark_printed_gives_its_median() {
        assert_eq!(
            value_read("wc_bench::wc_bytes_synthetic::1", PRINTING_RUN),
            Some(9564.0)
        );
        // A row without its name is the benchmark's only after its node was drawn.
        let without_node: String = PRINTING_RUN
            .lines()
            .filter(|line| !line.contains("╰─ 1 "))
            .collect::<Vec<_>>()
            .join("\n");
        assert_eq!(
            value_read("wc_bench::wc_bytes_synthetic::1", &without_node),
            None
        );
        assert_eq!(
            value_read("wc_bench::wc_bytes_synthetic::5", PRINTING_RUN),
            None
        );
        // A table that is not split reads as before.
        assert_eq!(value_read("hash::mix", TABLE), Some(1500.0));
    }

    #[test]
    fn a_node_drawn_with_the_benchmark_s_output_after_it_is_that_benchmark_s() {
        // Test mode draws the name and ends the line after the run: `1` and `1048577 …`.
        let line = "   ╰─ 11048577 /tmp/.tmpX/test_data.txt";
        assert!(draws_leaf_then_output(
            "wc_bench::wc_bytes_synthetic::1",
            line
        ));
        assert!(draws_leaf_then_output(
            "names::arg::p::q",
            "   ╰─ p::q printed"
        ));
        assert!(!draws_leaf_then_output(
            "wc_bench::wc_bytes_synthetic::2",
            line
        ));
        // Only a drawn node: the benchmark's own lines, and parents' lines, are not.
        assert!(!draws_leaf_then_output("a::1", "1048577 /tmp/x"));
        assert!(!draws_leaf_then_output("wc::wc_bytes::1", "╰─ wc_bytes"));
    }
}
