// Index loops over rows read like the formulas they check.
#![allow(clippy::needless_range_loop)]

use super::*;
use crate::data::Target;
use crate::data::generators::svr_problem;
use crate::family::{FamilyKind, GridSpec};
use crate::seed::{Purpose, Seed};
use rand::RngExt;

/// Two Gaussian blobs in 2-D with overlapping classes.
fn blobs(n: usize, seed: u64) -> Dataset {
    let mut rng = Seed(seed).rng(Purpose::Data, 0);
    let mut x = Vec::with_capacity(2 * n);
    let mut labels = Vec::with_capacity(n);
    for _ in 0..n {
        let c = u32::from(rng.random::<f64>() < 0.5);
        let shift = if c == 1 { 0.8 } else { -0.8 };
        x.push(shift + crate::data::generators::normal(&mut rng));
        x.push(crate::data::generators::normal(&mut rng));
        labels.push(c);
    }
    Dataset::new(x, vec!["a".into(), "b".into()], Target::Classes { labels, names: vec!["neg".into(), "pos".into()] }, "y").unwrap()
}

fn settings(gamma: f64, epsilon: f64, tol: f64) -> SvmSettings {
    SvmSettings { gamma, epsilon, tol, shrinking: true }
}

fn split(n: usize, n_train: usize) -> (Vec<usize>, Vec<usize>) {
    let rows: Vec<usize> = (0..n).collect();
    (rows[..n_train].to_vec(), rows[n_train..].to_vec())
}

/// The papers' λ grid on n_t rows.
fn paper_lambdas(n_t: usize) -> Vec<f64> {
    (1..=17).map(|j| 2f64.powi(j - 1) / (500.0 * n_t as f64)).collect()
}

/// LIBSVM's primal `½‖f‖² + C Σ_i loss(f(x_i) + b, y_i)` of a model on `train`.
fn primal(model: &SvmModel, train: &View<'_>, c: f64, epsilon: f64) -> f64 {
    let f = model.decision(train).unwrap();
    let n_sv = model.n_support();
    let mut norm = 0.0;
    for s in 0..n_sv {
        for t in 0..n_sv {
            norm += model.dual_coef()[s] * model.dual_coef()[t] * gaussian(model.support_vector(s), model.support_vector(t), model.gamma());
        }
    }
    let loss: f64 = (0..train.len())
        .map(|i| match model.kind() {
            SvmKind::Svc => (1.0 - if train.class(i) == 1 { f[i] } else { -f[i] }).max(0.0),
            SvmKind::Svr => ((train.y(i) - f[i]).abs() - epsilon).max(0.0),
        })
        .sum();
    0.5 * norm + c * loss
}

/// Fast path vs cold refit at every grid point. The function f is unique but the bias b need not
/// be (when few α are free, a whole interval of b is optimal and LIBSVM's rule picks one point of
/// it from the α at hand; warm and cold starts can reach different α). So we assert what is
/// unique: the kernel part `f − b` on the validation rows to `close · scale`, the primal
/// objective to `close` relative, and the full decision (labels for SVC) only where b agrees.
fn assert_path_equals_refit(fam: &SvmFamily, train: &View<'_>, val: &View<'_>, close: f64) {
    let path = fam.fit_path(train).unwrap();
    let fast = path.predict(val).unwrap();
    let mut bias_differs = 0;
    for m in 0..fam.grid().len() {
        let (Model::Svm(a), Model::Svm(b)) = (path.model(m).unwrap(), fam.fit(train, m).unwrap()) else { panic!() };
        // the path's predictions are its models' predictions
        assert_eq!(fast[m], a.predict(val).unwrap(), "grid {m}");
        let (da, db) = (a.decision(val).unwrap(), b.decision(val).unwrap());
        let scale = 1.0 + db.iter().fold(0.0f64, |s, v| s.max(v.abs()));
        for i in 0..da.len() {
            let (ka, kb) = (da[i] - a.bias(), db[i] - b.bias());
            assert!((ka - kb).abs() <= close * scale, "grid {m} row {i}: kernel part {ka} vs {kb}");
        }
        let c = fam.c_value(m, train.len());
        let (pa, pb) = (primal(&a, train, c, fam.settings.epsilon), primal(&b, train, c, fam.settings.epsilon));
        assert!((pa - pb).abs() <= close * pb.abs().max(1e-12), "grid {m}: primal {pa} vs {pb}");
        if (a.bias() - b.bias()).abs() > close * scale {
            bias_differs += 1;
            continue;
        }
        for i in 0..da.len() {
            assert!((da[i] - db[i]).abs() <= 2.0 * close * scale, "grid {m} row {i}: {} vs {}", da[i], db[i]);
        }
        if let (Some(la), Some(lb)) = (fast[m].labels(), b.predict(val).unwrap().labels()) {
            for i in 0..la.len() {
                // labels may differ only where the decision is within the solver's error of 0
                assert!(la[i] == lb[i] || db[i].abs() <= 2.0 * close * scale, "grid {m} row {i}: labels differ at {}", db[i]);
            }
        }
    }
    assert!(bias_differs <= fam.grid().len() / 4, "{bias_differs} grid points with another bias");
}

#[test]
fn svr_path_equals_cold_refit() {
    let data = svr_problem(200, Seed(1), 0).unwrap();
    let (tr, va) = split(200, 160);
    let (train, val) = (data.view(&tr), data.view(&va));
    // tight tolerance: the warm-started and the cold solutions are the same optimum
    let fam = SvmFamily::new(SvmKind::Svr, paper_lambdas(160), false, settings(2.0, 0.25, 1e-9)).unwrap();
    assert_path_equals_refit(&fam, &train, &val, 1e-6);
    // default tolerance: both stop within ε = 1e-3 of the optimum
    let fam = SvmFamily::new(SvmKind::Svr, paper_lambdas(160), false, settings(2.0, 0.25, 1e-3)).unwrap();
    assert_path_equals_refit(&fam, &train, &val, 1e-2);
}

#[test]
fn svc_path_equals_cold_refit() {
    let data = blobs(240, 2);
    let (tr, va) = split(240, 180);
    let (train, val) = (data.view(&tr), data.view(&va));
    for (tol, close) in [(1e-9, 1e-6), (1e-3, 1e-2)] {
        let fam = SvmFamily::new(SvmKind::Svc, paper_lambdas(180), false, settings(0.5, 0.0, tol)).unwrap();
        assert_path_equals_refit(&fam, &train, &val, close);
    }
}

#[test]
fn path_is_the_same_with_a_c_grid() {
    let data = svr_problem(120, Seed(4), 1).unwrap();
    let (tr, va) = split(120, 100);
    let lambdas = paper_lambdas(100);
    let cs: Vec<f64> = lambdas.iter().map(|l| 1.0 / (2.0 * l * 100.0)).collect();
    let by_l = SvmFamily::new(SvmKind::Svr, lambdas, false, settings(2.0, 0.25, 1e-9)).unwrap();
    let by_c = SvmFamily::new(SvmKind::Svr, cs, true, settings(2.0, 0.25, 1e-9)).unwrap();
    let a = by_l.fit_path(&data.view(&tr)).unwrap().predict(&data.view(&va)).unwrap();
    let b = by_c.fit_path(&data.view(&tr)).unwrap().predict(&data.view(&va)).unwrap();
    // grid order is ascending λ on one and ascending C on the other: reversed
    for (m, p) in a.iter().enumerate() {
        let q = &b[a.len() - 1 - m];
        for i in 0..p.len() {
            assert!((p.value(i) - q.value(i)).abs() < 1e-6);
        }
    }
    assert!((by_l.c_value(0, 100) - 250.0).abs() < 1e-9, "λ_1 = 1/(500 n_t) is C = 250");
}

/// KKT conditions of the primal at the solver's answer, in terms of the margins:
/// SVC `y f(x) ≥ 1` where β = 0, `≤ 1` where |β| = C, `= 1` between;
/// SVR `|y − f(x)| ≤ ε` where β = 0, `≥ ε` at the bound, `= ε` between (with the sign of β).
#[test]
fn kkt_conditions_hold_at_the_solution() {
    let tol = 1e-6;
    let slack = 1e-4;
    let data = blobs(150, 5);
    let fam = SvmFamily::new(SvmKind::Svc, vec![1e-3], false, settings(0.5, 0.0, tol)).unwrap();
    let all = data.all();
    let c = fam.c_value(0, all.len());
    let (points, problem) = fam.problem(&all).unwrap();
    let mut cache = KernelCache::new(points.clone());
    let sol = fam.solve(&problem, c, &mut cache, None).unwrap();
    let model = fam.model(&points, &problem, &sol);
    let f = model.decision(&all).unwrap();
    let (mut at_zero, mut free, mut at_c) = (0, 0, 0);
    for i in 0..all.len() {
        let yf = problem.y[i] * f[i];
        let a = sol.alpha[i];
        if a == 0.0 {
            at_zero += 1;
            assert!(yf >= 1.0 - slack, "row {i}: α = 0 but y f = {yf}");
        } else if a >= c {
            at_c += 1;
            assert!(yf <= 1.0 + slack, "row {i}: α = C but y f = {yf}");
        } else {
            free += 1;
            assert!((yf - 1.0).abs() <= slack, "row {i}: free α but y f = {yf}");
        }
    }
    assert!(at_zero > 0 && free > 0 && at_c > 0, "{at_zero} {free} {at_c}");
    let sum: f64 = sol.alpha.iter().zip(&problem.y).map(|(a, y)| a * y).sum();
    assert!(sum.abs() < 1e-9 * c, "yᵀα = {sum}");

    let data = svr_problem(150, Seed(6), 0).unwrap();
    let all = data.all();
    let eps = 0.25;
    let fam = SvmFamily::new(SvmKind::Svr, vec![1e-3], false, settings(2.0, eps, tol)).unwrap();
    let c = fam.c_value(0, all.len());
    let (points, problem) = fam.problem(&all).unwrap();
    let mut cache = KernelCache::new(points.clone());
    let sol = fam.solve(&problem, c, &mut cache, None).unwrap();
    let f = fam.model(&points, &problem, &sol).decision(&all).unwrap();
    let n = all.len();
    let (mut inside, mut on_tube, mut outside) = (0, 0, 0);
    for i in 0..n {
        let r = all.y(i) - f[i];
        let (ap, am) = (sol.alpha[i], sol.alpha[i + n]);
        assert!(ap == 0.0 || am == 0.0, "row {i}: α⁺ = {ap}, α⁻ = {am}");
        let (a, sign) = if ap > 0.0 { (ap, 1.0) } else { (am, -1.0) };
        if a == 0.0 {
            inside += 1;
            assert!(r.abs() <= eps + slack, "row {i}: β = 0 but |r| = {}", r.abs());
        } else if a >= c {
            outside += 1;
            assert!(sign * r >= eps - slack, "row {i}: at bound but r = {r}");
        } else {
            on_tube += 1;
            assert!((sign * r - eps).abs() <= slack, "row {i}: free but r = {r}");
        }
    }
    assert!(inside > 0 && on_tube > 0 && outside > 0, "{inside} {on_tube} {outside}");
}

#[test]
fn two_point_svc_matches_the_closed_form() {
    // x = 0 (class 0), x = 1 (class 1), γ = 1: k = e^{−1}; dual min α²(1 − k) − 2α gives
    // α = 1/(1 − k) when ≤ C, else α = C; b = 0 by symmetry; f(1) = α(1 − k).
    let data =
        Dataset::new(vec![0.0, 1.0], vec!["x".into()], Target::Classes { labels: vec![0, 1], names: vec!["a".into(), "b".into()] }, "y")
            .unwrap();
    let k = (-1.0f64).exp();
    for (c, alpha) in [(100.0, 1.0 / (1.0 - k)), (0.5, 0.5)] {
        let fam = SvmFamily::new(SvmKind::Svc, vec![c], true, settings(1.0, 0.0, 1e-12)).unwrap();
        let Model::Svm(m) = fam.fit(&data.all(), 0).unwrap() else { panic!() };
        let f = m.decision(&data.all()).unwrap();
        assert!((f[1] - alpha * (1.0 - k)).abs() < 1e-9, "C = {c}: {f:?}");
        assert!((f[0] + alpha * (1.0 - k)).abs() < 1e-9, "C = {c}: {f:?}");
        assert!(m.bias().abs() < 1e-9);
        assert_eq!(m.predict(&data.all()).unwrap().labels().unwrap(), [0, 1]);
    }
}

#[test]
fn lru_cache_gives_the_full_matrix_solution() {
    let data = svr_problem(150, Seed(8), 0).unwrap();
    let fam = SvmFamily::new(SvmKind::Svr, vec![1e-3], false, settings(2.0, 0.25, 1e-6)).unwrap();
    let all = data.all();
    let (points, problem) = fam.problem(&all).unwrap();
    let c = fam.c_value(0, all.len());
    let mut full = KernelCache::new(points.clone());
    let mut lru = KernelCache::with_limit(points.clone(), 0, 8 * 150 * 5); // 5 rows
    assert!(matches!(lru, KernelCache::Lru(_)));
    let a = fam.solve(&problem, c, &mut full, None).unwrap();
    let b = fam.solve(&problem, c, &mut lru, None).unwrap();
    assert_eq!(a.alpha, b.alpha, "the cache does not change the arithmetic");
    assert_eq!(a.rho, b.rho);
}

#[test]
fn shrinking_does_not_change_the_optimum() {
    let data = blobs(300, 9);
    let all = data.all();
    let mut objs = Vec::new();
    for shrinking in [true, false] {
        let fam = SvmFamily::new(SvmKind::Svc, vec![1e-4], false, SvmSettings { gamma: 0.5, epsilon: 0.0, tol: 1e-8, shrinking }).unwrap();
        let (points, problem) = fam.problem(&all).unwrap();
        let mut cache = KernelCache::new(points);
        let sol = fam.solve(&problem, fam.c_value(0, all.len()), &mut cache, None).unwrap();
        assert!(sol.iterations > 300, "enough iterations for the shrinking (every l = 300) to run");
        objs.push(sol.objective);
    }
    assert!((objs[0] - objs[1]).abs() <= 1e-7 * objs[1].abs(), "{objs:?}");
}

#[test]
fn warm_start_saves_iterations() {
    let data = svr_problem(300, Seed(2), 0).unwrap();
    let all = data.all();
    let fam = SvmFamily::new(SvmKind::Svr, paper_lambdas(300), false, settings(2.0, 0.25, 1e-3)).unwrap();
    let (points, problem) = fam.problem(&all).unwrap();
    let mut cache = KernelCache::new(points);
    let (mut warm, mut cold) = (0, 0);
    let mut prev: Option<(Solution, f64)> = None;
    for m in fam.path_order() {
        let c = fam.c_value(m, all.len());
        cold += fam.solve(&problem, c, &mut cache, None).unwrap().iterations;
        let s = fam.solve(&problem, c, &mut cache, prev.as_ref().map(|(s, c)| (s, *c))).unwrap();
        warm += s.iterations;
        prev = Some((s, c));
    }
    assert!(warm < cold, "warm {warm} vs cold {cold} iterations");
}

#[test]
fn merged_decision_is_the_mean_of_the_members() {
    for kind in [SvmKind::Svc, SvmKind::Svr] {
        let data = if kind == SvmKind::Svc { blobs(200, 3) } else { svr_problem(200, Seed(3), 0).unwrap() };
        let fam = SvmFamily::new(kind, vec![1e-3], false, settings(1.0, 0.25, 1e-3)).unwrap();
        // overlapping training sets: shared support vectors are merged
        let members: Vec<SvmModel> = (0..4)
            .map(|v| {
                let rows: Vec<usize> = (0..200).filter(|i| (i + v) % 4 != 0).collect();
                match fam.fit(&data.view(&rows), 0).unwrap() {
                    Model::Svm(m) => m,
                    _ => unreachable!(),
                }
            })
            .collect();
        let refs: Vec<&SvmModel> = members.iter().collect();
        let merged = SvmModel::merge_mean(&refs).unwrap();
        assert!(merged.n_support() < members.iter().map(SvmModel::n_support).sum::<usize>());
        let all = data.all();
        let got = merged.decision(&all).unwrap();
        for i in 0..all.len() {
            let want = members.iter().map(|m| m.decision(&all).unwrap()[i]).sum::<f64>() / 4.0;
            assert!((got[i] - want).abs() < 1e-12, "{kind:?} row {i}: {} vs {want}", got[i]);
        }
    }
    assert!(SvmModel::merge_mean(&[]).is_err());
}

#[test]
fn model_round_trips_through_json() {
    let data = svr_problem(60, Seed(1), 0).unwrap();
    let fam = SvmFamily::new(SvmKind::Svr, vec![1e-2], false, settings(2.0, 0.25, 1e-3)).unwrap();
    let model = fam.fit(&data.all(), 0).unwrap();
    let back: Model = serde_json::from_str(&serde_json::to_string(&model).unwrap()).unwrap();
    assert_eq!(back, model);
}

#[test]
fn bad_inputs_are_typed_errors() {
    let reg = svr_problem(40, Seed(1), 0).unwrap();
    let cls = blobs(40, 1);
    let p = |k: &str, v: &str| FamilyParams::default().set(k, v);
    let build = |kind, params: &FamilyParams, data: &Dataset| crate::family::build(kind, params, data).map(|_| ());
    for (k, v) in [("gamma", "0"), ("gamma", "-1"), ("epsilon", "-0.1"), ("tol", "0"), ("grid", "alpha"), ("shrinking", "maybe")] {
        assert!(matches!(build(FamilyKind::Svr, &p(k, v), &reg), Err(Error::InvalidParameter { .. })), "{k}={v}");
    }
    assert!(matches!(build(FamilyKind::Svc, &p("epsilon", "0.1"), &cls), Err(Error::InvalidParameter { .. })));
    assert!(matches!(build(FamilyKind::Svc, &p("gamma", "0"), &cls), Err(Error::InvalidParameter { name: "gamma", .. })));
    assert!(matches!(build(FamilyKind::Svc, &FamilyParams::default(), &reg), Err(Error::TaskMismatch(_))));
    assert!(matches!(build(FamilyKind::Svr, &FamilyParams::default(), &cls), Err(Error::TaskMismatch(_))));
    let grid = FamilyParams::with_grid(GridSpec::Values(vec![0.0]));
    assert!(matches!(build(FamilyKind::Svr, &grid, &reg), Err(Error::InvalidParameter { .. })));
    // one class only in the training set
    let fam = crate::family::build(FamilyKind::Svc, &FamilyParams::default(), &cls).unwrap();
    let ones: Vec<usize> = (0..40).filter(|&i| cls.target().value(i) == 1.0).collect();
    assert!(matches!(fam.fit(&cls.view(&ones), 0), Err(Error::ConstantTarget { .. })));
    assert!(matches!(fam.fit_path(&cls.view(&ones)), Err(Error::ConstantTarget { .. })));
    // three classes
    let three = Dataset::new(
        vec![0.0, 1.0, 2.0],
        vec!["x".into()],
        Target::Classes { labels: vec![0, 1, 2], names: vec!["a".into(), "b".into(), "c".into()] },
        "y",
    )
    .unwrap();
    assert!(matches!(build(FamilyKind::Svc, &FamilyParams::default(), &three), Err(Error::Unsupported { .. })));
    assert!(matches!(fam.fit(&three.all(), 0), Err(Error::Unsupported { .. })));
    // schema mismatch at prediction
    let model = fam.fit(&cls.all(), 0).unwrap();
    assert!(matches!(model.predict(&reg.all()), Err(Error::SchemaMismatch(_))));
}
