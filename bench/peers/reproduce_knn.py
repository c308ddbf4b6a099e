"""Times the k-NN experiment's protocol (docs/RESULTS.md § 1) with scikit-learn, for a few reps.

Same protocol as `agghoo reproduce knn`: n = 500 sample points + 1000 test points per
repetition; for each tau in {0.1..0.9}: 20 Monte-Carlo splits (ShuffleSplit, train size
floor(tau n)), odd k up to floor(tau n), validation 0-1 risk of every k on every split through
GridSearchCV (the usual scikit-learn route), then Majhoo (vote of the per-split argmins refit on
their training sets) and Monte-Carlo CV (argmin of the mean over the first V splits, refit on D)
for V in {1, 2, 5, 10, 20}, and the oracle (every odd k <= n on D). Excess risk is the exact
conditional one, (1/m) sum |2 eta - 1| 1{f != f*}.

Usage: reproduce_knn.py [REPS=1] [N_JOBS=1]. Prints CPU seconds (process time, n_jobs = 1 so that
all work is in this process; robust on a shared machine) and wall seconds per repetition, and the
extrapolation to 200 and 1000 repetitions on 2 cores (linear: repetitions are independent and equal
work; an ideal 2x speed-up from 2 cores is assumed, which flatters the peer).
"""
import sys
import time

import numpy as np
import sklearn
from sklearn.model_selection import GridSearchCV, ShuffleSplit
from sklearn.neighbors import KNeighborsClassifier

B, LAM = 1.18, 0.05


def g(u, v):
    return np.exp(-((u * u + v) ** 3)) + u * u + v * v


def eta(x):
    return 1.0 / (1.0 + np.exp(-(g(x[:, 0], x[:, 1]) - B) / LAM))


def draw(n, rng):
    x = rng.random((n, 2))
    return x, (rng.random(n) < eta(x)).astype(int)


def repetition(rng, n=500, m=1000, n_jobs=2):
    x, y = draw(n, rng)
    xt, _ = draw(m, rng)
    w = np.abs(2 * eta(xt) - 1)
    bayes = (g(xt[:, 0], xt[:, 1]) >= B).astype(int)

    def excess(pred):
        return float(np.mean(w * (pred != bayes)))

    ks_all = list(range(1, n + 1, 2))
    on_d = {k: excess(KNeighborsClassifier(n_neighbors=k).fit(x, y).predict(xt)) for k in ks_all}
    out = {"oracle": min(on_d.values())}
    for tau in [t / 10 for t in range(1, 10)]:
        nt = int(tau * n)
        ks = list(range(1, nt + 1, 2))
        cv = ShuffleSplit(n_splits=20, train_size=nt, test_size=n - nt, random_state=int(rng.integers(2**31)))
        gs = GridSearchCV(KNeighborsClassifier(), {"n_neighbors": ks}, cv=cv, refit=False, n_jobs=n_jobs).fit(x, y)
        scores = np.array([gs.cv_results_[f"split{j}_test_score"] for j in range(20)])  # accuracy [split][k]
        splits = list(cv.split(x))
        members = []
        for j, (tr, _) in enumerate(splits):
            k = ks[int(np.argmax(scores[j]))]
            members.append(KNeighborsClassifier(n_neighbors=k).fit(x[tr], y[tr]).predict(xt))
        for v in [1, 2, 5, 10, 20]:
            votes = np.mean(members[:v], axis=0)
            out[("majhoo", tau, v)] = excess((votes > 0.5).astype(int))  # ties (even V) -> 0; timing only
            out[("cv", tau, v)] = on_d[ks[int(np.argmax(scores[:v].mean(axis=0)))]]
    return out


def main():
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    n_jobs = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    rng = np.random.default_rng(1)
    start, cpu = time.perf_counter(), time.process_time()
    for _ in range(reps):
        out = repetition(rng, n_jobs=n_jobs)
    per = (time.perf_counter() - start) / reps
    per_cpu = (time.process_time() - cpu) / reps
    print(f"scikit-learn {sklearn.__version__}: {reps} repetitions, {per_cpu:.1f} CPU-s ({per:.1f} wall-s) per repetition (n_jobs={n_jobs})")
    print(f"extrapolated: 200 reps {per_cpu * 200:.0f} CPU-s (~{per_cpu * 100 / 60:.0f} min on 2 cores), 1000 reps {per_cpu * 1000:.0f} CPU-s (~{per_cpu * 500 / 60:.0f} min on 2 cores)")
    print(f"last repetition: oracle {out['oracle']:.4f}, majhoo(0.5, 10) {out[('majhoo', 0.5, 10)]:.4f}, cv(0.5, 10) {out[('cv', 0.5, 10)]:.4f}")


if __name__ == "__main__":
    main()
