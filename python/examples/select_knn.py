"""Choose k for k-NN by Majhoo (10 hold-out winners; their mean class probabilities by default,
aggregation="vote" for their majority vote) on scikit-learn's breast cancer data, and compare
with GridSearchCV on the same splits and grid."""

import time

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import GridSearchCV
from sklearn.neighbors import KNeighborsClassifier

from agghoo import AgghooClassifier, MonteCarloSplit

X, y = load_breast_cancer(return_X_y=True)
grid = np.arange(1, 50, 2)

start = time.perf_counter()
majhoo = AgghooClassifier(family="knn", grid=grid, method="majhoo", random_state=1).fit(X, y)
ours = time.perf_counter() - start
print(f"Majhoo: k per split {majhoo.selected_params_}, training accuracy {majhoo.score(X, y):.3f}, {ours:.3f} s")

start = time.perf_counter()
search = GridSearchCV(KNeighborsClassifier(), {"n_neighbors": grid}, cv=MonteCarloSplit(10, 0.8, random_state=1)).fit(X, y)
theirs = time.perf_counter() - start
print(f"GridSearchCV on the same splits: k = {search.best_params_['n_neighbors']}, {theirs:.3f} s")
