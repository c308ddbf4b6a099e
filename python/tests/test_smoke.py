import pickle

import numpy as np
import pytest

import agghoo
from agghoo import exceptions


def test_version_and_exports():
    assert agghoo.__version__.count(".") == 2
    assert issubclass(exceptions.AgghooError, ValueError)
    assert issubclass(exceptions.AgghooIOError, OSError)


def test_library_errors_arrive_as_typed_exceptions():
    X = np.random.default_rng(0).normal(size=(40, 3))
    y = (X[:, 0] > 0).astype(int)
    with pytest.raises(exceptions.ParameterError, match="grid"):
        agghoo.AgghooClassifier(grid="5:1:1").fit(X, y)
    with pytest.raises(exceptions.ParameterError, match="plan"):
        agghoo.AgghooClassifier(plan="nonsense:3").fit(X, y)
    with pytest.raises(exceptions.ResourceLimitError, match="limit"):
        agghoo.AgghooClassifier(grid="log:1:100:1000000000").fit(X, y)
    with pytest.raises(exceptions.AgghooIOError):
        agghoo.load_model("/nonexistent/model.json")


def test_exceptions_pickle():
    e = exceptions.FitError("split 2: fit failed")
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is exceptions.FitError and str(back) == str(e)


def test_a_model_file_naming_a_class_twice_is_refused(tmp_path):
    import json

    X = np.random.default_rng(1).normal(size=(40, 2))
    y = np.where(X[:, 0] > 0, "a", "b")
    agghoo.AgghooClassifier(grid="1:5:2").fit(X, y).save(tmp_path / "m.json")
    doc = json.loads((tmp_path / "m.json").read_text())
    doc["schema"]["class_names"] = ["a", "a"]
    (tmp_path / "twice.json").write_text(json.dumps(doc))
    with pytest.raises(exceptions.CorruptFileError, match="the class `a` is named twice"):
        agghoo.load_model(tmp_path / "twice.json")


def test_names_come_from_the_library():
    from agghoo import _native, _categorical, _estimators

    names = dict(_native.names())
    assert _estimators._METHODS == ("agghoo", "majhoo", "cv", "holdout", "acv", "ekcv", "subagging")
    assert _categorical._MISSING_CATEGORY == ("level", "most_frequent")
    assert names["tie"] == ["first", "last"] and names["aggregation"][0] == "auto"
    with pytest.raises(exceptions.ParameterError, match="one of first, last"):
        _native.argmin([0.2, 0.1], tie="middle")
