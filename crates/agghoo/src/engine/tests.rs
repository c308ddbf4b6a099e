//! Every job gives the same bits whatever executes its units: in order, reversed, shuffled, in
//! blocks evaluated from a serialized copy of the job (a worker's view), or all at once.

use super::executor::testing::{Reversed, Shuffled};
use super::*;
use crate::Seed;
use crate::data::{Dataset, Preprocess, generators};
use crate::estimate::{EstimateConfig, EstimateJob, NestedConfig, NestedJob, estimate_risk, nested_cv};
use crate::family::{self, FamilyKind, FamilyParams, FamilySpec, GridSpec, Rule};
use crate::resample::{Plan, PlanContext, Splits};
use crate::select::{self, Method, SelectConfig, SelectJob};

fn splits(data: &Dataset, plan: &str, seed: u64) -> Splits {
    Plan::parse(plan, false).unwrap().instantiate(&PlanContext::of(data), Seed(seed)).unwrap()
}

/// Evaluates `job` as a cluster would: a serialized copy per "worker", blocks of units in a
/// scrambled order, outcomes serialized back and put in unit order, then assembled.
fn distributed<J: Job>(job: &J, data: &Dataset, block: usize) -> J::Output {
    let text = serde_json::to_string(job).unwrap();
    let n = job.n_units();
    let blocks: Vec<Vec<usize>> = (0..n).collect::<Vec<_>>().chunks(block.max(1)).map(<[usize]>::to_vec).collect();
    let mut gathered: Vec<Option<String>> = vec![None; blocks.len()];
    for b in (0..blocks.len()).rev() {
        let worker: J = serde_json::from_str(&text).unwrap();
        let prepared = worker.prepare(data).unwrap();
        let outcomes = worker.evaluate(&prepared, data, &blocks[b], &Shuffled(b as u64)).unwrap();
        gathered[b] = Some(serde_json::to_string(&outcomes).unwrap());
    }
    let outcomes: Vec<J::Outcome> =
        gathered.into_iter().flat_map(|t| serde_json::from_str::<Vec<J::Outcome>>(&t.unwrap()).unwrap()).collect();
    let prepared = job.prepare(data).unwrap();
    job.assemble(&prepared, data, outcomes).unwrap()
}

#[test]
fn selection_is_identical_under_every_executor_and_any_distribution() {
    let data = generators::knn_problem(160, Seed(3)).unwrap();
    let params = FamilyParams::with_grid(GridSpec::parse("1:25:2").unwrap());
    for method in [Method::Majhoo, Method::Cv, Method::Subagging, Method::HoldOut, Method::Acv, Method::Ekcv] {
        let mut config = SelectConfig::new(method);
        config.seed = Seed(5);
        let sp = splits(&data, "vfold:7", 9);
        let fam = family::build(FamilyKind::Knn, &params, &data).unwrap();
        let (model, report) = select::select(fam.as_ref(), &data, &sp, &config).unwrap();
        let job = SelectJob::new(FamilySpec::from_params(FamilyKind::Knn, &params).unwrap(), config, &data, &sp).unwrap();
        let executors: [&dyn Executor; 4] = [&Sequential, &Rayon, &Reversed, &Shuffled(1)];
        for e in executors {
            let (m, r) = run(&job, &data, e).unwrap();
            assert_eq!(r, report, "{method:?}");
            assert_eq!(serde_json::to_string(&m).unwrap(), serde_json::to_string(&model).unwrap(), "{method:?}");
        }
        for block in [1, 3, 100] {
            let (m, r) = distributed(&job, &data, block);
            assert_eq!(r, report, "{method:?} in blocks of {block}");
            assert_eq!(serde_json::to_string(&m).unwrap(), serde_json::to_string(&model).unwrap(), "{method:?} in blocks of {block}");
        }
    }
}

#[test]
fn a_regression_path_family_with_preprocessing_distributes_bit_for_bit() {
    let data = generators::svr_problem(120, Seed(2), 0).unwrap();
    let params = FamilyParams::with_grid(GridSpec::parse("log:0.001:10:9").unwrap());
    let mut config = SelectConfig::new(Method::Agghoo);
    config.preprocess = Preprocess { impute_median: false, standardize: true, categorical: None };
    let sp = splits(&data, "mc:6:0.7", 4);
    let fam = family::build_for(FamilyKind::Ridge, &params, &data, &config.preprocess).unwrap();
    let (model, report) = select::select(fam.as_ref(), &data, &sp, &config).unwrap();
    let job = SelectJob::new(FamilySpec::from_params(FamilyKind::Ridge, &params).unwrap(), config, &data, &sp).unwrap();
    let (m, r) = distributed(&job, &data, 2);
    assert_eq!(r, report);
    assert_eq!(serde_json::to_string(&m).unwrap(), serde_json::to_string(&model).unwrap());
}

#[test]
fn estimates_distribute_bit_for_bit_including_the_closed_form() {
    let data = generators::svr_problem(90, Seed(6), 0).unwrap();
    let params = FamilyParams::with_grid(GridSpec::Values(vec![0.5]));
    for (plan, closed) in [("vfold:5", false), ("loo", true), ("mc:8:0.75", false)] {
        let sp = splits(&data, plan, 1);
        let fam = family::build(FamilyKind::Ridge, &params, &data).unwrap();
        let local = estimate_risk(fam.as_ref(), 0, &data, &sp, &EstimateConfig::default()).unwrap();
        let job = EstimateJob::new(FamilySpec::from_params(FamilyKind::Ridge, &params).unwrap(), 0, EstimateConfig::default(), &data, &sp)
            .unwrap();
        assert_eq!(job.closed_form, closed, "{plan}");
        assert_eq!(job.n_units(), if closed { 0 } else { sp.len() });
        assert_eq!(distributed(&job, &data, 2), local, "{plan}");
        assert_eq!(run(&job, &data, &Shuffled(8)).unwrap(), local, "{plan}");
    }
}

#[test]
fn nested_cv_distributes_one_outer_split_per_unit() {
    let data = generators::knn_problem(150, Seed(8)).unwrap();
    let params = FamilyParams::with_grid(GridSpec::parse("1:15:2").unwrap());
    let procedures = ["agghoo", "cv", "cv+1se", "subagging"].iter().map(|m| SelectConfig::for_procedure(m, Seed(0)).unwrap()).collect();
    let inner = Plan::parse("mc:5:0.8", false).unwrap();
    let config =
        NestedConfig { seed: Seed(11), ..NestedConfig::new(FamilySpec::from_params(FamilyKind::Knn, &params).unwrap(), inner, procedures) };
    let outer = splits(&data, "vfold:5", 2);
    let local = nested_cv(&data, &outer, &config).unwrap();
    let job = NestedJob { config, outer };
    assert_eq!(distributed(&job, &data, 1), local);
    assert_eq!(run(&job, &data, &Reversed).unwrap(), local);
}

#[test]
fn units_out_of_range_and_missing_outcomes_are_errors() {
    let data = generators::knn_problem(60, Seed(1)).unwrap();
    let params = FamilyParams::with_grid(GridSpec::parse("1:9:2").unwrap());
    let sp = splits(&data, "vfold:3", 1);
    let job =
        SelectJob::new(FamilySpec::from_params(FamilyKind::Knn, &params).unwrap(), SelectConfig::new(Method::Agghoo), &data, &sp).unwrap();
    let prepared = job.prepare(&data).unwrap();
    assert!(matches!(job.evaluate(&prepared, &data, &[0, 3], &Sequential), Err(crate::Error::InvalidParameter { .. })));
    let two = job.evaluate(&prepared, &data, &[0, 1], &Sequential).unwrap();
    assert!(matches!(job.assemble(&prepared, &data, two), Err(crate::Error::InvalidParameter { name: "outcomes", .. })));
}

#[test]
fn honest_feature_selection_distributes_one_outer_fold_per_unit() {
    use crate::features::{
        HonestConfig, HonestJob, Learner, ScorerSpec, SearchConfig, SearchMethod, Selector, Stopping, evaluate_honestly,
    };
    let data = generators::genuer(120, 8, Seed(4), 0).unwrap();
    let selector = Selector::Search {
        scorer: ScorerSpec::Cfs,
        search: SearchConfig::new(SearchMethod::parse("sffs").unwrap(), Stopping::parse("3").unwrap()),
    };
    let learner = Learner { family: Rule { family: FamilySpec::default_for(FamilyKind::Knn), value: 5.0 }.spec().unwrap() };
    let config = HonestConfig { selector, learner, loss: None, preprocess: Preprocess::default(), seed: Seed(3) };
    let outer = splits(&data, "vfold:4", 6);
    let local = evaluate_honestly(&data, &outer, &config).unwrap();
    let job = HonestJob { config, outer };
    assert_eq!(job.n_units(), 5, "four folds and the naive selection");
    assert_eq!(distributed(&job, &data, 2), local);
    assert_eq!(run(&job, &data, &Shuffled(2)).unwrap(), local);
}

/// Risks computed by a caller from [`path_predictions`] and concluded by
/// [`select::conclude`] give what `select` gives with the same loss: same risks, same choices,
/// same members (k-NN's model at a grid point is the path's), for CV and for Majhoo.
#[test]
fn risks_from_path_predictions_conclude_as_select_does() {
    let data = generators::knn_problem(120, Seed(4)).unwrap();
    let params = FamilyParams::with_grid(GridSpec::parse("1:15:2").unwrap());
    let fam = family::build(FamilyKind::Knn, &params, &data).unwrap();
    let sp = splits(&data, "vfold:5", 2);
    let predictions = path_predictions(fam.as_ref(), &data, &sp, Preprocess::default(), &Rayon).unwrap();
    assert_eq!(predictions.len(), sp.len());
    let loss = crate::loss::Loss::default_for(data.task());
    let risks: Vec<Vec<f64>> = predictions
        .iter()
        .zip(sp.iter())
        .map(|(path, s)| path.iter().map(|p| loss.risk(p, &data.view(s.validation())).unwrap()).collect())
        .collect();
    for method in [Method::Cv, Method::Majhoo] {
        let config = SelectConfig::new(method);
        let (model, report) = select::select(fam.as_ref(), &data, &sp, &config).unwrap();
        let options = select::evaluation_options(&config, &data).unwrap();
        let outcomes = outcomes_from_risks(fam.as_ref(), &data, &sp, &risks, &options, &Rayon).unwrap();
        let (m, r) = select::conclude(fam.as_ref(), &data, &sp, &config, outcomes).unwrap();
        assert_eq!(r, report, "{method:?}");
        assert_eq!(serde_json::to_string(&m).unwrap(), serde_json::to_string(&model).unwrap(), "{method:?}");
    }
    // A risk row of the wrong length, and a risk that is not finite, are refused by name.
    let options = EvalOptions::default();
    let short: Vec<Vec<f64>> = risks.iter().map(|r| r[1..].to_vec()).collect();
    let e = outcomes_from_risks(fam.as_ref(), &data, &sp, &short, &options, &Rayon).unwrap_err();
    assert!(e.to_string().contains("risks"), "{e}");
    let mut bad = risks.clone();
    bad[2][3] = f64::NAN;
    let e = outcomes_from_risks(fam.as_ref(), &data, &sp, &bad, &options, &Rayon).unwrap_err();
    assert!(matches!(e, crate::Error::Fit { split: Some(2), grid_index: 3, .. }), "{e:?}");
}

/// Counts finished units and cancels the run after `stop_after` of them.
struct StopAfter {
    finished: std::sync::atomic::AtomicUsize,
    stop_after: usize,
}

impl Observer for StopAfter {
    fn finished(&self, _: usize, _: usize) {
        self.finished.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
    fn keep_going(&self) -> bool {
        self.finished.load(std::sync::atomic::Ordering::SeqCst) < self.stop_after
    }
}

#[test]
fn an_observer_counts_the_splits_of_a_selection_and_of_a_nested_cv_and_can_cancel_them() {
    let data = generators::knn_problem(120, Seed(3)).unwrap();
    let params = FamilyParams::with_grid(GridSpec::parse("1:9:2").unwrap());
    let fam = family::build(FamilyKind::Knn, &params, &data).unwrap();
    let sp = splits(&data, "vfold:6", 1);
    let config = SelectConfig::new(Method::Majhoo);
    let count = StopAfter { finished: 0.into(), stop_after: usize::MAX };
    let observed = select::select_with(fam.as_ref(), &data, &sp, &config, &Observed::new(&Sequential, &count)).unwrap();
    assert_eq!(count.finished.into_inner(), 6);
    assert_eq!(observed.1, select::select(fam.as_ref(), &data, &sp, &config).unwrap().1);
    let stop = StopAfter { finished: 0.into(), stop_after: 2 };
    let got = select::select_with(fam.as_ref(), &data, &sp, &config, &Observed::new(&Sequential, &stop));
    assert!(matches!(got, Err(crate::Error::Interrupted(_))), "{:?}", got.err());
    assert_eq!(stop.finished.into_inner(), 2);
    // Nested CV: the outer splits are the units; a cancellation reaches the inner selections.
    let nested = NestedConfig::new(
        FamilySpec::from_params(FamilyKind::Knn, &params).unwrap(),
        Plan::parse("vfold:3", false).unwrap(),
        vec![SelectConfig::new(Method::Cv)],
    );
    let outer = splits(&data, "vfold:4", 2);
    let count = StopAfter { finished: 0.into(), stop_after: usize::MAX };
    crate::estimate::nested_cv_with(&data, &outer, &nested, &Observed::new(&Rayon, &count)).unwrap();
    assert_eq!(count.finished.into_inner(), 4);
    let stop = StopAfter { finished: 0.into(), stop_after: 0 };
    let got = crate::estimate::nested_cv_with(&data, &outer, &nested, &Observed::new(&Rayon, &stop));
    assert_eq!(got.err().map(|e| e.kind()), Some(crate::ErrorKind::Interrupted));
}
