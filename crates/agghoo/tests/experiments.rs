//! The papers' experiments at small sizes: structure, sanity and the k-NN claim.

use agghoo::Seed;
use agghoo::experiments::{Config, Experiment, knn};

fn tiny() -> Config {
    Config { reps: 4, seed: Seed(7), n: 120, test_size: 300, taus: vec![0.2, 0.5, 0.8], vs: vec![1, 2, 5], progress: None }
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
        let rep = knn::repetition(&config, r).unwrap();
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
        assert_eq!(rep, knn::repetition(&config, r).unwrap());
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
    let config = Config { reps: 30, seed: Seed(2024), n: 300, test_size: 500, taus: vec![0.5, 0.7], vs: vec![1, 10], progress: None };
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
        let risks = breast_cancer::repetition(&config, r).unwrap();
        assert!(risks[2] <= risks[0] + 1e-12, "repetition {r}: oracle {} > CV {}", risks[2], risks[0]);
    }
    // every repetition is reproducible on its own
    assert_eq!(breast_cancer::repetition(&config, 1).unwrap(), breast_cancer::repetition(&config, 1).unwrap());
}
