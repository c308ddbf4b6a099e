"""AgghooSearchCV's path dispatch for RidgeClassifier, KernelRidge, Lasso, ElasticNet and decision
trees (ccp_alpha): GridSearchCV's curve and choice on the same folds, each within its family's
tolerance; settings a family does not model fall back to scikit-learn's own fits."""

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.ensemble import RandomForestClassifier
from sklearn.kernel_ridge import KernelRidge
from sklearn.linear_model import ElasticNet, Lasso, Ridge, RidgeClassifier
from sklearn.model_selection import KFold, StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from test_search import _same_as_grid_search as same_as_grid_search

from agghoo import AgghooSearchCV


def _same_as_grid_search(estimator, grid, X, y, cv, scoring=None, atol=1e-12, path=True):
    """test_search's comparison, with ``path`` per candidate (a list) or for all of them."""
    ours, theirs = same_as_grid_search(estimator, grid, X, y, cv, scoring=scoring, atol=atol, path=bool(np.all(path)))
    assert ours.cv_results_["path"].tolist() == (path if isinstance(path, list) else [path] * len(ours.cv_results_["params"]))
    return ours, theirs


def _said(capsys, estimator, grid, X, y):
    AgghooSearchCV(estimator, grid, cv=3, method="cv", verbose=1).fit(X, y)
    return capsys.readouterr().out


@pytest.fixture(scope="module")
def iris():
    return load_iris(return_X_y=True)


@pytest.fixture(scope="module")
def scaled_diabetes(diabetes):
    X, y = diabetes
    return StandardScaler().fit_transform(X), (y - y.mean()) / y.std()


def test_ridge_classifier_binary_on_a_path(breast_cancer, capsys):
    X, y = breast_cancer
    pipe = make_pipeline(StandardScaler(), RidgeClassifier())
    grid = {"ridgeclassifier__alpha": [1e-2, 0.1, 1.0, 10.0, 100.0]}
    # The decisions agree to rounding: the labels (their signs) and the ROC AUC exactly here.
    _same_as_grid_search(pipe, grid, X, y, KFold(4, shuffle=True, random_state=0), atol=1e-12)
    _same_as_grid_search(pipe, grid, X, y, KFold(4, shuffle=True, random_state=0), scoring="roc_auc", atol=1e-12)
    assert "RidgeClassifier alpha: path family 'ridge'" in _said(capsys, RidgeClassifier(), {"alpha": [0.1, 1.0]}, X, y)


def test_ridge_classifier_multiclass_on_a_path(iris):
    X, y = iris
    labels = np.array(["setosa", "versicolor", "virginica"])[y]  # string classes, three ±1 regressions
    _same_as_grid_search(RidgeClassifier(), {"alpha": [1e-3, 0.1, 1.0, 10.0, 1000.0]}, X, labels, StratifiedKFold(5, shuffle=True, random_state=2))


def test_kernel_ridge_on_a_path(scaled_diabetes, capsys):
    X, y = scaled_diabetes
    grid = {"alpha": [1e-2, 0.1, 1.0, 10.0], "gamma": [None, 0.05]}
    # (K + αI) solved by an eigendecomposition (agghoo) or a Cholesky factorisation (scikit-learn):
    # R² and squared errors agree to 1e-13 here.
    _same_as_grid_search(KernelRidge(kernel="rbf"), grid, X, y, KFold(4), atol=1e-12)
    for kernel in ({"kernel": "linear"}, {"kernel": "poly", "degree": 2, "coef0": 0.5}):
        _same_as_grid_search(KernelRidge(**kernel), {"alpha": [0.1, 1.0, 10.0]}, X, y, KFold(3), scoring="neg_mean_squared_error", atol=1e-12)
    assert "KernelRidge alpha: path family 'kernel-ridge'" in _said(capsys, KernelRidge(kernel="rbf"), {"alpha": [0.1, 1.0]}, X, y)


def test_lasso_on_a_path(scaled_diabetes, capsys):
    X, y = scaled_diabetes
    grid = {"alpha": [1e-3, 1e-2, 0.05, 0.1, 0.5]}
    # Coordinate descent on both sides, scikit-learn's to tol=1e-12: the R² agree to 1e-10 (1e-13 here).
    _same_as_grid_search(Lasso(tol=1e-12, max_iter=100_000), grid, X, y, KFold(5), atol=1e-10)
    assert "Lasso alpha: path family 'lasso'" in _said(capsys, Lasso(), grid, X, y)


def test_elastic_net_pipeline_on_a_path(diabetes):
    X, y = diabetes
    pipe = make_pipeline(StandardScaler(), ElasticNet(tol=1e-12, max_iter=100_000))
    grid = {"elasticnet__alpha": [1e-2, 0.1, 1.0, 5.0], "elasticnet__l1_ratio": [0.1, 0.5, 0.9]}
    _same_as_grid_search(pipe, grid, X, y, KFold(4, shuffle=True, random_state=1), scoring="neg_mean_absolute_error", atol=1e-9)


def test_decision_tree_ccp_alpha_is_exact_at_the_pruning_sequence(breast_cancer, capsys):
    X, y = breast_cancer
    tree = DecisionTreeClassifier(random_state=0)
    # The α's of the pruning sequence itself: each one prunes its own step (scikit-learn prunes
    # when ccp_alpha ≥ the weakest link's α), the case where rounding or a tie would show.
    alphas = tree.cost_complexity_pruning_path(X, y).ccp_alphas
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    ours, theirs = _same_as_grid_search(tree, {"ccp_alpha": list(alphas)}, X, y, cv, atol=0)
    for j in range(5):
        np.testing.assert_array_equal(ours.cv_results_[f"split{j}_test_score"], theirs.cv_results_[f"split{j}_test_score"])
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    grid = {"decisiontreeclassifier__ccp_alpha": list(alphas[::3]), "decisiontreeclassifier__max_depth": [3, None]}
    _same_as_grid_search(make_pipeline(StandardScaler(), tree), grid, X, y, cv, scoring="neg_log_loss", atol=0)
    out = _said(capsys, tree, {"ccp_alpha": [0.0, 0.01]}, X, y)
    assert "DecisionTreeClassifier ccp_alpha: one tree per split, pruned at each ccp_alpha" in out


def test_decision_tree_regressor_on_a_path(diabetes):
    X, y = diabetes
    tree = DecisionTreeRegressor(random_state=3, min_samples_leaf=3)
    alphas = tree.cost_complexity_pruning_path(X, y).ccp_alphas
    grid = {"ccp_alpha": list(alphas[:: max(1, len(alphas) // 25)]), "max_depth": [4, None], "max_leaf_nodes": [None, 20]}
    _same_as_grid_search(tree, grid, X, y, KFold(4, shuffle=True, random_state=0), atol=0)


@pytest.mark.filterwarnings("ignore:With alpha=0:UserWarning")
def test_settings_the_families_do_not_model_fall_back_to_refits(breast_cancer, scaled_diabetes, capsys):
    X, y = breast_cancer
    _same_as_grid_search(RidgeClassifier(class_weight="balanced"), {"alpha": [0.1, 1.0]}, X, y, KFold(3), path=False)
    assert "generic refits for RidgeClassifier with class_weight" in _said(capsys, RidgeClassifier(class_weight="balanced"), {"alpha": [1.0]}, X, y)
    Xr, yr = scaled_diabetes
    # positive=True, a kernel the family lacks, fit_intercept=False: scikit-learn's own fits.
    _same_as_grid_search(Lasso(positive=True), {"alpha": [0.01, 0.1]}, Xr, yr, KFold(3), path=False)
    _same_as_grid_search(KernelRidge(kernel="laplacian"), {"alpha": [0.1, 1.0]}, Xr, yr, KFold(3), path=False)
    _same_as_grid_search(KernelRidge(kernel="poly", coef0=-1.0, degree=2), {"alpha": [0.1, 1.0]}, Xr, yr, KFold(3), path=False)
    _same_as_grid_search(KernelRidge(kernel="rbf", kernel_params={"gamma": 0.3}), {"alpha": [1.0]}, Xr, yr, KFold(3), path=False)
    grid = {"alpha": [0.01, 0.1], "fit_intercept": [True, False]}
    _same_as_grid_search(ElasticNet(tol=1e-12, max_iter=100_000), grid, Xr, yr, KFold(3), atol=1e-10, path=[True, False, True, False])
    assert "kernel='laplacian'" in _said(capsys, KernelRidge(kernel="laplacian"), {"alpha": [1.0]}, Xr, yr)
    # alpha = 0 is a valid Lasso (least squares) but not on the family's logarithmic grid.
    _same_as_grid_search(Lasso(tol=1e-12, max_iter=100_000), {"alpha": [0.0, 0.1]}, Xr, yr, KFold(3), atol=1e-10, path=[False, True])


def test_random_forests_stay_on_refits_and_say_why(breast_cancer, capsys):
    X, y = breast_cancer
    forest = RandomForestClassifier(n_estimators=5, random_state=0)
    _same_as_grid_search(forest, {"max_features": [1, 5]}, X, y, KFold(3), path=False)
    assert "agghoo's forest draws its own bootstraps" in _said(capsys, forest, {"max_features": [1]}, X, y)


def test_several_target_columns_are_refitted_or_pruned(diabetes, capsys):
    X, y = diabetes
    Y = np.column_stack([y, np.sqrt(y)])
    # The families fit one target column: scikit-learn's multi-output fits (it raised a TypeError).
    for estimator in (Ridge(), Lasso(), KernelRidge(kernel="rbf")):
        _same_as_grid_search(estimator, {"alpha": [0.1, 1.0]}, X, Y, KFold(3), path=False)
    assert "fits one target column, y has shape (442, 2)" in _said(capsys, Lasso(), {"alpha": [1.0]}, X, Y)
    # A multi-output tree is pruned as scikit-learn prunes it.
    _same_as_grid_search(DecisionTreeRegressor(random_state=0), {"ccp_alpha": [0.0, 1.0, 10.0, 100.0]}, X, Y, KFold(3), atol=0)
