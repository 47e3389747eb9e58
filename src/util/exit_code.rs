//! Documented exit codes of `cargo perfdiff` (see the README).

/// Nothing the gate (`--fail-on`) cares about happened.
pub const OK: i32 = 0;
/// At least one benchmark regressed.
pub const REGRESSION: i32 = 1;
/// The tool could not do its job: bad usage, a revision that does not exist or build, I/O.
pub const ERROR: i32 = 2;
/// `--fail-on inconclusive`: no regression, but a benchmark was inconclusive or failed.
pub const INCONCLUSIVE: i32 = 3;
/// `--fail-on any-change`: no regression, but a benchmark improved.
pub const CHANGE: i32 = 4;
/// `bisect`: a change between GOOD and BAD was narrowed to a range of commits, not to one.
pub const BISECT_RANGE: i32 = 5;
/// `bisect`: no selected benchmark changed between GOOD and BAD, so nothing was searched.
pub const BISECT_NOT_CONFIRMED: i32 = 6;
/// `--git-bisect`: `git bisect run` skips the commit (it does not build, or the comparison
/// was inconclusive).
pub const GIT_BISECT_SKIP: i32 = 125;
/// `--git-bisect`: any other error; `git bisect run` stops at codes above 127.
pub const GIT_BISECT_ABORT: i32 = 128;
/// Interrupted by Ctrl-C or SIGTERM; completed forks are kept in the samples file.
pub const INTERRUPTED: i32 = 130;
