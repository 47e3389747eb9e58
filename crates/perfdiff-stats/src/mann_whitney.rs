//! Two-sided Mann–Whitney U test, as `scipy.stats.mannwhitneyu(head, base, method="auto")`.
//!
//! The rank test the verdict's significance gate uses (Peass found it the most efficient test for
//! benchmark data, 004 section II). It is reproduced from scipy 1.17's `_mannwhitneyu.py` so a
//! user can re-check any p-value in one line of Python:
//!
//! - ranks: average ranks of the pooled sample (ties share the mean of their ranks), found by one
//!   sort, O((n+m) log(n+m)); `U_head = R_head − n_head(n_head+1)/2`.
//! - method: **exact** when one sample has at most 8 values and the pooled sample has no ties,
//!   else **asymptotic** (scipy's `_mwu_choose_method`; "both larger than 8" wins over ties).
//! - exact: the null distribution of U, i.e. the coefficients of the Gaussian binomial
//!   `[n+m choose min(n,m)]_q`, computed exactly in 128-bit integers (in f64 beyond that range);
//!   `p = 2·P(U ≤ n·m − max(U_head, U_base))`.
//! - asymptotic: `z = (max(U_head, U_base) − n·m/2 − 0.5) / σ` with the tie-corrected
//!   `σ² = n·m/12·((N+1) − Σ(t³−t)/(N(N−1)))`, `p = 2·Φ(−z)`.
//! - `p` is clipped to `[0, 1]` (the exact two-sided p exceeds 1 at `U = n·m/2`).
use serde::{Deserialize, Serialize};
use statrs::function::erf::erfc;

use super::StatsError;
use super::cliffs::check_sample;

/// Which null distribution gave the p-value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    Exact,
    Asymptotic,
}

/// U of the head sample and the two-sided p-value. Invariant: `U_head + U_base = n·m`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MannWhitney {
    pub u: f64,
    pub p_value: f64,
    pub method: Method,
}

/// Largest sample size for which scipy (and so this function) uses the exact distribution.
const EXACT_MAX_SMALLER_SIZE: usize = 8;

/// Two-sided test of "head and base come from the same distribution"; `u` is U of head.
///
/// Errors: an empty side, or a NaN/infinite value.
pub fn mann_whitney_u(base: &[f64], head: &[f64]) -> Result<MannWhitney, StatsError> {
    check_sample(base, "Mann–Whitney U: base sample")?;
    check_sample(head, "Mann–Whitney U: head sample")?;
    let ranks = rank_head(base, head);
    let (n_head, n_base) = (head.len() as f64, base.len() as f64);
    let u_head = ranks.head_rank_sum - n_head * (n_head + 1.0) / 2.0;
    let u_max = u_head.max(n_head * n_base - u_head);
    let method = choose_method(head.len(), base.len(), ranks.has_ties);
    let p_value = match method {
        Method::Exact => exact_two_sided(head.len(), base.len(), u_max),
        Method::Asymptotic => asymptotic_two_sided(n_head, n_base, u_max, ranks.tie_term),
    };
    Ok(MannWhitney {
        u: u_head,
        p_value: p_value.clamp(0.0, 1.0),
        method,
    })
}

fn choose_method(n_head: usize, n_base: usize, has_ties: bool) -> Method {
    let both_large = n_head > EXACT_MAX_SMALLER_SIZE && n_base > EXACT_MAX_SMALLER_SIZE;
    if both_large || has_ties {
        Method::Asymptotic
    } else {
        Method::Exact
    }
}

struct Ranks {
    /// Sum of the (average) ranks of the head values in the pooled sample, ranks from 1.
    head_rank_sum: f64,
    /// `Σ (t³ − t)` over groups of `t` tied values.
    tie_term: f64,
    has_ties: bool,
}

fn rank_head(base: &[f64], head: &[f64]) -> Ranks {
    let mut pooled: Vec<(f64, bool)> = head.iter().map(|&v| (v, true)).collect();
    pooled.extend(base.iter().map(|&v| (v, false)));
    pooled.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
    let mut ranks = Ranks {
        head_rank_sum: 0.0,
        tie_term: 0.0,
        has_ties: false,
    };
    let mut start = 0;
    while start < pooled.len() {
        // `==` rather than total_cmp so that −0.0 and 0.0 tie, as in numpy.
        let end = start
            + pooled[start..]
                .iter()
                .take_while(|p| p.0 == pooled[start].0)
                .count();
        let tied = (end - start) as f64;
        let average_rank = (start + 1 + end) as f64 / 2.0;
        let heads_in_group = pooled[start..end].iter().filter(|p| p.1).count() as f64;
        ranks.head_rank_sum += heads_in_group * average_rank;
        if end - start > 1 {
            ranks.has_ties = true;
            ranks.tie_term += tied * tied * tied - tied;
        }
        start = end;
    }
    ranks
}

/// `2·Φ(−z)` with scipy's tie-corrected standard deviation and continuity correction.
fn asymptotic_two_sided(n1: f64, n2: f64, u_max: f64, tie_term: f64) -> f64 {
    let n = n1 + n2;
    let sigma = (n1 * n2 / 12.0 * ((n + 1.0) - tie_term / (n * (n - 1.0)))).sqrt();
    let z = (u_max - n1 * n2 / 2.0 - 0.5) / sigma;
    // All values tied: sigma = 0 and z = −inf, p = 2 (clipped to 1), as scipy.
    2.0 * standard_normal_sf(z)
}

/// `1 − Φ(z)`, accurate far into the upper tail.
fn standard_normal_sf(z: f64) -> f64 {
    if z.is_nan() {
        return f64::NAN;
    }
    0.5 * erfc(z / std::f64::consts::SQRT_2)
}

/// `2·P(U ≤ n1·n2 − u_max)` under the exact null distribution (no ties).
fn exact_two_sided(n1: usize, n2: usize, u_max: f64) -> f64 {
    let (small, large) = (n1.min(n2), n1.max(n2));
    let lower_tail = (small * large) as f64 - u_max;
    let k = lower_tail.round() as usize;
    match binomial_u128(small + large, small) {
        Some(total) => {
            let counts = u_counts_u128(small, large, k);
            2.0 * (counts.iter().sum::<u128>() as f64 / total as f64)
        }
        None => {
            let counts = u_counts_f64(small, large, k);
            let total = (1..=small).fold(1.0, |acc, i| acc * (large + i) as f64 / i as f64);
            2.0 * counts.iter().sum::<f64>() / total
        }
    }
}

/// `C(n, k)` exactly, or None when it does not fit in 127 bits.
fn binomial_u128(n: usize, k: usize) -> Option<u128> {
    let mut c: u128 = 1;
    for i in 1..=k as u128 {
        c = c.checked_mul(n as u128 - k as u128 + i)? / i;
        if c > u128::MAX / 2 {
            return None;
        }
    }
    Some(c)
}

/// Number of arrangements with `U = 0..=max_u`: the first coefficients of the Gaussian binomial
/// `Π_{i=1..small} (1 − q^{large+i}) / (1 − q^i)`. Arithmetic is modulo 2^128 (a ring
/// homomorphism), so the result is exact whenever the true coefficients fit, which the caller
/// has checked through the total.
fn u_counts_u128(small: usize, large: usize, max_u: usize) -> Vec<u128> {
    let mut c = vec![0u128; max_u + 1];
    c[0] = 1;
    for i in 1..=small {
        for k in i..=max_u {
            c[k] = c[k].wrapping_add(c[k - i]);
        }
        let shift = large + i;
        for k in (shift..=max_u).rev() {
            c[k] = c[k].wrapping_sub(c[k - shift]);
        }
    }
    c
}

/// [`u_counts_u128`] in floating point, for totals beyond 2^127 (a sample larger than ~10^5).
fn u_counts_f64(small: usize, large: usize, max_u: usize) -> Vec<f64> {
    let mut c = vec![0f64; max_u + 1];
    c[0] = 1.0;
    for i in 1..=small {
        for k in i..=max_u {
            c[k] += c[k - i];
        }
        let shift = large + i;
        for k in (shift..=max_u).rev() {
            c[k] -= c[k - shift];
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scipy_docstring_example() {
        // males = [19, 22, 16, 29, 24], females = [20, 11, 17, 12]
        let r = mann_whitney_u(&[20.0, 11.0, 17.0, 12.0], &[19.0, 22.0, 16.0, 29.0, 24.0]).unwrap();
        assert_eq!(r.u, 17.0);
        assert_eq!(r.method, Method::Exact);
        assert!((r.p_value - 0.1111111111111111).abs() < 1e-15);
    }

    #[test]
    fn exact_counts_are_the_gaussian_binomial() {
        // [4 choose 2]_q = 1 + q + 2q² + q³ + q⁴
        assert_eq!(u_counts_u128(2, 2, 4), vec![1, 1, 2, 1, 1]);
        let f = u_counts_f64(2, 2, 4);
        assert_eq!(f, vec![1.0, 1.0, 2.0, 1.0, 1.0]);
    }

    #[test]
    fn float_counts_agree_with_exact_counts() {
        let exact = u_counts_u128(8, 400, 1600);
        let float = u_counts_f64(8, 400, 1600);
        for (e, f) in exact.iter().zip(&float) {
            assert!((*e as f64 - f).abs() <= 1e-12 * *e as f64, "{e} vs {f}");
        }
    }

    #[test]
    fn identical_samples_give_p_one() {
        let r = mann_whitney_u(&[1.0; 20], &[1.0; 20]).unwrap();
        assert_eq!((r.u, r.p_value, r.method), (200.0, 1.0, Method::Asymptotic));
    }
}
