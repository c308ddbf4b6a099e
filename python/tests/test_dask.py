"""agghoo on a Dask cluster equals the local run bit for bit: selection, estimation, nested CV,
Agghoo over a scikit-learn estimator and the distributed TreeCV — including when tasks finish
in another order and when a worker is killed mid-run. One LocalCluster (2 worker processes)
serves the whole module."""

import json
import os
import signal
import sys
import threading
import time

import numpy as np
import pytest

from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.neighbors import KNeighborsClassifier

import agghoo
from agghoo import AgghooClassifier, AgghooRegressor

if os.environ.get("AGGHOO_IN_TEST_SCRIPT"):
    import distributed  # ./test.sh installs it: missing is a failure, not a skip
else:
    distributed = pytest.importorskip("distributed")
import agghoo.dask as adask  # noqa: E402


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    c = distributed.Client(cluster)
    import cloudpickle

    # The test estimators below are shipped by value (the workers cannot import this module).
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    yield c
    c.close()
    cluster.close()


def _two_workers(client):
    client.wait_for_workers(2, timeout=60)
    return client


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(240, 5))
    y = (X[:, 0] + 0.5 * X[:, 1] ** 2 + 0.3 * rng.normal(size=240) > 0.4).astype(int)
    return X, y


@pytest.fixture
def regression():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 6))
    return X, X @ rng.normal(size=6) + 0.5 * rng.normal(size=200)


def _same_fit(a, b):
    assert a.report_ == b.report_
    assert a.model_.to_json() == b.model_.to_json()


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(family="knn", grid=range(1, 30, 2), method="majhoo"),
        dict(family="knn", grid=range(1, 30, 2), method="cv", one_se=True, plan="vfold:5"),
        dict(family="logistic", method="agghoo", standardize=True),
        dict(family="cart", method="subagging"),
        dict(family="knn", method="holdout"),
        dict(family="svc", method="acv", grid=[0.01, 0.1, 1.0], standardize=True, n_splits=4),
    ],
)
def test_classifier_fit_on_the_cluster_equals_the_local_fit(client, data, kwargs):
    X, y = data
    local = AgghooClassifier(random_state=3, **kwargs).fit(X, y)
    with adask.backend(_two_workers(client)):
        remote = AgghooClassifier(random_state=3, **kwargs).fit(X, y)
    _same_fit(local, remote)
    np.testing.assert_array_equal(local.predict(X), remote.predict(X))


def test_regressor_with_preprocessing_and_more_blocks_than_workers(client, regression):
    X, y = regression
    X = X.copy()
    X[3, 2] = np.nan
    kwargs = dict(family="ridge", method="agghoo", standardize=True, missing="median", n_splits=12, random_state=5)
    local = AgghooRegressor(**kwargs).fit(X, y)
    for blocks in (1, 6):
        with adask.backend(_two_workers(client), blocks_per_thread=blocks):
            remote = AgghooRegressor(**kwargs).fit(X, y)
        _same_fit(local, remote)


@pytest.mark.parametrize("plan", ["vfold:7", "loo", "bootstrap:20", "mc:9:0.75"])
def test_estimate_risk_on_the_cluster_equals_the_local_estimate(client, regression, plan):
    X, y = regression
    local = agghoo.estimate_risk(X, y, family="ridge", value=0.3, plan=plan, random_state=2)
    remote = agghoo.estimate_risk(X, y, family="ridge", value=0.3, plan=plan, random_state=2, client=_two_workers(client))
    assert remote.to_dict() == local.to_dict()


def test_nested_comparison_runs_one_task_per_outer_split_and_equals_the_local_one(client, data):
    X, y = data
    kwargs = dict(family="knn", grid=range(1, 20, 2), methods=["majhoo", "cv", "cv+1se", "holdout"], outer="vfold:6", random_state=4)
    local = agghoo.compare(X, y, **kwargs)
    with adask.backend(_two_workers(client)):
        remote = agghoo.compare(X, y, **kwargs)
    assert remote.to_dict() == local.to_dict()


def test_agghoo_over_a_scikit_learn_estimator_on_the_cluster(client, data):
    X, y = data
    kwargs = dict(estimator=KNeighborsClassifier(), param_grid={"n_neighbors": [1, 5, 15, 31]}, method="majhoo", random_state=1)
    local = AgghooClassifier(**kwargs).fit(X, y)
    with adask.backend(_two_workers(client)):
        remote = AgghooClassifier(**kwargs).fit(X, y)
    assert remote.selected_params_ == local.selected_params_
    np.testing.assert_array_equal(remote.cv_results_["mean_test_score"], local.cv_results_["mean_test_score"])
    np.testing.assert_array_equal(remote.predict_proba(X), local.predict_proba(X))


def _row_weights(n, seed=0):
    """Irregular positive weights, some zero."""
    w = np.random.default_rng(seed).uniform(0.2, 3.0, size=n)
    w[::7] = 0.0
    return w


@pytest.mark.parametrize(
    "estimator, kwargs",
    [
        (AgghooClassifier, dict(family="forest", grid=[2, 4], params={"trees": 10}, method="agghoo", n_splits=4)),
        (AgghooClassifier, dict(family="logistic", method="majhoo", standardize=True, class_weight="balanced")),
        (AgghooRegressor, dict(family="ridge", method="cv", plan="vfold:5")),
    ],
)
def test_a_weighted_fit_on_the_cluster_equals_the_local_weighted_fit(client, data, regression, estimator, kwargs):
    # The job carries the row weights to the workers: the same weighted fits and weighted risks.
    X, y = data if estimator is AgghooClassifier else regression
    w = _row_weights(len(y))
    local = estimator(random_state=2, **kwargs).fit(X, y, sample_weight=w)
    with adask.backend(_two_workers(client)):
        remote = estimator(random_state=2, **kwargs).fit(X, y, sample_weight=w)
    _same_fit(local, remote)
    np.testing.assert_array_equal(local.predict(X), remote.predict(X))
    # and the weights count: an unweighted fit differs
    assert estimator(random_state=2, **kwargs).fit(X, y).report_ != local.report_


def test_a_weighted_estimate_job_equals_the_local_weighted_estimate(regression):
    X, y = regression
    X = np.ascontiguousarray(X, dtype=np.float64)
    spec = json.dumps({"family": {"family": "ridge"}, "value": 0.3, "plan": {"plan": "v_fold", "n_folds": 5, "stratify": False, "shuffle": True}, "seed": 1})
    names = [f"x{j}" for j in range(X.shape[1])]
    w = _row_weights(len(y)).tolist()
    job = agghoo._native.estimate(X, y, spec, {"feature_names": names, "sample_weight": w}, {"threads": None, "job": True, "verbose": 0})
    remote = job.assemble(X, y, job.evaluate(X, y, list(range(job.n_units)), threads=1))
    assert remote == agghoo._native.estimate(X, y, spec, {"feature_names": names, "sample_weight": w})
    assert remote != agghoo._native.estimate(X, y, spec, {"feature_names": names})


def test_agghoo_over_a_scikit_learn_estimator_with_weights_on_the_cluster(client, data):
    from sklearn.linear_model import LogisticRegression

    X, y = data
    w = _row_weights(len(y), 1)
    kwargs = dict(estimator=LogisticRegression(), param_grid={"C": [0.01, 0.1, 1.0]}, method="agghoo", n_splits=4, random_state=1)
    local = AgghooClassifier(**kwargs).fit(X, y, sample_weight=w)
    with adask.backend(_two_workers(client)):
        remote = AgghooClassifier(**kwargs).fit(X, y, sample_weight=w)
    assert remote.selected_params_ == local.selected_params_
    np.testing.assert_array_equal(remote.cv_results_["mean_test_score"], local.cv_results_["mean_test_score"])
    np.testing.assert_array_equal(remote.predict_proba(X), local.predict_proba(X))
    unweighted = AgghooClassifier(**kwargs).fit(X, y)
    assert not np.array_equal(unweighted.cv_results_["mean_test_score"], local.cv_results_["mean_test_score"])


def test_honest_feature_selection_runs_one_task_per_outer_fold(client, data):
    X, y = data
    kwargs = dict(method="sffs", scorer="wrapper:knn:7", n_features="best", evaluate="vfold:5", random_state=2)
    local = agghoo.select_features(X, y, **kwargs)
    remote = agghoo.select_features(X, y, client=_two_workers(client), **kwargs)
    assert remote.to_dict() == local.to_dict() and remote.evaluated


def test_honest_feature_selection_with_a_text_column_on_workers_equals_the_local_run(client):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(5)
    n = 80
    city = np.array(["north", "south", "east", "west"])[np.arange(n) % 4]
    y = pd.Series(city).map({"north": 0.0, "south": 3.0, "east": -3.0, "west": 6.0}).to_numpy() + 0.3 * rng.normal(size=n)
    frame = pd.DataFrame({"a": rng.normal(size=n), "city": city, "b": rng.normal(size=n)})
    kwargs = dict(method="sfs", scorer="wrapper:knn:5", n_features=1, evaluate="vfold:4", random_state=1)
    local = agghoo.select_features(frame, y, **kwargs)
    remote = agghoo.select_features(frame, y, client=_two_workers(client), **kwargs)
    assert remote.to_dict() == local.to_dict() and local.to_dict()["naive_selection"]["names"] == ["city"]


def _without_timing(result):
    d = result.to_dict()
    d.pop("wall_seconds")
    d.pop("distribution", None)
    return d


@pytest.mark.parametrize(
    "learner, folds, task",
    [("pegasos", 10, "binary"), ("pegasos", "loo", "binary"), ("gaussian-nb", 16, "multi"), ("lsq-sgd", 9, "regression"), ("kmeans", 5, "regression")],
)
def test_distributed_treecv_equals_the_local_run_and_moves_no_chunk(client, learner, folds, task):
    rng = np.random.default_rng(7)
    X = rng.normal(size=(150, 4))
    if task == "binary":
        y = (X[:, 0] > 0).astype(int)
    elif task == "multi":
        y = np.digitize(X[:, 0], [-0.5, 0.5])
    else:
        y = X @ np.arange(1.0, 5.0) + rng.normal(size=150)
    kwargs = dict(learner=learner, folds=folds, lambda_=1e-3, centres=3, random_state=2)
    local = agghoo.treecv(X, y, **kwargs)
    c = _two_workers(client)
    before = {w: len(v) for w, v in adask.transfer_log(c).items()}
    remote = agghoo.treecv(X, y, client=c, **kwargs)
    assert _without_timing(remote) == _without_timing(local)
    distribution = remote.to_dict()["distribution"]
    assert len(set(distribution["chunk_owner"])) == 2
    moved = [entry for w, log in adask.transfer_log(c).items() for entry in log[before.get(w, 0) :]]
    chunk_keys = set(map(str, distribution["chunk_keys"]))
    assert not [key for key, _ in moved if key in chunk_keys], "a chunk moved between workers"


def test_distributed_treecv_refuses_the_randomised_order(client):
    X = np.random.default_rng(0).normal(size=(40, 3))
    y = (X[:, 0] > 0).astype(int)
    with pytest.raises(ValueError, match="fixed order"):
        agghoo.treecv(X, y, learner="pegasos", folds=4, order="random", client=client)


class SlowKNN(ClassifierMixin, BaseEstimator):
    """A k-NN classifier whose fit takes 0.15 s: long enough to kill a worker mid-run."""

    def __init__(self, n_neighbors=5):
        self.n_neighbors = n_neighbors

    def fit(self, X, y):
        time.sleep(0.15)
        self.model_ = KNeighborsClassifier(self.n_neighbors).fit(X, y)
        self.classes_ = self.model_.classes_
        return self

    def predict(self, X):
        return self.model_.predict(X)

    def predict_proba(self, X):
        return self.model_.predict_proba(X)


class _Killer(threading.Thread):
    """Kills (SIGKILL) the process of a worker that is running a task, `delay` s after start;
    the nanny then starts a new worker and the scheduler reruns the lost tasks elsewhere."""

    def __init__(self, client, delay):
        super().__init__(daemon=True)
        self.client, self.delay, self.killed = client, delay, None
        self.pids = client.run(os.getpid)

    def run(self):
        deadline = time.time() + 30
        time.sleep(self.delay)
        while time.time() < deadline and self.killed is None:
            busy = [w for w, tasks in self.client.processing().items() if tasks and w in self.pids]
            if busy:
                os.kill(self.pids[busy[0]], signal.SIGKILL)
                self.killed = busy[0]
                return
            time.sleep(0.01)


def test_a_worker_killed_mid_run_changes_nothing(client, data):
    X, y = data
    kwargs = dict(estimator=SlowKNN(), param_grid={"n_neighbors": [1, 9, 25]}, method="agghoo", n_splits=8, random_state=2)
    local = AgghooClassifier(**kwargs).fit(X, y)
    c = _two_workers(client)
    killer = _Killer(c, 0.8)
    killer.start()
    with adask.backend(c):
        remote = AgghooClassifier(**kwargs).fit(X, y)
    killer.join()
    assert killer.killed is not None, "no worker was killed while the fit ran"
    assert remote.selected_params_ == local.selected_params_
    np.testing.assert_array_equal(remote.cv_results_["mean_test_score"], local.cv_results_["mean_test_score"])
    np.testing.assert_array_equal(remote.predict_proba(X), local.predict_proba(X))


def test_a_worker_killed_mid_selection_changes_nothing(client):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(3000, 8))
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(int)
    kwargs = dict(family="svc", grid=np.logspace(-3, 1, 13), standardize=True, method="majhoo", n_splits=20, random_state=1)
    local = AgghooClassifier(**kwargs).fit(X, y)
    c = _two_workers(client)
    killer = _Killer(c, 0.1)
    killer.start()
    with adask.backend(c, blocks_per_thread=8):
        remote = AgghooClassifier(**kwargs).fit(X, y)
    killer.join()
    assert killer.killed is not None, "no worker was killed while the fit ran"
    _same_fit(local, remote)


def test_blocks_shrink_to_single_units_at_the_end():
    # 10 splits on 2 threads: large first blocks, single splits last (both threads finish together)
    assert [len(b) for b in adask._blocks(10, 2, 2)] == [3, 2, 2, 1, 1, 1]
    for n, threads, per_thread in [(1, 2, 2), (7, 1, 2), (100, 2, 2), (3, 8, 2), (20, 2, 8), (5, 4, 1)]:
        blocks = adask._blocks(n, threads, per_thread)
        assert [u for b in blocks for u in b] == list(range(n)), (n, threads, per_thread)
        sizes = [len(b) for b in blocks]
        assert sizes == sorted(sizes, reverse=True) and sizes[-1] == 1, (n, threads, per_thread)
    assert adask._blocks(0, 2, 2) == []


def test_jobs_pickle_and_report_their_units(data):
    import pickle

    X, y = data
    family = json.loads(agghoo._native.family_spec_json("knn", "1:9:2"))
    plan = lambda text: json.loads(agghoo._native.plan_spec_json(text, None, True))  # noqa: E731
    spec = {"family": family, "methods": ["agghoo", "cv"], "outer": plan("vfold:4"), "inner": plan("mc:3:0.8")}
    job = agghoo._native.compare(
        np.ascontiguousarray(X, dtype=np.float64), y.astype(np.float64), json.dumps(spec),
        {"feature_names": ["a", "b", "c", "d", "e"], "class_names": ["0", "1"]}, {"threads": None, "job": True, "verbose": 0},
    )
    assert job.kind == "nested" and job.n_units == 4
    again = pickle.loads(pickle.dumps(job))
    assert again.to_json() == job.to_json() and again.__dask_tokenize__() == job.__dask_tokenize__()
    outcomes = again.evaluate(np.ascontiguousarray(X, dtype=np.float64), y.astype(np.float64), [3, 1], threads=1)
    assert len(outcomes) == 2 and all(json.loads(job.outcome_json(o))["procedures"] for o in outcomes)


def test_a_forest_split_outcome_travels_as_binary_and_reads_back_exactly(data):
    # A split's outcome carries its kept member (50 trees) as MessagePack, the trees' arrays as
    # byte strings: every number bit for bit, assembled into the same model as the local run.
    X, y = data
    X, yf = np.ascontiguousarray(X, dtype=np.float64), y.astype(np.float64)
    names, classes = [f"x{j}" for j in range(X.shape[1])], [str(c) for c in np.unique(y)]
    spec = json.dumps({"family": {"family": "forest"}, "plan": json.loads(agghoo._native.plan_spec_json("mc:2:0.8")), "seed": 3})
    data = {"feature_names": names, "class_names": classes}
    job = agghoo._native.select(X, yf, spec, data, {"threads": None, "job": True, "verbose": 0})
    outcomes = job.evaluate(X, yf, [0, 1], threads=1)
    assert all(isinstance(o, bytes) for o in outcomes)
    assert all(json.loads(job.outcome_json(o))["model"]["kind"] == "forest" for o in outcomes)
    # narrow integers and the common thresholds and leaf values once: well under the JSON text
    # (with every integer on 4 bytes and every float on 8 it was about 3/4 of it)
    assert all(len(o) < len(job.outcome_json(o)) / 2 for o in outcomes), [(len(o), len(job.outcome_json(o))) for o in outcomes]
    model, report = job.assemble(X, yf, outcomes)
    local_model, local_report = agghoo._native.select(X, yf, spec, data)
    assert report == local_report and model.to_json() == local_model.to_json()
    # a damaged outcome is a typed error naming it, not a crash
    with pytest.raises(agghoo.exceptions.CorruptFileError, match="a unit's outcome"):
        job.assemble(X, yf, [outcomes[0], outcomes[1][: len(outcomes[1]) // 2]])


def test_text_columns_on_the_cluster_equal_the_local_run(client):
    """A DataFrame's text column travels with the job; the workers encode it per training set as a
    local run does: the same selection, predictions, estimate and comparison."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(4)
    city = rng.choice(["Paris", "Lyon", "Nice", "Brest"], size=160)
    frame = pd.DataFrame({"x": rng.normal(size=160), "city": city})
    y = ((frame["x"] + (frame["city"] == "Nice") * 1.5 + 0.3 * rng.normal(size=160)) > 0.5).astype(int)
    local = AgghooClassifier(family="logistic", n_splits=4).fit(frame, y)
    with adask.backend(_two_workers(client)):
        remote = AgghooClassifier(family="logistic", n_splits=4).fit(frame, y)
        estimate = agghoo.estimate_risk(frame, y, family="knn", value=5, plan="vfold:4")
        comparison = agghoo.compare(frame, y, family="knn", grid=[1, 5], methods=["agghoo", "cv"], outer="vfold:3", inner="mc:3:0.8")
    assert remote.report_["splits"] == local.report_["splits"]
    np.testing.assert_array_equal(remote.predict_proba(frame), local.predict_proba(frame))
    assert estimate == agghoo.estimate_risk(frame, y, family="knn", value=5, plan="vfold:4")
    assert comparison == agghoo.compare(frame, y, family="knn", grid=[1, 5], methods=["agghoo", "cv"], outer="vfold:3", inner="mc:3:0.8")
