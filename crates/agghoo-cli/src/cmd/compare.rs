//! `agghoo compare`: nested CV of several selection procedures on identical outer splits, with
//! each one's risk ± SE and the paired differences (Nadeau–Bengio corrected t-test, 5×2cv).

use std::sync::Arc;

use agghoo::Seed;
use agghoo::estimate::{NestedConfig, nested_cv};
use agghoo::loss::Loss;
use agghoo::resample::PlanContext;
use agghoo::select::SelectConfig;
use serde::Serialize;

use crate::args::{CompareArgs, UsageError};
use crate::output;
use crate::source;

#[derive(Serialize)]
struct Parameters<'a> {
    data: &'a str,
    family: String,
    methods: &'a str,
    outer: &'a str,
    inner: String,
}

fn procedure(name: &str, seed: Seed) -> anyhow::Result<SelectConfig> {
    SelectConfig::for_procedure(name, seed).map_err(|e| match e {
        agghoo::Error::InvalidParameter { got, expected, .. } => {
            UsageError(format!("--methods: unknown procedure `{got}` ({expected})")).into()
        }
        other => other.into(),
    })
}

pub fn run(args: CompareArgs) -> anyhow::Result<()> {
    let seed = Seed(args.seed);
    let loaded = source::load(&args.data, None, seed)?;
    let data = &loaded.data;
    let (kind, mut params, bare) = source::family_params(&args.family)?;
    // Several families are compared with each other (one row per family and procedure).
    let compared = std::mem::take(&mut params.union);
    if !bare.is_empty() {
        return Err(UsageError("compare selects over the grid: family parameters are KEY=VALUE".into()).into());
    }
    let preprocess = source::preprocess(&args.family, &loaded);
    let mut procedures = Vec::new();
    for name in args.methods.split(',') {
        let mut c = procedure(name.trim(), seed)?;
        c.preprocess = preprocess;
        c.loss = args.loss.as_deref().map(Loss::parse).transpose()?;
        procedures.push(c);
    }
    let (inner, _) = source::plan(&args.plan, agghoo::resample::PlanKind::MonteCarlo, None)?;
    let inner = source::default_stratification(&args.plan, inner, data.task());
    let outer_plan = source::default_stratification(&args.plan, source::outer_plan(&args.outer, args.plan.stratify)?, data.task());
    let outer = outer_plan.instantiate(&PlanContext::of(data), seed)?;
    let bar = output::progress(outer.len() as u64, "outer splits", args.output.json);
    let tick = bar.clone();
    let (family, compared) = NestedConfig::families_from_params(kind, &params, &compared).map_err(|e| match e {
        agghoo::Error::InvalidParameter { name: name @ ("grid" | "family"), expected, got } if !compared.is_empty() => {
            UsageError(format!("--{name} {got}: expected {expected}")).into()
        }
        other => anyhow::Error::from(other),
    })?;
    let config = NestedConfig {
        loss: args.loss.as_deref().map(Loss::parse).transpose()?,
        seed,
        keep_inner_splits: false,
        progress: Some(Arc::new(move |k| tick.inc(k))),
        compared,
        ..NestedConfig::new(family, inner.clone(), procedures)
    };
    let report = nested_cv(data, &outer, &config)?;
    bar.finish_and_clear();
    if args.output.json {
        let parameters = Parameters {
            data: &loaded.description,
            family: report.family.clone(),
            methods: &args.methods,
            outer: &args.outer,
            inner: inner.describe(),
        };
        return output::print_json("compare", parameters, Some(seed.0), &report);
    }
    output::print(&format!(
        "nested CV · family {} · outer {} ({} splits) · inner {} · test loss {} · data {} (n = {})",
        report.family,
        outer_plan.describe(),
        outer.len(),
        inner.describe(),
        report.loss,
        loaded.description,
        data.n_rows()
    ))?;
    let mut t = output::table(&["procedure", "risk", "standard error"]);
    let cells = output::columns(&report.procedures.iter().map(|p| vec![Some(p.estimate), p.standard_error]).collect::<Vec<_>>());
    for (p, c) in report.procedures.iter().zip(cells) {
        t.add_row(std::iter::once(p.label.clone()).chain(c).collect::<Vec<_>>());
    }
    output::print(&t.to_string())?;
    let mut t = output::table(&["a − b", "mean difference", "corrected t (Nadeau–Bengio)", "p-value", "5×2cv p-value"]);
    let cells = output::columns(
        &report
            .comparisons
            .iter()
            .map(|c| {
                vec![
                    Some(c.mean_difference),
                    c.corrected_t_test.statistic,
                    Some(c.corrected_t_test.p_value),
                    c.five_by_two_cv.as_ref().map(|f| f.p_value),
                ]
            })
            .collect::<Vec<_>>(),
    );
    for (c, cells) in report.comparisons.iter().zip(cells) {
        t.add_row(std::iter::once(format!("{} − {}", c.a, c.b)).chain(cells).collect::<Vec<_>>());
    }
    output::print(&t.to_string())
}
