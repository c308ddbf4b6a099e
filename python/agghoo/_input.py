"""Checks of the input of every entry point, before it is converted: errors that name what is
wrong (sparse matrices, columns missing at prediction) rather than NumPy's or pandas' own."""


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
