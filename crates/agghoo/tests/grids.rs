//! Multi-axis grids and unions of families (`family::Composite`): the composite grid equals the
//! hand-built families it is made of, CV over it equals a slow full-table reference, the per-axis
//! one-standard-error and EKCV rules on hand-made tables, members of several families, model
//! files, and typed errors for bad axes.

use agghoo::data::{Dataset, generators};
use agghoo::engine::{EvalOptions, Rayon, TieRule, argmin, evaluate_splits, one_standard_error_by};
use agghoo::family::{self, AxisSpec, AxisValue, Family, FamilyKind, FamilyParams, GridSpec, Predictor};
use agghoo::loss::Loss;
use agghoo::resample::{MonteCarlo, Plan, PlanContext, Splits, VFold};
use agghoo::select::{self, Aggregation, FittedModel, Method, SelectConfig, aggregate, risk_curve};
use agghoo::{Error, Predictions, Seed};

fn axes(kind: FamilyKind, union: &[FamilyKind], axes: &[&str]) -> FamilyParams {
    let _ = kind;
    FamilyParams { axes: axes.iter().map(|a| AxisSpec::parse(a).unwrap()).collect(), union: union.to_vec(), ..FamilyParams::default() }
}

fn svc_product(data: &Dataset) -> Box<dyn Family> {
    family::build(FamilyKind::Svc, &axes(FamilyKind::Svc, &[], &["lambda=0.001,0.01,0.1", "gamma=0.2,1,5"]), data).unwrap()
}

fn splits(data: &Dataset, v: usize, seed: u64) -> Splits {
    Plan::VFold(VFold::new(v).unwrap()).instantiate(&PlanContext::of(data), Seed(seed)).unwrap()
}

fn options() -> EvalOptions {
    EvalOptions { losses: vec![Loss::ZeroOne], ..EvalOptions::default() }
}

/// Asserts the per-split risks of `product` are, bit for bit, those of the families `kind` over
/// `path` with `key` fixed at each of `values`, one after the other.
fn assert_equals_fixed_families(
    product: &dyn Family,
    data: &Dataset,
    s: &Splits,
    kind: FamilyKind,
    path: &str,
    key: &str,
    values: &[&str],
) {
    let composite = evaluate_splits(product, data, s, &options(), &Rayon).unwrap();
    let mut by_hand: Vec<Vec<f64>> = vec![Vec::new(); s.len()];
    for value in values {
        let params = FamilyParams::with_grid(GridSpec::parse(path).unwrap()).set(key, value);
        let fixed = family::build(kind, &params, data).unwrap();
        for (j, o) in evaluate_splits(fixed.as_ref(), data, s, &options(), &Rayon).unwrap().into_iter().enumerate() {
            by_hand[j].extend(o.risks[0].iter().copied());
        }
    }
    for (o, hand) in composite.iter().zip(&by_hand) {
        assert_eq!(&o.risks[0], hand);
    }
}

/// The product grid's risks are those of the families with γ fixed, one after the other, bit for bit.
#[test]
fn product_grid_equals_the_hand_built_families() {
    let data = generators::knn_problem(150, Seed(1)).unwrap();
    let product = svc_product(&data);
    assert_eq!(product.grid().len(), 9);
    let s = splits(&data, 4, 2);
    assert_equals_fixed_families(product.as_ref(), &data, &s, FamilyKind::Svc, "0.001,0.01,0.1", "gamma", &["0.2", "1", "5"]);
    // grid order: γ (the non-path axis) slowest, λ fastest
    let c = product.composite().unwrap();
    let p = c.point(4);
    assert_eq!(p.values["gamma"], AxisValue::Number(1.0));
    assert_eq!(p.values["lambda"], AxisValue::Number(0.01));
    assert_eq!(c.hyperparameter(), "lambda × gamma");
}

/// CV over two axes selects the argmin of the full table computed by refitting every
/// combination on every split (the slow reference: one `fit` per split and grid point).
#[test]
fn two_axis_cv_equals_the_refit_argmin() {
    let data = generators::knn_problem(140, Seed(3)).unwrap();
    let product = svc_product(&data);
    let c = product.composite().unwrap();
    let s = splits(&data, 5, 4);
    let (_, report) = select::select(product.as_ref(), &data, &s, &SelectConfig::new(Method::Cv)).unwrap();
    let mut table: Vec<Vec<f64>> = Vec::new();
    for split in s.iter() {
        let (train, validation) = (data.view(split.train()), data.view(split.validation()));
        let risks = (0..product.grid().len())
            .map(|m| {
                let point = c.point(m);
                let params = FamilyParams::with_grid(GridSpec::Values(vec![point.values["lambda"].to_string().parse().unwrap()]))
                    .set("gamma", &point.values["gamma"]);
                let one = family::build(FamilyKind::Svc, &params, &data).unwrap();
                Loss::ZeroOne.risk(&one.fit(&train, 0).unwrap().predict(&validation).unwrap(), &validation).unwrap()
            })
            .collect();
        table.push(risks);
    }
    let sizes: Vec<usize> = s.iter().map(|x| x.validation().len()).collect();
    let rows: Vec<&[f64]> = table.iter().map(Vec::as_slice).collect();
    let curve = risk_curve(&rows, &sizes);
    let m = argmin(&curve.mean, TieRule::First).unwrap();
    assert_eq!(report.member_grid_indices, vec![m]);
    for (a, b) in report.cv_curve.mean.iter().zip(&curve.mean) {
        assert!((a - b).abs() < 1e-12, "{a} vs {b}");
    }
    assert_eq!(report.final_point.as_ref(), Some(&c.point(m)));
    assert_eq!(report.grid_points.as_ref().map(Vec::len), Some(9));
}

/// The one-standard-error rule per axis on a hand-made table: the path axis (λ, larger simpler)
/// first, then γ (smaller simpler).
#[test]
fn one_se_compares_the_path_axis_first() {
    let data = generators::knn_problem(80, Seed(5)).unwrap();
    let product = svc_product(&data);
    let c = product.composite().unwrap();
    // points: γ=0.2 → λ .001 .01 .1 | γ=1 → λ .001 .01 .1 | γ=5 → λ .001 .01 .1
    let mean = [0.30, 0.25, 0.40, 0.20, 0.22, 0.24, 0.21, 0.26, 0.23];
    let se = [0.01; 9];
    let se_best = [0.0, 0.0, 0.0, 0.05, 0.0, 0.0, 0.0, 0.0, 0.0];
    // argmin 3 (0.20); within 0.20 + 0.05: every point but 0 (0.30 > 0.25? no: 0.30 > 0.25) and 2.
    // Largest λ (0.1) within the band: points 5 (γ=1) and 8 (γ=5) → smaller γ: 5.
    assert_eq!(one_standard_error_by(&mean, &se_best, TieRule::First, |a, b| c.compare_complexity(a, b)).unwrap(), 5);
    // With a band of 0.01 around 0.20: points 3 (0.20) and 6 (0.21): same λ, smaller γ → 3.
    assert_eq!(one_standard_error_by(&mean, &se, TieRule::First, |a, b| c.compare_complexity(a, b)).unwrap(), 3);
    // 1-SE never leaves the band: with se 0 it is the argmin.
    assert_eq!(one_standard_error_by(&mean, &[0.0; 9], TieRule::First, |a, b| c.compare_complexity(a, b)).unwrap(), 3);
}

/// EKCV per axis: λ and γ each averaged on the log scale; an integer axis rounded to the grid;
/// a categorical axis by majority.
#[test]
fn ekcv_averages_each_axis_in_its_scale() {
    let data = generators::knn_problem(80, Seed(6)).unwrap();
    let product = svc_product(&data);
    let c = product.composite().unwrap();
    // selections: (γ=0.2, λ=.001), (γ=5, λ=.1) → geometric means γ = 1, λ = 0.01
    let choice = c.ekcv(&[0, 8]).unwrap();
    let close = |v: &AxisValue, x: f64| matches!(v, AxisValue::Number(y) if (y - x).abs() < 1e-12 * x);
    assert!(close(&choice.point.values["gamma"], 1.0) && close(&choice.point.values["lambda"], 0.01), "{:?}", choice.point);
    assert!((choice.path_value - 0.01).abs() < 1e-14);
    assert_eq!(choice.nearest, 4);
    // CART: min_samples_leaf (integer) rounds to the grid, criterion (categorical) by majority.
    let params = axes(FamilyKind::Cart, &[], &["alpha=0,0.01", "min_samples_leaf=1,4,16", "criterion=gini,entropy"]);
    let cart = family::build(FamilyKind::Cart, &params, &data).unwrap();
    let c = cart.composite().unwrap();
    assert_eq!(cart.grid().len(), 12);
    let at = |leaf: f64, criterion: &str, alpha: f64| {
        (0..12)
            .find(|&m| {
                let p = c.point(m);
                p.values["min_samples_leaf"] == AxisValue::Number(leaf)
                    && p.values["criterion"] == AxisValue::Text(criterion.into())
                    && p.values["alpha"] == AxisValue::Number(alpha)
            })
            .unwrap()
    };
    // leaves 1, 4, 16 → mean 7 → nearest grid value 4; criteria gini, entropy, entropy → entropy
    let choice = c.ekcv(&[at(1.0, "gini", 0.0), at(4.0, "entropy", 0.0), at(16.0, "entropy", 0.01)]).unwrap();
    assert_eq!(choice.point.values["min_samples_leaf"], AxisValue::Number(4.0));
    assert_eq!(choice.point.values["criterion"], AxisValue::Text("entropy".into()));
    // a tie between categories: the first in grid order
    let choice = c.ekcv(&[at(1.0, "gini", 0.0), at(1.0, "entropy", 0.0)]).unwrap();
    assert_eq!(choice.point.values["criterion"], AxisValue::Text("gini".into()));
}

/// EKCV on a union: the family selected most often, then the average inside it.
#[test]
fn ekcv_on_a_union_takes_the_majority_family() {
    let data = generators::knn_problem(80, Seed(7)).unwrap();
    let params = axes(FamilyKind::Knn, &[FamilyKind::Logistic], &["k=1,3,5", "lambda=0.01,1"]);
    let union = family::build(FamilyKind::Knn, &params, &data).unwrap();
    let c = union.composite().unwrap();
    assert!(c.is_union() && union.grid().len() == 5);
    let choice = c.ekcv(&[3, 0, 4, 2]).unwrap(); // logistic twice, knn twice: knn is first
    assert_eq!(choice.point.family, "knn");
    assert!(matches!(choice.point.values["k"], AxisValue::Number(k) if k == 3.0));
    let choice = c.ekcv(&[3, 4, 1]).unwrap();
    assert_eq!(choice.point.family, "logistic");
    assert!(matches!(choice.point.values["lambda"], AxisValue::Number(l) if (l - 0.1).abs() < 1e-12));
}

fn union_of_knn_and_logistic(data: &Dataset) -> Box<dyn Family> {
    let params = axes(FamilyKind::Knn, &[FamilyKind::Logistic], &["k=1:15:2", "lambda=log:0.001:10:5"]);
    family::build(FamilyKind::Knn, &params, data).unwrap()
}

/// Agghoo over a union: the members are of several families and the prediction is the
/// documented vote of their predictions (ties: the member with the lowest validation risk).
#[test]
fn union_agghoo_votes_across_families() {
    let data = generators::knn_problem(200, Seed(8)).unwrap();
    let test = generators::knn_problem(150, Seed(9)).unwrap();
    let union = union_of_knn_and_logistic(&data);
    let s = Plan::MonteCarlo(MonteCarlo::new(12, 0.6).unwrap()).instantiate(&PlanContext::of(&data), Seed(10)).unwrap();
    let (model, report) = select::select(union.as_ref(), &data, &s, &SelectConfig::new(Method::Agghoo)).unwrap();
    assert_eq!(report.family, "knn,logistic");
    let families: Vec<&str> = model.members().iter().map(|m| m.point.as_ref().unwrap().family.as_str()).collect();
    assert!(families.contains(&"knn") && families.contains(&"logistic"), "{families:?}");
    let per_member: Vec<Predictions> = model.members().iter().map(|m| m.model.predict(&test.all()).unwrap()).collect();
    let risks: Vec<f64> = model.members().iter().map(|m| m.validation_risk.unwrap()).collect();
    assert_eq!(model.predict(&test).unwrap(), aggregate(&per_member, &risks, Aggregation::Vote).unwrap());
    // By hand, on rows where the vote is not tied: the majority label.
    let labels: Vec<&[u32]> = per_member.iter().map(|p| p.labels().unwrap()).collect();
    let voted = model.predict(&test).unwrap();
    for (i, &label) in voted.labels().unwrap().iter().enumerate() {
        let ones = labels.iter().filter(|l| l[i] == 1).count();
        if 2 * ones != labels.len() {
            assert_eq!(label, u32::from(2 * ones > labels.len()), "row {i}");
        }
    }
    // The soft vote averages class probabilities aligned on the data's classes.
    let config = SelectConfig { aggregation: Some(Aggregation::SoftVote), ..SelectConfig::new(Method::Agghoo) };
    let (soft, _) = select::select(union.as_ref(), &data, &s, &config).unwrap();
    let p = soft.predict(&test).unwrap();
    let proba = soft.probabilities(&p).unwrap();
    let members: Vec<Predictions> = soft.members().iter().map(|m| m.model.predict(&test.all()).unwrap()).collect();
    for i in 0..test.n_rows() {
        let mean1: f64 = members.iter().map(|m| soft.probabilities(m).unwrap()[2 * i + 1]).sum::<f64>() / members.len() as f64;
        assert!((proba[2 * i + 1] - mean1).abs() < 1e-12);
    }
}

/// A model file of a multi-axis grid or a union predicts after loading as before saving, and its
/// members record their axis values.
#[test]
fn model_files_of_composite_grids_round_trip() {
    let data = generators::knn_problem(150, Seed(11)).unwrap();
    let test = generators::knn_problem(80, Seed(12)).unwrap();
    let dir = std::env::temp_dir().join(format!("agghoo-grids-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let s = splits(&data, 4, 13);
    for (name, fam) in [("product", svc_product(&data)), ("union", union_of_knn_and_logistic(&data))] {
        for method in [Method::Agghoo, Method::Cv, Method::Ekcv, Method::Acv] {
            let (model, _) = select::select(fam.as_ref(), &data, &s, &SelectConfig::new(method)).unwrap();
            let path = dir.join(format!("{name}-{}.json", method.name()));
            model.save(&path).unwrap();
            let loaded = FittedModel::load(&path).unwrap();
            assert_eq!(loaded, model);
            assert_eq!(loaded.predict(&test).unwrap(), model.predict(&test).unwrap());
            assert!(loaded.members().iter().all(|m| m.point.is_some()));
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Bad axes are typed errors naming the axis.
#[test]
fn bad_axes_are_typed_errors() {
    let data = generators::knn_problem(60, Seed(14)).unwrap();
    let err = |kind, union: &[FamilyKind], a: &[&str]| family::build(kind, &axes(kind, union, a), &data).err().expect("an error");
    let unknown = err(FamilyKind::Svc, &[], &["lambda=0.1,1", "degree=2,3"]);
    assert!(
        matches!(&unknown, Error::InvalidParameter { name: "grid", got, .. } if got.contains("degree") && got.contains("gamma")),
        "{unknown}"
    );
    let nowhere = err(FamilyKind::Knn, &[FamilyKind::Logistic], &["gamma=1,2"]);
    assert!(
        matches!(&nowhere, Error::InvalidParameter { got, .. } if got.contains("gamma") && got.contains("logistic has lambda")),
        "{nowhere}"
    );
    let twice = err(FamilyKind::Svc, &[], &["gamma=1,2", "gamma=3"]);
    assert!(matches!(&twice, Error::InvalidParameter { got, .. } if got.contains("gamma") && got.contains("twice")), "{twice}");
    let family_twice = err(FamilyKind::Knn, &[FamilyKind::Knn], &[]);
    assert!(matches!(family_twice, Error::InvalidParameter { name: "family", .. }));
    assert!(AxisSpec::parse("=1,2").is_err() && AxisSpec::parse("k=").is_err());
    let bad_values = err(FamilyKind::Svc, &[], &["gamma=-1,2"]);
    assert!(matches!(bad_values, Error::InvalidParameter { .. }));
    let fixed_too = family::build(FamilyKind::Svc, &FamilyParams { ..axes(FamilyKind::Svc, &[], &["gamma=1,2"]) }.set("gamma", "3"), &data);
    assert!(matches!(fixed_too, Err(Error::InvalidParameter { .. })));
}

/// Naming only the path axis gives the plain family: `--grid k=1:9:2` is `--grid 1:9:2`.
#[test]
fn the_path_axis_alone_is_the_plain_family() {
    let data = generators::knn_problem(100, Seed(15)).unwrap();
    let named = family::build(FamilyKind::Knn, &axes(FamilyKind::Knn, &[], &["k=1:9:2"]), &data).unwrap();
    let bare = family::build(FamilyKind::Knn, &FamilyParams::with_grid(GridSpec::parse("1:9:2").unwrap()), &data).unwrap();
    assert!(named.composite().is_none());
    assert_eq!(named.grid(), bare.grid());
}

/// k-NN over k × weights: one part per weighting (uniform first, whatever the order written),
/// equal to the hand-built families; 1-SE prefers larger k, then uniform weights.
#[test]
fn knn_over_k_and_weights() {
    let data = generators::knn_problem(160, Seed(16)).unwrap();
    let product = family::build(FamilyKind::Knn, &axes(FamilyKind::Knn, &[], &["k=1:9:2", "weights=distance,uniform"]), &data).unwrap();
    let c = product.composite().unwrap();
    assert_eq!(c.families()[0].axes[1].values, vec![AxisValue::Text("uniform".into()), AxisValue::Text("distance".into())]);
    let s = splits(&data, 4, 17);
    assert_equals_fixed_families(product.as_ref(), &data, &s, FamilyKind::Knn, "1:9:2", "weights", &["uniform", "distance"]);
    // points: uniform k=1..9 (0..5), distance k=1..9 (5..10); the band holds 3, 4, 8, 9 → k = 9 uniform
    let mean = [0.3, 0.3, 0.3, 0.21, 0.22, 0.3, 0.3, 0.3, 0.20, 0.22];
    let se = [0.02; 10];
    assert_eq!(one_standard_error_by(&mean, &se, TieRule::First, |a, b| c.compare_complexity(a, b)).unwrap(), 4);
    // EKCV: k averaged (5, 9, 7 → 7; fitted at the nearest k), weights by majority (distance twice)
    let choice = c.ekcv(&[2, 9, 8]).unwrap();
    assert_eq!(choice.point.values["weights"], AxisValue::Text("distance".into()));
    assert_eq!(choice.point.values["k"], AxisValue::Number(7.0));
    assert_eq!(choice.nearest, 8);
    // A saved distance-weighted model predicts the same after loading.
    let (model, _) = select::select(product.as_ref(), &data, &s, &SelectConfig::new(Method::Agghoo)).unwrap();
    let path = std::env::temp_dir().join(format!("agghoo-knn-weights-{}.json", std::process::id()));
    model.save(&path).unwrap();
    let test = generators::knn_problem(50, Seed(18)).unwrap();
    assert_eq!(FittedModel::load(&path).unwrap().predict(&test).unwrap(), model.predict(&test).unwrap());
    std::fs::remove_file(&path).ok();
}

/// EKCV with a real setting off the grid (γ averaged on the log scale) fits the family rebuilt
/// with that γ at the averaged λ: the same model as building it by hand.
#[test]
fn ekcv_off_grid_setting_refits_the_rebuilt_family() {
    let data = generators::svr_problem(120, Seed(19), 0).unwrap();
    let params = axes(FamilyKind::KernelRidge, &[], &["lambda=0.001,0.1", "gamma=0.1,10"]);
    let product = family::build(FamilyKind::KernelRidge, &params, &data).unwrap();
    let s = Plan::MonteCarlo(MonteCarlo::new(2, 0.8).unwrap()).instantiate(&PlanContext::of(&data), Seed(20)).unwrap();
    let config = SelectConfig::new(Method::Ekcv);
    let options = select::evaluation_options(&config, &data).unwrap();
    // Force the two selections (γ=0.1, λ=0.001) and (γ=10, λ=0.1): γ̄ = 1, λ̄ = 0.01.
    let mut outcomes = evaluate_splits(product.as_ref(), &data, &s, &options, &Rayon).unwrap();
    outcomes[0].selected = 0;
    outcomes[1].selected = 3;
    let (model, report) = select::conclude(product.as_ref(), &data, &s, &config, outcomes).unwrap();
    let point = report.final_point.unwrap();
    let gamma = match point.values["gamma"] {
        AxisValue::Number(g) => g,
        AxisValue::Text(_) => unreachable!("numeric"),
    };
    assert!((gamma - 1.0).abs() < 1e-12, "{gamma}");
    let lambda = report.final_value.unwrap();
    let by_hand =
        family::build(FamilyKind::KernelRidge, &FamilyParams::with_grid(GridSpec::Values(vec![lambda])).set("gamma", gamma), &data)
            .unwrap()
            .fit(&data.all(), 0)
            .unwrap();
    let test = generators::svr_problem(40, Seed(21), 0).unwrap();
    assert_eq!(model.predict(&test).unwrap(), by_hand.predict(&test.all()).unwrap());
}

/// `C` is svc's and svr's other name for the path axis (`--grid C=…` as `--param grid=C`): the
/// same risks as the family over C, alone and with γ, and the same as λ = 1 / (2 C n_t) on
/// training sets of n_t rows (the grid reversed: λ ascending is C descending).
#[test]
fn c_is_the_other_name_of_the_svm_path_axis() {
    let data = generators::knn_problem(120, Seed(21)).unwrap();
    let s = splits(&data, 4, 3); // every training set has 90 rows
    let risks = |f: &dyn Family| -> Vec<Vec<f64>> {
        evaluate_splits(f, &data, &s, &options(), &Rayon).unwrap().into_iter().map(|o| o.risks[0].clone()).collect()
    };
    let alias = family::build(FamilyKind::Svc, &axes(FamilyKind::Svc, &[], &["C=0.5,2,8"]), &data).unwrap();
    assert!(alias.composite().is_none() && alias.grid().name() == "C");
    let in_c = FamilyParams::with_grid(GridSpec::parse("0.5,2,8").unwrap()).set("grid", "C");
    assert_eq!(risks(alias.as_ref()), risks(family::build(FamilyKind::Svc, &in_c, &data).unwrap().as_ref()));
    let lambdas = [8.0, 2.0, 0.5].map(|c: f64| (1.0 / (2.0 * c * 90.0)).to_string()).join(",");
    let in_lambda = family::build(FamilyKind::Svc, &FamilyParams::with_grid(GridSpec::parse(&lambdas).unwrap()), &data).unwrap();
    let reversed: Vec<Vec<f64>> = risks(in_lambda.as_ref()).into_iter().map(|r| r.into_iter().rev().collect()).collect();
    assert_eq!(risks(alias.as_ref()), reversed);
    // With γ: the product over C equals the product built with `--param grid=C`.
    let product = family::build(FamilyKind::Svc, &axes(FamilyKind::Svc, &[], &["C=0.5,2,8", "gamma=0.5,2"]), &data).unwrap();
    assert_eq!(product.composite().unwrap().hyperparameter(), "C × gamma");
    let with_param = FamilyParams { ..axes(FamilyKind::Svc, &[], &["C=0.5,2,8", "gamma=0.5,2"]) }.set("grid", "C");
    assert_eq!(risks(product.as_ref()), risks(family::build(FamilyKind::Svc, &with_param, &data).unwrap().as_ref()));
    // svr too.
    let reg = generators::svr_problem(60, Seed(22), 0).unwrap();
    let svr = family::build(FamilyKind::Svr, &axes(FamilyKind::Svr, &[], &["C=1,4", "epsilon=0.1,0.2"]), &reg).unwrap();
    assert_eq!(svr.composite().unwrap().hyperparameter(), "C × epsilon");
}

/// Families compared (`compare --family knn,forest`) get the settings each knows, as a union's
/// members do; a setting none knows is refused, naming what each knows.
#[test]
fn compared_families_get_the_settings_they_know() {
    use agghoo::estimate::NestedConfig;
    use agghoo::family::FamilySpec;
    let params = FamilyParams::default().set("trees", 5).set("weights", "distance");
    let (knn, others) = NestedConfig::families_from_params(FamilyKind::Knn, &params, &[FamilyKind::Forest]).unwrap();
    assert_eq!(knn, FamilySpec::from_params(FamilyKind::Knn, &FamilyParams::default().set("weights", "distance")).unwrap());
    assert_eq!(others, [FamilySpec::from_params(FamilyKind::Forest, &FamilyParams::default().set("trees", 5)).unwrap()]);
    let typo = FamilyParams::default().set("tres", 5);
    let err = NestedConfig::families_from_params(FamilyKind::Knn, &typo, &[FamilyKind::Forest]).unwrap_err();
    assert!(
        matches!(&err, Error::InvalidParameter { name: "param", got, .. } if got.contains("`tres`") && got.contains("forest knows trees")),
        "{err}"
    );
}
