#!/usr/bin/env bash
# TreeCV benchmark, ours and the Python peers (numba TreeCV, scikit-learn SGD k-fold) in one run,
# on the same data (the Rust bench dumps it to $TMPDIR); prints markdown tables.
# Usage: bench/run-treecv.sh [--quick] [--threads N] [--data covertype|msd] [--ks 2,5,n] [--tree-only] [--reps R]
#        | --reuse   (needs bench/setup-venv.sh once, or PYTHON=...)
cd "$(dirname "$0")/.."
source bench/lib.sh
PY=${PYTHON:-.venv/bin/python}
# TREECV_CAP_SECONDS (default 60) caps the standard k-fold runs of both sides.
out=${TMPDIR:-/tmp}
if [ "${1:-}" = "--reuse" ]; then # re-tabulate the last run
  ours=$(cat "$out/agghoo-treecv-ours.tsv"); peer=$(cat "$out/agghoo-treecv-peer.tsv")
else
  [ -x "$PY" ] || bash bench/setup-venv.sh
  ours=$(run cargo bench -q -p agghoo --bench treecv -- --dump "$@" | tee "$out/agghoo-treecv-ours.tsv")
  peer=$("$PY" bench/peers/treecv.py "$@" | tee "$out/agghoo-treecv-peer.tsv")
fi
printf '%s\n%s\n' "$ours" "$peer" > "${TMPDIR:-/tmp}/agghoo-treecv-results.tsv"
printf '%s\n%s\n' "$ours" "$peer" | awk -F'\t' '
  $1 == "PASS" { pass[$2] = $5; n[$2] = $3; d[$2] = $4 }
  $1 == "RESULT" { t["ours", $2, $3, $4, $5] = $6; cpu[$2, $3, $4, $5] = $11; est[$2, $3, $4, $5] = $8; ks[$2, $5] = 1; kl[$2] = kl[$2] " " $5; passes[$2, $3, $5] = $7 }
  $1 == "PEER" { t[$3, $2, $4, $5, $6] = $7 }
  function cell(v) { return v == "" ? "skipped" : sprintf("%.3f", v) }
  function ratio(a, b) { return (a == "" || b == "") ? "" : sprintf("%.1fx", b / a) }
  function delta(a, b) { if (a == "" || b == "") return ""; dd = (a - b) / (b == 0 ? 1 : b); return sprintf("%.1e", dd < 0 ? -dd : dd) }
  END {
    for (ds in pass) {
      printf "\n### %s: %s rows x %s features, 2 threads (seconds)\n\n", ds, n[ds], d[ds]
      printf "one training pass (ours, sequential); wall-clock seconds unless marked CPU: %.4f s\n\n", pass[ds]
      print "| k | tree fixed | (CPU s) | tree random | standard fixed | standard random | numba tree fixed | numba tree random | numba standard fixed | sklearn k-fold | vs numba (fixed) | vs numba (random) | tree passes | tree / (log2(n) pass) | f32: tree fixed | (CPU s) | tree random | vs numba (fixed) | vs numba (random) | rel. change of the estimate (fixed, random) |"
      print "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
      split(kl[ds], karr, " ")
      for (i = 1; i in karr; i++) {
        k = karr[i]; if (seen[ds, k]++) continue
        tf = t["ours", ds, "Tree", "Fixed", k]; tr = t["ours", ds, "Tree", "Randomised", k]
        sf = t["ours", ds, "Standard", "Fixed", k]; sr = t["ours", ds, "Standard", "Randomised", k]
        nf = t["numba", ds, "Tree", "Fixed", k]; nr = t["numba", ds, "Tree", "Randomised", k]
        ns = t["numba", ds, "Standard", "Fixed", k]; sk = t["sklearn", ds, "Standard", "Fixed", k]
        ff = t["ours", ds, "TreeF32", "Fixed", k]; fr = t["ours", ds, "TreeF32", "Randomised", k]
        printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %.2f | %.2f | %s | %s | %s | %s | %s | %s, %s |\n", k, cell(tf), cell(cpu[ds, "Tree", "Fixed", k]), cell(tr), cell(sf), cell(sr), cell(nf), cell(nr), cell(ns), cell(sk), ratio(tf, nf), ratio(tr, nr), passes[ds, "Tree", k], tf / (log(n[ds]) / log(2) * pass[ds]), cell(ff), cell(cpu[ds, "TreeF32", "Fixed", k]), cell(fr), ratio(ff, nf), ratio(fr, nr), delta(est[ds, "TreeF32", "Fixed", k], est[ds, "Tree", "Fixed", k]), delta(est[ds, "TreeF32", "Randomised", k], est[ds, "Tree", "Randomised", k])
      }
    }
  }'
