//! The instruction-count engine against the real valgrind, on a tiny crate built once: the
//! demo's library and criterion benchmarks (base, and head with the demo's 1.1×, 0.8× and 1.03×
//! work), a benchmark calling two functions of which head changes one, and a small program.
//!
//! The module [`trace`]: what one benchmark executes and reads, for selecting the benchmarks a
//! change can reach. The module [`probe`]: the native probe of a criterion benchmark, on the
//! same fixture.
//!
//! valgrind counts instructions, so these runs do not depend on how loaded the machine is; they
//! run side by side.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use cargo_perfdiff::model::harness::Harness;
use cargo_perfdiff::steps::fork::ForkRequest;
use cargo_perfdiff::steps::fork::command::CommandRun;
use cargo_perfdiff::steps::instructions::{
    self, Derivation, InstructionMeasurement, InstructionOutcome, Valgrind,
};

#[path = "instructions/trace.rs"]
mod trace;

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
#[path = "instructions/probe.rs"]
mod probe;

const DEMO_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/criterion-demo");

/// A benchmark whose iteration calls `parse` and then `render`; head makes `render` 1.5× the
/// work and leaves `parse` alone.
const PIPELINE_RS: &str = r#"use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};

const RENDER_ROUNDS: u64 = 1000;

#[inline(never)]
fn parse(rounds: u64) -> u64 {
    let mut x = 0x9E37_79B9_7F4A_7C15_u64;
    for i in 0..rounds {
        x ^= x >> 31;
        x = x.wrapping_mul(0x94D0_49BB_1331_11EB).wrapping_add(i);
    }
    x
}

#[inline(never)]
fn render(rounds: u64) -> u64 {
    let mut y = 1_u64;
    for i in 0..rounds {
        y = y.rotate_left(7).wrapping_add(i ^ 0x5555);
    }
    y
}

#[inline(always)]
fn parse_inlined(rounds: u64) -> u64 {
    let mut x = 0x2545_F491_4F6C_DD1D_u64;
    for i in 0..rounds {
        x ^= x << 13;
        x = x.wrapping_add(i);
    }
    x
}

#[inline(always)]
fn render_inlined(rounds: u64) -> u64 {
    let mut y = 3_u64;
    for i in 0..rounds {
        y = y.rotate_right(11) ^ i.wrapping_mul(7);
    }
    y
}

fn pipeline(c: &mut Criterion) {
    c.bench_function("pipeline", |b| {
        b.iter(|| parse(black_box(2000)) ^ render(black_box(RENDER_ROUNDS)))
    });
    c.bench_function("inlined", |b| {
        b.iter(|| parse_inlined(black_box(2000)) ^ render_inlined(black_box(RENDER_ROUNDS)))
    });
}

criterion_group!(benches, pipeline);
criterion_main!(benches);
"#;

/// A program doing the demo's `mix` a thousand times over.
const MAIN_RS: &str = r#"fn main() {
    let rounds = perfdiff_demo::MIX_ROUNDS * 1000;
    println!("{}", perfdiff_demo::mix(std::hint::black_box(rounds)));
}
"#;

/// The executables of one side.
struct Side {
    demo: PathBuf,
    pipeline: PathBuf,
    program: PathBuf,
}

struct Fixture {
    dir: PathBuf,
    base: Side,
    head: Side,
}

/// Builds the fixture crate at base, copies its executables aside, changes it to head and builds
/// again (one target directory: the second build only recompiles the crate).
fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/instructions-fixture");
        let krate = dir.join("crate");
        if krate.exists() {
            std::fs::remove_dir_all(&krate).unwrap();
        }
        std::fs::create_dir_all(krate.join("benches")).unwrap();
        std::fs::create_dir_all(krate.join("src")).unwrap();
        let manifest = std::fs::read_to_string(Path::new(DEMO_DIR).join("Cargo.toml")).unwrap();
        std::fs::write(
            krate.join("Cargo.toml"),
            format!(
                "{manifest}\n[[bench]]\nname = \"pipeline\"\nharness = false\n\n\
                 [[bin]]\nname = \"democount\"\npath = \"src/main.rs\"\ntest = false\nbench = false\n"
            ),
        )
        .unwrap();
        for file in ["Cargo.lock", "src/lib.rs", "benches/demo.rs"] {
            std::fs::copy(Path::new(DEMO_DIR).join(file), krate.join(file)).unwrap();
        }
        std::fs::write(krate.join("benches/pipeline.rs"), PIPELINE_RS).unwrap();
        std::fs::write(krate.join("src/main.rs"), MAIN_RS).unwrap();
        let base = build_side(&krate, &dir.join("base"));
        // The demo's head: mix 1.1×, checksum 0.8×, slight 1.03×; render 1.5×.
        let lib = std::fs::read_to_string(krate.join("src/lib.rs")).unwrap();
        let lib = lib
            .replace("MIX_ROUNDS: u64 = 2000;", "MIX_ROUNDS: u64 = 2200;")
            .replace(
                "CHECKSUM_ROUNDS: u64 = 2500;",
                "CHECKSUM_ROUNDS: u64 = 2000;",
            )
            .replace("SLIGHT_ROUNDS: u64 = 3000;", "SLIGHT_ROUNDS: u64 = 3090;");
        write_change(&krate.join("src/lib.rs"), &lib);
        write_change(
            &krate.join("benches/pipeline.rs"),
            &PIPELINE_RS.replace("RENDER_ROUNDS: u64 = 1000;", "RENDER_ROUNDS: u64 = 1500;"),
        );
        let head = build_side(&krate, &dir.join("head"));
        Fixture {
            dir: krate,
            base,
            head,
        }
    })
}

/// Builds the benches (bench profile) and the program (release), both with line tables so
/// functions have a file and line and inlined code its function, and copies the executables
/// into `into`.
fn build_side(krate: &Path, into: &Path) -> Side {
    std::fs::create_dir_all(into).unwrap();
    let mut executables = Vec::new();
    for args in [
        &["bench", "--no-run"][..],
        &["build", "--release", "--bin", "democount"][..],
    ] {
        let output = Command::new(env!("CARGO"))
            .args(args)
            .args(["--message-format=json", "--quiet"])
            .current_dir(krate)
            .env("CARGO_TARGET_DIR", krate.parent().unwrap().join("target"))
            .env("CARGO_PROFILE_BENCH_DEBUG", "line-tables-only")
            .env("CARGO_PROFILE_RELEASE_DEBUG", "line-tables-only")
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        for line in String::from_utf8_lossy(&output.stdout).lines() {
            let message: serde_json::Value = serde_json::from_str(line).unwrap();
            if let (Some(name), Some(exe)) = (
                message["target"]["name"].as_str(),
                message["executable"].as_str(),
            ) {
                executables.push((name.to_string(), PathBuf::from(exe)));
            }
        }
    }
    let copy = |name: &str| {
        // The last of that name: the program from `cargo build`, not a test harness of it.
        let (_, exe) = executables
            .iter()
            .rfind(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("no executable {name} in {executables:?}"));
        let to = into.join(name);
        std::fs::copy(exe, &to).unwrap();
        to
    };
    Side {
        demo: copy("demo"),
        pipeline: copy("pipeline"),
        program: copy("democount"),
    }
}

fn valgrind() -> Valgrind {
    Valgrind::find().expect("valgrind is installed (.ci/run installs it)")
}

fn request(executable: &Path, benchmark: &str, home: &Path) -> ForkRequest {
    ForkRequest {
        executable: executable.to_path_buf(),
        cwd: fixture().dir.clone(),
        env: vec![],
        benchmark_id: benchmark.to_string(),
        harness: Harness::default(),
        warm_up: Duration::from_millis(200),
        measurement: Duration::from_millis(100),
        sample_size: 10,
        harness_sample_size: None,
        timeout: Duration::from_secs(300),
        criterion_home: home.to_path_buf(),
        cpu: None,
        command: None,
    }
}

/// Counts `benchmark` of `executable`.
fn count(executable: &Path, benchmark: &str) -> InstructionMeasurement {
    let work = tempfile::tempdir().unwrap();
    let req = request(executable, benchmark, work.path());
    match instructions::measure(&req, &valgrind(), work.path()).unwrap() {
        InstructionOutcome::Measured(measurement) => *measurement,
        InstructionOutcome::Failed(failure) => {
            panic!("{benchmark}: {} {}", failure.message, failure.stderr_tail)
        }
    }
}

/// Counts each of `jobs` (executable, benchmark) at once, in order.
fn count_all(jobs: &[(&Path, &str)]) -> Vec<InstructionMeasurement> {
    std::thread::scope(|scope| {
        let handles: Vec<_> = jobs
            .iter()
            .map(|&(exe, id)| scope.spawn(move || count(exe, id)))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

#[test]
fn criterion_instructions_per_iteration_are_exact_repeatable_and_follow_the_work() {
    let fixture = fixture();
    let (base, head) = (&fixture.base.demo, &fixture.head.demo);
    let jobs: Vec<(&Path, &str)> = vec![
        (base, "hash/mix"),
        (base, "hash/mix"),
        (head, "hash/mix"),
        (base, "hash/checksum"),
        (head, "hash/checksum"),
        (base, "hash/slight"),
        (head, "hash/slight"),
        (base, "hash/steady"),
        (head, "hash/steady"),
    ];
    let counted = count_all(&jobs);
    for ((_, id), m) in jobs.iter().zip(&counted) {
        eprintln!(
            "{id}: {:.3} instructions per iteration, {:.1} per sample, {} samples, \
             {} warm-up calls, largest miss {:.1}, {:.0} ms",
            m.per_iteration,
            m.fit.per_sample,
            m.samples.len(),
            m.warm_up_calls,
            m.fit.max_residual,
            m.wall_ms
        );
        assert_eq!(m.derivation, Derivation::CriterionSamples);
        assert!(m.fit.exact, "{id}: {:?} {:?}", m.fit, m.samples);
        assert_eq!(m.samples.len(), 10, "{id}");
    }
    // Two runs of the same benchmark: the same count, to the instruction, whatever iteration
    // counts criterion chose each time.
    assert!(
        (counted[0].per_iteration - counted[1].per_iteration).abs() < 1e-6,
        "{} vs {}",
        counted[0].per_iteration,
        counted[1].per_iteration
    );
    // Head against base: the work ratio (the loop around `mix` adds a few instructions).
    for (base, head, expected, id) in [
        (0, 2, 1.1, "hash/mix"),
        (3, 4, 0.8, "hash/checksum"),
        (5, 6, 1.03, "hash/slight"),
        (7, 8, 1.0, "hash/steady"),
    ] {
        let ratio = counted[head].per_iteration / counted[base].per_iteration;
        eprintln!("{id}: head/base = {ratio:.5}");
        assert!((ratio - expected).abs() < 0.002, "{id}: {ratio}");
    }
    let steady = (counted[7].per_iteration, counted[8].per_iteration);
    assert!((steady.0 - steady.1).abs() < 1e-6, "{steady:?}");
    // The profile holds the work: the demo's `mix` (inlined into criterion's loop or not).
    let profile = &counted[0].profile;
    assert!(
        (profile.total - counted[0].per_iteration).abs() / counted[0].per_iteration < 0.01,
        "{} vs {}",
        profile.total,
        counted[0].per_iteration
    );
}

#[test]
fn the_function_that_changed_comes_first_with_its_file_and_line() {
    let fixture = fixture();
    let counted = count_all(&[
        (&fixture.base.pipeline, "pipeline"),
        (&fixture.head.pipeline, "pipeline"),
    ]);
    let changes = instructions::diff(&counted[0].profile, &counted[1].profile, 0.5);
    for change in changes.iter().take(5) {
        eprintln!(
            "{} ({:?}:{:?}): self {:.1} → {:.1}, inclusive {:.1} → {:.1}",
            change.name,
            change.file,
            change.line,
            change.base.self_,
            change.head.self_,
            change.base.inclusive,
            change.head.inclusive
        );
    }
    let first = &changes[0];
    assert_eq!(first.name, "pipeline::render", "{changes:#?}");
    assert!(
        first
            .file
            .as_deref()
            .unwrap_or("")
            .ends_with("benches/pipeline.rs"),
        "{first:?}"
    );
    assert!(
        first.line.is_some_and(|l| (17..=25).contains(&l)),
        "{first:?}"
    );
    let ratio = first.head.self_ / first.base.self_;
    assert!((ratio - 1.5).abs() < 0.01, "{first:?}");
    assert!(
        changes.iter().all(|c| c.name != "pipeline::parse"),
        "parse did not change: {changes:#?}"
    );
}

#[test]
fn code_inlined_into_criterion_s_loop_is_given_back_to_its_function() {
    let fixture = fixture();
    let counted = count_all(&[
        (&fixture.base.pipeline, "inlined"),
        (&fixture.head.pipeline, "inlined"),
    ]);
    let changes = instructions::diff(&counted[0].profile, &counted[1].profile, 0.5);
    for change in changes.iter().take(5) {
        eprintln!(
            "{} ({:?}:{:?}): self {:.1} → {:.1}, inclusive {:.1} → {:.1}",
            change.name,
            change.file,
            change.line,
            change.base.self_,
            change.head.self_,
            change.base.inclusive,
            change.head.inclusive
        );
    }
    // Named as the line tables name inlined functions: without their module path.
    let first = &changes[0];
    assert_eq!(first.name, "render_inlined", "{changes:#?}");
    assert!(
        first
            .file
            .as_deref()
            .unwrap_or("")
            .ends_with("benches/pipeline.rs"),
        "{first:?}"
    );
    assert!(
        changes.iter().all(|c| c.name != "parse_inlined"),
        "parse did not change: {changes:#?}"
    );
    let parse = counted[0]
        .profile
        .functions
        .iter()
        .find(|f| f.name == "parse_inlined")
        .expect("parse_inlined has its own entry");
    assert!(parse.instructions.self_ > 1000.0, "{parse:?}");
}

fn count_program(program: &Path, args: &[&str]) -> InstructionOutcome {
    let work = tempfile::tempdir().unwrap();
    let mut req = request(program, "democount", work.path());
    let mut argv = vec![program.as_os_str().to_os_string()];
    argv.extend(args.iter().map(Into::into));
    req.harness = Harness::Command;
    req.command = Some(CommandRun {
        argv,
        prepare: None,
        warm_up: 0,
        helper: PathBuf::new(),
    });
    instructions::measure(&req, &valgrind(), work.path()).unwrap()
}

#[test]
fn a_command_is_counted_whole_per_execution() {
    let fixture = fixture();
    let outcomes: Vec<InstructionOutcome> = std::thread::scope(|scope| {
        let handles: Vec<_> = [
            &fixture.base.program,
            &fixture.base.program,
            &fixture.head.program,
        ]
        .into_iter()
        .map(|p| scope.spawn(move || count_program(p, &[])))
        .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let counts: Vec<f64> = outcomes
        .iter()
        .map(|o| o.measured().expect("measured").per_iteration)
        .collect();
    eprintln!("democount: {counts:?} instructions per execution");
    let m = outcomes[0].measured().unwrap();
    assert_eq!(m.derivation, Derivation::WholeExecution);
    assert!(
        (counts[0] - counts[1]).abs() / counts[0] < 1e-4,
        "{counts:?}"
    );
    let ratio = counts[2] / counts[0];
    assert!((ratio - 1.1).abs() < 0.005, "{ratio}");
    let changes = instructions::diff(
        &outcomes[0].measured().unwrap().profile,
        &outcomes[2].measured().unwrap().profile,
        0.5,
    );
    // `mix`, inlined into `main` or not (an inlined function has its short name).
    assert!(
        ["perfdiff_demo::mix", "mix"].contains(&changes[0].name.as_str()),
        "{changes:#?}"
    );

    let failing = count_program(Path::new("/bin/sh"), &["-c", "echo broken >&2; exit 3"]);
    let failure = failing.failure().expect("a failing command fails");
    assert!(
        failure.message.contains("exit code 3") || failure.message.contains("3"),
        "{}",
        failure.message
    );
    assert!(
        failure.stderr_tail.contains("broken"),
        "{}",
        failure.stderr_tail
    );
}

/// The demo with another harness (`divan`, `bencher`): its crate, and the bench executable at
/// base and at head (`hash::mix` 1.1× the work in head).
type HarnessFixture = (PathBuf, PathBuf, PathBuf);

fn harness_fixture(harness: &str) -> HarnessFixture {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/instructions-fixture");
    let krate = dir.join(format!("{harness}-crate"));
    if krate.exists() {
        std::fs::remove_dir_all(&krate).unwrap();
    }
    std::fs::create_dir_all(krate.join("benches")).unwrap();
    std::fs::create_dir_all(krate.join("src")).unwrap();
    let manifest = std::fs::read_to_string(Path::new(DEMO_DIR).join("Cargo.toml")).unwrap();
    // libtest's `#[bench]` is no dependency, and the bench target keeps libtest's harness.
    let dependency = match harness {
        "libtest" => String::new(),
        _ => format!("{harness} = \"0.1\""),
    };
    let manifest = manifest
        .lines()
        .filter(|line| harness != "libtest" || *line != "harness = false")
        .map(|line| {
            if line.starts_with("criterion = ") {
                dependency.as_str()
            } else {
                line
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(krate.join("Cargo.toml"), manifest).unwrap();
    let demos = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/harness-demos");
    if harness != "libtest" {
        std::fs::copy(
            demos.join(format!("{harness}.lock")),
            krate.join("Cargo.lock"),
        )
        .unwrap();
    }
    std::fs::copy(
        demos.join(format!("{harness}.rs")),
        krate.join("benches/demo.rs"),
    )
    .unwrap();
    std::fs::copy(
        Path::new(DEMO_DIR).join("src/lib.rs"),
        krate.join("src/lib.rs"),
    )
    .unwrap();
    let base = build_bench(&krate, &dir.join(format!("{harness}-base")));
    let lib = std::fs::read_to_string(krate.join("src/lib.rs")).unwrap();
    let lib = lib.replace("MIX_ROUNDS: u64 = 2000;", "MIX_ROUNDS: u64 = 2200;");
    write_change(&krate.join("src/lib.rs"), &lib);
    let head = build_bench(&krate, &dir.join(format!("{harness}-head")));
    (krate, base, head)
}

/// Counts `id` at base twice and at head with `measure`, checks every count is exact, the two
/// base counts are equal and head/base is 1.1, and returns the base count.
fn check_harness(
    fixture: &HarnessFixture,
    harness: Harness,
    id: &str,
    derivation: Derivation,
    measure: fn(
        &ForkRequest,
        &Valgrind,
        &Path,
    ) -> Result<InstructionOutcome, instructions::InstructionsError>,
) -> f64 {
    let (krate, base, head) = fixture;
    let count = |exe: &Path| {
        let work = tempfile::tempdir().unwrap();
        let mut req = request(exe, id, work.path());
        req.cwd = krate.clone();
        req.harness = harness;
        match measure(&req, &valgrind(), work.path()).unwrap() {
            InstructionOutcome::Measured(m) => *m,
            InstructionOutcome::Failed(f) => panic!("{} {}", f.message, f.stderr_tail),
        }
    };
    let counted: Vec<InstructionMeasurement> = std::thread::scope(|scope| {
        let handles: Vec<_> = [base, base, head]
            .into_iter()
            .map(|exe| scope.spawn(move || count(exe)))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for m in &counted {
        eprintln!(
            "{harness:?} {id}: {:.3} per iteration, {:.1} per sample, {} samples, largest miss \
             {:.1}, {:.0} ms",
            m.per_iteration,
            m.fit.per_sample,
            m.samples.len(),
            m.fit.max_residual,
            m.wall_ms
        );
        assert_eq!(m.derivation, derivation);
        assert!(m.fit.exact, "{:?} {:?}", m.fit, m.samples);
    }
    // The same count, to the instruction; libtest's within a ten-thousandth: its loop is
    // unrolled, samples of few iterations are a few instructions off the line, and how many
    // rounds of samples it runs depends on time (13,021.17 and 13,021.77 after 3 and 1 rounds).
    let (first, second) = (counted[0].per_iteration, counted[1].per_iteration);
    let tolerance = if harness == Harness::Libtest {
        1e-4 * first
    } else {
        1e-6
    };
    assert!((first - second).abs() < tolerance, "{first} vs {second}");
    let ratio = counted[2].per_iteration / counted[0].per_iteration;
    let fits: Vec<String> = counted
        .iter()
        .map(|m| format!("{:.3} over {} samples", m.per_iteration, m.samples.len()))
        .collect();
    assert!((ratio - 1.1).abs() < 0.002, "{ratio}: {fits:?}");
    counted[0].per_iteration
}

#[test]
fn divan_instructions_per_iteration_are_exact_and_follow_the_work() {
    let fixture = harness_fixture("divan");
    check_harness(
        &fixture,
        Harness::Divan,
        "demo::hash::mix",
        Derivation::DivanTwoSampleSizes,
        instructions::divan::measure,
    );
}

#[test]
fn bencher_instructions_per_iteration_are_exact_and_follow_the_work() {
    let fixture = harness_fixture("bencher");
    check_harness(
        &fixture,
        Harness::Bencher,
        "hash::mix",
        Derivation::BencherSchedule,
        instructions::bencher::measure,
    );
}

/// Writes `text` to `path` with a modification time ahead of now: the head build comes right
/// after the base build, and a change written within the same timestamp as the base build's
/// outputs would look fresh to cargo (seen: a head executable that was still the base).
fn write_change(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    let ahead = std::time::SystemTime::now() + Duration::from_secs(2);
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(ahead)
        .unwrap();
}

/// Builds the bench targets of `krate` into `target_dir` with `cargo bench --no-run` and returns
/// each target's name and executable.
fn bench_executables(krate: &Path, target_dir: &Path) -> Vec<(String, PathBuf)> {
    let output = Command::new(env!("CARGO"))
        .args(["bench", "--no-run", "--message-format=json", "--quiet"])
        .current_dir(krate)
        // libtest's `#[bench]` is unstable: stands in for a nightly toolchain, as the other
        // harness tests do. It also gives nightly's v0 symbol mangling (to all these harness
        // fixtures), where the criterion fixture has stable's legacy one: both are covered.
        .env("RUSTC_BOOTSTRAP", "1")
        .env("CARGO_TARGET_DIR", target_dir)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter_map(|m| {
            Some((
                m["target"]["name"].as_str()?.to_string(),
                PathBuf::from(m["executable"].as_str()?),
            ))
        })
        .collect()
}

/// Builds the bench target `demo` of `krate` and copies it into `into`.
fn build_bench(krate: &Path, into: &Path) -> PathBuf {
    std::fs::create_dir_all(into).unwrap();
    let exe = bench_executables(krate, &krate.parent().unwrap().join("target"))
        .into_iter()
        .find(|(name, _)| name == "demo")
        .map(|(_, exe)| exe)
        .expect("the demo bench executable");
    let to = into.join("demo");
    std::fs::copy(exe, &to).unwrap();
    to
}

#[test]
fn libtest_instructions_per_iteration_follow_the_work() {
    let fixture = harness_fixture("libtest");
    check_harness(
        &fixture,
        Harness::Libtest,
        "hash::mix",
        Derivation::LibtestSchedule,
        instructions::libtest::measure,
    );
}
