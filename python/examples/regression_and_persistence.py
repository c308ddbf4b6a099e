"""Agghoo over a Lasso path, saved as an agghoo model file (readable by `agghoo predict`) and
pickled."""

import pickle
import tempfile
from pathlib import Path

import numpy as np
from sklearn.datasets import load_diabetes

from agghoo import AgghooRegressor, load_model

X, y = load_diabetes(return_X_y=True)
reg = AgghooRegressor(family="lasso", method="agghoo", random_state=0).fit(X, y)
print("λ per split:", [f"{v:.4g}" for v in reg.selected_params_])
print("CV curve minimum:", reg.cv_results_["weighted_mean_risk"].min())

with tempfile.TemporaryDirectory() as tmp:
    path = Path(tmp) / "lasso.json"
    reg.save(path)
    assert np.array_equal(load_model(path).predict(X), reg.predict(X))
assert np.array_equal(pickle.loads(pickle.dumps(reg)).predict(X), reg.predict(X))
print("model file and pickle predict identically")
