//! The process-wide interrupt flag: set once by the Ctrl-C/SIGTERM handler, read by every step
//! that runs something long.

use std::sync::atomic::{AtomicBool, Ordering};

/// Set by the CLI's Ctrl-C/SIGTERM handler; never cleared (the process is about to end).
static INTERRUPT_REQUESTED: AtomicBool = AtomicBool::new(false);

/// Asks every running fork to stop: each kills its process tree within ~100 ms and returns
/// `ForkError::Interrupted`; forks started afterwards stop at once. Safe to call from a signal
/// handler thread.
pub fn request_interrupt() {
    INTERRUPT_REQUESTED.store(true, Ordering::SeqCst);
}

/// Whether [`request_interrupt`] was called.
pub fn interrupted() -> bool {
    INTERRUPT_REQUESTED.load(Ordering::SeqCst)
}
