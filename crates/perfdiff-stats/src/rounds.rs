//! Rounds as paired blocks: the interval that decides a comparison.
//!
//! Why: every round runs one fork of base and one of head in the same time slot and, with code
//! layouts, in the same layout index, whose layouts place the code both revisions share alike
//! (`crate::steps::build::layout`). What the machine did during that round, and where the layout put the code,
//! hit both sides; analysing them as two independent groups throws that pairing away and counts
//! the layout's effect as noise of the difference. So the unit of the analysis is the round: its
//! log ratio `ln(head / base)` (`docs/design/statistics.md`, "The interval that decides").
//!
//! Rounds that ran the same layout share its effect, so where a layout ran in several rounds its
//! rounds' log ratios are averaged first and the layouts are the units ([`Unit::Layouts`]); with
//! as many layouts as rounds (the default) every round is its own unit. What the interval is
//! about is then the change of the mean over the distribution of layouts (STABILIZER's argument),
//! and the layout's variance enters its standard error once.
//!
//! The interval is Student's t over the units' log ratios, `n − 1` degrees of freedom: exact for
//! normal units from two on, also when rounds are missing or were left out (fewer units, fewer
//! degrees of freedom); a percentile bootstrap over so few units covers far less than its level
//! (`tests/stats_simulation.rs`). "No relevant change" is shown by two one-sided tests at level
//! `alpha`, which amount to the `1 − 2·alpha` interval lying inside the band
//! ([`PairedRounds::equivalence_interval`]).
//!
//! Invariants: `ci_low ≤ estimate ≤ ci_high` for every interval; units with the same values give
//! the point interval of their ratio; swapping base and head negates every log ratio, so it
//! inverts the estimate and the interval exactly.

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, StudentsT};

use super::StatsError;
use super::descriptive::{mean, std_dev};

/// One round of a comparison: the log of head's value over base's, and the layout both ran.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Round {
    pub log_ratio: f64,
    /// The code layout of the round's forks; `None` when the run measured one layout.
    pub layout: Option<usize>,
}

/// What the units of the interval are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// One log ratio per round.
    Rounds,
    /// The mean log ratio of each layout's rounds (some layout ran in several rounds).
    Layouts,
}

impl Unit {
    pub fn as_str(self) -> &'static str {
        match self {
            Unit::Rounds => "rounds",
            Unit::Layouts => "layouts",
        }
    }
}

/// What an interval shows: a difference (`1 − alpha`, its two ends test "no change") or the
/// equivalence of two one-sided tests (`1 − 2·alpha`, inside the band means "no relevant change").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IntervalKind {
    Difference,
    Equivalence,
}

/// A `head / base` ratio with an interval. Invariant: `ci_low ≤ estimate ≤ ci_high`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RatioInterval {
    pub estimate: f64,
    pub ci_low: f64,
    pub ci_high: f64,
    /// The interval's level, e.g. 0.99.
    pub confidence: f64,
    pub kind: IntervalKind,
}

/// Student's t summary of the mean log ratio over a comparison's units.
///
/// Invariants: `n ≥ 2`, `rounds ≥ n`, `sd_log ≥ 0`, every field finite.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PairedRounds {
    pub unit: Unit,
    /// Units the interval rests on.
    pub n: usize,
    /// Rounds they came from.
    pub rounds: usize,
    /// Mean of the units' log ratios: the log of the estimated ratio.
    pub mean_log: f64,
    /// Standard deviation of the units' log ratios (`n − 1` in the denominator).
    pub sd_log: f64,
}

impl PairedRounds {
    /// The summary of `rounds`. Rounds whose log ratio is not finite are left out. Errors: fewer
    /// than two units remain (one round, or one layout, shows no spread to build an interval from).
    pub fn of(rounds: &[Round]) -> Result<PairedRounds, StatsError> {
        let finite: Vec<Round> = rounds
            .iter()
            .copied()
            .filter(|r| r.log_ratio.is_finite())
            .collect();
        let (unit, values) = units(&finite);
        if values.len() < 2 {
            return Err(StatsError::Empty(
                "paired rounds: fewer than two rounds (or layouts) with both sides",
            ));
        }
        Ok(PairedRounds {
            unit,
            n: values.len(),
            rounds: finite.len(),
            mean_log: mean(&values),
            sd_log: std_dev(&values),
        })
    }

    /// Degrees of freedom of the t interval: `n − 1`.
    pub fn df(&self) -> f64 {
        (self.n - 1) as f64
    }

    /// Standard error of the mean log ratio.
    pub fn se(&self) -> f64 {
        self.sd_log / (self.n as f64).sqrt()
    }

    /// The estimated ratio `head / base`: the geometric mean of the units' ratios.
    pub fn estimate(&self) -> f64 {
        self.mean_log.exp()
    }

    /// The two-sided interval at `confidence` (in (0, 1)).
    pub fn interval(&self, confidence: f64) -> RatioInterval {
        let half = self.quantile(1.0 - (1.0 - confidence) / 2.0) * self.se();
        self.ratio_interval(half, confidence, IntervalKind::Difference)
    }

    /// The interval of two one-sided tests at level `alpha`: the `1 − 2·alpha` interval. Inside
    /// `[1 − t, 1 + t]` it rejects both "head is at least `t` slower" and "at least `t` faster".
    pub fn equivalence_interval(&self, alpha: f64) -> RatioInterval {
        let half = self.quantile(1.0 - alpha) * self.se();
        self.ratio_interval(half, 1.0 - 2.0 * alpha, IntervalKind::Equivalence)
    }

    /// The two-sided p-value of "no change" (mean log ratio 0): the smallest alpha whose
    /// [`PairedRounds::interval`] excludes 1. With no spread, 0 for a change and 1 for none.
    pub fn p_value(&self) -> f64 {
        let se = self.se();
        if se == 0.0 {
            return if self.mean_log == 0.0 { 1.0 } else { 0.0 };
        }
        let t = (self.mean_log / se).abs();
        match StudentsT::new(0.0, 1.0, self.df()) {
            Ok(dist) => (2.0 * dist.sf(t)).min(1.0),
            Err(_) => f64::NAN,
        }
    }

    /// Units needed for a two-sided test at `alpha` to detect a change of `change` (relative)
    /// with probability `power` at this spread ([`super::power`]).
    pub fn units_needed(&self, change: f64, alpha: f64, power: f64) -> usize {
        super::power::units_needed(self.sd_log, change, alpha, power)
    }

    /// The quantile of the t distribution with `n − 1` degrees of freedom at `p`.
    fn quantile(&self, p: f64) -> f64 {
        StudentsT::new(0.0, 1.0, self.df()).map_or(f64::NAN, |dist| dist.inverse_cdf(p))
    }

    fn ratio_interval(&self, half: f64, confidence: f64, kind: IntervalKind) -> RatioInterval {
        // A zero spread gives a point interval, also where the quantile is infinite.
        let half = if self.sd_log == 0.0 { 0.0 } else { half };
        RatioInterval {
            estimate: self.estimate(),
            ci_low: (self.mean_log - half).exp(),
            ci_high: (self.mean_log + half).exp(),
            confidence,
            kind,
        }
    }
}

/// `rounds` without the one whose log ratio lies farthest from their median, when there are at
/// least three: what the rounds would show once one disturbance among them is left out
/// ([`super::disturbed`] leaves such rounds out only from more rounds on, and only beyond a
/// strict limit). The `decided` stop rule judges futility on these, so as not to give up a
/// benchmark because of one round that later looks would leave out; of three rounds the two
/// closest are left.
pub fn without_farthest(rounds: &[Round]) -> Vec<Round> {
    let finite: Vec<f64> = rounds
        .iter()
        .map(|r| r.log_ratio)
        .filter(|v| v.is_finite())
        .collect();
    if finite.len() < 3 {
        return rounds.to_vec();
    }
    let centre = super::descriptive::median(&finite);
    let farthest = rounds
        .iter()
        .enumerate()
        .filter(|(_, r)| r.log_ratio.is_finite())
        .max_by(|a, b| {
            (a.1.log_ratio - centre)
                .abs()
                .total_cmp(&(b.1.log_ratio - centre).abs())
        })
        .map(|(at, _)| at);
    rounds
        .iter()
        .enumerate()
        .filter(|(at, _)| Some(*at) != farthest)
        .map(|(_, r)| *r)
        .collect()
}

/// The units of `rounds`: their log ratios, or, when some layout ran in more than one of them,
/// the mean log ratio of each layout's rounds in the order the layouts first appear. Rounds
/// without a layout are their own units.
fn units(rounds: &[Round]) -> (Unit, Vec<f64>) {
    let mut layouts: Vec<(usize, Vec<f64>)> = Vec::new();
    let mut repeated = false;
    for round in rounds {
        let Some(layout) = round.layout else {
            return (Unit::Rounds, rounds.iter().map(|r| r.log_ratio).collect());
        };
        match layouts.iter_mut().find(|(l, _)| *l == layout) {
            Some((_, values)) => {
                values.push(round.log_ratio);
                repeated = true;
            }
            None => layouts.push((layout, vec![round.log_ratio])),
        }
    }
    if !repeated {
        return (Unit::Rounds, rounds.iter().map(|r| r.log_ratio).collect());
    }
    (
        Unit::Layouts,
        layouts.iter().map(|(_, values)| mean(values)).collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rounds(ratios: &[f64]) -> Vec<Round> {
        ratios
            .iter()
            .map(|r| Round {
                log_ratio: r.ln(),
                layout: None,
            })
            .collect()
    }

    #[test]
    fn matches_scipy_one_sample_t() {
        // scipy.stats.ttest_1samp(np.log([1.1, 1.12, 1.09, 1.13]), 0) and
        // scipy.stats.t.interval(0.99, 3, loc=mean, scale=sem), exponentiated.
        let paired = PairedRounds::of(&rounds(&[1.1, 1.12, 1.09, 1.13])).unwrap();
        assert_eq!((paired.n, paired.rounds, paired.unit), (4, 4, Unit::Rounds));
        let ci = paired.interval(0.99);
        assert!((ci.ci_low - 1.057_828).abs() < 1e-5, "{ci:?}");
        assert!((ci.ci_high - 1.164_509).abs() < 1e-5, "{ci:?}");
        assert!(
            (paired.p_value() - 0.001_058_96).abs() < 1e-7,
            "{}",
            paired.p_value()
        );
    }

    #[test]
    fn the_equivalence_interval_is_the_one_of_twice_alpha() {
        let paired = PairedRounds::of(&rounds(&[1.01, 0.99, 1.005, 0.998, 1.002])).unwrap();
        let tost = paired.equivalence_interval(0.01);
        let plain = paired.interval(0.98);
        assert_eq!(tost.confidence, 0.98);
        assert!((tost.ci_low - plain.ci_low).abs() < 1e-15);
        assert!((tost.ci_high - plain.ci_high).abs() < 1e-15);
        assert_eq!(tost.kind, IntervalKind::Equivalence);
        assert!(paired.interval(0.99).ci_high > tost.ci_high);
    }

    #[test]
    fn a_layout_run_in_several_rounds_counts_once() {
        let round = |ratio: f64, layout| Round {
            log_ratio: f64::ln(ratio),
            layout: Some(layout),
        };
        let paired = PairedRounds::of(&[
            round(1.1, 0),
            round(1.2, 1),
            round(1.1, 0),
            round(1.2, 1),
            round(1.3, 2),
        ])
        .unwrap();
        assert_eq!(
            (paired.unit, paired.n, paired.rounds),
            (Unit::Layouts, 3, 5)
        );
        let expected = (1.1f64.ln() + 1.2f64.ln() + 1.3f64.ln()) / 3.0;
        assert!((paired.mean_log - expected).abs() < 1e-12);
        // every round its own layout: rounds are the units
        let distinct = [round(1.1, 0), round(1.2, 1), round(1.3, 2)];
        assert_eq!(PairedRounds::of(&distinct).unwrap().unit, Unit::Rounds);
    }

    #[test]
    fn the_farthest_round_goes_from_three_on() {
        let four = rounds(&[1.1, 1.11, 1.5, 1.09]);
        let left = without_farthest(&four);
        assert_eq!(left.len(), 3);
        assert!(left.iter().all(|r| r.log_ratio < 1.2f64.ln()));
        // Of three, the two closest stay.
        assert_eq!(without_farthest(&four[..3]), four[..2].to_vec());
        assert_eq!(without_farthest(&four[..2]), four[..2].to_vec());
    }

    #[test]
    fn fewer_than_two_units_give_no_interval() {
        assert!(PairedRounds::of(&rounds(&[1.1])).is_err());
        assert!(PairedRounds::of(&rounds(&[1.1, f64::NAN])).is_err());
        let one_layout = [0, 0, 0].map(|_| Round {
            log_ratio: 0.1,
            layout: Some(3),
        });
        assert!(PairedRounds::of(&one_layout).is_err());
    }

    #[test]
    fn identical_rounds_give_a_point_interval() {
        let paired = PairedRounds::of(&rounds(&[1.05, 1.05])).unwrap();
        let ci = paired.interval(0.999);
        assert!((ci.ci_low - 1.05).abs() < 1e-12 && (ci.ci_high - 1.05).abs() < 1e-12);
        assert_eq!(paired.p_value(), 0.0);
        let same = PairedRounds::of(&rounds(&[1.0, 1.0, 1.0])).unwrap();
        assert_eq!(same.p_value(), 1.0);
    }

    #[test]
    fn swapping_sides_inverts_the_interval() {
        let ratios = [1.1, 1.05, 1.2, 0.98];
        let inverse: Vec<f64> = ratios.iter().map(|r| 1.0 / r).collect();
        let (a, b) = (
            PairedRounds::of(&rounds(&ratios)).unwrap().interval(0.99),
            PairedRounds::of(&rounds(&inverse)).unwrap().interval(0.99),
        );
        assert!((a.estimate * b.estimate - 1.0).abs() < 1e-12);
        assert!((a.ci_low * b.ci_high - 1.0).abs() < 1e-12);
        assert!((a.ci_high * b.ci_low - 1.0).abs() < 1e-12);
    }

    proptest::proptest! {
        /// One round moved far beyond the others is the one left out, whatever the others and
        /// on either side: what is left is the others, in order, so their summary is the one a
        /// verdict judged on them gets (the `decided` rule's early changes and its futility).
        #[test]
        fn a_far_round_is_the_one_left_out(
            logs in proptest::collection::vec(-0.05f64..0.05, 3..10),
            outlier in 0.2f64..2.0,
            below in proptest::bool::ANY,
            at in 0usize..10,
        ) {
            let far = if below { -outlier } else { outlier };
            let others: Vec<Round> = logs
                .iter()
                .map(|&l| Round { log_ratio: l, layout: None })
                .collect();
            let mut all = others.clone();
            all.insert(at.min(others.len()), Round { log_ratio: far, layout: None });
            proptest::prop_assert_eq!(without_farthest(&all), others.clone());
            let (left, kept) = (PairedRounds::of(&without_farthest(&all)).unwrap(), PairedRounds::of(&others).unwrap());
            proptest::prop_assert_eq!(left, kept);
        }
    }
}
