"""Timing of a three-class Majhoo run of the one-vs-one SVC: agghoo vs scikit-learn's SVC refit
per grid point per split.

Data (numpy seed 20261122): n = 600 training rows and 3000 test rows, 4 features, 3 classes with
Gaussian noise around the vertices of a triangle (overlapping). Both sides use the same 10
Monte-Carlo splits (tau = 0.8, written by `agghoo splits`), the default grid
lambda_j = 2^(j-1) / (500 n), j = 1..17 (C_j = 1 / (2 lambda_j n_t), the same C for every pair),
gamma = 1/d = 0.25, tol = 1e-3, selection by the 0-1 validation risk (first minimiser), members
combined by the majority vote (ties: the member with the lowest validation risk, as agghoo).

agghoo: the release binary (`cargo build --release -p agghoo-cli`), `select --family svc --param
gamma=auto --method majhoo --splits-file` (gamma = 1/d, the peer's), wall clock of the whole process (reading the CSV included), median of 3, on
1 and 2 threads. scikit-learn: SVC(kernel="rbf", gamma=0.25, C=C_j, tol=1e-3) fitted for every
(split, grid point), single-threaded, median of 3.

Run: .venv/bin/python bench/peers/svc_ovo.py [path/to/agghoo]
"""
import os
import re
import subprocess
import sys
import time
import json

import numpy as np
import sklearn
from sklearn.svm import SVC

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "target", "release", "agghoo")
out = os.path.join(root, "target", "bench-svc-ovo")
os.makedirs(out, exist_ok=True)

rng = np.random.default_rng(20261122)
d, k = 4, 3
centres = np.array([[0.0, 0.0, 0.0, 0.0], [1.5, 0.5, 0.0, 0.0], [0.6, 1.4, 0.0, 0.0]])


def draw(n):
    y = rng.integers(0, k, n)
    x = centres[y] + rng.normal(0.0, 0.8, (n, d))
    return x, y


def write(path, x, y):
    with open(path, "w") as f:
        f.write(",".join(f"x{j}" for j in range(d)) + ",y\n")
        for row, label in zip(x, y):
            f.write(",".join(repr(float(v)) for v in row) + f",c{label}\n")


x, y = draw(600)
xt, yt = draw(3000)
data, test = os.path.join(out, "data.csv"), os.path.join(out, "test.csv")
write(data, x, y)
write(test, xt, yt)
splits_file = os.path.join(out, "splits.json")
subprocess.run([binary, "splits", "--data", data, "--target", "y", "--plan", "mc", "--splits", "10", "--seed", "1",
                "--out", splits_file], check=True, capture_output=True)
splits = json.load(open(splits_file))["splits"]

model = os.path.join(out, "model.json")


def ours(threads):
    t = time.perf_counter()
    subprocess.run([binary, "--threads", str(threads), "select", "--data", data, "--target", "y", "--family", "svc",
                    "--param", "gamma=auto", "--method", "majhoo", "--splits-file", splits_file, "--out", model],
                   check=True, capture_output=True)
    return time.perf_counter() - t


results = {}
for threads in [1, 2]:
    results[threads] = sorted(ours(threads) for _ in range(3))[1]
pred = subprocess.run([binary, "predict", "--model", model, "--data", test], check=True, capture_output=True, text=True)
risk = re.search(r"risk \(01\) on (?:these )?\d+ rows: ([0-9.]+)", pred.stderr).group(1)
print(f"ours_seconds_1_thread\t{results[1]:.3f}")
print(f"ours_seconds_2_threads\t{results[2]:.3f}")
print(f"ours_test_error\t{risk}")

n, n_t = len(y), len(splits[0]["train"])
lambdas = [2.0 ** (j - 1) / (500.0 * n) for j in range(1, 18)]
cs = [1.0 / (2.0 * lam * n_t) for lam in lambdas]


def majhoo():
    members = []
    for s in splits:
        tr, va = np.array(s["train"]), np.array(s["validation"])
        best, best_model = np.inf, None
        for c in cs:
            m = SVC(kernel="rbf", gamma=1.0 / d, C=c, tol=1e-3).fit(x[tr], y[tr])
            r = np.mean(m.predict(x[va]) != y[va])
            if r < best:
                best, best_model = r, m
        members.append((best, best_model))
    return members


times = []
for _ in range(3):
    t = time.perf_counter()
    members = majhoo()
    times.append(time.perf_counter() - t)
members.sort(key=lambda m: m[0])  # stable: (risk, split index), agghoo's tie order
votes = np.array([m.predict(xt) for _, m in members])
counts = np.stack([(votes == c).sum(axis=0) for c in range(k)])
top = counts.max(axis=0)
pred = np.array([next(v for v in votes[:, i] if counts[v, i] == top[i]) for i in range(len(yt))])
print(f"peer_seconds\t{sorted(times)[1]:.3f}")
print(f"peer_sklearn\t{sklearn.__version__}")
print(f"peer_test_error\t{np.mean(pred != yt):.4f}")
print(f"speedup_1_thread\t{sorted(times)[1] / results[1]:.1f}")
