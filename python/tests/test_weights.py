"""Sample weights and class weights: scikit-learn's weighted fits where it has them, unit weights
change nothing, integer weights are repeated rows, refusals by name, and metadata routing."""

import numpy as np
import pytest
from sklearn import config_context
from sklearn.kernel_ridge import KernelRidge
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.model_selection import KFold, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, SVR
from sklearn.utils.class_weight import compute_sample_weight

from agghoo import AgghooClassifier, AgghooRegressor


def _weights(n, seed=0):
    """Positive and zero weights, irregular."""
    w = np.random.default_rng(seed).uniform(0.2, 3.0, size=n)
    w[::7] = 0.0
    return w


@pytest.fixture(scope="module")
def scaled_diabetes(diabetes):
    X, y = diabetes
    return np.ascontiguousarray(StandardScaler().fit_transform(X)), y


@pytest.fixture(scope="module")
def scaled_cancer(breast_cancer):
    X, y = breast_cancer
    return np.ascontiguousarray(StandardScaler().fit_transform(X)), y


def test_weighted_ridge_is_scikit_learns(scaled_diabetes):
    X, y = scaled_diabetes
    w = _weights(len(y))
    reg = AgghooRegressor(family="ridge", grid=[3.0], method="cv", plan="vfold:3").fit(X, y, sample_weight=w)
    theirs = Ridge(alpha=3.0).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(reg.predict(X), theirs.predict(X), rtol=1e-9)
    # other weights change the fit
    plain = AgghooRegressor(family="ridge", grid=[3.0], method="cv", plan="vfold:3").fit(X, y)
    assert np.abs(plain.predict(X) - reg.predict(X)).max() > 1e-3


def test_weighted_kernel_ridge_is_scikit_learns(scaled_diabetes):
    X, y = scaled_diabetes
    X, y = X[:150], y[:150]
    w = _weights(len(y), 1)
    params = {"kernel": "rbf", "gamma": 0.1}
    reg = AgghooRegressor(family="kernel-ridge", grid=[0.5], params=params, method="cv", plan="vfold:3").fit(X, y, sample_weight=w)
    theirs = KernelRidge(alpha=0.5, kernel="rbf", gamma=0.1).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(reg.predict(X), theirs.predict(X), rtol=1e-7, atol=1e-7)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_weighted_logistic_is_scikit_learns(scaled_cancer, n_classes):
    if n_classes == 2:
        X, y = scaled_cancer
    else:
        from sklearn.datasets import load_iris

        X, y = load_iris(return_X_y=True)
        X = np.ascontiguousarray(StandardScaler().fit_transform(X))
    w = _weights(len(y), 2)
    lam = 0.01
    clf = AgghooClassifier(family="logistic", grid=[lam], params={"tol": 1e-10}, method="cv", plan="vfold:3").fit(X, y, sample_weight=w)
    # ours: (1/Σw) Σ wᵢ lossᵢ + (λ/2)‖W‖², scikit-learn's C Σ wᵢ lossᵢ + ½‖W‖² with C = 1/(λ Σw)
    theirs = LogisticRegression(C=1.0 / (lam * w.sum()), tol=1e-12, max_iter=100_000).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(clf.predict_proba(X), theirs.predict_proba(X), atol=1e-6)


def test_weighted_svms_are_scikit_learns(scaled_cancer, scaled_diabetes):
    # per-sample C: row i's box bound is C wᵢ, scikit-learn's SVC / SVR(sample_weight=)
    X, y = scaled_cancer
    X, y = X[:200], y[:200]
    w = _weights(len(y), 3)
    params = {"grid": "C", "gamma": 0.05, "tol": 1e-10}
    clf = AgghooClassifier(family="svc", grid=[2.0], params=params, method="cv", plan="vfold:3").fit(X, y, sample_weight=w)
    theirs = SVC(C=2.0, gamma=0.05, tol=1e-10).fit(X, y, sample_weight=w)
    np.testing.assert_array_equal(clf.predict(X), theirs.predict(X))
    plain = AgghooClassifier(family="svc", grid=[2.0], params=params, method="cv", plan="vfold:3").fit(X, y)
    np.testing.assert_array_equal(plain.predict(X), SVC(C=2.0, gamma=0.05, tol=1e-10).fit(X, y).predict(X))
    X, y = scaled_diabetes
    X, y = X[:150], y[:150]
    w = _weights(len(y), 4)
    params = {"grid": "C", "gamma": 0.1, "epsilon": 5.0, "tol": 1e-10}
    reg = AgghooRegressor(family="svr", grid=[50.0], params=params, method="cv", plan="vfold:3").fit(X, y, sample_weight=w)
    theirs = SVR(C=50.0, gamma=0.1, epsilon=5.0, tol=1e-10).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(reg.predict(X), theirs.predict(X), rtol=1e-6, atol=1e-6)


def test_weighted_knn_votes(scaled_cancer):
    # k-NN: weighted votes among the k nearest rows; scaling all weights changes nothing
    X, y = scaled_cancer
    w = np.round(_weights(len(y), 5) * 4) / 4
    est = dict(family="knn", grid=[9], method="cv", plan="vfold:3")
    a = AgghooClassifier(**est).fit(X, y, sample_weight=w)
    b = AgghooClassifier(**est).fit(X, y, sample_weight=4 * w)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    plain = AgghooClassifier(**est).fit(X, y)
    assert np.abs(plain.predict_proba(X) - a.predict_proba(X)).max() > 0.05


def test_unit_weights_change_nothing(scaled_diabetes, scaled_cancer):
    X, y = scaled_diabetes
    reg = dict(family="ridge", grid="log:1e-3:1e2:6", method="agghoo", n_splits=4)
    a, b = AgghooRegressor(**reg).fit(X, y), AgghooRegressor(**reg).fit(X, y, sample_weight=np.ones(len(y)))
    assert a.report_ == b.report_
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    X, y = scaled_cancer
    clf = dict(family="logistic", grid="log:1e-3:1e-1:4", method="majhoo", n_splits=3)
    a, b = AgghooClassifier(**clf).fit(X, y), AgghooClassifier(**clf).fit(X, y, sample_weight=np.ones(len(y)))
    assert a.report_ == b.report_
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))


def test_integer_weights_are_repeated_rows_on_a_fixed_split(scaled_diabetes):
    X, y = scaled_diabetes
    n = 120
    X, y = X[:n], y[:n]
    counts = np.array([1, 2, 0, 3] * (n // 4))
    train, validation = np.arange(90), np.arange(90, n)
    rows = np.repeat(np.arange(n), counts)
    copies_train = np.flatnonzero(rows < 90)
    copies_validation = np.flatnonzero(rows >= 90)
    est = dict(family="ridge", grid="log:1e-3:1e3:9", method="holdout")
    weighted = AgghooRegressor(**est, cv=[(train, validation)]).fit(X, y, sample_weight=counts)
    repeated = AgghooRegressor(**est, cv=[(copies_train, copies_validation)]).fit(X[rows], y[rows])
    assert weighted.best_params_ == repeated.best_params_
    np.testing.assert_allclose(weighted.cv_results_["mean_test_score"], repeated.cv_results_["mean_test_score"], rtol=1e-9)
    np.testing.assert_allclose(weighted.predict(X), repeated.predict(X), rtol=1e-9)


def test_a_family_without_weighted_fits_refuses_them_by_name(scaled_cancer):
    X, y = scaled_cancer
    with pytest.raises(Exception, match=r"sample_weight.*logistic.*l1"):
        AgghooClassifier(family="logistic", grid=[1e-3], params={"penalty": "l1"}, n_splits=2).fit(X, y, sample_weight=np.ones(len(y)) * 2)
    with pytest.raises(Exception, match=r"row 3"):
        AgghooClassifier(family="logistic", n_splits=2).fit(X, y, sample_weight=np.r_[1.0, 1.0, 1.0, -1.0, np.ones(len(y) - 4)])
    with pytest.raises(ValueError, match="sample_weight"):
        AgghooClassifier(family="logistic", n_splits=2).fit(X, y, sample_weight=np.ones(3))
    with pytest.raises(ValueError, match="scoring="):
        AgghooClassifier(family="logistic", scoring="f1", n_splits=2).fit(X, y, sample_weight=np.ones(len(y)) * 2)


def test_class_weight_multiplies_sample_weight(scaled_cancer):
    X, y = scaled_cancer
    w = _weights(len(y), 3)
    est = dict(family="logistic", grid="log:1e-3:1e-1:3", method="cv", plan="vfold:3")
    balanced = AgghooClassifier(**est, class_weight="balanced").fit(X, y, sample_weight=w)
    by_hand = AgghooClassifier(**est).fit(X, y, sample_weight=w * compute_sample_weight("balanced", y))
    assert balanced.report_ == by_hand.report_
    as_dict = AgghooClassifier(**est, class_weight={0: 3.0}).fit(X, y)
    assert as_dict.report_ == AgghooClassifier(**est).fit(X, y, sample_weight=np.where(y == 0, 3.0, 1.0)).report_
    assert as_dict.report_ != AgghooClassifier(**est).fit(X, y).report_
    with pytest.raises(ValueError, match="class_weight"):
        AgghooRegressor(class_weight="balanced").fit(X, y.astype(float))


def test_metadata_routing_brings_sample_weight(diabetes):
    X, y = diabetes
    w = _weights(len(y), 4)
    est = dict(family="ridge", grid="log:1e-3:1e2:5", method="cv", plan="vfold:3")
    with config_context(enable_metadata_routing=True):
        scaler = StandardScaler().set_fit_request(sample_weight=False)
        pipe = make_pipeline(scaler, AgghooRegressor(**est).set_fit_request(sample_weight=True))
        pipe.fit(X, y, sample_weight=w)
        routed = AgghooRegressor(**est).set_fit_request(sample_weight=True).set_score_request(sample_weight=True)
        scores = cross_validate(routed, X, y, cv=KFold(3), params={"sample_weight": w})
    direct = AgghooRegressor(**est).fit(StandardScaler().fit_transform(X), y, sample_weight=w)
    np.testing.assert_allclose(pipe.predict(X), direct.predict(StandardScaler().fit_transform(X)), rtol=1e-12)
    assert len(scores["test_score"]) == 3


def test_estimator_gets_the_weights_and_scores_are_weighted(scaled_diabetes):
    X, y = scaled_diabetes
    w = _weights(len(y), 5)
    grid = {"alpha": [0.1, 10.0, 1000.0]}
    cv = KFold(3)
    reg = AgghooRegressor(estimator=Ridge(), param_grid=grid, method="cv", cv=cv).fit(X, y, sample_weight=w)
    best = reg.best_params_["alpha"]
    np.testing.assert_allclose(reg.predict(X), Ridge(alpha=best).fit(X, y, sample_weight=w).predict(X), rtol=1e-12)
    train, validation = next(cv.split(X))
    fitted = Ridge(alpha=0.1).fit(X[train], y[train], sample_weight=w[train])
    assert reg.cv_results_["split0_test_score"][0] == pytest.approx(fitted.score(X[validation], y[validation], sample_weight=w[validation]), rel=1e-12)


def test_estimate_risk_and_compare_take_weights_as_the_cli_weight_column(tmp_path, cli, diabetes):
    """`estimate_risk` / `compare` with `sample_weight` give the CLI's `--weight-column` result on
    the same rows; unit weights change nothing, other weights change the estimate, and a
    scikit-learn estimator as family refuses them by name."""
    import json

    import agghoo
    from conftest import write_csv
    from sklearn.linear_model import Ridge

    X, y = diabetes
    w = _weights(len(y), 3)
    ridge = dict(family="ridge", value=0.1, plan="vfold:5", random_state=4)
    plain = agghoo.estimate_risk(X, y, **ridge)
    assert agghoo.estimate_risk(X, y, sample_weight=np.ones(len(y)), **ridge).to_dict() == plain.to_dict()
    weighted = agghoo.estimate_risk(X, y, sample_weight=w, **ridge)
    assert weighted["squared"] != plain["squared"]
    data = write_csv(tmp_path / "d.csv", np.column_stack([X, w]), y)
    cli_out = json.loads(cli("estimate", "--data", data, "--target", "y", "--weight-column", f"x{X.shape[1]}", "--family", "ridge",
                             "--param", 0.1, "--plan", "vfold", "--splits", 5, "--no-closed-form", "--seed", 4, "--json"))["result"]
    ours = agghoo.estimate_risk(X, y, sample_weight=w, closed_form=False, **ridge)
    assert ours.to_dict()["estimate"] == cli_out["estimate"]
    cmp = dict(family="ridge", grid=[0.01, 0.1, 1.0], methods=["cv"], outer="vfold:3", inner="vfold:3", random_state=2)
    assert agghoo.compare(X, y, sample_weight=np.ones(len(y)), **cmp).procedures == agghoo.compare(X, y, **cmp).procedures
    assert agghoo.compare(X, y, sample_weight=w, **cmp).procedures != agghoo.compare(X, y, **cmp).procedures
    with pytest.raises(ValueError, match="sample_weight"):
        agghoo.estimate_risk(X, y, family=Ridge(), sample_weight=w)
    with pytest.raises(ValueError, match="sample_weight: 3 weights"):
        agghoo.estimate_risk(X, y, sample_weight=[1.0, 2.0, 3.0], **ridge)
