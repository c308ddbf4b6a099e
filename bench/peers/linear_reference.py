"""Reference values for crates/agghoo/tests/linear.rs (Lasso / elastic net / logistic regression).

Run once: `.venv/bin/python bench/peers/linear_reference.py > crates/agghoo/tests/golden/linear_reference.json`.
The Rust tests never run Python; they read the JSON this script printed (data included).

Conventions checked:
- sklearn's `lasso_path` / `enet_path` (alpha = our λ, l1_ratio = our ρ) fit no intercept, so the data are
  centred here, and the intercept is `ȳ − x̄ᵀw`, as agghoo does.
- `LogisticRegression(C)` (and with `l1_ratio=1`, solver saga, for the L1 penalty) minimises `C Σ loss + ½‖W‖²`, i.e. our `(1/n) Σ loss + (λ/2)‖W‖²` with `C = 1/(nλ)`.
Solver tolerances are tight (1e-12 / 1e-10) so the references are exact to ~1e-8, far below the tests' 1e-6.
The `multinomial_l1` problem was appended to the existing JSON (the other entries, regenerated on another machine,
differed from the recorded ones by at most 2e-12, BLAS rounding).
"""
import json
import sys

import numpy as np
import sklearn
from sklearn.linear_model import LogisticRegression, enet_path, lasso_path

rng = np.random.default_rng(20261122)

# Regression: n = 40, d = 6, correlated features, sparse truth.
n, d = 40, 6
common = rng.normal(size=(n, 1))
X = rng.normal(size=(n, d)) + 0.6 * common
y = 3.0 * X[:, 0] - 2.0 * X[:, 2] + 0.5 * X[:, 4] + rng.normal(scale=0.5, size=n) + 1.5
xm, ym = X.mean(axis=0), y.mean()
Xc, yc = X - xm, y - ym
lambda_max = np.max(np.abs(Xc.T @ yc)) / n
lambdas = list(lambda_max * np.array([0.9, 0.5, 0.2, 0.05, 0.01, 0.001]))

paths = []
for name, rho in [("lasso", 1.0), ("enet", 0.5), ("enet", 0.1)]:
    fn = lasso_path if rho == 1.0 else enet_path
    kwargs = {} if rho == 1.0 else {"l1_ratio": rho}
    alphas, coefs, _ = fn(Xc, yc, alphas=sorted(lambdas, reverse=True), tol=1e-12, max_iter=1_000_000, **kwargs)
    entries = []
    for k, a in enumerate(alphas):
        w = coefs[:, k]
        entries.append({"lambda": float(a), "coefficients": w.tolist(), "intercept": float(ym - xm @ w)})
    paths.append({"family": name, "l1_ratio": rho, "path": entries})

# Classification: binary and 3 classes, n = 60, d = 3.
m, p = 60, 3
Xk = rng.normal(size=(m, p))
labels3 = rng.integers(0, 3, size=m)
Xk[np.arange(m), labels3] += 1.0
labels2 = (Xk[:, 0] - 0.5 * Xk[:, 1] + rng.normal(scale=0.8, size=m) > 0).astype(int)
logistic = []


def logistic_fits(labels, lambdas, **solver):
    """`LogisticRegression(C = 1/(nλ), **solver)` at each λ: coefficients, intercepts, probabilities."""
    fits = []
    for lam in lambdas:
        C = 1.0 / (m * lam)
        clf = LogisticRegression(C=C, **solver).fit(Xk, labels)
        fits.append({
            "lambda": lam,
            "C": C,
            "coefficients": clf.coef_.ravel().tolist(),
            "intercepts": clf.intercept_.tolist(),
            "proba": clf.predict_proba(Xk).ravel().tolist(),
        })
    return fits


for name, lab in [("binary", labels2), ("multinomial", labels3)]:
    fits = logistic_fits(lab, [1.0, 0.1, 0.01, 0.001], tol=1e-10, max_iter=100_000)
    logistic.append({"name": name, "labels": lab.tolist(), "fits": fits})


def saga_l1_fits(labels, lambdas, tol, max_iter):
    """sklearn's `l1_ratio=1` (saga, the solver that leaves the intercept unpenalised), C = 1/(nλ)."""
    return logistic_fits(labels, lambdas, l1_ratio=1.0, solver="saga", tol=tol, max_iter=max_iter)


# L1-penalised binary logistic regression.
logistic.append({"name": "binary_l1", "penalty": "l1", "labels": labels2.tolist(),
                 "fits": saga_l1_fits(labels2, [0.1, 0.03, 0.01, 0.001], 1e-12, 1_000_000)})
# L1-penalised multinomial logistic regression (3 classes): saga's objective `C Σ loss + Σ_k ‖w_k‖₁` on the
# symmetric parameterisation, every coefficient penalised separately (agghoo's ungrouped multinomial lasso).
# Intercepts are defined up to a common shift; the test compares coefficients and probabilities.
logistic.append({"name": "multinomial_l1", "penalty": "l1", "labels": labels3.tolist(),
                 "fits": saga_l1_fits(labels3, [0.1, 0.03, 0.01], 1e-13, 5_000_000)})

json.dump({
    "generator": "bench/peers/linear_reference.py",
    "sklearn": sklearn.__version__,
    "numpy": np.__version__,
    "regression": {"n": n, "d": d, "x": X.ravel().tolist(), "y": y.tolist(), "paths": paths},
    "classification": {"n": m, "d": p, "x": Xk.ravel().tolist(), "problems": logistic},
}, sys.stdout, indent=1)
print()
