"""Peers for the risk-estimation benchmark (bench/run-estimate.sh). Prints `case<TAB>median seconds`.

1. Nested CV on the Breast Cancer Wisconsin data (data/breast-cancer-wisconsin.csv; `id` dropped,
   target `class`, the 16 rows with a missing `bare_nuclei` dropped: 683 rows, 9 features):
   outer 10-fold, inner 10-fold, k in {1, 3, ..., 99}, 0-1 loss — the scikit-learn composition
   `cross_validate(GridSearchCV(KNeighborsClassifier(), {"n_neighbors": ks}, cv=10), X, y, cv=10)`,
   with n_jobs=1 and with n_jobs=-1 on the outer loop (2 cores here).
2. Bootstrap .632+ of k-NN regression (k = 10) with mlxtend's `bootstrap_point632_score`, whose
   no-information rate enumerates the n^2 pairs in Python: n = 1000, B = 20 only.
"""
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.model_selection import GridSearchCV, KFold, cross_validate
from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor

ROOT = Path(__file__).resolve().parents[2]
quick = "--quick" in sys.argv


def median_time(f, reps):
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return float(np.median(times))


def breast_cancer():
    d = pd.read_csv(ROOT / "data" / "breast-cancer-wisconsin.csv").dropna()
    y = d["class"].to_numpy()
    x = d.drop(columns=["id", "class"]).to_numpy(dtype=float)
    return x, y


def nested(x, y, n_jobs, seed):
    inner = KFold(10, shuffle=True, random_state=seed)
    outer = KFold(10, shuffle=True, random_state=seed + 1)
    search = GridSearchCV(KNeighborsClassifier(), {"n_neighbors": list(range(1, 100, 2))}, cv=inner)
    return cross_validate(search, x, y, cv=outer, n_jobs=n_jobs)["test_score"]


def main():
    x, y = breast_cancer()
    assert x.shape == (683, 9), x.shape
    reps = 1
    scores = nested(x, y, 1, 0)
    print(f"nested_sklearn_error\t{1 - scores.mean():.6f}", flush=True)
    print(f"nested_sklearn_1job\t{median_time(lambda: nested(x, y, 1, 0), reps):.6f}", flush=True)
    print(f"nested_sklearn_alljobs\t{median_time(lambda: nested(x, y, -1, 0), reps):.6f}", flush=True)

    from mlxtend.evaluate import bootstrap_point632_score

    rng = np.random.default_rng(0)
    n = 1000
    xr = rng.normal(size=(n, 2))
    yr = np.sin(3 * xr[:, 0]) + xr[:, 1] + 0.3 * rng.normal(size=n)
    f = lambda: bootstrap_point632_score(KNeighborsRegressor(n_neighbors=10), xr, yr, n_splits=20, method=".632+", random_seed=1)
    print(f"bootstrap632plus_n1000_b20_mlxtend\t{median_time(f, 1):.6f}", flush=True)


main()
