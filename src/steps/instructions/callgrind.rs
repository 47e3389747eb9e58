//! A reader of callgrind's profile format (valgrind's "Callgrind Format Specification"), for
//! the instructions each function executed, by itself (self) and with everything it called
//! (inclusive).
//!
//! Why our own: the Rust crates that read callgrind profiles are either unmaintained or parse
//! `callgrind_annotate`'s human output; the format is small and line based.
//!
//! What is read:
//! - the header: `positions:` (`line`, or `instr line`: one or two position columns) and
//!   `events:` (which column holds `Ir`, the instructions executed);
//! - name compression: `fn=(12) name` defines id 12, a later `fn=(12)` refers to it, for `ob=`,
//!   `fl=`, `fi=`, `fe=`, `fn=`, `cob=`, `cfi=`/`cfl=` and `cfn=`;
//! - cost lines `POSITION… COST…`, positions absolute, relative (`+3`, `-2`) or the same (`*`),
//!   in decimal or `0x` hex; missing costs are zero;
//! - `fi=`/`fe=`: the code that follows was inlined from another file; its cost stays the
//!   function's own, its lines are in that file;
//! - `calls=COUNT TARGET` and the cost line after it: one call site, whose costs are the
//!   callee's inclusive costs for those calls;
//! - `jump=`/`jcnd=` (from `--collect-jumps=yes`): the position line after them carries no cost.
//!
//! A function is identified by its name and the file of its `fl=` (two instantiations of one
//! generic function, which callgrind names alike, are one function here). Names are demangled:
//! valgrind demangles Rust's legacy symbols itself, and any name still mangled (`_ZN…`, `_R…`)
//! goes through `rustc-demangle`. Callgrind names the deeper levels of a recursion apart
//! (`quicksort'2`, its `--separate-recs`, 2 by default); such a name is its function's, so the
//! levels are one function and the calls between them recursion, counted once.

use std::collections::HashMap;

use super::profile::{AddressCost, FunctionCost, Profile};

/// A profile that is not callgrind's format.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    #[error("line {line}: {message}")]
    Line { line: usize, message: String },
    #[error("the profile counts no `Ir` event (events: {0})")]
    NoInstructions(String),
}

/// Reads one callgrind profile (one output file: one part).
pub fn parse(text: &str) -> Result<Profile, ParseError> {
    Parser::default().run(text)
}

/// Name tables of the compressed names, one per kind (files share one: `fl`, `fi`, `fe`, `cfi`).
#[derive(Default)]
struct Names {
    objects: HashMap<String, String>,
    files: HashMap<String, String>,
    functions: HashMap<String, String>,
}

/// `(12) name` defines id 12; `(12)` refers to it; a bare `name` is itself.
fn resolve(table: &mut HashMap<String, String>, value: &str) -> String {
    let value = value.trim();
    if let Some(rest) = value.strip_prefix('(')
        && let Some(close) = rest.find(')')
    {
        let id = &rest[..close];
        let name = rest[close + 1..].trim();
        if name.is_empty() {
            return table.get(id).cloned().unwrap_or_else(|| format!("({id})"));
        }
        table.insert(id.to_string(), name.to_string());
        return name.to_string();
    }
    value.to_string()
}

/// One function as it is being read.
#[derive(Default, Clone)]
struct Accumulated {
    object: Option<String>,
    self_cost: u64,
    /// Sum of the inclusive costs of its calls to other functions.
    callee_cost: u64,
    /// By source file (its own and those inlined into it): the cost there and the lowest line
    /// with a cost.
    files: Vec<(String, u64, Option<u32>)>,
    /// With `positions: instr line` (`--dump-instr=yes`): by instruction address, its own
    /// instructions and those of the calls made there.
    addresses: HashMap<u64, (u64, u64)>,
}

#[derive(Default)]
struct Parser {
    names: Names,
    /// Number of position columns (1 for `line`, 2 for `instr line`).
    positions: usize,
    /// Column of `Ir` among the events.
    ir_column: Option<usize>,
    events: String,
    /// Last value of each position column, for relative positions.
    last: Vec<i64>,
    object: Option<String>,
    /// The file of the current `fl=`.
    file: String,
    /// The file the following cost lines are in (`fl`, or `fi`/`fe` for inlined code).
    source_file: String,
    function: Option<(String, String)>,
    /// Set by `calls=`: the next cost line is that call's inclusive cost, to this callee.
    pending_call: Option<(String, u64)>,
    /// Set by `jump=`/`jcnd=`: the next line is a position without cost.
    pending_jump: bool,
    functions: HashMap<(String, String), Accumulated>,
    /// Calls into each function, by name, from its callers' call sites.
    calls_into: HashMap<String, u64>,
    order: Vec<(String, String)>,
    summary: Option<u64>,
    totals: Option<u64>,
}

impl Parser {
    fn run(mut self, text: &str) -> Result<Profile, ParseError> {
        self.positions = 1;
        self.last = vec![0; 2];
        for (index, raw) in text.lines().enumerate() {
            let line = raw.trim_end();
            self.line(line).map_err(|message| ParseError::Line {
                line: index + 1,
                message,
            })?;
        }
        if self.ir_column.is_none() {
            return Err(ParseError::NoInstructions(self.events));
        }
        let mut functions: Vec<FunctionCost> = self
            .order
            .iter()
            .map(|key| {
                let acc = &self.functions[key];
                let (file, line) = source_of(&key.1, &acc.files);
                FunctionCost {
                    name: key.0.clone(),
                    file,
                    line,
                    object: acc.object.clone(),
                    self_instructions: acc.self_cost,
                    inclusive_instructions: acc.self_cost + acc.callee_cost,
                    calls: self.calls_into.get(&key.0).copied().unwrap_or(0),
                    by_address: {
                        let mut by_address: Vec<AddressCost> = acc
                            .addresses
                            .iter()
                            .map(|(&address, &(self_instructions, callee_instructions))| {
                                AddressCost {
                                    address,
                                    self_instructions,
                                    callee_instructions,
                                }
                            })
                            .collect();
                        by_address.sort_by_key(|a| a.address);
                        by_address
                    },
                }
            })
            .collect();
        functions.sort_by(|a, b| {
            b.inclusive_instructions
                .cmp(&a.inclusive_instructions)
                .then_with(|| a.name.cmp(&b.name))
        });
        let counted: u64 = functions.iter().map(|f| f.self_instructions).sum();
        Ok(Profile {
            total: self.totals.or(self.summary).unwrap_or(counted),
            functions,
        })
    }

    fn line(&mut self, line: &str) -> Result<(), String> {
        if line.is_empty() || line.starts_with('#') {
            return Ok(());
        }
        let first = line.as_bytes()[0];
        if first.is_ascii_digit() || matches!(first, b'+' | b'-' | b'*') {
            return self.cost_line(line);
        }
        let Some((key, value)) = line.split_once([':', '=']) else {
            return Err(format!("cannot read {line:?}"));
        };
        let value = value.trim_start();
        match (key, line.as_bytes()[key.len()]) {
            ("positions", b':') => {
                self.positions = value.split_whitespace().count().clamp(1, 2);
            }
            ("events", b':') => {
                self.events = value.to_string();
                self.ir_column = value.split_whitespace().position(|e| e == "Ir");
            }
            ("summary", b':') => self.summary = first_number(value),
            ("totals", b':') => self.totals = first_number(value),
            ("ob", b'=') => self.object = Some(resolve(&mut self.names.objects, value)),
            ("fl", b'=') => {
                self.file = resolve(&mut self.names.files, value);
                self.source_file = self.file.clone();
            }
            ("fi" | "fe", b'=') => self.source_file = resolve(&mut self.names.files, value),
            ("fn", b'=') => {
                let name = function_name(&resolve(&mut self.names.functions, value));
                let key = (name, self.file.clone());
                self.source_file = self.file.clone();
                self.touch(&key);
                self.function = Some(key);
            }
            ("cob", b'=') => {
                resolve(&mut self.names.objects, value);
            }
            ("cfi" | "cfl", b'=') => {
                resolve(&mut self.names.files, value);
            }
            ("cfn", b'=') => {
                let name = function_name(&resolve(&mut self.names.functions, value));
                self.pending_call = Some((name, 0));
            }
            ("calls", b'=') => {
                let count = first_number(value).ok_or("calls= without a count")?;
                match self.pending_call.as_mut() {
                    Some(call) => call.1 = count,
                    None => return Err("calls= without a cfn= before it".into()),
                }
            }
            ("jump" | "jcnd", b'=') => self.pending_jump = true,
            // Header and other specification lines we do not need (version, creator, pid,
            // cmd, part, desc, thread, event, …).
            _ => {}
        }
        Ok(())
    }

    fn touch(&mut self, key: &(String, String)) {
        if !self.functions.contains_key(key) {
            self.order.push(key.clone());
            self.functions.insert(
                key.clone(),
                Accumulated {
                    object: self.object.clone(),
                    ..Accumulated::default()
                },
            );
        }
    }

    fn cost_line(&mut self, line: &str) -> Result<(), String> {
        let mut fields = line.split_whitespace();
        let mut line_number = 0i64;
        let mut address = None;
        for column in 0..self.positions {
            let field = fields.next().ok_or("a cost line without its position")?;
            let value = match field {
                "*" => self.last[column],
                _ if field.starts_with('+') => self.last[column] + number(&field[1..])?,
                _ if field.starts_with('-') => self.last[column] - number(&field[1..])?,
                _ => number(field)?,
            };
            self.last[column] = value;
            // The last position column is the line (`instr line`, or `line` alone).
            line_number = value;
            if column == 0 && self.positions == 2 {
                address = Some(value as u64);
            }
        }
        if std::mem::take(&mut self.pending_jump) {
            return Ok(());
        }
        let Some(ir_column) = self.ir_column else {
            if self.events.is_empty() {
                return Err("a cost line before `events:`".into());
            }
            // No `Ir` among the events: refused at the end, as a whole.
            return Ok(());
        };
        let ir = match fields.nth(ir_column) {
            Some(field) => number(field)? as u64,
            None => 0,
        };
        let key = self.function.clone().ok_or("a cost line before any fn=")?;
        if let Some((callee, count)) = self.pending_call.take() {
            let acc = self.functions.get_mut(&key).expect("touched at fn=");
            if callee != key.0 {
                acc.callee_cost += ir;
                if let Some(address) = address {
                    acc.addresses.entry(address).or_default().1 += ir;
                }
            }
            *self.calls_into.entry(callee).or_default() += count;
            return Ok(());
        }
        let acc = self.functions.get_mut(&key).expect("touched at fn=");
        acc.self_cost += ir;
        if let Some(address) = address.filter(|_| ir > 0) {
            acc.addresses.entry(address).or_default().0 += ir;
        }
        if ir > 0 {
            let at = match acc.files.iter().position(|f| f.0 == self.source_file) {
                Some(at) => at,
                None => {
                    acc.files.push((self.source_file.clone(), 0, None));
                    acc.files.len() - 1
                }
            };
            let file = &mut acc.files[at];
            file.1 += ir;
            if line_number > 0 {
                let line_number = line_number as u32;
                file.2 = Some(file.2.map_or(line_number, |l| l.min(line_number)));
            }
        }
        Ok(())
    }
}

/// The file and line a function is shown with: the file of its `fl=` and the lowest line with a
/// cost there, except when that file is the standard library's (`/rustc/…`, as for a function
/// whose first instructions came from an inlined `Iterator::next`): then the file outside the
/// standard library that holds most of its cost, if any.
fn source_of(own: &str, files: &[(String, u64, Option<u32>)]) -> (Option<String>, Option<u32>) {
    let line_in = |name: &str| files.iter().find(|f| f.0 == name).and_then(|f| f.2);
    let Some(own_name) = known_file(own) else {
        return (None, None);
    };
    if is_standard_library(&own_name)
        && let Some(user) = files
            .iter()
            .filter(|f| known_file(&f.0).is_some() && !is_standard_library(&f.0))
            .max_by_key(|f| f.1)
    {
        return (Some(user.0.clone()), user.2);
    }
    (Some(own_name.clone()), line_in(&own_name))
}

/// Sources of Rust's standard library, as its line tables name them.
pub(super) fn is_standard_library(file: &str) -> bool {
    file.starts_with("/rustc/") || file.contains("/lib/rustlib/src/")
}

/// A file name as the profile gives it, or `None` for callgrind's `???` (no debug line tables).
fn known_file(file: &str) -> Option<String> {
    (!file.is_empty() && file != "???" && !file.starts_with('\0')).then(|| file.to_string())
}

fn number(field: &str) -> Result<i64, String> {
    let parsed = match field.strip_prefix("0x") {
        Some(hex) => i64::from_str_radix(hex, 16),
        None => field.parse(),
    };
    parsed.map_err(|_| format!("{field:?} is not a number"))
}

fn first_number(value: &str) -> Option<u64> {
    value.split_whitespace().next()?.parse().ok()
}

/// The function a profile's name is of: without callgrind's recursion level (`f'2` is `f`),
/// demangled.
fn function_name(name: &str) -> String {
    demangle(without_recursion_level(name))
}

/// `name` without the `'N` callgrind appends to the levels of a recursion below the first.
fn without_recursion_level(name: &str) -> &str {
    match name.rsplit_once('\'') {
        Some((function, level))
            if !function.is_empty()
                && !level.is_empty()
                && level.bytes().all(|b| b.is_ascii_digit()) =>
        {
            function
        }
        _ => name,
    }
}

/// `name` demangled when it is still a mangled Rust symbol (valgrind demangles legacy symbols
/// itself), without the hash suffix.
pub fn demangle(name: &str) -> String {
    if (name.starts_with("_ZN") || name.starts_with("_R") || name.starts_with("__ZN"))
        && let Ok(demangled) = rustc_demangle::try_demangle(name)
    {
        return format!("{demangled:#}");
    }
    name.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A profile in callgrind's compressed form: `main` calls `work` twice (inclusive 1,000),
    /// `work` runs code inlined from `inl.rs` and calls itself once (recursion: not counted again).
    const PROFILE: &str = "# callgrind format
version: 1
creator: callgrind-3.19.0
positions: line
events: Ir
summary: 1111

ob=(1) /bin/app
fl=(1) src/main.rs
fn=(1) main
10 100
+2 11
cfn=(2) app::work
calls=2 20
12 1000

fl=(2) src/work.rs
fn=(2)
20 400
+1 100
fi=(3) src/inl.rs
5 300
fe=(2)
21 200
cfn=(2)
calls=1 20
21 250

totals: 1111
";

    #[test]
    fn self_and_inclusive_costs_with_name_compression_inlining_and_recursion() {
        let profile = parse(PROFILE).unwrap();
        assert_eq!(profile.total, 1111);
        let main = profile.function("main").unwrap();
        assert_eq!(main.self_instructions, 111);
        assert_eq!(main.inclusive_instructions, 1111);
        assert_eq!(main.file.as_deref(), Some("src/main.rs"));
        assert_eq!(main.line, Some(10));
        assert_eq!(main.object.as_deref(), Some("/bin/app"));
        let work = profile.function("app::work").unwrap();
        // 400 + 100 + 300 inlined from src/inl.rs + 200; the recursive call adds nothing.
        assert_eq!(work.self_instructions, 1000);
        assert_eq!(work.inclusive_instructions, 1000);
        assert_eq!(work.file.as_deref(), Some("src/work.rs"));
        // Line 5 is in the inlined file; the function's own lines start at 20.
        assert_eq!(work.line, Some(20));
        assert_eq!(work.calls, 3);
        // Highest inclusive first.
        assert_eq!(profile.functions[0].name, "main");
    }

    #[test]
    fn the_levels_of_a_recursion_are_one_function_demangled() {
        // quicksort calls its second level (quicksort'2) once; that level calls itself and a
        // helper. All of it is quicksort's: self 100 + 60, inclusive that and the helper's 5.
        let text = "positions: line
events: Ir
fl=(1) sort.rs
fn=(1) _ZN4core5slice4sort9quicksort17h0123456789abcdefE
1 100
cfn=(2) _ZN4core5slice4sort9quicksort17h0123456789abcdefE'2
calls=1 1
1 65
fn=(2)
1 60
cfn=(2)
calls=3 1
1 40
cfn=(3) helper
calls=1 9
1 5
fn=(3)
9 5
";
        let profile = parse(text).unwrap();
        let names: Vec<&str> = profile.functions.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["core::slice::sort::quicksort", "helper"]);
        let quicksort = &profile.functions[0];
        assert_eq!(quicksort.self_instructions, 160);
        assert_eq!(quicksort.inclusive_instructions, 165);
        assert_eq!(without_recursion_level("f'12"), "f");
        assert_eq!(without_recursion_level("f'x"), "f'x");
        assert_eq!(without_recursion_level("'2"), "'2");
        assert_eq!(without_recursion_level("f'"), "f'");
    }

    #[test]
    fn two_position_columns_jumps_hex_and_several_events() {
        let text = "positions: instr line
events: Dr Ir
fl=???
fn=_ZN4core3fmt5write17h0123456789abcdefE
0x1000 3 7 40
+4 * 1 2
jump=3 +8 *
+2 *
+2 4 0 8
";
        let profile = parse(text).unwrap();
        let f = &profile.functions[0];
        assert_eq!(f.name, "core::fmt::write");
        assert_eq!(f.self_instructions, 50);
        assert_eq!(f.file, None, "??? is no file");
        assert_eq!(f.line, None);
        assert_eq!(profile.total, 50, "no totals: the sum of the functions");
    }

    #[test]
    fn what_is_not_a_profile_is_refused_with_its_line() {
        assert!(matches!(
            parse("events: Ir\nfn=f\nthis is not callgrind\n"),
            Err(ParseError::Line { line: 3, .. })
        ));
        assert!(matches!(
            parse("events: Dr\nfn=f\n1 2\n"),
            Err(ParseError::NoInstructions(_))
        ));
        assert!(matches!(
            parse("events: Ir\n1 2\n"),
            Err(ParseError::Line { line: 2, .. })
        ));
        assert!(matches!(
            parse("events: Ir\nfn=f\nx 2\n"),
            Err(ParseError::Line { line: 3, .. })
        ));
    }

    #[test]
    fn rust_names_are_demangled_and_others_kept() {
        assert_eq!(
            demangle("_ZN9criterion7bencher16Bencher$LT$M$GT$4iter17h0123456789abcdefE"),
            "criterion::bencher::Bencher<M>::iter"
        );
        assert_eq!(demangle("_RNvCs1234_4demo4main"), "demo::main");
        assert_eq!(demangle("memcpy"), "memcpy");
        assert_eq!(demangle("0x000000000001ab70"), "0x000000000001ab70");
    }
}
