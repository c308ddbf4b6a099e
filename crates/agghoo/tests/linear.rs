//! Lasso / elastic net and logistic regression: agreement with scikit-learn, KKT conditions,
//! merging, typed errors.
//!
//! Reference values: `tests/golden/linear_reference.json`, printed by
//! `bench/peers/linear_reference.py` (scikit-learn 1.9.1, numpy 2.4.6) with solver tolerances
//! 1e-12 (coordinate descent, saga for the L1 logistic) and 1e-10 (lbfgs), so they are exact to
//! ~1e-8. Our solvers run at
//! tol 1e-14 (Lasso) and 1e-10 (logistic); the tests allow 1e-6 (coefficients, probabilities) on
//! data of unit scale: both sides' stopping errors plus the conditioning of the problem.

use agghoo::Error;
use agghoo::Predictions;
use agghoo::data::{Dataset, Target};
use agghoo::family::lasso::LassoModel;
use agghoo::family::logistic::LogisticModel;
use agghoo::family::{self, Family, FamilyKind, FamilyParams, GridSpec, Model, Predictor};
use agghoo::names::Named;
use serde_json::Value;

fn golden() -> Value {
    serde_json::from_str(include_str!("golden/linear_reference.json")).expect("golden JSON")
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array().expect("array").iter().map(|x| x.as_f64().expect("number")).collect()
}

fn regression_data(g: &Value) -> Dataset {
    let r = &g["regression"];
    let d = r["d"].as_u64().unwrap() as usize;
    Dataset::new(floats(&r["x"]), (0..d).map(|j| format!("x{j}")).collect(), Target::Real(floats(&r["y"])), "y").unwrap()
}

fn classification_data(g: &Value, problem: &Value) -> Dataset {
    let c = &g["classification"];
    let d = c["d"].as_u64().unwrap() as usize;
    let labels: Vec<u32> = problem["labels"].as_array().unwrap().iter().map(|l| l.as_u64().unwrap() as u32).collect();
    let k = labels.iter().max().unwrap() + 1;
    let names = (0..k).map(|c| format!("class{c}")).collect();
    Dataset::new(floats(&c["x"]), (0..d).map(|j| format!("x{j}")).collect(), Target::Classes { labels, names }, "y").unwrap()
}

fn lasso(model: Model) -> LassoModel {
    match model {
        Model::Lasso(m) => m,
        other => panic!("not a Lasso model: {other:?}"),
    }
}

fn logistic(model: Model) -> LogisticModel {
    match model {
        Model::Logistic(m) => m,
        other => panic!("not a logistic model: {other:?}"),
    }
}

fn assert_close(a: &[f64], b: &[f64], tol: f64, what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: lengths");
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!((x - y).abs() <= tol, "{what}[{i}]: {x} vs {y}");
    }
}

#[test]
fn lasso_and_enet_paths_agree_with_sklearn() {
    let g = golden();
    let data = regression_data(&g);
    for path in g["regression"]["paths"].as_array().unwrap() {
        let rho = path["l1_ratio"].as_f64().unwrap();
        let entries = path["path"].as_array().unwrap();
        let lambdas: Vec<f64> = entries.iter().map(|e| e["lambda"].as_f64().unwrap()).collect();
        let params = FamilyParams::with_grid(GridSpec::Values(lambdas.clone())).set("l1_ratio", rho).set("tol", 1e-14);
        let fam = family::build(FamilyKind::Enet, &params, &data).unwrap();
        let fitted = fam.fit_path(&data.all()).unwrap();
        for entry in entries {
            let lambda = entry["lambda"].as_f64().unwrap();
            let m = fam.grid().nearest(lambda);
            assert!((fam.grid().value(m) - lambda).abs() < 1e-15 * lambda);
            let want = floats(&entry["coefficients"]);
            let what = format!("rho {rho}, lambda {lambda}");
            for model in [lasso(fitted.model(m).unwrap()), lasso(fam.fit(&data.all(), m).unwrap())] {
                assert_close(model.coefficients(), &want, 1e-6, &what);
                assert!((model.intercept() - entry["intercept"].as_f64().unwrap()).abs() < 1e-6, "{what}: intercept");
                let support: Vec<usize> = (0..want.len()).filter(|&j| want[j] != 0.0).collect();
                assert_eq!(model.support(), support, "{what}: support");
            }
        }
    }
}

#[test]
fn logistic_agrees_with_sklearn_with_c_equal_one_over_n_lambda() {
    let g = golden();
    for problem in g["classification"]["problems"].as_array().unwrap() {
        let data = classification_data(&g, problem);
        let fits = problem["fits"].as_array().unwrap();
        let lambdas: Vec<f64> = fits.iter().map(|f| f["lambda"].as_f64().unwrap()).collect();
        let penalty = problem.get("penalty").and_then(Value::as_str).unwrap_or("l2");
        let params = FamilyParams::with_grid(GridSpec::Values(lambdas)).set("tol", 1e-10).set("penalty", penalty);
        let fam = family::build(FamilyKind::Logistic, &params, &data).unwrap();
        let fitted = fam.fit_path(&data.all()).unwrap();
        for fit in fits {
            let lambda = fit["lambda"].as_f64().unwrap();
            assert!((fit["C"].as_f64().unwrap() - 1.0 / (data.n_rows() as f64 * lambda)).abs() < 1e-12);
            let m = fam.grid().nearest(lambda);
            let what = format!("{} lambda {lambda}", problem["name"]);
            for model in [fitted.model(m).unwrap(), fam.fit(&data.all(), m).unwrap()] {
                let coefficients = logistic(model.clone()).coefficients().to_vec();
                assert_close(&coefficients, &floats(&fit["coefficients"]), 1e-6, &what);
                if penalty == "l1" {
                    // Exact zeros where scikit-learn has them.
                    let zeros = |w: &[f64]| w.iter().map(|v| *v == 0.0).collect::<Vec<_>>();
                    assert_eq!(zeros(&coefficients), zeros(&floats(&fit["coefficients"])), "{what}: support");
                }
                let Predictions::Classes { proba: Some(proba), .. } = model.predict(&data.all()).unwrap() else { panic!("no proba") };
                assert_close(&proba, &floats(&fit["proba"]), 1e-6, &what);
            }
        }
    }
}

/// agghoo's logistic objective `(1/n) Σ [log Σ_k e^{z_ik} − z_{i,y_i}] + (λ/2)‖W‖²` of `model`
/// on `x` (row-major, `d` columns) and `labels` (two classes: one weight vector, class 0's logit 0).
fn logistic_objective(model: &LogisticModel, x: &[f64], d: usize, labels: &[u32]) -> f64 {
    let (w, b) = (model.coefficients(), model.intercepts());
    let mut loss = 0.0;
    for (row, &y) in x.chunks_exact(d).zip(labels) {
        let mut z: Vec<f64> =
            b.iter().enumerate().map(|(k, bk)| bk + row.iter().zip(&w[k * d..(k + 1) * d]).map(|(a, c)| a * c).sum::<f64>()).collect();
        if z.len() == 1 {
            z.insert(0, 0.0);
        }
        let top = z.iter().fold(f64::NEG_INFINITY, |m, v| m.max(*v));
        loss += top + z.iter().map(|v| (v - top).exp()).sum::<f64>().ln() - z[y as usize];
    }
    loss / labels.len() as f64 + 0.5 * model.lambda() * w.iter().map(|v| v * v).sum::<f64>()
}

/// Features whose scales span five decades (population and income ~10⁵ next to a ±1.5 score and
/// one-hot columns), not standardised: the path and a cold fit reach scikit-learn's
/// `newton-cholesky` objective within 10⁻⁶ relative at the default tolerance, each solve within
/// 300 iterations (unpreconditioned L-BFGS took thousands, or never converged, on such tables).
/// Reference: `tests/golden/logistic_unscaled.json`, from `bench/peers/logistic_unscaled_reference.py`.
#[test]
fn logistic_on_unscaled_features_reaches_the_newton_objective() {
    let g: Value = serde_json::from_str(include_str!("golden/logistic_unscaled.json")).expect("golden JSON");
    let d = g["d"].as_u64().unwrap() as usize;
    let x = floats(&g["x"]);
    for problem in g["problems"].as_array().unwrap() {
        let labels: Vec<u32> = problem["labels"].as_array().unwrap().iter().map(|l| l.as_u64().unwrap() as u32).collect();
        let k = labels.iter().max().unwrap() + 1;
        let names = (0..k).map(|c| format!("class{c}")).collect();
        let target = Target::Classes { labels: labels.clone(), names };
        let data = Dataset::new(x.clone(), (0..d).map(|j| format!("x{j}")).collect(), target, "y").unwrap();
        let fits = problem["fits"].as_array().unwrap();
        let lambdas: Vec<f64> = fits.iter().map(|f| f["lambda"].as_f64().unwrap()).collect();
        let params = FamilyParams::with_grid(GridSpec::Values(lambdas)).set("max_iter", 300);
        let fam = family::build(FamilyKind::Logistic, &params, &data).unwrap();
        let fitted = fam.fit_path(&data.all()).unwrap_or_else(|e| panic!("{}: {e}", problem["name"]));
        for fit in fits {
            let lambda = fit["lambda"].as_f64().unwrap();
            let m = fam.grid().nearest(lambda);
            let reference = fit["objective"].as_f64().unwrap();
            for (how, model) in [("path", fitted.model(m).unwrap()), ("cold fit", fam.fit(&data.all(), m).unwrap())] {
                let ours = logistic_objective(&logistic(model), &x, d, &labels);
                assert!(
                    (ours - reference).abs() <= 1e-6 * reference,
                    "{} lambda {lambda} ({how}): objective {ours} vs scikit-learn's {reference}",
                    problem["name"]
                );
            }
        }
    }
}

/// Stationarity of `(1/(2n))‖y − Xw − b‖² + λ(ρ‖w‖₁ + (1−ρ)/2‖w‖²)` with `g_j = x_jᵀ r / n`:
/// `|g_j| ≤ λρ` where `w_j = 0`, `g_j − λ(1−ρ)w_j = λρ sign(w_j)` elsewhere; `Σ r = 0`.
#[test]
fn kkt_conditions_hold_along_the_default_path() {
    let data = regression_data(&golden());
    let (n, d) = (data.n_rows(), data.n_features());
    for (kind, rho) in [(FamilyKind::Lasso, 1.0), (FamilyKind::Enet, 0.5)] {
        let fam = family::build(kind, &FamilyParams::default().set("tol", 1e-14), &data).unwrap();
        assert_eq!(fam.grid().len(), 100);
        let fitted = fam.fit_path(&data.all()).unwrap();
        let mut supports = Vec::new();
        for m in 0..fam.grid().len() {
            let lambda = fam.grid().value(m);
            let model = lasso(fitted.model(m).unwrap());
            let pred = model.predict(&data.all()).unwrap();
            let r: Vec<f64> = (0..n).map(|i| data.target().value(i) - pred.values().unwrap()[i]).collect();
            assert!(r.iter().sum::<f64>().abs() < 1e-9, "intercept condition");
            for j in 0..d {
                let gj = (0..n).map(|i| data.row(i)[j] * r[i]).sum::<f64>() / n as f64;
                let w = model.coefficients()[j];
                let scale = 1e-6 * lambda.max(1e-3);
                if w == 0.0 {
                    assert!(gj.abs() <= lambda * rho + scale, "{kind:?} m {m} j {j}: |g| = {} > λρ = {}", gj.abs(), lambda * rho);
                } else {
                    let lhs = gj - lambda * (1.0 - rho) * w;
                    assert!(
                        (lhs - lambda * rho * w.signum()).abs() <= scale,
                        "{kind:?} m {m} j {j}: {lhs} vs {}",
                        lambda * rho * w.signum()
                    );
                }
            }
            supports.push(model.support().len());
        }
        // The largest λ is λ_max of these data: nothing selected; the smallest selects something.
        assert_eq!(supports[99], 0);
        assert!(supports[0] >= 3);
    }
}

#[test]
fn merged_model_predicts_the_mean_of_its_members() {
    let data = regression_data(&golden());
    let fam = family::build(FamilyKind::Lasso, &FamilyParams::default(), &data).unwrap();
    let halves: [Vec<usize>; 2] = [(0..40).filter(|i| i % 2 == 0).collect(), (0..40).filter(|i| i % 2 == 1).collect()];
    let members: Vec<LassoModel> = halves.iter().map(|rows| lasso(fam.fit(&data.view(rows), 60).unwrap())).collect();
    let merged = LassoModel::merge_mean(&[&members[0], &members[1]]).unwrap();
    let p: Vec<Vec<f64>> = members.iter().map(|m| m.predict(&data.all()).unwrap().values().unwrap().to_vec()).collect();
    let q = merged.predict(&data.all()).unwrap();
    for (i, v) in q.values().unwrap().iter().enumerate() {
        assert!((v - (p[0][i] + p[1][i]) / 2.0).abs() < 1e-12);
    }
    // The model file format: a fitted model survives a JSON round trip.
    let model = Model::Lasso(merged);
    let back: Model = serde_json::from_str(&serde_json::to_string(&model).unwrap()).unwrap();
    assert_eq!(back, model);
}

fn classes(labels: Vec<u32>, k: usize) -> Dataset {
    let n = labels.len();
    let names = (0..k).map(|c| ["cat", "dog", "eel"][c].to_string()).collect();
    Dataset::new((0..n).map(|i| i as f64).collect(), vec!["x".into()], Target::Classes { labels, names }, "animal").unwrap()
}

#[test]
fn typed_errors_name_the_culprit() {
    let reg = regression_data(&golden());
    let cls = classes(vec![0, 1, 0, 1, 1, 0], 2);
    let none = FamilyParams::default();
    for kind in [FamilyKind::Lasso, FamilyKind::Enet] {
        assert!(matches!(family::build(kind, &none, &cls), Err(Error::TaskMismatch(_))));
        for bad in ["1.5", "-0.1", "NaN"] {
            let err = family::build(kind, &none.clone().set("l1_ratio", bad), &reg).err().expect("bad l1_ratio");
            assert!(matches!(err, Error::InvalidParameter { name: "l1_ratio", .. }), "{err}");
        }
        let err = family::build(kind, &none.clone().set("alpha", 1), &reg).err().expect("unknown param");
        assert!(err.to_string().contains("`alpha`"), "{err}");
        let err = family::build(kind, &none.clone().set("precompute", "maybe"), &reg).err().expect("bad precompute");
        assert!(matches!(err, Error::InvalidParameter { name: "precompute", .. }));
    }
    assert!(matches!(family::build(FamilyKind::Logistic, &none, &reg), Err(Error::TaskMismatch(_))));
    let err = family::build(FamilyKind::Logistic, &none.clone().set("l1_ratio", 0.5), &cls).err().expect("unknown param");
    assert!(err.to_string().contains("`l1_ratio`"), "{err}");
    let three = classes(vec![0, 1, 2, 0, 1, 2], 3);
    assert!(family::build(FamilyKind::Logistic, &none.clone().set("penalty", "l1"), &three).is_ok());
    assert!(family::build(FamilyKind::Logistic, &none.clone().set("penalty", "l1"), &cls).is_ok());
    let err = family::build(FamilyKind::Logistic, &none.clone().set("penalty", "elastic"), &cls).err().expect("bad penalty");
    assert!(matches!(err, Error::InvalidParameter { name: "penalty", .. }));
    // One class only in a training set: the error names the class.
    let fam = family::build(FamilyKind::Logistic, &none, &cls).unwrap();
    let only_dogs = [1usize, 3, 4];
    for result in [fam.fit(&cls.view(&only_dogs), 0).map(|_| ()), fam.fit_path(&cls.view(&only_dogs)).map(|_| ())] {
        let err = result.expect_err("one class");
        assert!(matches!(&err, Error::ConstantTarget { value, .. } if value == "dog"), "{err}");
    }
    // A model refuses data with another number of features.
    let lasso_fam = family::build(FamilyKind::Lasso, &none, &reg).unwrap();
    let model = lasso_fam.fit(&reg.all(), 50).unwrap();
    assert!(matches!(model.predict(&cls.all()), Err(Error::SchemaMismatch(_))));
}

#[test]
fn grids_are_named_lambda_on_a_log_scale_with_larger_simpler() {
    let reg = regression_data(&golden());
    let cls = classes(vec![0, 1, 0, 1, 1, 0], 2);
    for fam in [
        family::build(FamilyKind::Lasso, &FamilyParams::default(), &reg).unwrap(),
        family::build(FamilyKind::Enet, &FamilyParams::default(), &reg).unwrap(),
        family::build(FamilyKind::Logistic, &FamilyParams::default(), &cls).unwrap(),
    ] {
        let grid = fam.grid();
        assert_eq!(grid.name(), "lambda");
        assert_eq!(grid.scale(), family::Scale::Log);
        assert!(grid.larger_is_simpler());
        assert!(grid.values().windows(2).all(|w| w[0] < w[1]));
    }
    // λ_max ρ = max_j |x_jᵀ(y − ȳ)| / n: for the Lasso the top of the default grid.
    let n = reg.n_rows() as f64;
    let ybar = (0..reg.n_rows()).map(|i| reg.target().value(i)).sum::<f64>() / n;
    let lambda_max = (0..reg.n_features())
        .map(|j| {
            let xbar = (0..reg.n_rows()).map(|i| reg.row(i)[j]).sum::<f64>() / n;
            ((0..reg.n_rows()).map(|i| (reg.row(i)[j] - xbar) * (reg.target().value(i) - ybar)).sum::<f64>() / n).abs()
        })
        .fold(0.0, f64::max);
    let fam = family::build(FamilyKind::Lasso, &FamilyParams::default(), &reg).unwrap();
    assert!((fam.grid().values()[99] - lambda_max).abs() < 1e-12 * lambda_max);
    assert!((fam.grid().values()[0] - 1e-3 * lambda_max).abs() < 1e-12 * lambda_max);
    let _: &dyn Family = fam.as_ref();
}

/// The families run through every selection procedure (paths, `fit_value` for EKCV, aggregation
/// of regression values and of class scores) and give finite predictions.
#[test]
fn every_procedure_runs_on_both_families() {
    use agghoo::Seed;
    use agghoo::resample::{MonteCarlo, Plan, PlanContext};
    use agghoo::select::{self, Method, SelectConfig};
    let g = golden();
    let reg = regression_data(&g);
    let cls = classification_data(&g, &g["classification"]["problems"][0]);
    for (data, kind) in [(&reg, FamilyKind::Lasso), (&reg, FamilyKind::Enet), (&cls, FamilyKind::Logistic)] {
        let fam = family::build(kind, &FamilyParams::default(), data).unwrap();
        let splits = Plan::MonteCarlo(MonteCarlo::new(5, 0.8).unwrap()).instantiate(&PlanContext::of(data), Seed(3)).unwrap();
        for &(method, _, _) in Method::CHOICES {
            if method == Method::Majhoo && kind != FamilyKind::Logistic {
                continue;
            }
            let (model, _report) = select::select(fam.as_ref(), data, &splits, &SelectConfig::new(method))
                .unwrap_or_else(|e| panic!("{kind:?} {method:?}: {e}"));
            let p = model.predict(data).unwrap();
            assert_eq!(p.len(), data.n_rows());
            assert!(!p.has_non_finite(), "{kind:?} {method:?}");
        }
    }
}
