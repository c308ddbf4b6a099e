"""Bad keyword values are refused before any work, naming the parameter (scikit-learn's
InvalidParameterError: a ValueError and a TypeError), instead of AttributeError / OverflowError from deep
inside (found by the adversarial sweep)."""

import numpy as np
import pytest
from sklearn.utils._param_validation import InvalidParameterError

import agghoo

rng = np.random.default_rng(0)
X = rng.normal(size=(30, 3))
yc = (X[:, 0] > 0).astype(int)
yr = X[:, 0] + 0.1 * rng.normal(size=30)


@pytest.mark.parametrize(
    "make, name",
    [
        (lambda: agghoo.AgghooClassifier(params=["x", None]).fit(X, yc), "params"),
        (lambda: agghoo.AgghooClassifier(random_state=1e300).fit(X, yc), "random_state"),
        (lambda: agghoo.AgghooClassifier(n_jobs=float("nan")).fit(X, yc), "n_jobs"),
        (lambda: agghoo.AgghooRegressor(n_splits=0).fit(X, yr), "n_splits"),
        (lambda: agghoo.AgghooRegressor(tau=1.5).fit(X, yr), "tau"),
        (lambda: agghoo.estimate_risk(X, yr, family="ridge", value=float("nan")), "value"),
        (lambda: agghoo.estimate_risk(X, yr, family="ridge", value=0.1, params=7), "params"),
        (lambda: agghoo.treecv(X, np.where(yc == 1, 1.0, -1.0), folds=-1), "folds"),
        (lambda: agghoo.treecv(X, np.where(yc == 1, 1.0, -1.0), random_state=-1), "random_state"),
        (lambda: agghoo.select_features(X, yc, n_features=0), "n_features"),
        (lambda: agghoo.compare(X, yc, methods=5), "methods"),
        (lambda: agghoo.AgghooSearchCV(agghoo.AgghooRegressor(), {"grid": [[1.0]]}, n_iter=0).fit(X, yr), "n_iter"),
        (lambda: agghoo.AgghooSearchCV(agghoo.AgghooRegressor(), {"grid": [[1.0]]}, tau=2.0).fit(X, yr), "tau"),
    ],
)
def test_a_bad_keyword_is_refused_naming_it(make, name):
    with pytest.raises(InvalidParameterError, match=f"'{name}' parameter") as info:
        make()
    assert isinstance(info.value, ValueError) and isinstance(info.value, TypeError)


def test_good_keywords_still_run():
    agghoo.AgghooClassifier(grid=range(1, 6), n_jobs=1, random_state=3).fit(X, yc)
    agghoo.treecv(X, np.where(yc == 1, 1.0, -1.0), folds="loo")
    agghoo.select_features(X, yc, n_features="best")


def test_the_search_constraints_list_every_parameter():
    import inspect

    from agghoo._validation import SEARCH_CONSTRAINTS

    assert set(SEARCH_CONSTRAINTS) == set(inspect.signature(agghoo.AgghooSearchCV).parameters)
