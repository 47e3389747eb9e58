//! Stop criteria of dynamic reconfiguration (Laaber et al., FSE 2020, section 4).
use serde::{Deserialize, Serialize};

/// A stability criterion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Criterion {
    Cv,
    Rciw,
    Kld,
}

impl Criterion {
    /// The paper's threshold: 0.01 (CV), 0.03 (RCIW), 0.99 (KLD).
    pub fn default_threshold(self) -> f64 {
        match self {
            Criterion::Cv => 0.01,
            Criterion::Rciw => 0.03,
            Criterion::Kld => 0.99,
        }
    }
}
