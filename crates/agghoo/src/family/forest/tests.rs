use super::*;
use crate::data::Dataset;
use crate::data::generators::genuer;
use crate::family::{FamilyKind, FamilyParams};
use crate::loss::Loss;
use crate::testing::path_equals_refit;

fn build(params: &FamilyParams, data: &Dataset) -> Result<Box<dyn Family>> {
    crate::family::build(FamilyKind::Forest, params, data)
}

fn small(n_trees: usize) -> ForestOptions {
    ForestOptions { n_trees, ..ForestOptions::default() }
}

#[test]
fn same_seed_on_one_and_two_threads_is_bit_identical() {
    let data = genuer(100, 8, Seed(2), 0).unwrap();
    let fit = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| ForestModel::fit(&data.all(), &small(300)).unwrap())
    };
    let one = fit(1);
    for threads in [2, 3] {
        let many = fit(threads);
        assert_eq!(one, many);
        assert_eq!(serde_json::to_string(&one).unwrap(), serde_json::to_string(&many).unwrap());
    }
    let other = ForestModel::fit(&data.all(), &ForestOptions { seed: Seed(3), ..small(300) }).unwrap();
    assert_ne!(one, other);
}

#[test]
fn oob_error_is_sane_on_an_easy_problem() {
    // Genuer's problem has Bayes risk ≈ 0.041; a forest gets close, a constant rule gets 0.5.
    let data = genuer(300, 10, Seed(5), 0).unwrap();
    let forest = ForestModel::fit(&data.all(), &small(100)).unwrap();
    let oob = forest.oob_error().unwrap();
    assert!(oob < 0.12, "{oob}");
    let test = genuer(1000, 10, Seed(5), 1).unwrap();
    let risk = Loss::ZeroOne.risk(&forest.predict(&test.all()).unwrap(), &test.all()).unwrap();
    assert!((risk - oob).abs() < 0.06, "test {risk} vs oob {oob}");
}

#[test]
fn importances_find_the_informative_features() {
    let data = genuer(300, 12, Seed(6), 0).unwrap();
    let forest = ForestModel::fit(&data.all(), &small(60)).unwrap();
    let mdi = forest.importances(Importance::Impurity).unwrap();
    assert!((mdi.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    let test = genuer(400, 12, Seed(6), 1).unwrap();
    let perm = forest.importances(Importance::Permutation { rows: &test.all(), seed: Seed(1) }).unwrap();
    // X_3 (index 2) is the strongest signal; noise features (index ≥ 6) matter little.
    for imp in [&mdi, &perm] {
        let best_noise = imp[6..].iter().copied().fold(f64::MIN, f64::max);
        assert!(imp[2] > 2.0 * best_noise, "{imp:?}");
    }
}

#[test]
fn forest_path_equals_refit() {
    let data = genuer(120, 7, Seed(7), 0).unwrap();
    let params = FamilyParams::with_grid(super::super::GridSpec::parse("1,3,7").unwrap()).set("trees", 15);
    let fam = build(&params, &data).unwrap();
    let rows: Vec<usize> = (0..120).collect();
    path_equals_refit(fam.as_ref(), &data.view(&rows[..90]), &data.view(&rows[90..]), 0.0);
    let fam = build(&FamilyParams::default().set("trees", 10).set("grid", "min_samples_leaf"), &data).unwrap();
    assert_eq!(fam.grid().name(), "min_samples_leaf");
    assert!(fam.grid().larger_is_simpler());
    path_equals_refit(fam.as_ref(), &data.view(&rows[..90]), &data.view(&rows[90..]), 0.0);
}

#[test]
fn regression_forest_averages_means() {
    let x: Vec<f64> = (0..200).map(|i| f64::from(i) / 10.0).collect();
    let y: Vec<f64> = x.iter().map(|v| if *v < 10.0 { 0.0 } else { 1.0 }).collect();
    let data = Dataset::new(x, vec!["x".into()], crate::data::Target::Real(y), "y").unwrap();
    let forest = ForestModel::fit(&data.all(), &small(30)).unwrap();
    let p = forest.predict(&data.view(&[0, 199])).unwrap();
    assert_eq!(p.values().unwrap(), [0.0, 1.0]);
    assert!(forest.oob_error().unwrap() < 0.02);
}

#[test]
fn bad_parameters_are_typed_errors() {
    let data = genuer(40, 6, Seed(1), 0).unwrap();
    let err = |p: FamilyParams| build(&p, &data).err().unwrap();
    assert!(matches!(err(FamilyParams::default().set("trees", 0)), Error::InvalidParameter { name: "trees", .. }));
    assert!(matches!(err(FamilyParams::default().set("mtry", 7)), Error::InvalidParameter { name: "mtry", .. }));
    assert!(matches!(err(FamilyParams::default().set("mtry", 0)), Error::InvalidParameter { name: "mtry", .. }));
    assert!(matches!(err(FamilyParams::default().set("min_samples_leaf", 0)), Error::InvalidParameter { name: "min_samples_leaf", .. }));
    assert!(matches!(err(FamilyParams::default().set("grid", "depth")), Error::InvalidParameter { name: "grid", .. }));
    assert!(matches!(
        err(FamilyParams::with_grid(super::super::GridSpec::parse("2,9").unwrap())),
        Error::InvalidParameter { name: "grid", .. }
    ));
    let opts = ForestOptions { mtry: Some(10), ..small(5) };
    assert!(matches!(ForestModel::fit(&data.all(), &opts), Err(Error::InvalidParameter { name: "mtry", .. })));
    // Defaults: √6 → 2 candidate features; grid 1, 2, 4 and d = 6.
    let fam = build(&FamilyParams::default(), &data).unwrap();
    assert_eq!(fam.grid().values(), [1.0, 2.0, 4.0, 6.0]);
    assert!(!fam.grid().larger_is_simpler());
}

/// A forest is as wide as its training set (a union's one-hot training set may lack a level of
/// the rows the family was built on): an `mtry` beyond that width is the width, the default
/// `mtry` is that width's.
#[test]
fn a_forest_fits_a_training_set_narrower_than_the_build_data() {
    // Built on 9 features (default mtry 3), fitted on 6 (default mtry 2).
    let (wide, narrow) = (genuer(100, 9, Seed(6), 0).unwrap(), genuer(100, 6, Seed(6), 1).unwrap());
    let family = build(&FamilyParams::default().set("trees", 20), &wide).unwrap();
    assert_eq!(family.grid().values(), [1.0, 2.0, 3.0, 4.0, 8.0, 9.0]);
    let bagging = ForestModel::fit(&narrow.all(), &ForestOptions { mtry: Some(6), ..small(20) }).unwrap();
    assert_eq!(family.fit(&narrow.all(), 5).unwrap(), Model::Forest(bagging));
    let by_default = build(&FamilyParams::default().set("trees", 20).set("grid", "min_samples_leaf"), &wide).unwrap();
    let default_mtry = ForestModel::fit(&narrow.all(), &small(20)).unwrap();
    assert_eq!(by_default.fit(&narrow.all(), 0).unwrap(), Model::Forest(default_mtry));
}

/// The trees of a forest, as its model file stores them.
fn trees(forest: &ForestModel) -> serde_json::Value {
    serde_json::to_value(forest).unwrap()["trees"].clone()
}

#[test]
fn unit_and_power_of_two_weights_give_the_same_forest() {
    for data in [genuer(120, 8, Seed(8), 0).unwrap(), regression_data()] {
        let n = data.n_rows();
        let plain = ForestModel::fit(&data.all(), &small(40)).unwrap();
        for w in [1.0, 4.0] {
            let weighted = ForestModel::fit(&data.clone().with_weights(vec![w; n]).unwrap().all(), &small(40)).unwrap();
            assert_eq!(trees(&weighted), trees(&plain), "weights {w}");
            assert_eq!(
                weighted.importances(Importance::Impurity).unwrap(),
                plain.importances(Importance::Impurity).unwrap(),
                "weights {w}"
            );
            let (a, b) = (weighted.oob_error().unwrap(), plain.oob_error().unwrap());
            assert!((a - b).abs() <= 1e-12 * b.abs(), "weights {w}: out-of-bag error {a} vs {b}");
        }
    }
}

/// `y = 2 x₀ − x₁ + noise` on 150 rows.
fn regression_data() -> Dataset {
    let data = genuer(150, 6, Seed(9), 0).unwrap();
    let all = data.all();
    let y = (0..150).map(|i| 2.0 * all.x(i)[0] - all.x(i)[1] + 0.1 * (i % 7) as f64).collect();
    Dataset::new(data.x().to_vec(), data.feature_names().to_vec(), crate::data::Target::Real(y), "y").unwrap()
}

#[test]
fn zero_weight_rows_do_not_matter_and_weights_change_the_forest() {
    let data = genuer(120, 8, Seed(10), 0).unwrap();
    let weights: Vec<f64> = (0..120).map(|i| [0.0, 0.5, 1.0, 2.5][i % 4]).collect();
    let weighted = data.clone().with_weights(weights.clone()).unwrap();
    // The same data with every zero-weight row's class flipped.
    let crate::data::Target::Classes { labels, names } = data.target().clone() else { unreachable!() };
    let flipped: Vec<u32> = labels.iter().enumerate().map(|(i, &c)| if weights[i] == 0.0 { 1 - c } else { c }).collect();
    let other =
        Dataset::new(data.x().to_vec(), data.feature_names().to_vec(), crate::data::Target::Classes { labels: flipped, names }, "y")
            .unwrap()
            .with_weights(weights)
            .unwrap();
    let (a, b) = (ForestModel::fit(&weighted.all(), &small(30)).unwrap(), ForestModel::fit(&other.all(), &small(30)).unwrap());
    assert_eq!(trees(&a), trees(&b));
    assert_ne!(trees(&a), trees(&ForestModel::fit(&data.all(), &small(30)).unwrap()));
    // The family reads the training view's weights and declares it.
    let fam = build(&FamilyParams::default().set("trees", 30), &data).unwrap();
    assert!(fam.sample_weight());
    let default_mtry = ForestModel::fit(&weighted.all(), &ForestOptions { mtry: Some(2), ..small(30) }).unwrap();
    let path = fam.fit_path(&weighted.all()).unwrap();
    let m = fam.grid().values().iter().position(|&v| v == 2.0).unwrap();
    assert_eq!(path.model(m).unwrap(), Model::Forest(default_mtry));
}

/// In a binary serde format (a split's outcome crossing a cluster) a forest comes back bit for
/// bit, and its model file (JSON) is what it was.
#[test]
fn a_forest_round_trips_through_a_binary_format_bit_for_bit() {
    let data = genuer(150, 6, Seed(2), 0).unwrap();
    let forest = ForestModel::fit(&data.all(), &small(7)).unwrap();
    let bytes = rmp_serde::to_vec_named(&forest).unwrap();
    let back: ForestModel = rmp_serde::from_slice(&bytes).unwrap();
    assert_eq!(back, forest);
    assert_eq!(serde_json::to_string(&back).unwrap(), serde_json::to_string(&forest).unwrap());
}
