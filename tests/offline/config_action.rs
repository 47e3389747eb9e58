//! The GitHub Actions integration is YAML nobody can run here; these tests catch what breaks it
//! silently: invalid YAML, an input used but not declared (it expands to an empty string), a
//! workflow passing an input the action does not have, or reading an output nobody sets.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use regex::Regex;
use yaml_rust2::{Yaml, YamlLoader};

const OUR_ACTION: &str = "OWNER/cargo-perfdiff@v0";

fn repo_file(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)
}

fn load(path: &Path) -> (String, Yaml) {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut docs =
        YamlLoader::load_from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(docs.len(), 1, "{}: one YAML document", path.display());
    (text, docs.remove(0))
}

fn keys(yaml: &Yaml) -> BTreeSet<String> {
    yaml.as_hash()
        .map(|h| {
            h.keys()
                .filter_map(|k| k.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn workflows() -> Vec<(PathBuf, String, Yaml)> {
    let mut files: Vec<PathBuf> = fs::read_dir(repo_file("examples/workflows"))
        .expect("examples/workflows")
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yml"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 3,
        "expected the three example workflows, found {files:?}"
    );
    files
        .into_iter()
        .map(|p| {
            let (text, yaml) = load(&p);
            (p, text, yaml)
        })
        .collect()
}

fn action() -> (String, Yaml) {
    load(&repo_file("action.yml"))
}

fn referenced(text: &str, pattern: &str) -> BTreeSet<String> {
    Regex::new(pattern)
        .unwrap()
        .captures_iter(text)
        .map(|c| c[1].to_string())
        .collect()
}

#[test]
fn action_is_a_composite_action_whose_inputs_are_declared_and_used() {
    let (text, yaml) = action();
    assert_eq!(yaml["runs"]["using"].as_str(), Some("composite"));
    let declared = keys(&yaml["inputs"]);
    let used = referenced(&text, r"inputs\.([a-z][a-z0-9-]*)");
    assert_eq!(used, declared, "inputs used in steps vs declared");
    for (name, input) in yaml["inputs"].as_hash().unwrap() {
        assert!(
            input["description"].as_str().is_some(),
            "input {name:?} has no description"
        );
    }
    for step in yaml["runs"]["steps"].as_vec().unwrap() {
        if step["run"].as_str().is_some() {
            assert!(
                step["shell"].as_str().is_some(),
                "composite run steps need a shell: {step:?}"
            );
        }
    }
}

#[test]
fn action_outputs_come_from_steps_that_exist() {
    let (text, yaml) = action();
    let step_ids: BTreeSet<String> = yaml["runs"]["steps"]
        .as_vec()
        .unwrap()
        .iter()
        .filter_map(|s| s["id"].as_str().map(str::to_string))
        .collect();
    let referenced_steps = referenced(&text, r"steps\.([a-z][a-z0-9-]*)\.outputs");
    assert!(
        referenced_steps.is_subset(&step_ids),
        "{referenced_steps:?} not all in {step_ids:?}"
    );
    // Every output a step is read for is written by that step.
    for (id, output) in Regex::new(r"steps\.([a-z][a-z0-9-]*)\.outputs\.([a-z][a-z0-9-]*)")
        .unwrap()
        .captures_iter(&text)
        .map(|c| (c[1].to_string(), c[2].to_string()))
    {
        let step = yaml["runs"]["steps"]
            .as_vec()
            .unwrap()
            .iter()
            .find(|s| s["id"].as_str() == Some(&id))
            .unwrap();
        let script = step["run"].as_str().unwrap_or_default();
        assert!(
            script.contains(&format!("{output}=")),
            "step {id} never sets output {output}"
        );
    }
}

#[test]
fn action_installs_from_its_own_checkout_and_runs_the_markdown_report() {
    let (text, _) = action();
    assert!(text.contains(r#"cargo install --locked --path "$GITHUB_ACTION_PATH""#));
    assert!(text.contains("--format markdown --output"));
    assert!(text.contains("GITHUB_STEP_SUMMARY"));
    assert!(text.contains("actions/upload-artifact@"));
}

#[test]
fn workflows_pass_only_inputs_the_action_has() {
    let (_, action) = action();
    let inputs = keys(&action["inputs"]);
    let outputs = keys(&action["outputs"]);
    let step_output = Regex::new(r"steps\.([a-z][a-z0-9-]*)\.outputs\.([a-z][a-z0-9-]*)").unwrap();
    for (path, _, workflow) in workflows() {
        assert!(
            !workflow["jobs"].is_badvalue(),
            "{}: no jobs",
            path.display()
        );
        for (job_name, job) in workflow["jobs"].as_hash().unwrap() {
            let steps = job["steps"].as_vec().expect("steps");
            for step in steps {
                if step["uses"].as_str() == Some(OUR_ACTION) {
                    let given = keys(&step["with"]);
                    assert!(
                        given.is_subset(&inputs),
                        "{} job {job_name:?}: unknown inputs {:?}",
                        path.display(),
                        given.difference(&inputs).collect::<Vec<_>>()
                    );
                }
            }
            // steps.ID.outputs.NAME in this job: ID is a step of the job using our action and
            // NAME one of its outputs, or a step of the job that sets NAME itself.
            let job_text = format!("{job:?}");
            for captures in step_output.captures_iter(&job_text) {
                let (id, output) = (&captures[1], &captures[2]);
                let step = steps
                    .iter()
                    .find(|s| s["id"].as_str() == Some(id))
                    .unwrap_or_else(|| panic!("{}: no step with id {id}", path.display()));
                let ok = if step["uses"].as_str() == Some(OUR_ACTION) {
                    outputs.contains(output)
                } else {
                    step["run"]
                        .as_str()
                        .unwrap_or_default()
                        .contains(&format!("{output}="))
                };
                assert!(
                    ok,
                    "{}: steps.{id}.outputs.{output} is never set",
                    path.display()
                );
            }
        }
    }
}

#[test]
fn workflows_check_out_full_history() {
    for (path, _, workflow) in workflows() {
        for (_, job) in workflow["jobs"].as_hash().unwrap() {
            for step in job["steps"].as_vec().unwrap() {
                if step["uses"]
                    .as_str()
                    .is_some_and(|u| u.starts_with("actions/checkout@"))
                {
                    assert_eq!(
                        step["with"]["fetch-depth"].as_i64(),
                        Some(0),
                        "{}: checkout without fetch-depth: 0",
                        path.display()
                    );
                }
            }
        }
    }
}

#[test]
fn sharded_workflow_merges_every_shard() {
    let (text, workflow) = load(&repo_file("examples/workflows/sharded.yml"));
    let shards = workflow["jobs"]["shard"]["strategy"]["matrix"]["shard"]
        .as_vec()
        .expect("a shard matrix");
    let shards: Vec<i64> = shards.iter().filter_map(Yaml::as_i64).collect();
    assert_eq!(shards, vec![1, 2, 3]);
    assert!(text.contains(&format!("--shard ${{{{ matrix.shard }}}}/{}", shards.len())));
    assert_eq!(workflow["jobs"]["report"]["needs"].as_str(), Some("shard"));
    assert!(text.contains("cargo perfdiff report"));
}

#[test]
fn pull_request_workflow_runs_on_pull_requests_and_comments_with_gh_only() {
    let (text, workflow) = load(&repo_file("examples/workflows/pull-request.yml"));
    let on = &workflow["on"];
    assert!(
        !on["pull_request"].is_badvalue(),
        "not triggered by pull_request"
    );
    assert!(text.contains("gh pr comment"));
    assert!(
        !text.contains("marocchino"),
        "only gh, no third-party comment action"
    );
}

#[test]
fn pre_release_workflow_compares_with_the_last_tag_and_fails_on_inconclusive() {
    let (text, _) = load(&repo_file("examples/workflows/pre-release.yml"));
    assert!(text.contains("git describe --tags --abbrev=0"));
    assert!(text.contains("fail-on: inconclusive"));
}

/// Every `run:` script of `yaml`'s steps (an action's `runs.steps` or each job's `steps`).
fn run_scripts(yaml: &Yaml) -> Vec<String> {
    let mut step_lists = vec![&yaml["runs"]["steps"]];
    if let Some(jobs) = yaml["jobs"].as_hash() {
        step_lists.extend(jobs.values().map(|job| &job["steps"]));
    }
    step_lists
        .into_iter()
        .filter_map(Yaml::as_vec)
        .flatten()
        .filter_map(|step| step["run"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn scripts_that_keep_an_exit_code_turn_off_the_runner_s_errexit_first() {
    // A runner starts `shell: bash` as `bash --noprofile --norc -eo pipefail`: a script that
    // runs a command and then reads `$?` never gets there when the command fails, unless it
    // turns `-e` off before (`set -uo pipefail` leaves it on). The regression it stops at is
    // the one the report and the gate exist for.
    let (_, action) = action();
    let mut scripts = run_scripts(&action);
    for (_, _, workflow) in workflows() {
        scripts.extend(run_scripts(&workflow));
    }
    let keeping = scripts.iter().filter(|s| s.contains("=$?")).count();
    assert!(
        keeping >= 2,
        "the action's run step and sharded.yml's merge"
    );
    for script in scripts.iter().filter(|s| s.contains("=$?")) {
        let errexit_off = script.find("set +e");
        assert!(
            errexit_off.is_some_and(|at| at < script.find("=$?").unwrap()),
            "reads an exit code with -e on:\n{script}"
        );
    }
}

/// The job summary step's script, run as a runner runs it (`bash -eo pipefail`) in a scratch
/// directory holding `samples` as the samples file, without a report: what it appends to the
/// summary, and what it prints (annotations).
fn job_summary_of(samples: &serde_json::Value) -> (String, String) {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("samples.json"),
        serde_json::to_string_pretty(samples).unwrap(),
    )
    .unwrap();
    job_summary_in(dir.path(), None, ("off", "measure-all is set"))
}

/// The job summary step's script run in `dir`, which holds the samples file `samples.json` and
/// `report` (its text, written as `report.md`) when given, with the selection step's outputs
/// `selection` (`on` or `off`, and why): what it appends to the summary, and what it prints.
fn job_summary_in(dir: &Path, report: Option<&str>, selection: (&str, &str)) -> (String, String) {
    let (_, action) = action();
    let script = action["runs"]["steps"]
        .as_vec()
        .unwrap()
        .iter()
        .find(|step| step["id"].as_str() == Some("summary"))
        .and_then(|step| step["run"].as_str())
        .expect("the summary step")
        .to_string();
    let summary = dir.join("summary.md");
    if let Some(report) = report {
        fs::write(dir.join("report.md"), report).unwrap();
    }
    let output = std::process::Command::new("bash")
        .args(["--noprofile", "--norc", "-eo", "pipefail", "-c", &script])
        .current_dir(dir)
        .env("REPORT", report.map_or("", |_| "report.md"))
        .env("SAMPLES", "samples.json")
        .env("SELECTION", selection.0)
        .env("WHY", selection.1)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    (
        fs::read_to_string(&summary).unwrap(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

/// A duet run's samples file with `mode_change` (as `cargo perfdiff` writes it), or without.
fn duet_samples(change: Option<serde_json::Value>) -> serde_json::Value {
    let mut run = serde_json::json!({"mode": "duet"});
    if let Some(change) = change {
        run["mode_change"] = change;
    }
    serde_json::json!({"schema": "perfdiff-samples/1", "run": run, "benchmarks": []})
}

#[test]
fn the_job_summary_says_when_duet_left_for_interleaved_or_was_kept() {
    let change = |used: &str| {
        serde_json::json!({
            "asked": "duet", "used": used, "from_round": 2, "shared_round": 1,
            "cpu_wait_share": 0.145, "limit": 0.02,
            "cpus": [{"cpu": 0, "cpu_wait_share": 0.19, "forks": 4},
                     {"cpu": 1, "cpu_wait_share": 0.1, "forks": 4}]
        })
    };
    let (summary, printed) = job_summary_of(&duet_samples(Some(change("interleaved"))));
    assert!(
        summary.contains(
            "**Duet left for interleaved**: in round 2 the forks waited for a CPU 14.5 % of the \
             time they were ready to run"
        ) && summary.contains("the rounds from 3 on ran interleaved and round 2 was set aside"),
        "{summary}"
    );
    assert!(
        printed.contains("::warning title=cargo-perfdiff::duet's two CPUs were shared"),
        "{printed}"
    );
    let (summary, _) = job_summary_of(&duet_samples(Some(change("duet"))));
    assert!(
        summary.contains("**Duet kept** (`--keep-duet`)"),
        "{summary}"
    );
    let (summary, printed) = job_summary_of(&duet_samples(None));
    assert!(
        !summary.contains("Duet") && !printed.contains("::warning"),
        "{summary}{printed}"
    );
}

/// A samples file as `cargo perfdiff --metric time,instructions` saves it, with a command: every
/// record of a benchmark or command carries its selection (`reach::record`), the time record,
/// the instruction record and a command's memory record alike.
fn samples_with_every_record_selected(dir: &Path) {
    use cargo_perfdiff::model::samples::{
        Presence, RunInfo, SampleFile, SelectionReason, SelectionRecord,
    };
    let mut file = SampleFile::new(RunInfo::default());
    let selection = |reason| SelectionRecord {
        measured: reason != SelectionReason::SameCode,
        reason,
        detail: "from the trace".to_string(),
        ..SelectionRecord::default()
    };
    for (id, reason) in [
        ("hash/steady", SelectionReason::SameCode),
        ("hash/mix", SelectionReason::ReachesChange),
        ("spin", SelectionReason::SameCode),
    ] {
        for record in [
            id.to_string(),
            format!("{id} (instructions)"),
            format!("{id} (peak memory)"),
        ] {
            if record.ends_with("(peak memory)") && id != "spin" {
                continue;
            }
            file.benchmark_mut(&record, Presence::Both).selection = Some(selection(reason));
        }
    }
    file.save(&dir.join("samples.json")).unwrap();
}

#[test]
fn the_job_summary_counts_each_benchmark_skipped_once_whatever_records_it_has() {
    let dir = tempfile::tempdir().unwrap();
    samples_with_every_record_selected(dir.path());
    let report = "## :white_check_mark: no regression\n";
    let (summary, _) = job_summary_in(dir.path(), Some(report), ("on", "valgrind-3.22.0"));
    assert!(summary.starts_with(report), "{summary}");
    // hash/steady (time and instructions) and the command spin (time, instructions and peak
    // memory): two skipped, not five.
    assert!(
        summary.contains(
            "**Selection on** (valgrind-3.22.0): a benchmark that executes the same code on \
             both sides is unchanged (same code) without measuring; 2 benchmark(s) were.\n"
        ),
        "{summary}"
    );
}
