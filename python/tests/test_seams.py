"""The Python package uses the library's seams: its losses, its missing-value policies, its checks of the data."""

import numpy as np
import pytest
from sklearn import metrics
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from agghoo import _native
from agghoo._functions import _loss_of


@pytest.fixture(scope="module")
def binary(breast_cancer):
    X, y = breast_cancer
    labels = np.where(y == 1, "benign", "malignant")
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=200)).fit(X[::2], labels[::2])
    return model, X[1::2], labels[1::2]


@pytest.fixture(scope="module")
def real(diabetes):
    X, y = diabetes
    return LinearRegression().fit(X[::2], y[::2]), X[1::2], y[1::2]


def test_estimator_classification_losses_are_the_librarys(binary):
    model, X, y = binary
    s = model.decision_function(X)
    sign = np.where(y == model.classes_[1], 1.0, -1.0)
    expected = {
        "01": 1 - metrics.accuracy_score(y, model.predict(X)),
        "logloss": metrics.log_loss(y, model.predict_proba(X), labels=model.classes_),
        "hinge": metrics.hinge_loss(y, s),
        "logistic": float(np.mean(np.logaddexp(0.0, -sign * s))),
    }
    for name, value in expected.items():
        loss, score = _loss_of(name, True)
        assert loss == name
        assert score(model, X, y) == pytest.approx(value, rel=1e-12, abs=1e-15), name


def test_estimator_regression_losses_are_the_librarys(real):
    model, X, y = real
    f = model.predict(X)
    expected = {
        "squared": metrics.mean_squared_error(y, f),
        "absolute": metrics.mean_absolute_error(y, f),
        "pinball:0.9": metrics.mean_pinball_loss(y, f, alpha=0.9),
        "epsilon:10": float(np.mean(np.maximum(np.abs(y - f) - 10, 0))),
    }
    for name, value in expected.items():
        loss, score = _loss_of(name, False)
        assert loss == name
        assert score(model, X, y) == pytest.approx(value, rel=1e-12), name
    assert _loss_of(None, False)[0] == "squared" and _loss_of(None, True)[0] == "01"


def test_estimator_losses_refuse_by_name(binary, real):
    model, X, y = binary
    with pytest.raises(ValueError, match="loss.*one of 01, squared"):
        _loss_of("nope", True)
    with pytest.raises(ValueError, match="task mismatch: loss `squared` is for Regression"):
        _loss_of("squared", True)
    nb = GaussianNB().fit(X, y)
    with pytest.raises(ValueError, match="'hinge' needs decision scores: GaussianNB has no decision_function"):
        _loss_of("hinge", True)[1](nb, X, y)
    # a label the model never saw counts as an error (0–1) with its probability 0
    y_new = y.copy()
    y_new[:3] = "other"
    assert _loss_of("01", True)[1](model, X, y_new) == pytest.approx(np.mean(model.predict(X) != y_new))


def test_loss_risk_checks_the_shapes():
    with pytest.raises(ValueError, match="proba"):
        _native.loss_risk("logloss", [0.0, 1.0], [0.0, 1.0], n_classes=2, proba=[0.5, 0.5, 0.5])
    with pytest.raises(ValueError, match="decision"):
        _native.loss_risk("hinge", [0.0, 1.0], [0.0, 1.0], n_classes=2, decision=[0.5])
    with pytest.raises(ValueError, match="class indices"):
        _native.loss_risk("01", [0.0, 1.0], [0.0, 2.0], n_classes=2)
    with pytest.raises(ValueError, match="one per validation row"):
        _native.loss_risk("squared", [0.0, 1.0], [0.0])
    assert _native.loss_risk("squared", [0.0, 2.0], [1.0, 1.0], sample_weight=[1.0, 3.0]) == 1.0


@pytest.fixture(scope="module")
def holes(diabetes):
    """The diabetes data with NaN in some rows, and the mask of the complete rows."""
    X, y = diabetes
    X = X[:150].copy()
    y = y[:150]
    X[::7, 2] = np.nan
    X[3::11, 5] = np.nan
    return X, y, ~np.isnan(X).any(axis=1)


def test_functions_drop_rows_with_missing_values_as_the_estimators_do(holes):
    import agghoo

    X, y, keep = holes
    args = {"family": "ridge", "plan": "vfold:4", "random_state": 3}
    dropped = agghoo.estimate_risk(X, y, value=1.0, missing="drop", **args)
    assert dropped.to_dict() == agghoo.estimate_risk(X[keep], y[keep], value=1.0, **args).to_dict()
    cmp = {"family": "ridge", "grid": [0.1, 10.0], "outer": "vfold:3", "inner": "vfold:3", "random_state": 3}
    assert agghoo.compare(X, y, missing="drop", **cmp).to_dict() == agghoo.compare(X[keep], y[keep], **cmp).to_dict()
    sel = {"method": "pearson", "n_features": 3, "evaluate": "vfold:3", "random_state": 3}
    assert agghoo.select_features(X, y, missing="drop", **sel).to_dict() == agghoo.select_features(X[keep], y[keep], **sel).to_dict()
    # the estimators: the same rows
    reg = agghoo.AgghooRegressor(family="ridge", grid=[0.1, 10.0], plan="vfold:3", missing="drop", random_state=3).fit(X, y)
    same = agghoo.AgghooRegressor(family="ridge", grid=[0.1, 10.0], plan="vfold:3", random_state=3).fit(X[keep], y[keep])
    assert reg.member_values_ == same.member_values_
    np.testing.assert_array_equal(reg.predict(X[keep]), same.predict(X[keep]))


def test_dropping_restates_the_callers_folds_and_weights(holes):
    import agghoo
    from sklearn.model_selection import KFold

    X, y, keep = holes
    folds = list(KFold(3, shuffle=True, random_state=0).split(X))
    w = np.linspace(1.0, 2.0, len(y))
    est = agghoo.estimate_risk(X, y, family="ridge", value=1.0, plan=folds, sample_weight=w, missing="drop")
    new = np.cumsum(keep) - 1
    kept_folds = [(new[t[keep[t]]], new[v[keep[v]]]) for t, v in folds]
    by_hand = agghoo.estimate_risk(X[keep], y[keep], family="ridge", value=1.0, plan=kept_folds, sample_weight=w[keep])
    assert est.to_dict() == by_hand.to_dict()
    with pytest.raises(ValueError, match="missing must be 'error', 'drop' or 'median', got 'zero'"):
        agghoo.estimate_risk(X, y, family="ridge", value=1.0, missing="zero")
    with pytest.raises(ValueError, match="n_samples=1"):
        agghoo.select_features(X[:2], y[:2], method="pearson", n_features=1, missing="drop")


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_native_calls_refuse_nan_by_row_and_column_unless_the_policy_imputes(diabetes, bad):
    import json

    X, y = diabetes
    X = X[:60].copy()
    y = np.ascontiguousarray(y[:60])
    X[7, 2] = bad
    names = [f"c{j}" for j in range(X.shape[1])]
    family = json.loads(_native.family_spec_json("ridge", "1"))
    plan = json.loads(_native.plan_spec_json("vfold:3"))
    calls = {
        "select": lambda data: _native.select(X, y, json.dumps({"family": family, "plan": plan}), data),
        "estimate": lambda data: _native.estimate(X, y, json.dumps({"family": family, "value": 1.0, "plan": plan}), data),
        "compare": lambda data: _native.compare(X, y, json.dumps({"family": family, "inner": plan, "outer": plan}), data),
        "select_features": lambda data: _native.select_features(X, y, json.dumps({"method": "pearson", "n_features": "2"}), data),
    }
    for name, call in calls.items():
        for missing in (None, "error", "drop"):
            data = {"feature_names": names}
            if missing is not None:
                data["missing"] = missing
            with pytest.raises(ValueError, match=r"row 7, column `c2`: (NaN|inf) is not a finite number"):
                call(data)
        if bad != bad:  # NaN: imputed with median
            call({"feature_names": names, "missing": "median"})
    with pytest.raises(ValueError, match="missing"):
        calls["select"]({"feature_names": names, "missing": "zero"})


def test_native_select_features_takes_data_and_run(breast_cancer):
    import json

    X, y = breast_cancer
    X = np.ascontiguousarray(X[:120])
    y = np.ascontiguousarray(y[:120], dtype=np.float64)
    data = {"feature_names": [f"x{j}" for j in range(X.shape[1])], "class_names": ["a", "b"]}
    spec = {"method": "pearson", "n_features": "2", "evaluate": "vfold:3"}
    local = json.loads(_native.select_features(X, y, json.dumps(spec), data, {"threads": 1, "job": False, "verbose": 0}))
    assert local == json.loads(_native.select_features(X, y, json.dumps(spec), data))
    job = _native.select_features(X, y, json.dumps(spec), data, {"threads": 1, "job": True, "verbose": 0})
    assert isinstance(job, _native.Job)
    with pytest.raises(ValueError, match="evaluate"):
        _native.select_features(X, y, json.dumps({"method": "pearson", "n_features": "2"}), data, {"threads": 1, "job": True, "verbose": 0})


def test_a_regressor_on_integer_targets_is_scored_as_a_regressor():
    """estimate_risk with a scikit-learn regressor and integer targets: the task is the
    estimator's (squared loss on its real predictions), as scikit-learn's scorers decide, not the
    targets' dtype (it used to score the regressor's predictions with the 0-1 loss)."""
    from sklearn.neighbors import KNeighborsClassifier

    import agghoo

    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 3))
    y = np.rint(X @ [2.0, -1.0, 0.5] * 3).astype(int)
    reg = agghoo.estimate_risk(X, y, family=LinearRegression(), plan="vfold:5", random_state=0)
    summary = reg.summaries[0]
    assert summary["loss"] == "squared", summary
    assert summary["estimate"] > 0.0
    clf = agghoo.estimate_risk(X, y > 0, family=KNeighborsClassifier(), plan="vfold:5", random_state=0)
    summary = clf.summaries[0]
    assert summary["loss"] == "01", summary
