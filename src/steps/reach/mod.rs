//! Which benchmarks a change can reach at all (issue #48): what each one executes and reads
//! ([`trace`]). The lead's module replaces this one at merge with the decision per benchmark.

pub mod trace;
