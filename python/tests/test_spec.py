"""The spec the Python package sends to the compiled module is the library's, as the CLI records it:
the same settings give the same spec, and the CLI's recorded spec runs unchanged from Python."""

import json

import numpy as np
import pytest
from conftest import write_csv

import agghoo
from agghoo import AgghooClassifier


def _spy(monkeypatch, name):
    """Records the spec of every call of ``_native.<name>`` (as a dict)."""
    sent = []
    call = getattr(agghoo._native, name)

    def spy(x, y, spec, data, run=None):
        sent.append(json.loads(spec))
        return call(x, y, spec, data, run)

    monkeypatch.setattr(agghoo._native, name, spy)
    return sent


def test_the_select_spec_python_sends_is_the_one_the_cli_records(tmp_path, cli, breast_cancer, monkeypatch):
    X, y = breast_cancer
    sent = _spy(monkeypatch, "select")
    clf = AgghooClassifier(
        grid=[1, 5, 9], method="majhoo", plan="vfold:4", loss="logloss", tie="last", aggregation="vote", standardize=True,
        random_state=7,
    ).fit(X, y)
    data = write_csv(tmp_path / "bc.csv", X, y)
    out = json.loads(cli("select", "--data", data, "--target", "y", "--family", "knn", "--grid", "1,5,9", "--method", "majhoo",
                         "--plan", "vfold", "--splits", 4, "--loss", "logloss", "--tie", "last", "--aggregate", "vote", "--vote-ties", "first-class", "--standardize", "--seed", 7,
                         "--json"))
    assert sent == [out["spec"]]
    assert clf.report_ == out["result"]["report"]


@pytest.mark.parametrize("command", ["select", "compare"])
def test_the_cli_recorded_spec_runs_unchanged_from_python(tmp_path, cli, diabetes, command):
    X, y = diabetes
    data = write_csv(tmp_path / "d.csv", X, y)
    flags = ["--family", "ridge", "--grid", "log:1e-3:10:5", "--seed", 3, "--json"]
    out = json.loads(cli(command, "--data", data, "--target", "y", *flags, *(["--outer", "vfold:3"] if command == "compare" else [])))
    x = np.ascontiguousarray(X, dtype=np.float64)
    names = {"feature_names": [f"x{j}" for j in range(X.shape[1])]}
    result = getattr(agghoo._native, command)(x, np.asarray(y, dtype=np.float64), json.dumps(out["spec"]), names)
    if command == "select":
        assert json.loads(result[1]) == out["result"]["report"]
    else:
        assert json.loads(result) == out["result"]


def test_a_bad_spec_names_its_field():
    x, y = np.zeros((4, 1)), np.zeros(4)
    with pytest.raises(agghoo.AgghooError, match="metod"):
        agghoo._native.select(x, y, json.dumps({"metod": "cv"}), {"feature_names": ["a"]})


def test_inner_tau_outside_subagging_is_refused_by_name(diabetes):
    X, y = diabetes
    with pytest.raises(agghoo.exceptions.ParameterError, match="inner-tau.*subagging"):
        agghoo.AgghooRegressor(family="ridge", method="agghoo", inner_tau=0.5).fit(X, y)


def test_the_attributes_built_on_first_access_follow_a_refit(breast_cancer):
    X, y = breast_cancer
    clf = AgghooClassifier(grid=[1, 5], method="cv", plan="vfold:3")
    clf.fit(X, y)
    first = (clf.cv_results_["params"], clf.best_params_, clf.selected_params_, clf.n_splits_)
    assert [p["k"] for p in first[0]] == [1, 5] and first[3] == 3
    clf.set_params(grid=[3, 7, 9], plan="vfold:4").fit(X, y)
    assert [p["k"] for p in clf.cv_results_["params"]] == [3, 7, 9] and clf.n_splits_ == 4
    assert clf.best_params_["k"] in (3, 7, 9) and len(clf.selected_params_) == 4
    assert clf.best_params_ == clf.cv_results_["params"][clf.best_index_]
