//! Code layouts' build mechanics on the deterministic fixture: layouts are linked when a round
//! first needs them (a layout that cannot be linked leaves the others; unblocked, it is linked
//! again, byte for byte), and a linker without ordering files leaves cargo's build alone and
//! says so. Moved from `end_to_end::layouts`: what is tested is the build layer and where each
//! fork ran, not a measurement; that layouts are the same code in another order, measured, is
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

/// The bytes of the executable of bench target `demo` that cargo's own `cargo rustc --profile
/// bench` builds of `repo` into `target`, with the compiler arguments `args` added to that
/// target's compilation (as `cargo rustc` adds them: `-C metadata`, the symbols' hash, stays
/// cargo's), and what rustc printed.
fn bench_built_with(repo: &Path, target: &Path, args: &[String]) -> (Vec<u8>, String) {
    let output = std::process::Command::new("cargo")
        .args(["rustc", "--profile", "bench", "--bench", "demo"])
        .arg("--message-format=json")
        .arg("--")
        .args(args)
        .current_dir(repo)
        .env("CARGO_TARGET_DIR", target)
        .env("CARGO_PROFILE_BENCH_OPT_LEVEL", OPT_LEVEL)
        .env_remove("RUSTC_WRAPPER")
        .env_remove("RUSTC_BOOTSTRAP")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let executable = stdout
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .find_map(|message| message["executable"].as_str().map(PathBuf::from))
        .expect("cargo names the bench executable");
    (std::fs::read(executable).unwrap(), stdout)
}

#[test]
fn the_build_keeps_the_link_of_its_own_compilation_which_makes_the_same_executable() {
    // Fat LTO and one codegen unit in the bench profile, as toml and httparse have them: a
    // second compilation of the bench target would be a second whole-program LTO.
    let (dir, repo) = fixture_repo(&unchanged());
    let manifest = repo.join("Cargo.toml");
    let mut text = std::fs::read_to_string(&manifest).unwrap();
    text.push_str("\n[profile.bench]\nlto = true\ncodegen-units = 1\n");
    std::fs::write(&manifest, text).unwrap();
    commit_all(&repo, "fat LTO");

    // The arguments that keep the link change nothing of the executable cargo links.
    let target = dir.path().join("rustc-target");
    let (plain, _) = bench_built_with(&repo, &target, &[]);
    let args = cargo_perfdiff::steps::build::layout::template_args();
    let (kept, printed) = bench_built_with(&repo, &target, &args);
    assert!(
        printed.contains("--symbol-ordering-file=/dev/null"),
        "{printed}"
    );
    assert!(
        plain == kept,
        "the arguments {args:?} change the executable under fat LTO"
    );

    // A comparison with layouts compiles the target once, in the side's build: its layouts
    // relink what that compilation kept.
    let head = rev_parse(&repo, "HEAD");
    let args = with_layouts(compare_json("HEAD", "HEAD", &["hash/mix"]), "2");
    let args = with_options(&args, &["-v"]);
    let output = fixture_perfdiff_with_env(&repo, &args, &[NO_SHARED_BUILDS]);
    assert!(output.status.success(), "{}", all_output(&output));
    let err = stderr(&output);
    assert!(
        err.contains("demo: its 2 code layouts relink the objects its build kept"),
        "{err}"
    );
    assert!(!err.contains("once more"), "{err}");
    let layout_1 = state_dir(&repo).join("bin").join(&head).join("layout-1");
    assert!(
        std::fs::read_dir(&layout_1).is_ok_and(|mut files| files.next().is_some()),
        "layout 1 linked in {}",
        layout_1.display()
    );

    // Cargo never saw the arguments: its own `cargo bench --no-run` finds every unit up to date.
    let checkout = built_checkout(&repo, &head);
    let plain = std::process::Command::new("cargo")
        .args(["bench", "--no-run", "-v"])
        .current_dir(&checkout)
        .env(
            "CARGO_TARGET_DIR",
            target_dir(&repo).join("perfdiff/target"),
        )
        .env("CARGO_PROFILE_BENCH_OPT_LEVEL", OPT_LEVEL)
        .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", OPT_LEVEL)
        .env_remove("RUSTC_WRAPPER")
        .env_remove("RUSTC_BOOTSTRAP")
        .output()
        .unwrap();
    let plain_err = String::from_utf8_lossy(&plain.stderr);
    assert!(plain.status.success(), "{plain_err}");
    assert!(
        plain_err.contains("Fresh perfdiff-demo") && !plain_err.contains("Running `"),
        "{plain_err}"
    );
}
