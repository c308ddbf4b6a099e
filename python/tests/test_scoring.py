"""scoring= and cv= drive the built-in families: the path on the caller's folds, scored by any
scikit-learn scorer, equals cross_val_score of the matching scikit-learn estimator."""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.metrics import make_scorer, f1_score
from sklearn.model_selection import GroupKFold, KFold, StratifiedKFold, cross_val_score
from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, SVR

from agghoo import AgghooClassifier, AgghooRegressor

K = list(range(1, 30, 4))


def _curve(make, values, X, y, cv, scoring, groups=None):
    return np.array([cross_val_score(make(v), X, y, cv=cv, scoring=scoring, groups=groups).mean() for v in values])


def test_knn_f1_macro_on_kfold_equals_cross_val_score(breast_cancer):
    X, y = breast_cancer
    est = AgghooClassifier(family="knn", grid=K, method="cv", cv=KFold(3), scoring="f1_macro").fit(X, y)
    expected = _curve(KNeighborsClassifier, K, X, y, KFold(3), "f1_macro")
    np.testing.assert_allclose(est.cv_results_["mean_test_score"], expected, rtol=0, atol=1e-9)
    # The curve's argmax is CV's choice, refitted on all rows.
    assert est.member_values_ == [K[int(np.argmax(expected))]]


def test_a_scorer_object_and_a_stratified_splitter_are_used(breast_cancer):
    X, y = breast_cancer
    cv = StratifiedKFold(3, shuffle=True, random_state=1)
    scorer = make_scorer(f1_score, average="macro")
    est = AgghooClassifier(family="knn", grid=K, method="cv", cv=cv, scoring=scorer).fit(X, y)
    assert len(est.report_["splits"]) == 3
    assert [s["n_validation"] for s in est.report_["splits"]] == [len(te) for _, te in cv.split(X, y)]
    expected = _curve(KNeighborsClassifier, K, X, y, cv, "f1_macro")
    np.testing.assert_allclose(est.cv_results_["mean_test_score"], expected, rtol=0, atol=1e-9)


def test_cv_without_scoring_evaluates_those_folds(breast_cancer):
    X, y = breast_cancer
    est = AgghooClassifier(family="knn", grid=K, method="cv", cv=StratifiedKFold(3)).fit(X, y)
    assert len(est.report_["splits"]) == 3
    # The library's 0-1 loss on those folds: score = accuracy - 1.
    expected = _curve(KNeighborsClassifier, K, X, y, StratifiedKFold(3), "accuracy") - 1
    np.testing.assert_allclose(est.cv_results_["mean_test_score"], expected, rtol=0, atol=1e-12)


def test_a_group_splitter_gets_fit_groups(breast_cancer):
    X, y = breast_cancer
    groups = np.arange(len(y)) % 7
    est = AgghooClassifier(family="knn", grid=K, method="cv", cv=GroupKFold(3), scoring="accuracy")
    est.fit(X, y, groups=groups)
    expected = _curve(KNeighborsClassifier, K, X, y, GroupKFold(3), "accuracy", groups)
    np.testing.assert_allclose(est.cv_results_["mean_test_score"], expected, rtol=0, atol=1e-12)
    for split, (_, test) in zip(est.report_["splits"], GroupKFold(3).split(X, y, groups)):
        assert split["n_validation"] == len(test)


def test_an_unknown_scorer_raises(breast_cancer):
    X, y = breast_cancer
    with pytest.raises(ValueError, match="not_a_scorer"):
        AgghooClassifier(family="knn", scoring="not_a_scorer").fit(X, y)


def test_cv_and_plan_together_are_refused(breast_cancer):
    X, y = breast_cancer
    with pytest.raises(ValueError, match="cv and plan both give the splits"):
        AgghooClassifier(family="knn", cv=3, plan="vfold:5").fit(X, y)


def test_a_scorer_the_family_cannot_serve_is_named(breast_cancer):
    X, y = breast_cancer
    with pytest.raises(ValueError, match="neg_log_loss.*svc.*predict_proba"):
        AgghooClassifier(family="svc", scoring="neg_log_loss", cv=3).fit(X, y)


def test_majhoo_members_are_each_splits_best_score(breast_cancer):
    X, y = breast_cancer
    cv = KFold(4, shuffle=True, random_state=2)
    est = AgghooClassifier(family="knn", grid=K, method="majhoo", cv=cv, scoring="roc_auc").fit(X, y)
    for j, (train, test) in enumerate(cv.split(X, y)):
        scores = [cross_val_score(KNeighborsClassifier(k), X, y, cv=[(train, test)], scoring="roc_auc")[0] for k in K]
        np.testing.assert_allclose(est.cv_results_[f"split{j}_test_score"], scores, rtol=0, atol=1e-12)
        assert est.member_values_[j] == K[int(np.argmax(scores))]
    # The majority vote of those members, each the k-NN fitted on its training set.
    votes = np.array([KNeighborsClassifier(int(k)).fit(X[tr], y[tr]).predict(X) for k, (tr, _) in zip(est.member_values_, cv.split(X, y))])
    clear = np.abs(votes.mean(axis=0) - 0.5) > 0.3  # no tie to break
    np.testing.assert_array_equal(est.predict(X)[clear], (votes.mean(axis=0) > 0.5)[clear])


def test_holdout_scores_the_first_split_only(diabetes):
    X, y = diabetes
    cv = KFold(3)
    est = AgghooRegressor(family="ridge", grid=[0.01, 1.0, 100.0], method="holdout", cv=cv, scoring="r2").fit(X, y)
    assert len(est.report_["splits"]) == 1
    train, test = next(cv.split(X, y))
    expected = [Ridge(alpha=a).fit(X[train], y[train]).score(X[test], y[test]) for a in [0.01, 1.0, 100.0]]
    np.testing.assert_allclose(est.cv_results_["split0_test_score"], expected, rtol=1e-9)


@pytest.mark.parametrize("method", ["agghoo", "subagging"])
def test_a_scorer_without_cv_scores_the_splits_the_procedure_evaluates(diabetes, method):
    # Without cv=, the plan's splits (subagging: the inner hold-outs, drawn by the library's
    # procedure); the scorer of the default loss (squared error) chooses what the loss chooses.
    X, y = diabetes
    grid = [0.001, 0.01, 0.1, 1.0, 10.0]
    by_loss = AgghooRegressor(family="ridge", grid=grid, method=method, random_state=4).fit(X, y)
    by_scorer = AgghooRegressor(family="ridge", grid=grid, method=method, scoring="neg_mean_squared_error", random_state=4).fit(X, y)
    assert by_scorer.report_["member_grid_indices"] == by_loss.report_["member_grid_indices"]
    for ours, theirs in zip(by_scorer.report_["splits"], by_loss.report_["splits"]):
        assert ours["n_validation"] == theirs["n_validation"]
        np.testing.assert_allclose(ours["risks"], theirs["risks"], rtol=1e-9)


# Per family, the estimators that match: the curve equals cross_val_score on the same folds.
@pytest.fixture(scope="module")
def scaled_cancer(breast_cancer):
    X, y = breast_cancer
    return StandardScaler().fit_transform(X)[:540], y[:540]  # three folds of 180: 360 training rows each


@pytest.fixture(scope="module")
def scaled_diabetes(diabetes):
    X, y = diabetes
    return StandardScaler().fit_transform(X), (y - y.mean()) / y.std()


CV = KFold(3, shuffle=True, random_state=0)


def test_ridge_curve(scaled_diabetes):
    X, y = scaled_diabetes
    alphas = [0.01, 0.1, 1.0, 10.0]
    est = AgghooRegressor(family="ridge", grid=alphas, method="cv", cv=CV, scoring="neg_mean_squared_error").fit(X, y)
    expected = _curve(lambda a: Ridge(alpha=a), alphas, X, y, CV, "neg_mean_squared_error")
    np.testing.assert_allclose(est.cv_results_["mean_test_score"], expected, rtol=1e-9)


def test_knn_regression_curve(scaled_diabetes):
    X, y = scaled_diabetes
    ks = [1, 2, 5, 10, 20]
    est = AgghooRegressor(family="knn", grid=ks, method="cv", cv=CV, scoring="r2").fit(X, y)
    np.testing.assert_allclose(est.cv_results_["mean_test_score"], _curve(KNeighborsRegressor, ks, X, y, CV, "r2"), rtol=0, atol=1e-12)


def test_logistic_curve(scaled_cancer):
    X, y = scaled_cancer
    Cs = [10.0, 1.0, 0.1, 0.01]
    lambdas = [1 / (360 * C) for C in Cs]  # C = 1 / (n_train λ)
    est = AgghooClassifier(family="logistic", grid=lambdas, params={"tol": 1e-10}, method="cv", cv=CV, scoring="neg_log_loss")
    est.fit(X, y)
    expected = _curve(lambda C: LogisticRegression(C=C, tol=1e-12, max_iter=100_000), Cs, X, y, CV, "neg_log_loss")
    np.testing.assert_allclose(est.cv_results_["mean_test_score"], expected, rtol=0, atol=1e-6)


def test_svc_curve(scaled_cancer):
    X, y = scaled_cancer
    Cs = [0.01, 0.1, 1.0, 10.0]
    est = AgghooClassifier(family="svc", grid=Cs, params={"grid": "C"}, method="cv", cv=CV, scoring="roc_auc").fit(X, y)
    expected = _curve(lambda C: SVC(C=C), Cs, X, y, CV, "roc_auc")
    # Decision values agree to the solvers' tolerance (both stop at LIBSVM's gap 1e-3).
    np.testing.assert_allclose(est.cv_results_["mean_test_score"], expected, rtol=0, atol=1e-4)


def test_svr_curve(scaled_diabetes):
    X, y = scaled_diabetes
    Cs = [0.01, 0.1, 1.0, 10.0]
    est = AgghooRegressor(family="svr", grid=Cs, params={"grid": "C"}, method="cv", cv=CV, scoring="neg_mean_absolute_error")
    est.fit(X, y)
    expected = _curve(lambda C: SVR(C=C), Cs, X, y, CV, "neg_mean_absolute_error")
    # Both solvers stop at LIBSVM's gap 1e-3.
    np.testing.assert_allclose(est.cv_results_["mean_test_score"], expected, rtol=0, atol=1e-4)


def test_missing_rows_dropped_leave_the_folds(breast_cancer):
    X, y = breast_cancer
    X = X.copy()
    X[::10, 0] = np.nan
    est = AgghooClassifier(family="knn", grid=K, method="cv", cv=KFold(3), scoring="accuracy", missing="drop").fit(X, y)
    keep = ~np.isnan(X).any(axis=1)
    folds = [(tr[keep[tr]], te[keep[te]]) for tr, te in KFold(3).split(X)]
    assert [s["n_validation"] for s in est.report_["splits"]] == [len(te) for _, te in folds]
