"""Peers for the TreeCV benchmark (bench/run-treecv.sh), on the data the Rust bench dumped
(`cargo bench -p agghoo --bench treecv -- --dump`: raw little-endian f64 files in $TMPDIR).

- numba: the same TreeCV (docs/PROCEDURES.md § TreeCV) with a Python recursion, numba-compiled
  chunk updates (PEGASOS with the w = s·v trick, LSQ-SGD with averaging and projection onto the
  unit ball, same step rules as crates/agghoo/src/incremental/) and a model copy per node; also the standard
  k-fold method with the same chunks and updates. Randomised order: one NumPy permutation per update.
- sklearn: SGDClassifier(hinge, alpha = λ, learning_rate = "optimal") / SGDRegressor(squared error,
  scikit-learn's default eta0 = 0.01 (eta0 = 1 diverges without the projection),
  invscaling 1/√t, averaged), one epoch, `cross_val_score` with KFold(k) — the usual way.

Arguments (the same filters as the Rust bench; others are ignored): `--data covertype|msd`,
`--ks 2,5,n`, `--tree-only`, `--reps R` (best of R for runs under 2 s, default 3).

Prints `PEER<TAB>dataset<TAB>peer<TAB>method<TAB>order<TAB>k<TAB>seconds<TAB>estimate`.
Standard k-fold runs (numba and sklearn) are skipped when predicted to exceed $TREECV_CAP_SECONDS
(default 60 s).
"""
import os
import sys
import tempfile
import time

import numpy as np
from numba import njit
from sklearn.linear_model import SGDClassifier, SGDRegressor
from sklearn.model_selection import KFold, cross_val_score

CAP = float(os.environ.get("TREECV_CAP_SECONDS", "60"))
LAMBDA = 1e-6


@njit
def pegasos_update(state, X, y, lo, hi, order, lam):
    d = X.shape[1]
    v = state[:d]
    n_items = hi - lo if order.shape[0] == 0 else order.shape[0]
    for r in range(n_items):
        i = lo + r if order.shape[0] == 0 else lo + order[r]
        state[d + 2] += 1.0
        t = state[d + 2]
        vx = 0.0
        for j in range(d):
            vx += v[j] * X[i, j]
        margin = y[i] * state[d + 1] * vx
        shrink = 1.0 - 1.0 / t
        if shrink == 0.0:
            v[:] = 0.0
            state[d + 1] = 1.0
        else:
            state[d + 1] *= shrink
        if margin < 1.0:
            a = y[i] / (lam * t) / state[d + 1]
            for j in range(d):
                v[j] += a * X[i, j]
        if state[d + 1] < 1e-100:
            v *= state[d + 1]
            state[d + 1] = 1.0


@njit
def pegasos_loss(state, X, y, lo, hi):
    d = X.shape[1]
    errors = 0.0
    for i in range(lo, hi):
        s = 0.0
        for j in range(d):
            s += state[j] * X[i, j]
        s *= state[d + 1]
        if (s >= 0.0) != (y[i] > 0.0):
            errors += 1.0
    return errors


@njit
def lsq_update(state, X, y, lo, hi, order, step):
    # state = [w (d), wb, avg (d), avg_b, t]
    d = X.shape[1]
    n_items = hi - lo if order.shape[0] == 0 else order.shape[0]
    for r in range(n_items):
        i = lo + r if order.shape[0] == 0 else lo + order[r]
        state[2 * d + 2] += 1.0
        t = state[2 * d + 2]
        res = state[d] - y[i]
        for j in range(d):
            res += state[j] * X[i, j]
        a = step / np.sqrt(t) * res
        norm2 = 0.0
        for j in range(d):
            state[j] -= a * X[i, j]
            norm2 += state[j] * state[j]
        state[d] -= a
        norm2 += state[d] * state[d]
        shrink = 1.0 / np.sqrt(norm2) if norm2 > 1.0 else 1.0
        for j in range(d + 1):
            state[j] *= shrink
            state[d + 1 + j] += (state[j] - state[d + 1 + j]) / t


@njit
def lsq_loss(state, X, y, lo, hi):
    d = X.shape[1]
    total = 0.0
    for i in range(lo, hi):
        f = state[2 * d + 1]
        for j in range(d):
            f += state[d + 1 + j] * X[i, j]
        total += (f - y[i]) ** 2
    return total


EMPTY = np.empty(0, dtype=np.int64)


class Learner:
    def __init__(self, kind, d):
        self.kind, self.d = kind, d

    def init(self):
        if self.kind == "pegasos":
            s = np.zeros(self.d + 3)
            s[self.d + 1] = 1.0
            return s
        return np.zeros(2 * self.d + 3)

    def update(self, state, X, y, lo, hi, order):
        if self.kind == "pegasos":
            pegasos_update(state, X, y, lo, hi, order, LAMBDA)
        else:
            lsq_update(state, X, y, lo, hi, order, 1.0)

    def loss(self, state, X, y, lo, hi):
        return pegasos_loss(state, X, y, lo, hi) if self.kind == "pegasos" else lsq_loss(state, X, y, lo, hi)


def offsets(n, k):
    base, extra = divmod(n, k)
    sizes = [base + (1 if j < extra else 0) for j in range(k)]
    return np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)


def treecv(learner, X, y, off, randomised, seed):
    k = len(off) - 1
    total = [0.0]
    sys.setrecursionlimit(10000)

    def feed(model, a, b, node):
        lo, hi = off[a], off[b + 1]
        order = np.random.default_rng([seed, node]).permutation(hi - lo) if randomised else EMPTY
        learner.update(model, X, y, lo, hi, order)

    def rec(s, e, node, model):
        if s == e:
            total[0] += learner.loss(model, X, y, off[s], off[s + 1])
            return
        m = (s + e) // 2
        g = model.copy()
        feed(g, m + 1, e, 2 * node)
        rec(s, m, 2 * node, g)
        feed(model, s, m, 2 * node + 1)
        rec(m + 1, e, 2 * node + 1, model)

    rec(0, k - 1, 1, learner.init())
    return total[0] / len(y)


def standard(learner, X, y, off, randomised, seed):
    k = len(off) - 1
    n = len(y)
    total = 0.0
    for j in range(k):
        model = learner.init()
        lo, hi = off[j], off[j + 1]
        if randomised:
            order = np.random.default_rng([seed, j]).permutation(n - (hi - lo))
            order[order >= lo] += hi - lo
            learner.update(model, X, y, 0, n, order)
        else:
            learner.update(model, X, y, 0, lo, EMPTY)
            learner.update(model, X, y, hi, n, EMPTY)
        total += learner.loss(model, X, y, lo, hi)
    return total / n


def sklearn_cv(kind, X, y, k):
    if kind == "pegasos":
        est = SGDClassifier(loss="hinge", alpha=LAMBDA, learning_rate="optimal", max_iter=1, tol=None, shuffle=False)
        scoring = "accuracy"
    else:
        est = SGDRegressor(loss="squared_error", penalty=None, learning_rate="invscaling", eta0=0.01, power_t=0.5, average=True, max_iter=1, tol=None, shuffle=False)
        scoring = "neg_mean_squared_error"
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = cross_val_score(est, X, y, cv=KFold(k), scoring=scoring)
    return 1 - s.mean() if kind == "pegasos" else -s.mean()


def timed(f, reps=1):
    """Best of `reps` runs, stopping after the first when it takes 2 s or more."""
    best, r = float("inf"), None
    for _ in range(reps):
        t = time.perf_counter()
        r = f()
        best = min(best, time.perf_counter() - t)
        if best >= 2.0:
            break
    return best, r


def arg(flag, default=None):
    return sys.argv[sys.argv.index(flag) + 1] if flag in sys.argv[:-1] else default


def load(name):
    base = os.path.join(os.environ.get("TMPDIR", tempfile.gettempdir()), f"agghoo-treecv-{name}")
    y = np.fromfile(base + "-y.f64", dtype="<f8")
    X = np.fromfile(base + "-x.f64", dtype="<f8").reshape(len(y), -1)
    return X, y


def main():
    only, ks_arg = arg("--data"), arg("--ks")
    tree_only, reps = "--tree-only" in sys.argv, int(arg("--reps", "3"))
    for name, kind in [("covertype", "pegasos"), ("msd", "lsq")]:
        if only is not None and only != name:
            continue
        X, y = load(name)
        n, d = X.shape
        # The Rust bench shuffles rows into chunks; the peers run on the dumped chunk order.
        learner = Learner(kind, d)
        small = offsets(200, 4)
        treecv(learner, X[:200], y[:200], small, True, 0)  # numba compilation
        standard(learner, X[:200], y[:200], small, True, 0)
        pass_time = {}
        sk_fold = None
        ks = [2, 5, 10, 20, 50, 100, 1000, n] if ks_arg is None else [n if k == "n" else int(k) for k in ks_arg.split(",")]
        for k in ks:
            off = offsets(n, k)
            for method, fn in [("Tree", treecv), ("Standard", standard)]:
                if method == "Standard" and tree_only:
                    continue
                for randomised in [False, True]:
                    order = "Randomised" if randomised else "Fixed"
                    if method == "Standard" and order in pass_time and pass_time[order] * (k - 1) > CAP:
                        print(f"SKIP\t{name}\tnumba\t{method}\t{order}\t{k}", flush=True)
                        continue
                    secs, est = timed(lambda: fn(learner, X, y, off, randomised, 7), reps)
                    if method == "Standard":
                        pass_time[order] = secs / max(k - 1, 1)
                    print(f"PEER\t{name}\tnumba\t{method}\t{order}\t{k}\t{secs:.6f}\t{est:.6f}", flush=True)
            if tree_only:
                continue
            if sk_fold is not None and sk_fold * (k - 1) > CAP:
                print(f"SKIP\t{name}\tsklearn\tStandard\tFixed\t{k}", flush=True)
                continue
            secs, est = timed(lambda: sklearn_cv(kind, X, y, k))
            sk_fold = secs / max(k - 1, 1)
            print(f"PEER\t{name}\tsklearn\tStandard\tFixed\t{k}\t{secs:.6f}\t{est:.6f}", flush=True)


if __name__ == "__main__":
    main()
