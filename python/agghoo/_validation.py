"""Parameter constraints in scikit-learn's own vocabulary (``sklearn.utils._param_validation``): a bad
keyword raises ``InvalidParameterError`` (a ``ValueError`` and a ``TypeError``) naming the parameter,
what it accepts and what it got, before any work starts. Names (families, methods, plans, losses) are
checked by the library itself, which lists the accepted ones."""

from numbers import Integral, Real

from sklearn.utils._param_validation import HasMethods, Interval, StrOptions, validate_params

__all__ = ["ESTIMATOR_CONSTRAINTS", "SEARCH_CONSTRAINTS", "SEED", "THREADS", "validate"]

# Seeds are the library's 64-bit unsigned integers.
SEED = [Interval(Integral, 0, 2**64 - 1, closed="both"), None]
# Threads, scikit-learn's n_jobs: None or ≤ 0 mean every core.
THREADS = [Integral, None]
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
    "tie": [StrOptions({"first", "last"})],
    "aggregation": OPTIONAL_NAME,
    "one_se": ["boolean"],
    "inner_tau": [FRACTION, None],
    "estimator": [HasMethods(["fit"]), None],
    "param_grid": [dict, list, None],
    "cv": ["cv_object"],
    "scoring": [str, callable, None],
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
