use rand::{RngExt, SeedableRng};

use super::*;
use crate::data::Dataset;
use crate::data::Target;
use crate::family::{FamilyKind, FamilyParams};
use crate::family::{GridSpec, Predictor};
use crate::predictions::Predictions;
use crate::testing::path_equals_refit;

fn build_ridge(params: &FamilyParams, data: &Dataset) -> Result<Box<dyn Family>> {
    crate::family::build(FamilyKind::Ridge, params, data)
}

fn build_kernel_ridge(params: &FamilyParams, data: &Dataset) -> Result<Box<dyn Family>> {
    crate::family::build(FamilyKind::KernelRidge, params, data)
}

/// y = Xβ + 0.3·noise with β_j = (−1)^j / (j + 1), X ~ U(−2, 2) plus an offset, so the intercept matters.
fn random_data(n: usize, d: usize, seed: u64) -> Dataset {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let x: Vec<f64> = (0..n * d).map(|_| rng.random_range(-2.0..2.0) + 1.0).collect();
    let y = (0..n)
        .map(|i| {
            let signal: f64 = (0..d).map(|j| x[i * d + j] * if j % 2 == 0 { 1.0 } else { -1.0 } / (j + 1) as f64).sum();
            5.0 + signal + 0.3 * rng.random_range(-1.0..1.0)
        })
        .collect();
    Dataset::new(x, (0..d).map(|j| format!("x{j}")).collect(), Target::Real(y), "y").unwrap()
}

fn log_grid(low: f64, high: f64, n: usize) -> Vec<f64> {
    GridSpec::Log { low, high, n }.values().unwrap()
}

fn families() -> Vec<RidgeFamily> {
    families_with(log_grid(1e-3, 1e3, 12), log_grid(1e-3, 1e3, 12))
}

/// Linear ridge over `linear`, then every kernel (linear, rbf, polynomial) × intercept over `kernel`.
fn families_with(linear: Vec<f64>, grid: Vec<f64>) -> Vec<RidgeFamily> {
    let mut out = vec![RidgeFamily::linear(linear).unwrap()];
    for kernel in [Kernel::linear(), Kernel::rbf(0.4).unwrap(), Kernel::polynomial(0.2, 1.0, 3).unwrap()] {
        for intercept in [false, true] {
            out.push(RidgeFamily::kernel(grid.clone(), kernel, intercept).unwrap());
        }
    }
    out
}

fn values(p: &Predictions) -> &[f64] {
    p.values().expect("regression predictions")
}

#[test]
fn path_equals_refit_for_every_form() {
    // (n, d): primal linear (d ≤ n) and dual linear (n < d); kernels are always dual.
    for (n, d, seed) in [(80, 5, 1), (24, 40, 2)] {
        let data = random_data(n + 20, d, seed);
        let rows: Vec<usize> = (0..n + 20).collect();
        let (train, val) = (data.view(&rows[..n]), data.view(&rows[n..]));
        for family in families() {
            path_equals_refit(&family, &train, &val, 1e-8);
            // the path's model at m predicts what the path predicts at m
            let path = family.fit_path(&train).unwrap();
            let predicted = path.predict(&val).unwrap();
            for (m, p) in predicted.iter().enumerate() {
                let from_model = path.model(m).unwrap().predict(&val).unwrap();
                for (a, b) in values(&from_model).iter().zip(values(p)) {
                    assert!((a - b).abs() <= 1e-12 * (1.0 + b.abs()), "{} m={m}: {a} vs {b}", family.name());
                }
            }
        }
    }
}

#[test]
fn kernel_ridge_with_linear_kernel_and_intercept_is_ridge() {
    let data = random_data(60, 4, 3);
    let rows: Vec<usize> = (0..60).collect();
    let (train, val) = (data.view(&rows[..45]), data.view(&rows[45..]));
    let grid = log_grid(1e-2, 1e2, 7);
    let ridge = RidgeFamily::linear(grid.clone()).unwrap().fit_path(&train).unwrap().predict(&val).unwrap();
    let kernel = RidgeFamily::kernel(grid, Kernel::linear(), true).unwrap().fit_path(&train).unwrap().predict(&val).unwrap();
    for (a, b) in ridge.iter().zip(&kernel) {
        for (x, y) in values(a).iter().zip(values(b)) {
            assert!((x - y).abs() < 1e-9 * (1.0 + y.abs()), "{x} vs {y}");
        }
    }
}

/// `(1/n) Σ ((y_i − ŷ_i) / (1 − S_ii))²` per grid point.
fn closed_form_loo(smoother: &SmootherPath, y: &[f64]) -> Vec<f64> {
    smoother
        .fitted
        .iter()
        .zip(&smoother.leverage)
        .map(|(f, s)| y.iter().zip(f).zip(s).map(|((y, f), s)| ((y - f) / (1.0 - s)).powi(2)).sum::<f64>() / y.len() as f64)
        .collect()
}

/// Grids start at λ = 10⁻⁴ for linear ridge with n > d, else at 10⁻²: with n ≤ d a tiny λ
/// interpolates (`1 − S_ii ~ λ / s`, both numerator and denominator of the LOO term vanish), and
/// in dual form a small λ on a low-rank Gram matrix makes `‖α‖ = ‖residual‖ / λ` large, so the
/// refits' `k(x)ᵀα` loses digits to cancellation (at λ = 10⁻³ the sides still agree to 10⁻⁹).
#[test]
fn closed_form_loo_equals_brute_force() {
    for (n, d, seed) in [(30, 4, 5), (12, 20, 6)] {
        let data = random_data(n, d, seed);
        let all = data.all();
        let y = all.gather_y();
        for family in families_with(log_grid(if n > d { 1e-4 } else { 1e-2 }, 1e3, 12), log_grid(1e-2, 1e3, 12)) {
            let smoother = family.linear_smoother(&all).unwrap().unwrap();
            // the smoother's fitted values are the path's in-sample predictions
            let in_sample = family.fit_path(&all).unwrap().predict(&all).unwrap();
            for (f, p) in smoother.fitted.iter().zip(&in_sample) {
                f.iter().zip(values(p)).for_each(|(a, b)| assert!((a - b).abs() < 1e-9 * (1.0 + b.abs())));
            }
            let fast = closed_form_loo(&smoother, &y);
            for (m, fast) in fast.iter().enumerate() {
                let brute: f64 = (0..n)
                    .map(|i| {
                        let rest: Vec<usize> = (0..n).filter(|&r| r != i).collect();
                        let model = family.fit(&data.view(&rest), m).unwrap();
                        (y[i] - values(&model.predict(&data.view(&[i])).unwrap())[0]).powi(2)
                    })
                    .sum::<f64>()
                    / n as f64;
                assert!((fast - brute).abs() <= 1e-10 * (1.0 + brute), "{} n={n} m={m}: {fast} vs {brute}", family.name());
            }
        }
    }
}

#[test]
fn collinear_columns_at_lambda_zero_give_the_minimum_norm_solution() {
    // columns a, b and c = a + b, y = 2a + 1: every w with w_a + w_c = 2 and w_b + w_c = 0 fits
    // exactly; the minimum-norm one is w = (2 − t, −t, t) with t = 2/3.
    let a = [0.0, 1.1, 2.3, 3.7, 5.0, 0.4];
    let b = [0.3, -1.7, 0.9, 2.2, -0.6, 1.3];
    let x: Vec<f64> = a.iter().zip(&b).flat_map(|(&a, &b)| [a, b, a + b]).collect();
    let y: Vec<f64> = a.iter().map(|v| 2.0 * v + 1.0).collect();
    let data = Dataset::new(x, vec!["a".into(), "b".into(), "c".into()], Target::Real(y), "y").unwrap();
    let family = RidgeFamily::linear(vec![1e-300, 1e-3]).unwrap();
    let check = |model: &RidgeModel| {
        let (w, want) = (model.weights().unwrap(), [4.0 / 3.0, -2.0 / 3.0, 2.0 / 3.0]);
        assert!(w.iter().zip(want).all(|(w, v)| (w - v).abs() < 1e-9) && (model.intercept() - 1.0).abs() < 1e-9, "{model:?}");
    };
    check(&family.fit_lambda(&data.all(), 0.0).unwrap());
    let Model::Ridge(tiny) = family.fit(&data.all(), 0).unwrap() else { panic!("not ridge") };
    check(&tiny);
    let path = family.fit_path(&data.all()).unwrap();
    let Model::Ridge(from_path) = path.model(0).unwrap() else { panic!("not ridge") };
    check(&from_path);
    // n < d (dual form): the same columns on 2 rows, λ = 0, stays finite and interpolates
    let two = data.view(&[1, 4]);
    let model = family.fit_lambda(&two, 0.0).unwrap();
    let fitted = model.predict(&two).unwrap();
    assert!(values(&fitted).iter().zip(two.gather_y()).all(|(p, y)| (p - y).abs() < 1e-9));
    // duplicated points make K singular: kernel ridge at λ = 0 is still finite and interpolates
    let kernel = RidgeFamily::kernel(vec![1.0], Kernel::rbf(1.0).unwrap(), false).unwrap();
    let doubled = data.view(&[0, 0, 1, 1, 2, 3, 4, 5]);
    let model = kernel.fit_lambda(&doubled, 0.0).unwrap();
    for (p, y) in values(&model.predict(&data.all()).unwrap()).iter().zip(data.all().gather_y()) {
        assert!((p - y).abs() < 1e-6, "{p} vs {y}");
    }
}

#[test]
fn merged_prediction_is_the_mean_of_member_predictions() {
    let data = random_data(50, 3, 7);
    let test = data.view(&[45, 46, 47, 48, 49]);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(8);
    // overlapping training sets, as Monte-Carlo splits have
    let sets: Vec<Vec<usize>> = (0..5).map(|_| (0..45).filter(|_| rng.random_range(0.0..1.0) < 0.8).collect()).collect();
    for family in families() {
        let members: Vec<RidgeModel> = sets
            .iter()
            .enumerate()
            .map(|(j, rows)| match family.fit(&data.view(rows), j + 3).unwrap() {
                Model::Ridge(m) => m,
                _ => unreachable!(),
            })
            .collect();
        let merged = RidgeModel::merge_mean(&members.iter().collect::<Vec<_>>()).unwrap();
        let predictions: Vec<Predictions> = members.iter().map(|m| m.predict(&test).unwrap()).collect();
        let mean = crate::select::aggregate(&predictions, &[], crate::select::Aggregation::Mean).unwrap();
        for (a, b) in values(&merged.predict(&test).unwrap()).iter().zip(values(&mean)) {
            assert!((a - b).abs() <= 1e-12 * (1.0 + b.abs()), "{}: {a} vs {b}", family.name());
        }
        if let Some(dual) = merged.dual() {
            // the union holds each of the 45 candidate rows at most once
            assert!(dual.len() <= 45);
        }
    }
}

#[test]
fn merge_refuses_mixed_members() {
    let data = random_data(20, 2, 9);
    let linear = RidgeFamily::linear(vec![1.0]).unwrap().fit_lambda(&data.all(), 1.0).unwrap();
    let rbf = RidgeFamily::kernel(vec![1.0], Kernel::rbf(1.0).unwrap(), false).unwrap().fit_lambda(&data.all(), 1.0).unwrap();
    let rbf2 = RidgeFamily::kernel(vec![1.0], Kernel::rbf(2.0).unwrap(), false).unwrap().fit_lambda(&data.all(), 1.0).unwrap();
    assert!(matches!(RidgeModel::merge_mean(&[]), Err(Error::InvalidParameter { .. })));
    assert!(matches!(RidgeModel::merge_mean(&[&linear, &rbf]), Err(Error::Unsupported { .. })));
    assert!(matches!(RidgeModel::merge_mean(&[&rbf, &linear]), Err(Error::Unsupported { .. })));
    assert!(matches!(RidgeModel::merge_mean(&[&rbf, &rbf2]), Err(Error::Unsupported { .. })));
    let other = RidgeFamily::linear(vec![1.0]).unwrap().fit_lambda(&random_data(20, 3, 9).all(), 1.0).unwrap();
    assert!(matches!(RidgeModel::merge_mean(&[&linear, &other]), Err(Error::SchemaMismatch(_))));
    assert_eq!(RidgeModel::merge_mean(&[&linear]).unwrap(), linear);
}

/// Reference values from scikit-learn (`bench/peers/ridge_reference.py`; library versions in the
/// file's `source`). Tolerance 1e-9 relative: both sides solve well-conditioned small systems.
mod sklearn {
    use super::*;
    use serde_json::Value;

    fn golden() -> Value {
        serde_json::from_str(include_str!("../../../tests/golden/ridge_sklearn.json")).unwrap()
    }
    fn floats(v: &Value) -> Vec<f64> {
        v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect()
    }
    fn close(ours: &[f64], theirs: &[f64], what: &str) {
        assert_eq!(ours.len(), theirs.len(), "{what}");
        for (a, b) in ours.iter().zip(theirs) {
            assert!((a - b).abs() <= 1e-9 * (1.0 + b.abs()), "{what}: {a} vs {b}");
        }
    }
    /// Training rows 0..15, test rows 15..20.
    fn data(g: &Value) -> Dataset {
        let rows: Vec<Vec<f64>> = g["x_train"].as_array().unwrap().iter().chain(g["x_test"].as_array().unwrap()).map(floats).collect();
        let mut y = floats(&g["y_train"]);
        y.resize(rows.len(), 0.0);
        Dataset::new(rows.concat(), vec!["a".into(), "b".into(), "c".into()], Target::Real(y), "y").unwrap()
    }

    #[test]
    fn ridge_matches_scikit_learn() {
        let g = golden();
        let data = data(&g);
        let (train, test): (Vec<usize>, Vec<usize>) = ((0..15).collect(), (15..20).collect());
        let cases = g["ridge"].as_array().unwrap();
        let family = RidgeFamily::linear(cases.iter().map(|c| c["lambda"].as_f64().unwrap()).collect()).unwrap();
        let path = family.fit_path(&data.view(&train)).unwrap();
        let predicted = path.predict(&data.view(&test)).unwrap();
        for (m, case) in cases.iter().enumerate() {
            let Model::Ridge(model) = path.model(m).unwrap() else { panic!("not ridge") };
            close(model.weights().unwrap(), &floats(&case["weights"]), "weights");
            close(&[model.intercept()], &[case["intercept"].as_f64().unwrap()], "intercept");
            close(values(&predicted[m]), &floats(&case["predictions"]), "path predictions");
        }
        let loo = &g["ridge_loo"];
        let family = RidgeFamily::linear(floats(&loo["lambdas"])).unwrap();
        let smoother = family.linear_smoother(&data.view(&train)).unwrap().unwrap();
        close(&closed_form_loo(&smoother, &data.view(&train).gather_y()), &floats(&loo["mean_squared_loo"]), "RidgeCV LOO");
    }

    #[test]
    fn kernel_ridge_matches_scikit_learn() {
        let g = golden();
        let data = data(&g);
        let (train, test): (Vec<usize>, Vec<usize>) = ((0..15).collect(), (15..20).collect());
        for case in g["kernel_ridge"].as_array().unwrap() {
            let name = case["kernel"].as_str().unwrap();
            let kernel = match name {
                "rbf" => Kernel::rbf(case["gamma"].as_f64().unwrap()).unwrap(),
                "poly" => Kernel::polynomial(case["gamma"].as_f64().unwrap(), case["coef0"].as_f64().unwrap(), 3).unwrap(),
                _ => Kernel::linear(),
            };
            let lambda = case["lambda"].as_f64().unwrap();
            let family = RidgeFamily::kernel(vec![lambda], kernel, false).unwrap();
            let path = family.fit_path(&data.view(&train)).unwrap();
            let Model::Ridge(model) = path.model(0).unwrap() else { panic!("not ridge") };
            close(model.dual().unwrap(), &floats(&case["dual"]), &format!("{name} λ={lambda} dual"));
            close(values(&path.predict(&data.view(&test)).unwrap()[0]), &floats(&case["predictions"]), &format!("{name} λ={lambda}"));
            let slow = family.fit_lambda(&data.view(&train), lambda).unwrap().predict(&data.view(&test)).unwrap();
            close(values(&slow), &floats(&case["predictions"]), &format!("{name} λ={lambda} direct"));
        }
    }
}

#[test]
fn build_parses_parameters_and_refuses_bad_ones() {
    let data = random_data(30, 3, 10);
    let p = |pairs: &[(&str, &str)]| pairs.iter().fold(FamilyParams::default(), |p, (k, v)| p.set(k, v));
    let family = build_kernel_ridge(&p(&[("kernel", "rbf"), ("gamma", "0.5")]), &data).unwrap();
    assert_eq!((family.name(), family.grid().len(), family.grid().name()), ("kernel-ridge", DEFAULT_GRID_LEN, "lambda"));
    assert!(family.grid().larger_is_simpler() && family.grid().scale() == Scale::Log);
    assert!(build_kernel_ridge(&p(&[("kernel", "poly"), ("degree", "2"), ("coef0", "0"), ("intercept", "true")]), &data).is_ok());
    assert!(build_kernel_ridge(&p(&[("kernel", "linear")]), &data).is_ok());
    let ridge = build_ridge(&FamilyParams::with_grid(GridSpec::parse("0.1,1,10").unwrap()), &data).unwrap();
    assert_eq!((ridge.name(), ridge.grid().values()), ("ridge", &[0.1, 1.0, 10.0][..]));
    let invalid = |r: Result<Box<dyn Family>>, name: &str| match r {
        Err(Error::InvalidParameter { name: got, .. }) => assert_eq!(got, name),
        Err(other) => panic!("expected InvalidParameter `{name}`, got {other:?}"),
        Ok(_) => panic!("expected InvalidParameter `{name}`"),
    };
    invalid(build_kernel_ridge(&p(&[("gamma", "0")]), &data), "gamma");
    invalid(build_kernel_ridge(&p(&[("gamma", "-1")]), &data), "gamma");
    invalid(build_kernel_ridge(&p(&[("gamma", "abc")]), &data), "gamma");
    invalid(build_kernel_ridge(&p(&[("kernel", "sigmoid")]), &data), "kernel");
    invalid(build_kernel_ridge(&p(&[("kernel", "linear"), ("gamma", "1")]), &data), "gamma");
    invalid(build_kernel_ridge(&p(&[("degree", "2")]), &data), "degree");
    invalid(build_kernel_ridge(&p(&[("intercept", "yes")]), &data), "intercept");
    invalid(build_kernel_ridge(&p(&[("gama", "1")]), &data), "param");
    invalid(build_ridge(&p(&[("alpha", "1")]), &data), "param");
    invalid(build_ridge(&FamilyParams::with_grid(GridSpec::Values(vec![0.0, 1.0])), &data), "grid");
    // classification data
    let classes = Dataset::new(
        vec![0.0, 1.0, 2.0, 3.0],
        vec!["x".into()],
        Target::Classes { labels: vec![0, 1, 0, 1], names: vec!["a".into(), "b".into()] },
        "y",
    )
    .unwrap();
    assert!(matches!(build_ridge(&FamilyParams::default(), &classes), Err(Error::TaskMismatch(_))));
    assert!(matches!(build_kernel_ridge(&FamilyParams::default(), &classes), Err(Error::TaskMismatch(_))));
    let family = RidgeFamily::linear(vec![1.0]).unwrap();
    assert!(matches!(family.fit_path(&classes.all()), Err(Error::TaskMismatch(_))));
    assert!(matches!(family.fit_lambda(&data.all(), -1.0), Err(Error::InvalidParameter { name: "lambda", .. })));
    assert!(matches!(family.fit_path(&data.view(&[])), Err(Error::TooFewRows { .. })));
    assert!(family.check_train_size(0).is_err() && family.check_train_size(1).is_ok());
    assert!(family.check_train_size(MAX_KERNEL_ROWS + 1).is_ok());
    let kernel = RidgeFamily::kernel(vec![1.0], Kernel::linear(), false).unwrap();
    assert!(matches!(kernel.check_train_size(MAX_KERNEL_ROWS + 1), Err(Error::Unsupported { .. })));
}

#[test]
fn default_grid_spans_the_spectrum() {
    // trace of the centred normal matrix: x = 0, 1, 2, 3 → Σ (x − 1.5)² = 5
    let data = Dataset::new(vec![0.0, 1.0, 2.0, 3.0], vec!["x".into()], Target::Real(vec![1.0, 0.0, 2.0, 1.0]), "y").unwrap();
    let family = build_ridge(&FamilyParams::default(), &data).unwrap();
    let grid = family.grid().values();
    assert_eq!(grid.len(), 50);
    assert!((grid[0] - 5e-6).abs() < 1e-18 && (grid[49] - 50.0).abs() < 1e-12);
    assert!(grid.windows(2).all(|w| w[0] < w[1]));
    // rbf: k(x, x) = 1, trace = n = 4
    let family = build_kernel_ridge(&FamilyParams::default(), &data).unwrap();
    assert!((family.grid().values()[49] - 40.0).abs() < 1e-12);
}

#[test]
fn non_finite_features_and_schema_mismatch_are_errors() {
    let data = random_data(10, 2, 11);
    let mut x = data.x().to_vec();
    x[5] = f64::NAN; // a missing value that no imputation removed
    let bad = Dataset::new_with_missing(x, vec!["x0".into(), "x1".into()], data.target().clone(), "y").unwrap();
    let family = RidgeFamily::linear(vec![1.0]).unwrap();
    assert!(matches!(family.fit_path(&bad.all()), Err(Error::NonFinite { row: 2, .. })));
    let path = family.fit_path(&data.all()).unwrap();
    assert!(matches!(path.predict(&bad.all()), Err(Error::NonFinite { row: 2, .. })));
    let model = RidgeFamily::linear(vec![1.0]).unwrap().fit_lambda(&data.all(), 1.0).unwrap();
    assert!(matches!(model.predict(&random_data(5, 3, 1).all()), Err(Error::SchemaMismatch(_))));
}

#[test]
fn models_round_trip_through_json() {
    let data = random_data(20, 2, 12);
    for family in families() {
        let model = family.fit(&data.all(), 4).unwrap();
        let text = serde_json::to_string(&model).unwrap();
        let back: Model = serde_json::from_str(&text).unwrap();
        assert_eq!(back, model);
    }
}

#[test]
fn agghoo_through_select_equals_the_merged_model() {
    use crate::resample::{MonteCarlo, Plan, PlanContext};
    use crate::select::{Method, SelectConfig, select};
    let data = random_data(120, 4, 13);
    for kind in [crate::family::FamilyKind::Ridge, crate::family::FamilyKind::KernelRidge] {
        // A fixed γ (here `auto`): every member has the same kernel, so the members merge.
        let mut params = FamilyParams::with_grid(GridSpec::parse("log:0.001:1000:15").unwrap());
        if kind == crate::family::FamilyKind::KernelRidge {
            params = params.set("gamma", "auto");
        }
        let family = crate::family::build(kind, &params, &data).unwrap();
        let splits = Plan::MonteCarlo(MonteCarlo::new(10, 0.8).unwrap()).instantiate(&PlanContext::of(&data), crate::Seed(1)).unwrap();
        let (fitted, _) = select(family.as_ref(), &data, &splits, &SelectConfig::new(Method::Agghoo)).unwrap();
        let members: Vec<&RidgeModel> = fitted
            .members()
            .iter()
            .map(|m| match &m.model {
                Model::Ridge(r) => r,
                other => panic!("not ridge: {other:?}"),
            })
            .collect();
        let merged = RidgeModel::merge_mean(&members).unwrap();
        let want = fitted.predict(&data).unwrap();
        for (a, b) in values(&merged.predict(&data.all()).unwrap()).iter().zip(values(&want)) {
            assert!((a - b).abs() <= 1e-12 * (1.0 + b.abs()), "{kind:?}: {a} vs {b}");
        }
    }
}

/// With γ = `scale` (the default) each member's kernel has the γ of its own training set: the
/// members are not merged into one expansion, and the model predicts their mean.
#[test]
fn kernel_ridge_members_with_their_own_gamma_predict_their_mean() {
    use crate::resample::{MonteCarlo, Plan, PlanContext};
    use crate::select::{Method, SelectConfig, select};
    let data = random_data(120, 4, 13);
    let family = crate::family::build(crate::family::FamilyKind::KernelRidge, &FamilyParams::default(), &data).unwrap();
    let splits = Plan::MonteCarlo(MonteCarlo::new(5, 0.8).unwrap()).instantiate(&PlanContext::of(&data), crate::Seed(1)).unwrap();
    let (fitted, _) = select(family.as_ref(), &data, &splits, &SelectConfig::new(Method::Agghoo)).unwrap();
    assert!(!fitted.is_merged());
    let gammas: Vec<Kernel> = fitted
        .members()
        .iter()
        .map(|m| match &m.model {
            Model::Ridge(r) => *r.kernel_function().unwrap(),
            other => panic!("not ridge: {other:?}"),
        })
        .collect();
    assert!(gammas.windows(2).any(|w| w[0] != w[1]), "{gammas:?}");
    let mut mean = vec![0.0; data.n_rows()];
    for m in fitted.members() {
        for (s, v) in mean.iter_mut().zip(values(&m.model.predict(&data.all()).unwrap())) {
            *s += v / fitted.members().len() as f64;
        }
    }
    for (a, b) in values(&fitted.predict(&data).unwrap()).iter().zip(&mean) {
        assert!((a - b).abs() <= 1e-12 * (1.0 + b.abs()), "{a} vs {b}");
    }
}

#[test]
fn results_are_bit_identical_for_any_thread_count() {
    let data = random_data(150, 6, 14);
    let rows: Vec<usize> = (0..150).collect();
    let (train, val) = (data.view(&rows[..120]), data.view(&rows[120..]));
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| families().iter().map(|f| f.fit_path(&train).unwrap().predict(&val).unwrap()).collect::<Vec<_>>())
    };
    assert_eq!(run(1), run(3));
}
