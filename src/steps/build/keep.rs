//! Freshness and keeping: the one sequence every build of a revision follows, bench targets
//! ([`super::build_benches`]) and programs ([`super::programs::build_programs`]) alike.
//!
//! lock the shared target directory → scan the checkout → key the build (checkout, options,
//! layouts) → a build kept under that key serves as it is; otherwise forget what was kept → mark
//! the files that differ from the target directory's last build changed → run cargo → record what
//! the target directory was built from → copy the executables out and prepare their layouts →
//! keep the build under its key, and put it into the target directory's store of kept builds,
//! where a workspace of the same content finds it ([`super::store`]).
//!
//! Why one sequence: a step left out of one of two copies (a build kept across a layout change,
//! a checkout not recorded) would make one kind of build reuse what it should not, and nothing
//! would fail; written once, both kinds keep the same promises ([`freshness`]).

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::freshness::{self, BuildKey, Checkout, Sources};
use super::store::{self, Store};
use super::{BuildError, BuildEvent};

/// Where one revision's build happens and is kept.
pub(crate) struct BuildSite<'a> {
    /// The revision's workspace root inside its checkout.
    pub workspace_dir: &'a Path,
    /// The revision, as messages name it.
    pub label: &'a str,
    /// The target directory both revisions build into.
    pub shared_target_dir: &'a Path,
    /// The directory the build is copied and kept in.
    pub kept_dir: &'a Path,
    /// How many builds the target directory's store keeps ([`Store`]; 0: none is shared).
    pub kept_builds: usize,
}

/// A build that was kept, or made now.
pub(crate) enum Kept<T> {
    /// A build kept under the same key served; nothing ran.
    Reused(T),
    /// Cargo ran, and the build is now kept.
    Built(T),
}

/// The checkout of a build site, scanned, and the key of its build; the target directory is
/// locked while this lives.
struct Scanned {
    checkout: Checkout,
    sources: Sources,
    key: BuildKey,
    _lock: std::fs::File,
}

impl BuildSite<'_> {
    fn freshness_error(&self, checkout: &Checkout, source: std::io::Error) -> BuildError {
        BuildError::Freshness {
            revision: self.label.to_string(),
            dir: checkout.root.clone(),
            source,
        }
    }

    /// Locks the target directory, scans the checkout and keys a build with `key_args` (the
    /// options that change what cargo builds) in `layouts` layouts.
    fn scan(&self, key_args: Vec<String>, layouts: usize) -> Result<Scanned, BuildError> {
        let checkout = Checkout::containing(self.workspace_dir);
        let lock = freshness::lock(self.shared_target_dir)
            .map_err(|e| self.freshness_error(&checkout, e))?;
        let sources = checkout
            .scan()
            .map_err(|e| self.freshness_error(&checkout, e))?;
        let key = self.key(&checkout, &sources, key_args, layouts);
        Ok(Scanned {
            checkout,
            sources,
            key,
            _lock: lock,
        })
    }

    /// The key of a build of `sources` with `key_args` in `layouts` layouts.
    fn key(
        &self,
        checkout: &Checkout,
        sources: &Sources,
        mut key_args: Vec<String>,
        layouts: usize,
    ) -> BuildKey {
        key_args.push(format!("layouts={}", layouts.max(1)));
        key_args.push(format!("layout-method={}", super::layout::METHOD));
        key_args.push(super::normalize::key_arg());
        BuildKey::new(
            checkout,
            sources,
            self.workspace_dir,
            &key_args,
            self.shared_target_dir,
        )
    }

    /// The key to keep a build under that cargo has just made from `sources` (keyed `key`):
    /// the key of the checkout as cargo left it. Cargo writes a `Cargo.lock` into a checkout
    /// that has none (a library that does not commit its own), and the next build of the same
    /// revision scans the checkout with that file in it: keyed by the files before cargo ran,
    /// the build would never be found again, and every second run would build both sides anew.
    fn key_after_build(
        &self,
        checkout: &Checkout,
        sources: &Sources,
        key: BuildKey,
        key_args: Vec<String>,
        layouts: usize,
    ) -> BuildKey {
        match checkout.scan() {
            Ok(after) if after != *sources => self.key(checkout, &after, key_args, layouts),
            _ => key,
        }
    }

    /// The build kept for the checkout as it is now under `key_args` and `layouts`, if `usable`
    /// (its files are all still there).
    pub(crate) fn kept<T: DeserializeOwned>(
        &self,
        key_args: Vec<String>,
        layouts: usize,
        usable: impl Fn(&T) -> bool,
    ) -> Result<Option<T>, BuildError> {
        let scanned = self.scan(key_args, layouts)?;
        Ok(self.find(&scanned, &usable))
    }

    /// The build kept for `scanned` in the kept directory, re-pointed at this checkout
    /// ([`store::kept_here`]), if it is `usable` (then also put into the target directory's
    /// store, for other workspaces), or else the store's, taken into the kept directory
    /// ([`Store`]). The store is a cache: a failure to put or take is a miss.
    fn find<T: DeserializeOwned>(
        &self,
        scanned: &Scanned,
        usable: &dyn Fn(&T) -> bool,
    ) -> Option<T> {
        let store = Store::with_capacity(self.shared_target_dir, self.kept_builds);
        let root = &scanned.checkout.root;
        let own = store::kept_here::<T>(self.kept_dir, scanned.key, root);
        if let Some(kept) = own.filter(|k| usable(k)) {
            let _ = store.put(scanned.key, self.kept_dir);
            return Some(kept);
        }
        let taken = store.take::<T>(scanned.key, self.kept_dir, root).ok()??;
        usable(&taken).then_some(taken)
    }

    /// The build kept under `key_args` and `layouts` if it is `usable`; otherwise runs `compile`
    /// (cargo) and `finish` (copying and relinking what cargo made) with the checkout marked
    /// and recorded around them, and keeps what `finish` returns.
    pub(crate) fn kept_or_built<T, C>(
        &self,
        key_args: Vec<String>,
        layouts: usize,
        usable: impl Fn(&T) -> bool,
        compile: impl FnOnce(&mut dyn FnMut(BuildEvent)) -> Result<C, BuildError>,
        finish: impl FnOnce(C, &mut dyn FnMut(BuildEvent)) -> Result<T, BuildError>,
        on_event: &mut dyn FnMut(BuildEvent),
    ) -> Result<Kept<T>, BuildError>
    where
        T: Serialize + DeserializeOwned,
    {
        let scanned = self.scan(key_args.clone(), layouts)?;
        if let Some(kept) = self.find(&scanned, &usable) {
            return Ok(Kept::Reused(kept));
        }
        let Scanned {
            checkout,
            sources,
            key,
            _lock,
        } = scanned;
        let error = |e| self.freshness_error(&checkout, e);
        freshness::forget(self.kept_dir).map_err(error)?;
        super::layout::forget(self.kept_dir).map_err(error)?;
        let marked = checkout
            .mark_changed(self.shared_target_dir, &sources)
            .map_err(error)?;
        let compiled = compile(on_event)?;
        checkout
            .record(self.shared_target_dir, &sources, &marked)
            .map_err(error)?;
        let build = finish(compiled, on_event)?;
        let key = self.key_after_build(&checkout, &sources, key, key_args, layouts);
        // A build that copied nothing (no bench target among the packages named) has no
        // directory yet to keep its record in.
        std::fs::create_dir_all(self.kept_dir).map_err(error)?;
        freshness::keep(self.kept_dir, key, &checkout.root, &build).map_err(error)?;
        let _ =
            Store::with_capacity(self.shared_target_dir, self.kept_builds).put(key, self.kept_dir);
        Ok(Kept::Built(build))
    }

    /// Creates the kept directory, for a build that copied nothing into it.
    pub(crate) fn create_kept_dir(&self) -> Result<PathBuf, BuildError> {
        std::fs::create_dir_all(self.kept_dir)
            .map_err(|e| self.freshness_error(&Checkout::containing(self.workspace_dir), e))?;
        Ok(self.kept_dir.to_path_buf())
    }
}
