"""Agghoo, Majhoo, CV and hold-out over any scikit-learn estimator.

The fits happen in Python (one ``clone`` of the estimator per split and candidate, splits in
parallel with joblib, or one Dask task per split inside ``agghoo.dask.backend``); the splits, the selection rules (argmin with the library's tie rule and
tolerance, the one-standard-error rule, the size-weighted CV curve) and the aggregation of the
members come from agghoo's engine, so they are the same rules as for the built-in families.
"""

import time
import warnings

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import clone, is_classifier
from sklearn.metrics import check_scoring
from sklearn.model_selection import ParameterGrid, check_cv
from sklearn.utils.validation import has_fit_parameter

from . import _native
from . import dask as _dask
from ._results import cv_results
from ._scoring import index_pairs
from ._validation import seed_of

# The procedures by name, as the library parses them.
_METHODS = tuple(dict(_native.names())["method"])


def _evaluate_split(estimator, candidates, scorer, X, y, train, validation, tie, keep, sample_weight=None):
    """Fit every candidate on one training set; return the validation risks (−score), the index of
    the winner, when `keep` the winner fitted on the training set, and the seconds each candidate
    took to fit and to score. With `sample_weight`, the training rows' weights go to the fit when
    the estimator's ``fit`` takes them, and the validation rows' to the scorer."""
    risks, fitted, times = [], [], []
    fit_weights, score_weights = {}, {}
    if sample_weight is not None:
        score_weights = {"sample_weight": sample_weight[validation]}
        if has_fit_parameter(estimator, "sample_weight"):
            fit_weights = {"sample_weight": sample_weight[train]}
    for params in candidates:
        started = time.perf_counter()
        model = clone(estimator).set_params(**params).fit(_take(X, train), y[train], **fit_weights)
        fitted_at = time.perf_counter()
        risks.append(-float(scorer(model, _take(X, validation), y[validation], **score_weights)))
        times.append((fitted_at - started, time.perf_counter() - fitted_at))
        fitted.append(model if keep else None)
    best = _native.argmin(risks, tie)
    return risks, best, fitted[best], times


def _split_task(X, y, train, validation, estimator, candidates, scorer, tie, keep, sample_weight=None):
    return _evaluate_split(estimator, candidates, scorer, X, y, train, validation, tie, keep, sample_weight)


def _take(X, rows):
    return X.iloc[rows] if hasattr(X, "iloc") else X[rows]


def fit(self, X, y, groups=None, sample_weight=None):
    """Fit ``self`` (an AgghooClassifier / AgghooRegressor with ``estimator`` set) on ``X``, ``y``;
    ``groups`` go to the splitter (``GroupKFold``, a ``group:V`` plan). The method is the library's
    procedure: it names the splits to evaluate (hold-out: the first; subagging: a hold-out inside
    each training set) and, from the candidates' risks, the members (split models, or candidates
    refitted on all rows). ``sample_weight`` (one float per row, ``class_weight`` included) goes
    to every fit of an estimator whose ``fit`` takes it (otherwise a ``UserWarning`` says the fits
    are unweighted) and to the scorer (weighted validation scores)."""
    if self.param_grid is None:
        raise ValueError("estimator= needs param_grid= (a dict of lists, or a list of such dicts)")
    grid = ParameterGrid(self.param_grid)
    # Bounded by the same grid-point limit as the built-in families, before it is enumerated.
    _native.check_grid_points(len(grid), "the estimator= grid `param_grid`")
    candidates = list(grid)
    classifier = is_classifier(self)
    if classifier != is_classifier(self.estimator):
        raise ValueError(f"{type(self).__name__} needs a {'classifier' if classifier else 'regressor'} as estimator")
    y = np.asarray(y)
    self.random_state_ = seed_of(self.random_state)
    if classifier:
        self.classes_ = np.unique(y)
    splitter = self.cv
    if splitter is None:
        from .model_selection import AgghooSplitter
        plan = self.plan if self.plan is not None else _native.default_plan(self.method, self.n_splits, self.tau)
        splitter = AgghooSplitter(plan, stratify=self.stratify, random_state=self.random_state_)
    splitter = check_cv(splitter, y, classifier=classifier)
    folds = index_pairs(splitter.split(X, y, groups))
    splits, keep = _native.procedure_splits(
        self.method, len(y), folds, seed=self.random_state_, inner_tau=self.inner_tau, candidates_only=True
    )
    scorer = check_scoring(self.estimator, scoring=self.scoring)
    be = _dask.active_client()
    fit_weights = {}
    if sample_weight is not None:
        if has_fit_parameter(self.estimator, "sample_weight"):
            fit_weights = {"sample_weight": sample_weight}
        else:
            warnings.warn(
                f"{type(self.estimator).__name__}.fit takes no sample_weight: its fits are unweighted, "
                "only the validation scores are weighted",
                UserWarning,
                stacklevel=3,
            )
    if be is None:
        results = Parallel(n_jobs=self.n_jobs)(
            delayed(_evaluate_split)(self.estimator, candidates, scorer, X, y, train, validation, self.tie, keep, sample_weight)
            for train, validation in splits
        )
    else:
        # One task per split: the data (weights included) scattered once, the estimator shipped
        # with cloudpickle.
        results = _dask.map_splits(
            be, _split_task, X, y, splits, self.estimator, candidates, scorer, self.tie, keep, sample_weight=sample_weight
        )
    risks = [r for r, _, _, _ in results]
    times = np.array([t for _, _, _, t in results], dtype=float).reshape(len(splits), len(candidates), 2)
    sizes = [len(validation) for _, validation in splits]
    choice = _native.procedure_choice(self.method, risks, sizes, classifier, tie=self.tie, one_se=bool(self.one_se))
    mean, se = choice["mean"], choice["standard_error"]
    self.candidates_ = candidates
    self.selected_index_ = choice["selected"]
    self.selected_params_ = [candidates[b] for b in self.selected_index_]
    extra = {"weighted_mean_risk": np.asarray(mean), "weighted_mean_risk_se": np.asarray(se)}
    self.cv_results_ = cv_results(candidates, -np.asarray(risks, dtype=float), fit_time=times[..., 0], score_time=times[..., 1], extra=extra)
    # Each distinct candidate refitted on all rows once, shared by the members that chose it.
    refits = {}
    for split, candidate, _ in choice["members"]:
        if split is None and candidate not in refits:
            refits[candidate] = clone(self.estimator).set_params(**candidates[candidate]).fit(X, y, **fit_weights)
    self.members_ = [refits[c] if split is None else results[split][2] for split, c, _ in choice["members"]]
    self.member_risks_ = [risk for _, _, risk in choice["members"]]
    self.member_splits_ = [split for split, _, _ in choice["members"]]
    self._set_best(choice["best"], len(splits))
    self.n_features_in_ = getattr(self.members_[0], "n_features_in_", None)
    return self


def _how(self):
    """How the members combine: ``single`` for one member; the ``aggregation`` given; else a
    classifier's mean probabilities (``soft``) when the estimator has ``predict_proba``, its hard
    vote otherwise, and a regressor's mean."""
    if len(self.members_) == 1:
        return "single"
    if self.aggregation is not None:
        return self.aggregation
    if not is_classifier(self):
        return "mean"
    return "soft" if hasattr(self.estimator, "predict_proba") else "vote"


def has_proba(self):
    """Whether ``predict_proba`` is available: the estimator has it, or the members are combined by a
    hard vote (the fractions of the votes)."""
    if hasattr(self.estimator, "predict_proba"):
        return True
    if not hasattr(self, "members_"):
        combines = self.method in _METHODS and _native.procedure_info(self.method)["combines_members"]
        return combines and self.aggregation in (None, "vote")
    return _how(self) == "vote"


def _combine(self, X):
    how = _how(self)
    if not is_classifier(self):
        values, _ = _native.aggregate(how, self.member_risks_, values=[np.asarray(m.predict(X), dtype=float).tolist() for m in self.members_])
        return np.asarray(values), None
    labels = [_member_labels(self, j, np.asarray(m.predict(X)).tolist()) for j, m in enumerate(self.members_)]
    proba = None
    if how == "soft":
        proba = [_member_proba(self, m, X).ravel().tolist() for m in self.members_]
    codes, combined = _native.aggregate(how, self.member_risks_, labels=labels, n_classes=len(self.classes_), proba=proba)
    combined = None if combined is None else np.asarray(combined).reshape(-1, len(self.classes_))
    return self.classes_[np.asarray(codes, dtype=np.intp)], combined


def _unseen_label(self, j, label):
    """The error of member ``j`` giving a label that is not a class of the training target."""
    split = self.member_splits_[j]
    which = f"member {j} (refitted on all rows)" if split is None else f"member {j} (fitted on split {split})"
    return ValueError(
        f"{which}, a {type(self.members_[j]).__name__}, gives the label {label!r}, which is not a class of "
        f"the training target (classes {self.classes_.tolist()})"
    )


def _member_labels(self, j, predicted):
    """Member ``j``'s predicted labels as indices into ``self.classes_``."""
    index = {c: i for i, c in enumerate(self.classes_.tolist())}
    try:
        return [index[c] for c in predicted]
    except KeyError as unseen:
        raise _unseen_label(self, j, unseen.args[0]) from None


def _member_proba(self, member, X):
    """A member's probabilities in the columns of ``self.classes_`` (a member trained on a split
    may have seen fewer classes)."""
    p = member.predict_proba(X)
    out = np.zeros((p.shape[0], len(self.classes_)))
    known = set(self.classes_.tolist())
    for j, c in enumerate(member.classes_):
        if c not in known:
            raise _unseen_label(self, next(i for i, m in enumerate(self.members_) if m is member), c)
        out[:, int(np.searchsorted(self.classes_, c))] = p[:, j]
    return out


def predict(self, X):
    """The members' combined prediction (one member: its own ``predict``); combined probabilities
    (``soft``) or vote fractions (``vote``): their argmax, a tie going to the first class of
    ``classes_``, so that ``predict`` is the argmax of ``predict_proba``."""
    labels, proba = _combine(self, X)
    return labels if proba is None else self.classes_[np.argmax(proba, axis=1)]


def predict_proba(self, X):
    """Class probabilities in the columns of ``classes_``: the single member's, the mean of the
    members' (``soft``), or the fractions of the members' votes (``vote``)."""
    if _how(self) == "single":
        return _member_proba(self, self.members_[0], X)
    return _combine(self, X)[1]
