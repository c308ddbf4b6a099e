//! `agghoo select`: run a selection procedure, print the report, save the model.

use std::sync::Arc;

use agghoo::Seed;
use agghoo::family::{AxisValue, FamilyAxes, GridPoint};
use agghoo::loss::Loss;
use agghoo::resample::TrainFraction;
use agghoo::select::{self, Aggregation, Method, Report, SelectConfig, TieRule};
use anyhow::Context;
use serde::Serialize;

use crate::args::{AggregateArg, MethodArg, SelectArgs, UsageError};
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
    /// Hyperparameter value of each member of the fitted model (its family's path value).
    member_values: Vec<f64>,
    /// Multi-axis grids and unions: each member's family and axis values.
    #[serde(skip_serializing_if = "Option::is_none")]
    member_points: Option<Vec<&'a GridPoint>>,
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
    config.tie = args.tie.rule();
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
        model.save(path).context("saving the model (--out)")?;
    }
    if let Some(prefix) = &args.plot {
        crate::heatmap::write(prefix, &report)?;
    }
    let member_values: Vec<f64> = model.members().iter().map(|m| m.value).collect();
    let member_points: Option<Vec<&GridPoint>> = model.members().iter().map(|m| m.point.as_ref()).collect();
    if args.output.json {
        let parameters = Parameters {
            data: &loaded.description,
            family: &report.family,
            method: method.name(),
            plan: &plan_text,
            loss: report.loss.clone(),
            grid: report.grid.clone(),
        };
        let result =
            Result { report: &report, member_values, member_points, model_file: args.out.as_ref().map(|p| p.display().to_string()) };
        return output::print_json("select", parameters, Some(seed.0), result);
    }
    match &report.axes {
        Some(axes) => print_composite(&report, axes, &loaded.description, &plan_text, &model, data.n_rows())?,
        None => print_tables(&report, &loaded.description, &plan_text, &member_values, data.n_rows(), args.one_se)?,
    }
    if let Some(prefix) = &args.plot {
        output::print(&format!("heat map written to {}-heatmap.svg (and .png, .csv)", prefix.display()))?;
    }
    if model.is_merged() {
        output::print("the members' average is itself a model of the family: merged into one model for prediction")?;
    }
    if let Some(path) = &args.out {
        output::print(&format!("model saved to {}", path.display()))?;
    }
    Ok(())
}

fn print_tables(report: &Report, data: &str, plan: &str, member_values: &[f64], n: usize, one_se: bool) -> anyhow::Result<()> {
    let h = &report.hyperparameter;
    let chosen = output::column(&report.splits.iter().map(|s| s.selected_value).collect::<Vec<_>>());
    print_splits(report, data, plan, n, "", &format!("selected {h}"), |s| chosen[s.split].clone())?;
    let best = select::argmin(&report.cv_curve.mean, TieRule::First)?;
    let (min, se) = (report.cv_curve.mean[best], report.cv_curve.standard_error[best]);
    output::print(&format!("CV curve over the splits: minimum {} ± {} (SE) at {h} = {}", num(min), num(se), num(report.grid[best])))?;
    if one_se {
        // Explain the move: the simplest grid point within one standard error of the minimum.
        let m = report.member_grid_indices.first().copied().unwrap_or(best);
        output::print(&if m == best {
            format!(
                "one-standard-error rule: no simpler {h} has a CV risk within {} + {} = {}; it keeps {h} = {}",
                num(min),
                num(se),
                num(min + se),
                num(report.grid[best])
            )
        } else {
            format!(
                "one-standard-error rule: the simplest {h} (here the {}) with a CV risk within {} + {} = {} is {h} = {} (CV risk {})",
                if m > best { "largest" } else { "smallest" },
                num(min),
                num(se),
                num(min + se),
                num(report.grid[m]),
                num(report.cv_curve.mean[m])
            )
        })?;
    }
    let values: Vec<String> = member_values.iter().map(|&v| num(v)).collect();
    let final_text = match report.final_value {
        Some(v) => format!("final {h} = {}", num(v)),
        None => format!("{} members, {h} = [{}], combined by {:?}", member_values.len(), values.join(", "), report.aggregation),
    };
    output::print(&final_text)
}

/// The header line (`suffix` after the number of grid points) and each split's choice (the
/// `selected` column, in the column `selected_header`) and its validation risk.
fn print_splits(
    report: &Report,
    data: &str,
    plan: &str,
    n: usize,
    suffix: &str,
    selected_header: &str,
    selected: impl Fn(&agghoo::select::SplitReport) -> String,
) -> anyhow::Result<()> {
    // Generated data describe themselves with their size already.
    let size = if data.contains("n = ") { String::new() } else { format!(" (n = {n})") };
    output::print(&format!(
        "{} · family {} · {} · loss {} · data {data}{size} · {} grid points{suffix}",
        report.method.name(),
        report.family,
        plan,
        report.loss,
        report.grid.len()
    ))?;
    let mut t = output::table(&["split", "|T|", "|Tᶜ|", selected_header, "validation risk"]);
    let risks = output::column(&report.splits.iter().map(|s| s.risks[s.selected_index]).collect::<Vec<_>>());
    for (s, risk) in report.splits.iter().zip(risks) {
        t.add_row(vec![s.split.to_string(), s.n_train.to_string(), s.n_validation.to_string(), selected(s), risk]);
    }
    output::print(&t.to_string())
}

/// `knn: k = 5` (the family named only in a union), the axes in the family's order.
fn describe(point: &GridPoint, axes: &[FamilyAxes]) -> String {
    describe_as(point, axes, axes.len() > 1)
}

fn describe_as(point: &GridPoint, axes: &[FamilyAxes], with_family: bool) -> String {
    let family = axes.iter().find(|f| f.family.name() == point.family);
    let values: Vec<String> = family
        .map(|f| f.axes.iter().filter_map(|a| point.values.get(&a.name).map(|v| (a, v))).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .map(|(a, v)| match v {
            AxisValue::Number(x) => format!("{} = {}", a.name, num(*x)),
            AxisValue::Text(t) => format!("{} = {t}", a.name),
        })
        .collect();
    if with_family { format!("{}: {}", point.family, values.join(", ")) } else { values.join(", ") }
}

/// The tables of a multi-axis grid or a union: each split's selected point, the CV minimum,
/// the best point of each family (a union), and the final point or the members.
fn print_composite(
    report: &Report,
    axes: &[FamilyAxes],
    data: &str,
    plan: &str,
    model: &agghoo::select::FittedModel,
    n: usize,
) -> anyhow::Result<()> {
    let points = report.grid_points.as_deref().unwrap_or_default();
    let what = if axes.len() > 1 { format!("union of {} families", axes.len()) } else { report.hyperparameter.clone() };
    print_splits(report, data, plan, n, &format!(" ({what})"), "selected", |s| describe(&points[s.selected_index], axes))?;
    let curve = &report.cv_curve;
    if axes.len() > 1 {
        let mut t = output::table(&["family", "grid points", "best CV risk", "± SE", "at"]);
        for f in axes {
            let own: Vec<usize> = (0..points.len()).filter(|&m| points[m].family == f.family.name()).collect();
            let best = own.iter().copied().min_by(|&a, &b| curve.mean[a].total_cmp(&curve.mean[b]).then(a.cmp(&b)));
            if let Some(b) = best {
                t.add_row(vec![
                    f.family.name().to_string(),
                    own.len().to_string(),
                    num(curve.mean[b]),
                    num(curve.standard_error[b]),
                    describe_as(&points[b], axes, false),
                ]);
            }
        }
        output::print(&t.to_string())?;
    }
    let best = select::argmin(&curve.mean, TieRule::First)?;
    output::print(&format!(
        "CV curve over the splits: minimum {} ± {} (SE) at {}",
        num(curve.mean[best]),
        num(curve.standard_error[best]),
        describe(&points[best], axes)
    ))?;
    let final_text = match &report.final_point {
        Some(p) => format!("final: {}", describe(p, axes)),
        None => {
            let members: Vec<String> = model.members().iter().filter_map(|m| m.point.as_ref()).map(|p| describe(p, axes)).collect();
            format!("{} members, combined by {:?}: {}", members.len(), report.aggregation, members.join("; "))
        }
    };
    output::print(&final_text)
}
