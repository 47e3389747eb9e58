//! Cliff's delta `P(head > base) − P(head < base)` in O((n+m) log(n+m)).
//!
//! The effect-size gate beside Mann–Whitney: with thousands of samples the U test calls tiny,
//! irrelevant shifts significant (001 section 5.2.1), Cliff's delta says how large the shift is.
//! Counting all `n·m` pairs would be quadratic; instead both samples are sorted once and a single
//! merge-like pass counts, for every head value, the base values below and above it. The
//! counts are exact integers, so the result equals the brute-force pair count exactly.
use serde::{Deserialize, Serialize};

use super::StatsError;

/// Romano et al.'s magnitudes: negligible < 0.147 ≤ small < 0.33 ≤ medium < 0.474 ≤ large.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Magnitude {
    Negligible,
    Small,
    Medium,
    Large,
}

/// |delta| from which an effect is no longer negligible (Romano et al.).
pub const SMALL_EFFECT: f64 = 0.147;
const MEDIUM_EFFECT: f64 = 0.33;
const LARGE_EFFECT: f64 = 0.474;

impl Magnitude {
    /// Romano et al.'s label for `|delta|`.
    pub fn of(delta: f64) -> Magnitude {
        let size = delta.abs();
        if size >= LARGE_EFFECT {
            Magnitude::Large
        } else if size >= MEDIUM_EFFECT {
            Magnitude::Medium
        } else if size >= SMALL_EFFECT {
            Magnitude::Small
        } else {
            Magnitude::Negligible
        }
    }
}

/// Cliff's delta; positive means head tends to be larger (slower, for times).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CliffsDelta {
    pub delta: f64,
    pub magnitude: Magnitude,
}

/// `delta = (#{(b, h): h > b} − #{(b, h): h < b}) / (n·m)`; ties count for neither side.
///
/// Invariants: `−1 ≤ delta ≤ 1`; swapping the arguments negates delta exactly; any monotone
/// increasing transformation of all values (e.g. scaling) leaves it unchanged.
/// Errors: an empty side, or a NaN/infinite value.
pub fn cliffs_delta(base: &[f64], head: &[f64]) -> Result<CliffsDelta, StatsError> {
    check_sample(base, "Cliff's delta: base sample")?;
    check_sample(head, "Cliff's delta: head sample")?;
    let (greater, less) = dominance_counts(base, head);
    let pairs = base.len() as f64 * head.len() as f64;
    let delta = (greater as f64 - less as f64) / pairs;
    Ok(CliffsDelta {
        delta,
        magnitude: Magnitude::of(delta),
    })
}

/// `(#{(b, h): h > b}, #{(b, h): h < b})`: both samples sorted, then one merge-like pass in which
/// two cursors track how many base values lie below, and at or below, the current head value.
fn dominance_counts(base: &[f64], head: &[f64]) -> (u64, u64) {
    let mut sorted_base = base.to_vec();
    sorted_base.sort_unstable_by(f64::total_cmp);
    let mut sorted_head = head.to_vec();
    sorted_head.sort_unstable_by(f64::total_cmp);
    let (mut below, mut at_or_below) = (0usize, 0usize);
    let (mut greater, mut less) = (0u64, 0u64);
    for &h in &sorted_head {
        while below < sorted_base.len() && sorted_base[below] < h {
            below += 1;
        }
        at_or_below = at_or_below.max(below);
        while at_or_below < sorted_base.len() && sorted_base[at_or_below] <= h {
            at_or_below += 1;
        }
        greater += below as u64;
        less += (sorted_base.len() - at_or_below) as u64;
    }
    (greater, less)
}

pub(crate) fn check_sample(values: &[f64], what: &'static str) -> Result<(), StatsError> {
    if values.is_empty() {
        return Err(StatsError::Empty(what));
    }
    match values.iter().find(|v| !v.is_finite()) {
        Some(&bad) => Err(StatsError::InvalidValue(bad)),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brute_force(base: &[f64], head: &[f64]) -> f64 {
        let mut sum = 0i64;
        for h in head {
            for b in base {
                sum += (h > b) as i64 - (h < b) as i64;
            }
        }
        sum as f64 / (base.len() * head.len()) as f64
    }

    #[test]
    fn equals_pair_count_with_ties() {
        let base = [1.0, 2.0, 2.0, 3.0, 5.0];
        let head = [2.0, 2.0, 4.0, 6.0, 0.5, 3.0];
        let d = cliffs_delta(&base, &head).unwrap();
        assert_eq!(d.delta, brute_force(&base, &head));
    }

    #[test]
    fn magnitudes_at_romano_bounds() {
        assert_eq!(Magnitude::of(0.1469), Magnitude::Negligible);
        assert_eq!(Magnitude::of(-0.147), Magnitude::Small);
        assert_eq!(Magnitude::of(0.33), Magnitude::Medium);
        assert_eq!(Magnitude::of(-0.474), Magnitude::Large);
        let d = cliffs_delta(&[1.0, 2.0], &[3.0, 4.0]).unwrap();
        assert_eq!((d.delta, d.magnitude), (1.0, Magnitude::Large));
    }

    #[test]
    fn rejects_empty_and_nan() {
        assert!(matches!(
            cliffs_delta(&[], &[1.0]),
            Err(StatsError::Empty(_))
        ));
        assert!(matches!(
            cliffs_delta(&[f64::NAN], &[1.0]),
            Err(StatsError::InvalidValue(_))
        ));
    }
}
