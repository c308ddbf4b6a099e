"""Feature selection evaluated honestly: a floating search (SFFS) scored by CFS, redone inside
every outer training fold, next to the optimistic select-on-all-data estimate — the Python form
of `agghoo features --evaluate`."""

from sklearn.datasets import load_breast_cancer

from agghoo import select_features

X, y = load_breast_cancer(return_X_y=True, as_frame=True)
chosen = select_features(X, y, method="sffs", scorer="cfs")
print("selected on all rows:", ", ".join(chosen.names))

report = select_features(X, y, method="sffs", scorer="cfs", evaluate="vfold:5", learner="knn:7", standardize=True)
print(report)  # honest risk ± standard error, and the naive estimate
print(f"selection bias (naive − honest): {report.selection_bias:+.4f}, stability (mean Jaccard): {report.mean_jaccard:.2f}")
print(report.to_frame().head())  # how often each feature was chosen across the outer folds
