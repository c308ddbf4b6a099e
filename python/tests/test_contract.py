"""scikit-learn's contract kept by the estimators: search attributes, seeds, n_jobs, calibrated
probabilities, groups and refused keywords."""

import numpy as np
import pytest
from scipy.stats import rankdata
from sklearn import config_context
from sklearn.linear_model import LogisticRegression, RidgeClassifier
from sklearn.model_selection import GroupKFold
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils._param_validation import InvalidParameterError

from agghoo import AgghooClassifier, AgghooRegressor, AgghooSplitter
from agghoo._results import cv_results, rank_scores
from agghoo._validation import seed_of, threads_of


def test_rank_ties_share_the_smallest_rank_as_scikit_learn():
    mean = [0.5, 0.9, 0.9, 0.9, 0.7, float("nan")]
    assert rank_scores(mean).tolist() == [5, 1, 1, 1, 4, 6]
    r = cv_results([{"k": k} for k in (1, 3, 5)], [[0.8, 0.8, 0.7], [0.6, 0.6, 0.7]])
    assert r["rank_test_score"].tolist() == [1, 1, 1]
    assert r["rank_test_score"].dtype == np.int32


def test_cv_results_ranks_and_times_of_a_built_in_family(breast_cancer):
    X, y = breast_cancer
    clf = AgghooClassifier(grid=[1, 3, 5, 7, 9], method="cv", plan="vfold:3").fit(X, y)
    r = clf.cv_results_
    expected = rankdata(-r["mean_test_score"], method="min")
    np.testing.assert_array_equal(r["rank_test_score"], expected)
    for key in ("mean_fit_time", "std_fit_time", "mean_score_time", "std_score_time"):
        assert r[key].shape == (5,) and np.isfinite(r[key]).all()
    assert (r["mean_fit_time"] > 0).all()
    # higher is better: the negated 0-1 loss
    assert (r["mean_test_score"] <= 0).all()


def test_grid_values_keep_their_type(breast_cancer):
    X, y = breast_cancer
    clf = AgghooClassifier(grid="1:59:2", method="cv", plan="vfold:3").fit(X, y)
    k = clf.best_params_["k"]
    assert type(k) is int and k == clf.member_values_[0]
    assert all(type(v) is int for v in clf.selected_params_)
    assert clf.cv_results_["param_k"].dtype == np.int64
    assert all(type(p["k"]) is int for p in clf.cv_results_["params"])
    reg = AgghooRegressor(family="ridge", grid=[0.1, 1.0, 10.0]).fit(*_small_regression())
    assert all(type(p["lambda"]) is float for p in reg.cv_results_["params"])


def _small_regression():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(80, 4))
    return X, X @ [1.0, -2.0, 0.5, 0.0] + rng.normal(scale=0.3, size=80)


def test_best_attributes_of_cv_and_of_an_aggregate(breast_cancer):
    X, y = breast_cancer
    cv = AgghooClassifier(grid=[1, 5, 9, 15], method="cv", plan="vfold:4").fit(X, y)
    assert cv.best_index_ == cv.report_["member_grid_indices"][0]
    assert cv.best_params_ == cv.cv_results_["params"][cv.best_index_]
    assert cv.best_score_ == cv.cv_results_["mean_test_score"][cv.best_index_]
    assert cv.best_estimator_ is cv and cv.refit is True and cv.n_splits_ == 4
    agg = AgghooClassifier(grid=[1, 5, 9, 15], method="agghoo", n_splits=5).fit(X, y)
    assert agg.cv_results_["rank_test_score"][agg.best_index_] == 1
    assert agg.best_estimator_ is agg and len(agg.selected_params_) == 5


def test_best_attributes_with_estimator(breast_cancer):
    X, y = breast_cancer
    grid = {"C": [0.01, 0.1, 1.0]}
    est = make_pipeline(StandardScaler(), LogisticRegression(max_iter=500))
    cv = AgghooClassifier(estimator=est, param_grid={"logisticregression__" + k: v for k, v in grid.items()}, method="cv", plan="vfold:3").fit(X, y)
    assert cv.best_estimator_ is cv.members_[0]
    assert cv.best_params_ == cv.candidates_[cv.best_index_]
    assert (cv.cv_results_["mean_fit_time"] > 0).all() and (cv.cv_results_["mean_score_time"] > 0).all()
    # the scorer's sign (accuracy, higher is better) as for built-in families
    assert (cv.cv_results_["mean_test_score"] > 0.5).all()
    np.testing.assert_array_equal(cv.cv_results_["rank_test_score"], rankdata(-cv.cv_results_["mean_test_score"], method="min"))


def test_random_state_none_draws_a_seed_that_repeats_the_fit(breast_cancer):
    X, y = breast_cancer
    a = AgghooClassifier(random_state=None, n_splits=4).fit(X, y)
    b = AgghooClassifier(random_state=None, n_splits=4).fit(X, y)
    assert isinstance(a.random_state_, int) and a.random_state_ != b.random_state_
    again = AgghooClassifier(random_state=a.random_state_, n_splits=4).fit(X, y)
    assert again.report_["splits"] == a.report_["splits"]
    # numpy's global seed makes None reproducible, as for scikit-learn's estimators
    np.random.seed(3)
    c = AgghooClassifier(random_state=None, n_splits=4).fit(X, y)
    np.random.seed(3)
    assert AgghooClassifier(random_state=None, n_splits=4).fit(X, y).random_state_ == c.random_state_
    # an int is kept as it is (the CLI's --seed)
    assert AgghooClassifier(random_state=7, n_splits=4).fit(X, y).random_state_ == 7


@pytest.mark.parametrize("make", [np.random.RandomState, np.random.default_rng])
def test_numpy_generators_are_accepted_as_random_state(breast_cancer, make):
    X, y = breast_cancer
    a = AgghooClassifier(random_state=make(5), n_splits=3).fit(X, y)
    b = AgghooClassifier(random_state=make(5), n_splits=3).fit(X, y)
    assert a.random_state_ == b.random_state_ == seed_of(make(5))
    assert a.report_["splits"] == b.report_["splits"]


def test_n_jobs_follows_joblib():
    import joblib

    assert threads_of(None) == 1 and threads_of(2) == 2
    assert threads_of(-1) == joblib.cpu_count()
    assert threads_of(-2) == max(1, joblib.cpu_count() - 1)
    with joblib.parallel_config(n_jobs=3):
        assert threads_of(None) == 3
    with pytest.raises(InvalidParameterError, match="n_jobs"):
        AgghooClassifier(n_jobs=0).fit([[0.0], [1.0], [2.0], [3.0]], [0, 1, 0, 1])


def test_soft_aggregation_is_the_default_and_predict_is_the_argmax(breast_cancer):
    X, y = breast_cancer
    soft = AgghooClassifier(method="majhoo", random_state=1).fit(X, y)
    assert soft.report_["aggregation"] == AgghooClassifier(method="majhoo", aggregation="soft", random_state=1).fit(X, y).report_["aggregation"]
    vote = AgghooClassifier(method="majhoo", aggregation="vote", random_state=1).fit(X, y)
    assert soft.report_["aggregation"] != vote.report_["aggregation"]
    p_soft, p_vote = soft.predict_proba(X), vote.predict_proba(X)
    # the vote gives fractions of 10 members; the mean of the members' probabilities is finer
    assert set(np.round(p_vote.ravel() * 10, 9)) <= set(range(11))
    assert len(np.unique(p_soft)) > 11
    for clf, proba in ((soft, p_soft), (vote, p_vote)):
        np.testing.assert_array_equal(clf.predict(X), clf.classes_[np.argmax(proba, axis=1)])


def test_tied_votes_go_to_the_argmax_of_the_vote_fractions():
    """Two classes, an even number of members: tied votes exist, and predict follows argmax."""
    rng = np.random.RandomState(0)
    X = rng.normal(size=(120, 2))
    y = (X[:, 0] + rng.normal(scale=1.0, size=120) > 0).astype(int)
    clf = AgghooClassifier(method="majhoo", aggregation="vote", n_splits=4, grid=[1, 3, 5, 7, 9, 11], random_state=2).fit(X, y)
    proba = clf.predict_proba(X)
    tied = proba[:, 0] == proba[:, 1]
    np.testing.assert_array_equal(clf.predict(X), clf.classes_[np.argmax(proba, axis=1)])
    assert tied.any(), "the data should give tied votes"


def test_a_hard_vote_gives_probabilities_for_an_estimator_without_them(breast_cancer):
    X, y = breast_cancer
    clf = AgghooClassifier(estimator=RidgeClassifier(), param_grid={"alpha": [0.1, 10.0, 1000.0]}, n_splits=4).fit(X, y)
    assert not hasattr(RidgeClassifier(), "predict_proba") and hasattr(clf, "predict_proba")
    proba = clf.predict_proba(X)
    assert set(np.round(proba.ravel() * 4, 9)) <= {0, 1, 2, 3, 4}
    np.testing.assert_array_equal(clf.predict(X), clf.classes_[np.argmax(proba, axis=1)])
    # with probabilities, the default is their mean
    scaled = make_pipeline(StandardScaler(), LogisticRegression())
    soft = AgghooClassifier(estimator=scaled, param_grid={"logisticregression__C": [0.01, 1.0]}, n_splits=3).fit(X, y)
    assert len(np.unique(soft.predict_proba(X))) > 10


def _grouped(n_groups=12, per_group=10):
    rng = np.random.RandomState(1)
    groups = np.repeat(np.arange(n_groups), per_group)
    X = rng.normal(size=(len(groups), 3)) + groups[:, None] * 0.1
    y = (X[:, 0] + rng.normal(scale=0.5, size=len(groups)) > 0.5).astype(int)
    return X, y, groups


def test_group_plans_keep_groups_whole():
    X, y, groups = _grouped()
    clf = AgghooClassifier(plan="group:4", method="cv", random_state=3).fit(X, y, groups=groups)
    # the same splits as the splitter of the same plan and seed, which keep groups whole
    splits = list(AgghooSplitter("group:4", random_state=3).split(X, y, groups))
    assert [s["n_validation"] for s in clf.report_["splits"]] == [len(v) for _, v in splits]
    for train, validation in splits:
        assert not set(groups[train]) & set(groups[validation])
    expected = AgghooClassifier(estimator=KNeighborsClassifier(), param_grid={"n_neighbors": [1]}, cv=splits, method="cv").fit(X, y)
    assert len(expected.cv_results_["split0_test_score"]) == 1
    with pytest.raises(ValueError, match="groups"):
        AgghooClassifier(plan="group:4").fit(X, y)
    # other plans ignore groups, as scikit-learn's non-group splitters do
    a = AgghooClassifier(n_splits=3).fit(X, y, groups=groups)
    assert a.report_["splits"] == AgghooClassifier(n_splits=3).fit(X, y).report_["splits"]
    # the library reads `group:V`: a malformed one lists every plan form, a stratified one is
    # refused (groups decide the blocks), as for the command line
    with pytest.raises(ValueError, match=r"vfold:V.*group:V.*got `?group:x"):
        list(AgghooSplitter("group:x").split(X, y, groups))
    with pytest.raises(ValueError, match="stratify"):
        list(AgghooSplitter("group:4", stratify=True).split(X, y, groups))


def test_group_splitter_with_estimator_gets_the_groups():
    X, y, groups = _grouped()
    clf = AgghooClassifier(estimator=LogisticRegression(), param_grid={"C": [0.1, 1.0]}, cv=GroupKFold(3), method="cv").fit(X, y, groups=groups)
    assert clf.n_splits_ == 3
    with pytest.raises(ValueError, match="groups"):
        AgghooClassifier(estimator=LogisticRegression(), param_grid={"C": [0.1, 1.0]}, cv=GroupKFold(3), method="cv").fit(X, y)


def test_metadata_routing_brings_groups_through_a_pipeline():
    X, y, groups = _grouped()
    with config_context(enable_metadata_routing=True):
        pipe = make_pipeline(StandardScaler(), AgghooClassifier(plan="group:3", method="cv").set_fit_request(groups=True))
        pipe.fit(X, y, groups=groups)
    splits = list(AgghooSplitter("group:3").split(X, y, groups))
    assert [s["n_validation"] for s in pipe[-1].report_["splits"]] == [len(v) for _, v in splits]
    with config_context(enable_metadata_routing=True):
        unrouted = make_pipeline(StandardScaler(), AgghooClassifier(plan="group:3", method="cv"))
        with pytest.raises(ValueError, match="groups"):
            unrouted.fit(X, y, groups=groups)


@pytest.mark.parametrize("Estimator", [AgghooClassifier, AgghooRegressor])
def test_unknown_fit_keywords_are_refused_by_name(Estimator):
    X, y, _ = _grouped()
    with pytest.raises(TypeError, match="unexpected keyword argument.*class_weight"):
        Estimator().fit(X, y, class_weight="balanced")


def test_a_family_union_selects_like_the_cli(tmp_path, cli, breast_cancer):
    import json

    from conftest import write_csv

    X, y = breast_cancer
    clf = AgghooClassifier(family="knn,logistic", method="cv", plan="vfold:3", standardize=True).fit(X, y)
    families = {p["family"] for p in clf.cv_results_["params"]}
    assert families == {"knn", "logistic"}
    assert clf.best_params_ == clf.cv_results_["params"][clf.best_index_]
    np.testing.assert_array_equal(clf.predict(X), clf.classes_[np.argmax(clf.predict_proba(X), axis=1)])
    data = write_csv(tmp_path / "bc.csv", X, y)
    out = json.loads(cli("select", "--data", data, "--target", "y", "--family", "knn,logistic", "--method", "cv",
                         "--plan", "vfold", "--splits", 3, "--standardize", "--json"))
    assert out["result"]["report"]["cv_curve"] == clf.report_["cv_curve"]


def test_estimate_risk_refuses_a_union_by_name(breast_cancer):
    import agghoo

    X, y = breast_cancer
    with pytest.raises(agghoo.AgghooError, match="family"):
        agghoo.estimate_risk(X, y, family="knn,logistic", value=5)


def test_feature_selector_is_a_transformer_for_pipelines(breast_cancer):
    import agghoo
    from sklearn.base import clone
    from sklearn.model_selection import cross_validate

    X, y = breast_cancer
    selector = agghoo.FeatureSelector(method="pearson", n_features=4).fit(X, y)
    expected = agghoo.select_features(X, y, method="pearson", n_features=4).features
    assert np.flatnonzero(selector.get_support()).tolist() == sorted(expected)
    np.testing.assert_array_equal(selector.transform(X), X[:, sorted(expected)])
    assert selector.get_feature_names_out().tolist() == [f"x{j}" for j in sorted(expected)]
    pipe = make_pipeline(agghoo.FeatureSelector(method="pearson", n_features=4), AgghooClassifier(grid=[3, 7], n_splits=3))
    scores = cross_validate(clone(pipe), X, y, cv=3)["test_score"]
    assert scores.min() > 0.8


def test_estimate_risk_and_compare_take_splitters_and_index_pairs(breast_cancer):
    import agghoo
    from sklearn.model_selection import KFold

    X, y = breast_cancer
    text = agghoo.estimate_risk(X, y, family="knn", value=5, plan="vfold:4", random_state=3)
    same = agghoo.estimate_risk(X, y, family="knn", value=5, plan=agghoo.VFold(4, random_state=3))
    assert same["01"] == text["01"]
    pairs = list(KFold(4, shuffle=True, random_state=0).split(X))
    by_splitter = agghoo.estimate_risk(X, y, family="knn", value=5, plan=KFold(4, shuffle=True, random_state=0))
    by_pairs = agghoo.estimate_risk(X, y, family="knn", value=5, plan=pairs)
    assert by_splitter == by_pairs
    # the size-weighted mean 0-1 loss over the user's folds, by hand
    errors = sum(int((agghoo.AgghooClassifier(grid=[5], method="cv", plan="vfold:2").fit(X[t], y[t]).predict(X[v]) != y[v]).sum()) for t, v in pairs)
    assert abs(by_pairs["01"] - errors / len(y)) < 1e-12
    cmp = agghoo.compare(X, y, grid=[1, 5], methods=["cv"], outer=KFold(3), inner="vfold:3")
    assert len(cmp.procedures[0]["test_risks"]) == 3


def test_group_plans_and_group_splitters_in_the_functions():
    import agghoo

    X, y, groups = _grouped()
    by_plan = agghoo.estimate_risk(X, y, family="knn", value=3, plan="group:4", groups=groups, random_state=1)
    splits = list(AgghooSplitter("group:4", random_state=1).split(X, y, groups))
    assert by_plan == agghoo.estimate_risk(X, y, family="knn", value=3, plan=splits)
    assert agghoo.estimate_risk(X, y, family="knn", value=3, plan=GroupKFold(3), groups=groups)["01"] >= 0
    with pytest.raises(ValueError, match="groups"):
        agghoo.estimate_risk(X, y, family="knn", value=3, plan="group:4")


def test_treecv_drops_rows_with_missing_values_when_asked(breast_cancer):
    import agghoo

    X, y = breast_cancer
    X = X.copy()
    X[::9, 3] = np.nan
    keep = ~np.isnan(X).any(axis=1)
    dropped = agghoo.treecv(X, y, learner="gaussian-nb", folds=5, missing="drop")
    by_hand = agghoo.treecv(X[keep], y[keep], learner="gaussian-nb", folds=5)
    assert dropped.chunk_losses == by_hand.chunk_losses and dropped.estimate == by_hand.estimate
    with pytest.raises(ValueError, match="NaN"):
        agghoo.treecv(X, y, learner="gaussian-nb", folds=5)
    with pytest.raises(ValueError, match="missing"):
        agghoo.treecv(X, y, learner="gaussian-nb", folds=5, missing="median")


def test_estimate_risk_of_any_scikit_learn_estimator(breast_cancer):
    import agghoo
    from sklearn.model_selection import KFold, cross_val_score

    X, y = breast_cancer
    model = make_pipeline(StandardScaler(), LogisticRegression())
    cv = KFold(5, shuffle=True, random_state=0)
    est = agghoo.estimate_risk(X, y, family=model, plan=cv, loss=["01", "logloss"])
    sizes = np.array([len(v) for _, v in cv.split(X)])
    accuracy = cross_val_score(model, X, y, cv=cv)
    assert abs(est["01"] - (1 - sizes @ accuracy / sizes.sum())) < 1e-12
    assert est["logloss"] > 0 and est.summaries[0]["standard_error"] > 0
    # a plan text gives the library's splits: the same splits as the built-in k-NN's
    knn = agghoo.estimate_risk(X, y, family=KNeighborsClassifier(5), plan="vfold:4", random_state=2)
    built_in = agghoo.estimate_risk(X, y, family="knn", value=5, plan="vfold:4", random_state=2)
    assert [s["n_validation"] for s in knn.to_dict()["estimate"]["splits"]] == [s["n_validation"] for s in built_in.to_dict()["estimate"]["splits"]]
    assert abs(knn["01"] - built_in["01"]) <= 3 / len(y)
    with pytest.raises(ValueError, match="loss `squared` is for Regression"):
        agghoo.estimate_risk(X, y, family=model, loss="squared")
    with pytest.raises(ValueError, match="value, params: not used"):
        agghoo.estimate_risk(X, y, family=model, value=3, params={"k": 1})


def test_compare_any_scikit_learn_estimator(breast_cancer):
    import agghoo
    from sklearn.model_selection import KFold

    X, y = breast_cancer
    model = make_pipeline(StandardScaler(), LogisticRegression())
    grid = {"logisticregression__C": [0.01, 1.0]}
    cmp = agghoo.compare(X, y, family=model, grid=grid, methods=["agghoo", "cv"], outer=KFold(3), inner="vfold:3")
    assert [p["label"] for p in cmp.procedures] == ["agghoo", "cv"]
    assert all(len(p["test_risks"]) == 3 for p in cmp.procedures)
    pair = cmp.comparisons[0]
    assert (pair["a"], pair["b"]) == ("agghoo", "cv")
    np.testing.assert_allclose(pair["differences"], np.subtract(cmp.procedures[0]["test_risks"], cmp.procedures[1]["test_risks"]))
    # the cv procedure on the first outer split is the estimator-wrapping AgghooClassifier refitted there
    train, test = next(KFold(3).split(X))
    by_hand = AgghooClassifier(estimator=model, param_grid=grid, method="cv", plan="vfold:3", random_state=0).fit(X[train], y[train])
    assert cmp.procedures[1]["test_risks"][0] == np.mean(by_hand.predict(X[test]) != y[test])
    with pytest.raises(ValueError, match="it fits the mean of the selected hyperparameters"):
        agghoo.compare(X, y, family=model, grid=grid, methods=["ekcv"])
