"""Path dispatch: scikit-learn estimators whose grid axis is one of agghoo's paths.

A rule names the scikit-learn estimator, the parameter that becomes the path, the agghoo family,
how a value translates to the family's grid on a training set of ``n`` rows, and the settings
under which the family fits the same model (anything else falls back to generic refits, never to a
different problem):

=======================  ===========  =========  ====================  ============================
estimator                path axis    family     grid value            other settings required
=======================  ===========  =========  ====================  ============================
KNeighborsClassifier     n_neighbors  knn        k                     weights uniform, Euclidean
KNeighborsRegressor      n_neighbors  knn        k                     weights uniform, Euclidean
Ridge                    alpha        ridge      λ = alpha             fit_intercept, not positive
LogisticRegression       C            logistic   λ = 1 / (n C)         L2, intercept, no class_weight
SVC                      C            svc        C (``grid=C``)        rbf, binary, no class_weight
SVR                      C            svr        C (``grid=C``)        rbf
=======================  ===========  =========  ====================  ============================

k-NN classifiers predict ``argmax`` of the vote fractions (scikit-learn's tie rule: the first
class), not agghoo's nearest-member rule, so the scores are scikit-learn's.
"""

from dataclasses import dataclass, field

import numpy as np
from sklearn.base import clone, is_classifier
from sklearn.pipeline import Pipeline
from sklearn.utils import _safe_indexing

from . import _native, _paths
from ._scoring import PathPoint, accuracy, is_accuracy
from ._validation import threads_of

__all__ = ["plan", "path_scores"]


def _euclidean(p):
    return p["metric"] == "euclidean" or (p["metric"] == "minkowski" and p["p"] == 2)


def _knn(p):
    if p["weights"] != "uniform":
        return f"weights={p['weights']!r} (the path family votes uniformly)"
    if not _euclidean(p) or p["metric_params"] is not None:
        return f"metric={p['metric']!r}, p={p['p']!r} (the path family is Euclidean)"
    return None


def _ridge(p):
    if not p["fit_intercept"] or p["positive"]:
        return "fit_intercept=False or positive=True"
    return None


def _logistic(p):
    if p["class_weight"] is not None or not p["fit_intercept"] or p["solver"] == "liblinear":
        return "class_weight, no intercept, or liblinear (which penalises the intercept)"
    if p.get("penalty") not in ("deprecated", "l2", None) or p.get("l1_ratio") not in (0, 0.0, None):
        return f"penalty={p.get('penalty')!r}, l1_ratio={p.get('l1_ratio')!r} (the path family is L2 here)"
    return None


def _svm(p):
    if p["kernel"] != "rbf":
        return f"kernel={p['kernel']!r} (the path family is Gaussian)"
    if p.get("class_weight") is not None or p.get("probability") is True:
        return "class_weight or probability=True"
    return None


def _gamma(p):
    return [("gamma", str(p["gamma"]))]


@dataclass(frozen=True)
class Rule:
    """How one scikit-learn estimator becomes a path family."""

    axis: str
    family: str
    refuse: object  # get_params() → reason it cannot, or None
    params: object = lambda p: []  # get_params() → the family's KEY=VALUE pairs
    value: object = lambda v, n: float(v)  # (value, training rows) → grid value
    argmax: bool = False  # predict = classes[argmax(proba)]
    binary: bool = False  # binary classification only


RULES = {
    "KNeighborsClassifier": Rule("n_neighbors", "knn", _knn, value=lambda k, n: int(k), argmax=True),
    "KNeighborsRegressor": Rule("n_neighbors", "knn", _knn, value=lambda k, n: int(k)),
    "Ridge": Rule("alpha", "ridge", _ridge),
    "LogisticRegression": Rule(
        "C", "logistic", _logistic, params=lambda p: [("tol", repr(min(float(p["tol"]), 1e-6)))], value=lambda c, n: 1.0 / (n * float(c))
    ),
    "SVC": Rule("C", "svc", _svm, params=lambda p: [("grid", "C"), ("tol", repr(float(p["tol"]))), *_gamma(p)], binary=True),
    "SVR": Rule("C", "svr", _svm, params=lambda p: [("grid", "C"), ("tol", repr(float(p["tol"]))), ("epsilon", repr(float(p["epsilon"]))), *_gamma(p)]),
}


@dataclass
class Group:
    """Candidates that differ only along a path axis: evaluated from one path fit per split."""

    estimator: object  # the estimator with the group's other parameters set
    rule: Rule
    indices: list = field(default_factory=list)
    values: list = field(default_factory=list)


@dataclass
class Plan:
    groups: list
    notes: list


def _final(estimator):
    """The last step and its parameter prefix (``""`` for an estimator alone)."""
    if isinstance(estimator, Pipeline):
        name, last = estimator.steps[-1]
        return last, f"{name}__"
    return estimator, ""


def plan(estimator, candidates, X, y, splits):
    """The candidates that a path family evaluates, in groups, and a note per decision."""
    last, prefix = _final(estimator)
    name = type(last).__name__
    rule = RULES.get(name) or _staged_rule(last)
    if rule is None:
        return Plan([], [f"generic refits: no path family and no staged path for {name}"])
    if rule.binary and (y is None or len(np.unique(y)) != 2):
        return Plan([], [f"generic refits: the {rule.family} path serves binary problems only"])
    if y is not None and is_classifier(estimator) and rule.family != STAGED:
        classes = np.unique(y)
        if any(len(np.unique(y[train])) != len(classes) for train, _ in splits):
            return Plan([], ["generic refits: a training set lacks a class"])
    axis = prefix + rule.axis
    groups, notes = {}, []
    for i, c in enumerate(candidates):
        if axis not in c:
            continue
        others = {k: v for k, v in c.items() if k != axis}
        key = repr(sorted(others.items(), key=lambda kv: kv[0]))
        if key not in groups:
            est = clone(estimator).set_params(**others)
            why = rule.refuse(_final(est)[0].get_params())
            groups[key] = (Group(est, rule), why)
        group, why = groups[key]
        if why is None and _valid(_final(group.estimator)[0], rule, c[axis], [len(tr) for tr, _ in splits]):
            group.indices.append(i)
            group.values.append(c[axis])
    kept = []
    for group, why in groups.values():
        if why is not None:
            notes.append(f"generic refits for {name} with {why}")
        elif group.indices:
            kept.append(group)
            how = _paths.describe(last) if rule.family in (STAGED, _paths.LARS) else f"path family {rule.family!r}"
            notes.append(f"{name} {rule.axis}: {how}, {len(group.indices)} candidates from one fit per split")
    if not kept:
        notes.append(f"generic refits: the grid has no {axis!r} axis the {rule.family} path can serve")
    return Plan(kept, notes)


def _valid(final, rule, value, sizes):
    """True when scikit-learn accepts ``value`` (its own parameter check) and fits it on every
    training set (of ``sizes`` rows) as the path does; other values are left to generic refits,
    which fail as scikit-learn does."""
    candidate = clone(final).set_params(**{rule.axis: value})
    try:
        if hasattr(candidate, "_parameter_constraints"):
            candidate._validate_params()
    except (TypeError, ValueError):
        return False
    if rule.family == STAGED:
        return isinstance(value, (int, np.integer)) and value >= 1 and rule.refuse({"n_train": max(sizes), **final.get_params()}) is None
    return rule.family != "knn" or int(value) <= min(sizes)


def path_scores(group, X, y, splits, scorer, n_jobs):
    """Scores ``[split][candidate of the group]`` from one path fit per split (the pipeline's other
    steps fitted on the split's training rows)."""
    rule = group.rule
    if rule.family == STAGED:
        from joblib import Parallel, delayed

        rows = Parallel(n_jobs=n_jobs)(delayed(_staged_split)(group, X, y, train, test, scorer) for train, test in splits)
        return np.array(rows)
    steps = group.estimator.steps[:-1] if isinstance(group.estimator, Pipeline) else []
    params = rule.params(_final(group.estimator)[0].get_params())
    classes = np.unique(y) if is_classifier(group.estimator) else None
    threads = threads_of(n_jobs)  # joblib's meaning: None is 1 (or parallel_config's), -1 every core
    plain_accuracy = is_accuracy(scorer, group.estimator)
    scores = []
    for train, test in splits:
        X_train, X_test = _safe_indexing(X, train), _safe_indexing(X, test)
        if steps:
            pre = Pipeline([(n, clone(s)) for n, s in steps])
            X_train, X_test = pre.fit_transform(X_train, y[train]), pre.transform(X_test)
        X_split = np.ascontiguousarray(np.vstack([np.asarray(X_train, dtype=float), np.asarray(X_test, dtype=float)]))
        n_train = len(train)
        grid = [rule.value(v, n_train) for v in group.values]
        if classes is None:
            target, names = np.asarray(y, dtype=float), None
        else:
            target, names = np.searchsorted(classes, y).astype(float), [str(c) for c in classes]
        y_split = np.ascontiguousarray(np.concatenate([target[train], target[test]]))
        local = (np.arange(n_train, dtype=np.int64), np.arange(n_train, len(y_split), dtype=np.int64))
        text, ((predicted, proba, decision),) = _native.path_outputs(
            X_split,
            y_split,
            [f"x{j}" for j in range(X_split.shape[1])],
            names,
            rule.family,
            ",".join(repr(v) for v in sorted(set(grid))),
            params,
            [local],
            threads=threads,
        )
        index = _grid_index(text, grid)
        placeholder = np.empty((len(test), 0))
        row = []
        for m in index:
            p = None if proba is None else proba[m]
            labels = np.argmax(p, axis=1) if rule.argmax and p is not None else predicted[m]
            if plain_accuracy:
                row.append(accuracy(classes[labels], y[test]))
                continue
            point = PathPoint(classes, labels, p, None if decision is None else decision[m])
            row.append(float(scorer(point, placeholder, y[test])))
        scores.append(row)
    return np.array(scores)


def _grid_index(text, grid):
    """The family's grid index of each requested value (the family may store its grid sorted)."""
    import json

    values = np.asarray(json.loads(text)["grid"], dtype=float)
    index = []
    for v in grid:
        hits = np.flatnonzero(np.isclose(values, v, rtol=1e-12, atol=0))
        if len(hits) == 0:
            raise ValueError(f"internal: grid value {v!r} is not on the family's grid {values.tolist()}")
        index.append(int(hits[0]))
    return index


# The staged path protocol: one fit at the largest value of the axis, every smaller value read
# from the estimator's staged outputs (stage m = the model with m rounds).
STAGED = "staged"


def _staged_rule(final):
    """The round rule of ``final`` (:mod:`agghoo._paths`): scikit-learn's boosting estimators and
    forests, LightGBM's and XGBoost's, or an estimator that declares ``__agghoo_path__`` (the name
    of its integer round parameter) and has ``staged_predict``."""
    axis = _paths.axis_of(final)
    if axis is None:
        return None
    kind = _paths.kind_of(final)
    return Rule(axis, _paths.LARS if kind == _paths.LARS else STAGED, lambda p: _paths.refuse(kind, p))


def _staged_split(group, X, y, train, test, scorer):
    """One split: the estimator fitted once at the group's largest value, each value scored from
    the staged outputs of the first that many rounds."""
    final, outputs = _paths.outputs(group.estimator, group.rule.axis, sorted(set(group.values)), X, y, train, test)
    classes = getattr(final, "classes_", None) if is_classifier(final) else None
    placeholder = np.empty((len(test), 0))
    row = []
    for v in group.values:
        predicted = outputs["predict"][v]
        if classes is not None:
            predicted = np.searchsorted(classes, predicted)
        decision = outputs.get("decision_function", {}).get(v)
        if decision is not None and decision.ndim == 2 and decision.shape[1] == 1:
            decision = decision.ravel()
        point = PathPoint(classes, predicted, outputs.get("predict_proba", {}).get(v), decision)
        row.append(float(scorer(point, placeholder, y[test])))
    return row
