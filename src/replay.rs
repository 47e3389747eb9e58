//! `cargo perfdiff replay`: evaluate a stop rule post hoc on a recorded run (issue #4).
use std::path::PathBuf;

use clap::Args;

use crate::error::Error;

/// Arguments of `cargo perfdiff replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// A samples file recorded with a generous fixed configuration
    pub file: PathBuf,
}

pub fn replay_command(args: &ReplayArgs) -> Result<i32, Error> {
    let _ = args;
    Err(Error::Usage("replay is not implemented yet".to_string()))
}
