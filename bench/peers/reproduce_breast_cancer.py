"""scikit-learn peer of `agghoo reproduce breast-cancer` (timing only): per repetition, a
500/199 split, median imputation on the training rows, 10-fold CV over the CART pruning path
(GridSearchCV over ccp_alpha, refit), Agghoo (10 Monte-Carlo hold-outs, tau = 0.8, majority vote),
the oracle, and random forests with 10 and 500 trees (n_jobs=2). Runs R repetitions (argv[1],
default 3) and prints the time per repetition and the extrapolation to 1000.
"""
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.tree import DecisionTreeClassifier

data = np.genfromtxt(Path(__file__).resolve().parents[2] / "data" / "breast-cancer-wisconsin.csv", delimiter=",", skip_header=1)
X, y = data[:, 1:10], data[:, 10].astype(int)


def repetition(rng):
    p = rng.permutation(len(y))
    tr, te = p[:500], p[500:]
    xtr, xte = X[tr].copy(), X[te].copy()
    med = np.nanmedian(xtr, axis=0)
    for x in (xtr, xte):
        idx = np.where(np.isnan(x))
        x[idx] = med[idx[1]]
    ytr, yte = y[tr], y[te]
    alphas = DecisionTreeClassifier(random_state=0).cost_complexity_pruning_path(xtr, ytr).ccp_alphas
    cv = GridSearchCV(DecisionTreeClassifier(random_state=0), {"ccp_alpha": alphas}, cv=KFold(10, shuffle=True, random_state=0)).fit(xtr, ytr)
    risks = [np.mean(cv.predict(xte) != yte)]
    votes = np.zeros(len(yte))
    for _ in range(10):
        q = rng.permutation(500)
        a, b = q[:400], q[400:]
        best = min(alphas, key=lambda al: np.mean(DecisionTreeClassifier(ccp_alpha=al, random_state=0).fit(xtr[a], ytr[a]).predict(xtr[b]) != ytr[b]))
        votes += DecisionTreeClassifier(ccp_alpha=best, random_state=0).fit(xtr[a], ytr[a]).predict(xte)
    risks.append(np.mean((votes > 5).astype(int) != yte))
    risks.append(min(np.mean(DecisionTreeClassifier(ccp_alpha=al, random_state=0).fit(xtr, ytr).predict(xte) != yte) for al in alphas))
    for trees in (10, 500):
        rf = RandomForestClassifier(n_estimators=trees, n_jobs=2, random_state=0).fit(xtr, ytr)
        risks.append(np.mean(rf.predict(xte) != yte))
    return risks


reps = int(sys.argv[1]) if len(sys.argv) > 1 else 3
rng = np.random.default_rng(1)
start = time.perf_counter()
for _ in range(reps):
    repetition(rng)
per = (time.perf_counter() - start) / reps
print(f"breast_cancer_sklearn_per_rep\t{per:.3f}")
print(f"breast_cancer_sklearn_1000_reps_extrapolated\t{per * 1000:.0f}")
