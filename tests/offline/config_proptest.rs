//! Whatever text a user puts in perfdiff.toml or Cargo.toml, loading it returns settings or an
//! error; it never panics, and errors stay one line naming the file.

use std::fs;

use cargo_perfdiff::config::{KNOWN_KEYS, PartialSettings, load_files, resolve};
use proptest::prelude::*;

/// Lines that look like configuration: known and unknown keys, all kinds of values, headers.
fn toml_ish_line() -> impl Strategy<Value = String> {
    let key = prop_oneof![
        proptest::sample::select(KNOWN_KEYS.to_vec()).prop_map(str::to_string),
        "[a-z_-]{1,12}",
        Just("benchmarks.\"x\".threshold".to_string()),
    ];
    let value = prop_oneof![
        any::<i64>().prop_map(|n| n.to_string()),
        any::<f64>().prop_map(|x| format!("{x:?}")),
        Just("nan".to_string()),
        Just("inf".to_string()),
        "\"[^\"\\\\\n]{0,8}\"",
        Just("true".to_string()),
        Just("[1, 2]".to_string()),
        Just("[\"(\", \"a\"]".to_string()),
        Just("{ threshold = 0.5 }".to_string()),
        "[ -~]{0,10}",
    ];
    prop_oneof![
        (key, value).prop_map(|(k, v)| format!("{k} = {v}")),
        Just("[benchmarks.\"^a\"]".to_string()),
        Just("[workspace.metadata.perfdiff]".to_string()),
        Just("[package.metadata.perfdiff]".to_string()),
        "[ -~]{0,30}",
    ]
}

fn check_never_panics(file_name: &str, text: &str) -> Result<(), TestCaseError> {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join(file_name), text).unwrap();
    match load_files(dir.path()) {
        Ok(layers) => {
            if let Err(error) = resolve(layers, PartialSettings::default()) {
                let message = error.to_string();
                prop_assert!(!message.contains('\n'), "multi-line error: {message}");
            }
        }
        Err(error) => {
            let message = error.to_string();
            prop_assert!(
                message.contains(file_name),
                "error does not name the file: {message}"
            );
            prop_assert!(!message.contains('\n'), "multi-line error: {message}");
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn arbitrary_text_in_perfdiff_toml_never_panics(text in any::<String>()) {
        check_never_panics("perfdiff.toml", &text)?;
    }

    #[test]
    fn toml_ish_perfdiff_toml_never_panics(lines in proptest::collection::vec(toml_ish_line(), 0..8)) {
        check_never_panics("perfdiff.toml", &lines.join("\n"))?;
    }

    #[test]
    fn toml_ish_cargo_toml_never_panics(lines in proptest::collection::vec(toml_ish_line(), 0..8)) {
        check_never_panics("Cargo.toml", &lines.join("\n"))?;
    }
}
