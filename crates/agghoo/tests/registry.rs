//! The family registry: what every registered family declares about itself agrees with what it
//! does (names, JSON tags, path axes, capabilities), and a family written outside the crate — a
//! typed configuration implementing `FamilyConfig`, declared by one `FamilyInfo` — runs through
//! selection, risk estimation and the conformance suite (docs/ARCHITECTURE.md § Adding a family).

use agghoo::data::{Dataset, Encoding, Target, Task, View, generators};
use agghoo::estimate::{EstimateConfig, estimate_risk};
use agghoo::family::{
    Capabilities, CustomModel, CustomPredictor, Family, FamilyConfig, FamilyInfo, FamilyKind, FamilySpec, Grid, GridSpec, Model, Predictor,
    Scale, Setting,
};
use agghoo::resample::VFold;
use agghoo::select::{self, Method, SelectConfig};
use agghoo::testing::check_family;
use agghoo::{Error, Predictions, Result, Seed};

#[test]
fn every_registered_family_declares_its_name_tag_and_path_axis() {
    for kind in FamilyKind::ALL {
        let info = kind.info();
        let spec = FamilySpec::default_for(kind);
        assert_eq!(kind.name(), info.name);
        assert_eq!(serde_json::to_value(&spec).unwrap()["family"], info.name, "the JSON tag is the registered name");
        assert_eq!(serde_json::to_value(kind).unwrap(), info.name);
        assert_eq!(FamilyKind::parse(info.name).unwrap(), kind);
        assert_eq!(spec.path_axis(), info.path_axes[0], "{}: the default path axis comes first", info.name);
        // the declared path scale is the built grid's (what the Python package reports ints by)
        let (classes, values) = (generators::knn_problem(60, Seed(2)).unwrap(), generators::svr_problem(60, Seed(2), 0).unwrap());
        let family = spec.build(&classes).or_else(|_| spec.build(&values)).unwrap_or_else(|e| panic!("{}: {e}", info.name));
        assert_eq!(family.grid().scale(), info.path_scale, "{}: the path axis's scale", info.name);
        assert_eq!(spec.kind(), kind);
        assert!(!info.summary.is_empty() && !info.default_grid.is_empty(), "{}", info.name);
        for setting in info.settings {
            assert!(!setting.name.is_empty());
            let axis = setting.axis.is_some() || info.path_axes.contains(&setting.name);
            assert_eq!(kind.has_axis(setting.name), axis, "{} {}", info.name, setting.name);
        }
    }
    let err = FamilyKind::parse("toy").unwrap_err();
    for kind in FamilyKind::ALL {
        assert!(err.to_string().contains(kind.name()), "{err}");
    }
}

/// The capabilities a family declares are what its fitted classifiers give: class probabilities,
/// and a binary classifier's decision scores.
#[test]
fn declared_capabilities_are_what_the_fitted_models_give() {
    let data = generators::knn_problem(120, Seed(3)).unwrap();
    let (train, test) = ((0..80).collect::<Vec<_>>(), (80..120).collect::<Vec<_>>());
    for kind in FamilyKind::ALL {
        let Ok(family) = FamilySpec::default_for(kind).build(&data) else {
            assert!(kind.info().capabilities == Capabilities::default(), "{}: a regression family declares no capability", kind.name());
            continue;
        };
        let model = family.fit(&data.view(&train), 0).unwrap();
        let Predictions::Classes { proba, decision, .. } = model.predict(&data.view(&test)).unwrap() else { panic!("{}", kind.name()) };
        let can = kind.info().capabilities;
        assert_eq!(proba.is_some(), can.probabilities, "{}: probabilities", kind.name());
        if can.decision_scores {
            assert!(decision.is_some(), "{}: decision scores", kind.name());
        }
    }
}

/// A toy family defined here, outside the crate: the slope through the origin on the first
/// feature, shrunk by λ (`b = Σ x y / (Σ x² + λ)`).
static SLOPE: FamilyInfo = FamilyInfo {
    name: "slope",
    summary: "the slope through the origin on one feature, grid over lambda",
    settings: &[Setting::fixed("feature")],
    path_axes: &["lambda"],
    path_scale: Scale::Linear,
    default_grid: "lambda = 0, 1, 10, 100",
    encoding: Encoding::OneHot,
    capabilities: Capabilities { probabilities: false, decision_scores: false },
    sample_weight: false,
};

/// Its typed configuration.
#[derive(Clone, Debug, Default)]
struct SlopeConfig {
    feature: usize,
    grid: Option<GridSpec>,
}

impl FamilyConfig for SlopeConfig {
    fn set(&mut self, key: &str, value: &str) -> Result<()> {
        match key {
            "feature" => self.feature = value.parse().map_err(|_| Error::invalid("feature", "a column index", value))?,
            _ => return Err(Error::invalid("param", "feature", key)),
        }
        Ok(())
    }
    fn grid(&self) -> Option<&GridSpec> {
        self.grid.as_ref()
    }
    fn grid_mut(&mut self) -> &mut Option<GridSpec> {
        &mut self.grid
    }
    fn build_family(&self, info: &'static FamilyInfo, data: &Dataset) -> Result<Box<dyn Family>> {
        if data.task() != Task::Regression {
            return Err(Error::TaskMismatch(format!("family `{}` needs regression data", info.name)));
        }
        if self.feature >= data.n_features() {
            return Err(Error::invalid("feature", "a column index below the number of features", self.feature));
        }
        let values = self.grid.as_ref().map_or(Ok(vec![0.0, 1.0, 10.0, 100.0]), GridSpec::values)?;
        Ok(Box::new(Slope { name: info.name, feature: self.feature, grid: Grid::new("lambda", values, Scale::Linear, true)? }))
    }
}

struct Slope {
    name: &'static str,
    feature: usize,
    grid: Grid,
}

#[derive(Debug)]
struct SlopeModel {
    feature: usize,
    slope: f64,
}

impl Predictor for SlopeModel {
    fn predict(&self, rows: &View<'_>) -> Result<Predictions> {
        Ok(Predictions::Real((0..rows.len()).map(|i| self.slope * rows.x(i)[self.feature]).collect()))
    }
}

impl CustomPredictor for SlopeModel {
    fn output(&self) -> (Task, usize) {
        (Task::Regression, 0)
    }
}

impl Family for Slope {
    fn name(&self) -> &'static str {
        self.name
    }
    fn grid(&self) -> &Grid {
        &self.grid
    }
    fn task(&self) -> Task {
        Task::Regression
    }
    fn fit(&self, train: &View<'_>, grid_index: usize) -> Result<Model> {
        if train.is_empty() {
            return Err(Error::invalid("training set", "at least one row", 0));
        }
        let (mut xy, mut xx) = (0.0, 0.0);
        for i in 0..train.len() {
            let x = train.x(i)[self.feature];
            (xy, xx) = (xy + x * train.y(i), xx + x * x);
        }
        let slope = xy / (xx + self.grid.value(grid_index));
        Ok(Model::Custom(CustomModel::new(SlopeModel { feature: self.feature, slope })))
    }
}

/// A shifted linear target on the first feature, with noise.
fn linear(n: usize) -> Dataset {
    let base = generators::knn_problem(n, Seed(8)).unwrap();
    let y: Vec<f64> = (0..n).map(|i| 2.0 * base.row(i)[0] + 0.05 * ((i * 37 % 11) as f64 - 5.0)).collect();
    Dataset::new(base.x().to_vec(), base.feature_names().to_vec(), Target::Real(y), "y").unwrap()
}

#[test]
fn a_family_registered_outside_the_crate_runs_through_select_estimate_and_the_suite() {
    let data = linear(90);
    let mut config = SlopeConfig::default();
    config.set("feature", "0").unwrap();
    *config.grid_mut() = Some(GridSpec::parse("0,1000,10000,100000").unwrap());
    let family = config.build_family(&SLOPE, &data).unwrap();
    assert_eq!((family.name(), family.grid().len()), ("slope", 4));

    let (train, validation): (Vec<usize>, Vec<usize>) = ((0..60).collect(), (60..90).collect());
    check_family(family.as_ref(), &data.view(&train), &data.view(&validation), 1e-12);

    let splits = VFold::new(5).unwrap().instantiate(data.n_rows(), Seed(1)).unwrap();
    for method in [Method::Cv, Method::Agghoo] {
        let (model, report) = select::select(family.as_ref(), &data, &splits, &SelectConfig::new(method)).unwrap();
        assert!(report.member_grid_indices.iter().all(|&m| m == 0), "{method:?}: the unshrunk slope fits a linear target best");
        assert_eq!(model.predict(&data).unwrap().len(), data.n_rows());
    }
    let estimate = estimate_risk(family.as_ref(), 0, &data, &splits, &EstimateConfig::default()).unwrap();
    // The noise's variance is 0.05² · 10 = 0.025: the unshrunk slope's risk is about that.
    assert!((0.0125..0.05).contains(&estimate.summaries[0].estimate), "{estimate:?}");

    let classes = generators::knn_problem(40, Seed(1)).unwrap();
    assert!(matches!(config.build_family(&SLOPE, &classes), Err(Error::TaskMismatch(_))));
    assert!(matches!(
        SlopeConfig { feature: 9, grid: None }.build_family(&SLOPE, &data),
        Err(Error::InvalidParameter { name: "feature", .. })
    ));
}
