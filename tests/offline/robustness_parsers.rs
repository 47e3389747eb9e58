//! Robustness (issue #7): the parsers of external formats get arbitrary input and must answer with
//! an error (or a result), never a panic: samples files (and the analysis of any file that loads,
//! with whatever numbers it holds), cargo's JSON messages, criterion's benchmark listing and its
//! runner protocol. The configuration parsers have their own property tests
//! (`config_proptest.rs`).

use std::path::Path;

use cargo_perfdiff::config::Settings;
use cargo_perfdiff::model::samples::{FailureRecord, ForkRecord, SampleFile, SideRecord};
use cargo_perfdiff::steps::fork::protocol::{self, Inbox};
use proptest::prelude::*;

const VALID: &str = r#"{"schema": "perfdiff-samples/1",
  "run": {"seed": 3, "mode": "interleaved"},
  "benchmarks": [{"id": "group/name", "presence": "both",
    "base": {"forks": [{"iters": [7, 14], "times_ns": [7100.0, 14150.0], "warmup_dropped": 1}]},
    "head": {"forks": [{"iters": [7, 14], "times_ns": [7300.0, 14700.0]}],
             "failure": {"message": "exited with status 3", "stderr_tail": "boom"}}}]}"#;

/// Loads `text` as a samples file; if it loads, analyses it (which must not panic either).
fn load_and_analyse(text: &str) -> Result<(), TestCaseError> {
    match SampleFile::from_json(Path::new("fuzz.json"), text) {
        Ok(file) => {
            let settings = Settings {
                resamples: 50,
                ..Settings::default()
            };
            let report = cargo_perfdiff::orchestrate::run::analyse_samples(&file, &settings, None);
            prop_assert_eq!(report.benchmarks.len(), file.benchmarks.len());
        }
        Err(e) => {
            let message = e.to_string();
            prop_assert!(message.contains("fuzz.json"), "{}", message);
            prop_assert!(!message.contains('\n'), "one line: {}", message);
        }
    }
    Ok(())
}

fn number() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(0.0),
        Just(-1.0),
        Just(1e300),
        Just(f64::MIN_POSITIVE),
        0.0..1e9f64,
        1.0..100.0f64,
    ]
}

fn fork() -> impl Strategy<Value = ForkRecord> {
    (
        proptest::collection::vec(number(), 0..6),
        proptest::collection::vec(number(), 0..6),
        proptest::option::of(0usize..8),
        any::<bool>(),
    )
        .prop_map(|(iters, times_ns, warmup_dropped, unsteady)| ForkRecord {
            iters,
            times_ns,
            warmup_dropped,
            unsteady,
            ..Default::default()
        })
}

fn side() -> impl Strategy<Value = SideRecord> {
    (
        proptest::collection::vec(fork(), 0..4),
        proptest::option::of(".{0,20}"),
    )
        .prop_map(|(forks, failure)| SideRecord {
            forks,
            failure: failure.map(|message| FailureRecord {
                message,
                stderr_tail: String::new(),
            }),
            profile: None,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn arbitrary_bytes_as_a_samples_file_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        load_and_analyse(&String::from_utf8_lossy(&bytes))?;
    }

    #[test]
    fn truncated_or_mutated_samples_files_never_panic(cut in 0..VALID.len(), at in 0..VALID.len(), byte in any::<u8>()) {
        load_and_analyse(&VALID[..cut])?;
        let mut bytes = VALID.as_bytes().to_vec();
        bytes[at] = byte;
        load_and_analyse(&String::from_utf8_lossy(&bytes))?;
    }

    #[test]
    fn any_structurally_valid_samples_file_loads_or_is_refused_and_analyses(
        sides in proptest::collection::vec((side(), side(), "[a-z/ ü$;]{1,12}", 0u8..3), 0..4),
    ) {
        let mut file = SampleFile::new(Default::default());
        for (base, head, id, presence) in sides {
            let presence = match presence {
                0 => cargo_perfdiff::model::samples::Presence::Both,
                1 => cargo_perfdiff::model::samples::Presence::OnlyInBase,
                _ => cargo_perfdiff::model::samples::Presence::OnlyInHead,
            };
            let record = file.benchmark_mut(&id, presence);
            record.base = base;
            record.head = head;
        }
        let text = serde_json::to_string(&file).unwrap();
        load_and_analyse(&text)?;
    }

    #[test]
    fn arbitrary_cargo_messages_never_panic(lines in proptest::collection::vec(cargo_ish_line(), 0..8)) {
        let stream = lines.join("\n");
        let _ = cargo_perfdiff::steps::build::parse_messages(stream.as_bytes());
    }

    #[test]
    fn arbitrary_criterion_listings_never_panic(text in any::<String>()) {
        let ids = cargo_perfdiff::steps::discover::parse_list(&text);
        for id in ids {
            let line = format!("{id}: benchmark");
            prop_assert!(text.contains(&line));
        }
    }

    #[test]
    fn arbitrary_runner_protocol_bytes_never_panic(chunks in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..64), 0..6)) {
        let mut inbox = Inbox::default();
        for chunk in &chunks {
            inbox.push(chunk);
            while let Ok(Some(frame)) = inbox.next_frame() {
                let _ = protocol::decode(&frame);
            }
        }
        for chunk in &chunks {
            let _ = protocol::decode(chunk);
        }
    }
}

/// Lines that look like cargo's JSON messages, some of them broken.
fn cargo_ish_line() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        Just(r#"{"reason":"compiler-artifact","target":{"name":"demo","kind":["bench"]},"executable":"/x/y"}"#.to_string()),
        Just(r#"{"reason":"compiler-artifact","target":{"kind":"bench"},"executable":null}"#.to_string()),
        Just(r#"{"reason":"compiler-message","message":{"rendered":null,"level":7}}"#.to_string()),
        Just(r#"{"reason":"build-finished","success":"yes"}"#.to_string()),
        Just(r#"{"reason":"compiler-message""#.to_string()),
        "[a-z\":{},\\[\\] ]{0,60}".prop_map(|s| format!("{{\"reason\":{s}")),
    ]
}
