//! A divan benchmark's sample size, chosen once for both sides before its forks run.
//!
//! Why: divan sizes its samples by doubling the iterations in each until the *slowest* sample of
//! a try lasts more than a hundred ticks of its timer ([`divan::TICKS_PER_SAMPLE`]). In a fresh
//! process the first iterations are slow (page faults, cold caches), and on a machine whose timer
//! ticks every 20 ns that is enough to stop the tuning at one iteration a sample for any
//! benchmark faster than about 2 µs. Each sample is then whole timer ticks less divan's overhead
//! estimate, and so is their median, the fork's value: const-hex's 256-byte decoding, 27.6 ns an
//! iteration at 64 iterations a sample, read 49.75 ns in every fork of base and 39.75 ns in every
//! fork of head (a −20 % "change" with an interval of no width, where the samples of 64 say about
//! −45 %, as the larger inputs did). A fork value that moves only in whole ticks cannot show a
//! change smaller than a tick, and shows one of a tick where there is none.
//!
//! So before the first fork of a divan benchmark, a short run of each side at one iteration a
//! sample reads the median and the timer's precision; where one iteration is shorter than the
//! hundred ticks divan wants a sample to last, the sample size is divan's own rule applied to the
//! median instead of the slowest sample ([`divan::sample_size_for`]), checked at that size (a
//! median below one tick reads as zero) and again at each larger size a check asks for, until one
//! confirms it ([`size_after`]), and the larger of the two sides' is given to
//! every fork of both (`--sample-size`): the same measurement on both sides, as divan would size
//! it undisturbed. A benchmark whose iterations are long enough keeps divan's own choice
//! (`None`), and so does one whose tuning run fails or prints no row: its forks say why. The
//! size overrides one the benchmark sets itself (divan's command line wins over its attributes),
//! and a benchmark that makes its inputs per sample (`with_inputs`) makes that many at a time, as
//! divan's own tuning would undisturbed.

use std::ffi::OsString;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::held::{Ending, HeldProcess};
use super::{ForkError, ForkRequest};
use crate::model::harness::divan;

/// How long a tuning run may take before it is given up (its forks then tune themselves).
const TUNE_TIMEOUT: Duration = Duration::from_secs(30);

/// How many readings after the first a sample size may take ([`size_after`]): each but the last
/// at a larger size than the one before, whose samples last longer and read more exactly.
const MAX_READINGS: usize = 4;

/// How often a tuning run is checked for its row or its exit.
const CHECK_INTERVAL: Duration = Duration::from_millis(2);

/// What one tuning run read: the benchmark's median time per iteration and divan's timer
/// precision, both in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reading {
    pub median_ns: f64,
    pub precision_ns: f64,
}

/// The sample size the forks of `req`'s benchmark should be given, from its executable (one
/// side's); `None` where divan's own tuning is right, or cannot be checked.
pub fn sample_size(req: &ForkRequest) -> Result<Option<u64>, ForkError> {
    let Some(first) = read(req, 1)? else {
        return Ok(None);
    };
    size_after(first, |size| read(req, size))
}

/// The sample size that follows a first reading at one iteration a sample, `again` reading the
/// benchmark at a given size: `None` where a sample of one iteration already lasts the ticks
/// divan wants. A median below one tick reads as zero or a tick: the first guess takes it as half
/// a tick (or the tick it read), and a reading at that size corrects it upwards. That reading is
/// exact to a hundredth of a tick only where its samples last the hundred ticks divan wants; for
/// an iteration far below a tick they last a tick or two, and their median is as coarse as the
/// first (divan's `math::add`, 0.12 ns on a 20 ns timer: 19.76 ns at one iteration, a guess of
/// 128, read as 0.307 ns there, so 8 192, whose samples last half of what divan wants). So each
/// larger size a reading asks for is read again, until one confirms the size it was read at, at
/// most [`MAX_READINGS`] times.
pub fn size_after(
    first: Reading,
    mut again: impl FnMut(u64) -> Result<Option<Reading>, ForkError>,
) -> Result<Option<u64>, ForkError> {
    let wanted = divan::sample_size_for(first.median_ns, first.precision_ns);
    if wanted <= 1 {
        return Ok(None);
    }
    let mut size = divan::sample_size_for(
        first.median_ns.max(first.precision_ns / 2.0),
        first.precision_ns,
    );
    for _ in 0..MAX_READINGS {
        let Some(reading) = again(size)? else {
            break;
        };
        let asked = divan::sample_size_for(reading.median_ns, reading.precision_ns);
        if asked <= size {
            break;
        }
        size = asked;
    }
    Ok(Some(size))
}

/// One short run of `req`'s benchmark at `size` iterations a sample: its median and the timer's
/// precision, `None` where the run printed no row for it (a failure its forks will report).
fn read(req: &ForkRequest, size: u64) -> Result<Option<Reading>, ForkError> {
    let args: Vec<OsString> = divan::tune_args(&req.benchmark_id, size);
    let seen: Arc<Mutex<Seen>> = Arc::default();
    let watch = {
        let seen = Arc::clone(&seen);
        let mut row = divan::ValueRow::new(&req.benchmark_id);
        Box::new(move |line: &str| lock(&seen).take(&mut row, line))
    };
    let short = ForkRequest {
        timeout: TUNE_TIMEOUT.min(req.timeout),
        ..req.clone()
    };
    let mut process = HeldProcess::launch(&short, &req.executable, args, false, Some(watch))?;
    let done = || lock(&seen).median_ns.is_some();
    process.wait(&AtomicBool::new(false), CHECK_INTERVAL, done, Ending::Done)?;
    process.end();
    let seen = lock(&seen);
    Ok(seen
        .median_ns
        .zip(seen.precision_ns)
        .map(|(median_ns, precision_ns)| Reading {
            median_ns,
            precision_ns,
        }))
}

/// What a tuning run's output said so far.
#[derive(Debug, Default)]
struct Seen {
    precision_ns: Option<f64>,
    median_ns: Option<f64>,
}

impl Seen {
    /// Takes in the next line of the run's output; `row` reads the benchmark's row, which a
    /// benchmark that prints splits over several lines ([`divan::ValueRow`]).
    fn take(&mut self, row: &mut divan::ValueRow, line: &str) {
        if let Some(precision) = divan::timer_precision_ns(line) {
            self.precision_ns.get_or_insert(precision);
        } else if let Some(median) = row.line(line) {
            self.median_ns.get_or_insert(median);
        }
    }
}

fn lock(seen: &Mutex<Seen>) -> std::sync::MutexGuard<'_, Seen> {
    seen.lock().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(median_ns: f64, precision_ns: f64) -> Reading {
        Reading {
            median_ns,
            precision_ns,
        }
    }

    #[test]
    fn an_iteration_as_long_as_divan_wants_a_sample_keeps_divan_s_tuning() {
        let mut asked = Vec::new();
        let size = size_after(reading(2_500.0, 20.0), |size| {
            asked.push(size);
            Ok(None)
        })
        .unwrap();
        assert_eq!(size, None);
        assert!(asked.is_empty(), "no second run: {asked:?}");
    }

    /// const-hex's 256-byte decoding: 49.75 ns at one iteration a sample on a 20 ns timer, 27.6
    /// ns at 64 (the runs quoted in the module doc).
    #[test]
    fn const_hex_s_decoding_gets_the_size_divan_gives_it_undisturbed() {
        let mut asked = Vec::new();
        let size = size_after(reading(49.75, 20.0), |size| {
            asked.push(size);
            Ok(Some(reading(27.61, 20.0)))
        })
        .unwrap();
        assert_eq!(
            size,
            Some(128),
            "the median at 64 says 27.6 ns: 73 iterations wanted"
        );
        // 2000 ns wanted / 49.75 ns, to the next power of two; then 128, confirmed.
        assert_eq!(asked, [64, 128]);
    }

    #[test]
    fn a_benchmark_below_one_tick_is_sized_by_its_second_reading() {
        // 0.9 ns an iteration reads as zero at one iteration a sample.
        let mut asked = Vec::new();
        let size = size_after(reading(0.0, 20.0), |size| {
            asked.push(size);
            Ok(Some(reading(0.9, 20.0)))
        })
        .unwrap();
        assert_eq!(size, Some(4096));
        assert_eq!(
            asked,
            [256, 4096],
            "half a tick taken for the unknown median"
        );
    }

    /// divan's `math::add` (its examples at nvzqz/divan 52f9d49, 0.12 ns an iteration on a 20 ns
    /// timer), the medians its tuning runs read at each size (recorded).
    fn math_add(size: u64) -> Reading {
        let median_ns = match size {
            1 => 19.76,
            128 => 0.307,
            8192 => 0.119,
            _ => 0.116,
        };
        reading(median_ns, 20.0)
    }

    #[test]
    fn a_benchmark_far_below_one_tick_is_read_again_at_each_larger_size() {
        let mut asked = Vec::new();
        let size = size_after(math_add(1), |size| {
            asked.push(size);
            Ok(Some(math_add(size)))
        })
        .unwrap();
        // 8 192 samples of 0.119 ns last 975 ns, under the hundred ticks (2 µs) divan wants.
        assert_eq!(size, Some(32_768));
        assert_eq!(asked, [128, 8192, 32_768]);
    }

    #[test]
    fn readings_that_keep_asking_for_more_stop_after_a_few() {
        let mut asked = Vec::new();
        let size = size_after(reading(0.0, 20.0), |size| {
            asked.push(size);
            Ok(Some(reading(2000.0 / size as f64 / 4.0, 20.0)))
        })
        .unwrap();
        assert_eq!(asked.len(), MAX_READINGS, "{asked:?}");
        assert_eq!(size, Some(256 << (3 * MAX_READINGS)));
    }

    #[test]
    fn a_second_reading_that_fails_keeps_the_first_guess() {
        let size = size_after(reading(30.0, 20.0), |_| Ok(None)).unwrap();
        assert_eq!(size, Some(128));
    }

    /// What a tuning run of benchmark `id` that printed `lines` said.
    fn seen_after(id: &str, lines: &[&str]) -> Seen {
        let (mut seen, mut row) = (Seen::default(), divan::ValueRow::new(id));
        for line in lines {
            seen.take(&mut row, line);
        }
        seen
    }

    #[test]
    fn the_tuning_run_s_lines_give_the_precision_and_the_median() {
        let seen = seen_after(
            "decode::bench2_256b",
            &[
                "Timer precision: 20 ns",
                "bench                 fastest       │ slowest       │ median        │ mean          │ samples │ iters",
                "╰─ decode                           │               │               │               │         │",
                "      ╰─ bench2_256b  39.75 ns      │ 40.28 µs      │ 49.75 ns      │ 449.5 ns      │ 100     │ 100",
            ],
        );
        assert_eq!(seen.precision_ns, Some(20.0));
        assert_eq!(seen.median_ns, Some(49.75));
    }

    #[test]
    fn a_tuning_run_of_a_benchmark_that_prints_gives_its_median() {
        // uutils' `wc -c` prints a line each iteration: the row's values come after the last.
        let seen = seen_after(
            "wc_bench::wc_bytes_synthetic::1",
            &[
                "Timer precision: 20 ns",
                "wc_bench               fastest       │ slowest       │ median        │ mean          │ samples │ iters",
                "╰─ wc_bytes_synthetic                │               │               │               │         │",
                "   ╰─ 1                1048577 /tmp/.tmpX/test_data.txt",
                "1048577 /tmp/.tmpX/test_data.txt",
                "9.022 µs      │ 59.94 ms      │ 9.564 µs      │ 149.3 µs      │ 100     │ 100",
            ],
        );
        assert_eq!(seen.median_ns, Some(9564.0));
    }
}
