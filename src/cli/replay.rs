//! `cargo perfdiff replay`: its arguments, and the replays rendered as a table or JSON.

use std::path::PathBuf;

use clap::Args;

use super::StopLimitArgs;
use crate::config::StopRule;
use crate::model::samples::SampleFile;
use crate::orchestrate::error::Error;
use crate::orchestrate::replay::{
    ReplayOptions, RuleReplay, render_orders_table, render_table, replay,
};

/// Arguments of `cargo perfdiff replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// A samples file recorded with a generous fixed configuration
    /// (e.g. `--stop fixed --forks 20`)
    pub file: PathBuf,
    /// Stop rule(s) to replay, comma separated or repeated [default: all of cv, rciw, kld, decided]
    #[arg(long, value_enum, value_delimiter = ',')]
    pub stop: Vec<StopRule>,
    #[command(flatten)]
    pub stop_limits: StopLimitArgs,
    /// Output format
    #[arg(long, value_enum, default_value = "table")]
    pub format: ReplayFormat,
    /// Also print one line per benchmark
    #[arg(long, short = 'v')]
    pub verbose: bool,
    /// Replay every rule on N orders of the rounds: the recorded one and N − 1 seeded shuffles
    /// (base and head of a round kept together). One order is one draw of the noise a rule
    /// meets; the table then gives the mean over orders and the worst agreement and time saved
    /// (JSON: one replay per rule and order; `-v` applies to a single order only)
    #[arg(
        long,
        value_name = "N",
        default_value_t = 1,
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    pub orders: u64,
}

/// Output of `replay`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ReplayFormat {
    Table,
    Json,
}

/// `cargo perfdiff replay`.
pub fn replay_command(args: &ReplayArgs) -> Result<i32, Error> {
    let file = SampleFile::load(&args.file)?;
    let rules = if args.stop.is_empty() {
        vec![
            StopRule::Cv,
            StopRule::Rciw,
            StopRule::Kld,
            StopRule::Decided,
        ]
    } else {
        args.stop.clone()
    };
    let results: Vec<RuleReplay> = rules
        .iter()
        .flat_map(|&rule| {
            (0..args.orders).map(move |order| {
                let options = ReplayOptions {
                    limits: args.stop_limits.clone().into(),
                    resamples: None,
                    order: Some(order),
                };
                (rule, options)
            })
        })
        .map(|(rule, options)| replay(&file, rule, &options))
        .collect();
    let text = match args.format {
        ReplayFormat::Json => serde_json::to_string_pretty(&results)
            .map_err(|e| Error::Usage(format!("cannot serialise the replay: {e}")))?,
        ReplayFormat::Table if args.orders > 1 => render_orders_table(&results),
        ReplayFormat::Table => render_table(&results, args.verbose),
    };
    println!("{text}");
    Ok(0)
}
