//! The resampling engine under every bootstrap: seeded, parallel, and thread-count independent.
//!
//! Replicates are computed in fixed chunks of [`CHUNK`] resamples. Chunk `c` draws from its own
//! pair of xoshiro256++ generators seeded from `(seed, 2c)` and `(seed, 2c + 1)`, and the chunks'
//! results are concatenated in chunk order. Which thread runs a chunk therefore cannot change a single bit of the output:
//! the result depends on `(seed, resamples)` only, whether rayon has one thread or sixty-four.
use rand::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;

use super::StatsError;
use super::descriptive::quantile_sorted;

/// Resamples per independently seeded chunk: large enough that scheduling costs nothing, small
/// enough that 1,000 resamples still split across two cores.
pub(crate) const CHUNK: usize = 128;

/// The random source of one chunk: two independent xoshiro256++ generators. Drawing from both
/// in turn lets the CPU overlap their state updates (each generator is a serial dependency
/// chain), which nearly doubles the draw rate of the hot loop.
pub(crate) struct Stream {
    first: Xoshiro256PlusPlus,
    second: Xoshiro256PlusPlus,
}

impl Stream {
    #[inline(always)]
    fn next_u64(&mut self) -> u64 {
        self.first.next_u64()
    }

    #[inline(always)]
    fn next_pair(&mut self) -> (u64, u64) {
        (self.first.next_u64(), self.second.next_u64())
    }
}

/// The random source of chunk `chunk` for a computation seeded with `seed`.
pub(crate) fn chunk_rng(seed: u64, chunk: u64) -> Stream {
    Stream {
        first: Xoshiro256PlusPlus::seed_from_u64(mix(seed, 2 * chunk)),
        second: Xoshiro256PlusPlus::seed_from_u64(mix(seed, 2 * chunk + 1)),
    }
}

/// SplitMix64 finaliser over (seed, stream) so neighbouring seeds/streams are unrelated.
fn mix(seed: u64, stream: u64) -> u64 {
    let mut z = seed ^ stream.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Uniform index in `0..n` (n ≥ 1) by Lemire's multiply-shift; the bias, at most `n / 2^64`, is
/// far below anything a bootstrap can resolve.
#[inline(always)]
pub(crate) fn index(rng: &mut Stream, n: usize) -> usize {
    ((rng.next_u64() as u128 * n as u128) >> 64) as usize
}

/// `resamples` replicates of `statistic`, each call given the chunk's generator; in parallel,
/// identical for any number of threads.
pub(crate) fn replicates<F>(resamples: usize, seed: u64, statistic: F) -> Vec<f64>
where
    F: Fn(&mut Stream) -> f64 + Sync,
{
    let chunks = resamples.div_ceil(CHUNK);
    (0..chunks)
        .into_par_iter()
        .map(|chunk| {
            let mut rng = chunk_rng(seed, chunk as u64);
            let size = CHUNK.min(resamples - chunk * CHUNK);
            (0..size).map(|_| statistic(&mut rng)).collect::<Vec<f64>>()
        })
        .collect::<Vec<Vec<f64>>>()
        .concat()
}

/// Percentile interval `[q((1−c)/2), q((1+c)/2)]` of the replicates (type-7 quantiles), widened
/// to contain `estimate` if it falls outside (possible with skewed replicate distributions).
pub(crate) fn percentile_interval(
    mut replicates: Vec<f64>,
    confidence: f64,
    estimate: f64,
) -> (f64, f64) {
    replicates.sort_unstable_by(f64::total_cmp);
    let tail = (1.0 - confidence) / 2.0;
    let low = quantile_sorted(&replicates, tail);
    let high = quantile_sorted(&replicates, 1.0 - tail);
    (low.min(estimate), high.max(estimate))
}

/// Checks `confidence ∈ (0, 1)` and `resamples ≥ 1`.
pub(crate) fn check_parameters(confidence: f64, resamples: usize) -> Result<(), StatsError> {
    if !(confidence > 0.0 && confidence < 1.0) {
        return Err(StatsError::InvalidParameter(format!(
            "bootstrap confidence must lie in (0, 1), got {confidence}"
        )));
    }
    if resamples == 0 {
        return Err(StatsError::InvalidParameter(
            "bootstrap needs at least one resample".to_string(),
        ));
    }
    Ok(())
}

/// One side's data, validated: non-empty forks of finite positive values.
pub(crate) struct Side<'a> {
    forks: Vec<&'a [f64]>,
}

impl<'a> Side<'a> {
    /// Drops empty forks (they carry no measurement); errors if nothing is left or a value is
    /// not finite and positive.
    pub(crate) fn new(forks: &'a [Vec<f64>], what: &'static str) -> Result<Side<'a>, StatsError> {
        let forks: Vec<&[f64]> = forks
            .iter()
            .filter(|f| !f.is_empty())
            .map(Vec::as_slice)
            .collect();
        if forks.is_empty() {
            return Err(StatsError::Empty(what));
        }
        check_positive(forks.iter().flat_map(|f| f.iter()))?;
        Ok(Side { forks })
    }

    pub(crate) fn fork_count(&self) -> usize {
        self.forks.len()
    }

    /// Mean of the fork means on the full data: the point estimate.
    pub(crate) fn mean_of_fork_means(&self) -> f64 {
        let sum: f64 = self
            .forks
            .iter()
            .map(|f| f.iter().sum::<f64>() / f.len() as f64)
            .sum();
        sum / self.forks.len() as f64
    }

    /// One bootstrap replicate of the mean of fork means. Hierarchical: draw `F` forks with
    /// replacement, then `len(fork)` iterations with replacement inside each drawn fork.
    /// Iterations only: keep every fork, resample iterations inside it.
    #[inline]
    pub(crate) fn resampled_mean(&self, rng: &mut Stream, hierarchical: bool) -> f64 {
        let count = self.forks.len();
        let mut sum_of_means = 0.0;
        for position in 0..count {
            let fork = if hierarchical {
                self.forks[index(rng, count)]
            } else {
                self.forks[position]
            };
            sum_of_means += resampled_fork_sum(fork, rng) / fork.len() as f64;
        }
        sum_of_means / count as f64
    }
}

/// Sum of `fork.len()` values drawn with replacement from `fork`.
///
/// The hot loop of every bootstrap. Forks shorter than 2^32 draw two indices from each 64-bit
/// output (32-bit multiply-shift, bias at most `n / 2^32`, i.e. 2·10^-8 for 100 samples: far
/// below what a bootstrap resolves), four per step from the stream's two generators, into four
/// accumulators so neither the generators nor the additions wait on each other.
#[inline]
pub(crate) fn resampled_fork_sum(fork: &[f64], rng: &mut Stream) -> f64 {
    let n = fork.len();
    if n as u64 > u32::MAX as u64 {
        return (0..n).map(|_| fork[index(rng, n)]).sum();
    }
    let len = n as u64;
    let pick = |bits: u64| fork[((bits * len) >> 32) as usize];
    let mut acc = [0.0f64; 4];
    for _ in 0..n / 4 {
        let (a, b) = rng.next_pair();
        acc[0] += pick(a & 0xFFFF_FFFF);
        acc[1] += pick(a >> 32);
        acc[2] += pick(b & 0xFFFF_FFFF);
        acc[3] += pick(b >> 32);
    }
    for _ in 0..n % 4 {
        acc[0] += fork[index(rng, n)];
    }
    (acc[0] + acc[1]) + (acc[2] + acc[3])
}

/// Errors on the first value that is not finite and strictly positive.
pub(crate) fn check_positive<'v>(values: impl Iterator<Item = &'v f64>) -> Result<(), StatsError> {
    for &v in values {
        if !(v.is_finite() && v > 0.0) {
            return Err(StatsError::InvalidValue(v));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replicates_do_not_depend_on_thread_count() {
        let statistic = |rng: &mut Stream| index(rng, 1000) as f64;
        let many = replicates(1000, 7, statistic);
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap()
            .install(|| replicates(1000, 7, statistic));
        assert_eq!(many, one);
        assert_eq!(many.len(), 1000);
        assert_ne!(many, replicates(1000, 8, statistic));
    }

    #[test]
    fn index_stays_in_range() {
        let mut rng = chunk_rng(1, 2);
        for n in [1usize, 2, 3, 1000] {
            assert!((0..1000).all(|_| index(&mut rng, n) < n));
        }
    }
}
