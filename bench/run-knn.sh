#!/usr/bin/env bash
# k-NN Agghoo benchmark, ours and the Python peers in one run; prints a markdown table.
# Usage: bench/run-knn.sh [--quick | --large]   (needs bench/setup-venv.sh once; --large adds
# n = 300 000, d = 10 on both sides: several minutes)
cd "$(dirname "$0")/.."
source bench/lib.sh
[ -x .venv/bin/python ] || bash bench/setup-venv.sh
ours=$(run cargo bench -q -p agghoo --bench knn -- "$@")
peer=$(run .venv/bin/python bench/peers/knn.py "$@")
require "$ours" knn_agghoo_n500
require "$peer" knn_agghoo_n500_sklearn knn_agghoo_n500_numpy
get() { printf '%s\n' "$1" | awk -v k="$2" '$1 == k { print $2 }'; }
a=$(get "$ours" knn_agghoo_n500); s=$(get "$peer" knn_agghoo_n500_sklearn); p=$(get "$peer" knn_agghoo_n500_numpy)
echo "| case | agghoo (s) | peer | peer (s) | speed-up |"
echo "|---|---|---|---|---|"
awk -v a="$a" -v s="$s" -v p="$p" 'BEGIN {
  printf "| Majhoo k-NN, n = 500, 100 k, V = 10, tau = 0.8 | %.5f | scikit-learn refit per k | %.3f | %.0fx |\n", a, s, s / a;
  printf "| same | %.5f | NumPy, sort once per point | %.4f | %.1fx |\n", a, p, p / a }'
for case in $(printf '%s\n' "$ours" | awk '$1 ~ /_d/ { print $1 }'); do
  a=$(get "$ours" "$case"); b=$(get "$peer" "${case}_brute")
  if [ -n "$b" ]; then
    awk -v c="$case" -v a="$a" -v b="$b" 'BEGIN { printf "| Majhoo k-NN %s | %.3f | scikit-learn brute-force kneighbors + cumulative vote | %.3f | %.1fx |\n", c, a, b, b / a }'
  else
    awk -v c="$case" -v a="$a" 'BEGIN { printf "| Majhoo k-NN %s (no peer run) | %.3f | | | |\n", c, a }'
  fi
done
