"""Categorical columns: passed to the engine as text, encoded inside each training set.

A column is categorical when ``categorical`` names it (a column name, or a position for arrays)
or, for a pandas DataFrame, when its dtype is object, string or category. Its values go to the
engine as text (``None`` when missing: ``None``, NaN, ``pd.NA``, and the strings of
``na_values``, by default pandas' NA strings), as the CLI reads a CSV column; the numeric matrix
holds a placeholder 0.0 in its place. A column categorical by its dtype although nearly all its
values are numbers gets a ``UserWarning``.
"""

import warnings

import numpy as np

from . import _native
from ._validation import NAMES, check_name

# The library's names (`most-frequent`) in Python's spelling (`most_frequent`).
_MISSING_CATEGORY = tuple(name.replace("-", "_") for name in NAMES["missing_category"])


def check_missing_category(missing_category):
    return check_name("missing_category", missing_category, _MISSING_CATEGORY).replace("_", "-")


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


def check_na_values(na_values):
    """``na_values`` as the engine reads it: ``None`` (the default tokens) or a list of strings,
    where ``"default"`` stands for the default tokens."""
    if na_values is None:
        return None
    if isinstance(na_values, str) or not all(isinstance(t, str) for t in na_values):
        raise TypeError(f"na_values must be a list of strings (\"default\" for the default tokens), got {na_values!r}")
    return list(na_values)


def split_text(X, categorical=None, positions=None, na_values=None):
    """``(X, text)``: ``X`` with its categorical columns replaced by 0.0 and ``text`` the list of
    ``(position, [str or None per row])``; the strings of ``na_values`` are missing.

    ``positions`` (the columns found at fit time) takes precedence over detection, so prediction
    reads the same columns as text; at fit time, a column detected by its dtype although nearly
    all its values are numbers gets a ``UserWarning``.
    """
    na_values = check_na_values(na_values)
    columns = list(getattr(X, "columns", []))
    frame = bool(columns) and hasattr(X, "iloc")
    detected = set()
    if positions is None:
        declared = list(categorical or [])
        if frame:
            known = set(columns) | {str(c) for c in columns}
            positions = [j for j, c in enumerate(columns) if c in declared or str(c) in declared or _is_text_dtype(X.dtypes.iloc[j])]
            detected = {j for j in positions if columns[j] not in declared and str(columns[j]) not in declared}
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
    text = []
    for j, column in zip(positions, values):
        name = str(columns[j]) if frame else f"x{j}"
        cells, warning = _native.read_text(name, [None if _is_missing(v) else str(v) for v in column], na_values, j in detected)
        if warning is not None:
            message, examples = warning
            hint = f"na_values=[{', '.join(repr(t) for t in ['default', *examples])}] reads them as missing; " if examples else ""
            warnings.warn(
                f"{message}: one-hot encoding makes a column of each distinct value. If it holds numbers, convert it "
                f"(pandas.to_numeric; {hint}a text column stays categorical); if it is categorical, name it in "
                f"categorical= to silence this warning",
                UserWarning,
                stacklevel=4,
            )
        text.append((j, cells))
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
