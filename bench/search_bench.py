"""AgghooSearchCV(method="cv") against GridSearchCV, whole `fit`, same folds, same cores: k-NN
n_neighbors 1..99 on breast cancer with 10 ShuffleSplit folds, and HistGradientBoostingClassifier
max_iter 10..200 (20 points) with 3 folds. Checks that the curves agree and prints
"key<TAB>value" lines (seconds: the median over --reps alternating runs).

Usage: python bench/search_bench.py [--reps R] [--quick]
"""

import argparse
import statistics
import sys
import time

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.model_selection import GridSearchCV, KFold, ShuffleSplit
from sklearn.neighbors import KNeighborsClassifier

from agghoo import AgghooSearchCV


def out(key, value):
    print(f"{key}\t{value}", flush=True)


def case(tag, estimator, grid, cv, X, y, reps, tol):
    ours_t, peer_t = [], []
    for _ in range(reps):  # alternate, so both sides see the same machine state
        start = time.perf_counter()
        ours = AgghooSearchCV(estimator, grid, cv=cv, method="cv").fit(X, y)
        ours_t.append(time.perf_counter() - start)
        start = time.perf_counter()
        peer = GridSearchCV(estimator, grid, cv=cv).fit(X, y)
        peer_t.append(time.perf_counter() - start)
    if not ours.cv_results_["path"].all():
        raise SystemExit(f"{tag}: some candidates were not evaluated on a path")
    difference = float(np.max(np.abs(ours.cv_results_["mean_test_score"] - peer.cv_results_["mean_test_score"])))
    if difference > tol or ours.best_params_ != peer.best_params_:
        raise SystemExit(f"{tag}: the curves differ by {difference} (best {ours.best_params_} vs {peer.best_params_})")
    out(f"{tag}_ours_seconds", f"{statistics.median(ours_t):.4f}")
    out(f"{tag}_peer_seconds", f"{statistics.median(peer_t):.4f}")
    out(f"{tag}_max_curve_difference", f"{difference:.3g}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="tiny sizes: checks that the bench runs")
    args = parser.parse_args()
    X, y = load_breast_cancer(return_X_y=True)
    ks = list(range(1, 100)) if not args.quick else [1, 3, 5]
    iters = list(range(10, 201, 10)) if not args.quick else [2, 4]
    splits = ShuffleSplit(10 if not args.quick else 2, random_state=0)
    case("knn", KNeighborsClassifier(), {"n_neighbors": ks}, splits, X, y, args.reps, 1e-12)
    hgb = HistGradientBoostingClassifier(early_stopping=False, random_state=0)
    rows = slice(None) if not args.quick else slice(0, 150)
    case("hgb", hgb, {"max_iter": iters}, KFold(3), X[rows], y[rows], args.reps, 1e-12)


if __name__ == "__main__":
    sys.exit(main())
