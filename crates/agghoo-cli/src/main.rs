//! The `agghoo` command-line tool: argument parsing, progress, tables, JSON and plots.
//! No statistics here — every number comes from the `agghoo` library.
//!
//! Exit codes: 0 success; 1 data or run error (bad file, bad values, a failed fit); 2 usage
//! error (clap's own code for bad arguments). A broken pipe exits 0. Errors print one line
//! (`agghoo: error: ` and the causes joined by `: `); `--verbose` adds one line per cause and
//! the exit code's meaning.

mod args;
mod cmd;
mod curves;
mod heatmap;
mod memory;
mod output;
mod plot;
mod source;

use agghoo::limits::{Count, Limits};
use clap::Parser;

use crate::args::{Cli, Command};

/// Runs one subcommand (`replay` reads the recorded one and runs it instead).
fn run(command: Command) -> anyhow::Result<()> {
    let command = match command {
        Command::Replay(a) => cmd::replay::recorded(&a)?,
        other => other,
    };
    output::record_invocation(&command)?;
    match command {
        Command::Select(a) => cmd::select::run(a),
        Command::Predict(a) => cmd::predict::run(a),
        Command::Splits(a) => cmd::splits::run(a),
        Command::Gen(a) => cmd::gen_data::run(a),
        Command::Estimate(a) => cmd::estimate::run(a),
        Command::Compare(a) => cmd::compare::run(a),
        Command::Treecv(a) => cmd::treecv::run(a),
        Command::Features(a) => cmd::features::run(a),
        Command::Reproduce(a) => cmd::reproduce::run(a),
        Command::Study(a) => cmd::study::run(a),
        Command::Replay(_) => Err(args::UsageError("a report cannot record `replay` itself".into()).into()),
    }
}

fn main() {
    let cli = Cli::parse();
    let verbose = cli.verbose;
    let result = configure(&cli).and_then(|()| run(cli.command));
    if let Err(e) = result {
        if is_broken_pipe(&e) {
            std::process::exit(0);
        }
        let usage = e.chain().any(|c| {
            c.downcast_ref::<args::UsageError>().is_some()
                || matches!(c.downcast_ref::<agghoo::Error>(), Some(agghoo::Error::InvalidParameter { .. }))
        });
        let code = if usage { 2 } else { 1 };
        eprintln!("agghoo: error: {}", agghoo::one_line(e.as_ref()));
        if verbose {
            for (i, cause) in e.chain().enumerate() {
                eprintln!("  {i}: {cause}");
            }
            eprintln!("  exit code {code}: {}", if usage { "usage error (a bad argument or parameter)" } else { "data or run error" });
        }
        std::process::exit(code);
    }
}

/// Installs the limits of `--max-memory` and `--limit`, then the thread pool of `--threads`
/// (checked against its limit first: a typo must not start 10 000 threads).
fn configure(cli: &Cli) -> anyhow::Result<()> {
    let mut limits = Limits { max_memory: agghoo::limits::parse_size(&cli.max_memory)?, ..Limits::default() };
    for pair in &cli.limits {
        let (key, value) = pair.split_once('=').ok_or_else(|| args::UsageError(format!("--limit `{pair}`: expected KEY=N")))?;
        limits.set(key.trim(), value)?;
    }
    limits.set_global();
    if let Some(n) = cli.threads {
        limits.check_count(Count::Threads, n as u128, "--threads")?;
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .map_err(|e| args::UsageError(format!("cannot set {n} threads: {e}")))?;
    }
    Ok(())
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            || c.downcast_ref::<serde_json::Error>().and_then(serde_json::Error::io_error_kind) == Some(std::io::ErrorKind::BrokenPipe)
    })
}
