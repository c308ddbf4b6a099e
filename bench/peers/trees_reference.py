"""Reference values for crates/agghoo/tests/trees.rs, computed ONCE with scikit-learn.

Writes crates/agghoo/tests/golden/trees_sklearn.json:
- fixed data (features are multiples of 1/1024, exact in float32 since scikit-learn's trees
  cast X to float32; all values of a column distinct, so no split ties on values);
- cost_complexity_pruning_path (alphas, impurities) of DecisionTreeClassifier (gini, entropy)
  and DecisionTreeRegressor (squared_error), min_samples_leaf = 1 and 3;
- predictions of DecisionTreeClassifier(ccp_alpha=a) on test rows at several a (midpoints
  between consecutive path alphas, so no a sits on a breakpoint); scikit-learn breaks ties
  between equally good splits at random, so for each a the labels seen over 50 random states
  are recorded and `stable` says whether all 50 fits predicted alike.

Run: .venv/bin/python bench/peers/trees_reference.py
"""
import json
import pathlib

import numpy as np
import sklearn
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

rng = np.random.default_rng(20261122)
n_train, n_test, d = 120, 60, 4


def column(n):
    while True:
        v = np.round(rng.normal(0.0, 3.0, n) * 1024.0) / 1024.0
        if len(np.unique(v)) == n:
            return v


X = np.column_stack([column(n_train + n_test) for _ in range(d)])
score = X[:, 0] + 0.5 * X[:, 1] ** 2 / 3.0 - X[:, 2] + rng.normal(0.0, 2.0, n_train + n_test)
y_class = (score > 0.5).astype(int) + (score > 4.0).astype(int)  # three classes
y_real = np.round((score + rng.normal(0.0, 1.0, n_train + n_test)) * 64.0) / 64.0
Xtr, Xte = X[:n_train], X[n_train:]

out = {
    "generator": "bench/peers/trees_reference.py",
    "sklearn_version": sklearn.__version__,
    "tolerance": "alphas and impurities: 1e-10 relative (summation order differs); labels exact",
    "n_features": d,
    "x_train": Xtr.ravel().tolist(),
    "x_test": Xte.ravel().tolist(),
    "y_class_train": y_class[:n_train].tolist(),
    "y_real_train": y_real[:n_train].tolist(),
    "paths": [],
    "predictions": [],
}
for crit in ["gini", "entropy", "squared_error"]:
    for msl in [1, 3]:
        if crit == "squared_error":
            est = DecisionTreeRegressor(criterion=crit, min_samples_leaf=msl, random_state=0)
            path = est.cost_complexity_pruning_path(Xtr, y_real[:n_train])
        else:
            est = DecisionTreeClassifier(criterion=crit, min_samples_leaf=msl, random_state=0)
            path = est.cost_complexity_pruning_path(Xtr, y_class[:n_train])
        out["paths"].append(
            {"criterion": crit, "min_samples_leaf": msl, "alphas": path.ccp_alphas.tolist(), "impurities": path.impurities.tolist()}
        )
        if crit == "gini" and msl == 1:
            a = path.ccp_alphas
            mids = sorted(set([0.0] + [(a[i] + a[i + 1]) / 2 for i in range(len(a) - 1) if a[i + 1] > a[i]]))
            for alpha in mids:
                # scikit-learn breaks ties between equally good splits by a random feature order:
                # record every answer over 50 random states; `stable` when they all agree.
                seen = [set() for _ in range(n_test)]
                runs = set()
                for state in range(50):
                    clf = DecisionTreeClassifier(criterion=crit, ccp_alpha=alpha, random_state=state).fit(Xtr, y_class[:n_train])
                    labels = clf.predict(Xte)
                    runs.add((tuple(labels), tuple(np.round(clf.predict_proba(Xte)[:, 1], 12))))
                    for i, label in enumerate(labels):
                        seen[i].add(int(label))
                clf = DecisionTreeClassifier(criterion=crit, ccp_alpha=alpha, random_state=0).fit(Xtr, y_class[:n_train])
                out["predictions"].append(
                    {"alpha": alpha, "stable": len(runs) == 1, "labels": clf.predict(Xte).tolist(),
                     "labels_seen": [sorted(s) for s in seen], "n_leaves": int(clf.get_n_leaves()),
                     "proba_class1": clf.predict_proba(Xte)[:, 1].tolist()}
                )

path = pathlib.Path(__file__).resolve().parents[2] / "crates/agghoo/tests/golden/trees_sklearn.json"
path.write_text(json.dumps(out, separators=(",", ":")).replace("},{", "},\n{") + "\n")
print(f"wrote {path}: {[len(p['alphas']) for p in out['paths']]} path lengths, {len(out['predictions'])} alphas predicted")
