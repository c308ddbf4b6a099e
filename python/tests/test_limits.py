"""Sizes bounded before work starts, from Python: the limits are set with `agghoo.set_limits`
(the messages name its keywords, not the CLI's flags), `estimator=` grids are bounded like the
built-in ones, a panic in the compiled code is an `InternalError`, and errors carry their causes."""

import numpy as np
import pytest
from sklearn.linear_model import Ridge

import agghoo
from agghoo import AgghooRegressor, _native
from agghoo.exceptions import AgghooError, InternalError, NumericalError, ResourceLimitError


@pytest.fixture
def limits():
    """Restores the limits in force after the test."""
    before = agghoo.get_limits()
    yield
    agghoo.set_limits(**before)


def _data(n=60, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X, X @ np.arange(1.0, d + 1) + rng.normal(scale=0.1, size=n)


def test_resource_errors_name_the_python_keyword_not_the_cli_flag(limits):
    X, y = _data()
    with pytest.raises(ResourceLimitError) as e:
        AgghooRegressor(family="ridge", grid="log:1e-6:1:100000000").fit(X, y)
    assert "agghoo.set_limits(grid_points=N)" in str(e.value) and "--limit" not in str(e.value)
    assert agghoo.set_limits(max_memory="1K")["max_memory"] == 1024
    with pytest.raises(ResourceLimitError) as e:
        AgghooRegressor(family="ridge").fit(X, y)
    assert 'agghoo.set_limits(max_memory="32G")' in str(e.value) and "--max-memory" not in str(e.value)
    agghoo.set_limits(max_memory="8G", grid_points=10)
    with pytest.raises(ResourceLimitError, match="limit of 10 grid points"):
        AgghooRegressor(family="ridge", grid="1:20:1").fit(X, y)
    with pytest.raises(AgghooError, match="grid-points, splits"):
        agghoo.set_limits(grid_point=10)


def test_estimator_grids_are_bounded_before_they_are_enumerated():
    X, y = _data()
    # 100⁶ = 10¹² candidates: refused from the grid's length, not enumerated
    grid = {f"p{i}": list(range(100)) for i in range(6)}
    with pytest.raises(ResourceLimitError, match="1000000000000 grid points"):
        AgghooRegressor(estimator=Ridge(), param_grid=grid).fit(X, y)
    with pytest.raises(ResourceLimitError, match="estimator= grid"):
        AgghooRegressor(estimator=Ridge(), param_grid={"alpha": list(range(1000)), "tol": list(range(1000))}).fit(X, y)


def test_a_panic_in_the_compiled_code_is_an_internal_error():
    with pytest.raises(InternalError, match="panic: boom") as e:
        _native._panic_for_tests("boom")
    assert isinstance(e.value, Exception) and "bug in agghoo" in str(e.value)
    try:
        _native._panic_for_tests("caught")
    except Exception as caught:  # what a user's `except Exception` sees
        assert isinstance(caught, InternalError)
    assert InternalError.__doc__.startswith("A bug in agghoo; please report it")


def test_errors_carry_their_causes():
    X, y = _data()
    X[:, 0] *= 1e200  # XᵀX overflows: the fit fails on every split
    with pytest.raises(AgghooError) as e:
        AgghooRegressor(family="ridge", grid="1,10", n_splits=2).fit(X, y)
    message = str(e.value)
    assert message.startswith("split 0") and message.count(": ") >= 1 and "ridge" in message, message
    cause = e.value.__cause__
    assert isinstance(cause, AgghooError) and str(cause) in message, (message, cause)
    assert isinstance(cause, NumericalError) or isinstance(cause.__cause__, NumericalError)
