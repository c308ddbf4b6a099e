"""Nested cross-validation of selection procedures with paired tests, and leave-one-out CV of an
incremental learner by TreeCV — the Python forms of `agghoo compare` and `agghoo treecv`."""

from sklearn.datasets import load_breast_cancer

from agghoo import compare, treecv

X, y = load_breast_cancer(return_X_y=True)
result = compare(X, y, family="knn", grid="1:29:2", methods=["agghoo", "majhoo", "cv"], outer="vfold:5", inner="mc:5:0.8")
print(result)
for c in result.comparisons:
    print(f"{c['a']} − {c['b']}: {c['mean_difference']:+.4f}")
print(treecv(X, y, learner="gaussian-nb", folds="loo"))
