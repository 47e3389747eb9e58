//! Which bench target a benchmark belongs to, and how messages and ids name it.

/// A bench target: the `[[bench]]` `target` of package `package`. Two members of a workspace
/// may each have a target of the same name, so a name alone does not identify one.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TargetKey {
    pub package: String,
    pub target: String,
}

impl TargetKey {
    pub fn new(package: &str, target: &str) -> TargetKey {
        TargetKey {
            package: package.to_string(),
            target: target.to_string(),
        }
    }

    /// How messages name it: `target`, or `package::target` when `several_packages` (the run
    /// has bench targets in more than one package).
    pub fn label(&self, several_packages: bool) -> String {
        target_label(Some(&self.package), &self.target, several_packages)
    }
}

/// `target`, or `package::target` when the run has bench targets in several packages and the
/// package is known.
pub fn target_label(package: Option<&str>, target: &str, several_packages: bool) -> String {
    match package {
        Some(package) if several_packages => format!("{package}{QUALIFIER}{target}"),
        _ => target.to_string(),
    }
}

/// What joins package, target and criterion id in a qualified id (`kern::a_mix`,
/// `core::kern::a_mix`): criterion separates groups with `/`, never with `::`.
pub const QUALIFIER: &str = "::";
