use super::cd::row_chunks;
use super::*;
use crate::data::Target;
use crate::family::{FamilyKind, FamilyParams};
use crate::testing::path_equals_refit;
use rand::{RngExt, SeedableRng};

fn build_enet(params: &FamilyParams, data: &Dataset) -> Result<Box<dyn Family>> {
    crate::family::build(FamilyKind::Enet, params, data)
}

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
    let problem = Problem::new(&data.all(), false, None);
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
fn paths_are_bit_identical_on_one_and_four_threads_in_both_modes() {
    // Gram mode: n = 3 000 rows make two chunks of rows (summed in parallel). Residual mode:
    // d = 1 100 features make three blocks of the gradient's columns (computed in parallel).
    for (n, d, mode) in [(3_000, 40, "gram"), (60, 1_100, "residual")] {
        let data = sparse_data(n, d, 5);
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| {
                let fam = family(&data, 0.8, mode, 1e-7);
                let path = fam.fit_path(&data.all()).unwrap();
                (0..fam.grid().len()).map(|m| path.model(m).unwrap()).collect::<Vec<_>>()
            })
        };
        assert_eq!(run(1), run(4), "{mode}");
    }
}

#[test]
fn chunked_gram_is_bit_identical_on_any_thread_count_and_equals_the_centred_product() {
    // n = 5 000 rows make four chunks of rows (summed separately, then in order), each of
    // several blocks of rows.
    let (n, d) = (5_000, 70);
    assert_eq!(row_chunks(n, d).len(), 4);
    assert_eq!(row_chunks(2_047, d).len(), 1);
    assert_eq!(row_chunks(n, 2_000).len(), 2, "partials capped at 64 MiB");
    assert!(row_chunks(n, d).iter().zip(row_chunks(n, d).iter().skip(1)).all(|(a, b)| a.end == b.start));
    let data = sparse_data(n, d, 8);
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let p = Problem::new(&data.all(), true, None);
            (p.gram.clone().unwrap(), p.xty.clone(), p.x_mean.clone())
        })
    };
    let (gram, xty, mean) = run(1);
    for threads in [2, 3, 4] {
        assert!(run(threads) == (gram.clone(), xty.clone(), mean.clone()), "{threads} threads");
    }
    // Against the centred product computed directly in one sum.
    let all = data.all();
    let y = all.gather_y();
    let y_mean = y.iter().sum::<f64>() / n as f64;
    for j in 0..d {
        let mj = (0..n).map(|i| all.x(i)[j]).sum::<f64>() / n as f64;
        assert!((mj - mean[j]).abs() < 1e-15);
        let c = (0..n).map(|i| (all.x(i)[j] - mj) * (y[i] - y_mean)).sum::<f64>() / n as f64;
        assert!((c - xty[j]).abs() < 1e-13, "c[{j}]");
        for k in 0..d {
            let g = (0..n).map(|i| (all.x(i)[j] - mj) * (all.x(i)[k] - mean[k])).sum::<f64>() / n as f64;
            assert!((g - gram[j * d + k]).abs() < 1e-13, "G[{j}, {k}]");
        }
    }
}

#[test]
fn shifted_one_pass_gram_is_exact_on_offset_rows_in_trending_order() {
    // Covariance mode centres on the mean of the first rows and corrects at the end. Columns
    // here sit at offsets up to 10⁵ with a spread of a few units, and the rows are sorted by a
    // trend, so the first rows' mean is far (several spreads) from the overall mean in the
    // trending columns: the correction is as large as it gets short of adversarial orders.
    let (n, d) = (5_000, 6);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    let mut x = Vec::with_capacity(n * d);
    let mut y = Vec::with_capacity(n);
    for i in 0..n {
        let t = 10.0 * i as f64 / n as f64;
        let row: Vec<f64> = (0..d).map(|j| 1e4 * (j + 1) as f64 + t * (j % 3) as f64 + rng.random::<f64>() - 0.5).collect();
        y.push(row[1] - row[2] + 3e3 + rng.random::<f64>());
        x.extend(row);
    }
    let data = Dataset::new(x, (0..d).map(|j| format!("x{j}")).collect(), Target::Real(y), "y").unwrap();
    let p = Problem::new(&data.all(), true, None);
    let (gram, xty) = (p.gram.clone().unwrap(), p.xty.clone());
    // Two passes, each sum directly: the reference.
    let all = data.all();
    let y = all.gather_y();
    let y_mean = y.iter().sum::<f64>() / n as f64;
    let mean: Vec<f64> = (0..d).map(|j| (0..n).map(|i| all.x(i)[j]).sum::<f64>() / n as f64).collect();
    let centred = |i: usize, j: usize| all.x(i)[j] - mean[j];
    for j in 0..d {
        assert!((mean[j] - p.x_mean[j]).abs() <= 1e-13 * mean[j].abs(), "mean[{j}]: {} vs {}", p.x_mean[j], mean[j]);
        let c = (0..n).map(|i| centred(i, j) * (y[i] - y_mean)).sum::<f64>() / n as f64;
        for k in 0..d {
            let g = (0..n).map(|i| centred(i, j) * centred(i, k)).sum::<f64>() / n as f64;
            let scale = (gram[j * d + j] * gram[k * d + k]).sqrt();
            assert!((g - gram[j * d + k]).abs() <= 1e-11 * scale, "G[{j}, {k}] = {} vs {g}", gram[j * d + k]);
        }
        let y_var = y.iter().map(|v| (v - y_mean).powi(2)).sum::<f64>() / n as f64;
        let scale = (gram[j * d + j] * y_var).sqrt();
        assert!((c - xty[j]).abs() <= 1e-11 * scale, "c[{j}] = {} vs {c}", xty[j]);
    }
}

/// Runs the path on the Problem level (as `fit_path` does) and returns each λ's coefficients,
/// intercept, the number of features the KKT check re-admitted along the path and the number of
/// direct steps on the non-zero coordinates.
fn raw_path(data: &Dataset, lambdas: &[f64], rho: f64, gram: bool, tol: f64) -> (Vec<(Vec<f64>, f64)>, usize, usize) {
    let problem = Problem::new(&data.all(), gram, None);
    let settings = Settings { l1_ratio: rho, tol, max_passes: 1_000_000 };
    let mut state = problem.zero_state();
    let mut previous = problem.lambda_max(rho);
    let mut out = Vec::new();
    for &lambda in lambdas {
        problem.solve(&mut state, lambda, previous, &settings).unwrap();
        let intercept = problem.y_mean - dot(&problem.x_mean, &state.w);
        out.push((state.w.clone(), intercept));
        previous = lambda;
    }
    (out, state.readmitted, state.face_steps)
}

/// The largest violation of the elastic-net optimality conditions at `(w, b)` on `data`,
/// computed from the raw rows (not from the solver's state): for `w_j ≠ 0`,
/// `|g_j − λ(1 − ρ)w_j − λρ sign(w_j)|`; for `w_j = 0`, `max(|g_j| − λρ, 0)`, with
/// `g_j = x_jᵀ(y − b − Xw)/n`; and `|Σ_i r_i|/n` for the intercept.
fn kkt_violation(data: &Dataset, w: &[f64], b: f64, lambda: f64, rho: f64) -> f64 {
    let all = data.all();
    let n = all.len();
    let y = all.gather_y();
    let r: Vec<f64> = (0..n).map(|i| y[i] - b - dot(all.x(i), w)).collect();
    let mut worst = (r.iter().sum::<f64>() / n as f64).abs();
    for (j, &wj) in w.iter().enumerate() {
        let g = (0..n).map(|i| all.x(i)[j] * r[i]).sum::<f64>() / n as f64;
        let v =
            if wj != 0.0 { (g - lambda * (1.0 - rho) * wj - lambda * rho * wj.signum()).abs() } else { (g.abs() - lambda * rho).max(0.0) };
        worst = worst.max(v);
    }
    worst
}

#[test]
fn gram_path_equals_residual_path_tall_and_wide() {
    for (n, d) in [(300, 12), (40, 90)] {
        let data = sparse_data(n, d, 11);
        let lambda_max = Problem::new(&data.all(), false, None).lambda_max(1.0);
        let lambdas: Vec<f64> = (0..30).map(|k| lambda_max * 10f64.powf(-3.0 * f64::from(k) / 29.0)).collect();
        for rho in [1.0, 0.5, 0.1] {
            let (gram, _, face_steps) = raw_path(&data, &lambdas, rho, true, 1e-14);
            let (residual, _, none) = raw_path(&data, &lambdas, rho, false, 1e-14);
            // The Gram path's direct steps are compared with plain descent (residual mode has none).
            assert!(face_steps > 0 && none == 0, "n = {n}, d = {d}, rho = {rho}: {face_steps} direct steps, {none} in residual mode");
            for (k, ((wg, bg), (wr, br))) in gram.iter().zip(&residual).enumerate() {
                let diff = wg.iter().zip(wr).map(|(a, b)| (a - b).abs()).fold((bg - br).abs(), f64::max);
                assert!(diff < 1e-6, "n = {n}, d = {d}, rho = {rho}, lambda #{k}: Gram and residual paths differ by {diff:e}");
                // Same support up to coefficients at the rounding level.
                for (a, b) in wg.iter().zip(wr) {
                    assert!((*a == 0.0) == (*b == 0.0) || a.abs().max(b.abs()) < 1e-8, "supports differ: {a} vs {b}");
                }
            }
        }
    }
}

#[test]
fn strong_rule_misses_are_readmitted_and_kkt_holds_at_every_lambda() {
    // Correlated features and a coarse grid (ratio 0.6): the sequential strong rule discards a
    // feature that is active at the next λ (found by scanning seeds; fixed here).
    let data = sparse_data(60, 30, 0);
    let lambda_max = Problem::new(&data.all(), false, None).lambda_max(1.0);
    let lambdas: Vec<f64> = (0..12).map(|k| lambda_max * 0.6f64.powi(k)).collect();
    for gram in [true, false] {
        let (path, readmitted, _) = raw_path(&data, &lambdas, 1.0, gram, 1e-12);
        assert!(readmitted > 0, "the strong rule made no mistake on this problem (gram = {gram})");
        for ((w, b), &lambda) in path.iter().zip(&lambdas) {
            let v = kkt_violation(&data, w, *b, lambda, 1.0);
            assert!(v < 1e-6 * lambda_max, "gram = {gram}, lambda = {lambda}: KKT violated by {v:e}");
        }
    }
    // The family's path (ascending grid) satisfies the conditions at every grid point too.
    for (rho, mode) in [(1.0, "gram"), (1.0, "residual"), (0.5, "gram"), (0.5, "residual")] {
        let grid = crate::family::GridSpec::Values(lambdas.clone());
        let params = FamilyParams::with_grid(grid).set("l1_ratio", rho).set("precompute", mode).set("tol", 1e-12);
        let fam = build_enet(&params, &data).unwrap();
        let path = fam.fit_path(&data.all()).unwrap();
        for m in 0..fam.grid().len() {
            let Model::Lasso(model) = path.model(m).unwrap() else { unreachable!() };
            let v = kkt_violation(&data, model.coefficients(), model.intercept(), fam.grid().value(m), rho);
            assert!(v < 1e-6 * lambda_max, "{mode}, rho = {rho}, lambda #{m}: KKT violated by {v:e}");
        }
    }
}

#[test]
fn shifting_features_and_target_changes_only_the_intercept() {
    // The intercept is fitted by centring: adding constants to the columns and to y leaves the
    // coefficients unchanged (to the tolerance) and moves b = ȳ − x̄ᵀw accordingly.
    let data = sparse_data(150, 8, 4);
    let all = data.all();
    let shift: Vec<f64> = (0..8).map(|j| 100.0 * (j as f64 - 3.5)).collect();
    let x: Vec<f64> = (0..all.len()).flat_map(|i| all.x(i).iter().zip(&shift).map(|(v, s)| v + s).collect::<Vec<_>>()).collect();
    let y: Vec<f64> = all.gather_y().iter().map(|v| v - 50.0).collect();
    let shifted = Dataset::new(x, (0..8).map(|j| format!("x{j}")).collect(), Target::Real(y), "y").unwrap();
    for mode in ["gram", "residual"] {
        let fam = family(&data, 0.8, mode, 1e-14);
        let params = FamilyParams { grid: Some(crate::family::GridSpec::Values(fam.grid().values().to_vec())), ..FamilyParams::default() }
            .set("l1_ratio", 0.8)
            .set("precompute", mode)
            .set("tol", 1e-14);
        let moved = build_enet(&params, &shifted).unwrap();
        let (a, b) = (fam.fit_path(&all).unwrap(), moved.fit_path(&shifted.all()).unwrap());
        for m in 0..fam.grid().len() {
            let (Model::Lasso(p), Model::Lasso(q)) = (a.model(m).unwrap(), b.model(m).unwrap()) else { unreachable!() };
            for (u, v) in p.coefficients().iter().zip(q.coefficients()) {
                assert!((u - v).abs() < 1e-7, "{mode}: {u} vs {v}");
            }
            let expected = p.intercept() - 50.0 - dot(&shift, q.coefficients());
            assert!((q.intercept() - expected).abs() < 1e-5, "{mode}: intercept {} vs {expected}", q.intercept());
        }
    }
}

/// Weights in {0, 1, 2, 3} (about a quarter zero), fixed by `seed`.
fn integer_weights(n: usize, seed: u64) -> Vec<u32> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    (0..n).map(|_| rng.random_range(0..4u32)).collect()
}

/// Row `i` listed `counts[i]` times (a zero count drops it), for `Dataset::select_rows`.
fn repeated(counts: &[u32]) -> Vec<usize> {
    counts.iter().enumerate().flat_map(|(i, &c)| std::iter::repeat_n(i, c as usize)).collect()
}

/// Every grid point's model of `family`'s path on all rows of `data`.
fn path_models(family: &dyn Family, data: &Dataset) -> Vec<Model> {
    let path = family.fit_path(&data.all()).unwrap();
    (0..family.grid().len()).map(|m| path.model(m).unwrap()).collect()
}

fn lasso_family(lambdas: Vec<f64>, rho: f64, precompute: Precompute) -> LassoFamily {
    LassoFamily::new("enet", lambdas, L1Ratio::new(rho).unwrap()).unwrap().with_tol(1e-14).unwrap().with_precompute(precompute)
}

#[test]
fn unit_weights_give_the_same_bits_in_both_modes() {
    let data = sparse_data(90, 7, 12);
    let ones = data.clone().with_weights(vec![1.0; 90]).unwrap();
    for precompute in [Precompute::Gram, Precompute::Residual] {
        let fam = lasso_family(default_grid(&data, L1Ratio::new(0.7).unwrap()), 0.7, precompute);
        assert_eq!(path_models(&fam, &ones), path_models(&fam, &data), "{precompute:?}");
        assert_eq!(fam.fit_value(&ones.all(), 0.01).unwrap(), fam.fit_value(&data.all(), 0.01).unwrap());
    }
    assert_eq!(default_grid(&ones, L1Ratio::new(1.0).unwrap()), default_grid(&data, L1Ratio::new(1.0).unwrap()));
}

#[test]
fn integer_weights_equal_row_duplication_and_zero_weights_drop_rows() {
    for (n, d) in [(80, 6), (30, 50)] {
        let data = sparse_data(n, d, 13);
        let counts = integer_weights(n, 14);
        assert!(counts.contains(&0) && counts.contains(&3));
        let copies = data.select_rows(&repeated(&counts)).unwrap();
        let weighted = data.clone().with_weights(counts.iter().map(|&c| f64::from(c)).collect()).unwrap();
        let grid = default_grid(&weighted, L1Ratio::new(0.6).unwrap());
        let from_copies = default_grid(&copies, L1Ratio::new(0.6).unwrap());
        assert!(grid.iter().zip(&from_copies).all(|(a, b)| (a - b).abs() <= 1e-12 * b), "the default grid is duplication-invariant");
        let lambdas = grid.into_iter().step_by(11).collect::<Vec<_>>();
        for precompute in [Precompute::Gram, Precompute::Residual] {
            let fam = lasso_family(lambdas.clone(), 0.6, precompute);
            for (a, b) in path_models(&fam, &weighted).iter().zip(&path_models(&fam, &copies)) {
                let (Model::Lasso(a), Model::Lasso(b)) = (a, b) else { unreachable!() };
                let diff = a
                    .coefficients()
                    .iter()
                    .zip(b.coefficients())
                    .fold((a.intercept() - b.intercept()).abs(), |m, (u, v)| m.max((u - v).abs()));
                assert!(diff < 1e-8, "n = {n}, d = {d}, {precompute:?}, lambda = {}: {diff:e}", a.lambda());
            }
        }
    }
}

#[test]
fn weights_change_the_fit_and_all_zero_weights_are_refused() {
    let data = sparse_data(60, 5, 15);
    let all = data.all();
    let fam = lasso_family(vec![0.01], 1.0, Precompute::Auto);
    let weights: Vec<f64> = (0..60).map(|i| if i < 30 { 3.0 } else { 0.5 }).collect();
    let weighted = data.clone().with_weights(weights).unwrap();
    assert_ne!(fam.fit(&weighted.all(), 0).unwrap(), fam.fit(&all, 0).unwrap());
    // A training set whose rows all weigh 0 (the data as a whole have positive weight).
    let half: Vec<f64> = (0..60).map(|i| if i < 30 { 0.0 } else { 1.0 }).collect();
    let half = data.clone().with_weights(half).unwrap();
    let rows: Vec<usize> = (0..30).collect();
    assert!(matches!(fam.fit(&half.view(&rows), 0), Err(Error::TooFewRows { found: 0, .. })));
    assert!(matches!(fam.fit_path(&half.view(&rows)).map(|_| ()), Err(Error::TooFewRows { found: 0, .. })));
}

#[test]
fn weighted_fits_equal_scikit_learn() {
    let golden: serde_json::Value = serde_json::from_str(include_str!("../../../tests/golden/weights_sklearn.json")).unwrap();
    let floats = |v: &serde_json::Value| v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect::<Vec<f64>>();
    let g = &golden["linear"];
    let d = g["d"].as_u64().unwrap() as usize;
    let data = Dataset::new(floats(&g["x"]), (0..d).map(|j| format!("x{j}")).collect(), Target::Real(floats(&g["y"])), "y").unwrap();
    let data = data.with_weights(floats(&g["weights"])).unwrap();
    for fit in g["fits"].as_array().unwrap() {
        let (rho, alpha) = (fit["l1_ratio"].as_f64().unwrap(), fit["alpha"].as_f64().unwrap());
        for precompute in [Precompute::Gram, Precompute::Residual] {
            let Model::Lasso(model) = lasso_family(vec![alpha], rho, precompute).fit(&data.all(), 0).unwrap() else { unreachable!() };
            let expected = floats(&fit["coef"]);
            for (j, (a, b)) in model.coefficients().iter().zip(&expected).enumerate() {
                assert!((a - b).abs() < 1e-7, "rho = {rho}, alpha = {alpha}, {precompute:?}: coef[{j}] {a} vs {b}");
            }
            let b = fit["intercept"].as_f64().unwrap();
            assert!((model.intercept() - b).abs() < 1e-7, "rho = {rho}, alpha = {alpha}: intercept {} vs {b}", model.intercept());
        }
    }
}
