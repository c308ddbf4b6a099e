"""``AgghooSearchCV``: GridSearchCV's and RandomizedSearchCV's interface, with agghoo's selection
methods and its path families underneath.

Every (candidate, split) gets a validation score, as in GridSearchCV; how it is computed depends
on the estimator:

- **path dispatch** (``agghoo._dispatch``): when the estimator (alone, or the last step of a
  Pipeline whose other steps are refitted on each training set) is one agghoo has a path family
  for, the candidates that differ only along the family's path axis (``n_neighbors``, ``alpha``,
  ``C``; a decision tree's ``ccp_alpha``) are evaluated from one path fit per split;
- **generic refits** otherwise: scikit-learn's own ``_fit_and_score`` per candidate and split.

``method="cv"`` is GridSearchCV (the best mean score, refitted on all rows); the other methods are
the library's procedures, as :mod:`agghoo.meta` runs them for ``estimator=``: the procedure names
the splits to score (``holdout``: the first; ``subagging``: a hold-out inside each training set)
and, from the scores, the members (``agghoo`` / ``majhoo`` / ``holdout`` / ``subagging``: each
split's best candidate fitted on that split's training rows; ``acv``: each split's best candidate
refitted on all rows), combined by the library's rules.
"""

from __future__ import annotations

import time
import warnings
from typing import Any, Callable

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone, is_classifier
from sklearn.metrics import check_scoring
from sklearn.model_selection import ParameterGrid, check_cv
from sklearn.model_selection._validation import _warn_or_raise_about_fit_failures
from sklearn.utils import _safe_indexing
from sklearn.utils._available_if import available_if
from sklearn.utils.validation import _num_samples, check_is_fitted

from . import _dispatch, _native
from ._results import best_index, cv_results
from ._scoring import index_pairs
from ._validation import SEARCH_CONSTRAINTS, RandomStateLike, seed_of

__all__ = ["AgghooSearchCV"]

def _refits_one(method):
    """Whether ``method``'s predictor is one refit at the CV curve's best point (``method="cv"``:
    GridSearchCV), by the library's procedure."""
    return _native.procedure_info(method)["picks_a_curve_point"]


def _has(name):
    """The method is available when the fitted predictor (or, unfitted, the estimator) has it."""

    def check(self):
        target = getattr(self, "best_estimator_", None)
        target = self.estimator if target is None else target
        if name == "decision_function" and hasattr(self, "best_estimator_") and not _refits_one(self.method):
            return False
        return hasattr(target, name)

    return check


class AgghooSearchCV(MetaEstimatorMixin, BaseEstimator):
    """A drop-in for ``GridSearchCV`` / ``RandomizedSearchCV`` with agghoo's selection methods.

    Parameters
    ----------
    estimator : scikit-learn estimator
        Any classifier or regressor, or a Pipeline ending in one.
    param_grid : dict or list of dicts, optional
        The candidates, as ``GridSearchCV``'s (exactly one of ``param_grid`` and
        ``param_distributions``).
    param_distributions : dict or list of dicts, optional
        As ``RandomizedSearchCV``'s: the candidates are exactly ``ParameterSampler(
        param_distributions, n_iter, random_state=random_state)``'s, except that a path axis given
        as a list in one dict is evaluated whole at each draw of the other entries (the draws of
        ``ParameterSampler(the other entries, n_iter, random_state)`` × the whole list).
    n_iter : int, default=10
    scoring : str or callable, optional
        Any scikit-learn scorer; the estimator's ``score`` by default.
    cv : int, cross-validator or iterable, optional
        The splits. By default 5-fold (stratified for classifiers) for ``method="cv"``, as
        ``GridSearchCV``; 10 Monte-Carlo splits with training fraction ``tau`` otherwise.
    method : {"agghoo", "majhoo", "cv", "holdout", "acv", "subagging"}, default="agghoo"
        ``cv`` is GridSearchCV; ``agghoo`` / ``majhoo`` aggregate the best candidate of each split
        (fitted on that split's training rows), ``holdout`` keeps the first split's, ``acv``
        aggregates each split's best candidate refitted on all rows, ``subagging`` scores on a
        hold-out inside each training set. ``ekcv`` is refused: it fits the mean of the selected
        hyperparameters, which is not one of the candidates.
    tau : float, default=0.8
        Training fraction of the default Monte-Carlo splits.
    aggregation : str, optional
        How the members combine (``mean``, ``vote``, ``soft``); the method's default when omitted.
    n_jobs : int, optional
        Joblib's meaning (``None`` is 1, or an enclosing ``parallel_config``'s): the splits of
        path families run in threads sharing the engine's threads, fits of the estimator under
        joblib's default backend (loky processes), as ``GridSearchCV``'s. Inside
        ``agghoo.dask.backend``, one Dask task per split scores it, with the same results.
    refit : bool, default=True
        ``method="cv"``: refit the best candidate on all rows.
    random_state : int, RandomState, Generator or None, default=None
        Seeds the default splits and the parameter sampler; ``None`` draws a fresh seed, kept as
        ``random_state_`` so the run can be repeated.
    verbose : int, default=0
        ``> 0`` prints which candidates were evaluated on a path and which by refits.
    error_score : "raise" or float, default=np.nan
        The score of a failed fit (generic refits), as GridSearchCV's.
    return_train_score : bool, default=False
        Training scores too (by generic refits).

    Attributes
    ----------
    cv_results_ : dict
        GridSearchCV's layout: ``params``, ``param_*``, ``split{j}_test_score``,
        ``mean_test_score``, ``std_test_score``, ``rank_test_score`` (ties share the lowest rank),
        fit and score times, and ``path`` (True where the score came from a path family).
    best_index_, best_params_, best_score_ : the candidate with the best mean score.
    best_estimator_ : the predictor: the best candidate refitted on all rows (``cv``), or the
        aggregate of the members (an ``AgghooClassifier`` / ``AgghooRegressor`` over ``estimator``
        whose ``selected_params_`` are the members' candidates).
    selected_params_ : list of dict
        Agghoo-type methods: the candidate each member was selected with.
    random_state_ : int
        The seed the run used.
    n_splits_, scorer_, multimetric_ (False), classes_, n_features_in_, feature_names_in_

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.neighbors import KNeighborsClassifier
    >>> from agghoo import AgghooSearchCV
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> search = AgghooSearchCV(KNeighborsClassifier(), {"n_neighbors": list(range(1, 30))}, method="cv", cv=5)
    >>> search.fit(X, y).best_params_["n_neighbors"] in range(1, 30)
    True
    >>> bool(search.cv_results_["path"].all())  # one path fit per split, not one fit per candidate
    True
    """

    _parameter_constraints: dict = SEARCH_CONSTRAINTS

    def __init__(
        self,
        estimator: Any,
        param_grid: dict[str, Any] | list[dict[str, Any]] | None = None,
        *,
        param_distributions: dict[str, Any] | list[dict[str, Any]] | None = None,
        n_iter: int = 10,
        scoring: str | Callable[..., float] | None = None,
        cv: Any = None,
        method: str = "agghoo",
        tau: float = 0.8,
        aggregation: str | None = None,
        n_jobs: int | None = None,
        refit: bool = True,
        random_state: RandomStateLike = None,
        verbose: int = 0,
        error_score: str | float = np.nan,
        return_train_score: bool = False,
    ) -> None:
        self.estimator = estimator
        self.param_grid = param_grid
        self.param_distributions = param_distributions
        self.n_iter = n_iter
        self.scoring = scoring
        self.cv = cv
        self.method = method
        self.tau = tau
        self.aggregation = aggregation
        self.n_jobs = n_jobs
        self.refit = refit
        self.random_state = random_state
        self.verbose = verbose
        self.error_score = error_score
        self.return_train_score = return_train_score

    def _candidates(self):
        if (self.param_grid is None) == (self.param_distributions is None):
            raise ValueError("AgghooSearchCV needs exactly one of param_grid and param_distributions")
        if self.param_grid is not None:
            grid = ParameterGrid(self.param_grid)
            _native.check_grid_points(len(grid), "the grid `param_grid`")
            return list(grid)
        _native.check_grid_points(self.n_iter, "`n_iter` sampled candidates")
        # An int seeds the sampler as RandomizedSearchCV's does; otherwise the drawn random_state_.
        seed = self.random_state if isinstance(self.random_state, (int, np.integer)) else self.random_state_
        from . import _paths

        candidates = _paths.sampled(self.param_distributions, self.n_iter, seed, _paths.path_axis(self.estimator))
        _native.check_grid_points(len(candidates), "the sampled candidates (`n_iter` draws times the path axis's list)")
        return candidates

    def _splits(self, X, y, groups):
        classifier = is_classifier(self.estimator)
        cv = self.cv
        if cv is None and not _refits_one(self.method):
            from .model_selection import AgghooSplitter

            cv = AgghooSplitter(_native.default_plan(self.method, 10, self.tau), random_state=self.random_state_)
        folds = index_pairs(check_cv(cv, y, classifier=classifier).split(X, y, groups))
        # The splits the library's procedure scores (hold-out: the first; subagging: inner hold-outs).
        splits, _ = _native.procedure_splits(self.method, _num_samples(X), folds, seed=self.random_state_, candidates_only=True)
        return splits

    def fit(self, X, y=None, groups=None, **fit_params):
        """Score every candidate on every split, select by ``method`` and fit the predictor."""
        self._validate_params()
        if isinstance(self.scoring, (list, tuple, set, dict)):
            raise ValueError("AgghooSearchCV takes one scorer (a name or a callable), not several")
        self.random_state_ = seed_of(self.random_state)
        candidates = self._candidates()
        y = None if y is None else np.asarray(y)
        splits = self._splits(X, y, groups)
        self.scorer_ = check_scoring(self.estimator, scoring=self.scoring)
        test, train, fit_time, score_time, path = self._score(X, y, splits, candidates, fit_params)
        self.cv_results_ = _results(candidates, test, train, fit_time, score_time, path)
        self.n_splits_ = len(splits)
        self.multimetric_ = False
        self.best_index_ = best_index(self.cv_results_)
        self.best_params_ = candidates[self.best_index_]
        self.best_score_ = float(self.cv_results_["mean_test_score"][self.best_index_])
        if is_classifier(self.estimator):
            self.classes_ = np.unique(y)
        if _refits_one(self.method):
            if self.refit:
                start = time.perf_counter()
                self.best_estimator_ = clone(self.estimator).set_params(**self.best_params_).fit(X, y, **fit_params)
                self.refit_time_ = time.perf_counter() - start
        else:
            self.best_estimator_ = self._aggregate(X, y, splits, candidates, test, fit_params)
        if hasattr(self, "best_estimator_"):
            for name in ("n_features_in_", "feature_names_in_"):
                if hasattr(self.best_estimator_, name):
                    setattr(self, name, getattr(self.best_estimator_, name))
        return self

    def _score(self, X, y, splits, candidates, fit_params):
        """Test (and train) scores ``[split][candidate]``, fit and score times, and which candidates
        a path family scored."""
        n, m = len(splits), len(candidates)
        test = np.full((n, m), np.nan)
        train = np.full((n, m), np.nan) if self.return_train_score else None
        fit_time, score_time = np.zeros((n, m)), np.zeros((n, m))
        path = np.zeros(m, dtype=bool)
        from . import _paths

        groups = []
        if not self.return_train_score and not fit_params:
            plan = _dispatch.plan(self.estimator, candidates, X, y, splits)
            for line in plan.notes:
                self._say(line)
            groups = plan.groups
        else:
            self._say("generic refits for every candidate (return_train_score or fit parameters given)")
        search = _paths.Search(self.estimator, candidates, self.scorer_, fit_params, self.return_train_score, self.error_score)
        grouped = {i for group in groups for i in group.indices}
        pending = [i for i in range(m) if i not in grouped]
        units = [("path", group) for group in groups] + [("fit", i) for i in pending]
        results = _paths.run(units, X, y, splits, search, self.n_jobs)
        refits = []
        for group, rows in zip(groups, results):
            failed = next((reason for row, reason in rows if row is None), None)
            if failed is not None:
                self._say(f"generic refits: the path failed ({failed})")
                refits += group.indices
                continue
            for j, (row, seconds) in enumerate(rows):
                test[j, group.indices] = row
                fit_time[j, group.indices] = seconds / len(group.indices)
            path[group.indices] = True
        fitted = list(zip(pending, results[len(groups):]))
        if refits:
            fitted += zip(refits, _paths.run([("fit", i) for i in refits], X, y, splits, search, self.n_jobs))
        if fitted:
            _warn_or_raise_about_fit_failures([r for _, rows in fitted for r in rows], self.error_score)
        for i, rows in fitted:
            for j, r in enumerate(rows):
                test[j, i] = r["test_scores"]
                fit_time[j, i], score_time[j, i] = r["fit_time"], r["score_time"]
                if train is not None:
                    train[j, i] = r["train_scores"]
        return test, train, fit_time, score_time, path

    def _say(self, line):
        if self.verbose:
            print(f"AgghooSearchCV: {line}")

    def _aggregate(self, X, y, splits, candidates, test, fit_params):
        """Methods other than ``cv``: the members the library's procedure chooses from the scores
        (a split's best candidate fitted on its training rows, or refitted on all rows), combined
        by the library's rules (``agghoo.meta``)."""
        from ._estimators import AgghooClassifier, AgghooRegressor

        risks = np.where(np.isnan(test), np.inf, -test)
        if not np.isfinite(risks).any(axis=1).all():
            raise ValueError("every candidate failed on some split: no member can be selected")
        sizes = [len(validation) for _, validation in splits]
        choice = _native.procedure_choice(self.method, risks.tolist(), sizes, is_classifier(self.estimator))
        chosen = choice["selected"]
        # Each distinct (split, candidate) fitted once: on the split's training rows, or on all rows.
        distinct = list(dict.fromkeys((split, c) for split, c, _ in choice["members"]))
        fitted = Parallel(n_jobs=self.n_jobs)(
            delayed(_fit_member)(self.estimator, candidates[c], X, y, None if split is None else splits[split][0], fit_params)
            for split, c in distinct
        )
        by_member = dict(zip(distinct, fitted))
        members = [by_member[(split, c)] for split, c, _ in choice["members"]]
        kind = AgghooClassifier if is_classifier(self.estimator) else AgghooRegressor
        agg = kind(estimator=self.estimator, method=self.method, aggregation=self.aggregation, n_jobs=self.n_jobs)
        agg.members_ = members
        agg.member_risks_ = [risk for _, _, risk in choice["members"]]
        agg.member_splits_ = [split for split, _, _ in choice["members"]]
        agg.candidates_ = candidates
        agg.selected_index_ = chosen
        agg.selected_params_ = [candidates[b] for b in chosen]
        agg.n_features_in_ = getattr(members[0], "n_features_in_", None)
        if hasattr(members[0], "feature_names_in_"):
            agg.feature_names_in_ = members[0].feature_names_in_
        if is_classifier(self.estimator):
            agg.classes_ = np.unique(y)
        self.selected_params_ = agg.selected_params_
        return agg

    def predict(self, X):
        """The predictor's predictions."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.predict(X)

    @available_if(_has("predict_proba"))
    def predict_proba(self, X):
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.predict_proba(X)

    @available_if(_has("decision_function"))
    def decision_function(self, X):
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.decision_function(X)

    def score(self, X, y=None):
        """The scorer on ``X``, ``y`` with the predictor."""
        check_is_fitted(self, "best_estimator_")
        return self.scorer_(self.best_estimator_, X, y)


def _fit_member(estimator, params, X, y, rows, fit_params):
    """``estimator`` at ``params`` fitted on ``rows`` (all rows when ``None``)."""
    if rows is None:
        return clone(estimator).set_params(**params).fit(X, y, **fit_params)
    return clone(estimator).set_params(**params).fit(_safe_indexing(X, rows), y[rows], **fit_params)


def _results(candidates, test, train, fit_time, score_time, path):
    """``cv_results_`` in GridSearchCV's layout (:func:`agghoo._results.cv_results`), with the
    training scores when asked and the ``path`` column."""
    extra = {}
    if train is not None:
        for j, row in enumerate(train):
            extra[f"split{j}_train_score"] = row
        extra["mean_train_score"], extra["std_train_score"] = train.mean(axis=0), train.std(axis=0)
    extra["path"] = path
    return cv_results(candidates, test, fit_time=fit_time, score_time=score_time, extra=extra)
