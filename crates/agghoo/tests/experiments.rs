//! The papers' experiments at small sizes: structure, sanity and the k-NN claim.

use agghoo::Seed;
use agghoo::experiments::{Config, Experiment, knn};

fn tiny() -> Config {
    Config { reps: 4, seed: Seed(7), n: 120, test_size: 300, taus: vec![0.2, 0.5, 0.8], vs: vec![1, 2, 5] }
}

#[test]
fn knn_rows_have_the_documented_structure_and_sane_values() {
    let config = tiny();
    let result = Experiment::Knn.run(&config).unwrap();
    assert_eq!(result.experiment, "knn");
    assert_eq!(result.reps, 4);
    // Majhoo and CV for every (τ, V), then the oracle and its drawn-label diagnostic.
    assert_eq!(result.rows.len(), 3 * 3 * 2 + 2);
    for row in &result.rows {
        // the drawn-label diagnostic is a minimum of unbiased estimates: slightly negative is possible
        let floor = if row.method == "oracle-drawn-labels" { -0.05 } else { 0.0 };
        assert!(row.mean >= floor && row.mean <= 1.0 - 0.242, "{row:?}");
        assert!(row.standard_error >= 0.0 && row.standard_error.is_finite(), "{row:?}");
    }
    let oracle = &result.rows[result.rows.len() - 2];
    assert_eq!((oracle.method.as_str(), oracle.tau, oracle.v, oracle.paper), ("oracle", None, None, Some(knn::PAPER_ORACLE)));
    // JSON round trip
    let json = serde_json::to_string(&result).unwrap();
    assert_eq!(serde_json::from_str::<agghoo::experiments::ExperimentResult>(&json).unwrap(), result);
}

#[test]
fn knn_oracle_is_below_cv_and_repetitions_are_reproducible() {
    let config = tiny();
    for r in 0..3 {
        let rep = knn::repetition(&config, r, &agghoo::engine::Rayon).unwrap();
        // excess risks are non-negative by construction (exact conditional risk)
        assert!(rep.on_sample.iter().all(|&e| (0.0..=1.0).contains(&e)));
        assert_eq!(rep.oracle, rep.on_sample.iter().copied().fold(f64::INFINITY, f64::min));
        assert!(rep.oracle_drawn_labels.abs() <= 1.0);
        // CV's final predictor is a k-NN on D: never better than the oracle on the same D.
        for (t, cv) in rep.cv.iter().enumerate() {
            for (i, &e) in cv.iter().enumerate() {
                assert!(e >= rep.oracle, "τ index {t}, V index {i}: CV {e} < oracle {}", rep.oracle);
                assert!(rep.on_sample.contains(&e));
            }
        }
        // Majhoo with V = 1 is the hold-out member; with V ≥ 1 its excess risk stays in range.
        assert!(rep.majhoo.iter().flatten().all(|&e| (0.0..=1.0).contains(&e)));
        assert_eq!(rep, knn::repetition(&config, r, &agghoo::engine::Rayon).unwrap());
    }
}

#[test]
fn knn_results_do_not_depend_on_the_thread_count() {
    let config = Config { reps: 3, ..tiny() };
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap().install(|| Experiment::Knn.run(&config).unwrap());
    let three = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap().install(|| Experiment::Knn.run(&config).unwrap());
    assert_eq!(one, three);
}

#[test]
fn knn_bad_configs_are_typed_errors() {
    let bad = [
        Config { reps: 1, ..tiny() },
        Config { taus: vec![1.0], ..tiny() },
        Config { vs: vec![0], ..tiny() },
        Config { n: 1, ..tiny() },
        Config { taus: vec![0.001], ..tiny() }, // ⌊τn⌋ = 0
    ];
    for config in bad {
        assert!(Experiment::Knn.run(&config).is_err(), "{config:?}");
    }
}

/// The paper's claim at a moderate size: Majhoo with V = 10 beats the hold-out (V = 1).
/// Fixed seed; the margin is generous (the paper's gap is about a factor 2).
#[test]
fn knn_majhoo_v10_beats_the_hold_out() {
    let config = Config { reps: 30, seed: Seed(2024), n: 300, test_size: 500, taus: vec![0.5, 0.7], vs: vec![1, 10] };
    let result = Experiment::Knn.run(&config).unwrap();
    for tau in [0.5, 0.7] {
        let get = |v: usize| result.rows.iter().find(|r| r.method == "majhoo" && r.tau == Some(tau) && r.v == Some(v)).unwrap();
        let (hold_out, majhoo) = (get(1), get(10));
        let gap = hold_out.mean - majhoo.mean;
        let se = (hold_out.standard_error.powi(2) + majhoo.standard_error.powi(2)).sqrt();
        assert!(gap > 2.0 * se && majhoo.mean < 0.8 * hold_out.mean, "τ = {tau}: hold-out {hold_out:?}, Majhoo {majhoo:?}");
    }
}

#[test]
fn breast_cancer_rows_match_the_papers_table_and_the_oracle_bounds_cv() {
    use agghoo::experiments::{Experiment, breast_cancer};
    let mut config = Experiment::BreastCancer.default_config();
    config.reps = 3;
    let result = Experiment::BreastCancer.run(&config).unwrap();
    assert_eq!(result.rows.len(), breast_cancer::PAPER.len());
    for (row, (method, paper, _)) in result.rows.iter().zip(breast_cancer::PAPER) {
        assert_eq!(row.method, method);
        assert_eq!(row.paper, Some(paper));
        assert!((0.0..=100.0).contains(&row.mean), "{row:?}");
    }
    // The oracle picks the best α of the same pruned trees CV chooses among, trained on the same
    // 500 rows: it can never lose to CV, repetition by repetition.
    for r in 0..3 {
        let risks = breast_cancer::repetition(&config, r, &agghoo::engine::Rayon).unwrap();
        assert!(risks[2] <= risks[0] + 1e-12, "repetition {r}: oracle {} > CV {}", risks[2], risks[0]);
    }
    // every repetition is reproducible on its own
    assert_eq!(
        breast_cancer::repetition(&config, 1, &agghoo::engine::Rayon).unwrap(),
        breast_cancer::repetition(&config, 1, &agghoo::engine::Rayon).unwrap()
    );
}

// ---- CART (docs/RESULTS.md § 2) and ε-SVR (docs/RESULTS.md § 4) ----

use agghoo::experiments::{cart, svr};

fn tiny_cart() -> Config {
    Config { reps: 3, seed: Seed(11), n: 150, test_size: 300, taus: vec![0.5, 0.8], vs: vec![1, 3] }
}

fn tiny_svr() -> Config {
    Config { reps: 3, seed: Seed(5), n: 80, test_size: 200, taus: vec![0.3, 0.7], vs: vec![1, 2, 4] }
}

#[test]
fn cart_rows_have_the_documented_structure_and_sane_values() {
    let config = tiny_cart();
    let result = Experiment::Cart.run(&config).unwrap();
    assert_eq!((result.experiment.as_str(), result.reps, result.bayes_risk), ("cart", 3, Some(cart::BAYES_RISK)));
    // per d: Majhoo for every (τ, V), then CV, the oracle and two forests
    assert_eq!(result.rows.len(), cart::DIMENSIONS.len() * (2 * 2 + 4));
    for d in cart::DIMENSIONS {
        for tau in [0.5, 0.8] {
            for v in [1, 3] {
                let name = format!("majhoo d={d}");
                assert!(result.rows.iter().any(|r| r.method == name && r.tau == Some(tau) && r.v == Some(v)), "{name} τ={tau} V={v}");
            }
        }
        for line in
            [format!("cv 10-fold d={d}"), format!("oracle d={d}"), format!("forest 10 trees d={d}"), format!("forest 500 trees d={d}")]
        {
            assert!(result.rows.iter().any(|r| r.method == line && r.tau.is_none() && r.v.is_none()), "{line}");
        }
    }
    for row in &result.rows {
        // an excess 0-1 risk lies in [0, 1 − Bayes risk]
        assert!(row.mean >= 0.0 && row.mean <= 1.0 - cart::BAYES_RISK, "{row:?}");
        assert!(row.standard_error >= 0.0 && row.standard_error.is_finite(), "{row:?}");
    }
}

#[test]
fn cart_oracle_is_below_cv_and_repetitions_are_reproducible() {
    let config = tiny_cart();
    for r in 0..2 {
        let rep = cart::repetition(&config, 7, r, &agghoo::engine::Rayon).unwrap();
        assert!(rep.on_sample.iter().all(|&e| (0.0..=1.0).contains(&e)));
        assert_eq!(rep.oracle, rep.on_sample.iter().copied().fold(f64::INFINITY, f64::min));
        // 10-fold CV refits on D at a grid point: never better than the oracle on the same D
        assert!(rep.cv >= rep.oracle && rep.on_sample.contains(&rep.cv), "CV {} < oracle {}", rep.cv, rep.oracle);
        assert!(rep.majhoo.iter().flatten().chain(&rep.forests).all(|&e| (0.0..=1.0).contains(&e)));
        assert_eq!(rep.forests.len(), 2);
        assert_eq!(rep, cart::repetition(&config, 7, r, &agghoo::engine::Rayon).unwrap());
    }
    assert!(cart::repetition(&config, 5, 0, &agghoo::engine::Rayon).is_err(), "d < 6 has no informative features to draw");
}

#[test]
fn svr_rows_have_the_documented_structure_and_the_oracle_is_below_cv() {
    let config = tiny_svr();
    let result = Experiment::Svr.run(&config).unwrap();
    assert_eq!((result.experiment.as_str(), result.bayes_risk), ("svr", Some(svr::NOISE_RISK)));
    // Agghoo and CV for every (τ, V), then the oracle
    assert_eq!(result.rows.len(), 2 * 3 * 2 + 1);
    for method in ["agghoo", "cv"] {
        for tau in [0.3, 0.7] {
            for v in [1, 2, 4] {
                assert!(result.rows.iter().any(|r| r.method == method && r.tau == Some(tau) && r.v == Some(v)), "{method} τ={tau} V={v}");
            }
        }
    }
    let oracle = result.rows.last().unwrap();
    assert_eq!((oracle.method.as_str(), oracle.tau, oracle.v), ("oracle", None, None));
    for row in &result.rows {
        // an excess risk, estimated against the regression function on the same test points
        assert!(row.mean > 0.0 && row.mean < 1.0 && row.standard_error.is_finite(), "{row:?}");
    }
    for r in 0..2 {
        let rep = svr::repetition(&config, r, &agghoo::engine::Rayon).unwrap();
        assert_eq!(rep.on_sample.len(), svr::c_grid().len());
        assert_eq!(rep.oracle, rep.on_sample.iter().copied().fold(f64::INFINITY, f64::min));
        for &e in rep.cv.iter().flatten() {
            assert!(e >= rep.oracle && rep.on_sample.contains(&e), "CV {e} < oracle {}", rep.oracle);
        }
        assert!(rep.agghoo.iter().flatten().all(|&e| e > -0.05 && e < 1.0));
    }
}

#[test]
fn svr_and_cart_results_do_not_depend_on_the_thread_count() {
    for (experiment, config) in [(Experiment::Svr, Config { reps: 2, ..tiny_svr() }), (Experiment::Cart, Config { reps: 2, ..tiny_cart() })]
    {
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap().install(|| experiment.run(&config).unwrap());
        let three = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap().install(|| experiment.run(&config).unwrap());
        assert_eq!(one, three, "{experiment:?}");
    }
}

#[test]
fn cart_and_svr_bad_configs_are_typed_errors() {
    for experiment in [Experiment::Cart, Experiment::Svr] {
        let base = if experiment == Experiment::Cart { tiny_cart() } else { tiny_svr() };
        let bad = [
            Config { reps: 1, ..base.clone() },
            Config { taus: vec![1.0], ..base.clone() },
            Config { vs: vec![0], ..base.clone() },
            Config { taus: vec![0.001], ..base.clone() },
        ];
        for config in bad {
            assert!(experiment.run(&config).is_err(), "{experiment:?} {config:?}");
        }
    }
    assert_eq!(Experiment::parse("cart").unwrap(), Experiment::Cart);
    assert_eq!(Experiment::parse("svr").unwrap(), Experiment::Svr);
}

fn tiny_treecv() -> Config {
    Config { reps: 2, seed: Seed(5), n: 2000, test_size: 0, taus: Vec::new(), vs: vec![2, 5, 10, 100, 1000, 5000] }
}

#[test]
fn treecv_rows_have_the_documented_structure_and_sane_values() {
    use agghoo::experiments::treecv;
    let config = tiny_treecv();
    // cap 2000 · 100: the standard method runs for k ≤ 100 and is skipped at k = 1000 and k = n.
    let result = treecv::run_with_cap(&config, 2000 * 100, &agghoo::engine::Rayon).unwrap();
    assert_eq!(result.experiment, "treecv");
    let ks = [2, 5, 10, 100, 1000, 2000]; // 5000 > n dropped, n added
    assert_eq!(treecv::folds(&config).unwrap(), ks);
    // per data set: tree × 2 orders × 6 k, standard × 2 orders × 4 k
    assert_eq!(result.rows.len(), 2 * (2 * 6 + 2 * 4));
    for row in &result.rows {
        let k = row.v.unwrap();
        assert!(ks.contains(&k), "{row:?}");
        assert!(row.seconds.unwrap() >= 0.0 && row.standard_error >= 0.0 && row.standard_error.is_finite(), "{row:?}");
        if row.method.starts_with("covertype/") {
            // PEGASOS's 0–1 loss
            assert!((0.0..=1.0).contains(&row.mean), "{row:?}");
        } else {
            assert!(row.method.starts_with("msd/") && row.mean >= 0.0 && row.mean.is_finite(), "{row:?}");
        }
        if row.method.contains("standard") {
            assert!(k <= 100, "{row:?}");
            assert_eq!(row.passes, Some((k - 1) as f64));
        }
    }
    // TreeCV performs fewer point-updates than the standard method for k ≥ 4 (and at most ⌈log2 k⌉ passes).
    for dataset in treecv::DATASETS {
        for order in treecv::ORDERS {
            for &k in &ks {
                let find = |m| result.rows.iter().find(|r| r.method == treecv::label(dataset, m, order) && r.v == Some(k));
                let tree = find(agghoo::treecv::Method::Tree).unwrap().passes.unwrap();
                assert!(tree <= (k as f64).log2().ceil() + 1e-12, "{dataset} k = {k}: {tree} passes");
                if let Some(standard) = find(agghoo::treecv::Method::Standard) {
                    assert!(k < 4 || tree < standard.passes.unwrap(), "{dataset} k = {k}");
                }
            }
        }
    }
    // k = 2: the tree's fixed order is the standard one, so the estimates agree exactly.
    let get = |l: &str| result.rows.iter().find(|r| r.method == l && r.v == Some(2)).unwrap().mean;
    assert_eq!(get("covertype/tree-fixed"), get("covertype/standard-fixed"));
    assert_eq!(get("msd/tree-fixed"), get("msd/standard-fixed"));
    // JSON round trip, and the new optional fields stay out of other experiments' JSON.
    let json = serde_json::to_string(&result).unwrap();
    assert_eq!(serde_json::from_str::<agghoo::experiments::ExperimentResult>(&json).unwrap(), result);
    let knn_row = serde_json::to_value(&knn::run(&tiny(), &agghoo::engine::Rayon).unwrap().rows[0]).unwrap();
    assert!(knn_row.get("seconds").is_none() && knn_row.get("passes").is_none());
}

/// A result row reduced to (method, V, mean, standard error, passes).
type RowSummary = (String, Option<usize>, f64, f64, Option<f64>);

#[test]
fn treecv_estimates_do_not_depend_on_the_thread_count_and_bad_configs_fail() {
    let config = Config { n: 600, vs: vec![3, 10], ..tiny_treecv() };
    let strip = |r: agghoo::experiments::ExperimentResult| -> Vec<RowSummary> {
        r.rows.into_iter().map(|r| (r.method, r.v, r.mean, r.standard_error, r.passes)).collect()
    };
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap().install(|| Experiment::Treecv.run(&config).unwrap());
    let three = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap().install(|| Experiment::Treecv.run(&config).unwrap());
    assert_eq!(strip(one), strip(three));
    for bad in [Config { reps: 1, ..config.clone() }, Config { n: 1, ..config.clone() }, Config { vs: vec![1], ..config.clone() }] {
        assert!(Experiment::Treecv.run(&bad).is_err(), "{bad:?}");
    }
    assert_eq!(Experiment::parse("treecv").unwrap(), Experiment::Treecv);
}
