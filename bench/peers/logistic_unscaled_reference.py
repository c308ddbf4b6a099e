"""Reference values for the unscaled-features test of crates/agghoo/tests/linear.rs (logistic regression).

Run once: `.venv/bin/python bench/peers/logistic_unscaled_reference.py > crates/agghoo/tests/golden/logistic_unscaled.json`.
The Rust tests never run Python; they read the JSON this script printed (data included).

Survey-like features nobody standardised (the scales of bench/peers/survey_table.py): population (~1e5,
log-normal), income (~1e5), age (18–90), a ±1.5 score and a 4-level one-hot block; a binary and a 4-class
target. `LogisticRegression(solver="newton-cholesky", C = 1/(nλ))` minimises `C Σ loss + ½‖W‖²`, i.e. agghoo's
`(1/n) Σ loss + (λ/2)‖W‖²` (intercepts unpenalised, symmetric multinomial), as in linear_reference.py. The
objective is evaluated here from sklearn's coefficients in long double-free numpy (log-sum-exp); Newton's
solution on these scales is exact to ~1e-12 relative in the objective.
"""
import json
import sys

import numpy as np
import sklearn
from scipy.special import logsumexp
from sklearn.linear_model import LogisticRegression

rng = np.random.default_rng(20260531)
n = 300
level = rng.integers(0, 4, n)
u = rng.uniform(-1.0, 1.0, size=(n, 4))
X = np.column_stack([
    np.round(np.exp(11.5 + 1.2 * u[:, 0])),
    np.round(60_000 + 40_000 * u[:, 1], -1),
    np.round(54 + 36 * u[:, 2]),
    np.round(1.5 * u[:, 3], 3),
    (level == 1).astype(float),
    (level == 2).astype(float),
    (level == 3).astype(float),
])
z = (X[:, :4] - X[:, :4].mean(axis=0)) / X[:, :4].std(axis=0)
binary = (z[:, 0] - 0.8 * z[:, 1] + 0.5 * z[:, 3] + 0.6 * (level == 2) + rng.logistic(size=n) > 0).astype(int)
logits = np.column_stack([np.zeros(n), 0.8 * z[:, 0] - 0.6 * z[:, 1], 0.7 * z[:, 1] + 0.4 * z[:, 2], 0.9 * z[:, 3] + 0.5 * (level == 3)])
p = np.exp(logits - logsumexp(logits, axis=1, keepdims=True))
multi = np.array([rng.choice(4, p=row) for row in p])


def objective(W, b, labels, lam):
    """agghoo's `(1/n) Σ [log Σ_k e^{z_ik} − z_{i,y_i}] + (λ/2)‖W‖²` (two classes: one weight vector)."""
    if W.shape[0] == 1:
        zz = X @ W[0] + b[0]
        loss = np.logaddexp(0.0, zz) - labels * zz
    else:
        zz = X @ W.T + b
        loss = logsumexp(zz, axis=1) - zz[np.arange(n), labels]
    return float(loss.mean() + 0.5 * lam * np.sum(W * W))


problems = []
for name, labels in [("binary", binary), ("multinomial", multi)]:
    fits = []
    for lam in [10.0, 0.1, 1e-3, 1e-5]:
        clf = LogisticRegression(C=1.0 / (n * lam), solver="newton-cholesky", tol=1e-12, max_iter=1000).fit(X, labels)
        fits.append({
            "lambda": lam,
            "objective": objective(clf.coef_, clf.intercept_, labels, lam),
            "coefficients": clf.coef_.ravel().tolist(),
            "intercepts": clf.intercept_.tolist(),
        })
    problems.append({"name": name, "labels": labels.tolist(), "fits": fits})

json.dump({
    "generator": "bench/peers/logistic_unscaled_reference.py",
    "sklearn": sklearn.__version__,
    "numpy": np.__version__,
    "n": n,
    "d": X.shape[1],
    "x": X.ravel().tolist(),
    "problems": problems,
}, sys.stdout, indent=1)
print()
