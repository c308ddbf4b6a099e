"""scikit-learn estimators over agghoo's built-in families."""

import json

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils._available_if import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from . import _categorical, _input, _native
from . import dask as _dask, meta, plotting
from ._validation import ESTIMATOR_CONSTRAINTS

__all__ = ["AgghooClassifier", "AgghooRegressor", "load_model"]

# Families whose classifiers give class probabilities, and binary decision scores.
_PROBA_FAMILIES = ("knn", "logistic", "cart", "forest")
_SCORE_FAMILIES = ("svc",)
_METHODS = ("agghoo", "majhoo", "cv", "holdout", "acv", "ekcv", "subagging")


def _grid_text(grid):
    if grid is None or isinstance(grid, (str, dict)):
        return None if isinstance(grid, dict) else grid
    values = [float(v) for v in np.ravel(np.asarray(grid, dtype=float))]
    if not values:
        raise ValueError("grid: expected at least one value")
    return ",".join(repr(v) for v in values)


def _axes(grid):
    """A multi-axis grid ``{"lambda": [...], "gamma": "log:0.1:10:3", "weights": ["uniform", "distance"]}``
    as the CLI's ``--grid NAME=VALUES`` axes; ``[]`` for a one-axis grid."""
    if not isinstance(grid, dict):
        return []
    if not grid:
        raise ValueError("grid: expected at least one axis")
    axes = []
    for name, values in grid.items():
        if isinstance(values, str):
            text = values
        elif all(isinstance(v, str) for v in values):
            text = ",".join(values)
        else:
            text = _grid_text(values)
        axes.append((str(name), text))
    return axes


def _params(params):
    """Family parameters as the CLI's KEY=VALUE pairs (booleans spelled true / false)."""
    return [(str(k), str(v).lower() if isinstance(v, bool) else str(v)) for k, v in (params or {}).items()]


def _default_plan(method, n_splits, tau):
    if method == "cv":
        return f"vfold:{n_splits}"
    if method == "holdout":
        return f"holdout:{tau}"
    return f"mc:{n_splits}:{tau}"


class _Agghoo(BaseEstimator):
    """Shared parameters and fitting of the two estimators (see their docstrings)."""

    _task = None
    _parameter_constraints: dict = ESTIMATOR_CONSTRAINTS

    def __init__(
        self,
        family="knn",
        grid=None,
        params=None,
        method="agghoo",
        plan=None,
        n_splits=10,
        tau=0.8,
        stratify=None,
        loss=None,
        tie="first",
        aggregation=None,
        one_se=False,
        standardize=False,
        missing="error",
        categorical=None,
        missing_category="level",
        na_values=None,
        inner_tau=None,
        random_state=0,
        n_jobs=None,
        estimator=None,
        param_grid=None,
        cv=None,
        scoring=None,
    ):
        self.family = family
        self.grid = grid
        self.params = params
        self.method = method
        self.plan = plan
        self.n_splits = n_splits
        self.tau = tau
        self.stratify = stratify
        self.loss = loss
        self.tie = tie
        self.aggregation = aggregation
        self.one_se = one_se
        self.standardize = standardize
        self.missing = missing
        self.categorical = categorical
        self.missing_category = missing_category
        self.na_values = na_values
        self.inner_tau = inner_tau
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.estimator = estimator
        self.param_grid = param_grid
        self.cv = cv
        self.scoring = scoring

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = self.missing in ("median", "drop")
        return tags

    def _validate(self, X, y=None, reset=True, needs_y=False):
        """The validated ``X`` (and ``y``) and the text of the categorical columns (see
        ``_categorical.split_text``); fitting records which columns are categorical."""
        if needs_y and y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None")
        _input.check_dense(X)
        if not reset:
            _input.check_columns(getattr(self, "feature_names_in_", None), X)
        positions = None if reset else getattr(self, "categorical_features_in_", [])
        X, text = _categorical.split_text(X, self.categorical, positions, self.na_values)
        if reset:
            self.categorical_features_in_ = [j for j, _ in text]
        allow_nan = self.missing in ("median", "drop")
        kwargs = {"dtype": np.float64, "order": "C", "ensure_all_finite": "allow-nan" if allow_nan else True}
        if y is None:
            return validate_data(self, X, reset=reset, **kwargs), text
        X, y = validate_data(self, X, y, reset=reset, y_numeric=self._task == "regression", **kwargs)
        return X, y, text

    def _feature_names(self, n_features):
        names = getattr(self, "feature_names_in_", None)
        return [str(c) for c in names] if names is not None else [f"x{j}" for j in range(n_features)]

    def _fit(self, X, y_codes, class_names, text):
        if self.method not in _METHODS:
            raise ValueError(f"method must be one of {', '.join(_METHODS)}, got {self.method!r}")
        if self.missing not in ("error", "median", "drop"):
            raise ValueError(f"missing must be 'error', 'median' or 'drop', got {self.missing!r}")
        missing_category = _categorical.check_missing_category(self.missing_category)
        if self.missing == "error":
            _categorical.refuse_missing(text, self._feature_names(X.shape[1]))
        if self.missing == "drop":
            keep = ~(np.isnan(X).any(axis=1) | _categorical.missing_rows(text, X.shape[0]))
            X, y_codes, text = np.ascontiguousarray(X[keep]), y_codes[keep], _categorical.keep_rows(text, keep)
        if X.shape[0] < 2:
            raise ValueError(f"n_samples={X.shape[0]}: at least 2 rows are needed to split the data")
        params = _params(self.params)
        plan = self.plan if self.plan is not None else _default_plan(self.method, self.n_splits, self.tau)
        be = _dask.active_client()
        out = _native.select(
            X,
            np.ascontiguousarray(y_codes, dtype=np.float64),
            self._feature_names(X.shape[1]),
            class_names,
            self.family,
            _grid_text(self.grid),
            params,
            self.method,
            plan,
            stratify=None if self.stratify is None else bool(self.stratify),
            loss=self.loss,
            tie=self.tie,
            aggregation=self.aggregation,
            one_se=bool(self.one_se),
            standardize=bool(self.standardize),
            inner_tau=self.inner_tau,
            seed=0 if self.random_state is None else int(self.random_state),
            threads=self.n_jobs if self.n_jobs is None or self.n_jobs > 0 else None,
            job=be is not None,
            categorical=text,
            missing_category=missing_category,
            axes=_axes(self.grid),
            na_values=_categorical.check_na_values(self.na_values),
        )
        model, report = out if be is None else _dask.run_job(be, out, X, np.ascontiguousarray(y_codes, dtype=np.float64))
        self.model_ = model
        self.report_ = json.loads(report)
        points = self.report_.get("grid_points")
        if points is None:
            self.selected_params_ = [s["selected_value"] for s in self.report_["splits"]]
        else:
            self.selected_params_ = [points[s["selected_index"]]["values"] for s in self.report_["splits"]]
        self.member_values_ = list(model.member_values)
        self.cv_results_ = _cv_results(self.report_)
        return self

    def plot(self, ax=None, **kwargs):
        """The CV curve ± its standard error and the selected points: :class:`agghoo.plotting.CVCurveDisplay`."""
        return plotting.CVCurveDisplay.from_estimator(self, ax=ax, **kwargs)

    def save(self, path):
        """Write the fitted model as an agghoo model file (``agghoo predict --model`` reads it)."""
        check_is_fitted(self)
        self.model_.save(str(path))

    def _rows(self, X):
        """The rows to predict and the text of their categorical columns."""
        check_is_fitted(self)
        rows, text = self._validate(X, reset=False)
        if self.missing == "error":
            _categorical.refuse_missing(text, self._feature_names(rows.shape[1]))
        return rows, text


def _cv_results(report):
    """The per-split validation risks in ``GridSearchCV.cv_results_``'s layout (scores = −risk),
    plus the size-weighted mean risk and its standard error under their own keys."""
    grid = report["grid"]
    name = report["hyperparameter"]
    splits = report["splits"]
    scores = np.array([[-r for r in s["risks"]] for s in splits]).reshape(len(splits), len(grid))
    points = report.get("grid_points")
    if points is None:
        results = {
            "params": [{name: v} for v in grid],
            f"param_{name}": np.array(grid),
        }
    else:
        # A multi-axis grid: one parameter dict per grid point, one column per axis.
        results = {"params": [dict(p["values"]) for p in points]}
        for axis in sorted({a for p in points for a in p["values"]}):
            results[f"param_{axis}"] = np.array([p["values"].get(axis) for p in points], dtype=object)
    for j in range(len(splits)):
        results[f"split{j}_test_score"] = scores[j]
    mean = scores.mean(axis=0)
    results["mean_test_score"] = mean
    results["std_test_score"] = scores.std(axis=0)
    order = np.argsort(-mean, kind="stable")
    rank = np.empty(len(grid), dtype=np.int32)
    rank[order] = np.arange(1, len(grid) + 1)
    results["rank_test_score"] = rank
    results["weighted_mean_risk"] = np.array(report["cv_curve"]["mean"])
    results["weighted_mean_risk_se"] = np.array(report["cv_curve"]["standard_error"])
    return results


class AgghooClassifier(ClassifierMixin, _Agghoo):
    """Model selection and aggregation for classification (Majhoo, Agghoo, CV, hold-out, ...).

    Fits a family of learners along its whole hyperparameter path on every split of a plan and
    combines the per-split choices by ``method``; all computation runs in agghoo's Rust engine.

    Parameters
    ----------
    family : str, default="knn"
        ``knn``, ``logistic``, ``svc``, ``cart``, ``forest``.
    grid : str, array-like or dict, optional
        The hyperparameter grid: values, or the CLI's text (``"1:49:2"``, ``"log:1e-3:1e2:20"``);
        the family's default grid when omitted. A dict of axes is a product grid, as the CLI's
        repeated ``--grid NAME=VALUES``: ``{"lambda": "log:1e-4:1:5", "gamma": [0.1, 1, 10]}``
        (svc), ``{"k": range(1, 30, 2), "weights": ["uniform", "distance"]}`` (knn).
    params : dict, optional
        Other family parameters, as the CLI's ``--param KEY=VALUE``.
    method : str, default="agghoo"
        ``agghoo``, ``majhoo``, ``cv``, ``holdout``, ``acv``, ``ekcv`` or ``subagging``.
    plan : str, optional
        The splits, in the forms ``mc:V:TAU``, ``vfold:V``, ``holdout:TAU``, ``loo``, ...; by
        default ``vfold:n_splits`` for ``cv``, ``holdout:tau`` for ``holdout``, else
        ``mc:n_splits:tau``.
    n_splits : int, default=10
    tau : float, default=0.8
        Training fraction of Monte-Carlo and hold-out splits.
    stratify : bool, optional
        Keep class proportions in every split. By default (``None``) V-fold and repeated V-fold
        plans are stratified for classification (as scikit-learn's ``cv=int``) and Monte-Carlo
        and hold-out plans are not; ``True`` stratifies those too, ``False`` none (the CLI's
        ``--stratify`` / ``--no-stratify``).
    loss : str, optional
        Selection loss (``01``, ``logloss``, ``hinge``, ...); the task's default when omitted.
    tie : {"first", "last"}, default="first"
        Which grid point wins a tie of risks.
    aggregation : str, optional
        ``vote``, ``soft``, ``score`` or ``mean``; the method's default when omitted.
    one_se : bool, default=False
        CV: the simplest grid point within one standard error of the best.
    standardize : bool, default=False
        Standardise features inside each training set.
    missing : {"error", "median", "drop"}, default="error"
        NaN in ``X``: refuse, impute with training-set medians, or drop the rows (missing values
        of categorical columns too; kept, they follow ``missing_category``). A model fitted
        without missing values refuses them at predict, in numeric and categorical columns.
    categorical : list, optional
        Columns to read as categorical even if numeric (names, or positions for arrays). A
        DataFrame's object, string and category columns are categorical anyway. Categorical
        columns are one-hot encoded inside each training set (level codes for ``cart`` and
        ``forest``); a level absent from the training rows encodes as all zeros (one past the
        last code), as the CLI does.
    missing_category : {"level", "most_frequent"}, default="level"
        A kept missing categorical value: a level of its own, or the training rows' most
        frequent level.
    na_values : list of str, optional
        The strings of categorical (text) columns read as missing values, at fit and predict;
        by default ``agghoo.DEFAULT_NA_VALUES`` (pandas' NA strings, ``?``), which the word
        ``"default"`` stands for in a list: ``["default", "-"]`` adds ``-``, ``["NULL"]``
        replaces them. Recorded in the saved model for ``agghoo predict``. A column categorical
        by its dtype although nearly all its values are numbers gets a ``UserWarning``.
    inner_tau : float, optional
        Subagging's inner training fraction.
    random_state : int, default=0
        The seed every random choice follows from (same seed, same result as the CLI).
    n_jobs : int, optional
        Threads; all cores when omitted. Results do not depend on it.
    estimator : scikit-learn estimator, optional
        Any classifier (regressor for :class:`AgghooRegressor`) to select among instead of a
        built-in family: each candidate of ``param_grid`` is fitted in Python on every split, and
        agghoo's rules select and aggregate (``method`` agghoo, majhoo, cv or holdout).
    param_grid : dict or list of dicts, optional
        The candidates for ``estimator``, as ``GridSearchCV``'s; with ``one_se`` the first
        candidate is the simplest.
    cv : cross-validator, optional
        The splits for ``estimator`` (any scikit-learn splitter); by default the plan above.
    scoring : str or callable, optional
        The validation score for ``estimator`` (risk = −score); the estimator's ``score`` by
        default.

    Attributes
    ----------
    classes_ : ndarray
    n_features_in_ : int
    feature_names_in_ : ndarray of str (when ``X`` has column names)
    selected_params_ : list of float
        The hyperparameter selected on each split.
    member_values_ : list of float
        The hyperparameter of each member of the final model.
    cv_results_ : dict
        ``GridSearchCV``'s layout (scores are negated risks), plus ``weighted_mean_risk`` and
        ``weighted_mean_risk_se``.
    report_ : dict
        The library's full report.
    """

    _task = "classification"

    def fit(self, X, y):
        """Select and fit on ``X``, ``y``; returns ``self``."""
        self._validate_params()
        if self.estimator is not None:
            return meta.fit(self, X, y)
        X, y, text = self._validate(X, y, needs_y=True)
        check_classification_targets(y)
        self.classes_, codes = np.unique(y, return_inverse=True)
        if len(self.classes_) < 2:
            raise ValueError("Classifier can't train when only one class is present.")
        return self._fit(X, codes, [str(c) for c in self.classes_], text)

    def predict(self, X):
        """Predicted class labels."""
        if self.estimator is not None:
            check_is_fitted(self)
            return meta.predict(self, X)
        rows, text = self._rows(X)
        return self.classes_[self.model_.predict(rows, categorical=text)]

    @available_if(lambda self: hasattr(self.estimator, "predict_proba") if self.estimator is not None else self.family in _PROBA_FAMILIES)
    def predict_proba(self, X):
        """Class probabilities, columns in the order of ``classes_`` (with a hard vote: the
        fractions of the members voting for each class)."""
        if self.estimator is not None:
            check_is_fitted(self)
            return meta.predict_proba(self, X)
        rows, text = self._rows(X)
        proba = self.model_.predict_proba(rows, categorical=text)
        if proba is None:
            raise AttributeError(f"family {self.family!r} with method {self.method!r} gives no probabilities")
        return proba

    @available_if(lambda self: self.estimator is None and self.family in _SCORE_FAMILIES)
    def decision_function(self, X):
        """Binary problems: a score per row, positive for ``classes_[1]``."""
        rows, text = self._rows(X)
        scores = self.model_.decision_function(rows, categorical=text)
        if scores is None:
            raise AttributeError(f"family {self.family!r} with method {self.method!r} gives no decision scores")
        return scores


class AgghooRegressor(RegressorMixin, _Agghoo):
    """Model selection and aggregation for regression (Agghoo, CV, hold-out, ACV, EKCV, ...).

    Parameters are those of :class:`AgghooClassifier`; families ``knn``, ``ridge``,
    ``kernel-ridge``, ``lasso``, ``enet``, ``svr``, ``cart``, ``forest``; the default
    aggregation averages the members.
    """

    _task = "regression"

    def fit(self, X, y):
        """Select and fit on ``X``, ``y``; returns ``self``."""
        self._validate_params()
        if self.estimator is not None:
            return meta.fit(self, X, y)
        X, y, text = self._validate(X, y, needs_y=True)
        return self._fit(X, y, None, text)

    def predict(self, X):
        """Predicted values."""
        if self.estimator is not None:
            check_is_fitted(self)
            return meta.predict(self, X)
        rows, text = self._rows(X)
        return self.model_.predict(rows, categorical=text)


def load_model(path):
    """A fitted estimator from an agghoo model file (written by ``agghoo select --out`` or ``save``).

    Classification models predict their class names as strings (the model file keeps labels as
    text); columns of ``X`` are taken in the model's feature order (``model_.feature_names``).
    """
    model = _native.Model.load(str(path))
    names = list(model.class_names)
    est = AgghooClassifier() if names else AgghooRegressor()
    est.model_ = model
    est.n_features_in_ = len(model.feature_names)
    est.categorical_features_in_ = [model.feature_names.index(c) for c in model.categorical]
    est.member_values_ = list(model.member_values)
    est.na_values = model.na_values
    if names:
        est.classes_ = np.array(names)
    return est
