import json
import pickle

import cloudpickle
import joblib
import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

from agghoo import AgghooClassifier, AgghooRegressor, FeatureSelector, MonteCarloSplit, load_model
from conftest import write_csv


def _weight_checks_that_fail(estimator):
    """The sample-weight checks these estimators fail, with why. Repeating rows changes the splits a
    selection draws over the rows (as for ``GridSearchCV``), so weights cannot equal repeated rows
    for the whole procedure (they do on a fixed split: ``test_weights.py``)."""
    return {"check_sample_weight_equivalence_on_dense_data": "the splits are drawn over rows: repeated rows change them"}


@parametrize_with_checks(
    [
        AgghooClassifier(),
        AgghooClassifier(aggregation="vote"),
        AgghooClassifier(family="logistic", method="cv", plan="vfold:3"),
        AgghooRegressor(family="ridge"),
        AgghooRegressor(family="knn", method="cv", plan="vfold:3"),
        FeatureSelector(),
        FeatureSelector(method="pearson", n_features=1),
    ],
    expected_failed_checks=_weight_checks_that_fail,
)
def test_scikit_learn_conventions(estimator, check):
    check(estimator)


def test_majhoo_knn_on_breast_cancer(breast_cancer):
    X, y = breast_cancer
    clf = AgghooClassifier(method="majhoo", random_state=1).fit(X, y)
    assert len(clf.member_values_) == 10 and len(clf.selected_params_) == 10
    assert clf.member_values_ == clf.selected_params_
    assert clf.score(X, y) > 0.9
    proba = clf.predict_proba(X)
    assert proba.shape == (len(y), 2) and np.allclose(proba.sum(axis=1), 1.0)
    # the vote of the members' predictions
    assert set(clf.predict(X)) <= set(clf.classes_)


def test_cv_results_follow_grid_search_layout(breast_cancer):
    X, y = breast_cancer
    clf = AgghooClassifier(grid=[1, 3, 5, 7], method="cv", plan="vfold:5").fit(X, y)
    r = clf.cv_results_
    assert [p["k"] for p in r["params"]] == [1, 3, 5, 7]
    splits = np.array([r[f"split{j}_test_score"] for j in range(5)])
    np.testing.assert_allclose(r["mean_test_score"], splits.mean(axis=0))
    np.testing.assert_allclose(r["std_test_score"], splits.std(axis=0))
    assert r["rank_test_score"][np.argmax(r["mean_test_score"])] == 1
    # the library's mean risk weights each split by its validation size (folds of 114 and 113)
    sizes = np.array([s["n_validation"] for s in clf.report_["splits"]])
    np.testing.assert_allclose(r["weighted_mean_risk"], -(sizes @ splits) / sizes.sum(), rtol=1e-12)
    # CV selects the grid point of lowest mean risk and refits it
    assert clf.member_values_ == [r["params"][int(np.argmin(r["weighted_mean_risk"]))]["k"]]


def test_a_dict_grid_is_a_product_of_axes(breast_cancer, tmp_path, cli):
    X, y = breast_cancer
    grid = {"k": [1, 5, 9], "weights": ["uniform", "distance"]}
    clf = AgghooClassifier(grid=grid, method="cv", plan="vfold:4", standardize=True).fit(X, y)
    r = clf.cv_results_
    assert len(r["params"]) == 6
    assert [(p["k"], p["weights"]) for p in r["params"]] == [
        (1, "uniform"), (5, "uniform"), (9, "uniform"), (1, "distance"), (5, "distance"), (9, "distance")
    ]
    assert list(r["param_weights"]) == ["uniform"] * 3 + ["distance"] * 3
    assert all(set(p) == {"k", "weights"} for p in clf.selected_params_)
    # the same selection as the CLI's repeated --grid on the same data and splits
    data = write_csv(tmp_path / "bc.csv", X, y)
    args = ["--target", "y", "--task", "classification", "--standardize", "--grid", "k=1,5,9"]
    args += ["--grid", "weights=uniform,distance", "--method", "cv", "--plan", "vfold", "--splits", "4", "--json"]
    out = json.loads(cli("select", "--data", data, *args))
    assert out["result"]["report"]["cv_curve"] == clf.report_["cv_curve"]
    assert clf.score(X, y) > 0.9


@pytest.mark.parametrize("dumps,loads", [(pickle.dumps, pickle.loads), (cloudpickle.dumps, pickle.loads)])
def test_pickled_estimators_predict_identically(breast_cancer, dumps, loads):
    X, y = breast_cancer
    clf = AgghooClassifier(method="majhoo").fit(X, y)
    back = loads(dumps(clf))
    np.testing.assert_array_equal(back.predict(X), clf.predict(X))
    np.testing.assert_array_equal(back.predict_proba(X), clf.predict_proba(X))


def test_joblib_round_trip(tmp_path, diabetes):
    X, y = diabetes
    reg = AgghooRegressor(family="ridge", grid="log:1e-3:1e2:12").fit(X, y)
    joblib.dump(reg, tmp_path / "reg.joblib")
    back = joblib.load(tmp_path / "reg.joblib")
    np.testing.assert_array_equal(back.predict(X), reg.predict(X))


def test_inside_pipeline_cross_validate_and_grid_search(breast_cancer):
    X, y = breast_cancer
    pipe = make_pipeline(StandardScaler(), AgghooClassifier(family="logistic", method="agghoo"))
    scores = cross_validate(pipe, X, y, cv=MonteCarloSplit(3, 0.8, random_state=2))["test_score"]
    assert len(scores) == 3 and scores.min() > 0.9
    search = GridSearchCV(AgghooClassifier(), {"method": ["agghoo", "cv"]}, cv=3).fit(X, y)
    assert search.best_params_["method"] in ("agghoo", "cv")
    c = clone(AgghooClassifier(family="svc", grid="log:0.01:10:5"))
    assert c.get_params()["family"] == "svc" and not hasattr(c, "model_")


def test_same_seed_same_result_any_thread_count(diabetes):
    X, y = diabetes
    a = AgghooRegressor(family="lasso", random_state=4, n_jobs=1).fit(X, y)
    b = AgghooRegressor(family="lasso", random_state=4, n_jobs=2).fit(X, y)
    assert a.member_values_ == b.member_values_
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


def test_pandas_columns_are_feature_names(breast_cancer):
    pd = pytest.importorskip("pandas")
    X, y = breast_cancer
    frame = pd.DataFrame(X, columns=[f"c{j}" for j in range(X.shape[1])])
    clf = AgghooClassifier().fit(frame, y)
    assert list(clf.feature_names_in_) == list(frame.columns)
    assert clf.model_.feature_names == list(frame.columns)
    np.testing.assert_array_equal(clf.predict(frame), AgghooClassifier().fit(X, y).predict(X))


def test_missing_values_follow_the_missing_option(diabetes):
    X, y = diabetes
    X = X.copy()
    X[::7, 2] = np.nan
    with pytest.raises(ValueError):
        AgghooRegressor(family="ridge").fit(X, y)
    reg = AgghooRegressor(family="ridge", missing="median").fit(X, y)
    assert np.isfinite(reg.predict(X)).all()
    dropped = AgghooRegressor(family="ridge", missing="drop").fit(X, y)
    assert np.isfinite(dropped.predict(X[1:7])).all()


def test_text_columns_are_one_hot_encoded_like_by_hand():
    """A DataFrame's text column predicts exactly like its one-hot columns written by hand; a
    city never seen in training is an all-zero row; missing cities follow ``missing``."""
    pd = pytest.importorskip("pandas")
    cities = ["Paris", "Lyon", "Nice", "Lille"]
    n = 80
    city = [cities[(i * 7 + i // 3) % 4] for i in range(n)]
    X = pd.DataFrame({"age": [20.0 + (i * 37) % 60 for i in range(n)], "city": city, "income": [20.0 + ((i * 53) % 40) / 2 for i in range(n)]})
    y = np.array(["yes" if (c in ("Paris", "Nice")) != (i % 5 == 0) else "no" for i, c in enumerate(city)])

    def by_hand(frame):
        hot = {f"city={c}": (frame["city"] == c).astype(float) for c in sorted(cities)}
        return pd.concat([frame[["age"]], pd.DataFrame(hot, index=frame.index), frame[["income"]]], axis=1)

    new = pd.DataFrame({"age": [30.0, 40.0, 50.0], "city": ["Rome", "Paris", "Lille"], "income": [25.0, 31.0, 22.0]})
    for family in ("logistic", "knn"):
        raw = AgghooClassifier(family=family, random_state=2).fit(X, y)
        hand = AgghooClassifier(family=family, random_state=2).fit(by_hand(X), y)
        assert raw.report_["splits"] == hand.report_["splits"], family
        np.testing.assert_array_equal(raw.predict(new), hand.predict(by_hand(new)))
        np.testing.assert_array_equal(raw.predict_proba(new), hand.predict_proba(by_hand(new)))
    # categorical dtype and a declared numeric column are categorical too
    assert AgghooClassifier().fit(X.astype({"city": "category"}), y).categorical_features_in_ == [1]
    assert AgghooClassifier(categorical=["age"]).fit(X, y).categorical_features_in_ == [0, 1]
    with pytest.raises(ValueError, match="no column 'nope'"):
        AgghooClassifier(categorical=["nope"]).fit(X, y)
    # missing cities: refused by default, a level or the most frequent one with missing="median"
    holes = X.assign(city=[None if i % 9 == 4 else c for i, c in enumerate(city)])
    with pytest.raises(ValueError, match="column 'city' has missing values"):
        AgghooClassifier().fit(holes, y)
    for missing_category in ("level", "most_frequent"):
        clf = AgghooClassifier(missing="median", missing_category=missing_category).fit(holes, y)
        assert len(clf.predict(holes)) == n
        assert len(pickle.loads(pickle.dumps(clf)).predict(holes)) == n
    assert len(AgghooClassifier(missing="drop").fit(holes, y).model_.feature_names) == 3
    with pytest.raises(ValueError, match="missing_category"):
        AgghooClassifier(missing="median", missing_category="mode").fit(holes, y)


def test_treecv_refuses_text_columns_by_name():
    import pandas as pd
    import pytest

    from agghoo import treecv
    from agghoo.exceptions import ParameterError

    frame = pd.DataFrame({"a": np.arange(20.0), "city": ["Paris", "Lyon"] * 10})
    y = np.arange(20) % 2
    with pytest.raises(ParameterError, match=r"categorical columns \(city\) in TreeCV"):
        treecv(frame, y, learner="gaussian-nb", folds=4)


def _city_signal(n=80, seed=0):
    """``city`` (text) carries the signal, ``a``, ``b``, ``zip`` (numbers) are noise."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    city = np.array(["north", "south", "east", "west"])[np.arange(n) % 4]
    effect = pd.Series(city).map({"north": 0.0, "south": 3.0, "east": -3.0, "west": 6.0}).to_numpy()
    frame = pd.DataFrame({"a": rng.normal(size=n), "city": city, "b": rng.normal(size=n), "zip": rng.integers(0, 5, size=n)})
    return frame, effect + 0.3 * rng.normal(size=n)


def test_select_features_takes_text_columns_as_one_feature_each():
    from agghoo import estimate_risk, select_features

    frame, y = _city_signal()
    for kwargs in (
        dict(method="pearson", n_features=1),
        dict(method="mi", n_features=1),
        dict(method="sfs", n_features=1),
        dict(method="sfs", scorer="wrapper:knn:5", n_features=1),
        dict(method="forest-impurity", n_features=1),
    ):
        sel = select_features(frame, y, **kwargs)
        assert sel.names == ["city"] and sel.features == [1], kwargs
    # numbers declared categorical are one feature too, named as themselves
    sel = select_features(frame, y, method="pearson", n_features=4, categorical=["zip"])
    assert sorted(sel.names) == ["a", "b", "city", "zip"]
    lasso = select_features(frame, y, method="lasso")
    assert "city" in lasso.names and set(lasso.names) <= {"a", "b", "city", "zip"}
    # the wrapper's risk of {city} is estimate_risk's for the column alone on the same splits
    sel = select_features(frame, y, method="sfs", scorer="wrapper:knn:5", n_features=1, inner="vfold:5", random_state=3)
    risk = estimate_risk(frame[["city"]], y, family="knn", value=5, plan="vfold:5", random_state=3)
    assert sel.to_dict()["details"]["by_size"][0]["score"]["value"] == risk["squared"]
    # the honest evaluation encodes inside every outer fold; missing cities follow missing_category
    holes = frame.assign(city=[None if i % 7 == 3 else c for i, c in enumerate(frame["city"])])
    honest = {}
    for missing_category in ("level", "most_frequent"):
        report = select_features(
            holes, y, method="sfs", scorer="wrapper:knn:5", n_features=1, evaluate="vfold:4", missing="median", missing_category=missing_category
        ).to_dict()
        assert report["naive_selection"]["names"] == ["city"] and all(f["selection"]["names"] == ["city"] for f in report["folds"])
        honest[missing_category] = report["honest"]["mean"]
    assert honest["level"] != honest["most_frequent"]
    with pytest.raises(ValueError, match="missing_category"):
        select_features(holes, y, method="pearson", n_features=1, missing="median", missing_category="mode")


def test_the_wrapper_risk_of_a_text_column_equals_estimate_risk_on_the_same_splits():
    """The wrapper encodes the column inside each inner training set, as estimate_risk does: with
    a level (`rare`) in a few rows only, absent from some training sets, the two risks agree."""
    from agghoo import estimate_risk, select_features

    frame, y = _city_signal(60, seed=4)
    frame.loc[55:, "city"] = "rare"
    sel = select_features(frame, y, method="sfs", scorer="wrapper:ridge:0.1", n_features=1, inner="vfold:4", random_state=2)
    risk = estimate_risk(frame[["city"]], y, family="ridge", value=0.1, plan="vfold:4", random_state=2)
    assert sel.names == ["city"]
    assert sel.to_dict()["details"]["by_size"][0]["score"]["value"] == pytest.approx(risk["squared"], rel=1e-12)


def test_feature_selector_keeps_the_selected_text_columns_in_a_pipeline():
    from sklearn.base import clone
    from sklearn.model_selection import cross_validate
    from sklearn.pipeline import make_pipeline

    from agghoo import AgghooRegressor, FeatureSelector

    frame, y = _city_signal(120, seed=1)
    selector = FeatureSelector(method="sfs", scorer="wrapper:knn:5", n_features=1).fit(frame, y)
    assert selector.get_support().tolist() == [False, True, False, False]
    assert selector.get_feature_names_out().tolist() == ["city"]
    assert selector.categorical_features_in_ == [1]
    kept = selector.transform(frame)
    assert list(kept.columns) == ["city"] and kept["city"].tolist() == frame["city"].tolist()
    # columns given in another order are selected by name
    assert list(selector.transform(frame[["zip", "b", "city", "a"]]).columns) == ["city"]
    pipe = make_pipeline(FeatureSelector(method="pearson", n_features=1), AgghooRegressor(grid=[3, 5], n_splits=3))
    scores = cross_validate(clone(pipe), frame, y, cv=3)["test_score"]
    assert scores.min() > 0.8


def test_na_values_and_the_mostly_numeric_warning():
    """Text cells of the missing-value tokens (pandas' NA strings by default) are missing; a
    column categorical by its dtype although nearly all its values are numbers is a warning; a
    model fitted without missing values refuses a missing text cell at predict."""
    import warnings

    import agghoo

    pd = pytest.importorskip("pandas")
    from pandas._libs.parsers import STR_NA_VALUES

    assert set(agghoo.DEFAULT_NA_VALUES) == (set(STR_NA_VALUES) - {""}) | {"?"}
    n = 60
    city = [["Paris", "Lyon", "Nice"][i % 3] for i in range(n)]
    y = np.array([i % 2 for i in range(n)])
    X = pd.DataFrame({"a": [float(i % 7) for i in range(n)], "city": city})
    # `NULL` and `N/A` are missing (refused by default, kept with missing="median"); with
    # na_values=["-"] they are levels and `-` is missing.
    holes = X.assign(city=["NULL" if i == 4 else "N/A" if i == 9 else c for i, c in enumerate(city)])
    with pytest.raises(ValueError, match="column 'city' has missing values"):
        AgghooClassifier().fit(holes, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clf = AgghooClassifier(na_values=["-"]).fit(holes, y)
    assert len(clf.predict(holes)) == n
    assert json.loads(clf.model_.to_json())["schema"]["na_values"] == ["-"]
    with pytest.raises(ValueError, match="column 'city' has missing values"):
        clf.predict(holes.assign(city=["-"] * n))
    # missing="error": an empty or NULL text cell is refused at predict as at fit (the model too).
    plain = AgghooClassifier().fit(X, y)
    for cell in ("", "NULL", None):
        with pytest.raises(ValueError, match="column 'city' has missing values"):
            plain.predict(X.assign(city=[cell] + city[1:]))
    from agghoo.exceptions import DataError

    median = AgghooClassifier(missing="median").fit(X, y)
    with pytest.raises(DataError, match="row 0, column `city`: missing value, and the model was fitted on data without missing values"):
        median.predict(X.assign(city=[""] + city[1:]))
    # a column of numbers as text with a stray `-`: a warning naming it and the value
    numbers = X.assign(a=[str(i % 7) for i in range(n - 1)] + ["-"])
    with pytest.warns(UserWarning, match=r"column `a` is read as categorical although 59 of its 60 non-missing values are numbers, because of `-`"):
        AgghooClassifier().fit(numbers, y)
    with pytest.warns(UserWarning, match="all its 59 non-missing values are numbers"):
        AgghooClassifier(missing="median", na_values=["default", "-"]).fit(numbers, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        AgghooClassifier(categorical=["a"]).fit(numbers, y)
        agghoo.estimate_risk(holes, y, value=3, plan="vfold:3", na_values=["-"])
    with pytest.raises(ValueError, match="column 'city' has missing values"):
        agghoo.estimate_risk(holes, y, value=3, plan="vfold:3")
    with pytest.raises(TypeError, match="na_values"):
        AgghooClassifier(na_values="NULL").fit(X, y)


def test_load_model_says_what_made_the_model(tmp_path):
    """A loaded model's estimator names the family, procedure and aggregation in the file (it
    used to say family="knn" whatever the file held)."""
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    fitted = AgghooClassifier(family="logistic", grid=[0.01, 0.1], method="majhoo", aggregation="vote", n_splits=3).fit(X, y)
    fitted.save(tmp_path / "m.json")
    loaded = load_model(tmp_path / "m.json")
    assert (loaded.family, loaded.method, loaded.aggregation) == ("logistic", "majhoo", "vote")
    np.testing.assert_array_equal(loaded.predict(X[:20]), [str(c) for c in fitted.predict(X[:20])])


def test_integer_hyperparameters_come_from_the_registry():
    """The axes reported as ints are the registry's integer axes: the path axes on an integer scale
    and the settings that sweep as integers (none listed by hand in the package)."""
    import agghoo._native as native
    from agghoo._estimators import _INTEGER_AXES

    assert set(_INTEGER_AXES) == set(native.integer_axes()) >= {"k", "mtry", "min_samples_leaf", "max_depth", "degree"}
    assert not {"lambda", "C", "alpha", "gamma"} & set(_INTEGER_AXES)
