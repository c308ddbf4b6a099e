"""Reference values for the ridge / kernel ridge tests (run once; the Rust tests never run Python).

    .venv/bin/python bench/peers/ridge_reference.py > crates/agghoo/tests/golden/ridge_sklearn.json

A small fixed data set (15 training rows, 5 test rows, 3 features, values rounded to 4 decimals so
they read back exactly), then scikit-learn's Ridge, KernelRidge and RidgeCV (efficient LOO) on it.
"""
import json
import sys

import numpy as np
import sklearn
from sklearn.kernel_ridge import KernelRidge
from sklearn.linear_model import Ridge, RidgeCV

rng = np.random.default_rng(20261122)
n_train, n_test, d = 15, 5, 3
x = np.round(rng.normal(size=(n_train + n_test, d)) * 1.5, 4)
y = np.round(x @ np.array([1.0, -2.0, 0.5]) + 3.0 + rng.normal(size=n_train + n_test) * 0.5, 4)
x_train, y_train, x_test = x[:n_train], y[:n_train], x[n_train:]
lambdas = [0.01, 1.0, 10.0]

ridge = []
for lam in lambdas:
    m = Ridge(alpha=lam, solver="cholesky").fit(x_train, y_train)
    ridge.append({"lambda": lam, "weights": m.coef_.tolist(), "intercept": float(m.intercept_), "predictions": m.predict(x_test).tolist()})

kernels = [
    {"kernel": "rbf", "gamma": 0.5},
    {"kernel": "poly", "gamma": 0.3, "coef0": 1.0, "degree": 3},
    {"kernel": "linear"},
]
kernel_ridge = []
for params in kernels:
    for lam in lambdas:
        m = KernelRidge(alpha=lam, **params).fit(x_train, y_train)
        kernel_ridge.append({"lambda": lam, **params, "dual": m.dual_coef_.tolist(), "predictions": m.predict(x_test).tolist()})

cv = RidgeCV(alphas=lambdas, store_cv_results=True).fit(x_train, y_train)
loo = cv.cv_results_.mean(axis=0).tolist()  # mean squared LOO error per alpha (cv_results_ is n × alphas)

json.dump(
    {
        "source": f"bench/peers/ridge_reference.py, scikit-learn {sklearn.__version__}, numpy {np.__version__}",
        "tolerance": "1e-9 relative: both sides solve well-conditioned 3x3 / 15x15 systems in double precision",
        "n_features": d,
        "x_train": x_train.tolist(),
        "y_train": y_train.tolist(),
        "x_test": x_test.tolist(),
        "ridge": ridge,
        "kernel_ridge": kernel_ridge,
        "ridge_loo": {"lambdas": lambdas, "mean_squared_loo": loo},
    },
    sys.stdout,
    indent=1,
)
print()
