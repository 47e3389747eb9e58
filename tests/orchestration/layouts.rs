//! Code layouts' build mechanics on the deterministic fixture: layouts are linked when a round
//! first needs them (a layout that cannot be linked leaves the others; unblocked, it is linked
//! again, byte for byte), a linker without ordering files leaves cargo's build alone and says
//! so, and the side's build keeps the link of its own compilation of a bench target, under fat
//! LTO too, making the executable the same build without the arguments makes. Moved from
//! `end_to_end::layouts`: what is tested is the build layer and where each fork ran, not a
//! measurement; that layouts are the same code in another order, measured, is
//! `end_to_end::layouts`.

use crate::bench_fixture::*;
use crate::support;

use support::*;

use std::path::{Path, PathBuf};

#[test]
fn layouts_are_linked_when_a_round_first_needs_them() {
    let (_dir, repo) = fixture_repo(&strong());
    let head = rev_parse(&repo, "HEAD");
    let bin = state_dir(&repo).join("bin").join(&head);
    let comparison = ["HEAD~1", "HEAD", "--format", "json", "--fail-on", "never"];
    let settings = ["--stop", "fixed", "--forks", "4", "--layouts", "4"];
    let args = [&comparison[..], FAST, &settings, &["--", "hash/steady"]].concat();
    let run = |expected: [Option<u64>; 4]| {
        let output = fixture_perfdiff(&repo, &args);
        assert!(output.status.success(), "{}", all_output(&output));
        for side in ["base", "head"] {
            for layouts in fork_layouts(&repo, side) {
                assert_eq!(layouts, expected, "{side}");
            }
        }
        stderr(&output)
    };
    run([Some(0), Some(1), Some(2), Some(3)]);
    let linked: Vec<Vec<u8>> = (2..4)
        .map(|layout| std::fs::read(layout_executable(&repo, &head, layout)).unwrap())
        .collect();

    // Head's layouts 2 and 3 are gone, and layout 2 cannot be linked: a directory stands where
    // it goes. The kept builds serve (no cargo runs), and the rounds go through the layouts head
    // has: 0, 1, then 0, 1 again on both sides; layout 3, which no round needs, is not linked.
    let name = layout_executable(&repo, &head, 2);
    let name = name.file_name().unwrap();
    std::fs::remove_dir_all(bin.join("layout-3")).unwrap();
    std::fs::remove_dir_all(bin.join("layout-2")).unwrap();
    let blocked = bin.join("layout-2").join(name);
    std::fs::create_dir_all(&blocked).unwrap();
    let err = run([Some(0), Some(1), Some(0), Some(1)]);
    assert!(!err.contains("compiled"), "{err}");
    assert!(
        err.contains(
            "bench target demo of head is measured in its first 2 code layout(s) from now on: \
             linking layout 2 failed"
        ),
        "{err}"
    );
    assert!(!bin.join("layout-3").exists());

    // Unblocked, the next run links them when its rounds need them, as they were.
    std::fs::remove_dir_all(&blocked).unwrap();
    let err = run([Some(0), Some(1), Some(2), Some(3)]);
    assert!(!err.contains("compiled"), "{err}");
    for (layout, before) in (2..4).zip(linked) {
        let again = std::fs::read(layout_executable(&repo, &head, layout)).unwrap();
        assert!(again == before, "layout {layout} linked again differs");
    }
}

#[test]
fn a_linker_without_ordering_files_leaves_cargo_s_build_and_says_so() {
    let (_dir, repo) = fixture_repo(&strong());
    // GNU ld has no --symbol-ordering-file: link with it, as a user's configuration may.
    let config = repo.join(".cargo");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("config.toml"),
        "[target.x86_64-unknown-linux-gnu]\nrustflags = [\"-C\", \"link-arg=-fuse-ld=bfd\"]\n",
    )
    .unwrap();
    commit_all(&repo, "link with GNU ld");
    // HEAD against itself: one build, with the configuration, serves both sides.
    let args = with_layouts(compare_json("HEAD", "HEAD", &["hash/mix"]), "2");
    // The note is the build's: a build of the same content another run put in the store of kept
    // builds would serve this one without it.
    let output = fixture_perfdiff_with_env(&repo, &args, &[NO_SHARED_BUILDS]);
    assert!(output.status.success(), "{}", all_output(&output));
    let err = stderr(&output);
    assert!(
        err.contains("is measured in cargo's build alone")
            && err.contains("unrecognized option '--symbol-ordering-file=/dev/null'"),
        "{err}"
    );
    let report = json_report(&output);
    let mix = measured_entry(&report, "hash/mix", 2);
    assert!(mix.get("layout_spread").is_none(), "{mix:#}");
    for side in ["base", "head"] {
        for layouts in fork_layouts(&repo, side) {
            assert_eq!(layouts, [None, None], "{side}");
        }
    }
}

/// The checkout the build of `commit` kept in `repo`'s state directory was made in: the worktree
/// slot its kept executables name as their package root.
fn built_checkout(repo: &Path, commit: &str) -> PathBuf {
    let state = state_dir(repo);
    let bin = state.join("bin").join(commit);
    let kept: String = std::fs::read_dir(&bin)
        .unwrap_or_else(|e| panic!("{}: {e}", bin.display()))
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .map(|path| std::fs::read_to_string(path).unwrap())
        .collect();
    let slots = state.join("worktrees/target/package");
    ["base", "head"]
        .map(|slot| slots.join(slot))
        .into_iter()
        .find(|slot| kept.contains(&format!("{}\"", slot.display())))
        .unwrap_or_else(|| {
            panic!(
                "no slot of {} in the build kept in {}",
                slots.display(),
                bin.display()
            )
        })
}

/// `cargo bench --no-run -v --message-format=json` in the checkout `checkout`, into the target
/// directory of `repo`'s comparisons, as a user would run it there (no compiler wrapper), or, with
/// `normalised`, through cargo-perfdiff's compiler wrapper as the side's build runs it but
/// without the arguments that keep the link (the wrapper adds them only when told to). Returns
/// what it printed (stdout, the JSON messages, then stderr).
fn cargo_bench_in(repo: &Path, checkout: &Path, normalised: bool) -> String {
    let mut command = std::process::Command::new("cargo");
    command
        .args(["bench", "--no-run", "-v", "--message-format=json"])
        .current_dir(checkout)
        .env("CARGO_TARGET_DIR", target_dir(repo).join("perfdiff/target"))
        .env("CARGO_PROFILE_BENCH_OPT_LEVEL", OPT_LEVEL)
        .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", OPT_LEVEL)
        .env_remove("RUSTC_WRAPPER")
        .env_remove("RUSTC_BOOTSTRAP")
        .env_remove("CARGO_PERFDIFF_KEEP_LINKS")
        .env_remove("CARGO_PERFDIFF_RELINK_UNIT")
        .env_remove("CARGO_PERFDIFF_RELINK_ARGS");
    if normalised {
        // What `steps::build::normalize::apply` sets on the side's cargo command.
        command
            .env("RUSTC_WRAPPER", env!("CARGO_BIN_EXE_cargo-perfdiff"))
            .env("CARGO_PERFDIFF_RUSTC_WRAPPER_ROOT", checkout);
    }
    let output = command.output().unwrap();
    let printed = all_output(&output);
    assert!(output.status.success(), "{printed}");
    printed
}

/// The `compiler-artifact` message of target `name` among cargo's JSON `messages`.
fn artifact(messages: &str, name: &str) -> serde_json::Value {
    messages
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .find(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == name)
        .unwrap_or_else(|| panic!("no artifact of target {name} in: {messages}"))
}

/// Commits `profile` as the fixture's bench profile, its library without a bench harness: under
/// LTO each executable of the build is a whole-program optimisation, and the library's libtest
/// harness (which `cargo bench` builds by default, a second one, with libtest in it) is not what
/// is checked.
fn commit_bench_profile(repo: &Path, profile: &str) {
    let manifest = repo.join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let base = text.split("\n[lib]\n").next().unwrap().trim_end();
    let text = format!("{base}\n\n[lib]\nbench = false\n\n[profile.bench]\n{profile}");
    std::fs::write(&manifest, text).unwrap();
    commit_all(repo, profile);
}

/// Compares HEAD with itself at two layouts on `repo`, whose bench profile is `profile`, then
/// checks that the side's build compiled bench target `demo` once, keeping its link (the layouts
/// relink it), that cargo never saw the arguments that keep it, and that the executable is byte
/// for byte the one the same build without them makes.
fn check_the_kept_link(repo: &Path, profile: &str) {
    commit_bench_profile(repo, profile);
    let profile = profile.trim().replace('\n', ", ");
    // A comparison with layouts compiles the target once, in the side's build: its layouts
    // relink what that compilation kept.
    let head = rev_parse(repo, "HEAD");
    let args = with_layouts(compare_json("HEAD", "HEAD", &["hash/mix"]), "2");
    let args = with_options(&args, &["-v"]);
    let output = fixture_perfdiff_with_env(repo, &args, &[NO_SHARED_BUILDS]);
    assert!(
        output.status.success(),
        "{profile}: {}",
        all_output(&output)
    );
    let err = stderr(&output);
    assert!(
        err.contains("demo: its 2 code layouts relink the objects its build kept")
            && !err.contains("once more"),
        "{profile}: {err}"
    );
    let layout_1 = layout_executable(repo, &head, 1);
    let built = std::fs::read(layout_executable(repo, &head, 0)).unwrap();
    assert!(
        built != std::fs::read(&layout_1).unwrap(),
        "{profile}: layout 1 is another order"
    );

    // Cargo never saw the arguments: its own `cargo bench --no-run` finds every unit up to date.
    let checkout = built_checkout(repo, &head);
    let plain = cargo_bench_in(repo, &checkout, false);
    assert!(
        plain.contains("Fresh perfdiff-demo") && !plain.contains("Running `"),
        "{profile}: {plain}"
    );
    let executable = PathBuf::from(artifact(&plain, "demo")["executable"].as_str().unwrap());
    let saved = format!("{}.perfdiff-link", executable.display());
    let kept_link = std::fs::read_to_string(&saved)
        .unwrap_or_else(|e| panic!("{profile}: the build's kept link {saved}: {e}"));
    assert!(
        kept_link.contains("--symbol-ordering-file=/dev/null"),
        "{profile}: {kept_link}"
    );

    // The arguments change nothing of the executable: the same build without them (the source's
    // time moved on, so cargo compiles `demo` again, and nothing else) links the same bytes.
    let source = std::fs::File::options()
        .write(true)
        .open(checkout.join("benches/demo.rs"))
        .unwrap();
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(2);
    source.set_modified(later).unwrap();
    let again = cargo_bench_in(repo, &checkout, true);
    let demo = artifact(&again, "demo");
    let library = artifact(&again, "perfdiff_demo");
    assert!(
        demo["fresh"] == false && library["fresh"] == true,
        "{profile}: {again}"
    );
    assert!(
        !again.contains("symbol-ordering-file"),
        "{profile}: {again}"
    );
    let rebuilt = std::fs::read(demo["executable"].as_str().unwrap()).unwrap();
    assert!(
        rebuilt == built,
        "{profile}: the arguments {:?} change the executable",
        cargo_perfdiff::steps::build::layout::template_args()
    );
}

#[test]
fn the_build_keeps_the_link_of_its_own_compilation_which_makes_the_same_executable() {
    // Fat LTO and one codegen unit in the bench profile, as toml and httparse have them: a
    // second compilation of the bench target would be a second whole-program LTO. Two such
    // compilations in all: the side's, and the one without the arguments. (Thin LTO passes too,
    // `check_the_kept_link(&repo, "lto = \"thin\"\n")` after this one, at the cost of two more
    // LTO compilations: left out.)
    let (_dir, repo) = fixture_repo(&unchanged());
    check_the_kept_link(&repo, "lto = true\ncodegen-units = 1\n");
}
