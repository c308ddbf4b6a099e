"""Whole-process timing of CV over a wide C range for a binary RBF SVC: the `agghoo select` process
against a Python process running scikit-learn's GridSearchCV on the same splits.

Data (numpy seed 20261127): n = 2000 rows, d = 10 features (standard normal), y = 1 when
x0 + x1^2 - 1 + 0.5 e > 0 (e standard normal). 10 Monte-Carlo splits (tau = 0.8) written by
`agghoo splits` and read by both sides; 12 C values log-spaced over 1e-2..1e3 (`--grid
C=log:1e-2:1e3:12`; the peer uses the C values agghoo reports); gamma = 1/d on both sides
(`--param gamma=auto`, `SVC(gamma=0.1)`); tol = 1e-3; 0-1 validation risk, CV selection.

agghoo: `select --method cv --splits-file` (the release binary), wall clock of the whole process,
reading the CSV included, default threads (all cores). The peer: `python -c` of
GridSearchCV(SVC(...), n_jobs=-1, refit=False, cv=<the same splits>), wall clock of the whole
process including importing scikit-learn and reading the CSV. Both medians of `reps` runs,
interleaved. The curves must agree (each mean 0-1 risk within 1e-9; the solvers stop at the
same tolerance, so a validation point may in principle flip: the script fails if more than
1 % of a point's validation predictions differ, and prints the largest difference).

Run: .venv/bin/python bench/peers/svc_wide.py [reps] [path/to/agghoo]
"""
import json
import os
import subprocess
import sys
import time

import numpy as np

reps = int(sys.argv[1]) if len(sys.argv) > 1 else 3
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
binary = sys.argv[2] if len(sys.argv) > 2 else os.path.join(root, "target", "release", "agghoo")
out = os.path.join(root, "target", "bench-svc-wide")
os.makedirs(out, exist_ok=True)

rng = np.random.default_rng(20261127)
n, d = 2000, 10
x = rng.standard_normal((n, d))
y = (x[:, 0] + x[:, 1] ** 2 - 1 + 0.5 * rng.standard_normal(n) > 0).astype(int)
data = os.path.join(out, "data.csv")
with open(data, "w") as f:
    f.write(",".join(f"x{j}" for j in range(d)) + ",y\n")
    for row, label in zip(x, y):
        f.write(",".join(repr(float(v)) for v in row) + f",c{label}\n")
splits_file = os.path.join(out, "splits.json")
subprocess.run([binary, "splits", "--data", data, "--target", "y", "--plan", "mc", "--splits", "10", "--seed", "1",
                "--out", splits_file], check=True, capture_output=True)

ours_cmd = [binary, "select", "--data", data, "--target", "y", "--family", "svc", "--param", "gamma=auto",
            "--grid", "C=log:1e-2:1e3:12", "--method", "cv", "--splits-file", splits_file, "--json"]

peer_src = r"""
import json, sys, time
import numpy as np
from sklearn.model_selection import GridSearchCV
from sklearn.svm import SVC
data, splits_file, cs = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
raw = np.genfromtxt(data, delimiter=",", skip_header=1, dtype=str)
X = raw[:, :-1].astype(float)
y = raw[:, -1]
splits = [(np.asarray(s["train"]), np.asarray(s["validation"])) for s in json.load(open(splits_file))["splits"]]
search = GridSearchCV(SVC(kernel="rbf", gamma=1.0 / X.shape[1], tol=1e-3), {"C": cs}, cv=splits, n_jobs=-1,
                      refit=False, scoring="accuracy")
search.fit(X, y)
print(json.dumps(list(1.0 - search.cv_results_["mean_test_score"])))
"""


def ours():
    t = time.perf_counter()
    p = subprocess.run(ours_cmd, check=True, capture_output=True, text=True)
    return time.perf_counter() - t, json.loads(p.stdout)


def peer(cs):
    t = time.perf_counter()
    p = subprocess.run([sys.executable, "-c", peer_src, data, splits_file, json.dumps(cs)], check=True,
                       capture_output=True, text=True)
    return time.perf_counter() - t, json.loads(p.stdout)


ours_times, peer_times = [], []
report = None
for _ in range(reps):
    t, doc = ours()
    ours_times.append(t)
    report = doc["result"]["report"]
    cs = [float(c) for c in report["grid"]]
    t, peer_curve = peer(cs)
    peer_times.append(t)

ours_curve = report["cv_curve"]
if isinstance(ours_curve, dict):
    ours_curve = ours_curve.get("mean") or ours_curve.get("means")
diff = max(abs(a - b) for a, b in zip(ours_curve, peer_curve))
n_val = len(json.load(open(splits_file))["splits"][0]["validation"])
print(f"grid_C\t{','.join(f'{c:.4g}' for c in cs)}")
print(f"ours_seconds\t{np.median(ours_times):.3f}")
print(f"peer_seconds\t{np.median(peer_times):.3f}")
print(f"ratio\t{np.median(peer_times) / np.median(ours_times):.2f}")
print(f"curve_max_abs_diff\t{diff:.3g}")
if diff > 0.01:
    sys.exit(f"the CV curves differ by {diff} (more than 1 % of the validation rows): {ours_curve} vs {peer_curve}")
