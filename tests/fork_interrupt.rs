//! Interruption (Ctrl-C/SIGTERM): the running fork's process tree is killed within moments and
//! the fork returns `ForkError::Interrupted`. Its own test binary, because the flag is global.

#[path = "common/fixture.rs"]
mod fixture;
#[path = "common/processes.rs"]
mod processes;

use std::time::{Duration, Instant};

use cargo_perfdiff::steps::fork::{ForkError, ForkRequest, run_fork};
use cargo_perfdiff::util::interrupt::{interrupted, request_interrupt};

#[test]
fn an_interrupt_kills_the_running_fork_and_stops_later_ones() {
    let benches = fixture::failing_benches();
    let home = tempfile::tempdir().unwrap();
    let marker = processes::marker("interrupt");
    let request = ForkRequest {
        executable: benches.executable.clone(),
        cwd: benches.dir.clone(),
        env: vec![marker.clone()],
        benchmark_id: "fail/hangs".to_string(),
        harness: Default::default(),
        warm_up: Duration::from_millis(50),
        measurement: Duration::from_millis(100),
        sample_size: 10,
        harness_sample_size: None,
        timeout: Duration::from_secs(60),
        criterion_home: home.path().to_path_buf(),
        cpu: None,
        command: None,
    };

    let interrupter = {
        let marker = marker.clone();
        std::thread::spawn(move || {
            // Wait until the benchmark and its helper are both running, then interrupt.
            let deadline = Instant::now() + Duration::from_secs(20);
            while processes::alive_with_marker(&marker).len() < 2 && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(50));
            }
            let running = processes::alive_with_marker(&marker);
            request_interrupt();
            (Instant::now(), running)
        })
    };
    let result = run_fork(&request);
    let returned = Instant::now();
    let (interrupted_at, running_before) = interrupter.join().unwrap();

    assert_eq!(
        running_before.len(),
        2,
        "benchmark and helper were not both seen running"
    );
    assert!(matches!(result, Err(ForkError::Interrupted)), "{result:?}");
    assert!(interrupted());
    let reaction = returned.duration_since(interrupted_at);
    assert!(
        reaction < Duration::from_millis(1000),
        "noticed after {reaction:?}"
    );
    assert_eq!(processes::alive_with_marker(&marker), Vec::<u32>::new());

    // Once interrupted, no new fork starts.
    assert!(matches!(run_fork(&request), Err(ForkError::Interrupted)));
}
