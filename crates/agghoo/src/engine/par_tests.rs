//! The kernels' parallelism is explicit: the executor decides it per unit, the views carry it to
//! the family, and no family's results depend on it.

use std::sync::Mutex;

use super::*;
use crate::Seed;
use crate::data::{Dataset, Target, View, generators};
use crate::family::{self, Family, FamilyKind, FamilyParams, FittedPath, Grid, Model, Predictor};
use crate::loss::Loss;
use crate::resample::{Plan, PlanContext};

/// A family that delegates to `inner` and records the parallelism of every view it fits on: the
/// path fits (`seen`) and the single fits, refits included (`fits`).
struct Recording {
    inner: Box<dyn Family>,
    seen: Mutex<Vec<Par>>,
    fits: Mutex<Vec<Par>>,
}

impl Recording {
    fn knn(data: &Dataset) -> Self {
        let inner = family::build(FamilyKind::Knn, &FamilyParams::default(), data).unwrap();
        Recording { inner, seen: Mutex::new(Vec::new()), fits: Mutex::new(Vec::new()) }
    }
}

impl Family for Recording {
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn grid(&self) -> &Grid {
        self.inner.grid()
    }
    fn task(&self) -> crate::data::Task {
        self.inner.task()
    }
    fn fit(&self, train: &View<'_>, grid_index: usize) -> crate::Result<Model> {
        self.fits.lock().unwrap().push(train.par());
        self.inner.fit(train, grid_index)
    }
    fn fit_path<'a>(&'a self, train: &View<'a>) -> crate::Result<Box<dyn FittedPath + 'a>> {
        self.seen.lock().unwrap().push(train.par());
        self.inner.fit_path(train)
    }
}

/// Three Gaussian blobs on a circle (a one-vs-one SVC has three pairs).
fn three_classes(n: usize) -> Dataset {
    let mut rng = Seed(8).rng(crate::Purpose::Data, 0);
    let mut x = Vec::with_capacity(2 * n);
    let labels: Vec<u32> = (0..n as u32).map(|i| i % 3).collect();
    for &c in &labels {
        let angle = 2.0 * std::f64::consts::PI * f64::from(c) / 3.0;
        x.push(1.5 * angle.cos() + generators::normal(&mut rng));
        x.push(1.5 * angle.sin() + generators::normal(&mut rng));
    }
    let names = (0..3).map(|c| format!("c{c}")).collect();
    Dataset::new(x, vec!["a".into(), "b".into()], Target::Classes { labels, names }, "y").unwrap()
}

#[test]
fn each_unit_gets_the_threads_its_executor_leaves_it() {
    let data = generators::knn_problem(120, Seed(2)).unwrap();
    let options = EvalOptions { losses: vec![Loss::ZeroOne], ..EvalOptions::default() };
    let pool = rayon::ThreadPoolBuilder::new().num_threads(4).build().unwrap();
    for (plan, executor, want) in [
        ("vfold:8", &Rayon as &dyn Executor, Par::Seq),
        ("vfold:2", &Rayon, Par::threads(2)),
        ("vfold:3", &Rayon, Par::threads(2)),
        ("vfold:8", &Sequential, Par::threads(4)),
    ] {
        let splits = Plan::parse(plan, false).unwrap().instantiate(&PlanContext::of(&data), Seed(1)).unwrap();
        let family = Recording::knn(&data);
        pool.install(|| evaluate_splits(&family, &data, &splits, &options, executor)).unwrap();
        let seen = family.seen.into_inner().unwrap();
        assert_eq!(seen.len(), splits.len(), "{plan}");
        assert!(seen.iter().all(|&p| p == want), "{plan}: {seen:?}, expected {want:?}");
    }
}

#[test]
fn every_family_gives_the_same_bits_for_any_parallelism() {
    let classes = three_classes(150);
    let binary = generators::knn_problem(150, Seed(4)).unwrap();
    let regression = generators::svr_problem(150, Seed(5), 0).unwrap();
    let train: Vec<usize> = (0..150).filter(|i| i % 4 != 0).collect();
    let validation: Vec<usize> = (0..150).filter(|i| i % 4 == 0).collect();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    let mut checked = 0;
    for kind in FamilyKind::ALL {
        for data in [&classes, &binary, &regression] {
            let Ok(family) = family::build(kind, &FamilyParams::default(), data) else { continue };
            if family.task() != data.task() {
                continue;
            }
            let outcome = |par: Par| {
                pool.install(|| {
                    let path = family.fit_path(&data.view(&train).with_par(par)).unwrap();
                    let va = data.view(&validation).with_par(par);
                    let path_predictions = path.predict(&va).unwrap();
                    let last = path.model(family.grid().len() - 1).unwrap();
                    format!("{path_predictions:?} {last:?} {:?}", last.predict(&va).unwrap())
                })
            };
            let sequential = outcome(Par::Seq);
            for par in [Par::threads(2), Par::threads(3), Par::threads(16)] {
                assert!(outcome(par) == sequential, "{} on {:?} with {par:?}", kind.name(), data.task());
            }
            checked += 1;
        }
    }
    assert!(checked >= FamilyKind::ALL.len(), "{checked} family × data pairs checked");
}

/// A pool of `threads` threads as an executor sees it (its `par` shares them out as [`Rayon`]'s
/// does), running units one after the other on the calling thread and recording the unit count
/// of every `for_each` it is asked to run.
struct Pool {
    threads: usize,
    calls: Mutex<Vec<usize>>,
}

impl Executor for Pool {
    fn for_each(&self, n: usize, unit: &(dyn Fn(usize) + Sync)) {
        self.calls.lock().unwrap().push(n);
        (0..n).for_each(unit);
    }

    fn par(&self, n: usize) -> Par {
        Par::threads(self.threads).split(n)
    }
}

#[test]
fn inner_units_do_not_fan_out_over_a_pool_the_outer_units_fill() {
    let data = generators::knn_problem(120, Seed(2)).unwrap();
    let options = EvalOptions { losses: vec![Loss::ZeroOne], ..EvalOptions::default() };
    let inner_splits = Plan::parse("vfold:5", false).unwrap().instantiate(&PlanContext::of(&data), Seed(1)).unwrap();
    // (threads, outer units) → the executor calls it sees, and the parallelism of each inner fit.
    for (threads, outer, calls, want) in [
        (16, 16, vec![16], Par::Seq),
        (4, 8, vec![8], Par::Seq),
        (16, 2, vec![2, 5, 5], Par::threads(2)),
        (16, 1, vec![1, 5], Par::threads(4)),
    ] {
        let pool = Pool { threads, calls: Mutex::new(Vec::new()) };
        let family = Recording::knn(&data);
        // What `engine::run` does for a job whose units evaluate inner splits.
        let inner = Inner::new(&pool, outer);
        map_ordered(&pool, outer, |_| evaluate_splits(&family, &data, &inner_splits, &options, &inner)).unwrap();
        assert_eq!(pool.calls.into_inner().unwrap(), calls, "{threads} threads, {outer} outer units");
        let seen = family.seen.into_inner().unwrap();
        assert_eq!(seen.len(), outer * inner_splits.len());
        assert!(seen.iter().all(|&p| p == want), "{threads} threads, {outer} outer units: {seen:?}, expected {want:?}");
    }
}

#[test]
fn nested_cv_gives_the_same_bits_for_any_executor_and_pool() {
    use crate::estimate::{NestedConfig, nested_cv_with};
    use crate::family::{FamilySpec, GridSpec};
    use crate::resample::VFold;
    use crate::select::{Method, SelectConfig};
    let data = generators::knn_problem(120, Seed(6)).unwrap();
    let outer = VFold::new(4).unwrap().instantiate(120, Seed(1)).unwrap();
    let family = FamilySpec::from_params(FamilyKind::Knn, &FamilyParams::with_grid(GridSpec::parse("1:15:2").unwrap())).unwrap();
    let mut config = NestedConfig::new(
        family,
        Plan::VFold(VFold::new(3).unwrap()),
        vec![SelectConfig::new(Method::Cv), SelectConfig::new(Method::Agghoo)],
    );
    config.seed = Seed(11);
    let report = |executor: &dyn Executor, threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        format!("{:?}", pool.install(|| nested_cv_with(&data, &outer, &config, executor)).unwrap())
    };
    let want = report(&Sequential, 1);
    let counted = Pool { threads: 16, calls: Mutex::new(Vec::new()) };
    let executors: [(&dyn Executor, usize); 6] =
        [(&Rayon, 1), (&Rayon, 2), (&Rayon, 3), (&Rayon, 8), (&testing::Shuffled(4), 3), (&counted, 2)];
    for (executor, threads) in executors {
        assert!(report(executor, threads) == want, "{threads} threads");
    }
}

#[test]
fn a_selection_inside_a_unit_refits_on_the_units_threads() {
    use crate::select::{Method, SelectConfig, select_with};
    let data = generators::knn_problem(120, Seed(2)).unwrap();
    let splits = Plan::parse("vfold:4", false).unwrap().instantiate(&PlanContext::of(&data), Seed(1)).unwrap();
    // A pool of 4 threads around it, so that the whole pool is neither answer.
    let around = rayon::ThreadPoolBuilder::new().num_threads(4).build().unwrap();
    for (threads, outer, want) in [(16, 16, Par::Seq), (16, 2, Par::threads(8))] {
        let pool = Pool { threads, calls: Mutex::new(Vec::new()) };
        let family = Recording::knn(&data);
        let inner = Inner::new(&pool, outer);
        around.install(|| select_with(&family, &data, &splits, &SelectConfig::new(Method::Cv), &inner)).unwrap();
        let fits = family.fits.into_inner().unwrap();
        assert!(!fits.is_empty() && fits.iter().all(|&p| p == want), "{outer} outer units: the refits ran on {fits:?}, expected {want:?}");
    }
}
