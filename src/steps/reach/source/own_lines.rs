//! Other lines of a function's own code on the two sides, from one definition: the same source
//! when its whole definition reads the same ([`Apart::own_lines_otherwise`]).
//!
//! Why. A span is the lines from the first to the last that a (file, function) contributed to
//! a symbol's code ([`super::source_of`]). Which lines of a function hold code is the
//! compiler's choice too, and it changes with what the function inlines: a function whose one
//! callee is inlined into it may need no stack frame, so its signature's line holds no code
//! (no prologue); once the callee is called instead (a change elsewhere gave it a second
//! caller), the function pushes a frame at that line. Its span then starts a line earlier on
//! that side, though nothing of its text changed, and comparing the spans' texts says
//! "differs": the function compiled differently from the same source was not named beside a
//! changed verdict (issue #55 item 2; `selection_e2e`'s `blend`, whose `fold_in` gets a
//! second caller in head).
//!
//! The rule: two spans of one key whose texts differ are the same source when
//! - the file is the checkout's (a dependency's has its own rule, [`super::dependency_lines`];
//!   the toolchain's has no text);
//! - the function is not a closure (a closure's item is the function around it, which may hold
//!   other closures of the same name);
//! - on each side, the innermost item of the file holding that side's span is the function
//!   itself, the same item on both sides, and reads the same token for token on both sides
//!   ([`super::defined_at`], as for a function inlined on one side only), and no item of its
//!   name changes anywhere;
//! - neither that whole text nor the function's name names what the commit changes there
//!   ([`Apart::changed_name_in`], as for a function merged away on one side).
//!
//! Why sound. What the function computes is fixed by its definition and by what the names in
//! it mean. The definition is one text on both sides (every line of it, not only those that
//! kept code: a statement added or removed anywhere in it is seen), and none of its names
//! means something else in head. What it inlines is in its spans as other keys, compared or
//! followed as before, and the names check still runs over both sides' spans afterwards. So
//! only where the compiler put the code differs, which is what the note beside a verdict says
//! and what a skip outside the timed loop may ignore. Anything else (a closure, lines of
//! another item, a file that cannot be read or parsed) keeps comparing texts.

use std::path::Path;

use super::{Apart, Key, SIDES, Span, defined_at, is_dependency, is_toolchain, short_name};

impl Apart<'_, '_> {
    /// Whether `spans`, the two sides' spans of `key` (whose texts differ), are other lines of
    /// one unchanged definition (the module doc's rule); if so, the note that says what was
    /// taken as the same.
    pub(super) fn own_lines_otherwise(&self, key: &Key, spans: [&Span; 2]) -> Option<String> {
        let (file, function) = key;
        let name = short_name(function);
        let candidate = !is_dependency(file)
            && !is_toolchain(Path::new(file))
            && name != "{closure}"
            && !self.changed.contains_in_instance(&name, file, function);
        if !candidate {
            return None;
        }
        let items = [0, 1].map(|side| self.readers[side].items(file).ok());
        let [Some(base), Some(head)] = items else {
            return None;
        };
        let items = [base.as_slice(), head.as_slice()];
        let [in_base, in_head] = [0, 1].map(|side| {
            let lines = (spans[side].first, last_line(spans[side]));
            defined_at(items, side, lines, key).ok()
        });
        let (Some(definition), Some(other)) = (in_base, in_head) else {
            return None;
        };
        let one_item = definition.lines == other.lines;
        if !(definition.defines && other.defines && one_item) {
            return None;
        }
        if self.changed_name_in(key, &definition).is_some() {
            return None;
        }
        let [base, head] = spans.map(|s| format!("{}–{}", s.first, last_line(s)));
        Some(format!(
            "`{name}` ({file}) holds lines {base} in {}'s code and {head} in {}'s: its whole \
             definition reads the same on both sides, compiled otherwise (inlining), same source",
            SIDES[0], SIDES[1]
        ))
    }
}

/// The last line of `span`.
fn last_line(span: &Span) -> u32 {
    span.first + (span.text.len() as u32).saturating_sub(1)
}

#[cfg(test)]
mod tests {
    use super::super::SourceComparison;
    use super::super::tests::{compare_apart, compiled_files};

    /// A crate whose `blend` calls `fold_in`, too long to inline into anything but its only
    /// caller; `second` adds `fold_twice`, another caller of it, which `main` calls; `blend` is
    /// `body` after `BLEND`, set to `value`.
    fn blend_crate(second: bool, value: u64) -> Vec<(&'static str, String)> {
        let twice =
            "#[inline(never)]\nfn fold_twice(x: u64) -> u64 {\n    fold_in(fold_in(x))\n}\n";
        let call = "    println!(\"{}\", fold_twice(std::hint::black_box(3)));\n";
        let main = format!(
            "const BLEND: u64 = {value};\n\n\
             fn fold_in(x: u64) -> u64 {{\n    let mut h = x;\n    \
             for k in [3u64, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41] {{\n        \
             h = (h ^ std::hint::black_box(k)).wrapping_mul(0x100_0000_01b3).rotate_left(k as u32);\n    \
             }}\n    h\n}}\n\n\
             #[inline(never)]\nfn blend(x: u64) -> u64 {{\n    fold_in(x) ^ BLEND\n}}\n\n{}\n\
             fn main() {{\n    println!(\"{{}}\", blend(std::hint::black_box(1000)));\n{}}}\n",
            if second { twice } else { "" },
            if second { call } else { "" },
        );
        vec![("src/main.rs", main)]
    }

    #[test]
    fn a_function_whose_own_lines_hold_other_code_from_one_definition_is_the_same_source() {
        let dir = tempfile::tempdir().unwrap();
        for (side, second, value) in [
            ("base", false, 1),
            ("second", true, 1),
            ("changed", true, 2),
        ] {
            compiled_files(dir.path(), side, &blend_crate(second, value));
        }
        // Base inlines `fold_in` into `blend`, head calls it: `blend`'s own lines differ.
        let compared = compare_apart(dir.path(), "base", "second", "demo::blend");
        let SourceComparison::SameApart(note) = &compared else {
            panic!("the same definition, other lines with code: the same source: {compared:?}");
        };
        assert!(
            note.contains("`blend` (src/main.rs) holds lines")
                && note.contains("its whole definition reads the same on both sides"),
            "{note}"
        );
        // The same lines, but `BLEND`, which its definition names, changes: it differs.
        let compared = compare_apart(dir.path(), "base", "changed", "demo::blend");
        assert!(
            matches!(&compared, SourceComparison::Differs(_)),
            "{compared:?}"
        );
    }
}
