"""Risk estimation and nested comparison of procedures as functions, with picklable result objects."""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Sequence
from typing import Any
from numbers import Integral, Real

import numpy as np
from numpy.typing import ArrayLike
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions

from . import _categorical, _input, _native, _scoring
from . import dask as _dask, plotting
from .exceptions import ParameterError
from ._estimators import _grid_text, _loss_spec, _params
from ._validation import GRID, NAME, OPTIONAL_NAME, SEED, THREADS, RandomStateLike, check_name, seed_of, threads_of, validate

__all__ = ["estimate_risk", "RiskEstimate", "compare", "nested_cv", "Comparison", "treecv", "TreeCVResult"]


class RiskEstimate:
    """The estimated risk of one rule, with standard errors (one row per loss).

    ``to_dict()`` gives the library's full result (the CLI's ``estimate --json`` ``result``:
    the per-split risks, the method — resampling or closed form —, GCV where available, and for a
    bootstrap plan the naive, leave-one-out, .632 and .632+ estimators); ``to_frame()`` the
    summary table as a pandas DataFrame.

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> import agghoo
    >>> X, y = load_diabetes(return_X_y=True)
    >>> est = agghoo.estimate_risk(X, y, family="ridge", value=1.0, plan="vfold:5", loss=["squared", "absolute"])
    >>> sorted(s["loss"] for s in est.summaries)
    ['absolute', 'squared']
    """

    def __init__(self, result: dict[str, Any]) -> None:
        self._result = result

    @property
    def summaries(self) -> list[dict[str, Any]]:
        """A list of ``{"loss", "estimate", "standard_error"}`` dicts."""
        return [dict(s) for s in self._result["estimate"]["summaries"]]

    @property
    def bootstrap(self) -> dict[str, Any] | None:
        """The bootstrap estimators (``None`` unless the plan was ``bootstrap:B``)."""
        return copy.deepcopy(self._result.get("bootstrap"))

    def __getitem__(self, loss: str) -> float:
        for s in self._result["estimate"]["summaries"]:
            if s["loss"] == loss:
                return s["estimate"]
        raise KeyError(loss)

    def to_dict(self) -> dict[str, Any]:
        return copy.deepcopy(self._result)

    def to_frame(self) -> Any:
        import pandas as pd

        return pd.DataFrame(self.summaries).set_index("loss")

    def __repr__(self) -> str:
        rows = ", ".join(f"{s['loss']}={s['estimate']:.6g}±{(s['standard_error'] or float('nan')):.2g}" for s in self.summaries)
        return f"RiskEstimate({rows})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RiskEstimate) and self._result == other._result


def _plan_or_folds(plan, X, y, groups, random_state, stratify):
    """A plan for the library, and the user's index sets when the splits do not come from a plan
    text: a scikit-learn splitter (``GroupKFold``, ``StratifiedKFold``, ...; given ``groups``), an
    iterable of (train, validation) index pairs, an int V (``vfold:V``), or a group plan
    (``group:V``, the groups given). Returns ``(plan text, None)`` or ``(placeholder, folds)``."""
    if plan is None:
        plan = "vfold:10"
    if isinstance(plan, Integral) and not isinstance(plan, bool):
        return f"vfold:{int(plan)}", None
    if isinstance(plan, str):
        if not plan.strip().startswith("group"):
            return plan, None
        if groups is None:
            raise ValueError(f"plan={plan!r} splits by group: pass the group of every row, groups=...")
        from .model_selection import AgghooSplitter

        plan = AgghooSplitter(plan, stratify=stratify, random_state=seed_of(random_state))
    if hasattr(plan, "split"):
        pairs = plan.split(X, y, groups)
    else:
        pairs = plan
    return "folds", _scoring.index_pairs(pairs)


def _refuse_with_estimator(**options):
    """The built-in families' options given with a scikit-learn estimator as ``family``: refused by
    name (they would be ignored)."""
    given = [k for k, v in options.items() if v is not None and v is not False]
    if given:
        raise ValueError(f"{', '.join(given)}: not used with a scikit-learn estimator as family (put preprocessing in a Pipeline)")


def _refuse_weights_with_estimator(sample_weight):
    """``sample_weight`` with a scikit-learn estimator as ``family``: refused by name (use
    :class:`AgghooClassifier` / :class:`AgghooRegressor` with ``estimator=``, which route them)."""
    if sample_weight is not None:
        raise ValueError("sample_weight: not supported with a scikit-learn estimator as family here; use AgghooClassifier / AgghooRegressor(estimator=...).fit(X, y, sample_weight=...)")


def _weights(sample_weight, n_rows):
    """``sample_weight`` as a list of floats, one per row (the library checks the values), or ``None``."""
    if sample_weight is None:
        return None
    w = np.asarray(sample_weight, dtype=np.float64).ravel()
    if len(w) != n_rows:
        raise ValueError(f"sample_weight: {len(w)} weights for {n_rows} rows")
    return w.tolist()


def _loss_of(name, classification):
    """The library's loss ``name`` over a fitted estimator's validation predictions, as a function
    ``(model, X, y) -> risk`` computed by the library; the task's default for ``None``. A loss
    that reads probabilities or decision scores asks the model for them."""
    name, needs = _native.loss_info(name, classification)
    if classification:
        return name, lambda m, X, y: _class_risk(name, needs, m, X, y)
    return name, lambda m, X, y: _native.loss_risk(name, np.asarray(y, dtype=np.float64).tolist(), np.asarray(m.predict(X), dtype=np.float64).tolist())


def _class_risk(name, needs, model, X, y):
    """The risk of loss ``name`` (reading ``needs``: ``"probabilities"``, ``"decision_scores"`` or
    ``None``) of a fitted classifier on ``X``, ``y``: labels as indices into ``model.classes_``
    (labels it never saw follow them, their probability 0)."""
    classes = list(getattr(model, "classes_", []))
    predicted = np.asarray(model.predict(X))
    unseen = [c for c in np.unique(np.concatenate([np.asarray(y), predicted])) if c not in classes]
    codes = {c: i for i, c in enumerate(classes + unseen)}
    labels = [float(codes[c]) for c in predicted.tolist()]
    scores = {}
    method = {"probabilities": "predict_proba", "decision_scores": "decision_function"}.get(needs)
    if method is not None:
        if not hasattr(model, method):
            raise ValueError(f"loss {name!r} needs {needs.replace('_', ' ')}: {type(model).__name__} has no {method}")
        out = np.asarray(getattr(model, method)(X), dtype=np.float64)
        if needs == "probabilities":
            out = np.hstack([out, np.zeros((out.shape[0], len(unseen)))])
        scores["proba" if needs == "probabilities" else "decision"] = out.ravel().tolist()
    return _native.loss_risk(name, [float(codes[c]) for c in np.asarray(y).tolist()], labels, n_classes=len(codes), **scores)


def _fit_and_score(estimator, X, y, train, validation, losses):
    from sklearn.base import clone

    from .meta import _take

    model = clone(estimator).fit(_take(X, train), y[train])
    return [f(model, _take(X, validation), y[validation]) for _, f in losses]


def _estimate_estimator(estimator, X, y, plan, groups, stratify, loss, task, random_state, n_jobs):
    """:func:`estimate_risk` of a scikit-learn estimator: fitted in Python on each training set of
    the plan (or splitter), scored with the library's losses, summarised by the engine's size-weighted
    mean and standard error; the same result layout as a built-in family's."""
    from joblib import Parallel, delayed

    from .model_selection import AgghooSplitter

    y = np.asarray(y)
    _input.check_dense(X)
    if isinstance(plan, str) and not plan.strip().startswith("group"):
        plan = AgghooSplitter(plan, stratify=stratify, random_state=seed_of(random_state))
    _, folds = _plan_or_folds(plan, X, y, groups, random_state, stratify)
    classification = _estimator_task(estimator, y, task) == "classification"
    names = [loss] if isinstance(loss, str) or loss is None else list(loss)
    losses = [_loss_of(n, classification) for n in names]
    risks = Parallel(n_jobs=n_jobs)(
        delayed(_fit_and_score)(estimator, X, y, np.asarray(t), np.asarray(v), losses) for t, v in folds
    )
    sizes = [len(v) for _, v in folds]
    summaries = []
    for i, (name, _) in enumerate(losses):
        mean, se = _native.risk_curve([[r[i]] for r in risks], sizes)
        summaries.append({"loss": name, "estimate": mean[0], "standard_error": se[0]})
    splits = [
        {"split": j, "n_train": len(t), "n_validation": len(v), "risks": list(r)} for j, ((t, v), r) in enumerate(zip(folds, risks))
    ]
    estimate = {
        "estimator": repr(estimator), "method": "resampling", "n_rows": len(y), "n_splits": len(folds),
        "splits": splits, "summaries": summaries,
    }
    return RiskEstimate({"estimate": estimate, "bootstrap": None})


def _compare_estimator(estimator, grid, methods, X, y, outer, inner, groups, stratify, loss, task, random_state, n_jobs):
    """:func:`compare` over a scikit-learn estimator: every procedure is the estimator-wrapping
    AgghooClassifier / AgghooRegressor fitted on each outer training set, scored on the outer test
    rows; risks summarised and pairs compared by the engine; the same result layout."""
    from sklearn.base import is_classifier

    from ._estimators import AgghooClassifier, AgghooRegressor
    from .meta import _take
    from .model_selection import AgghooSplitter

    if grid is None:
        raise ValueError("grid: with a scikit-learn estimator as family, give its candidates (a dict of lists, as param_grid)")
    methods = [methods] if isinstance(methods, str) else [str(m) for m in methods]
    y = np.asarray(y)
    _input.check_dense(X)
    seed = seed_of(random_state)
    if isinstance(outer, str) and not outer.strip().startswith("group"):
        outer = AgghooSplitter(outer, stratify=stratify, random_state=seed)
    _, folds = _plan_or_folds(outer, X, y, groups, seed, stratify)
    classifier = is_classifier(estimator)
    name, score = _loss_of(loss, classifier)
    Wrapper = AgghooClassifier if classifier else AgghooRegressor
    sizes = [len(v) for _, v in folds]
    procedures = []
    for method in methods:
        risks, chosen = [], []
        for j, (train, test) in enumerate(folds):
            train, test = np.asarray(train), np.asarray(test)
            wrapper = Wrapper(estimator=estimator, param_grid=grid, method=method, plan=inner, stratify=stratify,
                              random_state=(seed + j) % 2**63, n_jobs=n_jobs)
            wrapper.fit(_take(X, train), y[train])
            risks.append(score(wrapper, _take(X, test), y[test]))
            chosen.append(wrapper.best_params_ if _native.procedure_info(method)["picks_a_curve_point"] else wrapper.selected_params_)
        mean, se = _native.risk_curve([[r] for r in risks], sizes)
        procedures.append({"label": method, "method": method, "estimate": mean[0], "standard_error": se[0],
                           "test_risks": risks, "selected_values": chosen})
    n = len(y)
    comparisons = [
        json.loads(_native.compare_paired(a["label"], a["test_risks"], b["label"], b["test_risks"], n, folds))
        for i, a in enumerate(procedures) for b in procedures[i + 1:]
    ]
    result = {"estimator": repr(estimator), "loss": name, "n_rows": n, "inner_plan": inner, "seed": seed,
              "outer_splits": len(folds), "procedures": procedures, "comparisons": comparisons}
    return Comparison(result)


def _task_of(y, task):
    check_name("task", task)
    if task == "auto":
        return "regression" if np.asarray(y).dtype.kind == "f" else "classification"
    return task


def _estimator_task(estimator, y, task):
    """The task of a scikit-learn ``estimator`` on ``y``: ``task`` when given; for ``"auto"`` the
    estimator's own (a classifier or a regressor, as scikit-learn's scorers decide), and only for
    an estimator that is neither, ``y``'s (:func:`_task_of`) — integer targets of a regressor are
    not classes."""
    from sklearn.base import is_classifier, is_regressor

    if task == "auto" and (is_classifier(estimator) or is_regressor(estimator)):
        return "classification" if is_classifier(estimator) else "regression"
    return _task_of(y, task)


@validate(
    family=[str, HasMethods(["fit", "predict"])], value=[Interval(Real, None, None, closed="neither"), str, None],
    plan=[str, "cv_object"], closed_form=["boolean"], groups=["array-like", None],
)
def estimate_risk(
    X: ArrayLike,
    y: ArrayLike,
    family: str | Any = "knn",
    value: float | str | None = None,
    params: dict[str, Any] | None = None,
    plan: str | Any = "vfold:10",
    stratify: bool | None = None,
    loss: str | Sequence[str] | None = None,
    standardize: bool = False,
    missing: str = "error",
    closed_form: bool = True,
    task: str = "auto",
    random_state: RandomStateLike = 0,
    n_jobs: int | None = None,
    client: Any = None,
    categorical: Sequence[Any] | None = None,
    missing_category: str = "level",
    na_values: Sequence[str] | None = None,
    groups: ArrayLike | None = None,
    sample_weight: ArrayLike | None = None,
    verbose: int = 0,
) -> RiskEstimate:
    """Estimate the risk of one rule — a family at one hyperparameter value — with its standard error.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        NaN marks a missing value (see ``missing``).
    y : array-like of shape (n_samples,)
    family : str or scikit-learn estimator, default="knn"
        A built-in family (the CLI's names), or any scikit-learn estimator: it is cloned and fitted
        in Python on every training set of the plan (joblib, ``n_jobs``) and scored on the
        validation rows with the library's loss (``01``, ``logloss`` with ``predict_proba``,
        ``squared``, ``absolute``); ``value`` and the family options do not apply.
    value : float
        The hyperparameter value of the rule (k, λ, C, α, ...).
    params : dict, optional
        Other family parameters, as the CLI's ``--param KEY=VALUE``.
    plan : str, int, splitter or iterable, default="vfold:10"
        ``vfold:V``, ``repeated:V:R``, ``5x2``, ``mc:V:TAU``, ``holdout:TAU``, ``loo``,
        ``lpo:P:MAX``, ``bootstrap:B`` (which adds the .632 and .632+ estimators) or ``time:S``
        (time-ordered splits; options ``:gap=G``, ``:max_train=M``, ``:test=T``),
        ``group:V`` (whole groups, with ``groups``); an int V (``vfold:V``); or, as
        scikit-learn's ``cv=``, any splitter (``GroupKFold(5)`` with ``groups``) or iterable of
        (train, validation) index arrays.
    groups : array-like, optional
        A group label per row, for ``group:V`` and group splitters.
    sample_weight : array-like of shape (n_samples,), optional
        A weight per row (the CLI's ``--weight-column``): weighted fits where the family has them
        and weighted risks (``Σ w L / Σ w`` over the validation rows). Built-in families only.
    stratify : bool, optional
        ``None`` (default): V-fold plans are stratified for a classification target, other
        plans are not; ``True`` / ``False``: the CLI's ``--stratify`` / ``--no-stratify``.
    loss : str or list of str, optional
        ``squared``, ``absolute``, ``01``, ``logloss``, ...; the task's default when omitted.
    standardize : bool, default=False
    missing : {"error", "median", "drop"}, default="error"
        NaN in ``X``: refuse, impute with training-set medians, or drop the rows, as
        :class:`AgghooClassifier` does (the same result as the call on the kept rows: a plan's
        splits are drawn over them; a splitter's or the caller's index pairs, drawn over all the
        rows, are restated on them).
    categorical, missing_category, na_values : as :class:`AgghooClassifier` (text columns of a
        DataFrame are categorical).
    closed_form : bool, default=True
        Use exact closed-form leave-one-out / GCV where the family has it.
    task : {"auto", "classification", "regression"}, default="auto"
        ``auto``: regression for a float ``y``, classification otherwise; with a scikit-learn
        estimator as ``family``, the estimator's own (``is_classifier`` / ``is_regressor``).
    random_state : int, RandomState, Generator or None, default=0
        The seed (the CLI's ``--seed``); a numpy generator or ``None`` (numpy's global generator)
        gives a seed drawn from it, as scikit-learn's ``check_random_state``.
    n_jobs : int, optional
        Threads, with joblib's meaning: ``None`` is 1 (unless inside
        ``joblib.parallel_config(n_jobs=...)``), ``-1`` every core, ``-2`` all but one; ``0`` is
        refused. Results do not depend on it.
    client : dask.distributed.Client, optional
        Run the splits on this Dask cluster (also inside ``agghoo.dask.backend(client)``); the
        result is the same bit for bit. The bootstrap's .632 / .632+ estimators are computed
        on the client.
    verbose : int, default=0
        ``> 0``: one line per finished split on stderr (``> 1``: per started split too).
        Ctrl-C stops the computation between splits and raises ``KeyboardInterrupt``.

    Returns
    -------
    RiskEstimate

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> import agghoo
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> est = agghoo.estimate_risk(X, y, family="knn", value=5, plan="vfold:5")
    >>> [s["loss"] for s in est.summaries]
    ['01']
    >>> bool(0 < est["01"] < 0.2)
    True
    """
    if not isinstance(family, str):
        _refuse_with_estimator(value=value, params=params, client=client, standardize=standardize, categorical=categorical)
        _refuse_weights_with_estimator(sample_weight)
        return _estimate_estimator(family, X, y, plan, groups, stratify, loss, task, random_state, n_jobs)
    if value is None:
        raise ValueError("value: give the hyperparameter value of the rule to evaluate")
    plan, folds = _plan_or_folds(plan, X, y, groups, random_state, stratify)
    X, y, data = _prepare(X, y, task, missing, categorical, na_values, folds, sample_weight)
    classification = data["class_names"] is not None
    losses = [loss] if isinstance(loss, str) else list(loss or [])
    be = _dask.active_client(client)
    stratify = None if stratify is None else bool(stratify)
    spec = {
        "family": json.loads(_native.family_spec_json(family, None, _params(params))),
        "value": float(value),
        "standardize": bool(standardize),
        "missing_category": _categorical.check_missing_category(missing_category),
        "plan": None if folds is not None else json.loads(_native.plan_spec_json(plan, stratify, classification)),
        "losses": [json.loads(_native.loss_spec_json(name)) for name in losses],
        "closed_form": "auto" if closed_form else "never",
        "seed": seed_of(random_state),
    }
    run = {"threads": threads_of(n_jobs), "job": be is not None, "verbose": int(verbose)}
    out = _native.estimate(X, y, json.dumps(spec), data, run)
    text = out if be is None else _dask.run_job(be, out, X, y)
    return RiskEstimate(json.loads(text))


class Comparison:
    """Nested cross-validation of selection procedures on identical outer splits.

    ``procedures`` holds each procedure's test risk ± standard error, its per-split test risks and
    the values it selected; ``comparisons`` the paired differences of every pair with the
    Nadeau–Bengio corrected resampled t-test. ``to_dict()`` is the CLI's ``compare --json``
    ``result``; ``to_frame()`` one row per procedure.

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> import agghoo
    >>> X, y = load_diabetes(return_X_y=True)
    >>> cmp = agghoo.compare(X, y, family="ridge", grid="log:1e-3:10:4", outer="vfold:3", inner="vfold:3")
    >>> len(cmp.procedures), len(cmp.comparisons)
    (3, 3)
    """

    def __init__(self, result: dict[str, Any]) -> None:
        self._result = result

    @property
    def procedures(self) -> list[dict[str, Any]]:
        return copy.deepcopy(self._result["procedures"])

    @property
    def comparisons(self) -> list[dict[str, Any]]:
        return copy.deepcopy(self._result["comparisons"])

    def to_dict(self) -> dict[str, Any]:
        return copy.deepcopy(self._result)

    def to_frame(self) -> Any:
        import pandas as pd

        rows = [{"procedure": p["label"], "risk": p["estimate"], "standard_error": p["standard_error"]} for p in self._result["procedures"]]
        return pd.DataFrame(rows).set_index("procedure")

    def plot(self, ax: Any = None, **kwargs: Any) -> Any:
        """Test risk ± standard error and per-split risks per procedure: :class:`agghoo.plotting.ComparisonDisplay`."""
        return plotting.ComparisonDisplay.from_result(self, ax=ax, **kwargs)

    def __repr__(self) -> str:
        rows = ", ".join(f"{p['label']}={p['estimate']:.6g}±{(p['standard_error'] or float('nan')):.2g}" for p in self._result["procedures"])
        return f"Comparison({rows})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Comparison) and self._result == other._result


def _refuse_text(text, names, what):
    """Categorical (text) columns where the engine does not encode them: refused, by name, as the
    CLI refuses them (never read as zeros)."""
    if text:
        columns = ", ".join(names[j] for j, _ in text)
        raise ParameterError(f"categorical columns ({columns}) in {what} is not supported: encode them first")


def _prepare(X, y, task, missing, categorical=None, na_values=None, folds=None, sample_weight=None):
    """``X`` as contiguous floats (NaN where missing), ``y`` as floats (class indices for
    classification) and the rest of the call's data for the compiled module (feature and class
    names, the text of the categorical columns, the ``missing`` policy, the caller's ``folds``,
    ``sample_weight``). ``missing`` is the library's policy: ``error`` refuses a missing value,
    ``median`` leaves it for the fits to impute, ``drop`` drops its row (the caller's folds are
    restated on the kept rows; a plan draws its splits over the kept rows)."""
    check_name("missing", missing)
    _input.check_dense(X)
    names = [str(c) for c in getattr(X, "columns", [])]
    X, text = _categorical.split_text(X, categorical, na_values=na_values)
    X = np.ascontiguousarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D, got shape {X.shape}")
    names = names or [f"x{j}" for j in range(X.shape[1])]
    weights = _weights(sample_weight, X.shape[0])
    if missing == "error" and np.isnan(X).any():
        raise ValueError("X contains NaN: use missing='median' to impute inside each training set, or 'drop' to drop its rows")
    if missing == "error":
        _categorical.refuse_missing(text, names)
    y = np.asarray(y)
    if missing == "drop":
        X, y, text, folds, _, weights = _input.drop_missing(X, y, text, folds, sample_weight=weights)
    _input.check_n_samples(X.shape[0])
    class_names = None
    if _task_of(y, task) == "classification":
        classes, y = np.unique(y, return_inverse=True)
        class_names = [str(c) for c in classes]
    data = {
        "feature_names": names, "class_names": class_names, "categorical": text, "missing": missing, "splits": folds,
        "sample_weight": None if weights is None else np.asarray(weights, dtype=np.float64).tolist(),
    }
    return X, np.ascontiguousarray(y, dtype=np.float64), data


@validate(
    family=[str, HasMethods(["fit", "predict"])], grid=GRID, methods=[str, list, tuple], outer=[str, "cv_object"], inner=NAME,
    groups=["array-like", None],
)
def compare(
    X: ArrayLike,
    y: ArrayLike,
    family: str | Any = "knn",
    grid: str | dict[str, Any] | ArrayLike | None = None,
    params: dict[str, Any] | None = None,
    methods: str | Sequence[str] = ("agghoo", "cv", "holdout"),
    outer: str | Any = "vfold:10",
    inner: str = "mc:10:0.8",
    stratify: bool | None = None,
    loss: str | Sequence[str] | None = None,
    standardize: bool = False,
    missing: str = "error",
    task: str = "auto",
    random_state: RandomStateLike = 0,
    n_jobs: int | None = None,
    client: Any = None,
    categorical: Sequence[Any] | None = None,
    missing_category: str = "level",
    na_values: Sequence[str] | None = None,
    groups: ArrayLike | None = None,
    sample_weight: ArrayLike | None = None,
    verbose: int = 0,
) -> Comparison:
    """Compare selection procedures by nested cross-validation (the CLI's ``agghoo compare``).

    Each procedure selects over the family's grid on the inner splits of every outer training set
    and is scored on the outer test set; all procedures see the same outer splits, so their
    differences are paired.

    Parameters
    ----------
    family, grid, params : as :class:`AgghooClassifier`.
        ``family`` may also be any scikit-learn estimator, ``grid`` then its candidates (a dict of
        lists, as ``param_grid``): each procedure (``agghoo``, ``majhoo``, ``cv``, ``holdout``)
        is an :class:`AgghooClassifier` / :class:`AgghooRegressor` with ``estimator=`` fitted on
        every outer training set (its inner seed ``random_state`` + the outer split's index) and
        scored with ``loss`` (``01``, ``logloss``, ``squared``, ``absolute``); the paired
        comparisons are the library's.
    methods : sequence of str, default=("agghoo", "cv", "holdout")
        ``agghoo``, ``majhoo``, ``cv``, ``cv+1se``, ``holdout``, ``acv``, ``ekcv``, ``subagging``.
    outer : str, int, splitter or iterable, default="vfold:10"
        The outer plan (``vfold:V``, ``repeated:V:R``, ``5x2``, ``mc:V:TAU``, ``loo``,
        ``holdout:TAU``, ``group:V`` with ``groups``), or as :func:`estimate_risk`'s ``plan`` a
        scikit-learn splitter or iterable of index pairs.
    groups : array-like, optional
        A group label per row, for a group outer plan or splitter.
    sample_weight : array-like of shape (n_samples,), optional
        A weight per row, as :func:`estimate_risk`'s (the CLI's ``--weight-column``).
    inner : str, default="mc:10:0.8"
        The inner plan each procedure selects on.
    stratify : bool, optional
        ``True`` stratifies the outer and inner plans by class, ``False`` neither; ``None``
        (default) stratifies the V-fold ones for a classification target (the CLI's default).
    loss, standardize, missing, task, random_state, n_jobs, categorical, missing_category,
    na_values, verbose : as :func:`estimate_risk` (``verbose`` counts outer splits).
    client : dask.distributed.Client, optional
        Run one task per outer split on this Dask cluster (also inside
        ``agghoo.dask.backend(client)``); the result is the same bit for bit.

    Returns
    -------
    Comparison

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> import agghoo
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> cmp = agghoo.compare(X, y, grid=[1, 5, 9], methods=["agghoo", "cv"], outer="vfold:3", inner="mc:3:0.8")
    >>> [p["label"] for p in cmp.procedures]
    ['agghoo', 'cv']
    """
    if not isinstance(family, str):
        _refuse_with_estimator(params=params, client=client, standardize=standardize, categorical=categorical)
        _refuse_weights_with_estimator(sample_weight)
        return _compare_estimator(family, grid, methods, X, y, outer, inner, groups, stratify, loss, task, random_state, n_jobs)
    outer, folds = _plan_or_folds(outer, X, y, groups, random_state, stratify)
    X, y, data = _prepare(X, y, task, missing, categorical, na_values, folds, sample_weight)
    be = _dask.active_client(client)
    stratify = None if stratify is None else bool(stratify)
    classification = data["class_names"] is not None
    spec = {
        "family": json.loads(_native.family_spec_json(family, _grid_text(grid), _params(params))),
        "standardize": bool(standardize),
        "missing_category": _categorical.check_missing_category(missing_category),
        "methods": [str(m) for m in methods],
        "outer": None if folds is not None else json.loads(_native.plan_spec_json(outer, stratify, classification)),
        "inner": json.loads(_native.plan_spec_json(inner, stratify, classification)),
        "loss": _loss_spec(loss),
        "seed": seed_of(random_state),
    }
    run = {"threads": threads_of(n_jobs), "job": be is not None, "verbose": int(verbose)}
    out = _native.compare(X, y, json.dumps(spec), data, run)
    text = out if be is None else _dask.run_job(be, out, X, y)
    return Comparison(json.loads(text))


nested_cv = compare


class _DictResult:
    """A result held as the CLI's JSON document: its keys read as attributes (copies), it pickles
    as that dict, and ``to_dict()`` returns it."""

    def __init__(self, result: dict[str, Any]) -> None:
        self._result = result

    def __getattr__(self, name: str) -> Any:
        try:
            return copy.deepcopy(self.__dict__["_result"][name])
        except KeyError:
            raise AttributeError(name) from None

    def __getstate__(self):
        return self._result

    def __setstate__(self, state):
        self._result = state

    def to_dict(self) -> dict[str, Any]:
        return copy.deepcopy(self._result)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other._result == self._result


class TreeCVResult(_DictResult):
    """The CV estimate of an incremental learner by TreeCV: ``estimate``, ``standard_error``,
    ``chunk_losses`` (the loss of each chunk), and the work done (``n_point_updates``, ``passes``,
    ``wall_seconds``). ``to_dict()`` is the CLI's ``treecv --json`` report.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> import agghoo
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> r = agghoo.treecv(X, y, learner="gaussian-nb", folds=4)
    >>> sorted(k for k in r.to_dict() if k in ("chunk_losses", "estimate", "standard_error"))
    ['chunk_losses', 'estimate', 'standard_error']
    """


    def __repr__(self) -> str:
        return f"TreeCVResult({self._result['learner']}: {self._result['estimate']:.6g} ± {self._result['standard_error']:.2g})"


@validate(
    learner=NAME, folds=[Interval(Integral, 2, None, closed="left"), StrOptions({"loo"})],
    lambda_=[Interval(Real, 0, None, closed="neither")], centres=[Interval(Integral, 1, None, closed="left")],
    method=NAME, order=NAME, shuffle=["boolean"], parallel=["boolean"],
)
def treecv(
    X: ArrayLike,
    y: ArrayLike,
    learner: str = "pegasos",
    folds: int | str = 10,
    lambda_: float = 1e-6,
    centres: int = 8,
    method: str = "tree",
    order: str = "fixed",
    shuffle: bool = True,
    parallel: bool = False,
    missing: str = "error",
    task: str = "auto",
    random_state: RandomStateLike = 0,
    n_jobs: int | None = None,
    client: Any = None,
) -> TreeCVResult:
    """k-fold or leave-one-out CV of an incremental learner in about log2(k) passes (TreeCV).

    Parameters
    ----------
    learner : str, default="pegasos"
        ``pegasos``, ``lsq-sgd``, ``gaussian-nb``, ``multinomial-nb``, ``kmeans`` or ``density``.
    folds : int or "loo", default=10
    lambda_ : float, default=1e-6
        PEGASOS's regularisation.
    centres : int, default=8
        k-means' number of centres.
    method : {"tree", "standard"}, default="tree"
        TreeCV, or k separate trainings (the reference it equals in the fixed order).
    order : {"fixed", "random"}, default="fixed"
        The order in which a model sees the chunks it is fed.
    shuffle : bool, default=True
        Shuffle the rows (from the seed) before cutting them into chunks.
    parallel : bool, default=False
        Run independent subtrees in parallel (same result).
    missing : {"error", "drop"}, default="error"
        NaN in ``X``: refuse, or drop the rows that have one (the CLI's ``--missing drop``).
    task, random_state, n_jobs : as :func:`estimate_risk`.
    client : dask.distributed.Client, optional
        Run the TreeCV paper's distributed variant on this Dask cluster (also inside
        ``agghoo.dask.backend(client)``): chunks stay on the worker that owns them, only models
        travel; the estimate and the chunk losses are the local run's bit for bit. Tree method
        and fixed order only. ``to_dict()["distribution"]`` tells which worker owned which chunk.

    Returns
    -------
    TreeCVResult

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> import agghoo
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> r = agghoo.treecv(X, y, learner="gaussian-nb", folds=5)
    >>> len(r.chunk_losses), bool(0 < r.estimate < 0.2)
    (5, True)
    """
    kept = [name for name, imputes in _native.missing_policies() if not imputes]
    check_name("missing", missing, kept, " (TreeCV's learners do not impute)")
    X, y, data = _prepare(X, y, task, missing)
    names, class_names = data["feature_names"], data["class_names"]
    _refuse_text(data["categorical"], names, "TreeCV")
    k = X.shape[0] if folds == "loo" else int(folds)
    # The learner's own settings only: the others are ignored, as their defaults are.
    reads = _native.learner_settings().get(learner, [])
    spec = {
        "learner": learner,
        "lambda": [float(lambda_)] if "lambda" in reads else None,
        "centres": int(centres) if "centres" in reads else None,
        "folds": k,
        "method": method,
        "order": order,
        "shuffle": bool(shuffle),
        "parallel": bool(parallel),
        "seed": seed_of(random_state),
    }
    be = _dask.active_client(client)
    if be is not None:
        return TreeCVResult(_dask.treecv(be, X, y, names, class_names, spec))
    text = _native.treecv(X, y, names, class_names, json.dumps(spec), threads=threads_of(n_jobs))
    return TreeCVResult(json.loads(text))


class FeatureSelection(_DictResult):
    """A feature selection and, when evaluated, its honest estimate.

    Without ``evaluate``: ``features`` (column indices), ``names`` and ``details`` (the search
    trace, ranking or embedded report). With ``evaluate``: ``honest`` and ``naive`` (risk ±
    standard error), ``selection_bias``, ``folds`` (each outer fold's selection and test risk),
    ``frequency`` (how often each feature was chosen), ``mean_jaccard`` and ``naive_selection``.
    ``to_dict()`` is the CLI's ``features --json`` ``result``; ``to_frame()`` one row per feature
    (selected features, or selection frequencies when evaluated).

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> import agghoo
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> sel = agghoo.select_features(X, y, method="pearson", n_features=2)
    >>> sel.evaluated, len(sel.names)
    (False, 2)
    """


    @property
    def evaluated(self) -> bool:
        """True when the selection was evaluated honestly (``evaluate`` given)."""
        return "honest" in self._result

    def to_frame(self) -> Any:
        import pandas as pd

        if self.evaluated:
            return pd.DataFrame(self._result["frequency"])
        return pd.DataFrame({"index": self._result["features"], "name": self._result["names"]})

    def __repr__(self) -> str:
        if self.evaluated:
            h = self._result["honest"]
            return f"FeatureSelection(honest {h['mean']:.4g} ± {h['standard_error']:.2g}, naive {self._result['naive']['mean']:.4g})"
        return f"FeatureSelection({', '.join(self._result['names'])})"


@validate(
    method=NAME, scorer=NAME, n_features=[Interval(Integral, 1, None, closed="left"), str], inner=NAME,
    evaluate=OPTIONAL_NAME, learner=OPTIONAL_NAME,
)
def select_features(
    X: ArrayLike,
    y: ArrayLike,
    method: str = "sffs",
    scorer: str = "cfs",
    n_features: int | str = "best",
    inner: str = "vfold:5",
    evaluate: str | None = None,
    learner: str | None = None,
    standardize: bool = False,
    missing: str = "error",
    task: str = "auto",
    random_state: RandomStateLike = 0,
    n_jobs: int | None = None,
    client: Any = None,
    categorical: Sequence[Any] | None = None,
    missing_category: str = "level",
    na_values: Sequence[str] | None = None,
) -> FeatureSelection:
    """Select features, and optionally estimate the selection's risk honestly (the CLI's
    ``agghoo features``).

    Parameters
    ----------
    method : str, default="sffs"
        A search (``sfs``, ``sbs``, ``sffs``, ``sbfs``, ``exhaustive``), a filter ranking
        (``pearson``, ``mi``) or an embedded method (``lasso``, ``enet``, ``forest-impurity``,
        ``forest-permutation``).
    scorer : str, default="cfs"
        How a search scores a subset: ``cfs`` (correlation-based merit) or
        ``wrapper:FAMILY:VALUE`` (the CV risk of a learner, e.g. ``wrapper:knn:5``).
    n_features : int or str, default="best"
        ``K``, ``"MIN:MAX"``, ``"best"`` or ``"parsimonious"`` for searches; ``K`` for rankings
        and forests.
    inner : str, default="vfold:5"
        The inner plan of wrapper scores and of the Lasso's λ.
    evaluate : str, optional
        An outer plan (``vfold:10``, ...): the whole selection is redone inside every outer
        training fold and its learner scored on the fold's test rows (the honest estimate), next
        to the naive select-on-all-data estimate.
    learner : str, optional
        ``FAMILY:VALUE`` trained on the selected features in the evaluation (default: the
        wrapper's learner, or ``knn:5``); refused without ``evaluate``.
    standardize, missing, task, random_state, n_jobs : as :func:`estimate_risk`.
    client : dask.distributed.Client, optional
        With ``evaluate``: one Dask task per outer fold (and one for the naive selection); also
        inside ``agghoo.dask.backend(client)``. The result is the same bit for bit.
    categorical, missing_category, na_values : as :class:`AgghooClassifier` (text columns of a
        DataFrame are categorical). A categorical column is one candidate feature, whatever the
        number of columns its encoding gives: filters and CFS score it by Hall's weighted indicator
        correlations (its missing values a level of their own), wrappers add or remove it whole and
        encode it inside every training set, the Lasso selects it when any of its one-hot columns
        is non-zero. ``features`` and ``names`` are the original columns.

    Returns
    -------
    FeatureSelection

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> import agghoo
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> sel = agghoo.select_features(X, y, method="pearson", n_features=3)
    >>> len(sel.features)
    3
    """
    X, y, data = _prepare(X, y, task, missing, categorical, na_values)
    be = _dask.active_client(client) if evaluate is not None else None
    spec = {
        "method": str(method),
        "scorer": str(scorer),
        "n_features": str(n_features),
        "inner": str(inner),
        "evaluate": None if evaluate is None else str(evaluate),
        "learner": None if learner is None else str(learner),
        "standardize": bool(standardize),
        "missing_category": _categorical.check_missing_category(missing_category),
        "seed": seed_of(random_state),
    }
    run = {"threads": threads_of(n_jobs), "job": be is not None, "verbose": 0}
    out = _native.select_features(X, y, json.dumps(spec), data, run)
    text = out if be is None else _dask.run_job(be, out, X, y)
    return FeatureSelection(json.loads(text))


class StudyResult(_DictResult):
    """The real-data study's result: ``cells`` (one per data set × family: sizes, and per
    procedure the test risk of every outer split, its mean and standard error, the risk relative to
    10-fold CV, the paired test against it and its verdict, the cost), ``summary`` (per family and
    procedure over the data sets: geometric-mean relative risk, wins / ties / losses) and the
    settings. ``to_dict()`` is the document ``agghoo study --json`` prints under ``result``.

    Examples
    --------
    >>> import agghoo
    >>> result = agghoo.study("data/study", quick=True, sets=["iris"], families=["knn"], reps=2)
    >>> len(result.cells), result.cells[0]["set"]
    (1, 'iris')
    """

    def to_frame(self) -> Any:
        """One row per data set × family × procedure (cells that failed are left out)."""
        import pandas as pd

        rows = [
            {
                "set": c["set"],
                "family": c["family"],
                "learner": c["learner"],
                "procedure": r["label"],
                "risk": r["mean"],
                "standard_error": r["standard_error"],
                "relative": r["relative"],
                "p_value": r["p_value"],
                "verdict": r["verdict"],
                "fits": r["fits"],
                "seconds": r["seconds"],
            }
            for c in self._result["cells"]
            for r in c["rows"]
        ]
        return pd.DataFrame(rows).set_index(["set", "family", "procedure"])

    def summary_frame(self) -> Any:
        """One row per family × procedure: relative risk (geometric mean), wins, ties, losses."""
        import pandas as pd

        rows = [
            {k: s[k] for k in ("family", "label", "sets", "relative", "wins", "ties", "losses", "fits", "seconds")}
            for s in self._result["summary"]
        ]
        return pd.DataFrame(rows).rename(columns={"label": "procedure"}).set_index(["family", "procedure"])

    def plot(self, kind: str = "relative", ax: Any = None) -> Any:
        """The study's pictures (``kind="relative"`` or ``"tau"``): :class:`agghoo.plotting.StudyDisplay`."""
        return plotting.StudyDisplay.from_result(self, kind=kind, ax=ax)

    def __repr__(self) -> str:
        failed = sum(1 for c in self._result["cells"] if c.get("error"))
        return f"StudyResult({len(self._result['cells'])} cells, {failed} failed, {self._result['reps']} outer splits)"


@validate(quick=["boolean"], random_state=SEED, n_jobs=THREADS)
def study(
    data_dir: str | os.PathLike[str],
    quick: bool = False,
    sets: Sequence[str] | None = None,
    families: Sequence[str] | None = None,
    reps: int | None = None,
    random_state: RandomStateLike = None,
    max_train: int | None = None,
    max_test: int | None = None,
    forest_trees: int | None = None,
    alpha: float | None = None,
    n_jobs: int | None = None,
) -> StudyResult:
    """The real-data study: Agghoo / Majhoo against cross-validation selection, as ``agghoo study``.

    For every data set of the study folder and every family (k-NN, CART, an RBF SVM, a penalised
    linear model), ``reps`` random outer train / test splits shared by every procedure; on each
    training sample 10-fold CV, CV + 1-SE, ACV, EKCV, hold-out, Monte-Carlo CV and Agghoo at
    τ ∈ {0.5, 0.8} × V ∈ {5, 10}; the test risk of each, paired tests against 10-fold CV.

    Parameters
    ----------
    data_dir : str or path
        The study folder: ``manifest.tsv`` and one ``NAME.csv.gz`` per data set (the repository's
        ``data/study``).
    quick : bool, default=False
        Start from the quick settings (6 data sets, 10 outer splits, at most 200 training rows)
        instead of the full study's (every set, 100 outer splits, at most 300 training rows).
    sets, families : list of str, optional
        Data set names of the manifest; families among ``knn``, ``cart``, ``svm``, ``linear``.
    reps, max_train, max_test, forest_trees, alpha : optional
        Outer splits, caps on the outer training and test rows, trees of the reference forest (0:
        none), level of the paired tests.
    random_state : int, optional
        The seed every random choice flows from.
    n_jobs : int, optional
        Threads, as :func:`estimate_risk`'s; the risks do not depend on it.

    Returns
    -------
    StudyResult

    Examples
    --------
    From the repository's root (``data/study``):

    >>> import agghoo
    >>> result = agghoo.study("data/study", quick=True, sets=["iris"], families=["knn"], reps=2)
    >>> list(result.summary_frame().index.names)
    ['family', 'procedure']
    """
    spec = {
        "quick": bool(quick),
        "sets": None if sets is None else [str(s) for s in sets],
        "families": None if families is None else [str(f) for f in families],
        "reps": None if reps is None else int(reps),
        "seed": None if random_state is None else seed_of(random_state),
        "max_train": None if max_train is None else int(max_train),
        "max_test": None if max_test is None else int(max_test),
        "forest_trees": None if forest_trees is None else int(forest_trees),
        "alpha": None if alpha is None else float(alpha),
    }
    text = _native.study(str(data_dir), json.dumps(spec), threads=threads_of(n_jobs))
    return StudyResult(json.loads(text))
