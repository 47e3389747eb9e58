//! Disturbed rounds: a round whose head/base ratio lies far outside what the other rounds show.
//!
//! On shared machines a fork now and then runs 10–100 % slower than its siblings (a neighbour's
//! burst, a descheduled vCPU); recorded on a quiet 2-core machine, about one fork in twenty.
//! Disturbances only ever add time. When one hits both forks of a round it cancels in their
//! ratio; when it hits one, that round's log ratio is off by the disturbance, and a single such
//! round among three or ten decides the spread of the rounds: the interval widens until a clear
//! change is `inconclusive`, and the `decided` stop rule keeps measuring. The analysis therefore
//! leaves out rounds that are unambiguously disturbed, both forks of them, so that the rounds
//! left stay pairs, and reports how many forks it left out.
//!
//! The rounds farthest from the median (one more than may be left out) are the candidates; the
//! others, the core, say what a round looks like. A candidate is disturbed when its log ratio
//! lies outside the `1 − DISTURBED_P` prediction interval of the core (Student's t with the
//! core's mean and standard deviation, `t(n−1) · s · √(1 + 1/n)`) **and** more than
//! [`DISTURBED_MIN_EXCESS`] from the core's mean. Invariants:
//!
//! - under normal rounds a round is hardly ever flagged, so leaving rounds out hardly ever
//!   shrinks the spread of a comparison that had no disturbance (`DISTURBED_P` was chosen so that
//!   the simulated A/A false-alarm rate of the shipped rule stays below alpha); a looser
//!   rule (a robust z of 3.29 on each side's fork means, as Peass used for samples) took the
//!   simulated A/A false-alarm rate of the paired interval from 0.8 % to 1.4 % at alpha 1 % where
//!   forks differ by 5 % (`docs/design/statistics.md`, "Disturbed rounds");
//! - the rule judges rounds, not sides: with code layouts a side's forks differ by the layouts'
//!   effect, which both sides of a round share and which must not look like a disturbance;
//! - disturbances are rare (about one fork in twenty): when more than one round in
//!   [`DISTURBED_AT_MOST_ONE_IN`] (and more than one) is far off, they are a mode of the benchmark
//!   on this machine and all are kept (a live ahash run on a noisy host was called `regressed`,
//!   +23.7 %, after two of base's five slow forks were left out; ten forks found +6 %);
//! - fewer than [`DISTURBED_MIN_ROUNDS`] rounds keep them all (with three, two rounds are no
//!   interval to predict from);
//! - the rule is symmetric between base and head and invariant under scaling either side.

use statrs::distribution::{ContinuousCDF, StudentsT};

use super::descriptive::{mean, median, std_dev};

/// A round is never disturbed unless its log ratio is at least `ln(1 + this)` from the other
/// rounds' mean (so a very tight benchmark does not lose rounds to ordinary noise).
pub const DISTURBED_MIN_EXCESS: f64 = 0.10;
/// The level of the prediction interval a disturbed round lies outside. The candidates are the most
/// extreme rounds, so under normal rounds they fall outside more often than this; at 1e-3 and 1e-4
/// that still took the simulated A/A false-alarm rate at alpha 1 % to 1.9 % and 1.2 % where forks
/// differ by 5 %, at 1e-5 it is 0.8 % (`docs/design/statistics.md`, "Disturbed rounds").
pub const DISTURBED_P: f64 = 1e-5;
/// Fewest rounds for any of them to be judged disturbed.
pub const DISTURBED_MIN_ROUNDS: usize = 4;
/// At most one round in this many (and at least one) can be disturbed; more far-off rounds are a
/// mode of the benchmark, and all are kept.
pub const DISTURBED_AT_MOST_ONE_IN: usize = 5;

/// For each round's log ratio `ln(head / base)`, whether that round is disturbed (see the module
/// docs). Non-finite log ratios are never flagged and do not count.
pub fn disturbed_rounds(log_ratios: &[f64]) -> Vec<bool> {
    let finite: Vec<(usize, f64)> = log_ratios
        .iter()
        .copied()
        .enumerate()
        .filter(|(_, v)| v.is_finite())
        .collect();
    let n = finite.len();
    let mut flags = vec![false; log_ratios.len()];
    if n < DISTURBED_MIN_ROUNDS {
        return flags;
    }
    let most = (n / DISTURBED_AT_MOST_ONE_IN).max(1);
    // The candidates are the rounds farthest from the median, one more than may be left out;
    // the others (the core) say what a round looks like. Judging the candidates against the core
    // keeps one disturbed round from hiding another.
    let values: Vec<f64> = finite.iter().map(|(_, v)| *v).collect();
    let centre = median(&values);
    let mut by_distance = finite.clone();
    by_distance.sort_by(|a, b| (b.1 - centre).abs().total_cmp(&(a.1 - centre).abs()));
    let (candidates, core) = by_distance.split_at(most + 1);
    let core: Vec<f64> = core.iter().map(|(_, v)| *v).collect();
    let Some(limit) = prediction_limit(&core) else {
        return flags;
    };
    let centre = mean(&core);
    for &(at, value) in candidates {
        flags[at] = (value - centre).abs() > limit;
    }
    if flags.iter().filter(|f| **f).count() > most {
        return vec![false; log_ratios.len()];
    }
    flags
}

/// How far from the mean of `core` a new round may lie: the half-width of the `1 − DISTURBED_P`
/// prediction interval of Student's t, `t(n−1) · s · √(1 + 1/n)`, and at least
/// `ln(1 + DISTURBED_MIN_EXCESS)`. `None` for fewer than two values.
fn prediction_limit(core: &[f64]) -> Option<f64> {
    let n = core.len();
    if n < 2 {
        return None;
    }
    let t = StudentsT::new(0.0, 1.0, (n - 1) as f64).ok()?;
    let half =
        t.inverse_cdf(1.0 - DISTURBED_P / 2.0) * std_dev(core) * (1.0 + 1.0 / n as f64).sqrt();
    Some(DISTURBED_MIN_EXCESS.ln_1p().max(half))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn logs(ratios: &[f64]) -> Vec<f64> {
        ratios.iter().map(|r| r.ln()).collect()
    }

    #[test]
    fn a_round_far_off_the_others_is_disturbed() {
        // base64's decode/3: the first head fork ran 43 % slow, base's did not
        let ratios = [
            59.3 / 37.6,
            41.6 / 36.9,
            42.1 / 37.0,
            41.9 / 37.1,
            41.7 / 37.0,
        ];
        let eight: Vec<f64> = ratios
            .iter()
            .chain(&[1.128, 1.131, 1.127])
            .copied()
            .collect();
        let mut expected = vec![false; 8];
        expected[0] = true;
        assert_eq!(disturbed_rounds(&logs(&eight)), expected);
        // five rounds leave a core of three, a wide prediction interval: only a far larger
        // excess shows
        assert_eq!(disturbed_rounds(&logs(&ratios)), vec![false; 5]);
        assert_eq!(
            disturbed_rounds(&logs(&[3.0, 1.127, 1.1275, 1.128, 1.127])),
            vec![true, false, false, false, false]
        );
        // a slow base fork shows as a low ratio
        let flags = disturbed_rounds(&logs(&[1.0, 1.002, 0.7, 0.998, 1.001, 1.0, 0.999]));
        assert_eq!(flags, vec![false, false, true, false, false, false, false]);
    }

    #[test]
    fn layouts_and_common_bursts_are_no_disturbance() {
        // every round in its own layout, 10 % apart, head 3 % slower in each: the ratios agree
        let base = [1.0, 1.1, 0.9, 1.05, 0.95, 1.12];
        let ratios: Vec<f64> = base.iter().map(|b| (b * 1.03) / b).collect();
        assert_eq!(disturbed_rounds(&logs(&ratios)), vec![false; 6]);
    }

    #[test]
    fn ordinary_noise_and_a_small_excess_are_kept() {
        // 6.6 % off, within what the other rounds show
        assert_eq!(
            disturbed_rounds(&logs(&[1.0, 1.066, 0.95, 1.03, 0.97])),
            vec![false; 5]
        );
        // below the floor: 4 % off on a very tight benchmark
        assert_eq!(
            disturbed_rounds(&logs(&[1.0, 1.001, 1.04, 0.999, 1.0])),
            vec![false; 5]
        );
    }

    #[test]
    fn three_rounds_cannot_tell_which_is_off() {
        assert_eq!(disturbed_rounds(&logs(&[1.0, 1.001, 2.0])), vec![false; 3]);
        assert_eq!(disturbed_rounds(&[]), Vec::<bool>::new());
    }

    #[test]
    fn a_slow_mode_is_not_a_disturbance() {
        // two of five rounds far off: a mode of the benchmark, all kept
        assert_eq!(
            disturbed_rounds(&logs(&[1.0, 1.001, 1.3, 0.999, 1.31])),
            vec![false; 5]
        );
        // one in five is still a disturbance, two in ten too
        assert_eq!(
            disturbed_rounds(&logs(&[1.0, 1.001, 1.3, 0.999, 1.0])),
            vec![false, false, true, false, false]
        );
        let ten = logs(&[1.0, 1.001, 1.3, 0.999, 1.0, 1.002, 0.7, 1.0, 0.998, 1.001]);
        let flagged: Vec<usize> = (0..10).filter(|&i| disturbed_rounds(&ten)[i]).collect();
        assert_eq!(flagged, [2, 6]);
    }

    #[test]
    fn invalid_ratios_are_never_flagged_nor_counted() {
        let flags = disturbed_rounds(&[f64::NAN, 0.0, 0.001, 0.4, -0.001, 0.0]);
        assert_eq!(flags, vec![false, false, false, true, false, false]);
    }

    proptest! {
        #[test]
        fn at_most_one_in_five_is_left_out_and_only_the_farthest(
            ratios in prop::collection::vec(-1.0f64..1.0, 0..40),
        ) {
            let flags = disturbed_rounds(&ratios);
            prop_assert_eq!(flags.len(), ratios.len());
            let left_out = flags.iter().filter(|f| **f).count();
            prop_assert!(left_out <= (ratios.len() / DISTURBED_AT_MOST_ONE_IN).max(1));
            let centre = median(&ratios);
            let distance = |v: f64| (v - centre).abs();
            let nearest_flagged = ratios
                .iter()
                .zip(&flags)
                .filter(|(_, f)| **f)
                .map(|(v, _)| distance(*v))
                .fold(f64::INFINITY, f64::min);
            for (value, flagged) in ratios.iter().zip(&flags) {
                if !*flagged {
                    prop_assert!(distance(*value) <= nearest_flagged);
                }
            }
        }

        #[test]
        fn swapping_the_sides_and_scaling_change_nothing(
            ratios in prop::collection::vec(-1.0f64..1.0, 0..20),
            shift in -2.0f64..2.0,
        ) {
            let negated: Vec<f64> = ratios.iter().map(|r| -r).collect();
            prop_assert_eq!(disturbed_rounds(&ratios), disturbed_rounds(&negated));
            // scaling one side by a constant shifts every log ratio alike
            let shifted: Vec<f64> = ratios.iter().map(|r| r + shift).collect();
            let (a, b) = (disturbed_rounds(&ratios), disturbed_rounds(&shifted));
            let differ = a.iter().zip(&b).filter(|(x, y)| x != y).count();
            // floating-point rounding may move a value sitting on the limit, nothing more
            prop_assert!(differ <= 1, "{a:?} {b:?}");
        }
    }
}
