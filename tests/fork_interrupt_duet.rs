//! Interruption of a duet pair: both sides' process trees are killed and the pair returns
//! `ForkError::Interrupted`. Its own test binary, because the interrupt flag is global.

#[path = "common/fixture.rs"]
mod fixture;
#[path = "common/processes.rs"]
mod processes;

use std::time::{Duration, Instant};

use cargo_perfdiff::steps::fork::duet::{choose_cpus, run_pair};
use cargo_perfdiff::steps::fork::{ForkError, ForkRequest, usable_cpus};
use cargo_perfdiff::util::interrupt::request_interrupt;

#[test]
fn an_interrupt_kills_both_sides_of_a_pair() {
    if usable_cpus().len() < 2 {
        eprintln!("skipped: needs two usable CPUs");
        return;
    }
    let [base_cpu, head_cpu] = choose_cpus(None).unwrap();
    let benches = fixture::failing_benches();
    let home = tempfile::tempdir().unwrap();
    let marker = processes::marker("duet-interrupt");
    let side = |cpu| ForkRequest {
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
        cpu: Some(cpu),
        command: None,
    };

    let interrupter = {
        let marker = marker.clone();
        std::thread::spawn(move || {
            // Both benchmarks and both of their helpers.
            let deadline = Instant::now() + Duration::from_secs(20);
            while processes::alive_with_marker(&marker).len() < 4 && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(50));
            }
            let running = processes::alive_with_marker(&marker);
            request_interrupt();
            (Instant::now(), running)
        })
    };
    let result = run_pair(&side(base_cpu), &side(head_cpu));
    let returned = Instant::now();
    let (interrupted_at, running_before) = interrupter.join().unwrap();

    assert_eq!(running_before.len(), 4, "both sides were not seen running");
    assert!(matches!(result, Err(ForkError::Interrupted)), "{result:?}");
    let reaction = returned.duration_since(interrupted_at);
    assert!(
        reaction < Duration::from_millis(1000),
        "noticed after {reaction:?}"
    );
    assert_eq!(processes::alive_with_marker(&marker), Vec::<u32>::new());
}
