"""AgghooSearchCV: GridSearchCV's results where method="cv", path families where they match, the
library's aggregation otherwise, RandomizedSearchCV's candidates."""

import numpy as np
import pytest
from scipy.stats import loguniform, randint
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.model_selection import GridSearchCV, KFold, ParameterSampler, ShuffleSplit
from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, SVR
from sklearn.tree import DecisionTreeClassifier

from agghoo import AgghooSearchCV


def _same_as_grid_search(estimator, grid, X, y, cv, scoring=None, atol=1e-12, path=True):
    ours = AgghooSearchCV(estimator, grid, cv=cv, scoring=scoring, method="cv").fit(X, y)
    theirs = GridSearchCV(estimator, grid, cv=cv, scoring=scoring).fit(X, y)
    np.testing.assert_allclose(ours.cv_results_["mean_test_score"], theirs.cv_results_["mean_test_score"], rtol=0, atol=atol)
    assert ours.best_params_ == theirs.best_params_
    assert ours.best_index_ == theirs.best_index_
    assert ours.cv_results_["path"].all() == path
    return ours, theirs


def test_knn_classifier_on_a_path(breast_cancer, capsys):
    X, y = breast_cancer
    ours, theirs = _same_as_grid_search(KNeighborsClassifier(), {"n_neighbors": list(range(1, 40))}, X, y, ShuffleSplit(5, random_state=0))
    for j in range(5):
        np.testing.assert_array_equal(ours.cv_results_[f"split{j}_test_score"], theirs.cv_results_[f"split{j}_test_score"])
    np.testing.assert_array_equal(ours.cv_results_["rank_test_score"], theirs.cv_results_["rank_test_score"])
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    assert ours.best_score_ == pytest.approx(theirs.best_score_, abs=1e-12)
    AgghooSearchCV(KNeighborsClassifier(), {"n_neighbors": [1, 3]}, cv=3, method="cv", verbose=1).fit(X, y)
    assert "path family 'knn'" in capsys.readouterr().out


def test_knn_regressor_on_a_path(diabetes):
    X, y = diabetes
    _same_as_grid_search(KNeighborsRegressor(), {"n_neighbors": [1, 2, 5, 10, 20]}, X, y, KFold(4, shuffle=True, random_state=1))


def test_ridge_on_a_path(diabetes):
    X, y = diabetes
    _same_as_grid_search(Ridge(), {"alpha": [1e-3, 1e-2, 0.1, 1.0, 10.0]}, X, y, KFold(5), scoring="neg_mean_squared_error", atol=1e-9)


def test_logistic_pipeline_on_a_path(breast_cancer):
    X, y = breast_cancer
    pipe = make_pipeline(StandardScaler(), LogisticRegression(tol=1e-10, max_iter=100_000))
    # L-BFGS to 1e-6 (agghoo) and 1e-10 (scikit-learn): the log losses agree to about 1e-7.
    _same_as_grid_search(pipe, {"logisticregression__C": [0.01, 0.1, 1.0, 10.0]}, X, y, KFold(3), scoring="neg_log_loss", atol=1e-6)


def test_svc_pipeline_on_a_path(breast_cancer):
    X, y = breast_cancer
    pipe = make_pipeline(StandardScaler(), SVC())
    grid = {"svc__C": [0.1, 1.0, 10.0], "svc__gamma": ["scale", 0.01]}
    # Both solvers stop at LIBSVM's gap 1e-3: the decisions agree to the solver's tolerance.
    _same_as_grid_search(pipe, grid, X, y, KFold(3), scoring="roc_auc", atol=1e-4)


def test_svr_on_a_path(diabetes):
    X, y = diabetes
    X, y = StandardScaler().fit_transform(X), (y - y.mean()) / y.std()
    _same_as_grid_search(SVR(), {"C": [0.1, 1.0, 10.0]}, X, y, KFold(3), scoring="neg_mean_absolute_error", atol=1e-4)


def test_unsupported_settings_fall_back_to_refits(breast_cancer, capsys):
    X, y = breast_cancer
    grid = {"n_neighbors": [1, 5, 9], "weights": ["uniform", "distance"]}
    ours, _ = _same_as_grid_search(KNeighborsClassifier(), grid, X, y, KFold(3), path=False)
    assert ours.cv_results_["path"].tolist() == [w == "uniform" for w in ours.cv_results_["param_weights"]]
    AgghooSearchCV(KNeighborsClassifier(), grid, cv=3, method="cv", verbose=1).fit(X, y)
    assert "generic refits for KNeighborsClassifier with weights='distance'" in capsys.readouterr().out
    # An estimator without a path family: GridSearchCV's fits, same results.
    _same_as_grid_search(DecisionTreeClassifier(random_state=0), {"max_depth": [1, 2, 3]}, X, y, KFold(3), path=False)


def test_random_search_candidates_are_parameter_samplers(diabetes):
    X, y = diabetes
    dist = {"alpha": loguniform(1e-3, 1e2), "fit_intercept": [True, False]}
    ours = AgghooSearchCV(Ridge(), param_distributions=dist, n_iter=7, random_state=4, method="cv", cv=3).fit(X, y)
    assert ours.cv_results_["params"] == list(ParameterSampler(dist, 7, random_state=4))
    by_hand = GridSearchCV(Ridge(), [{k: [v] for k, v in p.items()} for p in ours.cv_results_["params"]], cv=3).fit(X, y)
    np.testing.assert_allclose(ours.cv_results_["mean_test_score"], by_hand.cv_results_["mean_test_score"], rtol=0, atol=1e-9)
    with pytest.raises(ValueError, match="exactly one of param_grid and param_distributions"):
        AgghooSearchCV(Ridge(), {"alpha": [1.0]}, param_distributions=dist).fit(X, y)
    knn = AgghooSearchCV(KNeighborsRegressor(), param_distributions={"n_neighbors": randint(1, 30)}, n_iter=5, random_state=0, cv=3)
    assert knn.fit(X, y).cv_results_["path"].all()


def test_majhoo_members_are_each_splits_best_fitted_on_its_training_rows(breast_cancer):
    X, y = breast_cancer
    cv = ShuffleSplit(5, train_size=0.8, random_state=3)
    grid = {"n_neighbors": list(range(1, 30, 2))}
    search = AgghooSearchCV(KNeighborsClassifier(), grid, cv=cv, method="majhoo").fit(X, y)
    members = search.best_estimator_.members_
    for j, (train, test) in enumerate(cv.split(X, y)):
        scores = search.cv_results_[f"split{j}_test_score"]
        expected = [clone(KNeighborsClassifier(k)).fit(X[train], y[train]).score(X[test], y[test]) for k in grid["n_neighbors"]]
        np.testing.assert_allclose(scores, expected, rtol=0, atol=1e-12)
        assert search.selected_params_[j] == {"n_neighbors": grid["n_neighbors"][int(np.argmax(expected))]}
        np.testing.assert_array_equal(members[j].predict(X), KNeighborsClassifier(**search.selected_params_[j]).fit(X[train], y[train]).predict(X))
    votes = np.mean([m.predict(X) for m in members], axis=0)
    clear = np.abs(votes - 0.5) > 0.25
    np.testing.assert_array_equal(search.predict(X)[clear], (votes > 0.5)[clear])
    assert search.predict_proba(X).shape == (len(y), 2)
    assert search.score(X, y) == pytest.approx(np.mean(search.predict(X) == y))


def test_agghoo_regression_averages_the_members(diabetes):
    X, y = diabetes
    search = AgghooSearchCV(Ridge(), {"alpha": [0.01, 0.1, 1.0]}, cv=KFold(4), method="agghoo").fit(X, y)
    mean = np.mean([m.predict(X) for m in search.best_estimator_.members_], axis=0)
    np.testing.assert_allclose(search.predict(X), mean, rtol=1e-12)
    assert search.n_features_in_ == X.shape[1]


def test_error_score_and_ranks_follow_grid_search(diabetes):
    X, y = diabetes
    grid = {"n_neighbors": [5, 1000, 5]}  # k = 1000 fails on ~300 training rows; two equal candidates tie
    with pytest.warns(UserWarning, match="n_neighbors"):
        ours = AgghooSearchCV(KNeighborsRegressor(), grid, cv=3, method="cv").fit(X, y)
    theirs = GridSearchCV(KNeighborsRegressor(), grid, cv=3).fit(X, y)
    np.testing.assert_array_equal(ours.cv_results_["rank_test_score"], theirs.cv_results_["rank_test_score"])
    np.testing.assert_array_equal(ours.cv_results_["rank_test_score"], [1, 3, 1])
    assert ours.cv_results_["path"].tolist() == [True, False, True]
    with pytest.raises(ValueError, match="n_neighbors"):
        AgghooSearchCV(KNeighborsRegressor(), grid, cv=3, method="cv", error_score="raise").fit(X, y)
    # A value scikit-learn refuses is refused as GridSearchCV refuses it, not evaluated on a path.
    with pytest.raises(ValueError, match="alpha"):
        AgghooSearchCV(Ridge(), {"alpha": [1.0, -1.0]}, cv=3, method="cv").fit(X, y)


@pytest.mark.parametrize("method", ["holdout", "acv", "subagging"])
def test_every_method_keeps_the_members_the_library_chooses(diabetes, method):
    # The same splits and scores as the built-in k-NN family: the library's procedure picks the
    # same members (acv: refitted on all rows; subagging: on the inner hold-outs' training rows).
    from agghoo import AgghooRegressor

    X, y = diabetes
    ks = list(range(1, 40, 3))
    folds = list(ShuffleSplit(4, test_size=0.25, random_state=1).split(X))
    built_in = AgghooRegressor(family="knn", grid=ks, method=method, cv=folds, random_state=5).fit(X, y)
    search = AgghooSearchCV(
        KNeighborsRegressor(), {"n_neighbors": ks}, method=method, cv=folds, scoring="neg_mean_squared_error", random_state=5
    ).fit(X, y)
    members = search.best_estimator_.members_
    assert [m.n_neighbors for m in members] == [ks[i] for i in built_in.report_["member_grid_indices"]]
    assert search.best_estimator_.member_splits_ == ([None] * len(members) if method == "acv" else list(range(len(members))))
    assert search.n_splits_ == len(built_in.report_["splits"])
    np.testing.assert_allclose(search.predict(X), built_in.predict(X), rtol=1e-9)


def test_bad_method_and_several_scorers_are_refused(diabetes):
    X, y = diabetes
    with pytest.raises(ValueError, match="parameter `method` must be one of"):
        AgghooSearchCV(Ridge(), {"alpha": [1.0]}, method="knn").fit(X, y)
    with pytest.raises(ValueError, match="it fits the mean of the selected hyperparameters"):
        AgghooSearchCV(Ridge(), {"alpha": [1.0]}, method="ekcv").fit(X, y)
    with pytest.raises(ValueError, match="one scorer"):
        AgghooSearchCV(Ridge(), {"alpha": [1.0]}, scoring=["r2", "neg_mean_squared_error"]).fit(X, y)


# The staged path protocol: one fit per split at the largest number of rounds.
from sklearn.base import BaseEstimator, RegressorMixin  # noqa: E402
from sklearn.ensemble import AdaBoostClassifier, GradientBoostingClassifier, GradientBoostingRegressor  # noqa: E402
from sklearn.ensemble import HistGradientBoostingClassifier  # noqa: E402


def test_gradient_boosting_rounds_from_staged_predictions(breast_cancer):
    X, y = breast_cancer
    grid = {"n_estimators": [5, 10, 20], "max_depth": [2, 3]}
    _same_as_grid_search(GradientBoostingClassifier(random_state=0), grid, X, y, KFold(3), scoring="neg_log_loss")


def test_hist_gradient_boosting_and_adaboost_rounds(breast_cancer):
    X, y = breast_cancer
    X, y = X[:200], y[:200]
    _same_as_grid_search(HistGradientBoostingClassifier(random_state=0), {"max_iter": [2, 4, 6]}, X, y, KFold(3), scoring="roc_auc")
    _same_as_grid_search(AdaBoostClassifier(random_state=0), {"n_estimators": [3, 6, 12]}, X, y, KFold(3))


def test_stochastic_gradient_boosting_regression_rounds(diabetes):
    X, y = diabetes
    est = GradientBoostingRegressor(random_state=0, subsample=0.8)
    _same_as_grid_search(est, {"n_estimators": [5, 10, 30]}, X, y, KFold(3), scoring="neg_mean_squared_error", atol=1e-9)


class Rounds(RegressorMixin, BaseEstimator):
    """A user's estimator declaring its path: round m adds a step towards the training mean."""

    __agghoo_path__ = "rounds"
    fits = 0

    def __init__(self, rounds=1):
        self.rounds = rounds

    def fit(self, X, y):
        type(self).fits += 1
        self.mean_ = float(np.mean(y))
        return self

    def staged_predict(self, X):
        for m in range(1, self.rounds + 1):
            yield np.full(len(X), self.mean_ * (1 - 0.5**m))

    def predict(self, X):
        return list(self.staged_predict(X))[-1]


def test_a_users_estimator_declares_its_path(diabetes):
    X, y = diabetes
    Rounds.fits = 0
    ours, _ = _same_as_grid_search(Rounds(), {"rounds": [1, 2, 3, 4, 5]}, X, y, KFold(3), scoring="neg_mean_squared_error")
    # One fit per split, plus GridSearchCV's 15 and the two refits on all rows.
    assert Rounds.fits == 3 + 15 + 2


def test_frames_and_lists_are_indexed_as_grid_search_does(breast_cancer):
    pd = pytest.importorskip("pandas")
    X, y = breast_cancer
    frame = pd.DataFrame(X, columns=[f"c{j}" for j in range(X.shape[1])])
    grid = {"n_neighbors": [1, 3, 5]}
    ours = AgghooSearchCV(KNeighborsClassifier(), grid, cv=3, method="cv").fit(frame, pd.Series(y))
    assert list(ours.feature_names_in_) == list(frame.columns)
    members = AgghooSearchCV(KNeighborsClassifier(), grid, cv=3, method="majhoo").fit(X.tolist(), y.tolist())
    theirs = GridSearchCV(KNeighborsClassifier(), grid, cv=3).fit(X, y)
    np.testing.assert_allclose(members.cv_results_["mean_test_score"], theirs.cv_results_["mean_test_score"], rtol=0, atol=1e-12)
    assert members.predict(X[:5].tolist()).shape == (5,)


def test_plain_accuracy_is_recognised_and_scored_as_the_scorer_does():
    """The vectorised accuracy serves exactly the scorers that compute plain accuracy, and gives
    the scorer's value bit for bit; any other scorer goes through scikit-learn."""
    from sklearn.metrics import accuracy_score, check_scoring, make_scorer
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from agghoo._scoring import accuracy, is_accuracy

    knn = KNeighborsClassifier()
    assert is_accuracy(check_scoring(knn), knn)
    assert is_accuracy(check_scoring(knn, scoring="accuracy"), knn)
    pipe = make_pipeline(StandardScaler(), knn)
    assert is_accuracy(check_scoring(pipe), pipe)
    assert not is_accuracy(check_scoring(knn, scoring="balanced_accuracy"), knn)
    assert not is_accuracy(make_scorer(accuracy_score, normalize=False), knn)
    assert not is_accuracy(check_scoring(knn, scoring="f1_macro"), knn)
    rng = np.random.default_rng(0)
    for n in (1, 7, 57, 114):
        y, p = rng.integers(0, 3, n), rng.integers(0, 3, n)
        assert accuracy(p, y) == accuracy_score(y, p)
