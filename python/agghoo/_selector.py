"""Feature selection as a scikit-learn transformer, for Pipelines."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from . import _categorical, _input
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
    categorical, missing_category, na_values :
        As :func:`agghoo.select_features`: the text columns of a DataFrame (and those named in
        ``categorical``) are categorical, each one candidate feature; ``transform`` of a DataFrame
        with such columns keeps the selected original columns as a DataFrame (their text
        included), for a next step that encodes them.

    Attributes
    ----------
    selection_ : FeatureSelection
        The library's selection (search trace, ranking or embedded report).
    support_ : ndarray of bool
        The selected columns (``get_support()``).
    categorical_features_in_ : list of int
        The positions of the categorical columns seen by ``fit``.
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

    A text column is one candidate feature; ``transform`` keeps it as text:

    >>> import pandas as pd
    >>> frame = pd.DataFrame({"city": ["north", "south", "east", "west"] * 15, "noise": [0.1, -0.4, 0.3, 0.2, -0.1] * 12})
    >>> effect = frame["city"].map({"north": 0.0, "south": 3.0, "east": -3.0, "west": 6.0})
    >>> selector = FeatureSelector(method="pearson", n_features=1).fit(frame, effect)
    >>> list(selector.get_feature_names_out()), list(selector.transform(frame).columns)
    (['city'], ['city'])
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
        categorical: Sequence[Any] | None = None,
        missing_category: str = "level",
        na_values: Sequence[str] | None = None,
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
        self.categorical = categorical
        self.missing_category = missing_category
        self.na_values = na_values

    def fit(self, X: ArrayLike, y: ArrayLike) -> FeatureSelector:
        """Select the columns of ``X`` for ``y``; returns ``self``."""
        allow_nan = self.missing != "error"
        _input.check_dense(X)
        with warnings.catch_warnings():
            # select_features reads the text columns again, and warns then
            warnings.simplefilter("ignore", UserWarning)
            numbers, text = _categorical.split_text(X, self.categorical, None, self.na_values)
        self.categorical_features_in_ = [j for j, _ in text]
        numbers, y = validate_data(self, numbers, y, dtype=np.float64, ensure_all_finite="allow-nan" if allow_nan else True)
        self.random_state_ = seed_of(self.random_state)
        selection: FeatureSelection = select_features(
            X if text else numbers,
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
            categorical=self.categorical,
            missing_category=self.missing_category,
            na_values=self.na_values,
        )
        self.selection_ = selection
        support = np.zeros(numbers.shape[1], dtype=bool)
        support[np.asarray(selection.features, dtype=np.intp)] = True
        self.support_ = support
        return self

    def transform(self, X: ArrayLike) -> Any:
        """The selected columns of ``X``: a DataFrame with categorical columns keeps them (as a
        DataFrame, text included); other input as :class:`sklearn.feature_selection.SelectorMixin`."""
        check_is_fitted(self)
        if self.categorical_features_in_ and hasattr(X, "iloc"):
            _input.check_columns(getattr(self, "feature_names_in_", None), X)
            if X.shape[1] != self.n_features_in_:
                raise ValueError(f"X has {X.shape[1]} features, but FeatureSelector is expecting {self.n_features_in_} features as input")
            names = getattr(self, "feature_names_in_", None)
            if names is not None:
                return X[list(names[self.support_])]
            return X.iloc[:, np.flatnonzero(self.support_)]
        return super().transform(X)

    def _get_support_mask(self) -> np.ndarray:
        check_is_fitted(self)
        return self.support_

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.input_tags.allow_nan = self.missing != "error"
        return tags
