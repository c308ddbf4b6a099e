"""Peers for the k-NN Agghoo benchmark (bench/run-knn.sh): one Majhoo run on the papers' k-NN
problem, n = 500, k in {1, 3, ..., 199}, Monte-Carlo V = 10, tau = 0.8.

- sklearn: KNeighborsClassifier refit for every k on every split (the scikit-learn way);
- numpy: vectorised, neighbours sorted once per validation point, votes by cumulative sums;
- brute (n = 100 000, d = 10 and d = 50, n = 50 000, d = 50, and with --large n = 300 000, d = 10;
  the k-NN problem with uniform noise features appended):
  scikit-learn's `NearestNeighbors(199, algorithm="brute").kneighbors` of each split's validation
  rows among its training rows, then a cumulative vote over k — what a NumPy user with brute force
  does at large n. Skipped with --quick.
Prints `case<TAB>median seconds`.
"""
import sys
import time

import numpy as np
from sklearn.neighbors import KNeighborsClassifier, NearestNeighbors


def problem(n, rng):
    x = rng.random((n, 2))
    u, v = x[:, 0], x[:, 1]
    g = np.exp(-((u**2 + v) ** 3)) + u**2 + v**2
    eta = 1 / (1 + np.exp(-(g - 1.18) / 0.05))
    y = (rng.random(n) < eta).astype(int)
    return x, y


def splits(n, v, tau, rng):
    k = int(np.floor(tau * n))
    out = []
    for _ in range(v):
        p = rng.permutation(n)
        out.append((np.sort(p[:k]), np.sort(p[k:])))
    return out


KS = np.arange(1, 200, 2)


def majhoo_sklearn(x, y, sp):
    members = []
    for tr, va in sp:
        risks = []
        for k in KS:
            clf = KNeighborsClassifier(n_neighbors=int(k)).fit(x[tr], y[tr])
            risks.append(np.mean(clf.predict(x[va]) != y[va]))
        members.append(KNeighborsClassifier(n_neighbors=int(KS[int(np.argmin(risks))])).fit(x[tr], y[tr]))
    return members


def majhoo_numpy(x, y, sp):
    members = []
    for tr, va in sp:
        d = ((x[va][:, None, :] - x[tr][None, :, :]) ** 2).sum(-1)
        order = np.argsort(d, axis=1, kind="stable")[:, : KS[-1]]
        ones = np.cumsum(y[tr][order], axis=1)  # votes for class 1 among the first k
        kk = np.arange(1, KS[-1] + 1)
        pred = (ones[:, KS - 1] * 2 > kk[KS - 1]).astype(int)  # odd k: no ties
        risks = (pred != y[va][:, None]).mean(0)
        members.append((tr, KS[int(np.argmin(risks))]))
    return members


def majhoo_brute(x, y, sp):
    members = []
    for tr, va in sp:
        nn = NearestNeighbors(n_neighbors=int(KS[-1]), algorithm="brute").fit(x[tr])
        order = nn.kneighbors(x[va], return_distance=False)
        ones = np.cumsum(y[tr][order], axis=1)
        kk = np.arange(1, KS[-1] + 1)
        pred = (ones[:, KS - 1] * 2 > kk[KS - 1]).astype(int)
        risks = (pred != y[va][:, None]).mean(0)
        members.append((tr, KS[int(np.argmin(risks))]))
    return members


def with_noise(n, extra, rng):
    x, y = problem(n, rng)
    return np.hstack([x, rng.random((n, extra))]), y


def median_time(f, reps):
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t)
    return float(np.median(ts))


def main():
    quick = "--quick" in sys.argv
    rng = np.random.default_rng(1)
    x, y = problem(500, rng)
    sp = splits(500, 10, 0.8, rng)
    print(f"knn_agghoo_n500_sklearn\t{median_time(lambda: majhoo_sklearn(x, y, sp), 1 if quick else 3):.6f}")
    print(f"knn_agghoo_n500_numpy\t{median_time(lambda: majhoo_numpy(x, y, sp), 5 if quick else 30):.6f}")
    if quick:
        return
    cases = [(100_000, 8), (100_000, 48), (50_000, 48)] + ([(300_000, 8)] if "--large" in sys.argv else [])
    for n, extra in cases:
        x, y = with_noise(n, extra, rng)
        sp = splits(n, 10, 0.8, rng)
        print(f"knn_agghoo_n{n}_d{2 + extra}_brute\t{median_time(lambda: majhoo_brute(x, y, sp), 1):.6f}", flush=True)


if __name__ == "__main__":
    main()
