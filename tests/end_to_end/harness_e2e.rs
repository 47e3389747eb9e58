//! End to end, every harness: the demo's benchmarks written for divan, libtest `#[bench]` and
//! `bencher` beside criterion's, run as a user runs them. The demo's head makes `mix` 2× the
//! work and `checksum` 0.5×, leaves `steady` alone and adds `new_in_head`.
//!
//! These harnesses print one value per fork; the mixed run takes 6 rounds of forks, as the
//! paired rounds' interval of a 2x change needs a few degrees of freedom on a busy machine, and
//! the libtest run in duet 8 (two forks at once on a busy machine left `checksum` inconclusive
//! at 6). The mixed
//! workspace's run leaves `checksum`, and `bencher`'s `steady`, out to keep the suite short (a
//! `bencher` or libtest fork runs until its own summary settles, 4.5 s here); the libtest run
//! checks both directions (`mix` and `checksum`) and leaves `steady` out for the same reason (an
//! untouched benchmark's verdict is checked for criterion and divan in the mixed run, and on
//! the deterministic fixture). Both measure one code layout: relinking layouts does not depend
//! on the harness (the demo's runs with ten, docs/design/evidence.md "Every harness"), and each
//! layout costs a bench crate's compile here.

use crate::support;

use cargo_perfdiff::orchestrate::demo::{DemoHarness, DemoOptions};
use support::*;

/// Compares the demo's benchmarks `filters` select, `forks` forks a side, JSON report.
fn harness_args<'a>(forks: &'a str, extra: &[&'a str], filters: &[&'a str]) -> Vec<&'a str> {
    let mut args = with_options(
        &[
            "HEAD~1",
            "HEAD",
            "--stop",
            "fixed",
            "--forks",
            forks,
            "--format",
            "json",
            "--fail-on",
            "never",
        ],
        FAST,
    );
    args.extend_from_slice(extra);
    args.push("--");
    args.extend_from_slice(filters);
    args
}

/// The entry of benchmark `id` of bench target `target`.
fn entry<'a>(report: &'a serde_json::Value, target: &str, id: &str) -> &'a serde_json::Value {
    report["benchmarks"]
        .as_array()
        .expect("benchmarks")
        .iter()
        .find(|b| {
            b["target"] == target && b["criterion_id"].as_str().or(b["id"].as_str()) == Some(id)
        })
        .unwrap_or_else(|| panic!("{target} {id} missing from {report:#}"))
}

/// Of the demo's benchmarks `names` (`mix`, `checksum`, `steady`): `mix` regressed, `checksum`
/// improved, `steady` not changed, all named with `harness`, and, for the harnesses that give one
/// value per fork, judged on `forks` fork values a side.
fn assert_known_changes(
    report: &serde_json::Value,
    forks: u64,
    target: &str,
    prefix: &str,
    harness: &str,
    names: &[&str],
) {
    let verdict = |name: &str| {
        let entry = entry(report, target, &format!("{prefix}{name}"));
        assert_eq!(entry["harness"], harness, "{entry:#}");
        if harness != "criterion" {
            assert!(entry["per_fork"].is_string(), "{entry:#}");
            assert_eq!(entry["forks"]["base"], forks, "{entry:#}");
        }
        (entry["verdict"].as_str().unwrap().to_string(), entry)
    };
    for &name in names {
        let (verdict, entry) = verdict(name);
        let expected: &[&str] = match name {
            "mix" => &["regressed"],
            "checksum" => &["improved"],
            _ => &["unchanged", "inconclusive"],
        };
        assert!(
            expected.contains(&verdict.as_str()),
            "{harness} {name}: {entry:#}"
        );
    }
}

#[test]
fn a_workspace_mixing_harnesses_is_compared_on_stable_and_names_what_needs_nightly() {
    let guard = measuring_lock();
    // Built as users build it: that the compiler merges `bencher`'s identical `steady` and `mix`
    // (below) is a fact of the release profile's optimisation.
    let options = DemoOptions {
        harness: DemoHarness::Mixed,
        ..strong_changes()
    };
    let (_dir, repo) = shared_demo(&guard, &options);
    let before = RepoState::capture(&repo);
    // `bencher`'s `steady` is left out of the timed run: a `bencher` fork runs until its own
    // summary settles (4.5 s here, whatever the settings), and in base its `steady` is `mix`'s
    // code (merged, below), so it would cost a third of the run to time `mix` twice.
    let filters = ["mix", "hash/steady", "divan_demo::hash::steady"];
    let extra = ["--layouts", "1", "--verbose"];
    let output = cargo_perfdiff(&repo, &harness_args("6", &extra, &filters));
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    // `--verbose` says the sample size divan's forks are given, before the first of them.
    assert!(
        err.contains("divan_demo::hash::mix: divan's own sample size")
            || err.contains("divan_demo::hash::mix: every fork of both sides runs"),
        "{err}"
    );
    // The estimate before the run takes bencher's forks at their own pace, not the settings'.
    assert!(
        err.contains("; 4.6 s for the 1 libtest or bencher benchmark(s), which time themselves)"),
        "{err}"
    );
    let report = json_report(&output);
    let both = ["mix", "steady"];
    assert_known_changes(&report, 6, "criterion_demo", "hash/", "criterion", &both);
    assert_known_changes(
        &report,
        6,
        "divan_demo",
        "divan_demo::hash::",
        "divan",
        &both,
    );
    assert_known_changes(&report, 6, "bencher_demo", "hash::", "bencher", &["mix"]);
    let timed = report["benchmarks"].as_array().unwrap();
    assert_eq!(timed.len(), 5, "{report:#}");
    // libtest's `#[bench]` needs nightly: the run says so, with the command that compares it.
    assert!(
        err.contains("1 bench target(s) need a nightly toolchain (")
            && err.contains(
                "cargo +nightly perfdiff HEAD~1 HEAD -p perfdiff-demo-libtest --bench libtest_demo"
            ),
        "{err}"
    );
    assert_no_panic_text(&err);
    assert_eq!(RepoState::capture(&repo), before);
    // The same builds counted under valgrind: every harness gets its instruction records, and
    // the functions behind `mix`'s change.
    let counted = [
        &[
            "HEAD~1",
            "HEAD",
            "--metric",
            "instructions",
            "--layouts",
            "1",
        ][..],
        &[
            "--format",
            "json",
            "--fail-on",
            "never",
            "--",
            "mix",
            "steady",
        ],
    ]
    .concat();
    let output = cargo_perfdiff(&repo, &counted);
    assert!(output.status.success(), "{}", all_output(&output));
    let report = json_report(&output);
    for (target, prefix, harness) in [
        ("criterion_demo", "hash/", "criterion"),
        ("divan_demo", "divan_demo::hash::", "divan"),
        ("bencher_demo", "hash::", "bencher"),
    ] {
        // An instruction record by its target and the id it ends with (`… (instructions)`).
        let counted = |name: &str| {
            let id = format!("{prefix}{name} (instructions)");
            report["benchmarks"]
                .as_array()
                .expect("benchmarks")
                .iter()
                .find(|b| {
                    b["target"] == target && b["id"].as_str().is_some_and(|i| i.ends_with(&id))
                })
                .unwrap_or_else(|| panic!("{target} {id} missing from {report:#}"))
        };
        let mix = counted("mix");
        assert_eq!(mix["harness"], harness, "{mix:#}");
        assert_eq!(mix["verdict"], "regressed", "{mix:#}");
        let rate = mix["change_rate"].as_f64().unwrap();
        assert!((0.95..1.0).contains(&rate), "2x the work: {mix:#}");
        assert!(mix["functions"][0]["name"].is_string(), "{mix:#}");
        let steady = counted("steady");
        if harness == "bencher" {
            // bencher is counted by its benchmark function's symbol; in base `steady` is the
            // same code as `mix`, and the compiler merged the two: it cannot be counted apart.
            assert_eq!(steady["verdict"], "failed", "{steady:#}");
            let failure = steady["failure"].as_str().unwrap();
            assert!(failure.contains("merged by the compiler"), "{failure}");
        } else {
            assert_eq!(steady["verdict"], "unchanged", "{steady:#}");
        }
    }
    assert_eq!(RepoState::capture(&repo), before);
}

#[test]
fn libtest_benchmarks_are_compared_with_a_nightly_toolchain_in_duet_mode_too() {
    let guard = measuring_lock();
    let options = DemoOptions {
        harness: DemoHarness::Libtest,
        ..strong_changes()
    };
    let (_dir, repo) = shared_demo_with(&guard, &options, "", |_| {});
    // Stands in for `cargo +nightly perfdiff`: no nightly toolchain can be installed here.
    let mut command = perfdiff_command(
        &repo,
        &harness_args(
            "8",
            &["--mode", "duet", "--layouts", "1"],
            &["mix", "checksum"],
        ),
    );
    let output = output_logged(command.env("RUSTC_BOOTSTRAP", "1"));
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    // Two at once in duet mode: half a self-timed fork's wall time each.
    assert!(
        err.contains("; 2.3 s for the 2 libtest or bencher benchmark(s), which time themselves)"),
        "{err}"
    );
    let report = json_report(&output);
    let both = ["mix", "checksum"];
    assert_known_changes(&report, 8, "demo", "hash::", "libtest", &both);
    assert_eq!(report["run"]["mode"], "duet", "{:#}", report["run"]);
}
