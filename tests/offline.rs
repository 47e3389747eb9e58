//! The tests that build and measure nothing, in one test binary (one link, one process): the
//! statistics, configuration, reports, replay, docs, git plumbing, and errors the installed binary
//! gives before any build. Each module is one former test file, in `tests/offline/`.
//!
//! `cargo test --test offline` runs them all in seconds; `cargo test --test offline config_files::`
//! one file's. The tests that build benchmarks are in `tests/fixture_crates.rs` (the fixture crates,
//! through the library) and `tests/end_to_end.rs` (the installed binary on demo repositories).

mod report_support;
mod support;

#[path = "common/gnu_time.rs"]
mod gnu_time;

#[path = "offline/bisect_history.rs"]
mod bisect_history;
#[path = "offline/calibrated_simulation.rs"]
mod calibrated_simulation;
#[path = "offline/cli_help.rs"]
mod cli_help;
#[path = "offline/command_memory.rs"]
mod command_memory;
#[path = "offline/config_action.rs"]
mod config_action;
#[path = "offline/config_docs.rs"]
mod config_docs;
#[path = "offline/config_files.rs"]
mod config_files;
#[path = "offline/config_proptest.rs"]
mod config_proptest;
#[path = "offline/config_render.rs"]
mod config_render;
#[path = "offline/discover_list.rs"]
mod discover_list;
#[path = "offline/docs_links.rs"]
mod docs_links;
#[path = "offline/fork_text.rs"]
mod fork_text;
#[path = "offline/git_revisions_worktrees.rs"]
mod git_revisions_worktrees;
#[path = "offline/replay.rs"]
mod replay;
#[path = "offline/report_exit_code.rs"]
mod report_exit_code;
#[path = "offline/report_functions.rs"]
mod report_functions;
#[path = "offline/report_html.rs"]
mod report_html;
#[path = "offline/report_json.rs"]
mod report_json;
#[path = "offline/report_markdown.rs"]
mod report_markdown;
#[path = "offline/report_table.rs"]
mod report_table;
#[path = "offline/robustness_input.rs"]
mod robustness_input;
#[path = "offline/robustness_parsers.rs"]
mod robustness_parsers;
#[path = "offline/stats_properties.rs"]
mod stats_properties;
#[path = "offline/stats_reference.rs"]
mod stats_reference;
#[path = "offline/stats_simulation.rs"]
mod stats_simulation;
#[path = "offline/stop_decided_simulation.rs"]
mod stop_decided_simulation;
