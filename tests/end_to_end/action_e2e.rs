//! The GitHub Action run the way a runner runs it, from `action.yml`: each step's `if:`
//! evaluated, each `run:` script started as `shell: bash` starts it (`bash --noprofile --norc -eo
//! pipefail`), with the step's `env:` and `working-directory` resolved from the inputs and the
//! earlier steps' outputs, in a simulated runner environment (`GITHUB_OUTPUT`,
//! `GITHUB_STEP_SUMMARY`, `GITHUB_ACTION_PATH`, a `pull_request` event whose payload names the
//! base commit). Nobody can run the action here otherwise, and YAML that parses can still fail on
//! a runner: an output a step never writes, a step that `-e` ends half way.
//!
//! Three things are simulated, because the real ones take minutes or change the machine: the
//! action's `cargo install` (a `cargo` first on `PATH` that does nothing for `install` and passes
//! everything else to the real cargo, with this build's `cargo-perfdiff` beside it), valgrind's
//! absence (a `PATH` of everything but valgrind), and its installation (a `sudo` and an `apt-get`
//! that record what they were asked and put the real valgrind on that `PATH`). Steps that `uses:`
//! another action (the artifact upload) are not run; their `with:` is resolved for the test.
//! The comparison itself is real: the demo's head regresses, counted in instructions so that the
//! verdict does not depend on how busy this machine is.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use cargo_perfdiff::orchestrate::demo::{DemoChanges, DemoOptions};
use cargo_perfdiff::steps::instructions::valgrind::locate;
use cargo_perfdiff::util::shell::quote_for_shell;
use yaml_rust2::{Yaml, YamlLoader};

use crate::support;

use support::*;

/// `action.yml`, parsed.
fn action() -> Yaml {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("action.yml");
    let text = std::fs::read_to_string(&path).unwrap();
    YamlLoader::load_from_str(&text).unwrap().remove(0)
}

/// What one step did.
#[derive(Debug)]
struct StepRun {
    name: String,
    /// Whether its `if:` let it run (a `uses:` step is never run, only resolved).
    ran: bool,
    /// The script's exit code, for a step that ran a script.
    code: Option<i32>,
    /// Its stdout then stderr.
    log: String,
}

impl StepRun {
    fn not_run(name: String) -> StepRun {
        StepRun {
            name,
            ran: false,
            code: None,
            log: String::new(),
        }
    }
}

/// What a job that uses the action ends with.
#[derive(Debug)]
struct Job {
    steps: Vec<StepRun>,
    /// The action's outputs, as `outputs.*.value` resolves them at the end.
    outputs: BTreeMap<String, String>,
    /// Every step's `GITHUB_STEP_SUMMARY`, in order: the job summary.
    summary: String,
    /// The `with:` of each `uses:` step that would run, by the action it uses.
    uses: Vec<(String, BTreeMap<String, String>)>,
    /// The exit code of the first step that failed, 0 if none did: what fails the job.
    exit_code: i32,
}

impl Job {
    fn step(&self, name_starts: &str) -> &StepRun {
        self.steps
            .iter()
            .find(|s| s.name.starts_with(name_starts))
            .unwrap_or_else(|| panic!("no step {name_starts:?} in {self:#?}"))
    }

    /// Every step's log, to read when an assertion fails.
    fn logs(&self) -> String {
        self.steps
            .iter()
            .map(|s| format!("--- {} (ran {}, {:?})\n{}", s.name, s.ran, s.code, s.log))
            .collect()
    }
}

/// The runner: the inputs given to the action, the event, the environment every step starts
/// with, and the outputs of the steps so far.
struct Runner {
    action: Yaml,
    inputs: BTreeMap<String, String>,
    event: serde_json::Value,
    env: Vec<(String, OsString)>,
    /// Variables of the test process no step may see.
    removed: Vec<String>,
    workspace: PathBuf,
    temp: PathBuf,
    outputs: BTreeMap<String, BTreeMap<String, String>>,
    failed: bool,
}

impl Runner {
    /// A runner for a job in `workspace` whose event is `event` (written to a file under
    /// `temp`), giving the action `with` (every key must be one of its inputs).
    fn new(
        workspace: &Path,
        temp: &Path,
        event: serde_json::Value,
        with: &[(&str, &str)],
    ) -> Runner {
        let action = action();
        let mut inputs = BTreeMap::new();
        for (name, input) in action["inputs"].as_hash().unwrap() {
            let default = input["default"].as_str().unwrap_or_default();
            inputs.insert(name.as_str().unwrap().to_string(), default.to_string());
        }
        for (name, value) in with {
            assert!(inputs.contains_key(*name), "the action has no input {name}");
            inputs.insert(name.to_string(), value.to_string());
        }
        std::fs::create_dir_all(temp).unwrap();
        let event_path = temp.join("event.json");
        std::fs::write(&event_path, event.to_string()).unwrap();
        let env = [
            ("GITHUB_ACTIONS", OsString::from("true")),
            ("CI", "true".into()),
            ("RUNNER_OS", "Linux".into()),
            ("RUNNER_TEMP", temp.into()),
            ("GITHUB_WORKSPACE", workspace.into()),
            ("GITHUB_ACTION_PATH", env!("CARGO_MANIFEST_DIR").into()),
            ("GITHUB_EVENT_NAME", "pull_request".into()),
            ("GITHUB_EVENT_PATH", event_path.into()),
        ];
        Runner {
            action,
            inputs,
            event,
            env: env.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
            removed: Vec::new(),
            workspace: workspace.to_path_buf(),
            temp: temp.to_path_buf(),
            outputs: BTreeMap::new(),
            failed: false,
        }
    }

    /// Adds `name=value` to every step's environment.
    fn env(mut self, name: &str, value: impl Into<OsString>) -> Runner {
        self.env.push((name.to_string(), value.into()));
        self
    }

    /// Runs the action's steps in order; with `only`, just the steps of those ids (the others
    /// are as if they had been skipped).
    fn run(mut self, only: Option<&[&str]>) -> Job {
        let steps = self.action["runs"]["steps"].as_vec().unwrap().clone();
        let (mut runs, mut uses, mut exit_code) = (Vec::new(), Vec::new(), 0);
        let mut summary = String::new();
        for (index, step) in steps.iter().enumerate() {
            let name = self.substitute(step["name"].as_str().unwrap_or("?"));
            let wanted =
                only.is_none_or(|ids| step["id"].as_str().is_some_and(|id| ids.contains(&id)));
            let condition = step["if"].as_str().unwrap_or("success()");
            if !wanted || !self.condition(condition) {
                runs.push(StepRun::not_run(name));
                continue;
            }
            if let Some(action) = step["uses"].as_str() {
                uses.push((action.to_string(), self.resolve_map(&step["with"])));
                runs.push(StepRun::not_run(name));
                continue;
            }
            let (run, step_summary) = self.run_script(index, step, name);
            summary += &step_summary;
            if run.code != Some(0) && !self.failed {
                self.failed = true;
                exit_code = run.code.unwrap_or(-1);
            }
            runs.push(run);
        }
        let outputs = self.action_outputs();
        Job {
            steps: runs,
            outputs,
            summary,
            uses,
            exit_code,
        }
    }

    /// Runs the `run:` script of `step` (the `index`th) as a runner does; its log and the summary
    /// it wrote. Its outputs are recorded under its id.
    fn run_script(&mut self, index: usize, step: &Yaml, name: String) -> (StepRun, String) {
        assert_eq!(step["shell"].as_str(), Some("bash"), "step {name}: shell");
        let dir = self.temp.join(format!("step-{index}"));
        std::fs::create_dir_all(&dir).unwrap();
        let (script, output, summary) =
            (dir.join("run.sh"), dir.join("output"), dir.join("summary"));
        std::fs::write(&script, self.substitute(step["run"].as_str().unwrap())).unwrap();
        std::fs::write(&output, "").unwrap();
        std::fs::write(&summary, "").unwrap();
        let working = self.substitute(step["working-directory"].as_str().unwrap_or("."));
        let mut command = Command::new("bash");
        for name in &self.removed {
            command.env_remove(name);
        }
        command
            .args(["--noprofile", "--norc", "-eo", "pipefail"])
            .arg(&script)
            .current_dir(self.workspace.join(working))
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .env("GITHUB_OUTPUT", &output)
            .env("GITHUB_STEP_SUMMARY", &summary)
            .envs(self.resolve_map(&step["env"]));
        let result = command.output().expect("bash runs");
        let log = String::from_utf8_lossy(&result.stdout).into_owned()
            + &String::from_utf8_lossy(&result.stderr);
        if let Some(id) = step["id"].as_str() {
            let text = std::fs::read_to_string(&output).unwrap();
            self.outputs.insert(id.to_string(), parse_outputs(&text));
        }
        let run = StepRun {
            name,
            ran: true,
            code: result.status.code(),
            log,
        };
        (run, std::fs::read_to_string(&summary).unwrap())
    }

    /// Each value of the mapping `yaml` (a step's `env:` or `with:`), its expressions resolved.
    fn resolve_map(&self, yaml: &Yaml) -> BTreeMap<String, String> {
        let mut resolved = BTreeMap::new();
        for (key, value) in yaml.as_hash().into_iter().flatten() {
            let text = match value {
                Yaml::String(s) => s.clone(),
                Yaml::Integer(i) => i.to_string(),
                Yaml::Boolean(b) => b.to_string(),
                other => panic!("{key:?}: a value the simulation does not know: {other:?}"),
            };
            resolved.insert(key.as_str().unwrap().to_string(), self.substitute(&text));
        }
        resolved
    }

    /// The action's outputs, resolved after its steps.
    fn action_outputs(&self) -> BTreeMap<String, String> {
        let outputs = self.action["outputs"].as_hash().unwrap();
        outputs
            .iter()
            .map(|(name, output)| {
                let value = self.substitute(output["value"].as_str().unwrap());
                (name.as_str().unwrap().to_string(), value)
            })
            .collect()
    }
}

/// The `name=value` lines of a `GITHUB_OUTPUT` file (and `name<<DELIMITER` blocks).
fn parse_outputs(text: &str) -> BTreeMap<String, String> {
    let mut outputs = BTreeMap::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if let Some((name, delimiter)) = line.split_once("<<") {
            let value: Vec<&str> = lines.by_ref().take_while(|l| *l != delimiter).collect();
            outputs.insert(name.to_string(), value.join("\n"));
        } else if let Some((name, value)) = line.split_once('=') {
            outputs.insert(name.to_string(), value.to_string());
        }
    }
    outputs
}

/// The expressions `action.yml` uses, and no more: `${{ … }}` in strings, whose values are
/// contexts (`inputs.X`, `steps.ID.outputs.Y`, `github.event.…`); `if:` conditions joined by
/// `&&` of `always()`, `success()`, `failure()`, `==`, `!=` and string literals. Anything else
/// stops the test, so that an expression this does not evaluate cannot pass unnoticed.
impl Runner {
    fn substitute(&self, text: &str) -> String {
        let mut out = String::new();
        let mut rest = text;
        while let Some(start) = rest.find("${{") {
            let end = rest[start..].find("}}").expect("an unclosed ${{") + start;
            out += &rest[..start];
            out += &self.operand(&rest[start + 3..end]);
            rest = &rest[end + 2..];
        }
        out + rest
    }

    fn condition(&self, expression: &str) -> bool {
        let expression = expression.trim();
        let expression = expression
            .strip_prefix("${{")
            .and_then(|e| e.strip_suffix("}}"))
            .unwrap_or(expression);
        assert!(!expression.contains("||"), "`||` in {expression:?}");
        let mut status = None;
        let mut holds = true;
        for term in expression.split("&&").map(str::trim) {
            match term {
                "always()" => status = Some(true),
                "success()" => status = Some(!self.failed),
                "failure()" => status = Some(self.failed),
                _ => holds &= self.comparison(term),
            }
        }
        // Without a status function, a step runs only while no step failed.
        status.unwrap_or(!self.failed) && holds
    }

    /// `a != b`, `a == b` (GitHub compares strings ignoring case), or a value that is true when
    /// not empty.
    fn comparison(&self, term: &str) -> bool {
        let equal = |a: &str, b: &str| self.operand(a).eq_ignore_ascii_case(&self.operand(b));
        if let Some((a, b)) = term.split_once("!=") {
            !equal(a, b)
        } else if let Some((a, b)) = term.split_once("==") {
            equal(a, b)
        } else {
            !self.operand(term).is_empty()
        }
    }

    /// A string literal or a context's value (`''` for what is not set).
    fn operand(&self, text: &str) -> String {
        let text = text.trim();
        if let Some(literal) = text.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')) {
            return literal.replace("''", "'");
        }
        let path: Vec<&str> = text.split('.').collect();
        match path.as_slice() {
            ["inputs", name] => self.inputs.get(*name).cloned().expect("a declared input"),
            ["steps", id, "outputs", name] => self
                .outputs
                .get(*id)
                .and_then(|o| o.get(*name))
                .cloned()
                .unwrap_or_default(),
            ["github", "event", keys @ ..] => {
                let value = keys.iter().fold(&self.event, |v, key| &v[*key]);
                match value {
                    serde_json::Value::String(s) => s.clone(),
                    serde_json::Value::Null => String::new(),
                    other => other.to_string(),
                }
            }
            _ => panic!("an expression the simulated runner does not evaluate: {text:?}"),
        }
    }
}

/// The machine the job runs on: a directory of simulated programs first on `PATH`, and the
/// file they record their calls in.
struct Machine {
    bin: PathBuf,
    calls: PathBuf,
    path: OsString,
}

/// What the machine has besides git, bash and cargo.
#[derive(Clone, Copy, PartialEq)]
enum Has {
    /// valgrind, and a `sudo` and an `apt-get` that record calls.
    Valgrind,
    /// No valgrind; a `sudo` and an `apt-get` that record their calls and, asked to install
    /// valgrind, put the real one on `PATH`.
    AptGet,
    /// Neither valgrind nor `sudo` nor `apt-get`.
    Nothing,
}

impl Machine {
    fn new(root: &Path, has: Has) -> Machine {
        let bin = root.join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let calls = root.join("calls.log");
        std::fs::write(&calls, "").unwrap();
        let test_path = std::env::var_os("PATH").unwrap_or_default();
        let real = |program: &str| {
            locate(program.as_ref(), &test_path)
                .unwrap_or_else(|| panic!("{program} is not installed here"))
        };
        let log = quote_for_shell(calls.to_str().unwrap());
        let cargo = quote_for_shell(real("cargo").to_str().unwrap());
        script(
            &bin.join("cargo"),
            &format!(
                "if [ \"${{1:-}}\" = install ]; then echo \"cargo $*\" >> {log}; exit 0; fi\n\
                 exec {cargo} \"$@\"\n"
            ),
        );
        std::os::unix::fs::symlink(
            env!("CARGO_BIN_EXE_cargo-perfdiff"),
            bin.join("cargo-perfdiff"),
        )
        .unwrap();
        if has != Has::Nothing {
            // The package's programs: Debian's `valgrind` is a script that starts the
            // `valgrind.bin` beside it.
            let valgrind = real("valgrind");
            let programs = valgrind.parent().unwrap().join("valgrind");
            let programs = quote_for_shell(programs.to_str().unwrap());
            let installed = quote_for_shell(bin.to_str().unwrap());
            script(
                &bin.join("sudo"),
                &format!(
                    "echo \"sudo $*\" >> {log}\nwhile [ \"$1\" = -n ]; do shift; done\nexec \"$@\"\n"
                ),
            );
            script(
                &bin.join("apt-get"),
                &format!(
                    "echo \"apt-get $*\" >> {log}\n\
                     if [ \"$1\" = install ]; then ln -sf {programs}* {installed}/; fi\n"
                ),
            );
        }
        let rest = match has {
            Has::Valgrind => test_path,
            Has::AptGet | Has::Nothing => path_without_valgrind(&test_path),
        };
        let path =
            std::env::join_paths(std::iter::once(bin.clone()).chain(std::env::split_paths(&rest)))
                .unwrap();
        Machine { bin, calls, path }
    }

    /// What the simulated programs were asked, one line a call.
    fn calls(&self) -> String {
        std::fs::read_to_string(&self.calls).unwrap()
    }
}

/// An executable shell script at `path`.
fn script(path: &Path, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, format!("#!/bin/bash\n{body}")).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A `PATH` of one directory holding a link to every program of `path` but valgrind, `sudo` and
/// `apt-get` (the first of each name, as a lookup finds it). Made once, at a fixed place: the
/// linker's `PATH` is recorded with a build, and a kept build relinked for a code layout by a
/// later test would not find `cc` in a directory that test's predecessor removed.
fn path_without_valgrind(path: &std::ffi::OsStr) -> OsString {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("path-without-valgrind");
    if !dir.exists() {
        let made = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
        link_programs(made.path(), path);
        // Another test may have made it meanwhile: either is right.
        let _ = std::fs::rename(made.keep(), &dir);
    }
    dir.into_os_string()
}

/// Links every program of `path` but the hidden ones into `dir`.
fn link_programs(dir: &Path, path: &std::ffi::OsStr) {
    let hidden = |name: &str| name.starts_with("valgrind") || name == "sudo" || name == "apt-get";
    for directory in std::env::split_paths(path) {
        for entry in std::fs::read_dir(&directory)
            .into_iter()
            .flatten()
            .flatten()
        {
            let name = entry.file_name();
            let link = dir.join(&name);
            let skip = hidden(&name.to_string_lossy()) || !entry.path().is_file();
            if skip || link.symlink_metadata().is_ok() {
                continue;
            }
            std::os::unix::fs::symlink(entry.path(), link).unwrap();
        }
    }
}

/// A runner whose `PATH` is `machine`'s, in `workspace`, with the variables of the test process
/// that a runner would not have (cargo-perfdiff's, GitHub's) removed, and the tests' shared
/// target directory and kept builds.
fn runner(
    machine: &Machine,
    workspace: &Path,
    temp: &Path,
    event: serde_json::Value,
    with: &[(&str, &str)],
) -> Runner {
    let mut runner = Runner::new(workspace, temp, event, with)
        .env("PATH", &machine.path)
        .env("CARGO_TARGET_DIR", shared_target_dir())
        .env(KEPT_BUILDS.0, KEPT_BUILDS.1)
        .env("NO_COLOR", "1");
    runner.removed = std::env::vars_os()
        .filter_map(|(name, _)| name.into_string().ok())
        .filter(|name| {
            ["CARGO_PERFDIFF", "GITHUB_", "RUNNER_", "RUSTC_BOOTSTRAP"]
                .iter()
                .any(|prefix| name.starts_with(prefix))
        })
        .collect();
    runner
}

/// The payload of a `pull_request` event whose base commit is `base`.
fn pull_request(base: &str, head: &str) -> serde_json::Value {
    serde_json::json!({
        "action": "synchronize",
        "number": 7,
        "pull_request": {
            "number": 7,
            "base": {"ref": "main", "sha": base},
            "head": {"ref": "faster-hash", "sha": head}
        }
    })
}

/// The demo as `cargo perfdiff demo` makes it: head makes `hash/mix` 10 % slower, `hash/slight`
/// 3 %, `hash/checksum` 19 % faster, leaves `hash/steady` alone and adds a benchmark in a bench
/// target of its own.
fn the_demo() -> DemoOptions {
    DemoOptions {
        changes: DemoChanges {
            new_benchmark_own_target: true,
            ..DemoChanges::default()
        },
        ..DemoOptions::default()
    }
}

/// Instruction counts decide the demo's changes in the first two rounds whatever the machine's
/// load (docs/instructions.md); two layouts, since selection compares the objects a build with
/// layouts keeps; short traces.
const ARGS: &str = "--metric instructions --layouts 2 --warm-up-time 0.05 \
                    --measurement-time 0.2 --sample-size 10 --seed 7";

/// The files the job writes into its checkout (the action's default `report` and `samples`).
const JOB_FILES: &[&str] = &["perfdiff-report.md", "perfdiff-samples.json"];

/// Removes [`JOB_FILES`] from `repo`, where an earlier job (an earlier run of the suite, or one
/// that failed half way) may have left them.
fn remove_job_files(repo: &Path) {
    for file in JOB_FILES {
        let _ = std::fs::remove_file(repo.join(file));
    }
}

#[test]
fn on_a_pull_request_the_action_installs_valgrind_selects_and_fails_on_the_regression() {
    let guard = measuring_lock();
    // A repository kept from one run of the suite to the next (`shared_demo_with`), with its
    // state: its checkouts, the traces selection keyed by executable content, and the build with
    // line tables that names the functions behind a change (per checkout), which a repository of
    // the test's own made again on every run. The job writes into the checkout: removed before
    // it runs, so that what it finds there is its own, and after.
    let (dir, repo) = shared_demo_with(&guard, &the_demo(), "the action's job", |_| {});
    remove_job_files(&repo);
    let machine = Machine::new(&dir.path().join("machine"), Has::AptGet);
    let (base, head) = (rev_parse(&repo, "HEAD~1"), rev_parse(&repo, "HEAD"));
    let temp = dir.path().join("runner-temp");
    let job = runner(
        &machine,
        &repo,
        &temp,
        pull_request(&base, &head),
        &[("args", ARGS)],
    )
    .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", OPT_LEVEL)
    .env("CARGO_PROFILE_BENCH_OPT_LEVEL", OPT_LEVEL)
    .run(None);
    let report_written = repo.join("perfdiff-report.md").is_file();
    remove_job_files(&repo);
    drop(guard);
    let logs = job.logs();

    // The base came from the event's payload, the head is the checkout's HEAD.
    assert_eq!(job.outputs["base"], base, "{logs}");
    assert_eq!(job.outputs["head"], head, "{logs}");
    assert_eq!(job.outputs["exit-code"], "1", "a regression: {logs}");
    assert_eq!(job.outputs["report"], "perfdiff-report.md", "{logs}");
    assert!(report_written, "{logs}");
    // Every step up to the gate succeeded; the gate failed the job with cargo-perfdiff's code.
    assert_eq!(job.exit_code, 1, "{logs}");
    for step in &job.steps {
        let expected = if step.name.starts_with("Fail the way") {
            1
        } else {
            0
        };
        if step.ran {
            assert_eq!(step.code, Some(expected), "{}: {logs}", step.name);
        }
    }
    assert!(
        job.step("Compare")
            .name
            .contains(&format!("Compare {base} with HEAD")),
        "{logs}"
    );

    let calls = machine.calls();
    let action_path = env!("CARGO_MANIFEST_DIR");
    assert!(
        calls.contains(&format!("cargo install --locked --path {action_path}\n")),
        "{calls}"
    );
    assert!(
        calls.contains("sudo apt-get install -y -q --no-install-recommends valgrind\n"),
        "{calls}"
    );
    assert!(machine.bin.join("valgrind").exists(), "{calls}");
    assert_artifact_uploaded(&job, &temp, &logs);
    let report = temp.join("perfdiff-artifact/report.json");
    let report = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_selection_on_in_the_summary(&job, &report, &logs);
    assert!(!logs.contains("::warning"), "{logs}");
}

/// The summary holds the report (its title, the regressed benchmarks) and the selection line:
/// on, with valgrind installed, and as many benchmarks skipped as the run's JSON report says.
/// That is `hash/steady`, which the change does not reach, unless its native probe could not
/// run as long as a fork on a busy machine, which measures it (docs/selection.md).
fn assert_selection_on_in_the_summary(job: &Job, report: &serde_json::Value, logs: &str) {
    let summary = &job.summary;
    assert!(
        summary.starts_with("## :x: 2 regressions"),
        "{summary}\n{logs}"
    );
    assert!(summary.contains("hash/mix (instructions)"), "{summary}");
    assert!(summary.contains("hash/slight (instructions)"), "{summary}");
    let line = summary
        .lines()
        .find(|l| l.starts_with("**Selection"))
        .unwrap_or_else(|| panic!("no selection line in {summary}"));
    assert!(line.starts_with("**Selection on** (valgrind-"), "{line}");
    assert!(line.contains(", installed by this action)"), "{line}");
    let benchmarks = report["benchmarks"].as_array().unwrap();
    let skipped: Vec<&serde_json::Value> = benchmarks
        .iter()
        .filter(|b| b["selection"]["reason"] == "same_code")
        .collect();
    assert!(
        line.ends_with(&format!("; {} benchmark(s) were.", skipped.len())),
        "{line}"
    );
    let steady = benchmarks
        .iter()
        .find(|b| b["id"].as_str().unwrap().starts_with("hash/steady"))
        .unwrap_or_else(|| panic!("no hash/steady in {report:#}"));
    let detail = steady["selection"]["detail"].as_str().unwrap_or_default();
    let busy = detail.contains("probe");
    assert!(
        skipped.len() == 1 && skipped[0] == steady || skipped.is_empty() && busy,
        "{report:#}"
    );
}

/// The artifact step would upload the report, its JSON and the samples.
fn assert_artifact_uploaded(job: &Job, temp: &Path, logs: &str) {
    let (uses, with) = job
        .uses
        .iter()
        .find(|(uses, _)| uses.starts_with("actions/upload-artifact@"))
        .unwrap_or_else(|| panic!("no upload: {logs}"));
    assert_eq!(with["name"], "perfdiff", "{uses}");
    let dir = temp.join("perfdiff-artifact");
    assert_eq!(Path::new(&with["path"]), dir);
    for file in [
        "perfdiff-report.md",
        "report.json",
        "samples/perfdiff-samples.json",
    ] {
        assert!(
            dir.join(file).is_file(),
            "{file} not in the artifact: {logs}"
        );
    }
}

/// The selection step alone (and the summary after it) on a demo repository, which it reads for
/// its configuration: the job, and the calls the machine's programs received.
fn selection_step(has: Has, with: &[(&str, &str)]) -> (Job, String) {
    let (dir, repo) = demo_repo(&the_demo());
    let machine = Machine::new(&dir.path().join("machine"), has);
    let base = rev_parse(&repo, "HEAD~1");
    let temp = dir.path().join("runner-temp");
    let job = runner(&machine, &repo, &temp, pull_request(&base, "HEAD"), with)
        .run(Some(&["valgrind", "summary"]));
    assert_eq!(job.exit_code, 0, "{}", job.logs());
    (job, machine.calls())
}

#[test]
fn valgrind_on_the_path_is_used_and_nothing_is_installed() {
    let (job, calls) = selection_step(Has::Valgrind, &[]);
    assert_eq!(calls, "", "nothing is installed");
    let step = job.step("Make sure valgrind");
    assert!(
        step.log
            .contains("::notice title=cargo-perfdiff::selection on (valgrind-"),
        "{}",
        step.log
    );
    assert!(
        job.summary.starts_with("**Selection on** (valgrind-"),
        "{}",
        job.summary
    );
    assert!(
        !job.summary.contains("installed by this action"),
        "{}",
        job.summary
    );
}

#[test]
fn without_valgrind_or_a_way_to_install_it_selection_is_off_and_the_summary_says_why() {
    let (job, calls) = selection_step(Has::Nothing, &[]);
    assert_eq!(calls, "");
    let why = "valgrind is missing and this runner has no apt-get to install it: \
               install valgrind in an earlier step";
    let step = job.step("Make sure valgrind");
    assert!(
        step.log.contains(&format!(
            "::warning title=cargo-perfdiff::selection off, every benchmark is measured: {why}"
        )),
        "{}",
        step.log
    );
    assert_eq!(
        job.summary,
        format!("**Selection off**: every benchmark is measured, because {why}.\n")
    );
}

#[test]
fn measure_all_turns_selection_off_and_installs_nothing() {
    let (job, calls) = selection_step(Has::AptGet, &[("args", "--measure-all --seed 7")]);
    assert_eq!(calls, "", "valgrind is not needed");
    assert_eq!(
        job.summary,
        "**Selection off**: every benchmark is measured, because measure-all is set (command line).\n"
    );
}
