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
RidgeClassifier          alpha        ridge      λ = alpha, ±1 target  fit_intercept, not positive,
                                                 per class             no class_weight
KernelRidge              alpha        kernel-    λ = alpha             linear, rbf or polynomial
                                      ridge                            kernel, no kernel_params
Lasso                    alpha        lasso      λ = alpha             fit_intercept, not positive
ElasticNet               alpha        enet       λ = alpha, same ρ     fit_intercept, not positive
LogisticRegression       C            logistic   λ = 1 / (n C)         L2, intercept, no class_weight
SVC                      C            svc        C (``grid=C``)        rbf, binary, no class_weight
SVR                      C            svr        C (``grid=C``)        rbf
DecisionTreeClassifier   ccp_alpha    (pruned)   α = ccp_alpha         —
DecisionTreeRegressor    ccp_alpha    (pruned)   α = ccp_alpha         —
=======================  ===========  =========  ====================  ============================

k-NN classifiers predict ``argmax`` of the vote fractions (scikit-learn's tie rule: the first
class), not agghoo's nearest-member rule, so the scores are scikit-learn's. ``RidgeClassifier``
is, as in scikit-learn, a ridge regression per class on ±1 targets (one for two classes), its
label the sign (two classes) or the ``argmax`` of the decisions.

Decision trees are pruned along ``ccp_alpha`` from scikit-learn's own tree: one tree grown per
split (growth does not depend on ``ccp_alpha``) and pruned at each α by scikit-learn's pruning, so
the trees are exactly those ``GridSearchCV`` fits. agghoo's ``cart`` family is not used: where two
features split a node's rows equally well, scikit-learn keeps the first in a random feature order
(``random_state``), ``cart`` the lowest index, so a validation row between the two thresholds can
land in another leaf. Random forests (``max_features`` ↔ ``mtry``) stay on generic refits: agghoo's
``forest`` draws its own bootstraps and feature subsets, not scikit-learn's, so its scores are not
``GridSearchCV``'s (and a forest has no path along ``mtry``: every value is a new forest).
"""

import json
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


def _ridge_classifier(p):
    if p["class_weight"] is not None:
        return "class_weight (the path family weighs rows equally)"
    return _ridge(p)


def _lasso(p):
    if not p["fit_intercept"] or p["positive"]:
        return "fit_intercept=False or positive=True"
    if not isinstance(p["precompute"], (bool, str)):
        return "a precomputed Gram matrix"
    return None


_KERNELS = {"linear": "linear", "rbf": "rbf", "poly": "polynomial", "polynomial": "polynomial"}


def _kernel_ridge(p):
    kernel = p["kernel"]
    if not isinstance(kernel, str) or kernel not in _KERNELS:
        return f"kernel={kernel!r} (the path family has linear, rbf and polynomial kernels)"
    if p["kernel_params"] is not None:
        return "kernel_params"
    if kernel != "linear" and p["gamma"] is not None and not float(p["gamma"]) > 0:
        return f"gamma={p['gamma']!r} (the path family needs gamma > 0)"
    if _KERNELS[kernel] == "polynomial":
        degree, coef0 = p["degree"], p["coef0"]
        if float(degree) != int(degree) or int(degree) < 1 or not float(coef0) >= 0:
            return f"degree={degree!r}, coef0={coef0!r} (the path family needs an integer degree ≥ 1 and coef0 ≥ 0)"
    return None


def _kernel_ridge_params(p):
    kernel = _KERNELS[p["kernel"]]
    pairs = [("kernel", kernel)]
    if kernel != "linear":
        # scikit-learn's gamma=None is 1 / n_features for both kernels: agghoo's `auto`.
        pairs.append(("gamma", "auto" if p["gamma"] is None else repr(float(p["gamma"]))))
    if kernel == "polynomial":
        pairs += [("coef0", repr(float(p["coef0"]))), ("degree", str(int(p["degree"])))]
    return pairs


def _lasso_params(l1_ratio):
    # agghoo's duality-gap tolerance is relative, as scikit-learn's: at least as tight as theirs.
    return lambda p: [("l1_ratio", repr(float(l1_ratio(p)))), ("tol", repr(min(float(p["tol"]), 1e-7)))]


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
    onevsrest: bool = False  # a regression family fitted per class on ±1 targets (RidgeClassifier)


RULES = {
    "KNeighborsClassifier": Rule("n_neighbors", "knn", _knn, value=lambda k, n: int(k), argmax=True),
    "KNeighborsRegressor": Rule("n_neighbors", "knn", _knn, value=lambda k, n: int(k)),
    "Ridge": Rule("alpha", "ridge", _ridge),
    "RidgeClassifier": Rule("alpha", "ridge", _ridge_classifier, onevsrest=True),
    "KernelRidge": Rule("alpha", "kernel-ridge", _kernel_ridge, params=_kernel_ridge_params),
    "Lasso": Rule("alpha", "lasso", _lasso, params=_lasso_params(lambda p: 1.0)),
    "ElasticNet": Rule("alpha", "enet", _lasso, params=_lasso_params(lambda p: p["l1_ratio"])),
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
    rule = _rule(last)
    if rule is None:
        why = NOT_EXACT.get(name) if _is_sklearn(last) else None
        return Plan([], [f"generic refits for {name}: {why}" if why else f"generic refits: no path family and no staged path for {name}"])
    if rule.family not in (STAGED, PRUNED) and y is not None and np.ndim(y) != 1:
        return Plan([], [f"generic refits: the {rule.family} path fits one target column, y has shape {np.shape(y)}"])
    if rule.binary and (y is None or len(np.unique(y)) != 2):
        return Plan([], [f"generic refits: the {rule.family} path serves binary problems only"])
    if y is not None and is_classifier(estimator) and rule.family not in (STAGED, PRUNED):
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
            if rule.family in (STAGED, _paths.LARS):
                how = _paths.describe(last)
            else:
                how = {PRUNED: "one tree per split, pruned at each ccp_alpha"}.get(rule.family, f"path family {rule.family!r}")
            notes.append(f"{name} {rule.axis}: {how}, {len(group.indices)} candidates from one fit per split")
    if not kept:
        notes.append(f"generic refits: the grid has no {axis!r} axis the {rule.family} path can serve")
        if _is_sklearn(last) and name in NOT_EXACT:  # a forest searched along max_features only
            notes.append(f"generic refits for {name}: {NOT_EXACT[name]}")
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
    if rule.family == PRUNED:
        return True
    if rule.family == "knn":
        return int(value) <= min(sizes)
    return np.ndim(value) == 0 and float(value) > 0  # the families' λ and C grids are logarithmic


def _is_sklearn(final):
    return type(final).__module__.startswith("sklearn.")


def _rule(final):
    """The rule of ``final``: its path family (scikit-learn's own classes, not look-alikes of the
    same name), its pruning path, or its staged path."""
    name = type(final).__name__
    if _is_sklearn(final) and name in RULES:
        return RULES[name]
    if _is_sklearn(final) and name in PRUNED_TREES:
        return Rule("ccp_alpha", PRUNED, lambda p: None if hasattr(final, "_prune_tree") else "no scikit-learn pruning step")
    return _staged_rule(final)


# Estimators with an agghoo family that does not give scikit-learn's scores: why they are refitted.
NOT_EXACT = {
    name: "agghoo's forest draws its own bootstraps and feature subsets (not scikit-learn's random numbers), so its "
    "scores along max_features would not be GridSearchCV's"
    for name in ("RandomForestClassifier", "RandomForestRegressor")
}


def path_scores(group, X, y, splits, scorer, n_jobs):
    """Scores ``[split][candidate of the group]`` from one path fit per split (the pipeline's other
    steps fitted on the split's training rows)."""
    rule = group.rule
    if rule.family in (STAGED, PRUNED):
        from joblib import Parallel, delayed

        one = _staged_split if rule.family == STAGED else _pruned_split
        rows = Parallel(n_jobs=n_jobs)(delayed(one)(group, X, y, train, test, scorer) for train, test in splits)
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
        local = (np.arange(n_train, dtype=np.int64), np.arange(n_train, len(X_split), dtype=np.int64))

        def outputs(target, names):
            y_split = np.ascontiguousarray(np.concatenate([target[train], target[test]]))
            grid_text = ",".join(repr(v) for v in sorted(set(grid)))
            spec = {"family": json.loads(_native.family_spec_json(rule.family, grid_text, params))}
            data = {"feature_names": [f"x{j}" for j in range(X_split.shape[1])], "class_names": names, "splits": [local]}
            run = {"threads": threads, "job": False, "verbose": 0}
            text, (out,) = _native.path_outputs(X_split, y_split, json.dumps(spec), data, run=run)
            return _grid_index(text, grid), out

        if classes is None:
            index, (predicted, proba, decision) = outputs(np.asarray(y, dtype=float), None)
        elif rule.onevsrest:
            index, (predicted, proba, decision) = _one_vs_rest(outputs, y, classes)
        else:
            index, (predicted, proba, decision) = outputs(np.searchsorted(classes, y).astype(float), [str(c) for c in classes])
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


def _one_vs_rest(outputs, y, classes):
    """scikit-learn's ``RidgeClassifier`` from a regression family: one path per class on ±1
    targets (the second class alone for two classes); the decisions are the regressions'
    predictions, the label their sign (two classes) or ``argmax`` (the first of ties)."""
    columns = classes[1:] if len(classes) == 2 else classes
    index, decisions = None, []
    for c in columns:
        index, (values, _, _) = outputs(np.where(y == c, 1.0, -1.0), None)
        decisions.append(values)
    decision = np.stack(decisions, axis=-1)  # [grid][row][column]
    if len(classes) == 2:
        decision = decision[..., 0]
        labels = (decision > 0).astype(np.int64)
    else:
        labels = np.argmax(decision, axis=-1)
    return index, (labels, None, decision)


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


def _fit_once(group, value, X, y, train, test):
    """The group's estimator fitted on the training rows with its path axis at ``value``: its last
    step, and the validation rows through the pipeline's other steps."""
    est = clone(group.estimator)
    est.set_params(**{_final(est)[1] + group.rule.axis: value}).fit(_safe_indexing(X, train), y[train])
    X_test = _safe_indexing(X, test)
    if isinstance(est, Pipeline):
        X_test = est[:-1].transform(X_test)
    return _final(est)[0], X_test


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


# Decision trees along ``ccp_alpha``: scikit-learn grows the same tree whatever ``ccp_alpha`` is
# and prunes it last (``_prune_tree``); one tree per split, pruned at each α by that same step,
# is every candidate's tree exactly.
PRUNED = "pruned"
PRUNED_TREES = ("DecisionTreeClassifier", "DecisionTreeRegressor")


def _pruned_split(group, X, y, train, test, scorer):
    """One split: the tree grown once (``ccp_alpha=0``), each candidate its copy pruned at its α by
    scikit-learn's own pruning, scored as ``_fit_and_score`` scores the fitted estimator."""
    import copy

    grown, X_test = _fit_once(group, 0.0, X, y, train, test)
    scores = {}
    for alpha in sorted(set(group.values)):
        pruned = copy.copy(grown)
        pruned.ccp_alpha = alpha
        pruned._prune_tree()  # from grown.tree_; a new tree_ on the copy only
        scores[alpha] = float(scorer(pruned, X_test, y[test]))
    return [scores[a] for a in group.values]
