"""Agghoo over any scikit-learn estimator: the engine's rules on fits made in Python."""

import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.model_selection import GridSearchCV
from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from agghoo import AgghooClassifier, AgghooRegressor, MonteCarloSplit, VFold


def test_cv_selects_what_grid_search_selects(breast_cancer):
    X, y = breast_cancer
    X, y = X[:500], y[:500]  # five folds of 100 rows: the size-weighted mean is the plain mean
    pipe = make_pipeline(StandardScaler(), SVC())
    grid = {"svc__C": [0.01, 0.1, 1.0, 10.0, 100.0]}
    cv = VFold(5, random_state=3)
    ours = AgghooClassifier(estimator=pipe, param_grid=grid, method="cv", cv=cv).fit(X, y)
    theirs = GridSearchCV(pipe, grid, cv=cv).fit(X, y)
    assert ours.best_params_ == theirs.best_params_
    np.testing.assert_allclose(ours.cv_results_["mean_test_score"], theirs.cv_results_["mean_test_score"], rtol=1e-12)
    np.testing.assert_array_equal(ours.cv_results_["rank_test_score"], theirs.cv_results_["rank_test_score"])
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))


def test_agghoo_averages_the_hold_out_winners(diabetes):
    X, y = diabetes
    grid = {"alpha": [1e-3, 1e-2, 1e-1, 1.0, 10.0]}
    cv = MonteCarloSplit(6, 0.8, random_state=5)
    reg = AgghooRegressor(estimator=Ridge(), param_grid=grid, method="agghoo", cv=cv).fit(X, y)
    by_hand = []
    for (train, validation), params in zip(cv.split(X), reg.selected_params_):
        risks = [np.mean((Ridge(alpha=a).fit(X[train], y[train]).predict(X[validation]) - y[validation]) ** 2) for a in grid["alpha"]]
        assert params["alpha"] == grid["alpha"][int(np.argmin(risks))]
        by_hand.append(Ridge(**params).fit(X[train], y[train]).predict(X))
    np.testing.assert_allclose(reg.predict(X), np.mean(by_hand, axis=0), rtol=1e-12)


def test_majhoo_votes_and_pickles(breast_cancer):
    X, y = breast_cancer
    clf = AgghooClassifier(
        estimator=make_pipeline(StandardScaler(), LogisticRegression()),
        param_grid={"logisticregression__C": [0.001, 0.1, 10.0]},
        method="majhoo",
        aggregation="vote",
        cv=MonteCarloSplit(5, 0.7, random_state=2),
    ).fit(X, y)
    votes = np.array([m.predict(X) for m in clf.members_])
    majority = (votes.sum(axis=0) * 2 > len(votes)).astype(int)  # five members: never tied
    np.testing.assert_array_equal(clf.predict(X), clf.classes_[majority])
    np.testing.assert_allclose(clf.predict_proba(X)[:, 1], votes.mean(axis=0))
    back = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(back.predict(X), clf.predict(X))
    assert clone(clf).get_params()["method"] == "majhoo"


def test_soft_vote_and_parallel_fits_give_the_same_choices(breast_cancer):
    X, y = breast_cancer
    pipe = make_pipeline(StandardScaler(), LogisticRegression())
    kwargs = dict(estimator=pipe, param_grid={"logisticregression__C": [0.01, 1.0]}, cv=MonteCarloSplit(4, 0.8, random_state=1))
    one = AgghooClassifier(**kwargs, aggregation="soft", n_jobs=1).fit(X, y)
    two = AgghooClassifier(**kwargs, aggregation="soft", n_jobs=2).fit(X, y)
    assert one.selected_params_ == two.selected_params_
    proba = one.predict_proba(X)
    np.testing.assert_array_equal(one.predict(X), one.classes_[np.argmax(proba, axis=1)])


def _wavy(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    return X, np.sin(2 * X[:, 0]) + X[:, 1] ** 2 + rng.normal(scale=0.3, size=n)


@pytest.mark.parametrize(
    "method, one_se", [("holdout", False), ("cv", False), ("cv", True), ("agghoo", False), ("acv", False), ("subagging", False)]
)
def test_every_method_chooses_the_members_the_compiled_path_chooses(method, one_se):
    # The same splits, the same candidates (k-NN's k), the same losses: the library's procedure
    # picks the same members over a scikit-learn estimator as over the built-in family.
    X, y = _wavy(240, 11)
    ks = list(range(1, 30, 2))
    folds = list(MonteCarloSplit(5, 0.75, random_state=2).split(X))
    built_in = AgghooRegressor(family="knn", grid=ks, method=method, one_se=one_se, cv=folds, random_state=7).fit(X, y)
    # The family's simplest k is the largest: the one-SE rule takes the first candidate as the simplest.
    order = ks[::-1] if one_se else ks
    wrapped = AgghooRegressor(
        estimator=KNeighborsRegressor(),
        param_grid={"n_neighbors": order},
        method=method,
        one_se=one_se,
        cv=folds,
        random_state=7,
        scoring="neg_mean_squared_error",  # the family's squared loss
    ).fit(X, y)
    report = built_in.report_
    assert [order[i] for i in wrapped.selected_index_] == [s["selected_value"] for s in report["splits"]]
    assert [m.n_neighbors for m in wrapped.members_] == [ks[i] for i in report["member_grid_indices"]]
    refitted = method in ("cv", "acv")
    assert wrapped.member_splits_ == ([None] * len(wrapped.members_) if refitted else list(range(len(wrapped.members_))))
    np.testing.assert_allclose(wrapped.predict(X), built_in.predict(X), rtol=1e-9)


def test_majhoo_chooses_the_members_the_compiled_path_chooses():
    X, y = _wavy(240, 12)
    y = (y > np.median(y)).astype(int)
    ks = list(range(1, 30, 2))
    folds = list(MonteCarloSplit(5, 0.75, random_state=3).split(X))
    built_in = AgghooClassifier(family="knn", grid=ks, method="majhoo", cv=folds).fit(X, y)
    wrapped = AgghooClassifier(estimator=KNeighborsClassifier(), param_grid={"n_neighbors": ks}, method="majhoo", cv=folds).fit(X, y)
    assert [m.n_neighbors for m in wrapped.members_] == [ks[i] for i in built_in.report_["member_grid_indices"]]
    np.testing.assert_array_equal(wrapped.predict(X), built_in.predict(X))


def test_a_method_the_candidates_cannot_run_is_refused_by_name():
    X, y = _wavy(60, 13)
    with pytest.raises(ValueError, match=r"method ekcv over a list of candidates is not supported: it fits the mean"):
        AgghooRegressor(estimator=Ridge(), param_grid={"alpha": [0.1, 1.0]}, method="ekcv").fit(X, y)
    with pytest.raises(ValueError, match=r"Majhoo \(majority vote\) is for classification"):
        AgghooRegressor(estimator=Ridge(), param_grid={"alpha": [0.1, 1.0]}, method="majhoo").fit(X, y)


def test_every_combining_method_defaults_to_mean_probabilities(breast_cancer):
    # The library's procedures that combine members (ACV included) default to the soft vote where
    # the family has probabilities; single-model methods have no aggregation to choose.
    X, y = breast_cancer
    for method in ("agghoo", "acv", "subagging"):
        clf = AgghooClassifier(family="knn", grid=[1, 5, 15], method=method, n_splits=3, random_state=0).fit(X, y)
        assert clf.model_.aggregation == "soft", method
