//! `agghoo features`: feature selection (filters, wrappers, searches, embedded), optionally
//! evaluated honestly — the whole selection redone inside every outer training fold, next to the
//! naive selection-on-all-data estimate.

use agghoo::Seed;
use agghoo::data::Preprocess;
use agghoo::family::{FamilyKind, FamilyParams, GridSpec};
use agghoo::features::{
    Discreteness, EmbeddedMethod, Filter, HonestConfig, Importance, Learner, ScorerSpec, SearchConfig, SearchMethod, Selector, Stopping,
    evaluate_honestly, select_features,
};
use agghoo::resample::PlanContext;

use crate::args::{FeaturesArgs, UsageError};
use crate::output::{self, num};
use crate::source;

fn usage(msg: String) -> anyhow::Error {
    UsageError(msg).into()
}

/// `FAMILY:VALUE` → a learner with a one-point grid.
fn learner(text: &str) -> anyhow::Result<Learner> {
    let (family, value) = text.split_once(':').ok_or_else(|| usage(format!("`{text}`: expected FAMILY:VALUE, e.g. knn:5")))?;
    let family = FamilyKind::parse(family).map_err(|e| usage(e.to_string()))?;
    let value: f64 = value.parse().map_err(|_| usage(format!("`{text}`: `{value}` is not a number")))?;
    Ok(Learner { family, params: FamilyParams::with_grid(GridSpec::Values(vec![value])) })
}

fn count(text: &str) -> anyhow::Result<usize> {
    text.parse().map_err(|_| usage(format!("--features `{text}`: this method needs a number of features")))
}

pub fn run(args: FeaturesArgs) -> anyhow::Result<()> {
    let seed = Seed(args.seed);
    let loaded = source::load(&args.data, None, seed)?;
    let data = &loaded.data;
    let inner = source::outer_plan(&args.inner, false)?;
    data.check_numeric("feature selection")?;
    let preprocess = Preprocess { impute_median: data.has_missing(), standardize: args.standardize, ..Preprocess::default() };
    let wrapper_learner = match args.scorer.strip_prefix("wrapper:") {
        Some(spec) => Some(learner(spec)?),
        None if args.scorer == "cfs" => None,
        None => return Err(usage(format!("--scorer `{}`: cfs or wrapper:FAMILY:VALUE", args.scorer))),
    };
    let selector = match args.method.as_str() {
        "pearson" => Selector::Ranking { filter: Filter::Pearson, n_features: count(&args.n_features)? },
        "mi" => Selector::Ranking {
            filter: Filter::MutualInformation { n_neighbors: 3, discreteness: Discreteness::Auto },
            n_features: count(&args.n_features)?,
        },
        "lasso" | "enet" => Selector::Embedded(EmbeddedMethod::LassoSupport {
            elastic_net: args.method == "enet",
            params: FamilyParams::default(),
            plan: inner.clone(),
            standardize: args.standardize,
        }),
        "forest-impurity" | "forest-permutation" => Selector::Embedded(EmbeddedMethod::ForestImportance {
            params: FamilyParams::default(),
            importance: if args.method == "forest-impurity" { Importance::Impurity } else { Importance::Permutation },
            n_features: count(&args.n_features)?,
        }),
        method => {
            let method = SearchMethod::parse(method).map_err(|e| usage(e.to_string()))?;
            let stopping = Stopping::parse(&args.n_features).map_err(|e| usage(e.to_string()))?;
            let scorer = match &wrapper_learner {
                Some(l) => ScorerSpec::Wrapper { learner: l.clone(), plan: inner.clone(), loss: None, preprocess },
                None => ScorerSpec::Cfs,
            };
            let search = SearchConfig::new(method, stopping);
            // The work, before it starts (a wrapper scores each subset by a whole inner CV);
            // a search beyond the budget is refused by the library with the same estimate.
            if let (Ok(evaluations), false) = (search.estimated_evaluations(data.n_features()), args.output.json) {
                let runs = if args.evaluate.is_some() { " per selection (one on all data, one in every outer fold)" } else { "" };
                eprintln!("agghoo: {} over {} features: about {evaluations} subset evaluations{runs}", args.method, data.n_features());
            }
            Selector::Search { scorer, search }
        }
    };
    let Some(outer_text) = &args.evaluate else {
        let selection = select_features(&selector, data, seed)?;
        if args.output.json {
            return output::print_json("features", &args.method, Some(seed.0), &selection);
        }
        return output::print(&format!(
            "selected {} of {} features: {}",
            selection.features.len(),
            data.n_features(),
            selection.names.join(", ")
        ));
    };
    let learner = match (&args.learner, &wrapper_learner) {
        (Some(text), _) => learner(text)?,
        (None, Some(l)) => l.clone(),
        (None, None) => learner("knn:5")?,
    };
    let outer = source::outer_plan(outer_text, false)?.instantiate(&PlanContext::of(data), seed)?;
    let config = HonestConfig { selector, learner, loss: None, preprocess, seed };
    let report = evaluate_honestly(data, &outer, &config)?;
    if args.output.json {
        return output::print_json("features", &args.method, Some(seed.0), &report);
    }
    output::print(&format!(
        "feature selection `{}` evaluated by {} outer folds · learner {} · loss {} · data {} (n = {}, d = {})",
        args.method,
        report.n_folds,
        report.learner,
        report.loss,
        loaded.description,
        data.n_rows(),
        data.n_features()
    ))?;
    let mut t = output::table(&["estimate", "risk", "standard error"]);
    t.add_row(vec!["honest (selection inside every training fold)".into(), num(report.honest.mean), num(report.honest.standard_error)]);
    t.add_row(vec!["naive (selection on all data, then CV)".into(), num(report.naive.mean), num(report.naive.standard_error)]);
    output::print(&t.to_string())?;
    output::print(&format!("selection bias (naive − honest): {}", num(report.selection_bias)))?;
    let mut t = output::table(&["feature", "chosen in folds", "fraction"]);
    for f in report.frequency.iter().take(20) {
        t.add_row(vec![f.name.clone(), f.count.to_string(), num(f.fraction)]);
    }
    output::print(&format!("stability (mean Jaccard between folds: {})\n{t}", num(report.mean_jaccard)))?;
    output::print(&format!("selected on all data: {}", report.naive_selection.names.join(", ")))
}
