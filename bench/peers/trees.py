"""Python peer of crates/agghoo/benches/trees.rs (docs/benchmarks/trees.md).

Reads <dir>/problem.json written by the Rust bench (same data, same 10 Monte-Carlo splits,
same α grids) and times, for Majhoo's per-split work (fit every α on the training rows,
0-1 risk on the validation rows, first minimiser, keep that model):
- naive: DecisionTreeClassifier(ccp_alpha=α) refitted per grid value and split;
- fast: grow the full tree once per split (scikit-learn), weakest-link pruning of its node
  arrays and the one-walk-per-row prediction of every α (both compiled with numba, warm),
  decision_path from scikit-learn;
and RandomForestClassifier(n_estimators=500) with n_jobs = 1 and 2.
Writes <dir>/peer.json.
"""
import json
import sys
import time

import numba
import numpy as np
import sklearn
from sklearn.ensemble import RandomForestClassifier
from sklearn.tree import DecisionTreeClassifier

out_dir = sys.argv[1]
reps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
prob = json.load(open(f"{out_dir}/problem.json"))
d = prob["n_features"]
X = np.array(prob["x"]).reshape(-1, d)
y = np.array(prob["y"], dtype=int)
Xt = np.array(prob["x_test"]).reshape(-1, d)
yt = np.array(prob["y_test"], dtype=int)
splits = [(np.array(s["train"]), np.array(s["validation"])) for s in prob["splits"]]


def timed(f, reps, warm=True):
    """Median wall time, mean process CPU time (all threads) and the last result."""
    if warm:
        f()  # warm-up (numba compilation, caches)
    times = []
    cpu0 = time.process_time()
    for _ in range(reps):
        start = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - start)
    return float(np.median(times)), (time.process_time() - cpu0) / reps, out


def majhoo_vote(models_predict):
    votes = np.array([p(Xt) for p in models_predict])
    counts = np.stack([(votes == k).sum(axis=0) for k in range(2)])
    return np.argmax(counts, axis=0)  # ties → class 0 (the test error is only a sanity check)


def naive(alphas):
    members = []
    for tr, va in splits:
        models, risks = [], []
        for a in alphas:
            clf = DecisionTreeClassifier(ccp_alpha=a, random_state=0).fit(X[tr], y[tr])
            models.append(clf)
            risks.append(np.mean(clf.predict(X[va]) != y[va]))
        members.append(models[int(np.argmin(risks))])
    return members


@numba.njit
def node_alphas(left, right, r_node):
    """Breiman's weakest-link pruning; per node the α from which it is a leaf (−inf for leaves)."""
    n = left.shape[0]
    parent = np.full(n, -1)
    for t in range(n):
        if left[t] >= 0:
            parent[left[t]] = t
            parent[right[t]] = t
    r_branch = np.zeros(n)
    n_leaves = np.zeros(n, dtype=np.int64)
    for t in range(n):
        if left[t] < 0:
            r_branch[t] = r_node[t]
            n_leaves[t] = 1
            a = parent[t]
            while a >= 0:
                r_branch[a] += r_node[t]
                n_leaves[a] += 1
                a = parent[a]
    candidate = left >= 0
    alpha = np.full(n, -np.inf)
    current = 0.0
    stack = np.empty(n, dtype=np.int64)
    while candidate[0]:
        best, eff = 0, np.inf
        for t in range(n):
            if candidate[t]:
                g = (r_node[t] - r_branch[t]) / (n_leaves[t] - 1)
                if g < eff:
                    eff, best = g, t
        current = max(current, eff)
        top = 0
        stack[0] = best
        top = 1
        while top > 0:
            top -= 1
            t = stack[top]
            if candidate[t]:
                candidate[t] = False
                alpha[t] = current
                if left[t] >= 0:
                    stack[top] = left[t]
                    stack[top + 1] = right[t]
                    top += 2
        removed = n_leaves[best] - 1
        diff = r_node[best] - r_branch[best]
        n_leaves[best] = 1
        r_branch[best] = r_node[best]
        a = parent[best]
        while a >= 0:
            n_leaves[a] -= removed
            r_branch[a] += diff
            a = parent[a]
    return alpha


@numba.njit
def path_labels(indptr, indices, alpha, node_label, grid):
    """Labels of every grid α for every row: the first node on the root→leaf path with α ≤ α_m."""
    n_rows, m = indptr.shape[0] - 1, grid.shape[0]
    out = np.empty((m, n_rows), dtype=np.int64)
    for i in range(n_rows):
        nodes = indices[indptr[i]:indptr[i + 1]]  # sorted node ids = root → leaf (preorder)
        k = 0
        for g in range(m - 1, -1, -1):
            while alpha[nodes[k]] > grid[g]:
                k += 1
            out[g, i] = node_label[nodes[k]]
    return out


def fast(alphas):
    grid = np.asarray(alphas)
    members = []
    for tr, va in splits:
        clf = DecisionTreeClassifier(random_state=0).fit(X[tr], y[tr])
        t = clf.tree_
        w = t.weighted_n_node_samples
        alpha = node_alphas(t.children_left, t.children_right, w * t.impurity / w[0])
        dp = clf.decision_path(X[va])
        labels = path_labels(dp.indptr, dp.indices, alpha, np.argmax(t.value[:, 0, :], axis=1), grid)
        risks = (labels != y[va]).mean(axis=1)
        members.append((clf, alpha, grid[int(np.argmin(risks))]))
    return members


result = {"sklearn_version": sklearn.__version__, "numba_version": numba.__version__, "cart": {}, "forest": {}}
for name, key in [("default", "alphas"), ("61", "alphas61")]:
    alphas = prob[key]
    s_naive, c_naive, members = timed(lambda: naive(alphas), max(1, reps // 5) if len(alphas) > 30 else reps, warm=False)
    s_fast, c_fast, fast_members = timed(lambda: fast(alphas), reps * 4)
    chosen_naive = [m.ccp_alpha for m in members]
    chosen_fast = [float(a) for (_, _, a) in fast_members]
    err = float(np.mean(majhoo_vote([m.predict for m in members]) != yt))
    result["cart"][f"naive_seconds_{name}"] = s_naive
    result["cart"][f"fast_seconds_{name}"] = s_fast
    result["cart"][f"naive_cpu_seconds_{name}"] = c_naive
    result["cart"][f"fast_cpu_seconds_{name}"] = c_fast
    result["cart"][f"test_error_{name}"] = err
    result["cart"][f"fast_selects_as_naive_{name}"] = bool(np.allclose(chosen_naive, chosen_fast))
    print(f"cart {name} ({len(alphas)} α): naive {s_naive*1e3:.1f} ms, fast {s_fast*1e3:.2f} ms, test error {err:.4f}, "
          f"same choices {result['cart'][f'fast_selects_as_naive_{name}']}", file=sys.stderr)

for jobs in [1, 2]:
    s, c, rf = timed(lambda: RandomForestClassifier(n_estimators=500, n_jobs=jobs, random_state=0).fit(X, y), max(1, reps // 2))
    result["forest"][f"fit_seconds_{jobs}"] = s
    result["forest"][f"fit_cpu_seconds_{jobs}"] = c
    result["forest"]["test_error"] = float(np.mean(rf.predict(Xt) != yt))
    print(f"forest n_jobs={jobs}: {s*1e3:.0f} ms, test error {result['forest']['test_error']:.4f}", file=sys.stderr)
    s, c, rf = timed(lambda: RandomForestClassifier(n_estimators=500, n_jobs=jobs, random_state=0, oob_score=True).fit(X, y), max(1, reps // 2))
    result["forest"][f"fit_oob_seconds_{jobs}"] = s
    result["forest"][f"fit_oob_cpu_seconds_{jobs}"] = c
    result["forest"]["oob_error"] = 1.0 - rf.oob_score_

json.dump(result, open(f"{out_dir}/peer.json", "w"), indent=1)
print(json.dumps(result, indent=1))
