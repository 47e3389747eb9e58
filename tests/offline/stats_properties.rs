//! Properties every input must satisfy (proptest, fixed RNG seed so CI runs are reproducible).
use cargo_perfdiff::stats::bootstrap::{mean_ci_relative_width, ratio_of_means};
use cargo_perfdiff::stats::cliffs::cliffs_delta;
use cargo_perfdiff::stats::duet::{DuetRun, duet_ratio};
use cargo_perfdiff::stats::fdr::benjamini_hochberg;
use cargo_perfdiff::stats::mann_whitney::mann_whitney_u;
use cargo_perfdiff::stats::stability::kld_probability;
use cargo_perfdiff::stats::verdict::decide;
use cargo_perfdiff::stats::{
    BootstrapConfig, Decision, Evidence, IntervalKind, Levels, PairedRounds, Resampling, Round,
    Verdict,
};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;

fn config(resamples: usize, seed: u64) -> BootstrapConfig {
    BootstrapConfig {
        confidence: 0.9,
        resamples,
        seed,
    }
}

/// 1..6 forks of 1..12 positive values each.
fn forks() -> impl Strategy<Value = Vec<Vec<f64>>> {
    prop::collection::vec(prop::collection::vec(1.0f64..100.0, 1..12), 1..6)
}

fn flat() -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(0.5f64..50.0, 1..40)
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * a.abs().max(b.abs())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 64,
        rng_seed: RngSeed::Fixed(0x5eed),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn ci_contains_estimate(base in forks(), head in forks(), seed in any::<u64>()) {
        let r = ratio_of_means(&base, &head, &config(300, seed)).unwrap();
        prop_assert!(r.ci_low <= r.estimate && r.estimate <= r.ci_high, "{r:?}");
        let expected = if base.len().min(head.len()) >= 2 {
            Resampling::Hierarchical
        } else {
            Resampling::IterationsOnly
        };
        prop_assert_eq!(r.resampling, expected);
        prop_assert!(mean_ci_relative_width(&base, &config(300, seed)).unwrap() >= 0.0);
    }

    /// The estimate inverts exactly (up to one rounding). The CI inverts only approximately:
    /// swapping changes which random draws go to which side (different Monte Carlo noise), and
    /// interpolated percentiles of 1/x are not exactly 1/percentiles of x. So the check is, in
    /// log space, that the swapped interval matches the inverted one to a fraction of its width.
    #[test]
    fn swapping_sides_inverts_the_ratio(base in forks(), head in forks(), seed in any::<u64>()) {
        let ab = ratio_of_means(&base, &head, &config(4000, seed)).unwrap();
        let ba = ratio_of_means(&head, &base, &config(4000, seed)).unwrap();
        prop_assert!(close(ab.estimate, 1.0 / ba.estimate, 1e-14));
        let width = ab.ci_high.ln() - ab.ci_low.ln();
        let tolerance = 0.2 * width + 1e-12;
        prop_assert!((ab.ci_low.ln() + ba.ci_high.ln()).abs() <= tolerance, "{ab:?} {ba:?}");
        prop_assert!((ab.ci_high.ln() + ba.ci_low.ln()).abs() <= tolerance, "{ab:?} {ba:?}");
    }

    #[test]
    fn swapping_sides_negates_delta_and_complements_u(base in flat(), head in flat()) {
        let d = cliffs_delta(&base, &head).unwrap().delta;
        prop_assert_eq!(cliffs_delta(&head, &base).unwrap().delta, -d);
        let u_head = mann_whitney_u(&base, &head).unwrap();
        let u_base = mann_whitney_u(&head, &base).unwrap();
        prop_assert_eq!(u_head.u + u_base.u, (base.len() * head.len()) as f64);
        prop_assert!(close(u_head.p_value, u_base.p_value, 1e-12));
        prop_assert!((0.0..=1.0).contains(&u_head.p_value));
    }

    /// Multiplying every value by one constant changes units, not results. Sizes are unchanged,
    /// so the bootstrap draws the same indices and the CI scales away up to rounding.
    #[test]
    fn scaling_changes_nothing(
        base in forks(),
        head in forks(),
        scale in prop::sample::select(vec![1e-6, 0.37, 3.0, 1e3, 1e9]),
    ) {
        let scaled = |forks: &[Vec<f64>]| -> Vec<Vec<f64>> {
            forks.iter().map(|f| f.iter().map(|v| v * scale).collect()).collect()
        };
        let (base_s, head_s) = (scaled(&base), scaled(&head));
        let r = ratio_of_means(&base, &head, &config(300, 1)).unwrap();
        let s = ratio_of_means(&base_s, &head_s, &config(300, 1)).unwrap();
        prop_assert!(close(r.estimate, s.estimate, 1e-12));
        prop_assert!(close(r.ci_low, s.ci_low, 1e-12) && close(r.ci_high, s.ci_high, 1e-12));
        let (b, h, bs, hs) = (base.concat(), head.concat(), base_s.concat(), head_s.concat());
        prop_assert_eq!(cliffs_delta(&b, &h).unwrap(), cliffs_delta(&bs, &hs).unwrap());
        let (u, us) = (mann_whitney_u(&b, &h).unwrap(), mann_whitney_u(&bs, &hs).unwrap());
        prop_assert_eq!(u.u, us.u);
        prop_assert!(close(u.p_value, us.p_value, 1e-12));
    }

    #[test]
    fn kld_of_identical_data_is_one(values in prop::collection::vec(1.0f64..2.0, 1..200)) {
        prop_assert_eq!(kld_probability(&values, &values), 1.0);
        let shifted: Vec<f64> = values.iter().map(|v| v + 0.3).collect();
        let p = kld_probability(&values, &shifted);
        prop_assert!((0.0..=1.0).contains(&p), "{p}");
    }

    #[test]
    fn bh_q_values_are_monotone_and_bounded(p in prop::collection::vec(0.0f64..=1.0, 0..60)) {
        let q = benjamini_hochberg(&p);
        for i in 0..p.len() {
            prop_assert!(q[i] >= p[i] && q[i] <= 1.0);
            for j in 0..p.len() {
                if p[i] < p[j] {
                    prop_assert!(q[i] <= q[j]);
                }
            }
        }
    }

    #[test]
    fn duet_ci_contains_estimate(
        runs in prop::collection::vec(prop::collection::vec((1.0f64..10.0, 1.0f64..10.0), 1..15), 1..6),
        seed in any::<u64>(),
    ) {
        let runs: Vec<DuetRun> = runs
            .into_iter()
            .map(|pairs| DuetRun {
                base: pairs.iter().map(|p| p.0).collect(),
                head: pairs.iter().map(|p| p.1).collect(),
            })
            .collect();
        let r = duet_ratio(&runs, &config(300, seed)).unwrap();
        prop_assert!(r.ci_low <= r.estimate && r.estimate <= r.ci_high, "{r:?}");
    }
}

/// 2..12 rounds' log ratios, optionally each with one of 4 layouts.
fn rounds() -> impl Strategy<Value = Vec<Round>> {
    prop::collection::vec((-0.5f64..0.5, prop::option::of(0usize..4)), 2..12).prop_map(|pairs| {
        let with_layouts = pairs.iter().all(|(_, l)| l.is_some());
        pairs
            .into_iter()
            .map(|(log_ratio, layout)| Round {
                log_ratio,
                layout: if with_layouts { layout } else { None },
            })
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 128,
        rng_seed: RngSeed::Fixed(0x0f1a),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// The paired interval contains its estimate, the equivalence interval (`1 − 2α`) lies
    /// inside the difference interval (`1 − α`), and swapping base and head (negating every log
    /// ratio) inverts estimate and interval.
    #[test]
    fn paired_intervals_are_nested_and_swap_exactly(rounds in rounds(), alpha in 0.001f64..0.2) {
        let Ok(paired) = PairedRounds::of(&rounds) else { return Ok(()); };
        let difference = paired.interval(1.0 - alpha);
        let equivalence = paired.equivalence_interval(alpha);
        for r in [difference, equivalence] {
            prop_assert!(r.ci_low <= r.estimate && r.estimate <= r.ci_high, "{r:?}");
        }
        prop_assert!(difference.ci_low <= equivalence.ci_low + 1e-15);
        prop_assert!(equivalence.ci_high <= difference.ci_high + 1e-15);
        let swapped: Vec<Round> = rounds
            .iter()
            .map(|r| Round { log_ratio: -r.log_ratio, ..*r })
            .collect();
        let back = PairedRounds::of(&swapped).unwrap().interval(1.0 - alpha);
        prop_assert!(close(difference.estimate * back.estimate, 1.0, 1e-12));
        prop_assert!(close(difference.ci_low * back.ci_high, 1.0, 1e-12));
        prop_assert!(close(difference.ci_high * back.ci_low, 1.0, 1e-12));
    }

    /// Every verdict can be read off the interval it returns: `regressed` has its low end above
    /// 1 and the estimate past the threshold, `improved` the mirror image, `unchanged` the whole
    /// interval within `1 ± threshold`, at its own level `1 − 2·alpha_eq`; and a p-value below
    /// alpha is an interval without 1.
    #[test]
    fn every_verdict_agrees_with_its_interval(
        rounds in rounds(),
        alpha in 0.001f64..0.2,
        equivalence_alpha in 0.001f64..0.2,
        threshold in 0.0f64..0.1,
    ) {
        let Ok(paired) = PairedRounds::of(&rounds) else { return Ok(()); };
        let p = paired.p_value();
        let evidence = Evidence { paired, q_value: p };
        let levels = Levels { alpha, equivalence_alpha };
        let Decision { verdict, interval } = decide(&evidence, threshold, levels);
        let expected_kind = if verdict == Verdict::Unchanged {
            (IntervalKind::Equivalence, 1.0 - 2.0 * equivalence_alpha)
        } else {
            (IntervalKind::Difference, 1.0 - alpha)
        };
        prop_assert_eq!((interval.kind, interval.confidence), expected_kind);
        match verdict {
            Verdict::Regressed => {
                prop_assert!(interval.ci_low > 1.0 && interval.estimate - 1.0 >= threshold)
            }
            Verdict::Improved => {
                prop_assert!(interval.ci_high < 1.0 && 1.0 - interval.estimate >= threshold)
            }
            Verdict::Unchanged => prop_assert!(
                interval.ci_low >= 1.0 - threshold && interval.ci_high <= 1.0 + threshold
            ),
            Verdict::Inconclusive => {}
        }
        let excludes_one = {
            let i = paired.interval(1.0 - alpha);
            i.ci_low > 1.0 || i.ci_high < 1.0
        };
        if (p - alpha).abs() > 1e-9 && paired.sd_log > 0.0 {
            prop_assert_eq!(p < alpha, excludes_one, "p {}", p);
        }
    }
}

#[test]
fn results_do_not_depend_on_the_number_of_threads() {
    let base: Vec<Vec<f64>> = (0..7)
        .map(|f| {
            (0..50)
                .map(|i| 100.0 + ((f * 50 + i) as f64).sin() * 5.0)
                .collect()
        })
        .collect();
    let head: Vec<Vec<f64>> = base
        .iter()
        .map(|f| f.iter().map(|v| v * 1.03).collect())
        .collect();
    let cfg = config(3001, 42);
    let in_pool = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| {
                (
                    ratio_of_means(&base, &head, &cfg).unwrap(),
                    mean_ci_relative_width(&base, &cfg).unwrap(),
                )
            })
    };
    let one = in_pool(1);
    assert_eq!(one, in_pool(2));
    assert_eq!(one, in_pool(5));
    assert_ne!(
        one.0,
        ratio_of_means(&base, &head, &config(3001, 43)).unwrap()
    );
}
