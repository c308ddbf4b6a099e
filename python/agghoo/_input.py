"""Checks of the input of every entry point, before it is converted: errors that name what is
wrong (sparse matrices, columns missing at prediction) rather than NumPy's or pandas' own."""

import numpy as np

from . import _categorical, _scoring


def _is_sparse(X):
    try:
        import scipy.sparse
    except ImportError:  # pragma: no cover - scikit-learn requires SciPy
        return False
    return scipy.sparse.issparse(X)


def check_dense(X):
    """Refuses a ``scipy.sparse`` matrix or array: the engine reads dense rows only."""
    if _is_sparse(X):
        raise TypeError(
            f"X is a sparse {type(X).__name__} of shape {X.shape}: sparse input is not supported, "
            "densify it first with X.toarray()"
        )


def check_columns(fitted, X):
    """At prediction, a DataFrame must hold every column seen at fit (``fitted``: the names, or
    ``None`` when the fit saw no names), in scikit-learn's wording."""
    columns = getattr(X, "columns", None)
    if fitted is None or columns is None:
        return
    present = {str(c) for c in columns}
    missing = [str(c) for c in fitted if str(c) not in present]
    if missing:
        raise ValueError(f"X is missing columns {missing} seen at fit")


def is_checked(X):
    """Whether ``X`` is already what scikit-learn's ``check_array(X, dtype=float64, order="C")``
    returns, and passes its checks with or without ``allow-nan``: an ``ndarray`` (not a subclass)
    of native float64, two-dimensional, C-contiguous, with a row and a column at least, every value
    finite (a finite sum, scikit-learn's own first test). Such an ``X`` needs neither conversion
    nor the rest of ``check_array``; any other (NaN, a DataFrame, a list, ...) takes the full
    check, which converts it or raises scikit-learn's error."""
    return (
        type(X) is np.ndarray
        and X.dtype == np.float64
        and X.ndim == 2
        and X.flags.c_contiguous
        and X.shape[0] >= 1
        and X.shape[1] >= 1
        and bool(np.isfinite(X.sum()))
    )


def is_checked_target(y, n_rows):
    """Whether ``y`` is already what ``check_X_y``'s check of a single-output target returns, for
    ``n_rows`` rows: a C-contiguous one-dimensional ``ndarray`` (not a subclass) of ``n_rows``
    booleans, integers, strings or finite floats (``y_numeric`` converts object arrays only)."""
    if type(y) is not np.ndarray or y.ndim != 1 or not y.flags.c_contiguous or y.shape[0] != n_rows:
        return False
    kind = y.dtype.kind
    return kind in "biuU" or (kind == "f" and bool(np.isfinite(y.sum())))


def drop_missing(X, y, text, splits=None, groups=None, sample_weight=None):
    """``missing="drop"``, for the estimators and the functions alike: the rows of ``X`` (floats,
    NaN where missing) and of the categorical columns ``text`` that have no missing value, with
    their targets ``y``, ``groups`` and ``sample_weight`` (``None`` stays ``None``); the caller's
    ``splits`` of all rows are restated on the kept rows. Returns ``(X, y, text, splits, groups,
    sample_weight)``."""
    keep = ~(np.isnan(X).any(axis=1) | _categorical.missing_rows(text, X.shape[0]))

    def kept(a):
        return None if a is None else np.asarray(a)[keep]

    return (
        np.ascontiguousarray(X[keep]), np.asarray(y)[keep], _categorical.keep_rows(text, keep), _scoring.keep_rows(splits, keep),
        kept(groups), kept(sample_weight),
    )


def check_n_samples(n_rows):
    """Refuses fewer than two rows (none left once dropped, or one): they can be neither split nor
    learnt from. Worded as scikit-learn's checks expect (``n_samples=1``)."""
    if n_rows < 2:
        raise ValueError(f"n_samples={n_rows}: at least 2 rows are needed to split or learn from the data")
