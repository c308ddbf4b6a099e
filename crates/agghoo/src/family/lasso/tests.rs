use super::*;
use crate::data::Target;
use crate::family::conformance::path_equals_refit;
use rand::{RngExt, SeedableRng};

/// `y = x₀ − 2x₁ + 0.5x₂ + noise` with correlated features (so screening has work to do).
pub(super) fn sparse_data(n: usize, d: usize, seed: u64) -> Dataset {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut x = Vec::with_capacity(n * d);
    let mut y = Vec::with_capacity(n);
    for _ in 0..n {
        let common: f64 = rng.random::<f64>() - 0.5;
        let row: Vec<f64> = (0..d).map(|_| rng.random::<f64>() - 0.5 + 0.5 * common).collect();
        let noise: f64 = rng.random::<f64>() - 0.5;
        y.push(row[0] - 2.0 * row[1.min(d - 1)] + 0.5 * row[2.min(d - 1)] + 0.3 * noise + 4.0);
        x.extend(row);
    }
    Dataset::new(x, (0..d).map(|j| format!("x{j}")).collect(), Target::Real(y), "y").unwrap()
}

fn family(data: &Dataset, rho: f64, precompute: &str, tol: f64) -> Box<dyn Family> {
    let params = FamilyParams::default().set("l1_ratio", rho).set("precompute", precompute).set("tol", tol);
    let mut fam = build_enet(&params, data).unwrap();
    // A shorter grid keeps the refit side fast; the default grid's range is kept.
    let values: Vec<f64> = fam.grid().values().iter().step_by(9).copied().collect();
    let params = FamilyParams { grid: Some(crate::family::GridSpec::Values(values)), ..params };
    fam = build_enet(&params, data).unwrap();
    fam
}

#[test]
fn path_equals_cold_refit_at_every_lambda() {
    for (n, d) in [(120, 8), (40, 60)] {
        let data = sparse_data(n, d, 7);
        let rows: Vec<usize> = (0..n).collect();
        let (train, val) = rows.split_at(n * 3 / 4);
        for rho in [1.0, 0.5, 0.0] {
            for mode in ["gram", "residual"] {
                let fam = family(&data, rho, mode, 1e-14);
                path_equals_refit(fam.as_ref(), &data.view(train), &data.view(val), 1e-6);
            }
        }
    }
}

#[test]
fn gram_and_residual_modes_agree() {
    let data = sparse_data(200, 10, 3);
    let all = data.all();
    let a = family(&data, 0.7, "gram", 1e-14).fit_path(&all).unwrap().predict(&all).unwrap();
    let b = family(&data, 0.7, "residual", 1e-14).fit_path(&all).unwrap().predict(&all).unwrap();
    for (p, q) in a.iter().zip(&b) {
        for (u, v) in p.values().unwrap().iter().zip(q.values().unwrap()) {
            assert!((u - v).abs() < 1e-7, "{u} vs {v}");
        }
    }
}

#[test]
fn lambda_max_is_the_first_all_zero_point() {
    let data = sparse_data(100, 5, 1);
    let problem = Problem::new(&data.all(), false);
    let lambda_max = problem.lambda_max(1.0);
    let fam = LassoFamily::new("lasso", vec![lambda_max * 0.999, lambda_max * 1.0001], L1Ratio::new(1.0).unwrap()).unwrap();
    let path = fam.fit_path(&data.all()).unwrap();
    let coefs = |m| match path.model(m).unwrap() {
        Model::Lasso(l) => l.support().len(),
        _ => unreachable!(),
    };
    assert_eq!(coefs(1), 0);
    assert_eq!(coefs(0), 1);
}

#[test]
fn merge_mean_averages_coefficients_and_predictions() {
    let a = LassoModel { coefficients: vec![1.0, 0.0], intercept: 1.0, lambda: 1.0, l1_ratio: 1.0 };
    let b = LassoModel { coefficients: vec![3.0, -2.0], intercept: 0.0, lambda: 4.0, l1_ratio: 1.0 };
    let m = LassoModel::merge_mean(&[&a, &b]).unwrap();
    assert_eq!(m.coefficients(), [2.0, -1.0]);
    assert_eq!(m.intercept(), 0.5);
    assert_eq!(m.lambda(), 2.0);
    assert_eq!(m.support(), [0, 1]);
    let c = LassoModel { coefficients: vec![3.0], intercept: 0.0, lambda: 4.0, l1_ratio: 1.0 };
    assert!(matches!(LassoModel::merge_mean(&[&a, &c]), Err(Error::SchemaMismatch(_))));
    assert!(matches!(LassoModel::merge_mean(&[]), Err(Error::InvalidParameter { .. })));
}

#[test]
fn max_iter_exhaustion_is_a_typed_error() {
    let data = sparse_data(50, 5, 2);
    let fam = LassoFamily::new("lasso", vec![1e-4], L1Ratio::new(1.0).unwrap()).unwrap().with_tol(1e-14).unwrap().with_max_iter(1).unwrap();
    assert!(matches!(fam.fit(&data.all(), 0), Err(Error::Numerical(_))));
}

#[test]
fn gram_path_is_bit_identical_on_one_and_four_threads() {
    // d = 150 spans three Gram column blocks.
    let data = sparse_data(300, 150, 5);
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let fam = family(&data, 0.8, "gram", 1e-7);
            let path = fam.fit_path(&data.all()).unwrap();
            (0..fam.grid().len()).map(|m| path.model(m).unwrap()).collect::<Vec<_>>()
        })
    };
    assert_eq!(run(1), run(4));
}
