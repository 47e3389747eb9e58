//! Scheduling forks: randomised rounds, and deterministic shards.
//!
//! Running every fork of base and then every fork of head lets a drift of the machine (a
//! neighbour, heat, a frequency change) look like a difference between them. So forks run in
//! *rounds*: each round runs one fork of each side of every active benchmark, the benchmarks in a
//! freshly shuffled order and the two sides in a random order (METHOD.md, "Interleaving").
//!
//! Every random choice comes from the run's seed and the round number, so a run is reproducible
//! and a resumed run continues with the same plan.

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

/// One side of the comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    Base,
    Head,
}

impl Side {
    pub fn as_str(self) -> &'static str {
        match self {
            Side::Base => "base",
            Side::Head => "head",
        }
    }
}

/// The forks of one benchmark within a round, in the order they run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slot {
    /// Index of the benchmark in the caller's list.
    pub benchmark: usize,
    /// Base and head in the order to run them (in duet mode: which side gets the first CPU).
    pub order: [Side; 2],
}

/// The plan of one round.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoundPlan {
    pub round: usize,
    pub slots: Vec<Slot>,
}

/// Plans round `round` for the `active` benchmarks: shuffled benchmarks, each with a random side
/// order. Deterministic in `(seed, round, active)`.
pub fn plan_round(seed: u64, round: usize, active: &[usize]) -> RoundPlan {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(mix(seed, round as u64));
    let mut benchmarks = active.to_vec();
    benchmarks.shuffle(&mut rng);
    let slots = benchmarks
        .into_iter()
        .map(|benchmark| {
            let mut order = [Side::Base, Side::Head];
            order.shuffle(&mut rng);
            Slot { benchmark, order }
        })
        .collect();
    RoundPlan { round, slots }
}

/// A shard `K/N` of a suite (1-based `K`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl std::str::FromStr for Shard {
    type Err = String;

    /// Parses `K/N` with `1 <= K <= N`.
    fn from_str(text: &str) -> Result<Self, String> {
        let invalid = || format!("invalid shard {text:?}: expected K/N with 1 <= K <= N, e.g. 1/3");
        let (k, n) = text.split_once('/').ok_or_else(invalid)?;
        let index: usize = k.trim().parse().map_err(|_| invalid())?;
        let count: usize = n.trim().parse().map_err(|_| invalid())?;
        if index == 0 || count == 0 || index > count {
            return Err(invalid());
        }
        Ok(Shard { index, count })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl Shard {
    /// Whether benchmark `id` belongs to this shard. Depends on the id alone (a stable FNV-1a
    /// hash), so every shard of a CI matrix agrees without coordination, and the union of all
    /// shards is exactly the suite.
    pub fn contains(&self, id: &str) -> bool {
        (crate::util::hash::fnv1a(id.as_bytes()) % self.count as u64) as usize == self.index - 1
    }
}

/// A seed for every run that did not ask for one: from the clock and the process id.
pub fn fresh_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    mix(nanos, u64::from(std::process::id()))
}

/// SplitMix64-style mixing of two words into one seed.
fn mix(a: u64, b: u64) -> u64 {
    let mut z = a ^ b
        .wrapping_add(0x9E37_79B9_7F4A_7C15)
        .wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_round_runs_each_active_benchmark_once_with_both_sides() {
        let plan = plan_round(7, 0, &[0, 2, 5]);
        let mut seen: Vec<usize> = plan.slots.iter().map(|s| s.benchmark).collect();
        seen.sort();
        assert_eq!(seen, vec![0, 2, 5]);
        for slot in &plan.slots {
            assert_ne!(slot.order[0], slot.order[1]);
        }
    }

    #[test]
    fn plans_are_reproducible_from_the_seed() {
        assert_eq!(
            plan_round(42, 3, &[0, 1, 2, 3]),
            plan_round(42, 3, &[0, 1, 2, 3])
        );
    }

    #[test]
    fn order_is_randomised_across_rounds() {
        let active: Vec<usize> = (0..8).collect();
        let firsts: std::collections::HashSet<_> = (0..20)
            .map(|r| plan_round(1, r, &active).slots[0].benchmark)
            .collect();
        assert!(
            firsts.len() > 1,
            "the first benchmark should vary between rounds"
        );
        let base_first = (0..200)
            .filter(|&r| plan_round(1, r, &[0]).slots[0].order[0] == Side::Base)
            .count();
        assert!(
            (60..140).contains(&base_first),
            "base first in {base_first} of 200 rounds"
        );
    }

    #[test]
    fn shards_partition_the_suite() {
        let ids: Vec<String> = (0..100).map(|i| format!("group/bench {i}")).collect();
        let shards: Vec<Shard> = (1..=3).map(|k| Shard { index: k, count: 3 }).collect();
        for id in &ids {
            assert_eq!(shards.iter().filter(|s| s.contains(id)).count(), 1, "{id}");
        }
        for shard in &shards {
            let n = ids.iter().filter(|id| shard.contains(id)).count();
            assert!(n > 15, "shard {shard} holds {n} of 100");
        }
    }

    #[test]
    fn shard_syntax_is_checked() {
        assert_eq!(
            "2/3".parse::<Shard>().unwrap(),
            Shard { index: 2, count: 3 }
        );
        for bad in ["0/3", "4/3", "3", "a/b", "1/0"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }
}
