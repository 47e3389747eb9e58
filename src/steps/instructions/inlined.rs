//! Code inlined into a function, given back to the function it came from.
//!
//! In an optimised build most small functions do not exist as functions: they are inlined into
//! their callers, and callgrind, which sees only real calls, counts their instructions as their
//! caller's. A benchmark whose closure, `parse` and `render` are all inlined into criterion's
//! `Bencher::iter` shows a change of `render` as a change of `Bencher::iter`. The debug
//! information knows better: for every instruction, the chain of inlined functions it belongs
//! to (`DW_TAG_inlined_subroutine`, present with `debug = "line-tables-only"` and more). With
//! the profile's costs by instruction address (`--dump-instr=yes`), each instruction's count goes
//! to the innermost function of the program it was inlined from (self), and to every function
//! of the program in its chain but the outermost (inclusive); the outermost keeps the rest.
//! Functions of the standard library inlined into the program's (`Iterator::next`,
//! `wrapping_add`) are not split off: their instructions are the work of the function that
//! used them.
//!
//! An inlined function is named as the line tables name it, without its module path
//! (`render`, `parse_bytes<u64>`): they do not carry more (the symbol table, which has full
//! paths, has no entry for code that only exists inlined). Its file and line say where it is.
//! A closure's name there is `{closure#0}` alone, which every function's first closure shares,
//! so it is given the function it was inlined into: `{closure#0} in app::stage_two`.
//!
//! Without debug information the profile is returned unchanged.

use std::collections::HashMap;
use std::path::Path;

use super::profile::{FunctionCost, Profile};

/// One function of an instruction's inline chain: its name and where the instruction is in it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Frame {
    name: String,
    file: Option<String>,
    line: Option<u32>,
}

/// `profile` with the instructions of code inlined into the functions of `executable` given to
/// the functions they came from, using the executable's debug information. Functions of other
/// objects (the C library), and any profile without addresses, are left as they are.
pub fn attribute(profile: &Profile, executable: &Path) -> Profile {
    let Ok(loader) = addr2line::Loader::new(executable) else {
        return profile.clone();
    };
    let object = executable.to_string_lossy();
    let mut moved: HashMap<(String, Option<String>), FunctionCost> = HashMap::new();
    let mut functions = Vec::with_capacity(profile.functions.len());
    for function in &profile.functions {
        let ours = function.object.as_deref() == Some(object.as_ref());
        if !ours || function.by_address.is_empty() {
            functions.push(function.clone());
            continue;
        }
        let mut kept = function.clone();
        for cost in &function.by_address {
            let chain = inline_chain(&loader, cost.address);
            let inlined = program_frames(&chain, &function.name);
            if inlined.is_empty() {
                continue;
            }
            kept.self_instructions -= cost.self_instructions;
            for (depth, frame) in inlined.into_iter().enumerate() {
                let entry = moved
                    .entry((frame.name.clone(), frame.file.clone()))
                    .or_insert_with(|| FunctionCost {
                        name: frame.name.clone(),
                        file: frame.file.clone(),
                        line: None,
                        object: function.object.clone(),
                        self_instructions: 0,
                        inclusive_instructions: 0,
                        calls: 0,
                        by_address: Vec::new(),
                    });
                if depth == 0 {
                    entry.self_instructions += cost.self_instructions;
                }
                entry.inclusive_instructions += cost.self_instructions + cost.callee_instructions;
                if let Some(line) = frame.line.filter(|_| cost.self_instructions > 0) {
                    entry.line = Some(entry.line.map_or(line, |l| l.min(line)));
                }
            }
        }
        functions.push(kept);
    }
    let inlined = Profile {
        total: 0,
        functions: moved.into_values().collect(),
    };
    let rest = Profile {
        total: profile.total,
        functions,
    };
    Profile::sum([&rest, &inlined])
}

/// How a report names the code of `function` (its demangled symbol name) that ran at the
/// instructions `addresses`, as `--explain` names it ([`attribute`]): the program's functions
/// inlined into it there, those inlined deepest first, and `function` itself after them unless
/// it is a dependency's or the standard library's (criterion's `Bencher<M>::iter`, into which a
/// benchmark's closure and what it calls are inlined, says nothing of what changed). The
/// dependencies' own inlined functions (criterion's `black_box`) are left out, and a closure
/// says where it is ([`located`]). Just
/// `function` without debug information, or when nothing of the program's was inlined there.
///
/// `workspace`: `function` is the workspace's own (its path starts with a crate of the
/// checkout, `bstr::main`), though its outermost lines may be a dependency's: a function a
/// dependency's macro makes (criterion's `criterion_main!`) has the macro's lines. It is named
/// then too, so that it is compared in its own right (the code the macro expands around what
/// it inlines: which groups `main` calls, in which order).
pub fn source_names(
    loader: &addr2line::Loader,
    addresses: impl IntoIterator<Item = u64>,
    function: &str,
    workspace: bool,
) -> Vec<String> {
    let mut found: HashMap<String, usize> = HashMap::new();
    let mut foreign = false;
    for address in addresses {
        let chain = inline_chain(loader, address);
        if let Some(outermost) = chain.last() {
            foreign |= is_standard_library(outermost) || is_dependency(outermost);
        }
        let frames = program_frames(&chain, function);
        let own = frames.into_iter().filter(|frame| !is_dependency(frame));
        for (depth, frame) in own.enumerate() {
            let known = found.entry(located(&frame)).or_insert(depth);
            *known = (*known).min(depth);
        }
    }
    let mut names: Vec<(usize, String)> = found.into_iter().map(|(n, d)| (d, n)).collect();
    names.sort();
    let mut names: Vec<String> = names.into_iter().map(|(_, name)| name).collect();
    if names.is_empty() || !foreign || workspace {
        names.push(function.to_string());
    }
    names
}

/// A frame's name, and for a closure (whose name, `{closure#0} in …`, tells little) where it
/// is: `{closure#0} in criterion::bencher::Bencher<M>::iter (benches/demo.rs:25)`, the file by
/// its last two components.
fn located(frame: &Frame) -> String {
    let (Some(file), Some(line)) = (&frame.file, frame.line) else {
        return frame.name.clone();
    };
    if !frame.name.starts_with('{') {
        return frame.name.clone();
    }
    let parts: Vec<&str> = file.rsplit('/').take(2).collect();
    let short: Vec<&str> = parts.into_iter().rev().collect();
    format!("{} ({}:{line})", frame.name, short.join("/"))
}

/// Whether the frame's code is a dependency's, as cargo keeps their sources: a registry's
/// (`…/registry/src/…`) or a git checkout (`…/git/checkouts/…`).
fn is_dependency(frame: &Frame) -> bool {
    frame
        .file
        .as_deref()
        .is_some_and(|file| file.contains("/registry/src/") || file.contains("/git/checkouts/"))
}

/// The frames of `chain` (innermost first, the outermost the function `function` itself) that
/// take the instructions from it: those inlined from the program. The standard library's
/// (`Iterator::next`, `wrapping_add`, …) stay with the function that used them: the question is
/// which of the program's functions changed. A closure, which the line tables name `{closure#0}`
/// alone, is named with the function it was inlined into (`{closure#0} in app::stage_two`), the
/// nearest frame of the program around it: two functions' first closures are two entries.
fn program_frames(chain: &[Frame], function: &str) -> Vec<Frame> {
    let Some((_, inner)) = chain.split_last() else {
        return Vec::new();
    };
    let around = |index: usize| -> &str {
        inner[index + 1..]
            .iter()
            .find(|f| !is_standard_library(f) && !is_closure(&f.name))
            .map_or(function, |f| f.name.as_str())
    };
    inner
        .iter()
        .enumerate()
        .filter(|(_, f)| f.name != function && !is_standard_library(f))
        .map(|(index, frame)| {
            let mut frame = frame.clone();
            if is_closure(&frame.name) {
                frame.name = format!("{} in {}", frame.name, around(index));
            }
            frame
        })
        .collect()
}

/// Whether the line tables' `name` is a closure's (`{closure#0}`) or an async block's.
fn is_closure(name: &str) -> bool {
    name.starts_with('{') && name.ends_with('}')
}

/// Whether the frame's code is in Rust's standard library (its sources as the line tables name
/// them: `/rustc/<commit>/library/…`).
fn is_standard_library(frame: &Frame) -> bool {
    frame
        .file
        .as_deref()
        .is_some_and(super::callgrind::is_standard_library)
}

/// The inline chain of the instruction at `address`, innermost first; empty when the debug
/// information does not cover it.
fn inline_chain(loader: &addr2line::Loader, address: u64) -> Vec<Frame> {
    let mut chain = Vec::new();
    let Ok(mut frames) = loader.find_frames(address) else {
        return chain;
    };
    while let Ok(Some(frame)) = frames.next() {
        let Some(function) = frame.function.as_ref() else {
            continue;
        };
        let Ok(raw) = function.raw_name() else {
            continue;
        };
        let location = frame.location.as_ref();
        chain.push(Frame {
            name: super::callgrind::demangle(&raw),
            file: location.and_then(|l| l.file).map(str::to_string),
            line: location.and_then(|l| l.line),
        });
    }
    chain
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Inlined into [`outer_for_names`] even without optimisation (`inline(always)`).
    #[inline(always)]
    fn inlined_helper(x: u64) -> u64 {
        x.wrapping_mul(0x9E37_79B9) ^ (x >> 7)
    }

    #[inline(never)]
    fn outer_for_names(x: u64) -> u64 {
        inlined_helper(std::hint::black_box(x)).wrapping_add(1)
    }

    #[test]
    fn a_function_is_named_with_what_the_line_tables_say_was_inlined_into_it() {
        assert_ne!(outer_for_names(5), 0);
        let exe = std::env::current_exe().unwrap();
        let data = std::fs::read(&exe).unwrap();
        let file = object::File::parse(&*data).unwrap();
        use object::{Object, ObjectSymbol};
        let symbol = file
            .symbols()
            .find(|s| {
                s.name().is_ok_and(|n| {
                    super::super::callgrind::demangle(n).ends_with("::outer_for_names")
                })
            })
            .expect("the test executable has the function");
        let name = super::super::callgrind::demangle(symbol.name().unwrap());
        let loader = addr2line::Loader::new(&exe).unwrap();
        let addresses = symbol.address()..symbol.address() + symbol.size();
        let names = source_names(&loader, addresses.clone(), &name, false);
        assert_eq!(names, ["inlined_helper", name.as_str()], "{names:?}");
        // An address no line table covers: the symbol's name alone.
        assert_eq!(source_names(&loader, [1u64], &name, false), [name.as_str()]);
    }

    fn frame(name: &str, file: &str) -> Frame {
        Frame {
            name: name.to_string(),
            file: Some(file.to_string()),
            line: Some(1),
        }
    }

    fn names(frames: &[Frame]) -> Vec<&str> {
        frames.iter().map(|f| f.name.as_str()).collect()
    }

    #[test]
    fn the_program_s_inlined_frames_take_the_cost_and_the_standard_library_s_do_not() {
        let fold = "/rustc/abc/library/core/src/iter/traits/iterator.rs";
        let chain = [
            frame("{closure#0}", "src/lib.rs"),
            frame("fold<u64>", fold),
            frame("render", "src/lib.rs"),
            frame("stage_two", "src/lib.rs"),
        ];
        let frames = program_frames(&chain, "app::stage_two");
        assert_eq!(
            names(&frames),
            ["{closure#0} in render", "render"],
            "the closure is named with the nearest frame of the program around it"
        );
        // Inlined straight into the function, through the standard library's fold.
        let chain = [
            frame("{closure#0}", "src/lib.rs"),
            frame("fold<u64>", fold),
            frame("stage_two", "src/lib.rs"),
        ];
        assert_eq!(
            names(&program_frames(&chain, "app::stage_two")),
            ["{closure#0} in app::stage_two"]
        );
        // A closure in a closure is named with the function around both.
        let chain = [
            frame("{closure#1}", "src/lib.rs"),
            frame("{closure#0}", "src/lib.rs"),
            frame("f", "src/lib.rs"),
        ];
        assert_eq!(
            names(&program_frames(&chain, "app::f")),
            ["{closure#1} in app::f", "{closure#0} in app::f"]
        );
        assert!(program_frames(&[frame("f", "src/lib.rs")], "app::f").is_empty());
        let registry = "/home/u/.cargo/registry/src/index-1/criterion-0.5.1/src/bencher.rs";
        assert!(is_dependency(&frame("iter<M>", registry)));
        assert!(!is_dependency(&frame("stage_two", "src/lib.rs")));
        assert_eq!(
            located(&frame("{closure#0} in f", "/ck/benches/demo.rs")),
            "{closure#0} in f (benches/demo.rs:1)"
        );
        assert_eq!(located(&frame("render", "/ck/src/lib.rs")), "render");
        assert!(program_frames(&[], "app::f").is_empty());
    }
}
