use super::*;
use crate::predictions::Predictions;
use crate::testing::path_equals_refit;
use rand::{RngExt, SeedableRng};

/// Overlapping Gaussian-ish classes: class c shifts feature c.
fn class_data(n: usize, d: usize, k: u32, seed: u64) -> Dataset {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut x = Vec::with_capacity(n * d);
    let mut labels = Vec::with_capacity(n);
    for _ in 0..n {
        let c = rng.random_range(0..k);
        let row: Vec<f64> = (0..d).map(|j| rng.random::<f64>() * 2.0 - 1.0 + if j as u32 == c { 0.8 } else { 0.0 }).collect();
        x.extend(row);
        labels.push(c);
    }
    let names = (0..k).map(|c| format!("c{c}")).collect();
    Dataset::new(x, (0..d).map(|j| format!("x{j}")).collect(), Target::Classes { labels, names }, "y").unwrap()
}

#[test]
fn path_equals_cold_refit_binary_and_multinomial() {
    for k in [2, 3] {
        let data = class_data(150, 4, k, u64::from(k));
        let rows: Vec<usize> = (0..150).collect();
        let (train, val) = rows.split_at(100);
        let lambdas: Vec<f64> = (0..8).map(|i| 10f64.powf(-4.0 + 0.6 * f64::from(i))).collect();
        let fam = LogisticFamily::new(lambdas, k as usize).unwrap().with_tol(1e-10).unwrap();
        path_equals_refit(&fam, &data.view(train), &data.view(val), 1e-6);
        // probabilities too (the conformance check compares labels only for classes)
        let fast = fam.fit_path(&data.view(train)).unwrap().predict(&data.view(val)).unwrap();
        for (m, p) in fast.iter().enumerate() {
            let Predictions::Classes { proba: Some(a), .. } = p else { panic!() };
            let Predictions::Classes { proba: Some(b), .. } = fam.fit(&data.view(train), m).unwrap().predict(&data.view(val)).unwrap()
            else {
                panic!()
            };
            for (u, v) in a.iter().zip(&b) {
                assert!((u - v).abs() < 1e-6, "grid {m}: {u} vs {v}");
            }
        }
    }
}

#[test]
fn gradient_matches_finite_differences() {
    for k in [2, 3] {
        let data = class_data(40, 3, k, 9);
        let problem = Problem::new(&data.all(), k as usize).unwrap();
        let theta: Vec<f64> = (0..problem.n_params()).map(|i| 0.1 * (i as f64).sin()).collect();
        let mut grad = vec![0.0; theta.len()];
        let mut work = Work::default();
        problem.value_gradient(&theta, &mut grad, 0.3, &mut work);
        let mut scratch = vec![0.0; theta.len()];
        for i in 0..theta.len() {
            let (mut up, mut down) = (theta.clone(), theta.clone());
            up[i] += 1e-6;
            down[i] -= 1e-6;
            let numeric = (problem.value_gradient(&up, &mut scratch, 0.3, &mut work)
                - problem.value_gradient(&down, &mut scratch, 0.3, &mut work))
                / 2e-6;
            assert!((numeric - grad[i]).abs() < 1e-7, "coordinate {i}: {numeric} vs {}", grad[i]);
        }
    }
}

#[test]
fn class_missing_from_training_gets_probability_zero() {
    let data = class_data(90, 3, 3, 4);
    let rows: Vec<usize> = (0..90).filter(|&i| data.target().value(i) != 1.0).collect();
    let fam = LogisticFamily::new(vec![0.01], 3).unwrap();
    let p = fam.fit(&data.view(&rows), 0).unwrap().predict(&data.all()).unwrap();
    let Predictions::Classes { labels, proba: Some(proba), decision, .. } = p else { panic!() };
    assert!(labels.iter().all(|&l| l != 1));
    assert!(proba.chunks_exact(3).all(|r| r[1] == 0.0 && (r[0] + r[2] - 1.0).abs() < 1e-12));
    assert!(decision.is_none());
}

#[test]
fn binary_decision_is_the_logit_of_class_one() {
    let data = class_data(80, 2, 2, 5);
    let fam = LogisticFamily::new(vec![0.05], 2).unwrap();
    let p = fam.fit(&data.all(), 0).unwrap().predict(&data.all()).unwrap();
    let Predictions::Classes { labels, proba: Some(proba), decision: Some(decision), .. } = p else { panic!() };
    for i in 0..80 {
        let p1 = 1.0 / (1.0 + (-decision[i]).exp());
        assert!((p1 - proba[2 * i + 1]).abs() < 1e-12);
        assert_eq!(labels[i], u32::from(decision[i] > 0.0));
    }
}

fn l1_family(lambdas: Vec<f64>, k: usize) -> LogisticFamily {
    LogisticFamily::new(lambdas, k).unwrap().with_penalty(Penalty::L1).unwrap().with_tol(1e-10).unwrap()
}

#[test]
fn l1_path_equals_cold_refit_binary_and_multinomial() {
    for (k, d, seed) in [(2usize, 6, 21), (3, 5, 31)] {
        let data = class_data(150, d, k as u32, seed);
        let rows: Vec<usize> = (0..150).collect();
        let (train, val) = rows.split_at(100);
        let lambdas: Vec<f64> = (0..8).map(|i| 10f64.powf(-3.5 + 0.4 * f64::from(i))).collect();
        path_equals_refit(&l1_family(lambdas, k), &data.view(train), &data.view(val), 1e-6);
    }
}

/// Subgradient optimality of `(1/n) Σ loss + λ‖w‖₁` at every grid point, computed from the
/// predicted probabilities: `|∂_b| ≈ 0`, `|g_j| ≤ λ` where `w_j = 0`, `g_j = −λ sign(w_j)` elsewhere.
#[test]
fn l1_solutions_satisfy_the_optimality_conditions() {
    let data = class_data(120, 5, 2, 8);
    let all = data.all();
    let fam = l1_family((0..10).map(|i| 10f64.powf(-3.0 + 0.3 * f64::from(i))).collect(), 2);
    let path = fam.fit_path(&all).unwrap();
    let mut sizes = Vec::new();
    for m in 0..fam.grid().len() {
        let lambda = fam.grid().value(m);
        let Model::Logistic(model) = path.model(m).unwrap() else { panic!() };
        let Predictions::Classes { proba: Some(p), .. } = model.predict(&all).unwrap() else { panic!() };
        let resid: Vec<f64> = (0..120).map(|i| f64::from(all.class(i)) - p[2 * i + 1]).collect();
        assert!(resid.iter().sum::<f64>().abs() / 120.0 < 1e-9);
        for j in 0..5 {
            let g = -(0..120).map(|i| all.x(i)[j] * resid[i]).sum::<f64>() / 120.0;
            let w = model.coefficients()[j];
            if w == 0.0 {
                assert!(g.abs() <= lambda + 1e-9, "m {m} j {j}");
            } else {
                assert!((g + lambda * w.signum()).abs() <= 1e-9, "m {m} j {j}: {g}");
            }
        }
        sizes.push(model.coefficients().iter().filter(|w| **w != 0.0).count());
    }
    // Sparser as λ grows, and both ends are reached.
    assert!(sizes.windows(2).all(|s| s[0] >= s[1]), "{sizes:?}");
    assert!(sizes[0] >= 2, "{sizes:?}"); // features 0 and 1 carry the classes
    assert_eq!(*sizes.last().unwrap(), 0);
}

/// Subgradient optimality of `(1/n) Σ_i [log Σ_k e^{z_ik} − z_{i,y_i}] + λ Σ_k ‖w_k‖₁` at every
/// grid point, from the predicted probabilities: `∂_{b_k} = (1/n) Σ_i (p_ik − 1[y_i = k]) ≈ 0`,
/// `|g_kj| ≤ λ` where `w_kj = 0`, `g_kj = −λ sign(w_kj)` elsewhere, `g_kj = (1/n) Σ_i x_ij (p_ik − 1[y_i = k])`.
#[test]
fn l1_multinomial_solutions_satisfy_the_optimality_conditions() {
    for k in [3usize, 4] {
        let (n, d) = (160, 6);
        let data = class_data(n, d, k as u32, 40 + k as u64);
        let all = data.all();
        let lambdas: Vec<f64> = (0..10).map(|i| 10f64.powf(-3.0 + 0.3 * f64::from(i))).collect();
        let fam = l1_family(lambdas, k);
        let path = fam.fit_path(&all).unwrap();
        let mut sizes = Vec::new();
        for m in 0..fam.grid().len() {
            let lambda = fam.grid().value(m);
            let Model::Logistic(model) = path.model(m).unwrap() else { panic!() };
            assert_eq!(model.intercepts().len(), k);
            let Predictions::Classes { proba: Some(p), .. } = model.predict(&all).unwrap() else { panic!() };
            for c in 0..k {
                let resid: Vec<f64> = (0..n).map(|i| p[k * i + c] - f64::from(u8::from(all.class(i) as usize == c))).collect();
                assert!(resid.iter().sum::<f64>().abs() / n as f64 <= 1e-9, "k {k} m {m} class {c}: intercept gradient");
                for j in 0..d {
                    let g = (0..n).map(|i| all.x(i)[j] * resid[i]).sum::<f64>() / n as f64;
                    let w = model.coefficients()[c * d + j];
                    if w == 0.0 {
                        assert!(g.abs() <= lambda + 1e-9, "k {k} m {m} class {c} j {j}: |{g}| > {lambda}");
                    } else {
                        assert!((g + lambda * w.signum()).abs() <= 1e-9, "k {k} m {m} class {c} j {j}: {g}");
                    }
                }
            }
            sizes.push(model.coefficients().iter().filter(|w| **w != 0.0).count());
        }
        assert!(sizes[0] >= k, "{sizes:?}");
        assert_eq!(*sizes.last().unwrap(), 0, "{sizes:?}");
    }
}

#[test]
fn l1_multinomial_objective_is_minimal_against_perturbations() {
    // The objective at the solution is not beaten by small moves of any coefficient or intercept.
    let (n, d, k) = (120, 4, 3);
    let data = class_data(n, d, k as u32, 77);
    let all = data.all();
    let lambda = 0.01;
    let Model::Logistic(model) = l1_family(vec![lambda], k).fit(&all, 0).unwrap() else { panic!() };
    let objective = |w: &[f64], b: &[f64]| {
        let mut loss = 0.0;
        for i in 0..n {
            let z: Vec<f64> = (0..k).map(|c| b[c] + dot(&w[c * d..(c + 1) * d], all.x(i))).collect();
            loss += log_sum_exp(&z) - z[all.class(i) as usize];
        }
        loss / n as f64 + lambda * w.iter().map(|v| v.abs()).sum::<f64>()
    };
    let (w, b) = (model.coefficients().to_vec(), model.intercepts().to_vec());
    let best = objective(&w, &b);
    for idx in 0..w.len() + b.len() {
        for step in [1e-4, -1e-4] {
            let (mut w2, mut b2) = (w.clone(), b.clone());
            if idx < w.len() {
                w2[idx] += step
            } else {
                b2[idx - w.len()] += step
            }
            assert!(objective(&w2, &b2) >= best - 1e-12, "coordinate {idx} step {step}");
        }
    }
}

#[test]
fn vector_sweep_gives_the_baseline_bits() {
    for k in [2, 3, 20] {
        let data = class_data(300, 7, k, 21);
        let mut problem = Problem::new(&data.all(), k as usize).unwrap();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(u64::from(k));
        for scale in [0.1, 3.0, 300.0] {
            let theta: Vec<f64> = (0..problem.n_params()).map(|_| scale * (rng.random::<f64>() - 0.5)).collect();
            let mut results = Vec::new();
            for vector in [true, false] {
                problem.vector = vector;
                let mut grad = vec![0.0; theta.len()];
                let f = problem.value_gradient(&theta, &mut grad, 0.01, &mut Work::default());
                results.push((f.to_bits(), grad.iter().map(|g| g.to_bits()).collect::<Vec<_>>()));
            }
            assert_eq!(results[0], results[1], "k = {k}, scale = {scale}");
        }
    }
}

/// A survey-like table nobody standardised: two columns of scale 10⁵ (one log-normal), one of
/// scale 10, one of scale 1, three one-hot columns; classes from a softmax of the standardised
/// columns.
fn unscaled_survey(n: usize, k: u32, seed: u64) -> Dataset {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut x = Vec::with_capacity(n * 7);
    let mut labels = Vec::with_capacity(n);
    for _ in 0..n {
        let u: [f64; 4] = std::array::from_fn(|_| rng.random::<f64>() * 2.0 - 1.0);
        let level = rng.random_range(0..4u32);
        let row = [
            (11.5 + 1.2 * u[0]).exp(),
            60_000.0 + 40_000.0 * u[1],
            54.0 + 36.0 * u[2],
            1.5 * u[3],
            f64::from(u8::from(level == 1)),
            f64::from(u8::from(level == 2)),
            f64::from(u8::from(level == 3)),
        ];
        let logits: Vec<f64> =
            (0..k).map(|c| f64::from(c) * 0.3 * (u[0] - u[1] + u[2] * u[3]) + if level == c { 0.5 } else { 0.0 }).collect();
        let total: f64 = logits.iter().map(|z| z.exp()).sum();
        let mut draw = rng.random::<f64>() * total;
        let mut label = k - 1;
        for (c, z) in logits.iter().enumerate() {
            draw -= z.exp();
            if draw <= 0.0 {
                label = c as u32;
                break;
            }
        }
        x.extend(row);
        labels.push(label);
    }
    let names = (0..k).map(|c| format!("c{c}")).collect();
    let features = ["population", "income", "age", "score", "b", "c", "d"].map(String::from).to_vec();
    Dataset::new(x, features, Target::Classes { labels, names }, "vote").unwrap()
}

/// On unscaled columns the preconditioned L-BFGS solves each λ to 10⁻⁸ in a few tens of
/// iterations, where the plain one takes hundreds to reach 10⁻⁶ (and stalled short of 10⁻⁸); both
/// reach the same objective (only the search directions differ).
#[test]
fn preconditioning_solves_unscaled_columns_in_few_iterations() {
    for k in [2u32, 4] {
        let data = unscaled_survey(1800, k, 5);
        let problem = Problem::new(&data.all(), k as usize).unwrap();
        assert_eq!(problem.mean_squares.len(), 7, "{k} classes: preconditioned");
        for lambda in [1401.0, 95.6, 1.0, 0.01, 1e-4] {
            let solve = |diagonal: &[f64], tol: f64| {
                let mut theta = vec![0.0; problem.n_params()];
                let mut work = Work::default();
                let mut objective = |t: &[f64], g: &mut [f64]| problem.value_gradient(t, g, lambda, &mut work);
                let iterations = lbfgs::minimize(
                    &mut objective,
                    &mut theta,
                    &mut lbfgs::Memory::new(),
                    None,
                    &lbfgs::Settings { tol, max_iter: 5_000, diagonal },
                    &|| "test".into(),
                );
                let mut grad = vec![0.0; theta.len()];
                (iterations, problem.value_gradient(&theta, &mut grad, lambda, &mut Work::default()))
            };
            let (fast, f_fast) = solve(&problem.diagonal(lambda), 1e-8);
            let fast = fast.unwrap();
            let (slow, f_slow) = solve(&[], 1e-6);
            let slow = slow.unwrap();
            assert!(fast <= 60 && slow >= 3 * fast, "{k} classes, lambda {lambda}: {fast} preconditioned vs {slow} plain iterations");
            assert!((f_fast - f_slow).abs() <= 1e-9 * f_slow, "{k} classes, lambda {lambda}: {f_fast} vs {f_slow}");
        }
    }
    // Well-scaled columns are solved as before (no preconditioning: the goldens keep their bits).
    let problem = Problem::new(&class_data(150, 4, 3, 3).all(), 3).unwrap();
    assert!(problem.mean_squares.is_empty() && problem.diagonal(0.1).is_empty());
}
