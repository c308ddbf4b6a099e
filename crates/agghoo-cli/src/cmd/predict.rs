//! `agghoo predict`: predictions of a saved model for new rows — with an id column, class
//! probabilities or decision scores, as CSV or JSON — and the risk on these rows when they carry
//! the target.

use std::io::Write;
use std::path::Path;

use agghoo::Predictions;
use agghoo::data::{self, CsvOptions, MissingPolicy, Task, TaskHint};
use agghoo::loss::Loss;
use agghoo::select::FittedModel;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::args::{PredictArgs, PredictFormat, UsageError};
use crate::output;

#[derive(Serialize)]
struct Parameters {
    model: String,
    data: String,
}

#[derive(Serialize)]
struct PredictResult {
    n_rows: usize,
    /// Predictions as text (class names or numbers), in row order.
    predictions: Vec<String>,
    /// Risk on these rows under the task's default loss, when the data carry the target.
    risk: Option<f64>,
    loss: Option<String>,
    /// The rows the risk is computed over: those whose target cell is not missing.
    risk_rows: Option<usize>,
    /// True when these rows are the model's training rows (the risk is then a training risk).
    on_training_rows: bool,
}

/// One output column: its name and a value per row.
struct Column {
    name: String,
    values: Vec<Value>,
}

fn numbers(values: impl Iterator<Item = f64>) -> Vec<Value> {
    values.map(|v| serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number)).collect()
}

pub fn run(args: PredictArgs) -> anyhow::Result<()> {
    let model = FittedModel::load(&args.model)?;
    let schema = &model.schema;
    let header = data::read_csv_header(&args.data, args.delimiter).unwrap_or_default();
    let has_target = header.contains(&schema.target_name);
    let options = CsvOptions {
        target: has_target.then(|| schema.target_name.clone()),
        task: match schema.task {
            Task::Classification => TaskHint::Classification,
            Task::Regression => TaskHint::Regression,
        },
        feature_columns: Some(schema.feature_names.clone()),
        // Missing values are kept as NaN; the model imputes them with its training medians or
        // refuses them with the row and column.
        missing: MissingPolicy::Median,
        class_names: (schema.task == Task::Classification && has_target).then(|| schema.class_names.clone()),
        extra_columns: args.id.iter().cloned().collect(),
        // Categorical columns are read as text; the model's encoding maps their levels by name.
        categorical: schema.categorical.clone(),
        // The missing-value tokens of the training data (the default ones for older files).
        na_values: schema.na_values.clone().unwrap_or_default(),
        delimiter: args.delimiter,
        ..Default::default()
    };
    // With the target, the rows that carry one give the risk; a row whose target is missing is
    // still predicted, in its place: the output keeps every row of the file, in order.
    let mut scored = match has_target.then(|| data::read_csv(&args.data, &options)).transpose() {
        // Every target cell is missing: no row to score, every row still predicted.
        Err(agghoo::Error::EmptyFile { .. }) => None,
        other => other?,
    };
    let scorable = scored.is_some();
    let csv = match scored.take_if(|s| s.n_dropped == 0) {
        Some(every_row) => every_row,
        None => data::read_csv(&args.data, &CsvOptions { target: None, class_names: None, ..options })?,
    };
    let rows = &csv.data;
    let predictions = model.predict(rows)?;
    let text: Vec<String> = match &predictions {
        Predictions::Classes { labels, .. } => {
            labels.iter().map(|&l| schema.class_names.get(l as usize).cloned().unwrap_or_default()).collect()
        }
        Predictions::Real(v) => v.iter().map(|x| format!("{x}")).collect(),
    };

    // The columns written: the id (or row number), the prediction, then the soft outputs asked for.
    let mut columns = Vec::new();
    match &args.id {
        Some(name) => {
            let ids = csv.extras.get(name).cloned().unwrap_or_default();
            columns.push(Column { name: name.clone(), values: ids.into_iter().map(Value::String).collect() });
        }
        None => columns.push(Column { name: "row".into(), values: (0..rows.n_rows()).map(Value::from).collect() }),
    }
    let prediction_values = match &predictions {
        Predictions::Real(v) => numbers(v.iter().copied()),
        Predictions::Classes { .. } => text.iter().cloned().map(Value::String).collect(),
    };
    columns.push(Column { name: "prediction".into(), values: prediction_values });
    if args.proba {
        let proba = model.probabilities(&predictions)?;
        let k = schema.class_names.len().max(1);
        for (c, label) in schema.class_names.iter().enumerate() {
            columns.push(Column { name: format!("proba_{label}"), values: numbers(proba.iter().skip(c).step_by(k).copied()) });
        }
    }
    if args.decision {
        let decision = model.decision_scores(&predictions)?;
        columns.push(Column { name: "decision".into(), values: numbers(decision.iter().copied()) });
    }

    // `scored` now holds the rows with a target only when some row lacks one; else `rows` have it.
    let scored_rows = if scorable { Some(scored.as_ref().map_or(rows, |s| &s.data)) } else { None };
    let (risk, loss, risk_rows) = match scored_rows {
        Some(with_target) => {
            let loss = Loss::default_for(schema.task);
            let scored_predictions = match &scored {
                Some(s) => model.predict(&s.data)?,
                None => predictions.clone(),
            };
            (Some(loss.risk(&scored_predictions, &with_target.all())?), Some(loss.name()), Some(with_target.n_rows()))
        }
        None => (None, None, None),
    };
    let on_training_rows = model.trained_on(scored_rows.unwrap_or(rows));
    if on_training_rows {
        eprintln!(
            "agghoo: warning: these rows are the model's training rows: their risk is a training (resubstitution) risk, \
             optimistic, not an estimate of the risk on new data (use `agghoo estimate` or `compare` for that)"
        );
    }
    if args.output.json {
        let parameters = Parameters { model: args.model.display().to_string(), data: args.data.display().to_string() };
        let result = PredictResult { n_rows: rows.n_rows(), predictions: text, risk, loss, risk_rows, on_training_rows };
        return match &args.out {
            Some(path) => output::write_json(path, "predict", parameters, None, result),
            None => output::print_json("predict", parameters, None, result),
        };
    }
    let format = match (args.format, &args.out) {
        (Some(f), _) => f,
        (None, Some(path)) if has_extension(path, "json") => PredictFormat::Json,
        (None, _) => PredictFormat::Csv,
    };
    let body = match format {
        PredictFormat::Csv => csv_text(&columns),
        PredictFormat::Json => json_text(&columns)?,
    };
    match &args.out {
        Some(path) => output::write_file(path, "the predictions", body)?,
        None => std::io::stdout().lock().write_all(body.as_bytes())?,
    }
    if has_target && !scorable {
        eprintln!("agghoo: no row has a value of the target `{}`: no risk is computed", schema.target_name);
    }
    if let (Some(r), Some(l), Some(m)) = (risk, loss, risk_rows) {
        let n = rows.n_rows();
        let which = if m == n { format!("these {n} rows") } else { format!("the {m} of these {n} rows that have a target") };
        eprintln!("risk ({l}) on {which}: {}", output::num(r));
    }
    Ok(())
}

fn has_extension(path: &Path, ext: &str) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case(ext))
}

/// A CSV field ([`output::csv_field`]).
fn field(value: &Value) -> String {
    let text = match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        // Reals as Rust prints them (shortest round-trip form, no exponent), as before.
        Value::Number(x) if x.is_f64() => x.as_f64().map_or(String::new(), |v| format!("{v}")),
        other => other.to_string(),
    };
    output::csv_field(&text)
}

fn csv_text(columns: &[Column]) -> String {
    let n = columns.first().map_or(0, |c| c.values.len());
    let mut out = columns.iter().map(|c| field(&Value::String(c.name.clone()))).collect::<Vec<_>>().join(",");
    out.push('\n');
    for i in 0..n {
        out.push_str(&columns.iter().map(|c| field(&c.values[i])).collect::<Vec<_>>().join(","));
        out.push('\n');
    }
    out
}

/// An array of records, one object per row with the columns as keys, in column order.
fn json_text(columns: &[Column]) -> anyhow::Result<String> {
    let names: std::collections::HashSet<&str> = columns.iter().map(|c| c.name.as_str()).collect();
    if names.len() < columns.len() {
        return Err(UsageError("--id: the id column's name is another output column's (row, prediction, proba_…)".into()).into());
    }
    let n = columns.first().map_or(0, |c| c.values.len());
    let records: Vec<Value> = (0..n)
        .map(|i| Value::Object(columns.iter().map(|c| (c.name.clone(), c.values[i].clone())).collect::<Map<String, Value>>()))
        .collect();
    let mut text = serde_json::to_string_pretty(&records)?;
    text.push('\n');
    Ok(text)
}
