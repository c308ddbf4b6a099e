"""Python peer for the linear-family benchmark (`bench/run-linear.sh` runs it beside `cargo bench --bench linear`).

Usage: linear.py DATA_DIR [gen] [--only TEXT]
- `gen`: writes the benchmark problems to DATA_DIR as raw little-endian f64 files (row-major), read by both sides:
  lasso_x.bin / lasso_y.bin (n = 10 000, d = 500), lassow_x.bin / lassow_y.bin (n = 500, d = 5 000),
  logit_x.bin / logit_y.bin (n = 5 000, d = 50, binary labels 0/1),
  logit3_x.bin / logit3_y.bin (n = 5 000, d = 50, labels 0/1/2),
  logit20_x.bin / logit20_y.bin (n = 2 000, d = 50, 20 classes).
  `gen --small` writes the same files at toy sizes (a smoke test of the scripts, not a benchmark).
- otherwise: times scikit-learn and prints `case seconds` lines (best of REPEATS runs); `--only TEXT` runs the
  cases whose name contains TEXT. Any failure raises (non-zero exit).

Cases (the Rust bench runs the same problems with the same settings):
- {lasso,enet}_path_tol{1e-4,1e-7}: `lasso_path` / `enet_path(l1_ratio=0.5)` on centred data, its default grid
  (100 λ from λ_max to 1e-3 λ_max; for the elastic net λ_max = max|X_cᵀy_c|/(nρ), as ours), at tol 1e-4
  (scikit-learn's default) and 1e-7 (ours). Its gap test `gap ≤ tol ‖y_c‖²` is the same test as ours. n ≫ d:
  scikit-learn's `precompute='auto'` uses the Gram matrix, as we do.
- {lasso,enet}_wide_tol{1e-4,1e-7}: n = 500 < d = 5 000 (no Gram matrix on either side).
- logistic_refit_20C: `LogisticRegression(C, tol=1e-6)` (lbfgs) refitted for 20 values of C = 1/(nλ),
  λ log-spaced from 1 to 1e-4; logistic_multi_refit_20C: the same with 3 classes (multinomial);
  logistic_many_refit_20C: the same with 20 classes (L2 only).
- logistic_l1_refit_20C / logistic_multi_l1_refit_20C: `LogisticRegression(C, l1_ratio=1, solver="saga",
  tol=1e-6)` for 20 λ from 1e-1 to 1e-4 (saga's tol is on the weight change, ours on the optimality error:
  not the same test; the objective is the same).
"""
import sys
import time

import numpy as np

REPEATS = 3


def generate(out, small):
    rng = np.random.default_rng(0)
    sizes = [("lasso", 10_000, 500), ("lassow", 500, 5_000)]
    if small:
        sizes = [("lasso", 200, 500), ("lassow", 50, 5_000)]
    for name, n, d in sizes:
        X = rng.normal(size=(n, d)) + 0.3 * rng.normal(size=(n, 1))
        beta = np.zeros(d)
        beta[:20] = rng.normal(size=20) * 2.0
        y = X @ beta + rng.normal(size=n)
        X.astype("<f8").tofile(f"{out}/{name}_x.bin")
        y.astype("<f8").tofile(f"{out}/{name}_y.bin")
    n, d = (200 if small else 5_000), 50
    X = rng.normal(size=(n, d))
    beta = rng.normal(size=d) * 0.5
    p = 1.0 / (1.0 + np.exp(-(X @ beta + 0.3)))
    y = (rng.random(n) < p).astype(float)
    X.astype("<f8").tofile(f"{out}/logit_x.bin")
    y.astype("<f8").tofile(f"{out}/logit_y.bin")
    multiclass(rng, out, "logit3", n, d, 3)
    multiclass(rng, out, "logit20", 200 if small else 2_000, d, 20)


def multiclass(rng, out, name, n, d, k):
    """Gaussian features, k classes drawn from a softmax of random linear scores; writes name_x/y.bin."""
    X = rng.normal(size=(n, d))
    B = rng.normal(size=(d, k)) * 0.4
    Z = X @ B
    P = np.exp(Z - Z.max(axis=1, keepdims=True))
    P /= P.sum(axis=1, keepdims=True)
    y = np.array([rng.choice(k, p=row) for row in P], dtype=float)
    X.astype("<f8").tofile(f"{out}/{name}_x.bin")
    y.astype("<f8").tofile(f"{out}/{name}_y.bin")


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
        generate(out, "--small" in sys.argv)
        return
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else ""
    from sklearn.linear_model import LogisticRegression, enet_path, lasso_path

    def path(X, y, rho, tol):
        Xc, yc = X - X.mean(axis=0), y - y.mean()
        if rho == 1.0:
            return lasso_path(Xc, yc, n_alphas=100, eps=1e-3, tol=tol, max_iter=100_000)
        return enet_path(Xc, yc, l1_ratio=rho, n_alphas=100, eps=1e-3, tol=tol, max_iter=100_000)

    for data_name, label, d in [("lasso", "path", 500), ("lassow", "wide", 5_000)]:
        X = y = None
        for fam, rho in [("lasso", 1.0), ("enet", 0.5)]:
            for tol_name, tol in [("1e-4", 1e-4), ("1e-7", 1e-7)]:
                case = f"{fam}_{label}_tol{tol_name}"
                if only not in case:
                    continue
                if X is None:
                    X, y = load(out, data_name, d)
                print(f"{case} {best(lambda: path(X, y, rho, tol)):.6f}", flush=True)

    for data_name, prefix in [("logit", "logistic"), ("logit3", "logistic_multi"), ("logit20", "logistic_many")]:
        for penalty, high, suffix in [("l2", 1.0, ""), ("l1", 0.1, "_l1")]:
            case = f"{prefix}{suffix}_refit_20C"
            if only not in case or (data_name == "logit20" and penalty == "l1"):
                continue
            X, y = load(out, data_name, 50)
            n = len(y)
            lambdas = np.logspace(np.log10(high), -4, 20)

            def refit():
                for lam in lambdas:
                    if penalty == "l2":
                        clf = LogisticRegression(C=1.0 / (n * lam), tol=1e-6, max_iter=10_000)
                    else:
                        clf = LogisticRegression(C=1.0 / (n * lam), l1_ratio=1.0, solver="saga", tol=1e-6, max_iter=10_000)
                    clf.fit(X, y)

            print(f"{case} {best(refit):.6f}", flush=True)


if __name__ == "__main__":
    main()
