"""The Python package and the CLI give the same results for the same seed, and read each other's
model files."""

import json

import numpy as np

from agghoo import AgghooClassifier, AgghooRegressor, MonteCarloSplit, TimeSeriesSplit, VFold, _native, load_model
from agghoo._functions import _prepare
from conftest import write_csv


def test_same_seed_same_selection_and_predictions_as_the_cli(tmp_path, cli, breast_cancer):
    X, y = breast_cancer
    data = write_csv(tmp_path / "bc.csv", X, y)
    out = json.loads(cli("select", "--data", data, "--target", "y", "--method", "majhoo", "--soft", "--seed", 7, "--json", "--out", tmp_path / "cli.json"))
    clf = AgghooClassifier(method="majhoo", random_state=7).fit(X, y)
    assert clf.member_values_ == out["result"]["member_values"]
    assert [s["selected_value"] for s in out["result"]["report"]["splits"]] == clf.selected_params_
    assert clf.report_["splits"] == out["result"]["report"]["splits"]
    cli("predict", "--model", tmp_path / "cli.json", "--data", data, "--out", tmp_path / "pred.csv")
    cli_labels = np.loadtxt(tmp_path / "pred.csv", delimiter=",", skiprows=1, usecols=1)
    np.testing.assert_array_equal(clf.predict(X), cli_labels.astype(int))


def test_a_saved_hard_vote_predicts_in_the_cli_as_in_python(tmp_path, cli, breast_cancer):
    """Four members tie often: Python's tie rule (the first class, argmax of the vote fractions)
    travels in the model file, so `agghoo predict` gives Python's classes, and it is the CLI's
    `--vote-ties first-class`; the CLI's default rule (the lowest-risk member) differs on ties."""
    X, y = breast_cancer
    data = write_csv(tmp_path / "bc.csv", X, y)
    clf = AgghooClassifier(method="majhoo", aggregation="vote", plan="mc:4:0.8", grid=[1, 3, 5, 7, 9, 11], random_state=5).fit(X, y)
    proba = clf.predict_proba(X)
    assert (proba.max(axis=1) == 0.5).any(), "no tied row: the test proves nothing"
    clf.save(tmp_path / "py.json")
    cli("predict", "--model", tmp_path / "py.json", "--data", data, "--out", tmp_path / "py-pred.csv")
    labels = lambda name: np.loadtxt(tmp_path / name, delimiter=",", skiprows=1, usecols=1).astype(int)
    np.testing.assert_array_equal(labels("py-pred.csv"), clf.predict(X))
    common = ("select", "--data", data, "--target", "y", "--method", "majhoo", "--plan", "mc", "-V", 4, "--tau", 0.8, "--grid", "1:11:2", "--seed", 5)
    for rule, name in (("first-class", "first"), ("lowest-risk", "lowest")):
        cli(*common, "--vote-ties", rule, "--out", tmp_path / f"{name}.json")
        cli("predict", "--model", tmp_path / f"{name}.json", "--data", data, "--out", tmp_path / f"{name}.csv")
    np.testing.assert_array_equal(labels("first.csv"), clf.predict(X))
    assert (labels("lowest.csv") != clf.predict(X)).any()


def test_model_files_travel_both_ways(tmp_path, cli, diabetes):
    X, y = diabetes
    data = write_csv(tmp_path / "d.csv", X, y)
    cli("select", "--data", data, "--target", "y", "--family", "ridge", "--method", "agghoo", "--seed", 3, "--out", tmp_path / "cli.json")
    cli("predict", "--model", tmp_path / "cli.json", "--data", data, "--out", tmp_path / "cli-pred.csv")
    cli_pred = np.loadtxt(tmp_path / "cli-pred.csv", delimiter=",", skiprows=1, usecols=1)
    loaded = load_model(tmp_path / "cli.json")
    np.testing.assert_array_equal(loaded.predict(X), cli_pred)
    reg = AgghooRegressor(family="ridge", random_state=3).fit(X, y)
    np.testing.assert_array_equal(reg.predict(X), cli_pred)
    reg.save(tmp_path / "py.json")
    cli("predict", "--model", tmp_path / "py.json", "--data", data, "--out", tmp_path / "py-pred.csv")
    np.testing.assert_array_equal(np.loadtxt(tmp_path / "py-pred.csv", delimiter=",", skiprows=1, usecols=1), cli_pred)


def test_splitters_give_the_cli_index_sets(tmp_path, cli, breast_cancer):
    X, y = breast_cancer
    data = write_csv(tmp_path / "bc.csv", X, y)
    cases = [
        (MonteCarloSplit(5, 0.7, random_state=11), ["--plan", "mc", "--splits", 5, "--tau", 0.7]),
        (MonteCarloSplit(5, 0.7, stratify=True, random_state=11), ["--plan", "mc", "--splits", 5, "--tau", 0.7, "--stratify"]),
        (VFold(4, random_state=11), ["--plan", "vfold", "--splits", 4]),
        (VFold(4, stratify=True, random_state=11), ["--plan", "vfold", "--splits", 4, "--stratify"]),
        (VFold(4, stratify=False, random_state=11), ["--plan", "vfold", "--splits", 4, "--no-stratify"]),
        (TimeSeriesSplit(4, gap=3, max_train_size=200), ["--plan", "time", "--splits", 4, "--gap", 3, "--max-train-size", 200]),
    ]
    for splitter, flags in cases:
        cli("splits", "--data", data, "--target", "y", "--seed", 11, *flags, "--out", tmp_path / "s.json")
        expected = json.loads((tmp_path / "s.json").read_text())["splits"]
        got = list(splitter.split(X, y))
        assert len(got) == len(expected) == splitter.get_n_splits(X, y)
        for (train, validation), e in zip(got, expected):
            assert train.tolist() == e["train"] and validation.tolist() == e["validation"], splitter


def test_estimate_risk_equals_the_cli(tmp_path, cli, diabetes, breast_cancer):
    import pickle

    from agghoo import estimate_risk

    X, y = diabetes
    data = write_csv(tmp_path / "d.csv", X, y)
    cases = [
        (["--family", "ridge", "--param", 0.5, "--plan", "vfold", "--splits", 5], dict(family="ridge", value=0.5, plan="vfold:5")),
        (["--family", "ridge", "--param", 0.5, "--plan", "loo"], dict(family="ridge", value=0.5, plan="loo")),
        (["--family", "knn", "--param", 7, "--plan", "bootstrap", "--splits", 20], dict(family="knn", value=7, plan="bootstrap:20")),
        (["--family", "lasso", "--param", 0.1, "--plan", "mc", "--splits", 6, "--tau", 0.7, "--loss", "squared,absolute"],
         dict(family="lasso", value=0.1, plan="mc:6:0.7", loss=["squared", "absolute"])),
    ]
    for flags, kwargs in cases:
        out = json.loads(cli("estimate", "--data", data, "--target", "y", "--seed", 4, "--json", *flags))["result"]
        ours = estimate_risk(X, y, random_state=4, **kwargs)
        assert ours.to_dict()["estimate"] == out["estimate"], flags
        assert ours.to_dict()["bootstrap"] == out.get("bootstrap"), flags
        assert pickle.loads(pickle.dumps(ours)) == ours
    Xc, yc = breast_cancer
    data = write_csv(tmp_path / "bc.csv", Xc, yc)
    out = json.loads(cli("estimate", "--data", data, "--target", "y", "--seed", 2, "--json", "--family", "knn", "--param", 5, "--plan", "vfold", "--stratify", "--loss", "01,logloss"))["result"]
    ours = estimate_risk(Xc, yc, family="knn", value=5, plan="vfold:10", stratify=True, loss=["01", "logloss"], random_state=2)
    assert ours.to_dict()["estimate"] == out["estimate"]
    assert 0 < ours["01"] < 0.15 and ours.to_frame().shape[0] == 2


def test_compare_equals_the_cli(tmp_path, cli, breast_cancer):
    import pickle

    from agghoo import compare

    X, y = breast_cancer
    data = write_csv(tmp_path / "bc.csv", X, y)
    out = json.loads(
        cli("compare", "--data", data, "--target", "y", "--family", "knn", "--grid", "1:15:2", "--methods", "agghoo,cv+1se,majhoo",
            "--outer", "vfold:3", "--plan", "mc", "--splits", 4, "--tau", 0.7, "--seed", 6, "--json")
    )["result"]
    ours = compare(X, y, family="knn", grid="1:15:2", methods=["agghoo", "cv+1se", "majhoo"], outer="vfold:3", inner="mc:4:0.7", random_state=6)
    assert ours.to_dict() == out
    assert [p["label"] for p in ours.procedures] == ["agghoo", "cv+1se", "majhoo"]
    assert len(ours.comparisons) == 3 and pickle.loads(pickle.dumps(ours)) == ours
    assert list(ours.to_frame().index) == ["agghoo", "cv+1se", "majhoo"]


def test_select_features_equals_the_cli(tmp_path, cli, breast_cancer, diabetes):
    import pickle

    from agghoo import select_features

    X, y = breast_cancer
    X = X[:, :12]
    data = write_csv(tmp_path / "bc.csv", X, y)
    cases = [
        (["--method", "sffs", "--scorer", "cfs", "--features", "best"], dict(method="sffs", scorer="cfs")),
        (["--method", "sfs", "--scorer", "wrapper:knn:5", "--features", "3", "--evaluate", "vfold:3"],
         dict(method="sfs", scorer="wrapper:knn:5", n_features=3, evaluate="vfold:3")),
        (["--method", "mi", "--features", "4", "--evaluate", "vfold:4", "--learner", "logistic:0.1", "--standardize"],
         dict(method="mi", n_features=4, evaluate="vfold:4", learner="logistic:0.1", standardize=True)),
    ]
    for flags, kwargs in cases:
        doc = json.loads(cli("features", "--data", data, "--target", "y", "--seed", 5, "--json", *flags))
        out = doc["result"]
        ours = select_features(X, y, random_state=5, **kwargs)
        assert ours.to_dict() == out, flags
        # The spec the CLI records is the compiled call's whole configuration.
        Xp, yp, call = _prepare(X, y, "auto", "error")
        assert json.loads(_native.select_features(Xp, yp, json.dumps(doc["spec"]), call)) == out, flags
        assert pickle.loads(pickle.dumps(ours)) == ours
        assert len(ours.to_frame()) > 0
    Xd, yd = diabetes
    data = write_csv(tmp_path / "d.csv", Xd, yd)
    out = json.loads(cli("features", "--data", data, "--target", "y", "--seed", 1, "--json", "--method", "lasso", "--evaluate", "vfold:3"))["result"]
    assert select_features(Xd, yd, method="lasso", evaluate="vfold:3", random_state=1).to_dict() == out


def test_treecv_equals_the_cli(tmp_path, cli, breast_cancer):
    import pickle

    from agghoo import treecv

    X, y = breast_cancer
    data = write_csv(tmp_path / "bc.csv", X, y)
    for flags, kwargs in [
        (["--learner", "pegasos", "--lambda", 0.001, "--folds", 10], dict(learner="pegasos", lambda_=0.001, folds=10)),
        (["--learner", "gaussian-nb", "--folds", "loo"], dict(learner="gaussian-nb", folds="loo")),
        (["--learner", "gaussian-nb", "--folds", 7, "--order", "random"], dict(learner="gaussian-nb", folds=7, order="random")),
    ]:
        doc = json.loads(cli("treecv", "--data", data, "--target", "y", "--seed", 9, "--json", *flags))
        out = doc["result"]
        ours = treecv(X, y, random_state=9, **kwargs).to_dict()
        # The spec the CLI records is the compiled call's whole configuration.
        Xp, yp, call = _prepare(X, y, "auto", "error")
        native = json.loads(_native.treecv(Xp, yp, call["feature_names"], call["class_names"], json.dumps(doc["spec"])))
        for volatile in ("wall_seconds", "memory"):
            for result in (out, ours, native):
                result.pop(volatile, None)
        assert ours == out == native, flags
    standard = treecv(X, y, learner="gaussian-nb", folds=7, method="standard", random_state=9)
    tree = treecv(X, y, learner="gaussian-nb", folds=7, random_state=9)
    assert abs(standard.estimate - tree.estimate) < 1e-12 and tree.n_point_updates < standard.n_point_updates
    assert pickle.loads(pickle.dumps(tree)).estimate == tree.estimate


def test_vfold_is_stratified_by_default_for_classes_in_both(tmp_path, cli, breast_cancer):
    from agghoo import estimate_risk

    X, y = breast_cancer
    data = write_csv(tmp_path / "bc.csv", X, y)
    default = list(VFold(5, random_state=3).split(X, y))
    assert [v.tolist() for _, v in default] == [v.tolist() for _, v in VFold(5, stratify=True, random_state=3).split(X, y)]
    assert [v.tolist() for _, v in default] != [v.tolist() for _, v in VFold(5, stratify=False, random_state=3).split(X, y)]
    for flags, stratify in [([], None), (["--no-stratify"], False)]:
        out = json.loads(cli("estimate", "--data", data, "--target", "y", "--seed", 3, "--json", "--family", "knn", "--param", 5, *flags))["result"]
        ours = estimate_risk(X, y, family="knn", value=5, plan="vfold:10", stratify=stratify, random_state=3)
        assert ours.to_dict()["estimate"] == out["estimate"], flags
    clf = AgghooClassifier(method="cv", grid="1:9:2", random_state=3).fit(X, y)
    out = json.loads(cli("select", "--data", data, "--target", "y", "--method", "cv", "--grid", "1:9:2", "--seed", 3, "--json"))
    assert clf.report_["splits"] == out["result"]["report"]["splits"]


def test_time_series_split_equals_sklearn():
    from sklearn.model_selection import TimeSeriesSplit as Reference

    for n, n_splits, gap, max_train_size, test_size in [
        (6, 5, 0, None, None),
        (12, 3, 2, None, 2),
        (50, 4, 0, 10, None),
        (50, 4, 3, 7, 5),
        (23, 2, 1, None, 7),
        (100, 9, 0, 1, None),
    ]:
        X = np.zeros((n, 2))
        ours = list(TimeSeriesSplit(n_splits, max_train_size=max_train_size, test_size=test_size, gap=gap).split(X))
        theirs = list(Reference(n_splits, max_train_size=max_train_size, test_size=test_size, gap=gap).split(X))
        assert len(ours) == len(theirs) == TimeSeriesSplit(n_splits).get_n_splits()
        for (a, b), (c, d) in zip(ours, theirs):
            assert a.tolist() == c.tolist() and b.tolist() == d.tolist(), (n, n_splits, gap, max_train_size, test_size)


def _customers(n=90):
    """A customer table as a new user has one: an id, text cities and ages with missing values,
    a text target (the CLI's tests use the same rows)."""
    import pandas as pd

    cities = ["Paris", "Lyon", "Nice", "Lille"]
    rows = []
    for i in range(n):
        city = cities[(i * 7 + i // 3) % 4]
        churn = "yes" if ((city in ("Paris", "Nice")) != (i % 5 == 0)) else "no"
        age = None if i % 17 == 3 else 20 + (i * 37) % 60
        rows.append({"id": f"C{i:04d}", "age": age, "city": None if i % 13 == 5 else city, "income": 20.0 + ((i * 53) % 40) / 2, "churn": churn})
    return pd.DataFrame(rows).astype({"age": float})


def test_text_columns_give_the_cli_selection_and_predictions(tmp_path, cli):
    import pytest

    pytest.importorskip("pandas")
    frame = _customers()
    data = tmp_path / "customers.csv"
    frame.to_csv(data, index=False)
    X, y = frame.drop(columns=["id", "churn"]), frame["churn"]
    for family in ("logistic", "forest"):
        out = json.loads(
            cli("select", "--data", data, "--target", "churn", "--ignore", "id", "--missing", "median", "--family", family,
                "--soft", "--seed", 5, "--json", "--out", tmp_path / "cli.json")
        )
        clf = AgghooClassifier(family=family, missing="median", random_state=5).fit(X, y)
        assert clf.categorical_features_in_ == [1]
        assert clf.report_["splits"] == out["result"]["report"]["splits"], family
        cli("predict", "--model", tmp_path / "cli.json", "--data", data, "--out", tmp_path / "pred.csv")
        cli_labels = np.loadtxt(tmp_path / "pred.csv", delimiter=",", skiprows=1, usecols=1, dtype=str)
        np.testing.assert_array_equal(clf.predict(X), cli_labels)
        # the Python model file predicts raw rows in the CLI too
        clf.save(tmp_path / "py.json")
        cli("predict", "--model", tmp_path / "py.json", "--data", data, "--out", tmp_path / "py-pred.csv")
        np.testing.assert_array_equal(np.loadtxt(tmp_path / "py-pred.csv", delimiter=",", skiprows=1, usecols=1, dtype=str), cli_labels)


def test_study_equals_the_cli_and_reads_as_frames(tmp_path, cli):
    import pathlib

    import agghoo

    data_dir = pathlib.Path(__file__).resolve().parents[2] / "data" / "study"
    args = dict(sets=["iris", "salaries"], families=["knn", "linear"], reps=2, max_train=40, max_test=30, forest_trees=3)
    result = agghoo.study(data_dir, quick=True, random_state=5, **args)
    out = json.loads(
        cli(
            "study", "--quick", "--data-dir", data_dir, "--sets", "iris,salaries", "--families", "knn,linear", "--reps", 2,
            "--max-train", 40, "--max-test", 30, "--forest-trees", 3, "--seed", 5, "--json", "--out", tmp_path,
        )
    )["result"]
    risks = lambda cells: [[r["risks"] for r in c["rows"]] + [c["forest"]] for c in cells]
    assert risks(result.cells) == risks(out["cells"])
    assert len(result.cells) == 4 and not any(c["error"] for c in result.cells)
    frame = result.to_frame()
    assert len(frame) == 4 * 12  # ten procedures and the two references
    assert frame.loc[("iris", "knn", "cv V=10"), "verdict"] == "reference"
    summary = result.summary_frame()
    assert set(summary.index.get_level_values("family")) == {"knn", "linear"}
    assert "StudyResult(4 cells, 0 failed, 2 outer splits)" == repr(result)
