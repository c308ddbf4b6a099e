"""Whole-process timing of k-NN Majhoo (k = 1, 3, ..., 199; 10 Monte-Carlo splits, tau = 0.8):
the `agghoo select` process against a Python process doing the peer's work, both reading the
same CSV and the same splits file (written by `agghoo splits`).

Cases (the problem of bench/peers/knn.py, with uniform noise features appended):
- n = 500, d = 2: the peer is scikit-learn's KNeighborsClassifier refitted for every k on every
  split (`majhoo_sklearn`);
- n = 100 000, d = 10 and n = 50 000, d = 50 (and with --large n = 300 000, d = 10): the peer is
  brute-force `NearestNeighbors(199).kneighbors` per split plus a cumulative vote (`majhoo_brute`).
Both processes' wall clocks include start-up, imports and reading the CSV (pandas on the peer's
side); medians of `--reps` runs (default 3, 1 for the large cases), interleaved. The k each
split selects must be the same on both sides (odd k: no vote ties; the lists of neighbours are
exact on both), else the script fails.

Prints `case<TAB>ours seconds<TAB>peer seconds<TAB>ratio`.
Run: .venv/bin/python bench/peers/knn_process.py [--quick] [--large] [--reps R] [path/to/agghoo]
"""
import json
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from knn import problem, with_noise  # noqa: E402

args = [a for a in sys.argv[1:]]
quick, large = "--quick" in args, "--large" in args
reps = int(args[args.index("--reps") + 1]) if "--reps" in args else 3
positional = [a for i, a in enumerate(args) if not a.startswith("--") and (i == 0 or args[i - 1] != "--reps")]
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
binary = positional[0] if positional else os.path.join(root, "target", "release", "agghoo")
out = os.path.join(root, "target", "bench-knn-process")
os.makedirs(out, exist_ok=True)

PEER = r"""
import json, sys
import numpy as np, pandas as pd
sys.path.insert(0, sys.argv[4])
from knn import majhoo_sklearn, majhoo_brute, KS
frame = pd.read_csv(sys.argv[1])
x, y = frame.iloc[:, :-1].to_numpy(float), frame.iloc[:, -1].to_numpy(int)
sp = [(np.asarray(s["train"]), np.asarray(s["validation"])) for s in json.load(open(sys.argv[2]))["splits"]]
if sys.argv[3] == "sklearn":
    print(json.dumps([int(m.n_neighbors) for m in majhoo_sklearn(x, y, sp)]))
else:
    print(json.dumps([int(k) for _, k in majhoo_brute(x, y, sp)]))
"""


def case(n, extra, peer_kind, runs):
    rng = np.random.default_rng(20261127 + n + extra)
    x, y = with_noise(n, extra, rng) if extra else problem(n, rng)
    name = f"n{n}_d{x.shape[1]}"
    data = os.path.join(out, f"{name}.csv")
    np.savetxt(data, np.column_stack([x, y]), delimiter=",", fmt=["%.17g"] * x.shape[1] + ["%d"],
               header=",".join([f"x{j}" for j in range(x.shape[1])] + ["y"]), comments="")
    splits_file = os.path.join(out, f"{name}-splits.json")
    subprocess.run([binary, "splits", "--data", data, "--target", "y", "--plan", "mc", "--splits", "10", "--tau", "0.8",
                    "--seed", "1", "--out", splits_file], check=True, capture_output=True)
    ours_cmd = [binary, "select", "--data", data, "--target", "y", "--task", "classification", "--family", "knn",
                "--grid", "1:199:2", "--method", "majhoo", "--splits-file", splits_file, "--json"]
    peer_cmd = [sys.executable, "-c", PEER, data, splits_file, peer_kind, os.path.dirname(os.path.abspath(__file__))]
    ours_t, peer_t = [], []
    for _ in range(runs):
        t = time.perf_counter()
        doc = json.loads(subprocess.run(ours_cmd, check=True, capture_output=True, text=True).stdout)
        ours_t.append(time.perf_counter() - t)
        t = time.perf_counter()
        peer_ks = json.loads(subprocess.run(peer_cmd, check=True, capture_output=True, text=True).stdout)
        peer_t.append(time.perf_counter() - t)
    ours_ks = [int(v) for v in doc["result"]["member_values"]]
    if ours_ks != peer_ks:
        sys.exit(f"{name}: the selected k differ: agghoo {ours_ks}, peer {peer_ks}")
    o, p = float(np.median(ours_t)), float(np.median(peer_t))
    print(f"{name}_{peer_kind}\t{o:.4f}\t{p:.3f}\t{p / o:.1f}", flush=True)


case(500, 0, "sklearn", reps)
if not quick:
    case(100_000, 8, "brute", max(1, reps // 3))
    case(50_000, 48, "brute", max(1, reps // 3))
    if large:
        case(300_000, 8, "brute", 1)
