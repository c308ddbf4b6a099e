"""The estimators' fast paths: parameters checked once per distinct value, and a plain float64
array taken without scikit-learn's ``check_array``, with every check and error of the full path
kept."""

import numpy as np
import pytest
import sklearn.base
import sklearn.utils.validation
from sklearn.utils._param_validation import InvalidParameterError

from agghoo import AgghooClassifier, AgghooRegressor

rng = np.random.default_rng(3)
X = rng.normal(size=(40, 3))
yr = X[:, 0] + 0.1 * rng.normal(size=40)
yc = (X[:, 1] > 0).astype(int)


def _counting(monkeypatch, module, name):
    calls = []
    real = getattr(module, name)

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


def test_a_refit_with_the_same_parameters_checks_them_once(monkeypatch):
    checks = _counting(monkeypatch, sklearn.base, "validate_parameter_constraints")
    # A value no other test uses, so the first fit is the first check of it.
    reg = AgghooRegressor(family="ridge", tau=0.7345, n_splits=3)
    reg.fit(X, yr)
    reg.fit(X, yr)
    AgghooRegressor(family="ridge", tau=0.7345, n_splits=3).fit(X, yr)
    assert len(checks) == 1
    reg.set_params(tau=0.7346).fit(X, yr)
    assert len(checks) == 2


@pytest.mark.parametrize(
    "name, value",
    [
        ("tie", "middle"),  # never valid
        ("n_splits", 3.0),  # equal to a value that passed (3), but not an integer
        ("n_splits", 0.7345),  # a value that passed for another parameter (tau)
        ("tau", 1.0),
    ],
)
def test_a_value_that_passed_does_not_excuse_another(name, value):
    reg = AgghooRegressor(family="ridge", tau=0.7345, n_splits=3).fit(X, yr)
    with pytest.raises(InvalidParameterError, match=f"'{name}' parameter"):
        reg.set_params(**{name: value}).fit(X, yr)


def test_a_plain_float64_array_skips_check_array(monkeypatch):
    converted = _counting(monkeypatch, sklearn.utils.validation, "check_array")
    reg = AgghooRegressor(family="ridge", n_splits=3).fit(X, yr)
    reg.predict(X)
    clf = AgghooClassifier(n_splits=3).fit(X, np.array(["a", "b"])[yc])
    clf.predict(X)
    assert converted == []
    assert reg.n_features_in_ == 3 and clf.n_features_in_ == 3
    # anything else takes the full check
    AgghooRegressor(family="ridge", n_splits=3).fit(np.asfortranarray(X), yr)
    assert converted != []


@pytest.mark.parametrize(
    "convert",
    [
        np.asfortranarray,
        lambda a: a.astype(np.float32),
        lambda a: a.tolist(),
        lambda a: np.repeat(a, 2, axis=-1)[..., ::2],
        lambda a: a.astype(">f8"),
        lambda a: np.ma.masked_array(a),
    ],
    ids=["fortran", "float32", "list", "strided", "big-endian", "subclass"],
)
def test_the_full_check_and_the_fast_path_agree(convert):
    plain = AgghooRegressor(family="ridge", n_splits=3).fit(X, yr)
    other = AgghooRegressor(family="ridge", n_splits=3).fit(convert(X), convert(yr))
    assert other.n_features_in_ == plain.n_features_in_
    np.testing.assert_allclose(other.predict(convert(X)), plain.predict(X), rtol=1e-5)


@pytest.mark.parametrize(
    "where, bad, message",
    [
        ("X", np.nan, "Input X contains NaN"),
        ("X", np.inf, "Input X contains infinity"),
        ("y", np.nan, "Input y contains NaN"),
        ("y", -np.inf, "Input y contains infinity"),
    ],
)
def test_non_finite_values_get_scikit_learns_error(where, bad, message):
    Xb, yb = X.copy(), yr.copy()
    (Xb if where == "X" else yb).flat[5] = bad
    with pytest.raises(ValueError, match=message):
        AgghooRegressor(family="ridge", n_splits=3).fit(Xb, yb)
    if where == "X":
        # at predict too, and with missing="median" an infinity still is refused
        reg = AgghooRegressor(family="ridge", n_splits=3).fit(X, yr)
        with pytest.raises(ValueError, match=message):
            reg.predict(Xb)
        if bad == np.inf:
            with pytest.raises(ValueError, match=message):
                AgghooRegressor(family="ridge", n_splits=3, missing="median").fit(Xb, yr)


def test_the_feature_names_are_still_checked():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    reg = AgghooRegressor(family="ridge", n_splits=3).fit(frame, yr)
    with pytest.warns(UserWarning, match="X does not have valid feature names"):
        reg.predict(X)
    # refitted on an array, the names of the earlier fit are forgotten
    reg.fit(X, yr)
    assert not hasattr(reg, "feature_names_in_")
    with pytest.raises(ValueError, match="X has 2 features, but AgghooRegressor is expecting 3 features"):
        reg.predict(X[:, :2])
