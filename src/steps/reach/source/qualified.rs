//! The crates that may define a function, read from its demangled path.
//!
//! Why: a function with no symbol on either side is compared by its inlined copies, told apart
//! by the crate that defines it ([`super::inlined`]). Its crate was the path's first segment,
//! `function.split("::")`, which for a qualified path (`<i32 as core::cmp::PartialOrd>::lt`)
//! is `<i32 as core`: no crate, so no file defined it, and field trial `itt-mergeby`
//! (itertools #920) measured 155 benchmarks for that `lt` run in criterion's set-up. A
//! demangled name is a Rust type path, so `syn` reads it ([`syn::TypePath`]: a qualified self
//! type and generic arguments without turbofish); nothing is parsed by hand.
//!
//! Which crate holds an impl of `<T as Trait>::f`: the orphan rules allow it only in the
//! crate of `Trait` or in a crate of a type `T` names (a type of its own, also behind `&`,
//! `Box`, `Pin`). So the candidates are the trait's crate and the crate of every path in the
//! self type and in the trait's generic arguments; a primitive (`i32`, `str`) is `core`'s. A
//! one-segment name that is no primitive (a generic parameter, `T`, as legacy demangling
//! writes an impl's parameters) could be any crate's, the checkout's too: no answer then. A
//! plain path's crate is its first segment (`core::ptr::drop_in_place<demo::W>` is `core`'s:
//! generic arguments instantiate a function, they do not define it).

use std::collections::BTreeSet;

use syn::visit::Visit;

/// The crates of the standard library: their functions' files are the toolchain's.
const TOOLCHAIN_CRATES: [&str; 3] = ["core", "alloc", "std"];

/// The primitive types, each defined by `core` (its inherent and trait impls are there).
const PRIMITIVES: [&str; 19] = [
    "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize", "f16",
    "f32", "f64", "f128", "bool", "char", "str",
];

/// The crates that may define `function` (a demangled path without hash), or `None` when its
/// path cannot be read or names a type that could be any crate's.
pub(super) fn defining_crates(function: &str) -> Option<BTreeSet<String>> {
    let path: syn::TypePath = syn::parse_str(function).ok()?;
    let mut crates = Crates::default();
    match &path.qself {
        None => {
            if path.path.segments.len() < 2 {
                return None;
            }
            let first = path.path.segments.first()?;
            crates.found.insert(first.ident.to_string());
        }
        Some(qself) => {
            crates.visit_type(&qself.ty);
            let mut trait_path = path.path.clone();
            let kept = trait_path.segments.iter().take(qself.position).cloned();
            trait_path.segments = kept.collect();
            crates.visit_path(&trait_path);
        }
    }
    (!crates.unknown).then_some(crates.found)
}

/// Whether `function` is defined by a crate of the standard library, whichever of its
/// candidates ([`defining_crates`]) holds it: its lines are then in the toolchain's files.
pub(super) fn is_toolchain_function(function: &str) -> bool {
    defining_crates(function).is_some_and(|crates| {
        !crates.is_empty()
            && crates
                .iter()
                .all(|c| TOOLCHAIN_CRATES.contains(&c.as_str()))
    })
}

/// The crate a path's items are looked for in, for the defining file of a plain path
/// ([`super::inlined`]): its one candidate, else none.
pub(super) fn one_crate(function: &str) -> Option<String> {
    let crates = defining_crates(function)?;
    let mut crates = crates.into_iter();
    match (crates.next(), crates.next()) {
        (Some(one), None) => Some(one),
        _ => None,
    }
}

/// A method of a trait impl named by a qualified path (`<itertools::multipeek_impl::MultiPeek<I>
/// as core::iter::traits::iterator::Iterator>::next`), with the crates that may hold the impl,
/// by the orphan rules. Read with `syn`, as [`defining_crates`] reads it:
///
/// - the trait is the standard library's and the self type a path of a crate of the build: the
///   self type's crate (the standard library does not know the type; a blanket impl of its own
///   names its parameter, not the type's path);
/// - the trait is a crate of the build's (`<chrono::DateTime<chrono::offset::utc::Utc> as
///   jiff_bench::convert::ConvertFrom<jiff::timestamp::Timestamp>>::convert_from`): the
///   trait's crate, or a crate of a type the self type or the trait's arguments name (a
///   local type there lets that crate hold it);
/// - a blanket impl's method (`<F as jiff_bench::convert::ConvertInto<T>>::convert_into`): a
///   self type of one segment that is no primitive is the impl's own parameter (a type's path
///   starts with its crate), and `impl<F> Tr for F` is allowed only in the crate of `Tr` (an
///   uncovered parameter before any local type), so the trait's crate.
///
/// Field trial `jiff-tsdt` (jiff #518): the last two, inlined everywhere in the bench crate's
/// set-up, had no defining file, and 26 benchmarks were measured for them unread.
///
/// An inherent impl's method (`<indexmap::map::IndexMap<usize, i32>>::hash::<usize>`: a
/// qualified self type and no trait) is in the crate of its self type, which alone may hold an
/// inherent impl of it. Field trial `im-release` (indexmap 2.12.1): `IndexMap::hash`, inlined
/// into the set-up of four benchmarks, had no defining file (a plain path's rule reads no
/// generic arguments), so its source could not be compared and they were measured for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ImplMethod {
    /// The crates that may hold the impl, none of them the standard library's alone.
    pub crates: BTreeSet<String>,
    /// The last segment of the self type's path (`MultiPeek`).
    self_name: String,
    /// The last segment of the trait's path (`Iterator`), none for an inherent impl.
    trait_name: Option<String>,
    /// The method (`next`).
    pub name: String,
}

/// The trait impl's method `function` names, when it is one [`ImplMethod`] can place.
pub(super) fn impl_method(function: &str) -> Option<ImplMethod> {
    let path: syn::TypePath = syn::parse_str(function).ok()?;
    let qself = path.qself.as_ref()?;
    let syn::Type::Path(self_ty) = &*qself.ty else {
        return None;
    };
    let segments: Vec<&syn::PathSegment> = path.path.segments.iter().collect();
    if self_ty.qself.is_none() && qself.position == 0 && segments.len() == 1 {
        return inherent_method(self_ty, segments[0]);
    }
    if self_ty.qself.is_some() || qself.position < 2 || segments.len() != qself.position + 1 {
        return None;
    }
    let trait_crate = segments.first()?.ident.to_string();
    let own = &self_ty.path.segments;
    let crates: BTreeSet<String> = if is_impl_parameter(self_ty) {
        BTreeSet::from([trait_crate])
    } else if TOOLCHAIN_CRATES.contains(&trait_crate.as_str()) {
        if own.len() < 2 {
            return None;
        }
        BTreeSet::from([own.first()?.ident.to_string()])
    } else {
        let mut trait_path = path.path.clone();
        let kept = trait_path.segments.iter().take(qself.position).cloned();
        trait_path.segments = kept.collect();
        let mut crates = Crates::default();
        crates.visit_type(&qself.ty);
        crates.visit_path(&trait_path);
        (!crates.projection).then_some(crates.found)?
    };
    if crates
        .iter()
        .all(|c| TOOLCHAIN_CRATES.contains(&c.as_str()))
    {
        return None;
    }
    Some(ImplMethod {
        crates,
        self_name: own.last()?.ident.to_string(),
        trait_name: Some(segments[qself.position - 1].ident.to_string()),
        name: segments[qself.position].ident.to_string(),
    })
}

/// The inherent impl's method `method` of `self_ty` (`<demo::W<T>>::get`): in the crate of
/// the self type's path, its first segment. A type of one segment (a primitive, a parameter)
/// or of the standard library is not placed.
fn inherent_method(self_ty: &syn::TypePath, method: &syn::PathSegment) -> Option<ImplMethod> {
    let own = &self_ty.path.segments;
    let krate = own.first()?.ident.to_string();
    if own.len() < 2 || TOOLCHAIN_CRATES.contains(&krate.as_str()) {
        return None;
    }
    Some(ImplMethod {
        crates: BTreeSet::from([krate]),
        self_name: own.last()?.ident.to_string(),
        trait_name: None,
        name: method.ident.to_string(),
    })
}

/// Whether a qualified path's self type is the impl's own type parameter: one segment without
/// generic arguments that names no primitive.
fn is_impl_parameter(self_ty: &syn::TypePath) -> bool {
    let segments = &self_ty.path.segments;
    let [only] = segments.iter().collect::<Vec<_>>()[..] else {
        return false;
    };
    only.arguments.is_none() && !PRIMITIVES.contains(&only.ident.to_string().as_str())
}

impl ImplMethod {
    /// The method `name` of an inherent impl for a self type whose path ends in `self_name`, as
    /// [`ImplMethod::is_key`] looks for it in a file's items (no crates: it places nothing).
    pub(super) fn inherent(self_name: &str, name: &str) -> ImplMethod {
        ImplMethod {
            crates: BTreeSet::new(),
            self_name: self_name.to_string(),
            trait_name: None,
            name: name.to_string(),
        }
    }

    /// Whether the item key `key` of a file ([`super::ItemLines`]: `m::impl Iterator for
    /// MultiPeek < I >::fn next`) is this method: an impl of a trait of the same last segment
    /// (or, for an inherent method, an impl of no trait) for a self type of the same last
    /// segment (generic arguments and the impl's own parameters left out: every impl of that
    /// trait for that type counts, which errs toward comparing more copies). The key's impl is
    /// read with `syn`, once its paths' separators are whole again: a key writes each
    /// punctuation token apart (`chrono : : DateTime`), which `syn` reads as two colons, no path
    /// (field trial `jiff-tsdt`: no impl for a type named by its path was found).
    pub(super) fn is_key(&self, key: &str) -> bool {
        let Some(owner) = key.strip_suffix(&format!("::fn {}", self.name)) else {
            return false;
        };
        let Some(at) = owner.find("impl ") else {
            return false;
        };
        let header = owner[at..].replace(": :", "::");
        let Ok(item) = syn::parse_str::<syn::ItemImpl>(&format!("{header} {{}}")) else {
            return false;
        };
        let last = |path: &syn::Path| path.segments.last().map(|s| s.ident.to_string());
        let trait_name = item.trait_.as_ref().and_then(|(path, _)| last(path));
        let self_name = match &*item.self_ty {
            syn::Type::Path(p) if p.qself.is_none() => last(&p.path),
            _ => None,
        };
        trait_name == self.trait_name && self_name.as_deref() == Some(self.self_name.as_str())
    }
}

/// The crates of the paths a type or trait names; `unknown` once a path could be any crate's,
/// `projection` once a type is a projection (`<T as Tr>::Assoc`).
#[derive(Default)]
struct Crates {
    found: BTreeSet<String>,
    unknown: bool,
    projection: bool,
}

impl<'ast> Visit<'ast> for Crates {
    fn visit_path(&mut self, path: &'ast syn::Path) {
        match path.segments.first() {
            Some(first) if path.segments.len() > 1 => {
                self.found.insert(first.ident.to_string());
            }
            Some(only) if PRIMITIVES.contains(&only.ident.to_string().as_str()) => {
                self.found.insert("core".to_string());
            }
            _ => self.unknown = true,
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_qself(&mut self, qself: &'ast syn::QSelf) {
        // A projection (`<T as Tr>::Assoc`) inside a type: its crate is not the path's.
        self.unknown = true;
        self.projection = true;
        syn::visit::visit_qself(self, qself);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crates(function: &str) -> Option<Vec<String>> {
        defining_crates(function).map(|c| c.into_iter().collect())
    }

    #[test]
    fn a_qualified_path_s_crates_are_its_trait_s_and_its_self_type_s() {
        // itertools #920: read as the crate `<i32 as core`, no file defined it.
        let lt = "<i32 as core::cmp::PartialOrd>::lt";
        assert_eq!(crates(lt), Some(vec!["core".to_string()]));
        assert!(is_toolchain_function(lt));
        let own = "<itertools::Foo as core::iter::traits::iterator::Iterator>::next";
        assert_eq!(
            crates(own),
            Some(vec!["core".to_string(), "itertools".to_string()])
        );
        assert!(!is_toolchain_function(own), "itertools may hold that impl");
        let reference = "<&demo::W as core::cmp::PartialOrd<&demo::W>>::lt";
        assert!(!is_toolchain_function(reference), "`&` is fundamental");
        let slice = "<[u8] as core::fmt::Debug>::fmt";
        assert!(is_toolchain_function(slice));
        let tuple = "<(i32, alloc::string::String) as core::cmp::PartialOrd>::lt";
        assert!(is_toolchain_function(tuple));
    }

    #[test]
    fn a_name_that_could_be_any_crate_s_or_does_not_parse_has_no_crate() {
        let generic = "<hashbrown::raw::RawTable<T,A> as core::ops::drop::Drop>::drop";
        assert_eq!(crates(generic), None, "`T` could be the checkout's");
        assert!(!is_toolchain_function(generic));
        assert_eq!(crates("<T as core::clone::Clone>::clone"), None);
        assert_eq!(crates("demo::main::{{closure}}"), None);
        assert_eq!(crates("{closure#0}"), None);
        assert_eq!(crates("main"), None);
        let projection = "<<I as core::iter::IntoIterator>::IntoIter as core::clone::Clone>::clone";
        assert_eq!(crates(projection), None);
    }

    #[test]
    fn a_trait_impl_s_method_of_a_crate_of_the_build_is_found_by_its_impl() {
        // itertools #920: `MultiPeek::next`, inlined everywhere, had no defining file.
        let next = "<itertools::multipeek_impl::MultiPeek<I> as \
                    core::iter::traits::iterator::Iterator>::next";
        let method = impl_method(next).expect("a method of a trait impl");
        assert_eq!(method.crates, BTreeSet::from(["itertools".to_string()]));
        assert_eq!(method.name, "next");
        assert!(method.is_key("impl Iterator for MultiPeek < I >::fn next"));
        assert!(
            method.is_key("inner::impl core::iter::Iterator for self::MultiPeek < I >::fn next")
        );
        let key = "inner::impl core : : iter : : Iterator  for self : : MultiPeek < I > ::fn next";
        assert!(method.is_key(key), "a path as a file's item key writes it");
        assert!(!method.is_key("impl Iterator for MultiPeek < I >::fn size_hint"));
        assert!(!method.is_key("impl Iterator for PeekNth < I >::fn next"));
        assert!(!method.is_key("impl DoubleEndedIterator for MultiPeek < I >::fn next"));
        assert!(
            !method.is_key("impl MultiPeek < I >::fn next"),
            "an inherent method"
        );
        assert!(!method.is_key("fn next"));
        // The standard library's type and trait: not placed.
        assert_eq!(impl_method("<i32 as core::cmp::PartialOrd>::lt"), None);
        assert_eq!(impl_method("<T as core::clone::Clone>::clone"), None);
        assert_eq!(impl_method("itertools::Itertools::multipeek"), None);
    }

    #[test]
    fn a_blanket_impl_s_method_is_found_in_its_trait_s_crate() {
        // jiff #518 (field trial `jiff-tsdt`): `convert_into`, inlined everywhere, had no
        // defining file, so every benchmark whose set-up converts was measured.
        let into = "<F as jiff_bench::convert::ConvertInto<T>>::convert_into";
        let method = impl_method(into).expect("a blanket impl's method");
        assert_eq!(method.crates, BTreeSet::from(["jiff_bench".to_string()]));
        assert_eq!(method.name, "convert_into");
        assert!(method.is_key(
            "convert::impl < F , T : ConvertFrom < F > > ConvertInto < T > for F::fn convert_into"
        ));
        assert!(method.is_key("impl ConvertInto < T > for F::fn convert_into"));
        assert!(!method.is_key("impl ConvertInto < T > for G::fn convert_into"));
        assert!(!method.is_key("impl ConvertFrom < T > for F::fn convert_into"));
        // The standard library's blanket impls are the toolchain's.
        assert_eq!(impl_method("<T as core::convert::Into<U>>::into"), None);
    }

    #[test]
    fn an_inherent_method_is_found_by_its_impl_in_its_self_type_s_crate() {
        // indexmap 2.12.1 (field trial `im-release`): `IndexMap::hash`, inlined into four
        // benchmarks' set-up, had no defining file, so they were measured for it unread.
        let hash = "<indexmap::map::IndexMap<usize, i32>>::hash::<usize>";
        let method = impl_method(hash).expect("an inherent method");
        assert_eq!(method.crates, BTreeSet::from(["indexmap".to_string()]));
        assert_eq!(method.name, "hash");
        assert!(method.is_key("impl < K , V , S > IndexMap < K , V , S >::fn hash"));
        assert!(!method.is_key("impl < K , V , S > IndexSet < K , V , S >::fn hash"));
        let trait_impl = "impl < K , V , S > Hash for IndexMap < K , V , S >::fn hash";
        assert!(!method.is_key(trait_impl), "a trait's method");
        assert_eq!(impl_method("<alloc::string::String>::len"), None);
        assert_eq!(impl_method("<usize>::pow"), None);
    }

    #[test]
    fn an_impl_of_a_trait_of_the_build_may_be_in_any_crate_its_header_names() {
        // jiff #518: `convert_from` for chrono's type, in the bench crate's `convert.rs`.
        let from = "<chrono::datetime::DateTime<chrono::offset::utc::Utc> as \
                    jiff_bench::convert::ConvertFrom<jiff::timestamp::Timestamp>>::convert_from";
        let method = impl_method(from).expect("a method of a trait impl");
        let crates = ["chrono", "jiff", "jiff_bench"].map(String::from);
        assert_eq!(method.crates, BTreeSet::from(crates));
        assert!(method.is_key("impl ConvertFrom < jiff :: Timestamp > for chrono :: DateTime < chrono :: Utc >::fn convert_from"));
        assert!(!method.is_key(
            "impl ConvertFrom < jiff :: Zoned > for time :: OffsetDateTime::fn convert_from"
        ));
        let own_trait = "<itertools::Foo as demo::Tr>::next";
        let crates = ["demo", "itertools"].map(String::from);
        assert_eq!(
            impl_method(own_trait).map(|m| m.crates),
            Some(BTreeSet::from(crates))
        );
        let primitive = "<u32 as demo::Tr>::f";
        let crates = ["core", "demo"].map(String::from);
        assert_eq!(
            impl_method(primitive).map(|m| m.crates),
            Some(BTreeSet::from(crates))
        );
        // A projection's crate is not its path's: not placed.
        assert_eq!(
            impl_method("<<I as core::iter::IntoIterator>::IntoIter as demo::Tr>::f"),
            None
        );
    }

    #[test]
    fn a_plain_path_s_crate_is_its_first_segment() {
        let drop = "core::ptr::drop_in_place<demo::W>";
        assert_eq!(one_crate(drop), Some("core".to_string()));
        assert!(is_toolchain_function(drop));
        let inner = "hashbrown::raw::RawTableInner::drop_inner_table";
        assert_eq!(one_crate(inner), Some("hashbrown".to_string()));
        assert!(
            !is_toolchain_function(inner),
            "hashbrown is a crate of the build too"
        );
        assert_eq!(one_crate("bstr::byte_lines"), Some("bstr".to_string()));
        let two = "<itertools::Foo as core::iter::traits::iterator::Iterator>::next";
        assert_eq!(one_crate(two), None);
    }
}
