//! The statistics against reference vectors computed by scipy/numpy
//! (`scripts/stats_reference.py`, committed as `fixtures/stats/*.json`; no Python needed here).
use std::path::PathBuf;

use cargo_perfdiff::stats::cliffs::cliffs_delta;
use cargo_perfdiff::stats::descriptive::quantile;
use cargo_perfdiff::stats::fdr::benjamini_hochberg;
use cargo_perfdiff::stats::mann_whitney::{Method, mann_whitney_u};
use cargo_perfdiff::stats::stability::{coefficient_of_variation, gaussian_kde, kld_probability};
use serde::Deserialize;

fn load<T: for<'de> Deserialize<'de>>(name: &str) -> T {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/stats")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `|actual − expected| ≤ rel·|expected|`, with an absolute floor for values that underflow.
fn assert_close(actual: f64, expected: f64, rel: f64, what: &str) {
    let tolerance = rel * expected.abs() + 1e-300;
    assert!(
        (actual - expected).abs() <= tolerance,
        "{what}: got {actual:e}, expected {expected:e} (relative error {:e})",
        ((actual - expected) / expected).abs()
    );
}

#[derive(Deserialize)]
struct MannWhitneyCase {
    name: String,
    base: Vec<f64>,
    head: Vec<f64>,
    u: f64,
    p: f64,
    method: String,
}

#[test]
fn mann_whitney_matches_scipy() {
    let cases: Vec<MannWhitneyCase> = load("mann_whitney.json");
    assert!(cases.len() >= 25);
    for case in cases {
        let result = mann_whitney_u(&case.base, &case.head).unwrap();
        assert_eq!(result.u, case.u, "{}: U", case.name);
        let method = match result.method {
            Method::Exact => "exact",
            Method::Asymptotic => "asymptotic",
        };
        assert_eq!(method, case.method, "{}: method", case.name);
        assert_close(result.p_value, case.p, 1e-9, &case.name);
    }
}

#[derive(Deserialize)]
struct BhCase {
    p: Vec<f64>,
    q: Vec<f64>,
}

#[test]
fn benjamini_hochberg_matches_scipy() {
    for case in load::<Vec<BhCase>>("benjamini_hochberg.json") {
        let q = benjamini_hochberg(&case.p);
        assert_eq!(q.len(), case.q.len());
        for (actual, expected) in q.iter().zip(&case.q) {
            assert_close(*actual, *expected, 1e-12, "BH q-value");
        }
    }
}

#[derive(Deserialize)]
struct KdeCase {
    name: String,
    data: Vec<f64>,
    points: Vec<f64>,
    density: Vec<f64>,
}

#[test]
fn kde_matches_scipy_gaussian_kde() {
    for case in load::<Vec<KdeCase>>("gaussian_kde.json") {
        let density = gaussian_kde(&case.data, &case.points);
        for (actual, expected) in density.iter().zip(&case.density) {
            assert_close(*actual, *expected, 1e-9, &case.name);
        }
    }
}

#[derive(Deserialize)]
struct KldCase {
    name: String,
    before: Vec<f64>,
    after: Vec<f64>,
    p: f64,
}

#[test]
fn kld_probability_matches_numpy_definition() {
    for case in load::<Vec<KldCase>>("kld.json") {
        let p = kld_probability(&case.before, &case.after);
        assert_close(p, case.p, 1e-9, &case.name);
        let swapped = kld_probability(&case.after, &case.before);
        assert_close(swapped, p, 1e-12, "KLD symmetry");
    }
}

#[derive(Deserialize)]
struct CliffsCase {
    base: Vec<f64>,
    head: Vec<f64>,
    delta: f64,
}

#[test]
fn cliffs_delta_matches_brute_force() {
    for case in load::<Vec<CliffsCase>>("cliffs_delta.json") {
        let d = cliffs_delta(&case.base, &case.head).unwrap();
        assert_eq!(d.delta, case.delta);
    }
}

#[derive(Deserialize)]
struct CvCase {
    values: Vec<f64>,
    cv: f64,
    quartiles: Vec<f64>,
}

#[test]
fn cv_and_quantiles_match_numpy() {
    for case in load::<Vec<CvCase>>("cv.json") {
        assert_close(coefficient_of_variation(&case.values), case.cv, 1e-12, "CV");
        for (q, expected) in [0.25, 0.5, 0.75].iter().zip(&case.quartiles) {
            assert_close(quantile(&case.values, *q), *expected, 1e-12, "quantile");
        }
    }
}

#[derive(Deserialize)]
struct PairedInterval {
    level: f64,
    low: f64,
    high: f64,
}

#[derive(Deserialize)]
struct Tost {
    threshold: f64,
    p: f64,
}

#[derive(Deserialize)]
struct PairedCase {
    log_ratios: Vec<f64>,
    p: f64,
    intervals: Vec<PairedInterval>,
    tost: Vec<Tost>,
}

/// The paired t over rounds against `scipy.stats.ttest_1samp` and `t.interval`, and its
/// equivalence interval against statsmodels' two one-sided tests: the `1 − 2·alpha` interval
/// lies inside `1 ± threshold` exactly when the TOST p-value is below alpha.
#[test]
fn paired_t_matches_scipy_and_statsmodels_tost() {
    use cargo_perfdiff::stats::{PairedRounds, Round};
    let cases: Vec<PairedCase> = load("paired_t.json");
    assert!(cases.len() >= 9);
    for (i, case) in cases.iter().enumerate() {
        let rounds: Vec<Round> = case
            .log_ratios
            .iter()
            .map(|&log_ratio| Round {
                log_ratio,
                layout: None,
            })
            .collect();
        let paired = PairedRounds::of(&rounds).unwrap();
        let what = format!("case {i}");
        assert_close(paired.p_value(), case.p, 1e-9, &what);
        for interval in &case.intervals {
            let ours = paired.interval(interval.level);
            assert_close(ours.ci_low, interval.low, 1e-10, &what);
            assert_close(ours.ci_high, interval.high, 1e-10, &what);
        }
        for tost in &case.tost {
            for alpha in [0.005, 0.01, 0.05, 0.1] {
                let eq = paired.equivalence_interval(alpha);
                let inside =
                    eq.ci_low >= 1.0 - tost.threshold && eq.ci_high <= 1.0 + tost.threshold;
                // Skip a p-value within rounding of alpha, where either answer is right.
                if (tost.p - alpha).abs() > 1e-9 {
                    assert_eq!(
                        inside,
                        tost.p < alpha,
                        "{what}: threshold {} alpha {alpha}: TOST p {}",
                        tost.threshold,
                        tost.p
                    );
                }
            }
        }
    }
}

#[derive(Deserialize)]
struct ComponentsCase {
    groups: Vec<Vec<f64>>,
    f: f64,
    p: f64,
    ms_within: f64,
    ms_between: f64,
    n0: f64,
    between: f64,
}

#[test]
fn variance_components_match_scipy_f_oneway_and_numpy() {
    use cargo_perfdiff::stats::components::{
        components_of_means, one_way_random_effects, weighted_group,
    };
    let cases: Vec<ComponentsCase> = load("variance_components.json");
    assert!(cases.len() >= 6);
    for (i, case) in cases.iter().enumerate() {
        let what = |name: &str| format!("case {i}: {name}");
        let c = one_way_random_effects(&case.groups).unwrap();
        assert_close(c.within, case.ms_within, 1e-9, &what("MSW"));
        assert_close(c.ms_between, case.ms_between, 1e-9, &what("MSB"));
        assert_close(c.n0, case.n0, 1e-12, &what("n0"));
        assert_close(c.f_statistic(), case.f, 1e-9, &what("F"));
        assert_close(c.p_value(), case.p, 1e-6, &what("p"));
        if case.between == 0.0 {
            assert_eq!(c.between, 0.0, "{}", what("between"));
        } else {
            assert_close(c.between, case.between, 1e-9, &what("between"));
        }
        // With equal weights, the moments of the group means give the same test.
        let means: Vec<_> = case
            .groups
            .iter()
            .map(|g| weighted_group(g, &vec![1.0; g.len()]).unwrap())
            .collect();
        if case.groups.iter().all(|g| g.len() == case.groups[0].len()) {
            let m = components_of_means(&[means]).unwrap();
            assert_close(m.f_statistic, case.f, 1e-9, &what("F of the means"));
            assert_close(m.p_value, case.p, 1e-6, &what("p of the means"));
        }
    }
}
