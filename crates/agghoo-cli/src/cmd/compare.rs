//! `agghoo compare`: nested CV of several selection procedures on identical outer splits, with
//! each one's risk ± SE and the paired differences (Nadeau–Bengio corrected t-test, 5×2cv).

use agghoo::Seed;
use agghoo::estimate::NestedConfig;
use agghoo::loss::Loss;
use agghoo::spec::{CompareSpec, Inputs, ProcedureChoice};
use serde::Serialize;

use crate::args::{CompareArgs, UsageError};
use crate::output;
use crate::source::{self, Loaded};

#[derive(Serialize)]
struct Parameters<'a> {
    data: &'a str,
    family: String,
    methods: &'a str,
    outer: &'a str,
    inner: String,
}

fn procedure(name: &str) -> anyhow::Result<ProcedureChoice> {
    ProcedureChoice::parse(name).map_err(|e| match e {
        agghoo::Error::InvalidParameter { got, expected, .. } => {
            UsageError(format!("--methods: unknown procedure `{got}` ({expected})")).into()
        }
        other => other.into(),
    })
}

/// The spec of the compare flags on the loaded data.
pub fn spec(args: &CompareArgs, loaded: &Loaded) -> anyhow::Result<CompareSpec> {
    let data = &loaded.data;
    let (kind, mut params, bare) = source::family_params(&args.family)?;
    // Several families are compared with each other (one row per family and procedure).
    let compared = std::mem::take(&mut params.union);
    if !bare.is_empty() {
        return Err(UsageError("compare selects over the grid: family parameters are KEY=VALUE".into()).into());
    }
    let methods = args.methods.split(',').map(|name| procedure(name.trim())).collect::<anyhow::Result<Vec<_>>>()?;
    let loss = args.loss.as_deref().map(Loss::parse).transpose()?;
    let (inner, _) = source::plan(&args.plan, agghoo::resample::PlanKind::MonteCarlo, None)?;
    let inner = source::default_stratification(&args.plan, inner, data.task());
    let outer = source::default_stratification(&args.plan, source::outer_plan(&args.outer, args.plan.stratify)?, data.task());
    let (family, compared) = NestedConfig::families_from_params(kind, &params, &compared).map_err(|e| match e {
        agghoo::Error::InvalidParameter { name: name @ ("grid" | "family"), expected, got } if !compared.is_empty() => {
            UsageError(format!("--{name} {got}: expected {expected}")).into()
        }
        other => anyhow::Error::from(other),
    })?;
    Ok(CompareSpec {
        family,
        compared,
        standardize: args.family.standardize,
        missing_category: loaded.missing_category,
        methods,
        outer: Some(outer),
        inner: Some(inner),
        loss,
        seed: Seed(args.seed),
    })
}

pub fn run(args: CompareArgs) -> anyhow::Result<()> {
    // Generated data: the spec's seed, as the flags' run used the same seed for both.
    let seed = args.recorded_spec.as_ref().map_or(Seed(args.seed), |s| s.seed);
    let loaded = source::load(&args.data, None, seed)?;
    let data = &loaded.data;
    let spec = match &args.recorded_spec {
        Some(spec) => spec.clone(),
        None => spec(&args, &loaded)?,
    };
    let outer_plan = spec.outer_for(data)?;
    let outer = spec.outer_splits(&Inputs::of(data))?;
    let inner = spec.config(data)?.inner_plan;
    output::record_spec(&spec)?;
    let bar = output::Bar::new(outer.len() as u64, "outer splits", args.output.json);
    let report = spec.run_on(data, &outer, &bar.executor())?;
    bar.0.finish_and_clear();
    if args.output.json {
        let parameters = Parameters {
            data: &loaded.description,
            family: report.family.clone(),
            methods: &args.methods,
            outer: &args.outer,
            inner: inner.describe(),
        };
        return output::print_json("compare", parameters, Some(spec.seed.0), &report);
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

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    /// The flags' spec reads back from its JSON equal to itself, with every flag in it.
    #[test]
    fn the_flags_spec_round_trips_through_json() {
        let line = "agghoo compare --data gen:knn --n 80 --family knn,cart --grid k=1:9:2 --methods cv+1se,majhoo \
                    --outer 5x2 --plan vfold --splits 3 --loss 01 --standardize --seed 4";
        let crate::args::Command::Compare(args) = crate::args::Cli::parse_from(line.split_whitespace()).command else { unreachable!() };
        let loaded = source::load(&args.data, None, Seed(args.seed)).unwrap();
        let spec = spec(&args, &loaded).unwrap();
        let json = serde_json::to_string(&spec).unwrap();
        assert_eq!(serde_json::from_str::<CompareSpec>(&json).unwrap(), spec, "{json}");
        assert!(json.contains(r#""methods":["cv+1se","majhoo"]"#), "{json}");
        assert_eq!((spec.compared.len(), spec.standardize, spec.seed), (1, true, Seed(4)));
        assert_eq!(spec.outer.unwrap().describe(), agghoo::resample::Plan::parse("5x2", true).unwrap().describe());
        assert_eq!(spec.inner.unwrap().describe(), agghoo::resample::Plan::parse("vfold:3", true).unwrap().describe());
    }
}
