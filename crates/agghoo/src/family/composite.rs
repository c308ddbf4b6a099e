//! Multi-axis grids and unions of families: one [`Family`] whose grid is the concatenation of
//! *parts*, each part an ordinary family with its non-path settings fixed and its own path axis
//! as its grid.
//!
//! - A **product grid** (`--grid lambda=… --grid gamma=…`): one part per combination of the
//!   values of the non-path axes (here γ), each evaluating its whole path (λ) at once — one
//!   kernel matrix per γ. The grid is the cartesian product.
//! - A **union** (`--family knn,logistic,forest`): the parts of every family, one after the
//!   other, each family with its own (default or given) grid.
//!
//! Grid order — the order of the argmin's tie rule — is: families in the order given; within a
//! family, the combinations of its non-path axes with the first-named axis varying slowest; within
//! a combination, the path axis ascending. Composite grid point `m` maps to (part, path index).
//!
//! Procedures see a composite family through [`Family::composite`]: the order of simplicity of the
//! one-standard-error rule ([`Composite::compare_complexity`]), EKCV's average ([`Composite::ekcv`])
//! and the report's grid points are defined per axis here.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{CompositeSpec, Family, FamilyKind, FamilySpec, FittedPath, Grid, GridSpec, Model, Scale};
use crate::data::{Dataset, Preprocess, Task, View};
use crate::error::{Error, Result};
use crate::loss::Loss;
use crate::predictions::PathPredictions;

/// One `--grid NAME=VALUES` axis as the user wrote it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AxisSpec {
    /// The axis (a family's path hyperparameter such as `k` or `lambda`, or a setting such as `gamma`).
    pub name: String,
    /// Its values: the forms of [`GridSpec::parse`] for a numeric axis, `a,b,c` for a categorical one.
    pub values: String,
}

impl AxisSpec {
    /// Parses `NAME=VALUES`.
    ///
    /// ```
    /// use agghoo::family::AxisSpec;
    /// let axis = AxisSpec::parse("gamma=log:0.01:1:3")?;
    /// assert_eq!((axis.name.as_str(), axis.values.as_str()), ("gamma", "log:0.01:1:3"));
    /// assert!(AxisSpec::parse("1:9:2").is_err());
    /// # Ok::<(), agghoo::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] without `=`, or with an empty name or value list.
    pub fn parse(text: &str) -> Result<Self> {
        match text.split_once('=') {
            Some((name, values)) if !name.trim().is_empty() && !values.trim().is_empty() => {
                Ok(Self { name: name.trim().to_string(), values: values.trim().to_string() })
            }
            _ => Err(Error::invalid("grid", "NAME=VALUES (e.g. gamma=log:0.01:10:5)", text)),
        }
    }
}

/// A value of an axis: a number, or a category (`uniform`, `rbf`, …).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum AxisValue {
    /// A numeric value.
    Number(f64),
    /// A categorical value.
    Text(String),
}

impl std::fmt::Display for AxisValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AxisValue::Number(v) => write!(f, "{v}"),
            AxisValue::Text(t) => f.write_str(t),
        }
    }
}

impl AxisValue {
    fn number(&self) -> f64 {
        match self {
            AxisValue::Number(v) => *v,
            AxisValue::Text(_) => f64::NAN,
        }
    }
}

/// How an axis is ordered, averaged and compared for simplicity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum AxisKind {
    /// Numbers, ascending; averaged in `scale` (EKCV); `larger_is_simpler` gives the direction of
    /// the one-standard-error rule.
    Numeric {
        /// The averaging scale.
        scale: Scale,
        /// True when larger values are simpler rules.
        larger_is_simpler: bool,
    },
    /// Categories in the order written (the first is the simplest); EKCV takes the majority.
    Categorical,
}

/// One axis of a family's grid.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Axis {
    /// The axis name.
    pub name: String,
    /// Order, scale and direction of simplicity.
    pub kind: AxisKind,
    /// The values in grid order (numbers ascending). For the path axis: every value of every part.
    pub values: Vec<AxisValue>,
    /// True for the family's path axis (evaluated at once per training set).
    pub path: bool,
}

/// The axes of one family of a composite grid, the path axis first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FamilyAxes {
    /// The family.
    pub family: FamilyKind,
    /// Its axes: the path axis, then the non-path axes in the order given.
    pub axes: Vec<Axis>,
}

/// A grid point (or EKCV's averaged choice): its family and the value of each of its axes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GridPoint {
    /// The family's name.
    pub family: String,
    /// The value of each axis, by name.
    pub values: BTreeMap<String, AxisValue>,
}

/// A part: a family with its non-path settings fixed.
struct Part {
    family: Box<dyn Family>,
    /// Index into [`Composite::families`].
    member: usize,
    /// The value index of each non-path axis of its family (`axes[1..]`).
    settings: Vec<usize>,
    /// The composite index of its first grid point.
    offset: usize,
}

/// A composite family: a product grid, a union of families, or both. Built from a
/// [`FamilySpec::Composite`] by [`FamilySpec::build_for`].
pub struct Composite {
    families: Vec<FamilyAxes>,
    /// Per family, the spec its parts were built from (without the non-path settings).
    specs: Vec<FamilySpec>,
    parts: Vec<Part>,
    grid: Grid,
    label: String,
}

impl std::fmt::Debug for Composite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Composite").field("families", &self.families).field("points", &self.grid.len()).finish_non_exhaustive()
    }
}

/// Builds the composite family of `spec`'s members over its axes.
///
/// # Errors
/// [`Error::InvalidParameter`] for no member or a composite member, a family named twice, an
/// axis named twice, an axis no family has (naming the axes each family has), or bad axis
/// values; each part's build errors.
pub(crate) fn build(spec: &CompositeSpec, data: &Dataset, preprocess: &Preprocess) -> Result<Box<dyn Family>> {
    if spec.members.is_empty() || spec.members.iter().any(FamilySpec::is_composite) {
        return Err(Error::invalid("family", "plain families as the members of a composite family", "none or a composite member"));
    }
    let kinds: Vec<FamilyKind> = spec.members.iter().map(FamilySpec::kind).collect();
    if let Some(k) = kinds.iter().enumerate().find(|(i, k)| kinds[..*i].contains(k)).map(|(_, k)| k) {
        return Err(Error::InvalidParameter { name: "family", expected: "each family named once", got: format!("`{}` twice", k.name()) });
    }
    let axes = &spec.axes;
    if let Some(a) = axes.iter().enumerate().find(|(i, a)| axes[..*i].iter().any(|b| b.name == a.name)).map(|(_, a)| a) {
        return Err(Error::InvalidParameter { name: "grid", expected: "each axis given once", got: format!("`{}` twice", a.name) });
    }
    let mut used = vec![false; axes.len()];
    let mut families = Vec::new();
    let mut family_specs = Vec::new();
    let mut parts = Vec::new();
    let mut offset = 0;
    let mut path_names = Vec::new();
    for (member, (&kind, base)) in kinds.iter().zip(&spec.members).enumerate() {
        // The path axis is the grid of the family built with its settings as given, or with the
        // other name of its path axis that an axis gives (`C` for svc).
        let named = path_axis_named(base, kind, axes)?;
        let base: &FamilySpec = &named;
        let plain = base.build_plain(data, preprocess)?;
        let path_name = plain.grid().name().to_string();
        path_names.push(format!("{} has {}", kind.name(), axis_list(kind)));
        let mut own = base.clone();
        let mut settings: Vec<Axis> = Vec::new();
        for (i, spec) in axes.iter().enumerate() {
            if spec.name == path_name {
                if own.grid().is_some() {
                    return Err(Error::InvalidParameter {
                        name: "grid",
                        expected: "each axis given once",
                        got: format!("`{path_name}` given both by name and as a grid without a name"),
                    });
                }
                own.set_grid(Some(GridSpec::parse(&spec.values)?))?;
                used[i] = true;
            } else if let Some((_, axis_kind)) = kind.info().setting_axes().find(|(n, _)| *n == spec.name) {
                settings.push(Axis { name: spec.name.clone(), kind: axis_kind, values: axis_values(spec, axis_kind)?, path: false });
                used[i] = true;
            }
        }
        let combos: usize = settings.iter().map(|a| a.values.len()).product();
        // The whole product (settings × path values) is bounded before any family is built: the
        // path's length is its spec's (`log:a:b:N` has N points) or the plain family's.
        let path_len = own.grid().map_or(plain.grid().len(), GridSpec::len);
        crate::limits::check_count(
            crate::limits::Count::GridPoints,
            offset as u128 + crate::limits::product([combos as u128, path_len as u128]),
            format_args!("the combinations of the grid axes ({})", axis_sizes(&path_name, path_len, &settings)),
        )?;
        let mut path_values: Vec<f64> = Vec::new();
        for c in 0..combos {
            // Mixed radix, the first axis slowest.
            let mut rest = c;
            let mut idx = vec![0; settings.len()];
            for (a, axis) in settings.iter().enumerate().rev() {
                idx[a] = rest % axis.values.len();
                rest /= axis.values.len();
            }
            let mut p = own.clone();
            for (axis, &i) in settings.iter().zip(&idx) {
                p.set(&axis.name, &axis.values[i].to_string())?;
            }
            let family = p.build_plain(data, preprocess)?;
            path_values.extend_from_slice(family.grid().values());
            let n = family.grid().len();
            parts.push(Part { family, member, settings: idx, offset });
            offset += n;
        }
        path_values.sort_by(f64::total_cmp);
        path_values.dedup();
        let path = Axis {
            name: path_name,
            kind: AxisKind::Numeric { scale: plain.grid().scale(), larger_is_simpler: plain.grid().larger_is_simpler() },
            values: path_values.into_iter().map(AxisValue::Number).collect(),
            path: true,
        };
        families.push(FamilyAxes { family: kind, axes: std::iter::once(path).chain(settings).collect() });
        family_specs.push(own);
    }
    if let Some(i) = used.iter().position(|u| !u) {
        return Err(Error::InvalidParameter {
            name: "grid",
            expected: "an axis of the family",
            got: format!("`{}` ({})", axes[i].name, path_names.join("; ")),
        });
    }
    if let Some(p) = parts.iter().find(|p| p.family.task() != parts[0].family.task()) {
        return Err(Error::TaskMismatch(format!("family `{}` is not for the task of `{}`", p.family.name(), parts[0].family.name())));
    }
    crate::limits::check_count(crate::limits::Count::GridPoints, offset as u128, format_args!("the composite grid"))?;
    if families.len() == 1 && families[0].axes.len() == 1 {
        // One family and its path axis only: the plain family (named `--grid k=…` = `--grid …`).
        return Ok(parts.remove(0).family);
    }
    let grid = Grid::new("grid point", (0..offset).map(|m| m as f64).collect(), Scale::Linear, true)?;
    let label = kinds.iter().map(|k| k.name()).collect::<Vec<_>>().join(",");
    Ok(Box::new(Composite { families, specs: family_specs, parts, grid, label }))
}

/// `lambda: 50 × gamma: 10` — the sizes of a family's axes, for error messages.
fn axis_sizes(path: &str, path_len: usize, settings: &[Axis]) -> String {
    std::iter::once(format!("{path}: {path_len}"))
        .chain(settings.iter().map(|a| format!("{}: {}", a.name, a.values.len())))
        .collect::<Vec<_>>()
        .join(" × ")
}

/// The names of `kind`'s path axis that are not also a further axis (svc: `lambda`, `C`;
/// forest: `mtry`, its `min_samples_leaf` being a further axis unless `--param
/// grid=min_samples_leaf` makes it the path).
pub(crate) fn path_names(kind: FamilyKind) -> impl Iterator<Item = &'static str> {
    kind.path_axes().iter().copied().filter(move |&p| !kind.info().setting_axes().any(|(n, _)| n == p))
}

/// `k, weights`; `lambda or C, gamma` — the axes `kind` accepts in `--grid NAME=VALUES`, for
/// error messages.
pub(crate) fn axis_list(kind: FamilyKind) -> String {
    let path = path_names(kind).collect::<Vec<_>>().join(" or ");
    std::iter::once(path).chain(kind.info().setting_axes().map(|(n, _)| n.to_string())).collect::<Vec<_>>().join(", ")
}

/// `base` with its path axis switched to the other name an axis of `axes` gives it, where the
/// family has several (svc and svr: `--grid C=…` is `--param grid=C`); `base` itself otherwise.
///
/// # Errors
/// [`Error::InvalidParameter`] when `axes` name two names of the same path axis (`lambda` and `C`).
fn path_axis_named<'a>(base: &'a FamilySpec, kind: FamilyKind, axes: &[AxisSpec]) -> Result<std::borrow::Cow<'a, FamilySpec>> {
    let mut named = axes.iter().filter(|a| path_names(kind).any(|p| p == a.name));
    let Some(axis) = named.next() else { return Ok(std::borrow::Cow::Borrowed(base)) };
    if let Some(other) = named.next() {
        return Err(Error::InvalidParameter {
            name: "grid",
            expected: "one name of a family's path axis",
            got: format!("`{}` and `{}`, two names of one axis ({} has {})", axis.name, other.name, kind.name(), axis_list(kind)),
        });
    }
    if axis.name == base.path_axis() {
        return Ok(std::borrow::Cow::Borrowed(base));
    }
    let mut spec = base.clone();
    spec.set("grid", &axis.name)?;
    Ok(std::borrow::Cow::Owned(spec))
}

/// The values of a non-path axis in grid order: numbers ascending and distinct (checked as a
/// [`Grid`] in the axis's scale), categories in the order written, without repeats.
fn axis_values(spec: &AxisSpec, kind: AxisKind) -> Result<Vec<AxisValue>> {
    match kind {
        AxisKind::Numeric { scale, larger_is_simpler } => {
            let values = GridSpec::parse(&spec.values)?.values()?;
            let grid = Grid::new(spec.name.clone(), values, scale, larger_is_simpler)?;
            Ok(grid.values().iter().map(|&v| AxisValue::Number(v)).collect())
        }
        AxisKind::Categorical => {
            let mut out: Vec<AxisValue> = Vec::new();
            for v in spec.values.split(',').map(str::trim) {
                if v.is_empty() {
                    return Err(Error::invalid("grid", "a,b,c (categories)", &spec.values));
                }
                let v = AxisValue::Text(v.to_string());
                if !out.contains(&v) {
                    out.push(v);
                }
            }
            crate::limits::check_count(crate::limits::Count::GridPoints, out.len() as u128, format_args!("the grid `{}`", spec.values))?;
            if spec.name == "weights" {
                // k-NN's weights: uniform is the simpler, whatever the order written.
                out.sort_by_key(|v| *v != AxisValue::Text("uniform".into()));
            }
            Ok(out)
        }
    }
}

/// EKCV's choice on a composite grid (see [`Composite::ekcv`]).
#[derive(Clone, Debug, PartialEq)]
pub struct EkcvChoice {
    /// The averaged point (off-grid values where the axis allows them).
    pub point: GridPoint,
    /// The averaged path value (fitted with [`Family::fit_value`]).
    pub path_value: f64,
    /// The grid point nearest to the averaged one.
    pub nearest: usize,
    part: usize,
    /// Non-path settings off the grid, to be fitted by a family rebuilt with them.
    off_grid: Vec<(String, String)>,
}

impl Composite {
    /// `knn` or `knn,logistic,forest`.
    pub fn label(&self) -> &str {
        &self.label
    }
    /// The families and their axes, in grid order.
    pub fn families(&self) -> &[FamilyAxes] {
        &self.families
    }
    /// True for a union of several families.
    pub fn is_union(&self) -> bool {
        self.families.len() > 1
    }
    /// The hyperparameter label of reports: `lambda × gamma` for one family, `grid point` for a union.
    pub fn hyperparameter(&self) -> String {
        if self.is_union() {
            "grid point".into()
        } else {
            self.families[0].axes.iter().map(|a| a.name.as_str()).collect::<Vec<_>>().join(" × ")
        }
    }
    fn locate(&self, m: usize) -> (usize, usize) {
        let p = self.parts.partition_point(|p| p.offset <= m).saturating_sub(1);
        (p, m - self.parts[p].offset)
    }
    /// The index (into [`families`](Self::families)) of the family of grid point `m`.
    pub fn family_of(&self, m: usize) -> usize {
        self.parts[self.locate(m).0].member
    }
    /// The path value of grid point `m` (its family's own hyperparameter).
    pub fn path_value(&self, m: usize) -> f64 {
        let (p, i) = self.locate(m);
        self.parts[p].family.grid().value(i)
    }
    /// The value of axis `a` of its family at grid point `m`.
    fn value(&self, m: usize, a: usize) -> AxisValue {
        let (p, i) = self.locate(m);
        let part = &self.parts[p];
        if a == 0 {
            AxisValue::Number(part.family.grid().value(i))
        } else {
            self.families[part.member].axes[a].values[part.settings[a - 1]].clone()
        }
    }
    /// Grid point `m`: its family and the value of each of its axes.
    pub fn point(&self, m: usize) -> GridPoint {
        let member = self.family_of(m);
        let family = &self.families[member];
        GridPoint {
            family: family.family.name().into(),
            values: family.axes.iter().enumerate().map(|(a, axis)| (axis.name.clone(), self.value(m, a))).collect(),
        }
    }
    /// Every grid point, in grid order.
    pub fn points(&self) -> Vec<GridPoint> {
        (0..self.grid.len()).map(|m| self.point(m)).collect()
    }

    /// How much more complex grid point `a` is than `b` on axis `axis` of their (common) family.
    fn compare_axis(&self, a: usize, b: usize, axis: usize) -> std::cmp::Ordering {
        let kind = self.families[self.family_of(a)].axes[axis].kind;
        let (va, vb) = (self.value(a, axis), self.value(b, axis));
        match kind {
            AxisKind::Numeric { larger_is_simpler, .. } => {
                let o = va.number().total_cmp(&vb.number());
                if larger_is_simpler { o.reverse() } else { o }
            }
            AxisKind::Categorical => {
                let values = &self.families[self.family_of(a)].axes[axis].values;
                let pos = |v: &AxisValue| values.iter().position(|x| x == v).unwrap_or(usize::MAX);
                pos(&va).cmp(&pos(&vb))
            }
        }
    }

    /// The order of simplicity of the one-standard-error rule on a composite grid
    /// (the engine's `one_standard_error_by`): grid points of one
    /// family compare axis by axis in priority order — the path axis first, then the other axes in
    /// the order given — each in its own direction of simplicity (the earlier category is
    /// simpler), the first axis that differs deciding; points of two families do not compare
    /// (`None`): the rule stays within the argmin's family.
    pub fn compare_complexity(&self, a: usize, b: usize) -> Option<std::cmp::Ordering> {
        let family = self.family_of(a);
        if self.family_of(b) != family {
            return None;
        }
        let n_axes = self.families[family].axes.len();
        Some((0..n_axes).map(|x| self.compare_axis(a, b, x)).find(|o| o.is_ne()).unwrap_or(std::cmp::Ordering::Equal))
    }

    /// EKCV on a composite grid, from the per-split selections: the family selected most often
    /// (ties: the first in the union's order), then, over the splits that selected it, each axis
    /// averaged in its own way — a numeric axis in its scale (log: geometric mean; linear:
    /// arithmetic mean; integer: the arithmetic mean rounded to the nearest grid value), a
    /// categorical axis by majority (ties: the first in grid order). The path value is fitted
    /// off the grid where the family allows it ([`Family::fit_value`]); a real non-path setting
    /// off the grid is fitted by the family rebuilt with it ([`Composite::fit_ekcv`]).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] without selections.
    pub fn ekcv(&self, selected: &[usize]) -> Result<EkcvChoice> {
        if selected.is_empty() {
            return Err(Error::invalid("selections", "at least one", 0));
        }
        let mut counts = vec![0usize; self.families.len()];
        selected.iter().for_each(|&m| counts[self.family_of(m)] += 1);
        let top = counts.iter().copied().max().unwrap_or(0);
        let member = counts.iter().position(|&c| c == top).unwrap_or(0);
        let chosen: Vec<usize> = selected.iter().copied().filter(|&m| self.family_of(m) == member).collect();
        let axes = &self.families[member].axes;
        let mut values = BTreeMap::new();
        let mut settings = Vec::new();
        let mut off_grid = Vec::new();
        let mut path_value = f64::NAN;
        for (a, axis) in axes.iter().enumerate() {
            let picked: Vec<AxisValue> = chosen.iter().map(|&m| self.value(m, a)).collect();
            let (value, index) = match axis.kind {
                AxisKind::Numeric { scale, .. } => {
                    let xs: Vec<f64> = picked.iter().map(AxisValue::number).collect();
                    let n = xs.len() as f64;
                    let mean = match scale {
                        Scale::Log => (xs.iter().map(|x| x.ln()).sum::<f64>() / n).exp(),
                        _ => xs.iter().sum::<f64>() / n,
                    };
                    let grid_values: Vec<f64> = axis.values.iter().map(AxisValue::number).collect();
                    let nearest = nearest_in_scale(&grid_values, mean, scale);
                    let value = if scale == Scale::Integer && !axis.path { grid_values[nearest] } else { mean };
                    (value, nearest)
                }
                AxisKind::Categorical => {
                    let tally = |v: &AxisValue| picked.iter().filter(|p| *p == v).count();
                    let best = axis.values.iter().map(tally).max().unwrap_or(0);
                    let i = axis.values.iter().position(|v| tally(v) == best).unwrap_or(0);
                    values.insert(axis.name.clone(), axis.values[i].clone());
                    settings.push(i);
                    continue;
                }
            };
            values.insert(axis.name.clone(), AxisValue::Number(value));
            if axis.path {
                path_value = value;
            } else {
                settings.push(index);
                if AxisValue::Number(value) != axis.values[index] {
                    off_grid.push((axis.name.clone(), AxisValue::Number(value).to_string()));
                }
            }
        }
        let part = self.parts.iter().position(|p| p.member == member && p.settings == settings).unwrap_or(0);
        let nearest = self.parts[part].offset + self.parts[part].family.grid().nearest(path_value);
        let point = GridPoint { family: self.families[member].family.name().into(), values };
        Ok(EkcvChoice { point, path_value, nearest, part, off_grid })
    }

    /// Fits EKCV's choice on `train` (all rows, preprocessed): the part's family at the averaged
    /// path value, or — when a non-path setting is off the grid — the family rebuilt on `data`
    /// (as the parts were built) with that setting.
    ///
    /// # Errors
    /// The rebuild's and the fit's errors.
    pub fn fit_ekcv(&self, choice: &EkcvChoice, data: &Dataset, preprocess: &Preprocess, train: &View<'_>) -> Result<Model> {
        let part = &self.parts[choice.part];
        if choice.off_grid.is_empty() {
            return part.family.fit_value(train, choice.path_value);
        }
        let member = &self.families[part.member];
        let mut spec = self.specs[part.member].clone();
        for (a, axis) in member.axes.iter().enumerate().skip(1) {
            spec.set(&axis.name, &axis.values[part.settings[a - 1]].to_string())?;
        }
        for (name, value) in &choice.off_grid {
            spec.set(name, value)?;
        }
        spec.build_plain(data, preprocess)?.fit_value(train, choice.path_value)
    }

    /// What [`fit_ekcv`](Self::fit_ekcv) fits for `choice`: its path value as the family fits it
    /// ([`Family::fitted_value`]: k-NN's nearest k on the grid), and its point with that value.
    pub fn fitted_ekcv(&self, choice: &EkcvChoice) -> (f64, GridPoint) {
        let part = &self.parts[choice.part];
        let value = part.family.fitted_value(choice.path_value);
        let mut point = choice.point.clone();
        if let Some(axis) = self.families[part.member].axes.iter().find(|a| a.path) {
            point.values.insert(axis.name.clone(), AxisValue::Number(value));
        }
        (value, point)
    }
}

/// Index of the value of `values` nearest to `target` in `scale` (ties: the lower index).
fn nearest_in_scale(values: &[f64], target: f64, scale: Scale) -> usize {
    let key = |v: f64| if scale == Scale::Log { v.max(f64::MIN_POSITIVE).ln() } else { v };
    let mut best = 0;
    for (i, &v) in values.iter().enumerate() {
        if (key(v) - key(target)).abs() < (key(values[best]) - key(target)).abs() {
            best = i;
        }
    }
    best
}

impl Family for Composite {
    fn name(&self) -> &'static str {
        if self.is_union() { "union" } else { self.families[0].family.name() }
    }
    fn grid(&self) -> &Grid {
        &self.grid
    }
    fn task(&self) -> Task {
        self.parts[0].family.task()
    }
    fn fit(&self, train: &View<'_>, grid_index: usize) -> Result<Model> {
        if grid_index >= self.grid.len() {
            return Err(Error::invalid("grid", "an index below the number of grid points", grid_index));
        }
        let (p, i) = self.locate(grid_index);
        self.parts[p].family.fit(train, i)
    }
    fn fit_path<'a>(&'a self, train: &View<'a>) -> Result<Box<dyn FittedPath + 'a>> {
        let paths = self.parts.iter().map(|p| p.family.fit_path(train)).collect::<Result<Vec<_>>>()?;
        Ok(Box::new(CompositePath { composite: self, paths }))
    }
    fn check_train_size(&self, n_train: usize) -> Result<()> {
        self.parts.iter().try_for_each(|p| p.family.check_train_size(n_train))
    }
    /// Every part's path is kept until prediction: the sum of theirs.
    fn path_memory(&self, shape: &super::FitShape) -> u128 {
        self.parts.iter().map(|p| p.family.path_memory(shape)).fold(0, u128::saturating_add)
    }
    fn sample_weight(&self) -> bool {
        self.parts.iter().all(|p| p.family.sample_weight())
    }
    fn composite(&self) -> Option<&Composite> {
        Some(self)
    }
}

/// The paths of every part on one training set.
struct CompositePath<'a> {
    composite: &'a Composite,
    paths: Vec<Box<dyn FittedPath + 'a>>,
}

impl FittedPath for CompositePath<'_> {
    fn predict(&self, validation: &View<'_>) -> Result<PathPredictions> {
        let mut out = Vec::with_capacity(self.composite.grid.len());
        for path in &self.paths {
            out.extend(path.predict(validation)?);
        }
        Ok(out)
    }
    fn model(&self, grid_index: usize) -> Result<Model> {
        let (p, i) = self.composite.locate(grid_index);
        self.paths[p].model(i)
    }
    /// Each part's shortcut where it has one, else its predictions and [`Loss::risk`] — the
    /// route the engine would take, so the result equals it bit for bit.
    fn risks(&self, validation: &View<'_>, losses: &[Loss]) -> Option<Result<Vec<Vec<f64>>>> {
        let mut out = vec![Vec::with_capacity(self.composite.grid.len()); losses.len()];
        for path in &self.paths {
            let part = match path.risks(validation, losses) {
                Some(r) => r,
                None => path.predict(validation).and_then(|predictions| {
                    losses.iter().map(|loss| predictions.iter().map(|p| loss.risk(p, validation)).collect()).collect()
                }),
            };
            match part {
                Ok(part) => out.iter_mut().zip(part).for_each(|(o, r)| o.extend(r)),
                Err(e) => return Some(Err(e)),
            }
        }
        Some(Ok(out))
    }
}
