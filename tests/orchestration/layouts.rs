//! Code layouts' build mechanics on the deterministic fixture: layouts are linked when a round
//! first needs them (a layout that cannot be linked leaves the others; unblocked, it is linked
//! again, byte for byte), and a linker without ordering files leaves cargo's build alone and
//! says so. Moved from `end_to_end::layouts`: what is tested is the build layer and where each
//! fork ran, not a measurement; that layouts are the same code in another order, measured, is
//! `end_to_end::layouts`.

use crate::bench_fixture::*;
use crate::support;

use support::*;

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
