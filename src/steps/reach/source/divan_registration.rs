//! A divan benchmark's registration function on one side only: a benchmark renamed, added or
//! removed (field trial `facet-hash-fnv`, docs/design/selection-trace.md).
//!
//! Why: divan's `#[divan::bench]` on `fn name` expands (divan-macros 0.1.21, `lib.rs`; the
//! CodSpeed fork `codspeed-divan-compat-walltime` keeps it) to a static
//! `__DIVAN_BENCH_NAME` whose initialiser holds an `extern "C" fn push()`, put in the
//! pre-`main` initialiser section (`.init_array`), whose body is only
//! `BENCH_ENTRIES.push(&NODE)`: it links that benchmark's own static entry at the front of
//! divan's list (`EntryList::push`, `src/entry/list.rs`, a compare-and-swap loop on the list's
//! head). Every process of the target runs every registration at start-up, so when a commit
//! renames one benchmark, base's registration of the old name has no partner in head, and
//! every other benchmark of the target, whose timed code is the same, was measured.
//!
//! Why it is sound to set it apart for the *other* benchmarks: the registration reads nothing
//! and writes only its own node's `next` and the list's head. divan reads the list once, in
//! `main`, and filters it to the benchmark asked for before it runs anything; another
//! benchmark's entry is never run, and where it sits in the list does not reach what the
//! benchmark under test computes or times. Only what is recognised is set apart
//! ([`compare_registration`]): a symbol `<path>::__DIVAN_BENCH_<NAME>::push` on one side only
//! (the other side has no symbol of that name), whose every instruction's inline chain holds
//! only its own frame (lines of the checkout), `push` of `src/entry/list.rs` in a divan
//! crate's registry folder (`divan-<version>`, `codspeed-divan-compat-walltime-<version>`),
//! and the toolchain's atomics (`core/src/sync/atomic.rs`). Any other inlined code keeps the
//! comparison as before; a function it calls instead of inlining is a symbol of its own, in
//! the trace, compared in its own right. The registration's own benchmark is on one side only
//! (never compared), and a benchmark whose id names the registered name is still measured by
//! the caller ([`registered_benchmark`]), so the rule never vouches for the registration of
//! the benchmark under test. A registration on both sides whose code differs (a changed
//! attribute) is compared as before.

use std::collections::BTreeSet;

use super::{FunctionSource, Reader, SIDES, SourceComparison, short_name};

/// The prefix divan's macro gives a benchmark's static entry, before its upper-cased name.
const STATIC_PREFIX: &str = "__DIVAN_BENCH_";

/// The registry folders (before `-<version>`) of the crates whose `src/entry/list.rs` is
/// divan's entry list.
const DIVAN_CRATES: [&str; 2] = ["divan", "codspeed-divan-compat-walltime"];

/// The name, upper-cased as divan's macro writes it, of the benchmark whose registration
/// `function` (demangled, without hash) is: `<path>::__DIVAN_BENCH_<NAME>::push`.
pub fn registered_benchmark(function: &str) -> Option<&str> {
    let outer = function.strip_suffix("::push")?;
    let last = outer.rsplit("::").next()?;
    let name = last.strip_prefix(STATIC_PREFIX)?;
    let plain = |c: char| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_';
    (!name.is_empty() && name.chars().all(plain)).then_some(name)
}

/// Whether the benchmark `id` (its `::`-separated path) may be the one `name` (upper-cased,
/// [`registered_benchmark`]) registers: a segment of its id is that name, compared upper-cased.
pub fn registers(name: &str, id: &str) -> bool {
    id.split("::")
        .flat_map(|segment| segment.split('/'))
        .any(|segment| segment.to_uppercase() == name)
}

/// The comparison of `function` when it is a divan registration on one side only whose code
/// is only divan's list push (module docs): `SameApart` with a note; `None` otherwise.
pub(super) fn compare_registration(
    readers: [&Reader<'_>; 2],
    function: &str,
) -> Option<SourceComparison> {
    let name = registered_benchmark(function)?;
    let none = BTreeSet::new();
    let sources = [0, 1].map(|side| readers[side].source(function, &none));
    let (side, source) = match sources {
        [Ok(Some(source)), Ok(None)] => (0, source),
        [Ok(None), Ok(Some(source))] => (1, source),
        _ => return None,
    };
    only_list_push(&source).then(|| {
        SourceComparison::SameApart(format!(
            "`{function}` registers the divan benchmark `{}`, in {} only: it only pushes that \
             benchmark's own entry onto divan's list, which divan filters before it runs \
             anything",
            name.to_lowercase(),
            SIDES[side]
        ))
    })
}

/// Whether `source`'s spans are the registration's own (a file of the checkout) and divan's
/// list `push` with the toolchain's atomics, nothing else, and hold that `push`.
fn only_list_push(source: &FunctionSource) -> bool {
    let mut own = 0;
    let mut list = 0;
    for (file, function) in source.spans.keys() {
        let push = short_name(function) == "push";
        let atomic = file.starts_with("/rustc/") && file.ends_with("core/src/sync/atomic.rs");
        match (push, is_divan_list(file)) {
            (true, true) => list += 1,
            _ if atomic => {}
            (true, false) if !file.starts_with('/') => own += 1,
            _ => return false,
        }
    }
    own == 1 && list == 1
}

/// Whether `file` (as compared: a registry file by its whole path) is `src/entry/list.rs` of a
/// divan crate's folder `<crate>-<version>`.
fn is_divan_list(file: &str) -> bool {
    let Some(folder) = file.strip_suffix("/src/entry/list.rs") else {
        return false;
    };
    let folder = folder.rsplit('/').next().unwrap_or_default();
    DIVAN_CRATES.iter().any(|krate| {
        folder
            .strip_prefix(krate)
            .and_then(|rest| rest.strip_prefix('-'))
            .is_some_and(|version| version.starts_with(|c: char| c.is_ascii_digit()))
    })
}

#[cfg(test)]
mod tests {
    use super::super::Span;
    use super::*;

    #[test]
    fn a_registration_is_named_by_its_static_s_upper_cased_name() {
        let name = "reuse::__DIVAN_BENCH_BYTE_VEC_HELPER_HASH::push";
        assert_eq!(registered_benchmark(name), Some("BYTE_VEC_HELPER_HASH"));
        for other in [
            "reuse::__DIVAN_BENCH_::push",
            "reuse::__DIVAN_BENCH_X::pop",
            "reuse::DIVAN_BENCH_X::push",
            "<reuse::__DIVAN_BENCH_X as T>::push",
            "reuse::__DIVAN_BENCH_x::push",
        ] {
            assert_eq!(registered_benchmark(other), None, "{other}");
        }
        assert!(registers(
            "BYTE_VEC_HELPER_HASH",
            "reuse::byte_vec_helper_hash"
        ));
        assert!(registers("OLD", "demo::renamed::old::1"));
        assert!(!registers("OLD", "demo::renamed::kept"));
    }

    /// A source of the spans `keys`, each one line.
    fn source(keys: &[(&str, &str)]) -> FunctionSource {
        let span = Span {
            first: 1,
            text: vec![String::new()],
        };
        let spans = keys
            .iter()
            .map(|(f, n)| (((*f).to_string(), (*n).to_string()), span.clone()))
            .collect();
        FunctionSource { spans }
    }

    #[test]
    fn only_the_registration_s_own_lines_and_divan_s_list_push_are_recognised() {
        let own = ("benches/demo.rs", "push");
        let list = (
            "/r/registry/src/x/divan-0.1.21/src/entry/list.rs",
            "push<BenchEntry>",
        );
        let atomic = (
            "/rustc/abc/library/core/src/sync/atomic.rs",
            "compare_exchange_weak",
        );
        assert!(only_list_push(&source(&[own, list, atomic])));
        let fork = (
            "/r/codspeed-divan-compat-walltime-4.7.0/src/entry/list.rs",
            "push",
        );
        assert!(only_list_push(&source(&[own, fork])));
        assert!(!only_list_push(&source(&[own])), "no list push");
        let other = ("benches/demo.rs", "set_up");
        assert!(!only_list_push(&source(&[own, list, other])));
        let lookalike = ("/r/divan-extra-1.0/src/entry/list.rs", "push");
        assert!(!only_list_push(&source(&[own, lookalike])));
        let std = ("/rustc/abc/library/alloc/src/vec/mod.rs", "push");
        assert!(!only_list_push(&source(&[own, list, std])));
    }
}
