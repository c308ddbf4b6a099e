//! The SVM family against an independent implementation (libsvm-rs 0.9, a line-by-line port of
//! LIBSVM 3.x, dev-dependency only) and end to end through Agghoo.
//!
//! Tolerances: both solvers stop at LIBSVM's criterion `m(α) − M(α) < eps`; at eps = 1e-3 the dual
//! objectives agree to 1e-3 relative (the required agreement), at eps = 1e-9 to 1e-7. A gap of
//! eps bounds the dual suboptimality by about `eps · Σα ≤ eps · C n`, hence the distance between
//! the two functions by `√(2 eps C n)` in RKHS norm: at C = 250 that is 1e-2 for eps = 1e-9, so
//! the tight comparison of f uses 1e-3 (observed: 2e-4), not the objective's 1e-7. The
//! decision functions are compared through the kernel part `f − b` and b separately, because b is
//! not unique when few α are free (both solvers then pick a point of the optimal interval).

use agghoo::data::{Dataset, Target, View, generators};
use agghoo::family::svm::{SvmFamily, SvmKind, SvmModel, SvmSettings};
use agghoo::family::{self, Family, FamilyKind, FamilyParams, GridSpec, Model, Predictor};
use agghoo::resample::MonteCarlo;
use agghoo::select::{self, Method, SelectConfig};
use agghoo::{Loss, Predictions, Seed};
use libsvm_rs::{KernelType, SvmNode, SvmParameter, SvmProblem, SvmType};

fn nodes(x: &[f64]) -> Vec<SvmNode> {
    x.iter().enumerate().map(|(j, &v)| SvmNode { index: j as i32 + 1, value: v }).collect()
}

fn kernel(a: &[f64], b: &[f64], gamma: f64) -> f64 {
    (-gamma * a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum::<f64>()).exp()
}

/// Class-1-positive label of row i as ±1, or the regression target.
fn target(v: &View<'_>, i: usize, kind: SvmKind) -> f64 {
    match kind {
        SvmKind::Svc => {
            if v.class(i) == 1 {
                1.0
            } else {
                -1.0
            }
        }
        SvmKind::Svr => v.y(i),
    }
}

/// LIBSVM's dual objective from the expansion β over the training rows:
/// SVC `½ βᵀKβ − Σ|β|` (β = yα); SVR `½ βᵀKβ + ε Σ|β| − Σ z β` (β = α − α*, α α* = 0).
fn dual_objective(train: &View<'_>, beta: &[f64], gamma: f64, kind: SvmKind, epsilon: f64) -> f64 {
    let n = train.len();
    let mut quad = 0.0;
    for s in (0..n).filter(|&s| beta[s] != 0.0) {
        for t in (0..n).filter(|&t| beta[t] != 0.0) {
            quad += beta[s] * beta[t] * kernel(train.x(s), train.x(t), gamma);
        }
    }
    let abs: f64 = beta.iter().map(|b| b.abs()).sum();
    match kind {
        SvmKind::Svc => 0.5 * quad - abs,
        SvmKind::Svr => 0.5 * quad + epsilon * abs - (0..n).map(|i| train.y(i) * beta[i]).sum::<f64>(),
    }
}

/// Position in `train` of a support vector (the test data have distinct rows).
fn position(train: &View<'_>, x: &[f64]) -> usize {
    (0..train.len()).find(|&i| train.x(i) == x).expect("a support vector is a training row")
}

struct Fit {
    beta: Vec<f64>,
    bias: f64,
    decision: Vec<f64>,
}

fn ours(kind: SvmKind, train: &View<'_>, val: &View<'_>, c: f64, s: SvmSettings) -> Fit {
    let fam = SvmFamily::new(kind, vec![c], true, s).unwrap();
    let Model::Svm(m) = fam.fit(train, 0).unwrap() else { panic!("an SVM model") };
    let mut beta = vec![0.0; train.len()];
    for k in 0..m.n_support() {
        beta[position(train, m.support_vector(k))] += m.dual_coef()[k];
    }
    Fit { beta, bias: m.bias(), decision: m.decision(val).unwrap() }
}

fn libsvm(kind: SvmKind, train: &View<'_>, val: &View<'_>, c: f64, s: SvmSettings) -> Fit {
    libsvm_rs::set_quiet(true);
    let problem = SvmProblem {
        labels: (0..train.len()).map(|i| target(train, i, kind)).collect(),
        instances: (0..train.len()).map(|i| nodes(train.x(i))).collect(),
    };
    let param = SvmParameter {
        svm_type: if kind == SvmKind::Svc { SvmType::CSvc } else { SvmType::EpsilonSvr },
        kernel_type: KernelType::Rbf,
        gamma: s.gamma,
        c,
        p: s.epsilon,
        eps: s.tol,
        shrinking: s.shrinking,
        ..Default::default()
    };
    let model = libsvm_rs::train::svm_train(&problem, &param);
    // LIBSVM's decision is positive for its first label (the first one seen in training)
    let sign = if kind == SvmKind::Svc && model.label[0] != 1 { -1.0 } else { 1.0 };
    let mut beta = vec![0.0; train.len()];
    for (k, &idx) in model.sv_indices.iter().enumerate() {
        beta[idx - 1] += sign * model.sv_coef[0][k];
    }
    let decision = (0..val.len())
        .map(|i| {
            let mut dec = [0.0];
            libsvm_rs::predict::predict_values(&model, &nodes(val.x(i)), &mut dec);
            sign * dec[0]
        })
        .collect();
    Fit { beta, bias: -sign * model.rho[0], decision }
}

fn blobs(n: usize, seed: u64) -> Dataset {
    // two overlapping classes in 2-D, from the SVR generator's draws (any continuous draws do)
    let a = generators::svr_problem(n, Seed(seed), 0).unwrap();
    let b = generators::svr_problem(n, Seed(seed), 1).unwrap();
    let mut x = Vec::with_capacity(2 * n);
    let mut labels = Vec::with_capacity(n);
    for i in 0..n {
        let c = u32::from(a.target().value(i) > 2.0);
        x.push(a.row(i)[0] * 0.5 + if c == 1 { 0.5 } else { -0.5 });
        x.push(b.row(i)[0] * 0.5);
        labels.push(c);
    }
    Dataset::new(x, vec!["u".into(), "v".into()], Target::Classes { labels, names: vec!["0".into(), "1".into()] }, "y").unwrap()
}

fn compare(kind: SvmKind, data: &Dataset, n_train: usize, cs: &[f64], s: SvmSettings, obj_rel: f64, f_abs: f64) {
    let rows: Vec<usize> = (0..data.n_rows()).collect();
    let (train, val) = (data.view(&rows[..n_train]), data.view(&rows[n_train..]));
    for &c in cs {
        let (a, b) = (ours(kind, &train, &val, c, s), libsvm(kind, &train, &val, c, s));
        let (oa, ob) =
            (dual_objective(&train, &a.beta, s.gamma, kind, s.epsilon), dual_objective(&train, &b.beta, s.gamma, kind, s.epsilon));
        assert!((oa - ob).abs() <= obj_rel * ob.abs(), "{kind:?} C = {c}: objective {oa} vs LIBSVM {ob}");
        for i in 0..val.len() {
            let (ka, kb) = (a.decision[i] - a.bias, b.decision[i] - b.bias);
            assert!((ka - kb).abs() <= f_abs, "{kind:?} C = {c} row {i}: f − b = {ka} vs LIBSVM {kb}");
        }
        assert!((a.bias - b.bias).abs() <= 10.0 * f_abs.max(s.tol), "{kind:?} C = {c}: b = {} vs LIBSVM {}", a.bias, b.bias);
    }
}

#[test]
fn svr_agrees_with_libsvm() {
    let data = generators::svr_problem(300, Seed(7), 0).unwrap();
    let paper = SvmSettings { gamma: 2.0, epsilon: 0.25, tol: 1e-3, shrinking: true };
    compare(SvmKind::Svr, &data, 240, &[0.01, 1.0, 250.0], paper, 1e-3, 5e-2);
    let tight = SvmSettings { tol: 1e-9, ..paper };
    compare(SvmKind::Svr, &data, 240, &[0.01, 1.0, 250.0], tight, 1e-7, 1e-3);
}

#[test]
fn svc_agrees_with_libsvm() {
    let data = blobs(300, 3);
    let s = SvmSettings { gamma: 0.5, epsilon: 0.0, tol: 1e-3, shrinking: true };
    compare(SvmKind::Svc, &data, 240, &[0.05, 1.0, 100.0], s, 1e-3, 5e-2);
    let tight = SvmSettings { tol: 1e-9, ..s };
    compare(SvmKind::Svc, &data, 240, &[0.05, 1.0, 100.0], tight, 1e-7, 1e-3);
}

/// Agghoo on the papers' ε-regression problem: its prediction (the mean of the V members) is the
/// prediction of the single merged machine.
#[test]
fn agghoo_prediction_is_the_merged_machine() {
    let data = generators::svr_problem(200, Seed(11), 0).unwrap();
    let test = generators::svr_problem(100, Seed(11), 1).unwrap();
    let params = FamilyParams::default().set("gamma", 2).set("epsilon", 0.25);
    let fam = family::build(FamilyKind::Svr, &params, &data).unwrap();
    assert_eq!(fam.grid().name(), "lambda");
    let splits = MonteCarlo::new(5, 0.8).unwrap().instantiate(200, Seed(2)).unwrap();
    let mut config = SelectConfig::new(Method::Agghoo);
    config.loss = Some(Loss::Absolute);
    let (fitted, _) = select::select(fam.as_ref(), &data, &splits, &config).unwrap();
    let members: Vec<&SvmModel> = fitted
        .members()
        .iter()
        .map(|m| match &m.model {
            Model::Svm(s) => s,
            other => panic!("an SVM member, got {other:?}"),
        })
        .collect();
    let merged = SvmModel::merge_mean(&members).unwrap();
    let want = fitted.predict(&test).unwrap();
    let got = merged.decision(&test.all()).unwrap();
    #[allow(clippy::needless_range_loop)]
    for i in 0..test.n_rows() {
        assert!((got[i] - want.value(i)).abs() < 1e-12, "row {i}");
    }
    // the CLI form of the C grid
    let by_c = family::build(FamilyKind::Svr, &params.clone().set("grid", "C"), &data).unwrap();
    assert_eq!(by_c.grid().name(), "C");
    assert!(!by_c.grid().larger_is_simpler());
    let explicit = FamilyParams { grid: Some(GridSpec::parse("0.5,8").unwrap()), ..params.set("grid", "C") };
    assert_eq!(family::build(FamilyKind::Svr, &explicit, &data).unwrap().grid().values(), [0.5, 8.0]);
}

// ---- more than two classes: one-vs-one ----

/// The data of `bench/peers/svc_ovo_reference.py` (same expressions, exact in both languages):
/// 60 training rows around three centres, class i mod 3, and a 6 × 5 grid of test rows.
fn sklearn_ovo_data() -> (Dataset, Dataset) {
    let centres = [(0.0, 0.0), (1.2, 0.3), (0.4, 1.1)];
    let mut x = Vec::new();
    let mut labels = Vec::new();
    for i in 0..60usize {
        let c = i % 3;
        let u = ((37 * i) % 61) as f64 / 61.0;
        let v = ((53 * i) % 67) as f64 / 67.0;
        x.push(centres[c].0 + 2.0 * u - 1.0);
        x.push(centres[c].1 + 2.0 * v - 1.0);
        labels.push(c as u32);
    }
    let names: Vec<String> = (0..3).map(|c| c.to_string()).collect();
    let train = Dataset::new(x, vec!["u".into(), "v".into()], Target::Classes { labels, names: names.clone() }, "y").unwrap();
    let test_x: Vec<f64> = (0..30usize).flat_map(|j| [-1.0 + (j % 6) as f64 * 0.5, -1.0 + (j / 6) as f64 * 0.6]).collect();
    let test = Dataset::new(test_x, vec!["u".into(), "v".into()], Target::Classes { labels: vec![0; 30], names }, "y").unwrap();
    (train, test)
}

/// scikit-learn 1.9.1 `SVC(kernel="rbf", gamma=0.5, C=1, tol=1e-10, decision_function_shape="ovo")`
/// on [`sklearn_ovo_data`]: `predict` and `decision_function` (pairs (0,1), (0,2), (1,2), positive
/// for the first class), printed by `/work/main/.venv/bin/python bench/peers/svc_ovo_reference.py`
/// and pasted here once (9 significant digits).
const SKLEARN_LABELS_C1: [u32; 30] = [0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0, 2, 2, 1, 1, 0, 2, 2, 2, 2, 2];
const SKLEARN_DECISIONS_C1: [[f64; 3]; 30] = [
    [0.999999963, 0.999999984, -0.194100514],
    [1.19783049, 1.1785714, 0.0658370414],
    [1.03033432, 1.29582967, 0.50290246],
    [0.435768631, 1.27839883, 0.917080205],
    [-0.336907778, 1.05278262, 1.09613381],
    [-0.870855031, 0.680481198, 0.996132541],
    [1.30013278, 1.2692465, -0.58992096],
    [1.5791942, 1.43764216, -0.35385066],
    [1.32731754, 1.48795964, 0.217788151],
    [0.467660354, 1.34315554, 0.883409083],
    [-0.604732573, 0.950929779, 1.31416978],
    [-1.28955713, 0.445959193, 1.36416124],
    [1.33932737, 1.27944236, -0.966525539],
    [1.55215368, 1.22478249, -0.861607091],
    [1.13401981, 0.989630385, -0.338489833],
    [0.0879849058, 0.602510796, 0.402802979],
    [-1.05838242, 0.102810041, 1.02494491],
    [-1.6596339, -0.335955563, 1.30970389],
    [1.05746951, 0.820252015, -1.08602087],
    [1.06956743, 0.429704276, -1.15526322],
    [0.490412461, -0.106380187, -0.879809628],
    [-0.54037388, -0.615397797, -0.347539014],
    [-1.46584624, -0.996690526, 0.24713942],
    [-1.77853746, -1.14414391, 0.714933484],
    [0.588859956, 0.0397828976, -0.977350331],
    [0.433261222, -0.537853231, -1.18212507],
    [-0.142048156, -1.10721705, -1.19782943],
    [-0.925026317, -1.45276695, -1.0010487],
    [-1.47393607, -1.52382196, -0.601766183],
    [-1.50575173, -1.35046041, -0.0957569983],
];
/// As [`SKLEARN_LABELS_C1`] with C = 20.
const SKLEARN_LABELS_C20: [u32; 30] = [0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 2, 1, 1, 0, 2, 2, 2, 2, 2];
const SKLEARN_DECISIONS_C20: [[f64; 3]; 30] = [
    [0.999999341, 1.03982509, -0.981989082],
    [0.611270632, 1.01293833, -0.569031555],
    [0.308757362, 1.11082688, 0.615985215],
    [0.113669391, 1.17973403, 1.90406712],
    [-0.414012708, 0.935641895, 2.35630492],
    [-1.30886216, 0.415938243, 1.84311458],
    [2.36384153, 1.00480505, -2.76008942],
    [2.91075082, 0.958339183, -2.66429161],
    [2.87346517, 1.20798148, -1.12895635],
    [1.8034283, 1.3439812, 0.871083079],
    [-0.278083631, 0.840079992, 1.87077621],
    [-2.37852999, -0.101008566, 1.65754575],
    [3.26247363, 1.36300718, -3.93746035],
    [4.36430545, 1.01966397, -3.92611701],
    [3.97375417, 1.05590984, -2.20333612],
    [1.56955134, 1.01326502, -0.0455616914],
    [-1.8980832, 0.218279322, 1.0552348],
    [-4.47072279, -1.01580752, 1.22845103],
    [2.77481059, 1.6096932, -3.4666246],
    [3.5105032, 0.614877102, -3.18105067],
    [2.36350509, 0.0549651224, -1.66150263],
    [-0.749263823, -0.213490861, -0.240305894],
    [-4.22272014, -0.877318874, 0.301710905],
    [-6.03101642, -1.81849062, 0.771797913],
    [1.18566413, 0.946772087, -2.11652573],
    [1.16249662, -0.587904911, -1.74225302],
    [-0.345461341, -1.58925179, -0.972327125],
    [-2.96279008, -1.80900467, -0.748589818],
    [-5.19762045, -1.86158834, -0.895038495],
    [-5.76408657, -2.02214205, -0.19781901],
];

/// Three classes: the same labels as scikit-learn's `SVC` (LIBSVM's one-vs-one) and the same
/// pair decision values. Both solvers run at tol 1e-10 and reach the same dual objective to about
/// 1e-11 (checked on pair (0, 1) at C = 20: −148.85784149280 both); an objective gap δ allows the
/// functions to differ by up to `√(2δ) ≈ 5e-6` in RKHS norm, which bounds the sup norm
/// (K(x, x) = 1). Observed: 1e-7 at C = 1, 3.5e-6 at C = 20; asserted: 1e-5.
#[test]
fn ovo_agrees_with_scikit_learn() {
    let (train, test) = sklearn_ovo_data();
    for (c, labels, decisions) in [(1.0, SKLEARN_LABELS_C1, SKLEARN_DECISIONS_C1), (20.0, SKLEARN_LABELS_C20, SKLEARN_DECISIONS_C20)] {
        let fam =
            SvmFamily::new(SvmKind::Svc, vec![c], true, SvmSettings { gamma: 0.5, epsilon: 0.0, tol: 1e-10, shrinking: true }).unwrap();
        let Model::OneVsOneSvc(m) = fam.fit(&train.all(), 0).unwrap() else { panic!("a one-vs-one SVC") };
        assert_eq!(m.pairs(), [(0, 1), (0, 2), (1, 2)]);
        assert_eq!(m.predict(&test.all()).unwrap().labels().unwrap(), labels, "C = {c}");
        let ours = m.decisions(&test.all()).unwrap();
        for (i, want) in decisions.iter().enumerate() {
            for q in 0..3 {
                assert!((ours[q][i] - want[q]).abs() < 1e-5, "C = {c} row {i} pair {q}: {} vs {}", ours[q][i], want[q]);
            }
        }
    }
}

/// Four classes against libsvm-rs's one-vs-one (training rows ordered so that LIBSVM's labels
/// are 0, 1, 2, 3 in first-seen order): the pair decisions agree to the solvers' tolerance and
/// the labels agree wherever no pair decision is within that tolerance of 0.
#[test]
#[allow(clippy::needless_range_loop)] // [pair][row] indexing reads like LIBSVM's dec_values
fn ovo_agrees_with_libsvm() {
    let k = 4u32;
    let n = 240usize;
    let a = generators::svr_problem(n, Seed(21), 0).unwrap();
    let b = generators::svr_problem(n, Seed(21), 1).unwrap();
    let mut x = Vec::new();
    let mut labels = Vec::new();
    for i in 0..n {
        let c = (i as u32) % k;
        let angle = std::f64::consts::TAU * f64::from(c) / f64::from(k);
        x.push(angle.cos() + a.row(i)[0] - std::f64::consts::PI);
        x.push(angle.sin() + (b.target().value(i) - 1.5));
        labels.push(c);
    }
    let names = (0..k).map(|c| c.to_string()).collect();
    let data = Dataset::new(x, vec!["u".into(), "v".into()], Target::Classes { labels, names }, "y").unwrap();
    let rows: Vec<usize> = (0..n).collect();
    let (train, val) = (data.view(&rows[..180]), data.view(&rows[180..]));
    let s = SvmSettings { gamma: 0.8, epsilon: 0.0, tol: 1e-9, shrinking: true };
    libsvm_rs::set_quiet(true);
    for c in [0.1, 5.0] {
        let fam = SvmFamily::new(SvmKind::Svc, vec![c], true, s).unwrap();
        let Model::OneVsOneSvc(m) = fam.fit(&train, 0).unwrap() else { panic!("a one-vs-one SVC") };
        let ours = m.decisions(&val).unwrap();
        let pred = m.predict(&val).unwrap();
        let problem = SvmProblem {
            labels: (0..train.len()).map(|i| f64::from(train.class(i))).collect(),
            instances: (0..train.len()).map(|i| nodes(train.x(i))).collect(),
        };
        let param = SvmParameter {
            svm_type: SvmType::CSvc,
            kernel_type: KernelType::Rbf,
            gamma: s.gamma,
            c,
            eps: s.tol,
            shrinking: true,
            ..Default::default()
        };
        let model = libsvm_rs::train::svm_train(&problem, &param);
        assert_eq!(model.label, [0, 1, 2, 3]);
        let mut compared = 0;
        for i in 0..val.len() {
            let mut dec = [0.0; 6];
            libsvm_rs::predict::predict_values(&model, &nodes(val.x(i)), &mut dec);
            for q in 0..6 {
                assert!((ours[q][i] - dec[q]).abs() < 1e-4, "C = {c} row {i} pair {q}: {} vs LIBSVM {}", ours[q][i], dec[q]);
            }
            if dec.iter().all(|d| d.abs() > 1e-3) {
                compared += 1;
                let mut votes = [0; 4];
                for (q, &(p, r)) in m.pairs().iter().enumerate() {
                    votes[if dec[q] > 0.0 { p } else { r } as usize] += 1;
                }
                let top = *votes.iter().max().unwrap();
                let want = votes.iter().position(|&v| v == top).unwrap() as u32; // LIBSVM: first maximum
                assert_eq!(pred.labels().unwrap()[i], want, "C = {c} row {i}");
            }
        }
        assert!(compared >= 50, "{compared} rows compared");
    }
}

/// Majhoo and Agghoo on three classes: the members are one-vs-one machines combined by the vote
/// (hard or soft: the vote fractions are the `proba`), the fitted model round-trips; the score
/// mean is refused before fitting.
#[test]
fn majhoo_on_three_classes() {
    let (train, test) = sklearn_ovo_data();
    let fam = family::build(FamilyKind::Svc, &FamilyParams::default(), &train).unwrap();
    let splits = MonteCarlo::new(4, 0.75).unwrap().instantiate(60, Seed(3)).unwrap();
    for method in [Method::Majhoo, Method::Agghoo] {
        let (fitted, report) = select::select(fam.as_ref(), &train, &splits, &SelectConfig::new(method)).unwrap();
        assert_eq!(report.aggregation, agghoo::select::Aggregation::Vote);
        assert!(!fitted.is_merged());
        assert!(fitted.members().iter().all(|m| matches!(m.model, Model::OneVsOneSvc(_))));
        let pred = fitted.predict(&test).unwrap();
        let Predictions::Classes { labels, n_classes: 3, proba: Some(_), .. } = &pred else { panic!("{pred:?}") };
        // the vote of the members' labels, recomputed
        let member_labels: Vec<Vec<u32>> =
            fitted.members().iter().map(|m| m.model.predict(&test.all()).unwrap().labels().unwrap().to_vec()).collect();
        for i in 0..30 {
            let count = |c: u32| member_labels.iter().filter(|l| l[i] == c).count();
            assert!((0..3).all(|c| count(labels[i]) >= count(c)), "row {i}");
        }
        let text = serde_json::to_string(&fitted).unwrap();
        let back = agghoo::select::FittedModel::from_json(&text, std::path::Path::new("m.json")).unwrap();
        assert_eq!(back.predict(&test).unwrap(), pred);
    }
    let mut soft = SelectConfig::new(Method::Majhoo);
    soft.aggregation = Some(agghoo::select::Aggregation::SoftVote);
    let (fitted, _) = select::select(fam.as_ref(), &train, &splits, &soft).unwrap();
    let Predictions::Classes { proba: Some(p), .. } = fitted.predict(&test).unwrap() else { panic!() };
    assert!(p.chunks(3).all(|r| (r.iter().sum::<f64>() - 1.0).abs() < 1e-12));
    let mut score = SelectConfig::new(Method::Agghoo);
    score.aggregation = Some(agghoo::select::Aggregation::ScoreMean);
    assert!(matches!(select::select(fam.as_ref(), &train, &splits, &score), Err(agghoo::Error::TaskMismatch(_))));
}

// ---- the warm-started path on many ordinary problems ----

/// A small problem of the given kind from `seed`: `d` features (integer-valued for classes, so
/// points repeat as in the cytology scores of breast cancer) with a scale per column (raw) or
/// z-scored (standardised), and a fifth of the rows duplicated exactly. Regression targets are
/// unscaled (`150 + Xβ + noise`, sd ≈ 90); classes come from a noisy linear score (2 or 3 classes).
fn ordinary_problem(seed: u64, classes: usize, standardised: bool) -> Dataset {
    use rand::{RngExt, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let normal = |rng: &mut rand_chacha::ChaCha8Rng| -> f64 { rng.sample(rand_distr::StandardNormal) };
    let d = 2 + (seed % 4) as usize;
    let n0 = 60 + (seed % 41) as usize;
    let scales: Vec<f64> = (0..d).map(|j| [1.0, 30.0, 0.05, 4.0][j % 4]).collect();
    let beta: Vec<f64> = (0..d).map(|_| 20.0 * normal(&mut rng)).collect();
    let mut x = Vec::new();
    let mut score = Vec::new();
    for _ in 0..n0 {
        let z: Vec<f64> = (0..d).map(|_| normal(&mut rng)).collect();
        score.push(z.iter().zip(&beta).map(|(a, b)| a * b).sum::<f64>() + 50.0 * normal(&mut rng));
        // classification: integer-valued features (as the cytology scores of breast cancer), so
        // many points repeat with either label; regression keeps continuous features (its dual
        // objective below is computed per support vector from its target, which a point shared by
        // rows of different targets would make ambiguous) and repeats rows only exactly
        x.extend(z.iter().zip(&scales).map(|(z, s)| if classes > 0 { (2.0 * z).round() * s } else { z * s }));
    }
    // a fifth of the rows again, identical (features and target)
    for i in 0..n0 / 5 {
        let r = (i * 7 + seed as usize) % n0;
        x.extend_from_within(r * d..(r + 1) * d);
        score.push(score[r]);
    }
    let n = score.len();
    if standardised {
        for j in 0..d {
            let col: Vec<f64> = (0..n).map(|i| x[i * d + j]).collect();
            let mean = col.iter().sum::<f64>() / n as f64;
            let sd = (col.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n as f64).sqrt();
            (0..n).for_each(|i| x[i * d + j] = (x[i * d + j] - mean) / sd);
        }
    }
    let names: Vec<String> = (0..d).map(|j| format!("x{j}")).collect();
    let target = if classes == 0 {
        Target::Real(score.iter().map(|s| 150.0 + s).collect())
    } else {
        let mut sorted = score.clone();
        sorted.sort_by(f64::total_cmp);
        let cuts: Vec<f64> = (1..classes).map(|c| sorted[c * n / classes]).collect();
        let labels = score.iter().map(|s| cuts.iter().filter(|&&c| *s >= c).count() as u32).collect();
        Target::Classes { labels, names: (0..classes).map(|c| c.to_string()).collect() }
    };
    Dataset::new(x, names, target, "y").unwrap()
}

/// LIBSVM's dual objective of a kernel expansion `Σ_k c_k K(s_k, ·)` (SVC: `½ cᵀKc − Σ|c|`;
/// SVR: `½ cᵀKc + ε Σ|c| − Σ z_k c_k`, z_k the target of support vector k).
fn expansion_objective(sv: &[(&[f64], f64, f64)], gamma: f64, kind: SvmKind, epsilon: f64) -> f64 {
    let quad: f64 = sv.iter().map(|(a, ca, _)| sv.iter().map(|(b, cb, _)| ca * cb * kernel(a, b, gamma)).sum::<f64>()).sum();
    let abs: f64 = sv.iter().map(|(_, c, _)| c.abs()).sum();
    match kind {
        SvmKind::Svc => 0.5 * quad - abs,
        SvmKind::Svr => 0.5 * quad + epsilon * abs - sv.iter().map(|(_, c, z)| c * z).sum::<f64>(),
    }
}

/// Every grid point of our warm-started path against a cold LIBSVM fit at the same C: the dual
/// objectives agree within the suboptimality both stopping rules allow. A gap `m − M < ε` bounds
/// `f(α) − f* ≤ ε ‖α − α*‖₁ ≤ ε C l` (convexity and `yᵀ(α − α*) = 0`), so two such solutions
/// differ by at most `2 ε C l`.
fn path_matches_libsvm(kind: SvmKind, train: &View<'_>, cs: &[f64], s: SvmSettings, what: &str) {
    let fam = SvmFamily::new(kind, cs.to_vec(), true, s).unwrap();
    let path = fam.fit_path(train).unwrap_or_else(|e| panic!("{what}: the path failed: {e}"));
    let l = if kind == SvmKind::Svr { 2 * train.len() } else { train.len() } as f64;
    // the grid holds the values simplest (smallest C) first
    for (m, &c) in fam.grid().values().iter().enumerate() {
        let Model::Svm(ours) = path.model(m).unwrap() else { panic!("{what}: an SVM model") };
        let sv: Vec<(&[f64], f64, f64)> = (0..ours.n_support())
            .map(|k| {
                let x = ours.support_vector(k);
                (x, ours.dual_coef()[k], target(train, position(train, x), kind))
            })
            .collect();
        let oa = expansion_objective(&sv, s.gamma, kind, s.epsilon);
        let b = libsvm(kind, train, train, c, s);
        let sv: Vec<(&[f64], f64, f64)> =
            (0..train.len()).filter(|&i| b.beta[i] != 0.0).map(|i| (train.x(i), b.beta[i], target(train, i, kind))).collect();
        let ob = expansion_objective(&sv, s.gamma, kind, s.epsilon);
        let bound = 2.0 * s.tol * c * l + 1e-9 * ob.abs();
        assert!((oa - ob).abs() <= bound, "{what} C = {c}: objective {oa} vs LIBSVM {ob} (bound {bound:.2e})");
    }
}

/// The 17-point C grid `2^{-5}, …, 2^{15}` (LIBSVM's guide range) along which paths are solved.
fn c_grid() -> Vec<f64> {
    (0..17).map(|k| 2f64.powf(-5.0 + 20.0 * k as f64 / 16.0)).collect()
}

/// Hundreds of ordinary problems — binary, three classes and regression with an unscaled target,
/// raw (columns on scales 0.05 to 30) and standardised, a fifth of the rows duplicated — solved
/// along the 17-point C grid at LIBSVM's default tolerance: every path converges and passes the
/// solver's feasibility guard (a failure is an error, so `fit_path` returning is the check).
/// Before the Newton step was made feasibility-safe, one of them (seed 14, three classes, raw)
/// failed with `yᵀα ≠ 0` at C = 2⁻⁵; the reported real-data failures are tested in the CLI suite.
#[test]
fn warm_started_paths_converge_on_hundreds_of_ordinary_problems() {
    let cs = c_grid();
    let mut solved = 0;
    for seed in 0..60 {
        for standardised in [false, true] {
            for (kind, classes) in [(SvmKind::Svc, 2), (SvmKind::Svc, 3), (SvmKind::Svr, 0)] {
                let data = ordinary_problem(seed, classes, standardised);
                let rows: Vec<usize> = (0..data.n_rows()).collect();
                let gamma = 1.0 / data.n_features() as f64;
                let s = SvmSettings { gamma, epsilon: 0.1, tol: 1e-3, shrinking: seed % 2 == 0 };
                let fam = SvmFamily::new(kind, cs.clone(), true, s).unwrap();
                let path = fam.fit_path(&data.view(&rows));
                assert!(path.is_ok(), "seed {seed}, {kind:?}, {classes} classes, standardised {standardised}: {}", path.err().unwrap());
                solved += 1;
            }
        }
    }
    assert_eq!(solved, 360);
}

/// The same kind of problems at a tight tolerance, each grid point against LIBSVM (binary and
/// regression; each one-vs-one pair is such a binary problem on its two classes' rows).
#[test]
fn warm_started_paths_agree_with_libsvm_on_ordinary_problems() {
    let cs = c_grid();
    for seed in 0..24 {
        for standardised in [false, true] {
            for (kind, classes) in [(SvmKind::Svc, 2), (SvmKind::Svr, 0)] {
                let data = ordinary_problem(1000 + seed, classes, standardised);
                let rows: Vec<usize> = (0..data.n_rows()).collect();
                let s = SvmSettings { gamma: 1.0 / data.n_features() as f64, epsilon: 0.1, tol: 1e-6, shrinking: true };
                path_matches_libsvm(kind, &data.view(&rows), &cs, s, &format!("seed {seed}, {kind:?}, standardised {standardised}"));
            }
        }
    }
}

/// The two reported failures: the papers' ε-regression problem along its default λ grid (it
/// stopped at C ≈ 0.03 with `yᵀα` off by 7e-9) and an unscaled linear regression, standardised
/// (it stopped at C = 62.5, off by 6.8), now solve at every grid point and agree with LIBSVM.
#[test]
fn the_reported_svr_paths_solve_and_agree_with_libsvm() {
    let data = generators::svr_problem(200, Seed(7), 0).unwrap();
    let rows: Vec<usize> = (0..data.n_rows()).collect();
    let paper = SvmSettings { gamma: 2.0, epsilon: 0.25, tol: 1e-3, shrinking: true };
    let cs: Vec<f64> = (1..=17).map(|j| 1.0 / (2.0 * 2f64.powi(j - 1) / (500.0 * 200.0) * 200.0)).collect();
    path_matches_libsvm(SvmKind::Svr, &data.view(&rows), &cs, paper, "papers' SVR");
    for seed in 0..8 {
        let data = ordinary_problem(2000 + seed, 0, true);
        let rows: Vec<usize> = (0..data.n_rows()).collect();
        let s = SvmSettings { gamma: 1.0 / data.n_features() as f64, epsilon: 0.1, tol: 1e-3, shrinking: true };
        path_matches_libsvm(SvmKind::Svr, &data.view(&rows), &[0.5, 2.5, 12.5, 62.5, 312.5], s, &format!("standardised regression {seed}"));
    }
}
