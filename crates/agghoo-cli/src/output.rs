//! Tables, JSON envelopes and progress bars.

use std::io::{IsTerminal, Write};

use comfy_table::{Table, presets::UTF8_FULL_CONDENSED};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;

/// Version of the JSON documents printed with `--json`.
pub const SCHEMA_VERSION: u32 = 1;

/// The subcommand with every option as parsed (defaults included), recorded once by `main`.
static INVOCATION: std::sync::OnceLock<serde_json::Value> = std::sync::OnceLock::new();

/// Records the parsed subcommand for the `invocation` field of every JSON document: `agghoo
/// replay` reruns a document from it alone.
pub fn record_invocation(command: &crate::args::Command) -> anyhow::Result<()> {
    let _ = INVOCATION.set(serde_json::to_value(command)?);
    Ok(())
}

/// The recorded invocation (see [`record_invocation`]).
pub fn invocation() -> Option<&'static serde_json::Value> {
    INVOCATION.get()
}

/// The spec the command ran, recorded once by the commands that run one (select, estimate,
/// compare).
static SPEC: std::sync::OnceLock<serde_json::Value> = std::sync::OnceLock::new();

/// Records the spec the command runs for the `spec` field of its JSON document: `agghoo replay`
/// reruns it, and `--spec FILE` runs it again.
pub fn record_spec(spec: &impl Serialize) -> anyhow::Result<()> {
    let _ = SPEC.set(serde_json::to_value(spec)?);
    Ok(())
}

/// The envelope of every `--json` document: schema version, command, parameters, seed, result.
#[derive(Serialize)]
pub struct Envelope<'a, P: Serialize, R: Serialize> {
    /// Version of this JSON layout.
    pub schema_version: u32,
    /// The subcommand.
    pub command: &'a str,
    /// The parameters as given.
    pub parameters: P,
    /// The subcommand with every option as parsed, defaults included: what `agghoo replay` reruns.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invocation: Option<&'static serde_json::Value>,
    /// The spec the command ran (select, estimate, compare, features, treecv): what `agghoo replay` reruns.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spec: Option<&'static serde_json::Value>,
    /// The seed every random choice came from.
    pub seed: Option<u64>,
    /// The command's result.
    pub result: R,
}

/// Prints `value` as one JSON document on stdout, written at once (stdout is line-buffered: a
/// document written as it is serialised costs one system call per line, 1 700 for a k-NN grid of
/// 100 values, about a millisecond).
pub fn print_json<P: Serialize, R: Serialize>(command: &str, parameters: P, seed: Option<u64>, result: R) -> anyhow::Result<()> {
    let env = Envelope { schema_version: SCHEMA_VERSION, command, parameters, invocation: invocation(), spec: SPEC.get(), seed, result };
    let mut text = serde_json::to_string_pretty(&env)?;
    text.push('\n');
    std::io::stdout().lock().write_all(text.as_bytes())?;
    Ok(())
}

/// Writes the `--json` document of `command` to the file `path` (what `reproduce` and `study`
/// leave in `--out` next to their tables and plots, and `predict --json --out FILE` writes).
pub fn write_json<P: Serialize, R: Serialize>(
    path: &std::path::Path,
    command: &str,
    parameters: P,
    seed: Option<u64>,
    result: R,
) -> anyhow::Result<()> {
    let env = Envelope { schema_version: SCHEMA_VERSION, command, parameters, invocation: invocation(), spec: SPEC.get(), seed, result };
    write_file(path, &format!("the {command} report"), serde_json::to_string_pretty(&env)? + "\n")
}

/// Writes `contents` to the file `path`; an error names what was written and where (`writing
/// the predictions to out/p.csv: No such file or directory`).
pub fn write_file(path: &std::path::Path, what: &str, contents: impl AsRef<[u8]>) -> anyhow::Result<()> {
    use anyhow::Context;
    std::fs::write(path, contents).with_context(|| format!("writing {what} to {}", path.display()))
}

/// One CSV cell (RFC 4180): quoted, with its quotes doubled, when it holds a comma, a quote or a
/// line break, so that it reads back as one cell whatever it holds. Other text is written as it
/// is (docs/GUARANTEES.md § Reports from elsewhere: cells are never rewritten).
pub fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) { format!("\"{}\"", text.replace('"', "\"\"")) } else { text.to_string() }
}

/// A table with the house style.
pub fn table(header: &[&str]) -> Table {
    let mut t = Table::new();
    t.load_style(UTF8_FULL_CONDENSED);
    t.set_header(header.iter().copied());
    t
}

/// Prints text on stdout, mapping a closed pipe to an error the caller turns into exit 0.
pub fn print(text: &str) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{text}")?;
    Ok(())
}

/// A progress bar on stderr when it is a terminal and JSON is off; hidden otherwise.
pub fn progress(len: u64, message: &str, json: bool) -> ProgressBar {
    if json || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    if let Ok(style) = ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} ({elapsed})") {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_message(message.to_string());
    bar
}

/// A progress bar that observes an executor's units: one tick per finished unit, and the work
/// inside units that report it ([`progressed`](agghoo::engine::Observer::progressed)).
pub struct Bar(pub ProgressBar);

impl Bar {
    /// A bar of `len` units as [`progress`] makes it.
    pub fn new(len: u64, message: &str, json: bool) -> Self {
        Bar(progress(len, message, json))
    }

    /// The library's executor (the current rayon pool) with this bar told of its units.
    pub fn executor(&self) -> agghoo::engine::Observed<'_> {
        agghoo::engine::Observed::new(&agghoo::engine::Rayon, self)
    }
}

impl agghoo::engine::Observer for Bar {
    fn finished(&self, _: usize, _: usize) {
        self.0.inc(1);
    }

    fn progressed(&self, amount: u64) {
        self.0.inc(amount);
    }
}

/// A table column of numbers in one format: integers as integers; values spanning more than
/// three orders of magnitude in scientific notation with 4 significant digits; otherwise fixed
/// decimals giving the largest value 4 significant digits (so `0.050`, `0.150`, `0.100` line up).
pub fn column(values: &[f64]) -> Vec<String> {
    let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    if finite.iter().all(|v| v.fract() == 0.0 && v.abs() < 1e15) {
        return values.iter().map(|v| if v.is_finite() { format!("{v:.0}") } else { v.to_string() }).collect();
    }
    let largest = finite.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let smallest = finite.iter().filter(|v| **v != 0.0).fold(f64::INFINITY, |m, v| m.min(v.abs()));
    if largest >= 1e5 || (smallest.is_finite() && largest / smallest > 1e3) || largest < 1e-3 {
        return values.iter().map(|v| format!("{v:.3e}")).collect();
    }
    let decimals = (3 - largest.log10().floor() as i32).clamp(0, 8) as usize;
    values.iter().map(|v| format!("{v:.decimals$}")).collect()
}

/// A table of numbers formatted column by column with [`column`]: `rows[i][j]` is row i's
/// value in column j, `None` printed as `—`. Returns the cells in the same shape.
pub fn columns(rows: &[Vec<Option<f64>>]) -> Vec<Vec<String>> {
    let width = rows.iter().map(Vec::len).max().unwrap_or(0);
    // Each column's cells, formatted together, then read back row by row.
    let mut by_column: Vec<std::vec::IntoIter<String>> =
        (0..width).map(|j| column(&rows.iter().filter_map(|r| r.get(j).copied().flatten()).collect::<Vec<_>>()).into_iter()).collect();
    rows.iter()
        .map(|r| {
            r.iter()
                .zip(by_column.iter_mut())
                .map(|(v, cells)| if v.is_some() { cells.next().unwrap_or_default() } else { "—".into() })
                .collect()
        })
        .collect()
}

/// `mean ± se` cells of one column: the means formatted as one column, the standard errors as
/// another (`—` for a missing standard error).
pub fn plus_minus_column(means: &[f64], standard_errors: &[Option<f64>]) -> Vec<String> {
    let rows: Vec<Vec<Option<f64>>> = means.iter().zip(standard_errors).map(|(m, s)| vec![Some(*m), *s]).collect();
    columns(&rows).into_iter().map(|r| format!("{} ± {}", r[0], r[1])).collect()
}

/// A compact number for tables: 4 significant digits.
pub fn num(x: f64) -> String {
    if x == 0.0 || (1e-3..1e5).contains(&x.abs()) {
        let s = format!("{x:.4}");
        let s = s.trim_end_matches('0').trim_end_matches('.');
        if s.is_empty() || s == "-" { "0".into() } else { s.to_string() }
    } else {
        format!("{x:.3e}")
    }
}

#[cfg(test)]
mod tests {
    use super::column;

    #[test]
    fn a_column_has_one_format() {
        assert_eq!(column(&[0.05, 0.15, 0.1]), ["0.0500", "0.1500", "0.1000"]);
        assert_eq!(column(&[1.0, 3.0, 49.0]), ["1", "3", "49"]);
        assert_eq!(column(&[1e-5, 0.1, 10.0]), ["1.000e-5", "1.000e-1", "1.000e1"]);
        assert_eq!(column(&[12.5, 3.25]), ["12.50", "3.25"]);
    }

    #[test]
    fn columns_format_each_column_alone_and_mark_missing_values() {
        let cells = super::columns(&[vec![Some(0.05), Some(1.0)], vec![Some(0.15), None], vec![Some(0.1), Some(3.0)]]);
        assert_eq!(cells, [vec!["0.0500", "1"], vec!["0.1500", "—"], vec!["0.1000", "3"]]);
        assert_eq!(super::plus_minus_column(&[0.25, 0.125], &[Some(0.01), None]), ["0.2500 ± 0.01000", "0.1250 ± —"]);
    }
}
