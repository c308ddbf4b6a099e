"""Feature selection as a scikit-learn transformer, for Pipelines."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from ._functions import FeatureSelection, select_features
from ._validation import RandomStateLike, seed_of

__all__ = ["FeatureSelector"]


class FeatureSelector(SelectorMixin, BaseEstimator):
    """:func:`agghoo.select_features` as a transformer: ``fit`` selects the columns, ``transform``
    keeps them, so that a selection is redone inside every training set of a Pipeline under
    ``cross_validate`` or a search (the honest estimate).

    Parameters
    ----------
    method, scorer, n_features, inner, standardize, missing, task, random_state, n_jobs :
        As :func:`agghoo.select_features` (``random_state=None`` or a numpy generator draws a
        seed, kept as ``random_state_``).

    Attributes
    ----------
    selection_ : FeatureSelection
        The library's selection (search trace, ranking or embedded report).
    support_ : ndarray of bool
        The selected columns (``get_support()``).
    n_features_in_ : int
    feature_names_in_ : ndarray of str (when ``X`` has column names)
    random_state_ : int

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.pipeline import make_pipeline
    >>> from agghoo import AgghooClassifier, FeatureSelector
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> selector = FeatureSelector(method="pearson", n_features=5).fit(X, y)
    >>> int(selector.get_support().sum()), selector.transform(X).shape
    (5, (569, 5))
    >>> pipe = make_pipeline(FeatureSelector(method="pearson", n_features=5), AgghooClassifier(grid=[3, 5], n_splits=3))
    >>> bool(pipe.fit(X, y).score(X, y) > 0.8)
    True
    """

    def __init__(
        self,
        method: str = "sffs",
        scorer: str = "cfs",
        n_features: int | str = "best",
        inner: str = "vfold:5",
        standardize: bool = False,
        missing: str = "error",
        task: str = "auto",
        random_state: RandomStateLike = 0,
        n_jobs: int | None = None,
    ) -> None:
        self.method = method
        self.scorer = scorer
        self.n_features = n_features
        self.inner = inner
        self.standardize = standardize
        self.missing = missing
        self.task = task
        self.random_state = random_state
        self.n_jobs = n_jobs

    def fit(self, X: ArrayLike, y: ArrayLike) -> FeatureSelector:
        """Select the columns of ``X`` for ``y``; returns ``self``."""
        allow_nan = self.missing == "median"
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_all_finite="allow-nan" if allow_nan else True)
        self.random_state_ = seed_of(self.random_state)
        selection: FeatureSelection = select_features(
            X,
            y,
            method=self.method,
            scorer=self.scorer,
            n_features=self.n_features,
            inner=self.inner,
            standardize=self.standardize,
            missing=self.missing,
            task=self.task,
            random_state=self.random_state_,
            n_jobs=self.n_jobs,
        )
        self.selection_ = selection
        support = np.zeros(X.shape[1], dtype=bool)
        support[np.asarray(selection.features, dtype=np.intp)] = True
        self.support_ = support
        return self

    def _get_support_mask(self) -> np.ndarray:
        check_is_fitted(self)
        return self.support_

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.input_tags.allow_nan = self.missing == "median"
        return tags
