//! `agghoo predict`: predictions of a saved model for new rows, and the test risk when the rows
//! carry the target.

use std::io::Write;

use agghoo::Predictions;
use agghoo::data::{self, CsvOptions, MissingPolicy, Task, TaskHint};
use agghoo::loss::Loss;
use agghoo::select::FittedModel;
use serde::Serialize;

use crate::args::PredictArgs;
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
    /// Test risk under the task's default loss, when the data carry the target.
    test_risk: Option<f64>,
    loss: Option<String>,
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
        // Categorical columns are read as text; the model's encoding maps their levels by name.
        categorical: schema.categorical.clone(),
        delimiter: args.delimiter,
        ..Default::default()
    };
    let rows = data::read_csv(&args.data, &options)?.data;
    let predictions = model.predict(&rows)?;
    let text: Vec<String> = match &predictions {
        Predictions::Classes { labels, .. } => {
            labels.iter().map(|&l| schema.class_names.get(l as usize).cloned().unwrap_or_default()).collect()
        }
        Predictions::Real(v) => v.iter().map(|x| format!("{x}")).collect(),
    };
    let (test_risk, loss) = if has_target {
        let loss = Loss::default_for(schema.task);
        (Some(loss.risk(&predictions, &rows.all())?), Some(loss.name()))
    } else {
        (None, None)
    };
    if args.output.json {
        let parameters = Parameters { model: args.model.display().to_string(), data: args.data.display().to_string() };
        return output::print_json(
            "predict",
            parameters,
            None,
            PredictResult { n_rows: rows.n_rows(), predictions: text, test_risk, loss },
        );
    }
    let mut csv_text = String::from("row,prediction\n");
    for (i, p) in text.iter().enumerate() {
        csv_text.push_str(&format!("{i},{p}\n"));
    }
    match &args.out {
        Some(path) => std::fs::write(path, csv_text)?,
        None => std::io::stdout().lock().write_all(csv_text.as_bytes())?,
    }
    if let (Some(r), Some(l)) = (test_risk, loss) {
        eprintln!("test risk ({l}) on {} rows: {}", rows.n_rows(), output::num(r));
    }
    Ok(())
}
