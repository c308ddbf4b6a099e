"""scikit-learn peer of crates/agghoo/benches/ridge.rs, on the problems that bench wrote.

    .venv/bin/python bench/peers/ridge.py DIR [REPEATS]

Prints `name<TAB>seconds` (best of REPEATS, default 3; the two Agghoo runs, which take a minute
or more here, run once) for the same tasks:
- ridge_path: Ridge(alpha) refit for each of 50 λ on 1600 rows + predict 400 rows (n = 2000, d = 50);
- ridge_loo: RidgeCV(alphas, store_cv_results=True) on 2000 rows (efficient LOO, cv=None);
- kernel_ridge_path: KernelRidge(rbf, γ = 0.1) refit for each of 50 λ on 1000 rows + predict 250;
- agghoo_ridge / agghoo_kernel_ridge: Agghoo by hand with the bench's 10 Monte-Carlo training sets
  (τ = 0.8): per split, refit every λ, pick the first minimiser of the validation MSE, keep the model;
  the aggregate is the mean of the 10 selected models.
"""
import sys
import time

import numpy as np
from sklearn.kernel_ridge import KernelRidge
from sklearn.linear_model import Ridge, RidgeCV

N_LAMBDAS = 50


def load(path):
    a = np.loadtxt(path, delimiter=",")
    return np.ascontiguousarray(a[:, :-1]), a[:, -1].copy()


def load_splits(path, n):
    out = []
    with open(path) as f:
        for line in f:
            train = np.array([int(v) for v in line.strip().split(",")])
            mask = np.ones(n, dtype=bool)
            mask[train] = False
            out.append((train, np.flatnonzero(mask)))
    return out


def best_of(repeats, f):
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - start)
    return best


def path(make, lambdas, x_train, y_train, x_val):
    return [make(lam).fit(x_train, y_train).predict(x_val) for lam in lambdas]


def agghoo(make, lambdas, x, y, splits):
    members = []
    for train, val in splits:
        best, best_risk = None, float("inf")
        for lam in lambdas:
            model = make(lam).fit(x[train], y[train])
            risk = np.mean((model.predict(x[val]) - y[val]) ** 2)
            if risk < best_risk:
                best, best_risk = model, risk
        members.append(best)
    return members


def main():
    directory = sys.argv[1]
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    ridge_lambdas = np.logspace(-3, 4, N_LAMBDAS)
    kernel_lambdas = np.logspace(-4, 2, N_LAMBDAS)
    ridge = lambda lam: Ridge(alpha=lam)
    krr = lambda lam: KernelRidge(alpha=lam, kernel="rbf", gamma=0.1)

    x, y = load(f"{directory}/linear.csv")
    print(f"ridge_path\t{best_of(repeats, lambda: path(ridge, ridge_lambdas, x[:1600], y[:1600], x[1600:]))}", flush=True)
    loo = lambda: RidgeCV(alphas=ridge_lambdas, store_cv_results=True).fit(x, y).cv_results_.mean(axis=0)
    print(f"ridge_loo\t{best_of(repeats, loo)}", flush=True)
    xk, yk = load(f"{directory}/kernel.csv")
    print(f"kernel_ridge_path\t{best_of(repeats, lambda: path(krr, kernel_lambdas, xk[:1000], yk[:1000], xk[1000:]))}", flush=True)
    splits = load_splits(f"{directory}/linear_splits.csv", len(y))
    print(f"agghoo_ridge\t{best_of(1, lambda: agghoo(ridge, ridge_lambdas, x, y, splits))}", flush=True)
    splits = load_splits(f"{directory}/kernel_splits.csv", len(yk))
    print(f"agghoo_kernel_ridge\t{best_of(1, lambda: agghoo(krr, kernel_lambdas, xk, yk, splits))}", flush=True)


if __name__ == "__main__":
    main()
