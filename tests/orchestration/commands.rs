//! Declaring commands: no command, or a malformed one, is a clear error before anything is
//! built. Nothing is built or measured, so the test runs in this binary, without the measuring
//! lock. Moved from `end_to_end::command_e2e`, whose tests compare the program demo's commands
//! for real.

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
