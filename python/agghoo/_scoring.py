"""``scoring=`` and ``cv=`` for the built-in families.

The engine fits a family's whole path once per training set of the caller's folds and hands back,
per split and grid point, the validation predictions with the class probabilities and decision
scores the family gives (``_native.path_outputs``); any scikit-learn scorer is evaluated on them
through a stand-in estimator (:class:`PathPoint`) that answers ``predict`` / ``predict_proba`` /
``decision_function`` with those cached outputs. The risks (−score) go back to the library, which
selects and aggregates as it does with its own losses.
"""

import json

import numpy as np
from sklearn.base import BaseEstimator, is_classifier
from sklearn.metrics import check_scoring
from sklearn.model_selection import check_cv
from sklearn.utils._available_if import available_if

from . import _native

__all__ = ["PathPoint", "folds", "keep_rows", "path_scores", "scorer_for"]


class PathPoint(BaseEstimator):
    """One grid point of a fitted path on one validation set, as a fitted scikit-learn estimator
    for scorers: ``predict``, ``predict_proba`` and ``decision_function`` return the engine's
    outputs for those rows (the ``X`` a scorer passes is only checked for its length)."""

    def __init__(self, classes=None, predicted=None, proba=None, decision=None):
        self.classes = classes
        self.predicted = predicted
        self.proba = proba
        self.decision = decision

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.estimator_type = "regressor" if self.classes is None else "classifier"
        return tags

    @property
    def classes_(self):
        if self.classes is None:
            raise AttributeError("a regression path point has no classes_")
        return self.classes

    def _rows(self, X):
        if len(X) != len(self.predicted):
            raise ValueError(f"the cached outputs are for {len(self.predicted)} rows, X has {len(X)}")

    def predict(self, X):
        self._rows(X)
        return self.predicted if self.classes is None else self.classes[self.predicted]

    def score(self, X, y):
        """The default score of scikit-learn's classifiers (accuracy) and regressors (R²)."""
        from sklearn.metrics import accuracy_score, r2_score

        return r2_score(y, self.predict(X)) if self.classes is None else accuracy_score(y, self.predict(X))

    @available_if(lambda self: self.proba is not None)
    def predict_proba(self, X):
        self._rows(X)
        return self.proba

    @available_if(lambda self: self.decision is not None)
    def decision_function(self, X):
        self._rows(X)
        return self.decision


def is_accuracy(scorer, estimator):
    """True when ``scorer`` computes plain accuracy on ``estimator``'s predictions: the default
    ``score`` of one of scikit-learn's own classifiers (mean accuracy, ``ClassifierMixin.score``,
    alone or at the end of a Pipeline), or ``scoring="accuracy"``. Such scores are the fraction of equal labels, which
    :func:`accuracy` computes without the scorer's per-call input checks, bit for bit equal."""
    from sklearn.base import ClassifierMixin
    from sklearn.metrics import accuracy_score
    from sklearn.metrics._scorer import _PassthroughScorer, _Scorer
    from sklearn.pipeline import Pipeline

    if isinstance(scorer, _PassthroughScorer):
        final = estimator.steps[-1][1] if isinstance(estimator, Pipeline) else estimator
        own = type(final).__module__.startswith("sklearn.") or type(final).score is ClassifierMixin.score
        return is_classifier(final) and own
    return (
        isinstance(scorer, _Scorer)
        and getattr(scorer, "_score_func", None) is accuracy_score
        and not getattr(scorer, "_kwargs", True)
        and getattr(scorer, "_sign", None) == 1
        and getattr(scorer, "_response_method", None) == "predict"
    )


def accuracy(predicted, y):
    """``accuracy_score(y, predicted)``: the count of equal labels over the row count (exact)."""
    return float(np.mean(np.asarray(predicted) == np.asarray(y)))


def scorer_for(est):
    """The scorer of ``est.scoring`` (string, callable, or a list / dict of one), or ``None`` for
    the library's loss. An unknown name raises scikit-learn's ``ValueError``."""
    if est.scoring is None:
        return None
    return check_scoring(est, scoring=est.scoring)


def index_pairs(pairs):
    """A splitter's (train, validation) index pairs as the int64 arrays the compiled module takes;
    an empty iterable is refused."""
    folds = [(np.asarray(t, dtype=np.int64), np.asarray(v, dtype=np.int64)) for t, v in pairs]
    if not folds:
        raise ValueError("the splitter gave no split")
    return folds


def folds(est, X, y, groups):
    """The caller's splits as (train, validation) int64 arrays: ``est.cv`` (a splitter, an int, or
    an iterable of (train, test)) on ``X``, ``y`` and ``groups``; ``None`` without ``cv``."""
    if est.cv is None:
        return None
    if est.plan is not None:
        raise ValueError(f"cv and plan both give the splits: pass one (got cv={est.cv!r}, plan={est.plan!r})")
    splitter = check_cv(est.cv, y, classifier=is_classifier(est))
    return index_pairs(splitter.split(X, y, groups))


def keep_rows(splits, keep):
    """``splits`` of all rows restated on the rows ``keep`` (a boolean mask): dropped rows leave
    their sets, the others are renumbered."""
    if splits is None:
        return None
    new = np.cumsum(keep) - 1
    out = []
    for j, (train, validation) in enumerate(splits):
        train, validation = new[train[keep[train]]], new[validation[keep[validation]]]
        if len(train) == 0 or len(validation) == 0:
            raise ValueError(f"cv split {j}: no training or validation row is left once the rows with missing values are dropped")
        out.append((train, validation))
    return out


def path_scores(scorer, outputs, y, splits, classes, what):
    """The score of every grid point on every split, ``[split][grid point]``: ``outputs`` are
    ``_native.path_outputs``'s per split, ``y`` the target (labels for classification),
    ``classes`` the class labels in code order (``None`` for regression); ``what`` names the
    scorer and the model in an error."""
    scores = []
    for (predicted, proba, decision), (_, validation) in zip(outputs, splits):
        y_val = y[validation]
        placeholder = np.empty((len(validation), 0))
        row = []
        for m in range(predicted.shape[0]):
            point = PathPoint(classes, predicted[m], None if proba is None else proba[m], None if decision is None else decision[m])
            try:
                row.append(float(scorer(point, placeholder, y_val)))
            except AttributeError as e:
                raise ValueError(f"{what} does not give what the scorer needs ({e})") from e
        scores.append(row)
    return scores


def select_scored(est, scorer, X, y, spec, data, run):
    """``_native.select`` with the risks (−score) of ``scorer`` on the path outputs of the
    splits the method evaluates (the library's procedure names them: the first one for hold-out,
    a hold-out inside each training set for subagging, drawn as ``select`` draws them);
    ``spec``, ``data`` and ``run`` what ``_native.select`` takes."""
    splits = index_pairs(data["splits"])
    evaluated, _ = _native.procedure_splits(est.method, X.shape[0], splits, seed=spec["seed"], inner_tau=spec["inner_fraction"])
    class_names = data["class_names"]
    grid, outputs = _native.path_outputs(X, y, json.dumps(spec), {**data, "splits": evaluated}, run=run)
    classes = None if class_names is None else est.classes_
    labels = y if classes is None else classes[np.asarray(y, dtype=np.intp)]
    scores = path_scores(scorer, outputs, labels, evaluated, classes, f"scoring={est.scoring!r}: family {est.family!r}")
    risks = [[-s for s in row] for row in scores]
    return _native.select(X, y, json.dumps(spec), {**data, "splits": splits, "risks": risks}, {**run, "job": False})
