"""Input errors name what they mean: a column missing at prediction, sparse input, a label a
user's estimator invents, a Dask client given as an address."""

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin

import agghoo
from agghoo import AgghooClassifier, AgghooRegressor


@pytest.fixture
def frame():
    pd = pytest.importorskip("pandas")
    n = 60
    X = pd.DataFrame(
        {
            "age": [20.0 + (i * 37) % 60 for i in range(n)],
            "city": [["Paris", "Lyon", "Nice"][(i * 7) % 3] for i in range(n)],
            "income": [20.0 + ((i * 53) % 40) / 2 for i in range(n)],
        }
    )
    y = np.array(["yes" if (i * 11) % 5 < 2 else "no" for i in range(n)])
    return X, y


@pytest.mark.parametrize("dropped", [["income"], ["city"], ["age", "income"]])
def test_a_column_missing_at_predict_is_named(frame, dropped):
    X, y = frame
    clf = AgghooClassifier(family="knn", random_state=0).fit(X, y)
    # Numeric codes for the regressor: the same columns.
    reg = AgghooRegressor(family="knn", random_state=0).fit(X, (y == "yes").astype(float))
    expected = "X is missing columns " + str(dropped).replace("[", r"\[").replace("]", r"\]") + " seen at fit"
    for est in (clf, reg):
        with pytest.raises(ValueError, match=expected):
            est.predict(X.drop(columns=dropped))
    with pytest.raises(ValueError, match=expected):
        clf.predict_proba(X.drop(columns=dropped))
    # Every column there, in another order with an extra one: no complaint about missing columns.
    assert len(clf.predict(X[["age", "city", "income"]])) == len(X)


def _sparse(X):
    sparse = pytest.importorskip("scipy.sparse")
    return sparse.csr_matrix(X)


@pytest.mark.parametrize(
    "call",
    [
        lambda X, y: agghoo.estimate_risk(X, y, family="knn", value=3, plan="vfold:3"),
        lambda X, y: agghoo.treecv(X, y, learner="pegasos", folds=3),
        lambda X, y: agghoo.compare(X, y, family="knn", grid=[1, 3], outer="vfold:3", inner="vfold:3"),
        lambda X, y: agghoo.select_features(X, y),
        lambda X, y: AgghooClassifier(family="knn").fit(X, y),
        lambda X, y: AgghooRegressor(family="knn").fit(X, y.astype(float)),
    ],
    ids=["estimate_risk", "treecv", "compare", "select_features", "classifier", "regressor"],
)
def test_sparse_input_is_refused_with_how_to_densify(call):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] > 0).astype(int)
    with pytest.raises(TypeError, match=r"sparse input is not supported, densify it first with X\.toarray\(\)"):
        call(_sparse(X), y)


def test_sparse_input_at_predict_is_refused_like_at_fit():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 3))
    clf = AgghooClassifier(family="knn").fit(X, (X[:, 0] > 0).astype(int))
    with pytest.raises(TypeError, match=r"X\.toarray\(\)"):
        clf.predict(_sparse(X))


class _Inventor(ClassifierMixin, BaseEstimator):
    """A classifier that predicts the label 7, never a class of its training target."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.full(len(X), 7)


@pytest.mark.parametrize(
    "method, which", [("agghoo", r"member 0 \(fitted on split 0\)"), ("cv", r"member 0 \(refitted on all rows\)"), ("acv", r"member 0 \(refitted on all rows\)")]
)
def test_an_estimator_predicting_an_unseen_label_is_named(method, which):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(40, 2))
    y = (X[:, 0] > 0).astype(int)
    clf = AgghooClassifier(estimator=_Inventor(), param_grid={}, method=method, n_splits=3).fit(X, y)
    with pytest.raises(ValueError, match=rf"{which}, a _Inventor, gives the label 7, which is not a class of the training target \(classes \[0, 1\]\)"):
        clf.predict(X)


@pytest.mark.parametrize(
    "call",
    [
        lambda X, y, c: agghoo.treecv(X, y, learner="pegasos", folds=3, client=c),
        lambda X, y, c: agghoo.estimate_risk(X, y, family="knn", value=3, plan="vfold:3", client=c),
    ],
    ids=["treecv", "estimate_risk"],
)
def test_a_client_that_is_not_a_dask_client_is_a_type_error(call):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 2))
    y = (X[:, 0] > 0).astype(int)
    with pytest.raises(TypeError, match=r"client must be a dask.distributed.Client, got str 'tcp://127.0.0.1:8786'"):
        call(X, y, "tcp://127.0.0.1:8786")


def test_a_backend_that_is_not_a_dask_client_is_a_type_error():
    import agghoo.dask

    with pytest.raises(TypeError, match="client must be a dask.distributed.Client"):
        with agghoo.dask.backend("tcp://127.0.0.1:8786"):
            pass
