//! Forks spread over code layouts (`src/steps/build/layout.rs`, docs/design/layouts.md): each
//! revision is measured in cargo's build and in relinks of the same code, each layout's functions
//! in an order that base and head share.
//!
//! These run the real binary on a demo repository with a tiny measurement time and inspect what
//! it kept: the executables of every layout (`bin/<commit>/layout-K/`), the samples file (the
//! layout of each fork) and the JSON report (each benchmark's layout spread). When layouts are
//! linked, and a linker that cannot order functions, are tested on the deterministic fixture,
//! in `orchestration::layouts`.

use crate::support;

use std::path::Path;
use std::process::Command;

use support::*;

/// The names of the functions (text symbols) of `executable`, in address order, as `nm` lists
/// them.
fn functions_in_address_order(executable: &Path) -> Vec<String> {
    let output = Command::new("nm")
        .arg("--numeric-sort")
        .arg(executable)
        .output()
        .expect("nm (binutils) runs");
    assert!(output.status.success(), "nm {}", executable.display());
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| {
            let mut fields = line.split_whitespace();
            let (_, kind, name) = (fields.next()?, fields.next()?, fields.next()?);
            matches!(kind, "t" | "T").then(|| name.to_string())
        })
        .collect()
}

/// The functions of `executable` that share their address with another.
fn aliased_functions(executable: &Path) -> Vec<String> {
    let output = Command::new("nm")
        .arg(executable)
        .output()
        .expect("nm runs");
    let mut by_address: std::collections::HashMap<String, Vec<String>> = Default::default();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if let [address, "t" | "T", name] = fields[..] {
            by_address
                .entry(address.to_string())
                .or_default()
                .push(name.to_string());
        }
    }
    by_address
        .into_values()
        .filter(|names| names.len() > 1)
        .flatten()
        .collect()
}

/// The names that occur more than once in `names`.
fn repeated(names: &[String]) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    names
        .iter()
        .filter(|name| !seen.insert(name.as_str()))
        .cloned()
        .collect()
}

fn sorted(mut names: Vec<String>) -> Vec<String> {
    names.sort();
    names
}

#[test]
fn forks_go_through_the_layouts_which_are_the_same_code_in_another_order() {
    let _guard = measuring_lock();
    let (_dir, repo) = demo_repo(&strong_changes());
    // Identical source on both sides of the library: a comment-only commit on top.
    commit_a_comment_in_the_library(&repo);
    let comparison = ["HEAD~1", "HEAD", "--format", "json", "--fail-on", "never"];
    let settings = ["--forks", "4", "--layouts", "4"];
    let args = [&comparison[..], FAST, STRICT_ALPHA, &settings].concat();
    // Two of the demo's benchmarks, each the same code on both sides here: what is checked of
    // each (the layout of every fork, no verdict of a change) needs no more of them.
    let two = [&args[..], &["--", "hash/steady", "hash/mix"]].concat();
    let output = cargo_perfdiff(&repo, &two);
    assert!(output.status.success(), "{}", all_output(&output));
    let report = json_report(&output);

    // Rounds 0, 1, 2, 3 ran layouts 0, 1, 2, 3 on both sides.
    for side in ["base", "head"] {
        for layouts in fork_layouts(&repo, side) {
            assert_eq!(layouts, [Some(0), Some(1), Some(2), Some(3)], "{side}");
        }
    }
    // Every measured benchmark has its layout spread, over the layouts of its analysed forks
    // (all four, unless one was left out as disturbed).
    let steady = measured_entry(&report, "hash/steady", 4);
    let layouts = steady["layout_spread"]["layouts"].as_u64();
    assert!(matches!(layouts, Some(3 | 4)), "{steady:#}");
    assert!(steady["layout_spread"]["spread"].as_f64().unwrap() >= 0.0);
    // Identical executables in every layout: nothing to call changed.
    for benchmark in report["benchmarks"].as_array().unwrap() {
        let verdict = benchmark["verdict"].as_str().unwrap();
        assert!(
            verdict != "regressed" && verdict != "improved",
            "{benchmark:#}"
        );
    }

    let head = rev_parse(&repo, "HEAD");
    let parent = rev_parse(&repo, "HEAD~1");
    let cargo_build = functions_in_address_order(&layout_executable(&repo, &head, 0));
    for layout in 1..4 {
        let relinked = layout_executable(&repo, &head, layout);
        // Identical source, identical executable: in every layout, not only cargo's.
        let parent_relinked = layout_executable(&repo, &parent, layout);
        assert!(
            std::fs::read(&relinked).unwrap() == std::fs::read(&parent_relinked).unwrap(),
            "layout {layout} of the two sides differs: {} {}",
            relinked.display(),
            parent_relinked.display()
        );
        // The same functions (same symbol hashes: no crate was compiled differently) …
        let functions = functions_in_address_order(&relinked);
        assert_eq!(sorted(functions.clone()), sorted(cargo_build.clone()));
        // … in another order.
        assert_ne!(functions, cargo_build, "layout {layout} is cargo's order");
    }
    assert_layouts_linked_again(&repo, &head);

    // Commits that leave the code alone. The second one's head is built in the checkout that
    // last built the same code: cargo finds layout 1 up to date and prints no link command, so
    // the one saved when it was linked serves. One benchmark runs through the four layouts.
    let one = [&args[..], &["--", "hash/steady"]].concat();
    for notes in ["not code\n", "still not code\n"] {
        std::fs::write(repo.join("NOTES.md"), notes).unwrap();
        commit_all(&repo, "a file no crate reads");
        let output = cargo_perfdiff(&repo, &one);
        assert!(output.status.success(), "{}", all_output(&output));
        assert_layouts_linked_again(&repo, &rev_parse(&repo, "HEAD"));
    }
}

#[test]
fn layouts_put_the_functions_both_sides_share_in_the_same_order() {
    let _guard = measuring_lock();
    // Head adds a benchmark (its functions) and changes constants: code moves.
    let (_dir, repo) = shared_demo(&_guard, &strong_changes());
    let comparison = ["HEAD~1", "HEAD", "--format", "json", "--fail-on", "never"];
    let settings = ["--stop", "fixed", "--forks", "3", "--layouts", "3"];
    let args = [&comparison[..], FAST, &settings, &["--", "hash/steady"]].concat();
    let output = cargo_perfdiff(&repo, &args);
    assert!(output.status.success(), "{}", all_output(&output));

    let (base, head) = (rev_parse(&repo, "HEAD~1"), rev_parse(&repo, "HEAD"));
    let mut orders = Vec::new();
    for layout in 0..3 {
        let base_order = functions_in_address_order(&layout_executable(&repo, &base, layout));
        let head_order = functions_in_address_order(&layout_executable(&repo, &head, layout));
        let only_in_head = head_order
            .iter()
            .filter(|f| !base_order.contains(f))
            .count();
        assert!(only_in_head > 0, "head adds functions");
        // A function LLVM merged with an identical one (an alias, one section for both) sits
        // where the first of their names in the order puts it: when it is merged on one side
        // only, the other side has no such partner. A local function that several codegen
        // units each keep a copy of (`drop_in_place::<io::Error>`) has one name for all copies,
        // and head may keep one copy more than base. Both are left out of the comparison.
        let left_out: Vec<String> = [&base, &head]
            .iter()
            .flat_map(|commit| {
                let executable = layout_executable(&repo, commit, layout);
                aliased_functions(&executable)
                    .into_iter()
                    .chain(repeated(&functions_in_address_order(&executable)))
            })
            .collect();
        let shared = |order: &[String], other: &[String]| -> Vec<String> {
            order
                .iter()
                .filter(|f| other.contains(f) && !left_out.contains(f))
                .cloned()
                .collect()
        };
        let (base_shared, head_shared) = (
            shared(&base_order, &head_order),
            shared(&head_order, &base_order),
        );
        if layout > 0 {
            assert!(
                base_shared == head_shared,
                "layout {layout}: the functions both sides have are in another order on each"
            );
        }
        orders.push(base_shared);
    }
    assert_ne!(orders[1], orders[2], "layouts 1 and 2 are other orders");
    assert_ne!(orders[0], orders[1], "layout 1 is not cargo's order");
}

/// Layouts 1, 2 and 3 of `commit` linked the objects of one link through cargo again: they carry
/// its name (cargo would have given each a unit, and a name, of its own). Beside its executable
/// in the target directory, the link command is saved and no bitcode is left.
fn assert_layouts_linked_again(repo: &Path, commit: &str) {
    let layout_1 = layout_executable(repo, commit, 1);
    let name = layout_1.file_name().unwrap().to_string_lossy().into_owned();
    for layout in [2, 3] {
        let replayed = layout_executable(repo, commit, layout);
        assert_eq!(replayed.file_name().unwrap().to_string_lossy(), name);
    }
    let deps = shared_target_dir().join("perfdiff/target/release/deps");
    assert!(deps.join(format!("{name}.perfdiff-link")).is_file());
    let bitcode: Vec<String> = std::fs::read_dir(&deps)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|file| file.starts_with(&format!("{name}.")) && file.ends_with(".bc"))
        .collect();
    assert!(
        bitcode.is_empty(),
        "bitcode left in {}: {bitcode:?}",
        deps.display()
    );
}

/// A workspace where member `a` turns on feature `fast` of the path dependency `shared`, which
/// changes the code of `shared::mix`, and member `b`'s bench target `mixes` uses `shared`
/// without it: cargo's build of the workspace compiles `shared` with `fast` for `b`'s bench too,
/// a build of package `b` alone without it.
fn workspace_with_a_feature_from_another_member(repo: &Path) {
    criterion_workspace_repo(repo, &["shared", "a", "b"], |repo| {
        write_library_package(&repo.join("shared"), "shared", "\n[features]\nfast = []\n");
        std::fs::write(
            repo.join("shared/src/lib.rs"),
            "#[inline(never)]\npub fn mix(rounds: u64) -> u64 {\n    let mut x = 1u64;\n    \
             for i in 0..rounds {\n        \
             if cfg!(feature = \"fast\") {\n            x = x.wrapping_add(i);\n        } \
             else {\n            x = (x ^ i).wrapping_mul(0x100_0000_01b3).rotate_left(5);\n        }\n    \
             }\n    x\n}\n",
        )
        .unwrap();
        write_library_package(
            &repo.join("a"),
            "a",
            "\n[dependencies]\nshared = { path = \"../shared\", features = [\"fast\"] }\n",
        );
        let b = repo.join("b");
        write_criterion_package(
            &b,
            "b",
            &[],
            "\n[dependencies]\nshared = { path = \"../shared\" }\n",
        );
        add_bench_target(
            &b,
            "mixes",
            "use std::hint::black_box;\nuse criterion::{criterion_group, criterion_main, Criterion};\n\n\
             fn benches(c: &mut Criterion) {\n    \
             c.bench_function(\"mix\", |b| b.iter(|| shared::mix(black_box(200))));\n}\n\n\
             criterion_group!(group, benches);\ncriterion_main!(group);\n",
        );
    });
}

#[test]
fn a_member_s_features_of_a_shared_dependency_are_those_of_its_layouts() {
    let _guard = measuring_lock();
    let dir = scratch();
    let repo = dir.path().join("ws");
    workspace_with_a_feature_from_another_member(&repo);
    replace_in(&repo, "b/benches/mixes.rs", "200", "300");
    commit_all(&repo, "more rounds");
    let comparison = ["HEAD~1", "HEAD", "--format", "json", "--fail-on", "never"];
    let settings = ["--stop", "fixed", "--forks", "3", "--layouts", "3"];
    let args = [&comparison[..], FAST, &settings].concat();
    let output = cargo_perfdiff_with_env(&repo, &args, &[NO_SHARED_BUILDS]);
    let out = all_output(&output);
    assert!(output.status.success(), "{out}");
    // The relink is the workspace build's, where `a` gives `shared` its feature `fast` (`cargo
    // rustc -p b`, the relink before, compiled `shared` without it: another program).
    assert!(!out.contains("measured in cargo's build alone"), "{out}");
    for side in ["base", "head"] {
        let layouts = fork_layouts(&repo, side);
        assert!(!layouts.is_empty(), "{side}: measured");
        for forks in layouts {
            assert_eq!(forks, [Some(0), Some(1), Some(2)], "{side}");
        }
    }
    // The same functions, with the same symbol hashes, as cargo's executable.
    let head = rev_parse(&repo, "HEAD");
    let cargo_build =
        functions_in_address_order(&target_layout_executable(&repo, &head, "mixes", 0));
    for layout in 1..3 {
        let relinked = target_layout_executable(&repo, &head, "mixes", layout);
        let functions = functions_in_address_order(&relinked);
        assert_eq!(
            sorted(functions),
            sorted(cargo_build.clone()),
            "layout {layout}"
        );
    }
    // Selection reads the objects of the executable measured: the benchmark's own closure
    // changed, and it says so (with another program's objects it was `undecided`).
    let output = output_logged(
        perfdiff_command(&repo, &args)
            .env_remove("CARGO_PERFDIFF_MEASURE_ALL")
            .env(NO_SHARED_BUILDS.0, NO_SHARED_BUILDS.1),
    );
    assert!(output.status.success(), "{}", all_output(&output));
    let mix = bench_entry(&json_report(&output), "mix").clone();
    assert_eq!(mix["selection"]["reason"], "reaches_change", "{mix:#}");
}
