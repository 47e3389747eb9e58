//! The functions valgrind is told to count and to dump after, found in the executable's symbol
//! table by their demangled paths, and given to valgrind by their raw (mangled) names.
//!
//! Why raw names: callgrind matches `--toggle-collect=F` and `--dump-after=F` against its own
//! rendering of each function's name. Rust has two manglings (legacy, and v0, which nightly
//! toolchains use by default and which is what `RUSTC_BOOTSTRAP=1` builds get), whose demangled
//! forms differ in their generic arguments (`Bencher<M>::iter` against
//! `<Bencher<WallTime>>::iter::<u64, {closure}>`); with `--demangle=no` callgrind uses the symbol
//! as it is, which matches by construction, and the profile's names are demangled here
//! ([`super::callgrind::demangle`]).
//!
//! The paths are compared without their generic arguments ([`skeleton`]), so one rule covers
//! both manglings.

use std::path::Path;

use object::{Object, ObjectSymbol};

use super::{InstructionsError, io_error};

/// The raw names of the functions of the executable at `path` whose demangled name `wanted`
/// accepts (given its [`skeleton`] and the full demangled name), sorted, without duplicates.
pub fn matching(
    path: &Path,
    wanted: impl Fn(&str, &str) -> bool,
) -> Result<Vec<String>, InstructionsError> {
    let data = std::fs::read(path).map_err(io_error(path))?;
    let file = object::File::parse(&*data).map_err(|e| InstructionsError::Io {
        path: path.to_path_buf(),
        source: std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string()),
    })?;
    let mut names: Vec<String> = file
        .symbols()
        .chain(file.dynamic_symbols())
        .filter(|symbol| symbol.kind() == object::SymbolKind::Text)
        .filter_map(|symbol| symbol.name().ok())
        .filter(|raw| {
            let demangled = super::callgrind::demangle(raw);
            wanted(&skeleton(&demangled), &demangled)
        })
        .map(str::to_string)
        .collect();
    names.sort();
    names.dedup();
    Ok(names)
}

/// The `--toggle-collect` pattern for `candidates` (raw names of the executable at `path`): their
/// longest common prefix and `*`, to be given before any `--dump-after`.
///
/// Why one pattern: callgrind 3.19 mixes up the options of exact names that share a long prefix
/// (as the monomorphizations of one generic function do): with `--toggle-collect=A
/// --dump-after=A --toggle-collect=B --dump-after=B` it dumps after A but never counts inside
/// it, while one wildcard toggle followed by the exact dumps works. If the prefix also matches
/// functions that are not candidates (an executable using both `iter` and `iter_batched`), only
/// the candidates of the most common skeleton are kept, and returned with the pattern. A single
/// candidate is toggled by its exact name: `F*` with `--dump-after=F` never counts.
pub fn toggle_pattern(
    path: &Path,
    candidates: &[String],
) -> Result<Option<(String, Vec<String>)>, InstructionsError> {
    if candidates.is_empty() {
        return Ok(None);
    }
    let all = matching(path, |_, _| true)?;
    let mut kept: Vec<String> = candidates.to_vec();
    loop {
        let prefix = common_prefix(&kept);
        let over_matches = all
            .iter()
            .any(|name| name.starts_with(&prefix) && !kept.contains(name));
        if kept.len() == 1 {
            return Ok(Some((kept[0].clone(), kept)));
        }
        if !over_matches {
            return Ok(Some((format!("{prefix}*"), kept)));
        }
        // Keep the largest group of one skeleton.
        let skeleton_of = |raw: &String| skeleton(&super::callgrind::demangle(raw));
        let mut groups: Vec<(String, usize)> = Vec::new();
        for name in &kept {
            let key = skeleton_of(name);
            match groups.iter_mut().find(|(k, _)| *k == key) {
                Some(group) => group.1 += 1,
                None => groups.push((key, 1)),
            }
        }
        if groups.len() == 1 {
            // One skeleton, and still other functions under the prefix: toggle the first only.
            kept.truncate(1);
            continue;
        }
        let largest = groups
            .iter()
            .max_by_key(|(_, n)| *n)
            .map(|(k, _)| k.clone())
            .unwrap_or_default();
        kept.retain(|name| skeleton_of(name) == largest);
    }
}

/// The longest common prefix of `names` (on character boundaries).
fn common_prefix(names: &[String]) -> String {
    let Some(first) = names.first() else {
        return String::new();
    };
    let mut end = first.len();
    for name in &names[1..] {
        end = first
            .char_indices()
            .zip(name.chars())
            .take_while(|((_, a), b)| a == b)
            .map(|((i, a), _)| i + a.len_utf8())
            .last()
            .unwrap_or(0)
            .min(end);
    }
    first[..end].to_string()
}

/// A demangled path without generic arguments and without the brackets of a qualified path:
/// `<criterion::bencher::Bencher<WallTime>>::iter::<u64, F>` and
/// `criterion::bencher::Bencher<M>::iter` are both `criterion::bencher::Bencher::iter`.
pub fn skeleton(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut depth = 0usize;
    // Depth at which a leading `<` opened a qualified path (kept, without its brackets).
    let qualified = name.starts_with('<');
    let mut previous = '\0';
    for (i, c) in name.chars().enumerate() {
        match c {
            '<' if i == 0 => {}
            '<' => depth += 1,
            '>' if previous == '-' => {}
            '>' if depth == 0 && qualified => {}
            '>' => depth = depth.saturating_sub(1),
            _ if depth == 0 => out.push(c),
            _ => {}
        }
        previous = c;
    }
    let mut out = out.replace("::::", "::");
    while out.ends_with("::") {
        out.truncate(out.len() - 2);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_manglings_have_one_skeleton() {
        for name in [
            "criterion::bencher::Bencher<M>::iter",
            "<criterion::bencher::Bencher<criterion::measurement::WallTime>>::iter::<u64, \
             <demo::hash as x>::{closure#0}>",
        ] {
            assert_eq!(
                skeleton(name),
                "criterion::bencher::Bencher::iter",
                "{name}"
            );
        }
        assert_eq!(
            skeleton("<divan::thread_pool::TaskShared<_>>::new::call::<<x::Y>::f<fn() -> u8>>"),
            "divan::thread_pool::TaskShared::new::call"
        );
        assert_eq!(
            skeleton("divan::thread_pool::TaskShared<F>::new::call"),
            "divan::thread_pool::TaskShared::new::call"
        );
        assert_eq!(
            skeleton("<std::time::Instant>::now"),
            "std::time::Instant::now"
        );
        assert_eq!(skeleton("demo::hash::mix"), "demo::hash::mix");
    }

    #[test]
    fn the_common_prefix_of_monomorphizations() {
        let names = [
            "_ZN9criterion7bencher16Bencher$LT$M$GT$4iter17h009aE".to_string(),
            "_ZN9criterion7bencher16Bencher$LT$M$GT$4iter17h423eE".to_string(),
        ];
        assert_eq!(
            common_prefix(&names),
            "_ZN9criterion7bencher16Bencher$LT$M$GT$4iter17h"
        );
        assert_eq!(common_prefix(&names[..1]), names[0]);
    }
}
