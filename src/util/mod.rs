//! Leaf utilities: small, generic helpers every layer may use. They import nothing else of the
//! crate.

pub mod exit_code;
pub mod fs;
pub mod hash;
pub mod interrupt;
pub mod panic;
pub mod proc_stat;
pub mod shell;
pub mod spawn;
pub mod terminal;
