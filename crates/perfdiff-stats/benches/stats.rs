//! Criterion benchmarks of the statistics engine at the sizes the project cares about:
//! the bootstrap at 10,000 resamples on 2 × 30 forks × 100 samples, Mann–Whitney U and Cliff's
//! delta on 2 × 100,000 values, the KLD probability on 10,000 values, and one stop-rule checkpoint.
//! (`scripts/bench_stats_vs_numpy.py` compares the same analyses with numpy/scipy.)
use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use perfdiff_stats::BootstrapConfig;
use perfdiff_stats::bootstrap::ratio_of_means;
use perfdiff_stats::cliffs::cliffs_delta;
use perfdiff_stats::mann_whitney::mann_whitney_u;
use perfdiff_stats::stability::{
    Criterion as StopCriterion, kld_probability, latest_prefix_values,
};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Log-normal-ish positive values around `level` (sum of uniforms: cheap and smooth enough).
fn values(rng: &mut Xoshiro256PlusPlus, count: usize, level: f64) -> Vec<f64> {
    (0..count)
        .map(|_| {
            let noise: f64 = (0..4).map(|_| rng.random::<f64>() - 0.5).sum();
            level * (0.05 * noise).exp()
        })
        .collect()
}

fn forks(rng: &mut Xoshiro256PlusPlus, level: f64) -> Vec<Vec<f64>> {
    (0..30)
        .map(|_| {
            let fork_level = level * (1.0 + 0.02 * (rng.random::<f64>() - 0.5));
            values(rng, 100, fork_level)
        })
        .collect()
}

fn bench_stats(c: &mut Criterion) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    let (base, head) = (forks(&mut rng, 1000.0), forks(&mut rng, 1030.0));
    let config = BootstrapConfig {
        confidence: 0.99,
        resamples: 10_000,
        seed: 1,
    };
    let mut group = c.benchmark_group("stats");
    group.sample_size(20);
    group.bench_function("bootstrap_10k_2x30x100", |b| {
        b.iter(|| ratio_of_means(black_box(&base), black_box(&head), &config))
    });
    let (u_base, u_head) = (
        values(&mut rng, 100_000, 1.0),
        values(&mut rng, 100_000, 1.002),
    );
    group.bench_function("mann_whitney_2x100k", |b| {
        b.iter(|| mann_whitney_u(black_box(&u_base), black_box(&u_head)))
    });
    group.bench_function("cliffs_delta_2x100k", |b| {
        b.iter(|| cliffs_delta(black_box(&u_base), black_box(&u_head)))
    });
    let kld = values(&mut rng, 10_000, 20.0);
    group.bench_function("kld_9k_vs_10k", |b| {
        b.iter(|| kld_probability(black_box(&kld[..9000]), black_box(&kld)))
    });
    let rounds: Vec<Vec<f64>> = base[..10].to_vec();
    for criterion in [StopCriterion::Cv, StopCriterion::Rciw, StopCriterion::Kld] {
        group.bench_function(format!("checkpoint_{criterion:?}_10x100_window5"), |b| {
            b.iter(|| latest_prefix_values(criterion, black_box(&rounds), 7, 5))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_stats);
criterion_main!(benches);
