//! Times the statistics engine on the inputs of `scripts/bench_stats_vs_numpy.py` and prints the
//! timings and results as one JSON object on stdout.
//!
//! `cargo run --release --example stats_timing -- DIR` reads little-endian f64 files written by
//! the script: `base_forks.f64`/`head_forks.f64` (30 forks × 100 samples each, row by row),
//! `u_base.f64`/`u_head.f64` (100,000 values each), `kld.f64` (10,000 values). Timings are the
//! best of several repetitions, in seconds.
use std::path::Path;
use std::time::Instant;

use cargo_perfdiff::stats::BootstrapConfig;
use cargo_perfdiff::stats::bootstrap::ratio_of_means;
use cargo_perfdiff::stats::cliffs::cliffs_delta;
use cargo_perfdiff::stats::mann_whitney::mann_whitney_u;
use cargo_perfdiff::stats::stability::kld_probability;

const FORKS: usize = 30;
const REPETITIONS: usize = 5;

fn read_f64(dir: &Path, name: &str) -> Vec<f64> {
    let path = dir.join(name);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    bytes
        .chunks_exact(8)
        .map(|b| f64::from_le_bytes(b.try_into().expect("8 bytes")))
        .collect()
}

fn as_forks(values: Vec<f64>) -> Vec<Vec<f64>> {
    let per_fork = values.len() / FORKS;
    values.chunks(per_fork).map(<[f64]>::to_vec).collect()
}

/// Best wall time of `REPETITIONS` runs, and the last result.
fn best_of<T>(mut run: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::INFINITY;
    let mut result = None;
    for _ in 0..REPETITIONS {
        let start = Instant::now();
        let value = run();
        best = best.min(start.elapsed().as_secs_f64());
        result = Some(value);
    }
    (best, result.expect("at least one repetition"))
}

fn main() {
    let dir = std::env::args().nth(1).expect("usage: stats_timing DIR");
    let dir = Path::new(&dir);
    let base = as_forks(read_f64(dir, "base_forks.f64"));
    let head = as_forks(read_f64(dir, "head_forks.f64"));
    let (u_base, u_head) = (read_f64(dir, "u_base.f64"), read_f64(dir, "u_head.f64"));
    let kld = read_f64(dir, "kld.f64");
    let config = BootstrapConfig {
        confidence: 0.99,
        resamples: 10_000,
        seed: 1,
    };

    let bootstrap = || ratio_of_means(&base, &head, &config).expect("valid data");
    let (bootstrap_s, ratio) = best_of(bootstrap);
    let single = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("pool");
    let (bootstrap_1thread_s, ratio_1thread) = single.install(|| best_of(bootstrap));
    assert_eq!(ratio, ratio_1thread, "thread count changed the result");
    let (mann_whitney_s, mw) = best_of(|| mann_whitney_u(&u_base, &u_head).expect("valid"));
    let (cliffs_s, delta) = best_of(|| cliffs_delta(&u_base, &u_head).expect("valid"));
    let split = kld.len() * 9 / 10;
    let (kld_s, kld_p) = best_of(|| kld_probability(&kld[..split], &kld));

    let report = serde_json::json!({
        "threads": rayon::current_num_threads(),
        "bootstrap_s": bootstrap_s,
        "bootstrap_1thread_s": bootstrap_1thread_s,
        "ratio": [ratio.estimate, ratio.ci_low, ratio.ci_high],
        "mann_whitney_s": mann_whitney_s,
        "u": mw.u,
        "p": mw.p_value,
        "cliffs_s": cliffs_s,
        "delta": delta.delta,
        "kld_s": kld_s,
        "kld_p": kld_p,
    });
    println!("{report}");
}
