//! `agghoo replay`: the subcommand a `--json` report records, read back for a rerun.
//!
//! A report may come from elsewhere, so it is untrusted input (docs/GUARANTEES.md § Reports from
//! elsewhere): only the commands that print a report are rerun, and no output path recorded in it
//! is written — each is dropped, or with `--out-dir DIR` rebased inside DIR by its file name.
//! Data paths (`--data`, `--model`, `--splits-file`, `--spec`) are only read. A report that
//! records the spec its command ran (`spec`: select, estimate, compare, features, treecv) is rerun from that spec, its
//! data read as the invocation says.

use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::args::{Command, ReplayArgs, UsageError};

/// The files an output flag writes from its path.
#[derive(Clone, Copy)]
enum Written {
    /// The path itself.
    File,
    /// The path followed by each suffix (`PREFIX-heatmap.csv`, ...).
    Prefix(&'static [&'static str]),
    /// A folder, and files inside it.
    Folder,
}

/// One output flag of a recorded invocation.
struct Output<'a> {
    flag: &'static str,
    written: Written,
    path: &'a mut Option<PathBuf>,
}

const HEATMAP: &[&str] = &["-heatmap.csv", "-heatmap.svg", "-heatmap.png"];
const CURVES: &[&str] = &["-learning.csv", "-learning.svg", "-learning.png", "-validation.csv", "-validation.svg", "-validation.png"];

/// The subcommand recorded in `args.report`'s `invocation` field, with its recorded outputs
/// dropped or rebased inside `args.out_dir` (each one said on stderr).
pub fn recorded(args: &ReplayArgs) -> anyhow::Result<Command> {
    let path = args.report.display();
    let text = agghoo::limits::read_text(&args.report).with_context(|| format!("reading {path}"))?;
    let doc: serde_json::Value = serde_json::from_str(&text).with_context(|| format!("{path}: not JSON"))?;
    let invocation = doc.get("invocation").ok_or_else(|| {
        UsageError(format!("{path}: no `invocation` field (a report printed by `--json`, or written by `reproduce`, records one)"))
    })?;
    let mut command: Command = serde_json::from_value(invocation.clone())
        .map_err(|e| UsageError(format!("{path}: the recorded invocation is not one this agghoo runs: {e}")))?;
    let refused = match &command {
        Command::Replay(_) => Some("`replay` itself"),
        Command::Gen(_) => Some("`gen`, which writes a data set, not a report"),
        Command::Splits(_) => Some("`splits`, which writes a splits file, not a report"),
        Command::Study(_) => Some("`study`, which reads a study folder and writes one: run `agghoo study` with the report's options"),
        _ => None,
    };
    if let Some(what) = refused {
        return Err(UsageError(format!(
            "{path}: the recorded invocation is {what}; replay reruns select, predict, estimate, compare, treecv, features \
             and reproduce"
        ))
        .into());
    }
    if let Some(spec) = doc.get("spec") {
        let bad = |e: serde_json::Error| UsageError(format!("{path}: the recorded spec is not one this agghoo runs: {e}"));
        match &mut command {
            Command::Select(a) => a.recorded_spec = Some(serde_json::from_value(spec.clone()).map_err(bad)?),
            Command::Estimate(a) => a.recorded_spec = Some(serde_json::from_value(spec.clone()).map_err(bad)?),
            Command::Compare(a) => a.recorded_spec = Some(serde_json::from_value(spec.clone()).map_err(bad)?),
            Command::Features(a) => a.recorded_spec = Some(serde_json::from_value(spec.clone()).map_err(bad)?),
            Command::Treecv(a) => a.recorded_spec = Some(serde_json::from_value(spec.clone()).map_err(bad)?),
            _ => {}
        }
    }
    let dir = args.out_dir.as_deref();
    let mut rebased: Vec<PathBuf> = Vec::new();
    for output in outputs(&mut command) {
        if let Some(recorded) = output.path.take() {
            *output.path = place(&recorded, output.flag, output.written, dir, &mut rebased)?;
        }
    }
    // `reproduce` always writes its folder: inside --out-dir, or not at all.
    if let Command::Reproduce(a) = &mut command {
        let recorded = std::mem::take(&mut a.out);
        let refused =
            |why: &str| UsageError(format!("{path}: the recorded `reproduce` writes its results into {}: {why}", recorded.display()));
        if dir.is_none() {
            return Err(refused("give --out-dir DIR to write them inside DIR").into());
        }
        a.out = place(&recorded, "--out", Written::Folder, dir, &mut rebased)?.ok_or_else(|| refused("it names no folder"))?;
    }
    if let (Some(dir), false) = (dir, rebased.is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("creating the --out-dir folder {}", dir.display()))?;
    }
    Ok(command)
}

/// Where the recorded output `recorded` of `flag` is written: nowhere without `dir`, else
/// `dir/<its file name>` (added to `rebased`). Each decision is said on stderr.
fn place(recorded: &Path, flag: &str, written: Written, dir: Option<&Path>, rebased: &mut Vec<PathBuf>) -> anyhow::Result<Option<PathBuf>> {
    let Some(dir) = dir else {
        eprintln!("agghoo: replay: not writing the recorded {flag} {} (give --out-dir DIR to write it inside DIR)", recorded.display());
        return Ok(None);
    };
    let Some(name) = recorded.file_name() else {
        eprintln!("agghoo: replay: not writing the recorded {flag} {}: it names no file", recorded.display());
        return Ok(None);
    };
    let target = dir.join(name);
    check_target(&target, written, flag, recorded)?;
    if rebased.contains(&target) {
        return Err(UsageError(format!(
            "replay --out-dir: two recorded outputs have the file name `{}`; replay them into different folders",
            name.to_string_lossy()
        ))
        .into());
    }
    eprintln!("agghoo: replay: the recorded {flag} {} is written to {}", recorded.display(), target.display());
    rebased.push(target.clone());
    Ok(Some(target))
}

/// The optional output flags of `command`, every one of args.rs (`select --out --plot`,
/// `predict --out`, `estimate --oof --curve-out`; `reproduce --out` is always written, see
/// [`recorded`]; compare, treecv and features write none).
fn outputs(command: &mut Command) -> Vec<Output<'_>> {
    let output = |flag, written, path| Output { flag, written, path };
    match command {
        Command::Select(a) => vec![output("--out", Written::File, &mut a.out), output("--plot", Written::Prefix(HEATMAP), &mut a.plot)],
        Command::Predict(a) => vec![output("--out", Written::File, &mut a.out)],
        Command::Estimate(a) => {
            vec![output("--oof", Written::File, &mut a.oof), output("--curve-out", Written::Prefix(CURVES), &mut a.curve_out)]
        }
        Command::Reproduce(_) | Command::Compare(_) | Command::Treecv(_) | Command::Features(_) => Vec::new(),
        // Refused before their outputs are looked at.
        Command::Gen(_) | Command::Splits(_) | Command::Study(_) | Command::Replay(_) => Vec::new(),
    }
}

/// Refuses a rebased target through which a write would leave its folder: a file (or a file of a
/// prefix) that is a symbolic link, a folder that is one or holds one.
fn check_target(target: &Path, written: Written, flag: &str, recorded: &Path) -> anyhow::Result<()> {
    let is_link = |p: &Path| p.symlink_metadata().is_ok_and(|m| m.file_type().is_symlink());
    let files: Vec<PathBuf> = match written {
        Written::File | Written::Folder => vec![target.to_path_buf()],
        Written::Prefix(suffixes) => suffixes
            .iter()
            .map(|s| {
                let mut name = target.as_os_str().to_owned();
                name.push(s);
                PathBuf::from(name)
            })
            .collect(),
    };
    let mut links: Vec<PathBuf> = files.into_iter().filter(|f| is_link(f)).collect();
    if matches!(written, Written::Folder) && links.is_empty() && target.is_dir() {
        let entries = std::fs::read_dir(target).with_context(|| format!("reading the folder {}", target.display()))?;
        links.extend(entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| is_link(p)));
    }
    match links.first() {
        Some(link) => Err(UsageError(format!(
            "replay --out-dir: {} is a symbolic link: the recorded {flag} {} is not written through it",
            link.display(),
            recorded.display()
        ))
        .into()),
        None => Ok(()),
    }
}
