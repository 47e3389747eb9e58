//! The JSON report: `serde_json` of [`Report`], pretty-printed. The field names are a contract
//! for CI scripts (documented in `docs/reports.md`, checked by `tests/offline/report_json.rs`), so this
//! module adds nothing of its own: change `analysis::Report` with care.

use serde::Serialize;

use crate::steps::analysis::Report;

/// The report as pretty JSON with a trailing newline. Non-finite numbers become `null`.
pub fn render(report: &Report) -> String {
    pretty("report", report)
}

/// `value` as pretty JSON with a trailing newline; `what` names it in the error object given
/// instead if it cannot be serialised, which is unreachable with our types (string keys only),
/// but output never panics.
pub(super) fn pretty(what: &str, value: &impl Serialize) -> String {
    match serde_json::to_string_pretty(value) {
        Ok(json) => json + "\n",
        Err(e) => {
            serde_json::json!({ "error": format!("cannot serialise {what}: {e}") }).to_string()
                + "\n"
        }
    }
}
