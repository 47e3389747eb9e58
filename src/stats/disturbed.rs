//! Disturbed forks: a fork whose mean is far slower than the rest of its side.
//!
//! On shared machines a fork now and then runs 10–100 % slower than its siblings (a neighbour's
//! burst, a descheduled vCPU); recorded on a quiet 2-core machine, about one fork in twenty.
//! Disturbances only ever add time, and a single such fork among three or ten decides the
//! spread of a side's fork means: the ratio CI widens until a clear change is `inconclusive`,
//! and the `decided` stop rule keeps measuring. The analysis therefore leaves out forks that are
//! unambiguously disturbed and reports how many it left out.
//!
//! A fork is disturbed when its log mean exceeds the side's median log fork mean by more than
//! both [`DISTURBED_MIN_EXCESS`] and [`DISTURBED_Z`] robust standard deviations. The robust
//! standard deviation is 1.4826 × the median absolute deviation of the log fork means from their
//! side's median, pooled over *both* sides: three forks alone give a MAD that is often near zero,
//! and trimming ordinary noise would make the fork-to-fork spread look smaller than it is (the
//! A/A simulation in `tests/stop_decided_simulation.rs` guards this). Invariants:
//!
//! - only forks *slower* than the median can be disturbed, so fewer than half of a side's forks
//!   are ever left out and the median fork is always kept;
//! - disturbances are rare (about one fork in twenty): when more than one fork in
//!   [`DISTURBED_AT_MOST_ONE_IN`] of a side (more than one of three to nine) is far slow, the
//!   slow forks are a mode of the benchmark on this machine and all are kept. Trimming them made
//!   the side whose median happened to fall in the fast mode look fast and tight: a live ahash run
//!   on a noisy host called an untouched benchmark `regressed` (+23.7 %) after two of base's five
//!   forks, as slow as most of head's, were left out, where ten forks found +6 %, `inconclusive`;
//! - a side with fewer than [`DISTURBED_MIN_FORKS`] forks keeps them all (with two forks it is
//!   not knowable which one is off);
//! - the rule is scale-invariant (it works on log means) and symmetric between base and head, so
//!   under an A/A comparison it cannot favour either side.
//!
//! Peass (METHOD.md, 004 section II) found removing *samples* with |z| > 3.29 not worth it; this
//! removes whole forks only, with the same z and a relative floor, because one fork weighs as much
//! as all the samples of a side divided by the fork count.

use super::descriptive::{finite_logs, median};

/// Robust z above which a slow fork is disturbed (two-sided 99.9 % normal quantile, as Peass).
pub const DISTURBED_Z: f64 = 3.29;
/// A fork is never disturbed unless it is at least this much slower than the side's median fork
/// (so a tight side, whose MAD is tiny, does not lose forks to ordinary noise).
pub const DISTURBED_MIN_EXCESS: f64 = 0.10;
/// Fewest forks on a side for any of them to be judged disturbed.
pub const DISTURBED_MIN_FORKS: usize = 3;
/// At most one fork in this many of a side (and at least one) can be disturbed: a side with more
/// far-slow forks than that (two of five) has a slow mode on this machine, not rare
/// disturbances, and keeps them all (see the module docs). One in three kept more power where a
/// tenth of all forks are disturbed, but then the early looks (one fork) and the ten-fork
/// analysis (three) disagreed on a noisy recording (`docs/stopping.md`, "A slow mode is not a
/// disturbance").
pub const DISTURBED_AT_MOST_ONE_IN: usize = 5;
/// Scale of the median absolute deviation to a normal standard deviation.
const MAD_TO_SD: f64 = 1.4826;

/// For each of a side's fork means, whether that fork is disturbed (see the module docs);
/// `other_side` are the fork means of the other side of the comparison, which only help estimate
/// the fork-to-fork spread. Non-finite or non-positive means are never flagged (they are dealt
/// with where the means are used).
pub fn disturbed_forks(fork_means: &[f64], other_side: &[f64]) -> Vec<bool> {
    let finite = finite_logs(fork_means);
    if finite.len() < DISTURBED_MIN_FORKS {
        return vec![false; fork_means.len()];
    }
    let center = median(&finite);
    let mut deviations = absolute_deviations(&finite);
    deviations.extend(absolute_deviations(&finite_logs(other_side)));
    let robust_sd = MAD_TO_SD * median(&deviations);
    let limit = DISTURBED_MIN_EXCESS.ln_1p().max(DISTURBED_Z * robust_sd);
    let flags: Vec<bool> = fork_means
        .iter()
        .map(|m| {
            let log = m.ln();
            log.is_finite() && log - center > limit
        })
        .collect();
    let most = (finite.len() / DISTURBED_AT_MOST_ONE_IN).max(1);
    if flags.iter().filter(|f| **f).count() > most {
        return vec![false; fork_means.len()];
    }
    flags
}

/// `|x − median|` for each value; empty for no values.
fn absolute_deviations(values: &[f64]) -> Vec<f64> {
    if values.is_empty() {
        return Vec::new();
    }
    let center = median(values);
    values.iter().map(|l| (l - center).abs()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_fork_far_slower_than_its_siblings_is_disturbed() {
        // recorded on base64's decode/3: the first head fork ran 43 % slow
        assert_eq!(
            disturbed_forks(&[59.3, 41.6, 42.1], &[37.6, 36.9, 37.0]),
            vec![true, false, false]
        );
        assert_eq!(
            disturbed_forks(
                &[2292.4, 4393.5, 2284.1, 2279.9, 2276.6],
                &[1612.6, 1584.8, 1622.0]
            ),
            vec![false, true, false, false, false]
        );
    }

    #[test]
    fn ordinary_noise_and_fast_forks_are_kept() {
        // 6.6 % above the median but within the side's own spread
        assert_eq!(
            disturbed_forks(&[37.6, 36.9, 40.1, 38.9, 36.2], &[]),
            vec![false; 5]
        );
        // below the floor: 4 % slow on a very tight side
        assert_eq!(disturbed_forks(&[100.0, 100.1, 104.0], &[]), vec![false; 3]);
        // fast forks are never disturbed, however far off
        assert_eq!(disturbed_forks(&[100.0, 100.1, 60.0], &[]), vec![false; 3]);
    }

    #[test]
    fn the_other_sides_spread_keeps_a_noisy_sides_forks() {
        // alone, three forks with a near-zero MAD would lose the 12 % one; the other side shows
        // that forks of this benchmark scatter that much
        assert!(disturbed_forks(&[100.0, 100.2, 112.0], &[])[2]);
        assert_eq!(
            disturbed_forks(&[100.0, 100.2, 112.0], &[100.0, 108.0, 93.0]),
            vec![false; 3]
        );
    }

    #[test]
    fn two_forks_cannot_tell_which_is_off() {
        assert_eq!(
            disturbed_forks(&[100.0, 200.0], &[100.0, 100.0, 100.0]),
            vec![false, false]
        );
        assert_eq!(disturbed_forks(&[], &[]), Vec::<bool>::new());
    }

    #[test]
    fn a_slow_mode_is_not_a_disturbance() {
        // ahash's map/aHash-hashBrown, live on a noisy host: two of base's five forks as slow as
        // most of head's; leaving them out made base look 19 % faster and tight
        let base = [21.99, 16.1, 16.28, 15.69, 21.17];
        let head = [21.11, 18.92, 18.59, 20.2, 20.32];
        assert_eq!(disturbed_forks(&base, &head), vec![false; 5]);
        // one such fork in five is still a disturbance, two in ten too
        assert_eq!(
            disturbed_forks(&[21.99, 16.1, 16.28, 15.69, 16.0], &head),
            vec![true, false, false, false, false]
        );
        let ten = [
            21.99, 16.1, 16.28, 15.69, 21.17, 16.0, 16.2, 15.9, 16.1, 16.3,
        ];
        assert_eq!(
            disturbed_forks(&ten, &head).iter().filter(|f| **f).count(),
            2
        );
    }

    #[test]
    fn invalid_means_are_never_flagged_nor_counted() {
        assert_eq!(
            disturbed_forks(&[f64::NAN, 100.0, 100.2, 150.0], &[]),
            vec![false, false, false, true]
        );
        assert_eq!(disturbed_forks(&[0.0, 100.0, 150.0], &[]), vec![false; 3]);
    }

    proptest! {
        #[test]
        fn fewer_than_half_are_left_out_and_never_a_fast_one(
            means in prop::collection::vec(1.0f64..1e6, 0..40),
            other in prop::collection::vec(1.0f64..1e6, 0..40),
        ) {
            let flags = disturbed_forks(&means, &other);
            prop_assert_eq!(flags.len(), means.len());
            let left_out = flags.iter().filter(|f| **f).count();
            prop_assert!(2 * left_out < means.len().max(1));
            prop_assert!(left_out <= (means.len() / DISTURBED_AT_MOST_ONE_IN).max(1));
            let logs: Vec<f64> = means.iter().map(|m| m.ln()).collect();
            let center = median(&logs);
            for (log, flagged) in logs.iter().zip(&flags) {
                if *flagged {
                    prop_assert!(log - center > DISTURBED_MIN_EXCESS.ln_1p() - 1e-12);
                }
            }
        }

        #[test]
        fn scaling_all_means_changes_nothing(
            means in prop::collection::vec(1.0f64..1e6, 0..20),
            other in prop::collection::vec(1.0f64..1e6, 0..20),
            scale in 1e-3f64..1e3,
        ) {
            let scale_all = |v: &[f64]| v.iter().map(|m| m * scale).collect::<Vec<f64>>();
            prop_assert_eq!(
                disturbed_forks(&means, &other),
                disturbed_forks(&scale_all(&means), &scale_all(&other))
            );
        }
    }
}
