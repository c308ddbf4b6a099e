//! The public conformance suite (`agghoo::testing`, feature `testing`) on every family of the
//! library, and on a family written outside it against the public `Family` trait only — the
//! "add a family" checklist of docs/ARCHITECTURE.md, shown end to end: the new family passes the
//! suite, and selection, aggregation and risk estimation work on it unchanged.

use agghoo::data::{Dataset, Target, Task, View, generators};
use agghoo::family::{
    self, CustomModel, CustomPredictor, Family, FamilyKind, FamilyParams, FittedPath, Grid, GridSpec, Model, Predictor, Scale, SmootherPath,
};
use agghoo::resample::{MonteCarlo, VFold};
use agghoo::select::{self, Method, SelectConfig, TieRule, argmin};
use agghoo::testing::check_family;
use agghoo::{Error, PathPredictions, Predictions, Result, Seed};

/// A regression problem on two features (the k-NN paper's design, with noise).
fn regression(n: usize, seed: u64) -> Dataset {
    let d = generators::knn_problem(n, Seed(seed)).unwrap();
    let y: Vec<f64> = (0..n).map(|i| generators::knn_g(d.row(i)[0], d.row(i)[1]) + 0.1 * ((i * 37 % 11) as f64 - 5.0)).collect();
    Dataset::new(d.x().to_vec(), d.feature_names().to_vec(), Target::Real(y), "y").unwrap()
}

/// Disjoint training (first 2/3) and validation rows.
fn halves(data: &Dataset) -> (Vec<usize>, Vec<usize>) {
    let cut = data.n_rows() * 2 / 3;
    ((0..cut).collect(), (cut..data.n_rows()).collect())
}

fn check_kind(kind: FamilyKind, params: &FamilyParams, data: &Dataset, tol: f64) {
    let fam = family::build(kind, params, data).unwrap_or_else(|e| panic!("{}: build: {e}", kind.name()));
    let (train, validation) = halves(data);
    check_family(fam.as_ref(), &data.view(&train), &data.view(&validation), tol);
}

fn grid(text: &str) -> FamilyParams {
    FamilyParams::with_grid(GridSpec::parse(text).unwrap())
}

/// The conformance cases of the library's families: each family at the settings it is checked
/// at, the tasks it is checked on (the regression problem; the binary and multi-class ones) and
/// the tolerance of its fast path against the refit. Every registered family has at least one
/// (`every_registered_family_has_a_conformance_case`).
fn cases() -> Vec<(FamilyKind, FamilyParams, &'static [Task], f64)> {
    const BOTH: &[Task] = &[Task::Regression, Task::Classification];
    const REGRESSION: &[Task] = &[Task::Regression];
    const CLASSIFICATION: &[Task] = &[Task::Classification];
    vec![
        (FamilyKind::Knn, grid("1:15:2"), BOTH, 1e-12),
        (FamilyKind::Knn, grid("1:15:2").set("weights", "distance"), BOTH, 1e-12),
        (FamilyKind::Ridge, FamilyParams::default(), REGRESSION, 1e-8),
        (FamilyKind::KernelRidge, FamilyParams::default(), REGRESSION, 1e-7),
        (FamilyKind::Lasso, FamilyParams::default(), REGRESSION, 1e-5),
        (FamilyKind::Enet, FamilyParams::default(), REGRESSION, 1e-5),
        (FamilyKind::Svr, grid("log:0.01:10:5").set("tol", "1e-10"), REGRESSION, 1e-6),
        (FamilyKind::Svc, grid("log:0.01:10:5").set("tol", "1e-10"), CLASSIFICATION, 1e-6),
        (FamilyKind::Cart, FamilyParams::default(), BOTH, 1e-12),
        (FamilyKind::Forest, grid("1,2").set("trees", 10), BOTH, 1e-12),
        (FamilyKind::Logistic, grid("log:0.01:10:4"), CLASSIFICATION, 1e-4),
        (FamilyKind::Logistic, grid("log:0.01:10:4").set("penalty", "l1"), CLASSIFICATION, 1e-4),
    ]
}

/// A family cannot be registered without a conformance case: this walks the registry.
#[test]
fn every_registered_family_has_a_conformance_case() {
    let cases = cases();
    let missing: Vec<&str> = FamilyKind::ALL.into_iter().filter(|k| !cases.iter().any(|c| c.0 == *k)).map(FamilyKind::name).collect();
    assert!(missing.is_empty(), "registered families without a conformance case (add one to `cases`): {missing:?}");
}

#[test]
fn every_regression_family_conforms() {
    let data = regression(150, 1);
    for (kind, params, tasks, tol) in cases() {
        if tasks.contains(&Task::Regression) {
            check_kind(kind, &params, &data, tol);
        }
    }
}

#[test]
fn every_classification_family_conforms() {
    let binary = generators::knn_problem(150, Seed(2)).unwrap();
    let multi = generators::covertype_like(180, Seed(3)).unwrap();
    for data in [&binary, &multi] {
        for (kind, params, tasks, tol) in cases() {
            if tasks.contains(&Task::Classification) {
                check_kind(kind, &params, data, tol);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// A family written outside agghoo: the mean shrunk towards zero, `ŷ = Σ y_i / (n + λ)`, over a
// grid of λ ≥ 0. It is a linear smoother (`S = 11ᵀ / (n + λ)`), so its leave-one-out risk has a
// closed form, and its path needs one sum per training set.

/// The shrunk-mean family.
struct ShrunkMean {
    grid: Grid,
}

impl ShrunkMean {
    fn new(lambdas: Vec<f64>) -> Self {
        // Larger λ shrinks more: the simpler rule, for the one-standard-error rule.
        Self { grid: Grid::new("lambda", lambdas, Scale::Linear, true).unwrap() }
    }
    fn sums(train: &View<'_>) -> Result<(f64, f64)> {
        if train.is_empty() {
            return Err(Error::invalid("training rows", "at least one", 0));
        }
        Ok((train.gather_y().iter().sum(), train.len() as f64))
    }
}

/// A constant prediction: the fitted model of a [`ShrunkMean`] grid point.
#[derive(Debug)]
struct Constant(f64);

impl Predictor for Constant {
    fn predict(&self, rows: &View<'_>) -> Result<Predictions> {
        Ok(Predictions::Real(vec![self.0; rows.len()]))
    }
}

impl CustomPredictor for Constant {
    fn output(&self) -> (Task, usize) {
        (Task::Regression, 0)
    }
}

/// The whole path on one training set: one sum.
struct ShrunkMeanPath<'a> {
    family: &'a ShrunkMean,
    sum: f64,
    n: f64,
}

impl ShrunkMeanPath<'_> {
    fn value(&self, m: usize) -> f64 {
        self.sum / (self.n + self.family.grid.value(m))
    }
}

impl FittedPath for ShrunkMeanPath<'_> {
    fn predict(&self, validation: &View<'_>) -> Result<PathPredictions> {
        Ok((0..self.family.grid.len()).map(|m| Predictions::Real(vec![self.value(m); validation.len()])).collect())
    }
    fn model(&self, grid_index: usize) -> Result<Model> {
        Ok(Model::Custom(CustomModel::new(Constant(self.value(grid_index)))))
    }
}

impl Family for ShrunkMean {
    fn name(&self) -> &'static str {
        "shrunk-mean"
    }
    fn grid(&self) -> &Grid {
        &self.grid
    }
    fn task(&self) -> Task {
        Task::Regression
    }
    fn fit(&self, train: &View<'_>, grid_index: usize) -> Result<Model> {
        let (sum, n) = Self::sums(train)?;
        Ok(Model::Custom(CustomModel::new(Constant(sum / (n + self.grid.value(grid_index))))))
    }
    fn fit_path<'a>(&'a self, train: &View<'a>) -> Result<Box<dyn FittedPath + 'a>> {
        let (sum, n) = Self::sums(train)?;
        Ok(Box::new(ShrunkMeanPath { family: self, sum, n }))
    }
    fn linear_smoother(&self, train: &View<'_>) -> Option<Result<SmootherPath>> {
        Some(Self::sums(train).map(|(sum, n)| SmootherPath {
            fitted: self.grid.values().iter().map(|l| vec![sum / (n + l); train.len()]).collect(),
            leverage: self.grid.values().iter().map(|l| vec![1.0 / (n + l); train.len()]).collect(),
        }))
    }
}

fn shifted_regression(n: usize, seed: u64) -> Dataset {
    // a target whose mean is far from 0, so shrinking matters
    let base = regression(n, seed);
    let Target::Real(y) = base.target().clone() else { unreachable!() };
    Dataset::new(base.x().to_vec(), base.feature_names().to_vec(), Target::Real(y.iter().map(|v| v + 3.0).collect()), "y").unwrap()
}

#[test]
fn a_family_written_outside_agghoo_passes_the_suite() {
    let data = shifted_regression(90, 4);
    let (train, validation) = halves(&data);
    check_family(&ShrunkMean::new(vec![0.0, 1.0, 5.0, 50.0]), &data.view(&train), &data.view(&validation), 1e-14);
}

#[test]
#[should_panic(expected = "fast path vs refit at grid point 1")]
fn the_suite_catches_a_path_that_disagrees_with_the_refit() {
    /// The shrunk mean whose fast path is off at every grid point but the first.
    struct Broken(ShrunkMean);
    struct BrokenPath<'a>(ShrunkMeanPath<'a>);
    impl FittedPath for BrokenPath<'_> {
        fn predict(&self, validation: &View<'_>) -> Result<PathPredictions> {
            let mut p = self.0.predict(validation)?;
            for (m, pred) in p.iter_mut().enumerate().skip(1) {
                if let Predictions::Real(v) = pred {
                    v.iter_mut().for_each(|x| *x += 1e-3 * m as f64);
                }
            }
            Ok(p)
        }
        fn model(&self, grid_index: usize) -> Result<Model> {
            self.0.model(grid_index)
        }
    }
    impl Family for Broken {
        fn name(&self) -> &'static str {
            "broken"
        }
        fn grid(&self) -> &Grid {
            self.0.grid()
        }
        fn task(&self) -> Task {
            Task::Regression
        }
        fn fit(&self, train: &View<'_>, grid_index: usize) -> Result<Model> {
            self.0.fit(train, grid_index)
        }
        fn fit_path<'a>(&'a self, train: &View<'a>) -> Result<Box<dyn FittedPath + 'a>> {
            let (sum, n) = ShrunkMean::sums(train)?;
            Ok(Box::new(BrokenPath(ShrunkMeanPath { family: &self.0, sum, n })))
        }
    }
    let data = shifted_regression(60, 5);
    let (train, validation) = halves(&data);
    check_family(&Broken(ShrunkMean::new(vec![0.0, 1.0, 5.0])), &data.view(&train), &data.view(&validation), 1e-9);
}

/// Selection and aggregation run on the outside family unchanged, and agree with a hand
/// computation on the same splits: CV picks the argmin of the size-weighted mean of squared
/// errors and refits it on all rows; Agghoo averages the V hold-out constants.
#[test]
fn selection_and_estimation_work_on_a_family_written_outside_agghoo() {
    let data = shifted_regression(100, 6);
    let fam = ShrunkMean::new(vec![0.0, 2.0, 10.0, 40.0]);
    let y = data.all().gather_y();
    let folds = VFold::new(5).unwrap().instantiate(data.n_rows(), Seed(7)).unwrap();

    // CV, by hand
    let mut curve = vec![0.0; fam.grid().len()];
    for split in folds.iter() {
        let sum: f64 = split.train().iter().map(|&i| y[i]).sum();
        for (m, l) in fam.grid().values().iter().enumerate() {
            let c = sum / (split.train().len() as f64 + l);
            curve[m] += split.validation().iter().map(|&i| (y[i] - c).powi(2)).sum::<f64>() / data.n_rows() as f64;
        }
    }
    let m_hat = argmin(&curve, TieRule::First).unwrap();
    let (cv, report) = select::select(&fam, &data, &folds, &SelectConfig::new(Method::Cv)).unwrap();
    assert_eq!(report.member_grid_indices, vec![m_hat]);
    for (a, b) in report.cv_curve.mean.iter().zip(&curve) {
        assert!((a - b).abs() < 1e-12, "CV curve {a} vs hand {b}");
    }
    let all_sum: f64 = y.iter().sum();
    let expected = all_sum / (data.n_rows() as f64 + fam.grid().value(m_hat));
    let Predictions::Real(p) = cv.predict(&data).unwrap() else { panic!("regression") };
    assert!(p.iter().all(|v| (v - expected).abs() < 1e-12));

    // Agghoo: the mean of the V hold-out constants, each at its split's argmin
    let mc = MonteCarlo::new(4, 0.7).unwrap().instantiate(data.n_rows(), Seed(8)).unwrap();
    let (agghoo, report) = select::select(&fam, &data, &mc, &SelectConfig::new(Method::Agghoo)).unwrap();
    let members: Vec<f64> = mc
        .iter()
        .zip(&report.splits)
        .map(|(s, r)| s.train().iter().map(|&i| y[i]).sum::<f64>() / (s.train().len() as f64 + fam.grid().value(r.selected_index)))
        .collect();
    let mean = members.iter().sum::<f64>() / members.len() as f64;
    let Predictions::Real(p) = agghoo.predict(&data).unwrap() else { panic!("regression") };
    assert!(p.iter().all(|v| (v - mean).abs() < 1e-12), "{} vs {mean}", p[0]);

    // a model file holds only agghoo's own families: saving is a typed error, not a panic
    let path = std::env::temp_dir().join(format!("agghoo-custom-{}.json", std::process::id()));
    assert!(matches!(cv.save(&path), Err(Error::Unsupported { .. })));
    assert!(!path.exists());

    // closed-form leave-one-out of the linear smoother equals brute-force leave-one-out
    let risks = agghoo::estimate::smoother_risks(&fam, &data, &Default::default()).unwrap().expect("a linear smoother");
    let n = data.n_rows() as f64;
    for (m, l) in fam.grid().values().iter().enumerate() {
        let loo = y.iter().map(|yi| (yi - (all_sum - yi) / (n - 1.0 + l)).powi(2)).sum::<f64>() / n;
        assert!((risks.loo[m] - loo).abs() < 1e-10 * loo, "grid point {m}: closed form {} vs brute force {loo}", risks.loo[m]);
    }
}

// ---------------------------------------------------------------------------------------------
// Degenerate training sets: the path still equals the one-point refits, grid point by grid point
// (a grid point's model must not depend on the rest of the grid, even where the optimum is not
// unique, as the SVM intercept when no support vector is free).

/// Rows `x` (two features: the first with repeated values, the second constant) duplicated
/// `copies` times; training on all of them, validation on a shifted copy of the first rows.
fn degenerate(x1: &[f64], target: Target, copies: usize) -> (Dataset, Vec<usize>, Vec<usize>) {
    let n = x1.len();
    let mut x = Vec::new();
    for _ in 0..copies {
        x1.iter().for_each(|v| x.extend([*v, 3.0]));
    }
    x1.iter().for_each(|v| x.extend([v + 0.3, 3.0]));
    let target = match target {
        Target::Real(y) => Target::Real(y.iter().cycle().take(n * (copies + 1)).copied().collect()),
        Target::Classes { labels, names } => {
            Target::Classes { labels: labels.iter().cycle().take(n * (copies + 1)).copied().collect(), names }
        }
    };
    let data = Dataset::new(x, vec!["a".into(), "constant".into()], target, "y").unwrap();
    (data, (0..n * copies).collect(), (n * copies..n * (copies + 1)).collect())
}

fn path_equals_refit_on(kind: FamilyKind, params: &FamilyParams, set: &(Dataset, Vec<usize>, Vec<usize>), tol: f64) {
    let (data, train, validation) = set;
    let fam = family::build(kind, params, data).unwrap_or_else(|e| panic!("{}: build: {e}", kind.name()));
    agghoo::testing::path_equals_refit(fam.as_ref(), &data.view(train), &data.view(validation), tol);
}

#[test]
fn every_family_path_equals_the_refit_on_degenerate_data() {
    let x1 = [-2.0, -2.0, -1.0, 0.0, 0.0, 0.5, 1.0, 2.0, 2.0, 4.0];
    // Regression: tiny, duplicated rows, a constant column, one outlier.
    let y = vec![-3.0, -2.5, -1.0, 0.2, -0.2, 0.4, 1.5, 2.5, 2.0, 12.0];
    // Classification: perfectly separable (two classes), and three classes.
    let two = Target::Classes { labels: vec![0, 0, 0, 0, 0, 1, 1, 1, 1, 1], names: vec!["no".into(), "yes".into()] };
    let three = Target::Classes { labels: vec![0, 0, 0, 1, 1, 1, 2, 2, 2, 2], names: vec!["a".into(), "b".into(), "c".into()] };
    let sets = [1, 3].map(|copies| degenerate(&x1, Target::Real(y.clone()), copies));
    let wide = grid("log:1e-4:100:13");
    for set in &sets {
        path_equals_refit_on(FamilyKind::Knn, &grid("1:9:1"), set, 1e-12);
        path_equals_refit_on(FamilyKind::Ridge, &wide, set, 1e-8);
        path_equals_refit_on(FamilyKind::KernelRidge, &wide, set, 1e-7);
        path_equals_refit_on(FamilyKind::Lasso, &wide.clone().set("tol", "1e-12"), set, 1e-6);
        path_equals_refit_on(FamilyKind::Enet, &wide.clone().set("tol", "1e-12"), set, 1e-6);
        path_equals_refit_on(FamilyKind::Svr, &wide.clone().set("tol", "1e-10"), set, 1e-6);
        path_equals_refit_on(FamilyKind::Svr, &wide.clone().set("tol", "1e-10").set("epsilon", "2"), set, 1e-6);
        path_equals_refit_on(FamilyKind::Cart, &FamilyParams::default(), set, 1e-12);
        path_equals_refit_on(FamilyKind::Forest, &grid("1,2").set("trees", 5), set, 1e-12);
    }
    // Standardised regression sets where small C leaves no support vector free: a range of
    // intercepts is optimal and the path must take the cold fit's (the midpoint).
    for seed in 0..20 {
        let data = regression(40, seed);
        let (train, validation) = halves(&data);
        for epsilon in ["0.1", "1"] {
            let params = grid("log:1e-3:10:9").set("tol", "1e-10").set("epsilon", epsilon);
            let fam = family::build(FamilyKind::Svr, &params, &data).unwrap();
            agghoo::testing::path_equals_refit(fam.as_ref(), &data.view(&train), &data.view(&validation), 1e-6);
        }
    }
    for target in [two, three] {
        for copies in [1, 3] {
            let set = degenerate(&x1, target.clone(), copies);
            path_equals_refit_on(FamilyKind::Knn, &grid("1:9:1"), &set, 1e-12);
            path_equals_refit_on(FamilyKind::Logistic, &wide.clone().set("tol", "1e-10"), &set, 1e-6);
            path_equals_refit_on(FamilyKind::Logistic, &wide.clone().set("tol", "1e-10").set("penalty", "l1"), &set, 1e-6);
            path_equals_refit_on(FamilyKind::Svc, &wide.clone().set("tol", "1e-10"), &set, 1e-6);
            path_equals_refit_on(FamilyKind::Cart, &FamilyParams::default(), &set, 1e-12);
            path_equals_refit_on(FamilyKind::Forest, &grid("1,2").set("trees", 5), &set, 1e-12);
        }
    }
}
