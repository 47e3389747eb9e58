//! The JSON report: `serde_json` of [`Report`], pretty-printed. The field names are a contract
//! for CI scripts (documented in `docs/reports.md`, checked by `tests/report_json.rs`), so this
//! module adds nothing of its own: change `analysis::Report` with care.

use crate::analysis::Report;

/// The report as pretty JSON with a trailing newline. Non-finite numbers become `null`.
pub fn render(report: &Report) -> String {
    match serde_json::to_string_pretty(report) {
        Ok(json) => json + "\n",
        // Unreachable with the report's types (string keys only), but never panic on output.
        Err(e) => {
            serde_json::json!({ "error": format!("cannot serialise report: {e}") }).to_string()
                + "\n"
        }
    }
}
