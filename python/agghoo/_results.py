"""``cv_results_`` in ``GridSearchCV``'s layout, built in one place for every search of the package.

One sign convention: every ``*_test_score`` is *higher is better*. A loss enters as its negation, as
scikit-learn's ``neg_…`` scorers (the 0-1 loss gives ``-error``, the squared loss
``-mean squared error``); a scorer (``accuracy``, ``f1_macro``, ...) enters as it is. Ranks follow
scikit-learn: tied means share the smallest rank (``scipy.stats.rankdata(..., method="min")``:
23, 23, 23, then 26), and a ``nan`` mean ranks last.

Examples
--------
>>> from agghoo._results import cv_results
>>> r = cv_results([{"k": 1}, {"k": 3}, {"k": 5}], [[0.9, 0.8, 0.9], [0.7, 0.8, 0.7]])
>>> r["mean_test_score"].tolist(), r["rank_test_score"].tolist()
([0.8, 0.8, 0.8], [1, 1, 1])
>>> r["param_k"].tolist()
[1, 3, 5]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from scipy.stats import rankdata

__all__ = ["cv_results", "rank_scores", "best_index"]


def rank_scores(mean: Any) -> np.ndarray:
    """scikit-learn's ranks of mean scores (higher is better): ties share the smallest rank, ``nan``
    ranks last (``int32``, 1 is best).

    Examples
    --------
    >>> from agghoo._results import rank_scores
    >>> rank_scores([0.5, 0.9, 0.9, float("nan")]).tolist()
    [3, 1, 1, 4]
    """
    mean = np.asarray(mean, dtype=float)
    if np.isnan(mean).all():
        return np.ones(mean.shape, dtype=np.int32)
    filled = np.nan_to_num(mean, nan=np.nanmin(mean) - 1)
    return rankdata(-filled, method="min").astype(np.int32)


def best_index(results: Mapping[str, Any]) -> int:
    """The first candidate (in grid order) of rank 1: ``GridSearchCV``'s ``best_index_``.

    Examples
    --------
    >>> from agghoo._results import best_index
    >>> best_index({"rank_test_score": [2, 1, 1]})
    1
    """
    return int(np.flatnonzero(np.asarray(results["rank_test_score"]) == 1)[0])


def _param_column(values: list, present: list[bool]) -> np.ma.MaskedArray:
    """One ``param_NAME`` column: a masked array (masked where the candidate has no such parameter),
    numeric when every present value is a number (bools and strings stay objects)."""
    kept = [v for v, p in zip(values, present) if p]
    numeric = kept and all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_)) for v in kept)
    if numeric:
        integral = all(isinstance(v, (int, np.integer)) for v in kept)
        dtype = np.int64 if integral else np.float64
        data = np.array([v if p else 0 for v, p in zip(values, present)], dtype=dtype)
    else:
        data = np.empty(len(values), dtype=object)
        data[:] = values
    return np.ma.MaskedArray(data, mask=[not p for p in present])


def _mean_and_std(per_split: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The mean and standard deviation over the splits of ``per_split`` (n_splits, n_candidates),
    summed in the order scikit-learn's ``GridSearchCV`` sums them (one contiguous row per
    candidate), so equal scores give bit-equal means and the same ranks and ``best_index_``."""
    rows = np.ascontiguousarray(np.asarray(per_split, dtype=float).T)
    mean = np.average(rows, axis=1)
    return mean, np.sqrt(np.average((rows - mean[:, np.newaxis]) ** 2, axis=1))


def cv_results(
    candidates: Sequence[Mapping[str, Any]],
    scores: Any,
    *,
    fit_time: Any = None,
    score_time: Any = None,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """``cv_results_`` in ``GridSearchCV``'s layout.

    Parameters
    ----------
    candidates : sequence of dict
        The parameters of each candidate, in grid order (``params``; one ``param_NAME`` masked
        column per name, typed like the values: ints stay ints).
    scores : array-like of shape (n_splits, n_candidates)
        Validation scores, higher is better (a loss negated).
    fit_time, score_time : array-like of shape (n_splits, n_candidates), optional
        Seconds per split and candidate; zeros when omitted. ``mean_*`` / ``std_*`` are taken over
        the splits, as scikit-learn's.
    extra : dict, optional
        Further keys appended as they are (agghoo's ``weighted_mean_risk``, ...).

    Returns
    -------
    dict
        ``params``, ``param_*``, ``split{j}_test_score``, ``mean_test_score``,
        ``std_test_score``, ``rank_test_score``, ``mean_fit_time``, ``std_fit_time``,
        ``mean_score_time``, ``std_score_time``, then ``extra``.

    Examples
    --------
    >>> from agghoo._results import cv_results
    >>> r = cv_results([{"C": 0.1}, {"C": 1.0}], [[-0.2, -0.1], [-0.4, -0.1]])
    >>> r["mean_test_score"].round(3).tolist(), r["rank_test_score"].tolist()
    ([-0.3, -0.1], [2, 1])
    >>> r["mean_fit_time"].tolist()
    [0.0, 0.0]
    """
    candidates = [dict(c) for c in candidates]
    scores = np.asarray(scores, dtype=float).reshape(-1, len(candidates))
    results: dict[str, Any] = {"params": candidates}
    names = sorted({name for c in candidates for name in c}, key=str)
    for name in names:
        results[f"param_{name}"] = _param_column([c.get(name) for c in candidates], [name in c for c in candidates])
    for j, row in enumerate(scores):
        results[f"split{j}_test_score"] = row
    mean, std = _mean_and_std(scores)
    results["mean_test_score"] = mean
    results["std_test_score"] = std
    results["rank_test_score"] = rank_scores(mean)
    for key, times in (("fit_time", fit_time), ("score_time", score_time)):
        times = np.zeros(scores.shape) if times is None else np.asarray(times, dtype=float).reshape(scores.shape)
        results[f"mean_{key}"], results[f"std_{key}"] = _mean_and_std(times)
    results.update(extra or {})
    return results
