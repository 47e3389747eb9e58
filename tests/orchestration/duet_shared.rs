//! Duet mode on the fixture when its two CPUs are shared: a real busy neighbour, pinned to one of
//! the two CPUs the run is given, makes the forks wait for that CPU; the run must see it in its
//! own figures, continue interleaved (or keep duet when told), say so, and re-analyse the same.
//! And a duet run whose CPUs were free must stay duet.
//!
//! The fixture's verdicts do not depend on the machine (its forks report set times), but its
//! forks' CPU wait does: that is what these tests are about, so they run a neighbour for a few
//! seconds, one test at a time.

use std::path::Path;
use std::process::{Child, Command};
use std::sync::Mutex;

use crate::bench_fixture::*;
use crate::support::*;
use cargo_perfdiff::model::samples::SampleFile;
use cargo_perfdiff::steps::fork::shared_cpus::{SHARED_FROM, wait_of_round};

/// One of these tests at a time: a neighbour would make a parallel one's CPUs shared.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// A process that keeps `cpu` busy (a shell's endless loop pinned to it) until dropped.
struct Neighbour(Child);

impl Neighbour {
    fn on(cpu: usize) -> Neighbour {
        let child = Command::new("sh")
            .args(["-c", "while :; do :; done"])
            .spawn()
            .expect("sh starts");
        // SAFETY: a zeroed cpu_set_t is empty; `cpu` is one this process may use.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        unsafe { libc::CPU_SET(cpu, &mut set) };
        let pinned = unsafe {
            libc::sched_setaffinity(
                child.id() as libc::pid_t,
                std::mem::size_of::<libc::cpu_set_t>(),
                &set,
            )
        };
        let mut neighbour = Neighbour(child);
        assert_eq!(pinned, 0, "pinning the neighbour to CPU {cpu}");
        // The shell is running its loop before the run starts: a fork on `cpu` waits.
        std::thread::sleep(std::time::Duration::from_millis(100));
        assert!(
            neighbour.0.try_wait().unwrap().is_none(),
            "the neighbour runs"
        );
        neighbour
    }
}

impl Drop for Neighbour {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The two CPUs the runs are given (`--cpus`): the first two this process may use.
fn two_cpus() -> [usize; 2] {
    let cpus = cargo_perfdiff::steps::fork::usable_cpus();
    assert!(
        cpus.len() >= 2,
        "duet needs two CPUs, this test has {cpus:?}"
    );
    [cpus[0], cpus[1]]
}

/// `--mode duet --cpus A,B --stop fixed --forks N`, the tests' tiny settings, one layout.
fn duet_args<'a>(cpus: &'a str, forks: &'a str, samples: &'a str) -> Vec<&'a str> {
    let mut args = fixed_args(forks, samples);
    args.extend_from_slice(&["--mode", "duet", "--cpus", cpus]);
    args
}

fn json_of(output: &std::process::Output) -> serde_json::Value {
    assert!(output.status.success(), "{}", stderr(output));
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stdout)))
}

/// Every fork of the file, with its benchmark's id.
fn forks(samples: &SampleFile) -> Vec<(&str, &cargo_perfdiff::model::samples::ForkRecord)> {
    samples
        .benchmarks
        .iter()
        .flat_map(|b| {
            b.base
                .forks
                .iter()
                .chain(&b.head.forks)
                .map(move |f| (b.id.as_str(), f))
        })
        .collect()
}

/// `cargo perfdiff report FILE --format json`: the verdicts and intervals of a re-analysis.
fn reanalysed(repo: &Path, samples: &Path) -> serde_json::Value {
    json_of(&fixture_perfdiff(
        repo,
        &["report", samples.to_str().unwrap(), "--format", "json"],
    ))
}

/// Each benchmark's id, verdict and ratio, as the report gives them.
fn outcomes(report: &serde_json::Value) -> Vec<(String, serde_json::Value, serde_json::Value)> {
    report["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["id"].to_string(),
                b["verdict"].clone(),
                b["ratio"].clone(),
            )
        })
        .collect()
}

#[test]
fn a_neighbour_on_a_duet_cpu_turns_the_rest_of_the_run_interleaved_and_says_so() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let (_dir, repo) = fixture_repo(&strong());
    let [a, b] = two_cpus();
    let cpus = format!("{a},{b}");
    let samples_path = repo.parent().unwrap().join("shared.json");
    let samples_arg = samples_path.to_str().unwrap();
    let neighbour = Neighbour::on(b);
    let report = json_of(&fixture_perfdiff(
        &repo,
        &duet_args(&cpus, "4", samples_arg),
    ));

    // The JSON says what happened: duet asked, interleaved used from round 1, and the figures.
    let change = &report["run"]["mode_change"];
    assert_eq!(change["asked"], "duet", "{change:#}");
    assert_eq!(change["used"], "interleaved", "{change:#}");
    assert_eq!(
        (
            change["shared_round"].as_u64(),
            change["from_round"].as_u64()
        ),
        (Some(0), Some(1))
    );
    assert!(
        change["cpu_wait_share"].as_f64().unwrap() >= SHARED_FROM,
        "{change:#}"
    );
    assert_eq!(change["limit"].as_f64(), Some(SHARED_FROM));
    let busy = change["cpus"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["cpu"].as_u64() == Some(b as u64))
        .unwrap_or_else(|| panic!("CPU {b} in {change:#}"));
    assert!(
        busy["cpu_wait_share"].as_f64().unwrap() >= SHARED_FROM,
        "{change:#}"
    );

    // Round 0's pairs are pinned and set aside; rounds 1–3 ran interleaved, unpinned.
    let samples = SampleFile::load(&samples_path).unwrap();
    let recorded = wait_of_round(&samples, 0).expect("round 0's wait");
    assert!(recorded.share >= SHARED_FROM);
    for (id, fork) in forks(&samples) {
        let round = fork.round.unwrap();
        if round == 0 {
            assert!(
                fork.cpu.is_some() && fork.set_aside && fork.mode.is_none(),
                "{id} {fork:?}"
            );
        } else {
            assert_eq!(
                fork.mode,
                Some(cargo_perfdiff::model::samples::Mode::Interleaved),
                "{id}"
            );
            assert!(fork.cpu.is_none() && !fork.set_aside, "{id} {fork:?}");
        }
    }
    assert_eq!(verdict_of(&report, "hash/mix"), "regressed");
    assert_eq!(verdict_of(&report, "hash/checksum"), "improved");
    assert_eq!(bench_entry(&report, "hash/mix")["paired"]["n"], 3);
    drop(neighbour);

    // `report` re-analyses the file to the same verdicts and intervals, and says the same.
    let again = reanalysed(&repo, &samples_path);
    assert_eq!(outcomes(&again), outcomes(&report));
    assert_eq!(again["run"]["mode_change"], report["run"]["mode_change"]);
    let markdown = fixture_perfdiff(&repo, &["report", samples_arg, "--format", "markdown"]);
    let markdown = String::from_utf8_lossy(&markdown.stdout);
    assert!(
        markdown.contains("> :warning: duet: in round 1 the forks waited for a CPU")
            && markdown.contains("the rounds from 2 on are interleaved"),
        "{markdown}"
    );

    // Resumed after round 1 (as after an interrupt), on free CPUs, it goes on interleaved.
    let mut cut: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&samples_path).unwrap()).unwrap();
    for bench in cut["benchmarks"].as_array_mut().unwrap() {
        bench.as_object_mut().unwrap().remove("stop");
        for side in ["base", "head"] {
            if let Some(forks) = bench[side]["forks"].as_array_mut() {
                forks.truncate(2);
            }
        }
    }
    std::fs::write(&samples_path, serde_json::to_string(&cut).unwrap()).unwrap();
    let mut args = duet_args(&cpus, "4", samples_arg);
    args.extend_from_slice(&["--resume", samples_arg]);
    let resumed = json_of(&fixture_perfdiff(&repo, &args));
    assert_eq!(resumed["run"]["mode_change"], report["run"]["mode_change"]);
    let samples = SampleFile::load(&samples_path).unwrap();
    for (id, fork) in forks(&samples) {
        if fork.round.unwrap() >= 1 {
            assert!(fork.cpu.is_none(), "{id}: round {:?} pinned", fork.round);
        }
    }
    assert_eq!(verdict_of(&resumed, "hash/mix"), "regressed");
}

#[test]
fn keep_duet_keeps_duet_beside_the_neighbour_and_says_what_it_costs() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let (_dir, repo) = fixture_repo(&strong());
    let [a, b] = two_cpus();
    let cpus = format!("{a},{b}");
    let samples_path = repo.parent().unwrap().join("kept.json");
    let samples_arg = samples_path.to_str().unwrap();
    let neighbour = Neighbour::on(a);
    let mut args = duet_args(&cpus, "3", samples_arg);
    args.push("--keep-duet");
    let report = json_of(&fixture_perfdiff(&repo, &args));
    drop(neighbour);
    let change = &report["run"]["mode_change"];
    assert_eq!(
        (&change["asked"], &change["used"]),
        (&"duet".into(), &"duet".into()),
        "{change:#}"
    );
    let samples = SampleFile::load(&samples_path).unwrap();
    for (id, fork) in forks(&samples) {
        assert!(
            fork.cpu.is_some() && !fork.set_aside && fork.mode.is_none(),
            "{id} {fork:?}"
        );
    }
    let table = fixture_perfdiff(&repo, &["report", samples_arg]);
    let table = String::from_utf8_lossy(&table.stdout);
    assert!(
        table.contains("duet was kept, as --keep-duet asks"),
        "{table}"
    );
}

/// A duet run stays duet while its forks' CPUs are free. Whether they are is the machine's
/// business (other work may share them while this test runs), so the test checks the decision
/// against the run's own figures, as the rule states it: no round below the limit ends duet,
/// and the first round at or above it does. On a quiet machine that is: every round duet.
#[test]
fn a_duet_run_stays_duet_while_its_cpus_are_free() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let (_dir, repo) = fixture_repo(&strong());
    let [a, b] = two_cpus();
    let cpus = format!("{a},{b}");
    let samples_path = repo.parent().unwrap().join("quiet.json");
    let report = json_of(&fixture_perfdiff(
        &repo,
        &duet_args(&cpus, "4", samples_path.to_str().unwrap()),
    ));
    let samples = SampleFile::load(&samples_path).unwrap();
    let first_shared = (0..4)
        .find(|&round| wait_of_round(&samples, round).is_some_and(|w| w.share >= SHARED_FROM));
    match first_shared {
        None => {
            assert!(
                report["run"]["mode_change"].is_null(),
                "{:#}",
                report["run"]
            );
            for (id, fork) in forks(&samples) {
                assert!(
                    fork.cpu.is_some() && fork.mode.is_none() && !fork.set_aside,
                    "{id}"
                );
            }
        }
        Some(round) => {
            eprintln!("note: this machine shared the CPUs in round {round}: checking the switch");
            let change = &report["run"]["mode_change"];
            assert_eq!(
                change["shared_round"].as_u64(),
                Some(round as u64),
                "{change:#}"
            );
            assert_eq!(change["used"], "interleaved");
        }
    }
    assert_eq!(verdict_of(&report, "hash/mix"), "regressed");
}
