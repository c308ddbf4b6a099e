//! `agghoo estimate`: the risk of one rule ± standard error, per-split scores, out-of-fold
//! predictions, bootstrap estimators, learning and validation curves.

use std::sync::Arc;

use agghoo::Seed;
use agghoo::estimate::{
    BootstrapConfig, ClosedFormPolicy, EstimateConfig, LearningCurveConfig, bootstrap_risk_on, estimate_risk, learning_curve,
    validation_curve,
};
use agghoo::family::{FamilySpec, Rule};
use agghoo::loss::Loss;
use serde::Serialize;

use agghoo::resample::PlanKind;

use crate::args::{EstimateArgs, UsageError};
use crate::output::{self, num};
use crate::source;

#[derive(Serialize)]
struct Parameters<'a> {
    data: &'a str,
    family: &'a str,
    value: f64,
    plan: &'a str,
    losses: Vec<String>,
}

pub fn parse_losses(text: Option<&str>) -> anyhow::Result<Vec<Loss>> {
    Ok(match text {
        None => Vec::new(),
        Some(t) => t.split(',').map(|l| Loss::parse(l.trim())).collect::<Result<Vec<_>, _>>()?,
    })
}

pub fn run(args: EstimateArgs) -> anyhow::Result<()> {
    let seed = Seed(args.seed);
    if args.curve_out.is_some() && args.learning_curve.is_none() && !args.validation_curve {
        return Err(UsageError("--curve-out has no effect without --learning-curve or --validation-curve".into()).into());
    }
    source::single_family(&args.family, "estimate")?;
    let loaded = source::load(&args.data, Some(&args.plan), seed)?;
    let data = &loaded.data;
    let (kind, params, bare) = source::family_params(&args.family)?;
    // `--value V`; the older spelling `--param V` (a bare number) is read the same way.
    let value = match (args.value, bare.as_slice(), &params.grid) {
        (Some(v), [], _) => v,
        (None, [v], _) => *v,
        (None, [], Some(g)) if g.values()?.len() == 1 => g.values()?[0],
        (Some(_), [_, ..], _) => return Err(UsageError("give the rule's value once: --value VALUE (not also --param VALUE)".into()).into()),
        _ => {
            return Err(
                UsageError("give the rule to evaluate: --value VALUE (its hyperparameter value, e.g. --value 5 for k = 5)".into()).into()
            );
        }
    };
    // The curve over the whole grid needs the family's grid (the one given, or its default); the
    // rule is the family at one value.
    let spec = FamilySpec::from_params(kind, &params)?;
    let preprocess = source::preprocess(&args.family, &loaded);
    let rule = Rule { family: spec.clone(), value }.build_for(data, &preprocess)?;
    let losses = parse_losses(args.loss.as_deref())?;
    let (splits, plan_text) = source::splits(&args.plan, PlanKind::VFold, &loaded, seed)?;
    let bar = output::progress(splits.len() as u64, "splits", args.output.json);
    let tick = bar.clone();
    let progress: agghoo::select::Progress = Arc::new(move |k| tick.inc(k));
    let is_bootstrap = args.plan.plan == Some(PlanKind::Bootstrap) && args.plan.splits_file.is_none();
    let config = EstimateConfig {
        losses: losses.clone(),
        preprocess,
        keep_predictions: args.oof.is_some(),
        closed_form: if args.no_closed_form { ClosedFormPolicy::Never } else { ClosedFormPolicy::Auto },
        progress: Some(progress.clone()),
    };
    let estimate = estimate_risk(rule.as_ref(), 0, data, &splits, &config)?;
    let bootstrap = if is_bootstrap {
        let mut b = BootstrapConfig::new(splits.len());
        b.seed = seed;
        b.loss = losses.first().copied();
        b.preprocess = preprocess;
        Some(bootstrap_risk_on(rule.as_ref(), 0, data, &splits, &b)?)
    } else {
        None
    };
    let learning = match &args.learning_curve {
        Some(sizes) => {
            let train_sizes = sizes
                .split(',')
                .map(|s| s.trim().parse::<usize>().map_err(|_| UsageError(format!("--learning-curve: `{s}` is not a size"))))
                .collect::<Result<Vec<_>, _>>()?;
            let cfg = LearningCurveConfig { train_sizes, n_splits: args.plan.n_splits, seed, losses: losses.clone(), preprocess };
            Some(learning_curve(rule.as_ref(), 0, data, &cfg)?)
        }
        None => None,
    };
    let validation = if args.validation_curve {
        let grid_family = spec.build_for(data, &preprocess)?;
        Some(validation_curve(grid_family.as_ref(), data, &splits, &losses, preprocess)?)
    } else {
        None
    };
    bar.finish_and_clear();
    if let Some(path) = &args.oof {
        write_oof(path, &estimate, data)?;
    }
    if let Some(prefix) = &args.curve_out {
        crate::curves::write(prefix, &estimate.hyperparameter, learning.as_ref(), validation.as_ref())?;
    }
    if args.output.json {
        #[derive(Serialize)]
        struct Out<'a> {
            estimate: &'a agghoo::estimate::RiskEstimate,
            bootstrap: Option<&'a agghoo::estimate::BootstrapEstimate>,
            learning_curve: Option<&'a agghoo::estimate::LearningCurve>,
            validation_curve: Option<&'a agghoo::estimate::ValidationCurve>,
        }
        let parameters = Parameters {
            data: &loaded.description,
            family: rule.name(),
            value,
            plan: &plan_text,
            losses: estimate.summaries.iter().map(|s| s.loss.clone()).collect(),
        };
        let out = Out {
            estimate: &estimate,
            bootstrap: bootstrap.as_ref(),
            learning_curve: learning.as_ref(),
            validation_curve: validation.as_ref(),
        };
        return output::print_json("estimate", parameters, Some(seed.0), out);
    }
    output::print(&format!(
        "risk of {} with {} = {} · {} ({:?}) · data {} (n = {})",
        rule.name(),
        estimate.hyperparameter,
        num(value),
        plan_text,
        estimate.method,
        loaded.description,
        data.n_rows()
    ))?;
    let mut t = output::table(&["loss", "estimate", "standard error"]);
    let cells = output::columns(&estimate.summaries.iter().map(|s| vec![Some(s.estimate), s.standard_error]).collect::<Vec<_>>());
    for (s, c) in estimate.summaries.iter().zip(cells) {
        t.add_row(std::iter::once(s.loss.clone()).chain(c).collect::<Vec<_>>());
    }
    output::print(&t.to_string())?;
    if let Some(g) = estimate.gcv {
        output::print(&format!("GCV: {}", num(g)))?;
    }
    if let Some(b) = &bootstrap {
        let mut t = output::table(&["bootstrap estimator", "value", "standard error"]);
        let rows = [
            ("apparent R_D(f)".to_string(), b.apparent, None),
            ("naive".into(), b.naive, Some(b.naive_standard_error)),
            (format!("leave-one-out Err(1) (|D'| = {})", b.n_covered), b.loo_bootstrap, Some(b.loo_bootstrap_standard_error)),
            (".632".into(), b.point632, None),
            (format!(".632+ (γ̂ = {}, r̂ = {})", num(b.no_information), num(b.relative_overfitting)), b.point632_plus, None),
        ];
        // Estimators without a standard error show an empty cell; one that has none on this data, `—`.
        let cells = output::columns(&rows.iter().map(|r| vec![Some(r.1), r.2.flatten()]).collect::<Vec<_>>());
        for (r, c) in rows.iter().zip(cells) {
            t.add_row(vec![r.0.clone(), c[0].clone(), if r.2.is_some() { c[1].clone() } else { String::new() }]);
        }
        output::print(&t.to_string())?;
    }
    if let Some(l) = &learning {
        let mut t = output::table(&["training size", "estimate", "standard error"]);
        let cells = output::columns(
            &l.points.iter().map(|p| vec![Some(p.summaries[0].estimate), p.summaries[0].standard_error]).collect::<Vec<_>>(),
        );
        for (p, c) in l.points.iter().zip(cells) {
            t.add_row(std::iter::once(p.n_train.to_string()).chain(c).collect::<Vec<_>>());
        }
        output::print(&format!("learning curve\n{t}"))?;
    }
    if let Some(v) = &validation {
        let mut t = output::table(&[&estimate.hyperparameter, "CV risk", "standard error"]);
        let cells = output::columns(
            &v.points.iter().map(|p| vec![Some(p.value), Some(p.summaries[0].estimate), p.summaries[0].standard_error]).collect::<Vec<_>>(),
        );
        for c in cells {
            t.add_row(c);
        }
        output::print(&format!("validation curve\n{t}"))?;
    }
    Ok(())
}

fn write_oof(path: &std::path::Path, estimate: &agghoo::estimate::RiskEstimate, data: &agghoo::data::Dataset) -> anyhow::Result<()> {
    let Some(oof) = &estimate.out_of_fold else { return Ok(()) };
    let names = match data.target() {
        agghoo::data::Target::Classes { names, .. } => Some(names),
        agghoo::data::Target::Real(_) => None,
    };
    let mut text = String::from("row,n_predictions,prediction\n");
    for r in &oof.rows {
        let p = match (r.prediction, names) {
            (None, _) => String::new(),
            (Some(v), Some(names)) => names.get(v as usize).cloned().unwrap_or_default(),
            (Some(v), None) => format!("{v}"),
        };
        text.push_str(&format!("{},{},{}\n", r.row, r.n_predictions, output::csv_field(&p)));
    }
    output::write_file(path, "the out-of-fold predictions (--oof)", text)
}
