//! [`FamilySpec`]: the typed configuration of a family — one plain family, or a composite
//! (product grid, union) — from which the family is built on data. Strings are parsed only at
//! the edges ([`FamilySpec::from_params`] for the CLI's `--grid` / `--param`, serde for files and
//! jobs).

use serde::{Deserialize, Serialize};

use super::{AxisSpec, Family, FamilyKind, FamilyParams, FamilySpec, GridSpec};
use crate::data::{Dataset, Preprocess};
use crate::error::{Error, Result};

/// A composite family (see [`Composite`](super::Composite)): its members (plain families, in
/// grid order) and its named axes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompositeSpec {
    /// The families, each with its own settings (and grid); several make a union.
    pub members: Vec<FamilySpec>,
    /// Named axes (`--grid NAME=VALUES`): a family's path axis, or a setting swept as a further
    /// axis (its value in the member's config is then ignored).
    #[serde(default)]
    pub axes: Vec<AxisSpec>,
}

impl FamilySpec {
    /// The spec of `kind` with the parameters as the user gave them (`--grid`, `--param`,
    /// `--grid NAME=VALUES`, `--family a,b`): the string edge.
    ///
    /// ```
    /// use agghoo::family::{FamilyKind, FamilyParams, FamilySpec, knn::Weights};
    /// let spec = FamilySpec::from_params(FamilyKind::Knn, &FamilyParams::default().set("weights", "distance"))?;
    /// let FamilySpec::Knn(config) = spec else { unreachable!() };
    /// assert_eq!(config.weights, Weights::Distance);
    /// assert!(FamilySpec::from_params(FamilyKind::Knn, &FamilyParams::default().set("k", 3)).is_err());
    /// # Ok::<(), agghoo::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a setting the family does not know (listing those it
    /// knows), a bad value; with axes or a union: a setting no family knows, a grid without a
    /// name with several families, an axis also fixed by a setting.
    pub fn from_params(kind: FamilyKind, params: &FamilyParams) -> Result<Self> {
        if params.axes.is_empty() && params.union.is_empty() {
            return Self::plain_from_params(kind, params);
        }
        let kinds: Vec<FamilyKind> = std::iter::once(kind).chain(params.union.iter().copied()).collect();
        if kinds.len() > 1 && params.grid.is_some() {
            return Err(Error::invalid("grid", "NAME=VALUES with several families (which family's axis?)", "a grid without a name"));
        }
        if kinds.len() > 1 {
            // In a union, a setting goes to the families that know it.
            params.check_known_by_any(&kinds)?;
        }
        let mut members = Vec::with_capacity(kinds.len());
        for &k in &kinds {
            // One family keeps every setting, so that an unknown one is refused by its name.
            let own = FamilyParams { axes: Vec::new(), ..if kinds.len() > 1 { params.settings_for(k) } else { params.clone() } };
            let member = Self::plain_from_params(k, &own)?;
            let fixed = |a: &&AxisSpec| {
                a.name != member.path_axis() && own.values.contains_key(&a.name) && k.info().setting_axes().any(|(n, _)| n == a.name)
            };
            if let Some(a) = params.axes.iter().find(fixed) {
                return Err(Error::InvalidParameter {
                    name: "grid",
                    expected: "an axis not also fixed by --param",
                    got: format!("`{}` given both as a grid axis and as a parameter", a.name),
                });
            }
            // `--param grid=lambda` with `--grid C=…`: two names for one path axis.
            let other_path = |a: &&AxisSpec| a.name != member.path_axis() && super::path_names(k).any(|p| p == a.name);
            if let (Some(given), Some(a)) = (own.values.get("grid"), params.axes.iter().find(other_path)) {
                return Err(Error::InvalidParameter {
                    name: "grid",
                    expected: "the path axis that --param grid names",
                    got: format!("`{}` with --param grid={given} ({} has {})", a.name, k.name(), super::axis_list(k)),
                });
            }
            members.push(member);
        }
        Ok(FamilySpec::Composite(CompositeSpec { members, axes: params.axes.clone() }))
    }

    /// [`from_params`](Self::from_params) of one family over its own grid.
    fn plain_from_params(kind: FamilyKind, params: &FamilyParams) -> Result<Self> {
        params.check_known(kind.name(), &kind.settings())?;
        let mut spec = Self::default_for(kind);
        for (key, value) in &params.values {
            spec.set(key, value)?;
        }
        spec.set_grid(params.grid.clone())?;
        Ok(spec)
    }

    /// The family's kind: a composite's first member's (`knn` for a composite without members,
    /// which does not build).
    pub fn kind(&self) -> FamilyKind {
        match (self, self.config()) {
            (_, Some((kind, _))) => kind,
            (FamilySpec::Composite(c), None) => c.members.first().map_or(FamilyKind::Knn, FamilySpec::kind),
            _ => FamilyKind::Knn,
        }
    }

    /// The name of the family's path axis (`k`, `lambda`, `C`, `alpha`, `mtry`,
    /// `min_samples_leaf`): the name of its grid. A composite's: `grid point`.
    pub fn path_axis(&self) -> &'static str {
        self.config().map_or("grid point", |(kind, c)| c.path_axis(kind.info()))
    }

    /// The kinds of the families it builds: one, or a composite's members in order.
    pub fn kinds(&self) -> Vec<FamilyKind> {
        match self {
            FamilySpec::Composite(c) => c.members.iter().map(FamilySpec::kind).collect(),
            plain => vec![plain.kind()],
        }
    }

    /// Sets the setting `key` from its text (the edge used by `--param` and by composite axes).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for an unknown key (listing the known ones), a bad value, or
    /// any key on a composite spec (set it on a member).
    pub fn set(&mut self, key: &str, value: &str) -> Result<()> {
        let Some((kind, config)) = self.config_mut() else {
            return Err(Error::invalid("param", "a setting of a member of the composite family", key));
        };
        let info = kind.info();
        if !info.settings.iter().any(|s| s.name == key) {
            return Err(super::params::unknown_key(info.name, &info.setting_names(), key));
        }
        config.set(key, value)
    }

    /// The grid given (`None`: the family's default, or a composite).
    pub fn grid(&self) -> Option<&GridSpec> {
        self.config().and_then(|(_, c)| c.grid())
    }

    /// Replaces the grid of a plain family.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a composite spec (give its members' grids or a named axis).
    pub fn set_grid(&mut self, grid: Option<GridSpec>) -> Result<()> {
        let Some((_, config)) = self.config_mut() else {
            return Err(Error::invalid("grid", "NAME=VALUES for a composite family (which family's axis?)", "a grid without a name"));
        };
        *config.grid_mut() = grid;
        Ok(())
    }

    /// The same spec with `grid` (builder style; see [`set_grid`](Self::set_grid)).
    ///
    /// # Errors
    /// As [`set_grid`](Self::set_grid).
    pub fn with_grid(mut self, grid: GridSpec) -> Result<Self> {
        self.set_grid(Some(grid))?;
        Ok(self)
    }

    /// True for a composite spec.
    pub fn is_composite(&self) -> bool {
        matches!(self, FamilySpec::Composite(_))
    }

    /// How the family receives categorical columns (see [`FamilyKind::encoding`]); for a union
    /// of families that disagree, one-hot (every family accepts it).
    pub fn encoding(&self) -> crate::data::Encoding {
        Self::encoding_of(&self.kinds())
    }

    /// The [`encoding`](Self::encoding) of a family made of `kinds` (one, or a union): their
    /// common encoding, one-hot when they disagree.
    pub fn encoding_of(kinds: &[FamilyKind]) -> crate::data::Encoding {
        let first = kinds.first().map_or(crate::data::Encoding::OneHot, |k| k.encoding());
        if kinds.iter().all(|k| k.encoding() == first) { first } else { crate::data::Encoding::OneHot }
    }

    /// The preprocessing of `data` for this family (see [`FamilyKind::preprocess`]), in its
    /// [`encoding`](Self::encoding).
    pub fn preprocess(&self, data: &Dataset, standardize: bool, missing: crate::data::MissingCategory) -> Preprocess {
        Self::preprocess_of(&self.kinds(), data, standardize, missing)
    }

    /// The [`preprocess`](Self::preprocess) of a family made of `kinds`, before its settings are
    /// parsed (what a command line knows from its family names).
    pub fn preprocess_of(kinds: &[FamilyKind], data: &Dataset, standardize: bool, missing: crate::data::MissingCategory) -> Preprocess {
        Preprocess::for_data(data, standardize, crate::data::CategoryOptions { encoding: Self::encoding_of(kinds), missing })
    }

    /// Builds the family for `data` (grids may depend on the data: CART's pruning sequence, the
    /// Lasso's λ_max).
    ///
    /// # Errors
    /// [`Error::ConstantTarget`]; invalid settings, an empty grid, a task the family does not
    /// support.
    pub fn build(&self, data: &Dataset) -> Result<Box<dyn Family>> {
        self.build_for(data, &Preprocess::default())
    }

    /// As [`build`](Self::build), for fits that will see `data` through `preprocess` (fitted
    /// inside each training set): data-dependent defaults (the Lasso's λ_max, logistic
    /// regression's λ grid, kernel scales, CART's pruning sequence) are computed on all rows
    /// preprocessed the same way, so that with `standardize` a default grid is on the scale of
    /// the standardised features the fits use. Missing values are always median-imputed for the
    /// defaults. A composite spec builds a [`Composite`](super::Composite).
    ///
    /// # Errors
    /// As [`build`](Self::build); the axis errors of a composite family (an axis no family has,
    /// named twice, …).
    pub fn build_for(&self, data: &Dataset, preprocess: &Preprocess) -> Result<Box<dyn Family>> {
        match self {
            FamilySpec::Composite(c) => super::composite::build(c, data, preprocess),
            plain => plain.build_plain(data, preprocess),
        }
    }

    /// [`build_for`](Self::build_for) of one family over its own grid.
    pub(crate) fn build_plain(&self, data: &Dataset, preprocess: &Preprocess) -> Result<Box<dyn Family>> {
        data.check_learnable()?;
        preprocess.check_encodes(data)?;
        // The fits themselves still preprocess inside each training set (`select::evaluate_splits`).
        let prepared;
        let defaults = Preprocess { impute_median: data.has_missing(), ..*preprocess };
        let data = if defaults.is_identity() {
            data
        } else {
            let all = data.all();
            prepared = defaults.fit(&all).apply(&all)?;
            &prepared
        };
        match self.config() {
            Some((kind, config)) => config.build_family(kind.info(), data),
            None => Err(Error::invalid("family", "a plain family (a member of a composite family)", "a composite family")),
        }
    }
}

/// One rule of a family: the family at one value of its path hyperparameter (k-NN with k = 5,
/// ridge with λ = 0.1) — what `estimate --value` evaluates.
///
/// ```
/// use agghoo::family::{FamilyKind, FamilySpec, Rule};
/// let data = agghoo::data::generators::knn_problem(100, agghoo::Seed(1))?;
/// let rule = Rule { family: FamilySpec::default_for(FamilyKind::Knn), value: 5.0 };
/// assert_eq!(rule.build(&data)?.grid().values(), [5.0]);
/// # Ok::<(), agghoo::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rule {
    /// The family (its own grid, if any, is replaced by the one value).
    pub family: FamilySpec,
    /// The value of the family's path hyperparameter.
    pub value: f64,
}

impl Rule {
    /// The family's spec with the one-point grid `{value}`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a composite family (a rule is one family at one value).
    pub fn spec(&self) -> Result<FamilySpec> {
        self.family.clone().with_grid(GridSpec::Values(vec![self.value]))
    }
    /// The one-point family for `data`.
    ///
    /// # Errors
    /// As [`spec`](Self::spec) and [`FamilySpec::build`].
    pub fn build(&self, data: &Dataset) -> Result<Box<dyn Family>> {
        self.spec()?.build(data)
    }
    /// The one-point family for fits that see `data` through `preprocess`.
    ///
    /// # Errors
    /// As [`spec`](Self::spec) and [`FamilySpec::build_for`].
    pub fn build_for(&self, data: &Dataset, preprocess: &Preprocess) -> Result<Box<dyn Family>> {
        self.spec()?.build_for(data, preprocess)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Seed;
    use crate::data::generators::{knn_problem, svr_problem};
    use crate::family::lasso::{LassoConfig, LassoKind};
    use crate::family::svm::SvmConfig;

    /// A value of each setting that differs from its default, with the JSON field it sets.
    fn sample(kind: FamilyKind, key: &str) -> (&'static str, &'static str) {
        match (kind, key) {
            (_, "weights") => ("distance", "weights"),
            (_, "kernel") => ("polynomial", "kernel"),
            (_, "gamma") => ("0.25", "gamma"),
            (_, "coef0") => ("2", "coef0"),
            (_, "degree") => ("4", "degree"),
            (_, "intercept") => ("true", "intercept"),
            (_, "l1_ratio") => ("0.3", "l1_ratio"),
            (_, "tol") => ("0.002", "tol"),
            (_, "max_iter") => ("7", "max_iter"),
            (_, "precompute") => ("gram", "precompute"),
            (_, "epsilon") => ("0.2", "epsilon"),
            (_, "shrinking") => ("false", "shrinking"),
            (FamilyKind::Forest, "grid") => ("min_samples_leaf", "axis"),
            (_, "grid") => ("C", "axis"),
            (_, "criterion") => ("entropy", "criterion"),
            (_, "min_samples_leaf") => ("3", "min_samples_leaf"),
            (_, "max_depth") => ("5", "max_depth"),
            (_, "trees") => ("9", "trees"),
            (_, "mtry") => ("2", "mtry"),
            (_, "seed") => ("11", "seed"),
            (_, "penalty") => ("l1", "penalty"),
            (kind, key) => panic!("no sample for {}: {key}", kind.name()),
        }
    }

    #[test]
    fn every_default_config_round_trips_through_json() {
        for kind in FamilyKind::ALL {
            let spec = FamilySpec::default_for(kind);
            let json = serde_json::to_string(&spec).unwrap();
            let back: FamilySpec = serde_json::from_str(&json).unwrap();
            assert_eq!(back, spec, "{json}");
            assert_eq!(back.kind(), kind);
            // A bare tag is the default configuration.
            let bare: FamilySpec = serde_json::from_str(&format!(r#"{{"family":"{}"}}"#, kind.name())).unwrap();
            assert_eq!(bare, spec, "{}", kind.name());
        }
        // Each config alone, too.
        let knn = crate::family::knn::KnnConfig::default();
        assert_eq!(serde_json::from_str::<crate::family::knn::KnnConfig>(&serde_json::to_string(&knn).unwrap()).unwrap(), knn);
        let forest = crate::family::forest::ForestConfig::default();
        assert_eq!(serde_json::from_str::<crate::family::forest::ForestConfig>(&serde_json::to_string(&forest).unwrap()).unwrap(), forest);
    }

    #[test]
    fn from_params_sets_every_cli_setting_as_a_typed_field() {
        for kind in FamilyKind::ALL {
            let default = serde_json::to_value(FamilySpec::default_for(kind)).unwrap();
            for key in kind.settings() {
                let (value, field) = sample(kind, key);
                let spec = FamilySpec::from_params(kind, &FamilyParams::default().set(key, value)).unwrap();
                let json = serde_json::to_value(&spec).unwrap();
                assert_ne!(json[field], default[field], "{} {key}", kind.name());
                let typed = json[field].to_string();
                assert!(
                    typed.trim_matches('"').eq_ignore_ascii_case(value) || typed.parse::<f64>() == value.parse::<f64>(),
                    "{key}: {typed}"
                );
                // The composite form carries the same setting on its member.
                let axes = vec![crate::family::AxisSpec { name: spec.path_axis().into(), values: "1,2".into() }];
                let composite = FamilySpec::from_params(kind, &FamilyParams { axes, ..FamilyParams::default().set(key, value) }).unwrap();
                let FamilySpec::Composite(c) = composite else { panic!("composite") };
                assert_eq!(c.members, vec![spec]);
            }
        }
    }

    #[test]
    fn unknown_keys_and_bad_values_are_typed_errors_naming_the_parameter() {
        let err = FamilySpec::from_params(FamilyKind::Knn, &FamilyParams::default().set("k", 3)).unwrap_err();
        assert!(
            matches!(&err, Error::InvalidParameter { name: "param", expected: "a parameter of the family", got } if got == "`k` (family knn knows: weights)"),
            "{err}"
        );
        let err = FamilySpec::from_params(FamilyKind::Ridge, &FamilyParams::default().set("alpha", 1)).unwrap_err();
        assert!(err.to_string().contains("family ridge knows: none"), "{err}");
        let err = FamilySpec::from_params(FamilyKind::Svc, &FamilyParams::default().set("epsilon", 0.1)).unwrap_err();
        assert!(err.to_string().contains("family svc knows: gamma, tol, shrinking, grid"), "{err}");
        let named = |r: Result<Box<dyn Family>>| match r {
            Err(Error::InvalidParameter { name, .. }) => name,
            Err(other) => panic!("{other}"),
            Ok(_) => panic!("built"),
        };
        let data = knn_problem(60, Seed(1)).unwrap();
        let zero = FamilySpec::Knn(crate::family::knn::KnnConfig { grid: Some(GridSpec::Values(vec![0.0, 1.0])), ..Default::default() });
        assert_eq!(named(zero.build(&data)), "grid");
        let reg = svr_problem(40, Seed(1), 0).unwrap();
        let negative = FamilySpec::Svr(SvmConfig { gamma: crate::family::KernelWidth::Fixed(-1.0), ..SvmConfig::svr() });
        assert_eq!(named(negative.build(&reg)), "gamma");
        assert!(serde_json::from_str::<FamilySpec>(r#"{"family":"svr","gamma":-1}"#).is_err());
        assert!(serde_json::from_str::<FamilySpec>(r#"{"family":"svc","epsilon":0.1}"#).is_err());
        assert!(serde_json::from_str::<FamilySpec>(r#"{"family":"knn","k":3}"#).is_err());
        let ratio = FamilySpec::Lasso(LassoConfig { l1_ratio: Some(1.5), ..LassoConfig::lasso() });
        assert_eq!(named(ratio.build(&reg)), "l1_ratio");
    }

    #[test]
    fn enet_and_lasso_share_a_config_with_their_own_default_ratio() {
        let reg = svr_problem(40, Seed(1), 0).unwrap();
        let enet: FamilySpec = serde_json::from_str(r#"{"family":"enet","tol":1e-6}"#).unwrap();
        let FamilySpec::Enet(ref c) = enet else { panic!("enet") };
        assert_eq!((c.kind, c.l1_ratio().unwrap().get()), (LassoKind::Enet, 0.5));
        assert_eq!(enet.build(&reg).unwrap().name(), "enet");
        let params = FamilyParams::default().set("tol", 1e-6);
        let from_params = crate::family::build(FamilyKind::Enet, &params, &reg).unwrap();
        assert_eq!(from_params.grid().values(), enet.build(&reg).unwrap().grid().values());
    }

    #[test]
    fn a_rule_is_the_family_at_one_value() {
        let data = knn_problem(60, Seed(1)).unwrap();
        let rule = Rule { family: FamilySpec::default_for(FamilyKind::Knn), value: 7.0 };
        let family = rule.build(&data).unwrap();
        assert_eq!((family.name(), family.grid().values()), ("knn", &[7.0][..]));
        let composite =
            FamilySpec::from_params(FamilyKind::Knn, &FamilyParams { union: vec![FamilyKind::Logistic], ..FamilyParams::default() });
        assert!(Rule { family: composite.unwrap(), value: 1.0 }.build(&data).is_err());
    }
}
