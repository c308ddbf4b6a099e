"""Peer of crates/agghoo/benches/features.rs: mlxtend's SequentialFeatureSelector(floating=True)
with KNeighborsClassifier(n_neighbors=5), k_features="best", accuracy, on the same data and the
same 5 folds (written by the Rust bench with --write-data DIR).

Usage: features.py DIR [--quick] [--jobs N]
Prints `case<TAB>seconds` lines (wall and CPU time of this process) and `#` lines with the
selected subset, its risk (1 - accuracy) and the number of subsets scored.
"""
import sys, time
import numpy as np
from sklearn.neighbors import KNeighborsClassifier
from mlxtend.feature_selection import SequentialFeatureSelector as SFS

args = sys.argv[1:]
folder = args[0]
jobs = int(args[args.index("--jobs") + 1]) if "--jobs" in args else 1
data = np.loadtxt(f"{folder}/sffs.csv", delimiter=",")
X, y = data[:, :-1], data[:, -1].astype(int)
fold = np.loadtxt(f"{folder}/sffs_folds.txt", dtype=int)
cv = [(np.flatnonzero(fold != j), np.flatnonzero(fold == j)) for j in range(fold.max() + 1)]

calls = [0]


def accuracy(estimator, X_val, y_val):
    calls[0] += 1
    return float(np.mean(estimator.predict(X_val) == y_val))


sfs = SFS(KNeighborsClassifier(n_neighbors=5), k_features="best", forward=True, floating=True,
          scoring=accuracy, cv=cv, n_jobs=jobs)
wall, cpu = time.perf_counter(), time.process_time()
sfs.fit(X, y)
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
suffix = "" if jobs == 1 else f"_jobs{jobs}"
print(f"sffs_knn_d30_n600_mlxtend{suffix}\t{wall:.6f}")
if jobs == 1:
    print(f"sffs_knn_d30_n600_mlxtend_cpu\t{cpu:.6f}")
by_size = [(k, round(1 - v["avg_score"], 6)) for k, v in sorted(sfs.subsets_.items())]
print(f"# mlxtend{suffix} selected {sorted(sfs.k_feature_idx_)} risk {1 - sfs.k_score_:.6f} "
      f"evaluations {calls[0] // len(cv) if jobs == 1 else 'n/a'} by_size_risk {by_size}")
