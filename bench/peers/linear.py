"""Python peer for the linear-family benchmark (`bench/run-linear.sh` runs it beside `cargo bench --bench linear`).

Usage: linear.py DATA_DIR [gen]
- `gen`: writes the benchmark problems to DATA_DIR as raw little-endian f64 files (row-major), read by both sides:
  lasso_x.bin / lasso_y.bin (n = 10 000, d = 500), lassow_x.bin / lassow_y.bin (n = 500, d = 5 000),
  logit_x.bin / logit_y.bin (n = 5 000, d = 50, binary labels 0/1).
- otherwise: times scikit-learn and prints `case seconds` lines (best of REPEATS runs).

Cases (the Rust bench runs the same problems with the same settings):
- lasso_path_tol1e-4: `lasso_path` on centred data, its default grid (100 λ from λ_max to 1e-3 λ_max), tol 1e-4
  (scikit-learn's default; its gap test `gap ≤ tol ‖y_c‖²` is the same test as ours);
- lasso_path_tol1e-7: the same at tol 1e-7 (our default);
- lasso_wide_tol1e-4: n = 500 < d = 5 000 (no Gram matrix on either side);
- logistic_refit_20C: `LogisticRegression(C, tol=1e-6, warm_start=False)` refitted for 20 values of C = 1/(nλ),
  λ log-spaced from 1 to 1e-4.
"""
import sys
import time

import numpy as np

REPEATS = 3


def generate(out):
    rng = np.random.default_rng(0)
    for name, n, d in [("lasso", 10_000, 500), ("lassow", 500, 5_000)]:
        X = rng.normal(size=(n, d)) + 0.3 * rng.normal(size=(n, 1))
        beta = np.zeros(d)
        beta[:20] = rng.normal(size=20) * 2.0
        y = X @ beta + rng.normal(size=n)
        X.astype("<f8").tofile(f"{out}/{name}_x.bin")
        y.astype("<f8").tofile(f"{out}/{name}_y.bin")
    n, d = 5_000, 50
    X = rng.normal(size=(n, d))
    beta = rng.normal(size=d) * 0.5
    p = 1.0 / (1.0 + np.exp(-(X @ beta + 0.3)))
    y = (rng.random(n) < p).astype(float)
    X.astype("<f8").tofile(f"{out}/logit_x.bin")
    y.astype("<f8").tofile(f"{out}/logit_y.bin")


def load(out, name, d):
    X = np.fromfile(f"{out}/{name}_x.bin", dtype="<f8").reshape(-1, d)
    y = np.fromfile(f"{out}/{name}_y.bin", dtype="<f8")
    return X, y


def best(fn):
    times = []
    for _ in range(REPEATS):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main():
    out = sys.argv[1]
    if len(sys.argv) > 2 and sys.argv[2] == "gen":
        generate(out)
        return
    from sklearn.linear_model import LogisticRegression, lasso_path

    X, y = load(out, "lasso", 500)

    def lasso(X, y, tol):
        Xc, yc = X - X.mean(axis=0), y - y.mean()
        return lasso_path(Xc, yc, n_alphas=100, eps=1e-3, tol=tol, max_iter=100_000)

    print(f"lasso_path_tol1e-4 {best(lambda: lasso(X, y, 1e-4)):.6f}")
    print(f"lasso_path_tol1e-7 {best(lambda: lasso(X, y, 1e-7)):.6f}")
    Xw, yw = load(out, "lassow", 5_000)
    print(f"lasso_wide_tol1e-4 {best(lambda: lasso(Xw, yw, 1e-4)):.6f}")

    Xl, yl = load(out, "logit", 50)
    n = len(yl)
    lambdas = np.logspace(0, -4, 20)

    def refit():
        for lam in lambdas:
            LogisticRegression(C=1.0 / (n * lam), tol=1e-6, max_iter=10_000, warm_start=False).fit(Xl, yl)

    print(f"logistic_refit_20C {best(refit):.6f}")


if __name__ == "__main__":
    main()
