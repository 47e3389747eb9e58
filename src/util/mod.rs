//! Leaf utilities: small, generic helpers every layer may use. They import nothing else of the
//! crate.
