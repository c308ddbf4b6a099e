//! `agghoo select`: run a selection procedure, print the report, save the model.

use std::sync::Arc;

use agghoo::Seed;
use agghoo::loss::Loss;
use agghoo::resample::TrainFraction;
use agghoo::select::{self, Aggregation, Method, Report, SelectConfig, TieRule};
use serde::Serialize;

use crate::args::{AggregateArg, MethodArg, SelectArgs, TieArg, UsageError};
use crate::output::{self, num};
use crate::source;

/// The parameters echoed in the JSON document.
#[derive(Serialize)]
struct Parameters<'a> {
    data: &'a str,
    family: &'a str,
    method: &'a str,
    plan: &'a str,
    loss: String,
    grid: Vec<f64>,
}

/// The JSON result.
#[derive(Serialize)]
struct Result<'a> {
    report: &'a Report,
    /// Hyperparameter value of each member of the fitted model.
    member_values: Vec<f64>,
    /// Where the model was saved.
    model_file: Option<String>,
}

pub fn method(m: MethodArg) -> Method {
    match m {
        MethodArg::Agghoo => Method::Agghoo,
        MethodArg::Majhoo => Method::Majhoo,
        MethodArg::Cv => Method::Cv,
        MethodArg::Holdout => Method::HoldOut,
        MethodArg::Acv => Method::Acv,
        MethodArg::Ekcv => Method::Ekcv,
        MethodArg::Subagging => Method::Subagging,
    }
}

pub fn run(args: SelectArgs) -> anyhow::Result<()> {
    let seed = Seed(args.seed);
    let loaded = source::load(&args.data, Some(&args.plan), seed)?;
    let data = &loaded.data;
    let family = source::family(&args.family, &loaded)?;
    let method = method(args.method);
    let (splits, plan_text) = source::splits(&args.plan, source::default_plan(method), &loaded, seed)?;
    let mut config = SelectConfig::new(method);
    config.loss = args.loss.as_deref().map(Loss::parse).transpose()?;
    config.tie = match args.tie {
        TieArg::First => TieRule::First,
        TieArg::Last => TieRule::Last,
    };
    config.aggregation = match (args.aggregate, args.soft) {
        (_, true) | (AggregateArg::Soft, _) => Some(Aggregation::SoftVote),
        (AggregateArg::Auto, false) => None,
        (AggregateArg::Mean, false) => Some(Aggregation::Mean),
        (AggregateArg::Vote, false) => Some(Aggregation::Vote),
        (AggregateArg::Score, false) => Some(Aggregation::ScoreMean),
    };
    config.one_standard_error = args.one_se;
    if let Some(tau) = args.inner_tau {
        if method != Method::Subagging {
            return Err(
                UsageError(format!("--inner-tau has no effect with --method {}: it applies to --method subagging", method.name())).into()
            );
        }
        config.inner_fraction = TrainFraction::new(tau)?;
    }
    config.preprocess = source::preprocess(&args.family, &loaded);
    config.seed = seed;
    config.keep_split_indices = args.report_splits;
    let bar = output::progress(splits.len() as u64, "splits", args.output.json);
    let progress_bar = bar.clone();
    config.progress = Some(Arc::new(move |k| progress_bar.inc(k)));
    let (model, report) = select::select(family.as_ref(), data, &splits, &config)?;
    bar.finish_and_clear();
    if let Some(path) = &args.out {
        model.save(path)?;
    }
    let member_values: Vec<f64> = model.members().iter().map(|m| m.value).collect();
    if args.output.json {
        let parameters = Parameters {
            data: &loaded.description,
            family: family.name(),
            method: method.name(),
            plan: &plan_text,
            loss: report.loss.clone(),
            grid: report.grid.clone(),
        };
        let result = Result { report: &report, member_values, model_file: args.out.as_ref().map(|p| p.display().to_string()) };
        return output::print_json("select", parameters, Some(seed.0), result);
    }
    print_tables(&report, &loaded.description, &plan_text, &member_values, data.n_rows())?;
    if model.is_merged() {
        output::print("the members' average is itself a model of the family: merged into one model for prediction")?;
    }
    if let Some(path) = &args.out {
        output::print(&format!("model saved to {}", path.display()))?;
    }
    Ok(())
}

fn print_tables(report: &Report, data: &str, plan: &str, member_values: &[f64], n: usize) -> anyhow::Result<()> {
    let h = &report.hyperparameter;
    output::print(&format!(
        "{} · family {} · {} · loss {} · data {} (n = {n}) · {} grid points",
        report.method.name(),
        report.family,
        plan,
        report.loss,
        data,
        report.grid.len()
    ))?;
    let mut t = output::table(&["split", "|T|", "|Tᶜ|", &format!("selected {h}"), "validation risk"]);
    for s in &report.splits {
        t.add_row(vec![
            s.split.to_string(),
            s.n_train.to_string(),
            s.n_validation.to_string(),
            num(s.selected_value),
            num(s.risks[s.selected_index]),
        ]);
    }
    output::print(&t.to_string())?;
    let best = select::argmin(&report.cv_curve.mean, TieRule::First)?;
    output::print(&format!(
        "CV curve over the splits: minimum {} ± {} (SE) at {h} = {}",
        num(report.cv_curve.mean[best]),
        num(report.cv_curve.standard_error[best]),
        num(report.grid[best])
    ))?;
    let values: Vec<String> = member_values.iter().map(|&v| num(v)).collect();
    let final_text = match report.final_value {
        Some(v) => format!("final {h} = {}", num(v)),
        None => format!("{} members, {h} = [{}], combined by {:?}", member_values.len(), values.join(", "), report.aggregation),
    };
    output::print(&final_text)
}
