"""Categorical columns: passed to the engine as text, encoded inside each training set.

A column is categorical when ``categorical`` names it (a column name, or a position for arrays)
or, for a pandas DataFrame, when its dtype is object, string or category. Its values go to the
engine as text (``None`` when missing), as the CLI reads a CSV column; the numeric matrix holds a
placeholder 0.0 in its place.
"""

import numpy as np

_MISSING_CATEGORY = ("level", "most_frequent")


def check_missing_category(missing_category):
    if missing_category not in _MISSING_CATEGORY:
        raise ValueError(f"missing_category must be 'level' or 'most_frequent', got {missing_category!r}")
    return missing_category.replace("_", "-")


def _is_text_dtype(dtype):
    import pandas as pd

    return isinstance(dtype, pd.CategoricalDtype) or pd.api.types.is_object_dtype(dtype) or pd.api.types.is_string_dtype(dtype)


def _is_missing(value):
    if value is None:
        return True
    if isinstance(value, float):
        return bool(np.isnan(value))
    return _pd_missing(value)


def _pd_missing(value):
    try:
        import pandas as pd
    except ImportError:
        return False
    return pd.api.types.is_scalar(value) and bool(pd.isna(value))


def split_text(X, categorical=None, positions=None):
    """``(X, text)``: ``X`` with its categorical columns replaced by 0.0 and ``text`` the list of
    ``(position, [str or None per row])``.

    ``positions`` (the columns found at fit time) takes precedence over detection, so prediction
    reads the same columns as text.
    """
    columns = list(getattr(X, "columns", []))
    frame = bool(columns) and hasattr(X, "iloc")
    if positions is None:
        declared = list(categorical or [])
        if frame:
            known = set(columns) | {str(c) for c in columns}
            positions = [j for j, c in enumerate(columns) if c in declared or str(c) in declared or _is_text_dtype(X.dtypes.iloc[j])]
        else:
            known = {j for j in declared if isinstance(j, (int, np.integer)) and j >= 0}
            positions = sorted(known)
        unknown = [c for c in declared if c not in known]
        if unknown:
            raise ValueError(f"categorical: no column {unknown[0]!r} in X")
    if not positions:
        return X, []
    if frame:
        values = [X.iloc[:, j].tolist() for j in positions]
        X = X.copy()
        for j in positions:
            X.isetitem(j, np.zeros(len(X)))
    else:
        X = np.array(X, dtype=object)
        if X.ndim != 2 or positions[-1] >= X.shape[1]:
            raise ValueError(f"categorical: no column {positions[-1]!r} in X of shape {X.shape}")
        values = [X[:, j].tolist() for j in positions]
        X[:, positions] = 0.0
    text = [(j, [None if _is_missing(v) else str(v) for v in column]) for j, column in zip(positions, values)]
    return X, text


def missing_rows(text, n_rows):
    """A boolean mask of the rows with a missing categorical value."""
    mask = np.zeros(n_rows, dtype=bool)
    for _, column in text:
        mask |= np.array([v is None for v in column], dtype=bool)
    return mask


def refuse_missing(text, names):
    """The ``missing="error"`` rule for categorical columns."""
    for j, column in text:
        if any(v is None for v in column):
            raise ValueError(
                f"column {names[j]!r} has missing values: use missing='median' (then missing_category decides) or 'drop'"
            )


def keep_rows(text, keep):
    """``text`` restricted to the rows of the boolean mask ``keep``."""
    return [(j, [v for v, k in zip(column, keep) if k]) for j, column in text]
