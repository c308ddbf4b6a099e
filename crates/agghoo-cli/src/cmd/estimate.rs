//! `agghoo estimate`: the risk of one rule ± standard error, per-split scores, out-of-fold
//! predictions, bootstrap estimators, learning and validation curves.

use agghoo::Seed;
use agghoo::estimate::ClosedFormPolicy;
use agghoo::family::FamilySpec;
use agghoo::loss::Loss;
use agghoo::spec::{EstimateOutcome, EstimateSpec, LearningCurveSpec};
use serde::Serialize;

use agghoo::resample::PlanKind;

use crate::args::{EstimateArgs, UsageError};
use crate::output::{self, num};
use crate::source::{self, Loaded, Rows};

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

/// The spec of the estimate flags on the loaded data, the description of its plan, and the rows
/// the plan reads.
pub fn spec(args: &EstimateArgs, loaded: &Loaded) -> anyhow::Result<(EstimateSpec, String, Rows)> {
    source::single_family(&args.family, "estimate")?;
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
    let family = FamilySpec::from_params(kind, &params)?;
    let losses = parse_losses(args.loss.as_deref())?;
    let (plan, plan_text, rows) = source::plan_rows(&args.plan, PlanKind::VFold, loaded)?;
    let learning_curve = match &args.learning_curve {
        Some(sizes) => Some(LearningCurveSpec {
            train_sizes: sizes
                .split(',')
                .map(|s| s.trim().parse::<usize>().map_err(|_| UsageError(format!("--learning-curve: `{s}` is not a size"))))
                .collect::<Result<Vec<_>, _>>()?,
            n_splits: args.plan.n_splits,
        }),
        None => None,
    };
    let spec = EstimateSpec {
        family,
        value,
        standardize: args.family.standardize,
        missing_category: loaded.missing_category,
        plan,
        losses,
        closed_form: if args.no_closed_form { ClosedFormPolicy::Never } else { ClosedFormPolicy::Auto },
        keep_predictions: args.oof.is_some(),
        learning_curve,
        validation_curve: args.validation_curve,
        seed: Seed(args.seed),
    };
    Ok((spec, plan_text, rows))
}

pub fn run(args: EstimateArgs) -> anyhow::Result<()> {
    let given = args.given_spec()?;
    let curves =
        given.as_ref().map_or(args.learning_curve.is_some() || args.validation_curve, |s| s.learning_curve.is_some() || s.validation_curve);
    if args.curve_out.is_some() && !curves {
        return Err(UsageError("--curve-out has no effect without --learning-curve or --validation-curve".into()).into());
    }
    let (loaded, spec, plan_text, rows) = source::load_with_spec(&args.data, &args.plan, args.seed, given, |loaded| spec(&args, loaded))?;
    let data = &loaded.data;
    // `--oof` with a given spec keeps the predictions it writes.
    let spec = EstimateSpec { keep_predictions: spec.keep_predictions || args.oof.is_some(), ..spec };
    let (value, seed) = (spec.value, spec.seed);
    let rule = source::build_family(|d| spec.family(d), &loaded)?;
    let inputs = rows.inputs(data);
    let splits = spec.splits(&inputs)?;
    output::record_spec(&spec)?;
    let bar = output::Bar::new(splits.len() as u64, "splits", args.output.json);
    let outcome = spec.run_on(rule.as_ref(), &inputs, &splits, &bar.executor())?;
    bar.0.finish_and_clear();
    let EstimateOutcome { estimate, bootstrap, learning_curve: learning, validation_curve: validation } = &outcome;
    if let Some(path) = &args.oof {
        write_oof(path, estimate, data)?;
    }
    if let Some(prefix) = &args.curve_out {
        crate::curves::write(prefix, &estimate.hyperparameter, learning.as_ref(), validation.as_ref())?;
    }
    if args.output.json {
        let parameters = Parameters {
            data: &loaded.description,
            family: rule.name(),
            value,
            plan: &plan_text,
            losses: outcome.estimate.summaries.iter().map(|s| s.loss.clone()).collect(),
        };
        return output::print_json("estimate", parameters, Some(seed.0), &outcome);
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
    if let Some(b) = bootstrap {
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
    if let Some(l) = learning {
        let mut t = output::table(&["training size", "estimate", "standard error"]);
        let cells = output::columns(
            &l.points.iter().map(|p| vec![Some(p.summaries[0].estimate), p.summaries[0].standard_error]).collect::<Vec<_>>(),
        );
        for (p, c) in l.points.iter().zip(cells) {
            t.add_row(std::iter::once(p.n_train.to_string()).chain(c).collect::<Vec<_>>());
        }
        output::print(&format!("learning curve\n{t}"))?;
    }
    if let Some(v) = validation {
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

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    /// The flags' spec reads back from its JSON equal to itself, with every flag in it.
    #[test]
    fn the_flags_spec_round_trips_through_json() {
        let line = "agghoo estimate --data gen:svr --n 80 --family ridge --value 0.5 --plan bootstrap --splits 6 \
                    --loss squared,absolute --no-closed-form --oof oof.csv --learning-curve 20,40 --validation-curve \
                    --standardize --seed 3";
        let crate::args::Command::Estimate(args) = crate::args::Cli::parse_from(line.split_whitespace()).command else { unreachable!() };
        let loaded = source::load(&args.data, Some(&args.plan), Seed(args.seed)).unwrap();
        let (spec, _, rows) = spec(&args, &loaded).unwrap();
        let json = serde_json::to_string(&spec).unwrap();
        assert_eq!(serde_json::from_str::<EstimateSpec>(&json).unwrap(), spec, "{json}");
        assert_eq!((spec.value, spec.seed, spec.closed_form), (0.5, Seed(3), ClosedFormPolicy::Never));
        assert!(spec.keep_predictions && spec.validation_curve && spec.standardize && spec.is_bootstrap(&rows.inputs(&loaded.data)));
        assert_eq!(spec.learning_curve, Some(LearningCurveSpec { train_sizes: vec![20, 40], n_splits: 6 }));
        assert_eq!(spec.losses, [Loss::Squared, Loss::Absolute]);
    }
}
