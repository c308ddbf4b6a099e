"""scikit-learn estimators over agghoo's built-in families."""

from __future__ import annotations

import functools
import json
import os
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils._available_if import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from . import _categorical, _input, _native, _scoring
from . import dask as _dask, meta, plotting
from ._results import best_index, cv_results
from ._validation import ESTIMATOR_CONSTRAINTS, RandomStateLike, check_name, seed_of, threads_of, validate_once

__all__ = ["AgghooClassifier", "AgghooRegressor", "load_model"]

# Families whose classifiers give class probabilities, and binary decision scores: the library's registry.
_PROBA_FAMILIES = tuple(name for name, can in _native.families().items() if can["probabilities"])
_SCORE_FAMILIES = tuple(name for name, can in _native.families().items() if can["decision_scores"])
# The procedures by name, as the library parses them.
_METHODS = tuple(dict(_native.names())["method"])
# Hyperparameters whose values are integers (the grid's "integer" scale): reported as ints.
_INTEGER_AXES = tuple(_native.integer_axes())


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


def _all_in(family, kinds):
    """Whether every family of ``family`` (one name, or a union ``"knn,logistic"``) is one of ``kinds``."""
    return all(name.strip() in kinds for name in str(family).split(","))


def _refuse_fit_params(estimator, fit_params):
    """``fit``'s keywords other than ``groups`` and ``sample_weight``: refused by name."""
    if not fit_params:
        return
    names = ", ".join(sorted(fit_params))
    raise TypeError(
        f"{type(estimator).__name__}.fit got unexpected keyword argument(s) {names}: only X, y, groups and sample_weight"
    )


def _row_weights(estimator, sample_weight, y, X):
    """The weight of every row (float64), or ``None`` when neither ``sample_weight`` nor a
    classifier's ``class_weight`` is given: ``sample_weight`` (one non-negative number per row)
    times the weight of each row's class (``"balanced"``: ``n_samples / (n_classes ·
    bincount(y))``, scikit-learn's ``compute_class_weight``; a dict: class → weight, 1 for a class
    it leaves out)."""
    class_weight = getattr(estimator, "class_weight", None)
    if class_weight is not None and estimator._task != "classification":
        raise ValueError(f"class_weight={class_weight!r}: a regressor has no classes (use sample_weight)")
    if sample_weight is None and class_weight is None:
        return None
    # scikit-learn's checks: one finite weight per row (a scalar for all), not all zero; the
    # library refuses a negative weight naming its row.
    weights = _check_sample_weight(sample_weight, X, dtype=np.float64)
    if estimator._task != "classification":
        return weights
    y = np.asarray(y)
    classes = np.unique(y)
    if class_weight is not None:
        from sklearn.utils.class_weight import compute_class_weight

        per_class = compute_class_weight(class_weight, classes=classes, y=y)
        weights = weights * per_class[np.searchsorted(classes, y)]
    weighted = classes[[bool(np.any(weights[y == c] > 0)) for c in classes]]
    if len(classes) >= 2 and len(weighted) < 2:
        raise ValueError(
            f"sample_weight leaves one class with a positive weight ({weighted.tolist()} of {classes.tolist()}): "
            "a classifier needs at least two classes"
        )
    return weights


def _group_ids(plan, groups, n_rows):
    """The group id of every row for a group plan (``group:V``); ``None`` for other plans, which
    ignore ``groups`` as scikit-learn's non-group splitters do."""
    grouped = str(plan).strip().startswith("group")
    if not grouped:
        return None
    if groups is None:
        raise ValueError(f"plan={plan!r} splits by group: pass the group of every row, fit(X, y, groups=...)")
    groups = np.asarray(groups)
    if groups.ndim != 1 or len(groups) != n_rows:
        raise ValueError(f"groups: expected one label per row ({n_rows}), got shape {groups.shape}")
    return np.unique(groups, return_inverse=True)[1].astype(np.uint32).tolist()


def _loss_spec(loss):
    """The spec's loss: the library's value of the loss named ``loss`` (the task's for ``None``)."""
    return None if loss is None else json.loads(_native.loss_spec_json(loss))


class _Agghoo(BaseEstimator):
    """Shared parameters and fitting of the two estimators (see their docstrings)."""

    _task = None
    _parameter_constraints: dict = ESTIMATOR_CONSTRAINTS
    #: Always refitted, as ``GridSearchCV(refit=True)``: ``best_estimator_`` predicts.
    refit = True

    def __init__(
        self,
        family: str = "knn",
        grid: str | dict[str, Any] | ArrayLike | None = None,
        params: dict[str, Any] | None = None,
        method: str = "agghoo",
        plan: str | None = None,
        n_splits: int = 10,
        tau: float = 0.8,
        stratify: bool | None = None,
        loss: str | None = None,
        tie: str = "first",
        aggregation: str | None = None,
        one_se: bool = False,
        standardize: bool = False,
        missing: str = "error",
        categorical: Sequence[Any] | None = None,
        missing_category: str = "level",
        na_values: Sequence[str] | None = None,
        inner_tau: float | None = None,
        random_state: RandomStateLike = 0,
        n_jobs: int | None = None,
        estimator: Any = None,
        param_grid: dict[str, Any] | list[dict[str, Any]] | None = None,
        cv: Any = None,
        scoring: str | Callable[..., float] | None = None,
        verbose: int = 0,
        class_weight: str | dict[Any, float] | None = None,
    ) -> None:
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
        self.verbose = verbose
        self.class_weight = class_weight

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = self.missing != "error"
        return tags

    def _validate_params(self):
        """scikit-learn's check of the parameters, once per distinct value (``validate_once``)."""
        validate_once(self, super()._validate_params)

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
        allow_nan = self.missing != "error"
        kwargs = {"dtype": np.float64, "order": "C", "ensure_all_finite": "allow-nan" if allow_nan else True}
        if _input.is_checked(X) and (y is None or _input.is_checked_target(y, X.shape[0])):
            # Already what check_array / check_X_y would return: only the feature names and
            # their number are checked (and recorded at fit).
            kwargs = {"skip_check_array": True}
        elif y is not None:
            kwargs["y_numeric"] = self._task == "regression"
        if y is None:
            return validate_data(self, X, reset=reset, **kwargs), text
        X, y = validate_data(self, X, y, reset=reset, **kwargs)
        return X, y, text

    def _feature_names(self, n_features):
        names = getattr(self, "feature_names_in_", None)
        return [str(c) for c in names] if names is not None else [f"x{j}" for j in range(n_features)]

    def _fit(self, X, y_codes, class_names, text, groups=None, sample_weight=None):
        self.random_state_ = seed_of(self.random_state)
        scorer = _scoring.scorer_for(self)
        if sample_weight is not None and scorer is not None:
            raise ValueError(
                f"sample_weight (or class_weight) with scoring= for family {self.family!r} is not supported: "
                "the scorer would see unweighted fits; use loss= (weighted), or estimator="
            )
        splits = _scoring.folds(self, X, y_codes, groups)
        if self.method not in _METHODS:
            raise ValueError(f"method must be one of {', '.join(_METHODS)}, got {self.method!r}")
        check_name("missing", self.missing)
        _categorical.check_missing_category(self.missing_category)
        if self.missing == "error":
            _categorical.refuse_missing(text, self._feature_names(X.shape[1]))
        if self.missing == "drop":
            X, y_codes, text, splits, groups, sample_weight = _input.drop_missing(X, y_codes, text, splits, groups, sample_weight)
        _input.check_n_samples(X.shape[0])
        plan = self.plan if self.plan is not None else _native.default_plan(self.method, self.n_splits, self.tau)
        group_ids = _group_ids(plan, groups, X.shape[0])
        be = _dask.active_client()
        stratify = None if self.stratify is None else bool(self.stratify)
        if scorer is not None and splits is None:
            strata = None if class_names is None else [int(c) for c in y_codes]
            splits = _native.splits(plan, X.shape[0], seed=self.random_state_, stratify=stratify, strata=strata, groups=group_ids)
        started = time.perf_counter()
        family = (self.family, _grid_text(self.grid), _params(self.params), _axes(self.grid))
        spec = self._spec(family, plan, class_names is not None)
        y_float = np.ascontiguousarray(y_codes, dtype=np.float64)
        data = {
            "feature_names": self._feature_names(X.shape[1]),
            "class_names": class_names,
            "missing": self.missing,
            "categorical": text,
            "na_values": _categorical.check_na_values(self.na_values),
            "groups": group_ids,
            "splits": splits,
        }
        if sample_weight is not None:
            data["sample_weight"] = sample_weight.tolist()
        run = {"threads": threads_of(self.n_jobs), "job": be is not None, "verbose": int(self.verbose)}
        if scorer is not None:
            out, be = _scoring.select_scored(self, scorer, X, y_float, spec, data, run), None
        else:
            out = _native.select(X, y_float, json.dumps(spec), data, run)
        model, report = out if be is None else _dask.run_job(be, out, X, y_float)
        seconds = time.perf_counter() - started
        self.model_ = model
        self.member_values_ = list(model.member_values)
        # The report and what is read from it are decoded and built on first access (see _LAZY).
        for name in _LAZY:
            self.__dict__.pop(name, None)
        self._report_text = report
        self._fit_seconds = seconds
        info = _native.procedure_info(self.method)
        # one member at a grid point (CV's refit, hold-out's split model): the point is the member's
        self._single = not (info["combines_members"] or info["fits_off_the_grid"])
        return self

    @functools.cached_property
    def report_(self):
        return json.loads(self._report_text)

    @functools.cached_property
    def selected_params_(self):
        report = self.report_
        candidates = _candidates(report)
        return [_selected(report, candidates, s) for s in report["splits"]]

    @functools.cached_property
    def n_splits_(self):
        return len(self.report_["splits"])

    @functools.cached_property
    def cv_results_(self):
        report = self.report_
        return _cv_results(report, _candidates(report), self._fit_seconds)

    @functools.cached_property
    def best_index_(self):
        return int(self.report_["member_grid_indices"][0]) if self._single else best_index(self.cv_results_)

    @functools.cached_property
    def best_params_(self):
        return dict(self.cv_results_["params"][self.best_index_])

    @functools.cached_property
    def best_score_(self):
        return float(self.cv_results_["mean_test_score"][self.best_index_])

    def _spec(self, family, plan, classification):
        """The library's ``SelectSpec`` of the parameters (a dict), for ``family`` (name, grid
        text, params, axes) and the plan written ``plan``, with the seed ``random_state_``."""
        stratify = None if self.stratify is None else bool(self.stratify)
        aggregation = self._aggregation()
        # A hard vote breaks ties as `predict` does (the first class of the vote fractions'
        # maximum), and the model records it, so `agghoo predict` gives the same classes.
        votes = classification and aggregation in (None, "vote") and _native.procedure_info(self.method)["combines_members"]
        spec = {
            "family": json.loads(_native.family_spec_json(*family)),
            "standardize": bool(self.standardize),
            "missing_category": _categorical.check_missing_category(self.missing_category),
            "method": self.method,
            "plan": json.loads(_native.plan_spec_json(plan, stratify, classification)),
            "loss": _loss_spec(self.loss),
            "tie": self.tie,
            "aggregation": aggregation or "auto",
            "one_standard_error": bool(self.one_se),
            "inner_fraction": self.inner_tau,
            "seed": self.random_state_,
            "keep_split_indices": False,
        }
        if votes:
            spec["vote_ties"] = "first-class"
        return spec

    def _set_best(self, index, n_splits):
        """``best_index_`` (``index``, or when ``None`` the first grid point of rank 1),
        ``best_params_``, ``best_score_`` and ``n_splits_`` from ``cv_results_``."""
        self.best_index_ = best_index(self.cv_results_) if index is None else int(index)
        self.best_params_ = dict(self.cv_results_["params"][self.best_index_])
        self.best_score_ = float(self.cv_results_["mean_test_score"][self.best_index_])
        self.n_splits_ = n_splits

    @property
    def best_estimator_(self) -> Any:
        """The fitted estimator that predicts: for ``method="cv"`` with ``estimator=``, the estimator
        refitted on all rows at ``best_params_``; otherwise this estimator itself (the aggregate of
        the members, whose choices are ``selected_params_``)."""
        check_is_fitted(self)
        if self.estimator is not None and _native.procedure_info(self.method)["picks_a_curve_point"]:
            return self.members_[0]
        return self

    def _aggregation(self):
        """The aggregation passed to the engine: the one given, else for a classifier of an aggregating
        method over a family with probabilities ``soft`` (calibrated mean probabilities), else the
        method's default (``None``)."""
        if self.aggregation is not None:
            return self.aggregation
        combines = _native.procedure_info(self.method)["combines_members"]
        if self._task == "classification" and combines and _all_in(self.family, _PROBA_FAMILIES):
            return "soft"
        return None

    def plot(self, ax: Any = None, **kwargs: Any) -> Any:
        """The CV curve ± its standard error and the selected points: :class:`agghoo.plotting.CVCurveDisplay`."""
        return plotting.CVCurveDisplay.from_estimator(self, ax=ax, **kwargs)

    def save(self, path: str | os.PathLike[str]) -> None:
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


#: The fitted attributes a built-in family's fit computes on first access, from the report's JSON
#: text (``functools.cached_property``; ``estimator=`` fits set them directly).
_LAZY = ("report_", "selected_params_", "n_splits_", "cv_results_", "best_index_", "best_params_", "best_score_")


def _typed(name, value):
    """A grid value as the user wrote it: an integer hyperparameter (``k``, ``mtry``, ...) as an int."""
    if name in _INTEGER_AXES and isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _candidates(report):
    """The grid points as parameter dicts, typed like the grid; a union's points name their family."""
    points = report.get("grid_points")
    if points is None:
        name = report["hyperparameter"]
        return [{name: _typed(name, v)} for v in report["grid"]]
    union = len({p["family"] for p in points}) > 1
    return [{**({"family": p["family"]} if union else {}), **{a: _typed(a, v) for a, v in p["values"].items()}} for p in points]


def _selected(report, candidates, split):
    """The hyperparameter one split selected: a value (one axis) or a grid point's dict."""
    if report.get("grid_points") is None:
        return _typed(report["hyperparameter"], split["selected_value"])
    return dict(candidates[split["selected_index"]])


def _cv_results(report, candidates, seconds):
    """The per-split validation risks in ``GridSearchCV.cv_results_``'s layout (scores = −risk),
    plus the size-weighted mean risk and its standard error under their own keys. The engine
    evaluates every grid point of a split in one pass, so the compiled call's wall time
    ``seconds`` is apportioned evenly over the splits and grid points as ``fit_time``; the
    validation scoring is part of that pass (``score_time`` is zero)."""
    scores = -np.array([s["risks"] for s in report["splits"]], dtype=float).reshape(len(report["splits"]), len(candidates))
    extra = {
        "weighted_mean_risk": np.array(report["cv_curve"]["mean"]),
        "weighted_mean_risk_se": np.array(report["cv_curve"]["standard_error"]),
    }
    return cv_results(candidates, scores, fit_time=np.full(scores.shape, seconds / scores.size), extra=extra)


class AgghooClassifier(ClassifierMixin, _Agghoo):
    """Model selection and aggregation for classification (Majhoo, Agghoo, CV, hold-out, ...).

    Fits a family of learners along its whole hyperparameter path on every split of a plan and
    combines the per-split choices by ``method``; all computation runs in agghoo's Rust engine.

    Parameters
    ----------
    family : str, default="knn"
        ``knn``, ``logistic``, ``svc``, ``cart``, ``forest``, or a union selected among as one grid
        (``"knn,logistic"``, the CLI's ``--family knn,logistic``: ``cv_results_["params"]`` then
        name each grid point's ``family``).
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
        ``vote``, ``soft``, ``score`` or ``mean``. By default a classifier that combines members
        (``agghoo``, ``majhoo``, ``subagging``) averages their probabilities (``soft``) when the
        family has them (``knn``, ``logistic``, ``cart``, ``forest``; with ``estimator=``, an
        estimator with ``predict_proba``), else takes the hard vote; a regressor averages. The
        CLI's default is the vote (``--soft`` for the mean). In every mode ``predict`` is the
        argmax of ``predict_proba`` (a tie goes to the first class of ``classes_``); with
        ``vote``, ``predict_proba`` gives the fractions of the members voting for each class, and
        the saved model records that rule (the CLI's ``--vote-ties first-class``; the CLI's own
        default gives a tie to the member of lowest validation risk), so ``agghoo predict`` on a
        saved model gives these classes. Measured with Majhoo over k-NN (10 members) on a stratified 70 / 30
        split (seed 0): on scikit-learn's breast-cancer data, held-out ROC AUC 0.941 with the vote,
        0.970 soft, log loss 1.56 and 0.39; on ``hpc_jobs`` (``data/study``, 4 classes,
        ``standardize=True``), log loss 4.08 and 1.71; accuracy the same (0.912 / 0.918, 0.754 /
        0.757).
    one_se : bool, default=False
        CV: the simplest grid point within one standard error of the best.
    standardize : bool, default=False
        Standardise features inside each training set.
    missing : {"error", "median", "drop"}, default="error"
        NaN in ``X``: refuse, impute with training-set medians, or drop the rows (missing values
        of categorical columns too; kept, they follow ``missing_category``). Dropped, the plan's
        splits are drawn over the kept rows; ``cv``'s, drawn over all the rows, are restated on
        them. A model fitted without missing values refuses them at predict, in numeric and
        categorical columns.
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
    random_state : int, RandomState, Generator or None, default=0
        The seed every random choice follows from (an int: same seed, same result as the CLI's
        ``--seed``). A numpy ``RandomState`` / ``Generator``, or ``None`` (numpy's global
        generator: fresh entropy unless ``numpy.random.seed`` was called), gives a seed drawn
        from it at ``fit``, kept as ``random_state_`` so the fit can be repeated.
    n_jobs : int, optional
        Threads, with joblib's meaning: ``None`` is 1 unless inside
        ``joblib.parallel_config(n_jobs=...)``, ``-1`` every core, ``-2`` every core but one;
        ``0`` is refused. Results do not depend on it.
    estimator : scikit-learn estimator, optional
        Any classifier (regressor for :class:`AgghooRegressor`) to select among instead of a
        built-in family: each candidate of ``param_grid`` is fitted in Python on every split, and
        agghoo's rules select and aggregate (``method`` agghoo, majhoo, cv or holdout).
    param_grid : dict or list of dicts, optional
        The candidates for ``estimator``, as ``GridSearchCV``'s; with ``one_se`` the first
        candidate is the simplest.
    cv : int, cross-validator or iterable of (train, test), optional
        The splits (any scikit-learn splitter, an int as ``check_cv`` reads it, or index pairs),
        replacing ``plan``; a group splitter gets ``fit(groups=)``. By default the plan above.
    scoring : str or callable, optional
        Any scikit-learn scorer (name or callable): the validation score (risk = −score) of every
        grid point on every split, computed from one path fit per split (the built-in families'
        predictions, probabilities and decision scores); an unknown name raises. By default the
        loss ``loss`` (built-in families) or the estimator's ``score`` (``estimator=``).
    verbose : int, default=0
        ``> 0``: one line per finished split on stderr (``> 1``: per started split too), for a
        built-in family. Ctrl-C stops a fit between splits and raises ``KeyboardInterrupt``.
    class_weight : "balanced", dict or None, default=None
        Classifier only: per-class weights multiplied into ``fit``'s ``sample_weight`` (as
        scikit-learn's classifiers do): ``"balanced"`` is ``n_samples / (n_classes ·
        bincount(y))``, a dict maps a class label to its weight (1 for the others). The fits of
        ``logistic`` (and the other families that honour weights) and the validation risks (weighted
        means) follow them; a family without weighted fits refuses them by name.

    Attributes
    ----------
    classes_ : ndarray
    n_features_in_ : int
    feature_names_in_ : ndarray of str (when ``X`` has column names)
    selected_params_ : list
        The hyperparameter selected on each split, typed like the grid (``k`` an int); a dict per
        split for a multi-axis grid or ``estimator=``.
    member_values_ : list of float
        The hyperparameter of each member of the final model.
    cv_results_ : dict
        ``GridSearchCV``'s layout: scores are higher-is-better (a loss negated, as scikit-learn's
        ``neg_…`` scorers; with ``estimator=``, the scorer's values), ranks share ties as
        scikit-learn's (23, 23, 23), ``mean_fit_time`` / ``mean_score_time`` and their ``std_``.
        Built-in families evaluate a split's whole grid in one compiled pass: its wall time is
        spread evenly over the splits and grid points as fit time and the score time is zero;
        with ``estimator=`` both are measured per candidate and split. Plus
        ``weighted_mean_risk`` and ``weighted_mean_risk_se`` (the size-weighted CV curve).
    best_index_ : int
        For ``method="cv"`` and ``"holdout"``, the grid point of the final model (the CV curve's
        choice, with ``one_se`` its one-standard-error rule); for the aggregating methods, the
        grid point of rank 1 (the first in grid order on ties).
    best_params_ : dict
        ``cv_results_["params"][best_index_]``.
    best_score_ : float
        ``cv_results_["mean_test_score"][best_index_]``.
    best_estimator_ : estimator
        The fitted estimator that predicts: with ``estimator=`` and ``method="cv"``, the clone
        refitted on all rows; otherwise this estimator (the aggregate of its members, whose
        choices are ``selected_params_``). As ``GridSearchCV(refit=True)``: ``refit`` is ``True``.
    n_splits_ : int
        The number of splits.
    random_state_ : int
        The seed the fit used (``random_state=random_state_`` repeats it).
    report_ : dict
        The library's full report.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from agghoo import AgghooClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = AgghooClassifier(family="knn", grid=[1, 5, 9, 15], method="majhoo", n_splits=5).fit(X, y)
    >>> len(clf.selected_params_), type(clf.best_params_["k"]).__name__
    (5, 'int')
    >>> clf.predict_proba(X[:2]).shape
    (2, 2)
    >>> bool(clf.score(X, y) > 0.9)
    True
    """

    _task = "classification"

    def fit(
        self,
        X: ArrayLike,
        y: ArrayLike,
        groups: ArrayLike | None = None,
        sample_weight: ArrayLike | None = None,
        **fit_params: Any,
    ) -> AgghooClassifier:
        """Select and fit on ``X``, ``y``; returns ``self``. ``groups``: a group label per row, for a
        group plan (``plan="group:5"``) or a group splitter ``cv=`` with ``estimator=``
        (``set_fit_request(groups=True)`` routes it from a Pipeline or a search).
        ``sample_weight``: a non-negative weight per row (times ``class_weight``'s), honoured by
        the fits of the families that support weights and by the validation risks (weighted
        means); a family without weighted fits refuses it by name
        (``set_fit_request(sample_weight=True)`` routes it)."""
        _refuse_fit_params(self, fit_params)
        self._validate_params()
        if self.estimator is not None:
            return meta.fit(self, X, y, groups, _row_weights(self, sample_weight, y, X))
        X, y, text = self._validate(X, y, needs_y=True)
        check_classification_targets(y)
        self.classes_, codes = np.unique(y, return_inverse=True)
        if len(self.classes_) < 2:
            raise ValueError("Classifier can't train when only one class is present.")
        weights = _row_weights(self, sample_weight, y, X)
        return self._fit(X, codes, [str(c) for c in self.classes_], text, groups, weights)

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Predicted class labels: ``classes_[argmax(predict_proba(X))]`` where there are
        probabilities (a tie goes to the first class in ``classes_`` order, as ``numpy.argmax``
        and ``VotingClassifier``'s hard vote)."""
        if self.estimator is not None:
            check_is_fitted(self)
            return meta.predict(self, X)
        rows, text = self._rows(X)
        if _all_in(self.family, _PROBA_FAMILIES):
            proba = self.model_.predict_proba(rows, categorical=text)
            if proba is not None:
                return self.classes_[np.argmax(proba, axis=1)]
        return self.classes_[self.model_.predict(rows, categorical=text)]

    @available_if(lambda self: meta.has_proba(self) if self.estimator is not None else _all_in(self.family, _PROBA_FAMILIES))
    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """Class probabilities, columns in the order of ``classes_``: by default the mean of the
        members' probabilities (``aggregation="soft"``); with ``aggregation="vote"`` the fractions
        of the members voting for each class."""
        if self.estimator is not None:
            check_is_fitted(self)
            return meta.predict_proba(self, X)
        rows, text = self._rows(X)
        proba = self.model_.predict_proba(rows, categorical=text)
        if proba is None:
            raise AttributeError(f"family {self.family!r} with method {self.method!r} gives no probabilities")
        return proba

    @available_if(lambda self: self.estimator is None and _all_in(self.family, _SCORE_FAMILIES))
    def decision_function(self, X: ArrayLike) -> np.ndarray:
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

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from agghoo import AgghooRegressor
    >>> X, y = load_diabetes(return_X_y=True)
    >>> reg = AgghooRegressor(family="ridge", grid="log:1e-3:1e2:8", method="cv", plan="vfold:5").fit(X, y)
    >>> sorted(reg.best_params_), reg.n_splits_
    (['lambda'], 5)
    >>> reg.predict(X[:3]).shape
    (3,)
    """

    _task = "regression"

    def fit(
        self,
        X: ArrayLike,
        y: ArrayLike,
        groups: ArrayLike | None = None,
        sample_weight: ArrayLike | None = None,
        **fit_params: Any,
    ) -> AgghooRegressor:
        """Select and fit on ``X``, ``y``; returns ``self``. ``groups`` and ``sample_weight`` as
        :meth:`AgghooClassifier.fit`'s."""
        _refuse_fit_params(self, fit_params)
        self._validate_params()
        if self.estimator is not None:
            return meta.fit(self, X, y, groups, _row_weights(self, sample_weight, y, X))
        X, y, text = self._validate(X, y, needs_y=True)
        return self._fit(X, y, None, text, groups, _row_weights(self, sample_weight, y, X))

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Predicted values."""
        if self.estimator is not None:
            check_is_fitted(self)
            return meta.predict(self, X)
        rows, text = self._rows(X)
        return self.model_.predict(rows, categorical=text)


def load_model(path: str | os.PathLike[str]) -> AgghooClassifier | AgghooRegressor:
    """A fitted estimator from an agghoo model file (written by ``agghoo select --out`` or ``save``).

    Classification models predict their class names as strings (the model file keeps labels as
    text); columns of ``X`` are taken in the model's feature order (``model_.feature_names``).

    Examples
    --------
    >>> import tempfile, os
    >>> from sklearn.datasets import load_breast_cancer
    >>> from agghoo import AgghooClassifier, load_model
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = AgghooClassifier(grid=[3, 5], n_splits=3).fit(X, y)
    >>> path = os.path.join(tempfile.mkdtemp(), "model.json")
    >>> clf.save(path)
    >>> load_model(path).predict(X[:3]).tolist() == [str(c) for c in clf.predict(X[:3])]
    True
    >>> loaded = load_model(path)
    >>> loaded.family, loaded.method, loaded.aggregation
    ('knn', 'agghoo', 'soft')
    """
    model = _native.Model.load(str(path))
    names = list(model.class_names)
    # The estimator's parameters say what made the model (its family, procedure and aggregation).
    kind = AgghooClassifier if names else AgghooRegressor
    est = kind(family=model.family, method=model.method, aggregation=model.aggregation)
    est.model_ = model
    est.n_features_in_ = len(model.feature_names)
    est.categorical_features_in_ = [model.feature_names.index(c) for c in model.categorical]
    est.member_values_ = list(model.member_values)
    est.na_values = model.na_values
    if names:
        est.classes_ = np.array(names)
    return est
