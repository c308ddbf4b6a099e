"""Reference values for crates/agghoo-cli/tests/cli.rs::svm_on_real_data_agrees_with_scikit_learn,
computed ONCE with scikit-learn and written to crates/agghoo-cli/tests/golden/svm_real_sklearn.json
(the Rust tests do not need Python).

Two commands that once stopped with an SMO error:
  agghoo select --data data/linear-regression-442x10.csv --target y --family svr --standardize \
                --method cv --plan vfold --splits 5 --seed 0
  agghoo select --data bundled:breast-cancer --family svc --splits 5 --standardize --seed 0
Their splits are written by `agghoo splits` with the same plan and seed (passed as arguments), the
preprocessing is refitted on each training set (median imputation of the 16 missing `bare_nuclei`,
then z-scores with the population standard deviation, as agghoo), and every grid value λ is fitted
by LIBSVM through scikit-learn with C = 1 / (2 λ n_t), gamma = 1/d, epsilon = 0.1, tol = 1e-3
(agghoo's defaults). Per split and grid value: the validation risk (squared loss for SVR, the
number of validation errors for SVC).

Run: .venv/bin/python bench/peers/svm_real_reference.py SVR_SPLITS.json SVC_SPLITS.json
"""
import json
import sys

import numpy as np
import pandas as pd
import sklearn
from sklearn.impute import SimpleImputer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, SVR


def grid(n):
    # agghoo's default λ grid for n rows: λ_j = 2^(j−1) / (500 n), j = 1..17
    return [2.0 ** (j - 1) / (500.0 * n) for j in range(1, 18)]


def curves(x, y, splits, make, score):
    out = []
    lambdas = grid(len(y))
    for s in splits:
        tr, va = np.array(s["train"]), np.array(s["validation"])
        row = []
        for lam in lambdas:
            c = 1.0 / (2.0 * lam * len(tr))
            model = make_pipeline(SimpleImputer(strategy="median"), StandardScaler(), make(c, 1.0 / x.shape[1]))
            model.fit(x[tr], y[tr])
            row.append(score(model.predict(x[va]), y[va]))
        out.append(row)
    return out


def main():
    svr_splits = json.load(open(sys.argv[1]))["splits"]
    svc_splits = json.load(open(sys.argv[2]))["splits"]
    lin = pd.read_csv("data/linear-regression-442x10.csv")
    xr, yr = lin.drop(columns="y").to_numpy(float), lin["y"].to_numpy(float)
    bc = pd.read_csv("data/breast-cancer-wisconsin.csv")
    xc, yc = bc.drop(columns=["id", "class"]).to_numpy(float), bc["class"].to_numpy(int)
    svr = curves(xr, yr, svr_splits, lambda c, g: SVR(C=c, gamma=g, epsilon=0.1, tol=1e-3),
                 lambda p, y: float(np.mean((p - y) ** 2)))
    svc = curves(xc, yc, svc_splits, lambda c, g: SVC(C=c, gamma=g, tol=1e-3),
                 lambda p, y: int(np.sum(p != y)))
    json.dump({"sklearn": sklearn.__version__, "svr_squared_risks": svr, "svc_validation_errors": svc},
              open("crates/agghoo-cli/tests/golden/svm_real_sklearn.json", "w"), indent=1)


main()
