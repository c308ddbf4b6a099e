"""The Python package against scikit-learn, side by side in one process, on identical splits and
grids: the built-in families (k-NN, RBF SVC) against GridSearchCV, Agghoo over a scikit-learn
estimator against GridSearchCV with the same estimator, and the Python layer's overhead over the
compiled call it wraps. Prints `key<TAB>value` lines (median of --reps runs); exits non-zero on
any failure or when the two sides disagree on the CV curve.

Usage: python bench/python_bench.py [--reps R] [--quick]
"""

import json
import statistics
import sys
import time

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import GridSearchCV
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

import agghoo
from agghoo import AgghooClassifier, AgghooRegressor, MonteCarloSplit

REPS = int(sys.argv[sys.argv.index("--reps") + 1]) if "--reps" in sys.argv else 3
QUICK = "--quick" in sys.argv


def timed(f):
    times, out = [], None
    for _ in range(REPS):
        t = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def out(key, value):
    print(f"{key}\t{value}", flush=True)


def synthetic(n, d, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + X[:, 1] ** 2 - 1 + 0.5 * rng.normal(size=n) > 0).astype(int)
    return X, y


def knn_vs_gridsearch(tag, X, y):
    grid = np.arange(1, 50, 2)
    cv = MonteCarloSplit(10, 0.8, random_state=1)
    ours_s, ours = timed(lambda: AgghooClassifier(family="knn", grid=grid, method="cv", plan="mc:10:0.8", random_state=1, n_jobs=1).fit(X, y))
    peer_s, peer = timed(lambda: GridSearchCV(KNeighborsClassifier(), {"n_neighbors": grid}, cv=cv, n_jobs=1).fit(X, y))
    # agghoo's score is minus the 0-1 risk, scikit-learn's the accuracy: equal up to the constant 1.
    if not np.allclose(ours.cv_results_["mean_test_score"] + 1, peer.cv_results_["mean_test_score"], rtol=0, atol=1e-12):
        raise SystemExit(f"{tag}: the k-NN CV curves differ")
    out(f"{tag}_knn_ours_seconds", f"{ours_s:.4f}")
    out(f"{tag}_knn_peer_seconds", f"{peer_s:.4f}")


def svc_vs_gridsearch(tag, X, y):
    lambdas = np.logspace(-4, 0, 9)
    n_train = int(0.8 * len(y))
    cv = MonteCarloSplit(10, 0.8, random_state=1)
    kwargs = dict(family="svc", grid=lambdas, method="cv", plan="mc:10:0.8", standardize=True, params={"gamma": "auto"}, random_state=1, n_jobs=1)
    ours_s, ours = timed(lambda: AgghooClassifier(**kwargs).fit(X, y))
    # The same rules: C = 1 / (2 λ n_train), γ = 1/d on standardised features.
    cs = 1.0 / (2.0 * lambdas * n_train)
    pipe = make_pipeline(StandardScaler(), SVC(gamma=1.0 / X.shape[1]))
    peer_s, peer = timed(lambda: GridSearchCV(pipe, {"svc__C": cs}, cv=cv, n_jobs=1).fit(X, y))
    diff = np.max(np.abs(ours.cv_results_["mean_test_score"] + 1 - peer.cv_results_["mean_test_score"]))
    out(f"{tag}_svc_ours_seconds", f"{ours_s:.4f}")
    out(f"{tag}_svc_peer_seconds", f"{peer_s:.4f}")
    out(f"{tag}_svc_max_curve_difference", f"{diff:.2e}")


def meta_vs_gridsearch(X, y):
    grid = {"n_neighbors": [1, 3, 5, 9, 15, 25, 41]}
    cv = MonteCarloSplit(10, 0.8, random_state=1)
    ours_s, ours = timed(lambda: AgghooClassifier(estimator=KNeighborsClassifier(), param_grid=grid, method="cv", cv=cv, n_jobs=1).fit(X, y))
    peer_s, peer = timed(lambda: GridSearchCV(KNeighborsClassifier(), grid, cv=cv, n_jobs=1).fit(X, y))
    if ours.best_params_ != peer.best_params_:
        raise SystemExit("meta-estimator: best_params_ differs from GridSearchCV's")
    out("meta_ours_seconds", f"{ours_s:.4f}")
    out("meta_peer_seconds", f"{peer_s:.4f}")


def overhead(tag, make, X, y):
    """The estimator's fit against the bare compiled call with the same arguments."""
    est = make()
    fit_s, _ = timed(lambda: make().fit(X, y))
    Xc = np.ascontiguousarray(X, dtype=np.float64)
    if est._task == "classification":
        classes, codes = np.unique(y, return_inverse=True)
        names, yc = [str(c) for c in classes], codes.astype(np.float64)
    else:
        names, yc = None, np.ascontiguousarray(y, dtype=np.float64)
    from agghoo._estimators import _axes, _grid_text, _params
    from agghoo._validation import seed_of, threads_of

    est.random_state_ = seed_of(est.random_state)
    family = (est.family, _grid_text(est.grid), _params(est.params), _axes(est.grid))
    spec = json.dumps(est._spec(family, est.plan, names is not None))
    data = {"feature_names": [f"x{j}" for j in range(X.shape[1])], "class_names": names}
    run = {"threads": threads_of(est.n_jobs), "job": False, "verbose": 0}
    native_s, _ = timed(lambda: agghoo._native.select(Xc, yc, spec, data, run))
    out(f"{tag}_fit_seconds", f"{fit_s:.4f}")
    out(f"{tag}_native_seconds", f"{native_s:.4f}")


def main():
    Xb, yb = load_breast_cancer(return_X_y=True)
    Xs, ys = synthetic(4_000 if QUICK else 20_000, 10, 2)
    knn_vs_gridsearch("bc", Xb, yb)
    knn_vs_gridsearch("syn", Xs, ys)
    svc_vs_gridsearch("bc", Xb, yb)
    svc_vs_gridsearch("syn", Xs[: (1_000 if QUICK else 5_000)], ys[: (1_000 if QUICK else 5_000)])
    meta_vs_gridsearch(Xb, yb)
    overhead("knn_majhoo", lambda: AgghooClassifier(family="knn", grid=np.arange(1, 50, 2), method="majhoo", plan="mc:10:0.8", random_state=1), Xs, ys)
    rng = np.random.default_rng(5)
    Xr = rng.normal(size=(10_000, 20))
    yr = Xr @ rng.normal(size=20) + rng.normal(size=10_000)
    overhead("ridge_agghoo", lambda: AgghooRegressor(family="ridge", method="agghoo", plan="mc:10:0.8", random_state=1), Xr, yr)


if __name__ == "__main__":
    main()
