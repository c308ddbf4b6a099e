//! `agghoo select`: run a selection procedure, print the report, save the model.

use agghoo::Seed;
use agghoo::family::{AxisValue, FamilyAxes, GridPoint};
use agghoo::loss::Loss;
use agghoo::resample::TrainFraction;
use agghoo::select::{self, Aggregation, Report, TieRule};
use agghoo::spec::SelectSpec;
use anyhow::Context;
use serde::Serialize;

use crate::args::{SelectArgs, UsageError};
use crate::output::{self, num};
use crate::source::{self, Loaded, Rows};

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

/// The spec of the selection flags on the loaded data, the description of its plan, and the
/// rows the plan reads.
pub fn spec(args: &SelectArgs, loaded: &Loaded) -> anyhow::Result<(SelectSpec, String, Rows)> {
    let method = args.method;
    let family = source::family_spec(&args.family)?;
    let (plan, plan_text, rows) = source::plan_rows(&args.plan, method.default_plan(), loaded)?;
    let inner_fraction = match args.inner_tau {
        Some(_) if !agghoo::select::procedure(method).reads_inner_fraction() => {
            return Err(
                UsageError(format!("--inner-tau has no effect with --method {}: it applies to --method subagging", method.name())).into()
            );
        }
        Some(tau) => Some(TrainFraction::new(tau)?),
        None => None,
    };
    let spec = SelectSpec {
        family,
        standardize: args.family.standardize,
        missing_category: loaded.missing_category,
        method,
        plan,
        loss: args.loss.as_deref().map(Loss::parse).transpose()?,
        tie: args.tie,
        aggregation: if args.soft { Some(Aggregation::SoftVote) } else { args.aggregate },
        one_standard_error: args.one_se,
        inner_fraction,
        seed: Seed(args.seed),
        keep_split_indices: args.report_splits,
        vote_ties: args.vote_ties,
    };
    Ok((spec, plan_text, rows))
}

pub fn run(args: SelectArgs) -> anyhow::Result<()> {
    let (loaded, spec, plan_text, rows) =
        source::load_with_spec(&args.data, &args.plan, args.seed, args.given_spec()?, |loaded| spec(&args, loaded))?;
    let data = &loaded.data;
    spec.validate()?;
    let method = spec.method;
    let family = source::build_family(|d| spec.family(d), &loaded)?;
    let splits = spec.splits(&rows.inputs(data))?;
    output::record_spec(&spec)?;
    let bar = output::Bar::new(splits.len() as u64, "splits", args.output.json);
    let (model, report) = spec.run_on(family.as_ref(), data, &splits, &bar.executor())?;
    bar.0.finish_and_clear();
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
        return output::print_json("select", parameters, Some(spec.seed.0), result);
    }
    match &report.axes {
        Some(axes) => print_composite(&report, axes, &loaded.description, &plan_text, &model, data.n_rows())?,
        None => print_tables(&report, &loaded.description, &plan_text, &member_values, data.n_rows(), spec.one_standard_error)?,
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
            if let Some(b) = best_of(&curve.mean, &own)? {
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

/// The grid point among `own` with the smallest risk, as the engine's argmin picks it (its tie
/// tolerance, the first in grid order): the point selection would give the family alone.
fn best_of(risks: &[f64], own: &[usize]) -> anyhow::Result<Option<usize>> {
    if own.is_empty() {
        return Ok(None);
    }
    let own_risks: Vec<f64> = own.iter().map(|&m| risks[m]).collect();
    Ok(Some(own[select::argmin(&own_risks, TieRule::First)?]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    /// The flags' spec reads back from its JSON equal to itself, with every flag in it.
    #[test]
    fn the_flags_spec_round_trips_through_json() {
        let line = "agghoo select --data gen:knn --n 80 --family knn,logistic --grid k=1:9:2 --grid lambda=log:0.01:1:3 \
                    --method subagging --inner-tau 0.7 --plan vfold --splits 4 --loss 01 --tie last --aggregate soft \
                    --standardize --seed 9 --report-splits --missing-category most-frequent";
        let crate::args::Command::Select(args) = crate::args::Cli::parse_from(line.split_whitespace()).command else { unreachable!() };
        let loaded = source::load(&args.data, Some(&args.plan), Seed(args.seed)).unwrap();
        let (spec, plan_text, _) = spec(&args, &loaded).unwrap();
        assert_eq!(plan_text, spec.plan.as_ref().unwrap().describe());
        let json = serde_json::to_string(&spec).unwrap();
        assert_eq!(serde_json::from_str::<SelectSpec>(&json).unwrap(), spec, "{json}");
        let expected = [
            r#""method":"subagging""#,
            r#""inner_fraction":0.7"#,
            r#""tie":"last""#,
            r#""aggregation":"soft""#,
            r#""standardize":true"#,
            r#""seed":9"#,
            r#""keep_split_indices":true"#,
            r#""missing_category":"most-frequent""#,
            r#""n_folds":4"#,
        ];
        for field in expected {
            assert!(json.contains(field), "{field} in {json}");
        }
        assert_eq!(spec.family.kinds().len(), 2);
    }

    /// Risks equal but for rounding (the same errors summed in another order) tie, and the
    /// first point in grid order wins, as in selection; an exact comparison took the later one.
    #[test]
    fn a_familys_best_point_ties_as_the_engine_does() {
        let risks = [0.9, 0.1 + 0.2, 0.5, 0.3, 0.3];
        assert!(risks[1] > risks[3]);
        assert_eq!(best_of(&risks, &[1, 2, 3]).unwrap(), Some(1));
        assert_eq!(best_of(&risks, &[0, 2]).unwrap(), Some(2));
        assert_eq!(best_of(&risks, &[]).unwrap(), None);
        assert!(best_of(&[f64::NAN, 0.1], &[0, 1]).is_err());
    }
}
