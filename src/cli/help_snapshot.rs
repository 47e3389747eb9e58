//! The help of every command, short (`-h`) and long (`--help`), kept as committed text: a change
//! to an option, its help or its order shows up in review as a diff of `src/cli/help/`. After an
//! intended change, `PERFDIFF_BLESS_HELP=1 cargo test --lib help_snapshot` rewrites the files.

use std::path::{Path, PathBuf};

use clap::CommandFactory;

use super::Cli;

/// The width the snapshots are rendered at.
const WIDTH: usize = 100;

/// Every command's name in the snapshots (`cargo-perfdiff` for the main one) and its help.
fn helps() -> Vec<(String, String)> {
    let mut main = Cli::command().term_width(WIDTH).max_term_width(WIDTH);
    main.build();
    let mut helps = vec![
        (
            "cargo-perfdiff.short".to_string(),
            main.render_help().to_string(),
        ),
        (
            "cargo-perfdiff.long".to_string(),
            main.render_long_help().to_string(),
        ),
    ];
    for sub in main.get_subcommands_mut() {
        let name = sub.get_name().to_string();
        helps.push((format!("{name}.short"), sub.render_help().to_string()));
        helps.push((format!("{name}.long"), sub.render_long_help().to_string()));
    }
    helps
}

fn snapshot_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("src/cli/help")
        .join(format!("{name}.txt"))
}

#[test]
fn help_of_every_command_is_as_committed() {
    let bless = std::env::var_os("PERFDIFF_BLESS_HELP").is_some();
    let mut differing = Vec::new();
    for (name, help) in helps() {
        let path = snapshot_path(&name);
        if bless {
            std::fs::write(&path, &help).unwrap();
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(help.as_str()) {
            differing.push(format!("{}:\n{help}", path.display()));
        }
    }
    assert!(
        differing.is_empty(),
        "help differs from the snapshot (PERFDIFF_BLESS_HELP=1 rewrites it if intended):\n{}",
        differing.join("\n")
    );
}
