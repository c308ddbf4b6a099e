"""Reference values for the weighted fits (Lasso / elastic net, CART), computed ONCE with scikit-learn.

Writes crates/agghoo/tests/golden/weights_sklearn.json:
- regression data (n = 80, d = 6) with row weights in [0, 3] (some exactly 0);
- `Lasso` / `ElasticNet(l1_ratio=0.5)` coefficients and intercepts with `sample_weight` at
  several alphas (tol 1e-13, so exact to ~1e-9); scikit-learn rescales the weights to sum to n,
  so its objective is (1/(2n)) sum_i w~_i (y_i - x_i'w - b)^2 + penalty with w~ = w n / sum(w);
- the tree data of trees_sklearn.json (features multiples of 1/1024, exact in float32, all
  values of a column distinct) with weights in [0, 3] (some 0): `cost_complexity_pruning_path` of
  DecisionTreeClassifier (gini, entropy) and DecisionTreeRegressor with `sample_weight`,
  min_samples_leaf = 1 and 3 (scikit-learn counts rows of positive weight for it); the full
  tree's predictions (proba / values) on test rows, and whether 20 random states agree on
  them (`stable`) and on the path (`path_stable`): scikit-learn breaks ties between equally
  good splits by a random feature order.

Run: .venv/bin/python bench/peers/weights_reference.py
"""
import json
import pathlib

import numpy as np
import sklearn
from sklearn.linear_model import ElasticNet, Lasso
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

rng = np.random.default_rng(20261127)


def weights(n):
    w = np.round(rng.uniform(0.0, 3.0, n) * 64.0) / 64.0
    w[rng.choice(n, n // 8, replace=False)] = 0.0
    return w


# Linear.
n, d = 80, 6
X = rng.normal(0.0, 1.0, (n, d)) + 0.4 * rng.normal(0.0, 1.0, (n, 1))
y = 1.5 * X[:, 0] - 2.0 * X[:, 1] + 0.5 * X[:, 2] + rng.normal(0.0, 0.5, n) + 3.0
w = weights(n)
linear = {"n": n, "d": d, "x": X.ravel().tolist(), "y": y.tolist(), "weights": w.tolist(), "fits": []}
for name, l1_ratio in [("lasso", 1.0), ("enet", 0.5)]:
    for alpha in [0.5, 0.1, 0.02, 0.002]:
        if l1_ratio == 1.0:
            est = Lasso(alpha=alpha, tol=1e-13, max_iter=1_000_000)
        else:
            est = ElasticNet(alpha=alpha, l1_ratio=l1_ratio, tol=1e-13, max_iter=1_000_000)
        est.fit(X, y, sample_weight=w)
        linear["fits"].append(
            {"family": name, "l1_ratio": l1_ratio, "alpha": alpha, "coef": est.coef_.tolist(), "intercept": float(est.intercept_)}
        )

# Trees: the data of tests/golden/trees_sklearn.json (bench/peers/trees_reference.py), with weights.
golden = pathlib.Path(__file__).resolve().parents[2] / "crates/agghoo/tests/golden"
unweighted = json.loads((golden / "trees_sklearn.json").read_text())
dt = unweighted["n_features"]
Xtr = np.array(unweighted["x_train"]).reshape(-1, dt)
Xte = np.array(unweighted["x_test"]).reshape(-1, dt)
n_train = len(Xtr)
y_class = np.array(unweighted["y_class_train"])
y_real = np.array(unweighted["y_real_train"])
wt = weights(n_train)
trees = {
    "n_features": dt,
    "x_train": Xtr.ravel().tolist(),
    "x_test": Xte.ravel().tolist(),
    "y_class_train": y_class[:n_train].tolist(),
    "y_real_train": y_real[:n_train].tolist(),
    "weights": wt.tolist(),
    "fits": [],
}
for crit in ["gini", "entropy", "squared_error"]:
    for msl in [1, 3]:
        make = DecisionTreeRegressor if crit == "squared_error" else DecisionTreeClassifier
        target = y_real[:n_train] if crit == "squared_error" else y_class[:n_train]
        path = make(criterion=crit, min_samples_leaf=msl, random_state=0).cost_complexity_pruning_path(Xtr, target, sample_weight=wt)
        outputs = set()
        paths = set()
        for state in range(20):
            p = make(criterion=crit, min_samples_leaf=msl, random_state=state).cost_complexity_pruning_path(Xtr, target, sample_weight=wt)
            paths.add(tuple(np.round(p.ccp_alphas, 12)))
            est = make(criterion=crit, min_samples_leaf=msl, random_state=state).fit(Xtr, target, sample_weight=wt)
            out = est.predict(Xte) if crit == "squared_error" else est.predict_proba(Xte).ravel()
            outputs.add(tuple(np.round(out, 12)))
        est = make(criterion=crit, min_samples_leaf=msl, random_state=0).fit(Xtr, target, sample_weight=wt)
        out = est.predict(Xte) if crit == "squared_error" else est.predict_proba(Xte).ravel()
        trees["fits"].append(
            {
                "criterion": crit,
                "min_samples_leaf": msl,
                "alphas": path.ccp_alphas.tolist(),
                "impurities": path.impurities.tolist(),
                "n_leaves": int(est.get_n_leaves()),
                "stable": len(outputs) == 1,
                "path_stable": len(paths) == 1,
                "predictions": out.tolist(),
            }
        )

result = {
    "generator": "bench/peers/weights_reference.py",
    "sklearn_version": sklearn.__version__,
    "linear": linear,
    "trees": trees,
}
path = golden / "weights_sklearn.json"
path.write_text(json.dumps(result, indent=1) + "\n")
print("wrote", path, [(f["criterion"], f["min_samples_leaf"], f["stable"], f["path_stable"], f["n_leaves"]) for f in trees["fits"]])
