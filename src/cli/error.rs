//! The catch-all error of the command line and the exit code it ends the process with.

use crate::orchestrate::bisect::BisectError;
use crate::orchestrate::demo::DemoError;
use crate::orchestrate::error::Error;
use crate::util::exit_code;

/// Anything that ends `cargo perfdiff` with an error: a comparison's, the demo's or a bisection's.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error(transparent)]
    Compare(#[from] Error),
    #[error(transparent)]
    Demo(#[from] DemoError),
    #[error(transparent)]
    Bisect(#[from] BisectError),
}

impl CliError {
    /// Whether the error is the interrupt itself (Ctrl-C or SIGTERM), as opposed to a failure an
    /// interrupt may have caused (a killed cargo).
    pub fn is_interrupt(&self) -> bool {
        matches!(
            self,
            CliError::Compare(Error::Interrupted { .. })
                | CliError::Bisect(BisectError::Interrupted { .. })
                | CliError::Bisect(BisectError::Compare(Error::Interrupted { .. }))
        )
    }

    /// The exit code this error ends the process with.
    pub fn exit_code(&self) -> i32 {
        if self.is_interrupt() {
            exit_code::INTERRUPTED
        } else {
            exit_code::ERROR
        }
    }
}
