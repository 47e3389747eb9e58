//! Which toolchain builds each side: the one the user's own build of that checkout would use.
//!
//! Why: run as `cargo perfdiff` through rustup's proxy, this process inherits what rustup
//! resolved where the user stood: `RUSTUP_TOOLCHAIN` (the toolchain) and `CARGO` (that
//! toolchain's own cargo). Every cargo and rustc started from here then used it for both
//! checkouts, whatever each one's `rust-toolchain.toml` says: a commit that moves to another
//! compiler was compared on one compiler, and a side pinned to a toolchain that is not
//! installed built anyway. Run directly (`cargo-perfdiff perfdiff`), each checkout's file was
//! honoured: the two ways of starting the tool built different code.
//!
//! rustup says why it chose (`RUSTUP_TOOLCHAIN_SOURCE`, rustup 1.28 and later): `cli`
//! (`cargo +nightly perfdiff`) and `env` (the user's own `RUSTUP_TOOLCHAIN`) are the user's choice
//! for the whole run and stay; so does `path-override` (`rustup override set`, which holds in the
//! user's checkout whatever its files say, so the user's build of either revision there uses it).
//! `toolchain-file` and `default` were resolved from the checkout the user stood in: then the two
//! variables are dropped and `CARGO` names rustup's proxy (`$CARGO_HOME/bin/cargo`), so each
//! build, run in its own checkout, resolves that checkout's toolchain as rustup would there.
//! Anything else (no rustup, an older rustup without the source, no proxy to be found) is left
//! as it is.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// What was decided at start-up, for the build log (`--verbose`).
static DECIDED: OnceLock<Resolution> = OnceLock::new();

/// How the builds' toolchain is chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolution {
    /// Each checkout resolves its own; rustup had chosen `toolchain` for the starting directory
    /// because of `source`. `cargo` is rustup's proxy at this path.
    PerCheckout {
        toolchain: String,
        source: String,
        cargo: PathBuf,
    },
    /// The toolchain rustup was told to use (`source`: `cli`, `env` or `path-override`) builds
    /// both checkouts.
    Chosen { toolchain: String, source: String },
}

/// Decides from the variables rustup's proxy set (`var`) and whether its proxy `cargo` exists.
/// `None`: not started through rustup (or one that does not say why), nothing to change.
pub fn decide(
    var: impl Fn(&str) -> Option<OsString>,
    exists: impl Fn(&Path) -> bool,
) -> Option<Resolution> {
    let text = |name: &str| var(name).map(|value| value.to_string_lossy().into_owned());
    let toolchain = text("RUSTUP_TOOLCHAIN")?;
    let source = text("RUSTUP_TOOLCHAIN_SOURCE")?;
    match source.as_str() {
        "toolchain-file" | "default" => {
            let cargo = PathBuf::from(var("CARGO_HOME")?).join("bin").join("cargo");
            exists(&cargo).then_some(Resolution::PerCheckout {
                toolchain,
                source,
                cargo,
            })
        }
        _ => Some(Resolution::Chosen { toolchain, source }),
    }
}

/// Applies [`decide`] to this process's environment. Call it first thing in `main`, before any
/// thread starts (it changes the environment every later command inherits).
pub fn resolve_per_checkout() {
    let Some(resolution) = decide(|name| std::env::var_os(name), Path::is_file) else {
        return;
    };
    if let Resolution::PerCheckout { cargo, .. } = &resolution {
        // SAFETY: called from `main` before any other thread exists, so nothing reads the
        // environment while it changes.
        unsafe {
            std::env::remove_var("RUSTUP_TOOLCHAIN");
            std::env::remove_var("RUSTUP_TOOLCHAIN_SOURCE");
            std::env::set_var("CARGO", cargo);
        }
    }
    let _ = DECIDED.set(resolution);
}

/// The build log's line on the toolchain; `None` when rustup did not start this process.
pub fn described() -> Option<String> {
    DECIDED.get().map(Resolution::described)
}

impl Resolution {
    fn described(&self) -> String {
        match self {
            Resolution::PerCheckout {
                toolchain, source, ..
            } => format!(
                "toolchain: the checkout's own, as rustup resolves it there (`rust-toolchain.toml`, \
                 else the default); where cargo perfdiff started, rustup chose `{toolchain}` \
                 ({source})"
            ),
            Resolution::Chosen { toolchain, source } => format!(
                "toolchain: `{toolchain}` for both checkouts, as rustup was told ({})",
                match source.as_str() {
                    "cli" => "`cargo +toolchain`",
                    "env" => "`RUSTUP_TOOLCHAIN`",
                    "path-override" => "`rustup override`",
                    other => other,
                }
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(source: &str) -> impl Fn(&str) -> Option<OsString> {
        let source = source.to_string();
        move |name| match name {
            "RUSTUP_TOOLCHAIN" => Some("stable-x86_64-unknown-linux-gnu".into()),
            "RUSTUP_TOOLCHAIN_SOURCE" => Some(source.clone().into()),
            "CARGO_HOME" => Some("/home/u/.cargo".into()),
            _ => None,
        }
    }

    #[test]
    fn a_toolchain_resolved_where_the_user_stood_is_resolved_again_in_each_checkout() {
        for source in ["default", "toolchain-file"] {
            let decided = decide(vars(source), |_| true).unwrap();
            let Resolution::PerCheckout { cargo, .. } = &decided else {
                panic!("{source}: {decided:?}");
            };
            assert_eq!(cargo, Path::new("/home/u/.cargo/bin/cargo"));
            assert!(decided.described().contains("the checkout's own"));
        }
        // No proxy to run: left as it is.
        assert_eq!(decide(vars("default"), |_| false), None);
    }

    #[test]
    fn a_toolchain_the_user_named_builds_both_checkouts() {
        for (source, said) in [
            ("cli", "`cargo +toolchain`"),
            ("env", "`RUSTUP_TOOLCHAIN`"),
            ("path-override", "`rustup override`"),
        ] {
            let decided = decide(vars(source), |_| true).unwrap();
            assert!(matches!(decided, Resolution::Chosen { .. }), "{decided:?}");
            assert!(decided.described().contains(said));
        }
    }

    #[test]
    fn without_rustup_or_its_reason_nothing_changes() {
        assert_eq!(decide(|_| None, |_| true), None);
        let older = |name: &str| (name == "RUSTUP_TOOLCHAIN").then(|| OsString::from("stable"));
        assert_eq!(decide(older, |_| true), None);
    }
}
