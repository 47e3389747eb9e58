//! Declaring commands: no command, or a malformed one, is a clear error before anything is
//! built; and a command compared beside benchmarks in one duet run. Neither depends on what is
//! timed, so the tests run in this binary, without the measuring lock. Moved from
//! `end_to_end::command_e2e`, whose tests compare the program demo's commands for real.

use crate::bench_fixture::*;
use crate::gnu_time::assert_peak_as_gnu_time_says;
use crate::support;

use cargo_perfdiff::orchestrate::demo::{ProgramChanges, create_program_demo_repo};
use support::*;

/// The program demo's repository (`fixtures/cli-demo`), its head changing `hash` and `table`
/// and making `check` fail.
fn cli_repo() -> (Scratch, std::path::PathBuf) {
    let dir = own_target_scratch();
    let repo = dir.path().join("cli repo");
    let changes = ProgramChanges {
        hash: 2.0,
        table: 2.0,
        check_fails: true,
    };
    create_program_demo_repo(&repo, &changes).unwrap();
    (dir, repo)
}

#[test]
fn declaring_no_command_or_a_malformed_one_is_a_clear_error_before_anything_is_built() {
    let (_dir, repo) = cli_repo();
    // The demo declares its commands in perfdiff.toml: without it, none is declared.
    std::fs::remove_file(repo.join("perfdiff.toml")).unwrap();
    let output = cargo_perfdiff(&repo, &["HEAD~1", "HEAD", "--commands-only"]);
    assert_clean_error(
        &output,
        2,
        "--commands-only compares commands, and none is declared",
    );
    let output = cargo_perfdiff(&repo, &["HEAD~1", "HEAD", "--cmd", "x={bin}/democli 'open"]);
    assert_clean_error(&output, 2, "unbalanced quotes");
    std::fs::write(
        repo.join("perfdiff.toml"),
        "[[command]]\nname = \"a\"\nrun = \"{bin}/democli hash\"\nwarmup = 2\n",
    )
    .unwrap();
    let output = cargo_perfdiff(&repo, &["HEAD~1", "HEAD", "--commands-only"]);
    assert_clean_error(&output, 2, "unknown key `warmup` (did you mean `warm-up`?)");
    assert!(
        !support::state_dir(&repo).join("bin").exists(),
        "nothing was built"
    );
}

/// A command and a criterion benchmark in one run, in duet mode: both measured in the same
/// rounds, each with its own harness and records. What is checked is what the run does with
/// them (no verdict), so the benchmark is the fixture's: the test took a real demo's builds and
/// forks under the measuring lock in `end_to_end::command_e2e` before.
#[test]
fn commands_and_benchmarks_are_compared_in_one_run_in_duet_mode() {
    let (_dir, repo) = fixture_repo(&strong());
    // The fixture builds no program: a command may run any program, here `/bin/true`, whose
    // peak memory (about 1 MiB) lies below what cargo-perfdiff itself would pass on as the helper.
    // One layout, as `quick` has it.
    let options = ["--mode", "duet", "--cmd", "true=/bin/true"];
    let args = with_options(&parent_vs_head_json(&["^hash/mix$|^true$"]), &options);
    let output = fixture_perfdiff(&repo, &args);
    assert!(output.status.success(), "{}", stderr(&output));
    let report = json_report(&output);
    assert_eq!(report["run"]["mode"], "duet");
    let mix = bench_entry(&report, "hash/mix");
    assert_eq!(mix["harness"], "criterion", "{mix:#}");
    assert_eq!(mix["forks"]["base"], 2, "{mix:#}");
    for id in ["true", "true (peak memory)"] {
        let command = bench_entry(&report, id);
        assert_eq!(command["harness"], "command", "{command:#}");
        assert_eq!(command["forks"]["base"], 2, "{command:#}");
        assert!(command["failure"].is_null(), "{command:#}");
        assert!(
            command["base"]["mean_ns"].as_f64().unwrap() > 0.0,
            "{command:#}"
        );
    }
    // The measuring helper cargo-perfdiff starts (`perfdiff-exec`, beside it) passes on no more
    // than GNU time does: the program's peak is its own.
    let peak = bench_entry(&report, "true (peak memory)")["base"]["mean_ns"]
        .as_f64()
        .unwrap();
    assert_peak_as_gnu_time_says(&["/bin/true"], peak / 1024.0);
    assert_eq!(report["benchmarks"].as_array().unwrap().len(), 3);
}
