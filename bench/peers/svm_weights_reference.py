"""Reference values for the weighted SVMs (per-sample C), computed ONCE with scikit-learn.

Writes crates/agghoo/tests/golden/svm_weights_sklearn.json:
- two-class, three-class and regression data (n = 60 training rows, d = 2, 20 test rows) with
  row weights in [0, 3], multiples of 1/64, some exactly 0;
- `SVC(kernel="rbf", gamma=0.5, C=C, tol=1e-10).fit(X, y, sample_weight=w)` and
  `SVR(gamma=0.5, C=C, epsilon=0.1, tol=1e-10)` at several C: scikit-learn gives row i the box
  bound C * w_i (LIBSVM's weighted variant) and drops the rows of weight 0 before solving; the
  decision values on the test rows (`decision_function_shape="ovo"`: one column per pair
  (a, b), a < b, in LIBSVM's order, positive for a) or the SVR's predictions.

Run: .venv/bin/python bench/peers/svm_weights_reference.py
"""
import json
import pathlib

import numpy as np
import sklearn
from sklearn.svm import SVC, SVR

rng = np.random.default_rng(20261128)
n, n_test, d = 60, 20, 2
GAMMA, EPSILON = 0.5, 0.1


def weights(n):
    w = np.round(rng.uniform(0.0, 3.0, n) * 64.0) / 64.0
    w[rng.choice(n, n // 8, replace=False)] = 0.0
    return w


def classes(k):
    labels = rng.integers(0, k, n + n_test)
    centres = np.array([[np.cos(2 * np.pi * c / k), np.sin(2 * np.pi * c / k)] for c in range(k)])
    X = centres[labels] * 1.2 + rng.normal(0.0, 1.0, (n + n_test, d))
    return X, labels


sets = []
for name, k in [("binary", 2), ("three", 3)]:
    X, labels = classes(k)
    w = weights(n)
    fits = []
    for C in [0.1, 1.0, 10.0]:
        est = SVC(kernel="rbf", gamma=GAMMA, C=C, tol=1e-10, decision_function_shape="ovo").fit(X[:n], labels[:n], sample_weight=w)
        dec = est.decision_function(X[n:])
        fits.append({"c": C, "decision": np.asarray(dec).reshape(n_test, -1).ravel().tolist(), "predict": est.predict(X[n:]).tolist()})
    sets.append({"name": name, "task": "classification", "n_classes": k, "x": X.ravel().tolist(), "y": labels.tolist(), "weights": w.tolist(), "fits": fits})

X = rng.normal(0.0, 1.0, (n + n_test, d))
z = np.sin(2.0 * X[:, 0]) + 0.5 * X[:, 1] + rng.normal(0.0, 0.2, n + n_test)
w = weights(n)
fits = []
for C in [0.1, 1.0, 10.0]:
    est = SVR(gamma=GAMMA, C=C, epsilon=EPSILON, tol=1e-10).fit(X[:n], z[:n], sample_weight=w)
    fits.append({"c": C, "decision": est.predict(X[n:]).tolist()})
sets.append({"name": "regression", "task": "regression", "x": X.ravel().tolist(), "y": z.tolist(), "weights": w.tolist(), "fits": fits})

result = {
    "generator": "bench/peers/svm_weights_reference.py",
    "sklearn_version": sklearn.__version__,
    "n_train": n,
    "n_features": d,
    "gamma": GAMMA,
    "epsilon": EPSILON,
    "sets": sets,
}
path = pathlib.Path(__file__).resolve().parents[2] / "crates/agghoo/tests/golden/svm_weights_sklearn.json"
path.write_text(json.dumps(result, indent=1) + "\n")
print("wrote", path)
