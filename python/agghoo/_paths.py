"""The round-path protocol of ``AgghooSearchCV``: one fit per split evaluates a whole integer axis
of rounds (trees, boosting iterations), the model with ``m`` rounds read from the model with the
most; ``LassoLars``'s ``alpha`` is read the same way from one LARS path.

=================================================  ============  ==========================================
estimator                                          axis          how the model with m rounds is read
=================================================  ============  ==========================================
GradientBoosting*, HistGradientBoosting*, AdaBoost* n_estimators  ``staged_predict`` / ``staged_predict_proba``
                                                   / max_iter    / ``staged_decision_function`` (stage m)
a user's estimator with ``__agghoo_path__``        declared      its ``staged_*`` methods
RandomForest*, ExtraTrees*                         n_estimators  grown with ``warm_start=True`` through the
                                                                 requested sizes, predictions at each
LGBMClassifier / LGBMRegressor (LightGBM)          n_estimators  ``predict(..., num_iteration=m)``
XGBClassifier / XGBRegressor (XGBoost)             n_estimators  ``predict(..., iteration_range=(0, m))``
LassoLars                                          alpha         one ``lars_path`` at the smallest alpha,
                                                                 each larger alpha where the path stops
=================================================  ============  ==========================================

Each is exact: the first m rounds of a longer fit are the fit with m rounds (a warm-started forest
draws its trees' seeds from ``random_state`` in order, so its first m trees are the cold forest's;
boosting rounds do not depend on the total; a LARS path stops at a larger alpha on the same
breakpoints, to rounding on its last segment). Settings that break this (early stopping, DART's
dropouts, LightGBM's random-forest mode, LARS's jitter) leave the estimator to generic refits.
"""

from __future__ import annotations

import copy
import warnings

import numpy as np
from sklearn.base import clone, is_classifier
from sklearn.pipeline import Pipeline
from sklearn.utils import _safe_indexing

__all__ = ["STAGED_AXES", "axis_of", "describe", "kind_of", "outputs", "path_axis", "refuse", "sampled"]

STAGED, WARM, LIGHTGBM, XGBOOST, LARS = "staged", "warm_start", "lightgbm", "xgboost", "lars"

STAGED_AXES = {
    "GradientBoostingClassifier": "n_estimators",
    "GradientBoostingRegressor": "n_estimators",
    "HistGradientBoostingClassifier": "max_iter",
    "HistGradientBoostingRegressor": "max_iter",
    "AdaBoostClassifier": "n_estimators",
    "AdaBoostRegressor": "n_estimators",
}

FORESTS = ("RandomForestClassifier", "RandomForestRegressor", "ExtraTreesClassifier", "ExtraTreesRegressor")
BOOSTERS = {"LGBMClassifier": LIGHTGBM, "LGBMRegressor": LIGHTGBM, "XGBClassifier": XGBOOST, "XGBRegressor": XGBOOST}


def kind_of(final):
    """How ``final`` (an estimator, not a Pipeline) gives its models with fewer rounds, or None."""
    name = type(final).__name__
    if getattr(final, "__agghoo_path__", None) or name in STAGED_AXES:
        return STAGED if hasattr(final, "staged_predict") else None
    if name in FORESTS and hasattr(final, "warm_start"):
        return WARM
    kind = BOOSTERS.get(name)
    if kind is not None and type(final).__module__.split(".")[0] == kind:
        return kind
    if name == "LassoLars" and type(final).__module__.startswith("sklearn."):
        return LARS
    return None


def axis_of(final):
    """The round axis of ``final`` (an estimator, not a Pipeline), or None."""
    kind = kind_of(final)
    if kind is None:
        return None
    if kind == LARS:
        return "alpha"
    return getattr(final, "__agghoo_path__", None) or STAGED_AXES.get(type(final).__name__) or "n_estimators"


def path_axis(estimator):
    """The parameter name (prefixed inside a Pipeline) of the axis along which one fit per split
    gives every value: a path family's axis (``agghoo._dispatch.RULES``) or a round axis; None."""
    from ._dispatch import RULES, _final

    last, prefix = _final(estimator)
    rule = RULES.get(type(last).__name__)
    axis = rule.axis if rule is not None else axis_of(last)
    return None if axis is None else prefix + axis


def describe(final):
    """How the round axis of ``final`` is read, for ``verbose`` (None without one)."""
    return {
        STAGED: "staged predictions",
        WARM: "warm-start growth",
        LIGHTGBM: "LightGBM iteration ranges",
        XGBOOST: "XGBoost iteration ranges",
        LARS: "one LARS path (lars_path) from the smallest alpha",
    }.get(kind_of(final))


def refuse(kind, p):
    """Why the estimator of ``kind`` whose ``get_params()`` is ``p`` (plus ``n_train``, the largest
    training set, when known) cannot be read from a longer fit, or None."""
    if kind == STAGED:
        if p.get("n_iter_no_change") is not None and "early_stopping" not in p:
            return "n_iter_no_change (early stopping)"
        stop = p.get("early_stopping", False)
        if stop is True or (stop == "auto" and p.get("n_train", 0) > 10_000):
            return "early stopping (set early_stopping=False)"
    elif kind == LIGHTGBM:
        if p.get("boosting_type") not in ("gbdt", "goss") or p.get("boosting") not in (None, "gbdt", "goss"):
            return f"boosting_type={p.get('boosting_type')!r} (only gbdt's rounds do not depend on the total)"
        if any(p.get(k) is not None for k in ("early_stopping_round", "early_stopping_rounds", "n_iter_no_change")):
            return "early stopping"
    elif kind == XGBOOST:
        if p.get("booster") not in (None, "gbtree"):
            return f"booster={p.get('booster')!r} (DART's dropouts change the earlier rounds)"
        if p.get("early_stopping_rounds") is not None or p.get("callbacks"):
            return "early_stopping_rounds or callbacks (early stopping)"
    elif kind == LARS:
        if p.get("jitter") is not None:
            return "jitter (noise drawn per fit)"
    return None


def outputs(estimator, axis, wanted, X, y, train, test):
    """Fit ``estimator`` (a Pipeline's other steps once, on the training rows) on ``train`` once
    and read, for each of the sorted values ``wanted`` (round counts, LARS alphas), the outputs on
    ``test`` of the model at that value: ``(final estimator, {"predict" | "predict_proba" |
    "decision_function": {m: output}})``."""
    X_train, y_train, X_test = _safe_indexing(X, train), y[train], _safe_indexing(X, test)
    if isinstance(estimator, Pipeline):
        pre = Pipeline([(n, clone(s)) for n, s in estimator.steps[:-1]])
        X_train = pre.fit_transform(X_train, y_train)
        X_test = pre.transform(X_test)
        final = clone(estimator.steps[-1][1])
    else:
        final = clone(estimator)
    kind = kind_of(final)
    kinds = ["predict"] + [k for k in ("predict_proba", "decision_function") if is_classifier(final) and hasattr(final, k)]
    if kind == WARM:
        return final, _grow(final, axis, wanted, X_train, y_train, X_test, kinds)
    if kind == LARS:
        return final, {"predict": _lars(final, wanted, X_train, y_train, X_test)}
    final.set_params(**{axis: wanted[-1]}).fit(X_train, y_train)
    if kind == STAGED:
        return final, _staged(final, X_test, wanted)
    option = (lambda m: {"num_iteration": m}) if kind == LIGHTGBM else (lambda m: {"iteration_range": (0, m)})
    return final, {k: {m: getattr(final, k)(X_test, **option(m)) for m in wanted} for k in kinds}


def _staged(final, X_test, wanted):
    result = {}
    for kind in ("predict", "predict_proba", "decision_function"):
        staged = getattr(final, f"staged_{kind}", None)
        if staged is None or (kind != "predict" and not is_classifier(final)):
            continue
        last, stages = None, {}
        for m, out in enumerate(staged(X_test), start=1):
            last = out
            if m in wanted:
                stages[m] = out
        # An estimator that stopped early (AdaBoost on a perfect fit) is its last stage beyond.
        result[kind] = {v: stages.get(v, last) for v in wanted}
    return result


def _lars(final, wanted, X_train, y_train, X_test):
    """``LassoLars`` at each alpha of ``wanted`` (ascending) from one LARS path: the path fitted at
    the smallest alpha, and each larger alpha's coefficients found where ``lars_path`` stops for
    it — the first breakpoint at or below alpha (within its float32 tolerance), interpolated from
    the breakpoint before it by ``lars_path``'s own formula — with the intercept set by the
    estimator's own ``_set_intercept`` from the same centring."""
    from sklearn.linear_model._base import _preprocess_data
    from sklearn.utils.validation import check_X_y

    final.set_params(alpha=wanted[0], fit_path=True).fit(X_train, y_train)
    X_c, y_c = check_X_y(X_train, y_train, y_numeric=True)
    _, _, X_offset, y_offset, X_scale, _ = _preprocess_data(X_c, y_c, fit_intercept=final.fit_intercept, copy=True)
    alphas, path = final.alphas_, final.coef_path_
    tolerance = np.finfo(np.float32).eps
    result = {}
    for alpha in wanted:
        below = np.flatnonzero(alphas <= alpha + tolerance)
        if len(below) == 0 or alpha == wanted[0]:
            coef = path[:, -1]  # the path ended first (max_iter, every feature active), or the fit's own alpha
        else:
            k = int(below[0])
            coef = path[:, k]
            if abs(alphas[k] - alpha) > tolerance and k > 0:
                ss = (alphas[k - 1] - alpha) / (alphas[k - 1] - alphas[k])
                coef = path[:, k - 1] + ss * (path[:, k] - path[:, k - 1])
        model = copy.copy(final)
        model.coef_ = np.array(coef, dtype=float)
        model._set_intercept(X_offset, y_offset, X_scale)
        result[alpha] = model.predict(X_test)
    return result


def _grow(final, axis, wanted, X_train, y_train, X_test, kinds):
    """A forest grown with ``warm_start`` through the sizes ``wanted``: each growth restarts from
    the same ``random_state`` (a ``RandomState`` is copied, not consumed), so the trees added are
    the ones a cold fit of that size draws."""
    state = copy.deepcopy(final.random_state)
    result = {k: {} for k in kinds}
    final.set_params(warm_start=True)
    for m in wanted:
        final.set_params(**{axis: m, "random_state": copy.deepcopy(state)})
        with warnings.catch_warnings():
            # The presets warn that warm starts may see other data; here they see the same rows.
            warnings.filterwarnings("ignore", message="class_weight presets", category=UserWarning)
            final.fit(X_train, y_train)
        for k in kinds:
            result[k][m] = getattr(final, k)(X_test)
    final.set_params(warm_start=False, random_state=state)
    return result


def sampled(distributions, n_iter, random_state, axis):
    """``RandomizedSearchCV``'s candidates, with a path axis given as a list evaluated whole: when
    ``distributions`` is one dict whose entry for ``axis`` is a list (anything without ``rvs``),
    the candidates are each draw of ``ParameterSampler(the other entries, n_iter, random_state)``
    with every value of that list, in the list's order; otherwise exactly ``ParameterSampler``'s
    draws. Each candidate's keys are sorted, as ``ParameterSampler`` gives them."""
    from sklearn.model_selection import ParameterSampler

    one = distributions if isinstance(distributions, dict) else (distributions[0] if len(distributions) == 1 else None)
    values = None if one is None or axis is None else one.get(axis)
    if values is None or hasattr(values, "rvs") or isinstance(values, str):
        return list(ParameterSampler(distributions, n_iter, random_state=random_state))
    others = {k: v for k, v in one.items() if k != axis}
    draws = list(ParameterSampler(others, n_iter, random_state=random_state)) if others else [{}]
    return [dict(sorted({**draw, axis: v}.items())) for draw in draws for v in values]


# ---- scale: the units of a search, one split at a time -----------------------------------------
#
# A unit is ("path", group) — a dispatch group evaluated from one fit on the split — or ("fit", i),
# candidate i fitted by scikit-learn's ``_fit_and_score``. Each (unit, split) is a pure function of
# the data, the split and the search's settings, so the scores do not depend on where it ran.


class Search:
    """What every unit needs: the estimator, the candidates, the scorer and the refit settings."""

    def __init__(self, estimator, candidates, scorer, fit_params, return_train_score, error_score):
        self.estimator = estimator
        self.candidates = candidates
        self.scorer = scorer
        self.fit_params = fit_params
        self.return_train_score = return_train_score
        self.error_score = error_score


def _native_path(unit):
    """A path group of one of agghoo's families (the engine, which releases the GIL)."""
    from ._dispatch import RULES

    return unit[0] == "path" and unit[1].rule.family in {rule.family for rule in RULES.values()}


def _unit(X, y, train, test, unit, search, threads):
    """One unit on one split: a path group's scores (``(row, seconds)``, or ``(None, reason)`` when
    the path failed), or ``_fit_and_score``'s result for a candidate."""
    import time

    from sklearn.model_selection._validation import _fit_and_score

    from . import _dispatch

    what, target = unit
    if what == "path":
        start = time.perf_counter()
        try:
            if target.rule.family == LARS:  # read as a round path is: one fit, outputs per value
                row = _dispatch._staged_split(target, X, y, train, test, search.scorer)
            else:  # a round path is one fit of the estimator: no nested pool for it
                row = _dispatch.path_scores(target, X, y, [(train, test)], search.scorer, threads if _native_path(unit) else 1)[0]
        except (ValueError, ArithmeticError) as e:  # agghoo's errors are ValueErrors
            return None, str(e)
        return np.asarray(row, dtype=float), time.perf_counter() - start
    return _fit_and_score(
        clone(search.estimator),
        X,
        y,
        scorer=search.scorer,
        train=train,
        test=test,
        verbose=0,
        parameters=search.candidates[target],
        fit_params=search.fit_params,
        score_params=None,
        return_train_score=search.return_train_score,
        return_times=True,
        error_score=search.error_score,
    )


def _split_task(X, y, train, test, units, search, threads, host_threads):
    """A Dask task: every unit on one split (the engine's threads shared on the worker's host)."""
    from . import dask as _dask

    if threads is None:
        threads = _dask._task_threads(host_threads)
    return [_unit(X, y, train, test, u, search, threads) for u in units]


def run(units, X, y, splits, search, n_jobs):
    """``[unit][split]`` results. Locally the (unit, split) pairs run in parallel with joblib's
    ``n_jobs``: path families' fits (native code that releases the GIL) in threads, with the
    engine's threads shared among them; fits of the estimator itself under joblib's default backend
    (loky processes, or what ``joblib.parallel_config`` says), as GridSearchCV's. Inside
    ``agghoo.dask.backend``, one Dask task per split (``agghoo.dask.map_splits``)."""
    from joblib import Parallel, delayed

    from . import dask as _dask
    from ._validation import threads_of

    if not units:
        return []
    be = _dask.active_client()
    if be is not None:
        threads = be.threads_per_task
        host_threads = max(_dask._threads(be).values()) if threads is None else 1
        per_split = _dask.map_splits(be, _split_task, X, y, splits, units, search, threads, host_threads)
        return [[per_split[j][u] for j in range(len(splits))] for u in range(len(units))]
    out = {}
    jobs = [(u, j) for u in range(len(units)) for j in range(len(splits))]
    native = [(u, j) for u, j in jobs if _native_path(units[u])]
    if native:
        total = threads_of(n_jobs)
        concurrent = min(total, len(native))
        each = max(1, total // concurrent)
        rows = Parallel(n_jobs=concurrent, prefer="threads")(
            delayed(_unit)(X, y, splits[j][0], splits[j][1], units[u], search, each) for u, j in native
        )
        out.update(zip(native, rows))
    fits = [(u, j) for u, j in jobs if not _native_path(units[u])]
    if fits:
        rows = Parallel(n_jobs=n_jobs)(delayed(_unit)(X, y, splits[j][0], splits[j][1], units[u], search, 1) for u, j in fits)
        out.update(zip(fits, rows))
    return [[out[u, j] for j in range(len(splits))] for u in range(len(units))]

