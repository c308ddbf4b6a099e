"""Parameter constraints in scikit-learn's own vocabulary (``sklearn.utils._param_validation``): a bad
keyword raises ``InvalidParameterError`` (a ``ValueError`` and a ``TypeError``) naming the parameter,
what it accepts and what it got, before any work starts. Names (families, methods, plans, losses) are
checked by the library itself, which lists the accepted ones."""

from __future__ import annotations

from numbers import Integral, Real
from collections.abc import Sequence
from typing import Any, Union

import numpy as np
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions, validate_params

from . import _native

__all__ = [
    "ESTIMATOR_CONSTRAINTS",
    "RandomStateLike",
    "SEARCH_CONSTRAINTS",
    "SEED",
    "THREADS",
    "seed_of",
    "threads_of",
    "validate",
    "validate_once",
]

#: What ``random_state`` accepts.
RandomStateLike = Union[int, np.random.RandomState, np.random.Generator, None]

# Seeds: the library's 64-bit unsigned integers, or numpy's generators (a seed is drawn from them),
# or None (a seed drawn from numpy's global generator, fresh entropy unless numpy.random.seed was called).
SEED = [Interval(Integral, 0, 2**64 - 1, closed="both"), np.random.RandomState, np.random.Generator, None]
# Threads, joblib's n_jobs: None is 1 (or the n_jobs of an enclosing joblib.parallel_config), -1 every
# core, -2 every core but one, ...; 0 is refused.
THREADS = [Interval(Integral, 1, None, closed="left"), Interval(Integral, None, -1, closed="right"), None]


#: The library's names by parameter (``method``, ``missing``, ``task``, ...).
NAMES = dict(_native.names())


def check_name(parameter: str, value: Any, allowed: Sequence[str] | None = None, why: str = "") -> Any:
    """``value`` when it is one of ``allowed`` (by default the library's names of ``parameter``),
    else a ``ValueError`` naming the parameter, the accepted names (and ``why``) and the value."""
    allowed = NAMES[parameter] if allowed is None else list(allowed)
    if value not in allowed:
        listed = " or ".join([", ".join(repr(a) for a in allowed[:-1]), repr(allowed[-1])] if len(allowed) > 1 else [repr(allowed[0])])
        raise ValueError(f"{parameter} must be {listed}{why}, got {value!r}")
    return value


def seed_of(random_state: Any) -> int:
    """The library's seed for scikit-learn's ``random_state``: an int as it is (same seed, same result
    as the CLI's ``--seed``); a ``numpy.random.RandomState`` or ``Generator``: a seed drawn from it;
    ``None``: a seed drawn from numpy's global generator (fresh entropy unless ``numpy.random.seed``
    was called), as scikit-learn's ``check_random_state(None)``.

    Examples
    --------
    >>> import numpy as np
    >>> from agghoo._validation import seed_of
    >>> seed_of(7)
    7
    >>> seed_of(np.random.RandomState(0)) == seed_of(np.random.RandomState(0))
    True
    """
    if random_state is None or isinstance(random_state, np.random.RandomState):
        rng = np.random.mtrand._rand if random_state is None else random_state
        return int(rng.randint(0, np.iinfo(np.int64).max, dtype=np.int64))
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, np.iinfo(np.int64).max))
    return int(random_state)


def threads_of(n_jobs: int | None) -> int:
    """The library's thread count for joblib's ``n_jobs`` (``joblib.effective_n_jobs``): ``None`` is 1
    unless an enclosing ``joblib.parallel_config(n_jobs=...)`` says otherwise, ``-1`` every core,
    ``-2`` every core but one; ``0`` is refused.

    Examples
    --------
    >>> from agghoo._validation import threads_of
    >>> threads_of(None), threads_of(3)
    (1, 3)
    """
    from joblib import effective_n_jobs

    if n_jobs == 0:
        raise ValueError("n_jobs == 0 has no meaning: give a positive thread count, -1 for every core, or None")
    return max(1, int(effective_n_jobs(n_jobs)))
FRACTION = Interval(Real, 0, 1, closed="neither")
NAME = [str]
OPTIONAL_NAME = [str, None]
GRID = [str, dict, "array-like", None]

# What the shared data-preparation keywords accept (estimate_risk, compare, treecv, select_features).
COMMON = {
    "params": [dict, None],
    "stratify": ["boolean", None],
    "loss": [str, list, tuple, None],  # one loss, or several (estimate_risk)
    "standardize": ["boolean"],
    "missing": NAME,
    "task": NAME,
    "random_state": SEED,
    "n_jobs": THREADS,
    "categorical": ["array-like", None],
    "missing_category": NAME,
    "na_values": [list, tuple, None],  # strings, checked by _categorical.check_na_values
    "verbose": ["verbose"],  # 0: silent; > 0: a line per finished split / unit on stderr
}

ESTIMATOR_CONSTRAINTS = {
    **{k: COMMON[k] for k in ("params", "stratify", "loss", "standardize", "missing", "random_state", "n_jobs",
                              "categorical", "missing_category", "na_values", "verbose")},
    "family": NAME,
    "grid": GRID,
    "method": NAME,
    "plan": OPTIONAL_NAME,
    "n_splits": [Interval(Integral, 1, None, closed="left")],
    "tau": [FRACTION],
    "tie": [StrOptions(set(NAMES["tie"]))],
    "aggregation": OPTIONAL_NAME,
    "one_se": ["boolean"],
    "inner_tau": [FRACTION, None],
    "estimator": [HasMethods(["fit"]), None],
    "param_grid": [dict, list, None],
    "cv": ["cv_object"],
    "scoring": [str, callable, None],
    "class_weight": [StrOptions({"balanced"}), dict, None],
}

# AgghooSearchCV: GridSearchCV's / RandomizedSearchCV's keywords plus agghoo's method.
SEARCH_CONSTRAINTS = {
    "estimator": [HasMethods(["fit"])],
    "param_grid": [dict, list, None],
    "param_distributions": [dict, list, None],
    "n_iter": [Interval(Integral, 1, None, closed="left")],
    "scoring": [str, callable, list, tuple, dict, None],
    "cv": ["cv_object"],
    "method": NAME,
    "tau": [FRACTION],
    "aggregation": OPTIONAL_NAME,
    "n_jobs": THREADS,
    "refit": ["boolean"],
    "random_state": ["random_state"],
    "verbose": ["verbose"],
    "error_score": [StrOptions({"raise"}), Real],
    "return_train_score": ["boolean"],
}


def validate(**constraints):
    """``validate_params`` for a public function: ``COMMON``'s entries for the keywords it shares, plus
    its own."""

    def decorate(function):
        import inspect

        names = inspect.signature(function).parameters
        table = {k: v for k, v in COMMON.items() if k in names}
        table.update(constraints)
        return validate_params(table, prefer_skip_nested_validation=True)(function)

    return decorate


# Parameter values that have passed an estimator class's ``_parameter_constraints``, as
# (class, name, type, value): scikit-learn checks each parameter on its own, so a value that
# passed once passes again. Only immutable scalars are remembered (compared by type and value);
# cleared when it grows past _PASSED_MAX (a loop over seeds, say).
_PASSED: set = set()
_PASSED_MAX = 4096
_SCALARS = frozenset({str, int, float, bool, type(None)})
# Per class: the parameter names, and for each the types any instance of which satisfies one of
# its constraints (a type, or "array-like" for arrays, lists and tuples).
_SHAPES: dict = {}


def _shape(cls):
    shape = _SHAPES.get(cls)
    if shape is None:
        constraints = cls._parameter_constraints
        shape = []
        for name in cls._get_param_names():
            declared = constraints.get(name, "no_validation")
            if declared == "no_validation":
                accepted = [object]
            else:
                accepted = [c for c in declared if isinstance(c, type)]
                if "array-like" in declared:
                    accepted += [np.ndarray, list, tuple]
            shape.append((name, tuple(accepted)))
        shape = _SHAPES[cls] = tuple(shape)
    return shape


def validate_once(estimator, validate):
    """``validate()`` (scikit-learn's check of ``estimator``'s parameters against its class's
    ``_parameter_constraints``), skipped when every parameter is either an immutable scalar (str,
    int, float, bool, None) whose value has passed before for this class and name, or an instance
    of a type one of its constraints accepts whatever the value (a ``dict`` for ``params``, an
    array for ``grid``). A fit repeated with the same parameters, or a ``clone`` of a fitted
    estimator, pays the check once; a value never seen, or an object checked by its methods (an
    ``estimator=``, a splitter), takes the full check, which raises scikit-learn's
    ``InvalidParameterError``.

    Examples
    --------
    >>> from sklearn.base import BaseEstimator
    >>> from agghoo import AgghooRegressor
    >>> from agghoo._validation import validate_once
    >>> est, checks = AgghooRegressor(family="ridge", tau=0.6180339887), []
    >>> def check():
    ...     checks.append(1)
    ...     BaseEstimator._validate_params(est)
    >>> validate_once(est, check)
    >>> validate_once(est, check)
    >>> len(checks)
    1
    """
    cls = type(estimator)
    keys = []
    for name, accepted in _shape(cls):
        value = getattr(estimator, name)
        if accepted and isinstance(value, accepted):
            continue
        kind = type(value)
        if kind not in _SCALARS:
            keys = None
            break
        keys.append((cls, name, kind, value))
    if keys is not None and _PASSED.issuperset(keys):
        return
    validate()
    if keys:
        if len(_PASSED) > _PASSED_MAX:
            _PASSED.clear()
        _PASSED.update(keys)
