// Index loops over rows read like the formulas they check.
#![allow(clippy::needless_range_loop)]

use super::*;
use crate::data::generators::svr_problem;
use crate::data::{Dataset, Target};
use crate::family::Predictor;
use crate::family::{FamilyKind, FamilyParams, GridSpec};
use crate::predictions::Predictions;
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
            norm += model.dual_coef()[s]
                * model.dual_coef()[t]
                * Kernel::rbf(model.gamma()).unwrap().eval(model.support_vector(s), model.support_vector(t));
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
    let mut cache = KernelCache::new(points.clone(), crate::Par::pool());
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
    let mut cache = KernelCache::new(points.clone(), crate::Par::pool());
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
    let mut full = KernelCache::new(points.clone(), crate::Par::pool());
    let mut lru = KernelCache::with_limit(points.clone(), 0, 8 * 150 * 5, crate::Par::pool()); // 5 rows
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
        let mut cache = KernelCache::new(points, crate::Par::pool());
        let sol = fam.solve(&problem, fam.c_value(0, all.len()), &mut cache, None).unwrap();
        assert!(sol.iterations > 100, "enough iterations for the shrinking (every 10 iterations) to run: {}", sol.iterations);
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
    let mut cache = KernelCache::new(points, crate::Par::pool());
    let (mut warm, mut cold) = (0, 0);
    let mut prev: Option<(Solution, f64)> = None;
    for m in fam.path_order() {
        let c = fam.c_value(m, all.len());
        cold += fam.solve(&problem, c, &mut cache, None).unwrap().iterations;
        let s = fam.solve(&problem, c, &mut cache, prev.as_mut().map(|(s, c)| (s, *c))).unwrap();
        warm += s.iterations;
        prev = Some((s, c));
    }
    assert!(warm < cold, "warm {warm} vs cold {cold} iterations");
}

/// Two well-separated Gaussian blobs in 2-D: the hard-margin solution has every α well below a
/// large C.
fn separated_blobs(n: usize, seed: u64) -> Dataset {
    let mut rng = Seed(seed).rng(Purpose::Data, 0);
    let mut x = Vec::with_capacity(2 * n);
    let mut labels = Vec::with_capacity(n);
    for i in 0..n {
        let c = (i % 2) as u32;
        let shift = if c == 1 { 4.0 } else { -4.0 };
        x.push(shift + crate::data::generators::normal(&mut rng));
        x.push(crate::data::generators::normal(&mut rng));
        labels.push(c);
    }
    Dataset::new(x, vec!["a".into(), "b".into()], Target::Classes { labels, names: vec!["neg".into(), "pos".into()] }, "y").unwrap()
}

/// Past the C where no variable is at the bound the dual solution no longer depends on C: the
/// warm start returns the free variables to their values instead of scaling them by C'/C (which
/// left SMO to undo the scaling), so the next grid point needs (almost) no iteration, and its
/// answer is the cold fit's.
#[test]
fn warm_start_keeps_a_solution_that_does_not_depend_on_c() {
    let data = separated_blobs(200, 4);
    let all = data.all();
    let fam = SvmFamily::new(SvmKind::Svc, vec![10.0, 100.0], true, settings(0.5, 0.0, 1e-3)).unwrap();
    let (points, problem) = fam.problem(&all).unwrap();
    let mut cache = KernelCache::new(points, crate::Par::pool());
    let mut first = fam.solve(&problem, 10.0, &mut cache, None).unwrap();
    assert!(first.alpha.iter().all(|&a| a < 10.0), "no variable at the bound");
    assert!(first.alpha.iter().filter(|&&a| a > 0.0).count() >= 2);
    let warm = fam.solve(&problem, 100.0, &mut cache, Some((&mut first, 10.0))).unwrap();
    let cold = fam.solve(&problem, 100.0, &mut cache, None).unwrap();
    assert!(warm.iterations <= 2, "{} iterations from the start (cold: {})", warm.iterations, cold.iterations);
    assert!(cold.iterations > 10, "{}", cold.iterations);
    assert!((warm.objective - cold.objective).abs() <= 1e-2 * cold.objective.abs(), "{} vs {}", warm.objective, cold.objective);
}

/// On a large free set (overlapping classes, a narrow kernel, large C) the Newton steps are
/// spaced out by their cost rather than skipped: SMO alone zig-zags for thousands of pair updates.
#[test]
fn newton_steps_run_on_large_free_sets() {
    let data = blobs(300, 5);
    let all = data.all();
    let fam = SvmFamily::new(SvmKind::Svc, vec![1e3], true, settings(4.0, 0.0, 1e-3)).unwrap();
    let (points, problem) = fam.problem(&all).unwrap();
    let mut cache = KernelCache::new(points, crate::Par::pool());
    let sol = fam.solve(&problem, 1e3, &mut cache, None).unwrap();
    let free = sol.alpha.iter().filter(|&&a| a > 0.0 && a < 1e3).count();
    // the old rule skipped every Newton step above |F|³ = 3600 l
    assert!(free.pow(3) > 3600 * 300, "a large free set: {free}");
    assert!(sol.iterations < 1500, "{} iterations", sol.iterations);
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
    // three classes: one-vs-one (one point per class, hard margin: each point is predicted)
    let fam3 = crate::family::build(FamilyKind::Svc, &FamilyParams::default(), &three).unwrap();
    let model3 = fam3.fit(&three.all(), 0).unwrap();
    assert!(matches!(&model3, Model::OneVsOneSvc(m) if m.pairs().len() == 3));
    assert_eq!(model3.predict(&three.all()).unwrap().labels().unwrap(), [0, 1, 2]);
    // schema mismatch at prediction
    let model = fam.fit(&cls.all(), 0).unwrap();
    assert!(matches!(model.predict(&reg.all()), Err(Error::SchemaMismatch(_))));
}

// ---- more than two classes: one-vs-one ----

/// K Gaussian blobs in 2-D, centres on a circle of radius 1.5 (overlapping classes).
fn class_blobs(n: usize, k: u32, seed: u64) -> Dataset {
    let mut rng = Seed(seed).rng(Purpose::Data, 0);
    let mut x = Vec::with_capacity(2 * n);
    let mut labels = Vec::with_capacity(n);
    for _ in 0..n {
        let c = rng.random_range(0..k);
        let angle = 2.0 * std::f64::consts::PI * f64::from(c) / f64::from(k);
        x.push(1.5 * angle.cos() + crate::data::generators::normal(&mut rng));
        x.push(1.5 * angle.sin() + crate::data::generators::normal(&mut rng));
        labels.push(c);
    }
    let names = (0..k).map(|c| format!("c{c}")).collect();
    Dataset::new(x, vec!["a".into(), "b".into()], Target::Classes { labels, names }, "y").unwrap()
}

fn ovo_model(model: Model) -> OneVsOneSvc {
    match model {
        Model::OneVsOneSvc(m) => m,
        other => panic!("expected a one-vs-one SVC, got {other:?}"),
    }
}

/// The class with the most votes, ties to the lowest index, written out independently of `ovo::vote`.
fn vote_by_hand(decisions: &[Vec<f64>], pairs: &[(u32, u32)], k: usize, row: usize) -> (u32, Vec<f64>) {
    let mut votes = vec![0usize; k];
    for (d, &(a, b)) in decisions.iter().zip(pairs) {
        if d[row] > 0.0 {
            votes[a as usize] += 1;
        } else {
            votes[b as usize] += 1;
        }
    }
    let top = *votes.iter().max().unwrap();
    let winner = votes.iter().position(|&v| v == top).unwrap() as u32;
    (winner, votes.iter().map(|&v| v as f64 / pairs.len() as f64).collect())
}

#[test]
fn ovo_path_equals_cold_refit() {
    use crate::testing::path_equals_refit;
    let data = class_blobs(240, 3, 11);
    let (tr, va) = split(240, 180);
    let (train, val) = (data.view(&tr), data.view(&va));
    let fam = SvmFamily::new(SvmKind::Svc, paper_lambdas(180), false, settings(0.5, 0.0, 1e-9)).unwrap();
    path_equals_refit(&fam, &train, &val, 1e-6);
    let path = fam.fit_path(&train).unwrap();
    let fast = path.predict(&val).unwrap();
    let mut distinct = std::collections::BTreeSet::new();
    for m in 0..fam.grid().len() {
        let from_path = ovo_model(path.model(m).unwrap());
        let cold = ovo_model(fam.fit(&train, m).unwrap());
        // the path's predictions are its models' predictions, bit for bit
        assert_eq!(fast[m], from_path.predict(&val).unwrap(), "grid {m}");
        // the pair decisions (not only the labels) agree with the cold refit
        let (a, b) = (from_path.decisions(&val).unwrap(), cold.decisions(&val).unwrap());
        for q in 0..3 {
            for i in 0..val.len() {
                assert!((a[q][i] - b[q][i]).abs() < 1e-5 * (1.0 + b[q][i].abs()), "grid {m} pair {q} row {i}: {} vs {}", a[q][i], b[q][i]);
            }
        }
        let Predictions::Classes { labels, n_classes: 3, proba: Some(p), decision: None } = &fast[m] else { panic!("{:?}", fast[m]) };
        distinct.extend(labels.iter().copied());
        for i in 0..val.len() {
            let row = &p[3 * i..3 * i + 3];
            assert!((row.iter().sum::<f64>() - 1.0).abs() < 1e-12 && row.iter().all(|v| [0.0, 1.0 / 3.0, 2.0 / 3.0].contains(v)));
        }
    }
    assert_eq!(distinct.len(), 3, "every class is predicted somewhere on the path");
}

/// OvO = the vote of the K(K−1)/2 binary machines fitted separately on each pair's rows (class a
/// relabelled 1 so that a ↦ +1) with the same C = 1/(2 λ n_t), n_t the whole training set.
#[test]
fn ovo_is_the_vote_of_separate_binary_machines() {
    let k = 4;
    let data = class_blobs(200, k, 12);
    let (tr, va) = split(200, 150);
    let (train, val) = (data.view(&tr), data.view(&va));
    let lambda = 2e-3;
    let fam = SvmFamily::new(SvmKind::Svc, vec![lambda], false, settings(0.7, 0.0, 1e-3)).unwrap();
    let model = ovo_model(fam.fit(&train, 0).unwrap());
    assert_eq!(model.pairs(), vec![(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]);
    let class: Vec<u32> = (0..200).map(|i| data.target().value(i) as u32).collect();
    let c = 1.0 / (2.0 * lambda * 150.0);
    let mut decisions = Vec::new();
    for &(a, b) in &model.pairs() {
        let rows: Vec<usize> = tr.iter().copied().filter(|&i| [a, b].contains(&class[i])).collect();
        let x: Vec<f64> = rows.iter().flat_map(|&i| data.row(i).to_vec()).collect();
        let labels = rows.iter().map(|&i| u32::from(class[i] == a)).collect();
        let binary =
            Dataset::new(x, vec!["a".into(), "b".into()], Target::Classes { labels, names: vec!["b".into(), "a".into()] }, "y").unwrap();
        let machine = SvmFamily::new(SvmKind::Svc, vec![c], true, settings(0.7, 0.0, 1e-3)).unwrap();
        let Model::Svm(m) = machine.fit(&binary.all(), 0).unwrap() else { panic!() };
        let x_val: Vec<f64> = va.iter().flat_map(|&i| data.row(i).to_vec()).collect();
        let val_data = Dataset::new(
            x_val,
            vec!["a".into(), "b".into()],
            Target::Classes { labels: vec![0; va.len()], names: vec!["b".into(), "a".into()] },
            "y",
        )
        .unwrap();
        decisions.push(m.decision(&val_data.all()).unwrap());
    }
    // the same arithmetic: identical decision values
    assert_eq!(model.decisions(&val).unwrap(), decisions);
    let Predictions::Classes { labels, proba: Some(p), .. } = model.predict(&val).unwrap() else { panic!() };
    for i in 0..val.len() {
        let (winner, fractions) = vote_by_hand(&decisions, &model.pairs(), k as usize, i);
        assert_eq!(labels[i], winner, "row {i}");
        assert_eq!(&p[4 * i..4 * i + 4], fractions.as_slice(), "row {i}");
    }
}

#[test]
fn ovo_vote_ties_go_to_the_lowest_class() {
    // pairs (0,1), (0,2), (1,2); one row per column below
    let pairs = [(0, 1), (0, 2), (1, 2)];
    let decisions = vec![
        vec![1.0, -1.0, 1.0, 0.0],  // (0,1): 0, 1, 0, 1 (a zero decision votes for b)
        vec![-1.0, -1.0, 1.0, 0.0], // (0,2): 2, 2, 0, 2
        vec![1.0, 1.0, -1.0, 1.0],  // (1,2): 1, 1, 2, 1
    ];
    let Predictions::Classes { labels, proba: Some(p), decision: None, n_classes: 3 } = ovo::vote(&decisions, &pairs, 3, 4).unwrap() else {
        panic!()
    };
    // row 0: one vote each, a three-way tie → class 0; row 1: class 1 twice; row 2: class 0
    // twice; row 3: class 1 twice (zeros vote for the second class)
    assert_eq!(labels, [0, 1, 0, 1]);
    let third = 1.0 / 3.0;
    assert_eq!(&p[..3], &[third, third, third]);
    assert_eq!(&p[3..6], &[0.0, 2.0 * third, third]);
    // four classes, classes 1 and 2 tie at two votes: the lower index wins
    let pairs4 = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)];
    let d4: Vec<Vec<f64>> = [-1.0, -1.0, 1.0, -1.0, 1.0, -1.0].iter().map(|&v| vec![v]).collect();
    assert_eq!(ovo::vote(&d4, &pairs4, 4, 1).unwrap().labels().unwrap(), [1]);
    let d4: Vec<Vec<f64>> = [-1.0, -1.0, 1.0, -1.0, -1.0, -1.0].iter().map(|&v| vec![v]).collect();
    // votes 0:1, 1:1, 2:2, 3:2 → class 2
    assert_eq!(ovo::vote(&d4, &pairs4, 4, 1).unwrap().labels().unwrap(), [2]);
    assert!(matches!(ovo::vote(&[vec![f64::NAN]], &[(0, 1)], 3, 1), Err(Error::Numerical(_))));
}

/// A class absent from the training set has no pair, gets no vote and is never predicted; the
/// vote fractions are over the pairs that exist.
#[test]
fn ovo_class_absent_from_training() {
    let data = class_blobs(240, 4, 13);
    let labels: Vec<u32> = (0..240).map(|i| data.target().value(i) as u32).collect();
    let tr: Vec<usize> = (0..180).filter(|&i| labels[i] != 2).collect();
    let va: Vec<usize> = (180..240).collect();
    assert!(va.iter().any(|&i| labels[i] == 2), "the validation rows hold the absent class");
    let fam = SvmFamily::new(SvmKind::Svc, paper_lambdas(tr.len()), false, settings(0.5, 0.0, 1e-9)).unwrap();
    let (train, val) = (data.view(&tr), data.view(&va));
    crate::testing::path_equals_refit(&fam, &train, &val, 1e-6);
    let model = ovo_model(fam.fit(&train, 8).unwrap());
    assert_eq!(model.classes(), [0, 1, 3]);
    assert_eq!(model.pairs(), vec![(0, 1), (0, 3), (1, 3)]);
    let Predictions::Classes { labels: pred, n_classes: 4, proba: Some(p), .. } = model.predict(&val).unwrap() else { panic!() };
    assert!(pred.iter().all(|&l| l != 2));
    for i in 0..val.len() {
        assert_eq!(p[4 * i + 2], 0.0);
        assert!((p[4 * i..4 * i + 4].iter().sum::<f64>() - 1.0).abs() < 1e-12);
    }
    // one class left: the binary machine's error
    let only: Vec<usize> = (0..240).filter(|&i| labels[i] == 3).collect();
    assert!(matches!(fam.fit(&data.view(&only), 0), Err(Error::ConstantTarget { .. })));
    assert!(matches!(fam.fit_path(&data.view(&only)), Err(Error::ConstantTarget { .. })));
}

/// The shared kernel matrix (path) and per-pair caches (cold fit) read the same kernel values:
/// at the path's first (coldest) grid point, whose solve starts from α = 0 too, the two agree bit for bit.
#[test]
fn ovo_shared_kernel_equals_per_pair_kernels() {
    let data = class_blobs(150, 3, 14);
    let all = data.all();
    let fam = SvmFamily::new(SvmKind::Svc, vec![1e-2], false, settings(0.5, 0.0, 1e-3)).unwrap();
    let path = fam.fit_path(&all).unwrap();
    assert_eq!(path.model(0).unwrap(), fam.fit(&all, 0).unwrap());
}

#[test]
fn ovo_model_round_trips_and_checks() {
    let data = class_blobs(90, 3, 15);
    let fam = SvmFamily::new(SvmKind::Svc, vec![1e-2], false, settings(0.5, 0.0, 1e-3)).unwrap();
    let model = fam.fit(&data.all(), 0).unwrap();
    let back: Model = serde_json::from_str(&serde_json::to_string(&model).unwrap()).unwrap();
    assert_eq!(back, model);
    assert!(model.validate(2, Task::Classification, 3).is_ok());
    assert_eq!(model.output(), (Task::Classification, 3));
    // members are voted, never merged
    assert_eq!(Model::merge_mean(&[&model, &model]).unwrap(), None);
    // wrong width of data
    let wide = Dataset::new(vec![0.0; 3], vec!["a".into(), "b".into(), "c".into()], Target::Real(vec![0.0]), "y").unwrap();
    assert!(matches!(model.predict(&wide.all()), Err(Error::SchemaMismatch(_))));
    // a deserialized model with a pair class out of range errors in `predict` instead of panicking
    let mut value = serde_json::to_value(&model).unwrap();
    value["pairs"][0]["negative"] = serde_json::json!(7);
    let bad: Model = serde_json::from_value(value).unwrap();
    assert!(matches!(bad.predict(&data.all()), Err(Error::CorruptModel(_))));
    let mut value = serde_json::to_value(&model).unwrap();
    value["pairs"][1]["support_index"][0] = serde_json::json!(100_000);
    let bad: Model = serde_json::from_value(value).unwrap();
    assert!(matches!(bad.predict(&data.all()), Err(Error::CorruptModel(_))));
}

/// Pairs are solved in parallel: the path's predictions and models do not depend on the thread count.
#[test]
fn ovo_path_is_thread_count_independent() {
    let data = class_blobs(200, 3, 16);
    let (tr, va) = split(200, 150);
    let fam = SvmFamily::new(SvmKind::Svc, paper_lambdas(150), false, settings(0.5, 0.0, 1e-3)).unwrap();
    let run = |threads: usize| {
        rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap().install(|| {
            let path = fam.fit_path(&data.view(&tr)).unwrap();
            let models: Vec<Model> = (0..fam.grid().len()).map(|m| path.model(m).unwrap()).collect();
            (path.predict(&data.view(&va)).unwrap(), models)
        })
    };
    assert_eq!(run(1), run(3));
}

/// At tight tolerances the Newton step's unprojected direction used to end these paths off the
/// constraint `yᵀα = 0` (at tol ≤ 1e-13 by 8e-5 to 2.5e-4, an error). Now every grid point solves
/// on it to rounding. (At 1e-14 itself, below the gradients' rounding error at large C, SMO cannot
/// meet the stopping rule and ends with its typed "did not converge" error after LIBSVM's
/// iteration cap.)
#[test]
fn tight_tolerances_solve_on_the_constraint() {
    let (tr, _) = split(400, 300);
    for (kind, data) in [(SvmKind::Svc, blobs(400, 3)), (SvmKind::Svr, svr_problem(400, Seed(2), 0).unwrap())] {
        let fam = SvmFamily::new(kind, paper_lambdas(300), false, settings(0.5, 0.1, 1e-13)).unwrap();
        let train = data.view(&tr);
        let (points, problem) = fam.problem(&train).unwrap();
        let mut cache = KernelCache::new(points, crate::Par::pool());
        let mut prev: Option<(Solution, f64)> = None;
        for m in fam.path_order() {
            let c = fam.c_value(m, tr.len());
            let sol =
                fam.solve(&problem, c, &mut cache, prev.as_mut().map(|(s, c)| (s, *c))).unwrap_or_else(|e| panic!("{kind:?} C = {c}: {e}"));
            let violation: f64 = problem.y.iter().zip(&sol.alpha).map(|(y, a)| y * a).sum::<f64>().abs();
            assert!(violation <= 1e-12 * c * problem.y.len() as f64, "{kind:?} C = {c}: yᵀα = {violation:e}");
            prev = Some((sol, c));
        }
    }
}

/// γ = `scale` (the default): scikit-learn's `1 / (d · X.var())` of the training rows the fit
/// sees, stored in the fitted model; each training set gets its own; `auto` and a number as given.
#[test]
fn default_gamma_is_scale_of_each_training_set() {
    let data = blobs(60, 3);
    let (a, b) = split(60, 30);
    let fam = crate::family::build(FamilyKind::Svc, &FamilyParams::with_grid(GridSpec::Values(vec![1e-2])), &data).unwrap();
    let gamma_of = |rows: &[usize]| match fam.fit(&data.view(rows), 0).unwrap() {
        Model::Svm(m) => m.gamma(),
        other => panic!("{other:?}"),
    };
    let by_hand = |rows: &[usize]| {
        let x: Vec<f64> = rows.iter().flat_map(|&i| data.view(&[i]).x(0).to_vec()).collect();
        let mean = x.iter().sum::<f64>() / x.len() as f64;
        let var = x.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / x.len() as f64;
        1.0 / (2.0 * var)
    };
    assert!((gamma_of(&a) - by_hand(&a)).abs() < 1e-14 * by_hand(&a));
    assert!((gamma_of(&b) - by_hand(&b)).abs() < 1e-14 * by_hand(&b));
    assert_ne!(gamma_of(&a), gamma_of(&b));
    // The path's models carry the same γ as the cold fit.
    let Model::Svm(m) = fam.fit_path(&data.view(&a)).unwrap().model(0).unwrap() else { panic!("binary SVC") };
    assert_eq!(m.gamma(), gamma_of(&a));
    for (value, want) in [("auto", 0.5), ("0.3", 0.3)] {
        let params = FamilyParams::with_grid(GridSpec::Values(vec![1e-2])).set("gamma", value);
        let Model::Svm(m) = crate::family::build(FamilyKind::Svc, &params, &data).unwrap().fit(&data.view(&a), 0).unwrap() else {
            panic!("binary SVC")
        };
        assert_eq!(m.gamma(), want, "gamma={value}");
    }
}

/// Features in the thousands (unscaled data as they come): with γ = 1/d every validation point
/// is far from every support vector, the kernel is ≈ 0 and the SVC predicts one class; with
/// γ = `scale` it separates the classes.
#[test]
fn unscaled_features_no_longer_give_a_constant_svc() {
    let base = blobs(200, 8);
    let x: Vec<f64> = base.x().iter().map(|v| 1000.0 * v + 5000.0).collect();
    let data = Dataset::new(x, base.feature_names().to_vec(), base.target().clone(), "y").unwrap();
    let (train, val) = split(200, 150);
    let accuracy = |gamma: Option<&str>| {
        let mut params = FamilyParams::with_grid(GridSpec::Values(vec![1.0])).set("grid", "C");
        if let Some(g) = gamma {
            params = params.set("gamma", g);
        }
        let fam = crate::family::build(FamilyKind::Svc, &params, &data).unwrap();
        let p = fam.fit(&data.view(&train), 0).unwrap().predict(&data.view(&val)).unwrap();
        let labels = p.labels().unwrap().to_vec();
        let correct = labels.iter().zip(&val).filter(|(l, i)| **l == data.view(&[**i]).class(0)).count();
        (labels, correct as f64 / val.len() as f64)
    };
    let (old, _) = accuracy(Some("auto"));
    assert!(old.iter().all(|&l| l == old[0]), "γ = 1/d: expected a constant prediction");
    let (new, acc) = accuracy(None);
    assert!(new.iter().any(|&l| l != new[0]), "γ = scale predicts a constant");
    assert!(acc > 0.6, "accuracy {acc} (the classes overlap: about 0.79 at best)");
}

/// The decision values of several expansions at once are, bit for bit, one sequential sum per
/// expansion and row (`Σ_s β_s K(x_s, x) + b`, as `Iterator::sum`).
#[test]
fn decision_values_are_the_sequential_sums() {
    let data = blobs(40, 12);
    let all = data.all();
    let kernel = Kernel::rbf(0.7).unwrap();
    let support: Vec<f64> = (0..9).flat_map(|i| data.row(i).to_vec()).collect();
    let coefs: Vec<Vec<f64>> = (0..5).map(|g| (0..9).map(|s| ((g * 7 + s * 3) % 5) as f64 - 2.0 + 0.1 * g as f64).collect()).collect();
    let refs: Vec<&[f64]> = coefs.iter().map(Vec::as_slice).collect();
    let biases = [0.5, -1.0, 0.0, 2.25, -0.125];
    let got = decision_values(&all, &support, 2, &kernel, &refs, &biases);
    for (g, c) in coefs.iter().enumerate() {
        for i in 0..all.len() {
            let want = c.iter().enumerate().map(|(s, b)| b * kernel.eval(&support[2 * s..2 * s + 2], all.x(i))).sum::<f64>() + biases[g];
            assert_eq!(got[g][i].to_bits(), want.to_bits(), "expansion {g} row {i}");
        }
    }
}

/// The decision values of a fitted model on `rows`: `[row][pair]` for one-vs-one, the SVR's
/// predictions, the binary SVC's decision.
fn decisions_of(model: &Model, rows: &View<'_>) -> Vec<f64> {
    match model {
        Model::Svm(m) => m.decision(rows).unwrap(),
        Model::OneVsOneSvc(m) => {
            let per_pair = m.decisions(rows).unwrap();
            (0..rows.len()).flat_map(|i| per_pair.iter().map(move |d| d[i])).collect()
        }
        _ => unreachable!(),
    }
}

fn assert_close_slices(a: &[f64], b: &[f64], close: f64, what: &str) {
    assert_eq!(a.len(), b.len(), "{what}");
    let scale = 1.0 + b.iter().fold(0.0f64, |s, v| s.max(v.abs()));
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!((x - y).abs() <= close * scale, "{what}: entry {i}: {x} vs {y}");
    }
}

/// Per-sample C against scikit-learn's `SVC` / `SVR` with `sample_weight` (C grid, fixed γ;
/// `bench/peers/svm_weights_reference.py`): the decision values on test rows, from the cold fit
/// and from the warm-started path. To 1e-5: both solve to a gap of 1e-10, but LIBSVM's kernel
/// cache holds `float` (f32) entries, which moves its solution by about 1e-7 · C (the differences
/// grow tenfold from C = 0.1 to 1 to 10).
#[test]
fn weighted_fits_equal_scikit_learn() {
    let golden: serde_json::Value = serde_json::from_str(include_str!("../../../tests/golden/svm_weights_sklearn.json")).unwrap();
    let floats = |v: &serde_json::Value| v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect::<Vec<f64>>();
    let (n, d) = (golden["n_train"].as_u64().unwrap() as usize, golden["n_features"].as_u64().unwrap() as usize);
    let (gamma, epsilon) = (golden["gamma"].as_f64().unwrap(), golden["epsilon"].as_f64().unwrap());
    for set in golden["sets"].as_array().unwrap() {
        let x = floats(&set["x"]);
        let rows = x.len() / d;
        let names = (0..d).map(|j| format!("x{j}")).collect();
        let (kind, target) = if set["task"] == "regression" {
            (SvmKind::Svr, Target::Real(floats(&set["y"])))
        } else {
            let k = set["n_classes"].as_u64().unwrap() as usize;
            let labels = floats(&set["y"]).iter().map(|&v| v as u32).collect();
            (SvmKind::Svc, Target::Classes { labels, names: (0..k).map(|c| format!("c{c}")).collect() })
        };
        let mut w = floats(&set["weights"]);
        w.resize(rows, 1.0);
        let data = Dataset::new(x, names, target, "y").unwrap().with_weights(w).unwrap();
        let (tr, te) = split(rows, n);
        let (train, test) = (data.view(&tr), data.view(&te));
        let fits = set["fits"].as_array().unwrap();
        let cs: Vec<f64> = fits.iter().map(|f| f["c"].as_f64().unwrap()).collect();
        let fam = SvmFamily::new(kind, cs, true, settings(gamma, epsilon, 1e-10)).unwrap();
        let path = fam.fit_path(&train).unwrap();
        for (m, fit) in fits.iter().enumerate() {
            let expected = floats(&fit["decision"]);
            let what = format!("{} C = {}", set["name"], fit["c"]);
            assert_close_slices(&decisions_of(&fam.fit(&train, m).unwrap(), &test), &expected, 1e-5, &what);
            assert_close_slices(&decisions_of(&path.model(m).unwrap(), &test), &expected, 1e-5, &format!("{what} (path)"));
            if let Some(labels) = fit.get("predict") {
                let labels: Vec<u32> = floats(labels).iter().map(|&v| v as u32).collect();
                assert_eq!(path.predict(&test).unwrap()[m].labels().unwrap(), labels.as_slice(), "{what}");
            }
        }
    }
}

/// Unit weights are no weights, bit for bit (path predictions of SVC, one-vs-one and SVR).
#[test]
fn unit_weights_are_no_weights() {
    for data in [blobs(90, 11), class_blobs(90, 3, 12), svr_problem(90, Seed(13), 0).unwrap()] {
        let kind = if data.task() == Task::Regression { SvmKind::Svr } else { SvmKind::Svc };
        let fam = SvmFamily::new(kind, paper_lambdas(70), false, settings(0.5, 0.1, 1e-3)).unwrap();
        let unit = data.clone().with_weights(vec![1.0; 90]).unwrap();
        let (tr, va) = split(90, 70);
        let a = fam.fit_path(&data.view(&tr)).unwrap().predict(&data.view(&va)).unwrap();
        let b = fam.fit_path(&unit.view(&tr)).unwrap().predict(&unit.view(&va)).unwrap();
        assert_eq!(a, b, "{kind:?}");
    }
}

/// Integer weights are row duplication and weight 0 is row removal, on the λ grid (whose C
/// uses `Σ w`) and on the C grid: the decision values on validation rows agree to the solver's
/// tolerance, for SVC, one-vs-one and SVR, cold fits and paths.
#[test]
fn integer_weights_are_duplication_and_zero_is_removal() {
    for data in [blobs(60, 21), class_blobs(60, 3, 22), svr_problem(60, Seed(23), 0).unwrap()] {
        let kind = if data.task() == Task::Regression { SvmKind::Svr } else { SvmKind::Svc };
        let w: Vec<f64> = (0..60).map(|i| [1.0, 2.0, 0.0, 3.0][i % 4]).collect();
        let weighted = data.clone().with_weights(w.clone()).unwrap();
        let (tr, va) = split(60, 45);
        let duplicated: Vec<usize> = tr.iter().flat_map(|&i| std::iter::repeat_n(i, w[i] as usize)).collect();
        let n_t = duplicated.len();
        for (values, in_c) in [(paper_lambdas(n_t), false), (vec![0.3, 3.0, 30.0], true)] {
            let fam = SvmFamily::new(kind, values, in_c, settings(0.5, 0.1, 1e-10)).unwrap();
            let (a, b) = (fam.fit_path(&weighted.view(&tr)).unwrap(), fam.fit_path(&data.view(&duplicated)).unwrap());
            let val = data.view(&va);
            for m in 0..fam.grid().len() {
                let what = format!("{kind:?} in_c = {in_c} grid {m}");
                let expected = decisions_of(&b.model(m).unwrap(), &val);
                assert_close_slices(&decisions_of(&a.model(m).unwrap(), &val), &expected, 1e-6, &what);
                assert_close_slices(&decisions_of(&fam.fit(&weighted.view(&tr), m).unwrap(), &val), &expected, 1e-6, &what);
            }
        }
    }
}

/// Other weights change the fit; a training set whose rows all weigh 0 is refused by name.
#[test]
fn weights_change_the_fit_and_zero_weights_are_refused() {
    let data = blobs(60, 31);
    let w: Vec<f64> = (0..60).map(|i| if i < 20 { 0.0 } else { 1.0 + (i % 3) as f64 }).collect();
    let weighted = data.clone().with_weights(w).unwrap();
    let fam = SvmFamily::new(SvmKind::Svc, vec![1e-2], false, settings(0.5, 0.0, 1e-3)).unwrap();
    let rows: Vec<usize> = (0..60).collect();
    assert_ne!(
        decisions_of(&fam.fit(&weighted.view(&rows), 0).unwrap(), &data.all()),
        decisions_of(&fam.fit(&data.all(), 0).unwrap(), &data.all())
    );
    let zero: Vec<usize> = (0..20).collect();
    assert!(matches!(fam.fit(&weighted.view(&zero), 0), Err(Error::TooFewRows { found: 0, .. })));
    assert!(matches!(fam.fit_path(&weighted.view(&zero)).map(|_| ()), Err(Error::TooFewRows { found: 0, .. })));
}
