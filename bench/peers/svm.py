"""Peer of crates/agghoo/benches/svm.rs: one Agghoo run of scikit-learn's SVR on the same data.

Reads target/bench-svm/{data,test}.csv and splits.txt written by the Rust bench (the papers'
eps-regression problem, n = 500, V = 10 Monte-Carlo splits, tau = 0.8), refits
SVR(kernel="rbf", gamma=2, epsilon=0.25, tol=1e-3) for every grid value on every split (the
papers' grid lambda_j = 2^(j-1) / (500 n_t), i.e. C_j = 1 / (2 lambda_j n_t)), selects per split
by the mean absolute validation error (first minimiser), and averages the V selected predictors.
Prints `name<TAB>value` lines like the Rust bench.
"""
import os
import sys
import time

import numpy as np
import sklearn
from sklearn.svm import SVR

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "target", "bench-svm")
data = np.loadtxt(os.path.join(root, "data.csv"), delimiter=",")
test = np.loadtxt(os.path.join(root, "test.csv"), delimiter=",")
with open(os.path.join(root, "splits.txt")) as f:
    trains = [np.array([int(i) for i in line.split(",")]) for line in f if line.strip()]
x, y = data[:, :1], data[:, 1]
n = len(y)
n_t = len(trains[0])
lambdas = [2.0 ** (j - 1) / (500.0 * n_t) for j in range(1, 18)]
cs = [1.0 / (2.0 * lam * n_t) for lam in lambdas]


def agghoo():
    members, chosen = [], []
    for tr in trains:
        va = np.setdiff1d(np.arange(n), tr)
        best, best_model, best_j = np.inf, None, -1
        for j, c in enumerate(cs):
            m = SVR(kernel="rbf", gamma=2.0, C=c, epsilon=0.25, tol=1e-3).fit(x[tr], y[tr])
            risk = np.mean(np.abs(m.predict(x[va]) - y[va]))
            if risk < best:
                best, best_model, best_j = risk, m, j
        members.append(best_model)
        chosen.append(best_j + 1)
    return members, chosen


reps = int(sys.argv[1]) if len(sys.argv) > 1 else 3
times = []
for _ in range(reps):
    t = time.perf_counter()
    members, chosen = agghoo()
    times.append(time.perf_counter() - t)
pred = np.mean([m.predict(test[:, :1]) for m in members], axis=0)
print(f"peer_seconds\t{sorted(times)[len(times) // 2]:.6f}")
print(f"peer_sklearn\t{sklearn.__version__}")
print(f"peer_test_abs_risk\t{np.mean(np.abs(pred - test[:, 1])):.6f}")
print(f"peer_test_abs_dist_to_regression_fn\t{np.mean(np.abs(pred - np.exp(np.cos(test[:, 0])))):.6f}")
print(f"peer_selected_j\t{','.join(map(str, chosen))}")
