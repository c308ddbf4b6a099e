//! Selection procedures: the invariants of `docs/PROCEDURES.md`, checked end to end on the k-NN family.

use agghoo::data::{Dataset, Target, generators};
use agghoo::family::{self, Family, FamilyKind, FamilyParams, GridSpec};
use agghoo::resample::{HoldOut, MonteCarlo, Plan, PlanContext, Split, Splits, VFold};
use agghoo::select::{self, Aggregation, FittedModel, Method, SelectConfig, TieRule, argmin};
use agghoo::{Error, Predictions, Seed};

fn knn(data: &Dataset, grid: &str) -> Box<dyn Family> {
    family::build(FamilyKind::Knn, &FamilyParams::with_grid(GridSpec::parse(grid).unwrap()), data).unwrap()
}

fn regression_data(n: usize, seed: u64) -> Dataset {
    let d = generators::knn_problem(n, Seed(seed)).unwrap();
    let y: Vec<f64> = (0..n).map(|i| generators::knn_g(d.row(i)[0], d.row(i)[1]) + 0.1 * ((i * 37 % 11) as f64 - 5.0)).collect();
    Dataset::new(d.x().to_vec(), d.feature_names().to_vec(), Target::Real(y), "y").unwrap()
}

#[test]
fn agghoo_with_one_split_equals_the_holdout() {
    let data = generators::knn_problem(300, Seed(1)).unwrap();
    let test = generators::knn_problem(200, Seed(2)).unwrap();
    let fam = knn(&data, "1:41:2");
    let ctx = PlanContext::of(&data);
    let mc = Plan::MonteCarlo(MonteCarlo::new(1, 0.7).unwrap()).instantiate(&ctx, Seed(5)).unwrap();
    let ho = Plan::HoldOut(HoldOut::new(0.7).unwrap()).instantiate(&ctx, Seed(5)).unwrap();
    assert_eq!(mc, ho, "V = 1 Monte-Carlo and hold-out draw the same split");
    for method in [Method::Agghoo, Method::Majhoo] {
        let (ag, ag_report) = select::select(fam.as_ref(), &data, &mc, &SelectConfig::new(method)).unwrap();
        let (h, h_report) = select::select(fam.as_ref(), &data, &ho, &SelectConfig::new(Method::HoldOut)).unwrap();
        assert_eq!(ag.predict(&test).unwrap().labels(), h.predict(&test).unwrap().labels());
        assert_eq!(ag_report.splits, h_report.splits);
    }
    // regression: the mean of one member is that member
    let data = regression_data(200, 3);
    let test = regression_data(50, 4);
    let fam = knn(&data, "1:21:1");
    let mc = MonteCarlo::new(1, 0.8).unwrap().instantiate(200, Seed(1)).unwrap();
    let (ag, _) = select::select(fam.as_ref(), &data, &mc, &SelectConfig::new(Method::Agghoo)).unwrap();
    let (h, _) = select::select(fam.as_ref(), &data, &mc, &SelectConfig::new(Method::HoldOut)).unwrap();
    assert_eq!(ag.predict(&test).unwrap(), h.predict(&test).unwrap());
}

#[test]
fn majhoo_of_identical_members_equals_the_member() {
    let data = generators::knn_problem(250, Seed(7)).unwrap();
    let test = generators::knn_problem(300, Seed(8)).unwrap();
    let fam = knn(&data, "1:31:2");
    let one = MonteCarlo::new(1, 0.8).unwrap().instantiate(250, Seed(3)).unwrap();
    let split: Split = one.as_slice()[0].clone();
    let same = Splits::new(250, vec![split; 6]).unwrap(); // even V: ties must not move the vote
    let (maj, report) = select::select(fam.as_ref(), &data, &same, &SelectConfig::new(Method::Majhoo)).unwrap();
    let (h, _) = select::select(fam.as_ref(), &data, &one, &SelectConfig::new(Method::HoldOut)).unwrap();
    assert_eq!(maj.members().len(), 6);
    assert!(report.splits.iter().all(|s| s.selected_index == report.splits[0].selected_index));
    assert_eq!(maj.predict(&test).unwrap().labels(), h.predict(&test).unwrap().labels());
}

#[test]
fn cv_selects_the_argmin_of_the_weighted_curve() {
    let data = generators::knn_problem(203, Seed(11)).unwrap(); // 203 = unequal 10-fold blocks
    let fam = knn(&data, "1:51:2");
    let splits = VFold::new(10).unwrap().instantiate(203, Seed(1)).unwrap();
    let (model, report) = select::select(fam.as_ref(), &data, &splits, &SelectConfig::new(Method::Cv)).unwrap();
    for m in 0..report.grid.len() {
        let manual: f64 = report.splits.iter().map(|s| s.n_validation as f64 / 203.0 * s.risks[m]).sum();
        assert!((manual - report.cv_curve.mean[m]).abs() < 1e-12);
    }
    let best = argmin(&report.cv_curve.mean, TieRule::First).unwrap();
    assert_eq!(model.members().len(), 1);
    assert_eq!(model.members()[0].grid_index, best);
    assert_eq!(report.final_value, Some(report.grid[best]));
    // the refit is trained on all rows: it predicts the training data like a fresh fit on D
    let fresh = fam.fit(&data.all(), best).unwrap();
    use agghoo::family::Predictor;
    assert_eq!(model.predict(&data).unwrap(), fresh.predict(&data.all()).unwrap());
    // the last-minimiser rule picks the last index of the minimum
    let mut cfg = SelectConfig::new(Method::Cv);
    cfg.tie = TieRule::Last;
    let (m_last, _) = select::select(fam.as_ref(), &data, &splits, &cfg).unwrap();
    assert_eq!(m_last.members()[0].grid_index, argmin(&report.cv_curve.mean, TieRule::Last).unwrap());
}

#[test]
fn hold_out_member_is_the_argmin_of_its_own_curve() {
    let data = generators::knn_problem(200, Seed(21)).unwrap();
    let fam = knn(&data, "1:41:2");
    let splits = MonteCarlo::new(8, 0.6).unwrap().instantiate(200, Seed(2)).unwrap();
    let (model, report) = select::select(fam.as_ref(), &data, &splits, &SelectConfig::new(Method::Majhoo)).unwrap();
    for (s, m) in report.splits.iter().zip(model.members()) {
        assert_eq!(s.selected_index, argmin(&s.risks, TieRule::First).unwrap());
        assert_eq!(m.grid_index, s.selected_index);
        assert_eq!(s.n_train, 120);
    }
}

#[test]
fn acv_and_ekcv_use_the_selected_parameters_on_all_data() {
    let data = regression_data(150, 5);
    let fam = knn(&data, "1:30:1");
    let splits = MonteCarlo::new(7, 0.7).unwrap().instantiate(150, Seed(9)).unwrap();
    let (acv, rep) = select::select(fam.as_ref(), &data, &splits, &SelectConfig::new(Method::Acv)).unwrap();
    let chosen: Vec<usize> = rep.splits.iter().map(|s| s.selected_index).collect();
    assert_eq!(acv.members().iter().map(|m| m.grid_index).collect::<Vec<_>>(), chosen);
    let (ekcv, rep) = select::select(fam.as_ref(), &data, &splits, &SelectConfig::new(Method::Ekcv)).unwrap();
    let mean_k = chosen.iter().map(|&m| rep.grid[m]).sum::<f64>() / chosen.len() as f64;
    assert!((rep.mean_selected.unwrap() - mean_k).abs() < 1e-12);
    // k-NN fits on its grid only: the value reported is the k fitted, the nearest to the mean.
    assert_eq!(ekcv.members().len(), 1);
    let fitted = ekcv.members()[0].value;
    assert_eq!(fitted, rep.grid[ekcv.members()[0].grid_index]);
    assert!((fitted - mean_k).abs() <= 0.5, "k = {fitted}, mean {mean_k}");
    assert_eq!(rep.final_value, Some(fitted));
}

#[test]
fn subagging_members_are_trained_inside_each_training_set() {
    let data = generators::knn_problem(200, Seed(31)).unwrap();
    let fam = knn(&data, "1:21:2");
    let splits = MonteCarlo::new(5, 0.8).unwrap().instantiate(200, Seed(1)).unwrap();
    let mut cfg = SelectConfig::new(Method::Subagging);
    cfg.keep_split_indices = true;
    let (model, report) = select::select(fam.as_ref(), &data, &splits, &cfg).unwrap();
    assert_eq!(model.members().len(), 5);
    let inner = report.split_indices.unwrap();
    for (outer, inner) in splits.iter().zip(inner.iter()) {
        assert_eq!(inner.train().len(), 128); // ⌊0.8 · 160⌋
        assert!(inner.train().iter().chain(inner.validation()).all(|i| outer.train().contains(i)));
    }
}

/// Subagging over bootstrap resamples: the inner hold-out splits the distinct drawn rows, so a
/// row keeps all its copies on the inner training side or is validated once, never both.
#[test]
fn subagging_over_bootstrap_validates_distinct_drawn_rows() {
    let data = generators::knn_problem(60, Seed(4)).unwrap();
    let fam = knn(&data, "1:9:2");
    for seed in 0..5 {
        let splits =
            Plan::Bootstrap(agghoo::resample::Bootstrap { n_resamples: 4 }).instantiate(&PlanContext::of(&data), Seed(seed)).unwrap();
        let mut cfg = SelectConfig::new(Method::Subagging);
        cfg.keep_split_indices = true;
        let (model, report) = select::select(fam.as_ref(), &data, &splits, &cfg).unwrap();
        assert_eq!(model.members().len(), 4);
        for (outer, inner) in splits.iter().zip(report.split_indices.unwrap().iter()) {
            let distinct = |rows: &mut dyn Iterator<Item = usize>| rows.collect::<std::collections::BTreeSet<usize>>();
            let count = |rows: &[usize], r: usize| rows.iter().filter(|&&x| x == r).count();
            assert_eq!(
                distinct(&mut inner.train().iter().chain(inner.validation()).copied()),
                distinct(&mut outer.train().iter().copied())
            );
            assert!(inner.validation().iter().all(|v| !inner.train().contains(v)));
            assert!(inner.train().iter().all(|&r| count(inner.train(), r) == count(outer.train(), r)), "a drawn row keeps its copies");
        }
    }
}

/// Settings a method would ignore are refused, naming the setting.
#[test]
fn settings_the_method_ignores_are_refused() {
    let data = generators::knn_problem(60, Seed(4)).unwrap();
    let fam = knn(&data, "1:9:2");
    let splits = MonteCarlo::new(3, 0.8).unwrap().instantiate(60, Seed(1)).unwrap();
    for method in [Method::Agghoo, Method::Majhoo, Method::HoldOut, Method::Acv, Method::Ekcv, Method::Subagging] {
        let cfg = SelectConfig { one_standard_error: true, ..SelectConfig::new(method) };
        assert!(matches!(select::select(fam.as_ref(), &data, &splits, &cfg), Err(Error::InvalidParameter { name: "one-se", .. })));
    }
    for method in [Method::Cv, Method::HoldOut, Method::Ekcv] {
        let cfg = SelectConfig { aggregation: Some(Aggregation::Vote), ..SelectConfig::new(method) };
        assert!(matches!(select::select(fam.as_ref(), &data, &splits, &cfg), Err(Error::InvalidParameter { name: "aggregate", .. })));
    }
    let cfg = SelectConfig { one_standard_error: true, ..SelectConfig::new(Method::Cv) };
    assert!(select::select(fam.as_ref(), &data, &splits, &cfg).is_ok());
}

/// Fit errors name the split once, and a fit on all rows by what it is, not by a number.
#[test]
fn fit_errors_name_their_split_once() {
    let cause = || Box::new(Error::Numerical("singular".into()));
    let refit = Error::Fit { split: None, grid_index: 2, source: cause() };
    assert_eq!(refit.to_string(), "refit on all rows, grid point 2: fit failed");
    let once = Error::SplitFailed { split: Some(0), source: cause() }.at_split(2);
    assert!(matches!(&once, Error::SplitFailed { split: Some(2), source } if matches!(**source, Error::Numerical(_))), "{once:?}");
    assert!(matches!(
        Error::Fit { split: None, grid_index: 1, source: cause() }.at_split(3),
        Error::Fit { split: Some(3), grid_index: 1, .. }
    ));
    // On real data: one class in a training set, nested in outer split 0 of a nested CV.
    let x: Vec<f64> = (0..10).map(f64::from).collect();
    let labels: Vec<u32> = (0..10).map(|i| u32::from(i == 6)).collect();
    let data = Dataset::new(x, vec!["x".into()], Target::Classes { labels, names: vec!["a".into(), "b".into()] }, "y").unwrap();
    let fam = family::build(FamilyKind::Logistic, &FamilyParams::default(), &data).unwrap();
    let splits = VFold::new(5).unwrap().instantiate(10, Seed(0)).unwrap();
    let e = select::select(fam.as_ref(), &data, &splits, &SelectConfig::new(Method::Cv)).unwrap_err();
    let text = format!("{e}: {}", std::error::Error::source(&e).map(ToString::to_string).unwrap_or_default());
    assert_eq!(text.matches("split").count(), 1, "{text}");
}

#[test]
fn identical_results_on_one_and_two_threads() {
    let data = generators::knn_problem(400, Seed(41)).unwrap();
    let fam = knn(&data, "1:99:2");
    let splits = MonteCarlo::new(10, 0.8).unwrap().instantiate(400, Seed(3)).unwrap();
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let (m, r) = select::select(fam.as_ref(), &data, &splits, &SelectConfig::new(Method::Majhoo)).unwrap();
            (serde_json::to_string(&m).unwrap(), serde_json::to_string(&r).unwrap())
        })
    };
    assert_eq!(run(1), run(2));
}

#[test]
fn model_file_round_trip_and_checks() {
    let data = generators::knn_problem(120, Seed(51)).unwrap();
    let fam = knn(&data, "1:15:2");
    let splits = MonteCarlo::new(3, 0.8).unwrap().instantiate(120, Seed(1)).unwrap();
    let (model, _) = select::select(fam.as_ref(), &data, &splits, &SelectConfig::new(Method::Majhoo)).unwrap();
    let dir = std::env::temp_dir().join(format!("agghoo-model-test-{}", std::process::id()));
    model.save(&dir).unwrap();
    let loaded = FittedModel::load(&dir).unwrap();
    assert_eq!(loaded, model);
    assert_eq!(loaded.predict(&data).unwrap(), model.predict(&data).unwrap());
    let text = std::fs::read_to_string(&dir).unwrap();
    let written = format!("\"format_version\":{}", select::MODEL_FORMAT_VERSION);
    assert!(text.contains(&written), "written at the current version");
    let at = |v: u32| text.replacen(&written, &format!("\"format_version\":{v}"), 1);
    // Older versions this build still reads load unchanged (a k-NN model is the same in all);
    // a newer or a bogus one is refused, naming the version.
    for v in select::MODEL_FORMAT_OLDEST_READ..=select::MODEL_FORMAT_VERSION {
        let old = FittedModel::from_json(&at(v), &dir).unwrap_or_else(|e| panic!("version {v}: {e}"));
        assert!(old.predict(&data).unwrap() == model.predict(&data).unwrap(), "version {v}");
    }
    for v in [0, select::MODEL_FORMAT_VERSION + 1, 7] {
        let e = FittedModel::from_json(&at(v), &dir).unwrap_err();
        assert!(matches!(&e, Error::BadFile { message, .. } if message.contains(&format!("format version {v}"))), "{e}");
    }
    assert!(matches!(FittedModel::from_json(&text[..text.len() / 2], &dir), Err(Error::BadFile { .. })));
    assert!(matches!(FittedModel::from_json("{\"format\":\"x\"}", &dir), Err(Error::BadFile { .. })));
    std::fs::remove_file(&dir).ok();
    // columns that do not match
    let other = data.select_columns(&[1, 0]).unwrap();
    assert!(matches!(model.predict(&other), Err(Error::SchemaMismatch(_))));
    let aligned = model.align(&other).unwrap();
    assert_eq!(model.predict(&aligned).unwrap(), model.predict(&data).unwrap());
    let fewer = data.select_columns(&[0]).unwrap();
    assert!(matches!(model.align(&fewer), Err(Error::SchemaMismatch(_))));
}

#[test]
fn bad_inputs_are_typed_errors() {
    let data = generators::knn_problem(50, Seed(61)).unwrap();
    let fam = knn(&data, "1:45:2");
    // k larger than the training set
    let splits = MonteCarlo::new(3, 0.5).unwrap().instantiate(50, Seed(1)).unwrap();
    assert!(matches!(
        select::select(fam.as_ref(), &data, &splits, &SelectConfig::new(Method::Agghoo)),
        Err(Error::InvalidParameter { .. })
    ));
    // splits of another data set
    let other = MonteCarlo::new(3, 0.5).unwrap().instantiate(60, Seed(1)).unwrap();
    assert!(matches!(select::select(fam.as_ref(), &data, &other, &SelectConfig::new(Method::Agghoo)), Err(Error::SplitsMismatch { .. })));
    // Majhoo on regression; a regression loss on classes
    let reg = regression_data(50, 1);
    let fam_r = knn(&reg, "1:5:1");
    assert!(matches!(select::select(fam_r.as_ref(), &reg, &splits, &SelectConfig::new(Method::Majhoo)), Err(Error::TaskMismatch(_))));
    let mut cfg = SelectConfig::new(Method::Cv);
    cfg.loss = Some(agghoo::Loss::Squared);
    let fam = knn(&data, "1:5:2");
    assert!(matches!(select::select(fam.as_ref(), &data, &splits, &cfg), Err(Error::TaskMismatch(_))));
    // a constant target
    let constant =
        Dataset::new(vec![0.0, 1.0, 2.0, 3.0], vec!["x".into()], Target::Classes { labels: vec![0; 4], names: vec!["a".into()] }, "y")
            .unwrap();
    let splits = VFold::new(2).unwrap().instantiate(4, Seed(0)).unwrap();
    assert!(matches!(select::select(fam.as_ref(), &constant, &splits, &SelectConfig::new(Method::Cv)), Err(Error::ConstantTarget { .. })));
    // aggregation that does not fit
    let mut cfg = SelectConfig::new(Method::Agghoo);
    cfg.aggregation = Some(Aggregation::Mean);
    let splits = MonteCarlo::new(3, 0.8).unwrap().instantiate(50, Seed(1)).unwrap();
    assert!(matches!(select::select(fam.as_ref(), &data, &splits, &cfg), Err(Error::TaskMismatch(_))));
}

#[test]
fn soft_vote_averages_member_probabilities() {
    let data = generators::knn_problem(200, Seed(71)).unwrap();
    let fam = knn(&data, "1:21:2");
    let splits = MonteCarlo::new(4, 0.8).unwrap().instantiate(200, Seed(1)).unwrap();
    let mut cfg = SelectConfig::new(Method::Majhoo);
    cfg.aggregation = Some(Aggregation::SoftVote);
    let (model, _) = select::select(fam.as_ref(), &data, &splits, &cfg).unwrap();
    let test = generators::knn_problem(30, Seed(72)).unwrap();
    let Predictions::Classes { proba: Some(p), labels, .. } = model.predict(&test).unwrap() else {
        panic!("soft vote gives probabilities")
    };
    for (i, &l) in labels.iter().enumerate() {
        assert!((p[2 * i] + p[2 * i + 1] - 1.0).abs() < 1e-12);
        assert_eq!(l, u32::from(p[2 * i + 1] > p[2 * i]));
    }
}

/// Majhoo with 4 members ties often on 2 classes: with `first-class` ties the label is the first
/// class of the vote fractions' maximum (so it is `argmax(predict_proba)`), with the default the
/// lowest-risk member's class — which differs on some tied row here; the rule travels in the
/// model file, and a vote-less selection refuses it.
#[test]
fn the_votes_tie_rule_is_recorded_in_the_model() {
    use agghoo::select::VoteTies;
    let data = generators::knn_problem(200, Seed(71)).unwrap();
    let fam = knn(&data, "1:21:2");
    let splits = MonteCarlo::new(4, 0.8).unwrap().instantiate(200, Seed(1)).unwrap();
    let test = generators::knn_problem(300, Seed(72)).unwrap();
    let mut cfg = SelectConfig::new(Method::Majhoo);
    let (lowest, _) = select::select(fam.as_ref(), &data, &splits, &cfg).unwrap();
    cfg.vote_ties = VoteTies::FirstClass;
    let (first, _) = select::select(fam.as_ref(), &data, &splits, &cfg).unwrap();
    let Predictions::Classes { proba: Some(p), labels, .. } = first.predict(&test).unwrap() else { panic!("a vote gives fractions") };
    for (i, &l) in labels.iter().enumerate() {
        assert_eq!(l, u32::from(p[2 * i + 1] > p[2 * i]), "row {i}: {:?}", &p[2 * i..2 * i + 2]);
    }
    assert_ne!(lowest.predict(&test).unwrap().labels(), Some(&labels[..]), "no tie broken differently: the test proves nothing");
    let reread = FittedModel::from_json(&serde_json::to_string(&first).unwrap(), std::path::Path::new("m.json")).unwrap();
    assert_eq!(reread.vote_ties, VoteTies::FirstClass);
    assert_eq!(reread.predict(&test).unwrap().labels(), Some(&labels[..]));
    assert!(!serde_json::to_string(&lowest).unwrap().contains("vote_ties"), "the default is not written: old files stay as they were");
    cfg.method = Method::Cv;
    let err = select::select(fam.as_ref(), &data, &splits, &cfg).unwrap_err();
    assert!(err.to_string().contains("vote-ties"), "{err}");
}

#[test]
fn agghoo_merges_linear_and_kernel_members_into_one_equivalent_model() {
    use agghoo::family::Predictor;
    let data = regression_data(160, 9);
    let test = regression_data(40, 10);
    let splits = MonteCarlo::new(5, 0.8).unwrap().instantiate(160, Seed(2)).unwrap();
    for (kind, params) in [
        (FamilyKind::Ridge, FamilyParams::default()),
        // A fixed γ (`auto` = 1/d): with γ = scale, its default, each member has its own kernel.
        (FamilyKind::KernelRidge, FamilyParams::default().set("gamma", "auto")),
        (FamilyKind::Lasso, FamilyParams::default()),
        (FamilyKind::Svr, FamilyParams::default().set("gamma", 2)),
    ] {
        let fam = family::build(kind, &params, &data).unwrap();
        let (model, _) = select::select(fam.as_ref(), &data, &splits, &SelectConfig::new(Method::Agghoo)).unwrap();
        assert!(model.is_merged(), "{kind:?}");
        let merged = model.predict(&test).unwrap();
        let members: Vec<Predictions> = model.members().iter().map(|m| m.model.predict(&test.all()).unwrap()).collect();
        let mean = select::aggregate(&members, &[], Aggregation::Mean).unwrap();
        for (a, b) in merged.values().unwrap().iter().zip(mean.values().unwrap()) {
            assert!((a - b).abs() <= 1e-9 * (1.0 + b.abs()), "{kind:?}: {a} vs {b}");
        }
    }
    // trees and k-NN stay ensembles
    let fam = knn(&data, "1:9:1");
    let (model, _) = select::select(fam.as_ref(), &data, &splits, &SelectConfig::new(Method::Agghoo)).unwrap();
    assert!(!model.is_merged());
}
