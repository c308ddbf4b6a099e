"""Agghoo over any scikit-learn estimator: the engine's rules on fits made in Python."""

import pickle

import numpy as np
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.model_selection import GridSearchCV
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
