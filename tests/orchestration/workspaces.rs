//! Real workspaces: members name their bench targets by convention, so one target name in several
//! members, and one criterion id in two targets of a package, are the normal case. Every bench
//! target is a (package, target): each benchmark is listed and compared under a name of its own,
//! members that come and go change nothing else, and every target not measured is named with
//! its reason. On the deterministic fixture (`bench_fixture`): each member's bench targets are
//! fixture executables, target `T` reporting what `T.txt` sets; moved from
//! `end_to_end::workspace_targets`.

use crate::bench_fixture::*;
use crate::support;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use support::*;

/// The true time of the benchmarks (ns); `CHANGED` is alpha's `c_mix` in head (twice the time).
const BASE_ROUNDS: u64 = 2000;
const CHANGED: u64 = 4000;

/// The members of the base commit:
/// - `alpha`: target `kern` (`c_mix`, `mix`),
/// - `beta`: targets `kern` (`b_mix`, `mix`) and `kern2` (`b_mix` again), and a `gated` target
///   behind the feature `extra`,
/// - `gamma`: a plain binary `kern` (no benchmark harness).
fn write_base_members(repo: &Path) {
    write_fixture_package(
        &repo.join("alpha"),
        "alpha",
        &[("kern", &[("c_mix", BASE_ROUNDS), ("mix", BASE_ROUNDS)])],
        "",
    );
    write_fixture_package(
        &repo.join("beta"),
        "beta",
        &[
            ("kern", &[("b_mix", BASE_ROUNDS), ("mix", BASE_ROUNDS)]),
            ("kern2", &[("b_mix", BASE_ROUNDS)]),
        ],
        "[features]\nextra = []\n",
    );
    add_fixture_target(&repo.join("beta"), "gated", &[("g_mix", BASE_ROUNDS)]);
    replace_in(
        repo,
        "beta/Cargo.toml",
        "name = \"gated\"\nharness = false\n",
        "name = \"gated\"\nharness = false\nrequired-features = [\"extra\"]\n",
    );
    write_library_package(&repo.join("gamma"), "gamma", "");
    add_bench_target(
        &repo.join("gamma"),
        "kern",
        "fn main() {\n    println!(\"not a benchmark\");\n}\n",
    );
}

fn workspace(root: &Path) -> std::path::PathBuf {
    let repo = root.join("work space");
    fixture_workspace_repo(&repo, &["alpha", "beta", "gamma"], write_base_members);
    repo
}

/// `(package, target, criterion id)` of every benchmark of a JSON listing or report.
fn listed(json: &serde_json::Value) -> BTreeSet<(String, String, String)> {
    json["benchmarks"]
        .as_array()
        .expect("benchmarks")
        .iter()
        .map(|b| {
            let text = |key: &str| b[key].as_str().unwrap_or_default().to_string();
            let criterion_id = b["criterion_id"]
                .as_str()
                .unwrap_or(b["id"].as_str().unwrap());
            (text("package"), text("target"), criterion_id.to_string())
        })
        .collect()
}

/// `(target, criterion id)` of every benchmark each criterion executable of `bin` lists itself,
/// asked as criterion is asked (`--bench --list --format terse`); the target is the file name
/// before cargo's hash. Executables that are not criterion's are left alone.
fn listed_by_executables(bin: &Path) -> BTreeSet<(String, String)> {
    let mut all = BTreeSet::new();
    for entry in std::fs::read_dir(bin).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let Some((target, hash)) = name.rsplit_once('-') else {
            continue;
        };
        let bytes = std::fs::read(&path).unwrap();
        let is_criterion = bytes
            .windows(b"CARGO_CRITERION_PORT".len())
            .any(|w| w == b"CARGO_CRITERION_PORT");
        if !is_criterion || !hash.chars().all(|c| c.is_ascii_hexdigit()) {
            continue;
        }
        let output = Command::new(&path)
            .args(["--bench", "--list", "--format", "terse"])
            .output()
            .unwrap();
        assert!(output.status.success(), "{name}: {output:?}");
        for line in String::from_utf8_lossy(&output.stdout).lines() {
            if let Some(id) = line.strip_suffix(": benchmark") {
                all.insert((target.to_string(), id.to_string()));
            }
        }
    }
    all
}

fn ids(json: &serde_json::Value) -> BTreeSet<String> {
    json["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["id"].as_str().unwrap().to_string())
        .collect()
}

fn strings(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

#[test]
fn every_benchmark_of_same_named_targets_is_listed_under_its_own_name() {
    let root = own_target_scratch();
    let repo = workspace(root.path());
    let before = RepoState::capture(&repo);

    let output = fixture_perfdiff(&repo, &["HEAD", "HEAD", "--list", "--format", "json"]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    let listing: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        ids(&listing),
        strings(&[
            "c_mix",
            "alpha::kern::mix",
            "beta::kern::mix",
            "kern::b_mix",
            "kern2::b_mix",
        ]),
        "{listing:#}"
    );
    let expected: BTreeSet<(String, String, String)> = [
        ("alpha", "kern", "c_mix"),
        ("alpha", "kern", "mix"),
        ("beta", "kern", "b_mix"),
        ("beta", "kern", "mix"),
        ("beta", "kern2", "b_mix"),
    ]
    .iter()
    .map(|(p, t, i)| (p.to_string(), t.to_string(), i.to_string()))
    .collect();
    assert_eq!(listed(&listing), expected);

    // Exactly the union of what each target's own harness lists.
    let commit = git_ok(&repo, &["rev-parse", "HEAD"]);
    let bin = state_dir(&repo).join("bin").join(commit.trim());
    let by_executables = listed_by_executables(&bin);
    let by_listing: BTreeSet<(String, String)> = expected
        .iter()
        .map(|(_, t, i)| (t.clone(), i.clone()))
        .collect();
    assert_eq!(by_executables, by_listing);

    // The targets not measured are named with their reason, package first.
    let skipped = listing["skipped_targets"].as_array().unwrap();
    let reason_of = |package: &str, target: &str| {
        skipped
            .iter()
            .find(|s| s["package"] == package && s["target"] == target)
            .unwrap_or_else(|| panic!("{package}::{target} not in {skipped:?}"))["reason"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert!(reason_of("gamma", "kern").contains("no benchmark harness"));
    assert!(reason_of("beta", "gated").contains("`extra`"));
    assert!(
        err.contains("skipped bench target `gamma::kern`: plain binary, no benchmark harness")
            && err.contains(
                "bench target beta::gated not built: it requires the feature(s) `extra` of beta"
            ),
        "{err}"
    );

    // The text listing names each target's package.
    let output = fixture_perfdiff(&repo, &["HEAD", "HEAD", "--list"]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains("(bench target kern of package alpha, criterion)")
            && text.contains("(bench target kern2 of package beta, criterion)"),
        "{text}"
    );

    // `-p` and `--bench` select as cargo does: `--bench kern` is every package's `kern`.
    let output = fixture_perfdiff(
        &repo,
        &[
            "HEAD", "HEAD", "--list", "--format", "json", "--bench", "kern",
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let listing: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        ids(&listing),
        strings(&["c_mix", "alpha::kern::mix", "beta::kern::mix", "b_mix"])
    );
    let output = fixture_perfdiff(
        &repo,
        &["HEAD", "HEAD", "--list", "--format", "json", "-p", "beta"],
    );
    let listing: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        ids(&listing),
        strings(&["kern::b_mix", "kern2::b_mix", "mix"]),
        "{}",
        stderr(&output)
    );
    // Globs as cargo takes them, in `-p` and in `--exclude`.
    for selection in [&["-p", "al*"][..], &["--workspace", "--exclude", "[bg]*"]] {
        let args = [&["HEAD", "HEAD", "--list", "--format", "json"], selection].concat();
        let output = fixture_perfdiff(&repo, &args);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let listing: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(ids(&listing), strings(&["c_mix", "mix"]), "{selection:?}");
        assert!(listing["skipped_targets"].as_array().unwrap().is_empty());
    }
    assert_eq!(RepoState::capture(&repo), before);
}

#[test]
fn a_member_added_in_head_changes_nothing_else_and_a_change_is_found_in_its_member() {
    let root = own_target_scratch();
    let repo = workspace(root.path());
    // Head: alpha's `c_mix` does twice the work, and a new member `delta` has its own `kern`.
    set_benchmark_in(&repo.join("alpha/kern.txt"), &format!("c_mix ns={CHANGED}"));
    write_workspace_manifest(&repo, &["alpha", "beta", "gamma", "delta"]);
    write_fixture_package(
        &repo.join("delta"),
        "delta",
        &[("kern", &[("mix", BASE_ROUNDS), ("d_only", BASE_ROUNDS)])],
        "",
    );
    generate_lockfile(&repo);
    commit_all(&repo, "head: c_mix twice the work, a member delta");
    let before = RepoState::capture(&repo);

    let samples = root.path().join("run.json");
    // Six forks a side at alpha 0.1 %: with four, a 2x change's paired p-value (0.0002 at 5 %
    // fork noise, three degrees of freedom) came out at q 0.00101 after false-discovery control
    // over the five benchmarks, just above alpha (a quiet run, 2026-11-28).
    let options = [
        "HEAD~1",
        "HEAD",
        "--stop",
        "fixed",
        "--forks",
        "6",
        "--format",
        "json",
        "--fail-on",
        "never",
        "--samples",
        samples.to_str().unwrap(),
    ];
    let args = [&options[..], FAST, STRICT_ALPHA].concat();
    let output = fixture_perfdiff(&repo, &args);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report = json_report(&output);
    assert_eq!(verdict_of(&report, "c_mix"), "regressed", "{report:#}");
    assert_eq!(verdict_of(&report, "delta::kern::mix"), "only_in_head");
    assert_eq!(verdict_of(&report, "d_only"), "only_in_head");
    for untouched in [
        "alpha::kern::mix",
        "beta::kern::mix",
        "kern::b_mix",
        "kern2::b_mix",
    ] {
        let entry = measured_entry(&report, untouched, 6);
        let verdict = entry["verdict"].as_str().unwrap();
        assert!(
            verdict == "unchanged" || verdict == "inconclusive",
            "{untouched}: {entry:#}"
        );
    }
    assert_eq!(bench_entry(&report, "beta::kern::mix")["package"], "beta");
    assert_eq!(
        bench_entry(&report, "kern2::b_mix")["criterion_id"],
        "b_mix"
    );
    assert_eq!(report["benchmarks"].as_array().unwrap().len(), 7);
    let skipped: Vec<String> = report["skipped_targets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            format!(
                "{}::{}",
                s["package"].as_str().unwrap(),
                s["target"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(skipped, ["beta::gated", "gamma::kern"]);

    // A re-analysis reports the same names; the terminal table names each package.
    let again = fixture_perfdiff(
        &repo,
        &["report", samples.to_str().unwrap(), "--format", "json"],
    );
    assert_eq!(ids(&json_report(&again)), ids(&report));
    let table = all_output(&fixture_perfdiff(
        &repo,
        &["report", samples.to_str().unwrap()],
    ));
    assert!(table.contains("package"), "{table}");
    assert!(
        table.contains("skipped bench target `gamma::kern`: plain binary"),
        "{table}"
    );

    // A filter on the plain id selects every target's benchmark of that id.
    let output = fixture_perfdiff(
        &repo,
        &[
            "HEAD~1", "HEAD", "--list", "--format", "json", "--", "^b_mix$",
        ],
    );
    let listing: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(ids(&listing), strings(&["kern::b_mix", "kern2::b_mix"]));
    assert_eq!(RepoState::capture(&repo), before);
}
