"""AgghooSearchCV's round paths beyond staged predictions (warm-started forests, LightGBM and
XGBoost iteration ranges), random search over a path axis given as a list, and its scale: splits
in parallel and on Dask, with the same results as one process."""

import numpy as np
import pytest
from scipy.stats import loguniform, randint
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.ensemble import ExtraTreesRegressor, GradientBoostingRegressor, RandomForestClassifier
from sklearn.model_selection import GridSearchCV, KFold, ParameterSampler
from sklearn.neighbors import KNeighborsRegressor
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from agghoo import AgghooSearchCV


def _same_as_grid_search(estimator, grid, X, y, cv, scoring=None, atol=0.0):
    ours = AgghooSearchCV(estimator, grid, cv=cv, scoring=scoring, method="cv").fit(X, y)
    theirs = GridSearchCV(estimator, grid, cv=cv, scoring=scoring).fit(X, y)
    np.testing.assert_allclose(ours.cv_results_["mean_test_score"], theirs.cv_results_["mean_test_score"], rtol=0, atol=atol)
    assert ours.best_params_ == theirs.best_params_
    assert ours.cv_results_["path"].all()
    return ours, theirs


def test_forest_trees_grow_with_warm_start_as_the_cold_forests(breast_cancer, capsys):
    X, y = breast_cancer
    X, y = X[:300], y[:300]
    grid = {"n_estimators": [3, 1, 8, 5], "max_features": [0.3, "sqrt"]}
    # A warm-started forest's first m trees are the cold forest of m trees: the same scores, bit for bit.
    _same_as_grid_search(RandomForestClassifier(random_state=0), grid, X, y, KFold(3), scoring="neg_log_loss")
    # A RandomState seed is copied for each growth step, as clone copies it for each cold fit.
    _same_as_grid_search(RandomForestClassifier(random_state=np.random.RandomState(5)), {"n_estimators": [2, 4]}, X, y, KFold(3))
    AgghooSearchCV(RandomForestClassifier(random_state=0), {"n_estimators": [1, 2]}, cv=3, method="cv", verbose=1).fit(X, y)
    assert "RandomForestClassifier n_estimators: warm-start growth, 2 candidates from one fit per split" in capsys.readouterr().out


def test_extra_trees_in_a_pipeline_grow_with_warm_start(diabetes):
    X, y = diabetes
    pipe = make_pipeline(StandardScaler(), ExtraTreesRegressor(random_state=1, bootstrap=True, max_samples=0.7))
    _same_as_grid_search(pipe, {"extratreesregressor__n_estimators": [2, 6, 4]}, X, y, KFold(3), scoring="neg_mean_squared_error")


def test_lightgbm_iteration_ranges(breast_cancer):
    lightgbm = pytest.importorskip("lightgbm")
    X, y = breast_cancer
    est = lightgbm.LGBMClassifier(random_state=0, subsample=0.8, subsample_freq=1, colsample_bytree=0.7, verbose=-1, n_jobs=1)
    grid = {"n_estimators": [2, 10, 5], "num_leaves": [4, 15]}
    _same_as_grid_search(est, grid, X, y, KFold(3), scoring="neg_log_loss", atol=1e-12)
    X_r = X[:, 1:]
    reg = lightgbm.LGBMRegressor(random_state=0, verbose=-1, n_jobs=1)
    _same_as_grid_search(reg, {"n_estimators": [1, 4, 8]}, X_r, X[:, 0], KFold(3), atol=1e-12)
    dart = AgghooSearchCV(lightgbm.LGBMClassifier(boosting_type="dart", verbose=-1, n_jobs=1), {"n_estimators": [2, 4]}, cv=3, method="cv")
    assert not dart.fit(X, y).cv_results_["path"].any()


def test_xgboost_iteration_ranges(breast_cancer):
    xgboost = pytest.importorskip("xgboost")
    X, y = breast_cancer
    est = xgboost.XGBClassifier(random_state=0, subsample=0.8, max_depth=3, n_jobs=1)
    _same_as_grid_search(est, {"n_estimators": [2, 10, 5], "learning_rate": [0.1, 0.3]}, X, y, KFold(3), scoring="roc_auc", atol=1e-12)
    reg = xgboost.XGBRegressor(random_state=0, n_jobs=1)
    _same_as_grid_search(reg, {"n_estimators": [1, 4, 8]}, X[:, 1:], X[:, 0], KFold(3), atol=1e-12)
    dart = AgghooSearchCV(xgboost.XGBClassifier(booster="dart", n_jobs=1), {"n_estimators": [2, 4]}, cv=3, method="cv")
    assert not dart.fit(X, y).cv_results_["path"].any()


def test_random_search_evaluates_a_listed_path_axis_whole(diabetes):
    X, y = diabetes
    dist = {"n_estimators": [5, 10, 20], "learning_rate": loguniform(0.01, 1.0), "max_depth": randint(1, 4)}
    est = GradientBoostingRegressor(random_state=0)
    ours = AgghooSearchCV(est, param_distributions=dist, n_iter=4, random_state=3, cv=KFold(3), method="cv").fit(X, y)
    draws = list(ParameterSampler({k: v for k, v in dist.items() if k != "n_estimators"}, 4, random_state=3))
    expected = [dict(sorted({**d, "n_estimators": m}.items())) for d in draws for m in [5, 10, 20]]
    assert ours.cv_results_["params"] == expected
    assert ours.cv_results_["path"].all()
    by_hand = GridSearchCV(est, [{k: [v] for k, v in p.items()} for p in expected], cv=KFold(3)).fit(X, y)
    np.testing.assert_allclose(ours.cv_results_["mean_test_score"], by_hand.cv_results_["mean_test_score"], rtol=0, atol=1e-12)
    # The path axis alone: the whole list, once.
    alone = AgghooSearchCV(KNeighborsRegressor(), param_distributions={"n_neighbors": [1, 5, 9]}, n_iter=10, cv=3, method="cv")
    assert alone.fit(X, y).cv_results_["params"] == [{"n_neighbors": k} for k in (1, 5, 9)]
    # A path axis given as a distribution, or no path axis: exactly ParameterSampler's draws.
    sampled = {"n_neighbors": randint(1, 30), "weights": ["uniform", "distance"]}
    knn = AgghooSearchCV(KNeighborsRegressor(), param_distributions=sampled, n_iter=6, random_state=1, cv=3, method="cv").fit(X, y)
    assert knn.cv_results_["params"] == list(ParameterSampler(sampled, 6, random_state=1))
    # Several dicts: ParameterSampler's draws (which dict a draw came from is not known).
    several = [{"n_neighbors": [1, 2]}, {"n_neighbors": [3, 4], "weights": ["distance"]}]
    knn = AgghooSearchCV(KNeighborsRegressor(), param_distributions=several, n_iter=3, random_state=2, cv=3, method="cv").fit(X, y)
    assert knn.cv_results_["params"] == list(ParameterSampler(several, 3, random_state=2))


def test_majhoo_over_a_random_search_with_a_path_axis(breast_cancer):
    X, y = breast_cancer
    dist = {"max_iter": [2, 4, 8], "learning_rate": loguniform(0.05, 0.5)}
    from sklearn.ensemble import HistGradientBoostingClassifier

    search = AgghooSearchCV(HistGradientBoostingClassifier(random_state=0), param_distributions=dist, n_iter=2, random_state=0, cv=KFold(3), method="majhoo")
    search.fit(X[:200], y[:200])
    assert len(search.cv_results_["params"]) == 6 and search.cv_results_["path"].all()
    for j, member in enumerate(search.selected_params_):
        scores = search.cv_results_[f"split{j}_test_score"]
        assert member == search.cv_results_["params"][int(np.argmax(scores))]


def _same_results(a, b):
    assert a.cv_results_["params"] == b.cv_results_["params"]
    for key in [k for k in a.cv_results_ if k.startswith("split") or k in ("mean_test_score", "rank_test_score", "path")]:
        np.testing.assert_array_equal(a.cv_results_[key], b.cv_results_[key], err_msg=key)
    assert a.best_params_ == b.best_params_


SEARCHES = [
    # a path family, a round path, a forest grown by warm start, generic refits (weights="distance")
    (KNeighborsRegressor(), {"n_neighbors": [1, 4, 9], "weights": ["uniform", "distance"]}, "cv"),
    (GradientBoostingRegressor(random_state=0, subsample=0.7), {"n_estimators": [2, 5, 9]}, "acv"),
    (ExtraTreesRegressor(random_state=0), {"n_estimators": [1, 3]}, "agghoo"),
]


@pytest.mark.parametrize("estimator, grid, method", SEARCHES)
def test_splits_in_parallel_give_the_sequential_results(diabetes, estimator, grid, method):
    X, y = diabetes
    cv = KFold(3, shuffle=True, random_state=0)
    one = AgghooSearchCV(estimator, grid, cv=cv, method=method).fit(X, y)
    two = AgghooSearchCV(estimator, grid, cv=cv, method=method, n_jobs=2).fit(X, y)
    _same_results(one, two)
    np.testing.assert_array_equal(one.predict(X), two.predict(X))


def test_n_jobs_none_is_one_engine_thread(diabetes, monkeypatch):
    """joblib's meaning, as the estimators': None is one thread (or an enclosing parallel_config's
    n_jobs), not every core; the engine's threads are shared among the splits run at once."""
    import joblib

    from agghoo import _native

    X, y = diabetes
    seen = []
    real = _native.path_outputs

    def spy(*args, **kwargs):
        seen.append(kwargs["run"]["threads"])
        return real(*args, **kwargs)

    monkeypatch.setattr(_native, "path_outputs", spy)
    AgghooSearchCV(KNeighborsRegressor(), {"n_neighbors": [1, 4]}, cv=3, method="cv").fit(X, y)
    assert seen == [1, 1, 1]
    seen.clear()
    with joblib.parallel_config(n_jobs=2):
        AgghooSearchCV(KNeighborsRegressor(), {"n_neighbors": [1, 4]}, cv=2, method="cv").fit(X, y)
    assert seen == [1, 1]
    seen.clear()
    AgghooSearchCV(KNeighborsRegressor(), {"n_neighbors": [1, 4]}, cv=2, method="cv", n_jobs=4).fit(X, y)
    assert seen == [2, 2]


@pytest.mark.parametrize("estimator, grid, method", SEARCHES)
def test_dask_backend_equals_the_local_run_bit_for_bit(diabetes, dask_client, estimator, grid, method):
    import agghoo.dask

    X, y = diabetes
    cv = KFold(3, shuffle=True, random_state=0)
    local = AgghooSearchCV(estimator, grid, cv=cv, method=method).fit(X, y)
    from distributed import get_task_stream

    dask_client.wait_for_workers(2, timeout=120)
    with agghoo.dask.backend(dask_client), get_task_stream(dask_client) as stream:
        remote = AgghooSearchCV(estimator, grid, cv=cv, method=method).fit(X, y)
    ran = [t["key"] if isinstance(t["key"], str) else t["key"][0] for t in stream.data]
    # One task per split scores every candidate on it.
    assert sum(k.startswith("_split_task") for k in ran) == 3
    _same_results(local, remote)
    np.testing.assert_array_equal(local.predict(X), remote.predict(X))


@pytest.fixture(scope="module")
def dask_client():
    import os

    if os.environ.get("AGGHOO_IN_TEST_SCRIPT"):
        import distributed  # ./test.sh installs it: missing is a failure, not a skip
    else:
        distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()


class NoStages(RegressorMixin, BaseEstimator):
    """Declares a round path whose staged predictions fail: the search falls back to refits."""

    __agghoo_path__ = "rounds"

    def __init__(self, rounds=1):
        self.rounds = rounds

    def fit(self, X, y):
        self.mean_ = float(np.mean(y)) * (1 - 0.5**self.rounds)
        return self

    def staged_predict(self, X):
        raise ValueError("no stages here")

    def predict(self, X):
        return np.full(len(X), self.mean_)


def test_a_failing_round_path_falls_back_to_refits(diabetes, capsys):
    X, y = diabetes
    grid = {"rounds": [1, 2, 3]}
    ours = AgghooSearchCV(NoStages(), grid, cv=KFold(3), method="cv", verbose=1).fit(X, y)
    assert "generic refits: the path failed (no stages here)" in capsys.readouterr().out
    theirs = GridSearchCV(NoStages(), grid, cv=KFold(3)).fit(X, y)
    np.testing.assert_array_equal(ours.cv_results_["mean_test_score"], theirs.cv_results_["mean_test_score"])
    assert not ours.cv_results_["path"].any()


def test_verbose_names_the_iteration_ranges_and_why_not(breast_cancer, capsys):
    lightgbm = pytest.importorskip("lightgbm")
    X, y = breast_cancer
    grid = {"n_estimators": [1, 2]}
    AgghooSearchCV(lightgbm.LGBMClassifier(verbose=-1, n_jobs=1), grid, cv=3, method="cv", verbose=1).fit(X, y)
    assert "LGBMClassifier n_estimators: LightGBM iteration ranges, 2 candidates from one fit per split" in capsys.readouterr().out
    AgghooSearchCV(lightgbm.LGBMClassifier(boosting_type="dart", verbose=-1, n_jobs=1), grid, cv=3, method="cv", verbose=1).fit(X, y)
    assert "generic refits for LGBMClassifier with boosting_type='dart'" in capsys.readouterr().out


def test_lasso_lars_alphas_from_one_lars_path(diabetes, capsys):
    from sklearn.linear_model import LassoLars

    X, y = diabetes
    grid = {"alpha": list(np.logspace(-5, 1, 25))}
    for est in (LassoLars(), LassoLars(positive=True), LassoLars(max_iter=3), make_pipeline(StandardScaler(), LassoLars(fit_intercept=False))):
        g = grid if not hasattr(est, "steps") else {"lassolars__alpha": grid["alpha"]}
        # Where an alpha falls on the path's last segment, its interpolation starts from the
        # path's last point rather than the raw breakpoint: equal to rounding.
        _same_as_grid_search(est, g, X, y, KFold(4), atol=1e-12)
    AgghooSearchCV(LassoLars(), {"alpha": [0.1, 1.0]}, cv=3, method="cv", verbose=1).fit(X, y)
    assert "LassoLars alpha: one LARS path (lars_path) from the smallest alpha, 2 candidates" in capsys.readouterr().out
    jitter = AgghooSearchCV(LassoLars(jitter=1e-3, random_state=0), {"alpha": [0.1, 1.0]}, cv=3, method="cv").fit(X, y)
    assert not jitter.cv_results_["path"].any()
