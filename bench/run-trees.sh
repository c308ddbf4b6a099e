#!/usr/bin/env bash
# Trees benchmark: ours (crates/agghoo/benches/trees.rs) vs scikit-learn (bench/peers/trees.py)
# on the same data, splits and grids; prints a markdown table (docs/benchmarks/trees.md).
# Usage: bench/run-trees.sh [REPS]   (PYTHON overrides the interpreter)
cd "$(dirname "$0")/.."
source bench/lib.sh
reps="${1:-20}"
python="${PYTHON:-.venv/bin/python}"
out="$PWD/target/bench-trees"
mkdir -p "$out"
cargo bench -q -p agghoo --bench trees -- --out "$out" --reps "$reps" > /dev/null
"$python" bench/peers/trees.py "$out" 5 > /dev/null
"$python" - "$out" <<'PY'
import json, os, sys
d = sys.argv[1]
o, p = json.load(open(f"{d}/ours.json")), json.load(open(f"{d}/peer.json"))
c, pc, f, pf = o["cart"], p["cart"], o["forest"], p["forest"]
def ms(s): return f"{s * 1e3:.1f} ms" if s >= 0.01 else f"{s * 1e3:.2f} ms"
print(f"load average at the end: {os.getloadavg()[0]:.2f}; scikit-learn {p['sklearn_version']}, numba {p['numba_version']}\n")
print("| task | ours wall, 1 thread | ours wall, 2 threads | ours CPU | peer | peer wall | peer CPU | wall ratio (peer / ours 2 thr.) | CPU ratio |")
print("|---|---|---|---|---|---|---|---|---|")
def row(task, o1, o2, oc, peer, s, sc):
    print(f"| {task} | {ms(o1)} | {ms(o2)} | {ms(oc)} | {peer} | {ms(s)} | {ms(sc)} | {s / o2:.1f}× | {sc / oc:.1f}× |")
for name, label in [("default", f"{c['grid_len_default']} α (pruning sequence)"), ("61", "61 α")]:
    o1, o2, oc = c[f"select_seconds_{name}_1"], c[f"select_seconds_{name}_2"], c[f"select_cpu_seconds_{name}_2"]
    for peer, key in [("sklearn refit per α", "naive"), ("sklearn grow once + numba pruning/walk", "fast")]:
        row(f"CART Majhoo V=10, {label}", o1, o2, oc, peer, pc[f"{key}_seconds_{name}"], pc[f"{key}_cpu_seconds_{name}"])
for jobs in [1, 2]:
    for peer, key in [(f"RandomForestClassifier n_jobs={jobs}", "fit"), (f"same, oob_score=True, n_jobs={jobs}", "fit_oob")]:
        row("RF 500 trees fit (ours incl. OOB + MDI)", f["fit_seconds_1"], f["fit_seconds_2"], f["fit_cpu_seconds_2"], peer,
            pf[f"{key}_seconds_{jobs}"], pf[f"{key}_cpu_seconds_{jobs}"])
print()
print(f"Test error (5000 fresh rows): CART Majhoo ours {c['test_error_default']:.4f} / sklearn {pc['test_error_default']:.4f} (default grid), "
      f"{c['test_error_61']:.4f} / {pc['test_error_61']:.4f} (61 α); RF ours {f['test_error']:.4f} / sklearn {pf['test_error']:.4f}; "
      f"sklearn fast path selects as the refit: {pc['fast_selects_as_naive_default']} / {pc['fast_selects_as_naive_61']}.")
PY
