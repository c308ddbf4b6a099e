//! `agghoo replay`: the subcommand a `--json` report records, read back for a rerun.

use anyhow::Context;

use crate::args::{Command, ReplayArgs, UsageError};

/// The subcommand recorded in `args.report`'s `invocation` field.
pub fn recorded(args: &ReplayArgs) -> anyhow::Result<Command> {
    let path = args.report.display();
    let text = std::fs::read_to_string(&args.report).with_context(|| format!("reading {path}"))?;
    let doc: serde_json::Value = serde_json::from_str(&text).with_context(|| format!("{path}: not JSON"))?;
    let invocation = doc.get("invocation").ok_or_else(|| {
        UsageError(format!("{path}: no `invocation` field (a report printed by `--json`, or written by `reproduce`, records one)"))
    })?;
    let command: Command = serde_json::from_value(invocation.clone())
        .with_context(|| format!("{path}: the recorded invocation is not one this agghoo runs"))?;
    if matches!(command, Command::Replay(_)) {
        return Err(UsageError(format!("{path}: the recorded invocation is `replay` itself")).into());
    }
    Ok(command)
}
